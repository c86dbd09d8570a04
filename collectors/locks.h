/* locks.h — the locks view's data: one record per lock (pthread mutex, rwlock, condition variable)
 * in a preallocated lock-free open-addressing table keyed by the lock's address (DESIGN.md rule 8).
 *
 * Counting discipline (rule 2): a mutex's record and an rwlock's write side are written only by
 * the thread that holds the lock (after it acquired it, before it releases it), so their counters
 * take a plain load + store; the lock itself orders the writers. A contended acquisition's wait is
 * the exception: recorded after the release (preload/locks.c), with atomic adds. Read
 * acquisitions take an atomic add on their thread group's own line (struct hp_read_shards); read
 * holds, condition variables, timeouts and the shared `<other>` record take atomic adds. Waits are timed only after a failed
 * trylock; uncontended holds are timed one in N per thread (hp_config.*_time_period).
 * Durations are kept in ticks (ticks.h) and converted when a report is made. */
#ifndef HP_LOCKS_H
#define HP_LOCKS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "sample_gap.h"
#include "thread_state.h"
#include "ticks.h"

enum hp_lock_kind { HP_LOCK_MUTEX = 1, HP_LOCK_RWLOCK = 2, HP_LOCK_COND = 3 };
/* A mutex uses mode[HP_MODE_WRITE] only; a condition variable counts its waits there too. */
enum { HP_MODE_WRITE = 0, HP_MODE_READ = 1 };

#define HP_LOCK_FRAMES 8
#define HP_LOCK_SLOTS (1u << 15)       /* open-addressing slots, all kinds together */
#define HP_LOCK_RECORDS 24576u         /* records before new locks fall into <other> */
#define HP_LOCK_HISTS 16384u           /* wait/hold histogram pairs (only timed locks get one) */
#define HP_LOCK_READ_SHARDS 4096u      /* rwlocks with read shards (later ones count on the record) */
#define HP_READ_SHARDS 8

/* An rwlock's read acquisitions, counted apart for each group of threads (creation order modulo 8)
 * on a cache line of their own: readers share the lock, and one counter of the record would move
 * between their cores on every read (2 threads reading ran 4-7 times slower than bare). */
struct hp_read_shards {
    struct { _Atomic uint64_t n; char pad[56]; } s[HP_READ_SHARDS];
};

static inline void hp_read_shards_add(struct hp_read_shards *s, const struct hp_thread *t)
{
    atomic_fetch_add_explicit(&s->s[t->index % HP_READ_SHARDS].n, 1, memory_order_relaxed);
}
#define HP_LOCK_MAX_PROBE 64u

struct hp_lock_hists { struct hp_hist wait, hold; };

struct hp_lock_mode {
    _Atomic uint64_t locks;            /* acquisitions (condition variable: waits) */
    _Atomic uint64_t owner_changes;    /* the acquirer was not the previous one */
    _Atomic uint64_t holds_timed, hold_ticks;
    /* the rest are written outside the lock's critical section, with atomic adds */
    _Atomic uint64_t contended;        /* acquisitions that had to wait (a trylock failed first) */
    _Atomic uint64_t wait_ticks, wait_max;
    _Atomic uint64_t hold_max;         /* written under the lock, rarely: read-mostly */
    _Atomic uint64_t timeouts, timeout_ticks; /* timed/clock variants that gave up */
    struct hp_lock_hists *_Atomic hists;     /* NULL until the first timed wait or hold */
};

/* Laid out so that all an exclusive acquisition and release write under the lock (key to
 * mode[0].hold_ticks) is one cache line: when two threads take turns on a lock, that line moves
 * between their cores with the lock itself, and every further line written there would move too,
 * while the next thread waits. A contended acquisition's wait is recorded after the release
 * (preload/locks.c), on the next line. */
struct hp_lock {
    _Atomic uintptr_t key;             /* address | kind; 0 once destroyed (or never published) */
    struct hp_thread *_Atomic owner;   /* the last exclusive owner (mutex, rwlock writer) */
    _Atomic uint32_t held;             /* mutex held / rwlock write-held by owner */
    unsigned char kind;                /* 0: a record lost in an insert race, not reported */
    unsigned char shared;              /* the <other> record of its kind: many locks */
    unsigned char internal;            /* the profiler's own (libunwind, mimalloc): not reported */
    _Atomic uint64_t hold_start;       /* ticks when a timed exclusive hold began, 0 = not timed;
                                          after a condition wait, moved later by the wait */
    struct hp_lock_mode mode[2];
    uintptr_t addr;
    _Atomic uint32_t instances;        /* locks this record stands for (a revived address adds one) */
    _Atomic uint32_t destroyed;        /* of them, destroyed (pthread_*_destroy, or _init over it) */
    struct hp_read_shards *_Atomic read_shards; /* reads from the first on (NULL: in mode[1]) */
    _Atomic uint64_t nested;           /* relocks of a recursive mutex already held */
    uint32_t nframes;                  /* the stack that first locked it, innermost first */
    void *frames[HP_LOCK_FRAMES];
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct hp_lock, mode[0].hold_ticks) + 8 <= 64, "an acquisition's fields share a line");
_Static_assert(offsetof(struct hp_lock, mode[0].contended) >= 64, "a wait is recorded off that line");

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

/* A wait (contended acquisition, recorded with atomic adds outside the critical section, or a
 * timeout) and a hold, with their histograms. */
void hp_lock_record_wait(struct hp_lock *l, int mode, uint64_t ticks);
void hp_lock_record_timeout(struct hp_lock *l, int mode, uint64_t ticks);
void hp_lock_record_hold(struct hp_lock *l, int mode, uint64_t ticks, int shared);

/* An exclusive acquisition (mutex, rwlock write side), the caller now holding the lock. */
static inline void hp_lock_take(struct hp_lock *l, struct hp_thread *t, unsigned period,
                                uint32_t *countdown)
{
    struct hp_lock_mode *m = &l->mode[HP_MODE_WRITE];
    if (__builtin_expect(l->shared, 0)) {
        atomic_fetch_add_explicit(&m->locks, 1, memory_order_relaxed);
        return;
    }
    hp_lk_set(&m->locks, hp_lk_get(&m->locks) + 1);
    struct hp_thread *prev = atomic_load_explicit(&l->owner, memory_order_relaxed);
    if (prev != t) {
        if (prev) hp_lk_set(&m->owner_changes, hp_lk_get(&m->owner_changes) + 1);
        atomic_store_explicit(&l->owner, t, memory_order_relaxed);
    }
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
    struct hp_read_shards *s = atomic_load_explicit(&l->read_shards, memory_order_acquire);
    if (__builtin_expect(s != NULL, 1))
        hp_read_shards_add(s, t);
    else
        hp_lock_count_first_read(l, t);
    uint64_t start = hp_lock_sample(&t->lock_countdown[1], period);
    if (__builtin_expect(start != 0, 0)) hp_lock_take_read_timed(l, t, start);
}
/* Read acquisitions of an rwlock so far (its mode[1].locks and its shards). */
uint64_t hp_lock_reads(const struct hp_lock *l);
/* A read release: ends the hold if this thread timed it. */
void hp_lock_release_read(struct hp_lock *l, struct hp_thread *t);

/* ---- the report's side ---- */

/* Every record of a kind, <other> last when used: fills out (up to max), returns the count. */
size_t hp_locks_list(unsigned kind, struct hp_lock **out, size_t max);
size_t hp_locks_count(void);           /* records handed out (an upper bound for hp_locks_list) */
int hp_locks_overflowed(unsigned kind); /* some locks of the kind went to <other> */
/* In a fork child: counters from zero, records kept (locks held across fork stay held). */
void hp_locks_fork_child(void);

#endif
