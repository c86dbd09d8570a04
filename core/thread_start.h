/* thread_start.h — a thread made through the pthread_create hook, the same on Linux and macOS:
 * its record is reserved before the real pthread_create, so its index is its creation order, and
 * the new thread attaches its state to that record first thing, in the hook's trampoline. */
#ifndef HP_THREAD_START_H
#define HP_THREAD_START_H

#include <pthread.h>

#include "thread_state.h"

typedef int (*hp_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* Start fn(arg) with create (the real pthread_create) through trampoline, whose argument is the
 * record; without a record to spare, fn itself. Returns what create returned, errno intact. */
int hp_thread_create(hp_create_fn create, pthread_t *th, const pthread_attr_t *attr,
                     void *(*fn)(void *), void *arg, void *(*trampoline)(void *));
/* In the trampoline (its argument is trampoline_arg): the calling thread's new state, and what
 * it is to run. */
struct hp_thread *hp_thread_begin(void *trampoline_arg, void *(**fn)(void *), void **arg);

#endif
