/* locks_in_handler.c — a signal handler that takes locks never seen before (each one's first
 * sight takes a stack), every 100 µs, while the program it interrupts keeps calling
 * dl_iterate_phdr (the loader's lock, which libunwind takes to unwind) and locking. A stack taken
 * inside the loader's lock would wait forever for its own thread. Prints "bad=0" when every
 * trylock and unlock in the handler succeeded. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define HANDLER_LOCKS 500

static pthread_mutex_t *handler_locks;
static volatile int used;
static volatile long bad;

static void on_alarm(int sig)
{
    (void)sig;
    if (used >= HANDLER_LOCKS) return;
    pthread_mutex_t *m = &handler_locks[used++];
    if (pthread_mutex_trylock(m) != 0 || pthread_mutex_unlock(m) != 0) bad++;
}

static int each_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    (void)data;
    return 0;
}

int main(void)
{
    handler_locks = calloc(HANDLER_LOCKS, sizeof *handler_locks);
    pthread_mutex_t *own = calloc(200000, sizeof *own);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &every, NULL);
    for (int i = 0; i < 200000 && used < HANDLER_LOCKS; i++) {
        dl_iterate_phdr(each_module, NULL);
        pthread_mutex_lock(&own[i]);
        pthread_mutex_unlock(&own[i]);
    }
    setitimer(ITIMER_REAL, &off, NULL);
    printf("bad=%ld\n", bad);
    return 0;
}
