/* >>model: the decoder block and the whole forward pass of each model family against a
   double-precision reference, decoding through the KV cache against a full prefill, the
   sampler against probabilities and draws worked out here, and stories260K token for
   token. LLM_TEST_VERBOSE=1 prints the measured errors beside their tolerances. */
#include <stdlib.h>
#include "llm.h"
#include "test.h"
#include "internals.h"
/* Every allocation llm.h makes is counted (tests/impl.c's allocator): the token loop must make none. */
#define n_allocs test_alloc_count
#include "ref_model.h"

/* max of two doubles (not fmax: gcc 12 for AArch64 crashes vectorizing fmax reductions) */
static double maxd(double a, double b) { return a > b ? a : b; }
static int verbose; /* LLM_TEST_VERBOSE=1 prints the measured errors the tolerances come from */
/* Each check draws its model from the same start of test.h's generator, so the errors
   it measures (and its tolerance) do not move when a check is added before it. */
static void reseed(void) { test__rng = 0x9E3779B97F4A7C15ull; }

static llm_config small_config(void) {
    llm_config c;
    memset(&c, 0, sizeof c);
    c.name = "test";
    c.d_model = 32, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 48, c.vocab = 40, c.max_seq_len = 16;
    c.norm = LLM_NORM_RMS, c.ffn = LLM_FFN_SWIGLU, c.pos = LLM_POS_ROPE, c.rope_theta = 10000.0f;
    return c;
}

/* One block, run as a prefill of n1 tokens then n2 more through the cache, against the
   reference over all n1 + n2. */
static void check_block(const llm_config *c, float x_scale, const char *what) {
    rnd_model m;
    llm_rope rope;
    llm_kv_cache kv;
    int T = 9, n1 = 5, d = c->d_model, i;
    float *x;
    double *xr = (double *)malloc(sizeof(double) * (size_t)T * d), worst = 0;
    size_t sb = llm_block_scratch_bytes(c, T);
    void *scratch = malloc(sb), *rmem = malloc(llm_rope_bytes(hdim(c), 16));
    reseed();
    x = ref_rnd((size_t)T * d, x_scale);
    rnd_model_make(&m, c);
    for (i = 0; i < T * d; i++) xr[i] = x[i];
    CHECK(sb > 0);
    CHECK_OK(llm_rope_init_config(&rope, rmem, llm_rope_bytes(hdim(c), 16), c, 16));
    CHECK_OK(llm_kv_cache_create(&kv, c, 16, LLM_F32));
    CHECK_OK(llm_block_forward(c, &m.lw[1], &rope, &kv, 1, x, n1, 0, scratch, NULL));
    CHECK_OK(llm_block_forward(c, &m.lw[1], &rope, &kv, 1, x + n1 * d, T - n1, n1, scratch, NULL));
    ref_block(c, &m.l[1], 1, xr, T);
    for (i = 0; i < T * d; i++) {
        double e = fabs(x[i] - xr[i]) / (1 + fabs(xr[i]));
        if (!(e <= worst)) worst = e;
    }
    if (verbose) printf("  block %-52s %.2g\n", what, worst);
    CHECK_MSG(worst < 8e-6, "%s: block vs double reference, worst relative error %.3g", what, worst); /* measured 8.2e-7 */
    llm_kv_cache_free(&kv);
    rnd_model_free(&m);
    free(x), free(xr), free(scratch), free(rmem);
}

static void test_blocks(void) {
    llm_config c = small_config();
    check_block(&c, 1.0f, "pre-norm RMS SwiGLU RoPE GQA");
    check_block(&c, 0.02f, "the same, inputs ~0.02: RMSNorm's eps matters"); /* Llama's embeddings' size */
    c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.pos = LLM_POS_NONE, c.bias = LLM_BIAS_ALL;
    c.n_kv_heads = 4;
    check_block(&c, 1.0f, "pre-norm LayerNorm GELU biases MHA (GPT-2 style)");
    c.post_norm = 1;
    check_block(&c, 1.0f, "post-norm LayerNorm GELU biases");
    c = small_config();
    c.post_norm = 1;
    check_block(&c, 1.0f, "post-norm RMS SwiGLU GQA");
    c = small_config();
    c.n_kv_heads = 1, c.head_dim = 16, c.ffn = LLM_FFN_GEGLU, c.bias = LLM_BIAS_QKV;
    check_block(&c, 1.0f, "MQA, head_dim 16 != d/n_heads, GEGLU, q/k/v biases");
    c = small_config();
    c.sliding_window = 3;
    check_block(&c, 1.0f, "sliding window 3");
    c = small_config();
    c.qk_norm = 1, c.head_dim = 16, c.rope_layout = LLM_ROPE_HALVES;
    check_block(&c, 1.0f, "q/k head norms, head_dim 16, RoPE halves (Qwen3)");
    c = small_config();
    c.sandwich_norm = 1, c.ffn = LLM_FFN_GEGLU, c.attn_softcap = 0.7f, c.attn_scale = 0.2f;
    c.sliding_window = 3, c.window_pattern = 2; /* layer 1 (the one checked) is global */
    check_block(&c, 1.0f, "sandwich norms, GEGLU, softcap 0.7, scale 0.2, global layer (Gemma 2)");
}

/* the worst |a - r| / (1 + |r|) over n values; NaN if any a is NaN */
static double worst_rel(const float *a, const double *r, size_t n) {
    double w = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double e = fabs(a[i] - r[i]) / (1 + fabs(r[i]));
        if (!(e <= w)) w = e;
    }
    return w;
}

/* llm_forward over T = 160 tokens (2.5 attention tiles of LLM_ATTN_TILE 64) against the
   reference: one prefill with every position's logits, the same prefill in chunks of 37
   (the cache carries over between chunks), and decoding token by token; then the prefill
   on 2 threads, bit for bit the same. emb_scale scales the token embedding: Llama's are
   ~0.02, so its first norm sees mean(x^2) ~ 1e-4, where eps 1e-5 is not negligible. */
#define FWD_T 160
static void check_forward(const llm_config *c0, float emb_scale, double tol, const char *what) {
    enum { T = FWD_T, CAP = 192, CHUNK = 37 };
    llm_config c = *c0;
    rnd_model m;
    llm_state s, sc;
    llm_threads *th;
    int toks[FWD_T], V, t, ok = 1;
    size_t i;
    float *lg, *lg2, *one;
    double *ref, e_pre, e_chunk, e_dec = 0;
    long allocs;
    c.max_seq_len = CAP; /* learned positions: a table for every position of the state */
    V = c.vocab;
    reseed();
    rnd_model_make(&m, &c);
    for (i = 0; i < (size_t)V * c.d_model; i++) m.emb[i] *= emb_scale;
    for (t = 0; t < T; t++) toks[t] = (int)((test_randf() + 1) * 0.5f * (float)V) % V;
    lg = (float *)malloc(sizeof(float) * (size_t)T * V), lg2 = (float *)malloc(sizeof(float) * (size_t)T * V);
    one = (float *)malloc(sizeof(float) * (size_t)V), ref = (double *)malloc(sizeof(double) * (size_t)T * V);
    ref_forward(&m, toks, T, ref);
    CHECK_OK(llm_state_create(&s, &c, CAP, T, LLM_F32));
    CHECK_OK(llm_state_create(&sc, &c, CAP, CHUNK, LLM_F32));
    CHECK_OK(llm_forward(&s, &m.w, toks, T, 0, lg, 1, NULL));
    CHECK_OK(llm_forward(&sc, &m.w, toks, T, 0, lg2, 1, NULL));
    e_pre = worst_rel(lg, ref, (size_t)T * V), e_chunk = worst_rel(lg2, ref, (size_t)T * V);
    /* decode: rewinding s to position 0, then one token per call */
    for (t = 0; t < T; t++) {
        ok &= llm_forward(&s, &m.w, &toks[t], 1, t, one, 0, NULL) == LLM_OK;
        e_dec = maxd(e_dec, worst_rel(one, ref + (size_t)t * V, (size_t)V));
        if (!(e_dec == e_dec)) break;
    }
    CHECK_MSG(ok, "%s: a decode step failed", what);
    if (verbose) {
        double mx = 0;
        for (i = 0; i < (size_t)T * V; i++) mx = maxd(mx, fabs(ref[i]));
        printf("  forward %-62s prefill %.2g chunked %.2g decode %.2g (tol %.2g; largest logit %.3g)\n", what, e_pre,
               e_chunk, e_dec, tol, mx);
    }
    CHECK_MSG(e_pre <= tol, "%s: prefill logits vs double reference, worst relative error %.3g > %.3g", what, e_pre, tol);
    CHECK_MSG(e_chunk <= tol, "%s: chunked prefill vs double reference, worst relative error %.3g > %.3g", what, e_chunk, tol);
    CHECK_MSG(e_dec <= tol, "%s: decode logits vs double reference, worst relative error %.3g > %.3g", what, e_dec, tol);
    /* threads split the work, never a sum: the same bits */
    th = test_pool(2, 3, what);
    if (th) {
        allocs = n_allocs;
        CHECK_OK(llm_forward(&s, &m.w, toks, T, 0, lg2, 1, th));
        CHECK(n_allocs == allocs); /* threaded calls allocate nothing either */
        CHECK_MSG(memcmp(lg, lg2, sizeof(float) * (size_t)T * V) == 0, "%s: 2 threads differ from 1", what);
    }
    { /* the projections this build repacks (LLM_F32X16 with AVX-512: q, k, v, and gate, up,
         each in one call of the layer) against the same reference, prefill and decode,
         on 1 and 2 threads */
        llm_model lm;
        size_t rb;
        void *mem;
        double e_rp = 0, e_rd = 0;
        memset(&lm, 0, sizeof lm);
        lm.config = c, lm.weights = m.w;
        rb = llm_model_repack_bytes(&lm, 0);
        mem = malloc(rb + 1);
        CHECK_OK(llm_model_repack(&lm, rb ? mem : NULL, rb, 0)); /* (m.w shares the layers: repacked too) */
        CHECK(rb == 0 || lm.weights.layers[0].wq.type == LLM_F32X16);
        CHECK_OK(llm_forward(&s, &lm.weights, toks, T, 0, lg2, 1, NULL));
        e_rp = worst_rel(lg2, ref, (size_t)T * V);
        for (t = 0; t < T; t++) {
            CHECK_OK(llm_forward(&s, &lm.weights, &toks[t], 1, t, one, 0, th));
            e_rd = maxd(e_rd, worst_rel(one, ref + (size_t)t * V, (size_t)V));
        }
        if (verbose && rb) printf("  forward %-62s repacked: prefill %.2g decode %.2g\n", what, e_rp, e_rd);
        CHECK_MSG(e_rp <= tol && e_rd <= tol, "%s: repacked, logits vs double reference, worst relative error %.3g, %.3g > %.3g",
                  what, e_rp, e_rd, tol);
        free(mem);
    }
    llm_threads_free(th);
    llm_state_free(&s), llm_state_free(&sc);
    rnd_model_free(&m);
    free(lg), free(lg2), free(one), free(ref);
}

/* A tiny model (d_model 32, 2 layers, vocab 50) of each family the forward pass runs. */
static llm_config fwd_config(void) {
    llm_config c = llm_config_default();
    c.name = "fwd";
    c.d_model = 32, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 4, c.d_ff = 64, c.vocab = 50, c.max_seq_len = 192;
    return c;
}
/* Each tolerance is about 10x the worst error measured (the worst of prefill, chunked
   prefill and decode, over the native AVX-512, scalar, AVX2 and NEON builds; re-measure with
   LLM_TEST_VERBOSE=1). Each bug planted for issue 16 (a dropped final-norm bias, positions
   read one off, RMSNorm's eps outside the root, an unscaled online-softmax sum, a RoPE
   sign, a GQA head mapping) takes the families it touches to errors of 8e-5 to 6. */
/* worst of prefill, chunked and decode over the native, scalar and AVX2 builds */
#define TOL_QWEN2 7e-5    /* measured 7.2e-6 */
#define TOL_QWEN3 2.6e-5  /* measured 2.6e-6 */
#define TOL_GEMMA 2.2e-5  /* measured 2.2e-6 */
#define TOL_GEMMA2 1.8e-5 /* measured 1.8e-6 */
#define TOL_PHI3 3.5e-5   /* measured 3.5e-6 */
static void test_forward_families(void) {
    llm_config c = fwd_config();
    /* Llama: RMSNorm, SwiGLU, interleaved RoPE, GQA 4/2, untied head, small embeddings */
    c.n_kv_heads = 2;
    check_forward(&c, 0.02f, 3e-5, "llama: RMS, SwiGLU, RoPE interleaved, GQA 4/2, untied"); /* measured 3.1e-6 */
    /* GPT-2: LayerNorm with biases (the final one too), GELU, learned positions, biases
       in every linear layer, tied head */
    c = fwd_config();
    c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.pos = LLM_POS_LEARNED, c.bias = LLM_BIAS_ALL;
    c.tied_embeddings = 1;
    check_forward(&c, 1.0f, 3.5e-5, "gpt-2: LayerNorm+bias, GELU, learned positions, biases, tied"); /* measured 3.5e-6 */
    /* post-norm (Vaswani et al.), with LayerNorm and with RMSNorm */
    c.post_norm = 1, c.tied_embeddings = 0;
    check_forward(&c, 1.0f, 1e-5, "post-norm LayerNorm+bias, GELU, learned positions, untied"); /* measured 9.4e-7 */
    c = fwd_config();
    c.post_norm = 1, c.n_kv_heads = 2;
    check_forward(&c, 1.0f, 1.1e-5, "post-norm RMS, SwiGLU, RoPE, GQA 4/2"); /* measured 1.1e-6 */
    /* MQA, head_dim 16 != d_model / n_heads, GEGLU, q/k/v biases (Qwen2's), theta 1e6 */
    c = fwd_config();
    c.n_kv_heads = 1, c.head_dim = 16, c.ffn = LLM_FFN_GEGLU, c.bias = LLM_BIAS_QKV, c.rope_theta = 1e6f;
    check_forward(&c, 0.02f, 2.5e-5, "MQA, head_dim 16, GEGLU, q/k/v biases, theta 1e6"); /* measured 2.6e-6 */
    /* a sliding window of 70 (longer than a tile): 90 of the 160 positions look past it;
       GQA 8/2 in d_model 64 */
    c = fwd_config();
    c.d_model = 64, c.n_heads = 8, c.n_kv_heads = 2, c.sliding_window = 70;
    check_forward(&c, 0.02f, 1.4e-4, "sliding window 70, GQA 8/2, d_model 64"); /* measured 1.4e-5 */
    c.sliding_window = 5; /* shorter than any tile */
    check_forward(&c, 0.02f, 1.5e-4, "sliding window 5, GQA 8/2, d_model 64"); /* measured 1.5e-5 */
    /* RoPE in halves (Hugging Face layout), theta 500000 */
    c = fwd_config();
    c.rope_layout = LLM_ROPE_HALVES, c.rope_theta = 500000.0f, c.n_kv_heads = 2;
    check_forward(&c, 0.02f, 3e-5, "RoPE halves, theta 5e5, GQA 4/2"); /* measured 2.8e-6 */
    /* GPT-NeoX: partial rotary (a quarter of head_dim 16) in halves, LayerNorm, GELU, biases */
    c = fwd_config();
    c.n_heads = 2, c.n_kv_heads = 2, c.rotary_dim = 4, c.rope_layout = LLM_ROPE_HALVES;
    c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.bias = LLM_BIAS_ALL;
    check_forward(&c, 1.0f, 1.6e-5, "neox: RoPE halves rotary_dim 4 of 16, LayerNorm+bias, GELU"); /* measured 1.6e-6 */
    /* partial rotary, interleaved, a small theta (fast turns) */
    c = fwd_config();
    c.rotary_dim = 4, c.rope_theta = 100.0f, c.n_kv_heads = 2;
    check_forward(&c, 0.02f, 3e-5, "RoPE interleaved rotary_dim 4 of 8, theta 100"); /* measured 3.2e-6 */
    /* Llama 3.1 frequency scaling, with an original context short enough to matter here */
    c = fwd_config();
    c.n_kv_heads = 2, c.rope_scale = 8, c.rope_low_freq_factor = 1, c.rope_high_freq_factor = 4, c.rope_orig_ctx = 64;
    check_forward(&c, 0.02f, 3.5e-5, "Llama 3.1 RoPE scaling 8, original context 64"); /* measured 3.6e-6 */
    /* Qwen2: q/k/v biases, RoPE halves, theta 1e6, GQA 4/2, tied head */
    c = fwd_config();
    c.bias = LLM_BIAS_QKV, c.rope_layout = LLM_ROPE_HALVES, c.rope_theta = 1e6f, c.n_kv_heads = 2, c.tied_embeddings = 1;
    check_forward(&c, 1.0f, TOL_QWEN2, "qwen2: q/k/v biases, RoPE halves, theta 1e6, GQA 4/2, tied");
    /* Qwen3: per-head RMSNorm of q and k before RoPE, head_dim 16 != d_model / n_heads */
    c = fwd_config();
    c.qk_norm = 1, c.head_dim = 16, c.rope_layout = LLM_ROPE_HALVES, c.rope_theta = 1e6f, c.n_kv_heads = 2;
    check_forward(&c, 0.02f, TOL_QWEN3, "qwen3: q/k head norms, head_dim 16, RoPE halves, GQA 4/2");
    /* Gemma: embedding times sqrt(d_model), GEGLU, MQA with head_dim 16, tied head */
    c = fwd_config();
    c.ffn = LLM_FFN_GEGLU, c.embed_scale = 5.656854f, c.n_kv_heads = 1, c.head_dim = 16;
    c.rope_layout = LLM_ROPE_HALVES, c.tied_embeddings = 1;
    check_forward(&c, 1.0f, TOL_GEMMA, "gemma: embedding x sqrt(d), GEGLU, MQA head_dim 16, tied");
    /* Gemma 2: sandwich norms, a score softcap and a final softcap small enough to bend
       these scores and logits, query scale 1/sqrt(24) (not head_dim 16's), a window of 40
       on layer 0 only (layer 1 global): 120 of the 160 positions look past it */
    c = fwd_config();
    c.ffn = LLM_FFN_GEGLU, c.embed_scale = 5.656854f, c.n_kv_heads = 2, c.head_dim = 16;
    c.rope_layout = LLM_ROPE_HALVES, c.tied_embeddings = 1, c.sandwich_norm = 1;
    c.attn_softcap = 1.5f, c.final_softcap = 8.0f, c.attn_scale = 0.20412415f;
    c.sliding_window = 40, c.window_pattern = 2;
    check_forward(&c, 1.0f, TOL_GEMMA2, "gemma2: sandwich, softcaps 1.5/8, scale 1/sqrt(24), window 40 on even layers");
    /* Phi-3: RoPE halves, MHA, a window of 100 on every layer (its fused tensors are the
       loaders' business: split into these same matrices) */
    c = fwd_config();
    c.rope_layout = LLM_ROPE_HALVES, c.sliding_window = 100;
    check_forward(&c, 0.02f, TOL_PHI3, "phi3: RoPE halves, MHA, window 100 on every layer");
}

/* ---- decoding through the cache equals a prefill ------------------------------------ */
static void check_decode_vs_prefill(const llm_config *c, const char *what) {
    rnd_model m;
    llm_state s, s2;
    int T = 12, V = c->vocab, toks[12], t, i;
    float *all = (float *)malloc(sizeof(float) * (size_t)T * V), *one = (float *)malloc(sizeof(float) * (size_t)V);
    double worst = 0, worst_chunk = 0;
    reseed();
    rnd_model_make(&m, c);
    for (t = 0; t < T; t++) toks[t] = (t * 7 + 3) % V;
    CHECK_OK(llm_state_create(&s, c, 16, T, LLM_F32));
    CHECK_OK(llm_state_create(&s2, c, 16, 5, LLM_F32)); /* prompts longer than 5 run in chunks */
    CHECK_OK(llm_forward(&s, &m.w, toks, T, 0, all, 1, NULL));
    /* the chunked prefill's last logits */
    CHECK_OK(llm_forward(&s2, &m.w, toks, T, 0, one, 0, NULL));
    for (i = 0; i < V; i++) worst_chunk = maxd(worst_chunk, fabs(one[i] - all[(size_t)(T - 1) * V + i]));
    /* token by token from position 0 (rewinding the same state) */
    for (t = 0; t < T; t++) {
        CHECK_OK(llm_forward(&s, &m.w, &toks[t], 1, t, one, 0, NULL));
        for (i = 0; i < V; i++) worst = maxd(worst, fabs(one[i] - all[(size_t)t * V + i]) / (1 + fabs(all[(size_t)t * V + i])));
    }
    if (verbose) printf("  decode vs prefill %-52s %.2g, chunked %.2g\n", what, worst, worst_chunk);
    CHECK_MSG(worst < 1.2e-5, "%s: decode vs prefill logits, worst relative diff %.3g", what, worst); /* measured 1.2e-6 */
    CHECK_MSG(worst_chunk < 8e-6, "%s: chunked vs one prefill, worst diff %.3g", what, worst_chunk); /* measured 7.9e-7 */
    /* bad arguments are status codes */
    CHECK(llm_forward(&s, &m.w, toks, 1, 15, one, 0, NULL) == LLM_ERANGE); /* a hole in the cache */
    CHECK(llm_forward(&s, &m.w, toks, 5, 14, one, 0, NULL) == LLM_EFULL);
    t = V;
    CHECK(llm_forward(&s, &m.w, &t, 1, 0, one, 0, NULL) == LLM_EINVAL);
    t = -1;
    CHECK(llm_forward(&s, &m.w, &t, 1, 0, one, 0, NULL) == LLM_EINVAL);
    CHECK(llm_forward(&s, &m.w, toks, 0, 0, one, 0, NULL) == LLM_EINVAL);
    llm_state_free(&s);
    llm_state_free(&s2);
    rnd_model_free(&m);
    free(all), free(one);
}

static void test_forward(void) {
    llm_config c = small_config();
    llm_threads *th = NULL;
    check_decode_vs_prefill(&c, "llama-style GQA, tied");
    c.tied_embeddings = 0, c.n_kv_heads = 4;
    check_decode_vs_prefill(&c, "MHA, separate head");
    c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.pos = LLM_POS_LEARNED, c.bias = LLM_BIAS_ALL;
    check_decode_vs_prefill(&c, "GPT-2 style: learned positions, LayerNorm, GELU, biases");
    /* threads give the same bits (a pool that cannot be made fails; see test_pool) */
    if ((th = test_pool(2, 5, "3-token forward")) != NULL) {
        rnd_model m;
        llm_state s;
        int toks[3] = {1, 5, 9}, i;
        float a[40], b[40];
        c = small_config();
        rnd_model_make(&m, &c);
        CHECK_OK(llm_state_create(&s, &c, 8, 3, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, 3, 0, a, 0, NULL));
        i = (int)n_allocs;
        CHECK_OK(llm_forward(&s, &m.w, toks, 3, 0, b, 0, th));
        CHECK(n_allocs == i); /* threaded calls allocate nothing either */
        CHECK(memcmp(a, b, sizeof a) == 0);
        llm_state_free(&s);
        rnd_model_free(&m);
        llm_threads_free(th);
    }
    /* f16 and int8 KV caches: the same logits within their rounding */
    {
        rnd_model m;
        llm_state s;
        int toks[8] = {1, 5, 9, 13, 2, 7, 33, 21}, i, k;
        float a[8 * 40], b[8 * 40];
        static const llm_dtype kinds[2] = {LLM_F16, LLM_INT8};
        c = small_config();
        reseed();
        rnd_model_make(&m, &c);
        CHECK_OK(llm_state_create(&s, &c, 8, 8, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, 8, 0, a, 1, NULL));
        llm_state_free(&s);
        for (k = 0; k < 2; k++) {
            double diff = 0, mx = 0;
            CHECK_OK(llm_state_create(&s, &c, 8, 8, kinds[k]));
            for (i = 0; i < 8; i++) CHECK_OK(llm_forward(&s, &m.w, &toks[i], 1, i, b + i * 40, 0, NULL));
            for (i = 0; i < 8 * 40; i++) diff = maxd(diff, fabs(a[i] - b[i])), mx = maxd(mx, fabs(a[i]));
            if (verbose) printf("  %s KV cache: logits off by %.3g of max %.3g (%.2g)\n", llm_dtype_name(kinds[k]), diff, mx, diff / mx);
            /* measured: f16 2.9e-4 of the largest logit, int8 7.7e-3 */
            CHECK_MSG(diff < (k == 0 ? 3e-3 : 0.05) * mx && diff > 0, "%s KV cache: logits off by %g (max %g)",
                      llm_dtype_name(kinds[k]), diff, mx);
            llm_state_free(&s);
        }
        rnd_model_free(&m);
    }
    /* rewinding drops the old sequence's later positions; an error partway leaves the
       cache as it was before the call */
    {
        rnd_model m;
        llm_state s;
        llm_kv_cache kv;
        int toks[10] = {1, 5, 9, 13, 2, 7, 33, 21, 4, 8}, len0;
        float lg[40], x[32], *scr;
        const void *w3;
        c = small_config();
        rnd_model_make(&m, &c);
        CHECK_OK(llm_state_create(&s, &c, 16, 10, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, 10, 0, lg, 0, NULL));
        CHECK(s.kv.len == 10);
        CHECK_OK(llm_forward(&s, &m.w, toks, 1, 2, lg, 0, NULL));
        CHECK(s.kv.len == 3);
        CHECK(llm_forward(&s, &m.w, toks, 1, 8, lg, 0, NULL) == LLM_ERANGE); /* 3..7 are stale */
        CHECK(s.kv.len == 3);
        /* layer 1 has no up-projection: layer 0 (and layer 1's K/V) were written first */
        w3 = m.lw[1].w3.data;
        m.lw[1].w3.data = NULL;
        CHECK(llm_forward(&s, &m.w, toks, 4, 3, lg, 0, NULL) != LLM_OK);
        CHECK(s.kv.len == 3);
        CHECK(llm_forward(&s, &m.w, toks, 2, 1, lg, 0, NULL) != LLM_OK); /* a rewind that fails */
        CHECK(s.kv.len == 1);
        /* llm_block_forward alone restores len on an error */
        CHECK_OK(llm_kv_cache_create(&kv, &c, 8, LLM_F32));
        scr = (float *)malloc(llm_block_scratch_bytes(&c, 1));
        test_fill(x, 32, 1.0f);
        len0 = kv.len;
        CHECK(llm_block_forward(&c, &m.lw[1], &s.rope, &kv, 1, x, 1, 0, scr, NULL) != LLM_OK);
        CHECK(kv.len == len0);
        m.lw[1].w3.data = w3;
        CHECK_OK(llm_block_forward(&c, &m.lw[1], &s.rope, &kv, 1, x, 1, 0, scr, NULL));
        CHECK(kv.len == 1);
        free(scr);
        llm_kv_cache_free(&kv);
        llm_state_free(&s);
        rnd_model_free(&m);
    }
    /* a config the forward pass cannot run */
    c = small_config();
    c.n_kv_heads = 3;
    CHECK(llm_state_bytes(&c, 8, 1, LLM_F32) == 0);
    CHECK(llm_block_scratch_bytes(&c, 1) == 0);
    /* the same validation as llm_config_check: 4 heads do not divide d_model 30 */
    c = small_config();
    c.d_model = 30;
    CHECK(llm_config_check(&c, NULL) != LLM_OK);
    CHECK(llm_state_bytes(&c, 8, 1, LLM_F32) == 0);
    CHECK(llm_block_scratch_bytes(&c, 1) == 0);
}

/* ---- sampling ----------------------------------------------------------------------- */
static void test_sampler(void) {
    /* run.c's random_u32 from seed 42, computed independently (Python, arbitrary precision) */
    static const uint32_t want[5] = {1456360119u, 3359763283u, 3393612768u, 4054632243u, 3283045847u};
    uint64_t st = 42;
    int i, counts[4] = {0, 0, 0, 0};
    float logits[4];
    llm_sampler s;
    for (i = 0; i < 5; i++) CHECK_EQ_U64(llm_xorshift_u32(&st), want[i]);
    st = 42;
    CHECK_NEAR(llm_xorshift_f32(&st), (1456360119u >> 8) / 16777216.0, 0);
    /* greedy: the first maximum */
    CHECK_OK(llm_sampler_create(&s, 4, 0.0f, 0.9f, 1));
    logits[0] = 1, logits[1] = 3, logits[2] = 3, logits[3] = -1;
    CHECK(llm_sample(&s, logits) == 1);
    llm_sampler_free(&s);
    /* multinomial at T = 1 follows the softmax */
    CHECK_OK(llm_sampler_create(&s, 4, 1.0f, 1.0f, 7));
    for (i = 0; i < 4000; i++) {
        int k;
        logits[0] = 0, logits[1] = (float)log(2.0), logits[2] = (float)log(3.0), logits[3] = -30;
        k = llm_sample(&s, logits);
        if (k >= 0 && k < 4) counts[k]++;
    }
    CHECK_MSG(abs(counts[0] - 667) < 100 && abs(counts[1] - 1333) < 120 && abs(counts[2] - 2000) < 130 && counts[3] == 0,
              "counts %d %d %d %d", counts[0], counts[1], counts[2], counts[3]);
    llm_sampler_free(&s);
    /* top-p 0.5 keeps only the most likely token when it holds more than half the mass */
    CHECK_OK(llm_sampler_create(&s, 4, 1.0f, 0.5f, 7));
    for (i = 0; i < 200; i++) {
        logits[0] = 0, logits[1] = 0.5f, logits[2] = 3, logits[3] = 0;
        if (llm_sample(&s, logits) != 2) break;
    }
    CHECK(i == 200);
    llm_sampler_free(&s);
    /* a hand-worked top-p draw: probabilities .1 .2 .3 .4 at topp .6 keep .4 and .3 (mass .7 > .6);
       r = coin * .7. Seed 42's coins are 0.339 (r = .24 < .4: token 3), then 0.782 (r = .55: token 2) */
    CHECK_OK(llm_sampler_create(&s, 4, 1.0f, 0.6f, 42));
    for (i = 0; i < 2; i++) {
        logits[0] = (float)log(0.1), logits[1] = (float)log(0.2), logits[2] = (float)log(0.3), logits[3] = (float)log(0.4);
        CHECK(llm_sample(&s, logits) == (i == 0 ? 3 : 2));
    }
    llm_sampler_free(&s);
    /* ties among top-p candidates go in index order on any libc: four equal probabilities,
       seed 42's first coin 0.339 * mass 1.0 falls in the second quarter: token 1 */
    CHECK_OK(llm_sampler_create(&s, 4, 1.0f, 0.9f, 42));
    logits[0] = logits[1] = logits[2] = logits[3] = 0.5f;
    CHECK(llm_sample(&s, logits) == 1);
    /* a freed sampler is empty: sampling with it is -1, not a NULL scratch dereference */
    llm_sampler_free(&s);
    CHECK(s.vocab == 0 && s.scratch == NULL);
    logits[0] = 0, logits[1] = 1, logits[2] = 2, logits[3] = 3;
    CHECK(llm_sample(&s, logits) == -1);
    /* greedy skips NaN like llm_argmax */
    CHECK_OK(llm_sampler_create(&s, 4, 0.0f, 0.9f, 1));
    logits[0] = (float)nan(""), logits[1] = 1, logits[2] = 3, logits[3] = 2;
    CHECK(llm_sample(&s, logits) == 2);
    llm_sampler_free(&s);
    /* init checks the memory's size */
    {
        float mem[64];
        CHECK(llm_sampler_init(&s, mem, llm_sampler_bytes(4) - 1, 4, 1, 1, 1) == LLM_EINVAL);
        CHECK_OK(llm_sampler_init(&s, mem, sizeof mem, 4, 1, 1, 1));
        CHECK(llm_sampler_init(&s, mem, sizeof mem, 0, 1, 1, 1) == LLM_EINVAL);
    }
    CHECK(llm_sampler_init(&s, NULL, 64, 4, 1, 1, 1) == LLM_EINVAL);
    CHECK(llm_sample(NULL, logits) == -1);
    /* seed 0 "picks one": the draws of LLM_SAMPLER_SEED0, not those of xorshift's stuck
       state 0 (every coin 0: always the first token) */
    {
        float m0[64], m1[64];
        llm_sampler s1;
        int same = 1, nonzero = 0, k0, k1;
        CHECK_OK(llm_sampler_init(&s, m0, sizeof m0, 4, 1, 1, 0));
        CHECK_OK(llm_sampler_init(&s1, m1, sizeof m1, 4, 1, 1, LLM_SAMPLER_SEED0));
        for (i = 0; i < 20; i++) {
            logits[0] = logits[1] = logits[2] = logits[3] = 0.5f;
            k0 = llm_sample(&s, logits);
            logits[0] = logits[1] = logits[2] = logits[3] = 0.5f;
            k1 = llm_sample(&s1, logits);
            same &= k0 == k1;
            nonzero += k0 > 0;
        }
        CHECK(same && nonzero > 0);
    }
}

/* ---- sampling against probabilities and draws worked out in the test ------------------ */
/* softmax(l / T) in double */
static void ref_softmax(double *p, const float *l, int n, double T) {
    double mx = -1e300, sum = 0;
    int i;
    for (i = 0; i < n; i++) mx = maxd(mx, l[i] / T);
    for (i = 0; i < n; i++) sum += (p[i] = exp(l[i] / T - mx));
    for (i = 0; i < n; i++) p[i] /= sum;
}
/* run.c's draw from probabilities p, in double: multinomial (topp outside (0, 1)) is the
   first index whose cumulative probability exceeds the coin; top-p keeps the fewest most
   likely tokens (ties in index order) whose mass EXCEEDS topp and compares coin * mass
   with their running sum. *rank: the drawn token's place in that order, *kept: how many
   were kept. *margin: the coin's (or the mass's) distance from the nearest boundary it was
   compared with; a draw that close may go either way in float and is not compared. A mass
   exactly equal to topp (binary fractions: exact in float too) is not a near miss. */
static int ref_draw(const double *p, int n, double topp, float coin, int *rank, int *kept, double *margin) {
    int idx[64], i, j, last = n - 1;
    double cum = 0, r, cdf = 0;
    *margin = 1, *rank = 0, *kept = n;
    if (topp <= 0 || topp >= 1) {
        for (i = 0; i < n; i++) {
            cdf += p[i];
            *margin = fabs(coin - cdf) < *margin ? fabs(coin - cdf) : *margin;
            if (coin < cdf) return *rank = i;
        }
        return *rank = n - 1;
    }
    for (i = 0; i < n; i++) { /* insertion sort, descending, stable */
        for (j = i; j > 0 && p[idx[j - 1]] < p[i]; j--) idx[j] = idx[j - 1];
        idx[j] = i;
    }
    for (i = 0; i < n; i++) {
        cum += p[idx[i]];
        if (cum != topp && fabs(cum - topp) < *margin) *margin = fabs(cum - topp);
        if (cum > topp) {
            last = i;
            break;
        }
    }
    *kept = last + 1;
    r = coin * cum;
    for (i = 0; i <= last; i++) {
        cdf += p[idx[i]];
        if (fabs(r - cdf) < *margin) *margin = fabs(r - cdf);
        if (r < cdf) break;
    }
    *rank = i <= last ? i : last;
    return idx[*rank];
}
/* Seeds 1..n_seeds through llm_sample against ref_draw. Returns how many seeds were
   compared; *bad counts disagreements, *at_last the draws of the last kept token (top-p:
   the draws a sampler that keeps one token too few gets wrong) or of any token but the
   first (multinomial). */
static int seeded_draws(llm_sampler *s, const float *logits, int n, int n_seeds, int *bad, int *at_last) {
    double p[64], mg;
    float buf[64];
    int seed, compared = 0, rank, kept, want;
    ref_softmax(p, logits, n, s->temperature);
    *bad = 0, *at_last = 0;
    for (seed = 1; seed <= n_seeds; seed++) {
        uint64_t st = (uint64_t)seed;
        float coin = llm_xorshift_f32(&st);
        want = ref_draw(p, n, s->topp, coin, &rank, &kept, &mg);
        if (mg < 1e-5) continue;
        memcpy(buf, logits, sizeof(float) * (size_t)n);
        s->rng = (uint64_t)seed;
        compared++;
        if (llm_sample(s, buf) != want) (*bad)++;
        if (s->topp > 0 && s->topp < 1 ? rank == kept - 1 : rank > 0) (*at_last)++;
    }
    if (verbose) printf("  sampler T %g topp %g, %d logits: %d of %d seeds compared, %d at the edge, %d differ\n",
                        s->temperature, s->topp, n, compared, n_seeds, *at_last, *bad);
    return compared;
}

static void test_sampler_reference(void) {
    static const float base[8] = {1.5f, -0.3f, 0.8f, 2.1f, -1.2f, 0.4f, 2.0f, -3.0f};
    static const float temps[2] = {0.5f, 2.0f};
    static const float topps[3] = {1.0f, 0.9f, 0.6f};
    float lg[20], buf[20];
    double p[20];
    llm_sampler s;
    int k, j, i, bad, at_last, n;
    /* temperatures 0.5 and 2: the probabilities llm_sample leaves in logits[] are
       softmax(logits / T), in the multinomial and the top-p path; seeded draws agree */
    for (k = 0; k < 2; k++)
        for (j = 0; j < 3; j++) {
            double worst = 0;
            CHECK_OK(llm_sampler_create(&s, 8, temps[k], topps[j], 1));
            ref_softmax(p, base, 8, temps[k]);
            memcpy(buf, base, sizeof base);
            CHECK(llm_sample(&s, buf) >= 0);
            for (i = 0; i < 8; i++) worst = maxd(worst, fabs(buf[i] - p[i]));
            if (verbose) printf("  sampler T %g topp %g: probabilities off by %.2g\n", temps[k], topps[j], worst);
            CHECK_MSG(worst <= 2e-7, "T %g topp %g: probabilities off by %.3g", temps[k], topps[j], worst); /* measured 1.6e-8 */
            n = seeded_draws(&s, base, 8, 64, &bad, &at_last);
            CHECK_MSG(n >= 60 && bad == 0 && at_last > 0, "T %g topp %g: %d of %d seeded draws differ (%d at the edge)",
                      temps[k], topps[j], bad, n, at_last);
            llm_sampler_free(&s);
        }
    /* top-p on 20 random logits at T 0.8 */
    reseed();
    test_fill(lg, 20, 2.0f);
    for (j = 0; j < 3; j++) {
        CHECK_OK(llm_sampler_create(&s, 20, 0.8f, topps[j] - 0.05f, 1));
        n = seeded_draws(&s, lg, 20, 100, &bad, &at_last);
        CHECK_MSG(n >= 90 && bad == 0 && at_last > 0, "20 logits, topp %g: %d of %d seeded draws differ (%d at the edge)",
                  topps[j] - 0.05f, bad, n, at_last);
        llm_sampler_free(&s);
    }
    /* the boundary: four tied tokens (1, 2, 5, 6) of probability exactly 1/4, the rest 0
       (exp(-200) underflows); mass exactly equal to topp 0.25, 0.5, 0.75 does not exceed
       it, so one more token is kept: 2, 3, 4 of them, the lowest indices first */
    for (i = 0; i < 8; i++) lg[i] = i == 1 || i == 2 || i == 5 || i == 6 ? 0.7f : -200.0f;
    for (j = 1; j <= 3; j++) {
        int seen[8] = {0}, n_seen = 0;
        CHECK_OK(llm_sampler_create(&s, 8, 1.0f, 0.25f * (float)j, 1));
        n = seeded_draws(&s, lg, 8, 40, &bad, &at_last);
        CHECK_MSG(n >= 36 && bad == 0 && at_last > 0, "tied 1/4s, topp %g: %d of %d seeded draws differ (%d at the edge)",
                  0.25 * j, bad, n, at_last);
        for (i = 1; i <= 40; i++) {
            int t;
            memcpy(buf, lg, 8 * sizeof(float));
            s.rng = (uint64_t)i;
            t = llm_sample(&s, buf);
            if (t >= 0 && t < 8 && !seen[t]++) n_seen++;
        }
        CHECK_MSG(n_seen == j + 1 && seen[j == 1 ? 2 : j == 2 ? 5 : 6] > 0, "tied 1/4s, topp %g: %d tokens drawn",
                  0.25 * j, n_seen);
        llm_sampler_free(&s);
    }
}

/* ---- stories260K: llama2.c's run.c, token for token --------------------------------- */
static void test_stories(void) {
    char path[512], tpath[512], ipath[512], xpath[512];
    llm_model m;
    llm_tokenizer tok;
    llm_state s;
    llm_sampler greedy;
    const char *why;
    int want[300], n_want = 0, ids[300], n_ids = 0, n_prompt, pos, token, mismatch = -1, i;
    long allocs;
    char *text = (char *)malloc(1 << 16), *expect = (char *)malloc(1 << 16);
    size_t tl = 0, el;
    float *logits, *all;
    FILE *f;
    sprintf(path, "%s/stories260K.bin", test_models_dir());
    sprintf(tpath, "%s/synth512.bin", test_models_dir());
    sprintf(ipath, "%s/stories260K.prompt.ids", test_models_dir());
    sprintf(xpath, "%s/stories260K.prompt.txt", test_models_dir());
    if (!(f = fopen(path, "rb")) || (fclose(f), !(f = fopen(tpath, "rb")))) {
        TEST_SKIP_SHARED(268, "stories260K golden test: %s or synth512.bin absent", path);
        free(text), free(expect);
        return;
    }
    fclose(f);
    CHECK_OK(llm_llama2c_load_file(&m, path, &why));
    CHECK_OK(llm_tokenizer_load_file(&tok, tpath, m.config.vocab, &why));
    f = fopen(ipath, "r");
    while (f && n_want < 300 && fscanf(f, "%d", &want[n_want]) == 1) n_want++;
    if (f) fclose(f);
    f = fopen(xpath, "rb");
    el = f ? fread(expect, 1, (1 << 16) - 1, f) : 0;
    if (f) fclose(f);
    CHECK(n_want == 257);
    /* run.c: encode with BOS, force the prompt, then argmax; print each piece run.c's way */
    CHECK_OK(llm_tokenize(&tok, "Once upon a time", 1, 0, ids, 300, &n_prompt));
    CHECK(n_prompt == 12);
    CHECK_OK(llm_state_create(&s, &m.config, 256, 256, LLM_F32));
    CHECK_OK(llm_sampler_create(&greedy, m.config.vocab, 0.0f, 0.9f, 1));
    logits = (float *)malloc(sizeof(float) * (size_t)m.config.vocab * 256);
    all = logits;
    token = ids[0];
    n_ids = 1;
    allocs = n_allocs;
    for (pos = 0; pos < 256; pos++) {
        int next, len;
        const char *piece;
        CHECK_OK(llm_forward(&s, &m.weights, &token, 1, pos, logits, 0, NULL));
        next = pos < n_prompt - 1 ? ids[pos + 1] : llm_sample(&greedy, logits);
        if (next == 1) break;
        ids[n_ids++] = next;
        piece = llm_token_piece(&tok, token, next, &len);
        if (llm_piece_printable(piece, len) && tl + (size_t)len < (1 << 16)) memcpy(text + tl, piece, (size_t)len), tl += (size_t)len;
        token = next;
    }
    text[tl++] = '\n';
    CHECK_MSG(n_allocs == allocs, "the token loop allocated %ld times", n_allocs - allocs);
    for (i = 0; i < n_want; i++)
        if (i >= n_ids || ids[i] != want[i]) {
            mismatch = i;
            break;
        }
    CHECK_MSG(n_ids == n_want && mismatch < 0, "stories260K: %d ids, first mismatch at %d", n_ids, mismatch);
    CHECK_MSG(tl == el && memcmp(text, expect, tl) == 0, "stories260K: printed text differs from run.c's");
    /* one prefill over all 256 positions: every greedy choice after the prompt agrees */
    CHECK_OK(llm_forward(&s, &m.weights, want, 256, 0, all, 1, NULL));
    mismatch = -1;
    for (i = n_prompt - 1; i < 256; i++)
        if (llm_argmax(all + (size_t)i * m.config.vocab, m.config.vocab) != want[i + 1]) {
            mismatch = i;
            break;
        }
    CHECK_MSG(mismatch < 0, "stories260K prefill: argmax differs at position %d", mismatch);
    llm_state_free(&s);
    llm_sampler_free(&greedy);
    llm_tokenizer_free(&tok);
    llm_model_free(&m);
    free(logits), free(text), free(expect);
}

/* Every public function of the section with NULL or nonsense: a status code, no crash. */
static void test_bad_arguments(void) {
    llm_config c = small_config();
    llm_state s;
    llm_sampler smp;
    llm_model m;
    llm_tokenizer tok;
    llm_layer_weights lw;
    llm_kv_cache kv;
    float x[64], logits[40];
    char buf[16];
    int tokv = 1, n;
    size_t ol;
    const char *why = NULL;
    memset(&lw, 0, sizeof lw);
    memset(&tok, 0, sizeof tok);
    CHECK(llm_block_scratch_bytes(NULL, 1) == 0 && llm_block_scratch_bytes(&c, 0) == 0);
    CHECK(llm_state_bytes(NULL, 8, 1, LLM_F32) == 0 && llm_state_bytes(&c, 0, 1, LLM_F32) == 0);
    CHECK(llm_state_bytes(&c, 8, 0, LLM_F32) == 0 && llm_state_bytes(&c, -8, 1, LLM_F32) == 0);
    CHECK(llm_state_create(&s, &c, 0, 1, LLM_F32) == LLM_EINVAL);
    CHECK(llm_state_create(NULL, &c, 8, 1, LLM_F32) == LLM_EINVAL);
    CHECK(llm_state_init(&s, x, 16, &c, 8, 1, LLM_F32) == LLM_EINVAL); /* too small */
    /* a failed init leaves the state empty, not pointing at memory of an earlier one */
    CHECK_OK(llm_state_create(&s, &c, 8, 1, LLM_F32));
    {
        void *own = s.owned;
        CHECK(llm_state_init(&s, x, 16, &c, 8, 1, LLM_F32) == LLM_EINVAL);
        CHECK(s.x == NULL && s.scratch == NULL && s.kv.k == NULL && s.capacity == 0 && s.owned == NULL);
        free(own);
    }
    CHECK(llm_forward(NULL, NULL, &tokv, 1, 0, logits, 0, NULL) == LLM_EINVAL);
    CHECK_OK(llm_kv_cache_create(&kv, &c, 8, LLM_F32));
    CHECK(llm_block_forward(&c, NULL, NULL, &kv, 0, x, 1, 0, x, NULL) == LLM_EINVAL);
    CHECK(llm_block_forward(&c, &lw, NULL, &kv, 0, x, 1, 0, x, NULL) == LLM_EINVAL); /* RoPE needs a table */
    CHECK(llm_block_forward(&c, &lw, NULL, &kv, 7, x, 1, 0, x, NULL) == LLM_EINVAL); /* no such layer */
    CHECK(llm_block_forward(&c, &lw, NULL, &kv, 0, x, 1, -1, x, NULL) == LLM_EINVAL);
    CHECK(llm_block_forward(NULL, &lw, NULL, &kv, 0, x, 1, 0, x, NULL) == LLM_EINVAL);
    c.pos = LLM_POS_NONE;
    CHECK(llm_block_forward(&c, &lw, NULL, &kv, 0, x, 1, 9, x, NULL) == LLM_EFULL);
    CHECK(llm_block_forward(&c, &lw, NULL, &kv, 0, x, 1, 3, x, NULL) == LLM_ERANGE); /* a hole */
    CHECK(llm_block_forward(&c, &lw, NULL, &kv, 0, x, 1, 0, x, NULL) != LLM_OK);     /* no weights */
    llm_kv_cache_free(&kv);
    CHECK(llm_decode_bytes(NULL, NULL, LLM_F32, 0) == 0);
    CHECK(llm_sampler_bytes(0) == 0 && llm_sampler_bytes(-1) == 0);
    CHECK(llm_sampler_create(&smp, 0, 1, 1, 1) == LLM_EINVAL);
    CHECK(llm_sampler_create(&smp, 4, -1, 1, 1) == LLM_EINVAL);
    CHECK(llm_llama2c_load(NULL, x, sizeof x, &lw, 1, &why) == LLM_EINVAL && why && *why);
    CHECK(llm_llama2c_load(&m, x, 0, &lw, 1, &why) == LLM_EFORMAT);
    CHECK(llm_llama2c_read_config(NULL, &n, x, sizeof x, &why) == LLM_EINVAL);
    CHECK(llm_llama2c_load_file(&m, NULL, &why) == LLM_EINVAL);
    CHECK(llm_tokenizer_bytes(0, 100) == 0);
    CHECK(llm_tokenizer_create(&tok, NULL, 10, 512, &why) == LLM_EINVAL);
    CHECK(llm_tokenizer_load_file(&tok, "no/such/tokenizer.bin", 512, &why) == LLM_EIO);
    CHECK(llm_tokenize(&tok, "hi", 1, 0, &tokv, 1, &n) == LLM_EINVAL); /* empty tokenizer */
    CHECK(llm_tokenize(NULL, "hi", 1, 0, &tokv, 1, &n) == LLM_EINVAL);
    CHECK(llm_token_piece(&tok, 1, 0, &n) == NULL && llm_token_piece(NULL, 1, 0, &n) == NULL);
    CHECK(llm_detokenize(&tok, 1, &tokv, 1, buf, sizeof buf, &ol) == LLM_EINVAL);
    CHECK(llm_piece_printable(NULL, 3) == 0);
    llm_model_free(NULL), llm_state_free(NULL), llm_sampler_free(NULL), llm_tokenizer_free(NULL);
}

int main(void) {
    const char *v = getenv("LLM_TEST_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    test_bad_arguments();
    test_blocks();
    test_forward_families();
    test_forward();
    test_sampler();
    test_sampler_reference();
    test_stories();
    return test_done();
}
