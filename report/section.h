/* section.h — one section of the report, as a view gives it (core/view.h: its descriptor lists
 * its sections): the same renderings for every section (text table, JSON, Prometheus, flame
 * graph, files of its own), so the exit report, the server, the HTML page and the console never
 * need editing when a view is added. */
#ifndef HP_SECTION_H
#define HP_SECTION_H

#include "core/config.h"
#include "core/view.h"
#include "buf.h"
#include "flamegraph.h"
#include "json.h"

struct hp_section {
    const char *key;            /* its JSON key and its name in HOTPATH_REPORT */
    const char *const *aliases; /* other names HOTPATH_REPORT knows it by (to a NULL), or NULL */
    const unsigned *limit;      /* its text table's rows, 0 = all: a setting of its view */
    const char *title;          /* its text title */
    void *(*snapshot)(void);    /* a copy of the view as it is now; NULL when not available */
    void (*release)(void *snap);
    void (*table)(const void *snap, struct hp_buf *out, unsigned limit);
    void (*json)(const void *snap, struct hp_json *out);  /* writes the value under its key */
    /* Prometheus text exposition families of the view (report/prometheus.c); NULL if none. */
    void (*prometheus)(const void *snap, struct hp_buf *out);
    /* Its folded stacks for the HTML page's flame graph (id and title there), 0 or -1; NULL if
     * it has none. */
    int (*folded)(struct hp_buf *out);
    const char *flame_id, *flame_title;
    enum hp_flame_unit flame_unit;      /* what its counts are: samples or bytes */
    /* At a report: the files of its own it writes beside it (folded stacks, SVG), their titles
     * naming the process (its pid and command line); NULL if none. */
    void (*files_write)(int pid, unsigned image, const char *command);
    /* Its tables on the HTML page (report/html.c), to a NULL; NULL if none. */
    const struct hp_html_table *const *html_tables;
    /* The CPU its rows add up to (threads: what the run's processes table ranks images by,
     * launcher/gather.c); NULL if it has none. */
    uint64_t (*cpu_ns)(const void *snap);
};

/* A table of a section on the HTML page, the same columns, figures and initial order as its text
 * table: the page's script builds it from the report's JSON, one row per element of the
 * section's array `rows`, or with `modes` one per mode of each element (rw_locks: its "write" and
 * "read" objects, each with "mode", its key, and "parent", the element). Only rows with one of
 * the `when` fields non-zero are shown (none: every row); `mark`, a field that marks its row.
 * `sort`: the keys of the initial order, the text's (ties keep the JSON's order, which is the
 * text's where the section's array is sorted).
 *
 * A column shows its row's `field` by the script's `format` (NULL: as it is; "bytes", "ns",
 * "pct", "secs", "rate" (bytes/s), "trend", "dash" (an empty text is `-`), "kind" (with
 * " (accepted)" where the row's `accepted`), "where" (`file.c:42` from the row's file and line));
 * `-` where the value is null or its `when` field (`!field`: negated) is zero or false. A field is
 * a dotted path (`read.bytes`), a sum (`a+b`), or a share in percent (`a%b`, as
 * hp_share_percent); a path starting with `^` is from the section's object, not the row's. The
 * script's formats give the strings report/format.c gives for the same values. */
#define HP_HTML_COLUMNS 16
#define HP_HTML_KEYS 4
struct hp_html_table {
    const char *id, *title, *rows;
    const char *modes[3], *when[4], *mark;                    /* each to a NULL */
    struct { const char *field; int desc; } sort[HP_HTML_KEYS]; /* to a NULL field */
    struct { const char *title, *field, *format, *when; } columns[HP_HTML_COLUMNS];   /* to a NULL title */
};

/* Every view's sections, in report order. */
#define HP_FOR_EACH_SECTION(s)                                                                   \
    HP_FOR_EACH_VIEW(s##_view)                                                                   \
        for (const struct hp_section *const *s##_at = s##_view->sections, *s;                    \
             s##_at < s##_view->sections + s##_view->nsections && ((s = *s##_at), 1); s##_at++)

#define HP_SECTIONS_MAX 32      /* bits of a mask of sections (report/report_settings.h) */

/* A section's bit in a mask of sections: by its place in report order. */
uint32_t hp_section_bit(const struct hp_section *s);
/* The section of that JSON key, or NULL. */
const struct hp_section *hp_section_find(const char *key);

/* The title line every section's table starts with; ` (shown/total)` when rows were cut. */
void hp_section_title(struct hp_buf *out, const char *title, const char *description,
                      const char *figures, unsigned shown, unsigned total);

#endif
