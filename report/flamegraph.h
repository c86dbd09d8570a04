/* flamegraph.h — folded stacks (`outer;mid;leaf 42` lines, as HOTPATH_CPU_FOLDED writes them) drawn
 * as one standalone SVG flame graph: no script needed to display it, a <title> on every frame for
 * hover, widths proportional to the counts, colours fixed by the frame's name; its inline script
 * adds zoom and search. */
#ifndef HP_FLAMEGRAPH_H
#define HP_FLAMEGRAPH_H

#include <stddef.h>

#include "buf.h"

/* What a flame graph's counts are, for its hover titles: `parse (42 samples, 12.3%)`,
 * `parse (150.9 MB, 12.3%)` (report/format.c's units). */
enum hp_flame_unit { HP_FLAME_SAMPLES, HP_FLAME_BYTES };

/* Append one <svg> element to out, for len bytes of folded lines. Lines that do not end in a
 * count are skipped; equal stacks are summed; frames narrower than 0.1 px are left out.
 * 0, or -1 when there is nothing to draw (no valid line, all counts 0) or memory ran out.
 * The SVG carries its own script (no network), run as a file of its own and inline in a page:
 * a click on a frame zooms to it (its ancestors kept, "Reset zoom" undoes it), "Search" marks the
 * frames whose name matches a text or regular expression and shows their share. */
int hp_flamegraph_svg(struct hp_buf *out, const char *folded, size_t len, const char *title,
                      enum hp_flame_unit unit);
/* The <svg> to show when there is nothing to draw: the title and why (`no samples`). */
void hp_flamegraph_empty_svg(struct hp_buf *out, const char *title, const char *why);

#endif
