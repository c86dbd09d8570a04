/* svg_chart.h — the HTML report's charts, drawn from the time series as inline SVG elements: CPU%
 * per thread (one line each), Diff per thread stacked (growing threads marked), and the RSS. Each
 * thread drawn is one element of class "series" (data-thread its name); a legend follows. */
#ifndef HP_SVG_CHART_H
#define HP_SVG_CHART_H

#include <stdint.h>

#include "core/history.h"
#include "buf.h"

#define HP_CHART_MAX_SERIES 16      /* threads drawn per chart, the largest first */

/* Times are drawn as seconds since start_ns. */
void hp_svg_cpu_chart(struct hp_buf *out, const struct hp_history_snap *h, uint64_t start_ns);
void hp_svg_diff_chart(struct hp_buf *out, const struct hp_history_snap *h, uint64_t start_ns);
void hp_svg_rss_chart(struct hp_buf *out, const struct hp_history_snap *h, uint64_t start_ns);
/* Text for HTML (and SVG) content and attribute values. */
void hp_html_escape(struct hp_buf *out, const char *s);

#endif
