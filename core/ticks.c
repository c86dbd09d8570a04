/* ticks.c — see ticks.h. The TSC is used only where CPUID says it is invariant (constant rate,
 * not stopped in deep sleep); the rate comes from comparing it with CLOCK_MONOTONIC since start,
 * so nothing sleeps at start to calibrate. */
#include "ticks.h"

#include <stdatomic.h>
#include <string.h>

#include "clock.h"

#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define HAVE_GLIBC_CPU_FEATURES 1
#elif defined(__x86_64__)
#include <cpuid.h>
#endif

int hp_ticks_are_tsc;

/* The rate in use, measured again once it is RATE_AGE_NS old: the conversions of one report use
 * one rate, so a P95 capped at the max in ticks is not a nanosecond above it in ns. */
#define RATE_AGE_NS 100000000u

/* The calibration: both clocks read at start, and the rate measured from them. */
static struct {
    uint64_t start_ticks, start_ns;
    _Atomic uint64_t rate_bits, rate_at_ns;    /* ns per tick (a double's bits); when measured */
} calibration;

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
    calibration.start_ns = hp_now_ns();
    calibration.start_ticks = hp_ticks();
    atomic_store(&calibration.rate_at_ns, 0);
}

uint64_t hp_ticks_to_ns(uint64_t ticks)
{
    if (!hp_ticks_are_tsc) return ticks;
    uint64_t now = hp_now_ns(), at = atomic_load_explicit(&calibration.rate_at_ns, memory_order_acquire);
    double rate;
    if (at && now - at < RATE_AGE_NS) {
        uint64_t bits = atomic_load_explicit(&calibration.rate_bits, memory_order_relaxed);
        memcpy(&rate, &bits, sizeof rate);
    } else {
        uint64_t dt_ticks = hp_ticks() - calibration.start_ticks, dt_ns = now - calibration.start_ns;
        if (dt_ticks == 0 || dt_ns < 1000000) return ticks;   /* too early to tell: about 1 GHz */
        rate = (double)dt_ns / (double)dt_ticks;
        uint64_t bits;
        memcpy(&bits, &rate, sizeof bits);
        atomic_store_explicit(&calibration.rate_bits, bits, memory_order_relaxed);
        atomic_store_explicit(&calibration.rate_at_ns, now, memory_order_release);
    }
    return (uint64_t)((double)ticks * rate);
}
