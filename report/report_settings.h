/* report_settings.h — the report's own setting, HOTPATH_REPORT: which sections it has. Their
 * names are the sections' keys (report/section.h), so a view's sections are known by name as
 * soon as its descriptor is in views/list.h. */
#ifndef HP_REPORT_SETTINGS_H
#define HP_REPORT_SETTINGS_H

#include <stdint.h>

#include "core/settings.h"

struct hp_report_settings {
    uint32_t sections;              /* HOTPATH_REPORT: a bit per section (hp_section_bit) */
};

extern struct hp_report_settings hp_report_settings;
extern const struct hp_settings_table hp_report_settings_table;

/* Every setting, in one pass (core/settings.h): the core's table, each view's (its descriptor's),
 * then the report's. At start, before any view's step. */
void hp_settings_parse_all(hp_getenv_fn get, hp_warn_fn warn);

/* Every section's bit. */
uint32_t hp_report_all_sections(void);

#endif
