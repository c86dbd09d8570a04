/* cpu.c — the program wins SIGPROF (docs/DESIGN.md rule 11): setitimer(ITIMER_PROF) by the program turns
 * the CPU profile off (collectors/cpu_profile.c) before the program's timer starts. The SIGPROF
 * disposition itself is kept in signals.c. A thread that blocks SIGPROF has its sampling timer
 * stopped meanwhile, so the profiler's SIGPROF never waits pending in its mask. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/time.h>

#include "../collectors/cpu_profile.h"
#include "real.h"

typedef int (*setitimer_fn)(__itimer_which_t, const struct itimerval *, struct itimerval *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

/* The next definition of a function these hooks wrap, looked up at its first call; errno kept. */
static void *next_fn(const char *name)
{
    int saved = errno;
    void *f = dlsym(RTLD_NEXT, name);
    errno = saved;
    return f;
}

HP_EXPORT int setitimer(__itimer_which_t which, const struct itimerval *nv, struct itimerval *ov)
{
    static setitimer_fn real;
    if (!real && !(real = (setitimer_fn)next_fn("setitimer"))) {
        errno = ENOSYS;
        return -1;
    }
    if (hp_active && which == ITIMER_PROF && nv && (nv->it_value.tv_sec || nv->it_value.tv_usec))
        hp_cpu_off(HP_CPU_OFF_ITIMER);
    return real(which, nv, ov);
}


/* SIGPROF once how and set apply: 1 blocked, 0 unblocked, -1 as it was. */
static int sigprof_after(int how, const sigset_t *set)
{
    if (!set) return -1;
    int in = sigismember(set, SIGPROF) == 1;
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
     * SIGPROF handler, where SIGPROF is blocked anyway) leave the timer alone */
    int after = t && !t->guard ? sigprof_after(how, set) : -1;
    if (after == 1) hp_cpu_thread_masked(t, 1);
    int r = real(how, set, old);
    if (after == 0 ? r == 0 : after == 1 && r != 0) hp_cpu_thread_masked(t, 0);
    return r;
}

HP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    static sigmask_fn real;
    if (!real && !(real = (sigmask_fn)next_fn("pthread_sigmask"))) return ENOSYS;
    return masking(real, how, set, old);
}

HP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    static sigmask_fn real;
    if (!real && !(real = (sigmask_fn)next_fn("sigprocmask"))) {
        errno = ENOSYS;
        return -1;
    }
    return masking(real, how, set, old);
}
