/* histogram.h — fixed log-linear latency histograms (docs/DESIGN.md rule 9): the bucket comes from the
 * value's leading bits, so recording is O(1) with no allocation; 4 buckets per power of two give
 * percentiles within 25%, from 1 up to 2^46 (about 19 hours in nanoseconds). */
#ifndef HP_HISTOGRAM_H
#define HP_HISTOGRAM_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_HIST_SUB_BITS 2
#define HP_HIST_SUB (1u << HP_HIST_SUB_BITS)
#define HP_HIST_MAX_EXP 46
#define HP_HIST_BUCKETS ((HP_HIST_MAX_EXP - HP_HIST_SUB_BITS + 1) * HP_HIST_SUB + HP_HIST_SUB)

struct hp_hist {
    _Atomic uint32_t counts[HP_HIST_BUCKETS];
};

static inline unsigned hp_hist_bucket(uint64_t v)
{
    if (v < HP_HIST_SUB) return (unsigned)v;
    unsigned exp = 63u - (unsigned)__builtin_clzll(v);
    if (exp > HP_HIST_MAX_EXP) return HP_HIST_BUCKETS - 1;
    unsigned sub = (unsigned)(v >> (exp - HP_HIST_SUB_BITS)) & (HP_HIST_SUB - 1);
    return (exp - HP_HIST_SUB_BITS + 1) * HP_HIST_SUB + sub;
}

/* Shared histograms (one lock, one file) take an atomic add: the operation measured already
 * wrote a shared line. */
static inline void hp_hist_add(struct hp_hist *h, uint64_t v)
{
    atomic_fetch_add_explicit(&h->counts[hp_hist_bucket(v)], 1, memory_order_relaxed);
}

/* The same by the histogram's only writer (the lock's holder, the resource's owner): load + store. */
static inline void hp_hist_add_owned(struct hp_hist *h, uint64_t v)
{
    _Atomic uint32_t *c = &h->counts[hp_hist_bucket(v)];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* The smallest and largest value a bucket holds. */
uint64_t hp_hist_bucket_low(unsigned bucket);
uint64_t hp_hist_bucket_high(unsigned bucket);
/* Copy the counts (relaxed loads) for a report. */
void hp_hist_snapshot(const struct hp_hist *h, uint32_t out[HP_HIST_BUCKETS]);
/* The value at quantile q (0..1) of counted values: the upper bound of the bucket that holds it,
 * capped at max (the exact largest value, when known; 0 = unknown). 0 when empty. */
uint64_t hp_hist_quantile(const uint32_t counts[HP_HIST_BUCKETS], double q, uint64_t max);

#endif
