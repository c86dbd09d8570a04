/* alloc_edge.c — the allocation calls' edge cases must behave exactly as without the profiler:
 * realloc of NULL and to 0, failing huge requests (NULL with errno ENOMEM), calloc and
 * reallocarray overflow, alignment rules. Prints one line per check; exits 1 if one fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
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

int main(void)
{
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
    return failures ? 1 : 0;
}
