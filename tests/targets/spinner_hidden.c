/* spinner_hidden — a thread that only burns CPU among 7 that allocate: 6 "churn-N" threads that
 * allocate and free (N + 2) * 16 MB each and a "hoarder" that keeps 4 MB (the largest Diff, but
 * less Alloc than any churner). Sorted by Alloc with 5 rows, the spinner and the hoarder would be
 * cut; the threads table shows them anyway. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "spinner");
    while (cpu_s() < 0.6)
        for (int i = 0; i < 100000; i++) sink += (unsigned long)i * i;
    return NULL;
}

static void *churn(void *arg)
{
    long n = (long)arg;
    char name[16];
    snprintf(name, sizeof name, "churn-%ld", n);
    pthread_setname_np(pthread_self(), name);
    for (long mb = 0; mb < (n + 2) * 16; mb++) {
        char *p = malloc(1 << 20);
        if (!p) abort();
        p[0] = (char)mb;
        sink += (unsigned char)p[0];
        free(p);
    }
    return NULL;
}

static void *hoard(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "hoarder");
    for (int i = 0; i < 4; i++) {
        char *p = malloc(1 << 20);       /* kept: never freed */
        if (!p) abort();
        memset(p, 1, 4096);
        sink += (unsigned char)p[0];
    }
    return NULL;
}

int main(void)
{
    pthread_t t[8];
    pthread_create(&t[0], NULL, spin, NULL);
    for (long i = 1; i <= 6; i++) pthread_create(&t[i], NULL, churn, (void *)i);
    pthread_create(&t[7], NULL, hoard, NULL);
    for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
    printf("ok\n");
    return 0;
}
