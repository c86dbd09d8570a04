/* own_pipe.h — libunwind's pipe, never made. libunwind checks that it may read an address (before
 * a frame-pointer step, where a frame has no unwind tables) by writing a byte from it into a pipe
 * it opens at its first use and keeps in its own static variables. A real pipe is two descriptors
 * the program sees among its own (a child listing its descriptors, Python's pass_fds), takes over
 * with dup2, or closes with close_range. So the pipe hook gives libunwind two numbers that no
 * descriptor can have (above the kernel's largest descriptor limit), and the I/O hooks answer
 * libunwind's calls on them, guard up: a read finds the pipe empty, a write of a readable address
 * succeeds and one of an unreadable address fails with EFAULT (the kernel reads the address, as it
 * would for the pipe), a close succeeds. Made by anyone else (guard down), the numbers are not
 * descriptors, as without the profiler. */
#ifndef HP_OWN_PIPE_H
#define HP_OWN_PIPE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* The kernel's descriptor limit is at most INT_MAX rounded down to a multiple of 64. */
#define HP_OWN_PIPE_READ (INT_MAX - 1)
#define HP_OWN_PIPE_WRITE INT_MAX

static inline int hp_own_pipe_has(int fd)
{
    return fd >= HP_OWN_PIPE_READ;
}

/* The pipe asked for by code at return address caller: libunwind's gets the two numbers (1),
 * anyone else's is made as asked (0). */
int hp_own_pipe_give(const void *caller, int fds[2]);
/* libunwind's read from the pipe: empty (EAGAIN). */
ssize_t hp_own_pipe_read(void);
/* libunwind's write of n bytes from addr into the pipe: 1 (a byte written) where addr can be
 * read, else -1 with EFAULT. */
ssize_t hp_own_pipe_write(const void *addr, size_t n);

#endif
