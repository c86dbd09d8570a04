/* lock_hooks.c — pthread mutex, rwlock and condition variable hooks (the locks view). Each acquisition
 * tries first: when the try succeeds nothing is timed; only when it fails is the wait timed
 * (rdtsc before and after the real blocking call). An acquisition is counted while the lock is
 * held, on the record or on its thread group's line (views/locks/locks.h). Return codes are the
 * real function's, errno untouched: the fast path calls nothing that sets it, the slow paths save
 * it.
 *
 * Before libhotpath.so has looked the real functions up (another library's constructor locking
 * early), the plain lock functions go to glibc's __pthread_* aliases; the others (condition
 * variables among them, at the GLIBC_2.3.2 version: a plain lookup finds the old one) are looked
 * up at their first call then. The list: LOCK_FNS. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "locks.h"
#include "core/hooks.h"
#include "locks_settings.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

typedef const struct timespec *ts_t;

/* The real functions (real_lookup.h), looked up by hp_resolve_locks (from hp_resolve, or from the
 * first call of a hook that finds its function missing, NEED), in this order. EARLY ones have
 * glibc's own entry point under its old name (__pthread_mutex_lock@GLIBC_2.2.5) until then, for a
 * lock taken before the constructor; the condition waits want the GLIBC_2.3.2 version. */
#define LOCK_FNS(X, C)                                                                          \
    X(C, mutex_lock,      "pthread_mutex_lock",         NULL, EARLY, int, (pthread_mutex_t *)) \
    X(C, mutex_trylock,   "pthread_mutex_trylock",      NULL, EARLY, int, (pthread_mutex_t *)) \
    X(C, mutex_unlock,    "pthread_mutex_unlock",       NULL, EARLY, int, (pthread_mutex_t *)) \
    X(C, mutex_init,      "pthread_mutex_init",         NULL, EARLY, int,                       \
      (pthread_mutex_t *, const pthread_mutexattr_t *))                                         \
    X(C, mutex_destroy,   "pthread_mutex_destroy",      NULL, EARLY, int, (pthread_mutex_t *)) \
    X(C, mutex_timedlock, "pthread_mutex_timedlock",    NULL, EAGER, int, (pthread_mutex_t *, ts_t)) \
    X(C, mutex_clocklock, "pthread_mutex_clocklock",    NULL, EAGER, int,                       \
      (pthread_mutex_t *, clockid_t, ts_t))                                                     \
    X(C, rw_rdlock,       "pthread_rwlock_rdlock",      NULL, EARLY, int, (pthread_rwlock_t *)) \
    X(C, rw_wrlock,       "pthread_rwlock_wrlock",      NULL, EARLY, int, (pthread_rwlock_t *)) \
    X(C, rw_tryrdlock,    "pthread_rwlock_tryrdlock",   NULL, EARLY, int, (pthread_rwlock_t *)) \
    X(C, rw_trywrlock,    "pthread_rwlock_trywrlock",   NULL, EARLY, int, (pthread_rwlock_t *)) \
    X(C, rw_unlock,       "pthread_rwlock_unlock",      NULL, EARLY, int, (pthread_rwlock_t *)) \
    X(C, rw_init,         "pthread_rwlock_init",        NULL, EARLY, int,                       \
      (pthread_rwlock_t *, const pthread_rwlockattr_t *))                                       \
    X(C, rw_destroy,      "pthread_rwlock_destroy",     NULL, EARLY, int, (pthread_rwlock_t *)) \
    X(C, rw_timedrdlock,  "pthread_rwlock_timedrdlock", NULL, EAGER, int, (pthread_rwlock_t *, ts_t)) \
    X(C, rw_timedwrlock,  "pthread_rwlock_timedwrlock", NULL, EAGER, int, (pthread_rwlock_t *, ts_t)) \
    X(C, rw_clockrdlock,  "pthread_rwlock_clockrdlock", NULL, EAGER, int,                       \
      (pthread_rwlock_t *, clockid_t, ts_t))                                                    \
    X(C, rw_clockwrlock,  "pthread_rwlock_clockwrlock", NULL, EAGER, int,                       \
      (pthread_rwlock_t *, clockid_t, ts_t))                                                    \
    X(C, cond_wait,       "pthread_cond_wait",          "GLIBC_2.3.2", EAGER, int,              \
      (pthread_cond_t *, pthread_mutex_t *))                                                    \
    X(C, cond_timedwait,  "pthread_cond_timedwait",     "GLIBC_2.3.2", EAGER, int,              \
      (pthread_cond_t *, pthread_mutex_t *, ts_t))                                              \
    X(C, cond_clockwait,  "pthread_cond_clockwait",     NULL, EAGER, int,                       \
      (pthread_cond_t *, pthread_mutex_t *, clockid_t, ts_t))

/* An EARLY entry's fallback: glibc's own entry point under its old name, bound by version (it is
 * not a default version, so a plain reference does not link). */
#define EARLY_DECL_(C, field, sym, ver, how, ret, params) EARLY_DECL_##how(field, sym, ret, params)
#define EARLY_DECL_EARLY(field, sym, ret, params)                                               \
    extern ret early_##field params;                                                            \
    __asm__(".symver early_" #field ", __" sym "@GLIBC_2.2.5");
#define EARLY_DECL_EAGER(field, sym, ret, params)
LOCK_FNS(EARLY_DECL_, _)

#define EARLY_INIT_(C, field, sym, ver, how, ret, params) EARLY_INIT_##how(field)
#define EARLY_INIT_EARLY(field) .field = early_##field,
#define EARLY_INIT_EAGER(field)

static struct {
    HP_REAL_FIELDS(LOCK_FNS)
} lk = { LOCK_FNS(EARLY_INIT_, _) };

static __thread int lk_resolving __attribute__((tls_model("initial-exec")));

/* Found, it replaces the early fallback: a hook on another thread may be reading it. */
#define LK_(C, field, sym, ver, how, ret, params)                                               \
    {                                                                                         \
        void *f_ = hp_real_lookup(sym, ver);                                                  \
        if (f_) __atomic_store_n((void **)&lk.field, f_, __ATOMIC_RELEASE);                   \
    }

/* Called from hp_resolve(), and by a hook that finds a function not yet looked up. */
void hp_resolve_locks(void)
{
    static _Atomic int done;
    if (atomic_load_explicit(&done, memory_order_acquire) || lk_resolving) return;
    lk_resolving = 1;
    int saved = errno;
    LOCK_FNS(LK_, _)
    errno = saved;
    lk_resolving = 0;
    atomic_store_explicit(&done, 1, memory_order_release);
}

/* A function with no early fallback: look everything up if it is still missing. */
#define NEED(field) do { if (unlikely(!lk.field)) hp_resolve_locks(); } while (0)

/* ---- whose operations count ---- */

static __attribute__((noinline, cold)) struct hp_thread *adopt(void)
{
    return hp_active ? hp_adopt_self() : NULL;
}

/* The calling thread's state when its lock operations count: NULL for profiler work (mimalloc
 * locks through these hooks too) and before start. */
static inline struct hp_thread *counting(void)
{
    struct hp_thread *t = hp_self;
    if (likely(t != NULL)) return t->guard ? NULL : t;
    return adopt();
}

/* ---- waits ---- */

/* A wait, and the one it interrupted (a signal handler's wait inside the thread's own): a
 * report made meanwhile counts the wait as in progress (hp_record_counts reads these), and the
 * interrupted wait is the thread's again when this one ends. */
struct wait {
    uint64_t start;
    void *outer;
    uint64_t outer_since;
    unsigned char outer_read;
};

static inline void set_blocked(struct hp_thread *t, void *l, uint64_t since, unsigned char read)
{
    atomic_store_explicit(&t->blocked_since, since, memory_order_relaxed);
    atomic_store_explicit(&t->blocked_read, read, memory_order_relaxed);
    atomic_store_explicit(&t->blocked_on, l, memory_order_release);
}

static inline struct wait wait_begin(struct hp_thread *t, struct hp_lock *l, int mode)
{
    struct wait w = { hp_ticks(), atomic_load_explicit(&t->blocked_on, memory_order_relaxed),
                      atomic_load_explicit(&t->blocked_since, memory_order_relaxed),
                      atomic_load_explicit(&t->blocked_read, memory_order_relaxed) };
    set_blocked(t, l, w.start, (unsigned char)mode);
    return w;
}

static inline uint64_t wait_end(struct hp_thread *t, const struct wait *w)
{
    uint64_t d = hp_ticks() - w->start;
    set_blocked(t, w->outer, w->outer_since, w->outer_read);
    hp_count(&t->lock_wait_ticks, d);
    return d;
}

/* ---- a contended acquisition's wait, recorded after the release ---- */

/* Recorded while the lock is held, a wait would lengthen the critical section by the cache misses
 * of the record's wait fields and histogram, which the other waiters wrote last: a two-thread
 * workload whose acquisitions mostly wait kept 0.84 of its bare throughput, against 0.97 with
 * the wait recorded after the release (40 interleaved runs each). The thread keeps one wait
 * until its next unlock, its next wait, a condition wait, or its end. */
static __thread struct {
    struct hp_lock *_Atomic lock;
    uint64_t ticks;
} deferred __attribute__((tls_model("initial-exec")));

static __attribute__((noinline, cold)) void record_deferred(void)
{
    /* a signal handler's wait may come between: the exchange records each wait once */
    struct hp_lock *l = atomic_exchange_explicit(&deferred.lock, NULL, memory_order_relaxed);
    if (!l) return;
    int saved = errno;
    hp_lock_record_wait(l, HP_MODE_WRITE, deferred.ticks);
    errno = saved;
}

static inline int wait_kept(void)
{
    return unlikely(atomic_load_explicit(&deferred.lock, memory_order_relaxed) != NULL);
}

static inline void flush_deferred(void)
{
    if (wait_kept()) record_deferred();
}

static inline void defer_wait(struct hp_lock *l, uint64_t ticks)
{
    flush_deferred();
    deferred.ticks = ticks;
    atomic_store_explicit(&deferred.lock, l, memory_order_relaxed);
}

void hp_locks_flush_deferred(void)
{
    flush_deferred();
}

void hp_locks_forget_deferred(void)
{
    atomic_store_explicit(&deferred.lock, NULL, memory_order_relaxed);
}

/* An unlock, then the wait kept since the acquisition (the unlock hooks keep their tail call to
 * the real function when there is none). */
static __attribute__((noinline)) int mutex_unlock_then_record(pthread_mutex_t *m)
{
    int r = lk.mutex_unlock(m);
    record_deferred();
    return r;
}

static __attribute__((noinline)) int rw_unlock_then_record(pthread_rwlock_t *rw)
{
    int r = lk.rw_unlock(rw);
    record_deferred();
    return r;
}

/* ---- mutexes ---- */

/* glibc keeps the type and a recursive mutex's depth in the public struct layout (stable ABI). */
static inline int nested_relock(const pthread_mutex_t *m)
{
    return unlikely((m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP) && m->__data.__count > 1;
}

static inline int mutex_acquired(int r)
{
    return r == 0 || r == EOWNERDEAD;
}

/* The caller holds m now. A recursive relock is not an acquisition: the hold runs from the
 * outermost lock to the last unlock. */
static inline void mutex_taken(pthread_mutex_t *m, struct hp_lock *l, struct hp_thread *t)
{
    if (nested_relock(m)) {
        if (!l->shared) hp_lk_add(&l->nested, 1, 0);
        return;
    }
    hp_lock_take(l, t, hp_locks_settings.mutex_time_period, &t->lock_countdown[0]);
}

enum op { OP_PLAIN, OP_TIMED, OP_CLOCK };

static __attribute__((noinline)) int mutex_slow(pthread_mutex_t *m, struct hp_lock *l, struct hp_thread *t,
                                                enum op op, clockid_t clk, ts_t abstime)
{
    flush_deferred();
    struct wait w = wait_begin(t, l, HP_MODE_WRITE);
    int r;
    if (op == OP_PLAIN) r = lk.mutex_lock(m);
    else if (op == OP_TIMED) r = lk.mutex_timedlock(m, abstime);
    else r = lk.mutex_clocklock(m, clk, abstime);
    uint64_t d = wait_end(t, &w);
    if (mutex_acquired(r)) {
        mutex_taken(m, l, t);
        defer_wait(l, d);
    } else if (r == ETIMEDOUT) {
        hp_lock_record_timeout(l, HP_MODE_WRITE, d);
    }
    return r;
}

/* A normal or adaptive mutex (not recursive, error-checking, robust or priority-protocol): its
 * lock word is 0 when free, and relocking it from its owner deadlocks in any case. */
static inline int plain_kind(const pthread_mutex_t *m)
{
    int k = m->__data.__kind & 0x7f;
    return k == PTHREAD_MUTEX_TIMED_NP || k == PTHREAD_MUTEX_ADAPTIVE_NP;
}

#define KIND_PRIO_PROTECT 0x40        /* glibc's PTHREAD_MUTEX_PRIO_PROTECT_NP bit of __kind */
#define LOCK_TID_MASK 0x3fffffff      /* FUTEX_TID_MASK: the owner's tid in a robust or PI word */

/* Whether an acquisition of a mutex that is not plain will wait: another thread holds it, as its
 * lock word says (glibc's public layout), read without taking it. A trylock first would not do:
 * on a robust mutex made unrecoverable, glibc's trylock leaves it locked; on a priority-protect
 * one a failed trylock changes the thread's priority bookkeeping; and a timed lock must check
 * its clock and timeout as the real call does. Recursive and error-checking words are 0 when free,
 * robust and priority-inheritance ones hold the owner's tid (and flag bits); the holder's own
 * relock does not wait (it nests, or fails with EDEADLK). A priority-protect word holds the
 * ceiling: those acquisitions are counted, never timed as waits. */
static inline int will_wait(const pthread_mutex_t *m, const struct hp_thread *t)
{
    if (m->__data.__kind & KIND_PRIO_PROTECT) return 0;
    if (!(__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) & LOCK_TID_MASK)) return 0;
    return t->tid == 0 || __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) != t->tid;
}

HP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    struct hp_thread *t = counting();
    if (unlikely(!t)) return lk.mutex_lock(m);
    struct hp_lock *l = hp_lock_get(m, HP_LOCK_MUTEX, t);
    int r;
    if (likely(plain_kind(m))) {
        /* The try is a load of the lock word: free, the real lock takes it at the cost of a bare
         * lock (glibc's trylock costs twice that, and a second atomic on a contended line);
         * held, the wait is timed. A lock taken by another thread between the load and the real
         * lock makes one untimed wait counted as uncontended. */
        if (likely(__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0)) {
            r = lk.mutex_lock(m);
            if (likely(r == 0)) mutex_taken(m, l, t);
            return r;
        }
        return mutex_slow(m, l, t, OP_PLAIN, 0, NULL);
    }
    if (will_wait(m, t)) return mutex_slow(m, l, t, OP_PLAIN, 0, NULL);
    r = lk.mutex_lock(m);
    if (mutex_acquired(r)) mutex_taken(m, l, t);
    return r;
}

HP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    struct hp_thread *t = counting();
    if (unlikely(!t)) return lk.mutex_trylock(m);
    struct hp_lock *l = hp_lock_get(m, HP_LOCK_MUTEX, t);
    int r = lk.mutex_trylock(m);
    if (mutex_acquired(r)) mutex_taken(m, l, t);
    return r;
}

static int mutex_timed(pthread_mutex_t *m, enum op op, clockid_t clk, ts_t abstime)
{
    struct hp_thread *t = counting();
    if (unlikely(!t)) return op == OP_TIMED ? lk.mutex_timedlock(m, abstime) : lk.mutex_clocklock(m, clk, abstime);
    struct hp_lock *l = hp_lock_get(m, HP_LOCK_MUTEX, t);
    int held = plain_kind(m) ? __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) != 0 : will_wait(m, t);
    if (held) return mutex_slow(m, l, t, op, clk, abstime);
    int r = op == OP_TIMED ? lk.mutex_timedlock(m, abstime) : lk.mutex_clocklock(m, clk, abstime);
    if (mutex_acquired(r)) mutex_taken(m, l, t);
    return r;
}

HP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    NEED(mutex_timedlock);
    return mutex_timed(m, OP_TIMED, 0, abstime);
}

HP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abstime)
{
    NEED(mutex_clocklock);
    return mutex_timed(m, OP_CLOCK, clk, abstime);
}

HP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    struct hp_thread *t = hp_self;
    if (likely(t && !t->guard)) {
        struct hp_lock *l = hp_lock_find(m, HP_LOCK_MUTEX);
        /* only the holder's unlock ends a hold; another thread's gets the real answer (EPERM
         * for error-checking mutexes) and changes nothing here */
        if (l && atomic_load_explicit(&l->owner, memory_order_relaxed) == t &&
            atomic_load_explicit(&l->held, memory_order_relaxed) && !l->shared && !nested_relock(m))
            hp_lock_release(l);
    }
    if (wait_kept()) return mutex_unlock_then_record(m);
    return lk.mutex_unlock(m);
}

HP_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    struct hp_thread *t = hp_self;
    if (t && !t->guard) hp_lock_retire(m, HP_LOCK_MUTEX);
    return lk.mutex_init(m, attr);
}

HP_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
    int r = lk.mutex_destroy(m);
    struct hp_thread *t = hp_self;
    if (r == 0 && t && !t->guard) {
        int saved = errno;
        hp_lock_retire(m, HP_LOCK_MUTEX);
        errno = saved;
    }
    return r;
}

/* ---- read-write locks ---- */

static __attribute__((noinline)) int rw_slow(pthread_rwlock_t *rw, struct hp_lock *l, struct hp_thread *t,
                                             int mode, enum op op, clockid_t clk, ts_t abstime)
{
    flush_deferred();
    struct wait w = wait_begin(t, l, mode);
    int r;
    if (mode == HP_MODE_READ)
        r = op == OP_PLAIN ? lk.rw_rdlock(rw) : op == OP_TIMED ? lk.rw_timedrdlock(rw, abstime)
                                                               : lk.rw_clockrdlock(rw, clk, abstime);
    else
        r = op == OP_PLAIN ? lk.rw_wrlock(rw) : op == OP_TIMED ? lk.rw_timedwrlock(rw, abstime)
                                                               : lk.rw_clockwrlock(rw, clk, abstime);
    uint64_t d = wait_end(t, &w);
    if (r == 0) {
        if (mode == HP_MODE_READ) {
            hp_lock_take_read(l, t, hp_locks_settings.rwlock_time_period);
            hp_lock_record_wait(l, HP_MODE_READ, d);
        } else {
            hp_lock_take(l, t, hp_locks_settings.rwlock_time_period, &t->lock_countdown[1]);
            defer_wait(l, d);
        }
    } else if (r == ETIMEDOUT) {
        hp_lock_record_timeout(l, mode, d);
    }
    return r;
}

/* A timeout glibc's rwlock calls refuse with EINVAL before anything else: the try below must not
 * take the lock first. */
static inline int rw_bad_timeout(enum op op, clockid_t clk, ts_t abstime)
{
    if (op == OP_PLAIN || !abstime) return 0;
    return (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) || abstime->tv_nsec < 0 ||
           abstime->tv_nsec >= 1000000000L;
}

static inline int rw_acquire(pthread_rwlock_t *rw, int mode, enum op op, clockid_t clk, ts_t abstime)
{
    struct hp_thread *t = counting();
    if (unlikely(!t || rw_bad_timeout(op, clk, abstime))) {
        if (mode == HP_MODE_READ)
            return op == OP_PLAIN ? lk.rw_rdlock(rw) : op == OP_TIMED ? lk.rw_timedrdlock(rw, abstime)
                                                                      : lk.rw_clockrdlock(rw, clk, abstime);
        return op == OP_PLAIN ? lk.rw_wrlock(rw) : op == OP_TIMED ? lk.rw_timedwrlock(rw, abstime)
                                                                  : lk.rw_clockwrlock(rw, clk, abstime);
    }
    struct hp_lock *l = hp_lock_get(rw, HP_LOCK_RWLOCK, t);
    if (mode == HP_MODE_READ) {
        if (likely(lk.rw_tryrdlock(rw) == 0)) {
            hp_lock_take_read(l, t, hp_locks_settings.rwlock_time_period);
            return 0;
        }
    } else if (likely(lk.rw_trywrlock(rw) == 0)) {
        hp_lock_take(l, t, hp_locks_settings.rwlock_time_period, &t->lock_countdown[1]);
        return 0;
    }
    return rw_slow(rw, l, t, mode, op, clk, abstime);
}

HP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
    return rw_acquire(rw, HP_MODE_READ, OP_PLAIN, 0, NULL);
}

HP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
    return rw_acquire(rw, HP_MODE_WRITE, OP_PLAIN, 0, NULL);
}

HP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
    NEED(rw_timedrdlock);
    return rw_acquire(rw, HP_MODE_READ, OP_TIMED, 0, abstime);
}

HP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
    NEED(rw_timedwrlock);
    return rw_acquire(rw, HP_MODE_WRITE, OP_TIMED, 0, abstime);
}

HP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clk, const struct timespec *abstime)
{
    NEED(rw_clockrdlock);
    return rw_acquire(rw, HP_MODE_READ, OP_CLOCK, clk, abstime);
}

HP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clk, const struct timespec *abstime)
{
    NEED(rw_clockwrlock);
    return rw_acquire(rw, HP_MODE_WRITE, OP_CLOCK, clk, abstime);
}

HP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
    struct hp_thread *t = counting();
    if (unlikely(!t)) return lk.rw_tryrdlock(rw);
    struct hp_lock *l = hp_lock_get(rw, HP_LOCK_RWLOCK, t);
    int r = lk.rw_tryrdlock(rw);
    if (r == 0) hp_lock_take_read(l, t, hp_locks_settings.rwlock_time_period);
    return r;
}

HP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
    struct hp_thread *t = counting();
    if (unlikely(!t)) return lk.rw_trywrlock(rw);
    struct hp_lock *l = hp_lock_get(rw, HP_LOCK_RWLOCK, t);
    int r = lk.rw_trywrlock(rw);
    if (r == 0) hp_lock_take(l, t, hp_locks_settings.rwlock_time_period, &t->lock_countdown[1]);
    return r;
}

HP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
    struct hp_thread *t = hp_self;
    if (likely(t && !t->guard)) {
        struct hp_lock *l = hp_lock_find(rw, HP_LOCK_RWLOCK);
        if (l && !l->shared) {
            if (atomic_load_explicit(&l->held, memory_order_relaxed) &&
                atomic_load_explicit(&l->owner, memory_order_relaxed) == t)
                hp_lock_release(l);
            else if (unlikely(t->read_holds))
                hp_lock_release_read(l, t);
        }
    }
    if (wait_kept()) return rw_unlock_then_record(rw);
    return lk.rw_unlock(rw);
}

HP_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
    struct hp_thread *t = hp_self;
    if (t && !t->guard) hp_lock_retire(rw, HP_LOCK_RWLOCK);
    return lk.rw_init(rw, attr);
}

HP_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
    int r = lk.rw_destroy(rw);
    struct hp_thread *t = hp_self;
    if (r == 0 && t && !t->guard) {
        int saved = errno;
        hp_lock_retire(rw, HP_LOCK_RWLOCK);
        errno = saved;
    }
    return r;
}

/* ---- condition variables: the mutex's hold pauses for the wait ---- */

static int cond_wait_any(pthread_cond_t *c, pthread_mutex_t *m, enum op op, clockid_t clk, ts_t abstime)
{
    struct hp_thread *t = counting();
    if (unlikely(!t)) {
        return op == OP_PLAIN ? lk.cond_wait(c, m) : op == OP_TIMED ? lk.cond_timedwait(c, m, abstime)
                                                                    : lk.cond_clockwait(c, m, clk, abstime);
    }
    flush_deferred();     /* m is let go inside the wait, where no unlock hook sees it */
    struct hp_lock *lc = hp_lock_get(c, HP_LOCK_COND, t);
    struct hp_lock *lm = hp_lock_get(m, HP_LOCK_MUTEX, t);
    uint64_t accum = 0;
    int timed = 0, paused = 0;
    if (!lm->shared && atomic_load_explicit(&lm->held, memory_order_relaxed) &&
        atomic_load_explicit(&lm->owner, memory_order_relaxed) == t) {
        uint64_t start = hp_lk_get(&lm->hold_start);
        if (start) {
            accum = hp_ticks() - start;
            timed = 1;
        }
        atomic_store_explicit(&lm->held, 0, memory_order_relaxed);
        paused = 1;
    }
    struct wait w = wait_begin(t, lc, HP_MODE_WRITE);
    int r = op == OP_PLAIN ? lk.cond_wait(c, m) : op == OP_TIMED ? lk.cond_timedwait(c, m, abstime)
                                                                 : lk.cond_clockwait(c, m, clk, abstime);
    uint64_t t1 = hp_ticks(), d = t1 - w.start;
    set_blocked(t, w.outer, w.outer_since, w.outer_read);
    if (r != 0 && r != ETIMEDOUT && r != EOWNERDEAD) {
        /* refused before waiting (EINVAL: a bad time or clock; EPERM: m not held): m was never
         * let go, so its hold goes on, and there was no wait */
        if (paused) atomic_store_explicit(&lm->held, 1, memory_order_relaxed);
        return r;
    }
    hp_count(&t->cond_wait_ticks, d);
    hp_count(&t->cond_wait_count, 1);
    struct hp_lock_mode *cm = &lc->mode[HP_MODE_WRITE];
    atomic_fetch_add_explicit(&cm->locks, 1, memory_order_relaxed);
    hp_lock_record_wait(lc, HP_MODE_WRITE, d);
    if (r == ETIMEDOUT) atomic_fetch_add_explicit(&cm->timeouts, 1, memory_order_relaxed);
    /* The wait returns holding m again (also on a timeout). That is not an acquisition the
     * program made, so it is neither counted nor an owner change: the next thread to lock m
     * counts the change, which keeps owner changes within acquisitions. */
    if (!lm->shared) {
        if (atomic_load_explicit(&lm->owner, memory_order_relaxed) != t)
            atomic_store_explicit(&lm->owner, t, memory_order_relaxed);
        hp_lk_set(&lm->hold_start, timed ? t1 - accum : 0);   /* the wait is not hold time */
        atomic_store_explicit(&lm->held, 1, memory_order_relaxed);
    }
    return r;
}

HP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    NEED(cond_wait);
    return cond_wait_any(c, m, OP_PLAIN, 0, NULL);
}

HP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
    NEED(cond_timedwait);
    return cond_wait_any(c, m, OP_TIMED, 0, abstime);
}

HP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                     const struct timespec *abstime)
{
    NEED(cond_clockwait);
    return cond_wait_any(c, m, OP_CLOCK, clk, abstime);
}
