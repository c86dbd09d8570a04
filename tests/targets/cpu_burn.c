/* cpu_burn.c — a thread "burner" spins for about a second of CPU and prints the CPU time it
 * measured itself (getrusage RUSAGE_THREAD, ns); with "exit-early", a thread "early" allocates,
 * burns 0.2 s and ends two seconds before the program does; with "cancelled", a thread
 * "cancelled" allocates and burns until main cancels it, half a second in (its own cleanup
 * handler measures its CPU time as it ends); with "locks", main locks and unlocks a mutex for
 * half a second of CPU (time in the profiler's lock hooks). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static unsigned long long burner_ns, early_ns, cancelled_ns;

static unsigned long long thread_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (unsigned long long)ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull +
           (unsigned long long)ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
}

static void burn(double seconds)
{
    struct timespec ts;
    do {
        for (int i = 0; i < 100000; i++) sink += (unsigned long)i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    } while (ts.tv_sec + ts.tv_nsec / 1e9 < seconds);
}

static void *burner(void *arg)
{
    (void)arg;
    burn(1.0);
    burner_ns = thread_cpu_ns();
    sleep(1);               /* still alive, idle, when the report samples it */
    return NULL;
}

static void *early(void *arg)
{
    (void)arg;
    void *p = malloc(12345);
    memset(p, 1, 12345);
    burn(0.2);
    early_ns = thread_cpu_ns();
    return p;
}

static void note_cancelled(void *arg)
{
    (void)arg;
    cancelled_ns = thread_cpu_ns();
}

static void *cancelled(void *arg)
{
    (void)arg;
    void *p = malloc(12345);
    memset(p, 1, 12345);
    pthread_cleanup_push(note_cancelled, NULL);
    for (;;) {
        for (int i = 0; i < 100000; i++) sink += (unsigned long)i;
        pthread_testcancel();
    }
    pthread_cleanup_pop(0);
    return p;
}

static void lock_loop(double seconds)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct timespec ts;
    do {
        for (int i = 0; i < 10000; i++) {
            pthread_mutex_lock(&m);
            sink++;
            pthread_mutex_unlock(&m);
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    } while (ts.tv_sec + ts.tv_nsec / 1e9 < seconds);
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (argc > 1 && strcmp(argv[1], "locks") == 0) {
        lock_loop(0.5);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "exit-early") == 0) {
        void *p;
        pthread_create(&t, NULL, early, NULL);
        pthread_setname_np(t, "early");
        pthread_join(t, &p);
        sleep(2);
        printf("early %llu\n", early_ns);
        free(p);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "cancelled") == 0) {
        void *ret;
        pthread_create(&t, NULL, cancelled, NULL);
        pthread_setname_np(t, "cancelled");
        usleep(500000);
        pthread_cancel(t);
        pthread_join(t, &ret);
        printf("cancelled %llu %d\n", cancelled_ns, ret == PTHREAD_CANCELED);
        return 0;
    }
    pthread_create(&t, NULL, burner, NULL);
    pthread_setname_np(t, "burner");
    sleep(1);
    while (!burner_ns) usleep(10000);
    printf("burner %llu\n", burner_ns);
    return 0;      /* the burner is still alive (asleep) when the report is made */
}
