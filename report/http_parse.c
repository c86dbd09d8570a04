/* http_parse.c — see http_parse.h. */
#include "http_parse.h"

#include <string.h>

static int is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int name_is(const char *p, size_t n, const char *name)
{
    if (strlen(name) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)p[i]) != name[i]) return 0;
    return 1;
}

/* The end of the head: the index just past the blank line, 0 if none yet. Lines end in CRLF or a
 * bare LF (RFC 9112 allows a recipient to accept LF). */
static size_t head_end(const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (b[i] != '\n') continue;
        if (i + 1 < len && b[i + 1] == '\n') return i + 2;
        if (i + 2 < len && b[i + 1] == '\r' && b[i + 2] == '\n') return i + 3;
    }
    return 0;
}

/* One line [p, end) without its line ending. */
static size_t line_len(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    return n;
}

static int parse_request_line(const char *p, size_t n, struct hp_http_request *req)
{
    if (n && p[n - 1] == '\r') n--;
    size_t m = 0;
    while (m < n && is_tchar((unsigned char)p[m])) m++;
    if (m == 0 || m == n || p[m] != ' ') return -400;
    size_t t = m + 1, te = t;
    while (te < n && p[te] != ' ') {
        unsigned char c = (unsigned char)p[te];
        if (c <= 0x20 || c >= 0x7F) return -400;
        te++;
    }
    if (te == t || te == n || p[t] != '/') return -400;
    const char *v = p + te + 1;
    size_t vn = n - te - 1;
    if (vn != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0' || v[5] > '9' ||
        v[7] < '0' || v[7] > '9')
        return -400;
    if (v[5] != '1') return -505;
    if (m == 3 && memcmp(p, "GET", 3) == 0) req->method = HP_HTTP_GET;
    else if (m == 4 && memcmp(p, "HEAD", 4) == 0) req->method = HP_HTTP_HEAD;
    else return -405;
    size_t path = t;
    while (path < te && p[path] != '?' && p[path] != '#') path++;
    if (path - t >= sizeof req->path) return -400;   /* no endpoint is that long: 404 would do, 400 is plainer */
    memcpy(req->path, p + t, path - t);
    req->path[path - t] = 0;
    req->keep_alive = v[7] >= '1';
    return 0;
}

static int parse_header(const char *p, size_t n, struct hp_http_request *req)
{
    if (n && p[n - 1] == '\r') n--;
    size_t c = 0;
    while (c < n && is_tchar((unsigned char)p[c])) c++;
    if (c == 0 || c == n || p[c] != ':') return -400;   /* also obs-fold lines, which start with space */
    for (size_t i = c + 1; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7F) return -400;
    }
    size_t vs = c + 1, ve = n;
    while (vs < ve && (p[vs] == ' ' || p[vs] == '\t')) vs++;
    while (ve > vs && (p[ve - 1] == ' ' || p[ve - 1] == '\t')) ve--;
    if (name_is(p, c, "authorization")) {
        if (req->has_auth || ve - vs >= sizeof req->auth) return -400;
        memcpy(req->auth, p + vs, ve - vs);
        req->auth[ve - vs] = 0;
        req->has_auth = 1;
    } else if (name_is(p, c, "connection")) {
        for (size_t i = vs; i + 5 <= ve; i++)
            if (name_is(p + i, 5, "close")) req->keep_alive = 0;
    }
    return 0;
}

int hp_http_parse(const char *buf, size_t len, struct hp_http_request *req)
{
    memset(req, 0, sizeof *req);
    size_t scan = len > HP_HTTP_HEAD_MAX ? HP_HTTP_HEAD_MAX : len;
    size_t end = head_end(buf, scan);
    if (!end) {
        if (len >= HP_HTTP_HEAD_MAX) return -431;
        /* a request line that is already wrong need not wait for the rest */
        const char *nl = memchr(buf, '\n', len);
        if (nl) {
            int r = parse_request_line(buf, (size_t)(nl - buf), req);
            if (r < 0) return r;
        }
        return 0;
    }
    const char *p = buf, *stop = buf + end;
    size_t n = line_len(p, stop);
    int r = parse_request_line(p, n, req);
    if (r < 0) return r;
    p += n + 1;
    for (;;) {
        n = line_len(p, stop);
        if (n == 0 || (n == 1 && p[0] == '\r')) break;   /* the blank line */
        if ((r = parse_header(p, n, req)) < 0) return r;
        p += n + 1;
    }
    if (memchr(buf, 0, end)) return -400;
    return (int)end;
}

/* The scheme word of an Authorization value (case-insensitive, RFC 9110) and the blank after it:
 * the length to skip, 0 if value does not start with it. */
static size_t scheme(const char *value, const char *name)
{
    size_t n = strlen(name), i = n;
    if (!name_is(value, n, name) || value[n] != ' ') return 0;
    while (value[i] == ' ') i++;
    return i;
}

static int b64_digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Standard base64 (padding optional) into out; the length, or -1 if it is not base64 or does not
 * fit. */
static long b64_decode(const char *s, unsigned char *out, size_t cap)
{
    size_t n = strlen(s), len = 0;
    while (n && s[n - 1] == '=') n--;
    if (strlen(s) - n > 2 || n % 4 == 1) return -1;
    unsigned acc = 0, bits = 0;
    for (size_t i = 0; i < n; i++) {
        int d = b64_digit((unsigned char)s[i]);
        if (d < 0) return -1;
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (len >= cap) return -1;
            out[len++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return (long)len;
}

int hp_http_authorized(const char *value, const char *token)
{
    const char *given = value;
    size_t gn;
    unsigned char basic[HP_HTTP_AUTH_MAX];
    size_t skip;
    if ((skip = scheme(value, "bearer"))) {
        given = value + skip;
        gn = strlen(given);
    } else if ((skip = scheme(value, "basic"))) {
        /* user:password, any user: the password is the token */
        long n = b64_decode(value + skip, basic, sizeof basic);
        const unsigned char *colon = n > 0 ? memchr(basic, ':', (size_t)n) : NULL;
        if (!colon) return 0;
        given = (const char *)colon + 1;
        gn = (size_t)(basic + n - (colon + 1));
    } else {
        gn = strlen(given);
    }
    size_t tn = strlen(token);
    /* every byte of the token is compared, whatever the value's length */
    volatile unsigned char diff = (unsigned char)(gn != tn);
    for (size_t i = 0; i < tn; i++) {
        unsigned char v = i < gn ? (unsigned char)given[i] : 0;
        diff |= (unsigned char)(v ^ (unsigned char)token[i]);
    }
    return tn > 0 && diff == 0;
}
