/* symbols_darwin.c — names for the return addresses of a profile on macOS (symbols.h), made when
 * a report is written: dladdr, which finds the image holding an address and the nearest symbol of
 * its symbol table (local ones too, unless the image is stripped). Names stay mangled (the
 * demangler is in libc++abi, which the profiler does not link) and there is no line table. Only
 * what the macOS build's views use is here: functions, not data or source lines. */
#include "symbols.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "memory.h"

struct hp_syms { int unused; };   /* dladdr keeps no state of ours */

struct hp_syms *hp_syms_open(void)
{
    return hp_alloc(sizeof(struct hp_syms));
}

void hp_syms_close(struct hp_syms *s)
{
    hp_free(s);
}

/* dladdr reads the images' tables where they lie: nothing to load for a fork child. */
void hp_syms_keep_for_children(void)
{
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void hp_syms_function(struct hp_syms *s, const void *ret_addr, char *name, size_t size,
                      char *module, size_t module_size)
{
    (void)s;
    /* a return address points after the call: look up the call itself */
    Dl_info info;
    if (!dladdr((const char *)ret_addr - 1, &info) || !info.dli_fname) {
        snprintf(name, size, "[?]");
        snprintf(module, module_size, "%s", "");
        return;
    }
    snprintf(module, module_size, "%s", base_name(info.dli_fname));
    if (info.dli_sname) snprintf(name, size, "%s", info.dli_sname);
    else snprintf(name, size, "[%s]", module);
}

int hp_syms_location(struct hp_syms *s, const void *ret_addr, char *file, size_t size, unsigned *line)
{
    /* no DWARF reader in this build: functions are named, never located */
    (void)s;
    (void)ret_addr;
    if (size) file[0] = 0;
    *line = 0;
    return 0;
}
