/* io_section.c — the I/O view: reads and writes per file, socket and pipe. One section (JSON key
 * and HOTPATH_REPORT name `io`) whose text rendering is two tables, io-read and io-write, each
 * sorted by the time spent in its calls. */
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "core/memory.h"
#include "core/sort.h"
#include "core/ticks.h"
#include "report/format.h"
#include "report/prometheus.h"
#include "report/section.h"
#include "report/table.h"
#include "io_settings.h"

struct dir_row {
    uint64_t ops, bytes, errors, total_ns, flush_ns, max_ns, p95_ns, p99_ns;
    uint64_t timed_ns;                 /* the timed calls' own time: the histogram's sum */
    uint64_t timed_ops;                /* how many calls were timed */
    uint64_t le[HP_PROM_LE + 1];       /* Prometheus buckets of the timed calls */
};

struct io_row {
    uint32_t order;
    const char *name;          /* the record's strings never move or go away */
    unsigned char kind, accepted;
    uint64_t inst, opens, closes, seeks, syncs, sync_ns;
    uint64_t open_ns;          /* wall time some descriptor referred to it */
    struct dir_row rd, wr;
};

struct io_snap {
    struct io_row *rows;
    unsigned n;
    uint64_t overflow;
    uint32_t hist[HP_HIST_BUCKETS];   /* scratch */
};

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

/* A direction's shared counters plus its owner's. */
static void take_dir(struct io_snap *s, const struct hp_io_dir *d, const struct hp_io_dir *own,
                     struct dir_row *out)
{
    hp_hist_snapshot(&d->hist, s->hist);
    uint64_t timed = 0;
    for (unsigned i = 0; i < HP_HIST_BUCKETS; i++) {
        s->hist[i] += LOAD(own->hist.counts[i]);
        timed += s->hist[i];
    }
    out->ops = timed + LOAD(d->untimed) + LOAD(own->untimed);
    out->timed_ops = timed;
    out->bytes = LOAD(d->bytes) + LOAD(own->bytes);
    out->errors = LOAD(d->errors) + LOAD(own->errors);
    uint64_t max = LOAD(d->max_ticks), own_max = LOAD(own->max_ticks);
    if (own_max > max) max = own_max;
    out->flush_ns = hp_ticks_to_ns(LOAD(d->flush_ticks) + LOAD(own->flush_ticks));
    out->total_ns = hp_ticks_to_ns(LOAD(d->ticks) + LOAD(own->ticks)) + out->flush_ns;
    out->max_ns = hp_ticks_to_ns(max);
    out->p95_ns = hp_ticks_to_ns(hp_hist_quantile(s->hist, 0.95, max));
    out->p99_ns = hp_ticks_to_ns(hp_hist_quantile(s->hist, 0.99, max));
    hp_prom_coarse(s->hist, hp_ticks_to_ns, out->le);
    out->timed_ns = hp_ticks_to_ns(LOAD(d->ticks) + LOAD(own->ticks));
}

static void *io_snapshot(void)
{
    struct io_snap *s = hp_alloc(sizeof *s);
    if (!s) return NULL;
    uint32_t n = hp_io_count();
    s->rows = hp_alloc((n ? n : 1) * sizeof *s->rows);
    if (!s->rows) {
        hp_free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct hp_io_res *r = hp_io_at(i);
        struct io_row *row = &s->rows[s->n++];
        row->order = i;
        row->inst = atomic_load_explicit(&r->inst, memory_order_relaxed);
        row->name = row->inst > 1 ? r->pattern : r->first;
        row->kind = r->kind;
        row->accepted = r->accepted;
        row->opens = atomic_load_explicit(&r->opens, memory_order_relaxed);
        row->closes = atomic_load_explicit(&r->closes, memory_order_relaxed);
        row->seeks = atomic_load_explicit(&r->seeks, memory_order_relaxed);
        row->syncs = atomic_load_explicit(&r->syncs, memory_order_relaxed);
        row->sync_ns = hp_ticks_to_ns(atomic_load_explicit(&r->sync_ticks, memory_order_relaxed));
        row->open_ns = hp_io_open_ns(r);
        take_dir(s, &r->rd, &r->own_rd, &row->rd);
        take_dir(s, &r->wr, &r->own_wr, &row->wr);
    }
    s->overflow = hp_io_overflow();
    return s;
}

static void io_release(void *snap)
{
    struct io_snap *s = snap;
    hp_free(s->rows);
    hp_free(s);
}

static int cmp_dir(const struct dir_row *x, const struct dir_row *y)
{
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->ops != y->ops) return x->ops > y->ops ? -1 : 1;
    return 0;
}

static int by_order(const struct io_row *x, const struct io_row *y)
{
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_read_total(const void *a, const void *b)
{
    const struct io_row *x = *(const struct io_row *const *)a, *y = *(const struct io_row *const *)b;
    int c = cmp_dir(&x->rd, &y->rd);
    return c ? c : by_order(x, y);
}

static int by_write_total(const void *a, const void *b)
{
    const struct io_row *x = *(const struct io_row *const *)a, *y = *(const struct io_row *const *)b;
    if (x->wr.total_ns + x->sync_ns != y->wr.total_ns + y->sync_ns)
        return x->wr.total_ns + x->sync_ns > y->wr.total_ns + y->sync_ns ? -1 : 1;
    int c = cmp_dir(&x->wr, &y->wr);
    return c ? c : by_order(x, y);
}

static void kind_text(const struct io_row *r, char *out, size_t size)
{
    snprintf(out, size, "%s%s", hp_io_kind_names[r->kind < HP_IO_KINDS ? r->kind : HP_IO_OTHER],
             r->accepted ? " (accepted)" : "");
}

/* bytes per second over ns, rounded; 0 when ns is 0 (the caller writes null or `-`). */
static uint64_t per_s(uint64_t bytes, uint64_t ns)
{
    if (!ns) return 0;
    unsigned __int128 rate = ((unsigned __int128)bytes * 1000000000u + ns / 2) / ns;
    return rate > UINT64_MAX ? UINT64_MAX : (uint64_t)rate;
}

static void u64_text(char out[HP_FMT_MAX], uint64_t v)
{
    snprintf(out, HP_FMT_MAX, "%llu", (unsigned long long)v);
}

/* One direction's table: rows with calls that way (or syncs, for writes). */
static void dir_table(const struct io_snap *s, struct hp_buf *out, unsigned limit, int write)
{
    /* Call rate: bytes over the time inside the calls; Open rate: over the time it was open */
    static const char *const rd_headers[] = { "Resource", "Kind", "Inst", "Reads", "Bytes", "Call rate",
                                              "Open rate", "Avg", "P95", "Total", "Errors" };
    static const char *const wr_headers[] = { "Resource", "Kind", "Inst", "Writes", "Bytes", "Call rate",
                                              "Open rate", "Avg", "P95", "Total", "Syncs", "Errors" };
    const struct io_row **rows = hp_alloc((s->n ? s->n : 1) * sizeof *rows);
    if (!rows) {
        out->failed = 1;
        return;
    }
    unsigned total = 0;
    for (unsigned i = 0; i < s->n; i++) {
        const struct io_row *r = &s->rows[i];
        const struct dir_row *d = write ? &r->wr : &r->rd;
        if (d->ops || d->errors || (write && r->syncs)) rows[total++] = r;
    }
    hp_sort(rows, total, sizeof *rows, write ? by_write_total : by_read_total);
    unsigned shown = limit && limit < total ? limit : total;
    if (total == 0) {           /* one line instead of an empty table */
        hp_buf_printf(out, "%s: none\n", write ? "io-write" : "io-read");
        hp_free(rows);
        return;
    }

    /* the note belongs to the table whose rows have <other>: grep -r overflowed reads, and the
     * write table (stdout only) said so too */
    char figures[160] = "";
    int other = 0;
    for (unsigned i = 0; i < total; i++) other |= strcmp(rows[i]->name, "<other>") == 0;
    if (s->overflow && other)
        snprintf(figures, sizeof figures, "table full: %llu later instances in <other>",
                 (unsigned long long)s->overflow);
    hp_section_title(out, write ? "io-write" : "io-read",
                     write ? "Writes by file, socket and pipe." : "Reads by file, socket and pipe.",
                     figures, shown, total);

    struct hp_table t;
    hp_table_init(&t, write ? 12 : 11, write ? wr_headers : rd_headers);
    for (unsigned i = 0; i < shown; i++) {
        const struct io_row *r = rows[i];
        const struct dir_row *d = write ? &r->wr : &r->rd;
        char kind[32], inst[HP_FMT_MAX], ops[HP_FMT_MAX], bytes[HP_FMT_MAX], rate[HP_FMT_MAX], wall[HP_FMT_MAX],
            avg[HP_FMT_MAX] = "-", p95[HP_FMT_MAX] = "-", tot[HP_FMT_MAX], syncs[HP_FMT_MAX],
            errs[HP_FMT_MAX];
        kind_text(r, kind, sizeof kind);
        u64_text(inst, r->inst);
        u64_text(ops, d->ops);
        hp_fmt_bytes(bytes, (int64_t)d->bytes);
        hp_fmt_rate(rate, d->bytes, d->total_ns);
        hp_fmt_rate(wall, d->bytes, r->open_ns);
        if (d->timed_ops) hp_fmt_duration(avg, d->timed_ns / d->timed_ops);
        if (d->p95_ns) hp_fmt_duration(p95, d->p95_ns);
        hp_fmt_duration(tot, d->total_ns + (write ? r->sync_ns : 0));
        u64_text(syncs, r->syncs);
        u64_text(errs, d->errors);
        if (write) {
            const char *cells[] = { r->name, kind, inst, ops, bytes, rate, wall, avg, p95, tot, syncs, errs };
            hp_table_add_row(&t, cells);
        } else {
            const char *cells[] = { r->name, kind, inst, ops, bytes, rate, wall, avg, p95, tot, errs };
            hp_table_add_row(&t, cells);
        }
    }
    hp_table_render(&t, out);
    hp_table_free(&t);
    hp_free(rows);
}

static void io_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    const struct io_snap *s = snap;
    dir_table(s, out, limit, 0);
    hp_buf_putc(out, '\n');
    dir_table(s, out, limit, 1);
}

static void dir_json(struct hp_json *j, const char *key, const struct dir_row *d, uint64_t open_ns)
{
    hp_json_object_begin(j, key);
    hp_json_u64(j, "op_count", d->ops);
    hp_json_u64(j, "bytes", d->bytes);
    hp_json_u64(j, "error_count", d->errors);
    hp_json_u64(j, "total_ns", d->total_ns);
    hp_json_u64(j, "flush_ns", d->flush_ns);
    hp_json_u64(j, "timed_count", d->timed_ops);    /* the calls Avg and P95 are of */
    hp_json_u64(j, "avg_ns", d->timed_ops ? d->timed_ns / d->timed_ops : 0);
    hp_json_u64(j, "p95_ns", d->p95_ns);
    hp_json_u64(j, "p99_ns", d->p99_ns);
    hp_json_u64(j, "max_ns", d->max_ns);
    if (d->total_ns) hp_json_u64(j, "rate_bytes_per_s", per_s(d->bytes, d->total_ns));
    else hp_json_null(j, "rate_bytes_per_s");
    if (open_ns) hp_json_u64(j, "wall_rate_bytes_per_s", per_s(d->bytes, open_ns));
    else hp_json_null(j, "wall_rate_bytes_per_s");
    hp_json_object_end(j);
}

static void io_json(const void *snap, struct hp_json *j)
{
    const struct io_snap *s = snap;
    hp_json_object_begin(j, "io");
    hp_json_fixed(j, "time_sampling_rate", hp_hot.io_period ? 1.0 / hp_hot.io_period : 0.0, 6);
    hp_json_bool(j, "iter", hp_io_settings.iter);
    hp_json_u64(j, "resource_count", s->n);
    hp_json_u64(j, "overflow_count", s->overflow);
    hp_json_array_begin(j, "resources");
    for (unsigned i = 0; i < s->n; i++) {
        const struct io_row *r = &s->rows[i];
        hp_json_object_begin(j, NULL);
        hp_json_string(j, "name", r->name);
        hp_json_string(j, "kind", hp_io_kind_names[r->kind < HP_IO_KINDS ? r->kind : HP_IO_OTHER]);
        hp_json_bool(j, "accepted", r->accepted);
        hp_json_u64(j, "inst_count", r->inst);
        hp_json_u64(j, "open_count", r->opens);
        hp_json_u64(j, "close_count", r->closes);
        hp_json_u64(j, "seek_count", r->seeks);
        hp_json_u64(j, "sync_count", r->syncs);
        hp_json_u64(j, "sync_ns", r->sync_ns);
        hp_json_u64(j, "open_wall_ns", r->open_ns);
        dir_json(j, "read", &r->rd, r->open_ns);
        dir_json(j, "write", &r->wr, r->open_ns);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

/* Prometheus: per resource {name, kind, op="read|write"}. */
static void io_prometheus(const void *snap, struct hp_buf *out)
{
    const struct io_snap *s = snap;
    struct hp_buf l = { 0 };
    static const char *const fam[3][3] = {
        { "hotpath_io_ops_total", "counter", "I/O calls per file, socket or pipe (name as in the io view) and direction." },
        { "hotpath_io_bytes_total", "counter", "Bytes moved per resource and direction." },
        { "hotpath_io_errors_total", "counter", "Failed I/O calls per resource and direction (EAGAIN and EINTR are not errors)." },
    };
    for (unsigned f = 0; f < 4; f++) {
        if (f < 3) hp_prom_family(out, fam[f][0], fam[f][1], fam[f][2]);
        else hp_prom_family(out, "hotpath_io_op_seconds", "histogram",
                            "Latency of the timed I/O calls per resource and direction (HOTPATH_IO_TIME_SAMPLING_RATE).");
        for (unsigned i = 0; i < s->n; i++) {
            const struct io_row *r = &s->rows[i];
            for (int w = 0; w < 2; w++) {
                const struct dir_row *d = w ? &r->wr : &r->rd;
                if (!d->ops && !d->errors) continue;
                l.len = 0;
                hp_buf_puts(&l, "name=\"");
                hp_prom_escape(&l, r->name);
                hp_buf_printf(&l, "\",kind=\"%s\",op=\"%s\"",
                              hp_io_kind_names[r->kind < HP_IO_KINDS ? r->kind : HP_IO_OTHER], w ? "write" : "read");
                if (f == 0) hp_prom_u64(out, fam[0][0], l.data, d->ops);
                else if (f == 1) hp_prom_u64(out, fam[1][0], l.data, d->bytes);
                else if (f == 2) hp_prom_u64(out, fam[2][0], l.data, d->errors);
                else hp_prom_histogram(out, "hotpath_io_op_seconds", l.data, d->le, (double)d->timed_ns / 1e9);
            }
        }
    }
    if (l.failed) out->failed = 1;
    hp_buf_free(&l);
}

/* As the text's two tables: the same columns, rows and order (by the time in the calls, a write's
 * fsync time in its Total). */
static const struct hp_html_table io_read_html = {
    "io-read-table", "I/O reads", "resources", .when = { "read.op_count", "read.error_count" },
    .sort = { { "read.total_ns", 1 }, { "read.bytes", 1 }, { "read.op_count", 1 } },
    .columns = {
        { "Resource", "name", NULL, NULL }, { "Kind", "kind", "kind", NULL }, { "Inst", "inst_count", NULL, NULL },
        { "Reads", "read.op_count", NULL, NULL }, { "Bytes", "read.bytes", "bytes", NULL },
        { "Call rate", "read.rate_bytes_per_s", "rate", NULL }, { "Open rate", "read.wall_rate_bytes_per_s", "rate", NULL },
        { "Avg", "read.avg_ns", "ns", "read.timed_count" }, { "P95", "read.p95_ns", "ns", "read.p95_ns" },
        { "Total", "read.total_ns", "ns", NULL }, { "Errors", "read.error_count", NULL, NULL },
    },
};

static const struct hp_html_table io_write_html = {
    "io-write-table", "I/O writes", "resources", .when = { "write.op_count", "write.error_count", "sync_count" },
    .sort = { { "write.total_ns+sync_ns", 1 }, { "write.total_ns", 1 }, { "write.bytes", 1 }, { "write.op_count", 1 } },
    .columns = {
        { "Resource", "name", NULL, NULL }, { "Kind", "kind", "kind", NULL }, { "Inst", "inst_count", NULL, NULL },
        { "Writes", "write.op_count", NULL, NULL }, { "Bytes", "write.bytes", "bytes", NULL },
        { "Call rate", "write.rate_bytes_per_s", "rate", NULL }, { "Open rate", "write.wall_rate_bytes_per_s", "rate", NULL },
        { "Avg", "write.avg_ns", "ns", "write.timed_count" }, { "P95", "write.p95_ns", "ns", "write.p95_ns" },
        { "Total", "write.total_ns+sync_ns", "ns", NULL }, { "Syncs", "sync_count", NULL, NULL },
        { "Errors", "write.error_count", NULL, NULL },
    },
};

static const struct hp_html_table *const io_html_tables[] = { &io_read_html, &io_write_html, NULL };

static const char *const io_aliases[] = { "io_read", "io_write", NULL };

const struct hp_section hp_io_section = {
    .key = "io",
    .aliases = io_aliases,
    .limit = &hp_io_settings.limit,
    .title = "io-read, io-write",
    .snapshot = io_snapshot,
    .release = io_release,
    .table = io_table,
    .json = io_json,
    .prometheus = io_prometheus,
    .html_tables = io_html_tables,
};
