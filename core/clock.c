/* clock.c — monotonic time and per-thread CPU clocks (Linux: a tid's CPU clock id is
 * ((~tid) << 3) | 6, the kernel's CPUCLOCK_SCHED encoding, readable for any thread of the process). */
#include "clock.h"

#include <time.h>

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

uint64_t hp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_ns(&ts);
}

int hp_thread_cpu_ns(int tid, uint64_t *out)
{
    struct timespec ts;
    clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6u);
    if (clock_gettime(id, &ts) != 0) return -1;
    *out = ts_ns(&ts);
    return 0;
}

uint64_t hp_self_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts_ns(&ts);
}
