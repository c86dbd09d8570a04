/* platform_linux.c — the platform interface on Linux: /proc/self (or a watched process's
 * /proc/PID) read with raw syscalls, so none of the profiler's reads passes through the program's
 * hooked or buffered I/O. */
#define _GNU_SOURCE
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "clock.h"
#include "memory.h"

/* The process the sampler reads: this one, or the one hotpath-run --pid watches from outside. */
static struct {
    int pid;              /* 0: this process */
    char dir[32];         /* "/proc/self" or "/proc/PID" */
} target = { 0, "/proc/self" };

/* The arguments and environment strings as exec laid them out at the top of the main thread's
 * stack (hp_platform_note_start): the kernel's arg_start, arg_end and env_end, which
 * /proc/self/cmdline reads; all 0 when unknown. */
static struct {
    uintptr_t arg_start, arg_end, env_end;
} image;

/* The whole of a small /proc file into buf, NUL-terminated; its length, or -1. */
static long read_file(const char *path, char *buf, size_t size)
{
    int fd = hp_platform_open(path, O_RDONLY, 0);
    if (fd < 0) return -1;
    size_t n = 0;
    while (n < size - 1) {
        long r = syscall(SYS_read, fd, buf + n, size - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    hp_platform_close(fd);
    buf[n] = 0;
    return (long)n;
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

int hp_platform_scan_dir(int fd, int (*visit)(const char *name, void *ctx), void *ctx)
{
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (got <= 0) return 0;
        for (long off = 0; off < got;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            if (visit(d->d_name, ctx) != 0) return -1;
        }
    }
}

struct task_list { int **tids; size_t *n, *cap; };

static int add_task(const char *name, void *ctx)
{
    struct task_list *l = ctx;
    int tid = 0;
    if (*name < '0' || *name > '9') return 0;
    for (; *name >= '0' && *name <= '9'; name++) tid = tid * 10 + (*name - '0');
    if (*l->n == *l->cap) {
        size_t ncap = *l->cap ? *l->cap * 2 : 64;
        int *grown = hp_realloc(*l->tids, ncap * sizeof **l->tids);
        if (!grown) return -1;
        *l->tids = grown;
        *l->cap = ncap;
    }
    (*l->tids)[(*l->n)++] = tid;
    return 0;
}

int hp_platform_list_tasks(int **tids, size_t *n, size_t *cap)
{
    char path[48];
    snprintf(path, sizeof path, "%s/task", target.dir);
    int fd = hp_platform_open(path, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0) return -1;
    *n = 0;
    struct task_list l = { tids, n, cap };
    int r = hp_platform_scan_dir(fd, add_task, &l);
    hp_platform_close(fd);
    return r;
}

static _Atomic int files_off;

void hp_platform_stop_opening(void)
{
    atomic_store(&files_off, 1);
}

int hp_platform_may_open_files(void)
{
    if (atomic_load_explicit(&files_off, memory_order_relaxed)) return 0;
    struct rlimit rl;
    return getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= 256;
}

/* The calling thread's own: running, its name and its user and system times from the kernel without
 * /proc (a short process's final report would open two files more); the times in microseconds,
 * since only their ratio is used. */
static int own_task_stat(struct hp_task_stat *out)
{
    struct rusage ru;
    if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0) return -1;
    hp_platform_thread_comm(out->comm);
    out->state = 'R';
    out->utime_ticks = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
    out->stime_ticks = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    return 0;
}

int hp_platform_task_stat(int tid, struct hp_task_stat *out)
{
    if (!target.pid && tid == hp_platform_gettid()) return own_task_stat(out);
    char path[64], buf[1024];
    snprintf(path, sizeof path, "%s/task/%d/stat", target.dir, tid);
    long len = read_file(path, buf, sizeof buf);
    if (len <= 0) return -1;
    return hp_parse_task_stat(buf, (size_t)len, out);
}

/* Whether the calling thread is the process's main thread. */
static int on_main_thread(void)
{
    return hp_platform_gettid() == (int)syscall(SYS_getpid);
}

/* A file of the process's, as the calling thread sees it: /proc/self is the main thread's, whose
 * memory figures read 0 once it has ended (pthread_exit, cancelled) while the process lives on. */
static long read_process_file(const char *name, char *buf, size_t size)
{
    char path[64];
    if (target.pid) {
        snprintf(path, sizeof path, "%s/%s", target.dir, name);
        return read_file(path, buf, size);
    }
    /* the main thread itself: /proc/self, a shorter walk (a fresh process's first read of /proc
     * makes each directory's entry on the way: 37 against 46 µs on a VM) */
    if (!on_main_thread()) {
        snprintf(path, sizeof path, "/proc/thread-self/%s", name);
        long len = read_file(path, buf, size);
        if (len > 0) return len;
    }
    snprintf(path, sizeof path, "/proc/self/%s", name);   /* also before Linux 3.17 */
    return read_file(path, buf, size);
}

void hp_platform_note_start(int argc, char **argv, char **envp)
{
    if (argc <= 0 || !argv || !argv[0]) return;
    image.arg_start = (uintptr_t)argv[0];
    image.arg_end = (uintptr_t)argv[argc - 1] + strlen(argv[argc - 1]) + 1;
    image.env_end = image.arg_end;
    size_t n = 0;
    while (envp && envp[n]) n++;
    /* the environment counts only where it follows the arguments, as the kernel has it */
    if (n && (uintptr_t)envp[0] == image.arg_end) image.env_end = (uintptr_t)envp[n - 1] + strlen(envp[n - 1]) + 1;
    if (image.arg_end <= image.arg_start || image.env_end < image.arg_end) image.arg_start = image.arg_end = image.env_end = 0;
}

/* The command line read from this process's own memory, as the kernel's get_mm_cmdline does: the
 * arguments, or, once a program wrote over the last one's terminator (setproctitle), a string
 * from the start that may run on into the environment. No file opened, and none of the kernel's
 * remote-memory path (the most of a short process's report). A program that moved its arguments
 * elsewhere (prctl PR_SET_MM_ARG_START, which needs CAP_SYS_RESOURCE) keeps its first title. */
static long own_cmdline(char *buf, size_t size)
{
    const char *start = (const char *)image.arg_start;
    size_t n, args = image.arg_end - image.arg_start, all = image.env_end - image.arg_start;
    if (start[args - 1]) {
        n = strnlen(start, all);
        if (n < all) n++;                 /* its terminator, as the kernel gives it */
    } else {
        n = args;
    }
    if (n > size - 1) n = size - 1;
    memcpy(buf, start, n);
    buf[n] = 0;
    return (long)n;
}

long hp_platform_cmdline(char *buf, size_t size)
{
    if (!target.pid && image.arg_start && size > 0) return own_cmdline(buf, size);
    char path[48];
    snprintf(path, sizeof path, "%s/cmdline", target.dir);
    return read_file(path, buf, size);
}

/* Counts the entries of a task directory other than the main thread's (hp_platform_target_ended). */
static int count_other_task(const char *name, void *ctx)
{
    int *others = ctx;
    if (*name >= '0' && *name <= '9' && atoi(name) != target.pid) (*others)++;
    return 0;
}

int hp_platform_watch(int pid)
{
    target.pid = pid;
    snprintf(target.dir, sizeof target.dir, "/proc/%d", pid);
    return 0;
}

int hp_platform_watched_pid(void)
{
    return target.pid;
}

/* A watched thread's CPU time is the first figure of its schedstat (the scheduler's runtime, in
 * nanoseconds, readable by any user who may list it): another process's thread CPU clock cannot be
 * read (the kernel allows it within one thread group only). */
int hp_platform_task_cpu_ns(int tid, uint64_t *ns)
{
    if (!target.pid) return hp_thread_cpu_ns(tid, ns);
    char path[64], buf[128];
    snprintf(path, sizeof path, "%s/task/%d/schedstat", target.dir, tid);
    long len = read_file(path, buf, sizeof buf);
    return len > 0 ? hp_parse_schedstat_ns(buf, (size_t)len, ns) : -1;
}

int hp_platform_process_cpu_ns(uint64_t *ns)
{
    clockid_t id;
    struct timespec ts;
    if (clock_getcpuclockid(target.pid ? target.pid : getpid(), &id) != 0 || clock_gettime(id, &ts) != 0) return -1;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return 0;
}

int hp_platform_target_ended(void)
{
    if (!target.pid) return 0;
    struct hp_task_stat st;
    if (hp_platform_task_stat(target.pid, &st) != 0 || st.state == 'X') return 1;
    if (st.state != 'Z') return 0;
    /* a zombie main thread is the process's end only when no other thread is left (one that
     * called pthread_exit stays a zombie while the others run) */
    char path[48];
    int others = 0;
    snprintf(path, sizeof path, "%s/task", target.dir);
    int fd = hp_platform_open(path, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0) return 1;
    hp_platform_scan_dir(fd, count_other_task, &others);
    hp_platform_close(fd);
    return others == 0;
}

int hp_platform_ppid(void)
{
    char buf[4096];
    uint64_t ppid = 0;
    if (!target.pid) return getppid();
    long len = read_process_file("status", buf, sizeof buf);
    return len > 0 && hp_parse_status_kb(buf, (size_t)len, "PPid", &ppid) == 0 ? (int)ppid : 0;
}

int hp_platform_rss(uint64_t *rss_bytes, uint64_t *peak_rss_bytes, uint64_t *threads)
{
    /* all from status (VmRSS is statm's resident field in kB): one file, not two */
    char buf[4096];
    uint64_t kb = 0;
    long len = read_process_file("status", buf, sizeof buf);
    if (len <= 0 || hp_parse_status_kb(buf, (size_t)len, "VmRSS", &kb) != 0) return -1;
    *rss_bytes = kb * 1024;
    if (hp_parse_status_kb(buf, (size_t)len, "Threads", threads) != 0) *threads = 0;
    if (hp_parse_status_kb(buf, (size_t)len, "VmHWM", &kb) == 0) *peak_rss_bytes = kb * 1024;
    else *peak_rss_bytes = *rss_bytes;
    return 0;
}

int hp_platform_gettid(void)
{
    return (int)syscall(SYS_gettid);
}

void hp_platform_thread_comm(char out[16])
{
    memset(out, 0, 16);
    if (syscall(SYS_prctl, PR_GET_NAME, (unsigned long)out, 0UL, 0UL, 0UL) != 0) out[0] = 0;
    out[15] = 0;
}

void hp_platform_name_self(const char *name)
{
    syscall(SYS_prctl, PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);   /* not the hook's */
}

/* The profiler's descriptors go 64 below the soft limit, but no higher than 1024, past the
 * numbers a select() program may use: the kernel sizes a process's descriptor table to its
 * highest number and copies it at every fork, so a copy of stderr at 19,936 made each fork of a
 * preloaded shell copy 160 KB of table (1M-descriptor limits, as in containers, would make it
 * 8 MB). */
#define HIGH_FLOOR_MAX 1024

static int high_floor(const struct rlimit *rl)
{
    if (rl->rlim_cur == RLIM_INFINITY || rl->rlim_cur - 64 > HIGH_FLOOR_MAX) return HIGH_FLOOR_MAX;
    return rl->rlim_cur >= 256 ? (int)rl->rlim_cur - 64 : -1;
}

int hp_platform_high_floor(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_NOFILE, &rl) != 0 ? -1 : high_floor(&rl);
}

int hp_platform_dup_high(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    int floor = high_floor(&rl);
    if (floor < 0) {
        if (rl.rlim_cur < 32) return -1;   /* every descriptor belongs to the program */
        floor = (int)rl.rlim_cur - 4;      /* the top: the stderr copy, the server's socket */
    }
    return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, floor);
}

/* A program may have made its stderr non-blocking (the descriptor's flags are shared with our
 * copy of it): a full pipe then fails the write with EAGAIN, and the report was cut at 64 KB.
 * Wait for room instead, as a blocking write would, but not for long: a reader that makes no
 * room for 2 s is taken for gone (each process of a forking program would wait so at its end). */
static int writable(int fd)
{
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    struct timespec limit = { 2, 0 };
    long r;
    do r = syscall(SYS_ppoll, &pfd, 1UL, &limit, NULL, 0UL);
    while (r < 0 && errno == EINTR);
    return r == 1 && (pfd.revents & POLLOUT);
}

/* A report written to a pipe whose reader has gone (prog 2>&1 | head -1) must not kill the
 * program with SIGPIPE: it is blocked around the writes (raw calls: the mask hooks are not for
 * us), and the one a write raised is taken back unless the program's own was already pending. */
void hp_platform_write_all(int fd, const char *p, size_t n)
{
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    int blocked = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &pipe_only, &old, _NSIG / 8) == 0;
    int was_pending = blocked && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    int broken = 0;
    while (n > 0) {
        long w = syscall(SYS_write, fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN && writable(fd)) continue;
        if (w < 0 && errno == EPIPE) broken = 1;
        if (w <= 0) break;
        p += w;
        n -= (size_t)w;
    }
    if (!blocked) return;
    if (broken && !was_pending) {
        struct timespec none = { 0, 0 };
        syscall(SYS_rt_sigtimedwait, &pipe_only, NULL, &none, _NSIG / 8);
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
}

void hp_platform_wait(_Atomic uint32_t *word, uint32_t val, const struct timespec *timeout)
{
    syscall(SYS_futex, word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, val, timeout, NULL, 0);
}

void hp_platform_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

int hp_platform_open(const char *path, int flags, int mode)
{
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, mode);
}

void hp_platform_close(int fd)
{
    syscall(SYS_close, fd);
}

uint64_t hp_platform_raise_shared_max(const char *path, uint64_t v)
{
    int fd = hp_platform_open(path, O_RDWR | O_NOFOLLOW, 0);
    if (fd < 0) return 0;
    long m = syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    hp_platform_close(fd);
    if (m == -1) return 0;
    _Atomic uint64_t *word = (_Atomic uint64_t *)m;
    uint64_t seen = atomic_load(word);
    while (seen < v && !atomic_compare_exchange_weak(word, &seen, v)) { }
    syscall(SYS_munmap, (void *)m, 4096);
    return seen > v ? seen : v;
}

void hp_platform_unlink(const char *path)
{
    syscall(SYS_unlinkat, AT_FDCWD, path, 0);
}

int hp_platform_rename(const char *from, const char *to)
{
    return (int)syscall(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to);
}

const char *hp_platform_signal_name(int sig)
{
    const char *name = sigabbrev_np(sig);
    return name ? name : "?";
}

const char *hp_platform_errno_name(int err)
{
    const char *name = strerrorname_np(err);
    return name ? name : "error";
}

/* Whether fn can run where the calling thread is: the main thread on its own stack (not a signal's
 * alternate one, not a coroutine's), with twice HP_OWN_STACK_BYTES left above the lowest address
 * RLIMIT_STACK lets it grow to. Its top is taken a few pages above the environment's end (the
 * program's path and the end marker lie there): a smaller room than the stack has, never a
 * larger one. Saves the mapping, its guard, the switch and the unmapping of a stack. */
static int room_here(void)
{
    stack_t alt;
    struct rlimit rl;
    uintptr_t here = (uintptr_t)&alt, top = image.env_end + 3 * 4096;
    if (!image.env_end || !on_main_thread()) return 0;
    if (syscall(SYS_sigaltstack, NULL, &alt) != 0 || (alt.ss_flags & SS_ONSTACK)) return 0;
    if (syscall(SYS_getrlimit, RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= top) return 0;
    uintptr_t low = top - rl.rlim_cur;
    return here < image.arg_start && here > low && here - low >= 2 * HP_OWN_STACK_BYTES;
}

/* The stack is mapped with a raw syscall (the mmap hook would count it as the program's) below a
 * guard page, and given back once fn returns (an exec that failed goes on). */
void hp_platform_on_own_stack(void (*fn)(void))
{
    if (room_here()) {
        fn();
        return;
    }
    size_t guard = 4096, len = HP_OWN_STACK_BYTES + guard;
    long m = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    ucontext_t here, there;
    if (m == -1 || syscall(SYS_mprotect, (void *)m, guard, PROT_NONE) != 0 || getcontext(&there) != 0) {
        if (m != -1) syscall(SYS_munmap, (void *)m, len);
        fn();
        return;
    }
    there.uc_stack.ss_sp = (char *)m + guard;
    there.uc_stack.ss_size = HP_OWN_STACK_BYTES;
    there.uc_link = &here;
    makecontext(&there, fn, 0);
    if (swapcontext(&here, &there) != 0) fn();
    syscall(SYS_munmap, (void *)m, len);
}
