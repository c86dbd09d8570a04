/* io_bench.c — the I/O loops `make bench` times (scripts/bench.sh runs them bare and under
 * libhotpath.so).
 *
 *   io_bench PATTERN ITERATIONS
 *   io_bench read-loop|write-loop ITERATIONS [SHAPE]
 *
 *   read    read(2) of 64 bytes from /dev/zero
 *   write   write(2) of 64 bytes to /dev/null
 *   read-loop, write-loop  the same calls through the program's own read/write only, timed whole,
 *           in a program of the SHAPE scripts/bench_shape.h names (alone by default): what a
 *           program pays per call, process against process. Prints
 *           "PATTERN ITERATIONS ops NS ns/op".
 *
 * A syscall costs about 1.3 µs here and varies by ±100 ns between runs, far more than the few
 * tens of ns a hook adds; so the comparison is made inside one process: blocks of calls through
 * the program's own `read`/`write` (the hook, when libhotpath.so is preloaded) alternate with
 * blocks of the same system call made right here (x86-64; elsewhere libc's function found
 * directly), on the same descriptor. Not libc's function: under the preload the process has the
 * profiler's threads, so glibc's read takes the cancellation steps of a multi-threaded process,
 * which this single-threaded program run bare does not; the bare syscall is what glibc does for
 * it. Bare, the difference of the two is the cost of glibc's function over the bare system call
 * (scripts/bench.sh subtracts it: "method bias").
 *
 * Many short block pairs, each pair close in time, so drift in the machine's speed cancels in
 * the pair's difference. Prints one line:
 *   "PATTERN ITERATIONS ops HOOKED ns/op direct DIRECT ns/op added ADDED ns"
 * (medians of the blocks, and the median of the pairs' differences). Nothing else goes to stdout
 * or stderr unless something fails. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_shape.h"

#define BLOCKS 401

typedef ssize_t (*rw_fn)(int, void *, size_t);

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static ssize_t via_read(int fd, void *buf, size_t n) { return read(fd, buf, n); }

#if defined(__x86_64__)
static ssize_t sys3(long nr, int fd, void *buf, size_t n)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"((long)fd), "S"(buf), "d"(n) : "rcx", "r11", "memory");
    return r;   /* -errno on failure: the loop only checks for the full count */
}
static ssize_t sys_read(int fd, void *buf, size_t n) { return sys3(SYS_read, fd, buf, n); }
static ssize_t sys_write(int fd, void *buf, size_t n) { return sys3(SYS_write, fd, buf, n); }
#endif
static ssize_t via_write(int fd, void *buf, size_t n) { return write(fd, buf, n); }

/* ns per call of n calls, or -1 */
static double block(rw_fn f, int fd, long n)
{
    char buf[64];
    memset(buf, 'x', sizeof buf);
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        if (f(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return -1;
    return (now_ns() - t0) / (double)n;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* read-loop, write-loop: a warm-up, then n calls timed whole */
static int whole_loop(const char *pattern, long n, const char *shape)
{
    int is_read = strcmp(pattern, "read-loop") == 0;
    int fd = open(is_read ? "/dev/zero" : "/dev/null", is_read ? O_RDONLY : O_WRONLY);
    if (fd < 0 || n <= 0 || bench_shape(shape) != 0) {
        fprintf(stderr, "io_bench: cannot set up %s (%s)\n", pattern, fd < 0 ? "open" : n <= 0 ? "iterations" : shape);
        return 1;
    }
    rw_fn f = is_read ? via_read : via_write;
    double ns = block(f, fd, n / 10 + 1) < 0 ? -1 : block(f, fd, n);
    if (ns < 0) {
        perror("io_bench");
        return 1;
    }
    close(fd);
    printf("%s %ld ops %.1f ns/op\n", pattern, n, ns);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && argc <= 4 && (strcmp(argv[1], "read-loop") == 0 || strcmp(argv[1], "write-loop") == 0))
        return whole_loop(argv[1], atol(argv[2]), argc == 4 ? argv[3] : "alone");
    if (argc != 3 || (strcmp(argv[1], "read") != 0 && strcmp(argv[1], "write") != 0)) {
        fprintf(stderr, "usage: io_bench read|write ITERATIONS, or read-loop|write-loop ITERATIONS [alone|late|threaded]\n");
        return 2;
    }
    long n = atol(argv[2]);
    int is_read = strcmp(argv[1], "read") == 0;
    int fd = open(is_read ? "/dev/zero" : "/dev/null", is_read ? O_RDONLY : O_WRONLY);
#if defined(__x86_64__)
    rw_fn direct = is_read ? sys_read : sys_write;
#else
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    rw_fn direct = libc ? (rw_fn)dlsym(libc, is_read ? "read" : "write") : NULL;
#endif
    rw_fn hooked = is_read ? via_read : via_write;
    if (fd < 0 || n < BLOCKS || !direct) {
        fprintf(stderr, "io_bench: cannot set up (%s)\n", fd < 0 ? "open" : !direct ? "dlsym" : "iterations");
        return 1;
    }
    long per = n / BLOCKS;
    static double h[BLOCKS], d[BLOCKS], diff[BLOCKS];
    if (block(hooked, fd, per / 4 + 1) < 0 || block(direct, fd, per / 4 + 1) < 0) {   /* warm-up */
        perror("io_bench");
        return 1;
    }
    for (int b = 0; b < BLOCKS; b++) {
        /* alternate which goes first, so neither always follows the other */
        if (b & 1) {
            d[b] = block(direct, fd, per);
            h[b] = block(hooked, fd, per);
        } else {
            h[b] = block(hooked, fd, per);
            d[b] = block(direct, fd, per);
        }
        if (h[b] < 0 || d[b] < 0) {
            perror("io_bench");
            return 1;
        }
        diff[b] = h[b] - d[b];
    }
    close(fd);
    qsort(h, BLOCKS, sizeof *h, by_value);
    qsort(d, BLOCKS, sizeof *d, by_value);
    qsort(diff, BLOCKS, sizeof *diff, by_value);
    printf("%s %ld ops %.1f ns/op direct %.1f ns/op added %.1f ns\n", argv[1], per * BLOCKS,
           h[BLOCKS / 2], d[BLOCKS / 2], diff[BLOCKS / 2]);
    return 0;
}
