/* io.h — the I/O view's data: one record per resource (file, socket, pipe; instances that share
 * a name pattern merge into one record), and the descriptor table that maps an fd to its record.
 *
 * The fd table is a flat array indexed by fd, published through one pointer: a read or write
 * looks its record up with two loads and no lock. Only the hooks that make or drop descriptors
 * (open, close, dup, socket, accept, ...) change it, under a short lock, and only they grow it
 * (a new array, the old one kept: a reader may still be looking at it).
 *
 * Records are never freed or moved. Each direction has two sets of counters: the owner's (the
 * first thread that did I/O on the resource; most files and connections only ever have one),
 * written only by that thread with plain load+store like a thread's own counters, and the shared
 * set every other thread adds to atomically (docs/DESIGN.md rule 2). A report adds the two. The
 * per-thread I/O time goes to the thread's own state. */
#ifndef HP_IO_H
#define HP_IO_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/hooks.h"
#include "core/histogram.h"
#include "io_names.h"
#include "core/sample_gap.h"
#include "core/thread_state.h"
#include "core/ticks.h"

/* One direction (reads or writes) of a resource. */
struct hp_io_dir {
    _Atomic uint64_t bytes;
    _Atomic uint64_t ticks;       /* time in the calls; a sampled call counts for `period` calls */
    _Atomic uint64_t untimed;     /* calls not timed (HOTPATH_IO_TIME_SAMPLING_RATE < 1) */
    _Atomic uint64_t errors;      /* failed calls; EAGAIN/EWOULDBLOCK and EINTR are not errors */
    _Atomic uint64_t max_ticks;
    _Atomic uint64_t flush_ticks; /* stdio: fflush/fclose time, in ticks but in no call count */
    struct hp_hist hist;          /* latency of each timed call, in ticks; its sum = timed calls */
} __attribute__((aligned(64)));

/* A record is one page (aligned and smaller): a call touches one page of it, the owner's counters
 * first. */
struct hp_io_res {
    struct hp_thread *_Atomic owner;   /* writes own_rd/own_wr; NULL until the first call */
    struct hp_io_dir own_rd, own_wr;
    struct hp_io_dir rd, wr;           /* every other thread: atomic adds */
    _Atomic uint64_t inst, opens, closes, seeks, syncs, sync_ticks;
    /* How long it was open: descriptors that refer to it now, since when one has (ticks), and the
     * spans that ended; written under the fd table's lock, read by the report. */
    _Atomic uint64_t open_fds, open_since, open_ticks;
    uint32_t hash;
    unsigned char kind, accepted;
    char *key;                    /* what instances merge on */
    char *pattern;                /* the row's name when it has more than one instance */
    char *first;                  /* the first instance's own name */
} __attribute__((aligned(4096)));

struct hp_fdtab {
    uint32_t cap;
    struct hp_io_res *_Atomic slot[];
};

/* The table and the sampling period live in the hooks' hot page (core/hooks.h): hp_hot.io_fdtab,
 * and hp_hot.io_period, which times one call in io_period per thread (1 = every call, 0 = none:
 * HOTPATH_IO_TIME_SAMPLING_RATE). The table is this empty one until the first descriptor. */
extern struct hp_fdtab hp_io_empty_tab;   /* core/hooks_linux.c, with the page */

/* The hooks' real functions (io_hooks.c, the list: io_fns.h), from hp_resolve. */
void hp_resolve_io(void);

/* ---- lookups (any thread) ---- */

/* The record of fd: lock-free, NULL when the table does not know fd. */
static inline struct hp_io_res *hp_io_lookup(int fd)
{
    struct hp_fdtab *tab = atomic_load_explicit(&hp_hot.io_fdtab, memory_order_acquire);
    if (__builtin_expect((unsigned)fd < tab->cap, 1))
        return atomic_load_explicit(&tab->slot[fd], memory_order_relaxed);
    return NULL;
}

/* The record of a descriptor the table does not know: named from /proc/self/fd, fstat and the
 * socket addresses, then remembered. A bad descriptor gets a record `fd N (bad)` that is not
 * remembered. Saves errno; never fails (the `<other>` record when the table is full). */
struct hp_io_res *hp_io_find(int fd);

/* The record of fd for a call by thread t. t keeps the last descriptor it found in the table and
 * that descriptor's record: a loop on one descriptor skips the table, a page fewer per call.
 * The key is the table's generation and the descriptor in one word; every change to the table
 * bumps hp_hot.io_fd_gen (never 0, and key 0 is never valid), which makes every thread look
 * again. A signal handler's I/O on the same thread may refill the cache between any two
 * instructions: a hit needs the same key before and after the record is read, and a refill that
 * finds its record replaced meanwhile leaves the cache empty. */
static inline struct hp_io_res *hp_io_res_of(struct hp_thread *t, int fd)
{
    uint64_t key = (uint64_t)atomic_load_explicit(&hp_hot.io_fd_gen, memory_order_acquire) << 32 | (uint32_t)fd;
    uint64_t before = t->io_key;
    atomic_signal_fence(memory_order_seq_cst);
    struct hp_io_res *r = t->io_res;
    atomic_signal_fence(memory_order_seq_cst);
    if (__builtin_expect(before == key && t->io_key == key, 1)) return r;
    r = hp_io_lookup(fd);
    if (__builtin_expect(r == NULL, 0)) return hp_io_find(fd);
    t->io_key = 0;
    atomic_signal_fence(memory_order_seq_cst);
    t->io_res = r;
    atomic_signal_fence(memory_order_seq_cst);
    t->io_key = key;
    atomic_signal_fence(memory_order_seq_cst);
    if (t->io_res != r) t->io_key = 0;
    return r;
}

/* ---- descriptors made and dropped (the hooks of open, close, dup, socket, ...) ---- */

/* fd now refers to a new instance of the resource named n (opened: counts an open). */
void hp_io_attach(int fd, const struct hp_io_name *n, int opened);
/* Two descriptors of one new instance (pipe, socketpair). */
void hp_io_attach_pair(const int fds[2], const struct hp_io_name *n);
/* newfd is a duplicate of oldfd (dup, dup2, dup3, F_DUPFD). */
void hp_io_dup(int oldfd, int newfd);
/* fd is about to be closed (counted as a close when known), or is free again. */
void hp_io_close(int fd);
void hp_io_close_range(unsigned first, unsigned last);
void hp_io_forget(int fd);
/* The path an open call names, made absolute (dirfd: AT_FDCWD or a directory descriptor). */
void hp_io_opened(int fd, int dirfd, const char *path, int flags);
/* A socket's name is known now: it connected, was accepted, listens. Reads its addresses itself
 * when addr is NULL. */
void hp_io_socket_named(int fd, enum hp_io_role role, const struct sockaddr *peer, socklen_t peer_len);

/* The wall time the resource was open (some descriptor referred to it), to now, in ns. A
 * descriptor the hooks did not see made (stdin, one inherited) counts from its first call. */
uint64_t hp_io_open_ns(const struct hp_io_res *r);

/* ---- counting (the calling thread t is counting: not NULL, guard clear) ---- */

/* The clock, with its source read from the hot page the hook reads anyway. */
static inline uint64_t hp_io_ticks(void)
{
    return hp_ticks_from(hp_hot.ticks_are_tsc);
}

/* 0 when this call is not timed, else its start. */
static inline uint64_t hp_io_start(struct hp_thread *t)
{
    uint32_t period = hp_hot.io_period;
    if (__builtin_expect(period == 1, 1)) return hp_io_ticks() | 1;
    if (period == 0) return 0;
    if (t->io_countdown) {
        t->io_countdown--;
        return 0;
    }
    uint64_t now = hp_io_ticks();
    t->io_countdown = hp_sample_gap(period, now ^ (uintptr_t)t) - 1;
    return now | 1;
}

static inline int hp_io_is_error(int err)
{
    return err != EAGAIN && err != EWOULDBLOCK && err != EINTR;
}

static inline void hp_io_max(_Atomic uint64_t *m, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(m, memory_order_relaxed);
    while (__builtin_expect(v > cur, 0) &&
           !atomic_compare_exchange_weak_explicit(m, &cur, v, memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* Time of a call started at t0 (0: untimed): to the thread, once per call. Returns the ticks it
 * counts for (scaled by the sampling period), 0 when untimed. */
static inline uint64_t hp_io_time(struct hp_thread *t, uint64_t t0, uint64_t *raw)
{
    if (!t0) {
        hp_count(&t->io_count, 1);
        *raw = 0;
        return 0;
    }
    uint64_t dt = hp_io_ticks() - (t0 & ~(uint64_t)1);
    if ((int64_t)dt < 0) dt = 0;
    uint64_t scaled = hp_hot.io_period == 1 ? dt : dt * hp_hot.io_period;
    hp_count(&t->io_ticks, scaled);
    hp_count(&t->io_count, 1);
    *raw = dt;
    return scaled;
}

/* The calling thread owns res (claimed at its first call when nobody has). */
static inline int hp_io_owns(struct hp_io_res *res, struct hp_thread *t)
{
    struct hp_thread *o = atomic_load_explicit(&res->owner, memory_order_relaxed);
    if (__builtin_expect(o == t, 1)) return 1;
    return o == NULL &&
           atomic_compare_exchange_strong_explicit(&res->owner, &o, t, memory_order_relaxed, memory_order_relaxed);
}

/* One call on the owner's counters: single writer, load + store. */
static inline __attribute__((always_inline)) void hp_io_own_add(struct hp_io_dir *d, uint64_t raw, uint64_t scaled, long r,
                                 uint64_t bytes)
{
    if (scaled) {
        hp_count(&d->ticks, scaled);
        hp_hist_add_owned(&d->hist, raw);
        if (raw > atomic_load_explicit(&d->max_ticks, memory_order_relaxed))
            atomic_store_explicit(&d->max_ticks, raw, memory_order_relaxed);
    } else {
        hp_count(&d->untimed, 1);
    }
    if (__builtin_expect(r < 0, 0)) {
        if (hp_io_is_error(errno)) hp_count(&d->errors, 1);
    } else if (bytes) {
        hp_count(&d->bytes, bytes);
    }
}

/* One call on the shared counters: atomic adds. */
static inline __attribute__((always_inline)) void hp_io_shared_add(struct hp_io_dir *d, uint64_t raw, uint64_t scaled, long r,
                                    uint64_t bytes)
{
    if (scaled) {
        atomic_fetch_add_explicit(&d->ticks, scaled, memory_order_relaxed);
        hp_hist_add(&d->hist, raw);
        hp_io_max(&d->max_ticks, raw);
    } else {
        atomic_fetch_add_explicit(&d->untimed, 1, memory_order_relaxed);
    }
    if (__builtin_expect(r < 0, 0)) {
        if (hp_io_is_error(errno)) atomic_fetch_add_explicit(&d->errors, 1, memory_order_relaxed);
    } else if (bytes) {
        atomic_fetch_add_explicit(&d->bytes, bytes, memory_order_relaxed);
    }
}

/* One call in one direction of res: result r (< 0: failed, errno says why), bytes moved when it
 * worked; raw and scaled from hp_io_time. */
static inline __attribute__((always_inline)) void hp_io_dir_add(struct hp_thread *t, struct hp_io_res *res, int write, uint64_t raw,
                                 uint64_t scaled, long r, uint64_t bytes)
{
    if (__builtin_expect(hp_io_owns(res, t), 1))
        hp_io_own_add(write ? &res->own_wr : &res->own_rd, raw, scaled, r, bytes);
    else
        hp_io_shared_add(write ? &res->wr : &res->rd, raw, scaled, r, bytes);
}

/* A call on one resource, one direction. Inlined into every hook: on this VM each call and return
 * that runs right after a system call costs 10-20 ns (a called hp_io_done measured ~15 ns more
 * per read than an inlined one), and it adds ~36 KB of text in all. */
static inline __attribute__((always_inline)) void hp_io_done(struct hp_thread *t, struct hp_io_res *res,
                                                             int write, uint64_t t0, long r, uint64_t bytes)
{
    uint64_t raw, scaled = hp_io_time(t, t0, &raw);
    hp_io_dir_add(t, res, write, raw, scaled, r, bytes);
}

/* ---- the report ---- */

/* Records made so far, in the order they were made; the `<other>` record is last when used. */
uint32_t hp_io_count(void);
struct hp_io_res *hp_io_at(uint32_t i);
/* Instances that found the table full and went to `<other>`. */
uint64_t hp_io_overflow(void);

/* Fork child: counters from zero, descriptors and names kept. */
void hp_io_fork_child(void);

#endif
