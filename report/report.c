/* report.c — see report.h. The writer uses the platform's file calls (raw syscalls on Linux) and
 * the profiler's own memory only, so it can run while a program thread holds a libc lock (a report
 * requested by a signal). */
#define _GNU_SOURCE
#include "report.h"


#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#if !defined(__APPLE__)
#include "core/lines.h"
#endif
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/settings.h"
#if !defined(__APPLE__)
#endif
#include "format.h"
#if !defined(__APPLE__)
#include "html.h"
#endif
#include "json.h"
#include "out_file.h"
#include "report_settings.h"
#include "section.h"
#include "title.h"
#include "utf8.h"
#include "table.h"   /* the text tables' width */

/* The report's state: the process it describes, and where its final report goes. */
static struct {
    int pid;                          /* the process the report is of */
    uint64_t start_ns;                /* its start, for the wall time */
    char **argv;                      /* its command line */
    int argc;
    _Atomic int written;              /* the final report is written (or being written) */
    int stderr_copy;                  /* a copy of the original stderr kept for the report, -1 if none */
    int stderr_gone;                  /* fd 2 was not open at start, or a daemon let it go: a
                                       * later fd 2 is the program's, not the report's */
    _Atomic int new_session;          /* a session leader: hp_report_new_session */
    int fork_child;                   /* this image began as a fork child (no exec since) */
    int stderr_let_go;                /* fd 2 was replaced with no copy kept: the report goes to fd 2
                                       * only while that is the original stderr again */
    struct stat stderr_id;            /* the original stderr, to notice it was replaced */
    unsigned image;                   /* which image of the process this is (exec count) */
    _Atomic int ending_signal;        /* the signal the process is dying of, 0 if none */
    _Atomic int signal_tid;           /* the thread it was delivered to */
    int ppid;                         /* the parent when the image started */
    int exit_status;                  /* the status exit or _exit was given, when has_status */
    _Atomic int has_status;
    const char *exec_path;            /* what the image is exec'ing into, NULL if not (heap) */
} report = {
    .stderr_copy = -1,
};

void hp_report_begin(uint32_t main_record, int pid, int argc, char **argv)
{
    /* threads the program makes inherit the process's name until they set their own */
    char comm[16];
    hp_platform_thread_comm(comm);
    hp_registry_inherit(main_record, comm);
    report.pid = pid;
    report.ppid = hp_platform_ppid();
    report.start_ns = hp_now_ns();
    report.argv = hp_alloc((size_t)(argc > 0 ? argc : 1) * sizeof *report.argv);
    if (report.argv)
        for (int i = 0; i < argc; i++)
            if (argv[i] && (report.argv[i] = hp_strdup(argv[i]))) report.argc = i + 1;
    /* No copy of stderr yet: a descriptor held from the start is one the program sees among its
     * own (a child listing its descriptors, Python's pass_fds). It is made when the program lets
     * fd 2 go (hp_report_stderr_replaced); until then the report goes to fd 2. */
    report.stderr_gone = fcntl(2, F_GETFD) < 0;
    if (getsid(0) == getpid()) atomic_store(&report.new_session, 1);   /* a daemon's exec'd server */
    if (!report.stderr_gone && fstat(2, &report.stderr_id) != 0) report.stderr_gone = 1;
}

static int is_original_stderr(const struct stat *st)
{
    return st->st_dev == report.stderr_id.st_dev && st->st_ino == report.stderr_id.st_ino && st->st_mode == report.stderr_id.st_mode;
}

/* Close the copy of stderr; 1 when there was one. */
static int close_stderr_copy(void)
{
    int fd = __atomic_exchange_n(&report.stderr_copy, -1, __ATOMIC_ACQ_REL);
    if (fd < 0) return 0;
    hp_platform_close(fd);
    return 1;
}

/* The file the report would write to, before fd 2 is let go: our copy, or fd 2 itself while it is
 * still the original stderr. -1 when there is none. */
static int stderr_now(struct stat *st)
{
    if (report.stderr_gone) return -1;
    int fd = report.stderr_copy >= 0 ? report.stderr_copy : 2;
    if (fstat(fd, st) != 0 || !is_original_stderr(st)) return -1;
    return fd;
}

/* Under a small limit every descriptor is the program's: no copy, and the report goes to fd 2 as
 * it stands then. */
static void keep_stderr(void)
{
    int expected = -1, fd = hp_platform_dup_high(2);
    if (fd >= 0 && !__atomic_compare_exchange_n(&report.stderr_copy, &expected, fd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        hp_platform_close(fd);   /* another thread's copy came first */
}

void hp_report_detach_stderr(void)
{
    struct stat st;
    if (stderr_now(&st) < 0 || S_ISREG(st.st_mode)) return;
    report.stderr_gone = 1;
    close_stderr_copy();
}

void hp_report_keep_stderr(void)
{
    struct stat st;
    if (stderr_now(&st) == 2) keep_stderr();
}

int hp_report_release_stderr(void)
{
    if (atomic_load(&report.written)) return 0;    /* the final report may be writing to it */
    return close_stderr_copy();
}

void hp_report_new_session(void)
{
    atomic_store(&report.new_session, 1);
}

void hp_report_stderr_replaced(int closed)
{
    struct stat st;
    int fd = stderr_now(&st);
    if (fd < 0 || report.stderr_let_go) return;
    int stream = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
    if (atomic_load(&report.new_session) && !S_ISREG(st.st_mode)) {
        report.stderr_gone = 1;                    /* a daemon: hp_report_detach_stderr */
        close_stderr_copy();
    } else if (stream && !closed) {
        report.stderr_let_go = 1;
        close_stderr_copy();
    } else if (stream && report.fork_child) {
        report.stderr_gone = 1;
        close_stderr_copy();
    } else if (fd == 2) {
        keep_stderr();
    }
}

int hp_report_fork_child(void)
{
    return report.fork_child;
}

void hp_report_child_identity(int pid, uint64_t start_ns)
{
    report.fork_child = 1;
    report.ppid = report.pid;         /* the process that forked */
    report.pid = pid;
    report.start_ns = start_ns;
    report.image = 0;
    atomic_store(&report.written, 0);
}

void hp_report_set_image(unsigned image)
{
    report.image = image;
}

unsigned hp_report_image(void)
{
    return report.image;
}

void hp_report_rearm(void)
{
    hp_free((void *)report.exec_path);
    report.exec_path = NULL;
    atomic_store(&report.written, 0);
}

void hp_report_exit_status(int status)
{
    report.exit_status = status & 0xff;     /* what the parent sees */
    atomic_store(&report.has_status, 1);
}

void hp_report_exec(const char *path)
{
    hp_free((void *)report.exec_path);
    report.exec_path = hp_strdup(path && path[0] ? path : "?");
}

/* An image that exec'd away within this long is a line, not a report (HOTPATH_RUN_DIR: no text
 * report at all; the launcher shows it as a row of its processes table). */
#define QUICK_EXEC_NS (100 * 1000000ull)

static int quick_exec(uint64_t elapsed)
{
    return report.exec_path && elapsed < QUICK_EXEC_NS && !atomic_load(&report.ending_signal);
}

void hp_report_ending_signal(int sig, int tid)
{
    atomic_store(&report.signal_tid, tid);
    atomic_store(&report.ending_signal, sig);
#if !defined(__APPLE__)   /* no line table in the macOS build */
    hp_lines_refuse();   /* the interrupted thread may hold the malloc lock libdw would need */
#endif
}

static void signal_thread(char *out, size_t size)
{
    if (!hp_registry_name_of_tid(atomic_load(&report.signal_tid), out, size)) snprintf(out, size, "?");
}

static const char *command(void)
{
    return report.argc > 0 ? report.argv[0] : "?";
}

/* The views a watched process's report cannot have: every one but the threads view needs the
 * library inside the process. */
static void views_needing_preload(struct hp_buf *out, struct hp_json *j)
{
    int n = 0;
    const struct hp_section *threads = hp_section_find("threads");
    HP_FOR_EACH_SECTION(s) {
        if (s == threads) continue;
        if (j) hp_json_string(j, NULL, s->key);
        else hp_buf_printf(out, "%s%s", n ? ", " : "", s->key);
        n++;
    }
}

int hp_report_pid(void)
{
    return report.pid;
}

const char *hp_report_command(void)
{
    return command();
}

uint64_t hp_report_start_ns(void)
{
    return report.start_ns;
}

struct taken {
    const struct hp_section *section;
    void *snap;
};

/* One picture of the process: the sections' snapshots and the figures the header and footer
 * state, taken once and rendered in every format asked for (a run directory's JSON and text
 * files say the same, and the snapshots and the profiler's memory are read once). */
struct picture {
    struct taken t[HP_SECTIONS_MAX];
    unsigned n;
    int taken;
    uint64_t elapsed_ns, memory_bytes;
};

/* The picture, taken at its first use. */
static const struct picture *take_picture(struct picture *p, uint32_t sections)
{
    if (p->taken) return p;
    p->taken = 1;
    p->n = 0;
    HP_FOR_EACH_SECTION(s) {
        if (!(sections & hp_section_bit(s))) continue;
        void *snap = s->snapshot();
        if (snap) p->t[p->n++] = (struct taken){ s, snap };
    }
    p->elapsed_ns = hp_now_ns() - report.start_ns;
    p->memory_bytes = hp_memory_in_use();
    return p;
}

static void release_picture(struct picture *p)
{
    for (unsigned i = 0; i < p->n; i++) p->t[i].section->release(p->t[i].snap);
    p->n = 0;
    p->taken = 0;
}

/* The command line in the text header: the arguments tell apart the processes of one program
 * (git's helpers, a shell's commands). On one line, and valid UTF-8: control characters and bytes
 * that are not UTF-8 become '?', an argument with a space or none at all is quoted ('a b'), and
 * past HEADER_ARGS bytes it is cut with "…". */
#define HEADER_ARGS 72

/* The process title as ps shows it now (title.h) into out: 1 when it differs from the exec-time
 * command line. */
static int process_title(struct hp_buf *out)
{
    /* most command lines fit the stack's buffer: the heap's 64 KB (zeroed, 16 pages) only for
     * one that does not, as a build's long compiler command may not */
    enum { CMDLINE_SHORT = 4096, CMDLINE_MAX = 65536 };
    char small[CMDLINE_SHORT], *raw = small;
    size_t size = sizeof small;
    long n = hp_platform_cmdline(small, size);
    char *big = n == (long)size - 1 ? hp_alloc(CMDLINE_MAX) : NULL;
    if (big) {
        raw = big;
        n = hp_platform_cmdline(big, size = CMDLINE_MAX);
    }
    int differs = n > 0 ? hp_title_of(raw, (size_t)n, n == (long)size - 1, report.argv, report.argc, out)
                        : hp_title_of("", 0, 1, report.argv, report.argc, out);
    hp_free(big);
    return differs;
}

/* Bytes of s on one line, valid UTF-8, cut with "…" once *used reaches HEADER_ARGS. 0 when cut. */
static int header_text(struct hp_buf *out, const char *s, size_t *used)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    while (left) {
        if (*used >= HEADER_ARGS) {
            hp_buf_puts(out, "…");
            return 0;
        }
        uint32_t cp;
        size_t n = hp_utf8_decode(p, left, &cp);
        if (cp < 0x20 || cp == 0x7f || (cp == 0xFFFD && n == 1)) hp_buf_putc(out, '?');
        else hp_buf_put(out, (const char *)p, n);
        p += n;
        left -= n;
        *used += n;
    }
    return 1;
}

void hp_report_command_line(struct hp_buf *out)
{
    hp_buf_puts(out, command());
    for (int i = 1; i < report.argc; i++) {
        int quoted = !report.argv[i][0] || strchr(report.argv[i], ' ');
        hp_buf_puts(out, quoted ? " '" : " ");
        hp_buf_puts(out, report.argv[i]);
        if (quoted) hp_buf_putc(out, '\'');
    }
}

static void header_command(struct hp_buf *out)
{
    struct hp_buf title = { 0 };
    size_t used = 0;
    if (process_title(&title) && title.data) {    /* the program renamed itself: what ps shows */
        header_text(out, title.data, &used);
        hp_buf_free(&title);
        return;
    }
    hp_buf_free(&title);
    hp_buf_puts(out, command());
    for (int i = 1; i < report.argc; i++) {
        int quoted = !report.argv[i][0] || strchr(report.argv[i], ' ');
        hp_buf_puts(out, quoted ? " '" : " ");
        if (!header_text(out, report.argv[i], &used)) return;
        if (quoted) hp_buf_putc(out, '\'');
    }
}

/* HOTPATH_TABLE_WIDTH; else, where the report goes to a terminal's stderr, $COLUMNS or the
 * terminal's width; else 160 (hotpath-launch sets the setting for its run). */
static unsigned table_width(void)
{
    if (hp_config.table_width_set) return hp_config.table_width;
    struct winsize ws;
    if (hp_config.output_path[0] || hp_config.run_dir[0] || !isatty(2)) return HP_TABLE_WIDTH_DEFAULT;
    unsigned columns;
    const char *env = getenv("COLUMNS");
    if (env && hp_setting_parse_uint(env, 40, 100000, &columns) == 0) return columns;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
    return HP_TABLE_WIDTH_DEFAULT;
}

static void render_text(struct hp_buf *out, const struct picture *p)
{
    const struct taken *t = p->t;
    unsigned n = p->n;
    char dur[HP_FMT_MAX];
    hp_table_width = table_width();
    hp_fmt_duration(dur, p->elapsed_ns);
    hp_buf_printf(out, "[hotpath] pid %d | ", report.pid);
    header_command(out);
    hp_buf_printf(out, " | %s |", dur);
    for (unsigned i = 0; i < n; i++) hp_buf_printf(out, "%s %s", i ? "," : "", t[i].section->title);
    if (n == 0) hp_buf_puts(out, " no sections");
    int sig = atomic_load(&report.ending_signal);
    if (sig) {
        char thread[24];
        signal_thread(thread, sizeof thread);
        hp_buf_printf(out, " | ended by SIG%s in ", hp_platform_signal_name(sig));
        hp_buf_puts(out, thread);
    }
    int watched = hp_platform_watched_pid() != 0;
    if (watched) hp_buf_puts(out, hp_platform_target_ended() ? " | watched until it ended" : " | watched; still running");
    else if (!atomic_load(&report.written)) hp_buf_puts(out, " | checkpoint: the process was still running");
    hp_buf_putc(out, '\n');
    if (watched) {
        struct hp_process_figures w;
        char peak[HP_FMT_MAX];
        hp_sampler_figures(&w);
        hp_fmt_bytes(peak, (int64_t)w.window_peak_rss_bytes);
        hp_buf_printf(out, "[hotpath] watched from outside (hotpath-run --pid): the threads view over the window (RSS peak %s), "
                           "nothing changed in the process; these views need it run under hotpath-run: ", peak);
        views_needing_preload(out, NULL);
        hp_buf_putc(out, '\n');
    }
    for (unsigned i = 0; i < n; i++) {
        hp_buf_putc(out, '\n');
        t[i].section->table(t[i].snap, out, *t[i].section->limit);
    }
    struct hp_process_figures f;
    hp_sampler_figures(&f);
    char cpu[HP_FMT_MAX], mem[HP_FMT_MAX];
    hp_fmt_cpu_seconds(cpu, f.profiler_cpu_ns);
    hp_fmt_bytes(mem, (int64_t)p->memory_bytes);
    hp_buf_printf(out, "\n[hotpath] profiler cost: %s CPU, %s memory\n", cpu, mem);
}

/* How the image ended: by a signal, an exec, exit (its status when exit or _exit was seen), or
 * not yet (a checkpoint, a live /report). */
static void ended_json(struct hp_json *j, int final, const char *signal)
{
    int watched = hp_platform_watched_pid() != 0;
    int status = atomic_load(&report.has_status) && !watched;
    const char *how = !final ? "running" : signal ? "signal" : report.exec_path ? "exec" : "exit";
    if (watched) how = hp_platform_target_ended() ? "exit" : "running";
    hp_json_object_begin(j, "ended");
    hp_json_string(j, "how", how);
    if (final && !signal && !report.exec_path && status) hp_json_i64(j, "status", report.exit_status);
    else hp_json_null(j, "status");
    if (final && signal) hp_json_string(j, "signal", signal);
    else hp_json_null(j, "signal");
    if (final && !signal && report.exec_path) hp_json_string(j, "exec", report.exec_path);
    else hp_json_null(j, "exec");
    hp_json_object_end(j);
}

/* What a report of a process watched from outside is (hotpath-run --pid). */
static void watched_json(struct hp_json *j)
{
    struct hp_process_figures f;
    hp_sampler_figures(&f);
    hp_json_object_begin(j, "watched");
    hp_json_bool(j, "from_outside", 1);
    hp_json_bool(j, "process_ended", hp_platform_target_ended());
    hp_json_u64(j, "window_peak_rss_bytes", f.window_peak_rss_bytes);
    hp_json_u64(j, "unseen_threads_cpu_ns", f.unseen_threads_cpu_ns);
    hp_json_array_begin(j, "views_needing_preload");
    views_needing_preload(NULL, j);
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static void render_json(struct hp_buf *out, const struct picture *p, int pretty)
{
    const struct taken *t = p->t;
    unsigned n = p->n;
    struct hp_json j;
    hp_json_init(&j, out, pretty);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "type", "hotpath_report");
    hp_json_string(&j, "version", HP_VERSION);
    hp_json_i64(&j, "pid", report.pid);
    hp_json_string(&j, "command", command());
    hp_json_array_begin(&j, "argv");
    for (int i = 0; i < report.argc; i++) hp_json_string(&j, NULL, report.argv[i]);
    hp_json_array_end(&j);
    struct hp_buf title = { 0 };
    process_title(&title);
    hp_json_string(&j, "title", title.data ? title.data : "");
    hp_buf_free(&title);
    hp_json_u64(&j, "elapsed_ns", p->elapsed_ns);
    hp_json_u64(&j, "image", report.image);
    hp_json_i64(&j, "ppid", report.ppid);
    int final = atomic_load(&report.written);
    hp_json_bool(&j, "final", final);
    int sig = atomic_load(&report.ending_signal);
    char name[16] = "SIG";
    if (sig) {
        strncat(name, hp_platform_signal_name(sig), sizeof name - 4);
        hp_json_string(&j, "ended_by_signal", name);
        char thread[24];
        signal_thread(thread, sizeof thread);
        hp_json_string(&j, "signal_thread", thread);
    } else {
        hp_json_null(&j, "ended_by_signal");
        hp_json_null(&j, "signal_thread");
    }
    ended_json(&j, final, sig ? name : NULL);
    if (hp_platform_watched_pid()) watched_json(&j);
    struct hp_process_figures f;
    hp_sampler_figures(&f);
    hp_json_object_begin(&j, "profiler");
    hp_json_u64(&j, "cpu_ns", f.profiler_cpu_ns);
    hp_json_u64(&j, "memory_bytes", p->memory_bytes);
    hp_json_object_end(&j);
    for (unsigned i = 0; i < n; i++) t[i].section->json(t[i].snap, &j);
    hp_json_object_end(&j);
    if (!pretty) hp_buf_putc(out, '\n');
}

static void render_picture(struct hp_buf *out, enum hp_format format, const struct picture *p)
{
    if (format == HP_FORMAT_TABLE) render_text(out, p);
    else if (format != HP_FORMAT_NONE) render_json(out, p, format == HP_FORMAT_JSON_PRETTY);
}

void hp_report_render(struct hp_buf *out, enum hp_format format, uint32_t sections)
{
    struct picture p = { .taken = 0 };
    render_picture(out, format, take_picture(&p, sections));
    release_picture(&p);
}


/* Our copy of stderr, unless the program closed it (close_range, closefrom) and the number now
 * belongs to another file of its own: then fd 2 as it stands. */
static int stderr_fd(void)
{
    struct stat now;
    if (report.stderr_copy >= 0 && fstat(report.stderr_copy, &now) == 0 && is_original_stderr(&now)) return report.stderr_copy;
    /* after fd 2 was let go of, fd 2 only while it is the original stderr (restored after a
     * silenced stretch): never a file the program put there */
    if (report.stderr_let_go && (fstat(2, &now) != 0 || !is_original_stderr(&now))) return -1;
    return report.stderr_gone ? -1 : 2;   /* -1: the report to stderr goes nowhere */
}

static void warn(const char *msg)
{
    hp_platform_write_all(stderr_fd(), msg, strlen(msg));
}

/* The report's file, emptied; -1 (after one line) when it cannot be: stderr instead. */
static int open_file(const char *path)
{
    int fd = hp_out_file_open(path);
    if (fd >= 0) return fd;
    struct hp_buf m = { 0 };
    hp_buf_printf(&m, "hotpath: cannot write the report to %s (%s); writing it to stderr\n", path,
                  hp_platform_errno_name(errno));
    if (m.data) warn(m.data);
    hp_buf_free(&m);
    return -1;
}

/* A run's directory and no HOTPATH_OUTPUT_PATH of the report's own: its files go there. */
static int run_dir_output(void)
{
    return !hp_config.output_path[0] && hp_config.run_dir[0];
}

/* Where the report goes, in what format: HOTPATH_OUTPUT_PATH (or stderr) in HOTPATH_OUTPUT_FORMAT;
 * with a run directory and no path of its own, PID.IMAGE.json always and PID.IMAGE.txt for the
 * text format (text = 0: not that one). Output i's path (expanded; "" for stderr) into path, and
 * its format; 0 when there is no output i. */
static int output(unsigned i, int text, char *path, size_t size, enum hp_format *format)
{
    path[0] = 0;
    if (hp_config.format == HP_FORMAT_NONE) return 0;
    if (run_dir_output()) {
        if (i > 1 || (i == 1 && (hp_config.format != HP_FORMAT_TABLE || !text))) return 0;
        *format = i ? HP_FORMAT_TABLE : HP_FORMAT_JSON;
        int n = snprintf(path, size, "%s/%d.%u.%s", hp_config.run_dir, report.pid, report.image,
                         i ? "txt" : "json");
        if (n < 0 || (size_t)n >= size) path[0] = 0;
        return 1;
    }
    if (i > 0) return 0;
    *format = hp_config.format;
    if (hp_config.output_path[0] &&
        hp_expand_path(hp_config.output_path, report.pid, report.image, path, (unsigned)size) != 0) {
        warn("hotpath: HOTPATH_OUTPUT_PATH is too long once expanded; writing the report to stderr\n");
        path[0] = 0;
    }
    return 1;
}

void hp_report_hold_outputs(void)
{
    char path[HP_OUTPUT_PATH_MAX + 32];
    enum hp_format format;
    for (unsigned i = 0; output(i, 1, path, sizeof path, &format); i++) hp_out_file_hold(path);
}

/* HOTPATH_CHECKPOINT_S: the report so far replaces the file atomically (a temporary file, then
 * rename), so a process killed with SIGKILL or by the OOM killer leaves its last picture. */
/* The file at path replaced by the rendered report as one step (a temporary file, then rename):
 * a reader never sees it half written. 0, or -1 when it could not be made. */
static int replace_file(const char *path, const struct hp_buf *out)
{
    char tmp[HP_OUTPUT_PATH_MAX + 48];
    if (!out->data || out->failed) return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    hp_platform_unlink(tmp);
    int fd = hp_platform_open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    hp_platform_write_all(fd, out->data, out->len);
    hp_platform_close(fd);
    if (hp_platform_rename(tmp, path) == 0) return 0;
    hp_platform_unlink(tmp);
    return -1;
}

void hp_report_checkpoint(void)
{
    if (atomic_load(&report.written)) return;
    char path[HP_OUTPUT_PATH_MAX + 32];
    enum hp_format format;
    struct picture p = { .taken = 0 };
    for (unsigned i = 0; output(i, 1, path, sizeof path, &format); i++) {
        if (!path[0]) continue;           /* stderr: only the final report */
        struct hp_buf out = { 0 };
        render_picture(&out, format, take_picture(&p, hp_report_settings.sections));
        replace_file(path, &out);
        hp_buf_free(&out);
    }
    release_picture(&p);
}

/* "[hotpath] pid 123 bash -> exec /usr/bin/python3": all an image that exec'd away quickly says. */
static void render_exec_line(struct hp_buf *out)
{
    hp_buf_printf(out, "[hotpath] pid %d %s -> exec %s\n", report.pid, command(), report.exec_path);
}

/* Under hotpath-run, an image's text report is read only when the launcher shows it in full
 * (launcher/pick.c): one that lived SHOWN_WALL_NS or more (launcher/run.h's HP_SHOWN_WALL_NS), or
 * the one with the most CPU. The most so far is a word every process of the run shares, in the
 * run directory's MOST_CPU_FILE, which each image raises to its own CPU, counted as the launcher
 * counts it (the threads rows' sum): one that used less than another already ended leaves no
 * text, the one with the most always does. Without that file (--all, --only: the launcher made
 * none) or a CPU figure, every image writes its text. */
#define SHOWN_WALL_NS (1000 * 1000000ull)
#define MOST_CPU_FILE "most_cpu"

static int text_may_be_shown(const struct picture *p)
{
    uint64_t cpu = 0;
    int counted = 0;
    char path[HP_OUTPUT_PATH_MAX + 32];
    for (unsigned i = 0; i < p->n; i++)
        if (p->t[i].section->cpu_ns) cpu += p->t[i].section->cpu_ns(p->t[i].snap), counted = 1;
    int n = snprintf(path, sizeof path, "%s/" MOST_CPU_FILE, hp_config.run_dir);
    if (!counted || n < 0 || (size_t)n >= sizeof path) return 1;
    uint64_t most = hp_platform_raise_shared_max(path, cpu);
    return p->elapsed_ns >= SHOWN_WALL_NS || most == 0 || cpu >= most;
}

void hp_report_write_final(void)
{
    if (atomic_exchange(&report.written, 1)) return;
    int saved = errno;
    int quick = quick_exec(hp_now_ns() - report.start_ns);
    char path[HP_OUTPUT_PATH_MAX + 32];
    enum hp_format format;
    if (hp_config_writes_report()) hp_sample(1);
    struct picture p = { .taken = 0 };
    int text = !quick && (!run_dir_output() || hp_config.format != HP_FORMAT_TABLE ||
                          text_may_be_shown(take_picture(&p, hp_report_settings.sections)));
    for (unsigned i = 0; output(i, text, path, sizeof path, &format); i++) {
        struct hp_buf out = { 0 };
        if (quick && format == HP_FORMAT_TABLE) render_exec_line(&out);
        else render_picture(&out, format, take_picture(&p, hp_report_settings.sections));
        /* in a run's directory, whole or not at all (a file held across a change of
         * credentials is written in place) */
        if (path[0] && run_dir_output() && replace_file(path, &out) == 0) {
            hp_buf_free(&out);
            continue;
        }
        int fd = path[0] ? open_file(path) : -1;
        int to = fd >= 0 ? fd : stderr_fd();
        if (out.data) hp_platform_write_all(to, out.data, out.len);
        if (fd >= 0) hp_platform_close(fd);
        hp_buf_free(&out);
    }
    release_picture(&p);
    HP_FOR_EACH_SECTION(s)     /* folded stacks and flame graphs: HOTPATH_CPU_FOLDED, ... */
        if (s->files_write) s->files_write(report.pid, report.image, command());
#if !defined(__APPLE__)   /* no HTML report in the macOS build */
    hp_html_write(report.pid, report.image);       /* HOTPATH_HTML_PATH */
#endif
    errno = saved;
}
