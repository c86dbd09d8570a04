/* run_json.c — the run's report in the JSON formats: one hotpath_run document (its schema is
 * report/report.schema.json's) with the program's argv, the run's wall time and exit, a row per
 * image in the processes table's order (null for what its report lacks) and every image's report
 * as it wrote it, in the same order (a file that did not parse has its row, of nulls, and no
 * report: the schema admits none but reports there). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "launcher/launcher.h"
#include "launcher/run.h"
#include "report/report.h"   /* HP_VERSION: a run document has its reports' version */
#include "report/utf8.h"

/* A string of the program's (an argument), invalid UTF-8 made U+FFFD as in the reports. */
static json_t *text(const char *s)
{
    json_t *valid = json_string(s);
    size_t len = strlen(s), o = 0;
    char *clean = valid ? NULL : malloc(len * 3 + 1);
    if (!clean)
        return valid ? valid : json_null();
    for (const unsigned char *p = (const unsigned char *)s; len > 0;) {
        uint32_t cp;
        size_t n = hp_utf8_decode(p, len, &cp);
        o += hp_utf8_encode(cp, clean + o);
        p += n;
        len -= n;
    }
    clean[o] = 0;
    valid = json_string(clean);
    free(clean);
    return valid ? valid : json_null();
}

static json_t *figure(const struct hp_image *im, enum hp_figure f)
{
    return hp_image_known(im, f) ? json_integer(im->figure[f]) : json_null();
}

static json_t *or_null(json_t *borrowed)
{
    return borrowed ? json_incref(borrowed) : json_null();
}

static json_t *process(const struct hp_image *im)
{
    json_t *r = im->report;
    return json_pack("{sI sO sI so so so so so so so so sb}",
                     "pid", (json_int_t)im->pid,
                     "ppid", im->ppid >= 0 ? json_integer(im->ppid) : json_null(),
                     "image", (json_int_t)im->image,
                     "command", or_null(json_is_string(json_object_get(r, "command")) ? json_object_get(r, "command") : NULL),
                     "argv", or_null(json_is_array(json_object_get(r, "argv")) ? json_object_get(r, "argv") : NULL),
                     "wall_ns", figure(im, HP_WALL), "cpu_ns", figure(im, HP_CPU),
                     "peak_rss_bytes", figure(im, HP_PEAK_RSS), "alloc_bytes", figure(im, HP_ALLOC),
                     "diff_bytes", figure(im, HP_DIFF), "ended", or_null(im->ended), "shown", im->shown);
}

static json_t *exit_of(int status)
{
    char sig[32];
    if (!WIFSIGNALED(status))
        return json_pack("{sI sn}", "status", (json_int_t)WEXITSTATUS(status), "signal");
    hp_signal_name(WTERMSIG(status), sig, sizeof sig);
    return json_pack("{sn ss}", "status", "signal", sig);
}

int hp_run_json(const struct hp_run *run, int pretty, FILE *out)
{
    json_t *argv = json_array(), *processes = json_array(), *reports = json_array();
    for (char *const *a = run->argv; *a; a++)
        json_array_append_new(argv, text(*a));
    for (size_t i = 0; i < run->nimages; i++) {
        json_array_append_new(processes, process(&run->images[i]));
        if (run->images[i].report)
            json_array_append(reports, run->images[i].report);
    }
    json_t *doc = json_pack("{ss ss so sI so so so}", "type", "hotpath_run", "version", HP_VERSION,
                            "argv", argv, "wall_ns", (json_int_t)run->wall_ns, "exit", exit_of(run->status),
                            "processes", processes, "reports", reports);
    if (!doc)
        return -1;
    int failed = json_dumpf(doc, out, (pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_REAL_PRECISION(17));
    fputc('\n', out);
    json_decref(doc);
    return failed ? -1 : 0;
}
