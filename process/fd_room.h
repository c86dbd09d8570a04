/* fd_room.h — docs/DESIGN.md rule 12's budget: the program never meets EMFILE because of the
 * profiler. Its own descriptors (the metrics server's sockets; a copy of stderr once the program
 * has let fd 2 go) sit high under the limit, so a program that opens descriptors until EMFILE
 * would get a few fewer than bare. When a call of the program's that makes a descriptor fails with
 * EMFILE, the profiler lets go of all of them and the hook makes the call once more. What that
 * costs: the metrics server stops, the sampler opens no more /proc files (CPU times still come
 * from the threads' clocks; states, names of threads no hook saw, and RSS stop changing) and the
 * report goes to fd 2 as it is at the end. */
#ifndef HP_FD_ROOM_H
#define HP_FD_ROOM_H

#include <errno.h>

/* The calling thread is the program's and the profiler freed at least one descriptor: worth
 * making the call again. errno kept. */
int hp_fd_room(void);

/* call, made once more when it failed with EMFILE and the profiler made room */
#define HP_WITH_ROOM(call)                                                                      \
    __extension__({                                                                             \
        __typeof__(call) r_ = (call);                                                           \
        if (__builtin_expect(r_ < 0, 0) && errno == EMFILE && hp_fd_room()) r_ = (call);        \
        r_;                                                                                     \
    })

/* the same for a call that returns a pointer, NULL on failure (fopen) */
#define HP_WITH_ROOM_PTR(call)                                                                  \
    __extension__({                                                                             \
        __typeof__(call) r_ = (call);                                                           \
        if (__builtin_expect(r_ == NULL, 0) && errno == EMFILE && hp_fd_room()) r_ = (call);    \
        r_;                                                                                     \
    })

#endif
