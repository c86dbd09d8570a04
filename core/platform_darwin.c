/* platform_darwin.c — the platform interface on macOS: Mach. One listing (hp_platform_list_tasks)
 * asks for the task's threads (task_threads) and reads each one there: times and run state
 * (THREAD_BASIC_INFO), its stable id (THREAD_IDENTIFIER_INFO) and its name (pthread_getname_np);
 * task_stat and the CPU clock of a thread answer from that reading, so no Mach port is kept
 * between passes. Thread ids are the system-wide 64-bit ids of pthread_threadid_np, kept as int
 * like Linux tids (they count threads made since boot). Interface functions the macOS build
 * never calls (scan_dir: the process file and the I/O view) are not here. */
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <mach/mach.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "memory.h"
#include "sort.h"
#include "spinlock.h"

struct seen_thread {
    int tid;
    struct hp_task_stat stat;   /* utime/stime in microseconds */
    uint64_t cpu_ns;
};

static hp_spinlock seen_lock = HP_SPINLOCK_INIT;   /* the listing against lookups from a report */
static struct seen_thread *seen;
static size_t nseen, cap_seen;

static char run_state(int state)
{
    switch (state) {
    case TH_STATE_RUNNING: return 'R';
    case TH_STATE_WAITING: return 'S';
    case TH_STATE_UNINTERRUPTIBLE: return 'D';
    case TH_STATE_STOPPED: return 'T';
    case TH_STATE_HALTED: return 'X';
    default: return '?';
    }
}

static uint64_t time_value_us(time_value_t t)
{
    return (uint64_t)t.seconds * 1000000u + (uint64_t)t.microseconds;
}

static int read_thread(thread_act_t port, struct seen_thread *out)
{
    thread_basic_info_data_t basic;
    mach_msg_type_number_t count = THREAD_BASIC_INFO_COUNT;
    if (thread_info(port, THREAD_BASIC_INFO, (thread_info_t)&basic, &count) != KERN_SUCCESS) return -1;
    thread_identifier_info_data_t ident;
    count = THREAD_IDENTIFIER_INFO_COUNT;
    if (thread_info(port, THREAD_IDENTIFIER_INFO, (thread_info_t)&ident, &count) != KERN_SUCCESS) return -1;
    memset(out, 0, sizeof *out);
    out->tid = (int)ident.thread_id;
    out->stat.state = run_state(basic.run_state);
    out->stat.utime_ticks = time_value_us(basic.user_time);
    out->stat.stime_ticks = time_value_us(basic.system_time);
    out->cpu_ns = (out->stat.utime_ticks + out->stat.stime_ticks) * 1000u;
    char name[64] = "";
    pthread_t th = pthread_from_mach_thread_np(port);
    if (th && pthread_getname_np(th, name, sizeof name) == 0)
        memcpy(out->stat.comm, name, sizeof out->stat.comm - 1);
    return 0;
}

static int by_tid(const void *a, const void *b)
{
    int x = ((const struct seen_thread *)a)->tid, y = ((const struct seen_thread *)b)->tid;
    return (x > y) - (x < y);
}

/* caller holds seen_lock */
static const struct seen_thread *find_seen(int tid)
{
    size_t lo = 0, hi = nseen;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (seen[mid].tid < tid) lo = mid + 1;
        else hi = mid;
    }
    return lo < nseen && seen[lo].tid == tid ? &seen[lo] : NULL;
}

int hp_platform_list_tasks(int **tids, size_t *n, size_t *cap)
{
    thread_act_array_t ports;
    mach_msg_type_number_t nports;
    if (task_threads(mach_task_self(), &ports, &nports) != KERN_SUCCESS) return -1;
    int rc = 0;
    hp_spin_lock(&seen_lock);
    if (nports > cap_seen) {
        struct seen_thread *grown = hp_realloc(seen, nports * sizeof *seen);
        if (grown) { seen = grown; cap_seen = nports; }
    }
    if (nports > *cap) {
        int *grown = hp_realloc(*tids, nports * sizeof **tids);
        if (grown) { *tids = grown; *cap = nports; }
    }
    nseen = *n = 0;
    if (nports > cap_seen || nports > *cap) rc = -1;
    for (mach_msg_type_number_t i = 0; i < nports; i++) {
        if (rc == 0 && read_thread(ports[i], &seen[nseen]) == 0) (*tids)[(*n)++] = seen[nseen++].tid;
        mach_port_deallocate(mach_task_self(), ports[i]);
    }
    hp_sort(seen, nseen, sizeof *seen, by_tid);
    hp_spin_unlock(&seen_lock);
    vm_deallocate(mach_task_self(), (vm_address_t)ports, nports * sizeof *ports);
    return rc;
}

int hp_platform_may_open_files(void)
{
    return 1;   /* Mach takes no descriptor to list or read the threads */
}

int hp_platform_task_stat(int tid, struct hp_task_stat *out)
{
    hp_spin_lock(&seen_lock);
    const struct seen_thread *t = find_seen(tid);
    if (t) *out = t->stat;
    hp_spin_unlock(&seen_lock);
    return t ? 0 : -1;
}

/* clock.h: a thread's CPU time as of the last listing (the sampler lists before it reads). */
int hp_thread_cpu_ns(int tid, uint64_t *out)
{
    hp_spin_lock(&seen_lock);
    const struct seen_thread *t = find_seen(tid);
    if (t) *out = t->cpu_ns;
    hp_spin_unlock(&seen_lock);
    return t ? 0 : -1;
}

/* Watching another process (hotpath-run --pid) is Linux's only: task_for_pid needs rights a
 * user's process does not have. */
int hp_platform_watch(int pid)
{
    (void)pid;
    return -1;
}

int hp_platform_watched_pid(void)
{
    return 0;
}

int hp_platform_task_cpu_ns(int tid, uint64_t *ns)
{
    return hp_thread_cpu_ns(tid, ns);
}

int hp_platform_process_cpu_ns(uint64_t *ns)
{
    (void)ns;
    return -1;
}

int hp_platform_target_ended(void)
{
    return 0;
}

int hp_platform_ppid(void)
{
    return getppid();
}

void hp_platform_note_start(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
}

long hp_platform_cmdline(char *buf, size_t size)
{
    (void)buf;
    (void)size;
    return -1;   /* no rewritten titles read back here: the title is the exec-time argv */
}

/* The current resident size, and the peak (getrusage would give only the peak); the thread count
 * is not read here (0). */
int hp_platform_rss(uint64_t *rss_bytes, uint64_t *peak_rss_bytes, uint64_t *threads)
{
    *threads = 0;
    mach_task_basic_info_data_t info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS)
        return -1;
    *rss_bytes = info.resident_size;
    *peak_rss_bytes = info.resident_size_max;
    return 0;
}

int hp_platform_gettid(void)
{
    uint64_t id = 0;
    pthread_threadid_np(NULL, &id);
    return (int)id;
}

void hp_platform_thread_comm(char out[16])
{
    char name[64] = "";
    memset(out, 0, 16);
    if (pthread_getname_np(pthread_self(), name, sizeof name) == 0) memcpy(out, name, 15);
}

void hp_platform_name_self(const char *name)
{
    pthread_setname_np(name);   /* from the interposing image: never interposed */
}

int hp_platform_dup_high(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    long floor;
    /* a soft limit above kern.maxfilesperproc (10240 by default) is not the one that applies */
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 10240) floor = 1000;
    else if (rl.rlim_cur >= 256) floor = (long)rl.rlim_cur - 64;
    else if (rl.rlim_cur >= 32) floor = (long)rl.rlim_cur - 4;   /* the top: the stderr copy, the server's socket */
    else return -1;                      /* every descriptor belongs to the program */
    return fcntl(fd, F_DUPFD_CLOEXEC, (int)floor);
}

void hp_platform_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) {    /* a non-blocking stderr: wait for room, 2 s at most */
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            if (poll(&pfd, 1, 2000) == 1 && (pfd.revents & POLLOUT)) continue;
        }
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* ---- waiting: a Mach semaphore per word, made the first time the word is used ---- */

#define WAIT_WORDS 4

static struct {
    _Atomic(void *) word;
    _Atomic int ready;
    semaphore_t sem;
} waits[WAIT_WORDS];

/* The slot's claimer makes the semaphore; anyone else waits the moment it takes to publish it. */
static semaphore_t sem_of(_Atomic uint32_t *word)
{
    for (int i = 0; i < WAIT_WORDS; i++) {
        void *expected = NULL;
        if (atomic_compare_exchange_strong(&waits[i].word, &expected, (void *)word)) {
            if (semaphore_create(mach_task_self(), &waits[i].sem, SYNC_POLICY_FIFO, 0) != KERN_SUCCESS)
                waits[i].sem = MACH_PORT_NULL;
            atomic_store(&waits[i].ready, 1);
        } else if (expected != (void *)word) {
            continue;
        }
        while (!atomic_load(&waits[i].ready)) {}
        return waits[i].sem;
    }
    return MACH_PORT_NULL;
}

void hp_platform_wait(_Atomic uint32_t *word, uint32_t val, const struct timespec *timeout)
{
    semaphore_t sem = sem_of(word);
    if (atomic_load(word) != val) return;
    if (sem == MACH_PORT_NULL) {            /* no semaphore to be had: sleep the time out */
        if (timeout) nanosleep(timeout, NULL);
        return;
    }
    if (!timeout) {
        semaphore_wait(sem);
        return;
    }
    mach_timespec_t t = { (unsigned)timeout->tv_sec, (clock_res_t)timeout->tv_nsec };
    semaphore_timedwait(sem, t);
}

void hp_platform_wake(_Atomic uint32_t *word)
{
    semaphore_t sem = sem_of(word);
    if (sem != MACH_PORT_NULL) semaphore_signal(sem);
}

/* ---- the report's files: calls from libhotpath.dylib itself never reach a hook ---- */

int hp_platform_open(const char *path, int flags, int mode)
{
    return open(path, flags | O_CLOEXEC, mode);
}

void hp_platform_close(int fd)
{
    close(fd);
}

void hp_platform_unlink(const char *path)
{
    unlink(path);
}

int hp_platform_rename(const char *from, const char *to)
{
    return rename(from, to);
}

uint64_t hp_platform_raise_shared_max(const char *path, uint64_t v)
{
    (void)path;   /* no run directory without the Linux launcher */
    (void)v;
    return 0;
}

const char *hp_platform_signal_name(int sig)
{
    static const char *const names[] = {
        NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "EMT", "FPE", "KILL", "BUS", "SEGV",
        "SYS", "PIPE", "ALRM", "TERM", "URG", "STOP", "TSTP", "CONT", "CHLD", "TTIN", "TTOU", "IO",
        "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "INFO", "USR1", "USR2",
    };
    return sig > 0 && sig < (int)(sizeof names / sizeof *names) ? names[sig] : "?";
}

/* macOS has no strerrorname_np: the errors opening a report file can meet. */
const char *hp_platform_errno_name(int err)
{
    switch (err) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EROFS: return "EROFS";
    case ENOSPC: return "ENOSPC";
    case EDQUOT: return "EDQUOT";
    case EISDIR: return "EISDIR";
    case ENOTDIR: return "ENOTDIR";
    case ELOOP: return "ELOOP";
    case EEXIST: return "EEXIST";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    default: return "error";
    }
}
