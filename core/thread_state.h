/* thread_state.h — the calling thread's own counters, reached through one initial-exec TLS pointer
 * (macOS: a pthread key) (docs/DESIGN.md rules 1–3). Only the owning thread writes them (load + store, no read-modify-write);
 * the sampler reads them with relaxed loads. */
#ifndef HP_THREAD_STATE_H
#define HP_THREAD_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_NO_RECORD UINT32_MAX

struct hp_io_res;

struct hp_thread {
    _Atomic uint64_t alloc_bytes, alloc_count;
    _Atomic uint64_t free_bytes, free_count;
    /* allocation call sites (views/alloc/alloc_sites.h): bytes to allocate before the next sample */
    int64_t alloc_sample_left;
    unsigned char alloc_sample_armed;   /* the first countdown has been drawn */
    _Atomic unsigned char in_loader;    /* inside dl_iterate_phdr or dlclose (dl.c): no stacks */
    _Atomic unsigned char in_iterate;   /* of those, dl_iterate_phdr: its lock held, no change made */
    unsigned char in_cpu_sample;        /* the CPU profile's handler takes a stack: no waiting (dl.c) */
    unsigned guard;          /* > 0 while the profiler works on this thread; set for life on its own threads */
    uint32_t record;         /* the thread's row in the registry, or HP_NO_RECORD */
    uint32_t index;          /* the record's creation order (UINT32_MAX without a record) */
    int tid;                 /* the kernel's id of the thread (0 without a record) */
    unsigned char managed;   /* started through our pthread_create: its exit is seen there */
    unsigned char read_holds;                       /* timed rwlock read holds in read_hold[] */
    _Atomic unsigned char blocked_read;             /* blocked_on is an rwlock wait to read */
    struct hp_thread *next_free;
    _Atomic uint64_t mapped_bytes, unmapped_bytes;  /* anonymous mmap/mremap/munmap (mappings.c) */
    /* locks view (views/locks/locks.c): waits in ticks, the lock (struct hp_lock) waited on now */
    _Atomic uint64_t lock_wait_ticks, cond_wait_ticks, cond_wait_count;
    void *_Atomic blocked_on;
    uint32_t lock_countdown[2];                     /* mutex, rwlock: acquisitions to the next timed hold */
    _Atomic uint64_t blocked_since;  /* a mutex or rwlock wait's start in ticks (set before blocked_on) */
    struct { void *lock; uint64_t start; } read_hold[4];
    /* I/O view (views/io/io.h): time in I/O calls in ticks, calls, calls to the next timed one */
    _Atomic uint64_t io_ticks, io_count;
    uint32_t io_countdown;
    volatile uint64_t io_key;    /* the last descriptor found in the fd table and the table's */
    struct hp_io_res *volatile io_res;   /* generation then, and its record: hp_io_res_of */
    /* CPU profile (views/cpu/cpu_profile.c): the ring this thread's SIGPROF handler writes, or NULL */
    struct hp_cpu_buf *cpu_buf;
    uintptr_t stack_lo;          /* the lowest address of the thread's stack, 0 unknown (cpu_profile.c) */
} __attribute__((aligned(64)));   /* no two threads' counters share a cache line */
_Static_assert(sizeof(struct hp_thread) == 256, "four cache lines: the first states live in the hooks' page");

#if defined(__APPLE__)
/* macOS allocates a __thread variable on its thread's first use, inside whichever malloc hook
 * touched it first: the state sits behind a pthread key instead (thread_self_darwin.c), read
 * only once the profiler has started (hp_active). */
#include <pthread.h>
extern pthread_key_t hp_self_key;
#define hp_self ((struct hp_thread *)pthread_getspecific(hp_self_key))
static inline void hp_set_self(struct hp_thread *t) { pthread_setspecific(hp_self_key, t); }
/* Make the key; thread_ends runs as each thread ends, with its state. 0 on success. */
int hp_self_key_init(void (*thread_ends)(void *state));
#else
extern __thread struct hp_thread *hp_self __attribute__((tls_model("initial-exec")));
static inline void hp_set_self(struct hp_thread *t) { hp_self = t; }
#endif

static inline void hp_count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

/* Profiler work on the calling thread from here (its allocations, locks and CPU samples are not
 * the program's): the thread's state to give hp_guard_lower, NULL for a thread not yet known. */
static inline struct hp_thread *hp_guard_raise(void)
{
    struct hp_thread *t = hp_self;
    if (t) t->guard++;
    return t;
}

static inline void hp_guard_lower(struct hp_thread *t)
{
    if (t) t->guard--;
}

static inline uint64_t hp_read(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

#endif
