/* test_title.c — the process title from /proc/self/cmdline's bytes: the exec-time argv, an argv
 * rewritten in place (PostgreSQL, nginx), a truncated read. */
#include "unit.h"

#include <string.h>

#include "report/buf.h"
#include "report/title.h"

static char *argv2[] = { "/usr/lib/postgresql/15/bin/postgres", "-D", "/var/lib/pg" };

static int title(const char *raw, size_t n, int truncated, char *out, size_t size)
{
    struct hp_buf b = { 0 };
    int differs = hp_title_of(raw, n, truncated, argv2, 3, &b);
    snprintf(out, size, "%s", b.data ? b.data : "");
    hp_buf_free(&b);
    return differs;
}

START_TEST(unchanged_argv_is_the_joined_argv)
{
    static const char raw[] = "/usr/lib/postgresql/15/bin/postgres\0-D\0/var/lib/pg";
    char out[256];
    ck_assert_int_eq(title(raw, sizeof raw, 0, out, sizeof out), 0);
    ck_assert_str_eq(out, "/usr/lib/postgresql/15/bin/postgres -D /var/lib/pg");
    ck_assert_int_eq(title(raw, 10, 1, out, sizeof out), 0);      /* a prefix of it, truncated */
}
END_TEST

START_TEST(rewritten_title_drops_its_padding)
{
    static const char raw[] = "postgres: checkpointer\0\0\0\0\0\0\0\0";
    char out[256];
    ck_assert_int_eq(title(raw, sizeof raw, 0, out, sizeof out), 1);
    ck_assert_str_eq(out, "postgres: checkpointer");
    static const char kept[] = "worker: idle\0\0\0-D\0/var/lib/pg";   /* argv[0] overwritten only */
    ck_assert_int_eq(title(kept, sizeof kept, 0, out, sizeof out), 1);
    ck_assert_str_eq(out, "worker: idle -D /var/lib/pg");
    ck_assert_int_eq(title("\0\0x", 3, 0, out, sizeof out), 1);   /* leading NULs */
    ck_assert_str_eq(out, "x");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("title");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, unchanged_argv_is_the_joined_argv);
    tcase_add_test(tc, rewritten_title_drops_its_padding);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
