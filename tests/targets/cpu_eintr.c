/* cpu_eintr — blocking reads while the CPU profile samples hard: a reader thread burns CPU between
 * blocking reads of a pipe that a writer thread feeds slowly. Prints the reads, how many failed
 * with EINTR (0 expected: the profiler's SIGPROF handler has SA_RESTART, and a thread blocked in
 * read uses no CPU) and the bytes; exit 1 on any EINTR or short count. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define MESSAGES 400

static int fds[2];

static void *writer(void *arg)
{
    (void)arg;
    char c = 'x';
    for (int i = 0; i < MESSAGES; i++) {
        usleep(1000);
        if (write(fds[1], &c, 1) != 1) return NULL;
    }
    close(fds[1]);
    return NULL;
}

int main(void)
{
    if (pipe(fds) != 0) return 2;
    pthread_t th;
    pthread_create(&th, NULL, writer, NULL);
    int reads = 0, eintr = 0, bytes = 0;
    volatile unsigned long x = 0;
    for (;;) {
        for (int i = 0; i < 300000; i++) x += (unsigned long)i;   /* ~0.2 ms of CPU */
        char buf[16];
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) { eintr++; continue; }
        if (n <= 0) break;
        reads++;
        bytes += (int)n;
    }
    pthread_join(th, NULL);
    printf("reads %d eintr %d bytes %d\n", reads, eintr, bytes);
    return eintr == 0 && bytes == MESSAGES ? 0 : 1;
}
