/* spawn.c — starts the program: fork, then in the child the inherited signal state back,
 * libhotpath.so first in LD_PRELOAD (the launcher's own environment keeps it out) and execvp.
 * A failed exec's errno comes back through a close-on-exec pipe, said as sh says it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/launcher.h"

/* LD_PRELOAD=lib, then what it held (as hotpath-run.sh did: no ':' after lib when it was empty). */
static int put_preload_first(const char *lib)
{
    const char *had = getenv("LD_PRELOAD");
    size_t size = strlen(lib) + (had ? strlen(had) : 0) + 2;
    char *value = malloc(size);
    if (!value)
        return -1;
    snprintf(value, size, "%s%s%s", lib, had && *had ? ":" : "", had ? had : "");
    return setenv("LD_PRELOAD", value, 1);
}

static void run_program(const struct hp_launch *l, int report_fd)
{
    hp_signals_restore(&l->signals);
    int err = ENOMEM;
    if (put_preload_first(l->preload) == 0) {
        execvp(l->argv[0], l->argv);
        err = errno;
    }
    ssize_t n = write(report_fd, &err, sizeof err);
    (void)n;
    _exit(127);
}

int hp_spawn(const struct hp_launch *l, pid_t *pid)
{
    int report[2], err;
    if (pipe2(report, O_CLOEXEC)) {
        perror("hotpath-run: pipe");
        return 1;
    }
    *pid = fork();
    if (*pid == 0)
        run_program(l, report[1]);
    close(report[1]);
    if (*pid < 0) {
        perror("hotpath-run: fork");
        close(report[0]);
        return 1;
    }
    ssize_t n;
    do
        n = read(report[0], &err, sizeof err);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n != sizeof err)
        return 0;                            /* the exec closed the pipe: the program runs */
    waitpid(*pid, NULL, 0);
    fprintf(stderr, "hotpath-run: %s: %s\n", l->argv[0], strerror(err));
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
}
