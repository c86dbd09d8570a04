/* profile_files.h — the side files of a sampled profile (the CPU profile, allocation call sites):
 * its folded stacks and its SVG flame graph, each written when its HOTPATH_* path is set. */
#ifndef HP_PROFILE_FILES_H
#define HP_PROFILE_FILES_H

#include "buf.h"
#include "flamegraph.h"

struct hp_profile_files {
    const char *folded_path, *folded_variable;     /* "" = no folded stacks file */
    const char *svg_path, *svg_variable;           /* "" = no flame graph */
    int (*folded)(struct hp_buf *out);             /* the folded stacks; -1 when there are none */
    int off;                                       /* the profile is off: files are written empty */
    const char *title;                             /* the flame graph's */
    const char *why_empty;                         /* what the flame graph says when there is nothing to draw */
    enum hp_flame_unit unit;                       /* what its counts are */
};

void hp_profile_files_write(const struct hp_profile_files *f, int pid, unsigned image);

#endif
