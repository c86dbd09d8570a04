/* views.c — the library's list of views, hp_views[], from views/list.h (the core, the
 * process-wide hooks and the renderers loop over it: core/view.h). */
#include "core/view.h"
#include "list.h"

#define DECLARE(name, on) extern const struct hp_view hp_##name##_view;
HP_VIEW_LIST(DECLARE)

#define ON_ALL(view) view,
#if defined(__APPLE__)   /* the macOS build has threads and allocations (docs/REFERENCE.md "macOS") */
#define ON_LINUX(view)
#else
#define ON_LINUX(view) view,
#endif
#define ENTRY(name, on) ON_##on(&hp_##name##_view)

const struct hp_view *const hp_views[] = { HP_VIEW_LIST(ENTRY) };
const unsigned hp_view_count = sizeof hp_views / sizeof *hp_views;
