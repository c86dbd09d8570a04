/* alloc_edge.c — the allocation calls' edge cases must behave exactly as without the profiler:
 * realloc of NULL and to 0, failing huge requests (NULL with errno ENOMEM), calloc and
 * reallocarray overflow, alignment rules, content kept through realloc at every size, usable
 * sizes that can be written whole, calloc over dirty memory, a free on another thread. Run with
 * every allocation sampled too. Prints one line per check; exits 1 if one fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(const char *what, int ok)
{
    printf("%s %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

/* volatile: sizes the compiler cannot see, so it neither warns nor folds the calls away */
static volatile size_t huge_n = SIZE_MAX / 2, count_n = SIZE_MAX / 8, elem_n = 16;

/* realloc through small, heap-sized and mmapped sizes, each step keeping the content */
static int realloc_chain(void)
{
    static const size_t steps[] = { 24, 200, 40, 5000, 150000, 1 << 20, 300, 16 };
    unsigned char *p = NULL;
    size_t have = 0;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        unsigned char *q = realloc(p, steps[i]);
        if (!q) return 0;
        for (size_t k = 0; k < have && k < steps[i]; k++)
            if (q[k] != (unsigned char)(k * 7 + 1)) return 0;
        for (size_t k = 0; k < steps[i]; k++) q[k] = (unsigned char)(k * 7 + 1);
        p = q;
        have = steps[i];
    }
    free(p);
    return 1;
}

/* every byte malloc_usable_size promises can be written, at many sizes */
static int usable_sizes_hold(void)
{
    void *blocks[64];
    for (size_t i = 0; i < 64; i++) {
        size_t n = 1 + i * 37;
        blocks[i] = malloc(n);
        if (!blocks[i] || malloc_usable_size(blocks[i]) < n) return 0;
        memset(blocks[i], (int)i, malloc_usable_size(blocks[i]));
    }
    for (size_t i = 0; i < 64; i++) {
        unsigned char *b = blocks[i];
        for (size_t k = 0; k < 1 + i * 37; k++)
            if (b[k] != (unsigned char)i) return 0;
        free(b);
    }
    return 1;
}

/* calloc must zero a block even where freed, dirty memory is reused */
static int calloc_over_dirty_memory(void)
{
    for (size_t n = 16; n <= 4096; n *= 2) {
        void *dirty = malloc(n);
        if (!dirty) return 0;
        memset(dirty, 0xAB, n);
        free(dirty);
        unsigned char *z = calloc(1, n);
        if (!z) return 0;
        for (size_t k = 0; k < n; k++)
            if (z[k]) return 0;
        free(z);
    }
    return 1;
}

static int aligned_many(void)
{
    for (size_t align = 16; align <= 4096; align *= 2)
        for (size_t n = 1; n < 600; n += 97) {
            void *a = NULL;
            if (posix_memalign(&a, align, n) != 0 || ((uintptr_t)a & (align - 1))) return 0;
            memset(a, 1, n);
            free(a);
        }
    return 1;
}

static void *free_it(void *p)
{
    free(p);
    return NULL;
}

int main(void)
{
    /* glibc's dynamic mmap threshold as the program left it: a first 500 KB block is mmapped
     * (the profiler's start-up probes of 200 KB and 1 MB blocks had raised it to 1 MB) */
    struct mallinfo2 before = mallinfo2();
    void *big = malloc(500000);
    struct mallinfo2 after = mallinfo2();
    check("a first 500 KB block is mmapped", after.hblks == before.hblks + 1);
    free(big);
    errno = 0;
    char *p = realloc(NULL, 100);
    check("realloc(NULL, n) allocates", p != NULL && errno == 0);
    memset(p, 7, 100);
    p = realloc(p, 100000);
    check("realloc grows and keeps content", p && p[99] == 7);
    p = realloc(p, 0);
    check("realloc(p, 0) returns NULL (glibc frees p)", p == NULL);

    errno = 0;
    void *huge = malloc(huge_n);
    check("huge malloc fails with ENOMEM", huge == NULL && errno == ENOMEM);
    errno = 0;
    huge = calloc(count_n, elem_n);
    check("calloc overflow fails with ENOMEM", huge == NULL && errno == ENOMEM);
    char *keep = malloc(10);
    keep[0] = 42;
    errno = 0;
    char *r = realloc(keep, huge_n);
    check("failed realloc keeps the block, ENOMEM", r == NULL && errno == ENOMEM);
    if (r) keep = r;
    errno = 0;
    r = reallocarray(keep, count_n, elem_n);
    check("reallocarray overflow fails with ENOMEM", r == NULL && errno == ENOMEM);
    if (r) keep = r;
    check("the block survived both failures", keep[0] == 42);
    free(keep);

    void *a = NULL;
    check("posix_memalign bad alignment is EINVAL", posix_memalign(&a, 3, 64) == EINVAL && a == NULL);
    check("posix_memalign 4096", posix_memalign(&a, 4096, 64) == 0 && ((uintptr_t)a & 4095) == 0);
    free(a);
    a = aligned_alloc(64, 128);
    check("aligned_alloc 64", a && ((uintptr_t)a & 63) == 0);
    free(a);
    a = memalign(256, 10);
    check("memalign 256", a && ((uintptr_t)a & 255) == 0);
    free(a);
    a = valloc(10);
    check("valloc page aligned", a && ((uintptr_t)a & 4095) == 0);
    free(a);
    a = pvalloc(10);
    check("pvalloc page aligned, page sized", a && ((uintptr_t)a & 4095) == 0 && malloc_usable_size(a) >= 4096);
    free(a);
    errno = 0;
    a = calloc(100, 10);
    int zero = 1;
    for (int i = 0; a && i < 1000; i++) zero &= ((char *)a)[i] == 0;
    check("calloc zeroes", a && zero && errno == 0);
    free(a);
    errno = 1234;
    free(NULL);
    a = malloc(16);
    free(a);
    check("free keeps errno", errno == 1234);

    check("realloc keeps content through every size", realloc_chain());
    check("usable sizes can be written whole", usable_sizes_hold());
    check("calloc zeroes reused dirty memory", calloc_over_dirty_memory());
    check("posix_memalign 16..4096 for many sizes", aligned_many());
    char *other = malloc(48);
    strcpy(other, "freed by another thread");
    pthread_t t;
    check("a block freed on another thread", other && pthread_create(&t, NULL, free_it, other) == 0 &&
                                              pthread_join(t, NULL) == 0);
    return failures ? 1 : 0;
}
