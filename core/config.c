/* config.c — the core's settings table (see config.h and settings.h). */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "memory.h"

struct hp_config hp_config;

static int parse_format(const char *s, void *value, hp_warn_fn warn)
{
    static const char *const names[] = { "table", "json", "json-pretty", "none" };
    enum hp_format *f = value;
    (void)warn;
    if (!s) { *f = HP_FORMAT_TABLE; return 0; }
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) { *f = (enum hp_format)i; return 0; }
    if (strcmp(s, "text") == 0) { *f = HP_FORMAT_TABLE; return 0; }   /* what the tables are */
    return -1;
}

/* The port, and whether it was set (a busy port is then said). */
static int parse_port(const char *s, void *value, hp_warn_fn warn)
{
    struct hp_config *c = value;
    (void)warn;
    c->metrics_port = 6770;
    c->metrics_port_set = 0;
    if (!s) return 0;
    if (hp_setting_parse_uint(s, 1, 65535, &c->metrics_port) != 0) return -1;
    c->metrics_port_set = 1;
    return 0;
}

/* The text tables' width, and whether it was set (else the report finds it: the terminal's). */
static int parse_table_width(const char *s, void *value, hp_warn_fn warn)
{
    struct hp_config *c = value;
    (void)warn;
    c->table_width = 160;
    c->table_width_set = 0;
    if (!s) return 0;
    if (strcmp(s, "0") != 0 && hp_setting_parse_uint(s, 40, 100000, &c->table_width) != 0) return -1;
    if (strcmp(s, "0") == 0) c->table_width = 0;
    c->table_width_set = 1;
    return 0;
}

/* `auto` (the default: the user's token file), `none`, a token, or one that turns the server off
 * (with a line of its own). */
static int parse_token(const char *s, void *value, hp_warn_fn warn)
{
    struct hp_config *c = value;
    c->auth_token = "";
    c->auth_bad = 0;
    c->auth_auto = 1;
    if (!s || !*s || strcmp(s, "auto") == 0) return 0;
    c->auth_auto = 0;
    if (strcmp(s, "none") == 0) return 0;
    int bad = strlen(s) >= HP_TOKEN_MAX;
    for (const char *p = s; *p && !bad; p++)
        bad = (unsigned char)*p <= 0x20 || *p == 0x7F;
    if (bad) {
        c->auth_bad = 1;
        warn(strlen(s) >= HP_TOKEN_MAX
             ? "hotpath: HOTPATH_METRICS_AUTH_TOKEN is longer than 255 bytes; the metrics server is off"
             : "hotpath: HOTPATH_METRICS_AUTH_TOKEN contains whitespace or control characters; the metrics server is off");
    } else {
        const char *copy = hp_strdup(s);
        c->auth_token = copy ? copy : "";
    }
    return 0;
}

#define AT(field) offsetof(struct hp_config, field)
#define RATE_DOC "a rate from 0.0 (count only) to 1.0 (time every one)"

static const struct hp_setting rows[] = {
    { "HOTPATH_THREADS_INTERVAL_MS", HP_SETTING_UINT, AT(interval_ms), 250, 1, 3600000, NULL,
      "a whole number of milliseconds from 1 to 3600000", NULL,
      "thread sampling interval in milliseconds", NULL },
    { "HOTPATH_LIMIT", HP_SETTING_UINT, HP_SETTING_NO_VALUE, 0, 0, 1000000, NULL,
      "a whole number of rows (0 = all)", "each section's default",
      "row limit of every text table, replacing each table's own default", NULL },
    { "HOTPATH_OUTPUT_FORMAT", HP_SETTING_CUSTOM, AT(format), 0, 0, 0, NULL,
      "one of table, json, json-pretty, none", "table",
      "the report's format: table, json, json-pretty or none", parse_format },
    { "HOTPATH_OUTPUT_PATH", HP_SETTING_PATH, AT(output_path), 0, 0, 0, NULL, NULL, "stderr",
      "the report's file (%p = pid, %n = process image number); unset: stderr", NULL },
    { "HOTPATH_NO_CHILDREN", HP_SETTING_BOOL, AT(no_children), 0, 0, 0, NULL, "true or false", NULL,
      "programs the process starts run without the profiler", NULL },
    { "HOTPATH_CHECKPOINT_S", HP_SETTING_UINT, AT(checkpoint_s), 0, 0, 86400, NULL,
      "a whole number of seconds from 0 (off) to 86400", NULL,
      "rewrite the report file every N seconds (0 = off)", NULL },
    { "HOTPATH_EXITED_THREADS_LIMIT", HP_SETTING_UINT, AT(exited_threads_limit), 1000, 1, 10000000,
      NULL, "a whole number of threads from 1 to 10000000", NULL,
      "exited threads kept as rows of their own; older ones fold into one row per name", NULL },
    /* each view's rate (locks, I/O) falls back to it; the warning names the locks' default */
    { "HOTPATH_TIME_SAMPLING_RATE", HP_SETTING_RATE, HP_SETTING_NO_VALUE, 20, 0, 0, NULL, RATE_DOC,
      "0.05", "default time sampling rate of the locks and I/O views", NULL },
    { "HOTPATH_TABLE_WIDTH", HP_SETTING_CUSTOM, 0, 0, 0, 0, NULL,
      "a whole number of columns from 40 to 100000, or 0 (no limit)", "the terminal's width, or 160",
      "width the text tables fit in, long names cut keeping their end (0 = no limit)", parse_table_width },
    { "HOTPATH_METRICS_SERVER_OFF", HP_SETTING_BOOL, AT(server_off), 0, 0, 0, NULL, "true or false",
      NULL, "no live metrics server", NULL },
    { "HOTPATH_METRICS_PORT", HP_SETTING_CUSTOM, 0, 0, 0, 0, NULL, "a port number from 1 to 65535",
      "6770", "port of the live metrics server on 127.0.0.1", parse_port },
    { "HOTPATH_METRICS_AUTH_TOKEN", HP_SETTING_CUSTOM, 0, 0, 0, 0, NULL, NULL, "auto",
      "the token every request to the metrics server carries: auto (the user's token file), none, or the token itself", parse_token },
    { "HOTPATH_METRICS_START_MS", HP_SETTING_UINT, AT(metrics_start_ms), 1000, 0, 3600000, NULL,
      "a whole number of milliseconds from 0 (the sampler's first pass) to 3600000", NULL,
      "the metrics server starts once the process has lived this long (0 = at the sampler's first pass)", NULL },
    { "HOTPATH_TUI_REFRESH_INTERVAL_MS", HP_SETTING_UINT, AT(tui_refresh_ms), 500, 50, 3600000, NULL,
      "a whole number of milliseconds from 50 to 3600000", NULL,
      "refresh interval of hotpath-console", NULL },
    { "HOTPATH_STACK_DEPTH", HP_SETTING_UINT, AT(stack_depth), 32, 1, 128, NULL,
      "a whole number of frames from 1 to 128", NULL, "frames kept per stack sample", NULL },
    { "HOTPATH_HISTORY_MB", HP_SETTING_UINT, AT(history_mb), 16, 0, 65536, NULL,
      "a whole number of MiB from 0 (no time series) to 65536", NULL,
      "memory for the time series of every thread (0 = none)", NULL },
    { "HOTPATH_GROWTH_WINDOW_S", HP_SETTING_UINT, AT(growth_window_s), 30, 1, 86400, NULL,
      "a whole number of seconds from 1 to 86400", NULL,
      "a thread's memory is flagged growing only once its series spans this long (warm-up is not a leak)", NULL },
    { "HOTPATH_HTML_PATH", HP_SETTING_FILE, AT(html_path), 0, 0, 0, NULL, NULL, "none",
      "the HTML report's file (%p = pid, %n = process image number)", NULL },
    { "HOTPATH_RUN_DIR", HP_SETTING_PATH, AT(run_dir), 0, 0, 0, NULL, NULL, "none",
      "internal: the directory of hotpath-run's run, where each image writes its reports", NULL },
    { "HOTPATH_WATCH_PID", HP_SETTING_UINT, AT(watch_pid), 0, 0, 4194304, NULL,
      "a process id", "none",
      "internal: the process hotpath-run --pid watches from outside (its launcher's own setting)", NULL },
};

const struct hp_settings_table hp_config_settings = {
    rows, sizeof rows / sizeof *rows, &hp_config,
};

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
