/* creds.c — the credential hooks: a process about to change its user or group (a server's worker
 * leaving root for nobody, `memcached -u`) opens the files its report will be written to first,
 * while it may still create them where the user asked (report/out_file.h), and a fork child
 * registers its metrics server. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <unistd.h>

#include "core/thread_state.h"
#include "report/http_server.h"
#include "report/out_file.h"
#include "report/report.h"
#include "process.h"

/* The real functions, looked up in hp_resolve (real_lookup.h). */
#define CREDS_FNS(X, C)                                                   \
    X(C, setuid,    "setuid",    NULL, EAGER, int, (uid_t))               \
    X(C, setgid,    "setgid",    NULL, EAGER, int, (gid_t))               \
    X(C, seteuid,   "seteuid",   NULL, EAGER, int, (uid_t))               \
    X(C, setegid,   "setegid",   NULL, EAGER, int, (gid_t))               \
    X(C, setreuid,  "setreuid",  NULL, EAGER, int, (uid_t, uid_t))        \
    X(C, setregid,  "setregid",  NULL, EAGER, int, (gid_t, gid_t))        \
    X(C, setresuid, "setresuid", NULL, EAGER, int, (uid_t, uid_t, uid_t)) \
    X(C, setresgid, "setresgid", NULL, EAGER, int, (gid_t, gid_t, gid_t))

static struct {
    HP_REAL_FIELDS(CREDS_FNS)
} real;

void hp_resolve_creds(void)
{
    HP_REAL_LOOKUPS(CREDS_FNS, real);
}

/* Only the profiled process itself (not a vfork child in our memory), and not the profiler. */
static void hold_outputs(void)
{
    hp_process_resolve();
    if (!hp_active || getpid() != hp_pid || (hp_self && hp_self->guard)) return;
    int saved = errno;
    struct hp_thread *t = hp_guard_raise();
    hp_report_hold_outputs();
    hp_out_files_hold(hp_report_pid(), hp_report_image());
    hp_server_start_child_now();
    hp_guard_lower(t);
    errno = saved;
}

HP_EXPORT int setuid(uid_t uid) { hold_outputs(); return real.setuid(uid); }
HP_EXPORT int setgid(gid_t gid) { hold_outputs(); return real.setgid(gid); }
HP_EXPORT int seteuid(uid_t uid) { hold_outputs(); return real.seteuid(uid); }
HP_EXPORT int setegid(gid_t gid) { hold_outputs(); return real.setegid(gid); }
HP_EXPORT int setreuid(uid_t r, uid_t e) { hold_outputs(); return real.setreuid(r, e); }
HP_EXPORT int setregid(gid_t r, gid_t e) { hold_outputs(); return real.setregid(r, e); }
HP_EXPORT int setresuid(uid_t r, uid_t e, uid_t s) { hold_outputs(); return real.setresuid(r, e, s); }
HP_EXPORT int setresgid(gid_t r, gid_t e, gid_t s) { hold_outputs(); return real.setresgid(r, e, s); }
