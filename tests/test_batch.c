/* Several conversations at once (llm_forward_batch): B sequences at different positions
   stepped together give the logits each gets alone with llm_forward, bit for bit (the
   small-batch GEMV does each token's arithmetic as the single-token GEMV does, and every
   other step runs per sequence); the small-batch linear layer itself against n separate
   calls; the error paths, which must leave every cache as it was. */
#include "llm.h"
#include "test.h"
#include "ref_model.h"

/* ---- llm_linear with 2..LLM__SMALL_N tokens = that many single-token calls ----------- */

/* y of n tokens in one call against n calls of one token each: memcmp (the same bits by
   design). Shapes cover the vector tails (k not a multiple of 16 or 8), blocks of columns
   (k = 2100: two whole, one part), the rows past the last group of 4, and both one thread
   and a pool. */
static void test_linear_small(llm_threads *th) {
    static const int ks[] = {1, 5, 16, 40, 72, 300, 1000, 2100}, outs[] = {1, 3, 4, 17, 50, 130};
    int ki, oi, n, t, hb, bad = 0, runs = 0;
    for (ki = 0; ki < (int)(sizeof ks / sizeof ks[0]); ki++)
        for (oi = 0; oi < (int)(sizeof outs / sizeof outs[0]); oi++) {
            int k = ks[ki], o = outs[oi];
            float *x = ref_rnd((size_t)16 * k, 1.0f), *w = ref_rnd((size_t)o * k, 0.5f), *b = ref_rnd((size_t)o, 0.1f);
            float *y = (float *)malloc(sizeof(float) * 16 * (size_t)o), *y1 = (float *)malloc(sizeof(float) * (size_t)o);
            for (hb = 0; hb < 2; hb++)
                for (n = 2; n <= 16; n++) {
                    int same = 1;
                    CHECK_OK(llm_linear(y, x, w, hb ? b : NULL, n, k, o, th));
                    for (t = 0; t < n; t++) {
                        CHECK_OK(llm_linear(y1, x + (size_t)t * k, w, hb ? b : NULL, 1, k, o, th));
                        if (memcmp(y1, y + (size_t)t * o, sizeof(float) * (size_t)o) != 0) same = 0;
                    }
                    if (!same && bad++ < 5) fprintf(stderr, "    k %d out %d n %d bias %d: not the single-token bits\n", k, o, n, hb);
                    runs++;
                }
            free(x), free(w), free(b), free(y), free(y1);
        }
    CHECK_MSG(bad == 0, "%d of %d small-batch linear calls differ from single-token calls", bad, runs);
}

/* llm_linear_w over n tokens against single-token calls, for the converted formats: the
   largest difference relative to the largest |y|, which must stay under tol (0 = memcmp). */
static void check_linear_w_small(llm_dtype type, double tol, const char *what) {
    const int k = type == LLM_INT8 ? 128 : 150, o = 36, gs = 32; /* (150: a whole-vector tail and a scalar one) */
    float *x = ref_rnd((size_t)16 * k, 1.0f), *wf = ref_rnd((size_t)o * k, 0.5f);
    float *y = (float *)malloc(sizeof(float) * 16 * o), *y1 = (float *)malloc(sizeof(float) * o);
    void *data = malloc((size_t)o * k * 4);
    float *scale = (float *)malloc(sizeof(float) * (size_t)o * k / gs);
    llm_weight W;
    double worst = 0, big = 0;
    int n, t, i;
    memset(&W, 0, sizeof W);
    W.type = type, W.data = data;
    if (type == LLM_INT8) {
        CHECK_OK(llm_quantize_int8((int8_t *)data, scale, wf, (int64_t)o * k, gs));
        W.scale = scale, W.group_size = gs;
    } else {
        for (i = 0; i < o * k; i++)
            ((uint16_t *)data)[i] = type == LLM_F16 ? llm_f32_to_f16(wf[i]) : llm_f32_to_bf16(wf[i]);
    }
    for (n = 2; n <= 16; n++) {
        CHECK_OK(llm_linear_w(y, x, &W, NULL, n, k, o, NULL));
        for (t = 0; t < n; t++) {
            CHECK_OK(llm_linear_w(y1, x + (size_t)t * k, &W, NULL, 1, k, o, NULL));
            for (i = 0; i < o; i++) {
                double dd = fabs((double)y1[i] - y[(size_t)t * o + i]);
                if (dd > worst) worst = dd;
                if (fabs(y1[i]) > big) big = fabs(y1[i]);
            }
        }
    }
    if (getenv("LLM_TEST_VERBOSE")) printf("  %s: n tokens vs single calls: %.3g of max |y|\n", what, worst / big);
    CHECK_MSG(worst <= tol * big, "%s: %.3g of max |y| > %.3g", what, worst / big, tol);
    free(x), free(wf), free(y), free(y1), free(data), free(scale);
}

/* ---- models in the formats the batched step must agree in ---------------------------- */

/* The rnd_model's matrices as int8 groups or ggml Q8_0 blocks (the LM head too); what it
   allocates is kept in keep[] to free. */
typedef struct qmodel {
    llm_layer_weights *lw;
    llm_weights w;
    void *keep[256];
    int n_keep;
} qmodel;

static llm_weight quant_w(qmodel *q, const llm_weight *src, int rows, int cols, llm_dtype type, int gs) {
    const float *x = (const float *)src->data;
    llm_weight w;
    memset(&w, 0, sizeof w);
    w.type = type;
    if (type == LLM_INT8) {
        int8_t *d = (int8_t *)malloc((size_t)rows * cols);
        float *s = (float *)malloc(sizeof(float) * (size_t)rows * cols / gs);
        CHECK_OK(llm_quantize_int8(d, s, x, (int64_t)rows * cols, gs));
        w.data = d, w.scale = s, w.group_size = gs;
        q->keep[q->n_keep++] = d, q->keep[q->n_keep++] = s;
    } else { /* Q8_0: blocks of 32: fp16 scale d = max|x| / 127, then 32 round(x / d) */
        size_t nb = (size_t)rows * cols / 32, b;
        unsigned char *d = (unsigned char *)malloc(nb * 34);
        for (b = 0; b < nb; b++) {
            const float *xb = x + b * 32;
            float amax = 0, sc, inv;
            uint16_t h;
            int j;
            for (j = 0; j < 32; j++) amax = fabsf(xb[j]) > amax ? fabsf(xb[j]) : amax;
            sc = amax / 127.0f;
            h = llm_f32_to_f16(sc);
            inv = sc > 0 ? 1.0f / sc : 0.0f;
            d[b * 34] = (unsigned char)(h & 0xff), d[b * 34 + 1] = (unsigned char)(h >> 8);
            for (j = 0; j < 32; j++) d[b * 34 + 2 + j] = (unsigned char)(signed char)lroundf(xb[j] * inv);
        }
        w.data = d;
        q->keep[q->n_keep++] = d;
    }
    return w;
}

static void qmodel_make(qmodel *q, const rnd_model *m, llm_dtype type, int gs) {
    const llm_config *c = &m->c;
    int d = c->d_model, hd = hdim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff, l;
    memset(q, 0, sizeof *q);
    q->lw = (llm_layer_weights *)malloc(sizeof *q->lw * (size_t)c->n_layers);
    q->w = m->w;
    q->w.layers = q->lw;
    for (l = 0; l < c->n_layers; l++) {
        llm_layer_weights *L = &q->lw[l];
        *L = m->lw[l];
        L->wq = quant_w(q, &m->lw[l].wq, qd, d, type, gs), L->wk = quant_w(q, &m->lw[l].wk, kvd, d, type, gs);
        L->wv = quant_w(q, &m->lw[l].wv, kvd, d, type, gs), L->wo = quant_w(q, &m->lw[l].wo, d, qd, type, gs);
        L->w1 = quant_w(q, &m->lw[l].w1, ff, d, type, gs), L->w2 = quant_w(q, &m->lw[l].w2, d, ff, type, gs);
        L->w3 = quant_w(q, &m->lw[l].w3, ff, d, type, gs);
    }
    q->w.lm_head = quant_w(q, &m->w.lm_head, c->vocab, d, type, gs);
}
static void qmodel_free(qmodel *q) {
    int i;
    for (i = 0; i < q->n_keep; i++) free(q->keep[i]);
    free(q->lw);
}

/* ---- batched steps against each sequence alone ---------------------------------------- */

static int tok_of(int seq, int p, int vocab) { return (seq * 7 + p * 3 + 1) % vocab; }

/* B sequences, sequence i prefilled with pre[i] tokens (0: freshly started) and first
   stepped at start[i] <= pre[i] (less: a rewind), then `steps` decode steps: once all
   together with llm_forward_batch, once each alone with llm_forward, in states of their
   own. The logits must be the same bits; each next token is the solo run's argmax. */
static void check_batch(const llm_config *c, const llm_weights *w, int B, const int *pre, const int *start, int steps,
                        llm_threads *th, const char *what) {
    enum { MAXB = 8 };
    llm_state bs[MAXB], ss[MAXB];
    llm_state *seqs[MAXB];
    int pos[MAXB], toks[MAXB], i, s, p, V = c->vocab, cap = 0, differ = 0;
    int *prompt = (int *)malloc(sizeof(int) * 256);
    size_t sb = llm_forward_batch_bytes(c, B);
    void *scratch = malloc(sb + 3);
    float *lb = (float *)malloc(sizeof(float) * (size_t)B * V), *ls = (float *)malloc(sizeof(float) * (size_t)B * V);
    float *tmp = (float *)malloc(sizeof(float) * (size_t)V);
    CHECK(sb > 0);
    for (i = 0; i < B; i++) cap = pre[i] + steps + 1 > cap ? pre[i] + steps + 1 : cap;
    for (i = 0; i < B; i++) {
        /* capacities differ too: each state has its own RoPE table and cache */
        CHECK_OK(llm_state_create(&bs[i], c, cap + i, 16, LLM_F32));
        CHECK_OK(llm_state_create(&ss[i], c, cap + i, 16, LLM_F32));
        seqs[i] = &bs[i];
        for (p = 0; p < pre[i]; p++) prompt[p] = tok_of(i, p, V);
        if (pre[i] > 0) {
            CHECK_OK(llm_forward(&bs[i], w, prompt, pre[i], 0, tmp, 0, th));
            CHECK_OK(llm_forward(&ss[i], w, prompt, pre[i], 0, tmp, 0, th));
        }
        pos[i] = start[i];
        toks[i] = tok_of(i, start[i], V);
    }
    for (s = 0; s < steps; s++) {
        /* scratch at an odd address: any alignment is allowed */
        CHECK_OK(llm_forward_batch(seqs, B, w, toks, pos, lb, (char *)scratch + 3, th));
        for (i = 0; i < B; i++) CHECK_OK(llm_forward(&ss[i], w, &toks[i], 1, pos[i], ls + (size_t)i * V, 0, th));
        if (memcmp(lb, ls, sizeof(float) * (size_t)B * V) != 0) differ++;
        for (i = 0; i < B; i++) {
            CHECK(bs[i].kv.len == pos[i] + 1 && ss[i].kv.len == pos[i] + 1);
            toks[i] = llm_argmax(ls + (size_t)i * V, V);
            pos[i]++;
        }
    }
    CHECK_MSG(differ == 0, "%s, B = %d: %d of %d steps' logits differ from each sequence run alone", what, B, differ, steps);
    for (i = 0; i < B; i++) llm_state_free(&bs[i]), llm_state_free(&ss[i]);
    free(prompt), free(scratch), free(lb), free(ls), free(tmp);
}

static llm_config batch_config(void) {
    llm_config c = llm_config_default();
    c.name = "batch";
    /* d = 40 and d_ff = 72 leave vector tails (40 = 2 x 16 + 8); vocab 50 rows past the
       last group of 4; GQA */
    c.d_model = 40, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 72, c.vocab = 50, c.max_seq_len = 256;
    return c;
}

/* B = 1, 2, 3, 5, 8 at different positions: freshly started (0), long past a 64-key
   attention tile (70), short (5), rewound (20 -> 18, 33 -> 30), one token (1). Eight rows
   are as many as a prefill chunk needs for the block formats' many-token kernel, which a
   batched step must not take (its sums are not one token's). */
static void batch_cases(const llm_config *c, const llm_weights *w, llm_threads *th, const char *what) {
    static const int pre[8] = {0, 70, 5, 20, 1, 9, 33, 2}, start[8] = {0, 70, 5, 18, 1, 9, 30, 2};
    static const int pre1[1] = {70}, start1[1] = {70};
    check_batch(c, w, 1, pre1, start1, 3, th, what);
    check_batch(c, w, 2, pre, start, 4, th, what);
    check_batch(c, w, 3, pre, start, 4, th, what);
    check_batch(c, w, 5, pre, start, 4, th, what);
    check_batch(c, w, 8, pre, start, 2, th, what);
}

static void test_batch_models(llm_threads *th) {
    llm_config c = batch_config(), win = batch_config(), g = batch_config();
    rnd_model m, mw, mg;
    qmodel q8, qg;
    const char *tn = th ? " (threads)" : "";
    char what[96];
    rnd_model_make(&m, &c);
    sprintf(what, "fp32%s", tn);
    batch_cases(&c, &m.w, th, what);
    /* int8 groups of 8 (the scalar dot: 8 is no vector kernel's size): the activations
       are quantized per token, the rows' integer dots per (row, token) as one token's */
    qmodel_make(&q8, &m, LLM_INT8, 8);
    sprintf(what, "int8 groups%s", tn);
    batch_cases(&c, &q8.w, th, what);
    qmodel_free(&q8);
    rnd_model_free(&m);
    /* a windowed layer (layer 0: the last 16 positions; layer 1 global), with the 70-token
       sequence far past its window */
    win.sliding_window = 16, win.window_pattern = 2;
    rnd_model_make(&mw, &win);
    sprintf(what, "fp32, windowed layer%s", tn);
    batch_cases(&win, &mw.w, th, what);
    rnd_model_free(&mw);
    /* ggml Q8_0 blocks of 32: every d_in a multiple of 32 */
    g.d_model = 64, g.d_ff = 96;
    rnd_model_make(&mg, &g);
    qmodel_make(&qg, &mg, LLM_Q8_0, 0);
    sprintf(what, "q8_0%s", tn);
    batch_cases(&g, &qg.w, th, what);
    qmodel_free(&qg);
    /* int8 groups of 32, which the vector kernels take (VNNI, AVX2, NEON) */
    qmodel_make(&qg, &mg, LLM_INT8, 32);
    sprintf(what, "int8 groups of 32%s", tn);
    batch_cases(&g, &qg.w, th, what);
    qmodel_free(&qg);
    rnd_model_free(&mg);
}

/* The real checkpoint: three conversations stepped together against each alone. */
static void test_batch_stories(llm_threads *th) {
    char path[512];
    llm_model m;
    const char *why;
    FILE *f;
    static const int pre[3] = {0, 70, 9}, start[3] = {0, 70, 9};
    sprintf(path, "%s/stories260K.bin", test_models_dir());
    if (!(f = fopen(path, "rb"))) {
        TEST_SKIP_SHARED(14, "batched stories260K: %s absent", path);
        return;
    }
    fclose(f);
    if (!CHECK_OK(llm_llama2c_load_file(&m, path, &why))) return;
    check_batch(&m.config, &m.weights, 3, pre, start, 3, th, th ? "stories260K (threads)" : "stories260K");
    llm_model_free(&m);
}

/* ---- errors: found before any cache is touched, or every cache rewound ---------------- */

/* A cache's bytes and length, to see that a refused step wrote nothing. */
static int kv_same(const llm_state *s, const unsigned char *k, const unsigned char *v, int len) {
    size_t n = (size_t)s->config.n_layers * s->kv.n_kv_heads * s->kv.capacity * s->kv.head_dim * sizeof(float);
    return s->kv.len == len && memcmp(s->kv.k, k, n) == 0 && memcmp(s->kv.v, v, n) == 0;
}

static void test_batch_errors(void) {
    llm_config c = batch_config(), other = batch_config(), moe = batch_config();
    rnd_model m;
    llm_state st[3], odd;
    llm_state *seqs[3];
    llm_layer_weights *broken;
    llm_weights bw;
    unsigned char *ks[3], *vs[3];
    int toks[3] = {1, 2, 3}, pos[3], lens[3], i, p, prompt[12];
    size_t sb = llm_forward_batch_bytes(&c, 3), kvn;
    void *scratch = malloc(sb);
    float *logits = (float *)malloc(sizeof(float) * 3 * (size_t)c.vocab), tmp[64];
    rnd_model_make(&m, &c);
    for (p = 0; p < 12; p++) prompt[p] = p % c.vocab;
    /* sequence 1 is full: capacity 8, 8 positions written */
    for (i = 0; i < 3; i++) {
        CHECK_OK(llm_state_create(&st[i], &c, i == 1 ? 8 : 32, 16, LLM_F32));
        CHECK_OK(llm_forward(&st[i], &m.w, prompt, i == 1 ? 8 : 4 + i, 0, tmp, 0, NULL));
        seqs[i] = &st[i];
        lens[i] = st[i].kv.len;
        kvn = (size_t)c.n_layers * st[i].kv.n_kv_heads * st[i].kv.capacity * st[i].kv.head_dim * sizeof(float);
        ks[i] = (unsigned char *)malloc(kvn), vs[i] = (unsigned char *)malloc(kvn);
        memcpy(ks[i], st[i].kv.k, kvn), memcpy(vs[i], st[i].kv.v, kvn);
    }
#define ALL_SAME() (kv_same(&st[0], ks[0], vs[0], lens[0]) && kv_same(&st[1], ks[1], vs[1], lens[1]) && \
                    kv_same(&st[2], ks[2], vs[2], lens[2]))
    /* a full cache mid-batch: LLM_EFULL, and nothing written, not even sequence 0's rewind */
    pos[0] = lens[0] - 2, pos[1] = lens[1], pos[2] = lens[2];
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EFULL);
    CHECK(ALL_SAME());
    /* a hole: pos > len */
    pos[1] = lens[1] - 1, pos[2] = lens[2] + 1;
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_ERANGE);
    CHECK(ALL_SAME());
    pos[2] = lens[2];
    /* bad arguments */
    CHECK(llm_forward_batch(NULL, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    CHECK(llm_forward_batch(seqs, 0, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    CHECK(llm_forward_batch(seqs, 3, NULL, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    CHECK(llm_forward_batch(seqs, 3, &m.w, NULL, pos, logits, scratch, NULL) == LLM_EINVAL);
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, NULL, logits, scratch, NULL) == LLM_EINVAL);
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, NULL, scratch, NULL) == LLM_EINVAL);
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, NULL, NULL) == LLM_EINVAL);
    toks[2] = c.vocab;
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    toks[2] = -1;
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    toks[2] = 3;
    seqs[2] = NULL;
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    /* one state twice: two tokens cannot share its one position */
    seqs[2] = &st[0];
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    /* a state of another architecture (only rope_theta differs) */
    other.rope_theta = 5000.0f;
    CHECK_OK(llm_state_create(&odd, &other, 32, 16, LLM_F32));
    seqs[2] = &odd;
    CHECK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    seqs[2] = &st[2];
    CHECK(ALL_SAME());
    /* scratch sizes */
    moe.n_experts = 4, moe.n_experts_per_tok = 2;
    CHECK(sb > 0 && llm_forward_batch_bytes(&c, 1) < sb);
    CHECK(llm_forward_batch_bytes(&c, 0) == 0 && llm_forward_batch_bytes(&c, LLM_BATCH_MAX + 1) == 0);
    CHECK(llm_forward_batch_bytes(NULL, 2) == 0);
    /* a mixture of experts runs batched too: its router and grouping buffers come on top */
    CHECK(llm_forward_batch_bytes(&moe, 2) > llm_forward_batch_bytes(&c, 2));
    /* a failure after work began (layer 1 lacks wq, found after layer 0 wrote its keys):
       every cache is truncated back to its pos, as llm_forward does */
    broken = (llm_layer_weights *)malloc(sizeof *broken * 2);
    memcpy(broken, m.lw, sizeof *broken * 2);
    broken[1].wq.data = NULL;
    bw = m.w;
    bw.layers = broken;
    CHECK(llm_forward_batch(seqs, 3, &bw, toks, pos, logits, scratch, NULL) == LLM_EINVAL);
    CHECK(st[0].kv.len == pos[0] && st[1].kv.len == pos[1] && st[2].kv.len == pos[2]);
    /* and then the same step runs */
    CHECK_OK(llm_forward_batch(seqs, 3, &m.w, toks, pos, logits, scratch, NULL));
    CHECK(st[0].kv.len == pos[0] + 1 && st[1].kv.len == pos[1] + 1 && st[2].kv.len == pos[2] + 1);
#undef ALL_SAME
    for (i = 0; i < 3; i++) llm_state_free(&st[i]), free(ks[i]), free(vs[i]);
    llm_state_free(&odd);
    free(broken), free(scratch), free(logits);
    rnd_model_free(&m);
}

int main(void) {
    llm_threads *th = test_pool(2, 1, "batched decode with threads");
    test_linear_small(NULL);
    if (th) test_linear_small(th);
    /* the converted formats' small batches: the same bits (f16 and bf16 from 4 tokens on
       take a 4-row x 4-token tile, in one token's order) */
    check_linear_w_small(LLM_INT8, 0, "int8 groups of 32");
    check_linear_w_small(LLM_F16, 0, "f16");
    check_linear_w_small(LLM_BF16, 0, "bf16");
    test_batch_models(NULL);
    if (th) test_batch_models(th);
    test_batch_stories(NULL);
    if (th) test_batch_stories(th);
    test_batch_errors();
    llm_threads_free(th);
    return test_done();
}
