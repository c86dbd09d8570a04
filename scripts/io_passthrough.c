/* io_passthrough.c — the floor the I/O bench compares with: an LD_PRELOAD library whose read and
 * write only forward to libc's (dlsym RTLD_NEXT, a tail call), counting nothing. What it adds is
 * what any interposition of read/write costs on the machine; libhotpath.so's figure above it is
 * its own work. Built as build/bench/io_passthrough.so for scripts/bench.sh only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);

__attribute__((visibility("default"))) ssize_t read(int fd, void *buf, size_t n)
{
    if (!real_read) real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    return real_read(fd, buf, n);
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n)
{
    if (!real_write) real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    return real_write(fd, buf, n);
}
