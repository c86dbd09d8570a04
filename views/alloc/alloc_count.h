/* alloc_count.h — how an allocation hook counts a block: its usable size and one call, into the
 * calling thread's own counters (shared by the malloc family and C++ operator new/delete). */
#ifndef HP_ALLOC_COUNT_H
#define HP_ALLOC_COUNT_H

#include <stddef.h>

#include "alloc_sites.h"
#include "core/thread_state.h"
#include "core/hooks.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* With glibc's allocator next (hp_hot.glibc_chunks), a block's usable size is read from its
 * chunk header directly: malloc_usable_size also reads the NEXT chunk's header (its in-use bit),
 * a second cache line that costs a miss per call when blocks are freed in random order. Checked
 * against the real function at start, and off for any other allocator. */

static inline size_t hp_chunk_usable(const void *p)
{
    size_t head = ((const size_t *)p)[-1];
    return (head & ~(size_t)7) - 8 - ((head & 2) << 2);   /* IS_MMAPPED (2): 8 bytes less */
}

static inline size_t hp_usable(void *p)
{
    return likely(hp_hot.glibc_chunks) ? hp_chunk_usable(p) : hp_hot.real.usable_size(p);
}

/* The calling thread's state when its operations count: NULL for profiler work and before start. */
static inline struct hp_thread *hp_counting_thread(void)
{
    struct hp_thread *t = hp_self;
    if (likely(t != NULL)) return t->guard ? NULL : t;
    return hp_adopt_self();
}

/* Count down the thread's bytes to its next allocation sample (views/alloc/alloc_sites.h).
 * Returns p. */
static inline void *hp_sample_countdown(struct hp_thread *t, void *p, size_t n)
{
    return unlikely((t->alloc_sample_left -= (int64_t)n) < 0) ? hp_alloc_sample(t, p, n) : p;
}

/* Before a block is freed (or moved by realloc): forget it if it was sampled. */
static inline void hp_forget_sampled(void *p)
{
    if (unlikely(hp_alloc_maybe_sampled(p))) hp_alloc_unsample(p);
}

static inline void hp_add_alloc(struct hp_thread *t, void *p)
{
    size_t n = hp_usable(p);
    hp_count(&t->alloc_bytes, n);
    hp_count(&t->alloc_count, 1);
    hp_sample_countdown(t, p, n);
}

static inline void hp_add_free(struct hp_thread *t, void *p)
{
    hp_forget_sampled(p);
    hp_count(&t->free_bytes, hp_usable(p));
    hp_count(&t->free_count, 1);
}

/* Slow paths (a thread not yet known) stay out of line: alloc_hooks.c. */
void hp_count_alloc_slow(void *p) __attribute__((cold));
void hp_count_free_slow(void *p) __attribute__((cold));

static inline void hp_count_alloc(void *p)
{
    if (unlikely(p == NULL)) return;
    struct hp_thread *t = hp_self;
    if (likely(t != NULL && t->guard == 0)) hp_add_alloc(t, p);
    else if (t == NULL) hp_count_alloc_slow(p);
}

/* A free that does not count (profiler work) still forgets a sampled block: its address may come
 * back. */
static inline void hp_count_free(void *p)
{
    struct hp_thread *t = hp_self;
    if (likely(t != NULL && t->guard == 0)) hp_add_free(t, p);
    else if (t == NULL) hp_count_free_slow(p);
    else hp_forget_sampled(p);
}

/* Choose how usable sizes are read (once, at start: alloc_hooks.c). */
void hp_alloc_init(void);

#endif
