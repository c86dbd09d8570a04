/* fd_room.c — see fd_room.h. */
#include "fd_room.h"

#include <unistd.h>

#include "core/platform.h"
#include "report/http_server.h"
#include "report/report.h"
#include "real.h"

int hp_fd_room(void)
{
    struct hp_thread *t = hp_self;
    if (!hp_active || (t && t->guard)) return 0;   /* the profiler's own call: EMFILE stands */
    if (getpid() != hp_pid) return 0;   /* a vfork child: its giving up would stop the parent's */
    int saved = errno;
    if (t) t->guard++;
    hp_platform_stop_opening();   /* the sampler's /proc reads would take the numbers freed now */
    int freed = hp_server_give_up();
    freed |= hp_report_release_stderr();
    if (t) t->guard--;
    errno = saved;
    return freed;
}
