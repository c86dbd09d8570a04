/* alloc_sites.c — allocations with known call sites, for the allocation call-site view.
 *
 *   alloc_sites shares N     alloc_big and alloc_small malloc+free N blocks each: 36,000 and
 *                            4,000 bytes asked (36,008 and 4,008 usable), 90% and 10% of bytes
 *   alloc_sites leaky        leaky keeps 64 blocks of 64 KiB (4 MiB) live; churn allocates and
 *                            frees 64 MiB besides
 *   alloc_sites exact        (for HOTPATH_ALLOC_SAMPLE_BYTES=1) keep_list keeps 1,000 blocks of 100
 *                            bytes; churn makes and frees 5,000 of 50; grow reallocs one block from
 *                            16 bytes up to 64 KiB and keeps it; thread `producer` makes 2,000
 *                            blocks of 200 bytes that thread `consumer` frees; thread `leaker`
 *                            keeps 300 blocks of 1,000 bytes
 *   alloc_sites fork         keep_list keeps 1,000 blocks of 100 bytes, then the process forks:
 *                            the child frees them, leak_one keeps 300 blocks of 1,000 bytes
 *   alloc_sites forks        a child as in fork at once, and three more 600 ms later (the parent
 *                            past its first interval); each also copies a string 100 times
 *                            (copy_name, through libc's strdup) and sorts for 60 ms of CPU
 *                            (sort_for_a_while, through libc's qsort)
 *
 * Every function that allocates is noinline and named in the report. Prints "done". */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

static void *kept[4096];
static unsigned nkept;

static __attribute__((noinline)) void alloc_big(void)
{
    void *p = malloc(36000);
    KEEP(p);
    free(p);
}

static __attribute__((noinline)) void alloc_small(void)
{
    void *p = malloc(4000);
    KEEP(p);
    free(p);
}

static __attribute__((noinline)) void leaky(void)
{
    kept[nkept++] = malloc(64 * 1024);
}

static __attribute__((noinline)) void churn(size_t size)
{
    void *p = malloc(size);
    KEEP(p);
    free(p);
}

static __attribute__((noinline)) void keep_list(void)
{
    kept[nkept++] = malloc(100);
}

static __attribute__((noinline)) void *grow(void)
{
    void *p = NULL;
    for (size_t n = 16; n <= 65536; n *= 2) {
        void *q = realloc(p, n);
        if (!q) abort();
        p = q;
    }
    return p;
}

/* ---- the producer hands its blocks to the consumer, which frees them ---- */

#define HANDED 2000
static void *handed[HANDED];
static pthread_mutex_t handed_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handed_cond = PTHREAD_COND_INITIALIZER;
static unsigned produced;

static __attribute__((noinline)) void *produce_one(void)
{
    return malloc(200);
}

static void *producer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "producer");
    for (unsigned i = 0; i < HANDED; i++) {
        void *p = produce_one();
        pthread_mutex_lock(&handed_lock);
        handed[produced++] = p;
        pthread_cond_signal(&handed_cond);
        pthread_mutex_unlock(&handed_lock);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "consumer");
    for (unsigned i = 0; i < HANDED; i++) {
        pthread_mutex_lock(&handed_lock);
        while (produced <= i) pthread_cond_wait(&handed_cond, &handed_lock);
        void *p = handed[i];
        pthread_mutex_unlock(&handed_lock);
        free(p);
    }
    return NULL;
}

static __attribute__((noinline)) void *leak_one(void)
{
    return malloc(1000);
}

static __attribute__((noinline)) void *copy_name(void)
{
    return strdup("a name that is copied");
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static __attribute__((noinline)) void sort_for_a_while(void)
{
    static int v[4096];
    struct timespec t;
    do {
        for (int i = 0; i < 4096; i++) v[i] = (i * 7919) % 4099;
        qsort(v, 4096, sizeof *v, by_value);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while (t.tv_sec == 0 && t.tv_nsec < 60000000);
}

/* A child of `fork`: frees what the parent kept, keeps its own, and ends. */
static void forked_child(int copies)
{
    for (unsigned i = 0; i < nkept; i++) free(kept[i]);
    for (int i = 0; i < 300; i++) kept[i] = leak_one();
    for (int i = 0; i < copies; i++) KEEP(copy_name());
    if (copies) sort_for_a_while();
    exit(0);
}

static void fork_and_wait(int copies)
{
    pid_t child = fork();
    if (child < 0) abort();
    if (child == 0) forked_child(copies);
    int status;
    if (waitpid(child, &status, 0) != child || status != 0) abort();
}

static void *leaker(void *arg)
{
    void **out = arg;
    pthread_setname_np(pthread_self(), "leaker");
    for (unsigned i = 0; i < 300; i++) out[i] = leak_one();
    return NULL;
}

static void run_threads(void)
{
    static void *leaked[300];
    pthread_t p, c, l;
    if (pthread_create(&p, NULL, producer, NULL) || pthread_create(&c, NULL, consumer, NULL) ||
        pthread_create(&l, NULL, leaker, leaked))
        abort();
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    pthread_join(l, NULL);
    KEEP(leaked);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "shares") == 0 && argc > 2) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++) {
            alloc_big();
            alloc_small();
        }
    } else if (strcmp(mode, "leaky") == 0) {
        for (int i = 0; i < 64; i++) {
            leaky();
            for (int k = 0; k < 16; k++) churn(64 * 1024);
        }
    } else if (strcmp(mode, "exact") == 0) {
        for (int i = 0; i < 1000; i++) keep_list();
        for (int i = 0; i < 5000; i++) churn(50);
        KEEP(grow());
        run_threads();
    } else if (strcmp(mode, "fork") == 0) {
        for (int i = 0; i < 1000; i++) keep_list();
        fork_and_wait(0);
    } else if (strcmp(mode, "forks") == 0) {
        for (int i = 0; i < 1000; i++) keep_list();
        fork_and_wait(100);
        usleep(600000);
        for (int i = 0; i < 3; i++) fork_and_wait(100);
    } else {
        fprintf(stderr, "usage: alloc_sites shares N | leaky | exact | fork | forks\n");
        return 2;
    }
    puts("done");
    return 0;
}
