/* live.c — a long-running program for the live views: a named worker thread that burns CPU,
 * allocates, takes a mutex and an rwlock and writes to /dev/null, until the given number of
 * milliseconds has passed (default 30000) or it is killed. Modes: "fork" also forks a child that
 * does the same; "closeall" closes every descriptor from 3 up once running; "remade" first uses,
 * destroys and uses again its mutex (two locks of one name); "remade-waited" as well, each of the
 * two waited for once (main holds it for 30 ms as a thread that takes it starts). Prints "ready <pid>" once its threads
 * run. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile unsigned long counter;
static long duration_ms = 30000;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *take_once(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "worker");
    int fd = open("/dev/null", O_WRONLY);
    double end = now_ms() + duration_ms;
    char buf[256];
    memset(buf, 'x', sizeof buf);
    while (now_ms() < end) {
        for (int i = 0; i < 20000; i++) counter += (unsigned long)i * 7;
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
        pthread_rwlock_rdlock(&rw);
        pthread_rwlock_unlock(&rw);
        void *p = malloc(64);
        free(p);
        if (write(fd, buf, sizeof buf) < 0) break;
        usleep(200);
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) duration_ms = atol(argv[1]);
    int forking = argc > 2 && strcmp(argv[2], "fork") == 0;
    if (forking && fork() == 0) {
        /* the child: its own worker, its own server */
    }
    if (argc > 2 && strcmp(argv[2], "closeall") == 0) closefrom(3);   /* as daemons do */
    int waited = argc > 2 && strcmp(argv[2], "remade-waited") == 0;
    if (argc > 2 && (strcmp(argv[2], "remade") == 0 || waited)) {
        pthread_t once;
        pthread_mutex_lock(&lock);
        if (waited) {
            pthread_create(&once, NULL, take_once, NULL);
            usleep(30000);
        }
        pthread_mutex_unlock(&lock);
        if (waited) pthread_join(once, NULL);
        pthread_mutex_destroy(&lock);
        pthread_mutex_init(&lock, NULL);
    }
    if (waited) pthread_mutex_lock(&lock);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    if (waited) {
        usleep(30000);
        pthread_mutex_unlock(&lock);
    }
    printf("ready %d\n", getpid());
    fflush(stdout);
    pthread_join(t, NULL);
    return 0;
}
