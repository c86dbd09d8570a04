/* json.h — a streaming JSON writer: compact or indented, strings always valid UTF-8 (bytes that
 * are not become U+FFFD), numbers raw. Keys are passed with each value; NULL inside arrays. */
#ifndef HP_JSON_H
#define HP_JSON_H

#include <stdint.h>

#include "buf.h"

#define HP_JSON_DEPTH 32

struct hp_json {
    struct hp_buf *out;
    int pretty;
    int depth;
    unsigned char has_items[HP_JSON_DEPTH];
};

void hp_json_init(struct hp_json *j, struct hp_buf *out, int pretty);
void hp_json_object_begin(struct hp_json *j, const char *key);
void hp_json_object_end(struct hp_json *j);
void hp_json_array_begin(struct hp_json *j, const char *key);
void hp_json_array_end(struct hp_json *j);
void hp_json_string(struct hp_json *j, const char *key, const char *value);
void hp_json_u64(struct hp_json *j, const char *key, uint64_t value);
void hp_json_i64(struct hp_json *j, const char *key, int64_t value);
void hp_json_fixed(struct hp_json *j, const char *key, double value, int decimals);
void hp_json_bool(struct hp_json *j, const char *key, int value);
void hp_json_null(struct hp_json *j, const char *key);
/* Write a JSON string literal (quoted, escaped) to a buffer. */
void hp_json_quote(struct hp_buf *out, const char *s);

#endif
