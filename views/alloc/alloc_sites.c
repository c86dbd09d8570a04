/* alloc_sites.c — see alloc_sites.h. Sampled blocks live in an open-addressing table keyed by
 * address (claimed by CAS, freed to a tombstone, at most PROBES slots from home) so the free of a
 * sampled block finds its stack, thread and weight. Each filter bit has a count of the live
 * sampled blocks hashed to it; the bit is clear exactly when the count is zero (a count that
 * reaches 255 sticks, leaving the bit set for good). */
#define _GNU_SOURCE
#include "alloc_sites.h"

#include <string.h>

#include "core/config.h"
#include "core/exp_log.h"
#include "core/memory.h"
#include "core/sampler.h"
#include "core/unwind.h"
#include "alloc_settings.h"

#define TOMB ((uintptr_t)1)
#define CLAIMED ((uintptr_t)2)
#define PROBES 32

struct live {
    _Atomic uintptr_t ptr;          /* 0 empty, TOMB freed, CLAIMED being filled, else the block */
    uint32_t site, thread;
    uint64_t bytes, calls_fx;
};

_Atomic uint64_t hp_alloc_filter[1u << (HP_ALLOC_FILTER_BITS - 6)] __attribute__((aligned(4096)));

/* The filter's words a 4 KB page; its pages are at most 32 (alloc.filter_pages_set). */
#define FILTER_PAGE_WORDS (4096 / sizeof(uint64_t))
_Static_assert(sizeof hp_alloc_filter / 4096 <= 32, "filter_pages_set has a bit a filter page");

/* The view's state: the filter's counts, the sampled blocks, the stacks, the figures by site and
 * by thread, and the counters. */
static struct {
    _Atomic unsigned char *filter_counts;
    _Atomic uint32_t filter_pages_set;   /* bit k: the filter's page k has had a bit set */
    struct live *live;
    uint32_t live_mask;
    struct hp_stacks table;
    struct hp_alloc_figures *sites, *threads;
    _Atomic uint32_t threads_used;    /* slots of threads[] ever written: a report reads no further */
    _Atomic int written;              /* a sample was taken (begun): the tables hold something */
    double mean;
    _Atomic int on, started;
    _Atomic uint64_t samples, untracked, seed;
} alloc;

static int make_tables(void)
{
    alloc.mean = hp_alloc_settings.sample_bytes;
    /* room for the sampled blocks of a live heap of 2^16 sampling intervals (32 GiB at the default) */
    alloc.live_mask = hp_alloc_settings.sample_bytes >= 65536 ? (1u << 16) - 1 : (1u << 20) - 1;
    alloc.live = hp_pages(sizeof *alloc.live * (alloc.live_mask + 1));
    alloc.filter_counts = hp_pages(1u << HP_ALLOC_FILTER_BITS);
    if (!alloc.live || !alloc.filter_counts || hp_stacks_init(&alloc.table, 16384, 16) != 0) return -1;
    alloc.sites = hp_pages(sizeof *alloc.sites * (alloc.table.max_entries + 1));
    alloc.threads = hp_pages(sizeof *alloc.threads * (HP_ALLOC_THREADS + 1));
    return alloc.sites && alloc.threads ? 0 : -1;
}

void hp_alloc_sites_start(void)
{
    if (hp_alloc_settings.sample_bytes && make_tables() == 0) atomic_store(&alloc.on, 1);
    atomic_store(&alloc.started, 1);
}

/* A uniform draw in (0, 1] (splitmix64 over a shared counter: this runs once per sample). */
static double uniform(void)
{
    uint64_t z = atomic_fetch_add_explicit(&alloc.seed, 0x9E3779B97F4A7C15ull, memory_order_relaxed);
    z += (uintptr_t)&z;   /* differs per thread (its stack) and per process image (ASLR) */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)((z >> 11) + 1) * 0x1.0p-53;
}

static int64_t next_interval(void)
{
    double d = -alloc.mean * hp_log(uniform());
    return d > 1e15 ? (int64_t)1e15 : (int64_t)d;
}

static void add(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static void sub(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_sub_explicit(c, n, memory_order_relaxed);
}

static struct hp_alloc_figures *thread_figures(uint32_t index)
{
    uint32_t slot = index < HP_ALLOC_THREADS ? index : HP_ALLOC_THREADS;
    uint32_t used = atomic_load_explicit(&alloc.threads_used, memory_order_relaxed);
    while (used <= slot && !atomic_compare_exchange_weak(&alloc.threads_used, &used, slot + 1)) {
    }
    return &alloc.threads[slot];
}

static void filter_set(uint32_t b)
{
    unsigned char c = atomic_load_explicit(&alloc.filter_counts[b], memory_order_relaxed);
    while (c != 255 && !atomic_compare_exchange_weak(&alloc.filter_counts[b], &c, (unsigned char)(c + 1))) { }
    atomic_fetch_or(&alloc.filter_pages_set, 1u << ((b >> 6) / FILTER_PAGE_WORDS));
    atomic_fetch_or(&hp_alloc_filter[b >> 6], 1ull << (b & 63));
}

static void filter_clear(uint32_t b)
{
    unsigned char c = atomic_load_explicit(&alloc.filter_counts[b], memory_order_relaxed);
    while (c != 255 && c != 0 &&
           !atomic_compare_exchange_weak(&alloc.filter_counts[b], &c, (unsigned char)(c - 1))) { }
    if (c != 1) return;
    atomic_fetch_and(&hp_alloc_filter[b >> 6], ~(1ull << (b & 63)));
    /* a block sampled meanwhile may have counted up before our clear: put its bit back */
    if (atomic_load(&alloc.filter_counts[b])) atomic_fetch_or(&hp_alloc_filter[b >> 6], 1ull << (b & 63));
}

static uint32_t home(const void *p)
{
    return (uint32_t)(((uintptr_t)p * 0xD6E8FEB86659FD93ull) >> 32) & alloc.live_mask;
}

static int remember(void *p, uint32_t site, uint32_t thread, uint64_t bytes, uint64_t calls_fx)
{
    for (uint32_t k = 0, i = home(p); k < PROBES; k++, i = (i + 1) & alloc.live_mask) {
        uintptr_t v = atomic_load_explicit(&alloc.live[i].ptr, memory_order_relaxed);
        if (v > TOMB || !atomic_compare_exchange_strong(&alloc.live[i].ptr, &v, CLAIMED)) continue;
        alloc.live[i].site = site;
        alloc.live[i].thread = thread;
        alloc.live[i].bytes = bytes;
        alloc.live[i].calls_fx = calls_fx;
        atomic_store_explicit(&alloc.live[i].ptr, (uintptr_t)p, memory_order_release);
        filter_set(hp_alloc_filter_bit(p));
        return 0;
    }
    return -1;
}

static void *sample(struct hp_thread *t, void *p, size_t size)
{
    if (!atomic_load_explicit(&alloc.on, memory_order_relaxed)) {
        /* off for good, or not yet started (the constructor's own allocations) */
        if (atomic_load_explicit(&alloc.started, memory_order_relaxed)) t->alloc_sample_left = INT64_MAX;
        return p;
    }
    if (!t->alloc_sample_armed) {   /* the thread's first countdown, drawn now */
        t->alloc_sample_armed = 1;
        t->alloc_sample_left += next_interval();
        if (t->alloc_sample_left >= 0) return p;
    }
    t->alloc_sample_left = next_interval();
    if (!atomic_load_explicit(&alloc.written, memory_order_relaxed)) atomic_store(&alloc.written, 1);
    /* picked with probability 1 - exp(-size/mean): weighted by its inverse */
    double w = 1.0 / -hp_expm1(-(double)size / alloc.mean);
    uint64_t bytes = (uint64_t)((double)size * w + 0.5), calls_fx = (uint64_t)(1024.0 * w + 0.5);
    void *frames[HP_STACK_MAX_DEPTH];
    unsigned n = hp_unwind_program(frames, hp_config.stack_depth, t);
    uint32_t site = hp_stacks_entry(&alloc.table, 0, (const uintptr_t *)frames, n);
    struct hp_alloc_figures *s = &alloc.sites[site == HP_STACK_OTHER ? alloc.table.max_entries : site];
    struct hp_alloc_figures *th = thread_figures(t->index);
    add(&alloc.samples, 1);
    if (site != HP_STACK_OTHER) add(&alloc.table.entries[site].count, 1);
    else add(&alloc.table.other, 1);
    add(&s->bytes, bytes);
    add(&s->calls_fx, calls_fx);
    add(&th->bytes, bytes);
    add(&th->calls_fx, calls_fx);
    if (remember(p, site == HP_STACK_OTHER ? alloc.table.max_entries : site, t->index, bytes, calls_fx) != 0) {
        add(&alloc.untracked, 1);
        return p;
    }
    add(&s->live_bytes, bytes);
    add(&s->live_calls_fx, calls_fx);
    add(&th->live_bytes, bytes);
    add(&th->live_calls_fx, calls_fx);
    return p;
}

static void unsample(void *p)
{
    if (!alloc.live) return;
    for (uint32_t k = 0, i = home(p); k < PROBES; k++, i = (i + 1) & alloc.live_mask) {
        uintptr_t v = atomic_load_explicit(&alloc.live[i].ptr, memory_order_acquire);
        if (v == 0) return;
        if (v != (uintptr_t)p) continue;
        /* only the block's owner frees it: the fields stay put until the tombstone is set */
        struct live l = { .site = alloc.live[i].site, .thread = alloc.live[i].thread,
                          .bytes = alloc.live[i].bytes, .calls_fx = alloc.live[i].calls_fx };
        if (!atomic_compare_exchange_strong(&alloc.live[i].ptr, &v, TOMB)) return;
        struct hp_alloc_figures *s = &alloc.sites[l.site], *th = thread_figures(l.thread);
        sub(&s->live_bytes, l.bytes);
        sub(&s->live_calls_fx, l.calls_fx);
        sub(&th->live_bytes, l.bytes);
        sub(&th->live_calls_fx, l.calls_fx);
        filter_clear(hp_alloc_filter_bit(p));
        return;
    }
}

/* Sampling and forgetting a block are the profiler's work: under the thread's guard, a CPU sample
 * taken meanwhile is the profiler's, not the program's time in these functions (and libm's).
 * A sample is also where a program that allocates is seen to outlive a few milliseconds: a
 * deferred sampler starts here (core/sampler.h), outside the allocator's locks. */
void *hp_alloc_sample(struct hp_thread *t, void *p, size_t size)
{
    t->guard++;
    p = sample(t, p, size);
    if (hp_sampler_launch_due()) hp_sampler_launch();
    t->guard--;
    return p;
}

void hp_alloc_unsample(void *p)
{
    struct hp_thread *t = hp_guard_raise();
    unsample(p);
    hp_guard_lower(t);
}

void hp_alloc_sites_fork_child(void)
{
    if (!atomic_load(&alloc.on)) return;
    /* the filter is static memory shared with the parent until written: only words with bits
     * set are, so pages without a sampled block stay shared; and only the pages that ever had
     * one are read, so the others cost the child no page fault */
    uint32_t pages = atomic_exchange(&alloc.filter_pages_set, 0);
    for (size_t i = 0; i < sizeof hp_alloc_filter / sizeof *hp_alloc_filter; i++)
        if ((pages >> (i / FILTER_PAGE_WORDS) & 1) && atomic_load_explicit(&hp_alloc_filter[i], memory_order_relaxed))
            atomic_store_explicit(&hp_alloc_filter[i], 0, memory_order_relaxed);
    /* the tables are whole page blocks: given back rather than written, so each child of a
     * forking server does not make them resident; untouched while the parent took no sample */
    if (atomic_exchange(&alloc.written, 0)) {
        hp_pages_zero((void *)alloc.filter_counts, 1u << HP_ALLOC_FILTER_BITS);
        hp_pages_zero(alloc.live, sizeof *alloc.live * (alloc.live_mask + 1));
        hp_pages_zero(alloc.sites, sizeof *alloc.sites * (alloc.table.max_entries + 1));
        hp_pages_zero(alloc.threads, sizeof *alloc.threads * (HP_ALLOC_THREADS + 1));
    }
    atomic_store(&alloc.threads_used, 0);
    hp_stacks_reset(&alloc.table);
    atomic_store(&alloc.samples, 0);
    atomic_store(&alloc.untracked, 0);
}

void hp_alloc_sites_view(struct hp_alloc_sites_view *v)
{
    memset(v, 0, sizeof *v);
    v->enabled = atomic_load(&alloc.on);
    v->sample_bytes = hp_alloc_settings.sample_bytes;
    if (!v->enabled) return;
    v->samples = atomic_load(&alloc.samples);
    v->untracked = atomic_load(&alloc.untracked);
    v->table = &alloc.table;
    v->sites = alloc.sites;
    v->threads = alloc.threads;
    v->threads_used = atomic_load(&alloc.threads_used);
}

int hp_alloc_sites_on(void)
{
    return atomic_load_explicit(&alloc.on, memory_order_relaxed);
}

uint64_t hp_alloc_sites_thread_live(uint32_t thread_index)
{
    if (!hp_alloc_sites_on() || thread_index >= HP_ALLOC_THREADS) return 0;
    return atomic_load_explicit(&alloc.threads[thread_index].live_bytes, memory_order_relaxed);
}
