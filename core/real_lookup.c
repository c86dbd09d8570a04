/* real_lookup.c — see real_lookup.h: the one place a real function is looked up. */
#define _GNU_SOURCE
#include "real_lookup.h"

#include <dlfcn.h>
#include <errno.h>

void *hp_real_lookup(const char *name, const char *version)
{
    int saved = errno;
    void *fn = NULL;
#ifdef __GLIBC__
    /* where a plain lookup would find an old version (pthread_cond_wait@GLIBC_2.2.5) */
    if (version) fn = dlvsym(RTLD_NEXT, name, version);
#else
    (void)version;
#endif
    if (!fn) fn = dlsym(RTLD_NEXT, name);
    errno = saved;
    return fn;
}
