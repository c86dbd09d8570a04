/* mmap_hooks.c — the memory the program maps itself (mmap, mremap, mprotect, munmap): counted per
 * thread apart from the heap, since interpreters, runtimes and custom allocators keep their arenas
 * there (mappings.h says what counts). glibc's own large-block mmaps are internal calls and never
 * come here, so nothing counts twice. These are system calls, not the malloc path: a hook may make
 * a raw fstat and take the table's spinlock, never malloc. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mappings.h"
#include "core/thread_state.h"
#include "core/unwind.h"
#include "core/hooks.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#define TMPFS_MAGIC_ 0x01021994
#define HUGETLBFS_MAGIC_ 0x958458f6

/* The real functions, looked up in hp_resolve (real_lookup.h). */
#define MMAP_FNS(X, C)                                                                  \
    X(C, mmap,   "mmap",   NULL, EAGER, void *, (void *, size_t, int, int, int, off_t)) \
    X(C, munmap, "munmap", NULL, EAGER, int, (void *, size_t))                          \
    X(C, mremap, "mremap", NULL, EAGER, void *, (void *, size_t, size_t, int, ...))    \
    X(C, mprotect, "mprotect", NULL, EAGER, int, (void *, size_t, int))

static struct {
    HP_REAL_FIELDS(MMAP_FNS)
} real;

void hp_resolve_mmap(void)
{
    HP_REAL_LOOKUPS(MMAP_FNS, real);
}

static int ready(void)
{
    return (real.mmap && real.munmap && real.mremap && real.mprotect) ||
           (hp_resolve() && real.mmap && real.munmap && real.mremap && real.mprotect);
}

/* The calling thread when its mappings count (not the profiler's own, not before start). */
static struct hp_thread *counting(void)
{
    if (!hp_active) return NULL;
    struct hp_thread *t = hp_self ? hp_self : hp_adopt_self();
    return t && !t->guard ? t : NULL;
}

/* What an mmap of fd maps: a regular file on tmpfs or hugetlbfs (memfd, shm_open) is memory. */
static void file_source(int fd, off_t off, struct hp_mapping_src *src)
{
    struct stat st;
    struct statfs fs;
    src->kind = HP_MAP_UNCOUNTED;
    if (fd < 0 || syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    if (syscall(SYS_fstatfs, fd, &fs) != 0) return;
    if ((unsigned long)fs.f_type != TMPFS_MAGIC_ && (unsigned long)fs.f_type != HUGETLBFS_MAGIC_) return;
    *src = (struct hp_mapping_src){ HP_MAP_FILE, (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)off };
}

HP_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!ready()) return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (hp_unwind_warming && (flags & MAP_ANONYMOUS) && len >= HP_UNWIND_TABLE_BYTES) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    void *p = real.mmap(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED) {
        int saved = errno;
        struct hp_thread *t = counting();
        if (t) {
            struct hp_mapping_src src = { HP_MAP_ANON, 0, 0, 0 };
            if (!(flags & MAP_ANONYMOUS)) file_source(fd, off, &src);
            struct hp_mappings_delta d;
            hp_mappings_map(t, (uintptr_t)p, len, prot, &src, &d);
            hp_mappings_give(t, &d);
        }
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
        if (t) {
            struct hp_mappings_delta d;
            hp_mappings_unmap(t, (uintptr_t)addr, len, &d);
            hp_mappings_give(t, &d);
        }
        errno = saved;
    }
    return r;
}

HP_EXPORT int mprotect(void *addr, size_t len, int prot)
{
    if (!ready()) return (int)syscall(SYS_mprotect, addr, len, prot);
    int r = real.mprotect(addr, len, prot);
    if (r == 0) {
        int saved = errno;
        struct hp_thread *t = counting();
        if (t) {
            struct hp_mappings_delta d;
            hp_mappings_protect(t, (uintptr_t)addr, len, prot, &d);
            hp_mappings_give(t, &d);
        }
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
            struct hp_mappings_delta d;
            hp_mappings_remap(t, (uintptr_t)old, old_len, (uintptr_t)p, new_len, (flags & MREMAP_DONTUNMAP) != 0, &d);
            hp_mappings_give(t, &d);
        }
        errno = saved;
    }
    return p;
}
