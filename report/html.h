/* html.h — the HTML report (HOTPATH_HTML_PATH): one self-contained page beside the usual report,
 * nothing fetched from the network. A header (command, pid, duration, RSS), the time series as
 * SVG charts, the threads, locks and I/O tables (sortable by a click on a column), and the CPU
 * flame graph when the CPU profile ran. */
#ifndef HP_HTML_H
#define HP_HTML_H

#include "buf.h"

/* The page as it would be written now. */
void hp_html_render(struct hp_buf *out);
/* Write it where HOTPATH_HTML_PATH says (%p, %n expanded); nothing when it is not set. */
void hp_html_write(int pid, unsigned image);

#endif
