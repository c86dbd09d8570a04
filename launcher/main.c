/* main.c — hotpath-launch, the parent that stays: hotpath-run.sh execs
 *     hotpath-launch --preload LIB [--orphan-wait S] [--format F] [--output PATH] [--all]
 *                    [--only PATTERN] [--keep-run-dir] -- program [args...]
 * and it runs the program with LIB first in LD_PRELOAD (itself unprofiled), forwards the
 * signals sent to it, waits for the program and the descendants it leaves (up to S seconds,
 * default 10, after it ended), prints the run's one report (run.h: every process image leaves
 * its own in a run directory, HOTPATH_RUN_DIR) and ends with the program's exit status or death
 * signal. With format none, or HOTPATH_OUTPUT_PATH set (per-process files), there is no run
 * directory: each process writes its own report, as without the launcher.
 *     hotpath-launch --preload LIB --watch PID [--duration S]
 * watches a running process from outside instead (hotpath-run --pid, watch.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/memory.h"
#include "launcher/launcher.h"
#include "report/table.h"

#define ORPHAN_WAIT_MAX_S 1000000000UL
#define USAGE "usage: hotpath-launch --preload LIB [--orphan-wait S] [--format F] [--output PATH] " \
              "[--all] [--only PATTERN] [--keep-run-dir] -- program [args...]\n" \
              "       hotpath-launch --preload LIB --watch PID [--duration S]\n"

static int parse_orphan_wait(struct hp_launch *l, const char *s)
{
    char *end;
    errno = 0;
    l->orphan_wait_s = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || l->orphan_wait_s > ORPHAN_WAIT_MAX_S) {
        fprintf(stderr, "hotpath-run: --orphan-wait needs a whole number of seconds\n");
        return -1;
    }
    return 0;
}

/* --watch and --watching: a process id. */
static int parse_pid(struct hp_launch *l, const char *s)
{
    char *end;
    errno = 0;
    l->watch_pid = strtol(s, &end, 10);
    if (errno || end == s || *end || l->watch_pid <= 0 || l->watch_pid > 4194304) {
        fprintf(stderr, "hotpath-run: --pid needs a process id, not \"%s\"\n", s);
        return -1;
    }
    return 0;
}

static int parse_duration(struct hp_launch *l, const char *s)
{
    char *end;
    errno = 0;
    l->duration_s = strtod(s, &end);
    if (errno || end == s || *end || !(l->duration_s > 0) || l->duration_s > 31536000) {
        fprintf(stderr, "hotpath-run: --duration needs a number of seconds above 0, not \"%s\"\n", s);
        return -1;
    }
    return 0;
}

/* One option at argv[i] (its value at argv[i + 1]); the count of words it took, 0 if it is not
 * an option, -1 on a bad value. */
static int option(struct hp_launch *l, int argc, char **argv, int i)
{
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--all"))
        return l->run.all = 1;
    if (!strcmp(o, "--keep-run-dir"))
        return l->run.keep_run_dir = 1;
    if (!v || !strcmp(v, "--"))
        return 0;
    if (!strcmp(o, "--preload"))
        l->preload = v;
    else if (!strcmp(o, "--format"))
        l->run.format = v;
    else if (!strcmp(o, "--output"))
        l->run.output = v;
    else if (!strcmp(o, "--only"))
        l->run.only = v;
    else if (!strcmp(o, "--orphan-wait"))
        return parse_orphan_wait(l, v) ? -1 : 2;
    else if (!strcmp(o, "--watch") || !strcmp(o, "--watching"))
        return (l->watching = o[7] == 'i', parse_pid(l, v)) ? -1 : 2;
    else if (!strcmp(o, "--duration"))
        return parse_duration(l, v) ? -1 : 2;
    else
        return 0;
    return 2;
}

static int parse(struct hp_launch *l, int argc, char **argv)
{
    l->orphan_wait_s = 10;
    l->run.format = "table";
    int i = 1, n = 1;
    while (i < argc && strcmp(argv[i], "--") && (n = option(l, argc, argv, i)) > 0)
        i += n;
    if (n < 0)
        return -1;
    if (l->watch_pid && l->preload && i == argc)
        return 0;
    if (!l->preload || i + 1 >= argc || strcmp(argv[i], "--")) {
        fprintf(stderr, USAGE);
        return -1;
    }
    l->argv = argv + i + 1;
    return 0;
}

/* The run's one report, unless each process writes its own (format none, or per-process files
 * named in HOTPATH_OUTPUT_PATH), or the run directory cannot be made: then one line, and the
 * processes report as without the launcher (to --output when given). */
static int gathers(struct hp_launch *l, char *dir, size_t size)
{
    if (!strcmp(l->run.format, "none") || getenv("HOTPATH_OUTPUT_PATH"))
        return 0;
    if (hp_rundir_make(dir, size) == 0)
        return 1;
    fprintf(stderr, "hotpath-run: no run directory (%s): each process reports on its own\n", strerror(errno));
    if (l->run.output)
        setenv("HOTPATH_OUTPUT_PATH", l->run.output, 1);
    return 0;
}

/* The width the text tables fit in: HOTPATH_TABLE_WIDTH when set; else, when the report goes to
 * a terminal's stderr, $COLUMNS or the terminal's width; else 160. The program's processes get it
 * as HOTPATH_TABLE_WIDTH (their reports are files in the run directory, not the terminal). */
static void table_width(const struct hp_launch *l)
{
    const char *set = getenv("HOTPATH_TABLE_WIDTH"), *columns = getenv("COLUMNS");
    unsigned long w = HP_TABLE_WIDTH_DEFAULT;
    struct winsize ws;
    char *end;
    if (set) {
        w = strtoul(set, &end, 10);
        if (*end || end == set || (w && w < 40) || w > 100000)
            return;                              /* the library says why, once */
        hp_table_width = (unsigned)w;
        return;
    }
    if (!l->run.output && isatty(2)) {
        unsigned long c = columns ? strtoul(columns, &end, 10) : 0;
        if (columns && !*end && c >= 40 && c <= 100000)
            w = c;
        else if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
            w = ws.ws_col;
    }
    hp_table_width = (unsigned)w;
    char text[24];
    snprintf(text, sizeof text, "%lu", w);
    setenv("HOTPATH_TABLE_WIDTH", text, 1);
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    struct hp_launch l = { 0 };
    char dir[4096];
    hp_memory_settle(NULL);     /* the table code's memory: glibc's heap, no mimalloc, nothing kept */
    pid_t program;
    int status;
    if (parse(&l, argc, argv))
        return 2;
    if (l.watch_pid)
        return hp_watch(&l);
    /* before the fork, so that no descendant is orphaned before it */
    if (hp_subreaper() || hp_signals_take(&l.signals)) {
        perror("hotpath-run: launcher");
        return 1;
    }
    int gathering = gathers(&l, dir, sizeof dir);
    if (gathering)
        table_width(&l);
    /* the text reports are read only for the images shown by CPU and wall time: each image
     * writes its own only when it may be one of them (without the file, every image does) */
    if (gathering && !l.run.all && !l.run.only && strcmp(l.run.format, "table") == 0)
        hp_rundir_share_most_cpu(dir);
    struct hp_run run = { .dir = dir, .argv = l.argv, .wall_ns = now_ns() };
    hp_say_if_unprofiled(l.argv[0]);
    int failed = hp_spawn(&l, &program);
    if (failed) {
        if (gathering)
            hp_rundir_remove(dir);
        return failed;
    }
    if (!hp_wait_all(&l, program, &status)) {
        fprintf(stderr, "hotpath-run: the program could not be waited for\n");
        return 1;
    }
    if (gathering) {
        run.wall_ns = now_ns() - run.wall_ns;
        run.status = status;
        hp_run_report(&run, &l.run);
    }
    hp_exit_like(status);
}
