/* alloc_settings.c — the settings of allocation call sites (see alloc_settings.h). */
#include "alloc_settings.h"

#include <stddef.h>

struct hp_alloc_settings hp_alloc_settings;

#define AT(field) offsetof(struct hp_alloc_settings, field)
#define ROWS "a whole number of rows (0 = all)"

static const struct hp_setting rows[] = {
    { "HOTPATH_FUNCTIONS_LIMIT", HP_SETTING_UINT, AT(limit), 15, 0, 1000000, "HOTPATH_LIMIT", ROWS,
      NULL, "row limit of the functions-cpu and functions-alloc tables", NULL },
    { "HOTPATH_ALLOC_SAMPLE_BYTES", HP_SETTING_UINT, AT(sample_bytes), 512 * 1024, 0, 1073741824, NULL,
      "a whole number of bytes from 0 (off) to 1073741824", NULL,
      "mean bytes allocated between two allocation call-site samples (0 = off)", NULL },
    { "HOTPATH_ALLOC_CUMULATIVE", HP_SETTING_BOOL, AT(cumulative), 0, 0, 0, NULL, "true or false",
      NULL, "call sites counted for every function on the stack", NULL },
    { "HOTPATH_ALLOC_FOLDED", HP_SETTING_FILE, AT(folded), 0, 0, 0, NULL, NULL, "none",
      "the allocation call sites' folded stacks file", NULL },
    { "HOTPATH_ALLOC_FLAMEGRAPH", HP_SETTING_FILE, AT(flamegraph), 0, 0, 0, NULL, NULL, "none",
      "their SVG flame graph file", NULL },
};

const struct hp_settings_table hp_alloc_settings_table = {
    rows, sizeof rows / sizeof *rows, &hp_alloc_settings,
};
