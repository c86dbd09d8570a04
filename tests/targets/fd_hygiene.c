/* fd_hygiene.c — programs that manage their descriptors tightly. Modes:
 *   closeall   close every descriptor from 3 up (as daemons do), then open 5 files: prints the
 *              numbers it got (3 4 5 6 7 expected)
 *   rlimit     RLIMIT_NOFILE = 64, then open 60 files while threads come and go for a second:
 *              prints how many opened and the first error
 *   sleep N    allocate, then sleep N milliseconds (for checkpoints)
 *   lockfirst  lock a new mutex (the profiler takes its first-lock stack), then open a file:
 *              prints the number it got (3 expected) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void *idle(void *arg)
{
    (void)arg;
    usleep(20000);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "closeall";
    if (!strcmp(mode, "closeall")) {
        closefrom(3);
        for (int i = 0; i < 5; i++) printf("%d ", open("/dev/null", O_RDONLY));
        printf("\n");
        return 0;
    }
    if (!strcmp(mode, "rlimit")) {
        struct rlimit rl = { 64, 64 };
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return 2;
        int opened = 0, err = 0;
        for (int i = 0; i < 60; i++) {
            pthread_t t;
            pthread_create(&t, NULL, idle, NULL);
            pthread_detach(t);
            usleep(15000);                      /* about a second: several sampler passes */
            int fd = open("/dev/null", O_RDONLY);
            if (fd < 0 && !err) err = errno;
            opened += fd >= 0;
        }
        printf("opened %d error %s\n", opened, err ? strerror(err) : "none");
        return 0;
    }
    if (!strcmp(mode, "lockfirst")) {
        static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
        printf("%d\n", open("/dev/null", O_RDONLY));
        return 0;
    }
    if (!strcmp(mode, "sleep")) {
        static void *volatile kept;
        kept = malloc(123456);
        memset(kept, 1, 123456);
        usleep((useconds_t)atoi(argv[2]) * 1000);
        return 0;
    }
    return 1;
}
