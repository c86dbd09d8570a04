/* io_tab.c — hotpath-console's I/O tab (console/tab.h). */
#include "console/tab.h"

const struct hp_tab hp_io_tab = {
    .title = "I/O",
    .order = 3,
    .sources = { { .endpoint = "/io", .rows = "resources" } },
    .columns = {
        { "Resource", 36, HP_TAB_TEXT, "name" }, { "Kind", 7, HP_TAB_TEXT, "kind" },
        { "Reads", 9, HP_TAB_COUNT, "read.op_count" }, { "Read", 10, HP_TAB_BYTES, "read.bytes" },
        { "Writes", 9, HP_TAB_COUNT, "write.op_count" }, { "Written", 10, HP_TAB_BYTES, "write.bytes" },
        { "Time", 10, HP_TAB_NS, "read.total_ns+write.total_ns" },
    },
    .missing = "view not available: io (HOTPATH_REPORT)",
};
