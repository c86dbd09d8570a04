/* test_config.c — every HOTPATH_* setting's table (core/config.c, each view's *_settings.c,
 * report/report_settings.c) parsed in one pass, as at start, through a fake environment and a
 * warning sink that records every line; and hp_expand_path. */
#include <ctype.h>

#include "core/config.h"
#include "core/view.h"
#include "report/report_settings.h"
#include "report/section.h"
#include "unit.h"
#include "views/alloc/alloc_settings.h"
#include "views/cpu/cpu_settings.h"
#include "views/io/io_settings.h"
#include "views/locks/locks_settings.h"
#include "views/threads/threads_settings.h"

/* The library's list as far as settings go: each view's own table, and its sections by their
 * keys and limits (their renderings are the integration tests'), in views/list.h's order. */
enum { HP_SEC_THREADS, HP_SEC_MUTEXES, HP_SEC_RW_LOCKS, HP_SEC_IO, HP_SEC_FUNCTIONS_CPU,
       HP_SEC_FUNCTIONS_ALLOC, HP_SEC_COUNT };
static const char *const io_aliases[] = { "io_read", "io_write", NULL };
static const struct hp_section sec_threads = { .key = "threads", .limit = &hp_threads_settings.limit },
    sec_mutexes = { .key = "mutexes", .limit = &hp_locks_settings.mutexes_limit },
    sec_rw_locks = { .key = "rw_locks", .limit = &hp_locks_settings.rw_locks_limit },
    sec_io = { .key = "io", .aliases = io_aliases, .limit = &hp_io_settings.limit },
    sec_cpu = { .key = "functions_cpu", .limit = &hp_cpu_settings.limit },
    sec_alloc = { .key = "functions_alloc", .limit = &hp_alloc_settings.limit };
static const struct hp_section *const by_id[HP_SEC_COUNT] = {
    &sec_threads, &sec_mutexes, &sec_rw_locks, &sec_io, &sec_cpu, &sec_alloc,
};
static const struct hp_view threads_view = { .name = "threads", .settings = &hp_threads_settings_table,
                                             .sections = by_id, .nsections = 1 },
    locks_view = { .name = "locks", .settings = &hp_locks_settings_table, .sections = by_id + 1, .nsections = 2 },
    io_view = { .name = "io", .settings = &hp_io_settings_table, .sections = by_id + 3, .nsections = 1 },
    cpu_view = { .name = "cpu", .settings = &hp_cpu_settings_table, .sections = by_id + 4, .nsections = 1 },
    alloc_view = { .name = "alloc", .settings = &hp_alloc_settings_table, .sections = by_id + 5, .nsections = 1 };
const struct hp_view *const hp_views[] = { &threads_view, &locks_view, &io_view, &cpu_view, &alloc_view };
const unsigned hp_view_count = 5;

#define LIMIT(s) (*by_id[s]->limit)
#define BIT(s) (1u << (s))
#define ALL_SECTIONS                                                                           \
    (BIT(HP_SEC_THREADS) | BIT(HP_SEC_MUTEXES) | BIT(HP_SEC_RW_LOCKS) | BIT(HP_SEC_IO) |      \
     BIT(HP_SEC_FUNCTIONS_CPU) | BIT(HP_SEC_FUNCTIONS_ALLOC))

/* ---- fake environment and warning sink ---- */

static struct { const char *name, *value; } env[16];
static unsigned nenv;
static char warnings[8][1024];
static unsigned nwarn;

static const char *fake_getenv(const char *name)
{
    for (unsigned i = 0; i < nenv; i++)
        if (strcmp(env[i].name, name) == 0) return env[i].value;
    return NULL;
}

static void record_warning(const char *line)
{
    if (nwarn < sizeof warnings / sizeof *warnings)
        snprintf(warnings[nwarn], sizeof warnings[nwarn], "%s", line);
    nwarn++;
}

static void reset(void)
{
    nenv = 0;
    nwarn = 0;
    memset(warnings, 0, sizeof warnings);
}

static void set(const char *name, const char *value)
{
    ck_assert_uint_lt(nenv, sizeof env / sizeof *env);
    env[nenv].name = name;
    env[nenv].value = value;
    nenv++;
}

#define cfg hp_config

static void parse(void)
{
    /* the parser must set every field itself */
    memset(&hp_config, 0xA5, sizeof hp_config);
    memset(&hp_threads_settings, 0xA5, sizeof hp_threads_settings);
    memset(&hp_locks_settings, 0xA5, sizeof hp_locks_settings);
    memset(&hp_io_settings, 0xA5, sizeof hp_io_settings);
    memset(&hp_cpu_settings, 0xA5, sizeof hp_cpu_settings);
    memset(&hp_alloc_settings, 0xA5, sizeof hp_alloc_settings);
    memset(&hp_report_settings, 0xA5, sizeof hp_report_settings);
    hp_settings_parse_all(fake_getenv, record_warning);
}

/* tok occurs in line as a token of its own: preceded by '=', a quote or a space (or the start),
 * followed by '=', a quote, space, ';', ',' or the end. An empty tok must appear as "" or ''. */
static int has_token(const char *line, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *p = line; (p = strstr(p, tok)) != NULL; p++) {
        char before = p == line ? ' ' : p[-1], after = p[n];
        int ok_before = before == '=' || before == '"' || before == '\'' || before == ' ';
        int ok_after = after == 0 || after == '"' || after == '\'' || after == ' ' ||
                       after == ';' || after == ',' || after == '=';
        if (n == 0) {
            ok_before = before == '"' || before == '\'';
            ok_after = after == before;
        }
        if (ok_before && ok_after) return 1;
        if (!*p) break;
    }
    return 0;
}

/* The line names `def` as the value used: its last word (trailing punctuation ignored). */
static int ends_with_word(const char *line, const char *def)
{
    size_t len = strlen(line), n = strlen(def);
    while (len > 0 && (line[len - 1] == '.' || line[len - 1] == ')' || isspace((unsigned char)line[len - 1])))
        len--;
    if (len < n || memcmp(line + len - n, def, n) != 0) return 0;
    return len == n || !isalnum((unsigned char)line[len - n - 1]);
}

static void assert_defaults_except(int skip_interval, int skip_limits, int skip_format,
                                   int skip_sections)
{
    if (!skip_interval) ck_assert_uint_eq(cfg.interval_ms, 250);
    if (!skip_limits) {
        ck_assert_uint_eq(LIMIT(HP_SEC_THREADS), 5);
        ck_assert_uint_eq(LIMIT(HP_SEC_MUTEXES), 10);
        ck_assert_uint_eq(LIMIT(HP_SEC_RW_LOCKS), 10);
        ck_assert_uint_eq(LIMIT(HP_SEC_IO), 10);
        ck_assert_uint_eq(LIMIT(HP_SEC_FUNCTIONS_CPU), 15);
        ck_assert_uint_eq(LIMIT(HP_SEC_FUNCTIONS_ALLOC), 15);
    }
    if (!skip_format) ck_assert_int_eq(cfg.format, HP_FORMAT_TABLE);
    if (!skip_sections) ck_assert_uint_eq(hp_report_settings.sections, ALL_SECTIONS);
    ck_assert_str_eq(cfg.output_path, "");
}

static void assert_no_warnings(void)
{
    ck_assert_msg(nwarn == 0, "unexpected warning: %s", warnings[0]);
}

/* ---- defaults ---- */

START_TEST(defaults)
{
    parse();
    assert_no_warnings();
    assert_defaults_except(0, 0, 0, 0);
}
END_TEST

START_TEST(unrelated_variables_ignored)
{
    set("HOTPATH", "1");
    set("HOTPATH_THREADS", "7");
    set("PATH", "/usr/bin");
    parse();
    assert_no_warnings();
    assert_defaults_except(0, 0, 0, 0);
}
END_TEST

/* ---- good values ---- */

START_TEST(interval_good)
{
    static const struct { const char *s; unsigned v; } cases[] = {
        { "1", 1 }, { "100", 100 }, { "0250", 250 }, { "1000", 1000 }, { "3600000", 3600000 },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset();
        set("HOTPATH_THREADS_INTERVAL_MS", cases[i].s);
        parse();
        assert_no_warnings();
        ck_assert_uint_eq(cfg.interval_ms, cases[i].v);
        assert_defaults_except(1, 0, 0, 0);
    }
}
END_TEST

START_TEST(per_section_limits)
{
    static const struct { const char *var; int sec, sec2; } cases[] = {
        { "HOTPATH_THREADS_LIMIT", HP_SEC_THREADS, -1 },
        { "HOTPATH_MUTEXES_LIMIT", HP_SEC_MUTEXES, -1 },
        { "HOTPATH_RW_LOCKS_LIMIT", HP_SEC_RW_LOCKS, -1 },
        { "HOTPATH_IO_LIMIT", HP_SEC_IO, -1 },
        { "HOTPATH_FUNCTIONS_LIMIT", HP_SEC_FUNCTIONS_CPU, HP_SEC_FUNCTIONS_ALLOC },
    };
    static const unsigned defaults[HP_SEC_COUNT] = { 5, 10, 10, 10, 15, 15 };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        static const char *const values[] = { "0", "3", "1000000" };
        static const unsigned expect[] = { 0, 3, 1000000 };
        for (unsigned v = 0; v < 3; v++) {
            reset();
            set(cases[i].var, values[v]);
            parse();
            assert_no_warnings();
            for (int s = 0; s < HP_SEC_COUNT; s++) {
                unsigned want = (s == cases[i].sec || s == cases[i].sec2) ? expect[v] : defaults[s];
                ck_assert_msg(LIMIT(s) == want, "%s=%s: limits[%d] = %u, want %u",
                              cases[i].var, values[v], s, LIMIT(s), want);
            }
            assert_defaults_except(0, 1, 0, 0);
        }
    }
}
END_TEST

START_TEST(common_limit_sets_every_section)
{
    set("HOTPATH_LIMIT", "7");
    parse();
    assert_no_warnings();
    for (int s = 0; s < HP_SEC_COUNT; s++) ck_assert_uint_eq(LIMIT(s), 7);

    reset();
    set("HOTPATH_LIMIT", "0");
    parse();
    assert_no_warnings();
    for (int s = 0; s < HP_SEC_COUNT; s++) ck_assert_uint_eq(LIMIT(s), 0);
}
END_TEST

START_TEST(section_limit_overrides_common)
{
    /* in either order in the environment */
    for (int order = 0; order < 2; order++) {
        reset();
        if (order) set("HOTPATH_THREADS_LIMIT", "2");
        set("HOTPATH_LIMIT", "7");
        if (!order) set("HOTPATH_THREADS_LIMIT", "2");
        set("HOTPATH_FUNCTIONS_LIMIT", "40");
        parse();
        assert_no_warnings();
        ck_assert_uint_eq(LIMIT(HP_SEC_THREADS), 2);
        ck_assert_uint_eq(LIMIT(HP_SEC_MUTEXES), 7);
        ck_assert_uint_eq(LIMIT(HP_SEC_RW_LOCKS), 7);
        ck_assert_uint_eq(LIMIT(HP_SEC_IO), 7);
        ck_assert_uint_eq(LIMIT(HP_SEC_FUNCTIONS_CPU), 40);
        ck_assert_uint_eq(LIMIT(HP_SEC_FUNCTIONS_ALLOC), 40);
    }
}
END_TEST

START_TEST(bad_section_limit_falls_back_to_common)
{
    set("HOTPATH_LIMIT", "3");
    set("HOTPATH_THREADS_LIMIT", "x");
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert(has_token(warnings[0], "HOTPATH_THREADS_LIMIT"));
    ck_assert(has_token(warnings[0], "x"));
    ck_assert_msg(ends_with_word(warnings[0], "3"), "default used not named: %s", warnings[0]);
    for (int s = 0; s < HP_SEC_COUNT; s++) ck_assert_uint_eq(LIMIT(s), 3);
}
END_TEST

START_TEST(output_formats)
{
    static const struct { const char *s; enum hp_format f; } cases[] = {
        { "table", HP_FORMAT_TABLE }, { "json", HP_FORMAT_JSON },
        { "json-pretty", HP_FORMAT_JSON_PRETTY }, { "none", HP_FORMAT_NONE }, { "text", HP_FORMAT_TABLE },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset();
        set("HOTPATH_OUTPUT_FORMAT", cases[i].s);
        parse();
        assert_no_warnings();
        ck_assert_int_eq(cfg.format, cases[i].f);
        assert_defaults_except(0, 0, 1, 0);
    }
}
END_TEST

START_TEST(output_path)
{
    set("HOTPATH_OUTPUT_PATH", "/tmp/hotpath-%p.txt");
    parse();
    assert_no_warnings();
    ck_assert_str_eq(cfg.output_path, "/tmp/hotpath-%p.txt");

    reset();
    set("HOTPATH_OUTPUT_PATH", "");
    parse();
    assert_no_warnings();
    ck_assert_str_eq(cfg.output_path, "");
}
END_TEST

START_TEST(output_path_length_limit)
{
    static char longest[HP_OUTPUT_PATH_MAX], too_long[HP_OUTPUT_PATH_MAX + 1];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = 0;
    set("HOTPATH_OUTPUT_PATH", longest);
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(strlen(cfg.output_path), HP_OUTPUT_PATH_MAX - 1);

    reset();
    memset(too_long, 'b', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = 0;
    set("HOTPATH_OUTPUT_PATH", too_long);
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert(strstr(warnings[0], "HOTPATH_OUTPUT_PATH") != NULL);
    ck_assert(strchr(warnings[0], '\n') == NULL);
    ck_assert_str_eq(cfg.output_path, "");      /* stderr */
}
END_TEST

START_TEST(report_sections)
{
    static const struct { const char *s; uint32_t mask; } cases[] = {
        { "all", ALL_SECTIONS },
        { "threads", BIT(HP_SEC_THREADS) },
        { "mutexes", BIT(HP_SEC_MUTEXES) },
        { "rw_locks", BIT(HP_SEC_RW_LOCKS) },
        { "rw-locks", BIT(HP_SEC_RW_LOCKS) },
        { "io", BIT(HP_SEC_IO) },
        { "io-read", BIT(HP_SEC_IO) },
        { "io-write", BIT(HP_SEC_IO) },
        { "io_read", BIT(HP_SEC_IO) },
        { "functions_cpu", BIT(HP_SEC_FUNCTIONS_CPU) },
        { "functions-alloc", BIT(HP_SEC_FUNCTIONS_ALLOC) },
        { "all,-threads", ALL_SECTIONS & ~BIT(HP_SEC_THREADS) },
        { "-threads", ALL_SECTIONS & ~BIT(HP_SEC_THREADS) },
        { "-threads,-io", ALL_SECTIONS & ~BIT(HP_SEC_THREADS) & ~BIT(HP_SEC_IO) },
        { "all,-functions_cpu,-functions_alloc",
          ALL_SECTIONS & ~BIT(HP_SEC_FUNCTIONS_CPU) & ~BIT(HP_SEC_FUNCTIONS_ALLOC) },
        { "threads,io", BIT(HP_SEC_THREADS) | BIT(HP_SEC_IO) },
        { "io,threads", BIT(HP_SEC_THREADS) | BIT(HP_SEC_IO) },
        { "threads,mutexes,-threads", BIT(HP_SEC_MUTEXES) },
        { "threads,all", ALL_SECTIONS },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset();
        set("HOTPATH_REPORT", cases[i].s);
        parse();
        ck_assert_msg(nwarn == 0, "HOTPATH_REPORT=%s warned: %s", cases[i].s, warnings[0]);
        ck_assert_msg(hp_report_settings.sections == cases[i].mask, "HOTPATH_REPORT=%s: sections 0x%x, want 0x%x",
                      cases[i].s, hp_report_settings.sections, cases[i].mask);
        assert_defaults_except(0, 0, 0, 1);
    }
}
END_TEST

START_TEST(everything_at_once)
{
    set("HOTPATH_THREADS_INTERVAL_MS", "50");
    set("HOTPATH_LIMIT", "9");
    set("HOTPATH_IO_LIMIT", "1");
    set("HOTPATH_OUTPUT_FORMAT", "json-pretty");
    set("HOTPATH_OUTPUT_PATH", "out-%n.json");
    set("HOTPATH_REPORT", "threads,io-write");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(cfg.interval_ms, 50);
    ck_assert_uint_eq(LIMIT(HP_SEC_THREADS), 9);
    ck_assert_uint_eq(LIMIT(HP_SEC_IO), 1);
    ck_assert_uint_eq(LIMIT(HP_SEC_FUNCTIONS_ALLOC), 9);
    ck_assert_int_eq(cfg.format, HP_FORMAT_JSON_PRETTY);
    ck_assert_str_eq(cfg.output_path, "out-%n.json");
    ck_assert_uint_eq(hp_report_settings.sections, BIT(HP_SEC_THREADS) | BIT(HP_SEC_IO));
}
END_TEST

/* ---- locks view: sampling rates as periods, per-instance rows ---- */

START_TEST(locks_settings)
{
    parse();
    ck_assert_uint_eq(hp_locks_settings.mutex_time_period, 20);      /* HP_LOCKS_DEFAULT_RATE 0.05 */
    ck_assert_uint_eq(hp_locks_settings.rwlock_time_period, 20);
    ck_assert_int_eq(hp_locks_settings.iter, 0);
    static const struct { const char *rate; unsigned period; } cases[] = {
        { "1", 1 }, { "1.0", 1 }, { "0", 0 }, { "0.0", 0 }, { "0.5", 2 }, { ".25", 4 },
        { "0.3", 3 }, { "0.01", 100 }, { "0.001", 1000 }, { "0.4", 3 },
        { "1e-2", 100 }, { "5E-2", 20 }, { "1e0", 1 }, { "0.1e+1", 1 }, { "1e-4", 10000 },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset();
        set("HOTPATH_MUTEXES_TIME_SAMPLING_RATE", cases[i].rate);
        parse();
        assert_no_warnings();
        ck_assert_msg(hp_locks_settings.mutex_time_period == cases[i].period, "rate %s: period %u, want %u",
                      cases[i].rate, hp_locks_settings.mutex_time_period, cases[i].period);
        ck_assert_uint_eq(hp_locks_settings.rwlock_time_period, 20);
    }
    /* the common rate sets both defaults; a view's own rate wins */
    reset();
    set("HOTPATH_TIME_SAMPLING_RATE", "1");
    set("HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", "0.1");
    set("HOTPATH_LOCKS_ITER", "true");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(hp_locks_settings.mutex_time_period, 1);
    ck_assert_uint_eq(hp_locks_settings.rwlock_time_period, 10);
    ck_assert_int_eq(hp_locks_settings.iter, 1);
    /* a bad view rate keeps the common one, and says so */
    reset();
    set("HOTPATH_TIME_SAMPLING_RATE", "0.5");
    set("HOTPATH_MUTEXES_TIME_SAMPLING_RATE", "2");
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert_uint_eq(hp_locks_settings.mutex_time_period, 2);
    ck_assert(ends_with_word(warnings[0], "0.5"));
}
END_TEST

/* ---- live views: the metrics server and the console ---- */

START_TEST(live_view_settings)
{
    parse();
    ck_assert_int_eq(cfg.server_off, 0);
    ck_assert_uint_eq(cfg.metrics_port, 6770);
    ck_assert_int_eq(cfg.metrics_port_set, 0);
    ck_assert_str_eq(cfg.auth_token, "");
    ck_assert_int_eq(cfg.auth_auto, 1);                 /* the user's token by default */
    ck_assert_int_eq(cfg.auth_bad, 0);
    ck_assert_uint_eq(cfg.metrics_start_ms, 1000);
    ck_assert_uint_eq(cfg.tui_refresh_ms, 500);
    reset();
    set("HOTPATH_METRICS_SERVER_OFF", "true");
    set("HOTPATH_METRICS_PORT", "9100");
    set("HOTPATH_METRICS_AUTH_TOKEN", "s3cret-Token");
    set("HOTPATH_TUI_REFRESH_INTERVAL_MS", "100");
    set("HOTPATH_METRICS_START_MS", "0");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(cfg.metrics_start_ms, 0);
    ck_assert_int_eq(cfg.auth_auto, 0);
    ck_assert_int_eq(cfg.server_off, 1);
    ck_assert_uint_eq(cfg.metrics_port, 9100);
    ck_assert_int_eq(cfg.metrics_port_set, 1);
    ck_assert_str_eq(cfg.auth_token, "s3cret-Token");
    ck_assert_uint_eq(cfg.tui_refresh_ms, 100);
    reset();
    set("HOTPATH_METRICS_AUTH_TOKEN", "auto");
    parse();
    assert_no_warnings();
    ck_assert_int_eq(cfg.auth_auto, 1);
    ck_assert_str_eq(cfg.auth_token, "");
    reset();
    set("HOTPATH_METRICS_AUTH_TOKEN", "none");         /* no token: a trusted host */
    parse();
    assert_no_warnings();
    ck_assert_int_eq(cfg.auth_auto, 0);
    ck_assert_int_eq(cfg.auth_bad, 0);
    ck_assert_str_eq(cfg.auth_token, "");
    /* bad values: one line each, defaults kept */
    static const char *const bad_tokens[] = { "has space", "tab\there", "nl\n", "del\x7f" };
    for (unsigned i = 0; i < sizeof bad_tokens / sizeof *bad_tokens; i++) {
        reset();
        set("HOTPATH_METRICS_AUTH_TOKEN", bad_tokens[i]);
        parse();
        ck_assert_uint_eq(nwarn, 1);
        ck_assert_ptr_nonnull(strstr(warnings[0], "HOTPATH_METRICS_AUTH_TOKEN"));
        ck_assert_ptr_null(strstr(warnings[0], bad_tokens[i]));   /* a secret is never echoed */
        ck_assert_int_eq(cfg.auth_bad, 1);
        ck_assert_int_eq(cfg.auth_auto, 0);
        ck_assert_str_eq(cfg.auth_token, "");
    }
    static const char *const bad_ports[] = { "0", "65536", "http", "", "-1" };
    for (unsigned i = 0; i < sizeof bad_ports / sizeof *bad_ports; i++) {
        reset();
        set("HOTPATH_METRICS_PORT", bad_ports[i]);
        parse();
        ck_assert_uint_eq(nwarn, 1);
        ck_assert_ptr_nonnull(strstr(warnings[0], "HOTPATH_METRICS_PORT"));
        ck_assert_uint_eq(cfg.metrics_port, 6770);
        ck_assert_int_eq(cfg.metrics_port_set, 0);
    }
    reset();
    set("HOTPATH_METRICS_SERVER_OFF", "perhaps");
    set("HOTPATH_TUI_REFRESH_INTERVAL_MS", "10");
    parse();
    ck_assert_uint_eq(nwarn, 2);
    ck_assert_int_eq(cfg.server_off, 0);
    ck_assert_uint_eq(cfg.tui_refresh_ms, 500);
}
END_TEST

/* ---- I/O view: every call timed by default; the common rate is its default too ---- */

START_TEST(io_settings)
{
    parse();
    ck_assert_uint_eq(hp_io_settings.time_period, 1);
    ck_assert_int_eq(hp_io_settings.iter, 0);
    static const struct { const char *rate; unsigned period; } cases[] = {
        { "1", 1 }, { "0", 0 }, { "0.5", 2 }, { "0.1", 10 }, { ".01", 100 },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset();
        set("HOTPATH_IO_TIME_SAMPLING_RATE", cases[i].rate);
        parse();
        assert_no_warnings();
        ck_assert_uint_eq(hp_io_settings.time_period, cases[i].period);
        ck_assert_uint_eq(hp_locks_settings.mutex_time_period, 20);      /* the locks view keeps its own */
    }
    /* the common rate sets the I/O default; the view's own rate wins */
    reset();
    set("HOTPATH_TIME_SAMPLING_RATE", "0.25");
    parse();
    ck_assert_uint_eq(hp_io_settings.time_period, 4);
    reset();
    set("HOTPATH_TIME_SAMPLING_RATE", "0.25");
    set("HOTPATH_IO_TIME_SAMPLING_RATE", "1.0");
    set("HOTPATH_IO_ITER", "true");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(hp_io_settings.time_period, 1);
    ck_assert_int_eq(hp_io_settings.iter, 1);
    /* a bad common rate warns once and leaves I/O timing every call */
    reset();
    set("HOTPATH_TIME_SAMPLING_RATE", "lots");
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert_uint_eq(hp_io_settings.time_period, 1);
    /* a bad I/O rate keeps the common one, and names it */
    reset();
    set("HOTPATH_TIME_SAMPLING_RATE", "0.5");
    set("HOTPATH_IO_TIME_SAMPLING_RATE", "3");
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert_uint_eq(hp_io_settings.time_period, 2);
    ck_assert(ends_with_word(warnings[0], "0.5"));
}
END_TEST

/* ---- bad values: one warning line naming variable, value and default; default kept ---- */

enum field { F_INTERVAL, F_LIMITS, F_FORMAT, F_SECTIONS };

static const struct bad {
    const char *var, *value, *def;
    enum field field;
} bad_values[] = {
    { "HOTPATH_THREADS_INTERVAL_MS", "abc", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "0", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "-5", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "99999999", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "3600001", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "18446744073709551617", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "100ms", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", " 100", "250", F_INTERVAL },
    { "HOTPATH_THREADS_INTERVAL_MS", "+100", "250", F_INTERVAL },
    { "HOTPATH_THREADS_LIMIT", "x", "5", F_LIMITS },
    { "HOTPATH_THREADS_LIMIT", "-1", "5", F_LIMITS },
    { "HOTPATH_THREADS_LIMIT", "1000001", "5", F_LIMITS },
    { "HOTPATH_MUTEXES_LIMIT", "many", "10", F_LIMITS },
    { "HOTPATH_RW_LOCKS_LIMIT", "2.5", "10", F_LIMITS },
    { "HOTPATH_IO_LIMIT", "", "10", F_LIMITS },
    { "HOTPATH_FUNCTIONS_LIMIT", "1e3", "15", F_LIMITS },
    { "HOTPATH_MUTEXES_TIME_SAMPLING_RATE", "1.5", "0.05", F_LIMITS },
    { "HOTPATH_MUTEXES_TIME_SAMPLING_RATE", "-0.1", "0.05", F_LIMITS },
    { "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", "1e-", "0.05", F_LIMITS },
    { "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", "1e2", "0.05", F_LIMITS },
    { "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", "e-2", "0.05", F_LIMITS },
    { "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", "1e-2x", "0.05", F_LIMITS },
    { "HOTPATH_RW_LOCKS_TIME_SAMPLING_RATE", "", "0.05", F_LIMITS },
    { "HOTPATH_TIME_SAMPLING_RATE", "half", "0.05", F_LIMITS },
    { "HOTPATH_TIME_SAMPLING_RATE", "0..5", "0.05", F_LIMITS },
    { "HOTPATH_LOCKS_ITER", "maybe", "false", F_LIMITS },
    { "HOTPATH_IO_TIME_SAMPLING_RATE", "2", "1", F_LIMITS },
    { "HOTPATH_IO_TIME_SAMPLING_RATE", "all", "1", F_LIMITS },
    { "HOTPATH_IO_ITER", "sometimes", "false", F_LIMITS },
    /* no single number: each section keeps its own default (5 or 15) */
    { "HOTPATH_LIMIT", "-1", "default", F_LIMITS },
    { "HOTPATH_LIMIT", "ten", "default", F_LIMITS },
    { "HOTPATH_OUTPUT_FORMAT", "xml", "table", F_FORMAT },
    { "HOTPATH_OUTPUT_FORMAT", "JSON", "table", F_FORMAT },
    { "HOTPATH_OUTPUT_FORMAT", "", "table", F_FORMAT },
    { "HOTPATH_REPORT", "threads,", "all", F_SECTIONS },
    { "HOTPATH_REPORT", "", "all", F_SECTIONS },
    { "HOTPATH_REPORT", ",threads", "all", F_SECTIONS },
    { "HOTPATH_REPORT", "threads,,io", "all", F_SECTIONS },
    { "HOTPATH_REPORT", "-", "all", F_SECTIONS },
    { "HOTPATH_REPORT", "-all", "all", F_SECTIONS },
    { "HOTPATH_NO_CHILDREN", "maybe", "false", 0 },
    { "HOTPATH_CHECKPOINT_S", "-1", "0", 0 },
    { "HOTPATH_CHECKPOINT_S", "86401", "0", 0 },
    { "HOTPATH_EXITED_THREADS_LIMIT", "0", "1000", 0 },
    { "HOTPATH_EXITED_THREADS_LIMIT", "many", "1000", 0 },
    { "HOTPATH_CPU_HZ", "fast", "99", 0 },
    { "HOTPATH_CPU_HZ", "1001", "99", 0 },
    { "HOTPATH_STACK_DEPTH", "0", "32", 0 },
    { "HOTPATH_STACK_DEPTH", "129", "32", 0 },
    { "HOTPATH_ALLOC_SAMPLE_BYTES", "-1", "524288", 0 },
    { "HOTPATH_ALLOC_SAMPLE_BYTES", "1073741825", "524288", 0 },
    { "HOTPATH_ALLOC_CUMULATIVE", "sometimes", "false", 0 },
    { "HOTPATH_ALLOC_SAMPLE_BYTES", "1g", "524288", 0 },
};

START_TEST(process_settings)
{
    reset();
    parse();
    ck_assert_int_eq(cfg.no_children, 0);
    ck_assert_uint_eq(cfg.checkpoint_s, 0);
    ck_assert_uint_eq(cfg.exited_threads_limit, 1000);
    static const char *const yes[] = { "true", "1", "yes", "on" }, *const no[] = { "false", "0", "no", "off" };
    for (int i = 0; i < 4; i++) {
        reset();
        set("HOTPATH_NO_CHILDREN", yes[i]);
        parse();
        ck_assert_int_eq(cfg.no_children, 1);
        reset();
        set("HOTPATH_NO_CHILDREN", no[i]);
        parse();
        ck_assert_int_eq(cfg.no_children, 0);
        assert_no_warnings();
    }
    reset();
    set("HOTPATH_CHECKPOINT_S", "30");
    set("HOTPATH_EXITED_THREADS_LIMIT", "5");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(cfg.checkpoint_s, 30);
    ck_assert_uint_eq(cfg.exited_threads_limit, 5);
}
END_TEST

START_TEST(call_stack_settings)
{
    reset();
    parse();
    ck_assert_uint_eq(hp_cpu_settings.hz, 99);
    ck_assert_uint_eq(cfg.stack_depth, 32);
    ck_assert_uint_eq(hp_alloc_settings.sample_bytes, 512 * 1024);
    reset();
    set("HOTPATH_CPU_HZ", "0");
    set("HOTPATH_STACK_DEPTH", "128");
    set("HOTPATH_ALLOC_SAMPLE_BYTES", "1");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(hp_cpu_settings.hz, 0);
    ck_assert_uint_eq(cfg.stack_depth, 128);
    ck_assert_uint_eq(hp_alloc_settings.sample_bytes, 1);
    reset();
    set("HOTPATH_CPU_HZ", "1000");
    set("HOTPATH_STACK_DEPTH", "1");
    set("HOTPATH_ALLOC_SAMPLE_BYTES", "65536");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(hp_cpu_settings.hz, 1000);
    ck_assert_uint_eq(cfg.stack_depth, 1);
    ck_assert_uint_eq(hp_alloc_settings.sample_bytes, 65536);
    ck_assert_int_eq(hp_alloc_settings.cumulative, 0);
    ck_assert_str_eq(hp_cpu_settings.folded, "");
    reset();
    set("HOTPATH_ALLOC_SAMPLE_BYTES", "0");
    set("HOTPATH_ALLOC_CUMULATIVE", "true");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(hp_alloc_settings.sample_bytes, 0);
    ck_assert_int_eq(hp_alloc_settings.cumulative, 1);
    /* the output files of the profile: a path, or one warning and none when too long */
    static char too_long[HP_OUTPUT_PATH_MAX + 1];
    memset(too_long, 'c', sizeof too_long - 1);
    const struct { const char *var; const char *value; const char *const *field; } paths[] = {
        { "HOTPATH_CPU_FOLDED", "/tmp/cpu-%p.folded", &hp_cpu_settings.folded },
        { "HOTPATH_CPU_FLAMEGRAPH", "/tmp/cpu-%p.svg", &hp_cpu_settings.flamegraph },
    };
    for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {
        reset();
        set(paths[i].var, paths[i].value);
        parse();
        assert_no_warnings();
        ck_assert_str_eq(*paths[i].field, paths[i].value);
        reset();
        set(paths[i].var, too_long);
        parse();
        ck_assert_uint_eq(nwarn, 1);
        ck_assert(strstr(warnings[0], paths[i].var) != NULL);
        ck_assert_str_eq(*paths[i].field, "");
    }
}
END_TEST

START_TEST(history_and_html_settings)
{
    reset();
    parse();
    ck_assert_uint_eq(cfg.history_mb, 16);
    ck_assert_str_eq(cfg.html_path, "");
    reset();
    set("HOTPATH_HISTORY_MB", "0");
    set("HOTPATH_HTML_PATH", "report-%p.html");
    parse();
    assert_no_warnings();
    ck_assert_uint_eq(cfg.history_mb, 0);
    ck_assert_str_eq(cfg.html_path, "report-%p.html");
    static const char *const bad[] = { "-1", "65537", "16MB", "" };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        reset();
        set("HOTPATH_HISTORY_MB", bad[i]);
        parse();
        ck_assert_uint_eq(nwarn, 1);
        ck_assert(strstr(warnings[0], "HOTPATH_HISTORY_MB") != NULL);
        ck_assert(strstr(warnings[0], "using 16") != NULL);
        ck_assert_uint_eq(cfg.history_mb, 16);
    }
}
END_TEST

START_TEST(bad_value)
{
    const struct bad *b = &bad_values[_i];
    reset();
    set(b->var, b->value);
    parse();
    ck_assert_msg(nwarn == 1, "%s=\"%s\": %u warnings, want 1", b->var, b->value, nwarn);
    const char *w = warnings[0];
    ck_assert_msg(strchr(w, '\n') == NULL, "warning spans lines: %s", w);
    ck_assert_msg(has_token(w, b->var), "variable not named: %s", w);
    ck_assert_msg(has_token(w, b->value), "value \"%s\" not named: %s", b->value, w);
    ck_assert_msg(ends_with_word(w, b->def), "default \"%s\" not named: %s", b->def, w);
    assert_defaults_except(0, 0, 0, 0);
}
END_TEST

START_TEST(each_bad_variable_warns_once)
{
    set("HOTPATH_THREADS_INTERVAL_MS", "abc");
    set("HOTPATH_FUNCTIONS_LIMIT", "x");       /* feeds two sections: still one line */
    set("HOTPATH_OUTPUT_FORMAT", "xml");
    set("HOTPATH_REPORT", "bogus");
    parse();
    ck_assert_uint_eq(nwarn, 4);
    /* one line each, in the order of the tables (the core's, the views', the report's) */
    ck_assert(strstr(warnings[0], "HOTPATH_THREADS_INTERVAL_MS") != NULL);
    ck_assert(strstr(warnings[1], "HOTPATH_OUTPUT_FORMAT") != NULL);
    ck_assert(strstr(warnings[2], "HOTPATH_FUNCTIONS_LIMIT") != NULL);
    ck_assert(strstr(warnings[3], "HOTPATH_REPORT") != NULL);
    assert_defaults_except(0, 0, 0, 0);
}
END_TEST

/* A name no section has is named, and the list keeps the names it knows. */
START_TEST(report_unknown_names_named_valid_kept)
{
    static const struct { const char *value, *line; uint32_t mask; } cases[] = {
        { "threads,bogus", "hotpath: HOTPATH_REPORT: no section \"bogus\" (sections: all, threads, mutexes, "
          "rw_locks, io, functions_cpu, functions_alloc); using threads", BIT(HP_SEC_THREADS) },
        { "bogus", "hotpath: HOTPATH_REPORT: no section \"bogus\" (sections: all, threads, mutexes, "
          "rw_locks, io, functions_cpu, functions_alloc); using all", ALL_SECTIONS },
        { "io,x,-threads,y", "hotpath: HOTPATH_REPORT: no sections \"x\", \"y\" (sections: all, threads, "
          "mutexes, rw_locks, io, functions_cpu, functions_alloc); using io", BIT(HP_SEC_IO) },
        { "-bogus,-threads", "hotpath: HOTPATH_REPORT: no section \"bogus\" (sections: all, threads, mutexes, "
          "rw_locks, io, functions_cpu, functions_alloc); using mutexes,rw_locks,io,functions_cpu,functions_alloc",
          ALL_SECTIONS & ~BIT(HP_SEC_THREADS) },
        { "functions_cpu_and_functions_alloc_too_long", "hotpath: HOTPATH_REPORT: no section "
          "\"functions_cpu_and_functions_alloc_too_long\" (sections: all, threads, mutexes, rw_locks, io, "
          "functions_cpu, functions_alloc); using all", ALL_SECTIONS },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset();
        set("HOTPATH_REPORT", cases[i].value);
        parse();
        ck_assert_uint_eq(nwarn, 1);
        ck_assert_str_eq(warnings[0], cases[i].line);
        ck_assert_msg(hp_report_settings.sections == cases[i].mask, "HOTPATH_REPORT=%s: 0x%x", cases[i].value,
                      hp_report_settings.sections);
    }
}
END_TEST

START_TEST(bad_value_does_not_disturb_others)
{
    set("HOTPATH_THREADS_INTERVAL_MS", "fast");
    set("HOTPATH_THREADS_LIMIT", "12");
    set("HOTPATH_OUTPUT_FORMAT", "json");
    set("HOTPATH_REPORT", "io");
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert_uint_eq(cfg.interval_ms, 250);
    ck_assert_uint_eq(LIMIT(HP_SEC_THREADS), 12);
    ck_assert_int_eq(cfg.format, HP_FORMAT_JSON);
    ck_assert_uint_eq(hp_report_settings.sections, BIT(HP_SEC_IO));
}
END_TEST

START_TEST(long_bad_value_one_bounded_line)
{
    static char value[3000];
    memset(value, 'z', sizeof value - 1);
    set("HOTPATH_REPORT", value);
    parse();
    ck_assert_uint_eq(nwarn, 1);
    ck_assert(strstr(warnings[0], "HOTPATH_REPORT") != NULL);
    ck_assert(strchr(warnings[0], '\n') == NULL);
    ck_assert_uint_lt(strlen(warnings[0]), 1000);
    ck_assert_uint_eq(hp_report_settings.sections, ALL_SECTIONS);
}
END_TEST

/* ---- hp_expand_path ---- */

START_TEST(expand_path)
{
    char out[64];
    ck_assert_int_eq(hp_expand_path("/tmp/hp-%p.txt", 1234, 0, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/hp-1234.txt");
    ck_assert_int_eq(hp_expand_path("r-%n.json", 1, 3, out, sizeof out), 0);
    ck_assert_str_eq(out, "r-3.json");
    ck_assert_int_eq(hp_expand_path("100%%", 1, 0, out, sizeof out), 0);
    ck_assert_str_eq(out, "100%");
    ck_assert_int_eq(hp_expand_path("%p.%n.%%p.%%%p", 42, 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "42.7.%p.%42");
    ck_assert_int_eq(hp_expand_path("plain", 42, 0, out, sizeof out), 0);
    ck_assert_str_eq(out, "plain");
    ck_assert_int_eq(hp_expand_path("", 42, 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "");
    /* unknown or trailing % are kept as written */
    ck_assert_int_eq(hp_expand_path("a%xb%", 42, 0, out, sizeof out), 0);
    ck_assert_str_eq(out, "a%xb%");
    /* without %n, an image after an exec gets its number before the extension, not the same file */
    ck_assert_int_eq(hp_expand_path("/tmp/r-%p.json", 42, 0, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/r-42.json");
    ck_assert_int_eq(hp_expand_path("/tmp/r-%p.json", 42, 2, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/r-42.2.json");
    ck_assert_int_eq(hp_expand_path("plain", 42, 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "plain.7");
    ck_assert_int_eq(hp_expand_path("/a.d/.hidden", 42, 1, out, sizeof out), 0);
    ck_assert_str_eq(out, "/a.d/.hidden.1");
    ck_assert_int_eq(hp_expand_path("/a.d/r", 42, 1, out, sizeof out), 0);
    ck_assert_str_eq(out, "/a.d/r.1");
    ck_assert_int_eq(hp_expand_path("r-%p.tar.gz", 42, 3, out, sizeof out), 0);
    ck_assert_str_eq(out, "r-42.tar.3.gz");
    ck_assert_int_eq(hp_expand_path("r.json", 42, 3, out, 9), 0);    /* "r.3.json" fits in 9 */
    ck_assert_str_eq(out, "r.3.json");
    ck_assert_int_eq(hp_expand_path("r.json", 42, 3, out, 8), -1);
    ck_assert_int_eq(hp_expand_path("%n", 1, 4294967295u, out, sizeof out), 0);
    ck_assert_str_eq(out, "4294967295");
}
END_TEST

START_TEST(expand_path_too_long)
{
    char out[16];
    memset(out, '#', sizeof out);
    /* "abc" needs 4 bytes with its terminator */
    ck_assert_int_eq(hp_expand_path("abc", 1, 0, out, 4), 0);
    ck_assert_str_eq(out, "abc");
    memset(out, '#', sizeof out);
    ck_assert_int_eq(hp_expand_path("abc", 1, 0, out, 3), -1);
    ck_assert_int_eq(out[3], '#');                  /* nothing written past out_size */

    /* expansion, not the pattern, is what must fit */
    memset(out, '#', sizeof out);
    ck_assert_int_eq(hp_expand_path("%p", 1234567, 0, out, 8), 0);
    ck_assert_str_eq(out, "1234567");
    memset(out, '#', sizeof out);
    ck_assert_int_eq(hp_expand_path("%p", 1234567, 0, out, 7), -1);
    ck_assert_int_eq(out[7], '#');

    static char big[5000];
    memset(big, 'p', sizeof big - 1);
    char path[HP_OUTPUT_PATH_MAX];
    ck_assert_int_eq(hp_expand_path(big, 1, 0, path, sizeof path), -1);

    /* no room at all, not even for the terminator */
    memset(out, '#', sizeof out);
    ck_assert_int_eq(hp_expand_path("", 1, 0, out, 0), -1);
    ck_assert_int_eq(out[0], '#');
}
END_TEST

/* ---- the tables themselves: what the man page check and a warning rely on ---- */

START_TEST(every_row_is_whole)
{
    const struct hp_settings_table *tables[8] = { &hp_config_settings, &hp_report_settings_table };
    unsigned n = 2;
    HP_FOR_EACH_VIEW(v) tables[n++] = v->settings;
    unsigned rows = 0;
    for (unsigned t = 0; t < n; t++)
        for (unsigned i = 0; i < tables[t]->n; i++, rows++) {
            const struct hp_setting *r = &tables[t]->rows[i];
            ck_assert_msg(strncmp(r->name, "HOTPATH_", 8) == 0, "%s", r->name);
            ck_assert_msg(r->doc && r->doc[0], "%s has no doc line", r->name);
            if (r->kind == HP_SETTING_CUSTOM) ck_assert_msg(r->parse != NULL, "%s", r->name);
            if (r->kind == HP_SETTING_UINT || r->kind == HP_SETTING_BOOL || r->kind == HP_SETTING_RATE)
                ck_assert_msg(r->expected && r->expected[0], "%s: no expected text", r->name);
            if (r->kind == HP_SETTING_UINT && r->offset != HP_SETTING_NO_VALUE)
                ck_assert_msg(r->def >= r->lo && r->def <= r->hi, "%s: default %u out of [%u, %u]",
                              r->name, r->def, r->lo, r->hi);
        }
    ck_assert_uint_ge(rows, 30);
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("good");
    tcase_add_checked_fixture(tc, reset, NULL);
    HP_ADD(tc, defaults);
    HP_ADD(tc, every_row_is_whole);
    HP_ADD(tc, unrelated_variables_ignored);
    HP_ADD(tc, interval_good);
    HP_ADD(tc, per_section_limits);
    HP_ADD(tc, common_limit_sets_every_section);
    HP_ADD(tc, section_limit_overrides_common);
    HP_ADD(tc, output_formats);
    HP_ADD(tc, output_path);
    HP_ADD(tc, output_path_length_limit);
    HP_ADD(tc, report_sections);
    HP_ADD(tc, everything_at_once);
    HP_ADD(tc, locks_settings);
    HP_ADD(tc, io_settings);
    HP_ADD(tc, live_view_settings);
    suite_add_tcase(s, tc);

    tc = tcase_create("bad");
    tcase_add_checked_fixture(tc, reset, NULL);
    tcase_add_test(tc, process_settings);
    tcase_add_test(tc, call_stack_settings);
    tcase_add_loop_test(tc, bad_value, 0, (int)(sizeof bad_values / sizeof *bad_values));
    HP_ADD(tc, bad_section_limit_falls_back_to_common);
    HP_ADD(tc, each_bad_variable_warns_once);
    HP_ADD(tc, bad_value_does_not_disturb_others);
    HP_ADD(tc, report_unknown_names_named_valid_kept);
    HP_ADD(tc, long_bad_value_one_bounded_line);
    suite_add_tcase(s, tc);

    tc = tcase_create("expand_path");
    HP_ADD(tc, expand_path);
    HP_ADD(tc, expand_path_too_long);
    HP_ADD(tc, history_and_html_settings);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(config_suite)
