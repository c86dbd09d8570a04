/* loader_lock.h — the lock glibc's dl_iterate_phdr takes, made free again in a fork child whose
 * parent had another thread inside it (glibc resets its other loader lock there, not this one). */
#ifndef HP_LOADER_LOCK_H
#define HP_LOADER_LOCK_H

/* At start: find the lock (a no-op where it cannot be found for sure). */
void hp_loader_lock_find(void);
/* In a fork child, first thing: free the lock if a thread that did not come along held it.
 * forker_inside: the forking thread was itself inside dl_iterate_phdr or dlclose. */
void hp_loader_lock_fork_child(int forker_inside);

#endif
