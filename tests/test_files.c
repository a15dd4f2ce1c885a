/* >>files: llama2.c checkpoints the test writes itself (legacy, version 1, version 2; GQA
   and MHA; shared and separate classifier) load and give the logits of a double-precision
   forward pass written here (version 2: of the exact quantized model); every truncated
   or nonsensical variant is rejected with LLM_EFORMAT, never a crash. */
#include "llm.h"
#include "test.h"

/* max of two doubles (not fmax: gcc 12 for AArch64 crashes vectorizing fmax reductions) */
static double maxd(double a, double b) { return a > b ? a : b; }

enum { D = 32, FF = 64, L = 2, NH = 4, V = 48, SEQ = 16, GS = 16 };

/* Logits against the double references below (dforward), relative to max |logit|,
   10x the worst measured over the native, scalar, avx2, avx2f16c and avx512f builds:
   fp32 weights 6.83e-7 (scalar), version 2's int8 model 2.13e-7 (avx2). (Against the
   fp32 model, version 2's logits are 1.2-2.3 % off: the quantization itself.) */
#define TOL_F32 7e-6
#define TOL_Q8 2e-6

/* llm_llama2c_load uses the weights in place: only on a little-endian host. Big-endian
   hosts must get LLM_EUNSUPPORTED from it (and working files from llm_llama2c_load_file). */
static int big_endian(void) {
    uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

/* A random llama2.c model: every tensor for all layers, as the files store them. */
typedef struct ref_model {
    int nkv, shared;
    float *emb, *an, *wq, *wk, *wv, *wo, *fn, *w1, *w2, *w3, *fin, *cls;
} ref_model;

static float *rnd(size_t n, float s) {
    float *p = (float *)malloc(n * sizeof *p);
    test_fill(p, n, s);
    return p;
}
static void ref_make(ref_model *m, int nkv, int shared) {
    int kvd = D / NH * nkv;
    size_t i;
    m->nkv = nkv, m->shared = shared;
    m->emb = rnd((size_t)V * D, 1), m->an = rnd((size_t)L * D, 0.2f), m->fn = rnd((size_t)L * D, 0.2f);
    m->fin = rnd(D, 0.2f);
    for (i = 0; i < (size_t)L * D; i++) m->an[i] += 1, m->fn[i] += 1;
    for (i = 0; i < D; i++) m->fin[i] += 1;
    m->wq = rnd((size_t)L * D * D, 0.3f), m->wk = rnd((size_t)L * kvd * D, 0.3f), m->wv = rnd((size_t)L * kvd * D, 0.3f);
    m->wo = rnd((size_t)L * D * D, 0.3f);
    m->w1 = rnd((size_t)L * FF * D, 0.3f), m->w2 = rnd((size_t)L * D * FF, 0.3f), m->w3 = rnd((size_t)L * FF * D, 0.3f);
    m->cls = shared ? NULL : rnd((size_t)V * D, 0.3f);
}
static void ref_free(ref_model *m) {
    free(m->emb), free(m->an), free(m->fn), free(m->fin), free(m->wq), free(m->wk), free(m->wv), free(m->wo);
    free(m->w1), free(m->w2), free(m->w3), free(m->cls);
}

/* ---- the little-endian writer is test.h's test_buf (marks: where each section starts) */
static void sect(test_buf *b, const float *x, size_t n) {
    test_buf_f32(b, x, n);
    test_buf_mark(b);
}
/* Version 2's rule for one tensor, the test's own (llama2.c's export.py): per group of GS
   values s = max|x| / 127, q = x / s rounded to nearest (lrintf). */
static void q8_tensor(signed char *q, float *s, const float *x, size_t n) {
    size_t g, i;
    for (g = 0; g < n / GS; g++) {
        float mx = 0;
        for (i = 0; i < GS; i++) mx = fmaxf(mx, fabsf(x[g * GS + i]));
        s[g] = mx / 127.0f;
        for (i = 0; i < GS; i++) q[g * GS + i] = (signed char)(s[g] > 0 ? (int)lrintf(x[g * GS + i] / s[g]) : 0);
    }
}
/* version 2's tensor: int8 values, then one scale per GS */
static void sect_q8(test_buf *b, const float *x, size_t n) {
    signed char *q = (signed char *)malloc(n);
    float *s = (float *)malloc(n / GS * sizeof *s);
    q8_tensor(q, s, x, n);
    test_buf_put(b, q, n);
    test_buf_mark(b);
    test_buf_f32(b, s, n / GS);
    test_buf_mark(b);
    free(q), free(s);
}

static void write_model(test_buf *b, const ref_model *m, int version) {
    int kvd = D / NH * m->nkv, l;
    float *junk;
    memset(b, 0, sizeof *b);
    if (version == 0) {
        test_buf_i32(b, D), test_buf_i32(b, FF), test_buf_i32(b, L), test_buf_i32(b, NH), test_buf_i32(b, m->nkv);
        test_buf_i32(b, m->shared ? V : -V), test_buf_i32(b, SEQ);
        test_buf_mark(b);
        sect(b, m->emb, (size_t)V * D), sect(b, m->an, (size_t)L * D);
        sect(b, m->wq, (size_t)L * D * D), sect(b, m->wk, (size_t)L * kvd * D), sect(b, m->wv, (size_t)L * kvd * D);
        sect(b, m->wo, (size_t)L * D * D), sect(b, m->fn, (size_t)L * D);
        sect(b, m->w1, (size_t)L * FF * D), sect(b, m->w2, (size_t)L * D * FF), sect(b, m->w3, (size_t)L * FF * D);
        sect(b, m->fin, D);
        junk = rnd((size_t)SEQ * (D / NH / 2), 1); /* the unused RoPE tables */
        sect(b, junk, (size_t)SEQ * (D / NH / 2)), sect(b, junk, (size_t)SEQ * (D / NH / 2));
        free(junk);
        if (!m->shared) sect(b, m->cls, (size_t)V * D);
        return;
    }
    test_buf_i32(b, 0x616b3432), test_buf_i32(b, version);
    test_buf_i32(b, D), test_buf_i32(b, FF), test_buf_i32(b, L), test_buf_i32(b, NH), test_buf_i32(b, m->nkv), test_buf_i32(b, V), test_buf_i32(b, SEQ);
    {
        unsigned char flag = (unsigned char)m->shared, zero = 0;
        test_buf_put(b, &flag, 1);
        if (version == 2) test_buf_i32(b, GS);
        while (b->n < 256) test_buf_put(b, &zero, 1);
    }
    test_buf_mark(b);
    sect(b, m->an, (size_t)L * D), sect(b, m->fn, (size_t)L * D), sect(b, m->fin, D);
    if (version == 1) {
        sect(b, m->emb, (size_t)V * D);
        sect(b, m->wq, (size_t)L * D * D), sect(b, m->wk, (size_t)L * kvd * D), sect(b, m->wv, (size_t)L * kvd * D);
        sect(b, m->wo, (size_t)L * D * D);
        sect(b, m->w1, (size_t)L * FF * D), sect(b, m->w2, (size_t)L * D * FF), sect(b, m->w3, (size_t)L * FF * D);
        if (!m->shared) sect(b, m->cls, (size_t)V * D);
        return;
    }
    sect_q8(b, m->emb, (size_t)V * D);
    for (l = 0; l < L; l++) sect_q8(b, m->wq + (size_t)l * D * D, (size_t)D * D);
    for (l = 0; l < L; l++) sect_q8(b, m->wk + (size_t)l * kvd * D, (size_t)kvd * D);
    for (l = 0; l < L; l++) sect_q8(b, m->wv + (size_t)l * kvd * D, (size_t)kvd * D);
    for (l = 0; l < L; l++) sect_q8(b, m->wo + (size_t)l * D * D, (size_t)D * D);
    for (l = 0; l < L; l++) sect_q8(b, m->w1 + (size_t)l * FF * D, (size_t)FF * D);
    for (l = 0; l < L; l++) sect_q8(b, m->w2 + (size_t)l * D * FF, (size_t)D * FF);
    for (l = 0; l < L; l++) sect_q8(b, m->w3 + (size_t)l * FF * D, (size_t)FF * D);
    if (!m->shared) sect_q8(b, m->cls, (size_t)V * D);
}

static const int toks[6] = {1, 7, 30, 2, 45, 11};

/* ---- the forward pass in double precision, written here ---------------------------
   llama2.c's model: RMSNorm (eps 1e-5), RoPE on pairs (2i, 2i+1) with theta 10000, causal
   GQA attention, SwiGLU, final RMSNorm, classifier. The weights are what the file holds:
   the fp32 arrays, or for version 2 its int8 values times their scales (q8_tensor),
   dequantized here in double. With q8 every product with an int8 matrix first quantizes
   its input the way version 2 is run (runq.c, and llm_linear_w): per group of GS values
   s = max|x| / 127, q = x / s rounded half away from zero; then y = sum_g s sum q w.
   So the reference is the quantized model's exact arithmetic, and only float rounding
   separates it from llm_forward. */
typedef struct dmodel {
    int nkv, shared, q8;
    double *emb, *an, *wq, *wk, *wv, *wo, *fn, *w1, *w2, *w3, *fin, *cls;
} dmodel;

static double *dq(const float *x, size_t n, int q8) {
    double *d = (double *)malloc(n * sizeof *d);
    size_t i;
    if (!q8) {
        for (i = 0; i < n; i++) d[i] = x[i];
    } else {
        signed char *q = (signed char *)malloc(n);
        float *s = (float *)malloc(n / GS * sizeof *s);
        q8_tensor(q, s, x, n);
        for (i = 0; i < n; i++) d[i] = (double)q[i] * s[i / GS];
        free(q), free(s);
    }
    return d;
}
/* version 2 quantizes each layer's matrix on its own, as write_model writes it */
static double *dq_layers(const float *x, size_t per_layer, int q8) {
    double *d = (double *)malloc((size_t)L * per_layer * sizeof *d), *one;
    int l;
    for (l = 0; l < L; l++) {
        one = dq(x + (size_t)l * per_layer, per_layer, q8);
        memcpy(d + (size_t)l * per_layer, one, per_layer * sizeof *d);
        free(one);
    }
    return d;
}
static void dmodel_make(dmodel *d, const ref_model *m, int q8) {
    size_t kvd = (size_t)D / NH * m->nkv;
    d->nkv = m->nkv, d->shared = m->shared, d->q8 = q8;
    d->emb = dq(m->emb, (size_t)V * D, q8);
    d->an = dq(m->an, (size_t)L * D, 0), d->fn = dq(m->fn, (size_t)L * D, 0), d->fin = dq(m->fin, D, 0);
    d->wq = dq_layers(m->wq, (size_t)D * D, q8), d->wk = dq_layers(m->wk, kvd * D, q8);
    d->wv = dq_layers(m->wv, kvd * D, q8), d->wo = dq_layers(m->wo, (size_t)D * D, q8);
    d->w1 = dq_layers(m->w1, (size_t)FF * D, q8), d->w2 = dq_layers(m->w2, (size_t)D * FF, q8);
    d->w3 = dq_layers(m->w3, (size_t)FF * D, q8);
    d->cls = m->shared ? NULL : dq(m->cls, (size_t)V * D, q8);
}
static void dmodel_free(dmodel *d) {
    free(d->emb), free(d->an), free(d->fn), free(d->fin), free(d->wq), free(d->wk), free(d->wv), free(d->wo);
    free(d->w1), free(d->w2), free(d->w3), free(d->cls);
}

/* y[dout] = W[dout][din] x, the input quantized first when q8 */
static void dlin(double *y, const double *x, const double *W, int din, int dout, int q8) {
    double xq[FF];
    int i, g, o;
    for (i = 0; i < din; i++) xq[i] = x[i];
    if (q8)
        for (g = 0; g < din; g += GS) {
            double mx = 0, s;
            for (i = g; i < g + GS; i++) mx = maxd(mx, fabs(x[i]));
            s = mx / 127;
            for (i = g; i < g + GS; i++) {
                double v = s > 0 ? x[i] / s : 0, r = v < 0 ? -floor(-v + 0.5) : floor(v + 0.5);
                xq[i] = r * s;
            }
        }
    for (o = 0; o < dout; o++) {
        double acc = 0;
        for (i = 0; i < din; i++) acc += W[(size_t)o * din + i] * xq[i];
        y[o] = acc;
    }
}
static void drmsnorm(double *y, const double *x, const double *w) {
    double ss = 0;
    int i;
    for (i = 0; i < D; i++) ss += x[i] * x[i];
    ss = 1 / sqrt(ss / D + 1e-5);
    for (i = 0; i < D; i++) y[i] = x[i] * ss * w[i];
}
/* the logits of the 6 tokens at positions 0..5 */
static void dforward(const dmodel *m, double *logits) {
    enum { T = 6, HD = D / NH };
    static double x[T][D], h[D], q[T][D], k[T][D], v[T][D], att[D], o[D], a[FF], b[FF];
    int kvd = HD * m->nkv, t, l, i, hh, j, p;
    for (t = 0; t < T; t++)
        for (i = 0; i < D; i++) x[t][i] = m->emb[(size_t)toks[t] * D + i];
    for (l = 0; l < L; l++) {
        for (t = 0; t < T; t++) {
            drmsnorm(h, x[t], m->an + l * D);
            dlin(q[t], h, m->wq + (size_t)l * D * D, D, D, m->q8);
            dlin(k[t], h, m->wk + (size_t)l * kvd * D, D, kvd, m->q8);
            dlin(v[t], h, m->wv + (size_t)l * kvd * D, D, kvd, m->q8);
            for (hh = 0; hh < NH; hh++) /* RoPE: pair (2i, 2i+1) turned by t theta^(-2i/HD) */
                for (i = 0; i < HD / 2; i++) {
                    double ang = t * pow(10000.0, -2.0 * i / HD), c = cos(ang), sn = sin(ang);
                    double *qp = q[t] + hh * HD + 2 * i, a0 = qp[0], a1 = qp[1];
                    qp[0] = a0 * c - a1 * sn, qp[1] = a0 * sn + a1 * c;
                    if (hh < m->nkv) {
                        double *kp = k[t] + hh * HD + 2 * i, b0 = kp[0], b1 = kp[1];
                        kp[0] = b0 * c - b1 * sn, kp[1] = b0 * sn + b1 * c;
                    }
                }
        }
        for (t = 0; t < T; t++) {
            for (hh = 0; hh < NH; hh++) { /* causal softmax over positions 0..t */
                int kh = hh / (NH / m->nkv);
                double sc[T], mx = -1e300, sum = 0;
                for (p = 0; p <= t; p++) {
                    double dot = 0;
                    for (j = 0; j < HD; j++) dot += q[t][hh * HD + j] * k[p][kh * HD + j];
                    sc[p] = dot / sqrt((double)HD);
                    mx = maxd(mx, sc[p]);
                }
                for (p = 0; p <= t; p++) sum += (sc[p] = exp(sc[p] - mx));
                for (j = 0; j < HD; j++) {
                    double acc = 0;
                    for (p = 0; p <= t; p++) acc += sc[p] * v[p][kh * HD + j];
                    att[hh * HD + j] = acc / sum;
                }
            }
            dlin(o, att, m->wo + (size_t)l * D * D, D, D, m->q8);
            for (i = 0; i < D; i++) h[i] = x[t][i] + o[i]; /* kept apart: x[t] is read below */
            memcpy(x[t], h, sizeof h);
        }
        for (t = 0; t < T; t++) {
            drmsnorm(h, x[t], m->fn + l * D);
            dlin(a, h, m->w1 + (size_t)l * FF * D, D, FF, m->q8);
            dlin(b, h, m->w3 + (size_t)l * FF * D, D, FF, m->q8);
            for (i = 0; i < FF; i++) a[i] = a[i] / (1 + exp(-a[i])) * b[i]; /* SwiGLU */
            dlin(o, a, m->w2 + (size_t)l * D * FF, FF, D, m->q8);
            for (i = 0; i < D; i++) x[t][i] += o[i];
        }
    }
    for (t = 0; t < T; t++) {
        drmsnorm(h, x[t], m->fin);
        dlin(logits + (size_t)t * V, h, m->shared ? m->emb : m->cls, D, V, m->q8);
    }
}

/* max |got - ref| over the 6 x V logits, and max |ref| */
static double logit_err(const float *got, const double *ref, double *mx) {
    double e = 0;
    int i;
    *mx = 0;
    for (i = 0; i < 6 * V; i++) e = maxd(e, fabs(got[i] - ref[i])), *mx = maxd(*mx, fabs(ref[i]));
    return e;
}
static double worst_f32, worst_q8; /* printed at the end */

/* Logits of all 6 tokens of a model loaded from buf (a fresh, exactly sized copy). */
static llm_status logits_of(const unsigned char *buf, size_t n, float *out, llm_model *m_out) {
    llm_layer_weights layers[L];
    llm_model m;
    llm_state s;
    llm_status st;
    const char *why = NULL;
    void *copy = malloc(n ? n : 1);
    memcpy(copy, buf, n);
    st = llm_llama2c_load(&m, copy, n, layers, L, &why);
    if (st != LLM_OK) {
        free(copy);
        return st;
    }
    if (m_out) *m_out = m;
    CHECK(why && *why == '\0');
    CHECK_OK(llm_state_create(&s, &m.config, SEQ, 6, LLM_F32));
    CHECK_OK(llm_forward(&s, &m.weights, toks, 6, 0, out, 1, NULL));
    llm_state_free(&s);
    free(copy);
    return LLM_OK;
}

/* The same model from plain arrays, no file involved. */
static void logits_direct(const ref_model *r, float *out) {
    llm_layer_weights layers[L];
    llm_weights w;
    llm_config c;
    llm_state s;
    int kvd = D / NH * r->nkv, l;
    memset(&c, 0, sizeof c);
    memset(&w, 0, sizeof w);
    memset(layers, 0, sizeof layers);
    c.d_model = D, c.d_ff = FF, c.n_layers = L, c.n_heads = NH, c.n_kv_heads = r->nkv, c.vocab = V, c.max_seq_len = SEQ;
    c.tied_embeddings = r->shared;
    for (l = 0; l < L; l++) {
        llm_layer_weights *y = &layers[l];
        y->attn_norm = r->an + l * D, y->ffn_norm = r->fn + l * D;
        y->wq.data = r->wq + (size_t)l * D * D, y->wk.data = r->wk + (size_t)l * kvd * D;
        y->wv.data = r->wv + (size_t)l * kvd * D, y->wo.data = r->wo + (size_t)l * D * D;
        y->w1.data = r->w1 + (size_t)l * FF * D, y->w2.data = r->w2 + (size_t)l * D * FF;
        y->w3.data = r->w3 + (size_t)l * FF * D;
    }
    w.tok_embed.data = r->emb;
    w.lm_head.data = r->shared ? r->emb : r->cls;
    w.layers = layers;
    w.out_norm = r->fin;
    CHECK_OK(llm_state_create(&s, &c, SEQ, 6, LLM_F32));
    CHECK_OK(llm_forward(&s, &w, toks, 6, 0, out, 1, NULL));
    llm_state_free(&s);
}

static int is_rejected(const unsigned char *buf, size_t n) {
    llm_layer_weights layers[L + 4];
    llm_model m;
    const char *why = NULL;
    void *copy = malloc(n ? n : 1);
    llm_status st;
    memcpy(copy, buf, n);
    st = llm_llama2c_load(&m, copy, n, layers, L + 4, &why);
    free(copy);
    return st == LLM_EFORMAT && why && *why;
}

/* header field i (int32 at byte offset off) set to v */
static int rejected_with(const test_buf *b, size_t off, int32_t v) {
    unsigned char *c = (unsigned char *)malloc(b->n);
    int r;
    uint32_t u = (uint32_t)v;
    memcpy(c, b->p, b->n);
    c[off] = (unsigned char)u, c[off + 1] = (unsigned char)(u >> 8), c[off + 2] = (unsigned char)(u >> 16);
    c[off + 3] = (unsigned char)(u >> 24);
    r = is_rejected(c, b->n);
    free(c);
    return r;
}

static void test_formats(int nkv, int shared) {
    ref_model r;
    test_buf b[3];
    float direct[6 * V], got[3][6 * V];
    double d1 = 0, d2 = 0, mx = 0, ref[2][6 * V];
    int v, i, k, bad;
    llm_model m;
    dmodel dm;
    ref_make(&r, nkv, shared);
    logits_direct(&r, direct);
    for (v = 0; v < 2; v++) { /* the double references: fp32 weights, and version 2's int8 */
        dmodel_make(&dm, &r, v);
        dforward(&dm, ref[v]);
        dmodel_free(&dm);
    }
    for (v = 0; v < 3; v++) {
        write_model(&b[v], &r, v);
        if (big_endian()) {
            CHECK(logits_of(b[v].p, b[v].n, got[v], &m) == LLM_EUNSUPPORTED);
            continue;
        }
        CHECK_OK(logits_of(b[v].p, b[v].n, got[v], &m));
        CHECK(m.file_version == v && m.config.n_kv_heads == nkv && m.config.tied_embeddings == shared);
        CHECK(m.config.vocab == V && m.config.d_model == D && m.config.d_ff == FF && m.config.max_seq_len == SEQ);
    }
    for (i = 0; i < 6 * V && !big_endian(); i++)
        d1 = maxd(d1, maxd(fabs(got[0][i] - direct[i]), fabs(got[1][i] - direct[i])));
    /* legacy and v1 hold the very same floats: the same logits */
    CHECK_MSG(d1 == 0, "nkv %d shared %d: fp32 formats differ from the arrays by %g", nkv, shared, d1);
    /* and those are the double reference's, to float rounding */
    d1 = logit_err(direct, ref[0], &mx);
    worst_f32 = maxd(worst_f32, d1 / mx);
    CHECK_MSG(d1 <= TOL_F32 * mx, "nkv %d shared %d: fp32 logits off the double reference by %g (max |logit| %g)", nkv,
              shared, d1, mx);
    /* v2: the quantized model's exact arithmetic, to float rounding */
    if (!big_endian()) {
        d2 = logit_err(got[2], ref[1], &mx);
        worst_q8 = maxd(worst_q8, d2 / mx);
        CHECK_MSG(d2 <= TOL_Q8 * mx, "nkv %d shared %d: int8 logits off the quantized double reference by %g (max |logit| %g)",
                  nkv, shared, d2, mx);
    }

    for (v = 0; v < 3; v++) {
        /* truncated anywhere: inside the header, at and next to every section boundary */
        bad = 0;
        for (i = 0; i < (int)b[v].n; i += (i < 300 ? 1 : 97))
            if (!is_rejected(b[v].p, (size_t)i)) bad++;
        for (k = 0; k < b[v].n_marks; k++) {
            size_t at = b[v].marks[k];
            if (at < b[v].n && !is_rejected(b[v].p, at)) bad++;
            if (at > 0 && !is_rejected(b[v].p, at - 1)) bad++;
            if (at + 1 < b[v].n && !is_rejected(b[v].p, at + 1)) bad++;
        }
        CHECK_MSG(bad == 0, "version %d: %d truncated files accepted", v, bad);
        /* one byte too many */
        {
            unsigned char *c = (unsigned char *)malloc(b[v].n + 1);
            memcpy(c, b[v].p, b[v].n);
            c[b[v].n] = 0;
            CHECK(is_rejected(c, b[v].n + 1));
            free(c);
        }
        /* each header int negative, zero, huge, or inconsistent with the file size */
        {
            size_t h0 = v == 0 ? 0 : 8;
            int f;
            for (f = 0; f < 7; f++) {
                CHECK_MSG(rejected_with(&b[v], h0 + 4 * f, -1), "v%d field %d = -1", v, f);
                CHECK_MSG(rejected_with(&b[v], h0 + 4 * f, 0), "v%d field %d = 0", v, f);
                CHECK_MSG(rejected_with(&b[v], h0 + 4 * f, INT32_MAX), "v%d field %d = INT32_MAX", v, f);
                CHECK_MSG(rejected_with(&b[v], h0 + 4 * f, INT32_MIN), "v%d field %d = INT32_MIN", v, f);
                CHECK_MSG(rejected_with(&b[v], h0 + 4 * f, 1 << 30), "v%d field %d = 2^30", v, f);
            }
            CHECK(rejected_with(&b[v], h0 + 0, D + 2));  /* dim */
            CHECK(rejected_with(&b[v], h0 + 0, 2 * D));
            CHECK(rejected_with(&b[v], h0 + 4, FF + 16)); /* hidden */
            CHECK(rejected_with(&b[v], h0 + 8, L + 1));  /* layers */
            CHECK(rejected_with(&b[v], h0 + 8, L - 1));
            CHECK(rejected_with(&b[v], h0 + 12, 3));     /* heads not dividing dim */
            CHECK(rejected_with(&b[v], h0 + 12, 2 * NH)); /* head size changes the sizes */
            CHECK(rejected_with(&b[v], h0 + 16, NH + 4)); /* more KV heads than heads */
            CHECK(rejected_with(&b[v], h0 + 16, 3));     /* KV heads not dividing heads */
            CHECK(rejected_with(&b[v], h0 + 20, V + 1));
            if (v == 0) CHECK(rejected_with(&b[v], 24, SEQ + 1)); /* the RoPE tables' size */
            if (v > 0) {
                CHECK(rejected_with(&b[v], 4, 3));  /* unknown version */
                CHECK(rejected_with(&b[v], 4, -1));
                b[v].p[36] = 2; /* the shared flag is a bool */
                CHECK(is_rejected(b[v].p, b[v].n));
                b[v].p[36] = (unsigned char)!shared; /* classifier present or not: size mismatch */
                CHECK(is_rejected(b[v].p, b[v].n));
                b[v].p[36] = (unsigned char)shared;
            }
            if (v == 2) {
                CHECK(rejected_with(&b[v], 37, 0));
                CHECK(rejected_with(&b[v], 37, -16));
                CHECK(rejected_with(&b[v], 37, 24));  /* does not divide dim */
                CHECK(rejected_with(&b[v], 37, 1 << 30));
                CHECK(rejected_with(&b[v], 37, 32));  /* divides, but sizes change */
            }
        }
        /* the file still loads after all that */
        CHECK(logits_of(b[v].p, b[v].n, got[v], NULL) == (big_endian() ? LLM_EUNSUPPORTED : LLM_OK));
    }
    /* a layer table too small, a misaligned buffer: caller errors, not format errors */
    {
        llm_layer_weights layers[L];
        const char *why;
        unsigned char *c = (unsigned char *)malloc(b[1].n + 4);
        CHECK(llm_llama2c_load(&m, b[1].p, b[1].n, layers, L - 1, &why) == LLM_EINVAL);
        memcpy(c + 1, b[1].p, b[1].n);
        CHECK(llm_llama2c_load(&m, c + 1, b[1].n, layers, L, &why) == LLM_EINVAL);
        CHECK(llm_llama2c_load(&m, NULL, 100, layers, L, &why) == LLM_EINVAL);
        free(c);
    }
    for (v = 0; v < 3; v++) free(b[v].p);
    ref_free(&r);
}

static void test_read_config_and_file(void) {
    ref_model r;
    test_buf b;
    llm_config c;
    llm_model m;
    int ver = -1;
    const char *why;
    const char *path = "build/test_files.tmp.bin";
    FILE *f;
    ref_make(&r, 2, 0);
    write_model(&b, &r, 0);
    memset(&c, 0, sizeof c);
    CHECK_OK(llm_llama2c_read_config(&c, &ver, b.p, b.n, &why));
    CHECK(ver == 0 && c.d_model == D && c.n_kv_heads == 2 && c.tied_embeddings == 0 && c.vocab == V);
    CHECK(c.pos == LLM_POS_ROPE && c.rope_layout == LLM_ROPE_INTERLEAVED && c.ffn == LLM_FFN_SWIGLU);
    CHECK(llm_llama2c_read_config(&c, &ver, b.p, 20, &why) == LLM_EFORMAT);
    CHECK(llm_llama2c_load_file(&m, "no/such/file.bin", &why) == LLM_EIO);
    f = fopen(path, "wb");
    if (f) {
        float a[6 * V];
        double ref[2][6 * V];
        llm_state s;
        dmodel dm;
        int v;
        fclose(f);
        for (v = 0; v < 2; v++) {
            dmodel_make(&dm, &r, v);
            dforward(&dm, ref[v]);
            dmodel_free(&dm);
        }
        /* from a file, on any host (big-endian ones convert their copy): the same logits
           as the arrays for fp32, close for int8 */
        for (v = 0; v < 3; v++) {
            double diff, mx;
            free(b.p);
            write_model(&b, &r, v);
            f = fopen(path, "wb");
            fwrite(b.p, 1, b.n, f);
            fclose(f);
            CHECK_OK(llm_llama2c_load_file(&m, path, &why));
            CHECK_OK(llm_state_create(&s, &m.config, SEQ, 6, LLM_F32));
            CHECK_OK(llm_forward(&s, &m.weights, toks, 6, 0, a, 1, NULL));
            diff = logit_err(a, ref[v == 2], &mx);
            CHECK_MSG(diff <= (v == 2 ? TOL_Q8 : TOL_F32) * mx, "version %d from a file: logits off by %g (max %g)", v,
                      diff, mx);
            llm_state_free(&s);
            llm_model_free(&m);
        }
        /* a truncated file on disk */
        f = fopen(path, "wb");
        fwrite(b.p, 1, b.n / 2, f);
        fclose(f);
        CHECK(llm_llama2c_load_file(&m, path, &why) == LLM_EFORMAT);
        remove(path);
    } else {
        TEST_SKIP(1, "file-loading checks: cannot write %s", path);
    }
    free(b.p);
    ref_free(&r);
}

int main(void) {
    test_formats(2, 1); /* GQA, shared classifier */
    test_formats(4, 0); /* MHA, separate classifier */
    test_formats(1, 0); /* MQA */
    test_read_config_and_file();
    printf("logits vs the double reference, relative to max |logit|: fp32 %.3g (tolerance %.0e), int8 %.3g (%.0e)\n",
           worst_f32, TOL_F32, worst_q8, TOL_Q8);
    return test_done();
}
