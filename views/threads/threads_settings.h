/* threads_settings.h — the settings of the threads view: the values, and their table (core/settings.h). */
#ifndef HP_THREADS_SETTINGS_H
#define HP_THREADS_SETTINGS_H

#include "core/settings.h"

struct hp_threads_settings {
    unsigned limit;                     /* HOTPATH_THREADS_LIMIT: rows of the threads table, 0 = all */
};

extern struct hp_threads_settings hp_threads_settings;
extern const struct hp_settings_table hp_threads_settings_table;

#endif
