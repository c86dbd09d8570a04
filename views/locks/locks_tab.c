/* locks_tab.c — hotpath-console's Locks tab (console/tab.h): mutexes, then read-write locks by
 * mode. */
#include "console/tab.h"

const struct hp_tab hp_locks_tab = {
    .title = "Locks",
    .order = 2,
    .sources = {
        { .endpoint = "/mutexes", .rows = "rows", .label = "mutex" },
        { .endpoint = "/rw_locks", .rows = "rows", .within = "read", .skip_zero = "locks_count", .label = "rwlock read" },
        { .endpoint = "/rw_locks", .rows = "rows", .within = "write", .skip_zero = "locks_count", .label = "rwlock write" },
    },
    .columns = {
        { "Lock", 36, HP_TAB_TEXT, "name" }, { "Kind", 12, HP_TAB_LABEL },
        { "Locks", 10, HP_TAB_COUNT, "locks_count" },
        { "Contended", 10, HP_TAB_COUNT, "contended_count", .alarm = 1 },
        { "Wait", 10, HP_TAB_NS, "wait_total_ns" }, { "Wait p99", 10, HP_TAB_NS, "wait_p99_ns" },
        { "Hold avg", 10, HP_TAB_NS, "hold_avg_ns" },
    },
    .missing = "locks views not available (HOTPATH_REPORT)",
};
