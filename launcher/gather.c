/* gather.c — the run's reports read back: every PID.IMAGE.json of the run directory parsed with
 * jansson and its figures taken out for the processes table (wall time, CPU as the sum of the
 * threads' rows, peak RSS, allocated and net bytes). A file that does not parse stays a row of
 * unknowns with the reason; the temporary files of a write under way are not reports. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/run.h"

/* "PID.IMAGE.json": 1 with *pid and *image set, else 0. */
static int report_name(const char *name, long *pid, int *image)
{
    char *end;
    if (!isdigit((unsigned char)name[0]))
        return 0;
    *pid = strtol(name, &end, 10);
    if (*end != '.' || !isdigit((unsigned char)end[1]))
        return 0;
    long n = strtol(end + 1, &end, 10);
    if (strcmp(end, ".json") || n > 1000000)
        return 0;
    *image = (int)n;
    return 1;
}

int hp_image_known(const struct hp_image *im, enum hp_figure f)
{
    return (im->known >> f) & 1;
}

static void set(struct hp_image *im, enum hp_figure f, json_t *value)
{
    if (json_is_integer(value)) {
        im->figure[f] = json_integer_value(value);
        im->known |= 1u << f;
    }
}

/* argv joined with spaces, else the command; NULL when neither is there. */
static char *command_line(json_t *report)
{
    json_t *argv = json_object_get(report, "argv"), *arg;
    const char *command = json_string_value(json_object_get(report, "command"));
    size_t i, size = 1;
    if (!json_is_array(argv) || json_array_size(argv) == 0)
        return command ? strdup(command) : NULL;
    json_array_foreach(argv, i, arg)
        size += strlen(json_string_value(arg) ? json_string_value(arg) : "") + 1;
    char *line = calloc(1, size);
    if (!line)
        return NULL;
    json_array_foreach(argv, i, arg) {
        if (i)
            strcat(line, " ");
        strcat(line, json_string_value(arg) ? json_string_value(arg) : "");
    }
    return line;
}

/* The file at path parsed: read whole, then parsed from memory (json_load_file reads it a
 * character at a time through stdio, a third of the gather's time in a run of short processes). */
static json_t *load(const char *path, json_error_t *error)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return json_load_file(path, JSON_REJECT_DUPLICATES, error);   /* says why, as it did */
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *text = malloc(size + 1);
    while (text && got < size) {
        ssize_t n = read(fd, text + got, size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    json_t *doc = text ? json_loadb(text, got, JSON_REJECT_DUPLICATES, error) : NULL;
    if (!text)
        snprintf(error->text, sizeof error->text, "out of memory"), error->line = 1;
    free(text);
    return doc;
}

static void read_report(struct hp_image *im, const char *dir, int keep)
{
    char path[4096];
    json_error_t error;
    snprintf(path, sizeof path, "%s/%s", dir, im->file);
    im->ppid = -1;
    im->report = load(path, &error);
    if (im->report && !json_is_object(im->report)) {
        json_decref(im->report);
        im->report = NULL;
        snprintf(error.text, sizeof error.text, "not a JSON object");
        error.line = 1;
    }
    if (!im->report) {
        if (asprintf(&im->error, "%s (line %d)", error.text, error.line) < 0)
            im->error = NULL;
        return;
    }
    json_t *r = im->report, *header = json_object_get(json_object_get(r, "threads"), "header");
    json_t *rows = json_object_get(json_object_get(r, "threads"), "rows"), *row;
    if (json_is_integer(json_object_get(r, "ppid")))
        im->ppid = (long)json_integer_value(json_object_get(r, "ppid"));
    im->cmdline = command_line(r);
    set(im, HP_WALL, json_object_get(r, "elapsed_ns"));
    set(im, HP_PEAK_RSS, json_object_get(header, "peak_rss_bytes"));
    set(im, HP_ALLOC, json_object_get(header, "alloc_bytes"));
    set(im, HP_DIFF, json_object_get(header, "diff_bytes"));
    if (json_is_array(rows)) {
        size_t i;
        im->known |= 1u << HP_CPU;
        json_array_foreach(rows, i, row)
            im->figure[HP_CPU] += json_integer_value(json_object_get(row, "cpu_total_ns"));
    }
    json_t *ended = json_object_get(r, "ended");
    im->ended = json_is_object(ended) ? json_incref(ended) : NULL;
    im->readable = 1;
    if (!keep) {
        json_decref(im->report);
        im->report = NULL;
    }
}

int hp_run_gather(struct hp_run *run, int keep_reports)
{
    DIR *d = opendir(run->dir);
    size_t cap = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));) {
        long pid;
        int image;
        if (!report_name(e->d_name, &pid, &image))
            continue;
        if (run->nimages == cap) {
            cap = cap ? cap * 2 : 16;
            struct hp_image *grown = realloc(run->images, cap * sizeof *grown);
            if (!grown)
                break;
            run->images = grown;
        }
        struct hp_image *im = &run->images[run->nimages];
        memset(im, 0, sizeof *im);
        im->pid = pid;
        im->image = image;
        im->file = strdup(e->d_name);
        if (!im->file)
            break;
        run->nimages++;
    }
    closedir(d);
    for (size_t i = 0; i < run->nimages; i++) {
        read_report(&run->images[i], run->dir, keep_reports);
        run->cpu_ns += run->images[i].figure[HP_CPU];
    }
    return 0;
}

void hp_run_free(struct hp_run *run)
{
    for (size_t i = 0; i < run->nimages; i++) {
        json_decref(run->images[i].report);
        json_decref(run->images[i].ended);
        free(run->images[i].file);
        free(run->images[i].error);
        free(run->images[i].cmdline);
    }
    free(run->images);
    run->images = NULL;
    run->nimages = 0;
}
