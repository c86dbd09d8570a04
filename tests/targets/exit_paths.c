/* exit_paths.c — every way a process ends: `return`, `exit`, `_exit`, `_Exit`, `sigterm` (waits
 * to be killed, default action), `handler` (its own SIGTERM handler runs and exits 7), `ignore`
 * (SIGTERM ignored, then exits 3), `fork` (parent and child each allocate their own amount; the
 * child frees a block its parent allocated),
 * `segv` (a null pointer write in a named thread), `abort`, `fpe` (integer division by zero),
 * `pthread_exit` (main ends with pthread_exit while a worker runs on: the process ends, status 0,
 * when the worker does, and its atexit handler runs), `forks` (100 fork children that allocate
 * and exit while three threads allocate and open files without pause: some fork lands while a
 * thread is inside libunwind, taking a sampled allocation's stack), `fork_exit` (50 fork children
 * that _exit at once; prints their mean minor page faults: what each fork child costs), `wait`
 * (waits to be killed from outside), `tasks` (prints how many threads the process has at main
 * and 0.6 s later), `drop` (as a server's worker: a fork child gives up root for nobody, allocates
 * 123456 bytes and exits; prints the child's pid and its uid then).
 * Each allocates a marker amount first so the report can be matched to the process. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/time.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile kept;     /* keeps markers alive: the compiler may not drop them */

static void marker(size_t n)
{
    void *p = malloc(n);
    memset(p, 1, n);
    kept = p;
}

static volatile int divisor;   /* 0: integer division by it traps */

static void *crash(void *arg)
{
    pthread_setname_np(pthread_self(), "crasher");
    marker(50000);
    *(volatile int *)arg = 1;      /* arg is NULL */
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    usleep(100000);
    marker(70000);
    printf("worker done\n");
    return NULL;
}

static volatile int stop;

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!stop) {
        void *volatile p = malloc(rand_r(&seed) % 5000 + 1);
        free(p);
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            fprintf(f, "x");
            fclose(f);
        }
    }
    return NULL;
}

static int forks(void)
{
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1));
    int ok = 0;
    for (int i = 0; i < 100; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            void *q = calloc(10, 100);
            q = realloc(q, 100000);
            free(q);
            marker(1000);
            _exit(i % 7);
        }
        int status;
        if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == i % 7) ok++;
    }
    stop = 1;
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf("forks %d ok\n", ok);
    return 0;
}

/* exit_in_malloc [US]: a SIGALRM handler ends the program with _exit(7), US microseconds after
 * main (300000 unless given), while main is most likely inside malloc or free, holding glibc's
 * arena lock (blocks past tcache's sizes); die_in_malloc [US]: SIGALRM at its default action
 * ends it then */
static void exit_from_handler(int sig)
{
    (void)sig;
    _exit(7);
}

static void churn_forever(long usec, int handled)
{
    if (handled) signal(SIGALRM, exit_from_handler);
    struct itimerval at = { { 0, 0 }, { usec / 1000000, usec % 1000000 } };
    setitimer(ITIMER_REAL, &at, NULL);
    void *p[32];
    for (;;) {
        for (int i = 0; i < 32; i++) {
            p[i] = malloc(16 + (size_t)(i * 977) % 5000);
            memset(p[i], 1, 16);
        }
        for (int i = 0; i < 32; i++) free(p[i]);
    }
}

/* daemonize / daemon3: the parent returns at once; the child becomes a daemon (setsid and
 * /dev/null over 0-2 by hand, or daemon(3)) and lives 3 s more */
static int become_daemon(int by_hand)
{
    if (by_hand) {
        pid_t pid = fork();
        if (pid != 0) return pid < 0;
        setsid();
        int null = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; fd++) dup2(null, fd);
        if (null > 2) close(null);
    } else if (daemon(1, 0) != 0) {
        return 1;
    }
    sleep(3);
    _exit(0);
}

static int raise_at_end;   /* pthread_exit_raise: the atexit handler ends the process by SIGTERM */

static void at_end(void)
{
    printf("atexit ran\n");
    if (raise_at_end) {
        fflush(stdout);
        raise(SIGTERM);
    }
}

static void on_term(int sig)
{
    (void)sig;
    static const char msg[] = "handled\n";
    if (write(1, msg, sizeof msg - 1) < 0) _exit(9);
    _exit(7);
}

static int tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int errno_at_main = errno;
    const char *mode = argc > 1 ? argv[1] : "return";
    if (!strcmp(mode, "tasks")) {
        int at_main = tasks();
        usleep(600000);
        printf("tasks %d %d\n", at_main, tasks());
        return 0;
    }
    if (!strcmp(mode, "drop")) {
        pid_t pid = fork();
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(8);
            marker(123456);
            printf("worker %d uid %d\n", (int)getpid(), (int)getuid());
            fflush(stdout);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 9;
    }
    if (!strcmp(mode, "errno")) {
        printf("errno at main %d\n", errno_at_main);
        return 0;
    }
    marker(100000);
    printf("mode %s\n", mode);
    fflush(stdout);
    if (!strcmp(mode, "wait"))
        for (;;) pause();
    if (!strcmp(mode, "exit")) exit(4);
    if (!strcmp(mode, "_exit")) _exit(5);
    if (!strcmp(mode, "_Exit")) _Exit(6);
    if (!strcmp(mode, "sigterm") || !strcmp(mode, "handler") || !strcmp(mode, "ignore")) {
        if (!strcmp(mode, "handler")) signal(SIGTERM, on_term);
        if (!strcmp(mode, "ignore")) {
            struct sigaction sa = { .sa_handler = SIG_IGN };
            sigaction(SIGTERM, &sa, NULL);
        }
        struct sigaction now;
        sigaction(SIGTERM, NULL, &now);
        printf("disposition %s\n", now.sa_handler == SIG_DFL ? "default" :
                                   now.sa_handler == SIG_IGN ? "ignore" : "handler");
        fflush(stdout);
        kill(getpid(), SIGTERM);
        if (!strcmp(mode, "ignore")) return 3;
        for (;;) pause();
    }
    if (!strcmp(mode, "segv")) {
        pthread_t t;
        pthread_create(&t, NULL, crash, NULL);
        pthread_join(t, NULL);
        return 0;
    }
    if (!strcmp(mode, "abort")) abort();
    if (!strcmp(mode, "exit_in_malloc") || !strcmp(mode, "die_in_malloc"))
        churn_forever(argc > 2 ? atol(argv[2]) : 300000, !strcmp(mode, "exit_in_malloc"));
    if (!strcmp(mode, "daemonize") || !strcmp(mode, "daemon3")) return become_daemon(!strcmp(mode, "daemonize"));
    if (!strcmp(mode, "forks")) return forks();
    if (!strcmp(mode, "fork_exit")) {
        for (int i = 0; i < 50; i++) {
            pid_t pid = fork();
            if (pid == 0) _exit(0);
            waitpid(pid, NULL, 0);
        }
        struct rusage ru;
        getrusage(RUSAGE_CHILDREN, &ru);
        printf("child faults %ld\n", ru.ru_minflt / 50);
        return 0;
    }
    if (!strcmp(mode, "pthread_exit") || !strcmp(mode, "pthread_exit_raise")) {
        raise_at_end = !strcmp(mode, "pthread_exit_raise");
        pthread_t t;
        atexit(at_end);
        pthread_create(&t, NULL, worker, NULL);
        pthread_exit(NULL);
    }
    if (!strcmp(mode, "fpe")) {
        printf("%d\n", argc / divisor);
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        marker(120000);
        pid_t pid = fork();
        if (pid == 0) {
            free(kept);           /* a block the child inherited, not its own allocation */
            marker(200000);
            exit(0);
        }
        marker(300000);
        int status;
        waitpid(pid, &status, 0);
        printf("child %d status %d\n", (int)pid, WEXITSTATUS(status));
        return 0;
    }
    return 2;
}
