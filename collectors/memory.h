/* memory.h — the profiler's own memory: mimalloc (loaded privately, so the program never sees it)
 * for buffers, and whole pages for tables whose addresses must never move. All of it is counted,
 * so the report can state what profiling cost. */
#ifndef HP_MEMORY_H
#define HP_MEMORY_H

#include <stddef.h>
#include <stdint.h>

void hp_memory_init(void);              /* load mimalloc; falls back to glibc's own entry points */
void *hp_alloc(size_t n);               /* zeroed; NULL on failure */
void *hp_realloc(void *p, size_t n);
void hp_free(void *p);
char *hp_strdup(const char *s);
void *hp_pages(size_t n);               /* zeroed, page-backed, never freed; NULL on failure */
uint64_t hp_memory_in_use(void);        /* bytes held by the profiler now */

#endif
