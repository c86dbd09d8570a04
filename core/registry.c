/* registry.c — see registry.h. Records live in page-backed chunks that never move; states come
 * from page-backed slabs and go back to a free list when their thread has left /proc. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "memory.h"
#include "spinlock.h"

#define CHUNK_RECORDS 1024u
#define MAX_CHUNKS 4096u
#define STATE_SLAB (64u * 1024u)

#define MAX_GROUPS 256

/* The chunks' table (32 KiB) stays out of the struct below: that one starts with lists that are
 * empty as HP_NO_RECORD, which puts it in .data, and the table would go with it. */
static struct hp_record *chunks[MAX_CHUNKS];

/* The registry: its lock, the slots (free list, the queue of ended threads), the groups ended
 * threads fold into, the states' free list, and the listings handed out. */
static struct {
    hp_spinlock lock;
    uint32_t count;                 /* slots in use or free; records live in [0, count) */
    uint32_t next_index;            /* creation order of the next thread */
    uint32_t free_slots;
    uint32_t gone_head, gone_tail, gone_count;
    uint32_t exited_present;        /* threads that ended and the sampler has not seen go */
    struct hp_exited_group *groups;
    uint32_t ngroups, cap_groups;
    /* A fork child's share of the heap its parent had live at the fork: blocks it may free
     * without having allocated them, so that its Diff is still its live heap */
    int64_t inherited;
    struct hp_thread *free_states;
    _Atomic uint32_t listings;
} registry = {
    .lock = HP_SPINLOCK_INIT,
    .free_slots = HP_NO_RECORD,
    .gone_head = HP_NO_RECORD,
    .gone_tail = HP_NO_RECORD,
};

/* Where the calling thread stands with the lock: a signal handler on it that forks must not wait
 * for a lock its own interrupted code holds (process/process.c). Set before the lock is tried and
 * cleared after it is let go, so that a handler never sees less than the truth. */
static __thread unsigned char mine __attribute__((tls_model("initial-exec")));
enum { MINE_NOT, MINE_WAITING, MINE_HELD };

void hp_registry_lock(void)
{
    mine = MINE_WAITING;
    __asm__ volatile("" ::: "memory");
    hp_spin_lock(&registry.lock);
    mine = MINE_HELD;
}

void hp_registry_unlock(void)
{
    hp_spin_unlock(&registry.lock);
    __asm__ volatile("" ::: "memory");
    mine = MINE_NOT;
}

int hp_registry_busy_here(void)
{
    return mine != MINE_NOT;
}

void hp_registry_fork_child_unwedge(void)
{
    /* waiting for a thread that is not in the child: the lock is nobody's here; held by the
     * interrupted code of this thread: that code lets it go as the handler returns */
    if (mine == MINE_WAITING) hp_spin_unlock(&registry.lock);
}
uint32_t hp_registry_count(void) { return registry.count; }

struct hp_record *hp_record_at(uint32_t i)
{
    return &chunks[i / CHUNK_RECORDS][i % CHUNK_RECORDS];
}

void hp_record_counts(const struct hp_record *r, struct hp_counts *out)
{
    struct hp_thread *t = r->state;
    if (t) {
#define READ_(f) out->f = hp_read(&t->f);
        HP_THREAD_COUNTERS(READ_)
#undef READ_
        out->blocked_on = atomic_load_explicit(&t->blocked_on, memory_order_acquire);
        out->blocked_since = atomic_load_explicit(&t->blocked_since, memory_order_relaxed);
        out->blocked_read = atomic_load_explicit(&t->blocked_read, memory_order_relaxed);
    } else {
        *out = r->final;
    }
}

static void copy_name(char *dst, const char *src)
{
    size_t n = strnlen(src, HP_COMM_MAX - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* caller holds the lock: a free slot (of a folded record) or a new one */
static uint32_t add_record(void)
{
    uint32_t i = registry.free_slots;
    if (i != HP_NO_RECORD) {
        registry.free_slots = hp_record_at(i)->next_slot;
    } else {
        i = registry.count;
        if (i >= CHUNK_RECORDS * MAX_CHUNKS) return HP_NO_RECORD;
        struct hp_record **c = &chunks[i / CHUNK_RECORDS];
        if (!*c && !(*c = hp_pages(CHUNK_RECORDS * sizeof(struct hp_record)))) return HP_NO_RECORD;
        registry.count = i + 1;
    }
    struct hp_record *r = hp_record_at(i);
    memset(r, 0, sizeof *r);
    r->slot = i;
    r->index = registry.next_index++;
    return i;
}

static void queue_gone(struct hp_record *r);

/* caller holds the lock */
static void free_slot(struct hp_record *r)
{
    r->unused = r->gone = r->exited = 1;
    r->tid = 0;
    r->next_slot = registry.free_slots;
    registry.free_slots = r->slot;
}

void hp_registry_give_states(struct hp_thread *states, size_t n)
{
    hp_registry_lock();
    while (n-- > 0) {
        states[n].next_free = registry.free_states;
        registry.free_states = &states[n];
    }
    hp_registry_unlock();
}

/* caller holds the lock */
static struct hp_thread *new_state(void)
{
    if (!registry.free_states) {
        struct hp_thread *slab = hp_pages(STATE_SLAB);
        if (!slab) return NULL;
        for (size_t k = 0; k < STATE_SLAB / sizeof *slab; k++) {
            slab[k].next_free = registry.free_states;
            registry.free_states = &slab[k];
        }
    }
    struct hp_thread *t = registry.free_states;
    registry.free_states = t->next_free;
    memset(t, 0, sizeof *t);
    t->record = HP_NO_RECORD;
    t->index = UINT32_MAX;
    return t;
}

#if !defined(__APPLE__)   /* macOS: a pthread key (thread_self_darwin.c) */
__thread struct hp_thread *hp_self __attribute__((tls_model("initial-exec")));
#endif

uint32_t hp_registry_reserve(const char *creator_comm, void *(*fn)(void *), void *arg,
                             uintptr_t stack_addr, size_t stack_size)
{
    hp_registry_lock();
    uint32_t rec = add_record();
    if (rec != HP_NO_RECORD) {
        struct hp_record *r = hp_record_at(rec);
        copy_name(r->inherited, creator_comm);
        r->start_fn = fn;
        r->start_arg = arg;
        r->stack_addr = stack_addr;
        r->stack_size = stack_size;
    }
    hp_registry_unlock();
    return rec;
}

void hp_registry_created(uint32_t rec, unsigned long pthread)
{
    hp_registry_lock();
    hp_record_at(rec)->pthread = pthread;
    hp_registry_unlock();
}

void hp_registry_inherit(uint32_t rec, const char *comm)
{
    if (rec == HP_NO_RECORD) return;
    hp_registry_lock();
    copy_name(hp_record_at(rec)->inherited, comm);
    hp_registry_unlock();
}

void hp_registry_unreserve(uint32_t rec)
{
    if (rec == HP_NO_RECORD) return;
    hp_registry_lock();
    free_slot(hp_record_at(rec));
    hp_registry_unlock();
}

uint32_t hp_registry_listing(void)
{
    return atomic_fetch_add(&registry.listings, 1);
}

static void start_record(struct hp_record *r, struct hp_thread *t, int tid, unsigned long pthread,
                         uint64_t cpu_ns, uint64_t now_ns)
{
    r->tid = tid;
    r->tid_listing = atomic_load(&registry.listings);
    r->pthread = pthread;
    r->state = t;
    r->base_cpu_ns = cpu_ns;
    r->base_time_ns = now_ns;
    t->record = r->slot;
    t->index = r->index;
    t->tid = tid;
}

struct hp_thread *hp_registry_attach(uint32_t rec, int tid, unsigned long pthread,
                                     uint64_t cpu_ns, uint64_t now_ns)
{
    hp_registry_lock();
    struct hp_thread *t = new_state();
    if (t && rec != HP_NO_RECORD) start_record(hp_record_at(rec), t, tid, pthread, cpu_ns, now_ns);
    hp_registry_unlock();
    return t;
}

struct hp_thread *hp_registry_adopt(int tid, unsigned long pthread, uint64_t cpu_ns, uint64_t now_ns)
{
    hp_registry_lock();
    struct hp_thread *t = new_state();
    if (t) {
        struct hp_record *found = NULL;
        for (uint32_t i = registry.count; i-- > 0;) {
            struct hp_record *r = hp_record_at(i);
            if (r->tid == tid && !r->gone && !r->state) { found = r; break; }
        }
        if (!found) {
            uint32_t rec = add_record();
            if (rec != HP_NO_RECORD) found = hp_record_at(rec);
        }
        if (found) start_record(found, t, tid, pthread, cpu_ns, now_ns);
    }
    hp_registry_unlock();
    return t;
}

struct hp_thread *hp_registry_profiler_state(void)
{
    hp_registry_lock();
    struct hp_thread *t = new_state();
    if (t) t->guard = 1;
    hp_registry_unlock();
    return t;
}

uint32_t hp_registry_discover(int tid, const char *process_comm)
{
    uint32_t rec = add_record();
    if (rec == HP_NO_RECORD) return rec;
    struct hp_record *r = hp_record_at(rec);
    r->tid = tid;
    copy_name(r->inherited, process_comm);
    return rec;
}

void hp_registry_hide(struct hp_thread *t)
{
    if (!t || t->record == HP_NO_RECORD) return;
    hp_registry_lock();
    struct hp_record *r = hp_record_at(t->record);
    r->unused = r->gone = r->exited = 1;
    r->tid = 0;
    if (r->index + 1 == registry.next_index) registry.next_index--;   /* the next is numbered 0, "main" */
    hp_registry_unlock();
}

void hp_registry_cpu_before(struct hp_thread *t, uint64_t cpu_ns)
{
    if (!t || t->record == HP_NO_RECORD) return;
    hp_registry_lock();
    hp_record_at(t->record)->cpu_before_ns = cpu_ns;
    hp_registry_unlock();
}

int hp_registry_exit(struct hp_thread *t, uint64_t user_ns, uint64_t sys_ns)
{
    if (!t || t->record == HP_NO_RECORD) return 0;
    hp_registry_lock();
    struct hp_record *r = hp_record_at(t->record);
    if (!r->exited) registry.exited_present++;
    r->exited = 1;
    /* the time left out comes off both parts in their proportion */
    uint64_t total = user_ns + sys_ns, before = r->cpu_before_ns < total ? r->cpu_before_ns : total;
    if (total) {
        user_ns -= (uint64_t)((double)before * (double)user_ns / (double)total);
        sys_ns = total - before - user_ns;
    }
    r->cpu_user_ns = user_ns;
    r->cpu_sys_ns = sys_ns;
    r->has_pct = 0;
    int retire = registry.exited_present % HP_RETIRE_BATCH == 0;
    hp_registry_unlock();
    return retire;
}

void hp_registry_gone(struct hp_record *r)
{
    if (r->exited && registry.exited_present) registry.exited_present--;
    hp_record_counts(r, &r->final);
    r->final.blocked_on = NULL;
    if (r->state) {
        r->state->next_free = registry.free_states;
        registry.free_states = r->state;
        r->state = NULL;
    }
    r->gone = r->exited = 1;
    r->has_pct = 0;
    queue_gone(r);
}

void hp_registry_name_pthread(unsigned long pthread, const char *name)
{
    hp_registry_lock();
    /* only a live thread's: glibc gives a joined thread's pthread_t to the next new one, whose
     * recycled record may sit below the old one's */
    for (uint32_t i = registry.count; i-- > 0;) {
        struct hp_record *r = hp_record_at(i);
        if (r->pthread == pthread && !r->gone && !r->exited) {
            copy_name(r->name, name);
            r->named = 1;
            break;
        }
    }
    hp_registry_unlock();
}

void hp_registry_name_record(uint32_t rec, const char *name)
{
    if (rec == HP_NO_RECORD) return;
    hp_registry_lock();
    struct hp_record *r = hp_record_at(rec);
    copy_name(r->name, name);
    r->named = 1;
    hp_registry_unlock();
}

/* The heap the counters say is live: every record's and group's allocations less frees, and what
 * this process inherited (caller holds the lock). */
static int64_t live_heap(void)
{
    int64_t live = registry.inherited;
    struct hp_counts c;
    for (uint32_t i = 0; i < registry.count; i++) {
        hp_record_counts(hp_record_at(i), &c);
        live += (int64_t)(c.alloc_bytes - c.free_bytes);
    }
    for (uint32_t i = 0; i < registry.ngroups; i++) {
        const struct hp_exited_group *g = &registry.groups[i];
        live += (int64_t)(g->c->alloc_bytes - g->c->free_bytes);
    }
    return live;
}

int64_t hp_registry_inherited_bytes(void)
{
    return registry.inherited;
}

void hp_registry_fork_child(struct hp_thread *self, int tid, unsigned long pthread,
                            uint64_t cpu_ns, uint64_t now_ns)
{
    /* The fork hook held the lock across fork, so in the child it is ours to release. States of
     * the parent's other threads stay allocated: they are few, and nothing points at them now. */
    struct hp_record old = { 0 };
    if (self->record != HP_NO_RECORD && self->record < registry.count) old = *hp_record_at(self->record);
    registry.inherited = live_heap();
    registry.count = registry.next_index = registry.gone_count = 0;
    registry.ngroups = registry.exited_present = 0;
    registry.free_slots = registry.gone_head = registry.gone_tail = HP_NO_RECORD;
    uint32_t rec = add_record();
    if (rec != HP_NO_RECORD) {
        struct hp_record *r = hp_record_at(rec);
        start_record(r, self, tid, pthread, cpu_ns, now_ns);
        if (old.named) {
            memcpy(r->name, old.name, sizeof r->name);
            r->named = 1;
        }
        memcpy(r->inherited, old.comm, sizeof r->inherited);
    }
#define ZERO_(f) self->f = 0;
    HP_THREAD_COUNTERS(ZERO_)
#undef ZERO_
    hp_registry_unlock();
}

void hp_record_name(const struct hp_record *r, char *out, size_t size)
{
    /* Named through the hooks; else a comm the thread did not inherit (renamed some other way);
     * else "main" for the first thread; else thread_N by creation order. */
    if (r->named) snprintf(out, size, "%s", r->name);
    else if (r->comm[0] && r->inherited[0] && strcmp(r->comm, r->inherited) != 0)
        snprintf(out, size, "%s", r->comm);
    else if (r->index == 0) snprintf(out, size, "main");
    else snprintf(out, size, "thread_%u", r->index);
}

/* The newest record of a tid (an older one with the same tid is a thread that ended), or NULL;
 * the caller holds the lock. */
static struct hp_record *record_of_tid(int tid)
{
    for (uint32_t i = registry.count; i-- > 0;) {
        struct hp_record *r = hp_record_at(i);
        if (r->tid == tid && !r->unused) return r;
    }
    return NULL;
}

struct hp_thread *hp_registry_state_of_tid(int tid)
{
    struct hp_record *r = record_of_tid(tid);
    return r && !r->gone ? r->state : NULL;
}

int hp_registry_name_of_tid(int tid, char *out, size_t size)
{
    hp_registry_lock();
    struct hp_record *r = record_of_tid(tid);
    if (r) hp_record_name(r, out, size);
    hp_registry_unlock();
    return r != NULL;
}

void hp_counts_add(struct hp_counts *dst, const struct hp_counts *src)
{
#define ADD_(f) dst->f += src->f;
    HP_THREAD_COUNTERS(ADD_)
#undef ADD_
}

/* The group of an exited thread: its name with digits as '*' (worker-17 -> worker-*). */
static void group_key(const struct hp_record *r, char *out, size_t size)
{
    char name[24];
    hp_record_name(r, name, sizeof name);
    if (!r->named && strncmp(name, "thread_", 7) == 0) {
        snprintf(out, size, "thread_*");
        return;
    }
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < size; p++) {
        if (*p >= '0' && *p <= '9') {
            if (n == 0 || out[n - 1] != '*') out[n++] = '*';
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

static struct hp_exited_group *find_group(const char *key)
{
    for (uint32_t i = 0; i < registry.ngroups; i++)
        if (strcmp(registry.groups[i].name, key) == 0) return &registry.groups[i];
    if (registry.ngroups == MAX_GROUPS) return find_group("<other>");
    if (registry.ngroups == registry.cap_groups) {
        uint32_t ncap = registry.cap_groups ? registry.cap_groups * 2 : 8;
        struct hp_exited_group *g = hp_realloc(registry.groups, ncap * sizeof *g);
        if (!g) return NULL;
        registry.groups = g;
        registry.cap_groups = ncap;
    }
    struct hp_exited_group *g = &registry.groups[registry.ngroups];
    memset(g, 0, sizeof *g);
    if (!(g->c = hp_alloc(sizeof *g->c))) return NULL;
    snprintf(g->name, sizeof g->name, "%s", key);
    g->first_index = UINT32_MAX;
    registry.ngroups++;
    return g;
}

/* caller holds the lock: the oldest exited record joins its group and frees its slot */
static void fold_oldest(void)
{
    struct hp_record *r = hp_record_at(registry.gone_head);
    registry.gone_head = r->next_slot;
    if (registry.gone_head == HP_NO_RECORD) registry.gone_tail = HP_NO_RECORD;
    registry.gone_count--;
    char key[24];
    group_key(r, key, sizeof key);
    struct hp_exited_group *g = find_group(key);
    if (g) {
        struct hp_counts c;
        hp_record_counts(r, &c);
        hp_counts_add(g->c, &c);
        g->threads++;
        if (r->index < g->first_index) g->first_index = r->index;
        g->cpu_user_ns += r->cpu_user_ns;
        g->cpu_sys_ns += r->cpu_sys_ns;
        if (r->has_max && (!g->has_max || r->max_pct > g->max_pct)) g->max_pct = r->max_pct;
        g->has_max |= r->has_max;
    }
    free_slot(r);
}

static void queue_gone(struct hp_record *r)
{
    r->next_slot = HP_NO_RECORD;
    if (registry.gone_tail == HP_NO_RECORD) registry.gone_head = r->slot;
    else hp_record_at(registry.gone_tail)->next_slot = r->slot;
    registry.gone_tail = r->slot;
    registry.gone_count++;
    while (registry.gone_count > hp_config.exited_threads_limit) fold_oldest();
}

const struct hp_exited_group *hp_registry_groups(uint32_t *n)
{
    *n = registry.ngroups;
    return registry.groups;
}
