/* report_settings.c — HOTPATH_REPORT (see report_settings.h): "all", "threads,io",
 * "all,-threads", "-threads" (all but threads); "io-read" style text titles are taken too. */
#include "report_settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/hash.h"
#include "core/platform.h"
#include "core/view.h"
#include "section.h"

struct hp_report_settings hp_report_settings;

uint32_t hp_report_all_sections(void)
{
    uint32_t all = 0;
    HP_FOR_EACH_SECTION(s) all |= hp_section_bit(s);
    return all;
}

/* The bit of a section named by its key or an alias ('-' taken for '_'), or 0. */
static uint32_t named(const char *name, size_t len)
{
    char key[32];
    if (len == 0 || len >= sizeof key) return 0;
    for (size_t i = 0; i < len; i++) key[i] = name[i] == '-' ? '_' : name[i];
    key[len] = 0;
    HP_FOR_EACH_SECTION(s) {
        if (strcmp(key, s->key) == 0) return hp_section_bit(s);
        for (const char *const *a = s->aliases; a && *a; a++)
            if (strcmp(key, *a) == 0) return hp_section_bit(s);
    }
    return 0;
}

/* The list s as a mask: names a section's key or alias, "all", "-name" (every section but it when
 * first). A name no section has is left out and named in unknown (`"bogus", "x"`); 0, or -1
 * when the list itself is malformed (empty, an empty item, "-" or "-all"). */
static int parse_sections(const char *s, uint32_t *out, char *unknown, size_t size)
{
    const uint32_t all = hp_report_all_sections();
    uint32_t mask = 0;
    int first = 1, known = 0;
    size_t nu = 0;
    unknown[0] = 0;
    if (!*s) return -1;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        int minus = len > 0 && *s == '-';
        const char *name = s + minus;
        size_t nlen = len - (size_t)minus;
        if (nlen == 0 || (minus && nlen == 3 && strncmp(name, "all", 3) == 0)) return -1;
        if (!minus && nlen == 3 && strncmp(name, "all", 3) == 0) {
            mask = all;
            first = 0;
            known = 1;
        } else {
            uint32_t bit = named(name, nlen);
            if (!bit) {
                if (nu < size)
                    nu += (size_t)snprintf(unknown + nu, size - nu, "%s\"%.*s\"", nu ? ", " : "",
                                           nlen > 64 ? 64 : (int)nlen, name);
            } else {
                if (minus) mask = (first ? all : mask) & ~bit;
                else mask |= bit;
                first = 0;
                known = 1;
            }
        }
        if (!end) break;
        s = end + 1;
        if (!*s) return -1;
    }
    *out = known ? mask : all;
    return 0;
}

/* "all, threads, mutexes, ...": the names a list may hold, from the sections. */
static void names(char *text, size_t size)
{
    size_t n = (size_t)snprintf(text, size, "all");
    HP_FOR_EACH_SECTION(s)
        if (n < size) n += (size_t)snprintf(text + n, size - n, ", %s", s->key);
}

/* The mask as a list: "all", or the sections' keys joined by ','. */
static void mask_text(uint32_t mask, char *text, size_t size)
{
    size_t n = 0;
    text[0] = 0;
    if (mask == hp_report_all_sections()) {
        snprintf(text, size, "all");
        return;
    }
    HP_FOR_EACH_SECTION(s)
        if ((mask & hp_section_bit(s)) && n < size)
            n += (size_t)snprintf(text + n, size - n, "%s%s", n ? "," : "", s->key);
}

/* A malformed list keeps every section; names no section has are named and the others kept:
 *   hotpath: HOTPATH_REPORT: no section "bogus" (sections: all, threads, ...); using threads */
static int parse_report(const char *s, void *value, hp_warn_fn warn)
{
    uint32_t *sections = value;
    char unknown[160], list[256], text[768], using[256];   /* text holds the other three */
    *sections = hp_report_all_sections();
    if (!s) return 0;
    names(list, sizeof list);
    if (parse_sections(s, sections, unknown, sizeof unknown) != 0) {
        *sections = hp_report_all_sections();
        snprintf(text, sizeof text, "a list of sections (%s; -name removes one)", list);
        hp_settings_warn_bad(warn, "HOTPATH_REPORT", s, text, "all");
        return 0;
    }
    if (!unknown[0]) return 0;
    mask_text(*sections, using, sizeof using);
    snprintf(text, sizeof text, "hotpath: HOTPATH_REPORT: no section%s %s (sections: %s); using %s",
             strchr(unknown, ',') ? "s" : "", unknown, list, using);
    warn(text);
    return 0;
}

static const struct hp_setting rows[] = {
    { "HOTPATH_REPORT", HP_SETTING_CUSTOM, offsetof(struct hp_report_settings, sections), 0, 0, 0,
      NULL, NULL, "all", "the report's sections: all, a list such as threads,io, or all,-threads",
      parse_report },
};

const struct hp_settings_table hp_report_settings_table = {
    rows, sizeof rows / sizeof *rows, &hp_report_settings,
};

/* The pass's warnings wait until every table is parsed: only then is HOTPATH_RUN_DIR known. */
#define PENDING_MAX 16
static struct { char line[PENDING_MAX][512]; unsigned n; } pending;

static void hold_warning(const char *line)
{
    if (pending.n < PENDING_MAX) snprintf(pending.line[pending.n++], sizeof pending.line[0], "%s", line);
}

/* Under hotpath-run every process of a run has the same environment, and each would repeat the
 * same line: the first to make the marker file of a line in the run directory says it, the
 * others stay silent. 1: say it. */
static int first_in_run(const char *line)
{
    if (!hp_config.run_dir[0]) return 1;
    uint32_t h = hp_fnv1a(line, strlen(line), HP_FNV_BASIS);
    char path[4200];
    if (snprintf(path, sizeof path, "%s/.warned-%08x", hp_config.run_dir, (unsigned)h) >= (int)sizeof path)
        return 1;
    int fd = hp_platform_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return errno != EEXIST;
    hp_platform_close(fd);
    return 1;
}

void hp_settings_parse_all(hp_getenv_fn get, hp_warn_fn warn)
{
    struct hp_settings_pass pass = { .get = get, .warn = hold_warning };
    pending.n = 0;
    hp_settings_parse(&pass, &hp_config_settings);
    HP_FOR_EACH_VIEW(v)
        if (v->settings) hp_settings_parse(&pass, v->settings);
    hp_settings_parse(&pass, &hp_report_settings_table);
    int saved = errno;
    for (unsigned i = 0; i < pending.n; i++)
        if (first_in_run(pending.line[i])) warn(pending.line[i]);
    errno = saved;
}
