/* bootstrap.c — how libhotpath.so comes alive in a process: resolving the real functions (with a
 * static arena while dlsym allocates), the constructor that starts the profiler, and the atexit
 * handler that writes the report. */
#define _GNU_SOURCE
#include "views/io/io_raw.h"
#include "real.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "views/threads/alloc_sites.h"
#include "core/child_env.h"
#include "core/clock.h"
#include "core/config.h"
#include "views/cpu/cpu_profile.h"
#include "views/io/io.h"
#include "core/loader_lock.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/ticks.h"
#include "core/symbols.h"
#include "core/unloaded.h"
#include "report/http_server.h"
#include "report/report.h"

extern char **environ;

struct hp_hot hp_hot __attribute__((aligned(4096))) = { .io_period = 1, .io_fdtab = &hp_io_empty_tab, .io_fd_gen = 1 };
_Static_assert(sizeof(struct hp_hot) <= 4096, "the hooks' globals fit in one page");
int hp_active;
int hp_pid;
char hp_lib_path[4096];
char **hp_settings;

/* ---- the boot arena: dlsym calls calloc before malloc can be found ---- */

char hp_boot_arena[HP_BOOT_ARENA_SIZE] __attribute__((aligned(64)));
static size_t boot_used;

void *hp_boot_alloc(size_t n, size_t align)
{
    if (align < 16) align = 16;
    size_t start = (boot_used + sizeof(size_t) + align - 1) & ~(align - 1);
    if (n > HP_BOOT_ARENA_SIZE || start + n > HP_BOOT_ARENA_SIZE) return NULL;
    memcpy(hp_boot_arena + start - sizeof(size_t), &n, sizeof n);
    boot_used = start + n;
    return hp_boot_arena + start;   /* static storage: already zero, never reused */
}

size_t hp_boot_size(const void *p)
{
    size_t n;
    memcpy(&n, (const char *)p - sizeof n, sizeof n);
    return n;
}

/* ---- resolution ---- */

static __thread int resolving __attribute__((tls_model("initial-exec")));
static int resolved;

int hp_resolve(void)
{
    if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) return 1;
    if (resolving) return 0;
    resolving = 1;
    hp_hot.self_offset = (char *)&hp_self - (char *)__builtin_thread_pointer();
    int saved = errno;
    HP_REAL_LOOKUPS(HP_REAL_FNS, hp_hot.real);
    hp_resolve_exec();
    hp_resolve_creds();
    hp_resolve_locks();
    hp_resolve_mmap();
    hp_resolve_io();
    HP_REAL_LOOKUPS_LAST(HP_REAL_FNS, hp_hot.real);   /* malloc: a non-NULL malloc means every lookup is done */
    errno = saved;
    resolving = 0;
    __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
    return 1;
}

/* ---- threads the profiler did not see start ---- */

/* Set while this thread is being adopted: a signal handler that allocates meanwhile must not
 * try again (the registry lock is held), so its allocation goes uncounted. */
static __thread int adopting __attribute__((tls_model("initial-exec")));

struct hp_thread *hp_adopt_self(void)
{
    if (!hp_active || adopting) return NULL;
    adopting = 1;
    int saved = errno;
    int tid = hp_platform_gettid();
    if (tid != hp_pid) hp_io_raw_off();   /* a thread the program did not start with pthread_create */
    struct hp_thread *t = hp_registry_adopt(tid, (unsigned long)pthread_self(), hp_self_cpu_ns(), hp_now_ns());
    hp_self = t;
    errno = saved;
    adopting = 0;
    return t;
}

/* ---- start and exit ---- */

static void warn_line(const char *line)
{
    size_t n = strlen(line);
    if (write(2, line, n) < 0 || write(2, "\n", 1) < 0) return;
}

static void at_exit(void)
{
    if (hp_active && getpid() == hp_pid) hp_report_as_profiler();
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
 * through glibc, whose arena lock that malloc holds. It has 2 s to begin and a minute to end;
 * otherwise (or with no sampler) the report is written here. */
void hp_report_as_profiler(void)
{
    hp_locks_flush_deferred();     /* exit, _exit, exec: a wait this thread kept is in it */
    struct hp_thread *t = hp_guard_raise();
    if (t && atomic_load_explicit(&t->in_iterate, memory_order_relaxed)) hp_loader_walks_off = 1;
    if (hp_sampler_write_report(FINAL_REPORT_START_MS, FINAL_REPORT_MAX_MS) != 0) final_report();
    hp_guard_lower(t);
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

static void start(int argc, char **argv)
{
    uint64_t start_cpu = hp_self_cpu_ns();
    hp_resolve();
    if (getauxval(AT_SECURE)) return;     /* set-user-ID and friends: pass everything through */
    if (!hp_hot.real.malloc || !hp_hot.real.usable_size || !hp_hot.real.pthread_create) return;

    hp_memory_init();
    hp_ticks_init();
    hp_hot.ticks_are_tsc = hp_ticks_are_tsc;
    hp_alloc_init();
    hp_registry_give_states(hp_hot.first_states, HP_HOT_STATES);
    hp_pid = getpid();
    hp_active = 1;
    hp_io_raw_init();
    struct hp_thread *self = hp_self ? hp_self : hp_adopt_self();
    if (!self) { hp_active = 0; return; }
    self->guard++;
    hp_config_parse(&hp_config, (hp_getenv_fn)getenv, warn_line);
    find_identity();
    hp_syms_note_program();
    hp_report_begin(self->record, hp_pid, argc, argv);
    atexit(at_exit);
    hp_fork_handlers_install();
    hp_signals_init();
    hp_cpu_start(self, &hp_cpu_signals);
    hp_alloc_sites_start();
    /* the main thread's CPU time until now was an earlier program's (exec keeps it) or the
     * profiler's start, not this program's */
    uint64_t now = hp_self_cpu_ns();
    hp_registry_cpu_before(self, now);
    hp_sampler_note_start_cpu(now - start_cpu);
    hp_server_start();
    if (hp_sampler_start(final_report, hp_report_checkpoint, hp_server_launch) != 0) {
        warn_line("hotpath: could not start the sampler thread; CPU figures will be missing");
        hp_server_launch();
    }
    self->guard--;
}

/* The program finds errno as the loader left it (start's probes fail with ENOENT on the way). */
__attribute__((constructor)) static void hp_init(int argc, char **argv, char **envp)
{
    (void)envp;
    int saved = errno;
    start(argc, argv);
    errno = saved;
}
