/* settings.c — one pass over the settings tables (see settings.h). Pure: the pass carries the
 * environment lookup and the warning sink, so the unit tests drive it directly. */
#include "settings.h"

#include <stdio.h>
#include <string.h>

#include "memory.h"

void hp_settings_warn_bad(hp_warn_fn warn, const char *var, const char *value, const char *expected,
                          const char *def)
{
    char line[512];
    snprintf(line, sizeof line, "hotpath: %s=\"%.200s\" is not %s; using %s", var, value,
             expected, def);
    warn(line);
}

int hp_setting_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    if (!*s) return -1;
    unsigned long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (unsigned)(*p - '0');
        if (v > hi) return -1;
    }
    if (v < lo) return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = { "true", "1", "yes", "on" }, *const no[] = { "false", "0", "no", "off" };
    for (unsigned i = 0; i < 4; i++) {
        if (strcmp(s, yes[i]) == 0) { *out = 1; return 0; }
        if (strcmp(s, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

/* A sampling rate r from 0.0 to 1.0 (plain decimal: "0.05", "1", "0", ".5", or 1e-4) as a
 * period: every round(1/r)-th event, 0 = none. */
static int parse_rate(const char *s, unsigned *period)
{
    double v = 0, scale = 1;
    int digits = 0, dot = 0;
    const char *p = s;
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.' && !dot) { dot = 1; continue; }
        if (*p < '0' || *p > '9' || digits > 18) return -1;
        digits++;
        if (dot) { scale /= 10; v += (*p - '0') * scale; }
        else v = v * 10 + (*p - '0');
    }
    if (*p) {   /* an exponent: 1e-4, 5E-3 */
        int neg = *++p == '-', exp = 0, edigits = 0;
        if (*p == '-' || *p == '+') p++;
        for (; *p >= '0' && *p <= '9' && edigits < 3; p++, edigits++) exp = exp * 10 + (*p - '0');
        if (!edigits || *p) return -1;
        for (; exp > 0; exp--) v = neg ? v / 10 : v * 10;
    }
    if (!digits || v > 1.0) return -1;
    if (v == 0) { *period = 0; return 0; }
    double n = 1.0 / v + 0.5;
    *period = n >= 4294967295.0 ? 4294967295u : (unsigned)n;
    return 0;
}

/* The text s as a value of the row's kind into value (an unsigned or an int); 0, or -1. */
static int parse_number(const struct hp_setting *r, const char *s, void *value)
{
    switch (r->kind) {
    case HP_SETTING_UINT: return hp_setting_parse_uint(s, r->lo, r->hi, value);
    case HP_SETTING_BOOL: return parse_bool(s, value);
    case HP_SETTING_RATE: return parse_rate(s, value);
    default: return -1;
    }
}

/* What a warning says is used instead: the row's def_text, else the value v as its kind writes
 * it (a number, true or false, a rate; "none" for a path). */
static void used_text(const struct hp_setting *r, unsigned v, char *out, size_t size)
{
    if (r->def_text) snprintf(out, size, "%s", r->def_text);
    else if (r->kind == HP_SETTING_UINT) snprintf(out, size, "%u", v);
    else if (r->kind == HP_SETTING_BOOL) snprintf(out, size, "%s", v ? "true" : "false");
    else if (r->kind == HP_SETTING_RATE) snprintf(out, size, "%g", v ? 1.0 / v : 0.0);
    else snprintf(out, size, "none");
}

/* The value the row took earlier in this pass, under the same name; NULL if none. */
static const void *seen_value(const struct hp_settings_pass *p, const struct hp_setting *r)
{
    for (unsigned i = 0; i < p->nseen; i++)
        if (strcmp(p->seen[i].row->name, r->name) == 0 && p->seen[i].row->kind == r->kind)
            return p->seen[i].value;
    return NULL;
}

static void parse_row(struct hp_settings_pass *p, const struct hp_setting *r, void *value)
{
    char def[64];
    const char *s = p->get(r->name);
    if (r->kind == HP_SETTING_CUSTOM) {
        r->parse(NULL, value, p->warn);
        if (s && r->parse(s, value, p->warn) != 0) {
            used_text(r, r->def, def, sizeof def);
            hp_settings_warn_bad(p->warn, r->name, s, r->expected, def);
        }
        return;
    }
    if (r->kind == HP_SETTING_PATH || r->kind == HP_SETTING_FILE) {
        const char **out = value;
        *out = "";
        if (!s || !*s) return;
        if (strlen(s) < 4096) {
            const char *copy = hp_strdup(s);   /* never the environment's: a program may rewrite it */
            *out = copy ? copy : "";
        } else {
            used_text(r, r->def, def, sizeof def);
            hp_settings_warn_bad(p->warn, r->name, s, "a path shorter than 4096 bytes", def);
        }
        return;
    }
    unsigned v = r->def;        /* an int for BOOL: the same size, and 0 or 1 */
    const char *fb = r->fallback ? p->get(r->fallback) : NULL;
    unsigned from_fallback;
    if (fb && parse_number(r, fb, &from_fallback) == 0) v = from_fallback;
    if (s && parse_number(r, s, value) == 0) return;
    memcpy(value, &v, sizeof v);
    if (!s) return;
    used_text(r, v, def, sizeof def);
    hp_settings_warn_bad(p->warn, r->name, s, r->expected, def);
}

void hp_settings_parse(struct hp_settings_pass *p, const struct hp_settings_table *t)
{
    for (unsigned i = 0; i < t->n; i++) {
        const struct hp_setting *r = &t->rows[i];
        union { unsigned number; const char *text; } scratch;   /* a row parsed for its warning */
        void *value = r->offset == HP_SETTING_NO_VALUE ? (void *)&scratch : (char *)t->base + r->offset;
        const void *before = seen_value(p, r);
        if (before && r->offset != HP_SETTING_NO_VALUE) {
            size_t size = r->kind == HP_SETTING_PATH || r->kind == HP_SETTING_FILE ? sizeof(const char *)
                                                                               : sizeof(unsigned);
            memcpy(value, before, size);
            continue;
        }
        if (before) continue;
        parse_row(p, r, value);
        if (p->nseen < HP_SETTINGS_PASS_MAX && r->offset != HP_SETTING_NO_VALUE) {
            p->seen[p->nseen].row = r;
            p->seen[p->nseen++].value = value;
        }
    }
}
