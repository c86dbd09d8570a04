/* run.h — the run's one report, what run.c, rundir.c, gather.c, order.c, pick.c, run_text.c and
 * run_json.c share: each profiled process image leaves PID.IMAGE.json (and, in table format,
 * PID.IMAGE.txt) in the run directory (HOTPATH_RUN_DIR); the launcher reads them all once the
 * run ended and prints one report: a processes table and the full reports of the images that
 * matter (or one JSON run document). */
#ifndef HP_LAUNCHER_RUN_H
#define HP_LAUNCHER_RUN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An image that exec'd away this soon is a row of the table only, never shown in full. */
#define HP_QUICK_EXEC_NS 100000000LL
/* Shown by default besides the image with the most CPU: lived this long and used this share of
 * the run's CPU. */
#define HP_SHOWN_WALL_NS 1000000000LL
#define HP_SHOWN_CPU_PERCENT 10

/* The figures of an image's row, each known or not (null in JSON, "-" in the table). */
enum hp_figure { HP_WALL, HP_CPU, HP_PEAK_RSS, HP_ALLOC, HP_DIFF, HP_FIGURES };

struct hp_image {
    long pid;
    int image;                     /* 0, +1 per exec: both from the file name */
    char *file;                    /* PID.IMAGE.json */
    int readable;                  /* the file parsed as a report */
    char *error;                   /* else why */
    json_t *report;                /* the whole report, kept only for a run document that embeds it */
    long ppid;                     /* -1: unknown */
    char *cmdline;                 /* argv joined with spaces (else the command); NULL: unknown */
    int64_t figure[HP_FIGURES];
    unsigned known;                /* bit i: figure[i] is known */
    json_t *ended;                 /* the report's "ended" (a reference of its own); NULL: absent */
    int shown;                     /* its full report follows the table */
};

/* How the run's report is made: the launcher's options. */
struct hp_run_options {
    const char *format;            /* table (default), json, json-pretty, none */
    const char *output;            /* -o PATH without %p/%n: the one report goes there */
    const char *only;              /* --only PATTERN */
    int all;                       /* --all */
    int keep_run_dir;              /* --keep-run-dir */
};

struct hp_run {
    const char *dir;
    char *const *argv;             /* the program's */
    int status;                    /* its wait status */
    int64_t wall_ns;               /* of the run: from the program's start to the end of the wait */
    struct hp_image *images;       /* in tree order once hp_run_order ran */
    size_t nimages, nprocesses;
    int64_t cpu_ns;                /* every image's CPU */
};

/* rundir.c */
/* Makes the run directory (mode 0700) under $TMPDIR, else on a memory file system
 * ($XDG_RUNTIME_DIR, /dev/shm), else /tmp, as an absolute path in dir, and puts it in
 * HOTPATH_RUN_DIR for the program. 0, or -1 with errno set. */
int hp_rundir_make(char *dir, size_t size);
/* The run's most CPU so far (report/report.c: a text report only from an image that may be
 * shown), a zero word in the directory's file most_cpu that each image raises. 0, or -1. */
int hp_rundir_share_most_cpu(const char *dir);
/* Removes the directory and every file in it. 0, or -1 with errno set. */
int hp_rundir_remove(const char *dir);

/* gather.c */
/* Reads every PID.IMAGE.json of run->dir into run->images (unsorted), each report's figures
 * taken out and the report itself kept only when keep_reports says so (a run of thousands of
 * processes holds no thousand parsed reports for a table). 0, or -1 with errno set when the
 * directory cannot be read. */
int hp_run_gather(struct hp_run *run, int keep_reports);
void hp_run_free(struct hp_run *run);
/* Whether the image's figure f is known. */
int hp_image_known(const struct hp_image *im, enum hp_figure f);

/* order.c */
/* Puts run->images in tree order (each process's images, then its children's, by pid) and
 * counts the processes. */
void hp_run_order(struct hp_run *run);

/* pick.c */
/* Whether the image exec'd away within HP_QUICK_EXEC_NS. */
int hp_image_quick_exec(const struct hp_image *im);
/* Marks the images shown in full: --all, --only, else the default rule (see --help). */
void hp_run_pick(struct hp_run *run, const struct hp_run_options *o);

/* run_text.c */
/* The table format: a header line, the processes table, the notes on unreadable files, and the
 * text report of each image shown. */
void hp_run_text(const struct hp_run *run, FILE *out);

/* run_json.c */
/* The hotpath_run document (pretty: indented). 0, or -1 when it could not be made. */
int hp_run_json(const struct hp_run *run, int pretty, FILE *out);

/* run.c */
/* After the wait: gathers the run directory, writes the report (stderr or o->output), removes
 * the directory unless kept. */
void hp_run_report(struct hp_run *run, const struct hp_run_options *o);

#endif
