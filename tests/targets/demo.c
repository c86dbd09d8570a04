/* demo.c — the reference scenario of `make demo`: a main thread that keeps allocations alive,
 * a named worker-1 burning CPU, and unnamed threads that allocate a little and sleep; worker-1
 * and main share a global stats_lock, and main writes and reads back a small file, so the
 * locks and I/O views have something to show. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long stats;

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
        pthread_mutex_lock(&stats_lock);
        stats++;
        pthread_mutex_unlock(&stats_lock);
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
    for (int i = 0; i < 50; i++) {
        pthread_mutex_lock(&stats_lock);
        usleep(2000);                 /* held while worker-1 wants it: contention */
        pthread_mutex_unlock(&stats_lock);
    }
    pthread_join(w, NULL);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        free(r);
    }
    char path[] = "/tmp/hotpath-demo-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    if (f) {
        for (int i = 0; i < 2000; i++) fprintf(f, "log line %d: %lu\n", i, stats);
        rewind(f);
        char line[64];
        while (fgets(line, sizeof line, f)) sink += (unsigned char)line[0];
        fclose(f);
        unlink(path);
    }
    usleep(600 * 1000);
    return 0;
}
