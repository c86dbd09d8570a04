/* cpu_masked.c — a program that blocks every signal and reads them through a signalfd, as servers
 * do, while its threads burn CPU: the profiler's signal must never wait pending in its mask (it
 * would show in sigpending, sigwait and the signalfd). One thread unblocks every signal again and
 * is the one the CPU profile can sample. Prints what the program sees. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void burn(double seconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    double x = 0;
    do {
        for (int i = 0; i < 100000; i++) x += i * 0.5;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
    sink = x;
}

static void *blocked_worker(void *arg)
{
    (void)arg;
    burn(0.3);
    return NULL;
}

static void *unblocking_worker(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_UNBLOCK, &all, NULL);
    burn(0.3);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    return NULL;
}

int main(void)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    int sfd = signalfd(-1, &all, SFD_NONBLOCK);
    pthread_t a, b;
    pthread_create(&a, NULL, blocked_worker, NULL);
    pthread_create(&b, NULL, unblocking_worker, NULL);
    burn(0.3);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    sigset_t pending;
    sigpending(&pending);
    int n = 0;
    for (int s = 1; s < NSIG; s++) n += sigismember(&pending, s) == 1;
    printf("pending %d\n", n);
    struct signalfd_siginfo si;
    ssize_t r = read(sfd, &si, sizeof si);
    printf("signalfd %s\n", r < 0 && errno == EAGAIN ? "empty" : "has a signal");
    struct timespec zero = { 0, 0 };
    printf("sigtimedwait %s\n", sigtimedwait(&all, NULL, &zero) < 0 && errno == EAGAIN ? "nothing" : "a signal");
    return 0;
}
