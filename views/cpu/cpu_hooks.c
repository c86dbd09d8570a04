/* cpu_hooks.c — a thread that blocks the CPU profile's signal (views/cpu/cpu_profile.h) has its
 * sampling timer stopped meanwhile, so the profiler's signal never waits pending in its mask
 * where the program's sigpending, sigwait or signalfd would find it. SIGPROF and setitimer are
 * the program's own (process/signals.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>

#include "cpu_profile.h"
#include "core/hooks.h"

typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

/* The real functions (real_lookup.h), looked up at start (hp_resolve_cpu_masks), or at their first
 * call before it: libunwind's first use (core/unwind.h) calls sigprocmask, and a first-call lookup
 * there asked dlsym for the loader's lock, which a thread inside dlopen held while its sampled
 * allocation waited for that first use to end. */
#define CPU_FNS(X, C)                                                                           \
    X(C, pthread_sigmask, "pthread_sigmask", NULL, EAGER, int, (int, const sigset_t *, sigset_t *)) \
    X(C, sigprocmask,     "sigprocmask",     NULL, EAGER, int, (int, const sigset_t *, sigset_t *))

static struct {
    HP_REAL_FIELDS(CPU_FNS)
} next;
HP_REAL_LAZY_ACCESSORS(CPU_FNS, next)

void hp_resolve_cpu_masks(void)
{
    HP_REAL_LOOKUPS(CPU_FNS, next);
}

/* The profile's signal once how and set apply: 1 blocked, 0 unblocked, -1 as it was. */
static int signal_after(int how, const sigset_t *set)
{
    int signo = hp_cpu_signal();
    if (!set || !signo) return -1;
    int in = sigismember(set, signo) == 1;
    if (how == SIG_SETMASK) return in;
    if (!in) return -1;
    return how == SIG_BLOCK ? 1 : how == SIG_UNBLOCK ? 0 : -1;
}

/* The real call between stopping the thread's timer (before a block) and starting it (after an
 * unblock). Both functions return 0 on success. */
static int masking(sigmask_fn real, int how, const sigset_t *set, sigset_t *old)
{
    struct hp_thread *t = hp_active ? hp_self : NULL;
    /* the profiler's own changes (libunwind blocks every signal around its cache, inside the
     * profile's handler, where its signal is blocked anyway) leave the timer alone */
    int after = t && !t->guard ? signal_after(how, set) : -1;
    if (after == 1) hp_cpu_thread_masked(t, 1);
    int r = real(how, set, old);
    if (after == 0 ? r == 0 : after == 1 && r != 0) hp_cpu_thread_masked(t, 0);
    return r;
}

HP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    sigmask_fn real = next_pthread_sigmask();
    if (!real) return ENOSYS;
    return masking(real, how, set, old);
}

HP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    sigmask_fn real = next_sigprocmask();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return masking(real, how, set, old);
}
