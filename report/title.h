/* title.h — the process title: the command line as ps shows it when the report is made, which
 * programs that rename themselves (PostgreSQL's backends, nginx workers, sshd, setproctitle)
 * rewrite over their argv memory or move with prctl(PR_SET_MM). Pure over the bytes of
 * /proc/self/cmdline. */
#ifndef HP_TITLE_H
#define HP_TITLE_H

#include <stddef.h>

#include "buf.h"

/* The title from raw (n bytes, NUL-separated; truncated: there was more): the exec-time argv
 * joined with spaces when raw is that argv, else raw with its trailing NULs dropped and each run
 * of NULs one space. 1 when it differs from the exec-time command line, 0 when not; out gets it. */
int hp_title_of(const char *raw, size_t n, int truncated, char *const *argv, int argc, struct hp_buf *out);

#endif
