/* alloc_settings.h — the settings of allocation call sites: the values, and their table (core/settings.h). */
#ifndef HP_ALLOC_SETTINGS_H
#define HP_ALLOC_SETTINGS_H

#include "core/settings.h"

struct hp_alloc_settings {
    unsigned limit;                     /* HOTPATH_FUNCTIONS_LIMIT: rows of the functions-alloc table */
    unsigned sample_bytes;              /* HOTPATH_ALLOC_SAMPLE_BYTES: mean bytes between samples, 0 = off */
    int cumulative;                     /* HOTPATH_ALLOC_CUMULATIVE: a call site's bytes count for every caller */
    const char *folded;                 /* HOTPATH_ALLOC_FOLDED: folded allocation stacks, "" = none */
    const char *flamegraph;             /* HOTPATH_ALLOC_FLAMEGRAPH: their SVG, "" = none */
};

extern struct hp_alloc_settings hp_alloc_settings;
extern const struct hp_settings_table hp_alloc_settings_table;

#endif
