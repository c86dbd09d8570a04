/* unwind.c — see unwind.h. */
#define _GNU_SOURCE
#include "unwind.h"

#include <dlfcn.h>
#include <errno.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>     /* its types and names only: the library is opened at the first stack */
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>

#include "clock.h"
#include "hooks.h"
#include "loader_lock.h"
#include "lock_holders.h"
#include "memory.h"
#include "platform.h"
#include "sampler.h"
#include "stacks.h"
#include "unloaded.h"

#ifndef HP_LIBUNWIND
#define HP_LIBUNWIND "libunwind.so.8"
#endif

/* libunwind's functions (their real names: the header's are macros), found when it is opened. */
#define HP_STR_(x) #x
#define HP_STR(x) HP_STR_(x)
struct unw_fns {
    int (*getcontext)(unw_context_t *);
    int (*init_local)(unw_cursor_t *, unw_context_t *);
    int (*step)(unw_cursor_t *);
    int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
    int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
    unw_addr_space_t *local_addr_space;
    int (*backtrace)(void **, int);
};

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
    struct unw_fns fn;        /* set before warm is WARM_DONE */
    size_t tls_module;        /* its thread-local storage's module number (0: none) */
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
    if (unw.fn.getcontext(&uc) != 0 || unw.fn.init_local(&cursor, &uc) != 0) return 0;
    unw_word_t ip;
    while (n < max && unw.fn.step(&cursor) > 0 && unw.fn.get_reg(&cursor, UNW_REG_IP, &ip) == 0)
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

/* libunwind is opened at the first stack, not at start: loading it and liblzma cost every
 * process 100 to 200 us (two files, nine mappings), though most short ones (a shell's commands)
 * take no stack. RTLD_LOCAL: its symbols (a weak `backtrace` among them) stay out of the program's
 * scope. dlopen holds the loader's lock, and another thread holding that lock may be running a
 * constructor that waits for a lock the caller holds: so only a thread that cannot meet such a
 * thread opens it (may_open_here), and in a program with other threads the sampler does. */
static int open_libunwind(void)
{
    void *h = hp_own_dlopen(HP_LIBUNWIND, RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    struct unw_fns f = {
        (int (*)(unw_context_t *))dlsym(h, HP_STR(unw_tdep_getcontext)),
        (int (*)(unw_cursor_t *, unw_context_t *))dlsym(h, HP_STR(unw_init_local)),
        (int (*)(unw_cursor_t *))dlsym(h, HP_STR(unw_step)),
        (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(h, HP_STR(unw_get_reg)),
        (int (*)(unw_addr_space_t, unw_caching_policy_t))dlsym(h, HP_STR(unw_set_caching_policy)),
        (unw_addr_space_t *)dlsym(h, HP_STR(unw_local_addr_space)),
        (int (*)(void **, int))dlsym(h, HP_STR(unw_backtrace)),
    };
    if (!f.getcontext || !f.init_local || !f.step || !f.get_reg || !f.set_caching_policy || !f.local_addr_space ||
        !f.backtrace)
        return -1;
    size_t module = 0;
    if (dlinfo(h, RTLD_DI_TLS_MODID, &module) != 0) return -1;
    unw.tls_module = module;
    unw.fn = f;
    /* its code, now mapped: the lock hooks and the pipe check know it (helper code), and no CPU
     * sample's handler starts a thread where it was interrupted inside it (lock_holders.h) */
    atomic_store_explicit(&unw.ranges_known, 0, memory_order_relaxed);
    know_ranges();
    hp_lock_holders_add(unw.helper_ranges[0].lo, unw.helper_ranges[0].hi);
    return 0;
}

/* Whether the calling thread may open libunwind: no other program thread (one inside dlopen could
 * be waiting for a lock this one holds), the thread not inside the loader (dlclose, a walk of the
 * modules: their lock free), and the loader's lists not halfway changed (a malloc of the loader's
 * own while it maps or relocates a library: r_state says so; its constructors run once the lists
 * are whole again, and a dlopen from one is allowed). The profiler's own threads hold no lock of
 * the program's: they may. */
static int may_open_here(int profiler_thread)
{
    if (profiler_thread) return hp_platform_may_open_files();
    struct hp_thread *self = hp_self;
    if (self && (atomic_load_explicit(&self->in_loader, memory_order_relaxed) ||
                 atomic_load_explicit(&self->in_iterate, memory_order_relaxed)))
        return 0;
    return !hp_raw_syscalls_barred() && hp_loader_lock_owner() == 0 && _r_debug.r_state == RT_CONSISTENT;
}

/* libunwind's thread-local storage (16 bytes) is dynamic, the library being opened: a thread's
 * first use of it allocates (glibc's __tls_get_addr calls malloc). Inside a signal handler that
 * interrupted malloc, or inside the program's allocator (a lock hook under jemalloc's arena lock:
 * redis crashed so), that allocation may not reach the program's allocator. So each thread makes
 * its block once, before libunwind needs it: a thread started after libunwind was opened at its
 * start (hp_unwind_thread_start: it holds nothing then, the program's allocator serves), any
 * other in its warm-up (a hook, or a CPU sample at a safe point) from the boot arena
 * (hp_own_run): that is the threads alive when libunwind was opened, a few. Until then a
 * handler takes no stack. */
struct tls_index_arg { unsigned long module, offset; };   /* glibc's tls_index */
extern void *__tls_get_addr(struct tls_index_arg *);
static __thread int tls_made;

static void make_tls(void *arg)
{
    (void)arg;
    struct tls_index_arg ti = { unw.tls_module, 0 };
    if (ti.module) __tls_get_addr(&ti);
}

/* The warm-up's unw_backtrace makes libunwind's thread-cache key, and would also make the calling
 * thread's 256 KB table: 64 page faults, 1.9 ms of every process start on a VM, for a table the
 * main thread needs only once it has taken STEPPED_STACKS stacks. The mmap hook refuses the table
 * (hp_unwind_warming), libunwind falls back to stepping for this one stack, and the table is made
 * at the thread's first unw_backtrace after the warm-up. */
static void first_use(void *arg)
{
    int *failed = arg;
    if (!unw.fn.init_local && open_libunwind() != 0) {
        *failed = 1;
        return;
    }
    unw.stepped_only = keys_late();
    /* No shared cache of unwind rules: libunwind holds its lock while it walks the modules, which
     * waits for the loader's lock; a CPU sample's handler waiting for the cache's lock would then
     * wait for the loader's lock all the same (loader_lock.h). Unwinding goes on without it:
     * repeated stacks come from the per-thread tables of unw_backtrace. */
    unw.fn.set_caching_policy(*unw.fn.local_addr_space, UNW_CACHE_NONE);
    make_tls(NULL);
    tls_made = 1;
    void *frames[1];   /* one frame initialises as much as four, and reads one FDE, not four */
    stepped_backtrace(frames, 1);
    if (!unw.stepped_only) {
        hp_unwind_warming = 1;     /* no 256 KB table for this one frame (above) */
        unw.fn.backtrace(frames, 1);
        hp_unwind_warming = 0;
    }
}

/* Have the sampler open libunwind and wait for it (50 ms at most): 1 when it is open. */
static int sampler_opens(void)
{
    hp_sampler_open_unwinder_soon();
    return hp_sampler_launch() == 0 && wait_for_warm_up();
}

static int warm_up(int profiler_thread)
{
    if (hp_unwind_ready()) {
        if (!tls_made) {
            hp_own_run(make_tls, NULL);
            tls_made = 1;
        }
        return 1;
    }
    if (atomic_load_explicit(&unw.unwind_off, memory_order_relaxed) || hp_loader_no_dlopen) return 0;
    if (!unw.fn.init_local && !may_open_here(profiler_thread)) {
        if (profiler_thread) {
            atomic_store(&unw.unwind_off, 1);     /* a program at a low descriptor limit: no stacks */
            return 0;
        }
        /* a thread of a program with others: the sampler opens it, and this one waits for that */
        return sampler_opens() ? warm_up(0) : 0;
    }
    /* counted before it is under way: a fork child of a warm-up halfway takes no stacks */
    atomic_fetch_add(&unw.unwinding, 1);
    int expect = WARM_NOT;
    if (!atomic_compare_exchange_strong(&unw.warm, &expect, WARM_UNDER_WAY)) {
        atomic_fetch_sub(&unw.unwinding, 1);
        return wait_for_warm_up() ? warm_up(profiler_thread) : 0;
    }
    int failed = 0;
    hp_own_run(first_use, &failed);
    if (failed) {
        atomic_store(&unw.unwind_off, 1);      /* no stacks in this process */
        atomic_store(&unw.warm, WARM_NOT);
        atomic_fetch_sub(&unw.unwinding, 1);
        return 0;
    }
    atomic_store_explicit(&unw.warm, WARM_DONE, memory_order_release);
    atomic_fetch_sub(&unw.unwinding, 1);
    return 1;
}

int hp_unwind_warm_up(void)
{
    return warm_up(0);
}

void hp_unwind_thread_start(void)
{
    if (tls_made || !hp_unwind_ready()) return;
    struct hp_thread *t = hp_guard_raise();     /* the block is the profiler's, not counted */
    make_tls(NULL);
    hp_guard_lower(t);
    tls_made = 1;
}

int hp_unwind_thread_ready(void)
{
    return tls_made && hp_unwind_ready();
}

void hp_unwind_before_threads(void)
{
    if (hp_unwind_ready() || atomic_load(&unw.unwind_off) || hp_loader_no_dlopen || !may_open_here(0)) return;
    struct hp_thread *t = hp_guard_raise();   /* libunwind's own calls pass through the hooks uncounted */
    warm_up(0);
    hp_guard_lower(t);
}

void hp_unwind_before_fork(void)
{
    if (hp_unwind_ready() || !hp_raw_syscalls_barred() || atomic_load(&unw.unwind_off)) return;
    struct hp_thread *t = hp_guard_raise();
    sampler_opens();
    hp_guard_lower(t);
}

void hp_unwind_on_sampler(int asked)
{
    if (asked || hp_raw_syscalls_barred()) warm_up(1);
}

int hp_backtrace(void **out, int max)
{
    if (atomic_load_explicit(&unw.unwind_off, memory_order_relaxed)) return 0;
    /* a signal handler that interrupted the loader (process/dl.c): libunwind would wait on it */
    struct hp_thread *self = hp_self;
    if (self && atomic_load_explicit(&self->in_loader, memory_order_relaxed)) return 0;
    /* a CPU sample's handler warms libunwind up only where it may (cpu_profile.c) */
    if (!hp_unwind_thread_ready() && ((self && self->in_cpu_sample) || !hp_unwind_warm_up())) return 0;
    atomic_fetch_add(&unw.unwinding, 1);
    int n;
    if (stacks_taken < STEPPED_STACKS || unw.stepped_only) {
        stacks_taken++;
        n = stepped_backtrace(out, max);
    } else {
        n = unw.fn.backtrace(out, max);
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
    know_ranges();
    return (const void *)unw.helper_ranges[0].lo;
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
