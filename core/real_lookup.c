/* real_lookup.c — see real_lookup.h: the one place a real function is looked up.
 *
 * dlsym(RTLD_NEXT) costs a process 150 to 250 ns a name (the loader's lock, its error catcher, the
 * caller's object found again each time), and the constructor looks up about 190 names: some
 * 40 us of every exec'd process. So the objects after the caller's in the loader's search order
 * are read once, their GNU hash tables kept, and a name is searched there as glibc's lookup does
 * (dl-lookup.c: the first object that defines it; in an object, an unversioned definition, or the
 * one default version). dlsym still decides every case this does not: a version asked for, an
 * IFUNC (time, gettimeofday: its resolver must run), a unique or undefined-but-valued symbol, a
 * name found nowhere, an object without a GNU hash table, a caller loaded by dlopen. */
#define _GNU_SOURCE
#include "real_lookup.h"

#include <dlfcn.h>
#include <errno.h>

#ifdef __GLIBC__
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#define SCOPE_MAX 64

/* One object of the search: its symbols, their names and versions, and its GNU hash table. */
struct scope_object {
    uintptr_t base;
    const ElfW(Sym) *syms;
    const char *strs;
    const uint32_t *gnu;
    const uint16_t *versym;    /* NULL: no versions */
};

enum scope_state { SCOPE_UNREAD, SCOPE_READING, SCOPE_READY, SCOPE_UNUSABLE };

static struct {
    _Atomic int state;         /* enum scope_state */
    unsigned n;
    struct scope_object obj[SCOPE_MAX];
} scope;

/* A dynamic entry's address: relocated in place by glibc on most targets, not on some (and never
 * in the vDSO, which is left out). */
static uintptr_t dyn_addr(uintptr_t base, ElfW(Addr) p)
{
    return p < base ? base + p : p;
}

static int read_object(const struct link_map *l, struct scope_object *o)
{
    memset(o, 0, sizeof *o);
    o->base = l->l_addr;
    for (const ElfW(Dyn) *d = l->l_ld; d && d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_GNU_HASH: o->gnu = (const uint32_t *)dyn_addr(o->base, d->d_un.d_ptr); break;
        case DT_SYMTAB: o->syms = (const ElfW(Sym) *)dyn_addr(o->base, d->d_un.d_ptr); break;
        case DT_STRTAB: o->strs = (const char *)dyn_addr(o->base, d->d_un.d_ptr); break;
        case DT_VERSYM: o->versym = (const uint16_t *)dyn_addr(o->base, d->d_un.d_ptr); break;
        }
    }
    return o->gnu && o->syms && o->strs ? 0 : -1;
}

/* The objects after the caller's, in the order the loader searches them: for the objects loaded
 * at start (the caller among them: the C library's object comes after it), their order in the
 * list of loaded objects, the vDSO left out (it is in that list, not in the search). */
static int read_scope(void)
{
    Dl_info info;
    struct link_map *self = NULL;
    if (!dladdr1((void *)read_scope, &info, (void **)&self, RTLD_DL_LINKMAP) || !self) return -1;
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    int libc_seen = 0;
    for (const struct link_map *l = self->l_next; l; l = l->l_next) {
        if (vdso && (uintptr_t)l->l_ld >= vdso && (uintptr_t)l->l_ld - vdso < 0x10000) continue;
        if (scope.n == SCOPE_MAX || read_object(l, &scope.obj[scope.n]) != 0) return -1;
        scope.n++;
        if (l->l_name && strstr(l->l_name, "/libc.so")) libc_seen = 1;
    }
    return libc_seen ? 0 : -1;
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++) h = h * 33 + (unsigned char)*s;
    return h;
}

/* The symbol a name is in o, as glibc's check_match with no version asked for: an unversioned
 * definition at once, else the one version that is not hidden. *unsure when only dlsym can tell. */
static const ElfW(Sym) *find_in(const struct scope_object *o, const char *name, uint32_t h, int *unsure)
{
    const uint32_t nbuckets = o->gnu[0], symoffset = o->gnu[1], bloom_size = o->gnu[2], shift = o->gnu[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(const void *)&o->gnu[4];
    const uint32_t *buckets = (const uint32_t *)(const void *)&bloom[bloom_size];
    const uint32_t *chain = &buckets[nbuckets];
    const unsigned bits = sizeof(ElfW(Addr)) * 8;
    if (!nbuckets || !bloom_size) return NULL;
    ElfW(Addr) word = bloom[(h / bits) % bloom_size];
    ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) | ((ElfW(Addr))1 << ((h >> shift) % bits));
    if ((word & mask) != mask) return NULL;
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset) return NULL;
    const ElfW(Sym) *versioned = NULL;
    unsigned nversions = 0;
    for (;; i++) {
        uint32_t ch = chain[i - symoffset];
        const ElfW(Sym) *s = &o->syms[i];
        if ((ch | 1) == (h | 1) && strcmp(o->strs + s->st_name, name) == 0) {
            int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
            int plain = s->st_shndx != SHN_UNDEF && (bind == STB_GLOBAL || bind == STB_WEAK) &&
                        (type == STT_NOTYPE || type == STT_OBJECT || type == STT_FUNC);
            if (!plain) {
                /* an IFUNC (dlsym runs its resolver), TLS, a unique or an undefined symbol with a
                 * value: dlsym may take it; a local one it never does */
                if (s->st_value && bind != STB_LOCAL) *unsure = 1;
            } else if (s->st_value) {
                uint16_t v = o->versym ? o->versym[i] : 1;
                if ((v & 0x7fff) < 2) return s;
                if (!(v & 0x8000) && nversions++ == 0) versioned = s;
            }
        }
        if (ch & 1) break;
    }
    if (nversions > 1) *unsure = 1;
    return nversions == 1 ? versioned : NULL;
}

int hp_real_lookup_scope(const char *name, void **fn)
{
    int state = atomic_load_explicit(&scope.state, memory_order_acquire);
    if (state == SCOPE_UNREAD) {
        int expect = SCOPE_UNREAD;
        if (!atomic_compare_exchange_strong(&scope.state, &expect, SCOPE_READING)) return 0;
        state = read_scope() == 0 ? SCOPE_READY : SCOPE_UNUSABLE;
        atomic_store_explicit(&scope.state, state, memory_order_release);
    }
    if (state != SCOPE_READY) return 0;
    uint32_t h = gnu_hash(name);
    for (unsigned k = 0; k < scope.n; k++) {
        int unsure = 0;
        const ElfW(Sym) *s = find_in(&scope.obj[k], name, h, &unsure);
        if (unsure) return 0;
        if (s) {
            *fn = (void *)(scope.obj[k].base + s->st_value);
            return 1;
        }
    }
    return 0;
}
#else
int hp_real_lookup_scope(const char *name, void **fn)
{
    (void)name;
    (void)fn;
    return 0;
}
#endif

void *hp_real_lookup(const char *name, const char *version)
{
    int saved = errno;
    void *fn = NULL;
#ifdef __GLIBC__
    /* where a plain lookup would find an old version (pthread_cond_wait@GLIBC_2.2.5) */
    if (version) fn = dlvsym(RTLD_NEXT, name, version);
#else
    (void)version;
#endif
    if (!fn && !hp_real_lookup_scope(name, &fn)) fn = dlsym(RTLD_NEXT, name);
    errno = saved;
    return fn;
}
