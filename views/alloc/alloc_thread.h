/* alloc_thread.h — the allocation views' fields in each thread's state (struct hp_thread,
 * core/thread_state.h, which places them first in its first cache line: every malloc and free
 * reads them with the guard). Field declarations, no types of their own. */
#ifndef HP_ALLOC_THREAD_H
#define HP_ALLOC_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_ALLOC_THREAD_FIRST_LINE                                                              \
    /* the malloc family's counters (alloc_count.h) */                                          \
    _Atomic uint64_t alloc_bytes, alloc_count;                                                  \
    _Atomic uint64_t free_bytes, free_count;                                                    \
    /* allocation call sites (alloc_sites.h): bytes to allocate before the next sample */       \
    int64_t alloc_sample_left;                                                                  \
    unsigned char alloc_sample_armed;   /* the first countdown has been drawn */

/* Of those, the counters the registry reads, sums over exited threads and zeroes in a fork child
 * (core/registry.h struct hp_counts), in their order above. */
#define HP_ALLOC_COUNTERS(X) X(alloc_bytes) X(alloc_count) X(free_bytes) X(free_count)

#endif
