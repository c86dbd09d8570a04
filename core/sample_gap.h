/* sample_gap.h — how many calls to the next timed one, when one call in `period` is timed (lock
 * holds, I/O calls). A fixed period lines up with a program's own loops: one that takes lock A
 * then lock B, twenty times a round, would time every hold of A and none of B. A gap drawn
 * uniformly from 1 to 2*period-1 keeps the mean at one in `period` and times every lock and
 * descriptor alike. Drawn only when a call is timed, from the clock reading taken for it. */
#ifndef HP_SAMPLE_GAP_H
#define HP_SAMPLE_GAP_H

#include <stdint.h>

/* period >= 2; noise: a fresh clock reading (mixed with something per thread) */
static inline uint32_t hp_sample_gap(uint32_t period, uint64_t noise)
{
    uint64_t z = noise * 0x9E3779B97F4A7C15ull;
    z ^= z >> 29;
    z *= 0xBF58476D1CE4E5B9ull;
    z ^= z >> 32;
    return 1 + (uint32_t)(z % (2ull * period - 1));
}

#endif
