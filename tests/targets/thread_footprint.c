/* thread_footprint.c — what each thread of a pool costs in memory: N threads each open a file of
 * their own, lock a mutex of their own and burn a little CPU, then wait together while the main
 * thread reads the process's VmSize and VmRSS (kB) from /proc/self/status and prints them.
 *
 *   thread_footprint N DIR
 *   -> "threads N vmsize_kb V vmrss_kb R"
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t parked, done;
static const char *dir;

static void burn(long ns)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void *worker(void *arg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/f%ld", dir, (long)arg);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "x", 1) != 1) exit(3);
    pthread_mutex_t own;
    pthread_mutex_init(&own, NULL);
    pthread_mutex_lock(&own);
    pthread_mutex_unlock(&own);
    burn(15 * 1000000L);
    pthread_barrier_wait(&parked);
    pthread_barrier_wait(&done);
    close(fd);
    unlink(path);
    pthread_mutex_destroy(&own);
    return NULL;
}

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0) v = atol(line + strlen(key));
    if (f) fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: thread_footprint N DIR\n");
        return 2;
    }
    long n = atol(argv[1]);
    dir = argv[2];
    pthread_t *t = calloc((size_t)n, sizeof *t);
    if (!t || pthread_barrier_init(&parked, NULL, (unsigned)n + 1) != 0 ||
        pthread_barrier_init(&done, NULL, (unsigned)n + 1) != 0)
        return 2;
    for (long i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) return 2;
    pthread_barrier_wait(&parked);
    printf("threads %ld vmsize_kb %ld vmrss_kb %ld\n", n, status_kb("VmSize:"), status_kb("VmRSS:"));
    pthread_barrier_wait(&done);
    for (long i = 0; i < n; i++) pthread_join(t[i], NULL);
    free(t);
    return 0;
}
