/* io_real.h — what every I/O hook starts with: are the real functions (hp_hot.io, io_fns.h) known
 * yet, and is this call counted? */
#ifndef HP_IO_REAL_H
#define HP_IO_REAL_H

#include "io.h"
#include "core/hooks.h"

/* Resolve (hp_resolve, which calls hp_resolve_io) if not done yet: 0 while this thread is inside
 * dlsym (then the hooks go straight to the kernel, or fail with ENOSYS where there is none). */
static inline int hp_io_ready(void)
{
    return __builtin_expect(__atomic_load_n(&hp_hot.io_resolved, __ATOMIC_ACQUIRE), 1) || (hp_resolve() && hp_hot.io_resolved);
}

/* The calling thread when this call counts: NULL for profiler work, before start, in secure mode. */
static inline struct hp_thread *hp_io_thread(void)
{
    struct hp_thread *t = hp_self_hot();
    if (__builtin_expect(t != NULL, 1)) return t->guard ? NULL : t;
    return hp_active ? hp_adopt_self() : NULL;
}

/* The profiler's own code is running on this thread (its guard is up). */
static inline int guarded(void)
{
    return hp_self && hp_self->guard;
}

/* Inside dlsym on this thread (nothing resolved yet): straight to the kernel. */
#define EARLY(...)                                                                              \
    do {                                                                                        \
        if (__builtin_expect(!hp_io_ready(), 0)) return syscall(__VA_ARGS__);                   \
    } while (0)

/* No kernel call to fall back on. */
#define EARLY_FAIL(value)                                                                       \
    do {                                                                                        \
        if (__builtin_expect(!hp_io_ready(), 0)) { errno = ENOSYS; return value; }              \
    } while (0)

#endif
