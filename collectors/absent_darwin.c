/* absent_darwin.c — the views the macOS build leaves out (docs/REFERENCE.md "macOS"), as the shared sampler
 * asks after them: no metrics-server thread, no CPU profile to drain. */
#include "cpu_profile.h"
#include "../report/http_server.h"

int hp_server_tid(void)
{
    return 0;
}

void hp_cpu_drain(void)
{
}
