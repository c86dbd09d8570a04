/* test_mappings.c — the region table: partial unmaps, holes, MAP_FIXED replacement, reservations
 * and mprotect, mremap, memory files mapped more than once. Every delta must add up to the figures. */
#include <sys/mman.h>

#include "unit.h"

#include "views/threads/mappings.h"

#define K 4096u
#define MIB (1024u * 1024u)
#define GIB (1024ull * MIB)
#define RW (PROT_READ | PROT_WRITE)

static int self_token;
#define SELF (&self_token)

/* What the calls gave one thread, as the threads view sums them. */
static int64_t sum_mapped, sum_reserved;

static void give(const struct hp_mappings_delta *d)
{
    sum_mapped += d->mapped;
    sum_reserved += d->reserved;
}

static const struct hp_mapping_src anon = { HP_MAP_ANON, 0, 0, 0 };

static void map(uintptr_t a, uint64_t len, int prot)
{
    struct hp_mappings_delta d;
    hp_mappings_map(SELF, a, len, prot, &anon, &d);
    give(&d);
}

static void map_file(uintptr_t a, uint64_t len, uint64_t ino, uint64_t off)
{
    struct hp_mapping_src f = { HP_MAP_FILE, 7, ino, off };
    struct hp_mappings_delta d;
    hp_mappings_map(SELF, a, len, RW, &f, &d);
    give(&d);
}

static void unmap(uintptr_t a, uint64_t len)
{
    struct hp_mappings_delta d;
    hp_mappings_unmap(SELF, a, len, &d);
    give(&d);
}

static void protect(uintptr_t a, uint64_t len, int prot)
{
    struct hp_mappings_delta d;
    hp_mappings_protect(SELF, a, len, prot, &d);
    give(&d);
}

static void remap(uintptr_t a, uint64_t len, uintptr_t to, uint64_t nlen)
{
    struct hp_mappings_delta d;
    hp_mappings_remap(SELF, a, len, to, nlen, 0, &d);
    give(&d);
}

static uint64_t mapped(void) { uint64_t m, r; hp_mappings_figures(&m, &r); return m; }
static uint64_t reserved(void) { uint64_t m, r; hp_mappings_figures(&m, &r); return r; }

/* the figures are what the calls gave: the rows add up to the header */
static void check_sums(void)
{
    ck_assert_uint_eq(mapped(), (uint64_t)sum_mapped);
    ck_assert_uint_eq(reserved(), (uint64_t)sum_reserved);
}

START_TEST(add_and_remove)
{
    map(0x10000000, 10 * K, RW);
    ck_assert_uint_eq(mapped(), 10 * K);
    unmap(0x10000000 + 2 * K, 3 * K);            /* a hole */
    ck_assert_uint_eq(mapped(), 7 * K);
    unmap(0x10000000, 10 * K);                   /* the rest */
    ck_assert_uint_eq(mapped(), 0);
    unmap(0x10000000, 10 * K);                   /* already gone */
    check_sums();
}
END_TEST

START_TEST(unmap_spanning_regions_and_file_mappings)
{
    map(0x20000000, 4 * K, RW);
    map(0x20000000 + 8 * K, 4 * K, RW);          /* a gap (say, a file mapping) between */
    unmap(0x20000000 + 2 * K, 8 * K);            /* 2 + 2 pages */
    ck_assert_uint_eq(mapped(), 4 * K);
    unmap(0x20000000, 12 * K);
    ck_assert_uint_eq(mapped(), 0);
    check_sums();
}
END_TEST

START_TEST(lengths_round_up_to_pages_and_fixed_maps_replace)
{
    map(0x30000000, 1, RW);
    ck_assert_uint_eq(mapped(), K);
    map(0x30000000, 2 * K, RW);                  /* MAP_FIXED over it: not counted twice */
    ck_assert_uint_eq(mapped(), 2 * K);
    struct hp_mapping_src other = { HP_MAP_UNCOUNTED, 0, 0, 0 };
    struct hp_mappings_delta d;
    hp_mappings_map(SELF, 0x30000000, K, PROT_READ, &other, &d);   /* a file mapped over a page */
    give(&d);
    ck_assert_uint_eq(mapped(), K);
    unmap(0x30000000, 2 * K);
    check_sums();
}
END_TEST

START_TEST(fixed_map_inside_a_reservation)
{
    uintptr_t base = 0x100000000;
    map(base, GIB, PROT_NONE);
    ck_assert_uint_eq(reserved(), GIB);
    ck_assert_uint_eq(mapped(), 0);
    map(base + 64 * MIB, 128 * MIB, RW);         /* MAP_FIXED inside */
    ck_assert_uint_eq(mapped(), 128 * MIB);
    ck_assert_uint_eq(reserved(), GIB - 128 * MIB);
    check_sums();
    unmap(base, GIB);
    ck_assert_uint_eq(mapped(), 0);
    ck_assert_uint_eq(reserved(), 0);
    check_sums();
}
END_TEST

START_TEST(commit_by_mprotect_and_fixed)
{
    uintptr_t base = 0x200000000;
    map(base, 8 * GIB, PROT_NONE);
    protect(base, 64 * MIB, RW);
    map(base + GIB, 32 * MIB, RW);
    ck_assert_uint_eq(mapped(), 96 * MIB);
    ck_assert_uint_eq(reserved(), 8 * GIB - 96 * MIB);
    protect(base + 32 * MIB, 64 * MIB, PROT_NONE);   /* half back, and 32 MiB of reservation again */
    ck_assert_uint_eq(mapped(), 64 * MIB);
    protect(0x1000, 4 * K, RW);                  /* nothing we know: not counted */
    ck_assert_uint_eq(mapped(), 64 * MIB);
    check_sums();
    unmap(base, 8 * GIB);
    ck_assert_uint_eq(mapped(), 0);
    ck_assert_uint_eq(reserved(), 0);
    check_sums();
}
END_TEST

START_TEST(remap_grows_shrinks_and_moves)
{
    map(0x50000000, 10 * MIB, RW);
    unmap(0x50000000 + 6 * MIB, 4 * MIB);
    remap(0x50000000, 6 * MIB, 0x50000000, 8 * MIB);     /* in place */
    ck_assert_uint_eq(mapped(), 8 * MIB);
    remap(0x50000000, 8 * MIB, 0x60000000, 2 * MIB);     /* moved and shrunk */
    ck_assert_uint_eq(mapped(), 2 * MIB);
    unmap(0x50000000, 8 * MIB);
    ck_assert_uint_eq(mapped(), 2 * MIB);
    remap(0x60000000, 2 * MIB, 0x70000000, 4 * MIB);     /* moved and grown */
    ck_assert_uint_eq(mapped(), 4 * MIB);
    unmap(0x70000000, 4 * MIB);
    ck_assert_uint_eq(mapped(), 0);
    check_sums();
}
END_TEST

START_TEST(memory_file_mapped_twice_counts_once)
{
    map_file(0x80000000, 16 * MIB, 42, 0);
    map_file(0x90000000, 16 * MIB, 42, 0);       /* the same memfd again */
    ck_assert_uint_eq(mapped(), 16 * MIB);
    map_file(0xa0000000, 16 * MIB, 42, 8 * MIB); /* half of it a third time, half beyond */
    ck_assert_uint_eq(mapped(), 24 * MIB);
    map_file(0xb0000000, 4 * MIB, 43, 0);        /* another file */
    ck_assert_uint_eq(mapped(), 28 * MIB);
    unmap(0x80000000, 16 * MIB);
    ck_assert_uint_eq(mapped(), 28 * MIB);
    protect(0x90000000, 8 * MIB, PROT_NONE);     /* [0, 8 MiB) now in no accessible view */
    ck_assert_uint_eq(mapped(), 20 * MIB);
    ck_assert_uint_eq(reserved(), 8 * MIB);
    remap(0xa0000000, 16 * MIB, 0xc0000000, 16 * MIB);   /* moved: still the same bytes */
    ck_assert_uint_eq(mapped(), 20 * MIB);
    unmap(0x90000000, 16 * MIB);
    unmap(0xc0000000, 16 * MIB);
    unmap(0xb0000000, 4 * MIB);
    ck_assert_uint_eq(mapped(), 0);
    ck_assert_uint_eq(reserved(), 0);
    check_sums();
}
END_TEST

START_TEST(reentry_is_left_out)
{
    /* another token while nobody holds the lock is an ordinary call */
    static int other;
    struct hp_mappings_delta d;
    hp_mappings_map(&other, 0xd0000000, K, RW, &anon, &d);
    ck_assert_int_eq(d.mapped, K);
    hp_mappings_unmap(&other, 0xd0000000, K, &d);
    ck_assert_int_eq(d.mapped, -(int64_t)K);
}
END_TEST

START_TEST(many_regions)
{
    for (uintptr_t i = 0; i < 5000; i++) map(0x40000000 + i * 2 * K, K, RW);   /* grows the table */
    ck_assert_uint_eq(mapped(), 5000 * K);
    for (uintptr_t i = 0; i < 5000; i += 2) protect(0x40000000 + i * 2 * K, K, PROT_NONE);
    ck_assert_uint_eq(mapped(), 2500 * K);
    ck_assert_uint_eq(reserved(), 2500 * K);
    unmap(0x40000000, 10000 * K);
    ck_assert_uint_eq(mapped(), 0);
    ck_assert_uint_eq(reserved(), 0);
    check_sums();
}
END_TEST

START_TEST(adjacent_commits_merge)
{
    uintptr_t base = 0x300000000;
    map(base, GIB, PROT_NONE);
    for (unsigned i = 0; i < 1000; i++) protect(base + i * 64 * K, 64 * K, RW);
    ck_assert_uint_eq(mapped(), 1000 * 64 * K);
    unmap(base, GIB);
    check_sums();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mappings");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, add_and_remove);
    tcase_add_test(tc, unmap_spanning_regions_and_file_mappings);
    tcase_add_test(tc, lengths_round_up_to_pages_and_fixed_maps_replace);
    tcase_add_test(tc, fixed_map_inside_a_reservation);
    tcase_add_test(tc, commit_by_mprotect_and_fixed);
    tcase_add_test(tc, remap_grows_shrinks_and_moves);
    tcase_add_test(tc, memory_file_mapped_twice_counts_once);
    tcase_add_test(tc, reentry_is_left_out);
    tcase_add_test(tc, many_regions);
    tcase_add_test(tc, adjacent_commits_merge);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
