/* utf8.h — text from the program (thread names, paths) made safe to print: invalid UTF-8 becomes
 * U+FFFD, and widths are counted in terminal display columns, not bytes. */
#ifndef HP_UTF8_H
#define HP_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decode one code point at s (len bytes left); returns bytes consumed (>= 1), and *cp,
 * which is 0xFFFD for a byte that does not begin a valid sequence. */
size_t hp_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);
/* Append the UTF-8 encoding of cp to out; returns bytes written (1–4). */
size_t hp_utf8_encode(uint32_t cp, char out[4]);
/* Display columns a code point takes: 0 (combining), 1, or 2 (wide). */
int hp_codepoint_width(uint32_t cp);
/* Display columns of a string (invalid bytes count as one U+FFFD each). */
size_t hp_utf8_width(const char *s);
/* s cut to at most width display columns keeping its end: "…" (U+2026) and the longest tail
 * that fits beside it (`…/__pycache__/typing.cpython-311.pyc`); s itself when it fits. Into
 * out, of size bytes (at least strlen(s) + 4 is always enough). */
void hp_utf8_keep_end(const char *s, size_t width, char *out, size_t size);

#endif
