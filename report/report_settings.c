/* report_settings.c — HOTPATH_REPORT (see report_settings.h): "all", "threads,io",
 * "all,-threads", "-threads" (all but threads); "io-read" style text titles are taken too. */
#include "report_settings.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
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

static int parse_sections(const char *s, uint32_t *out)
{
    const uint32_t all = hp_report_all_sections();
    uint32_t mask = 0;
    int first = 1;
    if (!*s) return -1;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        int minus = len > 0 && *s == '-';
        const char *name = s + minus;
        size_t nlen = len - (size_t)minus;
        if (!minus && nlen == 3 && strncmp(name, "all", 3) == 0) {
            mask = all;
        } else {
            uint32_t bit = named(name, nlen);
            if (!bit) return -1;
            if (minus) mask = (first ? all : mask) & ~bit;
            else mask |= bit;
        }
        first = 0;
        if (!end) break;
        s = end + 1;
        if (!*s) return -1;
    }
    *out = mask;
    return 0;
}

/* "a list of sections (all, threads, mutexes, ...; -name removes one)", from the sections. */
static void expected(char *text, size_t size)
{
    size_t n = (size_t)snprintf(text, size, "a list of sections (all");
    HP_FOR_EACH_SECTION(s)
        if (n < size) n += (size_t)snprintf(text + n, size - n, ", %s", s->key);
    if (n < size) snprintf(text + n, size - n, "; -name removes one)");
}

/* A list that does not parse keeps every section, and says which names there are. */
static int parse_report(const char *s, void *value, hp_warn_fn warn)
{
    uint32_t *sections = value;
    *sections = hp_report_all_sections();
    if (!s || parse_sections(s, sections) == 0) return 0;
    char text[512];
    expected(text, sizeof text);
    hp_settings_warn_bad(warn, "HOTPATH_REPORT", s, text, "all");
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

void hp_settings_parse_all(hp_getenv_fn get, hp_warn_fn warn)
{
    struct hp_settings_pass pass = { .get = get, .warn = warn };
    hp_settings_parse(&pass, &hp_config_settings);
    HP_FOR_EACH_VIEW(v)
        if (v->settings) hp_settings_parse(&pass, v->settings);
    hp_settings_parse(&pass, &hp_report_settings_table);
}
