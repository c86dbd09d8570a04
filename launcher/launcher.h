/* launcher.h — what main.c, spawn.c, signals.c, reap.c, unprofiled.c and watch.c share (run.h:
 * the run's one report). hotpath-launch is the parent that stays while the profiled program runs (hotpath-run.sh
 * execs it on Linux): it is never preloaded itself, but for hotpath-run --pid's watcher (watch.c),
 * whose second turn runs the library to watch another process from outside. */
#ifndef HP_LAUNCHER_H
#define HP_LAUNCHER_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "launcher/run.h"

/* The signal state the launcher inherited, which the program gets back before its exec, and the
 * signalfd through which the launcher takes the signals it blocked. */
struct hp_signals {
    sigset_t inherited_mask;
    struct sigaction inherited_chld;   /* SIGCHLD is SIG_DFL in the launcher, so it can wait */
    struct sigaction inherited_pipe;   /* SIGPIPE is ignored: a closed stderr does not kill it */
    int fd;
};

struct hp_launch {
    const char *preload;               /* --preload: put first in the program's LD_PRELOAD */
    unsigned long orphan_wait_s;       /* --orphan-wait */
    char **argv;                       /* the program and its arguments */
    struct hp_run_options run;         /* --format, --output, --all, --only, --keep-run-dir */
    struct hp_signals signals;
    long watch_pid;                    /* --watch PID (--watching: the second turn), 0 = none */
    int watching;
    double duration_s;                 /* --duration: the watch's length, 0 = until it is ended */
};

/* signals.c */
/* Blocks the signals the launcher takes (forwarded ones and SIGCHLD) into s->fd, remembering
 * what it inherited. 0, or -1 with errno set. */
int hp_signals_take(struct hp_signals *s);
/* In the child before its exec: the inherited dispositions and mask back. */
void hp_signals_restore(const struct hp_signals *s);
/* Waits up to timeout_ms (-1: no limit) for signals and takes those that came; each one is
 * forwarded to program (when program > 0) unless the terminal sent it (the program, in the same
 * foreground process group, got it too). 1 when one of them asks to end (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT), else 0. */
int hp_signals_next(const struct hp_signals *s, pid_t program, int timeout_ms);
/* "SIGTERM" (or "SIG34" for one without a name) in out. */
void hp_signal_name(int sig, char *out, size_t size);
/* Ends the launcher as the program ended: its exit status, or the same death signal. */
void hp_exit_like(int status) __attribute__((noreturn));

/* spawn.c */
/* Forks and execs the program (PATH search as execvp) with the preload in its environment and
 * the inherited signal state. 0 with *pid set, or the exit status to end with (127: not found,
 * 126: found but not executable, 1: no fork) once it said why. */
int hp_spawn(const struct hp_launch *l, pid_t *pid);

/* unprofiled.c */
/* One line on stderr when the program will run unprofiled: the file exec starts for name (a
 * script's interpreter) is set-user-ID or set-group-ID of another user or group, or static. */
void hp_say_if_unprofiled(const char *name);

/* watch.c */
/* hotpath-run --pid: check that l->watch_pid can be read, then watch it (the report at the end);
 * the exit status to end with. */
int hp_watch(struct hp_launch *l);

/* reap.c */
/* Makes orphaned descendants the launcher's children (PR_SET_CHILD_SUBREAPER). 0 or -1. */
int hp_subreaper(void);
/* Waits for program, then for the launcher's other children up to l->orphan_wait_s seconds
 * after it ended, naming those still running in one line. 1 with *status the program's wait
 * status, or 0 when it could not be waited for. */
int hp_wait_all(const struct hp_launch *l, pid_t program, int *status);

#endif
