/* cpu_profile.c — see cpu_profile.h. */
#define _GNU_SOURCE
#include "cpu_profile.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/hash.h"
#include "core/loader_lock.h"
#include "core/lock_holders.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/ticks.h"
#include "core/unwind.h"
#include "cpu_settings.h"

#define RING profile.ring_slots         /* samples a thread can hold between two drains */
#define EXTRA_FRAMES 16                /* the handler's own frames above the interrupted one */

enum { BUF_FREE, BUF_CLAIMED, BUF_LIVE, BUF_RETIRED };

struct hp_cpu_buf {
    struct hp_cpu_buf *next;           /* every ring ever made (append only) */
    _Atomic int state;
    _Atomic int armed;                 /* the timer exists */
    timer_t timer;
    uint32_t index;                    /* the thread's creation order */
    int tid;
    _Atomic uint32_t head;             /* written by the thread's handler */
    _Atomic uint32_t tail;             /* written by the drainer */
    _Atomic uint64_t dropped, profiler;/* written by the thread's handler (load + store) */
    /* CPU time the thread spent with the signal blocked (its timer stopped): never sampled.
     * Written by the thread itself as it blocks and unblocks the signal. */
    _Atomic int masked;
    _Atomic uint64_t masked_since, masked_ns;
    uint32_t words;                    /* per slot: depth, weight, frames */
    uintptr_t ring[];
};

static struct {
    struct hp_cpu_buf *_Atomic buffers;
    _Atomic int cpu_on;                /* timers run and samples are taken */
    _Atomic int cpu_started;
    _Atomic int off_reason;
    struct hp_stacks table;
    int cookie;                        /* our timers' sigev_value: tells their signals apart */
    _Atomic uint64_t drained, retired_dropped, retired_profiler, retired_masked;   /* by the drainer */
    uint32_t slot_words, ring_slots;
    const struct hp_view_signals *signals;   /* given by hp_cpu_start */
    _Atomic int cpu_signo;             /* the real-time signal the timers fire */
    _Atomic long top_offset;           /* block top - thread pointer; 0 not measured, -1 unusable */
} profile = {
    .ring_slots = 64,
};

const char *hp_cpu_off_text(enum hp_cpu_off_reason why)
{
    switch (why) {
    case HP_CPU_OFF_NONE: return NULL;
    case HP_CPU_OFF_SETTING: return "HOTPATH_CPU_HZ=0";
    case HP_CPU_OFF_HANDLER: return "the program took every real-time signal";
    case HP_CPU_OFF_DISPOSITION: return "no real-time signal was at its default action at start";
    case HP_CPU_OFF_FAILED: return "the CPU timers could not be set up";
    }
    return "off";
}

static void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

/* ---- the handler (async-signal-safe) ---- */

static uintptr_t interrupted_pc(void *ucv)
{
    const ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* A sample stands for its timer's overruns too. */
static uint64_t sample_weight(int overrun)
{
    return 1 + (overrun > 0 ? (uint64_t)overrun : 0);
}

/* Unwinding takes up to ~12 KB of stack (measured). The handler runs on the interrupted stack
 * (no SA_ONSTACK), which near the end of a small thread stack, on a coroutine's stack or on an
 * alternate stack (when it interrupted a handler running there) may not have that much: such a
 * sample is dropped. A stack whose bounds are unknown counts as too small. */
#define UNWIND_ROOM (16 * 1024)

/* A thread whose stack is smaller than this, or of unknown size, gets no timer: the kernel writes
 * its signal frame (about 3.4 KB with AVX-512 state) on the interrupted stack before any handler
 * can look at the room left, so a thread running within that of its stack's end would die where
 * bare it would not. Pools of small-stack threads run unsampled. */
#define SAMPLED_STACK_MIN (64 * 1024)

static int room_to_unwind(const struct hp_thread *t)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo = t->stack_lo;
    if (lo && sp > lo && sp - lo < (uintptr_t)1 << 30) return sp - lo >= UNWIND_ROOM;
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK))
        return sp - (uintptr_t)ss.ss_sp >= UNWIND_ROOM;
    return 0;
}

/* The calling thread's stack, for room_to_unwind, without allocating where possible; returns its
 * size, 0 when unknown. pthread_getattr_np allocates (its affinity set), which in a thread that
 * never allocated makes glibc set up an arena of its own, 64 MiB of address space. A thread
 * started through the pthread_create hook has its stack's plan in its record (thread_start.c): a
 * stack of the program's own is known exactly, and one of unknown size (pthread_attr_setstackaddr
 * alone) is never unwound on. For a stack glibc allocates, x86-64 glibc puts the thread's
 * descriptor (the thread pointer) a fixed distance below the top of the block: measured once, on
 * the first such thread, with pthread_getattr_np; the bottom is then the size asked for below the
 * top (rounded down to pages: glibc rounds it down to its TLS alignment). A cached stack reused
 * for the thread may be larger, which puts the bound above the real one: the safe side. Other
 * threads (the main thread, C11 threads, threads found running) ask pthread_getattr_np, guard up
 * (for the main thread it reads /proc/self/maps). */
static int attr_stack(uintptr_t *lo, size_t *size)
{
    pthread_attr_t attr;
    void *addr;
    int ok = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        ok = pthread_attr_getstack(&attr, &addr, size) == 0;
        pthread_attr_destroy(&attr);
    }
    *lo = ok ? (uintptr_t)addr : 0;
    return ok;
}

/* The stack exec made, which the main thread runs on: as pthread_getattr_np finds it, but without
 * reading /proc/self/maps (0.3 ms of every start here, more with many mappings). The kernel puts
 * the program's file name (AT_EXECFN) last on it, followed by one zero word that ends at the top
 * (page-aligned); the stack grows down to RLIMIT_STACK below the top. 0, and the caller asks
 * glibc, where that layout is not seen (the loader run as a program points AT_EXECFN at the
 * program's argv[0], among the other strings), where the limit is unlimited (glibc then bounds the
 * stack by the mapping below it), and where sp is not on that stack (a fork child's thread). */
static size_t exec_stack(uintptr_t sp, uintptr_t *lo)
{
    const char *name = (const char *)getauxval(AT_EXECFN);
    struct rlimit rl;
    if (!name || name == program_invocation_name || getrlimit(RLIMIT_STACK, &rl) != 0 ||
        rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > ((rlim_t)1 << 32))
        return 0;
    uintptr_t top = (uintptr_t)name + strlen(name) + 1 + sizeof(void *);
    size_t size = (size_t)rl.rlim_cur;
    if ((top & 4095) || *(const uintptr_t *)(top - sizeof(void *)) != 0 || size > top ||
        !(sp < top && top - sp < size))
        return 0;
    *lo = top - size;
    return size;
}

static size_t note_stack(struct hp_thread *t, uintptr_t plan_addr, size_t plan_size)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo;
    size_t size;
    if (plan_addr == HP_STACK_UNSIZED) return 0;
    if (plan_addr && plan_addr < sp && sp - plan_addr < plan_size) {
        t->stack_lo = plan_addr;
        return plan_size;
    }
#if defined(__x86_64__) && defined(__GLIBC__)
    uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
    long off = atomic_load(&profile.top_offset);
    size_t below = plan_size & ~(size_t)4095;
    if (!plan_addr && below && off > 0) {
        uintptr_t top = tp + (uintptr_t)off;
        if (below < top && top - below < sp && sp < top) {
            t->stack_lo = top - below;
            return below;
        }
    }
    if (!plan_addr && below && off == 0 && attr_stack(&lo, &size)) {
        t->stack_lo = lo;
        long measured = (long)(lo + size) - (long)tp;
        atomic_store(&profile.top_offset, measured > 0 && measured < 65536 ? measured : -1);
        return size;
    }
#endif
    if (!plan_addr && (size = exec_stack(sp, &lo))) {
        t->stack_lo = lo;
        return size;
    }
    if (!attr_stack(&lo, &size)) return 0;
    t->stack_lo = lo;
    return size;
}

/* Whether the interrupted code holds none of the locks that making a thread or libunwind's first
 * use takes: a program thread (not the profiler's work), interrupted in none of the modules whose
 * locks pthread_create takes, nor inside a dl_iterate_phdr callback; another thread that holds
 * one lets it go. */
static int at_safe_point(const struct hp_thread *t, uintptr_t pc)
{
    if (!t || t->guard || !hp_pc_outside_lock_holders(pc)) return 0;
    int owner = hp_loader_lock_owner();
    return !(owner && owner == t->tid);
}

static __attribute__((noinline)) void take_sample(void *ucv, int overrun)
{
    struct hp_thread *t = hp_self;
    if (!t) return;
    struct hp_cpu_buf *b = __atomic_load_n(&t->cpu_buf, __ATOMIC_RELAXED);
    if (!b || !atomic_load_explicit(&profile.cpu_on, memory_order_relaxed)) return;
    uint64_t weight = sample_weight(overrun);
    if (t->guard) {          /* the profiler's own work (a hook's slow path, the report) */
        count(&b->profiler, weight);
        return;
    }
    uint32_t head = atomic_load_explicit(&b->head, memory_order_relaxed);
    if (head - atomic_load_explicit(&b->tail, memory_order_acquire) >= RING) {
        count(&b->dropped, weight);
        return;
    }
    uintptr_t *slot = b->ring + (size_t)(head % RING) * b->words;
    uintptr_t *frames = slot + 2;
    uint32_t depth = b->words - 2, n = 0;
    uintptr_t pc = interrupted_pc(ucv);
    void *raw[HP_STACK_MAX_DEPTH + EXTRA_FRAMES];
    /* libunwind not warmed up yet: here only where it may be (until then, the sample's pc alone);
     * asked before the guard goes up */
    int warm_here = !hp_unwind_thread_ready() && at_safe_point(t, pc);
    t->guard++;              /* libunwind's own locks go through the lock hooks */
    t->in_cpu_sample = 1;    /* its walks of the modules never wait for the loader's lock */
    if (warm_here) hp_unwind_warm_up();
    int got = hp_backtrace(raw, (int)(depth + EXTRA_FRAMES));
    t->in_cpu_sample = 0;
    t->guard--;
    int start = -1;
    for (int i = 0; i < got && i < EXTRA_FRAMES; i++)
        if ((uintptr_t)raw[i] == pc) { start = i; break; }
    if (start >= 0 && got < (int)depth + EXTRA_FRAMES) got = hp_unwind_start_frames(raw, start + 1, got);
    frames[n++] = pc + 1;    /* stored like a return address: symbolised at pc */
    if (start >= 0)
        for (int i = start + 1; i < got && n < depth; i++) frames[n++] = (uintptr_t)raw[i];
    slot[0] = n;
    slot[1] = weight;
    atomic_store_explicit(&b->head, head + 1, memory_order_release);
}

/* A deferred sampler (core/sampler.h) of a program that only computes starts here once due: the
 * sample's thread is a program thread that ran for a while. */
static void launch_sampler(const struct hp_thread *t, void *ucv)
{
    if (hp_sampler_launch_due() && at_safe_point(t, interrupted_pc(ucv))) hp_sampler_launch();
}

static void on_cpu_signal(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    if (si && si->si_code == SI_TIMER && si->si_value.sival_ptr == &profile.cookie) {
        struct hp_thread *t = hp_self;
        if (t && !room_to_unwind(t)) {   /* before take_sample's frame, which holds the frames */
            struct hp_cpu_buf *b = __atomic_load_n(&t->cpu_buf, __ATOMIC_RELAXED);
            if (b) count(&b->dropped, sample_weight(si->si_overrun));
        } else {
            take_sample(ucv, si->si_overrun);
            launch_sampler(t, ucv);
        }
        errno = saved;
        return;
    }
    /* Not one of our timers: the program left the signal at its default action (it would have
     * replaced this handler otherwise), so it gets the default action: termination. */
    profile.signals->set_default(sig);
    errno = saved;
    raise(sig);
}

/* ---- timers and rings ---- */

static void disarm(struct hp_cpu_buf *b)
{
    if (atomic_exchange(&b->armed, 0)) syscall(SYS_timer_delete, b->timer);
}

static struct hp_cpu_buf *claim_buf(void)
{
    for (struct hp_cpu_buf *b = atomic_load(&profile.buffers); b; b = b->next) {
        int expect = BUF_FREE;
        if (b->words == profile.slot_words && atomic_compare_exchange_strong(&b->state, &expect, BUF_CLAIMED))
            return b;
    }
    /* pages, not the profiler's heap: this runs in the new thread, and mimalloc would give each
     * thread that allocates a heap and segment of its own (32 MiB of address space apiece) */
    struct hp_cpu_buf *b = hp_pages(sizeof *b + sizeof(uintptr_t) * RING * profile.slot_words);
    if (!b) return NULL;
    b->words = profile.slot_words;
    atomic_store(&b->state, BUF_CLAIMED);
    struct hp_cpu_buf *head = atomic_load(&profile.buffers);
    do b->next = head;
    while (!atomic_compare_exchange_weak(&profile.buffers, &head, b));
    return b;
}

/* On the thread itself: the signal blocked or not from now on, and the CPU time it was blocked. */
static void note_masked(struct hp_cpu_buf *b, int blocked)
{
    if (blocked == atomic_load_explicit(&b->masked, memory_order_relaxed)) return;
    if (blocked && !atomic_load_explicit(&profile.cpu_on, memory_order_relaxed)) return;   /* nothing is sampled now */
    uint64_t now = hp_self_cpu_ns();
    if (blocked) {
        atomic_store_explicit(&b->masked_since, now, memory_order_relaxed);
    } else {
        uint64_t since = atomic_load_explicit(&b->masked_since, memory_order_relaxed);
        count(&b->masked_ns, now > since ? now - since : 0);
    }
    atomic_store_explicit(&b->masked, blocked, memory_order_release);
}

/* The first expiry of a thread's timer falls at a random point of its first period: a thread
 * that runs less CPU than a period (a request handled by a short-lived thread: 0.3 ms against
 * 10 ms at 99 Hz) would otherwise never be sampled, and a thousand of them were CPU the profile
 * never saw. With a random phase each is sampled with the chance its CPU time gives it. */
static long first_expiry_ns(long period, int tid)
{
    uint64_t x = hp_mix64(hp_ticks() ^ ((uint64_t)(unsigned)tid * 0x9E3779B97F4A7C15ull));
    return 1 + (long)(x % (uint64_t)period);
}

static int run_timer(struct hp_cpu_buf *b, int on)
{
    long ns = on ? 1000000000L / (long)hp_cpu_settings.hz : 0, first = on ? first_expiry_ns(ns, b->tid) : 0;
    struct itimerspec its = { { ns / 1000000000L, ns % 1000000000L }, { first / 1000000000L, first % 1000000000L } };
    return timer_settime(b->timer, 0, &its, NULL);
}

/* A timer on the thread's CPU clock that fires the profile's signal at the thread; not running. */
static int make_timer(struct hp_cpu_buf *b, int signo)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = signo;
    sev.sigev_value.sival_ptr = &profile.cookie;
    sev._sigev_un._tid = b->tid;
    timer_t id;
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &id) != 0) return -1;
    b->timer = id;
    atomic_store(&b->armed, 1);
    return 0;
}

static int arm(struct hp_cpu_buf *b)
{
    int signo = atomic_load(&profile.cpu_signo);
    if (make_timer(b, signo) != 0) return -1;
    /* the profile moved meanwhile (hp_cpu_signal_moved), past this ring before it was armed */
    for (int now; (now = atomic_load(&profile.cpu_signo)) != signo && atomic_exchange(&b->armed, 0); signo = now) {
        syscall(SYS_timer_delete, b->timer);
        if (make_timer(b, now) != 0) return -1;
    }
    /* a thread that starts with the signal blocked gets its timer running when it unblocks it */
    sigset_t mask;
    int blocked = pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, signo) == 1;
    note_masked(b, blocked);
    if (run_timer(b, !blocked) != 0) {
        disarm(b);
        return -1;
    }
    if (!atomic_load(&profile.cpu_on)) disarm(b);   /* turned off meanwhile: whoever exchanges deletes */
    return 0;
}

int hp_cpu_signal(void)
{
    return atomic_load_explicit(&profile.cpu_signo, memory_order_relaxed);
}

void hp_cpu_signal_moved(int signo)
{
    int saved = errno;
    atomic_store(&profile.cpu_signo, signo);
    for (struct hp_cpu_buf *b = atomic_load(&profile.buffers); b; b = b->next) {
        if (atomic_load(&b->state) != BUF_LIVE || !atomic_exchange(&b->armed, 0)) continue;
        syscall(SYS_timer_delete, b->timer);
        /* a thread ending meanwhile deletes the new timer, or leaves it on its dead clock */
        if (make_timer(b, signo) == 0) run_timer(b, !atomic_load(&b->masked));
    }
    errno = saved;
}

void hp_cpu_thread_masked(struct hp_thread *t, int blocked)
{
    struct hp_cpu_buf *b = t ? __atomic_load_n(&t->cpu_buf, __ATOMIC_ACQUIRE) : NULL;
    if (!b || !atomic_load(&b->armed)) return;
    int saved = errno;
    run_timer(b, !blocked);
    note_masked(b, blocked);
    errno = saved;
}

static void attach(struct hp_thread *t, uint32_t index, int tid)
{
    struct hp_cpu_buf *b = claim_buf();
    if (!b) return;
    b->index = index;
    b->tid = tid ? tid : hp_platform_gettid();
    atomic_store(&b->masked, 0);
    atomic_store(&b->masked_ns, 0);
    atomic_store(&b->head, 0);
    atomic_store(&b->tail, 0);
    atomic_store(&b->dropped, 0);
    atomic_store(&b->profiler, 0);
    atomic_store(&b->state, BUF_LIVE);
    __atomic_store_n(&t->cpu_buf, b, __ATOMIC_RELEASE);
    if (arm(b) != 0) {
        __atomic_store_n(&t->cpu_buf, NULL, __ATOMIC_RELEASE);
        atomic_store(&b->state, BUF_RETIRED);
    }
}

/* What the thread's record says: its creation order, tid and stack plan (no gettid call). */
struct record_facts {
    uint32_t index;
    int tid;
    uintptr_t stack_addr;
    size_t stack_size;
};

static struct record_facts record_facts(const struct hp_thread *t)
{
    struct record_facts f = { 0, 0, 0, 0 };
    hp_registry_lock();
    if (t->record != HP_NO_RECORD) {
        const struct hp_record *r = hp_record_at(t->record);
        f.index = r->index;
        f.tid = r->tid;
        f.stack_addr = r->stack_addr;
        f.stack_size = r->stack_size;
    }
    hp_registry_unlock();
    return f;
}

void hp_cpu_thread_start(struct hp_thread *t)
{
    if (!t || !atomic_load(&profile.cpu_on) || t->cpu_buf) return;
    int saved = errno;
    t->guard++;
    struct record_facts f = record_facts(t);
    if (note_stack(t, f.stack_addr, f.stack_size) >= SAMPLED_STACK_MIN) attach(t, f.index, f.tid);
    t->guard--;
    errno = saved;
}

void hp_cpu_thread_end(struct hp_thread *t)
{
    if (!t) return;
    struct hp_cpu_buf *b = __atomic_load_n(&t->cpu_buf, __ATOMIC_RELAXED);
    if (!b) return;
    int saved = errno;
    __atomic_store_n(&t->cpu_buf, NULL, __ATOMIC_RELEASE);
    atomic_signal_fence(memory_order_seq_cst);
    disarm(b);
    note_masked(b, 0);
    /* A ring that never held a sample is free at once (short-lived threads reuse one ring; a
     * drainer looking at it meanwhile only ever stores tail = 0); else the sampler drains it. */
    int empty = atomic_load(&b->head) == 0 && atomic_load(&b->dropped) == 0 && atomic_load(&b->profiler) == 0 &&
                atomic_load(&b->masked_ns) == 0;
    atomic_store_explicit(&b->state, empty ? BUF_FREE : BUF_RETIRED, memory_order_release);
    errno = saved;
}

void hp_cpu_off(enum hp_cpu_off_reason why)
{
    if (!atomic_exchange(&profile.cpu_on, 0)) return;
    int saved = errno;
    atomic_store(&profile.off_reason, (int)why);
    for (struct hp_cpu_buf *b = atomic_load(&profile.buffers); b; b = b->next) disarm(b);
    /* nothing on stderr: only a bad setting is said there; the report carries the reason */
    errno = saved;
}

/* The program (the first module) carries Go's build id note: its runtime's threads run goroutines
 * on small stacks and each has an alternate stack for signal handlers. */
static int go_note(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
            const char *name = p + sizeof *n;
            /* Go's linker names it "Go\0\0" */
            if ((n->n_namesz == 3 || n->n_namesz == 4) && name + 3 <= end && memcmp(name, "Go", 3) == 0) *(int *)data = 1;
            p = name + ((n->n_namesz + 3) & ~3u) + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1;   /* the program only */
}

static int program_is_go(void)
{
    int go = 0;
    hp_walk_modules(go_note, &go);
    return go;
}

/* The program took the profile's signal and no other real-time signal was free. */
static void signal_lost(void)
{
    hp_cpu_off(HP_CPU_OFF_HANDLER);
}

void hp_cpu_start(struct hp_thread *main_thread, const struct hp_view_signals *sigs)
{
    profile.signals = sigs;
    profile.slot_words = 2 + hp_config.stack_depth;
    /* room for twice the samples of one sampler interval at full CPU (64 at the defaults) */
    uint64_t per_interval = (uint64_t)hp_cpu_settings.hz * hp_config.interval_ms / 1000;
    profile.ring_slots = 16;
    while (profile.ring_slots < 2 * per_interval && profile.ring_slots < 1024) profile.ring_slots *= 2;
    if (hp_cpu_settings.hz == 0) {
        atomic_store(&profile.off_reason, HP_CPU_OFF_SETTING);
        return;
    }
    if (hp_stacks_init(&profile.table, 16384, 16) != 0) {
        atomic_store(&profile.off_reason, HP_CPU_OFF_FAILED);
        return;
    }
    if (main_thread) main_thread->guard++;
    hp_unwind_find_modules();   /* libunwind itself is warmed up at the first stack (unwind.h) */
    if (main_thread) main_thread->guard--;
    atomic_store(&profile.cpu_on, 1);
    atomic_store(&profile.cpu_started, 1);
    int signo = profile.signals->claim(on_cpu_signal, program_is_go(), hp_cpu_signal_moved, signal_lost);
    if (signo < 0) {
        atomic_store(&profile.cpu_on, 0);
        atomic_store(&profile.off_reason, HP_CPU_OFF_DISPOSITION);
        return;
    }
    atomic_store(&profile.cpu_signo, signo);
    hp_cpu_thread_start(main_thread);
}

/* ---- the sampler's side ---- */

static void drain_one(struct hp_cpu_buf *b)
{
    uint32_t head = atomic_load_explicit(&b->head, memory_order_acquire);
    uint32_t tail = atomic_load_explicit(&b->tail, memory_order_relaxed);
    for (; tail != head; tail++) {
        const uintptr_t *slot = b->ring + (size_t)(tail % RING) * b->words;
        uint32_t depth = (uint32_t)slot[0];
        if (depth > b->words - 2) depth = b->words - 2;
        hp_stacks_add(&profile.table, b->index, slot + 2, depth, slot[1]);
        count(&profile.drained, slot[1]);
    }
    atomic_store_explicit(&b->tail, tail, memory_order_release);
}

void hp_cpu_drain(void)
{
    if (!atomic_load(&profile.cpu_started)) return;
    for (struct hp_cpu_buf *b = atomic_load(&profile.buffers); b; b = b->next) {
        int st = atomic_load_explicit(&b->state, memory_order_acquire);
        if (st != BUF_LIVE && st != BUF_RETIRED) continue;
        drain_one(b);
        if (st == BUF_RETIRED) {
            count(&profile.retired_dropped, atomic_load(&b->dropped));
            count(&profile.retired_profiler, atomic_load(&b->profiler));
            count(&profile.retired_masked, atomic_load(&b->masked_ns));
            atomic_store(&b->dropped, 0);
            atomic_store(&b->profiler, 0);
            atomic_store(&b->masked_ns, 0);
            atomic_store_explicit(&b->state, BUF_FREE, memory_order_release);
        }
    }
}

void hp_cpu_fork_child(struct hp_thread *self)
{
    if (!atomic_load(&profile.cpu_started)) return;
    struct hp_cpu_buf *mine = self ? self->cpu_buf : NULL;
    for (struct hp_cpu_buf *b = atomic_load(&profile.buffers); b; b = b->next) {
        atomic_store(&b->armed, 0);            /* timers are not inherited */
        atomic_store(&b->head, 0);
        atomic_store(&b->tail, 0);
        atomic_store(&b->dropped, 0);
        atomic_store(&b->profiler, 0);
        atomic_store(&b->masked, 0);
        atomic_store(&b->masked_ns, 0);
        if (b != mine) atomic_store(&b->state, BUF_FREE);
    }
    hp_stacks_reset(&profile.table);
    atomic_store(&profile.drained, 0);
    atomic_store(&profile.retired_dropped, 0);
    atomic_store(&profile.retired_profiler, 0);
    atomic_store(&profile.retired_masked, 0);
    if (mine && atomic_load(&profile.cpu_on)) {
        mine->index = 0;
        mine->tid = hp_platform_gettid();
        if (arm(mine) != 0) {
            __atomic_store_n(&self->cpu_buf, NULL, __ATOMIC_RELEASE);
            atomic_store(&mine->state, BUF_RETIRED);
        }
    }
}

void hp_cpu_figures(struct hp_cpu_figures *v)
{
    memset(v, 0, sizeof *v);
    v->enabled = atomic_load(&profile.cpu_started);
    v->off = (enum hp_cpu_off_reason)atomic_load(&profile.off_reason);
    v->hz = hp_cpu_settings.hz;
    v->signal = atomic_load(&profile.cpu_on) ? atomic_load(&profile.cpu_signo) : 0;
    v->depth = hp_config.stack_depth;
    if (!v->enabled) return;
    v->samples = atomic_load(&profile.drained);
    v->other = atomic_load(&profile.table.other);
    v->dropped = atomic_load(&profile.retired_dropped);
    v->profiler = atomic_load(&profile.retired_profiler);
    v->unsampled_ns = atomic_load(&profile.retired_masked);
    for (struct hp_cpu_buf *b = atomic_load(&profile.buffers); b; b = b->next) {
        int st = atomic_load(&b->state);
        if (st != BUF_LIVE && st != BUF_RETIRED) continue;
        v->dropped += atomic_load(&b->dropped);
        v->profiler += atomic_load(&b->profiler);
        v->unsampled_ns += atomic_load(&b->masked_ns);
        /* a thread that has the signal blocked now: its CPU since it blocked it */
        uint64_t now, since = atomic_load_explicit(&b->masked_since, memory_order_relaxed);
        if (st == BUF_LIVE && atomic_load(&profile.cpu_on) && atomic_load_explicit(&b->masked, memory_order_acquire) &&
            hp_thread_cpu_ns(b->tid, &now) == 0 && now > since)
            v->unsampled_ns += now - since;
    }
    v->table = &profile.table;
}
