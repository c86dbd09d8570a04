/* dl.c — dlclose: the modules it unloads are remembered (core/unloaded.h) so that the
 * report, made later, still names the functions that ran in them. dl_iterate_phdr and dlclose
 * mark the calling thread as inside the loader: both take the loader's lock, which libunwind
 * takes too (through dl_iterate_phdr), so a stack taken in a signal handler that interrupted
 * them (a CPU sample, a lock seen first in a handler) would wait forever for a lock its own
 * thread holds. hp_backtrace takes no stack there. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>

#include "core/loader_lock.h"
#include "core/platform.h"
#include "core/unloaded.h"
#include "process.h"

/* The calling thread inside the loader: dl_iterate_phdr (iterating) or dlclose. */
struct loader_mark {
    struct hp_thread *t;
    int iterating;
};

static void bump(_Atomic unsigned char *c, int by)
{
    atomic_store_explicit(c, (unsigned char)(atomic_load_explicit(c, memory_order_relaxed) + by), memory_order_relaxed);
}

static struct loader_mark loader_enter(int iterating)
{
    struct loader_mark m = { hp_self, iterating };
    if (m.t) {
        bump(&m.t->in_loader, 1);
        if (iterating) bump(&m.t->in_iterate, 1);
    }
    __asm__ volatile("" ::: "memory");
    return m;
}

/* Run as the hook's frame goes, returning or unwound by a C++ exception thrown out of a
 * callback (this file is built with -fexceptions for that; glibc lets go of its lock then too).
 * The unwinder's functions that cleanup needs are weak: a process with no C++ or Rust in it never
 * loads libgcc_s (whose constructor's CPUID instructions cost a process start under a hypervisor
 * tens of microseconds), and one that has an exception to throw has libgcc_s loaded already. */
__asm__(".weak _Unwind_Resume\n\t.weak __gcc_personality_v0");

static void loader_leave(struct loader_mark *m)
{
    __asm__ volatile("" ::: "memory");
    if (m->t) {
        if (m->iterating) bump(&m->t->in_iterate, -1);
        bump(&m->t->in_loader, -1);
    }
}

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
typedef int (*dlclose_fn)(void *);

/* The real functions (real_lookup.h), looked up at their first call (dl_iterate_phdr's may be in
 * the CPU profile's handler, as before: libunwind's first walk). */
#define DL_FNS(X, C)                                                                            \
    X(C, dl_iterate_phdr, "dl_iterate_phdr", NULL, LAZY, int,                                   \
      (int (*)(struct dl_phdr_info *, size_t, void *), void *))                                 \
    X(C, dlclose,         "dlclose",         NULL, LAZY, int, (void *))

static struct {
    HP_REAL_FIELDS(DL_FNS)
} next;
HP_REAL_LAZY_ACCESSORS(DL_FNS, next)

HP_EXPORT int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *), void *data)
{
    iterate_fn real = next_dl_iterate_phdr();
    if (!real) return 0;   /* nothing to iterate over */
    struct hp_thread *t = hp_self;
    if (t && t->in_cpu_sample) {   /* libunwind, in the CPU profile's handler: loader_lock.h */
        if (!hp_loader_lock_try(t->tid ? t->tid : hp_platform_gettid())) return 0;   /* the stack ends here */
        int r = real(callback, data);
        hp_loader_lock_untry();
        return r;
    }
    struct loader_mark mark __attribute__((cleanup(loader_leave))) = loader_enter(1);
    return real(callback, data);
}

HP_EXPORT int dlclose(void *handle)
{
    int saved = errno;
    dlclose_fn real = next_dlclose();
    if (!real) {
        errno = saved;
        return -1;   /* no dlclose to call: nothing was unloaded */
    }
    struct hp_dl_list *before = hp_active ? hp_unloaded_before() : NULL;
    errno = saved;
    int r;
    {
        struct loader_mark mark __attribute__((cleanup(loader_leave))) = loader_enter(0);
        r = real(handle);
    }
    saved = errno;
    hp_unloaded_after(before);
    errno = saved;
    return r;
}
