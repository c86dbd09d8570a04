/* mmap_hooks_darwin.c — anonymous memory mapped by the program itself on macOS (mmap, munmap; there is
 * no mremap): counted per thread apart from the heap, as on Linux. libmalloc takes its large
 * blocks with mach_vm_allocate, not mmap, so nothing counts twice. */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "mappings.h"
#include "process/darwin.h"

static void *hook_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = mmap(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && (flags & MAP_ANON)) {
        int saved = errno;
        struct hp_thread *t = hp_counting_thread();
        if (t) hp_count(&t->mapped_bytes, hp_mappings_add((uintptr_t)p, len));
        errno = saved;
    }
    return p;
}
HP_INTERPOSE(hook_mmap, mmap);

static int hook_munmap(void *addr, size_t len)
{
    int r = munmap(addr, len);
    if (r == 0) {
        int saved = errno;
        struct hp_thread *t = hp_counting_thread();
        if (t) hp_count(&t->unmapped_bytes, hp_mappings_remove((uintptr_t)addr, len));
        errno = saved;
    }
    return r;
}
HP_INTERPOSE(hook_munmap, munmap);
