/* symbols.h — names for addresses, made only when a report is written: the module that holds an
 * address (_dl_find_object, else dladdr1; for a module the program has unloaded with dlclose, its record in
 * core/unloaded.h) and the nearest symbol from the module's static symbol table (.symtab,
 * which has static variables and functions), else its dynamic one (.dynsym); C++ names demangled
 * (core/demangle.h). Module files are mapped read-only with raw syscalls and kept until
 * hp_syms_close (the set closed last is kept for the next open while no module has come or gone).
 * No malloc from the program's heap, no lock but the loader's. (macOS:
 * symbols_darwin.c, dladdr, function names only.) */
#ifndef HP_SYMBOLS_H
#define HP_SYMBOLS_H

#include <stddef.h>

struct hp_syms;

/* At start: where the program's file is, when the loader was run as a program (ld.so ./prog). */
void hp_syms_note_program(void);
struct hp_syms *hp_syms_open(void);
void hp_syms_close(struct hp_syms *s);
/* In a process that forks (the sampler, after a pass that saw a fork): every module's table
 * (libhotpath.so's aside) loaded into the kept set, which every child forked from then on inherits
 * with the memory, so a prefork server's children (PostgreSQL's backends) no longer each load the
 * same tables at their report. Modules already in the set are not loaded again. */
void hp_syms_keep_for_children(void);

/* A data address: "name" or "name+offset" (decimal bytes, as in `staticMutexes+80`), and the
 * module's path. 1 when a symbol holds the address, 0 otherwise (*module may still be set). */
int hp_syms_data(struct hp_syms *s, const void *addr, char *name, size_t size, const char **module);
/* A return address of a call stack: the function's name, or "module+0xoffset", or "0x...". */
void hp_syms_frame(struct hp_syms *s, const void *ret_addr, char *name, size_t size);
/* The same for a profile: the function's name, or `[module]` where no symbol covers the address
 * (`[?]` outside every module), and the module's file name ("" when unknown). */
void hp_syms_function(struct hp_syms *s, const void *ret_addr, char *name, size_t size,
                      char *module, size_t module_size);
/* Where the function holding a return address is defined in the source: file and line from
 * DWARF (core/lines.h); 1, or 0 where there is none or the module is glibc's own. */
int hp_syms_location(struct hp_syms *s, const void *ret_addr, char *file, size_t size, unsigned *line);

#endif
