/* cpu_ratio — known truth for the CPU profile: a worker thread spends 3/4 of its CPU in the static
 * function hot_a (this file) and 1/4 in the static function hot_b (tests/targets/cpu/cpu_ratio_b.c,
 * another compilation unit): the same loop body, 3 and 1 units of work a round, until the thread
 * has burned CPU_SECONDS of CPU (argv[1], default 4). Rounds are short (about 0.1 ms) next to the
 * kernel tick that paces CPU-time timers, so samples cannot alias with them. Built with frame
 * pointers, no inlining. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t run_hot_b(uint64_t units);      /* cpu_ratio_b.c: calls its static hot_b */

static __attribute__((noinline)) uint64_t hot_a(uint64_t units)
{
    volatile uint64_t acc = 0;
    for (uint64_t i = 0; i < units * 20000; i++) acc = acc * 6364136223846793005ull + i;
    return acc;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double target_s = 4.0;

static void *worker(void *arg)
{
    (void)arg;
    uint64_t sink = 0;
    double start = cpu_seconds();
    while (cpu_seconds() - start < target_s) {
        sink += hot_a(3);
        sink += run_hot_b(1);
    }
    printf("%llu\n", (unsigned long long)(sink & 1));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) target_s = atof(argv[1]);
    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    pthread_setname_np(th, "burner");
    pthread_join(th, NULL);
    return 0;
}
