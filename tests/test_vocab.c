/* >>tokenizer: the vocabularies. Every line of every ../shared/vocab .gguf.inp / .out pair
   (llama.cpp's tokenizer test set, made with the reference Hugging Face tokenizers) encoded
   to exactly its ids; the Hugging Face tokenizer.json files give the GGUF's ids; decoding
   gives the text back where the tokenizer is lossless; the streaming decoder fed one id at a
   time equals the whole decode and never emits a partial UTF-8 sequence; special-token
   parsing on and off; hostile vocabularies refused with the field named. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "test.h"
#include "gguf_writer.h"

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *p;
    long sz;
    *n = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = (char *)malloc((size_t)sz + 1);
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) free(p), p = NULL;
    fclose(f);
    if (p) p[sz] = '\0', *n = (size_t)sz;
    return p;
}
static const char *vocab_dir(void) {
    const char *d = getenv("LLM_VOCAB_DIR");
    return d ? d : "../shared/vocab";
}

/* Whether s[0 .. n) is valid UTF-8 (RFC 3629: shortest forms, no surrogates, <= U+10FFFF). */
static int utf8_valid(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], k, cp, min;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) k = 1, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF) k = 2, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4) k = 3, cp = c & 0x07, min = 0x10000;
        else return 0;
        if (i + k >= n + 0 && i + k > n - 1 + 1) return 0;
        if (n - i <= k) return 0;
        for (i++; k > 0; k--, i++) {
            if ((s[i] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    }
    return 1;
}

/* The streaming decoder over ids: every chunk valid UTF-8 when the whole is; the chunks
   together equal llm_vocab_decode. */
static int stream_equals(const llm_vocab *v, const int32_t *ids, size_t n, const char *whole, size_t wlen) {
    llm_vocab_stream s;
    char chunk[1024], *all = (char *)malloc(wlen + 64);
    size_t got = 0, l, i;
    int ok = all != NULL && llm_vocab_stream_init(&s, v, 0) == LLM_OK;
    int valid = utf8_valid((const unsigned char *)whole, wlen);
    for (i = 0; ok && i < n; i++) {
        if (llm_vocab_stream_push(&s, ids[i], chunk, sizeof chunk, &l) != LLM_OK || got + l > wlen) ok = 0;
        else if (valid && !utf8_valid((const unsigned char *)chunk, l)) ok = 0;
        else memcpy(all + got, chunk, l), got += l;
    }
    if (ok && llm_vocab_stream_flush(&s, chunk, sizeof chunk, &l) == LLM_OK && got + l <= wlen) memcpy(all + got, chunk, l), got += l;
    ok = ok && got == wlen && memcmp(all, whole, wlen) == 0;
    free(all);
    return ok;
}

/* One .inp/.out pair against a loaded vocabulary; returns the lines that match. */
static int run_pair(const llm_vocab *v, const char *name, const char *inp, size_t inp_n, const char *out, int lossless,
                    int *n_lines) {
    static const char sep[] = "\n__ggml_vocab_test__\n";
    size_t pos = 0, sl = sizeof sep - 1;
    const char *o = out;
    int line = 0, match = 0, round = 0, streamed = 0;
    int32_t ids[4096], want[4096];
    void *scratch = malloc(llm_vocab_scratch_bytes(v, inp_n));
    while (pos < inp_n) {
        const char *e = strstr(inp + pos, sep), *eol;
        size_t len = e ? (size_t)(e - (inp + pos)) : inp_n - pos, n = 0, nw = 0, dl = 0;
        char dec[8192];
        int same;
        if (!e) break;
        eol = strchr(o, '\n');
        if (!eol) eol = o + strlen(o);
        while (o < eol) {
            char *end;
            long x = strtol(o, &end, 10);
            if (end == o) break;
            want[nw++] = (int32_t)x;
            o = end;
        }
        o = *eol ? eol + 1 : eol;
        CHECK_OK(llm_vocab_encode(v, inp + pos, len, 0, ids, 4096, &n, scratch, llm_vocab_scratch_bytes(v, inp_n)));
        same = n == nw && memcmp(ids, want, n * sizeof ids[0]) == 0;
        CHECK_MSG(same, "%s line %d (\"%.40s\"): %lu ids, want %lu", name, line + 1, inp + pos, (unsigned long)n,
                  (unsigned long)nw);
        if (!same && getenv("VOCAB_VERBOSE")) {
            size_t k;
            for (k = 0; k < n; k++) fprintf(stderr, " %d", ids[k]);
            fprintf(stderr, "\n");
        }
        match += same;
        CHECK_OK(llm_vocab_decode(v, ids, n, 0, dec, sizeof dec, &dl));
        if (lossless) {
            CHECK_MSG(dl == len && memcmp(dec, inp + pos, len) == 0, "%s line %d: decode(encode(x)) != x", name, line + 1);
            round += dl == len && memcmp(dec, inp + pos, len) == 0;
        }
        same = stream_equals(v, ids, n, dec, dl);
        CHECK_MSG(same, "%s line %d: the streamed decode differs or split a character", name, line + 1);
        streamed += same;
        line++;
        pos += len + sl;
    }
    free(scratch);
    printf("%s: %d/%d lines give the reference ids; decode(encode(x)) == x on %d%s; streaming == decode on %d\n", name,
           match, line, round, lossless ? "" : " (not checked: lossy)", streamed);
    *n_lines = line;
    return match;
}

static void test_gguf_pairs(void) {
    static const struct { const char *file; int lossless; } f[] = {
        {"ggml-vocab-llama-spm.gguf", 1}, {"ggml-vocab-phi-3.gguf", 1}, {"ggml-vocab-gpt-2.gguf", 1},
        {"ggml-vocab-deepseek-llm.gguf", 1}, {"llama3.gguf", 1}, {"qwen2.gguf", 1},
    };
    size_t i;
    for (i = 0; i < sizeof f / sizeof f[0]; i++) {
        char path[512];
        size_t gn, in_n, out_n;
        char *gbuf, *inp, *out;
        llm_gguf g;
        llm_vocab v;
        const char *why = "";
        int lines = 0;
        snprintf(path, sizeof path, "%s/%s", vocab_dir(), f[i].file);
        gbuf = read_all(path, &gn);
        snprintf(path, sizeof path, "%s/%s.inp", vocab_dir(), f[i].file);
        inp = read_all(path, &in_n);
        snprintf(path, sizeof path, "%s/%s.out", vocab_dir(), f[i].file);
        out = read_all(path, &out_n);
        if (!gbuf || !inp || !out) {
            TEST_SKIP_SHARED(1, "%s/%s (+ .inp, .out) absent: its reference ids are not checked", vocab_dir(), f[i].file);
        } else if (CHECK_OK(llm_gguf_create(&g, gbuf, gn, &why))) {
            llm_status st = llm_vocab_create_gguf(&v, &g, &why);
            CHECK_MSG(st == LLM_OK, "%s: %s: %s", f[i].file, llm_status_str(st), why);
            if (st == LLM_OK) {
                run_pair(&v, f[i].file, inp, in_n, out, f[i].lossless, &lines);
                llm_vocab_free(&v);
            }
            llm_gguf_free(&g);
        }
        free(gbuf), free(inp), free(out);
    }
}

/* hf-llama3 and hf-qwen3's tokenizer.json (+ tokenizer_config.json) against the ids the
   GGUF written from them must give: its .out lines, and the same BOS / EOS / flags. */
static void test_hf_pairs(void) {
    static const char *f[][2] = {{"hf-llama3", "llama3.gguf"}, {"hf-qwen3", "qwen2.gguf"}};
    size_t i;
    for (i = 0; i < 2; i++) {
        char path[512];
        size_t jn, cn, in_n, out_n, gn;
        char *js, *cfg, *inp, *out, *gbuf;
        llm_vocab v, gv;
        llm_gguf g;
        const char *why = "";
        int lines = 0;
        snprintf(path, sizeof path, "%s/%s/tokenizer.json", vocab_dir(), f[i][0]);
        js = read_all(path, &jn);
        snprintf(path, sizeof path, "%s/%s/tokenizer_config.json", vocab_dir(), f[i][0]);
        cfg = read_all(path, &cn);
        snprintf(path, sizeof path, "%s/%s.inp", vocab_dir(), f[i][1]);
        inp = read_all(path, &in_n);
        snprintf(path, sizeof path, "%s/%s.out", vocab_dir(), f[i][1]);
        out = read_all(path, &out_n);
        snprintf(path, sizeof path, "%s/%s", vocab_dir(), f[i][1]);
        gbuf = read_all(path, &gn);
        if (!js || !cfg || !inp || !out || !gbuf) {
            TEST_SKIP_SHARED(1, "%s/%s or %s absent: tokenizer.json is not checked", vocab_dir(), f[i][0], f[i][1]);
        } else {
            llm_status st = llm_vocab_create_json(&v, js, jn, cfg, cn, &why);
            CHECK_MSG(st == LLM_OK, "%s: %s: %s", f[i][0], llm_status_str(st), why);
            if (st == LLM_OK) {
                char name[64];
                snprintf(name, sizeof name, "%s/tokenizer.json", f[i][0]);
                run_pair(&v, name, inp, in_n, out, 1, &lines);
                if (CHECK_OK(llm_gguf_create(&g, gbuf, gn, &why))) {
                    if (CHECK_OK(llm_vocab_create_gguf(&gv, &g, &why))) {
                        CHECK_MSG(v.n_tokens == gv.n_tokens && v.bos == gv.bos && v.eos == gv.eos && v.add_bos == gv.add_bos &&
                                      v.pretok == gv.pretok && v.n_merges == gv.n_merges && v.n_special == gv.n_special,
                                  "%s: tokens %d/%d bos %d/%d eos %d/%d add_bos %d/%d merges %d/%d special %d/%d", f[i][0],
                                  v.n_tokens, gv.n_tokens, v.bos, gv.bos, v.eos, gv.eos, v.add_bos, gv.add_bos, v.n_merges,
                                  gv.n_merges, v.n_special, gv.n_special);
                        llm_vocab_free(&gv);
                    }
                    llm_gguf_free(&g);
                }
                llm_vocab_free(&v);
            }
        }
        free(js), free(cfg), free(inp), free(out), free(gbuf);
    }
}

/* ---- small vocabularies written with gguf_writer.h, and broken on purpose ---- */
enum { V_OK, V_TOKENS_I32, V_SCORES_SHORT, V_SCORES_I32, V_TYPE_9, V_DUP, V_BOS_RANGE, V_MODEL_BERT, V_NO_MODEL,
       V_BYTE_NAME, V_TOKENS_LIE, V_BPE_OK, V_BPE_MERGE_UNKNOWN, V_BPE_PRE_FOO, V_BPE_NO_MERGES, V_BPE_MERGE_NOSPACE,
       V_BPE_MERGES_I32, V_COUNT };
/* SentencePiece: <unk> <s> </s> <|user|> (user-defined), <0x00>..<0xFF>, then pieces over
   "ab " with scores. BPE (gpt-2 split): the 256 byte-level characters, "ab", "abab", "Ġa",
   <|end|> (control), <think> (user-defined); merges "a b", "ab ab", "Ġ a". */
static gw make_vocab(int variant) {
    static char names[300][8];
    static const char *spm_extra[] = {"\xe2\x96\x81", "a", "b", "ab", "\xe2\x96\x81" "a", "\xe2\x96\x81" "ab", "ba"};
    static const float spm_score[] = {-1, -2, -2, -1.5f, -0.5f, -0.25f, -3};
    const char *toks[300];
    float scores[300];
    int32_t types[300];
    int n = 0, i;
    gw w;
    gw_init(&w);
    if (variant < V_BPE_OK) {
        toks[n] = "<unk>", types[n++] = 2;
        toks[n] = "<s>", types[n++] = 3;
        toks[n] = "</s>", types[n++] = 3;
        toks[n] = "<|user|>", types[n++] = 4;
        for (i = 0; i < 256; i++) snprintf(names[i], sizeof names[i], "<0x%02X>", i), toks[n] = names[i], types[n++] = 6;
        for (i = 0; i < 7; i++) toks[n] = spm_extra[i], scores[n] = spm_score[i], types[n++] = 1;
        for (i = 0; i < n - 7; i++) scores[i] = 0;
        if (variant == V_DUP) toks[n - 1] = "ab";
        if (variant == V_BYTE_NAME) toks[4 + 0x41] = "<0xZZ>";
        if (variant == V_MODEL_BERT) gw_kv_str(&w, "tokenizer.ggml.model", "bert");
        else if (variant != V_NO_MODEL) gw_kv_str(&w, "tokenizer.ggml.model", "llama");
        if (variant == V_TOKENS_I32) gw_kv_arr_i32(&w, "tokenizer.ggml.tokens", types, (uint64_t)n);
        else if (variant == V_TOKENS_LIE) {
            gw_key_arr(&w, "tokenizer.ggml.tokens", GW_T_STRING, 1u << 30); /* a count past the buffer */
            for (i = 0; i < n; i++) gw_m_str(&w, toks[i]);
        } else gw_kv_arr_str(&w, "tokenizer.ggml.tokens", toks, (uint64_t)n);
        if (variant == V_SCORES_I32) gw_kv_arr_i32(&w, "tokenizer.ggml.scores", types, (uint64_t)n);
        else gw_kv_arr_f32(&w, "tokenizer.ggml.scores", scores, (uint64_t)(variant == V_SCORES_SHORT ? n - 1 : n));
        if (variant == V_TYPE_9) types[5] = 9;
        gw_kv_arr_i32(&w, "tokenizer.ggml.token_type", types, (uint64_t)n);
        gw_kv_u32(&w, "tokenizer.ggml.bos_token_id", variant == V_BOS_RANGE ? (uint32_t)n : 1u);
        gw_kv_u32(&w, "tokenizer.ggml.eos_token_id", 2);
    } else {
        static const char *merges[] = {"a b", "ab ab", "\xc4\xa0 a"};
        const char *m3[3];
        int k = 0;
        for (i = 0; i < 256; i++) { /* the byte-level characters, in byte order */
            int cp = (i >= 33 && i <= 126) || (i >= 161 && i <= 172) || (i >= 174) ? i : 256 + k++;
            if (cp < 0x80) names[i][0] = (char)cp, names[i][1] = 0;
            else names[i][0] = (char)(0xC0 | cp >> 6), names[i][1] = (char)(0x80 | (cp & 63)), names[i][2] = 0;
            toks[n] = names[i], types[n++] = 1;
        }
        toks[n] = "ab", types[n++] = 1;
        toks[n] = "abab", types[n++] = 1;
        toks[n] = "\xc4\xa0" "a", types[n++] = 1;
        toks[n] = "<|end|>", types[n++] = 3;
        toks[n] = "<think>", types[n++] = 4;
        for (i = 0; i < 3; i++) m3[i] = merges[i];
        if (variant == V_BPE_MERGE_UNKNOWN) m3[1] = "ab zz";
        if (variant == V_BPE_MERGE_NOSPACE) m3[2] = "abab";
        gw_kv_str(&w, "tokenizer.ggml.model", "gpt2");
        gw_kv_str(&w, "tokenizer.ggml.pre", variant == V_BPE_PRE_FOO ? "foo" : "gpt-2");
        gw_kv_arr_str(&w, "tokenizer.ggml.tokens", toks, (uint64_t)n);
        gw_kv_arr_i32(&w, "tokenizer.ggml.token_type", types, (uint64_t)n);
        if (variant == V_BPE_MERGES_I32) gw_kv_arr_i32(&w, "tokenizer.ggml.merges", types, 3);
        else if (variant != V_BPE_NO_MERGES) gw_kv_arr_str(&w, "tokenizer.ggml.merges", m3, 3);
        gw_kv_u32(&w, "tokenizer.ggml.eos_token_id", (uint32_t)n - 2);
    }
    gw_finish(&w);
    return w;
}

static void test_hostile(void) {
    static const struct { int variant; llm_status st; const char *names; } c[] = {
        {V_TOKENS_I32, LLM_EFORMAT, "tokenizer.ggml.tokens"},   {V_SCORES_SHORT, LLM_EFORMAT, "tokenizer.ggml.scores"},
        {V_SCORES_I32, LLM_EFORMAT, "tokenizer.ggml.scores"},   {V_TYPE_9, LLM_EFORMAT, "tokenizer.ggml.token_type[5]"},
        {V_DUP, LLM_EFORMAT, "same piece"},                     {V_BOS_RANGE, LLM_EFORMAT, "tokenizer.ggml.bos_token_id"},
        {V_MODEL_BERT, LLM_EUNSUPPORTED, "\"bert\""},          {V_NO_MODEL, LLM_EFORMAT, "tokenizer.ggml.model"},
        {V_BYTE_NAME, LLM_EFORMAT, "not <0xNN>"},              {V_TOKENS_LIE, LLM_EFORMAT, "tokenizer.ggml.tokens"},
        {V_BPE_MERGE_UNKNOWN, LLM_EFORMAT, "tokenizer.ggml.merges[1]"},        {V_BPE_PRE_FOO, LLM_EUNSUPPORTED, "\"foo\""},
        {V_BPE_NO_MERGES, LLM_EFORMAT, "tokenizer.ggml.merges"}, {V_BPE_MERGE_NOSPACE, LLM_EFORMAT, "tokenizer.ggml.merges[2]"},
        {V_BPE_MERGES_I32, LLM_EFORMAT, "tokenizer.ggml.merges"},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        gw w = make_vocab(c[i].variant);
        llm_gguf g;
        llm_vocab v;
        const char *why = "";
        llm_status gs = llm_gguf_create(&g, w.p, w.n, &why), st;
        if (gs != LLM_OK) { /* the GGUF reader refuses it first (the count past the buffer) */
            CHECK_MSG(c[i].variant == V_TOKENS_LIE && gs == LLM_EFORMAT, "variant %d: the GGUF itself: %s", c[i].variant, why);
            gw_free(&w);
            continue;
        }
        st = llm_vocab_create_gguf(&v, &g, &why);
        CHECK_MSG(st == c[i].st && why && strstr(why, c[i].names), "variant %d: %s \"%s\", want %s naming %s", c[i].variant,
                  llm_status_str(st), why ? why : "(null)", llm_status_str(c[i].st), c[i].names);
        if (st == LLM_OK) llm_vocab_free(&v);
        CHECK(v.text == NULL && v.n_tokens == 0); /* an error leaves it empty */
        llm_gguf_free(&g);
        gw_free(&w);
    }
}

/* The small vocabularies encode as their scores / ranks say; special tokens only when asked. */
static void test_small(void) {
    gw w = make_vocab(V_OK), wb = make_vocab(V_BPE_OK);
    llm_gguf g, gb;
    llm_vocab v, vb;
    const char *why = "";
    int32_t ids[64];
    size_t n = 0, dl = 0;
    char dec[128];
    CHECK_OK(llm_gguf_create(&g, w.p, w.n, &why));
    CHECK_OK(llm_vocab_create_gguf(&v, &g, &why));
    CHECK(v.kind == LLM_VOCAB_SPM && v.bos == 1 && v.eos == 2 && v.unk == 0 && v.add_space_prefix && v.n_special == 4);
    /* " ab" = ▁ab (-0.25) beats ▁a (-0.5) then b; "ba" is -3, but "ab" (-1.5) wins first */
    CHECK_OK(llm_vocab_encode(&v, "ab", 2, LLM_ENCODE_BOS | LLM_ENCODE_EOS, ids, 64, &n, NULL, 0));
    CHECK(n == 3 && ids[0] == 1 && ids[1] == 260 + 5 && ids[2] == 2);
    /* 'c' is no piece: its byte <0x63>; the space prefix comes back off in decoding */
    CHECK_OK(llm_vocab_encode(&v, "abc", 3, 0, ids, 64, &n, NULL, 0));
    CHECK(n == 2 && ids[0] == 265 && ids[1] == 4 + 'c');
    CHECK_OK(llm_vocab_decode(&v, ids, n, 0, dec, sizeof dec, &dl));
    CHECK(dl == 3 && strcmp(dec, "abc") == 0);
    /* control text: one id with LLM_ENCODE_SPECIAL, plain text without; user-defined always */
    CHECK_OK(llm_vocab_encode(&v, "<s>", 3, LLM_ENCODE_SPECIAL, ids, 64, &n, NULL, 0));
    CHECK(n == 1 && ids[0] == 1);
    CHECK_OK(llm_vocab_encode(&v, "<s>", 3, 0, ids, 64, &n, NULL, 0));
    CHECK(n == 4 && ids[0] == 260 && ids[1] == 4 + '<' && ids[2] == 4 + 's' && ids[3] == 4 + '>');
    CHECK_OK(llm_vocab_encode(&v, "a<|user|>a", 10, 0, ids, 64, &n, NULL, 0));
    CHECK(n == 3 && ids[0] == 264 && ids[1] == 3 && ids[2] == 264); /* a space prefix after a special token too */
    /* decoding control tokens: nothing, or their text */
    ids[0] = 1, ids[1] = 265, ids[2] = 2;
    CHECK_OK(llm_vocab_decode(&v, ids, 3, 0, dec, sizeof dec, &dl));
    CHECK(dl == 2 && strcmp(dec, "ab") == 0);
    CHECK_OK(llm_vocab_decode(&v, ids, 3, LLM_DECODE_SPECIAL | LLM_DECODE_KEEP_SPACE, dec, sizeof dec, &dl));
    CHECK(strcmp(dec, "<s> ab</s>") == 0);
    /* counting: cap 0 gives the count and LLM_ERANGE; a short scratch is refused */
    CHECK(llm_vocab_encode(&v, "abab", 4, 0, NULL, 0, &n, NULL, 0) == LLM_ERANGE && n == 2);
    CHECK(llm_vocab_encode(&v, "abab", 4, 0, ids, 64, &n, dec, 8) == LLM_EINVAL);
    ids[0] = ids[1] = 265; /* " ab ab" less the prefix: 5 bytes and a NUL */
    CHECK(llm_vocab_decode(&v, ids, 2, 0, dec, 5, &dl) == LLM_ERANGE && dl == 5);
    CHECK(llm_vocab_decode(&v, ids, 2, 0, dec, 6, &dl) == LLM_OK && dl == 5 && strcmp(dec, "ab ab") == 0);
    ids[0] = 5000;
    CHECK(llm_vocab_decode(&v, ids, 1, 0, dec, sizeof dec, &dl) == LLM_EINVAL);
    CHECK(llm_vocab_find(&v, "<|user|>", 8) == 3 && llm_vocab_find(&v, " ab", 3) == 265 && llm_vocab_find(&v, "zz", 2) == -1);
    llm_vocab_free(&v);
    llm_gguf_free(&g);

    CHECK_OK(llm_gguf_create(&gb, wb.p, wb.n, &why));
    CHECK_OK(llm_vocab_create_gguf(&vb, &gb, &why));
    CHECK(vb.kind == LLM_VOCAB_BPE && vb.n_merges == 3 && vb.pretok == LLM_PRETOK_GPT2 && vb.byte_id['a'] == 'a' && vb.byte_id[' '] == 'a' - 'a' + ' ');
    /* "ababab": a b -> ab (rank 0) everywhere, then ab ab (rank 1) leftmost first: abab ab */
    CHECK_OK(llm_vocab_encode(&vb, "ababab", 6, 0, ids, 64, &n, NULL, 0));
    CHECK(n == 2 && ids[0] == 257 && ids[1] == 256);
    CHECK_OK(llm_vocab_encode(&vb, "<think><|end|>", 14, 0, ids, 64, &n, NULL, 0));
    CHECK(n > 2 && ids[0] == 260); /* user-defined always; the control text stays text */
    CHECK_OK(llm_vocab_encode(&vb, "<think><|end|>", 14, LLM_ENCODE_SPECIAL, ids, 64, &n, NULL, 0));
    CHECK(n == 2 && ids[0] == 260 && ids[1] == 259);
    CHECK_OK(llm_vocab_decode(&vb, ids, n, 0, dec, sizeof dec, &dl));
    CHECK(strcmp(dec, "<think>") == 0);
    llm_vocab_free(&vb);
    llm_gguf_free(&gb);
    gw_free(&w), gw_free(&wb);
}

int main(void) {
    test_hostile();
    test_small();
    test_gguf_pairs();
    test_hf_pairs();
    return test_done();
}
