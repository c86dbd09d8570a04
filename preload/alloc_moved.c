/* alloc_moved.c — see alloc_moved.h. */
#include "alloc_moved.h"

#include <string.h>

#include "../collectors/memory_heap.h"
#include "real.h"

void *hp_move_chunk(void *p, size_t u)
{
    if (hp_chunk_head(p) & HP_CHUNK_LOOK) return p;
    uintptr_t at = (uintptr_t)p;
    size_t align = (size_t)(at & -at);
    if (align < 16) align = 16;
    size_t pad = align < 32 ? 32 : align;
    char *base = hp_heap.memalign(align, pad + u);
    if (!base) return NULL;
    size_t *q = (size_t *)(base + pad);
    q[-3] = (size_t)base;
    q[-2] = HP_MOVED_MAGIC;
    q[-1] = (u + 16) | 2;
    memcpy(q, p, u);
    hp_hot.real.free(p);
    return q;
}

void hp_moved_release(void *p)
{
    hp_heap.free((void *)((size_t *)p)[-3]);
}
