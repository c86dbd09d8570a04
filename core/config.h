/* config.h — the core's settings (the sampler, the report's files and format, the live views,
 * call stacks), a table of core/settings.h; each view's are in its folder. */
#ifndef HP_CONFIG_H
#define HP_CONFIG_H

#include <stdint.h>

#include "settings.h"

enum hp_format { HP_FORMAT_TABLE, HP_FORMAT_JSON, HP_FORMAT_JSON_PRETTY, HP_FORMAT_NONE };

#define HP_OUTPUT_PATH_MAX 4096
#define HP_TOKEN_MAX 256

/* The strings are "" or a copy from the profiler's heap (never the environment's, which a
 * program may rewrite): the struct stays a few hundred bytes, which a start touches whole. */
struct hp_config {
    unsigned interval_ms;               /* HOTPATH_THREADS_INTERVAL_MS, default 250 */
    enum hp_format format;              /* HOTPATH_OUTPUT_FORMAT */
    const char *output_path;            /* HOTPATH_OUTPUT_PATH, "" = stderr */
    int no_children;                    /* HOTPATH_NO_CHILDREN: children run unprofiled */
    unsigned checkpoint_s;              /* HOTPATH_CHECKPOINT_S: rewrite the report file, 0 = off */
    unsigned exited_threads_limit;      /* HOTPATH_EXITED_THREADS_LIMIT: exited rows kept apart */
    /* Live views (docs/REFERENCE.md "Live views"): the metrics server and the console. */
    int server_off;                     /* HOTPATH_METRICS_SERVER_OFF */
    unsigned table_width;               /* HOTPATH_TABLE_WIDTH: columns the text tables fit in, 0 = any */
    int table_width_set;                /* it was set: else the terminal's width, or 160 */
    unsigned metrics_port;              /* HOTPATH_METRICS_PORT, default 6770 */
    int metrics_port_set;               /* the port was set explicitly: say so when it is busy */
    unsigned metrics_start_ms;          /* HOTPATH_METRICS_START_MS: the server once the process lived this long */
    const char *auth_token;             /* HOTPATH_METRICS_AUTH_TOKEN, "" = none (or auth_auto) */
    int auth_auto;                      /* `auto` (the default): the user's token, in the registry directory */
    int auth_bad;                       /* the token has whitespace or control characters: no server */
    unsigned tui_refresh_ms;            /* HOTPATH_TUI_REFRESH_INTERVAL_MS, default 500 */
    unsigned stack_depth;               /* HOTPATH_STACK_DEPTH: frames kept per sample, default 32 */
    /* Time series and the HTML report (docs/REFERENCE.md "Time series"). */
    unsigned history_mb;                /* HOTPATH_HISTORY_MB: memory for the series, 0 = none */
    unsigned growth_window_s;           /* HOTPATH_GROWTH_WINDOW_S: the span a growing flag needs */
    const char *html_path;              /* HOTPATH_HTML_PATH: the HTML report file, "" = none */
    const char *run_dir;                /* HOTPATH_RUN_DIR: hotpath-run's directory of the run, "" = none */
    unsigned watch_pid;                 /* HOTPATH_WATCH_PID: the process watched from outside, 0 = none */
};

/* The core's table, filling hp_config. */
extern const struct hp_settings_table hp_config_settings;

/* Expand %p (pid), %n (process image number) and %% in an output path; 0, or -1 if too long.
 * A path without %n gets ".N" before its extension for images after the first (N > 0). */
int hp_expand_path(const char *pattern, int pid, unsigned image, char *out, unsigned out_size);

extern struct hp_config hp_config;

/* The process writes a report at its end (a text or JSON one, or the HTML page). */
static inline int hp_config_writes_report(void)
{
    return hp_config.format != HP_FORMAT_NONE || hp_config.html_path[0];
}

#endif
