/* fd_more_hooks.c — calls that make a descriptor inside glibc, where the open and pipe hooks do not see
 * it (opendir, tmpfile, mkstemp, popen, the old epoll_create and inotify_init): hooked only so
 * that, when they fail with EMFILE, the profiler makes room and they are made once more
 * (core/own_fds.h). Their descriptors are named when first used, as any other unhooked one. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/own_fds.h"
#include "core/hooks.h"

/* The real functions (real_lookup.h), looked up at their first call. */
#define FD_MORE_FNS(X, C)                                                                       \
    X(C, opendir,     "opendir",     NULL, LAZY, DIR *, (const char *))                         \
    X(C, tmpfile,     "tmpfile",     NULL, LAZY, FILE *, (void))                                \
    X(C, tmpfile64,   "tmpfile64",   NULL, LAZY, FILE *, (void))                                \
    X(C, popen,       "popen",       NULL, LAZY, FILE *, (const char *, const char *))          \
    X(C, epoll_create, "epoll_create", NULL, LAZY, int, (int))                                  \
    X(C, inotify_init, "inotify_init", NULL, LAZY, int, (void))                                 \
    X(C, mkstemp,     "mkstemp",     NULL, LAZY, int, (char *))                                 \
    X(C, mkstemp64,   "mkstemp64",   NULL, LAZY, int, (char *))                                 \
    X(C, mkostemp,    "mkostemp",    NULL, LAZY, int, (char *, int))                            \
    X(C, mkostemp64,  "mkostemp64",  NULL, LAZY, int, (char *, int))                            \
    X(C, mkstemps,    "mkstemps",    NULL, LAZY, int, (char *, int))                            \
    X(C, mkstemps64,  "mkstemps64",  NULL, LAZY, int, (char *, int))                            \
    X(C, mkostemps,   "mkostemps",   NULL, LAZY, int, (char *, int, int))                       \
    X(C, mkostemps64, "mkostemps64", NULL, LAZY, int, (char *, int, int))

static struct {
    HP_REAL_FIELDS(FD_MORE_FNS)
} next;
HP_REAL_LAZY_ACCESSORS(FD_MORE_FNS, next)

/* The hook's real function, real_: NULL (errno ENOSYS) when there is none. */
#define NEXT(fn)                                                                                \
    __typeof__(next.fn) real_ = next_##fn();                                                    \
    if (!real_) errno = ENOSYS

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
