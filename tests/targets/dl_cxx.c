/* dl_cxx — a C program that loads a C++ library (libhp_cxx.so, beside it) with dlopen, local
 * scope, calls it, unloads it, and loads it again: the library's operator new and delete must
 * work under the profiler as without it. Prints the library's results. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long load_and_work(const char *path, int n)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return -1;
    }
    long (*work)(int) = (long (*)(int))dlsym(h, "cxx_lib_work");
    long r = work ? work(n) : -2;
    dlclose(h);
    return r;
}

int main(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0) return 2;
    path[n] = 0;
    strcpy(strrchr(path, '/') + 1, "libhp_cxx.so");
    printf("%ld\n", load_and_work(path, 10000));
    printf("%ld\n", load_and_work(path, 100));
    return 0;
}
