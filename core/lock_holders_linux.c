/* lock_holders_linux.c — see lock_holders.h. One walk of the modules at start (their whole span,
 * hp_module_range); the handler's test is a scan of a few ranges. */
#define _GNU_SOURCE
#include "lock_holders.h"

#include <link.h>
#include <stdatomic.h>
#include <stddef.h>

#include "loader_lock.h"
#include "unloaded.h"

#define MAX_HOLDERS 8

struct range { uintptr_t lo, hi; };

static struct {
    struct range ranges[MAX_HOLDERS];
    _Atomic unsigned n;         /* ranges[0..n) are set: one is added before n counts it */
    _Atomic int ready;
} holders;

struct note_walk {
    const void *const *anchors;
    unsigned nanchors, found;
};

static int note_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct note_walk *w = data;
    struct range r;
    hp_module_range(info, &r.lo, &r.hi);
    int match = 0;
    for (unsigned k = 0; k < w->nanchors; k++) {
        uintptr_t a = (uintptr_t)w->anchors[k];
        if (a && a >= r.lo && a < r.hi) {
            match = 1;
            w->found++;
        }
    }
    unsigned n = atomic_load_explicit(&holders.n, memory_order_relaxed);
    if (match && n < MAX_HOLDERS) {
        holders.ranges[n] = r;
        atomic_store_explicit(&holders.n, n + 1, memory_order_release);
    }
    return 0;
}

int hp_lock_holders_note(const void *const *anchors, unsigned n)
{
    struct note_walk w = { anchors, n, 0 };
    unsigned wanted = 0;
    for (unsigned k = 0; k < n; k++) wanted += anchors[k] != NULL;
    atomic_store(&holders.ready, 0);
    atomic_store(&holders.n, 0);
    hp_walk_modules(note_module, &w);
    if (w.found < wanted) return -1;    /* an anchor in no module: no handler starts a thread */
    atomic_store(&holders.ready, 1);
    return 0;
}

int hp_lock_holders_add(uintptr_t lo, uintptr_t hi)
{
    unsigned n = atomic_load(&holders.n);
    if (lo >= hi || n >= MAX_HOLDERS) return -1;
    holders.ranges[n] = (struct range){ lo, hi };
    atomic_store_explicit(&holders.n, n + 1, memory_order_release);
    return 0;
}

int hp_pc_outside_lock_holders(uintptr_t pc)
{
    if (!atomic_load_explicit(&holders.ready, memory_order_acquire)) return 0;
    unsigned n = atomic_load_explicit(&holders.n, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        if (pc >= holders.ranges[i].lo && pc < holders.ranges[i].hi) return 0;
    return 1;
}
