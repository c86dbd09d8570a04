/* sections.c — the views the report knows, in report order. */
#include "section.h"

extern const struct hp_section hp_threads_section;
extern const struct hp_section hp_mutexes_section, hp_rw_locks_section;
extern const struct hp_section hp_io_section;
extern const struct hp_section hp_functions_cpu_section;
extern const struct hp_section hp_functions_alloc_section;

const struct hp_section *const hp_sections[] = {
    &hp_threads_section,
#if !defined(__APPLE__)   /* the macOS build has threads and allocation call sites (docs/REFERENCE.md "macOS") */
    &hp_mutexes_section,
    &hp_rw_locks_section,
    &hp_io_section,
    &hp_functions_cpu_section,
#endif
    &hp_functions_alloc_section,
};
const unsigned hp_section_count = sizeof hp_sections / sizeof *hp_sections;

void hp_section_title(struct hp_buf *out, const char *title, const char *description,
                      const char *figures, unsigned shown, unsigned total)
{
    hp_buf_printf(out, "%s - %s", title, description);
    if (figures && *figures) hp_buf_printf(out, " (%s)", figures);
    if (shown < total) hp_buf_printf(out, " (%u/%u)", shown, total);
    hp_buf_putc(out, '\n');
}
