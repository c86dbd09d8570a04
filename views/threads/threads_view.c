/* threads_view.c — the threads view: each thread's CPU, state and memory (its hooks: the mmap
 * family here, the malloc family's counts from views/alloc), in one section. */
#include "core/view.h"
#include "mappings.h"
#include "report/section.h"
#include "threads_settings.h"

extern const struct hp_section hp_threads_section;
static const struct hp_section *const sections[] = { &hp_threads_section };

static void threads_fork_child(struct hp_thread *self)
{
    (void)self;
    hp_mappings_reset_in_child();
}

const struct hp_view hp_threads_view = {
    .name = "threads",
#if !defined(__APPLE__)   /* dyld binds the macOS hooks: nothing to look up */
    .resolve = hp_resolve_mmap,
#endif
    .fork_child = threads_fork_child,
    .settings = &hp_threads_settings_table,
    .sections = sections,
    .nsections = 1,
};
