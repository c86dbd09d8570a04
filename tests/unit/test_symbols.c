/* test_symbols.c — collectors/symbols.h: names of static data (with offsets) and of functions
 * from the test binary's own static symbol table. */
#include <pthread.h>

#include "../../collectors/symbols.h"
#include "unit.h"

static pthread_mutex_t unit_static_locks[4];
pthread_mutex_t unit_global_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) void *unit_static_function(void)
{
    return __builtin_return_address(0);
}

START_TEST(static_and_global_data)
{
    struct hp_syms *s = hp_syms_open();
    char name[128];
    const char *module = NULL;
    ck_assert_int_eq(hp_syms_data(s, &unit_global_lock, name, sizeof name, &module), 1);
    ck_assert_str_eq(name, "unit_global_lock");
    ck_assert_ptr_nonnull(module);
    ck_assert_int_eq(hp_syms_data(s, &unit_static_locks[2], name, sizeof name, &module), 1);
    char want[64];
    snprintf(want, sizeof want, "unit_static_locks+%zu", 2 * sizeof(pthread_mutex_t));
    ck_assert_str_eq(name, want);
    int on_stack = 0;
    ck_assert_int_eq(hp_syms_data(s, &on_stack, name, sizeof name, &module), 0);
    hp_syms_close(s);
}
END_TEST

START_TEST(function_frames)
{
    struct hp_syms *s = hp_syms_open();
    char name[128];
    /* a return address inside this test function */
    hp_syms_frame(s, unit_static_function(), name, sizeof name);
    ck_assert_str_eq(name, "function_frames_fn");
    hp_syms_frame(s, (const char *)(uintptr_t)unit_static_function + 1, name, sizeof name);
    ck_assert_str_eq(name, "unit_static_function");
    hp_syms_close(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("symbols");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, static_and_global_data);
    HP_ADD(tc, function_frames);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
