/* section.h — one view of the report. Every view registers one section with the same renderings
 * (text table, JSON), so the exit report, the server and the console never need editing when a
 * view is added: add its file and one line in sections.c. */
#ifndef HP_SECTION_H
#define HP_SECTION_H

#include "core/config.h"
#include "buf.h"
#include "json.h"

struct hp_section {
    enum hp_section_id id;      /* its JSON key and HOTPATH_REPORT name: hp_section_keys[id] */
    const char *title;          /* its text title */
    void *(*snapshot)(void);    /* a copy of the view as it is now; NULL when not available */
    void (*release)(void *snap);
    void (*table)(const void *snap, struct hp_buf *out, unsigned limit);
    void (*json)(const void *snap, struct hp_json *out);  /* writes the value under its key */
    /* Prometheus text exposition families of the view (report/prometheus.c); NULL if none. */
    void (*prometheus)(const void *snap, struct hp_buf *out);
};

extern const struct hp_section *const hp_sections[];
extern const unsigned hp_section_count;

/* The title line every section's table starts with; ` (shown/total)` when rows were cut. */
void hp_section_title(struct hp_buf *out, const char *title, const char *description,
                      const char *figures, unsigned shown, unsigned total);

#endif
