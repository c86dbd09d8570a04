/* settings.h — a HOTPATH_* setting is a row of a table: its name, its kind, where its value goes
 * (an offset into the struct the table fills), its default, what a good value looks like and a
 * one-line doc. The core's table is in core/config.c, each view's in its folder (its descriptor
 * points to it, core/view.h), the report's in report/report_settings.c; start-up parses them all
 * in one pass, and tests/check_man_settings.py checks the man page against them (through
 * tests/tools/settings_dump.c). A value that does not parse gets one line naming the variable,
 * the value, what was expected and the default used:
 *   hotpath: HOTPATH_CPU_HZ="lots" is not a whole number of ... from 0 (off) to 1000; using 99 */
#ifndef HP_SETTINGS_H
#define HP_SETTINGS_H

#include <stddef.h>

typedef const char *(*hp_getenv_fn)(const char *name);
typedef void (*hp_warn_fn)(const char *line);

enum hp_setting_kind {
    HP_SETTING_UINT,     /* unsigned, a whole decimal number in [lo, hi] */
    HP_SETTING_BOOL,     /* int, true/false, 1/0, yes/no, on/off */
    HP_SETTING_RATE,     /* unsigned, a rate r from 0.0 to 1.0 kept as a period: round(1/r), 0 = none */
    HP_SETTING_PATH,     /* const char *, "" = unset; a copy on the profiler's heap */
    HP_SETTING_FILE,     /* a PATH the report writes a file of its own to (held open across a
                          * change of credentials: report/out_file.c) */
    HP_SETTING_CUSTOM,   /* parse() takes the text */
};

struct hp_setting {
    const char *name;
    enum hp_setting_kind kind;
    size_t offset;          /* of the value in the struct the table fills */
    unsigned def;           /* UINT, BOOL: the default; RATE: the default period */
    unsigned lo, hi;        /* UINT: the range */
    /* A setting whose value, when it is set and good, is this one's default (HOTPATH_LIMIT for
     * each table's row limit, HOTPATH_TIME_SAMPLING_RATE for each view's rate); NULL if none. */
    const char *fallback;
    const char *expected;   /* what a good value is: "a whole number of rows (0 = all)" */
    /* What the warning says is used instead; NULL: the default as the kind writes it (a number,
     * "false", the rate, "none"). */
    const char *def_text;
    const char *doc;        /* one line, for the man page and `settings_dump` */
    /* CUSTOM: set the value (at offset; 0 gives it the whole struct) from s; 0, or -1 for the
     * usual warning (it may warn itself and return 0). Called with s NULL first: the default. */
    int (*parse)(const char *s, void *value, hp_warn_fn warn);
};

/* The offset of a row parsed for its warning only: its value is another row's fallback. */
#define HP_SETTING_NO_VALUE ((size_t)-1)

/* A table and the struct it fills. */
struct hp_settings_table {
    const struct hp_setting *rows;
    unsigned n;
    void *base;
};

/* One parse of every table: a name met again (HOTPATH_FUNCTIONS_LIMIT, in two views) takes the
 * value its first table got, and warns once. */
#define HP_SETTINGS_PASS_MAX 64
struct hp_settings_pass {
    hp_getenv_fn get;
    hp_warn_fn warn;
    struct { const struct hp_setting *row; const void *value; } seen[HP_SETTINGS_PASS_MAX];
    unsigned nseen;
};

void hp_settings_parse(struct hp_settings_pass *p, const struct hp_settings_table *t);

/* A whole decimal number in [lo, hi], nothing else: 0, or -1. */
int hp_setting_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);
/* The one warning line of a bad value. */
void hp_settings_warn_bad(hp_warn_fn warn, const char *var, const char *value, const char *expected,
                          const char *def);

#endif
