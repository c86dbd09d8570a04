/* unit.h — shared helpers for the Check unit tests (tests/unit/test_*.c).
 *
 * Every test binary ends with HP_UNIT_MAIN(suite_fn): it sets up the profiler's own allocator the
 * way bootstrap does, runs the suite (CK_FORK and CK_VERBOSITY from the environment are honoured)
 * and exits non-zero if any test failed. Run the binaries from the repository root: fixture paths
 * are relative to it (HP_FIXTURES). */
#ifndef HP_UNIT_H
#define HP_UNIT_H

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"

#ifndef HP_FIXTURES
#define HP_FIXTURES "tests/unit/fixtures"
#endif

/* Run one suite; EXIT_SUCCESS when every test passed. hp_buf / hp_table allocate through
 * hp_alloc: the allocator is picked once, before anything allocates, as process/bootstrap.c does,
 * and settled (the heap of a process that lasts, which gives back what is freed: the tests check
 * that nothing is left in use) unless `early` (the early heap's own tests). */
static inline int hp_unit_run_heap(Suite *s, int early)
{
    hp_memory_init();
    if (!early) hp_memory_settle(dlopen);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static inline int hp_unit_run(Suite *s)
{
    return hp_unit_run_heap(s, 0);
}

#define HP_UNIT_MAIN(suite_fn) \
    int main(void) { return hp_unit_run(suite_fn()); }

/* Add a test to a case: HP_ADD(tc, test_name). */
#define HP_ADD(tc, fn) tcase_add_test((tc), fn)

/* Read a fixture file whole into a malloc'd buffer of exactly *len bytes (no terminator, so
 * ASan catches a parser reading past the length it was given). Free with free(). A missing
 * fixture fails the test. */
static inline char *hp_unit_fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", HP_FIXTURES, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open fixture %s: %s (run from the repository root)", path,
                  strerror(errno));
    size_t cap = 4096, n = 0;
    char *data = malloc(cap);
    ck_assert_ptr_nonnull(data);
    for (;;) {
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap);
            ck_assert_ptr_nonnull(data);
        }
    }
    ck_assert_msg(!ferror(f), "error reading fixture %s", path);
    fclose(f);
    char *exact = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(exact);
    memcpy(exact, data, n);
    free(data);
    *len = n;
    return exact;
}

/* A malloc'd copy of the first n bytes of s, without terminator (same purpose as above). */
static inline char *hp_unit_exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    memcpy(p, s, n);
    return p;
}

/* Leak check for the profiler's own memory (hp_alloc and friends are counted; ASan cannot see
 * mimalloc's heap): HP_MEM_MARK() at the start of a test, HP_MEM_CHECK() after freeing. */
#define HP_MEM_MARK() const uint64_t hp_unit_mem_mark = hp_memory_in_use()
#define HP_MEM_CHECK()                                                                         \
    ck_assert_msg(hp_memory_in_use() == hp_unit_mem_mark,                                     \
                  "profiler memory not freed: %llu bytes in use, %llu at start",              \
                  (unsigned long long)hp_memory_in_use(), (unsigned long long)hp_unit_mem_mark)

#endif
