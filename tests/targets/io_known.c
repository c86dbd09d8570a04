/* io_known.c — I/O of known amounts for the I/O view's tests (tests/integration/test_io.py).
 *
 *   io_known file PATH       10 MiB written in 4 KiB write(2)s, fsync, read back with fread
 *   io_known tcp             echo over 127.0.0.1: a server thread echoes what a client sends
 *   io_known unixpair        socketpair(AF_UNIX): 3000 bytes one way, 5000 the other
 *   io_known pipe            a pipe between two threads: 64 KiB
 *   io_known stdout          1234 bytes written to fd 1 (the test redirects it to a file)
 *   io_known sendfile PATH   sendfile of a 1 MiB file into a connected TCP socket
 *   io_known many N          N short connections to one listener, 10 bytes each way
 *   io_known errors          read on a closed fd (EBADF), nonblocking read of an empty pipe (EAGAIN)
 *   io_known dup PATH        dup2 of a file onto stdout, then an fd closed and reused for PATH.2
 *   io_known closeall PATH   close every descriptor from 3 up, then open files
 *
 * Prints "truth KEY VALUE" lines the test compares with the report; exits 1 on a failed check. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what)
{
    fprintf(stderr, "io_known: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void truth(const char *key, long long v)
{
    printf("truth %s %lld\n", key, v);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("write");
        p += w;
        n -= (size_t)w;
    }
}

/* reads exactly n bytes (fewer at EOF); returns what was read */
static size_t read_full(int fd, char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) die("read");
        if (r == 0) break;
        got += (size_t)r;
    }
    return got;
}

/* ---- file: the 10 MiB round trip ---- */

static int file_test(const char *path)
{
    static char block[4096];
    memset(block, 'a', sizeof block);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die("open");
    for (int i = 0; i < 2560; i++) write_all(fd, block, sizeof block);
    if (fsync(fd) != 0) die("fsync");
    close(fd);
    FILE *f = fopen(path, "rb");
    if (!f) die("fopen");
    size_t total = 0, got;
    static char buf[65536];
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) total += got;
    fclose(f);
    truth("bytes", (long long)total);
    return total == 10485760 ? 0 : 1;
}

/* ---- TCP ---- */

static int listener(struct sockaddr_in *addr)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) die("socket");
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)addr, sizeof *addr) != 0) die("bind");
    if (listen(s, 1024) != 0) die("listen");
    socklen_t len = sizeof *addr;
    getsockname(s, (struct sockaddr *)addr, &len);
    return s;
}

static int dial(const struct sockaddr_in *addr)
{
    int c = socket(AF_INET, SOCK_STREAM, 0);
    if (c < 0) die("socket");
    if (connect(c, (const struct sockaddr *)addr, sizeof *addr) != 0) die("connect");
    return c;
}

static void *echo_server(void *arg)
{
    int s = *(int *)arg;
    int c = accept(s, NULL, NULL);
    if (c < 0) die("accept");
    char buf[8192];
    for (;;) {
        ssize_t r = recv(c, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) die("recv");
        if (r == 0) break;
        for (ssize_t off = 0; off < r;) {
            ssize_t w = send(c, buf + off, (size_t)(r - off), 0);
            if (w < 0) die("send");
            off += w;
        }
    }
    close(c);
    return NULL;
}

static int tcp_test(void)
{
    struct sockaddr_in addr;
    int s = listener(&addr);
    pthread_t th;
    pthread_create(&th, NULL, echo_server, &s);
    int c = dial(&addr);
    struct sockaddr_in local;
    socklen_t len = sizeof local;
    getsockname(c, (struct sockaddr *)&local, &len);
    static char out[100000], in[100000];
    for (size_t i = 0; i < sizeof out; i++) out[i] = (char)i;
    long long sent = 0, received = 0;
    for (int round = 0; round < 10; round++) {
        write_all(c, out, sizeof out);
        sent += (long long)sizeof out;
        received += (long long)read_full(c, in, sizeof in);
    }
    shutdown(c, SHUT_WR);
    pthread_join(th, NULL);
    close(c);
    close(s);
    truth("port", ntohs(addr.sin_port));
    truth("client_port", ntohs(local.sin_port));
    truth("sent", sent);
    truth("received", received);
    return sent == received ? 0 : 1;
}

/* ---- a Unix socket pair ---- */

static int unixpair_test(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) die("socketpair");
    char buf[5000];
    memset(buf, 'u', sizeof buf);
    write_all(sv[0], buf, 3000);
    size_t a = read_full(sv[1], buf, 3000);
    write_all(sv[1], buf, 5000);
    size_t b = read_full(sv[0], buf, 5000);
    close(sv[0]);
    close(sv[1]);
    truth("bytes", (long long)(a + b));
    return a + b == 8000 ? 0 : 1;
}

/* ---- a pipe between two threads ---- */

static int pipe_fds[2];

static void *pipe_writer(void *arg)
{
    (void)arg;
    static char buf[65536];
    memset(buf, 'p', sizeof buf);
    write_all(pipe_fds[1], buf, sizeof buf);
    close(pipe_fds[1]);
    return NULL;
}

static int pipe_test(void)
{
    if (pipe(pipe_fds) != 0) die("pipe");
    pthread_t th;
    pthread_create(&th, NULL, pipe_writer, NULL);
    static char buf[65536];
    size_t got = read_full(pipe_fds[0], buf, sizeof buf);
    pthread_join(th, NULL);
    close(pipe_fds[0]);
    truth("bytes", (long long)got);
    return got == 65536 ? 0 : 1;
}

/* ---- stdout (redirected by the test) ---- */

static int stdout_test(void)
{
    char buf[1234];
    memset(buf, 's', sizeof buf);
    write_all(1, buf, sizeof buf);
    return 0;
}

/* ---- sendfile from a file into a socket ---- */

static void *drain(void *arg)
{
    int s = *(int *)arg;
    int c = accept(s, NULL, NULL);
    if (c < 0) die("accept");
    char buf[65536];
    long long total = 0;
    ssize_t r;
    while ((r = read(c, buf, sizeof buf)) > 0) total += r;
    close(c);
    *(int *)arg = (int)total;
    return NULL;
}

static int sendfile_test(const char *path)
{
    static char block[65536];
    memset(block, 'f', sizeof block);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die("open");
    for (int i = 0; i < 16; i++) write_all(fd, block, sizeof block);
    lseek(fd, 0, SEEK_SET);
    struct sockaddr_in addr;
    int s = listener(&addr), arg = s;
    pthread_t th;
    pthread_create(&th, NULL, drain, &arg);
    int c = dial(&addr);
    long long sent = 0;
    while (sent < 1048576) {
        ssize_t r = sendfile(c, fd, NULL, (size_t)(1048576 - sent));
        if (r <= 0) die("sendfile");
        sent += r;
    }
    close(c);
    pthread_join(th, NULL);
    close(s);
    close(fd);
    truth("port", ntohs(addr.sin_port));
    truth("sent", sent);
    truth("drained", arg);
    return sent == arg ? 0 : 1;
}

/* ---- many short connections ---- */

struct many { int s, n; };

static void *many_server(void *arg)
{
    struct many *m = arg;
    char buf[10];
    for (int i = 0; i < m->n; i++) {
        int c = accept(m->s, NULL, NULL);
        if (c < 0) die("accept");
        if (read_full(c, buf, sizeof buf) != sizeof buf) die("short read");
        write_all(c, buf, sizeof buf);
        close(c);
    }
    return NULL;
}

static int many_test(int n)
{
    struct sockaddr_in addr;
    struct many m = { listener(&addr), n };
    pthread_t th;
    pthread_create(&th, NULL, many_server, &m);
    char buf[10] = "0123456789";
    for (int i = 0; i < n; i++) {
        int c = dial(&addr);
        write_all(c, buf, sizeof buf);
        if (read_full(c, buf, sizeof buf) != sizeof buf) die("short echo");
        close(c);
    }
    pthread_join(th, NULL);
    close(m.s);
    truth("port", ntohs(addr.sin_port));
    truth("connections", n);
    return 0;
}

/* ---- errors ---- */

static int errors_test(void)
{
    int fd = open("/dev/null", O_RDONLY);
    close(fd);
    char c;
    errno = 0;
    ssize_t r = read(fd, &c, 1);
    int ebadf = r == -1 && errno == EBADF;
    int p[2];
    if (pipe2(p, O_NONBLOCK) != 0) die("pipe2");
    errno = 0;
    r = read(p[0], &c, 1);
    int eagain = r == -1 && errno == EAGAIN;
    truth("badfd", fd);
    truth("ebadf", ebadf);
    truth("eagain", eagain);
    return ebadf && eagain ? 0 : 1;
}

/* ---- dup2 onto stdout, and a number reused ---- */

static int dup_test(const char *path)
{
    char second[4096];
    snprintf(second, sizeof second, "%s.2", path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die("open");
    int saved = dup(1);
    if (dup2(fd, 1) != 1) die("dup2");
    write_all(1, "0123456789", 10);                 /* to path, through fd 1 */
    write_all(fd, "abc", 3);                        /* to path */
    dup2(saved, 1);
    close(saved);
    close(fd);
    int fd2 = open(second, O_WRONLY | O_CREAT | O_TRUNC, 0600);   /* the same number again */
    if (fd2 < 0) die("open 2");
    write_all(fd2, "xyzxyzx", 7);
    close(fd2);
    truth("same_number", fd == fd2);
    return fd == fd2 ? 0 : 1;
}

/* ---- a daemon closing everything ---- */

static int closeall_test(const char *path)
{
    closefrom(3);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) die("open");
    write_all(fd, "daemon", 6);
    int fd2 = open("/dev/null", O_WRONLY);
    write_all(fd2, "xx", 2);
    truth("first_fd", fd);
    truth("second_fd", fd2);
    close(fd);
    close(fd2);
    return fd == 3 && fd2 == 4 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *mode = argv[1], *arg = argc > 2 ? argv[2] : "";
    int r;
    if (strcmp(mode, "file") == 0) r = file_test(arg);
    else if (strcmp(mode, "tcp") == 0) r = tcp_test();
    else if (strcmp(mode, "unixpair") == 0) r = unixpair_test();
    else if (strcmp(mode, "pipe") == 0) r = pipe_test();
    else if (strcmp(mode, "stdout") == 0) r = stdout_test();
    else if (strcmp(mode, "sendfile") == 0) r = sendfile_test(arg);
    else if (strcmp(mode, "many") == 0) r = many_test(atoi(arg));
    else if (strcmp(mode, "errors") == 0) r = errors_test();
    else if (strcmp(mode, "dup") == 0) r = dup_test(arg);
    else if (strcmp(mode, "closeall") == 0) r = closeall_test(arg);
    else return 2;
    fflush(stdout);
    return r;
}
