/* locks_cache.c — two threads contend on a global cache_lock, each holding it ~1 ms, 500 times. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long cache_value;

/* busy for 1 ms of wall time: a sleep would add the timer's slack */
static void hold_1ms(void)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 1000000);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&cache_lock);
        cache_value++;
        hold_1ms();
        pthread_mutex_unlock(&cache_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, NULL);
    pthread_create(&b, NULL, worker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("%ld\n", cache_value);
    return cache_value == 1000 ? 0 : 1;
}
