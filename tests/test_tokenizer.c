/* >>files: the llama2.c tokenizer: run.c's encoding (dummy prefix, UTF-8 code points,
   byte fallback, best-score merges), decoding (space after BOS, raw bytes), round trips
   on ASCII and UTF-8, and hostile tokenizer files. The O(n log n) encoder against run.c's
   O(n^2) one (tests/tok_reference.h) on random, UTF-8 and tie-heavy texts, and a 1 MB text. */
#include "llm.h"
#include "test.h"
#include "internals.h" /* llm__piece; tok_reference.h: llm__tok_start, llm__lookup2 */
#include "tok_reference.h"

/* A tokenizer.bin in memory (test.h's test_buf; items counts the pieces, the vocab):
   <unk> <s> </s>, the 256 byte pieces, then `extra` pieces. */
static void tput_piece(test_buf *b, const char *s, float score) {
    uint32_t u;
    memcpy(&u, &score, 4);
    test_buf_i32(b, (int32_t)u);
    test_buf_i32(b, (int32_t)strlen(s));
    test_buf_put(b, s, strlen(s));
    b->items++;
}
static const char *extra[][2] = {
    /* piece, score */
    {" ", "-1"}, {"e", "-2"}, {"t", "-2"}, {"h", "-3"}, {"a", "-3"}, {"c", "-4"}, {"s", "-4"}, {"o", "-4"},
    {"n", "-4"}, {"th", "-1"}, {"he", "-5"}, {"the", "-0.5"}, {" the", "-0.2"}, {" c", "-2"}, {"at", "-1.5"},
    {" cat", "-0.1"}, {"ab", "1"}, {"bc", "2"}, {"b", "-6"}, {"\xc3\xa9", "-3"}, {"\xe6\x97\xa5", "-3"},
    {"\xe6\x97\xa5\xe6\x9c\xac", "0.5"}, {"\xe6\x9c\xac", "-3"}, {" on", "-1"}, {"on", "-1.2"}, {"O", "-4"},
};
static test_buf make_tok(void) {
    test_buf b;
    int i;
    char name[8];
    memset(&b, 0, sizeof b);
    test_buf_i32(&b, 8);
    tput_piece(&b, "<unk>", 0), tput_piece(&b, "\n<s>\n", 0), tput_piece(&b, "\n</s>\n", 0);
    for (i = 0; i < 256; i++) {
        sprintf(name, "<0x%02X>", i);
        tput_piece(&b, name, 0);
    }
    for (i = 0; i < (int)(sizeof extra / sizeof extra[0]); i++) tput_piece(&b, extra[i][0], (float)atof(extra[i][1]));
    return b;
}
static int id_of(const char *piece) {
    int i;
    for (i = 0; i < (int)(sizeof extra / sizeof extra[0]); i++)
        if (strcmp(extra[i][0], piece) == 0) return 259 + i;
    return -1;
}

static void round_trip(const llm_tokenizer *t, const char *text) {
    int ids[256], n = 0;
    char out[512];
    size_t len = 0;
    CHECK_OK(llm_tokenize(t, text, 1, 1, ids, 256, &n));
    CHECK(n >= 2 && ids[0] == 1 && ids[n - 1] == 2);
    CHECK_OK(llm_detokenize(t, 0, ids, n, out, sizeof out, &len));
    CHECK_MSG(len == strlen(text) && strcmp(out, text) == 0, "round trip of \"%s\" gave \"%s\"", text, out);
}

static void test_encode_decode(void) {
    test_buf b = make_tok();
    llm_tokenizer t;
    const char *why;
    int ids[64], n = 0, len;
    const char *p;
    CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.items, &why));
    /* dummy prefix, then merges by best score: " the" and " cat" win */
    CHECK_OK(llm_tokenize(&t, "the cat", 1, 0, ids, 64, &n));
    CHECK(n == 3 && ids[0] == 1 && ids[1] == id_of(" the") && ids[2] == id_of(" cat"));
    /* "abc": pieces a b c; "bc" (2) beats "ab" (1), then "abc" is not a piece */
    CHECK_OK(llm_tokenize(&t, "abc", 0, 0, ids, 64, &n));
    CHECK(n == 3 && ids[0] == id_of(" ") && ids[1] == id_of("a") && ids[2] == id_of("bc"));
    /* byte fallback: 'x' (0x78) is no piece: <0x78> = 3 + 0x78; UTF-8 code points found whole
       and merged (日本), or split into bytes (ü = c3 bc) */
    CHECK_OK(llm_tokenize(&t, "x\xc3\xa9\xe6\x97\xa5\xe6\x9c\xac\xc3\xbc", 0, 1, ids, 64, &n));
    CHECK(n == 7 && ids[1] == 3 + 0x78 && ids[2] == id_of("\xc3\xa9") && ids[3] == id_of("\xe6\x97\xa5\xe6\x9c\xac"));
    CHECK(ids[4] == 3 + 0xc3 && ids[5] == 3 + 0xbc && ids[6] == 2);
    /* the empty text: no dummy prefix */
    CHECK_OK(llm_tokenize(&t, "", 1, 1, ids, 64, &n));
    CHECK(n == 2 && ids[0] == 1 && ids[1] == 2);
    /* too little room is an error, strlen + 3 always suffices */
    CHECK(llm_tokenize(&t, "xyzzy", 1, 1, ids, 4, &n) == LLM_ERANGE);
    CHECK_OK(llm_tokenize(&t, "xyzzy", 1, 1, ids, 8, &n));
    CHECK(llm_tokenize(&t, NULL, 1, 1, ids, 8, &n) == LLM_EINVAL);
    /* decoding: the space after BOS goes, raw bytes come back, out-of-range is NULL */
    p = llm_token_piece(&t, 1, id_of(" the"), &len);
    CHECK(len == 3 && memcmp(p, "the", 3) == 0);
    p = llm_token_piece(&t, 5, id_of(" the"), &len);
    CHECK(len == 4 && memcmp(p, " the", 4) == 0);
    p = llm_token_piece(&t, 1, 3 + 0x41, &len);
    CHECK(len == 1 && p[0] == 'A');
    p = llm_token_piece(&t, 1, 3 + 0xe6, &len);
    CHECK(len == 1 && (unsigned char)p[0] == 0xe6);
    CHECK(llm_token_piece(&t, 1, b.items, &len) == NULL && len == 0);
    CHECK(llm_token_piece(&t, 1, -1, &len) == NULL);
    /* run.c prints a single byte only if it is printable ASCII or white space */
    CHECK(llm_piece_printable("A", 1) && llm_piece_printable("\n", 1) && llm_piece_printable("ab", 2));
    CHECK(!llm_piece_printable("\x01", 1) && !llm_piece_printable("\xe6", 1) && !llm_piece_printable("", 0));
    /* round trips, ASCII and UTF-8 */
    round_trip(&t, "the cat sat on the mat. Hello, World! 123 {}[]~");
    round_trip(&t, " leading space and trailing  ");
    round_trip(&t, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x99\x82 \xc3\xbc\xc3\xb1\xc3\xae\xc3\xa7\xc3\xb6" "d\xc3\xa9");
    round_trip(&t, "tab\tnewline\nend");
    /* detokenize needs room */
    {
        char small[4];
        size_t ol;
        CHECK_OK(llm_tokenize(&t, "the cat", 1, 0, ids, 64, &n));
        CHECK(llm_detokenize(&t, 0, ids, n, small, sizeof small, &ol) == LLM_ERANGE);
    }
    llm_tokenizer_free(&t);
    free(b.p);
}

static void test_hostile(void) {
    test_buf b = make_tok();
    llm_tokenizer t;
    const char *why = NULL;
    size_t i;
    int bad = 0;
    /* every truncation is a format error (the copy is exactly sized, so ASan sees overreads) */
    for (i = 0; i < b.n; i += (i < 64 ? 1 : 7)) {
        void *c = malloc(i ? i : 1);
        memcpy(c, b.p, i);
        if (llm_tokenizer_create(&t, c, i, b.items, &why) != LLM_EFORMAT || !why || !*why) bad++;
        free(c);
    }
    CHECK_MSG(bad == 0, "%d truncated tokenizers accepted", bad);
    /* a vocab size that does not match the file */
    CHECK(llm_tokenizer_create(&t, b.p, b.n, b.items - 1, &why) == LLM_EFORMAT);
    CHECK(llm_tokenizer_create(&t, b.p, b.n, b.items + 1, &why) == LLM_EFORMAT);
    CHECK(llm_tokenizer_create(&t, b.p, b.n, 0, &why) == LLM_EINVAL);
    CHECK(llm_tokenizer_create(&t, b.p, b.n, -5, &why) == LLM_EINVAL);
    /* a negative or huge piece length */
    {
        unsigned char *c = (unsigned char *)malloc(b.n);
        memcpy(c, b.p, b.n);
        c[8] = 0xff, c[9] = 0xff, c[10] = 0xff, c[11] = 0xff; /* first length = -1 */
        CHECK(llm_tokenizer_create(&t, c, b.n, b.items, &why) == LLM_EFORMAT);
        c[11] = 0x7f; /* 2^31 - 1 */
        CHECK(llm_tokenizer_create(&t, c, b.n, b.items, &why) == LLM_EFORMAT);
        memcpy(c, b.p, b.n);
        c[3] = 0x80; /* negative max_token_length */
        CHECK(llm_tokenizer_create(&t, c, b.n, b.items, &why) == LLM_EFORMAT);
        free(c);
    }
    /* a vocabulary without byte pieces: unknown bytes become <unk>, every id in range */
    {
        test_buf tiny;
        int ids[32], n = 0, k, ok = 1;
        char out[64];
        size_t ol;
        memset(&tiny, 0, sizeof tiny);
        test_buf_i32(&tiny, 4);
        tput_piece(&tiny, "<unk>", 0), tput_piece(&tiny, "<s>", 0), tput_piece(&tiny, "</s>", 0);
        tput_piece(&tiny, "a", 0), tput_piece(&tiny, "b", 0);
        CHECK_OK(llm_tokenizer_create(&t, tiny.p, tiny.n, tiny.items, &why));
        CHECK_OK(llm_tokenize(&t, "ab xyz\xc3\xa9", 1, 1, ids, 32, &n));
        for (k = 0; k < n; k++) ok = ok && ids[k] >= 0 && ids[k] < tiny.items;
        CHECK_MSG(ok && n == 11 && ids[1] == 0 && ids[2] == 3 && ids[3] == 4, "n %d: %d %d %d %d", n, ids[0], ids[1], ids[2], ids[3]);
        CHECK_OK(llm_detokenize(&t, 0, ids, n, out, sizeof out, &ol));
        llm_tokenizer_free(&t);
        free(tiny.p);
    }
    /* caller memory: too small is refused */
    {
        size_t need = llm_tokenizer_bytes(b.items, b.n);
        void *mem = malloc(need);
        CHECK(need > 0);
        CHECK(llm_tokenizer_init(&t, mem, need - 1, b.p, b.n, b.items, &why) == LLM_EINVAL);
        CHECK_OK(llm_tokenizer_init(&t, mem, need, b.p, b.n, b.items, &why));
        /* a failed init leaves the tokenizer empty, not pointing into the old memory */
        CHECK(llm_tokenizer_init(&t, mem, need, b.p, b.n, b.items + 1, &why) == LLM_EFORMAT);
        CHECK(t.vocab == 0 && t.bytes == NULL && t.offset == NULL && t.scores == NULL);
        CHECK(llm_tokenize(&t, "hi", 1, 0, &bad, 1, &bad) == LLM_EINVAL);
        /* 4 GiB of pieces would overflow the 32-bit offsets: refused before a byte is read */
        if ((uint64_t)SIZE_MAX > (uint64_t)UINT32_MAX) {
            size_t huge = (size_t)UINT32_MAX - (size_t)b.items; /* + vocab + 1 > UINT32_MAX */
            CHECK(llm_tokenizer_bytes(b.items, huge) == 0);
            CHECK(llm_tokenizer_bytes(b.items, huge - 1) > 0);
            why = NULL;
            CHECK(llm_tokenizer_init(&t, mem, need, b.p, huge, b.items, &why) == LLM_EFORMAT && why && *why);
        }
        free(mem);
    }
    free(b.p);
}

/* synth512.bin: run.c's encoding of the golden prompt (README of ../shared/models) */
static void test_synth512(void) {
    char path[512];
    llm_tokenizer t;
    const char *why;
    static const int want[12] = {1, 430, 467, 436, 313, 309, 446, 264, 260, 259, 356, 431};
    int ids[64], n = 0, i, ok;
    FILE *f;
    sprintf(path, "%s/synth512.bin", test_models_dir());
    if (!(f = fopen(path, "rb"))) {
        /* the checks below: load, encode, compare, 2 round trips of 4, the 511 refusal */
        TEST_SKIP_SHARED(12, "synth512 checks: %s absent", path);
        return;
    }
    fclose(f);
    CHECK_OK(llm_tokenizer_load_file(&t, path, 512, &why));
    CHECK_OK(llm_tokenize(&t, "Once upon a time", 1, 0, ids, 64, &n));
    ok = n == 12;
    for (i = 0; ok && i < 12; i++) ok = ids[i] == want[i];
    CHECK_MSG(ok, "synth512: \"Once upon a time\" encodes differently from run.c (%d tokens)", n);
    round_trip(&t, "Permission is hereby granted, free of charge, to any person obtaining a copy");
    round_trip(&t, "Grüße aus Köln — 東京 😀");
    llm_tokenizer_free(&t);
    CHECK(llm_tokenizer_load_file(&t, path, 511, &why) == LLM_EFORMAT);
}

/* ---- the heap-based encoder against run.c's (tests/tok_reference.h) ---------------- */

static uint32_t rng = 2463534242u;
static uint32_t rnd(void) { /* xorshift32 */
    rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
    return rng;
}

/* Appends one UTF-8 code point of 1-4 bytes (never NUL); returns the bytes written. */
static int put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) return o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 63)), 2;
    if (cp < 0x10000)
        return o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 63)), o[2] = (char)(0x80 | (cp & 63)), 3;
    o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 63));
    o[2] = (char)(0x80 | ((cp >> 6) & 63)), o[3] = (char)(0x80 | (cp & 63));
    return 4;
}

/* A random text of at most max bytes: the vocabulary's own pieces glued together (so
   long runs of merges), `alpha` characters (a small alphabet: many equal-score pairs),
   printable ASCII, code points of 2-4 bytes, and stray bytes (continuation bytes alone,
   cut sequences, control characters). */
static int random_text(const llm_tokenizer *t, const char *alpha, char *out, int max) {
    int n = 0, na = (int)strlen(alpha);
    while (n < max - 8) {
        uint32_t r = rnd() % 100;
        if (r < 35) { /* a piece of the vocabulary, skipping <unk> <s> </s> */
            int len, id = 3 + (int)(rnd() % (uint32_t)(t->vocab - 3));
            const char *p = llm__piece(t, id, &len);
            if (len > 0 && len <= max - 8 - n && (int)strlen(p) == len) memcpy(out + n, p, (size_t)len), n += len;
        } else if (r < 60) {
            out[n++] = alpha[rnd() % (uint32_t)na];
        } else if (r < 72) {
            out[n++] = (char)(' ' + rnd() % 95);
        } else if (r < 87) {
            static const uint32_t lo[3] = {0x80, 0x800, 0x10000}, span[3] = {0x780, 0xF800, 0x100000};
            int k = (int)(rnd() % 3);
            uint32_t cp = lo[k] + rnd() % span[k];
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xE9;
            n += put_utf8(out + n, cp);
        } else {
            out[n++] = (char)(1 + rnd() % 255);
        }
        if (rnd() % 16 == 0) break;
    }
    out[n] = 0;
    return n;
}

/* llm_tokenize, llm_tokenize_scratch and the reference agree on status and ids; the cap
   is sometimes short, to compare the LLM_ERANGE cases too. Returns 1 if they agree. */
static int same_as_reference(const llm_tokenizer *t, const char *text) {
    static int want[2048], got[2048], got2[2048];
    static unsigned char scratch[2048 * 20 + 64];
    int len = (int)strlen(text), bos = (int)(rnd() & 1), eos = (int)(rnd() & 1), nw = -1, ng = -1, ng2 = -1, i;
    int cap = len + 3;
    llm_status sw, sg, sg2;
    if (cap > 2048) return 0;
    if (rnd() % 4 == 0) cap = (int)(rnd() % (uint32_t)(cap + 1));
    sw = ref_tokenize(t, text, bos, eos, want, cap, &nw);
    sg = llm_tokenize(t, text, bos, eos, got, cap, &ng);
    sg2 = llm_tokenize_scratch(t, text, bos, eos, got2, cap, &ng2, scratch, llm_tokenize_scratch_bytes(cap));
    if (sw != sg || sw != sg2 || nw != ng || nw != ng2) {
        printf("  \"%.60s\" (%d bytes, bos %d eos %d cap %d): reference %s n %d, llm_tokenize %s n %d, _scratch %s n %d\n",
               text, len, bos, eos, cap, llm_status_str(sw), nw, llm_status_str(sg), ng, llm_status_str(sg2), ng2);
        return 0;
    }
    for (i = 0; i < nw; i++)
        if (want[i] != got[i] || want[i] != got2[i]) {
            printf("  \"%.60s\" (%d bytes): token %d of %d: reference %d, llm_tokenize %d, _scratch %d\n", text, len, i, nw,
                   want[i], got[i], got2[i]);
            return 0;
        }
    return 1;
}

static int compare_random(const llm_tokenizer *t, const char *alpha, int n_texts, const char *what) {
    static char text[1200];
    int k, bad = 0;
    for (k = 0; k < n_texts && bad < 3; k++) {
        /* mostly short texts (the reference is O(n^2)), one in eight up to 1 KB */
        random_text(t, alpha, text, rnd() % 8 == 0 ? 1 + (int)(rnd() % 1100) : 10 + (int)(rnd() % 100));
        if (!same_as_reference(t, text)) bad++;
    }
    CHECK_MSG(bad == 0, "%s: %d random texts encode differently from run.c's algorithm", what, bad);
    return bad;
}

/* A vocabulary where equal scores are the rule: every string of 1-3 symbols over
   {a, b, space, é} scored -1, 0 or 1, plus hostile entries: a duplicate piece with a better
   score (the lowest id wins the lookup), scores of NaN, -inf, exactly -1e10 (never merged,
   as in run.c) and -9e9 (merged last), and an empty piece. bytes: the 256 <0xNN> pieces,
   or none (then byte fallback lands on whatever piece has id byte + 3). */
static test_buf make_ties_tok(int bytes) {
    static const char *const sym[4] = {"a", "b", " ", "\xc3\xa9"};
    test_buf b;
    char piece[16];
    int i, len, k;
    memset(&b, 0, sizeof b);
    test_buf_i32(&b, 8);
    tput_piece(&b, "<unk>", 0), tput_piece(&b, "<s>", 0), tput_piece(&b, "</s>", 0);
    if (bytes)
        for (i = 0; i < 256; i++) {
            sprintf(piece, "<0x%02X>", i);
            tput_piece(&b, piece, 0);
        }
    for (len = 1; len <= 3; len++)
        for (i = 0; i < (len == 1 ? 4 : len == 2 ? 16 : 64); i++) {
            float sc = (float)((int)(rnd() % 3) - 1);
            int v = i;
            piece[0] = 0;
            for (k = 0; k < len; k++, v /= 4) strcat(piece, sym[v % 4]);
            if (strcmp(piece, "aaa") == 0) sc = (float)NAN;
            if (strcmp(piece, "bbb") == 0) sc = -(float)INFINITY;
            if (strcmp(piece, "a b") == 0) sc = -1e10f;
            if (strcmp(piece, "b a") == 0) sc = -9e9f;
            tput_piece(&b, piece, sc);
        }
    tput_piece(&b, "ab", 5.0f); /* a duplicate: never found, "ab" keeps its first id */
    tput_piece(&b, "", 3.0f);
    return b;
}

static void test_against_reference(void) {
    llm_tokenizer t;
    const char *why;
    test_buf b = make_tok();
    CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.items, &why));
    compare_random(&t, "the cat sat on abc", 300, "the small test vocabulary");
    llm_tokenizer_free(&t);
    free(b.p);
    b = make_ties_tok(1);
    CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.items, &why));
    compare_random(&t, "ab \xc3\xa9", 400, "the tie vocabulary");
    {   /* all-tie texts: the leftmost pair must win every time */
        static char text[600];
        int k, i, bad = 0;
        for (k = 0; k < 100; k++) {
            int n = 1 + (int)(rnd() % 500);
            for (i = 0; i < n; i++) text[i] = "ab "[rnd() % 3];
            text[n] = 0;
            bad += !same_as_reference(&t, text);
        }
        CHECK_MSG(bad == 0, "%d texts over {a, b, space} encode differently from run.c's algorithm", bad);
    }
    llm_tokenizer_free(&t);
    free(b.p);
    b = make_ties_tok(0);
    CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.items, &why));
    compare_random(&t, "ab \xc3\xa9", 300, "the tie vocabulary without byte pieces");
    llm_tokenizer_free(&t);
    free(b.p);
    /* scratch: exactly enough works, one byte less is refused, and one token needs none */
    {
        int ids[16], n = -1;
        size_t need;
        void *mem;
        b = make_tok();
        CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.items, &why));
        need = llm_tokenize_scratch_bytes(6); /* BOS, prefix, h, e, l, l... : 7 tokens for "hello" */
        CHECK(llm_tokenize_scratch_bytes(-1) == 0 && llm_tokenize_scratch_bytes(0) > 0);
        mem = malloc(llm_tokenize_scratch_bytes(7));
        CHECK_OK(llm_tokenize_scratch(&t, "hello", 1, 1, ids, 16, &n, mem, llm_tokenize_scratch_bytes(7)));
        CHECK(llm_tokenize_scratch(&t, "hello", 1, 1, ids, 16, &n, mem, need) == LLM_EINVAL && n == 0);
        CHECK(llm_tokenize_scratch(&t, "hello", 1, 1, ids, 16, &n, NULL, 0) == LLM_EINVAL);
        CHECK(llm_tokenize_scratch(&t, "hello", 1, 1, ids, 4, &n, mem, need) == LLM_ERANGE);
        CHECK_OK(llm_tokenize_scratch(&t, "", 1, 1, ids, 16, &n, NULL, 0));
        CHECK(n == 2 && ids[0] == 1 && ids[1] == 2);
        free(mem);
        llm_tokenizer_free(&t);
        free(b.p);
    }
}

/* synth512 (a real 512-piece tokenizer): random texts against the reference, then a
   1 MB text (the old encoder took minutes there; no time limit here, it just has to
   finish and round-trip). */
static void test_synth512_long(void) {
    char path[512];
    llm_tokenizer t;
    const char *why;
    static const char *const words[] = {"Once", "upon", "a", "time", "there", "was", "little", "girl", "named",
                                        "Lily", "She", "loved", "to", "play", "outside", "the", "sun", "and",
                                        "Permission", "hereby", "granted", "free", "of", "charge", "software",
                                        "Gr\303\274\303\237e", "K\xc3\xb6ln", "\xe6\x9d\xb1\xe4\xba\xac",
                                        "\xf0\x9f\x98\x80", "caf\xc3\xa9", "1234", "--", "\"quoted\"", "(x)"};
    size_t size = 1 << 20, n = 0, out_len = 0;
    char *text, *out;
    int *ids, n_ids = 0, i, ok = 1;
    FILE *f;
    sprintf(path, "%s/synth512.bin", test_models_dir());
    if (!(f = fopen(path, "rb"))) {
        /* the random texts against run.c's algorithm (one check); the load is replaced by
           the small vocabulary's create, which the 1 MB text then uses */
        TEST_SKIP_SHARED(1, "synth512 random texts vs run.c (the 1 MB text uses the small test vocabulary): %s absent",
                         path);
        test_buf b = make_tok();
        CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.items, &why));
        free(b.p);
    } else {
        fclose(f);
        CHECK_OK(llm_tokenizer_load_file(&t, path, 512, &why));
        compare_random(&t, " the and of", 300, "synth512");
    }
    text = (char *)malloc(size + 64);
    out = (char *)malloc(size + 64);
    ids = (int *)malloc((size + 3) * sizeof(int));
    if (!text || !out || !ids) {
        CHECK_MSG(0, "no memory for the 1 MB text");
        free(text), free(out), free(ids);
        llm_tokenizer_free(&t);
        return;
    }
    while (n < size) { /* words, spaces, now and then a newline or a sentence end */
        const char *w = words[rnd() % (sizeof words / sizeof words[0])];
        size_t wl = strlen(w);
        if (n + wl + 2 > size) break;
        memcpy(text + n, w, wl), n += wl;
        text[n++] = rnd() % 12 == 0 ? '\n' : rnd() % 10 == 0 ? '.' : ' ';
    }
    text[n] = 0;
    CHECK_OK(llm_tokenize(&t, text, 1, 1, ids, (int)size + 3, &n_ids));
    CHECK(n_ids > 2 && n_ids < (int)n && ids[0] == 1 && ids[n_ids - 1] == 2); /* merges happened */
    for (i = 0; i < n_ids; i++) ok = ok && ids[i] >= 0 && ids[i] < t.vocab;
    CHECK_MSG(ok, "1 MB text: an id out of range");
    CHECK_OK(llm_detokenize(&t, 0, ids, n_ids, out, size + 64, &out_len));
    CHECK_MSG(out_len == n && memcmp(out, text, n) == 0, "1 MB text: decode(encode(text)) differs (%zu of %zu bytes)",
              out_len, n);
    free(text), free(out), free(ids);
    llm_tokenizer_free(&t);
}

/* The llama2.c tokenizer is one source of llm_vocab's SentencePiece encoder (llama.cpp's
   algorithm: characters, then best-score merges, ties to the leftmost): the same file read
   by llm_vocab_init_llama2c gives run.c's ids on random texts, BOS and EOS included, and
   decodes them back. The tie vocabulary is left out: it holds a duplicate piece and
   -1e10 scores, which llm_vocab refuses / merges where run.c's floor skips them. */
static int vocab_same(const llm_tokenizer *t, const llm_vocab *v, const char *text) {
    static int want[2048];
    static int32_t got[2048];
    static char dec[4096];
    int nw = 0, i;
    size_t len = strlen(text), ng = 0, dl = 0;
    if (llm_tokenize(t, text, 1, 1, want, 2048, &nw) != LLM_OK) return 0;
    if (llm_vocab_encode(v, text, len, LLM_ENCODE_BOS | LLM_ENCODE_EOS, got, 2048, &ng, NULL, 0) != LLM_OK) return 0;
    if ((size_t)nw != ng) {
        printf("  \"%.60s\": run.c %d ids, llm_vocab %lu\n", text, nw, (unsigned long)ng);
        return 0;
    }
    for (i = 0; i < nw; i++)
        if (want[i] != got[i]) {
            printf("  \"%.60s\": id %d: run.c %d, llm_vocab %d\n", text, i, want[i], (int)got[i]);
            return 0;
        }
    return llm_vocab_decode(v, got, ng, 0, dec, sizeof dec, &dl) == LLM_OK && dl == len && memcmp(dec, text, len) == 0;
}
/* Bytes that are not part of a valid UTF-8 sequence become '?': where the text is not
   UTF-8, run.c's code-point split (a byte and the continuation bytes after it) and
   llama.cpp's (the lead byte's length) differ by design, and llm_vocab is llama.cpp's. */
static void make_valid_utf8(char *s) {
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int k = *p < 0x80 ? 0 : *p >= 0xC2 && *p <= 0xDF ? 1 : *p >= 0xE0 && *p <= 0xEF ? 2 : *p >= 0xF0 && *p <= 0xF4 ? 3 : -1, j;
        for (j = 1; k > 0 && j <= k; j++)
            if ((p[j] & 0xC0) != 0x80) k = -1;
        if (k == 2 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0))) k = -1;
        if (k == 3 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))) k = -1;
        if (k < 0) *p++ = '?';
        else p += k + 1;
    }
}
static void vocab_compare(const void *buf, size_t n, int vocab, const char *alpha, const char *what) {
    llm_tokenizer t;
    llm_vocab v;
    const char *why = "";
    static char text[1200];
    int k, bad = 0;
    if (!CHECK_OK(llm_tokenizer_create(&t, buf, n, vocab, &why))) return;
    if (CHECK_OK(llm_vocab_create_llama2c(&v, buf, n, vocab, &why))) {
        CHECK(v.n_tokens == vocab && v.bos == 1 && v.eos == 2 && v.kind == LLM_VOCAB_SPM);
        for (k = 0; k < 300 && bad < 3; k++) {
            random_text(&t, alpha, text, rnd() % 8 == 0 ? 1 + (int)(rnd() % 1100) : 10 + (int)(rnd() % 100));
            make_valid_utf8(text);
            if (!vocab_same(&t, &v, text)) bad++;
        }
        CHECK_MSG(bad == 0, "%s: %d random texts encode differently through llm_vocab", what, bad);
        llm_vocab_free(&v);
    }
    llm_tokenizer_free(&t);
}
static void test_vocab_source(void) {
    test_buf b = make_tok();
    char path[512];
    FILE *f;
    vocab_compare(b.p, b.n, b.items, "the cat sat on abc", "the small test vocabulary");
    free(b.p);
    snprintf(path, sizeof path, "%s/synth512.bin", test_models_dir());
    if ((f = fopen(path, "rb")) != NULL) {
        static unsigned char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        vocab_compare(buf, n, 512, " the and of", "synth512");
    } else {
        TEST_SKIP_SHARED(1, "synth512 through llm_vocab vs run.c: %s absent", path);
    }
}

int main(void) {
    test_vocab_source();
    test_encode_decode();
    test_hostile();
    test_synth512();
    test_against_reference();
    test_synth512_long();
    return test_done();
}
