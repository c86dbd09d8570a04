/* test_real_lookup.c — the real functions found without dlsym (core/real_lookup.c) are the ones
 * dlsym(RTLD_NEXT) gives, name by name: every name the hooks look up (the lists of core/hooks.h
 * and views/io/io_fns.h), and names where only dlsym can tell (IFUNCs, an old default version,
 * a variable, a name that is nowhere). */
#define _GNU_SOURCE
#include "unit.h"

#include "core/hooks.h"

#define NAME_OF_(C, field, sym, ver, how, ret, params) sym,
static const char *const listed[] = { HP_REAL_FNS(NAME_OF_, _) HP_IO_FNS(NAME_OF_, _) };
static const char *const edges[] = { "time", "gettimeofday", "pthread_cond_wait", "environ", "timer_create",
                                     "memcpy", "strlen", "no_such_function_anywhere" };

static void same_as_dlsym(const char *name)
{
    void *mine = hp_real_lookup(name, NULL), *theirs = dlsym(RTLD_NEXT, name);
    ck_assert_msg(mine == theirs, "%s: %p, dlsym %p", name, mine, theirs);
}

START_TEST(every_listed_name_resolves_as_dlsym_does)
{
    size_t decided = 0, n = sizeof listed / sizeof *listed;
    for (size_t i = 0; i < n; i++) {
        same_as_dlsym(listed[i]);
        void *fn = NULL;
        if (hp_real_lookup_scope(listed[i], &fn)) {
            decided++;
            ck_assert_msg(fn == dlsym(RTLD_NEXT, listed[i]), "%s decided as %p", listed[i], fn);
        }
    }
    /* the tables decide nearly all of them (dlsym only IFUNCs and the like): else no time is saved */
    ck_assert_msg(decided >= n * 9 / 10, "%zu of %zu decided without dlsym", decided, n);
    void *fn = NULL;
    ck_assert(hp_real_lookup_scope("malloc", &fn) && fn == dlsym(RTLD_NEXT, "malloc"));
    /* glibc's time is an IFUNC, its resolver must run (unless an interceptor comes first:
     * AddressSanitizer's own time, a plain function, under unit-asan) */
    Dl_info info;
    if (dladdr(dlsym(RTLD_NEXT, "time"), &info) && info.dli_fname &&
        (strstr(info.dli_fname, "vdso") || strstr(info.dli_fname, "/libc.so")))
        ck_assert(!hp_real_lookup_scope("time", &fn));
}
END_TEST

START_TEST(names_only_dlsym_can_decide_resolve_as_it_does)
{
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) same_as_dlsym(edges[i]);
    ck_assert_ptr_null(hp_real_lookup("no_such_function_anywhere", NULL));
}
END_TEST

START_TEST(a_version_asked_for_is_the_one_found)
{
    /* glibc's pthread_cond_wait@GLIBC_2.3.2 (the default) and @GLIBC_2.2.5 (the old one) */
    ck_assert_ptr_eq(hp_real_lookup("pthread_cond_wait", "GLIBC_2.3.2"), dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2"));
    ck_assert_ptr_eq(hp_real_lookup("pthread_cond_wait", "GLIBC_9.9"), dlsym(RTLD_NEXT, "pthread_cond_wait"));
}
END_TEST

START_TEST(errno_is_kept)
{
    errno = 1234;
    hp_real_lookup("no_such_function_anywhere", NULL);
    hp_real_lookup("malloc", NULL);
    ck_assert_int_eq(errno, 1234);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("real_lookup");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, every_listed_name_resolves_as_dlsym_does);
    HP_ADD(tc, names_only_dlsym_can_decide_resolve_as_it_does);
    HP_ADD(tc, a_version_asked_for_is_the_one_found);
    HP_ADD(tc, errno_is_kept);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
