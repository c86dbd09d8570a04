/* signals.c — signal dispositions (docs/DESIGN.md rules 11, 14): where the program leaves a signal
 * whose default action ends the process (SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM,
 * SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS, and the fatal SIGSEGV, SIGBUS, SIGABRT,
 * SIGFPE, SIGILL) at that default, the profiler's handler has the report written, then dies the
 * same death. The program reads back SIG_DFL, and the moment it installs a handler of its own,
 * its handler wins. Left alone: SIGTRAP (debuggers), SIGKILL and SIGSTOP (cannot be caught) and
 * the real-time signals (glibc's own use some). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../collectors/cpu_profile.h"
#include "../collectors/platform.h"
#include "../collectors/sampler.h"
#include "../collectors/spinlock.h"
#include "../report/report.h"
#include "real.h"

#define REPORT_START_MS 2000
#define REPORT_TIMEOUT_MS 2000

/* Ending signals whose default action kills the process: reported first, then the same death.
 * SIGPIPE is how a pipeline's producer usually ends (git log | head). */
static const int report_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM,
                                      SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGSYS,
                                      SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

static hp_spinlock signals_lock = HP_SPINLOCK_INIT;
static unsigned char ours[NSIG];               /* our handler is installed for this signal */
static struct sigaction program_view[NSIG];    /* what the program believes is installed */

static int is_report_signal(int sig)
{
    for (size_t i = 0; i < sizeof report_signals / sizeof *report_signals; i++)
        if (report_signals[i] == sig) return 1;
    return 0;
}

static int is_default(const struct sigaction *act)
{
    return !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
}

/* The report is written by the sampler thread (this handler may have interrupted a thread that
 * holds a libc lock); then the default action runs, so the exit status is the signal's. */
static void on_report_signal(int sig)
{
    int saved = errno;
    if (getpid() == hp_pid) {
        hp_locks_flush_deferred();   /* a wait this thread kept */
        hp_report_ending_signal(sig, hp_platform_gettid());
        hp_sampler_write_report(REPORT_START_MS, REPORT_TIMEOUT_MS);
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    hp_hot.real.sigaction(sig, &dfl, NULL);
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
        program_view[sig] = cur;
        if (install_ours(sig) == 0) ours[sig] = 1;
    }
}

/* The CPU profile's SIGPROF handler (collectors/cpu_profile.c), where SIGPROF is at its default:
 * the program reads back SIG_DFL, and its own handler replaces ours and turns the profile off. */
int hp_signals_claim_sigprof(void (*fn)(int, siginfo_t *, void *))
{
    struct sigaction cur, act;
    if (hp_hot.real.sigaction(SIGPROF, NULL, &cur) != 0 || !is_default(&cur)) return -1;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = fn;
    /* not SA_ONSTACK: a program's alternate stack may be small (Rust's, ~8 KB) or freed while
     * still registered (Ruby frees its main thread's); the handler checks its room instead */
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    /* the program's handlers wait until a sample is taken: one that ran inside it would find the
     * thread's guard up, and its I/O and allocations would go uncounted. Faults stay deliverable. */
    sigfillset(&act.sa_mask);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&act.sa_mask, faults[i]);
    hp_spin_lock(&signals_lock);
    program_view[SIGPROF] = cur;
    int r = hp_hot.real.sigaction(SIGPROF, &act, NULL);
    if (r == 0) ours[SIGPROF] = 1;
    hp_spin_unlock(&signals_lock);
    return r;
}

/* A SIGPROF that is not our timer's, while the program's view is SIG_DFL: the default action. */
void hp_signals_default_sigprof(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    hp_hot.real.sigaction(SIGPROF, &dfl, NULL);
}

HP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    hp_resolve();
    if (!hp_active || sig <= 0 || sig >= NSIG || (!is_report_signal(sig) && sig != SIGPROF))
        return hp_hot.real.sigaction(sig, act, old);
    int r = 0, saved = errno;
    hp_spin_lock(&signals_lock);
    if (ours[sig]) {
        struct sigaction view = program_view[sig];
        if (act && !is_default(act)) {
            if (sig == SIGPROF) hp_cpu_off(HP_CPU_OFF_HANDLER);   /* the program wins */
            r = hp_hot.real.sigaction(sig, act, NULL);   /* the program's handler replaces ours */
            if (r == 0) ours[sig] = 0;
            else saved = errno;
        } else if (act) {
            program_view[sig] = *act;
        }
        if (r == 0 && old) *old = view;
    } else if (act && is_default(act) && sig != SIGPROF) {
        /* back to the default: the default action with a report before it */
        r = hp_hot.real.sigaction(sig, NULL, old);
        if (r == 0 && install_ours(sig) == 0) {
            ours[sig] = 1;
            program_view[sig] = *act;
        }
        if (r != 0) saved = errno;
    } else {
        r = hp_hot.real.sigaction(sig, act, old);
        if (r != 0) saved = errno;
    }
    hp_spin_unlock(&signals_lock);
    errno = saved;
    return r;
}

/* signal() has BSD semantics in glibc: the signal is masked in its handler, calls restart. */
HP_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
    hp_resolve();
    if (!hp_active || sig <= 0 || sig >= NSIG || (!is_report_signal(sig) && sig != SIGPROF))
        return hp_hot.real.signal(sig, handler);
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    act.sa_flags = SA_RESTART;
    if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
    return old.sa_handler;
}

