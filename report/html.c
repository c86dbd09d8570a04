/* html.c — see html.h. Built like the report itself (profiler memory, no stdio), so it can be
 * written from the same exit and signal paths. */
#include "html.h"
#include "report_settings.h"
#include "section.h"

#include "core/clock.h"
#include "core/config.h"
#include "core/history.h"
#include "core/platform.h"
#include "core/sampler.h"
#if !defined(__APPLE__)   /* no CPU profile in the macOS build */
#include "flamegraph.h"
#endif
#include "format.h"
#include "history_json.h"
#include "html_assets.h"
#include "out_file.h"
#include "report.h"
#include "svg_chart.h"

static void header(struct hp_buf *out, const struct hp_history_snap *h, int has_history)
{
    struct hp_process_figures f;
    hp_sampler_figures(&f);
    char dur[HP_FMT_MAX], rss[HP_FMT_MAX], peak[HP_FMT_MAX];
    hp_fmt_duration(dur, hp_now_ns() - hp_report_start_ns());
    hp_fmt_bytes(rss, (int64_t)f.rss_bytes);
    hp_fmt_bytes(peak, (int64_t)f.peak_rss_bytes);
    hp_buf_puts(out, "<header><h1>hotpath report</h1><dl><dt>command</dt><dd id=\"command\">");
    struct hp_buf line = { 0 };
    hp_report_command_line(&line);      /* every argument, never cut */
    if (line.failed) out->failed = 1;
    hp_html_escape(out, line.data ? line.data : hp_report_command());
    hp_buf_free(&line);
    hp_buf_printf(out, "</dd><dt>pid</dt><dd id=\"pid\">%d</dd><dt>duration</dt><dd>%s</dd>"
                  "<dt>RSS</dt><dd>%s (peak %s)</dd>", hp_report_pid(), dur, rss, peak);
    if (hp_platform_watched_pid()) {
        char window[HP_FMT_MAX];
        hp_fmt_bytes(window, (int64_t)f.window_peak_rss_bytes);
        hp_buf_printf(out, "<dt>watched</dt><dd id=\"watched\">from outside (hotpath-run --pid), %s: the threads view only, "
                      "RSS peak while watched %s</dd>", hp_platform_target_ended() ? "until it ended" : "while it ran on", window);
    }
    if (has_history) {
        char res[HP_FMT_MAX];
        hp_fmt_duration(res, hp_history_resolution_ms(h) * 1000000u);
        hp_buf_printf(out, "<dt>time series</dt><dd>%u points at %s resolution; growth judged on %s</dd>",
                      h->set.ncols, res,
                      h->basis == HP_BASIS_LIVE ? "live bytes by allocating thread" : "each thread's Diff");
    }
    hp_buf_puts(out, "</dl></header>\n");
}

static void charts(struct hp_buf *out, const struct hp_history_snap *h)
{
    uint64_t start = hp_report_start_ns();
    hp_buf_puts(out, "<section id=\"cpu\"><h2>CPU% per thread</h2><figure>\n");
    hp_svg_cpu_chart(out, h, start);
    hp_buf_puts(out, "</figure></section>\n<section id=\"memory\"><h2>Diff per thread (stacked) and RSS</h2>"
                     "<div class=\"row\"><figure>\n");
    hp_svg_diff_chart(out, h, start);
    hp_buf_puts(out, "</figure><figure>\n");
    hp_svg_rss_chart(out, h, start);
    hp_buf_puts(out, "<figcaption>RSS of the process</figcaption></figure></div></section>\n");
}

/* Every section's tables on the page, empty: the script fills them from the report (their
 * columns: table_specs). */
static void tables(struct hp_buf *out)
{
    HP_FOR_EACH_SECTION(s)
        for (const struct hp_html_table *const *t = s->html_tables; t && *t; t++)
            hp_buf_printf(out, "<section><h2>%s</h2><table id=\"%s\" class=\"sortable\"></table></section>\n",
                          (*t)->title, (*t)->id);
}

/* The views that give folded stacks, each drawn as a flame graph when it has samples. */
static void flame_graphs(struct hp_buf *out)
{
    HP_FOR_EACH_SECTION(s) {
        if (!s->folded) continue;
        struct hp_buf folded = { 0 };
        if (s->folded(&folded) == 0 && folded.len) {
            hp_buf_printf(out, "<section id=\"%s\"><h2>%s flame graph</h2>\n", s->flame_id, s->flame_title);
            if (hp_flamegraph_svg(out, folded.data, folded.len, s->flame_title, s->flame_unit) != 0)
                hp_buf_puts(out, "<p class=\"absent\">No samples to draw.</p>");
            hp_buf_puts(out, "</section>\n");
        }
        hp_buf_free(&folded);
    }
}

/* JSON for the page's script, in a script element of its own: a '<' (only ever inside a string)
 * becomes \u003c, so no name can close the element. */
static void script_json(struct hp_buf *out, const char *id, const struct hp_buf *json)
{
    if (json->failed) out->failed = 1;
    hp_buf_printf(out, "<script type=\"application/json\" id=\"%s\">", id);
    for (size_t i = 0; i < json->len; i++) {
        if (json->data[i] == '<') hp_buf_puts(out, "\\u003c");
        else hp_buf_putc(out, json->data[i]);
    }
    hp_buf_puts(out, "</script>\n");
}

static void report_data(struct hp_buf *out)
{
    struct hp_buf json = { 0 };
    hp_report_render(&json, HP_FORMAT_JSON, hp_report_settings.sections);
    script_json(out, "report-data", &json);
    hp_buf_free(&json);
}

static void string_list(struct hp_json *j, const char *key, const char *const *list, unsigned max)
{
    hp_json_array_begin(j, key);
    for (unsigned i = 0; i < max && list[i]; i++) hp_json_string(j, NULL, list[i]);
    hp_json_array_end(j);
}

/* What the script builds each table from (section.h, struct hp_html_table): [{"id", "section"
 * (its key in the report), "rows", "modes", "when", "mark", "sort": [[field, "desc"|"asc"], ...],
 * "columns": [[title, field, format, when], ...]}, ...]. */
static void table_specs(struct hp_buf *out)
{
    struct hp_buf spec = { 0 };
    struct hp_json j;
    hp_json_init(&j, &spec, 0);
    hp_json_array_begin(&j, NULL);
    HP_FOR_EACH_SECTION(s)
        for (const struct hp_html_table *const *at = s->html_tables; at && *at; at++) {
            const struct hp_html_table *t = *at;
            hp_json_object_begin(&j, NULL);
            hp_json_string(&j, "id", t->id);
            hp_json_string(&j, "section", s->key);
            hp_json_string(&j, "rows", t->rows);
            string_list(&j, "modes", t->modes, sizeof t->modes / sizeof *t->modes);
            string_list(&j, "when", t->when, sizeof t->when / sizeof *t->when);
            if (t->mark) hp_json_string(&j, "mark", t->mark);
            else hp_json_null(&j, "mark");
            hp_json_array_begin(&j, "sort");
            for (unsigned k = 0; k < HP_HTML_KEYS && t->sort[k].field; k++) {
                hp_json_array_begin(&j, NULL);
                hp_json_string(&j, NULL, t->sort[k].field);
                hp_json_string(&j, NULL, t->sort[k].desc ? "desc" : "asc");
                hp_json_array_end(&j);
            }
            hp_json_array_end(&j);
            hp_json_array_begin(&j, "columns");
            for (unsigned c = 0; c < HP_HTML_COLUMNS && t->columns[c].title; c++) {
                hp_json_array_begin(&j, NULL);
                hp_json_string(&j, NULL, t->columns[c].title);
                hp_json_string(&j, NULL, t->columns[c].field);
                if (t->columns[c].format) hp_json_string(&j, NULL, t->columns[c].format);
                else hp_json_null(&j, NULL);
                if (t->columns[c].when) hp_json_string(&j, NULL, t->columns[c].when);
                hp_json_array_end(&j);
            }
            hp_json_array_end(&j);
            hp_json_object_end(&j);
        }
    hp_json_array_end(&j);
    script_json(out, "table-specs", &spec);
    hp_buf_free(&spec);
}

void hp_html_render(struct hp_buf *out)
{
    struct hp_history_snap h;
    int has_history = hp_history_snapshot(&h, 1) == 0;
    hp_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta name=\"viewport\" content=\"width=device-width\"><title>hotpath: ");
    hp_html_escape(out, hp_report_command());
    hp_buf_printf(out, " (pid %d)</title>\n<style>\n", hp_report_pid());
    hp_buf_puts(out, hp_html_css);
    hp_buf_puts(out, "</style></head>\n<body>\n");
    header(out, &h, has_history);
    if (has_history) charts(out, &h);
    else hp_buf_puts(out, "<p class=\"absent\">No time series (HOTPATH_HISTORY_MB=0).</p>\n");
    tables(out);
    flame_graphs(out);
    report_data(out);
    table_specs(out);
    hp_buf_puts(out, "<script>\n");
    hp_buf_puts(out, hp_html_js);
    hp_buf_puts(out, "</script>\n</body></html>\n");
    if (has_history) hp_history_release(&h);
}

void hp_html_write(int pid, unsigned image)
{
    if (!hp_config.html_path[0]) return;
    struct hp_buf page = { 0 };
    hp_html_render(&page);
    if (page.failed || !page.data) {
        static const char msg[] = "hotpath: out of memory making the HTML report; none written\n";
        hp_buf_free(&page);
        hp_platform_write_all(2, msg, sizeof msg - 1);
        return;
    }
    hp_out_file_write(hp_config.html_path, "HOTPATH_HTML_PATH", "HTML report", pid, image, page.data, page.len);
    hp_buf_free(&page);
}
