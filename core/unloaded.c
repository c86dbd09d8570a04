/* unloaded.c — see unloaded.h. */
#define _GNU_SOURCE
#include "unloaded.h"

#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "loader_lock.h"
#include "memory.h"
#include "spinlock.h"

#define SLOTS 128

struct slot {
    _Atomic uint32_t seq;      /* odd while being written */
    struct hp_unloaded u;
};

#define OWN_SLOTS 16

/* The state of the unloaded modules' list: the profiler's own modules, and the writers' order. */
static struct {
    struct { _Atomic uintptr_t lo, hi; } own[OWN_SLOTS];   /* the profiler's own modules' ranges */
    _Atomic unsigned nown;            /* own[] entries written */
    hp_spinlock write_lock;           /* one writer of the slots at a time */
    uint64_t next_order;              /* under write_lock */
} unloaded = {
    .write_lock = HP_SPINLOCK_INIT,
    .next_order = 1,
};
/* The unloaded modules, apart from the struct: its initializer puts it in .data, and the slots'
 * paths stay in .bss. */
static struct slot slots[SLOTS];

struct hp_dl_list {
    unsigned n, cap;
    unsigned long long subs;   /* dlpi_subs when listed: unchanged after means nothing unloaded */
    struct hp_unloaded mods[];
};

void hp_module_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + p->p_vaddr, b = a + p->p_memsz;
        if (a < *lo) *lo = a;
        if (b > *hi) *hi = b;
    }
}

struct module_query {
    uintptr_t addr;
    const char *path;
};

static int holds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct module_query *q = data;
    uintptr_t lo, hi;
    hp_module_range(info, &lo, &hi);
    if (q->addr < lo || q->addr >= hi) return 0;
    q->path = info->dlpi_name ? info->dlpi_name : "";
    return 1;
}

int hp_module_of(const void *addr, const char **path)
{
    struct module_query q = { (uintptr_t)addr, NULL };
    hp_walk_modules(holds, &q);
    *path = q.path;
    return q.path != NULL;
}

static int count_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    ++*(unsigned *)data;
    return 0;
}

static int list_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct hp_dl_list *l = data;
    l->subs = info->dlpi_subs;
    /* the program itself and the vDSO are never unloaded */
    if (!info->dlpi_name || !info->dlpi_name[0] || l->n == l->cap) return 0;
    struct hp_unloaded *u = &l->mods[l->n];
    hp_module_range(info, &u->lo, &u->hi);
    if (u->lo >= u->hi) return 0;
    u->bias = info->dlpi_addr;
    snprintf(u->path, sizeof u->path, "%s", info->dlpi_name);
    l->n++;
    return 0;
}

struct hp_dl_list *hp_unloaded_before(void)
{
    unsigned n = 0;
    hp_walk_modules(count_one, &n);
    n += 8;   /* room for modules another thread loads meanwhile */
    struct hp_dl_list *l = hp_alloc(sizeof *l + n * sizeof l->mods[0]);
    if (!l) return NULL;
    l->cap = n;
    hp_walk_modules(list_one, l);
    return l;
}

struct still {
    struct hp_dl_list *list;
    unsigned char *seen;
    unsigned long long subs;
};

static int mark_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct still *s = data;
    s->subs = info->dlpi_subs;
    for (unsigned i = 0; i < s->list->n; i++)
        if (s->list->mods[i].bias == info->dlpi_addr && strncmp(s->list->mods[i].path, info->dlpi_name,
                                                               HP_UNLOADED_PATH - 1) == 0)
            s->seen[i] = 1;
    return 0;
}

static void record(const struct hp_unloaded *u)
{
    hp_spin_lock(&unloaded.write_lock);
    /* the same module unloaded again (a plugin loaded in a loop) takes its old slot; else the oldest */
    struct slot *to = &slots[0];
    for (unsigned i = 0; i < SLOTS; i++) {
        struct slot *s = &slots[i];
        if (s->u.lo == u->lo && s->u.hi == u->hi && s->u.bias == u->bias && strcmp(s->u.path, u->path) == 0) {
            to = s;
            break;
        }
        if (s->u.order < to->u.order) to = s;
    }
    uint32_t seq = atomic_load_explicit(&to->seq, memory_order_relaxed);
    atomic_store_explicit(&to->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    to->u = *u;
    to->u.order = unloaded.next_order++;
    atomic_store_explicit(&to->seq, seq + 2, memory_order_release);
    hp_spin_unlock(&unloaded.write_lock);
}

void hp_unloaded_after(struct hp_dl_list *before)
{
    if (!before) return;
    struct still s = { before, hp_alloc(before->n ? before->n : 1), before->subs };
    if (s.seen) {
        hp_walk_modules(mark_one, &s);
        if (s.subs != before->subs)
            for (unsigned i = 0; i < before->n; i++)
                if (!s.seen[i]) record(&before->mods[i]);
    }
    hp_free(s.seen);
    hp_free(before);
}

static int own_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const struct hp_dl_list *before = data;
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0;
    for (unsigned i = 0; i < before->n; i++)
        if (before->mods[i].bias == info->dlpi_addr && strcmp(before->mods[i].path, info->dlpi_name) == 0)
            return 0;
    unsigned k = atomic_load(&unloaded.nown);
    if (k == OWN_SLOTS) return 0;
    uintptr_t lo, hi;
    hp_module_range(info, &lo, &hi);
    atomic_store(&unloaded.own[k].lo, lo);
    atomic_store(&unloaded.own[k].hi, hi);
    atomic_store(&unloaded.nown, k + 1);
    return 0;
}

void hp_unloaded_mark_own(struct hp_dl_list *before)
{
    if (!before) return;
    hp_spin_lock(&unloaded.write_lock);
    hp_walk_modules(own_one, before);
    hp_spin_unlock(&unloaded.write_lock);
    hp_free(before);
}

int hp_unloaded_is_own(uintptr_t addr)
{
    unsigned n = atomic_load(&unloaded.nown);
    for (unsigned i = 0; i < n; i++)
        if (addr >= atomic_load(&unloaded.own[i].lo) && addr < atomic_load(&unloaded.own[i].hi)) return 1;
    return 0;
}

int hp_unloaded_find(uintptr_t addr, struct hp_unloaded *out)
{
    int found = 0;
    for (unsigned i = 0; i < SLOTS; i++) {
        struct slot *s = &slots[i];
        uint32_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (seq & 1 || !s->u.order || addr < s->u.lo || addr >= s->u.hi) continue;
        if (found && s->u.order < out->order) continue;
        struct hp_unloaded copy = s->u;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->seq, memory_order_relaxed) != seq) continue;
        *out = copy;
        found = 1;
    }
    return found;
}
