/* utf8.c — see utf8.h. Widths follow the East Asian Wide/Fullwidth ranges and the common
 * combining blocks, which is what terminals implement. */
#include "utf8.h"

#include <stdio.h>
#include <string.h>

size_t hp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t need;
    uint32_t v, min;
    if (c < 0x80) { *cp = c; return 1; }
    if (c >= 0xC2 && c <= 0xDF) { need = 1; v = c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { need = 2; v = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; v = c & 0x07; min = 0x10000; }
    else { *cp = 0xFFFD; return 1; }
    if (len < need + 1) { *cp = 0xFFFD; return 1; }
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) { *cp = 0xFFFD; return 1; }
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) { *cp = 0xFFFD; return 1; }
    *cp = v;
    return need + 1;
}

size_t hp_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

struct range { uint32_t lo, hi; };

static const struct range zero_width[] = {
    { 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD }, { 0x0610, 0x061A },
    { 0x064B, 0x065F }, { 0x0E31, 0x0E31 }, { 0x0E34, 0x0E3A }, { 0x1AB0, 0x1AFF },
    { 0x1DC0, 0x1DFF }, { 0x200B, 0x200F }, { 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F },
    { 0xFE20, 0xFE2F },
};

static const struct range wide[] = {
    { 0x1100, 0x115F }, { 0x2E80, 0x303E }, { 0x3041, 0x33FF }, { 0x3400, 0x4DBF },
    { 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF }, { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF },
    { 0xFE30, 0xFE4F }, { 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x1F300, 0x1F64F },
    { 0x1F900, 0x1F9FF }, { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

static int in(const struct range *r, size_t n, uint32_t cp)
{
    for (size_t i = 0; i < n; i++)
        if (cp >= r[i].lo && cp <= r[i].hi) return 1;
    return 0;
}

int hp_codepoint_width(uint32_t cp)
{
    if (cp < zero_width[0].lo) return 1;   /* ASCII and Latin: nearly every character of a report */
    if (in(zero_width, sizeof zero_width / sizeof *zero_width, cp)) return 0;
    if (in(wide, sizeof wide / sizeof *wide, cp)) return 2;
    return 1;
}

size_t hp_utf8_width(const char *s)
{
    size_t len = strlen(s), w = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (len > 0) {
        uint32_t cp;
        size_t n = hp_utf8_decode(p, len, &cp);
        w += (size_t)hp_codepoint_width(cp);
        p += n;
        len -= n;
    }
    return w;
}

void hp_utf8_keep_end(const char *s, size_t width, char *out, size_t size)
{
    size_t len = strlen(s), w = hp_utf8_width(s);
    if (size == 0) return;
    if (w <= width || width == 0) {
        snprintf(out, size, "%s", width ? s : "");
        return;
    }
    /* drop code points from the start until the rest and the ellipsis fit */
    const unsigned char *p = (const unsigned char *)s;
    size_t left = len;
    while (left > 0 && w + 1 > width) {
        uint32_t cp;
        size_t n = hp_utf8_decode(p, left, &cp);
        w -= (size_t)hp_codepoint_width(cp);
        p += n;
        left -= n;
    }
    /* combining marks left at the start belong to the code point just dropped */
    while (left > 0) {
        uint32_t cp;
        size_t n = hp_utf8_decode(p, left, &cp);
        if (hp_codepoint_width(cp) != 0) break;
        p += n;
        left -= n;
    }
    snprintf(out, size, "\xE2\x80\xA6%s", (const char *)p);
}
