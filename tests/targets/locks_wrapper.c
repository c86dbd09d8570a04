/* locks_wrapper.c — two heap locks taken through one wrapper function from two callers; and two
 * more whose stacks part only at their fourth frame (origin_x, origin_y), below what a name
 * shows of a stack. */
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

static __attribute__((noinline)) void relay_inner(pthread_mutex_t *m)
{
    lock_it(m);
    unlock_it(m);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void relay_outer(pthread_mutex_t *m)
{
    relay_inner(m);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void origin_x(pthread_mutex_t *m)
{
    for (int i = 0; i < 3; i++) relay_outer(m);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void origin_y(pthread_mutex_t *m)
{
    for (int i = 0; i < 2; i++) relay_outer(m);
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    pthread_mutex_t *a = malloc(sizeof *a), *b = malloc(sizeof *b), *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    pthread_mutex_init(a, NULL);
    pthread_mutex_init(b, NULL);
    pthread_mutex_init(x, NULL);
    pthread_mutex_init(y, NULL);
    caller_alpha(a);
    caller_beta(b);
    origin_x(x);
    origin_y(y);
    printf("done\n");
    return 0;
}
