/* test_procfs.c — core/procfs.h against /proc files captured as fixtures
 * (tests/unit/fixtures/task_stat_*, status). Buffers handed to the parsers are exactly
 * `len` bytes with no terminator, so ASan reports any read past the length. */
#include "core/procfs.h"
#include "unit.h"

/* ---- /proc/PID/task/TID/stat ---- */

static const struct stat_case {
    const char *fixture, *comm;
    char state;
    uint64_t utime, stime;
} stat_cases[] = {
    { "task_stat_bash", "bash", 'S', 6, 10 },
    { "task_stat_running", "python3", 'R', 973, 41 },
    /* a name with spaces and parentheses: the comm ends at the LAST ')' */
    { "task_stat_weird", "my (weird) name", 'S', 1234, 567 },
    { "task_stat_abc", "a) b (c", 'D', 42, 7 },
    { "task_stat_zombie", "worker-3", 'Z', 300, 200 },
    { "task_stat_traced", "io-worker", 't', 15, 3 },
    /* the kernel shows kworker names longer than 15 bytes: kept to what comm[16] holds */
    { "task_stat_kworker", "kworker/1:1-eve", 'I', 0, 58 },
};

START_TEST(task_stat_fixture)
{
    const struct stat_case *c = &stat_cases[_i];
    size_t len;
    char *buf = hp_unit_fixture(c->fixture, &len);
    struct hp_task_stat st;
    memset(&st, 0x5A, sizeof st);
    ck_assert_msg(hp_parse_task_stat(buf, len, &st) == 0, "%s did not parse", c->fixture);
    ck_assert_str_eq(st.comm, c->comm);
    ck_assert_int_eq(st.state, c->state);
    ck_assert_uint_eq(st.utime_ticks, c->utime);
    ck_assert_uint_eq(st.stime_ticks, c->stime);
    free(buf);
}
END_TEST

START_TEST(task_stat_without_newline)
{
    size_t len;
    char *buf = hp_unit_fixture("task_stat_weird", &len);
    ck_assert_int_eq(buf[len - 1], '\n');
    struct hp_task_stat st;
    ck_assert_int_eq(hp_parse_task_stat(buf, len - 1, &st), 0);
    ck_assert_str_eq(st.comm, "my (weird) name");
    ck_assert_uint_eq(st.utime_ticks, 1234);
    ck_assert_uint_eq(st.stime_ticks, 567);
    free(buf);
}
END_TEST

START_TEST(task_stat_64bit_ticks)
{
    static const char line[] = "9 (big) R 1 1 1 0 -1 0 0 0 0 0 "
                               "18446744073709551615 4294967296 0 0 20 0 1 0 5\n";
    char *buf = hp_unit_exact(line, sizeof line - 1);
    struct hp_task_stat st;
    ck_assert_int_eq(hp_parse_task_stat(buf, sizeof line - 1, &st), 0);
    ck_assert_uint_eq(st.utime_ticks, UINT64_MAX);
    ck_assert_uint_eq(st.stime_ticks, 4294967296ULL);
    free(buf);
}
END_TEST

START_TEST(task_stat_comm_edge_cases)
{
    static const struct { const char *line, *comm; } cases[] = {
        { "7 () S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "" },
        { "7 ()) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", ")" },
        { "7 (() S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "(" },
        { "7 (x y z) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "x y z" },
        { "7 (R 1 2 3) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "R 1 2 3" },
        { "7 (exactly-15chars) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "exactly-15chars" },
        { "7 (sixteen-chars-xy) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "sixteen-chars-x" },
        { "7 (abcdefghijklmnopqrstuvwxyz) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "abcdefghijklmno" },
        { "7 (caf\xC3\xA9) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0\n", "caf\xC3\xA9" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len = strlen(cases[i].line);
        char *buf = hp_unit_exact(cases[i].line, len);
        struct hp_task_stat st;
        memset(&st, 0x5A, sizeof st);
        ck_assert_msg(hp_parse_task_stat(buf, len, &st) == 0, "case %u did not parse", i);
        ck_assert_str_eq(st.comm, cases[i].comm);
        ck_assert_uint_lt(strlen(st.comm), sizeof st.comm);
        ck_assert_int_eq(st.state, 'S');
        ck_assert_uint_eq(st.utime_ticks, 11);
        ck_assert_uint_eq(st.stime_ticks, 22);
        free(buf);
    }
}
END_TEST

START_TEST(task_stat_truncated_fixture)
{
    size_t len;
    char *buf = hp_unit_fixture("task_stat_truncated", &len);
    struct hp_task_stat st;
    ck_assert_int_eq(hp_parse_task_stat(buf, len, &st), -1);
    free(buf);
}
END_TEST

START_TEST(task_stat_garbage_fixture)
{
    size_t len;
    char *buf = hp_unit_fixture("task_stat_garbage", &len);
    struct hp_task_stat st;
    ck_assert_int_eq(hp_parse_task_stat(buf, len, &st), -1);
    free(buf);
}
END_TEST

/* Every prefix of a real line that stops before the first digit of stime (field 15) fails;
 * the parser never reads past the length it was given. */
START_TEST(task_stat_every_truncation)
{
    size_t len;
    char *full = hp_unit_fixture("task_stat_weird", &len);
    /* "... 0 0 1234 567 18 ...": stime starts after "1234 " */
    const char *ut = NULL;
    for (size_t i = 0; i + 10 <= len; i++)
        if (memcmp(full + i, " 1234 567 ", 10) == 0) { ut = full + i; break; }
    ck_assert_ptr_nonnull(ut);
    size_t stime_at = (size_t)(ut - full) + 6;
    ck_assert_int_eq(full[stime_at], '5');
    for (size_t n = 0; n <= stime_at; n++) {
        char *buf = hp_unit_exact(full, n);
        struct hp_task_stat st;
        ck_assert_msg(hp_parse_task_stat(buf, n, &st) == -1, "prefix of %zu bytes parsed", n);
        free(buf);
    }
    for (size_t n = stime_at + 3; n <= len; n++) {
        char *buf = hp_unit_exact(full, n);
        struct hp_task_stat st;
        ck_assert_msg(hp_parse_task_stat(buf, n, &st) == 0, "prefix of %zu bytes failed", n);
        ck_assert_uint_eq(st.utime_ticks, 1234);
        ck_assert_uint_eq(st.stime_ticks, 567);
        free(buf);
    }
    free(full);
}
END_TEST

START_TEST(task_stat_garbage)
{
    static const char *const bad[] = {
        "",
        "\n",
        "garbage",
        "1234",
        "1234 (noclose S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0",
        "1234 noopen) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0",
        ") 1234 ( S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0",        /* ')' before '(' */
        "1234 (x)",                                         /* nothing after the comm */
        "1234 (x) ",                                        /* no state */
        "1234 (x)S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0",         /* no space after ')' */
        "1234 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 22 0 0",        /* utime not a number */
        "1234 (x) S 1 1 1 0 -1 0 0 0 0 0 11 -22 0 0",       /* stime not a number */
        "1234 (x) S 1 1 1 0 -1 0 0 0 0 0 11",               /* stops after utime */
        "1234 (x) S 1 1 1 0 -1 0 0 0 0 0 11 ",
        "1234 (x) S 1 1 1",
        "\x01\x02\xff\xfe(\x80)",
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t len = strlen(bad[i]);
        char *buf = hp_unit_exact(bad[i], len);
        struct hp_task_stat st;
        ck_assert_msg(hp_parse_task_stat(buf, len, &st) == -1, "garbage case %u parsed", i);
        free(buf);
    }
}
END_TEST

/* ---- status ---- */

START_TEST(status_fixture)
{
    static const struct { const char *field; uint64_t kb; } cases[] = {
        { "VmHWM", 18764 }, { "VmRSS", 17200 }, { "VmPeak", 98312 }, { "VmSize", 92416 },
        { "VmSwap", 0 }, { "RssAnon", 9840 }, { "VmExe", 24 }, { "Threads", 9 },
    };
    size_t len;
    char *buf = hp_unit_fixture("status", &len);
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t kb = 12345678;
        ck_assert_msg(hp_parse_status_kb(buf, len, cases[i].field, &kb) == 0, "%s not found",
                      cases[i].field);
        ck_assert_msg(kb == cases[i].kb, "%s = %llu, want %llu", cases[i].field,
                      (unsigned long long)kb, (unsigned long long)cases[i].kb);
    }
    free(buf);
}
END_TEST

START_TEST(status_missing_or_bad)
{
    size_t len;
    char *buf = hp_unit_fixture("status", &len);
    uint64_t kb;
    ck_assert_int_eq(hp_parse_status_kb(buf, len, "VmNope", &kb), -1);
    ck_assert_int_eq(hp_parse_status_kb(buf, len, "VmHW", &kb), -1);     /* a prefix only */
    ck_assert_int_eq(hp_parse_status_kb(buf, len, "mHWM", &kb), -1);     /* not at line start */
    ck_assert_int_eq(hp_parse_status_kb(buf, len, "Name", &kb), -1);     /* not a number */
    ck_assert_int_eq(hp_parse_status_kb(buf, 0, "VmHWM", &kb), -1);
    free(buf);

    static const char *const bad[] = {
        "VmHWM:\n",
        "VmHWM:",
        "VmHWM:\t   kB\n",
        "VmHWM:\t  -5 kB\n",
        "VmHWM \t  5 kB\n",
        "XVmHWM:\t 5 kB\n",
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = strlen(bad[i]);
        char *b = hp_unit_exact(bad[i], n);
        ck_assert_msg(hp_parse_status_kb(b, n, "VmHWM", &kb) == -1, "status case %u parsed", i);
        free(b);
    }
}
END_TEST

START_TEST(status_last_line_without_newline)
{
    static const char text[] = "Name:\tdemo\nVmRSS:\t 100 kB\nVmHWM:\t  2140";
    size_t n = sizeof text - 1;
    char *b = hp_unit_exact(text, n);
    uint64_t kb = 0;
    ck_assert_int_eq(hp_parse_status_kb(b, n, "VmHWM", &kb), 0);
    ck_assert_uint_eq(kb, 2140);
    /* cut inside the number: what is there is read, nothing beyond */
    ck_assert_int_eq(hp_parse_status_kb(b, n - 2, "VmHWM", &kb), 0);
    ck_assert_uint_eq(kb, 21);
    /* cut before the number */
    ck_assert_int_eq(hp_parse_status_kb(b, n - 4, "VmHWM", &kb), -1);
    free(b);
}
END_TEST

/* ---- schedstat ---- */

START_TEST(schedstat_first_figure)
{
    static const char text[] = "1006066202 238666 7\n";
    size_t n = sizeof text - 1;
    char *b = hp_unit_exact(text, n);
    uint64_t ns = 0;
    ck_assert_int_eq(hp_parse_schedstat_ns(b, n, &ns), 0);
    ck_assert_uint_eq(ns, 1006066202);
    ck_assert_int_eq(hp_parse_schedstat_ns(b, 4, &ns), 0);     /* cut: what is there */
    ck_assert_uint_eq(ns, 1006);
    ck_assert_int_eq(hp_parse_schedstat_ns(b, 0, &ns), -1);
    free(b);
    b = hp_unit_exact(" 5 6 7\n", 7);
    ck_assert_int_eq(hp_parse_schedstat_ns(b, 7, &ns), -1);     /* not a number first */
    free(b);
}
END_TEST

/* ---- state names ---- */

START_TEST(state_names)
{
    ck_assert_str_eq(hp_state_name('R'), "Running");
    ck_assert_str_eq(hp_state_name('S'), "Sleeping");
    ck_assert_str_eq(hp_state_name('D'), "Blocked");
    ck_assert_str_eq(hp_state_name('T'), "Stopped");
    ck_assert_str_eq(hp_state_name('t'), "Stopped");
    ck_assert_str_eq(hp_state_name('Z'), "Zombie");
    ck_assert_str_eq(hp_state_name('I'), "Idle");
    ck_assert_str_eq(hp_state_name('X'), "Dead");
    ck_assert_str_eq(hp_state_name('P'), "Parked");
    ck_assert_str_eq(hp_state_name('?'), "Unknown");
    ck_assert_str_eq(hp_state_name(0), "Unknown");
    ck_assert_str_eq(hp_state_name('r'), "Unknown");
    ck_assert_str_eq(hp_state_name('s'), "Unknown");
}
END_TEST

START_TEST(state_from_fixture_to_name)
{
    static const struct { const char *fixture, *name; } cases[] = {
        { "task_stat_running", "Running" }, { "task_stat_bash", "Sleeping" },
        { "task_stat_abc", "Blocked" },     { "task_stat_traced", "Stopped" },
        { "task_stat_zombie", "Zombie" },   { "task_stat_kworker", "Idle" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len;
        char *buf = hp_unit_fixture(cases[i].fixture, &len);
        struct hp_task_stat st;
        ck_assert_int_eq(hp_parse_task_stat(buf, len, &st), 0);
        ck_assert_str_eq(hp_state_name(st.state), cases[i].name);
        free(buf);
    }
}
END_TEST

static Suite *procfs_suite(void)
{
    Suite *s = suite_create("procfs");
    TCase *tc = tcase_create("task_stat");
    tcase_add_loop_test(tc, task_stat_fixture, 0, (int)(sizeof stat_cases / sizeof *stat_cases));
    HP_ADD(tc, task_stat_without_newline);
    HP_ADD(tc, task_stat_64bit_ticks);
    HP_ADD(tc, task_stat_comm_edge_cases);
    HP_ADD(tc, task_stat_truncated_fixture);
    HP_ADD(tc, task_stat_garbage_fixture);
    HP_ADD(tc, task_stat_every_truncation);
    HP_ADD(tc, task_stat_garbage);
    suite_add_tcase(s, tc);

    tc = tcase_create("status");
    HP_ADD(tc, status_fixture);
    HP_ADD(tc, status_missing_or_bad);
    HP_ADD(tc, status_last_line_without_newline);
    HP_ADD(tc, schedstat_first_figure);
    suite_add_tcase(s, tc);

    tc = tcase_create("state");
    HP_ADD(tc, state_names);
    HP_ADD(tc, state_from_fixture_to_name);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(procfs_suite)
