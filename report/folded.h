/* folded.h — a stack table (core/stacks.h) as folded stacks: one `outer;mid;leaf 42` line
 * per distinct stack of function names, equal stacks summed, sorted; the input of flamegraph.pl,
 * inferno, speedscope and our own SVG (report/flamegraph.h). Frames keep their spaces (`unsigned long f(int)`): those readers take the count after the
 * last space. */
#ifndef HP_FOLDED_H
#define HP_FOLDED_H

#include <stdint.h>

#include "core/stacks.h"
#include "buf.h"

/* The weight of table entry e (0: left out). */
typedef uint64_t (*hp_folded_weight)(const struct hp_stacks *t, uint32_t e, const void *arg);

/* Append the folded lines of every ready entry of t, and an `<other>` line of weight `other`
 * when not 0; the profiler's own frames (libhotpath) left out when skip_profiler is set. 0, or -1
 * out of memory. */
int hp_folded_build(struct hp_buf *out, struct hp_stacks *t, hp_folded_weight weight,
                    const void *arg, uint64_t other, int skip_profiler);

#endif
