/* test_text.c — the text side of the report: report/utf8.h, report/buf.h, report/table.h,
 * report/json.h, and core/sort.h. */
#include "core/sort.h"
#include "report/buf.h"
#include "report/json.h"
#include "report/table.h"
#include "report/utf8.h"
#include "unit.h"

#define REPL "\xEF\xBF\xBD"        /* U+FFFD REPLACEMENT CHARACTER */

/* Compare a rendering with the expected text, showing both whole on failure. */
#define ASSERT_TEXT(got, want)                                                                 \
    do {                                                                                       \
        const char *g_ = (got) ? (got) : "(null)", *w_ = (want);                               \
        ck_assert_msg(strcmp(g_, w_) == 0, "got:\n%s\nwant:\n%s", g_, w_);                     \
    } while (0)

/* ================= utf8 ================= */

/* Decode bytes (copied to an exact-size heap buffer, so over-reads are caught). */
static size_t decode(const char *bytes, size_t len, uint32_t *cp)
{
    unsigned char *b = (unsigned char *)hp_unit_exact(bytes, len);
    *cp = 0x12345678;
    size_t n = hp_utf8_decode(b, len, cp);
    free(b);
    return n;
}

START_TEST(utf8_decode_valid)
{
    static const struct { const char *s; size_t len; uint32_t cp; } cases[] = {
        { "A", 1, 0x41 },
        { "\x7F", 1, 0x7F },
        { "\xC2\x80", 2, 0x80 },                 /* smallest 2-byte */
        { "\xC3\xA9", 2, 0xE9 },                 /* é */
        { "\xDF\xBF", 2, 0x7FF },                /* largest 2-byte */
        { "\xE0\xA0\x80", 3, 0x800 },            /* smallest 3-byte */
        { "\xE2\x82\xAC", 3, 0x20AC },           /* € */
        { "\xE4\xB8\xAD", 3, 0x4E2D },           /* 中 */
        { "\xED\x9F\xBF", 3, 0xD7FF },           /* just below the surrogates */
        { "\xEE\x80\x80", 3, 0xE000 },           /* just above them */
        { "\xEF\xBF\xBD", 3, 0xFFFD },
        { "\xEF\xBF\xBF", 3, 0xFFFF },
        { "\xF0\x90\x80\x80", 4, 0x10000 },      /* smallest 4-byte */
        { "\xF0\x9F\x98\x80", 4, 0x1F600 },      /* 😀 */
        { "\xF4\x8F\xBF\xBF", 4, 0x10FFFF },     /* largest code point */
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t cp;
        size_t n = decode(cases[i].s, cases[i].len, &cp);
        ck_assert_msg(n == cases[i].len && cp == cases[i].cp,
                      "case %u: consumed %zu, U+%04X; want %zu, U+%04X", i, n, (unsigned)cp,
                      cases[i].len, (unsigned)cases[i].cp);
    }
    /* only one code point is consumed when more follow */
    uint32_t cp;
    ck_assert_uint_eq(decode("\xC3\xA9xyz", 5, &cp), 2);
    ck_assert_uint_eq(cp, 0xE9);
    ck_assert_uint_eq(decode("ab", 2, &cp), 1);
    ck_assert_uint_eq(cp, 'a');
}
END_TEST

START_TEST(utf8_decode_invalid)
{
    /* each: U+FFFD, one byte consumed */
    static const struct { const char *s; size_t len; const char *why; } cases[] = {
        { "\x80", 1, "lone continuation" },
        { "\xBF", 1, "lone continuation" },
        { "\xC0\x80", 2, "overlong NUL" },
        { "\xC1\xBF", 2, "overlong 2-byte" },
        { "\xE0\x80\x80", 3, "overlong 3-byte" },
        { "\xE0\x9F\xBF", 3, "overlong 3-byte (U+07FF)" },
        { "\xF0\x80\x80\x80", 4, "overlong 4-byte" },
        { "\xF0\x8F\xBF\xBF", 4, "overlong 4-byte (U+FFFF)" },
        { "\xED\xA0\x80", 3, "surrogate U+D800" },
        { "\xED\xBF\xBF", 3, "surrogate U+DFFF" },
        { "\xED\xB2\x80", 3, "surrogate U+DC80" },
        { "\xF4\x90\x80\x80", 4, "above U+10FFFF" },
        { "\xF5\x80\x80\x80", 4, "F5 lead" },
        { "\xF8\x88\x80\x80\x80", 5, "5-byte form" },
        { "\xFE", 1, "FE" },
        { "\xFF", 1, "FF" },
        { "\xC3", 1, "truncated 2-byte" },
        { "\xE2\x82", 2, "truncated 3-byte" },
        { "\xE2", 1, "truncated 3-byte" },
        { "\xF0\x9F\x98", 3, "truncated 4-byte" },
        { "\xC3\x41", 2, "ASCII where a continuation belongs" },
        { "\xE2\x28\xA1", 3, "bad second byte" },
        { "\xE2\x82\x28", 3, "bad third byte" },
        { "\xF0\x9F\x98\xC3", 4, "bad fourth byte" },
        { "\xC3\xC3", 2, "lead where a continuation belongs" },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t cp;
        size_t n = decode(cases[i].s, cases[i].len, &cp);
        ck_assert_msg(n == 1 && cp == 0xFFFD, "%s (case %u): consumed %zu, U+%04X", cases[i].why,
                      i, n, (unsigned)cp);
    }
    /* the length given bounds the sequence, even if the bytes after it would complete it */
    uint32_t cp;
    ck_assert_uint_eq(decode("\xE2\x82\xAC", 2, &cp), 1);
    ck_assert_uint_eq(cp, 0xFFFD);
}
END_TEST

START_TEST(utf8_encode_roundtrip)
{
    static const struct { uint32_t cp; const char *bytes; size_t n; } cases[] = {
        { 0x41, "A", 1 },          { 0x7F, "\x7F", 1 },         { 0x80, "\xC2\x80", 2 },
        { 0xE9, "\xC3\xA9", 2 },   { 0x7FF, "\xDF\xBF", 2 },    { 0x800, "\xE0\xA0\x80", 3 },
        { 0xFFFD, REPL, 3 },       { 0xFFFF, "\xEF\xBF\xBF", 3 },
        { 0x10000, "\xF0\x90\x80\x80", 4 },                     { 0x1F600, "\xF0\x9F\x98\x80", 4 },
        { 0x10FFFF, "\xF4\x8F\xBF\xBF", 4 },
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[4];
        size_t n = hp_utf8_encode(cases[i].cp, out);
        ck_assert_uint_eq(n, cases[i].n);
        ck_assert_mem_eq(out, cases[i].bytes, n);
        uint32_t back;
        ck_assert_uint_eq(decode(out, n, &back), n);
        ck_assert_uint_eq(back, cases[i].cp);
    }
}
END_TEST

START_TEST(utf8_widths)
{
    ck_assert_int_eq(hp_codepoint_width('A'), 1);
    ck_assert_int_eq(hp_codepoint_width(' '), 1);
    ck_assert_int_eq(hp_codepoint_width(0xE9), 1);      /* é */
    ck_assert_int_eq(hp_codepoint_width(0x3B1), 1);     /* α */
    ck_assert_int_eq(hp_codepoint_width(0xFFFD), 1);
    ck_assert_int_eq(hp_codepoint_width(0x4E2D), 2);    /* 中 */
    ck_assert_int_eq(hp_codepoint_width(0x3042), 2);    /* あ */
    ck_assert_int_eq(hp_codepoint_width(0xAC00), 2);    /* 가 */
    ck_assert_int_eq(hp_codepoint_width(0xFF21), 2);    /* fullwidth A */
    ck_assert_int_eq(hp_codepoint_width(0x1F600), 2);   /* 😀 */
    ck_assert_int_eq(hp_codepoint_width(0x20000), 2);   /* CJK extension B */
    ck_assert_int_eq(hp_codepoint_width(0x0301), 0);    /* combining acute */
    ck_assert_int_eq(hp_codepoint_width(0x02FF), 1);    /* just before the combining block */
    ck_assert_int_eq(hp_codepoint_width(0x0300), 0);
    ck_assert_int_eq(hp_codepoint_width(0x036F), 0);
    ck_assert_int_eq(hp_codepoint_width(0x200B), 0);    /* zero width space */
    ck_assert_int_eq(hp_codepoint_width(0xFE0F), 0);    /* variation selector */
    ck_assert_int_eq(hp_codepoint_width(0x0370), 1);    /* just past the combining block */
}
END_TEST

START_TEST(utf8_string_widths)
{
    ck_assert_uint_eq(hp_utf8_width(""), 0);
    ck_assert_uint_eq(hp_utf8_width("main"), 4);
    ck_assert_uint_eq(hp_utf8_width("caf\xC3\xA9"), 4);                 /* 5 bytes */
    ck_assert_uint_eq(hp_utf8_width("cafe\xCC\x81"), 4);                /* e + combining */
    ck_assert_uint_eq(hp_utf8_width("\xE4\xB8\xAD\xE6\x96\x87"), 4);    /* 中文, 6 bytes */
    ck_assert_uint_eq(hp_utf8_width("a\xF0\x9F\x98\x80" "b"), 4);
    ck_assert_uint_eq(hp_utf8_width("\xFF\xFE"), 2);                    /* one U+FFFD each */
    ck_assert_uint_eq(hp_utf8_width("\xE4\xB8"), 2);                    /* truncated: 2 bytes */
    ck_assert_uint_eq(hp_utf8_width("x\xC0\xAFy"), 4);                  /* overlong '/' */
}
END_TEST

/* ================= buf ================= */

START_TEST(buf_appends)
{
    HP_MEM_MARK();
    struct hp_buf b = { 0 };
    hp_buf_puts(&b, "threads");
    hp_buf_putc(&b, ':');
    hp_buf_put(&b, " 12345", 3);
    hp_buf_printf(&b, "[%d|%s|%llu]", -7, "x", 18446744073709551615ULL);
    ck_assert_uint_eq(b.len, strlen(b.data));
    ck_assert_str_eq(b.data, "threads: 12[-7|x|18446744073709551615]");
    ck_assert_int_eq(b.failed, 0);
    hp_buf_free(&b);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(b.cap, 0);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(buf_embedded_nul)
{
    struct hp_buf b = { 0 };
    hp_buf_put(&b, "a\0b", 3);
    ck_assert_uint_eq(b.len, 3);
    ck_assert_mem_eq(b.data, "a\0b", 4);    /* and terminated */
    hp_buf_free(&b);
}
END_TEST

START_TEST(buf_grows)
{
    HP_MEM_MARK();
    struct hp_buf b = { 0 };
    for (int i = 0; i < 5000; i++) hp_buf_printf(&b, "%04d,", i);
    ck_assert_int_eq(b.failed, 0);
    ck_assert_uint_eq(b.len, 5000 * 5);
    ck_assert_uint_gt(b.cap, b.len);
    for (int i = 0; i < 5000; i += 499) {
        char want[16];
        snprintf(want, sizeof want, "%04d,", i);
        ck_assert_mem_eq(b.data + i * 5, want, 5);
    }
    ck_assert_int_eq(b.data[b.len], 0);
    hp_buf_free(&b);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(buf_printf_longer_than_stack_buffer)
{
    HP_MEM_MARK();
    char big[1500];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = 0;
    struct hp_buf b = { 0 };
    hp_buf_puts(&b, "<");
    hp_buf_printf(&b, "%s|%d", big, 42);
    hp_buf_puts(&b, ">");
    ck_assert_uint_eq(b.len, 1 + 1499 + 3 + 1);
    ck_assert_uint_eq(strlen(b.data), b.len);
    ck_assert_int_eq(b.data[0], '<');
    ck_assert_int_eq(b.data[1], 'q');
    ck_assert_int_eq(b.data[1499], 'q');
    ck_assert_str_eq(b.data + 1500, "|42>");
    hp_buf_free(&b);
    HP_MEM_CHECK();
}
END_TEST

/* ================= table ================= */

static void render(const struct hp_table *t, struct hp_buf *out)
{
    hp_table_render(t, out);
    ck_assert_int_eq(out->failed, 0);
    ck_assert_ptr_nonnull(out->data);
}

START_TEST(utf8_keep_end)
{
    char out[128];
    hp_utf8_keep_end("/usr/lib/python3.11/__pycache__/typing.cpython-311.pyc", 36, out, sizeof out);
    ck_assert_str_eq(out, "\xE2\x80\xA6/__pycache__/typing.cpython-311.pyc");
    ck_assert_uint_eq(hp_utf8_width(out), 36);
    hp_utf8_keep_end("short", 5, out, sizeof out);
    ck_assert_str_eq(out, "short");
    hp_utf8_keep_end("short", 40, out, sizeof out);
    ck_assert_str_eq(out, "short");
    hp_utf8_keep_end("abcdef", 1, out, sizeof out);
    ck_assert_str_eq(out, "\xE2\x80\xA6");
    /* wide characters: never half of one, the width never over */
    hp_utf8_keep_end("\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97", 4, out, sizeof out);   /* 中文字: 6 columns */
    ck_assert_str_eq(out, "\xE2\x80\xA6\xE5\xAD\x97");
    ck_assert_uint_le(hp_utf8_width(out), 4);
}
END_TEST

START_TEST(table_fits_width_keeping_ends)
{
    HP_MEM_MARK();
    static const char *const headers[] = { "Resource", "Kind" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    hp_table_add_row(&t, (const char *const[]){ "/usr/lib/python3.11/__pycache__/typing.cpython-311.pyc", "file" });
    hp_table_add_row(&t, (const char *const[]){ "pipe:[42]", "pipe" });
    unsigned was = hp_table_width;
    hp_table_width = 30;
    struct hp_buf out = { 0 };
    render(&t, &out);
    hp_table_width = was;
    ASSERT_TEXT(out.data,
                "+---------------------+------+\n"
                "| Resource            | Kind |\n"
                "+---------------------+------+\n"
                "| \xE2\x80\xA6ng.cpython-311.pyc | file |\n"
                "+---------------------+------+\n"
                "| pipe:[42]           | pipe |\n"
                "+---------------------+------+\n");
    hp_buf_free(&out);
    /* a narrow limit: no column below its header or 12 columns */
    hp_table_width = 10;
    render(&t, &out);
    hp_table_width = was;
    ck_assert(strncmp(out.data, "+--------------+------+\n", 24) == 0);
    hp_buf_free(&out);
    /* 0: no limit */
    hp_table_width = 0;
    render(&t, &out);
    hp_table_width = was;
    ck_assert(strstr(out.data, "| /usr/lib/python3.11/__pycache__/typing.cpython-311.pyc | file |") != NULL);
    hp_buf_free(&out);
    hp_table_free(&t);
    HP_MEM_CHECK();
}
END_TEST

static unsigned pick(unsigned n, unsigned limit, unsigned a, unsigned b, char *text)
{
    unsigned out[32], keep[2] = { a, b };
    unsigned shown = hp_table_pick_rows(n, limit, keep, 2, out);
    text[0] = 0;
    for (unsigned i = 0; i < shown; i++) sprintf(text + strlen(text), "%s%u", i ? "," : "", out[i]);
    return shown;
}

START_TEST(table_pick_rows_keeps_asked_rows)
{
    char text[128];
    ck_assert_uint_eq(pick(9, 5, 8, 0, text), 5);
    ck_assert_str_eq(text, "0,1,2,3,8");           /* the spinner, last by Alloc, replaces row 4 */
    pick(9, 5, 8, 6, text);
    ck_assert_str_eq(text, "0,1,2,6,8");
    pick(9, 5, 4, 7, text);                        /* row 4 is asked for: row 3 gives way */
    ck_assert_str_eq(text, "0,1,2,4,7");
    pick(9, 5, 2, 3, text);
    ck_assert_str_eq(text, "0,1,2,3,4");
    pick(9, 5, 7, 7, text);
    ck_assert_str_eq(text, "0,1,2,3,7");
    pick(9, 0, 8, 7, text);                        /* no limit: every row */
    ck_assert_str_eq(text, "0,1,2,3,4,5,6,7,8");
    pick(3, 5, 2, 1, text);
    ck_assert_str_eq(text, "0,1,2");
    pick(9, 1, 8, 7, text);                        /* room for one: the first asked */
    ck_assert_str_eq(text, "8");
    pick(9, 2, 8, 7, text);
    ck_assert_str_eq(text, "7,8");
}
END_TEST

START_TEST(table_reference_layout)
{
    HP_MEM_MARK();
    static const char *const headers[] = { "Thread", "Status" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    hp_table_add_row(&t, (const char *const[]){ "main", "Running" });
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+--------+---------+\n"
                "| Thread | Status  |\n"
                "+--------+---------+\n"
                "| main   | Running |\n"
                "+--------+---------+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(table_two_rows)
{
    HP_MEM_MARK();
    static const char *const headers[] = { "Thread", "Status" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    hp_table_add_row(&t, (const char *const[]){ "main", "Running" });
    hp_table_add_row(&t, (const char *const[]){ "worker-1", "Sleeping" });
    ck_assert_uint_eq(t.nrows, 2);
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+----------+----------+\n"
                "| Thread   | Status   |\n"
                "+----------+----------+\n"
                "| main     | Running  |\n"
                "+----------+----------+\n"
                "| worker-1 | Sleeping |\n"
                "+----------+----------+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(table_no_rows)
{
    static const char *const headers[] = { "Thread", "CPU", "Allocated" };
    struct hp_table t;
    hp_table_init(&t, 3, headers);
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+--------+-----+-----------+\n"
                "| Thread | CPU | Allocated |\n"
                "+--------+-----+-----------+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
}
END_TEST

START_TEST(table_appends_to_buffer)
{
    static const char *const headers[] = { "A" };
    struct hp_table t;
    hp_table_init(&t, 1, headers);
    hp_table_add_row(&t, (const char *const[]){ "bb" });
    struct hp_buf out = { 0 };
    hp_buf_puts(&out, "threads (1/3)\n");
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "threads (1/3)\n"
                "+----+\n"
                "| A  |\n"
                "+----+\n"
                "| bb |\n"
                "+----+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
}
END_TEST

START_TEST(table_widths_in_display_columns)
{
    HP_MEM_MARK();
    static const char *const headers[] = { "Name", "Value" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    hp_table_add_row(&t, (const char *const[]){ "caf\xC3\xA9", "1" });            /* 5 bytes */
    hp_table_add_row(&t, (const char *const[]){ "cafe\xCC\x81", "22" });          /* 6 bytes */
    hp_table_add_row(&t, (const char *const[]){ "\xE4\xB8\xAD\xE6\x96\x87", "333" }); /* 中文 */
    hp_table_add_row(&t, (const char *const[]){ "ab", "4444" });
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+------+-------+\n"
                "| Name | Value |\n"
                "+------+-------+\n"
                "| caf\xC3\xA9 | 1     |\n"
                "+------+-------+\n"
                "| cafe\xCC\x81 | 22    |\n"
                "+------+-------+\n"
                "| \xE4\xB8\xAD\xE6\x96\x87 | 333   |\n"
                "+------+-------+\n"
                "| ab   | 4444  |\n"
                "+------+-------+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(table_wide_cell_sets_width)
{
    static const char *const headers[] = { "K", "V" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    hp_table_add_row(&t, (const char *const[]){ "\xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97", "x" });
    hp_table_add_row(&t, (const char *const[]){ "k", "\xC3\xA9t\xC3\xA9" });
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+--------+-----+\n"
                "| K      | V   |\n"
                "+--------+-----+\n"
                "| \xE4\xB8\xAD\xE6\x96\x87\xE5\xAD\x97 | x   |\n"
                "+--------+-----+\n"
                "| k      | \xC3\xA9t\xC3\xA9 |\n"
                "+--------+-----+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
}
END_TEST

START_TEST(table_cleans_cells)
{
    HP_MEM_MARK();
    static const char *const headers[] = { "Name", "Note" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    hp_table_add_row(&t, (const char *const[]){ "a\tb", "x\x01y" });
    hp_table_add_row(&t, (const char *const[]){ "bad\xFF", "nl\nz" });
    hp_table_add_row(&t, (const char *const[]){ "\x1B[2J", "c1\xC2\x85" });   /* ESC, NEL */
    hp_table_add_row(&t, (const char *const[]){ "\x7F", "\xE4\xB8" });        /* DEL, cut 中 */
    hp_table_add_row(&t, (const char *const[]){ "\xC0\xAF", "cr\r" });        /* overlong '/' */
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+------+------+\n"
                "| Name | Note |\n"
                "+------+------+\n"
                "| a" REPL "b  | x" REPL "y  |\n"
                "+------+------+\n"
                "| bad" REPL " | nl" REPL "z |\n"
                "+------+------+\n"
                "| " REPL "[2J | c1" REPL "  |\n"
                "+------+------+\n"
                "| " REPL "    | " REPL REPL "   |\n"
                "+------+------+\n"
                "| " REPL REPL "   | cr" REPL "  |\n"
                "+------+------+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(table_copies_cells_and_null_is_empty)
{
    static const char *const headers[] = { "Name", "Value" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    char name[] = "first";
    const char *row[] = { name, NULL };
    hp_table_add_row(&t, row);
    strcpy(name, "XXXXX");                  /* the table kept its own copy */
    struct hp_buf out = { 0 };
    render(&t, &out);
    ASSERT_TEXT(out.data,
                "+-------+-------+\n"
                "| Name  | Value |\n"
                "+-------+-------+\n"
                "| first |       |\n"
                "+-------+-------+\n");
    hp_buf_free(&out);
    hp_table_free(&t);
}
END_TEST

START_TEST(table_many_rows)
{
    HP_MEM_MARK();
    enum { ROWS = 100 };
    static const char *const headers[] = { "Row", "Bytes" };
    struct hp_table t;
    hp_table_init(&t, 2, headers);
    for (int i = 0; i < ROWS; i++) {
        char a[16], b[16];
        snprintf(a, sizeof a, "row-%d", i);
        snprintf(b, sizeof b, "%d B", i * 7);
        hp_table_add_row(&t, (const char *const[]){ a, b });
    }
    ck_assert_uint_eq(t.nrows, ROWS);
    ck_assert_int_eq(t.failed, 0);
    struct hp_buf out = { 0 };
    render(&t, &out);

    /* widths: "row-99" = 6, "693 B" = 5 */
    struct hp_buf want = { 0 };
    const char *rule = "+--------+-------+\n";
    hp_buf_puts(&want, rule);
    hp_buf_puts(&want, "| Row    | Bytes |\n");
    hp_buf_puts(&want, rule);
    for (int i = 0; i < ROWS; i++) {
        char a[16], b[16];
        snprintf(a, sizeof a, "row-%d", i);
        snprintf(b, sizeof b, "%d B", i * 7);
        hp_buf_printf(&want, "| %-6s | %-5s |\n", a, b);
        hp_buf_puts(&want, rule);
    }
    ASSERT_TEXT(out.data, want.data);
    hp_buf_free(&want);
    hp_buf_free(&out);
    hp_table_free(&t);
    HP_MEM_CHECK();
}
END_TEST

/* ================= json ================= */

static void write_doc(struct hp_json *j)
{
    hp_json_object_begin(j, NULL);
    hp_json_u64(j, "a", 1);
    hp_json_array_begin(j, "b");
    hp_json_u64(j, NULL, 1);
    hp_json_i64(j, NULL, -2);
    hp_json_string(j, NULL, "x");
    hp_json_array_end(j);
    hp_json_object_begin(j, "c");
    hp_json_bool(j, "t", 1);
    hp_json_bool(j, "f", 0);
    hp_json_null(j, "n");
    hp_json_fixed(j, "pct", 98.25, 2);
    hp_json_object_end(j);
    hp_json_array_begin(j, "e");
    hp_json_array_end(j);
    hp_json_object_begin(j, "o");
    hp_json_object_end(j);
    hp_json_object_end(j);
}

START_TEST(json_compact)
{
    HP_MEM_MARK();
    struct hp_buf out = { 0 };
    struct hp_json j;
    hp_json_init(&j, &out, 0);
    write_doc(&j);
    ASSERT_TEXT(out.data,
                "{\"a\":1,\"b\":[1,-2,\"x\"],\"c\":{\"t\":true,\"f\":false,\"n\":null,"
                "\"pct\":98.25},\"e\":[],\"o\":{}}");
    hp_buf_free(&out);
    HP_MEM_CHECK();
}
END_TEST

START_TEST(json_pretty)
{
    struct hp_buf out = { 0 };
    struct hp_json j;
    hp_json_init(&j, &out, 1);
    write_doc(&j);
    ASSERT_TEXT(out.data,
                "{\n"
                "  \"a\": 1,\n"
                "  \"b\": [\n"
                "    1,\n"
                "    -2,\n"
                "    \"x\"\n"
                "  ],\n"
                "  \"c\": {\n"
                "    \"t\": true,\n"
                "    \"f\": false,\n"
                "    \"n\": null,\n"
                "    \"pct\": 98.25\n"
                "  },\n"
                "  \"e\": [],\n"
                "  \"o\": {}\n"
                "}\n");
    hp_buf_free(&out);
}
END_TEST

static void write_rows(struct hp_json *j)
{
    hp_json_array_begin(j, NULL);
    for (int i = 0; i < 2; i++) {
        hp_json_object_begin(j, NULL);
        hp_json_u64(j, "os_tid", 4100 + (uint64_t)i);
        hp_json_array_begin(j, "tags");
        hp_json_string(j, NULL, i ? "worker" : "main");
        hp_json_array_end(j);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
}

START_TEST(json_array_of_objects)
{
    struct hp_buf out = { 0 };
    struct hp_json j;
    hp_json_init(&j, &out, 0);
    write_rows(&j);
    ASSERT_TEXT(out.data, "[{\"os_tid\":4100,\"tags\":[\"main\"]},{\"os_tid\":4101,\"tags\":[\"worker\"]}]");
    hp_buf_free(&out);

    hp_json_init(&j, &out, 1);
    write_rows(&j);
    ASSERT_TEXT(out.data,
                "[\n"
                "  {\n"
                "    \"os_tid\": 4100,\n"
                "    \"tags\": [\n"
                "      \"main\"\n"
                "    ]\n"
                "  },\n"
                "  {\n"
                "    \"os_tid\": 4101,\n"
                "    \"tags\": [\n"
                "      \"worker\"\n"
                "    ]\n"
                "  }\n"
                "]\n");
    hp_buf_free(&out);
}
END_TEST

START_TEST(json_numbers)
{
    struct hp_buf out = { 0 };
    struct hp_json j;
    hp_json_init(&j, &out, 0);
    hp_json_object_begin(&j, NULL);
    hp_json_i64(&j, "neg", -42);
    hp_json_i64(&j, "min", INT64_MIN);
    hp_json_i64(&j, "max", INT64_MAX);
    hp_json_u64(&j, "umax", UINT64_MAX);
    hp_json_u64(&j, "zero", 0);
    hp_json_fixed(&j, "neg_fixed", -3.5, 1);
    hp_json_fixed(&j, "int_fixed", 7.0, 0);
    hp_json_object_end(&j);
    ASSERT_TEXT(out.data,
                "{\"neg\":-42,\"min\":-9223372036854775808,\"max\":9223372036854775807,"
                "\"umax\":18446744073709551615,\"zero\":0,\"neg_fixed\":-3.5,\"int_fixed\":7}");
    hp_buf_free(&out);
}
END_TEST

static void assert_quoted(const char *in, const char *want)
{
    struct hp_buf out = { 0 };
    hp_json_quote(&out, in);
    ASSERT_TEXT(out.data, want);
    hp_buf_free(&out);
}

START_TEST(json_string_escaping)
{
    assert_quoted("", "\"\"");
    assert_quoted("plain", "\"plain\"");
    assert_quoted("say \"hi\"", "\"say \\\"hi\\\"\"");
    assert_quoted("C:\\tmp\\x", "\"C:\\\\tmp\\\\x\"");
    assert_quoted("a\nb", "\"a\\nb\"");
    assert_quoted("a\tb\rc", "\"a\\tb\\rc\"");
    assert_quoted("\x01", "\"\\u0001\"");
    assert_quoted("\x1F|\x1B|\x08|\x0C", "\"\\u001f|\\u001b|\\u0008|\\u000c\"");
    assert_quoted("\x7F", "\"\\u007f\"");
    assert_quoted("/", "\"/\"");
    /* valid UTF-8 passes through unchanged */
    assert_quoted("caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80", "\"caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80\"");
}
END_TEST

START_TEST(json_invalid_utf8_becomes_replacement)
{
    assert_quoted("\xFF", "\"" REPL "\"");
    assert_quoted("a\xFF" "b", "\"a" REPL "b\"");
    assert_quoted("\xC0\xAF", "\"" REPL REPL "\"");                /* overlong: per byte */
    assert_quoted("\xED\xA0\x80", "\"" REPL REPL REPL "\"");       /* surrogate */
    assert_quoted("end\xE4\xB8", "\"end" REPL REPL "\"");          /* truncated at the end */
    assert_quoted("\xE4\xB8\"", "\"" REPL REPL "\\\"\"");          /* quote after a cut sequence */

    /* and the bytes are exactly EF BF BD */
    struct hp_buf out = { 0 };
    hp_json_quote(&out, "\x80");
    ck_assert_uint_eq(out.len, 5);
    ck_assert_mem_eq(out.data, "\"\xEF\xBF\xBD\"", 5);
    hp_buf_free(&out);
}
END_TEST

START_TEST(json_keys_escaped)
{
    struct hp_buf out = { 0 };
    struct hp_json j;
    hp_json_init(&j, &out, 0);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "k\"\n\xFF", "v\\");
    hp_json_object_end(&j);
    ASSERT_TEXT(out.data, "{\"k\\\"\\n" REPL "\":\"v\\\\\"}");
    hp_buf_free(&out);
}
END_TEST

/* ================= sort ================= */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_int_desc(const void *a, const void *b)
{
    return cmp_int(b, a);
}

static unsigned cmp_calls;
static int cmp_counting(const void *a, const void *b)
{
    cmp_calls++;
    return cmp_int(a, b);
}

static unsigned rng_state = 12345;
static unsigned rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

START_TEST(sort_ints)
{
    int a[] = { 5, -3, 9, 0, 9, 2, -3, 7, 1, 2147483647, -2147483647 - 1, 4 };
    int want[] = { -2147483647 - 1, -3, -3, 0, 1, 2, 4, 5, 7, 9, 9, 2147483647 };
    hp_sort(a, sizeof a / sizeof *a, sizeof *a, cmp_int);
    ck_assert_mem_eq(a, want, sizeof want);

    hp_sort(a, sizeof a / sizeof *a, sizeof *a, cmp_int_desc);
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        ck_assert_int_eq(a[i], want[sizeof a / sizeof *a - 1 - i]);
}
END_TEST

START_TEST(sort_n0_n1_n2)
{
    cmp_calls = 0;
    hp_sort(NULL, 0, sizeof(int), cmp_counting);
    int one[] = { 42, 17 };
    hp_sort(one, 1, sizeof(int), cmp_counting);     /* only the first element is in range */
    ck_assert_int_eq(one[0], 42);
    ck_assert_int_eq(one[1], 17);
    ck_assert_uint_eq(cmp_calls, 0);

    int two[] = { 2, 1, -5 };
    hp_sort(two, 2, sizeof(int), cmp_int);
    ck_assert_int_eq(two[0], 1);
    ck_assert_int_eq(two[1], 2);
    ck_assert_int_eq(two[2], -5);                   /* past n: untouched */
}
END_TEST

/* Elements larger than the swap's buffer, of a size no multiple of it (a lock row is kilobytes):
 * every byte of each moves with its key. */
struct big { int key; unsigned char payload[700]; };

static int cmp_big(const void *a, const void *b)
{
    const struct big *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

START_TEST(sort_large_elements_whole)
{
    enum { N = 37 };
    static struct big a[N];
    for (int i = 0; i < N; i++) {
        a[i].key = (i * 17) % N;
        for (size_t k = 0; k < sizeof a[i].payload; k++) a[i].payload[k] = (unsigned char)(a[i].key * 31 + k);
    }
    hp_sort(a, N, sizeof *a, cmp_big);
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(a[i].key, i);
        for (size_t k = 0; k < sizeof a[i].payload; k++)
            ck_assert_uint_eq(a[i].payload[k], (unsigned char)(i * 31 + k));
    }
}
END_TEST

/* Every length 0..70 with random, sorted, reversed and constant input, against qsort. */
START_TEST(sort_matches_qsort)
{
    enum { MAX = 70 };
    for (size_t n = 0; n <= MAX; n++)
        for (int kind = 0; kind < 4; kind++) {
            int a[MAX + 1], b[MAX + 1];
            for (size_t i = 0; i < n; i++) {
                switch (kind) {
                case 0: a[i] = (int)(rng() % 50) - 25; break;
                case 1: a[i] = (int)i; break;
                case 2: a[i] = (int)(n - i); break;
                default: a[i] = 3; break;
                }
            }
            a[n] = b[n] = 0x7EADBEEF;               /* guard */
            memcpy(b, a, n * sizeof *a);
            hp_sort(a, n, sizeof *a, cmp_int);
            qsort(b, n, sizeof *b, cmp_int);
            ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "n=%zu kind=%d differs from qsort", n,
                          kind);
            ck_assert_int_eq(a[n], 0x7EADBEEF);
        }
}
END_TEST

struct row {
    uint64_t bytes;
    char name[23];          /* 36-byte elements: not a word multiple, swapped byte by byte */
    int index;
};

static int cmp_row_bytes_desc(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return (x->bytes < y->bytes) - (x->bytes > y->bytes);
}

START_TEST(sort_structs)
{
    enum { N = 257 };
    static struct row rows[N];
    for (int i = 0; i < N; i++) {
        rows[i].bytes = (uint64_t)(rng() % 1000) * 1000003u;
        snprintf(rows[i].name, sizeof rows[i].name, "t%llu", (unsigned long long)rows[i].bytes);
        rows[i].index = i;
    }
    unsigned seen[N] = { 0 };
    hp_sort(rows, N, sizeof *rows, cmp_row_bytes_desc);
    for (int i = 0; i < N; i++) {
        if (i > 0) ck_assert_uint_ge(rows[i - 1].bytes, rows[i].bytes);
        /* each element moved whole */
        char want[23];
        snprintf(want, sizeof want, "t%llu", (unsigned long long)rows[i].bytes);
        ck_assert_str_eq(rows[i].name, want);
        ck_assert_int_ge(rows[i].index, 0);
        ck_assert_int_lt(rows[i].index, N);
        seen[rows[i].index]++;
    }
    for (int i = 0; i < N; i++) ck_assert_uint_eq(seen[i], 1);   /* a permutation */
}
END_TEST

static Suite *text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("utf8");
    HP_ADD(tc, utf8_decode_valid);
    HP_ADD(tc, utf8_decode_invalid);
    HP_ADD(tc, utf8_encode_roundtrip);
    HP_ADD(tc, utf8_widths);
    HP_ADD(tc, utf8_string_widths);
    HP_ADD(tc, utf8_keep_end);
    suite_add_tcase(s, tc);

    tc = tcase_create("buf");
    HP_ADD(tc, buf_appends);
    HP_ADD(tc, buf_embedded_nul);
    HP_ADD(tc, buf_grows);
    HP_ADD(tc, buf_printf_longer_than_stack_buffer);
    suite_add_tcase(s, tc);

    tc = tcase_create("table");
    HP_ADD(tc, table_reference_layout);
    HP_ADD(tc, table_two_rows);
    HP_ADD(tc, table_no_rows);
    HP_ADD(tc, table_appends_to_buffer);
    HP_ADD(tc, table_widths_in_display_columns);
    HP_ADD(tc, table_wide_cell_sets_width);
    HP_ADD(tc, table_cleans_cells);
    HP_ADD(tc, table_copies_cells_and_null_is_empty);
    HP_ADD(tc, table_many_rows);
    HP_ADD(tc, table_fits_width_keeping_ends);
    HP_ADD(tc, table_pick_rows_keeps_asked_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("json");
    HP_ADD(tc, json_compact);
    HP_ADD(tc, json_pretty);
    HP_ADD(tc, json_array_of_objects);
    HP_ADD(tc, json_numbers);
    HP_ADD(tc, json_string_escaping);
    HP_ADD(tc, json_invalid_utf8_becomes_replacement);
    HP_ADD(tc, json_keys_escaped);
    suite_add_tcase(s, tc);

    tc = tcase_create("sort");
    HP_ADD(tc, sort_ints);
    HP_ADD(tc, sort_n0_n1_n2);
    HP_ADD(tc, sort_matches_qsort);
    HP_ADD(tc, sort_large_elements_whole);
    HP_ADD(tc, sort_structs);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(text_suite)
