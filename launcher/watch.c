/* watch.c — hotpath-run --pid: `hotpath-launch --preload LIB --watch PID [--duration S]` checks
 * that the process can be read from outside, then execs itself as `--watching PID` with LIB
 * preloaded and HOTPATH_WATCH_PID=PID: the library's sampler, reports and live server are then
 * that process's (process/watch.c), and this second turn only waits, for --duration, a signal
 * that asks to end (Ctrl-C) or the process's end. Its exit writes the report. The watched process
 * is only read: no signal, no ptrace, no file of its. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launcher/launcher.h"

#define POLL_MS 100

/* Whether /proc is mounted with hidepid (other users' processes hidden or closed). */
static int proc_hides_pids(void)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[1024];
    int hides = 0;
    while (f && !hides && fgets(line, sizeof line, f))
        hides = strstr(line, " /proc ") && strstr(line, "hidepid=") && !strstr(line, "hidepid=0") &&
                !strstr(line, "hidepid=off");
    if (f)
        fclose(f);
    return hides;
}

/* The first bytes of a file of the process's into buf; -1 with errno. */
static int read_proc(long pid, const char *name, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n < 0)
        return -1;
    buf[n] = 0;
    return 0;
}

/* The state letter of the process's stat (R, S, Z, ...) into *state, 0 when its text has none;
 * -1 with errno when it cannot be read. */
static int proc_state(long pid, char *state)
{
    char buf[1024];
    if (read_proc(pid, "stat", buf, sizeof buf) != 0)
        return -1;
    const char *close_paren = strrchr(buf, ')');
    *state = close_paren && close_paren[1] ? close_paren[2] : 0;
    return 0;
}

/* Whether the process has a thread besides its main one. */
static int other_threads(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *d = opendir(path);
    int others = 0;
    for (struct dirent *e; d && !others && (e = readdir(d));)
        others = e->d_name[0] != '.' && strtol(e->d_name, NULL, 10) != pid;
    if (d)
        closedir(d);
    return others;
}

static int cannot(long pid, const char *what, int err)
{
    const char *why = err == EACCES || err == EPERM ? (proc_hides_pids() ? " (/proc is mounted with hidepid: another user's processes are closed to this one)"
                                                                         : " (not this user's to read)")
                                                    : "";
    fprintf(stderr, "hotpath-run: cannot watch process %ld: %s: %s%s\n", pid, what, strerror(err), why);
    return 1;
}

/* Whether the process has ended: gone, or a zombie with no other thread left (a main thread
 * that called pthread_exit is a zombie while the others run). */
static int ended(long pid)
{
    char state;
    if (proc_state(pid, &state) != 0 || state == 'X')
        return 1;
    return state == 'Z' && !other_threads(pid);
}

/* Whether the process can be watched: its stat, its threads and their CPU times readable. */
static int check_readable(long pid)
{
    char buf[1024], path[64];
    if (pid == getpid())
        return fprintf(stderr, "hotpath-run: --pid %ld is hotpath-run itself\n", pid), 1;
    char state;
    if (proc_state(pid, &state) != 0) {
        if (errno == ENOENT || errno == ESRCH) {
            fprintf(stderr, "hotpath-run: no process %ld%s\n", pid,
                    proc_hides_pids() ? " visible to this user (/proc is mounted with hidepid, which hides other users' processes)" : "");
            return 1;
        }
        return cannot(pid, "/proc/PID/stat", errno);
    }
    if (ended(pid))
        return fprintf(stderr, "hotpath-run: process %ld has ended (a zombie its parent has not waited for)\n", pid), 1;
    const char *tgid_line = read_proc(pid, "status", buf, sizeof buf) == 0 ? strstr(buf, "\nTgid:") : NULL;
    long tgid = tgid_line ? strtol(tgid_line + 6, NULL, 10) : pid;
    if (tgid != pid)
        return fprintf(stderr, "hotpath-run: %ld is a thread of process %ld: watch --pid %ld\n", pid, tgid, tgid), 1;
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return cannot(pid, "its threads (/proc/PID/task)", errno);
    closedir(d);
    snprintf(path, sizeof path, "task/%ld/schedstat", pid);
    if (read_proc(pid, path, buf, sizeof buf) != 0)
        return cannot(pid, "its threads' CPU times (/proc/PID/task/TID/schedstat)", errno);
    return 0;
}

/* The first turn: check, then exec the second with the library preloaded. */
static int start_watch(const struct hp_launch *l)
{
    if (check_readable(l->watch_pid))
        return 1;
    char pid[24], duration[32];
    snprintf(pid, sizeof pid, "%ld", l->watch_pid);
    snprintf(duration, sizeof duration, "%.3f", l->duration_s);
    setenv("LD_PRELOAD", l->preload, 1);
    setenv("HOTPATH_WATCH_PID", pid, 1);
    char *argv[] = { "hotpath-launch", "--preload", (char *)l->preload, "--watching", pid,
                     l->duration_s > 0 ? "--duration" : NULL, duration, NULL };
    execv("/proc/self/exe", argv);
    fprintf(stderr, "hotpath-run: cannot start the watcher: %s\n", strerror(errno));
    return 1;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The second turn, the library loaded: wait, then exit (the library's report). */
static int wait_watch(struct hp_launch *l)
{
    if (hp_signals_take(&l->signals) != 0) {
        perror("hotpath-run: watcher");
        return 1;
    }
    int64_t end_at = l->duration_s > 0 ? now_ms() + (int64_t)(l->duration_s * 1000) : 0;
    for (;;) {
        int left = end_at ? (int)(end_at - now_ms()) : POLL_MS;
        if (end_at && left <= 0)
            break;
        if (hp_signals_next(&l->signals, 0, left < POLL_MS ? left : POLL_MS) || ended(l->watch_pid))
            break;
    }
    exit(0);
}

int hp_watch(struct hp_launch *l)
{
    return l->watching ? wait_watch(l) : start_watch(l);
}
