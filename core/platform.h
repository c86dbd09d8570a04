/* platform.h — what the sampler asks of the operating system, behind one small interface
 * (Linux: /proc read with raw syscalls, no stdio and no opendir, which allocate, in
 * platform_linux.c; macOS: Mach, in platform_darwin.c). */
#ifndef HP_PLATFORM_H
#define HP_PLATFORM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "procfs.h"

/* Call visit with each entry name of an open directory (raw getdents64, no allocation) until it
 * returns nonzero; -1 then, 0 at the end. */
int hp_platform_scan_dir(int fd, int (*visit)(const char *name, void *ctx), void *ctx);
/* Thread ids of this process, into a growing array owned by the caller (hp_realloc). */
int hp_platform_list_tasks(int **tids, size_t *n, size_t *cap);
/* Whether a periodic pass may take a descriptor for a moment (hp_platform_list_tasks and
 * hp_platform_task_stat): not under a small RLIMIT_NOFILE, where the program itself could meet
 * EMFILE in that moment, nor once the program has run out of descriptors (stop_opening). */
int hp_platform_may_open_files(void);
void hp_platform_stop_opening(void);
int hp_platform_task_stat(int tid, struct hp_task_stat *out);
/* The RSS, its peak and the number of threads (0 when not known). */
int hp_platform_rss(uint64_t *rss_bytes, uint64_t *peak_rss_bytes, uint64_t *threads);
int hp_platform_gettid(void);
/* A close-on-exec duplicate of fd placed high, above the program's usual range (docs/DESIGN.md rule
 * 12): from 64 below RLIMIT_NOFILE but not above 1024 on Linux (1000 on macOS where the limit is
 * above 10240), or within its top 4 under a limit below 256; -1 under a
 * limit below 32 (every number is the program's) or when the dup fails. */
int hp_platform_dup_high(int fd);
/* Linux: where that range starts under a limit of 256 or more, -1 under a smaller one (the
 * metrics server then holds no descriptor). */
int hp_platform_high_floor(void);
/* Start one of the profiler's own threads: detached, every signal blocked (docs/DESIGN.md rule 10),
 * a small stack. 0 on success. */
int hp_platform_start_thread(void *(*fn)(void *));
/* Run fn on a stack of its own (Linux): the final report written on a program thread whose own
 * stack may be small (a handler's alternate stack, 8 KB in a Rust program). On this stack when
 * it is the main thread's with room to spare, or when none can be mapped. */
#define HP_OWN_STACK_BYTES (256 * 1024)
void hp_platform_on_own_stack(void (*fn)(void));
/* Write all of a buffer with raw syscalls (EINTR retried); gives up on any other error. */
void hp_platform_write_all(int fd, const char *p, size_t n);
/* Move a descriptor the profiler made (or a library it uses made for it) high; keeps it where
 * it is when it cannot be moved. */
void hp_platform_move_high(int *fd);
/* The calling thread's comm (PR_GET_NAME), 16 bytes with the terminator. */
void hp_platform_thread_comm(char out[16]);
/* Name the calling thread (at most 15 bytes), as ps, top and /proc/self/task show it. */
void hp_platform_name_self(const char *name);
/* Sleep while *word == val, at most timeout (NULL: no limit), until hp_platform_wake(word); may
 * return early. Wake is async-signal-safe (Linux: a futex; macOS: a Mach semaphore per word). */
void hp_platform_wait(_Atomic uint32_t *word, uint32_t val, const struct timespec *timeout);
void hp_platform_wake(_Atomic uint32_t *word);
/* The report's files, past the program's hooks (Linux: raw syscalls; macOS: an interposing
 * image's own calls are never interposed). open: O_CLOEXEC is added; -1 on failure. */
int hp_platform_open(const char *path, int flags, int mode);
void hp_platform_close(int fd);
void hp_platform_unlink(const char *path);
int hp_platform_rename(const char *from, const char *to);
/* The 64-bit word at the start of the file at path, which other processes share, raised to v when
 * below it: the word as it is after (v or more); 0 when the file cannot be opened and mapped. */
uint64_t hp_platform_raise_shared_max(const char *path, uint64_t v);
/* The process's start (the constructor's arguments, as exec left them): where its command line
 * and the top of its main stack lie (Linux; nothing elsewhere). */
void hp_platform_note_start(int argc, char **argv, char **envp);
/* The process's command line as ps reads it (Linux: /proc/self/cmdline's bytes, NUL-separated,
 * read from the process's memory once its start was noted), at most size - 1 bytes into buf: its
 * length, or -1 where there is none (macOS). */
long hp_platform_cmdline(char *buf, size_t size);
/* Watching another process from outside (hotpath-run --pid, process/watch.c): from
 * hp_platform_watch on, the calls above that read the process (its tasks, their stat, the RSS,
 * the command line) read /proc/PID instead of this process's. Linux only: -1 elsewhere. */
int hp_platform_watch(int pid);
/* The watched process, 0 when the profiler watches its own. */
int hp_platform_watched_pid(void);
/* A thread's CPU time so far (this process's thread: its CPU clock; a watched one's: the
 * scheduler's count of it); 0, or -1 when it has gone. */
int hp_platform_task_cpu_ns(int tid, uint64_t *ns);
/* The process's CPU time, its ended threads' included; -1 when unknown. */
int hp_platform_process_cpu_ns(uint64_t *ns);
/* Whether the watched process has ended (gone, or a zombie); 0 when watching this one. */
int hp_platform_target_ended(void);
/* The parent of the process read (this one's, or the watched one's; 0 when unknown). */
int hp_platform_ppid(void);
/* "SEGV" for SIGSEGV ("?" when unknown), "ENOENT" for ENOENT ("error" when unknown). */
const char *hp_platform_signal_name(int sig);
const char *hp_platform_errno_name(int err);

#endif
