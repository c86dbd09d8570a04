/* own_fds.h — the profiler's own descriptors and ports as the program's hooks meet them, and
 * docs/DESIGN.md rule 12's budget: the program never meets EMFILE because of the
 * profiler. Its own descriptors (the metrics server's sockets; a copy of stderr once the program
 * has let fd 2 go) sit high under the limit, so a program that opens descriptors until EMFILE
 * would get a few fewer than bare. When a call of the program's that makes a descriptor fails with
 * EMFILE, the profiler lets go of all of them and the hook makes the call once more. What that
 * costs: the metrics server stops, the sampler opens no more /proc files (CPU times still come
 * from the threads' clocks; states, names of threads no hook saw, and RSS stop changing) and the
 * report goes to fd 2 as it is at the end. */
#ifndef HP_OWN_FDS_H
#define HP_OWN_FDS_H

#include <errno.h>

/* What holds them (the report's copy of stderr, the metrics server's sockets and port), told to
 * the core at start (process/bootstrap.c); until then the hooks find nothing of ours. */
struct hp_own_fds {
    /* The program met EMFILE: let go of every descriptor of ours; 1 when one was freed. */
    int (*release)(void);
    /* The program is about to close fd 2 (closed = 1) or put another file there (report.h). */
    void (*stderr_replaced)(int closed);
    /* A TCP port the profiler listens on or will: the program binding it has it yielded. */
    int (*holds_port)(unsigned port);
    void (*yield_port)(unsigned port);
};
void hp_own_fds_set(const struct hp_own_fds *owners);

/* Hooks' calls: fd 2 is about to be closed or replaced (not from a vfork child, which is not
 * ours), and the program binds TCP socket fd to port (the server lets it go if it holds it). */
void hp_own_stderr_going(int closed);
void hp_own_port_bound(int fd, unsigned port);

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
