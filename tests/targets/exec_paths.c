/* exec_paths.c — exec and spawn as programs use them. Modes:
 *   exec        allocate 100000 bytes, then execv itself as `after` (allocates 200000)
 *   exec-fail   execv a path that does not exist, then allocate 300000 and exit 0
 *   fork-exec   fork; the child allocates 1000 and execs itself as `after` at once (as a shell
 *               runs a command); with a number of milliseconds after it, the child first waits
 *               that long
 *   env         execve with an explicit environment that has no LD_PRELOAD, running `probe`
 *   spawn       posix_spawn `probe` with an explicit environment that has no LD_PRELOAD
 *   vfork-env   vfork, then execve `probe` with the program's environment (as dash runs commands)
 *   bigenv      execve `probe` with the program's environment and 9,000 more variables (72 KB of
 *               pointers: more than the profiler makes on the stack)
 *   smallspawn  a thread on a 16 KB stack posix_spawns `probe` with 1,500 more variables (12 KB
 *               of pointers: more than that thread has to spare)
 *   vfork       50 rounds of vfork+exec of `probe` and 50 posix_spawn of it, allocating 1000 each
 *   probe       print whether libhotpath.so is loaded here, and the HOTPATH_IMAGE the program sees */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void *volatile kept;     /* keeps markers alive: the compiler may not drop them */

static void marker(size_t n)
{
    char *p = malloc(n);
    memset(p, 1, n);
    kept = p;
}

static int profiled(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && fgets(line, sizeof line, f)) found |= strstr(line, "libhotpath.so") != NULL;
    if (f) fclose(f);
    return found;
}

/* environ and n more variables */
static char **more_env(size_t more)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **big = malloc((n + more + 1) * sizeof *big);
    for (size_t i = 0; i < n; i++) big[i] = environ[i];
    for (size_t i = 0; i < more; i++) {
        big[n + i] = malloc(32);
        snprintf(big[n + i], 32, "V%zu=1", i);
    }
    big[n + more] = NULL;
    return big;
}

static char *spawn_path, **spawn_argv, **spawn_env;

static void *spawner(void *arg)
{
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, spawn_path, NULL, NULL, spawn_argv, spawn_env) == 0) waitpid(pid, &status, 0);
    *(int *)arg = status;
    return NULL;
}

static __attribute__((noinline)) int vfork_exec(char *path, char **argv)
{
    fflush(stdout);
    pid_t pid = vfork();
    if (pid == 0) {
        execve(path, argv, environ);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "probe";
    static char *self;
    self = realpath("/proc/self/exe", NULL);
    if (!strcmp(mode, "exec")) {
        marker(100000);
        execv(self, (char *[]){ argv[0], "after", NULL });
        return 99;
    }
    if (!strcmp(mode, "fork-exec")) {
        pid_t pid = fork();
        if (pid == 0) {
            marker(1000);
            if (argc > 2) usleep((useconds_t)atoi(argv[2]) * 1000);
            execv(self, (char *[]){ argv[0], "after", NULL });
            _exit(99);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("child %d status %d\n", (int)pid, status);
        return 0;
    }
    if (!strcmp(mode, "after")) {
        marker(200000);
        printf("after exec\n");
        return 0;
    }
    if (!strcmp(mode, "exec-fail")) {
        int r = execv("/nonexistent/program", (char *[]){ "x", NULL });
        marker(300000);
        printf("exec failed %d\n", r);
        return 0;
    }
    char *clean_env[] = { "PATH=/usr/bin:/bin", "A=1", NULL };
    char *probe_argv[] = { self, "probe", NULL };
    if (!strcmp(mode, "env")) {
        fflush(stdout);
        execve(self, probe_argv, clean_env);
        return 98;
    }
    if (!strcmp(mode, "spawn")) {
        pid_t pid;
        if (posix_spawn(&pid, self, NULL, NULL, probe_argv, clean_env) != 0) return 97;
        int status;
        waitpid(pid, &status, 0);
        return WEXITSTATUS(status);
    }
    if (!strcmp(mode, "vfork-env")) return vfork_exec(self, probe_argv);
    if (!strcmp(mode, "bigenv")) {
        fflush(stdout);
        execve(self, probe_argv, more_env(9000));
        return 98;
    }
    if (!strcmp(mode, "smallspawn")) {
        spawn_path = self;
        spawn_argv = probe_argv;
        spawn_env = more_env(1500);
        fflush(stdout);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 16384);
        pthread_t t;
        int status = -1;
        if (pthread_create(&t, &attr, spawner, &status) != 0) return 96;
        pthread_join(t, NULL);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 95;
    }
    if (!strcmp(mode, "vfork")) {
        for (int i = 0; i < 50; i++) {
            marker(1000);
            pid_t pid = vfork();
            if (pid == 0) {
                execve(self, (char *[]){ self, "quiet", NULL }, environ);
                _exit(127);
            }
            waitpid(pid, NULL, 0);
            if (posix_spawn(&pid, self, NULL, NULL, (char *[]){ self, "quiet", NULL }, environ) == 0)
                waitpid(pid, NULL, 0);
        }
        printf("spawned 100\n");
        return 0;
    }
    if (!strcmp(mode, "quiet")) return 0;
    const char *image = getenv("HOTPATH_IMAGE");
    printf("probe profiled=%d image_var=%s\n", profiled(), image ? image : "unset");
    return 0;
}
