/* hotpath-console — a terminal view of a profiled process, live: polls the metrics server's JSON
 * endpoints (docs/REFERENCE.md "Live views") every HOTPATH_TUI_REFRESH_INTERVAL_MS and shows them in tabs.
 * Its own process: ncurses for the screen, jansson for JSON, plain sockets for HTTP. */
#define _GNU_SOURCE
#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define VERSION "0.2.0"

static const char *host = "127.0.0.1";
static char port[16] = "6770";
static char token[512];
static long watched_pid;        /* --pid: to tell "process exited" from other failures */
static unsigned interval_ms = 500;

/* ---- HTTP ---- */

struct reply {
    int status;                 /* 0 when no answer: err says why */
    char err[256];
    char *body;
};

static void reply_free(struct reply *r)
{
    free(r->body);
    r->body = NULL;
}

static int connect_to(char *err, size_t errsize)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errsize, "cannot connect to %s:%s: %s", host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, saved = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { saved = errno; continue; }
        struct timeval tv = { 2, 0 };
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        const char *why = saved == ECONNREFUSED ? "connection refused" : strerror(saved);
        snprintf(err, errsize, "cannot connect to %s:%s: %s", host, port, why);
    }
    return fd;
}

static struct reply get(const char *path)
{
    struct reply r = { 0 };
    int fd = connect_to(r.err, sizeof r.err);
    if (fd < 0) return r;
    char req[1024];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s%s%s\r\n",
                     path, host, token[0] ? "Authorization: Bearer " : "", token, token[0] ? "\r\n" : "");
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        snprintf(r.err, sizeof r.err, "cannot send to %s:%s: %s", host, port, strerror(errno));
        close(fd);
        return r;
    }
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (len == cap) buf = realloc(buf, (cap *= 2) + 1);
        ssize_t got = recv(fd, buf + len, cap - len, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        len += (size_t)got;
    }
    close(fd);
    buf[len] = 0;
    char *body = strstr(buf, "\r\n\r\n");
    if (strncmp(buf, "HTTP/1.", 7) != 0 || !body || len < 12) {
        snprintf(r.err, sizeof r.err, "%s:%s answered something that is not HTTP", host, port);
        free(buf);
        return r;
    }
    r.status = atoi(buf + 9);
    memmove(buf, body + 4, len - (size_t)(body + 4 - buf) + 1);
    r.body = buf;
    return r;
}

/* The JSON of an endpoint, or NULL with a plain message in err. */
static json_t *get_json(const char *path, char *err, size_t errsize, int *status)
{
    struct reply r = get(path);
    *status = r.status;
    if (!r.status) {
        snprintf(err, errsize, "%s", r.err);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loads(r.body, 0, &je);
    reply_free(&r);
    if (*status != 200) {
        const char *msg = j ? json_string_value(json_object_get(j, "error")) : NULL;
        snprintf(err, errsize, "%d: %s", *status, msg ? msg : "error");
        json_decref(j);
        return NULL;
    }
    if (!j) snprintf(err, errsize, "%s%s: bad JSON (%s)", host, path, je.text);
    return j;
}

/* ---- the process registry (hotpath-run prometheus-targets reads the same files) ---- */

static void registry_dir(char *out, size_t size)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/') snprintf(out, size, "%s/hotpath", xdg);
    else snprintf(out, size, "/tmp/hotpath-%u", (unsigned)getuid());
}

/* Only a private directory of our own (0700), as the profiler makes it. */
static int private_dir(const char *dir)
{
    struct stat st;
    return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0;
}

static json_t *registry_entry(const char *dir, const char *name)
{
    char path[1024];
    if (!private_dir(dir)) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid()) return NULL;
    return json_load_file(path, 0, NULL);
}

static int list_processes(void)
{
    char dir[512];
    registry_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    printf("%-8s %-6s %-6s %s\n", "PID", "PORT", "TOKEN", "COMMAND");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (pid <= 0 || strcmp(end, ".json") != 0) continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) continue;     /* stale */
        json_t *j = registry_entry(dir, e->d_name);
        if (!j) continue;
        printf("%-8ld %-6lld %-6s %s\n", pid, (long long)json_integer_value(json_object_get(j, "port")),
               json_is_true(json_object_get(j, "token_required")) ? "yes" : "no",
               json_string_value(json_object_get(j, "command")) ?: "?");
        json_decref(j);
    }
    closedir(d);
    return 0;
}

static int attach_pid(long pid)
{
    char dir[512], name[64];
    registry_dir(dir, sizeof dir);
    snprintf(name, sizeof name, "%ld.json", pid);
    json_t *j = registry_entry(dir, name);
    if (!j) {
        fprintf(stderr, "hotpath-console: no profiled process %ld registered in %s (see hotpath-console --list)\n", pid, dir);
        return -1;
    }
    snprintf(port, sizeof port, "%lld", (long long)json_integer_value(json_object_get(j, "port")));
    const char *t = json_string_value(json_object_get(j, "token"));
    if (t && !token[0]) snprintf(token, sizeof token, "%s", t);
    json_decref(j);
    watched_pid = pid;
    return 0;
}

/* ---- formatting ---- */

static void fmt_bytes(char *out, size_t size, double v)
{
    static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
    int u = 0;
    double a = v < 0 ? -v : v;
    while (a >= 1024 && u < 4) { a /= 1024; v /= 1024; u++; }
    if (u == 0) snprintf(out, size, "%.0f %s", v, units[u]);
    else snprintf(out, size, "%.1f %s", v, units[u]);
}

static void fmt_ns(char *out, size_t size, double ns)
{
    if (ns < 1e3) snprintf(out, size, "%.0f ns", ns);
    else if (ns < 1e6) snprintf(out, size, "%.2f us", ns / 1e3);
    else if (ns < 1e9) snprintf(out, size, "%.2f ms", ns / 1e6);
    else snprintf(out, size, "%.2f s", ns / 1e9);
}

/* ---- tables: every tab fills one; the screen code sorts and draws it ---- */

#define MAXCOLS 11
enum colour { PLAIN, GREEN, RED };

struct row {
    char cell[MAXCOLS][96];
    double key[MAXCOLS];
    enum colour colour;
};

struct table {
    const char *cols[MAXCOLS];
    int widths[MAXCOLS];
    int ncols;
    struct row *rows;
    int n, cap;
    char note[256];             /* a line above the table: a view not available, and why */
    unsigned left;              /* columns aligned left (bit per column), the others right */
    int colour_col;             /* the column drawn in the row's colour, -1 none */
};

static struct row *add_row(struct table *t)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 32;
        t->rows = realloc(t->rows, (size_t)t->cap * sizeof *t->rows);
    }
    struct row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* A cell's text; a name (column 0) longer than a cell keeps its end, which tells names apart. */
static void cell(struct row *r, int c, double key, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int len = (int)strlen(text), room = (int)sizeof r->cell[c] - 1;
    if (c == 0 && len > room) snprintf(r->cell[c], sizeof r->cell[c], "...%.*s", room - 3, text + len - (room - 3));
    else snprintf(r->cell[c], sizeof r->cell[c], "%.*s", room, text);
    r->key[c] = key;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "-";
}

/* The first column (names) takes the width the terminal has beyond the others' (up to what a
 * cell holds): paths and call stacks cut at 36 characters read alike. */
static void set_cols(struct table *t, int n, const char *const *cols, const int *widths)
{
    t->ncols = n;
    int used = 0;
    for (int i = 0; i < n; i++) {
        t->cols[i] = cols[i];
        t->widths[i] = widths[i];
        used += widths[i] + 2;
    }
    int room = COLS - used, most = (int)sizeof ((struct row *)0)->cell[0] - 1;
    if (room > 0) t->widths[0] = t->widths[0] + room < most ? t->widths[0] + room : most;
}

static void threads_table(struct table *t, json_t *threads, int mode)
{
    static const char *const cols[] = { "Thread", "TID", "Status", "CPU%", "Max%", "User", "Sys", "Alloc", "Dealloc", "Diff", "Trend" };
    static const int w[] = { 24, 8, 11, 7, 7, 10, 10, 10, 10, 10, 16 };
    set_cols(t, 11, cols, w);
    t->left = 1u << 0 | 1u << 2;
    t->colour_col = 2;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(threads, "rows"), i, r) {
        struct row *row = add_row(t);
        char a[32], b[32], c[32];
        const char *status = str(r, "status");
        int blocked = json_is_object(json_object_get(r, "blocked_on"));
        cell(row, 0, (double)i, "%s", str(r, "name"));
        cell(row, 1, num(r, "os_tid"), "%.0f", num(r, "os_tid"));
        cell(row, 2, 0, "%s", blocked ? "Blocked" : status);
        row->colour = blocked ? RED : strcmp(status, "Running") == 0 ? GREEN : PLAIN;
        json_t *pct = json_object_get(r, "cpu_percent"), *max = json_object_get(r, "max_cpu_percent");
        if (json_is_number(pct)) cell(row, 3, json_number_value(pct), "%.1f%%", json_number_value(pct));
        else cell(row, 3, -1, "-");
        if (json_is_number(max)) cell(row, 4, json_number_value(max), "%.1f%%", json_number_value(max));
        else cell(row, 4, -1, "-");
        cell(row, 5, num(r, "cpu_user_ns"), "%.3fs", num(r, "cpu_user_ns") / 1e9);
        cell(row, 6, num(r, "cpu_sys_ns"), "%.3fs", num(r, "cpu_sys_ns") / 1e9);
        fmt_bytes(a, sizeof a, num(r, "alloc_bytes"));
        fmt_bytes(b, sizeof b, num(r, "dealloc_bytes"));
        fmt_bytes(c, sizeof c, num(r, "diff_bytes"));
        cell(row, 7, num(r, "alloc_bytes"), "%s", a);
        cell(row, 8, num(r, "dealloc_bytes"), "%s", b);
        cell(row, 9, num(r, "diff_bytes"), "%s", c);
        /* growth per minute of the live memory; "grow" marks steady growth (diff_growing) */
        json_t *trend = json_object_get(r, "diff_trend_bytes_per_min");
        if (json_is_number(trend)) {
            fmt_bytes(c, sizeof c, json_number_value(trend));
            cell(row, 10, json_number_value(trend), "%s%s%s/m", json_is_true(json_object_get(r, "diff_growing")) ? "grow " : "",
                 json_number_value(trend) > 0 ? "+" : "", c);
        } else {
            cell(row, 10, 0, "-");
        }
    }
    (void)mode;
}

static void lock_rows(struct table *t, json_t *rows, const char *kind, const char *mode)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        json_t *m = mode ? json_object_get(r, mode) : r;
        if (mode && num(m, "locks_count") == 0) continue;
        struct row *row = add_row(t);
        char a[32], b[32], c[32];
        cell(row, 0, (double)t->n, "%s", str(r, "name"));
        cell(row, 1, 0, "%s%s%s", kind, mode ? " " : "", mode ? mode : "");
        cell(row, 2, num(m, "locks_count"), "%.0f", num(m, "locks_count"));
        cell(row, 3, num(m, "contended_count"), "%.0f", num(m, "contended_count"));
        fmt_ns(a, sizeof a, num(m, "wait_total_ns"));
        fmt_ns(b, sizeof b, num(m, "wait_p99_ns"));
        fmt_ns(c, sizeof c, num(m, "hold_avg_ns"));
        cell(row, 4, num(m, "wait_total_ns"), "%s", a);
        cell(row, 5, num(m, "wait_p99_ns"), "%s", b);
        cell(row, 6, num(m, "hold_avg_ns"), "%s", c);
        if (num(m, "contended_count") > 0) row->colour = RED;
    }
}

static void io_table(struct table *t, json_t *io)
{
    static const char *const cols[] = { "Resource", "Kind", "Reads", "Read", "Writes", "Written", "Time" };
    static const int w[] = { 36, 7, 9, 10, 9, 10, 10 };
    set_cols(t, 7, cols, w);
    t->left = 3;
    t->colour_col = -1;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(io, "resources"), i, r) {
        json_t *rd = json_object_get(r, "read"), *wr = json_object_get(r, "write");
        struct row *row = add_row(t);
        char a[32], b[32], c[32];
        double total = num(rd, "total_ns") + num(wr, "total_ns");
        cell(row, 0, (double)i, "%s", str(r, "name"));
        cell(row, 1, 0, "%s", str(r, "kind"));
        cell(row, 2, num(rd, "op_count"), "%.0f", num(rd, "op_count"));
        fmt_bytes(a, sizeof a, num(rd, "bytes"));
        cell(row, 3, num(rd, "bytes"), "%s", a);
        cell(row, 4, num(wr, "op_count"), "%.0f", num(wr, "op_count"));
        fmt_bytes(b, sizeof b, num(wr, "bytes"));
        cell(row, 5, num(wr, "bytes"), "%s", b);
        fmt_ns(c, sizeof c, total);
        cell(row, 6, total, "%s", c);
    }
}

/* The CPU profile (functions_cpu), when the process serves it: each function with its self and
 * total samples. */
static void functions_table(struct table *t, json_t *f)
{
    static const char *const cols[] = { "Function", "Module", "Self", "Total", "Self%", "Total%" };
    static const int w[] = { 40, 24, 10, 10, 7, 7 };
    set_cols(t, 6, cols, w);
    t->left = 3;
    t->colour_col = -1;
    json_t *rows = json_object_get(f, "functions");
    if (json_is_false(json_object_get(f, "enabled")))
        snprintf(t->note, sizeof t->note, "profile off: %s", str(f, "off_reason"));
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        struct row *row = add_row(t);
        double self = num(r, "self_count"), total = num(r, "total_count");
        const char *m = str(r, "module"), *slash = strrchr(m, '/');
        cell(row, 0, (double)i, "%s", str(r, "name"));
        cell(row, 1, 0, "%s", slash ? slash + 1 : m);
        cell(row, 2, self, "%.0f", self);
        cell(row, 3, total, "%.0f", total);
        cell(row, 4, num(r, "self_percent"), "%.1f%%", num(r, "self_percent"));
        cell(row, 5, num(r, "total_percent"), "%.1f%%", num(r, "total_percent"));
    }
}

/* Allocation call sites (functions_alloc): estimated bytes, calls and live bytes by function. */
static void alloc_sites_table(struct table *t, json_t *f)
{
    static const char *const cols[] = { "Function", "Module", "Bytes", "Calls", "Live", "Total%" };
    static const int w[] = { 40, 24, 10, 10, 10, 7 };
    set_cols(t, 6, cols, w);
    t->left = 3;
    t->colour_col = -1;
    if (json_is_false(json_object_get(f, "enabled")))
        snprintf(t->note, sizeof t->note, "allocation sampling off (HOTPATH_ALLOC_SAMPLE_BYTES=0)");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(f, "functions"), i, r) {
        struct row *row = add_row(t);
        char bytes[32], live[32];
        const char *m = str(r, "module"), *slash = strrchr(m, '/');
        fmt_bytes(bytes, sizeof bytes, num(r, "alloc_bytes"));
        fmt_bytes(live, sizeof live, num(r, "live_bytes"));
        cell(row, 0, (double)i, "%s", str(r, "name"));
        cell(row, 1, 0, "%s", slash ? slash + 1 : m);
        cell(row, 2, num(r, "alloc_bytes"), "%s", bytes);
        cell(row, 3, num(r, "alloc_count"), "%.0f", num(r, "alloc_count"));
        cell(row, 4, num(r, "live_bytes"), "%s", live);
        cell(row, 5, num(r, "alloc_percent"), "%.1f%%", num(r, "alloc_percent"));
    }
}

/* ---- the screen ---- */

static const char *const tab_names[] = { "1 Threads", "2 Locks", "3 I/O", "4 Allocations", "5 CPU" };
static int tab, sort_col = -1, selected, paused, sort_desc = 1;

struct state {
    json_t *status, *threads, *view[2];
    char error[300];
    int ever_connected;
};

static int sort_col_global;
static int by_key(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    double kx = x->key[sort_col_global], ky = y->key[sort_col_global];
    if (kx == ky) return 0;
    return (kx < ky) == sort_desc ? 1 : -1;
}

static void draw_table(struct table *t, int top)
{
    int rows = LINES - top - 2;
    if (t->note[0]) { mvprintw(top++, 0, "%.*s", COLS - 1, t->note); rows--; }
    if (sort_col >= t->ncols) sort_col = -1;
    if (sort_col >= 0) { sort_col_global = sort_col; qsort(t->rows, (size_t)t->n, sizeof *t->rows, by_key); }
    attron(A_REVERSE);
    move(top, 0);
    clrtoeol();
    int x = 0;
    for (int c = 0; c < t->ncols && x < COLS; c++) {
        mvprintw(top, x, "%-*.*s%s", t->widths[c], t->widths[c], t->cols[c], c == sort_col ? (sort_desc ? "v" : "^") : " ");
        x += t->widths[c] + 2;
    }
    attroff(A_REVERSE);
    if (selected >= t->n) selected = t->n ? t->n - 1 : 0;
    if (selected < 0) selected = 0;
    int first = selected >= rows ? selected - rows + 1 : 0;
    for (int i = first; i < t->n && i - first < rows; i++) {
        const struct row *r = &t->rows[i];
        int y = top + 1 + i - first;
        if (i == selected) attron(A_BOLD);
        x = 0;
        for (int c = 0; c < t->ncols && x < COLS; c++) {
            int colour = c == t->colour_col ? (int)r->colour : PLAIN;
            if (colour) attron(COLOR_PAIR(colour));
            int right = !(t->left & (1u << c)), len = (int)strlen(r->cell[c]);
            if (right) mvprintw(y, x, "%*.*s ", t->widths[c], t->widths[c], r->cell[c]);
            else if (c == 0 && len > t->widths[c] && t->widths[c] > 3)   /* a name: its end tells */
                mvprintw(y, x, "...%s ", r->cell[c] + len - (t->widths[c] - 3));
            else mvprintw(y, x, "%-*.*s ", t->widths[c], t->widths[c], r->cell[c]);
            if (colour) attroff(COLOR_PAIR(colour));
            x += t->widths[c] + 2;
        }
        if (i == selected) attroff(A_BOLD);
    }
    if (t->n == 0) mvprintw(top + 1, 0, "(no rows yet)");
}

static void draw(struct state *s)
{
    erase();
    json_t *st = s->status, *hd = json_object_get(s->threads, "header");
    char rss[32], al[32], de[32], up[32];
    if (st) {
        fmt_bytes(rss, sizeof rss, num(hd, "rss_bytes"));
        fmt_bytes(al, sizeof al, num(hd, "alloc_bytes"));
        fmt_bytes(de, sizeof de, num(hd, "dealloc_bytes"));
        fmt_ns(up, sizeof up, num(st, "uptime_ns"));
        mvprintw(0, 0, "hotpath  pid %.0f  %s  up %s  RSS %s  threads %.0f  alloc %s  dealloc %s%s",
                 num(st, "pid"), str(st, "command"), up, rss, num(hd, "thread_count"), al, de,
                 paused ? "  [paused]" : "");
    } else {
        mvprintw(0, 0, "hotpath  %s:%s%s", host, port, paused ? "  [paused]" : "");
    }
    int x = 0;
    for (int i = 0; i < 5; i++) {
        if (i == tab) attron(A_REVERSE);
        mvprintw(1, x, " %s ", tab_names[i]);
        if (i == tab) attroff(A_REVERSE);
        x += (int)strlen(tab_names[i]) + 3;
    }
    if (s->error[0]) {
        attron(COLOR_PAIR(RED) | A_BOLD);
        mvprintw(3, 0, "%.*s", COLS - 1, s->error);
        attroff(COLOR_PAIR(RED) | A_BOLD);
    } else {
        struct table t = { 0 };
        if (tab == 0) threads_table(&t, s->threads, 0);
        else if (tab == 1) {
            static const char *const cols[] = { "Lock", "Kind", "Locks", "Contended", "Wait", "Wait p99", "Hold avg" };
            static const int w[] = { 36, 12, 10, 10, 10, 10, 10 };
            set_cols(&t, 7, cols, w);
            t.left = 3;
            t.colour_col = 3;
            lock_rows(&t, json_object_get(s->view[0], "rows"), "mutex", NULL);
            lock_rows(&t, json_object_get(s->view[1], "rows"), "rwlock", "read");
            lock_rows(&t, json_object_get(s->view[1], "rows"), "rwlock", "write");
            if (!s->view[0] && !s->view[1]) snprintf(t.note, sizeof t.note, "locks views not available (HOTPATH_REPORT)");
        } else if (tab == 2) {
            io_table(&t, s->view[0]);
            if (!s->view[0]) snprintf(t.note, sizeof t.note, "view not available: io (HOTPATH_REPORT)");
        } else {
            const char *key = tab == 3 ? "functions_alloc" : "functions_cpu";
            if (s->view[0] && tab == 3) alloc_sites_table(&t, s->view[0]);
            else if (s->view[0]) functions_table(&t, s->view[0]);
            else {
                /* the per-function view is not served: the per-thread figures instead */
                threads_table(&t, s->threads, 0);
                if (sort_col < 0) { sort_col_global = tab == 3 ? 7 : 5; qsort(t.rows, (size_t)t.n, sizeof *t.rows, by_key); }
                snprintf(t.note, sizeof t.note, "view not available: %s; per thread instead:", key);
            }
        }
        draw_table(&t, 3);
        free(t.rows);
    }
    mvprintw(LINES - 1, 0, "q quit  p pause  j/k move  s sort  1-5 tabs   every %u ms", interval_ms);
    refresh();
}

static void clear_state(struct state *s)
{
    json_decref(s->status);
    json_decref(s->threads);
    json_decref(s->view[0]);
    json_decref(s->view[1]);
    s->status = s->threads = s->view[0] = s->view[1] = NULL;
}

static void poll_once(struct state *s)
{
    char err[300] = "";
    int status;
    json_t *st = get_json("/profiler_status", err, sizeof err, &status);
    if (!st) {
        clear_state(s);
        if (status == 401) snprintf(s->error, sizeof s->error, "401: %s (--token, or HOTPATH_METRICS_AUTH_TOKEN)",
                                    strstr(err, "wrong") ? "wrong token" : "token required");
        else if ((watched_pid && kill((pid_t)watched_pid, 0) != 0 && errno == ESRCH) ||
                 (s->ever_connected && status == 0))
            snprintf(s->error, sizeof s->error, "process exited (%s)", err);
        else snprintf(s->error, sizeof s->error, "%s", err);
        return;
    }
    s->ever_connected = 1;
    s->error[0] = 0;
    clear_state(s);
    s->status = st;
    s->threads = get_json("/threads", err, sizeof err, &status);
    static const char *const views[5][2] = { { NULL, NULL }, { "/mutexes", "/rw_locks" }, { "/io", NULL },
                                             { "/functions_alloc", NULL }, { "/functions_cpu", NULL } };
    for (int i = 0; i < 2; i++)
        if (views[tab][i]) s->view[i] = get_json(views[tab][i], err, sizeof err, &status);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: hotpath-console [--host H] [--port P] [--token T] [--pid N] [--interval MS]\n"
               "       hotpath-console --list\n\n"
               "A live view of a process profiled by hotpath (its metrics server).\n"
               "  --host H       server address (default 127.0.0.1)\n"
               "  --port P       server port (default HOTPATH_METRICS_PORT, else 6770)\n"
               "  --token T      Authorization token (default HOTPATH_METRICS_AUTH_TOKEN)\n"
               "  --pid N        attach to profiled process N (port and token from its registry file)\n"
               "  --list         list the profiled processes of this user and exit\n"
               "  --interval MS  refresh every MS milliseconds (default HOTPATH_TUI_REFRESH_INTERVAL_MS, else 500)\n"
               "keys: q quit, p pause, j/k or arrows move, s cycle the sort column, 1-5 tabs\n");
}

int main(int argc, char **argv)
{
    const char *e;
    if ((e = getenv("HOTPATH_METRICS_PORT")) && *e) snprintf(port, sizeof port, "%s", e);
    if ((e = getenv("HOTPATH_METRICS_AUTH_TOKEN")) && *e && strcmp(e, "auto") != 0) snprintf(token, sizeof token, "%s", e);
    if ((e = getenv("HOTPATH_TUI_REFRESH_INTERVAL_MS")) && atoi(e) >= 50) interval_ms = (unsigned)atoi(e);
    static const struct option opts[] = {
        { "host", required_argument, 0, 'H' }, { "port", required_argument, 0, 'P' },
        { "token", required_argument, 0, 'T' }, { "pid", required_argument, 0, 'p' },
        { "list", no_argument, 0, 'l' }, { "interval", required_argument, 0, 'i' },
        { "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
    };
    int c, list = 0;
    long pid = 0;
    while ((c = getopt_long(argc, argv, "H:P:T:p:li:h", opts, NULL)) != -1) {
        switch (c) {
        case 'H': host = optarg; break;
        case 'P': snprintf(port, sizeof port, "%s", optarg); break;
        case 'T': snprintf(token, sizeof token, "%s", optarg); break;
        case 'p': pid = atol(optarg); break;
        case 'l': list = 1; break;
        case 'i': interval_ms = (unsigned)atoi(optarg); if (interval_ms < 50) interval_ms = 50; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("hotpath-console %s\n", VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) { usage(stderr); return 2; }
    if (list) return list_processes();
    if (pid && attach_pid(pid) != 0) return 1;
    signal(SIGPIPE, SIG_IGN);

    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
        init_pair(GREEN, COLOR_GREEN, -1);
        init_pair(RED, COLOR_RED, -1);
    }
    struct state s = { 0 };
    struct timespec last = { 0 };
    int quit = 0, dirty = 1;
    while (!quit) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long since = (now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000;
        if (!paused && since >= (long)interval_ms) {
            poll_once(&s);
            last = now;
            dirty = 1;
        }
        if (dirty) { draw(&s); dirty = 0; }
        timeout(50);
        int ch = getch();
        if (ch == ERR) continue;
        dirty = 1;
        switch (ch) {
        case 'q': case 'Q': quit = 1; break;
        case 'p': case 'P': paused = !paused; break;
        case 'j': case KEY_DOWN: selected++; break;
        case 'k': case KEY_UP: if (selected > 0) selected--; break;
        case 's': case 'S': sort_col = sort_col + 1 >= MAXCOLS ? -1 : sort_col + 1; break;
        case '1': case '2': case '3': case '4': case '5':
            if (tab != ch - '1') { tab = ch - '1'; selected = 0; sort_col = -1; last.tv_sec = 0; last.tv_nsec = 0; }
            break;
        default: break;
        }
    }
    endwin();
    clear_state(&s);
    return 0;
}
