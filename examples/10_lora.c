/* 10_lora.c: LoRA and RsLoRA at ranks 4, 16 and 64 on a frozen model: the update's size and the loss */
/* Usage: build/examples/10_lora [model.bin]  (writes build/10_lora.gguf: one adapter, for llm-run --lora)
   Build: cc -O2 -I. examples/10_lora.c -lm
   Default: ../shared/models/stories260K.bin when present, else a random model of the same
   shape. The task: memorize a fixed random token sequence, with adapters on q and v (Hu et
   al. 2021's choice), the same alpha and learning rate at every rank. LoRA scales the
   update by alpha / r, so at a larger rank each step moves the model less; RsLoRA
   (Kalajdzievski 2023) scales by alpha / sqrt(r), which keeps the update's size and the
   learning speed the same across ranks, so a larger rank can actually be used. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 4, T = 32, STEPS = 40 };

/* ||s B A||_F summed over every adapted projection: the size of what LoRA added */
static double update_norm(const llm_train *t) {
    double sum = 0;
    int l, k;
    for (l = 0; l < t->config.n_layers; l++)
        for (k = 0; k < 7; k++) {
            int in, out, i;
            const float *A;
            float *W;
            if (llm_lora_adapter(t, l, 1u << k, &A, NULL, &in, &out) != LLM_OK || !A) continue;
            W = (float *)calloc((size_t)in * out, sizeof *W);
            llm_lora_merge(t, l, 1u << k, W); /* 0 + s B A */
            for (i = 0; i < in * out; i++) sum += (double)W[i] * W[i];
            free(W);
        }
    return sqrt(sum);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "../shared/models/stories260K.bin", *why = "";
    const char *saved = "build/10_lora.gguf";
    static const int ranks[3] = {4, 16, 64};
    llm_model model;
    llm_train rnd;
    const llm_weights *base;
    llm_config c;
    void *rmem = NULL;
    int tok[B * T], tgt[B * T], i, r, rs, step;
    double norms[2][3], losses[2][3];
    uint64_t s = 99;
    double base_params;
    memset(&model, 0, sizeof model);
    if (llm_llama2c_load_file(&model, path, &why) == LLM_OK) {
        c = model.config, base = &model.weights;
        printf("model: %s (%s)\n", path, c.name ? c.name : "llama2.c");
    } else { /* the same shape, random weights */
        c = llm_config_default();
        c.d_model = 64, c.n_layers = 5, c.n_heads = 8, c.n_kv_heads = 4, c.d_ff = 172, c.vocab = 512, c.max_seq_len = 512;
        rmem = malloc(llm_train_bytes(&c, 1, T));
        if (!rmem || llm_train_init(&rnd, rmem, llm_train_bytes(&c, 1, T), &c, 1, T) != LLM_OK ||
            llm_train_init_params(&rnd, 1, 0.1f) != LLM_OK)
            return 1;
        base = &rnd.weights;
        printf("model: %s not readable (%s): a random model of stories260K's shape\n", path, why);
    }
    base_params = (double)llm_count_params(&c).total;
    for (i = 0; i < B * T; i++) tok[i] = (int)(llm_xorshift_u32(&s) % (uint32_t)c.vocab);
    for (i = 0; i < B * T; i++) tgt[i] = (i + 1) % T ? tok[i + 1] : -1; /* next token of each sequence */
    printf("task: %d random sequences of %d tokens to memorize, adapters on q and v, alpha 16, AdamW lr 2e-3, %d steps\n",
           B, T, STEPS);
    printf("  %-7s %5s %8s %12s %10s %12s %12s\n", "method", "rank", "scale s", "trainable", "share", "|s B A|_F", "loss");
    for (rs = 0; rs < 2; rs++)
        for (r = 0; r < 3; r++) {
            llm_lora_params lp;
            llm_adamw opt;
            llm_train t;
            size_t bytes;
            void *mem;
            double loss = 0, first = 0;
            memset(&lp, 0, sizeof lp);
            lp.rank = ranks[r], lp.alpha = 16.0f, lp.rslora = rs, lp.targets = LLM_LORA_Q | LLM_LORA_V;
            bytes = llm_train_lora_bytes(&c, B, T, &lp);
            mem = malloc(bytes);
            if (!mem || llm_train_init_lora(&t, mem, bytes, &c, base, B, T, &lp) != LLM_OK ||
                llm_train_init_params(&t, 3, 1.0f / (float)c.d_model) != LLM_OK) {
                fprintf(stderr, "10_lora: cannot set up rank %d\n", ranks[r]);
                return 1;
            }
            memset(&opt, 0, sizeof opt);
            opt.lr = 2e-3f;
            for (step = 0; step < STEPS; step++) {
                if (llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL) != LLM_OK || llm_train_update(&t, &opt, 1.0, NULL) != LLM_OK)
                    return 1;
                if (step == 0) first = loss;
            }
            llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL);
            norms[rs][r] = update_norm(&t), losses[rs][r] = loss;
            printf("  %-7s %5d %8.3f %12lld %9.3f%% %12.4f %5.2f->%5.2f\n", rs ? "RsLoRA" : "LoRA", ranks[r],
                   llm_lora_scale(&lp), (long long)t.n_params, 100.0 * (double)t.n_params / base_params, norms[rs][r],
                   first, loss);
            if (rs == 1 && r == 0) { /* this adapter as llama.cpp's GGUF adapter, for llm-run --lora */
                size_t n = llm_lora_gguf_bytes(&t, "llama"), len = 0;
                unsigned char *buf = (unsigned char *)malloc(n ? n : 1);
                FILE *f;
                if (buf && llm_lora_save_gguf(&t, "llama", buf, n, &len) == LLM_OK && (f = fopen(saved, "wb")) != NULL) {
                    if (fwrite(buf, 1, len, f) != len) saved = NULL;
                    if (fclose(f) != 0) saved = NULL;
                } else {
                    saved = NULL;
                }
                free(buf);
            }
            free(mem);
        }
    printf("from rank 4 to 64 the update's size changes x%.2f under LoRA (s = alpha / r) and x%.2f under RsLoRA\n"
           "(s = alpha / sqrt(r)); the loss after %d steps goes %.2f -> %.2f and %.2f -> %.2f. Trainable share:\n"
           "the adapters over the model's %.0f parameters.\n",
           norms[0][2] / norms[0][0], norms[1][2] / norms[1][0], STEPS, losses[0][0], losses[0][2], losses[1][0],
           losses[1][2], base_params);
    if (saved && !rmem)
        printf("saved the RsLoRA rank-4 adapter: %s; applied without merging:\n  build/llm-run %s --lora %s -z "
               "../shared/models/synth512.bin -t 0 -n 64 -i \"Once upon a time\"\n", saved, path, saved);
    llm_model_free(&model);
    free(rmem);
    return 0;
}
