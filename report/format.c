/* format.c — see format.h. Numbers are built digit by digit: no snprintf, no floating point
 * printf, nothing that could allocate. */
#include "format.h"

#include <stdio.h>
#include <string.h>

/* Append the decimal digits of v at out[*n]. */
static void put_uint(char *out, size_t *n, uint64_t v)
{
    char tmp[24];
    size_t k = 0;
    do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k) out[(*n)++] = tmp[--k];
}

void hp_fmt_uint(char out[HP_FMT_MAX], uint64_t v)
{
    size_t n = 0;
    put_uint(out, &n, v);
    out[n] = 0;
}

void hp_fmt_int(char out[HP_FMT_MAX], int64_t v)
{
    size_t n = 0;
    if (v < 0) out[n++] = '-';
    put_uint(out, &n, v < 0 ? -(uint64_t)v : (uint64_t)v);
    out[n] = 0;
}

static void put_str(char *out, size_t *n, const char *s)
{
    size_t len = strlen(s);
    memcpy(out + *n, s, len);
    *n += len;
}

/* sign, value / divisor rounded to `decimals` places (0–6), unit */
static void fixed_ratio(char out[HP_FMT_MAX], const char *sign, uint64_t value, uint64_t divisor,
                        int decimals, const char *unit)
{
    uint64_t scale = 1;
    for (int i = 0; i < decimals; i++) scale *= 10;
    unsigned __int128 scaled = ((unsigned __int128)value * scale + divisor / 2) / divisor;
    uint64_t whole = (uint64_t)(scaled / scale), frac = (uint64_t)(scaled % scale);
    size_t n = 0;
    put_str(out, &n, sign);
    put_uint(out, &n, whole);
    if (decimals > 0) {
        out[n++] = '.';
        for (uint64_t d = scale / 10; d > 0; d /= 10) out[n++] = (char)('0' + (frac / d) % 10);
    }
    put_str(out, &n, unit);
    out[n] = 0;
}

void hp_fmt_bytes(char out[HP_FMT_MAX], int64_t bytes)
{
    static const char *const units[] = { " KB", " MB", " GB", " TB", " PB", " EB" };
    uint64_t mag = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes : (uint64_t)bytes;
    const char *sign = bytes < 0 ? "-" : "";
    if (mag < 1024) {
        fixed_ratio(out, sign, mag, 1, 0, " B");
        return;
    }
    int u = 0;
    uint64_t div = 1024;
    /* pick the unit after rounding, so 1023.96 KB prints as 1.0 MB */
    while (u < 5 && ((unsigned __int128)mag * 10 + div / 2) / div >= 10240) {
        div *= 1024;
        u++;
    }
    fixed_ratio(out, sign, mag, div, 1, units[u]);
}

void hp_fmt_duration(char out[HP_FMT_MAX], uint64_t ns)
{
    if (ns < 1000) fixed_ratio(out, "", ns, 1, 0, " ns");
    else if (ns < 999995) fixed_ratio(out, "", ns, 1000, 2, " µs");
    else if (ns < 999995000) fixed_ratio(out, "", ns, 1000000, 2, " ms");
    else fixed_ratio(out, "", ns, 1000000000, 2, " s");
}

void hp_fmt_cpu_seconds(char out[HP_FMT_MAX], uint64_t ns)
{
    fixed_ratio(out, "", ns, 1000000000, 3, "s");
}

void hp_fmt_fixed(char out[HP_FMT_MAX], double v, int decimals)
{
    uint64_t scale = 1;
    if (decimals > 6) decimals = 6;
    for (int i = 0; i < decimals; i++) scale *= 10;
    double mag = v < 0 ? -v : v;
    if (mag != mag) mag = 0;             /* NaN: no measurement */
    else if (mag > 1e12) mag = 1e12;
    uint64_t scaled = (uint64_t)(mag * (double)scale + 0.5);
    fixed_ratio(out, v < 0 && scaled ? "-" : "", scaled, scale, decimals, "");
}

double hp_share_percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void hp_fmt_percent(char out[HP_FMT_MAX], double pct)
{
    hp_fmt_fixed(out, pct, 1);
    strcat(out, "%");
}

void hp_fmt_rate(char out[HP_FMT_MAX], uint64_t bytes, uint64_t ns)
{
    if (ns == 0) {
        strcpy(out, "-");
        return;
    }
    unsigned __int128 per_s = ((unsigned __int128)bytes * 1000000000u + ns / 2) / ns;
    hp_fmt_bytes(out, per_s > INT64_MAX ? INT64_MAX : (int64_t)per_s);
    strcat(out, "/s");
}

void hp_fmt_count(char out[HP_FMT_MAX], uint64_t n)
{
    static const char *const units[] = { "k", "M", "G", "T", "P", "E" };
    if (n < 10000) {
        snprintf(out, HP_FMT_MAX, "%llu", (unsigned long long)n);
        return;
    }
    /* tenths of the unit, rounded half up; 999.95 k is 1.0 M */
    unsigned __int128 tenths;
    uint64_t scale = 1000;
    unsigned u = 0;
    for (;;) {
        tenths = ((unsigned __int128)n * 10 + scale / 2) / scale;
        if (tenths < 10000 || u + 1 == sizeof units / sizeof *units) break;
        scale *= 1000;
        u++;
    }
    snprintf(out, HP_FMT_MAX, "%llu.%llu %s", (unsigned long long)(tenths / 10), (unsigned long long)(tenths % 10),
             units[u]);
}
