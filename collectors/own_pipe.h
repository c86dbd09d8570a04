/* own_pipe.h — the one descriptor pair the profiler cannot move: libunwind checks addresses by
 * writing them to a pipe whose numbers it keeps in its own static variables. The I/O hooks make
 * that pipe high (preload/io_fd.c) and keep the program and the pipe apart, so that libunwind
 * never reads or writes a descriptor of the program's:
 * - the program's close of an end fails with EBADF, as it would without the profiler, and
 *   close_range and closefrom leave the ends open;
 * - dup2/dup3 onto an end gives that number to the program: the pipe is lost, its other end is
 *   closed, and the profiler takes no more stacks (collectors/unwind.h), so libunwind is not
 *   called again. A thread already inside it finds reads of the lost numbers failing with EBADF
 *   and its closes of them skipped (several threads may reopen the pipe at once: a lost number
 *   stays lost until the profiler's own open or pipe lands on it again).
 * A dup2 racing with an unwind in another thread can still let one 1-byte write through. */
#ifndef HP_OWN_PIPE_H
#define HP_OWN_PIPE_H

/* The pipe the profiler's own code just made (the guard was up). */
void hp_own_pipe_made(const int fds[2]);
/* fd is an end of the live pipe. */
int hp_own_pipe_has(int fd);
/* fd was an end of a pipe the program took over, and libunwind has not closed it yet. */
int hp_own_pipe_lost(int fd);
/* The program is about to take fd (dup2/dup3 onto an end). */
void hp_own_pipe_give(int fd);
/* The program ran out of descriptors (preload/fd_room.c): the pipe is closed, and the profiler
 * takes no more stacks. Returns 1 when a descriptor was freed. */
int hp_own_pipe_release(void);
/* The profiler's own open or pipe got fd: it is no lost number any more. */
void hp_own_pipe_forget(int fd);
/* The live ends within [first, last], ascending, in out; returns how many (0 to 2). */
int hp_own_pipe_within(unsigned first, unsigned last, int out[2]);

#endif
