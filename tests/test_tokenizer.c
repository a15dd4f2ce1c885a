/* >>files: the llama2.c tokenizer: run.c's encoding (dummy prefix, UTF-8 code points,
   byte fallback, best-score merges), decoding (space after BOS, raw bytes), round trips
   on ASCII and UTF-8, and hostile tokenizer files. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "test.h"

/* A tokenizer.bin in memory: <unk> <s> </s>, the 256 byte pieces, then `extra` pieces. */
typedef struct tbuf {
    unsigned char *p;
    size_t n;
    int vocab;
} tbuf;
static void tput(tbuf *b, const void *src, size_t n) {
    b->p = (unsigned char *)realloc(b->p, b->n + n);
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void tput_i32(tbuf *b, int32_t v) {
    unsigned char c[4];
    uint32_t u = (uint32_t)v;
    c[0] = (unsigned char)u, c[1] = (unsigned char)(u >> 8), c[2] = (unsigned char)(u >> 16), c[3] = (unsigned char)(u >> 24);
    tput(b, c, 4);
}
static void tput_piece(tbuf *b, const char *s, float score) {
    uint32_t u;
    memcpy(&u, &score, 4);
    tput_i32(b, (int32_t)u);
    tput_i32(b, (int32_t)strlen(s));
    tput(b, s, strlen(s));
    b->vocab++;
}
static const char *extra[][2] = {
    /* piece, score */
    {" ", "-1"}, {"e", "-2"}, {"t", "-2"}, {"h", "-3"}, {"a", "-3"}, {"c", "-4"}, {"s", "-4"}, {"o", "-4"},
    {"n", "-4"}, {"th", "-1"}, {"he", "-5"}, {"the", "-0.5"}, {" the", "-0.2"}, {" c", "-2"}, {"at", "-1.5"},
    {" cat", "-0.1"}, {"ab", "1"}, {"bc", "2"}, {"b", "-6"}, {"\xc3\xa9", "-3"}, {"\xe6\x97\xa5", "-3"},
    {"\xe6\x97\xa5\xe6\x9c\xac", "0.5"}, {"\xe6\x9c\xac", "-3"}, {" on", "-1"}, {"on", "-1.2"}, {"O", "-4"},
};
static tbuf make_tok(void) {
    tbuf b;
    int i;
    char name[8];
    memset(&b, 0, sizeof b);
    tput_i32(&b, 8);
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
    tbuf b = make_tok();
    llm_tokenizer t;
    const char *why;
    int ids[64], n = 0, len;
    const char *p;
    CHECK_OK(llm_tokenizer_create(&t, b.p, b.n, b.vocab, &why));
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
    CHECK(llm_token_piece(&t, 1, b.vocab, &len) == NULL && len == 0);
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
    tbuf b = make_tok();
    llm_tokenizer t;
    const char *why = NULL;
    size_t i;
    int bad = 0;
    /* every truncation is a format error (the copy is exactly sized, so ASan sees overreads) */
    for (i = 0; i < b.n; i += (i < 64 ? 1 : 7)) {
        void *c = malloc(i ? i : 1);
        memcpy(c, b.p, i);
        if (llm_tokenizer_create(&t, c, i, b.vocab, &why) != LLM_EFORMAT || !why || !*why) bad++;
        free(c);
    }
    CHECK_MSG(bad == 0, "%d truncated tokenizers accepted", bad);
    /* a vocab size that does not match the file */
    CHECK(llm_tokenizer_create(&t, b.p, b.n, b.vocab - 1, &why) == LLM_EFORMAT);
    CHECK(llm_tokenizer_create(&t, b.p, b.n, b.vocab + 1, &why) == LLM_EFORMAT);
    CHECK(llm_tokenizer_create(&t, b.p, b.n, 0, &why) == LLM_EINVAL);
    CHECK(llm_tokenizer_create(&t, b.p, b.n, -5, &why) == LLM_EINVAL);
    /* a negative or huge piece length */
    {
        unsigned char *c = (unsigned char *)malloc(b.n);
        memcpy(c, b.p, b.n);
        c[8] = 0xff, c[9] = 0xff, c[10] = 0xff, c[11] = 0xff; /* first length = -1 */
        CHECK(llm_tokenizer_create(&t, c, b.n, b.vocab, &why) == LLM_EFORMAT);
        c[11] = 0x7f; /* 2^31 - 1 */
        CHECK(llm_tokenizer_create(&t, c, b.n, b.vocab, &why) == LLM_EFORMAT);
        memcpy(c, b.p, b.n);
        c[3] = 0x80; /* negative max_token_length */
        CHECK(llm_tokenizer_create(&t, c, b.n, b.vocab, &why) == LLM_EFORMAT);
        free(c);
    }
    /* a vocabulary without byte pieces: unknown bytes become <unk>, every id in range */
    {
        tbuf tiny;
        int ids[32], n = 0, k, ok = 1;
        char out[64];
        size_t ol;
        memset(&tiny, 0, sizeof tiny);
        tput_i32(&tiny, 4);
        tput_piece(&tiny, "<unk>", 0), tput_piece(&tiny, "<s>", 0), tput_piece(&tiny, "</s>", 0);
        tput_piece(&tiny, "a", 0), tput_piece(&tiny, "b", 0);
        CHECK_OK(llm_tokenizer_create(&t, tiny.p, tiny.n, tiny.vocab, &why));
        CHECK_OK(llm_tokenize(&t, "ab xyz\xc3\xa9", 1, 1, ids, 32, &n));
        for (k = 0; k < n; k++) ok = ok && ids[k] >= 0 && ids[k] < tiny.vocab;
        CHECK_MSG(ok && n == 11 && ids[1] == 0 && ids[2] == 3 && ids[3] == 4, "n %d: %d %d %d %d", n, ids[0], ids[1], ids[2], ids[3]);
        CHECK_OK(llm_detokenize(&t, 0, ids, n, out, sizeof out, &ol));
        llm_tokenizer_free(&t);
        free(tiny.p);
    }
    /* caller memory: too small is refused */
    {
        size_t need = llm_tokenizer_bytes(b.vocab, b.n);
        void *mem = malloc(need);
        CHECK(need > 0);
        CHECK(llm_tokenizer_init(&t, mem, need - 1, b.p, b.n, b.vocab, &why) == LLM_EINVAL);
        CHECK_OK(llm_tokenizer_init(&t, mem, need, b.p, b.n, b.vocab, &why));
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
        printf("test_tokenizer: %s absent: skipping the synth512 checks\n", path);
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

int main(void) {
    test_encode_decode();
    test_hostile();
    test_synth512();
    return test_done();
}
