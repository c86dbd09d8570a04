/* io_view.c — the I/O view: time and bytes per file, socket and pipe, in one section. */
#include "core/registry.h"
#include "core/ticks.h"
#include "core/view.h"
#include "io.h"
#include "io_raw.h"
#include "report/section.h"
#include "io_settings.h"

extern const struct hp_section hp_io_section;
static const struct hp_section *const sections[] = { &hp_io_section };

/* A thread's time and calls in I/O. */
static void thread_json(struct hp_json *j, const struct hp_counts *c)
{
    hp_json_u64(j, "io_ns", hp_ticks_to_ns(c->io_ticks));
    hp_json_u64(j, "io_count", c->io_count);
}

static void start(const struct hp_view_start *s)
{
    (void)s;
    hp_io_raw_init();
}

const struct hp_view hp_io_view = {
    .name = "io",
    .resolve = hp_resolve_io,
    .start = start,
    .thread_json = thread_json,
    .settings = &hp_io_settings_table,
    .sections = sections,
    .nsections = 1,
};
