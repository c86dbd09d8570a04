/* out_file.h — the files a report writes (the report itself, the HTML page, folded stacks, flame
 * graphs): a path pattern from a HOTPATH_* variable, %p, %n and %% expanded, created mode 0600,
 * never through a symbolic link; and the same files opened ahead of time, while the process may
 * still create them, when it is about to give up its user or group (a server's worker leaving
 * root for nobody). The platform layer's calls and the profiler's own memory only, like the
 * report writer. */
#ifndef HP_OUT_FILE_H
#define HP_OUT_FILE_H

#include <stddef.h>

/* Write len bytes of data to the file pattern names; 0, or -1 after one line on stderr naming
 * the variable (too long) or what and the path (cannot be created). */
int hp_out_file_write(const char *pattern, const char *variable, const char *what, int pid,
                      unsigned image, const char *data, size_t len);

/* A file to write a report to, emptied: the descriptor held for path, else a new one; -1 with
 * errno when it cannot be created. */
int hp_out_file_open(const char *path);

/* The process is about to change its credentials: open every file the settings of kind FILE name
 * for this image now (the report's own: hp_report_hold_outputs), and keep the descriptors (high,
 * close-on-exec) for the writes. */
void hp_out_files_hold(int pid, unsigned image);
/* The same for one file, by its path. */
void hp_out_file_hold(const char *path);

/* A fork child: the files held are its parent's; close its copies. */
void hp_out_files_forget(void);

#endif
