/* lock_bench.c — the lock loops `make bench` times (scripts/bench.sh runs them bare and under
 * libhotpath.so, with the default hold sampling and with every hold timed).
 *
 *   lock_bench PATTERN ITERATIONS [SHAPE]
 *
 *   pair       pthread_mutex_lock + pthread_mutex_unlock of one mutex, one thread (uncontended),
 *              in a program of the SHAPE scripts/bench_shape.h names (alone by default)
 *   contended  two threads each do ITERATIONS/2 lock + counter increment + unlock on one mutex
 *              (the thread that unlocks mostly relocks at once: few acquisitions wait)
 *   workload   two threads each do ITERATIONS/2 rounds of: lock, update a shared table (~WORK
 *              steps), unlock, work of their own as long: half the time inside the lock, so
 *              acquisitions often find it held and wait, as in a contended program
 *   rwread     two threads each do ITERATIONS/2 pthread_rwlock_rdlock + unlock of one rwlock
 *              (readers share it: neither waits, both move the rwlock's own line)
 *   workload-ab the workload inside one process, in AB_BLOCKS pairs of short blocks: one block
 *              locks through the program's own functions (the hooks, when preloaded), the other
 *              through libc's found directly (dlopen: never the hooks), both threads switching
 *              together at a barrier, so the VM's drift between runs cancels in each pair
 *
 * A warm-up runs first; only the timed loop sits between the two CLOCK_MONOTONIC reads.
 * Prints one line: "PATTERN ITERATIONS ops NS ns/op"; workload-ab prints
 * "workload-ab ITERATIONS ops HOOKED ns/op direct DIRECT ns/op ratio R" (medians of the blocks,
 * R the median of the pairs' direct/hooked time: the hooked throughput as a share of bare). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_shape.h"

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

static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

static void *read_side(void *arg)
{
    long n = *(long *)arg;
    for (long i = 0; i < n; i++) {
        pthread_rwlock_rdlock(&rwlock);
        __asm__ volatile("" ::: "memory");
        pthread_rwlock_unlock(&rwlock);
    }
    return NULL;
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

/* The lock functions the workload calls: the program's own (the hooks, when preloaded), or
 * libc's in workload-ab's direct blocks. */
typedef int (*mutex_fn)(pthread_mutex_t *);
static mutex_fn lock_fn = pthread_mutex_lock, unlock_fn = pthread_mutex_unlock;

static unsigned rounds(long n, unsigned own)
{
    for (long i = 0; i < n; i++) {
        lock_fn(&lock);
        for (int k = 0; k < WORK; k++) shared_table[k] = mix(shared_table[k] + (unsigned)i, 1);
        unlock_fn(&lock);
        own = mix(own, WORK);
    }
    return own;
}

static void *work(void *arg)
{
    return (void *)(uintptr_t)rounds(*(long *)arg, (unsigned)(uintptr_t)arg);
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

static void rwread_loop(long n)
{
    two_threads(n, read_side);
}

#define AB_BLOCKS 201

static mutex_fn direct_lock, direct_unlock;
static pthread_barrier_t ab_gate;
static long ab_per;
static double ab_ns[2][AB_BLOCKS];    /* [hooked][block]: ns per round */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Both threads run each block; the first also switches the functions and times it. */
static void *ab_thread(void *arg)
{
    int first = arg != NULL;
    unsigned own = (unsigned)first;
    for (int b = 0; b < AB_BLOCKS; b++) {
        for (int half = 0; half < 2; half++) {
            int hooked = (b & 1) ^ half;    /* alternate which goes first */
            if (first) {
                lock_fn = hooked ? pthread_mutex_lock : direct_lock;
                unlock_fn = hooked ? pthread_mutex_unlock : direct_unlock;
            }
            pthread_barrier_wait(&ab_gate);
            double t0 = now_ns();
            own = rounds(ab_per, own);
            pthread_barrier_wait(&ab_gate);
            if (first) ab_ns[hooked][b] = (now_ns() - t0) / (double)(2 * ab_per);
        }
    }
    return (void *)(uintptr_t)own;
}

static int workload_ab(long n)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    direct_lock = libc ? (mutex_fn)dlsym(libc, "pthread_mutex_lock") : NULL;
    direct_unlock = libc ? (mutex_fn)dlsym(libc, "pthread_mutex_unlock") : NULL;
    ab_per = n / (4 * AB_BLOCKS);
    if (!direct_lock || !direct_unlock || ab_per < 1) {
        fprintf(stderr, "lock_bench: cannot set up workload-ab (%s)\n", ab_per < 1 ? "iterations" : "dlsym");
        return 1;
    }
    workload_loop(n / 10 > 1000 ? n / 10 : 1000);    /* warm-up */
    pthread_barrier_init(&ab_gate, NULL, 2);
    pthread_t a, b;
    pthread_create(&a, NULL, ab_thread, &ab_per);
    pthread_create(&b, NULL, ab_thread, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    static double ratio[AB_BLOCKS];
    for (int i = 0; i < AB_BLOCKS; i++) ratio[i] = ab_ns[0][i] / ab_ns[1][i];
    qsort(ab_ns[0], AB_BLOCKS, sizeof(double), by_value);
    qsort(ab_ns[1], AB_BLOCKS, sizeof(double), by_value);
    qsort(ratio, AB_BLOCKS, sizeof(double), by_value);
    printf("workload-ab %ld ops %.2f ns/op direct %.2f ns/op ratio %.3f\n", ab_per * 4 * AB_BLOCKS,
           ab_ns[1][AB_BLOCKS / 2], ab_ns[0][AB_BLOCKS / 2], ratio[AB_BLOCKS / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || atol(argv[2]) <= 0 || (argc == 4 && strcmp(argv[1], "pair") != 0)) {
        fprintf(stderr, "usage: lock_bench pair|contended|workload|rwread|workload-ab ITERATIONS (pair: [alone|late|threaded])\n");
        return 2;
    }
    if (argc == 4 && bench_shape(argv[3]) != 0) {
        fprintf(stderr, "lock_bench: cannot make shape %s\n", argv[3]);
        return 2;
    }
    long n = atol(argv[2]);
    if (strcmp(argv[1], "workload-ab") == 0) return workload_ab(n);
    void (*loop)(long);
    if (strcmp(argv[1], "pair") == 0) loop = pair_loop;
    else if (strcmp(argv[1], "contended") == 0) loop = contended_loop;
    else if (strcmp(argv[1], "workload") == 0) loop = workload_loop;
    else if (strcmp(argv[1], "rwread") == 0) loop = rwread_loop;
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
