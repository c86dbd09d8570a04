/* thread_state.h — the calling thread's own counters, reached through one initial-exec TLS pointer
 * (DESIGN.md rules 1–3). Only the owning thread writes them (load + store, no read-modify-write);
 * the sampler reads them with relaxed loads. */
#ifndef HP_THREAD_STATE_H
#define HP_THREAD_STATE_H

#include <stdatomic.h>
#include <stdint.h>

#define HP_NO_RECORD UINT32_MAX

struct hp_thread {
    _Atomic uint64_t alloc_bytes, alloc_count;
    _Atomic uint64_t free_bytes, free_count;
    unsigned guard;          /* > 0 while the profiler works on this thread; set for life on its own threads */
    uint32_t record;         /* the thread's row in the registry, or HP_NO_RECORD */
    unsigned char managed;   /* started through our pthread_create: its exit is seen there */
    struct hp_thread *next_free;
};

extern __thread struct hp_thread *hp_self __attribute__((tls_model("initial-exec")));

static inline void hp_count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

static inline uint64_t hp_read(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

#endif
