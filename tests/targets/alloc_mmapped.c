/* alloc_mmapped.c — blocks glibc maps with mmap of their own, counted from their headers: a thread
 * named `mapper` allocates four blocks above the default mmap threshold (128 KiB), from 200,000
 * bytes to 40 MiB, then frees them. Prints "usable N": the sum of malloc_usable_size of the four,
 * which the thread's alloc_bytes and dealloc_bytes must equal exactly. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static size_t usable;

static void *mapper(void *arg)
{
    (void)arg;
    static const size_t sizes[] = { 200000, 1u << 20, 5u << 20, 40u << 20 };
    void *p[4];
    pthread_setname_np(pthread_self(), "mapper");
    for (int i = 0; i < 4; i++) {
        if (!(p[i] = malloc(sizes[i]))) abort();
        usable += malloc_usable_size(p[i]);
    }
    for (int i = 0; i < 4; i++) free(p[i]);
    return NULL;
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, mapper, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
    printf("usable %zu\n", usable);
    return 0;
}
