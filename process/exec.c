/* exec.c — the exec family and posix_spawn (docs/DESIGN.md rule 13): the image being replaced writes
 * its report first (atexit does not run at exec) and a failed exec goes on profiling; children
 * get libhotpath.so back in an explicit environment (or taken out, HOTPATH_NO_CHILDREN=true), and
 * an exec carries the process image number (%n) to the next image. A vfork child, which shares
 * our memory under another pid, writes no report, but what it execs gets the same environment. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/child_env.h"
#include "core/config.h"
#include "core/memory.h"
#include "core/thread_state.h"
#include "report/http_server.h"
#include "report/report.h"
#include "process.h"

extern char **environ;

/* The real functions, looked up in hp_resolve (real_lookup.h). */
#define EXEC_FNS(X, C)                                                                          \
    X(C, execve,       "execve",       NULL, EAGER, int, (const char *, char *const[], char *const[])) \
    X(C, execvpe,      "execvpe",      NULL, EAGER, int, (const char *, char *const[], char *const[])) \
    X(C, fexecve,      "fexecve",      NULL, EAGER, int, (int, char *const[], char *const[]))   \
    X(C, execveat,     "execveat",     NULL, EAGER, int,                                        \
      (int, const char *, char *const[], char *const[], int))                                   \
    X(C, posix_spawn,  "posix_spawn",  NULL, EAGER, int,                                        \
      (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,   \
       char *const[], char *const[]))                                                           \
    X(C, posix_spawnp, "posix_spawnp", NULL, EAGER, int,                                        \
      (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,   \
       char *const[], char *const[]))

static struct {
    HP_REAL_FIELDS(EXEC_FNS)
} real;

void hp_resolve_exec(void)
{
    HP_REAL_LOOKUPS(EXEC_FNS, real);
}

/* Whether this process is the profiled one (not a vfork child sharing our memory). */
static int profiled_here(void)
{
    hp_process_resolve();
    return hp_active && getpid() == hp_pid;
}

/* The child's environment (child_env.h), made on the caller's stack where it surely fits (the
 * common case, and the only way in a vfork child, which may not touch the parent's heaps): up to
 * ENV_STACK_SMALL bytes, or more where the thread's known stack bottom leaves ENV_STACK_MARGIN
 * besides (a thread may have a 16 KB stack). Else it comes from the profiler's heap in the
 * profiled process, and a vfork child passes it on as the program gave it. errno is the
 * program's throughout. */
#define ENV_STACK_SMALL (4u << 10)
#define ENV_STACK_MARGIN (64u << 10)

static int fits_on_stack(size_t bytes)
{
    if (bytes <= ENV_STACK_SMALL) return 1;
    const struct hp_thread *t = hp_self;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo = t ? t->stack_lo : 0;
    return lo && sp > lo && sp - lo > bytes + ENV_STACK_MARGIN;
}

struct child_env {
    char **env;      /* what the child gets */
    void *heap;      /* the profiler's heap, for child_env_done */
};

#define WITH_CHILD_ENV(envp, image, ce)                                                         \
    size_t slots_, bytes_;                                                                      \
    hp_child_env_need(envp, hp_settings, hp_lib_path, &slots_, &bytes_);                       \
    int small_ = fits_on_stack(slots_ * sizeof(char *) + bytes_);                              \
    char *stack_env_[small_ ? slots_ : 1], stack_buf_[small_ ? bytes_ : 1];                     \
    struct child_env ce = child_env(envp, image, small_ ? stack_env_ : NULL, stack_buf_, slots_, bytes_)

/* The program took libhotpath.so out of its own environment (env -i, env -u LD_PRELOAD, unsetenv)
 * and execs with that environment: the child is to run without the profiler, as it would without
 * it, and sees what the program left (an explicit environment array, as subprocess libraries
 * build, gets the library back: docs/DESIGN.md rule 13). */
static int dropped_by_program(char *const envp[])
{
    if (envp != environ) return 0;
    const char *base = strrchr(hp_lib_path, '/');
    base = base ? base + 1 : hp_lib_path;
    for (char *const *e = envp; e && *e; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) == 0) return !base[0] || !strstr(*e + 11, base);
    return 1;
}

static struct child_env child_env(char *const envp[], long image, char **env, char *buf, size_t slots,
                                  size_t bytes)
{
    int saved = errno;
    struct child_env ce = { (char **)envp, NULL };
    if (dropped_by_program(envp)) return ce;
    struct hp_thread *t = hp_self;
    if (!env && !hp_vfork_child()) {      /* pointers and strings in one block */
        if (t) t->guard++;
        env = ce.heap = hp_alloc(slots * sizeof *env + bytes);
        if (t) t->guard--;
        if (env) buf = (char *)(env + slots);
    }
    if (env) {
        hp_child_env(env, buf, envp, hp_settings, hp_lib_path, !hp_config.no_children, image);
        ce.env = env;
    }
    errno = saved;
    return ce;
}

static void child_env_done(struct child_env *ce)
{
    if (!ce->heap) return;
    int saved = errno;
    struct hp_thread *t = hp_guard_raise();
    hp_free(ce->heap);
    hp_guard_lower(t);
    errno = saved;
}

enum exec_kind { EXEC_PATH, EXEC_SEARCH, EXEC_FD, EXEC_AT };

struct exec_call {
    enum exec_kind kind;
    int fd;
    const char *path;
    char *const *argv;
    char *const *envp;
    int flags;
};

static int call_real(const struct exec_call *c, char *const envp[])
{
    switch (c->kind) {
    case EXEC_PATH: return real.execve(c->path, c->argv, envp);
    case EXEC_SEARCH: return real.execvpe(c->path, c->argv, envp);
    case EXEC_FD: return real.fexecve(c->fd, c->argv, envp);
    case EXEC_AT: return real.execveat(c->fd, c->path, c->argv, envp, c->flags);
    }
    errno = EINVAL;
    return -1;
}

/* Whether the file can be executed at all. An exec of a path that names no executable file fails
 * at once (ENOENT, EACCES), and a program looking for a command tries one PATH entry after another
 * that way (Python's os.execvp, a shell's command lookup): each try would write this image's report,
 * and the image goes on. errno is kept. */
static int executable(int dirfd, const char *path)
{
    struct stat st;
    int saved = errno, ok = faccessat(dirfd, path, X_OK, AT_EACCESS) == 0 &&
                            fstatat(dirfd, path, &st, 0) == 0 && S_ISREG(st.st_mode);   /* not a directory */
    errno = saved;
    return ok;
}

static int found_in_path(const char *file)
{
    if (strchr(file, '/')) return executable(AT_FDCWD, file);
    const char *d = getenv("PATH");
    if (!d) d = "/bin:/usr/bin";
    for (;;) {
        const char *end = strchrnul(d, ':');
        char full[PATH_MAX];
        int dlen = (int)(end - d), n = dlen ? snprintf(full, sizeof full, "%.*s/%s", dlen, d, file)
                                            : snprintf(full, sizeof full, "%s", file);   /* "": "." */
        if (n > 0 && (size_t)n < sizeof full && executable(AT_FDCWD, full)) return 1;
        if (!*end) return 0;
        d = end + 1;
    }
}

static int may_run(const struct exec_call *c)
{
    switch (c->kind) {
    case EXEC_PATH: return executable(AT_FDCWD, c->path);
    case EXEC_SEARCH: return found_in_path(c->path);
    case EXEC_AT: return !c->path[0] || c->flags || executable(c->fd, c->path);
    case EXEC_FD: return 1;
    }
    return 1;
}

static int do_exec(const struct exec_call *c)
{
    hp_process_resolve();
    if (hp_vfork_child()) {             /* no report here: not our process; image 0 in the new one */
        WITH_CHILD_ENV(c->envp, -1, ce);
        return call_real(c, ce.env);
    }
    if (!profiled_here()) return call_real(c, c->envp);
    /* a spawning fork child writes no report: the program it execs takes this image's number */
    /* an exec that cannot begin leaves the report and the registry alone */
    int spawning = hp_spawning_child(), runs = may_run(c);
    WITH_CHILD_ENV(c->envp, (long)hp_report_image() + !spawning, ce);
    if (runs) {
        if (spawning) {
            hp_server_unregister();
        } else {
            hp_report_exec(c->path && c->path[0] ? c->path : c->argv && c->argv[0] ? c->argv[0] : NULL);
            hp_report_as_profiler();     /* leaves the registry too */
        }
    }
    int r = call_real(c, ce.env);
    /* still here: the exec failed, this image goes on and reports at its end */
    int saved = errno;
    child_env_done(&ce);
    if (runs) {
        if (!spawning) hp_report_rearm();
        hp_server_exec_failed();
    }
    errno = saved;
    return r;
}

HP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    return do_exec(&(struct exec_call){ .kind = EXEC_PATH, .path = path, .argv = argv, .envp = envp });
}

HP_EXPORT int execv(const char *path, char *const argv[])
{
    return do_exec(&(struct exec_call){ .kind = EXEC_PATH, .path = path, .argv = argv, .envp = environ });
}

HP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    return do_exec(&(struct exec_call){ .kind = EXEC_SEARCH, .path = file, .argv = argv, .envp = envp });
}

HP_EXPORT int execvp(const char *file, char *const argv[])
{
    return do_exec(&(struct exec_call){ .kind = EXEC_SEARCH, .path = file, .argv = argv, .envp = environ });
}

HP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    return do_exec(&(struct exec_call){ .kind = EXEC_FD, .fd = fd, .argv = argv, .envp = envp });
}

HP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    return do_exec(&(struct exec_call){ .kind = EXEC_AT, .fd = dirfd, .path = path, .argv = argv,
                                        .envp = envp, .flags = flags });
}

/* execl, execlp, execle: the arguments into an array on the stack (no allocation: these may
 * run in a vfork child). */
#define COLLECT_ARGS(arg0, ap, argv, envp_out)                                   \
    size_t argc_ = 1;                                                            \
    va_start(ap, arg0);                                                          \
    while (va_arg(ap, const char *)) argc_++;                                    \
    va_end(ap);                                                                  \
    char *argv[argc_ + 1];                                                       \
    va_start(ap, arg0);                                                          \
    argv[0] = (char *)arg0;                                                      \
    for (size_t i_ = 1; i_ <= argc_; i_++) argv[i_] = va_arg(ap, char *);        \
    envp_out = va_arg(ap, char *const *);                                        \
    va_end(ap)

HP_EXPORT int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    char *const *unused;
    COLLECT_ARGS(arg0, ap, argv, unused);
    (void)unused;
    return execv(path, argv);
}

HP_EXPORT int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    char *const *unused;
    COLLECT_ARGS(arg0, ap, argv, unused);
    (void)unused;
    return execvp(file, argv);
}

HP_EXPORT int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    char *const *envp;
    COLLECT_ARGS(arg0, ap, argv, envp);
    return execve(path, argv, envp);
}

/* A spawned child is a new process: image 0, environment fixed like an exec's. */
static int do_spawn(int search, pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    int (*fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
              char *const[], char *const[]) = search ? real.posix_spawnp : real.posix_spawn;
    if (!profiled_here() && !hp_vfork_child()) return fn(pid, path, fa, attr, argv, envp);
    WITH_CHILD_ENV(envp, -1, ce);
    int r = fn(pid, path, fa, attr, argv, ce.env);
    child_env_done(&ce);
    return r;
}

HP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return do_spawn(0, pid, path, fa, attr, argv, envp);
}

HP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return do_spawn(1, pid, file, fa, attr, argv, envp);
}
