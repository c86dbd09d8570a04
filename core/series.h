/* series.h — time series of every thread within a fixed memory budget. Samples land in columns
 * (one column = `span` sampler passes, the same for every series); each thread's series holds one
 * point per column it lived in, each metric as min, max and mean. When the columns reach their
 * limit or the budget is reached, every two neighbouring columns merge into one (min of mins, max
 * of maxes, mean weighted by samples), doubling the span; a series of an ended thread is evicted
 * (oldest end first) before live threads lose resolution. Pure data: no locking, no clock. */
#ifndef HP_SERIES_H
#define HP_SERIES_H

#include <stddef.h>
#include <stdint.h>

/* The metrics kept per thread, in this order. */
enum hp_series_metric {
    HP_SM_CPU_PERCENT, HP_SM_ALLOC, HP_SM_DEALLOC, HP_SM_DIFF, HP_SM_LIVE, HP_SM_COUNT
};

#define HP_SERIES_NAME_MAX 48

struct hp_stat {
    double min, max, mean;
};

struct hp_series_point {
    uint32_t samples;
    struct hp_stat m[HP_SM_COUNT];
};

struct hp_series_column {
    uint64_t t_ns;            /* time of the column's last sample */
    uint32_t samples;
    struct hp_stat rss;       /* process resident set, bytes */
};

struct hp_series {
    uint32_t index;           /* the thread's creation order */
    int tid;
    char name[HP_SERIES_NAME_MAX];
    unsigned char ended;      /* the thread is gone: no more points */
    uint64_t seen_pass;       /* the last pass that gave it a sample */
    uint32_t first;           /* column of points[0] */
    uint32_t n, cap;
    struct hp_series_point *points;
};

struct hp_series_set {
    size_t budget_bytes;
    uint32_t max_columns;
    uint32_t span;            /* sampler passes per column: 1, 2, 4, ... */
    uint64_t passes;
    uint32_t ncols, cap_cols;
    struct hp_series_column *cols;
    uint32_t nseries, cap_series;
    struct hp_series *series;     /* sorted by index */
    uint64_t evicted;         /* series of ended threads evicted to stay in the budget */
    uint64_t dropped;         /* samples that did not fit even at the coarsest resolution */
};

void hp_series_init(struct hp_series_set *s, size_t budget_bytes, uint32_t max_columns);
void hp_series_free(struct hp_series_set *s);
/* A sampler pass at t_ns: the process figures; opens a new column unless the last one still
 * has room (fewer than span samples). Returns -1 when nothing fits (the pass is dropped). */
int hp_series_pass(struct hp_series_set *s, uint64_t t_ns, double rss_bytes);
/* One thread's figures in the current pass (call after hp_series_pass). */
int hp_series_add(struct hp_series_set *s, uint32_t index, int tid, const char *name,
                  const double v[HP_SM_COUNT]);
/* After a pass: series that got no sample in it are marked ended. */
void hp_series_end_missing(struct hp_series_set *s);
/* Every two neighbouring columns become one (span doubles). */
void hp_series_merge(struct hp_series_set *s);
/* Bytes the set holds now. */
size_t hp_series_bytes(const struct hp_series_set *s);
/* A copy for a reader that renders without holding the writer's lock: deep, or without the
 * points (each series' n kept, points NULL) when with_points is 0; 0 or -1. */
int hp_series_copy(struct hp_series_set *dst, const struct hp_series_set *src, int with_points);
/* The series of a thread, NULL if none. */
const struct hp_series *hp_series_find(const struct hp_series_set *s, uint32_t index);
/* One statistic merged into another: a holds na samples, b nb. */
void hp_stat_merge(struct hp_stat *a, uint32_t na, const struct hp_stat *b, uint32_t nb);

#endif
