/* histogram.c — see histogram.h. */
#include "histogram.h"

uint64_t hp_hist_bucket_low(unsigned bucket)
{
    if (bucket < HP_HIST_SUB) return bucket;
    unsigned exp = bucket / HP_HIST_SUB + HP_HIST_SUB_BITS - 1, sub = bucket % HP_HIST_SUB;
    return ((uint64_t)1 << exp) | ((uint64_t)sub << (exp - HP_HIST_SUB_BITS));
}

uint64_t hp_hist_bucket_high(unsigned bucket)
{
    if (bucket + 1 >= HP_HIST_BUCKETS) return UINT64_MAX;
    return hp_hist_bucket_low(bucket + 1) - 1;
}

void hp_hist_snapshot(const struct hp_hist *h, uint32_t out[HP_HIST_BUCKETS])
{
    for (unsigned i = 0; i < HP_HIST_BUCKETS; i++)
        out[i] = atomic_load_explicit(&h->counts[i], memory_order_relaxed);
}

uint64_t hp_hist_quantile(const uint32_t counts[HP_HIST_BUCKETS], double q, uint64_t max)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < HP_HIST_BUCKETS; i++) total += counts[i];
    if (total == 0) return 0;
    if (q < 0) q = 0;
    if (q > 1) q = 1;
    uint64_t rank = (uint64_t)(q * (double)total + 0.5);
    if (rank == 0) rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < HP_HIST_BUCKETS; i++) {
        seen += counts[i];
        if (seen >= rank) {
            uint64_t high = hp_hist_bucket_high(i);
            return max && high > max ? max : high;
        }
    }
    return max;
}
