/* cpu_section.c — the CPU profile view, section `functions-cpu` (JSON `functions_cpu`): samples of
 * thread CPU time by function. A snapshot copies the stack table, names every distinct address
 * once (collectors/symbols.h), and counts per function its self samples (the innermost frame)
 * and total samples (anywhere in the stack, once per stack), overall and per thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../collectors/cpu_profile.h"
#include "../collectors/memory.h"
#include "../collectors/registry.h"
#include "../collectors/sort.h"
#include "../collectors/symbols.h"
#include "cpu_section.h"
#include "format.h"
#include "section.h"
#include "table.h"

#define FN_NAME 160
#define MOD_NAME 96

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
    char name[FN_NAME];
    char module[MOD_NAME];
    uint64_t self, total;
    uint32_t first_pair, npairs;
};

struct cpu_snap {
    struct hp_cpu_view v;
    struct cpu_fn *fns;
    uint32_t nfns, capfns;
    struct cpu_pair *pairs;
    uint32_t npairs, cappairs;
    struct cpu_thread *threads;
    uint32_t nthreads, capthreads;
};

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return 0;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = hp_realloc(*p, (size_t)n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

static uint64_t str_hash(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ull;
    for (; *a; a++) h = (h ^ (unsigned char)*a) * 1099511628211ull;
    h = (h ^ 0xFF) * 1099511628211ull;
    for (; *b; b++) h = (h ^ (unsigned char)*b) * 1099511628211ull;
    return h;
}

struct maps {
    uintptr_t *addr_keys;      /* address -> function, 0 = empty */
    uint32_t *addr_vals;
    uint32_t addr_mask;
    uint32_t *fn_slots;        /* function index + 1 by (name, module) */
    uint32_t fn_mask;
};

static uint32_t pow2_at_least(uint64_t n)
{
    uint32_t p = 64;
    while (p < n && p < (1u << 30)) p *= 2;
    return p;
}

/* Maps sized for every address the stack table holds (a NULL array means out of memory). */
static struct maps maps_for(struct hp_stacks *t)
{
    uint64_t words = atomic_load(&t->store_used);
    struct maps m = { 0 };
    m.addr_mask = pow2_at_least(2 * (words < t->store_words ? words : t->store_words) + 2) - 1;
    m.fn_mask = m.addr_mask;
    m.addr_keys = hp_alloc(sizeof *m.addr_keys * (m.addr_mask + 1));
    m.addr_vals = hp_alloc(sizeof *m.addr_vals * (m.addr_mask + 1));
    m.fn_slots = hp_alloc(sizeof *m.fn_slots * (m.fn_mask + 1));
    return m;
}

static void maps_free(struct maps *m)
{
    hp_free(m->addr_keys);
    hp_free(m->addr_vals);
    hp_free(m->fn_slots);
}

static int64_t intern_fn(struct cpu_snap *s, struct maps *m, const char *name, const char *module)
{
    uint64_t h = str_hash(name, module);
    for (uint32_t i = (uint32_t)h & m->fn_mask;; i = (i + 1) & m->fn_mask) {
        uint32_t v = m->fn_slots[i];
        if (v == 0) {
            if (s->nfns > m->fn_mask / 2 || grow((void **)&s->fns, &s->capfns, s->nfns + 1, sizeof *s->fns))
                return -1;
            struct cpu_fn *f = &s->fns[s->nfns];
            memset(f, 0, sizeof *f);
            snprintf(f->name, sizeof f->name, "%s", name);
            snprintf(f->module, sizeof f->module, "%s", module);
            m->fn_slots[i] = ++s->nfns;
            return s->nfns - 1;
        }
        if (strcmp(s->fns[v - 1].name, name) == 0 && strcmp(s->fns[v - 1].module, module) == 0)
            return v - 1;
    }
}

static int64_t fn_of(struct cpu_snap *s, struct maps *m, struct hp_syms *syms, uintptr_t addr)
{
    for (uint32_t i = (uint32_t)mix(addr) & m->addr_mask;; i = (i + 1) & m->addr_mask) {
        if (m->addr_keys[i] == addr) return m->addr_vals[i];
        if (m->addr_keys[i] == 0) {
            char name[FN_NAME], module[MOD_NAME];
            hp_syms_function(syms, (const void *)addr, name, sizeof name, module, sizeof module);
            int64_t f = intern_fn(s, m, name, module);
            if (f < 0) return -1;
            m->addr_keys[i] = addr;
            m->addr_vals[i] = (uint32_t)f;
            return f;
        }
    }
}

static uint32_t thread_slot(struct cpu_snap *s, uint32_t index)
{
    for (uint32_t i = 0; i < s->nthreads; i++)
        if (s->threads[i].index == index) return i;
    if (grow((void **)&s->threads, &s->capthreads, s->nthreads + 1, sizeof *s->threads)) return UINT32_MAX;
    struct cpu_thread *t = &s->threads[s->nthreads];
    memset(t, 0, sizeof *t);
    t->index = index;
    snprintf(t->name, sizeof t->name, "thread_%u", index);
    return s->nthreads++;
}

static int add_pair(struct cpu_snap *s, uint32_t fn, uint32_t thread, uint64_t self, uint64_t total)
{
    if (grow((void **)&s->pairs, &s->cappairs, s->npairs + 1, sizeof *s->pairs)) return -1;
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
    return strcmp(x->name, y->name);
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
    struct maps m = maps_for(t);
    struct hp_syms *syms = hp_syms_open();
    uint64_t counted = s->v.other;   /* the samples this snapshot holds (a drain may be under way) */
    if (m.addr_keys && m.addr_vals && m.fn_slots && syms) {
        uint32_t seen[HP_STACK_MAX_DEPTH];
        for (uint32_t e = 0; e < n; e++) {
            struct hp_stack *st = &t->entries[e];
            if (!atomic_load_explicit(&st->ready, memory_order_acquire)) continue;
            uint64_t c = atomic_load_explicit(&st->count, memory_order_relaxed);
            if (!c || !st->depth) continue;
            counted += c;
            uint32_t th = thread_slot(s, st->tag), nseen = 0;
            if (th == UINT32_MAX) break;
            for (uint32_t k = 0; k < st->depth && k < HP_STACK_MAX_DEPTH; k++) {
                int64_t f = fn_of(s, &m, syms, st->frames[k]);
                if (f < 0) continue;
                int dup = 0;
                for (uint32_t q = 0; q < nseen && !dup; q++) dup = seen[q] == (uint32_t)f;
                if (dup) continue;
                seen[nseen++] = (uint32_t)f;
                add_pair(s, (uint32_t)f, th, k == 0 ? c : 0, c);
            }
        }
    }
    if (s->v.other) {
        int64_t f = m.fn_slots ? intern_fn(s, &m, "<other>", "") : -1;
        uint32_t th = thread_slot(s, UINT32_MAX);
        if (f >= 0 && th != UINT32_MAX) {
            snprintf(s->threads[th].name, sizeof s->threads[th].name, "<other>");
            add_pair(s, (uint32_t)f, th, s->v.other, s->v.other);
        }
    }
    hp_syms_close(syms);
    maps_free(&m);
    s->v.samples = counted;

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
    hp_sort(s->fns, s->nfns, sizeof *s->fns, by_self);
    name_threads(s);
}

static void *cpu_snapshot(void)
{
    struct cpu_snap *s = hp_alloc(sizeof *s);
    if (!s) return NULL;
    hp_cpu_view(&s->v);
    if (s->v.table) build(s);
    return s;
}

static void cpu_release(void *snap)
{
    struct cpu_snap *s = snap;
    if (!s) return;
    hp_free(s->fns);
    hp_free(s->pairs);
    hp_free(s->threads);
    hp_free(s);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void cpu_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    static const char *const headers[] = { "Function", "Samples", "Self %", "Total %", "Module" };
    const struct cpu_snap *s = snap;
    unsigned shown = limit && limit < s->nfns ? limit : s->nfns;
    char figures[256];
    const char *off = hp_cpu_off_text(s->v.off);
    if (!s->v.enabled)
        snprintf(figures, sizeof figures, "off: %s", off ? off : "not started");
    else
        snprintf(figures, sizeof figures, "%llu samples at %u Hz of thread CPU%s%s",
                 (unsigned long long)s->v.samples, s->v.hz, off ? "; stopped: " : "", off ? off : "");
    hp_section_title(out, "functions-cpu", "Sampled CPU time by function.", figures, shown, s->nfns);
    if (!s->nfns) return;
    struct hp_table t;
    hp_table_init(&t, 5, headers);
    for (unsigned i = 0; i < shown; i++) {
        const struct cpu_fn *f = &s->fns[i];
        char samples[32], self[HP_FMT_MAX], total[HP_FMT_MAX];
        snprintf(samples, sizeof samples, "%llu", (unsigned long long)f->self);
        hp_fmt_percent(self, pct(f->self, s->v.samples));
        hp_fmt_percent(total, pct(f->total, s->v.samples));
        const char *cells[] = { f->name, samples, self, total, f->module[0] ? f->module : "-" };
        hp_table_add_row(&t, cells);
    }
    hp_table_render(&t, out);
    if (t.failed) out->failed = 1;
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
    hp_json_array_begin(j, "functions");
    for (uint32_t i = 0; i < s->nfns; i++) {
        const struct cpu_fn *f = &s->fns[i];
        hp_json_object_begin(j, NULL);
        hp_json_string(j, "name", f->name);
        hp_json_string(j, "module", f->module);
        hp_json_u64(j, "self_count", f->self);
        hp_json_u64(j, "total_count", f->total);
        hp_json_fixed(j, "self_percent", pct(f->self, s->v.samples), 2);
        hp_json_fixed(j, "total_percent", pct(f->total, s->v.samples), 2);
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

const struct hp_section hp_functions_cpu_section = {
    .id = HP_SEC_FUNCTIONS_CPU,
    .title = "functions-cpu",
    .snapshot = cpu_snapshot,
    .release = cpu_release,
    .table = cpu_table,
    .json = cpu_json,
};

/* ---- folded stacks (HOTPATH_CPU_FOLDED): `outer;...;inner count` lines, the input of
 * flamegraph.pl, inferno and speedscope; threads merged, equal stacks summed. ---- */

struct folded_line {
    size_t at, len;
    uint64_t count;
};

static const char *folded_text;

static int by_text(const void *a, const void *b)
{
    const struct folded_line *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(folded_text + x->at, folded_text + y->at, n);
    if (c) return c;
    return (x->len > y->len) - (x->len < y->len);
}

static void put_frame(struct hp_buf *b, const char *name)
{
    for (const char *p = name; *p; p++)
        hp_buf_putc(b, *p == ';' || *p == ' ' || *p == '\n' ? '_' : *p);
}

int hp_cpu_folded(struct hp_buf *out)
{
    struct cpu_snap s;
    memset(&s, 0, sizeof s);
    hp_cpu_view(&s.v);
    if (!s.v.table) return -1;
    struct hp_stacks *t = s.v.table;
    uint32_t n = hp_stacks_count(t);
    struct maps m = maps_for(t);
    struct folded_line *lines = hp_alloc(sizeof *lines * (n + 1));
    struct hp_syms *syms = hp_syms_open();
    struct hp_buf text = { 0 };
    uint32_t nlines = 0;
    int r = -1;
    if (m.addr_keys && m.addr_vals && m.fn_slots && lines && syms) {
        for (uint32_t e = 0; e < n; e++) {
            struct hp_stack *st = &t->entries[e];
            if (!atomic_load_explicit(&st->ready, memory_order_acquire)) continue;
            uint64_t c = atomic_load_explicit(&st->count, memory_order_relaxed);
            if (!c || !st->depth) continue;
            size_t at = text.len;
            for (uint32_t k = st->depth; k-- > 0;) {
                int64_t f = fn_of(&s, &m, syms, st->frames[k]);
                put_frame(&text, f < 0 ? "[?]" : s.fns[f].name);
                if (k) hp_buf_putc(&text, ';');
            }
            lines[nlines++] = (struct folded_line){ at, text.len - at, c };
        }
        if (s.v.other) {
            size_t at = text.len;
            hp_buf_puts(&text, "<other>");
            lines[nlines++] = (struct folded_line){ at, text.len - at, s.v.other };
        }
        if (!text.failed) {
            folded_text = text.data;
            hp_sort(lines, nlines, sizeof *lines, by_text);
            for (uint32_t i = 0; i < nlines; i++) {
                uint64_t c = lines[i].count;
                while (i + 1 < nlines && by_text(&lines[i], &lines[i + 1]) == 0) c += lines[++i].count;
                hp_buf_printf(out, "%.*s %llu\n", (int)lines[i].len, text.data + lines[i].at,
                              (unsigned long long)c);
            }
            r = out->failed ? -1 : 0;
        }
    }
    hp_syms_close(syms);
    hp_buf_free(&text);
    hp_free(lines);
    maps_free(&m);
    hp_free(s.fns);
    return r;
}

void hp_cpu_folded_write(int pid, unsigned image)
{
    if (!hp_config.cpu_folded[0]) return;
    char path[HP_OUTPUT_PATH_MAX + 32];
    struct hp_buf out = { 0 }, msg = { 0 };
    if (hp_expand_path(hp_config.cpu_folded, pid, image, path, sizeof path) != 0) {
        hp_buf_puts(&msg, "hotpath: HOTPATH_CPU_FOLDED is too long once expanded; no folded stacks written\n");
    } else if (hp_cpu_folded(&out) == 0 || !hp_config.cpu_hz) {
        int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        size_t done = 0;
        while (fd >= 0 && done < out.len) {
            long w = syscall(SYS_write, fd, out.data + done, out.len - done);
            if (w <= 0) break;
            done += (size_t)w;
        }
        if (fd < 0 || done < out.len)
            hp_buf_printf(&msg, "hotpath: cannot write the folded stacks to %s (%s)\n", path,
                          strerrorname_np(errno) ? strerrorname_np(errno) : "error");
        if (fd >= 0) syscall(SYS_close, fd);
    }
    if (msg.data && !msg.failed && syscall(SYS_write, 2, msg.data, msg.len) < 0) { /* nothing more to do */ }
    hp_buf_free(&msg);
    hp_buf_free(&out);
}
