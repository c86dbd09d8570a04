/* tab.h — a tab of hotpath-console as a view gives it (views/NAME/NAME_tab.c, pure data, compiled
 * into the console only; the list: views/list.h): the endpoints its rows come from and its
 * columns. The console's drawing and sorting know no view. */
#ifndef HP_TAB_H
#define HP_TAB_H

#define HP_TAB_COLUMNS 11
#define HP_TAB_SOURCES 3

/* How a column shows its field; the text ones are aligned left, the numbers right and sort by
 * value (the first column sorts by the rows' order). */
enum hp_tab_format {
    HP_TAB_TEXT,      /* a string, "-" if none */
    HP_TAB_LABEL,     /* the source's label */
    HP_TAB_MODULE,    /* a path's last part */
    HP_TAB_STATUS,    /* a thread's status: "Blocked" (red) when the row has the object `also`, green Running */
    HP_TAB_COUNT,
    HP_TAB_BYTES,
    HP_TAB_NS,
    HP_TAB_PERCENT,   /* "-" if none */
    HP_TAB_SECONDS,   /* of a count of nanoseconds */
    HP_TAB_TREND,     /* bytes per minute, "grow " before it when the row's flag `also` is true */
};

struct hp_tab_column {
    const char *title;
    int width;
    enum hp_tab_format format;
    const char *field;    /* in the row (a dotted path for a nested one; "a+b" their sum) */
    const char *also;
    int alarm;            /* drawn red when above zero */
};

/* Rows: the array `rows` of an endpoint's JSON; with `within`, each row's fields are looked up in
 * its object of that name first, and a row whose `skip_zero` field there is 0 is left out. */
struct hp_tab_source {
    const char *endpoint, *rows, *within, *skip_zero, *label;
};

struct hp_tab {
    const char *title;
    int order;                                     /* its place among the tabs (key 1, 2, ...) */
    struct hp_tab_source sources[HP_TAB_SOURCES];  /* to a NULL endpoint */
    struct hp_tab_column columns[HP_TAB_COLUMNS];  /* to a NULL title */
    const char *missing;   /* the note when no endpoint of it answers */
    const char *instead;   /* ... and then the first tab's rows, sorted by its column of this title */
    /* The note when its endpoint says "enabled": false: off, then ": " and its field off_reason. */
    const char *off, *off_reason;
};

#endif
