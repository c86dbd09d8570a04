/* dl_unload — a library loaded with dlopen, burned in, then unloaded before the report: loads
 * libhp_plugin.so (beside this program), spends argv[1] seconds of CPU (default 1) in its
 * plugin_burn, dlcloses it and checks it is gone, then spends half that in its own
 * after_unload_spin. Prints "unloaded" once the library is no longer mapped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl/burn.h"

BURN_FUNCTION(after_unload_spin)

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0) return 2;
    path[n] = 0;
    strcpy(strrchr(path, '/') + 1, "libhp_plugin.so");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    unsigned long (*burn)(double) = (unsigned long (*)(double))dlsym(h, "plugin_burn");
    if (!burn) return 3;
    unsigned long sink = burn(seconds);
    if (dlclose(h) != 0) return 4;
    if (dlopen(path, RTLD_NOW | RTLD_NOLOAD)) return 5;   /* still loaded: nothing to test */
    printf("unloaded\n");
    sink += after_unload_spin(seconds / 2);
    printf("%lu\n", sink & 1);
    return 0;
}
