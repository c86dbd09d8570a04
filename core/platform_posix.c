/* platform_posix.c — the parts of the platform interface (platform.h) that are plain POSIX, the
 * same on Linux and macOS. */
#include "platform.h"

#include <pthread.h>
#include <signal.h>

int hp_platform_start_thread(void *(*fn)(void *))
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t th;
    /* not the program's thread: on Linux the caller holds its guard, so the pthread_create hook
     * passes it through; on macOS a call from the interposing image is never interposed */
    int err = pthread_create(&th, &attr, fn, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err ? -1 : 0;
}

void hp_platform_move_high(int *fd)
{
    int high = hp_platform_dup_high(*fd);
    if (high < 0) return;
    hp_platform_close(*fd);
    *fd = high;
}
