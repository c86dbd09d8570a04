/* views.c — the views, in report order: a new view is its folder and one line here. The core,
 * the process-wide hooks and the renderers loop over this list (core/view.h). */
#include "core/view.h"

extern const struct hp_view hp_threads_view, hp_locks_view, hp_io_view, hp_cpu_profile_view, hp_alloc_view;

const struct hp_view *const hp_views[] = {
    &hp_threads_view,
#if !defined(__APPLE__)   /* the macOS build has threads and allocations (docs/REFERENCE.md "macOS") */
    &hp_locks_view,
    &hp_io_view,
    &hp_cpu_profile_view,
#endif
    &hp_alloc_view,
};
const unsigned hp_view_count = sizeof hp_views / sizeof *hp_views;
