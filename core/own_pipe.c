/* own_pipe.c — see own_pipe.h. */
#define _GNU_SOURCE
#include "own_pipe.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "unwind.h"

int hp_own_pipe_give(const void *caller, int fds[2])
{
    if (!hp_unwind_helper_code((uintptr_t)caller)) return 0;
    fds[0] = HP_OWN_PIPE_READ;
    fds[1] = HP_OWN_PIPE_WRITE;
    return 1;
}

ssize_t hp_own_pipe_read(void)
{
    errno = EAGAIN;
    return -1;
}

/* rt_sigprocmask copies the new mask from user memory before it looks at `how`: with a `how` that
 * is no operation it reads 8 bytes at the address, fails with EFAULT where they cannot be read and
 * with EINVAL where they can, and changes nothing. The 8 bytes start at the address rounded down
 * to 8, within its page (libunwind checks whole pages, from their first byte). */
#define NO_OPERATION 0x7fff

ssize_t hp_own_pipe_write(const void *addr, size_t n)
{
    if (n == 0) return 0;
    int saved = errno;
    uintptr_t at = (uintptr_t)addr & ~(uintptr_t)7;
    long r = syscall(SYS_rt_sigprocmask, NO_OPERATION, (void *)at, NULL, sizeof(uint64_t));
    if (r != 0 && errno == EFAULT) return -1;
    errno = saved;
    return 1;
}
