/* io_fd_hooks.c — the hooks that make, name and drop descriptors, so the fd table always says which
 * resource a descriptor is: open family (named by path), pipes, sockets (named by address once
 * they connect, are accepted or listen), dup family, close family. Descriptors made by calls not
 * hooked here are named from /proc/self/fd when first used (views/io/io.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/own_pipe.h"
#include "core/platform.h"
#include "core/own_fds.h"
#include "core/sampler.h"
#include "io_real.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif


/* open(2) takes a mode only when it may create the file. */
static inline int needs_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags)                                                                         \
    int mode = 0;                                                                               \
    if (needs_mode(flags)) {                                                                    \
        va_list ap;                                                                             \
        va_start(ap, flags);                                                                    \
        mode = va_arg(ap, int);                                                                 \
        va_end(ap);                                                                             \
    }

static inline int opened(int fd, int dirfd, const char *path, int flags)
{
    if (fd >= 0 && hp_io_thread()) hp_io_opened(fd, dirfd, path, flags);
    return fd;
}

/* ---- open family ---- */

HP_EXPORT int open(const char *path, int flags, ...)
{
    MODE_ARG(flags);
    EARLY(SYS_openat, AT_FDCWD, path, flags, mode);
    return opened(HP_WITH_ROOM(hp_hot.io.open(path, flags, mode)), AT_FDCWD, path, flags);
}

HP_EXPORT int open64(const char *path, int flags, ...)
{
    MODE_ARG(flags);
    EARLY(SYS_openat, AT_FDCWD, path, flags, mode);
    return opened(HP_WITH_ROOM(hp_hot.io.open64(path, flags, mode)), AT_FDCWD, path, flags);
}

HP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    MODE_ARG(flags);
    EARLY(SYS_openat, dirfd, path, flags, mode);
    return opened(HP_WITH_ROOM(hp_hot.io.openat(dirfd, path, flags, mode)), dirfd, path, flags);
}

HP_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    MODE_ARG(flags);
    EARLY(SYS_openat, dirfd, path, flags, mode);
    return opened(HP_WITH_ROOM(hp_hot.io.openat64(dirfd, path, flags, mode)), dirfd, path, flags);
}

HP_EXPORT int creat(const char *path, mode_t mode)
{
    EARLY(SYS_creat, path, mode);
    return opened(HP_WITH_ROOM(hp_hot.io.creat(path, mode)), AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
}

HP_EXPORT int creat64(const char *path, mode_t mode)
{
    EARLY(SYS_creat, path, mode);
    return opened(HP_WITH_ROOM(hp_hot.io.creat64(path, mode)), AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
}

/* _FORTIFY_SOURCE forms: no mode (glibc fails them when one is needed). */
HP_EXPORT int __open_2(const char *path, int flags)
{
    EARLY_FAIL(-1);
    return opened(HP_WITH_ROOM(hp_hot.io.open_2(path, flags)), AT_FDCWD, path, flags);
}

HP_EXPORT int __open64_2(const char *path, int flags)
{
    EARLY_FAIL(-1);
    return opened(HP_WITH_ROOM(hp_hot.io.open64_2(path, flags)), AT_FDCWD, path, flags);
}

HP_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    EARLY_FAIL(-1);
    return opened(HP_WITH_ROOM(hp_hot.io.openat_2(dirfd, path, flags)), dirfd, path, flags);
}

HP_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    EARLY_FAIL(-1);
    return opened(HP_WITH_ROOM(hp_hot.io.openat64_2(dirfd, path, flags)), dirfd, path, flags);
}

/* ---- close family: the slot is cleared before the descriptor is free for reuse ---- */

HP_EXPORT int close(int fd)
{
    EARLY(SYS_close, fd);
    if (__builtin_expect(hp_own_pipe_has(fd), 0) && guarded()) return 0;   /* libunwind's */
    if (hp_io_thread()) hp_io_close(fd);
    if (fd == 2) hp_own_stderr_going(1);
    return hp_hot.io.close(fd);
}

HP_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
    EARLY(SYS_close_range, first, last, flags);
    if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last && hp_io_thread())
        hp_io_close_range(first, last);
    if (first <= 2 && last >= 2 && !(flags & CLOSE_RANGE_CLOEXEC)) hp_own_stderr_going(1);
    return hp_hot.io.close_range(first, last, flags);
}

HP_EXPORT void closefrom(int low)
{
    if (!hp_io_ready()) {
        syscall(SYS_close_range, (unsigned)(low < 0 ? 0 : low), UINT_MAX, 0);
        return;
    }
    unsigned first = (unsigned)(low < 0 ? 0 : low);
    if (first <= 2) hp_own_stderr_going(1);
    if (hp_io_thread()) hp_io_close_range(first, UINT_MAX);
    hp_hot.io.closefrom(low);
}

/* ---- dup family: the new descriptor is the same resource ---- */

static inline int duped(int oldfd, int r)
{
    if (r >= 0 && hp_io_thread()) hp_io_dup(oldfd, r);
    return r;
}

HP_EXPORT int dup(int fd)
{
    EARLY(SYS_dup, fd);
    return duped(fd, HP_WITH_ROOM(hp_hot.io.dup(fd)));
}

/* The program puts another file at newfd. */
static inline void taking(int newfd)
{
    if (newfd == 2) hp_own_stderr_going(0);
}

HP_EXPORT int dup2(int oldfd, int newfd)
{
    EARLY(SYS_dup2, oldfd, newfd);
    taking(newfd);
    return duped(oldfd, hp_hot.io.dup2(oldfd, newfd));
}

HP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
    EARLY(SYS_dup3, oldfd, newfd, flags);
    taking(newfd);
    return duped(oldfd, hp_hot.io.dup3(oldfd, newfd, flags));
}

/* fcntl's third argument is an int, a pointer or nothing: passed on as a word, as glibc does. */
#define FCNTL(REAL)                                                                             \
    va_list ap;                                                                                 \
    va_start(ap, cmd);                                                                          \
    void *arg = va_arg(ap, void *);                                                             \
    va_end(ap);                                                                                 \
    EARLY(SYS_fcntl, fd, cmd, arg);                                                             \
    int r = HP_WITH_ROOM(REAL(fd, cmd, arg));                                                   \
    if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) duped(fd, r);                                 \
    return r;

HP_EXPORT int fcntl(int fd, int cmd, ...)
{
    FCNTL(hp_hot.io.fcntl);
}

HP_EXPORT int fcntl64(int fd, int cmd, ...)
{
    FCNTL(hp_hot.io.fcntl64);
}

/* ---- pipes ---- */

static inline int piped(int r, int fds[2])
{
    if (r == 0 && hp_io_thread()) {
        struct hp_io_name n;
        hp_io_name_path(&n, "pipe", HP_IO_PIPE);
        hp_io_attach_pair(fds, &n);
    }
    return r;
}

/* libunwind's address-check pipe is two numbers and no descriptors (own_pipe.h). */
#define OWN_PIPE(fds)                                                                           \
    if (guarded() && hp_own_pipe_give(__builtin_return_address(0), fds)) return 0

HP_EXPORT int pipe(int fds[2])
{
    EARLY(SYS_pipe2, fds, 0);
    OWN_PIPE(fds);
    return piped(HP_WITH_ROOM(hp_hot.io.pipe(fds)), fds);
}

HP_EXPORT int pipe2(int fds[2], int flags)
{
    EARLY(SYS_pipe2, fds, flags);
    OWN_PIPE(fds);
    return piped(HP_WITH_ROOM(hp_hot.io.pipe2(fds, flags)), fds);
}

/* ---- sockets ---- */

/* A new descriptor no hook names now: forget what the number meant; named when first used. */
static inline int fresh(int r)
{
    if (r >= 0 && hp_io_thread()) hp_io_forget(r);
    return r;
}

HP_EXPORT int socket(int domain, int type, int protocol)
{
    EARLY(SYS_socket, domain, type, protocol);
    return fresh(HP_WITH_ROOM(hp_hot.io.socket(domain, type, protocol)));
}

HP_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
    EARLY(SYS_socketpair, domain, type, protocol, sv);
    int r = HP_WITH_ROOM(hp_hot.io.socketpair(domain, type, protocol, sv));
    if (r == 0 && hp_io_thread()) {
        int saved = errno;
        struct hp_io_name n;
        hp_io_name_socket(&n, sv[0], domain, type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC), HP_IO_PAIR,
                          NULL, 0, NULL, 0);
        hp_io_attach_pair(sv, &n);
        errno = saved;
    }
    return r;
}

static inline int accepted(int r, struct sockaddr *addr, socklen_t *len, socklen_t cap)
{
    if (r >= 0 && hp_io_thread()) {
        /* the peer's address as accept wrote it, if it fit */
        int usable = addr && len && *len <= cap && *len >= sizeof(sa_family_t);
        hp_io_socket_named(r, HP_IO_ACCEPTED, usable ? addr : NULL, usable ? *len : 0);
    }
    return r;
}

HP_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    EARLY(SYS_accept, fd, addr, len);
    socklen_t cap = addr && len ? *len : 0;
    return accepted(HP_WITH_ROOM(hp_hot.io.accept(fd, addr, len)), addr, len, cap);
}

HP_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    EARLY(SYS_accept4, fd, addr, len, flags);
    socklen_t cap = addr && len ? *len : 0;
    return accepted(HP_WITH_ROOM(hp_hot.io.accept4(fd, addr, len, flags)), addr, len, cap);
}

HP_EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    EARLY(SYS_connect, fd, addr, len);
    int r = hp_hot.io.connect(fd, addr, len);
    if ((r == 0 || errno == EINPROGRESS) && hp_io_thread()) {
        int unspec = addr && len >= sizeof(sa_family_t) && addr->sa_family == AF_UNSPEC;
        hp_io_socket_named(fd, unspec ? HP_IO_UNCONNECTED : HP_IO_CONNECTED, unspec ? NULL : addr,
                           unspec ? 0 : len);
    }
    return r;
}

/* A TCP port the program binds: the live server gives it up if it holds it. */
static void program_binds(int fd, const struct sockaddr *addr, socklen_t len)
{
    unsigned p = 0;
    if (addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
        p = ntohs(((const struct sockaddr_in *)addr)->sin_port);
    else if (addr && addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6))
        p = ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
    hp_own_port_bound(fd, p);
}

HP_EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
    EARLY(SYS_bind, fd, addr, len);
    if (!guarded()) program_binds(fd, addr, len);
    int r = hp_hot.io.bind(fd, addr, len);
    if (r == 0 && hp_io_thread()) hp_io_forget(fd);   /* named by its address when first used */
    return r;
}

HP_EXPORT int listen(int fd, int backlog)
{
    EARLY(SYS_listen, fd, backlog);
    int r = hp_hot.io.listen(fd, backlog);
    if (r == 0 && hp_io_thread()) {
        hp_io_socket_named(fd, HP_IO_LISTENING, NULL, 0);
        hp_sampler_launch();    /* a server: its metrics server is wanted from now on */
    }
    return r;
}

/* ---- descriptors of other families: forgotten, named when first used ---- */

HP_EXPORT int eventfd(unsigned int count, int flags)
{
    EARLY(SYS_eventfd2, count, flags);
    return fresh(HP_WITH_ROOM(hp_hot.io.eventfd(count, flags)));
}

HP_EXPORT int epoll_create1(int flags)
{
    EARLY(SYS_epoll_create1, flags);
    return fresh(HP_WITH_ROOM(hp_hot.io.epoll_create1(flags)));
}

HP_EXPORT int timerfd_create(int clock, int flags)
{
    EARLY(SYS_timerfd_create, clock, flags);
    return fresh(HP_WITH_ROOM(hp_hot.io.timerfd_create(clock, flags)));
}

HP_EXPORT int signalfd(int fd, const void *mask, int flags)
{
    EARLY_FAIL(-1);
    return fresh(HP_WITH_ROOM(hp_hot.io.signalfd(fd, mask, flags)));
}

HP_EXPORT int memfd_create(const char *name, unsigned int flags)
{
    EARLY(SYS_memfd_create, name, flags);
    return fresh(HP_WITH_ROOM(hp_hot.io.memfd_create(name, flags)));
}

HP_EXPORT int inotify_init1(int flags)
{
    EARLY(SYS_inotify_init1, flags);
    return fresh(HP_WITH_ROOM(hp_hot.io.inotify_init1(flags)));
}
