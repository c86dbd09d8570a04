/* cpu_profile.h — the CPU profile (docs/REFERENCE.md "CPU profile"): every thread the profiler starts (and
 * the main thread) gets a timer on its own CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID),
 * SIGEV_THREAD_ID) firing a real-time signal of the profiler's own (process/signals.c)
 * HOTPATH_CPU_HZ times per CPU second. The handler is
 * async-signal-safe: it takes the stack with unw_backtrace into the thread's own ring (single
 * producer, the sampler the single consumer; no lock, no malloc, no stdio) and the sampler
 * drains the rings into a stack table (core/stacks.h). Symbols are made at report time.
 * The program wins (docs/DESIGN.md rule 11): SIGPROF and ITIMER_PROF stay its own, and a handler it
 * installs on the profile's signal moves the profile to another; with none left the profile
 * stops and the report says why (the program's stderr gets nothing). */
#ifndef HP_CPU_PROFILE_H
#define HP_CPU_PROFILE_H

#include <signal.h>
#include <stdint.h>

#include "core/stacks.h"
#include "core/thread_state.h"
#include "core/view.h"

enum hp_cpu_off_reason {
    HP_CPU_OFF_NONE, HP_CPU_OFF_SETTING, HP_CPU_OFF_HANDLER, HP_CPU_OFF_DISPOSITION, HP_CPU_OFF_FAILED
};

/* At start, on the main thread, after the configuration is parsed (the constructor). */
void hp_cpu_start(struct hp_thread *main_thread, const struct hp_view_signals *signals);
/* From hp_resolve: look up the signal-mask functions its hooks call (cpu_hooks.c). */
void hp_resolve_cpu_masks(void);
/* On the thread itself: as it starts (its timer and ring), as it ends. */
void hp_cpu_thread_start(struct hp_thread *t);
/* The signal the timers fire now (0 before the start or with none). */
int hp_cpu_signal(void);
/* The program took that signal (signals.c, its lock held): every live timer is made anew on
 * signo. */
void hp_cpu_signal_moved(int signo);
/* The calling thread blocks the profile's signal (before its mask changes) or unblocks it
 * (after): its timer stops and starts again, so no signal of the profiler's waits pending where
 * the program's sigpending, sigwait or signalfd would find it. While it is blocked, the thread is
 * not sampled. */
void hp_cpu_thread_masked(struct hp_thread *t, int blocked);
void hp_cpu_thread_end(struct hp_thread *t);
/* Stop every timer, keep the reason for the report. */
void hp_cpu_off(enum hp_cpu_off_reason why);
/* The sampler: move every ring's samples into the stack table (one caller at a time). */
void hp_cpu_drain(void);
/* In a fork child (only the calling thread survives): empty figures, a timer for this thread. */
void hp_cpu_fork_child(struct hp_thread *self);

struct hp_cpu_figures {
    int enabled;                  /* the profile ran (and may still run) */
    enum hp_cpu_off_reason off;   /* why it is off, HP_CPU_OFF_NONE while it runs */
    unsigned hz, depth;
    uint64_t samples;             /* samples in the table (weighted by timer overruns) */
    uint64_t other;               /* samples whose stack found the table full (in `<other>`) */
    uint64_t dropped;             /* samples lost: a thread's ring was full, or its stack too short to unwind on */
    uint64_t profiler;            /* samples taken while the profiler itself worked on the thread */
    uint64_t unsampled_ns;        /* CPU time of threads while they had the signal blocked (never sampled) */
    int signal;                   /* the real-time signal the profile samples on, 0 none */
    struct hp_stacks *table;
};
void hp_cpu_figures(struct hp_cpu_figures *v);
const char *hp_cpu_off_text(enum hp_cpu_off_reason why);

#endif
