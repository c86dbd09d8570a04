/* hash.h — the hashes the profiler's tables share: FNV-1a for text keys (file names, function
 * names), a 64-bit finaliser for addresses. */
#ifndef HP_HASH_H
#define HP_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HP_FNV_BASIS 2166136261u

/* FNV-1a of len bytes, continuing from h (HP_FNV_BASIS to start). */
static inline uint32_t hp_fnv1a(const void *data, size_t len, uint32_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* MurmurHash3's 64-bit finaliser: every input bit moves every output bit. */
static inline uint64_t hp_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

#endif
