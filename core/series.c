/* series.c — see series.h. Point arrays grow and shrink in chunks, so what the set holds is
 * exactly what hp_series_bytes counts, and the budget is checked before anything grows. */
#include "series.h"

#include <string.h>

#include "memory.h"

#define CHUNK 16u     /* points (and columns) allocated at a time */

static uint32_t round_chunk(uint32_t n)
{
    return (n + CHUNK - 1) / CHUNK * CHUNK;
}

void hp_series_init(struct hp_series_set *s, size_t budget_bytes, uint32_t max_columns)
{
    memset(s, 0, sizeof *s);
    s->budget_bytes = budget_bytes;
    s->max_columns = max_columns < 2 ? 2 : max_columns;
    s->span = 1;
}

void hp_series_free(struct hp_series_set *s)
{
    for (uint32_t i = 0; i < s->nseries; i++) hp_free(s->series[i].points);
    hp_free(s->series);
    hp_free(s->cols);
    hp_series_init(s, s->budget_bytes, s->max_columns);
}

size_t hp_series_bytes(const struct hp_series_set *s)
{
    size_t bytes = (size_t)s->cap_cols * sizeof *s->cols + (size_t)s->cap_series * sizeof *s->series;
    for (uint32_t i = 0; i < s->nseries; i++) bytes += (size_t)s->series[i].cap * sizeof *s->series[i].points;
    return bytes;
}

void hp_stat_merge(struct hp_stat *a, uint32_t na, const struct hp_stat *b, uint32_t nb)
{
    if (nb == 0) return;
    if (na == 0) { *a = *b; return; }
    if (b->min < a->min) a->min = b->min;
    if (b->max > a->max) a->max = b->max;
    a->mean = (a->mean * na + b->mean * nb) / (double)(na + nb);
}

static void point_merge(struct hp_series_point *a, const struct hp_series_point *b)
{
    for (int m = 0; m < HP_SM_COUNT; m++) hp_stat_merge(&a->m[m], a->samples, &b->m[m], b->samples);
    a->samples += b->samples;
}

/* Resize an array to exactly cap elements (cap may be 0). */
static int resize(void **p, uint32_t *cap, uint32_t want, size_t elem)
{
    if (want == *cap) return 0;
    if (want == 0) {
        hp_free(*p);
        *p = NULL;
        *cap = 0;
        return 0;
    }
    void *q = hp_realloc(*p, (size_t)want * elem);
    if (!q) return -1;
    *p = q;
    *cap = want;
    return 0;
}

static long find(const struct hp_series_set *s, uint32_t index, uint32_t *pos)
{
    uint32_t lo = 0, hi = s->nseries;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->series[mid].index < index) lo = mid + 1;
        else hi = mid;
    }
    *pos = lo;
    return lo < s->nseries && s->series[lo].index == index ? (long)lo : -1;
}

const struct hp_series *hp_series_find(const struct hp_series_set *s, uint32_t index)
{
    uint32_t pos;
    long at = find(s, index, &pos);
    return at < 0 ? NULL : &s->series[at];
}

void hp_series_merge(struct hp_series_set *s)
{
    if (s->ncols < 2) return;
    uint32_t half = (s->ncols + 1) / 2;
    for (uint32_t k = 0; k < half; k++) {
        struct hp_series_column c = s->cols[2 * k];
        if (2 * k + 1 < s->ncols) {
            const struct hp_series_column *b = &s->cols[2 * k + 1];
            hp_stat_merge(&c.rss, c.samples, &b->rss, b->samples);
            c.samples += b->samples;
            c.t_ns = b->t_ns;
        }
        s->cols[k] = c;
    }
    s->ncols = half;
    resize((void **)&s->cols, &s->cap_cols, round_chunk(half), sizeof *s->cols);
    for (uint32_t i = 0; i < s->nseries; i++) {
        struct hp_series *r = &s->series[i];
        uint32_t nfirst = r->first / 2;
        /* in place: the point of column c goes to c/2 - nfirst, never past where it was read */
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t c = r->first + j, k = c / 2 - nfirst;
            if (j == 0 || c % 2 == 0) r->points[k] = r->points[j];
            else point_merge(&r->points[k], &r->points[j]);
        }
        if (r->n) r->n = (r->first + r->n - 1) / 2 - nfirst + 1;
        r->first = nfirst;
        resize((void **)&r->points, &r->cap, round_chunk(r->n), sizeof *r->points);
    }
    s->span *= 2;
}

/* Free the series of the thread that ended first; 0, or -1 when no thread has ended. */
static int evict_oldest_ended(struct hp_series_set *s)
{
    long best = -1;
    for (uint32_t i = 0; i < s->nseries; i++) {
        const struct hp_series *r = &s->series[i];
        if (!r->ended) continue;
        if (best < 0 || r->first + r->n < s->series[best].first + s->series[best].n) best = i;
    }
    if (best < 0) return -1;
    hp_free(s->series[best].points);
    memmove(&s->series[best], &s->series[best + 1], (s->nseries - (uint32_t)best - 1) * sizeof *s->series);
    s->nseries--;
    s->evicted++;
    return 0;
}

/* Make `need` more bytes fit in the budget: evict ended threads' series, then lower the
 * resolution. -1 when even that cannot make room. */
static int make_room(struct hp_series_set *s, size_t need)
{
    while (hp_series_bytes(s) + need > s->budget_bytes) {
        if (evict_oldest_ended(s) == 0) continue;
        if (s->ncols <= CHUNK) return -1;     /* merging would free nothing more */
        hp_series_merge(s);
    }
    return 0;
}

/* Bytes a new column costs: the column array's growth and one point for every live series. */
static size_t new_column_cost(const struct hp_series_set *s)
{
    size_t need = s->ncols == s->cap_cols ? CHUNK * sizeof *s->cols : 0;
    for (uint32_t i = 0; i < s->nseries; i++) {
        const struct hp_series *r = &s->series[i];
        if (!r->ended && r->n == r->cap) need += CHUNK * sizeof *r->points;
    }
    return need;
}

int hp_series_pass(struct hp_series_set *s, uint64_t t_ns, double rss_bytes)
{
    struct hp_stat rss = { rss_bytes, rss_bytes, rss_bytes };
    s->passes++;
    for (;;) {
        if (s->ncols && s->cols[s->ncols - 1].samples < s->span) {
            struct hp_series_column *c = &s->cols[s->ncols - 1];
            hp_stat_merge(&c->rss, c->samples, &rss, 1);
            c->samples++;
            c->t_ns = t_ns;
            return 0;
        }
        if (s->ncols >= s->max_columns) { hp_series_merge(s); continue; }
        if (hp_series_bytes(s) + new_column_cost(s) <= s->budget_bytes) break;
        if (evict_oldest_ended(s) == 0) continue;
        if (s->ncols < 2) { s->dropped++; return -1; }
        hp_series_merge(s);       /* frees points, or at least makes room in the last chunk */
    }
    if (s->ncols == s->cap_cols &&
        resize((void **)&s->cols, &s->cap_cols, s->cap_cols + CHUNK, sizeof *s->cols) != 0) {
        s->dropped++;
        return -1;
    }
    s->cols[s->ncols++] = (struct hp_series_column){ t_ns, 1, rss };
    return 0;
}

/* The series of a thread, made when it has none; NULL when it does not fit. */
static struct hp_series *series_of(struct hp_series_set *s, uint32_t index)
{
    uint32_t pos;
    long at = find(s, index, &pos);
    if (at >= 0) return &s->series[at];
    size_t need = CHUNK * sizeof(struct hp_series_point);
    uint32_t grow = s->nseries == s->cap_series ? (s->cap_series ? s->cap_series : 8) : 0;
    need += grow * sizeof *s->series;
    if (make_room(s, need) != 0) return NULL;
    if (grow && resize((void **)&s->series, &s->cap_series, s->cap_series + grow, sizeof *s->series) != 0)
        return NULL;
    find(s, index, &pos);           /* make_room may have evicted series before it */
    memmove(&s->series[pos + 1], &s->series[pos], (s->nseries - pos) * sizeof *s->series);
    s->nseries++;
    struct hp_series *r = &s->series[pos];
    memset(r, 0, sizeof *r);
    r->index = index;
    r->first = s->ncols - 1;
    return r;
}

int hp_series_add(struct hp_series_set *s, uint32_t index, int tid, const char *name,
                  const double v[HP_SM_COUNT])
{
    if (!s->ncols) return -1;
    struct hp_series *r = series_of(s, index);
    if (!r) { s->dropped++; return -1; }
    r->ended = 0;
    r->seen_pass = s->passes;
    r->tid = tid;
    strncpy(r->name, name, sizeof r->name - 1);
    r->name[sizeof r->name - 1] = 0;
    struct hp_series_point p = { .samples = 1 };
    for (int m = 0; m < HP_SM_COUNT; m++) p.m[m] = (struct hp_stat){ v[m], v[m], v[m] };
    uint32_t want;
    for (;;) {
        uint32_t col = s->ncols - 1;
        if (r->n && r->first + r->n - 1 == col) {     /* the column has its point: merge */
            point_merge(&r->points[r->n - 1], &p);
            return 0;
        }
        if (!r->n) r->first = col;
        want = col - r->first + 1;
        if (want <= r->cap) break;
        size_t more = (size_t)(round_chunk(want) - r->cap) * sizeof *r->points;
        if (hp_series_bytes(s) + more <= s->budget_bytes) {
            if (resize((void **)&r->points, &r->cap, round_chunk(want), sizeof *r->points) != 0) break;
            continue;
        }
        uint32_t index = r->index;
        if (make_room(s, more) != 0) break;
        r = (struct hp_series *)hp_series_find(s, index);   /* evictions move it, merges change it */
    }
    if (want > r->cap) {
        s->dropped++;
        return -1;
    }
    /* columns the thread missed (a failed reading) repeat its last point */
    while (r->n && r->n + 1 < want) {
        r->points[r->n] = r->points[r->n - 1];
        r->n++;
    }
    r->points[r->n++] = p;
    return 0;
}

void hp_series_end_missing(struct hp_series_set *s)
{
    for (uint32_t i = 0; i < s->nseries; i++)
        if (s->series[i].seen_pass != s->passes) s->series[i].ended = 1;
}

int hp_series_copy(struct hp_series_set *dst, const struct hp_series_set *src, int with_points)
{
    *dst = *src;
    dst->cols = NULL;
    dst->series = NULL;
    dst->cap_cols = dst->ncols;
    dst->cap_series = dst->nseries;
    dst->nseries = 0;
    if (src->ncols && !(dst->cols = hp_alloc(src->ncols * sizeof *dst->cols))) goto fail;
    if (src->ncols) memcpy(dst->cols, src->cols, src->ncols * sizeof *dst->cols);
    if (src->nseries && !(dst->series = hp_alloc(src->nseries * sizeof *dst->series))) goto fail;
    for (uint32_t i = 0; i < src->nseries; i++) {
        struct hp_series *r = &dst->series[i];
        *r = src->series[i];
        r->cap = with_points ? r->n : 0;
        r->points = NULL;
        if (r->cap && !(r->points = hp_alloc(r->n * sizeof *r->points))) goto fail;
        if (r->cap) memcpy(r->points, src->series[i].points, r->n * sizeof *r->points);
        dst->nseries = i + 1;
    }
    return 0;
fail:
    hp_series_free(dst);
    return -1;
}
