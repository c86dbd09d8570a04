/* cpu_bench.c — `make bench`, CPU profile block: a fixed amount of CPU-bound work (a hash loop a
 * few calls deep, as a real program's hot path is) on N threads; prints the CPU seconds the
 * process used. Run with and without the CPU profile, the difference is what sampling costs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rounds = 400;

static __attribute__((noinline)) uint64_t leaf(uint64_t x)
{
    for (int i = 0; i < 100000; i++) x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull + (uint64_t)i;
    return x;
}

static __attribute__((noinline)) uint64_t middle(uint64_t x) { return leaf(x) + 1; }
static __attribute__((noinline)) uint64_t upper(uint64_t x) { return middle(x) ^ 3; }

static void *work(void *arg)
{
    uint64_t x = (uintptr_t)arg;
    for (uint64_t r = 0; r < rounds; r++) x = upper(x);
    return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (argc > 2) rounds = strtoull(argv[2], NULL, 10);
    pthread_t th[64];
    if (threads < 1 || threads > 64) return 2;
    for (int i = 0; i < threads; i++) pthread_create(&th[i], NULL, work, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    printf("cpu_s %.6f\n", (double)ts.tv_sec + ts.tv_nsec / 1e9);
    return 0;
}
