/* test_prometheus.c — report/prometheus_text.c: label escaping, number formatting, and the
 * coarse histogram buckets made from the fine log-linear ones. */
#include "core/histogram.h"
#include "report/prometheus.h"
#include "unit.h"

static struct hp_buf b;

static void reset(void)
{
    hp_buf_free(&b);
}

START_TEST(escape)
{
    hp_prom_escape(&b, "a\"b\\c\nd\xff" "e");
    ck_assert_str_eq(b.data, "a\\\"b\\\\c\\nd\xef\xbf\xbd" "e");
}
END_TEST

START_TEST(samples)
{
    hp_prom_u64(&b, "m", "", 18446744073709551615ull);
    hp_prom_double(&b, "d", "a=\"1\"", 1.5);
    hp_prom_double(&b, "z", NULL, 0.000000001);
    hp_prom_double(&b, "n", "", -0.25);
    ck_assert_str_eq(b.data, "m 18446744073709551615\nd{a=\"1\"} 1.500000000\nz 0.000000001\nn -0.250000000\n");
}
END_TEST

START_TEST(coarse_buckets)
{
    static uint32_t counts[HP_HIST_BUCKETS];
    memset(counts, 0, sizeof counts);
    counts[hp_hist_bucket(500)] += 3;            /* 500 ns: under 1 µs */
    counts[hp_hist_bucket(50000)] += 2;          /* 50 µs: under 100 µs */
    counts[hp_hist_bucket(2000000000ull)] += 1;  /* 2 s: under 10 s */
    counts[HP_HIST_BUCKETS - 1] += 1;            /* ~19 h: only +Inf */
    uint64_t cum[HP_PROM_LE + 1];
    hp_prom_coarse(counts, NULL, cum);
    static const uint64_t want[HP_PROM_LE + 1] = { 3, 3, 5, 5, 5, 5, 5, 6, 7 };
    for (int i = 0; i <= HP_PROM_LE; i++) ck_assert_uint_eq(cum[i], want[i]);
}
END_TEST

START_TEST(histogram_lines)
{
    uint64_t cum[HP_PROM_LE + 1] = { 1, 1, 1, 1, 1, 1, 1, 2, 3 };
    hp_prom_histogram(&b, "h_seconds", "x=\"y\"", cum, 2.5);
    ck_assert_ptr_nonnull(strstr(b.data, "h_seconds_bucket{x=\"y\",le=\"1e-06\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(b.data, "h_seconds_bucket{x=\"y\",le=\"10\"} 2\n"));
    ck_assert_ptr_nonnull(strstr(b.data, "h_seconds_bucket{x=\"y\",le=\"+Inf\"} 3\n"));
    ck_assert_ptr_nonnull(strstr(b.data, "h_seconds_sum{x=\"y\"} 2.500000000\nh_seconds_count{x=\"y\"} 3\n"));
    reset();
    hp_prom_histogram(&b, "h", "", cum, 0);
    ck_assert_ptr_nonnull(strstr(b.data, "h_bucket{le=\"0.001\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(b.data, "h_sum 0.000000000\nh_count 3\n"));
}
END_TEST

static Suite *prometheus_suite(void)
{
    Suite *s = suite_create("prometheus");
    TCase *tc = tcase_create("text");
    tcase_add_checked_fixture(tc, reset, reset);
    HP_ADD(tc, escape);
    HP_ADD(tc, samples);
    HP_ADD(tc, coarse_buckets);
    HP_ADD(tc, histogram_lines);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(prometheus_suite)
