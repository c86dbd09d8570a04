/* exp_log.h — the natural logarithm and expm1 that allocation sampling needs (its random
 * intervals and the weight of a sampled block), in plain arithmetic: with them libhotpath.so
 * needs no libm, whose loading (mapping, relocation, page faults) every profiled process paid at
 * start for two calls that run once per sample. Accurate to a few ulp for finite arguments. */
#ifndef HP_EXP_LOG_H
#define HP_EXP_LOG_H

#include <stdint.h>
#include <string.h>

#define HP_LN2 0.69314718055994530942

/* ln(x) for x > 0 (x <= 0 gives -infinity, as a sampler needs nothing else). */
static inline double hp_log(double x)
{
    if (!(x > 0)) return -__builtin_inf();
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff);
    if (e == 0) {                                    /* subnormal: scale into the normal range */
        x *= 0x1p54;
        memcpy(&bits, &x, sizeof bits);
        e = (int)((bits >> 52) & 0x7ff) - 54;
    }
    if (e == 0x7ff) return x;                        /* infinity or NaN */
    e -= 1023;
    bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;   /* m in [1, 2) */
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.41421356237309504880) { m *= 0.5; e++; }               /* m in [0.707, 1.414] */
    /* ln(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172: the odd series to s^25 */
    double s = (m - 1) / (m + 1), s2 = s * s, term = s, sum = 0;
    for (int k = 1; k <= 25; k += 2) {
        sum += term / k;
        term *= s2;
    }
    return e * HP_LN2 + 2 * sum;
}

/* e^x - 1, exact near 0 where e^x - 1 would cancel. */
static inline double hp_expm1(double x)
{
    if (x != x) return x;
    if (x < -40) return -1;                          /* e^x below half an ulp of 1 */
    if (x > 709) return __builtin_inf();
    if (x > -0.5 && x < 0.5) {                       /* the Taylor series, x^k / k! to k = 20 */
        double term = x, sum = 0;
        for (int k = 2; k <= 21; k++) {
            sum += term;
            term *= x / k;
        }
        return sum;
    }
    /* e^x = 2^n e^r, |r| <= ln2 / 2; ln2 in two parts so that n ln2 is exact enough */
    int n = (int)(x / HP_LN2 + (x < 0 ? -0.5 : 0.5));
    double r = (x - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
    double term = 1, er = 0;
    for (int k = 1; k <= 20; k++) {
        er += term;
        term *= r / k;
    }
    uint64_t bits = (uint64_t)(n + 1023) << 52;      /* -58 <= n <= 1023: a normal power of two */
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return er * scale - 1;
}

#endif
