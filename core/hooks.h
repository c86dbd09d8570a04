/* hooks.h — what every hook of every view stands on (Linux): the functions the hooks wrap, as
 * found after libhotpath.so (dlsym RTLD_NEXT), the hooks' hot page, whether the profiler runs,
 * the thread a counted call belongs to, and the small static arena that serves allocations while
 * dlsym itself is still looking them up. The hot page's layout is put together from the views'
 * lists at compile time (the I/O functions, views/io/io_fns.h); no view's code is called. */
#ifndef HP_HOOKS_H
#define HP_HOOKS_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

#include "real_lookup.h"
#include "thread_state.h"
#include "views/io/io_fns.h"

#define HP_EXPORT __attribute__((visibility("default")))

/* The real functions of the malloc family, threads, fork and exit, and signals (real_lookup.h).
 * malloc is looked up last in hp_resolve: a non-NULL malloc means every lookup is done. */
#define HP_REAL_FNS(X, C)                                                                                                                \
    X(C, malloc,             "malloc",             NULL, LAST,  void *, (size_t))                                                       \
    X(C, free,               "free",               NULL, EAGER, void, (void *))                                                         \
    X(C, calloc,             "calloc",             NULL, EAGER, void *, (size_t, size_t))                                               \
    X(C, realloc,            "realloc",            NULL, EAGER, void *, (void *, size_t))                                               \
    X(C, posix_memalign,     "posix_memalign",     NULL, EAGER, int, (void **, size_t, size_t))                                         \
    X(C, aligned_alloc,      "aligned_alloc",      NULL, EAGER, void *, (size_t, size_t))                                               \
    X(C, memalign,           "memalign",           NULL, EAGER, void *, (size_t, size_t))                                               \
    X(C, valloc,             "valloc",             NULL, EAGER, void *, (size_t))                                                       \
    X(C, pvalloc,            "pvalloc",            NULL, EAGER, void *, (size_t))                                                       \
    X(C, usable_size,        "malloc_usable_size", NULL, EAGER, size_t, (void *))                                                       \
    X(C, pthread_create,     "pthread_create",     NULL, EAGER, int, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))  \
    X(C, pthread_exit,       "pthread_exit",       NULL, EAGER, __attribute__((noreturn)) void, (void *))                               \
    X(C, pthread_setname_np, "pthread_setname_np", NULL, EAGER, int, (pthread_t, const char *))                                         \
    X(C, pthread_cancel,     "pthread_cancel",     NULL, EAGER, int, (pthread_t))                                                       \
    X(C, thrd_create,        "thrd_create",        NULL, EAGER, int, (void *, int (*)(void *), void *))                                 \
    X(C, timer_create,       "timer_create",       NULL, EAGER, int, (clockid_t, struct sigevent *, timer_t *))                         \
    X(C, mq_notify,          "mq_notify",          NULL, EAGER, int, (int, const struct sigevent *))                                    \
    X(C, prctl,              "prctl",              NULL, EAGER, int, (int, unsigned long, unsigned long, unsigned long, unsigned long)) \
    X(C, fork,               "fork",               NULL, EAGER, pid_t, (void))                                                          \
    X(C, setsid,             "setsid",             NULL, EAGER, pid_t, (void))                                                          \
    X(C, daemon,             "daemon",             NULL, EAGER, int, (int, int))                                                        \
    X(C, exit_,              "_exit",              NULL, EAGER, __attribute__((noreturn)) void, (int))                                  \
    X(C, Exit_,              "_Exit",              NULL, EAGER, __attribute__((noreturn)) void, (int))                                  \
    X(C, sigaction,          "sigaction",          NULL, EAGER, int, (int, const struct sigaction *, struct sigaction *))               \
    X(C, signal,             "signal",             NULL, EAGER, __sighandler_t, (int, __sighandler_t))

struct hp_real {
    HP_REAL_FIELDS(HP_REAL_FNS)
};

struct hp_fdtab;

/* What every malloc, free, read and write reads, together in one page: the real functions,
 * whether glibc's chunk headers can be read (alloc_count.h), the I/O view's settings and fd table
 * (views/io/io.h), and the states of the first threads (the registry hands them out before any
 * page of its own). A workload that allocates across a large heap misses the TLB on most of its
 * heap accesses, and where system calls flush the TLB (page-table isolation without PCID, as on
 * this VM) every page an I/O hook touches costs a page walk (~12 ns) before and again after the
 * call: each further page the hooks touch can add a walk to a call (BENCHMARKS.md, "Earlier recorded runs"). */
#define HP_HOT_STATES 11
struct hp_hot {
    _Atomic int own_loads;   /* threads inside hp_own_dlopen: the allocation hooks then ask which */
    struct hp_real real;
    int glibc_chunks;
    long self_offset;   /* of hp_self from the thread pointer: hp_self_hot */
    int ticks_are_tsc;  /* hp_ticks_are_tsc (core/ticks.h), copied here at start */
    /* the I/O hooks */
    int io_resolved;                    /* io below is filled in */
    int io_raw;                         /* hooks make plain data calls themselves: io_raw.h */
    int syscall_raw;                    /* the syscall() hook makes the call itself: io_raw.h */
    uint32_t io_period;                 /* HOTPATH_IO_TIME_SAMPLING_RATE as a period: views/io/io.h */
    struct hp_fdtab *_Atomic io_fdtab;  /* fd -> record: views/io/io.h */
    struct hp_io_real io;
    /* changed by every open and close (any thread): a line of its own */
    _Atomic uint32_t io_fd_gen __attribute__((aligned(64)));
    struct hp_thread first_states[HP_HOT_STATES];
};
extern struct hp_hot hp_hot;

/* hp_self, for malloc and free: the offset an initial-exec TLS access loads from the GOT (a page
 * of its own) kept in the hot page instead. Set before anything else in hp_resolve; until then
 * it reads the thread control block's first word, and the hooks' fast paths, which also test
 * hp_hot.glibc_chunks (set later), go no further. */
static inline struct hp_thread *hp_self_hot(void)
{
    return *(struct hp_thread **)((char *)__builtin_thread_pointer() + hp_hot.self_offset);
}
/* 1 once the profiler runs in this process; 0 in secure mode or before start: hooks pass through. */
extern int hp_active;
/* The pid being profiled (docs/DESIGN.md rule 13). */
extern int hp_pid;
/* A vfork child of the profiled process (or a clone sharing its memory): it runs in our memory
 * under a pid of its own until it execs or exits, so what its hooks write would change the
 * parent's view. A system call: for the hooks' rare paths only. */
static inline int hp_vfork_child(void)
{
    return hp_active && getpid() != hp_pid;
}

/* Look up every real function: the core's lists here, then each view's (struct hp_view's
 * resolve), malloc last; 0 while a lookup is already under way on this thread. */
int hp_resolve(void);
void *hp_boot_alloc(size_t n, size_t align);
size_t hp_boot_size(const void *p);   /* the size asked for a boot-arena block */
#define HP_BOOT_ARENA_SIZE (256 * 1024)
extern char hp_boot_arena[HP_BOOT_ARENA_SIZE];

static inline int hp_in_boot_arena(const void *p)
{
    return (const char *)p >= hp_boot_arena && (const char *)p < hp_boot_arena + HP_BOOT_ARENA_SIZE;
}


/* Whether the calling thread is inside hp_own_dlopen (for the allocation hooks' rare path). */
int hp_own_load_here(void);

/* A thread's first counted operation: give it a state and a record. */
struct hp_thread *hp_adopt_self(void);

/* A thread the program did not start with pthread_create, or its second thread: the hooks stop
 * making plain system calls themselves (views/io/io_raw.h), for good. */
void hp_raw_syscalls_off(void);
/* Whether hp_raw_syscalls_off has been called: a view that would turn raw calls on asks first. */
int hp_raw_syscalls_barred(void);

#endif
