/* fuzz_http_parse.c — libFuzzer target for the metrics server's request parser (`make fuzz`):
 * any bytes, any length; the parser must never read outside them, and its answer must be
 * consistent (a whole head's length is within the input; a path starts with '/'). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/http_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so ASan catches a read one byte past the end */
    char *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    struct hp_http_request req;
    int r = hp_http_parse(buf, size, &req);
    if (r > 0) {
        if ((size_t)r > size || (size_t)r > HP_HTTP_HEAD_MAX) abort();
        if (req.path[0] != '/' || strlen(req.path) >= sizeof req.path) abort();
        if (req.has_auth) (void)hp_http_authorized(req.auth, "token");
    } else if (r != 0 && r != -400 && r != -405 && r != -431 && r != -505) {
        abort();
    }
    free(buf);
    return 0;
}
