/* own_fds.c — see own_fds.h. */
#define _GNU_SOURCE
#include "own_fds.h"

#include <sys/socket.h>
#include <unistd.h>

#include "hooks.h"
#include "platform.h"

static struct {
    const struct hp_own_fds *owners;   /* NULL until the report and the server have started */
} own;

void hp_own_fds_set(const struct hp_own_fds *owners)
{
    own.owners = owners;
}

int hp_fd_room(void)
{
    struct hp_thread *t = hp_self;
    if (!hp_active || !own.owners || (t && t->guard)) return 0;   /* the profiler's own call: EMFILE stands */
    if (getpid() != hp_pid) return 0;   /* a vfork child: its giving up would stop the parent's */
    int saved = errno;
    if (t) t->guard++;
    hp_platform_stop_opening();   /* the sampler's /proc reads would take the numbers freed now */
    int freed = own.owners->release();
    if (t) t->guard--;
    errno = saved;
    return freed;
}

void hp_own_stderr_going(int closed)
{
    if (own.owners && !hp_vfork_child()) own.owners->stderr_replaced(closed);
}

void hp_own_port_bound(int fd, unsigned port)
{
    if (!own.owners || port == 0 || !own.owners->holds_port(port)) return;
    int type = 0, saved = errno;
    socklen_t tlen = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && type == SOCK_STREAM) own.owners->yield_port(port);
    errno = saved;
}
