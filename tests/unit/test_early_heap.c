/* test_early_heap.c — the profiler's heap before its sampler starts (core/memory_linux.c): blocks
 * cut in order, zeroed, aligned, growing in place when last, moving when not, big ones in chunks
 * of their own, counted whole; and after hp_memory_settle, early blocks still realloc and free
 * while new ones come from the heap that lasts; a fork child's early blocks. Each test runs in a fork of the suite's process
 * (Check's default), so each starts from an unsettled heap. */
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/memory_heap.h"

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

START_TEST(blocks_are_zeroed_aligned_and_apart)
{
    unsigned char *a = hp_alloc(100), *b = hp_alloc(3000), *c = hp_alloc(1);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert(all_zero(a, 100) && all_zero(b, 3000) && all_zero(c, 1));
    ck_assert_uint_eq((uintptr_t)a % 16, 0);
    ck_assert_uint_eq((uintptr_t)b % 16, 0);
    ck_assert_uint_eq((uintptr_t)c % 16, 0);
    ck_assert(b >= a + 100 && c >= b + 3000);
    memset(a, 0xAA, 100);
    memset(b, 0xBB, 3000);
    ck_assert_uint_eq(c[0], 0);
}
END_TEST

START_TEST(the_last_block_grows_in_place_and_others_move_whole)
{
    char *a = hp_alloc(64);
    memset(a, 'a', 64);
    char *grown = hp_realloc(a, 5000);
    ck_assert_ptr_eq(grown, a);                 /* the chunk's last block */
    ck_assert_mem_eq(grown, "aaaaaaaa", 8);
    ck_assert(all_zero((unsigned char *)grown + 64, 5000 - 64));
    char *b = hp_alloc(16);
    memset(grown, 'g', 5000);
    char *moved = hp_realloc(grown, 9000);      /* no longer last: it moves */
    ck_assert_ptr_ne(moved, grown);
    for (int i = 0; i < 5000; i++) ck_assert_int_eq(moved[i], 'g');
    ck_assert(all_zero((unsigned char *)moved + 5000, 4000));
    ck_assert(all_zero((unsigned char *)b, 16));
    /* shrunk in place, then grown again: the bytes it gave up read as zero */
    char *c = hp_alloc(256);
    memset(c, 'c', 256);
    ck_assert_ptr_eq(hp_realloc(c, 32), c);
    ck_assert_ptr_eq(hp_realloc(c, 256), c);
    ck_assert(all_zero((unsigned char *)c + 32, 224));
}
END_TEST

START_TEST(big_blocks_and_a_full_chunk)
{
    size_t big = 3u << 20;
    unsigned char *p = hp_alloc(big);
    ck_assert_ptr_nonnull(p);
    ck_assert(all_zero(p, big));
    memset(p, 1, big);
    /* past one chunk of small blocks: a second chunk serves */
    unsigned char *last = NULL;
    for (int i = 0; i < 600; i++) {
        last = hp_alloc(4000);
        ck_assert_ptr_nonnull(last);
        ck_assert(all_zero(last, 4000));
        memset(last, 2, 4000);
    }
    ck_assert_uint_ge(hp_memory_in_use(), big + 600u * 4000);
}
END_TEST

START_TEST(freed_blocks_stay_counted_until_the_heap_settles)
{
    uint64_t before = hp_memory_in_use();
    void *p = hp_alloc(10000);
    uint64_t with = hp_memory_in_use();
    ck_assert_uint_ge(with, before + 10000);
    hp_free(p);                                  /* nothing goes back */
    ck_assert_uint_eq(hp_memory_in_use(), with);
    hp_memory_settle(dlopen);
    void *q = hp_alloc(10000);                   /* the heap that lasts: counted, given back */
    uint64_t settled = hp_memory_in_use();
    ck_assert_uint_ge(settled, with + 10000);
    hp_free(q);
    ck_assert_uint_lt(hp_memory_in_use(), settled);
}
END_TEST

START_TEST(early_blocks_live_on_after_the_heap_settles)
{
    char *a = hp_alloc(100);
    memset(a, 'x', 100);
    hp_memory_settle(dlopen);
    char *b = hp_realloc(a, 200000);             /* moves to the heap that lasts */
    ck_assert_ptr_nonnull(b);
    for (int i = 0; i < 100; i++) ck_assert_int_eq(b[i], 'x');
    hp_free(b);
    char *c = hp_alloc(100);
    hp_free(c);
    hp_free(hp_alloc(50));
}
END_TEST

/* A fork child of a process whose heap settled cuts early blocks again (mimalloc would make a heap
 * and a page per size class on the child's thread), moves a late block it grows to the early heap,
 * and goes back to the late heap, not a new one, when it settles itself. */
START_TEST(a_fork_child_cuts_early_blocks_until_it_settles)
{
    hp_memory_settle(dlopen);
    char *late = hp_alloc(5000);
    memset(late, 'L', 5000);
    size_t early = hp_heap_early_bytes();
    ck_assert_ptr_nonnull(late);
    hp_memory_restart_in_child();
    char *a = hp_alloc(3000);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_ge(hp_heap_early_bytes(), early + 3000);
    early = hp_heap_early_bytes();
    char *moved = hp_realloc(late, 8000);
    ck_assert_ptr_nonnull(moved);
    ck_assert_uint_ge(hp_heap_early_bytes(), early + 8000);
    for (int i = 0; i < 5000; i++) ck_assert_int_eq(moved[i], 'L');
    ck_assert(all_zero((unsigned char *)moved + 5000, 3000));
    hp_free(moved);
    hp_free(a);
    const void *code = hp_memory_code();
    hp_memory_settle(dlopen);
    ck_assert_ptr_eq(hp_memory_code(), code);
    early = hp_heap_early_bytes();
    hp_free(hp_alloc(4000));
    ck_assert_uint_eq(hp_heap_early_bytes(), early);
}
END_TEST

/* Page-backed regions count what is resident of them, side by side or apart (adjacent ones are
 * read as one span). */
START_TEST(page_regions_count_their_touched_pages)
{
    enum { PAGE_BYTES = 4096 };
    char *a = hp_pages(16 * PAGE_BYTES), *b = hp_pages(5 * PAGE_BYTES + 100), *c = hp_pages(16 * PAGE_BYTES);
    ck_assert(a && b && c);
    /* cut in order from one reservation, each rounded up to whole pages */
    ck_assert_ptr_eq(b, a + 16 * PAGE_BYTES);
    ck_assert_ptr_eq(c, b + 6 * PAGE_BYTES);
    uint64_t before = hp_memory_in_use();
    a[0] = 1;
    b[5 * PAGE_BYTES + 50] = 1;                  /* the page past its whole ones */
    c[15 * PAGE_BYTES] = 1;
    c[3 * PAGE_BYTES] = 1;
    ck_assert_uint_eq(hp_memory_in_use(), before + 4 * PAGE_BYTES);
    hp_pages_zero(c, 16 * PAGE_BYTES);
    ck_assert_uint_eq(hp_memory_in_use(), before + 2 * PAGE_BYTES);
}
END_TEST

/* A table filled from its start counts its filled pages, never the kernel's view of it, and its
 * neighbours are still read from the kernel on either side of it. */
START_TEST(filled_regions_count_their_filled_pages)
{
    enum { PAGE_BYTES = 4096 };
    static _Atomic uint64_t filled;      /* static: the count outlives the test, as the region does */
    char *a = hp_pages(4 * PAGE_BYTES);
    char *f = hp_pages_filled(16 * PAGE_BYTES, &filled, 100);
    char *c = hp_pages(4 * PAGE_BYTES);
    ck_assert(a && f && c);
    uint64_t before = hp_memory_in_use();
    f[15 * PAGE_BYTES] = 1;              /* written past its count: not counted */
    ck_assert_uint_eq(hp_memory_in_use(), before);
    atomic_store(&filled, 41);           /* 4100 bytes: two pages */
    ck_assert_uint_eq(hp_memory_in_use(), before + 2 * PAGE_BYTES);
    a[0] = 1;
    c[3 * PAGE_BYTES] = 1;
    ck_assert_uint_eq(hp_memory_in_use(), before + 4 * PAGE_BYTES);
    atomic_store(&filled, 1000000000);   /* a claim past the end counts the region whole */
    ck_assert_uint_eq(hp_memory_in_use(), before + 18 * PAGE_BYTES);
    atomic_store(&filled, 0);
    ck_assert_uint_eq(hp_memory_in_use(), before + 2 * PAGE_BYTES);
}
END_TEST

static void *cut_many(void *arg)
{
    uintptr_t tag = (uintptr_t)arg;
    for (int i = 0; i < 20000; i++) {
        uintptr_t *p = hp_alloc(48);
        if (!p) return (void *)1;
        for (int k = 0; k < 6; k++) {
            if (p[k]) return (void *)2;          /* another thread's block overlaps */
            p[k] = tag;
        }
    }
    return NULL;
}

START_TEST(threads_cut_blocks_that_never_overlap)
{
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++) pthread_create(&t[i], NULL, cut_many, (void *)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        ck_assert_ptr_null(r);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("early_heap");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, blocks_are_zeroed_aligned_and_apart);
    HP_ADD(tc, the_last_block_grows_in_place_and_others_move_whole);
    HP_ADD(tc, big_blocks_and_a_full_chunk);
    HP_ADD(tc, freed_blocks_stay_counted_until_the_heap_settles);
    HP_ADD(tc, early_blocks_live_on_after_the_heap_settles);
    HP_ADD(tc, a_fork_child_cuts_early_blocks_until_it_settles);
    HP_ADD(tc, page_regions_count_their_touched_pages);
    HP_ADD(tc, filled_regions_count_their_filled_pages);
    HP_ADD(tc, threads_cut_blocks_that_never_overlap);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return hp_unit_run_heap(suite(), 1);
}
