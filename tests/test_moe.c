/* Mixture of experts (>>model's llm__moe_ffn, >>config's checks, >>estimate's counts,
   >>files' expert tensors): llm_forward against the double reference (tests/ref_model.h's
   ref_moe: softmax router, top-k, renormalized or not, shared experts with their sigmoid
   gate) for a Mixtral-style, a Qwen2-MoE-style and a Qwen3-MoE-style model written as GGUF
   files by the test (F32, and Q8_0 experts); ties go to the lower expert; top-k = every
   expert; decode equals prefill; thread counts give the same bits; the published
   parameter counts; and hostile files refused naming the tensor or key. The same models
   as Hugging Face directories (tests/st_writer.h: each expert its own tensor, in any
   order): the GGUF's logits, llm_hf_load_dir, llm_hf_shapes_dir's counts, and hostile
   directories (an expert missing, of the wrong shape or type; keys not run). */
#define _POSIX_C_SOURCE 200809L /* mkdir, getpid: the directories llm_hf_load_dir reads */
#include "llm.h"
#include "test.h"
#include "gguf_writer.h"
#include "st_writer.h"
#include "ref_model.h"
#include "filecheck.h"
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#define T 160 /* tokens of the prefill (>= 150: many tokens per expert) */

static llm_config moe_config(const char *arch) {
    llm_config c = llm_config_default();
    c.name = arch;
    c.d_model = 64, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 96, c.vocab = 96, c.max_seq_len = 256;
    c.norm_eps = 1e-5f, c.rope_theta = 10000.0f;
    c.n_experts = 8, c.n_experts_per_tok = 2;
    if (!strcmp(arch, "qwen2moe")) { /* QKV biases, halves, 3 of 8 not renormalized, one gated shared expert */
        c.d_ff = 32, c.bias = LLM_BIAS_QKV, c.rope_layout = LLM_ROPE_HALVES, c.norm_eps = 1e-6f, c.rope_theta = 1e6f;
        c.n_experts_per_tok = 3, c.router = LLM_ROUTER_TOPK;
        c.n_shared_experts = 1, c.d_ff_shared = 64, c.shared_gate = 1;
    } else if (!strcmp(arch, "qwen3moe")) { /* q/k head norms, halves, renormalized */
        c.d_ff = 32, c.qk_norm = 1, c.rope_layout = LLM_ROPE_HALVES, c.norm_eps = 1e-6f, c.rope_theta = 1e6f;
    }
    return c;
}

/* Q8_0 (ggml's block_q8_0: an fp16 scale, 32 int8) of x[n], n a multiple of 32, into q;
   x is replaced by what the blocks hold, so the reference uses the file's exact weights. */
static void q8_0_blocks(unsigned char *q, float *x, size_t n) {
    size_t b, j;
    for (b = 0; b < n / 32; b++) {
        float amax = 0, *v = x + 32 * b, dq;
        uint16_t h;
        for (j = 0; j < 32; j++) amax = fabsf(v[j]) > amax ? fabsf(v[j]) : amax;
        h = llm_f32_to_f16(amax / 127.0f);
        dq = llm_f16_to_f32(h);
        q[34 * b] = (unsigned char)h, q[34 * b + 1] = (unsigned char)(h >> 8);
        for (j = 0; j < 32; j++) {
            int k = dq > 0 ? (int)lrintf(v[j] / dq) : 0;
            k = k > 127 ? 127 : k < -127 ? -127 : k;
            q[34 * b + 2 + j] = (unsigned char)(signed char)k;
            v[j] = dq * (float)k;
        }
    }
}

/* The model m as a GGUF of architecture arch ("llama" for Mixtral): experts as 3-D
   ffn_*_exps tensors of type xt (GW_F32, GW_BF16, or GW_Q8_0: m's experts are then
   replaced by the values the blocks hold), the other matrices of type mt (GW_F32 or
   GW_BF16), vectors F32. */
typedef struct moe_file {
    gw w;
    gw_names nm;
    unsigned char *q[16]; /* Q8_0 copies */
    int nq;
} moe_file;
static void moe_write(moe_file *f, const char *arch, rnd_model *m, uint32_t xt, uint32_t mt, int no_count) {
    const llm_config *c = &m->c;
    gw *w = &f->w;
    uint64_t d = (uint64_t)c->d_model, ff = (uint64_t)c->d_ff, hd = (uint64_t)hdim(c), E = (uint64_t)c->n_experts;
    uint64_t q = hd * (uint64_t)c->n_heads, kv = hd * (uint64_t)c->n_kv_heads, ne[3];
    uint64_t S = (uint64_t)(c->n_shared_experts * (c->d_ff_shared ? c->d_ff_shared : c->d_ff));
    int l, k = 0;
    char key[96];
    const char *name;
    memset(f, 0, sizeof *f);
#define AK(s) (snprintf(key, sizeof key, "%s.%s", arch, s), key)
#define AN(...) (snprintf(f->nm.s[k], sizeof f->nm.s[k], __VA_ARGS__), f->nm.s[k++])
#define AV(n0, x) (ne[0] = (n0), gw_tensor_f(w, name, 1, ne, GW_F32, x))
#define AM(n0, n1, x) (ne[0] = (n0), ne[1] = (n1), gw_tensor_f(w, name, 2, ne, mt, x))
    gw_init(w);
    gw_kv_str(w, "general.architecture", arch);
    gw_kv_u32(w, AK("context_length"), (uint32_t)c->max_seq_len);
    gw_kv_u32(w, AK("embedding_length"), (uint32_t)d);
    /* qwen*moe: feed_forward_length is a dense FFN's (unused); the experts' width has its key */
    gw_kv_u32(w, AK("feed_forward_length"), (uint32_t)(strcmp(arch, "llama") ? 3 * ff : ff));
    if (strcmp(arch, "llama")) gw_kv_u32(w, AK("expert_feed_forward_length"), (uint32_t)ff);
    if (c->n_shared_experts) gw_kv_u32(w, AK("expert_shared_feed_forward_length"), (uint32_t)S);
    if (!no_count) gw_kv_u32(w, AK("expert_count"), (uint32_t)E);
    gw_kv_u32(w, AK("expert_used_count"), (uint32_t)c->n_experts_per_tok);
    gw_kv_u32(w, AK("block_count"), (uint32_t)c->n_layers);
    gw_kv_u32(w, AK("attention.head_count"), (uint32_t)c->n_heads);
    gw_kv_u32(w, AK("attention.head_count_kv"), (uint32_t)c->n_kv_heads);
    gw_kv_f32(w, AK("attention.layer_norm_rms_epsilon"), c->norm_eps);
    gw_kv_f32(w, AK("rope.freq_base"), c->rope_theta);
    name = AN("token_embd.weight"), AM(d, (uint64_t)c->vocab, m->emb);
    name = AN("output_norm.weight"), AV(d, m->onorm);
    name = AN("output.weight"), AM(d, (uint64_t)c->vocab, m->head);
    for (l = 0; l < c->n_layers; l++) {
        rnd_layer *L0 = &m->l[l];
        float *stk[3];
        static const char *const exps[3] = {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"};
        int x;
        name = AN("blk.%d.attn_norm.weight", l), AV(d, L0->an);
        name = AN("blk.%d.attn_q.weight", l), AM(d, q, L0->wq);
        name = AN("blk.%d.attn_k.weight", l), AM(d, kv, L0->wk);
        name = AN("blk.%d.attn_v.weight", l), AM(d, kv, L0->wv);
        if (c->bias == LLM_BIAS_QKV) {
            name = AN("blk.%d.attn_q.bias", l), AV(q, L0->bq);
            name = AN("blk.%d.attn_k.bias", l), AV(kv, L0->bk);
            name = AN("blk.%d.attn_v.bias", l), AV(kv, L0->bv);
        }
        if (c->qk_norm) {
            name = AN("blk.%d.attn_q_norm.weight", l), AV(hd, L0->qn);
            name = AN("blk.%d.attn_k_norm.weight", l), AV(hd, L0->kn);
        }
        name = AN("blk.%d.attn_output.weight", l), AM(q, d, L0->wo);
        name = AN("blk.%d.ffn_norm.weight", l), AV(d, L0->fn);
        name = AN("blk.%d.ffn_gate_inp.weight", l), AM(d, E, L0->router);
        stk[0] = L0->w1, stk[1] = L0->w3, stk[2] = L0->w2;
        for (x = 0; x < 3; x++) {
            uint64_t n = E * ff * d;
            name = AN("blk.%d.%s.weight", l, exps[x]);
            ne[0] = x == 2 ? ff : d, ne[1] = x == 2 ? d : ff, ne[2] = E;
            if (xt != GW_Q8_0) {
                gw_tensor_f(w, name, 3, ne, xt, stk[x]);
            } else {
                unsigned char *b = (unsigned char *)malloc((size_t)(n / 32 * 34));
                q8_0_blocks(b, stk[x], (size_t)n);
                f->q[f->nq++] = b;
                gw_tensor_add(w, name, 3, ne, GW_Q8_0, b, (size_t)(n / 32 * 34));
            }
        }
        if (S) {
            name = AN("blk.%d.ffn_gate_shexp.weight", l), AM(d, S, L0->ws1);
            name = AN("blk.%d.ffn_up_shexp.weight", l), AM(d, S, L0->ws3);
            name = AN("blk.%d.ffn_down_shexp.weight", l), AM(S, d, L0->ws2);
            name = AN("blk.%d.ffn_gate_inp_shexp.weight", l), AV(d, L0->wsg);
        }
    }
#undef AK
#undef AN
#undef AV
#undef AM
}
static void moe_file_free(moe_file *f) {
    int i;
    for (i = 0; i < f->nq; i++) free(f->q[i]);
    gw_free(&f->w);
}

/* gw_finish, then llm_gguf_create + llm_gguf_load from an exactly sized copy (*buf) */
static llm_status moe_load(gw *w, llm_model *m, llm_layer_weights *layers, unsigned char **buf, llm_gguf *g, const char **why) {
    llm_status st;
    gw_finish(w);
    *buf = (unsigned char *)malloc(w->n);
    memcpy(*buf, w->p, w->n);
    *why = NULL;
    memset(g, 0, sizeof *g);
    st = llm_gguf_create(g, *buf, w->n, why);
    if (st != LLM_OK) return st;
    return llm_gguf_load(m, g, layers, 4, why);
}

/* worst |a - r| / (1 + |r|) */
static double rel_err(const float *a, const double *r, size_t n) {
    double e = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = fabs(a[i] - r[i]) / (1 + fabs(r[i]));
        if (!(x <= e)) e = x;
    }
    return e;
}

/* sqrt(sum (a - r)^2 / sum r^2) */
static double rel_rms(const float *a, const double *r, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) num += (a[i] - r[i]) * (a[i] - r[i]), den += r[i] * r[i];
    return sqrt(num / (den > 0 ? den : 1));
}

static double rel_rms_f(const float *a, const float *r, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) num += ((double)a[i] - r[i]) * ((double)a[i] - r[i]), den += (double)r[i] * r[i];
    return sqrt(num / (den > 0 ? den : 1));
}

/* One architecture end to end: the file's config, its logits against the reference and
   against the same arrays given directly, decode == prefill, 1 thread == 2 threads. */
static void test_arch(const char *arch, int q8, double tol, double dtol) {
    llm_config c = moe_config(arch);
    rnd_model m;
    moe_file f;
    llm_layer_weights layers[4];
    llm_model lm;
    llm_gguf g;
    llm_state s;
    unsigned char *buf;
    const char *why, *tn = q8 ? "Q8_0" : "F32";
    int toks[T], t;
    size_t n = (size_t)T * (size_t)c.vocab;
    float *got = (float *)malloc(n * sizeof *got), *dec = (float *)malloc(n * sizeof *dec);
    double *ref = (double *)malloc(n * sizeof *ref), e;
    llm_status st;
    /* Q8_0 experts quantize their activations too (about 0.4 %): a second layer's router
       would see that and, at 160 tokens, some decision would flip; one layer routes the
       F32 attention output, so its decisions are the reference's */
    if (q8) c.n_layers = 1;
    test__rng = 0x5eed0000ull + (unsigned long long)c.n_experts_per_tok * 7 + (unsigned long long)q8;
    rnd_model_make(&m, &c);
    for (t = 0; t < T; t++) toks[t] = (t * 37 + 11) % c.vocab;
    moe_write(&f, strcmp(arch, "mixtral") ? arch : "llama", &m, q8 ? GW_Q8_0 : GW_F32, GW_F32, 0); /* q8: m now holds the dequantized experts */
    st = moe_load(&f.w, &lm, layers, &buf, &g, &why);
    CHECK_MSG(fc_load_is(st, &why, LLM_OK), "%s %s: llm_gguf_load: %s: %s", arch, tn, llm_status_str(st), why ? why : "");
    if (st == LLM_OK) {
        const llm_config *k = &lm.config;
        llm_threads *th;
        CHECK_MSG(k->n_experts == c.n_experts && k->n_experts_per_tok == c.n_experts_per_tok && k->d_ff == c.d_ff &&
                      k->router == c.router && k->n_shared_experts == c.n_shared_experts && k->d_ff_shared == c.d_ff_shared &&
                      k->shared_gate == c.shared_gate && k->bias == c.bias && k->qk_norm == c.qk_norm &&
                      k->rope_layout == c.rope_layout,
                  "%s: the config read differs from the file's", arch);
        CHECK(layers[c.n_layers - 1].w1.type == (q8 ? LLM_Q8_0 : LLM_F32) && layers[0].router.type == LLM_F32);
        ref_moe_gap = 1e300;
        ref_forward(&m, toks, T, ref);
        /* the closest routing call of the random weights: far from a tie (float logits err ~1e-6) */
        CHECK_MSG(ref_moe_gap > 1e-3, "%s: a routing decision within %.2g of a tie: pick other weights", arch, ref_moe_gap);
        CHECK_OK(llm_state_create(&s, &lm.config, T, T, LLM_F32));
        CHECK_OK(llm_forward(&s, &lm.weights, toks, T, 0, got, 1, NULL));
        /* F32: the worst relative error; Q8_0: the relative RMS error, as the quantized-file
           tests measure it (8-bit activations make the worst single logit noisy) */
        e = q8 ? rel_rms(got, ref, n) : rel_err(got, ref, n);
        CHECK_MSG(e < tol, "%s %s: logits vs the double reference: %.3g (tolerance %.3g)", arch, tn, e, tol);
        printf("    %s %s experts: prefill of %d vs double reference %.2e %s (min router gap %.3f)\n", arch, tn, T, e,
               q8 ? "relative RMS" : "worst", ref_moe_gap);
        /* decode, one token at a time through the cache, gives the prefill's logits */
        for (t = 0; t < T; t++) CHECK_OK(llm_forward(&s, &lm.weights, &toks[t], 1, t, dec + (size_t)t * c.vocab, 0, NULL));
        /* Q8_0: as relative RMS too, since a last-bit difference of h between the two paths
           can flip one 8-bit activation's rounding (scalar build: one token of 160 moved 1.2e-2) */
        e = q8 ? rel_rms_f(dec, got, n) : 0;
        for (t = 0; !q8 && t < (int)n; t++) e = fabs(dec[t] - got[t]) / (1 + fabs(got[t])) > e ? fabs(dec[t] - got[t]) / (1 + fabs(got[t])) : e;
        CHECK_MSG(e < dtol, "%s %s: decode vs prefill %.3g (tolerance %.3g)", arch, tn, e, dtol);
        printf("    %s %s experts: decode vs prefill %.2e\n", arch, tn, e);
        /* two threads: the same bits (every expert's group and each token's mix in one order) */
        th = test_pool(2, 1, "moe threads");
        if (th) {
            CHECK_OK(llm_forward(&s, &lm.weights, toks, T, 0, dec, 1, th));
            CHECK_MSG(memcmp(dec, got, n * sizeof *got) == 0, "%s %s: 2 threads differ from 1", arch, tn);
            llm_threads_free(th);
        }
        llm_state_free(&s);
        /* the arrays given directly (F32 experts): the file's numbers, loaded in place */
        if (!q8) {
            CHECK_OK(llm_state_create(&s, &c, T, T, LLM_F32));
            CHECK_OK(llm_forward(&s, &m.w, toks, T, 0, dec, 1, NULL));
            CHECK_MSG(memcmp(dec, got, n * sizeof *got) == 0, "%s: the loaded model differs from its arrays", arch);
            llm_state_free(&s);
        }
        /* decode reads the router, k experts and the shared ones: a layer's bytes by hand */
        {
            double d = c.d_model, ff = c.d_ff, S = (double)c.n_shared_experts * (c.d_ff_shared ? c.d_ff_shared : c.d_ff);
            double per = 3 * ff * d * (q8 ? 34.0 / 32 : 4.0), all, dense;
            llm_config dc = c;
            llm_weights dw = lm.weights;
            llm_layer_weights dl[2];
            int l;
            all = llm_decode_bytes(&c, &lm.weights, LLM_F32, 0);
            /* the same model as a dense one (w1..w3 its first expert): the difference is the MoE's */
            dc.n_experts = dc.n_experts_per_tok = dc.n_shared_experts = dc.d_ff_shared = dc.shared_gate = 0;
            dc.router = LLM_ROUTER_TOPK_NORM;
            for (l = 0; l < c.n_layers; l++) {
                dl[l] = layers[l];
                memset(&dl[l].router, 0, sizeof dl[l].router);
                memset(&dl[l].ws1, 0, sizeof dl[l].ws1), memset(&dl[l].ws2, 0, sizeof dl[l].ws2), memset(&dl[l].ws3, 0, sizeof dl[l].ws3);
                dl[l].ws_gate = NULL;
            }
            dw.layers = dl;
            dense = llm_decode_bytes(&dc, &dw, LLM_F32, 0);
            CHECK_MSG(all - dense == c.n_layers * ((c.n_experts_per_tok - 1) * per + 4 * d * c.n_experts + 3 * S * d * 4 + (c.shared_gate ? 4 * d : 0)),
                      "%s %s: llm_decode_bytes %.0f vs dense %.0f", arch, tn, all, dense);
        }
    }
    llm_gguf_free(&g);
    if (buf) free(buf);
    moe_file_free(&f);
    rnd_model_free(&m);
    free(got), free(dec), free(ref);
}

/* Every llm_weight format for the stacked experts, given in memory: F16 and BF16 (2
   layers) and LLM_INT8 groups of 32 with their separate scales (one layer: 8-bit
   activations, as Q8_0 above), the arrays replaced by the values the formats hold. */
static void test_formats(void) {
    static const llm_dtype types[3] = {LLM_F16, LLM_BF16, LLM_INT8};
    static const char *const names[3] = {"f16", "bf16", "int8"};
    /* measured (native / scalar): f16 5.7e-5 / 7.0e-5 and bf16 7.0e-5 / 7.2e-5 worst
       relative (the F32 model's 6.4e-5: the formats add nothing once the reference uses
       their values); int8 relative RMS 1.02e-2 / 1.02e-2 */
    static const double tol[3] = {7e-4, 7.2e-4, 1e-1};
    int v;
    for (v = 0; v < 3; v++) {
        llm_config c = moe_config("mixtral");
        rnd_model m;
        llm_state s;
        int toks[T], t, l, x;
        size_t n, one;
        float *got;
        double *ref, e;
        void *store[4][3];
        float *scales[4][3];
        if (types[v] == LLM_INT8) c.n_layers = 1;
        test__rng = 0x5eed0000ull + 14; /* the mixtral F32 model of test_arch */
        rnd_model_make(&m, &c);
        one = (size_t)c.n_experts * (size_t)c.d_ff * (size_t)c.d_model;
        for (l = 0; l < c.n_layers; l++) {
            float *mats[3];
            llm_weight *ws[3];
            mats[0] = m.l[l].w1, mats[1] = m.l[l].w2, mats[2] = m.l[l].w3;
            ws[0] = &m.lw[l].w1, ws[1] = &m.lw[l].w2, ws[2] = &m.lw[l].w3;
            for (x = 0; x < 3; x++) {
                size_t i;
                scales[l][x] = NULL;
                if (types[v] == LLM_INT8) {
                    int8_t *q = (int8_t *)malloc(one);
                    scales[l][x] = (float *)malloc(one / 32 * sizeof(float));
                    CHECK_OK(llm_quantize_int8(q, scales[l][x], mats[x], (int64_t)one, 32));
                    CHECK_OK(llm_dequantize_int8(mats[x], q, scales[l][x], (int64_t)one, 32));
                    store[l][x] = q;
                } else {
                    uint16_t *h = (uint16_t *)malloc(one * 2);
                    for (i = 0; i < one; i++) {
                        h[i] = types[v] == LLM_F16 ? llm_f32_to_f16(mats[x][i]) : llm_f32_to_bf16(mats[x][i]);
                        mats[x][i] = types[v] == LLM_F16 ? llm_f16_to_f32(h[i]) : llm_bf16_to_f32(h[i]);
                    }
                    store[l][x] = h;
                }
                memset(ws[x], 0, sizeof *ws[x]);
                ws[x]->type = types[v], ws[x]->data = store[l][x], ws[x]->scale = scales[l][x];
                ws[x]->group_size = types[v] == LLM_INT8 ? 32 : 0;
            }
        }
        for (t = 0; t < T; t++) toks[t] = (t * 37 + 11) % c.vocab;
        n = (size_t)T * (size_t)c.vocab;
        got = (float *)malloc(n * sizeof *got), ref = (double *)malloc(n * sizeof *ref);
        ref_forward(&m, toks, T, ref);
        CHECK_OK(llm_state_create(&s, &c, T, T, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, T, 0, got, 1, NULL));
        e = types[v] == LLM_INT8 ? rel_rms(got, ref, n) : rel_err(got, ref, n);
        CHECK_MSG(e < tol[v], "%s experts: %.3g from the reference (tolerance %.3g)", names[v], e, tol[v]);
        printf("    mixtral %s experts in memory: vs double reference %.2e %s\n", names[v], e,
               types[v] == LLM_INT8 ? "relative RMS" : "worst");
        llm_state_free(&s);
        for (l = 0; l < c.n_layers; l++)
            for (x = 0; x < 3; x++) free(store[l][x]), free(scales[l][x]);
        rnd_model_free(&m);
        free(got), free(ref);
    }
}

/* Ties: a router of zeros gives every expert the same logit, exactly: the k lowest
   experts win, each weighted 1/k renormalized (or 1/E as they are). And top-k = E. */
static void test_ties(void) {
    static const int ks[3] = {2, 8, 3};
    static const llm_router_kind rk[3] = {LLM_ROUTER_TOPK_NORM, LLM_ROUTER_TOPK_NORM, LLM_ROUTER_TOPK};
    int v;
    for (v = 0; v < 3; v++) {
        llm_config c = moe_config("mixtral");
        rnd_model m;
        llm_state s;
        int toks[8], t, l, nt = 8;
        size_t n;
        float *got, *want;
        double *ref, e;
        c.n_experts_per_tok = ks[v], c.router = rk[v];
        test__rng = 0x71e5ull + (unsigned long long)v;
        rnd_model_make(&m, &c);
        for (l = 0; l < c.n_layers; l++) memset(m.l[l].router, 0, sizeof(float) * (size_t)c.n_experts * (size_t)c.d_model);
        for (t = 0; t < nt; t++) toks[t] = (t * 5 + 1) % c.vocab;
        n = (size_t)nt * (size_t)c.vocab;
        got = (float *)malloc(n * sizeof *got), want = (float *)malloc(n * sizeof *want), ref = (double *)malloc(n * sizeof *ref);
        ref_forward(&m, toks, nt, ref);
        CHECK_OK(llm_state_create(&s, &c, nt, nt, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, nt, 0, got, 1, NULL));
        e = rel_err(got, ref, n);
        CHECK_MSG(e < 1e-4, "ties, top-%d: %.3g from the reference (lower experts win)", ks[v], e); /* measured ~1e-6 */
        if (v == 0) {
            /* the same model with experts 0 and 7 swapped must differ: the rule picks 0, not 7 */
            for (l = 0; l < c.n_layers; l++) {
                size_t one = (size_t)c.d_ff * (size_t)c.d_model, i;
                float *mats[3];
                int x;
                mats[0] = m.l[l].w1, mats[1] = m.l[l].w2, mats[2] = m.l[l].w3;
                for (x = 0; x < 3; x++)
                    for (i = 0; i < one; i++) {
                        float tmp = mats[x][i];
                        mats[x][i] = mats[x][7 * one + i], mats[x][7 * one + i] = tmp;
                    }
            }
            CHECK_OK(llm_forward(&s, &m.w, toks, nt, 0, want, 1, NULL));
            CHECK_MSG(rel_err(want, ref, n) > 1e-2, "ties: swapping expert 0 for 7 did not change the logits");
        }
        llm_state_free(&s);
        rnd_model_free(&m);
        free(got), free(want), free(ref);
    }
}

/* Published counts: Qwen1.5-MoE-A2.7B (60 experts of 1408, top 4, one shared expert of
   5632 with its gate; 14.3B parameters, 2.7B activated) and Mixtral 8x7B runnable now. */
static void test_counts(void) {
    llm_config q = llm_config_default();
    llm_params p;
    const char *why;
    llm_state s;
    q.d_model = 2048, q.n_layers = 24, q.n_heads = 16, q.n_kv_heads = 16, q.d_ff = 1408, q.vocab = 151936, q.max_seq_len = 8192;
    q.bias = LLM_BIAS_QKV, q.rope_layout = LLM_ROPE_HALVES, q.norm_eps = 1e-6f;
    q.n_experts = 60, q.n_experts_per_tok = 4, q.router = LLM_ROUTER_TOPK;
    q.n_shared_experts = 1, q.d_ff_shared = 5632, q.shared_gate = 1;
    p = llm_count_params(&q);
    CHECK_MSG(fabs(p.total / 1e9 - 14.3) < 0.05 && fabs(p.active / 1e9 - 2.7) < 0.05, "Qwen1.5-MoE-A2.7B: %.3fB total, %.3fB active",
              p.total / 1e9, p.active / 1e9);
    /* by hand: per layer 4 d^2 + 3 d (attention), 3 d 1408 per expert, 3 d 5632 + d shared, 60 d router, 2 d norms */
    {
        uint64_t d = 2048, layer_all = 4 * d * d + 3 * d + 60 * 3 * d * 1408 + 3 * d * 5632 + d + 60 * d + 2 * d;
        uint64_t layer_act = layer_all - 56 * 3 * d * 1408;
        CHECK_EQ_U64(p.total, 24 * layer_all + 2 * 151936 * d + d);
        CHECK_EQ_U64(p.active, 24 * layer_act + 2 * 151936 * d + d);
    }
    CHECK_OK(llm_config_runnable(&q, &why));
    CHECK_OK(llm_config_runnable(llm_preset("mixtral-8x7b"), &why));
    CHECK(llm_state_bytes(llm_preset("mixtral-8x7b"), 16, 1, LLM_F16) > 0);
    /* still refused by name: ungated (GELU MLP) experts, and experts with biases */
    q.ffn = LLM_FFN_GELU;
    CHECK(llm_config_runnable(&q, &why) == LLM_EUNSUPPORTED && strstr(why, "ungated"));
    CHECK(llm_state_create(&s, &q, 16, 1, LLM_F32) == LLM_EUNSUPPORTED);
    q.ffn = LLM_FFN_SWIGLU, q.bias = LLM_BIAS_ALL;
    CHECK(llm_config_runnable(&q, &why) == LLM_EUNSUPPORTED && strstr(why, "bias"));
    /* the config's new fields are checked */
    q.bias = LLM_BIAS_QKV, q.router = LLM_ROUTER_COUNT;
    CHECK(llm_config_check(&q, &why) == LLM_EINVAL && strstr(why, "router"));
    q.router = LLM_ROUTER_TOPK, q.n_shared_experts = 0;
    CHECK(llm_config_check(&q, &why) == LLM_EINVAL && strstr(why, "shared"));
    q.d_ff_shared = -1, q.n_shared_experts = 1;
    CHECK(llm_config_check(&q, &why) == LLM_EINVAL && strstr(why, "d_ff_shared"));
}

/* Hostile files: each refused with LLM_EFORMAT naming what is wrong, never run. */
static void edit_count(gw *w) { w->t[gw_find(w, "blk.1.ffn_up_exps.weight")].ne[2] = 7; }
static void edit_router(gw *w) { w->t[gw_find(w, "blk.0.ffn_gate_inp.weight")].skip = 1; }
static void edit_used(gw *w) { gw_kv_u32(w, "llama.expert_used_count", 9); }
static void edit_shared_count(gw *w) { gw_kv_u32(w, "llama.expert_shared_count", 2); }
static void edit_flat(gw *w) { w->t[gw_find(w, "blk.0.ffn_down_exps.weight")].n_dims = 2; } /* no expert axis */
/* One hostile file: arch's file of cfg's model (n_layers 0: the config's), written without
   expert_count when no_count, then edited; it must fail with want, the reason naming `name`
   (le_only: on a big-endian host the loader refuses before that check, so any refusal). */
static void hostile_case(const char *cfg, const char *arch, int n_layers, int no_count, void (*edit)(gw *),
                         llm_status want, int le_only, const char *name) {
    llm_config c = moe_config(cfg);
    rnd_model m;
    moe_file f;
    llm_layer_weights layers[4];
    llm_model lm;
    llm_gguf g;
    unsigned char *buf = NULL;
    const char *why = NULL;
    llm_status st;
    if (n_layers) c.n_layers = n_layers;
    rnd_model_make(&m, &c);
    moe_write(&f, arch, &m, GW_F32, GW_F32, no_count);
    if (edit) edit(&f.w);
    st = moe_load(&f.w, &lm, layers, &buf, &g, &why);
    CHECK_MSG(le_only && !fc_host_le() ? st != LLM_OK : st == want && fc_mentions(why, name), "%s %s: %s \"%s\"", arch, name,
              llm_status_str(st), why ? why : "");
    llm_gguf_free(&g);
    free(buf);
    moe_file_free(&f);
    rnd_model_free(&m);
}
static void test_hostile(void) {
    static const struct {
        void (*edit)(gw *);
        const char *name;
        llm_status want;
        int le_only;
    } cases[] = {
        {edit_count, "blk.1.ffn_up_exps.weight", LLM_EFORMAT, 1},
        {edit_router, "blk.0.ffn_gate_inp.weight", LLM_EFORMAT, 1},
        {edit_used, "expert_used_count", LLM_EFORMAT, 0},
        {edit_flat, "blk.0.ffn_down_exps.weight", LLM_EFORMAT, 1},
        /* DeepSeek-style shared experts: not run, said so at the metadata */
        {edit_shared_count, "expert_shared_count", LLM_EUNSUPPORTED, 0},
    };
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
        hostile_case("mixtral", "llama", 2, 0, cases[i].edit, cases[i].want, cases[i].le_only, cases[i].name);
    /* a MoE-only architecture without expert_count; a llama file without it is dense, and
       then its dense FFN tensors are missing */
    hostile_case("qwen3moe", "qwen3moe", 0, 1, NULL, LLM_EFORMAT, 0, "qwen3moe.expert_count");
    hostile_case("mixtral", "llama", 0, 1, NULL, LLM_EFORMAT, 1, "blk.0.ffn_gate.weight");
}

/* ---- the same models as Hugging Face directories ------------------------------------------ */

/* transformers' model_type of each test architecture */
static const char *hf_type(const char *arch) {
    return !strcmp(arch, "mixtral") ? "mixtral" : !strcmp(arch, "qwen2moe") ? "qwen2_moe" : "qwen3_moe";
}
/* What to do wrong in a file (hostile cases): a tensor left out, one stored as BF16, one
   transposed, one more (a copy of `like`'s shape, named extra). */
typedef struct hf_edit {
    const char *drop, *bf16, *transpose, *extra, *like;
} hf_edit;
#define HF_MAXT 320
typedef struct hf_file {
    stw_tensor t[HF_MAXT];
    char names[HF_MAXT][96];
    float *keep[8]; /* Mixtral's q/k rows in HF's order */
    int n, nk;
    unsigned char *p;
    size_t len;
    char cfg[4096];
} hf_file;
static void hf_put(hf_file *f, const char *name, int64_t rows, int64_t cols, const float *x, const char *dtype) {
    stw_tensor *t = &f->t[f->n];
    snprintf(f->names[f->n], sizeof f->names[0], "%s", name);
    memset(t, 0, sizeof *t);
    t->name = f->names[f->n], t->dtype = rows ? dtype : "F32", t->data = x;
    t->n_dims = rows ? 2 : 1, t->shape[0] = rows ? rows : cols, t->shape[1] = cols;
    f->n++;
}
static int by_name(const void *a, const void *b) { return strcmp(((const stw_tensor *)a)->name, ((const stw_tensor *)b)->name); }

/* m under arch's HF names, matrices as dtype (F32 or BF16), vectors F32; order 0 as
   written (layer by layer, expert by expert), 1 sorted by name (the safetensors Python
   writer's order: experts.10 before experts.2), 2 reversed. Mixtral's q/k rows go to HF's
   rotate-half order (the GGUF holds them interleaved). config.json too, in f->cfg. */
static void hf_write(hf_file *f, const char *arch, const rnd_model *m, const char *dtype, int order, const hf_edit *ed) {
    const llm_config *c = &m->c;
    const char *mt = hf_type(arch);
    int64_t d = c->d_model, hd = hdim(c), q = hd * c->n_heads, kv = hd * c->n_kv_heads, ff = c->d_ff;
    int64_t S = (int64_t)c->n_shared_experts * (c->d_ff_shared ? c->d_ff_shared : c->d_ff);
    int l, e, i, n0, k = 0, mixtral = !strcmp(arch, "mixtral");
    char nm[96], extra[1024];
    llm_config jc = *c;
    memset(f, 0, sizeof *f);
    hf_put(f, "model.embed_tokens.weight", c->vocab, d, m->emb, dtype);
    hf_put(f, "model.norm.weight", 0, d, m->onorm, dtype);
    hf_put(f, "lm_head.weight", c->vocab, d, m->head, dtype);
    for (l = 0; l < c->n_layers; l++) {
        const rnd_layer *L0 = &m->l[l];
        const float *wq = L0->wq, *wk = L0->wk;
#define HN(s) (snprintf(nm, sizeof nm, "model.layers.%d.%s", l, s), nm)
        if (mixtral) {
            float *a = f->keep[f->nk++] = (float *)malloc(sizeof(float) * (size_t)(q * d));
            float *b = f->keep[f->nk++] = (float *)malloc(sizeof(float) * (size_t)(kv * d));
            stw_permute_qk(a, L0->wq, c->n_heads, (int)hd, d, 0);
            stw_permute_qk(b, L0->wk, c->n_kv_heads, (int)hd, d, 0);
            wq = a, wk = b;
        }
        hf_put(f, HN("input_layernorm.weight"), 0, d, L0->an, dtype);
        hf_put(f, HN("self_attn.q_proj.weight"), q, d, wq, dtype);
        hf_put(f, HN("self_attn.k_proj.weight"), kv, d, wk, dtype);
        hf_put(f, HN("self_attn.v_proj.weight"), kv, d, L0->wv, dtype);
        hf_put(f, HN("self_attn.o_proj.weight"), d, q, L0->wo, dtype);
        if (c->bias == LLM_BIAS_QKV) {
            hf_put(f, HN("self_attn.q_proj.bias"), 0, q, L0->bq, dtype);
            hf_put(f, HN("self_attn.k_proj.bias"), 0, kv, L0->bk, dtype);
            hf_put(f, HN("self_attn.v_proj.bias"), 0, kv, L0->bv, dtype);
        }
        if (c->qk_norm) {
            hf_put(f, HN("self_attn.q_norm.weight"), 0, hd, L0->qn, dtype);
            hf_put(f, HN("self_attn.k_norm.weight"), 0, hd, L0->kn, dtype);
        }
        hf_put(f, HN("post_attention_layernorm.weight"), 0, d, L0->fn, dtype);
#undef HN
        hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "router", 0), c->n_experts, d, L0->router, dtype);
        for (e = 0; e < c->n_experts; e++) { /* slices of the stacks: expert e's matrices */
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "gate", e), ff, d, L0->w1 + (size_t)(e * ff * d), dtype);
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "down", e), d, ff, L0->w2 + (size_t)(e * ff * d), dtype);
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "up", e), ff, d, L0->w3 + (size_t)(e * ff * d), dtype);
        }
        if (S) {
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "shared_gate", 0), S, d, L0->ws1, dtype);
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "shared_up", 0), S, d, L0->ws3, dtype);
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "shared_down", 0), d, S, L0->ws2, dtype);
            hf_put(f, stw_moe_name(nm, sizeof nm, mt, l, "shared_expert_gate", 0), 1, d, L0->wsg, "F32"); /* [1][d] */
        }
    }
    for (i = 0, n0 = f->n; i < n0; i++) {
        stw_tensor *t = &f->t[i];
        if (ed && ed->drop && !strcmp(t->name, ed->drop)) continue;
        if (ed && ed->bf16 && !strcmp(t->name, ed->bf16)) t->dtype = "BF16";
        if (ed && ed->transpose && !strcmp(t->name, ed->transpose)) {
            int64_t r = t->shape[0];
            t->shape[0] = t->shape[1], t->shape[1] = r;
        }
        if (ed && ed->extra && !strcmp(t->name, ed->like)) {
            f->t[f->n] = *t;
            snprintf(f->names[f->n], sizeof f->names[0], "%s", ed->extra);
            f->t[f->n].name = f->names[f->n];
            f->n++;
        }
        f->t[k++] = *t;
    }
    if (ed && ed->extra) f->t[k++] = f->t[f->n - 1];
    if (order == 1) qsort(f->t, (size_t)k, sizeof f->t[0], by_name);
    for (i = 0; order == 2 && i < k / 2; i++) {
        stw_tensor x = f->t[i];
        f->t[i] = f->t[k - 1 - i], f->t[k - 1 - i] = x;
    }
    f->len = stw_safetensors(NULL, 0, f->t, k, "{\"format\":\"pt\"}", 0);
    f->p = (unsigned char *)malloc(f->len);
    stw_safetensors(f->p, f->len, f->t, k, "{\"format\":\"pt\"}", 0);
    /* Qwen's intermediate_size is a dense layer's (unused here): not the experts' width */
    if (!mixtral) jc.d_ff = 3 * c->d_ff;
    if (!strcmp(arch, "qwen3moe")) jc.head_dim = (int)hd; /* Qwen3-MoE's files say it */
    stw_moe_config(extra, sizeof extra, c, mt);
    stw_config_json(f->cfg, sizeof f->cfg, &jc, mt, extra);
}
static void hf_file_free(hf_file *f) {
    int i;
    for (i = 0; i < f->nk; i++) free(f->keep[i]);
    free(f->p);
}

/* an HF model from memory with what it points into */
typedef struct hf_loaded {
    llm_model m;
    llm_safetensors st;
    llm_layer_weights layers[4];
    float *aux;
    size_t auxn;
} hf_loaded;
static llm_status hf_load(hf_loaded *h, const char *cfg, const unsigned char *p, size_t len, int aux_short, const char **why) {
    llm_config c;
    llm_status e;
    memset(h, 0, sizeof *h);
    if (llm_hf_read_config(&c, cfg, strlen(cfg), why) == LLM_OK) h->auxn = llm_hf_aux_floats(&c);
    h->aux = (float *)malloc((h->auxn + 1) * sizeof(float));
    e = llm_safetensors_create(&h->st, p, len, why);
    if (e != LLM_OK) return e;
    return llm_hf_load(&h->m, cfg, strlen(cfg), &h->st, h->layers, 4, h->aux, aux_short ? 100 : h->auxn, why);
}
static void hf_free(hf_loaded *h) {
    llm_safetensors_free(&h->st);
    free(h->aux);
}

/* text with the first `from` replaced by `to` (a static buffer) */
static const char *replace(const char *text, const char *from, const char *to) {
    static char out[8192];
    const char *at = strstr(text, from);
    if (!at) return "<replace: not found>";
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}


/* The config of an HF MoE test: test_arch's, Qwen3-MoE with 12 experts (names that sort
   experts.10 before experts.2). */
static llm_config hf_moe_config(const char *arch) {
    llm_config c = moe_config(arch);
    if (!strcmp(arch, "qwen3moe")) c.n_experts = 12;
    return c;
}

/* arch's model as a GGUF and as an HF file (matrices dtype, experts in `order`): the same
   logits, bit for bit where both run RoPE on halves (Qwen: the same weights, the same
   kernels); Mixtral's GGUF has q/k permuted to interleaved pairs, so there they agree
   within float rounding. */
static void test_hf_vs_gguf(const char *arch, const char *dtype, int order) {
    llm_config c = hf_moe_config(arch);
    rnd_model m;
    moe_file g;
    hf_file f;
    hf_loaded h;
    llm_layer_weights layers[4];
    llm_model gm;
    llm_gguf gg;
    llm_state s;
    unsigned char *buf;
    const char *why = "";
    int toks[T], t, bf = !strcmp(dtype, "BF16");
    size_t n = (size_t)T * (size_t)c.vocab;
    float *a = (float *)malloc(n * sizeof *a), *b = (float *)malloc(n * sizeof *b);
    double *ref = (double *)malloc(n * sizeof *ref);
    llm_status st, sg;
    test__rng = 0x5100ull + (unsigned long long)c.n_experts * 3 + (unsigned long long)bf;
    rnd_model_make(&m, &c);
    for (t = 0; t < T; t++) toks[t] = (t * 37 + 11) % c.vocab;
    moe_write(&g, strcmp(arch, "mixtral") ? arch : "llama", &m, bf ? GW_BF16 : GW_F32, bf ? GW_BF16 : GW_F32, 0);
    sg = moe_load(&g.w, &gm, layers, &buf, &gg, &why);
    CHECK_MSG(fc_load_is(sg, &why, LLM_OK), "%s %s GGUF: llm_gguf_load: %s: %s", arch, dtype, llm_status_str(sg), why ? why : "");
    hf_write(&f, arch, &m, dtype, order, NULL);
    st = hf_load(&h, f.cfg, f.p, f.len, 0, &why);
    CHECK_MSG(fc_load_is(st, &why, LLM_OK), "%s %s HF: llm_hf_load: %s: %s", arch, dtype, llm_status_str(st), why);
    if (st == LLM_OK && sg == LLM_OK) {
        const llm_config *k = &h.m.config;
        const llm_layer_weights *y = &h.layers[c.n_layers - 1];
        int e, x, inside = 1;
        CHECK_MSG(k->n_experts == c.n_experts && k->n_experts_per_tok == c.n_experts_per_tok && k->d_ff == c.d_ff &&
                      k->router == c.router && k->n_shared_experts == c.n_shared_experts && k->d_ff_shared == c.d_ff_shared &&
                      k->shared_gate == c.shared_gate && k->bias == c.bias && k->qk_norm == c.qk_norm &&
                      llm_config_head_dim(k) == hdim(&c) && k->rope_layout == LLM_ROPE_HALVES && k->norm_eps == c.norm_eps,
                  "%s: config.json read differently", arch);
        /* zero-copy: every expert's matrices point into the file, each its own */
        CHECK(y->experts != NULL && y->w1.data == y->experts[0].data && y->w2.data == y->experts[1].data);
        for (e = 0; y->experts && e < c.n_experts; e++)
            for (x = 0; x < 3; x++) {
                const unsigned char *q = (const unsigned char *)y->experts[3 * e + x].data;
                inside &= q >= f.p && q < f.p + f.len && y->experts[3 * e + x].type == (bf ? LLM_BF16 : LLM_F32);
                if (e) inside &= q != (const unsigned char *)y->experts[x].data;
            }
        CHECK_MSG(inside, "%s: an expert's matrix is not its own tensor in the file", arch);
        ref_moe_gap = 1e300;
        ref_forward(&m, toks, T, ref); /* only for the closest routing call: Mixtral's two runs differ in rounding */
        CHECK_MSG(ref_moe_gap > 1e-3, "%s: a routing decision within %.2g of a tie", arch, ref_moe_gap);
        CHECK_OK(llm_state_create(&s, &gm.config, T, T, LLM_F32));
        CHECK_OK(llm_forward(&s, &gm.weights, toks, T, 0, b, 1, NULL));
        llm_state_free(&s);
        CHECK_OK(llm_state_create(&s, k, T, T, LLM_F32));
        CHECK_OK(llm_forward(&s, &h.m.weights, toks, T, 0, a, 1, NULL));
        llm_state_free(&s);
        if (strcmp(arch, "mixtral")) {
            CHECK_MSG(memcmp(a, b, n * sizeof *a) == 0, "%s %s: HF and GGUF logits differ (%.3g)", arch, dtype, fc_max_diff(a, b, n));
            printf("    %s %s: HF directory vs GGUF, %d tokens: bit-identical logits\n", arch, dtype, T);
        } else {
            double rel = fc_max_diff(a, b, n) / fc_max_abs(b, n);
            /* the same weights with q/k rows permuted: only q.k's sum over a head is
               reordered, and the router's softmax amplifies that (as decode vs prefill
               above); measured F32 / BF16: 1.8e-6 / 2.4e-6 (AVX-512), 2.2e-6 / 3.9e-6 (scalar) */
            CHECK_MSG(rel < 4e-5, "%s %s: HF vs GGUF logits differ by %.3g of max |logit|", arch, dtype, rel);
            printf("    %s %s: HF directory vs GGUF (interleaved q/k), %d tokens: max |diff| %.2e of max |logit|\n", arch, dtype, T, rel);
        }
    }
    hf_free(&h);
    hf_file_free(&f);
    llm_gguf_free(&gg);
    free(buf);
    moe_file_free(&g);
    rnd_model_free(&m);
    free(a), free(b), free(ref);
}

/* One hostile HF case: arch's file (edited by ed) with config.json's cfg_from replaced by
   cfg_to; refused with want and a reason naming `name` (weights: on a big-endian host the
   loader refuses those first, saying so). */
static void hf_hostile(const char *arch, const hf_edit *ed, const char *cfg_from, const char *cfg_to, int aux_short, llm_status want,
                       int weights, const char *name) {
    llm_config c = hf_moe_config(arch);
    rnd_model m;
    hf_file f;
    hf_loaded h;
    const char *why = NULL, *cfg;
    llm_status st;
    rnd_model_make(&m, &c);
    hf_write(&f, arch, &m, "F32", 0, ed);
    cfg = cfg_from ? replace(f.cfg, cfg_from, cfg_to) : f.cfg;
    st = hf_load(&h, cfg, f.p, f.len, aux_short, &why);
    CHECK_MSG(weights && !fc_host_le() ? fc_be_refused(st, why) : st == want && fc_mentions(why, name), "%s HF %s: %s \"%s\"", arch,
              name, llm_status_str(st), why ? why : "");
    hf_free(&h);
    hf_file_free(&f);
    rnd_model_free(&m);
}
static void test_hf_hostile(void) {
    static const struct {
        const char *arch;
        hf_edit ed;
        const char *from, *to;
        llm_status want;
        int weights;
        const char *name;
    } cases[] = {
        {"qwen2moe", {"model.layers.1.mlp.experts.5.up_proj.weight", NULL, NULL, NULL, NULL}, NULL, NULL, LLM_EFORMAT, 1,
         "model.layers.1.mlp.experts.5.up_proj.weight"},
        {"mixtral", {"model.layers.1.block_sparse_moe.experts.7.w2.weight", NULL, NULL, NULL, NULL}, NULL, NULL, LLM_EFORMAT, 1,
         "model.layers.1.block_sparse_moe.experts.7.w2.weight"},
        {"qwen3moe", {NULL, NULL, "model.layers.0.mlp.experts.2.down_proj.weight", NULL, NULL}, NULL, NULL, LLM_EFORMAT, 1,
         "model.layers.0.mlp.experts.2.down_proj.weight"},
        {"qwen2moe", {NULL, NULL, "model.layers.0.mlp.gate.weight", NULL, NULL}, NULL, NULL, LLM_EFORMAT, 1, "model.layers.0.mlp.gate.weight"},
        /* experts of mixed types: one BF16 among F32 ones */
        {"qwen3moe", {NULL, "model.layers.1.mlp.experts.3.gate_proj.weight", NULL, NULL, NULL}, NULL, NULL, LLM_EUNSUPPORTED, 1,
         "model.layers.1.mlp.experts.3.gate_proj.weight"},
        {"mixtral", {NULL, "model.layers.0.block_sparse_moe.experts.0.w3.weight", NULL, NULL, NULL}, NULL, NULL, LLM_EUNSUPPORTED, 1,
         "model.layers.0.block_sparse_moe.experts.1.w3.weight"},
        /* an expert past the count, an index with a leading zero, a Qwen name in a Mixtral file */
        {"qwen3moe", {NULL, NULL, NULL, "model.layers.0.mlp.experts.12.up_proj.weight", "model.layers.0.mlp.experts.1.up_proj.weight"},
         NULL, NULL, LLM_EUNSUPPORTED, 1, "model.layers.0.mlp.experts.12.up_proj.weight"},
        {"qwen2moe", {NULL, NULL, NULL, "model.layers.0.mlp.experts.01.up_proj.weight", "model.layers.0.mlp.experts.1.up_proj.weight"},
         NULL, NULL, LLM_EUNSUPPORTED, 1, "model.layers.0.mlp.experts.01.up_proj.weight"},
        {"mixtral", {NULL, NULL, NULL, "model.layers.1.mlp.gate.weight", "model.layers.1.block_sparse_moe.gate.weight"}, NULL, NULL,
         LLM_EUNSUPPORTED, 1, "model.layers.1.mlp.gate.weight"},
        {"qwen2moe", {"model.layers.0.mlp.shared_expert_gate.weight", NULL, NULL, NULL, NULL}, NULL, NULL, LLM_EFORMAT, 1,
         "model.layers.0.mlp.shared_expert_gate.weight"},
        /* config.json: counts, widths and what is not run */
        {"qwen2moe", {NULL, NULL, NULL, NULL, NULL}, "\"num_experts_per_tok\": 3", "\"num_experts_per_tok\": 9", LLM_EFORMAT, 0,
         "num_experts_per_tok"},
        {"qwen3moe", {NULL, NULL, NULL, NULL, NULL}, "\"num_experts\": 12", "\"num_expert\": 12", LLM_EFORMAT, 0, "num_experts"},
        {"mixtral", {NULL, NULL, NULL, NULL, NULL}, "\"num_local_experts\": 8", "\"num_local_experts\": 8, \"num_experts\": 4",
         LLM_EFORMAT, 0, "num_experts"},
        {"qwen3moe", {NULL, NULL, NULL, NULL, NULL}, "\"moe_intermediate_size\"", "\"moe_intermediate\"", LLM_EFORMAT, 0,
         "moe_intermediate_size"},
        {"qwen2moe", {NULL, NULL, NULL, NULL, NULL}, "\"shared_expert_intermediate_size\"", "\"shared_intermediate_size\"",
         LLM_EFORMAT, 0, "shared_expert_intermediate_size"},
        {"qwen2moe", {NULL, NULL, NULL, NULL, NULL}, "\"norm_topk_prob\": false", "\"norm_topk_prob\": 0", LLM_EFORMAT, 0,
         "norm_topk_prob"},
        {"qwen3moe", {NULL, NULL, NULL, NULL, NULL}, "\"decoder_sparse_step\": 1", "\"decoder_sparse_step\": 2", LLM_EUNSUPPORTED, 0,
         "decoder_sparse_step"},
        {"qwen2moe", {NULL, NULL, NULL, NULL, NULL}, "\"mlp_only_layers\": []", "\"mlp_only_layers\": [1]", LLM_EUNSUPPORTED, 0,
         "mlp_only_layers"},
        {"qwen2moe", {NULL, NULL, NULL, NULL, NULL}, "\"mlp_only_layers\": []", "\"qkv_bias\": false", LLM_EUNSUPPORTED, 0,
         "qkv_bias"},
    };
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
        hf_hostile(cases[i].arch, &cases[i].ed, cases[i].from, cases[i].to, 0, cases[i].want, cases[i].weights, cases[i].name);
    /* the experts' table needs its room in aux (the vectors, F32 here, need none) */
    hf_hostile("mixtral", NULL, NULL, NULL, 1, LLM_EINVAL, 1, "aux");
}

/* llm_hf_load_dir and llm_hf_shapes_dir (llm-plan --hf) on a directory of each: the
   memory load's logits; the config's total parameters = the file's elements, and active
   ones = total - (E - k) experts' matrices per layer. */
static int put_file(const char *dir, const char *name, const void *p, size_t n) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) return 1;
    if (n && fwrite(p, 1, n, f) != n) n = 0;
    return fclose(f) != 0 || !n;
}
static void test_hf_dir(const char *arch) {
    llm_config c = hf_moe_config(arch);
    rnd_model m;
    hf_file f;
    hf_loaded h;
    llm_model dm;
    llm_model_shapes sh;
    llm_params p;
    char dir[256], path[512];
    const char *why = "";
    int toks[16], t;
    size_t n = 16 * (size_t)c.vocab;
    float *a = (float *)malloc(n * sizeof *a), *b = (float *)malloc(n * sizeof *b);
    uint64_t d = (uint64_t)c.d_model, ff = (uint64_t)c.d_ff;
    llm_status e;
    snprintf(dir, sizeof dir, "build/test_moe_%s.%ld", arch, (long)getpid());
    mkdir("build", 0777);
    if (mkdir(dir, 0777) != 0) {
        CHECK_MSG(0, "cannot make %s", dir);
        return;
    }
    rnd_model_make(&m, &c);
    for (t = 0; t < 16; t++) toks[t] = (t * 37 + 11) % c.vocab;
    hf_write(&f, arch, &m, "BF16", 1, NULL);
    CHECK(put_file(dir, "config.json", f.cfg, strlen(f.cfg)) == 0 && put_file(dir, "model.safetensors", f.p, f.len) == 0);
    e = llm_hf_load_dir(&dm, dir, &why);
    CHECK_MSG(fc_load_is(e, &why, LLM_OK), "%s: llm_hf_load_dir: %s: %s", arch, llm_status_str(e), why);
    if (e == LLM_OK) {
        llm_state s;
        CHECK(fc_load_is(hf_load(&h, f.cfg, f.p, f.len, 0, &why), &why, LLM_OK));
        CHECK_OK(llm_state_create(&s, &dm.config, 16, 16, LLM_F32));
        CHECK_OK(llm_forward(&s, &dm.weights, toks, 16, 0, a, 1, NULL));
        CHECK_OK(llm_forward(&s, &h.m.weights, toks, 16, 0, b, 1, NULL));
        CHECK_MSG(memcmp(a, b, n * sizeof *a) == 0, "%s: llm_hf_load_dir's logits differ from llm_hf_load's", arch);
        llm_state_free(&s);
        hf_free(&h);
        llm_model_free(&dm);
    }
    {   /* the same tensors as 5 shards and an index: the same logits, bit for bit, with a
           layer's experts split across shards (the writer's contiguous runs) */
        static char idx[1 << 16];
        char file[64], pre[32];
        int k, l, split = 0;
        llm_model_shapes one;
        memset(&one, 0, sizeof one);
        CHECK_OK(llm_hf_shapes_dir(&one, dir, &why));
        for (l = 0; l < c.n_layers; l++) {
            int lo = 5, hi = -1, i;
            snprintf(pre, sizeof pre, "model.layers.%d.", l);
            for (i = 0; i < f.n; i++)
                if (!strncmp(f.t[i].name, pre, strlen(pre)) && strstr(f.t[i].name, "experts.")) {
                    int q = stw_shard_of(i, f.n, 5);
                    lo = q < lo ? q : lo, hi = q > hi ? q : hi;
                }
            split |= hi > lo;
        }
        CHECK_MSG(split, "%s: no layer's experts straddle two shards", arch);
        for (k = 0; k < 5; k++) {
            size_t len = stw_shard(NULL, 0, f.t, f.n, k, 5);
            unsigned char *q = (unsigned char *)malloc(len);
            stw_shard(q, len, f.t, f.n, k, 5);
            CHECK(put_file(dir, stw_shard_name(file, sizeof file, k, 5), q, len) == 0);
            free(q);
        }
        CHECK(stw_index_json(idx, sizeof idx, f.t, f.n, 5) < (int)sizeof idx);
        CHECK(put_file(dir, "model.safetensors.index.json", idx, strlen(idx)) == 0);
        snprintf(path, sizeof path, "%s/model.safetensors", dir), remove(path);
        e = llm_hf_load_dir(&dm, dir, &why);
        CHECK_MSG(fc_load_is(e, &why, LLM_OK), "%s, 5 shards: llm_hf_load_dir: %s: %s", arch, llm_status_str(e), why);
        if (e == LLM_OK) {
            llm_state s;
            CHECK_OK(llm_state_create(&s, &dm.config, 16, 16, LLM_F32));
            CHECK_OK(llm_forward(&s, &dm.weights, toks, 16, 0, b, 1, NULL));
            CHECK_MSG(memcmp(a, b, n * sizeof *a) == 0, "%s: 5 shards' logits differ from one file's", arch);
            llm_state_free(&s);
            llm_model_free(&dm);
        }
        memset(&sh, 0, sizeof sh);
        CHECK_OK(llm_hf_shapes_dir(&sh, dir, &why));
        CHECK_MSG(sh.n_files == 5 && sh.n_tensors == one.n_tensors && sh.n_elements == one.n_elements &&
                      sh.tensor_bytes == one.tensor_bytes,
                  "%s, 5 shards: llm_hf_shapes_dir: %d files, %llu tensors", arch, sh.n_files, (unsigned long long)sh.n_tensors);
        for (k = 0; k < 5; k++) snprintf(path, sizeof path, "%s/%s", dir, stw_shard_name(file, sizeof file, k, 5)), remove(path);
        snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir), remove(path);
        CHECK(put_file(dir, "model.safetensors", f.p, f.len) == 0);
    }
    memset(&sh, 0, sizeof sh);
    CHECK_OK(llm_hf_shapes_dir(&sh, dir, &why));
    CHECK_MSG(!sh.not_run[0] || (!fc_host_le() && fc_mentions(sh.not_run, "big-endian")), "%s: llm_hf_shapes_dir: not run: %s", arch,
              sh.not_run);
    CHECK(sh.config.n_experts == c.n_experts && sh.config.n_experts_per_tok == c.n_experts_per_tok && sh.config.d_ff == c.d_ff &&
          sh.config.n_shared_experts == c.n_shared_experts);
    p = llm_count_params(&sh.config);
    CHECK_EQ_U64(p.total, sh.n_elements);
    CHECK_EQ_U64(p.active, sh.n_elements - (uint64_t)c.n_layers * (uint64_t)(c.n_experts - c.n_experts_per_tok) * 3 * d * ff);
    CHECK_EQ_U64(sh.header_bytes + sh.tensor_bytes, f.len);
    printf("    %s HF directory: %llu parameters, %llu active (llm_hf_shapes_dir)\n", arch, (unsigned long long)p.total,
           (unsigned long long)p.active);
    snprintf(path, sizeof path, "%s/config.json", dir), remove(path);
    snprintf(path, sizeof path, "%s/model.safetensors", dir), remove(path);
    rmdir(dir);
    hf_file_free(&f);
    rnd_model_free(&m);
    free(a), free(b);
}

/* Published counts from config.json alone: Qwen3-30B-A3B (30.5B parameters, 3.3B
   activated) and Mixtral-8x7B (46.7B, 12.9B active), and each exactly by hand. */
static void test_hf_counts(void) {
    static const char q3[] =
        "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 2048, \"intermediate_size\": 6144, \"num_hidden_layers\": 48, "
        "\"num_attention_heads\": 32, \"num_key_value_heads\": 4, \"head_dim\": 128, \"vocab_size\": 151936, "
        "\"max_position_embeddings\": 40960, \"rms_norm_eps\": 1e-06, \"rope_theta\": 1000000.0, \"tie_word_embeddings\": false, "
        "\"hidden_act\": \"silu\", \"attention_bias\": false, \"num_experts\": 128, \"num_experts_per_tok\": 8, "
        "\"moe_intermediate_size\": 768, \"norm_topk_prob\": true, \"decoder_sparse_step\": 1, \"mlp_only_layers\": [], "
        "\"use_sliding_window\": false, \"sliding_window\": null, \"rope_scaling\": null}";
    static const char mx[] =
        "{\"model_type\": \"mixtral\", \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 32, "
        "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000, \"max_position_embeddings\": 32768, "
        "\"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000.0, \"tie_word_embeddings\": false, \"hidden_act\": \"silu\", "
        "\"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"sliding_window\": null, \"router_aux_loss_coef\": 0.02}";
    llm_config c;
    llm_params p;
    const char *why;
    uint64_t attn, layer, act;
    CHECK_OK(llm_hf_read_config(&c, q3, strlen(q3), &why));
    CHECK(c.n_experts == 128 && c.n_experts_per_tok == 8 && c.d_ff == 768 && c.router == LLM_ROUTER_TOPK_NORM && c.qk_norm);
    p = llm_count_params(&c);
    CHECK_MSG(fabs(p.total / 1e9 - 30.5) < 0.05 && fabs(p.active / 1e9 - 3.3) < 0.06, "Qwen3-30B-A3B: %.3fB total, %.3fB active",
              p.total / 1e9, p.active / 1e9);
    /* per layer: q, o 2048 x 4096; k, v 2048 x 512; q/k norms 2 x 128; 2 norms; router 128 x 2048; 3 x 2048 x 768 per expert */
    attn = 2 * 2048 * 4096 + 2 * 2048 * 512 + 2 * 128 + 2 * 2048 + 128 * 2048;
    layer = attn + 128 * 3 * 2048 * 768, act = attn + 8 * 3 * 2048 * 768;
    CHECK_EQ_U64(p.total, 48 * layer + 2 * 151936ull * 2048 + 2048);
    CHECK_EQ_U64(p.active, 48 * act + 2 * 151936ull * 2048 + 2048);
    CHECK_OK(llm_hf_read_config(&c, mx, strlen(mx), &why));
    CHECK(c.n_experts == 8 && c.n_experts_per_tok == 2 && c.d_ff == 14336 && c.router == LLM_ROUTER_TOPK_NORM && !c.sliding_window);
    p = llm_count_params(&c);
    CHECK_MSG(fabs(p.total / 1e9 - 46.7) < 0.05 && fabs(p.active / 1e9 - 12.9) < 0.05, "Mixtral-8x7B: %.3fB total, %.3fB active",
              p.total / 1e9, p.active / 1e9);
    attn = 2 * 4096ull * 4096 + 2 * 4096 * 1024 + 2 * 4096 + 8 * 4096;
    CHECK_EQ_U64(p.total, 32 * (attn + 8 * 3 * 4096ull * 14336) + 2 * 32000ull * 4096 + 4096);
    CHECK_EQ_U64(p.active, 32 * (attn + 2 * 3 * 4096ull * 14336) + 2 * 32000ull * 4096 + 4096);
}

int main(void) {
    /* Tolerances ~10x the measured worst relative logit error (the test prints both).
       Larger than a dense model's ~2e-6: the router's softmax turns the float error of
       logits of several units into relative error of the expert weights (top-1 routing
       of the same model: 4.9e-6; every expert weighted by its probability: 2.3e-5). */
    /* measured, native AVX-512 / scalar: vs reference; decode vs prefill */
    test_arch("mixtral", 0, 6.6e-4, 1.2e-3);  /* 6.4e-5 / 6.6e-5; 1.2e-4 / 3.7e-5 */
    test_arch("qwen2moe", 0, 2.3e-4, 2e-4);   /* 1.4e-5 / 2.3e-5; 1.4e-5 / 2.0e-5 */
    test_arch("qwen3moe", 0, 1.1e-4, 1.5e-4); /* 1.1e-5 / 9.0e-6; 1.1e-5 / 1.5e-5 */
    /* Q8_0 experts, relative RMS: 1.04e-2 / 1.04e-2 (test_ggml_quants: a real model's Q8_0
       measures 9.5e-3, dominated as here by the 8-bit activations); 7.2e-7 / 3.6e-4 */
    test_arch("mixtral", 1, 1e-1, 3.6e-3);
    test_formats();
    test_ties();
    test_counts();
    test_hostile();
    /* HF directories: the GGUF's logits (F32 and BF16 matrices; experts in the order
       written, sorted by name as Python's writer does, reversed) */
    test_hf_vs_gguf("mixtral", "F32", 0);
    test_hf_vs_gguf("mixtral", "BF16", 1);
    test_hf_vs_gguf("qwen2moe", "F32", 1);
    test_hf_vs_gguf("qwen2moe", "BF16", 2);
    test_hf_vs_gguf("qwen3moe", "F32", 2);
    test_hf_vs_gguf("qwen3moe", "BF16", 1);
    test_hf_hostile();
    test_hf_counts();
    test_hf_dir("mixtral");
    test_hf_dir("qwen2moe");
    test_hf_dir("qwen3moe");
    return test_done();
}
