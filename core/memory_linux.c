/* memory_linux.c — the heap under the profiler's own memory on Linux (memory_heap.h): mimalloc,
 * whose shared library also defines malloc and operator new, so it is opened RTLD_LOCAL: its
 * symbols stay out of the global scope and the program's allocator is untouched. Without it (and
 * until hp_memory_init), glibc's internal entry points (__libc_*) serve, which no hook sees. */
#define _GNU_SOURCE
#include "memory.h"
#include "memory_heap.h"

#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* glibc's own, for the __libc_* heap: the global one may be another allocator's */
static size_t (*libc_usable)(void *);

static size_t libc_usable_size(void *p)
{
    return libc_usable ? libc_usable(p) : 0;
}

struct hp_heap hp_heap = { __libc_calloc, __libc_realloc, __libc_free, libc_usable_size };

void hp_memory_init(void)
{
    static int done;
    if (done) return;
    done = 1;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (libc) libc_usable = (size_t (*)(void *))dlsym(libc, "malloc_usable_size");
    void *h = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    void *c = dlsym(h, "mi_calloc"), *r = dlsym(h, "mi_realloc");
    void *f = dlsym(h, "mi_free"), *u = dlsym(h, "mi_usable_size");
    if (!c || !r || !f || !u) return;
    hp_heap = (struct hp_heap){ (void *(*)(size_t, size_t))c, (void *(*)(void *, size_t))r,
                                (void (*)(void *))f, (size_t (*)(void *))u };
}

const void *hp_memory_code(void)
{
    return (const void *)hp_heap.calloc;
}

void *hp_heap_map_pages(size_t n)
{
    /* a raw syscall: the program's mmap may be hooked, and this runs inside malloc hooks */
    long r = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return r == -1 ? NULL : (void *)r;
}

size_t hp_heap_resident(void *p, size_t n)
{
    unsigned char vec[1024];
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
