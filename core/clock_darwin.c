/* clock_darwin.c — monotonic time and the calling thread's CPU time on macOS. The CPU time of
 * another thread comes from the sampler's Mach listing (hp_thread_cpu_ns, platform_darwin.c). */
#include "clock.h"

#include <time.h>

uint64_t hp_now_ns(void)
{
    return clock_gettime_nsec_np(CLOCK_MONOTONIC);
}

uint64_t hp_self_cpu_ns(void)
{
    return clock_gettime_nsec_np(CLOCK_THREAD_CPUTIME_ID);
}
