/* demo.c — the reference scenario of `make demo`: a main thread that keeps allocations alive,
 * a named worker-1 burning CPU, and an unnamed thread that allocates a little and sleeps. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
    (void)arg;
    double end = now() + 1.8;
    while (now() < end) {
        char *p = malloc(64);       /* short-lived: alloc and dealloc stay close */
        memset(p, 1, 64);
        sink += (unsigned long)p[3];
        free(p);
        for (int i = 0; i < 20000; i++) sink += (unsigned long)i * 7;
    }
    return NULL;
}

static void *idler(void *arg)
{
    size_t n = arg ? 640 : 600;
    char *keep = malloc(n);
    memset(keep, 2, n);
    sink += (unsigned long)keep[1];
    sleep(arg ? 30 : 2);   /* the last one is still asleep when the program ends */
    return keep;           /* main frees it: a cross-thread free */
}

int main(void)
{
    pthread_t w, t[4], idle;
    char *kept[360];
    for (int i = 0; i < 360; i++) {            /* ~360 KB stays alive in main */
        kept[i] = malloc(1024);
        memset(kept[i], 0, 1024);
    }
    pthread_create(&w, NULL, worker, NULL);
    pthread_setname_np(w, "worker-1");
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, idler, NULL);
    pthread_create(&idle, NULL, idler, (void *)1);
    for (int i = 0; i < 10; i++) free(kept[i]);
    pthread_join(w, NULL);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        free(r);
    }
    usleep(600 * 1000);
    return 0;
}
