/* bench_train.c: one training step (forward + backward + AdamW) of llama2.c's 110M shape
   (dim 768, hidden 2048, 12 layers, 12 heads, vocab 32000) at batch 4 x 256 tokens, 1
   and 2 threads, beside the FMA roof measured in the same run: tokens/s and GFLOP/s of
   useful work, 6 N per token (Kaplan et al. 2020) plus attention's 12 L T d / 2 (causal);
   and a LoRA step (rank 16 on every projection) on an int8 and a Q4_K base of the same
   model: tokens/s and memory (base + state) against full fine-tuning (--lora-only: just
   those). Peer
   measured on this machine (issue 14): PyTorch 1.13 CPU fp32, same shape and batch, 8.0 s
   a step on one thread (128 tokens/s), 6.8 s on two. Targets: >= 50 % of the FMA roof on
   one thread, >= 1.8x one thread on two (judged when the FMA roof's own two-thread gain is
   at least that).
   `bench_train step [threads] [steps]` runs steps (default 2: the first one also faults in
   the activations' pages) and nothing else (no roofs, no LoRA): wall and per-thread CPU
   seconds of each step's forward + backward and update, for profiling a step. */
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
        if (llm_train_step(t, tok, tgt, 0.0f, &loss, th) != LLM_OK || llm_train_update_ex(t, &opt, 1.0, NULL, th) != LLM_OK) {
            fprintf(stderr, "bench_train: step failed\n");
            exit(1);
        }
        dt = roofs_now() - t0;
        if (dt < best) best = dt, *share = (roofs_cpu_seconds(th) - c0) / (dt * llm_threads_count(th));
    }
    return best;
}

/* One ggml Q4_K block (256 values: 8 sub-blocks of 32, each with a 6-bit scale and min
   under the block's fp16 d and dmin; y = d sc q - dmin m) from 256 floats: each
   sub-block's [min, max] mapped onto 0..15, the simplest encoder (llama.cpp searches for
   better scales; this one only has to make a Q4_K base to train LoRA on). */
static void q4k_block(unsigned char *o, const float *x) {
    float sc[8], mn[8], maxs = 0, maxm = 0, d, dm;
    int j, i, qs[8], qm[8];
    for (j = 0; j < 8; j++) {
        float lo = x[32 * j], hi = x[32 * j];
        for (i = 1; i < 32; i++) lo = x[32 * j + i] < lo ? x[32 * j + i] : lo, hi = x[32 * j + i] > hi ? x[32 * j + i] : hi;
        if (lo > 0) lo = 0;
        sc[j] = (hi - lo) / 15.0f, mn[j] = -lo;
        maxs = sc[j] > maxs ? sc[j] : maxs, maxm = mn[j] > maxm ? mn[j] : maxm;
    }
    d = llm_f16_to_f32(llm_f32_to_f16(maxs / 63.0f)), dm = llm_f16_to_f32(llm_f32_to_f16(maxm / 63.0f));
    for (j = 0; j < 8; j++) {
        qs[j] = d > 0 ? (int)(sc[j] / d + 0.5f) : 0, qm[j] = dm > 0 ? (int)(mn[j] / dm + 0.5f) : 0;
        qs[j] = qs[j] > 63 ? 63 : qs[j], qm[j] = qm[j] > 63 ? 63 : qm[j];
    }
    o[0] = (unsigned char)(llm_f32_to_f16(d) & 255), o[1] = (unsigned char)(llm_f32_to_f16(d) >> 8);
    o[2] = (unsigned char)(llm_f32_to_f16(dm) & 255), o[3] = (unsigned char)(llm_f32_to_f16(dm) >> 8);
    for (j = 0; j < 4; j++) { /* ggml's 12-byte packing: low 6 bits of 0..3, 4-bit halves of 4..7 */
        o[4 + j] = (unsigned char)((qs[j] & 63) | (qs[j + 4] >> 4) << 6);
        o[8 + j] = (unsigned char)((qm[j] & 63) | (qm[j + 4] >> 4) << 6);
        o[12 + j] = (unsigned char)((qs[j + 4] & 15) | (qm[j + 4] & 15) << 4);
    }
    for (j = 0; j < 8; j++) /* 4-bit codes: sub-blocks 2i and 2i+1 share bytes, low and high nibbles */
        for (i = 0; i < 32; i++) {
            float s = d * (float)qs[j], v = s > 0 ? (x[32 * j + i] + dm * (float)qm[j]) / s : 0;
            int q = (int)(v + 0.5f);
            q = q < 0 ? 0 : q > 15 ? 15 : q;
            if (j % 2 == 0) o[16 + 32 * (j / 2) + i] = (unsigned char)q;
            else o[16 + 32 * (j / 2) + i] |= (unsigned char)(q << 4);
        }
}

/* each pool thread's CPU clock, by ith */
static void cpu_task(void *p, int ith, int nth) {
    struct timespec ts;
    (void)nth;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    ((double *)p)[ith & 7] = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* steps of t at nt threads: wall and each thread's CPU seconds, for the step and the update */
static int some_steps(llm_train *t, const int *tok, const int *tgt, int nt, int steps) {
    llm_threads *th = NULL;
    llm_adamw opt;
    double c0[8], c1[8], c2[8], w0, w1, w2, loss, gn;
    int i, r;
    memset(&opt, 0, sizeof opt);
    opt.lr = 1e-4f;
    if (nt > 1 && llm_threads_create(&th, nt) != LLM_OK) return 1;
    nt = llm_threads_count(th) < 8 ? llm_threads_count(th) : 8;
    for (r = 0; r < steps; r++) {
        llm_threads_run(th, cpu_task, c0), w0 = roofs_now();
        if (llm_train_step(t, tok, tgt, 0.0f, &loss, th) != LLM_OK) return 1;
        w1 = roofs_now(), llm_threads_run(th, cpu_task, c1);
        if (llm_train_update_ex(t, &opt, 1.0, &gn, th) != LLM_OK) return 1;
        w2 = roofs_now(), llm_threads_run(th, cpu_task, c2);
        printf("  step %d, %d thread%s: loss %.6f, grad norm %.6f; forward+backward %.2f s wall, update %.3f s wall\n", r + 1,
               nt, nt > 1 ? "s" : "", loss, gn, w1 - w0, w2 - w1);
        for (i = 0; i < nt; i++)
            printf("    thread %d CPU: forward+backward %.2f s, update %.3f s\n", i, c1[i] - c0[i], c2[i] - c1[i]);
    }
    if (th) llm_threads_free(th);
    return 0;
}

int main(int argc, char **argv) {
    llm_config c = shape();
    double flops_tok, roof[3];
    int tok[B * T], tgt[B * T], i, nt, fmt, lora_only = argc > 1 && strcmp(argv[1], "--lora-only") == 0;
    double full_tps = 0;
    uint64_t s = 7;
    llm_train t;
    size_t bytes = llm_train_bytes(&c, B, T);
    void *mem = malloc(bytes);
    if (!mem || llm_train_init(&t, mem, bytes, &c, B, T) != LLM_OK || llm_train_init_params(&t, 1, 0.02f) != LLM_OK) {
        fprintf(stderr, "bench_train: cannot set up %.2f GB of training state\n", (double)bytes / 1e9);
        return 1;
    }
    for (i = 0; i < B * T; i++) tok[i] = (int)(llm_xorshift_u32(&s) % 32000u), tgt[i] = (int)(llm_xorshift_u32(&s) % 32000u);
    if (argc > 1 && strcmp(argv[1], "step") == 0) return some_steps(&t, tok, tgt, argc > 2 ? atoi(argv[2]) : 1, argc > 3 ? atoi(argv[3]) : 2);
    flops_tok = 6.0 * (double)t.n_params + 6.0 * c.n_layers * T * c.d_model; /* 12 L T d, halved by the causal mask */
    printf("bench_train: %s, %.1f M parameters, batch %d x %d, %.2f GB of state (llm_train_bytes), %.2f GFLOP per step\n",
           c.name, (double)t.n_params / 1e6, B, T, (double)bytes / 1e9, flops_tok * B * T / 1e9);
    if (!lora_only) {
        /* one and two threads alternated, step by step, best of 3 each (the host's other
           work comes and goes over seconds, and the two-thread gain is a ratio of the two),
           after a first step, untimed: it faults in the state's pages */
        llm_threads *pool[3] = {NULL, NULL, NULL};
        double sec[3] = {1e30, 1e30, 1e30}, share[3] = {1.0, 1.0, 1.0};
        int r, nmax = 1;
        time_steps(&t, tok, tgt, NULL, 1, &share[0]);
#ifdef LLM_PTHREADS
        if (llm_threads_create(&pool[2], 2) == LLM_OK) nmax = 2;
#endif
        for (nt = 1; nt <= nmax; nt++) roof[nt] = roofs_fma_gflops(nt);
        for (r = 0; r < 3; r++)
            for (nt = 1; nt <= nmax; nt++) {
                double sh = 1.0, dt = time_steps(&t, tok, tgt, pool[nt], 1, &sh);
                if (dt < sec[nt]) sec[nt] = dt, share[nt] = sh;
            }
        full_tps = B * T / sec[1];
        for (nt = 1; nt <= nmax; nt++) {
            printf("  full step, %d thread%s: %.2f s, %.0f tokens/s, %.1f GFLOP/s = %.1f %% of the %s FMA roof (%.1f GFLOP/s), CPU share %.0f %%",
                   nt, nt > 1 ? "s" : "", sec[nt], B * T / sec[nt], flops_tok * B * T / sec[nt] / 1e9,
                   100.0 * flops_tok * B * T / sec[nt] / 1e9 / roof[nt], roofs_isa(), roof[nt], 100.0 * share[nt]);
            if (nt == 1) /* issue 14's targets, as ratios in this run */
                printf("; target >= 50 %%: %s\n", flops_tok * B * T / sec[1] / 1e9 >= 0.5 * roof[1] ? "met" : "MISSED");
            else
                /* judged where the roof itself allows it, as bench_quants judges two-thread decode:
                   on a host whose two threads give the FMA under 1.8x one, no step can */
                printf("; %.2fx 1 thread (the FMA roof %.2fx), target >= 1.8x: %s\n", sec[1] / sec[2], roof[2] / roof[1],
                       roof[2] < 1.8 * roof[1] ? "not judged (the roof's own gain is under it)" : sec[1] >= 1.8 * sec[2] ? "met" : "MISSED");
        }
        if (pool[2]) llm_threads_free(pool[2]);
    }
    /* LoRA on quantized copies of the same weights (int8 groups of 64, and ggml's Q4_K as
       Q4_K_M files hold most matrices): only the adapters train, the base stays quantized */
    for (fmt = 0; fmt < 2; fmt++) {
        llm_layer_weights L[12];
        llm_weights base = t.weights;
        llm_lora_params lp;
        llm_train lt;
        void *lmem;
        size_t lbytes;
        int l, k;
        double sec, share = 1.0, base_bytes = 4.0 * (double)c.vocab * c.d_model + 4.0 * (2 * 12 + 1) * c.d_model, err = 0, ref = 0;
        memset(&lp, 0, sizeof lp);
        lp.rank = 16, lp.alpha = 16, lp.targets = LLM_LORA_ALL;
        for (l = 0; l < 12; l++) {
            L[l] = t.layers[l];
            for (k = 0; k < 7; k++) {
                llm_weight *W = k == 0 ? &L[l].wq : k == 1 ? &L[l].wk : k == 2 ? &L[l].wv : k == 3 ? &L[l].wo
                              : k == 4 ? &L[l].w1 : k == 5 ? &L[l].w2 : &L[l].w3;
                int64_t n = (k < 4 ? 768 : 2048) * (int64_t)768;
                const float *x = (const float *)W->data;
                if (fmt == 0) {
                    int8_t *q = (int8_t *)malloc((size_t)n);
                    float *sc = (float *)malloc(sizeof(float) * (size_t)(n / 64));
                    if (!q || !sc || llm_quantize_int8(q, sc, x, n, 64) != LLM_OK) return 1;
                    W->type = LLM_INT8, W->data = q, W->scale = sc, W->group_size = 64;
                    base_bytes += (double)n + 4.0 * (double)(n / 64);
                } else {
                    unsigned char *q = (unsigned char *)malloc((size_t)(n / 256 * 144));
                    int64_t b;
                    if (!q) return 1;
                    for (b = 0; b < n / 256; b++) q4k_block(q + b * 144, x + b * 256);
                    if (l == 0 && k == 0) { /* the encoder's error, read back through llm.h's own decoder */
                        float *y = (float *)malloc(sizeof(float) * (size_t)n);
                        int64_t e;
                        if (!y || llm_gguf_dequantize(12, q, y, n) != LLM_OK) return 1;
                        for (e = 0; e < n; e++) err += (double)(y[e] - x[e]) * (y[e] - x[e]), ref += (double)x[e] * x[e];
                        free(y);
                    }
                    W->type = LLM_Q4_K, W->data = q;
                    base_bytes += (double)(n / 256 * 144);
                }
            }
        }
        base.layers = L;
        lbytes = llm_train_lora_bytes(&c, B, T, &lp);
        lmem = malloc(lbytes);
        if (!lmem || llm_train_init_lora(&lt, lmem, lbytes, &c, &base, B, T, &lp) != LLM_OK ||
            llm_train_init_params(&lt, 2, 0.02f) != LLM_OK)
            return 1;
        sec = time_steps(&lt, tok, tgt, NULL, 2, &share); /* best of 2: the first step also faults in the state's pages */
        printf("  LoRA r 16 on every projection, %s base, 1 thread: %.2f s, %.0f tokens/s (%.2fx the full step's); %.2f M "
               "trainable (%.2f %%); memory %.2f GB = base %.2f GB + state %.2f GB, vs %.2f GB full fine-tuning\n",
               fmt ? "Q4_K" : "int8", sec, B * T / sec, full_tps > 0 ? B * T / sec / full_tps : 0.0, (double)lt.n_params / 1e6,
               100.0 * (double)lt.n_params / (double)t.n_params, (base_bytes + (double)lbytes) / 1e9, base_bytes / 1e9,
               (double)lbytes / 1e9, (double)bytes / 1e9);
        if (fmt) printf("    (Q4_K encoder here: relative RMS error %.4f on layer 0's wq)\n", sqrt(err / ref));
        for (l = 0; l < 12; l++)
            for (k = 0; k < 7; k++) {
                llm_weight *W = k == 0 ? &L[l].wq : k == 1 ? &L[l].wk : k == 2 ? &L[l].wv : k == 3 ? &L[l].wo
                              : k == 4 ? &L[l].w1 : k == 5 ? &L[l].w2 : &L[l].w3;
                free((void *)(uintptr_t)W->data);
                if (fmt == 0) free((void *)(uintptr_t)W->scale);
            }
        free(lmem);
    }
    (void)roofs_read_gbs;
    free(mem);
    return 0;
}
