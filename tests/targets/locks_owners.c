/* locks_owners.c — threads taking locks in turn, counting inside each critical section their own
 * truth: acquisitions and owner changes (the acquirer was not the last one), of
 *   turn_lock   one mutex, THREADS threads, by lock and by trylock;
 *   turn_rw     one rwlock taken for writing (and for reading, which changes no owner);
 *   conns[i]    CONNS mutexes (more than the profiler has shard sets for), each taken by two
 *               threads in turn;
 *   again       one mutex destroyed and made again AGAIN times, each time taken by two threads in
 *               turn, then by main (a new lock: its first owner is no change).
 * Prints "turn_lock LOCKS CHANGES", "turn_rw WRITES CHANGES READS", "conns LOCKS CHANGES" and
 * "again LOCKS CHANGES". */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS 20000
#define CONNS 5000
#define CONN_ROUNDS 4
#define AGAIN 3
#define AGAIN_ROUNDS 2000

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t turn_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t conns[CONNS];
static pthread_mutex_t again;

/* each written under its lock only */
static long lock_count, lock_changes, lock_last = -1;
static long rw_writes, rw_changes, rw_last = -1, rw_reads;
static long conn_count, conn_changes, conn_last[CONNS];
static long again_count, again_changes, again_last;
static pthread_mutex_t conn_total = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;    /* the threads of a phase begin together */

/* work outside the locks, or a thread that relocks at once keeps them (glibc's are not fair) */
static void outside(void)
{
    for (volatile int k = 0; k < 1000; k++) {
    }
}

static void took_lock(long me)
{
    if (lock_last != -1 && lock_last != me) lock_changes++;
    lock_last = me;
    lock_count++;
}

static void *turns(void *arg)
{
    long me = (long)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < ROUNDS; i++) {
        if (i % 3 == 0) {
            if (pthread_mutex_trylock(&turn_lock) == 0) {
                took_lock(me);
                pthread_mutex_unlock(&turn_lock);
            }
        } else {
            pthread_mutex_lock(&turn_lock);
            took_lock(me);
            pthread_mutex_unlock(&turn_lock);
        }
        if (i % 4 == 0) {
            pthread_rwlock_rdlock(&turn_rw);
            __atomic_add_fetch(&rw_reads, 1, __ATOMIC_RELAXED);
            pthread_rwlock_unlock(&turn_rw);
        } else {
            pthread_rwlock_wrlock(&turn_rw);
            if (rw_last != -1 && rw_last != me) rw_changes++;
            rw_last = me;
            rw_writes++;
            pthread_rwlock_unlock(&turn_rw);
        }
        outside();
    }
    return NULL;
}

/* two threads over every connection's lock, CONN_ROUNDS times each */
static void *conn_turns(void *arg)
{
    long me = (long)arg, count = 0, changes = 0;
    pthread_barrier_wait(&start);
    for (int r = 0; r < CONN_ROUNDS; r++)
        for (int i = 0; i < CONNS; i++) {
            pthread_mutex_lock(&conns[i]);
            if (conn_last[i] != -1 && conn_last[i] != me) changes++;
            conn_last[i] = me;
            count++;
            pthread_mutex_unlock(&conns[i]);
            outside();
        }
    pthread_mutex_lock(&conn_total);
    conn_count += count;
    conn_changes += changes;
    pthread_mutex_unlock(&conn_total);
    return NULL;
}

static void took_again(long me)
{
    if (again_last != -1 && again_last != me) again_changes++;
    again_last = me;
    again_count++;
}

static void *again_turns(void *arg)
{
    pthread_barrier_wait(&start);
    for (int i = 0; i < AGAIN_ROUNDS; i++) {
        pthread_mutex_lock(&again);
        took_again((long)arg);
        pthread_mutex_unlock(&again);
        outside();
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, turns, (void *)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < CONNS; i++) {
        pthread_mutex_init(&conns[i], NULL);
        conn_last[i] = -1;
    }
    pthread_barrier_destroy(&start);
    pthread_barrier_init(&start, NULL, 2);
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, conn_turns, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int k = 0; k < AGAIN; k++) {
        pthread_mutex_init(&again, NULL);
        again_last = -1;
        for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, again_turns, (void *)i);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        pthread_mutex_lock(&again);
        took_again(2);
        pthread_mutex_unlock(&again);
        pthread_mutex_destroy(&again);
    }
    printf("turn_lock %ld %ld\n", lock_count, lock_changes);
    printf("turn_rw %ld %ld %ld\n", rw_writes, rw_changes, rw_reads);
    printf("conns %ld %ld\n", conn_count, conn_changes);
    printf("again %ld %ld\n", again_count, again_changes);
    return 0;
}
