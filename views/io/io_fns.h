/* io_fns.h — the I/O functions the hooks wrap, as found after libhotpath.so: declared once here
 * (an X-macro list, core/real_lookup.h), looked up by hp_resolve_io in views/io/io_hooks.c, in list
 * order. They live in the hooks' hot page (core/hooks.h: hp_hot.io), in list order. */
#ifndef HP_IO_FNS_H
#define HP_IO_FNS_H

#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "core/real_lookup.h"

struct mmsghdr;   /* <sys/socket.h> declares it only with _GNU_SOURCE */

#define HP_IO_FNS(X, C)                                                                                  \
    /* reads and writes */                                                                               \
    X(C, read,               "read",                 NULL, EAGER, ssize_t, (int, void *, size_t))        \
    X(C, write,              "write",                NULL, EAGER, ssize_t, (int, const void *, size_t))  \
    X(C, pread,              "pread",                NULL, EAGER, ssize_t, (int, void *, size_t, off_t)) \
    X(C, pread64,            "pread64",              NULL, EAGER, ssize_t, (int, void *, size_t, off_t)) \
    X(C, pwrite,             "pwrite",               NULL, EAGER, ssize_t, (int, const void *, size_t, off_t)) \
    X(C, pwrite64,           "pwrite64",             NULL, EAGER, ssize_t, (int, const void *, size_t, off_t)) \
    X(C, readv,              "readv",                NULL, EAGER, ssize_t, (int, const struct iovec *, int)) \
    X(C, writev,             "writev",               NULL, EAGER, ssize_t, (int, const struct iovec *, int)) \
    X(C, preadv,             "preadv",               NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t)) \
    X(C, preadv64,           "preadv64",             NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t)) \
    X(C, pwritev,            "pwritev",              NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t)) \
    X(C, pwritev64,          "pwritev64",            NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t)) \
    X(C, preadv2,            "preadv2",              NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t, int)) \
    X(C, preadv64v2,         "preadv64v2",           NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t, int)) \
    X(C, pwritev2,           "pwritev2",             NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t, int)) \
    X(C, pwritev64v2,        "pwritev64v2",          NULL, EAGER, ssize_t, (int, const struct iovec *, int, off_t, int)) \
    X(C, read_chk,           "__read_chk",           NULL, EAGER, ssize_t, (int, void *, size_t, size_t)) \
    X(C, pread_chk,          "__pread_chk",          NULL, EAGER, ssize_t, (int, void *, size_t, off_t, size_t)) \
    X(C, pread64_chk,        "__pread64_chk",        NULL, EAGER, ssize_t, (int, void *, size_t, off_t, size_t)) \
    /* sockets */                                                                                        \
    X(C, send,               "send",                 NULL, EAGER, ssize_t, (int, const void *, size_t, int)) \
    X(C, recv,               "recv",                 NULL, EAGER, ssize_t, (int, void *, size_t, int))   \
    X(C, sendto,             "sendto",               NULL, EAGER, ssize_t, (int, const void *, size_t, int, const struct sockaddr *, socklen_t)) \
    X(C, recvfrom,           "recvfrom",             NULL, EAGER, ssize_t, (int, void *, size_t, int, struct sockaddr *, socklen_t *)) \
    X(C, sendmsg,            "sendmsg",              NULL, EAGER, ssize_t, (int, const struct msghdr *, int)) \
    X(C, recvmsg,            "recvmsg",              NULL, EAGER, ssize_t, (int, struct msghdr *, int))  \
    X(C, sendmmsg,           "sendmmsg",             NULL, EAGER, int, (int, struct mmsghdr *, unsigned int, int)) \
    X(C, recvmmsg,           "recvmmsg",             NULL, EAGER, int, (int, struct mmsghdr *, unsigned int, int, struct timespec *)) \
    X(C, recv_chk,           "__recv_chk",           NULL, EAGER, ssize_t, (int, void *, size_t, size_t, int)) \
    X(C, recvfrom_chk,       "__recvfrom_chk",       NULL, EAGER, ssize_t, (int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *)) \
    X(C, socket,             "socket",               NULL, EAGER, int, (int, int, int))                  \
    X(C, socketpair,         "socketpair",           NULL, EAGER, int, (int, int, int, int[2]))          \
    X(C, accept,             "accept",               NULL, EAGER, int, (int, struct sockaddr *, socklen_t *)) \
    X(C, accept4,            "accept4",              NULL, EAGER, int, (int, struct sockaddr *, socklen_t *, int)) \
    X(C, connect,            "connect",              NULL, EAGER, int, (int, const struct sockaddr *, socklen_t)) \
    X(C, bind,               "bind",                 NULL, EAGER, int, (int, const struct sockaddr *, socklen_t)) \
    X(C, listen,             "listen",               NULL, EAGER, int, (int, int))                       \
    /* between descriptors */                                                                            \
    X(C, sendfile,           "sendfile",             NULL, EAGER, ssize_t, (int, int, off_t *, size_t))  \
    X(C, sendfile64,         "sendfile64",           NULL, EAGER, ssize_t, (int, int, off_t *, size_t))  \
    X(C, copy_file_range,    "copy_file_range",      NULL, EAGER, ssize_t, (int, off_t *, int, off_t *, size_t, unsigned int)) \
    X(C, splice,             "splice",               NULL, EAGER, ssize_t, (int, off_t *, int, off_t *, size_t, unsigned int)) \
    /* syncs and seeks */                                                                                \
    X(C, fsync,              "fsync",                NULL, EAGER, int, (int))                            \
    X(C, fdatasync,          "fdatasync",            NULL, EAGER, int, (int))                            \
    X(C, lseek,              "lseek",                NULL, EAGER, off_t, (int, off_t, int))              \
    X(C, lseek64,            "lseek64",              NULL, EAGER, off_t, (int, off_t, int))              \
    /* descriptors made and dropped */                                                                   \
    X(C, open,               "open",                 NULL, EAGER, int, (const char *, int, ...))         \
    X(C, open64,             "open64",               NULL, EAGER, int, (const char *, int, ...))         \
    X(C, openat,             "openat",               NULL, EAGER, int, (int, const char *, int, ...))    \
    X(C, openat64,           "openat64",             NULL, EAGER, int, (int, const char *, int, ...))    \
    X(C, creat,              "creat",                NULL, EAGER, int, (const char *, mode_t))           \
    X(C, creat64,            "creat64",              NULL, EAGER, int, (const char *, mode_t))           \
    X(C, open_2,             "__open_2",             NULL, EAGER, int, (const char *, int))              \
    X(C, open64_2,           "__open64_2",           NULL, EAGER, int, (const char *, int))              \
    X(C, openat_2,           "__openat_2",           NULL, EAGER, int, (int, const char *, int))         \
    X(C, openat64_2,         "__openat64_2",         NULL, EAGER, int, (int, const char *, int))         \
    X(C, close,              "close",                NULL, EAGER, int, (int))                            \
    X(C, close_range,        "close_range",          NULL, EAGER, int, (unsigned int, unsigned int, int)) \
    X(C, closefrom,          "closefrom",            NULL, EAGER, void, (int))                           \
    X(C, dup,                "dup",                  NULL, EAGER, int, (int))                            \
    X(C, dup2,               "dup2",                 NULL, EAGER, int, (int, int))                       \
    X(C, dup3,               "dup3",                 NULL, EAGER, int, (int, int, int))                  \
    X(C, fcntl,              "fcntl",                NULL, EAGER, int, (int, int, ...))                  \
    X(C, fcntl64,            "fcntl64",              NULL, EAGER, int, (int, int, ...))                  \
    X(C, pipe,               "pipe",                 NULL, EAGER, int, (int[2]))                         \
    X(C, pipe2,              "pipe2",                NULL, EAGER, int, (int[2], int))                    \
    /* stdio */                                                                                          \
    X(C, fopen,              "fopen",                NULL, EAGER, FILE *, (const char *, const char *))  \
    X(C, fopen64,            "fopen64",              NULL, EAGER, FILE *, (const char *, const char *))  \
    X(C, freopen,            "freopen",              NULL, EAGER, FILE *, (const char *, const char *, FILE *)) \
    X(C, freopen64,          "freopen64",            NULL, EAGER, FILE *, (const char *, const char *, FILE *)) \
    X(C, fdopen,             "fdopen",               NULL, EAGER, FILE *, (int, const char *))           \
    X(C, fclose,             "fclose",               NULL, EAGER, int, (FILE *))                         \
    X(C, fread,              "fread",                NULL, EAGER, size_t, (void *, size_t, size_t, FILE *)) \
    X(C, fread_unlocked,     "fread_unlocked",       NULL, EAGER, size_t, (void *, size_t, size_t, FILE *)) \
    X(C, fread_chk,          "__fread_chk",          NULL, EAGER, size_t, (void *, size_t, size_t, size_t, FILE *)) \
    X(C, fread_unlocked_chk, "__fread_unlocked_chk", NULL, EAGER, size_t, (void *, size_t, size_t, size_t, FILE *)) \
    X(C, fwrite,             "fwrite",               NULL, EAGER, size_t, (const void *, size_t, size_t, FILE *)) \
    X(C, fwrite_unlocked,    "fwrite_unlocked",      NULL, EAGER, size_t, (const void *, size_t, size_t, FILE *)) \
    X(C, fgets,              "fgets",                NULL, EAGER, char *, (char *, int, FILE *))         \
    X(C, fgets_unlocked,     "fgets_unlocked",       NULL, EAGER, char *, (char *, int, FILE *))         \
    X(C, fgets_chk,          "__fgets_chk",          NULL, EAGER, char *, (char *, size_t, int, FILE *)) \
    X(C, fgets_unlocked_chk, "__fgets_unlocked_chk", NULL, EAGER, char *, (char *, size_t, int, FILE *)) \
    X(C, fputs,              "fputs",                NULL, EAGER, int, (const char *, FILE *))           \
    X(C, fputs_unlocked,     "fputs_unlocked",       NULL, EAGER, int, (const char *, FILE *))           \
    X(C, puts,               "puts",                 NULL, EAGER, int, (const char *))                   \
    X(C, fputc,              "fputc",                NULL, EAGER, int, (int, FILE *))                    \
    X(C, putc,               "putc",                 NULL, EAGER, int, (int, FILE *))                    \
    X(C, putchar,            "putchar",              NULL, EAGER, int, (int))                            \
    X(C, vfprintf,           "vfprintf",             NULL, EAGER, int, (FILE *, const char *, va_list))  \
    X(C, vfprintf_chk,       "__vfprintf_chk",       NULL, EAGER, int, (FILE *, int, const char *, va_list)) \
    X(C, vdprintf,           "vdprintf",             NULL, EAGER, int, (int, const char *, va_list))     \
    X(C, vdprintf_chk,       "__vdprintf_chk",       NULL, EAGER, int, (int, int, const char *, va_list)) \
    X(C, getline,            "getline",              NULL, EAGER, ssize_t, (char **, size_t *, FILE *))  \
    X(C, getdelim,           "getdelim",             NULL, EAGER, ssize_t, (char **, size_t *, int, FILE *)) \
    X(C, getdelim_internal,  "__getdelim",           NULL, EAGER, ssize_t, (char **, size_t *, int, FILE *)) \
    X(C, fflush,             "fflush",               NULL, EAGER, int, (FILE *))                         \
    X(C, fseek,              "fseek",                NULL, EAGER, int, (FILE *, long, int))              \
    X(C, fseeko,             "fseeko",               NULL, EAGER, int, (FILE *, off_t, int))             \
    X(C, fseeko64,           "fseeko64",             NULL, EAGER, int, (FILE *, off_t, int))             \
    /* descriptors other families make: only forgotten, named when first used */                         \
    X(C, eventfd,            "eventfd",              NULL, EAGER, int, (unsigned int, int))              \
    X(C, epoll_create1,      "epoll_create1",        NULL, EAGER, int, (int))                            \
    X(C, timerfd_create,     "timerfd_create",       NULL, EAGER, int, (int, int))                       \
    X(C, signalfd,           "signalfd",             NULL, EAGER, int, (int, const void *, int))         \
    X(C, memfd_create,       "memfd_create",         NULL, EAGER, int, (const char *, unsigned int))     \
    X(C, inotify_init1,      "inotify_init1",        NULL, EAGER, int, (int))                            \
    /* libunwind's address checks (own_pipe.h) */                                                        \
    X(C, syscall,            "syscall",              NULL, EAGER, long, (long, ...))

struct hp_io_real {
    HP_REAL_FIELDS(HP_IO_FNS)
};

#endif
