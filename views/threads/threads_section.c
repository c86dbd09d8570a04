/* threads_section.c — the threads view: CPU and memory per thread, live and exited. */
#include <stdio.h>
#include <string.h>

#include "core/history.h"
#include "mappings.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/procfs.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/sort.h"
#include "core/ticks.h"
#include "report/format.h"
#include "report/history_json.h"
#include "report/prometheus.h"
#include "report/section.h"
#include "report/table.h"
#include "threads_settings.h"

struct thread_row {
    uint32_t index;
    int tid;
    char name[48];
    const char *status;
    uint32_t folded;     /* exited threads folded into this row, 0 for one thread's row */
    int has_pct, has_max;
    double cpu_pct, max_pct;
    uint64_t user_ns, sys_ns;
    struct hp_counts c;
    struct hp_trend trend;   /* of the thread's series (known = 0 without one) */
};

struct threads_snap {
    struct thread_row *rows;
    unsigned n;
    struct hp_process_figures proc;
    struct hp_counts total;
    int64_t inherited;   /* a fork child's share of its parent's live heap */
    uint64_t live_mapped, live_reserved;
    uint64_t threads;    /* every thread the process had, folded ones included */
    int has_history;
    struct hp_history_snap history;
};

static const char *row_status(const struct hp_record *r)
{
    if (r->exited || r->gone) return "Exited";
    if (!r->status) return "-";
    return hp_state_name(r->status);
}

static int by_alloc_then_max(const void *a, const void *b)
{
    const struct thread_row *x = a, *y = b;
    if (x->c.alloc_bytes != y->c.alloc_bytes) return x->c.alloc_bytes > y->c.alloc_bytes ? -1 : 1;
    double mx = x->has_max ? x->max_pct : -1, my = y->has_max ? y->max_pct : -1;
    if (mx != my) return mx > my ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void *threads_snapshot(void)
{
    struct threads_snap *s = hp_alloc(sizeof *s);
    if (!s) return NULL;
    hp_sampler_figures(&s->proc);
    s->has_history = hp_history_snapshot(&s->history, 0) == 0;
    hp_registry_lock();
    uint32_t count = hp_registry_count(), ngroups;
    const struct hp_exited_group *groups = hp_registry_groups(&ngroups);
    s->rows = hp_alloc((count + ngroups + 1) * sizeof *s->rows);
    if (!s->rows) {
        hp_registry_unlock();
        if (s->has_history) hp_history_release(&s->history);
        hp_free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < count; i++) {
        const struct hp_record *r = hp_record_at(i);
        if (r->unused) continue;
        struct thread_row *row = &s->rows[s->n++];
        row->index = r->index;
        row->tid = r->tid;
        hp_record_name(r, row->name, sizeof row->name);
        row->status = row_status(r);
        row->has_pct = r->has_pct && !r->exited && !r->gone;
        row->cpu_pct = r->cpu_pct;
        row->has_max = r->has_max;
        row->max_pct = r->max_pct;
        row->user_ns = r->cpu_user_ns;
        row->sys_ns = r->cpu_sys_ns;
        hp_record_counts(r, &row->c);
        hp_counts_add(&s->total, &row->c);
        s->threads++;
    }
    for (uint32_t i = 0; i < ngroups; i++) {
        const struct hp_exited_group *g = &groups[i];
        struct thread_row *row = &s->rows[s->n++];
        row->index = g->first_index;
        snprintf(row->name, sizeof row->name, "%s (%u exited)", g->name, g->threads);
        row->status = "Exited";
        row->has_max = g->has_max;
        row->max_pct = g->max_pct;
        row->user_ns = g->cpu_user_ns;
        row->sys_ns = g->cpu_sys_ns;
        row->c = *g->c;
        row->folded = g->threads;
        hp_counts_add(&s->total, &row->c);
        s->threads += g->threads;
    }
    hp_mappings_figures(&s->live_mapped, &s->live_reserved);
    s->inherited = hp_registry_inherited_bytes();
    hp_registry_unlock();
    for (unsigned i = 0; i < s->n && s->has_history; i++) {
        const struct hp_trend *t = s->rows[i].folded ? NULL : hp_history_trend_of(&s->history, s->rows[i].index);
        if (t) s->rows[i].trend = *t;
    }
    hp_sort(s->rows, s->n, sizeof *s->rows, by_alloc_then_max);
    return s;
}

static void threads_release(void *snap)
{
    struct threads_snap *s = snap;
    if (s->has_history) hp_history_release(&s->history);
    hp_free(s->rows);
    hp_free(s);
}

static int64_t diff(const struct hp_counts *c)
{
    return (int64_t)(c->alloc_bytes - c->free_bytes);
}

/* Below the table: the resolution the series kept, and the threads whose live memory grows. */
static void history_line(const struct threads_snap *s, struct hp_buf *out)
{
    char res[HP_FMT_MAX], mem[HP_FMT_MAX], budget[HP_FMT_MAX];
    hp_fmt_duration(res, hp_history_resolution_ms(&s->history) * 1000000u);
    hp_fmt_bytes(mem, (int64_t)s->history.memory_bytes);
    hp_fmt_bytes(budget, (int64_t)s->history.set.budget_bytes);
    double observed = 0;                /* the longest series: how long growth could be seen */
    for (unsigned i = 0; i < s->n; i++)
        if (s->rows[i].trend.known && s->rows[i].trend.observed_s > observed) observed = s->rows[i].trend.observed_s;
    char seen[HP_FMT_MAX];
    hp_fmt_duration(seen, (uint64_t)(observed * 1e9));
    hp_buf_printf(out, "history: %u points at %s resolution, %u threads, %s of %s; growing (%s) over %s "
                  "(flagged from %u s): ",
                  s->history.set.ncols, res, s->history.set.nseries, mem, budget,
                  s->history.basis == HP_BASIS_LIVE ? "live bytes by allocating thread" : "Diff", seen,
                  hp_config.growth_window_s);
    unsigned growing = 0;
    for (unsigned i = 0; i < s->n; i++) {
        const struct thread_row *r = &s->rows[i];
        if (!r->trend.growing) continue;
        char rate[HP_FMT_MAX], over[HP_FMT_MAX];
        hp_fmt_bytes(rate, (int64_t)r->trend.bytes_per_min);
        hp_fmt_duration(over, (uint64_t)(r->trend.observed_s * 1e9));
        hp_buf_printf(out, "%s%s (%s%s/min over %s)", growing++ ? ", " : "", r->name,
                      r->trend.bytes_per_min > 0 ? "+" : "", rate, over);
    }
    hp_buf_puts(out, growing ? "\n" : "none\n");
}

static void threads_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    static const char *const headers[] = { "Thread", "Status", "CPU%", "Max%", "CPU User",
                                           "CPU Sys", "CPU Total", "Alloc", "Dealloc", "Diff" };
    const struct threads_snap *s = snap;
    /* sorted by Alloc; the thread with the most CPU and the one with the largest Diff are shown
     * whatever the limit (a spinner among allocating threads was cut) */
    unsigned keep[2] = { 0, 0 }, *pick = hp_alloc((s->n + 1) * sizeof *pick);
    for (unsigned i = 1; i < s->n; i++) {
        const struct thread_row *r = &s->rows[i], *cpu = &s->rows[keep[0]], *most = &s->rows[keep[1]];
        if (r->user_ns + r->sys_ns > cpu->user_ns + cpu->sys_ns) keep[0] = i;
        if (diff(&r->c) > diff(&most->c)) keep[1] = i;
    }
    unsigned shown = pick ? hp_table_pick_rows(s->n, limit, keep, 2, pick) : (limit && limit < s->n ? limit : s->n);
    char rss[HP_FMT_MAX], al[HP_FMT_MAX], de[HP_FMT_MAX], di[HP_FMT_MAX], figures[256];
    hp_fmt_bytes(rss, (int64_t)s->proc.rss_bytes);
    hp_fmt_bytes(al, (int64_t)s->total.alloc_bytes);
    hp_fmt_bytes(de, (int64_t)s->total.free_bytes);
    hp_fmt_bytes(di, diff(&s->total) + s->inherited);
    /* a process watched from outside (hotpath-run --pid): no allocation is seen, only CPU and RSS */
    int watched = hp_platform_watched_pid() != 0;
    if (watched) {
        char peak[HP_FMT_MAX];
        hp_fmt_bytes(peak, (int64_t)s->proc.window_peak_rss_bytes);
        snprintf(figures, sizeof figures, "RSS: %s, peak while watched: %s", rss, peak);
    } else {
        snprintf(figures, sizeof figures, "RSS: %s, Alloc: %s, Dealloc: %s, Diff: %s", rss, al, de, di);
    }
    if (s->inherited) {        /* a fork child: Diff is more than Alloc less Dealloc */
        char in[HP_FMT_MAX];
        hp_fmt_bytes(in, s->inherited);
        size_t len = strlen(figures);
        snprintf(figures + len, sizeof figures - len, ", Inherited: %s", in);
    }
    if (s->live_mapped || s->live_reserved) {   /* the program's own mappings (mappings.h) */
        char mp[HP_FMT_MAX], rs[HP_FMT_MAX];
        hp_fmt_bytes(mp, (int64_t)s->live_mapped);
        hp_fmt_bytes(rs, (int64_t)s->live_reserved);
        size_t len = strlen(figures);
        snprintf(figures + len, sizeof figures - len, ", Mapped: %s, Reserved: %s", mp, rs);
    }
    hp_section_title(out, "threads", "Thread CPU and memory statistics.", figures, shown, s->n);

    struct hp_table t;
    hp_table_init(&t, watched ? 7 : 10, headers);
    for (unsigned i = 0; i < shown; i++) {
        const struct thread_row *r = &s->rows[pick ? pick[i] : i];
        char pct[HP_FMT_MAX] = "-", max[HP_FMT_MAX] = "-", user[HP_FMT_MAX], sys[HP_FMT_MAX],
             total[HP_FMT_MAX], a[HP_FMT_MAX], d[HP_FMT_MAX], df[HP_FMT_MAX];
        if (r->has_pct) hp_fmt_percent(pct, r->cpu_pct);
        if (r->has_max) hp_fmt_percent(max, r->max_pct);
        hp_fmt_cpu_seconds(user, r->user_ns);
        hp_fmt_cpu_seconds(sys, r->sys_ns);
        hp_fmt_cpu_seconds(total, r->user_ns + r->sys_ns);
        hp_fmt_bytes(a, (int64_t)r->c.alloc_bytes);
        hp_fmt_bytes(d, (int64_t)r->c.free_bytes);
        hp_fmt_bytes(df, diff(&r->c));
        const char *cells[] = { r->name, r->status, pct, max, user, sys, total, a, d, df };
        hp_table_add_row(&t, cells);
    }
    hp_table_render(&t, out);
    hp_table_free(&t);
    hp_free(pick);
    if (s->has_history && s->history.set.ncols) history_line(s, out);
}


static void threads_json(const void *snap, struct hp_json *j)
{
    const struct threads_snap *s = snap;
    hp_json_object_begin(j, "threads");
    hp_json_u64(j, "interval_ms", hp_config.interval_ms);
    hp_json_object_begin(j, "header");
    hp_json_u64(j, "rss_bytes", s->proc.rss_bytes);
    hp_json_u64(j, "peak_rss_bytes", s->proc.peak_rss_bytes);
    hp_json_u64(j, "alloc_bytes", s->total.alloc_bytes);
    hp_json_u64(j, "dealloc_bytes", s->total.free_bytes);
    hp_json_i64(j, "diff_bytes", diff(&s->total) + s->inherited);
    hp_json_i64(j, "inherited_bytes", s->inherited);
    hp_json_u64(j, "alloc_count", s->total.alloc_count);
    hp_json_u64(j, "dealloc_count", s->total.free_count);
    hp_json_u64(j, "thread_count", s->threads);
    hp_json_u64(j, "mapped_bytes", s->live_mapped);
    hp_json_u64(j, "mmap_bytes", s->total.mapped_bytes);
    hp_json_u64(j, "munmap_bytes", s->total.unmapped_bytes);
    hp_json_u64(j, "reserved_bytes", s->live_reserved);
    hp_json_object_end(j);
    hp_json_array_begin(j, "rows");
    for (unsigned i = 0; i < s->n; i++) {
        const struct thread_row *r = &s->rows[i];
        hp_json_object_begin(j, NULL);
        hp_json_u64(j, "index", r->index);
        hp_json_i64(j, "os_tid", r->tid);
        hp_json_string(j, "name", r->name);
        hp_json_string(j, "status", r->status);
        /* 6 places: the HTML page rounds them to the text's one place as the text does */
        if (r->has_pct) hp_json_fixed(j, "cpu_percent", r->cpu_pct, 6);
        else hp_json_null(j, "cpu_percent");
        if (r->has_max) hp_json_fixed(j, "max_cpu_percent", r->max_pct, 6);
        else hp_json_null(j, "max_cpu_percent");
        hp_json_u64(j, "cpu_user_ns", r->user_ns);
        hp_json_u64(j, "cpu_sys_ns", r->sys_ns);
        hp_json_u64(j, "cpu_total_ns", r->user_ns + r->sys_ns);
        hp_json_u64(j, "alloc_bytes", r->c.alloc_bytes);
        hp_json_u64(j, "dealloc_bytes", r->c.free_bytes);
        hp_json_i64(j, "diff_bytes", diff(&r->c));
        hp_json_u64(j, "alloc_count", r->c.alloc_count);
        hp_json_u64(j, "dealloc_count", r->c.free_count);
        HP_FOR_EACH_VIEW(v)     /* the other views' per-thread figures: lock waits, I/O time */
            if (v->thread_json) v->thread_json(j, &r->c);
        hp_json_u64(j, "mmap_bytes", r->c.mapped_bytes);
        hp_json_u64(j, "munmap_bytes", r->c.unmapped_bytes);
        if (r->folded) hp_json_u64(j, "exited_threads", r->folded);
        if (r->trend.known) hp_json_fixed(j, "diff_trend_bytes_per_min", r->trend.bytes_per_min, 0);
        else hp_json_null(j, "diff_trend_bytes_per_min");
        hp_json_bool(j, "diff_growing", r->trend.growing);
        if (r->trend.known) hp_json_fixed(j, "diff_trend_window_s", r->trend.observed_s, 2);
        else hp_json_null(j, "diff_trend_window_s");
        hp_json_i64(j, "mapped_bytes", (int64_t)(r->c.mapped_bytes - r->c.unmapped_bytes));
        hp_json_i64(j, "reserved_bytes", (int64_t)r->c.reserved_bytes);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    if (s->has_history) hp_history_summary_json(j, "history", &s->history);
    else hp_json_null(j, "history");
    hp_json_object_end(j);
}

/* Prometheus: per-thread series labelled {tid, name}; a folded row of exited threads has tid "". */
static void thread_labels(struct hp_buf *l, const struct thread_row *r, const char *extra)
{
    l->len = 0;
    if (r->folded) hp_buf_puts(l, "tid=\"\",name=\"");
    else hp_buf_printf(l, "tid=\"%d\",name=\"", r->tid);
    hp_prom_escape(l, r->name);
    hp_buf_putc(l, '"');
    if (extra) hp_buf_puts(l, extra);
}

static void threads_prometheus(const void *snap, struct hp_buf *out)
{
    const struct threads_snap *s = snap;
    struct hp_buf l = { 0 };
    unsigned live = 0;
    for (unsigned i = 0; i < s->n; i++) live += strcmp(s->rows[i].status, "Exited") != 0;
    hp_prom_family(out, "hotpath_threads", "gauge", "Live threads of the process.");
    hp_prom_u64(out, "hotpath_threads", "", live);
    hp_prom_family(out, "hotpath_alloc_bytes_total", "counter", "Bytes allocated by every thread (malloc family, new).");
    hp_prom_u64(out, "hotpath_alloc_bytes_total", "", s->total.alloc_bytes);
    hp_prom_family(out, "hotpath_dealloc_bytes_total", "counter", "Bytes freed by every thread.");
    hp_prom_u64(out, "hotpath_dealloc_bytes_total", "", s->total.free_bytes);
    hp_prom_family(out, "hotpath_thread_cpu_seconds_total", "counter", "CPU time of each thread, user and system.");
    for (unsigned i = 0; i < s->n; i++) {
        thread_labels(&l, &s->rows[i], ",mode=\"user\"");
        hp_prom_double(out, "hotpath_thread_cpu_seconds_total", l.data, (double)s->rows[i].user_ns / 1e9);
        thread_labels(&l, &s->rows[i], ",mode=\"sys\"");
        hp_prom_double(out, "hotpath_thread_cpu_seconds_total", l.data, (double)s->rows[i].sys_ns / 1e9);
    }
    hp_prom_family(out, "hotpath_thread_cpu_percent", "gauge", "CPU use of each live thread over the last sampling interval (0-100).");
    for (unsigned i = 0; i < s->n; i++) {
        if (!s->rows[i].has_pct) continue;
        thread_labels(&l, &s->rows[i], NULL);
        hp_prom_double(out, "hotpath_thread_cpu_percent", l.data, s->rows[i].cpu_pct);
    }
    hp_prom_family(out, "hotpath_thread_alloc_bytes_total", "counter", "Bytes allocated by each thread.");
    for (unsigned i = 0; i < s->n; i++) {
        thread_labels(&l, &s->rows[i], NULL);
        hp_prom_u64(out, "hotpath_thread_alloc_bytes_total", l.data, s->rows[i].c.alloc_bytes);
    }
    hp_prom_family(out, "hotpath_thread_dealloc_bytes_total", "counter", "Bytes freed by each thread.");
    for (unsigned i = 0; i < s->n; i++) {
        thread_labels(&l, &s->rows[i], NULL);
        hp_prom_u64(out, "hotpath_thread_dealloc_bytes_total", l.data, s->rows[i].c.free_bytes);
    }
    if (l.failed) out->failed = 1;
    hp_buf_free(&l);
}

/* As the text table: its columns, sorted by Alloc, then Max% (none last); a growing thread's row
 * marked. */
static const struct hp_html_table threads_html = {
    "threads-table", "Threads", "rows", .mark = "diff_growing",
    .sort = { { "alloc_bytes", 1 }, { "max_cpu_percent", 1 } },
    .columns = {
        { "Thread", "name", NULL, NULL }, { "Status", "status", NULL, NULL },
        { "CPU%", "cpu_percent", "pct", NULL }, { "Max%", "max_cpu_percent", "pct", NULL },
        { "CPU User", "cpu_user_ns", "secs", NULL }, { "CPU Sys", "cpu_sys_ns", "secs", NULL },
        { "CPU Total", "cpu_total_ns", "secs", NULL }, { "Alloc", "alloc_bytes", "bytes", NULL },
        { "Dealloc", "dealloc_bytes", "bytes", NULL }, { "Diff", "diff_bytes", "bytes", NULL },
    },
};

static const struct hp_html_table *const threads_html_tables[] = { &threads_html, NULL };

/* The rows' CPU, as the launcher adds up their cpu_total_ns. */
static uint64_t threads_cpu_ns(const void *snap)
{
    const struct threads_snap *s = snap;
    uint64_t total = 0;
    for (unsigned i = 0; i < s->n; i++) total += s->rows[i].user_ns + s->rows[i].sys_ns;
    return total;
}

const struct hp_section hp_threads_section = {
    .key = "threads",
    .limit = &hp_threads_settings.limit,
    .title = "threads",
    .snapshot = threads_snapshot,
    .release = threads_release,
    .table = threads_table,
    .json = threads_json,
    .prometheus = threads_prometheus,
    .html_tables = threads_html_tables,
    .cpu_ns = threads_cpu_ns,
};
