/* >>unicode: UTF-8 decoding, the generated Unicode table, the pre-tokenizer splits and NFC.
   The table is checked against the Unicode Character Database files read here at test
   time (Debian's unicode-data, /usr/share/unicode; without them those checks are skipped,
   saying so), and the committed block against a fresh run of tools/gen_unicode.py. */
#define _POSIX_C_SOURCE 200809L /* popen, for the generator and bzip2 */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "test.h"

#define UCD_DIR "/usr/share/unicode"
#define N_CP 0x110000

static FILE *open_ucd(const char *name) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", UCD_DIR, name);
    return fopen(path, "r");
}

/* ---- the category table against UnicodeData.txt and PropList.txt ---- */

/* general category (two letters) -> the flag llm__ucd gives it */
static unsigned gc_flag(const char *gc) {
    switch (gc[0]) {
    case 'L': return LLM__UC_L;
    case 'N': return LLM__UC_N;
    case 'P': return LLM__UC_P;
    case 'S': return LLM__UC_S;
    case 'M': return LLM__UC_M;
    case 'Z': return LLM__UC_Z;
    default: return LLM__UC_C;
    }
}

static void test_table(void) {
    static unsigned char want[N_CP], ccc[N_CP];
    char line[1024];
    long first = -1, cp, a, b, c;
    unsigned bad_flag = 0, bad_ccc = 0, n_lines = 0, n_ws = 0;
    long first_bad = -1, first_bad_ccc = -1;
    FILE *f = open_ucd("UnicodeData.txt"), *g;
    if (!f) {
        TEST_SKIP(5, "the category table: %s/UnicodeData.txt absent (apt-get install unicode-data)", UCD_DIR);
        return;
    }
    memset(want, LLM__UC_C, sizeof want); /* Cn unless listed */
    memset(ccc, 0, sizeof ccc);
    while (fgets(line, sizeof line, f)) {
        /* code;name;gc;ccc;... ; "<X, First>" and "<X, Last>" lines bound a range */
        char *name = strchr(line, ';'), *gc, *cc;
        if (!name) continue;
        gc = strchr(name + 1, ';');
        if (!gc) continue;
        cc = strchr(gc + 1, ';');
        if (!cc) continue;
        cp = strtol(line, NULL, 16);
        n_lines++;
        if (strstr(name, ", First>;") == gc - 8) {
            first = cp;
            continue;
        }
        a = strstr(name, ", Last>;") == gc - 7 && first >= 0 ? first : cp;
        first = -1;
        for (c = a; c <= cp; c++) {
            want[c] = (unsigned char)gc_flag(gc + 1);
            ccc[c] = (unsigned char)atoi(cc + 1);
        }
    }
    fclose(f);
    g = open_ucd("PropList.txt");
    if (!g) {
        TEST_SKIP(5, "the category table: %s/PropList.txt absent", UCD_DIR);
        return;
    }
    while (fgets(line, sizeof line, g)) {
        /* "0009..000D    ; White_Space # ..." or "0020          ; White_Space # ..." */
        char *semi = strchr(line, ';'), *dots;
        if (line[0] == '#' || !semi || strncmp(semi, "; White_Space", 13) != 0) continue;
        a = strtol(line, &dots, 16);
        b = strncmp(dots, "..", 2) == 0 ? strtol(dots + 2, NULL, 16) : a;
        for (c = a; c <= b; c++) want[c] |= LLM__UC_WS, n_ws++;
    }
    fclose(g);
    for (c = 0; c < N_CP; c++) {
        if (llm__ucd((uint32_t)c) != want[c]) {
            if (first_bad < 0) first_bad = c;
            bad_flag++;
        }
        if (llm__ucd_ccc_of((uint32_t)c) != ccc[c]) {
            if (first_bad_ccc < 0) first_bad_ccc = c;
            bad_ccc++;
        }
    }
    CHECK_MSG(n_lines > 30000 && n_ws == 25, "read %u UnicodeData lines, %u White_Space code points", n_lines, n_ws);
    CHECK_MSG(bad_flag == 0, "%u code points with wrong flags, the first U+%04lX: %#x, want %#x", bad_flag,
              first_bad, first_bad >= 0 ? llm__ucd((uint32_t)first_bad) : 0, first_bad >= 0 ? want[first_bad] : 0);
    CHECK_MSG(bad_ccc == 0, "%u code points with a wrong combining class, the first U+%04lX", bad_ccc, first_bad_ccc);
    /* past the last code point: "other", no combining class */
    CHECK(llm__ucd(0x110000) == LLM__UC_C && llm__ucd(0xFFFFFFFFu) == LLM__UC_C);
    CHECK(llm__ucd_ccc_of(0x110000) == 0);
}

/* The committed block is what the generator writes from these files (a stale or
   hand-edited table fails here). */
static void test_generator(void) {
    FILE *p, *f = open_ucd("UnicodeData.txt");
    int rc;
    if (!f) {
        TEST_SKIP(1, "the generated block: %s/UnicodeData.txt absent", UCD_DIR);
        return;
    }
    fclose(f);
    p = popen("python3 tools/gen_unicode.py --check llm.h " UCD_DIR " 2>&1", "r");
    if (!p) {
        TEST_SKIP(1, "the generated block: cannot run python3");
        return;
    }
    {
        char buf[256];
        while (fgets(buf, sizeof buf, p)) fprintf(stderr, "gen_unicode.py: %s", buf);
    }
    rc = pclose(p);
    if (rc != 0 && system("python3 -c 1 >/dev/null 2>&1") != 0) {
        TEST_SKIP(1, "the generated block: python3 not found");
        return;
    }
    CHECK_MSG(rc == 0, "llm.h's >>unicode-tables block differs from tools/gen_unicode.py's output (exit %d)", rc);
}

/* ---- UTF-8 ---- */

/* The test's own decoder for the exhaustive check, written the other way round: collect
   the bits generically, then reject what RFC 3629 forbids by value. */
static int ref_utf8(const unsigned char *s, int n, uint32_t *cp) {
    int len, k;
    uint32_t v;
    static const uint32_t min_of[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (s[0] < 0x80) return *cp = s[0], 1;
    if ((s[0] & 0xE0) == 0xC0) len = 2, v = s[0] & 0x1Fu;
    else if ((s[0] & 0xF0) == 0xE0) len = 3, v = s[0] & 0x0Fu;
    else if ((s[0] & 0xF8) == 0xF0) len = 4, v = s[0] & 0x07u;
    else return *cp = 0xFFFD, 1;
    if (n < len) return *cp = 0xFFFD, 1;
    for (k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return *cp = 0xFFFD, 1;
        v = v << 6 | (s[k] & 0x3Fu);
    }
    if (v < min_of[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return *cp = 0xFFFD, 1;
    return *cp = v, len;
}

static int dec(const char *s, int n, uint32_t *cp) { return llm__utf8_next((const unsigned char *)s, n, 0, cp); }

static void test_utf8(void) {
    static const struct {
        const char *s;
        int n, len;
        uint32_t cp;
        const char *what;
    } cases[] = {
        {"A", 1, 1, 0x41, "ASCII"},
        {"\x7f", 1, 1, 0x7F, "the last 1-byte"},
        {"\xc2\x80", 2, 2, 0x80, "the first 2-byte"},
        {"\xdf\xbf", 2, 2, 0x7FF, "the last 2-byte"},
        {"\xe0\xa0\x80", 3, 3, 0x800, "the first 3-byte"},
        {"\xed\x9f\xbf", 3, 3, 0xD7FF, "just below the surrogates"},
        {"\xee\x80\x80", 3, 3, 0xE000, "just above the surrogates"},
        {"\xef\xbf\xbf", 3, 3, 0xFFFF, "the last 3-byte"},
        {"\xf0\x90\x80\x80", 4, 4, 0x10000, "the first 4-byte"},
        {"\xf4\x8f\xbf\xbf", 4, 4, 0x10FFFF, "the last code point"},
        {"\xf0\x9f\x98\x80", 4, 4, 0x1F600, "an emoji"},
        {"\xc0\x80", 2, 1, 0xFFFD, "overlong NUL (C0 80)"},
        {"\xc1\xbf", 2, 1, 0xFFFD, "overlong U+007F (C1 BF)"},
        {"\xe0\x80\x80", 3, 1, 0xFFFD, "overlong 3-byte (E0 80 80)"},
        {"\xe0\x9f\xbf", 3, 1, 0xFFFD, "overlong U+07FF (E0 9F BF)"},
        {"\xf0\x80\x80\x80", 4, 1, 0xFFFD, "overlong 4-byte (F0 80 80 80)"},
        {"\xf0\x8f\xbf\xbf", 4, 1, 0xFFFD, "overlong U+FFFF (F0 8F BF BF)"},
        {"\xed\xa0\x80", 3, 1, 0xFFFD, "surrogate U+D800"},
        {"\xed\xbf\xbf", 3, 1, 0xFFFD, "surrogate U+DFFF"},
        {"\xf4\x90\x80\x80", 4, 1, 0xFFFD, "U+110000"},
        {"\xf5\x80\x80\x80", 4, 1, 0xFFFD, "lead F5"},
        {"\xf7\xbf\xbf\xbf", 4, 1, 0xFFFD, "lead F7 (U+1FFFFF)"},
        {"\xf8\x88\x80\x80\x80", 5, 1, 0xFFFD, "a 5-byte form"},
        {"\xff", 1, 1, 0xFFFD, "FF"},
        {"\x80", 1, 1, 0xFFFD, "a lone continuation byte"},
        {"\xbf\x80", 2, 1, 0xFFFD, "two continuation bytes"},
        {"\xc3", 1, 1, 0xFFFD, "2-byte cut short by the end"},
        {"\xe2\x82", 2, 1, 0xFFFD, "3-byte cut short by the end"},
        {"\xf0\x9f\x98", 3, 1, 0xFFFD, "4-byte cut short by the end"},
        {"\xe2\x82\xac", 2, 1, 0xFFFD, "a complete euro sign, but n stops before its last byte"},
        {"\xc3\x41", 2, 1, 0xFFFD, "2-byte interrupted by ASCII"},
        {"\xe2\x41\xac", 3, 1, 0xFFFD, "3-byte interrupted at its second byte"},
        {"\xf0\x9f\x41\x80", 4, 1, 0xFFFD, "4-byte interrupted at its third byte"},
        {"\xf0\x9f\x98\xc3", 4, 1, 0xFFFD, "4-byte interrupted at its last byte"},
    };
    size_t k;
    int b0, b1, bad = 0, lo = 0;
    uint32_t cp, c;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int len = dec(cases[k].s, cases[k].n, &cp);
        CHECK_MSG(len == cases[k].len && cp == cases[k].cp, "%s: %d bytes U+%04X, want %d bytes U+%04X", cases[k].what,
                  len, (unsigned)cp, cases[k].len, (unsigned)cases[k].cp);
    }
    /* reads only s[i .. n): an offset into a longer buffer */
    CHECK(llm__utf8_next((const unsigned char *)"xx\xc3\xa9", 4, 2, &cp) == 2 && cp == 0xE9);
    /* exhaustive: every first and second byte, then continuation-or-not third and fourth
       bytes, against the reference decoder */
    for (b0 = 0; b0 < 256; b0++)
        for (b1 = 0; b1 < 256; b1++) {
            static const unsigned char tail[] = {0x80, 0xBF, 0x41, 0xC3};
            int t2, t3, n;
            for (t2 = 0; t2 < 4; t2++)
                for (t3 = 0; t3 < 4; t3++)
                    for (n = 1; n <= 4; n++) {
                        unsigned char s[4];
                        uint32_t r;
                        int got, want;
                        s[0] = (unsigned char)b0, s[1] = (unsigned char)b1, s[2] = tail[t2], s[3] = tail[t3];
                        got = llm__utf8_next(s, n, 0, &cp);
                        want = ref_utf8(s, n, &r);
                        if (got != want || cp != r) {
                            if (!bad) fprintf(stderr, "    %02X %02X %02X %02X n=%d: %d U+%04X, want %d U+%04X\n", s[0],
                                              s[1], s[2], s[3], n, got, (unsigned)cp, want, (unsigned)r);
                            bad++;
                        }
                    }
        }
    CHECK_MSG(bad == 0, "%d of the exhaustive 2-byte-prefix cases differ from the reference decoder", bad);
    /* every code point's own encoding decodes back to it */
    for (c = 0; c < N_CP; c++) {
        unsigned char s[4];
        int n;
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        if (c < 0x80) s[0] = (unsigned char)c, n = 1;
        else if (c < 0x800) s[0] = (unsigned char)(0xC0 | c >> 6), s[1] = (unsigned char)(0x80 | (c & 63)), n = 2;
        else if (c < 0x10000)
            s[0] = (unsigned char)(0xE0 | c >> 12), s[1] = (unsigned char)(0x80 | (c >> 6 & 63)),
            s[2] = (unsigned char)(0x80 | (c & 63)), n = 3;
        else
            s[0] = (unsigned char)(0xF0 | c >> 18), s[1] = (unsigned char)(0x80 | (c >> 12 & 63)),
            s[2] = (unsigned char)(0x80 | (c >> 6 & 63)), s[3] = (unsigned char)(0x80 | (c & 63)), n = 4;
        if (llm__utf8_next(s, n, 0, &cp) != n || cp != c) lo++;
    }
    CHECK_MSG(lo == 0, "%d code points do not round-trip through their UTF-8 encoding", lo);
}

int main(void) {
    test_utf8();
    test_table();
    test_generator();
    return test_done();
}
