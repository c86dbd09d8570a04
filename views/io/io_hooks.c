/* io_hooks.c — the I/O view's data hooks: read, write and their positioned, vectored, socket and
 * `_chk` (fortify) forms, the calls that move data between two descriptors, syncs and seeks.
 * Also resolves every real I/O function (hp_resolve_io, called from hp_resolve; the list is
 * views/io/io_fns.h).
 *
 * A counted call: look the descriptor's record up in the flat fd table (two loads, no lock), read
 * the clock, make the real call, read the clock, add to the record (plain stores by the thread
 * that owns the record, atomic adds by any other: views/io/io.h) and to the thread's own I/O
 * time (plain stores). errno is only read, never written. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/own_pipe.h"
#include "io_raw.h"
#include "io_real.h"

void hp_resolve_io(void)
{
    HP_REAL_LOOKUPS(HP_IO_FNS, hp_hot.io);
    __atomic_store_n(&hp_hot.io_resolved, 1, __ATOMIC_RELEASE);
}

/* A call on one descriptor in one direction whose result is the byte count (or -1); UNCOUNTED
 * is what a call that does not count (the profiler's own) does instead. */
#define RW(WRITE, FD, CALL) RW_OR(WRITE, FD, CALL, CALL)
#define RW_OR(WRITE, FD, CALL, UNCOUNTED)                                                         \
    do {                                                                                        \
        struct hp_thread *t_ = hp_io_thread();                                                  \
        if (__builtin_expect(t_ == NULL, 0)) return UNCOUNTED;                                  \
        struct hp_io_res *res_ = hp_io_res_of(t_, FD);                                              \
        uint64_t t0_ = hp_io_start(t_);                                                         \
        ssize_t r_ = CALL;                                                                      \
        hp_io_done(t_, res_, WRITE, t0_, r_, r_ > 0 ? (uint64_t)r_ : 0);                         \
        return r_;                                                                              \
    } while (0)


/* ---- read and write ---- */

/* Uncounted reads and writes: the profiler's own, libunwind's address checks through its pipe
 * among them (own_pipe.h). */
static __attribute__((noinline)) ssize_t read_uncounted(int fd, void *buf, size_t n)
{
    if (hp_own_pipe_has(fd) && guarded()) return hp_own_pipe_read();
    return hp_hot.io.read(fd, buf, n);
}

static __attribute__((noinline)) ssize_t write_uncounted(int fd, const void *buf, size_t n)
{
    if (hp_own_pipe_has(fd) && guarded()) return hp_own_pipe_write(buf, n);
    return hp_hot.io.write(fd, buf, n);
}

HP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    EARLY(SYS_read, fd, buf, n);
    RW_OR(0, fd, RAW_OR(hp_hot.io.read(fd, buf, n), SYS_read, fd, buf, n, 0, 0, 0), read_uncounted(fd, buf, n));
}

HP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    EARLY(SYS_write, fd, buf, n);
    RW_OR(1, fd, RAW_OR(hp_hot.io.write(fd, buf, n), SYS_write, fd, buf, n, 0, 0, 0), write_uncounted(fd, buf, n));
}

#if HP_IO_RAW_ARCH
/* libunwind writes its address checks with syscall(SYS_write) (own_pipe.h). Every other call is
 * the system call with the six words glibc's syscall reads (a system call takes at most six):
 * made here where the next syscall() is glibc's, or before it is found (the profiler's own early
 * calls come here too); else through the next one. A raw vfork through syscall() would return
 * through this frame in both processes: not handled. */
HP_EXPORT long syscall(long nr, ...)
{
    va_list ap;
    va_start(ap, nr);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    if (__builtin_expect(nr == SYS_write && hp_own_pipe_has((int)a), 0) && guarded())
        return hp_own_pipe_write((const void *)b, (size_t)c);
    if (__builtin_expect(hp_hot.syscall_raw || !hp_hot.io.syscall, 1)) return hp_raw_call(nr, a, b, c, d, e, f);
    return hp_hot.io.syscall(nr, a, b, c, d, e, f);
}
#endif

HP_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    EARLY(SYS_pread64, fd, buf, n, off);
    RW(0, fd, RAW_OR(hp_hot.io.pread(fd, buf, n, off), SYS_pread64, fd, buf, n, off, 0, 0));
}

HP_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    EARLY(SYS_pread64, fd, buf, n, off);
    RW(0, fd, RAW_OR(hp_hot.io.pread64(fd, buf, n, off), SYS_pread64, fd, buf, n, off, 0, 0));
}

HP_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    EARLY(SYS_pwrite64, fd, buf, n, off);
    RW(1, fd, RAW_OR(hp_hot.io.pwrite(fd, buf, n, off), SYS_pwrite64, fd, buf, n, off, 0, 0));
}

HP_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    EARLY(SYS_pwrite64, fd, buf, n, off);
    RW(1, fd, RAW_OR(hp_hot.io.pwrite64(fd, buf, n, off), SYS_pwrite64, fd, buf, n, off, 0, 0));
}

HP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
    EARLY(SYS_readv, fd, iov, n);
    RW(0, fd, RAW_OR(hp_hot.io.readv(fd, iov, n), SYS_readv, fd, iov, n, 0, 0, 0));
}

HP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    EARLY(SYS_writev, fd, iov, n);
    RW(1, fd, RAW_OR(hp_hot.io.writev(fd, iov, n), SYS_writev, fd, iov, n, 0, 0, 0));
}

HP_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
    EARLY(SYS_preadv, fd, iov, n, off, 0);
    RW(0, fd, hp_hot.io.preadv(fd, iov, n, off));
}

HP_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t off)
{
    EARLY(SYS_preadv, fd, iov, n, off, 0);
    RW(0, fd, hp_hot.io.preadv64(fd, iov, n, off));
}

HP_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
    EARLY(SYS_pwritev, fd, iov, n, off, 0);
    RW(1, fd, hp_hot.io.pwritev(fd, iov, n, off));
}

HP_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
    EARLY(SYS_pwritev, fd, iov, n, off, 0);
    RW(1, fd, hp_hot.io.pwritev64(fd, iov, n, off));
}

HP_EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
    EARLY(SYS_preadv2, fd, iov, n, off, 0, flags);
    RW(0, fd, hp_hot.io.preadv2(fd, iov, n, off, flags));
}

HP_EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
    EARLY(SYS_preadv2, fd, iov, n, off, 0, flags);
    RW(0, fd, hp_hot.io.preadv64v2(fd, iov, n, off, flags));
}

HP_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
    EARLY(SYS_pwritev2, fd, iov, n, off, 0, flags);
    RW(1, fd, hp_hot.io.pwritev2(fd, iov, n, off, flags));
}

HP_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
    EARLY(SYS_pwritev2, fd, iov, n, off, 0, flags);
    RW(1, fd, hp_hot.io.pwritev64v2(fd, iov, n, off, flags));
}

/* _FORTIFY_SOURCE: the same calls with the buffer's size, checked by glibc. A call that fails the
 * check goes to glibc's function, which ends the program. */
#define CHECKED(N, BUFLEN, CALL, NR, A, B, C, D, E, F)                                          \
    ((N) > (BUFLEN) ? (CALL) : RAW_OR(CALL, NR, A, B, C, D, E, F))

HP_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    EARLY_FAIL(-1);
    RW(0, fd, CHECKED(n, buflen, hp_hot.io.read_chk(fd, buf, n, buflen), SYS_read, fd, buf, n, 0, 0, 0));
}

HP_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    EARLY_FAIL(-1);
    RW(0, fd, CHECKED(n, buflen, hp_hot.io.pread_chk(fd, buf, n, off, buflen), SYS_pread64, fd, buf, n, off, 0, 0));
}

HP_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    EARLY_FAIL(-1);
    RW(0, fd, CHECKED(n, buflen, hp_hot.io.pread64_chk(fd, buf, n, off, buflen), SYS_pread64, fd, buf, n, off, 0, 0));
}

/* ---- sockets ---- */

HP_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    EARLY(SYS_sendto, fd, buf, n, flags, NULL, 0);
    RW(1, fd, RAW_OR(hp_hot.io.send(fd, buf, n, flags), SYS_sendto, fd, buf, n, flags, 0, 0));
}

HP_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    EARLY(SYS_recvfrom, fd, buf, n, flags, NULL, NULL);
    RW(0, fd, RAW_OR(hp_hot.io.recv(fd, buf, n, flags), SYS_recvfrom, fd, buf, n, flags, 0, 0));
}

HP_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
                         socklen_t tolen)
{
    EARLY(SYS_sendto, fd, buf, n, flags, to, tolen);
    RW(1, fd, RAW_OR(hp_hot.io.sendto(fd, buf, n, flags, to, tolen), SYS_sendto, fd, buf, n, flags, to, tolen));
}

HP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
                           socklen_t *fromlen)
{
    EARLY(SYS_recvfrom, fd, buf, n, flags, from, fromlen);
    RW(0, fd, RAW_OR(hp_hot.io.recvfrom(fd, buf, n, flags, from, fromlen), SYS_recvfrom, fd, buf, n, flags, from, fromlen));
}

HP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    EARLY(SYS_sendmsg, fd, msg, flags);
    RW(1, fd, hp_hot.io.sendmsg(fd, msg, flags));
}

HP_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    EARLY(SYS_recvmsg, fd, msg, flags);
    RW(0, fd, hp_hot.io.recvmsg(fd, msg, flags));
}

HP_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
    EARLY_FAIL(-1);
    RW(0, fd, CHECKED(n, buflen, hp_hot.io.recv_chk(fd, buf, n, buflen, flags), SYS_recvfrom, fd, buf, n, flags, 0, 0));
}

HP_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                                 struct sockaddr *from, socklen_t *fromlen)
{
    EARLY_FAIL(-1);
    RW(0, fd, CHECKED(n, buflen, hp_hot.io.recvfrom_chk(fd, buf, n, buflen, flags, from, fromlen), SYS_recvfrom, fd, buf, n, flags, from, fromlen));
}

/* Several messages in one call: the result is how many went; bytes are their msg_len. */
static uint64_t mmsg_bytes(const struct mmsghdr *v, int r)
{
    uint64_t b = 0;
    for (int i = 0; i < r; i++) b += v[i].msg_len;
    return b;
}

HP_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
    EARLY(SYS_sendmmsg, fd, v, n, flags);
    struct hp_thread *t = hp_io_thread();
    if (!t) return hp_hot.io.sendmmsg(fd, v, n, flags);
    struct hp_io_res *res = hp_io_res_of(t, fd);
    uint64_t t0 = hp_io_start(t);
    int r = hp_hot.io.sendmmsg(fd, v, n, flags);
    hp_io_done(t, res, 1, t0, r, r > 0 ? mmsg_bytes(v, r) : 0);
    return r;
}

HP_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *timeout)
{
    EARLY(SYS_recvmmsg, fd, v, n, flags, timeout);
    struct hp_thread *t = hp_io_thread();
    if (!t) return hp_hot.io.recvmmsg(fd, v, n, flags, timeout);
    struct hp_io_res *res = hp_io_res_of(t, fd);
    uint64_t t0 = hp_io_start(t);
    int r = hp_hot.io.recvmmsg(fd, v, n, flags, timeout);
    hp_io_done(t, res, 0, t0, r, r > 0 ? mmsg_bytes(v, r) : 0);
    return r;
}

/* ---- from one descriptor to another: a read on one, a write on the other ---- */

static inline ssize_t both(struct hp_thread *t, struct hp_io_res *in, struct hp_io_res *out,
                           uint64_t t0, ssize_t r)
{
    uint64_t raw, scaled = hp_io_time(t, t0, &raw);
    uint64_t bytes = r > 0 ? (uint64_t)r : 0;
    hp_io_dir_add(t, in, 0, raw, scaled, r < 0 ? 0 : r, bytes);   /* an error counts once: as a write */
    hp_io_dir_add(t, out, 1, raw, scaled, r, bytes);
    return r;
}

#define BETWEEN(IN, OUT, CALL)                                                                  \
    do {                                                                                        \
        struct hp_thread *t_ = hp_io_thread();                                                  \
        if (!t_) return CALL;                                                                   \
        struct hp_io_res *in_ = hp_io_res_of(t_, IN), *out_ = hp_io_res_of(t_, OUT);                    \
        uint64_t t0_ = hp_io_start(t_);                                                         \
        ssize_t r_ = CALL;                                                                      \
        return both(t_, in_, out_, t0_, r_);                                                    \
    } while (0)

HP_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
    EARLY(SYS_sendfile, out, in, off, n);
    BETWEEN(in, out, hp_hot.io.sendfile(out, in, off, n));
}

HP_EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t n)
{
    EARLY(SYS_sendfile, out, in, off, n);
    BETWEEN(in, out, hp_hot.io.sendfile64(out, in, off, n));
}

HP_EXPORT ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n,
                                  unsigned int flags)
{
    EARLY(SYS_copy_file_range, in, in_off, out, out_off, n, flags);
    BETWEEN(in, out, hp_hot.io.copy_file_range(in, in_off, out, out_off, n, flags));
}

HP_EXPORT ssize_t splice(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned int flags)
{
    EARLY(SYS_splice, in, in_off, out, out_off, n, flags);
    BETWEEN(in, out, hp_hot.io.splice(in, in_off, out, out_off, n, flags));
}

/* ---- syncs and seeks ---- */

static inline int synced(struct hp_thread *t, struct hp_io_res *res, uint64_t t0, int r)
{
    uint64_t raw, scaled = hp_io_time(t, t0, &raw);
    atomic_fetch_add_explicit(&res->syncs, 1, memory_order_relaxed);
    if (scaled) atomic_fetch_add_explicit(&res->sync_ticks, scaled, memory_order_relaxed);
    if (r < 0 && hp_io_is_error(errno)) atomic_fetch_add_explicit(&res->wr.errors, 1, memory_order_relaxed);
    return r;
}

HP_EXPORT int fsync(int fd)
{
    EARLY(SYS_fsync, fd);
    struct hp_thread *t = hp_io_thread();
    if (!t) return hp_hot.io.fsync(fd);
    struct hp_io_res *res = hp_io_res_of(t, fd);
    uint64_t t0 = hp_io_start(t);
    return synced(t, res, t0, hp_hot.io.fsync(fd));
}

HP_EXPORT int fdatasync(int fd)
{
    EARLY(SYS_fdatasync, fd);
    struct hp_thread *t = hp_io_thread();
    if (!t) return hp_hot.io.fdatasync(fd);
    struct hp_io_res *res = hp_io_res_of(t, fd);
    uint64_t t0 = hp_io_start(t);
    return synced(t, res, t0, hp_hot.io.fdatasync(fd));
}

static inline void seeked(int fd)
{
    struct hp_thread *t = hp_io_thread();
    if (t) atomic_fetch_add_explicit(&hp_io_res_of(t, fd)->seeks, 1, memory_order_relaxed);
}

HP_EXPORT off_t lseek(int fd, off_t off, int whence)
{
    EARLY(SYS_lseek, fd, off, whence);
    seeked(fd);
    return hp_hot.io.lseek(fd, off, whence);
}

HP_EXPORT off_t lseek64(int fd, off_t off, int whence)
{
    EARLY(SYS_lseek, fd, off, whence);
    seeked(fd);
    return hp_hot.io.lseek64(fd, off, whence);
}
