/* Hugging Face directories (config.json + model.safetensors) written by tests/st_writer.h:
   llm_hf_load's logits equal the same weights handed to llm_weights directly (rotate-half
   RoPE: bit-identical, F32, F16 and BF16) and a GGUF-style interleaved run of the same
   model with q/k rows permuted as HF's conversion does (within float rounding); what is
   refused, and how; hostile safetensors files; llm_hf_load_dir; and stories260K.bin
   converted to an HF directory giving run.c's 257 token ids. qwen2, qwen3, gemma (norm
   gains stored as w, run as 1 + w), gemma2 and phi3 (fused qkv_proj, gate_up_proj)
   directories give the double reference's logits (tests/ref_model.h) and are refused by
   name when a tensor, an activation or a RoPE scaling is not what llm.h runs. */
#define _POSIX_C_SOURCE 200809L /* mkdir, getpid: the directories llm_hf_load_dir reads */
#include "llm.h"
#include "test.h"
#include "st_writer.h"
#include "ref_model.h"
#include "filecheck.h"
#include <sys/stat.h>
#include <unistd.h>

#define MAXL 8
#define T_TOK 7 /* tokens per run: past the sliding window of 3 */

/* ---- small helpers ---------------------------------------------------------------------- */

/* IEEE half and bfloat16 to float, written here (not llm.h's), exact */
static float half_to_f32(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(1024 + m), e - 25);
    return h & 0x8000 ? -v : v;
}
static float bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* text with the first `from` replaced by `to` (a static buffer) */
static const char *replace(const char *text, const char *from, const char *to) {
    static char out[1 << 16];
    const char *at = strstr(text, from);
    size_t a;
    if (!at) return "<replace: not found>";
    a = (size_t)(at - text);
    snprintf(out, sizeof out, "%.*s%s%s", (int)a, text, to, at + strlen(from));
    return out;
}

/* a safetensors file of the model's tensors (matrices as dtype, vectors as vdtype) in
   malloc'd (so aligned) memory; drop: a tensor name left out; extra: one more tensor */
static unsigned char *write_file(const stw_model *m, const char *dtype, const char *vdtype, const char *drop,
                                 const stw_tensor *extra, size_t *len) {
    stw_tensor t[STW_MAX_TENSORS + 1];
    int n = stw_model_tensors(m, dtype, vdtype, t), i, k = 0;
    unsigned char *p;
    for (i = 0; i < n; i++)
        if (!drop || strcmp(t[i].name, drop)) t[k++] = t[i];
    if (extra) t[k++] = *extra;
    *len = stw_safetensors(NULL, 0, t, k, "{\"format\":\"pt\"}", 13);
    p = (unsigned char *)malloc(*len);
    stw_safetensors(p, *len, t, k, "{\"format\":\"pt\"}", 13);
    return p;
}

/* an HF model loaded from memory, with everything it points into */
typedef struct hf_loaded {
    llm_model m;
    llm_safetensors st;
    llm_layer_weights layers[MAXL];
    float *aux;
} hf_loaded;

static llm_status hf_load(hf_loaded *h, const char *cfg, const unsigned char *file, size_t len, const char **why) {
    llm_config c;
    size_t auxn = 0;
    llm_status e;
    memset(h, 0, sizeof *h);
    if (llm_hf_read_config(&c, cfg, strlen(cfg), why) == LLM_OK) auxn = llm_hf_aux_floats(&c);
    h->aux = (float *)malloc((auxn ? auxn : 1) * sizeof(float));
    e = llm_safetensors_create(&h->st, file, len, why);
    if (e != LLM_OK) return e;
    return llm_hf_load(&h->m, cfg, strlen(cfg), &h->st, h->layers, MAXL, h->aux, auxn, why);
}
static void hf_free(hf_loaded *h) {
    llm_safetensors_free(&h->st);
    free(h->aux);
}

/* The same model handed to llm_weights directly: matrices in dtype (the same rounding as
   the writer: F16 / BF16 bits from llm_f32_to_f16 / bf16), vectors rounded to vdtype and
   decoded here; interleaved: q/k rows (and biases) permuted, rope_layout INTERLEAVED. */
typedef struct direct {
    llm_config c;
    llm_weights w;
    llm_layer_weights layers[MAXL];
    void *bufs[STW_MAX_TENSORS];
    int nb;
} direct;

static void *keep(direct *D, size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    D->bufs[D->nb++] = p;
    return p;
}
static const float *permuted(direct *D, const float *src, int n_rows, int hd, int64_t cols) {
    float *dst = (float *)keep(D, (size_t)n_rows * (size_t)cols * sizeof(float));
    stw_permute_qk(dst, src, n_rows / hd, hd, cols, 1);
    return dst;
}
static llm_weight dmat(direct *D, const float *src, int64_t rows, int64_t cols, const char *dtype, int perm_hd) {
    llm_weight w;
    int64_t i, n = rows * cols;
    memset(&w, 0, sizeof w);
    if (perm_hd) src = permuted(D, src, (int)rows, perm_hd, cols);
    if (!strcmp(dtype, "F32")) {
        w.type = LLM_F32, w.data = src;
    } else {
        uint16_t *h = (uint16_t *)keep(D, (size_t)n * 2);
        for (i = 0; i < n; i++) h[i] = dtype[0] == 'F' ? llm_f32_to_f16(src[i]) : llm_f32_to_bf16(src[i]);
        w.type = dtype[0] == 'F' ? LLM_F16 : LLM_BF16, w.data = h;
    }
    return w;
}
static const float *dvec(direct *D, const float *src, int64_t n, const char *vdtype, int perm_hd) {
    float *v;
    int64_t i;
    if (perm_hd) src = permuted(D, src, (int)n, perm_hd, 1);
    if (!strcmp(vdtype, "F32")) return src;
    v = (float *)keep(D, (size_t)n * sizeof(float));
    for (i = 0; i < n; i++) v[i] = vdtype[0] == 'F' ? half_to_f32(llm_f32_to_f16(src[i])) : bf16_to_f32(llm_f32_to_bf16(src[i]));
    return v;
}
static void build_direct(direct *D, const stw_model *m, const char *dtype, const char *vdtype, int interleaved) {
    const llm_config *c = &m->c;
    int64_t d = c->d_model, hd = llm_config_head_dim(c), qd = (int64_t)c->n_heads * hd, kvd = (int64_t)c->n_kv_heads * hd;
    int l, p = interleaved ? (int)hd : 0;
    memset(D, 0, sizeof *D);
    D->c = *c;
    D->c.rope_layout = interleaved ? LLM_ROPE_INTERLEAVED : LLM_ROPE_HALVES;
    D->w.tok_embed = dmat(D, stw_get(m, "model.embed_tokens.weight"), c->vocab, d, dtype, 0);
    D->w.out_norm = dvec(D, stw_get(m, "model.norm.weight"), d, vdtype, 0);
    D->w.lm_head = c->tied_embeddings ? D->w.tok_embed : dmat(D, stw_get(m, "lm_head.weight"), c->vocab, d, dtype, 0);
    for (l = 0; l < c->n_layers; l++) {
        llm_layer_weights *y = &D->layers[l];
        y->attn_norm = dvec(D, stw_getl(m, l, "input_layernorm.weight"), d, vdtype, 0);
        y->wq = dmat(D, stw_getl(m, l, "self_attn.q_proj.weight"), qd, d, dtype, p);
        y->wk = dmat(D, stw_getl(m, l, "self_attn.k_proj.weight"), kvd, d, dtype, p);
        y->wv = dmat(D, stw_getl(m, l, "self_attn.v_proj.weight"), kvd, d, dtype, 0);
        y->wo = dmat(D, stw_getl(m, l, "self_attn.o_proj.weight"), d, qd, dtype, 0);
        if (c->bias == LLM_BIAS_QKV) {
            y->bq = dvec(D, stw_getl(m, l, "self_attn.q_proj.bias"), qd, vdtype, p);
            y->bk = dvec(D, stw_getl(m, l, "self_attn.k_proj.bias"), kvd, vdtype, p);
            y->bv = dvec(D, stw_getl(m, l, "self_attn.v_proj.bias"), kvd, vdtype, 0);
        }
        y->ffn_norm = dvec(D, stw_getl(m, l, "post_attention_layernorm.weight"), d, vdtype, 0);
        y->w1 = dmat(D, stw_getl(m, l, "mlp.gate_proj.weight"), c->d_ff, d, dtype, 0);
        y->w2 = dmat(D, stw_getl(m, l, "mlp.down_proj.weight"), d, c->d_ff, dtype, 0);
        y->w3 = dmat(D, stw_getl(m, l, "mlp.up_proj.weight"), c->d_ff, d, dtype, 0);
    }
    D->w.layers = D->layers;
}
static void free_direct(direct *D) {
    int i;
    for (i = 0; i < D->nb; i++) free(D->bufs[i]);
    D->nb = 0;
}

/* logits of T_TOK tokens as one prefill (all positions), then the same tokens decoded
   one at a time: out[2][T_TOK][vocab]. LLM_OK or the first error. */
static llm_status run(const llm_config *c, const llm_weights *w, float *out) {
    llm_state s;
    int toks[T_TOK], i;
    llm_status e;
    size_t V = (size_t)c->vocab;
    for (i = 0; i < T_TOK; i++) toks[i] = (i * 7 + 3) % c->vocab;
    if ((e = llm_state_create(&s, c, T_TOK, T_TOK, LLM_F32)) != LLM_OK) return e;
    e = llm_forward(&s, w, toks, T_TOK, 0, out, 1, NULL);
    for (i = 0; e == LLM_OK && i < T_TOK; i++) e = llm_forward(&s, w, &toks[i], 1, i, out + (T_TOK + i) * V, 0, NULL);
    llm_state_free(&s);
    return e;
}


static llm_config base_config(void) {
    llm_config c = llm_config_default();
    c.d_model = 32, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 48, c.vocab = 64, c.max_seq_len = 64;
    c.norm_eps = 1e-5f, c.rope_theta = 10000.0f, c.rope_layout = LLM_ROPE_HALVES;
    return c;
}

/* ---- the same logits three ways ------------------------------------------------------------ */

/* the fields of c that config.json carries, as read back */
static int same_config(const llm_config *r, const llm_config *c) {
    return r->d_model == c->d_model && r->n_layers == c->n_layers && r->n_heads == c->n_heads && r->n_kv_heads == c->n_kv_heads &&
           r->d_ff == c->d_ff && r->vocab == c->vocab && r->max_seq_len == c->max_seq_len &&
           llm_config_head_dim(r) == llm_config_head_dim(c) && r->rope_layout == LLM_ROPE_HALVES &&
           r->tied_embeddings == c->tied_embeddings && r->bias == c->bias && r->sliding_window == c->sliding_window &&
           r->norm_eps == c->norm_eps && r->rope_theta == c->rope_theta && r->rope_scale == c->rope_scale &&
           r->rope_low_freq_factor == c->rope_low_freq_factor && r->rope_high_freq_factor == c->rope_high_freq_factor &&
           r->rope_orig_ctx == c->rope_orig_ctx;
}

static double worst_interleaved; /* relative to the largest logit, over every case */

static void check_case(const char *what, const llm_config *c, const char *model_type, const char *extra_cfg) {
    static const char *const dtypes[][2] = {{"F32", "F32"}, {"F16", "F16"}, {"BF16", "BF16"}, {"BF16", "F32"}};
    stw_model m;
    char cfg[4096];
    size_t V = (size_t)c->vocab, n = 2 * T_TOK * V, len;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float)), *g = (float *)malloc(n * sizeof(float));
    int k;
    CHECK(stw_model_random(&m, c, 1234u) == 0);
    stw_config_json(cfg, sizeof cfg, c, model_type, extra_cfg);
    for (k = 0; k < 4; k++) {
        const char *dt = dtypes[k][0], *vdt = dtypes[k][1], *why = "";
        unsigned char *file = write_file(&m, dt, vdt, NULL, NULL, &len);
        hf_loaded h;
        direct D, G;
        llm_status e = hf_load(&h, cfg, file, len, &why);
        llm_config rc;
        double rel;
        CHECK_MSG(fc_load_is(e, &why, LLM_OK), "%s %s/%s: llm_hf_load: %s: %s", what, dt, vdt, llm_status_str(e), why);
        /* the config as read (by llm_hf_read_config alone where a big-endian host refused the weights) */
        if (e == LLM_OK) rc = h.m.config;
        else if (llm_hf_read_config(&rc, cfg, strlen(cfg), &why) != LLM_OK) memset(&rc, 0, sizeof rc);
        CHECK_MSG(same_config(&rc, c), "%s %s: config.json read differently", what, dt);
        build_direct(&D, &m, dt, vdt, 0);
        build_direct(&G, &m, dt, vdt, 1);
        CHECK_OK(run(&D.c, &D.w, b));
        CHECK_OK(run(&G.c, &G.w, g));
        if (e == LLM_OK) {
            /* zero-copy: the matrices point into the file's bytes */
            CHECK(h.m.weights.layers[0].wq.data >= (const void *)file && h.m.weights.layers[0].wq.data < (const void *)(file + len));
            CHECK_OK(run(&h.m.config, &h.m.weights, a));
            CHECK_MSG(memcmp(a, b, n * sizeof(float)) == 0, "%s %s/%s: llm_hf_load's logits differ from the same weights direct: %.3g",
                      what, dt, vdt, fc_max_diff(a, b, n));
        }
        rel = fc_max_diff(b, g, n) / fc_max_abs(b, n);
        if (rel > worst_interleaved) worst_interleaved = rel;
        /* the permutation only reorders q.k's sum over a head: measured 2.5e-7 (AVX2),
           2.8e-7 (AVX-512) and 4.0e-7 (scalar) of the largest logit: float rounding of
           that reordered dot product, through 2 layers */
        CHECK_MSG(rel < 2e-6, "%s %s/%s: interleaved (GGUF-style) run differs by %.3g of max |logit|", what, dt, vdt, rel);
        CHECK(fc_max_abs(b, n) > 0.5); /* logits that say something */
        free_direct(&D);
        free_direct(&G);
        hf_free(&h);
        free(file);
    }
    free(a), free(b), free(g);
    stw_model_free(&m);
}

/* A config field the logits depend on: changing it (in the direct run) changes them, so
   the bit-identity above would catch a loader that dropped it. */
static void check_matters(const char *what, const llm_config *c, const llm_config *without) {
    stw_model m;
    direct D, E;
    size_t n = 2 * T_TOK * (size_t)c->vocab;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
    stw_model_random(&m, c, 1234u);
    build_direct(&D, &m, "F32", "F32", 0);
    build_direct(&E, &m, "F32", "F32", 0);
    E.c = *without;
    if (without->bias == LLM_BIAS_NONE) {
        int l;
        for (l = 0; l < c->n_layers; l++) E.layers[l].bq = E.layers[l].bk = E.layers[l].bv = NULL;
    }
    CHECK_OK(run(&D.c, &D.w, a));
    CHECK_OK(run(&E.c, &E.w, b));
    CHECK_MSG(fc_max_diff(a, b, n) > 1e-3, "%s does not change the logits (%.3g)", what, fc_max_diff(a, b, n));
    free_direct(&D), free_direct(&E);
    stw_model_free(&m);
    free(a), free(b);
}

static void test_equal_logits(void) {
    llm_config c = base_config(), w;
    check_case("llama GQA untied", &c, "llama", NULL);
    c.tied_embeddings = 1;
    check_case("llama tied", &c, "llama", NULL);
    c.tied_embeddings = 0, c.n_kv_heads = 1, c.head_dim = 16; /* MQA, head_dim above d / n_heads */
    check_case("llama MQA head_dim 16", &c, "llama", NULL);
    c = base_config();
    c.sliding_window = 3;
    check_case("mistral sliding_window 3", &c, "mistral", NULL);
    w = c, w.sliding_window = 0;
    check_matters("sliding_window", &c, &w);
    c = base_config();
    c.bias = LLM_BIAS_QKV, c.tied_embeddings = 1, c.rope_theta = 1000000.0f, c.norm_eps = 1e-6f;
    check_case("qwen2 qkv biases tied", &c, "qwen2", "\"use_sliding_window\": false, \"sliding_window\": 4096");
    w = c, w.bias = LLM_BIAS_NONE;
    check_matters("qwen2's biases", &c, &w);
    c = base_config();
    c.rope_theta = 500000.0f, c.rope_scale = 8.0f, c.rope_low_freq_factor = 1.0f, c.rope_high_freq_factor = 4.0f,
    c.rope_orig_ctx = 16;
    check_case("llama3 rope_scaling", &c, "llama", NULL);
    w = c, w.rope_scale = 0;
    check_matters("rope_scaling", &c, &w);
    printf("test_hf: HF (rotate-half) vs GGUF-style interleaved logits: max |diff| %.3g of max |logit|\n", worst_interleaved);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static void expect(const char *what, llm_status want, const char *name_in_why, const char *cfg, const unsigned char *file,
                   size_t len) {
    hf_loaded h;
    const char *why = NULL;
    llm_status e = hf_load(&h, cfg, file, len, &why);
    /* (a big-endian host refuses any weights first, saying so) */
    CHECK_MSG((e == want && why && (want == LLM_OK || *why) && (!name_in_why || strstr(why, name_in_why))) ||
                  (!fc_host_le() && why && fc_be_refused(e, why)),
              "%s: %s (want %s): %s", what,
              llm_status_str(e), llm_status_str(want), why ? why : "(null)");
    hf_free(&h);
}
/* a verdict that needs the weights: a big-endian host refuses first, saying so */
static void expect_w(const char *what, llm_status want, const char *name_in_why, const char *cfg, const unsigned char *file,
                     size_t len) {
    hf_loaded h;
    const char *why = NULL;
    llm_status e;
    if (fc_host_le()) {
        expect(what, want, name_in_why, cfg, file, len);
        return;
    }
    e = hf_load(&h, cfg, file, len, &why);
    CHECK_MSG(fc_be_refused(e, why), "%s: %s (want the big-endian host refused): %s", what, llm_status_str(e), why ? why : "(null)");
    hf_free(&h);
}

static void test_refusals(void) {
    llm_config c = base_config(), q;
    stw_model m, mq;
    char cfg[4096], cq[4096];
    size_t len, lq, l2;
    unsigned char *file, *fq, *f2;
    stw_tensor extra;
    const char *why;
    llm_config rc;
    static const float zeros[64];
    stw_model_random(&m, &c, 7u);
    stw_config_json(cfg, sizeof cfg, &c, "llama", NULL);
    file = write_file(&m, "F16", "F16", NULL, NULL, &len);
    expect_w("the valid file", LLM_OK, NULL, cfg, file, len);
    {   /* other architectures and features: refused, never run approximately */
        static const char *const types[] = {"falcon", "gpt_neox", "gemma3", "gpt2", "phi", "deepseek_v3", "olmoe", "Llama", ""};
        int i;
        for (i = 0; i < (int)(sizeof types / sizeof types[0]); i++) {
            stw_config_json(cq, sizeof cq, &c, types[i], NULL);
            expect(types[i], LLM_EUNSUPPORTED, NULL, cq, file, len);
        }
        /* a dense file as a mixture of experts: its config has no experts (test_moe runs real ones) */
        stw_config_json(cq, sizeof cq, &c, "mixtral", NULL);
        expect("mixtral without num_local_experts", LLM_EFORMAT, "num_local_experts", cq, file, len);
        expect("hidden_act gelu", LLM_EUNSUPPORTED, "hidden_act", replace(cfg, "\"silu\"", "\"gelu\""), file, len);
        expect("hidden_act gelu_pytorch_tanh", LLM_EUNSUPPORTED, "hidden_act", replace(cfg, "\"silu\"", "\"gelu_pytorch_tanh\""), file, len);
        expect("attention_bias", LLM_EUNSUPPORTED, "attention_bias", replace(cfg, "\"attention_bias\": false", "\"attention_bias\": true"),
               file, len);
        stw_config_json(cq, sizeof cq, &c, "llama", "\"mlp_bias\": true");
        expect("mlp_bias", LLM_EUNSUPPORTED, "mlp_bias", cq, file, len);
        expect("rope_scaling linear", LLM_EUNSUPPORTED, "rope_scaling",
               replace(cfg, "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"linear\", \"factor\": 2.0}"), file, len);
        expect("rope_scaling dynamic", LLM_EUNSUPPORTED, "rope_scaling",
               replace(cfg, "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2.0}"), file, len);
        expect("rope_scaling yarn", LLM_EUNSUPPORTED, "rope_scaling",
               replace(cfg, "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0}"), file, len);
        expect("rope_scaling llama3 without its factors", LLM_EFORMAT, "rope_scaling",
               replace(cfg, "\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0}"), file, len);
        expect("rope_scaling a number", LLM_EUNSUPPORTED, "rope_scaling", replace(cfg, "\"rope_scaling\": null", "\"rope_scaling\": 2"),
               file, len);
    }
    {   /* config.json itself */
        expect("no hidden_size", LLM_EFORMAT, "hidden_size", replace(cfg, "\"hidden_size\"", "\"hidden_sizes\""), file, len);
        expect("hidden_size 0", LLM_EFORMAT, "hidden_size", replace(cfg, "\"hidden_size\": 32", "\"hidden_size\": 0"), file, len);
        expect("hidden_size 32.5", LLM_EFORMAT, "hidden_size", replace(cfg, "\"hidden_size\": 32", "\"hidden_size\": 32.5"), file, len);
        expect("hidden_size a string", LLM_EFORMAT, "hidden_size", replace(cfg, "\"hidden_size\": 32", "\"hidden_size\": \"32\""), file, len);
        expect("num_hidden_layers -2", LLM_EFORMAT, "num_hidden_layers",
               replace(cfg, "\"num_hidden_layers\": 2", "\"num_hidden_layers\": -2"), file, len);
        expect("kv heads not dividing", LLM_EFORMAT, NULL, replace(cfg, "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"), file, len);
        expect("no model_type", LLM_EFORMAT, "model_type", replace(cfg, "\"model_type\"", "\"model_typ\""), file, len);
        expect("not JSON", LLM_EFORMAT, NULL, replace(cfg, "\"hidden_size\": 32,", "\"hidden_size\": 32,,"), file, len);
        expect("not an object", LLM_EFORMAT, NULL, "[1, 2]", file, len);
        CHECK(llm_hf_read_config(&rc, cfg, 0, &why) == LLM_EFORMAT);
        CHECK(llm_hf_read_config(NULL, cfg, strlen(cfg), &why) == LLM_EINVAL && llm_hf_read_config(&rc, NULL, 0, &why) == LLM_EINVAL);
        /* more tokens than a config.json has: refused as too big, no overflow of the table */
        {
            size_t n = 3 * 5000 + 200, k;
            char *big = (char *)malloc(n + strlen(cfg));
            k = (size_t)sprintf(big, "{\"pad\": [");
            while (k < 3 * 5000) k += (size_t)sprintf(big + k, "0,");
            k += (size_t)sprintf(big + k, "0], %s", cfg + 1);
            CHECK(llm_hf_read_config(&rc, big, k, &why) == LLM_EUNSUPPORTED && strstr(why, "4096"));
            free(big);
        }
        stw_config_json(cq, sizeof cq, &c, "qwen2", "\"use_sliding_window\": true");
        CHECK(llm_hf_read_config(&rc, cq, strlen(cq), &why) == LLM_EUNSUPPORTED && strstr(why, "sliding"));
    }
    {   /* tensors: one more, one missing, a wrong shape, a dtype not run */
        memset(&extra, 0, sizeof extra);
        extra.name = "model.layers.0.self_attn.q_norm.weight", extra.dtype = "F16", extra.n_dims = 1, extra.shape[0] = 8;
        extra.data = zeros;
        f2 = write_file(&m, "F16", "F16", NULL, &extra, &l2);
        expect_w("an extra tensor", LLM_EUNSUPPORTED, "model.layers.0.self_attn.q_norm.weight", cfg, f2, l2);
        free(f2);
        extra.name = "lm_head.weight", extra.n_dims = 2, extra.shape[0] = 64, extra.shape[1] = 32, extra.data = NULL;
        stw_config_json(cq, sizeof cq, &c, "llama", NULL);
        f2 = write_file(&m, "F16", "F16", "lm_head.weight", NULL, &l2);
        expect_w("a missing lm_head", LLM_EFORMAT, "lm_head.weight", cfg, f2, l2);
        free(f2);
        f2 = write_file(&m, "F16", "F16", "model.layers.1.mlp.up_proj.weight", NULL, &l2);
        expect_w("a missing tensor", LLM_EFORMAT, "model.layers.1.mlp.up_proj.weight", cfg, f2, l2);
        free(f2);
        f2 = write_file(&m, "F16", "F16", "model.norm.weight", NULL, &l2);
        expect_w("a missing norm", LLM_EFORMAT, "model.norm.weight", cfg, f2, l2);
        free(f2);
        /* k_proj with the shape of q_proj (MHA where the config says GQA) */
        extra.name = "model.layers.1.self_attn.k_proj.weight", extra.shape[0] = 32, extra.shape[1] = 32;
        f2 = write_file(&m, "F16", "F16", "model.layers.1.self_attn.k_proj.weight", &extra, &l2);
        expect_w("a wrong shape", LLM_EFORMAT, "model.layers.1.self_attn.k_proj.weight", cfg, f2, l2);
        free(f2);
        /* transposed o_proj is only wrong when not square: gate_proj transposed */
        extra.name = "model.layers.0.mlp.gate_proj.weight", extra.shape[0] = 32, extra.shape[1] = 48;
        f2 = write_file(&m, "F16", "F16", "model.layers.0.mlp.gate_proj.weight", &extra, &l2);
        expect_w("a transposed matrix", LLM_EFORMAT, "model.layers.0.mlp.gate_proj.weight", cfg, f2, l2);
        free(f2);
        extra.name = "model.norm.weight", extra.n_dims = 2, extra.shape[0] = 1, extra.shape[1] = 32;
        f2 = write_file(&m, "F16", "F16", "model.norm.weight", &extra, &l2);
        expect_w("a norm as [1][d]", LLM_EFORMAT, "model.norm.weight", cfg, f2, l2);
        free(f2);
        extra.name = "model.layers.0.self_attn.v_proj.weight", extra.dtype = "I8", extra.shape[0] = 16, extra.shape[1] = 32;
        f2 = write_file(&m, "F16", "F16", "model.layers.0.self_attn.v_proj.weight", &extra, &l2);
        expect_w("dtype I8", LLM_EUNSUPPORTED, "model.layers.0.self_attn.v_proj.weight", cfg, f2, l2);
        free(f2);
        f2 = write_file(&m, "F16", "F16", "model.embed_tokens.weight", NULL, &l2);
        expect_w("no embedding", LLM_EFORMAT, "model.embed_tokens.weight", cfg, f2, l2);
        free(f2);
    }
    {   /* buffers and arguments */
        hf_loaded h;
        llm_config cc;
        size_t auxn;
        unsigned char *odd = (unsigned char *)malloc(len + 2);
        memcpy(odd + 1, file, len);
        expect_w("the file one byte off alignment", LLM_EINVAL, "aligned", cfg, odd + 1, len);
        free(odd);
        CHECK_OK(llm_hf_read_config(&cc, cfg, strlen(cfg), &why));
        auxn = llm_hf_aux_floats(&cc);
        CHECK(auxn == (2 * 2 + 1) * 32); /* two norms per layer and the final one, F16 to fp32 */
        CHECK(fc_load_is(hf_load(&h, cfg, file, len, &why), &why, LLM_OK));
        CHECK(fc_load_is(llm_hf_load(&h.m, cfg, strlen(cfg), &h.st, h.layers, MAXL, h.aux, auxn - 1, &why), &why, LLM_EINVAL));
        CHECK(fc_load_is(llm_hf_load(&h.m, cfg, strlen(cfg), &h.st, h.layers, MAXL, NULL, 0, &why), &why, LLM_EINVAL));
        CHECK(llm_hf_load(&h.m, cfg, strlen(cfg), &h.st, h.layers, 1, h.aux, auxn, &why) == LLM_EINVAL);
        CHECK(llm_hf_load(NULL, cfg, strlen(cfg), &h.st, h.layers, MAXL, h.aux, auxn, &why) == LLM_EINVAL);
        CHECK(llm_hf_load(&h.m, cfg, strlen(cfg), NULL, h.layers, MAXL, h.aux, auxn, &why) == LLM_EINVAL);
        CHECK(llm_hf_load(&h.m, cfg, strlen(cfg), &h.st, NULL, MAXL, h.aux, auxn, &why) == LLM_EINVAL);
        CHECK(llm_hf_aux_floats(NULL) == 0);
        hf_free(&h);
        /* F32 vectors are used in place: no aux needed */
        f2 = write_file(&m, "BF16", "F32", NULL, NULL, &l2);
        CHECK_OK(llm_safetensors_create(&h.st, f2, l2, &why));
        CHECK(fc_load_is(llm_hf_load(&h.m, cfg, strlen(cfg), &h.st, h.layers, MAXL, NULL, 0, &why), &why, LLM_OK));
        CHECK(!fc_host_le() || h.m.weights.out_norm == (const float *)llm_safetensors_find(&h.st, "model.norm.weight")->data);
        llm_safetensors_free(&h.st);
        free(f2);
    }
    {   /* the same llm_safetensors loaded twice, first as qwen2 (its biases used), then as
           llama: the biases are then tensors the llama forward pass would ignore, so the
           second load must refuse them like a fresh one does */
        hf_loaded h;
        size_t auxn;
        q = c, q.bias = LLM_BIAS_QKV;
        stw_model_random(&mq, &q, 9u);
        stw_config_json(cq, sizeof cq, &q, "qwen2", NULL);
        fq = write_file(&mq, "F32", "F32", NULL, NULL, &lq);
        expect_w("qwen2's file as llama (fresh)", LLM_EUNSUPPORTED, "bias", cfg, fq, lq);
        CHECK(fc_load_is(hf_load(&h, cq, fq, lq, &why), &why, LLM_OK));
        auxn = llm_hf_aux_floats(&q);
        CHECK_MSG(fc_load_is(llm_hf_load(&h.m, cfg, strlen(cfg), &h.st, h.layers, MAXL, h.aux, auxn, &why), &why, LLM_EUNSUPPORTED),
                  "llm_hf_load keeps st->tensors[].used from an earlier call: qwen2's biases silently ignored by a llama load");
        hf_free(&h);
        free(fq);
        stw_model_free(&mq);
    }
    stw_model_free(&m);
    free(file);
}

/* ---- hostile safetensors ------------------------------------------------------------------ */

/* llm_safetensors_init on an exact-size copy (so a read past the end shows under ASan);
   the status, the reason in *why_out (a static copy). */
static llm_status st_try(const unsigned char *p, size_t len, const char **why_out) {
    static char reason[200];
    unsigned char *copy = (unsigned char *)malloc(len ? len : 1);
    llm_safetensors st;
    size_t need;
    void *mem;
    const char *why = NULL;
    llm_status e;
    memcpy(copy, p, len);
    need = llm_safetensors_bytes(copy, len);
    mem = malloc(need ? need : 8);
    e = llm_safetensors_init(&st, mem, need, copy, len, &why);
    snprintf(reason, sizeof reason, "%s", why ? why : "(null)");
    if (why_out) *why_out = reason;
    /* a refused file leaves no table behind (its memory is freed next) */
    if (e != LLM_OK && (st.toks || st.tensors || st.order || st.n_tensors || st.n_toks))
        e = LLM_OK, snprintf(reason, sizeof reason, "TEST: a refused file left its tables in the llm_safetensors");
    if (e == LLM_OK) {
        int64_t i;
        /* every tensor inside the data */
        for (i = 0; i < st.n_tensors; i++)
            if ((const unsigned char *)st.tensors[i].data < copy + st.data_offset ||
                st.tensors[i].bytes > (uint64_t)(copy + len - (const unsigned char *)st.tensors[i].data))
                e = LLM_EINVAL, snprintf(reason, sizeof reason, "TEST: a tensor outside the buffer was accepted");
    }
    free(mem);
    free(copy);
    return e;
}

static void hostile(const char *what, const char *header, size_t data_len, llm_status want, const char *why_has) {
    unsigned char buf[4096];
    size_t n = stw_raw(buf, sizeof buf, strlen(header), header, NULL, data_len);
    const char *why;
    llm_status e = st_try(buf, n, &why);
    CHECK_MSG(e == want && (want == LLM_OK || *why) && (!why_has || strstr(why, why_has)), "hostile %s: %s (want %s): %s", what, llm_status_str(e),
              llm_status_str(want), why);
}

static void test_hostile(void) {
    static const float v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    stw_tensor t[3];
    unsigned char file[1024], bad[1024];
    size_t n;
    const char *why;
    llm_safetensors st;
    memset(t, 0, sizeof t);
    t[0].name = "a", t[0].dtype = "F32", t[0].n_dims = 2, t[0].shape[0] = 2, t[0].shape[1] = 3, t[0].data = v;
    t[1].name = "b.weight", t[1].dtype = "F16", t[1].n_dims = 1, t[1].shape[0] = 4, t[1].data = v;
    t[2].name = "c", t[2].dtype = "BF16", t[2].n_dims = 1, t[2].shape[0] = 2, t[2].data = v;
    n = stw_safetensors(file, sizeof file, t, 3, "{\"format\":\"pt\"}", 0);
    CHECK((8 + (size_t)file[0]) % 8 == 0 && n == 8 + (size_t)file[0] + 24 + 8 + 4);
    CHECK(st_try(file, n, &why) == LLM_OK);
    CHECK_OK(llm_safetensors_create(&st, file, n, &why));
    CHECK(st.n_tensors == 3 && st.data_offset == 8 + (uint64_t)file[0]);
    {
        const llm_st_tensor *a = llm_safetensors_find(&st, "a"), *b = llm_safetensors_find(&st, "b.weight");
        const llm_st_tensor *c = llm_safetensors_find(&st, "c");
        CHECK(a && a->n_dims == 2 && a->shape[0] == 2 && a->shape[1] == 3 && a->shape[2] == 1 && a->elem_bytes == 4 &&
              a->bytes == 24 && a->data == file + st.data_offset && fc_le_floats_are(a->data, v, 6));
        CHECK(b && b->n_dims == 1 && b->shape[0] == 4 && b->elem_bytes == 2 && b->bytes == 8 && b->data == file + st.data_offset + 24 &&
              b->dtype.n == 3 && memcmp(b->dtype.s, "F16", 3) == 0 && half_to_f32((uint16_t)(file[st.data_offset + 30] | file[st.data_offset + 31] << 8)) == 4.0f);
        CHECK(c && c->bytes == 4 && bf16_to_f32((uint16_t)(file[st.data_offset + 34] | file[st.data_offset + 35] << 8)) == 2.0f);
        CHECK(!llm_safetensors_find(&st, "__metadata__") && !llm_safetensors_find(&st, "b") && !llm_safetensors_find(&st, "") &&
              !llm_safetensors_find(&st, NULL) && !llm_safetensors_find(NULL, "a"));
    }
    llm_safetensors_free(&st);
    CHECK(st.tensors == NULL);
    /* every truncation: refused, never read past the end */
    fc_check_prefixes(file, n, st_try, LLM_EFORMAT, "a safetensors file");
    /* the header length: past the end, huge, too small */
    {
        static const uint64_t lens[] = {0, 1, 2, 5, 0, 0, (uint64_t)1 << 32, (uint64_t)1 << 63, ~(uint64_t)0, ~(uint64_t)0 - 7};
        int i;
        for (i = 0; i < (int)(sizeof lens / sizeof lens[0]); i++) {
            uint64_t L = i == 4 ? (uint64_t)n - 8 + 1 : i == 5 ? (uint64_t)n : lens[i];
            int b;
            memcpy(bad, file, n);
            for (b = 0; b < 8; b++) bad[b] = (unsigned char)(L >> (8 * b));
            CHECK_MSG(st_try(bad, n, &why) == LLM_EFORMAT && *why, "header length %llu: %s", (unsigned long long)L, why);
        }
        /* a header length 20 bytes short: the JSON is cut */
        memcpy(bad, file, n);
        bad[0] = (unsigned char)(file[0] - 20);
        CHECK(st_try(bad, n, &why) == LLM_EFORMAT);
        CHECK(llm_safetensors_bytes(bad, 4) == 0 && llm_safetensors_bytes(NULL, 100) == 0);
    }
    {   /* the header alone (data of data_len zeros): the status, and a word the reason has */
        static const struct {
            const char *what, *header;
            size_t data_len;
            llm_status want;
            const char *why_has;
        } cases[] = {
            {"header not JSON", "{abc}", 0, LLM_EFORMAT, NULL},
            {"header an array", "[]      ", 0, LLM_EFORMAT, NULL},
            {"header a string", "\"a\"     ", 0, LLM_EFORMAT, NULL},
            {"trailing comma", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},}", 4, LLM_EFORMAT, NULL},
            {"entry not an object", "{\"a\": 1}", 0, LLM_EFORMAT, "a"},
            {"entry an array", "{\"a\": [0, 4]}", 4, LLM_EFORMAT, "a"},
            {"offsets reversed", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 8, LLM_EFORMAT, "a"},
            {"offsets past the end", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4, LLM_EFORMAT, "a"},
            {"offsets past the end 2", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 7, LLM_EFORMAT, "a"},
            {"offsets huge", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[18446744073709551612,18446744073709551616]}}",
             4, LLM_EFORMAT, "a"},
            {"offsets near INT64_MAX", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[9223372036854775800,9223372036854775804]}}",
             4, LLM_EFORMAT, "a"},
            {"offsets not shape x dtype", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}",
             8, LLM_EFORMAT, "a"},
            {"offsets not shape x dtype 2", "{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,8]}}",
             8, LLM_EFORMAT, "a"},
            {"offsets negative", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 8, LLM_EFORMAT, "a"},
            {"offsets fractional", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0.5,4.5]}}", 8, LLM_EFORMAT, "a"},
            {"offsets one", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4]}}", 8, LLM_EFORMAT, "a"},
            {"offsets three", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8, LLM_EFORMAT, "a"},
            {"offsets strings", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",\"4\"]}}", 8, LLM_EFORMAT, "a"},
            {"no offsets", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 8, LLM_EFORMAT, "a"},
            {"shape negative", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1,-4],\"data_offsets\":[0,16]}}", 16, LLM_EFORMAT, "a"},
            {"shape fractional", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2.5],\"data_offsets\":[0,10]}}", 16, LLM_EFORMAT, "a"},
            {"shape a string", "{\"a\":{\"dtype\":\"F32\",\"shape\":\"[1]\",\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "a"},
            {"shape of strings", "{\"a\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "a"},
            {"shape nested", "{\"a\":{\"dtype\":\"F32\",\"shape\":[[1]],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "a"},
            {"no shape", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "a"},
            {"shape overflow", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}",
             4, LLM_EFORMAT, "a"},
            {"shape overflow 3", "{\"a\":{\"dtype\":\"F32\",\"shape\":[65536,65536,65536,65536],\"data_offsets\":[0,0]}}",
             4, LLM_EFORMAT, "a"},
            {"shape x bytes overflow", "{\"a\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],\"data_offsets\":[0,0]}}",
             4, LLM_EFORMAT, "a"},
            {"duplicate names", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
             8, LLM_EFORMAT, "twice"},
            {"unknown dtype", "{\"a\":{\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "dtype"},
            {"dtype lower case", "{\"a\":{\"dtype\":\"f32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "dtype"},
            {"dtype a number", "{\"a\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "dtype"},
            {"no dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, "dtype"},
            {"escaped name", "{\"a\\u0062\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, LLM_EFORMAT, NULL},
            /* valid corners: no tensors; a scalar (shape []); a zero-size tensor; metadata
               anywhere; padding spaces; known dtypes llm.h does not run (listed, refused
               later by the loader) */
            {"empty header", "{}      ", 0, LLM_OK, NULL},
            {"only metadata", "{\"__metadata__\":{\"format\":\"pt\"}}", 0, LLM_OK, NULL},
            {"a scalar", "{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}", 4, LLM_OK, NULL},
            {"zero elements", "{\"a\":{\"dtype\":\"F32\",\"shape\":[0,7],\"data_offsets\":[0,0]}}", 0, LLM_OK, NULL},
            {"metadata last", "{\"a\":{\"dtype\":\"I8\",\"shape\":[3],\"data_offsets\":[0,3]},\"__metadata__\":{}}   ",
             3, LLM_OK, NULL},
            {"F8_E4M3, U64", "{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[3],\"data_offsets\":[0,3]},\"b\":{\"dtype\":\"U64\",\"shape\":[1],\"data_offsets\":[3,11]}}",
             11, LLM_OK, NULL},
        };
        size_t i;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
            hostile(cases[i].what, cases[i].header, cases[i].data_len, cases[i].want, cases[i].why_has);
    }
    {   /* the header padded with a NUL instead of spaces: text after the JSON value */
        const char *h = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        unsigned char buf[256];
        size_t m = stw_raw(buf, sizeof buf, strlen(h) + 1, h, "\0\0\0\0\0", 5);
        CHECK(st_try(buf, m, &why) == LLM_EFORMAT && *why);
    }
    {
        const char *h5 = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1],\"data_offsets\":[0,4]}}";
        unsigned char buf[256];
        size_t m = stw_raw(buf, sizeof buf, strlen(h5), h5, NULL, 4);
        llm_status e = st_try(buf, m, &why);
        CHECK_MSG((e == LLM_EFORMAT || e == LLM_EUNSUPPORTED) && strstr(why, "a"), "5 dims: %s: %s", llm_status_str(e), why);
    }
    {   /* arguments: memory missing, misaligned, too small */
        size_t need = llm_safetensors_bytes(file, n);
        void *mem = malloc(need + 16);
        CHECK(need > 0);
        CHECK(llm_safetensors_init(&st, NULL, 0, file, n, &why) == LLM_EINVAL);
        CHECK(llm_safetensors_init(&st, (char *)mem + 4, need, file, n, &why) == LLM_EINVAL);
        CHECK(llm_safetensors_init(&st, mem, need / 2, file, n, &why) == LLM_EINVAL);
        CHECK(llm_safetensors_init(NULL, mem, need, file, n, &why) == LLM_EINVAL);
        CHECK(llm_safetensors_init(&st, mem, need, NULL, n, &why) != LLM_OK);
        CHECK_OK(llm_safetensors_init(&st, mem, need, file, n, &why));
        free(mem);
        CHECK(llm_safetensors_create(&st, file, 7, &why) == LLM_EFORMAT && st.tensors == NULL);
        llm_safetensors_free(&st);
        llm_safetensors_free(NULL);
    }
}

/* ---- llm_hf_load_dir ---------------------------------------------------------------------- */

static int put_file(const char *dir, const char *name, const void *p, size_t n) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) return 1;
    if (n && fwrite(p, 1, n, f) != n) n = 0;
    return fclose(f) != 0 || !n;
}
static void rm_file(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    remove(path);
}

static void test_dir(void) {
    llm_config c = base_config();
    stw_model m;
    char dir[256], cfg[4096];
    size_t len, n;
    unsigned char *file;
    llm_model dm;
    hf_loaded h;
    const char *why;
    float *a = NULL, *b = NULL;
    llm_status e;
    c.bias = LLM_BIAS_QKV;
    snprintf(dir, sizeof dir, "build/test_hf.%ld", (long)getpid());
    mkdir("build", 0777);
    if (mkdir(dir, 0777) != 0) {
        CHECK_MSG(0, "cannot make %s", dir);
        return;
    }
    stw_model_random(&m, &c, 99u);
    stw_config_json(cfg, sizeof cfg, &c, "qwen2", NULL);
    file = write_file(&m, "BF16", "BF16", NULL, NULL, &len);
    CHECK(put_file(dir, "config.json", cfg, strlen(cfg)) == 0);
    CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EIO && *why, "no model.safetensors: %s", why);
    CHECK(put_file(dir, "model.safetensors.index.json", "{\"weight_map\": {}}", 18) == 0);
    CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EFORMAT && strstr(why, "weight_map"), "empty weight_map: %s", why);
    rm_file(dir, "model.safetensors.index.json");
    CHECK(put_file(dir, "model.safetensors", file, 20) == 0); /* cut inside the header */
    CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EFORMAT && *why, "truncated: %s", why);
    {   /* a header length of 2 GiB (the most llm_hf_load_dir takes) and above, in a file of 16 bytes */
        unsigned char lie[16];
        memcpy(lie, file, 16);
        lie[0] = lie[1] = lie[2] = 0, lie[3] = 0x80, lie[4] = lie[5] = lie[6] = lie[7] = 0;
        CHECK(put_file(dir, "model.safetensors", lie, 16) == 0);
        CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EFORMAT && *why, "2 GiB header in 16 bytes: %s", why);
        lie[0] = 1;
        CHECK(put_file(dir, "model.safetensors", lie, 16) == 0);
        CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EFORMAT && *why, "2 GiB + 1 header: %s", why);
        lie[7] = 0xff;
        CHECK(put_file(dir, "model.safetensors", lie, 16) == 0);
        CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EFORMAT && *why, "huge header: %s", why);
    }
    CHECK(put_file(dir, "model.safetensors", file, len - 1) == 0); /* cut inside the data */
    CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EFORMAT && *why, "data truncated: %s", why);
    CHECK(put_file(dir, "model.safetensors", file, len) == 0);
    e = llm_hf_load_dir(&dm, dir, &why);
    CHECK_MSG(fc_load_is(e, &why, LLM_OK), "llm_hf_load_dir: %s: %s", llm_status_str(e), why);
    CHECK(fc_load_is(hf_load(&h, cfg, file, len, &why), &why, LLM_OK));
    if (fc_host_le()) {
        n = 2 * T_TOK * (size_t)c.vocab;
        a = (float *)malloc(n * sizeof(float)), b = (float *)malloc(n * sizeof(float));
        CHECK_OK(run(&dm.config, &dm.weights, a));
        CHECK_OK(run(&h.m.config, &h.m.weights, b));
        CHECK_MSG(memcmp(a, b, n * sizeof(float)) == 0, "llm_hf_load_dir's logits differ from llm_hf_load's");
        CHECK(dm.owned != NULL);
        llm_model_free(&dm);
    }
    hf_free(&h);
    /* a refused config.json: its reason comes back */
    CHECK(put_file(dir, "config.json", replace(cfg, "\"qwen2\"", "\"qwen9\""), strlen(cfg)) == 0);
    CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EUNSUPPORTED && strstr(why, "model_type"), "qwen9 dir: %s", why);
    /* a tensor-naming reason survives the call (it lives in the model's why) */
    {
        stw_tensor extra;
        unsigned char *f2;
        size_t l2;
        static const float zeros[8];
        memset(&extra, 0, sizeof extra);
        extra.name = "model.layers.1.self_attn.k_norm.weight", extra.dtype = "BF16", extra.n_dims = 1, extra.shape[0] = 8;
        extra.data = zeros;
        f2 = write_file(&m, "BF16", "BF16", NULL, &extra, &l2);
        CHECK(put_file(dir, "config.json", cfg, strlen(cfg)) == 0 && put_file(dir, "model.safetensors", f2, l2) == 0);
        e = llm_hf_load_dir(&dm, dir, &why);
        CHECK_MSG(fc_host_le() ? e == LLM_EUNSUPPORTED && strstr(why, "model.layers.1.self_attn.k_norm.weight") : fc_be_refused(e, why),
                  "k_norm dir: %s", why);
        free(f2);
    }
    rm_file(dir, "model.safetensors");
    rm_file(dir, "config.json");
    CHECK_MSG(llm_hf_load_dir(&dm, dir, &why) == LLM_EIO && *why, "no config.json: %s", why);
    CHECK(llm_hf_load_dir(&dm, NULL, &why) == LLM_EINVAL && llm_hf_load_dir(NULL, dir, &why) == LLM_EINVAL);
    CHECK(llm_hf_load_dir(&dm, "build/test_hf.no.such.dir", &why) == LLM_EIO);
    rmdir(dir);
    free(a), free(b), free(file);
    stw_model_free(&m);
}

/* ---- sharded directories ----------------------------------------------------------------- */

/* the logits of dir's model (NULL if it does not load: the reason, which may live in the
   model, copied for the caller) */
static float *dir_logits(const char *dir, size_t n, const char **why, llm_status *e) {
    static char kept[256];
    llm_model dm;
    float *out = NULL;
    *e = llm_hf_load_dir(&dm, dir, why);
    snprintf(kept, sizeof kept, "%s", *why ? *why : "(null)");
    *why = kept;
    if (*e != LLM_OK) return NULL;
    out = (float *)malloc(n * sizeof(float));
    if (run(&dm.config, &dm.weights, out) != LLM_OK) free(out), out = NULL;
    llm_model_free(&dm);
    return out;
}

/* dir/config.json, the n shards of t and the index (idx, or the writer's own) */
static void put_sharded(const char *dir, const char *cfg, const stw_tensor *t, int count, int n, const char *idx) {
    static char index[1 << 16];
    char file[64];
    int k;
    CHECK(put_file(dir, "config.json", cfg, strlen(cfg)) == 0);
    for (k = 0; k < n; k++) {
        size_t len = stw_shard(NULL, 0, t, count, k, n);
        unsigned char *p = (unsigned char *)malloc(len);
        stw_shard(p, len, t, count, k, n);
        CHECK(put_file(dir, stw_shard_name(file, sizeof file, k, n), p, len) == 0);
        free(p);
    }
    if (!idx) {
        CHECK(stw_index_json(index, sizeof index, t, count, n) < (int)sizeof index);
        idx = index;
    }
    CHECK(put_file(dir, "model.safetensors.index.json", idx, strlen(idx)) == 0);
}
static void rm_sharded(const char *dir, int n) {
    char file[64];
    int k;
    for (k = 0; k < n; k++) rm_file(dir, stw_shard_name(file, sizeof file, k, n));
    rm_file(dir, "model.safetensors.index.json");
    rm_file(dir, "config.json");
}

static void expect_dir(const char *what, const char *dir, llm_status want, const char *in_why, size_t n) {
    const char *why = NULL;
    llm_status e;
    float *x = dir_logits(dir, n, &why, &e);
    CHECK_MSG(e == want && why && strstr(why, in_why), "%s: %s (%s), want %s naming \"%s\"", what, llm_status_str(e), why ? why : "",
              llm_status_str(want), in_why);
    free(x);
}

static void test_sharded(void) {
    llm_config c = base_config();
    stw_model m;
    stw_tensor t[STW_MAX_TENSORS];
    char dir[256], cfg[4096], idx[1 << 16], file[64];
    static const int splits[3] = {2, 3, 5};
    unsigned char *one;
    size_t len, n;
    int count, i;
    float *ref;
    const char *why;
    llm_status e;
    llm_model_shapes s1, s2;
    if (!fc_host_le()) {
        TEST_SKIP(1, "sharded directories: a big-endian host refuses safetensors weights");
        return;
    }
    c.bias = LLM_BIAS_QKV;
    snprintf(dir, sizeof dir, "build/test_hf_shards.%ld", (long)getpid());
    mkdir("build", 0777);
    if (mkdir(dir, 0777) != 0) {
        CHECK_MSG(0, "cannot make %s", dir);
        return;
    }
    stw_model_random(&m, &c, 77u);
    stw_config_json(cfg, sizeof cfg, &c, "qwen2", NULL);
    count = stw_model_tensors(&m, "BF16", "F32", t);
    n = 2 * T_TOK * (size_t)c.vocab;
    /* the reference: the same tensors as one model.safetensors */
    one = write_file(&m, "BF16", "F32", NULL, NULL, &len);
    CHECK(put_file(dir, "config.json", cfg, strlen(cfg)) == 0 && put_file(dir, "model.safetensors", one, len) == 0);
    ref = dir_logits(dir, n, &why, &e);
    CHECK_MSG(ref != NULL, "one file: %s: %s", llm_status_str(e), why);
    CHECK_OK(llm_hf_shapes_dir(&s1, dir, &why));
    rm_file(dir, "model.safetensors");
    for (i = 0; i < 3 && ref; i++) {
        float *x;
        put_sharded(dir, cfg, t, count, splits[i], NULL);
        x = dir_logits(dir, n, &why, &e);
        CHECK_MSG(x && memcmp(x, ref, n * sizeof(float)) == 0, "%d shards: %s %s: logits %s", splits[i], llm_status_str(e), why,
                  x ? "differ from one file's" : "none");
        free(x);
        /* llm-plan's sizing agrees with the one file's */
        CHECK_OK(llm_hf_shapes_dir(&s2, dir, &why));
        CHECK_MSG(s2.n_tensors == s1.n_tensors && s2.tensor_bytes == s1.tensor_bytes && s2.n_elements == s1.n_elements &&
                      s2.n_files == splits[i],
                  "%d shards' shapes: %llu tensors, %llu bytes, %d files", splits[i], (unsigned long long)s2.n_tensors,
                  (unsigned long long)s2.tensor_bytes, s2.n_files);
        rm_sharded(dir, splits[i]);
    }
    /* the buffer API: the three shards from memory */
    {
        llm_safetensors sts[3], third;
        llm_layer_weights layers[MAXL];
        unsigned char *bufs[3];
        float *aux, *x = (float *)malloc(n * sizeof(float));
        size_t auxn;
        llm_model bm;
        llm_config rc;
        CHECK_OK(llm_hf_read_config(&rc, cfg, strlen(cfg), &why));
        auxn = llm_hf_aux_floats(&rc);
        aux = (float *)malloc(auxn * sizeof(float));
        for (i = 0; i < 3; i++) {
            size_t l = stw_shard(NULL, 0, t, count, i, 3);
            bufs[i] = (unsigned char *)malloc(l);
            stw_shard(bufs[i], l, t, count, i, 3);
            CHECK_OK(llm_safetensors_create(&sts[i], bufs[i], l, &why));
        }
        e = llm_hf_load_shards(&bm, cfg, strlen(cfg), sts, 3, layers, MAXL, aux, auxn, &why);
        CHECK_MSG(e == LLM_OK, "llm_hf_load_shards: %s", why);
        if (e == LLM_OK && ref) {
            CHECK_OK(run(&bm.config, &bm.weights, x));
            CHECK_MSG(memcmp(x, ref, n * sizeof(float)) == 0, "llm_hf_load_shards' logits differ from one file's");
        }
        /* a shard left out: its tensors are missing, by name */
        e = llm_hf_load_shards(&bm, cfg, strlen(cfg), sts, 2, layers, MAXL, aux, auxn, &why);
        CHECK_MSG(e == LLM_EFORMAT && strstr(why, "missing"), "two of three shards: %s", why);
        /* the same shard twice: its tensors are in two shards */
        third = sts[2], sts[2] = sts[1];
        e = llm_hf_load_shards(&bm, cfg, strlen(cfg), sts, 3, layers, MAXL, aux, auxn, &why);
        CHECK_MSG(e == LLM_EFORMAT && strstr(why, "two shards"), "a shard twice: %s", why);
        CHECK(llm_hf_load_shards(&bm, cfg, strlen(cfg), sts, 0, layers, MAXL, aux, auxn, &why) == LLM_EINVAL);
        for (i = 0; i < 2; i++) llm_safetensors_free(&sts[i]);
        llm_safetensors_free(&third);
        for (i = 0; i < 3; i++) free(bufs[i]);
        free(aux), free(x);
    }
    /* hostile indexes and shards, each refused with a reason naming the tensor or file */
    stw_index_json(idx, sizeof idx, t, count, 3);
    put_sharded(dir, cfg, t, count, 3, replace(idx, stw_shard_name(file, sizeof file, 2, 3), "../x.safetensors"));
    expect_dir("\"../x\"", dir, LLM_EFORMAT, "../x.safetensors", n);
    put_sharded(dir, cfg, t, count, 3, replace(idx, stw_shard_name(file, sizeof file, 2, 3), "/tmp/x.safetensors"));
    expect_dir("an absolute path", dir, LLM_EFORMAT, "/tmp/x.safetensors", n);
    {   /* the last tensor (in shard 3) said to be in shard 1; left out of the index */
        char from[160], to[160];
        snprintf(from, sizeof from, "\"%s\": \"model-00003", t[count - 1].name);
        snprintf(to, sizeof to, "\"%s\": \"model-00001", t[count - 1].name);
        put_sharded(dir, cfg, t, count, 3, replace(idx, from, to));
        expect_dir("a tensor in the wrong shard", dir, LLM_EFORMAT, t[count - 1].name, n);
        snprintf(from, sizeof from, ", \"%s\": \"model-00003-of-00003.safetensors\"", t[count - 1].name);
        put_sharded(dir, cfg, t, count, 3, replace(idx, from, ""));
        expect_dir("a shard's tensor not in the index", dir, LLM_EFORMAT, t[count - 1].name, n);
        /* the index of shards 1 and 2 only, shard 3 in the directory: its tensors are missing */
        {
            static char two[1 << 16];
            int k = snprintf(two, sizeof two, "{\"weight_map\": {"), first = 1;
            for (i = 0; i < count; i++)
                if (stw_shard_of(i, count, 3) < 2)
                    k += snprintf(two + k, sizeof two - (size_t)k, "%s\"%s\": \"%s\"", first ? "" : ", ", t[i].name,
                                  stw_shard_name(file, sizeof file, stw_shard_of(i, count, 3), 3)),
                        first = 0;
            snprintf(two + k, sizeof two - (size_t)k, "}}");
            put_sharded(dir, cfg, t, count, 3, two);
            expect_dir("a needed tensor in a shard the index does not name", dir, LLM_EFORMAT, "missing", n);
        }
    }
    put_sharded(dir, cfg, t, count, 3, replace(idx, "\"weight_map\": {", "\"weight_map\": ["));
    expect_dir("broken JSON", dir, LLM_EFORMAT, "", n);
    put_sharded(dir, cfg, t, count, 3, replace(idx, "\"model-00001-of-00003.safetensors\"", "7"));
    expect_dir("a number for a file", dir, LLM_EFORMAT, "not a string", n);
    put_sharded(dir, cfg, t, count, 3, replace(idx, "model-00002-of-00003", "model-00009-of-00003"));
    expect_dir("a shard that is not there", dir, LLM_EIO, "model-00009-of-00003", n);
    put_sharded(dir, cfg, t, count, 3, NULL);
    CHECK(put_file(dir, stw_shard_name(file, sizeof file, 1, 3), "not a safetensors file at all", 29) == 0);
    expect_dir("a shard that is not safetensors", dir, LLM_EFORMAT, "model-00002-of-00003", n);
    {   /* a truncated shard; a tensor in two shards (shard 1 also holds shard 3's first tensor) */
        size_t l = stw_shard(NULL, 0, t, count, 1, 3);
        unsigned char *p = (unsigned char *)malloc(l);
        stw_shard(p, l, t, count, 1, 3);
        CHECK(put_file(dir, file, p, l - 3) == 0);
        expect_dir("a truncated shard", dir, LLM_EFORMAT, "model-00002-of-00003", n);
        free(p);
        put_sharded(dir, cfg, t, count, 3, NULL);
        {
            int first = 0;
            stw_tensor sub[STW_MAX_TENSORS];
            int k = 0;
            while (stw_shard_of(first, count, 3) != 2) first++;
            for (i = 0; i < count; i++)
                if (stw_shard_of(i, count, 3) == 0) sub[k++] = t[i];
            sub[k++] = t[first];
            l = stw_safetensors(NULL, 0, sub, k, NULL, 0);
            p = (unsigned char *)malloc(l);
            stw_safetensors(p, l, sub, k, NULL, 0);
            CHECK(put_file(dir, stw_shard_name(file, sizeof file, 0, 3), p, l) == 0);
            expect_dir("a tensor in two shards", dir, LLM_EFORMAT, t[first].name, n);
            free(p);
        }
    }
    rm_sharded(dir, 3);
    rmdir(dir);
    free(ref), free(one);
    stw_model_free(&m);
}

/* ---- stories260K.bin as an HF directory ------------------------------------------------- */

static void add_copy(stw_model *s, const char *name, int64_t rows, int64_t cols, const float *src, int hd) {
    unsigned seed = 0;
    float *x = stw_add(s, name, rows, cols, 0.0f, 0, &seed);
    if (hd) stw_permute_qk(x, src, (int)rows / hd, hd, cols, 0); /* interleaved (llama2.c) to HF */
    else memcpy(x, src, (size_t)((rows ? rows : 1) * cols) * sizeof(float));
}

static void test_stories(void) {
    char path[512], tpath[512], ipath[512], gpath[512], dir[256], cfg[4096];
    llm_model m, hm;
    llm_tokenizer tok;
    llm_state s;
    stw_model sm;
    stw_tensor t[STW_MAX_TENSORS];
    const char *why;
    int want[300], n_want = 0, ids[300], n_ids, n_prompt, pos, token, mismatch = -1, l, nt;
    float *logits;
    unsigned char *file;
    size_t len;
    FILE *f;
    const llm_config *c;
    int64_t d, hd, qd, kvd, ff;
    sprintf(path, "%s/stories260K.bin", test_models_dir());
    sprintf(tpath, "%s/synth512.bin", test_models_dir());
    sprintf(ipath, "%s/stories260K.prompt.ids", test_models_dir());
    if (!(f = fopen(path, "rb")) || (fclose(f), !(f = fopen(tpath, "rb")))) {
        TEST_SKIP_SHARED(6, "stories260K as an HF directory: %s or synth512.bin absent", path);
        return;
    }
    fclose(f);
    if (!(f = fopen(ipath, "r"))) {
        TEST_SKIP_SHARED(6, "stories260K as an HF directory: %s absent", ipath);
        return;
    }
    while (n_want < 300 && fscanf(f, "%d", &want[n_want]) == 1) n_want++;
    fclose(f);
    CHECK_OK(llm_llama2c_load_file(&m, path, &why));
    c = &m.config;
    d = c->d_model, hd = llm_config_head_dim(c), qd = (int64_t)c->n_heads * hd, kvd = (int64_t)c->n_kv_heads * hd, ff = c->d_ff;
    /* the HF conversion: HF names, q/k rows to rotate-half order, shared classifier tied */
    memset(&sm, 0, sizeof sm);
    sm.c = *c;
    add_copy(&sm, "model.embed_tokens.weight", c->vocab, d, (const float *)m.weights.tok_embed.data, 0);
    add_copy(&sm, "model.norm.weight", 0, d, m.weights.out_norm, 0);
    if (m.weights.lm_head.data != m.weights.tok_embed.data)
        add_copy(&sm, "lm_head.weight", c->vocab, d, (const float *)m.weights.lm_head.data, 0);
    for (l = 0; l < c->n_layers; l++) {
        const llm_layer_weights *y = &m.weights.layers[l];
        char name[64];
#define COPY(suffix, r, cols, src, perm)                                   \
    snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix);          \
    add_copy(&sm, name, r, cols, src, perm)
        COPY("input_layernorm.weight", 0, d, y->attn_norm, 0);
        COPY("self_attn.q_proj.weight", qd, d, (const float *)y->wq.data, (int)hd);
        COPY("self_attn.k_proj.weight", kvd, d, (const float *)y->wk.data, (int)hd);
        COPY("self_attn.v_proj.weight", kvd, d, (const float *)y->wv.data, 0);
        COPY("self_attn.o_proj.weight", d, qd, (const float *)y->wo.data, 0);
        COPY("post_attention_layernorm.weight", 0, d, y->ffn_norm, 0);
        COPY("mlp.gate_proj.weight", ff, d, (const float *)y->w1.data, 0);
        COPY("mlp.down_proj.weight", d, ff, (const float *)y->w2.data, 0);
        COPY("mlp.up_proj.weight", ff, d, (const float *)y->w3.data, 0);
#undef COPY
    }
    sm.c.tied_embeddings = m.weights.lm_head.data == m.weights.tok_embed.data;
    nt = stw_model_tensors(&sm, "F32", "F32", t);
    len = stw_safetensors(NULL, 0, t, nt, "{\"format\":\"pt\"}", 0);
    file = (unsigned char *)malloc(len);
    stw_safetensors(file, len, t, nt, "{\"format\":\"pt\"}", 0);
    stw_config_json(cfg, sizeof cfg, &sm.c, "llama", NULL);
    snprintf(dir, sizeof dir, "build/test_hf_stories.%ld", (long)getpid());
    mkdir("build", 0777);
    CHECK(mkdir(dir, 0777) == 0 && put_file(dir, "config.json", cfg, strlen(cfg)) == 0 && put_file(dir, "model.safetensors", file, len) == 0);
    {
        llm_status e = llm_hf_load_dir(&hm, dir, &why);
        CHECK_MSG(fc_load_is(e, &why, LLM_OK), "stories260K as an HF directory: %s: %s", llm_status_str(e), why);
    }
    rm_file(dir, "config.json"), rm_file(dir, "model.safetensors"), rmdir(dir);
    if (!fc_host_le()) { /* no weights loaded to run */
        llm_model_free(&m);
        stw_model_free(&sm);
        free(file);
        return;
    }
    CHECK(hm.config.rope_layout == LLM_ROPE_HALVES && hm.config.tied_embeddings == sm.c.tied_embeddings);
    CHECK_OK(llm_tokenizer_load_file(&tok, tpath, hm.config.vocab, &why));
    CHECK_OK(llm_tokenize(&tok, "Once upon a time", 1, 0, ids, 300, &n_prompt));
    CHECK_OK(llm_state_create(&s, &hm.config, 256, 1, LLM_F32));
    logits = (float *)malloc(sizeof(float) * (size_t)hm.config.vocab);
    /* run.c at temperature 0: force the prompt, then argmax */
    token = ids[0], n_ids = 1;
    for (pos = 0; pos < 256; pos++) {
        int next;
        if (llm_forward(&s, &hm.weights, &token, 1, pos, logits, 0, NULL) != LLM_OK) break;
        next = pos < n_prompt - 1 ? ids[pos + 1] : llm_argmax(logits, hm.config.vocab);
        if (next == 1) break;
        ids[n_ids++] = next;
        token = next;
    }
    mismatch = fc_first_mismatch(ids, n_ids, want, n_want);
    CHECK_MSG(n_want == 257 && n_ids == n_want && mismatch < 0, "stories260K from an HF directory: %d ids of %d, first mismatch at %d",
              n_ids, n_want, mismatch);
    llm_state_free(&s);
    /* the same model as llama.cpp converted it (stories260K.gguf: interleaved q/k rows,
       its own permutation): every position's logits along run.c's path agree */
    sprintf(gpath, "%s/stories260K.gguf", test_models_dir());
    if (!(f = fopen(gpath, "rb"))) {
        TEST_SKIP_SHARED(3, "HF vs GGUF logits: %s absent", gpath);
    } else {
        llm_model gm;
        size_t V = (size_t)hm.config.vocab;
        float *a = (float *)malloc(256 * V * sizeof(float)), *b = (float *)malloc(256 * V * sizeof(float));
        llm_state s2;
        double rel;
        fclose(f);
        CHECK_OK(llm_gguf_load_file(&gm, gpath, &why));
        CHECK(gm.config.rope_layout == LLM_ROPE_INTERLEAVED && gm.config.vocab == hm.config.vocab);
        CHECK_OK(llm_state_create(&s, &hm.config, 256, 256, LLM_F32));
        CHECK_OK(llm_state_create(&s2, &gm.config, 256, 256, LLM_F32));
        CHECK_OK(llm_forward(&s, &hm.weights, want, 256, 0, a, 1, NULL));
        CHECK_OK(llm_forward(&s2, &gm.weights, want, 256, 0, b, 1, NULL));
        rel = fc_max_diff(a, b, 256 * V) / fc_max_abs(b, 256 * V);
        printf("test_hf: stories260K, HF directory vs stories260K.gguf, 256 positions: max |diff| %.3g of max |logit|\n", rel);
        /* measured 1.8e-6 (AVX-512), 2.1e-6 (AVX2), 2.2e-6 (scalar): the reordered q.k
           sums over 256 positions and 5 layers, float rounding (stories260K.bin and the
           GGUF alone agree bit for bit) */
        CHECK_MSG(rel < 2e-5, "stories260K HF vs GGUF logits differ by %.3g of max |logit|", rel);
        llm_state_free(&s2);
        llm_state_free(&s);
        llm_model_free(&gm);
        free(a), free(b);
    }
    llm_tokenizer_free(&tok);
    llm_model_free(&hm);
    llm_model_free(&m);
    stw_model_free(&sm);
    free(logits), free(file);
}

/* ---- the other architectures: a tiny model of each under Hugging Face's names ----------- */

/* What each config.json and file means, from transformers' modeling_*.py, written out
   here: the config the loader must read, and the tensor names. */
enum { HT = 24 }; /* tokens per run: past each window below */
static llm_config hf_arch_config(const char *mt) {
    llm_config c = llm_config_default();
    c.d_model = 32, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 64, c.vocab = 40, c.max_seq_len = 64;
    c.norm_eps = 1e-6f, c.rope_theta = 20000.0f, c.rope_layout = LLM_ROPE_HALVES;
    if (!strcmp(mt, "qwen2")) c.bias = LLM_BIAS_QKV, c.tied_embeddings = 1;
    if (!strcmp(mt, "qwen3")) c.qk_norm = 1, c.head_dim = 16;
    if (!strncmp(mt, "gemma", 5)) {
        c.ffn = LLM_FFN_GEGLU, c.tied_embeddings = 1, c.n_kv_heads = 1, c.head_dim = 16;
        c.embed_scale = sqrtf(32.0f);
    }
    if (!strcmp(mt, "gemma2")) {
        c.sandwich_norm = 1, c.attn_softcap = 1.5f, c.final_softcap = 8.0f, c.sliding_window = 5, c.window_pattern = 2;
        c.n_kv_heads = 2, c.attn_scale = (float)(1.0 / sqrt(24.0)); /* query_pre_attn_scalar 24 */
    }
    if (!strcmp(mt, "phi3")) c.n_kv_heads = 4, c.sliding_window = 7;
    return c;
}
static const char *hf_arch_extra(const char *mt) {
    if (!strcmp(mt, "gemma")) return "\"hidden_activation\": \"gelu_pytorch_tanh\"";
    if (!strcmp(mt, "gemma2"))
        return "\"hidden_activation\": \"gelu_pytorch_tanh\", \"query_pre_attn_scalar\": 24, "
               "\"attn_logit_softcapping\": 1.5, \"final_logit_softcapping\": 8.0";
    if (!strncmp(mt, "qwen", 4)) return "\"use_sliding_window\": false, \"max_window_layers\": 2";
    return NULL;
}

/* The model's tensors under mt's names, F32. Gemma's norm gains are stored as w, the
   model multiplies by 1 + w: the file gets gain - 1. keep[] holds the arrays made here. */
typedef struct hf_file {
    stw_tensor t[64];
    char names[64][64];
    float *keep[64];
    int n, nk;
} hf_file;
static float *hf_keep(hf_file *f, size_t n) { return f->keep[f->nk++] = (float *)malloc(n * sizeof(float)); }
static void hf_put(hf_file *f, const char *name, int64_t rows, int64_t cols, const float *x) {
    stw_tensor *t = &f->t[f->n];
    snprintf(f->names[f->n], sizeof f->names[0], "%s", name);
    memset(t, 0, sizeof *t);
    t->name = f->names[f->n], t->dtype = "F32", t->data = x;
    t->n_dims = rows ? 2 : 1, t->shape[0] = rows ? rows : cols, t->shape[1] = cols;
    f->n++;
}
static const float *hf_gain(hf_file *f, const char *mt, const float *g, int64_t n) {
    float *p;
    int64_t i;
    if (strncmp(mt, "gemma", 5)) return g;
    p = hf_keep(f, (size_t)n);
    for (i = 0; i < n; i++) p[i] = g[i] - 1.0f; /* exact: g is within a factor 2 of 1 */
    return p;
}
static unsigned char *hf_arch_file(const char *mt, const rnd_model *m, hf_file *f, const char *drop, size_t *len) {
    const llm_config *c = &m->c;
    int64_t d = c->d_model, hd = hdim(c), q = hd * c->n_heads, kv = hd * c->n_kv_heads, ff = c->d_ff;
    int l, i, k = 0;
    char nm[64];
    unsigned char *p;
    memset(f, 0, sizeof *f);
    hf_put(f, "model.embed_tokens.weight", c->vocab, d, m->emb);
    hf_put(f, "model.norm.weight", 0, d, hf_gain(f, mt, m->onorm, d));
    if (!c->tied_embeddings) hf_put(f, "lm_head.weight", c->vocab, d, m->head);
    for (l = 0; l < c->n_layers; l++) {
        const rnd_layer *L0 = &m->l[l];
#define HN(s) (snprintf(nm, sizeof nm, "model.layers.%d.%s", l, s), nm)
        hf_put(f, HN("input_layernorm.weight"), 0, d, hf_gain(f, mt, L0->an, d));
        if (!strcmp(mt, "phi3")) { /* q, k, v rows in one matrix; gate, then up (Phi3MLP's chunk(2)) */
            float *qkv = hf_keep(f, (size_t)((q + 2 * kv) * d)), *gu = hf_keep(f, (size_t)(2 * ff * d));
            memcpy(qkv, L0->wq, sizeof(float) * (size_t)(q * d));
            memcpy(qkv + q * d, L0->wk, sizeof(float) * (size_t)(kv * d));
            memcpy(qkv + (q + kv) * d, L0->wv, sizeof(float) * (size_t)(kv * d));
            memcpy(gu, L0->w1, sizeof(float) * (size_t)(ff * d));
            memcpy(gu + ff * d, L0->w3, sizeof(float) * (size_t)(ff * d));
            hf_put(f, HN("self_attn.qkv_proj.weight"), q + 2 * kv, d, qkv);
            hf_put(f, HN("mlp.gate_up_proj.weight"), 2 * ff, d, gu);
        } else {
            hf_put(f, HN("self_attn.q_proj.weight"), q, d, L0->wq);
            hf_put(f, HN("self_attn.k_proj.weight"), kv, d, L0->wk);
            hf_put(f, HN("self_attn.v_proj.weight"), kv, d, L0->wv);
            hf_put(f, HN("mlp.gate_proj.weight"), ff, d, L0->w1);
            hf_put(f, HN("mlp.up_proj.weight"), ff, d, L0->w3);
        }
        if (c->bias == LLM_BIAS_QKV) {
            hf_put(f, HN("self_attn.q_proj.bias"), 0, q, L0->bq);
            hf_put(f, HN("self_attn.k_proj.bias"), 0, kv, L0->bk);
            hf_put(f, HN("self_attn.v_proj.bias"), 0, kv, L0->bv);
        }
        if (c->qk_norm) {
            hf_put(f, HN("self_attn.q_norm.weight"), 0, hd, L0->qn);
            hf_put(f, HN("self_attn.k_norm.weight"), 0, hd, L0->kn);
        }
        hf_put(f, HN("self_attn.o_proj.weight"), d, q, L0->wo);
        hf_put(f, HN("mlp.down_proj.weight"), d, ff, L0->w2);
        if (c->sandwich_norm) { /* Gemma 2: post_attention_layernorm is the attention's output norm */
            hf_put(f, HN("post_attention_layernorm.weight"), 0, d, hf_gain(f, mt, L0->pan, d));
            hf_put(f, HN("pre_feedforward_layernorm.weight"), 0, d, hf_gain(f, mt, L0->fn, d));
            hf_put(f, HN("post_feedforward_layernorm.weight"), 0, d, hf_gain(f, mt, L0->pfn, d));
        } else {
            hf_put(f, HN("post_attention_layernorm.weight"), 0, d, hf_gain(f, mt, L0->fn, d));
        }
#undef HN
    }
    for (i = 0; i < f->n; i++)
        if (!drop || strcmp(f->t[i].name, drop)) f->t[k++] = f->t[i];
    *len = stw_safetensors(NULL, 0, f->t, k, "{\"format\":\"pt\"}", 13);
    p = (unsigned char *)malloc(*len);
    stw_safetensors(p, *len, f->t, k, "{\"format\":\"pt\"}", 13);
    return p;
}
static void hf_file_free(hf_file *f) {
    int i;
    for (i = 0; i < f->nk; i++) free(f->keep[i]);
}

static void test_hf_arch(const char *mt, double tol) {
    llm_config c = hf_arch_config(mt);
    rnd_model m;
    hf_file f;
    hf_loaded h;
    char cfg[4096];
    size_t len, n = (size_t)HT * (size_t)c.vocab, i;
    float *got = (float *)malloc(n * sizeof(float)), *direct = (float *)malloc(n * sizeof(float));
    double *ref = (double *)malloc(n * sizeof(double)), e = 0;
    unsigned char *file;
    const char *why = "";
    llm_status st;
    llm_state s;
    int toks[HT], t;
    rnd_model_make(&m, &c);
    for (t = 0; t < HT; t++) toks[t] = (t * 7 + 3) % c.vocab;
    stw_config_json(cfg, sizeof cfg, &c, mt, hf_arch_extra(mt));
    file = hf_arch_file(mt, &m, &f, NULL, &len);
    st = hf_load(&h, cfg, file, len, &why);
    CHECK_MSG(fc_load_is(st, &why, LLM_OK), "%s: llm_hf_load: %s: %s", mt, llm_status_str(st), why);
    if (st == LLM_OK) {
        const llm_config *k = &h.m.config;
        CHECK_MSG(k->d_model == c.d_model && k->n_layers == c.n_layers && k->n_heads == c.n_heads && k->n_kv_heads == c.n_kv_heads &&
                      llm_config_head_dim(k) == hdim(&c) && k->d_ff == c.d_ff && k->vocab == c.vocab && k->norm_eps == c.norm_eps &&
                      k->rope_theta == c.rope_theta && k->rope_layout == c.rope_layout && k->ffn == c.ffn && k->bias == c.bias &&
                      k->qk_norm == c.qk_norm && k->sandwich_norm == c.sandwich_norm && k->embed_scale == c.embed_scale &&
                      k->attn_scale == c.attn_scale && k->attn_softcap == c.attn_softcap && k->final_softcap == c.final_softcap &&
                      k->sliding_window == c.sliding_window && k->window_pattern == c.window_pattern &&
                      k->tied_embeddings == c.tied_embeddings,
                  "%s: config.json read differently", mt);
        CHECK_OK(llm_state_create(&s, &h.m.config, HT, HT, LLM_F32));
        CHECK_OK(llm_forward(&s, &h.m.weights, toks, HT, 0, got, 1, NULL));
        llm_state_free(&s);
        CHECK_OK(llm_state_create(&s, &c, HT, HT, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, HT, 0, direct, 1, NULL));
        llm_state_free(&s);
        CHECK_MSG(memcmp(got, direct, n * sizeof(float)) == 0, "%s: the loaded model's logits differ from its arrays given directly", mt);
        ref_forward(&m, toks, HT, ref);
        for (i = 0; i < n; i++) {
            double x = fabs(got[i] - ref[i]) / (1 + fabs(ref[i]));
            if (!(x <= e)) e = x;
        }
        if (getenv("LLM_TEST_VERBOSE")) printf("  hf %-8s vs the double reference: %.2g (tol %.2g)\n", mt, e, tol);
        CHECK_MSG(e <= tol, "%s: logits vs the double reference: %.3g > %.3g", mt, e, tol);
        CHECK(llm_hf_aux_floats(k) == (size_t)((c.sandwich_norm ? 4 : 2) * c.n_layers + 1) * 32 + (c.qk_norm ? 2 * 2 * 16 : 0) +
                                          (c.bias ? 2 * (32 + 2 * 16) : 0));
    }
    hf_free(&h);
    free(file);
    hf_file_free(&f);
    free(got), free(direct), free(ref);
    rnd_model_free(&m);
}

/* mt's file with cfg_from replaced by cfg_to in config.json, or the tensor `drop` left
   out: refused with `want` and a reason containing `name` */
static void expect_hf_arch(const char *mt, const char *cfg_from, const char *cfg_to, const char *drop, llm_status want,
                           const char *name) {
    llm_config c = hf_arch_config(mt);
    rnd_model m;
    hf_file f;
    char cfg[4096];
    size_t len;
    unsigned char *file;
    rnd_model_make(&m, &c);
    stw_config_json(cfg, sizeof cfg, &c, mt, hf_arch_extra(mt));
    file = hf_arch_file(mt, &m, &f, drop, &len);
    expect(mt, want, name, cfg_from ? replace(cfg, cfg_from, cfg_to) : cfg, file, len);
    free(file);
    hf_file_free(&f);
    rnd_model_free(&m);
}

static void test_hf_archs(void) {
    /* tolerances: 10x the worst relative logit error over the native (AVX-512), scalar and AVX2 builds */
    test_hf_arch("qwen2", 5e-5);    /* measured 4.9e-6 */
    test_hf_arch("qwen3", 1.1e-5);  /* measured 1.1e-6 */
    test_hf_arch("gemma", 1.9e-5);  /* measured 1.9e-6 */
    test_hf_arch("gemma2", 1.6e-5); /* measured 1.6e-6 */
    test_hf_arch("phi3", 1.3e-5);   /* measured 1.3e-6 */
    expect_hf_arch("qwen3", NULL, NULL, "model.layers.1.self_attn.k_norm.weight", LLM_EFORMAT, "model.layers.1.self_attn.k_norm.weight");
    expect_hf_arch("gemma2", NULL, NULL, "model.layers.0.pre_feedforward_layernorm.weight", LLM_EFORMAT,
                   "model.layers.0.pre_feedforward_layernorm.weight");
    expect_hf_arch("phi3", NULL, NULL, "model.layers.1.mlp.gate_up_proj.weight", LLM_EFORMAT, "model.layers.1.mlp.gate_up_proj.weight");
    /* a qwen3 file read as qwen2: its q/k norms are not qwen2's, and its biases are missing */
    expect_hf_arch("qwen3", "\"qwen3\"", "\"qwen2\"", NULL, LLM_EFORMAT, "bias");
    /* a qwen2 file as llama: its biases would be skipped */
    expect_hf_arch("qwen2", "\"qwen2\"", "\"llama\"", NULL, LLM_EUNSUPPORTED, "bias");
    /* gemma as llama has the same tensors; as gemma with llama's numbers it must not load
       silently: the head is tied by default and exact GELU is refused */
    expect_hf_arch("gemma", "gelu_pytorch_tanh", "gelu", NULL, LLM_EUNSUPPORTED, "hidden_activation");
    expect_hf_arch("phi3", "\"rope_scaling\": null",
                   "\"rope_scaling\": {\"type\": \"longrope\", \"long_factor\": [1, 1], \"short_factor\": [1, 1]}", NULL,
                   LLM_EUNSUPPORTED, "longrope");
    expect_hf_arch("phi3", "\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"su\"}", NULL, LLM_EUNSUPPORTED, "LongRoPE");
    expect_hf_arch("phi3", "\"rope_scaling\": null", "\"partial_rotary_factor\": 0.75", NULL, LLM_EUNSUPPORTED, "partial_rotary_factor");
    expect_hf_arch("qwen3", "\"use_sliding_window\": false", "\"use_sliding_window\": true", NULL, LLM_EUNSUPPORTED, "sliding");
    expect_hf_arch("gemma2", "\"query_pre_attn_scalar\": 24", "\"query_pre_attn_scalar\": \"24\"", NULL, LLM_EFORMAT,
                   "query_pre_attn_scalar");
    expect_hf_arch("gemma2", "\"attn_logit_softcapping\": 1.5", "\"attn_logit_softcapping\": -1", NULL, LLM_EFORMAT,
                   "attn_logit_softcapping");
    {   /* transformers' defaults where config.json leaves a key out (Gemma2Config,
           Qwen3Config, GemmaConfig), and a softcap of null is none */
        llm_config c = hf_arch_config("gemma2"), r;
        char cfg[4096];
        const char *why;
        stw_config_json(cfg, sizeof cfg, &c, "gemma2", "\"hidden_activation\": \"gelu_pytorch_tanh\"");
        CHECK_OK(llm_hf_read_config(&r, cfg, strlen(cfg), &why));
        CHECK(r.attn_softcap == 50.0f && r.final_softcap == 30.0f && r.attn_scale == 1.0f / 16 && r.sliding_window == 5 &&
              r.window_pattern == 2);
        stw_config_json(cfg, sizeof cfg, &c, "gemma2",
                        "\"hidden_activation\": \"gelu_pytorch_tanh\", \"attn_logit_softcapping\": null, \"final_logit_softcapping\": null");
        CHECK_OK(llm_hf_read_config(&r, cfg, strlen(cfg), &why));
        CHECK(r.attn_softcap == 0 && r.final_softcap == 0);
        c = hf_arch_config("qwen3"), c.head_dim = 0;
        stw_config_json(cfg, sizeof cfg, &c, "qwen3", NULL);
        CHECK(llm_hf_read_config(&r, cfg, strlen(cfg), &why) == LLM_OK && r.head_dim == 128);
        c = hf_arch_config("gemma"), c.head_dim = 0;
        stw_config_json(cfg, sizeof cfg, &c, "gemma", NULL);
        {
            const char *rc = replace(cfg, "\"tie_word_embeddings\": true,", "");
            CHECK(llm_hf_read_config(&r, rc, strlen(rc), &why) == LLM_OK && r.head_dim == 256 && r.tied_embeddings == 1);
        }
    }
}

int main(void) {
    test_equal_logits();
    test_refusals();
    test_hf_archs();
    test_hostile();
    test_dir();
    test_sharded();
    test_stories();
    return test_done();
}
