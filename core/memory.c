/* memory.c — see memory.h: the accounting of the profiler's own memory, over the heap the platform
 * file chose (memory_heap.h). */
#include "memory.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "memory_heap.h"

/* Page-backed tables are sized for the worst case and touched as they fill: what they cost is
 * their resident part, read when asked (mincore, a few microseconds a megabyte even where nothing
 * is mapped), or, for a table filled from its start, its filled pages. Regions past the list
 * count whole. */
#define MAX_REGIONS 512
#define PAGE 4096

struct span { uintptr_t at; size_t n; };

/* The accounting: the heap's bytes in use, and the page-backed regions (listed, or past the
 * list counted whole). */
static struct {
    struct {
        void *_Atomic p;
        size_t n;
        const _Atomic uint64_t *filled;   /* a table filled from its start: its count of units */
        size_t unit;
    } regions[MAX_REGIONS];
    _Atomic uint64_t heap_bytes;
    _Atomic uint64_t unlisted_page_bytes;
    _Atomic unsigned nregions;
} memory;

static size_t usable(void *p)
{
    return p ? hp_heap.usable(p) : 0;
}

void *hp_alloc(size_t n)
{
    void *p = hp_heap.calloc(1, n);
    atomic_fetch_add_explicit(&memory.heap_bytes, usable(p), memory_order_relaxed);
    return p;
}

void *hp_realloc(void *p, size_t n)
{
    size_t before = usable(p);
    void *q = hp_heap.realloc(p, n);
    if (!q) return NULL;
    atomic_fetch_add_explicit(&memory.heap_bytes, usable(q) - before, memory_order_relaxed);
    return q;
}

void hp_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub_explicit(&memory.heap_bytes, usable(p), memory_order_relaxed);
    hp_heap.free(p);
}

char *hp_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = hp_alloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void *hp_pages_filled(size_t n, const _Atomic uint64_t *filled, size_t unit)
{
    void *p = hp_heap_map_pages(n);
    if (!p) return NULL;
    unsigned i = atomic_fetch_add(&memory.nregions, 1);
    if (i < MAX_REGIONS) {
        memory.regions[i].n = n;
        memory.regions[i].filled = filled;
        memory.regions[i].unit = unit;
        atomic_store_explicit(&memory.regions[i].p, p, memory_order_release);
    } else {
        atomic_fetch_add_explicit(&memory.unlisted_page_bytes, n, memory_order_relaxed);
    }
    return p;
}

void *hp_pages(size_t n)
{
    return hp_pages_filled(n, NULL, 0);
}

void hp_pages_zero(void *p, size_t n)
{
    hp_heap_zero_pages(p, n);
}

static size_t pages_of(size_t n)
{
    return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

/* The filled pages of the regions filled from their start. */
static uint64_t filled_bytes(void)
{
    unsigned n = atomic_load(&memory.nregions);
    uint64_t total = 0;
    for (unsigned i = 0; i < n && i < MAX_REGIONS; i++) {
        if (!atomic_load_explicit(&memory.regions[i].p, memory_order_acquire) || !memory.regions[i].filled) continue;
        /* a claim past the end counts too: clamped to the region */
        uint64_t units = atomic_load_explicit(memory.regions[i].filled, memory_order_relaxed);
        size_t cap = memory.regions[i].n / memory.regions[i].unit;
        total += pages_of(units < cap ? units * memory.regions[i].unit : memory.regions[i].n);
    }
    return total;
}

/* The other listed regions in address order, each run of adjacent ones (mmap places them side by
 * side, top down) as one span: a mincore call a span, not one a region. */
static unsigned listed_spans(struct span *out)
{
    unsigned n = atomic_load(&memory.nregions), k = 0;
    for (unsigned i = 0; i < n && i < MAX_REGIONS; i++) {
        void *p = atomic_load_explicit(&memory.regions[i].p, memory_order_acquire);
        if (!p || memory.regions[i].filled) continue;
        struct span r = { (uintptr_t)p, pages_of(memory.regions[i].n) };
        unsigned j = k++;
        for (; j > 0 && out[j - 1].at > r.at; j--) out[j] = out[j - 1];
        out[j] = r;
    }
    unsigned m = 0;
    for (unsigned i = 0; i < k; i++) {
        if (m > 0 && out[m - 1].at + out[m - 1].n == out[i].at) out[m - 1].n += out[i].n;
        else out[m++] = out[i];
    }
    return m;
}

uint64_t hp_memory_in_use(void)
{
    uint64_t total = atomic_load(&memory.heap_bytes) + atomic_load(&memory.unlisted_page_bytes) + hp_heap_early_bytes() +
                     filled_bytes();
    struct span spans[MAX_REGIONS];
    unsigned n = listed_spans(spans);
    for (unsigned i = 0; i < n; i++) total += hp_heap_resident((void *)spans[i].at, spans[i].n);
    return total;
}
