/* order.c — the processes table's order, the tree of the run: a process's images (0, then one per
 * exec), then its children's, each level by pid. A process's parent is the ppid of its first
 * image; a process whose parent left no report (the launcher's child, an orphan's lost parent)
 * starts a tree of its own. */
#include <stdlib.h>
#include <string.h>

#include "launcher/run.h"

static int by_pid_then_image(const void *a, const void *b)
{
    const struct hp_image *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->image > y->image) - (x->image < y->image);
}

/* The walk: images of the process starting at `first` (sorted: its images are adjacent) go to
 * out, then each child process's, depth first. done[] marks the processes placed (pid reuse
 * cannot loop). */
struct walk {
    const struct hp_image *sorted;
    size_t n, placed;
    struct hp_image *out;
    char *done;
};

static void place(struct walk *w, size_t first)
{
    size_t end = first;
    w->done[first] = 1;
    while (end < w->n && w->sorted[end].pid == w->sorted[first].pid)
        w->out[w->placed++] = w->sorted[end++];
    for (size_t i = 0; i < w->n; i++)
        if (!w->done[i] && (i == 0 || w->sorted[i - 1].pid != w->sorted[i].pid) &&
            w->sorted[i].ppid == w->sorted[first].pid)
            place(w, i);
}

static int has_process(const struct hp_image *sorted, size_t n, long pid)
{
    for (size_t i = 0; i < n; i++)
        if (sorted[i].pid == pid)
            return 1;
    return 0;
}

void hp_run_order(struct hp_run *run)
{
    size_t n = run->nimages;
    run->nprocesses = 0;
    if (n == 0)
        return;
    qsort(run->images, n, sizeof *run->images, by_pid_then_image);
    for (size_t i = 0; i < n; i++)
        run->nprocesses += i == 0 || run->images[i - 1].pid != run->images[i].pid;
    struct walk w = { run->images, n, 0, malloc(n * sizeof *run->images), calloc(n, 1) };
    if (!w.out || !w.done) {
        free(w.out);
        free(w.done);
        return;                                  /* left by pid: still one row per image */
    }
    /* the roots first (no parent among the reports), then whatever a pid reuse left out */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (!w.done[i] && (i == 0 || w.sorted[i - 1].pid != w.sorted[i].pid) &&
                (pass || !has_process(w.sorted, n, w.sorted[i].ppid)))
                place(&w, i);
    memcpy(run->images, w.out, n * sizeof *run->images);
    free(w.out);
    free(w.done);
}
