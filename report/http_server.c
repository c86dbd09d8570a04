/* http_server.c — see http_server.h. One thread polls the listener and at most MAX_CLIENTS
 * connections; the rest wait in the listen backlog. Every descriptor is moved above the program's
 * usual range (hp_platform_high_floor) and close-on-exec; under a limit below 256 the server holds
 * none and waits. A listener the program closed (closefrom, close_range) is noticed and made again
 * a second later. Responses always end the connection (Connection: close). */
#define _GNU_SOURCE
#include "http_server.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/spinlock.h"
#include "history_json.h"
#include "http_parse.h"
#include "json.h"
#include "process_file.h"
#include "prometheus.h"
#include "report.h"
#include "report_settings.h"
#include "section.h"

#define MAX_CLIENTS 8
#define CLIENT_TIMEOUT_NS 5000000000ull     /* to send a request, and between bytes read */
#define RELISTEN_DELAY_NS 1000000000ull     /* after the program closed the listener */
#define CLAIM_EVERY_NS 1000000000ull        /* tries at the configured port, when on another */
#define BACKLOG 16
#define DRAIN_NS 1000000000ull              /* a lingering close: at most this long */

struct client {
    int fd;
    ino_t ino;
    size_t in_len;
    char *in;             /* its slot in client_heads */
    struct hp_buf out;
    size_t sent;
    int writing;
    int draining;         /* answered: reading what is left until the peer closes */
    uint64_t deadline;
};

/* The server's state: its listener, its clients and its registry entry. */
static struct {
    int listen_fd;                    /* the listening socket, -1 if none */
    _Atomic unsigned turns;           /* the server loop's turns, each after a poll */
    ino_t listen_ino;                 /* its inode: tells whether the number is still ours */
    unsigned port;                    /* the port it listens on */
    int port_explicit_warned;         /* the configured port's warning given */
    uint64_t lost_at;                 /* when the listener was found gone, 0 if not */
    uint64_t claimed_at;              /* the last try at the configured port */
    int claim_from;                   /* a fork child whose parent served the configured port: its pid */
    int claims_left;                  /* tries at the configured port left */
    struct client clients[MAX_CLIENTS];   /* start and fork touch every client: one page, the heads apart */
    char token[HP_TOKEN_MAX];         /* the bearer token asked for, empty if none */
    int token_user;                   /* `auto`: the user's, read from the registry directory at start */
    int token_warned;                 /* no token to be had: said once (a fork child inherits it) */
    _Atomic int tid;                  /* the server thread's id, 0 before it runs */
    _Atomic int given_up;             /* the program ran out of descriptors: hold none */
    _Atomic int holds_none;           /* the server thread has closed all it held */
    _Atomic int registered_pid;       /* set by the server thread, read by the final report */
    _Atomic int ending;               /* the final report has unregistered this image */
    _Atomic int registering;          /* register_process is writing the file */
    uint64_t start_unix_ms;           /* the process's start, as the registry entry tells it */
    _Atomic int wanted;               /* started, and the thread not launched yet */
    int listener_pending;             /* the start (listener, registry entry) not made yet */
    int clean_pending;                /* with it, remove stale registry entries (not in a fork child) */
    hp_spinlock pending_lock;         /* the pending start made once, by whichever caller is first */
} server = {
    .listen_fd = -1,
    /* none yet: a fork child closes its copies of these (hp_server_restart_in_child), and one
     * made before the server started closed its descriptor 0, its stdin, eight times over */
    .clients = { [0 ... MAX_CLIENTS - 1] = { .fd = -1 } },
    .pending_lock = HP_SPINLOCK_INIT,
};
/* The request heads apart from the clients: start and fork touch every client, and they fit in
 * one page that way (the heads are 64 KB that only a connection makes resident). Apart from the
 * struct too: its initializer puts it in .data, and the heads stay in .bss. */
static char client_heads[MAX_CLIENTS][HP_HTTP_HEAD_MAX];

unsigned hp_server_port(void)
{
    return server.listen_fd >= 0 ? server.port : 0;
}

static void warn_line(const char *line)
{
    size_t n = strlen(line);
    if (syscall(SYS_write, 2, line, n) < 0 || syscall(SYS_write, 2, "\n", 1) < 0) return;
}

static void sys_close(int fd)
{
    if (fd >= 0) syscall(SYS_close, fd);
}

static int move_high(int fd)
{
    int base = hp_platform_high_floor();
    int high = base < 0 ? -1 : (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, base);
    sys_close(fd);
    return high;
}

static ino_t inode_of(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return 0;
    return st.st_ino;
}

/* The descriptor still holds the socket we made (the program may have closed it and reused the
 * number). */
static int still_ours(int fd, ino_t ino)
{
    return fd >= 0 && ino && inode_of(fd) == ino;
}

static int bind_port(int fd, unsigned p)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    return (int)syscall(SYS_bind, fd, &a, sizeof a);
}

/* A new non-blocking socket for a listener on 127.0.0.1, SO_REUSEADDR set; -1 on failure. */
static int new_socket(void)
{
    int fd = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    return fd;
}

static int open_listener(void)
{
    if (hp_platform_high_floor() < 0) return -1;
    int fd = new_socket();
    if (fd < 0) return -1;
    unsigned want = server.port ? server.port : hp_config.metrics_port;
    if (bind_port(fd, want) != 0) {
        int err = errno;
        if (hp_config.metrics_port_set && !server.port_explicit_warned && want == hp_config.metrics_port) {
            char line[160];
            snprintf(line, sizeof line, "hotpath: metrics port %u on 127.0.0.1 is %s; serving on another port (see hotpath-console --list)",
                     want, err == EADDRINUSE ? "busy" : "not available");
            warn_line(line);
            server.port_explicit_warned = 1;
        }
        if (bind_port(fd, 0) != 0) { sys_close(fd); return -1; }
    }
    if (syscall(SYS_listen, fd, BACKLOG) != 0) { sys_close(fd); return -1; }
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    if (syscall(SYS_getsockname, fd, &a, &alen) != 0) { sys_close(fd); return -1; }
    fd = move_high(fd);
    if (fd < 0) return -1;
    server.listen_fd = fd;
    server.listen_ino = inode_of(fd);
    server.port = ntohs(a.sin_port);
    return 0;
}

unsigned hp_server_pending_port(void)
{
    return server.listener_pending ? hp_config.metrics_port : 0;
}

void hp_server_yield_port(unsigned p)
{
    int fd = __atomic_load_n(&server.listen_fd, __ATOMIC_RELAXED);
    if (p != 0 && fd < 0 && p == hp_config.metrics_port) {
        /* before the listener is made (hp_server_launch): the port is the program's, no busy
         * port to warn about */
        __atomic_store_n(&server.port_explicit_warned, 1, __ATOMIC_RELAXED);
        return;
    }
    if (p == 0 || fd < 0 || p != __atomic_load_n(&server.port, __ATOMIC_RELAXED) || !still_ours(fd, server.listen_ino))
        return;
    /* the server thread finds it gone (check_listener) and never closes that number again; a
     * port the program took is no busy port to warn about */
    __atomic_store_n(&server.port_explicit_warned, 1, __ATOMIC_RELAXED);
    unsigned turn = atomic_load(&server.turns);
    syscall(SYS_shutdown, fd, SHUT_RDWR);    /* wakes the server's poll */
    sys_close(fd);
    if (!atomic_load(&server.tid)) return;    /* no poll holds it: the port is free now */
    /* the port is free only once the server's poll has let go of the socket too: wait for its
     * next turn (about a millisecond; at most 100) */
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 100 && atomic_load(&server.turns) == turn; i++) nanosleep(&ms, NULL);
}

/* Made by the sampler's first pass while the program may be ending: this sees the ending and
 * writes nothing, or the ending (hp_server_unregister) waits for the file and removes it, so that
 * neither it nor its .tmp is left behind when the process is gone. */
static void register_process(void)
{
    atomic_store(&server.registering, 1);
    if (!atomic_load(&server.ending)) {
        int pid = hp_report_pid();
        atomic_store(&server.registered_pid, pid);
        hp_procfile_write(pid, server.port, hp_report_command(), server.start_unix_ms, server.token[0] != 0);
    }
    atomic_store(&server.registering, 0);
}

/* ---- responses ---- */

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

static void respond(struct client *c, int status, const char *type, const char *body, size_t len,
                    int head_only)
{
    hp_buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                  "Cache-Control: no-store\r\nConnection: close\r\n", status, reason(status), type, len);
    if (status == 405) hp_buf_puts(&c->out, "Allow: GET, HEAD\r\n");
    if (status == 401)        /* Basic too: a browser then asks, and the password is the token */
        hp_buf_puts(&c->out, "WWW-Authenticate: Bearer realm=\"hotpath\"\r\n"
                             "WWW-Authenticate: Basic realm=\"hotpath\", charset=\"UTF-8\"\r\n");
    hp_buf_puts(&c->out, "\r\n");
    if (!head_only && len) hp_buf_put(&c->out, body, len);
    c->writing = 1;
    c->sent = 0;
}

static void respond_error(struct client *c, int status, const char *message, const char *detail,
                          int head_only)
{
    struct hp_buf b = { 0 };
    hp_buf_puts(&b, "{\"error\":");
    struct hp_buf m = { 0 };
    hp_buf_puts(&m, message);
    if (detail) hp_buf_puts(&m, detail);
    hp_json_quote(&b, m.data ? m.data : message);
    hp_buf_printf(&b, ",\"status\":%d}\n", status);
    respond(c, status, "application/json", b.data ? b.data : "", b.len, head_only);
    hp_buf_free(&m);
    hp_buf_free(&b);
}

static void respond_body(struct client *c, struct hp_buf *b, const char *type, int head_only)
{
    if (b->failed || !b->data) respond_error(c, 500, "out of memory", NULL, head_only);
    else respond(c, 200, type, b->data, b->len, head_only);
}

/* One section's JSON value, exactly as it stands under its key in the whole report. */
static void serve_section(struct client *c, const char *key, int head_only)
{
    const struct hp_section *s = hp_section_find(key);
    void *snap = s && (hp_report_settings.sections & hp_section_bit(s)) ? s->snapshot() : NULL;
    if (!snap) {
        respond_error(c, 404, "view not available: ", key, head_only);
        return;
    }
    struct hp_buf b = { 0 };
    struct hp_json j;
    hp_json_init(&j, &b, 0);
    hp_json_object_begin(&j, NULL);
    s->json(snap, &j);
    hp_json_object_end(&j);
    s->release(snap);
    size_t prefix = 1 + strlen(key) + 2 + 1;     /* {"key": */
    if (b.failed || !b.data || b.len < prefix + 1) {
        respond_error(c, 500, "out of memory", NULL, head_only);
    } else {
        b.data[b.len - 1] = '\n';               /* the closing brace of the wrapper */
        respond(c, 200, "application/json", b.data + prefix, b.len - prefix, head_only);
    }
    hp_buf_free(&b);
}

static void serve_status(struct client *c, int head_only)
{
    struct hp_buf b = { 0 };
    struct hp_json j;
    hp_json_init(&j, &b, 0);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "type", "hotpath_status");
    hp_json_string(&j, "version", HP_VERSION);
    hp_json_i64(&j, "pid", hp_report_pid());
    hp_json_string(&j, "command", hp_report_command());
    hp_json_u64(&j, "uptime_ns", hp_now_ns() - hp_report_start_ns());
    hp_json_u64(&j, "start_time_unix_ms", server.start_unix_ms);
    hp_json_u64(&j, "interval_ms", hp_config.interval_ms);
    hp_json_u64(&j, "port", server.port);
    hp_json_array_begin(&j, "views");
    HP_FOR_EACH_SECTION(s)
        if (hp_report_settings.sections & hp_section_bit(s)) hp_json_string(&j, NULL, s->key);
    hp_json_array_end(&j);
    hp_json_object_end(&j);
    hp_buf_putc(&b, '\n');
    respond_body(c, &b, "application/json", head_only);
    hp_buf_free(&b);
}

/* The time series (HOTPATH_HISTORY_MB=0: not available), copied out of the sampler's hands. */
static void serve_history(struct client *c, int head_only)
{
    struct hp_history_snap h;
    if (hp_history_snapshot(&h, 1) != 0) {
        respond_error(c, 404, "view not available: history", NULL, head_only);
        return;
    }
    struct hp_buf b = { 0 };
    hp_history_json(&b, &h, hp_report_start_ns());
    hp_history_release(&h);
    respond_body(c, &b, "application/json", head_only);
    hp_buf_free(&b);
}

/* The endpoints: the status, one per section, the time series, the report and the metrics. */
static void serve_index(struct client *c, int head_only)
{
    struct hp_buf b = { 0 };
    hp_buf_puts(&b, "{\"endpoints\":[\"/profiler_status\"");
    HP_FOR_EACH_SECTION(s) hp_buf_printf(&b, ",\"/%s\"", s->key);
    hp_buf_puts(&b, ",\"/history\",\"/report\",\"/metrics\"]}\n");
    respond_body(c, &b, "application/json", head_only);
    hp_buf_free(&b);
}

static void route(struct client *c, const struct hp_http_request *req)
{
    int head = req->method == HP_HTTP_HEAD;
    if (server.token[0] && !(req->has_auth && hp_http_authorized(req->auth, server.token))) {
        respond_error(c, 401, req->has_auth ? "wrong token" : "token required", NULL, head);
        return;
    }
    const char *p = req->path;
    if (strcmp(p, "/profiler_status") == 0) { serve_status(c, head); return; }
    if (strcmp(p, "/report") == 0) {
        struct hp_buf b = { 0 };
        hp_report_render(&b, HP_FORMAT_JSON, hp_report_settings.sections);
        respond_body(c, &b, "application/json", head);
        hp_buf_free(&b);
        return;
    }
    if (strcmp(p, "/history") == 0) { serve_history(c, head); return; }
    if (strcmp(p, "/metrics") == 0) {
        struct hp_buf b = { 0 };
        hp_prometheus_render(&b);
        respond_body(c, &b, "text/plain; version=0.0.4; charset=utf-8", head);
        hp_buf_free(&b);
        return;
    }
    if (p[0] == '/' && hp_section_find(p + 1)) { serve_section(c, p + 1, head); return; }
    if (strcmp(p, "/") == 0) { serve_index(c, head); return; }
    respond_error(c, 404, "no such endpoint: ", p, head);
}

/* ---- connections ---- */

static void drop(struct client *c)
{
    if (c->fd >= 0 && still_ours(c->fd, c->ino)) sys_close(c->fd);
    c->fd = -1;
    c->in_len = 0;
    c->sent = 0;
    c->writing = 0;
    c->draining = 0;
    hp_buf_free(&c->out);
}

static void accept_one(uint64_t now)
{
    struct client *c = NULL;
    for (int i = 0; i < MAX_CLIENTS && !c; i++)
        if (server.clients[i].fd < 0) c = &server.clients[i];
    if (!c) return;
    if (hp_platform_high_floor() < 0) return;      /* the limit fell: check_listener closes the listener next */
    int fd = (int)syscall(SYS_accept4, server.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    fd = move_high(fd);
    if (fd < 0) return;
    c->fd = fd;
    c->ino = inode_of(fd);
    c->in = client_heads[c - server.clients];
    c->in_len = 0;
    c->writing = 0;
    c->draining = 0;
    c->deadline = now + CLIENT_TIMEOUT_NS;
}

static void read_request(struct client *c, uint64_t now)
{
    if (!still_ours(c->fd, c->ino)) { c->fd = -1; drop(c); return; }
    long n = syscall(SYS_recvfrom, c->fd, c->in + c->in_len, HP_HTTP_HEAD_MAX - c->in_len, MSG_DONTWAIT, NULL, NULL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) { drop(c); return; }
    c->in_len += (size_t)n;
    c->deadline = now + CLIENT_TIMEOUT_NS;
    struct hp_http_request req;
    int r = hp_http_parse(c->in, c->in_len, &req);
    if (r == 0) return;
    if (r < 0) {
        int status = -r;
        respond_error(c, status, status == 431 ? "request head larger than 8 KiB"
                               : status == 405 ? "only GET and HEAD are served"
                               : status == 505 ? "HTTP/1.x only" : "malformed request", NULL, 0);
    } else {
        route(c, &req);
    }
}

/* After the answer: unread bytes at close would make the kernel reset the connection, and the
 * peer could lose the answer (a 431 to a request still arriving), so read until it closes. */
static void drain(struct client *c)
{
    if (!still_ours(c->fd, c->ino)) { c->fd = -1; drop(c); return; }
    char scratch[4096];
    long n = syscall(SYS_recvfrom, c->fd, scratch, sizeof scratch, MSG_DONTWAIT, NULL, NULL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) drop(c);
}

static void write_response(struct client *c, uint64_t now)
{
    if (!still_ours(c->fd, c->ino)) { c->fd = -1; drop(c); return; }
    if (c->sent < c->out.len) {
        long n = syscall(SYS_sendto, c->fd, c->out.data + c->sent, c->out.len - c->sent,
                         MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (n <= 0) { drop(c); return; }
        c->sent += (size_t)n;
        c->deadline = now + CLIENT_TIMEOUT_NS;
    }
    if (c->sent >= c->out.len) {
        syscall(SYS_shutdown, c->fd, SHUT_WR);
        hp_buf_free(&c->out);
        c->writing = 0;
        c->draining = 1;
        c->deadline = now + DRAIN_NS;
    }
}

/* The listener is still ours; if the program closed it, make it again a moment later. */
static void check_listener(uint64_t now)
{
    if (server.listen_fd >= 0 && hp_platform_high_floor() < 0) {       /* the limit fell under 256: hold nothing */
        if (still_ours(server.listen_fd, server.listen_ino)) sys_close(server.listen_fd);
        server.listen_fd = -1;
        for (int i = 0; i < MAX_CLIENTS; i++) drop(&server.clients[i]);
        server.lost_at = now;
        return;
    }
    if (server.listen_fd >= 0 && !still_ours(server.listen_fd, server.listen_ino)) {
        server.listen_fd = -1;                          /* not ours any more: never close it */
        server.lost_at = now;
    }
    if (server.listen_fd < 0 && now - server.lost_at >= RELISTEN_DELAY_NS) {
        unsigned old = server.port;
        if (open_listener() == 0 && server.port != old) register_process();
        server.lost_at = now;
    }
}

/* A daemon: a fork child whose parent served the configured port at the fork (or was such a
 * child itself), and has exited since. The child moves there, so the daemon is found on 6770 a
 * second after its parent's exit. Only then: a process that clients already reach on its port
 * (through the registry, the console, Prometheus targets) keeps it. Ten tries, a second apart;
 * connections still queued on the old listener are refused, those accepted are answered. */
static void claim_port(uint64_t now)
{
    unsigned want = hp_config.metrics_port;
    if (!server.claim_from || server.listen_fd < 0 || now - server.claimed_at < CLAIM_EVERY_NS) return;
    if (getppid() == server.claim_from) return;                 /* the parent still runs */
    server.claimed_at = now;
    if (server.port == want || --server.claims_left <= 0) server.claim_from = 0;
    if (server.port == want) return;
    int fd = new_socket();
    if (fd < 0) return;
    if (bind_port(fd, want) != 0 || syscall(SYS_listen, fd, BACKLOG) != 0) {
        sys_close(fd);
        return;
    }
    if ((fd = move_high(fd)) < 0) return;
    if (still_ours(server.listen_fd, server.listen_ino)) sys_close(server.listen_fd);
    server.listen_fd = fd;
    server.listen_ino = inode_of(fd);
    __atomic_store_n(&server.port, want, __ATOMIC_RELAXED);
    server.claim_from = 0;
    if (atomic_load(&server.registered_pid)) register_process();
}

/* The program ran out of descriptors (hp_server_give_up): close everything, serve no more. */
static void let_go(void)
{
    if (server.listen_fd >= 0 && still_ours(server.listen_fd, server.listen_ino)) sys_close(server.listen_fd);
    server.listen_fd = -1;
    for (int i = 0; i < MAX_CLIENTS; i++) drop(&server.clients[i]);
    atomic_store(&server.holds_none, 1);
}

static void *server_main(void *arg)
{
    (void)arg;
    hp_self = hp_registry_profiler_state();
    atomic_store(&server.tid, hp_platform_gettid());
    hp_sampler_note_server_thread(atomic_load(&server.tid));
    hp_platform_name_self("hotpath-server");
    struct pollfd pfd[MAX_CLIENTS + 1];
    struct client *who[MAX_CLIENTS + 1];
    for (;;) {
        atomic_fetch_add(&server.turns, 1);
        if (atomic_load(&server.given_up)) {
            let_go();
            poll(NULL, 0, 1000);
            continue;
        }
        uint64_t now = hp_now_ns();
        check_listener(now);
        claim_port(now);
        int n = 0, free_slot = 0;
        uint64_t next = now + 250000000ull;
        for (int i = 0; i < MAX_CLIENTS; i++) {
            struct client *c = &server.clients[i];
            if (c->fd < 0) { free_slot = 1; continue; }
            if (now >= c->deadline) { drop(c); free_slot = 1; continue; }
            if (c->deadline < next) next = c->deadline;
            pfd[n] = (struct pollfd){ .fd = c->fd, .events = c->writing ? POLLOUT : POLLIN };
            who[n++] = c;
        }
        if (server.listen_fd >= 0 && free_slot) {
            pfd[n] = (struct pollfd){ .fd = server.listen_fd, .events = POLLIN };
            who[n++] = NULL;
        }
        int timeout = (int)((next - now) / 1000000u) + 1;
        int r = poll(pfd, (nfds_t)n, timeout);
        if (r <= 0) continue;
        now = hp_now_ns();
        for (int i = 0; i < n; i++) {
            if (!pfd[i].revents) continue;
            struct client *c = who[i];
            if (!c) {
                if (pfd[i].revents & POLLNVAL) continue;   /* check_listener sees to it */
                accept_one(now);
            } else if (pfd[i].revents & POLLNVAL) {
                c->fd = -1;
                drop(c);
            } else if (c->draining) {
                drain(c);
            } else if (c->writing) {
                write_response(c, now);
            } else {
                read_request(c, now);
            }
        }
    }
    return NULL;
}

static int launch(void)
{
    return hp_platform_start_thread(server_main);
}

/* Token, listener and registry entry, made once the process has lived HOTPATH_METRICS_START_MS
 * (hp_server_launch, from the sampler), or just before it gives up its privileges, while it may
 * still write the registry: a process that ends sooner (a shell's child that execs at once, a
 * short helper) never pays for them, opens no port, and never shows a program that lists its
 * descriptors one of ours. The listener's socket takes the lowest
 * free number for a moment before it moves high, as the sampler's /proc reads do. The thread
 * waits for hp_server_launch. */
static void start(int clean_stale)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    server.start_unix_ms = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
    for (int i = 0; i < MAX_CLIENTS; i++) server.clients[i].fd = -1;
    int registry = hp_procfile_init() == 0;
    /* the user's token (a fork child has its parent's): without it, no server at all, since any
     * local user could read what it serves */
    if (server.token_user && !server.token[0] &&
        (!registry || hp_procfile_user_token(server.token, sizeof server.token) != 0)) {
        server.token[0] = 0;
        if (!server.token_warned)
            warn_line("hotpath: no private registry directory with a token file of this user's ($XDG_RUNTIME_DIR/hotpath or /tmp/hotpath-$UID: 0700, token 0600); the metrics server is off (HOTPATH_METRICS_AUTH_TOKEN=none runs it without a token)");
        server.token_warned = 1;
        return;
    }
    if (open_listener() != 0) server.lost_at = hp_now_ns();
    if (registry) {
        if (clean_stale) hp_procfile_clean_stale();
        if (server.listen_fd >= 0) register_process();
    }
    atomic_store(&server.wanted, 1);
}

void hp_server_start(void)
{
    if (hp_config.server_off || hp_config.auth_bad) return;
    server.token_user = hp_config.auth_auto;
    if (!server.token_user) snprintf(server.token, sizeof server.token, "%s", hp_config.auth_token);
    hp_procfile_choose();   /* from the environment as the process starts with it */
    server.listener_pending = server.clean_pending = 1;
}

void hp_server_start_child_now(void)
{
    hp_spin_lock(&server.pending_lock);
    if (server.listener_pending && !atomic_load(&server.given_up)) start(server.clean_pending);   /* a fork child's parent cleaned */
    server.listener_pending = 0;
    hp_spin_unlock(&server.pending_lock);
}

void hp_server_launch(void)
{
    hp_server_start_child_now();
    if (!atomic_exchange(&server.wanted, 0) || atomic_load(&server.given_up)) return;
    if (launch() != 0) {
        warn_line("hotpath: could not start the metrics server thread");
        return;
    }
    /* The sampler, which calls this, next looks for a thread of the program's still alive (after
     * main's pthread_exit): the new thread must be known as the profiler's by then. It says its
     * tid first thing. */
    for (int i = 0; i < 1000 && !atomic_load(&server.tid); i++) {
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
}

void hp_server_unregister(void)
{
    atomic_store(&server.ending, 1);   /* no registration from now on (register_process) */
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 200 && atomic_load(&server.registering); i++) nanosleep(&ms, NULL);   /* one under way */
    int pid = atomic_load(&server.registered_pid);
    if (pid && pid == getpid()) hp_procfile_remove(pid);
}

void hp_server_exec_failed(void)
{
    int pid = atomic_load(&server.registered_pid);
    atomic_store(&server.ending, 0);
    if (pid && pid == getpid() && server.listen_fd >= 0) register_process();
}

int hp_server_give_up(void)
{
    if (atomic_exchange(&server.given_up, 1)) return 0;
    int fd = __atomic_load_n(&server.listen_fd, __ATOMIC_RELAXED);
    if (!atomic_load(&server.tid)) {            /* no server thread: the listener, if any */
        if (fd < 0) return 0;
        let_go();
        return 1;
    }
    if (fd >= 0 && still_ours(fd, server.listen_ino)) syscall(SYS_shutdown, fd, SHUT_RDWR);   /* wakes its poll */
    /* the server's poll returns at once, or within its 250 ms turn when the listener was not in it */
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 500 && !atomic_load(&server.holds_none); i++) nanosleep(&ms, NULL);
    return atomic_load(&server.holds_none);
}

void hp_server_restart_in_child(void)
{
    if (hp_config.server_off || hp_config.auth_bad || atomic_load(&server.given_up)) return;
    /* a daemon's child (or its child in turn: daemons fork twice) may take the parent's port */
    int parent_served = (server.listen_fd >= 0 && server.port == hp_config.metrics_port) || server.claim_from;
    /* the parent's sockets: our copies only */
    sys_close(server.listen_fd);
    server.listen_fd = -1;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        sys_close(server.clients[i].fd);
        server.clients[i].fd = -1;
        hp_buf_free(&server.clients[i].out);
    }
    atomic_store(&server.tid, 0);
    hp_sampler_note_server_thread(0);
    atomic_store(&server.registered_pid, 0);
    atomic_store(&server.ending, 0);
    server.claim_from = parent_served ? getppid() : 0;
    server.claims_left = 10;
    server.claimed_at = 0;
    server.port = 0;
    server.port_explicit_warned = 1;       /* the parent said it, if it had to */
    atomic_store(&server.wanted, 0);
    atomic_flag_clear(&server.pending_lock.held);
    server.listener_pending = 1;
    server.clean_pending = 0;
}
