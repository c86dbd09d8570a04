/* section.c — what every section's table starts with (section.h). */
#include "section.h"

#include <string.h>

void hp_section_title(struct hp_buf *out, const char *title, const char *description,
                      const char *figures, unsigned shown, unsigned total)
{
    hp_buf_printf(out, "%s - %s", title, description);
    if (figures && *figures) hp_buf_printf(out, " (%s)", figures);
    if (shown < total) hp_buf_printf(out, " (%u/%u)", shown, total);
    hp_buf_putc(out, '\n');
}

uint32_t hp_section_bit(const struct hp_section *s)
{
    unsigned i = 0;
    HP_FOR_EACH_SECTION(at) {
        if (at == s) return i < HP_SECTIONS_MAX ? 1u << i : 0;
        i++;
    }
    return 0;
}

const struct hp_section *hp_section_find(const char *key)
{
    HP_FOR_EACH_SECTION(s)
        if (strcmp(s->key, key) == 0) return s;
    return NULL;
}
