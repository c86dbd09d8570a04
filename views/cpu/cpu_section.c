/* cpu_section.c — the CPU profile view, section `functions-cpu` (JSON `functions_cpu`): samples of
 * thread CPU time by function. A snapshot copies the stack table, names every distinct address
 * once (core/symbols.h), and counts per function its self samples (the innermost frame)
 * and total samples (anywhere in the stack, once per stack), overall and per thread. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cpu_profile.h"
#include "core/memory.h"
#include "core/registry.h"
#include "core/sort.h"
#include "core/symbols.h"
#include "cpu_section.h"
#include "report/fn_names.h"
#include "report/folded.h"
#include "report/format.h"
#include "report/profile_files.h"
#include "report/report.h"
#include "report/section.h"
#include "report/table.h"
#include "cpu_settings.h"

struct cpu_thread {
    uint32_t index;
    int tid;
    char name[48];
};

struct cpu_pair {              /* one function on one thread */
    uint32_t fn, thread;       /* thread: into cpu_snap.threads */
    uint64_t self, total;
};

struct cpu_fn {
    const struct hp_fn_name *id;   /* its name, module and location, in cpu_snap.names */
    uint64_t self, total;
    uint32_t first_pair, npairs;
};

struct cpu_snap {
    struct hp_cpu_figures v;
    struct hp_fn_names names;
    struct cpu_fn *fns;            /* by function number until sorted */
    uint32_t nfns, capfns;
    struct cpu_pair *pairs;
    uint32_t npairs, cappairs;
    struct cpu_thread *threads;
    uint32_t nthreads, capthreads;
};

static uint32_t thread_slot(struct cpu_snap *s, uint32_t index)
{
    for (uint32_t i = 0; i < s->nthreads; i++)
        if (s->threads[i].index == index) return i;
    if (hp_fn_grow((void **)&s->threads, &s->capthreads, s->nthreads + 1, sizeof *s->threads)) return UINT32_MAX;
    struct cpu_thread *t = &s->threads[s->nthreads];
    memset(t, 0, sizeof *t);
    t->index = index;
    snprintf(t->name, sizeof t->name, "thread_%u", index);
    return s->nthreads++;
}

static int add_pair(struct cpu_snap *s, uint32_t fn, uint32_t thread, uint64_t self, uint64_t total)
{
    if (hp_fn_grow((void **)&s->pairs, &s->cappairs, s->npairs + 1, sizeof *s->pairs)) return -1;
    s->pairs[s->npairs++] = (struct cpu_pair){ fn, thread, self, total };
    return 0;
}

static int by_fn_thread(const void *a, const void *b)
{
    const struct cpu_pair *x = a, *y = b;
    if (x->fn != y->fn) return x->fn < y->fn ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int by_self(const void *a, const void *b)
{
    const struct cpu_fn *x = a, *y = b;
    if (x->self != y->self) return x->self > y->self ? -1 : 1;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return strcmp(x->id->name, y->id->name);
}

static void name_threads(struct cpu_snap *s)
{
    hp_registry_lock();
    uint32_t count = hp_registry_count();
    for (uint32_t i = 0; i < count; i++) {
        struct hp_record *r = hp_record_at(i);
        for (uint32_t k = 0; k < s->nthreads; k++) {
            if (s->threads[k].index != r->index || r->unused) continue;
            s->threads[k].tid = r->tid;
            hp_record_name(r, s->threads[k].name, sizeof s->threads[k].name);
        }
    }
    hp_registry_unlock();
}

static void build(struct cpu_snap *s)
{
    struct hp_stacks *t = s->v.table;
    uint32_t n = hp_stacks_count(t);
    uint64_t counted = s->v.other;   /* the samples this snapshot holds (a drain may be under way) */
    if (hp_fn_names_open(&s->names, hp_stacks_frames(t)) == 0) {
        uint32_t seen[HP_STACK_MAX_DEPTH];
        for (uint32_t e = 0; e < n; e++) {
            struct hp_stack *st = &t->entries[e];
            if (!atomic_load_explicit(&st->ready, memory_order_acquire)) continue;
            uint64_t c = atomic_load_explicit(&st->count, memory_order_relaxed);
            if (!c || !st->depth) continue;
            counted += c;
            uint32_t th = thread_slot(s, st->tag), nseen = 0;
            if (th == UINT32_MAX) break;
            /* the profiler's own frames (not its hooks: fn_names.c) count for the frame they serve */
            for (uint32_t k = 0; k < st->depth && k < HP_STACK_MAX_DEPTH; k++) {
                int64_t f = hp_fn_names_of(&s->names, st->frames[k]);
                if (f < 0 || hp_fn_is_profiler(&s->names.fns[f])) continue;
                int dup = 0;
                for (uint32_t q = 0; q < nseen && !dup; q++) dup = seen[q] == (uint32_t)f;
                if (dup) continue;
                add_pair(s, (uint32_t)f, th, nseen == 0 ? c : 0, c);
                seen[nseen++] = (uint32_t)f;
            }
        }
        if (s->v.other) {
            int64_t f = hp_fn_names_intern(&s->names, "<other>", "");
            uint32_t th = thread_slot(s, UINT32_MAX);
            if (f >= 0 && th != UINT32_MAX) {
                snprintf(s->threads[th].name, sizeof s->threads[th].name, "<other>");
                add_pair(s, (uint32_t)f, th, s->v.other, s->v.other);
            }
        }
        hp_fn_names_locate(&s->names);
    }
    s->v.samples = counted;
    s->nfns = s->names.n;
    s->fns = hp_alloc(sizeof *s->fns * (s->nfns ? s->nfns : 1));
    if (!s->fns) s->nfns = 0;
    for (uint32_t i = 0; i < s->nfns; i++) s->fns[i].id = &s->names.fns[i];

    /* merge the pairs per (function, thread); sum per function */
    hp_sort(s->pairs, s->npairs, sizeof *s->pairs, by_fn_thread);
    uint32_t w = 0;
    for (uint32_t i = 0; i < s->npairs; i++) {
        if (w && s->pairs[w - 1].fn == s->pairs[i].fn && s->pairs[w - 1].thread == s->pairs[i].thread) {
            s->pairs[w - 1].self += s->pairs[i].self;
            s->pairs[w - 1].total += s->pairs[i].total;
        } else {
            s->pairs[w++] = s->pairs[i];
        }
    }
    s->npairs = w;
    for (uint32_t i = 0; i < s->npairs; i++) {
        struct cpu_fn *f = &s->fns[s->pairs[i].fn];
        if (!f->npairs) f->first_pair = i;
        f->npairs++;
        f->self += s->pairs[i].self;
        f->total += s->pairs[i].total;
    }
    w = 0;   /* the profiler's own functions were named but count for the frames they serve */
    for (uint32_t i = 0; i < s->nfns; i++)
        if (s->fns[i].npairs) s->fns[w++] = s->fns[i];
    s->nfns = w;
    hp_sort(s->fns, s->nfns, sizeof *s->fns, by_self);
    name_threads(s);
}

static void *cpu_snapshot(void)
{
    struct cpu_snap *s = hp_alloc(sizeof *s);
    if (!s) return NULL;
    hp_cpu_figures(&s->v);
    if (s->v.table) build(s);
    return s;
}

static void cpu_release(void *snap)
{
    struct cpu_snap *s = snap;
    if (!s) return;
    hp_fn_names_close(&s->names);
    hp_free(s->fns);
    hp_free(s->pairs);
    hp_free(s->threads);
    hp_free(s);
}

static void cpu_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    static const char *const headers[] = { "Function", "Samples", "Self %", "Total %", "Module", "Location" };
    const struct cpu_snap *s = snap;
    unsigned shown = limit && limit < s->nfns ? limit : s->nfns;
    char figures[448];
    const char *off = hp_cpu_off_text(s->v.off);
    /* why the profile is off is said here and in JSON off_reason, never on the program's stderr */
    if (!s->v.enabled)
        snprintf(figures, sizeof figures, "CPU profile off: %s", off ? off : "not started");
    else {
        /* what the profiler's own work took on the program's threads, where it took any, and
         * the CPU no sample could see: threads that block every signal (liblzma's workers) */
        char own[64] = "", unseen[128] = "", secs[HP_FMT_MAX];
        if (s->v.profiler)
            snprintf(own, sizeof own, "; %llu more in the profiler's work", (unsigned long long)s->v.profiler);
        if (s->v.unsampled_ns >= 10000000u) {
            hp_fmt_cpu_seconds(secs, s->v.unsampled_ns);
            snprintf(unseen, sizeof unseen, "; %s of CPU not sampled: threads with the profile's signal blocked", secs);
        }
        snprintf(figures, sizeof figures, "%llu samples at %u Hz of thread CPU%s%s%s%s", (unsigned long long)s->v.samples,
                 s->v.hz, own, unseen, off ? "; then CPU profile off: " : "", off ? off : "");
    }
    if (!s->nfns) {             /* one line instead of an empty table */
        hp_buf_printf(out, "functions-cpu: %s\n", figures);
        return;
    }
    hp_section_title(out, "functions-cpu", "Sampled CPU time by function.", figures, shown, s->nfns);
    struct hp_table t;
    hp_table_init(&t, 6, headers);
    for (unsigned i = 0; i < shown; i++) {
        const struct cpu_fn *f = &s->fns[i];
        char samples[32], self[HP_FMT_MAX], total[HP_FMT_MAX], where[280] = "-";
        snprintf(samples, sizeof samples, "%llu", (unsigned long long)f->self);
        hp_fmt_percent(self, hp_share_percent(f->self, s->v.samples));
        hp_fmt_percent(total, hp_share_percent(f->total, s->v.samples));
        char shown_name[HP_FN_NAME];
        hp_fn_where(f->id, where, sizeof where);
        hp_fn_display(f->id->name, shown_name, sizeof shown_name, HP_FN_SHOWN);
        const char *cells[] = { shown_name, samples, self, total, f->id->module[0] ? f->id->module : "-", where };
        hp_table_add_row(&t, cells);
    }
    hp_table_render(&t, out);
    hp_table_free(&t);
}

static void cpu_json(const void *snap, struct hp_json *j)
{
    const struct cpu_snap *s = snap;
    const char *off = hp_cpu_off_text(s->v.off);
    hp_json_object_begin(j, "functions_cpu");
    hp_json_bool(j, "enabled", s->v.enabled);
    if (off) hp_json_string(j, "off_reason", off);
    else hp_json_null(j, "off_reason");
    hp_json_u64(j, "hz", s->v.hz);
    hp_json_u64(j, "stack_depth", s->v.depth);
    hp_json_u64(j, "samples_count", s->v.samples);
    hp_json_u64(j, "other_samples_count", s->v.other);
    hp_json_u64(j, "dropped_samples_count", s->v.dropped);
    hp_json_u64(j, "profiler_samples_count", s->v.profiler);
    hp_json_u64(j, "unsampled_cpu_ns", s->v.unsampled_ns);
    if (s->v.signal) hp_json_u64(j, "signal", (uint64_t)s->v.signal);
    else hp_json_null(j, "signal");
    hp_json_array_begin(j, "functions");
    for (uint32_t i = 0; i < s->nfns; i++) {
        const struct cpu_fn *f = &s->fns[i];
        hp_json_object_begin(j, NULL);
        hp_fn_json(j, f->id);
        hp_json_u64(j, "self_count", f->self);
        hp_json_u64(j, "total_count", f->total);
        hp_json_fixed(j, "self_percent", hp_share_percent(f->self, s->v.samples), 2);
        hp_json_fixed(j, "total_percent", hp_share_percent(f->total, s->v.samples), 2);
        hp_json_array_begin(j, "threads");
        for (uint32_t k = 0; k < f->npairs; k++) {
            const struct cpu_pair *p = &s->pairs[f->first_pair + k];
            const struct cpu_thread *t = &s->threads[p->thread];
            hp_json_object_begin(j, NULL);
            if (t->index == UINT32_MAX) hp_json_null(j, "index");
            else hp_json_u64(j, "index", t->index);
            hp_json_i64(j, "os_tid", t->tid);
            hp_json_string(j, "name", t->name);
            hp_json_u64(j, "self_count", p->self);
            hp_json_u64(j, "total_count", p->total);
            hp_json_object_end(j);
        }
        hp_json_array_end(j);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

/* As the text table; the names whole (the text cuts them at HP_FN_SHOWN bytes). */
static const struct hp_html_table cpu_html = {
    "functions-cpu-table", "Functions by CPU samples", "functions",
    .sort = { { "self_count", 1 }, { "total_count", 1 } },
    .columns = {
        { "Function", "name", NULL, NULL }, { "Samples", "self_count", NULL, NULL },
        { "Self %", "self_count%^samples_count", "pct", NULL }, { "Total %", "total_count%^samples_count", "pct", NULL },
        { "Module", "module", "dash", NULL }, { "Location", "file", "where", NULL },
    },
};

static const struct hp_html_table *const cpu_html_tables[] = { &cpu_html, NULL };

const struct hp_section hp_functions_cpu_section = {
    .key = "functions_cpu",
    .limit = &hp_cpu_settings.limit,
    .title = "functions-cpu",
    .snapshot = cpu_snapshot,
    .release = cpu_release,
    .table = cpu_table,
    .json = cpu_json,
    .folded = hp_cpu_folded,
    .flame_id = "flame-cpu",
    .flame_title = "CPU",
    .flame_unit = HP_FLAME_SAMPLES,
    .files_write = hp_cpu_files_write,
    .html_tables = cpu_html_tables,
};

/* ---- folded stacks (HOTPATH_CPU_FOLDED) and their flame graph: threads merged ---- */

static uint64_t samples_of(const struct hp_stacks *t, uint32_t e, const void *arg)
{
    (void)arg;
    return atomic_load_explicit(&t->entries[e].count, memory_order_relaxed);
}

int hp_cpu_folded(struct hp_buf *out)
{
    struct hp_cpu_figures v;
    hp_cpu_figures(&v);
    if (!v.table) return -1;
    return hp_folded_build(out, v.table, samples_of, NULL, v.other, 0);
}

/* HOTPATH_CPU_FOLDED and HOTPATH_CPU_FLAMEGRAPH: the same folded stacks, as text and as SVG.
 * With the profile off the folded file is written empty and the flame graph says why. */
void hp_cpu_files_write(int pid, unsigned image, const char *command)
{
    struct hp_cpu_figures v;
    hp_cpu_figures(&v);
    const char *off = hp_cpu_off_text(v.off);
    char title[256];
    snprintf(title, sizeof title, "CPU: %.120s (pid %d, %s)", command, pid,
             v.enabled ? "samples of thread CPU time" : off ? off : "profile off");
    const struct hp_profile_files files = {
        hp_cpu_settings.folded, "HOTPATH_CPU_FOLDED", hp_cpu_settings.flamegraph, "HOTPATH_CPU_FLAMEGRAPH",
        hp_cpu_folded, !hp_cpu_settings.hz, title, v.enabled ? "no samples" : off ? off : "profile off",
        HP_FLAME_SAMPLES,
    };
    hp_profile_files_write(&files, pid, image);
}
