/* test_stacks.c — the call-stack table (core/stacks.c): one entry per (tag, stack), weights
 * add up, `<other>` once full, and concurrent inserts of the same stacks from several threads. */
#include <pthread.h>

#include "core/memory.h"
#include "core/stacks.h"
#include "unit.h"

static uint64_t weight_of(struct hp_stacks *t, uint32_t tag, const uintptr_t *f, uint32_t n)
{
    uint64_t w = 0;
    unsigned found = 0;
    for (uint32_t i = 0; i < hp_stacks_count(t); i++) {
        struct hp_stack *s = &t->entries[i];
        if (!s->ready || s->tag != tag || s->depth != n || memcmp(s->frames, f, n * sizeof *f)) continue;
        if (atomic_load(&s->count)) found++;
        w += atomic_load(&s->count);
    }
    ck_assert_uint_le(found, 1);
    return w;
}

START_TEST(same_stack_one_entry)
{
    static struct hp_stacks t;   /* static: the memory count keeps its fill counts */
    ck_assert_int_eq(hp_stacks_init(&t, 64, 8), 0);
    uintptr_t a[] = { 0x1001, 0x2002, 0x3003 }, b[] = { 0x1001, 0x2002 };
    ck_assert_int_eq(hp_stacks_add(&t, 0, a, 3, 1), 0);
    ck_assert_int_eq(hp_stacks_add(&t, 0, a, 3, 2), 0);
    ck_assert_int_eq(hp_stacks_add(&t, 0, b, 2, 5), 0);    /* a prefix is another stack */
    ck_assert_int_eq(hp_stacks_add(&t, 1, a, 3, 7), 0);    /* another thread: another entry */
    ck_assert_uint_eq(weight_of(&t, 0, a, 3), 3);
    ck_assert_uint_eq(weight_of(&t, 0, b, 2), 5);
    ck_assert_uint_eq(weight_of(&t, 1, a, 3), 7);
    ck_assert_uint_eq(hp_stacks_count(&t), 3);
    ck_assert_uint_eq(atomic_load(&t.other), 0);
    hp_stacks_reset(&t);
    ck_assert_uint_eq(hp_stacks_count(&t), 0);
    ck_assert_uint_eq(weight_of(&t, 0, a, 3), 0);
}
END_TEST

START_TEST(full_table_goes_to_other)
{
    static struct hp_stacks t;   /* static: the memory count keeps its fill counts */
    ck_assert_int_eq(hp_stacks_init(&t, 16, 4), 0);     /* 12 entries */
    unsigned other = 0;
    for (uintptr_t i = 1; i <= 20; i++) other += (unsigned)hp_stacks_add(&t, 0, &i, 1, 1);
    ck_assert_uint_eq(other, 8);
    ck_assert_uint_eq(atomic_load(&t.other), 8);
    uintptr_t first = 1;
    ck_assert_int_eq(hp_stacks_add(&t, 0, &first, 1, 1), 0);   /* known stacks still count */
    ck_assert_uint_eq(weight_of(&t, 0, &first, 1), 2);
}
END_TEST

START_TEST(frame_store_full_goes_to_other)
{
    static struct hp_stacks t;   /* static: the memory count keeps its fill counts */
    ck_assert_int_eq(hp_stacks_init(&t, 64, 1), 0);     /* 48 entries, 48 frames in all */
    uintptr_t deep[40];
    for (int i = 0; i < 40; i++) deep[i] = (uintptr_t)i + 1;
    ck_assert_int_eq(hp_stacks_add(&t, 0, deep, 40, 1), 0);
    deep[0] = 99;
    ck_assert_int_eq(hp_stacks_add(&t, 0, deep, 40, 1), 1);
    ck_assert_uint_eq(atomic_load(&t.other), 1);
}
END_TEST

/* The profiler's memory counts a table's entries and frames as they fill, its slots as the kernel
 * has them, and none of them once a reset gave them back. */
START_TEST(memory_counts_the_filled_part)
{
    static struct hp_stacks t;
    ck_assert_int_eq(hp_stacks_init(&t, 1024, 8), 0);   /* 768 entries, 6144 frames */
    uint64_t before = hp_memory_in_use();
    uintptr_t f[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    ck_assert_int_eq(hp_stacks_add(&t, 0, f, 8, 1), 0);
    /* one page each: the slot's, the entry's, the frames' */
    ck_assert_uint_eq(hp_memory_in_use(), before + 3 * 4096);
    for (uintptr_t i = 1; i <= 600; i++) {
        f[0] = i + 100;
        ck_assert_int_eq(hp_stacks_add(&t, 0, f, 8, 1), 0);
    }
    uint64_t entries = ((601 * sizeof(struct hp_stack)) + 4095) / 4096, frames = (601 * 8 * 8 + 4095) / 4096;
    ck_assert_uint_eq(hp_memory_in_use(), before + (1 + entries + frames) * 4096);   /* 4 KB of slots */
    hp_stacks_reset(&t);
    ck_assert_uint_eq(hp_memory_in_use(), before);
}
END_TEST

static struct hp_stacks shared;

static void *adder(void *arg)
{
    (void)arg;
    for (int r = 0; r < 200; r++)
        for (uintptr_t i = 1; i <= 50; i++) {
            uintptr_t f[2] = { i, i * 7 };
            hp_stacks_add(&shared, (uint32_t)(i % 3), f, 2, 1);
        }
    return NULL;
}

START_TEST(concurrent_inserts)
{
    ck_assert_int_eq(hp_stacks_init(&shared, 1024, 4), 0);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, adder, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (uintptr_t i = 1; i <= 50; i++) {
        uintptr_t f[2] = { i, i * 7 };
        ck_assert_uint_eq(weight_of(&shared, (uint32_t)(i % 3), f, 2), 800);
    }
    ck_assert_uint_eq(atomic_load(&shared.other), 0);
}
END_TEST

static Suite *stacks_suite(void)
{
    Suite *s = suite_create("stacks");
    TCase *tc = tcase_create("stacks");
    HP_ADD(tc, same_stack_one_entry);
    HP_ADD(tc, full_table_goes_to_other);
    HP_ADD(tc, frame_store_full_goes_to_other);
    HP_ADD(tc, concurrent_inserts);
    HP_ADD(tc, memory_counts_the_filled_part);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(stacks_suite)
