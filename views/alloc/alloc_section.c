/* alloc_section.c — the allocation call-site view, section `functions-alloc` (JSON
 * `functions_alloc`): estimated bytes, calls and live bytes by function, from the sampled
 * allocations (views/alloc/alloc_sites.h). A call stack's figures go to the innermost function
 * outside the allocator, libc and the profiler (exclusive), or with HOTPATH_ALLOC_CUMULATIVE to
 * every function on the stack, once each (inclusive). JSON also has the figures by allocating
 * thread: live bytes there are counted where the block was allocated, whichever thread frees it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "alloc_sites.h"
#include "core/memory.h"
#include "core/registry.h"
#include "core/sort.h"
#include "alloc_section.h"
#include "report/fn_names.h"
#include "report/folded.h"
#include "report/format.h"
#include "report/profile_files.h"
#include "report/report.h"
#include "report/section.h"
#include "report/table.h"
#include "alloc_settings.h"

struct alloc_row {             /* one function, or one thread */
    uint32_t id;               /* function number, or thread index */
    int tid;
    char name[48];             /* threads only */
    uint64_t samples, bytes, calls_fx, live_bytes, live_calls_fx;
};

struct alloc_snap {
    struct hp_alloc_sites_view v;
    int cumulative;
    struct hp_fn_names names;
    struct alloc_row *fns;     /* by function number until sorted */
    uint32_t nfns, capfns;
    struct alloc_row *threads;
    uint32_t nthreads, capthreads;
    struct alloc_row total;    /* every stack's figures, <other> included */
};

/* The allocator's side of a stack: libc (malloc and its wrappers such as strdup; on macOS
 * libsystem_c and libsystem_malloc), the dynamic loader, and C++ operator new, whichever library
 * defines it. */
static int allocator_frame(const struct hp_fn_name *f)
{
    return strncmp(f->module, "libc.so", 7) == 0 || strncmp(f->module, "ld-linux", 8) == 0 ||
           strncmp(f->module, "libsystem_c.", 12) == 0 || strncmp(f->module, "libsystem_malloc.", 17) == 0 ||
           strncmp(f->name, "_Znw", 4) == 0 || strncmp(f->name, "_Zna", 4) == 0 ||
           strncmp(f->name, "operator new", 12) == 0;
}

static struct alloc_row *fn_row(struct alloc_snap *s, int64_t f)
{
    if (f < 0) return NULL;
    if ((uint32_t)f >= s->nfns) {
        if (hp_fn_grow((void **)&s->fns, &s->capfns, (uint32_t)f + 1, sizeof *s->fns)) return NULL;
        memset(s->fns + s->nfns, 0, sizeof *s->fns * ((uint32_t)f + 1 - s->nfns));
        for (uint32_t i = s->nfns; i <= (uint32_t)f; i++) s->fns[i].id = i;
        s->nfns = (uint32_t)f + 1;
    }
    return &s->fns[f];
}

static void add_to(struct alloc_row *r, uint64_t samples, const struct hp_alloc_figures *fig)
{
    if (!r) return;
    r->samples += samples;
    r->bytes += atomic_load_explicit(&fig->bytes, memory_order_relaxed);
    r->calls_fx += atomic_load_explicit(&fig->calls_fx, memory_order_relaxed);
    r->live_bytes += atomic_load_explicit(&fig->live_bytes, memory_order_relaxed);
    r->live_calls_fx += atomic_load_explicit(&fig->live_calls_fx, memory_order_relaxed);
}

/* One stack's figures, to its functions. */
static void add_stack(struct alloc_snap *s, const struct hp_stack *st, const struct hp_alloc_figures *fig)
{
    uint64_t samples = atomic_load_explicit(&st->count, memory_order_relaxed);
    if (!s->cumulative) {
        int64_t chosen = -1;
        for (uint32_t k = 0; k < st->depth; k++) {
            int64_t f = hp_fn_names_of(&s->names, st->frames[k]);
            if (f < 0 || hp_fn_is_profiler(&s->names.fns[f])) continue;
            if (chosen < 0) chosen = f;   /* a stack of allocator frames only: its innermost */
            if (!allocator_frame(&s->names.fns[f])) {
                chosen = f;
                break;
            }
        }
        if (chosen < 0) chosen = hp_fn_names_intern(&s->names, "[?]", "");
        add_to(fn_row(s, chosen), samples, fig);
        return;
    }
    int64_t seen[HP_STACK_MAX_DEPTH];
    uint32_t nseen = 0;
    for (uint32_t k = 0; k < st->depth && k < HP_STACK_MAX_DEPTH; k++) {
        int64_t f = hp_fn_names_of(&s->names, st->frames[k]);
        int dup = f < 0 || hp_fn_is_profiler(&s->names.fns[f]);
        for (uint32_t q = 0; q < nseen && !dup; q++) dup = seen[q] == f;
        if (dup) continue;
        seen[nseen++] = f;
        add_to(fn_row(s, f), samples, fig);
    }
}

static void by_thread(struct alloc_snap *s)
{
    for (uint32_t i = 0; i < s->v.threads_used; i++) {   /* not all 8,193: their pages stay untouched */
        const struct hp_alloc_figures *fig = &s->v.threads[i];
        if (!atomic_load_explicit(&fig->bytes, memory_order_relaxed)) continue;
        if (hp_fn_grow((void **)&s->threads, &s->capthreads, s->nthreads + 1, sizeof *s->threads)) return;
        struct alloc_row *r = &s->threads[s->nthreads++];
        memset(r, 0, sizeof *r);
        r->id = i < HP_ALLOC_THREADS ? i : UINT32_MAX;
        snprintf(r->name, sizeof r->name, i < HP_ALLOC_THREADS ? "thread_%u" : "<other>", i);
        add_to(r, 0, fig);
    }
    hp_registry_lock();
    uint32_t count = hp_registry_count();
    for (uint32_t i = 0; i < count; i++) {
        struct hp_record *rec = hp_record_at(i);
        if (rec->unused) continue;
        for (uint32_t k = 0; k < s->nthreads; k++) {
            if (s->threads[k].id != rec->index) continue;
            s->threads[k].tid = rec->tid;
            hp_record_name(rec, s->threads[k].name, sizeof s->threads[k].name);
        }
    }
    hp_registry_unlock();
}

static int by_bytes(const void *a, const void *b)
{
    const struct alloc_row *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static void build(struct alloc_snap *s)
{
    struct hp_stacks *t = s->v.table;
    uint32_t n = hp_stacks_count(t);
    if (hp_fn_names_open(&s->names, hp_stacks_frames(t)) != 0) return;
    for (uint32_t e = 0; e < n; e++) {
        const struct hp_stack *st = &t->entries[e];
        if (!atomic_load_explicit(&st->ready, memory_order_acquire)) continue;
        const struct hp_alloc_figures *fig = &s->v.sites[e];
        add_stack(s, st, fig);
        add_to(&s->total, 0, fig);
    }
    const struct hp_alloc_figures *other = &s->v.sites[t->max_entries];
    if (atomic_load(&other->bytes)) {
        add_to(fn_row(s, hp_fn_names_intern(&s->names, "<other>", "")), atomic_load(&t->other), other);
        add_to(&s->total, 0, other);
    }
    hp_fn_names_locate(&s->names);
    uint32_t w = 0;   /* functions that only appeared above the chosen frame have no figures */
    for (uint32_t i = 0; i < s->nfns; i++)
        if (s->fns[i].samples) s->fns[w++] = s->fns[i];
    s->nfns = w;
    hp_sort(s->fns, s->nfns, sizeof *s->fns, by_bytes);
    by_thread(s);
    hp_sort(s->threads, s->nthreads, sizeof *s->threads, by_bytes);
}

static void *alloc_snapshot(void)
{
    struct alloc_snap *s = hp_alloc(sizeof *s);
    if (!s) return NULL;
    hp_alloc_sites_view(&s->v);
    s->cumulative = hp_alloc_settings.cumulative;
    if (s->v.enabled) build(s);
    return s;
}

static void alloc_release(void *snap)
{
    struct alloc_snap *s = snap;
    if (!s) return;
    hp_fn_names_close(&s->names);
    hp_free(s->fns);
    hp_free(s->threads);
    hp_free(s);
}

static uint64_t calls(uint64_t fx)
{
    return (fx + 512) / 1024;
}

static const struct hp_fn_name *name_of(const struct alloc_snap *s, const struct alloc_row *r)
{
    return &s->names.fns[r->id];
}

static void alloc_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    static const char *const headers[] = { "Function", "Bytes", "Calls", "Live", "% Total" };
    const struct alloc_snap *s = snap;
    unsigned shown = limit && limit < s->nfns ? limit : s->nfns;
    char figures[256], every[HP_FMT_MAX], live[HP_FMT_MAX];
    if (!s->v.enabled) {
        snprintf(figures, sizeof figures, "off");
    } else {
        hp_fmt_bytes(every, s->v.sample_bytes);
        hp_fmt_bytes(live, (int64_t)s->total.live_bytes);
        snprintf(figures, sizeof figures, "%llu samples, one per %s on average; %s; live %s",
                 (unsigned long long)s->v.samples, every, s->cumulative ? "inclusive" : "exclusive", live);
    }
    if (!s->nfns) {             /* one line instead of an empty table */
        hp_buf_printf(out, "functions-alloc: %s\n", figures);
        return;
    }
    hp_section_title(out, "functions-alloc", "Allocated bytes by function (sampled).", figures, shown, s->nfns);
    struct hp_table t;
    hp_table_init(&t, 5, headers);
    for (unsigned i = 0; i < shown; i++) {
        const struct alloc_row *r = &s->fns[i];
        char bytes[HP_FMT_MAX], count[32], live_bytes[HP_FMT_MAX], share[HP_FMT_MAX];
        hp_fmt_bytes(bytes, (int64_t)r->bytes);
        snprintf(count, sizeof count, "%llu", (unsigned long long)calls(r->calls_fx));
        hp_fmt_bytes(live_bytes, (int64_t)r->live_bytes);
        hp_fmt_percent(share, hp_share_percent(r->bytes, s->total.bytes));
        char shown_name[HP_FN_NAME];
        hp_fn_display(name_of(s, r)->name, shown_name, sizeof shown_name, HP_FN_SHOWN);
        const char *cells[] = { shown_name, bytes, count, live_bytes, share };
        hp_table_add_row(&t, cells);
    }
    hp_table_render(&t, out);
    hp_table_free(&t);
}

static void alloc_json(const void *snap, struct hp_json *j)
{
    const struct alloc_snap *s = snap;
    hp_json_object_begin(j, "functions_alloc");
    hp_json_bool(j, "enabled", s->v.enabled);
    hp_json_u64(j, "sample_bytes", s->v.sample_bytes);
    hp_json_string(j, "attribution", s->cumulative ? "inclusive" : "exclusive");
    hp_json_u64(j, "samples_count", s->v.samples);
    hp_json_u64(j, "untracked_samples_count", s->v.untracked);
    hp_json_u64(j, "alloc_bytes", s->total.bytes);
    hp_json_u64(j, "alloc_count", calls(s->total.calls_fx));
    hp_json_u64(j, "live_bytes", s->total.live_bytes);
    hp_json_array_begin(j, "functions");
    for (uint32_t i = 0; i < s->nfns; i++) {
        const struct alloc_row *r = &s->fns[i];
        hp_json_object_begin(j, NULL);
        hp_fn_json(j, name_of(s, r));
        hp_json_u64(j, "samples_count", r->samples);
        hp_json_u64(j, "alloc_bytes", r->bytes);
        hp_json_u64(j, "alloc_count", calls(r->calls_fx));
        hp_json_u64(j, "live_bytes", r->live_bytes);
        hp_json_u64(j, "live_count", calls(r->live_calls_fx));
        hp_json_fixed(j, "alloc_percent", hp_share_percent(r->bytes, s->total.bytes), 2);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_array_begin(j, "threads");
    for (uint32_t i = 0; i < s->nthreads; i++) {
        const struct alloc_row *r = &s->threads[i];
        hp_json_object_begin(j, NULL);
        if (r->id == UINT32_MAX) hp_json_null(j, "index");
        else hp_json_u64(j, "index", r->id);
        hp_json_i64(j, "os_tid", r->tid);
        hp_json_string(j, "name", r->name);
        hp_json_u64(j, "alloc_bytes", r->bytes);
        hp_json_u64(j, "alloc_count", calls(r->calls_fx));
        hp_json_u64(j, "live_bytes", r->live_bytes);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

/* As the text table; the names whole (the text cuts them at HP_FN_SHOWN bytes). */
static const struct hp_html_table alloc_html = {
    "functions-alloc-table", "Functions by allocated bytes", "functions",
    .sort = { { "alloc_bytes", 1 } },
    .columns = {
        { "Function", "name", NULL, NULL }, { "Bytes", "alloc_bytes", "bytes", NULL },
        { "Calls", "alloc_count", NULL, NULL }, { "Live", "live_bytes", "bytes", NULL },
        { "% Total", "alloc_bytes%^alloc_bytes", "pct", NULL },
    },
};

static const struct hp_html_table *const alloc_html_tables[] = { &alloc_html, NULL };

const struct hp_section hp_functions_alloc_section = {
    .key = "functions_alloc",
    .limit = &hp_alloc_settings.limit,
    .title = "functions-alloc",
    .snapshot = alloc_snapshot,
    .release = alloc_release,
    .table = alloc_table,
    .json = alloc_json,
    .folded = hp_alloc_folded,
    .flame_id = "flame-alloc",
    .flame_title = "Allocations",
    .flame_unit = HP_FLAME_BYTES,
    .files_write = hp_alloc_files_write,
    .html_tables = alloc_html_tables,
};

/* ---- folded stacks (HOTPATH_ALLOC_FOLDED) weighted by estimated bytes, and their flame graph ---- */

static uint64_t bytes_of(const struct hp_stacks *t, uint32_t e, const void *arg)
{
    (void)t;
    const struct hp_alloc_figures *sites = arg;
    return atomic_load_explicit(&sites[e].bytes, memory_order_relaxed);
}

int hp_alloc_folded(struct hp_buf *out)
{
    struct hp_alloc_sites_view v;
    hp_alloc_sites_view(&v);
    if (!v.enabled) return -1;
    uint64_t other = atomic_load_explicit(&v.sites[v.table->max_entries].bytes, memory_order_relaxed);
    return hp_folded_build(out, v.table, bytes_of, v.sites, other, 1);
}

void hp_alloc_files_write(int pid, unsigned image, const char *command)
{
    char title[256];
    snprintf(title, sizeof title, "Allocated bytes: %.120s (pid %d, sampled)", command, pid);
    const struct hp_profile_files files = {
        hp_alloc_settings.folded, "HOTPATH_ALLOC_FOLDED", hp_alloc_settings.flamegraph, "HOTPATH_ALLOC_FLAMEGRAPH",
        hp_alloc_folded, !hp_alloc_settings.sample_bytes, title,
        hp_alloc_settings.sample_bytes ? "no samples" : "HOTPATH_ALLOC_SAMPLE_BYTES=0", HP_FLAME_BYTES,
    };
    hp_profile_files_write(&files, pid, image);
}
