/* 11_lessons.c: Pre-LN vs Post-LN gradients at initialization, and norms kept out of quantization */
/* Two of the seeds' lessons, measured with llm.h's own code.
   1. Where the norm sits (Xiong et al. 2020, "On Layer Normalization in the Transformer
      Architecture"): the gradient norm per layer of a freshly initialized 12-layer model,
      post-norm x = LN(x + Sub(x)) against pre-norm x = x + Sub(LN(x)), from llm_train_step's
      backward pass, beside what the paper proves and plots.
   2. Why quantized checkpoints keep their norm gains in fp32: the logit error against the
      fp32 model when the gains go through llm_quantize_int8 too, against keeping them fp32.
   Build: cc -O2 -I. examples/11_lessons.c -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 4, T = 32, MAX_L = 24 };

/* ||g||_F of one tensor of the training state: its gradient sits at the same offset in
   grads as the tensor in params */
static double grad_norm(const llm_train *t, const float *p, int64_t n) {
    const float *g = t->grads + (p - t->params);
    double s = 0;
    int64_t i;
    for (i = 0; i < n; i++) s += (double)g[i] * g[i];
    return sqrt(s);
}

/* A GPT-style model (LayerNorm with bias, GELU MLP of 4 d, learned positions, biases) of L
   layers, pre- or post-norm, at initialization; one batch's gradients. w2[l]: ||dL/dW2||_F
   of layer l's last FFN matrix (the paper's W^{2,l}); all[l]: of the whole layer. */
static int init_grads(int L, int post, double *w2, double *all, double *loss) {
    llm_config c = llm_config_default();
    llm_train t;
    void *mem;
    size_t bytes;
    int tok[B * T], tgt[B * T], i, l;
    uint64_t s = 2020;
    c.d_model = 128, c.n_layers = L, c.n_heads = 4, c.n_kv_heads = 4, c.d_ff = 512, c.vocab = 256, c.max_seq_len = T;
    c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.pos = LLM_POS_LEARNED, c.bias = LLM_BIAS_ALL;
    c.post_norm = post;
    c.embed_scale = sqrtf((float)c.d_model);
    bytes = llm_train_bytes(&c, B, T);
    mem = malloc(bytes);
    /* Xavier-like scale for the d x d maps (std 1/sqrt(d)), the paper's setting, and the
       embedding times sqrt(d) as in Vaswani et al.: every sub-layer's output and the
       embedding are then about as large as a normed vector */
    if (!mem || llm_train_init(&t, mem, bytes, &c, B, T) != LLM_OK ||
        llm_train_init_params(&t, 7, 1.0f / sqrtf((float)c.d_model)) != LLM_OK) {
        free(mem);
        return 1;
    }
    for (i = 0; i < B * T; i++) tok[i] = (int)(llm_xorshift_u32(&s) % 256u); /* random bytes: init is data-blind */
    for (i = 0; i < B * T; i++) tgt[i] = (i + 1) % T ? tok[i + 1] : -1;
    if (llm_train_step(&t, tok, tgt, 0.0f, loss, NULL) != LLM_OK) {
        free(mem);
        return 1;
    }
    for (l = 0; l < L; l++) {
        const llm_layer_weights *w = &t.layers[l];
        int64_t d = c.d_model, ff = c.d_ff;
        double sq = 0, x;
        w2[l] = grad_norm(&t, (const float *)w->w2.data, d * ff);
        /* the layer's tensors: norms, attention, FFN, their biases */
#define ADD(p, n) (x = grad_norm(&t, (p), (n)), sq += x * x)
        ADD(w->attn_norm, d), ADD(w->attn_norm_b, d), ADD(w->ffn_norm, d), ADD(w->ffn_norm_b, d);
        ADD((const float *)w->wq.data, d * d), ADD((const float *)w->wk.data, d * d);
        ADD((const float *)w->wv.data, d * d), ADD((const float *)w->wo.data, d * d);
        ADD(w->bq, d), ADD(w->bk, d), ADD(w->bv, d), ADD(w->bo, d);
        ADD((const float *)w->w1.data, d * ff), ADD(w->b1, ff), ADD((const float *)w->w2.data, d * ff), ADD(w->b2, d);
#undef ADD
        all[l] = sqrt(sq);
    }
    free(mem);
    return 0;
}

static void lesson_prenorm(void) {
    static const int depths[3] = {6, 12, 24};
    double w2[2][MAX_L], all[2][MAX_L], loss[2], last[2][3];
    int v, l, k;
    printf("1. Pre-LN vs Post-LN: gradient norms per layer at initialization\n\n"
           "A 12-layer GPT-style model (d 128, 4 heads, LayerNorm, GELU MLP of 512), weights drawn with\n"
           "std 1/sqrt(d), the embedding scaled by sqrt(d), one batch of %d x %d random bytes: the norms\n"
           "of llm_train_step's gradients. (llm.h's post-norm model keeps a final LayerNorm too; on a\n"
           "LayerNorm's output with unit gains it is nearly the identity.)\n\n", B, T);
    for (v = 0; v < 2; v++)
        if (init_grads(12, v == 1, w2[v], all[v], &loss[v])) return;
    printf("  %5s  %14s %14s   %14s %14s\n", "layer", "Post-LN |dW2|", "Pre-LN |dW2|", "Post-LN layer", "Pre-LN layer");
    for (l = 11; l >= 0; l--)
        printf("  %5d  %14.4f %14.4f   %14.4f %14.4f%s\n", l + 1, w2[1][l], w2[0][l], all[1][l], all[0][l],
               l == 11 ? "   (output side)" : l == 0 ? "   (input side)" : "");
    printf("  (loss at init: Post-LN %.3f, Pre-LN %.3f nats; ln 256 = %.3f)\n\n", loss[1], loss[0], log(256.0));
    printf("  Post-LN, last layer / first layer:  |dW2| %.2fx, whole layer %.2fx\n", w2[1][11] / w2[1][0], all[1][11] / all[1][0]);
    printf("  Pre-LN,  last layer / first layer:  |dW2| %.2fx, whole layer %.2fx\n", w2[0][11] / w2[0][0], all[0][11] / all[0][0]);
    printf("  last layer, Post-LN / Pre-LN:       |dW2| %.2fx\n\n", w2[1][11] / w2[0][11]);

    /* Theorem 1's depth dependence: the last FFN matrix's gradient at L = 6, 12, 24 */
    for (k = 0; k < 3; k++)
        for (v = 0; v < 2; v++) {
            double a[MAX_L], w[MAX_L], ls;
            if (init_grads(depths[k], v == 1, w, a, &ls)) return;
            last[v][k] = w[depths[k] - 1];
        }
    printf("  the last layer's |dW2| against depth:   L = 6      L = 12     L = 24\n");
    printf("    Post-LN                           %9.4f  %9.4f  %9.4f\n", last[1][0], last[1][1], last[1][2]);
    printf("    Pre-LN                            %9.4f  %9.4f  %9.4f\n", last[0][0], last[0][1], last[0][2]);
    printf("    Pre-LN x sqrt(L)                  %9.4f  %9.4f  %9.4f\n\n", last[0][0] * sqrt(6.0),
           last[0][1] * sqrt(12.0), last[0][2] * sqrt(24.0));

    printf("  Xiong et al. 2020, abstract: \"at initialization, for the original-designed Post-LN\n"
           "  Transformer ... the expected gradients of the parameters near the output layer are large\";\n"
           "  with the norm inside the residual blocks (Pre-LN) \"the gradients are well-behaved\".\n"
           "  Their Theorem 1 bounds the last FFN matrix's gradient by O(d sqrt(ln d)) for Post-LN,\n"
           "  whatever the depth, and by O(d sqrt(ln d / L)) for Pre-LN; their Figure 3 (a\n"
           "  translation Transformer) shows Post-LN's gradient norm growing with the layer index and\n"
           "  Pre-LN's about level across layers.\n\n");
    {
        double post_ratio = w2[1][11] / w2[1][0], pre_ratio = w2[0][11] / w2[0][0], th_ratio = w2[1][11] / w2[0][11];
        printf("  llm.h's figures against those claims:\n");
        printf("    Post-LN's last layer larger than Pre-LN's:             %s (%.2fx; the bounds' ratio sqrt(L) = %.2f)\n",
               th_ratio > 1.5 ? "yes" : "NO", th_ratio, sqrt(12.0));
        printf("    Post-LN's last layer the same at every depth:          %s (%.3f, %.3f, %.3f at L = 6, 12, 24)\n",
               last[1][2] / last[1][0] < 1.25 && last[1][2] / last[1][0] > 0.8 ? "yes" : "NO", last[1][0], last[1][1],
               last[1][2]);
        printf("    Pre-LN's last layer shrinking as 1/sqrt(L):            %s (x sqrt(L): %.3f, %.3f, %.3f)\n",
               fabs(last[0][2] * sqrt(24.0) / (last[0][0] * sqrt(6.0)) - 1) < 0.2 ? "yes" : "NO", last[0][0] * sqrt(6.0),
               last[0][1] * sqrt(12.0), last[0][2] * sqrt(24.0));
        printf("    Figure 3: Post-LN's gradients growing toward the output: %s (layer 12 / layer 1 = %.2fx)\n",
               post_ratio > 1.25 ? "yes" : "NO", post_ratio);
        printf("    Figure 3: Pre-LN's about level across layers:           %s (layer 12 / layer 1 = %.2fx)\n\n",
               pre_ratio < 1.25 && pre_ratio > 0.8 ? "yes" : "NO", pre_ratio);
        int law = th_ratio > 1.5 && last[1][2] / last[1][0] < 1.25 && last[1][2] / last[1][0] > 0.8 &&
                  fabs(last[0][2] * sqrt(24.0) / (last[0][0] * sqrt(6.0)) - 1) < 0.2;
        if (law && !(post_ratio > 1.25) && pre_ratio < 0.8) /* what the figures above say, when they say it */
            printf("  The depth law of Theorem 1 holds here; the per-layer profile of Figure 3 does not: in\n"
                   "  this decoder at this initialization Post-LN's gradients are about level across layers,\n"
                   "  and Pre-LN's are largest at the input and fall toward the output, the \"gradients at\n"
                   "  early layers are much larger than at later layers\" that NormFormer (Shleifer et al.\n"
                   "  2021) reports for Pre-LN.\n\n");
    }
}

/* ---- 2. norms kept out of quantization ------------------------------------------------ */

/* a copy of n floats through llm.h's int8 quantizer and back: groups of 32 within each row
   of `row` values (one group per row when 32 does not divide it), as an int8 file holds them */
static float *int8_copy(const float *x, int64_t n, int row) {
    float *y = (float *)malloc(sizeof(float) * (size_t)n), *sc = (float *)malloc(sizeof(float) * (size_t)n);
    int8_t *q = (int8_t *)malloc((size_t)n);
    int64_t r;
    int g = row % 32 == 0 ? 32 : row;
    for (r = 0; r < n; r += row) {
        llm_quantize_int8(q, sc, x + r, row, g);
        llm_dequantize_int8(y + r, q, sc, row, g);
    }
    free(sc), free(q);
    return y;
}

typedef struct qmodel {
    llm_weights w;
    llm_layer_weights *l;
    float *owned[64];
    int n_owned;
} qmodel;
static const float *keep(qmodel *m, float *p) { return m->n_owned < 64 ? (m->owned[m->n_owned++] = p) : p; }
static void qw(qmodel *m, llm_weight *w, int64_t rows, int cols) {
    w->data = keep(m, int8_copy((const float *)w->data, rows * cols, cols));
}
/* the model with its matrices (mats) and/or its norm gains (norms) through int8 */
static void qmodel_make(qmodel *m, const llm_config *c, const llm_weights *src, int mats, int norms) {
    int64_t d = c->d_model, hd = c->head_dim ? c->head_dim : c->d_model / c->n_heads;
    int64_t qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    int l, tied = src->lm_head.data == src->tok_embed.data;
    memset(m, 0, sizeof *m);
    m->w = *src;
    m->l = (llm_layer_weights *)malloc(sizeof(llm_layer_weights) * (size_t)c->n_layers);
    memcpy(m->l, src->layers, sizeof(llm_layer_weights) * (size_t)c->n_layers);
    m->w.layers = m->l;
    for (l = 0; l < c->n_layers; l++) {
        llm_layer_weights *w = &m->l[l];
        if (mats) {
            qw(m, &w->wq, qd, (int)d), qw(m, &w->wk, kvd, (int)d), qw(m, &w->wv, kvd, (int)d), qw(m, &w->wo, d, (int)qd);
            qw(m, &w->w1, ff, (int)d), qw(m, &w->w2, d, (int)ff);
            if (w->w3.data) qw(m, &w->w3, ff, (int)d);
        }
        if (norms) {
            w->attn_norm = keep(m, int8_copy(w->attn_norm, d, (int)d));
            w->ffn_norm = keep(m, int8_copy(w->ffn_norm, d, (int)d));
        }
    }
    if (mats) {
        qw(m, &m->w.tok_embed, c->vocab, (int)d);
        if (tied) m->w.lm_head = m->w.tok_embed;
        else qw(m, &m->w.lm_head, c->vocab, (int)d);
    }
    if (norms && m->w.out_norm) m->w.out_norm = keep(m, int8_copy(m->w.out_norm, d, (int)d));
}
static void qmodel_free(qmodel *m) {
    int i;
    for (i = 0; i < m->n_owned; i++) free(m->owned[i]);
    free(m->l);
}

enum { QT = 64 }; /* tokens scored */
static int run_logits(const llm_config *c, const llm_weights *w, const int *tok, float *logits) {
    llm_state s;
    llm_status st = llm_state_create(&s, c, QT, QT, LLM_F32);
    if (st == LLM_OK) st = llm_forward(&s, w, tok, QT, 0, logits, 1, NULL);
    llm_state_free(&s);
    return st != LLM_OK;
}

static void lesson_norm_quant(void) {
    const char *path = "../shared/models/stories260K.bin", *why = "";
    llm_model model;
    llm_train rnd;
    void *rmem = NULL;
    const llm_weights *base;
    llm_config c;
    float *ref, *lg;
    int tok[QT], i, v;
    uint64_t s = 11;
    double norm_params = 0, ref_ss = 0;
    static const char *names[3] = {"matrices int8, norm gains fp32", "matrices int8, norm gains int8 too",
                                   "matrices fp32, norm gains int8 only"};
    printf("2. Norms kept out of quantization: logits against the fp32 model\n\n");
    memset(&model, 0, sizeof model);
    if (llm_llama2c_load_file(&model, path, &why) == LLM_OK) {
        c = model.config, base = &model.weights;
        printf("model: %s (trained)\n", path);
    } else { /* the same shape, random weights, gains spread as a trained model's are */
        c = llm_config_default();
        c.d_model = 64, c.n_layers = 5, c.n_heads = 8, c.n_kv_heads = 4, c.d_ff = 172, c.vocab = 512, c.max_seq_len = 512;
        c.tied_embeddings = 1;
        rmem = malloc(llm_train_bytes(&c, 1, QT));
        if (!rmem || llm_train_init(&rnd, rmem, llm_train_bytes(&c, 1, QT), &c, 1, QT) != LLM_OK ||
            llm_train_init_params(&rnd, 3, 0.1f) != LLM_OK) {
            free(rmem);
            return;
        }
        for (i = 0; i < c.n_layers; i++) { /* gains exp(u), u uniform in [-1, 1.5]: 0.37 .. 4.5 */
            int j;
            for (j = 0; j < c.d_model; j++) {
                ((float *)(uintptr_t)rnd.layers[i].attn_norm)[j] = expf(-1.0f + 2.5f * (float)(llm_xorshift_u32(&s) >> 8) / 16777216.0f);
                ((float *)(uintptr_t)rnd.layers[i].ffn_norm)[j] = expf(-1.0f + 2.5f * (float)(llm_xorshift_u32(&s) >> 8) / 16777216.0f);
            }
        }
        base = &rnd.weights;
        printf("model: %s not readable (%s):\n"
               "a random model of stories260K's shape, its gains drawn as exp(u), u uniform in [-1, 1.5]\n", path, why);
    }
    for (i = 0; i < QT; i++) tok[i] = (int)(llm_xorshift_u32(&s) % (uint32_t)c.vocab);
    ref = (float *)malloc(sizeof(float) * QT * (size_t)c.vocab);
    lg = (float *)malloc(sizeof(float) * QT * (size_t)c.vocab);
    if (!ref || !lg || run_logits(&c, base, tok, ref)) goto done;
    for (i = 0; i < QT * c.vocab; i++) ref_ss += (double)ref[i] * ref[i];
    norm_params = (double)(2 * c.n_layers + 1) * c.d_model;
    {
        float lo = 1e30f, hi = -1e30f;
        int l, j;
        for (l = 0; l < c.n_layers; l++)
            for (j = 0; j < c.d_model; j++) {
                float a = base->layers[l].attn_norm[j], f = base->layers[l].ffn_norm[j];
                lo = a < lo ? a : lo, lo = f < lo ? f : lo, hi = a > hi ? a : hi, hi = f > hi ? f : hi;
            }
        printf("its blocks' norm gains run from %.2f to %.2f: in a group of 32 whose largest is 2.5, the\n"
               "int8 step is 2.5 / 127 = 0.020, so a gain of 0.5 may move by 0.010 (2 %%)\n", lo, hi);
    }
    printf("%d tokens, all %d x %d logits compared; the int8 copies are llm_quantize_int8's groups of 32\n"
           "(one group per row of %d, which 32 does not divide), dequantized back to fp32\n\n", QT, QT, c.vocab, c.d_ff);
    printf("  %-38s %12s %12s %10s\n", "", "max |dlogit|", "rms, % of", "top-1");
    printf("  %-38s %12s %12s %10s\n", "", "", "logit rms", "same");
    for (v = 0; v < 3; v++) {
        qmodel m;
        static double rms[3];
        static int top[3];
        double mx = 0, ss = 0;
        int same = 0, t;
        qmodel_make(&m, &c, base, v < 2, v >= 1);
        if (run_logits(&c, &m.w, tok, lg)) {
            qmodel_free(&m);
            goto done;
        }
        for (i = 0; i < QT * c.vocab; i++) {
            double e = fabs((double)lg[i] - ref[i]);
            mx = e > mx ? e : mx, ss += e * e;
        }
        for (t = 0; t < QT; t++) same += llm_argmax(lg + (size_t)t * c.vocab, c.vocab) == llm_argmax(ref + (size_t)t * c.vocab, c.vocab);
        printf("  %-38s %12.5f %11.3f%% %6d/%d\n", names[v], mx, 100.0 * sqrt(ss / ref_ss), same, QT);
        rms[v] = 100.0 * sqrt(ss / ref_ss), top[v] = same;
        if (v == 2)
            printf("\n  quantizing the gains too moves the logits' rms error from %.2f %% to %.2f %% and the top-1\n"
                   "  agreement from %d to %d of %d tokens; the gains alone in int8 cost %.2f %%.\n",
                   rms[0], rms[1], top[0], top[1], QT, rms[2]);
        qmodel_free(&m);
    }
    printf("  the norm gains are %.0f of %llu parameters (%.2f %%): int8 would save %.1f KB of %.1f KB.\n",
           norm_params, (unsigned long long)llm_count_params(&c).total, 100.0 * norm_params / (double)llm_count_params(&c).total,
           3.0 * norm_params / 1e3, 4.0 * (double)llm_count_params(&c).total / 1e3);
    printf("  The lesson: the gains are too few to be worth quantizing, and each one scales a whole\n"
           "  channel of every token, so llama.cpp's quantized GGUFs and llama2.c's int8 export\n"
           "  (version 2) keep them fp32 whatever the matrices' type.\n\n");
done:
    free(ref), free(lg), free(rmem);
    llm_model_free(&model);
}

int main(void) {
    lesson_prenorm();
    lesson_norm_quant();
    return 0;
}
