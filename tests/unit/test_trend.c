/* test_trend.c — the growth detector: steady growth is flagged, a single large allocation, a
 * sawtooth and noise are not; the per-minute figure covers the last window. */
#include "unit.h"

#include "core/trend.h"

#define N 40

static double t[2000], v[2000];

/* A sample every 250 ms. */
static void times(uint32_t n, double step)
{
    for (uint32_t i = 0; i < n; i++) t[i] = 100.0 + i * step;
}

START_TEST(steady_growth_is_flagged)
{
    times(N, 0.25);
    uint32_t seed = 1;
    for (uint32_t i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = 655360.0 * t[i] / 1.0 + (double)(seed >> 16) / 65536.0 * 100000.0;   /* 640 KB/s ± noise */
    }
    struct hp_trend tr;
    hp_trend_compute(t, v, N, 2.0, &tr);
    ck_assert(tr.known);
    ck_assert(tr.growing);
    ck_assert_double_eq_tol(tr.bytes_per_min, 655360.0 * 60, 655360.0 * 60 * 0.05);
}
END_TEST

START_TEST(one_large_allocation_is_not_growth)
{
    times(N, 0.25);
    for (uint32_t i = 0; i < N; i++) v[i] = i < N / 2 ? 1000 : 100 * 1048576.0;
    struct hp_trend tr;
    hp_trend_compute(t, v, N, 2.0, &tr);
    ck_assert(tr.known);
    ck_assert(!tr.growing);
    ck_assert_double_gt(tr.bytes_per_min, 0);    /* the line does rise: the flag needs more */
}
END_TEST

START_TEST(a_sawtooth_is_not_growth)
{
    times(N, 0.25);
    for (uint32_t i = 0; i < N; i++) v[i] = (i % 8) * 1048576.0;    /* 5 teeth up to 7 MB */
    struct hp_trend tr;
    hp_trend_compute(t, v, N, 2.0, &tr);
    ck_assert(!tr.growing);
    for (uint32_t i = 0; i < N; i++) v[i] = ((i + 3) % 13) * 1048576.0;   /* 3 teeth, shifted */
    hp_trend_compute(t, v, N, 2.0, &tr);
    ck_assert(!tr.growing);
}
END_TEST

START_TEST(flat_noise_and_tiny_growth_are_not_growth)
{
    times(N, 0.25);
    uint32_t seed = 7;
    for (uint32_t i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = 5e6 + (double)(seed >> 16);
    }
    struct hp_trend tr;
    hp_trend_compute(t, v, N, 2.0, &tr);
    ck_assert(!tr.growing);
    for (uint32_t i = 0; i < N; i++) v[i] = 1000 + 100.0 * i;        /* 4 KB over the run */
    hp_trend_compute(t, v, N, 2.0, &tr);
    ck_assert(!tr.growing);
}
END_TEST

START_TEST(too_few_points)
{
    times(3, 0.25);
    v[0] = 0; v[1] = 1e6; v[2] = 2e6;
    struct hp_trend tr;
    hp_trend_compute(t, v, 3, 2.0, &tr);
    ck_assert(tr.known);
    ck_assert(!tr.growing);
    hp_trend_compute(t, v, 1, 2.0, &tr);
    ck_assert(!tr.known);
}
END_TEST

START_TEST(the_per_minute_figure_covers_the_last_window)
{
    /* 15 minutes at one point a second: flat for 10 minutes, then 100 B/s */
    times(900, 1.0);
    for (uint32_t i = 0; i < 900; i++) v[i] = i < 600 ? 1e6 : 1e6 + 100.0 * (i - 600);
    struct hp_trend tr;
    hp_trend_compute(t, v, 900, 2.0, &tr);
    ck_assert_double_eq_tol(tr.bytes_per_min, 6000, 300);
    ck_assert(!tr.growing);                      /* two thirds of the run were flat */
}
END_TEST

START_TEST(growth_shorter_than_the_window_is_warm_up)
{
    /* 10 s of steady growth, as a JIT's first seconds: a slope, but no flag under 30 s */
    times(N, 0.25);
    for (uint32_t i = 0; i < N; i++) v[i] = 655360.0 * i;
    struct hp_trend tr;
    hp_trend_compute(t, v, N, 30.0, &tr);
    ck_assert(tr.known);
    ck_assert(!tr.growing);
    ck_assert_double_eq_tol(tr.observed_s, 9.75, 1e-9);
    ck_assert_double_gt(tr.bytes_per_min, 0);
    hp_trend_compute(t, v, N, 9.75, &tr);        /* observed just long enough */
    ck_assert(tr.growing);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trend");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, steady_growth_is_flagged);
    HP_ADD(tc, one_large_allocation_is_not_growth);
    HP_ADD(tc, a_sawtooth_is_not_growth);
    HP_ADD(tc, flat_noise_and_tiny_growth_are_not_growth);
    HP_ADD(tc, too_few_points);
    HP_ADD(tc, the_per_minute_figure_covers_the_last_window);
    tcase_add_test(tc, growth_shorter_than_the_window_is_warm_up);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
