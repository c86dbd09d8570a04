/* process_file.h — the per-process registry of live servers, like the JVM's hsperfdata that jps
 * reads: `<pid>.json` (pid, port, command, start time, whether a token is needed) in a per-user
 * directory, $XDG_RUNTIME_DIR/hotpath/ or else /tmp/hotpath-$UID/ (mode 0700, files 0600,
 * ownership checked before use, no symbolic link followed), beside the user's token (`token`,
 * made once by the first process that needs it, read by the console and Prometheus). Removed at
 * exit; entries of dead pids are removed by the next process that starts. Raw syscalls only. */
#ifndef HP_PROCESS_FILE_H
#define HP_PROCESS_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Find (create) the directory; 0 when it is ours and private, -1 otherwise. Call at start. */
/* The registry's directory, from XDG_RUNTIME_DIR as the process starts (once). */
void hp_procfile_choose(void);
int hp_procfile_init(void);
/* Write (replace) this process's file; 0 on success. */
int hp_procfile_write(int pid, unsigned port, const char *command, uint64_t start_unix_ms,
                      int token_needed);
/* The user's token into out (size at least 65): the directory's `token` file, made when there is
 * none (O_EXCL: 32 bytes of getrandom as hex; a process that loses the race reads the winner's).
 * 0, or -1 when the directory is not private to us, the file is not ours (a regular file, 0600)
 * or holds no token (blanks at its end left out; at most 255 bytes, no whitespace inside). */
#define HP_PROCFILE_TOKEN_MAX 256
int hp_procfile_user_token(char *out, size_t size);
void hp_procfile_remove(int pid);
/* Remove the files of processes that no longer exist. */
void hp_procfile_clean_stale(void);

#endif
