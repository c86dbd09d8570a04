/* burn.h — for dl_unload and its library: the calling thread's CPU time, and a function of a
 * given name that burns CPU (kept out of line, so samples land in it). */
#ifndef HP_TEST_BURN_H
#define HP_TEST_BURN_H

#include <time.h>

static inline double burn_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define BURN_FUNCTION(name)                                                                    \
    static __attribute__((noinline)) unsigned long name(double seconds)                         \
    {                                                                                           \
        volatile unsigned long acc = 0;                                                         \
        double start = burn_cpu_seconds();                                                      \
        while (burn_cpu_seconds() - start < seconds)                                            \
            for (unsigned long i = 0; i < 40000; i++) acc = acc * 6364136223846793005ul + i;    \
        return acc;                                                                             \
    }

#endif
