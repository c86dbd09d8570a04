/* buf.h — a growing text buffer in the profiler's own memory; every rendering writes into one. */
#ifndef HP_BUF_H
#define HP_BUF_H

#include <stddef.h>

struct hp_buf {
    char *data;
    size_t len, cap;
    int failed;          /* an allocation failed: the content is incomplete */
};

void hp_buf_put(struct hp_buf *b, const char *s, size_t n);
void hp_buf_puts(struct hp_buf *b, const char *s);
void hp_buf_putc(struct hp_buf *b, char c);
void hp_buf_printf(struct hp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hp_buf_free(struct hp_buf *b);

#endif
