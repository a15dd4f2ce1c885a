/* The JSON reader (RFC 8259, strict): every valid form accepted, the invalid ones of
   JSONTestSuite's n_* spirit refused with LLM_EFORMAT and a reason, the token structure
   (type, start/len, n, next), counting mode, the getters, llm_json_num against strtod,
   and Hugging Face's real tokenizer.json files from ../shared/vocab. */
#include "llm.h"
#include "test.h"
#include "filecheck.h"
#include <float.h>
#include <stdint.h>

#define NTOK 512
static llm_json_tok toks[NTOK];

/* parse a NUL-terminated text; *n tokens */
static llm_status parse(const char *s, size_t len, size_t *n, const char **why) {
    return llm_json_parse(s, len, toks, NTOK, n, why);
}

/* ---- every valid form is accepted ---------------------------------------------------- */

static void test_valid(void) {
    static const struct {
        const char *s;
        int n_toks; /* tokens expected */
        llm_json_type top;
    } ok[] = {
        {"{}", 1, LLM_JSON_OBJECT}, {"[]", 1, LLM_JSON_ARRAY}, {"[[]]", 2, LLM_JSON_ARRAY},
        {"{\"a\":{}}", 3, LLM_JSON_OBJECT}, {"[{}, [], {\"\":[]}]", 6, LLM_JSON_ARRAY},
        {"null", 1, LLM_JSON_NULL}, {"true", 1, LLM_JSON_TRUE}, {"false", 1, LLM_JSON_FALSE},
        {"0", 1, LLM_JSON_NUMBER}, {"-0", 1, LLM_JSON_NUMBER}, {"\"\"", 1, LLM_JSON_STRING},
        {"\"x\"", 1, LLM_JSON_STRING}, {" \t\r\n1 \t\r\n", 1, LLM_JSON_NUMBER},
        {" \n{ \"a\" \t: \r[ 1 , 2 ] ,\n\"b\" : null } \n", 7, LLM_JSON_OBJECT},
        {"[1,-1,0.5,-0.5,10,1e5,1E5,1e+5,1e-5,1E-5,1.5e3,0e0,0.0,-0.0e-0,123456789,1e00,-1.25E+02]", 18,
         LLM_JSON_ARRAY},
        {"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"]", 2, LLM_JSON_ARRAY},
        {"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80\x7f\"", 1, LLM_JSON_STRING},
        {"{\"a\":1,\"a\":2}", 5, LLM_JSON_OBJECT}, /* duplicate keys: RFC 8259 allows, lookups take the first */
        {"[null,true,false,\"s\",{\"k\":[{}]}]", 9, LLM_JSON_ARRAY},
        {"{\"\\u0000\":\"\\u0000\"}", 3, LLM_JSON_OBJECT},
    };
    size_t i, n;
    const char *why;
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        llm_status st = parse(ok[i].s, strlen(ok[i].s), &n, &why);
        CHECK_MSG(st == LLM_OK && n == (size_t)ok[i].n_toks && toks[0].type == ok[i].top && toks[0].next == n,
                  "valid #%d %s: %s, %d tokens (want %d): %s", (int)i, ok[i].s, llm_status_str(st), (int)n, ok[i].n_toks, why);
    }
    {   /* 64 levels deep is accepted, and the deepest token knows its place */
        char s[600];
        int d;
        for (d = 0; d < 64; d++) s[d] = '[', s[64 + d] = ']';
        CHECK_OK(parse(s, 128, &n, &why));
        CHECK(n == 64 && toks[0].n == 1 && toks[63].n == 0 && toks[63].start == 63 && toks[63].len == 2 && toks[0].len == 128);
        for (d = 0; d < 63; d++) s[d * 6] = '{', memcpy(s + d * 6 + 1, "\"k\": ", 5);
        s[63 * 6] = '1';
        for (d = 0; d < 63; d++) s[63 * 6 + 1 + d] = '}';
        CHECK_OK(llm_json_parse(s, 63 * 7 + 1, toks, NTOK, &n, &why)); /* 63 objects + a number: depth 64 */
    }
}

/* ---- every invalid form is refused ------------------------------------------------------- */

static void test_invalid(void) {
    /* each with its length: some hold a NUL byte */
#define BAD(lit) {lit, sizeof(lit) - 1}
    static const struct {
        const char *s;
        size_t n;
    } bad[] = {
        /* structure */
        BAD(""), BAD(" "), BAD("[1,]"), BAD("{\"a\":1,}"), BAD("[,1]"), BAD("[1,,2]"), BAD("{,}"), BAD("[1 2]"),
        BAD("{\"a\" 1}"), BAD("{\"a\":}"), BAD("{\"a\"}"), BAD("{\"a\":1 \"b\":2}"), BAD("{a:1}"), BAD("{'a':1}"),
        BAD("['x']"), BAD("{1:1}"), BAD("{null:1}"), BAD("[1]]"), BAD("[1]x"), BAD("{}}"), BAD("1 2"), BAD("\"a\" \"b\""),
        BAD("[1}"), BAD("{\"a\":1]"), BAD("]"), BAD("}"), BAD(":"), BAD(","), BAD("[1:2]"), BAD("{\"a\"::1}"),
        /* unterminated */
        BAD("["), BAD("[1"), BAD("[1,"), BAD("{"), BAD("{\"a\""), BAD("{\"a\":"), BAD("{\"a\":1"), BAD("{\"a\":1,"),
        BAD("\"abc"), BAD("\"\\"), BAD("\"\\\""), BAD("[\"a]"), BAD("\"\\u12"), BAD("\"\\u123\""),
        /* comments, literals */
        BAD("/**/1"), BAD("1//c"), BAD("[1/*c*/]"), BAD("# x\n1"), BAD("nul"), BAD("nulll"), BAD("True"), BAD("NULL"),
        BAD("tru"), BAD("fals"), BAD("undefined"), BAD("NaN"), BAD("-NaN"), BAD("Infinity"), BAD("-Infinity"),
        BAD("[NaN]"), BAD("inf"),
        /* numbers */
        BAD("01"), BAD("-01"), BAD("00"), BAD("+1"), BAD(".5"), BAD("1."), BAD("1.e5"), BAD("1e"), BAD("1e+"), BAD("1e-"),
        BAD("1E"), BAD("-"), BAD("--1"), BAD("- 1"), BAD("0x10"), BAD("1.5.5"), BAD("1e5e5"), BAD("[.1]"), BAD("[1.]"),
        BAD("1,5"), BAD("\xef\xbc\x91"), BAD("1ee5"), BAD("012.5"), BAD("-.5"), BAD("0.e1"), BAD("2.e-3"),
        /* strings: escapes, control characters */
        BAD("\"\\x41\""), BAD("\"\\a\""), BAD("\"\\'\""), BAD("\"\\U0041\""), BAD("\"\\u00G1\""), BAD("\"\\ud800\""),
        BAD("\"\\udc00\""), BAD("\"\\ud800\\u0041\""), BAD("\"\\ud800\\ud800\""), BAD("\"\\ud800x\""), BAD("\"\\uDFFF\""),
        BAD("\"\\ud83d\\\""), BAD("\"\t\""), BAD("\"\n\""), BAD("\"\r\""), BAD("\"\x01\""), BAD("\"\x1f\""),
        BAD("\"a\0b\""), BAD("'a'"), BAD("\"\\\n\""), BAD("\"\\ \""),
        /* invalid UTF-8 (RFC 3629) in strings */
        BAD("\"\x80\""), BAD("\"\xbf\""), BAD("\"\xc0\xaf\""), BAD("\"\xc1\xbf\""), BAD("\"\xe0\x80\xaf\""),
        BAD("\"\xe0\x9f\xbf\""), BAD("\"\xf0\x80\x80\xaf\""), BAD("\"\xf0\x8f\xbf\xbf\""), BAD("\"\xed\xa0\x80\""),
        BAD("\"\xed\xbf\xbf\""), BAD("\"\xed\xa0\xbd\xed\xb8\x80\""), BAD("\"\xf4\x90\x80\x80\""), BAD("\"\xf5\x80\x80\x80\""),
        BAD("\"\xf8\x88\x80\x80\x80\""), BAD("\"\xfe\""), BAD("\"\xff\""), BAD("\"\xc3\""), BAD("\"\xe2\x82\""),
        BAD("\"\xf0\x9f\x98\""), BAD("\"\xc3\x41\""), BAD("\"\xe2\x82\x41\""), BAD("\"\xf0\x9f\x98\x41\""), BAD("\"\xc3"),
        /* outside strings: a BOM, NUL, non-ASCII white space, text after the value */
        BAD("\xef\xbb\xbf{}"), BAD("{}\0"), BAD("\0"), BAD("[1]\0"), BAD("\xc2\xa0[]"), BAD("[\f1]"), BAD("[\v1]"),
        BAD("[1]\x1a"), BAD("{} {}"), BAD("[] x"), BAD("\"\" \"\""), BAD("\xc3\xa9"),
    };
#undef BAD
    size_t i, n;
    int failed = 0;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = NULL;
        /* a copy in a buffer of exactly the text's length, so a read past the end shows
           under ASan / valgrind */
        char *copy = (char *)malloc(bad[i].n ? bad[i].n : 1);
        llm_status st;
        memcpy(copy, bad[i].s, bad[i].n);
        st = llm_json_parse(copy, bad[i].n, toks, NTOK, &n, &why);
        if (!(st == LLM_EFORMAT && why && *why)) {
            failed = 1;
            CHECK_MSG(0, "invalid #%d (%d bytes) accepted or refused without a reason: %s", (int)i, (int)bad[i].n, llm_status_str(st));
        }
        /* counting mode refuses it the same way */
        st = llm_json_parse(copy, bad[i].n, NULL, 0, &n, &why);
        if (st != LLM_EFORMAT) {
            failed = 1;
            CHECK_MSG(0, "invalid #%d accepted in counting mode: %s", (int)i, llm_status_str(st));
        }
        free(copy);
    }
    printf("test_json: %d invalid texts refused\n", (int)(sizeof bad / sizeof bad[0]));
    CHECK(!failed && sizeof bad / sizeof bad[0] >= 60);
    {   /* 65 levels of nesting are refused, whatever the mix of brackets */
        char s[600];
        const char *why = NULL;
        int d;
        for (d = 0; d < 65; d++) s[d] = '[', s[65 + d] = ']';
        CHECK(llm_json_parse(s, 130, toks, NTOK, &n, &why) == LLM_EFORMAT && why && strstr(why, "64"));
        for (d = 0; d < 64; d++) s[d * 6] = '{', memcpy(s + d * 6 + 1, "\"k\": ", 5);
        s[64 * 6] = '[', s[64 * 6 + 1] = ']';
        for (d = 0; d < 64; d++) s[64 * 6 + 2 + d] = '}';
        CHECK(llm_json_parse(s, 64 * 7 + 2, toks, NTOK, &n, &why) == LLM_EFORMAT);
    }
    {   /* arguments */
        const char *why = NULL;
        CHECK(llm_json_parse(NULL, 2, toks, NTOK, &n, &why) == LLM_EINVAL && *why);
        CHECK(llm_json_parse("[]", 2, NULL, 4, &n, &why) == LLM_EINVAL);
        CHECK(llm_json_parse("[]", 2, toks, NTOK, NULL, NULL) == LLM_OK); /* n_toks and why optional */
        CHECK(llm_json_parse("[] ", 2, toks, NTOK, &n, NULL) == LLM_OK && n == 1); /* len, not the NUL, ends it */
    }
}

/* ---- strings decode to the right UTF-8 --------------------------------------------------- */

static void test_strings(void) {
    static const struct {
        const char *json, *utf8;
        size_t n;
    } s[] = {
        {"\"\"", "", 0},
        {"\"abc\"", "abc", 3},
        {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8},
        {"\"\\u0041\\u007f\"", "A\x7f", 2},
        {"\"\\u0080\\u07FF\"", "\xc2\x80\xdf\xbf", 4},
        {"\"\\u0800\\uffff\"", "\xe0\xa0\x80\xef\xbf\xbf", 6},
        {"\"\\u00e9\\u20ac\"", "\xc3\xa9\xe2\x82\xac", 5},
        {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4},               /* U+1F600 */
        {"\"\\uD800\\uDC00\"", "\xf0\x90\x80\x80", 4},               /* U+10000, the first pair */
        {"\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf", 4},               /* U+10FFFF, the last */
        {"\"a\\u0000b\"", "a\0b", 3},                                /* an escaped NUL is a byte */
        {"\"\xc3\xa9\\n\xf0\x9f\x98\x80\"", "\xc3\xa9\n\xf0\x9f\x98\x80", 7}, /* raw UTF-8 kept */
        {"\"\\ud83d\\ude00\\ud83d\\ude00x\"", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80x", 9},
    };
    char out[64];
    size_t i, n, len;
    for (i = 0; i < sizeof s / sizeof s[0]; i++) {
        int ok = parse(s[i].json, strlen(s[i].json), &n, NULL) == LLM_OK && n == 1 && toks[0].type == LLM_JSON_STRING;
        memset(out, 'Z', sizeof out);
        ok = ok && toks[0].start == 1 && toks[0].len == strlen(s[i].json) - 2; /* between the quotes, escapes kept */
        ok = ok && llm_json_str(s[i].json, &toks[0], out, sizeof out, &len) == LLM_OK && len == s[i].n &&
             memcmp(out, s[i].utf8, s[i].n) == 0 && out[len] == '\0' && out[len + 1] == 'Z';
        CHECK_MSG(ok, "string #%d %s decodes wrong (%d bytes)", (int)i, s[i].json, (int)len);
        /* eq on the decoded bytes (not for the one with a NUL: s is a C string) */
        if (!memchr(s[i].utf8, 0, s[i].n)) CHECK_MSG(llm_json_eq(s[i].json, &toks[0], s[i].utf8), "eq #%d", (int)i);
    }
    /* too small: LLM_ERANGE with the bytes needed, no write past cap */
    CHECK_OK(parse("\"\\ud83d\\ude00ab\"", 16, &n, NULL));
    memset(out, 'Z', sizeof out);
    CHECK(llm_json_str("\"\\ud83d\\ude00ab\"", &toks[0], out, 6, &len) == LLM_ERANGE && len == 6 && out[6] == 'Z');
    CHECK(llm_json_str("\"\\ud83d\\ude00ab\"", &toks[0], out, 7, &len) == LLM_OK && len == 6 && out[6] == 0);
    CHECK(llm_json_str("\"\\ud83d\\ude00ab\"", &toks[0], NULL, 0, &len) == LLM_ERANGE && len == 6); /* measure */
    CHECK(llm_json_str("\"\\ud83d\\ude00ab\"", &toks[0], NULL, 4, &len) == LLM_EINVAL);
    CHECK_OK(parse("12", 2, &n, NULL));
    CHECK(llm_json_str("12", &toks[0], out, sizeof out, &len) == LLM_EFORMAT);
    CHECK(!llm_json_eq("12", &toks[0], "12")); /* a number is not a string */
}

/* ---- tokens: type, start/len, n, next -------------------------------------------------- */

static void test_tokens(void) {
    static const char *j = "{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\", \"d\": {}}";
    static const struct {
        llm_json_type type;
        const char *text; /* the token's bytes */
        uint32_t n, next;
    } want[] = {
        {LLM_JSON_OBJECT, "{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\", \"d\": {}}", 3, 12},
        {LLM_JSON_STRING, "a", 0, 2},
        {LLM_JSON_ARRAY, "[1, 2, {\"b\": null}]", 3, 8},
        {LLM_JSON_NUMBER, "1", 0, 4},
        {LLM_JSON_NUMBER, "2", 0, 5},
        {LLM_JSON_OBJECT, "{\"b\": null}", 1, 8},
        {LLM_JSON_STRING, "b", 0, 7},
        {LLM_JSON_NULL, "null", 0, 8},
        {LLM_JSON_STRING, "c", 0, 9},
        {LLM_JSON_STRING, "x", 0, 10},
        {LLM_JSON_STRING, "d", 0, 11},
        {LLM_JSON_OBJECT, "{}", 0, 12},
    };
    llm_json_tok small[16];
    size_t n, i, m, len = strlen(j);
    const char *why;
    int ok = 1;
    CHECK_OK(parse(j, len, &n, &why));
    CHECK(n == 12);
    for (i = 0; i < 12 && i < n; i++) {
        const llm_json_tok *t = &toks[i];
        int good = t->type == want[i].type && t->len == strlen(want[i].text) && t->start + t->len <= len &&
                   memcmp(j + t->start, want[i].text, t->len) == 0 && t->n == want[i].n && t->next == want[i].next;
        CHECK_MSG(good, "token %d: type %d start %u len %u n %u next %u", (int)i, (int)t->type, t->start, t->len, t->n, t->next);
    }
    /* next skips whole subtrees: walking the top object's members by it visits a, c, d */
    for (i = 1, m = 0; m < toks[0].n; m++, i = toks[i + 1].next) ok = ok && toks[i].type == LLM_JSON_STRING;
    CHECK(ok && i == n && m == 3);
    /* counting: toks NULL, cap 0 is LLM_ERANGE with the count; a short array the same,
       nothing written past cap */
    n = 0;
    CHECK(llm_json_parse(j, len, NULL, 0, &n, &why) == LLM_ERANGE && n == 12 && *why);
    memset(small, 0xAB, sizeof small);
    CHECK(llm_json_parse(j, len, small, 5, &n, &why) == LLM_ERANGE && n == 12);
    {
        unsigned char guard[sizeof small - 5 * sizeof small[0]];
        memset(guard, 0xAB, sizeof guard);
        CHECK_MSG(memcmp(small + 5, guard, sizeof guard) == 0, "llm_json_parse wrote past cap");
    }
    CHECK(llm_json_parse(j, len, small, 12, &n, &why) == LLM_OK && n == 12 && memcmp(small, toks, 12 * sizeof *small) == 0);
    CHECK(llm_json_parse("7", 1, NULL, 0, &n, &why) == LLM_ERANGE && n == 1);
    {   /* a large flat array: n and next over many elements */
        static char big[3 * 20000 + 2];
        size_t k = 0;
        static llm_json_tok bt[20001];
        big[k++] = '[';
        for (i = 0; i < 20000; i++) big[k++] = (char)('0' + i % 10), big[k++] = ',';
        big[k - 1] = ']';
        CHECK(llm_json_parse(big, k, bt, 20001, &n, &why) == LLM_OK && n == 20001 && bt[0].n == 20000 && bt[0].next == 20001);
        CHECK(llm_json_at(bt, n, 0, 19999) == 20000 && bt[20000].start == k - 2);
    }
}

/* ---- llm_json_find / at / eq ------------------------------------------------------------- */

static void test_getters(void) {
    static const char *j =
        "{\"x\": {\"k\": 1}, \"k\": 2, \"a\\u0062\": 3, \"\\\"q\\\"\": 4, \"\\u00e9\": 5, \"\xc3\xa8\": 6,"
        " \"arr\": [[1, [2, 3]], {\"a\": [4]}, 5], \"\": 7, \"k\": 8, \"a\\\\b\": 9}";
    size_t n;
    int64_t v, i;
    const char *why;
    CHECK_OK(parse(j, strlen(j), &n, &why));
#define FINDV(key, want)                                                                                          \
    do {                                                                                                          \
        int64_t at_ = llm_json_find(j, toks, n, 0, key);                                                          \
        CHECK_MSG(at_ > 0 && llm_json_int(j, &toks[at_], &v) == LLM_OK && v == (want), "find %s: %d", key, (int)at_); \
    } while (0)
    FINDV("k", 2);       /* the top object's own member, not x's, and the first of two */
    FINDV("ab", 3);      /* escaped key */
    FINDV("\"q\"", 4);
    FINDV("\xc3\xa9", 5); /* \u00e9 */
    FINDV("\xc3\xa8", 6); /* raw UTF-8 key */
    FINDV("", 7);
    FINDV("a\\b", 9);
#undef FINDV
    CHECK(llm_json_find(j, toks, n, 0, "missing") == -1);
    CHECK(llm_json_find(j, toks, n, 0, "a") == -1);  /* a prefix of "ab" */
    CHECK(llm_json_find(j, toks, n, 0, "abc") == -1);
    CHECK(llm_json_find(j, toks, n, 0, "a\\u0062") == -1); /* the escape is not the key */
    i = llm_json_find(j, toks, n, 0, "x");
    CHECK(i > 0 && toks[i].type == LLM_JSON_OBJECT && llm_json_find(j, toks, n, (size_t)i, "k") == i + 2);
    CHECK(llm_json_find(j, toks, n, 1, "k") == -1);  /* token 1 is a key, not an object */
    CHECK(llm_json_find(j, toks, n, n, "k") == -1);  /* past the tokens */
    CHECK(llm_json_find(NULL, toks, n, 0, "k") == -1 && llm_json_find(j, NULL, n, 0, "k") == -1 &&
          llm_json_find(j, toks, n, 0, NULL) == -1);
    i = llm_json_find(j, toks, n, 0, "arr");
    CHECK(i > 0 && toks[i].type == LLM_JSON_ARRAY && toks[i].n == 3);
    {   /* at skips whole subtrees */
        int64_t a0 = llm_json_at(toks, n, (size_t)i, 0), a1 = llm_json_at(toks, n, (size_t)i, 1), a2 = llm_json_at(toks, n, (size_t)i, 2);
        CHECK(a0 == i + 1 && toks[a0].type == LLM_JSON_ARRAY && toks[a0].n == 2);
        CHECK(a1 > 0 && toks[a1].type == LLM_JSON_OBJECT && llm_json_find(j, toks, n, (size_t)a1, "a") == a1 + 2);
        CHECK(a2 > 0 && llm_json_int(j, &toks[a2], &v) == LLM_OK && v == 5);
        CHECK(llm_json_at(toks, n, (size_t)i, 3) == -1 && llm_json_at(toks, n, (size_t)i, 0xffffffffu) == -1);
        CHECK(llm_json_at(toks, n, 0, 0) == -1); /* an object is not an array */
        CHECK(llm_json_at(toks, n, n + 5, 0) == -1 && llm_json_at(NULL, n, (size_t)i, 0) == -1);
        a1 = llm_json_at(toks, n, (size_t)a0, 1);
        CHECK(a1 > 0 && llm_json_at(toks, n, (size_t)a1, 1) > 0 && llm_json_int(j, &toks[llm_json_at(toks, n, (size_t)a1, 1)], &v) == LLM_OK && v == 3);
    }
    /* eq compares decoded bytes, whole */
    i = llm_json_find(j, toks, n, 0, "ab") - 1; /* the key token */
    CHECK(llm_json_eq(j, &toks[i], "ab") && !llm_json_eq(j, &toks[i], "a") && !llm_json_eq(j, &toks[i], "abc") &&
          !llm_json_eq(j, &toks[i], "a\\u0062"));
    CHECK(!llm_json_eq(NULL, &toks[i], "ab") && !llm_json_eq(j, NULL, "ab") && !llm_json_eq(j, &toks[i], NULL));
    {   /* an escaped key of 200 bytes is found */
        char big[512], key[256];
        size_t k;
        memset(key, 'k', 199);
        key[199] = '"', key[200] = 0;
        k = (size_t)sprintf(big, "{\"%.199s\\\"\": 1, \"z\": 2}", key);
        CHECK(parse(big, k, &n, &why) == LLM_OK && llm_json_find(big, toks, n, 0, key) == 2);
    }
}

/* ---- numbers: llm_json_int and llm_json_num ------------------------------------------- */

static void test_int(void) {
    static const struct {
        const char *s;
        llm_status st;
        int64_t v;
    } c[] = {
        {"0", LLM_OK, 0}, {"-0", LLM_OK, 0}, {"7", LLM_OK, 7}, {"-7", LLM_OK, -7}, {"4096", LLM_OK, 4096},
        {"9223372036854775807", LLM_OK, INT64_MAX},
        {"-9223372036854775807", LLM_OK, -INT64_MAX},
        {"-9223372036854775808", LLM_OK, INT64_MIN},
        {"9223372036854775808", LLM_ERANGE, 0}, {"-9223372036854775809", LLM_ERANGE, 0},
        {"18446744073709551615", LLM_ERANGE, 0}, {"18446744073709551616", LLM_ERANGE, 0},
        {"99999999999999999999999", LLM_ERANGE, 0},
        {"1.0", LLM_OK, 1}, {"-2.000", LLM_OK, -2}, {"1e3", LLM_OK, 1000}, {"1E+3", LLM_OK, 1000}, {"2.5e1", LLM_OK, 25},
        {"-2.0E1", LLM_OK, -20}, {"1.5e1", LLM_OK, 15}, {"0.0", LLM_OK, 0}, {"0e5", LLM_OK, 0}, {"100e-2", LLM_OK, 1}, {"12.50e1", LLM_OK, 125},
        {"9007199254740992.0", LLM_OK, 9007199254740992LL}, /* 2^53: the largest a double path takes */
        {"1.5", LLM_ERANGE, 0}, {"-0.5", LLM_ERANGE, 0}, {"1e-1", LLM_ERANGE, 0}, {"0.001", LLM_ERANGE, 0},
        {"1e19", LLM_ERANGE, 0}, {"1e400", LLM_ERANGE, 0}, {"1.25e1", LLM_ERANGE, 0}, {"12.51e1", LLM_ERANGE, 0},
    };
    size_t i, n;
    int64_t v;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        llm_status st;
        CHECK_OK(parse(c[i].s, strlen(c[i].s), &n, NULL));
        v = 12345;
        st = llm_json_int(c[i].s, &toks[0], &v);
        CHECK_MSG(st == c[i].st && (st != LLM_OK || v == c[i].v), "llm_json_int(%s): %s, %lld", c[i].s, llm_status_str(st), (long long)v);
        if (st != LLM_OK) CHECK_MSG(v == 12345, "llm_json_int(%s) wrote on failure", c[i].s);
    }
    CHECK_OK(parse("\"1\"", 3, &n, NULL));
    CHECK(llm_json_int("\"1\"", &toks[0], &v) == LLM_EFORMAT);
    CHECK_OK(parse("true", 4, &n, NULL));
    CHECK(llm_json_int("true", &toks[0], &v) == LLM_EFORMAT);
    CHECK(llm_json_int(NULL, &toks[0], &v) == LLM_EINVAL && llm_json_int("1", NULL, &v) == LLM_EINVAL &&
          llm_json_int("1", &toks[0], NULL) == LLM_EINVAL);
}

/* doubles as ordered integers: the distance in ulps */
static int64_t ord(double d) {
    int64_t i;
    memcpy(&i, &d, 8);
    return i < 0 ? INT64_MIN - i : i;
}
static int64_t ulps(double a, double b) {
    int64_t d = ord(a) - ord(b);
    return d < 0 ? -d : d;
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t rnd(uint32_t n) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng >> 33) % n);
}

static void test_num(void) {
    static const struct {
        const char *s;
        double v;
    } c[] = {
        {"0", 0.0}, {"-0", -0.0}, {"1", 1.0}, {"-1.5", -1.5}, {"1e-5", 1e-5}, {"1E5", 1e5}, {"1e+22", 1e22}, {"1e-22", 1e-22},
        {"0.1", 0.1}, {"3.141592653589793", 3.141592653589793}, {"1e-06", 1e-6}, {"500000.0", 500000.0},
        {"1.7976931348623157e308", DBL_MAX}, {"2.2250738585072014e-308", DBL_MIN}, {"123456789012345678", 123456789012345678.0},
        {"0.000000000000000000000000000001", 1e-30}, {"1e-400", 0.0}, {"-1e-400", -0.0},
    };
    size_t i, n;
    double v;
    /* every class of decimal string, against the C library's strtod (correctly rounded in
       glibc), by the significant digits and the power of ten p of value = digits x 10^p
       (llm_json_num keeps 19 digits): A = <= 15 digits, |p| <= 22 (Clinger's fast path);
       B = 16-19 digits, |p| <= 22; C = the rest with 10^p a normal double (p >= -307);
       D = p < -307 (numbers near DBL_MIN and below: 10^p itself underflows) */
    int64_t worst[4] = {0, 0, 0, 0};
    long count[4] = {0, 0, 0, 0}, off[4] = {0, 0, 0, 0};
    char worst_s[4][64];
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        llm_status st;
        CHECK_OK(parse(c[i].s, strlen(c[i].s), &n, NULL));
        st = llm_json_num(c[i].s, &toks[0], &v);
        /* the first twelve are on the fast path: exact; the rest within the few ulps the
           general path promises (see below) */
        CHECK_MSG(st == LLM_OK && ulps(v, c[i].v) <= (i < 12 ? 0 : 4) && signbit(v) == signbit(c[i].v),
                  "llm_json_num(%s) = %.17g, want %.17g", c[i].s, v, c[i].v);
    }
    CHECK_OK(parse("1e309", 5, &n, NULL));
    CHECK(llm_json_num("1e309", &toks[0], &v) == LLM_ERANGE);
    CHECK_OK(parse("-1.8e308", 8, &n, NULL));
    CHECK(llm_json_num("-1.8e308", &toks[0], &v) == LLM_ERANGE);
    CHECK_OK(parse("\"1\"", 3, &n, NULL));
    CHECK(llm_json_num("\"1\"", &toks[0], &v) == LLM_EFORMAT);
    memset(worst_s, 0, sizeof worst_s);
    for (i = 0; i < 20000; i++) {
        char s[64];
        int k = 0, digits = 1 + (int)rnd(i % 2 ? 15 : 22), point = (int)rnd((uint32_t)digits + 1), e, sig, cls;
        int lead = (int)rnd(3), d;
        double ref;
        int64_t u;
        if (rnd(2)) s[k++] = '-';
        /* leading zeros after a "0." sometimes, then the digits with a decimal point */
        if (point == 0 && lead) {
            s[k++] = '0', s[k++] = '.';
            for (d = 0; d < lead; d++) s[k++] = '0';
        }
        for (d = 0; d < digits; d++) {
            if (d == point && point > 0) s[k++] = '.';
            s[k++] = (char)((d == 0 ? '1' + rnd(9) : '0' + rnd(10)));
        }
        if (point == 0 && !lead) { /* integer */ }
        e = rnd(3) == 0 ? (int)rnd(45) - 22 : (int)rnd(640) - 330;
        if (rnd(4)) k += sprintf(s + k, "e%d", e);
        s[k] = 0;
        if (parse(s, (size_t)k, &n, NULL) != LLM_OK || n != 1) {
            CHECK_MSG(0, "random number %s does not parse", s);
            continue;
        }
        ref = strtod(s, NULL);
        if (llm_json_num(s, &toks[0], &v) != LLM_OK) {
            /* only overflow may be refused */
            CHECK_MSG(fabs(ref) > DBL_MAX, "llm_json_num(%s) refused, strtod %.17g", s, ref);
            continue;
        }
        {   /* the class: significant digits and the decimal exponent llm_json_num uses */
            const char *p = s;
            int frac = 0, seen = 0, ex = 0;
            const char *q = strchr(s, 'e');
            sig = 0;
            for (; *p && *p != 'e'; p++) {
                if (*p == '.') frac = 1;
                else if (*p >= '0' && *p <= '9') {
                    if (*p != '0') seen = 1;
                    if (seen) sig++, ex -= frac;
                    else ex -= frac;
                }
            }
            ex += q ? atoi(q + 1) : 0;
            if (sig > 19) ex += sig - 19;
            if (ex < -307) cls = 3;
            else if (sig <= 15 && ex >= -22 && ex <= 22) cls = 0;
            else if (sig <= 19 && ex >= -22 && ex <= 22) cls = 1;
            else cls = 2;
        }
        u = ulps(v, ref);
        count[cls]++;
        if (u) off[cls]++;
        if (u > worst[cls]) {
            worst[cls] = u;
            snprintf(worst_s[cls], sizeof worst_s[cls], "%s", s);
        }
    }
    printf("test_json: llm_json_num vs strtod, ulps (worst, inexact/count): fast path %lld (%ld/%ld), 16-19 digits %lld (%ld/%ld) %s,"
           " other %lld (%ld/%ld) %s, 10^p < DBL_MIN %lld (%ld/%ld) %s\n",
           (long long)worst[0], off[0], count[0], (long long)worst[1], off[1], count[1], worst_s[1], (long long)worst[2], off[2],
           count[2], worst_s[2], (long long)worst[3], off[3], count[3], worst_s[3]);
    CHECK(count[0] > 1000 && count[1] > 500 && count[2] > 5000 && count[3] > 100);
    /* the fast path is exact (one correctly rounded operation on exact doubles) */
    CHECK_MSG(worst[0] == 0, "fast path: %lld ulps at %s", (long long)worst[0], worst_s[0]);
    /* 16-19 digits are NOT exact, though llm.h's comment on llm_json_num says so: the
       fast path needs digits < 2^53; measured 2 ulps in B and C ((double)digits rounded,
       pow rounded, the product rounded); 4 allows a libm whose pow is not correctly rounded */
    CHECK_MSG(worst[1] <= 4 && worst[2] <= 4, "ulps %lld at %s, %lld at %s", (long long)worst[1], worst_s[1], (long long)worst[2], worst_s[2]);
    /* "within a few ulps" must hold near DBL_MIN too; today 10^p underflows to 0 or to a
       subnormal of few bits there, and e.g. 2.2250738585072014e-308 (DBL_MIN) reads as 0 */
    CHECK_MSG(worst[3] <= 4, "llm_json_num near/below DBL_MIN: %lld ulps from strtod at %s (%ld of %ld inexact)",
              (long long)worst[3], worst_s[3], off[3], count[3]);
}

/* ---- the real files: Hugging Face tokenizer.json ----------------------------------------- */

static void test_tokenizer_json(const char *dir, uint32_t n_vocab, uint32_t n_merges, uint32_t n_added, int64_t hello,
                                const char *last_piece) {
    char path[512], buf[64];
    size_t len, n = 0, n2 = 0, i, m;
    char *text;
    void *mem;
    llm_json_tok *t;
    const char *why;
    int64_t model, vocab, merges, added, k;
    int64_t v;
    int walk_ok = 1;
    snprintf(path, sizeof path, "../shared/vocab/%s/tokenizer.json", dir);
    text = (char *)fc_read_all(path, &len, &mem);
    if (!text) {
        TEST_SKIP_SHARED(14, "%s absent (vocab %u members, %u merges)", path, n_vocab, n_merges);
        return;
    }
    CHECK(llm_json_parse(text, len, NULL, 0, &n, &why) == LLM_ERANGE && n > n_vocab);
    t = (llm_json_tok *)malloc(n * sizeof *t);
    CHECK_OK(llm_json_parse(text, len, t, n, &n2, &why));
    CHECK(n2 == n && t[0].type == LLM_JSON_OBJECT && t[0].next == n && t[0].start == 0 && text[t[0].len - 1] == '}');
    model = llm_json_find(text, t, n, 0, "model");
    vocab = model > 0 ? llm_json_find(text, t, n, (size_t)model, "vocab") : -1;
    merges = model > 0 ? llm_json_find(text, t, n, (size_t)model, "merges") : -1;
    added = llm_json_find(text, t, n, 0, "added_tokens");
    CHECK(vocab > 0 && t[vocab].type == LLM_JSON_OBJECT);
    if (vocab <= 0) goto done;
    CHECK_MSG(t[vocab].n == n_vocab, "%s: model.vocab has %u members, want %u", dir, t[vocab].n, n_vocab);
    CHECK(merges > 0 && t[merges].type == LLM_JSON_ARRAY && t[merges].n == n_merges);
    CHECK(added > 0 && t[added].type == LLM_JSON_ARRAY && t[added].n == n_added);
    /* entries checked with Python's json module: "!" 0, "\"" 1 (an escaped key), "\\" 59,
       "\u00a7" 100, "\u0120the" 279 (byte-level BPE's space), "\u010a" 198 (newline) */
#define VOCAB(key, id)                                                                                       \
    k = llm_json_find(text, t, n, (size_t)vocab, key);                                                      \
    CHECK_MSG(k > 0 && llm_json_int(text, &t[k], &v) == LLM_OK && v == (id), "%s: vocab[%s] at %d", dir, key, (int)k);
    VOCAB("!", 0)
    VOCAB("\"", 1)
    VOCAB("\\", 59)
    VOCAB("\xc2\xa7", 100)
    VOCAB("\xc4\xa0the", 279)
    VOCAB("\xc4\x8a", 198)
    VOCAB("\xc4\xa0Hello", hello)
#undef VOCAB
    /* every member walked by next: ids 0..n-1 each once, and the last id's piece */
    {
        unsigned char *seen = (unsigned char *)calloc(n_vocab, 1);
        for (i = (size_t)vocab + 1, m = 0; m < t[vocab].n; m++, i = t[i + 1].next) {
            if (t[i].type != LLM_JSON_STRING || llm_json_int(text, &t[i + 1], &v) != LLM_OK || v < 0 || v >= (int64_t)n_vocab ||
                seen[v]) {
                walk_ok = 0;
                break;
            }
            seen[v] = 1;
            if (v == (int64_t)n_vocab - 1) {
                size_t bl;
                walk_ok = walk_ok && llm_json_str(text, &t[i], buf, sizeof buf, &bl) == LLM_OK && strcmp(buf, last_piece) == 0;
            }
        }
        CHECK_MSG(walk_ok && i == t[vocab].next, "%s: walking model.vocab by next", dir);
        free(seen);
    }
    /* added_tokens[0] is the first special token */
    k = llm_json_at(t, n, (size_t)added, 0);
    k = k > 0 ? llm_json_find(text, t, n, (size_t)k, "content") : -1;
    CHECK(k > 0 && (llm_json_eq(text, &t[k], "<|begin_of_text|>") || llm_json_eq(text, &t[k], "<|endoftext|>")));
done:
    free(t);
    free(mem);
}

/* tokenizer_config.json: the chat template, a long string of escapes, decodes to the
   length Python's json module gives (348 / 4116 bytes) */
static void test_tokenizer_config(const char *dir, size_t template_bytes, uint32_t n_added, const char *marker) {
    char path[512], *text, *tmpl;
    void *mem;
    size_t len, n = 0, tl = 0;
    llm_json_tok *t;
    int64_t k;
    snprintf(path, sizeof path, "../shared/vocab/%s/tokenizer_config.json", dir);
    text = (char *)fc_read_all(path, &len, &mem);
    if (!text) {
        TEST_SKIP_SHARED(4, "%s absent (chat_template %u bytes)", path, (unsigned)template_bytes);
        return;
    }
    CHECK(llm_json_parse(text, len, NULL, 0, &n, NULL) == LLM_ERANGE);
    t = (llm_json_tok *)malloc(n * sizeof *t);
    CHECK_OK(llm_json_parse(text, len, t, n, &n, NULL));
    k = llm_json_find(text, t, n, 0, "added_tokens_decoder");
    CHECK(k > 0 && t[k].type == LLM_JSON_OBJECT && t[k].n == n_added);
    k = llm_json_find(text, t, n, 0, "chat_template");
    CHECK(k > 0 && llm_json_str(text, &t[k], NULL, 0, &tl) == LLM_ERANGE && tl == template_bytes);
    tmpl = (char *)malloc(tl + 1);
    CHECK(k > 0 && llm_json_str(text, &t[k], tmpl, tl + 1, &tl) == LLM_OK && strstr(tmpl, marker));
    free(tmpl), free(t), free(mem);
}

int main(void) {
    test_valid();
    test_invalid();
    test_strings();
    test_tokens();
    test_getters();
    test_int();
    test_num();
    /* counts and pieces from Python's json module on the same files */
    test_tokenizer_json("hf-llama3", 128000, 280147, 256, 22691, "\xc3\xa9\xc4\xb6\xc2\xa6");
    test_tokenizer_json("hf-qwen3", 151643, 151387, 26, 21927, "\xc3\xa2\xc2\xbd\xc4\xb9");
    test_tokenizer_config("hf-llama3", 348, 256, "<|start_header_id|>");
    test_tokenizer_config("hf-qwen3", 4116, 26, "<|im_start|>");
    return test_done();
}
