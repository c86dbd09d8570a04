/* bootstrap.c — how libhotpath.so comes alive in a process: the constructor that starts the
 * profiler (the core, then each view, then the report and the sampler) and the atexit handler
 * that writes the report. */
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "core/child_env.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/lines.h"
#include "core/loader_lock.h"
#include "core/lock_holders.h"
#include "core/memory.h"
#include "core/own_fds.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/ticks.h"
#include "core/symbols.h"
#include "core/unloaded.h"
#include "core/unwind.h"
#include "core/view.h"
#include "report/http_server.h"
#include "report/report.h"
#include "report/report_settings.h"

extern char **environ;

char hp_lib_path[4096];
char **hp_settings;

/* ---- the process-wide hooks' own real functions ---- */

/* hp_resolve's lookups, then exec.c's, creds.c's and waits.c's: once every lookup is done (a thread that
 * races another here looks the same pointers up again). */
void hp_process_resolve(void)
{
    static _Atomic int done;
    if (atomic_load_explicit(&done, memory_order_acquire)) return;
    if (!hp_resolve()) return;   /* a lookup under way on this thread: the next call does it */
    hp_resolve_exec();
    hp_resolve_creds();
    hp_resolve_waits();
    atomic_store_explicit(&done, 1, memory_order_release);
}

/* ---- start and exit ---- */

static void warn_line(const char *line)
{
    size_t n = strlen(line);
    if (write(2, line, n) < 0 || write(2, "\n", 1) < 0) return;
}

/* on_exit, not atexit: the report says the status the process ends with. */
static void at_exit(int status, void *arg)
{
    (void)arg;
    if (!hp_active || getpid() != hp_pid) return;
    hp_report_exit_status(status);
    hp_report_as_profiler();
}

#define FINAL_REPORT_START_MS 2000
#define FINAL_REPORT_MAX_MS 60000

/* The image ends (exit, _exit, an ending signal, exec): it leaves the registry of live processes
 * first, or a process that ended by _exit or a signal would leave its entry for the next process
 * to start to clean up. */
static void final_report(void)
{
    hp_server_unregister();
    hp_report_write_final();
}

/* Profiler work on a program thread: the guard keeps the hooks from counting it. The sampler
 * writes the report when it runs: exit and _exit may be called from a signal handler that
 * interrupted malloc on this thread, and the report's libraries (libdw, the demangler) allocate
 * through glibc, whose arena lock that malloc holds. It has 2 s to begin and finish_ms to end;
 * past that the report is written here when fallback says so. A deferred sampler that never
 * started (a process that lived milliseconds) leaves it to this thread, without file:line (libdw)
 * where the call may come from a signal handler; except where the handler interrupted the
 * profiler's own work on this thread (its locks and heap may be halfway changed, but the
 * allocator's lock is not held there): the sampler is started for it then. */
void hp_report_on_this_thread(int finish_ms, int fallback)
{
    HP_VIEWS_STEP0(flush);     /* exit, _exit, exec: what this thread kept (a lock wait) */
    struct hp_thread *t = hp_self;
    int in_profiler = t && t->guard;
    t = hp_guard_raise();
    if (t && atomic_load_explicit(&t->in_iterate, memory_order_relaxed)) hp_loader_walks_off = 1;
    /* the profiler's own work interrupted: the sampler, started now if need be, writes it */
    if (in_profiler) hp_sampler_launch();
    if (hp_sampler_write_report(FINAL_REPORT_START_MS, finish_ms) != 0) {
        if (hp_sampler_running()) {
            if (fallback) final_report();
        } else if (in_profiler) {
            char line[96];
            snprintf(line, sizeof line, "[hotpath] pid %d ended inside the profiler's own work, which left no thread to write its report", hp_pid);
            warn_line(line);
        } else {
            if (hp_signals_maybe_in_handler()) hp_lines_refuse();
            hp_sampler_note_report_thread();
            hp_platform_on_own_stack(final_report);
        }
    }
    hp_guard_lower(t);
}

void hp_report_as_profiler(void)
{
    hp_report_on_this_thread(FINAL_REPORT_MAX_MS, 1);
}

/* Our own path (children's LD_PRELOAD) and the image number an exec handed over; the variable
 * is taken out of the environment so the program never sees it. */
static void find_identity(void)
{
    const char *path;
    if (hp_module_of((void *)hp_resolve, &path) && path[0]) {
        if (path[0] == '/' || !realpath(path, hp_lib_path)) snprintf(hp_lib_path, sizeof hp_lib_path, "%s", path);
    }
    size_t n = 0, k = 0;
    for (char **e = environ; *e; e++) n++;
    if ((hp_settings = hp_alloc((n + 1) * sizeof *hp_settings)))
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "HOTPATH_", 8) == 0 && strncmp(*e, HP_IMAGE_VAR "=", sizeof HP_IMAGE_VAR) != 0)
                hp_settings[k++] = hp_strdup(*e);
    const char *image = getenv(HP_IMAGE_VAR);
    if (image) {
        hp_report_set_image((unsigned)strtoul(image, NULL, 10));
        unsetenv(HP_IMAGE_VAR);
    }
}

/* The profiler's own descriptors, as the hooks meet them (core/own_fds.h). */
static int release_own_fds(void)
{
    int freed = hp_server_give_up();
    freed |= hp_report_release_stderr();
    return freed;
}

static int server_holds_port(unsigned port)
{
    return port == hp_server_port() || port == hp_server_pending_port();
}

static const struct hp_own_fds own_fds = {
    .release = release_own_fds,
    .stderr_replaced = hp_report_stderr_replaced,
    .holds_port = server_holds_port,
    .yield_port = hp_server_yield_port,
};

/* Whether the sampler thread may wait for the program to outlive a few milliseconds
 * (core/sampler.h): it is started by the hooks, and by the CPU profile's samples for a program
 * that only computes, so not without those samples; nor when a checkpoint or the metrics server
 * is asked for from the first moment. The hooks' safe points are taken from the modules of the
 * functions pthread_create needs (core/lock_holders.h). */
static int sampler_may_wait(void)
{
    if (hp_config.checkpoint_s || hp_config.metrics_start_ms == 0 || !hp_signals_cpu_claimed()) return 0;
    const void *const holders[] = { (const void *)hp_hot.real.malloc, (const void *)hp_hot.real.pthread_create,
                                    (const void *)&_r_debug, (const void *)hp_resolve, hp_unwind_code() };
    return hp_lock_holders_note(holders, sizeof holders / sizeof *holders) == 0;
}

static void start(int argc, char **argv)
{
    uint64_t start_cpu = hp_self_cpu_ns();
    hp_process_resolve();
    if (getauxval(AT_SECURE)) return;     /* set-user-ID and friends: pass everything through */
    if (!hp_hot.real.malloc || !hp_hot.real.usable_size || !hp_hot.real.pthread_create) return;

    hp_memory_init();
    hp_ticks_init();
    hp_hot.ticks_are_tsc = hp_ticks_are_tsc;
    hp_registry_give_states(hp_hot.first_states, HP_HOT_STATES);
    hp_pid = getpid();
    hp_active = 1;
    struct hp_thread *self = hp_self ? hp_self : hp_adopt_self();
    if (!self) { hp_active = 0; return; }
    self->guard++;
    hp_settings_parse_all((hp_getenv_fn)getenv, warn_line);
    find_identity();
    hp_syms_note_program();
    int watching = hp_config.watch_pid != 0;
    if (!watching) {
        hp_report_begin(self->record, hp_pid, argc, argv);
    } else if (hp_watch_begin(self) != 0) {
        warn_line("hotpath: cannot watch that process from here; the profiler is off");
        hp_active = 0;
        self->guard--;
        return;
    }
    hp_own_fds_set(&own_fds);
    on_exit(at_exit, NULL);
    hp_fork_handlers_install();
    hp_signals_init();
    const struct hp_view_start views_start = { self, &hp_view_signals };
    HP_VIEWS_STEP(start, &views_start);
    /* the main thread's CPU time until now was an earlier program's (exec keeps it) or the
     * profiler's start, not this program's */
    uint64_t now = hp_self_cpu_ns();
    hp_registry_cpu_before(self, now);
    hp_sampler_note_start_cpu(now - start_cpu);
    hp_server_start();
    if (hp_sampler_start(final_report, hp_report_checkpoint, hp_server_launch, hp_config.metrics_start_ms,
                         !watching && sampler_may_wait()) != 0) {
        warn_line("hotpath: could not start the sampler thread; CPU figures will be missing");
        hp_server_launch();
    }
    self->guard--;
}

/* The program finds errno as the loader left it (start's probes fail with ENOENT on the way). */
__attribute__((constructor)) static void hp_init(int argc, char **argv, char **envp)
{
    int saved = errno;
    hp_platform_note_start(argc, argv, envp);
    start(argc, argv);
    errno = saved;
}
