/* count_rw.c — an interposer preloaded after libhotpath.so: counts the read and write calls that
 * reach it and prints the counts to stderr at exit. The I/O hooks must pass every call on to it
 * (views/io/io_raw.h makes system calls itself only when glibc's function is next). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static long reads, writes;

ssize_t read(int fd, void *buf, size_t n)
{
    static ssize_t (*next)(int, void *, size_t);
    if (!next) next = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    reads++;
    return next(fd, buf, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*next)(int, const void *, size_t);
    if (!next) next = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    writes++;
    return next(fd, buf, n);
}

__attribute__((destructor)) static void counts(void)
{
    fprintf(stderr, "count_rw: reads %ld writes %ld\n", reads, writes);
}
