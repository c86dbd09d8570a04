/* threads.c — thread lifecycle hooks: pthread_create registers the new thread in creation order
 * and starts it through a trampoline that folds its final CPU time when it ends (return,
 * pthread_exit or cancellation); pthread_setname_np and prctl(PR_SET_NAME) record names. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "core/view.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/unwind.h"
#include "core/thread_start.h"
#include "process.h"

static void thread_ends(void *unused)
{
    (void)unused;
    struct hp_thread *t = hp_self;
    if (!t) return;
    HP_VIEWS_STEP0(flush);
    HP_VIEWS_STEP(thread_end, t);
    int saved = errno;
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0 &&
        hp_registry_exit(t, (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u,
                         (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u))
        hp_sampler_retire_soon();
    errno = saved;
}

static void *trampoline(void *arg)
{
    void *(*fn)(void *), *fn_arg;
    hp_self = hp_thread_begin(arg, &fn, &fn_arg);
    if (hp_self) hp_self->managed = 1;
    hp_unwind_thread_start();
    HP_VIEWS_STEP(thread_start, hp_self);
    void *ret;
    pthread_cleanup_push(thread_ends, NULL);
    ret = fn(fn_arg);
    pthread_cleanup_pop(1);
    return ret;
}

HP_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    hp_resolve();
    struct hp_thread *self = hp_self;
    if (!self || !self->guard) {                         /* the program's second thread */
        if (hp_active) hp_unwind_before_threads();
        hp_raw_syscalls_off();
    }
    if (!hp_active || (self && self->guard)) return hp_hot.real.pthread_create(th, attr, fn, arg);
    hp_sampler_launch();    /* a program of two threads is not a shell's command of milliseconds */
    return hp_thread_create(hp_hot.real.pthread_create, th, attr, fn, arg, trampoline);
}

/* Cancellation needs glibc's I/O functions (io_raw.h). */
HP_EXPORT int pthread_cancel(pthread_t th)
{
    hp_resolve();
    hp_raw_syscalls_off();
    return hp_hot.real.pthread_cancel(th);
}

/* Threads glibc starts for the program without passing through pthread_create's symbol: C11
 * threads and SIGEV_THREAD notifications. The program is multi-threaded from then on. */
HP_EXPORT int thrd_create(void *thr, int (*fn)(void *), void *arg)
{
    hp_resolve();
    if (hp_active) hp_unwind_before_threads();
    hp_raw_syscalls_off();
    if (hp_active) hp_sampler_launch();
    return hp_hot.real.thrd_create(thr, fn, arg);
}

HP_EXPORT int timer_create(clockid_t clock, struct sigevent *ev, timer_t *id)
{
    hp_resolve();
    if (ev && ev->sigev_notify == SIGEV_THREAD) {
        if (hp_active) hp_unwind_before_threads();
        hp_raw_syscalls_off();
        if (hp_active) hp_sampler_launch();
    }
    return hp_hot.real.timer_create(clock, ev, id);
}

HP_EXPORT int mq_notify(int mq, const struct sigevent *ev)
{
    hp_resolve();
    if (ev && ev->sigev_notify == SIGEV_THREAD) {
        if (hp_active) hp_unwind_before_threads();
        hp_raw_syscalls_off();
        if (hp_active) hp_sampler_launch();
    }
    return hp_hot.real.mq_notify(mq, ev);
}

HP_EXPORT void pthread_exit(void *ret)
{
    hp_resolve();
    struct hp_thread *t = hp_self;
    /* threads we started fold their figures in the trampoline's cleanup handler */
    if (hp_active && t && !t->managed && !t->guard) thread_ends(NULL);
    if (hp_active && hp_platform_gettid() == hp_pid) hp_sampler_main_exited();
    hp_hot.real.pthread_exit(ret);
}

HP_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
    hp_resolve();
    int r = hp_hot.real.pthread_setname_np(th, name);
    if (r == 0 && hp_active) {
        int saved = errno;
        hp_registry_name_pthread((unsigned long)th, name);
        errno = saved;
    }
    return r;
}

HP_EXPORT int prctl(int option, ...)
{
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
    va_end(ap);
    hp_resolve();
    int r = hp_hot.real.prctl(option, a2, a3, a4, a5);
    if (r == 0 && option == PR_SET_NAME && hp_active && a2) {
        int saved = errno;
        struct hp_thread *t = hp_self ? hp_self : hp_adopt_self();
        char name[16] = { 0 };
        strncpy(name, (const char *)a2, sizeof name - 1);   /* the kernel keeps 15 bytes */
        if (t && !t->guard) hp_registry_name_record(t->record, name);
        errno = saved;
    }
    return r;
}
