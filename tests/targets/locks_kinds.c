/* locks_kinds.c — the return codes of mutex kinds and timed calls whose semantics a profiler that
 * "tries first" would change: robust mutexes whose owner died (EOWNERDEAD, then ENOTRECOVERABLE
 * once unlocked without pthread_mutex_consistent) of the normal, recursive and error-checking
 * types and with priority inheritance; a priority-protect mutex; timed and clock locks, free and
 * held, with bad clocks and timeouts. Prints one line per call: what it returned. Must print the
 * same under the profiler as without it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void said(const char *what, int r)
{
    const char *name = r ? strerrorname_np(r) : "0";
    printf("%-40s %s\n", what, name ? name : "?");
    fflush(stdout);
}

static pthread_mutex_t m;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

static void *take_and_die(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    return NULL;
}

static void owner_dies(void)
{
    pthread_t t;
    pthread_create(&t, NULL, take_and_die, NULL);
    pthread_join(t, NULL);
}

static void robust(int type, int protocol, const char *label)
{
    pthread_mutexattr_t at;
    pthread_mutexattr_init(&at);
    pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
    pthread_mutexattr_settype(&at, type);
    pthread_mutexattr_setprotocol(&at, protocol);
    pthread_mutex_init(&m, &at);
    printf("-- robust %s\n", label);
    owner_dies();
    said("lock, owner died", pthread_mutex_lock(&m));
    said("consistent", pthread_mutex_consistent(&m));
    said("unlock", pthread_mutex_unlock(&m));
    said("trylock", pthread_mutex_trylock(&m));
    said("unlock", pthread_mutex_unlock(&m));
    owner_dies();
    said("trylock, owner died", pthread_mutex_trylock(&m));
    said("unlock without consistent", pthread_mutex_unlock(&m));
    said("lock, not recoverable", pthread_mutex_lock(&m));
    said("lock again, not recoverable", pthread_mutex_lock(&m));
    said("trylock, not recoverable", pthread_mutex_trylock(&m));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;             /* 50 ms: some kinds wait for it */
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    said("timedlock, not recoverable", pthread_mutex_timedlock(&m, &ts));
    said("destroy", pthread_mutex_destroy(&m));
}

static void prio_protect(void)
{
    pthread_mutexattr_t at;
    pthread_mutexattr_init(&at);
    pthread_mutexattr_setprotocol(&at, PTHREAD_PRIO_PROTECT);
    pthread_mutexattr_setprioceiling(&at, 10);
    printf("-- priority protect\n");
    said("init", pthread_mutex_init(&m, &at));
    said("lock", pthread_mutex_lock(&m));
    said("unlock", pthread_mutex_unlock(&m));
    said("trylock", pthread_mutex_trylock(&m));
    said("unlock", pthread_mutex_unlock(&m));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    said("timedlock", pthread_mutex_timedlock(&m, &ts));
    said("unlock", pthread_mutex_unlock(&m));
    pthread_mutex_destroy(&m);
}

static void *hold_both(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_rwlock_wrlock(&rw);
    usleep(100000);
    pthread_rwlock_unlock(&rw);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void timed(void)
{
    struct timespec past = { 0, 0 }, bad = { 0, 1000000000 };
    pthread_mutex_init(&m, NULL);
    printf("-- timed, free\n");
    said("clocklock, clock 999", pthread_mutex_clocklock(&m, 999, &past));
    said("trylock", pthread_mutex_trylock(&m));
    said("unlock", pthread_mutex_unlock(&m));
    said("clocklock, CPU-time clock", pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &past));
    said("trylock", pthread_mutex_trylock(&m));
    said("unlock", pthread_mutex_unlock(&m));
    said("rw clockwrlock, clock 999", pthread_rwlock_clockwrlock(&rw, 999, &past));
    said("rw trywrlock", pthread_rwlock_trywrlock(&rw));
    said("rw unlock", pthread_rwlock_unlock(&rw));
    said("rw timedwrlock, bad nsec", pthread_rwlock_timedwrlock(&rw, &bad));
    said("rw trywrlock", pthread_rwlock_trywrlock(&rw));
    said("rw unlock", pthread_rwlock_unlock(&rw));
    said("rw clockrdlock, clock 999", pthread_rwlock_clockrdlock(&rw, 999, &past));
    said("rw timedrdlock, bad nsec", pthread_rwlock_timedrdlock(&rw, &bad));
    said("rw trywrlock", pthread_rwlock_trywrlock(&rw));
    said("rw unlock", pthread_rwlock_unlock(&rw));
    printf("-- timed, held by another thread\n");
    pthread_t t;
    pthread_create(&t, NULL, hold_both, NULL);
    usleep(30000);
    said("timedlock, past", pthread_mutex_timedlock(&m, &past));
    said("timedlock, bad nsec", pthread_mutex_timedlock(&m, &bad));
    said("clocklock, clock 999", pthread_mutex_clocklock(&m, 999, &past));
    said("rw timedrdlock, past", pthread_rwlock_timedrdlock(&rw, &past));
    said("rw timedwrlock, bad nsec", pthread_rwlock_timedwrlock(&rw, &bad));
    pthread_join(t, NULL);
}

int main(void)
{
    robust(PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, "normal");
    robust(PTHREAD_MUTEX_RECURSIVE, PTHREAD_PRIO_NONE, "recursive");
    robust(PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE, "error-checking");
    robust(PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_INHERIT, "error-checking, priority inheritance");
    prio_protect();
    timed();
    return 0;
}
