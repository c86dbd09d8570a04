/* json.c — see json.h. */
#include "json.h"

#include <string.h>

#include "format.h"
#include "utf8.h"

void hp_json_init(struct hp_json *j, struct hp_buf *out, int pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
}

/* A byte that stands for itself in a JSON string: printable ASCII but the quote and backslash. */
static int plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

void hp_json_quote(struct hp_buf *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t len = strlen(s);
    const unsigned char *p = (const unsigned char *)s;
    hp_buf_putc(out, '"');
    while (len > 0) {
        size_t run = 0;          /* plain bytes go out together: a report is mostly names */
        while (run < len && plain(p[run])) run++;
        if (run) {
            hp_buf_put(out, (const char *)p, run);
            p += run;
            len -= run;
            continue;
        }
        uint32_t cp;
        size_t n = hp_utf8_decode(p, len, &cp);
        if (cp == '"') hp_buf_puts(out, "\\\"");
        else if (cp == '\\') hp_buf_puts(out, "\\\\");
        else if (cp == '\n') hp_buf_puts(out, "\\n");
        else if (cp == '\t') hp_buf_puts(out, "\\t");
        else if (cp == '\r') hp_buf_puts(out, "\\r");
        else if (cp < 0x20 || cp == 0x7F) {
            char esc[7] = { '\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15], 0 };
            hp_buf_puts(out, esc);
        } else {
            char enc[4];
            hp_buf_put(out, enc, hp_utf8_encode(cp, enc));
        }
        p += n;
        len -= n;
    }
    hp_buf_putc(out, '"');
}

static void indent(struct hp_json *j)
{
    hp_buf_putc(j->out, '\n');
    for (int i = 0; i < j->depth; i++) hp_buf_puts(j->out, "  ");
}

/* Separator, indentation and key before a value. */
static void prefix(struct hp_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->has_items[j->depth]) hp_buf_putc(j->out, ',');
        j->has_items[j->depth] = 1;
        if (j->pretty) indent(j);
    }
    if (key) {
        hp_json_quote(j->out, key);
        hp_buf_puts(j->out, j->pretty ? ": " : ":");
    }
}

static void open_(struct hp_json *j, const char *key, char c)
{
    prefix(j, key);
    hp_buf_putc(j->out, c);
    if (j->depth + 1 < HP_JSON_DEPTH) j->depth++;
    j->has_items[j->depth] = 0;
}

static void close_(struct hp_json *j, char c)
{
    int had = j->has_items[j->depth];
    if (j->depth > 0) j->depth--;
    if (j->pretty && had) indent(j);
    hp_buf_putc(j->out, c);
    if (j->depth == 0 && j->pretty) hp_buf_putc(j->out, '\n');
}

void hp_json_object_begin(struct hp_json *j, const char *key) { open_(j, key, '{'); }
void hp_json_object_end(struct hp_json *j) { close_(j, '}'); }
void hp_json_array_begin(struct hp_json *j, const char *key) { open_(j, key, '['); }
void hp_json_array_end(struct hp_json *j) { close_(j, ']'); }

void hp_json_string(struct hp_json *j, const char *key, const char *value)
{
    prefix(j, key);
    hp_json_quote(j->out, value);
}

void hp_json_u64(struct hp_json *j, const char *key, uint64_t value)
{
    char num[HP_FMT_MAX];
    hp_fmt_uint(num, value);
    prefix(j, key);
    hp_buf_puts(j->out, num);
}

void hp_json_i64(struct hp_json *j, const char *key, int64_t value)
{
    char num[HP_FMT_MAX];
    hp_fmt_int(num, value);
    prefix(j, key);
    hp_buf_puts(j->out, num);
}

void hp_json_fixed(struct hp_json *j, const char *key, double value, int decimals)
{
    char num[HP_FMT_MAX];
    hp_fmt_fixed(num, value, decimals);
    prefix(j, key);
    hp_buf_puts(j->out, num);
}

void hp_json_bool(struct hp_json *j, const char *key, int value)
{
    prefix(j, key);
    hp_buf_puts(j->out, value ? "true" : "false");
}

void hp_json_null(struct hp_json *j, const char *key)
{
    prefix(j, key);
    hp_buf_puts(j->out, "null");
}
