/* cpu_tab.c — hotpath-console's CPU tab (console/tab.h): each function's self and total samples. */
#include "console/tab.h"

const struct hp_tab hp_cpu_tab = {
    .title = "CPU",
    .order = 5,
    .sources = { { .endpoint = "/functions_cpu", .rows = "functions" } },
    .columns = {
        { "Function", 40, HP_TAB_TEXT, "name" }, { "Module", 24, HP_TAB_MODULE, "module" },
        { "Self", 10, HP_TAB_COUNT, "self_count" }, { "Total", 10, HP_TAB_COUNT, "total_count" },
        { "Self%", 7, HP_TAB_PERCENT, "self_percent" }, { "Total%", 7, HP_TAB_PERCENT, "total_percent" },
    },
    .missing = "view not available: functions_cpu; per thread instead:",
    .instead = "User",
    .off = "profile off",
    .off_reason = "off_reason",
};
