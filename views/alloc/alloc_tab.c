/* alloc_tab.c — hotpath-console's Allocations tab (console/tab.h): call sites by estimated bytes. */
#include "console/tab.h"

const struct hp_tab hp_alloc_tab = {
    .title = "Allocations",
    .order = 4,
    .sources = { { .endpoint = "/functions_alloc", .rows = "functions" } },
    .columns = {
        { "Function", 40, HP_TAB_TEXT, "name" }, { "Module", 24, HP_TAB_MODULE, "module" },
        { "Bytes", 10, HP_TAB_BYTES, "alloc_bytes" }, { "Calls", 10, HP_TAB_COUNT, "alloc_count" },
        { "Live", 10, HP_TAB_BYTES, "live_bytes" }, { "Total%", 7, HP_TAB_PERCENT, "alloc_percent" },
    },
    .missing = "view not available: functions_alloc; per thread instead:",
    .instead = "Alloc",
    .off = "allocation sampling off (HOTPATH_ALLOC_SAMPLE_BYTES=0)",
};
