/* loader_malloc.c — an allocator preloaded after libhotpath.so, as jemalloc or tcmalloc would be
 * linked: malloc, calloc, realloc and free over glibc's, counting the calls the loader makes on a
 * thread of the profiler's (named hotpath-*) while it adds an object (_r_debug.r_state RT_ADD).
 * The profiler's own dlopen (mimalloc at the sampler's start) must not reach the program's
 * allocator: an allocator that makes a thread under its own lock would deadlock against it.
 * Prints "loader_malloc: profiler_in_loader N mimalloc M" to stderr at exit (M: 1 when
 * libmimalloc is mapped, so the profiler did dlopen). */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static long profiler_in_loader;

static void note(void)
{
    if (_r_debug.r_state == RT_CONSISTENT) return;
    char name[16] = "";
    prctl(PR_GET_NAME, name);
    if (strncmp(name, "hotpath-", 8) == 0) __atomic_add_fetch(&profiler_in_loader, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n)
{
    note();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    note();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    note();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

static int mapped(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libmimalloc")) *(int *)arg = 1;
    return 0;
}

__attribute__((destructor)) static void counts(void)
{
    int mimalloc = 0;
    dl_iterate_phdr(mapped, &mimalloc);
    fprintf(stderr, "loader_malloc: profiler_in_loader %ld mimalloc %d\n", profiler_in_loader, mimalloc);
}
