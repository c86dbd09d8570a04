/* folded.c — see folded.h. */
#include "folded.h"

#include <string.h>

#include "core/memory.h"
#include "core/sort.h"
#include "fn_names.h"

struct folded_line {
    size_t at, len;            /* in the text being built */
    const char *s;             /* the same, once the text is complete */
    uint64_t count;
};

static int by_text(const void *a, const void *b)
{
    const struct folded_line *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c) return c;
    return (x->len > y->len) - (x->len < y->len);
}

static void put_frame(struct hp_buf *b, const char *name)
{
    for (const char *p = name; *p; p++)
        hp_buf_putc(b, *p == ';' || *p == '\n' ? '_' : *p);
}

/* One entry's stack, outermost frame first, into text. */
static void put_stack(struct hp_buf *text, struct hp_fn_names *names, const struct hp_stack *st,
                      int skip_profiler)
{
    int first = 1;
    for (uint32_t k = st->depth; k-- > 0;) {
        int64_t f = hp_fn_names_of(names, st->frames[k]);
        if (skip_profiler && f >= 0 && hp_fn_is_profiler(&names->fns[f])) continue;
        if (!first) hp_buf_putc(text, ';');
        put_frame(text, f < 0 ? "[?]" : names->fns[f].name);
        first = 0;
    }
    if (first) hp_buf_puts(text, "[?]");
}

int hp_folded_build(struct hp_buf *out, struct hp_stacks *t, hp_folded_weight weight,
                    const void *arg, uint64_t other, int skip_profiler)
{
    uint32_t n = hp_stacks_count(t);
    struct hp_fn_names names;
    if (hp_fn_names_open(&names, hp_stacks_frames(t)) != 0) return -1;
    struct folded_line *lines = hp_alloc(sizeof *lines * (n + 1));
    struct hp_buf text = { 0 };
    uint32_t nlines = 0;
    int r = -1;
    if (lines) {
        for (uint32_t e = 0; e < n; e++) {
            const struct hp_stack *st = &t->entries[e];
            if (!atomic_load_explicit(&st->ready, memory_order_acquire) || !st->depth) continue;
            uint64_t c = weight(t, e, arg);
            if (!c) continue;
            size_t at = text.len;
            put_stack(&text, &names, st, skip_profiler);
            lines[nlines++] = (struct folded_line){ at, text.len - at, NULL, c };
        }
        if (other) {
            size_t at = text.len;
            hp_buf_puts(&text, "<other>");
            lines[nlines++] = (struct folded_line){ at, text.len - at, NULL, other };
        }
        if (!text.failed) {
            for (uint32_t i = 0; i < nlines; i++) lines[i].s = text.data + lines[i].at;
            hp_sort(lines, nlines, sizeof *lines, by_text);
            for (uint32_t i = 0; i < nlines; i++) {
                uint64_t c = lines[i].count;
                while (i + 1 < nlines && by_text(&lines[i], &lines[i + 1]) == 0) c += lines[++i].count;
                hp_buf_printf(out, "%.*s %llu\n", (int)lines[i].len, lines[i].s,
                              (unsigned long long)c);
            }
            r = out->failed ? -1 : 0;
        }
    }
    hp_buf_free(&text);
    hp_free(lines);
    hp_fn_names_close(&names);
    return r;
}
