/* leak_trend.c — memory that grows over time, and memory that only looks like it does.
 *   leak_trend leak [seconds]      "leaker" keeps 64 KiB more every 100 ms; "churner" allocates
 *                                  and frees the same amount at the same pace
 *   leak_trend prodcons [seconds]  "producer" allocates 64 KiB every 100 ms and hands each block
 *                                  to "consumer", which frees it: nothing leaks
 * Both threads run for the given seconds (default 3), then the program exits. Prints
 * "ready <pid>" once they run. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (64 * 1024)
#define QUEUE 64

static int rounds;
static void *queue[QUEUE];
static unsigned head, tail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static void tick(void)
{
    struct timespec ts = { 0, 100 * 1000 * 1000 };
    nanosleep(&ts, NULL);
}

static void *block(void)
{
    void *p = malloc(BLOCK);
    if (p) memset(p, 7, BLOCK);
    return p;
}

static void *leaker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "leaker");
    static void *kept[10000];
    for (int i = 0; i < rounds && i < 10000; i++) {
        kept[i] = block();
        tick();
    }
    return kept[0];
}

static void *churner(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "churner");
    for (int i = 0; i < rounds; i++) {
        free(block());
        tick();
    }
    return NULL;
}

static void *producer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "producer");
    for (int i = 0; i <= rounds; i++) {
        void *p = i < rounds ? block() : NULL;     /* NULL: the end */
        pthread_mutex_lock(&lock);
        while (head - tail == QUEUE) pthread_cond_wait(&ready, &lock);
        queue[head++ % QUEUE] = p;
        pthread_cond_broadcast(&ready);
        pthread_mutex_unlock(&lock);
        if (p) tick();
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "consumer");
    for (;;) {
        pthread_mutex_lock(&lock);
        while (head == tail) pthread_cond_wait(&ready, &lock);
        void *p = queue[tail++ % QUEUE];
        pthread_cond_broadcast(&ready);
        pthread_mutex_unlock(&lock);
        if (!p) return NULL;
        free(p);
    }
}

int main(int argc, char **argv)
{
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    if (argc < 2 || (!leak && strcmp(argv[1], "prodcons") != 0)) {
        fprintf(stderr, "usage: leak_trend leak|prodcons [seconds]\n");
        return 2;
    }
    rounds = (argc > 2 ? atoi(argv[2]) : 3) * 10;
    pthread_t a, b;
    pthread_create(&a, NULL, leak ? leaker : producer, NULL);
    pthread_create(&b, NULL, leak ? churner : consumer, NULL);
    printf("ready %d\n", getpid());
    fflush(stdout);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
