/* config.h — every HOTPATH_* setting, parsed in one place. A value that does not parse gets one
 * line on stderr naming the variable, the value and the default used. */
#ifndef HP_CONFIG_H
#define HP_CONFIG_H

#include <stdint.h>

enum hp_format { HP_FORMAT_TABLE, HP_FORMAT_JSON, HP_FORMAT_JSON_PRETTY, HP_FORMAT_NONE };

/* Report sections by their JSON key, in report order (docs/DESIGN.md "One report model"). */
enum hp_section_id {
    HP_SEC_THREADS, HP_SEC_MUTEXES, HP_SEC_RW_LOCKS, HP_SEC_IO,
    HP_SEC_FUNCTIONS_CPU, HP_SEC_FUNCTIONS_ALLOC, HP_SEC_COUNT
};
extern const char *const hp_section_keys[HP_SEC_COUNT];

#define HP_OUTPUT_PATH_MAX 4096
#define HP_TOKEN_MAX 256
#define HP_LOCKS_DEFAULT_RATE 0.05       /* every 20th uncontended hold timed (see README.md) */

/* The strings are "" or a copy from the profiler's heap (never the environment's, which a
 * program may rewrite): the struct stays a few hundred bytes, which a start touches whole. */
struct hp_config {
    unsigned interval_ms;               /* HOTPATH_THREADS_INTERVAL_MS, default 250 */
    unsigned limits[HP_SEC_COUNT];      /* text rows per section, 0 = all */
    enum hp_format format;              /* HOTPATH_OUTPUT_FORMAT */
    const char *output_path;            /* HOTPATH_OUTPUT_PATH, "" = stderr */
    uint32_t sections;                  /* HOTPATH_REPORT, bit per hp_section_id */
    /* Locks view: HOTPATH_{MUTEXES,RW_LOCKS}_TIME_SAMPLING_RATE r (default HOTPATH_TIME_SAMPLING_RATE,
     * else HP_LOCKS_DEFAULT_RATE) as a period: every round(1/r)-th hold per thread is timed, 0 = none. */
    unsigned mutex_time_period, rwlock_time_period;
    int locks_iter;                     /* HOTPATH_LOCKS_ITER: one row per lock instance, no merging */
    /* I/O view: HOTPATH_IO_TIME_SAMPLING_RATE r (default HOTPATH_TIME_SAMPLING_RATE, else 1.0) as a
     * period: every round(1/r)-th I/O call per thread is timed, 0 = none; HOTPATH_IO_ITER. */
    unsigned io_time_period;
    int io_iter;                        /* one row per instance: no merging of short-lived ones */
    int no_children;                    /* HOTPATH_NO_CHILDREN: children run unprofiled */
    unsigned checkpoint_s;              /* HOTPATH_CHECKPOINT_S: rewrite the report file, 0 = off */
    unsigned exited_threads_limit;      /* HOTPATH_EXITED_THREADS_LIMIT: exited rows kept apart */
    /* Live views (docs/REFERENCE.md "Live views"): the metrics server and the console. */
    int server_off;                     /* HOTPATH_METRICS_SERVER_OFF */
    unsigned metrics_port;              /* HOTPATH_METRICS_PORT, default 6770 */
    int metrics_port_set;               /* the port was set explicitly: say so when it is busy */
    const char *auth_token;             /* HOTPATH_METRICS_AUTH_TOKEN, "" = none */
    int auth_auto;                      /* the token was `auto`: made at start, in the registry file */
    int auth_bad;                       /* the token has whitespace or control characters: no server */
    unsigned tui_refresh_ms;            /* HOTPATH_TUI_REFRESH_INTERVAL_MS, default 500 */
    /* Call stacks (docs/REFERENCE.md "CPU profile"). */
    unsigned cpu_hz;                    /* HOTPATH_CPU_HZ: CPU samples per second of thread CPU, 0 = off */
    unsigned stack_depth;               /* HOTPATH_STACK_DEPTH: frames kept per sample, default 32 */
    unsigned alloc_sample_bytes;        /* HOTPATH_ALLOC_SAMPLE_BYTES: mean bytes between alloc samples, 0 = off */
    int alloc_cumulative;               /* HOTPATH_ALLOC_CUMULATIVE: a call site's bytes count for every caller */
    const char *cpu_folded;             /* HOTPATH_CPU_FOLDED: folded stacks file, "" = none */
    const char *cpu_flamegraph;         /* HOTPATH_CPU_FLAMEGRAPH: SVG flame graph file, "" = none */
    const char *alloc_folded;           /* HOTPATH_ALLOC_FOLDED: folded allocation stacks, "" = none */
    const char *alloc_flamegraph;       /* HOTPATH_ALLOC_FLAMEGRAPH: their SVG, "" = none */
    /* Time series and the HTML report (docs/REFERENCE.md "Time series"). */
    unsigned history_mb;                /* HOTPATH_HISTORY_MB: memory for the series, 0 = none */
    const char *html_path;              /* HOTPATH_HTML_PATH: the HTML report file, "" = none */
};

typedef const char *(*hp_getenv_fn)(const char *name);
typedef void (*hp_warn_fn)(const char *line);

void hp_config_parse(struct hp_config *c, hp_getenv_fn get, hp_warn_fn warn);
/* Expand %p (pid), %n (process image number) and %% in an output path; 0, or -1 if too long.
 * A path without %n gets ".N" before its extension for images after the first (N > 0). */
int hp_expand_path(const char *pattern, int pid, unsigned image, char *out, unsigned out_size);

extern struct hp_config hp_config;

#endif
