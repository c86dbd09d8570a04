/* test_io_names.c — views/io/io_names.h: how the I/O view names files, sockets and pipes, and
 * which instances merge into one row. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "views/io/io_names.h"
#include "unit.h"

static struct sockaddr_in in4(const char *ip, unsigned port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static struct sockaddr_in6 in6(const char *ip, unsigned port)
{
    struct sockaddr_in6 a;
    memset(&a, 0, sizeof a);
    a.sin6_family = AF_INET6;
    a.sin6_port = htons((uint16_t)port);
    inet_pton(AF_INET6, ip, &a.sin6_addr);
    return a;
}

static socklen_t un(struct sockaddr_un *a, const char *path, size_t len)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path, path, len);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
}

#define SA(x) ((const struct sockaddr *)&(x))

/* ---- paths ---- */

START_TEST(abs_path)
{
    char out[256];
    ck_assert_int_eq(hp_io_abs_path("/home/u", "/etc/passwd", out, sizeof out), 0);
    ck_assert_str_eq(out, "/etc/passwd");                     /* absolute: as opened */
    ck_assert_int_eq(hp_io_abs_path("/home/u", "data.db", out, sizeof out), 0);
    ck_assert_str_eq(out, "/home/u/data.db");
    ck_assert_int_eq(hp_io_abs_path("/home/u/", "./a//b/../c", out, sizeof out), 0);
    ck_assert_str_eq(out, "/home/u/a/c");
    ck_assert_int_eq(hp_io_abs_path("/home/u", "../../../x", out, sizeof out), 0);
    ck_assert_str_eq(out, "/x");                             /* cannot go above / */
    ck_assert_int_eq(hp_io_abs_path("/", "x", out, sizeof out), 0);
    ck_assert_str_eq(out, "/x");
    ck_assert_int_eq(hp_io_abs_path("/home/u", ".", out, sizeof out), 0);
    ck_assert_str_eq(out, "/home/u");
    ck_assert_int_eq(hp_io_abs_path("", "rel", out, sizeof out), 0);   /* no cwd known */
    ck_assert_str_eq(out, "rel");
}
END_TEST

START_TEST(abs_path_too_long)
{
    char out[16];
    ck_assert_int_eq(hp_io_abs_path("/a/very/long/dir", "file.txt", out, sizeof out), -1);
    ck_assert_int_eq(hp_io_abs_path("/a", "/a/path/longer/than/16", out, sizeof out), -1);
    ck_assert_int_eq(hp_io_abs_path("/a", "b", out, sizeof out), 0);
    ck_assert_str_eq(out, "/a/b");
}
END_TEST

/* ---- addresses ---- */

START_TEST(format_addresses)
{
    char out[128];
    struct sockaddr_in a = in4("127.0.0.1", 6379);
    hp_io_format_addr(SA(a), sizeof a, 0, out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1:6379");
    hp_io_format_addr(SA(a), sizeof a, 1, out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1:*");
    struct sockaddr_in6 b = in6("::1", 8080);
    hp_io_format_addr(SA(b), sizeof b, 0, out, sizeof out);
    ck_assert_str_eq(out, "[::1]:8080");
    struct sockaddr_un u;
    socklen_t len = un(&u, "/run/x.sock", 12);
    hp_io_format_addr(SA(u), len, 0, out, sizeof out);
    ck_assert_str_eq(out, "/run/x.sock");
    len = un(&u, "\0abstract", 9);
    hp_io_format_addr(SA(u), len, 0, out, sizeof out);
    ck_assert_str_eq(out, "@abstract");
    len = un(&u, "", 0);
    hp_io_format_addr(SA(u), len, 0, out, sizeof out);
    ck_assert_str_eq(out, "");
    hp_io_format_addr(NULL, 0, 0, out, sizeof out);
    ck_assert_str_eq(out, "?");
    hp_io_format_addr(SA(a), 2, 0, out, sizeof out);          /* too short for its family */
    ck_assert_str_eq(out, "?");
}
END_TEST

/* ---- sockets: names and the patterns they merge on ---- */

START_TEST(tcp_connected_and_accepted)
{
    struct hp_io_name n;
    struct sockaddr_in l = in4("127.0.0.1", 41234), p = in4("127.0.0.1", 6379);
    hp_io_name_socket(&n, 5, AF_INET, SOCK_STREAM, HP_IO_CONNECTED, SA(l), sizeof l, SA(p), sizeof p);
    ck_assert_str_eq(n.name, "tcp 127.0.0.1:41234 -> 127.0.0.1:6379");
    ck_assert_str_eq(n.pattern, "tcp 127.0.0.1:* -> 127.0.0.1:6379");
    ck_assert_int_eq(n.kind, HP_IO_TCP);
    ck_assert_int_eq(n.accepted, 0);

    /* accepted: named by its peer, merged per listening address */
    struct sockaddr_in local = in4("127.0.0.1", 8080), peer = in4("127.0.0.1", 50001);
    hp_io_name_socket(&n, 9, AF_INET, SOCK_STREAM, HP_IO_ACCEPTED, SA(local), sizeof local, SA(peer),
                      sizeof peer);
    ck_assert_str_eq(n.name, "tcp 127.0.0.1:50001 -> 127.0.0.1:8080");
    ck_assert_str_eq(n.pattern, "tcp 127.0.0.1:* -> 127.0.0.1:8080");
    ck_assert_int_eq(n.accepted, 1);
}
END_TEST

START_TEST(tcp_listen_udp_unix)
{
    struct hp_io_name n;
    struct sockaddr_in any = in4("0.0.0.0", 8080);
    hp_io_name_socket(&n, 3, AF_INET, SOCK_STREAM, HP_IO_LISTENING, SA(any), sizeof any, NULL, 0);
    ck_assert_str_eq(n.name, "tcp listen 0.0.0.0:8080");
    ck_assert_str_eq(n.pattern, n.name);

    struct sockaddr_in6 l6 = in6("::", 5353);
    hp_io_name_socket(&n, 3, AF_INET6, SOCK_DGRAM, HP_IO_UNCONNECTED, SA(l6), sizeof l6, NULL, 0);
    ck_assert_str_eq(n.name, "udp [::]:5353");
    ck_assert_int_eq(n.kind, HP_IO_UDP);
    struct sockaddr_in unbound = in4("0.0.0.0", 0);
    hp_io_name_socket(&n, 3, AF_INET, SOCK_DGRAM, HP_IO_UNCONNECTED, SA(unbound), sizeof unbound, NULL, 0);
    ck_assert_str_eq(n.name, "udp 0.0.0.0:*");
    hp_io_name_socket(&n, 3, AF_INET, SOCK_DGRAM, HP_IO_UNCONNECTED, NULL, 0, NULL, 0);
    ck_assert_str_eq(n.name, "udp");
    struct sockaddr_in dns = in4("10.0.0.1", 53), me = in4("10.0.0.2", 40000);
    hp_io_name_socket(&n, 3, AF_INET, SOCK_DGRAM, HP_IO_CONNECTED, SA(me), sizeof me, SA(dns), sizeof dns);
    ck_assert_str_eq(n.name, "udp 10.0.0.2:40000 -> 10.0.0.1:53");
    ck_assert_str_eq(n.pattern, "udp 10.0.0.2:* -> 10.0.0.1:53");

    struct sockaddr_un path, none;
    socklen_t plen = un(&path, "/run/x.sock", 12), nlen = un(&none, "", 0);
    hp_io_name_socket(&n, 4, AF_UNIX, SOCK_STREAM, HP_IO_CONNECTED, SA(none), nlen, SA(path), plen);
    ck_assert_str_eq(n.name, "unix /run/x.sock");
    ck_assert_int_eq(n.kind, HP_IO_UNIX);
    hp_io_name_socket(&n, 4, AF_UNIX, SOCK_STREAM, HP_IO_ACCEPTED, SA(path), plen, SA(none), nlen);
    ck_assert_str_eq(n.name, "unix /run/x.sock");
    ck_assert_int_eq(n.accepted, 1);
    hp_io_name_socket(&n, 4, AF_UNIX, SOCK_STREAM, HP_IO_LISTENING, SA(path), plen, NULL, 0);
    ck_assert_str_eq(n.name, "unix listen /run/x.sock");
    hp_io_name_socket(&n, 4, AF_UNIX, SOCK_STREAM, HP_IO_PAIR, NULL, 0, NULL, 0);
    ck_assert_str_eq(n.name, "unix socketpair");

    hp_io_name_socket(&n, 12, AF_NETLINK, SOCK_RAW, HP_IO_UNCONNECTED, NULL, 0, NULL, 0);
    ck_assert_str_eq(n.name, "fd 12 (socket)");
    ck_assert_int_eq(n.kind, HP_IO_SOCKET);
}
END_TEST

/* ---- descriptors found open ---- */

START_TEST(found_descriptors)
{
    struct hp_io_name n;
    hp_io_name_found(&n, 0, S_IFIFO, "pipe:[1234]");
    ck_assert_str_eq(n.name, "stdin");
    ck_assert_int_eq(n.kind, HP_IO_PIPE);
    hp_io_name_found(&n, 1, S_IFCHR, "/dev/pts/3");
    ck_assert_str_eq(n.name, "stdout");
    ck_assert_int_eq(n.kind, HP_IO_TTY);
    hp_io_name_found(&n, 2, S_IFREG, "/tmp/log");
    ck_assert_str_eq(n.name, "stderr");
    ck_assert_int_eq(n.kind, HP_IO_FILE);
    hp_io_name_found(&n, 7, S_IFREG, "/var/lib/x.db");
    ck_assert_str_eq(n.name, "/var/lib/x.db");
    hp_io_name_found(&n, 8, S_IFIFO, "pipe:[99]");
    ck_assert_str_eq(n.name, "pipe");
    hp_io_name_found(&n, 8, S_IFIFO, "/tmp/fifo");
    ck_assert_str_eq(n.name, "/tmp/fifo");
    ck_assert_int_eq(n.kind, HP_IO_FIFO);
    hp_io_name_found(&n, 9, 0, "anon_inode:[eventfd]");
    ck_assert_str_eq(n.name, "fd 9 (eventfd)");
    ck_assert_int_eq(n.kind, HP_IO_ANON);
    hp_io_name_found(&n, 10, 0, "anon_inode:inotify");
    ck_assert_str_eq(n.name, "fd 10 (inotify)");
    hp_io_name_found(&n, 11, S_IFCHR, "/dev/null");
    ck_assert_str_eq(n.name, "/dev/null");
    ck_assert_int_eq(n.kind, HP_IO_CHAR);
    hp_io_name_found(&n, 12, S_IFSOCK, "socket:[77]");
    ck_assert_str_eq(n.name, "fd 12 (socket)");
    hp_io_name_found(&n, 13, S_IFREG, "");
    ck_assert_str_eq(n.name, "fd 13 (file)");
    ck_assert_str_eq(hp_io_kind_names[HP_IO_TTY], "tty");
    ck_assert_int_eq(hp_io_char_kind("/dev/tty1"), HP_IO_TTY);
    ck_assert_int_eq(hp_io_char_kind("/dev/zero"), HP_IO_CHAR);
}
END_TEST

/* ---- merge keys ---- */

START_TEST(merge_keys)
{
    struct hp_io_name a, b, acc;
    char ka[HP_IO_NAME_MAX + 32], kb[HP_IO_NAME_MAX + 32], kacc[HP_IO_NAME_MAX + 32];
    struct sockaddr_in l1 = in4("127.0.0.1", 40001), l2 = in4("127.0.0.1", 40002), srv = in4("127.0.0.1", 8080);
    hp_io_name_socket(&a, 5, AF_INET, SOCK_STREAM, HP_IO_CONNECTED, SA(l1), sizeof l1, SA(srv), sizeof srv);
    hp_io_name_socket(&b, 6, AF_INET, SOCK_STREAM, HP_IO_CONNECTED, SA(l2), sizeof l2, SA(srv), sizeof srv);
    hp_io_name_socket(&acc, 7, AF_INET, SOCK_STREAM, HP_IO_ACCEPTED, SA(srv), sizeof srv, SA(l1), sizeof l1);
    /* two client connections to one service: one key */
    ck_assert_int_eq(hp_io_key(&a, 0, 0, ka, sizeof ka), 0);
    ck_assert_int_eq(hp_io_key(&b, 0, 0, kb, sizeof kb), 0);
    ck_assert_str_eq(ka, kb);
    ck_assert_uint_eq(hp_io_hash(ka), hp_io_hash(kb));
    /* the server's side has the same pattern text but is a row of its own */
    ck_assert_str_eq(acc.pattern, a.pattern);
    ck_assert_int_eq(hp_io_key(&acc, 0, 0, kacc, sizeof kacc), 0);
    ck_assert_str_ne(kacc, ka);
    /* HOTPATH_IO_ITER: every instance apart, even two of the same name */
    ck_assert_int_eq(hp_io_key(&a, 1, 1, ka, sizeof ka), 0);
    ck_assert_int_eq(hp_io_key(&a, 1, 2, kb, sizeof kb), 0);
    ck_assert_str_ne(ka, kb);
    ck_assert_ptr_nonnull(strstr(ka, "40001"));
    /* a key that does not fit */
    char small[8];
    ck_assert_int_eq(hp_io_key(&a, 0, 0, small, sizeof small), -1);
    /* files merge on their path */
    struct hp_io_name f1, f2;
    hp_io_name_path(&f1, "/tmp/x", HP_IO_FILE);
    hp_io_name_path(&f2, "/tmp/x", HP_IO_FILE);
    hp_io_key(&f1, 0, 0, ka, sizeof ka);
    hp_io_key(&f2, 0, 0, kb, sizeof kb);
    ck_assert_str_eq(ka, kb);
    ck_assert_str_eq(ka, "/tmp/x");
    ck_assert_uint_ne(hp_io_hash("/tmp/x"), hp_io_hash("/tmp/y"));
}
END_TEST

static Suite *io_names_suite(void)
{
    Suite *s = suite_create("io_names");
    TCase *tc = tcase_create("paths");
    HP_ADD(tc, abs_path);
    HP_ADD(tc, abs_path_too_long);
    suite_add_tcase(s, tc);
    tc = tcase_create("sockets");
    HP_ADD(tc, format_addresses);
    HP_ADD(tc, tcp_connected_and_accepted);
    HP_ADD(tc, tcp_listen_udp_unix);
    suite_add_tcase(s, tc);
    tc = tcase_create("found_and_keys");
    HP_ADD(tc, found_descriptors);
    HP_ADD(tc, merge_keys);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(io_names_suite)
