/* report.h — the whole report: one header line, each selected section, the profiler's own cost;
 * as text tables or JSON; written once per process image at exit. */
#ifndef HP_REPORT_H
#define HP_REPORT_H

#include <stdint.h>

#include "core/config.h"
#include "buf.h"

#define HP_VERSION "0.5.0"

/* At start, on the main thread (registry record main_record): who is being profiled (argv is
 * copied, the start time taken now), the name its threads inherit, and which file stderr is (the
 * report's copy of it is made only as the program lets fd 2 go: hp_report_stderr_replaced). */
void hp_report_begin(uint32_t main_record, int pid, int argc, char **argv);
/* The same in a fork child: its pid and start time. */
void hp_report_child_identity(int pid, uint64_t start_ns);
/* This image began as a fork child (hp_report_child_identity; an exec starts a new one). */
int hp_report_fork_child(void);
/* The process became a daemon (setsid, then its fd 2 replaced or closed; or daemon()): let go of
 * the copy of the original stderr when that is a pipe, socket or terminal, whose reader would
 * otherwise wait for the daemon to end (out=$(daemon) would not return). A report to stderr then
 * goes nowhere; one to a regular file keeps its copy. */
void hp_report_detach_stderr(void);
/* Before daemon() replaces fd 2 where no hook sees it: a copy of the original stderr is made. */
void hp_report_keep_stderr(void);
/* The program ran out of descriptors (core/own_fds.h: hp_fd_room): the copy of stderr is closed and the
 * report goes to fd 2 as it stands then. Not once the final report has begun. Returns 1 when a
 * descriptor was freed. */
int hp_report_release_stderr(void);
/* setsid succeeded: from now on fd 2's replacement detaches stderr (hp_report_stderr_replaced). */
void hp_report_new_session(void);
/* The program is about to close fd 2 (closed = 1) or put another file there (dup2, dup3, fclose of
 * stderr): the report's copy of the original stderr is made now, where it is kept. A process that goes
 * on after that must not hold the original stderr open for it when that is a pipe or a socket:
 * whoever reads the other end (out=$(prog 2>&1), a test runner capturing output) waits for every
 * writer to let go, and a background child that sent its output to /dev/null would keep it
 * waiting until the child ends. So the copy is let go of when fd 2 is replaced (the report then
 * goes to fd 2 only if that is the original stderr again, never into a file the program put
 * there), and when a fork child closes it (the report then goes nowhere). The
 * program's own process closing fd 2 keeps the copy: programs do that just before they exit
 * (gnulib's close_stdout), and it is where the report goes. */
void hp_report_stderr_replaced(int closed);
/* The process image number (%n): 0 before any exec, carried across exec. */
void hp_report_set_image(unsigned image);
unsigned hp_report_image(void);
/* An exec failed: the image goes on and will report again at its end. */
void hp_report_rearm(void);
/* How the image ends, for the report's "ended": exit or _exit with this status; an exec of path
 * (about to be made: the report is written next). */
void hp_report_exit_status(int status);
void hp_report_exec(const char *path);
/* The process is ending by this signal, delivered to thread tid (named in the report).
 * Async-signal-safe. */
void hp_report_ending_signal(int sig, int tid);
void hp_report_render(struct hp_buf *out, enum hp_format format, uint32_t sections);
/* Who is profiled, for the live views (report/http_server.c). */
int hp_report_pid(void);
const char *hp_report_command(void);
/* The whole command line into out (the HTML page's header): the arguments as the text header
 * shows them (an argument with a space, or none at all, quoted), never cut. */
void hp_report_command_line(struct hp_buf *out);
uint64_t hp_report_start_ns(void);      /* hp_now_ns() at start (or at fork, in a child) */
/* Take a last sample and write the report where HOTPATH_OUTPUT_PATH says (HOTPATH_RUN_DIR: as
 * PID.IMAGE.json, and PID.IMAGE.txt for the text format, into the run's directory); only the
 * first call in a process image writes. An image that exec'd away within 100 ms writes one line
 * instead of its text report. */
void hp_report_write_final(void);
/* Before a change of credentials: the report's files opened now (report/out_file.h). */
void hp_report_hold_outputs(void);
/* Rewrite the report file with the figures so far (HOTPATH_CHECKPOINT_S), atomically. */
void hp_report_checkpoint(void);

#endif
