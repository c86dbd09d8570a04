/* loader_lock_linux.c — see loader_lock.h. A fork child inherits every lock as it was; glibc's fork
 * makes the loader's dl_load_lock free again in the child, but not dl_load_write_lock, which
 * dl_iterate_phdr holds while it runs. The profiler calls dl_iterate_phdr often (libunwind, for
 * every stack it takes; the report, for the modules): a program that forks while one of its
 * threads is in there leaves its child unable to take a stack or make its report (seen in 1-2 of
 * 30 runs of a program forking from 8 threads), and a C++ throw in that child would hang too.
 *
 * The lock is a recursive mutex inside ld.so's `_rtld_global`, which is exported (GLIBC_PRIVATE)
 * with its size. Inside a dl_iterate_phdr callback the calling thread owns it: the one mutex in
 * there owned by this thread is it. Found none or more than one: nothing is done, ever.
 * What a fork child does with it: loader_lock.h. */
#define _GNU_SOURCE
#include "loader_lock.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include "platform.h"
#include "real_lookup.h"

#define LOADER_LOCK_FNS(X, C)                                                                   \
    X(C, trylock, "pthread_mutex_trylock", NULL, EAGER, int, (pthread_mutex_t *))               \
    X(C, unlock,  "pthread_mutex_unlock",  NULL, EAGER, int, (pthread_mutex_t *))

/* The loader's write lock once found, and the functions that take it: glibc's, not the
 * profiler's lock hooks in front of them, looked up at start in hp_loader_lock_find (a signal
 * handler cannot; real_lookup.h). */
static struct {
    pthread_mutex_t *write_lock;
    struct { HP_REAL_FIELDS(LOADER_LOCK_FNS) } mutex;
} loader;

struct search {
    char *base;
    size_t len;
    int tid;
    int found;
    pthread_mutex_t *lock;
};

static int owned_by_caller(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    struct search *s = data;
    for (size_t off = 0; off + sizeof(pthread_mutex_t) <= s->len; off += _Alignof(pthread_mutex_t)) {
        pthread_mutex_t *m = (pthread_mutex_t *)(void *)(s->base + off);
        if (m->__data.__owner == s->tid && m->__data.__lock != 0 && m->__data.__count >= 1 &&
            (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP) {
            s->found++;
            s->lock = m;
        }
    }
    return 1;   /* one module is enough: the lock is held for the whole walk */
}

void hp_loader_lock_find(void)
{
    void *rtld = dlsym(RTLD_DEFAULT, "_rtld_global");
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!rtld || !dladdr1(rtld, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) return;
    struct search s = { rtld, sym->st_size, hp_platform_gettid(), 0, NULL };
    dl_iterate_phdr(owned_by_caller, &s);
    if (s.found != 1) return;
    HP_REAL_LOOKUPS(LOADER_LOCK_FNS, loader.mutex);
    if (loader.mutex.trylock && loader.mutex.unlock) loader.write_lock = s.lock;
}

int hp_loader_walks_off;
int hp_loader_no_dlopen;

int hp_walk_modules(int (*callback)(struct dl_phdr_info *, size_t, void *), void *data)
{
    return hp_loader_walks_off ? 0 : dl_iterate_phdr(callback, data);
}

int hp_loader_lock_owner(void)
{
    if (!loader.write_lock || !loader.write_lock->__data.__lock) return 0;
    /* glibc sets the owner just after taking the lock word and clears it just before letting go */
    return loader.write_lock->__data.__owner ? loader.write_lock->__data.__owner : -1;
}

int hp_loader_lock_try(int tid)
{
    if (!loader.write_lock || tid <= 0 || loader.write_lock->__data.__owner == tid) return 0;
    return loader.mutex.trylock(loader.write_lock) == 0;
}

void hp_loader_lock_untry(void)
{
    loader.mutex.unlock(loader.write_lock);
}

void hp_loader_lock_adopt(int tid)
{
    loader.write_lock->__data.__owner = tid;
}

/* As glibc leaves a recursive mutex nobody holds: its kind kept, the rest zero. */
void hp_loader_lock_free(void)
{
    loader.write_lock->__data.__lock = 0;
    loader.write_lock->__data.__count = 0;
    loader.write_lock->__data.__owner = 0;
    loader.write_lock->__data.__nusers = 0;
}
