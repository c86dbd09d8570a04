/* lock_bench.c — the lock loops `make bench` times (scripts/bench.sh runs them bare and under
 * libhotpath.so, with the default hold sampling and with every hold timed).
 *
 *   lock_bench PATTERN ITERATIONS
 *
 *   pair       pthread_mutex_lock + pthread_mutex_unlock of one mutex, one thread (uncontended)
 *   contended  two threads each do ITERATIONS/2 lock + counter increment + unlock on one mutex
 *              (the thread that unlocks mostly relocks at once: few acquisitions wait)
 *   workload   two threads each do ITERATIONS/2 rounds of: lock, update a shared table (~WORK
 *              steps), unlock, work of their own as long: half the time inside the lock, so
 *              acquisitions often find it held and wait, as in a contended program
 *
 * A warm-up runs first; only the timed loop sits between the two CLOCK_MONOTONIC reads.
 * Prints one line: "PATTERN ITERATIONS ops NS ns/op". */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long counter;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void pair_loop(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        __asm__ volatile("" ::: "memory");
        pthread_mutex_unlock(&lock);
    }
}

static void *contend(void *arg)
{
    long n = *(long *)arg;
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

#define WORK 64
static volatile unsigned shared_table[WORK];

/* `steps` rounds of a small hash mix: work the compiler cannot drop or fold */
static unsigned mix(unsigned x, int steps)
{
    for (int k = 0; k < steps; k++) x = (x ^ (x >> 15)) * 0x2c1b3c6dU + (unsigned)k;
    return x;
}

static void *work(void *arg)
{
    long n = *(long *)arg;
    unsigned own = (unsigned)(uintptr_t)arg;
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        for (int k = 0; k < WORK; k++) shared_table[k] = mix(shared_table[k] + (unsigned)i, 1);
        pthread_mutex_unlock(&lock);
        own = mix(own, WORK);
    }
    return (void *)(uintptr_t)own;
}

static void two_threads(long n, void *(*body)(void *))
{
    long half = n / 2;
    pthread_t a, b;
    pthread_create(&a, NULL, body, &half);
    pthread_create(&b, NULL, body, &half);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
}

static void contended_loop(long n)
{
    two_threads(n, contend);
}

static void workload_loop(long n)
{
    two_threads(n, work);
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[2]) <= 0) {
        fprintf(stderr, "usage: lock_bench pair|contended|workload ITERATIONS\n");
        return 2;
    }
    long n = atol(argv[2]);
    void (*loop)(long);
    if (strcmp(argv[1], "pair") == 0) loop = pair_loop;
    else if (strcmp(argv[1], "contended") == 0) loop = contended_loop;
    else if (strcmp(argv[1], "workload") == 0) loop = workload_loop;
    else {
        fprintf(stderr, "lock_bench: unknown pattern %s\n", argv[1]);
        return 2;
    }
    loop(n / 10 > 1000 ? n / 10 : 1000);
    double t0 = now_ns();
    loop(n);
    double t1 = now_ns();
    printf("%s %ld ops %.2f ns/op\n", argv[1], n, (t1 - t0) / (double)n);
    return 0;
}
