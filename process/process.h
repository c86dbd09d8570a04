/* process.h — what the files of process/ (the library's start and the process-wide hooks) share
 * among themselves. */
#ifndef HP_PROCESS_H
#define HP_PROCESS_H

#include "core/hooks.h"

/* hp_resolve, then the process-wide hooks' own real functions (exec.c, creds.c): at start, and
 * from their hooks, which may be called before it. */
void hp_process_resolve(void);
void hp_resolve_exec(void);
void hp_resolve_creds(void);
void hp_resolve_waits(void);
/* Where libhotpath.so itself lives, for children's LD_PRELOAD. */
extern char hp_lib_path[];
/* The HOTPATH_* entries of our environment at start, NULL-terminated, for children. */
extern char **hp_settings;

/* Choose how usable sizes are read (once, at start). */
void hp_alloc_init(void);

/* Write the final report from a program thread, with the guard set: by the sampler when it runs
 * (at most finish_ms; then on this thread if fallback), else on this thread (bootstrap.c). */
void hp_report_on_this_thread(int finish_ms, int fallback);
void hp_report_as_profiler(void);

/* A fork child that has not yet lived to its sampler's first pass: what it does before an exec is
 * the spawning of a program (a shell's command), as in a vfork child, not a program of its own. */
int hp_spawning_child(void);
/* At start: the fork handlers that hold the registry's lock across a fork (process.c). */
void hp_fork_handlers_install(void);

/* At start, with HOTPATH_WATCH_PID set (hotpath-run --pid): the sampler, reports and live server
 * become the watched process's (watch.c), self's thread left out of them; -1 when it cannot be. */
int hp_watch_begin(struct hp_thread *self);

/* Report signals (SIGTERM, SIGINT, SIGHUP): install where the program left the default. */
void hp_signals_init(void);
/* Whether this thread may be inside a signal handler now: a signal is blocked, or the program
 * installed a handler with SA_NODEFER (which leaves its signal unblocked). */
int hp_signals_maybe_in_handler(void);
/* Whether the program installed a signal handler of its own (through sigaction or signal). */
int hp_signals_program_handles(void);
/* Whether the CPU profile's handler is installed (a deferred sampler's start needs its samples). */
int hp_signals_cpu_claimed(void);
/* The signals a view may claim, kept by signals.c (core/view.h). */
extern const struct hp_view_signals hp_view_signals;

#endif
