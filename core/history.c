/* history.c — see history.h. The sampler gathers every thread's figures under the registry lock,
 * then adds them to the series under the history lock, which readers hold only to copy. */
#include "history.h"

#include <string.h>

#include "clock.h"
#include "config.h"
#include "memory.h"
#include "registry.h"
#include "sampler.h"
#include "spinlock.h"
#include "view.h"

struct gathered {
    uint32_t index;
    int tid;
    char name[HP_SERIES_NAME_MAX];
    double v[HP_SM_COUNT];
};

/* The history's state: the series, and the sampler's buffer for a pass. */
static struct {
    hp_spinlock lock;                 /* the set, against a snapshot */
    struct hp_series_set set;         /* the series, made on first use */
    int set_ready;                    /* the set is made */
    struct gathered *gathered;        /* the sampler's own buffer */
    uint32_t cap_gathered;
} history = {
    .lock = HP_SPINLOCK_INIT,
};

/* The basis of the trend: live bytes by allocating thread where the allocation call-site view
 * runs (a producer whose consumer frees everything does not grow), else the thread's Diff. */
static const struct hp_view *live_view(void)
{
    HP_FOR_EACH_VIEW(v)
        if (v->live_known && v->live_known()) return v;
    return NULL;
}

static enum hp_trend_basis current_basis(void)
{
    return live_view() ? HP_BASIS_LIVE : HP_BASIS_DIFF;
}

const char *hp_history_basis_name(enum hp_trend_basis basis)
{
    return basis == HP_BASIS_LIVE ? "live_by_allocating_thread" : "diff";
}

static enum hp_series_metric basis_metric(enum hp_trend_basis basis)
{
    return basis == HP_BASIS_LIVE ? HP_SM_LIVE : HP_SM_DIFF;
}

/* Under the registry lock: every thread not yet gone (an exited one gives its final figures). */
static uint32_t gather(int with_live)
{
    const struct hp_view *live = with_live ? live_view() : NULL;
    uint32_t n = 0, count = hp_registry_count();
    if (count > history.cap_gathered) {
        struct gathered *g = hp_realloc(history.gathered, count * sizeof *g);
        if (!g) return 0;
        history.gathered = g;
        history.cap_gathered = count;
    }
    for (uint32_t i = 0; i < count; i++) {
        const struct hp_record *r = hp_record_at(i);
        if (r->unused || r->gone || r->tid == 0) continue;
        struct gathered *g = &history.gathered[n++];
        struct hp_counts c;
        hp_record_counts(r, &c);
        g->index = r->index;
        g->tid = r->tid;
        hp_record_name(r, g->name, sizeof g->name);
        g->v[HP_SM_CPU_PERCENT] = r->has_pct && !r->exited ? r->cpu_pct : 0;
        g->v[HP_SM_ALLOC] = (double)c.alloc_bytes;
        g->v[HP_SM_DEALLOC] = (double)c.free_bytes;
        g->v[HP_SM_DIFF] = (double)(int64_t)(c.alloc_bytes - c.free_bytes);
        g->v[HP_SM_LIVE] = live ? (double)live->thread_live(r->index) : 0;
    }
    return n;
}

/* Under the history lock: the set, made on first use. */
static void ready_set(void)
{
    if (history.set_ready) return;
    hp_series_init(&history.set, (size_t)hp_config.history_mb << 20, HP_HISTORY_COLUMNS);
    history.set_ready = 1;
}

void hp_history_record(void)
{
    if (!hp_config.history_mb) return;
    struct hp_process_figures f;
    hp_sampler_figures(&f);
    uint64_t now = hp_now_ns();
    hp_registry_lock();
    uint32_t n = gather(current_basis() == HP_BASIS_LIVE);
    hp_registry_unlock();
    hp_spin_lock(&history.lock);
    ready_set();
    if (hp_series_pass(&history.set, now, (double)f.rss_bytes) == 0) {
        for (uint32_t i = 0; i < n; i++)
            hp_series_add(&history.set, history.gathered[i].index, history.gathered[i].tid, history.gathered[i].name, history.gathered[i].v);
        hp_series_end_missing(&history.set);
    }
    hp_spin_unlock(&history.lock);
}

void hp_history_reset_in_child(void)
{
    /* The parent's sampler may have held the lock or been mid-change when the process forked:
     * start empty. The parent's copy is left to the child's copy-on-write pages, not freed. */
    atomic_flag_clear(&history.lock.held);
    history.set_ready = 0;
    history.gathered = NULL;
    history.cap_gathered = 0;
}

/* The trend of every series of set, into trends[] (one per series). */
static void compute_trends(const struct hp_series_set *set, enum hp_trend_basis basis, struct hp_trend *trends)
{
    double *t = hp_alloc((set->ncols ? set->ncols : 1) * sizeof *t);
    double *v = hp_alloc((set->ncols ? set->ncols : 1) * sizeof *v);
    enum hp_series_metric m = basis_metric(basis);
    for (uint32_t i = 0; t && v && i < set->nseries; i++) {
        const struct hp_series *r = &set->series[i];
        for (uint32_t j = 0; j < r->n; j++) {
            t[j] = (double)set->cols[r->first + j].t_ns / 1e9;
            v[j] = r->points[j].m[m].mean;
        }
        hp_trend_compute(t, v, r->n, (double)hp_config.growth_window_s, &trends[i]);
    }
    hp_free(t);
    hp_free(v);
}

int hp_history_snapshot(struct hp_history_snap *out, int with_points)
{
    memset(out, 0, sizeof *out);
    if (!hp_config.history_mb) return -1;
    out->basis = current_basis();
    out->interval_ms = hp_config.interval_ms;
    hp_spin_lock(&history.lock);
    ready_set();
    out->memory_bytes = hp_series_bytes(&history.set);
    out->trends = hp_alloc((history.set.nseries ? history.set.nseries : 1) * sizeof *out->trends);
    int rc = out->trends ? hp_series_copy(&out->set, &history.set, with_points) : -1;
    if (rc == 0 && !with_points) compute_trends(&history.set, out->basis, out->trends);
    hp_spin_unlock(&history.lock);
    if (rc != 0) {
        hp_free(out->trends);
        out->trends = NULL;
        return -1;
    }
    if (with_points) compute_trends(&out->set, out->basis, out->trends);
    return 0;
}

void hp_history_release(struct hp_history_snap *s)
{
    hp_series_free(&s->set);
    hp_free(s->trends);
    s->trends = NULL;
}

const struct hp_trend *hp_history_trend_of(const struct hp_history_snap *s, uint32_t index)
{
    const struct hp_series *r = hp_series_find(&s->set, index);
    return r && s->trends ? &s->trends[r - s->set.series] : NULL;
}
