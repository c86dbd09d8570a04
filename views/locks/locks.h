/* locks.h — the locks view's data: one record per lock (pthread mutex, rwlock, condition variable)
 * in a preallocated lock-free open-addressing table keyed by the lock's address (docs/DESIGN.md rule 8).
 *
 * Counting discipline (rule 2): a mutex's record and an rwlock's write side are written only by
 * the thread that holds the lock (after it acquired it, before it releases it), so their fields
 * take a plain load + store; the lock itself orders the writers. The exceptions:
 * - acquisitions, once a second thread has taken the lock (and every read acquisition), are an
 *   atomic add on the acquiring thread group's own line (struct hp_lock_shards): a counter of the
 *   record would move between the threads' cores inside every critical section;
 * - a contended acquisition's wait is recorded after the release (views/locks/lock_hooks.c);
 * - read holds, condition variables, timeouts and the shared `<other>` record.
 * Those take atomic adds. Waits are timed only after a failed trylock; uncontended holds are
 * timed one in N per thread (hp_locks_settings.*_time_period).
 * Durations are kept in ticks (ticks.h) and converted when a report is made. */
#ifndef HP_LOCKS_H
#define HP_LOCKS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/histogram.h"
#include "core/sample_gap.h"
#include "core/thread_state.h"
#include "core/ticks.h"

enum hp_lock_kind { HP_LOCK_MUTEX = 1, HP_LOCK_RWLOCK = 2, HP_LOCK_COND = 3 };
/* A mutex uses mode[HP_MODE_WRITE] only; a condition variable counts its waits there too. */
enum { HP_MODE_WRITE = 0, HP_MODE_READ = 1 };

#define HP_LOCK_FRAMES 8
#define HP_LOCK_SLOTS (1u << 15)       /* open-addressing slots, all kinds together */
#define HP_LOCK_RECORDS 24576u         /* records before new locks fall into <other> */
#define HP_LOCK_HISTS 16384u           /* wait/hold histogram pairs (only timed locks get one) */
#define HP_LOCK_SHARD_SETS 4096u       /* sets of shards per mode (later locks count on the record) */
#define HP_LOCK_SHARDS 8

/* A lock's acquisitions in one mode, counted apart for each group of threads (creation order
 * modulo 8) on a cache line of their own. Readers share an rwlock, and one counter of the record
 * would move between their cores on every read (2 threads reading ran 4-7 times slower than
 * bare); a lock that threads take in turn would move it inside each critical section (a
 * two-thread workload kept 0.90 of its bare throughput before, 0.95 with shards and the record's
 * layout below, in 30 interleaved runs each). */
struct hp_lock_shards {
    struct { _Atomic uint64_t n; char pad[56]; } s[HP_LOCK_SHARDS];
};

static inline void hp_lock_shards_add(struct hp_lock_shards *s, const struct hp_thread *t)
{
    atomic_fetch_add_explicit(&s->s[t->index % HP_LOCK_SHARDS].n, 1, memory_order_relaxed);
}
#define HP_LOCK_MAX_PROBE 64u

struct hp_lock_hists { struct hp_hist wait, hold; };

struct hp_lock_mode {
    _Atomic uint64_t locks;            /* acquisitions not in shards (condition variable: waits) */
    _Atomic uint64_t holds_timed, hold_ticks, hold_max;
    /* the rest are written outside the lock's critical section, with atomic adds */
    _Atomic uint64_t contended;        /* acquisitions that had to wait (a trylock failed first) */
    _Atomic uint64_t wait_ticks, wait_max;
    _Atomic uint64_t timeouts, timeout_ticks; /* timed/clock variants that gave up */
    struct hp_lock_hists *_Atomic hists;     /* NULL until the first timed wait or hold */
};

/* Laid out for locks that threads take in turn, so that a critical section waits on no line of
 * the record that the other threads wrote last:
 * - line 0 is read by every lookup and written only when the owner changes (with the owner);
 *   the acquirer has just read it to find the record;
 * - line 1 is written by the holder, with stores it does not wait for (its release reads back
 *   what its acquisition wrote), and at a destroy or a revival, when nobody holds the lock; a
 *   condition variable's record counts its waits there with atomic adds;
 * - a contended acquisition's wait is recorded after the release (views/locks/lock_hooks.c), further on. */
struct hp_lock {
    _Atomic uintptr_t key;             /* address | kind; 0 once destroyed (or never published) */
    struct hp_thread *_Atomic owner;   /* the last exclusive owner (mutex, rwlock writer) */
    _Atomic uint64_t owner_changes;    /* exclusive acquisitions by another than the last owner */
    struct hp_lock_shards *_Atomic shards[2]; /* acquisitions in a mode, once a second thread
                                          took the lock (reads: from the first); NULL: in mode[] */
    unsigned char kind;                /* 0: a record lost in an insert race, not reported */
    unsigned char shared;              /* the <other> record of its kind: many locks */
    unsigned char internal;            /* the profiler's own (libunwind, mimalloc): not reported */
    uint32_t nframes;                  /* the stack that first locked it, innermost first */
    uintptr_t addr;
    _Atomic uint32_t held __attribute__((aligned(64))); /* mutex held / rwlock write-held by owner */
    /* changed when the address is destroyed or used anew, while nobody holds it */
    _Atomic uint32_t instances;        /* locks this record stands for (a revived address adds one) */
    _Atomic uint32_t destroyed;        /* of them, destroyed (pthread_*_destroy, or _init over it) */
    _Atomic uint64_t hold_start;       /* ticks when a timed exclusive hold began, 0 = not timed;
                                          after a condition wait, moved later by the wait */
    _Atomic uint64_t nested;           /* relocks of a recursive mutex already held */
    struct hp_lock_mode mode[2];
    void *frames[HP_LOCK_FRAMES];
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct hp_lock, held) == 64, "lookups and owner changes have line 0");
_Static_assert(offsetof(struct hp_lock, mode[0].hold_max) + 8 <= 128, "a holder's fields share line 1");
_Static_assert(offsetof(struct hp_lock, mode[0].contended) >= 128, "a wait is recorded off line 1");

/* ---- the table ---- */

extern struct hp_lock *_Atomic hp_lock_slots[HP_LOCK_SLOTS];

static inline size_t hp_lock_hash(uintptr_t addr)
{
    return (size_t)(((addr >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - 15));
}

/* Find or make the record of a lock (first sight: a record from the pool and a call stack; the
 * calling thread's guard is raised meanwhile). Never NULL: `<other>` when the table is full. */
struct hp_lock *hp_lock_get_slow(const void *addr, unsigned kind, struct hp_thread *t);
/* Find only: NULL for a lock never seen. */
struct hp_lock *hp_lock_find_slow(const void *addr, unsigned kind);

static inline struct hp_lock *hp_lock_get(const void *addr, unsigned kind, struct hp_thread *t)
{
    struct hp_lock *l = atomic_load_explicit(&hp_lock_slots[hp_lock_hash((uintptr_t)addr)],
                                             memory_order_acquire);
    if (__builtin_expect(l != NULL, 1) &&
        atomic_load_explicit(&l->key, memory_order_relaxed) == ((uintptr_t)addr | kind))
        return l;
    return hp_lock_get_slow(addr, kind, t);
}

static inline struct hp_lock *hp_lock_find(const void *addr, unsigned kind)
{
    struct hp_lock *l = atomic_load_explicit(&hp_lock_slots[hp_lock_hash((uintptr_t)addr)],
                                             memory_order_acquire);
    if (__builtin_expect(l != NULL, 1) &&
        atomic_load_explicit(&l->key, memory_order_relaxed) == ((uintptr_t)addr | kind))
        return l;
    return hp_lock_find_slow(addr, kind);
}

/* pthread_*_destroy or _init: a later use of the address is a new lock. */
void hp_lock_retire(const void *addr, unsigned kind);

/* ---- counting ---- */

static inline uint64_t hp_lk_get(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

static inline void hp_lk_set(_Atomic uint64_t *c, uint64_t v)
{
    atomic_store_explicit(c, v, memory_order_relaxed);
}

/* Exclusive (under the lock): load + store. Shared: an atomic add. */
static inline void hp_lk_add(_Atomic uint64_t *c, uint64_t n, int shared)
{
    if (shared) atomic_fetch_add_explicit(c, n, memory_order_relaxed);
    else hp_lk_set(c, hp_lk_get(c) + n);
}

static inline void hp_lk_max(_Atomic uint64_t *c, uint64_t v, int shared)
{
    uint64_t cur = hp_lk_get(c);
    if (!shared) {
        if (v > cur) hp_lk_set(c, v);
        return;
    }
    while (v > cur && !atomic_compare_exchange_weak_explicit(c, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
}

static inline void hp_lk_hist_add(struct hp_hist *h, uint64_t v, int shared)
{
    if (shared) hp_hist_add(h, v);
    else hp_hist_add_owned(h, v);
}

/* Whether this acquisition's hold is timed, one in `period` per thread at random gaps
 * (sample_gap.h; 0 = never, 1 = always): the hold's start in ticks (never 0), or 0. */
static inline uint64_t hp_lock_sample(uint32_t *countdown, unsigned period)
{
    uint32_t c = *countdown;
    if (__builtin_expect(c > 1, 1)) {
        *countdown = c - 1;
        return 0;
    }
    if (period == 0) {
        *countdown = UINT32_MAX;
        return 0;
    }
    uint64_t now = hp_ticks();
    *countdown = period == 1 ? 1 : hp_sample_gap(period, now ^ (uintptr_t)countdown);
    return now | 1;
}

/* Acquisitions of a lock in a mode: mode[].locks and the shards. */
uint64_t hp_lock_acquisitions(const struct hp_lock *l, int mode);
/* The shards of a lock's mode, made now (first read, first owner change): NULL when none are
 * left, and acquisitions go on counting in mode[]. */
struct hp_lock_shards *hp_lock_make_shards(struct hp_lock *l, int mode);

/* A wait (contended acquisition, recorded with atomic adds outside the critical section, or a
 * timeout) and a hold, with their histograms. */
void hp_lock_record_wait(struct hp_lock *l, int mode, uint64_t ticks);
void hp_lock_record_timeout(struct hp_lock *l, int mode, uint64_t ticks);
void hp_lock_record_hold(struct hp_lock *l, int mode, uint64_t ticks, int shared);

/* An exclusive acquisition (mutex, rwlock write side), the caller now holding the lock. The
 * shard's add comes before the stores (as a locked instruction it would wait for them), but at
 * the first owner change, which makes the shards. */
static inline void hp_lock_take(struct hp_lock *l, struct hp_thread *t, unsigned period,
                                uint32_t *countdown)
{
    struct hp_lock_mode *m = &l->mode[HP_MODE_WRITE];
    if (__builtin_expect(l->shared, 0)) {
        atomic_fetch_add_explicit(&m->locks, 1, memory_order_relaxed);
        return;
    }
    struct hp_lock_shards *s = atomic_load_explicit(&l->shards[HP_MODE_WRITE], memory_order_acquire);
    if (__builtin_expect(s != NULL, 1)) hp_lock_shards_add(s, t);
    struct hp_thread *prev = atomic_load_explicit(&l->owner, memory_order_relaxed);
    if (prev != t) {
        if (prev) {
            hp_lk_set(&l->owner_changes, hp_lk_get(&l->owner_changes) + 1);
            if (!s && (s = hp_lock_make_shards(l, HP_MODE_WRITE)) != NULL) hp_lock_shards_add(s, t);
        }
        atomic_store_explicit(&l->owner, t, memory_order_relaxed);
    }
    if (!s) hp_lk_set(&m->locks, hp_lk_get(&m->locks) + 1);
    atomic_store_explicit(&l->held, 1, memory_order_relaxed);
    hp_lk_set(&l->hold_start, hp_lock_sample(countdown, period));
}

/* An exclusive release by the holder, before the real unlock. */
static inline void hp_lock_release(struct hp_lock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_relaxed);
    uint64_t start = hp_lk_get(&l->hold_start);
    if (__builtin_expect(start != 0, 0))
        hp_lock_record_hold(l, HP_MODE_WRITE, hp_ticks() - start, 0);
}

/* A read acquisition of an rwlock: counted in its shard (the first read of a lock makes them).
 * Readers share the lock: reads have no owner changes. */
void hp_lock_take_read_timed(struct hp_lock *l, struct hp_thread *t, uint64_t start);
void hp_lock_count_first_read(struct hp_lock *l, struct hp_thread *t);
static inline void hp_lock_take_read(struct hp_lock *l, struct hp_thread *t, unsigned period)
{
    struct hp_lock_shards *s = atomic_load_explicit(&l->shards[HP_MODE_READ], memory_order_acquire);
    if (__builtin_expect(s != NULL, 1))
        hp_lock_shards_add(s, t);
    else
        hp_lock_count_first_read(l, t);
    uint64_t start = hp_lock_sample(&t->lock_countdown[1], period);
    if (__builtin_expect(start != 0, 0)) hp_lock_take_read_timed(l, t, start);
}
/* A read release: ends the hold if this thread timed it. */
void hp_lock_release_read(struct hp_lock *l, struct hp_thread *t);

/* ---- the report's side ---- */

/* Every record of a kind, <other> last when used: fills out (up to max), returns the count. */
size_t hp_locks_list(unsigned kind, struct hp_lock **out, size_t max);
size_t hp_locks_count(void);           /* records handed out (an upper bound for hp_locks_list) */
int hp_locks_overflowed(unsigned kind); /* some locks of the kind went to <other> */
/* In a fork child: counters from zero, records kept (locks held across fork stay held), owners
 * forgotten but the forking thread. */
void hp_locks_fork_child(const struct hp_thread *self);

/* The hooks' real functions (lock_hooks.c): from hp_resolve, or a hook's first call. */
void hp_resolve_locks(void);
/* The calling thread's contended wait not yet recorded (lock_hooks.c): recorded now. */
void hp_locks_flush_deferred(void);
/* In a fork child: that wait was the parent's. */
void hp_locks_forget_deferred(void);

#endif
