/* >>unicode: UTF-8 decoding, the generated Unicode table, the pre-tokenizer splits and NFC.
   The table is checked against the Unicode Character Database files read here at test
   time (Debian's unicode-data, /usr/share/unicode; without them those checks are skipped,
   saying so), and the committed block against a fresh run of tools/gen_unicode.py. */
#define _POSIX_C_SOURCE 200809L /* popen, for the generator and bzip2 */
#include "llm.h"
#include "test.h"
#include "internals.h" /* llm__utf8_next, llm__ucd, llm__ucd_ccc_of, llm__pretok_next */

#ifndef UCD_DIR /* -DUCD_DIR='"/elsewhere"' to read other files (or to see the skips) */
#define UCD_DIR "/usr/share/unicode"
#endif
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
    if (!(f = fopen("tools/gen_unicode.py", "r"))) {
        TEST_SKIP(1, "the generated block: no tools/gen_unicode.py here (run from the repository's root)");
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

/* ---- pre-tokenizer splits ---- */

/* Splits text with kind and compares with want, the pieces separated by '|' (no text here
   holds a '|'). Also checks the walk's invariants: each piece non-empty, the next starts
   where the last ended. */
static void check_split(llm_pretok kind, const char *text, const char *want) {
    char got[512];
    int64_t n = (int64_t)strlen(text), i = 0, e;
    size_t g = 0;
    int ok = 1;
    while (i < n && g + 8 < sizeof got) {
        e = llm__pretok_next(kind, (const unsigned char *)text, n, i);
        if (e <= i || e > n) {
            ok = 0;
            break;
        }
        if (g) got[g++] = '|';
        memcpy(got + g, text + i, (size_t)(e - i));
        g += (size_t)(e - i);
        i = e;
    }
    got[g] = 0;
    CHECK_MSG(ok && strcmp(got, want) == 0, "kind %d, text \"%s\": \"%s\", want \"%s\"", (int)kind, text, got, want);
}

static void test_splits(void) {
    /* GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
    llm_pretok k = LLM_PRETOK_GPT2;
    check_split(k, "Hello world", "Hello| world");          /* " ?\p{L}+": the space joins the word */
    check_split(k, "I'm they're we'll", "I|'m| they|'re| we|'ll");
    check_split(k, "I'M DON'T", "I|'|M| DON|'|T");            /* case-sensitive: "'" alone is [^\s\p{L}\p{N}]+ */
    check_split(k, "it''s", "it|''|s");                       /* "''" is the other run, leftmost first */
    check_split(k, "a  b", "a| | b");                         /* \s+(?!\S) gives back the space before b */
    check_split(k, "a   \tb", "a|   |\t|b");                  /* ... and \t b: \t is no " ?" space: \s+ alone */
    check_split(k, "x   ", "x|   ");                          /* trailing: (?!\S) holds at the end */
    check_split(k, "1 12 1234567", "1| 12| 1234567");         /* \p{N}+ has no length limit */
    check_split(k, "hi!!! ok?", "hi|!!!| ok|?");
    check_split(k, "a\n\nb", "a|\n|\n|b");                     /* only ' ' joins: \n\n before b is "\n" + "\n" */
    check_split(k, "\xe4\xbd\xa0\xe5\xa5\xbd \xe4\xb8\x96\xe7\x95\x8c", "\xe4\xbd\xa0\xe5\xa5\xbd| \xe4\xb8\x96\xe7\x95\x8c"); /* CJK: Lo letters */
    check_split(k, "hi \xf0\x9f\x91\x8b\xf0\x9f\x91\x8b!", "hi| \xf0\x9f\x91\x8b\xf0\x9f\x91\x8b!"); /* emoji are So: the other run */
    check_split(k, "e\xcc\x81t", "e|\xcc\x81|t");              /* U+0301 is Mn: not \p{L}, an other run of its own */
    check_split(k, "ab\xff\xfe" "cd", "ab|\xff\xfe|cd");         /* invalid bytes: others */
    check_split(k, " \xff", " \xff");                          /* ... that a space joins */
    check_split(k, "x\xc2\xa0y", "x|\xc2\xa0|y");              /* U+00A0 is \s, but not the " ?" space */

    /* Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
       ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
    k = LLM_PRETOK_LLAMA3;
    check_split(k, "Hello world", "Hello| world");
    check_split(k, "I'M DON'T we'Ll", "I|'M| DON|'T| we|'Ll"); /* (?i:...): either case */
    check_split(k, "x'\xc5\xbf\xc5\xbf", "x|'\xc5\xbf|\xc5\xbf"); /* U+017F long s folds to s: 'ſ is a contraction */
    check_split(k, "'hello", "'hello");                        /* not a contraction: [^\r\n\p{L}\p{N}]?\p{L}+ */
    check_split(k, "(hello)", "(hello|)");
    check_split(k, "\thello", "\thello");                      /* any one non-letter, \s too, before letters */
    check_split(k, "\nhello", "\n|hello");                     /* but not \r or \n */
    check_split(k, "1", "1");                                  /* \p{N}{1,3}: runs of 1..7 digits */
    check_split(k, "12", "12");
    check_split(k, "123", "123");
    check_split(k, "1234", "123|4");
    check_split(k, "12345", "123|45");
    check_split(k, "123456", "123|456");
    check_split(k, "1234567", "123|456|7");
    check_split(k, " 42", " |42");                             /* a space before digits stays alone (\s+) */
    check_split(k, "a  b", "a| | b");
    check_split(k, "a \n\n b", "a| \n\n| b");                  /* \s*[\r\n]+ ends at the last newline */
    check_split(k, "x!!\n\ny", "x|!!\n\n|y");                  /* the other run takes the newlines after it */
    check_split(k, "x !?", "x| !?");
    check_split(k, "end   ", "end|   ");
    check_split(k, "end  \r\n", "end|  \r\n");
    check_split(k, "\xe4\xbd\xa0\xe5\xa5\xbd \xe4\xb8\x96\xe7\x95\x8c", "\xe4\xbd\xa0\xe5\xa5\xbd| \xe4\xb8\x96\xe7\x95\x8c");
    check_split(k, "ok \xf0\x9f\x91\x8b\xf0\x9f\x91\x8b!", "ok| \xf0\x9f\x91\x8b\xf0\x9f\x91\x8b!");
    check_split(k, "e\xcc\x81t", "e|\xcc\x81t");              /* the mark is the one code point before "t" */
    check_split(k, "\xff" "ab", "\xff" "ab");                    /* an invalid byte likewise */
    check_split(k, "a\xff\xfe" "1", "a|\xff\xfe|1");

    /* Qwen2: Llama 3's, digits one at a time */
    k = LLM_PRETOK_QWEN2;
    check_split(k, "1234567", "1|2|3|4|5|6|7");
    check_split(k, "I'M x 12", "I|'M| x| |1|2");

    /* DeepSeek LLM: [\r\n] / \s?[Latin]+ / \s?[Punct]+ / \s+$ / [CJK]+ / \p{N}+ in turn;
       Punct holds :-~, so ASCII letters too */
    k = LLM_PRETOK_DEEPSEEK_LLM;
    check_split(k, "Hello world", "Hello| world");
    /* "été" is one Latin match; Punct then isolates the t (in :-~), é is not Punct */
    check_split(k, "\xc3\xa9t\xc3\xa9", "\xc3\xa9|t|\xc3\xa9");
    /* " 123": no Latin or Punct match, Digits splits " " from "123" */
    check_split(k, "Hi 123", "Hi| |123");
    check_split(k, "\xe4\xbd\xa0\xe5\xa5\xbdworld\n", "\xe4\xbd\xa0\xe5\xa5\xbd|world|\n");
    check_split(k, "a  \n", "a|  |\n");                        /* \s+$ within the line */
    check_split(k, "foo  ", "foo|  ");
    check_split(k, "x, y", "x|,| y");
    check_split(k, "\xef\xbc\x91\xef\xbc\x92", "\xef\xbc\x91\xef\xbc\x92"); /* fullwidth digits: \p{N}+ */
    check_split(k, "ab\xff" "cd", "ab|\xff|cd");
    /* U+3000 is \s before a Latin letter: "\u3000b" through Latin and Punct, but CJK's
       range U+0800..U+4E00 holds U+3000 too, and isolates it */
    check_split(k, "a\xe3\x80\x80" "b", "a|\xe3\x80\x80|b");
    check_split(k, "\xe0\xa4\xb9\xe0\xa4\xbf", "\xe0\xa4\xb9\xe0\xa4\xbf"); /* Devanagari (U+0939 U+093F) is in that range */
    check_split(k, "\r\n\n", "\r|\n|\n");
    { /* longer than the first 16-byte window: 40 x "ét" is é|t|é|t... (Punct isolates each
         t); 60 x é is one Latin piece (the window doubles to 128); x, 29 spaces, " y": the
         spaces are \s+$ in Latin's gap, and the window must not end inside them */
        char text[256], want[256];
        int j;
        for (j = 0, text[0] = want[0] = 0; j < 40; j++) strcat(text, "\xc3\xa9t"), strcat(want, j ? "|\xc3\xa9|t" : "\xc3\xa9|t");
        check_split(k, text, want);
        for (j = 0, text[0] = 0; j < 60; j++) strcat(text, "\xc3\xa9");
        check_split(k, text, text);
        check_split(k, "x                              y", "x|                             | y");
    }

    /* SmolLM: each \p{N} alone, then GPT-2's pattern between them */
    k = LLM_PRETOK_SMOLLM;
    check_split(k, "abc123 def", "abc|1|2|3| def");
    check_split(k, "a  1", "a|  |1");                          /* the spaces end their piece of text */
    check_split(k, "I'm 42!", "I|'m| |4|2|!");

    /* NONE: the whole text */
    check_split(LLM_PRETOK_NONE, "a b 1", "a b 1");
}

static void test_pretok_names(void) {
    static const struct {
        const char *name;
        llm_pretok kind;
    } names[] = {{"gpt-2", LLM_PRETOK_GPT2}, {"llama-bpe", LLM_PRETOK_LLAMA3}, {"qwen2", LLM_PRETOK_QWEN2},
                 {"deepseek-llm", LLM_PRETOK_DEEPSEEK_LLM}, {"smollm", LLM_PRETOK_SMOLLM},
                 {"default", LLM_PRETOK_NONE}, {"", LLM_PRETOK_NONE}};
    size_t k;
    llm_pretok out;
    const char *why = NULL;
    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        out = LLM_PRETOK_COUNT;
        CHECK_OK(llm_pretok_from_name(names[k].name, &out, &why));
        CHECK_MSG(out == names[k].kind, "%s -> %d", names[k].name, (int)out);
    }
    CHECK_OK(llm_pretok_from_name(NULL, &out, &why));
    CHECK(out == LLM_PRETOK_NONE);
    out = LLM_PRETOK_GPT2;
    CHECK(llm_pretok_from_name("falcon", &out, &why) == LLM_EUNSUPPORTED && out == LLM_PRETOK_NONE);
    CHECK(why && strstr(why, "llama-bpe"));
    CHECK(llm_pretok_from_name("GPT-2", &out, NULL) == LLM_EUNSUPPORTED); /* names are exact */
    CHECK(llm_pretok_from_name("gpt-2", NULL, &why) == LLM_EINVAL);
}

/* Every test string of the BPE vocabularies in ../shared/vocab, split by the pre-tokenizer
   its GGUF names: the pieces cover the string exactly (a property: their ids are the
   vocabulary work's test). */
static void test_vocab_strings(void) {
    static const struct {
        const char *file;
        llm_pretok kind;
    } v[] = {{"ggml-vocab-gpt-2.gguf.inp", LLM_PRETOK_GPT2}, {"ggml-vocab-deepseek-llm.gguf.inp", LLM_PRETOK_DEEPSEEK_LLM},
             {"llama3.gguf.inp", LLM_PRETOK_LLAMA3}, {"qwen2.gguf.inp", LLM_PRETOK_QWEN2},
             {"llama3.gguf.inp", LLM_PRETOK_SMOLLM}};
    static const char sep[] = "\n__ggml_vocab_test__\n";
    size_t k;
    for (k = 0; k < sizeof v / sizeof v[0]; k++) {
        char path[256], *buf, *p, *q;
        long size;
        int strings = 0, bad = 0;
        FILE *f;
        snprintf(path, sizeof path, "../shared/vocab/%s", v[k].file);
        f = fopen(path, "rb");
        if (!f) {
            TEST_SKIP_SHARED(1, "%s absent: no split of its test strings", path);
            continue;
        }
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = (char *)malloc((size_t)size + 1);
        if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) abort();
        buf[size] = 0;
        fclose(f);
        for (p = buf; *p; p = q + (*q ? strlen(sep) : 0)) {
            int64_t n, i = 0, e;
            q = strstr(p, sep);
            if (!q) q = p + strlen(p);
            n = q - p;
            while (i < n) {
                e = llm__pretok_next(v[k].kind, (const unsigned char *)p, n, i);
                if (e <= i || e > n) {
                    bad++;
                    break;
                }
                i = e;
            }
            strings++;
        }
        CHECK_MSG(bad == 0 && strings > 10, "%s, kind %d: %d of %d strings did not split into contiguous pieces",
                  v[k].file, (int)v[k].kind, bad, strings);
        free(buf);
    }
}

/* ---- NFC ---- */

/* Code points "1E0A 0323" -> UTF-8 in buf; returns the bytes */
static size_t hex_to_utf8(const char *f, const char *end, char *buf) {
    size_t n = 0;
    while (f < end) {
        char *next;
        unsigned long c = strtoul(f, &next, 16);
        if (next == f) break;
        if (c < 0x80) buf[n++] = (char)c;
        else if (c < 0x800) buf[n++] = (char)(0xC0 | c >> 6), buf[n++] = (char)(0x80 | (c & 63));
        else if (c < 0x10000)
            buf[n++] = (char)(0xE0 | c >> 12), buf[n++] = (char)(0x80 | (c >> 6 & 63)), buf[n++] = (char)(0x80 | (c & 63));
        else
            buf[n++] = (char)(0xF0 | c >> 18), buf[n++] = (char)(0x80 | (c >> 12 & 63)),
            buf[n++] = (char)(0x80 | (c >> 6 & 63)), buf[n++] = (char)(0x80 | (c & 63));
        f = next;
    }
    return n;
}

/* NFC(a) == b, out of a cap of exactly llm_nfc_bound(|a|) bytes followed by a guard */
static int nfc_is(const char *a, size_t na, const char *b, size_t nb) {
    char out[512];
    size_t len = 0, bound = llm_nfc_bound(na);
    if (bound + 8 > sizeof out) return 0;
    memset(out, 0x5A, sizeof out);
    if (llm_nfc(a, na, out, bound, &len) != LLM_OK) return 0;
    if (out[bound] != 0x5A) return 0;
    return len == nb && memcmp(out, b, nb) == 0;
}

static void test_nfc_conformance(void) {
    static unsigned char in_part1[N_CP];
    char line[4096], c[5][256];
    size_t nc[5];
    int part = -1, lines = 0, bad = 0, k;
    long cp;
    FILE *p, *f = open_ucd("NormalizationTest.txt.bz2");
    if (!f) {
        TEST_SKIP(2, "NFC: %s/NormalizationTest.txt.bz2 absent", UCD_DIR);
        return;
    }
    fclose(f);
    p = popen("bzip2 -dc " UCD_DIR "/NormalizationTest.txt.bz2 2>/dev/null", "r");
    if (!p) {
        TEST_SKIP(2, "NFC: cannot run bzip2 -dc");
        return;
    }
    memset(in_part1, 0, sizeof in_part1);
    while (fgets(line, sizeof line, p)) {
        /* "@PartN", or c1;c2;c3;c4;c5; # comment, each field hex code points */
        const char *fld = line, *semi;
        if (line[0] == '@') {
            part = atoi(line + 5);
            continue;
        }
        if (line[0] == '#' || line[0] == '\n') continue;
        for (k = 0; k < 5; k++) {
            semi = strchr(fld, ';');
            if (!semi) break;
            nc[k] = hex_to_utf8(fld, semi, c[k]);
            fld = semi + 1;
        }
        if (k < 5) continue;
        lines++;
        if (part == 1) in_part1[strtol(line, NULL, 16)] = 1;
        /* c2 == NFC(c1) == NFC(c2) == NFC(c3);  c4 == NFC(c4) == NFC(c5) */
        if (!nfc_is(c[0], nc[0], c[1], nc[1]) || !nfc_is(c[1], nc[1], c[1], nc[1]) || !nfc_is(c[2], nc[2], c[1], nc[1]) ||
            !nfc_is(c[3], nc[3], c[3], nc[3]) || !nfc_is(c[4], nc[4], c[3], nc[3])) {
            if (bad++ < 3) fprintf(stderr, "    NFC differs: %s", line);
        }
    }
    if (pclose(p) != 0 || lines == 0) {
        TEST_SKIP(2, "NFC: bzip2 -dc %s/NormalizationTest.txt.bz2 failed", UCD_DIR);
        return;
    }
    CHECK_MSG(bad == 0 && lines > 19000, "%d of %d NormalizationTest lines fail", bad, lines);
    /* and every code point Part 1 does not list is its own NFC */
    for (bad = 0, cp = 0; cp < N_CP; cp++) {
        char u[8], hex[16];
        size_t nu;
        if (in_part1[cp] || (cp >= 0xD800 && cp <= 0xDFFF)) continue;
        snprintf(hex, sizeof hex, "%lX", cp);
        nu = hex_to_utf8(hex, hex + strlen(hex), u);
        if (!nfc_is(u, nu, u, nu) && bad++ < 3) fprintf(stderr, "    NFC(U+%04lX) is not itself\n", cp);
    }
    CHECK_MSG(bad == 0, "%d code points outside Part 1 change under NFC", bad);
}

static void test_nfc_api(void) {
    char out[64];
    size_t len = 99;
    int cap, ok;
    /* hand-checked: e + U+0301 is U+00E9; U+0323 (class 220) sorts before U+0307 (230)
       and both compose with s: U+1E69; Hangul L V T composes to U+D4DB; U+212B ANGSTROM
       SIGN is U+00C5 (a singleton); U+0958 stays decomposed (a composition exclusion);
       invalid bytes stay and block composition */
    CHECK(nfc_is("e\xcc\x81", 3, "\xc3\xa9", 2));
    CHECK(nfc_is("s\xcc\x87\xcc\xa3", 5, "\xe1\xb9\xa9", 3));
    CHECK(nfc_is("\xe1\x84\x91\xe1\x85\xb1\xe1\x86\xb6", 9, "\xed\x93\x9b", 3));
    CHECK(nfc_is("\xe2\x84\xab", 3, "\xc3\x85", 2));
    CHECK(nfc_is("\xe0\xa5\x98", 3, "\xe0\xa4\x95\xe0\xa4\xbc", 6));
    CHECK(nfc_is("\xff" "e\xcc\x81\xff\xcc\x81", 7, "\xff\xc3\xa9\xff\xcc\x81", 6));
    CHECK(nfc_is("e\xff\xcc\x81", 4, "e\xff\xcc\x81", 4));
    CHECK(nfc_is("", 0, "", 0));
    /* the bound: 4 bytes, U+1D160, decompose to 12 */
    CHECK(llm_nfc_bound(4) == 12 && llm_nfc_bound((size_t)-1) == (size_t)-1);
    CHECK(nfc_is("\xf0\x9d\x85\xa0", 4, "\xf0\x9d\x85\x98\xf0\x9d\x85\xa5\xf0\x9d\x85\xae", 12));
    /* too small: LLM_ERANGE, nothing written past cap, *out_len the bound */
    for (ok = 1, cap = 0; cap < 12; cap++) {
        memset(out, 0x5A, sizeof out);
        if (llm_nfc("\xf0\x9d\x85\xa0", 4, out, (size_t)cap, &len) != LLM_ERANGE || len != 12 || out[cap] != 0x5A) ok = 0;
    }
    CHECK_MSG(ok, "caps 0..11 for a 12-byte NFC");
    /* a cap that holds the result is enough when nothing expands */
    CHECK_OK(llm_nfc("abc", 3, out, 3, &len));
    CHECK(len == 3 && memcmp(out, "abc", 3) == 0);
    CHECK(llm_nfc(NULL, 1, out, 8, &len) == LLM_EINVAL);
    CHECK(llm_nfc("a", 1, NULL, 8, &len) == LLM_EINVAL);
    CHECK(llm_nfc("a", 1, out, 8, NULL) == LLM_EINVAL);
    CHECK_OK(llm_nfc(NULL, 0, NULL, 0, &len));
    CHECK(len == 0);
    /* a long run of marks (more than any fixed buffer): sorted whole, a + 40 x (U+0301
       U+0323): U+0323 composes first (a + U+0323 = U+1EA1), then U+0301 joins (U+1EA1 has no
       such composite, so 40 x U+0323 less one, then 40 x U+0301) */
    {
        char in[1 + 160], want[3 + 39 * 2 + 40 * 2], big[3 * sizeof in];
        int j;
        in[0] = 'a';
        for (j = 0; j < 40; j++) memcpy(in + 1 + 4 * j, "\xcc\x81\xcc\xa3", 4);
        memcpy(want, "\xe1\xba\xa1", 3);
        for (j = 0; j < 39; j++) memcpy(want + 3 + 2 * j, "\xcc\xa3", 2);
        for (j = 0; j < 40; j++) memcpy(want + 3 + 78 + 2 * j, "\xcc\x81", 2);
        CHECK_OK(llm_nfc(in, sizeof in, big, sizeof big, &len));
        CHECK(len == sizeof want && memcmp(big, want, sizeof want) == 0);
    }
}

int main(void) {
    test_utf8();
    test_table();
    test_generator();
    test_splits();
    test_pretok_names();
    test_vocab_strings();
    test_nfc_api();
    test_nfc_conformance();
    return test_done();
}
