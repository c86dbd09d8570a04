/* history_json.h — the time series as JSON: the /history endpoint's answer
 * (report/report.schema.json `$defs/history`). */
#ifndef HP_HISTORY_JSON_H
#define HP_HISTORY_JSON_H

#include "core/history.h"
#include "buf.h"
#include "json.h"

/* The whole document; times are ns since start_ns. */
void hp_history_json(struct hp_buf *out, const struct hp_history_snap *s, uint64_t start_ns);
/* What the series cover: resolution, points, memory and the trend's basis (the `history`
 * object of the threads section). */
void hp_history_summary_json(struct hp_json *j, const char *key, const struct hp_history_snap *s);
/* The resolution that survived merging: sampler passes per point times the interval. */
uint64_t hp_history_resolution_ms(const struct hp_history_snap *s);

#endif
