/* table.c — see table.h. */
#include "table.h"

#include <string.h>

#include "core/memory.h"
#include "utf8.h"

void hp_table_init(struct hp_table *t, unsigned ncols, const char *const *headers)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->headers = headers;
}

/* Text that is safe on a terminal: valid UTF-8, no control characters. */
static char *clean(const char *s)
{
    size_t len = strlen(s);
    char *out = hp_alloc(len * 3 + 1);
    if (!out) return NULL;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (len > 0) {
        uint32_t cp;
        size_t n = hp_utf8_decode(p, len, &cp);
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) cp = 0xFFFD;
        o += hp_utf8_encode(cp, out + o);
        p += n;
        len -= n;
    }
    out[o] = 0;
    return out;
}

void hp_table_add_row(struct hp_table *t, const char *const *cells)
{
    if (t->failed) return;
    if (t->nrows == t->cap_rows) {
        unsigned cap = t->cap_rows ? t->cap_rows * 2 : 16;
        char **grown = hp_realloc(t->cells, (size_t)cap * t->ncols * sizeof *grown);
        if (!grown) { t->failed = 1; return; }
        t->cells = grown;
        t->cap_rows = cap;
    }
    char **row = t->cells + (size_t)t->nrows * t->ncols;
    for (unsigned c = 0; c < t->ncols; c++) row[c] = clean(cells[c] ? cells[c] : "");
    t->nrows++;
}

static void rule(struct hp_buf *out, const size_t *widths, unsigned ncols)
{
    for (unsigned c = 0; c < ncols; c++) {
        hp_buf_putc(out, '+');
        for (size_t i = 0; i < widths[c] + 2; i++) hp_buf_putc(out, '-');
    }
    hp_buf_puts(out, "+\n");
}

static void line(struct hp_buf *out, const size_t *widths, unsigned ncols, const char *const *cells)
{
    for (unsigned c = 0; c < ncols; c++) {
        const char *s = cells[c] ? cells[c] : "";
        hp_buf_puts(out, "| ");
        hp_buf_puts(out, s);
        for (size_t i = hp_utf8_width(s); i < widths[c] + 1; i++) hp_buf_putc(out, ' ');
    }
    hp_buf_puts(out, "|\n");
}

void hp_table_render(const struct hp_table *t, struct hp_buf *out)
{
    if (t->failed) out->failed = 1;   /* a row that could not be kept: the output is incomplete */
    size_t *widths = hp_alloc(t->ncols * sizeof *widths);
    if (!widths) { out->failed = 1; return; }
    for (unsigned c = 0; c < t->ncols; c++) widths[c] = hp_utf8_width(t->headers[c]);
    for (unsigned r = 0; r < t->nrows; r++)
        for (unsigned c = 0; c < t->ncols; c++) {
            const char *s = t->cells[(size_t)r * t->ncols + c];
            size_t w = s ? hp_utf8_width(s) : 0;
            if (w > widths[c]) widths[c] = w;
        }
    rule(out, widths, t->ncols);
    line(out, widths, t->ncols, t->headers);
    rule(out, widths, t->ncols);
    for (unsigned r = 0; r < t->nrows; r++) {
        line(out, widths, t->ncols, (const char *const *)t->cells + (size_t)r * t->ncols);
        rule(out, widths, t->ncols);
    }
    hp_free(widths);
}

void hp_table_free(struct hp_table *t)
{
    for (size_t i = 0; i < (size_t)t->nrows * t->ncols; i++) hp_free(t->cells[i]);
    hp_free(t->cells);
    memset(t, 0, sizeof *t);
}
