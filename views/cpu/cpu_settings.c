/* cpu_settings.c — the settings of the CPU profile (see cpu_settings.h). */
#include "cpu_settings.h"

#include <stddef.h>

struct hp_cpu_settings hp_cpu_settings;

#define AT(field) offsetof(struct hp_cpu_settings, field)
#define ROWS "a whole number of rows (0 = all)"

static const struct hp_setting rows[] = {
    { "HOTPATH_FUNCTIONS_LIMIT", HP_SETTING_UINT, AT(limit), 15, 0, 1000000, "HOTPATH_LIMIT", ROWS,
      NULL, "row limit of the functions-cpu and functions-alloc tables", NULL },
    { "HOTPATH_CPU_HZ", HP_SETTING_UINT, AT(hz), 99, 0, 1000, NULL,
      "a whole number of samples per CPU second from 0 (off) to 1000", NULL,
      "CPU profile samples per second of each thread's CPU time (0 = off)", NULL },
    { "HOTPATH_CPU_FOLDED", HP_SETTING_FILE, AT(folded), 0, 0, 0, NULL, NULL, "none",
      "the CPU profile's folded stacks file", NULL },
    { "HOTPATH_CPU_FLAMEGRAPH", HP_SETTING_FILE, AT(flamegraph), 0, 0, 0, NULL, NULL, "none",
      "the CPU profile's SVG flame graph file", NULL },
};

const struct hp_settings_table hp_cpu_settings_table = {
    rows, sizeof rows / sizeof *rows, &hp_cpu_settings,
};
