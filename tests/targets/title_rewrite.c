/* title_rewrite.c — writes its process title over argv[0] in place, as nginx, postgres and sshd
 * do (setproctitle), then locks a heap mutex from a function of its own, so that the lock is
 * named by its call stack (in a stripped copy: by the program's name and offsets). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) void lock_it(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
}

int main(int argc, char **argv)
{
    (void)argc;
    size_t room = strlen(argv[0]);
    memset(argv[0], 0, room);
    strncpy(argv[0], "worker: idle", room);
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    lock_it(m);
    return 0;
}
