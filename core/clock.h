/* clock.h — timestamps for the profiler: monotonic wall time and CPU time of any thread (clock.c;
 * macOS: clock_darwin.c, and a thread's CPU time from the sampler's Mach listing). */
#ifndef HP_CLOCK_H
#define HP_CLOCK_H

#include <stdint.h>

uint64_t hp_now_ns(void);                 /* CLOCK_MONOTONIC, vDSO */
int hp_thread_cpu_ns(int tid, uint64_t *out); /* CPU time of a thread of this process; 0 on success */
uint64_t hp_self_cpu_ns(void);            /* CPU time of the calling thread */

#endif
