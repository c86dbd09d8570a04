/* fork_in_handler.c — a signal handler that forks, delivered again and again to a thread that
 * starts and joins threads: the fork lands inside pthread_create now and then, where the
 * profiler's hook may hold its registry lock. Each child exits 7 at once (_exit is async-signal-
 * safe); the handler waits for it. Runs for the milliseconds given (default 1000) and prints
 * whether every child it made exited 7. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t children, good, stop;

static void on_usr1(int sig)
{
    (void)sig;
    int saved = errno;
    pid_t pid = fork();
    if (pid == 0) _exit(7);
    int status;
    if (pid > 0) {
        children++;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        if (WIFEXITED(status) && WEXITSTATUS(status) == 7) good++;
    }
    errno = saved;
}

static void *nothing(void *arg)
{
    return arg;
}

/* glibc's fork takes malloc's locks: a fork from a handler that interrupted malloc hangs without
 * the profiler too. The starter's first allocation (its arena) and first thread (its stack, which
 * glibc then caches and reuses with its TLS) come before any signal; from then on its
 * pthread_create and pthread_join allocate nothing of glibc's, and a hang is the profiler's. */
static volatile int ready;

static void *starter(void *arg)
{
    (void)arg;
    free(malloc(64));
    pthread_t first;
    if (pthread_create(&first, NULL, nothing, NULL) == 0) pthread_join(first, NULL);
    ready = 1;
    while (!stop) {
        pthread_t t;
        if (pthread_create(&t, NULL, nothing, NULL) == 0) pthread_join(t, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 1000;
    struct sigaction sa = { 0 };
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, starter, NULL);
    struct timespec start, now, gap = { 0, 300000 };
    while (!ready) nanosleep(&gap, NULL);
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        pthread_kill(t, SIGUSR1);
        nanosleep(&gap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
    stop = 1;
    pthread_join(t, NULL);
    printf("children %s, all exited 7: %s\n", children > 0 ? "made" : "none", good == children ? "yes" : "no");
    return 0;
}
