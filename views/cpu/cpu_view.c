/* cpu_view.c — the CPU profile: stacks sampled on each thread's CPU clock, in one section
 * (functions_cpu) with its folded stacks and flame graph. */
#include "core/view.h"
#include "cpu_profile.h"
#include "report/section.h"
#include "cpu_settings.h"

extern const struct hp_section hp_functions_cpu_section;
static const struct hp_section *const sections[] = { &hp_functions_cpu_section };

static void start(const struct hp_view_start *s)
{
    hp_cpu_start(s->self, s->signals);
}

const struct hp_view hp_cpu_view = {
    .name = "cpu",
    .start = start,
    .resolve = hp_resolve_cpu_masks,
    .thread_start = hp_cpu_thread_start,
    .thread_end = hp_cpu_thread_end,
    .fork_child = hp_cpu_fork_child,
    .sampler_pass = hp_cpu_drain,
    .settings = &hp_cpu_settings_table,
    .sections = sections,
    .nsections = 1,
};
