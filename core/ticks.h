/* ticks.h — the cheapest timestamp that is right on this machine, for durations on hot paths
 * (lock waits and holds, I/O calls): the invariant TSC on x86-64 (rdtsc, ~12 ns), otherwise the
 * vDSO monotonic clock in nanoseconds. Durations are kept in ticks and converted to nanoseconds
 * only when a report is made, with a rate calibrated against CLOCK_MONOTONIC over the run. */
#ifndef HP_TICKS_H
#define HP_TICKS_H

#include <stdint.h>
#include <time.h>

extern int hp_ticks_are_tsc;

/* tsc: hp_ticks_are_tsc, or a copy of it in the page the caller reads anyway. */
static inline uint64_t hp_ticks_from(int tsc)
{
    (void)tsc;
#if defined(__x86_64__)
    if (__builtin_expect(tsc, 1)) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return ((uint64_t)hi << 32) | lo;
    }
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hp_ticks(void)
{
    return hp_ticks_from(hp_ticks_are_tsc);
}

/* At start: decide the source and take the calibration's first reading. */
void hp_ticks_init(void);
/* Nanoseconds for a number of ticks, with the rate measured from start until now. */
uint64_t hp_ticks_to_ns(uint64_t ticks);

#endif
