/* io_raw.c — the plain data calls of a single-threaded program, which the I/O hooks make with the
 * syscall instruction themselves (views/io/io_raw.h), and what changes once a thread exists.
 * Prints every call's result and errno: under the preload, stdout must be byte for byte the same
 * as bare. Built with _FORTIFY_SOURCE, so calls with a known buffer size go to __read_chk,
 * __pread_chk, __recv_chk and __recvfrom_chk; the plain functions are called through pointers.
 *
 *   io_raw            the single-threaded calls, then a thread cancelled while blocked in read
 *   io_raw selfcancel the single-threaded calls, then main cancels itself and reads: it ends there
 *   io_raw handler PATH  a SIGALRM handler writes one byte to PATH every 200 us while main
 *                     writes to /dev/null; prints "handler writes N"
 *   io_raw c11cancel  a C11 thread (thrd_create: glibc starts it without pthread_create's symbol)
 *                     cancels main while main is blocked in read: main ends there, status 0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static ssize_t (*volatile rd)(int, void *, size_t) = read;
static ssize_t (*volatile wr)(int, const void *, size_t) = write;
static ssize_t (*volatile prd)(int, void *, size_t, off_t) = pread;
static ssize_t (*volatile rcv)(int, void *, size_t, int) = recv;
static ssize_t (*volatile rcvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *) = recvfrom;

static char line[256];
/* sizes the compiler cannot see: a fortified call with one goes to the _chk function */
static volatile size_t n8 = 8, n64 = 64;
static volatile int minus_one = -1;

/* One line per call, straight to fd 1 (no stdio buffer to differ at exit). */
static void say(const char *what, long r)
{
    int n = snprintf(line, sizeof line, "%s = %ld%s%s\n", what, r, r < 0 ? " errno " : "",
                     r < 0 ? strerrorname_np(errno) : "");
    if (wr(1, line, (size_t)n) != n) exit(3);
}

static void on_alarm(int sig)
{
    (void)sig;
}

static void interrupted_read(int restart)
{
    int p[2];
    if (pipe(p) != 0) exit(2);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 0 }, { 0, 50000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    char c;
    if (restart) {
        /* the read restarts after the handler; a second timer's handler cannot write, so the
         * data comes from a child */
        pid_t pid = fork();
        if (pid == 0) {
            usleep(150000);
            if (wr(p[1], "r", 1) != 1) _exit(1);
            _exit(0);
        }
        say("read restarted after SIGALRM", rd(p[0], &c, 1));
    } else {
        say("read interrupted by SIGALRM", rd(p[0], &c, 1));
    }
    close(p[0]);
    close(p[1]);
}

static void single_threaded_calls(void)
{
    char buf[64], big[4096];
    memset(big, 'x', sizeof big);
    char path[] = "/tmp/hp_io_raw_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) exit(2);
    unlink(path);

    say("write 4096", wr(fd, big, sizeof big));
    say("pwrite 10 at 100", pwrite(fd, "0123456789", 10, 100));
    say("pread 10 at 100", prd(fd, buf, 10, 100));
    say("__pread_chk 8 at 104", pread(fd, buf, n8, 104));
    struct iovec iov[2] = { { buf, 5 }, { buf + 5, 7 } };
    say("readv at end", readv(fd, iov, 2));
    lseek(fd, 0, SEEK_SET);
    say("readv 12", readv(fd, iov, 2));
    say("writev 12", writev(fd, iov, 2));
    say("readv iovcnt -1", readv(fd, iov, minus_one));
    say("read bad buffer", rd(fd, (void *)8, 16));
    say("write bad buffer", wr(fd, (void *)8, 16));
    say("__read_chk 64", read(fd, buf, n64));
    close(fd);
    say("read closed fd", rd(fd, buf, 1));
    say("write closed fd", wr(fd, buf, 1));
    say("read fd -1", rd(-1, buf, 1));

    int dir = open("/tmp", O_RDONLY | O_DIRECTORY);
    say("read a directory", rd(dir, buf, 1));
    say("send on a directory", send(dir, buf, 1, 0));
    close(dir);

    int p[2];
    if (pipe2(p, O_NONBLOCK) != 0) exit(2);
    say("read empty nonblocking pipe", rd(p[0], buf, 1));
    say("pread on a pipe", prd(p[0], buf, 1, 0));
    say("pwrite on a pipe", pwrite(p[1], "a", 1, 0));
    say("write pipe", wr(p[1], "abc", 3));
    say("read pipe 0 bytes", rd(p[0], buf, 0));
    say("read pipe", rd(p[0], buf, 3));
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    say("write pipe without reader", wr(p[1], "a", 1));
    close(p[1]);

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) exit(2);
    say("send 5", send(sv[0], "hello", 5, 0));
    say("recv peek", rcv(sv[1], buf, 5, MSG_PEEK));
    say("__recv_chk 64", recv(sv[1], buf, n64, 0));
    say("recv dontwait empty", rcv(sv[1], buf, 5, MSG_DONTWAIT));
    say("sendto on stream with address", sendto(sv[0], "x", 1, 0, NULL, 0));
    say("recvfrom", rcvfrom(sv[1], buf, 5, 0, NULL, NULL));
    say("send bad flags", send(sv[0], "x", 1, 0x7fffffff));
    close(sv[0]);
    close(sv[1]);

    int u = socket(AF_INET, SOCK_DGRAM, 0), v = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t alen = sizeof a;
    bind(v, (struct sockaddr *)&a, sizeof a);
    getsockname(v, (struct sockaddr *)&a, &alen);
    say("udp sendto", sendto(u, "datagram", 8, 0, (struct sockaddr *)&a, sizeof a));
    struct sockaddr_in from;
    socklen_t flen = sizeof from;
    say("__recvfrom_chk", recvfrom(v, buf, n64, 0, (struct sockaddr *)&from, &flen));
    say("  from loopback", from.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
    say("udp send unconnected", send(u, "x", 1, 0));
    close(u);
    close(v);

    interrupted_read(0);
    interrupted_read(1);
}

static void *blocked_reader(void *arg)
{
    int fd = *(int *)arg;
    char c;
    rd(fd, &c, 1);   /* nothing is ever written: only cancellation ends it */
    return NULL;
}

static int handler_fd;
static volatile long handler_writes;

static void write_from_handler(int sig)
{
    (void)sig;
    if (wr(handler_fd, "h", 1) == 1) handler_writes++;
}

static int writes_in_a_handler(const char *path)
{
    handler_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = open("/dev/null", O_WRONLY);
    if (handler_fd < 0 || null < 0) return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = write_from_handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 200 }, { 0, 200 } };
    setitimer(ITIMER_REAL, &it, NULL);
    for (int i = 0; i < 300000; i++)
        if (wr(null, "mm", 2) != 2) return 3;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    printf("handler writes %ld\n", handler_writes);
    return 0;
}

static pthread_t main_thread;

static int c11_canceller(void *arg)
{
    (void)arg;
    struct timespec pause = { 0, 200000000 };
    nanosleep(&pause, NULL);   /* main is blocked in its read by now */
    pthread_cancel(main_thread);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "handler") == 0) return writes_in_a_handler(argv[2]);
    single_threaded_calls();
    int p[2];
    if (pipe(p) != 0) return 2;
    if (argc > 1 && strcmp(argv[1], "c11cancel") == 0) {
        main_thread = pthread_self();
        thrd_t t;
        thrd_create(&t, c11_canceller, NULL);
        char c;
        say("main read returned", rd(p[0], &c, 1));   /* not reached: cancelled */
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "selfcancel") == 0) {
        say("cancel self", pthread_cancel(pthread_self()));
        char c;
        rd(p[0], &c, 1);   /* a cancellation point: the main thread ends here, status 0 */
        say("not reached", 1);
        return 1;
    }
    pthread_t t;
    pthread_create(&t, NULL, blocked_reader, &p[0]);
    usleep(100000);
    say("cancel blocked reader", pthread_cancel(t));
    void *res;
    pthread_join(t, &res);
    say("reader cancelled", res == PTHREAD_CANCELED);
    return 0;
}
