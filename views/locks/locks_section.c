/* locks_section.c — the locks view: sections `mutexes` (with the condition variables in JSON) and
 * `rw_locks`. A snapshot copies every record of the lock table, names each lock (its symbol, or the
 * stack that first locked it), merges locks without a symbol that share a first-lock stack into
 * one row (unless HOTPATH_LOCKS_ITER), adds the waits in progress (threads blocked acquiring a
 * lock as the snapshot is made: a deadlock's locks), and converts ticks to nanoseconds. */
#include "locks_section.h"

#include <stdio.h>
#include <string.h>

#include "locks.h"
#include "core/memory.h"
#include "core/registry.h"
#include "core/sort.h"
#include "core/symbols.h"
#include "report/fn_names.h"
#include "report/format.h"
#include "report/prometheus.h"
#include "report/section.h"
#include "report/table.h"
#include "locks_settings.h"

#define NAME_FRAMES 3          /* frames in a text name; JSON has the whole stack */
#define FRAME_NAME 96

struct mode_figs {
    uint64_t locks, contended, owner_changes, timeouts, timeout_ns;
    uint64_t wait_ns, wait_max_ns, wait_p95_ns, wait_p99_ns;
    uint64_t holds_timed, hold_ns, hold_max_ns, hold_p95_ns, hold_p99_ns;
    int has_wait_pct, has_hold_pct;
    uint64_t waiting, waiting_ns;      /* waits in progress, and how long so far */
    uint64_t wait_le[HP_PROM_LE + 1], hold_le[HP_PROM_LE + 1];   /* Prometheus buckets */
};

struct lock_row {
    char name[512];
    unsigned ordinal;          /* among rows of the same name (Prometheus labels), 0 for none */
    char symbol[160];
    const char *module;        /* into the snapshot's symbol tables */
    uintptr_t addr;
    unsigned nframes;
    char frames[HP_LOCK_FRAMES][FRAME_NAME];
    void *pcs[HP_LOCK_FRAMES];            /* the frames' return addresses */
    char location[64];         /* `file.c:42` where the innermost frame's function is defined, or ""
                                  (the others are looked up only for JSON: debug info is slow) */
    uint32_t instances, destroyed;
    int other;
    uint64_t nested;
    struct mode_figs mode[2];
    uint64_t wait_total_ns;    /* both modes, with the waits in progress: the sort key */
};

struct locks_snap {
    unsigned kind;
    struct hp_syms *syms;
    struct lock_row *rows;
    unsigned n;
    struct lock_row *conds;    /* mutexes section: condition variables (JSON) */
    unsigned nconds;
    unsigned period;
    int overflowed;
};

/* ---- gathering ---- */

struct item {
    struct hp_lock *l;
    int symbol;                /* a symbol names it: never merged */
    char sym[160];
    const char *module;
};

static int merge_class(const struct item *x)
{
    return x->l->shared || x->symbol || x->l->nframes == 0 ? 0 : 1;
}

static int by_stack(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    int cx = merge_class(x), cy = merge_class(y);
    if (cx != cy) return cx - cy;
    if (cx == 1) {
        if (x->l->nframes != y->l->nframes) return x->l->nframes < y->l->nframes ? -1 : 1;
        int c = memcmp(x->l->frames, y->l->frames, x->l->nframes * sizeof(void *));
        if (c) return c;
    }
    return x->l->addr < y->l->addr ? -1 : x->l->addr > y->l->addr;
}

static int mergeable(const struct item *x, const struct item *y)
{
    return merge_class(x) == 1 && merge_class(y) == 1 && x->l->nframes == y->l->nframes &&
           memcmp(x->l->frames, y->l->frames, x->l->nframes * sizeof(void *)) == 0;
}

struct acc {
    uint64_t locks, contended, owner_changes, timeouts, timeout_ticks, waiting, waiting_ticks;
    uint64_t wait_ticks, wait_max, holds_timed, hold_ticks, hold_max;
    uint32_t wait_hist[HP_HIST_BUCKETS], hold_hist[HP_HIST_BUCKETS];
    int has_wait_hist, has_hold_hist;
};

static void add_mode(struct acc *a, struct hp_lock *l, int mode)
{
    struct hp_lock_mode *m = &l->mode[mode];
    a->locks += hp_lock_acquisitions(l, mode);
    a->contended += hp_lk_get(&m->contended);
    if (mode == HP_MODE_WRITE) a->owner_changes += hp_lk_get(&l->owner_changes);
    a->timeouts += hp_lk_get(&m->timeouts);
    a->timeout_ticks += hp_lk_get(&m->timeout_ticks);
    a->wait_ticks += hp_lk_get(&m->wait_ticks);
    a->holds_timed += hp_lk_get(&m->holds_timed);
    a->hold_ticks += hp_lk_get(&m->hold_ticks);
    uint64_t wm = hp_lk_get(&m->wait_max), hm = hp_lk_get(&m->hold_max);
    if (wm > a->wait_max) a->wait_max = wm;
    if (hm > a->hold_max) a->hold_max = hm;
    struct hp_lock_hists *h = atomic_load_explicit(&m->hists, memory_order_acquire);
    if (!h) return;
    uint32_t tmp[HP_HIST_BUCKETS];
    hp_hist_snapshot(&h->wait, tmp);
    for (unsigned i = 0; i < HP_HIST_BUCKETS; i++) a->wait_hist[i] += tmp[i];
    hp_hist_snapshot(&h->hold, tmp);
    for (unsigned i = 0; i < HP_HIST_BUCKETS; i++) a->hold_hist[i] += tmp[i];
    a->has_wait_hist = a->has_hold_hist = 1;
}

static uint64_t ns(uint64_t ticks)
{
    return hp_ticks_to_ns(ticks);
}

static void finish_mode(struct mode_figs *f, const struct acc *a)
{
    f->locks = a->locks;
    f->contended = a->contended;
    f->waiting = a->waiting;
    f->waiting_ns = ns(a->waiting_ticks);
    f->owner_changes = a->owner_changes;
    f->timeouts = a->timeouts;
    f->timeout_ns = ns(a->timeout_ticks);
    f->wait_ns = ns(a->wait_ticks);
    f->wait_max_ns = ns(a->wait_max);
    f->holds_timed = a->holds_timed;
    f->hold_ns = ns(a->hold_ticks);
    f->hold_max_ns = ns(a->hold_max);
    if (a->has_wait_hist && a->contended) {
        f->has_wait_pct = 1;
        f->wait_p95_ns = ns(hp_hist_quantile(a->wait_hist, 0.95, a->wait_max));
        f->wait_p99_ns = ns(hp_hist_quantile(a->wait_hist, 0.99, a->wait_max));
    }
    if (a->has_wait_hist) hp_prom_coarse(a->wait_hist, ns, f->wait_le);
    if (a->has_hold_hist) hp_prom_coarse(a->hold_hist, ns, f->hold_le);
    if (a->has_hold_hist && a->holds_timed) {
        f->has_hold_pct = 1;
        f->hold_p95_ns = ns(hp_hist_quantile(a->hold_hist, 0.95, a->hold_max));
        f->hold_p99_ns = ns(hp_hist_quantile(a->hold_hist, 0.99, a->hold_max));
    }
}

/* `file.c:42` for the function holding return address pc, or "". */
static void locate(struct hp_syms *syms, void *pc, char *out, size_t size)
{
    char file[256];
    unsigned line;
    out[0] = 0;
    if (hp_syms_location(syms, pc, file, sizeof file, &line)) hp_location_text(file, line, out, size);
}

/* A lock without a symbol: named by the first `shown` frames of the stack that first locked it. */
static void stack_name(struct lock_row *r, unsigned shown)
{
    size_t len = 0;
    for (unsigned i = 0; i < r->nframes && i < shown && len < sizeof r->name; i++)
        len += (size_t)snprintf(r->name + len, sizeof r->name - len, "%s%s", i ? " ← " : "", r->frames[i]);
    /* where the innermost function is defined: the call site is in it */
    if (r->location[0] && len < sizeof r->name)
        len += (size_t)snprintf(r->name + len, sizeof r->name - len, " (%s)", r->location);
    /* a lock in a module's static data that has no symbol: not to be taken for a heap lock
     * first locked from the same place */
    if (r->module && len < sizeof r->name) {
        const char *base = strrchr(r->module, '/');
        snprintf(r->name + len, sizeof r->name - len, ", static in %s", base ? base + 1 : r->module);
    }
}

static void name_row(struct lock_row *r, const struct item *first, struct hp_syms *syms)
{
    const struct hp_lock *l = first->l;
    r->addr = l->addr;
    r->module = first->module;
    r->nframes = l->nframes;
    for (unsigned i = 0; i < l->nframes; i++) {
        r->pcs[i] = l->frames[i];
        hp_syms_frame(syms, l->frames[i], r->frames[i], FRAME_NAME);
    }
    if (l->nframes) locate(syms, r->pcs[0], r->location, sizeof r->location);
    if (l->shared) {
        snprintf(r->name, sizeof r->name, "<other>");
        r->other = 1;
    } else if (first->symbol) {
        snprintf(r->symbol, sizeof r->symbol, "%s", first->sym);
        snprintf(r->name, sizeof r->name, "%s", first->sym);
    } else if (l->nframes) {
        stack_name(r, NAME_FRAMES);
    } else {
        snprintf(r->name, sizeof r->name, "0x%lx", (unsigned long)l->addr);
    }
}

static void look_up(struct item *it, struct hp_syms *syms)
{
    if (it->l->shared) return;
    it->symbol = hp_syms_data(syms, (const void *)it->l->addr, it->sym, sizeof it->sym, &it->module);
}

/* By name, then address, then place in the table (deterministic for one set of records). */
static int by_name(const void *a, const void *b)
{
    const struct lock_row *x = *(struct lock_row *const *)a, *y = *(struct lock_row *const *)b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return (x > y) - (x < y);
}

/* Rows whose names came out the same. Stacks that part only below the frames a name shows are
 * named by their whole stacks. What is still the same (one symbol in two modules, a lock made
 * again at its address) gets an ordinal, 2 and up, that Prometheus labels carry (`cache_lock
 * #2`): it refuses a scrape with two series of one name and labels. Names that are distinct
 * already stay as they are, so a series keeps its labels from one scrape to the next. */
static void distinct_names(struct lock_row *rows, unsigned n)
{
    struct lock_row **by = hp_alloc((n ? n : 1) * sizeof *by);
    if (!by) return;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < n; i++) by[i] = &rows[i];
        hp_sort(by, n, sizeof *by, by_name);
        for (unsigned i = 0; i < n;) {
            unsigned j = i + 1;
            while (j < n && strcmp(by[i]->name, by[j]->name) == 0) j++;
            for (unsigned k = i; j - i > 1 && k < j; k++) {
                if (pass == 0 && !by[k]->symbol[0] && by[k]->nframes && !by[k]->other) stack_name(by[k], HP_LOCK_FRAMES);
                else if (pass == 1) by[k]->ordinal = k - i + 1;
            }
            i = j;
        }
    }
    hp_free(by);
}

/* Acquired, waited for or timed out on in this process image: a fork child keeps its parent's
 * records with their counters at zero, and a record made for a failed trylock has none either. */
static int lock_used(struct hp_lock *l)
{
    for (int m = 0; m < 2; m++)
        if (hp_lock_acquisitions(l, m) || hp_lk_get(&l->mode[m].contended) || hp_lk_get(&l->mode[m].timeouts))
            return 1;
    return 0;
}

/* A thread blocked acquiring a lock as the snapshot is made. */
struct waiter {
    const struct hp_lock *l;
    int mode;
    uint64_t ticks;             /* so far */
};

static int by_lock(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct waiter *)a)->l, y = (uintptr_t)((const struct waiter *)b)->l;
    return (x > y) - (x < y);
}

/* The threads waiting for a mutex or rwlock now, sorted by lock (NULL, 0 when none). */
static struct waiter *waiters_now(unsigned kind, size_t *n)
{
    *n = 0;
    if (kind != HP_LOCK_MUTEX && kind != HP_LOCK_RWLOCK) return NULL;
    size_t max = hp_registry_count() + 64;       /* threads made meanwhile may go unlisted */
    struct waiter *w = hp_alloc(max * sizeof *w);
    if (!w) return NULL;
    uint64_t now = hp_ticks();
    hp_registry_lock();
    for (uint32_t i = 0, count = hp_registry_count(); i < count && *n < max; i++) {
        struct hp_counts c;
        hp_record_counts(hp_record_at(i), &c);
        const struct hp_lock *l = c.blocked_on;
        if (!l || l->kind != kind) continue;
        w[(*n)++] = (struct waiter){ l, c.blocked_read ? HP_MODE_READ : HP_MODE_WRITE,
                                     now > c.blocked_since ? now - c.blocked_since : 0 };
    }
    hp_registry_unlock();
    hp_sort(w, *n, sizeof *w, by_lock);
    return w;
}

/* The first of l's waiters in w, or n. */
static size_t first_waiter(const struct hp_lock *l, const struct waiter *w, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)w[mid].l < (uintptr_t)l) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && w[lo].l == l ? lo : n;
}

/* Add the waits in progress on l to its modes' figures. */
static void add_waiters(struct acc acc[2], const struct hp_lock *l, const struct waiter *w, size_t n)
{
    for (size_t i = first_waiter(l, w, n); i < n && w[i].l == l; i++) {
        acc[w[i].mode].waiting++;
        acc[w[i].mode].waiting_ticks += w[i].ticks;
    }
}

/* Rows of one kind, merged and sorted by total wait. */
static struct lock_row *gather(unsigned kind, struct hp_syms *syms, unsigned *count)
{
    *count = 0;
    size_t max = hp_locks_count();
    struct hp_lock **locks = hp_alloc(max * sizeof *locks);
    struct item *items = NULL;
    struct lock_row *rows = NULL;
    struct acc *acc = hp_alloc(2 * sizeof *acc);
    size_t nwaiting = 0;
    struct waiter *waiting = waiters_now(kind, &nwaiting);
    if (!locks || !acc) goto out;
    size_t listed = hp_locks_list(kind, locks, max), n = 0;
    for (size_t i = 0; i < listed; i++)
        if (lock_used(locks[i]) || first_waiter(locks[i], waiting, nwaiting) < nwaiting) locks[n++] = locks[i];
    items = hp_alloc((n ? n : 1) * sizeof *items);
    if (!items) goto out;
    for (size_t i = 0; i < n; i++) {
        items[i].l = locks[i];
        look_up(&items[i], syms);
    }
    if (!hp_locks_settings.iter) hp_sort(items, n, sizeof *items, by_stack);
    size_t groups = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || hp_locks_settings.iter || !mergeable(&items[i - 1], &items[i])) groups++;
    rows = hp_alloc((groups ? groups : 1) * sizeof *rows);
    if (!rows) goto out;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        if (!hp_locks_settings.iter)
            while (j < n && mergeable(&items[i], &items[j])) j++;
        struct lock_row *r = &rows[(*count)++];
        memset(acc, 0, 2 * sizeof *acc);
        for (size_t k = i; k < j; k++) {
            struct hp_lock *l = items[k].l;
            add_mode(&acc[0], l, 0);
            add_mode(&acc[1], l, 1);
            add_waiters(acc, l, waiting, nwaiting);
            r->instances += l->shared ? 0 : atomic_load(&l->instances);
            r->destroyed += atomic_load(&l->destroyed);
            r->nested += hp_lk_get(&l->nested);
        }
        name_row(r, &items[i], syms);
        finish_mode(&r->mode[0], &acc[0]);
        finish_mode(&r->mode[1], &acc[1]);
        r->wait_total_ns = r->mode[0].wait_ns + r->mode[1].wait_ns + r->mode[0].waiting_ns + r->mode[1].waiting_ns;
        i = j;
    }
    distinct_names(rows, *count);
out:
    hp_free(waiting);
    hp_free(acc);
    hp_free(items);
    hp_free(locks);
    return rows;
}

static int by_wait(const void *a, const void *b)
{
    const struct lock_row *x = a, *y = b;
    if (x->wait_total_ns != y->wait_total_ns) return x->wait_total_ns > y->wait_total_ns ? -1 : 1;
    uint64_t lx = x->mode[0].locks + x->mode[1].locks, ly = y->mode[0].locks + y->mode[1].locks;
    if (lx != ly) return lx > ly ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void *snapshot(unsigned kind)
{
    struct locks_snap *s = hp_alloc(sizeof *s);
    if (!s) return NULL;
    s->kind = kind;
    s->syms = hp_syms_open();
    s->rows = gather(kind, s->syms, &s->n);
    hp_sort(s->rows, s->n, sizeof *s->rows, by_wait);
    if (kind == HP_LOCK_MUTEX) {
        s->conds = gather(HP_LOCK_COND, s->syms, &s->nconds);
        hp_sort(s->conds, s->nconds, sizeof *s->conds, by_wait);
    }
    s->period = kind == HP_LOCK_MUTEX ? hp_locks_settings.mutex_time_period : hp_locks_settings.rwlock_time_period;
    s->overflowed = hp_locks_overflowed(kind);
    return s;
}

static void *mutexes_snapshot(void) { return snapshot(HP_LOCK_MUTEX); }
static void *rw_locks_snapshot(void) { return snapshot(HP_LOCK_RWLOCK); }

static void locks_release(void *snap)
{
    struct locks_snap *s = snap;
    hp_free(s->rows);
    hp_free(s->conds);
    hp_syms_close(s->syms);
    hp_free(s);
}

/* ---- text ---- */

static void dur(char out[HP_FMT_MAX], int has, uint64_t v)
{
    if (has) hp_fmt_duration(out, v);
    else snprintf(out, HP_FMT_MAX, "-");
}

/* A row's name as the text shows it: with its ordinal where rows' names came out the same. */
static const char *shown_name(const struct lock_row *r, char *buf, size_t size)
{
    if (r->ordinal < 2) return r->name;
    snprintf(buf, size, "%s #%u", r->name, r->ordinal);
    return buf;
}

/* The cells of one row from Inst on (10 cells). */
static void mode_cells(const struct lock_row *r, const struct mode_figs *f, char c[10][HP_FMT_MAX])
{
    if (r->other) snprintf(c[0], HP_FMT_MAX, "-");
    else snprintf(c[0], HP_FMT_MAX, "%u", r->instances);
    snprintf(c[1], HP_FMT_MAX, "%llu", (unsigned long long)f->locks);
    snprintf(c[2], HP_FMT_MAX, "%llu", (unsigned long long)f->contended);
    dur(c[3], f->contended > 0, f->contended ? f->wait_ns / f->contended : 0);
    dur(c[4], f->has_wait_pct, f->wait_p95_ns);
    dur(c[5], f->contended > 0, f->wait_max_ns);
    dur(c[6], f->holds_timed > 0, f->holds_timed ? f->hold_ns / f->holds_timed : 0);
    dur(c[7], f->has_hold_pct, f->hold_p95_ns);
    dur(c[8], f->holds_timed > 0, f->hold_max_ns);
    hp_fmt_duration(c[9], f->wait_ns + f->waiting_ns);
}

static void figures(const struct locks_snap *s, char *out, size_t size)
{
    size_t len = 0;
    out[0] = 0;
    if (s->period != 1)
        len += (size_t)snprintf(out, size, s->period ? "holds timed 1 in %u" : "holds not timed", s->period);
    /* A timed or clock call that gave up waited too, but acquired nothing: no row's Wait has it.
     * Threads blocked acquiring as the report is made (a deadlock) are in Wait total only. */
    uint64_t timeouts = 0, timeout_ns = 0, waiting = 0, waiting_ns = 0;
    for (unsigned i = 0; i < s->n; i++)
        for (int m = 0; m < 2; m++) {
            const struct mode_figs *f = &s->rows[i].mode[m];
            timeouts += f->timeouts;
            timeout_ns += f->timeout_ns;
            waiting += f->waiting;
            waiting_ns += f->waiting_ns;
        }
    if (timeouts && len < size) {
        char waited[HP_FMT_MAX];
        hp_fmt_duration(waited, timeout_ns);
        len += (size_t)snprintf(out + len, size - len, "%s%llu timed out after %s of waiting", len ? "; " : "",
                                (unsigned long long)timeouts, waited);
    }
    if (waiting && len < size) {
        char so_far[HP_FMT_MAX];
        hp_fmt_duration(so_far, waiting_ns);
        len += (size_t)snprintf(out + len, size - len, "%s%llu thread%s blocked now, %s so far, in Wait total",
                                len ? "; " : "", (unsigned long long)waiting, waiting == 1 ? "" : "s", so_far);
    }
    if (s->overflowed && len < size)
        snprintf(out + len, size - len, "%stable full: later locks in <other>", len ? "; " : "");
}

/* Whether a mode of a row ever waited: a contended acquisition, a timed call that gave up, or a
 * thread blocked on it now. Rows that never waited stay out of the text (JSON has them all). */
static int waited(const struct mode_figs *f)
{
    return f->contended || f->timeouts || f->waiting;
}

/* A section with no row that waited is one line: `mutexes: 8 locks, 1.2 M acquisitions, none
 * waited`, `rw_locks: none used`. 1 when it was written, 0 when the table follows. */
static int one_line(const struct locks_snap *s, const char *title, struct hp_buf *out)
{
    uint64_t locks = 0, acquisitions = 0;
    for (unsigned i = 0; i < s->n; i++)
        for (int m = 0; m < 2; m++) {
            if (waited(&s->rows[i].mode[m])) return 0;
            acquisitions += s->rows[i].mode[m].locks;
        }
    for (unsigned i = 0; i < s->n; i++) locks += s->rows[i].instances;
    if (s->n == 0) {
        hp_buf_printf(out, "%s: none used\n", title);
        return 1;
    }
    char nl[HP_FMT_MAX], na[HP_FMT_MAX];
    hp_fmt_count(nl, locks);
    hp_fmt_count(na, acquisitions);
    hp_buf_printf(out, "%s: %s lock%s, %s acquisition%s, none waited%s\n", title, nl, locks == 1 ? "" : "s",
                  na, acquisitions == 1 ? "" : "s", s->overflowed ? " (table full: later locks in <other>)" : "");
    return 1;
}

/* The title's figures, and how many rows never waited (left out of the text). */
static void never_waited(char *fig, size_t size, unsigned left_out)
{
    size_t len = strlen(fig);
    if (left_out && len < size)
        snprintf(fig + len, size - len, "%s%u never waited, in JSON only", len ? "; " : "", left_out);
}

static void mutexes_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    static const char *const headers[] = { "Mutex", "Inst", "Locks", "Contended", "Wait avg", "Wait P95",
                                           "Wait max", "Hold avg", "Hold P95", "Hold max", "Wait total" };
    const struct locks_snap *s = snap;
    if (one_line(s, "mutexes", out)) return;
    unsigned total = 0;
    for (unsigned i = 0; i < s->n; i++) total += waited(&s->rows[i].mode[HP_MODE_WRITE]) != 0;
    unsigned shown = limit && limit < total ? limit : total;
    char fig[320];
    figures(s, fig, sizeof fig);
    never_waited(fig, sizeof fig, s->n - total);
    hp_section_title(out, "mutexes", "Wait and hold times of mutexes.", fig, shown, total);
    struct hp_table t;
    hp_table_init(&t, 11, headers);
    for (unsigned i = 0, emitted = 0; i < s->n && emitted < shown; i++) {
        if (!waited(&s->rows[i].mode[HP_MODE_WRITE])) continue;
        emitted++;
        char c[10][HP_FMT_MAX], name[sizeof s->rows[i].name + 16];
        mode_cells(&s->rows[i], &s->rows[i].mode[HP_MODE_WRITE], c);
        const char *cells[] = { shown_name(&s->rows[i], name, sizeof name), c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9] };
        hp_table_add_row(&t, cells);
    }
    hp_table_render(&t, out);
    hp_table_free(&t);
}

static void rw_locks_table(const void *snap, struct hp_buf *out, unsigned limit)
{
    static const char *const headers[] = { "RwLock", "Mode", "Inst", "Locks", "Contended", "Wait avg",
                                           "Wait P95", "Wait max", "Hold avg", "Hold P95", "Hold max",
                                           "Wait total" };
    const struct locks_snap *s = snap;
    if (one_line(s, "rw_locks", out)) return;
    unsigned total = 0, left_out = 0;
    for (unsigned i = 0; i < s->n; i++) {
        int w = waited(&s->rows[i].mode[HP_MODE_WRITE]), rd = waited(&s->rows[i].mode[HP_MODE_READ]);
        total += w + rd;
        left_out += !w && !rd;
    }
    unsigned shown = limit && limit < total ? limit : total;
    char fig[320];
    figures(s, fig, sizeof fig);
    never_waited(fig, sizeof fig, left_out);
    hp_section_title(out, "rw_locks", "Wait and hold times of read-write locks.", fig, shown, total);
    struct hp_table t;
    hp_table_init(&t, 12, headers);
    unsigned emitted = 0;
    for (unsigned i = 0; i < s->n && emitted < shown; i++) {
        const struct lock_row *r = &s->rows[i];
        int rd = waited(&r->mode[HP_MODE_READ]);
        int w = waited(&r->mode[HP_MODE_WRITE]);
        static const char *const mode_names[2] = { "write", "read" };
        for (int m = 0; m < 2 && emitted < shown; m++) {
            if (!(m == HP_MODE_WRITE ? w : rd)) continue;
            char c[10][HP_FMT_MAX], name[sizeof r->name + 16];
            mode_cells(r, &r->mode[m], c);
            const char *cells[] = { shown_name(r, name, sizeof name), mode_names[m], c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9] };
            hp_table_add_row(&t, cells);
            emitted++;
        }
    }
    hp_table_render(&t, out);
    hp_table_free(&t);
}

/* ---- JSON ---- */

static void opt_u64(struct hp_json *j, const char *key, int has, uint64_t v)
{
    if (has) hp_json_u64(j, key, v);
    else hp_json_null(j, key);
}

static void json_identity(struct hp_json *j, const struct lock_row *r, struct hp_syms *syms)
{
    char addr[32], shown[sizeof r->name + 16];
    hp_json_string(j, "name", r->name);
    hp_json_string(j, "display_name", shown_name(r, shown, sizeof shown));   /* as the text shows it */
    if (r->symbol[0]) hp_json_string(j, "symbol", r->symbol);
    else hp_json_null(j, "symbol");
    if (r->module) hp_json_string(j, "module", r->module);
    else hp_json_null(j, "module");
    snprintf(addr, sizeof addr, "0x%lx", (unsigned long)r->addr);
    if (r->other) hp_json_null(j, "address");
    else hp_json_string(j, "address", addr);
    hp_json_array_begin(j, "call_stack");
    for (unsigned i = 0; i < r->nframes; i++) hp_json_string(j, NULL, r->frames[i]);
    hp_json_array_end(j);
    hp_json_array_begin(j, "call_stack_locations");
    for (unsigned i = 0; i < r->nframes; i++) {
        char more[64];
        if (i) locate(syms, r->pcs[i], more, sizeof more);
        const char *at = i ? more : r->location;
        if (at[0]) hp_json_string(j, NULL, at);
        else hp_json_null(j, NULL);
    }
    hp_json_array_end(j);
    hp_json_bool(j, "other", r->other);
    hp_json_u64(j, "instances", r->instances);
    hp_json_u64(j, "destroyed_count", r->destroyed);
}

static void json_mode(struct hp_json *j, const struct mode_figs *f, unsigned period, int mode)
{
    hp_json_u64(j, "locks_count", f->locks);
    hp_json_u64(j, "contended_count", f->contended);
    /* readers share the lock: no owner, so no changes of it */
    opt_u64(j, "owner_changes_count", mode == HP_MODE_WRITE, f->owner_changes);
    hp_json_u64(j, "timeouts_count", f->timeouts);
    hp_json_u64(j, "timeout_wait_ns", f->timeout_ns);
    hp_json_u64(j, "waiting_now_count", f->waiting);
    hp_json_u64(j, "waiting_now_ns", f->waiting_ns);
    hp_json_u64(j, "wait_total_ns", f->wait_ns);
    opt_u64(j, "wait_avg_ns", f->contended > 0, f->contended ? f->wait_ns / f->contended : 0);
    opt_u64(j, "wait_p95_ns", f->has_wait_pct, f->wait_p95_ns);
    opt_u64(j, "wait_p99_ns", f->has_wait_pct, f->wait_p99_ns);
    opt_u64(j, "wait_max_ns", f->contended > 0, f->wait_max_ns);
    hp_json_u64(j, "holds_timed_count", f->holds_timed);
    hp_json_u64(j, "hold_timed_total_ns", f->hold_ns);
    /* every hold timed: exact; sampled: the timed holds scaled to every acquisition */
    uint64_t est = f->holds_timed ? (uint64_t)((double)f->hold_ns * (double)f->locks / (double)f->holds_timed) : 0;
    opt_u64(j, "hold_total_ns", f->holds_timed > 0, period == 1 ? f->hold_ns : est);
    opt_u64(j, "hold_avg_ns", f->holds_timed > 0, f->holds_timed ? f->hold_ns / f->holds_timed : 0);
    opt_u64(j, "hold_p95_ns", f->has_hold_pct, f->hold_p95_ns);
    opt_u64(j, "hold_p99_ns", f->has_hold_pct, f->hold_p99_ns);
    opt_u64(j, "hold_max_ns", f->holds_timed > 0, f->hold_max_ns);
}

static void json_header(struct hp_json *j, const struct locks_snap *s)
{
    hp_json_u64(j, "hold_sampling_period", s->period);
    hp_json_bool(j, "overflowed", s->overflowed);
    hp_json_u64(j, "lock_count", s->n);
}

static void mutexes_json(const void *snap, struct hp_json *j)
{
    const struct locks_snap *s = snap;
    hp_json_object_begin(j, "mutexes");
    json_header(j, s);
    hp_json_array_begin(j, "rows");
    for (unsigned i = 0; i < s->n; i++) {
        hp_json_object_begin(j, NULL);
        json_identity(j, &s->rows[i], s->syms);
        hp_json_u64(j, "recursive_relocks_count", s->rows[i].nested);
        json_mode(j, &s->rows[i].mode[HP_MODE_WRITE], s->period, HP_MODE_WRITE);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_array_begin(j, "cond_vars");
    for (unsigned i = 0; i < s->nconds; i++) {
        const struct lock_row *r = &s->conds[i];
        const struct mode_figs *f = &r->mode[HP_MODE_WRITE];
        hp_json_object_begin(j, NULL);
        json_identity(j, r, s->syms);
        hp_json_u64(j, "waits_count", f->locks);
        hp_json_u64(j, "timeouts_count", f->timeouts);
        hp_json_u64(j, "wait_total_ns", f->wait_ns);
        opt_u64(j, "wait_avg_ns", f->locks > 0, f->locks ? f->wait_ns / f->locks : 0);
        opt_u64(j, "wait_p95_ns", f->has_wait_pct, f->wait_p95_ns);
        opt_u64(j, "wait_p99_ns", f->has_wait_pct, f->wait_p99_ns);
        opt_u64(j, "wait_max_ns", f->locks > 0, f->wait_max_ns);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static void rw_locks_json(const void *snap, struct hp_json *j)
{
    const struct locks_snap *s = snap;
    hp_json_object_begin(j, "rw_locks");
    json_header(j, s);
    hp_json_array_begin(j, "rows");
    for (unsigned i = 0; i < s->n; i++) {
        hp_json_object_begin(j, NULL);
        json_identity(j, &s->rows[i], s->syms);
        hp_json_u64(j, "wait_total_ns", s->rows[i].wait_total_ns);
        hp_json_object_begin(j, "read");
        json_mode(j, &s->rows[i].mode[HP_MODE_READ], s->period, HP_MODE_READ);
        hp_json_object_end(j);
        hp_json_object_begin(j, "write");
        json_mode(j, &s->rows[i].mode[HP_MODE_WRITE], s->period, HP_MODE_WRITE);
        hp_json_object_end(j);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

/* ---- one lock's name, for other views ---- */

void hp_lock_describe(const void *lock, char *name, size_t size, const char **kind)
{
    const struct hp_lock *l = lock;
    static const char *const kinds[4] = { "mutex", "mutex", "rw_lock", "cond" };
    *kind = kinds[l->kind < 4 ? l->kind : 0];
    struct hp_syms *syms = hp_syms_open();
    struct lock_row *r = hp_alloc(sizeof *r);
    struct item it = { .l = (struct hp_lock *)l };
    if (syms && r) {
        look_up(&it, syms);
        name_row(r, &it, syms);
        snprintf(name, size, "%s", r->name);
    } else {
        snprintf(name, size, "0x%lx", (unsigned long)l->addr);
    }
    hp_free(r);
    hp_syms_close(syms);
}

void hp_lock_json(struct hp_json *j, const char *key, const void *lock)
{
    if (!lock) {
        hp_json_null(j, key);
        return;
    }
    char name[512], addr[32];
    const char *kind;
    hp_lock_describe(lock, name, sizeof name, &kind);
    hp_json_object_begin(j, key);
    hp_json_string(j, "kind", kind);
    hp_json_string(j, "name", name);
    snprintf(addr, sizeof addr, "0x%lx", (unsigned long)((const struct hp_lock *)lock)->addr);
    hp_json_string(j, "address", addr);
    hp_json_object_end(j);
}

/* ---- Prometheus: per lock {mutex="name"}, or {rw_lock="name", mode="read|write"} ---- */

static void lock_labels(struct hp_buf *l, const char *label, const struct lock_row *r, const char *mode)
{
    l->len = 0;
    hp_buf_printf(l, "%s=\"", label);
    hp_prom_escape(l, r->name);
    if (r->ordinal > 1) hp_buf_printf(l, " #%u", r->ordinal);
    hp_buf_putc(l, '"');
    if (mode) hp_buf_printf(l, ",mode=\"%s\"", mode);
}

static void locks_prometheus(const struct locks_snap *s, struct hp_buf *out, const char *prefix,
                             const char *label)
{
    struct hp_buf l = { 0 };
    char name[96], help[200];
    static const char *const modes[2] = { "read", "write" };
    int rw = s->kind == HP_LOCK_RWLOCK;
    for (unsigned fam = 0; fam < 4; fam++) {
        static const char *const suffix[4] = { "acquisitions_total", "contended_total", "wait_seconds", "hold_seconds" };
        snprintf(name, sizeof name, "hotpath_%s_%s", prefix, suffix[fam]);
        if (fam == 0) snprintf(help, sizeof help, "Acquisitions of each %s.", label);
        else if (fam == 1) snprintf(help, sizeof help, "Acquisitions of each %s that had to wait.", label);
        else if (fam == 2) snprintf(help, sizeof help, "Time waited for each %s, every contended acquisition.", label);
        else snprintf(help, sizeof help, "Time each %s was held, over the timed (sampled) holds.", label);
        hp_prom_family(out, name, fam < 2 ? "counter" : "histogram", help);
        for (unsigned i = 0; i < s->n; i++) {
            for (int k = 0; k < (rw ? 2 : 1); k++) {
                int m = k == 0 ? HP_MODE_WRITE : HP_MODE_READ;
                const struct mode_figs *f = &s->rows[i].mode[m];
                if (rw && !f->locks) continue;
                lock_labels(&l, label, &s->rows[i], rw ? modes[m == HP_MODE_WRITE] : NULL);
                if (fam == 0) hp_prom_u64(out, name, l.data, f->locks);
                else if (fam == 1) hp_prom_u64(out, name, l.data, f->contended);
                else if (fam == 2) hp_prom_histogram(out, name, l.data, f->wait_le, (double)f->wait_ns / 1e9);
                else hp_prom_histogram(out, name, l.data, f->hold_le, (double)f->hold_ns / 1e9);
            }
        }
    }
    if (l.failed) out->failed = 1;
    hp_buf_free(&l);
}

static void mutexes_prometheus(const void *snap, struct hp_buf *out)
{
    locks_prometheus(snap, out, "mutex", "mutex");
}

static void rw_locks_prometheus(const void *snap, struct hp_buf *out)
{
    locks_prometheus(snap, out, "rwlock", "rw_lock");
}

/* As the text tables: their columns, sorted by Wait total (with the waits in progress); every
 * lock, those that never waited too. */
static const struct hp_html_table mutexes_html = {
    "mutexes-table", "Mutexes", "rows",
    .sort = { { "wait_total_ns+waiting_now_ns", 1 } },
    .columns = {
        { "Mutex", "display_name", NULL, NULL }, { "Inst", "instances", NULL, "!other" },
        { "Locks", "locks_count", NULL, NULL }, { "Contended", "contended_count", NULL, NULL },
        { "Wait avg", "wait_avg_ns", "ns", NULL }, { "Wait P95", "wait_p95_ns", "ns", NULL },
        { "Wait max", "wait_max_ns", "ns", NULL }, { "Hold avg", "hold_avg_ns", "ns", NULL },
        { "Hold P95", "hold_p95_ns", "ns", NULL }, { "Hold max", "hold_max_ns", "ns", NULL },
        { "Wait total", "wait_total_ns+waiting_now_ns", "ns", NULL },
    },
};

static const struct hp_html_table *const mutexes_html_tables[] = { &mutexes_html, NULL };

const struct hp_section hp_mutexes_section = {
    .key = "mutexes",
    .limit = &hp_locks_settings.mutexes_limit,
    .title = "mutexes",
    .snapshot = mutexes_snapshot,
    .release = locks_release,
    .table = mutexes_table,
    .json = mutexes_json,
    .prometheus = mutexes_prometheus,
    .html_tables = mutexes_html_tables,
};

/* A row per lock and mode it was taken in (write, then read), sorted by the lock's Wait total. */
static const struct hp_html_table rw_locks_html = {
    "rw-locks-table", "Read-write locks", "rows", .modes = { "write", "read" },
    .when = { "locks_count", "contended_count", "timeouts_count", "waiting_now_count" },
    .sort = { { "parent.wait_total_ns", 1 } },
    .columns = {
        { "RwLock", "parent.display_name", NULL, NULL }, { "Mode", "mode", NULL, NULL },
        { "Inst", "parent.instances", NULL, "!parent.other" }, { "Locks", "locks_count", NULL, NULL },
        { "Contended", "contended_count", NULL, NULL }, { "Wait avg", "wait_avg_ns", "ns", NULL },
        { "Wait P95", "wait_p95_ns", "ns", NULL }, { "Wait max", "wait_max_ns", "ns", NULL },
        { "Hold avg", "hold_avg_ns", "ns", NULL }, { "Hold P95", "hold_p95_ns", "ns", NULL },
        { "Hold max", "hold_max_ns", "ns", NULL }, { "Wait total", "wait_total_ns+waiting_now_ns", "ns", NULL },
    },
};

static const struct hp_html_table *const rw_locks_html_tables[] = { &rw_locks_html, NULL };

const struct hp_section hp_rw_locks_section = {
    .key = "rw_locks",
    .limit = &hp_locks_settings.rw_locks_limit,
    .title = "rw_locks",
    .snapshot = rw_locks_snapshot,
    .release = locks_release,
    .table = rw_locks_table,
    .json = rw_locks_json,
    .prometheus = rw_locks_prometheus,
    .html_tables = rw_locks_html_tables,
};
