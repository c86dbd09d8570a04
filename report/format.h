/* format.h — how the report writes numbers (docs/DESIGN.md "One report model"): bytes 1024-based
 * (316 B, 12.4 KB), durations (412 ns, 17.09 µs, 1.16 ms, 4.28 s), CPU seconds (0.123s),
 * percentages (98.2%), and fixed-point numbers for JSON. No floating-point printf. */
#ifndef HP_FORMAT_H
#define HP_FORMAT_H

#include <stdint.h>

#define HP_FMT_MAX 48

void hp_fmt_bytes(char out[HP_FMT_MAX], int64_t bytes);
void hp_fmt_duration(char out[HP_FMT_MAX], uint64_t ns);
void hp_fmt_cpu_seconds(char out[HP_FMT_MAX], uint64_t ns);
void hp_fmt_percent(char out[HP_FMT_MAX], double pct);
/* part as a percentage of whole (0 when whole is 0). */
double hp_share_percent(uint64_t part, uint64_t whole);
/* A rate: bytes moved in ns nanoseconds, per second, 1024-based like bytes (75.2 MB/s); `-` when
 * no time was measured. */
void hp_fmt_rate(char out[HP_FMT_MAX], uint64_t bytes, uint64_t ns);
/* A count for a line of text: exact below 10,000, else 1000-based with one decimal (12.3 k,
 * 1.2 M, 4.0 G). */
void hp_fmt_count(char out[HP_FMT_MAX], uint64_t n);
/* A whole number in decimal, as %llu and %lld write it (JSON's integers: a report holds
 * thousands, and vsnprintf takes ~100 ns for each). */
void hp_fmt_uint(char out[HP_FMT_MAX], uint64_t v);
void hp_fmt_int(char out[HP_FMT_MAX], int64_t v);
/* v rounded to `decimals` places (0–6), e.g. 98.25; negative values keep their sign. */
void hp_fmt_fixed(char out[HP_FMT_MAX], double v, int decimals);

#endif
