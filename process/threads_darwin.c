/* threads_darwin.c — thread lifecycle on macOS: pthread_create registers the new thread in
 * creation order and starts it through a trampoline that attaches its state; the thread key's
 * destructor folds its final CPU time when it ends (return, pthread_exit or cancellation);
 * pthread_setname_np, which names the calling thread only on macOS, records its name. */
#include <errno.h>
#include <mach/mach.h>
#include <pthread.h>
#include <stdint.h>

#include "core/registry.h"
#include "core/sampler.h"
#include "core/thread_start.h"
#include "darwin.h"

static uint64_t time_value_ns(time_value_t t)
{
    return (uint64_t)t.seconds * 1000000000u + (uint64_t)t.microseconds * 1000u;
}

void hp_thread_ends(void *state)
{
    /* what the thread's other key destructors allocate after this is not counted, and the
     * destructor runs again (at most PTHREAD_DESTRUCTOR_ITERATIONS times) with the busy state */
    hp_set_self(&hp_busy_state);
    struct hp_thread *t = state;
    if (t == &hp_busy_state) return;
    int saved = errno;
    thread_basic_info_data_t info;
    mach_msg_type_number_t count = THREAD_BASIC_INFO_COUNT;
    if (thread_info(pthread_mach_thread_np(pthread_self()), THREAD_BASIC_INFO, (thread_info_t)&info,
                    &count) == KERN_SUCCESS &&
        hp_registry_exit(t, time_value_ns(info.user_time), time_value_ns(info.system_time)))
        hp_sampler_retire_soon();
    errno = saved;
}

static void *trampoline(void *arg)
{
    void *(*fn)(void *), *fn_arg;
    hp_set_self(hp_thread_begin(arg, &fn, &fn_arg));
    return fn(fn_arg);
}

static int hook_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    struct hp_thread *self = hp_active ? hp_self : NULL;
    if (!hp_active || (self && self->guard)) return pthread_create(th, attr, fn, arg);
    return hp_thread_create(pthread_create, th, attr, fn, arg, trampoline);
}
HP_INTERPOSE(hook_pthread_create, pthread_create);

static int hook_pthread_setname_np(const char *name)
{
    int r = pthread_setname_np(name);
    struct hp_thread *t;
    if (r == 0 && name && (t = hp_counting_thread())) {
        int saved = errno;
        hp_registry_name_record(t->record, name);
        errno = saved;
    }
    return r;
}
HP_INTERPOSE(hook_pthread_setname_np, pthread_setname_np);
