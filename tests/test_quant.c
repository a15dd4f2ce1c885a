/* >>weights: the int8 group format (quantize / dequantize) and llm_linear_w with fp16,
   bf16, int8 and fp32 weights, against double-precision references written here.
   Tolerances, per output y[t][r] (S = sum_k |w[r][k] x[t][k]| in double, the scale of
   the rounding error of any fp32 dot product), 10x the worst measured over the native,
   scalar, avx2, avx2f16c and avx512f builds:
     f16 / bf16 / f32: vs the double dot of the converted weights:   |err| <= 2e-6 S + 1e-6
                 (measured 1.98e-7 S, scalar)
     int8:       vs the double dot of the int8 bytes times their scales, dequantized here,
                 with x quantized by the test's own rule (s = max|x| / 127, round half
                 away from zero): the kernel's exact int32 sums, then scales:
                                                                     |err| <= 2e-6 S + 1e-6
                 (measured 1.47e-7 S, native)
                 vs the double dot of dequantized W with the fp32 x: within the bound the
                 activation quantization allows, sum_g |w_g| s_x[g] / 2 (plus the above)
   Threaded results must be bit-identical to unthreaded ones.
   LLM_F32X16, LLM_F16X16 and LLM_BF16X16 (an fp32, fp16 or bf16 matrix through
   llm_weight_repack) promise more: each (row, token) is one chain of fused multiply-adds
   over the columns in order, then + bias, whatever the token count, tile, thread count or
   build; the reference is that chain written here with fmaf, compared bit for bit. */
#include <math.h>
#include "llm.h"
#include "test.h"
#include "internals.h"

#define TOL_REL 2e-6
static double worst_rel[2]; /* |err| / S, [0] fp16 / bf16 / fp32, [1] int8 */

static void test_quantize(void) {
    static const int gss[] = {1, 3, 32, 64, 100};
    float x[600], back[600], s[600];
    int8_t q[600];
    int k, i;
    for (k = 0; k < 5; k++) {
        int gs = gss[k], n = 600 / gs * gs, bad = 0;
        test_fill(x, (size_t)n, 4.0f);
        CHECK_OK(llm_quantize_int8(q, s, x, n, gs));
        CHECK_OK(llm_dequantize_int8(back, q, s, n, gs));
        for (i = 0; i < n; i++) {
            float amax = 0;
            int j;
            for (j = i / gs * gs; j < (i / gs + 1) * gs; j++) amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
            if (s[i / gs] != (float)(amax / 127.0f)) bad++; /* s = max|x| / 127 (cast: x87 excess precision) */
            if (!(fabs((double)back[i] - x[i]) <= s[i / gs] * 0.5 * (1 + 1e-6))) bad++; /* error <= s/2 */
            if (q[i] == -128) bad++; /* symmetric: -128 never appears */
            if (fabsf(x[i]) == amax && q[i] != (x[i] > 0 ? 127 : -127)) bad++; /* the max maps to +-127 */
        }
        CHECK_MSG(bad == 0, "group size %d: %d bad", gs, bad);
    }
    /* values on the grid round-trip exactly: q * s for s = 2^-3 and q in -127..127 */
    for (i = 0; i < 255; i++) x[i] = (float)(i - 127) * 0.125f;
    CHECK_OK(llm_quantize_int8(q, s, x, 255, 255));
    CHECK(s[0] == 127 * 0.125f / 127.0f);
    for (i = 0; i < 255 && q[i] == i - 127; i++) {
    }
    CHECK(i == 255);
    CHECK_OK(llm_dequantize_int8(back, q, s, 255, 255));
    CHECK(memcmp(back, x, 255 * sizeof(float)) == 0);
    /* round half away from zero, like C's round (not to even): 0.5 -> 1, 2.5 -> 3, -2.5 -> -3 */
    x[0] = 127.0f, x[1] = 0.5f, x[2] = 2.5f, x[3] = -2.5f, x[4] = -0.5f, x[5] = 1.5f, x[6] = 0.49999997f, x[7] = 0;
    CHECK_OK(llm_quantize_int8(q, s, x, 8, 8));
    CHECK(s[0] == 1.0f && q[1] == 1 && q[2] == 3 && q[3] == -3 && q[4] == -1 && q[5] == 2 && q[6] == 0 && q[7] == 0);
    /* the same ties inside a 64-wide group, so the vector path rounds them too; and every
       value of a random group equals C's roundf(x / s) exactly, in every build */
    for (i = 0; i < 64; i++) x[i] = (float)((i % 21) - 10) + (i % 2 ? 0.5f : 0.0f);
    x[63] = 127.0f, x[62] = 0.49999997f, x[61] = -0.49999997f;
    CHECK_OK(llm_quantize_int8(q, s, x, 64, 64));
    CHECK(s[0] == 1.0f);
    for (i = 0; i < 64 && q[i] == (int)round(x[i]); i++) {
    }
    CHECK_MSG(i == 64, "tie at %d: %g -> %d", i, i < 64 ? x[i] : 0, i < 64 ? q[i] : 0);
    test_fill(x, 600, 3.0f);
    CHECK_OK(llm_quantize_int8(q, s, x, 600, 100));
    for (i = 0; i < 600 && q[i] == (int)roundf(x[i] / s[i / 100]); i++) {
    }
    CHECK(i == 600);
    /* an all-zero group: scale 0, values 0, dequantizes to 0 (no 0/0) */
    for (i = 0; i < 64; i++) x[i] = i < 32 ? 0.0f : 1.0f;
    CHECK_OK(llm_quantize_int8(q, s, x, 64, 32));
    CHECK(s[0] == 0.0f && q[0] == 0 && q[31] == 0 && q[32] == 127);
    CHECK_OK(llm_dequantize_int8(back, q, s, 64, 32));
    CHECK(back[5] == 0.0f && back[40] == 1.0f);
    /* bad arguments */
    CHECK(llm_quantize_int8(q, s, x, 64, 0) == LLM_EINVAL);
    CHECK(llm_quantize_int8(q, s, x, 64, 48) == LLM_EINVAL); /* 48 does not divide 64 */
    CHECK(llm_quantize_int8(q, s, x, 0, 32) == LLM_EINVAL);
    CHECK(llm_quantize_int8(q, s, x, -64, 32) == LLM_EINVAL);
    CHECK(llm_quantize_int8(NULL, s, x, 64, 32) == LLM_EINVAL);
    CHECK(llm_quantize_int8(q, NULL, x, 64, 32) == LLM_EINVAL);
    CHECK(llm_quantize_int8(q, s, NULL, 64, 32) == LLM_EINVAL);
    CHECK(llm_dequantize_int8(back, q, s, 64, 7) == LLM_EINVAL);
    CHECK(llm_dequantize_int8(NULL, q, s, 64, 32) == LLM_EINVAL);
    CHECK(llm_dequantize_int8(back, q, NULL, 64, 32) == LLM_EINVAL);
    x[10] = INFINITY;
    CHECK(llm_quantize_int8(q, s, x, 64, 32) == LLM_EINVAL);
    x[10] = NAN;
    CHECK(llm_quantize_int8(q, s, x, 64, 32) == LLM_EINVAL);
}

/* One llm_linear_w case: W (fp32 source) converted to `type`, random x and bias,
   checked against double references; then threaded == unthreaded. */
static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static void check_linear(llm_dtype type, int n_tokens, int d_in, int d_out, int gs, int use_bias, int off,
                         llm_threads *th) {
    size_t nw = (size_t)d_in * d_out;
    float *Wf = (float *)xmalloc(nw * sizeof(float));
    double *Wd = (double *)xmalloc(nw * sizeof(double)); /* the weights as the kernel sees them */
    float *xbuf = (float *)xmalloc(((size_t)n_tokens * d_in + 1) * sizeof(float));
    float *ybuf = (float *)xmalloc(((size_t)n_tokens * d_out + 1) * sizeof(float));
    float *y2 = (float *)xmalloc((size_t)n_tokens * d_out * sizeof(float));
    float *b = (float *)xmalloc((size_t)d_out * sizeof(float));
    void *data = xmalloc(nw * 2 + 4);
    float *ws = NULL, *xs = NULL;
    double *xd = NULL;
    int8_t *xq = NULL;
    float *x = xbuf + off, *y = ybuf + off; /* off = 1: not 16-byte aligned */
    llm_weight W;
    int t, r, k, bad = 0, bad_act = 0;
    double worst = 0;
    size_t i;

    test_fill(Wf, nw, 0.5f);
    test_fill(x, (size_t)n_tokens * d_in, 2.0f);
    test_fill(b, (size_t)d_out, 1.0f);
    W.type = type;
    W.scale = NULL;
    W.group_size = 0;
    if (type == LLM_F32) {
        float *f = (float *)data; /* nw * 2 + 4 bytes is not enough for floats */
        free(f);
        data = xmalloc(nw * sizeof(float) + 4);
        memcpy((float *)data + off, Wf, nw * sizeof(float));
        for (i = 0; i < nw; i++) Wd[i] = Wf[i];
        W.data = (float *)data + off;
    } else if (type == LLM_F16 || type == LLM_BF16) {
        uint16_t *h = (uint16_t *)data + off; /* off = 1: 2 bytes past the allocation */
        for (i = 0; i < nw; i++) {
            h[i] = type == LLM_F16 ? llm_f32_to_f16(Wf[i]) : llm_f32_to_bf16(Wf[i]);
            Wd[i] = type == LLM_F16 ? llm_f16_to_f32(h[i]) : llm_bf16_to_f32(h[i]);
        }
        W.data = h;
    } else {
        int8_t *q = (int8_t *)data + off;
        ws = (float *)xmalloc(nw / gs * sizeof(float));
        CHECK_OK(llm_quantize_int8(q, ws, Wf, (int64_t)nw, gs));
        /* the reference reads the int8 bytes and scales themselves, dequantized here */
        for (i = 0; i < nw; i++) Wd[i] = (double)q[i] * ws[i / gs];
        W.data = q;
        W.scale = ws;
        W.group_size = gs;
        /* the activations as the format says the kernel quantizes them, by the test's own
           rule (not llm_quantize_int8): per group s = max|x| / 127 in fp32, q = x / s
           rounded half away from zero */
        xq = (int8_t *)xmalloc((size_t)n_tokens * d_in);
        xs = (float *)xmalloc((size_t)n_tokens * d_in / gs * sizeof(float));
        xd = (double *)xmalloc((size_t)n_tokens * d_in * sizeof(double));
        for (i = 0; i < (size_t)n_tokens * d_in; i += (size_t)gs) {
            float amax = 0, sx;
            size_t j;
            for (j = i; j < i + (size_t)gs; j++) amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
            xs[i / gs] = sx = amax / 127.0f;
            for (j = i; j < i + (size_t)gs; j++) {
                float v = sx > 0 ? x[j] / sx : 0.0f;
                xq[j] = (int8_t)(v < 0 ? -floor(-(double)v + 0.5) : floor((double)v + 0.5));
                xd[j] = (double)xq[j] * sx;
            }
        }
    }
    CHECK_OK(llm_linear_w(y, x, &W, use_bias ? b : NULL, n_tokens, d_in, d_out, NULL));
    for (t = 0; t < n_tokens; t++)
        for (r = 0; r < d_out; r++) {
            const double *wr = Wd + (size_t)r * d_in;
            double ref = use_bias ? b[r] : 0, S = 0, e, act = 0, ref_f = ref;
            for (k = 0; k < d_in; k++) {
                size_t ik = (size_t)t * d_in + k;
                double xk = type == LLM_INT8 ? xd[ik] : (double)x[ik];
                ref += wr[k] * xk;
                S += fabs(wr[k] * xk);
            }
            e = fabs(y[(size_t)t * d_out + r] - ref);
            if (S > 0 && e / S > worst_rel[type == LLM_INT8]) worst_rel[type == LLM_INT8] = e / S;
            e /= TOL_REL * S + 1e-6;
            if (!(e <= 1)) bad++;
            if (!(e <= worst)) worst = e;
            if (type == LLM_INT8) { /* against the unquantized activations */
                const float *xf = x + (size_t)t * d_in;
                for (k = 0; k < d_in; k++) {
                    ref_f += wr[k] * xf[k];
                    act += fabs(wr[k]) * xs[((size_t)t * d_in + k) / gs] * 0.5;
                }
                if (!(fabs(y[(size_t)t * d_out + r] - ref_f) <= act + TOL_REL * S + 1e-6)) bad_act++;
            }
        }
    CHECK_MSG(bad == 0, "linear_w %s n=%d in=%d out=%d gs=%d bias=%d off=%d: %d bad, worst %.3g of tolerance",
              llm_dtype_name(type), n_tokens, d_in, d_out, gs, use_bias, off, bad, worst);
    CHECK_MSG(bad_act == 0, "linear_w int8 vs fp32 x: n=%d in=%d out=%d gs=%d: %d outside the bound", n_tokens, d_in,
              d_out, gs, bad_act);
    if (th) { /* threaded: the same bits */
        CHECK_OK(llm_linear_w(y2, x, &W, use_bias ? b : NULL, n_tokens, d_in, d_out, th));
        CHECK_MSG(memcmp(y2, y, (size_t)n_tokens * d_out * sizeof(float)) == 0, "threaded != unthreaded: %s n=%d out=%d",
                  llm_dtype_name(type), n_tokens, d_out);
    }
    free(Wf), free(Wd), free(xbuf), free(ybuf), free(y2), free(b), free(data);
    free(ws), free(xs), free(xd), free(xq);
}

/* returns the number of cases (each makes 2 thread comparisons when th is a pool) */
static int test_linear_w(llm_threads *th) {
    /* decode and prefill shapes, including ones that are no multiple of anything */
    static const int shapes[][3] = {{1, 64, 1},  {1, 64, 5},    {1, 128, 64}, {3, 96, 7},   {1, 4096, 33},
                                    {17, 256, 9}, {5, 1000, 13}, {2, 2048, 3}, {33, 64, 70}, {1, 32, 1}};
    static const llm_dtype types[] = {LLM_F16, LLM_BF16, LLM_F32};
    static const int gss[] = {32, 64, 16, 8, 96};
    int s, k, g, cases = 5;
    for (s = 0; s < 10; s++) {
        int n = shapes[s][0], din = shapes[s][1], dout = shapes[s][2];
        for (k = 0; k < 3; k++, cases++) check_linear(types[k], n, din + (s & 1) * 3, dout, 0, s & 1, s & 1, th);
        for (g = 0; g < 5; g++)
            if (din % gss[g] == 0) check_linear(LLM_INT8, n, din, dout, gss[g], s % 3 != 0, s & 1, th), cases++;
    }
    /* d_in larger than the int8 activation panel (32768): the sums span two K panels */
    check_linear(LLM_INT8, 2, 40960, 5, 64, 1, 0, th);
    check_linear(LLM_INT8, 1, 40960, 6, 1024, 0, 1, th);
    /* many tokens: several token panels */
    check_linear(LLM_INT8, 70, 1024, 9, 32, 1, 0, th);
    check_linear(LLM_F16, 140, 1024, 9, 0, 1, 0, th);
    check_linear(LLM_BF16, 7, 40000, 6, 0, 0, 1, th);
    /* fp32 forwards to llm_linear */
    {
        float w[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 0, -1}, y[2], b[2] = {10, 20};
        llm_weight W;
        W.type = LLM_F32, W.data = w, W.scale = NULL, W.group_size = 0;
        CHECK_OK(llm_linear_w(y, x, &W, b, 1, 3, 2, th));
        CHECK(y[0] == 10 - 2 && y[1] == 20 - 2);
    }
    return cases;
}

static void test_linear_w_values(void) {
    /* a hand-checkable int8 case: W rows (1..64) and (-1 x64) quantized exactly */
    int8_t q[128];
    float s[2] = {0.5f, 2.0f}, x[64], y[2];
    llm_weight W;
    int i;
    for (i = 0; i < 64; i++) q[i] = (int8_t)(i + 1), q[64 + i] = -1, x[i] = 1.0f;
    W.type = LLM_INT8, W.data = q, W.scale = s, W.group_size = 64;
    CHECK_OK(llm_linear_w(y, x, &W, NULL, 1, 64, 2, NULL));
    CHECK_NEAR(y[0], 0.5 * 64 * 65 / 2, 0); /* x quantizes to 127 * (1/127): exact */
    CHECK_NEAR(y[1], -2.0 * 64, 0);
    /* -128 is outside the symmetric format but must still multiply right */
    q[0] = -128;
    x[0] = -1.0f;
    CHECK_OK(llm_linear_w(y, x, &W, NULL, 1, 64, 2, NULL));
    CHECK_NEAR(y[0], 0.5 * (64 * 65 / 2 - 1 + 128), 0);
    /* non-finite activations give NaN, not garbage or a crash */
    x[3] = INFINITY;
    CHECK_OK(llm_linear_w(y, x, &W, NULL, 1, 64, 2, NULL));
    CHECK(y[0] != y[0] && y[1] != y[1]);
}

static void test_bad_args(void) {
    int8_t q[64] = {0};
    uint16_t h[64] = {0};
    float s[2] = {1, 1}, x[64] = {0}, y[4];
    llm_weight W;
    W.type = LLM_INT8, W.data = q, W.scale = s, W.group_size = 32;
    CHECK_OK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL));
    CHECK(llm_linear_w(NULL, x, &W, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    CHECK(llm_linear_w(y, NULL, &W, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    CHECK(llm_linear_w(y, x, NULL, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    CHECK(llm_linear_w(y, x, &W, NULL, 0, 64, 1, NULL) == LLM_EINVAL);
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 0, 1, NULL) == LLM_EINVAL);
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, -1, NULL) == LLM_EINVAL);
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 48, 1, NULL) == LLM_EINVAL); /* 32 does not divide 48 */
    W.group_size = 0;
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    W.group_size = -32;
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    W.group_size = 32, W.scale = NULL;
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    W.scale = s, W.data = NULL;
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL) == LLM_EINVAL);
    W.data = h, W.type = LLM_F16;
    CHECK_OK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL));
    {   /* a group larger than the activation panel (16384 values) is refused, not overrun */
        int8_t *big = (int8_t *)calloc(32768, 1);
        float *bx = (float *)calloc(32768, sizeof(float)), bs = 1.0f;
        llm_weight B;
        B.type = LLM_INT8, B.data = big, B.scale = &bs, B.group_size = 32768;
        CHECK(big && bx && llm_linear_w(y, bx, &B, NULL, 1, 32768, 1, NULL) == LLM_EUNSUPPORTED);
        B.group_size = 16384, B.scale = s; /* the largest allowed: two groups */
        CHECK(big && bx && llm_linear_w(y, bx, &B, NULL, 1, 32768, 1, NULL) == LLM_OK && y[0] == 0.0f);
        free(big), free(bx);
    }
    W.type = LLM_INT4; /* no kernel: the estimator's 4-bit (ggml's formats run: tests/test_ggml_quants.c) */
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL) == LLM_EUNSUPPORTED);
    W.type = (llm_dtype)99;
    CHECK(llm_linear_w(y, x, &W, NULL, 1, 64, 1, NULL) == LLM_EUNSUPPORTED);
}

/* A group whose largest value is subnormal: s = max|x| / 127 loses bits, x / s lands past
   127, and the vector path once wrapped it to -128 (found in review). Every q must stay in
   [-127, 127] with the sign of x, on every path. */
static void test_quantize_subnormal(void) {
    float x[64], s[2], back[64];
    int8_t q[64];
    int i, bad = 0;
    for (i = 0; i < 64; i++) x[i] = (i % 3 == 0 ? 1.0f : -0.5f) * 1.79e-43f * (float)(1 + i % 5) / 5.0f;
    x[0] = 1.79e-43f;
    x[40] = -1.79e-43f;
    CHECK_OK(llm_quantize_int8(q, s, x, 64, 32));
    for (i = 0; i < 64; i++)
        if (q[i] < -127 || (x[i] > 0 && q[i] < 0) || (x[i] < 0 && q[i] > 0)) bad++;
    CHECK(bad == 0);
    CHECK(q[0] == 127 && q[40] == -127);
    CHECK_OK(llm_dequantize_int8(back, q, s, 64, 32));
    for (i = 0; i < 64; i++) CHECK_NEAR(back[i], x[i], 2e-44);
}

/* LLM_F32X16, LLM_F16X16 and LLM_BF16X16 against the fmaf chain over the stored values,
   bit for bit, for token counts that take one turn, two turns and several panels; row
   counts whose groups do not fill the layout's blocks of four (block 0 takes the 1-3
   left over); column counts under, at and over
   a block; with and without a bias; on th too; x's panels in scratch, on the stack in
   several passes (768 columns: 21 tokens a pass) and one token a pass (8,200 columns, a
   few tokens only: the reference is slow). Then their rows (the embedding lookup's),
   the repack's refusals and the build's wish for them. The fp16 values include
   subnormals and the bf16 ones are the floats' top halves. */
static void test_fx16(llm_threads *th) {
    static const int shapes[][2] = {{1, 16}, {33, 32}, {100, 48}, {300, 64}, {768, 272}, {8200, 16}};
    static const int toks[] = {1, 2, 3, 5, 8, 9, 16, 17, 40};
    static const llm_dtype types[3] = {LLM_F32, LLM_F16, LLM_BF16}, packed[3] = {LLM_F32X16, LLM_F16X16, LLM_BF16X16};
    static const char *const names[3] = {"f32x16", "f16x16", "bf16x16"};
    int e, si, ti, pass, bad[3] = {0, 0, 0}, bad_row = 0, checks = 0;
    for (e = 0; e < 3; e++)
        for (si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++) {
            const int K = shapes[si][0], N = shapes[si][1];
            const size_t es = e ? 2 : 4;
            float *W = (float *)xmalloc(sizeof(float) * (size_t)K * N); /* the values stored, as floats */
            unsigned char *S = (unsigned char *)xmalloc(es * (size_t)K * N), *R = (unsigned char *)xmalloc(es * (size_t)K * N);
            float *x = (float *)xmalloc(sizeof(float) * 40 * (size_t)K), *y = (float *)xmalloc(sizeof(float) * 40 * (size_t)N);
            const size_t sb = llm_linear_wx_bytes(40, K);
            unsigned char *scratch = (unsigned char *)xmalloc(sb + 1); /* used at scratch + 1: any alignment */
            float *b = (float *)xmalloc(sizeof(float) * (size_t)N), *row = (float *)xmalloc(sizeof(float) * (size_t)K);
            llm_weight w, r;
            size_t i;
            int t, o, k;
            test_fill(W, (size_t)K * N, 0.5f);
            test_fill(x, 40 * (size_t)K, 2.0f);
            test_fill(b, (size_t)N, 1.0f);
            for (i = 0; i < (size_t)K * N; i++) {
                uint16_t h;
                if (e == 1 && i % 5 == 0) W[i] *= 1e-5f; /* fp16 subnormals */
                if (e == 0) memcpy(S + 4 * i, &W[i], 4);
                else h = e == 1 ? llm_f32_to_f16(W[i]) : llm_f32_to_bf16(W[i]), memcpy(S + 2 * i, &h, 2),
                     W[i] = e == 1 ? llm_f16_to_f32(h) : llm_bf16_to_f32(h);
            }
            memset(&w, 0, sizeof w);
            w.type = types[e], w.data = S;
            /* wanted with AVX-512 and AVX2 (fp16 given F16C) */
            CHECK(llm_weight_repack_worth(types[e], K, N) ==
                  (llm_test__vector_lanes == 16 || (llm_test__vector_lanes == 8 && (e != 1 || llm_test__f16c))));
            CHECK_OK(llm_weight_repack(&r, R, es * (size_t)K * N, &w, K, N));
            CHECK(r.type == packed[e] && r.data == R && !strcmp(llm_dtype_name(r.type), names[e]));
            for (ti = 0; ti < (int)(sizeof toks / sizeof toks[0]) && (K < 4096 || toks[ti] <= 3); ti++)
                for (pass = 0; pass < 6; pass++) { /* bias, threads; 4, 5: scratch (4 with both, 5 with neither) */
                    const int n = toks[ti], bias = pass == 4 || (pass < 4 && (pass & 1));
                    llm_threads *tp = pass == 4 || (pass < 4 && (pass & 2)) ? th : NULL;
                    if (pass < 4) CHECK_OK(llm_linear_w(y, x, &r, bias ? b : NULL, n, K, N, tp));
                    else CHECK_OK(llm_linear_wx(y, x, &r, bias ? b : NULL, n, K, N, 0, scratch + 1, sb, tp));
                    for (t = 0; t < n; t++)
                        for (o = 0; o < N; o++) {
                            float s = 0.0f;
                            for (k = 0; k < K; k++) s = fmaf(W[(size_t)o * K + k], x[(size_t)t * K + k], s);
                            if (bias) s += b[o];
                            bad[e] += memcmp(&s, &y[(size_t)t * N + o], sizeof s) != 0;
                            checks++;
                        }
                }
            for (o = 0; o < N; o += 7) {
                CHECK_OK(llm_test__model_row(row, &r, o, N, K));
                bad_row += memcmp(row, W + (size_t)o * K, sizeof(float) * (size_t)K) != 0;
            }
            free(W), free(S), free(R), free(x), free(y), free(b), free(row), free(scratch);
        }
    for (e = 0; e < 3; e++) CHECK_MSG(bad[e] == 0, "%s: %d outputs differ from the fmaf chain", names[e], bad[e]);
    printf("f32x16, f16x16, bf16x16 (%s): %d outputs against the fmaf chain, %d, %d, %d differ\n",
           llm_weight_repack_worth(LLM_F16, 64, 16) ? "fp16 wanted here" : "fp16 not wanted here", checks, bad[0], bad[1], bad[2]);
    CHECK(bad_row == 0);
    { /* refusals: nothing written, nothing read out of bounds */
        float W[64 * 16], R[64 * 16 + 1], y[16], x[64];
        uint16_t H[64 * 16], HR[64 * 16 + 1];
        llm_weight w, r;
        memset(&w, 0, sizeof w), memset(&r, 0, sizeof r);
        test_fill(W, 64 * 16, 1.0f), test_fill(x, 64, 1.0f);
        for (si = 0; si < 64 * 16; si++) H[si] = llm_f32_to_f16(W[si]);
        w.type = LLM_F32, w.data = W;
        CHECK(llm_weight_repack(&r, R, sizeof R, &w, 64, 8) == LLM_EINVAL);          /* d_out not a multiple of 16 */
        CHECK(llm_weight_repack(&r, R, sizeof W - 4, &w, 64, 16) == LLM_EINVAL);     /* too small */
        CHECK(llm_weight_repack(&r, (char *)R + 2, sizeof W, &w, 64, 16) == LLM_EINVAL); /* not aligned for float */
        CHECK(llm_weight_repack(&r, W + 8, sizeof W, &w, 64, 16) == LLM_EINVAL);     /* overlapping its source */
        CHECK(llm_weight_repack(&r, R, sizeof R, &w, 0, 16) == LLM_EINVAL);
        CHECK(llm_weight_repack_worth(LLM_F32, 64, 8) == 0);
        CHECK_OK(llm_weight_repack(&r, R, sizeof R, &w, 64, 16));
        CHECK(llm_linear_w(y, x, &r, NULL, 1, 64, 8, NULL) == LLM_EINVAL); /* rows not in whole groups */
        { /* a row outside the matrix: nothing read */
            float rw[64];
            CHECK(llm_test__model_row(rw, &r, 16, 16, 64) == LLM_EINVAL && llm_test__model_row(rw, &r, -1, 16, 64) == LLM_EINVAL);
        }
        CHECK(llm_weight_repack(&w, R + 1, sizeof W, &r, 64, 16) == LLM_EUNSUPPORTED); /* already repacked */
        w.type = LLM_F16, w.data = H;
        CHECK(llm_weight_repack(&r, HR, sizeof H - 2, &w, 64, 16) == LLM_EINVAL);    /* too small */
        CHECK(llm_weight_repack(&r, (char *)HR + 1, sizeof H, &w, 64, 16) == LLM_EINVAL); /* not aligned for fp16 */
        CHECK(llm_weight_repack(&r, H + 8, sizeof H, &w, 64, 16) == LLM_EINVAL);     /* overlapping its source */
        CHECK_OK(llm_weight_repack(&r, HR, sizeof H, &w, 64, 16));
        CHECK(r.type == LLM_F16X16 && llm_weight_repack(&w, HR + 1, sizeof H, &r, 64, 16) == LLM_EUNSUPPORTED);
        w.type = LLM_INT8, w.data = H;
        CHECK(llm_weight_repack(&r, HR, sizeof HR, &w, 64, 16) == LLM_EUNSUPPORTED && llm_weight_repack_worth(LLM_INT8, 64, 16) == 0);
    }
}

int main(void) {
    llm_threads *th;
    int cases;
    test_quantize_subnormal();
    test_quantize();
    cases = test_linear_w(NULL);
    th = test_pool(3, 2 * cases, "llm_linear_w: 3 threads (uneven splits of the row blocks) against 1");
    test_linear_w(th); /* new random data; the same bits as unthreaded */
    test_linear_w_values();
    test_bad_args();
    test_fx16(th);
    printf("worst |y - ref| / sum |w x|: fp16 / bf16 / fp32 %.3g, int8 %.3g (tolerance %.0e)\n", worst_rel[0],
           worst_rel[1], TOL_REL);
    llm_threads_free(th);
    return test_done();
}
