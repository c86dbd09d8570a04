/* alloc_sites.h — the allocation call-site view (docs/REFERENCE.md "Allocation call sites"): byte-based
 * sampling as production heap profilers do it. Each thread counts down a random (exponential)
 * number of bytes, mean HOTPATH_ALLOC_SAMPLE_BYTES; the allocation that crosses zero is sampled:
 * its stack is taken (libunwind) and it is weighted by the inverse of its chance of being picked,
 * 1 / (1 - exp(-size / mean)), so bytes and calls per call site are unbiased estimates. A sampled
 * block is remembered (stack, allocating thread, weight) until it is freed, which gives live
 * bytes per call site and per allocating thread.
 *
 * The hooks' cost: the malloc side is one subtraction and a branch on a thread-local countdown;
 * the free side tests one bit of a filter (a hash of the address) that is set only for sampled
 * blocks, so a free of a block that was not sampled goes no further. Everything else runs only
 * for sampled blocks, out of line. */
#ifndef HP_ALLOC_SITES_H
#define HP_ALLOC_SITES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stacks.h"
#include "core/thread_state.h"

#define HP_ALLOC_FILTER_BITS 18          /* 2^18 bits: 32 KB */
#define HP_ALLOC_THREADS 8192            /* threads (by index) with figures of their own */

extern _Atomic uint64_t hp_alloc_filter[1u << (HP_ALLOC_FILTER_BITS - 6)];

static inline uint32_t hp_alloc_filter_bit(const void *p)
{
    return (uint32_t)(((uintptr_t)p * 0x9E3779B97F4A7C15ull) >> (64 - HP_ALLOC_FILTER_BITS));
}

/* The block may have been sampled (0: it certainly was not). */
static inline int hp_alloc_maybe_sampled(const void *p)
{
    uint32_t b = hp_alloc_filter_bit(p);
    return (int)((atomic_load_explicit(&hp_alloc_filter[b >> 6], memory_order_relaxed) >> (b & 63)) & 1);
}

/* At start, after the configuration is parsed. */
void hp_alloc_sites_start(void);
/* The thread's countdown crossed zero after block p of `size` usable bytes: sample it (or only
 * draw the next countdown: the first crossing of a thread arms it). Returns p. */
void *hp_alloc_sample(struct hp_thread *t, void *p, size_t size) __attribute__((cold));
/* p, whose filter bit is set, is being freed (before the real free): forget it if sampled. */
void hp_alloc_unsample(void *p) __attribute__((cold));
/* In a fork child: empty figures (the parent's samples are the parent's). */
void hp_alloc_sites_fork_child(void);

/* Estimated figures of one call stack or one thread; calls are in 1/1024ths. */
struct hp_alloc_figures {
    _Atomic uint64_t bytes, calls_fx, live_bytes, live_calls_fx;
};

struct hp_alloc_sites_view {
    int enabled;
    unsigned sample_bytes;           /* the mean interval */
    uint64_t samples;                /* allocations sampled */
    uint64_t untracked;              /* sampled blocks the live table had no room for */
    struct hp_stacks *table;         /* stacks (tag 0); entry e's figures are sites[e] */
    struct hp_alloc_figures *sites;  /* [table->max_entries] and then `<other>` */
    struct hp_alloc_figures *threads;/* [HP_ALLOC_THREADS] by thread index, then every later one */
    uint32_t threads_used;           /* the slots of threads[] written so far (the rest are 0) */
};
void hp_alloc_sites_view(struct hp_alloc_sites_view *v);

/* For other views (the time series): the call-site view runs, and the live bytes of sampled
 * blocks a thread allocated, wherever they were freed (estimate; 0 for an unknown thread). */
int hp_alloc_sites_on(void);
uint64_t hp_alloc_sites_thread_live(uint32_t thread_index);

#endif
