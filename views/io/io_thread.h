/* io_thread.h — the I/O view's fields in each thread's state (struct hp_thread,
 * core/thread_state.h; io.h reads and writes them). Field declarations only. */
#ifndef HP_IO_THREAD_H
#define HP_IO_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

struct hp_io_res;

/* time in I/O calls in ticks, calls, calls to the next timed one */
#define HP_IO_THREAD_FIELDS                                                                     \
    _Atomic uint64_t io_ticks, io_count;                                                        \
    uint32_t io_countdown;                                                                      \
    volatile uint64_t io_key;    /* the last descriptor found in the fd table and the table's */ \
    struct hp_io_res *volatile io_res;   /* generation then, and its record: hp_io_res_of */

/* the counters the registry reads, sums and zeroes (core/registry.h struct hp_counts) */
#define HP_IO_COUNTERS(X) X(io_ticks) X(io_count)

#endif
