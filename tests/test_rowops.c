/* >>rowops: every row kernel against a double-precision reference written here, on
   awkward lengths (1, vector width +- 1, 4097, ...), unaligned pointers and in place;
   softmax with -inf, +inf and huge entries; argmax ties; bad arguments.
   Tolerances (same for the scalar and SIMD builds; the SIMD exp is checked on its own):
     norms, add:              |err| <= 2e-6 |ref| + 1e-6
     silu, swiglu, gelu:      |err| <= 2e-6 |ref| + 1e-6   (+ 1e-6 |x| for gelu's scalar
                                                            tanh form, which cancels)
     gelu_erf:                |err| <= 2e-6 |ref| + 1e-6
     layernorm (mean ~1000):  |err| <= 2e-6 |ref| + 7e-5    (2 ulp of the mean / std)
     softmax:                 |err| <= 1e-5 |ref| + 1e-9, and sum within 1e-5 of 1
                              (a float sum of 11008 terms: ~sqrt(n) eps relative) */
#include "llm.h"
#include "test.h"
#include "internals.h" /* llm_test__vector_exp: the SIMD layer's exp */

#define MAXN 11009
static float xs[MAXN + 8], ys[MAXN + 8], ws[MAXN + 8], bs[MAXN + 8], out[MAXN + 8];
static double ref[MAXN + 8];

static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 1000, 4096, 4097, 11008};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* worst |got - ref| / (rel |ref| + abs) over n values; <= 1 passes */
static double worst(const float *got, const double *want, int n, double rel, double abs_) {
    double w = 0;
    int i;
    for (i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]) / (rel * fabs(want[i]) + abs_);
        if (!(e <= w)) w = e; /* NaN makes it NaN, which fails */
    }
    return w;
}

static double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }

static void test_norms(void) {
    int k, off;
    for (k = 0; k < NSIZES; k++)
        for (off = 0; off < 2; off++) { /* off = 1: pointers not 16-byte aligned */
            int n = sizes[k], i;
            float *x = xs + off, *w = ws + off, *b = bs + off, *o = out + off;
            double ss = 0, mean = 0, var = 0, r;
            test_fill(x, (size_t)n, 3.0f);
            test_fill(w, (size_t)n, 1.0f);
            test_fill(b, (size_t)n, 1.0f);
            for (i = 0; i < n; i++) ss += (double)x[i] * x[i];
            r = 1.0 / sqrt(ss / n + 1e-5);
            for (i = 0; i < n; i++) ref[i] = x[i] * r * w[i];
            CHECK_OK(llm_rmsnorm(o, x, w, n, 1e-5f));
            CHECK_MSG(worst(o, ref, n, 2e-6, 1e-6) <= 1, "rmsnorm n=%d off=%d: %g", n, off, worst(o, ref, n, 2e-6, 1e-6));
            for (i = 0; i < n; i++) ref[i] = x[i] * r;
            CHECK_OK(llm_rmsnorm(o, x, NULL, n, 1e-5f));
            CHECK_MSG(worst(o, ref, n, 2e-6, 1e-6) <= 1, "rmsnorm w=NULL n=%d", n);

            /* layernorm on a row with a large mean: a one-pass E[x^2]-E[x]^2 would fail */
            for (i = 0; i < n; i++) x[i] += 1000.0f;
            mean = 0;
            for (i = 0; i < n; i++) mean += x[i];
            mean /= n;
            for (i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
            r = 1.0 / sqrt(var / n + 1e-5);
            for (i = 0; i < n; i++) ref[i] = (x[i] - mean) * r * w[i] + b[i];
            CHECK_OK(llm_layernorm(o, x, w, b, n, 1e-5f));
            /* the float mean itself is off by up to half an ulp of 1000 (3e-5), which
               moves every output by 3e-5 / std: allow 2 ulp(|mean|) / std = 7e-5 */
            CHECK_MSG(worst(o, ref, n, 2e-6, 7e-5) <= 1, "layernorm n=%d off=%d: %g", n, off, worst(o, ref, n, 2e-6, 7e-5));
            for (i = 0; i < n; i++) ref[i] = (x[i] - mean) * r;
            CHECK_OK(llm_layernorm(o, x, NULL, NULL, n, 1e-5f));
            CHECK_MSG(worst(o, ref, n, 2e-6, 7e-5) <= 1, "layernorm w=b=NULL n=%d", n);
            /* in place gives the same bits as out of place */
            memcpy(ys, x, sizeof(float) * (size_t)n);
            CHECK_OK(llm_layernorm(ys, ys, NULL, NULL, n, 1e-5f));
            CHECK(memcmp(ys, o, sizeof(float) * (size_t)n) == 0);
            CHECK_OK(llm_rmsnorm(o, x, w, n, 1e-5f));
            memcpy(ys, x, sizeof(float) * (size_t)n);
            CHECK_OK(llm_rmsnorm(ys, ys, w, n, 1e-5f));
            CHECK(memcmp(ys, o, sizeof(float) * (size_t)n) == 0);
        }
    /* a constant row: layernorm gives b exactly (variance 0, eps keeps it finite) */
    {
        int i;
        for (i = 0; i < 50; i++) xs[i] = 7.25f;
        CHECK_OK(llm_layernorm(out, xs, ws, bs, 50, 1e-5f));
        for (i = 0; i < 50 && out[i] == bs[i]; i++) {
        }
        CHECK(i == 50);
    }
}

typedef llm_status (*act_fn)(float *, const float *, int);
static double silu_d(double x) { return x * sigmoid_d(x); }
static double gelu_d(double x) { return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
static double gelu_erf_d(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }

static void test_activations(void) {
    static const struct {
        const char *name;
        act_fn f;
        double (*ref)(double);
        double xabs; /* extra tolerance per |x| */
    } acts[] = {{"silu", llm_silu, silu_d, 0}, {"gelu", llm_gelu, gelu_d, 1e-6}, {"gelu_erf", llm_gelu_erf, gelu_erf_d, 1e-6}};
    int a, k, off, i;
    for (a = 0; a < 3; a++)
        for (k = 0; k < NSIZES; k++)
            for (off = 0; off < 2; off++) {
                int n = sizes[k], bad = 0;
                float *x = xs + off, *o = out + off;
                double wmax = 0;
                test_fill(x, (size_t)n, 12.0f);
                if (n > 4) x[n - 1] = -30.0f, x[0] = 40.0f, x[1] = 1e-3f;
                CHECK_OK(acts[a].f(o, x, n));
                for (i = 0; i < n; i++) {
                    double r = acts[a].ref(x[i]);
                    double e = fabs(o[i] - r) / (2e-6 * fabs(r) + 1e-6 + acts[a].xabs * fabs(x[i]));
                    if (!(e <= 1)) bad++;
                    if (e > wmax) wmax = e;
                }
                CHECK_MSG(bad == 0, "%s n=%d off=%d: %d bad, worst %g of tolerance", acts[a].name, n, off, bad, wmax);
                /* in place, bit-identical */
                memcpy(ys, x, sizeof(float) * (size_t)n);
                CHECK_OK(acts[a].f(ys, ys, n));
                CHECK(memcmp(ys, o, sizeof(float) * (size_t)n) == 0);
            }
    /* huge finite inputs: no NaN, the right limits */
    {
        static const float big[] = {1e30f, -1e30f, 3e38f, -3e38f, 100.0f, -100.0f, 89.0f, -89.0f};
        for (a = 0; a < 3; a++) {
            CHECK_OK(acts[a].f(out, big, 8));
            for (i = 0; i < 8; i++) {
                CHECK_MSG(out[i] == out[i], "%s(%g) is NaN", acts[a].name, big[i]);
                if (big[i] > 0) CHECK_MSG(out[i] == big[i], "%s(%g) = %g", acts[a].name, big[i], out[i]);
                else CHECK_MSG(fabs(out[i]) < 1e-30, "%s(%g) = %g", acts[a].name, big[i], out[i]);
            }
        }
    }
    /* swiglu = silu(gate) * up, in place on gate or up */
    for (k = 0; k < NSIZES; k++) {
        int n = sizes[k], bad = 0;
        float *g = xs + 1, *u = ws + 1;
        test_fill(g, (size_t)n, 10.0f);
        test_fill(u, (size_t)n, 2.0f);
        for (i = 0; i < n; i++) ref[i] = silu_d(g[i]) * u[i];
        CHECK_OK(llm_swiglu(out, g, u, n));
        CHECK_MSG(worst(out, ref, n, 2e-6, 1e-6) <= 1, "swiglu n=%d: %g", n, worst(out, ref, n, 2e-6, 1e-6));
        memcpy(ys, g, sizeof(float) * (size_t)n);
        CHECK_OK(llm_swiglu(ys, ys, u, n));
        bad += memcmp(ys, out, sizeof(float) * (size_t)n) != 0;
        memcpy(ys, u, sizeof(float) * (size_t)n);
        CHECK_OK(llm_swiglu(ys, g, ys, n));
        bad += memcmp(ys, out, sizeof(float) * (size_t)n) != 0;
        CHECK(bad == 0);
        /* residual add, in place */
        for (i = 0; i < n; i++) ref[i] = (double)g[i] + u[i];
        memcpy(ys, g, sizeof(float) * (size_t)n);
        CHECK_OK(llm_add(ys, ys, u, n));
        CHECK(worst(ys, ref, n, 1e-7, 0) <= 1); /* one rounding: within half an ulp */
    }
}

static void softmax_ref(double *r, const float *x, int n) {
    double mx = -INFINITY, s = 0;
    int i;
    for (i = 0; i < n; i++)
        if (x[i] > mx) mx = x[i];
    for (i = 0; i < n; i++) s += r[i] = exp((double)x[i] - mx);
    for (i = 0; i < n; i++) r[i] /= s;
}
static double sum_f(const float *x, int n) {
    double s = 0;
    int i;
    for (i = 0; i < n; i++) s += x[i];
    return s;
}

static void test_softmax(void) {
    int k, off, i;
    for (k = 0; k < NSIZES; k++)
        for (off = 0; off < 2; off++) {
            int n = sizes[k];
            float *x = xs + off, *o = out + off;
            test_fill(x, (size_t)n, 20.0f);
            softmax_ref(ref, x, n);
            CHECK_OK(llm_softmax(o, x, n));
            CHECK_MSG(worst(o, ref, n, 1e-5, 1e-9) <= 1, "softmax n=%d off=%d: %g", n, off, worst(o, ref, n, 1e-5, 1e-9));
            CHECK_NEAR(sum_f(o, n), 1.0, 1e-5);
            memcpy(ys, x, sizeof(float) * (size_t)n);
            CHECK_OK(llm_softmax(ys, ys, n));
            CHECK(memcmp(ys, o, sizeof(float) * (size_t)n) == 0);
            /* masked (-inf) entries get exactly 0 and the rest renormalise */
            for (i = 0; i < n; i += 3) x[i] = -INFINITY;
            if (n > 1) {
                softmax_ref(ref, x, n);
                CHECK_OK(llm_softmax(o, x, n));
                CHECK_MSG(worst(o, ref, n, 1e-5, 1e-9) <= 1, "softmax -inf n=%d: %g", n, worst(o, ref, n, 1e-5, 1e-9));
                for (i = 0; i < n && (i % 3 || o[i] == 0.0f); i++) {
                }
                CHECK(i == n);
            }
        }
    /* huge values: max subtraction keeps everything finite */
    {
        float h[37];
        for (i = 0; i < 37; i++) h[i] = (i % 2 ? 3e38f : -3e38f) * (1.0f - (float)i / 100);
        softmax_ref(ref, h, 37);
        CHECK_OK(llm_softmax(out, h, 37));
        CHECK(worst(out, ref, 37, 1e-5, 1e-9) <= 1);
        CHECK(out[1] == 1.0f);
        for (i = 0; i < 37; i++) h[i] = 1e30f + (float)i * 1e23f; /* differences of ~1e23: one-hot */
        CHECK_OK(llm_softmax(out, h, 37));
        CHECK(out[36] == 1.0f && out[35] == 0.0f);
    }
    /* all -inf: uniform; +inf entries share the mass */
    for (k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        if (n > 100) continue;
        for (i = 0; i < n; i++) xs[i] = -INFINITY;
        CHECK_OK(llm_softmax(out, xs, n));
        for (i = 0; i < n && out[i] == (float)(1.0f / (float)n); i++) { /* cast: no x87 excess precision */
        }
        CHECK_MSG(i == n, "all -inf n=%d", n);
        test_fill(xs, (size_t)n, 1.0f);
        xs[n / 2] = INFINITY;
        xs[n - 1] = INFINITY;
        CHECK_OK(llm_softmax(out, xs, n));
        CHECK_NEAR(sum_f(out, n), 1.0, 1e-6);
        CHECK(out[n - 1] == (n / 2 == n - 1 ? 1.0f : 0.5f));
    }
    {   /* n = 1 is a certain 1 */
        float one = -5e37f;
        CHECK_OK(llm_softmax(out, &one, 1));
        CHECK(out[0] == 1.0f);
    }
}

static void test_argmax(void) {
    float x[9] = {1, 3, -2, 3, 0, 3, -7, 2, 1};
    CHECK(llm_argmax(x, 9) == 1); /* first of the ties */
    CHECK(llm_argmax(x, 1) == 0);
    x[0] = NAN;
    CHECK(llm_argmax(x, 9) == 1);
    x[1] = -INFINITY;
    CHECK(llm_argmax(x, 2) == 1);
    CHECK(llm_argmax(x, 1) == 0); /* all NaN: 0 */
    CHECK(llm_argmax(NULL, 9) == -1);
    CHECK(llm_argmax(x, 0) == -1);
    CHECK(llm_argmax(x, -3) == -1);
}

static void test_bad_args(void) {
    float a[4] = {1, 2, 3, 4}, o[4];
    CHECK(llm_rmsnorm(NULL, a, a, 4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(o, NULL, a, 4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(o, a, a, 0, 1e-5f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(o, a, a, -1, 1e-5f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(o, a, a, 4, -1.0f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(o, a, a, 4, NAN) == LLM_EINVAL);
    CHECK(llm_layernorm(o, NULL, a, a, 4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_layernorm(o, a, a, a, 0, 1e-5f) == LLM_EINVAL);
    CHECK(llm_layernorm(NULL, a, a, a, 4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_silu(o, NULL, 4) == LLM_EINVAL);
    CHECK(llm_silu(o, a, 0) == LLM_EINVAL);
    CHECK(llm_gelu(NULL, a, 4) == LLM_EINVAL);
    CHECK(llm_gelu_erf(o, a, -2) == LLM_EINVAL);
    CHECK(llm_swiglu(o, a, NULL, 4) == LLM_EINVAL);
    CHECK(llm_swiglu(o, NULL, a, 4) == LLM_EINVAL);
    CHECK(llm_add(o, a, NULL, 4) == LLM_EINVAL);
    CHECK(llm_add(o, a, a, 0) == LLM_EINVAL);
    CHECK(llm_softmax(o, NULL, 4) == LLM_EINVAL);
    CHECK(llm_softmax(NULL, a, 4) == LLM_EINVAL);
    CHECK(llm_softmax(o, a, 0) == LLM_EINVAL);
}

/* The vector exp on its own: sweep [-87, 88] and report the worst relative error. */
static void test_vector_exp(void) {
    double w = 0;
    int i, j;
    float t[LLM_TEST_EXP_LANES], e[LLM_TEST_EXP_LANES];
    if (!llm_test__vector_lanes) {
        printf("vector exp: scalar build (libm expf), nothing to sweep\n");
        return;
    }
    for (i = 0; i < 2000000; i += LLM_TEST_EXP_LANES) {
        for (j = 0; j < LLM_TEST_EXP_LANES; j++) t[j] = -87.0f + 175.0f * (float)(i + j) / 2000000.0f;
        llm_test__vector_exp(e, t);
        for (j = 0; j < LLM_TEST_EXP_LANES; j++) {
            double r = exp((double)t[j]), d = fabs(e[j] - r) / r;
            if (!(d <= w)) w = d;
        }
    }
    printf("vector exp (%d lanes): max relative error %.3g over [-87, 88] (bound %.3g; float ulp/2 = 6e-8)\n",
           llm_test__vector_lanes, w, llm_test__exp_relerr);
    CHECK(w <= llm_test__exp_relerr);
    t[0] = -INFINITY, t[1] = -88.0f, t[2] = -1e30f, t[3] = 0.0f;
    for (j = 4; j < LLM_TEST_EXP_LANES; j++) t[j] = 1.0f;
    llm_test__vector_exp(e, t);
    CHECK(e[0] == 0.0f && e[1] == 0.0f && e[2] == 0.0f && e[3] == 1.0f);
}

int main(void) {
    test_norms();
    test_activations();
    test_softmax();
    test_argmax();
    test_bad_args();
    test_vector_exp();
    return test_done();
}
