/* trend.h — is a thread's live memory growing? A least-squares line through its series gives the
 * growth per minute over the last window; "growing" means steady growth over most of the run,
 * observed long enough to tell it from warm-up (the series spans at least HOTPATH_GROWTH_WINDOW_S:
 * a JIT's or a cache's first seconds rise steadily too): the line over the whole run rises clearly
 * and fits well, and the value rose in at least three of its four quarters (so one large
 * allocation, or a sawtooth, is not growth). Pure arithmetic. */
#ifndef HP_TREND_H
#define HP_TREND_H

#include <stdint.h>

#define HP_TREND_WINDOW_S 300.0          /* the window of the per-minute figure */
#define HP_TREND_MIN_POINTS 6
#define HP_TREND_MIN_RISE_BYTES 16384.0  /* less growth than this over the run is not a leak */
#define HP_TREND_MIN_R2 0.6

struct hp_trend {
    int known;                  /* enough points for a slope */
    double bytes_per_min;       /* slope over the last HP_TREND_WINDOW_S */
    int growing;
    double observed_s;          /* the span of the series, first point to last */
};

/* t: seconds, ascending; v: bytes; n points; min_window_s: the span growing needs. */
void hp_trend_compute(const double *t, const double *v, uint32_t n, double min_window_s, struct hp_trend *out);

#endif
