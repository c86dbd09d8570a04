/* history_json.c — see history_json.h. Each metric is three arrays (min, max, mean) with one
 * value per point; a thread's points start at column first_point of time_ns. */
#include "history_json.h"

#include "core/config.h"

static const char *const metric_keys[HP_SM_COUNT] = {
    "cpu_percent", "alloc_bytes", "dealloc_bytes", "diff_bytes", "live_bytes",
};

uint64_t hp_history_resolution_ms(const struct hp_history_snap *s)
{
    return (uint64_t)s->set.span * s->interval_ms;
}

void hp_history_summary_json(struct hp_json *j, const char *key, const struct hp_history_snap *s)
{
    hp_json_object_begin(j, key);
    hp_json_u64(j, "resolution_ms", hp_history_resolution_ms(s));
    hp_json_u64(j, "points_count", s->set.ncols);
    hp_json_u64(j, "series_count", s->set.nseries);
    hp_json_u64(j, "evicted_series_count", s->set.evicted);
    hp_json_u64(j, "dropped_samples_count", s->set.dropped);
    hp_json_u64(j, "memory_bytes", s->memory_bytes);
    hp_json_u64(j, "budget_bytes", s->set.budget_bytes);
    hp_json_string(j, "trend_basis", hp_history_basis_name(s->basis));
    hp_json_u64(j, "growth_window_s", hp_config.growth_window_s);
    hp_json_object_end(j);
}

/* Three arrays (min, max, mean) of n statistics found stride bytes apart from base. */
static void stat_arrays(struct hp_json *j, const char *key, const char *base, size_t stride,
                        uint32_t n, int decimals)
{
    static const char *const names[] = { "min", "max", "mean" };
    hp_json_object_begin(j, key);
    for (int which = 0; which < 3; which++) {
        hp_json_array_begin(j, names[which]);
        for (uint32_t k = 0; k < n; k++) {
            const struct hp_stat *st = (const struct hp_stat *)(base + k * stride);
            hp_json_fixed(j, NULL, which == 0 ? st->min : which == 1 ? st->max : st->mean, decimals);
        }
        hp_json_array_end(j);
    }
    hp_json_object_end(j);
}

void hp_history_json(struct hp_buf *out, const struct hp_history_snap *s, uint64_t start_ns)
{
    const struct hp_series_set *set = &s->set;
    struct hp_json j;
    hp_json_init(&j, out, 0);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "type", "hotpath_history");
    hp_json_u64(&j, "interval_ms", s->interval_ms);
    hp_json_u64(&j, "samples_per_point", set->span);
    hp_history_summary_json(&j, "summary", s);
    hp_json_array_begin(&j, "time_ns");
    for (uint32_t k = 0; k < set->ncols; k++)
        hp_json_u64(&j, NULL, set->cols[k].t_ns > start_ns ? set->cols[k].t_ns - start_ns : 0);
    hp_json_array_end(&j);
    stat_arrays(&j, "rss_bytes", set->ncols ? (const char *)&set->cols->rss : NULL, sizeof *set->cols,
                set->ncols, 0);
    hp_json_array_begin(&j, "threads");
    for (uint32_t i = 0; i < set->nseries; i++) {
        const struct hp_series *r = &set->series[i];
        const struct hp_trend *t = &s->trends[i];
        hp_json_object_begin(&j, NULL);
        hp_json_u64(&j, "index", r->index);
        hp_json_i64(&j, "os_tid", r->tid);
        hp_json_string(&j, "name", r->name);
        hp_json_bool(&j, "ended", r->ended);
        hp_json_u64(&j, "first_point", r->first);
        if (t->known) hp_json_fixed(&j, "diff_trend_bytes_per_min", t->bytes_per_min, 0);
        else hp_json_null(&j, "diff_trend_bytes_per_min");
        hp_json_bool(&j, "diff_growing", t->growing);
        for (int m = 0; m < HP_SM_COUNT; m++) {
            if (m == HP_SM_LIVE && s->basis != HP_BASIS_LIVE) continue;
            stat_arrays(&j, metric_keys[m], r->n ? (const char *)&r->points->m[m] : NULL,
                        sizeof *r->points, r->n, m == HP_SM_CPU_PERCENT ? 2 : 0);
        }
        hp_json_object_end(&j);
    }
    hp_json_array_end(&j);
    hp_json_object_end(&j);
    hp_buf_putc(out, '\n');
}
