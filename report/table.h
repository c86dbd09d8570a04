/* table.h — the text tables of the report, in the reference style: +---+ borders, a rule after
 * every row, columns as wide as their widest cell in display columns. */
#ifndef HP_TABLE_H
#define HP_TABLE_H

#include "buf.h"

struct hp_table {
    unsigned ncols, nrows, cap_rows;
    const char *const *headers;
    char **cells;        /* nrows * ncols, each cleaned text in the profiler's memory */
    int failed;
};

/* The width the tables fit in, in display columns (0: no limit). Where the widest cells make a
 * table wider, its widest columns are narrowed, none below its header or 12 columns, and their
 * longer cells cut keeping their end (hp_utf8_keep_end). Set by the report (HOTPATH_TABLE_WIDTH,
 * the terminal's width or 160) and by hotpath-launch; the JSON is never cut. */
#define HP_TABLE_WIDTH_DEFAULT 160
#define HP_TABLE_COLUMN_MIN 12
extern unsigned hp_table_width;

void hp_table_init(struct hp_table *t, unsigned ncols, const char *const *headers);
/* Append a row of ncols cells; program-supplied text is cleaned (invalid UTF-8, control chars). */
void hp_table_add_row(struct hp_table *t, const char *const *cells);
/* Append the table to out; out is marked failed when the table or its rendering ran out of memory. */
void hp_table_render(const struct hp_table *t, struct hp_buf *out);
void hp_table_free(struct hp_table *t);

/* The rows a table cut to limit rows (0 = all) shows of n sorted ones: the first ones, except that
 * each of the nkeep rows in keep (in order of preference) that would be cut replaces the last row
 * shown that is not itself kept. Their indices in ascending order into out (n of room); the count. */
unsigned hp_table_pick_rows(unsigned n, unsigned limit, const unsigned *keep, unsigned nkeep, unsigned *out);

#endif
