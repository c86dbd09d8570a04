/* cpu_stacks.c — CPU-bound work on stacks where the CPU profile's SIGPROF handler used to write
 * past the end: under the preload it must print and exit exactly as bare.
 *
 *   cpu_stacks altfree     an alternate signal stack in the heap, freed while still registered
 *                          (Ruby 3.1 does this), then heap work checked block by block
 *   cpu_stacks smallstack  a thread with the smallest stack glibc allows, 8 KB of it in use
 *   cpu_stacks smallalt    a registered 8 KB alternate signal stack (Rust's size), guard page below
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double elapsed(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* Allocate, fill, spin, check, free, for about a second: a block that the handler overwrote
 * shows up as corrupted, or malloc itself aborts. */
static long heap_work(void)
{
    long bad = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (elapsed(&start) < 1.0) {
        unsigned char *p[64];
        for (int i = 0; i < 64; i++) {
            p[i] = malloc(256 + (size_t)(i * 97) % 4000);
            memset(p[i], i, 256);
        }
        for (volatile int k = 0; k < 20000; k++) {
        }
        for (int i = 0; i < 64; i++) {
            for (int j = 0; j < 256; j++)
                if (p[i][j] != i) {
                    bad++;
                    break;
                }
            free(p[i]);
        }
    }
    return bad;
}

static void *small_thread(void *arg)
{
    volatile char *used = alloca(8192);   /* 8 KB of its 16 KB in use while it burns CPU */
    used[0] = 1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    volatile double x = 0;
    while (elapsed(&start) < 1.0)
        for (int i = 0; i < 100000; i++) x += i;
    return arg;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "altfree") == 0) {
        void *alt = malloc(16384);
        stack_t ss = { .ss_sp = alt, .ss_size = 16384, .ss_flags = 0 };
        sigaltstack(&ss, NULL);
        free(alt);
        printf("corrupted blocks: %ld\n", heap_work());
    } else if (strcmp(mode, "smallstack") == 0) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
        pthread_t t;
        if (pthread_create(&t, &attr, small_thread, NULL) != 0) return 2;
        pthread_join(t, NULL);
        printf("small stack thread done\n");
    } else if (strcmp(mode, "smallalt") == 0) {
        long page = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, (size_t)page + 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m, (size_t)page, PROT_NONE) != 0) return 2;
        stack_t ss = { .ss_sp = m + page, .ss_size = 8192, .ss_flags = 0 };
        sigaltstack(&ss, NULL);
        printf("corrupted blocks: %ld\n", heap_work());
    } else {
        fprintf(stderr, "usage: cpu_stacks altfree|smallstack|smallalt\n");
        return 2;
    }
    return 0;
}
