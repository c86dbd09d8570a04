/* bootstrap_darwin.c — how libhotpath.dylib comes alive on macOS (DYLD_INSERT_LIBRARIES): dyld
 * binds the interposed functions before any code runs, so the hooks pass through until the
 * constructor has made the profiler's memory, the thread key and the sampler; an atexit handler
 * registered there writes the report. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/config.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "core/sampler.h"
#include "core/ticks.h"
#include "core/view.h"
#include "report/report.h"
#include "report/report_settings.h"
#include "darwin.h"

int hp_active;
int hp_pid;
struct hp_thread hp_busy_state = { .guard = 1, .record = HP_NO_RECORD };

struct hp_thread *hp_adopt_self(void)
{
    int saved = errno;
    hp_set_self(&hp_busy_state);
    struct hp_thread *t = hp_registry_adopt(hp_platform_gettid(), (unsigned long)pthread_self(),
                                            hp_self_cpu_ns(), hp_now_ns());
    hp_set_self(t);
    errno = saved;
    return t;
}

static void warn_line(const char *line)
{
    hp_platform_write_all(2, line, strlen(line));
    hp_platform_write_all(2, "\n", 1);
}

/* The report, from a program thread: the guard keeps the hooks from counting the work. */
static void at_exit(void)
{
    if (!hp_active || getpid() != hp_pid) return;   /* a fork child: not profiled on macOS */
    struct hp_thread *t = hp_self;
    if (t) t->guard++;
    hp_report_write_final();
    if (t) t->guard--;
}

__attribute__((constructor)) static void hp_init(int argc, char **argv)
{
    if (issetugid()) return;              /* set-user-ID and friends: pass everything through */
    hp_memory_init();
    if (hp_self_key_init(hp_thread_ends) != 0) return;
    hp_ticks_init();
    hp_pid = getpid();
    hp_active = 1;
    struct hp_thread *self = hp_adopt_self();
    if (!self) {
        hp_active = 0;
        return;
    }
    self->guard++;
    hp_settings_parse_all((hp_getenv_fn)getenv, warn_line);
    const struct hp_view_start views_start = { self, NULL };   /* no real-time signal is claimed here */
    HP_VIEWS_STEP(start, &views_start);
    hp_report_begin(self->record, hp_pid, argc, argv);
    atexit(at_exit);
    if (hp_sampler_start(hp_report_write_final, hp_report_checkpoint, NULL, 0, 0) != 0)
        warn_line("hotpath: could not start the sampler thread; CPU figures will be missing");
    self->guard--;
}
