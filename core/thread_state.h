/* thread_state.h — the calling thread's own counters, reached through one initial-exec TLS pointer
 * (macOS: a pthread key) (docs/DESIGN.md rules 1–3). Only the owning thread writes them (load + store, no read-modify-write);
 * the sampler reads them with relaxed loads. */
#ifndef HP_THREAD_STATE_H
#define HP_THREAD_STATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Each view's per-thread fields come from a list in its own folder (and process/'s loader flags
 * from dl_thread.h), composed here at compile time like the hooks' hot page (core/hooks.h):
 * these headers declare fields only, no function or variable, so the core's objects still
 * reference no symbol of a view or of process/ (scripts/check_layers.sh). */
#include "process/dl_thread.h"
#include "views/alloc/alloc_thread.h"
#include "views/cpu/cpu_thread.h"
#include "views/io/io_thread.h"
#include "views/locks/locks_thread.h"
#include "views/threads/mappings_thread.h"

#define HP_NO_RECORD UINT32_MAX

/* The order is the layout: the first cache line holds what every hook reads (the allocation
 * counters, the guard, the record), the small flags filling its gaps; the rest follow. */
struct hp_thread {
    HP_ALLOC_THREAD_FIRST_LINE
    HP_DL_THREAD_FIRST_LINE
    HP_CPU_THREAD_FIRST_LINE
    unsigned guard;          /* > 0 while the profiler works on this thread; set for life on its own threads */
    uint32_t record;         /* the thread's row in the registry, or HP_NO_RECORD */
    uint32_t index;          /* the record's creation order (UINT32_MAX without a record) */
    int tid;                 /* the kernel's id of the thread (0 without a record) */
    unsigned char managed;   /* started through our pthread_create: its exit is seen there */
    HP_LOCKS_THREAD_FIRST_LINE
    union {                  /* a free state's link; a live state's word (new_state zeroes it) */
        struct hp_thread *next_free;
        HP_MAPPINGS_THREAD_LIVE_WORD
    };
    HP_MAPPINGS_THREAD_FIELDS
    HP_LOCKS_THREAD_FIELDS
    HP_IO_THREAD_FIELDS
    HP_CPU_THREAD_FIELDS
} __attribute__((aligned(64)));   /* no two threads' counters share a cache line */
_Static_assert(sizeof(struct hp_thread) == 256, "four cache lines: the first states live in the hooks' page");
_Static_assert(offsetof(struct hp_thread, next_free) == 64, "the first line's lists fill it and no more");

/* The views' counters among those fields: what the registry reads into struct hp_counts, sums
 * over exited threads and zeroes in a fork child (core/registry.c), X(field) each. */
#define HP_THREAD_COUNTERS(X)                                                                    \
    HP_ALLOC_COUNTERS(X) HP_LOCKS_COUNTERS(X) HP_MAPPINGS_COUNTERS(X) HP_IO_COUNTERS(X)

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
