/* thread_start.c — see thread_start.h. */
#include "thread_start.h"

#include <errno.h>
#include <stdint.h>

#include "clock.h"
#include "platform.h"
#include "registry.h"

/* The stack the new thread will run on, as far as attr tells: the program's own (its lowest
 * address and size; pthread_attr_setstackaddr gives its top only), or the size glibc will
 * allocate (cpu_profile.c bounds the stack with it). */
static void stack_plan(const pthread_attr_t *attr, uintptr_t *addr, size_t *size)
{
    pthread_attr_t def;
    void *a = NULL;
    size_t s = 0;
    *addr = 0;
    *size = 0;
    if (attr) {
        if (pthread_attr_getstack(attr, &a, &s) == 0 && a && (uintptr_t)a + s != 0) {
            *addr = s ? (uintptr_t)a : HP_STACK_UNSIZED;
            *size = s;
        } else if (pthread_attr_getstacksize(attr, &s) == 0) {
            *size = s;
        }
    } else if (pthread_attr_init(&def) == 0) {   /* its stack size is the process's default */
        if (pthread_attr_getstacksize(&def, &s) == 0) *size = s;
        pthread_attr_destroy(&def);
    }
}

int hp_thread_create(hp_create_fn create, pthread_t *th, const pthread_attr_t *attr,
                     void *(*fn)(void *), void *arg, void *(*trampoline)(void *))
{
    int saved = errno;
    char comm[16];
    hp_platform_thread_comm(comm);
    uintptr_t stack_addr;
    size_t stack_size;
    stack_plan(attr, &stack_addr, &stack_size);
    uint32_t rec = hp_registry_reserve(comm, fn, arg, stack_addr, stack_size);
    errno = saved;
    if (rec == HP_NO_RECORD) return create(th, attr, fn, arg);
    int err = create(th, attr, trampoline, (void *)(uintptr_t)rec);
    saved = errno;
    if (err) hp_registry_unreserve(rec);
    else hp_registry_created(rec, (unsigned long)*th);
    errno = saved;
    return err;
}

struct hp_thread *hp_thread_begin(void *trampoline_arg, void *(**fn)(void *), void **arg)
{
    uint32_t rec = (uint32_t)(uintptr_t)trampoline_arg;
    struct hp_record *r = hp_record_at(rec);   /* written before pthread_create: no lock needed */
    *fn = r->start_fn;
    *arg = r->start_arg;
    return hp_registry_attach(rec, hp_platform_gettid(), (unsigned long)pthread_self(),
                              hp_self_cpu_ns(), hp_now_ns());
}
