/* mmap_hooks.c — anonymous memory mapped by the program itself (mmap, mremap, munmap): counted per
 * thread apart from the heap, since interpreters and custom allocators keep their arenas there.
 * glibc's own large-block mmaps are internal calls and never come here, so nothing counts twice. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mappings.h"
#include "core/thread_state.h"
#include "core/unwind.h"
#include "core/hooks.h"

/* The real functions, looked up in hp_resolve (real_lookup.h). */
#define MMAP_FNS(X, C)                                                                  \
    X(C, mmap,   "mmap",   NULL, EAGER, void *, (void *, size_t, int, int, int, off_t)) \
    X(C, munmap, "munmap", NULL, EAGER, int, (void *, size_t))                          \
    X(C, mremap, "mremap", NULL, EAGER, void *, (void *, size_t, size_t, int, ...))

static struct {
    HP_REAL_FIELDS(MMAP_FNS)
} real;

void hp_resolve_mmap(void)
{
    HP_REAL_LOOKUPS(MMAP_FNS, real);
}

static int ready(void)
{
    return (real.mmap && real.munmap && real.mremap) || (hp_resolve() && real.mmap && real.munmap && real.mremap);
}

/* The calling thread when its mappings count (not the profiler's own, not before start). */
static struct hp_thread *counting(void)
{
    if (!hp_active) return NULL;
    struct hp_thread *t = hp_self ? hp_self : hp_adopt_self();
    return t && !t->guard ? t : NULL;
}

HP_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!ready()) return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (hp_unwind_warming && (flags & MAP_ANONYMOUS) && len >= HP_UNWIND_TABLE_BYTES) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    void *p = real.mmap(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && (flags & MAP_ANONYMOUS)) {
        int saved = errno;
        struct hp_thread *t = counting();
        if (t) hp_count(&t->mapped_bytes, hp_mappings_add((uintptr_t)p, len));
        errno = saved;
    }
    return p;
}

HP_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap(addr, len, prot, flags, fd, off);
}

HP_EXPORT int munmap(void *addr, size_t len)
{
    if (!ready()) return (int)syscall(SYS_munmap, addr, len);
    int r = real.munmap(addr, len);
    if (r == 0) {
        int saved = errno;
        struct hp_thread *t = counting();
        if (t) hp_count(&t->unmapped_bytes, hp_mappings_remove((uintptr_t)addr, len));
        errno = saved;
    }
    return r;
}

HP_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    if (!ready()) return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
    void *p = real.mremap(old, old_len, new_len, flags, new_addr);
    if (p != MAP_FAILED) {
        int saved = errno;
        struct hp_thread *t = counting();
        if (t) {
            uint64_t was = hp_mappings_remove((uintptr_t)old, old_len);
            if (was) {                      /* an anonymous region grew, shrank or moved */
                uint64_t now = hp_mappings_add((uintptr_t)p, new_len);
                if (now > was) hp_count(&t->mapped_bytes, now - was);
                else hp_count(&t->unmapped_bytes, was - now);
            }
        }
        errno = saved;
    }
    return p;
}
