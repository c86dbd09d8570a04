/* cpu_own_sigprof — a program that profiles itself: it reads back SIGPROF's disposition (SIG_DFL
 * expected), installs its own handler (argv[1] "sigaction" or "signal") and ITIMER_PROF at 1 kHz,
 * burns 1 s of CPU in burn_cpu and prints how many SIGPROFs its handler saw. Exit 1 if the
 * readback was wrong or the handler never ran. Mode "itimer": only setitimer (the handler is
 * installed after it). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "cpu/burn_cpu.h"

static volatile sig_atomic_t hits;

static void on_prof(int sig)
{
    (void)sig;
    hits++;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sigaction";
    struct sigaction old;
    memset(&old, 0, sizeof old);
    if (sigaction(SIGPROF, NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) {
        printf("readback: not SIG_DFL\n");
        return 1;
    }
    struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
    if (strcmp(mode, "itimer") == 0) {
        /* block SIGPROF while the handler is not yet there, as a careful program would */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGPROF);
        sigprocmask(SIG_BLOCK, &set, NULL);
        setitimer(ITIMER_PROF, &it, NULL);
        signal(SIGPROF, on_prof);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
    } else {
        if (strcmp(mode, "signal") == 0) {
            signal(SIGPROF, on_prof);
        } else {
            struct sigaction act;
            memset(&act, 0, sizeof act);
            act.sa_handler = on_prof;
            act.sa_flags = SA_RESTART;
            sigaction(SIGPROF, &act, NULL);
        }
        setitimer(ITIMER_PROF, &it, NULL);
    }
    struct sigaction now;
    sigaction(SIGPROF, NULL, &now);
    if (now.sa_handler != on_prof) {
        printf("readback: not the program's handler\n");
        return 1;
    }
    burn_cpu(1.0);
    struct itimerval stop = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &stop, NULL);
    printf("hits %d\n", (int)hits);
    return hits > 0 ? 0 : 1;
}
