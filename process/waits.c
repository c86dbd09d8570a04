/* waits.c — the calls a program blocks in (sleeps, polls, waits for a child or a signal): where
 * it is seen to outlive a shell's command of milliseconds, so a deferred sampler (core/sampler.h)
 * starts here, before the program blocks, and an idle server or a waiting shell still gets its
 * passes and its metrics server. Nothing else changes: the real function is called as made, a
 * cancellation point still. A wait for a child always (a shell waiting for a long command still
 * gets its live server; the price, a second thread in a shell that forks on, is in
 * docs/DESIGN.md); the others only in a program with no signal handler of its own: making a thread
 * blocks every signal for a moment, and a signal that came in that moment would run its handler
 * before the call, not interrupt it (Python, told by SIGINT's handler, would sleep on through its
 * Ctrl-C); nor can a handler of the program's be running here then, which may have interrupted
 * malloc, which pthread_create would enter again. A program with handlers starts it from its
 * other points (core/sampler.h). The real functions are looked up at start with the other hooks'
 * (hp_resolve_waits): at a first call they would be looked up where dlsym may not be called, in a
 * signal handler (every one of these calls but select is async-signal-safe) or inside the
 * program's dl_iterate_phdr callback, whose loader lock dlsym's own lock may then wait behind (a
 * thread in dlopen holds that one and waits for this one). Only a call before the start looks its
 * function up itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sampler.h"
#include "process.h"

#define WAIT_FNS(X, C)                                                                                                         \
    X(C, sleep,           "sleep",           NULL, EAGER, unsigned, (unsigned))                                                \
    X(C, usleep,          "usleep",          NULL, EAGER, int, (useconds_t))                                                   \
    X(C, nanosleep,       "nanosleep",       NULL, EAGER, int, (const struct timespec *, struct timespec *))                   \
    X(C, clock_nanosleep, "clock_nanosleep", NULL, EAGER, int, (clockid_t, int, const struct timespec *, struct timespec *))   \
    X(C, pause,           "pause",           NULL, EAGER, int, (void))                                                         \
    X(C, sigsuspend,      "sigsuspend",      NULL, EAGER, int, (const sigset_t *))                                             \
    X(C, sigwait,         "sigwait",         NULL, EAGER, int, (const sigset_t *, int *))                                      \
    X(C, sigwaitinfo,     "sigwaitinfo",     NULL, EAGER, int, (const sigset_t *, siginfo_t *))                                \
    X(C, sigtimedwait,    "sigtimedwait",    NULL, EAGER, int, (const sigset_t *, siginfo_t *, const struct timespec *))       \
    X(C, poll,            "poll",            NULL, EAGER, int, (struct pollfd *, nfds_t, int))                                 \
    X(C, poll_chk,        "__poll_chk",      NULL, EAGER, int, (struct pollfd *, nfds_t, int, size_t))                         \
    X(C, ppoll,           "ppoll",           NULL, EAGER, int, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *)) \
    X(C, select,          "select",          NULL, EAGER, int, (int, fd_set *, fd_set *, fd_set *, struct timeval *))          \
    X(C, pselect,         "pselect",         NULL, EAGER, int, (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *)) \
    X(C, epoll_wait,      "epoll_wait",      NULL, EAGER, int, (int, struct epoll_event *, int, int))                          \
    X(C, epoll_pwait,     "epoll_pwait",     NULL, EAGER, int, (int, struct epoll_event *, int, int, const sigset_t *))        \
    X(C, wait,            "wait",            NULL, EAGER, pid_t, (int *))                                                      \
    X(C, waitpid,         "waitpid",         NULL, EAGER, pid_t, (pid_t, int *, int))                                          \
    X(C, waitid,          "waitid",          NULL, EAGER, int, (idtype_t, id_t, siginfo_t *, int))                             \
    X(C, wait3,           "wait3",           NULL, EAGER, pid_t, (int *, int, struct rusage *))                                \
    X(C, wait4,           "wait4",           NULL, EAGER, pid_t, (pid_t, int *, int, struct rusage *))

static struct {
    HP_REAL_FIELDS(WAIT_FNS)
} waits;
HP_REAL_LAZY_ACCESSORS(WAIT_FNS, waits)

void hp_resolve_waits(void)
{
    HP_REAL_LOOKUPS(WAIT_FNS, waits);
}

/* for_child: a wait for a child, whose end stays to be reaped (a zombie) if SIGCHLD's handler
 * ran in that moment, so the wait still returns: a shell, whose handlers are many, waits there. */
static __attribute__((noinline, cold)) void start_sampler(int for_child)
{
    int saved = errno;
    if (!hp_vfork_child() && (for_child || !hp_signals_program_handles())) hp_sampler_launch();
    errno = saved;
}

static inline int zero_timespec(const struct timespec *t)
{
    return t && t->tv_sec == 0 && t->tv_nsec == 0;
}

static inline void blocking(int for_child)
{
    if (__builtin_expect(hp_sampler_wanted(), 0)) start_sampler(for_child);
}

/* The function's real definition, or the call fails with ENOSYS (there is none after us); a call
 * that cannot block (WNOHANG, a zero timeout) is no sign of a lasting program. */
#define CALL(fn, blocks, fail, ...)                \
    do {                                           \
        if (blocks) blocking(FOR_CHILD_##fn);      \
        __typeof__(waits.fn) real = waits_##fn();  /* looked up at start, or else now */ \
        if (!real) {                               \
            errno = ENOSYS;                        \
            return fail;                           \
        }                                          \
        return real(__VA_ARGS__);                  \
    } while (0)

/* FOR_CHILD_fn: whether fn waits for a child (CALL, start_sampler) */
enum { FOR_CHILD_sleep = 0, FOR_CHILD_usleep = 0, FOR_CHILD_nanosleep = 0, FOR_CHILD_clock_nanosleep = 0, FOR_CHILD_pause = 0, FOR_CHILD_sigsuspend = 0, FOR_CHILD_sigwait = 0, FOR_CHILD_sigwaitinfo = 0, FOR_CHILD_sigtimedwait = 0, FOR_CHILD_poll = 0, FOR_CHILD_poll_chk = 0, FOR_CHILD_ppoll = 0, FOR_CHILD_select = 0, FOR_CHILD_pselect = 0, FOR_CHILD_epoll_wait = 0, FOR_CHILD_epoll_pwait = 0 };
enum { FOR_CHILD_wait = 1, FOR_CHILD_waitpid = 1, FOR_CHILD_waitid = 1, FOR_CHILD_wait3 = 1, FOR_CHILD_wait4 = 1 };

HP_EXPORT unsigned sleep(unsigned s) { CALL(sleep, 1, s, s); }
HP_EXPORT int usleep(useconds_t us) { CALL(usleep, 1, -1, us); }
HP_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem) { CALL(nanosleep, 1, -1, req, rem); }
HP_EXPORT int clock_nanosleep(clockid_t c, int flags, const struct timespec *req, struct timespec *rem)
{
    CALL(clock_nanosleep, 1, ENOSYS, c, flags, req, rem);
}
HP_EXPORT int pause(void) { CALL(pause, 1, -1); }
HP_EXPORT int sigsuspend(const sigset_t *mask) { CALL(sigsuspend, 1, -1, mask); }
HP_EXPORT int sigwait(const sigset_t *set, int *sig) { CALL(sigwait, 1, ENOSYS, set, sig); }
HP_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info) { CALL(sigwaitinfo, 1, -1, set, info); }
HP_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *t)
{
    CALL(sigtimedwait, !zero_timespec(t), -1, set, info, t);
}
HP_EXPORT int poll(struct pollfd *fds, nfds_t n, int ms) { CALL(poll, ms != 0, -1, fds, n, ms); }
HP_EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int ms, size_t len) { CALL(poll_chk, ms != 0, -1, fds, n, ms, len); }
HP_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask)
{
    CALL(ppoll, !zero_timespec(t), -1, fds, n, t, mask);
}
HP_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t) { CALL(select, !t || t->tv_sec || t->tv_usec, -1, n, r, w, e, t); }
HP_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *t, const sigset_t *mask)
{
    CALL(pselect, !zero_timespec(t), -1, n, r, w, e, t, mask);
}
HP_EXPORT int epoll_wait(int fd, struct epoll_event *ev, int n, int ms) { CALL(epoll_wait, ms != 0, -1, fd, ev, n, ms); }
HP_EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int n, int ms, const sigset_t *mask)
{
    CALL(epoll_pwait, ms != 0, -1, fd, ev, n, ms, mask);
}
HP_EXPORT pid_t wait(int *status) { CALL(wait, 1, -1, status); }
HP_EXPORT pid_t waitpid(pid_t pid, int *status, int options) { CALL(waitpid, !(options & WNOHANG), -1, pid, status, options); }
HP_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options) { CALL(waitid, !(options & WNOHANG), -1, type, id, info, options); }
HP_EXPORT pid_t wait3(int *status, int options, struct rusage *ru) { CALL(wait3, !(options & WNOHANG), -1, status, options, ru); }
HP_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru) { CALL(wait4, !(options & WNOHANG), -1, pid, status, options, ru); }
