/* mmap_reserve.c — reservations and commits as runtimes make them, by its argument:
 *   fixed    reserve 1 GiB PROT_NONE, map 128 MiB MAP_FIXED inside it, unmap the 1 GiB
 *   commit   reserve 8 GiB PROT_NONE, commit 64 MiB by mprotect and 32 MiB by MAP_FIXED, keep it
 *   memfd    a 16 MiB memfd mapped twice (MAP_SHARED), kept, and its pages touched through both
 * It prints "ok" and exits with the mappings still in place (but for "fixed"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1024ul * 1024ul)
#define GIB (1024ul * MIB)

static int fixed(void)
{
    char *r = mmap(NULL, GIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return 1;
    char *p = mmap(r + 256 * MIB, 128 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) return 1;
    memset(p, 1, MIB);
    return munmap(r, GIB) != 0;
}

static int commit(void)
{
    char *r = mmap(NULL, 8 * GIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return 1;
    if (mprotect(r, 64 * MIB, PROT_READ | PROT_WRITE) != 0) return 1;
    char *p = mmap(r + GIB, 32 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) return 1;
    memset(r, 1, MIB);
    memset(p, 1, MIB);
    return 0;
}

static int memfd(void)
{
    int fd = memfd_create("heap", 0);
    if (fd < 0 || ftruncate(fd, 16 * MIB) != 0) return 1;
    char *a = mmap(NULL, 16 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *b = mmap(NULL, 16 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (a == MAP_FAILED || b == MAP_FAILED) return 1;
    memset(a, 1, 16 * MIB);
    return b[16 * MIB - 1] != 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int failed = !strcmp(mode, "fixed") ? fixed() : !strcmp(mode, "commit") ? commit()
               : !strcmp(mode, "memfd") ? memfd() : 1;
    printf("%s\n", failed ? "failed" : "ok");
    return failed;
}
