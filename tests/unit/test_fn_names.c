/* test_fn_names.c — function names of the profile views: the short form text tables show for
 * long C++ names, and one number per distinct (name, module). */
#include "unit.h"

#include "report/fn_names.h"

static void shown(const char *name, size_t max, const char *want)
{
    char out[HP_FN_NAME];
    hp_fn_display(name, out, sizeof out, max);
    ck_assert_str_eq(out, want);
    ck_assert_uint_le(strlen(out), max);
}

START_TEST(short_names_are_kept)
{
    shown("hot_a", 80, "hot_a");
    shown("std::vector<int, std::allocator<int> >::push_back(int const&)", 80,
          "std::vector<int, std::allocator<int> >::push_back(int const&)");
}
END_TEST

START_TEST(template_arguments_go_first)
{
    shown("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(int const&)", 60,
          "void std::vector<…>::_M_realloc_insert<…>(int const&)");
}
END_TEST

START_TEST(then_the_parameters)
{
    shown("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
          "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)", 50,
          "void std::vector<…>::_M_realloc_insert<…>(…)");
}
END_TEST

START_TEST(operators_are_not_brackets)
{
    shown("bool ns::Key::operator<(ns::Key const&) const and a long tail to make it too long", 40,
          "bool ns::Key::operator<(…) const an…");
    shown("bool ns::Key::operator<(ns::Key<int> const&) const", 40, "bool ns::Key::operator<(…) const");
    shown("(anonymous namespace)::Parser::parse(std::basic_string<char> const&, int)", 50,
          "(anonymous namespace)::Parser::parse(…)");
}
END_TEST

START_TEST(a_name_cut_short_closes_its_brackets)
{
    shown("std::_Rb_tree_iterator<std::pair<std::basic_string<char> const, int> > std::_Rb_tree<std::basic_str", 50,
          "std::_Rb_tree_iterator<…> std::_Rb_tree<…>");
}
END_TEST

START_TEST(the_last_resort_cuts_between_characters)
{
    char out[HP_FN_NAME];
    hp_fn_display("ééééééééééééééééééééé", out, sizeof out, 10);   /* two bytes each */
    ck_assert_uint_le(strlen(out), 10);
    ck_assert_str_eq(out, "ééé…");
}
END_TEST

START_TEST(one_number_per_function)
{
    struct hp_fn_names m;
    ck_assert_int_eq(hp_fn_names_open(&m, 100), 0);
    int64_t a = hp_fn_names_intern(&m, "f", "libx.so");
    int64_t b = hp_fn_names_intern(&m, "f", "liby.so");
    ck_assert_int_ne(a, b);
    ck_assert_int_eq(hp_fn_names_intern(&m, "f", "libx.so"), a);
    ck_assert_uint_eq(m.n, 2);
    ck_assert_str_eq(m.fns[b].module, "liby.so");
    ck_assert(!hp_fn_is_profiler(&m.fns[a]));
    int64_t p = hp_fn_names_intern(&m, "trampoline", "libhotpath.so");
    ck_assert(hp_fn_is_profiler(&m.fns[p]));
    char where[64];
    hp_fn_where(&m.fns[a], where, sizeof where);
    ck_assert_str_eq(where, "-");
    snprintf(m.fns[a].file, sizeof m.fns[a].file, "/src/x/file.c");
    m.fns[a].line = 42;
    hp_fn_where(&m.fns[a], where, sizeof where);
    ck_assert_str_eq(where, "file.c:42");
    hp_fn_names_close(&m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fn_names");
    TCase *tc = tcase_create("core");
    HP_ADD(tc, short_names_are_kept);
    HP_ADD(tc, template_arguments_go_first);
    HP_ADD(tc, then_the_parameters);
    HP_ADD(tc, operators_are_not_brackets);
    HP_ADD(tc, a_name_cut_short_closes_its_brackets);
    HP_ADD(tc, the_last_resort_cuts_between_characters);
    HP_ADD(tc, one_number_per_function);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(suite)
