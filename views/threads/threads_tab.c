/* threads_tab.c — hotpath-console's Threads tab (console/tab.h). */
#include "console/tab.h"

const struct hp_tab hp_threads_tab = {
    .title = "Threads",
    .order = 1,
    .sources = { { .endpoint = "/threads", .rows = "rows" } },
    .columns = {
        { "Thread", 24, HP_TAB_TEXT, "name" }, { "TID", 8, HP_TAB_COUNT, "os_tid" },
        { "Status", 11, HP_TAB_STATUS, "status", "blocked_on" },
        { "CPU%", 7, HP_TAB_PERCENT, "cpu_percent" }, { "Max%", 7, HP_TAB_PERCENT, "max_cpu_percent" },
        { "User", 10, HP_TAB_SECONDS, "cpu_user_ns" }, { "Sys", 10, HP_TAB_SECONDS, "cpu_sys_ns" },
        { "Alloc", 10, HP_TAB_BYTES, "alloc_bytes" }, { "Dealloc", 10, HP_TAB_BYTES, "dealloc_bytes" },
        { "Diff", 10, HP_TAB_BYTES, "diff_bytes" },
        { "Trend", 16, HP_TAB_TREND, "diff_trend_bytes_per_min", "diff_growing" },
    },
};
