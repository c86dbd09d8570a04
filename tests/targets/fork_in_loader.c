/* fork_in_loader.c — a fork while another thread is inside dl_iterate_phdr (its callback waits
 * for the fork to be over). The child locks a mutex never seen before (the profiler takes its
 * stack) and exits; the parent prints how the child ended and how long it took. glibc lets the
 * child inherit dl_iterate_phdr's lock held by a thread it does not have. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int inside[2], forked[2];   /* pipes: the walker is inside; the fork is over */

static int wait_for_fork(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    (void)data;
    char c = 'i';
    if (write(inside[1], &c, 1) != 1 || read(forked[0], &c, 1) != 1) exit(3);
    return 1;
}

static void *walker(void *arg)
{
    dl_iterate_phdr(wait_for_fork, arg);
    return NULL;
}

static __attribute__((noinline)) void child_lock(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
}

int main(void)
{
    char c;
    if (pipe(inside) || pipe(forked)) return 2;
    pthread_t t;
    pthread_create(&t, NULL, walker, NULL);
    if (read(inside[0], &c, 1) != 1) return 2;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid == 0) {
        child_lock();
        exit(7);
    }
    if (write(forked[1], &c, 1) != 1) return 2;
    pthread_join(t, NULL);
    int status;
    waitpid(pid, &status, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    fprintf(stderr, "child took %.3f s\n", s);
    return 0;
}
