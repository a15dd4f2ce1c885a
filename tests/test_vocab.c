/* >>tokenizer: the vocabularies. Every line of every ../shared/vocab .gguf.inp / .out pair
   (llama.cpp's tokenizer test set, made with the reference Hugging Face tokenizers) encoded
   to exactly its ids; the Hugging Face tokenizer.json files give the GGUF's ids; decoding
   gives the text back where the tokenizer is lossless; the streaming decoder fed one id at a
   time equals the whole decode and never emits a partial UTF-8 sequence; special-token
   parsing on and off; hostile vocabularies refused with the field named. */
#include "llm.h"
#include "test.h"
#include "internals.h" /* llm__vocab_lookup */
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

/* SentencePiece word by word (spm_words: linear time) against the whole text as one
   sequence of merges: the same ids, memcmp, over the whole .inp file as one text (its
   lines, spaces, newlines and code indentation) and with LLM_ENCODE_BOS. */
static void spm_words_same(const llm_vocab *v, const char *name, const char *text, size_t n) {
    llm_vocab whole = *v;
    size_t cap = n + 8, na = 0, nb = 0, sb = llm_vocab_scratch_bytes(v, n);
    int32_t *a = (int32_t *)malloc(cap * sizeof(int32_t)), *b = (int32_t *)malloc(cap * sizeof(int32_t));
    void *scratch = malloc(sb);
    if (!a || !b || !scratch) abort();
    CHECK_MSG(v->spm_words, "%s: a piece has a space after another byte, so it is merged as one sequence (slow)", name);
    whole.spm_words = 0;
    CHECK_OK(llm_vocab_encode(v, text, n, LLM_ENCODE_BOS, a, cap, &na, scratch, sb));
    CHECK_OK(llm_vocab_encode(&whole, text, n, LLM_ENCODE_BOS, b, cap, &nb, scratch, sb));
    CHECK_MSG(na == nb && memcmp(a, b, na * sizeof(int32_t)) == 0, "%s: %zu ids word by word, %zu as one sequence, or they differ",
              name, na, nb);
    printf("%s: %zu bytes as one text: %zu ids, word by word and as one sequence alike\n", name, n, na);
    free(a), free(b), free(scratch);
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
                static const char code[] = "def f(x):\n    if x  >  1:\n        return   x\n\t\t  end   \n  a b  c   d    e     f";
                run_pair(&v, f[i].file, inp, in_n, out, f[i].lossless, &lines);
                if (v.kind == LLM_VOCAB_SPM) spm_words_same(&v, f[i].file, inp, in_n), spm_words_same(&v, f[i].file, code, strlen(code));
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
       V_BPE_MERGES_I32, V_BPE_EMPTY_MERGES, V_COUNT };
/* SentencePiece: <unk> <s> </s> <|user|> (user-defined), <0x00>..<0xFF>, then pieces over
   "ab " with scores (260 ▁, 261 a, 262 b, 263 ab, 264 ▁a, 265 ▁ab, 266 ba, 267 ▁▁). BPE (gpt-2 split): the 256 byte-level characters, "ab", "abab", "Ġa",
   <|end|> (control), <think> (user-defined); merges "a b", "ab ab", "Ġ a". */
static gw make_vocab(int variant) {
    static char names[300][8];
    static const char *spm_extra[] = {"\xe2\x96\x81", "a", "b", "ab", "\xe2\x96\x81" "a", "\xe2\x96\x81" "ab", "ba",
                                      "\xe2\x96\x81\xe2\x96\x81"};
    static const float spm_score[] = {-1, -2, -2, -1.5f, -0.5f, -0.25f, -3, -0.1f};
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
        for (i = 0; i < 8; i++) toks[n] = spm_extra[i], scores[n] = spm_score[i], types[n++] = 1;
        for (i = 0; i < n - 8; i++) scores[i] = 0;
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
        else if (variant != V_BPE_NO_MERGES) gw_kv_arr_str(&w, "tokenizer.ggml.merges", m3, variant == V_BPE_EMPTY_MERGES ? 0 : 3);
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
    /* a run of spaces starts the word after it: " a  b" = ▁a | ▁▁b, and ▁▁ (-0.1) is merged
       before ▁ b could be; word by word (spm_words: a cut before a space that follows a
       non-space only) as in one sequence */
    CHECK(v.spm_words);
    CHECK_OK(llm_vocab_encode(&v, "a  b", 4, 0, ids, 64, &n, NULL, 0));
    CHECK_MSG(n == 3 && ids[0] == 264 && ids[1] == 267 && ids[2] == 262, "\"a  b\": %zu ids, %d %d %d", n, (int)ids[0],
              n > 1 ? (int)ids[1] : -1, n > 2 ? (int)ids[2] : -1);
    spm_words_same(&v, "the small SentencePiece vocabulary", "a  b   ab ba  \n  ab", 19);
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
    { /* an empty merges array (fuzz_vocab_gguf: the encoder looked pairs up in no table): each
         byte its own piece */
        gw we = make_vocab(V_BPE_EMPTY_MERGES);
        llm_gguf ge;
        CHECK_OK(llm_gguf_create(&ge, we.p, we.n, &why));
        CHECK_OK(llm_vocab_create_gguf(&vb, &ge, &why));
        CHECK(vb.n_merges == 0);
        CHECK_OK(llm_vocab_encode(&vb, "ab ab", 5, 0, ids, 64, &n, NULL, 0));
        CHECK(n == 5 && ids[0] == 'a' && ids[1] == 'b' && ids[2] == vb.byte_id[' '] && ids[3] == 'a' && ids[4] == 'b');
        CHECK_OK(llm_vocab_decode(&vb, ids, n, 0, dec, sizeof dec, &dl));
        CHECK(strcmp(dec, "ab ab") == 0);
        llm_vocab_free(&vb);
        llm_gguf_free(&ge);
        gw_free(&we);
    }
    llm_gguf_free(&gb);
    gw_free(&w), gw_free(&wb);
}

/* Streaming, one byte per id: the small BPE vocabulary has a token per byte, so a text
   of 1- to 4-byte characters whose pairs rarely merge arrives in pieces cut inside
   characters. After every id, all that was emitted is valid UTF-8 ending on a character
   boundary; the whole equals the text. Then every prefix of the id sequence: emitted +
   held is exactly the decode of that prefix. */
static void test_stream_bytes(void) {
    gw w = make_vocab(V_BPE_OK);
    llm_gguf g;
    llm_vocab v;
    const char *why = "";
    char text[512], got[600], chunk[64];
    int32_t ids[600];
    size_t n = 0, tl = 0, gl = 0, l, i, bad = 0, prefixes = 0;
    uint32_t r = 12345;
    llm_vocab_stream s;
    while (tl < 400) { /* 1-, 2-, 3- and 4-byte characters at random */
        uint32_t k, cp;
        r = r * 1103515245u + 12345u;
        k = (r >> 16) % 4;
        cp = k == 0 ? 0x20 + (r >> 8) % 0x5f : k == 1 ? 0x80 + (r >> 4) % 0x780 : k == 2 ? 0x800 + (r >> 3) % 0xD000 : 0x10000 + (r >> 2) % 0xFFFFF;
        if (k == 0) text[tl++] = (char)cp;
        else if (k == 1) text[tl++] = (char)(0xC0 | cp >> 6), text[tl++] = (char)(0x80 | (cp & 63));
        else if (k == 2) text[tl++] = (char)(0xE0 | cp >> 12), text[tl++] = (char)(0x80 | ((cp >> 6) & 63)), text[tl++] = (char)(0x80 | (cp & 63));
        else text[tl++] = (char)(0xF0 | cp >> 18), text[tl++] = (char)(0x80 | ((cp >> 12) & 63)), text[tl++] = (char)(0x80 | ((cp >> 6) & 63)), text[tl++] = (char)(0x80 | (cp & 63));
    }
    CHECK(utf8_valid((const unsigned char *)text, tl));
    CHECK_OK(llm_gguf_create(&g, w.p, w.n, &why));
    CHECK_OK(llm_vocab_create_gguf(&v, &g, &why));
    CHECK_OK(llm_vocab_encode(&v, text, tl, 0, ids, 600, &n, NULL, 0));
    CHECK_MSG(n > tl / 2, "%lu ids for %lu bytes: the pieces should be mostly single bytes", (unsigned long)n, (unsigned long)tl);
    CHECK_OK(llm_vocab_stream_init(&s, &v, 0));
    for (i = 0; i < n; i++) {
        char whole[600];
        size_t wl = 0;
        if (llm_vocab_stream_push(&s, ids[i], chunk, sizeof chunk, &l) != LLM_OK) bad++;
        memcpy(got + gl, chunk, l), gl += l;
        if (!utf8_valid((const unsigned char *)got, gl)) bad++;
        /* the prefix ids[0..i]: what came out plus what is held is its whole decode */
        if (llm_vocab_decode(&v, ids, i + 1, 0, whole, sizeof whole, &wl) != LLM_OK || wl != gl + (size_t)s.n_held ||
            memcmp(whole, got, gl) != 0 || memcmp(whole + gl, s.held, (size_t)s.n_held) != 0)
            bad++;
        prefixes++;
    }
    CHECK_OK(llm_vocab_stream_flush(&s, chunk, sizeof chunk, &l));
    CHECK(l == 0); /* valid UTF-8 leaves nothing held */
    CHECK_MSG(bad == 0 && prefixes == n, "%lu of %lu stream steps emitted a partial character or lost bytes", (unsigned long)bad, (unsigned long)n);
    CHECK(gl == tl && memcmp(got, text, tl) == 0);
    /* a character cut and never completed: held, then emitted as it is by the flush */
    CHECK_OK(llm_vocab_stream_init(&s, &v, 0));
    CHECK_OK(llm_vocab_stream_push(&s, v.byte_id[0xE6], chunk, sizeof chunk, &l));
    CHECK(l == 0 && s.n_held == 1);
    CHECK_OK(llm_vocab_stream_push(&s, v.byte_id['a'], chunk, sizeof chunk, &l)); /* can no longer complete */
    CHECK(l == 2 && (unsigned char)chunk[0] == 0xE6 && chunk[1] == 'a');
    CHECK(llm_vocab_stream_push(&s, v.byte_id['a'], chunk, 0, &l) == LLM_ERANGE && l == 0);
    llm_vocab_free(&v);
    llm_gguf_free(&g);
    gw_free(&w);
}

/* Special-token text in the real vocabularies: one id only with LLM_ENCODE_SPECIAL
   (control), always (user-defined: Qwen's <think>); BOS / EOS as the file says. */
static void test_special_real(void) {
    char path[512];
    size_t gn;
    char *gbuf;
    llm_gguf g;
    llm_vocab v;
    const char *why = "";
    int32_t ids[64];
    size_t n = 0, k;
    int has;
    snprintf(path, sizeof path, "%s/llama3.gguf", vocab_dir());
    if (!(gbuf = read_all(path, &gn))) {
        TEST_SKIP_SHARED(5, "%s absent: special tokens of a real vocabulary not checked", path);
    } else {
        CHECK_OK(llm_gguf_create(&g, gbuf, gn, &why));
        CHECK_OK(llm_vocab_create_gguf(&v, &g, &why));
        CHECK(v.bos == 128000 && v.eos == 128001 && v.add_bos && v.pretok == LLM_PRETOK_LLAMA3 && v.ignore_merges);
        CHECK_OK(llm_vocab_encode(&v, "<|start_header_id|>user<|end_header_id|>", 40, LLM_ENCODE_BOS | LLM_ENCODE_SPECIAL, ids, 64, &n, NULL, 0));
        CHECK(n == 4 && ids[0] == 128000 && ids[1] == 128006 && ids[3] == 128007);
        CHECK_OK(llm_vocab_encode(&v, "<|start_header_id|>user<|end_header_id|>", 40, 0, ids, 64, &n, NULL, 0));
        for (k = 0, has = 0; k < n; k++) has |= ids[k] >= 128000;
        CHECK_MSG(n > 4 && !has, "user text made a special id (%lu ids)", (unsigned long)n);
        llm_vocab_free(&v);
        llm_gguf_free(&g);
        free(gbuf);
    }
    snprintf(path, sizeof path, "%s/qwen2.gguf", vocab_dir());
    if (!(gbuf = read_all(path, &gn))) {
        TEST_SKIP_SHARED(6, "%s absent: Qwen's special tokens and NFC not checked", path);
    } else {
        CHECK_OK(llm_gguf_create(&g, gbuf, gn, &why));
        CHECK_OK(llm_vocab_create_gguf(&v, &g, &why));
        CHECK(v.bos == -1 && v.eos == 151645 && !v.add_bos);
        CHECK_OK(llm_vocab_encode(&v, "<think>\n<|im_end|>", 18, 0, ids, 64, &n, NULL, 0));
        CHECK(n > 3 && ids[0] == 151667 && ids[n - 1] != 151645); /* <think> user-defined, <|im_end|> control */
        { /* Qwen's normalizer: "cafe" + U+0301 (combining acute) is NFC's "caf\u00e9", the same ids */
            int32_t ids2[64];
            size_t n2 = 0;
            CHECK_OK(llm_vocab_encode(&v, "caf\xc3\xa9 au lait", 13, 0, ids, 64, &n, NULL, 0));
            CHECK_OK(llm_vocab_encode(&v, "cafe\xcc\x81 au lait", 14, 0, ids2, 64, &n2, NULL, 0));
            CHECK_MSG(n == n2 && memcmp(ids, ids2, n * sizeof ids[0]) == 0, "NFC: %lu ids vs %lu", (unsigned long)n, (unsigned long)n2);
        }
        llm_vocab_free(&v);
        llm_gguf_free(&g);
        free(gbuf);
    }
}

/* tokenizer.json refusals, each naming what is wrong. */
static void test_hostile_json(void) {
    static const struct { const char *js; llm_status st; const char *names; } c[] = {
        {"[1, 2]", LLM_EFORMAT, "not a JSON object"},
        {"{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}", LLM_EUNSUPPORTED, "model.type"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": -1}, \"merges\": []}}", LLM_EFORMAT, "model.vocab id"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 0}, \"merges\": []}, \"pre_tokenizer\": {\"type\": \"ByteLevel\"}}", LLM_EFORMAT, "id 0 twice"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"a c\"]}, \"pre_tokenizer\": {\"type\": \"ByteLevel\"}}", LLM_EFORMAT, "merges[0]"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"ab\"]}, \"pre_tokenizer\": {\"type\": \"ByteLevel\"}}", LLM_EFORMAT, "merges[0]"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}, \"pre_tokenizer\": {\"type\": \"Whitespace\"}}", LLM_EUNSUPPORTED, "pre_tokenizer"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": {}}}", LLM_EFORMAT, "model.merges"},
        {"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}, \"added_tokens\": [{\"id\": 99999999, \"content\": \"x\"}]}", LLM_EFORMAT, "added_tokens"},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        llm_vocab v;
        const char *why = "";
        llm_status st = llm_vocab_create_json(&v, c[i].js, strlen(c[i].js), NULL, 0, &why);
        CHECK_MSG(st == c[i].st && why && strstr(why, c[i].names), "json %lu: %s \"%s\", want %s naming %s", (unsigned long)i,
                  llm_status_str(st), why ? why : "(null)", llm_status_str(c[i].st), c[i].names);
        if (st == LLM_OK) llm_vocab_free(&v);
    }
}

/* A byte-level BPE tokenizer.json written here, merges in both spellings ("a b" and
   ["a", "b"]), with a tokenizer_config.json that names bos_token but not add_bos_token (a
   model with a BOS wants it, as Llama 3's file says nothing) or sets it false */
static void test_small_json(void) {
    static const char js[] =
        "{\"added_tokens\": [{\"id\": 5, \"content\": \"<s>\", \"special\": true}], \"pre_tokenizer\": {\"type\": \"ByteLevel\"},"
        " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"c\": 2, \"ab\": 3, \"abc\": 4, \"<s>\": 5},"
        " \"merges\": [\"a b\", [\"ab\", \"c\"]]}}";
    static const char cfg_default[] = "{\"bos_token\": \"<s>\"}", cfg_off[] = "{\"bos_token\": \"<s>\", \"add_bos_token\": false}";
    llm_vocab v;
    const char *why = "";
    int32_t ids[16];
    size_t n = 0;
    if (CHECK_OK(llm_vocab_create_json(&v, js, sizeof js - 1, cfg_default, sizeof cfg_default - 1, &why))) {
        CHECK(v.n_merges == 2 && v.bos == 5 && v.add_bos == 1);
        CHECK_OK(llm_vocab_encode(&v, "ab", 2, 0, ids, 16, &n, NULL, 0));
        CHECK(n == 1 && ids[0] == 3);
        CHECK_OK(llm_vocab_encode(&v, "abc", 3, LLM_ENCODE_BOS, ids, 16, &n, NULL, 0));
        CHECK(n == 2 && ids[0] == 5 && ids[1] == 4);
        llm_vocab_free(&v);
    }
    if (CHECK_OK(llm_vocab_create_json(&v, js, sizeof js - 1, cfg_off, sizeof cfg_off - 1, &why))) {
        CHECK(v.bos == 5 && v.add_bos == 0);
        llm_vocab_free(&v);
    }
}

/* Llama 2's tokenizer as Hugging Face ships it (BPE over characters with byte fallback,
   spaces as U+2581 by the normalizer, merges in place of scores), written here from
   ggml-vocab-llama-spm.gguf the way transformers' SentencePieceExtractor converts a
   SentencePiece model: every split (l, r) of a piece into two pieces is a merge, ordered
   by the piece's score (higher first; within a piece by the ids of l, then r). Its ids
   must be the .out file's. */
typedef struct hf_merge { int32_t l, r, piece; float score; } hf_merge;
static int hf_merge_cmp(const void *a, const void *b) {
    const hf_merge *x = (const hf_merge *)a, *y = (const hf_merge *)b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->piece != y->piece) return x->piece < y->piece ? -1 : 1;
    if (x->l != y->l) return x->l < y->l ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}
static void json_put_str(test_buf *b, const char *s, size_t n) {
    size_t i;
    test_buf_put(b, "\"", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') esc[0] = '\\', esc[1] = (char)c, test_buf_put(b, esc, 2);
        else if (c < 0x20) snprintf(esc, sizeof esc, "\\u%04x", c), test_buf_put(b, esc, 6);
        else test_buf_put(b, s + i, 1);
    }
    test_buf_put(b, "\"", 1);
}
static void test_hf_spm(void) {
    char path[512], num[32];
    size_t gn, in_n, out_n, i, nm = 0;
    char *gbuf, *inp, *out;
    llm_gguf g;
    llm_vocab v, hv;
    const char *why = "";
    int lines = 0;
    snprintf(path, sizeof path, "%s/ggml-vocab-llama-spm.gguf", vocab_dir());
    gbuf = read_all(path, &gn);
    snprintf(path, sizeof path, "%s/ggml-vocab-llama-spm.gguf.inp", vocab_dir());
    inp = read_all(path, &in_n);
    snprintf(path, sizeof path, "%s/ggml-vocab-llama-spm.gguf.out", vocab_dir());
    out = read_all(path, &out_n);
    if (!gbuf || !inp || !out) {
        TEST_SKIP_SHARED(1, "%s absent: the Hugging Face form of SentencePiece is not checked", path);
    } else if (CHECK_OK(llm_gguf_create(&g, gbuf, gn, &why)) && CHECK_OK(llm_vocab_create_gguf(&v, &g, &why))) {
        const llm_gguf_kv *kt = &g.kv[llm_gguf_find_key(&g, "tokenizer.ggml.tokens")];
        llm_gguf_str *raw = (llm_gguf_str *)malloc((size_t)v.n_tokens * sizeof *raw);
        hf_merge *m = (hf_merge *)malloc((size_t)v.n_tokens * 16 * sizeof *m);
        uint64_t cur = 0;
        test_buf b;
        int32_t id;
        memset(&b, 0, sizeof b);
        for (id = 0; id < v.n_tokens; id++) llm_gguf_arr_str(kt, &cur, &raw[id]);
        for (id = 0; id < v.n_tokens; id++) { /* the splits of each normal piece (unescaped bytes) */
            const char *p = v.text + v.off[id];
            size_t len = v.len[id], k;
            if (v.type[id] != LLM_TOKEN_NORMAL) continue;
            for (k = 1; k < len; k++) {
                int32_t l, r;
                if (((unsigned char)p[k] & 0xC0) == 0x80) continue; /* inside a character */
                l = llm__vocab_lookup(&v, p, k), r = llm__vocab_lookup(&v, p + k, len - k);
                if (l >= 0 && r >= 0 && nm < (size_t)v.n_tokens * 16) m[nm].l = l, m[nm].r = r, m[nm].piece = id, m[nm].score = v.score[id], nm++;
            }
        }
        qsort(m, nm, sizeof *m, hf_merge_cmp);
        test_buf_put(&b, "{\"added_tokens\": [", 18);
        for (id = 0; id < 3; id++) {
            test_buf_put(&b, id ? ", {\"id\": " : "{\"id\": ", id ? 9 : 7);
            snprintf(num, sizeof num, "%d, \"content\": ", (int)id);
            test_buf_put(&b, num, strlen(num));
            json_put_str(&b, raw[id].s, raw[id].n);
            test_buf_put(&b, ", \"special\": true}", 18);
        }
        {
            static const char mid[] = "], \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Prepend\", \"prepend\": "
                                      "\"\xe2\x96\x81\"}, {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\xe2\x96\x81\"}]},"
                                      " \"pre_tokenizer\": null, \"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"fuse_unk\": true,"
                                      " \"byte_fallback\": true, \"vocab\": {";
            test_buf_put(&b, mid, sizeof mid - 1);
        }
        for (id = 0; id < v.n_tokens; id++) {
            if (id) test_buf_put(&b, ", ", 2);
            json_put_str(&b, raw[id].s, raw[id].n);
            snprintf(num, sizeof num, ": %d", (int)id);
            test_buf_put(&b, num, strlen(num));
        }
        test_buf_put(&b, "}, \"merges\": [", 14);
        for (i = 0; i < nm; i++) {
            char pair[512];
            size_t pl = raw[m[i].l].n, pr = raw[m[i].r].n;
            if (pl + pr + 1 > sizeof pair) continue;
            memcpy(pair, raw[m[i].l].s, pl), pair[pl] = ' ', memcpy(pair + pl + 1, raw[m[i].r].s, pr);
            if (i) test_buf_put(&b, ", ", 2);
            json_put_str(&b, pair, pl + pr + 1);
        }
        test_buf_put(&b, "]}}", 3);
        if (CHECK_OK(llm_vocab_create_json(&hv, (const char *)b.p, b.n, NULL, 0, &why))) {
            CHECK(hv.kind == LLM_VOCAB_SPM && hv.add_space_prefix && hv.unk == 0 && hv.n_merges > 60000 && hv.byte_id[0x0A] == 13);
            run_pair(&hv, "ggml-vocab-llama-spm as a Hugging Face tokenizer.json", inp, in_n, out, 1, &lines);
            llm_vocab_free(&hv);
        } else {
            fprintf(stderr, "    %s\n", why);
        }
        free(raw), free(m), free(b.p);
        llm_vocab_free(&v);
        llm_gguf_free(&g);
    }
    free(gbuf), free(inp), free(out);
}

int main(void) {
    test_hf_spm();
    test_stream_bytes();
    test_special_real();
    test_hostile_json();
    test_small_json();
    test_hostile();
    test_small();
    test_gguf_pairs();
    test_hf_pairs();
    return test_done();
}
