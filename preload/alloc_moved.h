/* alloc_moved.h — where a sampled block lives when glibc's allocator is the program's: moved out
 * of glibc's heap into the profiler's, behind a header that reads like one of glibc's mmapped
 * chunks. The free of any block reads its chunk header anyway (its usable size is counted); a
 * sampled block is told by that same word, so the free of a block that was not sampled makes no
 * lookup and touches no memory of ours. Chunks of HP_MOVE_LIMIT bytes or more, and glibc's own
 * mmapped chunks, stay where they are: their frees look in the live table (alloc_sites.h).
 *
 * A moved block p of usable size u and alignment a (the lowest set bit of the original's address,
 * at least 16) sits pad = max(a, 32) bytes into a block of the profiler's heap, base:
 *   p[-3] = base, p[-2] = HP_MOVED_MAGIC, p[-1] = (u + 16) | IS_MMAPPED (2)
 * so glibc's own malloc_usable_size, should anything reach it, reads u too. */
#ifndef HP_ALLOC_MOVED_H
#define HP_ALLOC_MOVED_H

#include <stddef.h>
#include <stdint.h>

#define HP_MOVE_LIMIT ((size_t)128 * 1024)
/* glibc's prev_size of an mmapped chunk is an offset into its mapping: never this large */
#define HP_MOVED_MAGIC ((size_t)0x68705f6d6f766564ull)
/* Header bits whose free must look further: IS_MMAPPED, or a chunk of HP_MOVE_LIMIT or more. */
#define HP_CHUNK_LOOK (~(HP_MOVE_LIMIT - 1) | 2)

static inline size_t hp_chunk_head(const void *p)
{
    return ((const size_t *)p)[-1];
}

/* p is a glibc chunk or a moved block: which of the two. */
static inline int hp_moved(const void *p)
{
    return (hp_chunk_head(p) & 2) && ((const size_t *)p)[-2] == HP_MOVED_MAGIC;
}

/* The mover of glibc chunks (alloc_sites.h): a small chunk p of usable size u is copied into the
 * profiler's heap and freed; returns where it is now (p itself for a chunk that stays), or NULL
 * when it can be neither moved nor kept track of. */
void *hp_move_chunk(void *p, size_t u);
/* Gives a moved block's memory back (the caller has counted and forgotten it). */
void hp_moved_release(void *p);

#endif
