/* real_lookup.h — the real functions (the definitions found after libhotpath.so, which the hooks
 * call) are declared once per group, in an X-macro list, and looked up in one place,
 * hp_real_lookup. The lists: core/hooks.h (hp_hot.real), views/io/io_fns.h (hp_hot.io), and the
 * hook files' own (lock_hooks.c, exec.c, creds.c, mmap_hooks.c, cpu_hooks.c, fd_more_hooks.c, dl.c, alloc_cxx_hooks.c).
 *
 * A list is a macro of two parameters, X and C (C is handed to X untouched: the generators below
 * pass their storage in it); each entry reads
 *
 *     X(C, field, "symbol", version, how, return type, (parameter types))
 *
 *   version  NULL, or the symbol version looked for first ("GLIBC_2.3.2"): the default one when
 *            that version is missing
 *   how      EAGER  looked up at start, by the group's resolve function (from hp_resolve), in
 *                   list order
 *            LAST   the same, after every EAGER entry of the list and whatever its resolve
 *                   function does between (HP_REAL_LOOKUPS_LAST): hp_hot.real.malloc, whose
 *                   being set means every lookup is done
 *            EARLY  looked up as EAGER; until then a fallback of the group's own (locks.c:
 *                   glibc's old aliases, for the locks taken before the constructor)
 *            LAZY   looked up at the hook's first call (HP_REAL_LAZY_ACCESSORS): where the
 *                   hook may run before anything was resolved, and the lookup stays where it
 *                   was, never moved into a signal handler that did not make it before
 *
 * The field order is the list order: the hot page's layout (core/hooks.h) is the lists'. */
#ifndef HP_REAL_LOOKUP_H
#define HP_REAL_LOOKUP_H

#include <stddef.h>

/* The next definition of name after libhotpath.so (dlsym RTLD_NEXT), at version when one is given
 * and found; NULL when there is none. errno is kept. */
void *hp_real_lookup(const char *name, const char *version);
/* Its search without dlsym (real_lookup.c): 1 with *fn set when the objects' own tables decide
 * the name, 0 when only dlsym can. Async-signal-safe once they are read (a LAZY entry's first
 * call); errno may change. */
int hp_real_lookup_scope(const char *name, void **fn);

/* The struct fields of a list: `struct { HP_REAL_FIELDS(LIST) } real;` */
#define HP_REAL_FIELD_(C, field, sym, ver, how, ret, params) ret (*field) params;
#define HP_REAL_FIELDS(LIST) LIST(HP_REAL_FIELD_, _)

/* The lookups of a list's EAGER and EARLY entries, then (separately) of its LAST ones, into the
 * struct dst, plain stores (the group's own flag publishes them). */
#define HP_REAL_SET_(dst, field, sym, ver) (*(void **)&(dst).field = hp_real_lookup(sym, ver));
#define HP_REAL_IF_EAGER_(dst, field, sym, ver) HP_REAL_SET_(dst, field, sym, ver)
#define HP_REAL_IF_EARLY_(dst, field, sym, ver) HP_REAL_SET_(dst, field, sym, ver)
#define HP_REAL_IF_LAST_(dst, field, sym, ver)
#define HP_REAL_IF_LAZY_(dst, field, sym, ver)
#define HP_REAL_LAST_IF_EAGER_(dst, field, sym, ver)
#define HP_REAL_LAST_IF_EARLY_(dst, field, sym, ver)
#define HP_REAL_LAST_IF_LAST_(dst, field, sym, ver) HP_REAL_SET_(dst, field, sym, ver)
#define HP_REAL_LAST_IF_LAZY_(dst, field, sym, ver)
#define HP_REAL_LOOKUP_(dst, field, sym, ver, how, ret, params) HP_REAL_IF_##how##_(dst, field, sym, ver)
#define HP_REAL_LOOKUP_LAST_(dst, field, sym, ver, how, ret, params) HP_REAL_LAST_IF_##how##_(dst, field, sym, ver)
#define HP_REAL_LOOKUPS(LIST, dst) LIST(HP_REAL_LOOKUP_, dst)
#define HP_REAL_LOOKUPS_LAST(LIST, dst) LIST(HP_REAL_LOOKUP_LAST_, dst)

/* A LAZY entry's function, looked up at its first call and kept in *slot; NULL (errno kept)
 * while there is none, and looked up again at the next call. */
static inline void *hp_real_lazy(void **slot, const char *name, const char *version)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (__builtin_expect(fn != NULL, 1)) return fn;
    fn = hp_real_lookup(name, version);
    if (fn) __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    return fn;
}

/* For a list of LAZY entries kept in the struct dst: one function per entry, dst_field(), that
 * returns the real function (NULL when there is none). */
#define HP_REAL_ACCESSOR_(dst, field, sym, ver, how, ret, params)                                \
    static inline __typeof__(dst.field) dst##_##field(void)                                     \
    {                                                                                           \
        return (__typeof__(dst.field))hp_real_lazy((void **)&dst.field, sym, ver);              \
    }
#define HP_REAL_LAZY_ACCESSORS(LIST, dst) LIST(HP_REAL_ACCESSOR_, dst)

#endif
