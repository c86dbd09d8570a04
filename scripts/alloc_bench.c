/* alloc_bench.c — the loops `make bench` times (scripts/bench.sh runs them bare, under
 * libhotpath.so and under heaptrack).
 *
 *   alloc_bench PATTERN ITERATIONS
 *
 *   pair    malloc(n) + free in a tight loop, n cycling over 16..256 bytes
 *   live    100,000 live objects; each operation frees a pseudo-random slot and mallocs a new
 *           object into it (frees in random order)
 *   thread  pthread_create + pthread_join of a thread that does nothing
 *
 * A warm-up runs first; only the timed loop sits between the two CLOCK_MONOTONIC reads.
 * Prints one line: "PATTERN ITERATIONS ops NS ns/op". Nothing else goes to stdout or stderr
 * unless the arguments are wrong. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIVE_OBJECTS 100000

/* Tells the compiler the pointer escapes and memory may be read, so a malloc/free pair
 * cannot be elided or merged. Costs no instruction. */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

static const size_t sizes[8] = { 16, 24, 32, 48, 64, 96, 128, 256 };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* xorshift64: deterministic, cheap, good enough to scatter slot indices. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t xorshift64(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x;
}

static void pair_loop(long n)
{
    for (long i = 0; i < n; i++) {
        void *p = malloc(sizes[i & 7]);
        ESCAPE(p);
        free(p);
    }
}

static void *slots[LIVE_OBJECTS];

static void live_loop(long n)
{
    for (long i = 0; i < n; i++) {
        uint64_t r = xorshift64();
        size_t slot = (size_t)(((r >> 32) * LIVE_OBJECTS) >> 32);   /* uniform in [0, N) */
        free(slots[slot]);
        slots[slot] = malloc(sizes[r & 7]);
        ESCAPE(slots[slot]);
    }
}

static void *thread_body(void *arg)
{
    return arg;
}

static int thread_loop(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_t t;
        int err = pthread_create(&t, NULL, thread_body, NULL);
        if (err) {
            fprintf(stderr, "alloc_bench: pthread_create: %s\n", strerror(err));
            return -1;
        }
        pthread_join(t, NULL);
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: alloc_bench pair|live|thread ITERATIONS\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 3) return usage();
    const char *pattern = argv[1];
    char *end;
    long iters = strtol(argv[2], &end, 10);
    if (*end || iters <= 0) return usage();
    long warm = iters / 10 > 0 ? iters / 10 : 1;
    double t0, t1;

    if (strcmp(pattern, "pair") == 0) {
        pair_loop(warm);
        t0 = now_ns();
        pair_loop(iters);
        t1 = now_ns();
    } else if (strcmp(pattern, "live") == 0) {
        for (size_t i = 0; i < LIVE_OBJECTS; i++) {
            slots[i] = malloc(sizes[xorshift64() & 7]);
            ESCAPE(slots[i]);
        }
        live_loop(warm);
        t0 = now_ns();
        live_loop(iters);
        t1 = now_ns();
        for (size_t i = 0; i < LIVE_OBJECTS; i++) free(slots[i]);
    } else if (strcmp(pattern, "thread") == 0) {
        if (thread_loop(warm)) return 1;
        t0 = now_ns();
        if (thread_loop(iters)) return 1;
        t1 = now_ns();
    } else {
        return usage();
    }

    printf("%s %ld ops %.2f ns/op\n", pattern, iters, (t1 - t0) / (double)iters);
    return 0;
}
