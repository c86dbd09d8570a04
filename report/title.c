/* title.c — see title.h. */
#include "title.h"

#include <string.h>

/* raw is argv, each argument followed by its NUL (a prefix of it when truncated). */
static int is_argv(const char *raw, size_t n, int truncated, char *const *argv, int argc)
{
    size_t at = 0;
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]) + 1;
        if (at + len > n) return truncated && memcmp(raw + at, argv[i], n - at) == 0;
        if (memcmp(raw + at, argv[i], len) != 0) return 0;
        at += len;
    }
    return at == n;
}

int hp_title_of(const char *raw, size_t n, int truncated, char *const *argv, int argc, struct hp_buf *out)
{
    if (is_argv(raw, n, truncated, argv, argc)) {
        for (int i = 0; i < argc; i++) {
            if (i) hp_buf_putc(out, ' ');
            hp_buf_puts(out, argv[i]);
        }
        return 0;
    }
    while (n > 0 && raw[n - 1] == 0) n--;
    for (size_t i = 0; i < n; i++) {
        if (raw[i]) hp_buf_putc(out, raw[i]);
        else if (i > 0 && raw[i - 1]) hp_buf_putc(out, ' ');
    }
    return 1;
}
