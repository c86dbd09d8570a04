/* io_settings.h — the settings of the I/O view: the values, and their table (core/settings.h). */
#ifndef HP_IO_SETTINGS_H
#define HP_IO_SETTINGS_H

#include "core/settings.h"

struct hp_io_settings {
    unsigned limit;                     /* HOTPATH_IO_LIMIT: rows of each of the io-read and io-write tables */
    unsigned time_period;               /* HOTPATH_IO_TIME_SAMPLING_RATE r as a period: every round(1/r)-th
                                         * I/O call per thread is timed, 0 = none */
    int iter;                           /* HOTPATH_IO_ITER: one row per instance, no merging of short-lived ones */
};

extern struct hp_io_settings hp_io_settings;
extern const struct hp_settings_table hp_io_settings_table;

#endif
