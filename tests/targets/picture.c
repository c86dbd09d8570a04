/* picture.c — one run with something in every section, for comparing the HTML report with the
 * text: a "spinner" thread burning CPU, two "locker" threads that wait for each other's mutex,
 * a "writer" and two "reader" threads on one rwlock (both modes wait), an "io" thread that writes
 * a file in the given directory (with fsync), reads it back and writes to /dev/null, and the main
 * thread allocating and keeping a little. Usage: picture DIR */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t config_lock = PTHREAD_RWLOCK_INITIALIZER;
static volatile unsigned long sink;
static const char *dir;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_work(double seconds)
{
    double end = now_s() + seconds;
    while (now_s() < end)
        for (int i = 0; i < 100000; i++) sink += (unsigned long)i * 31;
}

static void *spinner(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "spinner");
    spin_work(0.6);
    return NULL;
}

static void *locker(void *arg)
{
    pthread_setname_np(pthread_self(), arg);
    for (int i = 0; i < 40; i++) {
        pthread_mutex_lock(&table_lock);
        usleep(1000);
        void *p = malloc(4096 + (size_t)i * 64);
        free(p);
        pthread_mutex_unlock(&table_lock);
        usleep(200);
    }
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "writer");
    for (int i = 0; i < 20; i++) {
        pthread_rwlock_wrlock(&config_lock);
        usleep(2000);
        pthread_rwlock_unlock(&config_lock);
        usleep(1000);
    }
    return NULL;
}

static void *reader(void *arg)
{
    pthread_setname_np(pthread_self(), arg);
    for (int i = 0; i < 40; i++) {
        pthread_rwlock_rdlock(&config_lock);
        usleep(700);
        pthread_rwlock_unlock(&config_lock);
        usleep(300);
    }
    return NULL;
}

static void *io(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "io");
    char path[4096], buf[65536];
    snprintf(path, sizeof path, "%s/picture.dat", dir);
    memset(buf, 'p', sizeof buf);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0) return NULL;
    for (int i = 0; i < 24; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) break;
    fsync(fd);
    close(fd);
    fd = open(path, O_RDONLY);
    if (fd >= 0) {
        while (read(fd, buf, 4096) > 0) {
        }
        close(fd);
    }
    int null = open("/dev/null", O_WRONLY);
    for (int i = 0; i < 100 && null >= 0; i++)
        if (write(null, buf, 512) < 0) break;
    if (null >= 0) close(null);
    return NULL;
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "/tmp";
    pthread_t t[7];
    pthread_create(&t[0], NULL, spinner, NULL);
    pthread_create(&t[1], NULL, locker, "locker-1");
    pthread_create(&t[2], NULL, locker, "locker-2");
    pthread_create(&t[3], NULL, writer, NULL);
    pthread_create(&t[4], NULL, reader, "reader-1");
    pthread_create(&t[5], NULL, reader, "reader-2");
    pthread_create(&t[6], NULL, io, NULL);
    static void *kept[64];
    for (int i = 0; i < 2000; i++) {
        void *p = malloc(1024 + (size_t)(i % 64) * 512);
        if (i % 32 == 0) kept[i / 32] = p;
        else free(p);
    }
    for (int i = 0; i < 7; i++) pthread_join(t[i], NULL);
    sink += (unsigned long)kept[0];
    return 0;
}
