/* sampler.c — see sampler.h. A pass lists /proc/self/task, retires records of threads that left,
 * adopts threads seen twice but never registered, then reads each live thread's stat and CPU
 * clock outside the registry lock and stores the results under it. */
#define _GNU_SOURCE
#include "sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "ended_cpu.h"
#include "view.h"
#include "history.h"
#include "memory.h"
#include "platform.h"
#include "registry.h"
#include "sort.h"
#include "spinlock.h"
#include "symbols.h"
#include "unwind.h"

/* The sampler thread's start: made at most once per process (once more in a fork child). */
enum launch { LAUNCH_NONE, LAUNCH_UNDER_WAY, LAUNCH_DONE, LAUNCH_FAILED };

struct reading {
    uint32_t record;
    int tid;
    int ok, has_stat;
    struct hp_task_stat stat;
    uint64_t cpu_ns, at_ns;
};

/* The sampler's state. It sleeps on a word (hp_platform_wait: a futex, a Mach semaphore) and
 * answers a signal's request through another: no file descriptor is held, so a program at its
 * RLIMIT_NOFILE never loses one to the profiler. */
static struct {
    hp_spinlock pass_lock;            /* one pass at a time: sampler or report */
    int *tids, *pending, *next_pending;   /* the process's tids; those unknown for a pass, to discover */
    size_t ntids, cap_tids, npending, cap_pending, cap_next;
    unsigned char *known;             /* by tid's index: a record has it */
    size_t cap_known;
    struct reading *work;             /* a pass's readings, one per live record */
    size_t cap_work;
    char process_comm[16];            /* the process's name, a thread's default */
    _Atomic uint32_t wake_word, done_word;   /* wakes the sampler; says a requested report is written */
    _Atomic int launch;               /* enum launch: never two */
    int deferred;                     /* launched at the first safe point past due_ns, not at start */
    uint64_t origin_ns, due_ns;       /* the start (or fork), and when a deferred launch is due */
    _Atomic int tid;                  /* the sampler thread's id */
    _Atomic int server_tid;           /* the metrics server's thread: hp_sampler_note_server_thread */
    _Atomic int report_requested, report_started;   /* a report asked of the sampler; begun by it */
    _Atomic int retire_requested;     /* hp_sampler_retire_soon: many threads ended since a pass */
    _Atomic int unwinder_requested;   /* hp_sampler_open_unwinder_soon */
    _Atomic int forked;               /* the process forked since the last pass */
    void (*report_callback)(void), (*checkpoint_callback)(void), (*late_callback)(void);
    _Atomic int settled;              /* the first regular pass has run */
    unsigned late_ms;                 /* late_callback's time after the start (or fork) */
    uint64_t late_due_ns;             /* when late_callback is due, 0 once it ran (or none) */
    _Atomic uint64_t last_rss, last_peak_rss;   /* the last pass's RSS and peak RSS */
    uint64_t start_cpu_ns;            /* the profiler's start, on the main thread */
    _Atomic int report_tid;           /* a program thread writing the report itself, 0 none */
    uint64_t report_cpu_ns;           /* its CPU time when it began */
    _Atomic int main_exited;          /* the main thread has ended (pthread_exit) */
    int watch_started;                /* watching from outside: the first pass has run */
    _Atomic uint64_t window_peak_rss; /* watching from outside: the largest RSS seen */
} sampler = {
    .pass_lock = HP_SPINLOCK_INIT,
};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static long find_int(const int *a, size_t n, int v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && a[lo] == v ? (long)lo : -1;
}

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) ncap *= 2;
    void *q = hp_realloc(*p, ncap * elem);
    if (!q) return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

int hp_is_profiler_tid(int tid)
{
    return tid != 0 && (tid == atomic_load(&sampler.tid) || tid == atomic_load(&sampler.server_tid));
}

/* Under the registry lock: a watched process's thread tids[k], seen for the first time, gets a
 * record and is read in this pass; the count of readings. */
static size_t adopt_watched(size_t k, size_t nwork)
{
    sampler.known[k] = 1;
    uint32_t rec = hp_registry_discover(sampler.tids[k], sampler.process_comm);
    if (rec == HP_NO_RECORD || reserve((void **)&sampler.work, &sampler.cap_work, nwork + 1, sizeof *sampler.work) != 0)
        return nwork;
    sampler.work[nwork] = (struct reading){ .record = rec, .tid = sampler.tids[k] };
    return nwork + 1;
}

/* Under the registry lock: retire threads that left /proc, adopt ones seen twice unannounced
 * (unless `discover` is 0: a retiring pass between two regular ones would make "twice" a matter of
 * microseconds), and list the live ones to read. `listing` is the number hp_registry_listing gave
 * before the tids were read: a thread that set its tid since may be missing from them, and is
 * left for the next pass (retired as gone, it would go on with a recycled state). Returns how many
 * readings to take. */
static size_t reconcile(int discover, uint32_t listing)
{
    size_t nwork = 0, nnext = 0;
    if (reserve((void **)&sampler.known, &sampler.cap_known, sampler.ntids, 1) != 0) return 0;
    memset(sampler.known, 0, sampler.ntids);
    uint32_t count = hp_registry_count();
    for (uint32_t i = 0; i < count; i++) {
        struct hp_record *r = hp_record_at(i);
        if (r->gone || r->tid == 0) continue;
        long at = find_int(sampler.tids, sampler.ntids, r->tid);
        if ((int32_t)(r->tid_listing - listing) > 0) {      /* started since: known, not read */
            if (at >= 0) sampler.known[at] = 1;
            continue;
        }
        if (at < 0) {
            hp_ended_cpu_note(i, r);
            hp_registry_gone(r);
            continue;
        }
        sampler.known[at] = 1;
        if (r->exited) continue;
        if (reserve((void **)&sampler.work, &sampler.cap_work, nwork + 1, sizeof *sampler.work) != 0) break;
        sampler.work[nwork].record = i;
        sampler.work[nwork].tid = r->tid;
        nwork++;
    }
    if (!discover) return nwork;
    /* a watched process's threads never announce themselves: each is adopted when first seen
     * (its main thread first: the record numbered 0, "main") and read in the same pass */
    int watched = hp_platform_watched_pid();
    long main_at = watched ? find_int(sampler.tids, sampler.ntids, watched) : -1;
    if (main_at >= 0 && !sampler.known[main_at]) nwork = adopt_watched((size_t)main_at, nwork);
    for (size_t k = 0; k < sampler.ntids; k++) {
        if (sampler.known[k] || hp_is_profiler_tid(sampler.tids[k])) continue;
        if (watched) nwork = adopt_watched(k, nwork);
        else if (find_int(sampler.pending, sampler.npending, sampler.tids[k]) >= 0) hp_registry_discover(sampler.tids[k], sampler.process_comm);
        else sampler.next_pending[nnext++] = sampler.tids[k];
    }
    memcpy(sampler.pending, sampler.next_pending, nnext * sizeof *sampler.pending);
    sampler.npending = nnext;
    return nwork;
}

static void read_thread(struct reading *w, int with_stat)
{
    w->has_stat = with_stat && hp_platform_task_stat(w->tid, &w->stat) == 0;
    w->ok = (w->has_stat || !with_stat) && hp_platform_task_cpu_ns(w->tid, &w->cpu_ns) == 0;
    w->at_ns = hp_now_ns();
}

static void store(const struct reading *w, uint64_t min_interval_ns)
{
    struct hp_record *r = hp_record_at(w->record);
    if (!w->ok || r->tid != w->tid || r->exited || r->gone) return;
    /* watched from outside: the figures are the window's, from the first pass */
    if (r->base_time_ns == 0 && hp_platform_watched_pid() && !sampler.watch_started) r->cpu_before_ns = w->cpu_ns;
    /* Ticks give the user/system split; the CPU clock gives the total to the nanosecond. Without
     * a stat reading (no descriptor to spare) the last split is kept. */
    uint64_t cpu = w->cpu_ns > r->cpu_before_ns ? w->cpu_ns - r->cpu_before_ns : 0;
    double user_share = 1.0;
    if (w->has_stat) {
        r->status = w->stat.state;
        memcpy(r->comm, w->stat.comm, sizeof r->comm);
        uint64_t ticks = w->stat.utime_ticks + w->stat.stime_ticks;
        if (ticks) user_share = (double)w->stat.utime_ticks / (double)ticks;
    } else if (r->cpu_user_ns + r->cpu_sys_ns) {
        user_share = (double)r->cpu_user_ns / (double)(r->cpu_user_ns + r->cpu_sys_ns);
    }
    r->cpu_user_ns = (uint64_t)((double)cpu * user_share);
    r->cpu_sys_ns = cpu - r->cpu_user_ns;
    if (r->base_time_ns == 0) {
        r->base_cpu_ns = cpu;
        r->base_time_ns = w->at_ns;
        return;
    }
    uint64_t dt = w->at_ns - r->base_time_ns;
    if (dt < min_interval_ns || dt == 0) return;
    double pct = cpu > r->base_cpu_ns ? 100.0 * (double)(cpu - r->base_cpu_ns) / (double)dt : 0;
    if (pct > 100.0) pct = 100.0;
    r->cpu_pct = pct;
    r->has_pct = 1;
    if (!r->has_max || pct > r->max_pct) r->max_pct = pct;
    r->has_max = 1;
    r->base_cpu_ns = cpu;
    r->base_time_ns = w->at_ns;
}

/* Under the registry lock: the live threads to read, when /proc cannot be listed. */
static size_t known_threads(void)
{
    size_t nwork = 0;
    uint32_t count = hp_registry_count();
    for (uint32_t i = 0; i < count; i++) {
        struct hp_record *r = hp_record_at(i);
        if (r->gone || r->exited || r->tid == 0) continue;
        if (reserve((void **)&sampler.work, &sampler.cap_work, nwork + 1, sizeof *sampler.work) != 0) break;
        sampler.work[nwork++] = (struct reading){ .record = i, .tid = r->tid };
    }
    return nwork;
}

static void finish_pass(size_t nwork, int with_stat, int final)
{
    uint64_t interval_ns = (uint64_t)hp_config.interval_ms * 1000000u;
    for (size_t k = 0; k < nwork; k++) read_thread(&sampler.work[k], with_stat);
    /* A report's last pass updates CPU% only over a long enough stretch to mean something. */
    uint64_t min_interval = final ? interval_ns / 4 : interval_ns / 10;
    hp_registry_lock();
    for (size_t k = 0; k < nwork; k++) store(&sampler.work[k], min_interval);
    hp_registry_unlock();
    if (hp_platform_watched_pid()) {
        hp_ended_cpu_settle();
        sampler.watch_started = 1;
    }
}

/* List the process's threads and reconcile the records with them (caller holds pass_lock);
 * -1 when /proc could not be read. alone: the calling thread is the process's only one (its
 * status, just read, counted one thread): the list is that thread, no task directory read (a
 * short process's final report). */
static int list_and_reconcile(int discover, size_t *nwork, int alone)
{
    uint32_t listing = hp_registry_listing();
    int listed;
    if (alone) {
        listed = reserve((void **)&sampler.tids, &sampler.cap_tids, 1, sizeof *sampler.tids);
        if (listed == 0) sampler.tids[0] = hp_platform_gettid();
        sampler.ntids = listed == 0;
    } else {
        listed = hp_platform_list_tasks(&sampler.tids, &sampler.ntids, &sampler.cap_tids);
    }
    /* a watched process that has ended has no thread left (a zombie's main thread is listed) */
    if (hp_platform_watched_pid() && hp_platform_target_ended()) {
        listed = 0;
        sampler.ntids = 0;
    }
    if (listed != 0) return -1;
    if (discover && (reserve((void **)&sampler.pending, &sampler.cap_pending, sampler.ntids + sampler.npending, sizeof *sampler.pending) != 0 ||
                     reserve((void **)&sampler.next_pending, &sampler.cap_next, sampler.ntids, sizeof *sampler.next_pending) != 0))
        return -1;
    hp_sort(sampler.tids, sampler.ntids, sizeof *sampler.tids, cmp_int);
    hp_registry_lock();
    *nwork = reconcile(discover, listing);
    hp_registry_unlock();
    return 0;
}

void hp_sample(int final)
{
    hp_spin_lock(&sampler.pass_lock);
    HP_VIEWS_STEP0(sampler_pass);
    if (!final && !hp_platform_may_open_files()) {
        hp_registry_lock();
        size_t nwork = known_threads();
        hp_registry_unlock();
        finish_pass(nwork, 0, final);
        hp_spin_unlock(&sampler.pass_lock);
        return;
    }
    uint64_t rss = 0, peak = 0, threads = 0;
    if (hp_platform_rss(&rss, &peak, &threads) == 0) {
        atomic_store(&sampler.last_rss, rss);
        atomic_store(&sampler.last_peak_rss, peak);
        if (rss > atomic_load(&sampler.window_peak_rss)) atomic_store(&sampler.window_peak_rss, rss);
    }
    size_t nwork;
    if (list_and_reconcile(1, &nwork, threads == 1 && !hp_platform_watched_pid()) != 0) {
        hp_spin_unlock(&sampler.pass_lock);
        return;
    }

    /* With many threads, reading every stat file every pass costs ~9 µs a thread; CPU clocks
     * (~1 µs) are read every pass, state and name every 4th pass past 64 threads and every 8th
     * past 256 (always for a report). */
    static unsigned pass_number;
    unsigned period = nwork <= 64 ? 1 : nwork <= 256 ? 4 : 8;
    int with_stat = final || pass_number++ % period == 0;
    finish_pass(nwork, with_stat, final);
    hp_spin_unlock(&sampler.pass_lock);
}

/* Between regular passes: recycle the records and states of threads that have left /proc, and
 * nothing else (no readings, no discoveries, no history point). */
static void retire_ended(void)
{
    size_t nwork;
    hp_spin_lock(&sampler.pass_lock);
    if (hp_platform_may_open_files()) list_and_reconcile(0, &nwork, 0);
    hp_spin_unlock(&sampler.pass_lock);
}

void hp_sampler_retire_soon(void)
{
    if (atomic_exchange(&sampler.retire_requested, 1)) return;
    atomic_store(&sampler.wake_word, 1);
    hp_platform_wake(&sampler.wake_word);
}

void hp_sampler_open_unwinder_soon(void)
{
    if (atomic_exchange(&sampler.unwinder_requested, 1)) return;
    atomic_store(&sampler.wake_word, 1);
    hp_platform_wake(&sampler.wake_word);
}

void hp_sampler_note_start_cpu(uint64_t ns)
{
    sampler.start_cpu_ns = ns;
}

void hp_sampler_figures(struct hp_process_figures *out)
{
    out->rss_bytes = atomic_load(&sampler.last_rss);
    out->peak_rss_bytes = atomic_load(&sampler.last_peak_rss);
    out->window_peak_rss_bytes = atomic_load(&sampler.window_peak_rss);
    out->unseen_threads_cpu_ns = hp_ended_cpu_unseen_ns();
    out->profiler_cpu_ns = sampler.start_cpu_ns;
    /* the sampler's thread and the metrics server's are the profiler's too */
    uint64_t ns;
    int tid = atomic_load(&sampler.tid);
    if (tid && hp_thread_cpu_ns(tid, &ns) == 0) out->profiler_cpu_ns += ns;
    if ((tid = atomic_load(&sampler.server_tid)) && hp_thread_cpu_ns(tid, &ns) == 0) out->profiler_cpu_ns += ns;
    /* and a program thread's writing of the report so far, where no sampler wrote it */
    if ((tid = atomic_load(&sampler.report_tid)) && tid == hp_platform_gettid()) {
        uint64_t now = hp_self_cpu_ns();
        out->profiler_cpu_ns += now > sampler.report_cpu_ns ? now - sampler.report_cpu_ns : 0;
    }
}

void hp_sampler_note_report_thread(void)
{
    sampler.report_cpu_ns = hp_self_cpu_ns();
    atomic_store(&sampler.report_tid, hp_platform_gettid());
}

void hp_sampler_note_server_thread(int tid)
{
    atomic_store(&sampler.server_tid, tid);
}

void hp_sampler_main_exited(void)
{
    atomic_store(&sampler.main_exited, 1);
}

/* The main thread has ended: through pthread_exit (hp_sampler_main_exited), or unseen by any hook,
 * cancelled or by its own exit system call. It stays a zombie while other threads run. */
static int main_ended(void)
{
    if (atomic_load(&sampler.main_exited)) return 1;
    struct hp_task_stat st;
    return hp_platform_may_open_files() && hp_platform_task_stat(getpid(), &st) == 0 &&
           (st.state == 'Z' || st.state == 'X');
}

/* Whether a thread of the program's is still alive (not a zombie, as the main thread is after its
 * pthread_exit). Unknown counts as alive. */
static int program_alive(void)
{
    static int *all;
    static size_t n, cap;
    if (hp_platform_list_tasks(&all, &n, &cap) != 0) return 1;
    for (size_t i = 0; i < n; i++) {
        struct hp_task_stat st;
        if (hp_is_profiler_tid(all[i])) continue;
        if (hp_platform_task_stat(all[i], &st) != 0) continue;     /* gone meanwhile */
        if (st.state != 'Z' && st.state != 'X') return 1;
    }
    return 0;
}

static void *sampler_main(void *arg)
{
    (void)arg;
    atomic_store(&sampler.launch, LAUNCH_DONE);    /* before pthread_create returns, maybe */
    hp_set_self(hp_registry_profiler_state());
    atomic_store(&sampler.tid, hp_platform_gettid());
    hp_platform_name_self("hotpath-sampler");   /* not the program's name, in ps -L and top -H */
    /* the process lasts: mimalloc from now on, unless its dlopen's descriptor for a moment could
     * be the one a program at its limit is about to take */
    hp_memory_settle(hp_platform_may_open_files() ? hp_own_dlopen : NULL);
    hp_unwind_on_sampler(atomic_exchange(&sampler.unwinder_requested, 0));
    uint64_t last_checkpoint = hp_now_ns();
    uint64_t next_pass = 0;      /* when the next regular pass is due; 0: one interval from now */
    sampler.late_due_ns = sampler.late_callback ? sampler.origin_ns + (uint64_t)sampler.late_ms * 1000000u : 0;
    if (hp_platform_watched_pid()) hp_sample(0);   /* the window begins now: each thread's first reading */
    for (;;) {
        uint64_t now = hp_now_ns();
        if (!next_pass) {
            unsigned ms = hp_config.interval_ms;
            if (!atomic_load(&sampler.settled) && ms > HP_SETTLE_MS) ms = HP_SETTLE_MS;
            next_pass = now + (uint64_t)ms * 1000000u;
        }
        /* late_callback's time, when it comes before the pass (never before the first pass) */
        int for_late = sampler.late_due_ns && atomic_load(&sampler.settled) && sampler.late_due_ns < next_pass;
        uint64_t wake_at = for_late ? sampler.late_due_ns : next_pass;
        uint64_t left = wake_at > now ? wake_at - now : 0;
        struct timespec interval = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
        hp_platform_wait(&sampler.wake_word, 0, &interval);
        atomic_store(&sampler.wake_word, 0);
        if (atomic_exchange(&sampler.report_requested, 0)) {
            atomic_store(&sampler.report_started, 1);
            sampler.report_callback();
            atomic_store(&sampler.done_word, 1);
            hp_platform_wake(&sampler.done_word);
            continue;
        }
        if (atomic_exchange(&sampler.unwinder_requested, 0)) {
            hp_unwind_on_sampler(1);
            if (hp_now_ns() < next_pass) continue;
        }
        if (atomic_exchange(&sampler.retire_requested, 0) && hp_now_ns() < next_pass) {
            retire_ended();
            continue;
        }
        now = hp_now_ns();
        if (sampler.late_due_ns && now >= sampler.late_due_ns) {
            sampler.late_due_ns = 0;
            atomic_store(&sampler.settled, 1);      /* when this wake is the first pass */
            sampler.late_callback();
        }
        if (for_late && now < next_pass) continue;  /* woken for late_callback only */
        next_pass = 0;
        atomic_store(&sampler.settled, 1);
        hp_sample(0);
        if (!hp_platform_watched_pid() && main_ended() && !program_alive()) {
            /* as glibc would have, on the last thread: its atexit handlers run here, and with
             * this thread's mask (every signal blocked) their raise() would do nothing */
            sigset_t none;
            sigemptyset(&none);
            pthread_sigmask(SIG_SETMASK, &none, NULL);
            exit(0);
        }
        hp_history_record();
        /* a fork child names frames only in a report of its own */
        if (atomic_exchange(&sampler.forked, 0) && hp_config_writes_report() && hp_platform_may_open_files())
            hp_syms_keep_for_children();
        now = hp_now_ns();
        if (hp_config.checkpoint_s && hp_platform_may_open_files() && now - last_checkpoint >= hp_config.checkpoint_s * 1000000000ull) {
            sampler.checkpoint_callback();
            last_checkpoint = now;
        }
    }
    return NULL;
}

static int launch(void)
{
    int expect = LAUNCH_NONE;
    if (!atomic_compare_exchange_strong(&sampler.launch, &expect, LAUNCH_UNDER_WAY))
        return expect == LAUNCH_FAILED ? -1 : 0;     /* made, or being made (a handler's caller) */
    struct hp_thread *t = hp_guard_raise();     /* the pthread_create hook passes it through */
    int r = hp_platform_start_thread(sampler_main);
    hp_guard_lower(t);
    atomic_store(&sampler.launch, r == 0 ? LAUNCH_DONE : LAUNCH_FAILED);
    return r == 0 ? 0 : -1;
}

static void set_origin(void)
{
    sampler.origin_ns = hp_now_ns();
    unsigned ms = hp_config.interval_ms < HP_SETTLE_MS ? hp_config.interval_ms : HP_SETTLE_MS;
    sampler.due_ns = sampler.origin_ns + (uint64_t)ms * 1000000u;
}

int hp_sampler_start(void (*report_fn)(void), void (*checkpoint_fn)(void), void (*late_fn)(void),
                     unsigned late_ms, int defer)
{
    sampler.report_callback = report_fn;
    sampler.checkpoint_callback = checkpoint_fn;
    sampler.late_callback = late_fn;
    sampler.late_ms = late_ms;
    sampler.deferred = defer;
    struct hp_task_stat main_stat;
    int watched = hp_platform_watched_pid();
    if (watched && hp_platform_task_stat(watched, &main_stat) == 0) memcpy(sampler.process_comm, main_stat.comm, sizeof sampler.process_comm);
    else hp_platform_thread_comm(sampler.process_comm);
    set_origin();
    return defer ? 0 : launch();
}

int hp_sampler_launch(void)
{
    if (atomic_load_explicit(&sampler.launch, memory_order_relaxed) == LAUNCH_DONE) return 0;
    if (!sampler.report_callback) return -1;    /* the profiler is not running */
    /* not from inside dl_iterate_phdr or dlclose: the new thread's first step, mimalloc's dlopen,
     * would wait for this thread's loader lock while holding the other, which this thread may ask
     * for next (a dlsym in its callback); a later point starts it */
    struct hp_thread *self = hp_self;
    if (self && atomic_load_explicit(&self->in_loader, memory_order_relaxed)) return -1;
    int saved = errno;
    int r = launch();
    errno = saved;
    return r;
}

int hp_sampler_running(void)
{
    return atomic_load(&sampler.launch) == LAUNCH_DONE;
}

int hp_sampler_wanted(void)
{
    return atomic_load_explicit(&sampler.launch, memory_order_relaxed) == LAUNCH_NONE && sampler.report_callback;
}

int hp_sampler_launch_due(void)
{
    return hp_sampler_wanted() && hp_now_ns() >= sampler.due_ns;
}

void hp_sampler_restart_in_child(void)
{
    atomic_flag_clear(&sampler.pass_lock.held);
    atomic_store(&sampler.tid, 0);
    sampler.start_cpu_ns = 0;          /* the parent's start */
    atomic_store(&sampler.report_requested, 0);
    atomic_store(&sampler.report_started, 0);
    atomic_store(&sampler.retire_requested, 0);
    atomic_store(&sampler.unwinder_requested, 0);
    atomic_store(&sampler.forked, 0);
    atomic_store(&sampler.launch, LAUNCH_NONE);
    atomic_store(&sampler.wake_word, 0);
    atomic_store(&sampler.done_word, 0);
    atomic_store(&sampler.settled, 0);
    sampler.npending = 0;
    hp_history_reset_in_child();
    set_origin();
    if (!sampler.deferred) launch();
}

void hp_sampler_note_fork(void)
{
    atomic_store(&sampler.forked, 1);
}

int hp_sampler_settled(void)
{
    /* a deferred sampler may never run: the time it would have taken counts */
    return atomic_load(&sampler.settled) ||
           (sampler.deferred && hp_now_ns() - sampler.origin_ns >= (uint64_t)HP_SETTLE_MS * 1000000u);
}

int hp_sampler_write_report(int start_ms, int finish_ms)
{
    int launch = atomic_load(&sampler.launch);
    if (launch == LAUNCH_NONE || launch == LAUNCH_FAILED) return -1;   /* one being made will answer */
    if (atomic_load(&sampler.tid) == hp_platform_gettid()) return -1;   /* asked by the sampler */
    atomic_store(&sampler.done_word, 0);           /* a report before a failed exec was one already */
    atomic_store(&sampler.report_started, 0);
    atomic_store(&sampler.report_requested, 1);
    atomic_store(&sampler.wake_word, 1);
    hp_platform_wake(&sampler.wake_word);
    uint64_t start = hp_now_ns();
    while (!atomic_load(&sampler.done_word)) {
        uint64_t now = hp_now_ns();
        uint64_t deadline = start + (uint64_t)(atomic_load(&sampler.report_started) ? finish_ms : start_ms) * 1000000u;
        if (now >= deadline) return -1;
        struct timespec left = { (time_t)((deadline - now) / 1000000000u), (long)((deadline - now) % 1000000000u) };
        hp_platform_wait(&sampler.done_word, 0, &left);
    }
    return 0;
}
