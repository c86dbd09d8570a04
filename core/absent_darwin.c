/* absent_darwin.c — the views the macOS build leaves out (docs/REFERENCE.md "macOS"), as the shared sampler
 * asks after them: no CPU profile to drain. */
#include "views/cpu/cpu_profile.h"

void hp_cpu_drain(void)
{
}
