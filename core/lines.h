/* lines.h — where the function holding a code address is declared (DW_AT_decl_file/decl_line of
 * its DW_TAG_subprogram) from the module's DWARF (or its separate debug file found by build ID
 * under /usr/lib/debug), through elfutils' libdwfl.
 * libdw.so.1 is loaded with dlopen the first time a report asks (never at start, so a profiled
 * program maps nothing more until then); without it there are no locations, nothing else
 * changes. libdw allocates from the program's heap (malloc), so lookups are refused once the
 * process is dying by a signal, when the interrupted thread may hold the malloc lock. */
#ifndef HP_LINES_H
#define HP_LINES_H

#include <stddef.h>
#include <stdint.h>

struct hp_lines;

/* NULL when libdw cannot be loaded or lookups are refused. */
struct hp_lines *hp_lines_open(void);
void hp_lines_close(struct hp_lines *l);
/* The file and line where the function holding address off of the file at path (module addresses,
 * bias removed) is defined; 1, or 0 when the module has no debug information there. */
int hp_lines_find(struct hp_lines *l, const char *path, uintptr_t off, char *file, size_t size,
                  unsigned *line);
/* From now on refuse lookups (the process is ending by a signal). Async-signal-safe. */
void hp_lines_refuse(void);

#endif
