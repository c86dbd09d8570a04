/* history.h — the process's time series: after every pass the sampler thread (and only it) adds
 * each thread's CPU%, Alloc, Dealloc, Diff and live bytes by allocating thread, and the RSS, to a
 * series set bounded by HOTPATH_HISTORY_MB (core/series.h). Readers (the report, the
 * metrics server) take a copy, with each thread's trend computed on it. */
#ifndef HP_HISTORY_H
#define HP_HISTORY_H

#include <stdint.h>

#include "series.h"
#include "trend.h"

#define HP_HISTORY_COLUMNS 1024     /* points per series at most: finer runs merge */

/* What the diff_growing flag and the trend are computed on. */
enum hp_trend_basis { HP_BASIS_DIFF, HP_BASIS_LIVE };

struct hp_history_snap {
    struct hp_series_set set;   /* the points only when asked for */
    size_t memory_bytes;        /* what the series hold in the profiler's memory */
    struct hp_trend *trends;    /* one per series, in the set's order */
    enum hp_trend_basis basis;
    uint32_t interval_ms;
};

/* The sampler thread, after a pass. */
void hp_history_record(void);
/* In a fork child: the parent's series are the parent's. */
void hp_history_reset_in_child(void);
/* A copy of the series with each thread's trend (0), or -1 when there is none
 * (HOTPATH_HISTORY_MB=0, or no memory). Without points (with_points 0) the trends are computed
 * under the lock and only the series' headers are copied: what the threads view needs. */
int hp_history_snapshot(struct hp_history_snap *out, int with_points);
void hp_history_release(struct hp_history_snap *s);
/* The trend of a thread in a snapshot, NULL if it has no series. */
const struct hp_trend *hp_history_trend_of(const struct hp_history_snap *s, uint32_t index);
/* "diff" or "live_by_allocating_thread". */
const char *hp_history_basis_name(enum hp_trend_basis basis);

#endif
