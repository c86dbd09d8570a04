/* unwind.c — see unwind.h. */
#define _GNU_SOURCE
#include "unwind.h"

#include <errno.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>

#include "clock.h"
#include "loader_lock.h"
#include "stacks.h"
#include "unloaded.h"

/* Address ranges of the profiler's own code: libhotpath.so (its frames are left out of stacks),
 * and the libraries it uses, libunwind and mimalloc; and of libc and the loader, where every
 * thread starts and the program's constructors and destructors are called from. */
struct range { uintptr_t lo, hi; };
static struct {
    struct range self_range, helper_ranges[2], libc_range, loader_range;
    uintptr_t entry;          /* the program's entry point (_start), which calls libc's start of main */
    _Atomic int ranges_known;
    /* Threads inside libunwind now. libunwind takes locks of its own (its caches, its memory
     * pools); a fork while one is held leaves it held forever in the child, where the next unwind
     * would wait for it. The count is copied with the memory at the fork: a child that finds it
     * above zero never unwinds. */
    _Atomic int unwinding;
    _Atomic int unwind_off;   /* this process takes no more stacks (hp_unwind_stop, a fork child) */
    _Atomic int warm;         /* enum warm: libunwind's first use done (hp_unwind_warm_up) */
    int stepped_only;         /* libunwind's thread-cache key came too late: unw_backtrace never */
} unw;

enum warm { WARM_NOT, WARM_UNDER_WAY, WARM_DONE };

static int module_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    struct range r;
    hp_module_range(info, &r.lo, &r.hi);
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    uintptr_t me = (uintptr_t)module_range;
    if (me >= r.lo && me < r.hi) unw.self_range = r;
    else if (strstr(name, "/libunwind")) unw.helper_ranges[0] = r;
    else if (strstr(name, "/libmimalloc")) unw.helper_ranges[1] = r;
    else if (strstr(name, "/libc.so")) unw.libc_range = r;
    else if (strstr(name, "/ld-linux")) unw.loader_range = r;
    return 0;
}

static int in_range(const struct range *r, uintptr_t a)
{
    return a >= r->lo && a < r->hi;
}

/* Known once a walk found this library (a walk from a CPU sample's handler finds nothing while
 * another thread holds the loader's lock: a later call tries again). hp_unwind_find_modules makes
 * the first walk in the constructor. */
static void know_ranges(void)
{
    if (atomic_load_explicit(&unw.ranges_known, memory_order_acquire)) return;
    hp_walk_modules(module_range, NULL);
    unw.entry = getauxval(AT_ENTRY);
    if (unw.self_range.hi) atomic_store_explicit(&unw.ranges_known, 1, memory_order_release);
}

/* unw_backtrace's fast path keeps a table per thread (256 KB, every entry written when it is
 * made), so each thread that took even one stack (a first lock, a sampled allocation, a CPU
 * sample) would hold 256 KB more of resident memory: 50 MB for a pool of 200 threads. A thread's
 * first STEPPED_STACKS stacks are therefore taken frame by frame with unw_step, which needs no
 * memory of its own but costs more per frame (libunwind's shared cache of unwind rules, behind
 * its lock and two signal-mask system calls per frame); a thread that takes more than that (one
 * the CPU profile samples for over half a second, say) is worth its table. */
#define STEPPED_STACKS 64

static __thread unsigned stacks_taken;

static int stepped_backtrace(void **out, int max)
{
    unw_context_t uc;
    unw_cursor_t cursor;
    int n = 0;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0) return 0;
    unw_word_t ip;
    while (n < max && unw_step(&cursor) > 0 && unw_get_reg(&cursor, UNW_REG_IP, &ip) == 0)
        out[n++] = (void *)ip;
    return n;
}

__thread int hp_unwind_warming __attribute__((tls_model("initial-exec")));

void hp_unwind_find_modules(void)
{
    know_ranges();
}

int hp_unwind_ready(void)
{
    return atomic_load_explicit(&unw.warm, memory_order_acquire) == WARM_DONE;
}

/* libunwind's thread-cache key is the next one pthread_key_create gives. A key numbered 32 or
 * more (PTHREAD_KEY_2NDLEVEL_SIZE) would make each thread's first pthread_setspecific of it
 * allocate, which a CPU sample's handler may not: then unw_backtrace is never used. */
static int keys_late(void)
{
    pthread_key_t probe;
    if (pthread_key_create(&probe, NULL) != 0) return 1;
    pthread_key_delete(probe);
    return probe >= 32;
}

/* Another thread warms libunwind up: a hook waits for it (its own stack would wait for the same
 * locks), for WARM_WAIT_MS at most: should the warm-up need a lock this thread holds, the hook
 * goes on without a stack this time rather than hang. A signal handler does not wait. */
#define WARM_WAIT_MS 50
static int wait_for_warm_up(void)
{
    struct hp_thread *self = hp_self;
    if (self && self->in_cpu_sample) return 0;
    uint64_t until = hp_now_ns() + WARM_WAIT_MS * 1000000ull;
    while (!hp_unwind_ready()) {
        if (atomic_load_explicit(&unw.unwind_off, memory_order_relaxed) || hp_now_ns() > until) return 0;
        sched_yield();
    }
    return 1;
}

/* The warm-up's unw_backtrace makes libunwind's thread-cache key, and would also make the calling
 * thread's 256 KB table: 64 page faults, 1.9 ms of every process start on a VM, for a table the
 * main thread needs only once it has taken STEPPED_STACKS stacks. The mmap hook refuses the table
 * (hp_unwind_warming), libunwind falls back to stepping for this one stack, and the table is made
 * at the thread's first unw_backtrace after the warm-up. */
int hp_unwind_warm_up(void)
{
    if (hp_unwind_ready()) return 1;
    if (atomic_load_explicit(&unw.unwind_off, memory_order_relaxed)) return 0;
    /* counted before it is under way: a fork child of a warm-up halfway takes no stacks */
    atomic_fetch_add(&unw.unwinding, 1);
    int expect = WARM_NOT;
    if (!atomic_compare_exchange_strong(&unw.warm, &expect, WARM_UNDER_WAY)) {
        atomic_fetch_sub(&unw.unwinding, 1);
        return wait_for_warm_up();
    }
    unw.stepped_only = keys_late();
    /* No shared cache of unwind rules: libunwind holds its lock while it walks the modules, which
     * waits for the loader's lock; a CPU sample's handler waiting for the cache's lock would then
     * wait for the loader's lock all the same (loader_lock.h). Unwinding goes on without it:
     * repeated stacks come from the per-thread tables of unw_backtrace. */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
    void *frames[1];   /* one frame initialises as much as four, and reads one FDE, not four */
    stepped_backtrace(frames, 1);
    if (!unw.stepped_only) {
        hp_unwind_warming = 1;
        unw_backtrace(frames, 1);
        hp_unwind_warming = 0;
    }
    atomic_store_explicit(&unw.warm, WARM_DONE, memory_order_release);
    atomic_fetch_sub(&unw.unwinding, 1);
    return 1;
}

int hp_backtrace(void **out, int max)
{
    if (atomic_load_explicit(&unw.unwind_off, memory_order_relaxed)) return 0;
    /* a signal handler that interrupted the loader (process/dl.c): libunwind would wait on it */
    struct hp_thread *self = hp_self;
    if (self && atomic_load_explicit(&self->in_loader, memory_order_relaxed)) return 0;
    /* a CPU sample's handler warms libunwind up only where it may (cpu_profile.c) */
    if (!hp_unwind_ready() && ((self && self->in_cpu_sample) || !hp_unwind_warm_up())) return 0;
    atomic_fetch_add(&unw.unwinding, 1);
    int n;
    if (stacks_taken < STEPPED_STACKS || unw.stepped_only) {
        stacks_taken++;
        n = stepped_backtrace(out, max);
    } else {
        n = unw_backtrace(out, max);
    }
    atomic_fetch_sub(&unw.unwinding, 1);
    return n;
}

void hp_unwind_fork_child(void)
{
    if (atomic_exchange(&unw.unwinding, 0)) atomic_store(&unw.unwind_off, 1);
}

void hp_unwind_stop(void)
{
    atomic_store(&unw.unwind_off, 1);
}

const void *hp_unwind_code(void)
{
    return (const void *)unw_init_local;
}

int hp_unwind_helper_code(uintptr_t addr)
{
    know_ranges();
    return in_range(&unw.helper_ranges[0], addr) || in_range(&unw.helper_ranges[1], addr);
}

int hp_unwind_start_frames(void *const *raw, int from, int n)
{
    if (!atomic_load_explicit(&unw.ranges_known, memory_order_acquire)) return n;
    while (n > from) {
        uintptr_t a = (uintptr_t)raw[n - 1];
        /* _start is known by where it calls from: near the entry point, into libc's start of
         * main (a program linked without crt1 may have its own functions right after its entry) */
        int entry_call = a > unw.entry && a - unw.entry < 64 && n - 2 >= from &&
                         in_range(&unw.libc_range, (uintptr_t)raw[n - 2]);
        if (!in_range(&unw.libc_range, a) && !in_range(&unw.loader_range, a) && !in_range(&unw.self_range, a) &&
            !entry_call)
            break;
        n--;
    }
    return n;
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
    while (i < n && in_range(&unw.self_range, (uintptr_t)raw[i])) i++;
    /* a stack of nothing but libc (a lock it takes in a thread of its own) keeps its frames */
    if (n < (int)max + 12) {
        int end = hp_unwind_start_frames(raw, i, n);
        if (end > i) n = end;
    }
    for (; i < n && k < max; i++) out[k++] = raw[i];
    return k;
}
