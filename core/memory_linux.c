/* memory_linux.c — the heap under the profiler's own memory on Linux (memory_heap.h), in two
 * stages. First an early heap of its own: blocks cut in order from page-backed chunks, lock-free,
 * zero as mapped and never reused (a free gives nothing back), so a process that lives a few
 * milliseconds never loads an allocator (opening mimalloc and its first segment cost a
 * /bin/true a quarter of a millisecond). Then, once the sampler starts (hp_memory_settle, on its
 * thread), mimalloc, whose shared library also defines malloc and operator new, so it is opened
 * RTLD_LOCAL: its symbols stay out of the global scope and the program's allocator is untouched.
 * Without it, glibc's internal entry points (__libc_*) serve, which no hook sees. A block goes
 * back to the heap that made it: early blocks are known by their chunk. A fork child cuts its new
 * blocks early again until its own sampler starts (hp_memory_restart_in_child): mimalloc's first
 * blocks on a thread of its own take a heap and a page per size class, some fifty page faults,
 * more than the rest of a short child's profiling. */
#define _GNU_SOURCE
#include "memory.h"
#include "memory_heap.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

#define EARLY_CHUNK_BYTES (1u << 20)
#define EARLY_CHUNKS 64           /* 64 MB in all; past that allocations fail until it settles */
#define EARLY_ALIGN 16

/* An early block: its size in the 16 bytes before it (blocks stay 16-byte aligned). */
struct early_head {
    size_t size;
    size_t pad;
};

struct late_heap {
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    size_t (*usable)(void *);
};

static size_t libc_usable_size(void *p);

static struct {
    char *_Atomic base[EARLY_CHUNKS];        /* chunk i, NULL until mapped */
    size_t len[EARLY_CHUNKS];                /* its length (a big block has a chunk of its own) */
    _Atomic size_t used[EARLY_CHUNKS];       /* bytes cut from it */
    _Atomic unsigned current;                /* the chunk blocks are cut from now */
    _Atomic unsigned nchunks;                /* chunks claimed so far */
    size_t (*libc_usable)(void *);           /* glibc's own: the global one may be another allocator's */
    struct late_heap late;                   /* mimalloc, or glibc's internal entry points */
    _Atomic int settled;                     /* new blocks come from late */
    int late_chosen;                         /* late was chosen (in this process or before its fork) */
} heap = { .late = { __libc_calloc, __libc_realloc, __libc_free, libc_usable_size } };

static void *map(size_t n)
{
    /* a raw syscall: the program's mmap may be hooked, and this runs inside malloc hooks */
    long r = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return r == -1 ? NULL : (void *)r;
}

static int early_chunk_of(const void *p)
{
    unsigned n = atomic_load_explicit(&heap.nchunks, memory_order_acquire);
    for (unsigned i = 0; i < n && i < EARLY_CHUNKS; i++) {
        const char *b = atomic_load_explicit(&heap.base[i], memory_order_acquire);
        if (b && (const char *)p >= b && (const char *)p < b + heap.len[i]) return (int)i;
    }
    return -1;
}

/* A new chunk of len bytes: its index, -1 when none is left or it cannot be mapped. */
static int new_chunk(size_t len)
{
    unsigned i = atomic_fetch_add(&heap.nchunks, 1);
    if (i >= EARLY_CHUNKS) return -1;
    char *b = map(len);
    heap.len[i] = b ? len : 0;
    atomic_store_explicit(&heap.base[i], b, memory_order_release);
    return b ? (int)i : -1;
}

static size_t rounded(size_t n)
{
    return (n + sizeof(struct early_head) + EARLY_ALIGN - 1) & ~(size_t)(EARLY_ALIGN - 1);
}

static void *cut(int chunk, size_t off, size_t n)
{
    struct early_head *h = (struct early_head *)(void *)(atomic_load(&heap.base[chunk]) + off);
    h->size = n;
    return h + 1;
}

static void *early_alloc(size_t n)
{
    size_t need = rounded(n);
    if (need < n) return NULL;
    if (need > EARLY_CHUNK_BYTES / 4) {        /* a big block: a chunk of its own */
        int c = new_chunk((need + 4095) & ~(size_t)4095);
        if (c < 0) return NULL;
        atomic_store(&heap.used[c], need);
        return cut(c, 0, n);
    }
    for (;;) {
        unsigned i = atomic_load(&heap.current);
        if (i >= EARLY_CHUNKS) return NULL;
        if (!atomic_load_explicit(&heap.base[i], memory_order_acquire) || heap.len[i] != EARLY_CHUNK_BYTES) {
            /* the current chunk is missing (not yet made, or a big block's): make one */
            int c = new_chunk(EARLY_CHUNK_BYTES);
            if (c < 0) return NULL;
            atomic_compare_exchange_strong(&heap.current, &i, (unsigned)c);
            continue;
        }
        size_t off = atomic_fetch_add(&heap.used[i], need);
        if (off + need <= EARLY_CHUNK_BYTES) return cut((int)i, off, n);
        int c = new_chunk(EARLY_CHUNK_BYTES);
        if (c < 0) return NULL;
        atomic_compare_exchange_strong(&heap.current, &i, (unsigned)c);
    }
}

static size_t early_size(const void *p)
{
    return ((const struct early_head *)p - 1)->size;
}

/* An early block grows where it is when it is its chunk's last, else moves (to the late heap once
 * there is one). */
static void *early_realloc(int chunk, void *p, size_t n)
{
    size_t old = early_size(p);
    char *b = atomic_load(&heap.base[chunk]);
    size_t start = (size_t)((char *)p - b) - sizeof(struct early_head);
    size_t end = start + rounded(old), want = start + rounded(n);
    if (!atomic_load(&heap.settled) && want <= heap.len[chunk] &&
        atomic_compare_exchange_strong(&heap.used[chunk], &end, want)) {
        if (n > old) memset((char *)p + old, 0, n - old);   /* what an earlier, longer block left */
        ((struct early_head *)p - 1)->size = n;
        return p;
    }
    void *q = atomic_load(&heap.settled) ? heap.late.calloc(1, n) : early_alloc(n);
    if (q) memcpy(q, p, old < n ? old : n);
    return q;
}

static void *heap_calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) return NULL;
    if (atomic_load_explicit(&heap.settled, memory_order_acquire)) return heap.late.calloc(1, total);
    return early_alloc(total);   /* NULL when full: a late block now would be freed into mimalloc */
}

/* A late block while early blocks are cut (a fork child before its sampler): moved to an early
 * one, so the late heap makes nothing on this thread. */
static void *late_to_early(void *p, size_t n)
{
    void *q = early_alloc(n);
    if (!q) return NULL;
    size_t old = heap.late.usable(p);
    memcpy(q, p, old < n ? old : n);
    heap.late.free(p);
    return q;
}

static void *heap_realloc(void *p, size_t n)
{
    if (!p) return heap_calloc(1, n);
    int c = early_chunk_of(p);
    if (c >= 0) return early_realloc(c, p, n);
    return atomic_load_explicit(&heap.settled, memory_order_acquire) ? heap.late.realloc(p, n) : late_to_early(p, n);
}

static void heap_free(void *p)
{
    if (p && early_chunk_of(p) < 0) heap.late.free(p);
}

/* An early block counts 0: the early heap counts whole, what was cut from it (freed or not,
 * nothing goes back), in hp_heap_early_bytes. */
static size_t heap_usable(void *p)
{
    return early_chunk_of(p) >= 0 ? 0 : heap.late.usable(p);
}

size_t hp_heap_early_bytes(void)
{
    size_t total = 0;
    unsigned n = atomic_load(&heap.nchunks);
    for (unsigned i = 0; i < n && i < EARLY_CHUNKS; i++) {
        size_t used = atomic_load(&heap.used[i]);
        if (atomic_load(&heap.base[i])) total += used < heap.len[i] ? used : heap.len[i];
    }
    return total;
}

static size_t libc_usable_size(void *p)
{
    return heap.libc_usable ? heap.libc_usable(p) : 0;
}

struct hp_heap hp_heap = { heap_calloc, heap_realloc, heap_free, heap_usable };

void hp_memory_init(void)
{
    static int done;
    if (done) return;
    done = 1;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (libc) heap.libc_usable = (size_t (*)(void *))dlsym(libc, "malloc_usable_size");
}

void hp_memory_settle(void *(*open)(const char *name, int flags))
{
    if (atomic_load(&heap.settled)) return;
    if (heap.late_chosen) {    /* a fork child's: the parent's choice stands, its blocks go back there */
        atomic_store_explicit(&heap.settled, 1, memory_order_release);
        return;
    }
    heap.late_chosen = 1;
    void *h = open ? open("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL) : NULL;
    void *c = h ? dlsym(h, "mi_calloc") : NULL, *r = h ? dlsym(h, "mi_realloc") : NULL;
    void *f = h ? dlsym(h, "mi_free") : NULL, *u = h ? dlsym(h, "mi_usable_size") : NULL;
    if (c && r && f && u)      /* else glibc's internal entry points stay */
        heap.late = (struct late_heap){ (void *(*)(size_t, size_t))c, (void *(*)(void *, size_t))r,
                                        (void (*)(void *))f, (size_t (*)(void *))u };
    atomic_store_explicit(&heap.settled, 1, memory_order_release);
}

void hp_memory_restart_in_child(void)
{
    atomic_store_explicit(&heap.settled, 0, memory_order_release);
}

const void *hp_memory_code(void)
{
    return heap.late_chosen ? (const void *)heap.late.calloc : NULL;
}

/* Page blocks (hp_pages) are cut in order from one reservation, so a process maps its twenty-odd
 * tables with two system calls, not twenty (a short process paid about 40 us for them); a block
 * past it gets a mapping of its own. MAP_NORESERVE: untouched pages cost nothing (strict
 * overcommit charges them all the same, as it did the separate mappings); no huge pages, or one
 * touch of a sparse table would make 2 MB resident. */
#define PAGES_ARENA_BYTES ((size_t)64 << 20)

enum { ARENA_NONE, ARENA_MAKING, ARENA_READY, ARENA_FAILED };

static struct {
    char *base;
    _Atomic size_t used;
    _Atomic int state;
} arena;

static char *arena_base(void)
{
    int st = atomic_load_explicit(&arena.state, memory_order_acquire);
    if (st == ARENA_READY) return arena.base;
    if (st != ARENA_NONE || !atomic_compare_exchange_strong(&arena.state, &st, ARENA_MAKING))
        return NULL;                 /* being made by another thread, or failed: a mapping of its own */
    long r = syscall(SYS_mmap, NULL, PAGES_ARENA_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == -1) {
        atomic_store(&arena.state, ARENA_FAILED);
        return NULL;
    }
    syscall(SYS_madvise, (void *)r, PAGES_ARENA_BYTES, MADV_NOHUGEPAGE);
    arena.base = (char *)r;
    atomic_store_explicit(&arena.state, ARENA_READY, memory_order_release);
    return arena.base;
}

void *hp_heap_map_pages(size_t n)
{
    size_t len = (n + 4095) & ~(size_t)4095;
    char *b = len >= n && len <= PAGES_ARENA_BYTES ? arena_base() : NULL;
    if (b) {
        size_t off = atomic_fetch_add(&arena.used, len);
        if (off <= PAGES_ARENA_BYTES - len) return b + off;
    }
    return map(n);
}

size_t hp_heap_resident(void *p, size_t n)
{
    unsigned char vec[4096];     /* 16 MB a call */
    size_t page = 4096, resident = 0;
    for (size_t off = 0; off < n; off += sizeof vec * page) {
        size_t len = n - off < sizeof vec * page ? n - off : sizeof vec * page;
        if (syscall(SYS_mincore, (char *)p + off, len, vec) != 0) return n;
        for (size_t i = 0; i < (len + page - 1) / page; i++) resident += (vec[i] & 1) ? page : 0;
    }
    return resident < n ? resident : n;
}

void hp_heap_zero_pages(void *p, size_t n)
{
    /* private anonymous pages read as zero again after MADV_DONTNEED */
    if (syscall(SYS_madvise, p, n, MADV_DONTNEED) != 0) memset(p, 0, n);
}
