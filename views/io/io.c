/* io.c — see io.h. Everything here runs on the paths that make, drop or first meet a descriptor,
 * never on a read or write of a known one. Those paths set the calling thread's guard while they
 * hold a lock, so a signal handler doing I/O meanwhile passes through instead of waiting on it. */
#define _GNU_SOURCE
#include "io.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/memory.h"
#include "core/spinlock.h"
#include "io_settings.h"

#define MAX_RES 4096u             /* records; then `<other>` */
#define HTAB (2 * MAX_RES)        /* open addressing, at most half full */
#define CHUNK 32u                 /* records per page-backed chunk */
#define FDTAB_MIN 1024u
#define FDTAB_MAX (1u << 24)      /* descriptors above this are named on every call, not kept */
#define NAMES_CHUNK (64u * 1024)

/* The view's state: the locks, the records (their hash table, list, pages and strings, and
 * `<other>`), and the settings read on first use. */
static struct {
    hp_spinlock fd_lock;              /* fd table changes and growth */
    hp_spinlock res_lock;             /* record inserts */
    struct hp_io_res *_Atomic htab[HTAB];
    struct hp_io_res *recs[MAX_RES];
    _Atomic uint32_t nrec;
    struct hp_io_res *chunk;
    uint32_t chunk_used;
    char *names;                      /* the records' strings, page-backed like them */
    size_t names_used;
    struct hp_io_res other;
    _Atomic int other_used;
    _Atomic uint64_t overflow;
    _Atomic uint64_t seq;
    int iter;
    _Atomic int settled;
} io = {
    .fd_lock = HP_SPINLOCK_INIT,
    .res_lock = HP_SPINLOCK_INIT,   /* all zero: the tables stay in .bss */
};

/* ---- the guard: profiler work on a program thread ---- */

struct quiet { struct hp_thread *t; int err; };

static struct quiet enter(void)
{
    struct quiet q = { hp_self, errno };
    if (q.t) q.t->guard++;
    return q;
}

static void leave(struct quiet q)
{
    if (q.t) q.t->guard--;
    errno = q.err;
}

/* ---- settings: the hooks may run before the constructor parsed them ---- */

static void settle(void)
{
    if (atomic_load_explicit(&io.settled, memory_order_acquire)) return;
    if (atomic_exchange(&io.settled, 1)) return;
    hp_hot.io_period = hp_io_settings.time_period;
    io.iter = hp_io_settings.iter;
    pthread_atfork(NULL, NULL, hp_io_fork_child);
}

/* ---- records ---- */

static struct hp_io_res *other_record(void)
{
    if (!atomic_load_explicit(&io.other_used, memory_order_acquire)) {
        hp_spin_lock(&io.res_lock);
        if (!io.other.key) {
            io.other.key = io.other.pattern = io.other.first = "<other>";
            io.other.kind = HP_IO_OTHER;
        }
        atomic_store_explicit(&io.other_used, 1, memory_order_release);
        hp_spin_unlock(&io.res_lock);
    }
    atomic_fetch_add_explicit(&io.overflow, 1, memory_order_relaxed);
    return &io.other;
}

static struct hp_io_res *probe(const char *key, uint32_t h, uint32_t *slot)
{
    for (uint32_t k = 0; k < HTAB; k++) {
        uint32_t i = (h + k) & (HTAB - 1);
        struct hp_io_res *r = atomic_load_explicit(&io.htab[i], memory_order_acquire);
        if (!r) {
            *slot = i;
            return NULL;
        }
        if (r->hash == h && strcmp(r->key, key) == 0) return r;
    }
    *slot = HTAB;
    return NULL;
}

/* A record's string, kept as long as the record: in pages, not in the profiler's heap, because
 * this runs in the program's threads, and mimalloc gives each thread that allocates a heap and a
 * segment of its own (32 MiB of address space apiece). Caller holds res_lock. */
static char *keep_string(const char *s)
{
    size_t n = strlen(s) + 1, used = io.names_used;
    if (!io.names || n > NAMES_CHUNK - used) {
        char *c = n <= NAMES_CHUNK ? hp_pages(NAMES_CHUNK) : NULL;
        if (!c) return NULL;
        io.names = c;
        used = 0;
    }
    char *d = io.names + used;
    memcpy(d, s, n);
    io.names_used = used + n;   /* one store: a fork child that copied us half way stays in bounds */
    return d;
}

/* caller holds res_lock */
static struct hp_io_res *new_record(const char *key, uint32_t h, const struct hp_io_name *n)
{
    uint32_t i = atomic_load_explicit(&io.nrec, memory_order_relaxed);
    if (i >= MAX_RES) return NULL;
    if (!io.chunk || io.chunk_used == CHUNK) {
        struct hp_io_res *c = hp_pages(CHUNK * sizeof *c);
        if (!c) return NULL;
        io.chunk = c;
        io.chunk_used = 0;
    }
    char *k = keep_string(key), *p = k ? keep_string(n->pattern) : NULL;
    char *f = p ? keep_string(n->name) : NULL;
    if (!f) return NULL;
    struct hp_io_res *r = &io.chunk[io.chunk_used++];
    r->key = k;
    r->pattern = p;
    r->first = f;
    r->hash = h;
    r->kind = n->kind;
    r->accepted = n->accepted;
    io.recs[i] = r;
    atomic_store_explicit(&io.nrec, i + 1, memory_order_release);
    return r;
}

/* The record a named instance belongs to; never NULL. */
static struct hp_io_res *record_for(const struct hp_io_name *n, int counted)
{
    char key[HP_IO_NAME_MAX + 32];
    uint64_t s = counted && io.iter ? atomic_fetch_add_explicit(&io.seq, 1, memory_order_relaxed) : 0;
    if (hp_io_key(n, counted && io.iter, s, key, sizeof key) != 0) return other_record();
    uint32_t h = hp_io_hash(key), slot;
    struct hp_io_res *r = probe(key, h, &slot);
    if (r) return r;
    hp_spin_lock(&io.res_lock);
    r = probe(key, h, &slot);
    if (!r && slot < HTAB && (r = new_record(key, h, n)))
        atomic_store_explicit(&io.htab[slot], r, memory_order_release);
    hp_spin_unlock(&io.res_lock);
    return r ? r : other_record();
}

uint32_t hp_io_count(void)
{
    return atomic_load_explicit(&io.nrec, memory_order_acquire) +
           (atomic_load_explicit(&io.other_used, memory_order_acquire) ? 1 : 0);
}

struct hp_io_res *hp_io_at(uint32_t i)
{
    uint32_t n = atomic_load_explicit(&io.nrec, memory_order_acquire);
    return i < n ? io.recs[i] : &io.other;
}

uint64_t hp_io_overflow(void)
{
    return atomic_load_explicit(&io.overflow, memory_order_relaxed);
}

/* ---- the fd table (caller holds fd_lock) ---- */

/* A slot changed: threads' cached lookups (hp_io_res_of) are stale. Only fd_lock's holder writes
 * the generation; 0 is skipped (a new thread state's key is 0). */
static void changed(void)
{
    uint32_t next = atomic_load_explicit(&hp_hot.io_fd_gen, memory_order_relaxed) + 1;
    atomic_store_explicit(&hp_hot.io_fd_gen, next ? next : 1, memory_order_release);
}

static struct hp_fdtab *grow(unsigned fd)
{
    struct hp_fdtab *old = atomic_load_explicit(&hp_hot.io_fdtab, memory_order_relaxed);
    if (fd >= FDTAB_MAX) return NULL;
    uint32_t cap = old->cap ? old->cap : FDTAB_MIN;
    while (cap <= fd) cap *= 2;
    struct hp_fdtab *tab = hp_pages(sizeof *tab + (size_t)cap * sizeof tab->slot[0]);
    if (!tab) return NULL;
    tab->cap = cap;
    for (uint32_t i = 0; i < old->cap; i++)
        atomic_store_explicit(&tab->slot[i], atomic_load_explicit(&old->slot[i], memory_order_relaxed),
                              memory_order_relaxed);
    /* the old array stays mapped: a reader may still be looking at it */
    atomic_store_explicit(&hp_hot.io_fdtab, tab, memory_order_release);
    return tab;
}

/* One more (or one fewer) descriptor refers to r, at now: its open span starts or ends. Under
 * the fd table's lock. */
static void open_count(struct hp_io_res *r, int more, uint64_t now)
{
    if (!r) return;
    uint64_t fds = atomic_load_explicit(&r->open_fds, memory_order_relaxed);
    if (more) {
        if (fds == 0) atomic_store_explicit(&r->open_since, now, memory_order_relaxed);
        atomic_store_explicit(&r->open_fds, fds + 1, memory_order_release);
    } else if (fds > 0) {
        if (fds == 1) {
            uint64_t since = atomic_load_explicit(&r->open_since, memory_order_relaxed);
            atomic_fetch_add_explicit(&r->open_ticks, now > since ? now - since : 0, memory_order_relaxed);
        }
        atomic_store_explicit(&r->open_fds, fds - 1, memory_order_release);
    }
}

uint64_t hp_io_open_ns(const struct hp_io_res *r)
{
    uint64_t ticks = atomic_load_explicit(&r->open_ticks, memory_order_relaxed);
    if (atomic_load_explicit(&r->open_fds, memory_order_acquire)) {
        uint64_t since = atomic_load_explicit(&r->open_since, memory_order_relaxed), now = hp_ticks();
        if (now > since) ticks += now - since;
    }
    return hp_ticks_to_ns(ticks);
}

/* Set fd's record; the one it replaces, or NULL. */
static struct hp_io_res *put(int fd, struct hp_io_res *r)
{
    if (fd < 0) return NULL;
    struct hp_fdtab *tab = atomic_load_explicit(&hp_hot.io_fdtab, memory_order_relaxed);
    if ((unsigned)fd >= tab->cap) {
        if (!r || !(tab = grow((unsigned)fd))) return NULL;
    }
    struct hp_io_res *prev = atomic_exchange_explicit(&tab->slot[fd], r, memory_order_relaxed);
    changed();
    if (prev != r) {
        uint64_t now = hp_ticks();
        open_count(prev, 0, now);
        open_count(r, 1, now);
    }
    return prev;
}

/* ---- naming what the hooks did not see made ---- */

static long sys_readlink_fd(int fd, char *buf, size_t size)
{
    char path[40];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    long n = syscall(SYS_readlinkat, AT_FDCWD, path, buf, size - 1);
    if (n < 0) n = 0;
    buf[n] = 0;
    return n;
}

static int sockopt(int fd, int opt)
{
    int v = -1;
    socklen_t len = sizeof v;
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, opt, &v, &len) != 0) return -1;
    return v;
}

static void name_socket(int fd, struct hp_io_name *n, int role, const struct sockaddr *peer,
                        socklen_t peer_len)
{
    struct sockaddr_storage local, p;
    socklen_t llen = sizeof local, plen = sizeof p;
    int family = sockopt(fd, SO_DOMAIN), type = sockopt(fd, SO_TYPE);
    if (syscall(SYS_getsockname, fd, &local, &llen) != 0) llen = 0;
    if (role < 0) {
        if (sockopt(fd, SO_ACCEPTCONN) == 1) role = HP_IO_LISTENING;
        else role = syscall(SYS_getpeername, fd, &p, &plen) == 0 ? HP_IO_CONNECTED : HP_IO_UNCONNECTED;
        if (role != HP_IO_CONNECTED) plen = 0;
        peer = (struct sockaddr *)&p;
        peer_len = plen;
    } else if (!peer && role != HP_IO_LISTENING) {
        if (syscall(SYS_getpeername, fd, &p, &plen) != 0) plen = 0;
        peer = (struct sockaddr *)&p;
        peer_len = plen;
    }
    if (peer_len > sizeof(struct sockaddr_storage)) peer_len = sizeof(struct sockaddr_storage);
    if (llen > sizeof local) llen = sizeof local;
    hp_io_name_socket(n, fd, family, type, (enum hp_io_role)role, llen ? (struct sockaddr *)&local : NULL,
                      llen, peer_len ? peer : NULL, peer_len);
}

static void describe(int fd, const struct stat *st, struct hp_io_name *n)
{
    char link[HP_IO_NAME_MAX];
    if (S_ISSOCK(st->st_mode) && fd > 2) {
        name_socket(fd, n, -1, NULL, 0);
        return;
    }
    sys_readlink_fd(fd, link, sizeof link);
    hp_io_name_found(n, fd, st->st_mode, link);
}

/* Count a new instance of n on fd. */
static struct hp_io_res *attach(int fd, const struct hp_io_name *n, int opened, int only_if_free)
{
    struct hp_io_res *r = record_for(n, 1);
    atomic_fetch_add_explicit(&r->inst, 1, memory_order_relaxed);
    if (opened) atomic_fetch_add_explicit(&r->opens, 1, memory_order_relaxed);
    hp_spin_lock(&io.fd_lock);
    if (only_if_free) {
        struct hp_io_res *now = hp_io_lookup(fd);
        if (now) {
            /* another thread named it first: count there */
            atomic_fetch_sub_explicit(&r->inst, 1, memory_order_relaxed);
            r = now;
        } else {
            put(fd, r);
        }
    } else {
        put(fd, r);
    }
    hp_spin_unlock(&io.fd_lock);
    return r;
}

/* Whether this thread runs on an alternate signal stack with little room left: Rust's and Go's
 * handlers run on 8 KB ones, and naming a descriptor (the /proc link, socket addresses, the
 * formatted name) takes several KB more than writing to it; a handler that reports a stack
 * overflow on fd 2 died by SIGSEGV instead. */
static int on_small_signal_stack(void)
{
    stack_t ss;
    if (syscall(SYS_sigaltstack, NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK)) return 0;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo = (uintptr_t)ss.ss_sp;
    return sp < lo || sp - lo < 32768;
}

static __attribute__((noinline)) struct hp_io_res *find_named(int fd)
{
    settle();
    struct hp_io_name n;
    struct stat st;
    struct hp_io_res *r;
    if (fd < 0 || syscall(SYS_fstat, fd, &st) != 0) {
        snprintf(n.name, sizeof n.name, "fd %d (bad)", fd);
        memcpy(n.pattern, n.name, sizeof n.pattern);
        n.kind = HP_IO_OTHER;
        n.accepted = 0;
        r = record_for(&n, 0);
    } else {
        describe(fd, &st, &n);
        r = attach(fd, &n, 0, 1);
    }
    return r;
}

struct hp_io_res *hp_io_find(int fd)
{
    struct quiet q = enter();
    /* there: counted under <other>, and named at its next call from an ordinary stack */
    struct hp_io_res *r = on_small_signal_stack() ? other_record() : find_named(fd);
    leave(q);
    return r;
}

/* ---- descriptors made and dropped ---- */

void hp_io_attach(int fd, const struct hp_io_name *n, int opened)
{
    struct quiet q = enter();
    settle();
    attach(fd, n, opened, 0);
    leave(q);
}

void hp_io_attach_pair(const int fds[2], const struct hp_io_name *n)
{
    struct quiet q = enter();
    settle();
    struct hp_io_res *r = record_for(n, 1);
    atomic_fetch_add_explicit(&r->inst, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->opens, 2, memory_order_relaxed);   /* two descriptors, each closed */
    hp_spin_lock(&io.fd_lock);
    put(fds[0], r);
    put(fds[1], r);
    hp_spin_unlock(&io.fd_lock);
    leave(q);
}

void hp_io_dup(int oldfd, int newfd)
{
    if (oldfd == newfd || newfd < 0) return;
    struct hp_io_res *r = hp_io_lookup(oldfd);
    if (!r) r = hp_io_find(oldfd);
    struct quiet q = enter();
    hp_spin_lock(&io.fd_lock);
    struct hp_io_res *prev = put(newfd, r);
    hp_spin_unlock(&io.fd_lock);
    if (prev) atomic_fetch_add_explicit(&prev->closes, 1, memory_order_relaxed);   /* dup2 closed it */
    leave(q);
}

void hp_io_close(int fd)
{
    if (hp_io_lookup(fd) == NULL) return;
    struct quiet q = enter();
    hp_spin_lock(&io.fd_lock);
    struct hp_io_res *prev = put(fd, NULL);
    hp_spin_unlock(&io.fd_lock);
    if (prev) atomic_fetch_add_explicit(&prev->closes, 1, memory_order_relaxed);
    leave(q);
}

void hp_io_forget(int fd)
{
    if (hp_io_lookup(fd) == NULL) return;
    struct quiet q = enter();
    hp_spin_lock(&io.fd_lock);
    put(fd, NULL);
    hp_spin_unlock(&io.fd_lock);
    leave(q);
}

void hp_io_close_range(unsigned first, unsigned last)
{
    struct quiet q = enter();
    hp_spin_lock(&io.fd_lock);
    struct hp_fdtab *tab = atomic_load_explicit(&hp_hot.io_fdtab, memory_order_relaxed);
    uint64_t now = hp_ticks();
    for (unsigned fd = first; fd < tab->cap && fd <= last; fd++) {
        struct hp_io_res *prev = atomic_exchange_explicit(&tab->slot[fd], NULL, memory_order_relaxed);
        if (prev) atomic_fetch_add_explicit(&prev->closes, 1, memory_order_relaxed);
        open_count(prev, 0, now);
    }
    changed();
    hp_spin_unlock(&io.fd_lock);
    leave(q);
}

void hp_io_opened(int fd, int dirfd, const char *path, int flags)
{
    struct quiet q = enter();
    settle();
    char base[HP_IO_NAME_MAX], abs[HP_IO_NAME_MAX];
    base[0] = 0;
    if (path[0] != '/') {
        if (dirfd == AT_FDCWD) {
            if (syscall(SYS_getcwd, base, sizeof base) < 0) base[0] = 0;
        } else {
            sys_readlink_fd(dirfd, base, sizeof base);
        }
    }
    if (hp_io_abs_path(base, path, abs, sizeof abs) != 0) {
        memcpy(abs, path, sizeof abs - 1);
        abs[sizeof abs - 1] = 0;
    }
    /* The kind of what a path names takes an fstat: a server opening the same file for every
     * request would pay a system call each time. The kind of recently opened paths is kept in
     * a small table, one word per entry (hash and kind), so only a new path costs the fstat. */
    static _Atomic uint64_t kinds[64];
    uint32_t h = hp_io_hash(abs);
    uint64_t cached = atomic_load_explicit(&kinds[h % 64], memory_order_relaxed);
    enum hp_io_kind kind = HP_IO_FILE;
    struct stat st;
    if (cached && cached >> 8 == h) {
        kind = (enum hp_io_kind)(cached & 0xff);
    } else if (syscall(SYS_fstat, fd, &st) == 0) {
        switch (st.st_mode & S_IFMT) {
        case S_IFDIR: kind = HP_IO_DIR; break;
        case S_IFIFO: kind = HP_IO_FIFO; break;
        case S_IFCHR: kind = hp_io_char_kind(abs); break;
        case S_IFBLK: kind = HP_IO_BLOCK; break;
        default: break;
        }
        atomic_store_explicit(&kinds[h % 64], (uint64_t)h << 8 | kind, memory_order_relaxed);
    } else if (flags & O_DIRECTORY) {
        kind = HP_IO_DIR;
    }
    struct hp_io_name n;
    hp_io_name_path(&n, abs, kind);
    attach(fd, &n, 1, 0);
    leave(q);
}

void hp_io_socket_named(int fd, enum hp_io_role role, const struct sockaddr *peer, socklen_t peer_len)
{
    struct quiet q = enter();
    settle();
    struct hp_io_name n;
    name_socket(fd, &n, (int)role, peer, peer_len);
    attach(fd, &n, role != HP_IO_UNCONNECTED, 0);
    leave(q);
}

/* ---- fork: the child counts from zero ---- */

static void zero(struct hp_io_res *r)
{
    struct hp_io_dir *dirs[4] = { &r->rd, &r->wr, &r->own_rd, &r->own_wr };
    r->owner = NULL;
    for (int k = 0; k < 4; k++) {
        struct hp_io_dir *d = dirs[k];
        d->bytes = d->ticks = d->untimed = d->errors = d->max_ticks = d->flush_ticks = 0;
        memset(&d->hist, 0, sizeof d->hist);
    }
    r->inst = r->opens = r->closes = r->seeks = r->syncs = r->sync_ticks = 0;
    r->open_fds = r->open_ticks = 0;
}

void hp_io_fork_child(void)
{
    /* only the forking thread lives on: a lock another thread held is free now */
    io.fd_lock = (hp_spinlock)HP_SPINLOCK_INIT;
    io.res_lock = (hp_spinlock)HP_SPINLOCK_INIT;
    uint32_t n = atomic_load(&io.nrec);
    for (uint32_t i = 0; i < n; i++) zero(io.recs[i]);
    zero(&io.other);
    io.overflow = 0;
    /* a descriptor the child inherited open is an instance of its resource here too (its row
     * showed Inst 0 beside the child's own reads and writes) */
    struct hp_fdtab *tab = atomic_load_explicit(&hp_hot.io_fdtab, memory_order_relaxed);
    uint64_t now = hp_ticks();
    for (uint32_t fd = 0; fd < tab->cap; fd++) {
        struct hp_io_res *r = atomic_load_explicit(&tab->slot[fd], memory_order_relaxed);
        if (r && !r->inst) r->inst = 1;
        open_count(r, 1, now);      /* open in the child from its start */
    }
}
