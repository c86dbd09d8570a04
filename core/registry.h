/* registry.h — every thread the process has had: one record per thread (kept after it exits,
 * with its final figures) and the live per-thread states the hooks write into. Records never move,
 * so a record's number is stable; all changes happen under one short lock, never on a malloc path. */
#ifndef HP_REGISTRY_H
#define HP_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "thread_state.h"

#define HP_COMM_MAX 16

#define HP_COUNTS_FIELD_(f) uint64_t f;
struct hp_counts {
    HP_THREAD_COUNTERS(HP_COUNTS_FIELD_)   /* the views' counters (core/thread_state.h) */
    void *blocked_on;       /* the lock (struct hp_lock) the thread waits on now, NULL if none */
    uint64_t blocked_since; /* a mutex or rwlock wait's start (ticks), */
    int blocked_read;       /* and whether it waits to read */
};

struct hp_record {
    int tid;                        /* 0 until the thread has started */
    uint32_t tid_listing;           /* hp_registry_listing's count when tid was set */
    uint32_t index;                 /* creation order; the main thread is 0 */
    uint32_t slot;                  /* where the record lives (slots are reused once folded) */
    uint32_t next_slot;             /* link in the free list or the exited-thread queue */
    unsigned long pthread;          /* pthread_t, 0 when unknown */
    char name[HP_COMM_MAX];         /* set through pthread_setname_np or prctl */
    char comm[HP_COMM_MAX];         /* last seen in /proc */
    char inherited[HP_COMM_MAX];    /* the creator's comm when the thread was made */
    unsigned char named;            /* name is valid */
    unsigned char unused;           /* reserved for a thread whose creation failed */
    unsigned char exited;           /* the thread has ended: CPU figures are final */
    unsigned char gone;             /* no longer in /proc: its counters are folded, state recycled */
    char status;                    /* state letter from /proc, 0 before the first sample */
    unsigned char has_pct;          /* cpu_pct holds a measured interval */
    unsigned char has_max;          /* max_pct holds at least one measured interval */
    uint64_t cpu_user_ns, cpu_sys_ns;
    uint64_t cpu_before_ns;         /* CPU the thread had before the profiler watched it, left out:
                                       the main thread's earlier programs (exec keeps a thread's
                                       CPU time) and the profiler's start */
    uint64_t base_cpu_ns, base_time_ns; /* the previous reading, for CPU% */
    double cpu_pct, max_pct;
    struct hp_counts final;         /* the counters, once gone (blocked_on NULL) */
    struct hp_thread *state;
    void *(*start_fn)(void *);      /* what the thread runs, until it has started */
    void *start_arg;
    uintptr_t stack_addr;           /* the stack asked for at creation: the program's own stack's */
    size_t stack_size;              /* lowest address (0: glibc allocates it; HP_STACK_UNSIZED: its
                                       size is unknown), its size (0: unknown) */
};

#define HP_STACK_UNSIZED UINTPTR_MAX

/* Exited threads beyond HOTPATH_EXITED_THREADS_LIMIT, folded into one row per name. */
struct hp_exited_group {
    char name[24];                  /* the thread name with its digits as '*'; thread_* if unnamed */
    uint32_t threads, first_index;
    uint64_t cpu_user_ns, cpu_sys_ns;
    double max_pct;
    unsigned char has_max;
    struct hp_counts *c;            /* the summed counters */
};


void hp_registry_lock(void);
void hp_registry_unlock(void);
/* The calling thread holds the lock or waits for it: a signal handler that interrupted it is
 * running now. */
int hp_registry_busy_here(void);
/* In a fork child made from such a handler: a lock the thread was waiting for is let go (its
 * holder is not in the child); one it held stays held for the interrupted code to let go. */
void hp_registry_fork_child_unwedge(void);
uint32_t hp_registry_count(void);
struct hp_record *hp_record_at(uint32_t i);   /* caller holds the lock */
void hp_record_counts(const struct hp_record *r, struct hp_counts *out); /* caller holds the lock */
/* The name a report gives the thread (caller holds the lock). */
void hp_record_name(const struct hp_record *r, char *out, size_t size);
/* The report name of a thread by its tid; 0 when unknown. */
int hp_registry_name_of_tid(int tid, char *out, size_t size);
/* The state of a live thread by its tid, or NULL (caller holds the lock). */
struct hp_thread *hp_registry_state_of_tid(int tid);

/* A thread is about to be created: its record is made now so its index is its creation order,
 * and holds what the thread will run and on what stack (no allocation needed to pass it along). */
uint32_t hp_registry_reserve(const char *creator_comm, void *(*fn)(void *), void *arg,
                             uintptr_t stack_addr, size_t stack_size);
void hp_registry_unreserve(uint32_t rec);
/* pthread_create returned: the parent knows the pthread_t before the thread may have run. */
void hp_registry_created(uint32_t rec, unsigned long pthread);
/* The comm a thread had when first seen; a different comm later means it was renamed. */
void hp_registry_inherit(uint32_t rec, const char *comm);
/* The calling thread starts: attach a fresh state to its record (rec may be HP_NO_RECORD). */
struct hp_thread *hp_registry_attach(uint32_t rec, int tid, unsigned long pthread,
                                     uint64_t cpu_ns, uint64_t now_ns);
/* A thread with no state (not created through our hook): find or make its record. */
struct hp_thread *hp_registry_adopt(int tid, unsigned long pthread, uint64_t cpu_ns, uint64_t now_ns);
/* States to hand out before any page of the registry's own, the first of them first (at start,
 * before any thread is adopted: core/hooks.h "hp_hot"). */
void hp_registry_give_states(struct hp_thread *states, size_t n);
/* A profiler thread: a state with the guard set for life, and no record. */
struct hp_thread *hp_registry_profiler_state(void);
/* The sampler is about to list the process's threads: returns that listing's number. A record
 * whose tid was set after (tid_listing above it) may be missing from the listing while alive. */
uint32_t hp_registry_listing(void);
/* The sampler saw a thread it does not know (caller holds the lock): its record, or HP_NO_RECORD. */
uint32_t hp_registry_discover(int tid, const char *process_comm);
/* Watching another process (hotpath-run --pid): the calling thread's record is the watcher's, no
 * thread of the watched process; it is left out of the reports (no tid, unused). */
void hp_registry_hide(struct hp_thread *t);
/* The calling thread ends: its final CPU times. Its record and state are recycled once the
 * sampler sees it gone from the process; 1 when this is the HP_RETIRE_BATCH-th thread to end
 * since then, so that a program ending thousands of threads between two passes asks for them
 * to be retired sooner (hp_sampler_retire_soon) instead of holding all their records. */
#define HP_RETIRE_BATCH 256u
int hp_registry_exit(struct hp_thread *t, uint64_t user_ns, uint64_t sys_ns);
/* At start, on the main thread: its CPU time so far is not the program's (cpu_before_ns). */
void hp_registry_cpu_before(struct hp_thread *t, uint64_t cpu_ns);
/* The thread left /proc: fold its counters and recycle its state; past the exited-threads
 * limit the oldest exited record folds into its group (caller holds the lock, sampler only). */
void hp_registry_gone(struct hp_record *r);
/* The folded groups (caller holds the lock). */
const struct hp_exited_group *hp_registry_groups(uint32_t *n);
/* In a fork child: the heap its parent had live at the fork (0 elsewhere), which the process's
 * live heap includes though no thread of its allocated it. */
int64_t hp_registry_inherited_bytes(void);
/* dst += src, every counter. */
void hp_counts_add(struct hp_counts *dst, const struct hp_counts *src);
/* Names: of a pthread (any thread), or of the calling thread's record. */
void hp_registry_name_pthread(unsigned long pthread, const char *name);
void hp_registry_name_record(uint32_t rec, const char *name);
/* In a fork child only the calling thread survives: it becomes record 0, counters from zero. */
void hp_registry_fork_child(struct hp_thread *self, int tid, unsigned long pthread,
                            uint64_t cpu_ns, uint64_t now_ns);

#endif
