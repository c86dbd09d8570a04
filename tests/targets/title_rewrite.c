/* title_rewrite.c — writes its process title over argv[0] in place, as sshd does, then locks a
 * heap mutex from a function of its own, so that the lock is named by its call stack (in a
 * stripped copy: by the program's name and offsets).
 *   title_rewrite --long: as nginx and postgres do (setproctitle), moves its environment to the
 *   heap and writes a title longer than its arguments across both, then prints what
 *   /proc/self/cmdline reads, for the test to compare. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void long_title(int argc, char **argv)
{
    char *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
    size_t n = 0;
    while (environ[n]) n++;
    char **moved = calloc(n + 1, sizeof *moved);
    for (size_t i = 0; i < n; i++) {
        if (environ[i] == end) end += strlen(environ[i]) + 1;
        moved[i] = strdup(environ[i]);
    }
    environ = moved;
    static const char title[] = "postgres: checkpointer, a title longer than the arguments";
    size_t room = (size_t)(end - argv[0]);
    memset(argv[0], 0, room);
    memcpy(argv[0], title, sizeof title < room ? sizeof title : room - 1);
    char buf[4096];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
    if (got > 0) fwrite(buf, 1, (size_t)got, stdout);
    if (fd >= 0) close(fd);
}

static __attribute__((noinline)) void lock_it(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--long") == 0) {
        long_title(argc, argv);
        return 0;
    }
    size_t room = strlen(argv[0]);
    memset(argv[0], 0, room);
    strncpy(argv[0], "worker: idle", room);
    pthread_mutex_t *m = malloc(sizeof *m);
    pthread_mutex_init(m, NULL);
    lock_it(m);
    return 0;
}
