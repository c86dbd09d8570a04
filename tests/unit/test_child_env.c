/* test_child_env.c — the environment children get: LD_PRELOAD put back first or taken out, the
 * user's HOTPATH_* settings carried over, the image number set or dropped. */
#include "unit.h"

#include "core/child_env.h"

static const char *get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (; env && *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
    return NULL;
}

static size_t count(char **env)
{
    size_t n = 0;
    while (env[n]) n++;
    return n;
}

/* hp_child_env into arrays of the size it asks for (kept until the next call) */
static char **make_env(char *const envp[], char *const settings_[], const char *lib, int profile, long image)
{
    static char **env;
    static char *buf;
    size_t slots, bytes;
    hp_child_env_need(envp, settings_, lib, &slots, &bytes);
    free(env);
    free(buf);
    env = malloc(slots * sizeof *env);
    buf = malloc(bytes);
    ck_assert_ptr_nonnull(env);
    ck_assert_ptr_nonnull(buf);
    memset(buf, 0x5a, bytes);       /* exact sizes: under ASan a write past them fails the test */
    hp_child_env(env, buf, envp, settings_, lib, profile, image);
    ck_assert_uint_le(count(env) + 1, slots);
    return env;
}

static char *const settings[] = { "HOTPATH_OUTPUT_FORMAT=json", "HOTPATH_LIMIT=3", NULL };
#define LIB "/opt/hp/lib/libhotpath.so"

START_TEST(puts_the_library_back_first)
{
    char *const envp[] = { "PATH=/bin", "LD_PRELOAD=libfoo.so bar.so", NULL };
    char **env = make_env(envp, settings, LIB, 1, 2);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), LIB ":libfoo.so:bar.so");
    ck_assert_str_eq(get(env, "PATH"), "/bin");
    ck_assert_str_eq(get(env, "HOTPATH_OUTPUT_FORMAT"), "json");
    ck_assert_str_eq(get(env, "HOTPATH_LIMIT"), "3");
    ck_assert_str_eq(get(env, HP_IMAGE_VAR), "2");
    ck_assert_uint_eq(count(env), 5);
}
END_TEST

START_TEST(keeps_one_copy_and_the_programs_own_settings)
{
    char *const envp[] = { "LD_PRELOAD=/elsewhere/libhotpath.so:x.so", "HOTPATH_LIMIT=9",
                           HP_IMAGE_VAR "=7", NULL };
    char **env = make_env(envp, settings, LIB, 1, -1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), LIB ":x.so");
    ck_assert_str_eq(get(env, "HOTPATH_LIMIT"), "9");          /* the explicit value wins */
    ck_assert_ptr_null(get(env, HP_IMAGE_VAR));                /* a new process: image 0 */
}
END_TEST

START_TEST(no_children_takes_the_library_out)
{
    char *const envp[] = { "LD_PRELOAD=" LIB, "HOME=/root", NULL };
    char **env = make_env(envp, settings, LIB, 0, 3);
    ck_assert_ptr_null(get(env, "LD_PRELOAD"));                /* nothing left: variable gone */
    ck_assert_ptr_null(get(env, HP_IMAGE_VAR));                /* nor an image number for it */
    ck_assert_ptr_null(get(env, "HOTPATH_OUTPUT_FORMAT"));     /* settings not added either */
    ck_assert_str_eq(get(env, "HOME"), "/root");
    char *const envp2[] = { "LD_PRELOAD=a.so:" LIB " b.so", NULL };
    env = make_env(envp2, NULL, LIB, 0, -1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), "a.so:b.so");
    /* a copy of the library under another name is known by its path */
    char *const envp3[] = { "LD_PRELOAD=/tmp/copy/lib.so:a.so", NULL };
    env = make_env(envp3, NULL, "/tmp/copy/lib.so", 0, -1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), "a.so");
    env = make_env(envp3, NULL, "/tmp/copy/lib.so", 1, -1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), "/tmp/copy/lib.so:a.so");   /* not twice */
}
END_TEST

START_TEST(the_last_ld_preload_counts_as_for_the_loader)
{
    char *const envp[] = { "LD_PRELOAD=first.so", "X=1", "LD_PRELOAD=second.so", NULL };
    char **env = make_env(envp, NULL, LIB, 1, -1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), LIB ":second.so");
    ck_assert_uint_eq(count(env), 2);                          /* X and the one LD_PRELOAD */
}
END_TEST

START_TEST(empty_environment)
{
    char **env = make_env(NULL, NULL, LIB, 1, 1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), LIB);
    ck_assert_str_eq(get(env, HP_IMAGE_VAR), "1");
    ck_assert_uint_eq(count(env), 2);
    /* a name that merely ends like ours is not ours */
    char *const envp[] = { "LD_PRELOAD=/x/notlibhotpath.so", NULL };
    env = make_env(envp, NULL, LIB, 0, -1);
    ck_assert_str_eq(get(env, "LD_PRELOAD"), "/x/notlibhotpath.so");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("child_env");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, puts_the_library_back_first);
    tcase_add_test(tc, keeps_one_copy_and_the_programs_own_settings);
    tcase_add_test(tc, no_children_takes_the_library_out);
    tcase_add_test(tc, the_last_ld_preload_counts_as_for_the_loader);
    tcase_add_test(tc, empty_environment);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
