/* idle_threads.c — N threads that sleep for S seconds: what the sampler costs while it watches
 * them (make bench reads the profiler's own CPU from the report). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned seconds;

static void *idle(void *arg)
{
    (void)arg;
    sleep(seconds);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < n; i++) pthread_create(&t[i], &attr, idle, NULL);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    free(t);
    return 0;
}
