/* run.c — the run's one report, once the program and the orphans waited for ended: the run
 * directory's reports gathered, put in tree order and picked, written as a table or a JSON run
 * document to stderr or to --output (created mode 0600, never through a symbolic link), and the
 * directory removed unless --keep-run-dir (or the report could not be written: then the
 * per-process reports are left there, and one line says where). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/run.h"

static FILE *open_output(const char *path)
{
    if (!path)
        return stderr;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f && fd >= 0)
        close(fd);
    return f;
}

void hp_run_report(struct hp_run *run, const struct hp_run_options *o)
{
    int kept = o->keep_run_dir, failed = 0;
    if (hp_run_gather(run, !strncmp(o->format, "json", 4))) {
        fprintf(stderr, "hotpath-run: %s: %s\n", run->dir, strerror(errno));
        return;
    }
    hp_run_order(run);
    hp_run_pick(run, o);
    /* no image reported (a set-user-ID or static program ran unprofiled, as hotpath-run.sh said):
     * no table of nothing; a JSON run document still says so */
    int nothing = run->nimages == 0 && strncmp(o->format, "json", 4) != 0;
    FILE *out = nothing ? NULL : open_output(o->output);
    if (nothing)
        ;
    else if (!out) {
        fprintf(stderr, "hotpath-run: %s: %s\n", o->output, strerror(errno));
        kept = 1;
    } else {
        if (!strncmp(o->format, "json", 4))
            failed = hp_run_json(run, !strcmp(o->format, "json-pretty"), out);
        else
            hp_run_text(run, out);
        failed |= fflush(out) != 0 || ferror(out);
        if (out != stderr)
            failed |= fclose(out) != 0;
        if (failed && o->output) {
            fprintf(stderr, "hotpath-run: %s: the report could not be written\n", o->output);
            kept = 1;
        }
    }
    hp_run_free(run);
    if (kept)
        fprintf(stderr, "hotpath-run: per-process reports kept in %s\n", run->dir);
    else if (hp_rundir_remove(run->dir))
        fprintf(stderr, "hotpath-run: %s could not be removed: %s\n", run->dir, strerror(errno));
}
