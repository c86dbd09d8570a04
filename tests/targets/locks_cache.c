/* locks_cache.c — two threads contend on a global cache_lock, each holding it ~1 ms, 500 times.
 * Prints the final value, then the holds as the program itself timed them (from the lock's
 * return to the unlock's call, CLOCK_MONOTONIC): "VALUE TOTAL_NS MAX_NS". A thread preempted
 * while holding holds longer than 1 ms, and that is the truth the profiler must report. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long cache_value, hold_total_ns, hold_max_ns;   /* written under cache_lock */

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* busy for 1 ms of wall time: a sleep would add the timer's slack */
static void hold_1ms(long start)
{
    while (now_ns() - start < 1000000) {
    }
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&cache_lock);
        long start = now_ns();
        cache_value++;
        hold_1ms(start);
        long held = now_ns() - start;
        hold_total_ns += held;
        if (held > hold_max_ns) hold_max_ns = held;
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
    printf("%ld %ld %ld\n", cache_value, hold_total_ns, hold_max_ns);
    return cache_value == 1000 ? 0 : 1;
}
