/* test_format.c — report/format.h: how the report writes numbers (docs/DESIGN.md "One report model"). */
#include <math.h>
#include <stdint.h>

#include "report/format.h"
#include "unit.h"

/* Each formatter is called on a buffer pre-filled with junk, so a missing terminator shows. */
#define EXPECT_FMT(call, expected)                                                             \
    do {                                                                                       \
        char out_[HP_FMT_MAX];                                                                 \
        memset(out_, 'X', sizeof out_);                                                        \
        call;                                                                                  \
        ck_assert_msg(memchr(out_, 0, sizeof out_) != NULL, "%s: output not terminated", #call); \
        ck_assert_str_eq(out_, expected);                                                      \
    } while (0)

#define BYTES(v, e) EXPECT_FMT(hp_fmt_bytes(out_, (v)), e)
#define DUR(v, e) EXPECT_FMT(hp_fmt_duration(out_, (v)), e)
#define CPU(v, e) EXPECT_FMT(hp_fmt_cpu_seconds(out_, (v)), e)
#define PCT(v, e) EXPECT_FMT(hp_fmt_percent(out_, (v)), e)
#define FIXED(v, d, e) EXPECT_FMT(hp_fmt_fixed(out_, (v), (d)), e)
#define RATE(b, ns, e) EXPECT_FMT(hp_fmt_rate(out_, (b), (ns)), e)

/* Output that a JSON number or a text column can carry: [-]digits[.digits]. */
static int is_plain_number(const char *s)
{
    if (*s == '-') s++;
    if (*s < '0' || *s > '9') return 0;
    while (*s >= '0' && *s <= '9') s++;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9') return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == 0;
}

/* ---- bytes ---- */

START_TEST(counts)
{
    static const struct { uint64_t n; const char *text; } cases[] = {
        { 0, "0" }, { 8, "8" }, { 9999, "9999" }, { 10000, "10.0 k" }, { 12345, "12.3 k" },
        { 999949, "999.9 k" }, { 999950, "1.0 M" }, { 1200000, "1.2 M" }, { 4000000000ULL, "4.0 G" },
        { UINT64_MAX, "18.4 E" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[HP_FMT_MAX];
        hp_fmt_count(out, cases[i].n);
        ck_assert_str_eq(out, cases[i].text);
    }
}
END_TEST

START_TEST(bytes_below_one_kb)
{
    BYTES(0, "0 B");
    BYTES(1, "1 B");
    BYTES(316, "316 B");
    BYTES(1023, "1023 B");
}
END_TEST

START_TEST(bytes_units)
{
    BYTES(1024, "1.0 KB");
    BYTES(12698, "12.4 KB");            /* 12.40 KB */
    BYTES(376627, "367.8 KB");          /* 367.80 KB */
    BYTES(1887437, "1.8 MB");
    BYTES(3435973837LL, "3.2 GB");
    BYTES(1LL << 40, "1.0 TB");
    BYTES(5LL << 50, "5.0 PB");
    BYTES(3LL << 60, "3.0 EB");
}
END_TEST

START_TEST(bytes_rounding_half_up)
{
    BYTES(1075, "1.0 KB");              /* 1.0498 KB */
    BYTES(1076, "1.1 KB");              /* 1.0508 KB */
    BYTES(1587, "1.5 KB");              /* 1.5498 KB */
    BYTES(1588, "1.6 KB");              /* 1.5508 KB */
}
END_TEST

START_TEST(bytes_unit_chosen_after_rounding)
{
    BYTES(1048524, "1023.9 KB");        /* 1023.949 KB */
    BYTES(1048525, "1.0 MB");           /* 1023.950 KB would round to 1024.0 KB */
    BYTES(1048575, "1.0 MB");
    BYTES(1048576, "1.0 MB");
    BYTES(1073741823, "1.0 GB");
    BYTES((1LL << 30) - (1LL << 20), "1023.0 MB");
}
END_TEST

START_TEST(bytes_negative)
{
    BYTES(-1, "-1 B");
    BYTES(-316, "-316 B");
    BYTES(-1024, "-1.0 KB");
    BYTES(-12698, "-12.4 KB");
    BYTES(-1048575, "-1.0 MB");
}
END_TEST

START_TEST(bytes_extremes)
{
    BYTES(INT64_MAX, "8.0 EB");
    BYTES(INT64_MIN, "-8.0 EB");        /* its magnitude does not fit int64_t */
    BYTES(INT64_MIN + 1, "-8.0 EB");
}
END_TEST

/* ---- durations ---- */

START_TEST(duration_nanoseconds)
{
    DUR(0, "0 ns");
    DUR(412, "412 ns");
    DUR(999, "999 ns");
}
END_TEST

START_TEST(duration_microseconds)
{
    DUR(1000, "1.00 µs");
    DUR(17090, "17.09 µs");
    DUR(17094, "17.09 µs");
    DUR(17095, "17.10 µs");             /* half up */
    DUR(999994, "999.99 µs");
}
END_TEST

START_TEST(duration_milliseconds)
{
    DUR(999995, "1.00 ms");             /* would print as 1000.00 µs */
    DUR(1000000, "1.00 ms");
    DUR(1160000, "1.16 ms");
    DUR(1164999, "1.16 ms");
    DUR(1165000, "1.17 ms");
    DUR(999994999, "999.99 ms");
}
END_TEST

START_TEST(duration_seconds)
{
    DUR(999995000, "1.00 s");           /* would print as 1000.00 ms */
    DUR(4280000000ULL, "4.28 s");
    DUR(3600000000000ULL, "3600.00 s");
    DUR(UINT64_MAX, "18446744073.71 s");
}
END_TEST

START_TEST(duration_micro_sign_is_u00b5)
{
    char out[HP_FMT_MAX];
    hp_fmt_duration(out, 17090);
    /* MICRO SIGN U+00B5 (C2 B5), as docs/DESIGN.md writes it, not GREEK SMALL LETTER MU (CE BC) */
    ck_assert_mem_eq(out, "17.09 \xC2\xB5s", sizeof "17.09 \xC2\xB5s");
}
END_TEST

/* ---- CPU seconds ---- */

START_TEST(cpu_seconds)
{
    CPU(0, "0.000s");
    CPU(123000000, "0.123s");
    CPU(1873000000ULL, "1.873s");
    CPU(1872499999ULL, "1.872s");
    CPU(1872500000ULL, "1.873s");       /* half up */
    CPU(999500000, "1.000s");
    CPU(499999, "0.000s");
    CPU(500000, "0.001s");
    CPU(86400ULL * 1000000000ULL, "86400.000s");
}
END_TEST

/* ---- percentages ---- */

START_TEST(percent)
{
    PCT(98.2, "98.2%");
    PCT(6.3, "6.3%");
    PCT(100.0, "100.0%");
    PCT(0.0, "0.0%");
    PCT(6.25, "6.3%");                  /* exact half, up */
    PCT(99.96, "100.0%");
    PCT(0.04, "0.0%");
    PCT(-0.04, "0.0%");                 /* no "-0.0%" */
    PCT(-1.5, "-1.5%");
}
END_TEST

/* ---- fixed ---- */

START_TEST(fixed_decimals)
{
    FIXED(98.25, 2, "98.25");
    FIXED(98.25, 1, "98.3");
    FIXED(98.25, 0, "98");
    FIXED(98.5, 0, "99");
    FIXED(0.0, 0, "0");
    FIXED(0.0, 2, "0.00");
    FIXED(3.14159, 2, "3.14");
    FIXED(0.05, 2, "0.05");             /* leading zero of the fraction kept */
    FIXED(7.0, 2, "7.00");
    FIXED(1234567.891, 2, "1234567.89");
    FIXED(0.000001, 6, "0.000001");
    FIXED(1.23456789, 7, "1.234568");   /* decimals above 6 are clamped to 6 */
}
END_TEST

START_TEST(fixed_negative)
{
    FIXED(-2.5, 1, "-2.5");
    FIXED(-98.25, 2, "-98.25");
    FIXED(-7.0, 0, "-7");
    FIXED(-0.006, 2, "-0.01");
    FIXED(-0.004, 2, "0.00");           /* rounds to zero: no sign */
    FIXED(-0.0, 1, "0.0");
}
END_TEST

START_TEST(fixed_not_finite_does_not_crash)
{
    static const double bad[] = { NAN, -NAN, INFINITY, -INFINITY, 1e300, -1e300 };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int d = 0; d <= 6; d++) {
            char out[HP_FMT_MAX];
            memset(out, 'X', sizeof out);
            hp_fmt_fixed(out, bad[i], d);
            ck_assert_msg(memchr(out, 0, sizeof out) != NULL, "case %u/%d not terminated", i, d);
            ck_assert_msg(is_plain_number(out), "case %u/%d: \"%s\" is not a plain number", i, d,
                          out);
            memset(out, 'X', sizeof out);
            hp_fmt_percent(out, bad[i]);
            ck_assert_msg(memchr(out, 0, sizeof out) != NULL, "percent %u not terminated", i);
            size_t n = strlen(out);
            ck_assert(n >= 2 && out[n - 1] == '%');
        }
}
END_TEST

/* ---- rates (the I/O view) ---- */

START_TEST(rate)
{
    RATE(0, 0, "-");                                    /* no time measured */
    RATE(1000, 0, "-");
    RATE(0, 1000, "0 B/s");
    RATE(512, 1000000000, "512 B/s");
    RATE(78852915, 1000000000, "75.2 MB/s");            /* 75.20 MB in one second */
    RATE(10485760, 500000000, "20.0 MB/s");             /* 10 MiB in half a second */
    RATE(64, 1000, "61.0 MB/s");                        /* 64 B in 1 µs */
    RATE(1, 3, "317.9 MB/s");                           /* rounding: 333,333,333 B/s */
    RATE(UINT64_MAX, 1, "8.0 EB/s");                    /* capped, not wrapped */
}
END_TEST

static Suite *format_suite(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("bytes");
    HP_ADD(tc, bytes_below_one_kb);
    HP_ADD(tc, bytes_units);
    HP_ADD(tc, bytes_rounding_half_up);
    HP_ADD(tc, bytes_unit_chosen_after_rounding);
    HP_ADD(tc, bytes_negative);
    HP_ADD(tc, bytes_extremes);
    HP_ADD(tc, counts);
    suite_add_tcase(s, tc);

    tc = tcase_create("duration");
    HP_ADD(tc, duration_nanoseconds);
    HP_ADD(tc, duration_microseconds);
    HP_ADD(tc, duration_milliseconds);
    HP_ADD(tc, duration_seconds);
    HP_ADD(tc, duration_micro_sign_is_u00b5);
    suite_add_tcase(s, tc);

    tc = tcase_create("cpu_percent_fixed");
    HP_ADD(tc, cpu_seconds);
    HP_ADD(tc, percent);
    HP_ADD(tc, fixed_decimals);
    HP_ADD(tc, fixed_negative);
    HP_ADD(tc, fixed_not_finite_does_not_crash);
    HP_ADD(tc, rate);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(format_suite)
