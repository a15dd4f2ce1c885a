/* >>train: every backward against central finite differences of a double-precision
   forward written here (the gradient of L = sum dy . f(x), so dL/dx is what the backward
   must add), the GEMM's transposed and accumulating forms against a double reference,
   AdamW / clipping / the schedule against their formulas, and a loss that falls. */
#include "llm.h"
#include "test.h"
#include "internals.h" /* llm__train_dims, llm__lora_slot, the slot counts */
#include "ref_model.h"
#include "filecheck.h" /* fc_host_le, fc_be_refused */

#include <stdlib.h>

static double max_rel(const float *a, const double *b, int n) { /* max |a - b| / (max |b| + 1e-3) */
    double e = 0.0, m = 0.0;
    int i;
    for (i = 0; i < n; i++) {
        if (fabs(b[i]) > m) m = fabs(b[i]);
        if (fabs(a[i] - b[i]) > e) e = fabs(a[i] - b[i]);
    }
    return e / (m + 1e-3);
}

/* ---- the GEMM forms ------------------------------------------------------------------- */

static void test_matmul_ex(void) {
    /* (800 rows, many columns: a pool splits them by rows, as the backward's products) */
    static const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {37, 70, 53}, {130, 300, 97}, {9, 600, 260}, {800, 40, 200}};
    llm_threads *pool = test_pool(2, 4 * 6, "matmul_ex: 2 threads against 1");
    int s;
    for (s = 0; s < 6; s++) {
        int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2], tr, acc, i, j, k;
        float *A = (float *)malloc(sizeof(float) * M * K), *B = (float *)malloc(sizeof(float) * K * N);
        float *C = (float *)malloc(sizeof(float) * M * N), *C2 = (float *)malloc(sizeof(float) * M * N);
        float *C0 = (float *)malloc(sizeof(float) * M * N);
        double *R = (double *)malloc(sizeof(double) * M * N);
        test_fill(A, (size_t)M * K, 1.0f);
        test_fill(B, (size_t)K * N, 1.0f);
        test_fill(C0, (size_t)M * N, 1.0f);
        for (tr = 0; tr < 2; tr++)
            for (acc = 0; acc < 2; acc++) {
                /* A is [M][K], or with tr the same values stored as its transpose [K][M] */
                float *At = (float *)malloc(sizeof(float) * M * K);
                for (i = 0; i < M; i++)
                    for (k = 0; k < K; k++) At[(size_t)k * M + i] = A[(size_t)i * K + k];
                for (i = 0; i < M; i++)
                    for (j = 0; j < N; j++) {
                        double r = acc ? C0[(size_t)i * N + j] : 0.0;
                        for (k = 0; k < K; k++) r += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
                        R[(size_t)i * N + j] = r;
                    }
                memcpy(C, C0, sizeof(float) * M * N);
                CHECK_OK(llm_matmul_ex(C, tr ? At : A, B, M, K, N, tr, acc, NULL));
                /* fp32 sums of K products of [-1, 1) values: measured <= 5.4e-7 relative */
                CHECK_MSG(max_rel(C, R, M * N) < 5e-6, "matmul_ex %dx%dx%d trans %d acc %d: %.3g", M, K, N, tr, acc,
                          max_rel(C, R, M * N));
                if (pool) {
                    memcpy(C2, C0, sizeof(float) * M * N);
                    CHECK_OK(llm_matmul_ex(C2, tr ? At : A, B, M, K, N, tr, acc, pool));
                    CHECK(memcmp(C, C2, sizeof(float) * M * N) == 0);
                }
                free(At);
            }
        free(A), free(B), free(C), free(C2), free(C0), free(R);
    }
    /* a_trans 0, accumulate 0 is llm_matmul, bit for bit */
    {
        float A[6 * 40], B[40 * 9], C1[54], C2[54];
        test_fill(A, 240, 1.0f), test_fill(B, 360, 1.0f);
        CHECK_OK(llm_matmul(C1, A, B, 6, 40, 9, NULL));
        CHECK_OK(llm_matmul_ex(C2, A, B, 6, 40, 9, 0, 0, NULL));
        CHECK(memcmp(C1, C2, sizeof C1) == 0);
        CHECK(llm_matmul_ex(NULL, A, B, 6, 40, 9, 0, 0, NULL) == LLM_EINVAL);
        CHECK(llm_matmul_ex(C2, A, B, 0, 40, 9, 1, 0, NULL) == LLM_EINVAL);
    }
    if (pool) llm_threads_free(pool);
}

/* ---- linear ---------------------------------------------------------------------------- */

static void test_linear_backward(void) {
    enum { T = 19, IN = 70, OUT = 45 };
    static float x[T * IN], W[OUT * IN], dy[T * OUT], dx[T * IN], dW[OUT * IN], db[OUT];
    static double rx[T * IN], rW[OUT * IN], rb[OUT];
    int t, i, o;
    test_fill(x, T * IN, 1.0f), test_fill(W, OUT * IN, 0.5f), test_fill(dy, T * OUT, 1.0f);
    test_fill(dx, T * IN, 1.0f), test_fill(dW, OUT * IN, 1.0f), test_fill(db, OUT, 1.0f);
    for (i = 0; i < T * IN; i++) rx[i] = dx[i]; /* the backward adds to what is there */
    for (i = 0; i < OUT * IN; i++) rW[i] = dW[i];
    for (o = 0; o < OUT; o++) rb[o] = db[o];
    for (t = 0; t < T; t++)
        for (o = 0; o < OUT; o++) {
            double g = dy[t * OUT + o];
            rb[o] += g;
            for (i = 0; i < IN; i++) {
                rx[t * IN + i] += g * W[o * IN + i];
                rW[o * IN + i] += g * x[t * IN + i];
            }
        }
    CHECK_OK(llm_linear_backward(dx, dW, db, dy, x, W, T, IN, OUT, NULL));
    /* measured: dx 2.5e-7, dW 1.3e-7, db 9.6e-8 relative */
    CHECK_MSG(max_rel(dx, rx, T * IN) < 2.5e-6, "linear dx %.3g", max_rel(dx, rx, T * IN));
    CHECK_MSG(max_rel(dW, rW, OUT * IN) < 2e-6, "linear dW %.3g", max_rel(dW, rW, OUT * IN));
    CHECK_MSG(max_rel(db, rb, OUT) < 2e-6, "linear db %.3g", max_rel(db, rb, OUT));
    /* NULL gradients are skipped, the others unchanged */
    {
        float keep = dW[5];
        CHECK_OK(llm_linear_backward(dx, NULL, NULL, dy, x, W, T, IN, OUT, NULL));
        CHECK(dW[5] == keep);
        CHECK(llm_linear_backward(dx, NULL, NULL, dy, x, NULL, T, IN, OUT, NULL) == LLM_EINVAL);
        CHECK(llm_linear_backward(NULL, dW, NULL, dy, NULL, W, T, IN, OUT, NULL) == LLM_EINVAL);
    }
}

/* ---- row ops against finite differences ---------------------------------------------------- */

enum { OP_RMS, OP_LN, OP_SWIGLU, OP_GEGLU, OP_GELU, OP_GELU_ERF, OP_SILU };

/* the forward in double: y[n] from x (and the second input u: gate/up, or the norm gain w,
   with the LayerNorm bias b) */
static void op_fwd(int op, double *y, const double *x, const double *u, const double *b, int n, double eps) {
    int i;
    double ss = 0, mean = 0, var = 0;
    switch (op) {
    case OP_RMS:
        for (i = 0; i < n; i++) ss += x[i] * x[i];
        for (i = 0; i < n; i++) y[i] = x[i] / sqrt(ss / n + eps) * u[i];
        break;
    case OP_LN:
        for (i = 0; i < n; i++) mean += x[i] / n;
        for (i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean) / n;
        for (i = 0; i < n; i++) y[i] = (x[i] - mean) / sqrt(var + eps) * u[i] + b[i];
        break;
    case OP_SWIGLU: case OP_SILU:
        for (i = 0; i < n; i++) y[i] = x[i] / (1 + exp(-x[i])) * (op == OP_SILU ? 1.0 : u[i]);
        break;
    case OP_GEGLU: case OP_GELU:
        for (i = 0; i < n; i++)
            y[i] = 0.5 * x[i] * (1 + tanh(0.7978845608028654 * (x[i] + 0.044715 * x[i] * x[i] * x[i]))) *
                   (op == OP_GELU ? 1.0 : u[i]);
        break;
    default:
        for (i = 0; i < n; i++) y[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2.0)));
        break;
    }
}

/* L = sum dy . f(x, u, b); the numerical gradient of L by which input (0 x, 1 u, 2 b) */
static void op_fd(int op, double *g, int which, const float *xf, const float *uf, const float *bf, const float *dyf, int n,
                  double eps) {
    double x[256], u[256], b[256], y[256], *p = which == 0 ? x : which == 1 ? u : b;
    int i, j;
    for (i = 0; i < n; i++) x[i] = xf[i], u[i] = uf ? uf[i] : 1.0, b[i] = bf ? bf[i] : 0.0;
    for (j = 0; j < n; j++) {
        double keep = p[j], h = 1e-6 * (fabs(keep) + 1.0), lp = 0, lm = 0;
        p[j] = keep + h, op_fwd(op, y, x, u, b, n, eps);
        for (i = 0; i < n; i++) lp += dyf[i] * y[i];
        p[j] = keep - h, op_fwd(op, y, x, u, b, n, eps);
        for (i = 0; i < n; i++) lm += dyf[i] * y[i];
        p[j] = keep;
        g[j] = (lp - lm) / (2 * h);
    }
}

static void test_rowops_backward(void) {
    static const int sizes[] = {1, 7, 64, 129};
    static const char *names[] = {"rmsnorm", "layernorm", "swiglu", "geglu", "gelu", "gelu_erf", "silu"};
    int op, s, i;
    for (op = OP_RMS; op <= OP_SILU; op++)
        for (s = 0; s < 4; s++) {
            int n = sizes[s];
            float x[256], u[256], b[256], dy[256], dx[256], du[256], db[256];
            double gx[256], gu[256], gb[256], tol = 1.5e-6;
            const double eps = 1e-5;
            test_fill(x, n, 2.0f), test_fill(u, n, 1.5f), test_fill(b, n, 1.0f), test_fill(dy, n, 1.0f);
            if (op == OP_LN && n == 1) continue; /* a one-value LayerNorm is constant: nothing to check */
            memset(dx, 0, sizeof dx), memset(du, 0, sizeof du), memset(db, 0, sizeof db);
            switch (op) {
            case OP_RMS: CHECK_OK(llm_rmsnorm_backward(dx, du, dy, x, u, n, (float)eps)); break;
            case OP_LN: CHECK_OK(llm_layernorm_backward(dx, du, db, dy, x, u, n, (float)eps)); break;
            case OP_SWIGLU: CHECK_OK(llm_swiglu_backward(dx, du, dy, x, u, n)); break;
            case OP_GEGLU: CHECK_OK(llm_geglu_backward(dx, du, dy, x, u, n)); break;
            case OP_GELU: CHECK_OK(llm_gelu_backward(dx, dy, x, n)); break;
            case OP_GELU_ERF: CHECK_OK(llm_gelu_erf_backward(dx, dy, x, n)); break;
            default: CHECK_OK(llm_swiglu_backward(dx, NULL, dy, x, NULL, n)); break;
            }
            op_fd(op, gx, 0, x, (op == OP_GELU || op == OP_GELU_ERF || op == OP_SILU) ? NULL : u, b, dy, n, eps);
            /* float backward vs double finite differences: measured <= 1.4e-7, except a
               one-value RMSNorm, whose dx is eps-sized (x / |x| is flat): 2.6e-5 of the 1e-3
               floor, i.e. 3e-8 absolute, from the two terms cancelling */
            CHECK_MSG(max_rel(dx, gx, n) < (op == OP_RMS && n == 1 ? 3e-4 : tol), "%s n %d dx: %.3g", names[op], n, max_rel(dx, gx, n));
            if (op <= OP_GEGLU) {
                op_fd(op, gu, 1, x, u, b, dy, n, eps);
                CHECK_MSG(max_rel(du, gu, n) < tol, "%s n %d d(w or up): %.3g", names[op], n, max_rel(du, gu, n));
            }
            if (op == OP_LN) {
                op_fd(op, gb, 2, x, u, b, dy, n, eps);
                CHECK_MSG(max_rel(db, gb, n) < tol, "layernorm n %d db: %.3g", n, max_rel(db, gb, n));
            }
            /* it adds: a second call doubles the gradient exactly where it started from 0 */
            if (op == OP_SWIGLU) {
                float dx2[256];
                memcpy(dx2, dx, sizeof dx2);
                CHECK_OK(llm_swiglu_backward(dx2, NULL, dy, x, u, n));
                for (i = 0; i < n; i++)
                    if (dx2[i] != 2.0f * dx[i]) break;
                CHECK(i == n);
            }
        }
    CHECK(llm_rmsnorm_backward(NULL, NULL, NULL, NULL, NULL, 4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_layernorm_backward(NULL, NULL, NULL, NULL, NULL, NULL, 0, 1e-5f) == LLM_EINVAL);
    CHECK(llm_swiglu_backward(NULL, (float *)1, (const float *)1, (const float *)1, NULL, 4) == LLM_EINVAL);
}

/* ---- RoPE ------------------------------------------------------------------------------------ */

static void test_rope_backward(void) {
    int layout;
    for (layout = 0; layout < 2; layout++) {
        enum { T = 9, H = 3, HD = 16 };
        llm_rope r;
        static unsigned char mem[1 << 16];
        float x[T * H * HD], y[T * H * HD], dy[T * H * HD], g[T * H * HD];
        double a = 0, b = 0, e = 0;
        int i;
        CHECK_OK(llm_rope_init_ex(&r, mem, sizeof mem, HD, 64, 10000.0f, layout ? LLM_ROPE_HALVES : LLM_ROPE_INTERLEAVED));
        test_fill(x, T * H * HD, 1.0f), test_fill(dy, T * H * HD, 1.0f);
        memcpy(y, x, sizeof y), memcpy(g, dy, sizeof g);
        CHECK_OK(llm_rope_apply_tokens(&r, y, T, H, 20));
        CHECK_OK(llm_rope_backward(&r, g, T, H, 20));
        /* the backward is the adjoint: dy . R x = (R^T dy) . x */
        for (i = 0; i < T * H * HD; i++) a += (double)dy[i] * y[i], b += (double)g[i] * x[i];
        CHECK_NEAR(a, b, 1.1e-6 * (fabs(a) + 1)); /* measured 1.1e-7 */
        /* and the inverse: R^T R x = x */
        CHECK_OK(llm_rope_backward(&r, y, T, H, 20));
        for (i = 0; i < T * H * HD; i++) e = fabs(y[i] - x[i]) > e ? fabs(y[i] - x[i]) : e;
        CHECK_MSG(e < 1.2e-6, "rope inverse %.3g", e); /* measured 1.2e-7 */
        CHECK(llm_rope_backward(&r, g, T, H, 60) == LLM_ERANGE);
    }
}

/* ---- attention ---------------------------------------------------------------------------------- */

enum { AN = 45, AH = 4, AHKV = 2, AHD = 8 }; /* 45 rows: the backward's blocks of 32, one whole and one part */

/* out, and each row's log-sum-exp in lse (if not NULL, [AN][AH]) */
static void att_fwd_d(double *out, double *lse, const double *q, const double *k, const double *v, double scale) {
    int h, i, j, d;
    for (h = 0; h < AH; h++) {
        int kh = h / (AH / AHKV);
        for (i = 0; i < AN; i++) {
            double s[AN], mx = -1e300, sum = 0;
            for (j = 0; j <= i; j++) {
                s[j] = 0;
                for (d = 0; d < AHD; d++) s[j] += q[(i * AH + h) * AHD + d] * k[(kh * AN + j) * AHD + d];
                s[j] *= scale;
                if (s[j] > mx) mx = s[j];
            }
            for (j = 0; j <= i; j++) sum += s[j] = exp(s[j] - mx);
            if (lse) lse[i * AH + h] = mx + log(sum);
            for (d = 0; d < AHD; d++) {
                double o = 0;
                for (j = 0; j <= i; j++) o += s[j] / sum * v[(kh * AN + j) * AHD + d];
                out[(i * AH + h) * AHD + d] = o;
            }
        }
    }
}

static void test_attention_backward(void) {
    enum { NQ = AN * AH * AHD, NK = AHKV * AN * AHD };
    static float q[NQ], k[NK], v[NK], o[NQ], dout[NQ], dq[NQ], dk[NK], dv[NK], dq2[NQ], dk2[NK], dv2[NK];
    static double qd[NQ], kd[NK], vd[NK], od[NQ], gq[NQ], gk[NK], gv[NK], lsed[AN * AH];
    static float lse[AN * AH], o2[NQ], kh[NK], vh[NK];
    llm_attention_desc ad = llm_attention_desc_default();
    double e = 0;
    const double scale = 1.0 / sqrt((double)AHD);
    llm_threads *pool = test_pool(2, 3, "attention backward: 2 threads against 1");
    int i, w;
    test_fill(q, NQ, 1.5f), test_fill(k, NK, 1.5f), test_fill(v, NK, 1.0f), test_fill(dout, NQ, 1.0f);
    for (i = 0; i < NQ; i++) qd[i] = q[i];
    for (i = 0; i < NK; i++) kd[i] = k[i], vd[i] = v[i];
    att_fwd_d(od, lsed, qd, kd, vd, scale);
    for (i = 0; i < NQ; i++) o[i] = (float)od[i];
    /* the forward's softmax statistics (llm_attention_desc.lse; its K and V [AHKV][AN][AHD] as here) */
    memcpy(kh, k, sizeof kh), memcpy(vh, v, sizeof vh);
    ad.lse = lse;
    CHECK_OK(llm_attention_ex(o2, q, kh, vh, AN, AN, AN, AH, AHKV, AHD, &ad, NULL));
    for (i = 0; i < AN * AH; i++) e = fabs(lse[i] - lsed[i]) > e ? fabs(lse[i] - lsed[i]) : e;
    CHECK_MSG(e < 1e-5, "attention's log-sum-exp: %.3g from the float64 one", e);
    printf("test_train: attention's log-sum-exp (llm_attention_desc.lse) vs float64: worst %.2g\n", e);
    { /* one query (the last position): the rows kernel's statistics, not the lanes' */
        float l1[AH];
        ad.lse = l1;
        CHECK_OK(llm_attention_ex(o2, q + (AN - 1) * AH * AHD, kh, vh, 1, AN, AN, AH, AHKV, AHD, &ad, NULL));
        for (i = 0; i < AH; i++) CHECK_MSG(fabs(l1[i] - lsed[(AN - 1) * AH + i]) < 1e-5, "one query's lse %d: %.7g vs %.7g", i, l1[i], lsed[(AN - 1) * AH + i]);
    }
    /* the numerical gradient of L = dout . out by q, k and v */
    for (w = 0; w < 3; w++) {
        double *p = w == 0 ? qd : w == 1 ? kd : vd, *g = w == 0 ? gq : w == 1 ? gk : gv;
        int n = w == 0 ? NQ : NK, j;
        for (j = 0; j < n; j++) {
            double keep = p[j], h = 1e-6, lp = 0, lm = 0;
            p[j] = keep + h, att_fwd_d(od, NULL, qd, kd, vd, scale);
            for (i = 0; i < NQ; i++) lp += dout[i] * od[i];
            p[j] = keep - h, att_fwd_d(od, NULL, qd, kd, vd, scale);
            for (i = 0; i < NQ; i++) lm += dout[i] * od[i];
            p[j] = keep;
            g[j] = (lp - lm) / (2 * h);
        }
    }
    memset(dq, 0, sizeof dq), memset(dk, 0, sizeof dk), memset(dv, 0, sizeof dv);
    for (w = 0; w < 2; w++) { /* the statistics recomputed (NULL), then the forward's */
        const float *ls = w ? lse : NULL;
        memset(dq, 0, sizeof dq), memset(dk, 0, sizeof dk), memset(dv, 0, sizeof dv);
        CHECK_OK(llm_attention_backward(dq, dk, dv, dout, q, k, v, o, ls, AN, AH, AHKV, AHD, 0.0f, NULL));
        printf("test_train: attention backward, lse %s: dq %.2g, dk %.2g, dv %.2g relative to central differences\n",
               w ? "given" : "recomputed", max_rel(dq, gq, NQ), max_rel(dk, gk, NK), max_rel(dv, gv, NK));
        CHECK_MSG(max_rel(dq, gq, NQ) < 2e-6, "attention dq %.3g (lse %s)", max_rel(dq, gq, NQ), w ? "given" : "recomputed");
        CHECK_MSG(max_rel(dk, gk, NK) < 2e-6, "attention dk %.3g (lse %s)", max_rel(dk, gk, NK), w ? "given" : "recomputed");
        CHECK_MSG(max_rel(dv, gv, NK) < 2e-6, "attention dv %.3g (lse %s)", max_rel(dv, gv, NK), w ? "given" : "recomputed");
        if (pool) {
            memset(dq2, 0, sizeof dq2), memset(dk2, 0, sizeof dk2), memset(dv2, 0, sizeof dv2);
            CHECK_OK(llm_attention_backward(dq2, dk2, dv2, dout, q, k, v, o, ls, AN, AH, AHKV, AHD, 0.0f, pool));
            CHECK(memcmp(dq, dq2, sizeof dq) == 0);
            CHECK(memcmp(dk, dk2, sizeof dk) == 0);
            CHECK(memcmp(dv, dv2, sizeof dv) == 0);
        }
    }
    if (pool) llm_threads_free(pool);
    /* a wrong statistic is not silently fixed: lse one nat too high scales every P by 1/e */
    for (i = 0; i < AN * AH; i++) lse[i] += 1.0f;
    memset(dv2, 0, sizeof dv2);
    CHECK_OK(llm_attention_backward(dq2, dk2, dv2, dout, q, k, v, o, lse, AN, AH, AHKV, AHD, 0.0f, NULL));
    CHECK_MSG(fabs(dv2[5] * exp(1.0) - dv[5]) < 1e-5 * fabs(dv[5]) + 1e-7, "lse + 1: dv %.6g, want %.6g / e", dv2[5], dv[5]);
    CHECK(llm_attention_backward(dq, dk, dv, dout, q, k, v, o, NULL, AN, 3, 2, AHD, 0.0f, NULL) == LLM_EINVAL);
    CHECK(llm_attention_backward(dq, dk, dv, dout, q, k, v, NULL, NULL, AN, AH, AHKV, AHD, 0.0f, NULL) == LLM_EINVAL);
}

/* A long row: query row n - 1 of a 2100-token sequence (66 of the backward's blocks of
   keys), only its dO non-zero, against dq_i = scale sum_j P_ij (dO_i . v_j - dO_i . O_i) k_j,
   dv_j = P_ij dO_i and dk_j = scale P_ij (dO_i . v_j - dO_i . O_i) q_i in double, with the
   log-sum-exp recomputed and given. */
/* HD <= 64 (8 takes the kernels' tails, 64 their vectors); H query heads share the one KV
   head, head 0 the live one, so for H > 1 a head's rows are H HD apart. */
static void test_attention_backward_long(int HD, int H) {
    enum { N = 2100 };
    float *q = (float *)calloc(N * H * HD, 4), *k = (float *)malloc(N * HD * 4), *v = (float *)malloc(N * HD * 4);
    float *o = (float *)calloc(N * H * HD, 4), *dout = (float *)calloc(N * H * HD, 4), *dq = (float *)calloc(N * H * HD, 4);
    float *dk = (float *)calloc(N * HD, 4), *dv = (float *)calloc(N * HD, 4), *lse_rows = (float *)calloc(N * H, 4);
    double *p = (double *)malloc(N * sizeof(double)), mx = -1e300, sum = 0, ref[64] = {0}, oi[64] = {0}, di = 0, e = 0, m = 0;
    const double scale = 1.0 / sqrt((double)HD);
    const float *qi = q + (N - 1) * H * HD, *doi = dout + (N - 1) * H * HD;
    int i, j, w; /* (the other rows and heads: q = 0 and dO = 0, lse 0 when given) */
    test_fill(q + (N - 1) * H * HD, HD, 1.5f), test_fill(k, N * HD, 1.5f), test_fill(v, N * HD, 1.0f), test_fill(dout + (N - 1) * H * HD, HD, 1.0f);
    for (j = 0; j < N; j++) {
        for (p[j] = 0, i = 0; i < HD; i++) p[j] += (double)qi[i] * k[j * HD + i];
        p[j] *= scale, mx = p[j] > mx ? p[j] : mx;
    }
    for (j = 0; j < N; j++) sum += p[j] = exp(p[j] - mx);
    for (j = 0; j < N; j++)
        for (i = 0; i < HD; i++) oi[i] += p[j] / sum * v[j * HD + i];
    for (i = 0; i < HD; i++) o[(N - 1) * H * HD + i] = (float)oi[i], di += (double)doi[i] * (float)oi[i];
    for (j = 0; j < N; j++) {
        double dv_ = 0;
        for (i = 0; i < HD; i++) dv_ += (double)doi[i] * v[j * HD + i];
        for (i = 0; i < HD; i++) ref[i] += scale * p[j] / sum * (dv_ - di) * k[j * HD + i];
    }
    for (w = 0; w < 2; w++) {
        float lse = (float)(mx + log(sum));
        double ek = 0, mk = 0, ev = 0, mv = 0;
        memset(dq, 0, N * H * HD * 4), memset(dk, 0, N * HD * 4), memset(dv, 0, N * HD * 4), e = m = 0;
        lse_rows[(N - 1) * H] = lse;
        CHECK_OK(llm_attention_backward(dq, dk, dv, dout, q, k, v, o, w ? lse_rows : NULL, N, H, 1, HD, 0.0f, NULL));
        for (i = 0; i < HD; i++) {
            double d = fabs(dq[(N - 1) * H * HD + i] - ref[i]);
            e = d > e ? d : e, m = fabs(ref[i]) > m ? fabs(ref[i]) : m;
        }
        for (j = 0; j < N; j++) {
            double dv_ = 0;
            for (i = 0; i < HD; i++) dv_ += (double)doi[i] * v[j * HD + i];
            for (i = 0; i < HD; i++) {
                double rv = p[j] / sum * doi[i], rk = scale * p[j] / sum * (dv_ - di) * qi[i];
                ev = fabs(dv[j * HD + i] - rv) > ev ? fabs(dv[j * HD + i] - rv) : ev, mv = fabs(rv) > mv ? fabs(rv) : mv;
                ek = fabs(dk[j * HD + i] - rk) > ek ? fabs(dk[j * HD + i] - rk) : ek, mk = fabs(rk) > mk ? fabs(rk) : mk;
            }
        }
        /* measured 2.8e-8 of the largest 0.0192 (1.5e-6 relative), native and scalar */
        CHECK_MSG(e < 1.5e-5 * m && m > 0, "attention dq over 2100 keys (lse %s): %.3g of %.3g", w ? "given" : "recomputed", e, m);
        CHECK_MSG(ek < 1.5e-5 * mk && mk > 0, "attention dk over 2100 keys (lse %s): %.3g of %.3g", w ? "given" : "recomputed", ek, mk);
        CHECK_MSG(ev < 1.5e-5 * mv && mv > 0, "attention dv over 2100 keys (lse %s): %.3g of %.3g", w ? "given" : "recomputed", ev, mv);
    }
    free(q), free(k), free(v), free(o), free(dout), free(dq), free(dk), free(dv), free(p), free(lse_rows);
}

/* ---- the loss and the embedding -------------------------------------------------------------------- */

static void test_cross_entropy(void) {
    enum { T = 5, V = 37 };
    float z[T * V], dz[T * V], dz2[T * V];
    int target[T] = {3, -1, 36, 0, 3}, counted = 0, t, i;
    double loss = 0, ref = 0;
    test_fill(z, T * V, 4.0f);
    z[2 * V + 5] = 80.0f; /* a large logit: the max subtraction keeps exp finite */
    CHECK_OK(llm_cross_entropy(dz, &loss, &counted, z, target, T, V, 0.25f));
    CHECK(counted == 4);
    for (t = 0; t < T; t++) {
        double mx = -1e300, s = 0;
        if (target[t] < 0) continue;
        for (i = 0; i < V; i++) mx = z[t * V + i] > mx ? z[t * V + i] : mx;
        for (i = 0; i < V; i++) s += exp(z[t * V + i] - mx);
        ref += mx + log(s) - z[t * V + target[t]];
        for (i = 0; i < V; i++) { /* d loss_t / d z = softmax - onehot, times the scale */
            double g = 0.25 * (exp(z[t * V + i] - mx) / s - (i == target[t]));
            if (fabs(dz[t * V + i] - g) > 6e-8) break; /* measured 2.8e-9 (scalar and SIMD) */
        }
        CHECK_MSG(i == V, "cross-entropy gradient, token %d, vocab entry %d", t, i);
    }
    /* the sums are double (with SIMD, of each vector's terms summed in float), each term
       a float exp within about an ulp (6e-8 relative): each row's log-sum-exp within ~1e-7
       (the loss here measured 8e-11 relative scalar, 4.4e-10 AVX-512) */
    CHECK_NEAR(loss, ref / 4, 1e-7);
    for (i = 0; i < V; i++)
        if (dz[V + i] != 0.0f) break;
    CHECK(i == V); /* an ignored token gets no gradient */
    memcpy(dz2, z, sizeof z); /* in place */
    CHECK_OK(llm_cross_entropy(dz2, NULL, NULL, dz2, target, T, V, 0.25f));
    CHECK(memcmp(dz, dz2, sizeof dz) == 0);
    target[0] = V;
    CHECK(llm_cross_entropy(dz, &loss, NULL, z, target, T, V, 1.0f) == LLM_EINVAL);
}

static void test_embedding_backward(void) {
    float dE[4 * 3] = {0}, dx[3 * 3] = {1, 2, 3, 10, 20, 30, 100, 200, 300};
    int tok[3] = {2, 0, 2}, bad[3] = {2, 4, 0};
    CHECK_OK(llm_embedding_backward(dE, dx, tok, 3, 3, 4));
    CHECK(dE[6] == 101 && dE[7] == 202 && dE[8] == 303 && dE[0] == 10 && dE[3] == 0);
    CHECK(llm_embedding_backward(dE, dx, bad, 3, 3, 4) == LLM_EINVAL);
    CHECK(dE[0] == 10); /* refused before writing */
}

/* ---- the optimizer ---------------------------------------------------------------------------------- */

static void test_adamw(void) {
    enum { N = 11 };
    float p[N], m[N] = {0}, v[N] = {0}, g[N];
    double rp[N], rm[N] = {0}, rv[N] = {0};
    llm_adamw opt;
    int t, i;
    memset(&opt, 0, sizeof opt);
    opt.lr = 0.01f, opt.weight_decay = 0.1f;
    test_fill(p, N, 1.0f);
    for (i = 0; i < N; i++) rp[i] = p[i];
    for (t = 1; t <= 5; t++) {
        test_fill(g, N, 1.0f);
        g[0] = 0.0f; /* a zero gradient: only the decay moves it */
        CHECK_OK(llm_adamw_step(p, m, v, g, N, &opt, t));
        for (i = 0; i < N; i++) {
            rm[i] = 0.9 * rm[i] + 0.1 * g[i];
            rv[i] = 0.999 * rv[i] + 0.001 * (double)g[i] * g[i];
            rp[i] -= 0.01 * (rm[i] / (1 - pow(0.9, t)) / (sqrt(rv[i] / (1 - pow(0.999, t))) + 1e-8) + 0.1 * rp[i]);
        }
    }
    for (i = 0; i < N; i++)
        if (fabs(p[i] - rp[i]) > 1e-6) break; /* measured 1.05e-7 */
    CHECK_MSG(i == N, "AdamW after 5 steps, parameter %d: %.9g vs %.9g", i, i < N ? p[i] : 0, i < N ? rp[i] : 0);
    CHECK(llm_adamw_step(p, m, v, g, N, &opt, 0) == LLM_EINVAL);
    opt.beta1 = 1.0f;
    CHECK(llm_adamw_step(p, m, v, g, N, &opt, 1) == LLM_EINVAL);
}

/* The vector loop (whole vectors of a long run) against the scalar one (runs of one value):
   the same bits for every parameter and moment, so a pool's split of the parameters
   cannot change them. Gradients of every scale, zeros among them. */
static void test_adamw_vector(void) {
    enum { N = 67 }; /* several vectors of every width and a tail */
    float p[N], m[N] = {0}, v[N] = {0}, g[N], p1[N], m1[N] = {0}, v1[N] = {0};
    llm_adamw opt;
    int t, i;
    memset(&opt, 0, sizeof opt);
    opt.lr = 0.01f, opt.weight_decay = 0.1f;
    test_fill(p, N, 1.0f);
    memcpy(p1, p, sizeof p);
    for (t = 1; t <= 5; t++) {
        test_fill(g, N, 1.0f);
        for (i = 0; i < N; i++) g[i] *= (float)(1 << (i % 24)) * 1e-4f;
        g[3] = g[40] = 0.0f;
        CHECK_OK(llm_adamw_step(p, m, v, g, N, &opt, t));
        for (i = 0; i < N; i++) CHECK_OK(llm_adamw_step(p1 + i, m1 + i, v1 + i, g + i, 1, &opt, t));
    }
    CHECK_MSG(memcmp(p, p1, sizeof p) == 0, "AdamW: vector and scalar parameters differ");
    CHECK(memcmp(m, m1, sizeof m) == 0 && memcmp(v, v1, sizeof v) == 0);
}

static void test_clip_and_schedule(void) {
    float g[3] = {3, 4, 0}, h[2] = {1, INFINITY};
    CHECK_NEAR(llm_clip_grad_norm(g, 3, 10.0), 5.0, 1e-12);
    CHECK(g[0] == 3.0f); /* under the limit: untouched */
    CHECK_NEAR(llm_clip_grad_norm(g, 3, 1.0), 5.0, 1e-12);
    CHECK_NEAR(g[0], 0.6, 1e-7);
    CHECK_NEAR(g[1], 0.8, 1e-7);
    CHECK(llm_clip_grad_norm(h, 2, 1.0) == INFINITY && h[0] == 1.0f);
    { /* three chunks (the last not a multiple of the 32 sums), integer values: every sum exact,
         so a value dropped or counted twice changes the norm */
        static float big[40007];
        double ss = 0.0;
        int i;
        for (i = 0; i < 40007; i++) big[i] = (float)(i % 97 + 1), ss += (double)(i % 97 + 1) * (i % 97 + 1);
        CHECK(llm_clip_grad_norm(big, 40007, 0.0) == sqrt(ss));
        for (i = 0; i < 40; i++) CHECK(llm_clip_grad_norm(big, i + 1, 0.0) == sqrt(((double)(i + 1) * (i + 2) * (2 * i + 3)) / 6.0));
    }
    CHECK_NEAR(llm_lr_cosine(0, 10, 110, 1e-3f, 1e-4f), 1e-4, 1e-9);   /* warmup: step 1 of 10 */
    CHECK_NEAR(llm_lr_cosine(9, 10, 110, 1e-3f, 1e-4f), 1e-3, 1e-9);   /* the peak */
    CHECK_NEAR(llm_lr_cosine(60, 10, 110, 1e-3f, 1e-4f), 5.5e-4, 1e-9); /* half way: the mean */
    CHECK_NEAR(llm_lr_cosine(110, 10, 110, 1e-3f, 1e-4f), 1e-4, 1e-9);
    CHECK_NEAR(llm_lr_cosine(500, 10, 110, 1e-3f, 1e-4f), 1e-4, 1e-9);
}

/* ---- a loss that falls: softmax regression (embedding -> RMSNorm -> linear -> CE) learns
   to predict the next token of a fixed cycle with AdamW. ---------------------------------------------- */

static void test_learns(void) {
    enum { V = 16, D = 32, T = 24 };
    static float E[V * D], W[V * D], dE[V * D], dW[V * D], mE[V * D], vE[V * D], mW[V * D], vW[V * D];
    static float x[T * D], h[T * D], dh[T * D], dxb[T * D], z[T * V];
    int tok[T], tgt[T], t, step;
    double first = 0, loss = 0;
    llm_adamw opt;
    memset(&opt, 0, sizeof opt);
    opt.lr = 0.05f;
    test_fill(E, V * D, 0.5f), test_fill(W, V * D, 0.1f);
    for (t = 0; t < T; t++) tok[t] = (t * 5) % V, tgt[t] = (tok[t] * 3 + 1) % V;
    for (step = 1; step <= 60; step++) {
        memset(dE, 0, sizeof dE), memset(dW, 0, sizeof dW), memset(dh, 0, sizeof dh), memset(dxb, 0, sizeof dxb);
        for (t = 0; t < T; t++) {
            memcpy(x + t * D, E + tok[t] * D, sizeof(float) * D);
            llm_rmsnorm(h + t * D, x + t * D, NULL, D, 1e-5f);
        }
        llm_linear(z, h, W, NULL, T, D, V, NULL);
        llm_cross_entropy(z, &loss, NULL, z, tgt, T, V, 1.0f / T);
        if (step == 1) first = loss;
        llm_linear_backward(dh, dW, NULL, z, h, W, T, D, V, NULL);
        for (t = 0; t < T; t++) llm_rmsnorm_backward(dxb + t * D, NULL, dh + t * D, x + t * D, NULL, D, 1e-5f);
        llm_embedding_backward(dE, dxb, tok, T, D, V);
        llm_adamw_step(W, mW, vW, dW, V * D, &opt, step);
        llm_adamw_step(E, mE, vE, dE, V * D, &opt, step);
    }
    /* log 16 = 2.77 at chance; the mapping is deterministic, so the loss goes to ~0 */
    CHECK_MSG(first > 2.0 && loss < 0.05, "loss %.4f -> %.4f after 60 AdamW steps", first, loss);
}


/* ---- the whole training step ----------------------------------------------------------------------- */

enum { N_FAMILIES = 7 };
static const char *family_name[N_FAMILIES] = {"Llama-style", "GPT-2-style", "GeGLU/MQA", "post-norm RMS",
                                              "post-norm LayerNorm", "qk_norm", "embed_scale"};
static llm_config tiny_config(int family) {
    llm_config c = llm_config_default();
    c.d_model = 16, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 24, c.vocab = 13, c.max_seq_len = 16;
    if (family == 1) { /* GPT-2 style: LayerNorm with bias, GELU, learned positions, biases, tied head, MHA */
        c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.pos = LLM_POS_LEARNED;
        c.bias = LLM_BIAS_ALL, c.tied_embeddings = 1, c.n_kv_heads = 4;
    } else if (family == 2) { /* GeGLU, q/k/v biases, RoPE on halves, MQA */
        c.ffn = LLM_FFN_GEGLU, c.bias = LLM_BIAS_QKV, c.rope_layout = LLM_ROPE_HALVES, c.n_kv_heads = 1;
    } else if (family == 3) { /* post-norm with RMSNorm: x = Norm(x + Attn(x)); x = Norm(x + FFN(x)) */
        c.post_norm = 1;
    } else if (family == 4) { /* post-norm with LayerNorm and biases (the original Transformer's block, GPT-2's parts) */
        c.post_norm = 1, c.norm = LLM_NORM_LAYER, c.norm_bias = 1, c.ffn = LLM_FFN_GELU, c.pos = LLM_POS_LEARNED;
        c.bias = LLM_BIAS_ALL, c.tied_embeddings = 1, c.n_kv_heads = 4;
    } else if (family == 5) { /* Qwen3's q/k head norms, with q/k/v biases so the norms see a shift too */
        c.qk_norm = 1, c.bias = LLM_BIAS_QKV, c.rope_layout = LLM_ROPE_HALVES;
    } else if (family == 6) { /* Gemma's embedding scale sqrt(d), tied head, GeGLU */
        c.embed_scale = 4.0f, c.tied_embeddings = 1, c.ffn = LLM_FFN_GEGLU;
    }
    return c;
}

static double step_loss(llm_train *t, const int *tok, const int *tgt) {
    double loss = 0;
    llm_train_step(t, tok, tgt, 0.0f, &loss, NULL);
    return loss;
}

static void test_train_step(void) {
    int family;
    for (family = 0; family < N_FAMILIES; family++) {
        enum { B = 2, T = 9 };
        llm_config c = tiny_config(family);
        size_t bytes = llm_train_bytes(&c, B, T);
        void *mem = malloc(bytes);
        float *g0, *dir;
        llm_train t;
        int tok[B * T], tgt[B * T], i, slot, n_slots = LLM__T_GLOBAL + c.n_layers * LLM__T_LAYER, bad = 0;
        double loss, worst = 0;
        CHECK(bytes > 0);
        CHECK_OK(llm_train_init(&t, mem, bytes, &c, B, T));
        CHECK_EQ_U64(t.n_params, llm_count_params(&c).total);
        CHECK_OK(llm_train_init_params(&t, 7 + family, 0.3f));
        for (i = 0; i < B * T; i++) tok[i] = (i * 7 + 3) % c.vocab, tgt[i] = i % 5 == 4 ? -1 : (i * 5 + 1) % c.vocab;
        CHECK_OK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL));
        /* the training forward is the inference forward: the same loss from llm_forward's logits */
        {
            llm_state s;
            float *lg = (float *)malloc(sizeof(float) * T * c.vocab);
            double ref = 0, got;
            int counted = 0, bb;
            CHECK_OK(llm_state_create(&s, &c, T, T, LLM_F32));
            for (bb = 0; bb < B; bb++) {
                double l1;
                int n1;
                CHECK_OK(llm_forward(&s, &t.weights, tok + bb * T, T, 0, lg, 1, NULL));
                CHECK_OK(llm_cross_entropy(NULL, &l1, &n1, lg, tgt + bb * T, T, c.vocab, 1.0f));
                ref += l1 * n1, counted += n1;
            }
            got = ref / counted;
            CHECK_MSG(fabs(got - loss) < 1e-5 * loss, "family %d: training loss %.9g, llm_forward's %.9g", family, loss, got);
            llm_state_free(&s);
            free(lg);
        }
        /* every tensor's gradient against central differences along a random direction,
           Richardson-extrapolated from steps h and h/2 (the h^2 error cancels; the loss is
           float, so h cannot shrink far below 1e-2 before rounding noise dominates) */
        g0 = (float *)malloc(sizeof(float) * t.n_params);
        dir = (float *)malloc(sizeof(float) * t.n_params);
        memcpy(g0, t.grads, sizeof(float) * t.n_params);
        for (slot = 0; slot < n_slots; slot++) {
            double gd = 0, fd[2], rel, r;
            int64_t j, o = t.off[slot], len = t.len[slot];
            int k;
            if (o < 0) continue;
            test_fill(dir, (size_t)len, 1.0f);
            for (j = 0; j < len; j++) gd += (double)g0[o + j] * dir[j];
            for (k = 0; k < 2; k++) {
                float h = k ? 5e-3f : 1e-2f, *save = (float *)malloc(sizeof(float) * (size_t)len);
                double lp, lm;
                memcpy(save, t.params + o, sizeof(float) * (size_t)len);
                for (j = 0; j < len; j++) t.params[o + j] = save[j] + h * dir[j];
                lp = step_loss(&t, tok, tgt);
                for (j = 0; j < len; j++) t.params[o + j] = save[j] - h * dir[j];
                lm = step_loss(&t, tok, tgt);
                memcpy(t.params + o, save, sizeof(float) * (size_t)len);
                free(save);
                fd[k] = (lp - lm) / (2.0 * h);
            }
            r = (4.0 * fd[1] - fd[0]) / 3.0;
            rel = fabs(r - gd) / (fabs(gd) + 1e-3);
            if (rel > worst) worst = rel;
            if (rel > 0.1) bad++, fprintf(stderr, "    family %d slot %d: gradient . u %.7g, finite difference %.7g\n", family, slot, gd, r);
        }
        /* measured worst: 2.3e-2 (the embedding through RMSNorm: higher-order terms, float
           rounding); a missing term of the backward moves a tensor's slope by far more. A
           double-precision reference of the whole model would tighten this. */
        CHECK_MSG(bad == 0, "family %d: %d tensors' gradients disagree with finite differences (worst %.3g)", family, bad, worst);
        /* accumulation: two steps add up to twice the gradient */
        llm_train_zero_grad(&t);
        CHECK_OK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL));
        memcpy(g0, t.grads, sizeof(float) * t.n_params);
        CHECK_OK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL));
        for (i = 0; i < t.n_params; i++) /* (not bit-exact: each piece is added to the sum in turn) */
            if (fabs(t.grads[i] - 2.0f * g0[i]) > 1e-5 * fabs(g0[i]) + 1e-7) break; /* measured 1.6e-6; 1e-8 on zero gradients (the key bias) */
        CHECK(i == t.n_params);
        free(g0), free(dir), free(mem);
    }
}

/* A small model learns a fixed sequence: the loss falls. */
static void test_train_learns(void) {
    enum { B = 2, T = 12 };
    llm_config c = tiny_config(0);
    size_t bytes = llm_train_bytes(&c, B, T);
    void *mem = malloc(bytes);
    llm_train t;
    llm_adamw opt;
    int tok[B * T], tgt[B * T], i, step;
    double loss = 0, first = 0, gn;
    llm_threads *pool = test_pool(2, 1, "training step: 2 threads against 1");
    memset(&opt, 0, sizeof opt);
    opt.lr = 1e-2f, opt.weight_decay = 0.01f;
    CHECK_OK(llm_train_init(&t, mem, bytes, &c, B, T));
    CHECK_OK(llm_train_init_params(&t, 1, 0.1f));
    for (i = 0; i < B * T; i++) tok[i] = (i * 3) % c.vocab;
    for (i = 0; i < B * T; i++) tgt[i] = (i + 1) % T ? tok[i + 1] : -1;
    for (step = 0; step < 80; step++) {
        CHECK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL) == LLM_OK || step > 0);
        if (step == 0) first = loss;
        CHECK(llm_train_update(&t, &opt, 1.0, &gn) == LLM_OK || step > 0);
    }
    CHECK_MSG(first > 2.0 && loss < 0.1, "loss %.4f -> %.4f after 80 steps", first, loss);
    if (pool) { /* the same step on 2 threads: the same gradients, bit for bit */
        float *g1 = (float *)malloc(sizeof(float) * t.n_params);
        CHECK_OK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL));
        memcpy(g1, t.grads, sizeof(float) * t.n_params);
        llm_train_zero_grad(&t);
        CHECK_OK(llm_train_step(&t, tok, tgt, 0.0f, &loss, pool));
        CHECK(memcmp(g1, t.grads, sizeof(float) * t.n_params) == 0);
        free(g1);
        llm_threads_free(pool);
    }
    /* refusals */
    tok[0] = c.vocab;
    CHECK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL) == LLM_EINVAL);
    c.sliding_window = 4;
    CHECK(llm_train_bytes(&c, B, T) == 0);
    CHECK(llm_train_init(&t, mem, bytes, &c, B, T) == LLM_EUNSUPPORTED);
    c.sliding_window = 0, c.n_experts = 8, c.n_experts_per_tok = 2;
    CHECK(llm_train_init(&t, mem, bytes, &c, B, T) == LLM_EUNSUPPORTED);
    c.n_experts = 0, c.n_experts_per_tok = 0;
    { /* the forward's features the backward does not have yet are refused by name */
        const char *why = NULL;
        llm_config q = c;
        q.attn_scale = 0.1f;
        CHECK(llm_train_supported(&q, &why) == LLM_EUNSUPPORTED && strstr(why, "attention scale"));
        q = c, q.final_softcap = 30.0f;
        CHECK(llm_train_supported(&q, &why) == LLM_EUNSUPPORTED && strstr(why, "softcap"));
        q = c, q.sandwich_norm = 1;
        CHECK(llm_train_supported(&q, &why) == LLM_EUNSUPPORTED && strstr(why, "sandwich"));
        CHECK(llm_train_supported(&c, &why) == LLM_OK);
        q = c, q.post_norm = 1, q.qk_norm = 1, q.embed_scale = 4.0f; /* these have their backward now */
        CHECK(llm_train_supported(&q, &why) == LLM_OK);
    }
    free(mem);
}

/* llm_train's memory, line by line against the estimator's formulas */
static void test_train_sizes(void) {
    llm_config c = tiny_config(1); /* GPT-style: MHA, GELU, d_ff = 4 d */
    llm_train_sizes z;
    llm_train_state est;
    double s = 12, b = 3, d;
    c.d_model = 32, c.d_ff = 128, c.n_heads = 4, c.n_kv_heads = 4, c.max_seq_len = 16;
    d = c.d_model;
    z = llm_train_sizes_of(&c, (int)b, (int)s);
    est = llm_train_state_bytes((double)llm_count_params(&c).total, 0, 1);
    /* 16 B per parameter: fp32 4 + 4 + 8 here, mixed precision 2 + 2 + 12 in the estimator */
    CHECK_NEAR(z.params + z.grads + z.moments, est.total, 0.0);
    /* Korthikanti et al. with flash attention: 34 s b d bytes of 16-bit tensors and two 1-byte
       dropout masks per layer; llm_train keeps the same tensors in fp32 and has no dropout */
    CHECK_NEAR(z.activations_per_layer,
               2.0 * (llm_activation_bytes(&c, (int64_t)s, (int64_t)b, LLM_ACT_FLASH, 1) / c.n_layers - 2.0 * s * b * d) +
                   4.0 * s * b * c.n_heads, /* and flash attention's log-sum-exp per row and head, fp32 */
               0.0);
    CHECK_NEAR(z.activations_top, 4.0 * s * b * (2 * d + c.vocab), 0.0); /* final norm in and out, logits */
    CHECK((double)llm_train_bytes(&c, (int)b, (int)s) == z.total);
    CHECK(z.total > z.params + z.grads + z.moments + z.activations_per_layer * c.n_layers + z.activations_top + z.work);
    CHECK(llm_train_bytes(&c, 3, 17) == 0); /* longer than max_seq_len */
}

/* ---- LoRA and RsLoRA on a frozen base ------------------------------------------------------------------ */

/* A layer's k-th projection in LLM_LORA_* order: q k v o w1 w2 w3 */
static llm_weight *proj(llm_layer_weights *w, int k) {
    return k == 0 ? &w->wq : k == 1 ? &w->wk : k == 2 ? &w->wv : k == 3 ? &w->wo : k == 4 ? &w->w1 : k == 5 ? &w->w2 : &w->w3;
}

/* The loss of one step and, in g (if not NULL), the adapters' gradients */
static double lora_loss(llm_train *t, const int *tok, const int *tgt, float *g) {
    double loss = 0;
    llm_train_zero_grad(t);
    CHECK_OK(llm_train_step(t, tok, tgt, 0.0f, &loss, NULL));
    if (g) memcpy(g, t->grads, sizeof(float) * (size_t)t->n_params);
    return loss;
}

/* cos(a, b) of two gradients of n values, in double; 0 if either is zero */
static double grad_cosine(const float *a, const float *b, int64_t n) {
    double dot = 0, na = 0, nb = 0;
    int64_t z;
    for (z = 0; z < n; z++) dot += (double)a[z] * b[z], na += (double)a[z] * a[z], nb += (double)b[z] * b[z];
    return na > 0 && nb > 0 ? dot / sqrt(na * nb) : 0.0;
}

/* The adapters' gradients against Richardson-extrapolated central differences along a
   random direction per tensor; returns the worst relative error. */
static double lora_grad_check(llm_train *t, const int *tok, const int *tgt) {
    float *g0 = (float *)malloc(sizeof(float) * (size_t)t->n_params), *dir = (float *)malloc(sizeof(float) * (size_t)t->n_params);
    int64_t slot, j, n_slots = LLM__T_GLOBAL + (int64_t)t->config.n_layers * (LLM__T_LAYER + LLM__LORA_SLOTS);
    double worst = 0;
    lora_loss(t, tok, tgt, g0);
    for (slot = 0; slot < n_slots; slot++) {
        double gd = 0, fd[2], r;
        int64_t o = t->off[slot], len = t->len[slot];
        int k;
        if (o < 0) continue;
        test_fill(dir, (size_t)len, 1.0f);
        for (j = 0; j < len; j++) gd += (double)g0[o + j] * dir[j];
        for (k = 0; k < 2; k++) {
            float h = k ? 5e-3f : 1e-2f;
            double lp, lm;
            for (j = 0; j < len; j++) t->params[o + j] += h * dir[j];
            lp = lora_loss(t, tok, tgt, NULL);
            for (j = 0; j < len; j++) t->params[o + j] -= 2 * h * dir[j];
            lm = lora_loss(t, tok, tgt, NULL);
            for (j = 0; j < len; j++) t->params[o + j] += h * dir[j];
            fd[k] = (lp - lm) / (2.0 * h);
        }
        r = (4.0 * fd[1] - fd[0]) / 3.0;
        if (!(fabs(r - gd) / (fabs(gd) + 1e-3) <= worst)) worst = fabs(r - gd) / (fabs(gd) + 1e-3); /* NaN too */
    }
    free(g0), free(dir);
    return worst;
}

/* llm_forward's logits [B][T][vocab] of weights w on tokens [B][T] */
static void fwd_logits(const llm_config *c, const llm_weights *w, const int *tok, int B, int T, float *out) {
    llm_state s;
    int b;
    CHECK_OK(llm_state_create(&s, c, T, T, LLM_F32));
    for (b = 0; b < B; b++) CHECK_OK(llm_forward(&s, w, tok + b * T, T, 0, out + (size_t)b * T * c->vocab, 1, NULL));
    llm_state_free(&s);
}
static double max_abs_diff(const float *a, const float *b, size_t n) {
    double e = 0;
    size_t i;
    for (i = 0; i < n; i++)
        if (!(fabs((double)a[i] - b[i]) <= e)) e = fabs((double)a[i] - b[i]);
    return e;
}

static void test_lora(void) {
    enum { B = 2, T = 9, R = 4 };
    llm_config c = tiny_config(0);
    size_t fb;
    void *fmem, *lmem;
    llm_train full, lt;
    llm_lora_params lp;
    llm_adamw opt;
    int tok[B * T], tgt[B * T], i, l, step, k;
    double base_loss, loss0, loss, worst;
    /* a random fp32 base model; d_ff 72 so the FFN's rows span several of the blocks a
       quantized base is dequantized in */
    c.d_ff = 72;
    fb = llm_train_bytes(&c, B, T);
    fmem = malloc(fb);
    CHECK_OK(llm_train_init(&full, fmem, fb, &c, B, T));
    CHECK_OK(llm_train_init_params(&full, 3, 0.3f));
    for (i = 0; i < B * T; i++) tok[i] = (i * 7 + 3) % c.vocab, tgt[i] = (i * 5 + 1) % c.vocab;
    base_loss = lora_loss(&full, tok, tgt, NULL);
    memset(&lp, 0, sizeof lp);
    lp.rank = R, lp.alpha = 8.0f, lp.targets = LLM_LORA_ALL;
    CHECK_NEAR(llm_lora_scale(&lp), 2.0, 0.0); /* alpha / r */
    lp.rslora = 1;
    CHECK_NEAR(llm_lora_scale(&lp), 4.0, 0.0); /* alpha / sqrt(r) */
    lmem = malloc(llm_train_lora_bytes(&c, B, T, &lp));
    CHECK_OK(llm_train_init_lora(&lt, lmem, llm_train_lora_bytes(&c, B, T, &lp), &c, &full.weights, B, T, &lp));
    /* adapters only: 7 projections x (r in + out r) per layer */
    {
        int64_t d = c.d_model, hd = d / c.n_heads, qd = c.n_heads * hd, kvd = c.n_kv_heads * hd, ff = c.d_ff;
        int64_t per = R * (d + qd) + R * (d + kvd) * 2 + R * (qd + d) + R * (d + ff) * 2 + R * (ff + d);
        CHECK_EQ_U64(lt.n_params, per * c.n_layers);
    }
    CHECK_OK(llm_train_init_params(&lt, 5, 0.3f));
    /* B starts at zero: the adapted model is the base model, bit for bit */
    loss0 = lora_loss(&lt, tok, tgt, NULL);
    CHECK(loss0 == base_loss);
    { /* applied at inference (llm_lora_apply's view, no merge) with B = 0: llm_forward's logits are the base's */
        llm_lora_ab ab[2 * 7];
        llm_layer_weights vl[2];
        llm_weights vw;
        float *l0 = (float *)malloc(sizeof(float) * B * T * c.vocab), *l1 = (float *)malloc(sizeof(float) * B * T * c.vocab);
        CHECK_OK(llm_lora_apply(&lt, &full.weights, ab, vl, &vw));
        CHECK(vl[1].lora == ab + 7 && ab[7 + 6].rank == R && ab[0].a != NULL);
        fwd_logits(&c, &full.weights, tok, B, T, l0);
        fwd_logits(&c, &vw, tok, B, T, l1);
        CHECK(memcmp(l0, l1, sizeof(float) * B * T * c.vocab) == 0);
        CHECK(llm_lora_apply(&full, &full.weights, ab, vl, &vw) == LLM_EINVAL); /* not a LoRA state */
        free(l0), free(l1);
    }
    /* move B off zero, then check every adapter's gradient */
    memset(&opt, 0, sizeof opt);
    opt.lr = 0.05f;
    for (step = 0; step < 3; step++) {
        lora_loss(&lt, tok, tgt, NULL);
        CHECK_OK(llm_train_update(&lt, &opt, 0.0, NULL));
    }
    worst = lora_grad_check(&lt, tok, tgt);
    CHECK_MSG(worst < 0.05, "LoRA (fp32 base): adapter gradients vs finite differences, worst %.3g", worst); /* measured 8e-3 */
    /* merging s B A into an fp32 copy of each projection gives the same model */
    {
        size_t mb = llm_train_bytes(&c, B, T);
        void *mmem = malloc(mb);
        llm_train merged;
        double lm;
        static const unsigned tg[7] = {LLM_LORA_Q, LLM_LORA_K, LLM_LORA_V, LLM_LORA_O, LLM_LORA_W1, LLM_LORA_W2, LLM_LORA_W3};
        CHECK_OK(llm_train_init(&merged, mmem, mb, &c, B, T));
        memcpy(merged.params, full.params, sizeof(float) * (size_t)full.n_params);
        for (l = 0; l < c.n_layers; l++)
            for (k = 0; k < 7; k++) {
                CHECK_OK(llm_lora_merge(&lt, l, tg[k], (float *)(uintptr_t)proj(&merged.layers[l], k)->data));
            }
        lm = lora_loss(&merged, tok, tgt, NULL);
        loss = lora_loss(&lt, tok, tgt, NULL);
        CHECK_MSG(fabs(lm - loss) < 3e-7 * loss, "merged %.9g vs adapted %.9g", lm, loss); /* measured 2.6e-8 */
        { /* and at inference: the merged model's logits against the unmerged view's */
            llm_lora_ab ab[2 * 7];
            llm_layer_weights vl[2];
            llm_weights vw;
            float *l0 = (float *)malloc(sizeof(float) * B * T * c.vocab), *l1 = (float *)malloc(sizeof(float) * B * T * c.vocab);
            double e, m = 0;
            CHECK_OK(llm_lora_apply(&lt, &full.weights, ab, vl, &vw));
            fwd_logits(&c, &merged.weights, tok, B, T, l0);
            fwd_logits(&c, &vw, tok, B, T, l1);
            e = max_abs_diff(l0, l1, (size_t)B * T * c.vocab);
            for (i = 0; i < B * T * c.vocab; i++) m = fabs(l0[i]) > m ? fabs(l0[i]) : m;
            /* measured 1.8e-6 (native) and 3.0e-6 (scalar) of the largest logit, 4.0 */
            CHECK_MSG(e < 7e-6 * m && m > 0.1, "merged vs unmerged logits: %.3g of %.3g", e, m);
            free(l0), free(l1);
        }
        free(mmem);
    }
    /* QLoRA-style: the same base as fp16 and as int8 groups; the gradients go through the
       stored weights (rows dequantized a block at a time), and the adapters still check out */
    {
        int fmt;
        for (fmt = 0; fmt < 2; fmt++) {
            llm_layer_weights qlayers[2], flayers[2];
            llm_weights qb = full.weights, fb = full.weights;
            void *store[2][7], *deq[2][7];
            llm_train qt;
            void *qmem = malloc(llm_train_lora_bytes(&c, B, T, &lp));
            for (l = 0; l < c.n_layers; l++) {
                qlayers[l] = flayers[l] = full.layers[l];
                for (k = 0; k < 7; k++) {
                    llm_weight *W = proj(&qlayers[l], k), *F = proj(&flayers[l], k);
                    int64_t in, out, e, ne;
                    llm__train_dims(&c, llm__lora_slot[k], &in, &out);
                    ne = in * out;
                    deq[l][k] = malloc(sizeof(float) * (size_t)ne);
                    if (fmt == 0) {
                        uint16_t *h = (uint16_t *)malloc(2 * (size_t)ne);
                        for (e = 0; e < ne; e++) h[e] = llm_f32_to_f16(((const float *)W->data)[e]);
                        for (e = 0; e < ne; e++) ((float *)deq[l][k])[e] = llm_f16_to_f32(h[e]);
                        W->type = LLM_F16, W->data = store[l][k] = h;
                    } else { /* int8 values then their fp32 scales, one allocation */
                        int8_t *q = (int8_t *)malloc((size_t)ne + sizeof(float) * (size_t)(ne / 8));
                        float *sc = (float *)(void *)(q + ne);
                        CHECK_OK(llm_quantize_int8(q, sc, (const float *)W->data, ne, 8));
                        CHECK_OK(llm_dequantize_int8((float *)deq[l][k], q, sc, ne, 8));
                        W->type = LLM_INT8, W->data = store[l][k] = q, W->scale = sc, W->group_size = 8;
                    }
                    F->data = deq[l][k]; /* the fp32 base holding exactly the stored values */
                }
            }
            qb.layers = qlayers, fb.layers = flayers;
            CHECK_OK(llm_train_init_lora(&qt, qmem, llm_train_lora_bytes(&c, B, T, &lp), &c, &qb, B, T, &lp));
            memcpy(qt.params, lt.params, sizeof(float) * (size_t)lt.n_params); /* the trained adapters */
            if (fmt == 0) { /* fp16 weights, fp32 arithmetic: the loss is smooth */
                worst = lora_grad_check(&qt, tok, tgt);
                CHECK_MSG(worst < 0.05, "LoRA (fp16 base): adapter gradients vs finite differences, worst %.3g", worst); /* measured 1.3e-3 */
            }
            { /* the gradients equal those with the fp32 base of the same values, up to the int8
                 path's activation rounding (a staircase loss finite differences cannot follow) */
                float *gq = (float *)malloc(sizeof(float) * (size_t)qt.n_params), *gf = (float *)malloc(sizeof(float) * (size_t)qt.n_params);
                void *ftm = malloc(llm_train_lora_bytes(&c, B, T, &lp));
                llm_train ft;
                double cosv;
                CHECK_OK(llm_train_init_lora(&ft, ftm, llm_train_lora_bytes(&c, B, T, &lp), &c, &fb, B, T, &lp));
                memcpy(ft.params, qt.params, sizeof(float) * (size_t)qt.n_params);
                lora_loss(&qt, tok, tgt, gq);
                lora_loss(&ft, tok, tgt, gf);
                cosv = grad_cosine(gq, gf, qt.n_params);
                /* measured: fp16 1 - <1e-9, int8 1 - 2.6e-4 */
                CHECK_MSG(cosv > (fmt ? 0.997 : 0.9999999), "LoRA (%s base): gradient cosine %.7f with the fp32 base",
                          fmt ? "int8" : "fp16", cosv);
                free(gq), free(gf), free(ftm);
            }
            /* a few steps lower the loss */
            loss0 = lora_loss(&qt, tok, tgt, NULL);
            opt.lr = 0.01f;
            for (step = 0; step < 40; step++) {
                lora_loss(&qt, tok, tgt, NULL);
                CHECK_OK(llm_train_update(&qt, &opt, 1.0, NULL));
            }
            opt.lr = 0.05f;
            loss = lora_loss(&qt, tok, tgt, NULL);
            CHECK_MSG(loss < 0.3 * loss0, "LoRA (%s base) training: loss %.4f -> %.4f", fmt ? "int8" : "fp16", loss0, loss);
            for (l = 0; l < c.n_layers; l++)
                for (k = 0; k < 7; k++) free(store[l][k]), free(deq[l][k]);
            free(qmem);
        }
    }
    /* saved as a llama.cpp GGUF adapter and loaded back: the same adapters, bit for bit */
    {
        size_t n = llm_lora_gguf_bytes(&lt, "llama"), len = 0;
        unsigned char *buf = (unsigned char *)malloc(n + 16);
        llm_gguf g;
        llm_train back;
        void *bmem = malloc(llm_train_lora_bytes(&c, B, T, &lp));
        const char *why = "";
        double l1, l2;
        CHECK(n > 0);
        CHECK_OK(llm_lora_save_gguf(&lt, "llama", buf, n, &len));
        CHECK(len == n);
        CHECK_OK(llm_gguf_create(&g, buf, len, &why));
        CHECK(g.n_tensors == 2 * 7 * c.n_layers);
        CHECK(llm_gguf_find_tensor(&g, "blk.1.ffn_gate.weight.lora_a") != NULL);
        CHECK(llm_gguf_find_tensor(&g, "blk.0.attn_output.weight.lora_b") != NULL);
        CHECK_OK(llm_train_init_lora(&back, bmem, llm_train_lora_bytes(&c, B, T, &lp), &c, &full.weights, B, T, &lp));
        CHECK_OK(llm_lora_load_gguf(&back, &g, &why));
        CHECK(memcmp(back.params, lt.params, sizeof(float) * (size_t)lt.n_params) == 0);
        CHECK(back.lora_scale == lt.lora_scale); /* RsLoRA's alpha / sqrt(r), through alpha = s r */
        l1 = lora_loss(&lt, tok, tgt, NULL), l2 = lora_loss(&back, tok, tgt, NULL);
        CHECK(l1 == l2);
        { /* the adapter file applied at inference to the base saved as a GGUF and loaded back:
             the logits of the training state's own view, bit for bit */
            size_t mn = llm_train_gguf_bytes(&full, NULL), ml = 0;
            unsigned char *mbuf = (unsigned char *)malloc(mn);
            llm_gguf mg;
            llm_model mm;
            llm_layer_weights ml_layers[2], vl[2], vl2[2];
            llm_lora_ab ab[2 * 7], ab2[2 * 7];
            llm_weights vw, vw2;
            float *l0 = (float *)malloc(sizeof(float) * B * T * c.vocab), *lg = (float *)malloc(sizeof(float) * B * T * c.vocab);
            CHECK_OK(llm_train_save_gguf(&full, NULL, mbuf, mn, &ml, &why));
            CHECK_OK(llm_gguf_create(&mg, mbuf, ml, &why));
            if (!fc_host_le()) { /* a big-endian host runs no GGUF model (by design): the refusal is what to check */
                llm_status st = llm_gguf_load(&mm, &mg, ml_layers, 2, &why);
                CHECK_MSG(fc_be_refused(st, why), "a big-endian host loads the saved GGUF: %s: %s", llm_status_str(st), why);
            } else {
                CHECK_OK(llm_gguf_load(&mm, &mg, ml_layers, 2, &why));
                CHECK_OK(llm_lora_apply_gguf(&g, &mm.config, &mm.weights, 1.0f, ab, vl, &vw, &why));
                CHECK(ab[0].rank == R && ab[0].scale == lt.lora_scale);
                CHECK_OK(llm_lora_apply(&lt, &full.weights, ab2, vl2, &vw2));
                fwd_logits(&c, &vw2, tok, B, T, l0);
                fwd_logits(&mm.config, &vw, tok, B, T, lg);
                CHECK(memcmp(l0, lg, sizeof(float) * B * T * c.vocab) == 0);
                /* a base model's file is not an adapter; a GELU model has no lora for ffn_up's place */
                CHECK(llm_lora_apply_gguf(&mg, &mm.config, &mm.weights, 1.0f, ab, vl, &vw, &why) == LLM_EFORMAT);
                {
                    llm_config gc = tiny_config(1);
                    CHECK(llm_lora_apply_gguf(&g, &gc, &mm.weights, 1.0f, ab, vl, &vw, &why) == LLM_EFORMAT);
                }
            }
            llm_gguf_free(&mg);
            free(mbuf), free(l0), free(lg);
        }
        /* hostile: a state of another rank, a file cut short, a tensor of the wrong shape */
        {
            llm_lora_params lp2 = lp;
            llm_train other;
            void *omem;
            lp2.rank = R + 1;
            omem = malloc(llm_train_lora_bytes(&c, B, T, &lp2));
            CHECK_OK(llm_train_init_lora(&other, omem, llm_train_lora_bytes(&c, B, T, &lp2), &c, &full.weights, B, T, &lp2));
            CHECK(llm_lora_load_gguf(&other, &g, &why) == LLM_EFORMAT);
            CHECK(strstr(why, "rank") != NULL);
            lp2.rank = R, lp2.targets = LLM_LORA_Q | LLM_LORA_V; /* fewer targets than the file */
            CHECK_OK(llm_train_init_lora(&other, omem, llm_train_lora_bytes(&c, B, T, &lp2), &c, &full.weights, B, T, &lp2));
            CHECK(llm_lora_load_gguf(&other, &g, &why) == LLM_EFORMAT);
            free(omem);
        }
        llm_gguf_free(&g);
        { /* an alpha so small that alpha / r rounds to 0 (the smallest subnormal float32): refused
             with its reason, the state untouched (a fuzzer's find: the load had set a zero scale) */
            unsigned char *hb = (unsigned char *)malloc(len);
            float *before = (float *)malloc(sizeof(float) * (size_t)back.n_params);
            size_t at;
            llm_gguf g3;
            memcpy(hb, buf, len);
            memcpy(before, back.params, sizeof(float) * (size_t)back.n_params);
            for (at = 0; at + 26 <= len && memcmp(hb + at, "adapter.lora.alpha", 18) != 0; at++) {
            }
            CHECK(at + 26 <= len && hb[at + 18] == 6); /* then its type, FLOAT32 */
            if (at + 26 <= len) {
                hb[at + 22] = 1, hb[at + 23] = hb[at + 24] = hb[at + 25] = 0;
                CHECK_OK(llm_gguf_create(&g3, hb, len, &why));
                CHECK(llm_lora_load_gguf(&back, &g3, &why) == LLM_EFORMAT && strstr(why, "alpha") != NULL);
                CHECK(memcmp(before, back.params, sizeof(float) * (size_t)back.n_params) == 0);
                { /* and at inference, by the same header check */
                    llm_lora_ab hab[2 * 7];
                    llm_layer_weights hl[2];
                    llm_weights hw;
                    CHECK(llm_lora_apply_gguf(&g3, &c, &full.weights, 1.0f, hab, hl, &hw, &why) ==
                          (fc_host_le() ? LLM_EFORMAT : LLM_EUNSUPPORTED));
                }
                llm_gguf_free(&g3);
            }
            free(hb), free(before);
        }
        {
            llm_gguf g2;
            CHECK(llm_gguf_create(&g2, buf, len - 40, &why) != LLM_OK); /* truncated data: the reader refuses */
            llm_gguf_free(&g2);
        }
        free(buf), free(bmem);
    }
    /* refusals */
    {
        const float *A, *Bm;
        CHECK(llm_lora_adapter(&lt, 0, 3u, &A, &Bm, NULL, NULL) == LLM_EINVAL); /* not one target */
        CHECK(llm_lora_adapter(&full, 0, LLM_LORA_Q, &A, &Bm, NULL, NULL) == LLM_EINVAL); /* not a LoRA state */
        lp.rank = 0;
        CHECK(llm_train_lora_bytes(&c, B, T, &lp) == 0);
        CHECK(llm_train_init_lora(&lt, lmem, 1 << 20, &c, &full.weights, B, T, &lp) == LLM_EINVAL);
    }
    free(lmem), free(fmem);
}

/* ---- the whole step in double: every tensor's gradient against central differences of
   tests/ref_model.h's double-precision forward, on the parameters llm_train holds -------- */

static void train_view(rnd_model *m, rnd_layer *L, const llm_train *t) {
    int l;
    memset(m, 0, sizeof *m);
    m->c = t->config, m->l = L;
    for (l = 0; l < t->config.n_layers; l++) {
        const llm_layer_weights *w = &t->layers[l];
        memset(&L[l], 0, sizeof L[l]);
        L[l].an = (float *)(uintptr_t)w->attn_norm, L[l].anb = (float *)(uintptr_t)w->attn_norm_b;
        L[l].fn = (float *)(uintptr_t)w->ffn_norm, L[l].fnb = (float *)(uintptr_t)w->ffn_norm_b;
        L[l].wq = (float *)(uintptr_t)w->wq.data, L[l].wk = (float *)(uintptr_t)w->wk.data;
        L[l].wv = (float *)(uintptr_t)w->wv.data, L[l].wo = (float *)(uintptr_t)w->wo.data;
        L[l].w1 = (float *)(uintptr_t)w->w1.data, L[l].w2 = (float *)(uintptr_t)w->w2.data;
        L[l].w3 = (float *)(uintptr_t)w->w3.data;
        L[l].bq = (float *)(uintptr_t)w->bq, L[l].bk = (float *)(uintptr_t)w->bk, L[l].bv = (float *)(uintptr_t)w->bv;
        L[l].bo = (float *)(uintptr_t)w->bo, L[l].b1 = (float *)(uintptr_t)w->b1, L[l].b2 = (float *)(uintptr_t)w->b2;
        L[l].b3 = (float *)(uintptr_t)w->b3;
        L[l].qn = (float *)(uintptr_t)w->q_norm, L[l].kn = (float *)(uintptr_t)w->k_norm;
    }
    m->emb = (float *)(uintptr_t)t->weights.tok_embed.data, m->pemb = (float *)(uintptr_t)t->weights.pos_embed;
    m->onorm = (float *)(uintptr_t)t->weights.out_norm, m->onormb = (float *)(uintptr_t)t->weights.out_norm_b;
    m->head = (float *)(uintptr_t)t->weights.lm_head.data;
}

/* the mean cross-entropy of the batch under the double reference */
static double ref_loss(const llm_train *t, const int *tok, const int *tgt) {
    rnd_model m;
    rnd_layer L[4];
    int B = t->batch, T = t->seq, V = t->config.vocab, b, i, k, counted = 0;
    double *lg = (double *)malloc(sizeof(double) * (size_t)T * V), sum = 0;
    train_view(&m, L, t);
    for (b = 0; b < B; b++) {
        ref_forward(&m, tok + b * T, T, lg);
        for (i = 0; i < T; i++) {
            double mx = -1e300, s = 0;
            if (tgt[b * T + i] < 0) continue;
            for (k = 0; k < V; k++) mx = lg[i * V + k] > mx ? lg[i * V + k] : mx;
            for (k = 0; k < V; k++) s += exp(lg[i * V + k] - mx);
            sum += mx + log(s) - lg[i * V + tgt[b * T + i]], counted++;
        }
    }
    free(lg);
    return sum / counted;
}

static void test_train_double(void) {
    static const double tol[N_FAMILIES] = {3.4e-5, 1.1e-3, 7.6e-5, 8.6e-5, 1.3e-3, 2.2e-5, 1.2e-5}; /* below */
    int family;
    for (family = 0; family < N_FAMILIES; family++) {
        enum { B = 2, T = 9, PER = 10 };
        llm_config c = tiny_config(family);
        size_t bytes = llm_train_bytes(&c, B, T);
        void *mem = malloc(bytes);
        llm_train t;
        float *g;
        int tok[B * T], tgt[B * T], i, slot, n_slots = LLM__T_GLOBAL + c.n_layers * LLM__T_LAYER, k;
        double loss, worst = 0, ref;
        uint64_t rng = 11;
        CHECK_OK(llm_train_init(&t, mem, bytes, &c, B, T));
        CHECK_OK(llm_train_init_params(&t, 21 + family, 0.3f));
        for (i = 0; i < B * T; i++) tok[i] = (i * 7 + 3) % c.vocab, tgt[i] = i % 5 == 4 ? -1 : (i * 5 + 1) % c.vocab;
        CHECK_OK(llm_train_step(&t, tok, tgt, 0.0f, &loss, NULL));
        ref = ref_loss(&t, tok, tgt);
        CHECK_MSG(fabs(loss - ref) < 3e-7 * ref, "family %d: loss %.9g, double reference %.9g", family, loss, ref); /* measured <= 2.8e-8 */
        g = (float *)malloc(sizeof(float) * (size_t)t.n_params);
        memcpy(g, t.grads, sizeof(float) * (size_t)t.n_params);
        for (slot = 0; slot < n_slots; slot++) {
            int64_t o = t.off[slot], len = t.len[slot];
            double gmax = 0;
            if (o < 0) continue;
            for (i = 0; i < len; i++) gmax = fabs(g[o + i]) > gmax ? fabs(g[o + i]) : gmax;
            for (k = 0; k < PER && k < len; k++) { /* PER parameters of each tensor, at random */
                int64_t j = o + (int64_t)(llm_xorshift_u32(&rng) % (uint32_t)len);
                float keep = t.params[j], hi = keep + 1e-3f * (fabsf(keep) + 0.1f), lo = keep - 1e-3f * (fabsf(keep) + 0.1f);
                double lp, lm, fd, err;
                t.params[j] = hi, lp = ref_loss(&t, tok, tgt);
                t.params[j] = lo, lm = ref_loss(&t, tok, tgt);
                t.params[j] = keep;
                fd = (lp - lm) / ((double)hi - (double)lo); /* the step as the floats really are */
                err = fabs(fd - g[j]) / (gmax + 1e-4);
                if (!(err <= worst)) worst = err;
            }
        }
        /* float backward vs double finite differences, relative to the tensor's largest
           gradient, measured native / scalar (-DLLM_NO_SIMD): Llama-style 1.8e-6 / 3.4e-6,
           GPT-2-style 6.5e-5 / 1.1e-4, GeGLU/MQA 7e-6 / 7.6e-6, post-norm RMS 8.6e-6 / 7.5e-6,
           post-norm LayerNorm 1.2e-4 / 1.3e-4, qk_norm 1.6e-6 / 2.2e-6, embed_scale 1.2e-6 /
           1.1e-6; each tolerance (tol[] above) about 10x its family's worst */
        printf("test_train: whole step in double, %-19s gradients vs central differences: worst %.2g of the tensor's largest (tolerance %.2g)\n",
               family_name[family], worst, tol[family]);
        CHECK_MSG(worst < tol[family], "family %d: gradients vs double finite differences, worst %.3g", family, worst);
        free(g), free(mem);
    }
}

/* ---- recomputation per block, gradient accumulation ---------------------------------------------------- */

/* With LLM_TRAIN_RECOMPUTE the step keeps only each block's input: the estimator's
   recompute figure (2 s b d per layer in 16-bit, so 4 s b d in fp32) line by line, one
   block's buffers more work space, and the same loss and gradients bit for bit (three
   families, 1 and 2 threads). */
static void test_train_recompute(void) {
    enum { B = 2, T = 9 };
    int family;
    llm_threads *pool = test_pool(2, 3 * 2, "recomputation: 2 threads");
    for (family = 0; family < 3; family++) {
        llm_config c = tiny_config(family);
        llm_train_sizes z0 = llm_train_sizes_of(&c, B, T), z1 = llm_train_sizes_ex(&c, B, T, LLM_TRAIN_RECOMPUTE);
        size_t b0 = llm_train_bytes(&c, B, T), b1 = llm_train_bytes_ex(&c, B, T, LLM_TRAIN_RECOMPUTE);
        void *m0 = malloc(b0), *m1 = malloc(b1);
        llm_train t0, t1;
        int tok[B * T], tgt[B * T], i, k;
        double l0, l1;
        double d = c.d_model;
        CHECK_NEAR(z1.activations_per_layer, 2.0 * llm_activation_bytes(&c, T, B, LLM_ACT_RECOMPUTE, 1) / c.n_layers, 0.0);
        CHECK_NEAR(z1.activations_per_layer, 4.0 * T * B * d, 0.0);
        CHECK_NEAR(z1.activations_top, z0.activations_top, 0.0);
        CHECK_NEAR(z1.params + z1.grads + z1.moments, z0.params + z0.grads + z0.moments, 0.0);
        /* the work space gains one block's saved tensors less its input */
        CHECK_NEAR(z1.work - z0.work, z0.activations_per_layer - z1.activations_per_layer, 0.0);
        CHECK(b1 < b0 && (double)b1 == z1.total && llm_train_bytes_ex(&c, B, T, 0) == b0);
        CHECK_OK(llm_train_init(&t0, m0, b0, &c, B, T));
        CHECK(llm_train_init_ex(&t1, m1, b1 - 1, &c, B, T, LLM_TRAIN_RECOMPUTE) == LLM_EINVAL);
        CHECK_OK(llm_train_init_ex(&t1, m1, b1, &c, B, T, LLM_TRAIN_RECOMPUTE));
        CHECK(t1.recompute == 1 && t0.recompute == 0);
        CHECK_OK(llm_train_init_params(&t0, 21 + family, 0.3f));
        memcpy(t1.params, t0.params, sizeof(float) * (size_t)t0.n_params);
        for (i = 0; i < B * T; i++) tok[i] = (i * 7 + 2) % c.vocab, tgt[i] = i % 4 == 3 ? -1 : (i * 3 + 1) % c.vocab;
        for (k = 0; k < 2; k++) {
            llm_threads *th = k ? pool : NULL;
            if (k && !pool) break;
            llm_train_zero_grad(&t0), llm_train_zero_grad(&t1);
            CHECK_OK(llm_train_step(&t0, tok, tgt, 0.0f, &l0, th));
            CHECK_OK(llm_train_step(&t1, tok, tgt, 0.0f, &l1, th));
            CHECK(l0 == l1);
            CHECK_MSG(memcmp(t0.grads, t1.grads, sizeof(float) * (size_t)t0.n_params) == 0,
                      "family %d, %d thread(s): recomputed gradients differ", family, k + 1);
        }
        free(m0), free(m1);
    }
    if (pool) llm_threads_free(pool);
}

/* Gradient accumulation: N micro-batches of b sequences, each step's loss gradient scaled
   by 1 / (all N b's counted targets), add up to the gradient of one batch of N b. */
static void test_train_accumulate(void) {
    enum { N = 3, T = 9 };
    llm_config c = tiny_config(0);
    size_t b1 = llm_train_bytes(&c, 1, T), bn = llm_train_bytes(&c, N, T);
    void *m1 = malloc(b1), *mn = malloc(bn);
    llm_train t1, tn;
    int tok[N * T], tgt[N * T], i, counted = 0;
    double loss, worst = 0, gmax = 0;
    CHECK_OK(llm_train_init(&t1, m1, b1, &c, 1, T));
    CHECK_OK(llm_train_init(&tn, mn, bn, &c, N, T));
    CHECK_OK(llm_train_init_params(&tn, 9, 0.3f));
    memcpy(t1.params, tn.params, sizeof(float) * (size_t)tn.n_params);
    for (i = 0; i < N * T; i++) {
        tok[i] = (i * 5 + 4) % c.vocab, tgt[i] = i % 5 == 1 ? -1 : (i * 11 + 3) % c.vocab;
        counted += tgt[i] >= 0;
    }
    CHECK_OK(llm_train_step(&tn, tok, tgt, 0.0f, &loss, NULL));
    for (i = 0; i < N; i++) CHECK_OK(llm_train_step(&t1, tok + i * T, tgt + i * T, 1.0f / (float)counted, &loss, NULL));
    for (i = 0; i < tn.n_params; i++) {
        double e = fabs((double)t1.grads[i] - tn.grads[i]);
        if (e > worst) worst = e;
        if (fabs(tn.grads[i]) > gmax) gmax = fabs(tn.grads[i]);
    }
    /* the same sums in another order (per micro-batch, then across them; the SIMD GEMM
       blocks 9 tokens otherwise than 27): measured 8.6e-7 (native) and 8.9e-8 (scalar) of
       the largest gradient, 0.83 */
    CHECK_MSG(worst < 1e-5 * gmax && gmax > 0.01, "accumulated vs one batch: %.3g of %.3g", worst, gmax);
    free(m1), free(mn);
}

/* ---- a trained model saved as a llama GGUF -------------------------------------------------------------- */

/* A byte-level model trained a few steps, saved with its 256 byte pieces, read back by
   the GGUF loader and vocabulary: the same logits bit for bit, the same loss as the
   training step, and encoding gives id = byte value. */
static void test_train_save_gguf(void) {
    enum { B = 2, T = 12 };
    llm_config c = tiny_config(0);
    size_t bytes, n, len = 0;
    void *mem;
    unsigned char *buf;
    llm_train t;
    llm_adamw opt;
    llm_gguf_spm tok;
    llm_gguf g;
    llm_model m;
    llm_layer_weights layers[2];
    llm_state s;
    llm_vocab v;
    const char *why = "";
    float *l1, *l2;
    int ids[B * T], tgt[B * T], i, step;
    double loss = 0, ref = 0;
    c.vocab = 256, c.tied_embeddings = 0;
    bytes = llm_train_bytes(&c, B, T);
    mem = malloc(bytes);
    CHECK_OK(llm_train_init(&t, mem, bytes, &c, B, T));
    CHECK_OK(llm_train_init_params(&t, 11, 0.2f));
    memset(&opt, 0, sizeof opt);
    opt.lr = 1e-2f;
    for (i = 0; i < B * T; i++) ids[i] = "a saved model reads bytes"[i], tgt[i] = "a saved model reads bytes"[i + 1];
    for (step = 0; step < 5; step++) {
        CHECK_OK(llm_train_step(&t, ids, tgt, 0.0f, &loss, NULL));
        CHECK_OK(llm_train_update(&t, &opt, 1.0, NULL));
    }
    CHECK_OK(llm_train_step(&t, ids, tgt, 0.0f, &loss, NULL)); /* the loss of the weights saved */
    memset(&tok, 0, sizeof tok);
    tok.bos = tok.eos = -1;
    n = llm_train_gguf_bytes(&t, &tok);
    CHECK(n > 0);
    buf = (unsigned char *)malloc(n);
    CHECK(llm_train_save_gguf(&t, &tok, buf, n - 1, &len, &why) == LLM_EINVAL);
    CHECK_OK(llm_train_save_gguf(&t, &tok, buf, n, &len, &why));
    CHECK(len == n);
    CHECK_OK(llm_gguf_create(&g, buf, len, &why));
    CHECK_OK(llm_gguf_read_config(&m.config, &g, &why));
    CHECK(m.config.d_model == c.d_model && m.config.n_kv_heads == c.n_kv_heads && m.config.vocab == 256 &&
          !m.config.tied_embeddings && m.config.max_seq_len == c.max_seq_len);
    /* llm_forward on the reloaded model and on the training state's own weights */
    l1 = (float *)malloc(sizeof(float) * T * 256), l2 = (float *)malloc(sizeof(float) * T * 256);
    if (!fc_host_le()) { /* a big-endian host runs no GGUF model (by design): the refusal is what to check */
        llm_status st = llm_gguf_load(&m, &g, layers, 2, &why);
        CHECK_MSG(fc_be_refused(st, why), "a big-endian host loads the saved GGUF: %s: %s", llm_status_str(st), why);
    } else {
        CHECK_OK(llm_gguf_load(&m, &g, layers, 2, &why));
        CHECK_OK(llm_state_create(&s, &m.config, T, T, LLM_F32));
        for (i = 0; i < B; i++) {
            double li;
            int ni;
            CHECK_OK(llm_forward(&s, &t.weights, ids + i * T, T, 0, l1, 1, NULL));
            CHECK_OK(llm_forward(&s, &m.weights, ids + i * T, T, 0, l2, 1, NULL));
            CHECK(memcmp(l1, l2, sizeof(float) * T * 256) == 0);
            CHECK_OK(llm_cross_entropy(NULL, &li, &ni, l2, tgt + i * T, T, 256, 1.0f));
            ref += li * ni / (B * T);
        }
        /* measured 3.2e-8 relative (native: the step sums its loss in another order), 1e-16 scalar */
        CHECK_MSG(fabs(ref - loss) < 3e-7 * loss, "reloaded loss %.9g, training step's %.9g", ref, loss);
        llm_state_free(&s);
    }
    /* the vocabulary: every byte is its own id, and decodes back */
    CHECK_OK(llm_vocab_create_gguf(&v, &g, &why));
    {
        char text[256], back[257];
        int32_t got[300];
        size_t nid = 0, nb = 0;
        for (i = 0; i < 256; i++) text[i] = (char)(255 - i);
        CHECK(v.n_tokens == 256 && v.bos < 0 && !v.add_bos && !v.add_space_prefix);
        CHECK_OK(llm_vocab_encode(&v, text, 256, v.add_bos ? LLM_ENCODE_BOS : 0, got, 300, &nid, NULL, 0));
        CHECK_EQ_U64(nid, 256);
        for (i = 0; i < 256 && got[i] == 255 - i; i++) {}
        CHECK_MSG(i == 256, "byte %d encoded as id %d", 255 - i, i < 256 ? (int)got[i] : -1);
        CHECK_OK(llm_vocab_encode(&v, "int x = 1;\n", 11, 0, got, 300, &nid, NULL, 0));
        CHECK(nid == 11 && got[3] == ' ' && got[10] == '\n');
        for (i = 0; i < 256; i++) got[i] = 255 - i;
        CHECK_OK(llm_vocab_decode(&v, got, 256, 0, back, sizeof back, &nb));
        CHECK(nb == 256 && memcmp(back, text, 256) == 0);
        llm_vocab_free(&v);
    }
    llm_gguf_free(&g);
    /* refusals: a layout llama cannot hold, a vocabulary larger than the model's */
    {
        llm_config g2 = tiny_config(1);
        llm_train t2;
        void *m2 = malloc(llm_train_bytes(&g2, B, T));
        CHECK_OK(llm_train_init(&t2, m2, llm_train_bytes(&g2, B, T), &g2, B, T));
        CHECK(llm_train_gguf_bytes(&t2, NULL) == 0);
        CHECK(llm_train_save_gguf(&t2, NULL, buf, n, &len, &why) == LLM_EUNSUPPORTED && strstr(why, "RMSNorm"));
        free(m2);
        tok.n_tokens = 300;
        tok.pieces = (const char *const *)&why;
        CHECK(llm_train_save_gguf(&t, &tok, buf, n, &len, &why) == LLM_EINVAL);
    }
    free(l1), free(l2), free(buf), free(mem);
}

/* The step's element-wise phases (norms and their backward, the FFN's activation, RoPE,
   the loss, the residual adds, the zeroed buffers) and the update (the gradient norm,
   AdamW) split rows or parameter ranges over the pool: 1, 2 and 3 threads give the same
   loss, gradients, norm and parameters, bit for bit. The shapes are big enough that each
   phase runs on the pool (n d = 16384 values, n vocab = 65536, 77-93 K parameters, head
   rows of 16: 256-row blocks of 4096 values). */
static void test_train_threads(void) {
    enum { B = 2, T = 128 };
    llm_threads *pools[3];
    int family, k;
    pools[0] = NULL;
    pools[1] = test_pool(2, 7 * 11, "element-wise phases: 2 threads against 1");
    pools[2] = test_pool(3, 7 * 11, "element-wise phases: 3 threads against 1");
    for (family = 0; family < 7; family++) {
        llm_config c = tiny_config(family);
        size_t bytes;
        llm_train t[3];
        void *mem[3];
        double loss[3], gn[3], again[3];
        int tok[B * T], tgt[B * T], i;
        llm_adamw opt;
        c.d_model = 64, c.d_ff = 96, c.vocab = 256; /* 4 heads of 16 */
        c.max_seq_len = T;
        if (family == 6) c.embed_scale = 8.0f;
        bytes = llm_train_bytes(&c, B, T);
        memset(&opt, 0, sizeof opt);
        opt.lr = 1e-2f, opt.weight_decay = 0.1f;
        for (i = 0; i < B * T; i++) tok[i] = (i * 7 + 3) % c.vocab, tgt[i] = i % 5 == 4 ? -1 : (i * 11 + 1) % c.vocab;
        for (k = 0; k < 3; k++) {
            mem[k] = malloc(bytes);
            CHECK_OK(llm_train_init(&t[k], mem[k], bytes, &c, B, T));
            CHECK_OK(llm_train_init_params(&t[k], 5 + family, 0.2f));
        }
        CHECK_MSG(t[0].n_params >= 2 * 16384, "family %d: %lld parameters, too few for the update's pool", family,
                  (long long)t[0].n_params);
        for (k = 0; k < 3; k++) {
            float *g = (float *)malloc(sizeof(float) * (size_t)t[k].n_params);
            if (k && !pools[k]) {
                free(g);
                continue;
            }
            CHECK_OK(llm_train_step(&t[k], tok, tgt, 0.0f, &loss[k], pools[k]));
            memcpy(g, t[k].grads, sizeof(float) * (size_t)t[k].n_params);
            /* the update's norm is llm_clip_grad_norm's, and clip 0.05 scales (the norm is ~1) */
            CHECK_OK(llm_train_update_ex(&t[k], &opt, 0.05, &gn[k], pools[k]));
            CHECK(gn[k] == llm_clip_grad_norm(g, t[k].n_params, 0.0) && gn[k] > 0.05);
            CHECK_OK(llm_train_step(&t[k], tok, tgt, 0.0f, &again[k], pools[k]));
            CHECK_OK(llm_train_update_ex(&t[k], &opt, 0.0, NULL, pools[k]));
            free(g);
            if (k == 0) continue;
            CHECK_MSG(memcmp(&loss[0], &loss[k], sizeof(double)) == 0 && memcmp(&again[0], &again[k], sizeof(double)) == 0,
                      "family %d, %d threads: loss %.17g %.17g against %.17g %.17g", family, k + 1, loss[k], again[k],
                      loss[0], again[0]);
            CHECK(memcmp(&gn[0], &gn[k], sizeof(double)) == 0);
            CHECK_MSG(memcmp(t[0].params, t[k].params, sizeof(float) * (size_t)t[0].n_params) == 0,
                      "family %d, %d threads: parameters differ", family, k + 1);
            CHECK(memcmp(t[0].m, t[k].m, sizeof(float) * (size_t)t[0].n_params) == 0);
            CHECK(memcmp(t[0].v, t[k].v, sizeof(float) * (size_t)t[0].n_params) == 0);
            CHECK(t[k].step == 2 && again[k] < loss[k]);
        }
        for (i = 0; i < t[0].n_params && t[0].grads[i] == 0.0f; i++) {} /* the update zeroed the gradients */
        CHECK(i == t[0].n_params);
        for (k = 0; k < 3; k++) free(mem[k]);
    }
    for (k = 1; k < 3; k++)
        if (pools[k]) llm_threads_free(pools[k]);
}

/* QLoRA on ggml's block formats, as GGUF files hold them: the base's projections in Q8_0,
   Q4_0, Q4_K and Q6_K (random blocks under moderate fp16 scales), 18 tokens, so the forward
   takes the many-token kernel where the build has one. The adapters' gradients equal those
   over an fp32 base holding exactly the dequantized values, up to the 8-bit rounding of the
   activations that the formats' integer dots take; 2 threads give 1 thread's bits. */
static void test_lora_ggml(void) {
    enum { B = 2, T = 9, R = 4 };
    static const struct {
        const char *name;
        uint32_t ggml;
        llm_dtype t;
        int blk, bytes, d_off;
        float d;
    } f[4] = {{"Q8_0", 8, LLM_Q8_0, 32, 34, 0, 4e-4f},
              {"Q4_0", 2, LLM_Q4_0, 32, 18, 0, 8e-3f},
              {"Q4_K", 12, LLM_Q4_K, 256, 144, 0, 1e-4f},
              {"Q6_K", 14, LLM_Q6_K, 256, 210, 208, 2e-5f}};
    llm_config c = llm_config_default();
    llm_lora_params lp;
    llm_train full;
    void *fmem;
    llm_threads *pool = test_pool(2, 4, "LoRA on ggml bases: 2 threads against 1");
    int tok[B * T], tgt[B * T], i, l, k, fi;
    c.d_model = 256, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 256, c.vocab = 13, c.max_seq_len = 16;
    fmem = malloc(llm_train_bytes(&c, B, T));
    CHECK_OK(llm_train_init(&full, fmem, llm_train_bytes(&c, B, T), &c, B, T));
    CHECK_OK(llm_train_init_params(&full, 11, 0.02f));
    for (i = 0; i < B * T; i++) tok[i] = (i * 7 + 3) % c.vocab, tgt[i] = (i * 5 + 1) % c.vocab;
    memset(&lp, 0, sizeof lp);
    lp.rank = R, lp.alpha = 8.0f, lp.targets = LLM_LORA_ALL;
    for (fi = 0; fi < 4; fi++) {
        llm_layer_weights qlayers[2], flayers[2];
        llm_weights qb = full.weights, fb = full.weights;
        void *store[2][7], *deq[2][7];
        llm_train qt, ft;
        size_t lbytes = llm_train_lora_bytes(&c, B, T, &lp);
        void *qmem = malloc(lbytes), *fm = malloc(lbytes);
        float *gq, *gf;
        double cosv, lq, lf;
        for (l = 0; l < c.n_layers; l++) {
            qlayers[l] = flayers[l] = full.layers[l];
            for (k = 0; k < 7; k++) {
                llm_weight *W = proj(&qlayers[l], k), *F = proj(&flayers[l], k);
                int64_t in, out, ne;
                size_t nbytes, b;
                unsigned char *q;
                llm__train_dims(&c, llm__lora_slot[k], &in, &out);
                ne = in * out, nbytes = (size_t)(ne / f[fi].blk) * (size_t)f[fi].bytes;
                q = (unsigned char *)malloc(nbytes);
                for (b = 0; b < nbytes; b++) q[b] = (unsigned char)(test_randf() * 128.0f + 128.0f);
                for (b = 0; b < nbytes; b += (size_t)f[fi].bytes) { /* d (and Q4_K's dmin) moderate, a little different per block */
                    uint16_t h = llm_f32_to_f16(f[fi].d * (1.0f + 0.5f * test_randf()));
                    q[b + (size_t)f[fi].d_off] = (unsigned char)h, q[b + (size_t)f[fi].d_off + 1] = (unsigned char)(h >> 8);
                    if (f[fi].t == LLM_Q4_K) { /* dmin 7.5 d: the mins centre the 0..15 codes on average */
                        h = llm_f32_to_f16(7.5f * llm_f16_to_f32(h));
                        q[b + 2] = (unsigned char)h, q[b + 3] = (unsigned char)(h >> 8);
                    }
                }
                deq[l][k] = malloc(sizeof(float) * (size_t)ne);
                CHECK_OK(llm_gguf_dequantize(f[fi].ggml, q, (float *)deq[l][k], ne));
                W->type = f[fi].t, W->data = store[l][k] = q;
                F->data = deq[l][k]; /* the fp32 base holding exactly the stored values */
            }
        }
        qb.layers = qlayers, fb.layers = flayers;
        CHECK_OK(llm_train_init_lora(&qt, qmem, lbytes, &c, &qb, B, T, &lp));
        CHECK_OK(llm_train_init_lora(&ft, fm, lbytes, &c, &fb, B, T, &lp));
        test_fill(qt.params, (size_t)qt.n_params, 0.05f); /* B off zero, so every adapter's path counts */
        memcpy(ft.params, qt.params, sizeof(float) * (size_t)qt.n_params);
        gq = (float *)malloc(sizeof(float) * (size_t)qt.n_params), gf = (float *)malloc(sizeof(float) * (size_t)qt.n_params);
        lq = lora_loss(&qt, tok, tgt, gq), lf = lora_loss(&ft, tok, tgt, gf);
        cosv = grad_cosine(gq, gf, qt.n_params);
        /* measured (native and scalar): cosine 1 - 6e-5 .. 1 - 1.2e-4, losses within 4e-4 relative */
        CHECK_MSG(cosv > 0.9995, "LoRA (%s base): gradient cosine %.7f with the fp32 base", f[fi].name, cosv);
        CHECK_MSG(fabs(lq - lf) < 1e-3 * fabs(lf), "LoRA (%s base): loss %.7f, with the fp32 base %.7f", f[fi].name, lq, lf);
        if (pool) {
            double l2 = 0;
            llm_train_zero_grad(&qt);
            CHECK_OK(llm_train_step(&qt, tok, tgt, 0.0f, &l2, pool));
            CHECK_MSG(l2 == lq && memcmp(qt.grads, gq, sizeof(float) * (size_t)qt.n_params) == 0,
                      "LoRA (%s base): 2 threads differ from 1", f[fi].name);
        }
        printf("test_train: LoRA on a %s base: loss %.6f (fp32 base %.6f), gradient cosine 1 - %.2g\n", f[fi].name, lq, lf, 1.0 - cosv);
        for (l = 0; l < c.n_layers; l++)
            for (k = 0; k < 7; k++) free(store[l][k]), free(deq[l][k]);
        free(gq), free(gf), free(qmem), free(fm);
    }
    if (pool) llm_threads_free(pool);
    free(fmem);
}

int main(void) {
    test_matmul_ex();
    test_linear_backward();
    test_rowops_backward();
    test_rope_backward();
    test_attention_backward();
    test_attention_backward_long(8, 1);
    test_attention_backward_long(64, 3);
    test_cross_entropy();
    test_embedding_backward();
    test_adamw();
    test_adamw_vector();
    test_clip_and_schedule();
    test_learns();
    test_train_sizes();
    test_train_step();
    test_train_double();
    test_train_learns();
    test_lora();
    test_lora_ggml();
    test_train_save_gguf();
    test_train_recompute();
    test_train_accumulate();
    test_train_threads();
    return test_done();
}
