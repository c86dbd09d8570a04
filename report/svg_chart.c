/* svg_chart.c — see svg_chart.h. Every chart shares one frame: time on x (the series' columns),
 * the value on y, labels at the ends of both axes; coordinates with one decimal. */
#include "svg_chart.h"

#include <stdint.h>

#include "core/memory.h"
#include "format.h"

#define W 880
#define H 240
#define ML 76       /* room for the value labels */
#define MR 12
#define MT 12
#define MB 28       /* room for the time labels */

/* The few sums of doubles the charts need, here rather than from libm, which libhotpath.so does
 * not load (core/exp_log.h). */
static double dmax(double a, double b) { return a > b || b != b ? a : b; }
static double dmin(double a, double b) { return a < b || b != b ? a : b; }
static double dabs(double a) { return a < 0 ? -a : a; }
static double dceil(double a)          /* 0 <= a < 2^63 */
{
    double c = (double)(int64_t)a;
    return c < a ? c + 1 : c;
}

static const char *const palette[HP_CHART_MAX_SERIES] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#8c6d31", "#843c39", "#7b4173",
};

enum unit { PERCENT, BYTES };

struct frame {
    double t0, t1, v0, v1;
    enum unit unit;
};

void hp_html_escape(struct hp_buf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': hp_buf_puts(out, "&amp;"); break;
        case '<': hp_buf_puts(out, "&lt;"); break;
        case '>': hp_buf_puts(out, "&gt;"); break;
        case '"': hp_buf_puts(out, "&quot;"); break;
        case '\'': hp_buf_puts(out, "&#39;"); break;
        default: hp_buf_putc(out, *s);
        }
    }
}

static double x_of(const struct frame *f, double t)
{
    double share = f->t1 > f->t0 ? (t - f->t0) / (f->t1 - f->t0) : 0;
    return ML + share * (W - ML - MR);
}

static double y_of(const struct frame *f, double v)
{
    double share = f->v1 > f->v0 ? (v - f->v0) / (f->v1 - f->v0) : 0;
    return MT + (1 - share) * (H - MT - MB);
}

static void num(struct hp_buf *out, double v)
{
    char b[HP_FMT_MAX];
    hp_fmt_fixed(b, v, 1);
    hp_buf_puts(out, b);
}

/* "x,y" then sep. */
static void point(struct hp_buf *out, const struct frame *f, double t, double v, const char *sep)
{
    num(out, x_of(f, t));
    hp_buf_putc(out, ',');
    num(out, y_of(f, v));
    hp_buf_puts(out, sep);
}

static double col_time(const struct hp_series_set *set, uint32_t k, uint64_t start_ns)
{
    uint64_t t = set->cols[k].t_ns;
    return t > start_ns ? (double)(t - start_ns) / 1e9 : 0;
}

static void value_label(char out[HP_FMT_MAX], const struct frame *f, double v)
{
    if (f->unit == PERCENT) hp_fmt_percent(out, v);
    else hp_fmt_bytes(out, (int64_t)v);
}

static void text(struct hp_buf *out, double x, double y, const char *anchor, const char *s)
{
    hp_buf_puts(out, "<text class=\"tick\" x=\"");
    num(out, x);
    hp_buf_puts(out, "\" y=\"");
    num(out, y);
    hp_buf_printf(out, "\" text-anchor=\"%s\">", anchor);
    hp_html_escape(out, s);
    hp_buf_puts(out, "</text>");
}

static void chart_begin(struct hp_buf *out, const char *id, const char *title, const struct frame *f)
{
    hp_buf_printf(out, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                  "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\"><title>%s</title>",
                  id, W, H, W, H, title);
    for (int q = 0; q <= 4; q++) {          /* grid lines and value labels */
        double v = f->v0 + (f->v1 - f->v0) * q / 4.0;
        char label[HP_FMT_MAX];
        value_label(label, f, v);
        hp_buf_puts(out, "<line class=\"grid\" x1=\"" );
        num(out, ML);
        hp_buf_puts(out, "\" x2=\"");
        num(out, W - MR);
        hp_buf_puts(out, "\" y1=\"");
        num(out, y_of(f, v));
        hp_buf_puts(out, "\" y2=\"");
        num(out, y_of(f, v));
        hp_buf_puts(out, "\"/>");
        text(out, ML - 6, y_of(f, v) + 4, "end", label);
    }
    char t0[HP_FMT_MAX], t1[HP_FMT_MAX];
    hp_fmt_duration(t0, (uint64_t)(f->t0 * 1e9));
    hp_fmt_duration(t1, (uint64_t)(f->t1 * 1e9));
    text(out, ML, H - 8, "start", t0);
    text(out, W - MR, H - 8, "end", t1);
}

/* Up to HP_CHART_MAX_SERIES series, the largest peak |metric| first; returns how many. */
static uint32_t pick(const struct hp_series_set *set, int metric, uint32_t *order)
{
    uint32_t n = 0;
    unsigned char *taken = hp_alloc(set->nseries ? set->nseries : 1);
    if (!taken) return 0;
    while (n < HP_CHART_MAX_SERIES) {
        long best = -1;
        double best_peak = -1;
        for (uint32_t i = 0; i < set->nseries; i++) {
            const struct hp_series *r = &set->series[i];
            if (taken[i] || !r->n) continue;
            double peak = 0;
            for (uint32_t j = 0; j < r->n; j++) peak = dmax(peak, dmax(dabs(r->points[j].m[metric].max), dabs(r->points[j].m[metric].min)));
            if (peak > best_peak) { best = i; best_peak = peak; }
        }
        if (best < 0) break;
        taken[best] = 1;
        order[n++] = (uint32_t)best;
    }
    hp_free(taken);
    return n;
}

static void legend(struct hp_buf *out, const char *chart, const struct hp_history_snap *h,
                   const uint32_t *order, uint32_t n, int mark_growing)
{
    hp_buf_printf(out, "<ul class=\"legend\" data-chart=\"%s\">", chart);
    for (uint32_t i = 0; i < n; i++) {
        const struct hp_series *r = &h->set.series[order[i]];
        const struct hp_trend *t = &h->trends[order[i]];
        int growing = mark_growing && t->growing;
        hp_buf_printf(out, "<li%s><span class=\"swatch\" style=\"background:%s\"></span>",
                      growing ? " class=\"growing\"" : "", palette[i]);
        hp_html_escape(out, r->name);
        if (growing) {
            char rate[HP_FMT_MAX];
            hp_fmt_bytes(rate, (int64_t)t->bytes_per_min);
            hp_buf_printf(out, " <strong>&#9650; growing, %s/min</strong>", rate);
        }
        hp_buf_puts(out, "</li>");
    }
    if (h->set.nseries > n) hp_buf_printf(out, "<li>%u more threads not drawn</li>", h->set.nseries - n);
    hp_buf_puts(out, "</ul>\n");
}

static void series_open(struct hp_buf *out, const char *element, const struct hp_series *r,
                        const char *extra_class, const char *colour, int fill)
{
    hp_buf_printf(out, "<%s class=\"series%s\" data-thread=\"", element, extra_class);
    hp_html_escape(out, r->name);
    hp_buf_printf(out, "\" %s=\"%s\" %s", fill ? "fill" : "stroke", colour, fill ? "" : "fill=\"none\" ");
}

static void frame_times(struct frame *f, const struct hp_series_set *set, uint64_t start_ns)
{
    f->t0 = set->ncols ? col_time(set, 0, start_ns) : 0;
    f->t1 = set->ncols ? col_time(set, set->ncols - 1, start_ns) : 0;
}

void hp_svg_cpu_chart(struct hp_buf *out, const struct hp_history_snap *h, uint64_t start_ns)
{
    const struct hp_series_set *set = &h->set;
    uint32_t order[HP_CHART_MAX_SERIES], n = pick(set, HP_SM_CPU_PERCENT, order);
    struct frame f = { .unit = PERCENT };
    frame_times(&f, set, start_ns);
    double peak = 1;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < set->series[order[i]].n; j++)
            peak = dmax(peak, set->series[order[i]].points[j].m[HP_SM_CPU_PERCENT].mean);
    f.v1 = dmin(100, dceil(peak / 10) * 10);
    chart_begin(out, "cpu-chart", "CPU% per thread", &f);
    for (uint32_t i = 0; i < n; i++) {
        const struct hp_series *r = &set->series[order[i]];
        series_open(out, "polyline", r, "", palette[i], 0);
        hp_buf_puts(out, "points=\"");
        for (uint32_t j = 0; j < r->n; j++)
            point(out, &f, col_time(set, r->first + j, start_ns), r->points[j].m[HP_SM_CPU_PERCENT].mean, " ");
        hp_buf_puts(out, "\"><title>");
        hp_html_escape(out, r->name);
        hp_buf_puts(out, "</title></polyline>");
    }
    hp_buf_puts(out, "</svg>\n");
    legend(out, "cpu-chart", h, order, n, 0);
}

/* A thread's Diff at column k: 0 before its first point, its last value after it ended. */
static double diff_at(const struct hp_series *r, uint32_t k)
{
    if (!r->n || k < r->first) return 0;
    uint32_t j = k - r->first < r->n ? k - r->first : r->n - 1;
    return r->points[j].m[HP_SM_DIFF].mean;
}

/* One band of the stack: from base up (or down) by the thread's positive (negative) part. */
static void band(struct hp_buf *out, const struct frame *f, const struct hp_series_set *set,
                 const struct hp_series *r, double *base, int negative, uint64_t start_ns)
{
    for (uint32_t k = 0; k < set->ncols; k++) {
        double v = diff_at(r, k);
        double part = negative ? dmin(v, 0) : dmax(v, 0);
        hp_buf_puts(out, k ? "L" : "M");
        point(out, f, col_time(set, k, start_ns), base[k] + part, " ");
    }
    for (uint32_t k = set->ncols; k-- > 0;) {
        hp_buf_puts(out, "L");
        point(out, f, col_time(set, k, start_ns), base[k], " ");
    }
    hp_buf_puts(out, "Z ");
    for (uint32_t k = 0; k < set->ncols; k++) {
        double v = diff_at(r, k);
        base[k] += negative ? dmin(v, 0) : dmax(v, 0);
    }
}

void hp_svg_diff_chart(struct hp_buf *out, const struct hp_history_snap *h, uint64_t start_ns)
{
    const struct hp_series_set *set = &h->set;
    uint32_t order[HP_CHART_MAX_SERIES], n = pick(set, HP_SM_DIFF, order);
    double *up = hp_alloc((set->ncols + 1) * sizeof *up), *down = hp_alloc((set->ncols + 1) * sizeof *down);
    if (!up || !down) {
        out->failed = 1;
        hp_free(up);
        hp_free(down);
        return;
    }
    struct frame f = { .unit = BYTES, .v1 = 1 };
    frame_times(&f, set, start_ns);
    for (uint32_t k = 0; k < set->ncols; k++) {
        double pos = 0, neg = 0;
        for (uint32_t i = 0; i < n; i++) {
            double v = diff_at(&set->series[order[i]], k);
            if (v > 0) pos += v;
            else neg += v;
        }
        f.v1 = dmax(f.v1, pos);
        f.v0 = dmin(f.v0, neg);
    }
    chart_begin(out, "diff-chart", "Diff per thread, stacked", &f);
    for (uint32_t i = 0; i < n; i++) {
        const struct hp_series *r = &set->series[order[i]];
        series_open(out, "path", r, h->trends[order[i]].growing ? " growing" : "", palette[i], 1);
        hp_buf_puts(out, "d=\"");
        band(out, &f, set, r, up, 0, start_ns);
        if (f.v0 < 0) band(out, &f, set, r, down, 1, start_ns);
        hp_buf_puts(out, "\"><title>");
        hp_html_escape(out, r->name);
        hp_buf_puts(out, h->trends[order[i]].growing ? " (growing)" : "");
        hp_buf_puts(out, "</title></path>");
    }
    hp_buf_puts(out, "</svg>\n");
    hp_free(up);
    hp_free(down);
    legend(out, "diff-chart", h, order, n, 1);
}

void hp_svg_rss_chart(struct hp_buf *out, const struct hp_history_snap *h, uint64_t start_ns)
{
    const struct hp_series_set *set = &h->set;
    struct frame f = { .unit = BYTES, .v1 = 1 };
    frame_times(&f, set, start_ns);
    for (uint32_t k = 0; k < set->ncols; k++) f.v1 = dmax(f.v1, set->cols[k].rss.max);
    chart_begin(out, "rss-chart", "RSS of the process", &f);
    hp_buf_puts(out, "<polyline class=\"rss\" stroke=\"#333\" fill=\"none\" points=\"");
    for (uint32_t k = 0; k < set->ncols; k++) point(out, &f, col_time(set, k, start_ns), set->cols[k].rss.mean, " ");
    hp_buf_puts(out, "\"><title>RSS</title></polyline></svg>\n");
}
