/* watch.c — the library in hotpath-run --pid's watcher: launcher/watch.c re-execs itself with
 * libhotpath.so preloaded and HOTPATH_WATCH_PID set, and from here on the sampler, the report
 * and the live server are of that process, read from /proc/PID (core/platform.h); the watcher's
 * own thread is in none of them. Nothing is done to the watched process: no signal, no ptrace,
 * no file of its. Linux only. */
#define _GNU_SOURCE
#include "process.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/memory.h"
#include "core/platform.h"
#include "core/registry.h"
#include "report/report.h"
#include "report/report_settings.h"
#include "report/section.h"

/* The watched process's command line as argv: words of raw (NUL-separated, read into the
 * profiler's heap), which hp_report_begin copies; 0 words when it has none (a zombie). */
static int split_argv(char *raw, long n, char ***argv)
{
    int argc = 0;
    for (long i = 0; i < n; i++) argc += raw[i] == 0 || i == n - 1;
    *argv = argc ? hp_alloc((size_t)argc * sizeof **argv) : NULL;
    if (!*argv) return 0;
    int k = 0;
    for (long i = 0; i < n && k < argc; i += (long)strnlen(raw + i, (size_t)(n - i)) + 1) (*argv)[k++] = raw + i;
    return k;
}

int hp_watch_begin(struct hp_thread *self)
{
    int pid = (int)hp_config.watch_pid;
    if (pid == getpid() || hp_platform_watch(pid) != 0) return -1;
    enum { CMDLINE_MAX = 65536 };
    char *raw = hp_alloc(CMDLINE_MAX), **argv = NULL;
    long n = raw ? hp_platform_cmdline(raw, CMDLINE_MAX) : -1;
    int argc = n > 0 ? split_argv(raw, n, &argv) : 0;
    hp_report_begin(self->record, pid, argc, argv);
    hp_free(argv);
    hp_free(raw);
    hp_registry_hide(self);
    /* the threads view is the one a process seen from outside has */
    const struct hp_section *threads = hp_section_find("threads");
    hp_report_settings.sections &= threads ? hp_section_bit(threads) : 0;
    return 0;
}
