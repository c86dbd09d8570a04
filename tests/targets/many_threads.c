/* many_threads.c — creates and joins N threads (argv[1], default 2000) in a loop, a few at a
 * time; each allocates 3 blocks of 1000 bytes and frees one. Prints the totals requested. With
 * `named` (argv[2]), a third of them are named worker-N and a third pool. With `churn`, they are
 * made and joined one at a time, each naming itself churn-N (N from 0) and living 2 ms. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *churn(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "churn-%ld", (long)arg);
    pthread_setname_np(pthread_self(), name);
    usleep(2000);
    return NULL;
}

static void *work(void *arg)
{
    void **out = arg;
    for (int i = 0; i < 3; i++) {
        out[i] = malloc(1000);
        memset(out[i], 1, 1000);
    }
    free(out[2]);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    int named = argc > 2 && strcmp(argv[2], "named") == 0;
    if (argc > 2 && strcmp(argv[2], "churn") == 0) {
        for (long i = 0; i < n; i++) {
            pthread_t t;
            pthread_create(&t, NULL, churn, (void *)i);
            pthread_join(t, NULL);
        }
        printf("churned %d\n", n);
        return 0;
    }
    static void *slots[8][3];
    unsigned long alloc = 0, freed = 0;
    for (int done = 0; done < n; done += 8) {
        pthread_t t[8];
        int k = n - done < 8 ? n - done : 8;
        for (int i = 0; i < k; i++) {
            pthread_create(&t[i], NULL, work, slots[i]);
            char name[16];
            snprintf(name, sizeof name, "worker-%d", (done + i) % 1000);
            if (named && (done + i) % 3 == 0) pthread_setname_np(t[i], name);
            if (named && (done + i) % 3 == 1) pthread_setname_np(t[i], "pool");
        }
        for (int i = 0; i < k; i++) {
            pthread_join(t[i], NULL);
            free(slots[i][0]);
            free(slots[i][1]);
            alloc += 3000;
            freed += 1000;
        }
    }
    printf("threads %d alloc %lu freed_by_threads %lu freed_by_main %lu\n", n, alloc, freed, alloc - freed);
    return 0;
}
