/* test_http_parse.c — report/http_parse.h: the metrics server's request parser and token check. */
#include "report/http_parse.h"
#include "unit.h"

static struct hp_http_request req;

static int parse(const char *s)
{
    return hp_http_parse(s, strlen(s), &req);
}

START_TEST(simple_get)
{
    const char *s = "GET /threads HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    ck_assert_int_eq(parse(s), (int)strlen(s));
    ck_assert_int_eq(req.method, HP_HTTP_GET);
    ck_assert_str_eq(req.path, "/threads");
    ck_assert_int_eq(req.has_auth, 0);
    ck_assert_int_eq(req.keep_alive, 1);
}
END_TEST

START_TEST(head_query_and_bare_lf)
{
    const char *s = "HEAD /metrics?x=1 HTTP/1.0\nAccept: */*\n\n";
    ck_assert_int_eq(parse(s), (int)strlen(s));
    ck_assert_int_eq(req.method, HP_HTTP_HEAD);
    ck_assert_str_eq(req.path, "/metrics");
    ck_assert_int_eq(req.keep_alive, 0);
}
END_TEST

START_TEST(trailing_bytes_not_consumed)
{
    const char *s = "GET / HTTP/1.1\r\nConnection: close\r\n\r\nGET /x HTTP/1.1\r\n";
    ck_assert_int_eq(parse(s), (int)(strstr(s, "\r\n\r\n") - s) + 4);
    ck_assert_int_eq(req.keep_alive, 0);
}
END_TEST

START_TEST(incomplete)
{
    ck_assert_int_eq(parse(""), 0);
    ck_assert_int_eq(parse("GET /threads HT"), 0);
    ck_assert_int_eq(parse("GET /threads HTTP/1.1\r\nHost: x\r\n"), 0);
}
END_TEST

START_TEST(authorization)
{
    ck_assert_int_gt(parse("GET / HTTP/1.1\r\nauthorization:   Bearer abc  \r\n\r\n"), 0);
    ck_assert_int_eq(req.has_auth, 1);
    ck_assert_str_eq(req.auth, "Bearer abc");
    ck_assert_int_eq(hp_http_authorized(req.auth, "abc"), 1);
    /* bare, Bearer with its name in any case, and Basic: the password of any user (base64 of
     * "u:abc", ":abc", "me:abc"), the first colon ending the user */
    static const struct { const char *value, *token; int ok; } auth[] = {
        { "abc", "abc", 1 },
        { "abd", "abc", 0 },
        { "ab", "abc", 0 },
        { "abcd", "abc", 0 },
        { "", "abc", 0 },
        { "Bearer ", "abc", 0 },
        { "anything", "", 0 },
        { "bearer abc", "abc", 1 },
        { "BEARER  abc", "abc", 1 },
        { "Bearerabc", "abc", 0 },
        { "Basic dTphYmM=", "abc", 1 },
        { "basic OmFiYw==", "abc", 1 },
        { "Basic bWU6YWJj", "abc", 1 },
        { "Basic dTphYmQ=", "abc", 0 }, /* u:abd */
        { "Basic dTphYg==", "abc", 0 }, /* u:ab */
        { "Basic dTphYmNk", "abc", 0 }, /* u:abcd */
        { "Basic YWJj", "abc", 0 }, /* abc: no user, no colon */
        { "Basic dTphYmM", "abc", 1 }, /* padding left out */
        { "Basic dTph!mM=", "abc", 0 }, /* not base64 */
        { "Basic d", "abc", 0 },
        { "Basic ", "abc", 0 },
        { "Basic dTphYmM=", "", 0 },
        { "Basic dTphOmM=", "a:c", 1 },  /* u:a:c */
    };
    for (unsigned i = 0; i < sizeof auth / sizeof *auth; i++)
        ck_assert_msg(hp_http_authorized(auth[i].value, auth[i].token) == auth[i].ok, "%s", auth[i].value);
    /* two Authorization headers are ambiguous */
    ck_assert_int_eq(parse("GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n"), -400);
}
END_TEST

static const struct { const char *req; int status; } bad[] = {
    { "\r\n\r\n", -400 },
    { "GET\r\n\r\n", -400 },
    { "GET /\r\n\r\n", -400 },
    { "GET  / HTTP/1.1\r\n\r\n", -400 },
    { "GET threads HTTP/1.1\r\n\r\n", -400 },
    { "GET / HTTP/1.1 x\r\n\r\n", -400 },
    { "GET / HTTX/1.1\r\n\r\n", -400 },
    { "GET / HTTP/2.0\r\n\r\n", -505 },
    { "G(T / HTTP/1.1\r\n\r\n", -400 },
    { "GET /a\x01 HTTP/1.1\r\n\r\n", -400 },
    { "GET / HTTP/1.1\r\nNo colon\r\n\r\n", -400 },
    { "GET / HTTP/1.1\r\n folded: x\r\n\r\n", -400 },
    { "GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n", -400 },
    { "POST /threads HTTP/1.1\r\n\r\n", -405 },
    { "DELETE / HTTP/1.1\r\n\r\n", -405 },
    { "BREW / HTTP/1.1\r\n", -405 },         /* known before the head is whole */
    { "\x16\x03\x01\x02\x05\x01\x7f\x01\xfc\x03\x03\n", -400 },   /* a TLS hello */
};

START_TEST(malformed)
{
    ck_assert_int_eq(hp_http_parse(bad[_i].req, strlen(bad[_i].req), &req), bad[_i].status);
}
END_TEST

START_TEST(too_large)
{
    static char big[HP_HTTP_HEAD_MAX + 100];
    strcpy(big, "GET / HTTP/1.1\r\nX: ");
    size_t n = strlen(big);
    memset(big + n, 'a', sizeof big - n - 1);
    ck_assert_int_eq(hp_http_parse(big, HP_HTTP_HEAD_MAX - 1, &req), 0);
    ck_assert_int_eq(hp_http_parse(big, HP_HTTP_HEAD_MAX, &req), -431);
    ck_assert_int_eq(hp_http_parse(big, sizeof big - 1, &req), -431);
    /* a long path: 400, never a buffer overrun */
    static char path[1200];
    strcpy(path, "GET /");
    memset(path + 5, 'p', 1000);
    strcpy(path + 1005, " HTTP/1.1\r\n\r\n");
    ck_assert_int_eq(parse(path), -400);
}
END_TEST

START_TEST(embedded_nul)
{
    static const char s[] = "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n";
    ck_assert_int_eq(hp_http_parse(s, sizeof s - 1, &req), -400);
}
END_TEST

static Suite *http_parse_suite(void)
{
    Suite *s = suite_create("http_parse");
    TCase *tc = tcase_create("parse");
    HP_ADD(tc, simple_get);
    HP_ADD(tc, head_query_and_bare_lf);
    HP_ADD(tc, trailing_bytes_not_consumed);
    HP_ADD(tc, incomplete);
    HP_ADD(tc, authorization);
    tcase_add_loop_test(tc, malformed, 0, (int)(sizeof bad / sizeof *bad));
    HP_ADD(tc, too_large);
    HP_ADD(tc, embedded_nul);
    suite_add_tcase(s, tc);
    return s;
}

HP_UNIT_MAIN(http_parse_suite)
