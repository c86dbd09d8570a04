/* watched.c — a process for hotpath-run --pid to watch from outside: once a line comes on stdin
 * (the watch has begun), "burner" spins for good, "worker" spins 1.0 s of CPU then sleeps,
 * "finisher" spins 0.5 s of CPU then ends, "sleeper" sleeps. Each that stops spinning prints its
 * own CPU time (getrusage RUSAGE_THREAD, in ns) as "NAME CPU_NS". With the argument `exit` the
 * main thread ends the process once worker and finisher are done; with `main-exits` it calls
 * pthread_exit once they have begun, and the process runs on without it. Also built static
 * (watched_static): nothing can be preloaded into it, and the watch still works. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static unsigned long long thread_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
           (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static void spin_cpu(unsigned long long ns)
{
    volatile unsigned long x = 0;
    while (thread_cpu_ns() < ns)
        for (int i = 0; i < 100000; i++) x++;
}

static void say(const char *name)
{
    printf("%s %llu\n", name, thread_cpu_ns());
    fflush(stdout);
}

static void *burner(void *arg)
{
    (void)arg;
    for (;;) spin_cpu(~0ull);
    return NULL;
}

static void *worker(void *then_end)
{
    spin_cpu(1000000000ull);
    say("worker");
    while (!*(const int *)then_end) pause();
    return NULL;
}

static void *finisher(void *arg)
{
    (void)arg;
    spin_cpu(500000000ull);
    say("finisher");
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;) pause();
    return NULL;
}

static pthread_t start(void *(*fn)(void *), const char *name, void *arg)
{
    pthread_t t;
    pthread_create(&t, NULL, fn, arg);
    pthread_setname_np(t, name);
    return t;
}

int main(int argc, char **argv)
{
    int exit_after = argc > 1 && strcmp(argv[1], "exit") == 0;
    int main_exits = argc > 1 && strcmp(argv[1], "main-exits") == 0;
    char line[16];
    start(sleeper, "sleeper", NULL);
    printf("ready\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) return 1;
    if (!exit_after) start(burner, "burner", NULL);
    pthread_t w = start(worker, "worker", &exit_after), f = start(finisher, "finisher", NULL);
    if (main_exits) pthread_exit(NULL);
    pthread_join(f, NULL);
    if (!exit_after) for (;;) pause();
    pthread_join(w, NULL);
    usleep(300000);       /* a pass or two with only main and sleeper left */
    return 0;
}
