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

void hp_table_init(struct hp_table *t, unsigned ncols, const char *const *headers);
/* Append a row of ncols cells; program-supplied text is cleaned (invalid UTF-8, control chars). */
void hp_table_add_row(struct hp_table *t, const char *const *cells);
/* Append the table to out; out is marked failed when the table or its rendering ran out of memory. */
void hp_table_render(const struct hp_table *t, struct hp_buf *out);
void hp_table_free(struct hp_table *t);

#endif
