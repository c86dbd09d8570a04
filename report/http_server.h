/* http_server.h — the live views' HTTP/1.1 server on 127.0.0.1 (docs/REFERENCE.md "Live views"): one thread
 * of the profiler's own (every signal blocked, guard set for life), raw syscalls, a fixed handful
 * of descriptors moved high and close-on-exec. Every endpoint renders the sections of
 * report/section.h, so a new view is served without editing this file. */
#ifndef HP_HTTP_SERVER_H
#define HP_HTTP_SERVER_H

/* From the constructor: the server is wanted (unless HOTPATH_METRICS_SERVER_OFF or a bad token);
 * its token, listener and registry entry are made once the process has lived
 * HOTPATH_METRICS_START_MS (hp_server_launch). */
void hp_server_start(void);
/* From the sampler (hp_sampler_start's late_fn), HOTPATH_METRICS_START_MS after the start or a
 * fork (0: at its first pass), so that a process that ends sooner never pays for it: the token,
 * listener and registry entry unless made already, then the thread. Once per start. */
void hp_server_launch(void);
/* In a fork child: the parent's sockets are closed; the child's own listener and registry entry
 * are made by hp_server_launch (HOTPATH_METRICS_START_MS after the fork), or by
 * hp_server_start_child_now. */
void hp_server_restart_in_child(void);
/* A process about to give up its user or group: its listener and registry entry now, while it
 * may still write the registry. */
void hp_server_start_child_now(void);
/* The image ends (its final report, which exec writes too): it leaves the registry of live
 * processes (the next image, if profiled, registers itself). Async-signal-safe. */
void hp_server_unregister(void);
/* The exec failed: this image registers again. */
void hp_server_exec_failed(void);
/* The port served, 0 when none. */
unsigned hp_server_port(void);
/* The port the server will try first once its listener is made, 0 when none is pending. */
unsigned hp_server_pending_port(void);
/* The program is binding a TCP socket to port p (the bind hook, any thread): when the server
 * listens there, it lets go at once, so the program's bind works as it would without the
 * profiler; the server listens again a second later on another port (hotpath-console --list). */
void hp_server_yield_port(unsigned p);
/* The program ran out of descriptors (core/own_fds.h: hp_fd_room): the server closes its listener and
 * connections and serves no more, in this process and its fork children. Returns 1 when it held
 * any and has let them go (it waits up to half a second for the server thread). */
int hp_server_give_up(void);

#endif
