/* lazy_unwind.c — whether libunwind is mapped in this process at its end, after a stack taken on
 * the main thread, on a second thread, or none (the profiler opens libunwind at the first stack).
 *
 *   lazy_unwind none     no allocation of the program's own
 *   lazy_unwind malloc   one malloc on the main thread
 *   lazy_unwind thread   one malloc in thread_alloc, on a second thread, the main one allocating
 *                        nothing before
 *   lazy_unwind dlopen   first dlopen libhp_plugin.so (beside this program; the loader allocates
 *                        while it maps it), then one malloc in thread_alloc
 * Prints "libunwind N": N = 1 when a mapping of libunwind is in /proc/self/maps. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void *thread_alloc(void *arg)
{
    void *volatile block = malloc(100);   /* volatile: the pair is not optimised away */
    free(block);
    return arg;
}

/* read with read(2) into a static buffer: no allocation of stdio's that could be sampled */
static int libunwind_mapped(void)
{
    static char buf[1 << 20];
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t got;
    while (n < sizeof buf - 1 && (got = read(fd, buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)got;
    close(fd);
    buf[n] = 0;
    return strstr(buf, "/libunwind.so") != NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "none";
    if (strcmp(mode, "malloc") == 0) {
        thread_alloc(NULL);
    } else if (strcmp(mode, "dlopen") == 0) {
        char path[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
        if (n <= 0) return 1;
        path[n] = 0;
        strcpy(strrchr(path, '/') + 1, "libhp_plugin.so");
        if (!dlopen(path, RTLD_NOW)) return 1;
        thread_alloc(NULL);
    } else if (strcmp(mode, "thread") == 0) {
        pthread_t th;
        if (pthread_create(&th, NULL, thread_alloc, NULL) != 0 || pthread_join(th, NULL) != 0) return 1;
    }
    char line[32];
    int k = snprintf(line, sizeof line, "libunwind %d\n", libunwind_mapped());
    return write(1, line, (size_t)k) == k ? 0 : 1;
}
