/* hotpath-console — a terminal view of a profiled process, live: polls the metrics server's JSON
 * endpoints (docs/REFERENCE.md "Live views") every HOTPATH_TUI_REFRESH_INTERVAL_MS and shows them in tabs,
 * one a view (views/list.h; each view's tab: views/NAME/NAME_tab.c, console/tab.h).
 * Its own process: ncurses for the screen, jansson for JSON, plain sockets for HTTP. */
#define _GNU_SOURCE
#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include "console/tab.h"
#include "views/list.h"

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

/* The user's token, the registry directory's `token` file (docs/REFERENCE.md "Live views"):
 * only a regular file of ours with no group or other access. */
static void read_user_token(void)
{
    char dir[512], path[600];
    registry_dir(dir, sizeof dir);
    if (!private_dir(dir)) return;
    snprintf(path, sizeof path, "%s/token", dir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    char buf[sizeof token];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0)
        n = read(fd, buf, sizeof buf - 1);
    close(fd);
    while (n > 0 && strchr(" \t\r\n", buf[n - 1])) n--;
    if (n <= 0) return;
    buf[n] = 0;
    snprintf(token, sizeof token, "%s", buf);
}

/* The live registered processes, in pid order. */
struct proc { long pid; long long port; int token_required; char command[200]; };

static int by_pid(const void *a, const void *b)
{
    const struct proc *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static size_t registered(struct proc *out, size_t max)
{
    char dir[512];
    registry_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (pid <= 0 || strcmp(end, ".json") != 0) continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) continue;     /* stale */
        json_t *j = registry_entry(dir, e->d_name);
        if (!j) continue;
        out[n].pid = pid;
        out[n].port = (long long)json_integer_value(json_object_get(j, "port"));
        out[n].token_required = json_is_true(json_object_get(j, "token_required"));
        snprintf(out[n].command, sizeof out[n].command, "%s", json_string_value(json_object_get(j, "command")) ?: "?");
        json_decref(j);
        n++;
    }
    closedir(d);
    qsort(out, n, sizeof *out, by_pid);
    return n;
}

#define MAX_LISTED 256

static int list_processes(void)
{
    static struct proc procs[MAX_LISTED];
    size_t n = registered(procs, MAX_LISTED);
    printf("%-8s %-6s %-6s %s\n", "PID", "PORT", "TOKEN", "COMMAND");
    for (size_t i = 0; i < n; i++)
        printf("%-8ld %-6lld %-6s %s\n", procs[i].pid, procs[i].port, procs[i].token_required ? "yes" : "no",
               procs[i].command);
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
    json_decref(j);
    watched_pid = pid;
    return 0;
}

/* Neither --port nor --pid: the one registered process, or the user's pick when there are
 * several (a numbered list on the terminal; with no terminal, one line and exit status 2);
 * none registered: the default port. 0, or the exit status. */
static int choose_process(void)
{
    static struct proc procs[MAX_LISTED];
    size_t n = registered(procs, MAX_LISTED);
    if (n == 0) return 0;
    size_t pick = 0;
    if (n > 1) {
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
            fprintf(stderr, "hotpath-console: %zu profiled processes:", n);
            for (size_t i = 0; i < n; i++)
                fprintf(stderr, "%s %ld (%s)", i ? "," : "", procs[i].pid, procs[i].command);
            fprintf(stderr, "; choose one with --pid\n");
            return 2;
        }
        printf("%zu profiled processes:\n", n);
        for (size_t i = 0; i < n; i++)
            printf("%3zu) %-8ld %s\n", i + 1, procs[i].pid, procs[i].command);
        printf("which one? [1-%zu] ", n);
        fflush(stdout);
        char line[64];
        char *end;
        if (!fgets(line, sizeof line, stdin)) return 2;
        unsigned long k = strtoul(line, &end, 10);
        while (*end == ' ' || *end == '\n' || *end == '\r') end++;
        if (end == line || *end || k < 1 || k > n) {
            fprintf(stderr, "hotpath-console: no process %s", line);
            return 2;
        }
        pick = k - 1;
    }
    return attach_pid(procs[pick].pid) == 0 ? 0 : 1;
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

/* ---- tables: every tab fills one from its data (console/tab.h); the screen code sorts and draws it ---- */

#define MAXCOLS HP_TAB_COLUMNS
enum colour { PLAIN, GREEN, RED };

/* The tabs, one a view (views/list.h), in their order. */
#define DECLARE(name, on) extern const struct hp_tab hp_##name##_tab;
HP_VIEW_LIST(DECLARE)
#define ENTRY(name, on) &hp_##name##_tab,
static const struct hp_tab *tabs[] = { HP_VIEW_LIST(ENTRY) };
static const int ntabs = (int)(sizeof tabs / sizeof *tabs);

static void order_tabs(void)
{
    for (int i = 1; i < ntabs; i++)
        for (int j = i; j > 0 && tabs[j]->order < tabs[j - 1]->order; j--) {
            const struct hp_tab *t = tabs[j];
            tabs[j] = tabs[j - 1];
            tabs[j - 1] = t;
        }
}

struct row {
    char cell[MAXCOLS][96];
    double key[MAXCOLS];
    enum colour colour[MAXCOLS];
};

struct table {
    const char *cols[MAXCOLS];
    int widths[MAXCOLS];
    int ncols;
    struct row *rows;
    int n, cap;
    char note[256];             /* a line above the table: a view not available, and why */
    unsigned left;              /* columns aligned left (bit per column), the others right */
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

/* A row's field by its dotted path (len characters of it), in `within` first, then in the row. */
static json_t *field(json_t *row, json_t *within, const char *path, size_t len)
{
    for (int pass = 0; pass < 2; pass++) {
        json_t *o = pass == 0 ? within : row;
        const char *p = path, *end = path + len;
        while (o && p < end) {
            const char *dot = memchr(p, '.', (size_t)(end - p));
            size_t n = dot ? (size_t)(dot - p) : (size_t)(end - p);
            char key[128];
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            o = json_object_get(o, key);
            p += n + (dot != NULL);
        }
        if (o) return o;
    }
    return NULL;
}

static json_t *value(json_t *row, json_t *within, const char *path)
{
    return path ? field(row, within, path, strlen(path)) : NULL;
}

/* A numeric field, 0 if none; "a+b": their sum. */
static double number(json_t *row, json_t *within, const char *path)
{
    double sum = 0;
    for (const char *p = path; p; ) {
        const char *plus = strchr(p, '+');
        json_t *v = field(row, within, p, plus ? (size_t)(plus - p) : strlen(p));
        if (json_is_number(v)) sum += json_number_value(v);
        p = plus ? plus + 1 : NULL;
    }
    return sum;
}

static int text_format(enum hp_tab_format f)
{
    return f == HP_TAB_TEXT || f == HP_TAB_LABEL || f == HP_TAB_MODULE || f == HP_TAB_STATUS;
}

/* The first column (names) takes the width the terminal has beyond the others' (up to what a
 * cell holds): paths and call stacks cut at 36 characters read alike. */
static void set_cols(struct table *t, const struct hp_tab *tab)
{
    int used = 0;
    t->ncols = 0;
    t->left = 0;
    for (int i = 0; i < HP_TAB_COLUMNS && tab->columns[i].title; i++) {
        t->cols[i] = tab->columns[i].title;
        t->widths[i] = tab->columns[i].width;
        if (text_format(tab->columns[i].format)) t->left |= 1u << i;
        used += t->widths[i] + 2;
        t->ncols++;
    }
    int room = COLS - used, most = (int)sizeof ((struct row *)0)->cell[0] - 1;
    if (room > 0) t->widths[0] = t->widths[0] + room < most ? t->widths[0] + room : most;
}

static void fill_cell(struct row *row, int c, const struct hp_tab_column *col, const struct hp_tab_source *src,
                      json_t *r, json_t *m, int position)
{
    char a[32];
    json_t *v = value(r, m, col->field);
    double x = col->field ? number(r, m, col->field) : 0;
    switch (col->format) {
    case HP_TAB_TEXT: {
        const char *s = json_string_value(v);
        cell(row, c, c == 0 ? position : 0, "%s", s ? s : "-");
        break;
    }
    case HP_TAB_LABEL: cell(row, c, 0, "%s", src->label ? src->label : ""); break;
    case HP_TAB_MODULE: {
        const char *s = json_string_value(v), *slash;
        if (!s) s = "-";
        slash = strrchr(s, '/');
        cell(row, c, 0, "%s", slash ? slash + 1 : s);
        break;
    }
    case HP_TAB_STATUS: {
        const char *s = json_string_value(v);
        int blocked = json_is_object(value(r, m, col->also));
        if (!s) s = "-";
        cell(row, c, 0, "%s", blocked ? "Blocked" : s);
        row->colour[c] = blocked ? RED : strcmp(s, "Running") == 0 ? GREEN : PLAIN;
        break;
    }
    case HP_TAB_COUNT: cell(row, c, x, "%.0f", x); break;
    case HP_TAB_BYTES: fmt_bytes(a, sizeof a, x); cell(row, c, x, "%s", a); break;
    case HP_TAB_NS: fmt_ns(a, sizeof a, x); cell(row, c, x, "%s", a); break;
    case HP_TAB_PERCENT:
        if (json_is_number(v)) cell(row, c, x, "%.1f%%", x);
        else cell(row, c, -1, "-");
        break;
    case HP_TAB_SECONDS: cell(row, c, x, "%.3fs", x / 1e9); break;
    case HP_TAB_TREND:   /* growth per minute of the live memory; "grow" marks steady growth */
        if (json_is_number(v)) {
            fmt_bytes(a, sizeof a, x);
            cell(row, c, x, "%s%s%s/m", json_is_true(value(r, m, col->also)) ? "grow " : "", x > 0 ? "+" : "", a);
        } else {
            cell(row, c, 0, "-");
        }
        break;
    }
    if (col->alarm && x > 0) row->colour[c] = RED;
}

/* A tab's rows from its endpoints' JSON (docs, one a source; NULL: it did not answer). */
static void fill_rows(struct table *t, const struct hp_tab *tab, json_t *const *docs)
{
    for (int k = 0; k < HP_TAB_SOURCES && tab->sources[k].endpoint; k++) {
        const struct hp_tab_source *src = &tab->sources[k];
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(docs[k], src->rows), i, r) {
            json_t *m = src->within ? json_object_get(r, src->within) : NULL;
            if (src->skip_zero && num(m, src->skip_zero) == 0) continue;
            struct row *row = add_row(t);
            for (int c = 0; c < t->ncols; c++) fill_cell(row, c, &tab->columns[c], src, r, m, t->n);
        }
    }
}

/* ---- the screen ---- */

static int tab, sort_col = -1, selected, paused, sort_desc = 1;

/* What a poll fetched: the status, the threads (the header's figures), and each endpoint the
 * tab shown reads, once. */
#define MAXDOCS (2 + HP_TAB_SOURCES)
struct state {
    json_t *status;
    const char *endpoint[MAXDOCS];
    json_t *doc[MAXDOCS];
    int ndocs;
    char error[300];
    int ever_connected;
};

/* Where a poll keeps an endpoint's JSON, -1 when it did not fetch it. */
static int doc_slot(const struct state *s, const char *endpoint)
{
    for (int i = 0; i < s->ndocs; i++)
        if (strcmp(s->endpoint[i], endpoint) == 0) return i;
    return -1;
}

static json_t *doc_of(const struct state *s, const char *endpoint)
{
    int i = doc_slot(s, endpoint);
    return i < 0 ? NULL : s->doc[i];
}

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
            int colour = (int)r->colour[c];
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

/* The tab shown: its rows; when none of its endpoints answered, its note, and the first tab's
 * rows instead if it says so. */
static void tab_table(struct table *t, const struct state *s)
{
    const struct hp_tab *tb = tabs[tab];
    json_t *docs[HP_TAB_SOURCES] = { 0 };
    int answered = 0;
    for (int k = 0; k < HP_TAB_SOURCES && tb->sources[k].endpoint; k++)
        answered |= (docs[k] = doc_of(s, tb->sources[k].endpoint)) != NULL;
    if (!answered && tb->instead) {
        const struct hp_tab *first = tabs[0];
        for (int k = 0; k < HP_TAB_SOURCES && first->sources[k].endpoint; k++)
            docs[k] = doc_of(s, first->sources[k].endpoint);
        set_cols(t, first);
        fill_rows(t, first, docs);
        for (int c = 0; c < t->ncols; c++)
            if (sort_col < 0 && strcmp(t->cols[c], tb->instead) == 0) {
                sort_col_global = c;
                qsort(t->rows, (size_t)t->n, sizeof *t->rows, by_key);
            }
        snprintf(t->note, sizeof t->note, "%s", tb->missing);
        return;
    }
    set_cols(t, tb);
    if (tb->off && json_is_false(json_object_get(docs[0], "enabled")))
        snprintf(t->note, sizeof t->note, "%s%s%s", tb->off, tb->off_reason ? ": " : "",
                 tb->off_reason ? str(docs[0], tb->off_reason) : "");
    fill_rows(t, tb, docs);
    if (!answered && tb->missing) snprintf(t->note, sizeof t->note, "%s", tb->missing);
}

static void draw(struct state *s)
{
    erase();
    json_t *st = s->status, *hd = json_object_get(doc_of(s, "/threads"), "header");
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
    for (int i = 0; i < ntabs; i++) {
        char name[64];
        snprintf(name, sizeof name, "%d %s", i + 1, tabs[i]->title);
        if (i == tab) attron(A_REVERSE);
        mvprintw(1, x, " %s ", name);
        if (i == tab) attroff(A_REVERSE);
        x += (int)strlen(name) + 3;
    }
    if (s->error[0]) {
        attron(COLOR_PAIR(RED) | A_BOLD);
        mvprintw(3, 0, "%.*s", COLS - 1, s->error);
        attroff(COLOR_PAIR(RED) | A_BOLD);
    } else {
        struct table t = { 0 };
        tab_table(&t, s);
        draw_table(&t, 3);
        free(t.rows);
    }
    mvprintw(LINES - 1, 0, "q quit  p pause  j/k move  s sort  1-%d tabs   every %u ms", ntabs, interval_ms);
    refresh();
}

static void clear_state(struct state *s)
{
    json_decref(s->status);
    s->status = NULL;
    for (int i = 0; i < s->ndocs; i++) json_decref(s->doc[i]);
    s->ndocs = 0;
}

/* An endpoint's JSON into the state, unless a poll fetched it already. */
static void fetch(struct state *s, const char *endpoint)
{
    char err[300] = "";
    int status;
    if (doc_slot(s, endpoint) >= 0) return;
    s->endpoint[s->ndocs] = endpoint;
    s->doc[s->ndocs++] = get_json(endpoint, err, sizeof err, &status);
}

static void poll_once(struct state *s)
{
    char err[300] = "";
    int status;
    json_t *st = get_json("/profiler_status", err, sizeof err, &status);
    if (!st) {
        clear_state(s);
        if (status == 401) snprintf(s->error, sizeof s->error, "401: %s (--token, HOTPATH_METRICS_AUTH_TOKEN, or the user's token file)",
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
    fetch(s, "/threads");
    for (int k = 0; k < HP_TAB_SOURCES && tabs[tab]->sources[k].endpoint; k++) fetch(s, tabs[tab]->sources[k].endpoint);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: hotpath-console [--host H] [--port P] [--token T] [--pid N] [--interval MS]\n"
               "       hotpath-console --list\n\n"
               "A live view of a process profiled by hotpath (its metrics server).\n"
               "  --host H       server address (default 127.0.0.1)\n"
               "  --port P       server port (default HOTPATH_METRICS_PORT, else 6770)\n"
               "  --token T      Authorization token (default HOTPATH_METRICS_AUTH_TOKEN, else the\n"
               "                 user's token file, token in the registry directory)\n"
               "  --pid N        attach to profiled process N (its port from its registry file)\n"
               "without --port or --pid: the one registered process; when there are several, it asks\n"
               "which (with no terminal it names them and exits with status 2)\n"
               "  --list         list the profiled processes of this user and exit\n"
               "  --interval MS  refresh every MS milliseconds (default HOTPATH_TUI_REFRESH_INTERVAL_MS, else 500)\n"
               "keys: q quit, p pause, j/k or arrows move, s cycle the sort column, 1-%d tabs\n", ntabs);
}

int main(int argc, char **argv)
{
    const char *e;
    int port_set = 0, no_token = 0;
    if ((e = getenv("HOTPATH_METRICS_PORT")) && *e) { snprintf(port, sizeof port, "%s", e); port_set = 1; }
    if ((e = getenv("HOTPATH_METRICS_AUTH_TOKEN")) && *e && strcmp(e, "auto") != 0) {
        if (strcmp(e, "none") == 0) no_token = 1;
        else snprintf(token, sizeof token, "%s", e);
    }
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
        case 'P': snprintf(port, sizeof port, "%s", optarg); port_set = 1; break;
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
    if (!pid && !port_set) {
        int rc = choose_process();
        if (rc) return rc;
    }
    if (!token[0] && !no_token) read_user_token();    /* one a server asks for none ignores */
    order_tabs();
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
        default:
            if (ch >= '1' && ch < '1' + ntabs && tab != ch - '1') {
                tab = ch - '1';
                selected = 0;
                sort_col = -1;
                last.tv_sec = 0;
                last.tv_nsec = 0;
            }
            break;
        }
    }
    endwin();
    clear_state(&s);
    return 0;
}
