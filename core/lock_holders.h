/* lock_holders.h — where a signal handler may not start a thread: inside the code of the modules
 * that take the locks pthread_create needs (the C library and the loader, the program's
 * allocator, the profiler and its unwinder). An interrupted thread whose instruction lies outside
 * them holds none of those locks; another thread that holds one lets it go. Recorded at start
 * (and libunwind's span once it is opened), read from signal handlers. */
#ifndef HP_LOCK_HOLDERS_H
#define HP_LOCK_HOLDERS_H

#include <stdint.h>

/* Record the spans of the modules that hold these addresses (NULLs are skipped);
 * 0 when every one was found. */
int hp_lock_holders_note(const void *const *anchors, unsigned n);
/* One span more, [lo, hi), for a module the profiler opened later (libunwind); 0 when kept. */
int hp_lock_holders_add(uintptr_t lo, uintptr_t hi);
/* Whether pc lies outside all of them (async-signal-safe); 0 before a note succeeded. */
int hp_pc_outside_lock_holders(uintptr_t pc);

#endif
