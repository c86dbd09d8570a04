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

static hp_spinlock lock = HP_SPINLOCK_INIT;
static struct region *regions;
static size_t nregions, cap;
static uint64_t live;

static int grow(void)
{
    size_t ncap = cap ? cap * 2 : 4096 / sizeof *regions;
#if defined(__APPLE__)
    /* no mremap; and a call from the interposing image itself is never interposed */
    void *p = mmap(NULL, ncap * sizeof *regions, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (p == MAP_FAILED) return -1;
    if (regions) {
        memcpy(p, regions, cap * sizeof *regions);
        munmap(regions, cap * sizeof *regions);
    }
    long r = (long)p;
#else
    long r = regions ? syscall(SYS_mremap, regions, cap * sizeof *regions, ncap * sizeof *regions, MREMAP_MAYMOVE)
                     : syscall(SYS_mmap, NULL, ncap * sizeof *regions, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == -1) return -1;
#endif
    regions = (struct region *)r;
    cap = ncap;
    return 0;
}

/* First region whose end is above addr. */
static size_t first_after(uintptr_t addr)
{
    size_t lo = 0, hi = nregions;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (regions[mid].end <= addr) lo = mid + 1;
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
    while (i < nregions && regions[i].start < end) {
        struct region *r = &regions[i];
        uintptr_t lo = r->start > start ? r->start : start, hi = r->end < end ? r->end : end;
        removed += hi - lo;
        if (r->start < start && r->end > end) {          /* a hole in the middle: split */
            if (nregions == cap && grow() != 0) { r->end = start; break; }
            r = &regions[i];
            memmove(r + 2, r + 1, (nregions - i - 1) * sizeof *r);
            r[1] = (struct region){ end, r->end };
            r->end = start;
            nregions++;
            break;
        }
        if (r->start < start) { r->end = start; i++; continue; }
        if (r->end > end) { r->start = end; break; }
        memmove(r, r + 1, (nregions - i - 1) * sizeof *r);  /* wholly inside: drop it */
        nregions--;
    }
    live -= removed;
    return removed;
}

uint64_t hp_mappings_add(uintptr_t start, uint64_t len)
{
    uintptr_t end = start + page_round(len);
    hp_spin_lock(&lock);
    cut(start, end);                      /* MAP_FIXED over an old region replaces it */
    live += end - start;
    if (nregions < cap || grow() == 0) {
        size_t i = first_after(start);
        memmove(&regions[i + 1], &regions[i], (nregions - i) * sizeof *regions);
        regions[i] = (struct region){ start, end };
        nregions++;
    }
    hp_spin_unlock(&lock);
    return end - start;
}

uint64_t hp_mappings_remove(uintptr_t start, uint64_t len)
{
    hp_spin_lock(&lock);
    uint64_t removed = cut(start, start + page_round(len));
    hp_spin_unlock(&lock);
    return removed;
}

uint64_t hp_mappings_live(void)
{
    hp_spin_lock(&lock);
    uint64_t n = live;
    hp_spin_unlock(&lock);
    return n;
}
