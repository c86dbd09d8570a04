/* locks.c — see locks.h. Records and histograms come from page-backed pools claimed by an atomic
 * index (chunks are mapped the first time an index in them is claimed: one mmap per 256 new locks
 * or 64 newly timed ones); slots go from empty to a record by CAS and never back, so every thread
 * probing for an address walks the same sequence. */
#define _GNU_SOURCE
#include "locks.h"

#include <errno.h>
#include <string.h>

#include "core/memory.h"
#include "core/unwind.h"
#include "locks_settings.h"

struct hp_lock *_Atomic hp_lock_slots[HP_LOCK_SLOTS];

/* ---- pools ---- */

#define POOL_MAX_CHUNKS 256

struct pool {
    size_t size;                /* bytes per element */
    unsigned per_chunk, cap;
    _Atomic unsigned next;
    char *_Atomic chunks[POOL_MAX_CHUNKS];
};

/* The view's state: the pools, and `<other>` (the locks that found no room, per kind) with
 * whether each kind overflowed. The pools' sizes are set here, so it is in .data, as the pools
 * and `<other>` were before. */
static struct {
    struct pool records;
    struct pool hists;
    /* one per mode: contended mutexes must not use up what rwlock readers need most */
    struct pool shards[2];
    struct hp_lock other[4];
    _Atomic int overflowed[4];
} locks = {
    .records = { sizeof(struct hp_lock), 256, HP_LOCK_RECORDS, 0, { 0 } },
    .hists = { sizeof(struct hp_lock_hists), 64, HP_LOCK_HISTS, 0, { 0 } },
    .shards = {
        { sizeof(struct hp_lock_shards), 64, HP_LOCK_SHARD_SETS, 0, { 0 } },
        { sizeof(struct hp_lock_shards), 64, HP_LOCK_SHARD_SETS, 0, { 0 } },
    },
    .other = {
        [HP_LOCK_MUTEX] = { .kind = HP_LOCK_MUTEX, .shared = 1 },
        [HP_LOCK_RWLOCK] = { .kind = HP_LOCK_RWLOCK, .shared = 1 },
        [HP_LOCK_COND] = { .kind = HP_LOCK_COND, .shared = 1 },
    },
};

static void *pool_claim(struct pool *p)
{
    if (atomic_load_explicit(&p->next, memory_order_relaxed) >= p->cap) return NULL;
    unsigned i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= p->cap) return NULL;
    unsigned c = i / p->per_chunk;
    char *chunk = atomic_load_explicit(&p->chunks[c], memory_order_acquire);
    if (!chunk) {
        char *fresh = hp_pages(p->size * p->per_chunk);
        if (!fresh) return NULL;
        /* two claimers of one new chunk: the loser's pages stay unused (rare, counted) */
        if (atomic_compare_exchange_strong_explicit(&p->chunks[c], &chunk, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            chunk = fresh;
    }
    return chunk + (size_t)(i % p->per_chunk) * p->size;
}

static void *pool_at(struct pool *p, unsigned i)
{
    char *chunk = atomic_load_explicit(&p->chunks[i / p->per_chunk], memory_order_acquire);
    return chunk ? chunk + (size_t)(i % p->per_chunk) * p->size : NULL;
}

static unsigned pool_used(struct pool *p)
{
    unsigned n = atomic_load_explicit(&p->next, memory_order_relaxed);
    return n < p->cap ? n : p->cap;
}

/* ---- <other>: the locks that found no room ---- */

static struct hp_lock *to_other(unsigned kind)
{
    if (!atomic_load_explicit(&locks.overflowed[kind], memory_order_relaxed))
        atomic_store_explicit(&locks.overflowed[kind], 1, memory_order_relaxed);
    return &locks.other[kind];
}

/* ---- the stack that first locked a lock ---- */

static int profiler_lock(uintptr_t addr, void *first_frame)
{
    return hp_unwind_helper_code(addr) || hp_unwind_helper_code((uintptr_t)first_frame);
}

static unsigned capture_stack(void **out, struct hp_thread *t, const void *addr)
{
    /* a lock of libunwind's own, taken while the program unwinds (a C++ throw that reaches
     * libunwind's _Unwind_RaiseException): unwinding now would wait on that very lock */
    if (hp_unwind_helper_code((uintptr_t)addr)) return 0;
    return hp_unwind_program(out, HP_LOCK_FRAMES, t);
}

/* ---- finding and making records ---- */

static struct hp_lock *new_record(const void *addr, unsigned kind, void *const *frames, unsigned nframes)
{
    struct hp_lock *l = pool_claim(&locks.records);
    if (!l) return NULL;
    l->addr = (uintptr_t)addr;
    l->kind = (unsigned char)kind;
    atomic_store_explicit(&l->instances, 1, memory_order_relaxed);
    l->nframes = nframes;
    memcpy(l->frames, frames, nframes * sizeof *frames);
    l->internal = (unsigned char)profiler_lock((uintptr_t)addr, nframes ? frames[0] : NULL);
    atomic_store_explicit(&l->key, (uintptr_t)addr | kind, memory_order_relaxed);
    return l;
}

static int same_stack(const struct hp_lock *l, void *const *frames, unsigned n)
{
    return l->nframes == n && memcmp(l->frames, frames, n * sizeof *frames) == 0;
}

struct hp_lock *hp_lock_find_slow(const void *addr, unsigned kind)
{
    uintptr_t key = (uintptr_t)addr | kind;
    size_t h = hp_lock_hash((uintptr_t)addr);
    for (unsigned p = 0; p < HP_LOCK_MAX_PROBE; p++) {
        struct hp_lock *l = atomic_load_explicit(&hp_lock_slots[(h + p) & (HP_LOCK_SLOTS - 1)],
                                                 memory_order_acquire);
        if (!l) return NULL;
        if (atomic_load_explicit(&l->key, memory_order_relaxed) == key) return l;
    }
    return NULL;
}

/* The stack that first locked a lock, captured when a record needs it, at most once per lookup. */
struct first_stack {
    void *frames[HP_LOCK_FRAMES];
    unsigned n;
    int taken;
};

static void take_stack(struct first_stack *s, struct hp_thread *t, const void *addr)
{
    if (s->taken) return;
    s->n = capture_stack(s->frames, t, addr);
    s->taken = 1;
}

static struct hp_lock *fresh_record(struct first_stack *s, const void *addr, unsigned kind,
                                    struct hp_thread *t)
{
    if (atomic_load_explicit(&locks.records.next, memory_order_relaxed) >= locks.records.cap) return NULL;
    take_stack(s, t, addr);
    return new_record(addr, kind, s->frames, s->n);
}

struct hp_lock *hp_lock_get_slow(const void *addr, unsigned kind, struct hp_thread *t)
{
    struct hp_lock *l = hp_lock_find_slow(addr, kind);
    if (l) return l;
    uintptr_t key = (uintptr_t)addr | kind;
    size_t h = hp_lock_hash((uintptr_t)addr);
    struct first_stack stack = { .taken = 0 };
    struct hp_lock *mine = NULL;
    for (unsigned p = 0; p < HP_LOCK_MAX_PROBE; p++) {
        struct hp_lock *_Atomic *slot = &hp_lock_slots[(h + p) & (HP_LOCK_SLOTS - 1)];
        l = atomic_load_explicit(slot, memory_order_acquire);
        if (l) {
            uintptr_t k = atomic_load_explicit(&l->key, memory_order_relaxed);
            if (k == key) goto found;
            if (k != 0 || l->kind != kind || l->addr != (uintptr_t)addr) continue;
            /* this address's previous lock, destroyed */
            if (hp_locks_settings.iter) {
                /* every instance its own row: the new lock takes the old one's slot (the old
                 * record stays listed), or an address reused 64 times would fill every slot it
                 * may probe */
                if (!mine && !(mine = fresh_record(&stack, addr, kind, t))) break;
                if (atomic_compare_exchange_strong_explicit(slot, &l, mine, memory_order_acq_rel,
                                                            memory_order_acquire))
                    return mine;
                if (atomic_load_explicit(&l->key, memory_order_relaxed) == key) goto found;
                continue;
            }
            /* the same code making it again at the same place adds an instance, not a record */
            take_stack(&stack, t, addr);
            if (same_stack(l, stack.frames, stack.n)) {
                uintptr_t zero = 0;
                if (atomic_compare_exchange_strong_explicit(&l->key, &zero, key, memory_order_acq_rel,
                                                            memory_order_relaxed)) {
                    atomic_fetch_add_explicit(&l->instances, 1, memory_order_relaxed);
                    goto found;
                }
                if (zero == key) goto found;
            }
            continue;
        }
        if (!mine && !(mine = fresh_record(&stack, addr, kind, t))) break;
        struct hp_lock *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(slot, &expected, mine, memory_order_acq_rel,
                                                    memory_order_acquire))
            return mine;
        l = expected;       /* someone filled the slot first: maybe with this very lock */
        if (atomic_load_explicit(&l->key, memory_order_relaxed) == key) goto found;
    }
    l = to_other(kind);
found:
    if (mine && mine != l) {      /* lost a race: the record stays unpublished and unreported */
        atomic_store_explicit(&mine->key, 0, memory_order_relaxed);
        mine->kind = 0;
    }
    return l;
}

void hp_lock_retire(const void *addr, unsigned kind)
{
    struct hp_lock *l = hp_lock_find(addr, kind);
    if (!l || l->shared) return;
    atomic_store_explicit(&l->held, 0, memory_order_relaxed);
    atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);  /* a revived lock's first owner is no change */
    atomic_fetch_add_explicit(&l->destroyed, 1, memory_order_relaxed);
    atomic_store_explicit(&l->key, 0, memory_order_release);
}

/* ---- waits and holds ---- */

static struct hp_lock_hists *mode_hists(struct hp_lock_mode *m)
{
    struct hp_lock_hists *h = atomic_load_explicit(&m->hists, memory_order_acquire);
    if (h) return h;
    struct hp_lock_hists *fresh = pool_claim(&locks.hists);
    if (!fresh) return NULL;
    if (atomic_compare_exchange_strong_explicit(&m->hists, &h, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    return h;               /* another reader won: ours stays unused */
}

/* Recording a wait or a timed hold is the profiler's work: under the thread's guard, a CPU
 * sample taken meanwhile is the profiler's, not the program's time in these functions. */
void hp_lock_record_wait(struct hp_lock *l, int mode, uint64_t ticks)
{
    struct hp_thread *t = hp_guard_raise();
    struct hp_lock_mode *m = &l->mode[mode];
    hp_lk_add(&m->contended, 1, 1);
    hp_lk_add(&m->wait_ticks, ticks, 1);
    hp_lk_max(&m->wait_max, ticks, 1);
    struct hp_lock_hists *h = mode_hists(m);
    if (h) hp_hist_add(&h->wait, ticks);
    hp_guard_lower(t);
}

void hp_lock_record_timeout(struct hp_lock *l, int mode, uint64_t ticks)
{
    struct hp_lock_mode *m = &l->mode[mode];
    atomic_fetch_add_explicit(&m->timeouts, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->timeout_ticks, ticks, memory_order_relaxed);
}

void hp_lock_record_hold(struct hp_lock *l, int mode, uint64_t ticks, int shared)
{
    struct hp_thread *t = hp_guard_raise();
    struct hp_lock_mode *m = &l->mode[mode];
    shared |= l->shared;
    hp_lk_add(&m->holds_timed, 1, shared);
    hp_lk_add(&m->hold_ticks, ticks, shared);
    hp_lk_max(&m->hold_max, ticks, shared);
    struct hp_lock_hists *h = mode_hists(m);
    if (h) hp_lk_hist_add(&h->hold, ticks, shared);
    hp_guard_lower(t);
}

struct hp_lock_shards *hp_lock_make_shards(struct hp_lock *l, int mode)
{
    if (l->shared) return NULL;
    int saved = errno;      /* a new chunk of the pool is an mmap */
    struct hp_lock_shards *s = pool_claim(&locks.shards[mode]);
    errno = saved;
    if (!s) return NULL;
    /* readers may race to make them (a writer makes them under the lock) */
    struct hp_lock_shards *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&l->shards[mode], &expected, s, memory_order_acq_rel,
                                                 memory_order_acquire))
        s = expected;       /* another reader made them first: ours stay unused */
    return s;
}

/* The first read of a lock (or any read of one left without shards: <other>, or none left). */
void hp_lock_count_first_read(struct hp_lock *l, struct hp_thread *t)
{
    struct hp_lock_shards *s = hp_lock_make_shards(l, HP_MODE_READ);
    if (s) hp_lock_shards_add(s, t);
    else atomic_fetch_add_explicit(&l->mode[HP_MODE_READ].locks, 1, memory_order_relaxed);
}

uint64_t hp_lock_acquisitions(const struct hp_lock *l, int mode)
{
    uint64_t n = atomic_load_explicit(&l->mode[mode].locks, memory_order_relaxed);
    const struct hp_lock_shards *s = atomic_load_explicit(&l->shards[mode], memory_order_acquire);
    for (unsigned i = 0; s && i < HP_LOCK_SHARDS; i++)
        n += atomic_load_explicit(&s->s[i].n, memory_order_relaxed);
    return n;
}

void hp_lock_take_read_timed(struct hp_lock *l, struct hp_thread *t, uint64_t start)
{
    uint32_t n = t->read_holds;
    if (n >= sizeof t->read_hold / sizeof *t->read_hold) return;   /* deeper nesting: untimed */
    t->read_hold[n].lock = l;
    t->read_hold[n].start = start;
    t->read_holds = n + 1;
}

void hp_lock_release_read(struct hp_lock *l, struct hp_thread *t)
{
    for (uint32_t i = t->read_holds; i-- > 0;) {
        if (t->read_hold[i].lock != l) continue;
        uint64_t ticks = hp_ticks() - t->read_hold[i].start;
        t->read_hold[i] = t->read_hold[t->read_holds - 1];
        t->read_holds--;
        hp_lock_record_hold(l, HP_MODE_READ, ticks, 1);
        return;
    }
}

/* ---- the report's side ---- */

static int used(const struct hp_lock *l)
{
    const struct hp_lock_mode *m = l->mode;
    for (int i = 0; i < 2; i++)
        if (atomic_load(&m[i].locks) || atomic_load(&m[i].contended) || atomic_load(&m[i].timeouts))
            return 1;
    return 0;
}

size_t hp_locks_count(void)
{
    return pool_used(&locks.records) + 1;
}

size_t hp_locks_list(unsigned kind, struct hp_lock **out, size_t max)
{
    size_t n = 0;
    unsigned count = pool_used(&locks.records);
    for (unsigned i = 0; i < count && n < max; i++) {
        struct hp_lock *l = pool_at(&locks.records, i);
        if (l && l->kind == kind && l->addr && !l->internal) out[n++] = l;
    }
    if (kind < 4 && n < max && used(&locks.other[kind])) out[n++] = &locks.other[kind];
    return n;
}

int hp_locks_overflowed(unsigned kind)
{
    return kind < 4 && atomic_load(&locks.overflowed[kind]);
}

static void zero_mode(struct hp_lock_mode *m)
{
    struct hp_lock_hists *h = atomic_load(&m->hists);
    m->locks = m->contended = m->wait_ticks = m->wait_max = 0;
    m->holds_timed = m->hold_ticks = m->hold_max = 0;
    m->timeouts = m->timeout_ticks = 0;
    if (h) memset(h, 0, sizeof *h);
}

void hp_locks_fork_child(const struct hp_thread *self)
{
    unsigned count = pool_used(&locks.records);
    for (unsigned i = 0; i < count; i++) {
        struct hp_lock *l = pool_at(&locks.records, i);
        if (!l) continue;
        zero_mode(&l->mode[0]);
        zero_mode(&l->mode[1]);
        for (int m = 0; m < 2; m++) {
            struct hp_lock_shards *s = atomic_load(&l->shards[m]);
            if (s) memset(s, 0, sizeof *s);
        }
        l->owner_changes = 0;
        /* the forking thread goes on in the child; the other owners are gone */
        if (atomic_load(&l->owner) != self) l->owner = NULL;
        l->nested = 0;
        l->hold_start = 0;     /* a hold across fork is not timed in the child */
    }
    for (unsigned k = 1; k < 4; k++) {
        zero_mode(&locks.other[k].mode[0]);
        zero_mode(&locks.other[k].mode[1]);
    }
}
