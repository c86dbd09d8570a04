/* loader_lock.h — the lock glibc's dl_iterate_phdr takes, made free again in a fork child whose
 * parent had another thread inside it (glibc resets its other loader lock there, not this one). */
#ifndef HP_LOADER_LOCK_H
#define HP_LOADER_LOCK_H

#include <link.h>

/* At start: find the lock (a no-op where it cannot be found for sure). */
void hp_loader_lock_find(void);
/* The lock's owner (a tid of the parent, in a fork child), 0 when free or not found, -1 when
 * held by a thread that was taking or letting go of it. */
int hp_loader_lock_owner(void);
/* In a fork child, first thing, when the lock has an owner:
 * - the forking thread's own hold goes on under its new tid, or its unlock would fail;
 * - a thread that was walking the modules (dl_iterate_phdr) changed nothing: the lock is freed;
 * - a thread inside dlopen or dlclose may have left the loader's lists halfway: the lock stays
 *   held, the profiler takes no stacks and sets hp_loader_walks_off. */
void hp_loader_lock_adopt(int tid);
/* For a walk of the modules from a signal handler (a CPU sample's stack): take the lock only if it
 * is free now, never wait. A handler that interrupted malloc holds an arena lock that a thread
 * inside dlclose, holding this lock, may be waiting for: waiting here would deadlock both. Not
 * taken either when the interrupted code of this very thread holds it (a dlopen or dlclose may
 * have left the loader's lists halfway), nor when the lock was not found. 1 when taken: then
 * hp_loader_lock_untry. */
int hp_loader_lock_try(int tid);
void hp_loader_lock_untry(void);
void hp_loader_lock_free(void);
/* The profiler's own dl_iterate_phdr calls (hp_walk_modules) find no modules, rather than wait
 * forever for a lock that will not be let go first: in such a fork child, and when the final
 * report is asked for by a thread holding it (exit or _exit inside a dl_iterate_phdr callback). */
extern int hp_loader_walks_off;
int hp_walk_modules(int (*callback)(struct dl_phdr_info *, size_t, void *), void *data);
/* The profiler loads no library of its own (libdw, for file:line) in this process: a fork child
 * whose parent had other threads, one of which may have been inside dlopen (glibc frees the
 * loader's main lock in the child, and a dlopen there crashed now and then in ld.so's cache). */
extern int hp_loader_no_dlopen;

#endif
