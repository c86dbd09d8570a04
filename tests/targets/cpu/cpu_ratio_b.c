/* cpu_ratio_b.c — the second compilation unit of tests/targets/cpu_ratio.c: the static hot_b. */
#include <stdint.h>

uint64_t run_hot_b(uint64_t units);

static __attribute__((noinline)) uint64_t hot_b(uint64_t units)
{
    volatile uint64_t acc = 0;
    for (uint64_t i = 0; i < units * 20000; i++) acc = acc * 6364136223846793005ull + i;
    return acc;
}

uint64_t run_hot_b(uint64_t units)
{
    return hot_b(units) + 1;
}
