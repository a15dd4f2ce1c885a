/* 08_generate.c: load a llama2.c model, encode a prompt, generate token by token */
/* Usage: build/examples/08_generate [model.bin tokenizer.bin ["prompt"]]
   Build: cc -O2 -I. examples/08_generate.c -lm
   Defaults: ../shared/models/stories260K.bin with synth512.bin when present, else a random
   model and byte-level tokenizer this program writes to build/. Either way the TEXT IS
   MEANINGLESS: random weights know nothing, and synth512 is not the vocabulary stories260K
   was trained with (its token ids are still exactly llama2.c run.c's). For real stories,
   get llama2.c's stories15M.bin and tokenizer.bin (github.com/karpathy/llama2.c) and run
   build/examples/08_generate stories15M.bin tokenizer.bin "Once upon a time". */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A random legacy-format checkpoint (7-int header, then fp32 tensors) and a tokenizer
   whose pieces are <unk> <s> </s>, the 256 bytes <0xNN>, then letter pairs. */
static int write_random(const char *model, const char *tokenizer) {
    int32_t h[7] = {64, 128, 2, 4, 2, 512, 128}; /* dim hidden layers heads kv_heads vocab seq */
    long n = 512L * 64 + 2L * (2 * 64 + 2 * 64 * 64 + 2 * 32 * 64 + 3 * 128 * 64) + 64 + 128 * 16, i;
    uint64_t rng = 42;
    FILE *f = fopen(model, "wb"), *g = fopen(tokenizer, "wb");
    if (!f || !g) return 0;
    fwrite(h, 4, 7, f); /* llama2.c files are little-endian, like this machine */
    for (i = 0; i < n; i++) {
        float x = llm_xorshift_f32(&rng) - 0.5f;
        fwrite(&x, 4, 1, f);
    }
    h[0] = 8, fwrite(h, 4, 1, g); /* max token length */
    for (i = 0; i < 512; i++) {
        char s[8];
        float score = 0;
        int32_t len;
        if (i < 3) strcpy(s, i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
        else if (i < 259) sprintf(s, "<0x%02X>", (int)(i - 3));
        else s[0] = (char)(i % 2 ? ' ' : 'a' + i % 26), s[1] = (char)('a' + i / 26 % 26), s[2] = 0;
        len = (int32_t)strlen(s);
        fwrite(&score, 4, 1, g), fwrite(&len, 4, 1, g), fwrite(s, 1, (size_t)len, g);
    }
    return fclose(f) == 0 && fclose(g) == 0;
}

int main(int argc, char **argv) {
    const char *model_path = "../shared/models/stories260K.bin", *tok_path = "../shared/models/synth512.bin";
    const char *prompt = argc > 3 ? argv[3] : "Once upon a time", *why = "", *piece;
    llm_model model;
    llm_tokenizer tok;
    llm_state state;
    llm_sampler sampler;
    llm_status st;
    int ids[256], n_ids = 0, pos, token, next, len, steps = 96, seq[97], n_seq;
    float *logits;
    FILE *probe = fopen(model_path, "rb");

    /* 1. which model: the command line's, the shared test model, or a random one */
    if (probe) fclose(probe);
    if (argc > 2) model_path = argv[1], tok_path = argv[2];
    else if (!probe && write_random("build/08_random.bin", "build/08_random_tok.bin"))
        model_path = "build/08_random.bin", tok_path = "build/08_random_tok.bin";
    printf("model %s, tokenizer %s\n", model_path, tok_path);

    /* 2. load: the weights point into the file's bytes, nothing is converted */
    if (llm_llama2c_load_file(&model, model_path, &why) != LLM_OK ||
        llm_tokenizer_load_file(&tok, tok_path, model.config.vocab, &why) != LLM_OK)
        return fprintf(stderr, "cannot load: %s\n", why), 1;
    printf("dim %d, %d layers, %d heads (%d KV), vocab %d\n", model.config.d_model, model.config.n_layers,
           model.config.n_heads, model.config.n_kv_heads, model.config.vocab);

    /* 3. all memory for the run, once: KV cache for `steps` positions and activations
       for a prompt of up to 64 tokens per pass; the token loop never allocates */
    if (steps > model.config.max_seq_len) steps = model.config.max_seq_len;
    logits = (float *)malloc(sizeof(float) * (size_t)model.config.vocab);
    if (!logits || llm_state_create(&state, &model.config, steps, 64, LLM_F32) != LLM_OK ||
        llm_sampler_create(&sampler, model.config.vocab, 0.0f, 0.9f, 42) != LLM_OK) /* T = 0: greedy */
        return fprintf(stderr, "out of memory\n"), 1;

    /* 4. the prompt as token ids: BOS, then byte-pair merges of its UTF-8 text */
    if (llm_tokenize(&tok, prompt, 1, 0, ids, 256, &n_ids) != LLM_OK || n_ids > steps) return 1;
    fputs(prompt, stdout);

    /* 5. prefill: every prompt token but the last in one pass, filling the KV cache */
    if (n_ids > 1 && (st = llm_forward(&state, &model.weights, ids, n_ids - 1, 0, logits, 0, NULL)) != LLM_OK)
        return fprintf(stderr, "prefill: %s\n", llm_status_str(st)), 1;

    /* 6. generate: one token in, one token out, until `steps` positions or BOS */
    memcpy(seq, ids, sizeof(int) * (size_t)n_ids);
    n_seq = n_ids;
    for (pos = n_ids - 1, token = ids[pos]; pos < steps; pos++, token = next) {
        /* the newest token at position pos: its K and V join the cache, logits come out */
        if (llm_forward(&state, &model.weights, &token, 1, pos, logits, 0, NULL) != LLM_OK) return 1;
        /* choose the next token (argmax here; a temperature > 0 samples as run.c does) */
        next = llm_sample(&sampler, logits);
        /* llama2.c's models emit BOS when a story ends */
        if (next == 1) break;
        seq[n_seq++] = next;
        /* print its text: no leading space after BOS, <0xNN> pieces as raw bytes */
        piece = llm_token_piece(&tok, token, next, &len);
        if (llm_piece_printable(piece, len)) fwrite(piece, 1, (size_t)len, stdout);
    }
    printf("\n(%d positions; random weights or a mismatched tokenizer give meaningless text: see the top "
           "of examples/08_generate.c)\n", pos);
    /* 7. what makes the gibberish worth something: run.c's own greedy ids, when known */
    {
        FILE *f = argc > 2 ? NULL : fopen("../shared/models/stories260K.prompt.ids", "r");
        int i, want, same = 1, n = 0;
        if (f && strcmp(model_path, "../shared/models/stories260K.bin") == 0 && strcmp(prompt, "Once upon a time") == 0) {
            for (i = 0; i < n_seq && fscanf(f, "%d", &want) == 1; i++, n++) same &= want == seq[i];
            printf("ids identical to run.c's (the first %d of ../shared/models/stories260K.prompt.ids): %s\n", n,
                   same && n == n_seq ? "yes" : "no");
        } else {
            printf("ids identical to run.c's: comparison skipped (it needs ../shared/models and the default prompt)\n");
        }
        if (f) fclose(f);
    }
    llm_sampler_free(&sampler), llm_state_free(&state), llm_tokenizer_free(&tok), llm_model_free(&model);
    free(logits);
    return 0;
}
