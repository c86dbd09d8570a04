/* mappings.c — see mappings.h. Two sorted arrays of disjoint [start, end) segments in pages of
 * their own (raw mmap syscalls, so they never re-enter the hooks), under one short spinlock: the
 * mmap family are system calls, far from the malloc path.
 *   regions   the program's counted mappings by address: accessible or reserved, anonymous or a
 *             memory file's (its id and the file offset of start)
 *   coverage  each memory file's accessible bytes by (id, offset), with how many mappings cover
 *             them: a file's bytes count once while any mapping covers them
 * The figures are kept as the arrays change, and a call's delta is the figures after less before,
 * so that what the threads are given always adds up to the figures. A segment that cannot be
 * stored (no memory for the arrays) is left out of both. */
#define _GNU_SOURCE
#include "mappings.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(__APPLE__)
#include <sys/syscall.h>
#endif

#include "core/spinlock.h"

enum { ACCESSIBLE = 1, RESERVED = 2 };

/* A region: kind, object (0 anonymous) and the object's offset at start. A coverage segment:
 * start and end are keys (object << KEY_SHIFT | offset), obj its count, off its start. */
struct seg { uint64_t start, end, off; uint32_t obj, kind; };
struct segs { struct seg *v; size_t n, cap; };

#define KEY_SHIFT 44                      /* file offsets below 16 TiB */
#define MAX_OBJECTS ((1u << (64 - KEY_SHIFT)) - 2)

struct object { uint64_t dev, ino; };

static struct {
    hp_spinlock lock;
    const void *_Atomic owner;            /* the thread holding the lock */
    struct segs regions, coverage;
    struct object *objects;
    uint32_t nobjects, cap_objects;
    uint64_t mapped, reserved;
} m = { .lock = HP_SPINLOCK_INIT };

static void *raw_grow(void *old, size_t size, size_t nsize)
{
#if defined(__APPLE__)
    /* no mremap; and a call from the interposing image itself is never interposed */
    void *p = mmap(NULL, nsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (old) {
        memcpy(p, old, size);
        munmap(old, size);
    }
    return p;
#else
    long r = old ? syscall(SYS_mremap, old, size, nsize, MREMAP_MAYMOVE)
                 : syscall(SYS_mmap, NULL, nsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return r == -1 ? NULL : (void *)r;
#endif
}

/* Room for extra more segments: 0, or -1 without memory. */
static int room(struct segs *a, size_t extra)
{
    if (a->n + extra <= a->cap) return 0;
    size_t ncap = a->cap ? a->cap : 4096 / sizeof *a->v;
    while (ncap < a->n + extra) ncap *= 2;
    void *p = raw_grow(a->v, a->cap * sizeof *a->v, ncap * sizeof *a->v);
    if (!p) return -1;
    a->v = p;
    a->cap = ncap;
    return 0;
}

/* First segment whose end is above x. */
static size_t first_after(const struct segs *a, uint64_t x)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->v[mid].end <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void insert_at(struct segs *a, size_t i, struct seg s)
{
    memmove(&a->v[i + 1], &a->v[i], (a->n - i) * sizeof *a->v);
    a->v[i] = s;
    a->n++;
}

static void remove_at(struct segs *a, size_t i)
{
    memmove(&a->v[i], &a->v[i + 1], (a->n - i - 1) * sizeof *a->v);
    a->n--;
}

/* No segment strictly contains x any more (it is split there): 0, or -1 without memory. */
static int split(struct segs *a, uint64_t x)
{
    size_t i = first_after(a, x);
    if (i == a->n || a->v[i].start >= x) return 0;
    if (room(a, 1) != 0) return -1;
    struct seg hi = a->v[i];
    hi.off += x - hi.start;
    hi.start = x;
    a->v[i].end = x;
    insert_at(a, i + 1, hi);
    return 0;
}

/* Both ends split: the index of the first segment inside [start, end). */
static int split_range(struct segs *a, uint64_t start, uint64_t end, size_t *first)
{
    if (split(a, start) != 0 || split(a, end) != 0) return -1;
    *first = first_after(a, start);
    return 0;
}

static int joins(const struct seg *x, const struct seg *y)
{
    return x->end == y->start && x->kind == y->kind && x->obj == y->obj && y->off == x->off + (x->end - x->start);
}

/* Merge the neighbours that continue each other, around [from, to). */
static void coalesce(struct segs *a, size_t from, size_t to)
{
    if (from > 0) from--;
    if (to > a->n) to = a->n;
    for (size_t i = from; i + 1 < a->n && i < to + 1;) {
        if (joins(&a->v[i], &a->v[i + 1])) {
            a->v[i].end = a->v[i + 1].end;
            remove_at(a, i + 1);
        } else {
            i++;
        }
    }
}

static uint64_t key(uint32_t obj, uint64_t off) { return ((uint64_t)obj << KEY_SHIFT) + off; }

/* A memory file's [off, off+len) as keys [*a, *b) of the coverage, split at both ends: 0, or -1
 * (past the keys' range, or no memory). */
static int coverage_range(uint32_t obj, uint64_t off, uint64_t len, uint64_t *a, uint64_t *b, size_t *first)
{
    *a = key(obj, off);
    *b = key(obj, off + len);
    return off + len > (1ull << KEY_SHIFT) ? -1 : split_range(&m.coverage, *a, *b, first);
}

/* A memory file's [off, off+len) is mapped accessible once more: the bytes no mapping covered. */
static uint64_t cover(uint32_t obj, uint64_t off, uint64_t len)
{
    struct segs *c = &m.coverage;
    uint64_t a, b, added = 0;
    size_t i;
    if (coverage_range(obj, off, len, &a, &b, &i) != 0) return 0;
    size_t from = i;
    for (uint64_t pos = a; pos < b;) {
        if (i < c->n && c->v[i].start == pos) {
            c->v[i].obj++;
            pos = c->v[i++].end;
            continue;
        }
        uint64_t gap_end = i < c->n && c->v[i].start < b ? c->v[i].start : b;
        if (room(c, 1) != 0) break;
        insert_at(c, i++, (struct seg){ pos, gap_end, pos, 1, 0 });
        added += gap_end - pos;
        pos = gap_end;
    }
    coalesce(c, from, i);
    return added;
}

/* One mapping of [off, off+len) less: the bytes no mapping covers now. */
static uint64_t uncover(uint32_t obj, uint64_t off, uint64_t len)
{
    struct segs *c = &m.coverage;
    uint64_t a, b, gone = 0;
    size_t i;
    if (coverage_range(obj, off, len, &a, &b, &i) != 0) return 0;
    size_t from = i;
    while (i < c->n && c->v[i].start < b) {
        if (c->v[i].obj > 1) {
            c->v[i++].obj--;
            continue;
        }
        gone += c->v[i].end - c->v[i].start;
        remove_at(c, i);
    }
    coalesce(c, from, i);
    return gone;
}

/* A region enters (sign 1) or leaves (-1) the figures. */
static void account(const struct seg *r, int sign)
{
    uint64_t len = r->end - r->start;
    if (r->kind == RESERVED) {
        m.reserved += sign > 0 ? len : -len;
    } else if (r->obj == 0) {
        m.mapped += sign > 0 ? len : -len;
    } else if (sign > 0) {
        m.mapped += cover(r->obj, r->off, len);
    } else {
        m.mapped -= uncover(r->obj, r->off, len);
    }
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

/* The lock, unless the calling thread holds it already (0 then: leave the call out). */
static int enter(const void *self, uint64_t *mapped, uint64_t *reserved)
{
    if (self && atomic_load_explicit(&m.owner, memory_order_relaxed) == self) return 0;
    hp_spin_lock(&m.lock);
    atomic_store_explicit(&m.owner, self, memory_order_relaxed);
    *mapped = m.mapped;
    *reserved = m.reserved;
    return 1;
}

static void leave(uint64_t mapped, uint64_t reserved, struct hp_mappings_delta *d)
{
    d->mapped = (int64_t)(m.mapped - mapped);
    d->reserved = (int64_t)(m.reserved - reserved);
    atomic_store_explicit(&m.owner, NULL, memory_order_relaxed);
    hp_spin_unlock(&m.lock);
}

/* Caller holds the lock: [start, end) is no longer mapped. */
static void cut(uint64_t start, uint64_t end)
{
    struct segs *r = &m.regions;
    size_t i;
    if (split_range(r, start, end, &i) != 0) {
        /* no room to split: drop whole regions it touches, so the figures stay the table's */
        i = first_after(r, start);
    }
    while (i < r->n && r->v[i].start < end) {
        account(&r->v[i], -1);
        remove_at(r, i);
    }
}

/* Caller holds the lock: a new region (after cut). */
static void place(struct seg s)
{
    struct segs *r = &m.regions;
    if (s.start >= s.end || room(r, 1) != 0) return;
    size_t i = first_after(r, s.start);
    insert_at(r, i, s);
    account(&r->v[i], 1);
    coalesce(r, i, i + 1);
}

/* Caller holds the lock: the id of a memory file (made on first sight), 0 when the table is full. */
static uint32_t object_id(uint64_t dev, uint64_t ino)
{
    for (uint32_t i = 0; i < m.nobjects; i++)
        if (m.objects[i].dev == dev && m.objects[i].ino == ino) return i + 1;
    if (m.nobjects >= MAX_OBJECTS) return 0;
    if (m.nobjects == m.cap_objects) {
        uint32_t ncap = m.cap_objects ? m.cap_objects * 2 : 4096 / sizeof *m.objects;
        void *p = raw_grow(m.objects, m.cap_objects * sizeof *m.objects, ncap * sizeof *m.objects);
        if (!p) return 0;
        m.objects = p;
        m.cap_objects = ncap;
    }
    m.objects[m.nobjects++] = (struct object){ dev, ino };
    return m.nobjects;
}

void hp_mappings_map(const void *self, uintptr_t start, uint64_t len, int prot,
                     const struct hp_mapping_src *src, struct hp_mappings_delta *d)
{
    uint64_t was_m, was_r;
    *d = (struct hp_mappings_delta){ 0 };
    if (!enter(self, &was_m, &was_r)) return;
    uint64_t end = start + page_round(len);
    cut(start, end);                      /* MAP_FIXED over old regions replaces them */
    uint32_t obj = src->kind == HP_MAP_FILE ? object_id(src->dev, src->ino) : 0;
    if (src->kind == HP_MAP_ANON || obj)
        place((struct seg){ start, end, obj ? src->offset : 0, obj, prot == PROT_NONE ? RESERVED : ACCESSIBLE });
    leave(was_m, was_r, d);
}

void hp_mappings_unmap(const void *self, uintptr_t start, uint64_t len, struct hp_mappings_delta *d)
{
    uint64_t was_m, was_r;
    *d = (struct hp_mappings_delta){ 0 };
    if (!enter(self, &was_m, &was_r)) return;
    cut(start, start + page_round(len));
    leave(was_m, was_r, d);
}

void hp_mappings_protect(const void *self, uintptr_t start, uint64_t len, int prot, struct hp_mappings_delta *d)
{
    uint64_t was_m, was_r;
    *d = (struct hp_mappings_delta){ 0 };
    if (!enter(self, &was_m, &was_r)) return;
    struct segs *r = &m.regions;
    uint64_t end = start + page_round(len);
    uint32_t kind = prot == PROT_NONE ? RESERVED : ACCESSIBLE;
    size_t i;
    if (split_range(r, start, end, &i) == 0) {
        size_t from = i;
        for (; i < r->n && r->v[i].start < end; i++) {
            if (r->v[i].kind == kind) continue;
            account(&r->v[i], -1);
            r->v[i].kind = kind;
            account(&r->v[i], 1);
        }
        coalesce(r, from, i);
    }
    leave(was_m, was_r, d);
}

void hp_mappings_remap(const void *self, uintptr_t old, uint64_t old_len, uintptr_t now, uint64_t new_len,
                       int keep_old, struct hp_mappings_delta *d)
{
    uint64_t was_m, was_r;
    *d = (struct hp_mappings_delta){ 0 };
    if (!enter(self, &was_m, &was_r)) return;
    struct segs *r = &m.regions;
    old_len = page_round(old_len);
    new_len = page_round(new_len);
    uint64_t kept = old_len < new_len ? old_len : new_len;
    /* what the growth continues: the region that ended the old range, if one did */
    struct seg last = { 0 };
    size_t li = first_after(r, old + old_len - 1);
    int grows = new_len > old_len && old_len && li < r->n && r->v[li].start < old + old_len &&
                r->v[li].end >= old + old_len;
    if (grows) last = r->v[li];
    if (now == old) {
        cut(old + kept, old + old_len);   /* shrunk */
    } else {
        cut(now, now + new_len);          /* the kernel unmapped whatever was there */
        /* move (or, keep_old, copy) the regions of the kept part one at a time */
        for (uint64_t pos = old; pos < old + kept;) {
            size_t i = first_after(r, pos);
            if (i == r->n || r->v[i].start >= old + kept) break;
            struct seg s = r->v[i];
            if (s.start < pos) { s.off += pos - s.start; s.start = pos; }
            if (s.end > old + kept) s.end = old + kept;
            pos = s.end;
            if (!keep_old) cut(s.start, s.end);   /* kept: the old pages stay mapped, emptied */
            struct seg moved = s;
            moved.start = s.start - old + now;
            moved.end = s.end - old + now;
            place(moved);
        }
        if (!keep_old) cut(old, old + old_len);
    }
    if (grows) {
        struct seg g = last;
        g.off = last.off + (old + old_len - last.start);
        g.start = now + old_len;
        g.end = now + new_len;
        place(g);
    }
    leave(was_m, was_r, d);
}


void hp_mappings_figures(uint64_t *mapped, uint64_t *reserved)
{
    /* a report made by a signal handler that interrupted the table on its thread would wait for
     * itself: after a bounded wait the figures are read as they are */
    int locked = 0;
    for (unsigned spins = 0; spins < 100000; spins++) {
        if (!atomic_flag_test_and_set_explicit(&m.lock.held, memory_order_acquire)) { locked = 1; break; }
        if (spins % 64 == 63) sched_yield();
    }
    *mapped = __atomic_load_n(&m.mapped, __ATOMIC_RELAXED);
    *reserved = __atomic_load_n(&m.reserved, __ATOMIC_RELAXED);
    if (locked) hp_spin_unlock(&m.lock);
}

void hp_mappings_reset_in_child(void)
{
    /* another thread of the parent may have held the lock: the child starts empty, its pages
     * left to copy-on-write */
    atomic_flag_clear(&m.lock.held);
    atomic_store_explicit(&m.owner, NULL, memory_order_relaxed);
    m.regions.n = m.coverage.n = 0;
    m.mapped = m.reserved = 0;
}
