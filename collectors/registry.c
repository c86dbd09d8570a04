/* registry.c — see registry.h. Records live in page-backed chunks that never move; states come
 * from page-backed slabs and go back to a free list when their thread has left /proc. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "memory.h"
#include "spinlock.h"

#define CHUNK_RECORDS 1024u
#define MAX_CHUNKS 4096u
#define STATE_SLAB (64u * 1024u)

static hp_spinlock lock = HP_SPINLOCK_INIT;
static struct hp_record *chunks[MAX_CHUNKS];
static uint32_t count;
static struct hp_thread *free_states;

void hp_registry_lock(void) { hp_spin_lock(&lock); }
void hp_registry_unlock(void) { hp_spin_unlock(&lock); }
uint32_t hp_registry_count(void) { return count; }

struct hp_record *hp_record_at(uint32_t i)
{
    return &chunks[i / CHUNK_RECORDS][i % CHUNK_RECORDS];
}

void hp_record_counts(const struct hp_record *r, struct hp_counts *out)
{
    struct hp_thread *t = r->state;
    if (t) {
        out->alloc_bytes = hp_read(&t->alloc_bytes);
        out->alloc_count = hp_read(&t->alloc_count);
        out->free_bytes = hp_read(&t->free_bytes);
        out->free_count = hp_read(&t->free_count);
        out->lock_wait_ticks = hp_read(&t->lock_wait_ticks);
        out->cond_wait_ticks = hp_read(&t->cond_wait_ticks);
        out->cond_wait_count = hp_read(&t->cond_wait_count);
        out->blocked_on = atomic_load_explicit(&t->blocked_on, memory_order_relaxed);
    } else {
        out->alloc_bytes = r->alloc_bytes;
        out->alloc_count = r->alloc_count;
        out->free_bytes = r->free_bytes;
        out->free_count = r->free_count;
        out->lock_wait_ticks = r->lock_wait_ticks;
        out->cond_wait_ticks = r->cond_wait_ticks;
        out->cond_wait_count = r->cond_wait_count;
        out->blocked_on = NULL;
    }
}

static void copy_name(char *dst, const char *src)
{
    size_t n = strnlen(src, HP_COMM_MAX - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* caller holds the lock */
static uint32_t add_record(void)
{
    uint32_t i = count;
    if (i >= CHUNK_RECORDS * MAX_CHUNKS) return HP_NO_RECORD;
    struct hp_record **c = &chunks[i / CHUNK_RECORDS];
    if (!*c && !(*c = hp_pages(CHUNK_RECORDS * sizeof(struct hp_record)))) return HP_NO_RECORD;
    struct hp_record *r = hp_record_at(i);
    memset(r, 0, sizeof *r);
    r->index = i;
    count = i + 1;
    return i;
}

/* caller holds the lock */
static struct hp_thread *new_state(void)
{
    if (!free_states) {
        struct hp_thread *slab = hp_pages(STATE_SLAB);
        if (!slab) return NULL;
        for (size_t k = 0; k < STATE_SLAB / sizeof *slab; k++) {
            slab[k].next_free = free_states;
            free_states = &slab[k];
        }
    }
    struct hp_thread *t = free_states;
    free_states = t->next_free;
    memset(t, 0, sizeof *t);
    t->record = HP_NO_RECORD;
    return t;
}

__thread struct hp_thread *hp_self __attribute__((tls_model("initial-exec")));

uint32_t hp_registry_reserve(const char *creator_comm, void *(*fn)(void *), void *arg)
{
    hp_spin_lock(&lock);
    uint32_t rec = add_record();
    if (rec != HP_NO_RECORD) {
        struct hp_record *r = hp_record_at(rec);
        copy_name(r->inherited, creator_comm);
        r->start_fn = fn;
        r->start_arg = arg;
    }
    hp_spin_unlock(&lock);
    return rec;
}

void hp_registry_created(uint32_t rec, unsigned long pthread)
{
    hp_spin_lock(&lock);
    hp_record_at(rec)->pthread = pthread;
    hp_spin_unlock(&lock);
}

void hp_registry_inherit(uint32_t rec, const char *comm)
{
    if (rec == HP_NO_RECORD) return;
    hp_spin_lock(&lock);
    copy_name(hp_record_at(rec)->inherited, comm);
    hp_spin_unlock(&lock);
}

void hp_registry_unreserve(uint32_t rec)
{
    if (rec == HP_NO_RECORD) return;
    hp_spin_lock(&lock);
    struct hp_record *r = hp_record_at(rec);
    r->unused = r->gone = r->exited = 1;
    hp_spin_unlock(&lock);
}

static void start_record(struct hp_record *r, struct hp_thread *t, int tid, unsigned long pthread,
                         uint64_t cpu_ns, uint64_t now_ns)
{
    r->tid = tid;
    r->pthread = pthread;
    r->state = t;
    r->base_cpu_ns = cpu_ns;
    r->base_time_ns = now_ns;
    t->record = r->index;
}

struct hp_thread *hp_registry_attach(uint32_t rec, int tid, unsigned long pthread,
                                     uint64_t cpu_ns, uint64_t now_ns)
{
    hp_spin_lock(&lock);
    struct hp_thread *t = new_state();
    if (t && rec != HP_NO_RECORD) start_record(hp_record_at(rec), t, tid, pthread, cpu_ns, now_ns);
    hp_spin_unlock(&lock);
    return t;
}

struct hp_thread *hp_registry_adopt(int tid, unsigned long pthread, uint64_t cpu_ns, uint64_t now_ns)
{
    hp_spin_lock(&lock);
    struct hp_thread *t = new_state();
    if (t) {
        struct hp_record *found = NULL;
        for (uint32_t i = count; i-- > 0;) {
            struct hp_record *r = hp_record_at(i);
            if (r->tid == tid && !r->gone && !r->state) { found = r; break; }
        }
        if (!found) {
            uint32_t rec = add_record();
            if (rec != HP_NO_RECORD) found = hp_record_at(rec);
        }
        if (found) start_record(found, t, tid, pthread, cpu_ns, now_ns);
    }
    hp_spin_unlock(&lock);
    return t;
}

struct hp_thread *hp_registry_profiler_state(void)
{
    hp_spin_lock(&lock);
    struct hp_thread *t = new_state();
    if (t) t->guard = 1;
    hp_spin_unlock(&lock);
    return t;
}

void hp_registry_discover(int tid, const char *process_comm)
{
    uint32_t rec = add_record();
    if (rec == HP_NO_RECORD) return;
    struct hp_record *r = hp_record_at(rec);
    r->tid = tid;
    copy_name(r->inherited, process_comm);
}

void hp_registry_exit(struct hp_thread *t, uint64_t user_ns, uint64_t sys_ns)
{
    if (!t || t->record == HP_NO_RECORD) return;
    hp_spin_lock(&lock);
    struct hp_record *r = hp_record_at(t->record);
    r->exited = 1;
    r->cpu_user_ns = user_ns;
    r->cpu_sys_ns = sys_ns;
    r->has_pct = 0;
    hp_spin_unlock(&lock);
}

void hp_registry_gone(struct hp_record *r)
{
    struct hp_counts c;
    hp_record_counts(r, &c);
    r->alloc_bytes = c.alloc_bytes;
    r->alloc_count = c.alloc_count;
    r->free_bytes = c.free_bytes;
    r->free_count = c.free_count;
    r->lock_wait_ticks = c.lock_wait_ticks;
    r->cond_wait_ticks = c.cond_wait_ticks;
    r->cond_wait_count = c.cond_wait_count;
    if (r->state) {
        r->state->next_free = free_states;
        free_states = r->state;
        r->state = NULL;
    }
    r->gone = r->exited = 1;
    r->has_pct = 0;
}

void hp_registry_name_pthread(unsigned long pthread, const char *name)
{
    hp_spin_lock(&lock);
    for (uint32_t i = count; i-- > 0;) {
        struct hp_record *r = hp_record_at(i);
        if (r->pthread == pthread && !r->gone) {
            copy_name(r->name, name);
            r->named = 1;
            break;
        }
    }
    hp_spin_unlock(&lock);
}

void hp_registry_name_record(uint32_t rec, const char *name)
{
    if (rec == HP_NO_RECORD) return;
    hp_spin_lock(&lock);
    struct hp_record *r = hp_record_at(rec);
    copy_name(r->name, name);
    r->named = 1;
    hp_spin_unlock(&lock);
}

void hp_registry_fork_child(struct hp_thread *self, int tid, unsigned long pthread,
                            uint64_t cpu_ns, uint64_t now_ns)
{
    /* The fork hook held the lock across fork, so in the child it is ours to release. States of
     * the parent's other threads stay allocated: they are few, and nothing points at them now. */
    struct hp_record old = { 0 };
    if (self->record != HP_NO_RECORD && self->record < count) old = *hp_record_at(self->record);
    count = 0;
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
    self->alloc_bytes = self->alloc_count = self->free_bytes = self->free_count = 0;
    self->lock_wait_ticks = self->cond_wait_ticks = self->cond_wait_count = 0;
    hp_spin_unlock(&lock);
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

int hp_registry_name_of_tid(int tid, char *out, size_t size)
{
    int found = 0;
    hp_spin_lock(&lock);
    for (uint32_t i = count; i-- > 0 && !found;) {
        struct hp_record *r = hp_record_at(i);
        if (r->tid == tid && !r->unused) {
            hp_record_name(r, out, size);
            found = 1;
        }
    }
    hp_spin_unlock(&lock);
    return found;
}
