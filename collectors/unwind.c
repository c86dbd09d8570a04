/* unwind.c — see unwind.h. */
#define _GNU_SOURCE
#include "unwind.h"

#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "stacks.h"
#include "unloaded.h"

/* Address ranges of the profiler's own code: libhotpath.so (its frames are left out of stacks),
 * and the libraries it uses, libunwind and mimalloc. */
struct range { uintptr_t lo, hi; };
static struct range self_range, helper_ranges[2];
static _Atomic int ranges_known;

static int module_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    struct range r;
    hp_module_range(info, &r.lo, &r.hi);
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    uintptr_t me = (uintptr_t)module_range;
    if (me >= r.lo && me < r.hi) self_range = r;
    else if (strstr(name, "/libunwind")) helper_ranges[0] = r;
    else if (strstr(name, "/libmimalloc")) helper_ranges[1] = r;
    return 0;
}

static int in_range(const struct range *r, uintptr_t a)
{
    return a >= r->lo && a < r->hi;
}

/* Threads inside libunwind now. libunwind takes locks of its own (its caches, its memory pools);
 * a fork while one is held leaves it held forever in the child, where the next unwind would wait
 * for it. The count is copied with the memory at the fork: a child that finds it above zero
 * never unwinds. */
static _Atomic int unwinding;
static _Atomic int unwind_off;

int hp_backtrace(void **out, int max)
{
    if (atomic_load_explicit(&unwind_off, memory_order_relaxed)) return 0;
    atomic_fetch_add(&unwinding, 1);
    int n = unw_backtrace(out, max);
    atomic_fetch_sub(&unwinding, 1);
    return n;
}

void hp_unwind_fork_child(void)
{
    if (atomic_exchange(&unwinding, 0)) atomic_store(&unwind_off, 1);
}

void hp_unwind_stop(void)
{
    atomic_store(&unwind_off, 1);
}

static void know_ranges(void)
{
    if (atomic_load_explicit(&ranges_known, memory_order_acquire)) return;
    dl_iterate_phdr(module_range, NULL);
    atomic_store_explicit(&ranges_known, 1, memory_order_release);
}

int hp_unwind_helper_code(uintptr_t addr)
{
    know_ranges();
    return in_range(&helper_ranges[0], addr) || in_range(&helper_ranges[1], addr);
}

unsigned hp_unwind_program(void **out, unsigned max, struct hp_thread *t)
{
    void *raw[HP_STACK_MAX_DEPTH + 12];
    if (max > HP_STACK_MAX_DEPTH) max = HP_STACK_MAX_DEPTH;
    if (t) t->guard++;
    int saved = errno;
    know_ranges();
    int n = hp_backtrace(raw, (int)(max + 12));
    errno = saved;
    if (t) t->guard--;
    unsigned k = 0;
    int i = 0;
    while (i < n && in_range(&self_range, (uintptr_t)raw[i])) i++;
    for (; i < n && k < max; i++) out[k++] = raw[i];
    return k;
}
