/* cpu_rt_claim — a program that uses the real-time signals the profiler's CPU profile may be on.
 * Mode "first" (default): reads back SIGRTMIN's disposition (SIG_DFL expected), installs a handler
 * there, queues itself 200 signals with values 1..200, burns 0.5 s of CPU in burn_cpu and prints
 * how many of its own signals its handler saw and how many others (another's timer) arrived.
 * Mode "all": the same with a handler on every real-time signal, queued to SIGRTMAX. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu/burn_cpu.h"

static volatile sig_atomic_t mine, others;

static void on_rt(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code == SI_QUEUE && si->si_value.sival_int >= 1 && si->si_value.sival_int <= 200) mine++;
    else others++;
}

int main(int argc, char **argv)
{
    int all = argc > 1 && strcmp(argv[1], "all") == 0;
    int first = SIGRTMIN, last = all ? SIGRTMAX : SIGRTMIN;
    for (int sig = first; sig <= last; sig++) {
        struct sigaction old, act;
        if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) {
            printf("readback of %d: not SIG_DFL\n", sig);
            return 1;
        }
        memset(&act, 0, sizeof act);
        act.sa_sigaction = on_rt;
        act.sa_flags = SA_SIGINFO | SA_RESTART;
        sigaction(sig, &act, NULL);
        sigaction(sig, NULL, &old);
        if (old.sa_sigaction != on_rt) {
            printf("readback of %d: not the program's handler\n", sig);
            return 1;
        }
    }
    burn_cpu(0.25);
    for (int i = 1; i <= 200; i++) sigqueue(getpid(), last, (union sigval){ .sival_int = i });
    burn_cpu(0.25);
    printf("mine %d others %d\n", (int)mine, (int)others);
    return mine == 200 ? 0 : 1;
}
