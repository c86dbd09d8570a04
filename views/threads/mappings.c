/* mappings.c — see mappings.h. A sorted array of disjoint [start, end) regions in pages of its own
 * (raw mmap syscalls, so it never re-enters the hooks), under a short spinlock: mmap is a system
 * call, far from the malloc path. A region that cannot be remembered is still counted as mapped. */
#define _GNU_SOURCE
#include "mappings.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(__APPLE__)
#include <sys/syscall.h>
#endif

#include "core/spinlock.h"

struct region { uintptr_t start, end; };

/* The mappings: the sorted regions in their pages, how many are used and fit, and the bytes they
 * cover, all under the lock. */
static struct {
    hp_spinlock lock;
    struct region *regions;
    size_t nregions, cap;
    uint64_t live;
} mappings = { .lock = HP_SPINLOCK_INIT };

static int grow(void)
{
    size_t ncap = mappings.cap ? mappings.cap * 2 : 4096 / sizeof *mappings.regions;
#if defined(__APPLE__)
    /* no mremap; and a call from the interposing image itself is never interposed */
    void *p = mmap(NULL, ncap * sizeof *mappings.regions, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (p == MAP_FAILED) return -1;
    if (mappings.regions) {
        memcpy(p, mappings.regions, mappings.cap * sizeof *mappings.regions);
        munmap(mappings.regions, mappings.cap * sizeof *mappings.regions);
    }
    long r = (long)p;
#else
    size_t size = mappings.cap * sizeof *mappings.regions, nsize = ncap * sizeof *mappings.regions;
    long r = mappings.regions ? syscall(SYS_mremap, mappings.regions, size, nsize, MREMAP_MAYMOVE)
                              : syscall(SYS_mmap, NULL, nsize, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == -1) return -1;
#endif
    mappings.regions = (struct region *)r;
    mappings.cap = ncap;
    return 0;
}

/* First region whose end is above addr. */
static size_t first_after(uintptr_t addr)
{
    size_t lo = 0, hi = mappings.nregions;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mappings.regions[mid].end <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static uint64_t page_round(uint64_t len)
{
#if defined(__APPLE__) && defined(__aarch64__)
    uint64_t page = 16384;                /* Apple silicon */
#else
    uint64_t page = 4096;
#endif
    return (len + page - 1) & ~(page - 1);
}

/* Caller holds the lock. Removes [start, end) from the regions; returns the bytes removed. */
static uint64_t cut(uintptr_t start, uintptr_t end)
{
    uint64_t removed = 0;
    size_t i = first_after(start);
    while (i < mappings.nregions && mappings.regions[i].start < end) {
        struct region *r = &mappings.regions[i];
        uintptr_t lo = r->start > start ? r->start : start, hi = r->end < end ? r->end : end;
        removed += hi - lo;
        if (r->start < start && r->end > end) {          /* a hole in the middle: split */
            if (mappings.nregions == mappings.cap && grow() != 0) { r->end = start; break; }
            r = &mappings.regions[i];
            memmove(r + 2, r + 1, (mappings.nregions - i - 1) * sizeof *r);
            r[1] = (struct region){ end, r->end };
            r->end = start;
            mappings.nregions++;
            break;
        }
        if (r->start < start) { r->end = start; i++; continue; }
        if (r->end > end) { r->start = end; break; }
        memmove(r, r + 1, (mappings.nregions - i - 1) * sizeof *r);  /* wholly inside: drop it */
        mappings.nregions--;
    }
    mappings.live -= removed;
    return removed;
}

uint64_t hp_mappings_add(uintptr_t start, uint64_t len)
{
    uintptr_t end = start + page_round(len);
    hp_spin_lock(&mappings.lock);
    cut(start, end);                      /* MAP_FIXED over an old region replaces it */
    mappings.live += end - start;
    if (mappings.nregions < mappings.cap || grow() == 0) {
        size_t i = first_after(start);
        memmove(&mappings.regions[i + 1], &mappings.regions[i], (mappings.nregions - i) * sizeof *mappings.regions);
        mappings.regions[i] = (struct region){ start, end };
        mappings.nregions++;
    }
    hp_spin_unlock(&mappings.lock);
    return end - start;
}

uint64_t hp_mappings_remove(uintptr_t start, uint64_t len)
{
    hp_spin_lock(&mappings.lock);
    uint64_t removed = cut(start, start + page_round(len));
    hp_spin_unlock(&mappings.lock);
    return removed;
}

uint64_t hp_mappings_live(void)
{
    hp_spin_lock(&mappings.lock);
    uint64_t n = mappings.live;
    hp_spin_unlock(&mappings.lock);
    return n;
}
