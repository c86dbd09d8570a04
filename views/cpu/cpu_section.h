/* cpu_section.h — the CPU profile's outputs beyond its section: folded stacks, flame graph. */
#ifndef HP_CPU_SECTION_H
#define HP_CPU_SECTION_H

#include "report/buf.h"

/* The profile so far as folded stacks (`main;parse;strlen 42` lines); 0, or -1 when off. */
int hp_cpu_folded(struct hp_buf *out);
/* HOTPATH_CPU_FOLDED / HOTPATH_CPU_FLAMEGRAPH set: write the folded stacks / their SVG flame graph
 * there (report/out_file.h: %p, %n expanded, mode 0600, never through a symlink; one line on stderr
 * if a file cannot be written). */
void hp_cpu_files_write(int pid, unsigned image, const char *command);

#endif
