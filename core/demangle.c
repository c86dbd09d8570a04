/* demangle.c — see demangle.h. The demangler's working arrays are variable-length arrays of about
 * 72 bytes per character of the mangled name: names are demangled up to MAX_MANGLED characters,
 * so it needs at most ~74 KB of a profiler thread's 256 KB stack. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <string.h>

#define MAX_MANGLED 1024

struct sink {
    char *out;
    size_t size, len;
};

static void append(const char *s, size_t n, void *opaque)
{
    struct sink *k = opaque;
    if (k->len + 1 >= k->size) return;
    if (n > k->size - 1 - k->len) n = k->size - 1 - k->len;
    memcpy(k->out + k->len, s, n);
    k->len += n;
    k->out[k->len] = 0;
}

int hp_demangle(const char *name, char *out, size_t size)
{
    int rust_v0 = strncmp(name, "_R", 2) == 0;
    if (!size || (!rust_v0 && strncmp(name, "_Z", 2) != 0) || strnlen(name, MAX_MANGLED + 1) > MAX_MANGLED)
        return 0;
    char buf[512];
    struct sink k = { buf, size < sizeof buf ? size : sizeof buf, 0 };
    buf[0] = 0;
    /* Rust's names, v0 (_R...) and legacy (_ZN...17h<hash>E, which the C++ demangler would show
     * with its hash), without hashes and LLVM's .llvm.N suffixes; then C++'s */
    int ok = rust_demangle_callback(name, DMGL_PARAMS | DMGL_ANSI, append, &k) && k.len;
    if (!ok && !rust_v0) {
        k.len = 0;
        buf[0] = 0;
        ok = cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, append, &k) && k.len;
    }
    if (!ok) return 0;
    memcpy(out, buf, k.len + 1);
    return 1;
}
