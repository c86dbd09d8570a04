/* unloaded.h — modules the program unloaded with dlclose, remembered so that a report made later
 * can still name their functions: file path, load bias and address range. The dlclose hook
 * (process/dl.c) lists the loaded modules before the real dlclose and records those missing
 * after it (the library and dependencies that went with it). A fixed table; when full, the
 * oldest record gives way. Readers never wait: each record is read under its own sequence count. */
#ifndef HP_UNLOADED_H
#define HP_UNLOADED_H

#include <stdint.h>

#define HP_UNLOADED_PATH 512

struct hp_unloaded {
    uintptr_t lo, hi;          /* [lo, hi): the module's loaded segments */
    uintptr_t bias;            /* load bias: address - bias = address in the file */
    uint64_t order;            /* when it was unloaded: larger is later */
    char path[HP_UNLOADED_PATH];
};

struct hp_dl_list;

/* The address range a module's loadable segments span, [lo, hi). */
struct dl_phdr_info;
void hp_module_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);
/* The loaded module whose segments hold addr: its path as the loader has it ("" for the program)
 * in *path; 1, or 0 when none. A walk of the module list only, where dladdr also searches the
 * module's whole symbol table for the nearest symbol (half a millisecond for libc here, in every
 * process's constructor). */
int hp_module_of(const void *addr, const char **path);

/* Before the real dlclose: the modules loaded now (NULL when out of memory). */
struct hp_dl_list *hp_unloaded_before(void);
/* After it: record the modules of the list that are gone, and free the list. */
void hp_unloaded_after(struct hp_dl_list *before);
/* The most recently unloaded module whose range holds addr; 1, or 0 when none. */
int hp_unloaded_find(uintptr_t addr, struct hp_unloaded *out);

/* The profiler's own modules (libdw and what it needs, loaded for a report) may land where an
 * unloaded module was; they never ran the program's code. After the profiler's dlopen: keep the
 * ranges of the modules not in before (freed). */
void hp_unloaded_mark_own(struct hp_dl_list *before);
/* 1 when addr is in a module the profiler loaded. */
int hp_unloaded_is_own(uintptr_t addr);

#endif
