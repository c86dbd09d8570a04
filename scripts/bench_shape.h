/* bench_shape.h — the shape of the program a bench loop runs in, for the whole-process loops of
 * `make bench` (lock_bench pair, io_bench read-loop / write-loop). glibc takes a different path
 * while a process has one thread (an uncontended mutex with a plain store, a read without its
 * cancellation steps) than once it has two, even an idle one; the profiler's sampler thread,
 * started after a one-thread program's first interval, moves the program from the first path to
 * the second. So each loop is timed in one known shape:
 *
 *   alone     one thread, timed at once: under the preload, before the profiler's thread starts
 *             (the loop must end within the first interval, 250 ms)
 *   late      one thread that sleeps 300 ms first: under the preload, its sleep starts the
 *             profiler's thread, so the loop runs in a process of two threads; bare, in one
 *   threaded  an idle second thread is made first: two threads bare and preloaded, as in any
 *             program with threads of its own */
#ifndef BENCH_SHAPE_H
#define BENCH_SHAPE_H

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *bench_shape_idle(void *arg)
{
    (void)arg;
    for (;;) pause();
    return NULL;
}

/* 0, or -1 for a shape it does not know */
static int bench_shape(const char *shape)
{
    if (strcmp(shape, "alone") == 0) return 0;
    if (strcmp(shape, "late") == 0) {
        struct timespec t = { 0, 300 * 1000 * 1000 };
        nanosleep(&t, NULL);
        return 0;
    }
    if (strcmp(shape, "threaded") == 0) {
        pthread_t t;
        return pthread_create(&t, NULL, bench_shape_idle, NULL) == 0 ? 0 : -1;
    }
    return -1;
}

#endif
