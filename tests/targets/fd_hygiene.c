/* fd_hygiene.c — programs that manage their descriptors tightly. Modes:
 *   closeall   close every descriptor from 3 up (as daemons do), then open 5 files: prints the
 *              numbers it got (3 4 5 6 7 expected)
 *   rlimit     RLIMIT_NOFILE = 64, then open 60 files while threads come and go for a second:
 *              prints how many opened and the first error
 *   sleep N    allocate, then sleep N milliseconds (for checkpoints)
 *   lockfirst  lock a new mutex (the profiler takes its first-lock stack), then open a file:
 *              prints the number it got (3 expected)
 *   takeover   close every descriptor from 3 up, open a file and dup2 it onto the 64 numbers
 *              from 64 below the limit, or from 1024 under a higher limit (where the profiler
 *              keeps libunwind's pipe), write "mine\n", then make the
 *              profiler unwind stacks (allocations, new locks, CPU in two threads): prints the
 *              file's size, its offset, how many of the 64 numbers still name it and how many
 *              of them close
 *   atlimit    open until EMFILE, close one, then open and close for 1.5 s (as a busy server at
 *              its limit does): prints how many of those opens failed
 *   exhaust    lock a new mutex (libunwind's pipe is made), then take descriptors until EMFILE,
 *              by turns with open, socket, dup, fopen, pipe, opendir, tmpfile, mkstemp,
 *              epoll_create and inotify_init: prints how many it got, the highest number and the
 *              error */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void *idle(void *arg)
{
    (void)arg;
    usleep(20000);
    return NULL;
}

static void *churn(void *arg)
{
    (void)arg;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        for (int i = 0; i < 1000; i++) {
            void *volatile p = malloc(100 + (size_t)i);
            free(p);
        }
        pthread_mutex_t m;
        pthread_mutex_init(&m, NULL);
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
        pthread_mutex_destroy(&m);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 500000000L);
    return NULL;
}

static int takeover(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 128 || rl.rlim_cur > 1 << 20) return 2;
    closefrom(3);
    char path[] = "/tmp/hp-takeover-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 2;
    unlink(path);
    int low = rl.rlim_cur - 64 > 1024 ? 1024 : (int)rl.rlim_cur - 64, top = low + 64;
    for (int n = low; n < top; n++)
        if (dup2(fd, n) != n) return 3;
    if (write(fd, "mine\n", 5) != 5) return 4;
    pthread_t a, b;
    pthread_create(&a, NULL, churn, NULL);
    pthread_create(&b, NULL, churn, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    struct stat file, other;
    fstat(fd, &file);
    int same = 0;
    for (int n = low; n < top; n++)
        same += fstat(n, &other) == 0 && other.st_ino == file.st_ino && other.st_dev == file.st_dev;
    int closed = 0;                     /* the numbers are the program's: it may close them */
    for (int n = low; n < top; n++) closed += close(n) == 0;
    printf("size %lld offset %lld same %d closed %d\n", (long long)file.st_size,
           (long long)lseek(fd, 0, SEEK_CUR), same, closed);
    return 0;
}

/* One more descriptor by the turn's means: its number, or -1 (errno set). */
static int take(int turn)
{
    int fds[2], fd;
    FILE *f;
    DIR *d;
    char tmpl[] = "/tmp/hp-exhaust-XXXXXX";
    switch (turn % 10) {
    case 0: return open("/dev/null", O_RDONLY);
    case 1: return socket(AF_INET, SOCK_STREAM, 0);
    case 2: return dup(0);
    case 3: return (f = fopen("/dev/null", "r")) ? fileno(f) : -1;
    case 4: return pipe(fds) == 0 ? fds[1] : -1;
    case 5: return (d = opendir("/")) ? dirfd(d) : -1;
    case 6: return (f = tmpfile()) ? fileno(f) : -1;
    case 7: if ((fd = mkstemp(tmpl)) >= 0) unlink(tmpl);
            return fd;
    case 8: return epoll_create(1);
    default: return inotify_init();
    }
}

static int at_limit(void)
{
    int fd, lowest = -1;
    while ((fd = open("/dev/null", O_RDONLY)) >= 0)
        if (lowest < 0) lowest = fd;
    if (lowest < 0) return 2;
    close(lowest);
    long failed = 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        if ((fd = open("/dev/null", O_RDONLY)) < 0) failed++;
        else close(fd);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 1500000000L);
    printf("failed %ld\n", failed);
    return 0;
}

static int exhaust(void)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    int n = 0, highest = -1, fd;
    for (int turn = 0; (fd = take(turn)) >= 0; turn++) {
        n += turn % 10 == 4 ? 2 : 1;
        if (fd > highest) highest = fd;
    }
    printf("opened %d highest %d error %s\n", n, highest, strerror(errno));
    return 0;
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
    if (!strcmp(mode, "takeover")) return takeover();
    if (!strcmp(mode, "exhaust")) return exhaust();
    if (!strcmp(mode, "atlimit")) return at_limit();
    if (!strcmp(mode, "sleep")) {
        static void *volatile kept;
        kept = malloc(123456);
        memset(kept, 1, 123456);
        usleep((useconds_t)atoi(argv[2]) * 1000);
        return 0;
    }
    return 1;
}
