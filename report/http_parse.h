/* http_parse.h — the metrics server's request parser: pure (no I/O, no allocation), so it is unit
 * tested and fuzzed on its own. It reads one HTTP/1.x request head from what arrived so far. */
#ifndef HP_HTTP_PARSE_H
#define HP_HTTP_PARSE_H

#include <stddef.h>

#define HP_HTTP_HEAD_MAX 8192      /* a request head longer than this is answered 431 */
#define HP_HTTP_PATH_MAX 256
#define HP_HTTP_AUTH_MAX 1024      /* Basic base64(user:token) of a 255-byte token, with room for the user */

enum hp_http_method { HP_HTTP_GET, HP_HTTP_HEAD };

struct hp_http_request {
    enum hp_http_method method;
    char path[HP_HTTP_PATH_MAX];   /* the target's path, without query string */
    char auth[HP_HTTP_AUTH_MAX];   /* the Authorization header's value, trimmed */
    int has_auth;
    int keep_alive;                /* HTTP/1.1 without "Connection: close" */
};

/* 0 while the head is incomplete (read more), the head's length in bytes once it is whole, or
 * the HTTP status to answer with: -400 malformed, -405 a method other than GET/HEAD, -431 the
 * head exceeds HP_HTTP_HEAD_MAX, -505 not HTTP/1.x. */
int hp_http_parse(const char *buf, size_t len, struct hp_http_request *req);

/* Whether an Authorization value carries token: "<token>", "Bearer <token>", or "Basic
 * base64(<any user>:<token>)" (URL credentials: http://user:token@host/); the scheme's name in
 * any case. The comparison takes the same time wherever the first difference is. */
int hp_http_authorized(const char *value, const char *token);

#endif
