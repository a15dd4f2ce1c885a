/* bench_train.c: one training step (forward + backward + AdamW) of llama2.c's 110M shape
   (dim 768, hidden 2048, 12 layers, 12 heads, vocab 32000) at batch 4 x 256 tokens, 1
   and 2 threads, beside the FMA roof measured in the same run: tokens/s and GFLOP/s of
   useful work, 6 N per token (Kaplan et al. 2020) plus attention's 12 L T d / 2 (causal);
   and a LoRA step (rank 16 on every projection) on an int8 base of the same model. Peer
   measured on this machine (issue 14): PyTorch 1.13 CPU fp32, same shape and batch, 8.0 s
   a step on one thread (128 tokens/s), 6.8 s on two. Targets: >= 50 % of the FMA roof on
   one thread, >= 1.8x one thread on two. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "roofs.h"

enum { B = 4, T = 256 };

static llm_config shape(void) {
    llm_config c = llm_config_default();
    c.name = "llama2.c-110M", c.d_model = 768, c.n_layers = 12, c.n_heads = 12, c.n_kv_heads = 12, c.d_ff = 2048;
    c.vocab = 32000, c.max_seq_len = 1024, c.tied_embeddings = 1;
    return c;
}

/* seconds of the best of `reps` steps, and the CPU share the pool had */
static double time_steps(llm_train *t, const int *tok, const int *tgt, llm_threads *th, int reps, double *share) {
    llm_adamw opt;
    double best = 1e30;
    int r;
    memset(&opt, 0, sizeof opt);
    opt.lr = 1e-4f;
    for (r = 0; r < reps; r++) {
        double loss, t0 = roofs_now(), c0 = roofs_cpu_seconds(th), dt;
        if (llm_train_step(t, tok, tgt, 0.0f, &loss, th) != LLM_OK || llm_train_update(t, &opt, 1.0, NULL) != LLM_OK) {
            fprintf(stderr, "bench_train: step failed\n");
            exit(1);
        }
        dt = roofs_now() - t0;
        if (dt < best) best = dt, *share = (roofs_cpu_seconds(th) - c0) / (dt * llm_threads_count(th));
    }
    return best;
}

int main(void) {
    llm_config c = shape();
    double flops_tok, roof[3];
    int tok[B * T], tgt[B * T], i, nt;
    uint64_t s = 7;
    llm_train t;
    size_t bytes = llm_train_bytes(&c, B, T);
    void *mem = malloc(bytes);
    if (!mem || llm_train_init(&t, mem, bytes, &c, B, T) != LLM_OK || llm_train_init_params(&t, 1, 0.02f) != LLM_OK) {
        fprintf(stderr, "bench_train: cannot set up %.2f GB of training state\n", (double)bytes / 1e9);
        return 1;
    }
    for (i = 0; i < B * T; i++) tok[i] = (int)(llm_xorshift_u32(&s) % 32000u), tgt[i] = (int)(llm_xorshift_u32(&s) % 32000u);
    flops_tok = 6.0 * (double)t.n_params + 6.0 * c.n_layers * T * c.d_model; /* 12 L T d, halved by the causal mask */
    printf("bench_train: %s, %.1f M parameters, batch %d x %d, %.2f GB of state (llm_train_bytes), %.2f GFLOP per step\n",
           c.name, (double)t.n_params / 1e6, B, T, (double)bytes / 1e9, flops_tok * B * T / 1e9);
    for (nt = 1; nt <= 2; nt++) {
        llm_threads *th = NULL;
        double sec, share = 1.0;
#ifdef LLM_PTHREADS
        if (nt > 1 && llm_threads_create(&th, nt) != LLM_OK) break;
#else
        if (nt > 1) break;
#endif
        roof[nt] = roofs_fma_gflops(nt);
        sec = time_steps(&t, tok, tgt, th, 2, &share);
        printf("  full step, %d thread%s: %.2f s, %.0f tokens/s, %.1f GFLOP/s = %.1f %% of the %s FMA roof (%.1f GFLOP/s), CPU share %.0f %%\n",
               nt, nt > 1 ? "s" : "", sec, B * T / sec, flops_tok * B * T / sec / 1e9,
               100.0 * flops_tok * B * T / sec / 1e9 / roof[nt], roofs_isa(), roof[nt], 100.0 * share);
        if (th) llm_threads_free(th);
    }
    /* LoRA on an int8 copy of the same weights: only the adapters train */
    {
        llm_layer_weights L[12];
        llm_weights base = t.weights;
        llm_lora_params lp;
        llm_train lt;
        void *lmem;
        size_t lbytes;
        int l, k;
        double sec, share = 1.0;
        memset(&lp, 0, sizeof lp);
        lp.rank = 16, lp.alpha = 16, lp.targets = LLM_LORA_ALL;
        for (l = 0; l < 12; l++) {
            L[l] = t.layers[l];
            for (k = 0; k < 7; k++) {
                llm_weight *W = k == 0 ? &L[l].wq : k == 1 ? &L[l].wk : k == 2 ? &L[l].wv : k == 3 ? &L[l].wo
                              : k == 4 ? &L[l].w1 : k == 5 ? &L[l].w2 : &L[l].w3;
                int64_t n = (k < 4 ? 768 : 2048) * (int64_t)768;
                int8_t *q = (int8_t *)malloc((size_t)n);
                float *sc = (float *)malloc(sizeof(float) * (size_t)(n / 64));
                if (!q || !sc || llm_quantize_int8(q, sc, (const float *)W->data, n, 64) != LLM_OK) return 1;
                W->type = LLM_INT8, W->data = q, W->scale = sc, W->group_size = 64;
            }
        }
        base.layers = L;
        lbytes = llm_train_lora_bytes(&c, B, T, &lp);
        lmem = malloc(lbytes);
        if (!lmem || llm_train_init_lora(&lt, lmem, lbytes, &c, &base, B, T, &lp) != LLM_OK ||
            llm_train_init_params(&lt, 2, 0.02f) != LLM_OK)
            return 1;
        sec = time_steps(&lt, tok, tgt, NULL, 1, &share);
        printf("  LoRA r 16 on every projection, int8 base, 1 thread: %.2f s, %.0f tokens/s; %.2f M trainable (%.2f %%), state %.2f GB vs %.2f GB full\n",
               sec, B * T / sec, (double)lt.n_params / 1e6, 100.0 * (double)lt.n_params / (double)t.n_params,
               (double)lbytes / 1e9, (double)bytes / 1e9);
        free(lmem);
    }
    (void)roofs_read_gbs;
    free(mem);
    return 0;
}
