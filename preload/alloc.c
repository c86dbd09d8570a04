/* alloc.c — the malloc family. Each hook calls the real allocator, then adds the usable size of
 * the block to the calling thread's counters: two plain stores into thread-local memory, no lock,
 * no syscall. Frees count the usable size too, so the process's Diff is its live heap exactly. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../collectors/thread_state.h"
#include "real.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* With glibc's allocator next, a block's usable size is read from its chunk header directly:
 * malloc_usable_size also reads the NEXT chunk's header (its in-use bit), a second cache line
 * that costs a miss per call when blocks are freed in random order. Checked against the real
 * function at start, and off for any other allocator. */
static int glibc_chunks;

static inline size_t chunk_usable(const void *p)
{
    size_t head = ((const size_t *)p)[-1];
    return (head & ~(size_t)7) - 8 - ((head & 2) << 2);   /* IS_MMAPPED (2): 8 bytes less */
}

static inline size_t usable(void *p)
{
    return likely(glibc_chunks) ? chunk_usable(p) : hp_real.usable_size(p);
}

void hp_alloc_init(void)
{
    Dl_info info;
    if (!dladdr((void *)hp_real.malloc, &info) || !info.dli_fname || !strstr(info.dli_fname, "/libc.so"))
        return;
    static const size_t sizes[] = { 1, 24, 25, 100, 1000, 4096, 100000, 200000, 1 << 20 };
    int same = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        void *p = hp_real.malloc(sizes[i]);
        if (!p) return;
        same &= chunk_usable(p) == hp_real.usable_size(p);
        hp_real.free(p);
    }
    glibc_chunks = same;
}

/* The calling thread's state when its operations count: NULL for profiler work and before start. */
static inline struct hp_thread *counting_thread(void)
{
    struct hp_thread *t = hp_self;
    if (likely(t != NULL)) return t->guard ? NULL : t;
    return hp_adopt_self();
}

static inline void add_alloc(struct hp_thread *t, void *p)
{
    hp_count(&t->alloc_bytes, usable(p));
    hp_count(&t->alloc_count, 1);
}

static inline void add_free(struct hp_thread *t, void *p)
{
    hp_count(&t->free_bytes, usable(p));
    hp_count(&t->free_count, 1);
}

/* Slow paths stay out of line, so the fast path needs no saved registers and no stack frame. */
static __attribute__((noinline, cold)) void count_alloc_slow(void *p)
{
    struct hp_thread *t = counting_thread();
    if (t) add_alloc(t, p);
}

static __attribute__((noinline, cold)) void count_free_slow(void *p)
{
    struct hp_thread *t = counting_thread();
    if (t) add_free(t, p);
}

static inline void count_alloc(void *p)
{
    if (unlikely(p == NULL)) return;
    struct hp_thread *t = hp_self;
    if (likely(t != NULL && t->guard == 0)) add_alloc(t, p);
    else if (t == NULL) count_alloc_slow(p);
}

static inline void count_free(void *p)
{
    struct hp_thread *t = hp_self;
    if (likely(t != NULL && t->guard == 0)) add_free(t, p);
    else if (t == NULL) count_free_slow(p);
}

/* Before the real allocator is known (dlsym is running), memory comes from the boot arena. */
static int early(void)
{
    return unlikely(hp_real.malloc == NULL) && !hp_resolve();
}

static __attribute__((noinline, cold)) void *early_malloc(size_t n)
{
    if (!hp_resolve()) return hp_boot_alloc(n, 16);
    return malloc(n);
}

HP_EXPORT void *malloc(size_t n)
{
    if (unlikely(hp_real.malloc == NULL)) return early_malloc(n);
    void *p = hp_real.malloc(n);
    count_alloc(p);
    return p;
}

HP_EXPORT void free(void *p)
{
    if (unlikely(p == NULL) || unlikely(hp_in_boot_arena(p))) return;
    if (unlikely(hp_real.free == NULL) && !hp_resolve()) return;
    count_free(p);
    hp_real.free(p);
}

HP_EXPORT void *calloc(size_t n, size_t size)
{
    if (early()) {
        size_t total;
        if (__builtin_mul_overflow(n, size, &total)) return NULL;
        return hp_boot_alloc(total, 16);
    }
    void *p = hp_real.calloc(n, size);
    count_alloc(p);
    return p;
}

HP_EXPORT void *realloc(void *p, size_t n)
{
    if (early()) {
        void *q = hp_boot_alloc(n, 16);
        if (q && p) memcpy(q, p, hp_boot_size(p) < n ? hp_boot_size(p) : n);
        return q;
    }
    if (unlikely(p != NULL && hp_in_boot_arena(p))) {
        size_t old = hp_boot_size(p);
        void *q = malloc(n);
        if (q) memcpy(q, p, old < n ? old : n);
        return q;
    }
    size_t old = p ? usable(p) : 0;
    void *q = hp_real.realloc(p, n);
    /* p is gone when realloc moved it, and also when realloc(p, 0) freed it and returned NULL */
    if (q || (p && n == 0)) {
        struct hp_thread *t = counting_thread();
        if (t) {
            if (p) {
                hp_count(&t->free_bytes, old);
                hp_count(&t->free_count, 1);
            }
            if (q) {
                hp_count(&t->alloc_bytes, usable(q));
                hp_count(&t->alloc_count, 1);
            }
        }
    }
    return q;
}

HP_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, total);
}

HP_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (early()) {
        void *p = hp_boot_alloc(n, align);
        if (!p) return ENOMEM;
        *out = p;
        return 0;
    }
    int r = hp_real.posix_memalign(out, align, n);
    if (r == 0) count_alloc(*out);
    return r;
}

HP_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (early()) return hp_boot_alloc(n, align);
    void *p = hp_real.aligned_alloc(align, n);
    count_alloc(p);
    return p;
}

HP_EXPORT void *memalign(size_t align, size_t n)
{
    if (early()) return hp_boot_alloc(n, align);
    void *p = hp_real.memalign(align, n);
    count_alloc(p);
    return p;
}

HP_EXPORT void *valloc(size_t n)
{
    if (early()) return hp_boot_alloc(n, 4096);
    void *p = hp_real.valloc(n);
    count_alloc(p);
    return p;
}

HP_EXPORT void *pvalloc(size_t n)
{
    if (early()) return hp_boot_alloc((n + 4095) & ~(size_t)4095, 4096);
    void *p = hp_real.pvalloc(n);
    count_alloc(p);
    return p;
}

HP_EXPORT size_t malloc_usable_size(void *p)
{
    if (p && hp_in_boot_arena(p)) return hp_boot_size(p);
    if (early()) return 0;
    return p ? hp_real.usable_size(p) : 0;
}
