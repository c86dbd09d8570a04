/* memory_heap.h — the allocator under the profiler's own memory (memory.h), chosen by the platform
 * file: memory_linux.c (mimalloc, else glibc's internal entry points), memory_darwin.c (a malloc
 * zone of its own). memory.c does the accounting over it. */
#ifndef HP_MEMORY_HEAP_H
#define HP_MEMORY_HEAP_H

#include <stddef.h>

struct hp_heap {
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    size_t (*usable)(void *);       /* of a block of this heap */
};

/* Ready before the profiler allocates anything (hp_memory_init): a block must go back to the heap
 * that made it. */
extern struct hp_heap hp_heap;

/* Bytes taken from the early heap (Linux, memory_linux.c), which gives nothing back. */
size_t hp_heap_early_bytes(void);
/* n bytes of zeroed pages, never freed; NULL on failure. Never re-enters the hooks. */
void *hp_heap_map_pages(size_t n);
/* Make pages of hp_heap_map_pages zero again, giving back what was resident. */
void hp_heap_zero_pages(void *p, size_t n);
/* Bytes of the pages [p, p + n) that are resident now (touched so far); n when it cannot tell. */
size_t hp_heap_resident(void *p, size_t n);

#endif
