/* locks_view.c — the locks view: pthread mutexes, rwlocks and condition variables, in two
 * sections (mutexes, rw_locks). */
#include "core/registry.h"
#include "core/ticks.h"
#include "core/view.h"
#include "locks.h"
#include "locks_section.h"
#include "report/section.h"
#include "locks_settings.h"

extern const struct hp_section hp_mutexes_section, hp_rw_locks_section;
static const struct hp_section *const sections[] = { &hp_mutexes_section, &hp_rw_locks_section };

/* A thread's lock waits, and the lock it is blocked on. */
static void thread_json(struct hp_json *j, const struct hp_counts *c)
{
    hp_json_u64(j, "lock_wait_ns", hp_ticks_to_ns(c->lock_wait_ticks));
    hp_json_u64(j, "cond_wait_ns", hp_ticks_to_ns(c->cond_wait_ticks));
    hp_json_u64(j, "cond_wait_count", c->cond_wait_count);
    hp_lock_json(j, "blocked_on", c->blocked_on);
}

static void fork_child(struct hp_thread *self)
{
    hp_locks_fork_child(self);
    hp_locks_forget_deferred();
}

const struct hp_view hp_locks_view = {
    .name = "locks",
    .resolve = hp_resolve_locks,
    .flush = hp_locks_flush_deferred,
    .fork_child = fork_child,
    .thread_json = thread_json,
    .settings = &hp_locks_settings_table,
    .sections = sections,
    .nsections = 2,
};
