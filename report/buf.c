/* buf.c — see buf.h. Integer and string formats only are passed to vsnprintf, which then
 * neither allocates nor takes a lock. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/memory.h"

static int grow(struct hp_buf *b, size_t need)
{
    if (b->failed) return -1;
    if (b->len + need + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + need + 1) cap *= 2;
    char *d = hp_realloc(b->data, cap);
    if (!d) { b->failed = 1; return -1; }
    b->data = d;
    b->cap = cap;
    return 0;
}

void hp_buf_put(struct hp_buf *b, const char *s, size_t n)
{
    if (grow(b, n) != 0) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void hp_buf_puts(struct hp_buf *b, const char *s)
{
    hp_buf_put(b, s, strlen(s));
}

void hp_buf_putc(struct hp_buf *b, char c)
{
    hp_buf_put(b, &c, 1);
}

void hp_buf_printf(struct hp_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) { hp_buf_put(b, small, (size_t)n); return; }
    if (grow(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void hp_buf_free(struct hp_buf *b)
{
    hp_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
