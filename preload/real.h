/* real.h — the functions the hooks wrap, as found after libhotpath.so (dlsym RTLD_NEXT), and the
 * small static arena that serves allocations while dlsym itself is still looking them up. */
#ifndef HP_REAL_H
#define HP_REAL_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define HP_EXPORT __attribute__((visibility("default")))

struct hp_real {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*usable_size)(void *);
    int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    void (*pthread_exit)(void *) __attribute__((noreturn));
    int (*pthread_setname_np)(pthread_t, const char *);
    int (*prctl)(int, unsigned long, unsigned long, unsigned long, unsigned long);
    pid_t (*fork)(void);
    void (*exit_)(int) __attribute__((noreturn));
    void (*Exit_)(int) __attribute__((noreturn));
    int (*sigaction)(int, const struct sigaction *, struct sigaction *);
    __sighandler_t (*signal)(int, __sighandler_t);
};

extern struct hp_real hp_real;
/* 1 once the profiler runs in this process; 0 in secure mode or before start: hooks pass through. */
extern int hp_active;
/* The pid being profiled (DESIGN.md rule 13). */
extern int hp_pid;

/* Look up every real function; 0 while a lookup is already under way on this thread. */
int hp_resolve(void);
void hp_resolve_exec(void);
void hp_resolve_io(void);   /* preload/io.c */
void hp_resolve_locks(void);   /* preload/locks.c */
void hp_resolve_mmap(void);
/* Where libhotpath.so itself lives, for children's LD_PRELOAD. */
extern char hp_lib_path[];
/* The HOTPATH_* entries of our environment at start, NULL-terminated, for children. */
extern char **hp_settings;
void *hp_boot_alloc(size_t n, size_t align);
size_t hp_boot_size(const void *p);   /* the size asked for a boot-arena block */
#define HP_BOOT_ARENA_SIZE (64 * 1024)
extern char hp_boot_arena[HP_BOOT_ARENA_SIZE];

static inline int hp_in_boot_arena(const void *p)
{
    return (const char *)p >= hp_boot_arena && (const char *)p < hp_boot_arena + HP_BOOT_ARENA_SIZE;
}

/* A thread's first counted operation: give it a state and a record. */
struct hp_thread *hp_adopt_self(void);

/* Choose how usable sizes are read (once, at start). */
void hp_alloc_init(void);

/* Write the final report from a program thread, with the guard set. */
void hp_report_as_profiler(void);

/* Report signals (SIGTERM, SIGINT, SIGHUP): install where the program left the default. */
void hp_signals_init(void);

#endif
