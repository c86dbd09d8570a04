/* locks_settings.h — the settings of the locks view: the values, and their table (core/settings.h). */
#ifndef HP_LOCKS_SETTINGS_H
#define HP_LOCKS_SETTINGS_H

#include "core/settings.h"

struct hp_locks_settings {
    unsigned mutexes_limit;             /* HOTPATH_MUTEXES_LIMIT: rows of the mutexes table */
    unsigned rw_locks_limit;            /* HOTPATH_RW_LOCKS_LIMIT: rows of the rw_locks table */
    unsigned mutex_time_period;         /* HOTPATH_MUTEXES_TIME_SAMPLING_RATE r as a period: every
                                         * round(1/r)-th hold per thread is timed, 0 = none */
    unsigned rwlock_time_period;        /* HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE, the same */
    int iter;                           /* HOTPATH_LOCKS_ITER: one row per lock instance, no merging */
};

extern struct hp_locks_settings hp_locks_settings;
extern const struct hp_settings_table hp_locks_settings_table;

#endif
