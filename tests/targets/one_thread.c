/* one_thread.c — a program of one thread that runs shell-like commands and then computes: does
 * it keep glibc's single-threaded state (no thread of the profiler's yet) through its first
 * interval, and get the profiler's sampler past it?
 *
 *   one_thread MS    allocate and compute for 60 ms; print "early TASKS SINGLE ELAPSED_MS";
 *                    then allocate and compute until MS after the start; print
 *                    "late TASKS SINGLE"; then fork+exec+wait /bin/true once
 * TASKS: entries of /proc/self/task; SINGLE: glibc's __libc_single_threaded. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static void churn(int n)
{
    static void *volatile keep;
    for (int i = 0; i < n; i++) {
        keep = malloc(64 + (size_t)i % 4096);
        memset(keep, i, 64);
        free(keep);
    }
}

int main(int argc, char **argv)
{
    double start = now_ms(), until = start + (argc > 1 ? atof(argv[1]) : 600);
    while (now_ms() < start + 60) churn(2000);
    printf("early %d %d %.0f\n", tasks(), __libc_single_threaded, now_ms() - start);
    while (now_ms() < until) churn(20000);
    printf("late %d %d\n", tasks(), __libc_single_threaded);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && status == 0 ? 0 : 1;
}
