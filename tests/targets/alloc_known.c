/* alloc_known.c — threads that allocate and free known amounts. Prints, one line per thread,
 * "name alloc_bytes free_bytes alloc_calls free_calls" as requested sizes, for the test to
 * compare with the report. Threads do no stdio of their own, so nothing else allocates there.
 * Each thread starts once main has named it: a thread that ended first could not be named. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct truth { const char *name; unsigned long alloc, freed, na, nf; };

static struct truth keeper = { .name = "keeper" }, churner = { .name = "churner" },
                    producer = { .name = "producer" }, consumer = { .name = "consumer" };
static void *handoff[1000];
static pthread_barrier_t produced, named;

static void *grab(struct truth *t, size_t n)
{
    void *p = malloc(n);
    memset(p, 1, n);
    t->alloc += n;
    t->na++;
    return p;
}

static void drop(struct truth *t, void *p, size_t n)
{
    free(p);
    t->freed += n;
    t->nf++;
}

static void *keep_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&named);
    static void *kept[2000];
    for (int i = 0; i < 2000; i++) kept[i] = grab(&keeper, 1000);        /* ~2 MB kept */
    for (int i = 0; i < 500; i++) drop(&keeper, kept[i], 1000);
    return NULL;
}

static void *churn_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&named);
    for (int i = 0; i < 10000; i++) drop(&churner, grab(&churner, 100 + (size_t)(i % 7) * 64),
                                         100 + (size_t)(i % 7) * 64);
    void *big = grab(&churner, 5 << 20);                                 /* mmapped block */
    drop(&churner, big, 5 << 20);
    return NULL;
}

static void *produce_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&named);
    for (int i = 0; i < 1000; i++) handoff[i] = grab(&producer, 4096);
    pthread_barrier_wait(&produced);
    return NULL;
}

static void *consume_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&named);
    pthread_barrier_wait(&produced);
    for (int i = 0; i < 1000; i++) drop(&consumer, handoff[i], 4096);   /* frees what another made */
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    pthread_barrier_init(&produced, NULL, 2);
    pthread_barrier_init(&named, NULL, 5);
    pthread_create(&t[0], NULL, keep_thread, NULL);
    pthread_setname_np(t[0], keeper.name);
    pthread_create(&t[1], NULL, churn_thread, NULL);
    pthread_setname_np(t[1], churner.name);
    pthread_create(&t[2], NULL, produce_thread, NULL);
    pthread_setname_np(t[2], producer.name);
    pthread_create(&t[3], NULL, consume_thread, NULL);
    pthread_setname_np(t[3], consumer.name);
    pthread_barrier_wait(&named);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    const struct truth *all[] = { &keeper, &churner, &producer, &consumer };
    for (int i = 0; i < 4; i++)
        printf("%s %lu %lu %lu %lu\n", all[i]->name, all[i]->alloc, all[i]->freed, all[i]->na, all[i]->nf);
    return 0;
}
