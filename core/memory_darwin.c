/* memory_darwin.c — the heap under the profiler's own memory on macOS (memory_heap.h): a malloc
 * zone of its own, so none of it comes from, or is counted in, the program's heap (mimalloc is not
 * part of this build); pages from mmap. Calls from libhotpath.dylib itself are never interposed,
 * so neither re-enters the hooks. Until hp_memory_init has made the zone, allocations fail. */
#include "memory.h"
#include "memory_heap.h"

#include <dlfcn.h>
#include <malloc/malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static malloc_zone_t *zone;

static void *zone_calloc(size_t n, size_t size)
{
    return zone ? malloc_zone_calloc(zone, n, size) : NULL;
}

static void *zone_realloc(void *p, size_t n)
{
    return p ? malloc_zone_realloc(zone, p, n) : zone_calloc(1, n);
}

static void zone_free(void *p)
{
    malloc_zone_free(zone, p);
}

static size_t zone_usable(void *p)
{
    return zone->size(zone, p);
}

struct hp_heap hp_heap = { zone_calloc, zone_realloc, zone_free, zone_usable };

void hp_memory_init(void)
{
    if (zone) return;
    zone = malloc_create_zone(0, 0);
    if (zone) malloc_set_zone_name(zone, "hotpath");
}

void hp_memory_settle(void *(*open)(const char *name, int flags))
{
    (void)open;
}

void hp_memory_restart_in_child(void)
{
}

size_t hp_heap_early_bytes(void)
{
    return 0;      /* no early heap: the zone serves from the start */
}

void *hp_heap_map_pages(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

size_t hp_heap_resident(void *p, size_t n)
{
    char vec[1024];
    size_t page = (size_t)getpagesize(), resident = 0;
    for (size_t off = 0; off < n; off += sizeof vec * page) {
        size_t len = n - off < sizeof vec * page ? n - off : sizeof vec * page;
        if (mincore((char *)p + off, len, vec) != 0) return n;
        for (size_t i = 0; i < (len + page - 1) / page; i++) resident += (vec[i] & 1) ? page : 0;
    }
    return resident < n ? resident : n;
}

void hp_heap_zero_pages(void *p, size_t n)
{
    memset(p, 0, n);   /* MADV_FREE may keep the old contents: no zero guarantee on macOS */
}

/* macOS has no hooks over the loader's allocations (the zone hooks serve the program only): the
 * profiler's dlopen is the system's. */
void *hp_own_dlopen(const char *name, int flags)
{
    return dlopen(name, flags);
}
