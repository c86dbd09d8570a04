/* list.h — THE list of views, in report order: a new view is its folder and one line here.
 * X(NAME, ON): its folder views/NAME, its descriptor hp_NAME_view (NAME_view.c) and its console
 * tab hp_NAME_tab (NAME_tab.c). views/views.c makes the library's hp_views[] of it (ON: LINUX, a
 * view the macOS build leaves out, as the Makefile reads here too, or ALL); hotpath-console
 * makes its tabs of all of them. */
#ifndef HP_VIEW_LIST_H
#define HP_VIEW_LIST_H

#define HP_VIEW_LIST(X)                                                                          \
    X(threads, ALL)                                                                              \
    X(locks, LINUX)                                                                              \
    X(io, LINUX)                                                                                 \
    X(cpu, LINUX)                                                                                \
    X(alloc, ALL)

#endif
