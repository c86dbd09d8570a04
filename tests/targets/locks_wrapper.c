/* locks_wrapper.c — two heap locks taken through one wrapper function from two callers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void lock_it(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void unlock_it(pthread_mutex_t *m)
{
    pthread_mutex_unlock(m);
}

static __attribute__((noinline)) void caller_alpha(pthread_mutex_t *m)
{
    for (int i = 0; i < 7; i++) { lock_it(m); unlock_it(m); }
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void caller_beta(pthread_mutex_t *m)
{
    for (int i = 0; i < 5; i++) { lock_it(m); unlock_it(m); }
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    pthread_mutex_t *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    pthread_mutex_init(a, NULL);
    pthread_mutex_init(b, NULL);
    caller_alpha(a);
    caller_beta(b);
    printf("done\n");
    return 0;
}
