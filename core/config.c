/* config.c — parsing of the HOTPATH_* environment (see config.h). Pure: the caller passes the
 * environment lookup and the warning sink, so the unit tests drive it directly. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

const char *const hp_section_keys[HP_SEC_COUNT] = {
    "threads", "mutexes", "rw_locks", "io", "functions_cpu", "functions_alloc",
};

/* Per-section row limit variables and their defaults; HOTPATH_LIMIT replaces every default. */
static const struct { const char *var; unsigned def; } limit_vars[HP_SEC_COUNT] = {
    { "HOTPATH_THREADS_LIMIT", 5 },   { "HOTPATH_MUTEXES_LIMIT", 10 },
    { "HOTPATH_RW_LOCKS_LIMIT", 10 }, { "HOTPATH_IO_LIMIT", 10 },
    { "HOTPATH_FUNCTIONS_LIMIT", 15 }, { "HOTPATH_FUNCTIONS_LIMIT", 15 },
};

struct hp_config hp_config;

static void warn_bad(hp_warn_fn warn, const char *var, const char *value, const char *expected,
                     const char *def)
{
    char line[512];
    snprintf(line, sizeof line, "hotpath: %s=\"%.200s\" is not %s; using %s", var, value,
             expected, def);
    warn(line);
}

/* A whole decimal number in [lo, hi], nothing else. */
static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
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

/* A sampling rate r from 0.0 to 1.0 (plain decimal: "0.05", "1", "0", ".5") as a period: every
 * round(1/r)-th event, 0 = none. */
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

static void parse_rate_var(hp_getenv_fn get, hp_warn_fn warn, const char *var, const char *def,
                           unsigned *period)
{
    const char *s = get(var);
    if (s && parse_rate(s, period) != 0)
        warn_bad(warn, var, s, "a rate from 0.0 (count only) to 1.0 (time every one)", def);
}

static void parse_number(hp_getenv_fn get, hp_warn_fn warn, const char *var, unsigned lo,
                         unsigned hi, const char *expected, unsigned *val)
{
    const char *s = get(var);
    if (!s) return;
    if (parse_uint(s, lo, hi, val) == 0) return;
    char def[32];
    snprintf(def, sizeof def, "%u", *val);
    warn_bad(warn, var, s, expected, def);
}

/* An output file's path (HP_OUTPUT_PATH_MAX bytes at out), "" = none. */
/* A setting's own copy; "" when the heap has none to give. */
static const char *keep(const char *s)
{
    const char *copy = hp_strdup(s);
    return copy ? copy : "";
}

/* unset: what the file stands for otherwise ("none", "stderr") */
static void parse_path(hp_getenv_fn get, hp_warn_fn warn, const char *var, const char **out, const char *unset)
{
    const char *s = get(var);
    if (!s || !*s) return;
    if (strlen(s) < HP_OUTPUT_PATH_MAX) *out = keep(s);
    else warn_bad(warn, var, s, "a path shorter than 4096 bytes", unset);
}

static void parse_format(hp_getenv_fn get, hp_warn_fn warn, enum hp_format *f)
{
    static const char *const names[] = { "table", "json", "json-pretty", "none" };
    const char *s = get("HOTPATH_OUTPUT_FORMAT");
    if (!s) return;
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) { *f = (enum hp_format)i; return; }
    if (strcmp(s, "text") == 0) { *f = HP_FORMAT_TABLE; return; }   /* what the tables are */
    warn_bad(warn, "HOTPATH_OUTPUT_FORMAT", s, "one of table, json, json-pretty, none", "table");
}

/* A section name as JSON writes it; "io-read" style text titles are accepted too. */
static int section_id(const char *name, size_t len)
{
    char key[32];
    if (len == 0 || len >= sizeof key) return -1;
    for (size_t i = 0; i < len; i++) key[i] = name[i] == '-' ? '_' : name[i];
    key[len] = 0;
    if (strcmp(key, "io_read") == 0 || strcmp(key, "io_write") == 0) return HP_SEC_IO;
    for (int i = 0; i < HP_SEC_COUNT; i++)
        if (strcmp(key, hp_section_keys[i]) == 0) return i;
    return -1;
}

/* "all", "threads,io", "all,-threads", "-threads" (all but threads). */
static int parse_sections(const char *s, uint32_t *out)
{
    const uint32_t all = (1u << HP_SEC_COUNT) - 1;
    uint32_t mask = 0;
    int first = 1;
    if (!*s) return -1;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        int minus = len > 0 && *s == '-';
        const char *name = s + minus;
        size_t nlen = len - (size_t)minus;
        if (!minus && nlen == 3 && strncmp(name, "all", 3) == 0) {
            mask = all;
        } else {
            int id = section_id(name, nlen);
            if (id < 0) return -1;
            if (minus) mask = (first ? all : mask) & ~(1u << id);
            else mask |= 1u << id;
        }
        first = 0;
        if (!end) break;
        s = end + 1;
        if (!*s) return -1;
    }
    *out = mask;
    return 0;
}

void hp_config_parse(struct hp_config *c, hp_getenv_fn get, hp_warn_fn warn)
{
    memset(c, 0, sizeof *c);
    c->output_path = c->auth_token = c->cpu_folded = c->cpu_flamegraph = "";
    c->alloc_folded = c->alloc_flamegraph = c->html_path = "";
    c->interval_ms = 250;
    c->format = HP_FORMAT_TABLE;
    c->sections = (1u << HP_SEC_COUNT) - 1;

    parse_number(get, warn, "HOTPATH_THREADS_INTERVAL_MS", 1, 3600000,
                 "a whole number of milliseconds from 1 to 3600000", &c->interval_ms);

    unsigned common = 0;
    int has_common = 0;
    const char *s = get("HOTPATH_LIMIT");
    if (s) {
        if (parse_uint(s, 0, 1000000, &common) == 0) has_common = 1;
        else warn_bad(warn, "HOTPATH_LIMIT", s, "a whole number of rows (0 = all)",
                      "each section's default");
    }
    for (int i = 0; i < HP_SEC_COUNT; i++) {
        if (i > 0 && strcmp(limit_vars[i].var, limit_vars[i - 1].var) == 0) {
            c->limits[i] = c->limits[i - 1];
            continue;
        }
        c->limits[i] = has_common ? common : limit_vars[i].def;
        parse_number(get, warn, limit_vars[i].var, 0, 1000000, "a whole number of rows (0 = all)",
                     &c->limits[i]);
    }

    parse_format(get, warn, &c->format);

    parse_path(get, warn, "HOTPATH_OUTPUT_PATH", &c->output_path, "stderr");

    s = get("HOTPATH_NO_CHILDREN");
    if (s && parse_bool(s, &c->no_children) != 0)
        warn_bad(warn, "HOTPATH_NO_CHILDREN", s, "true or false", "false");

    parse_number(get, warn, "HOTPATH_CHECKPOINT_S", 0, 86400,
                 "a whole number of seconds from 0 (off) to 86400", &c->checkpoint_s);
    c->exited_threads_limit = 1000;
    parse_number(get, warn, "HOTPATH_EXITED_THREADS_LIMIT", 1, 10000000,
                 "a whole number of threads from 1 to 10000000", &c->exited_threads_limit);

    /* Locks view: a common sampling rate, then each view's own. */
    char rate_def[32];
    snprintf(rate_def, sizeof rate_def, "%g", HP_LOCKS_DEFAULT_RATE);
    unsigned period = (unsigned)(1.0 / HP_LOCKS_DEFAULT_RATE + 0.5);
    parse_rate_var(get, warn, "HOTPATH_TIME_SAMPLING_RATE", rate_def, &period);
    c->mutex_time_period = c->rwlock_time_period = period;
    snprintf(rate_def, sizeof rate_def, "%g", period ? 1.0 / period : 0.0);
    parse_rate_var(get, warn, "HOTPATH_MUTEXES_TIME_SAMPLING_RATE", rate_def, &c->mutex_time_period);
    parse_rate_var(get, warn, "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", rate_def, &c->rwlock_time_period);
    s = get("HOTPATH_LOCKS_ITER");
    if (s && parse_bool(s, &c->locks_iter) != 0)
        warn_bad(warn, "HOTPATH_LOCKS_ITER", s, "true or false", "false");

    /* I/O view: every call timed unless a rate says otherwise (a bad common rate warned above) */
    c->io_time_period = 1;
    s = get("HOTPATH_TIME_SAMPLING_RATE");
    if (s && parse_rate(s, &period) == 0) c->io_time_period = period;
    snprintf(rate_def, sizeof rate_def, "%g", c->io_time_period ? 1.0 / c->io_time_period : 0.0);
    parse_rate_var(get, warn, "HOTPATH_IO_TIME_SAMPLING_RATE", rate_def, &c->io_time_period);
    s = get("HOTPATH_IO_ITER");
    if (s && parse_bool(s, &c->io_iter) != 0)
        warn_bad(warn, "HOTPATH_IO_ITER", s, "true or false", "false");

    /* Live views: the metrics server and the console. */
    c->metrics_port = 6770;
    c->tui_refresh_ms = 500;
    s = get("HOTPATH_METRICS_SERVER_OFF");
    if (s && parse_bool(s, &c->server_off) != 0)
        warn_bad(warn, "HOTPATH_METRICS_SERVER_OFF", s, "true or false", "false");
    s = get("HOTPATH_METRICS_PORT");
    if (s) {
        if (parse_uint(s, 1, 65535, &c->metrics_port) == 0) c->metrics_port_set = 1;
        else warn_bad(warn, "HOTPATH_METRICS_PORT", s, "a port number from 1 to 65535", "6770");
    }
    s = get("HOTPATH_METRICS_AUTH_TOKEN");
    if (s && *s) {
        int bad = strlen(s) >= HP_TOKEN_MAX;
        for (const char *p = s; *p && !bad; p++)
            bad = (unsigned char)*p <= 0x20 || *p == 0x7F;
        if (bad) {
            c->auth_bad = 1;
            warn(strlen(s) >= HP_TOKEN_MAX
                 ? "hotpath: HOTPATH_METRICS_AUTH_TOKEN is longer than 255 bytes; the metrics server is off"
                 : "hotpath: HOTPATH_METRICS_AUTH_TOKEN contains whitespace or control characters; the metrics server is off");
        } else if (strcmp(s, "auto") == 0) {
            c->auth_auto = 1;
        } else {
            c->auth_token = keep(s);
        }
    }
    parse_number(get, warn, "HOTPATH_TUI_REFRESH_INTERVAL_MS", 50, 3600000,
                 "a whole number of milliseconds from 50 to 3600000", &c->tui_refresh_ms);

    /* Call stacks: the CPU profile and allocation call sites. */
    c->cpu_hz = 99;
    c->stack_depth = 32;
    c->alloc_sample_bytes = 512 * 1024;
    parse_number(get, warn, "HOTPATH_CPU_HZ", 0, 1000,
                 "a whole number of samples per CPU second from 0 (off) to 1000", &c->cpu_hz);
    parse_number(get, warn, "HOTPATH_STACK_DEPTH", 1, 128,
                 "a whole number of frames from 1 to 128", &c->stack_depth);
    parse_number(get, warn, "HOTPATH_ALLOC_SAMPLE_BYTES", 0, 1073741824,
                 "a whole number of bytes from 0 (off) to 1073741824", &c->alloc_sample_bytes);
    s = get("HOTPATH_ALLOC_CUMULATIVE");
    if (s && parse_bool(s, &c->alloc_cumulative) != 0)
        warn_bad(warn, "HOTPATH_ALLOC_CUMULATIVE", s, "true or false", "false");
    parse_path(get, warn, "HOTPATH_CPU_FOLDED", &c->cpu_folded, "none");
    parse_path(get, warn, "HOTPATH_CPU_FLAMEGRAPH", &c->cpu_flamegraph, "none");
    parse_path(get, warn, "HOTPATH_ALLOC_FOLDED", &c->alloc_folded, "none");
    parse_path(get, warn, "HOTPATH_ALLOC_FLAMEGRAPH", &c->alloc_flamegraph, "none");

    c->history_mb = 16;
    parse_number(get, warn, "HOTPATH_HISTORY_MB", 0, 65536,
                 "a whole number of MiB from 0 (no time series) to 65536", &c->history_mb);
    parse_path(get, warn, "HOTPATH_HTML_PATH", &c->html_path, "none");

    s = get("HOTPATH_REPORT");
    if (s && parse_sections(s, &c->sections) != 0)
        warn_bad(warn, "HOTPATH_REPORT", s,
                 "a list of sections (all, threads, mutexes, rw_locks, io, functions_cpu, "
                 "functions_alloc; -name removes one)", "all");
}

/* Without %n, an image after an exec would write over the file of the one before it (same pid):
 * ".N" goes before the last component's extension instead (r-42.json, r-42.1.json). */
static int add_image(char *out, unsigned n, unsigned image, unsigned out_size)
{
    char *base = strrchr(out, '/'), *dot = strrchr(base ? base + 1 : out, '.');
    unsigned at = dot && dot != (base ? base + 1 : out) ? (unsigned)(dot - out) : n;
    char num[24];
    int len = snprintf(num, sizeof num, ".%u", image);
    if (n + (unsigned)len >= out_size) return -1;
    memmove(out + at + len, out + at, n - at + 1);
    memcpy(out + at, num, (size_t)len);
    return 0;
}

int hp_expand_path(const char *pattern, int pid, unsigned image, char *out, unsigned out_size)
{
    unsigned n = 0;
    int has_image = 0;
    if (out_size == 0) return -1;       /* not even room for the terminator */
    for (const char *p = pattern; *p; p++) {
        char num[24];
        const char *add = num;
        if (p[0] == '%' && p[1] == 'p') { snprintf(num, sizeof num, "%d", pid); p++; }
        else if (p[0] == '%' && p[1] == 'n') { snprintf(num, sizeof num, "%u", image); p++; has_image = 1; }
        else if (p[0] == '%' && p[1] == '%') { num[0] = '%'; num[1] = 0; p++; }
        else { num[0] = *p; num[1] = 0; }
        size_t len = strlen(add);
        if (n + len >= out_size) return -1;
        memcpy(out + n, add, len);
        n += (unsigned)len;
    }
    out[n] = 0;
    return image > 0 && !has_image && n > 0 ? add_image(out, n, image, out_size) : 0;
}
