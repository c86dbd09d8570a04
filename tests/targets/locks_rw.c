/* locks_rw.c — table_lock: 4 readers take it 1000 times each, 1 writer 200 times. */
#include <pthread.h>
#include <stdio.h>

pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static volatile long table[64];

static void *reader(void *arg)
{
    (void)arg;
    long sum = 0;
    for (int i = 0; i < 1000; i++) {
        pthread_rwlock_rdlock(&table_lock);
        for (int k = 0; k < 64; k++) sum += table[k];
        pthread_rwlock_unlock(&table_lock);
    }
    return (void *)sum;
}

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        pthread_rwlock_wrlock(&table_lock);
        for (int k = 0; k < 64; k++) table[k]++;
        pthread_rwlock_unlock(&table_lock);
    }
    return NULL;
}

int main(void)
{
    pthread_t r[4], w;
    for (int i = 0; i < 4; i++) pthread_create(&r[i], NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    for (int i = 0; i < 4; i++) pthread_join(r[i], NULL);
    pthread_join(w, NULL);
    /* try variants: a held write lock refuses both */
    pthread_rwlock_wrlock(&table_lock);
    int a = pthread_rwlock_tryrdlock(&table_lock) == 0;   /* same thread holds it: EBUSY/EDEADLK */
    pthread_rwlock_unlock(&table_lock);
    printf("%ld %d\n", table[0], a);
    return table[0] == 200 && !a ? 0 : 1;
}
