/* test_flamegraph.c — report/flamegraph.h against known folded input: one rect per frame with the
 * width its count gives, names escaped, narrow frames left out, colours fixed by the name, and an
 * SVG that python's xml.etree parses. */
#include <stdlib.h>
#include <unistd.h>

#include "report/flamegraph.h"
#include "unit.h"

static const char known[] =
    "main;parse;strlen 40\n"
    "main;work 20\n"
    "not a folded line\n"
    "main;parse 10\r\n"
    "main;tpl<int>&\"q\" 20\n"
    "main;zero 0\n"
    "main;work 10";

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* the <g> of one frame, by its hover title */
static const char *frame(const char *svg, const char *title)
{
    char want[256];
    snprintf(want, sizeof want, "<g><title>%s", title);
    const char *g = strstr(svg, want);
    ck_assert_msg(g != NULL, "no frame %s", title);
    return g;
}

static void assert_width(const char *svg, const char *title, const char *width)
{
    const char *w = strstr(frame(svg, title), "width=\"");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(strncmp(w + 7, width, strlen(width)), 0);
}

START_TEST(one_rect_per_frame)
{
    struct hp_buf b = { 0 };
    ck_assert_int_eq(hp_flamegraph_svg(&b, known, strlen(known), "CPU <demo>", HP_FLAME_SAMPLES), 0);
    ck_assert_int_eq(b.failed, 0);
    /* all, main, parse, strlen, work, tpl<int>&"q": the line with count 0 and the one without a
     * count are skipped, the two `main;work` lines summed */
    ck_assert_int_eq(count(b.data, "<rect"), 6);
    ck_assert_int_eq(count(b.data, "<title>"), 6);
    ck_assert_ptr_nonnull(strstr(b.data, ">CPU &lt;demo&gt;</text>"));
    /* 1180 px for 100 counts */
    assert_width(b.data, "all (100 samples, 100.0%)", "1180.00\"");
    assert_width(b.data, "main (100 samples, 100.0%)", "1180.00\"");
    assert_width(b.data, "parse (50 samples, 50.0%)", "590.00\"");
    assert_width(b.data, "strlen (40 samples, 40.0%)", "472.00\"");
    assert_width(b.data, "work (30 samples, 30.0%)", "354.00\"");
    assert_width(b.data, "tpl&lt;int&gt;&amp;&quot;q&quot; (20 samples, 20.0%)", "236.00\"");
    ck_assert_ptr_null(strstr(b.data, "<int>"));
    ck_assert_ptr_null(strstr(b.data, "zero"));
    /* the root at the bottom, a child one row above its parent */
    ck_assert_ptr_nonnull(strstr(frame(b.data, "all ("), "y=\"88\""));
    ck_assert_ptr_nonnull(strstr(frame(b.data, "main ("), "y=\"72\""));
    ck_assert_ptr_nonnull(strstr(frame(b.data, "strlen ("), "y=\"40\""));
    /* siblings in name order: parse where main starts, then tpl<..> after parse's 50, then work */
    ck_assert_ptr_nonnull(strstr(frame(b.data, "parse ("), "x=\"10.00\""));
    ck_assert_ptr_nonnull(strstr(frame(b.data, "tpl&lt;"), "x=\"600.00\""));
    ck_assert_ptr_nonnull(strstr(frame(b.data, "work ("), "x=\"836.00\""));
    hp_buf_free(&b);
}
END_TEST

START_TEST(colours_follow_the_name)
{
    struct hp_buf a = { 0 }, b = { 0 };
    static const char other[] = "zzz;work 3\nmain;x 1\n";
    ck_assert_int_eq(hp_flamegraph_svg(&a, known, strlen(known), NULL, HP_FLAME_SAMPLES), 0);
    ck_assert_int_eq(hp_flamegraph_svg(&b, other, strlen(other), NULL, HP_FLAME_SAMPLES), 0);
    const char *fa = strstr(frame(a.data, "work ("), "fill=\"");
    const char *fb = strstr(frame(b.data, "work ("), "fill=\"");
    ck_assert_int_eq(strncmp(fa, fb, strcspn(fa, "/")), 0);
    hp_buf_free(&a);
    hp_buf_free(&b);
}
END_TEST

START_TEST(narrow_frames_left_out)
{
    struct hp_buf b = { 0 };
    static const char in[] = "wide 10000000\nthin;thinner 1\n";
    ck_assert_int_eq(hp_flamegraph_svg(&b, in, strlen(in), "t", HP_FLAME_SAMPLES), 0);
    ck_assert_int_eq(count(b.data, "<rect"), 2);   /* all, wide */
    ck_assert_ptr_null(strstr(b.data, "thin"));
    hp_buf_free(&b);
}
END_TEST

START_TEST(nothing_to_draw)
{
    struct hp_buf b = { 0 };
    ck_assert_int_eq(hp_flamegraph_svg(&b, "", 0, "t", HP_FLAME_SAMPLES), -1);
    static const char junk[] = "no count here\nzero 0\n 5\n";
    ck_assert_int_eq(hp_flamegraph_svg(&b, junk, strlen(junk), "t", HP_FLAME_SAMPLES), -1);
    hp_buf_free(&b);
}
END_TEST

START_TEST(bad_bytes_stay_well_formed)
{
    struct hp_buf b = { 0 };
    static const char in[] = "ma\xffin;\001ctl;caf\xc3\xa9 7\n";
    ck_assert_int_eq(hp_flamegraph_svg(&b, in, strlen(in), "t\xfe", HP_FLAME_SAMPLES), 0);
    ck_assert_ptr_nonnull(strstr(b.data, "ma\xef\xbf\xbdin ("));
    ck_assert_ptr_nonnull(strstr(b.data, "?ctl ("));
    ck_assert_ptr_nonnull(strstr(b.data, "caf\xc3\xa9 ("));
    hp_buf_free(&b);
}
END_TEST

/* python's XML parser reads it, and finds the rects the input has frames */
START_TEST(python_parses_it)
{
    if (access("/usr/bin/python3", X_OK) != 0) return;
    struct hp_buf b = { 0 };
    ck_assert_int_eq(hp_flamegraph_svg(&b, known, strlen(known), "CPU & more", HP_FLAME_SAMPLES), 0);
    char path[] = "/tmp/hotpath-flamegraph-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b.data, b.len), (ssize_t)b.len);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; "
             "r = E.parse(sys.argv[1]).getroot(); "
             "sys.exit(0 if r.tag.endswith(\"svg\") and len(r.findall(\".//{http://www.w3.org/2000/svg}rect\")) == 6 else 3)' %s",
             path);
    int rc = system(cmd);
    unlink(path);
    ck_assert_int_eq(rc, 0);
    hp_buf_free(&b);
}
END_TEST

START_TEST(shares_are_rounded)
{
    /* 1 of 29 is 3.448%, 12 of 29 is 41.379%: rounded as the text's percentages */
    static const char thirds[] = "main;a 1\nmain;b 12\nmain;c 16\n";
    struct hp_buf b = { 0 };
    ck_assert_int_eq(hp_flamegraph_svg(&b, thirds, strlen(thirds), "CPU", HP_FLAME_SAMPLES), 0);
    frame(b.data, "a (1 sample, 3.4%)");
    frame(b.data, "b (12 samples, 41.4%)");
    frame(b.data, "c (16 samples, 55.2%)");
    hp_buf_free(&b);
}
END_TEST

/* allocation graphs count bytes: their titles in the text's units, not raw counts */
START_TEST(bytes_in_human_units)
{
    static const char in[] = "main;parse 150852697\nmain;other 50000000\n";
    struct hp_buf b = { 0 };
    ck_assert_int_eq(hp_flamegraph_svg(&b, in, strlen(in), "Allocations", HP_FLAME_BYTES), 0);
    frame(b.data, "parse (143.9 MB, 75.1%)");
    frame(b.data, "other (47.7 MB, 24.9%)");
    ck_assert_ptr_null(strstr(b.data, "150852697"));
    hp_buf_free(&b);
}
END_TEST

/* the zoom and search script is inline (no network) and the controls it works are there */
START_TEST(carries_its_script)
{
    struct hp_buf b = { 0 };
    ck_assert_int_eq(hp_flamegraph_svg(&b, known, strlen(known), "CPU", HP_FLAME_SAMPLES), 0);
    ck_assert_ptr_nonnull(strstr(b.data, "<script type=\"text/ecmascript\"><![CDATA["));
    ck_assert_ptr_nonnull(strstr(b.data, ">Reset zoom</text>"));
    ck_assert_ptr_nonnull(strstr(b.data, ">Search</text>"));
    ck_assert_int_eq(count(b.data, "]]>"), 1);
    ck_assert_ptr_null(strstr(b.data, "src="));
    hp_buf_free(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("flamegraph");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, one_rect_per_frame);
    HP_ADD(tc, shares_are_rounded);
    HP_ADD(tc, colours_follow_the_name);
    HP_ADD(tc, narrow_frames_left_out);
    HP_ADD(tc, nothing_to_draw);
    HP_ADD(tc, bad_bytes_stay_well_formed);
    HP_ADD(tc, python_parses_it);
    HP_ADD(tc, bytes_in_human_units);
    HP_ADD(tc, carries_its_script);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
