/* test_series.c — the time series ring: pairwise merging keeps min, max and the sample-weighted
 * mean; threads that start late or miss a pass stay aligned; the budget evicts ended threads
 * first, then lowers the resolution, and is never exceeded. */
#include "unit.h"

#include "core/series.h"

static void values(double v, double out[HP_SM_COUNT])
{
    for (int m = 0; m < HP_SM_COUNT; m++) out[m] = v * (m + 1);
}

/* One pass at second `t` with rss = v and the given threads all at value v. */
static void pass(struct hp_series_set *s, int t, double v, const uint32_t *threads, int n)
{
    double vals[HP_SM_COUNT];
    values(v, vals);
    ck_assert_int_eq(hp_series_pass(s, (uint64_t)t * 1000000000ull, v), 0);
    for (int i = 0; i < n; i++) ck_assert_int_eq(hp_series_add(s, threads[i], 100 + (int)threads[i], "t", vals), 0);
    hp_series_end_missing(s);
}

static void assert_stat(const struct hp_stat *st, double min, double max, double mean)
{
    ck_assert_double_eq_tol(st->min, min, 1e-9);
    ck_assert_double_eq_tol(st->max, max, 1e-9);
    ck_assert_double_eq_tol(st->mean, mean, 1e-9);
}

START_TEST(stat_merge_weights_the_mean_by_samples)
{
    struct hp_stat a = { 1, 3, 2 }, b = { 6, 6, 6 };
    hp_stat_merge(&a, 2, &b, 1);
    assert_stat(&a, 1, 6, (2.0 * 2 + 6) / 3);
    struct hp_stat empty = { 0, 0, 0 }, c = { -5, 7, 1 };
    hp_stat_merge(&empty, 0, &c, 4);
    assert_stat(&empty, -5, 7, 1);
}
END_TEST

START_TEST(columns_merge_pairwise_when_full)
{
    struct hp_series_set s;
    hp_series_init(&s, 1 << 20, 4);
    uint32_t one = 7;
    for (int i = 1; i <= 8; i++) pass(&s, i, i, &one, 1);
    /* 4 columns of 2 samples each: [1,2] [3,4] [5,6] [7,8] */
    ck_assert_uint_eq(s.span, 2);
    ck_assert_uint_eq(s.ncols, 4);
    const struct hp_series *r = hp_series_find(&s, 7);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->n, 4);
    for (uint32_t k = 0; k < 4; k++) {
        double lo = 2.0 * k + 1;
        ck_assert_uint_eq(r->points[k].samples, 2);
        for (int m = 0; m < HP_SM_COUNT; m++) assert_stat(&r->points[k].m[m], lo * (m + 1), (lo + 1) * (m + 1), (lo + 0.5) * (m + 1));
        assert_stat(&s.cols[k].rss, lo, lo + 1, lo + 0.5);
        ck_assert_uint_eq(s.cols[k].t_ns, (uint64_t)(lo + 1) * 1000000000ull);
    }
    pass(&s, 9, 9, &one, 1);      /* full again: [1..4] [5..8] [9] */
    ck_assert_uint_eq(s.span, 4);
    ck_assert_uint_eq(s.ncols, 3);
    r = hp_series_find(&s, 7);
    ck_assert_uint_eq(r->n, 3);
    assert_stat(&r->points[0].m[HP_SM_DIFF], 4, 16, 10);      /* metric 3: values ×4 */
    assert_stat(&r->points[1].m[HP_SM_CPU_PERCENT], 5, 8, 6.5);
    assert_stat(&r->points[2].m[HP_SM_CPU_PERCENT], 9, 9, 9);
    ck_assert_uint_eq(r->points[0].samples, 4);
    hp_series_free(&s);
}
END_TEST

START_TEST(a_late_thread_stays_aligned_through_merges)
{
    struct hp_series_set s;
    hp_series_init(&s, 1 << 20, 4);
    uint32_t both[] = { 1, 2 };
    pass(&s, 1, 10, both, 1);                  /* column 0: thread 1 only */
    for (int i = 2; i <= 4; i++) pass(&s, i, 10 * i, both, 2);   /* columns 1-3: both */
    const struct hp_series *late = hp_series_find(&s, 2);
    ck_assert_uint_eq(late->first, 1);
    ck_assert_uint_eq(late->n, 3);
    hp_series_merge(&s);                       /* [c0 c1] [c2 c3] */
    late = hp_series_find(&s, 2);
    ck_assert_uint_eq(late->first, 0);
    ck_assert_uint_eq(late->n, 2);
    assert_stat(&late->points[0].m[HP_SM_CPU_PERCENT], 20, 20, 20);   /* only its column-1 sample */
    ck_assert_uint_eq(late->points[0].samples, 1);
    assert_stat(&late->points[1].m[HP_SM_CPU_PERCENT], 30, 40, 35);
    const struct hp_series *early = hp_series_find(&s, 1);
    assert_stat(&early->points[0].m[HP_SM_CPU_PERCENT], 10, 20, 15);
    hp_series_free(&s);
}
END_TEST

START_TEST(a_missed_pass_repeats_the_last_point_and_ended_threads_stop)
{
    struct hp_series_set s;
    hp_series_init(&s, 1 << 20, 64);
    uint32_t both[] = { 1, 2 };
    pass(&s, 1, 1, both, 2);
    pass(&s, 2, 2, both, 1);                   /* thread 2 missing: ended */
    ck_assert(hp_series_find(&s, 2)->ended);
    ck_assert(!hp_series_find(&s, 1)->ended);
    pass(&s, 3, 3, both, 2);                   /* back (a failed reading): column 1 repeats */
    const struct hp_series *r = hp_series_find(&s, 2);
    ck_assert(!r->ended);
    ck_assert_uint_eq(r->n, 3);
    assert_stat(&r->points[1].m[HP_SM_CPU_PERCENT], 1, 1, 1);
    assert_stat(&r->points[2].m[HP_SM_CPU_PERCENT], 3, 3, 3);
    hp_series_free(&s);
}
END_TEST

START_TEST(the_budget_evicts_ended_threads_first_then_merges)
{
    struct hp_series_set s;
    hp_series_init(&s, 1 << 20, 100000);
    uint32_t threads[] = { 1, 2, 3, 4, 5, 6 };     /* 1-4 end, 5 and 6 live on */
    for (int i = 1; i <= 4; i++) pass(&s, i, i, threads, 6);
    for (int i = 5; i <= 8; i++) pass(&s, i, i, threads + 4, 2);
    ck_assert(hp_series_find(&s, 1)->ended);
    s.budget_bytes = hp_series_bytes(&s);       /* full now */
    int t = 9;
    while (s.span == 1) {
        pass(&s, t, t, threads + 4, 2);
        ck_assert_uint_le(hp_series_bytes(&s), s.budget_bytes);
        ck_assert_int_lt(++t, 1000);
    }
    ck_assert_uint_eq(s.evicted, 4);            /* every ended thread went before any merge */
    ck_assert_ptr_null(hp_series_find(&s, 1));
    ck_assert_ptr_nonnull(hp_series_find(&s, 5));
    for (int i = 0; i < 2000; i++, t++) {       /* only live threads left: merging keeps it in */
        pass(&s, t, t, threads + 4, 2);
        ck_assert_uint_le(hp_series_bytes(&s), s.budget_bytes);
    }
    ck_assert_uint_ge(s.span, 32);             /* 2000 passes in a few dozen columns */
    ck_assert_uint_eq(s.dropped, 0);
    const struct hp_series *r = hp_series_find(&s, 6);
    ck_assert_uint_eq(r->first + r->n, s.ncols);   /* still sampled up to now */
    uint64_t samples = 0;
    for (uint32_t k = 0; k < s.ncols; k++) samples += s.cols[k].samples;
    ck_assert_uint_eq(samples, (uint64_t)t - 1);    /* every pass is in some column */
    uint32_t three[] = { 5, 6, 7 };                 /* a new thread in a full budget: room is made */
    for (int i = 0; i < 100; i++, t++) {
        pass(&s, t, t, three, 3);
        ck_assert_uint_le(hp_series_bytes(&s), s.budget_bytes);
    }
    ck_assert_uint_eq(s.dropped, 0);
    ck_assert_uint_gt(hp_series_find(&s, 7)->n, 0);
    hp_series_free(&s);
}
END_TEST

START_TEST(a_copy_is_deep_and_equal)
{
    struct hp_series_set s, c;
    hp_series_init(&s, 1 << 20, 8);
    uint32_t threads[] = { 4, 9 };
    for (int i = 1; i <= 11; i++) pass(&s, i, i, threads, 2);
    struct hp_series_set h;
    ck_assert_int_eq(hp_series_copy(&h, &s, 0), 0);      /* without the points */
    ck_assert_uint_eq(h.nseries, 2);
    ck_assert_uint_eq(h.series[1].n, s.series[1].n);
    ck_assert_ptr_null(h.series[1].points);
    ck_assert_uint_eq(hp_series_find(&h, 9)->index, 9);
    hp_series_free(&h);
    ck_assert_int_eq(hp_series_copy(&c, &s, 1), 0);
    ck_assert_uint_eq(c.ncols, s.ncols);
    ck_assert_uint_eq(c.nseries, 2);
    ck_assert_ptr_ne(c.series[0].points, s.series[0].points);
    ck_assert_mem_eq(c.series[1].points, s.series[1].points, s.series[1].n * sizeof *s.series[1].points);
    ck_assert_mem_eq(c.cols, s.cols, s.ncols * sizeof *s.cols);
    hp_series_free(&s);
    ck_assert_uint_eq(c.series[1].points[0].samples, 2);   /* still readable: its own memory */
    hp_series_free(&c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("series");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, stat_merge_weights_the_mean_by_samples);
    HP_ADD(tc, columns_merge_pairwise_when_full);
    HP_ADD(tc, a_late_thread_stays_aligned_through_merges);
    HP_ADD(tc, a_missed_pass_repeats_the_last_point_and_ended_threads_stop);
    HP_ADD(tc, the_budget_evicts_ended_threads_first_then_merges);
    HP_ADD(tc, a_copy_is_deep_and_equal);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
