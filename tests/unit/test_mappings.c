/* test_mappings.c — the anonymous region table: partial unmaps, holes, replacement, unknown ranges. */
#include "unit.h"

#include "views/threads/mappings.h"

#define K 4096u

START_TEST(add_and_remove)
{
    uint64_t base = hp_mappings_live();
    hp_mappings_add(0x10000000, 10 * K);
    ck_assert_uint_eq(hp_mappings_live() - base, 10 * K);
    ck_assert_uint_eq(hp_mappings_remove(0x10000000 + 2 * K, 3 * K), 3 * K);   /* a hole */
    ck_assert_uint_eq(hp_mappings_remove(0x10000000, 10 * K), 7 * K);          /* the rest */
    ck_assert_uint_eq(hp_mappings_live(), base);
    ck_assert_uint_eq(hp_mappings_remove(0x10000000, 10 * K), 0);              /* already gone */
}
END_TEST

START_TEST(unmap_spanning_regions_and_file_mappings)
{
    uint64_t base = hp_mappings_live();
    hp_mappings_add(0x20000000, 4 * K);
    hp_mappings_add(0x20000000 + 8 * K, 4 * K);      /* a gap (say, a file mapping) between */
    ck_assert_uint_eq(hp_mappings_remove(0x20000000 + 2 * K, 8 * K), 4 * K); /* 2 + 2 pages */
    ck_assert_uint_eq(hp_mappings_live() - base, 4 * K);
    ck_assert_uint_eq(hp_mappings_remove(0x20000000, 12 * K), 4 * K);
    ck_assert_uint_eq(hp_mappings_live(), base);
}
END_TEST

START_TEST(lengths_round_up_to_pages_and_fixed_maps_replace)
{
    uint64_t base = hp_mappings_live();
    hp_mappings_add(0x30000000, 1);
    ck_assert_uint_eq(hp_mappings_live() - base, K);
    hp_mappings_add(0x30000000, 2 * K);              /* MAP_FIXED over it: not counted twice */
    ck_assert_uint_eq(hp_mappings_live() - base, 2 * K);
    ck_assert_uint_eq(hp_mappings_remove(0x30000000, 2 * K), 2 * K);
}
END_TEST

START_TEST(many_regions)
{
    uint64_t base = hp_mappings_live();
    for (uintptr_t i = 0; i < 5000; i++) hp_mappings_add(0x40000000 + i * 2 * K, K);   /* grows the table */
    ck_assert_uint_eq(hp_mappings_live() - base, 5000 * K);
    ck_assert_uint_eq(hp_mappings_remove(0x40000000, 10000 * K), 5000 * K);
    ck_assert_uint_eq(hp_mappings_live(), base);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mappings");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, add_and_remove);
    tcase_add_test(tc, unmap_spanning_regions_and_file_mappings);
    tcase_add_test(tc, lengths_round_up_to_pages_and_fixed_maps_replace);
    tcase_add_test(tc, many_regions);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
