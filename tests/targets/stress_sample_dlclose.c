/* stress_sample_dlclose.c — CPU samples that interrupt malloc while other threads dlopen and
 * dlclose a library: a sample's stack walks the modules, which takes the loader's lock, and a
 * thread inside dlclose holds that lock while it frees (an arena lock the interrupted malloc may
 * hold). Runs for the milliseconds given (default 1000) and prints how many allocations and
 * loads it made. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int stop;

static void *allocate(void *arg)
{
    unsigned long *made = arg, seed = (unsigned long)(uintptr_t)arg;
    void *keep[64] = { 0 };
    while (!stop) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        unsigned i = (unsigned)(seed >> 58);
        free(keep[i]);
        keep[i] = malloc(16 + (seed >> 40) % 4096);
        (*made)++;
    }
    for (unsigned i = 0; i < 64; i++) free(keep[i]);
    return NULL;
}

static void *load_unload(void *arg)
{
    unsigned long *loads = arg;
    while (!stop) {
        void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) dlclose(h);
        (*loads)++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 1000;
    unsigned long made[2] = { 0, 0 }, loads[2] = { 0, 0 };
    pthread_t a[2], l[2];
    for (int i = 0; i < 2; i++) {
        pthread_create(&a[i], NULL, allocate, &made[i]);
        pthread_create(&l[i], NULL, load_unload, &loads[i]);
    }
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
    stop = 1;
    for (int i = 0; i < 2; i++) {
        pthread_join(a[i], NULL);
        pthread_join(l[i], NULL);
    }
    printf("allocations %s loads %s\n", made[0] + made[1] > 0 ? "yes" : "no", loads[0] + loads[1] > 0 ? "yes" : "no");
    return 0;
}
