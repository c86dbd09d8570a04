/* cpu_settings.h — the settings of the CPU profile: the values, and their table (core/settings.h). */
#ifndef HP_CPU_SETTINGS_H
#define HP_CPU_SETTINGS_H

#include "core/settings.h"

struct hp_cpu_settings {
    unsigned limit;                     /* HOTPATH_FUNCTIONS_LIMIT: rows of the functions-cpu table */
    unsigned hz;                        /* HOTPATH_CPU_HZ: samples per second of thread CPU, 0 = off */
    const char *folded;                 /* HOTPATH_CPU_FOLDED: folded stacks file, "" = none */
    const char *flamegraph;             /* HOTPATH_CPU_FLAMEGRAPH: SVG flame graph file, "" = none */
};

extern struct hp_cpu_settings hp_cpu_settings;
extern const struct hp_settings_table hp_cpu_settings_table;

#endif
