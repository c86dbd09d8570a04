/* memory.c — see memory.h. mimalloc's shared library also defines malloc and operator new, so it
 * is opened RTLD_LOCAL: its symbols stay out of the global scope and the program's allocator is
 * untouched. Without it, glibc's internal entry points (__libc_*) serve, which no hook sees. */
#define _GNU_SOURCE
#include "memory.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static struct {
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    size_t (*usable)(const void *);
} mi;

static _Atomic uint64_t heap_bytes, page_bytes;
/* glibc's own, for the __libc_* fallback: the global one may be another allocator's */
static size_t (*libc_usable)(void *);

void hp_memory_init(void)
{
    if (mi.calloc) return;
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (libc) libc_usable = (size_t (*)(void *))dlsym(libc, "malloc_usable_size");
    void *h = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    void *c = dlsym(h, "mi_calloc"), *r = dlsym(h, "mi_realloc");
    void *f = dlsym(h, "mi_free"), *u = dlsym(h, "mi_usable_size");
    if (!c || !r || !f || !u) return;
    mi.realloc = (void *(*)(void *, size_t))r;
    mi.free = (void (*)(void *))f;
    mi.usable = (size_t (*)(const void *))u;
    atomic_store(&mi.calloc, (void *(*)(size_t, size_t))c);
}

static size_t usable(void *p)
{
    if (!p) return 0;
    if (mi.calloc) return mi.usable(p);
    return libc_usable ? libc_usable(p) : 0;
}

/* A buffer must be freed by the allocator that made it: the choice is made once, at init,
 * before the profiler allocates anything. */
void *hp_alloc(size_t n)
{
    void *p = mi.calloc ? mi.calloc(1, n) : __libc_calloc(1, n);
    atomic_fetch_add_explicit(&heap_bytes, usable(p), memory_order_relaxed);
    return p;
}

void *hp_realloc(void *p, size_t n)
{
    size_t before = usable(p);
    void *q = mi.calloc ? mi.realloc(p, n) : __libc_realloc(p, n);
    if (!q) return NULL;
    atomic_fetch_add_explicit(&heap_bytes, usable(q) - before, memory_order_relaxed);
    return q;
}

void hp_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub_explicit(&heap_bytes, usable(p), memory_order_relaxed);
    if (mi.calloc) mi.free(p);
    else __libc_free(p);
}

char *hp_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = hp_alloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void *hp_pages(size_t n)
{
    /* a raw syscall: the program's mmap may be hooked, and this runs inside malloc hooks */
    long r = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == -1) return NULL;
    void *p = (void *)r;
    atomic_fetch_add_explicit(&page_bytes, n, memory_order_relaxed);
    return p;
}

uint64_t hp_memory_in_use(void)
{
    return atomic_load(&heap_bytes) + atomic_load(&page_bytes);
}
