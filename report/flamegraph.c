/* flamegraph.c — see flamegraph.h. The stacks are sorted frame by frame, so every frame's stacks
 * are neighbours; one pass then opens a frame where a stack departs from the one before and draws
 * it where its run of stacks ends (as flamegraph.pl does). The root (`all`) is at the bottom.
 * Numbers are printed as integers (hundredths of a pixel): vsnprintf gets no float formats. */
#include "flamegraph.h"

#include <stdint.h>
#include <string.h>

#include "core/hash.h"
#include "core/memory.h"
#include "core/sort.h"
#include "utf8.h"

#define WIDTH 1200          /* px */
#define PAD 10
#define FRAME_H 16
#define TITLE_H 30
#define MIN_WIDTH_CPX 10    /* frames under 0.1 px are left out (hundredths of a pixel) */
#define CHAR_CPX 720        /* a monospace character at 12 px is about 7.2 px wide */

struct stack {
    const char *s;
    size_t len;
    uint64_t count;
};

struct frame {
    const char *name;
    size_t len;
    uint64_t start;
};

struct graph {
    struct hp_buf *out;
    uint64_t total;
    unsigned height;        /* px */
};

/* ';' sorts before every other byte, so a stack comes right before the stacks that extend it */
static int frame_byte(const char *s, size_t len, size_t i)
{
    if (i >= len) return -1;
    return s[i] == ';' ? 0 : (unsigned char)s[i] + 1;
}

static int by_frames(const void *a, const void *b)
{
    const struct stack *x = a, *y = b;
    for (size_t i = 0;; i++) {
        int c = frame_byte(x->s, x->len, i), d = frame_byte(y->s, y->len, i);
        if (c != d) return c < d ? -1 : 1;
        if (c < 0) return 0;
    }
}

/* `frames count` with count a whole number; 0 for a line that is not one */
static int parse_line(const char *s, size_t len, struct stack *st)
{
    while (len && (s[len - 1] == '\r' || s[len - 1] == ' ')) len--;
    size_t sp = len;
    while (sp && s[sp - 1] >= '0' && s[sp - 1] <= '9') sp--;
    if (sp == len || sp < 2 || s[sp - 1] != ' ' || len - sp > 19) return 0;
    uint64_t n = 0;
    for (size_t i = sp; i < len; i++) n = n * 10 + (uint64_t)(s[i] - '0');
    size_t end = sp - 1;
    while (end && s[end - 1] == ' ') end--;
    if (!end || !n) return 0;
    *st = (struct stack){ s, end, n };
    return 1;
}

static size_t depth_of(const struct stack *st)
{
    size_t d = 1;
    for (size_t i = 0; i < st->len; i++) d += st->s[i] == ';';
    return d;
}

/* text made safe for XML: entities for markup characters, `?` for control characters, U+FFFD for
 * bytes that are not UTF-8; at most max code points, the last two `..` when cut */
static void put_text(struct hp_buf *b, const char *s, size_t len, size_t max)
{
    size_t cps = 0;
    for (size_t i = 0; i < len; cps++) {
        uint32_t cp;
        i += hp_utf8_decode((const unsigned char *)s + i, len - i, &cp);
    }
    size_t keep = cps > max ? max - 2 : cps;
    for (size_t i = 0, k = 0; i < len && k < keep; k++) {
        uint32_t cp;
        size_t n = hp_utf8_decode((const unsigned char *)s + i, len - i, &cp);
        i += n;
        if (cp == '&') hp_buf_puts(b, "&amp;");
        else if (cp == '<') hp_buf_puts(b, "&lt;");
        else if (cp == '>') hp_buf_puts(b, "&gt;");
        else if (cp == '"') hp_buf_puts(b, "&quot;");
        else if (cp == '\'') hp_buf_puts(b, "&apos;");
        else if (cp < 0x20 || cp == 0x7F) hp_buf_putc(b, '?');
        else {
            char enc[4];
            if (cp == 0xFFFE || cp == 0xFFFF) cp = 0xFFFD;
            hp_buf_put(b, enc, hp_utf8_encode(cp, enc));
        }
    }
    if (cps > max) hp_buf_puts(b, "..");
}

static void put_cpx(struct hp_buf *b, uint64_t cpx)
{
    hp_buf_printf(b, "%llu.%02llu", (unsigned long long)(cpx / 100), (unsigned long long)(cpx % 100));
}

/* one frame: depth 0 is the root; start and end in counts */
static void draw(struct graph *g, const char *name, size_t len, unsigned depth, uint64_t start, uint64_t end)
{
    const uint64_t span = (uint64_t)(WIDTH - 2 * PAD) * 100;
    uint64_t x = (uint64_t)((double)start / (double)g->total * (double)span);
    uint64_t w = (uint64_t)((double)(end - start) / (double)g->total * (double)span);
    if (w < MIN_WIDTH_CPX) return;
    uint64_t x_cpx = (uint64_t)PAD * 100 + x;
    unsigned y = g->height - PAD - (depth + 1) * FRAME_H;
    uint32_t h = hp_fnv1a(name, len, HP_FNV_BASIS);
    uint64_t permyriad = (uint64_t)((double)(end - start) * 10000.0 / (double)g->total + 0.5);
    struct hp_buf *b = g->out;
    hp_buf_puts(b, "<g><title>");
    put_text(b, name, len, SIZE_MAX);
    hp_buf_printf(b, " (%llu, %llu.%02llu%%)</title><rect x=\"", (unsigned long long)(end - start),
                  (unsigned long long)(permyriad / 100), (unsigned long long)(permyriad % 100));
    put_cpx(b, x_cpx);
    hp_buf_printf(b, "\" y=\"%u\" width=\"", y);
    put_cpx(b, w);
    hp_buf_printf(b, "\" height=\"%u\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>", FRAME_H - 1,
                  205 + h % 50, (h >> 8) % 230, (h >> 16) % 55);
    size_t chars = w > 600 ? (size_t)((w - 600) / CHAR_CPX) : 0;
    if (chars >= 3) {
        hp_buf_puts(b, "<text x=\"");
        put_cpx(b, x_cpx + 300);
        hp_buf_printf(b, "\" y=\"%u\">", y + FRAME_H - 4);
        put_text(b, name, len, chars);
        hp_buf_puts(b, "</text>");
    }
    hp_buf_puts(b, "</g>\n");
}

/* the flow over sorted stacks: frames open where a stack departs from the previous one and are
 * drawn where their run ends */
static int flow(struct graph *g, const struct stack *st, size_t n, size_t max_depth)
{
    struct frame *open = hp_alloc(sizeof *open * (max_depth + 1));
    if (!open) return -1;
    size_t nopen = 0;
    uint64_t x = 0;
    for (size_t i = 0; i <= n; i++) {
        size_t d = 0, at = 0;
        const char *s = i < n ? st[i].s : NULL;
        size_t len = i < n ? st[i].len : 0;
        /* the frames this stack shares with the open ones */
        while (i < n && d < nopen && at <= len) {
            const char *semi = memchr(s + at, ';', len - at);
            size_t flen = semi ? (size_t)(semi - s) - at : len - at;
            if (flen != open[d].len || memcmp(s + at, open[d].name, flen) != 0) break;
            d++;
            at = semi ? at + flen + 1 : len + 1;
        }
        while (nopen > d) {
            nopen--;
            draw(g, open[nopen].name, open[nopen].len, (unsigned)nopen + 1, open[nopen].start, x);
        }
        if (i == n) break;
        while (at <= len) {
            const char *semi = memchr(s + at, ';', len - at);
            size_t flen = semi ? (size_t)(semi - s) - at : len - at;
            open[nopen++] = (struct frame){ s + at, flen, x };
            at += flen + 1;
        }
        x += st[i].count;
    }
    hp_free(open);
    return 0;
}

static void begin(struct hp_buf *out, unsigned height, const char *title)
{
    hp_buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
                  "viewBox=\"0 0 %u %u\" font-family=\"monospace\" font-size=\"12\" "
                  "style=\"background-color:#f8f8f8\">\n", WIDTH, height, WIDTH, height);
    hp_buf_printf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" font-size=\"16\">", WIDTH / 2, PAD + 14);
    const char *t = title && *title ? title : "Flame graph";
    put_text(out, t, strlen(t), SIZE_MAX);
    hp_buf_puts(out, "</text>\n");
}

void hp_flamegraph_empty_svg(struct hp_buf *out, const char *title, const char *why)
{
    begin(out, TITLE_H + FRAME_H + 2 * PAD, title);
    hp_buf_printf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">", WIDTH / 2, TITLE_H + PAD + 12);
    put_text(out, why, strlen(why), SIZE_MAX);
    hp_buf_puts(out, "</text>\n</svg>\n");
}

int hp_flamegraph_svg(struct hp_buf *out, const char *folded, size_t len, const char *title)
{
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += folded[i] == '\n';
    struct stack *st = hp_alloc(sizeof *st * lines);
    if (!st) return -1;
    size_t n = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(folded + at, '\n', len - at);
        size_t l = nl ? (size_t)(nl - folded) - at : len - at;
        if (parse_line(folded + at, l, &st[n])) n++;
        at += l + 1;
    }
    hp_sort(st, n, sizeof *st, by_frames);
    size_t w = 0, max_depth = 0;
    struct graph g = { out, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        if (w && by_frames(&st[w - 1], &st[i]) == 0) st[w - 1].count += st[i].count;
        else st[w++] = st[i];
        g.total += st[i].count;
    }
    n = w;
    for (size_t i = 0; i < n; i++) {
        size_t d = depth_of(&st[i]);
        if (d > max_depth) max_depth = d;
    }
    int r = -1;
    if (n && g.total) {
        g.height = TITLE_H + (unsigned)(max_depth + 1) * FRAME_H + 2 * PAD;
        begin(out, g.height, title);
        if (flow(&g, st, n, max_depth) == 0) {
            draw(&g, "all", 3, 0, 0, g.total);
            hp_buf_puts(out, "</svg>\n");
            r = out->failed ? -1 : 0;
        }
    }
    hp_free(st);
    return r;
}
