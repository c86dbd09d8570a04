/* mappings_thread.h — the threads view's mapping counters in each thread's state (struct
 * hp_thread, core/thread_state.h). Field declarations only. */
#ifndef HP_MAPPINGS_THREAD_H
#define HP_MAPPINGS_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

/* the usable memory this thread mapped and unmapped (mappings.h: mmap, mremap, mprotect, munmap) */
#define HP_MAPPINGS_THREAD_FIELDS                                                               \
    _Atomic uint64_t mapped_bytes, unmapped_bytes;

/* the reservations (PROT_NONE) it made less those it ended, a signed sum kept in a uint64_t: in a
 * live state only, so it shares the word of a free state's link (core/thread_state.h) */
#define HP_MAPPINGS_THREAD_LIVE_WORD _Atomic uint64_t reserved_bytes;

/* the counters the registry reads, sums and zeroes (core/registry.h struct hp_counts) */
#define HP_MAPPINGS_COUNTERS(X) X(mapped_bytes) X(unmapped_bytes) X(reserved_bytes)

#endif
