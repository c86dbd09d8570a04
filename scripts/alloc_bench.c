/* alloc_bench.c — the loops `make bench` times (scripts/bench.sh runs them bare, under
 * libhotpath.so and under heaptrack).
 *
 *   alloc_bench PATTERN ITERATIONS
 *
 *   pair    malloc(n) + free in a tight loop, n cycling over 16..256 bytes
 *   live    100,000 live objects; each operation frees a pseudo-random slot and mallocs a new
 *           object into it (frees in random order)
 *   thread  pthread_create + pthread_join of a thread that does nothing
 *   inproc-pair, inproc-live
 *           the pair and live loops twice in one process, in alternating blocks: through malloc
 *           and free (under LD_PRELOAD, the profiler's hooks) and through glibc's __libc_malloc
 *           and __libc_free, which no hook sees (each loop with its own live objects). What the
 *           hooks add is the median, over 21 blocks, of the two loops' difference: both halves
 *           share the process, its heap and the machine's state of the moment, which on a shared
 *           VM moves the live loop's bare figure by 2x from one process to the next.
 *           Prints "PATTERN ITERATIONS ops DIRECT HOOKED ADDED ns/op".
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

/* glibc's allocator under its internal names: no LD_PRELOAD hook sees these calls */
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);

static void pair_loop_direct(long n)
{
    for (long i = 0; i < n; i++) {
        void *p = __libc_malloc(sizes[i & 7]);
        ESCAPE(p);
        __libc_free(p);
    }
}

static void *direct_slots[LIVE_OBJECTS];

static void live_loop_direct(long n)
{
    for (long i = 0; i < n; i++) {
        uint64_t r = xorshift64();
        size_t slot = (size_t)(((r >> 32) * LIVE_OBJECTS) >> 32);
        __libc_free(direct_slots[slot]);
        direct_slots[slot] = __libc_malloc(sizes[r & 7]);
        ESCAPE(direct_slots[slot]);
    }
}

#define INPROC_BLOCKS 21

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v)
{
    qsort(v, INPROC_BLOCKS, sizeof *v, compare_doubles);
    return v[INPROC_BLOCKS / 2];
}

/* `iters` operations of each loop, in INPROC_BLOCKS alternating blocks (after a warm-up). */
static void inproc(const char *pattern, long iters, void (*hooked)(long), void (*direct)(long))
{
    long block = iters / INPROC_BLOCKS > 0 ? iters / INPROC_BLOCKS : 1;
    double d[INPROC_BLOCKS], h[INPROC_BLOCKS], added[INPROC_BLOCKS];
    direct(block);
    hooked(block);
    for (int b = 0; b < INPROC_BLOCKS; b++) {
        double t0 = now_ns();
        direct(block);
        double t1 = now_ns();
        hooked(block);
        double t2 = now_ns();
        d[b] = (t1 - t0) / (double)block;
        h[b] = (t2 - t1) / (double)block;
        added[b] = h[b] - d[b];
    }
    printf("%s %ld ops %.2f %.2f %.2f ns/op\n", pattern, iters, median_of(d), median_of(h), median_of(added));
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
    fprintf(stderr, "usage: alloc_bench pair|live|thread|inproc-pair|inproc-live ITERATIONS\n");
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
    } else if (strcmp(pattern, "inproc-pair") == 0) {
        inproc(pattern, iters, pair_loop, pair_loop_direct);
        return 0;
    } else if (strcmp(pattern, "inproc-live") == 0) {
        for (size_t i = 0; i < LIVE_OBJECTS; i++) {
            slots[i] = malloc(sizes[xorshift64() & 7]);
            direct_slots[i] = __libc_malloc(sizes[xorshift64() & 7]);
        }
        inproc(pattern, iters, live_loop, live_loop_direct);
        for (size_t i = 0; i < LIVE_OBJECTS; i++) {
            free(slots[i]);
            __libc_free(direct_slots[i]);
        }
        return 0;
    } else {
        return usage();
    }

    printf("%s %ld ops %.2f ns/op\n", pattern, iters, (t1 - t0) / (double)iters);
    return 0;
}
