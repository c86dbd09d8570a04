/* ended_cpu.c — see ended_cpu.h. Every figure is a thread's CPU time since the process started
 * (a reading plus cpu_before_ns, what the window left out): the process clock less the live
 * threads' readings and the ended threads' finals is what no reading saw. The first pass sets
 * the offset, the time of threads that ended before the watch began. */
#include "ended_cpu.h"

#include <stdatomic.h>

#include "memory.h"
#include "platform.h"
#include "registry.h"

struct ended_thread { uint32_t record; int tid; };

static struct {
    int started;                   /* the first pass set the offset */
    uint64_t offset_ns;            /* threads ended before the first pass, and unseen ones */
    uint64_t ended_ns;             /* the finals of the threads that ended while watched */
    _Atomic uint64_t unseen_ns;    /* what went to no thread */
    struct ended_thread *list;     /* the threads a pass found gone */
    size_t n, cap;
} ended;

static uint64_t since_start(const struct hp_record *r)
{
    return r->cpu_before_ns + r->cpu_user_ns + r->cpu_sys_ns;
}

void hp_ended_cpu_note(uint32_t i, const struct hp_record *r)
{
    if (!hp_platform_watched_pid()) return;
    if (ended.n == ended.cap) {
        size_t ncap = ended.cap ? ended.cap * 2 : 16;
        struct ended_thread *grown = hp_realloc(ended.list, ncap * sizeof *grown);
        if (!grown) return;      /* its remainder counts as unseen */
        ended.list = grown;
        ended.cap = ncap;
    }
    ended.list[ended.n++] = (struct ended_thread){ i, r->tid };
}

/* A record noted this pass that is still that thread's (not folded into a group since). */
static struct hp_record *noted(size_t k)
{
    struct hp_record *r = hp_record_at(ended.list[k].record);
    return r->tid == ended.list[k].tid && r->gone && !r->unused ? r : NULL;
}

static void give(struct hp_record *r, uint64_t ns)
{
    uint64_t cpu = r->cpu_user_ns + r->cpu_sys_ns;
    uint64_t user = cpu ? (uint64_t)((double)ns * (double)r->cpu_user_ns / (double)cpu) : ns;
    r->cpu_user_ns += user;
    r->cpu_sys_ns += ns - user;
}

void hp_ended_cpu_settle(void)
{
    uint64_t total;
    if (hp_platform_process_cpu_ns(&total) != 0) {
        ended.n = 0;
        return;
    }
    hp_registry_lock();
    uint64_t live = 0, last = 0;
    double weights = 0;
    uint32_t count = hp_registry_count();
    for (uint32_t i = 0; i < count; i++) {
        const struct hp_record *r = hp_record_at(i);
        if (!r->gone && !r->unused && r->tid) live += since_start(r);
    }
    for (size_t k = 0; k < ended.n; k++) {
        struct hp_record *r = noted(k);
        if (!r) continue;
        last += since_start(r);
        weights += r->cpu_pct;
    }
    if (!ended.started) {
        ended.offset_ns = total > live + last ? total - live - last : 0;
        ended.started = 1;
    } else {
        uint64_t seen = ended.offset_ns + ended.ended_ns + live + last;
        uint64_t missing = total > seen ? total - seen : 0;
        size_t given = 0;
        for (size_t k = 0; k < ended.n; k++) given += noted(k) != NULL;
        if (given == 0) {
            ended.offset_ns += missing;
            atomic_fetch_add(&ended.unseen_ns, missing);
        } else {
            for (size_t k = 0; k < ended.n; k++) {
                struct hp_record *r = noted(k);
                if (!r) continue;
                double share = weights > 0 ? r->cpu_pct / weights : 1.0 / (double)given;
                uint64_t ns = (uint64_t)((double)missing * share);
                give(r, ns);
                ended.ended_ns += ns;
            }
        }
        ended.ended_ns += last;
    }
    ended.n = 0;
    hp_registry_unlock();
}

uint64_t hp_ended_cpu_unseen_ns(void)
{
    return atomic_load(&ended.unseen_ns);
}
