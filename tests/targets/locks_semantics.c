/* locks_semantics.c — the real return codes survive the hooks: a recursive mutex, an
 * error-checking mutex's double unlock (EPERM) and relock (EDEADLK), trylock on a held lock
 * (EBUSY), timedlock timing out (ETIMEDOUT), errno untouched. Prints "ok" or what went wrong. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t rec_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
pthread_mutex_t check_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t timed_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;

#define EXPECT(call, want)                                                                       \
    do {                                                                                       \
        errno = 4242;                                                                          \
        int r_ = (call);                                                                       \
        if (r_ != (want) || errno != 4242) {                                                   \
            printf("%s: returned %d (want %d), errno %d\n", #call, r_, (want), errno);         \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

static void *holder(void *arg)
{
    (void)arg;
    EXPECT(pthread_mutex_lock(&timed_lock), 0);
    struct timespec ts = { 0, 300000000 };
    nanosleep(&ts, NULL);
    EXPECT(pthread_mutex_unlock(&timed_lock), 0);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < 10; i++) {
        EXPECT(pthread_mutex_lock(&rec_lock), 0);
        EXPECT(pthread_mutex_lock(&rec_lock), 0);
        EXPECT(pthread_mutex_trylock(&rec_lock), 0);
        EXPECT(pthread_mutex_unlock(&rec_lock), 0);
        EXPECT(pthread_mutex_unlock(&rec_lock), 0);
        EXPECT(pthread_mutex_unlock(&rec_lock), 0);
    }
    EXPECT(pthread_mutex_unlock(&rec_lock), EPERM);

    EXPECT(pthread_mutex_lock(&check_lock), 0);
    EXPECT(pthread_mutex_lock(&check_lock), EDEADLK);
    EXPECT(pthread_mutex_unlock(&check_lock), 0);
    EXPECT(pthread_mutex_unlock(&check_lock), EPERM);

    EXPECT(pthread_mutex_lock(&busy_lock), 0);
    EXPECT(pthread_mutex_trylock(&busy_lock), EBUSY);
    EXPECT(pthread_mutex_trylock(&busy_lock), EBUSY);
    EXPECT(pthread_mutex_unlock(&busy_lock), 0);

    pthread_t th;
    pthread_create(&th, NULL, holder, NULL);
    struct timespec ts = { 0, 50000000 };
    nanosleep(&ts, NULL);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += 50000000;
    if (deadline.tv_nsec >= 1000000000) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000; }
    EXPECT(pthread_mutex_timedlock(&timed_lock, &deadline), ETIMEDOUT);
    struct timespec mono;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    mono.tv_nsec += 20000000;
    if (mono.tv_nsec >= 1000000000) { mono.tv_sec++; mono.tv_nsec -= 1000000000; }
    EXPECT(pthread_mutex_clocklock(&timed_lock, CLOCK_MONOTONIC, &mono), ETIMEDOUT);
    pthread_join(th, NULL);
    EXPECT(pthread_mutex_timedlock(&timed_lock, &deadline), 0);
    EXPECT(pthread_mutex_unlock(&timed_lock), 0);
    if (!failures) printf("ok\n");
    return failures ? 1 : 0;
}
