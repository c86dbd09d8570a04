/* ticks.c — see ticks.h. The TSC is used only where CPUID says it is invariant (constant rate,
 * not stopped in deep sleep); the rate comes from comparing it with CLOCK_MONOTONIC since start,
 * so nothing sleeps at start to calibrate. */
#include "ticks.h"

#include <stdatomic.h>

#include "clock.h"

#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define HAVE_GLIBC_CPU_FEATURES 1
#elif defined(__x86_64__)
#include <cpuid.h>
#endif

int hp_ticks_are_tsc;
static uint64_t start_ticks, start_ns;

/* Whether the TSC is invariant (CPUID leaf 0x80000007, EDX bit 8). glibc's loader has read CPUID
 * already and keeps the answer: in a virtual machine each CPUID instruction traps to the
 * hypervisor (about 10 us on the VM this was measured on), and the four a fresh query makes would
 * cost every process start 40 us. */
static int tsc_invariant(void)
{
#if defined(HAVE_GLIBC_CPU_FEATURES)
    return CPU_FEATURE_PRESENT(INVARIANT_TSC);
#elif defined(__x86_64__)
    unsigned a, b, c, d;
    return __get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000007 &&
           __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8));
#else
    return 0;
#endif
}

void hp_ticks_init(void)
{
    hp_ticks_are_tsc = tsc_invariant();
    start_ns = hp_now_ns();
    start_ticks = hp_ticks();
}

uint64_t hp_ticks_to_ns(uint64_t ticks)
{
    if (!hp_ticks_are_tsc) return ticks;
    uint64_t dt_ticks = hp_ticks() - start_ticks, dt_ns = hp_now_ns() - start_ns;
    if (dt_ticks == 0 || dt_ns < 1000000) return ticks;   /* too early to tell: about 1 GHz */
    return (uint64_t)((double)ticks * (double)dt_ns / (double)dt_ticks);
}
