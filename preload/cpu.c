/* cpu.c — the program wins SIGPROF (DESIGN.md rule 11): setitimer(ITIMER_PROF) by the program turns
 * the CPU profile off (collectors/cpu_profile.c) before the program's timer starts. The SIGPROF
 * disposition itself is kept in signals.c. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/time.h>

#include "../collectors/cpu_profile.h"
#include "real.h"

typedef int (*setitimer_fn)(__itimer_which_t, const struct itimerval *, struct itimerval *);

HP_EXPORT int setitimer(__itimer_which_t which, const struct itimerval *nv, struct itimerval *ov)
{
    static setitimer_fn real;
    if (!real) {
        int saved = errno;
        real = (setitimer_fn)dlsym(RTLD_NEXT, "setitimer");
        errno = saved;
        if (!real) {
            errno = ENOSYS;
            return -1;
        }
    }
    if (hp_active && which == ITIMER_PROF && nv && (nv->it_value.tv_sec || nv->it_value.tv_usec))
        hp_cpu_off(HP_CPU_OFF_ITIMER);
    return real(which, nv, ov);
}
