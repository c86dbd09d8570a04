/* sampler.h — the profiler's background thread: every interval it reads each thread's state and
 * CPU time, notices threads that ended or that it never saw created, and reads the RSS. It is
 * also the thread that writes the report when a signal asks for one. */
#ifndef HP_SAMPLER_H
#define HP_SAMPLER_H

#include <stdint.h>

struct hp_process_figures {
    uint64_t rss_bytes, peak_rss_bytes;
    uint64_t profiler_cpu_ns;
    /* watched from outside (hotpath-run --pid): the largest RSS a pass read, and the CPU of
     * threads that started and ended between two passes, never read (core/ended_cpu.h) */
    uint64_t window_peak_rss_bytes, unseen_threads_cpu_ns;
};

/* Start the thread (all signals blocked); report_fn runs on it when a signal asks for the
 * report, checkpoint_fn every HOTPATH_CHECKPOINT_S seconds, and late_fn (may be NULL) once,
 * late_ms after the start (or after a fork), at the first pass (at most HP_SETTLE_MS after it)
 * when late_ms is 0, or sooner: work that a process which ends sooner (a compiler's pass, a
 * shell's command) need not pay for. The sampler wakes for it between its passes.
 * With defer, the thread is not started yet: a process that ends within its first interval never
 * pays for one (its report is written on the thread that ends it), and a program of one thread
 * keeps glibc's single-threaded paths that long (a lock, getc and read without atomics, a fork
 * with no other CPU to tell). It starts at hp_sampler_launch, which the hooks call where the
 * program can be seen to outlive that (a second thread, a listening socket, a blocking call or
 * a wait for a child; an allocation or CPU sample once the first interval, at most
 * HP_SETTLE_MS, has passed: hp_sampler_launch_due). Ditto after a fork. */
#define HP_SETTLE_MS 250
int hp_sampler_start(void (*report_fn)(void), void (*checkpoint_fn)(void), void (*late_fn)(void),
                     unsigned late_ms, int defer);
/* Start a deferred sampler now, from a point where the program holds no libc lock (a hook of a
 * function that is not async-signal-safe, or a signal handler that checked the interrupted code
 * is none of the lock holders', core/lock_holders.h). 0 when it runs. */
int hp_sampler_launch(void);
/* Whether the sampler thread runs. */
int hp_sampler_running(void);
/* Whether a deferred sampler waits for its start (async-signal-safe, cheap). */
int hp_sampler_wanted(void);
/* Whether a deferred sampler is due and not yet started (async-signal-safe, cheap). */
int hp_sampler_launch_due(void);
/* Whether that first pass has run (in a fork child: the child's sampler's), or, for a deferred
 * sampler, the time it would have taken has passed. */
int hp_sampler_settled(void);
/* In a fork child: the sampler did not survive; start a new one. */
void hp_sampler_restart_in_child(void);
/* In the parent, after a fork (async-signal-safe): the next pass keeps the symbol tables its
 * children would load (hp_syms_keep_for_children). */
void hp_sampler_note_fork(void);
/* One pass over every thread now (also used by the report, with final = 1). */
void hp_sample(int final);
void hp_sampler_figures(struct hp_process_figures *out);
/* The calling program thread writes the final report itself (no sampler): its CPU time from now
 * on is the profiler's, in hp_sampler_figures. */
void hp_sampler_note_report_thread(void);
/* Before the sampler starts: the main thread's CPU time in the profiler's start, which the
 * profiler's cost includes. */
void hp_sampler_note_start_cpu(uint64_t ns);
/* The metrics server's thread (report/http_server.c) as it starts, 0 when there is none: left out
 * of the threads view, its CPU counted as the profiler's. */
void hp_sampler_note_server_thread(int tid);
/* Have the sampler write the final report, and wait: at most start_ms for it to begin, finish_ms
 * in all for it to end. For a program thread that may hold a libc lock (a signal handler, exit or
 * _exit called from one). Async-signal-safe; returns 0 when the report was written, -1 when the
 * sampler did not (not running, the caller is the sampler, or out of time). */
int hp_sampler_write_report(int start_ms, int finish_ms);
/* Many threads ended since the last pass (hp_registry_exit said so): have the sampler recycle
 * the records of those gone from the process now, rather than at its next pass. */
void hp_sampler_retire_soon(void);
/* A hook needs a stack in a program with other threads, and libunwind is not open yet: have the
 * sampler open it (core/unwind.h) at once. */
void hp_sampler_open_unwinder_soon(void);
/* Whether tid is one of the profiler's own threads. */
int hp_is_profiler_tid(int tid);
/* The main thread called pthread_exit: glibc ends the process with exit(0) when its last thread
 * ends, but the profiler's threads never end, so the sampler does it for glibc once no thread of
 * the program's is left (checked every pass). */
void hp_sampler_main_exited(void);

#endif
