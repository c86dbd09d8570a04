/* alloc_view.c — allocations: the malloc family's hooks count every block in its thread's
 * counters (the threads view's Alloc and Diff) and sample one in so many bytes with its stack
 * (functions_alloc, with its folded stacks and flame graph). */
#include "alloc_settings.h"
#include "alloc_sites.h"
#include "core/view.h"
#include "report/section.h"
#if !defined(__APPLE__)
#include "alloc_count.h"
#endif

extern const struct hp_section hp_functions_alloc_section;
static const struct hp_section *const sections[] = { &hp_functions_alloc_section };

static void start(const struct hp_view_start *s)
{
    (void)s;
#if !defined(__APPLE__)   /* glibc's chunk headers: Linux only */
    hp_alloc_init();
#endif
    hp_alloc_sites_start();
}

static void fork_child(struct hp_thread *self)
{
    (void)self;
    hp_alloc_sites_fork_child();
}

const struct hp_view hp_alloc_view = {
    .name = "alloc",
    .start = start,
    .fork_child = fork_child,
    .live_known = hp_alloc_sites_on,
    .thread_live = hp_alloc_sites_thread_live,
    .settings = &hp_alloc_settings_table,
    .sections = sections,
    .nsections = 1,
};
