/* procfs.h — parsers for the /proc files the sampler reads. Pure functions over a buffer, so the
 * unit tests feed them fixtures (a comm with spaces and parentheses among them). */
#ifndef HP_PROCFS_H
#define HP_PROCFS_H

#include <stddef.h>
#include <stdint.h>

struct hp_task_stat {
    char comm[16];
    char state;              /* R, S, D, T, t, Z, X, I, P, ... */
    uint64_t utime_ticks, stime_ticks;
};

/* /proc/PID/task/TID/stat: 0 on success. */
int hp_parse_task_stat(const char *buf, size_t len, struct hp_task_stat *out);
/* /proc/self/status: the value in kB of a field such as "VmHWM"; 0 on success. */
int hp_parse_status_kb(const char *buf, size_t len, const char *field, uint64_t *kb);
/* /proc/PID/task/TID/schedstat: the thread's time on a CPU in nanoseconds (its first figure);
 * 0 on success. */
int hp_parse_schedstat_ns(const char *buf, size_t len, uint64_t *ns);
/* The display word for a state letter: "Running", "Sleeping", ...; "Unknown" otherwise. */
const char *hp_state_name(char state);

#endif
