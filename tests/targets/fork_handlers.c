/* fork_handlers.c — pthread_atfork handlers that make threads, as libraries' handlers do: the
 * parent and child handlers each create and join one, and the prepare handler waits for a lock
 * held by a worker that creates a thread before it lets go. Prints one line per step. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

static void *nothing(void *arg)
{
    return arg;
}

static int one_thread(void)
{
    pthread_t t;
    int r = pthread_create(&t, NULL, nothing, NULL);
    if (r == 0) pthread_join(t, NULL);
    return r;
}

static void prepare(void)
{
    pthread_mutex_lock(&lib_lock);
}

static void parent(void)
{
    printf("parent handler: %d\n", one_thread());
    pthread_mutex_unlock(&lib_lock);
}

static void child(void)
{
    printf("child handler: %d\n", one_thread());
    pthread_mutex_unlock(&lib_lock);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lib_lock);
    usleep(200000);                 /* main forks meanwhile: its prepare handler waits */
    int r = one_thread();
    pthread_mutex_unlock(&lib_lock);
    return (void *)(long)r;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    pthread_atfork(prepare, parent, child);
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    usleep(50000);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    int status;
    waitpid(pid, &status, 0);
    void *r;
    pthread_join(w, &r);
    printf("child status %d, worker %ld\n", status, (long)r);
    return 0;
}
