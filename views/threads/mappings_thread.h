/* mappings_thread.h — the threads view's mapping counters in each thread's state (struct
 * hp_thread, core/thread_state.h). Field declarations only. */
#ifndef HP_MAPPINGS_THREAD_H
#define HP_MAPPINGS_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_MAPPINGS_THREAD_FIELDS                                                               \
    _Atomic uint64_t mapped_bytes, unmapped_bytes;  /* anonymous mmap/mremap/munmap (mappings.c) */

/* the counters the registry reads, sums and zeroes (core/registry.h struct hp_counts) */
#define HP_MAPPINGS_COUNTERS(X) X(mapped_bytes) X(unmapped_bytes)

#endif
