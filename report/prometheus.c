/* prometheus.c — `/metrics`: the process's own families, then each selected view's through its
 * section (report/section.h), so a new view's families appear without editing this file. */
#include "prometheus.h"

#include "core/clock.h"
#include "core/config.h"
#include "core/sampler.h"
#include "report.h"
#include "report_settings.h"
#include "section.h"

void hp_prometheus_render(struct hp_buf *out)
{
    struct hp_process_figures f;
    hp_sampler_figures(&f);
    hp_prom_family(out, "hotpath_uptime_seconds", "gauge", "Seconds since the profiled process (image) started.");
    hp_prom_double(out, "hotpath_uptime_seconds", "", (double)(hp_now_ns() - hp_report_start_ns()) / 1e9);
    hp_prom_family(out, "hotpath_rss_bytes", "gauge", "Resident set size of the process at the last sample.");
    hp_prom_u64(out, "hotpath_rss_bytes", "", f.rss_bytes);
    hp_prom_family(out, "hotpath_profiler_cpu_seconds_total", "counter", "CPU time of the profiler's sampler thread.");
    hp_prom_double(out, "hotpath_profiler_cpu_seconds_total", "", (double)f.profiler_cpu_ns / 1e9);
    HP_FOR_EACH_SECTION(s) {
        if (!s->prometheus || !(hp_report_settings.sections & hp_section_bit(s))) continue;
        void *snap = s->snapshot();
        if (!snap) continue;
        s->prometheus(snap, out);
        s->release(snap);
    }
}
