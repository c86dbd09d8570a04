/* prometheus_text.c — the pure helpers of prometheus.h. */
#include "prometheus.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

const double hp_prom_le_seconds[HP_PROM_LE] = { 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10 };
static const char *const le_text[HP_PROM_LE] = { "1e-06", "1e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10" };

void hp_prom_family(struct hp_buf *out, const char *name, const char *type, const char *help)
{
    hp_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void hp_prom_escape(struct hp_buf *out, const char *value)
{
    size_t len = strlen(value);
    const unsigned char *p = (const unsigned char *)value;
    while (len > 0) {
        uint32_t cp;
        size_t n = hp_utf8_decode(p, len, &cp);
        if (cp == '\\') hp_buf_puts(out, "\\\\");
        else if (cp == '"') hp_buf_puts(out, "\\\"");
        else if (cp == '\n') hp_buf_puts(out, "\\n");
        else {
            char enc[4];
            hp_buf_put(out, enc, hp_utf8_encode(cp, enc));
        }
        p += n;
        len -= n;
    }
}

static void series(struct hp_buf *out, const char *name, const char *labels)
{
    hp_buf_puts(out, name);
    if (labels && *labels) {
        hp_buf_putc(out, '{');
        hp_buf_puts(out, labels);
        hp_buf_putc(out, '}');
    }
    hp_buf_putc(out, ' ');
}

void hp_prom_u64(struct hp_buf *out, const char *name, const char *labels, uint64_t v)
{
    series(out, name, labels);
    hp_buf_printf(out, "%llu\n", (unsigned long long)v);
}

void hp_prom_double(struct hp_buf *out, const char *name, const char *labels, double v)
{
    series(out, name, labels);
    if (isnan(v)) { hp_buf_puts(out, "NaN\n"); return; }
    /* fixed notation with 9 decimals: no locale, no exponent, nanosecond resolution */
    long long whole = (long long)v;
    double f = (v - (double)whole) * 1e9;
    long long frac = (long long)(f < 0 ? f - 0.5 : f + 0.5);
    if (frac >= 1000000000) { whole++; frac -= 1000000000; }
    if (frac < 0) frac = -frac;
    hp_buf_printf(out, "%s%lld.%09lld\n", v < 0 && whole == 0 ? "-" : "", whole, frac);
}

void hp_prom_coarse(const uint32_t counts[HP_HIST_BUCKETS], uint64_t (*to_ns)(uint64_t),
                    uint64_t out[HP_PROM_LE + 1])
{
    memset(out, 0, (HP_PROM_LE + 1) * sizeof *out);
    for (unsigned b = 0; b < HP_HIST_BUCKETS; b++) {
        if (!counts[b]) continue;
        uint64_t high = hp_hist_bucket_high(b);
        double s = (double)(to_ns ? to_ns(high) : high) / 1e9;
        unsigned k = 0;
        while (k < HP_PROM_LE && s > hp_prom_le_seconds[k]) k++;
        for (unsigned i = k; i <= HP_PROM_LE; i++) out[i] += counts[b];
    }
}

void hp_prom_histogram(struct hp_buf *out, const char *name, const char *labels,
                       const uint64_t cum[HP_PROM_LE + 1], double sum_seconds)
{
    struct hp_buf l = { 0 };
    char metric[160];
    snprintf(metric, sizeof metric, "%s_bucket", name);
    for (unsigned i = 0; i <= HP_PROM_LE; i++) {
        l.len = 0;
        if (l.data) l.data[0] = 0;
        if (labels && *labels) { hp_buf_puts(&l, labels); hp_buf_putc(&l, ','); }
        hp_buf_printf(&l, "le=\"%s\"", i < HP_PROM_LE ? le_text[i] : "+Inf");
        hp_prom_u64(out, metric, l.data ? l.data : "", cum[i]);
    }
    hp_buf_free(&l);
    snprintf(metric, sizeof metric, "%s_sum", name);
    hp_prom_double(out, metric, labels, sum_seconds);
    snprintf(metric, sizeof metric, "%s_count", name);
    hp_prom_u64(out, metric, labels, cum[HP_PROM_LE]);
}
