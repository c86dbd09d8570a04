/* process.c — process lifetime hooks (docs/DESIGN.md rules 13, 14): fork (the child profiles itself
 * afresh) and _exit/_Exit (report first). Signals are in signals.c, exec in exec.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/loader_lock.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/unwind.h"
#include "core/view.h"
#include "report/http_server.h"
#include "report/out_file.h"
#include "report/report.h"
#include "process.h"

/* Daemons: see hp_report_detach_stderr. */
HP_EXPORT pid_t setsid(void)
{
    hp_resolve();
    pid_t r = hp_hot.real.setsid();
    if (r != -1 && hp_active && !hp_vfork_child()) hp_report_new_session();
    return r;
}

/* glibc's daemon() makes its setsid and dup2 calls internally, where no hook sees them. */
HP_EXPORT int daemon(int nochdir, int noclose)
{
    hp_resolve();
    if (!noclose && hp_active) hp_report_keep_stderr();   /* fd 2 goes to /dev/null inside */
    int r = hp_hot.real.daemon(nochdir, noclose);
    if (r == 0 && hp_active) {
        int saved = errno;
        hp_report_new_session();
        if (!noclose) hp_report_detach_stderr();
        errno = saved;
    }
    return r;
}

int hp_spawning_child(void)
{
    return hp_report_fork_child() && !hp_sampler_settled();
}

/* The fork this thread is making, as its handlers see it:
 * registry_held: the registry's lock is held across the fork itself, so that the child's copy is
 *   whole: taken by the last prepare handler to run and let go by the first parent and child
 *   handlers (handlers installed at start run last before a fork and first after it), not around
 *   the whole of fork(): the program's own handlers may make or end threads, which takes the lock.
 * from_handler: the fork is made by a signal handler that interrupted the profiler's own work on
 *   this thread (its registry lock held or waited for, say, inside pthread_create): the lock is
 *   not taken, or the thread would wait for itself, and the child, whose copy of the profiler's
 *   state may be halfway changed, runs unprofiled (hooks pass through, no report; an exec
 *   profiles anew). */
static __thread struct {
    int registry_held, from_handler;
} forking __attribute__((tls_model("initial-exec")));

static void fork_prepare(void)
{
    if (!hp_active || !hp_self) return;
    if (hp_self->guard || hp_registry_busy_here()) {
        forking.from_handler = 1;
        return;
    }
    hp_unwind_before_fork();
    hp_registry_lock();
    forking.registry_held = 1;
}

static void fork_parent(void)
{
    if (!forking.registry_held) return;
    forking.registry_held = 0;
    hp_registry_unlock();
}

/* The parent's other program threads (the registry still lists them here): whether there were
 * any, and whether one was inside dlclose (dl.c marks it). */
static void other_threads(const struct hp_thread *self, int *any, int *in_dlclose)
{
    *any = *in_dlclose = 0;
    for (uint32_t i = 0; i < hp_registry_count(); i++) {
        const struct hp_thread *t = hp_record_at(i)->state;
        if (!t || t == self || hp_record_at(i)->gone || t->guard) continue;
        *any = 1;
        if (atomic_load_explicit(&t->in_loader, memory_order_relaxed) >
            atomic_load_explicit(&t->in_iterate, memory_order_relaxed))
            *in_dlclose = 1;
    }
}

/* glibc's fork leaves dl_iterate_phdr's lock as it was (loader_lock.h): who held it decides. The
 * loader's lists may be halfway when a dlclose was under way or a dlopen was adding objects; a
 * dlopen need not show, so with other program threads the profiler loads no library. */
static void loader_lock_after_fork(struct hp_thread *self)
{
    int owner = hp_loader_lock_owner(), others, changing;
    other_threads(self, &others, &changing);
    hp_loader_no_dlopen = others;
    changing |= _r_debug.r_state != RT_CONSISTENT;
    if (owner && owner == self->tid) {
        hp_loader_lock_adopt(hp_platform_gettid());
    } else if (owner && !changing) {
        struct hp_thread *holder = owner > 0 ? hp_registry_state_of_tid(owner) : NULL;
        if (holder && atomic_load_explicit(&holder->in_iterate, memory_order_relaxed)) hp_loader_lock_free();
        else changing = 1;
    }
    if (changing) {
        hp_loader_walks_off = 1;
        hp_unwind_stop();
    }
}

static void fork_child(void)
{
    if (!forking.registry_held) return;
    forking.registry_held = 0;
    struct hp_thread *self = hp_self;
    loader_lock_after_fork(self);
    self->guard++;
    hp_registry_fork_child(self, hp_platform_gettid(), (unsigned long)pthread_self(), hp_self_cpu_ns(),
                           hp_now_ns());
    self->guard--;
}

void hp_fork_handlers_install(void)
{
    hp_loader_lock_find();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

HP_EXPORT pid_t fork(void)
{
    hp_resolve();
    if (!hp_active) return hp_hot.real.fork();
    struct hp_thread *self = hp_self ? hp_self : hp_adopt_self();
    if (!self) return hp_hot.real.fork();
    pid_t pid = hp_hot.real.fork();
    int saved = errno;
    if (forking.from_handler) {
        forking.from_handler = 0;
        if (pid == 0) {
            hp_registry_fork_child_unwedge();
            hp_active = 0;
        }
    } else if (pid == 0) {
        self->guard++;
        hp_memory_restart_in_child();
        uint64_t now = hp_now_ns();
        hp_pid = getpid();
        hp_report_child_identity(hp_pid, now);
        hp_unwind_fork_child();
        HP_VIEWS_STEP(fork_child, self);
        hp_out_files_forget();
        hp_server_restart_in_child();   /* its listener, which the new sampler's first pass serves */
        hp_sampler_restart_in_child();
        self->guard--;
    } else if (pid > 0) {
        hp_sampler_note_fork();
    }
    errno = saved;
    return pid;
}

static void report_before_exit(int status)
{
    /* a vfork child runs in our memory under another pid: it only passes through */
    if (!hp_active || getpid() != hp_pid) return;
    hp_report_exit_status(status);
    hp_report_as_profiler();
}

HP_EXPORT void _exit(int status)
{
    hp_resolve();
    report_before_exit(status);
    hp_hot.real.exit_(status);
}

HP_EXPORT void _Exit(int status)
{
    hp_resolve();
    report_before_exit(status);
    hp_hot.real.Exit_(status);
}
