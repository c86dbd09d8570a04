/* own_pipe.c — see own_pipe.h. Two pairs of numbers, read on every close and dup2 the program
 * makes and on libunwind's reads; written only when the pipe is made, lost or closed. */
#include "own_pipe.h"

#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "unwind.h"

static _Atomic int live[2] = { -1, -1 };
static _Atomic int lost[2] = { -1, -1 };

void hp_own_pipe_made(const int fds[2])
{
    hp_own_pipe_forget(fds[0]);
    hp_own_pipe_forget(fds[1]);
    atomic_store(&live[0], fds[0]);
    atomic_store(&live[1], fds[1]);
}

int hp_own_pipe_has(int fd)
{
    return fd >= 0 && (fd == atomic_load_explicit(&live[0], memory_order_relaxed) ||
                       fd == atomic_load_explicit(&live[1], memory_order_relaxed));
}

int hp_own_pipe_lost(int fd)
{
    return fd >= 0 && (fd == atomic_load_explicit(&lost[0], memory_order_relaxed) ||
                       fd == atomic_load_explicit(&lost[1], memory_order_relaxed));
}

/* The pipe is lost: no more stacks, and both ends closed but keep (the program's now). */
static int give_away(int keep)
{
    hp_unwind_stop();
    int ends[2] = { atomic_exchange(&live[0], -1), atomic_exchange(&live[1], -1) };
    atomic_store(&lost[0], ends[0]);
    atomic_store(&lost[1], ends[1]);
    int closed = 0;
    for (int i = 0; i < 2; i++)
        if (ends[i] >= 0 && ends[i] != keep) closed += syscall(SYS_close, ends[i]) == 0;   /* still ours: free it */
    return closed;
}

void hp_own_pipe_give(int fd)
{
    if (hp_own_pipe_has(fd)) give_away(fd);
}

int hp_own_pipe_release(void)
{
    if (atomic_load(&live[0]) < 0 && atomic_load(&live[1]) < 0) return 0;
    return give_away(-1) > 0;
}

void hp_own_pipe_forget(int fd)
{
    for (int i = 0; i < 2; i++) {
        int expected = fd;
        atomic_compare_exchange_strong(&lost[i], &expected, -1);
    }
}

int hp_own_pipe_within(unsigned first, unsigned last, int out[2])
{
    int a = atomic_load(&live[0]), b = atomic_load(&live[1]), n = 0;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    if (a >= 0 && (unsigned)a >= first && (unsigned)a <= last) out[n++] = a;
    if (b >= 0 && (unsigned)b >= first && (unsigned)b <= last) out[n++] = b;
    return n;
}
