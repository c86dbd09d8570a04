/* signals.c — signal dispositions (docs/DESIGN.md rules 11, 14): where the program leaves a signal
 * whose default action ends the process (SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM,
 * SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS, and the fatal SIGSEGV, SIGBUS, SIGABRT,
 * SIGFPE, SIGILL) at that default, the profiler's handler has the report written, then dies the
 * same death. The program reads back SIG_DFL, and the moment it installs a handler of its own,
 * its handler wins. The CPU profile samples on a real-time signal of its own, hidden the same
 * way: the program reads back SIG_DFL there, and when it installs a handler of its own the
 * profile moves to another free real-time signal first. SIGPROF and setitimer are the program's.
 * Left alone: SIGTRAP (debuggers), SIGKILL and SIGSTOP (cannot be caught) and the other
 * real-time signals. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/view.h"
#include "core/platform.h"
#include "core/sampler.h"
#include "core/spinlock.h"
#include "report/report.h"
#include "process.h"

#define REPORT_TIMEOUT_MS 2000

/* Ending signals whose default action kills the process: reported first, then the same death.
 * SIGPIPE is how a pipeline's producer usually ends (git log | head). */
static const int report_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM,
                                      SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS,
                                      SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

/* The dispositions as the program sees them, where ours are what the kernel has. */
static struct {
    hp_spinlock lock;
    unsigned char ours[NSIG];               /* our handler is installed for this signal */
    struct sigaction program_view[NSIG];    /* what the program believes is installed there */
    void (*cpu_handler)(int, siginfo_t *, void *);   /* the CPU profile's, once installed */
    int cpu_onstack;                        /* installed with SA_ONSTACK (a Go program's threads) */
    void (*cpu_moved)(int signo), (*cpu_lost)(void);   /* the program took it: moved, or none free */
    _Atomic int cpu_signal;                 /* the signal it is installed for now, 0 none */
    _Atomic int nodefer;                    /* the program installed a handler with SA_NODEFER */
    _Atomic int handlers;                   /* the program installed a handler of its own */
} disp = { .lock = HP_SPINLOCK_INIT };

static int is_report_signal(int sig)
{
    for (size_t i = 0; i < sizeof report_signals / sizeof *report_signals; i++)
        if (report_signals[i] == sig) return 1;
    return 0;
}

static int is_cpu_signal(int sig)
{
    return sig == atomic_load_explicit(&disp.cpu_signal, memory_order_relaxed);
}

/* Signals whose disposition this file keeps: the others go to the kernel as they are. */
static int kept(int sig)
{
    return hp_active && sig > 0 && sig < NSIG && (is_report_signal(sig) || is_cpu_signal(sig));
}

static int is_default(const struct sigaction *act)
{
    return !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
}

static int is_cpu_handler(const struct sigaction *act)
{
    return (act->sa_flags & SA_SIGINFO) && disp.cpu_handler && act->sa_sigaction == disp.cpu_handler;
}

static void set_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    hp_hot.real.sigaction(sig, &dfl, NULL);
}

/* The report is written by the sampler thread (this handler may have interrupted a thread that
 * holds a libc lock), or here, without file:line, before the sampler started; then the default
 * action runs, so the exit status is the signal's. */
static void on_report_signal(int sig)
{
    int saved = errno;
    if (getpid() == hp_pid) {
        hp_report_ending_signal(sig, hp_platform_gettid());
        hp_report_on_this_thread(REPORT_TIMEOUT_MS, 0);
    }
    set_default(sig);
    errno = saved;
    raise(sig);   /* blocked while we run: delivered with the default action as we return (a
                   * fault would also recur as the faulting instruction runs again) */
}

static int install_ours(int sig)
{
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_report_signal;
    act.sa_flags = SA_RESTART | SA_ONSTACK;   /* the program's alternate stack, if it has one */
    return hp_hot.real.sigaction(sig, &act, NULL);
}

void hp_signals_init(void)
{
    for (size_t i = 0; i < sizeof report_signals / sizeof *report_signals; i++) {
        int sig = report_signals[i];
        struct sigaction cur;
        if (hp_hot.real.sigaction(sig, NULL, &cur) != 0 || !is_default(&cur)) continue;
        disp.program_view[sig] = cur;
        if (install_ours(sig) == 0) disp.ours[sig] = 1;
    }
}

/* The CPU profile's handler on sig, which is at its default action (caller holds the lock).
 * Not SA_ONSTACK unless the program is Go: a program's alternate stack may be small (Rust's,
 * ~8 KB) or freed while still registered (Ruby frees its main thread's), and the handler checks
 * its room instead; but Go runs goroutines on stacks too small for the kernel's signal frame and
 * gives every thread an alternate stack for handlers. The program's handlers wait until a sample
 * is taken: one that ran inside it would find the thread's guard up, and its I/O and allocations
 * would go uncounted. Faults stay deliverable. */
static int install_cpu(int sig, int extra_flags)
{
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = disp.cpu_handler;
    act.sa_flags = SA_SIGINFO | SA_RESTART | (disp.cpu_onstack ? SA_ONSTACK : 0) | extra_flags;
    sigfillset(&act.sa_mask);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&act.sa_mask, faults[i]);
    if (hp_hot.real.sigaction(sig, &act, NULL) != 0) return -1;
    memset(&disp.program_view[sig], 0, sizeof disp.program_view[sig]);
    disp.program_view[sig].sa_handler = SIG_DFL;
    disp.ours[sig] = 1;
    atomic_store(&disp.cpu_signal, sig);
    return 0;
}

/* A real-time signal at its default action that is not in our hands, from the first one up
 * (down = 0) or from the last one down (caller holds the lock); 0 when there is none. The
 * program sets a real-time signal through this file's hook, so one the kernel has at its default
 * is one the program has not taken. */
static int free_rt_signal(int down)
{
    int lo = SIGRTMIN, hi = SIGRTMAX;
    for (int i = 0; i <= hi - lo; i++) {
        int sig = down ? hi - i : lo + i;
        struct sigaction cur;
        if (!disp.ours[sig] && hp_hot.real.sigaction(sig, NULL, &cur) == 0 && is_default(&cur)) return sig;
    }
    return 0;
}

/* The first real-time signal: Go's runtime, which installs handlers on the signals from 35 up
 * through libc, leaves glibc's first one (34) alone. */
static int claim_cpu(void (*fn)(int, siginfo_t *, void *), int onstack, void (*moved)(int signo),
                     void (*lost)(void))
{
    hp_spin_lock(&disp.lock);
    disp.cpu_handler = fn;
    disp.cpu_onstack = onstack;
    disp.cpu_moved = moved;
    disp.cpu_lost = lost;
    int sig = free_rt_signal(0);
    if (sig && install_cpu(sig, 0) != 0) sig = 0;
    hp_spin_unlock(&disp.lock);
    return sig ? sig : -1;
}

/* The program takes the CPU profile's signal (caller holds the lock): the profile moves to the
 * last free real-time signal (programs take theirs from the first up), its timers made anew on
 * it, before the program's handler is installed; with none free it stops. */
static void cpu_signal_taken(void)
{
    int to = free_rt_signal(1);
    if (to && install_cpu(to, 0) == 0) {
        disp.cpu_moved(to);
        return;
    }
    atomic_store(&disp.cpu_signal, 0);
    disp.cpu_lost();
}

const struct hp_view_signals hp_view_signals = { claim_cpu, set_default };

/* In a vfork child (the parent's memory, dispositions of its own until it execs): the call goes to
 * the kernel as the program made it and nothing of ours changes, or the parent would take the
 * child's dispositions for its own (Python resets SIGPIPE to its default in every child it
 * spawns: the next child would inherit it ignored). Where our handler is what the kernel had,
 * the child reads back the program's view. */
static int child_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction kernel;
    int r = hp_hot.real.sigaction(sig, act, &kernel);
    if (r == 0 && old) {
        int ours_there = (kernel.sa_flags & SA_SIGINFO) ? is_cpu_handler(&kernel) : kernel.sa_handler == on_report_signal;
        *old = ours_there ? disp.program_view[sig] : kernel;
    }
    return r;
}

/* Where our handler is installed (caller holds the lock): the program's new disposition act. */
static int replace_ours(int sig, const struct sigaction *act)
{
    if (is_default(act)) {
        disp.program_view[sig] = *act;
        return 0;
    }
    if (is_cpu_signal(sig) && is_cpu_handler(act))
        /* our own handler, read from the kernel and put back with SA_ONSTACK added (as Go does
         * to handlers it finds): it stays ours, on the alternate stack if asked */
        return install_cpu(sig, act->sa_flags & SA_ONSTACK);
    if (is_cpu_signal(sig)) cpu_signal_taken();
    int r = hp_hot.real.sigaction(sig, act, NULL);   /* the program's handler replaces ours */
    if (r == 0) disp.ours[sig] = 0;
    return r;
}

int hp_signals_maybe_in_handler(void)
{
    sigset_t now;
    if (atomic_load(&disp.nodefer) || syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, _NSIG / 8) != 0) return 1;
    return !sigisemptyset(&now);
}

int hp_signals_cpu_claimed(void)
{
    return atomic_load(&disp.cpu_signal) != 0;
}

int hp_signals_program_handles(void)
{
    return atomic_load(&disp.handlers);
}

static void note_handler(const struct sigaction *act)
{
    if (!act || !((act->sa_flags & SA_SIGINFO) || (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN))) return;
    atomic_store(&disp.handlers, 1);
    if (act->sa_flags & SA_NODEFER) atomic_store(&disp.nodefer, 1);
}

HP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    hp_resolve();
    note_handler(act);
    if (!kept(sig)) return hp_hot.real.sigaction(sig, act, old);
    if (hp_vfork_child()) return child_sigaction(sig, act, old);
    int r = 0, saved = errno;
    hp_spin_lock(&disp.lock);
    if (disp.ours[sig]) {
        struct sigaction view = disp.program_view[sig];
        if (act) r = replace_ours(sig, act);
        if (r == 0 && old) *old = view;
        else if (r != 0) saved = errno;
    } else if (act && is_default(act) && is_report_signal(sig)) {
        /* back to the default: the default action with a report before it */
        r = hp_hot.real.sigaction(sig, NULL, old);
        if (r == 0 && install_ours(sig) == 0) {
            disp.ours[sig] = 1;
            disp.program_view[sig] = *act;
        }
        if (r != 0) saved = errno;
    } else {
        r = hp_hot.real.sigaction(sig, act, old);
        if (r != 0) saved = errno;
    }
    hp_spin_unlock(&disp.lock);
    errno = saved;
    return r;
}

/* signal() has BSD semantics in glibc: the signal is masked in its handler, calls restart. */
HP_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
    hp_resolve();
    if (!kept(sig)) return hp_hot.real.signal(sig, handler);
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    act.sa_flags = SA_RESTART;
    if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
    return old.sa_handler;
}
