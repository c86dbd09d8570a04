/* alloc_section.h — the allocation call-site view's outputs beyond its section: folded stacks
 * weighted by estimated bytes allocated, and their flame graph. */
#ifndef HP_ALLOC_SECTION_H
#define HP_ALLOC_SECTION_H

#include "report/buf.h"

/* The sampled allocations so far as folded stacks (`main;parse;strdup 524288`); 0, or -1 when off. */
int hp_alloc_folded(struct hp_buf *out);
/* HOTPATH_ALLOC_FOLDED / HOTPATH_ALLOC_FLAMEGRAPH set: write them there (report/profile_files.h). */
void hp_alloc_files_write(int pid, unsigned image, const char *command);

#endif
