/* prometheus.h — the Prometheus text exposition format 0.0.4 (`/metrics`): the process's own
 * families here, each view's through its section's `prometheus` rendering; and the pure helpers
 * those renderings share (report/prometheus_text.c, unit-tested). */
#ifndef HP_PROMETHEUS_H
#define HP_PROMETHEUS_H

#include <stdint.h>

#include "core/histogram.h"
#include "buf.h"

/* Every family, from every selected view that is available. */
void hp_prometheus_render(struct hp_buf *out);

/* # HELP and # TYPE lines. */
void hp_prom_family(struct hp_buf *out, const char *name, const char *type, const char *help);
/* A label value, escaped as the format wants (\\, \", \n); bytes that are not UTF-8 become U+FFFD. */
void hp_prom_escape(struct hp_buf *out, const char *value);
/* `name{labels} value\n`; labels is the text between the braces (may be "" for none). */
void hp_prom_u64(struct hp_buf *out, const char *name, const char *labels, uint64_t v);
void hp_prom_double(struct hp_buf *out, const char *name, const char *labels, double v);

/* Histogram buckets in seconds: 1 µs to 10 s by decades, then +Inf. */
#define HP_PROM_LE 8
extern const double hp_prom_le_seconds[HP_PROM_LE];
/* Cumulative counts per le (out[HP_PROM_LE] = +Inf = all) from a fine histogram whose buckets
 * are in units that to_ns converts (ticks, or ns when to_ns is NULL). A fine bucket counts under
 * the first le that holds its upper bound. */
void hp_prom_coarse(const uint32_t counts[HP_HIST_BUCKETS], uint64_t (*to_ns)(uint64_t),
                    uint64_t out[HP_PROM_LE + 1]);
/* The _bucket, _sum and _count lines of one histogram series; labels as above. */
void hp_prom_histogram(struct hp_buf *out, const char *name, const char *labels,
                       const uint64_t cum[HP_PROM_LE + 1], double sum_seconds);

#endif
