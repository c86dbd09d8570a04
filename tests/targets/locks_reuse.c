/* locks_reuse.c — reused_lock is locked 3 times, destroyed, initialised again at the same
 * address and locked 2 times: two locks. With an argument N, then N more times destroyed,
 * initialised and locked once: N more locks at that address, all but the last destroyed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

pthread_mutex_t reused_lock = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) void use(int n)
{
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&reused_lock);
        pthread_mutex_unlock(&reused_lock);
    }
}

int main(int argc, char **argv)
{
    use(3);
    pthread_mutex_destroy(&reused_lock);
    pthread_mutex_init(&reused_lock, NULL);
    use(2);
    int more = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 0; i < more; i++) {
        pthread_mutex_destroy(&reused_lock);
        pthread_mutex_init(&reused_lock, NULL);
        use(1);
    }
    printf("done\n");
    return 0;
}
