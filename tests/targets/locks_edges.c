/* locks_edges.c — edges of the locks view, by argument:
 *   cond-errors  condition waits glibc refuses before waiting (a bad time, a bad clock, an
 *                error-checking mutex not held): prints each return code; refused_lock is held
 *                throughout one hold, and no condition wait happened
 *   nested       a thread blocked on outer_lock runs a signal handler that waits 50 ms on
 *                inner_lock, then blocks on outer_lock again until SIGTERM ends the process */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t refused_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t refused_cond = PTHREAD_COND_INITIALIZER;
pthread_mutex_t outer_lock = PTHREAD_MUTEX_INITIALIZER, inner_lock = PTHREAD_MUTEX_INITIALIZER;

static int cond_errors(void)
{
    struct timespec bad = { time(NULL) + 10, 1000000000L }, ok = { time(NULL) + 10, 0 };
    pthread_mutex_lock(&refused_lock);
    printf("%d\n", pthread_cond_timedwait(&refused_cond, &refused_lock, &bad));
    printf("%d\n", pthread_cond_clockwait(&refused_cond, &refused_lock, CLOCK_PROCESS_CPUTIME_ID, &ok));
    pthread_mutex_unlock(&refused_lock);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t checked;
    pthread_mutex_init(&checked, &a);
    printf("%d\n", pthread_cond_wait(&refused_cond, &checked));   /* not held: EPERM */
    return 0;
}

static void on_usr1(int sig)
{
    (void)sig;
    pthread_mutex_lock(&inner_lock);
    pthread_mutex_unlock(&inner_lock);
}

static void *blocked(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&outer_lock);
    return NULL;
}

static int nested(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_mutex_lock(&outer_lock);
    pthread_mutex_lock(&inner_lock);
    pthread_t t;
    pthread_create(&t, NULL, blocked, NULL);
    pthread_setname_np(t, "blocked");
    usleep(100000);
    pthread_kill(t, SIGUSR1);
    usleep(50000);
    pthread_mutex_unlock(&inner_lock);
    usleep(100000);
    printf("terminating\n");
    fflush(stdout);
    kill(getpid(), SIGTERM);
    pause();
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cond-errors") == 0) return cond_errors();
    if (argc > 1 && strcmp(argv[1], "nested") == 0) return nested();
    fprintf(stderr, "usage: locks_edges cond-errors|nested\n");
    return 2;
}
