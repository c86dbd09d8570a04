/* burn_cpu.h — a known amount of CPU in a function of its own name (burn_cpu), for the CPU
 * profile's tests of programs that use signals themselves. */
#ifndef HP_TEST_BURN_CPU_H
#define HP_TEST_BURN_CPU_H

#include <time.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void burn_cpu(double seconds)
{
    volatile unsigned long x = 0;
    double start = cpu_seconds();
    while (cpu_seconds() - start < seconds)
        for (int i = 0; i < 100000; i++) x += (unsigned long)i;
}

#endif
