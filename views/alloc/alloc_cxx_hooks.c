/* alloc_cxx_hooks.c — C++ operator new and delete (plain, array, nothrow, sized, aligned). libstdc++'s
 * operators allocate through malloc and free, whose hooks count them: those pass straight
 * through. Allocators that define their own (jemalloc, tcmalloc) are counted here, with the real
 * operator running under the thread's guard, because some of theirs still call free or malloc
 * inside, which must not be counted a second time. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "core/loader_lock.h"
#include "core/memory.h"
#include "core/real_lookup.h"
#include "core/unloaded.h"
#include "alloc_count.h"

typedef void *(*new_fn)(size_t);
typedef void *(*new_nothrow_fn)(size_t, const void *);
typedef void *(*new_aligned_fn)(size_t, size_t);
typedef void *(*new_aligned_nothrow_fn)(size_t, size_t, const void *);
typedef void (*delete_fn)(void *);
typedef void (*delete_sized_fn)(void *, size_t);
typedef void (*delete_aligned_fn)(void *, size_t);
typedef void (*delete_sized_aligned_fn)(void *, size_t, size_t);
typedef void (*delete_nothrow_fn)(void *, const void *);
typedef void (*delete_aligned_nothrow_fn)(void *, size_t, const void *);

/* The operators (their real functions are looked up at their first call, by find_next): the
 * hooks' index, the symbol, and what runs when no loaded object defines one (fb_*, below). */
#define CXX_OPS(X)                                                                              \
    X(NEW,                          "_Znwm",                               fb_new)              \
    X(NEW_ARRAY,                    "_Znam",                               fb_new)              \
    X(NEW_NOTHROW,                  "_ZnwmRKSt9nothrow_t",                 fb_new_nothrow)      \
    X(NEW_ARRAY_NOTHROW,            "_ZnamRKSt9nothrow_t",                 fb_new_nothrow)      \
    X(NEW_ALIGNED,                  "_ZnwmSt11align_val_t",                fb_new_aligned)      \
    X(NEW_ARRAY_ALIGNED,            "_ZnamSt11align_val_t",                fb_new_aligned)      \
    X(NEW_ALIGNED_NOTHROW,          "_ZnwmSt11align_val_tRKSt9nothrow_t",  fb_new_aligned_nothrow) \
    X(NEW_ARRAY_ALIGNED_NOTHROW,    "_ZnamSt11align_val_tRKSt9nothrow_t",  fb_new_aligned_nothrow) \
    X(DELETE,                       "_ZdlPv",                              fb_delete)           \
    X(DELETE_ARRAY,                 "_ZdaPv",                              fb_delete)           \
    X(DELETE_SIZED,                 "_ZdlPvm",                             fb_delete_n)         \
    X(DELETE_ARRAY_SIZED,           "_ZdaPvm",                             fb_delete_n)         \
    X(DELETE_NOTHROW,               "_ZdlPvRKSt9nothrow_t",                fb_delete_nothrow)   \
    X(DELETE_ARRAY_NOTHROW,         "_ZdaPvRKSt9nothrow_t",                fb_delete_nothrow)   \
    X(DELETE_ALIGNED,               "_ZdlPvSt11align_val_t",               fb_delete_n)         \
    X(DELETE_ARRAY_ALIGNED,         "_ZdaPvSt11align_val_t",               fb_delete_n)         \
    X(DELETE_SIZED_ALIGNED,         "_ZdlPvmSt11align_val_t",              fb_delete_n_al)      \
    X(DELETE_ARRAY_SIZED_ALIGNED,   "_ZdaPvmSt11align_val_t",              fb_delete_n_al)      \
    X(DELETE_ALIGNED_NOTHROW,       "_ZdlPvSt11align_val_tRKSt9nothrow_t", fb_delete_al_nothrow) \
    X(DELETE_ARRAY_ALIGNED_NOTHROW, "_ZdaPvSt11align_val_tRKSt9nothrow_t", fb_delete_al_nothrow)

#define OP_ENUM_(op, sym, fb) op,
enum op { CXX_OPS(OP_ENUM_) OP_COUNT };

#define OP_NAME_(op, sym, fb) [op] = sym,
static const char *const names[OP_COUNT] = { CXX_OPS(OP_NAME_) };

/* Each operator's real function once found, and whether it is libstdc++'s (then the malloc
 * family hooks count it). */
static struct {
    void *real[OP_COUNT];
    unsigned char via_malloc[OP_COUNT];
} ops;

/* What an operator does when no loaded object defines it (none found is not expected: something
 * called it): libstdc++'s behaviour on the malloc family, short of throwing std::bad_alloc. */
static void *fb_new(size_t n) { return malloc(n ? n : 1); }
static void *fb_new_nothrow(size_t n, const void *nt) { (void)nt; return fb_new(n); }
static void *fb_new_aligned(size_t n, size_t al)
{
    void *p;
    return posix_memalign(&p, al < sizeof(void *) ? sizeof(void *) : al, n ? n : 1) ? NULL : p;
}
static void *fb_new_aligned_nothrow(size_t n, size_t al, const void *nt) { (void)nt; return fb_new_aligned(n, al); }
static void fb_delete(void *p) { free(p); }
static void fb_delete_n(void *p, size_t n) { (void)n; free(p); }
static void fb_delete_n_al(void *p, size_t n, size_t al) { (void)n; (void)al; free(p); }
static void fb_delete_nothrow(void *p, const void *nt) { (void)nt; free(p); }
static void fb_delete_al_nothrow(void *p, size_t al, const void *nt) { (void)al; (void)nt; free(p); }

#define OP_FALLBACK_(op, sym, fb) [op] = (void *)fb,
static void *const fallback[OP_COUNT] = { CXX_OPS(OP_FALLBACK_) };

#define MAX_OBJECTS 512

struct objects {
    const char *name[MAX_OBJECTS];
    unsigned n;
};

static int list_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct objects *o = arg;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < MAX_OBJECTS) o->name[o->n++] = info->dlpi_name;
    return 0;
}

/* The definition of name the program would have bound without us. hp_real_lookup (RTLD_NEXT)
 * searches the global scope only; a C++ library that a C program dlopens (RTLD_LOCAL) brings libstdc++ into its own
 * scope, where RTLD_NEXT does not look while that library's calls still reach our hooks. Then
 * every loaded object is asked in turn (names listed first: no dlopen inside dl_iterate_phdr),
 * and the object that defines it gets one reference more, so the address stays valid. The
 * profiler's own objects are never the answer: libhotpath.so, and the heap under its own memory
 * (mimalloc defines operator new too, and the program's objects must not land in it). */
static void *find_next(const char *name)
{
    void *fn = hp_real_lookup(name, NULL);
    if (fn) return fn;
    Dl_info self, heap, info;
    if (!dladdr((void *)find_next, &self)) return NULL;
    const void *heap_code = hp_memory_code();
    if (!heap_code || !dladdr(heap_code, &heap)) heap.dli_fbase = self.dli_fbase;
    struct objects o = { .n = 0 };
    hp_walk_modules(list_object, &o);
    for (unsigned i = 0; i < o.n && !fn; i++) {
        void *h = hp_own_dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        void *f = dlsym(h, name);
        if (f && dladdr(f, &info) && info.dli_fbase != self.dli_fbase && info.dli_fbase != heap.dli_fbase &&
            hp_own_dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD))   /* the reference that pins it */
            fn = f;
        dlclose(h);
    }
    return fn;
}

/* Looked up at first use: libstdc++ may be loaded (dlopen) long after start. */
static __attribute__((noinline, cold)) void *resolve(enum op op)
{
    void *fn = find_next(names[op]);
    const char *path;
    ops.via_malloc[op] = !fn || (hp_module_of(fn, &path) && strstr(path, "/libstdc++"));
    if (!fn) fn = fallback[op];
    __atomic_store_n(&ops.real[op], fn, __ATOMIC_RELEASE);
    return fn;
}

static inline void *fn_of(enum op op)
{
    void *fn = __atomic_load_n(&ops.real[op], __ATOMIC_ACQUIRE);
    return likely(fn != NULL) ? fn : resolve(op);
}

/* The guard is raised around the real call and lowered again even when operator new throws. */
static inline struct hp_thread *raise_guard(void)
{
    struct hp_thread *t = hp_self ? hp_self : hp_adopt_self();
    if (t) t->guard++;
    return t;
}

static inline void lower_guard(struct hp_thread **t)
{
    if (*t) (*t)->guard--;
}

#define GUARDED struct hp_thread *guarded_ __attribute__((cleanup(lower_guard))) = raise_guard()

#define NEW_HOOK(name, op, type, params, args)                                              \
    HP_EXPORT void *name params                                                             \
    {                                                                                       \
        type fn = (type)fn_of(op);                                                          \
        if (ops.via_malloc[op]) return fn args;                                             \
        void *p;                                                                            \
        {                                                                                   \
            GUARDED;                                                                        \
            p = fn args;                                                                    \
        }                                                                                   \
        hp_count_alloc(p);                                                                  \
        return p;                                                                           \
    }

#define DELETE_HOOK(name, op, type, params, args)                                           \
    HP_EXPORT void name params                                                              \
    {                                                                                       \
        type fn = (type)fn_of(op);                                                          \
        if (ops.via_malloc[op]) {                                                           \
            fn args;                                                                        \
            return;                                                                         \
        }                                                                                   \
        if (p) hp_count_free(p);                                                            \
        GUARDED;                                                                            \
        fn args;                                                                            \
    }

NEW_HOOK(_Znwm, NEW, new_fn, (size_t n), (n))
NEW_HOOK(_Znam, NEW_ARRAY, new_fn, (size_t n), (n))
NEW_HOOK(_ZnwmRKSt9nothrow_t, NEW_NOTHROW, new_nothrow_fn, (size_t n, const void *nt), (n, nt))
NEW_HOOK(_ZnamRKSt9nothrow_t, NEW_ARRAY_NOTHROW, new_nothrow_fn, (size_t n, const void *nt), (n, nt))
NEW_HOOK(_ZnwmSt11align_val_t, NEW_ALIGNED, new_aligned_fn, (size_t n, size_t al), (n, al))
NEW_HOOK(_ZnamSt11align_val_t, NEW_ARRAY_ALIGNED, new_aligned_fn, (size_t n, size_t al), (n, al))
NEW_HOOK(_ZnwmSt11align_val_tRKSt9nothrow_t, NEW_ALIGNED_NOTHROW, new_aligned_nothrow_fn,
         (size_t n, size_t al, const void *nt), (n, al, nt))
NEW_HOOK(_ZnamSt11align_val_tRKSt9nothrow_t, NEW_ARRAY_ALIGNED_NOTHROW, new_aligned_nothrow_fn,
         (size_t n, size_t al, const void *nt), (n, al, nt))
DELETE_HOOK(_ZdlPv, DELETE, delete_fn, (void *p), (p))
DELETE_HOOK(_ZdaPv, DELETE_ARRAY, delete_fn, (void *p), (p))
DELETE_HOOK(_ZdlPvm, DELETE_SIZED, delete_sized_fn, (void *p, size_t n), (p, n))
DELETE_HOOK(_ZdaPvm, DELETE_ARRAY_SIZED, delete_sized_fn, (void *p, size_t n), (p, n))
DELETE_HOOK(_ZdlPvRKSt9nothrow_t, DELETE_NOTHROW, delete_nothrow_fn, (void *p, const void *nt), (p, nt))
DELETE_HOOK(_ZdaPvRKSt9nothrow_t, DELETE_ARRAY_NOTHROW, delete_nothrow_fn, (void *p, const void *nt), (p, nt))
DELETE_HOOK(_ZdlPvSt11align_val_t, DELETE_ALIGNED, delete_aligned_fn, (void *p, size_t al), (p, al))
DELETE_HOOK(_ZdaPvSt11align_val_t, DELETE_ARRAY_ALIGNED, delete_aligned_fn, (void *p, size_t al), (p, al))
DELETE_HOOK(_ZdlPvmSt11align_val_t, DELETE_SIZED_ALIGNED, delete_sized_aligned_fn,
            (void *p, size_t n, size_t al), (p, n, al))
DELETE_HOOK(_ZdaPvmSt11align_val_t, DELETE_ARRAY_SIZED_ALIGNED, delete_sized_aligned_fn,
            (void *p, size_t n, size_t al), (p, n, al))
DELETE_HOOK(_ZdlPvSt11align_val_tRKSt9nothrow_t, DELETE_ALIGNED_NOTHROW, delete_aligned_nothrow_fn,
            (void *p, size_t al, const void *nt), (p, al, nt))
DELETE_HOOK(_ZdaPvSt11align_val_tRKSt9nothrow_t, DELETE_ARRAY_ALIGNED_NOTHROW, delete_aligned_nothrow_fn,
            (void *p, size_t al, const void *nt), (p, al, nt))
