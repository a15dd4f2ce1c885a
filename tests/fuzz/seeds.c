/* Writes the seed corpus of every fuzz target into <dir>/<target>/: small valid inputs
   the fuzzer mutates from (checkpoints of every format, tokenizers, configs from the
   presets, llm-plan command lines). Run by tests/fuzz/run.sh before fuzzing. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "ckpt_writer.h"
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
    if (bad) fprintf(stderr, "seeds: could not write every seed under %s\n", dir);
    return bad;
}
