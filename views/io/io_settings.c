/* io_settings.c — the settings of the I/O view (see io_settings.h). */
#include "io_settings.h"

#include <stddef.h>

struct hp_io_settings hp_io_settings;

#define AT(field) offsetof(struct hp_io_settings, field)
#define ROWS "a whole number of rows (0 = all)"
#define RATE "a rate from 0.0 (count only) to 1.0 (time every one)"

static const struct hp_setting rows[] = {
    { "HOTPATH_IO_LIMIT", HP_SETTING_UINT, AT(limit), 10, 0, 1000000, "HOTPATH_LIMIT", ROWS, NULL,
      "row limit of the io-read and io-write tables", NULL },
    { "HOTPATH_IO_TIME_SAMPLING_RATE", HP_SETTING_RATE, AT(time_period), 1, 0, 0,
      "HOTPATH_TIME_SAMPLING_RATE", RATE, NULL, "share of I/O calls timed (0 = count only)", NULL },
    { "HOTPATH_IO_ITER", HP_SETTING_BOOL, AT(iter), 0, 0, 0, NULL, "true or false", NULL,
      "one row per file, socket or pipe instance, no merging", NULL },
};

const struct hp_settings_table hp_io_settings_table = {
    rows, sizeof rows / sizeof *rows, &hp_io_settings,
};
