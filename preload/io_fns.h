/* io_fns.h — the I/O functions the hooks wrap, as found after libhotpath.so (dlsym RTLD_NEXT, by
 * hp_resolve_io in preload/io.c). They live in the hooks' hot page (real.h: hp_hot.io). */
#ifndef HP_IO_FNS_H
#define HP_IO_FNS_H

#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

struct mmsghdr;   /* <sys/socket.h> declares it only with _GNU_SOURCE */

struct hp_io_real {
    /* reads and writes */
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*pread)(int, void *, size_t, off_t);
    ssize_t (*pread64)(int, void *, size_t, off_t);
    ssize_t (*pwrite)(int, const void *, size_t, off_t);
    ssize_t (*pwrite64)(int, const void *, size_t, off_t);
    ssize_t (*readv)(int, const struct iovec *, int);
    ssize_t (*writev)(int, const struct iovec *, int);
    ssize_t (*preadv)(int, const struct iovec *, int, off_t);
    ssize_t (*preadv64)(int, const struct iovec *, int, off_t);
    ssize_t (*pwritev)(int, const struct iovec *, int, off_t);
    ssize_t (*pwritev64)(int, const struct iovec *, int, off_t);
    ssize_t (*preadv2)(int, const struct iovec *, int, off_t, int);
    ssize_t (*preadv64v2)(int, const struct iovec *, int, off_t, int);
    ssize_t (*pwritev2)(int, const struct iovec *, int, off_t, int);
    ssize_t (*pwritev64v2)(int, const struct iovec *, int, off_t, int);
    ssize_t (*read_chk)(int, void *, size_t, size_t);
    ssize_t (*pread_chk)(int, void *, size_t, off_t, size_t);
    ssize_t (*pread64_chk)(int, void *, size_t, off_t, size_t);
    /* sockets */
    ssize_t (*send)(int, const void *, size_t, int);
    ssize_t (*recv)(int, void *, size_t, int);
    ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
    ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
    ssize_t (*sendmsg)(int, const struct msghdr *, int);
    ssize_t (*recvmsg)(int, struct msghdr *, int);
    int (*sendmmsg)(int, struct mmsghdr *, unsigned int, int);
    int (*recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
    ssize_t (*recv_chk)(int, void *, size_t, size_t, int);
    ssize_t (*recvfrom_chk)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *);
    int (*socket)(int, int, int);
    int (*socketpair)(int, int, int, int[2]);
    int (*accept)(int, struct sockaddr *, socklen_t *);
    int (*accept4)(int, struct sockaddr *, socklen_t *, int);
    int (*connect)(int, const struct sockaddr *, socklen_t);
    int (*bind)(int, const struct sockaddr *, socklen_t);
    int (*listen)(int, int);
    /* between descriptors */
    ssize_t (*sendfile)(int, int, off_t *, size_t);
    ssize_t (*sendfile64)(int, int, off_t *, size_t);
    ssize_t (*copy_file_range)(int, off_t *, int, off_t *, size_t, unsigned int);
    ssize_t (*splice)(int, off_t *, int, off_t *, size_t, unsigned int);
    /* syncs and seeks */
    int (*fsync)(int);
    int (*fdatasync)(int);
    off_t (*lseek)(int, off_t, int);
    off_t (*lseek64)(int, off_t, int);
    /* descriptors made and dropped */
    int (*open)(const char *, int, ...);
    int (*open64)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*openat64)(int, const char *, int, ...);
    int (*creat)(const char *, mode_t);
    int (*creat64)(const char *, mode_t);
    int (*open_2)(const char *, int);
    int (*open64_2)(const char *, int);
    int (*openat_2)(int, const char *, int);
    int (*openat64_2)(int, const char *, int);
    int (*close)(int);
    int (*close_range)(unsigned int, unsigned int, int);
    void (*closefrom)(int);
    int (*dup)(int);
    int (*dup2)(int, int);
    int (*dup3)(int, int, int);
    int (*fcntl)(int, int, ...);
    int (*fcntl64)(int, int, ...);
    int (*pipe)(int[2]);
    int (*pipe2)(int[2], int);
    /* stdio */
    FILE *(*fopen)(const char *, const char *);
    FILE *(*fopen64)(const char *, const char *);
    FILE *(*freopen)(const char *, const char *, FILE *);
    FILE *(*freopen64)(const char *, const char *, FILE *);
    FILE *(*fdopen)(int, const char *);
    int (*fclose)(FILE *);
    size_t (*fread)(void *, size_t, size_t, FILE *);
    size_t (*fread_unlocked)(void *, size_t, size_t, FILE *);
    size_t (*fread_chk)(void *, size_t, size_t, size_t, FILE *);
    size_t (*fread_unlocked_chk)(void *, size_t, size_t, size_t, FILE *);
    size_t (*fwrite)(const void *, size_t, size_t, FILE *);
    size_t (*fwrite_unlocked)(const void *, size_t, size_t, FILE *);
    char *(*fgets)(char *, int, FILE *);
    char *(*fgets_unlocked)(char *, int, FILE *);
    char *(*fgets_chk)(char *, size_t, int, FILE *);
    char *(*fgets_unlocked_chk)(char *, size_t, int, FILE *);
    int (*fputs)(const char *, FILE *);
    int (*fputs_unlocked)(const char *, FILE *);
    int (*puts)(const char *);
    int (*fputc)(int, FILE *);
    int (*putc)(int, FILE *);
    int (*putchar)(int);
    int (*vfprintf)(FILE *, const char *, va_list);
    int (*vfprintf_chk)(FILE *, int, const char *, va_list);
    int (*vdprintf)(int, const char *, va_list);
    int (*vdprintf_chk)(int, int, const char *, va_list);
    ssize_t (*getline)(char **, size_t *, FILE *);
    ssize_t (*getdelim)(char **, size_t *, int, FILE *);
    ssize_t (*getdelim_internal)(char **, size_t *, int, FILE *);   /* __getdelim */
    int (*fflush)(FILE *);
    int (*fseek)(FILE *, long, int);
    int (*fseeko)(FILE *, off_t, int);
    int (*fseeko64)(FILE *, off_t, int);
    /* descriptors other families make: only forgotten, named when first used */
    int (*eventfd)(unsigned int, int);
    int (*epoll_create1)(int);
    int (*timerfd_create)(int, int);
    int (*signalfd)(int, const void *, int);
    int (*memfd_create)(const char *, unsigned int);
    int (*inotify_init1)(int);
    /* libunwind's address checks (own_pipe.h) */
    long (*syscall)(long, ...);
};

#endif
