/* symbols.c — see symbols.h. */
#define _GNU_SOURCE
#include "symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "demangle.h"
#include "lines.h"
#include "loader_lock.h"
#include "memory.h"
#include "platform.h"
#include "sort.h"
#include "unloaded.h"

#define MAX_MODULES 128

struct sym {
    uintptr_t value, size;
    const char *name;
};

struct module {
    const struct link_map *map;   /* a loaded module, or NULL: */
    uint64_t unloaded;            /* the order of an unloaded one (core/unloaded.h) */
    uintptr_t bias;               /* address - bias = address in the file */
    char *path;                   /* the file read: hp_strdup'd, or no_path */
    char *real_path;              /* the program's own file, read as /proc/self/exe: its path */
    void *file;
    size_t file_size;
    struct sym *syms;
    size_t nsyms;
    int has_dwarf;                /* it, or its debug file by build ID, holds DWARF: ask libdw */
};

struct hp_syms {
    struct module mods[MAX_MODULES];
    unsigned n;
    struct hp_lines *lines;       /* opened at the first hp_syms_location */
    int lines_tried;
    unsigned long long unloads;   /* the loader's count of unloads when it was made */
};

static struct {
    /* One report opens a set per section, and a big program's tables (node: 110,000 symbols, its
     * DWARF, libc's compressed debug file) would be loaded as many times. So the opens of one
     * thread share its set while one is open (a report holds every section's snapshot at once:
     * in_use, below), and the set closed last (its symbol tables, not its DWARF sessions) is kept
     * for the next open while no module has been unloaded since (a module loaded since is looked
     * up when asked for, as in a new set). The kept set is taken and given back by exchange: two
     * threads never share one. */
    struct hp_syms *_Atomic kept;
    char no_path[1];              /* a module's path where none could be copied: never freed */
    /* The program's file where /proc/self/exe is not it: the loader run as a program (ld.so
     * ./prog, under any name) is what exec started then, and the program's own map has no name.
     * The kernel then started no interpreter (AT_BASE is 0; an LD_PRELOAD library is never in a
     * static program). Found at start, while the name the loader was given still means what it
     * meant (the working directory may change). */
    char program_path[PATH_MAX];
    /* The program's name as it was started (argv[0]'s base), kept at start: a program may write
     * its title over argv (setproctitle: nginx, postgres, sshd). */
    char program_name[NAME_MAX + 1];
} symbols = {
    .no_path = "",
    .program_name = "?",
};
/* The set the calling thread's opens share while one is open, and how many opens hold it. */
static __thread struct {
    struct hp_syms *set;
    unsigned count;
} in_use;

static int count_unloads(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(unsigned long long *)arg = info->dlpi_subs;
    return 1;
}

static unsigned long long unloads_so_far(void)
{
    unsigned long long n = 0;
    hp_walk_modules(count_unloads, &n);
    return n;
}

static void release(struct hp_syms *s)
{
    for (unsigned i = 0; i < s->n; i++) {
        if (s->mods[i].file) syscall(SYS_munmap, s->mods[i].file, s->mods[i].file_size);
        hp_free(s->mods[i].syms);
        if (s->mods[i].path != symbols.no_path) hp_free(s->mods[i].path);
        hp_free(s->mods[i].real_path);
    }
    hp_lines_close(s->lines);
    hp_free(s);
}

struct hp_syms *hp_syms_open(void)
{
    if (in_use.set) {
        in_use.count++;
        return in_use.set;
    }
    unsigned long long unloads = unloads_so_far();
    struct hp_syms *s = atomic_exchange(&symbols.kept, NULL);
    if (s && s->unloads != unloads) {
        release(s);
        s = NULL;
    }
    if (!s && (s = hp_alloc(sizeof *s))) s->unloads = unloads;
    if (s) {
        in_use.set = s;
        in_use.count = 1;
    }
    return s;
}

void hp_syms_close(struct hp_syms *s)
{
    if (!s || (s == in_use.set && --in_use.count)) return;
    if (s == in_use.set) in_use.set = NULL;
    /* the DWARF sessions live in the program's heap (libdw's malloc): not kept past the report */
    hp_lines_close(s->lines);
    s->lines = NULL;
    s->lines_tried = 0;
    if ((s = atomic_exchange(&symbols.kept, s))) release(s);
}

/* A symbol's name without the version a full symbol table may give it (glibc's debug file has
 * `sem_post@@GLIBC_2.34`, the name a program links against, beside `__new_sem_post`). */
static size_t name_length(const char *name)
{
    return strcspn(name, "@");
}

/* Among aliases (the same value and size: `read`, `__read`, `__libc_read`), the name reports show
 * sorts last, where find() takes it: the fewest leading underscores, then the shortest, then the
 * first in the alphabet. */
static int alias_order(const struct sym *x, const struct sym *y)
{
    size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
    if (ux != uy) return ux > uy ? -1 : 1;
    size_t lx = name_length(x->name), ly = name_length(y->name);
    if (lx != ly) return lx > ly ? -1 : 1;
    return strcmp(y->name, x->name);
}

static int by_value(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? -1 : 1;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return alias_order(x, y);
}

static int in_file(const struct module *m, uint64_t off, uint64_t len)
{
    return off <= m->file_size && len <= m->file_size - off;
}

/* One stable pass of a radix sort: the symbols of `from` into `to` by byte `shift / 8` of their
 * value. Returns 0 when every symbol has the same byte there (nothing moved). */
static int radix_pass(const struct sym *from, struct sym *to, size_t n, unsigned shift)
{
    size_t count[256] = { 0 };
    for (size_t i = 0; i < n; i++) count[(from[i].value >> shift) & 255]++;
    for (unsigned b = 0; b < 256; b++)
        if (count[b] == n) return 0;
    for (size_t b = 0, at = 0; b < 256; b++) {
        size_t c = count[b];
        count[b] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++) to[count[(from[i].value >> shift) & 255]++] = from[i];
    return 1;
}

/* Symbols in by_value order: a radix sort by value, as a large program's table (cc1: 29,000
 * symbols) took a heapsort 10 ms of every report; then each run of one value (aliases: a few, but
 * hundreds in a Rust library that folds identical functions) sorted by name. */
static void sort_symbols(struct sym *syms, size_t n)
{
    struct sym *tmp = n > 64 ? hp_realloc(NULL, n * sizeof *tmp) : NULL;   /* every entry written first */
    if (!tmp) {
        hp_sort(syms, n, sizeof *syms, by_value);
        return;
    }
    struct sym *from = syms, *to = tmp;
    for (unsigned shift = 0; shift < 8 * sizeof(uintptr_t); shift += 8)
        if (radix_pass(from, to, n, shift)) {
            struct sym *t = from;
            from = to;
            to = t;
        }
    if (from != syms) memcpy(syms, from, n * sizeof *syms);
    hp_free(tmp);
    for (size_t start = 0, end; start < n; start = end) {
        for (end = start + 1; end < n && syms[end].value == syms[start].value; end++) {}
        if (end - start > 1) hp_sort(syms + start, end - start, sizeof *syms, by_value);
    }
}

/* Load a symbol table section (and its string table) into m->syms. */
static void load_table(struct module *m, const ElfW(Ehdr) *eh, const ElfW(Shdr) *sh, unsigned want)
{
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != want || sh[i].sh_entsize != sizeof(ElfW(Sym)) || sh[i].sh_link >= eh->e_shnum)
            continue;
        const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
        if (!in_file(m, sh[i].sh_offset, sh[i].sh_size) || !in_file(m, strs->sh_offset, strs->sh_size))
            continue;
        const ElfW(Sym) *syms = (const ElfW(Sym) *)((const char *)m->file + sh[i].sh_offset);
        const char *str = (const char *)m->file + strs->sh_offset;
        size_t n = sh[i].sh_size / sizeof *syms;
        /* a string table that ends in a NUL, as ELF has it, holds only names that end inside it:
         * then no name is read here (a large C++ or Rust library has 20 MB of them) */
        int terminated = strs->sh_size > 0 && str[strs->sh_size - 1] == 0;
        m->syms = hp_realloc(NULL, (n ? n : 1) * sizeof *m->syms);   /* filled from the start */
        if (!m->syms) return;
        for (size_t k = 0; k < n; k++) {
            unsigned type = ELF64_ST_TYPE(syms[k].st_info);
            if (syms[k].st_shndx == SHN_UNDEF || syms[k].st_name == 0 || syms[k].st_name >= strs->sh_size) continue;
            if (type != STT_OBJECT && type != STT_FUNC && type != STT_TLS && type != STT_GNU_IFUNC) continue;
            const char *name = str + syms[k].st_name;
            if (!terminated && (!*name || memchr(name, 0, strs->sh_size - syms[k].st_name) == NULL)) continue;
            m->syms[m->nsyms++] = (struct sym){ syms[k].st_value, syms[k].st_size, name };
        }
        sort_symbols(m->syms, m->nsyms);
        return;
    }
}

/* The program is read as /proc/self/exe, the file it runs even where its path now names another
 * (rebuilt, or deleted), and shown by that path (a deleted file's, without the link's
 * " (deleted)"). */
static const char program_file[] = "/proc/self/exe";

/* Map an ELF file whole, read-only, as m->file: its section headers, or NULL. */
static const ElfW(Shdr) *map_elf(struct module *m, const char *path)
{
    int fd = hp_platform_open(path, O_RDONLY, 0);
    if (fd < 0) return NULL;
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) == 0 && st.st_size >= (off_t)sizeof(ElfW(Ehdr))) {
        long p = syscall(SYS_mmap, NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != -1) {
            m->file = (void *)p;
            m->file_size = (size_t)st.st_size;
        }
    }
    hp_platform_close(fd);
    if (!m->file) return NULL;
    const ElfW(Ehdr) *eh = m->file;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        !in_file(m, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr))))
        return NULL;
    return (const ElfW(Shdr) *)((const char *)m->file + eh->e_shoff);
}

/* The separate debug file of a stripped module, named by its build-id note: Debian's -dbg and
 * -dbgsym packages (libc6-dbg) install it under /usr/lib/debug/.build-id/. 1 with its path. */
static int debug_file(const struct module *m, const ElfW(Shdr) *sh, char *out, size_t size)
{
    const ElfW(Ehdr) *eh = m->file;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_NOTE || !in_file(m, sh[i].sh_offset, sh[i].sh_size)) continue;
        const unsigned char *p = (const unsigned char *)m->file + sh[i].sh_offset;
        size_t left = sh[i].sh_size;
        while (left >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t name = ((size_t)nh->n_namesz + 3) & ~(size_t)3, desc = ((size_t)nh->n_descsz + 3) & ~(size_t)3;
            if (name > left - sizeof *nh || desc > left - sizeof *nh - name) break;
            const unsigned char *id = p + sizeof *nh + name;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(p + sizeof *nh, "GNU", 4) == 0 &&
                nh->n_descsz >= 2 && nh->n_descsz <= 64) {
                int k = snprintf(out, size, "/usr/lib/debug/.build-id/%02x/", id[0]);
                for (unsigned j = 1; j < nh->n_descsz; j++) k += snprintf(out + k, size - (size_t)k, "%02x", id[j]);
                return snprintf(out + k, size - (size_t)k, ".debug") == 6;
            }
            p += sizeof *nh + name + desc;
            left -= sizeof *nh + name + desc;
        }
    }
    return 0;
}

/* Whether file:line can be had for m (sh its section headers): a DWARF section of its own, or a
 * debug file by build ID, where libdw looks (core/lines.c). Most programs a distribution ships
 * have neither; for them libdw, its libelf and its compression libraries are never loaded (a
 * dlopen of a few hundred microseconds in every process of a prefork server that reports). */
static int has_dwarf(const struct module *m, const ElfW(Shdr) *sh)
{
    const ElfW(Ehdr) *eh = m->file;
    char debug[192];
    if (eh->e_shstrndx < eh->e_shnum && in_file(m, sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size)) {
        const char *names = (const char *)m->file + sh[eh->e_shstrndx].sh_offset;
        size_t size = sh[eh->e_shstrndx].sh_size;
        for (unsigned i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_name >= size || sh[i].sh_type == SHT_NOBITS) continue;
            const char *name = names + sh[i].sh_name;
            size_t left = size - sh[i].sh_name;
            if (strncmp(name, ".debug_info", left) == 0 || strncmp(name, ".zdebug_info", left) == 0) return 1;
        }
    }
    return debug_file(m, sh, debug, sizeof debug) && syscall(SYS_faccessat, AT_FDCWD, debug, R_OK, 0) == 0;
}

/* A stripped module's full symbol table (its static functions: glibc's _int_malloc), from its
 * debug file: 1 when m now holds that file and its table. */
static int load_debug_table(struct module *m, const ElfW(Shdr) *sh)
{
    char path[192];
    struct module d = { 0 };
    const ElfW(Shdr) *dsh = debug_file(m, sh, path, sizeof path) ? map_elf(&d, path) : NULL;
    if (dsh) load_table(&d, d.file, dsh, SHT_SYMTAB);
    if (!d.nsyms) {
        if (d.file) syscall(SYS_munmap, d.file, d.file_size);
        hp_free(d.syms);
        return 0;
    }
    syscall(SYS_munmap, m->file, m->file_size);
    hp_free(m->syms);
    m->file = d.file;
    m->file_size = d.file_size;
    m->syms = d.syms;
    m->nsyms = d.nsyms;
    return 1;
}

static void load_module(struct module *m, const char *path)
{
    if (!(m->path = hp_strdup(path))) m->path = symbols.no_path;
    char real[PATH_MAX];
    ssize_t n = strcmp(path, program_file) == 0 ? readlink(path, real, sizeof real) : -1;
    if (n > 0 && n < (ssize_t)sizeof real) {        /* not cut short */
        static const char deleted[] = " (deleted)";
        size_t cut = sizeof deleted - 1;
        real[n] = 0;
        if ((size_t)n > cut && strcmp(real + n - cut, deleted) == 0) real[n - (ssize_t)cut] = 0;
        m->real_path = hp_strdup(real);
    }
    const ElfW(Shdr) *sh = map_elf(m, path);
    if (!sh) return;
    m->has_dwarf = has_dwarf(m, sh);
    load_table(m, m->file, sh, SHT_SYMTAB);
    if (!m->nsyms && !load_debug_table(m, sh)) {
        hp_free(m->syms);
        m->syms = NULL;
        load_table(m, m->file, sh, SHT_DYNSYM);
    }
}

/* The module holding addr: a loaded one, else the last unloaded one that held it (a module loaded
 * since over the same addresses wins: the record answers only what nothing loaded covers). */
static struct link_map *map_of(const void *addr)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
    /* dladdr1 also walks the module's whole dynamic symbol table for the nearest symbol (1 ms an
     * address in node, with 75,000 exports); _dl_find_object answers from a sorted table */
    struct dl_find_object found;
    if (_dl_find_object((void *)addr, &found) == 0) return found.dlfo_link_map;
#endif
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP)) map = NULL;
    return map;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void hp_syms_note_program(void)
{
    snprintf(symbols.program_name, sizeof symbols.program_name, "%s", program_invocation_short_name);
    const char *name = (const char *)getauxval(AT_EXECFN);
    if (getauxval(AT_BASE) != 0 || !name || !realpath(name, symbols.program_path)) symbols.program_path[0] = 0;
}

static struct module *module_of(struct hp_syms *s, const void *addr)
{
    struct hp_unloaded u;
    if (!s) return NULL;
    struct link_map *map = map_of(addr);
    /* where the profiler's own modules (libdw, for file:line) now lie, the program's code ran
     * only in a module unloaded before: its record is the answer */
    if ((!map || hp_unloaded_is_own((uintptr_t)addr)) && hp_unloaded_find((uintptr_t)addr, &u)) map = NULL;
    else if (!map) return NULL;
    for (unsigned i = 0; i < s->n; i++)
        if (map ? s->mods[i].map == map : s->mods[i].unloaded == u.order) return &s->mods[i];
    if (s->n == MAX_MODULES) return NULL;
    struct module *m = &s->mods[s->n++];
    m->map = map;
    m->unloaded = map ? 0 : u.order;
    m->bias = map ? map->l_addr : u.bias;
    load_module(m, !map ? u.path : map->l_name && map->l_name[0] ? map->l_name :
                   symbols.program_path[0] ? symbols.program_path : program_file);
    return m;
}

struct module_starts {
    const void *at[MAX_MODULES];
    unsigned n;
};

/* Where each module with a file (not the vDSO) begins, but libhotpath.so, whose frames no stack
 * keeps. */
static int module_start(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct module_starts *m = arg;
    uintptr_t lo, hi, own = (uintptr_t)hp_syms_open;
    if (m->n == MAX_MODULES || (info->dlpi_name && info->dlpi_name[0] && info->dlpi_name[0] != '/')) return 0;
    hp_module_range(info, &lo, &hi);
    if (lo < hi && (own < lo || own >= hi)) m->at[m->n++] = (const void *)lo;
    return 0;
}

void hp_syms_keep_for_children(void)
{
    struct module_starts m = { .n = 0 };
    hp_walk_modules(module_start, &m);
    struct hp_syms *s = hp_syms_open();
    if (!s) return;
    for (unsigned i = 0; i < m.n; i++) module_of(s, m.at[i]);
    hp_syms_close(s);
}

/* The symbol holding module offset off: the last one starting at or before it whose extent
 * covers it (a sized symbol), or that starts exactly there (an unsized one). */
static const struct sym *find(const struct module *m, uintptr_t off)
{
    size_t lo = 0, hi = m->nsyms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->syms[mid].value <= off) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo, tries = 0; i-- > 0 && tries < 16; tries++) {
        const struct sym *y = &m->syms[i];
        if (!y->name[0]) continue;              /* an empty name (not weeded out at load) */
        if (off < y->value + y->size || (y->size == 0 && off == y->value)) return y;
    }
    return NULL;
}

/* A module's short name in frames: the program's as it was started (argv[0]), a library's file
 * name. */
static const char *short_name(const struct module *m)
{
    return strcmp(m->path, program_file) == 0 ? symbols.program_name : base_name(m->path);
}

/* A symbol's name as reports show it: without a version, demangled where it is a C++ name. */
static void put_name(char *out, size_t size, const char *name)
{
    char plain[1024];
    size_t n = name_length(name);
    if (name[n] && n < sizeof plain) {
        memcpy(plain, name, n);
        plain[n] = 0;
        name = plain;
    }
    if (!hp_demangle(name, out, size)) snprintf(out, size, "%.*s", (int)name_length(name), name);
}

int hp_syms_data(struct hp_syms *s, const void *addr, char *name, size_t size, const char **module)
{
    *module = NULL;
    struct module *m = module_of(s, addr);
    if (!m) return 0;
    *module = m->real_path ? m->real_path : m->path;
    uintptr_t off = (uintptr_t)addr - m->bias;
    const struct sym *y = find(m, off);
    if (!y) return 0;
    put_name(name, size, y->name);
    if (off != y->value) {
        size_t len = strlen(name);
        snprintf(name + len, size - len, "+%lu", (unsigned long)(off - y->value));
    }
    return 1;
}

void hp_syms_frame(struct hp_syms *s, const void *ret_addr, char *name, size_t size)
{
    /* a return address points after the call: look up the call itself */
    const char *pc = (const char *)ret_addr - 1;
    struct module *m = module_of(s, pc);
    if (!m) {
        snprintf(name, size, "%p", ret_addr);
        return;
    }
    uintptr_t off = (uintptr_t)pc - m->bias;
    const struct sym *y = find(m, off);
    if (y) put_name(name, size, y->name);
    else snprintf(name, size, "%s+0x%lx", short_name(m), (unsigned long)(off + 1));
}

void hp_syms_function(struct hp_syms *s, const void *ret_addr, char *name, size_t size,
                      char *module, size_t module_size)
{
    const char *pc = (const char *)ret_addr - 1;
    struct module *m = module_of(s, pc);
    if (!m) {
        snprintf(name, size, "[?]");
        snprintf(module, module_size, "%s", "");
        return;
    }
    snprintf(module, module_size, "%s", short_name(m));
    const struct sym *y = find(m, (uintptr_t)pc - m->bias);
    if (y) put_name(name, size, y->name);
    else snprintf(name, size, "[%s]", module);
}

/* glibc's own libraries. Their functions are known by name, and what their source lines would add
 * is dear: their debug file (libc6-dbg, which valgrind brings along) is detached and compressed,
 * and libdw inflates all of it (15 MB) when it opens it: 40 ms of every report with a frame there,
 * which nearly every CPU profile has, in every process of a build or a shell script. */
static int in_glibc(const char *path)
{
    static const char *const names[] = { "libc.so.", "ld-linux", "libm.so.", "libmvec.so.", "libpthread.so.",
                                         "libdl.so.", "librt.so.", "libresolv.so.", "libutil.so.", "libanl.so." };
    const char *b = base_name(path);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strncmp(b, names[i], strlen(names[i])) == 0) return 1;
    return 0;
}

int hp_syms_location(struct hp_syms *s, const void *ret_addr, char *file, size_t size, unsigned *line)
{
    const char *pc = (const char *)ret_addr - 1;
    struct module *m = module_of(s, pc);
    const struct sym *y = m ? find(m, (uintptr_t)pc - m->bias) : NULL;
    /* the profiler's own frames (its hooks, under the program's malloc or read) have none to
     * give: a hook of a function the compiler knows (malloc) is declared in a system header */
    if (!y || !m->has_dwarf || in_glibc(m->path) || m->map == map_of((const void *)hp_syms_location)) return 0;
    if (!s->lines_tried) {
        s->lines_tried = 1;
        s->lines = hp_lines_open();
    }
    return hp_lines_find(s->lines, m->path, y->value, file, size, line);
}
