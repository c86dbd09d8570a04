/* main.c — hotpath-launch, the parent that stays: hotpath-run.sh execs
 *     hotpath-launch --preload LIB [--orphan-wait S] -- program [args...]
 * and it runs the program with LIB first in LD_PRELOAD (itself unprofiled), forwards the
 * signals sent to it, waits for the program and the descendants it leaves (up to S seconds,
 * default 10, after it ended) and ends with the program's exit status or death signal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/launcher.h"

#define ORPHAN_WAIT_MAX_S 1000000000UL

static int parse(struct hp_launch *l, int argc, char **argv)
{
    l->orphan_wait_s = 10;
    int i = 1;
    for (; i + 1 < argc && strcmp(argv[i], "--"); i += 2) {
        if (!strcmp(argv[i], "--preload")) {
            l->preload = argv[i + 1];
        } else if (!strcmp(argv[i], "--orphan-wait")) {
            char *end;
            errno = 0;
            l->orphan_wait_s = strtoul(argv[i + 1], &end, 10);
            if (errno || end == argv[i + 1] || *end || argv[i + 1][0] == '-' || l->orphan_wait_s > ORPHAN_WAIT_MAX_S) {
                fprintf(stderr, "hotpath-run: --orphan-wait needs a whole number of seconds\n");
                return -1;
            }
        } else {
            break;
        }
    }
    if (!l->preload || i + 1 >= argc || strcmp(argv[i], "--")) {
        fprintf(stderr, "usage: hotpath-launch --preload LIB [--orphan-wait S] -- program [args...]\n");
        return -1;
    }
    l->argv = argv + i + 1;
    return 0;
}

int main(int argc, char **argv)
{
    struct hp_launch l = { 0 };
    pid_t program;
    int status;
    if (parse(&l, argc, argv))
        return 2;
    /* before the fork, so that no descendant is orphaned before it */
    if (hp_subreaper() || hp_signals_take(&l.signals)) {
        perror("hotpath-run: launcher");
        return 1;
    }
    int failed = hp_spawn(&l, &program);
    if (failed)
        return failed;
    if (!hp_wait_all(&l, program, &status)) {
        fprintf(stderr, "hotpath-run: the program could not be waited for\n");
        return 1;
    }
    hp_exit_like(status);
}
