/* locks_thread.h — the locks view's fields in each thread's state (struct hp_thread,
 * core/thread_state.h): two bytes in the first cache line, the waits and timed holds after it
 * (locks.c, lock_hooks.c). Field declarations only. */
#ifndef HP_LOCKS_THREAD_H
#define HP_LOCKS_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_LOCKS_THREAD_FIRST_LINE                                                              \
    unsigned char read_holds;                       /* timed rwlock read holds in read_hold[] */ \
    _Atomic unsigned char blocked_read;             /* blocked_on is an rwlock wait to read */

/* waits in ticks, the lock (struct hp_lock) waited on now */
#define HP_LOCKS_THREAD_FIELDS                                                                  \
    _Atomic uint64_t lock_wait_ticks, cond_wait_ticks, cond_wait_count;                         \
    void *_Atomic blocked_on;                                                                   \
    uint32_t lock_countdown[2];                     /* mutex, rwlock: acquisitions to the next timed hold */ \
    _Atomic uint64_t blocked_since;  /* a mutex or rwlock wait's start in ticks (set before blocked_on) */ \
    struct { void *lock; uint64_t start; } read_hold[4];

/* the counters the registry reads, sums and zeroes (core/registry.h struct hp_counts) */
#define HP_LOCKS_COUNTERS(X) X(lock_wait_ticks) X(cond_wait_ticks) X(cond_wait_count)

#endif
