/* spinlock.h — the profiler's own short lock for its registry (thread start/exit, sampling).
 * Never taken on a malloc path; built on atomics so it never re-enters hooked pthread calls. */
#ifndef HP_SPINLOCK_H
#define HP_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>

typedef struct { atomic_flag held; } hp_spinlock;

#define HP_SPINLOCK_INIT { ATOMIC_FLAG_INIT }

static inline void hp_spin_lock(hp_spinlock *l)
{
    unsigned spins = 0;
    while (atomic_flag_test_and_set_explicit(&l->held, memory_order_acquire)) {
        if (++spins > 64) sched_yield();
    }
}

static inline void hp_spin_unlock(hp_spinlock *l)
{
    atomic_flag_clear_explicit(&l->held, memory_order_release);
}

#endif
