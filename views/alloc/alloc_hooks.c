/* alloc_hooks.c — the malloc family. Each hook calls the real allocator, then adds the usable size of
 * the block to the calling thread's counters: two plain stores into thread-local memory, no lock,
 * no syscall. Frees count the usable size too, so the process's Diff is its live heap exactly. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unloaded.h"
#include "alloc_count.h"

/* glibc's usable size of a small block (not mmapped): the request plus its size field, rounded
 * up to the alignment, at least MINSIZE, less the size field (the next chunk's prev_size word
 * is the block's own). Pure arithmetic on the size asked for: no header is read. */
static size_t glibc_small_usable(size_t n)
{
    const size_t word = sizeof(size_t), align = 2 * sizeof(size_t), min = 4 * sizeof(size_t);
    size_t chunk = (n + word + align - 1) & ~(align - 1);
    return (chunk < min ? min : chunk) - word;
}

/* Whether a block's usable size may be read from glibc's chunk header (alloc_count.h). Decided
 * in two steps so that no header is read until the allocator is known to be glibc's: the real
 * malloc lives in libc.so, and malloc_usable_size answers glibc's arithmetic for small blocks.
 * A malloc replacement that takes over libc's own symbols (valgrind redirects them; so may a
 * debugging allocator) passes the first step but not the second: its usable sizes are the sizes
 * asked for or its own. Only then the header of each probe block is compared with the real
 * malloc_usable_size. */
void hp_alloc_init(void)
{
    const char *path;
    if (!hp_module_of((void *)hp_hot.real.malloc, &path) || !strstr(path, "/libc.so")) return;
    static const size_t small[] = { 1, 24, 25, 100, 1000, 4096 };
    for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
        void *p = hp_hot.real.malloc(small[i]);
        if (!p) return;
        size_t usable = hp_hot.real.usable_size(p);
        hp_hot.real.free(p);
        if (usable != glibc_small_usable(small[i])) return;
    }
    /* The headers are then read where glibc's arithmetic was just checked (a heap block); an
     * mmapped block's header has glibc's IS_MMAPPED bit and counts 8 bytes less (alloc_count.h),
     * which tests/targets/alloc_mmapped.c checks against malloc_usable_size. No mmapped probe
     * here: one above glibc's largest dynamic mmap threshold (32 MB, so that freeing it leaves
     * the program's threshold alone) cost every process 20 to 40 us to map and unmap. */
    static const size_t sizes[] = { 1, 24, 25, 100, 1000, 4096, 100000 };
    int same = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        void *p = hp_hot.real.malloc(sizes[i]);
        if (!p) return;
        same &= hp_chunk_usable(p) == hp_hot.real.usable_size(p);
        hp_hot.real.free(p);
    }
    hp_hot.glibc_chunks = same;
}

void hp_count_alloc_slow(void *p)
{
    struct hp_thread *t = hp_counting_thread();
    if (t) hp_add_alloc(t, p);
}

void hp_count_free_slow(void *p)
{
    struct hp_thread *t = hp_counting_thread();
    if (t) hp_add_free(t, p);
    else hp_forget_sampled(p);
}

/* Before the real allocator is known (dlsym is running), memory comes from the boot arena. */
static int early(void)
{
    return unlikely(hp_hot.real.malloc == NULL) && !hp_resolve();
}

/* Inside the profiler's own dlopen, the loader's blocks come from the boot arena too (core/hooks.h,
 * hp_own_dlopen); NULL on every other thread, and when the arena is full. */
static __attribute__((noinline, cold)) void *own_load_block(size_t n, size_t align)
{
    return hp_own_load_here() ? hp_boot_alloc(n, align) : NULL;
}

static inline void *during_own_load(size_t n, size_t align)
{
    return unlikely(atomic_load_explicit(&hp_hot.own_loads, memory_order_relaxed)) ? own_load_block(n, align) : NULL;
}

/* malloc and free are the hottest hooks: their common case (glibc's allocator, a known thread
 * outside the profiler) is written out inline and everything else goes to an out-of-line slow
 * path as a tail call, so the fast path saves no registers and makes no call of its own but the
 * real one. */
static inline int fast_thread(const struct hp_thread *t)
{
    /* the glibc flag first: it is set once the real functions are known, and until then t may be
     * hp_self_hot's reading before hp_resolve */
    return likely(hp_hot.glibc_chunks) && likely(t != NULL) && likely(t->guard == 0);
}

static __attribute__((noinline, cold)) void *malloc_slow(void *p)
{
    hp_count_alloc(p);
    return p;
}

static inline void *counted_malloc(size_t n)
{
    void *p = hp_hot.real.malloc(n);
    struct hp_thread *t = hp_self_hot();
    if (likely(p != NULL) && fast_thread(t)) {
        size_t size = hp_chunk_usable(p);
        hp_count(&t->alloc_bytes, size);
        hp_count(&t->alloc_count, 1);
        return hp_sample_countdown(t, p, size);
    }
    return malloc_slow(p);
}

static __attribute__((noinline, cold)) void *rare_malloc(size_t n)
{
    if (early()) return hp_boot_alloc(n, 16);
    void *b = own_load_block(n, 16);
    return b ? b : counted_malloc(n);
}

HP_EXPORT void *malloc(size_t n)
{
    if (unlikely(hp_hot.real.malloc == NULL) || unlikely(atomic_load_explicit(&hp_hot.own_loads, memory_order_relaxed)))
        return rare_malloc(n);
    return counted_malloc(n);
}

static __attribute__((noinline, cold)) void free_slow(void *p)
{
    if (hp_in_boot_arena(p)) return;
    if (hp_hot.real.free == NULL && !hp_resolve()) return;
    hp_count_free(p);
    hp_hot.real.free(p);
}

HP_EXPORT void free(void *p)
{
    struct hp_thread *t = hp_self_hot();
    if (likely(p != NULL) && fast_thread(t) && likely(!hp_in_boot_arena(p)) &&
        likely(!hp_alloc_maybe_sampled(p))) {
        hp_count(&t->free_bytes, hp_chunk_usable(p));
        hp_count(&t->free_count, 1);
        hp_hot.real.free(p);
        return;
    }
    if (p) free_slow(p);
}

HP_EXPORT void *calloc(size_t n, size_t size)
{
    if (early()) {
        size_t total;
        if (__builtin_mul_overflow(n, size, &total)) return NULL;
        return hp_boot_alloc(total, 16);
    }
    size_t total;
    void *b = __builtin_mul_overflow(n, size, &total) ? NULL : during_own_load(total, 16);
    if (b) return b;   /* zero: the arena is never reused */
    void *p = hp_hot.real.calloc(n, size);
    hp_count_alloc(p);
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
    void *b = during_own_load(n, 16);
    if (b) {   /* the old block is left as it is: no call into the program's allocator here */
        if (p) {
            size_t old = hp_usable(p);
            memcpy(b, p, old < n ? old : n);
        }
        return b;
    }
    size_t old = 0;
    if (p) {
        old = hp_usable(p);
        /* forgotten first, as the block may move and its address be reused at once (should the
         * realloc fail, the block lives on unsampled) */
        hp_forget_sampled(p);
    }
    void *q = hp_hot.real.realloc(p, n);
    /* p is gone when realloc moved it, and also when realloc(p, 0) freed it and returned NULL */
    if (q || (p && n == 0)) {
        struct hp_thread *t = hp_counting_thread();
        if (t) {
            if (p) {
                hp_count(&t->free_bytes, old);
                hp_count(&t->free_count, 1);
            }
            if (q) hp_add_alloc(t, q);
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
    void *b = during_own_load(n, align);
    if (b) {
        *out = b;
        return 0;
    }
    int r = hp_hot.real.posix_memalign(out, align, n);
    if (r == 0) hp_count_alloc(*out);
    return r;
}

HP_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (early()) return hp_boot_alloc(n, align);
    void *b = during_own_load(n, align);
    if (b) return b;
    void *p = hp_hot.real.aligned_alloc(align, n);
    hp_count_alloc(p);
    return p;
}

HP_EXPORT void *memalign(size_t align, size_t n)
{
    if (early()) return hp_boot_alloc(n, align);
    void *b = during_own_load(n, align);
    if (b) return b;
    void *p = hp_hot.real.memalign(align, n);
    hp_count_alloc(p);
    return p;
}

HP_EXPORT void *valloc(size_t n)
{
    if (early()) return hp_boot_alloc(n, 4096);
    void *b = during_own_load(n, 4096);
    if (b) return b;
    void *p = hp_hot.real.valloc(n);
    hp_count_alloc(p);
    return p;
}

HP_EXPORT void *pvalloc(size_t n)
{
    if (early()) return hp_boot_alloc((n + 4095) & ~(size_t)4095, 4096);
    void *b = during_own_load((n + 4095) & ~(size_t)4095, 4096);
    if (b) return b;
    void *p = hp_hot.real.pvalloc(n);
    hp_count_alloc(p);
    return p;
}

HP_EXPORT size_t malloc_usable_size(void *p)
{
    if (p && hp_in_boot_arena(p)) return hp_boot_size(p);
    if (early()) return 0;
    return p ? hp_hot.real.usable_size(p) : 0;
}
