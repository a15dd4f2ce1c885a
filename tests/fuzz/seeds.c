/* Writes the seed corpus of every fuzz target into <dir>/<target>/: small valid inputs
   the fuzzer mutates from (checkpoints of every format, tokenizers, configs from the
   presets, llm-plan command lines). Run by tests/fuzz/run.sh before fuzzing. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "ckpt_writer.h"
#include "gguf_writer.h"
#include "st_writer.h"
#include "fuzz_session.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int put(const char *dir, const char *target, const char *name, const void *p, size_t n) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, target);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
    f = fopen(path, "wb");
    if (!f) return 1;
    if (n && fwrite(p, 1, n, f) != n) {
        fclose(f);
        return 1;
    }
    return fclose(f) != 0;
}

static int put_checkpoint(const char *dir, const char *name, const ckw_dims *d) {
    size_t n = ckw_checkpoint(NULL, 0, d);
    unsigned char *p = (unsigned char *)malloc(n);
    int bad;
    if (!p) return 1;
    ckw_checkpoint(p, n, d);
    bad = put(dir, "fuzz_checkpoint", name, p, n);
    free(p);
    return bad;
}

/* fuzz_tokenizer_load's input: uint16 vocab (little-endian), then tokenizer.bin */
static int put_tokenizer(const char *dir, const char *target, const char *name, int vocab) {
    size_t n = ckw_tokenizer(NULL, 0, vocab);
    unsigned char *p = (unsigned char *)malloc(n + 2);
    int bad;
    if (!p) return 1;
    p[0] = (unsigned char)(vocab & 0xff);
    p[1] = (unsigned char)(vocab >> 8);
    ckw_tokenizer(p + 2, n, vocab);
    bad = put(dir, target, name, p, n + 2);
    free(p);
    return bad;
}

/* fuzz_gguf: GGUF files from tests/gguf_writer.h. A tiny llama model (d 8, 2 heads, 1 KV
   head, ff 16, vocab 8) in F32, F16 and BF16, tied and not; one entry of every value type
   with two tensors; general.alignment 64; version 2; no tensors. */
static int put_gguf(const char *dir, const char *name, gw *w) {
    int bad;
    gw_finish(w);
    bad = put(dir, "fuzz_gguf", name, w->p, w->n);
    gw_free(w);
    return bad;
}
static int gguf_seeds(const char *dir) {
    static float x[1024];
    static const int32_t ints[3] = {1, -2, 3};
    static const float floats[2] = {0.5f, -1.0f};
    static const char *const strs[3] = {"<unk>", "<s>", "</s>"};
    static const uint32_t types[3] = {GW_F32, GW_F16, GW_BF16};
    gw w;
    gw_names names;
    gw_llama m;
    uint64_t ne[2] = {8, 2};
    int bad = 0, i;
    char name[32];
    unsigned seed = 7;
    for (i = 0; i < 1024; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    memset(&m, 0, sizeof m);
    m.d = 8, m.ff = 16, m.n_layers = 1, m.n_heads = 2, m.n_kv_heads = 1, m.vocab = 8, m.ctx = 8;
    m.eps = 1e-5f, m.theta = 10000.0f, m.rope_dim = 4;
    m.emb = m.attn_norm = m.ffn_norm = m.wq = m.wk = m.wv = m.wo = m.w1 = m.w2 = m.w3 = m.out_norm = x;
    for (i = 0; i < 6; i++) {
        m.type = types[i % 3];
        m.out = i < 3 ? NULL : x;
        m.n_layers = 1 + i / 3;
        gw_init(&w);
        gw_llama_model(&w, &m, &names);
        gw_kv_arr_str(&w, "tokenizer.ggml.tokens", strs, 3);
        snprintf(name, sizeof name, "llama_%d", i);
        bad |= put_gguf(dir, name, &w);
    }
    gw_init(&w);
    gw_kv_u8(&w, "u8", 200), gw_kv_i8(&w, "i8", -3), gw_kv_u16(&w, "u16", 60000), gw_kv_i16(&w, "i16", -7);
    gw_kv_u32(&w, "u32", 4000000000u), gw_kv_i32(&w, "i32", -9), gw_kv_f32(&w, "f32", 0.25f), gw_kv_bool(&w, "b", 1);
    gw_kv_str(&w, "s", "text"), gw_kv_u64(&w, "u64", 0x8000000000000001ull), gw_kv_i64(&w, "i64", -1);
    gw_kv_f64(&w, "f64", 0.1), gw_kv_arr_i32(&w, "ai", ints, 3), gw_kv_arr_f32(&w, "af", floats, 2);
    gw_kv_arr_str(&w, "as", strs, 3);
    gw_tensor_f(&w, "v", 1, ne, GW_F32, x);
    gw_tensor_f(&w, "m", 2, ne, GW_F16, x);
    bad |= put_gguf(dir, "every_type", &w);
    gw_init(&w);
    gw_alignment(&w, 64);
    gw_tensor_f(&w, "a", 1, ne, GW_F32, x);
    gw_tensor_f(&w, "b", 2, ne, GW_BF16, x);
    bad |= put_gguf(dir, "align64", &w);
    gw_init(&w);
    w.version = 2;
    gw_kv_str(&w, "general.architecture", "llama");
    gw_tensor_f(&w, "a", 2, ne, GW_F32, x);
    bad |= put_gguf(dir, "v2", &w);
    gw_init(&w);
    gw_kv_str(&w, "general.architecture", "llama");
    bad |= put_gguf(dir, "no_tensors", &w);
    {   /* a llama model (d 32, ff 32) whose matrices are Q8_0 blocks made of x's bytes:
           the fuzzer reaches the block formats' dot products and embedding rows */
        gw_llama q = m;
        q.d = 32, q.ff = 32, q.n_layers = 1, q.n_heads = 2, q.n_kv_heads = 1, q.vocab = 8, q.rope_dim = 16;
        q.type = GW_F32, q.out = NULL;
        gw_init(&w);
        gw_llama_model(&w, &q, &names);
        for (i = 0; i < w.n_t; i++)
            if (w.t[i].n_dims == 2) w.t[i].type = GW_Q8_0, w.t[i].data = x, w.t[i].data_n = sizeof x;
        bad |= put_gguf(dir, "llama_q8_0", &w);
    }
    {   /* one tensor of each block type, random bytes (x's) as its blocks */
        static const uint32_t qt[] = {GW_Q4_0, GW_Q4_1, GW_Q5_0, GW_Q5_1, GW_Q8_0, GW_Q2_K,
                                      GW_Q3_K, GW_Q4_K, GW_Q5_K, GW_Q6_K, GW_IQ2_XXS};
        static const char *const qn[] = {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k",
                                         "q3_k", "q4_k", "q5_k", "q6_k", "iq2_xxs"};
        gw_init(&w);
        for (i = 0; i < (int)(sizeof qt / sizeof qt[0]); i++) {
            uint64_t qne[2] = {256, 1};
            gw_tensor_add(&w, qn[i], 2, qne, qt[i], x, sizeof x);
        }
        bad |= put_gguf(dir, "block_types", &w);
    }
    return bad;
}

/* fuzz_vocab_gguf / fuzz_vocab_json: uint8 flags, uint16 text length, the text, then
   (json: uint16 config length, the config) the vocabulary. A SentencePiece GGUF (<unk> <s>
   </s>, a user-defined piece, the byte pieces, pieces over "ab "), a byte-level BPE GGUF
   (the 256 byte characters, merges, a control and a user-defined piece), and
   tokenizer.json files of the shape Llama 3 and Qwen ship. */
static int put_vocab(const char *dir, const char *target, const char *name, int flags, const char *text,
                     const char *cfg, const void *p, size_t n) {
    size_t tl = strlen(text), cl = cfg ? strlen(cfg) : 0, k = 0;
    unsigned char *b = (unsigned char *)malloc(n + tl + cl + 8);
    int bad;
    if (!b) return 1;
    b[k++] = (unsigned char)flags, b[k++] = (unsigned char)tl, b[k++] = (unsigned char)(tl >> 8);
    memcpy(b + k, text, tl), k += tl;
    if (cfg) b[k++] = (unsigned char)cl, b[k++] = (unsigned char)(cl >> 8), memcpy(b + k, cfg, cl), k += cl;
    memcpy(b + k, p, n), k += n;
    bad = put(dir, target, name, b, k);
    free(b);
    return bad;
}
static int vocab_seeds(const char *dir) {
    static char names[256][8];
    static const char *const spm[] = {"<unk>", "<s>", "</s>", "<|user|>", "\xe2\x96\x81", "a", "b", "ab", "\xe2\x96\x81" "a", "\xe2\x96\x81" "ab"};
    static const char *const merges[] = {"a b", "ab ab", "\xc4\xa0 a"};
    static const char *const json[] = {
        "{\"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"\xc4\xa0\": 3, \"\xc4\xa0" "a\": 4},"
        " \"merges\": [\"a b\", \"\xc4\xa0 a\"]}, \"added_tokens\": [{\"id\": 5, \"content\": \"<|begin_of_text|>\", \"special\": true},"
        " {\"id\": 6, \"content\": \"<think>\", \"special\": false}], \"normalizer\": null,"
        " \"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true}}",
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [[\"a\", \"b\"]]},"
        " \"normalizer\": {\"type\": \"NFC\"}, \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\","
        " \"pattern\": {\"Regex\": \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}},"
        " {\"type\": \"ByteLevel\"}]}, \"added_tokens\": [{\"id\": 3, \"content\": \"<|im_end|>\", \"special\": true}]}",
    };
    const char *toks[300];
    float scores[300];
    int32_t types[300];
    int n = 0, i, k = 0, bad = 0;
    gw w;
    gw_init(&w);
    for (i = 0; i < 4; i++) toks[n] = spm[i], scores[n] = 0, types[n++] = i == 0 ? 2 : i < 3 ? 3 : 4;
    for (i = 0; i < 256; i++) snprintf(names[i], sizeof names[i], "<0x%02X>", i), toks[n] = names[i], scores[n] = 0, types[n++] = 6;
    for (i = 4; i < 10; i++) toks[n] = spm[i], scores[n] = -(float)(10 - i), types[n++] = 1;
    gw_kv_str(&w, "tokenizer.ggml.model", "llama");
    gw_kv_arr_str(&w, "tokenizer.ggml.tokens", toks, (uint64_t)n);
    gw_kv_arr_f32(&w, "tokenizer.ggml.scores", scores, (uint64_t)n);
    gw_kv_arr_i32(&w, "tokenizer.ggml.token_type", types, (uint64_t)n);
    gw_kv_u32(&w, "tokenizer.ggml.bos_token_id", 1);
    gw_kv_u32(&w, "tokenizer.ggml.eos_token_id", 2);
    gw_finish(&w);
    bad |= put_vocab(dir, "fuzz_vocab_gguf", "spm", 7, "ab ba <s>\xc3\xa9<|user|>", NULL, w.p, w.n);
    gw_free(&w);
    gw_init(&w);
    n = 0;
    for (i = 0; i < 256; i++) {
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
    gw_kv_str(&w, "tokenizer.ggml.model", "gpt2");
    gw_kv_str(&w, "tokenizer.ggml.pre", "gpt-2");
    gw_kv_arr_str(&w, "tokenizer.ggml.tokens", toks, (uint64_t)n);
    gw_kv_arr_i32(&w, "tokenizer.ggml.token_type", types, (uint64_t)n);
    gw_kv_arr_str(&w, "tokenizer.ggml.merges", merges, 3);
    gw_finish(&w);
    bad |= put_vocab(dir, "fuzz_vocab_gguf", "bpe", 4, "ababab a <think><|end|> 12 \xf0\x9f\x98\x80", NULL, w.p, w.n);
    gw_free(&w);
    for (i = 0; i < 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "json%d", i);
        bad |= put_vocab(dir, "fuzz_vocab_json", name, 4, "ab a<|im_end|><think> b", "{\"bos_token\": \"<|begin_of_text|>\"}",
                         json[i], strlen(json[i]));
    }
    return bad;
}

/* fuzz_json: config.json texts from st_writer.h, a safetensors header, a tokenizer.json
   fragment, and the corners of the grammar (escapes, numbers, nesting) */
static int put_json_seeds(const char *dir) {
    static const char *const texts[] = {
        "{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\", \"d\": {}}",
        "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\ude00\", \"\xc3\xa9\xf0\x9f\x98\x80\"]",
        "[0, -0, 1.5, -1e-5, 1E+22, 123456789012345678901234, 2.2250738585072014e-308, 9223372036854775807, -9223372036854775808]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{\"k\": [true, false, null]}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"__metadata__\":{\"format\":\"pt\"},\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[8,4],\"data_offsets\":[0,64]}}",
        ("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"!\": 0, \"\\\"\": 1, \"\xc4\xa0the\": 2}, \"merges\": [\"\xc4\xa0 t\", [\"h\", \"e\"]]},"
         " \"added_tokens\": [{\"id\": 3, \"content\": \"<|begin_of_text|>\", \"special\": true}]}"), /* (one text in two lines) */
        "\"\\ud800\\udc00\"", "  null  ", "{\"a\\u0062\": 1, \"ab\": 2}",
    };
    llm_config c = llm_config_default();
    char cfg[4096];
    int i, bad = 0;
    for (i = 0; i < (int)(sizeof texts / sizeof texts[0]); i++) {
        char name[32];
        snprintf(name, sizeof name, "json%d", i);
        bad |= put(dir, "fuzz_json", name, texts[i], strlen(texts[i]));
    }
    c.d_model = 8, c.n_layers = 1, c.n_heads = 2, c.n_kv_heads = 1, c.d_ff = 16, c.vocab = 8, c.max_seq_len = 16;
    c.rope_scale = 8.0f, c.rope_low_freq_factor = 1.0f, c.rope_high_freq_factor = 4.0f, c.rope_orig_ctx = 8;
    stw_config_json(cfg, sizeof cfg, &c, "llama", NULL);
    bad |= put(dir, "fuzz_json", "config_llama3", cfg, strlen(cfg));
    return bad;
}

/* fuzz_safetensors: uint16 config.json length, config.json, model.safetensors; tiny
   llama (F32, tied), qwen2 (BF16, biases), mistral (F16, sliding window), Llama 3
   rope_scaling (BF16 matrices, F32 norms) */
static int put_safetensors_seeds(const char *dir) {
    static stw_model m;
    static stw_tensor t[STW_MAX_TENSORS];
    static const struct {
        const char *name, *type, *dtype, *vdtype;
        int tied, bias, window, scaled;
    } v[] = {{"llama_f32", "llama", "F32", "F32", 1, 0, 0, 0},
             {"qwen2_bf16", "qwen2", "BF16", "BF16", 1, 1, 0, 0},
             {"mistral_f16", "mistral", "F16", "F16", 0, 0, 3, 0},
             {"llama3_bf16", "llama", "BF16", "F32", 0, 0, 0, 1}};
    int i, bad = 0;
    for (i = 0; i < (int)(sizeof v / sizeof v[0]); i++) {
        llm_config c = llm_config_default();
        char cfg[4096];
        int n, cl;
        size_t len;
        unsigned char *p;
        c.d_model = 8, c.n_layers = 1, c.n_heads = 2, c.n_kv_heads = 1, c.d_ff = 16, c.vocab = 8, c.max_seq_len = 16;
        c.rope_layout = LLM_ROPE_HALVES, c.tied_embeddings = v[i].tied, c.sliding_window = v[i].window;
        c.bias = v[i].bias ? LLM_BIAS_QKV : LLM_BIAS_NONE;
        if (v[i].scaled) c.rope_scale = 8.0f, c.rope_low_freq_factor = 1.0f, c.rope_high_freq_factor = 4.0f, c.rope_orig_ctx = 8;
        if (stw_model_random(&m, &c, 1u + (unsigned)i)) return 1;
        cl = stw_config_json(cfg, sizeof cfg, &c, v[i].type, NULL);
        n = stw_model_tensors(&m, v[i].dtype, v[i].vdtype, t);
        len = stw_safetensors(NULL, 0, t, n, "{\"format\":\"pt\"}", 0);
        p = (unsigned char *)malloc(2 + (size_t)cl + len);
        if (!p) return 1;
        p[0] = (unsigned char)(cl & 0xff), p[1] = (unsigned char)(cl >> 8);
        memcpy(p + 2, cfg, (size_t)cl);
        stw_safetensors(p + 2 + cl, len, t, n, "{\"format\":\"pt\"}", 0);
        bad |= put(dir, "fuzz_safetensors", v[i].name, p, 2 + (size_t)cl + len);
        free(p);
        stw_model_free(&m);
    }
    return bad;
}

/* fuzz_hf_index: uint16 index length, model.safetensors.index.json, one shard; a tiny
   llama's tensors split 1, 2 and 3 ways (the shard is the first: with more than one,
   the index names tensors it does not hold) */
static int put_index_seeds(const char *dir) {
    static stw_model m;
    static stw_tensor t[STW_MAX_TENSORS];
    static char idx[1 << 14];
    llm_config c = llm_config_default();
    int n, split, bad = 0;
    c.d_model = 8, c.n_layers = 1, c.n_heads = 2, c.n_kv_heads = 1, c.d_ff = 16, c.vocab = 8, c.max_seq_len = 16;
    c.rope_layout = LLM_ROPE_HALVES;
    if (stw_model_random(&m, &c, 7u)) return 1;
    n = stw_model_tensors(&m, "BF16", "F32", t);
    for (split = 1; split <= 3; split++) {
        int il = stw_index_json(idx, sizeof idx, t, n, split);
        size_t len = stw_shard(NULL, 0, t, n, 0, split);
        unsigned char *p = (unsigned char *)malloc(2 + (size_t)il + len);
        char name[32];
        if (!p || il >= (int)sizeof idx) return 1;
        p[0] = (unsigned char)(il & 0xff), p[1] = (unsigned char)(il >> 8);
        memcpy(p + 2, idx, (size_t)il);
        stw_shard(p + 2 + il, len, t, n, 0, split);
        snprintf(name, sizeof name, "llama_%d_shards", split);
        bad |= put(dir, "fuzz_hf_index", name, p, 2 + (size_t)il + len);
        free(p);
    }
    stw_model_free(&m);
    return bad;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "build/fuzz/corpus";
    int bad = 0, i;
    /* dims: version, dim, hidden, layers, heads, kv heads, vocab, seq, shared, group */
    static const ckw_dims ck[] = {
        {0, 8, 16, 1, 2, 2, 8, 4, 1, 0},   {0, 8, 16, 2, 4, 2, 8, 4, 0, 0},
        {1, 8, 16, 1, 2, 1, 8, 4, 1, 0},   {1, 8, 12, 2, 2, 2, 6, 3, 0, 0},
        {2, 8, 16, 1, 2, 2, 8, 4, 1, 8},   {2, 16, 32, 1, 4, 2, 8, 4, 0, 16},
    };
    static const char *const dtypes[] = {"f32", "f16", "bf16", "int8", "int4", "q8_32", "q4_32", ""};
    mkdir(dir, 0777);
    for (i = 0; i < (int)(sizeof ck / sizeof ck[0]); i++) {
        char name[32];
        snprintf(name, sizeof name, "v%d_%d", ck[i].version, i);
        bad |= put_checkpoint(dir, name, &ck[i]);
    }
    bad |= put_tokenizer(dir, "fuzz_tokenizer_load", "tok259", 259);
    bad |= put_tokenizer(dir, "fuzz_tokenizer_load", "tok380", 380);
    bad |= put_tokenizer(dir, "fuzz_tokenizer_load", "tok3", 3);
    for (i = 0; i < (int)(sizeof dtypes / sizeof dtypes[0]); i++) {
        char name[32];
        snprintf(name, sizeof name, "dtype%d", i);
        bad |= put(dir, "fuzz_basics", name, dtypes[i], strlen(dtypes[i]));
    }
    {
        static const char *const texts[] = {"Once upon a time", "the cat and the dog", "\xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80",
                                            "", " ", "\xff\xfe\x80", "<0x41> <s>"};
        for (i = 0; i < (int)(sizeof texts / sizeof texts[0]); i++) {
            char name[32];
            snprintf(name, sizeof name, "text%d", i);
            bad |= put(dir, "fuzz_tokenizer_encode", name, texts[i], strlen(texts[i]));
        }
    }
    {   /* llm-plan command lines, arguments separated by NUL bytes (the literals'
           sizes count the embedded NULs; "\000" then a digit keeps octal escapes short) */
#define ARGV(lit) {lit, sizeof(lit) - 1}
        static const struct { const char *s; size_t n; } argvs[] = {
            ARGV("--model\0llama-2-13b\0--gpu\0a100-80gb"),
            ARGV("-m\0llama-3.1-405b\0--gpus=16\0--train\0--zero\0003\0--seq\0008192\0--json"),
            ARGV("--model=mistral-7b\0--config\0n_kv_heads=8,d_ff=14336\0--weights\0q4_32\0--kv\0int8"),
            ARGV("--list"), ARGV("--help"),
            ARGV("--model\0gpt2\0--batch\0004\0--gpu\0rtx-4090\0--flash\0--recompute"),
            ARGV("--model\0llama-2-7b\0--overhead\0001.5\0--tight\0000.8")};
#undef ARGV
        for (i = 0; i < (int)(sizeof argvs / sizeof argvs[0]); i++) {
            char name[32];
            snprintf(name, sizeof name, "argv%d", i);
            bad |= put(dir, "fuzz_plan_args", name, argvs[i].s, argvs[i].n);
        }
    }
    {   /* configs: the preset index and a few field rewrites (see fuzz_config.c) */
        for (i = 0; i < 16; i++) {
            unsigned char b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            char name[32];
            b[0] = (unsigned char)i;
            snprintf(name, sizeof name, "preset%d", i);
            bad |= put(dir, "fuzz_config", name, b, sizeof b);
        }
    }
    bad |= gguf_seeds(dir);
    bad |= vocab_seeds(dir);
    bad |= put_json_seeds(dir);
    bad |= put_safetensors_seeds(dir);
    bad |= put_index_seeds(dir);
    {   /* sessions of fuzz_session.h's generator: mid-reply (logits pending), at its end */
        static unsigned char sess[4096];
        static fzs z;
        int draws[3] = {0, 2, 5};
        if (fzs_make(&z)) bad = 1;
        else
            for (i = 0; i < 3; i++) {
                char name[32];
                size_t n = fzs_session(&z, draws[i], sess, sizeof sess);
                snprintf(name, sizeof name, "draws%d", draws[i]);
                bad |= n == 0 || put(dir, "fuzz_session", name, sess, n);
            }
        llm_gen_free(&z.g);
    }
    if (bad) fprintf(stderr, "seeds: could not write every seed under %s\n", dir);
    return bad;
}
