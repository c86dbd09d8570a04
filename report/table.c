/* table.c — see table.h. */
#include "table.h"

#include <string.h>

#include "core/memory.h"
#include "utf8.h"

unsigned hp_table_width = HP_TABLE_WIDTH_DEFAULT;

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
        char cut[256];
        size_t w = hp_utf8_width(s);
        if (w > widths[c]) {     /* a narrowed column: the cell's end, which names it best */
            size_t size = strlen(s) + 4;
            char *kept = size <= sizeof cut ? cut : hp_alloc(size);
            if (kept) {
                hp_utf8_keep_end(s, widths[c], kept, size);
                s = kept;
                w = hp_utf8_width(s);
            } else {
                out->failed = 1;
            }
        }
        hp_buf_puts(out, "| ");
        hp_buf_puts(out, s);
        for (size_t i = w; i < widths[c] + 1; i++) hp_buf_putc(out, ' ');
        if (s != cells[c] && s != cut) hp_free((void *)s);
    }
    hp_buf_puts(out, "|\n");
}

/* Narrows the widest columns, one column at a time, until the table fits in max columns or no
 * column can give more (none below its header or HP_TABLE_COLUMN_MIN). */
static void fit(size_t *widths, const size_t *floors, unsigned ncols, unsigned max)
{
    size_t total = 1;
    for (unsigned c = 0; c < ncols; c++) total += widths[c] + 3;
    while (max && total > max) {
        unsigned widest = ncols;
        for (unsigned c = 0; c < ncols; c++)
            if (widths[c] > floors[c] && (widest == ncols || widths[c] > widths[widest])) widest = c;
        if (widest == ncols) return;
        widths[widest]--;
        total--;
    }
}

void hp_table_render(const struct hp_table *t, struct hp_buf *out)
{
    if (t->failed) out->failed = 1;   /* a row that could not be kept: the output is incomplete */
    size_t *widths = hp_alloc(2 * t->ncols * sizeof *widths), *floors = widths + t->ncols;
    if (!widths) { out->failed = 1; return; }
    for (unsigned c = 0; c < t->ncols; c++) {
        widths[c] = hp_utf8_width(t->headers[c]);
        floors[c] = widths[c] > HP_TABLE_COLUMN_MIN ? widths[c] : HP_TABLE_COLUMN_MIN;
    }
    for (unsigned r = 0; r < t->nrows; r++)
        for (unsigned c = 0; c < t->ncols; c++) {
            const char *s = t->cells[(size_t)r * t->ncols + c];
            size_t w = s ? hp_utf8_width(s) : 0;
            if (w > widths[c]) widths[c] = w;
        }
    fit(widths, floors, t->ncols, hp_table_width);
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

static int kept(unsigned row, const unsigned *keep, unsigned nkeep)
{
    for (unsigned k = 0; k < nkeep; k++)
        if (keep[k] == row) return 1;
    return 0;
}

unsigned hp_table_pick_rows(unsigned n, unsigned limit, const unsigned *keep, unsigned nkeep, unsigned *out)
{
    unsigned shown = limit && limit < n ? limit : n;
    for (unsigned i = 0; i < shown; i++) out[i] = i;
    for (unsigned k = 0; k < nkeep && shown < n; k++) {
        if (keep[k] < shown || keep[k] >= n || kept(keep[k], keep, k)) continue;
        unsigned j = shown;      /* the last row shown that no keep asks for */
        while (j > 0 && kept(out[j - 1], keep, nkeep)) j--;
        if (j == 0) break;
        for (unsigned i = j - 1; i + 1 < shown; i++) out[i] = out[i + 1];   /* stays sorted */
        out[shown - 1] = keep[k];
    }
    /* keep[k] may be below a row moved in before it: put them in order */
    for (unsigned i = 1; i < shown; i++)
        for (unsigned x = out[i], j = i; j > 0 && out[j - 1] > x; j--) { out[j] = out[j - 1]; out[j - 1] = x; }
    return shown;
}
