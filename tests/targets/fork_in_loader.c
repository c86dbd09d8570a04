/* fork_in_loader.c — forks while dl_iterate_phdr's lock is held, which glibc's fork leaves as it
 * was. Each child locks a mutex never seen before (the profiler takes its stack: libunwind walks
 * the modules) and leaves with _exit(7) (exit would run atexit handlers, whose lock glibc's fork
 * leaves held too if another thread was in dlclose); the parent prints how its children ended.
 *   walker    another thread is inside dl_iterate_phdr (its callback waits for the fork to end)
 *   callback  the fork is made inside the program's own dl_iterate_phdr callback
 *   dlopen    two threads dlopen and dlclose a library over and over during 200 forks */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int inside[2], forked[2];   /* pipes: the walker is inside; the fork is over */
static volatile int stop;

static __attribute__((noinline)) void child_lock(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
}

/* fork; the child locks and exits 7: 1 when the parent saw that */
static int fork_child_lock(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        child_lock();
        _exit(7);
    }
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7) return 1;
    fprintf(stderr, "child %d: status 0x%x\n", (int)pid, status);
    return 0;
}

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

static int fork_here(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    *(int *)data = fork_child_lock();
    return 1;
}

static void *load_unload(void *arg)
{
    while (!stop) {
        void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
        if (h) dlclose(h);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "walker";
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int ok = 0, forks = 1;
    if (strcmp(mode, "walker") == 0) {
        char c;
        if (pipe(inside) || pipe(forked)) return 2;
        pthread_t t;
        pthread_create(&t, NULL, walker, NULL);
        if (read(inside[0], &c, 1) != 1) return 2;
        pid_t pid = fork();
        if (pid == 0) {
            child_lock();
            _exit(7);
        }
        if (write(forked[1], &c, 1) != 1) return 2;
        pthread_join(t, NULL);
        int status;
        ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7;
    } else if (strcmp(mode, "callback") == 0) {
        dl_iterate_phdr(fork_here, &ok);
    } else if (strcmp(mode, "dlopen") == 0) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, load_unload, "libz.so.1");
        forks = 200;
        for (int i = 0; i < forks; i++) ok += fork_child_lock();
        stop = 1;
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    } else {
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%s: %d of %d children exited 7\n", mode, ok, forks);
    fprintf(stderr, "took %.3f s\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
