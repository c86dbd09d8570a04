/* memory.h — the profiler's own memory: a heap the program never sees (memory_heap.h: mimalloc,
 * loaded privately, on Linux; a malloc zone of its own on macOS) for buffers, and whole pages for
 * tables whose addresses must never move. All of it is counted, so the report can state what
 * profiling cost. */
#ifndef HP_MEMORY_H
#define HP_MEMORY_H

#include <stddef.h>
#include <stdint.h>

void hp_memory_init(void);              /* choose the heap (memory_linux.c, memory_darwin.c) */
/* a process that lasts: the heap for the long run (Linux: mimalloc, opened with open unless NULL;
 * the profiler's is hp_own_dlopen, core/hooks.h) */
void hp_memory_settle(void *(*open)(const char *name, int flags));
/* dlopen for the profiler: what the loader allocates meanwhile, on this thread, is cut from the
 * boot arena, never from the program's allocator (core/hooks_linux.c says why). */
void *hp_own_dlopen(const char *name, int flags);
/* fn(arg) with what the loader allocates on this thread meanwhile taken from the boot arena, as
 * in hp_own_dlopen (a first use of a dlopen'ed module's thread-local storage allocates). */
void hp_own_run(void (*fn)(void *), void *arg);
void hp_memory_restart_in_child(void);  /* a fork child: the early heap again until it settles (Linux) */
void *hp_alloc(size_t n);               /* zeroed; NULL on failure */
void *hp_realloc(void *p, size_t n);
void hp_free(void *p);
char *hp_strdup(const char *s);
void *hp_pages(size_t n);               /* zeroed, page-backed, never freed; NULL on failure */
/* The same for a table written only from its start, up to *filled units of unit bytes (a bump
 * count, which a reset that zeroes the table sets back): counted from that count, not asked of the
 * kernel page by page. */
void *hp_pages_filled(size_t n, const _Atomic uint64_t *filled, size_t unit);   /* filled lives as long as the process */
void hp_pages_zero(void *p, size_t n);  /* zero (part of) a hp_pages block, page-aligned, without touching it */
uint64_t hp_memory_in_use(void);        /* bytes held by the profiler now: its heap, and its pages' resident part */
const void *hp_memory_code(void);       /* an address in mimalloc's code once it serves, else NULL (Linux) */

#endif
