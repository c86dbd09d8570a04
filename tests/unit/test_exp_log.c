/* test_exp_log.c — the profiler's own ln and expm1 (core/exp_log.h) against libm's, over
 * the arguments allocation sampling gives them and far beyond, to a few ulp. */
#include "unit.h"

#include <math.h>

#include "core/exp_log.h"

/* relative error in units of 2^-52 */
static double ulps(double got, double want)
{
    if (got == want) return 0;
    return fabs(got - want) / (fabs(want) * 0x1p-52);
}

START_TEST(log_matches_libm)
{
    double worst = 0;
    /* every binade from subnormals to the largest doubles, 4,000 points in each */
    for (int e = -1074; e <= 1023; e++)
        for (int i = 0; i < 4000; i++) {
            double x = ldexp(1.0 + i / 4000.0, e);
            if (!isfinite(x) || x == 1.0) continue;
            double u = ulps(hp_log(x), log(x));
            if (u > worst) worst = u;
        }
    ck_assert_msg(worst < 8, "worst error %.1f ulp", worst);
    ck_assert(hp_log(1.0) == 0.0);
    ck_assert(isinf(hp_log(0.0)) && hp_log(0.0) < 0);
    ck_assert_double_eq_tol(hp_log(0x1.0p-53), -53 * M_LN2, 1e-12);   /* the smallest draw */
}
END_TEST

START_TEST(expm1_matches_libm)
{
    double worst = 0;
    for (int i = -500000; i <= 500000; i++) {
        double x = i / 1000.0;                      /* -500 to 500 */
        double u = ulps(hp_expm1(x), expm1(x));
        if (u > worst) worst = u;
    }
    for (int i = 1; i <= 100000; i++) {             /* near 0, where e^x - 1 cancels */
        double x = i * 1e-12;
        double u = fmax(ulps(hp_expm1(x), expm1(x)), ulps(hp_expm1(-x), expm1(-x)));
        if (u > worst) worst = u;
    }
    ck_assert_msg(worst < 8, "worst error %.1f ulp", worst);
    ck_assert(hp_expm1(0.0) == 0.0);
    ck_assert(hp_expm1(-1e6) == -1.0);              /* a block far above the sampling mean */
    ck_assert(hp_expm1(708.0) == expm1(708.0) || ulps(hp_expm1(708.0), expm1(708.0)) < 8);
    ck_assert(isinf(hp_expm1(1000.0)));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("exp_log");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, log_matches_libm);
    HP_ADD(tc, expm1_matches_libm);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
