/* dl.c — dlclose: the modules it unloads are remembered (collectors/unloaded.h) so that the
 * report, made later, still names the functions that ran in them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>

#include "../collectors/unloaded.h"
#include "real.h"

typedef int (*dlclose_fn)(void *);

HP_EXPORT int dlclose(void *handle)
{
    static dlclose_fn real;
    int saved = errno;
    if (!real) real = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
    if (!real) {
        errno = saved;
        return -1;   /* no dlclose to call: nothing was unloaded */
    }
    struct hp_dl_list *before = hp_active ? hp_unloaded_before() : NULL;
    errno = saved;
    int r = real(handle);
    saved = errno;
    hp_unloaded_after(before);
    errno = saved;
    return r;
}
