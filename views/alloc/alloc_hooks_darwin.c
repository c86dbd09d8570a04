/* alloc_hooks_darwin.c — the malloc family on macOS. Each hook calls the real allocator, then adds the
 * block's size (malloc_size, the zone's usable size) to the calling thread's counters: plain
 * stores behind the thread key, no lock, no syscall; and counts down to the thread's next
 * allocation sample (views/alloc/alloc_sites.h), as on Linux. C++ operator new and delete reach
 * these hooks through libc++'s calls to malloc and free. Direct malloc_zone_* calls are not
 * counted. */
#include <malloc/malloc.h>
#include <stdlib.h>

#include "alloc_sites.h"
#include "process/darwin.h"

static inline void count_alloc(struct hp_thread *t, void *p)
{
    size_t size = malloc_size(p);
    hp_count(&t->alloc_bytes, size);
    hp_count(&t->alloc_count, 1);
    if (__builtin_expect((t->alloc_sample_left -= (int64_t)size) < 0, 0)) hp_alloc_sample(t, p, size);
}

static inline void count_free(struct hp_thread *t, size_t size)
{
    hp_count(&t->free_bytes, size);
    hp_count(&t->free_count, 1);
}

/* A new block p (or NULL) from the real allocator, counted for the calling thread. */
static inline void *counted(void *p)
{
    struct hp_thread *t;
    if (p && (t = hp_counting_thread())) count_alloc(t, p);
    return p;
}

/* Before a block is freed or moved: forget it if it was sampled (its address may be reused). */
static inline void forget(void *p)
{
    if (__builtin_expect(hp_alloc_maybe_sampled(p), 0)) hp_alloc_unsample(p);
}

static void *hook_malloc(size_t n)
{
    return counted(malloc(n));
}
HP_INTERPOSE(hook_malloc, malloc);

static void hook_free(void *p)
{
    struct hp_thread *t;
    if (p) {
        forget(p);
        if ((t = hp_counting_thread())) count_free(t, malloc_size(p));
    }
    free(p);
}
HP_INTERPOSE(hook_free, free);

static void *hook_calloc(size_t n, size_t size)
{
    return counted(calloc(n, size));
}
HP_INTERPOSE(hook_calloc, calloc);

/* A block about to be resized: its size, and it is forgotten if sampled (should the resize
 * fail, the block lives on unsampled). */
static size_t leaving(void *p)
{
    if (!p) return 0;
    size_t size = malloc_size(p);
    forget(p);
    return size;
}

/* The resize of p (old bytes) gave q: a free of p when it is gone, an allocation of q. */
static void *resized(void *p, size_t old, void *q, int p_gone)
{
    struct hp_thread *t;
    if (((p && p_gone) || q) && (t = hp_counting_thread())) {
        if (p && p_gone) count_free(t, old);
        if (q) count_alloc(t, q);
    }
    return q;
}

static void *hook_realloc(void *p, size_t n)
{
    size_t old = leaving(p);
    void *q = realloc(p, n);
    /* p is gone when realloc moved it, and also when realloc(p, 0) freed it and returned NULL */
    return resized(p, old, q, q || n == 0);
}
HP_INTERPOSE(hook_realloc, realloc);

static void *hook_reallocf(void *p, size_t n)
{
    size_t old = leaving(p);
    return resized(p, old, reallocf(p, n), 1);   /* reallocf frees p when it fails */
}
HP_INTERPOSE(hook_reallocf, reallocf);

static void *hook_valloc(size_t n)
{
    return counted(valloc(n));
}
HP_INTERPOSE(hook_valloc, valloc);

static void *hook_aligned_alloc(size_t align, size_t n)
{
    return counted(aligned_alloc(align, n));
}
HP_INTERPOSE(hook_aligned_alloc, aligned_alloc);

static int hook_posix_memalign(void **out, size_t align, size_t n)
{
    int r = posix_memalign(out, align, n);
    if (r == 0) counted(*out);
    return r;
}
HP_INTERPOSE(hook_posix_memalign, posix_memalign);
