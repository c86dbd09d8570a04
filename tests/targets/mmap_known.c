/* mmap_known.c — anonymous mappings of known sizes: a thread "mapper" maps 10 MiB, unmaps 4 MiB
 * of it, grows the remaining 6 MiB to 8 MiB with mremap, and maps and unmaps a file (not
 * anonymous: not counted); main maps 1 MiB and keeps it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static void *mapper(void *arg)
{
    (void)arg;
    char *p = mmap(NULL, 10 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    memset(p, 1, 10 * MIB);
    munmap(p + 6 * MIB, 4 * MIB);
    char *q = mremap(p, 6 * MIB, 8 * MIB, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) return NULL;
    int fd = open("/proc/self/exe", O_RDONLY);
    void *f = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    munmap(f, 4096);
    close(fd);
    return q;
}

int main(void)
{
    pthread_t t;
    void *kept;
    char *mine = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mine[0] = 1;
    pthread_create(&t, NULL, mapper, NULL);
    pthread_setname_np(t, "mapper");
    pthread_join(t, &kept);
    printf("%s\n", kept ? "ok" : "failed");
    return kept ? 0 : 1;
}
