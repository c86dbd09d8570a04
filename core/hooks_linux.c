/* hooks_linux.c — see hooks.h: the hooks' hot page, the boot arena that serves dlsym's own
 * allocations, the lookup of every real function (the core's lists, then each view's) and the
 * adoption of a thread the profiler did not see start. */
#define _GNU_SOURCE
#include "hooks.h"
#include "memory.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "clock.h"
#include "platform.h"
#include "registry.h"
#include "view.h"
#include "views/io/io.h"

/* The I/O view's fd table starts as its empty one, defined here with the page that points to it:
 * the hooks read it before any view has started. */
struct hp_fdtab hp_io_empty_tab;
struct hp_hot hp_hot __attribute__((aligned(4096))) = { .io_period = 1, .io_fdtab = &hp_io_empty_tab, .io_fd_gen = 1 };
_Static_assert(sizeof(struct hp_hot) <= 4096, "the hooks' globals fit in one page");
int hp_active;
int hp_pid;

/* ---- the boot arena: dlsym calls calloc before malloc can be found, and the loader allocates
 * for the profiler's own dlopen ---- */

char hp_boot_arena[HP_BOOT_ARENA_SIZE] __attribute__((aligned(64)));

/* What the lookups and adoptions share: the arena's fill, and whether every lookup is done. */
static struct {
    _Atomic size_t boot_used;
    int resolved;
    _Atomic int raw_barred;     /* hp_raw_syscalls_off was called */
} hooks;

void *hp_boot_alloc(size_t n, size_t align)
{
    if (align < 16) align = 16;
    if (n > HP_BOOT_ARENA_SIZE || align > HP_BOOT_ARENA_SIZE) return NULL;
    size_t used = atomic_load_explicit(&hooks.boot_used, memory_order_relaxed), start;
    do {   /* two threads may cut at once: a thread's own dlopen beside another's lookups */
        start = (used + sizeof(size_t) + align - 1) & ~(align - 1);
        if (start + n > HP_BOOT_ARENA_SIZE) return NULL;
    } while (!atomic_compare_exchange_weak_explicit(&hooks.boot_used, &used, start + n,
                                                    memory_order_relaxed, memory_order_relaxed));
    memcpy(hp_boot_arena + start - sizeof(size_t), &n, sizeof n);
    return hp_boot_arena + start;   /* static storage: already zero, never reused */
}

size_t hp_boot_size(const void *p)
{
    size_t n;
    memcpy(&n, (const char *)p - sizeof n, sizeof n);
    return n;
}

/* ---- resolution ---- */

/* What the calling thread is in the middle of here, so that a signal handler on it does not start
 * the same again: resolving the real functions, or being adopted (then the registry lock is
 * held, and the handler's allocation goes uncounted). */
static __thread struct {
    int resolving, adopting;
    int loading;               /* inside hp_own_dlopen */
} on_this_thread __attribute__((tls_model("initial-exec")));

int hp_resolve(void)
{
    if (__atomic_load_n(&hooks.resolved, __ATOMIC_ACQUIRE)) return 1;
    if (on_this_thread.resolving) return 0;
    on_this_thread.resolving = 1;
    hp_hot.self_offset = (char *)&hp_self - (char *)__builtin_thread_pointer();
    int saved = errno;
    HP_REAL_LOOKUPS(HP_REAL_FNS, hp_hot.real);
    HP_VIEWS_STEP0(resolve);
    HP_REAL_LOOKUPS_LAST(HP_REAL_FNS, hp_hot.real);   /* malloc: a non-NULL malloc means every lookup is done */
    errno = saved;
    on_this_thread.resolving = 0;
    __atomic_store_n(&hooks.resolved, 1, __ATOMIC_RELEASE);
    return 1;
}

/* ---- the profiler's own dlopen ---- */

/* glibc's dlopen holds the loader's locks, its TLS lock among them, while it allocates, and its
 * allocations go to the global malloc: the program's. An allocator that makes a thread under a
 * lock of its own (jemalloc's background thread) then waits in pthread_create for that TLS lock
 * while the dlopen waits for its lock. So what the loader allocates for a dlopen of the
 * profiler's comes from the boot arena (the malloc family's hooks ask hp_own_load_here), and a
 * free of it is ignored, as for every boot block. */
void hp_own_run(void (*fn)(void *), void *arg)
{
    atomic_fetch_add(&hp_hot.own_loads, 1);
    on_this_thread.loading++;
    fn(arg);
    on_this_thread.loading--;
    atomic_fetch_sub(&hp_hot.own_loads, 1);
}

struct own_open { const char *name; int flags; void *handle; };

static void own_open(void *arg)
{
    struct own_open *o = arg;
    o->handle = dlopen(o->name, o->flags);
}

void *hp_own_dlopen(const char *name, int flags)
{
    struct own_open o = { name, flags, NULL };
    hp_own_run(own_open, &o);
    return o.handle;
}

int hp_own_load_here(void)
{
    return on_this_thread.loading;
}

/* ---- threads the profiler did not see start ---- */

struct hp_thread *hp_adopt_self(void)
{
    if (!hp_active || on_this_thread.adopting) return NULL;
    on_this_thread.adopting = 1;
    int saved = errno;
    int tid = hp_platform_gettid();
    if (tid != hp_pid) hp_raw_syscalls_off();   /* a thread the program did not start with pthread_create */
    struct hp_thread *t = hp_registry_adopt(tid, (unsigned long)pthread_self(), hp_self_cpu_ns(), hp_now_ns());
    hp_self = t;
    errno = saved;
    on_this_thread.adopting = 0;
    return t;
}

void hp_raw_syscalls_off(void)
{
    atomic_store(&hooks.raw_barred, 1);
    __atomic_store_n(&hp_hot.io_raw, 0, __ATOMIC_RELAXED);
}

int hp_raw_syscalls_barred(void)
{
    return atomic_load(&hooks.raw_barred);
}
