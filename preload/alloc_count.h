/* alloc_count.h — how an allocation hook counts a block: its usable size and one call, into the
 * calling thread's own counters (shared by the malloc family and C++ operator new/delete). */
#ifndef HP_ALLOC_COUNT_H
#define HP_ALLOC_COUNT_H

#include <stddef.h>

#include "../collectors/alloc_sites.h"
#include "../collectors/thread_state.h"
#include "alloc_moved.h"
#include "real.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* With glibc's allocator next (hp_hot.glibc_chunks), a block's usable size is read from its
 * chunk header directly: malloc_usable_size also reads the NEXT chunk's header (its in-use bit),
 * a second cache line that costs a miss per call when blocks are freed in random order. Checked
 * against the real function at start, and off for any other allocator. Sampled blocks are then
 * moved (alloc_moved.h). */

static inline size_t hp_chunk_usable(const void *p)
{
    size_t head = hp_chunk_head(p);
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

/* Count down the thread's bytes to its next allocation sample (collectors/alloc_sites.h); returns
 * where the block is now. `movable`: a block of the malloc family, which its hooks will free. */
static inline void *hp_sample_countdown(struct hp_thread *t, void *p, size_t n, int movable)
{
    if (likely((t->alloc_sample_left -= (int64_t)n) >= 0)) return p;
    return hp_alloc_sample(t, p, n, movable && hp_hot.glibc_chunks ? hp_move_chunk : NULL);
}

/* Before a block is freed (or moved by realloc): forget it if it was sampled. A block of the
 * malloc family (`movable`) over glibc's allocator can have been sampled only where its header
 * says so; any other block, where the filter says so. */
static inline void hp_forget_sampled_as(void *p, int movable)
{
    int maybe = movable && likely(hp_hot.glibc_chunks) ? (hp_chunk_head(p) & HP_CHUNK_LOOK) != 0
                                                   : hp_alloc_maybe_sampled(p);
    if (unlikely(maybe)) hp_alloc_unsample(p);
}

static inline void hp_forget_sampled(void *p)
{
    hp_forget_sampled_as(p, 1);
}

static inline void *hp_add_alloc(struct hp_thread *t, void *p, int movable)
{
    size_t n = hp_usable(p);
    hp_count(&t->alloc_bytes, n);
    hp_count(&t->alloc_count, 1);
    return hp_sample_countdown(t, p, n, movable);
}

static inline void hp_add_free(struct hp_thread *t, void *p, int movable)
{
    hp_forget_sampled_as(p, movable);
    hp_count(&t->free_bytes, hp_usable(p));
    hp_count(&t->free_count, 1);
}

/* Slow paths (a thread not yet known) stay out of line: alloc.c. */
void *hp_count_alloc_slow(void *p, int movable) __attribute__((cold));
void hp_count_free_slow(void *p, int movable) __attribute__((cold));

/* Counts a new block p (or NULL) for the calling thread; returns where the block is now. */
static inline void *hp_count_alloc_as(void *p, int movable)
{
    if (unlikely(p == NULL)) return p;
    struct hp_thread *t = hp_self;
    if (likely(t != NULL && t->guard == 0)) return hp_add_alloc(t, p, movable);
    if (t == NULL) return hp_count_alloc_slow(p, movable);
    return p;
}

/* A block of the malloc family: its free comes through our hooks, so a sample may move it. */
static inline void *hp_count_alloc(void *p)
{
    return hp_count_alloc_as(p, 1);
}

/* Counts the free of block p for the calling thread; `movable` as for hp_count_alloc_as. */
static inline void hp_count_free_as(void *p, int movable)
{
    struct hp_thread *t = hp_self;
    if (likely(t != NULL && t->guard == 0)) hp_add_free(t, p, movable);
    else if (t == NULL) hp_count_free_slow(p, movable);
}

/* The free of a block whose allocation was counted with movable = 0 (C++ operators of their own). */
static inline void hp_count_free_unmoved(void *p)
{
    hp_count_free_as(p, 0);
}

#endif
