/* threads_settings.c — the settings of the threads view (see threads_settings.h). */
#include "threads_settings.h"

#include <stddef.h>

struct hp_threads_settings hp_threads_settings;

#define AT(field) offsetof(struct hp_threads_settings, field)
#define ROWS "a whole number of rows (0 = all)"

static const struct hp_setting rows[] = {
    { "HOTPATH_THREADS_LIMIT", HP_SETTING_UINT, AT(limit), 5, 0, 1000000, "HOTPATH_LIMIT", ROWS, NULL,
      "row limit of the threads table", NULL },
};

const struct hp_settings_table hp_threads_settings_table = {
    rows, sizeof rows / sizeof *rows, &hp_threads_settings,
};
