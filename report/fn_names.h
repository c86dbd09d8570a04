/* fn_names.h — the functions of sampled call stacks, for the profile views (CPU, allocations):
 * every distinct address is named once (core/symbols.h) and every distinct function
 * (name, module) gets a dense number, in the order first seen. Made only when a report is. */
#ifndef HP_FN_NAMES_H
#define HP_FN_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define HP_FN_NAME 384
#define HP_FN_MODULE 96
#define HP_FN_SHOWN 80         /* bytes of a name in a text table (hp_fn_display) */

struct hp_fn_name {
    char name[HP_FN_NAME];
    char module[HP_FN_MODULE];
    uintptr_t addr;            /* the first return address seen in it (0 for a made-up name) */
    char file[256];            /* where it is defined (hp_fn_names_locate), "" when unknown */
    unsigned line;
};

struct hp_fn_names {
    struct hp_fn_name *fns;    /* fns[0..n) */
    uint32_t n, cap;
    struct hp_syms *syms;
    uintptr_t *addr_keys;      /* address -> function, 0 = empty */
    uint32_t *addr_vals;
    uint32_t addr_mask;
    uint32_t *fn_slots;        /* function number + 1 by (name, module) */
    uint32_t fn_mask;
};

/* Room for `addresses` distinct addresses (and as many functions); 0, or -1 out of memory. */
int hp_fn_names_open(struct hp_fn_names *m, uint64_t addresses);
void hp_fn_names_close(struct hp_fn_names *m);
/* The number of the function holding a return address, or of (name, module); -1 when full. */
int64_t hp_fn_names_of(struct hp_fn_names *m, uintptr_t ret_addr);
int64_t hp_fn_names_intern(struct hp_fn_names *m, const char *name, const char *module);
/* Fill in every function's file and line from debug information (core/symbols.h). */
void hp_fn_names_locate(struct hp_fn_names *m);
/* The profiler's own code (libhotpath: its hooks, its thread start), left out of the program's stacks. */
int hp_fn_is_profiler(const struct hp_fn_name *f);

/* A function's name as a text table shows it, in at most max bytes (max < size): a C++ name too
 * long for that loses its template arguments (`std::vector<…>::push_back`), then its parameter
 * list (`f(…)`), and is cut with `…` as a last resort. JSON keeps the whole name. */
void hp_fn_display(const char *name, char *out, size_t size, size_t max);
/* `file.c:42`: a source location as the text tables show it (the file's base name). */
void hp_location_text(const char *file, unsigned line, char *out, size_t size);
/* The function's location as hp_location_text writes it, or `-` where it is unknown. */
void hp_fn_where(const struct hp_fn_name *f, char *out, size_t size);
/* The function's `name`, `module`, `file` and `line` (null where unknown) into a JSON object. */
struct hp_json;
void hp_fn_json(struct hp_json *j, const struct hp_fn_name *f);

/* Grow an array to hold `need` elements (doubling, from 64); 0, or -1 out of memory. */
int hp_fn_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);

#endif
