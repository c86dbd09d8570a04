/* fn_names.c — see fn_names.h. */
#define _GNU_SOURCE
#include "fn_names.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "core/memory.h"
#include "core/real_lookup.h"
#include "core/symbols.h"
#include "json.h"

int hp_fn_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return 0;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = hp_realloc(*p, (size_t)n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* (name, module): the two strings with a byte between them that neither holds */
static uint32_t fn_hash(const char *name, const char *module)
{
    uint32_t h = hp_fnv1a(name, strlen(name), HP_FNV_BASIS);
    return hp_fnv1a(module, strlen(module), hp_fnv1a("\xff", 1, h));
}

static uint32_t pow2_at_least(uint64_t n)
{
    uint32_t p = 64;
    while (p < n && p < (1u << 30)) p *= 2;
    return p;
}

int hp_fn_names_open(struct hp_fn_names *m, uint64_t addresses)
{
    memset(m, 0, sizeof *m);
    m->addr_mask = pow2_at_least(2 * addresses + 2) - 1;
    m->fn_mask = m->addr_mask;
    m->addr_keys = hp_alloc(sizeof *m->addr_keys * (m->addr_mask + 1));
    m->addr_vals = hp_alloc(sizeof *m->addr_vals * (m->addr_mask + 1));
    m->fn_slots = hp_alloc(sizeof *m->fn_slots * (m->fn_mask + 1));
    m->syms = hp_syms_open();
    if (m->addr_keys && m->addr_vals && m->fn_slots && m->syms) return 0;
    hp_fn_names_close(m);
    return -1;
}

void hp_fn_names_close(struct hp_fn_names *m)
{
    hp_syms_close(m->syms);
    hp_free(m->addr_keys);
    hp_free(m->addr_vals);
    hp_free(m->fn_slots);
    hp_free(m->fns);
    memset(m, 0, sizeof *m);
}

int64_t hp_fn_names_intern(struct hp_fn_names *m, const char *name, const char *module)
{
    if (!m->fn_slots) return -1;
    uint32_t h = fn_hash(name, module);
    for (uint32_t i = h & m->fn_mask;; i = (i + 1) & m->fn_mask) {
        uint32_t v = m->fn_slots[i];
        if (v == 0) {
            if (m->n > m->fn_mask / 2 || hp_fn_grow((void **)&m->fns, &m->cap, m->n + 1, sizeof *m->fns))
                return -1;
            struct hp_fn_name *f = &m->fns[m->n];
            memset(f, 0, sizeof *f);
            snprintf(f->name, sizeof f->name, "%s", name);
            snprintf(f->module, sizeof f->module, "%s", module);
            m->fn_slots[i] = ++m->n;
            return m->n - 1;
        }
        if (strcmp(m->fns[v - 1].name, name) == 0 && strcmp(m->fns[v - 1].module, module) == 0)
            return v - 1;
    }
}

/* A frame in one of the profiler's hooks (its fwrite, pthread_mutex_lock) is the function the
 * program called: it is named by the module of the function it wraps, and counts with it. The
 * profiler's other functions keep their module (hp_fn_is_profiler). */
static void as_wrapped(const char *name, char *module, size_t size)
{
    Dl_info info;
    void *wrapped = strncmp(module, "libhotpath", 10) == 0 ? hp_real_lookup(name, NULL) : NULL;
    if (!wrapped || !dladdr(wrapped, &info) || !info.dli_fname) return;
    const char *base = strrchr(info.dli_fname, '/');
    snprintf(module, size, "%s", base ? base + 1 : info.dli_fname);
}

int64_t hp_fn_names_of(struct hp_fn_names *m, uintptr_t addr)
{
    if (!m->addr_keys) return -1;
    for (uint32_t i = (uint32_t)hp_mix64(addr) & m->addr_mask;; i = (i + 1) & m->addr_mask) {
        if (m->addr_keys[i] == addr) return m->addr_vals[i];
        if (m->addr_keys[i] == 0) {
            char name[HP_FN_NAME], module[HP_FN_MODULE];
            hp_syms_function(m->syms, (const void *)addr, name, sizeof name, module, sizeof module);
            as_wrapped(name, module, sizeof module);
            int64_t f = hp_fn_names_intern(m, name, module);
            if (f < 0) return -1;
            if (!m->fns[f].addr) m->fns[f].addr = addr;
            m->addr_keys[i] = addr;
            m->addr_vals[i] = (uint32_t)f;
            return f;
        }
    }
}

void hp_fn_names_locate(struct hp_fn_names *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->fns[i].addr)
            hp_syms_location(m->syms, (const void *)m->fns[i].addr, m->fns[i].file, sizeof m->fns[i].file,
                             &m->fns[i].line);
}

int hp_fn_is_profiler(const struct hp_fn_name *f)
{
    return strncmp(f->module, "libhotpath", 10) == 0;
}

void hp_location_text(const char *file, unsigned line, char *out, size_t size)
{
    const char *base = strrchr(file, '/');
    snprintf(out, size, "%s:%u", base ? base + 1 : file, line);
}

void hp_fn_where(const struct hp_fn_name *f, char *out, size_t size)
{
    if (f->file[0]) hp_location_text(f->file, f->line, out, size);
    else snprintf(out, size, "-");
}

void hp_fn_json(struct hp_json *j, const struct hp_fn_name *f)
{
    hp_json_string(j, "name", f->name);
    hp_json_string(j, "module", f->module);
    if (f->file[0]) {
        hp_json_string(j, "file", f->file);
        hp_json_u64(j, "line", f->line);
    } else {
        hp_json_null(j, "file");
        hp_json_null(j, "line");
    }
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Copy src to out with every outermost bracketed run opened by `open` right after a name (a
 * template's `>`, or for a parameter list an operator's sign) replaced by `open…close`
 * (`operator<` itself is left alone). */
static void collapse(const char *src, char *out, size_t size, char open, char close)
{
    size_t n = 0;
    for (const char *p = src; *p && n + 1 < size;) {
        int operator_sign = p - src >= 8 && strncmp(p - 8, "operator", 8) == 0;
        int after_name = p > src && (ident_char(p[-1]) || p[-1] == '>' ||
                                     (open == '(' && !strchr(" :(,", p[-1])));
        if (*p == open && after_name && !operator_sign) {
            int depth = 0;
            const char *q = p;
            for (; *q; q++) {
                if (*q == open) depth++;
                else if (*q == close && --depth == 0) break;
            }
            if (n + 6 < size) {   /* a name cut short ends inside its brackets: close them */
                n += (size_t)snprintf(out + n, size - n, "%c\xe2\x80\xa6%c", open, close);
                if (!*q) break;
                p = q + 1;
                continue;
            }
        }
        out[n++] = *p++;
    }
    out[n] = 0;
}

void hp_fn_display(const char *name, char *out, size_t size, size_t max)
{
    char a[HP_FN_NAME * 2], b[HP_FN_NAME * 2];
    snprintf(out, size, "%s", name);
    if (strlen(out) <= max) return;
    collapse(name, a, sizeof a, '<', '>');
    snprintf(out, size, "%s", a);
    if (strlen(out) <= max) return;
    collapse(a, b, sizeof b, '(', ')');
    snprintf(out, size, "%s", b);
    if (strlen(out) <= max) return;
    size_t cut = max >= 3 ? max - 3 : 0;
    while (cut > 0 && ((unsigned char)out[cut] & 0xC0) == 0x80) cut--;   /* not inside a character */
    snprintf(out + cut, size - cut, "\xe2\x80\xa6");
}
