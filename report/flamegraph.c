/* flamegraph.c — see flamegraph.h. The stacks are sorted frame by frame, so every frame's stacks
 * are neighbours; one pass then opens a frame where a stack departs from the one before and draws
 * it where its run of stacks ends (as flamegraph.pl does). The root (`all`) is at the bottom.
 * Numbers are printed as integers (hundredths of a pixel): vsnprintf gets no float formats. */
#include "flamegraph.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "core/memory.h"
#include "core/sort.h"
#include "format.h"
#include "utf8.h"

#define WIDTH 1200          /* px */
#define PAD 10
#define FRAME_H 16
#define TITLE_H 30
#define MIN_WIDTH_CPX 10    /* frames under 0.1 px are left out (hundredths of a pixel) */
#define CHAR_CPX 720
#define HP_STR_(x) #x
#define HP_STR(x) HP_STR_(x)        /* a monospace character at 12 px is about 7.2 px wide */

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
    enum hp_flame_unit unit;
};

/* The script of every flame graph (flamegraph.h): it finds its own <svg> (the script's parent),
 * so two graphs on one page keep apart. Frames are the <g> with a <title> and a <rect>; a frame's
 * name is its title up to the last " (". Zoom: the clicked frame and what is above it stretched
 * to the full width, its ancestors kept at full width, everything else hidden. Search: frames
 * whose name matches are filled magenta and marked data-match; the share shown is of the union
 * of their spans, so nested matches count once. The svg's hpZoom(g), hpReset(), hpSearch(text)
 * are the same as the clicks (and what tests call). No "]]>" in it: it is a CDATA section. */
static const char script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "(function () {\n"
    "  var me = document.currentScript, svg = me && me.ownerSVGElement;\n"
    "  if (!svg) { var all = document.getElementsByTagName('svg'); svg = all[all.length - 1]; }\n"
    "  var frames = [], root = null;\n"
    "  Array.prototype.forEach.call(svg.getElementsByTagName('g'), function (g) {\n"
    "    var t = g.getElementsByTagName('title')[0], r = g.getElementsByTagName('rect')[0];\n"
    "    if (!t || !r) return;\n"
    "    var title = t.textContent, cut = title.lastIndexOf(' (');\n"
    "    var f = { g: g, rect: r, name: cut < 0 ? title : title.slice(0, cut), x: +r.getAttribute('x'),\n"
    "              w: +r.getAttribute('width'), y: +r.getAttribute('y'), fill: r.getAttribute('fill') };\n"
    "    frames.push(f);\n"
    "    if (!root || f.y > root.y) root = f;\n"
    "  });\n"
    "  if (!root) return;\n"
    "  var left = root.x, full = root.w, eps = 0.05, H = " HP_STR(FRAME_H) ";\n"
    "  function control(cls) { return svg.getElementsByClassName(cls)[0]; }\n"
    "  var reset = control('fg-reset'), search = control('fg-search'), matched = control('fg-matched');\n"
    "  function label(f, x, w) {\n"
    "    var t = f.g.getElementsByTagName('text')[0], chars = Math.floor((w - 6) / 7.2);\n"
    "    if (chars < 3) { if (t) t.setAttribute('display', 'none'); return; }\n"
    "    if (!t) {\n"
    "      t = document.createElementNS(svg.namespaceURI, 'text');\n"
    "      t.setAttribute('y', f.y + H - 4);\n"
    "      f.g.appendChild(t);\n"
    "    }\n"
    "    var cps = Array.from(f.name);\n"
    "    t.textContent = cps.length > chars ? cps.slice(0, chars - 2).join('') + '..' : f.name;\n"
    "    t.setAttribute('x', (x + 3).toFixed(2));\n"
    "    t.removeAttribute('display');\n"
    "  }\n"
    "  function place(f, x, w) {\n"
    "    f.rect.setAttribute('x', x.toFixed(2));\n"
    "    f.rect.setAttribute('width', w.toFixed(2));\n"
    "    f.g.removeAttribute('display');\n"
    "    label(f, x, w);\n"
    "  }\n"
    "  function zoom(g) {\n"
    "    var z = frames.filter(function (f) { return f.g === g; })[0];\n"
    "    if (!z) return;\n"
    "    var scale = full / z.w;\n"
    "    frames.forEach(function (f) {\n"
    "      if (f.y > z.y && f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps) {\n"
    "        place(f, left, full);\n"
    "        f.g.setAttribute('opacity', '0.6');\n"
    "      } else if (f.y <= z.y && f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps) {\n"
    "        place(f, left + (f.x - z.x) * scale, Math.min(f.w * scale, full));\n"
    "        f.g.removeAttribute('opacity');\n"
    "      } else {\n"
    "        f.g.setAttribute('display', 'none');\n"
    "      }\n"
    "    });\n"
    "    svg.setAttribute('data-zoomed', z.name);\n"
    "    if (reset) reset.removeAttribute('display');\n"
    "  }\n"
    "  function unzoom() {\n"
    "    frames.forEach(function (f) { place(f, f.x, f.w); f.g.removeAttribute('opacity'); });\n"
    "    svg.removeAttribute('data-zoomed');\n"
    "    if (reset) reset.setAttribute('display', 'none');\n"
    "  }\n"
    "  function find(text) {\n"
    "    var re = null;\n"
    "    if (text) {\n"
    "      try { re = new RegExp(text); }\n"
    "      catch (e) { re = new RegExp(text.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')); }\n"
    "    }\n"
    "    var spans = [];\n"
    "    frames.forEach(function (f) {\n"
    "      var hit = re !== null && re.test(f.name);\n"
    "      f.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "      if (hit) { f.g.setAttribute('data-match', ''); spans.push([f.x, f.x + f.w]); }\n"
    "      else f.g.removeAttribute('data-match');\n"
    "    });\n"
    "    spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "    var covered = 0, end = -Infinity;\n"
    "    spans.forEach(function (s) {\n"
    "      if (s[0] > end) { covered += s[1] - s[0]; end = s[1]; }\n"
    "      else if (s[1] > end) { covered += s[1] - end; end = s[1]; }\n"
    "    });\n"
    "    var share = re ? 100 * covered / full : null;\n"
    "    if (matched) matched.textContent = re ? 'Matched: ' + (Math.floor(share * 10 + 0.5) / 10).toFixed(1) + '%' : '';\n"
    "    if (search) search.textContent = re ? 'Clear search' : 'Search';\n"
    "    if (re) svg.setAttribute('data-search', text); else svg.removeAttribute('data-search');\n"
    "    return share;\n"
    "  }\n"
    "  svg.hpZoom = zoom;\n"
    "  svg.hpReset = unzoom;\n"
    "  svg.hpSearch = find;\n"
    "  svg.addEventListener('click', function (e) {\n"
    "    var t = e.target;\n"
    "    if (reset && t === reset) unzoom();\n"
    "    else if (search && t === search) {\n"
    "      if (svg.hasAttribute('data-search')) find(null);\n"
    "      else { var q = window.prompt('Search frames (text or regular expression)', ''); if (q) find(q); }\n"
    "    } else {\n"
    "      while (t && t !== svg && t.tagName !== 'g') t = t.parentNode;\n"
    "      if (t && t !== svg) zoom(t);\n"
    "    }\n"
    "  });\n"
    "})();\n"
    "]]></script>\n";

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
    struct hp_buf *b = g->out;
    char amount[HP_FMT_MAX], share[HP_FMT_MAX];
    if (g->unit == HP_FLAME_BYTES) hp_fmt_bytes(amount, (int64_t)(end - start));
    else snprintf(amount, sizeof amount, "%llu sample%s", (unsigned long long)(end - start), end - start == 1 ? "" : "s");
    hp_fmt_percent(share, hp_share_percent(end - start, g->total));
    hp_buf_puts(b, "<g><title>");
    put_text(b, name, len, SIZE_MAX);
    hp_buf_printf(b, " (%s, %s)</title><rect x=\"", amount, share);
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
    hp_buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flamegraph\" width=\"%u\" height=\"%u\" "
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

/* The controls the script works: hidden "Reset zoom" at the left, "Search" and its share at the right. */
static void controls(struct hp_buf *out)
{
    hp_buf_printf(out, "<text class=\"fg-reset\" x=\"%u\" y=\"%u\" display=\"none\" cursor=\"pointer\">Reset zoom</text>\n"
                  "<text class=\"fg-search\" x=\"%u\" y=\"%u\" text-anchor=\"end\" cursor=\"pointer\">Search</text>\n"
                  "<text class=\"fg-matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n",
                  PAD, PAD + 14, WIDTH - PAD, PAD + 14, WIDTH - PAD - 100, PAD + 14);
}

int hp_flamegraph_svg(struct hp_buf *out, const char *folded, size_t len, const char *title,
                      enum hp_flame_unit unit)
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
    struct graph g = { out, 0, 0, unit };
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
            controls(out);
            hp_buf_puts(out, script);
            hp_buf_puts(out, "</svg>\n");
            r = out->failed ? -1 : 0;
        }
    }
    hp_free(st);
    return r;
}
