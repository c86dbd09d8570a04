/* out_file.h — the side files a report writes besides itself (folded stacks, flame graphs): a path
 * pattern from a HOTPATH_* variable, %p, %n and %% expanded, created mode 0600, never through a
 * symbolic link. The platform layer's calls and the profiler's own memory only, like the report
 * writer. */
#ifndef HP_OUT_FILE_H
#define HP_OUT_FILE_H

#include <stddef.h>

/* Write len bytes of data to the file pattern names; 0, or -1 after one line on stderr naming
 * the variable (too long) or what and the path (cannot be created). */
int hp_out_file_write(const char *pattern, const char *variable, const char *what, int pid,
                      unsigned image, const char *data, size_t len);

#endif
