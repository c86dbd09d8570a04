/* signals.c — the launcher's signals: the ones sent to it go on to the program (those the
 * terminal sent to the whole foreground process group do not: the program got them already),
 * taken through a signalfd, so no handler runs; the program gets the inherited signal state
 * back; and the launcher dies the program's death. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/launcher.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT };

static int asks_to_end(int sig)
{
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

int hp_signals_take(struct hp_signals *s)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
    sigset_t taken;
    sigemptyset(&taken);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        sigaddset(&taken, forwarded[i]);
    sigaddset(&taken, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &taken, &s->inherited_mask) ||
        sigaction(SIGCHLD, &dfl, &s->inherited_chld) || sigaction(SIGPIPE, &ign, &s->inherited_pipe))
        return -1;
    s->fd = signalfd(-1, &taken, SFD_CLOEXEC | SFD_NONBLOCK);
    return s->fd < 0 ? -1 : 0;
}

void hp_signals_restore(const struct hp_signals *s)
{
    sigaction(SIGCHLD, &s->inherited_chld, NULL);
    sigaction(SIGPIPE, &s->inherited_pipe, NULL);
    sigprocmask(SIG_SETMASK, &s->inherited_mask, NULL);
}

int hp_signals_next(const struct hp_signals *s, pid_t program, int timeout_ms)
{
    struct pollfd p = { .fd = s->fd, .events = POLLIN };
    struct signalfd_siginfo info[16];
    int end = 0;
    if (poll(&p, 1, timeout_ms) <= 0)
        return 0;
    ssize_t n = read(s->fd, info, sizeof info);
    for (ssize_t i = 0; i < n / (ssize_t)sizeof info[0]; i++) {
        int sig = (int)info[i].ssi_signo;
        if (sig == SIGCHLD)
            continue;
        end |= asks_to_end(sig);
        if (program > 0 && info[i].ssi_code != SI_KERNEL)
            kill(program, sig);
    }
    return end;
}

void hp_signal_name(int sig, char *out, size_t size)
{
    const char *name = sigabbrev_np(sig);
    if (name)
        snprintf(out, size, "SIG%s", name);
    else
        snprintf(out, size, "SIG%d", sig);
}

void hp_exit_like(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = { 0, 0 };
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        signal(sig, SIG_DFL);
        setrlimit(RLIMIT_CORE, &no_core);    /* a core of the launcher would only mislead */
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        raise(sig);
        exit(128 + sig);                     /* a signal whose default is not to end */
    }
    exit(WEXITSTATUS(status));
}
