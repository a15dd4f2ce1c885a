/* The tests' double-precision reference of a whole decoder-only forward pass (every
   feature llm_config names: norms, biases, RoPE layouts and scaling, GQA, windows and
   window patterns, q/k head norms, sandwich norms, attention scale and softcap, the
   embedding scale and the final softcap; mixture of experts: the router's top-k with
   either weighting, and shared experts with their sigmoid gate), and a random model in
   plain fp32 arrays for it
   (rnd_model_make: the arrays and the llm_weights pointing at them). Written from the
   papers and the reference code's formulas, not from llm.h. Include after test.h. */
#ifndef LLM_REF_MODEL_H
#define LLM_REF_MODEL_H

/* ---- a random model in plain fp32 arrays -------------------------------------------- */
typedef struct rnd_layer {
    float *an, *anb, *fn, *fnb, *wq, *wk, *wv, *wo, *w1, *w2, *w3, *bq, *bk, *bv, *bo, *b1, *b2, *b3;
    float *qn, *kn, *pan, *pfn; /* qk_norm's head gains, sandwich_norm's post-norms */
    /* MoE: w1, w3 [E][ff][d] and w2 [E][d][ff] stacked; router [E][d]; the shared experts
       as one FFN of width S = n_shared * d_ff_shared: ws1, ws3 [S][d], ws2 [d][S]; wsg [d] */
    float *router, *ws1, *ws2, *ws3, *wsg;
} rnd_layer;
typedef struct rnd_model {
    llm_config c;
    rnd_layer *l;
    llm_layer_weights *lw;
    llm_weights w;
    float *emb, *pemb, *onorm, *onormb, *head;
} rnd_model;

TEST_UNUSED static float *ref_rnd(size_t n, float scale) {
    float *p = (float *)malloc(n * sizeof *p);
    test_fill(p, n, scale);
    return p;
}
TEST_UNUSED static float *ref_rnd_norm(size_t n) { /* norm gains near 1 */
    float *p = ref_rnd(n, 0.2f);
    size_t i;
    for (i = 0; i < n; i++) p[i] += 1.0f;
    return p;
}
TEST_UNUSED static llm_weight ref_f32w(const float *p) {
    llm_weight w;
    memset(&w, 0, sizeof w);
    w.type = LLM_F32;
    w.data = p;
    return w;
}
TEST_UNUSED static int hdim(const llm_config *c) { return c->head_dim ? c->head_dim : c->d_model / c->n_heads; }

TEST_UNUSED static void rnd_model_make(rnd_model *m, const llm_config *c) {
    int d = c->d_model, hd = hdim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff, i;
    int qkvb = c->bias != LLM_BIAS_NONE, allb = c->bias == LLM_BIAS_ALL;
    int E = c->n_experts > 0 ? c->n_experts : 1, S = c->n_shared_experts * (c->d_ff_shared ? c->d_ff_shared : ff);
    memset(m, 0, sizeof *m);
    m->c = *c;
    m->l = (rnd_layer *)calloc((size_t)c->n_layers, sizeof *m->l);
    m->lw = (llm_layer_weights *)calloc((size_t)c->n_layers, sizeof *m->lw);
    for (i = 0; i < c->n_layers; i++) {
        rnd_layer *L = &m->l[i];
        llm_layer_weights *W = &m->lw[i];
        L->an = ref_rnd_norm((size_t)d), L->fn = ref_rnd_norm((size_t)d);
        L->anb = c->norm_bias ? ref_rnd((size_t)d, 0.1f) : NULL, L->fnb = c->norm_bias ? ref_rnd((size_t)d, 0.1f) : NULL;
        L->wq = ref_rnd((size_t)qd * d, 0.3f), L->wk = ref_rnd((size_t)kvd * d, 0.3f), L->wv = ref_rnd((size_t)kvd * d, 0.3f);
        L->wo = ref_rnd((size_t)d * qd, 0.3f);
        L->w1 = ref_rnd((size_t)E * ff * d, 0.3f), L->w2 = ref_rnd((size_t)E * d * ff, 0.3f);
        L->w3 = ref_rnd((size_t)E * ff * d, 0.3f);
        /* router weights of scale 1: logits spread over several units, so the top-k are
           far from ties (ref_moe_gap measures the closest call) */
        L->router = c->n_experts ? ref_rnd((size_t)E * d, 1.0f) : NULL;
        L->ws1 = S ? ref_rnd((size_t)S * d, 0.3f) : NULL, L->ws3 = S ? ref_rnd((size_t)S * d, 0.3f) : NULL;
        L->ws2 = S ? ref_rnd((size_t)d * S, 0.3f) : NULL, L->wsg = c->shared_gate ? ref_rnd((size_t)d, 0.5f) : NULL;
        W->router = c->n_experts ? ref_f32w(L->router) : W->router;
        if (S) W->ws1 = ref_f32w(L->ws1), W->ws2 = ref_f32w(L->ws2), W->ws3 = ref_f32w(L->ws3);
        W->ws_gate = L->wsg;
        L->bq = qkvb ? ref_rnd((size_t)qd, 0.1f) : NULL, L->bk = qkvb ? ref_rnd((size_t)kvd, 0.1f) : NULL;
        L->bv = qkvb ? ref_rnd((size_t)kvd, 0.1f) : NULL, L->bo = allb ? ref_rnd((size_t)d, 0.1f) : NULL;
        L->b1 = allb ? ref_rnd((size_t)ff, 0.1f) : NULL, L->b2 = allb ? ref_rnd((size_t)d, 0.1f) : NULL;
        L->b3 = allb ? ref_rnd((size_t)ff, 0.1f) : NULL;
        W->attn_norm = L->an, W->attn_norm_b = L->anb, W->ffn_norm = L->fn, W->ffn_norm_b = L->fnb;
        W->wq = ref_f32w(L->wq), W->wk = ref_f32w(L->wk), W->wv = ref_f32w(L->wv), W->wo = ref_f32w(L->wo);
        W->w1 = ref_f32w(L->w1), W->w2 = ref_f32w(L->w2), W->w3 = ref_f32w(L->w3);
        W->bq = L->bq, W->bk = L->bk, W->bv = L->bv, W->bo = L->bo, W->b1 = L->b1, W->b2 = L->b2, W->b3 = L->b3;
        L->qn = c->qk_norm ? ref_rnd_norm((size_t)hd) : NULL, L->kn = c->qk_norm ? ref_rnd_norm((size_t)hd) : NULL;
        L->pan = c->sandwich_norm ? ref_rnd_norm((size_t)d) : NULL, L->pfn = c->sandwich_norm ? ref_rnd_norm((size_t)d) : NULL;
        W->q_norm = L->qn, W->k_norm = L->kn, W->attn_post_norm = L->pan, W->ffn_post_norm = L->pfn;
    }
    m->emb = ref_rnd((size_t)c->vocab * d, 1.0f);
    m->pemb = c->pos == LLM_POS_LEARNED ? ref_rnd((size_t)c->max_seq_len * d, 0.5f) : NULL;
    m->onorm = ref_rnd_norm((size_t)d);
    m->onormb = c->norm_bias ? ref_rnd((size_t)d, 0.1f) : NULL;
    m->head = c->tied_embeddings ? m->emb : ref_rnd((size_t)c->vocab * d, 0.3f);
    m->w.tok_embed = ref_f32w(m->emb);
    m->w.pos_embed = m->pemb;
    m->w.layers = m->lw;
    m->w.out_norm = m->onorm;
    m->w.out_norm_b = m->onormb;
    m->w.lm_head = ref_f32w(m->head);
}
TEST_UNUSED static void rnd_model_free(rnd_model *m) {
    int i;
    for (i = 0; i < m->c.n_layers; i++) {
        float **p = &m->l[i].an;
        int k;
        for (k = 0; k < (int)(sizeof(rnd_layer) / sizeof(float *)); k++) free(p[k]);
    }
    free(m->l), free(m->lw), free(m->pemb), free(m->onorm), free(m->onormb);
    if (m->head != m->emb) free(m->head);
    free(m->emb);
}

/* ---- the naive double-precision reference of one block over a whole sequence --------- */
TEST_UNUSED static void ref_norm(const llm_config *c, double *y, const double *x, const float *w, const float *b, int d) {
    double mean = 0, var = 0, ss = 0;
    int i;
    for (i = 0; i < d; i++) mean += x[i], ss += x[i] * x[i];
    mean /= d;
    for (i = 0; i < d; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= d;
    for (i = 0; i < d; i++) {
        double eps = c->norm_eps > 0 ? c->norm_eps : 1e-5;
        if (c->norm == LLM_NORM_RMS) y[i] = x[i] / sqrt(ss / d + eps) * w[i];
        else y[i] = (x[i] - mean) / sqrt(var + eps) * w[i] + (b ? b[i] : 0);
    }
}
TEST_UNUSED static void ref_lin(double *y, const double *x, const float *W, const float *b, int din, int dout) {
    int o, i;
    for (o = 0; o < dout; o++) {
        double s = b ? b[o] : 0;
        for (i = 0; i < din; i++) s += (double)W[(size_t)o * din + i] * x[i];
        y[o] = s;
    }
}
/* RoPE on n_heads heads of hd: rotary_dim dims rotated (0 = all), pairs (2i, 2i+1) or
   (i, i + rotary_dim/2), angle pos * theta^(-2i/rotary_dim), Llama 3.1's frequency
   scaling when rope_scale > 0 (Meta's apply_scaling) */
TEST_UNUSED static void ref_rope(const llm_config *c, double *v, int n_heads, int pos) {
    int hd = hdim(c), rd = c->rotary_dim ? c->rotary_dim : hd, half = rd / 2, h, i;
    double theta = c->rope_theta > 0 ? c->rope_theta : 10000.0;
    for (h = 0; h < n_heads; h++)
        for (i = 0; i < half; i++) {
            double f = pow(theta, -2.0 * i / rd), a, *p0, *p1, x0, x1;
            if (c->rope_scale > 0) {
                double lo = c->rope_low_freq_factor > 0 ? c->rope_low_freq_factor : 1;
                double hi = c->rope_high_freq_factor > 0 ? c->rope_high_freq_factor : 4;
                double ctx = c->rope_orig_ctx > 0 ? c->rope_orig_ctx : 8192, wl = 2 * 3.14159265358979323846 / f;
                if (wl > ctx / lo) f /= c->rope_scale; /* long wavelengths: interpolated */
                else if (wl >= ctx / hi) {              /* between: a smooth blend */
                    double sm = (ctx / wl - lo) / (hi - lo);
                    f = (1 - sm) * f / c->rope_scale + sm * f;
                }
            }
            a = pos * f;
            p0 = v + h * hd + (c->rope_layout == LLM_ROPE_HALVES ? i : 2 * i);
            p1 = p0 + (c->rope_layout == LLM_ROPE_HALVES ? half : 1);
            x0 = *p0, x1 = *p1;
            *p0 = x0 * cos(a) - x1 * sin(a);
            *p1 = x0 * sin(a) + x1 * cos(a);
        }
}
TEST_UNUSED static double gelu_d(double x) { return 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

/* RMSNorm of n_heads heads of hd in place (qk_norm) */
TEST_UNUSED static void ref_head_norm(const llm_config *c, double *v, int n_heads, const float *w) {
    int hd = hdim(c), h, i;
    for (h = 0; h < n_heads; h++) {
        double ss = 0, eps = c->norm_eps > 0 ? c->norm_eps : 1e-5, r;
        for (i = 0; i < hd; i++) ss += v[h * hd + i] * v[h * hd + i];
        r = 1 / sqrt(ss / hd + eps);
        for (i = 0; i < hd; i++) v[h * hd + i] *= r * w[i];
    }
}

/* y[d] = W2 (act(W1 h) * W3 h) of a gated FFN of width ff (one expert) */
TEST_UNUSED static void ref_glu(const llm_config *c, double *y, const double *h, const float *w1, const float *w3,
                                const float *w2, int ff) {
    int d = c->d_model, i;
    double *g = (double *)malloc(sizeof(double) * (size_t)ff), *u = (double *)malloc(sizeof(double) * (size_t)ff);
    ref_lin(g, h, w1, NULL, d, ff);
    ref_lin(u, h, w3, NULL, d, ff);
    for (i = 0; i < ff; i++) g[i] = (c->ffn == LLM_FFN_GEGLU ? gelu_d(g[i]) : g[i] / (1 + exp(-g[i]))) * u[i];
    ref_lin(y, g, w2, NULL, ff, d);
    free(g), free(u);
}
/* The smallest gap, over every token and layer routed so far, between the k-th and the
   (k+1)-th router logit (a routing decision that close could flip in float). */
static double ref_moe_gap = 1e300;
/* y[d] = the MoE FFN of h[d] (Mixtral's / Qwen-MoE's sparse block, from the papers):
   softmax over the E router logits, the k largest (ties: the lower expert), their
   probabilities renormalized to sum 1 or not, the weighted sum of those experts' FFNs,
   plus the shared experts' FFN times sigmoid(h . wsg) when gated */
TEST_UNUSED static void ref_moe(const llm_config *c, const rnd_layer *L, double *y, const double *h) {
    int d = c->d_model, ff = c->d_ff, E = c->n_experts, k = c->n_experts_per_tok, i, j, e;
    int S = c->n_shared_experts * (c->d_ff_shared ? c->d_ff_shared : ff);
    double *z = (double *)malloc(sizeof(double) * (size_t)E), *o = (double *)malloc(sizeof(double) * (size_t)d);
    int *taken = (int *)calloc((size_t)E, sizeof(int)), *pick = (int *)malloc(sizeof(int) * (size_t)k);
    double mx = -1e300, sum = 0, ksum = 0, kth = 0;
    ref_lin(z, h, L->router, NULL, d, E);
    for (e = 0; e < E; e++) mx = z[e] > mx ? z[e] : mx;
    for (j = 0; j < k; j++) {
        int best = -1;
        for (e = 0; e < E; e++)
            if (!taken[e] && (best < 0 || z[e] > z[best])) best = e;
        taken[best] = 1, pick[j] = best, kth = z[best];
    }
    for (e = 0; e < E; e++)
        if (!taken[e] && kth - z[e] < ref_moe_gap) ref_moe_gap = kth - z[e];
    for (e = 0; e < E; e++) sum += exp(z[e] - mx);
    for (j = 0; j < k; j++) ksum += exp(z[pick[j]] - mx) / sum;
    for (i = 0; i < d; i++) y[i] = 0;
    for (j = 0; j < k; j++) {
        double p = exp(z[pick[j]] - mx) / sum, wgt = c->router == LLM_ROUTER_TOPK_NORM ? p / ksum : p;
        e = pick[j];
        ref_glu(c, o, h, L->w1 + (size_t)e * ff * d, L->w3 + (size_t)e * ff * d, L->w2 + (size_t)e * d * ff, ff);
        for (i = 0; i < d; i++) y[i] += wgt * o[i];
    }
    if (S) {
        double gate = 1;
        if (c->shared_gate) {
            double s = 0;
            for (i = 0; i < d; i++) s += h[i] * L->wsg[i];
            gate = 1 / (1 + exp(-s));
        }
        ref_glu(c, o, h, L->ws1, L->ws3, L->ws2, S);
        for (i = 0; i < d; i++) y[i] += gate * o[i];
    }
    free(z), free(o), free(taken), free(pick);
}

/* x: [T][d] in place, positions 0..T-1, as layer `layer` (its window) */
TEST_UNUSED static void ref_block(const llm_config *c, const rnd_layer *L, int layer, double *x, int T) {
    int d = c->d_model, hd = hdim(c), nh = c->n_heads, nkv = c->n_kv_heads, qd = nh * hd, kvd = nkv * hd;
    int ff = c->d_ff, t, h, j, i;
    double *h_in = (double *)malloc(sizeof(double) * (size_t)T * d), *q = (double *)malloc(sizeof(double) * (size_t)T * qd);
    double *k = (double *)malloc(sizeof(double) * (size_t)T * kvd), *v = (double *)malloc(sizeof(double) * (size_t)T * kvd);
    double *att = (double *)malloc(sizeof(double) * (size_t)T * qd), *o = (double *)malloc(sizeof(double) * (size_t)d);
    double *g = (double *)malloc(sizeof(double) * (size_t)ff), *u = (double *)malloc(sizeof(double) * (size_t)ff);
    double *sc = (double *)malloc(sizeof(double) * (size_t)T);
    /* attention */
    for (t = 0; t < T; t++) {
        if (c->post_norm) memcpy(h_in + t * d, x + t * d, sizeof(double) * d);
        else ref_norm(c, h_in + t * d, x + t * d, L->an, L->anb, d);
        ref_lin(q + t * qd, h_in + t * d, L->wq, L->bq, d, qd);
        ref_lin(k + t * kvd, h_in + t * d, L->wk, L->bk, d, kvd);
        ref_lin(v + t * kvd, h_in + t * d, L->wv, L->bv, d, kvd);
        if (c->qk_norm) ref_head_norm(c, q + t * qd, nh, L->qn), ref_head_norm(c, k + t * kvd, nkv, L->kn);
        if (c->pos == LLM_POS_ROPE) ref_rope(c, q + t * qd, nh, t), ref_rope(c, k + t * kvd, nkv, t);
    }
    for (t = 0; t < T; t++)
        for (h = 0; h < nh; h++) {
            /* window_pattern P: every P-th layer (l % P == P - 1) is global */
            int W = c->window_pattern > 0 && layer % c->window_pattern == c->window_pattern - 1 ? 0 : c->sliding_window;
            int kh = h / (nh / nkv), j0 = W > 0 && t - W + 1 > 0 ? t - W + 1 : 0;
            double mx = -1e300, sum = 0, scale = c->attn_scale > 0 ? c->attn_scale : 1 / sqrt((double)hd);
            for (j = j0; j <= t; j++) {
                double s = 0;
                for (i = 0; i < hd; i++) s += q[t * qd + h * hd + i] * k[j * kvd + kh * hd + i];
                sc[j] = s * scale;
                if (c->attn_softcap > 0) sc[j] = c->attn_softcap * tanh(sc[j] / c->attn_softcap);
                if (sc[j] > mx) mx = sc[j];
            }
            for (j = j0; j <= t; j++) sum += (sc[j] = exp(sc[j] - mx));
            for (i = 0; i < hd; i++) {
                double s = 0;
                for (j = j0; j <= t; j++) s += sc[j] / sum * v[j * kvd + kh * hd + i];
                att[t * qd + h * hd + i] = s;
            }
        }
    for (t = 0; t < T; t++) {
        ref_lin(o, att + t * qd, L->wo, L->bo, qd, d);
        if (c->sandwich_norm) ref_norm(c, o, o, L->pan, NULL, d);
        for (i = 0; i < d; i++) x[t * d + i] += o[i];
        if (c->post_norm) ref_norm(c, x + t * d, x + t * d, L->an, L->anb, d);
        /* FFN */
        if (c->post_norm) memcpy(h_in + t * d, x + t * d, sizeof(double) * d);
        else ref_norm(c, h_in + t * d, x + t * d, L->fn, L->fnb, d);
        if (c->n_experts > 0) {
            ref_moe(c, L, o, h_in + t * d);
            if (c->sandwich_norm) ref_norm(c, o, o, L->pfn, NULL, d);
            for (i = 0; i < d; i++) x[t * d + i] += o[i];
            if (c->post_norm) ref_norm(c, x + t * d, x + t * d, L->fn, L->fnb, d);
            continue;
        }
        ref_lin(g, h_in + t * d, L->w1, L->b1, d, ff);
        if (c->ffn != LLM_FFN_GELU) ref_lin(u, h_in + t * d, L->w3, L->b3, d, ff); /* GELU has no up matrix */
        for (i = 0; i < ff; i++) {
            if (c->ffn == LLM_FFN_SWIGLU) g[i] = g[i] / (1 + exp(-g[i])) * u[i];
            else if (c->ffn == LLM_FFN_GEGLU) g[i] = gelu_d(g[i]) * u[i];
            else g[i] = gelu_d(g[i]);
        }
        ref_lin(o, g, L->w2, L->b2, ff, d);
        if (c->sandwich_norm) ref_norm(c, o, o, L->pfn, NULL, d);
        for (i = 0; i < d; i++) x[t * d + i] += o[i];
        if (c->post_norm) ref_norm(c, x + t * d, x + t * d, L->fn, L->fnb, d);
    }
    free(h_in), free(q), free(k), free(v), free(att), free(o), free(g), free(u), free(sc);
}

/* ---- the whole forward pass against a double-precision reference -------------------- */
/* logits[T][vocab] of tokens at positions 0..T-1: embedding (+ learned positions), every
   block, the final norm (with its bias for LayerNorm), the LM head (tied or not) */
TEST_UNUSED static void ref_forward(const rnd_model *m, const int *toks, int T, double *logits) {
    const llm_config *c = &m->c;
    int d = c->d_model, V = c->vocab, t, i;
    double *x = (double *)malloc(sizeof(double) * (size_t)T * d), *h = (double *)malloc(sizeof(double) * (size_t)d);
    for (t = 0; t < T; t++)
        for (i = 0; i < d; i++)
            x[t * d + i] = (double)m->emb[(size_t)toks[t] * d + i] * (c->embed_scale > 0 ? c->embed_scale : 1) +
                           (m->pemb ? m->pemb[(size_t)t * d + i] : 0.0);
    for (i = 0; i < c->n_layers; i++) ref_block(c, &m->l[i], i, x, T);
    for (t = 0; t < T; t++) {
        ref_norm(c, h, x + (size_t)t * d, m->onorm, m->onormb, d);
        ref_lin(logits + (size_t)t * V, h, m->head, NULL, d, V);
        for (i = 0; c->final_softcap > 0 && i < V; i++)
            logits[(size_t)t * V + i] = c->final_softcap * tanh(logits[(size_t)t * V + i] / c->final_softcap);
    }
    free(x), free(h);
}
#endif
