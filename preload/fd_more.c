/* fd_more.c — calls that make a descriptor inside glibc, where the open and pipe hooks do not see
 * it (opendir, tmpfile, mkstemp, popen, the old epoll_create and inotify_init): hooked only so
 * that, when they fail with EMFILE, the profiler makes room and they are made once more
 * (fd_room.h). Their descriptors are named when first used, as any other unhooked one. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd_room.h"
#include "real.h"

/* The next definition of name, looked up at first use; NULL (errno ENOSYS) when there is none. */
static void *next(void *_Atomic *slot, const char *name)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (fn) return fn;
    int saved = errno;
    fn = dlsym(RTLD_NEXT, name);
    errno = fn ? saved : ENOSYS;
    if (fn) __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    return fn;
}

#define NEXT(fn)                                                                                \
    static void *_Atomic slot_;                                                                 \
    __typeof__(fn) *real_ = (__typeof__(fn) *)next(&slot_, #fn)

HP_EXPORT DIR *opendir(const char *path)
{
    NEXT(opendir);
    return real_ ? HP_WITH_ROOM_PTR(real_(path)) : NULL;
}

HP_EXPORT FILE *tmpfile(void)
{
    NEXT(tmpfile);
    return real_ ? HP_WITH_ROOM_PTR(real_()) : NULL;
}

HP_EXPORT FILE *tmpfile64(void)
{
    NEXT(tmpfile64);
    return real_ ? HP_WITH_ROOM_PTR(real_()) : NULL;
}

HP_EXPORT FILE *popen(const char *command, const char *type)
{
    NEXT(popen);
    return real_ ? HP_WITH_ROOM_PTR(real_(command, type)) : NULL;
}

HP_EXPORT int epoll_create(int size)
{
    NEXT(epoll_create);
    return real_ ? HP_WITH_ROOM(real_(size)) : -1;
}

HP_EXPORT int inotify_init(void)
{
    NEXT(inotify_init);
    return real_ ? HP_WITH_ROOM(real_()) : -1;
}

/* The mkstemp family writes its guesses into the template: a second try starts from the
 * template as the program gave it (one longer than TEMP_MAX gets no second try). */
#define TEMP_MAX 4096

#define WITH_ROOM_TEMP(call)                                                                    \
    do {                                                                                        \
        if (!real_) return -1;                                                                  \
        size_t n_ = strlen(tmpl) + 1;                                                           \
        char copy_[TEMP_MAX];                                                                   \
        int keep_ = n_ <= sizeof copy_;                                                         \
        if (keep_) memcpy(copy_, tmpl, n_);                                                     \
        int fd_ = (call);                                                                       \
        if (fd_ < 0 && errno == EMFILE && keep_ && hp_fd_room()) {                              \
            memcpy(tmpl, copy_, n_);                                                            \
            fd_ = (call);                                                                       \
        }                                                                                       \
        return fd_;                                                                             \
    } while (0)

#define TEMP_HOOK(name, params, args)                                                           \
    HP_EXPORT int name params                                                                   \
    {                                                                                           \
        NEXT(name);                                                                             \
        WITH_ROOM_TEMP(real_ args);                                                             \
    }

TEMP_HOOK(mkstemp, (char *tmpl), (tmpl))
TEMP_HOOK(mkstemp64, (char *tmpl), (tmpl))
TEMP_HOOK(mkostemp, (char *tmpl, int flags), (tmpl, flags))
TEMP_HOOK(mkostemp64, (char *tmpl, int flags), (tmpl, flags))
TEMP_HOOK(mkstemps, (char *tmpl, int suffixlen), (tmpl, suffixlen))
TEMP_HOOK(mkstemps64, (char *tmpl, int suffixlen), (tmpl, suffixlen))
TEMP_HOOK(mkostemps, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags))
TEMP_HOOK(mkostemps64, (char *tmpl, int suffixlen, int flags), (tmpl, suffixlen, flags))
