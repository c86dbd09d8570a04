/* process_file.h — the per-process registry of live servers, like the JVM's hsperfdata that jps
 * reads: `<pid>.json` (pid, port, command, start time, whether a token is needed, the token when
 * it was made with `auto`) in a per-user directory, $XDG_RUNTIME_DIR/hotpath/ or else
 * /tmp/hotpath-$UID/ (mode 0700, files 0600, ownership checked before use). Removed at exit;
 * entries of dead pids are removed by the next process that starts. Raw syscalls only. */
#ifndef HP_PROCESS_FILE_H
#define HP_PROCESS_FILE_H

#include <stdint.h>

/* Find (create) the directory; 0 when it is ours and private, -1 otherwise. Call at start. */
/* The registry's directory, from XDG_RUNTIME_DIR as the process starts (once). */
void hp_procfile_choose(void);
int hp_procfile_init(void);
/* Write (replace) this process's file; 0 on success. token is NULL unless made with `auto`. */
int hp_procfile_write(int pid, unsigned port, const char *command, uint64_t start_unix_ms,
                      int token_needed, const char *token);
void hp_procfile_remove(int pid);
/* Remove the files of processes that no longer exist. */
void hp_procfile_clean_stale(void);

#endif
