/* locks_cond.c — producer/consumer on queue_lock + queue_cond: the producer makes an item every
 * 50 ms, the consumer waits for each one on the condition variable. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define ITEMS 10

pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static int queued, consumed;

static void *consumer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "consumer");
    for (int i = 0; i < ITEMS; i++) {
        pthread_mutex_lock(&queue_lock);
        while (queued == 0) pthread_cond_wait(&queue_cond, &queue_lock);
        queued--;
        consumed++;
        pthread_mutex_unlock(&queue_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t c;
    pthread_create(&c, NULL, consumer, NULL);
    for (int i = 0; i < ITEMS; i++) {
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&queue_lock);
        queued++;
        pthread_cond_signal(&queue_cond);
        pthread_mutex_unlock(&queue_lock);
    }
    pthread_join(c, NULL);
    printf("%d\n", consumed);
    return consumed == ITEMS ? 0 : 1;
}
