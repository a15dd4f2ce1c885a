/* Writes the seed corpus of every fuzz target into <dir>/<target>/: small valid inputs
   the fuzzer mutates from (checkpoints of every format, tokenizers, configs from the
   presets, llm-plan command lines). Run by tests/fuzz/run.sh before fuzzing. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "ckpt_writer.h"
#include "st_writer.h"
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

/* fuzz_json: config.json texts from st_writer.h, a safetensors header, a tokenizer.json
   fragment, and the corners of the grammar (escapes, numbers, nesting) */
static int put_json_seeds(const char *dir) {
    static const char *const texts[] = {
        "{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\", \"d\": {}}",
        "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\ud83d\\ude00\", \"\xc3\xa9\xf0\x9f\x98\x80\"]",
        "[0, -0, 1.5, -1e-5, 1E+22, 123456789012345678901234, 2.2250738585072014e-308, 9223372036854775807, -9223372036854775808]",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{\"k\": [true, false, null]}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"__metadata__\":{\"format\":\"pt\"},\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[8,4],\"data_offsets\":[0,64]}}",
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"!\": 0, \"\\\"\": 1, \"\xc4\xa0the\": 2}, \"merges\": [\"\xc4\xa0 t\", [\"h\", \"e\"]]},"
        " \"added_tokens\": [{\"id\": 3, \"content\": \"<|begin_of_text|>\", \"special\": true}]}",
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
    bad |= put_json_seeds(dir);
    bad |= put_safetensors_seeds(dir);
    if (bad) fprintf(stderr, "seeds: could not write every seed under %s\n", dir);
    return bad;
}
