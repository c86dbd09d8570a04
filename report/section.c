/* section.c — what every section's table starts with (section.h). */
#include "section.h"

void hp_section_title(struct hp_buf *out, const char *title, const char *description,
                      const char *figures, unsigned shown, unsigned total)
{
    hp_buf_printf(out, "%s - %s", title, description);
    if (figures && *figures) hp_buf_printf(out, " (%s)", figures);
    if (shown < total) hp_buf_printf(out, " (%u/%u)", shown, total);
    hp_buf_putc(out, '\n');
}
