/* locks_deadlock.c — thread-a holds lock_a and waits for lock_b, thread-b the reverse; main then
 * sends itself SIGTERM (default action): the report must say which lock each thread waits on. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold;

static void *run(void *arg)
{
    int first_a = arg != NULL;
    pthread_setname_np(pthread_self(), first_a ? "thread-a" : "thread-b");
    pthread_mutex_lock(first_a ? &lock_a : &lock_b);
    pthread_barrier_wait(&both_hold);
    pthread_mutex_lock(first_a ? &lock_b : &lock_a);
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&both_hold, NULL, 2);
    pthread_t a, b;
    pthread_create(&a, NULL, run, (void *)1);
    pthread_create(&b, NULL, run, NULL);
    struct timespec ts = { 0, 300000000 };
    nanosleep(&ts, NULL);
    printf("deadlocked\n");
    fflush(stdout);
    kill(getpid(), SIGTERM);
    pause();
    return 0;
}
