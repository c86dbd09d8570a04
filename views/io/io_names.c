/* io_names.c — see io_names.h. */
#define _GNU_SOURCE
#include "io_names.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "core/hash.h"

const char *const hp_io_kind_names[HP_IO_KINDS] = {
    "file", "dir", "pipe", "fifo", "tcp", "udp", "unix", "socket", "tty", "char", "block", "anon",
    "other",
};

static void copy(char *out, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n >= size) n = size - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

int hp_io_abs_path(const char *cwd, const char *path, char *out, size_t size)
{
    if (size == 0) return -1;
    if (path[0] == '/' || !cwd || cwd[0] != '/') {
        if (strlen(path) >= size) return -1;
        copy(out, size, path);
        return 0;
    }
    /* Walk cwd then path, component by component; out always starts with '/'. */
    size_t n = 0;
    out[n++] = '/';
    const char *parts[2] = { cwd, path };
    for (int k = 0; k < 2; k++) {
        const char *p = parts[k];
        while (*p) {
            while (*p == '/') p++;
            if (!*p) break;
            const char *end = strchr(p, '/');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            if (len == 1 && p[0] == '.') {
                /* nothing */
            } else if (len == 2 && p[0] == '.' && p[1] == '.') {
                if (n > 1) {
                    n--;                               /* the '/' after the last component */
                    while (n > 1 && out[n - 1] != '/') n--;
                }
            } else {
                if (n + len + 1 >= size) return -1;
                memcpy(out + n, p, len);
                n += len;
                out[n++] = '/';
            }
            p += len;
        }
    }
    if (n > 1) n--;                                    /* no trailing '/' */
    out[n] = 0;
    return 0;
}

void hp_io_format_addr(const struct sockaddr *sa, socklen_t len, int star_port, char *out,
                       size_t size)
{
    char ip[INET6_ADDRSTRLEN], port[16];
    if (!sa || len < sizeof(sa_family_t)) {
        copy(out, size, "?");
        return;
    }
    if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        if (!inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip)) copy(ip, sizeof ip, "?");
        if (star_port) copy(port, sizeof port, "*");
        else snprintf(port, sizeof port, "%u", ntohs(in->sin_port));
        snprintf(out, size, "%s:%s", ip, port);
    } else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        if (!inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip)) copy(ip, sizeof ip, "?");
        if (star_port) copy(port, sizeof port, "*");
        else snprintf(port, sizeof port, "%u", ntohs(in6->sin6_port));
        snprintf(out, size, "[%s]:%s", ip, port);
    } else if (sa->sa_family == AF_UNIX) {
        const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
        size_t off = offsetof(struct sockaddr_un, sun_path);
        size_t plen = len > off ? len - off : 0;
        if (plen > sizeof un->sun_path) plen = sizeof un->sun_path;
        if (plen == 0) {
            copy(out, size, "");
        } else if (un->sun_path[0] == 0) {             /* abstract: @name, NULs as '@' */
            size_t n = 0;
            for (size_t i = 0; i < plen && n + 1 < size; i++)
                out[n++] = un->sun_path[i] ? un->sun_path[i] : '@';
            out[n] = 0;
        } else {
            size_t pl = strnlen(un->sun_path, plen);
            if (pl >= size) pl = size - 1;
            memcpy(out, un->sun_path, pl);
            out[pl] = 0;
        }
    } else {
        copy(out, size, "?");
    }
}

static int is_inet(int family)
{
    return family == AF_INET || family == AF_INET6;
}

void hp_io_name_socket(struct hp_io_name *n, int fd, int family, int type, enum hp_io_role role,
                       const struct sockaddr *local, socklen_t local_len,
                       const struct sockaddr *peer, socklen_t peer_len)
{
    char l[300], p[300], lstar[300], pstar[300];
    n->accepted = role == HP_IO_ACCEPTED;
    if (family == AF_UNIX) {
        n->kind = HP_IO_UNIX;
        hp_io_format_addr(local, local_len, 0, l, sizeof l);
        hp_io_format_addr(peer, peer_len, 0, p, sizeof p);
        const char *addr = role == HP_IO_ACCEPTED || role == HP_IO_LISTENING || !peer || !p[0] ? l : p;
        if (role == HP_IO_PAIR) snprintf(n->name, sizeof n->name, "unix socketpair");
        else if (role == HP_IO_LISTENING) snprintf(n->name, sizeof n->name, "unix listen %s", l);
        else if (addr[0]) snprintf(n->name, sizeof n->name, "unix %s", addr);
        else snprintf(n->name, sizeof n->name, "unix");
        copy(n->pattern, sizeof n->pattern, n->name);
        return;
    }
    if (!is_inet(family) || (type != SOCK_STREAM && type != SOCK_DGRAM)) {
        n->kind = HP_IO_SOCKET;
        n->accepted = 0;
        snprintf(n->name, sizeof n->name, "fd %d (socket)", fd);
        copy(n->pattern, sizeof n->pattern, n->name);
        return;
    }
    const char *proto = type == SOCK_STREAM ? "tcp" : "udp";
    n->kind = type == SOCK_STREAM ? HP_IO_TCP : HP_IO_UDP;
    hp_io_format_addr(local, local_len, 0, l, sizeof l);
    hp_io_format_addr(local, local_len, 1, lstar, sizeof lstar);
    hp_io_format_addr(peer, peer_len, 0, p, sizeof p);
    hp_io_format_addr(peer, peer_len, 1, pstar, sizeof pstar);
    int has_peer = peer && peer_len >= sizeof(sa_family_t) && is_inet(peer->sa_family);
    if (role == HP_IO_LISTENING) {
        snprintf(n->name, sizeof n->name, "%s listen %s", proto, l);
        copy(n->pattern, sizeof n->pattern, n->name);
    } else if (role == HP_IO_ACCEPTED && has_peer) {
        /* peer -> our listening address; the peer's port is the short-lived part */
        snprintf(n->name, sizeof n->name, "%s %s -> %s", proto, p, l);
        snprintf(n->pattern, sizeof n->pattern, "%s %s -> %s", proto, pstar, l);
    } else if (has_peer) {
        /* our ephemeral port -> the service */
        snprintf(n->name, sizeof n->name, "%s %s -> %s", proto, l, p);
        snprintf(n->pattern, sizeof n->pattern, "%s %s -> %s", proto, lstar, p);
    } else {
        /* unconnected: bound (a server's port) or not yet (port 0: any) */
        int unbound = 0;
        if (local && local->sa_family == AF_INET && local_len >= sizeof(struct sockaddr_in))
            unbound = ((const struct sockaddr_in *)local)->sin_port == 0;
        else if (local && local->sa_family == AF_INET6 && local_len >= sizeof(struct sockaddr_in6))
            unbound = ((const struct sockaddr_in6 *)local)->sin6_port == 0;
        else
            unbound = 1;
        if (unbound && (!local || !is_inet(local->sa_family)))
            snprintf(n->name, sizeof n->name, "%s", proto);
        else
            snprintf(n->name, sizeof n->name, "%s %s", proto, unbound ? lstar : l);
        copy(n->pattern, sizeof n->pattern, n->name);
    }
}

void hp_io_name_path(struct hp_io_name *n, const char *path, enum hp_io_kind kind)
{
    copy(n->name, sizeof n->name, path);
    copy(n->pattern, sizeof n->pattern, path);
    n->kind = (unsigned char)kind;
    n->accepted = 0;
}

enum hp_io_kind hp_io_char_kind(const char *path)
{
    if (strncmp(path, "/dev/pts/", 9) == 0 || strncmp(path, "/dev/tty", 8) == 0 ||
        strcmp(path, "/dev/console") == 0 || strcmp(path, "/dev/ptmx") == 0)
        return HP_IO_TTY;
    return HP_IO_CHAR;
}

void hp_io_name_found(struct hp_io_name *n, int fd, unsigned mode, const char *link)
{
    static const char *const std_names[3] = { "stdin", "stdout", "stderr" };
    enum hp_io_kind kind;
    const char *anon = NULL;   /* the word inside anon_inode:[...] */
    char word[64];
    switch (mode & S_IFMT) {
    case S_IFREG: kind = HP_IO_FILE; break;
    case S_IFDIR: kind = HP_IO_DIR; break;
    case S_IFIFO: kind = strncmp(link, "pipe:", 5) == 0 ? HP_IO_PIPE : HP_IO_FIFO; break;
    case S_IFSOCK: kind = HP_IO_SOCKET; break;
    case S_IFCHR: kind = hp_io_char_kind(link); break;
    case S_IFBLK: kind = HP_IO_BLOCK; break;
    default: kind = strncmp(link, "anon_inode:", 11) == 0 ? HP_IO_ANON : HP_IO_OTHER; break;
    }
    if (kind == HP_IO_ANON) {
        const char *w = link + 11;
        size_t len = strlen(w);
        if (len >= 2 && w[0] == '[' && w[len - 1] == ']') { w++; len -= 2; }
        if (len >= sizeof word) len = sizeof word - 1;
        memcpy(word, w, len);
        word[len] = 0;
        anon = word;
    }
    n->kind = (unsigned char)kind;
    n->accepted = 0;
    if (fd >= 0 && fd <= 2) {
        copy(n->name, sizeof n->name, std_names[fd]);
    } else if (kind == HP_IO_PIPE) {
        copy(n->name, sizeof n->name, "pipe");
    } else if (kind == HP_IO_ANON) {
        snprintf(n->name, sizeof n->name, "fd %d (%s)", fd, anon[0] ? anon : "anon");
    } else if (kind == HP_IO_SOCKET || kind == HP_IO_OTHER || link[0] != '/') {
        snprintf(n->name, sizeof n->name, "fd %d (%s)", fd, hp_io_kind_names[kind]);
    } else {
        copy(n->name, sizeof n->name, link);
    }
    copy(n->pattern, sizeof n->pattern, n->name);
}

int hp_io_key(const struct hp_io_name *n, int iter, uint64_t seq, char *out, size_t size)
{
    int len;
    if (iter)
        len = snprintf(out, size, "%s\n#%llu", n->name, (unsigned long long)seq);
    else
        len = snprintf(out, size, "%s%s", n->pattern, n->accepted ? "\naccepted" : "");
    return len < 0 || (size_t)len >= size ? -1 : 0;
}

uint32_t hp_io_hash(const char *key)
{
    return hp_fnv1a(key, strlen(key), HP_FNV_BASIS);
}
