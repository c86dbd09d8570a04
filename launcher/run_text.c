/* run_text.c — the run's report in the table format: a header line (the command, how many
 * processes and images, the wall time, how the program ended), the processes table in the
 * report's table style (report/table.c), a note per report file that did not parse, then the
 * text report of each image shown, as that image would have printed it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "launcher/launcher.h"
#include "launcher/run.h"
#include "report/buf.h"
#include "report/format.h"
#include "report/table.h"
#include "report/utf8.h"

#define COMMAND_COLUMNS 60

/* s cut to at most cols display columns, ending in "…" when it was longer. */
static void cut(char *out, size_t size, const char *s, size_t cols)
{
    size_t len = strlen(s), at = 0, width = 0, keep = 0;
    if (hp_utf8_width(s) <= cols) {
        snprintf(out, size, "%s", s);
        return;
    }
    while (at < len) {
        uint32_t cp;
        size_t n = hp_utf8_decode((const unsigned char *)s + at, len - at, &cp);
        if (width + (size_t)hp_codepoint_width(cp) > cols - 1 || at + n + sizeof "…" > size)
            break;
        width += (size_t)hp_codepoint_width(cp);
        at += n;
        keep = at;
    }
    snprintf(out, size, "%.*s…", (int)keep, s);
}

/* "exit 0", "SIGSEGV", "exec python3", "running"; "-" when the report does not say. */
static void ended_cell(char *out, size_t size, const struct hp_image *im)
{
    const char *how = json_string_value(json_object_get(im->ended, "how"));
    json_t *status = json_object_get(im->ended, "status");
    const char *sig = json_string_value(json_object_get(im->ended, "signal"));
    const char *exec = json_string_value(json_object_get(im->ended, "exec"));
    if (!how)
        snprintf(out, size, "-");
    else if (!strcmp(how, "exit") && json_is_integer(status))
        snprintf(out, size, "exit %lld", (long long)json_integer_value(status));
    else if (!strcmp(how, "signal") && sig)
        snprintf(out, size, "%s", sig);
    else if (!strcmp(how, "exec") && exec)
        snprintf(out, size, "exec %s", strrchr(exec, '/') ? strrchr(exec, '/') + 1 : exec);
    else
        snprintf(out, size, "%s", how);
}

static void figure_cell(char out[HP_FMT_MAX], const struct hp_image *im, enum hp_figure f)
{
    if (!im->readable) {
        snprintf(out, HP_FMT_MAX, "?");
        return;
    }
    if (!hp_image_known(im, f)) {
        snprintf(out, HP_FMT_MAX, "-");
        return;
    }
    int64_t v = im->figure[f];
    if (f == HP_WALL)
        hp_fmt_duration(out, v < 0 ? 0 : (uint64_t)v);
    else if (f == HP_CPU)
        hp_fmt_cpu_seconds(out, v < 0 ? 0 : (uint64_t)v);
    else
        hp_fmt_bytes(out, v);
}

static void add_row(struct hp_table *t, const struct hp_image *im)
{
    char pid[24], ppid[24], image[16], command[COMMAND_COLUMNS * 4 + 8], ended[96];
    char fig[HP_FIGURES][HP_FMT_MAX];
    snprintf(pid, sizeof pid, "%ld", im->pid);
    snprintf(image, sizeof image, "%d", im->image);
    if (!im->readable)
        snprintf(ppid, sizeof ppid, "?");
    else if (im->ppid < 0)
        snprintf(ppid, sizeof ppid, "-");
    else
        snprintf(ppid, sizeof ppid, "%ld", im->ppid);
    cut(command, sizeof command, im->cmdline ? im->cmdline : im->readable ? "-" : "?", COMMAND_COLUMNS);
    for (int f = 0; f < HP_FIGURES; f++)
        figure_cell(fig[f], im, f);
    if (im->readable)
        ended_cell(ended, sizeof ended, im);
    else
        snprintf(ended, sizeof ended, "?");
    const char *cells[] = { pid, ppid, image, command, fig[HP_WALL], fig[HP_CPU], fig[HP_PEAK_RSS],
                            fig[HP_ALLOC], fig[HP_DIFF], ended };
    hp_table_add_row(t, cells);
}

static void header(const struct hp_run *run, FILE *out)
{
    char line[COMMAND_COLUMNS * 4 + 8], wall[HP_FMT_MAX], how[32], joined[4096] = "";
    size_t len = 0;
    for (char *const *a = run->argv; *a && len < sizeof joined; a++)
        len += (size_t)snprintf(joined + len, sizeof joined - len, "%s%s", a == run->argv ? "" : " ", *a);
    cut(line, sizeof line, joined, COMMAND_COLUMNS);
    hp_fmt_duration(wall, run->wall_ns < 0 ? 0 : (uint64_t)run->wall_ns);
    if (WIFSIGNALED(run->status))
        hp_signal_name(WTERMSIG(run->status), how, sizeof how);
    else
        snprintf(how, sizeof how, "exit %d", WEXITSTATUS(run->status));
    fprintf(out, "[hotpath] run: %s | %zu process%s, %zu image%s | %s | %s\n", line, run->nprocesses,
            run->nprocesses == 1 ? "" : "es", run->nimages, run->nimages == 1 ? "" : "s", wall, how);
}

/* The image's PID.IMAGE.txt copied out; 0, or -1 when there is none. */
static int copy_text(const struct hp_run *run, const struct hp_image *im, FILE *out)
{
    char path[4096], block[65536];
    size_t n;
    snprintf(path, sizeof path, "%s/%ld.%d.txt", run->dir, im->pid, im->image);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    while ((n = fread(block, 1, sizeof block, f)) > 0)
        fwrite(block, 1, n, out);
    fclose(f);
    return 0;
}

void hp_run_text(const struct hp_run *run, FILE *out)
{
    static const char *const headers[] = { "PID", "PPID", "Image", "Command", "Wall", "CPU",
                                           "Peak RSS", "Alloc", "Diff", "Ended" };
    struct hp_table t;
    struct hp_buf b = { 0 };
    hp_table_init(&t, sizeof headers / sizeof headers[0], headers);
    for (size_t i = 0; i < run->nimages; i++)
        add_row(&t, &run->images[i]);
    header(run, out);
    fprintf(out, "\nprocesses - Every process image of the run (%zu)\n", run->nimages);
    hp_table_render(&t, &b);
    if (b.data)
        fwrite(b.data, 1, b.len, out);
    if (b.failed || t.failed)
        fprintf(out, "(the table is incomplete: out of memory)\n");
    hp_buf_free(&b);
    hp_table_free(&t);
    for (size_t i = 0; i < run->nimages; i++)
        if (!run->images[i].readable)
            fprintf(out, "note: %s is not a readable report: %s\n", run->images[i].file,
                    run->images[i].error ? run->images[i].error : "out of memory");
    for (size_t i = 0; i < run->nimages; i++) {
        if (!run->images[i].shown)
            continue;
        fputc('\n', out);
        if (copy_text(run, &run->images[i], out))
            fprintf(out, "note: pid %ld image %d left no text report\n", run->images[i].pid,
                    run->images[i].image);
    }
}
