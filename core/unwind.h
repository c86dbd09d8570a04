/* unwind.h — the program's call stack, taken from inside a hook (a lock, a sampled allocation):
 * libunwind under the thread's guard (its own locks and allocations pass through the hooks
 * uncounted), errno kept, and the profiler's own frames (libhotpath.so) left out. (macOS:
 * unwind_darwin.c, backtrace().) */
#ifndef HP_UNWIND_H
#define HP_UNWIND_H

#include <stdint.h>

#include "thread_state.h"

/* Up to max return addresses, innermost first; t may be NULL. */
unsigned hp_unwind_program(void **out, unsigned max, struct hp_thread *t);
/* raw[from..n) being the outer part of a whole stack (not cut at a depth), the end of the
 * program's own frames in it: the tail below main or the thread's start routine, which every
 * stack has (_start and libc's start of main; libc's start_thread and clone under the profiler's
 * thread trampoline; the loader's calls of constructors and destructors), is left out, and would
 * take the room of the program's frames. May be `from`. Async-signal-safe: n until the
 * constructor has found the modules' ranges. */
int hp_unwind_start_frames(void *const *raw, int from, int n);
/* Return addresses, innermost first, from around the caller on (the first may be in the caller
 * or in its caller): every call into libunwind goes through here (the SIGPROF handler too). 0
 * frames in a fork child that may have inherited libunwind's locks held. */
int hp_backtrace(void **out, int max);
/* Guard up, at the first stack a process takes, not at start (it costs a process 60 to 100 µs,
 * and most short ones, a shell's commands, take no stack): libunwind is opened (dlopen, unwind.c:
 * by this thread when no other program thread could be inside the loader holding a lock this one
 * waits for, else by the sampler, which a hook then waits for), and both ways of taking a stack
 * are run once, so that libunwind does what it does on first use here, not in a signal handler
 * that may have interrupted malloc: it asks for its pipe (two numbers, no descriptors:
 * own_pipe.h), makes its thread-cache key (if that key would be numbered 32 or more, which would
 * make pthread_setspecific allocate in a handler, stacks are only ever taken frame by frame) and
 * binds its lazy symbols. And libunwind's shared cache of unwind rules is turned off (unwind.c).
 * hp_backtrace calls it, except in the CPU profile's handler, which calls it itself where the
 * interrupted code holds none of the locks it takes (core/lock_holders.h). 1 when warm. While
 * another thread warms it, a hook waits for that one (its own stack would wait for the same
 * locks); a signal handler gets 0, no stack this time. */
int hp_unwind_warm_up(void);
/* The same on the sampler's thread (core/sampler.c), at its start and when a hook asked for it
 * (hp_sampler_open_unwinder_soon): done there when asked, or when the program has other threads
 * (their first stacks need not wait). Without libunwind, or at a descriptor limit too low to open
 * it, the process takes no stacks. */
void hp_unwind_on_sampler(int asked);
/* In the constructor: find the address ranges of the profiler's code and libunwind's, libc's and
 * the loader's (hp_unwind_helper_code, hp_unwind_start_frames), so that no lock hook in a signal
 * handler and no CPU sample walks the modules for them later. */
void hp_unwind_find_modules(void);
/* Whether the warm-up is done (async-signal-safe). */
int hp_unwind_ready(void);
/* A thread the program started, at its start (before its own function runs): libunwind's
 * thread-local storage made now, from the program's allocator, if libunwind is open (unwind.c). */
void hp_unwind_thread_start(void);
/* And this thread's libunwind storage made (async-signal-safe): a CPU sample's handler may take
 * its stack without allocating. */
int hp_unwind_thread_ready(void);
/* Set while the warm-up calls unw_backtrace: the mmap hook then refuses anonymous mappings of
 * HP_UNWIND_TABLE_BYTES or more, which are libunwind's per-thread table (unwind.c). */
extern __thread int hp_unwind_warming __attribute__((tls_model("initial-exec")));
#define HP_UNWIND_TABLE_BYTES (64u << 10)
/* A program's second thread is about to start (pthread_create and its kin): libunwind is opened
 * now, while no other program thread can be inside the loader, when it may be (unwind.c); the
 * new threads' first stacks then never wait for the sampler to open it. */
void hp_unwind_before_threads(void);
/* Before a fork of a program with other threads: its child may load no library (loader_lock.h,
 * hp_loader_no_dlopen), so libunwind is opened first when it is not yet (by the sampler; 50 ms
 * at most), or the child would take no stacks. */
void hp_unwind_before_fork(void);
/* In a fork child: when another thread of the parent was inside libunwind at the fork, its locks
 * may stay held forever here, so this process takes no more stacks. */
void hp_unwind_fork_child(void);
/* Take no more stacks in this process (a fork child whose loader lists may be halfway changed). */
void hp_unwind_stop(void);
/* An address in libunwind's code when the program itself has it loaded at start, else NULL
 * (Linux). */
const void *hp_unwind_code(void);
/* addr lies in code of a library the profiler itself uses (libunwind, mimalloc). */
int hp_unwind_helper_code(uintptr_t addr);

#endif
