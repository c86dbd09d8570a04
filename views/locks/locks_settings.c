/* locks_settings.c — the settings of the locks view (see locks_settings.h). */
#include "locks_settings.h"

#include <stddef.h>

struct hp_locks_settings hp_locks_settings;

#define AT(field) offsetof(struct hp_locks_settings, field)
#define ROWS "a whole number of rows (0 = all)"
#define RATE "a rate from 0.0 (count only) to 1.0 (time every one)"

static const struct hp_setting rows[] = {
    { "HOTPATH_MUTEXES_LIMIT", HP_SETTING_UINT, AT(mutexes_limit), 10, 0, 1000000, "HOTPATH_LIMIT",
      ROWS, NULL, "row limit of the mutexes table", NULL },
    { "HOTPATH_RW_LOCKS_LIMIT", HP_SETTING_UINT, AT(rw_locks_limit), 10, 0, 1000000, "HOTPATH_LIMIT",
      ROWS, NULL, "row limit of the rw_locks table", NULL },
    { "HOTPATH_MUTEXES_TIME_SAMPLING_RATE", HP_SETTING_RATE, AT(mutex_time_period), 20, 0, 0,
      "HOTPATH_TIME_SAMPLING_RATE", RATE, NULL, "share of mutex holds timed (every wait is)", NULL },
    { "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", HP_SETTING_RATE, AT(rwlock_time_period), 20, 0, 0,
      "HOTPATH_TIME_SAMPLING_RATE", RATE, NULL, "share of rwlock holds timed (every wait is)", NULL },
    { "HOTPATH_LOCKS_ITER", HP_SETTING_BOOL, AT(iter), 0, 0, 0, NULL, "true or false", NULL,
      "one row per lock instance instead of one per name", NULL },
};

const struct hp_settings_table hp_locks_settings_table = {
    rows, sizeof rows / sizeof *rows, &hp_locks_settings,
};
