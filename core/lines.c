/* lines.c — see lines.h. One Dwfl session per module file, reported at its link-time addresses;
 * at most MAX_OPEN at once (each holds the file open: close-on-exec and moved high, docs/DESIGN.md
 * rule 12), the oldest ended to make room. Debug files are found by build ID only (no
 * debuginfod: a report never reaches the network). */
#define _GNU_SOURCE
#include "lines.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_lock.h"
#include "memory.h"
#include "platform.h"
#include "unloaded.h"

#define MAX_OPEN 16

/* libdw's functions, looked up once at the first line lookup, and whether that worked. */
static struct {
    Dwfl *(*begin)(const Dwfl_Callbacks *);
    void (*end)(Dwfl *);
    Dwfl_Module *(*report_elf)(Dwfl *, const char *, const char *, int, GElf_Addr, bool);
    int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
    Dwarf_Die *(*addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
    int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
    int (*tag)(Dwarf_Die *);
    const char *(*decl_file)(Dwarf_Die *);
    int (*decl_line)(Dwarf_Die *, int *);
    Dwarf_Attribute *(*attr)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
    const char *(*formstring)(Dwarf_Attribute *);
    Dwfl_Callbacks callbacks;
    _Atomic int refused;              /* no line lookups from now on (hp_lines_refuse) */
    _Atomic int state;                /* 0 not tried, 1 loaded, -1 not available */
} dw;

struct session {
    char path[512];
    Dwfl *dwfl;
    Dwfl_Module *mod;
};

struct hp_lines {
    struct session s[MAX_OPEN];
    unsigned n;                /* sessions ever begun: the next goes to s[n % MAX_OPEN] */
};

void hp_lines_refuse(void)
{
    atomic_store(&dw.refused, 1);
}

/* The profiler's own dlopen (core/hooks.h: what the loader allocates stays out of the program's
 * heap); weak, for the unit tests link no hooks and load with glibc's. */
void *hp_own_dlopen(const char *name, int flags) __attribute__((weak));

#define SYM(field, name) (*(void **)&dw.field = dlsym(h, name))

static int load(void)
{
    int st = atomic_load(&dw.state);
    if (st) return st;
    if (hp_loader_walks_off || hp_loader_no_dlopen) return -1;   /* loader_lock.h */
    /* what libdw brings (libelf, libz, ...) is marked as the profiler's own (unloaded.h) */
    struct hp_dl_list *before = hp_unloaded_before();
    void *h = (hp_own_dlopen ? hp_own_dlopen : dlopen)("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    hp_unloaded_mark_own(before);
    if (h && SYM(begin, "dwfl_begin") && SYM(end, "dwfl_end") && SYM(report_elf, "dwfl_report_elf") &&
        SYM(report_end, "dwfl_report_end") && SYM(addrdie, "dwfl_module_addrdie") &&
        SYM(getscopes, "dwarf_getscopes") && SYM(tag, "dwarf_tag") && SYM(decl_file, "dwarf_decl_file") &&
        SYM(decl_line, "dwarf_decl_line") && SYM(attr, "dwarf_attr") && SYM(formstring, "dwarf_formstring") &&
        SYM(callbacks.find_elf, "dwfl_build_id_find_elf") &&
        SYM(callbacks.find_debuginfo, "dwfl_build_id_find_debuginfo"))
        st = 1;
    else
        st = -1;   /* a handle that lacks a symbol stays loaded: libdw is never unloaded */
    atomic_store(&dw.state, st);
    return st;
}

struct hp_lines *hp_lines_open(void)
{
    if (atomic_load(&dw.refused) || load() != 1) return NULL;
    return hp_alloc(sizeof(struct hp_lines));
}

void hp_lines_close(struct hp_lines *l)
{
    if (!l) return;
    for (unsigned i = 0; i < MAX_OPEN; i++)
        if (l->s[i].dwfl) dw.end(l->s[i].dwfl);
    hp_free(l);
}

static struct session *session_of(struct hp_lines *l, const char *path)
{
    for (unsigned i = 0; i < MAX_OPEN && i < l->n; i++)
        if (strcmp(l->s[i].path, path) == 0) return &l->s[i];
    struct session *s = &l->s[l->n++ % MAX_OPEN];
    if (s->dwfl) dw.end(s->dwfl);
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    int fd = hp_platform_open(path, O_RDONLY, 0);
    if (fd < 0 || !(s->dwfl = dw.begin(&dw.callbacks))) {
        if (fd >= 0) hp_platform_close(fd);
        return s;
    }
    hp_platform_move_high(&fd);
    s->mod = dw.report_elf(s->dwfl, path, path, fd, 0, false);   /* takes fd on success */
    if (!s->mod) hp_platform_close(fd);
    dw.report_end(s->dwfl, NULL, NULL);
    return s;
}

int hp_lines_find(struct hp_lines *l, const char *path, uintptr_t off, char *file, size_t size,
                  unsigned *line)
{
    if (!l || atomic_load(&dw.refused)) return 0;
    struct session *s = session_of(l, path);
    if (!s || !s->mod) return 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dw.addrdie(s->mod, off, &bias), *scopes = NULL;
    int n = cu ? dw.getscopes(cu, off - bias, &scopes) : 0, lineno = 0;
    const char *src = NULL;
    /* the outermost function holding the address: not a function inlined into it */
    for (int i = n - 1; i >= 0 && !src; i--)
        if (dw.tag(&scopes[i]) == DW_TAG_subprogram && (src = dw.decl_file(&scopes[i])) &&
            dw.decl_line(&scopes[i], &lineno) != 0)
            src = NULL;
    free(scopes);   /* libdw's, from malloc */
    if (!src || lineno <= 0) return 0;
    /* a name relative to the compilation's directory is made whole */
    Dwarf_Attribute at;
    const char *dir = src[0] == '/' ? NULL : dw.formstring(dw.attr(cu, DW_AT_comp_dir, &at));
    if (dir) snprintf(file, size, "%s/%s", dir, src);
    else snprintf(file, size, "%s", src);
    *line = (unsigned)lineno;
    return 1;
}
