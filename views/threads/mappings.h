/* mappings.h — the memory the program maps itself (mmap, mremap, mprotect, munmap): anonymous
 * mappings, where interpreters, runtimes and custom allocators keep their heaps, and mappings of
 * memory files (memfd, shm_open, /dev/shm: a regular file on tmpfs or hugetlbfs), where some keep
 * theirs (ZGC's heap is one memfd mapped three times). Other file mappings are not counted.
 *
 * Two figures, both exact in pages:
 *   mapped    memory the program can use: accessible (not PROT_NONE) anonymous bytes, plus the
 *             bytes of each memory file mapped accessible somewhere, each counted once however
 *             many times it is mapped (a memfd mapped twice counts its size once)
 *   reserved  address space mapped PROT_NONE (reservations, guard regions): every mapping counts
 * A change to either is the calling thread's (struct hp_mappings_delta), so the threads' rows add
 * up to the live figures. The regions are remembered in the profiler's own pages (raw system
 * calls, never malloc) under a short spinlock; a call made while the same thread holds it (a
 * signal handler that interrupted the table) is left out rather than waiting for itself. */
#ifndef HP_MAPPINGS_H
#define HP_MAPPINGS_H

#include <stdint.h>

/* What a call changed: bytes (negative: fewer). */
struct hp_mappings_delta { int64_t mapped, reserved; };

/* What a new mapping maps: anonymous memory, a memory file (its device and inode, and the offset
 * mapped), or something not counted, which still replaces what was there. */
enum { HP_MAP_ANON, HP_MAP_FILE, HP_MAP_UNCOUNTED };
struct hp_mapping_src { int kind; uint64_t dev, ino, offset; };

/* self: the calling thread's token (its state), to tell its own reentry apart.
 * mmap succeeded at [start, start+len) with prot. */
void hp_mappings_map(const void *self, uintptr_t start, uint64_t len, int prot,
                     const struct hp_mapping_src *src, struct hp_mappings_delta *d);
void hp_mappings_unmap(const void *self, uintptr_t start, uint64_t len, struct hp_mappings_delta *d);
void hp_mappings_protect(const void *self, uintptr_t start, uint64_t len, int prot, struct hp_mappings_delta *d);
/* mremap moved or resized [old, old+old_len) to [now, now+new_len); keep_old: MREMAP_DONTUNMAP. */
void hp_mappings_remap(const void *self, uintptr_t old, uint64_t old_len, uintptr_t now, uint64_t new_len,
                       int keep_old, struct hp_mappings_delta *d);
/* The live figures, mapped and reserved bytes. */
void hp_mappings_figures(uint64_t *mapped, uint64_t *reserved);
/* In a fork child: the parent's mappings were the parent's (the child's counters start at 0). */
void hp_mappings_reset_in_child(void);

/* A change of the figures is the calling thread's: its counters (mappings_thread.h). */
#define hp_mappings_give(t, d)                                                                  \
    do {                                                                                        \
        if ((d)->mapped > 0) hp_count(&(t)->mapped_bytes, (uint64_t)(d)->mapped);               \
        else if ((d)->mapped < 0) hp_count(&(t)->unmapped_bytes, (uint64_t)-(d)->mapped);       \
        if ((d)->reserved) hp_count(&(t)->reserved_bytes, (uint64_t)(d)->reserved); /* wraps */ \
    } while (0)

/* The mmap hooks' real functions (mmap_hooks.c), from hp_resolve. */
void hp_resolve_mmap(void);

#endif
