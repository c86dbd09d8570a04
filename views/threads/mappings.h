/* mappings.h — anonymous memory the program maps itself (mmap, mremap, munmap), where
 * interpreters and custom allocators keep their heaps. The regions are remembered so that an
 * munmap is counted only for the anonymous part of what it unmaps. */
#ifndef HP_MAPPINGS_H
#define HP_MAPPINGS_H

#include <stdint.h>

/* A new anonymous region (len rounded up to pages): its length so rounded. */
uint64_t hp_mappings_add(uintptr_t start, uint64_t len);
/* [start, start+len) is unmapped: the anonymous bytes that were in it. */
uint64_t hp_mappings_remove(uintptr_t start, uint64_t len);
/* Anonymous bytes mapped now. */
uint64_t hp_mappings_live(void);

/* The mmap hooks' real functions (mmap_hooks.c), from hp_resolve. */
void hp_resolve_mmap(void);

#endif
