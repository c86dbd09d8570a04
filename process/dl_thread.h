/* dl_thread.h — the loader hooks' flags in each thread's state (struct hp_thread,
 * core/thread_state.h, first cache line): set by process/dl.c around dl_iterate_phdr and dlclose,
 * read by the unwinder (core/unwind.c) and the fork and start paths. Field declarations only. */
#ifndef HP_DL_THREAD_H
#define HP_DL_THREAD_H

#include <stdatomic.h>

#define HP_DL_THREAD_FIRST_LINE                                                                 \
    _Atomic unsigned char in_loader;    /* inside dl_iterate_phdr or dlclose (dl.c): no stacks */ \
    _Atomic unsigned char in_iterate;   /* of those, dl_iterate_phdr: its lock held, no change made */

#endif
