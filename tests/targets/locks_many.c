/* locks_many.c — 10,000 per-connection mutexes made and locked by one function. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct conn {
    pthread_mutex_t lock;
    long requests;
};

static __attribute__((noinline)) struct conn *open_conn(void)
{
    struct conn *c = malloc(sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->requests = 0;
    pthread_mutex_lock(&c->lock);
    c->requests++;
    pthread_mutex_unlock(&c->lock);
    return c;
}

int main(void)
{
    static struct conn *conns[10000];
    for (int i = 0; i < 10000; i++) conns[i] = open_conn();
    long total = 0;
    for (int i = 0; i < 10000; i++) total += conns[i]->requests;
    printf("%ld\n", total);
    return total == 10000 ? 0 : 1;
}
