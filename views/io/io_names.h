/* io_names.h — how the I/O view names a file, socket or pipe, and which instances merge into one
 * row. Pure functions over their arguments (no syscalls), so the unit tests drive them directly:
 *   a file      its path as opened, relative paths made absolute          /var/lib/x.db
 *   a socket    tcp 127.0.0.1:41234 -> 127.0.0.1:6379, tcp listen 0.0.0.0:8080, udp 0.0.0.0:53,
 *               unix /run/x.sock, unix listen /run/x.sock, unix socketpair
 *   a pipe      pipe; standard streams stdin, stdout, stderr; else fd N (kind)
 * Each instance has its own name; instances merge on a pattern where the short-lived part (the
 * ephemeral port of a connection) is `*`: 5,000 accepted connections from 127.0.0.1 make one row
 * `tcp 127.0.0.1:* -> 127.0.0.1:8080` (accepted). */
#ifndef HP_IO_NAMES_H
#define HP_IO_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define HP_IO_NAME_MAX 1100

enum hp_io_kind {
    HP_IO_FILE, HP_IO_DIR, HP_IO_PIPE, HP_IO_FIFO, HP_IO_TCP, HP_IO_UDP, HP_IO_UNIX,
    HP_IO_SOCKET, HP_IO_TTY, HP_IO_CHAR, HP_IO_BLOCK, HP_IO_ANON, HP_IO_OTHER, HP_IO_KINDS
};
/* "file", "dir", "pipe", "fifo", "tcp", "udp", "unix", "socket", "tty", "char", "block", "anon",
 * "other" */
extern const char *const hp_io_kind_names[HP_IO_KINDS];

/* How a socket came to be what it is. */
enum hp_io_role {
    HP_IO_CONNECTED,     /* connect(), or found with a peer */
    HP_IO_ACCEPTED,      /* accept(): named by its peer, merged per listener */
    HP_IO_LISTENING,     /* listen() */
    HP_IO_UNCONNECTED,   /* no peer: a bound or unbound datagram socket */
    HP_IO_PAIR,          /* socketpair() */
};

struct hp_io_name {
    char name[HP_IO_NAME_MAX];     /* this instance */
    char pattern[HP_IO_NAME_MAX];  /* the row it merges into (same as name for most) */
    unsigned char kind;            /* enum hp_io_kind */
    unsigned char accepted;        /* a connection accepted by a listener of this process */
};

/* path made absolute against cwd (when relative), with `.`, `..` and repeated `/` resolved
 * lexically; an absolute path is kept as given. 0, or -1 when it does not fit. */
int hp_io_abs_path(const char *cwd, const char *path, char *out, size_t size);

/* "127.0.0.1:8080", "[::1]:8080", "/run/x.sock", "@abstract" (a Linux abstract unix address), ""
 * for an unnamed unix socket; star_port writes the port as `*`. "?" for an unknown family. */
void hp_io_format_addr(const struct sockaddr *sa, socklen_t len, int star_port, char *out,
                       size_t size);

/* A socket of this family and type (SOCK_STREAM, SOCK_DGRAM, ...); peer may be NULL. */
void hp_io_name_socket(struct hp_io_name *n, int fd, int family, int type, enum hp_io_role role,
                       const struct sockaddr *local, socklen_t local_len,
                       const struct sockaddr *peer, socklen_t peer_len);

/* A path that was opened (already absolute), of a kind. */
void hp_io_name_path(struct hp_io_name *n, const char *path, enum hp_io_kind kind);

/* A descriptor found open (inherited, or created where no hook saw it), from its st_mode and its
 * /proc/self/fd link ("/tmp/x", "pipe:[123]", "anon_inode:[eventfd]", "/dev/pts/3"). fds 0, 1
 * and 2 are named stdin, stdout and stderr. Sockets go through hp_io_name_socket instead. */
void hp_io_name_found(struct hp_io_name *n, int fd, unsigned mode, const char *link);

/* The kind of a character device path: tty for terminals, char otherwise. */
enum hp_io_kind hp_io_char_kind(const char *path);

/* The key a row is found by: its pattern, accepted rows apart; with iter (HOTPATH_IO_ITER), every
 * instance apart (seq numbers the instances). 0, or -1 when it does not fit. */
int hp_io_key(const struct hp_io_name *n, int iter, uint64_t seq, char *out, size_t size);

/* FNV-1a of a key. */
uint32_t hp_io_hash(const char *key);

#endif
