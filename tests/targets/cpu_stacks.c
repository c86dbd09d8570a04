/* cpu_stacks.c — CPU-bound work on stacks where the CPU profile's SIGPROF handler used to write
 * past the end: under the preload it must print and exit exactly as bare.
 *
 *   cpu_stacks altfree     an alternate signal stack in the heap, freed while still registered
 *                          (Ruby 3.1 does this), then heap work checked block by block
 *   cpu_stacks smallstack  a thread with the smallest stack glibc allows, 8 KB of it in use
 *   cpu_stacks smallalt    a registered 8 KB alternate signal stack (Rust's size), guard page below
 *   cpu_stacks stack64k    a thread with a 64 KB stack burns a second of CPU (it should be sampled)
 *   cpu_stacks smalldeep   a thread on a 16 KB stack of the program's (guard page below) burns a
 *                          second of CPU with 2.5 KB of it left: less than a signal frame
 *   cpu_stacks stackaddr   a thread on a 64 KB stack of the program's, given by its top only
 *                          (pthread_attr_setstackaddr: glibc then reports an 8 MB stack), burns a
 *                          second of CPU with 6 KB of it left
 *   cpu_stacks manykeys    40 pthread keys made first, then malloc/free churn for about a second of
 *                          CPU in main and in two threads, three times: libunwind's own key, if it
 *                          were made only now (numbered 40 or more), would make pthread_setspecific
 *                          allocate inside a SIGPROF that interrupted free
 *   cpu_stacks nearlimit   main recurses to 10 KB above its RLIMIT_STACK limit and burns a second
 *                          of CPU there (run through the loader, as ld.so ./prog, the profiler
 *                          once took the wrong end of main's stack and unwound past that limit);
 *                          with CPU_STACKS_PROBE=1 it prints instead where AT_EXECFN's string
 *                          would put the stack's top, modulo a page (=0: the same layout, runs)
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

static char *stack_bottom;
static uintptr_t stack_left = 6000;   /* dig() goes down until this much stack is left */

static __attribute__((noinline)) void burn_second(void)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    volatile double x = 0;
    while (elapsed(&start) < 1.0)
        for (int i = 0; i < 100000; i++) x += i;
}

/* down the stack until 6 KB are left, then burn */
static __attribute__((noinline)) void dig(void)
{
    volatile char pad[512];
    pad[0] = 1;
    if ((uintptr_t)__builtin_frame_address(0) - (uintptr_t)stack_bottom > stack_left) dig();
    else burn_second();
    pad[1] = pad[0];
}

static void *digger(void *arg)
{
    dig();
    return arg;
}

static void *burner(void *arg)
{
    burn_second();
    return arg;
}

/* A thread that burns a second: on a stack of stacksize glibc makes (top NULL), or on the
 * program's own stack below top, given with its size (stacksize) or by its top alone (0). */
static int run_thread(size_t stacksize, char *top)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (top && stacksize) {
        pthread_attr_setstack(&attr, top - stacksize, stacksize);
    } else if (top) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        pthread_attr_setstackaddr(&attr, top);
#pragma GCC diagnostic pop
    } else if (stacksize) {
        pthread_attr_setstacksize(&attr, stacksize);
    }
    pthread_t t;
    if (pthread_create(&t, &attr, top ? digger : burner, NULL) != 0) return 2;
    pthread_join(t, NULL);
    return 0;
}

/* size bytes of stack with 4 guard pages below; sets stack_bottom, returns the top */
static char *own_stack(size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, size + 4 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, 4 * (size_t)page, PROT_NONE) != 0) return NULL;
    stack_bottom = m + 4 * page;
    return stack_bottom + size;
}

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* malloc and free of 2-4 KB blocks for about `seconds` of the thread's CPU */
static void *churn(void *arg)
{
    double end = thread_cpu() + *(const double *)arg;
    void *keep[64] = { 0 };
    for (long i = 0; thread_cpu() < end;)
        for (int k = 0; k < 2000; k++, i++) {
            free(keep[i & 63]);
            keep[i & 63] = malloc(2000 + (size_t)(i % 7) * 300);
        }
    for (int j = 0; j < 64; j++) free(keep[j]);
    return NULL;
}

static uintptr_t limit_low;      /* main's stack may not grow below this */

static __attribute__((noinline)) int near_limit(int depth)
{
    volatile char pad[512];
    pad[0] = (char)depth;
    if ((uintptr_t)__builtin_frame_address(0) - limit_low < 10 * 1024) {
        burn_second();
        return pad[0];
    }
    return near_limit(depth + 1) + pad[0];
}

/* main's stack: its top from /proc/self/maps, its bottom RLIMIT_STACK below */
static int find_limit(void)
{
    char line[512];
    unsigned long low, top = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &low, &top) != 2) top = 0;
    if (f) fclose(f);
    struct rlimit rl;
    if (!top || getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return -1;
    limit_low = top - (uintptr_t)rl.rlim_cur;
    return 0;
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
    } else if (strcmp(mode, "stack64k") == 0) {
        if (run_thread(64 * 1024, NULL) != 0) return 2;
        printf("64 KB stack thread done\n");
    } else if (strcmp(mode, "stackaddr") == 0) {
        char *top = own_stack(64 * 1024);
        if (!top || run_thread(0, top) != 0) return 2;
        printf("stackaddr thread done\n");
    } else if (strcmp(mode, "smalldeep") == 0) {
        char *top = own_stack(16 * 1024);
        struct timespec bind;                /* clock_gettime's lazy binding needs more stack */
        clock_gettime(CLOCK_MONOTONIC, &bind);
        stack_left = 2500;
        if (!top || run_thread(16 * 1024, top) != 0) return 2;
        printf("small deep thread done\n");
    } else if (strcmp(mode, "manykeys") == 0) {
        pthread_key_t key;
        for (int i = 0; i < 40; i++) pthread_key_create(&key, NULL);
        double seconds = 0.8;
        churn(&seconds);
        for (int round = 0; round < 3; round++) {
            pthread_t t[2];
            for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, churn, &seconds);
            for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        }
        printf("churned\n");
    } else if (strcmp(mode, "nearlimit") == 0) {
        const char *probe = getenv("CPU_STACKS_PROBE"), *name = (const char *)getauxval(AT_EXECFN);
        if (probe && strcmp(probe, "1") == 0) {
            printf("%lu\n", (unsigned long)(((uintptr_t)name + strlen(name) + 1 + sizeof(void *)) & 4095));
            return 0;
        }
        if (find_limit() != 0) return 2;
        near_limit(0);
        printf("near the limit done\n");
    } else {
        fprintf(stderr, "usage: cpu_stacks altfree|smallstack|smallalt|stack64k|stackaddr|smalldeep|manykeys|nearlimit\n");
        return 2;
    }
    return 0;
}
