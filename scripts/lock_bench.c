/* lock_bench.c — the lock loops `make bench` times (scripts/bench.sh runs them bare and under
 * libhotpath.so, with the default hold sampling and with every hold timed).
 *
 *   lock_bench PATTERN ITERATIONS
 *
 *   pair       pthread_mutex_lock + pthread_mutex_unlock of one mutex, one thread (uncontended)
 *   contended  two threads each do ITERATIONS/2 lock + counter increment + unlock on one mutex
 *
 * A warm-up runs first; only the timed loop sits between the two CLOCK_MONOTONIC reads.
 * Prints one line: "PATTERN ITERATIONS ops NS ns/op". */
#include <pthread.h>
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

static void contended_loop(long n)
{
    long half = n / 2;
    pthread_t a, b;
    pthread_create(&a, NULL, contend, &half);
    pthread_create(&b, NULL, contend, &half);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[2]) <= 0) {
        fprintf(stderr, "usage: lock_bench pair|contended ITERATIONS\n");
        return 2;
    }
    long n = atol(argv[2]);
    void (*loop)(long);
    if (strcmp(argv[1], "pair") == 0) loop = pair_loop;
    else if (strcmp(argv[1], "contended") == 0) loop = contended_loop;
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
