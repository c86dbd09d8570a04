/* test_ticks.c — the hot paths' timestamps (core/ticks.c): the TSC is chosen exactly where
 * the CPU says it is invariant, and ticks convert to the nanoseconds that passed. */
#include "unit.h"

#include <time.h>

#include "core/clock.h"
#include "core/ticks.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

START_TEST(tsc_chosen_where_cpuid_says_invariant)
{
    hp_ticks_init();
#if defined(__x86_64__)
    unsigned a, b, c, d;
    int invariant = __get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000007 &&
                    __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8));
    ck_assert_int_eq(hp_ticks_are_tsc, invariant);
#else
    ck_assert_int_eq(hp_ticks_are_tsc, 0);
#endif
}
END_TEST

START_TEST(ticks_convert_to_elapsed_nanoseconds)
{
    hp_ticks_init();
    uint64_t t0 = hp_ticks(), n0 = hp_now_ns();
    struct timespec pause = { 0, 30 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    uint64_t ticks = hp_ticks() - t0, ns = hp_now_ns() - n0;
    uint64_t converted = hp_ticks_to_ns(ticks);
    /* a wide bound: the two clocks are read a few instructions apart, on a loaded machine */
    ck_assert_msg(converted > ns * 9 / 10 && converted < ns * 11 / 10, "%llu ticks -> %llu ns, %llu ns passed",
                  (unsigned long long)ticks, (unsigned long long)converted, (unsigned long long)ns);
}
END_TEST

START_TEST(one_rate_for_the_conversions_of_a_report)
{
    hp_ticks_init();
    struct timespec pause = { 0, 5 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    /* a P95 capped at the max in ticks came out a nanosecond above it once converted */
    uint64_t big = 68068776ull * 3, first = hp_ticks_to_ns(big);
    for (int i = 0; i < 1000; i++) ck_assert_uint_eq(hp_ticks_to_ns(big), first);
    ck_assert_uint_le(hp_ticks_to_ns(big - 1), first);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ticks");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, tsc_chosen_where_cpuid_says_invariant);
    HP_ADD(tc, ticks_convert_to_elapsed_nanoseconds);
    HP_ADD(tc, one_rate_for_the_conversions_of_a_report);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
