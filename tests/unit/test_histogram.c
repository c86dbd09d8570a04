/* test_histogram.c — log-linear buckets: boundaries, monotonic order, quantiles. */
#include "unit.h"

#include "core/histogram.h"

START_TEST(buckets_cover_values_in_order)
{
    unsigned prev = 0;
    for (uint64_t v = 0; v < 100000; v++) {
        unsigned b = hp_hist_bucket(v);
        ck_assert_uint_ge(b, prev);
        ck_assert_uint_le(hp_hist_bucket_low(b), v);
        ck_assert_uint_ge(hp_hist_bucket_high(b), v);
        prev = b;
    }
    ck_assert_uint_eq(hp_hist_bucket(UINT64_MAX), HP_HIST_BUCKETS - 1);
    ck_assert_uint_eq(hp_hist_bucket((uint64_t)1 << 50), HP_HIST_BUCKETS - 1);
    ck_assert_uint_lt(hp_hist_bucket(((uint64_t)1 << 46) + 5), HP_HIST_BUCKETS);
}
END_TEST

START_TEST(bucket_width_is_a_quarter_of_its_power_of_two)
{
    /* 1000 lies in [896, 1023]: 2^9 + 3 * 2^7 */
    unsigned b = hp_hist_bucket(1000);
    ck_assert_uint_eq(hp_hist_bucket_low(b), 896);
    ck_assert_uint_eq(hp_hist_bucket_high(b), 1023);
    ck_assert_uint_eq(hp_hist_bucket(1024), b + 1);
    ck_assert_uint_eq(hp_hist_bucket_low(b + 1), 1024);
    ck_assert_uint_eq(hp_hist_bucket_high(b + 1), 1279);
}
END_TEST

START_TEST(quantiles)
{
    static struct hp_hist h;
    uint32_t c[HP_HIST_BUCKETS];
    hp_hist_snapshot(&h, c);
    ck_assert_uint_eq(hp_hist_quantile(c, 0.95, 0), 0);
    for (int i = 0; i < 95; i++) hp_hist_add(&h, 1000);      /* 95 fast */
    for (int i = 0; i < 5; i++) hp_hist_add(&h, 1000000);    /* 5 slow */
    hp_hist_snapshot(&h, c);
    ck_assert_uint_eq(hp_hist_quantile(c, 0.5, 0), 1023);
    ck_assert_uint_eq(hp_hist_quantile(c, 0.95, 0), 1023);
    uint64_t p99 = hp_hist_quantile(c, 0.99, 0);
    ck_assert_uint_ge(p99, 1000000);
    ck_assert_uint_le(p99, 1250000);
    ck_assert_uint_eq(hp_hist_quantile(c, 0.99, 1000000), 1000000);   /* capped at the exact max */
    ck_assert_uint_eq(hp_hist_quantile(c, 1.0, 0), p99);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("histogram");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, buckets_cover_values_in_order);
    tcase_add_test(tc, bucket_width_is_a_quarter_of_its_power_of_two);
    tcase_add_test(tc, quantiles);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
