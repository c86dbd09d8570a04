/* mmap_hooks_darwin.c — anonymous memory mapped by the program itself on macOS (mmap, munmap; there is
 * no mremap; mprotect is not hooked here): counted per thread apart from the heap, as on Linux. libmalloc takes its large
 * blocks with mach_vm_allocate, not mmap, so nothing counts twice. */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "mappings.h"
#include "process/darwin.h"

static void *hook_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = mmap(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED) {
        int saved = errno;
        struct hp_thread *t = hp_counting_thread();
        if (t) {
            struct hp_mapping_src src = { (flags & MAP_ANON) ? HP_MAP_ANON : HP_MAP_UNCOUNTED, 0, 0, 0 };
            struct hp_mappings_delta d;
            hp_mappings_map(t, (uintptr_t)p, len, prot, &src, &d);
            hp_mappings_give(t, &d);
        }
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
        if (t) {
            struct hp_mappings_delta d;
            hp_mappings_unmap(t, (uintptr_t)addr, len, &d);
            hp_mappings_give(t, &d);
        }
        errno = saved;
    }
    return r;
}
HP_INTERPOSE(hook_munmap, munmap);
