/* test_symbols.c — core/symbols.h: names of static data (with offsets) and of functions
 * from the test binary's own static symbol table; demangled C++ names; a module unloaded with
 * dlclose still named from its record (core/unloaded.h); file:line from DWARF. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

#include "core/demangle.h"
#include "core/symbols.h"
#include "core/unloaded.h"
#include "unit.h"

static pthread_mutex_t unit_static_locks[4];
pthread_mutex_t unit_global_lock = PTHREAD_MUTEX_INITIALIZER;

enum { UNIT_STATIC_FUNCTION_LINE = __LINE__ + 1 };
static __attribute__((noinline)) void *unit_static_function(void)
{
    return __builtin_return_address(0);
}

START_TEST(static_and_global_data)
{
    struct hp_syms *s = hp_syms_open();
    char name[128];
    const char *module = NULL;
    ck_assert_int_eq(hp_syms_data(s, &unit_global_lock, name, sizeof name, &module), 1);
    ck_assert_str_eq(name, "unit_global_lock");
    ck_assert_ptr_nonnull(module);
    ck_assert_int_eq(hp_syms_data(s, &unit_static_locks[2], name, sizeof name, &module), 1);
    char want[64];
    snprintf(want, sizeof want, "unit_static_locks+%zu", 2 * sizeof(pthread_mutex_t));
    ck_assert_str_eq(name, want);
    int on_stack = 0;
    ck_assert_int_eq(hp_syms_data(s, &on_stack, name, sizeof name, &module), 0);
    hp_syms_close(s);
}
END_TEST

START_TEST(function_frames)
{
    struct hp_syms *s = hp_syms_open();
    char name[128];
    /* a return address inside this test function */
    hp_syms_frame(s, unit_static_function(), name, sizeof name);
    ck_assert_str_eq(name, "function_frames_fn");
    hp_syms_frame(s, (const char *)(uintptr_t)unit_static_function + 1, name, sizeof name);
    ck_assert_str_eq(name, "unit_static_function");
    hp_syms_close(s);
}
END_TEST

START_TEST(demangled_names)
{
    char out[128];
    ck_assert_int_eq(hp_demangle("_ZN2ns3Hot4spinEi", out, sizeof out), 1);
    ck_assert_str_eq(out, "ns::Hot::spin(int)");
    ck_assert_int_eq(hp_demangle("_ZN2ns5churnIdEET_S1_", out, sizeof out), 1);
    ck_assert_str_eq(out, "double ns::churn<double>(double)");
    ck_assert_int_eq(hp_demangle("_ZNKSt6vectorIiSaIiEE4sizeEv.cold", out, sizeof out), 1);
    ck_assert_str_eq(out, "std::vector<int, std::allocator<int> >::size() const [clone .cold]");
    /* Rust: v0 and legacy names, without hashes and LLVM's suffixes */
    ck_assert_int_eq(hp_demangle("_RNvCsjDQNFu7nQ4C_17rustc_driver_impl14handle_options", out, sizeof out), 1);
    ck_assert_str_eq(out, "rustc_driver_impl::handle_options");
    ck_assert_int_eq(hp_demangle("_RNvNtCs3TffaVLKYX7_13rustc_session7session10mk_emitter.llvm.11156187312493216109",
                                 out, sizeof out), 1);
    ck_assert_str_eq(out, "rustc_session::session::mk_emitter");
    ck_assert_int_eq(hp_demangle("_RINvNtCs1234_4core3ptr13drop_in_placeNtNtCs5678_5alloc6string6StringEB4_", out, sizeof out), 1);
    ck_assert_str_eq(out, "core::ptr::drop_in_place::<alloc::string::String>");
    ck_assert_int_eq(hp_demangle("_ZN3std2rt10lang_start17h1234567890abcdefE", out, sizeof out), 1);
    ck_assert_str_eq(out, "std::rt::lang_start");
    /* cut to the buffer */
    char small[8];
    ck_assert_int_eq(hp_demangle("_ZN2ns3Hot4spinEi", small, sizeof small), 1);
    ck_assert_str_eq(small, "ns::Hot");
    /* not C++, or not valid: untouched */
    strcpy(out, "keep");
    ck_assert_int_eq(hp_demangle("main", out, sizeof out), 0);
    ck_assert_int_eq(hp_demangle("_Zgarbage", out, sizeof out), 0);
    ck_assert_int_eq(hp_demangle("_Rgarbage", out, sizeof out), 0);
    ck_assert_str_eq(out, "keep");
}
END_TEST

/* A library not loaded yet by this process (a dependency of libdw, so present where hotpath
 * builds); NULL when it is already loaded and dlclose would not unload it. */
static void *fresh_library(const char **name)
{
    static const char *const names[] = { "libbz2.so.1.0", "liblzma.so.5", "libelf.so.1" };
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
        if (h) {
            dlclose(h);
            continue;
        }
        if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL))) {
            *name = names[i];
            return h;
        }
    }
    return NULL;
}

START_TEST(unloaded_module_still_named)
{
    const char *lib;
    void *h = fresh_library(&lib);
    if (!h) return;
    Dl_info info;
    struct hp_dl_list *before = hp_unloaded_before();
    const char *fn = NULL;
    static const char *const fns[] = { "BZ2_bzlibVersion", "lzma_version_string", "elf_version" };
    for (unsigned i = 0; i < 3 && !fn; i++)
        if (dlsym(h, fns[i])) fn = fns[i];
    ck_assert_ptr_nonnull(fn);
    const char *addr = (const char *)dlsym(h, fn) + 1;   /* as a return address inside it */
    ck_assert_int_eq(dlclose(h), 0);
    hp_unloaded_after(before);
    ck_assert_int_eq(dladdr(addr, &info), 0);            /* gone from the loader's view */
    struct hp_unloaded u;
    ck_assert_int_eq(hp_unloaded_find((uintptr_t)addr, &u), 1);
    ck_assert(strstr(u.path, lib) != NULL);
    struct hp_syms *s = hp_syms_open();
    char name[128], module[64];
    hp_syms_function(s, addr, name, sizeof name, module, sizeof module);
    ck_assert_str_eq(name, fn);
    ck_assert_str_eq(module, lib);
    hp_syms_close(s);
    /* a loaded module is never answered from a record */
    ck_assert_int_eq(hp_unloaded_find((uintptr_t)unit_static_function, &u), 0);
}
END_TEST

START_TEST(own_modules_marked)
{
    const char *lib;
    struct hp_dl_list *before = hp_unloaded_before();
    void *h = fresh_library(&lib);
    if (!h) {
        hp_unloaded_mark_own(before);
        return;
    }
    hp_unloaded_mark_own(before);
    ck_assert_int_eq(hp_unloaded_is_own((uintptr_t)dlsym(h, "BZ2_bzlibVersion") | (uintptr_t)dlsym(h, "lzma_version_string") |
                                        (uintptr_t)dlsym(h, "elf_version")), 1);
    ck_assert_int_eq(hp_unloaded_is_own((uintptr_t)unit_static_function), 0);
}
END_TEST

START_TEST(function_location)
{
    struct hp_syms *s = hp_syms_open();
    char file[256];
    unsigned line = 0;
    /* built with -g: unit_static_function is defined on its line in this file */
    if (hp_syms_location(s, (const char *)(uintptr_t)unit_static_function + 1, file, sizeof file, &line)) {
        ck_assert_msg(strstr(file, "test_symbols.c") != NULL, "%s", file);
        ck_assert_uint_eq(line, UNIT_STATIC_FUNCTION_LINE);
    } else {
        ck_assert_msg(dlopen("libdw.so.1", RTLD_NOW | RTLD_NOLOAD) == NULL, "libdw loaded, no location");
    }
    hp_syms_close(s);
}
END_TEST

START_TEST(aliases_named_plainly)
{
    /* libc's read is also __read and __libc_read (the same value and size), close also __close
     * and __libc_close: the plain name is the one shown */
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    ck_assert_ptr_nonnull(libc);
    static const char *const fns[] = { "read", "close", "write", "nanosleep" };
    struct hp_syms *s = hp_syms_open();
    for (unsigned i = 0; i < sizeof fns / sizeof *fns; i++) {
        char name[128], module[64];
        hp_syms_function(s, (const char *)dlsym(libc, fns[i]) + 1, name, sizeof name, module, sizeof module);
        ck_assert_str_eq(name, fns[i]);
        ck_assert_str_eq(module, "libc.so.6");
    }
    hp_syms_close(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("symbols");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, static_and_global_data);
    HP_ADD(tc, function_frames);
    HP_ADD(tc, demangled_names);
    HP_ADD(tc, unloaded_module_still_named);
    HP_ADD(tc, own_modules_marked);
    HP_ADD(tc, function_location);
    HP_ADD(tc, aliases_named_plainly);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
