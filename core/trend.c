/* trend.c — see trend.h. */
#include "trend.h"

/* Slope (per second) and R² of the least-squares line through n points; -1 when the times do
 * not spread. */
static int least_squares(const double *t, const double *v, uint32_t n, double *slope, double *r2)
{
    double mt = 0, mv = 0;
    for (uint32_t i = 0; i < n; i++) { mt += t[i]; mv += v[i]; }
    mt /= n;
    mv /= n;
    double stt = 0, stv = 0, svv = 0;
    for (uint32_t i = 0; i < n; i++) {
        stt += (t[i] - mt) * (t[i] - mt);
        stv += (t[i] - mt) * (v[i] - mv);
        svv += (v[i] - mv) * (v[i] - mv);
    }
    if (n < 2 || stt <= 0) return -1;
    *slope = stv / stt;
    *r2 = svv > 0 ? stv * stv / (stt * svv) : 0;
    return 0;
}

/* In how many of the run's four quarters (by point) the value ended higher than it began. */
static int rising_quarters(const double *v, uint32_t n)
{
    int rising = 0;
    for (uint32_t q = 0; q < 4; q++) {
        uint32_t from = q * (n - 1) / 4, to = (q + 1) * (n - 1) / 4;
        rising += v[to] > v[from];
    }
    return rising;
}

void hp_trend_compute(const double *t, const double *v, uint32_t n, double min_window_s, struct hp_trend *out)
{
    *out = (struct hp_trend){ 0 };
    if (n < 2) return;
    out->observed_s = t[n - 1] - t[0];
    uint32_t from = n - 1;
    while (from > 0 && t[n - 1] - t[from - 1] <= HP_TREND_WINDOW_S) from--;
    double slope, r2;
    if (least_squares(t + from, v + from, n - from, &slope, &r2) != 0) return;
    out->known = 1;
    out->bytes_per_min = slope * 60.0;
    if (n < HP_TREND_MIN_POINTS || out->observed_s < min_window_s || least_squares(t, v, n, &slope, &r2) != 0)
        return;
    out->growing = slope > 0 && slope * (t[n - 1] - t[0]) >= HP_TREND_MIN_RISE_BYTES &&
                   r2 >= HP_TREND_MIN_R2 && rising_quarters(v, n) >= 3;
}
