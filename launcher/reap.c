/* reap.c — the waiting: the launcher is a child subreaper, so the descendants the program leaves
 * behind become its children; it reaps them all, and after the program ended waits for those
 * left up to the orphan wait, then names the ones still running in one line. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/launcher.h"

#define NAMED_AT_MOST 5

int hp_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static long long ns_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000000000LL + (now.tv_nsec - t->tv_nsec);
}

/* Milliseconds left until s seconds after t, rounded up; 0 once they passed, at most INT_MAX. */
static int ms_left(const struct timespec *t, unsigned long s)
{
    long long left = (long long)s * 1000000000LL - ns_since(t);
    return left <= 0 ? 0 : left / 1000000 >= INT_MAX ? INT_MAX : (int)((left + 999999) / 1000000);
}

/* pid's command and state, and whether its parent is ppid (from /proc/PID/stat: "pid (comm) S
 * ppid ...", comm being anything up to the last ')'). */
static int is_running_child(const char *pid, pid_t ppid, char comm[64])
{
    char path[sizeof "/proc//stat" + sizeof ((struct dirent *)0)->d_name], stat[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    char *open = strchr(stat, '('), *close = strrchr(stat, ')');
    char state;
    int parent;
    if (!open || !close || close < open || sscanf(close + 1, " %c %d", &state, &parent) != 2)
        return 0;
    snprintf(comm, 64, "%.*s", (int)(close - open - 1), open + 1);
    return parent == ppid && state != 'Z';
}

/* One line naming the launcher's children still running, if any. */
static void name_the_left(const struct timespec *ended)
{
    char line[512] = "", comm[64];
    size_t len = 0;
    int count = 0;
    DIR *proc = opendir("/proc");
    if (!proc)
        return;
    for (struct dirent *e; (e = readdir(proc));) {
        if (!isdigit((unsigned char)e->d_name[0]) || !is_running_child(e->d_name, getpid(), comm))
            continue;
        if (++count <= NAMED_AT_MOST && len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s (%s)", count > 1 ? ", " : "",
                                    e->d_name, comm);
    }
    closedir(proc);
    if (count == 0)
        return;
    char more[32] = "";
    if (count > NAMED_AT_MOST)
        snprintf(more, sizeof more, " and %d more", count - NAMED_AT_MOST);
    fprintf(stderr, "hotpath-run: %s %s%s still run%s %lld s after the program ended; not waited for\n",
            count == 1 ? "pid" : "pids", line, more, count == 1 ? "s" : "",
            (ns_since(ended) + 500000000) / 1000000000);
}

int hp_wait_all(const struct hp_launch *l, pid_t program, int *status)
{
    struct timespec ended;
    int ended_known = 0, st, timeout;
    pid_t pid;
    for (;;) {
        while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
            if (pid == program) {
                *status = st;
                ended_known = 1;
                clock_gettime(CLOCK_MONOTONIC, &ended);
            }
        if (pid < 0)                         /* ECHILD: nothing is left to wait for */
            return ended_known;
        timeout = ended_known ? ms_left(&ended, l->orphan_wait_s) : -1;
        /* once the program ended, SIGINT, SIGTERM, ... end the wait for the others */
        if (timeout == 0 || (hp_signals_next(&l->signals, ended_known ? 0 : program, timeout) && ended_known))
            break;
    }
    name_the_left(&ended);
    return 1;
}
