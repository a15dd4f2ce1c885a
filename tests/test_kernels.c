/* >>kernels: llm_linear / llm_matmul (fp32) against double-precision references, on awkward
   shapes, unaligned pointers, with and without bias, threaded and not; bad arguments.

   Tolerance: |y - y_ref| <= 2e-6 * (|b| + sum_k |x_k W_k|), the scale of float rounding
   in a K-term sum, 10x the worst measured (2.2e-7 in each of the native, scalar, avx2,
   avx2f16c and avx512f builds); dropping or doubling one term is ~1/K of that sum
   (K <= 3000 here), far above it. Threaded results must equal unthreaded ones bit for
   bit. */
#include <limits.h>
#include "llm.h"
#include "test.h"

#define TOL 2e-6
static double worst_seen; /* the worst |y - y_ref| / (|b| + sum |x W|), printed at the end */

/* Buffers are carved from one allocation offset by one float, so no pointer is 16-,
   32- or 64-byte aligned; a sentinel after each output catches writes past its end. */
#define GUARD 8
static float *alloc_floats(size_t n) {
    float *p = (float *)malloc((n + 1 + GUARD) * sizeof(float));
    size_t i;
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (i = 0; i < n + 1 + GUARD; i++) p[i] = 12345.0f;
    return p + 1;
}
static void free_floats(float *p) { free(p - 1); }
static int guard_ok(const float *p, size_t n) {
    int i;
    for (i = 0; i < GUARD; i++)
        if (p[n + i] != 12345.0f) return 0;
    return 1;
}

/* worst error of y against the double reference, in units of the tolerance */
static double linear_err(const float *y, const float *x, const float *W, const float *b, int n, int din, int dout) {
    double worst = 0;
    int t, o, k;
    for (t = 0; t < n; t++)
        for (o = 0; o < dout; o++) {
            double s = b ? b[o] : 0.0, mag = b ? fabs(b[o]) : 0.0, e;
            for (k = 0; k < din; k++) {
                double p = (double)x[(size_t)t * din + k] * W[(size_t)o * din + k];
                s += p;
                mag += fabs(p);
            }
            e = fabs(y[(size_t)t * dout + o] - s) / (TOL * mag + 1e-30);
            if (!(e <= worst)) worst = e; /* NaN sticks */
            if (!(e * TOL <= worst_seen)) worst_seen = e * TOL;
        }
    return worst;
}

static void check_linear(int n, int din, int dout, int with_bias, llm_threads *pool) {
    float *x = alloc_floats((size_t)n * din), *W = alloc_floats((size_t)dout * din);
    float *b = alloc_floats((size_t)dout), *y = alloc_floats((size_t)n * dout);
    float *y2 = alloc_floats((size_t)n * dout);
    double err;
    test_fill(x, (size_t)n * din, 1.0f);
    test_fill(W, (size_t)dout * din, 0.5f);
    test_fill(b, (size_t)dout, 2.0f);
    CHECK_OK(llm_linear(y, x, W, with_bias ? b : NULL, n, din, dout, NULL));
    err = linear_err(y, x, W, with_bias ? b : NULL, n, din, dout);
    CHECK_MSG(err <= 1.0, "linear n=%d d_in=%d d_out=%d bias=%d: error %.3g x tolerance", n, din, dout,
              with_bias, err);
    CHECK_MSG(guard_ok(y, (size_t)n * dout), "linear n=%d d_in=%d d_out=%d wrote past y", n, din, dout);
    if (pool) { /* the same with a 2-thread pool: bit-identical (3 checks) */
        CHECK_OK(llm_linear(y2, x, W, with_bias ? b : NULL, n, din, dout, pool));
        CHECK_MSG(memcmp(y, y2, (size_t)n * dout * sizeof(float)) == 0,
                  "linear n=%d d_in=%d d_out=%d: 2 threads differ from 1", n, din, dout);
        CHECK(guard_ok(y2, (size_t)n * dout));
    }
    free_floats(x);
    free_floats(W);
    free_floats(b);
    free_floats(y);
    free_floats(y2);
}

/* A GEMM called from inside a task of its own pool runs there on one thread. */
typedef struct {
    llm_threads *pool;
    float *C;
    const float *A, *B;
    int M, K, N;
} nested_matmul;
static void nested_matmul_task(void *ctx, int ith, int nth) {
    const nested_matmul *m = (const nested_matmul *)ctx;
    (void)nth;
    if (ith == 0) CHECK_OK(llm_matmul(m->C, m->A, m->B, m->M, m->K, m->N, m->pool));
}
static void check_matmul(int M, int K, int N, llm_threads *pool) {
    float *A = alloc_floats((size_t)M * K), *B = alloc_floats((size_t)K * N);
    float *C = alloc_floats((size_t)M * N), *C2 = alloc_floats((size_t)M * N);
    double worst = 0;
    int i, j, k;
    test_fill(A, (size_t)M * K, 1.0f);
    test_fill(B, (size_t)K * N, 1.0f);
    CHECK_OK(llm_matmul(C, A, B, M, K, N, NULL));
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            double s = 0, mag = 0, e;
            for (k = 0; k < K; k++) {
                double p = (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
                s += p;
                mag += fabs(p);
            }
            e = fabs(C[(size_t)i * N + j] - s) / (TOL * mag + 1e-30);
            if (!(e <= worst)) worst = e;
            if (!(e * TOL <= worst_seen)) worst_seen = e * TOL;
        }
    CHECK_MSG(worst <= 1.0, "matmul M=%d K=%d N=%d: error %.3g x tolerance", M, K, N, worst);
    CHECK(guard_ok(C, (size_t)M * N));
    if (pool) { /* 4 checks */
        nested_matmul m = {pool, C2, A, B, M, K, N};
        CHECK_OK(llm_matmul(C2, A, B, M, K, N, pool));
        CHECK_MSG(memcmp(C, C2, (size_t)M * N * sizeof(float)) == 0, "matmul M=%d K=%d N=%d: 2 threads differ", M, K,
                  N);
        memset(C2, 0, (size_t)M * N * sizeof(float));
        llm_threads_run(pool, nested_matmul_task, &m);
        CHECK_MSG(memcmp(C, C2, (size_t)M * N * sizeof(float)) == 0, "matmul M=%d K=%d N=%d: nested in a task differs",
                  M, K, N);
    }
    free_floats(A);
    free_floats(B);
    free_floats(C);
    free_floats(C2);
}

static int rand_int(int lo, int hi) { /* uniform-ish in [lo, hi] */
    int r = (int)((test_randf() + 1.0f) * 0.5f * (float)(hi - lo + 1));
    return lo + (r > hi - lo ? hi - lo : r);
}

static void check_bad_args(void) {
    float y[4], x[4], W[4], b[2];
    memset(x, 0, sizeof x);
    memset(W, 0, sizeof W);
    memset(b, 0, sizeof b);
    CHECK(llm_linear(NULL, x, W, b, 1, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, NULL, W, b, 1, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, NULL, b, 1, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, 0, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, 1, 0, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, 1, 2, 0, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, -1, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, 1, -2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, 1, 2, -2, NULL) == LLM_EINVAL);
    /* sizes whose element counts overflow a pointer difference: refused before any access */
    CHECK(llm_linear(y, x, W, b, 1, INT_MAX, INT_MAX, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, W, b, INT_MAX, INT_MAX, 1, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(NULL, x, W, 2, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, NULL, W, 2, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, NULL, 2, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, W, 0, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, W, 2, -1, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, W, 2, 2, 0, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, W, INT_MAX, INT_MAX, INT_MAX, NULL) == LLM_EINVAL);
    /* a 1x1 "matrix" still works */
    x[0] = 3.0f;
    W[0] = -2.0f;
    b[0] = 0.5f;
    CHECK_OK(llm_linear(y, x, W, b, 1, 1, 1, NULL));
    CHECK_NEAR(y[0], -5.5, 0);
}

int main(void) {
    /* (n_tokens, d_in, d_out): 1 and odd sizes, non-multiples of every vector width and
       register tile, k across several cache blocks, rows and columns across blocks */
    static const int shapes[][3] = {
        {1, 1, 1},     {1, 3, 17},   {1, 17, 3},    {1, 1000, 37},  {1, 4096, 9},  {2, 3, 17},  {3, 17, 1000},
        {4, 1000, 21}, {5, 64, 48},  {6, 31, 49},   {7, 257, 97},   {8, 16, 16},   {9, 513, 50}, {17, 1000, 3},
        {17, 3, 1000}, {33, 600, 97}, {64, 64, 64}, {130, 40, 60},  {129, 300, 400}, {12, 2999, 5},
        /* one token, short rows (k <= 256: prefetched, masked tail): stories260K's 172 x 64 */
        {1, 172, 64},  {1, 100, 13}, {1, 255, 9},   {1, 64, 512},
        /* big enough (>= 4e6 multiply-adds) that the 2-thread pool really splits them */
        {1, 2000, 2100}, {5, 1000, 801}, {8, 700, 800}, {40, 513, 250},
    };
    enum { N_SHAPES = sizeof shapes / sizeof shapes[0], N_RANDOM = 24, N_MATMUL = 8 + 8 };
    /* the thread comparisons: 3 per linear case, 4 per matmul */
    llm_threads *pool = test_pool(2, 3 * (2 * N_SHAPES + N_RANDOM) + 4 * N_MATMUL, "linear / matmul: 2 threads against 1");
    int i;
    printf("tolerance: |y - y_ref| <= %g * (|b| + sum |x W|), double-precision reference\n", TOL);
    for (i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++) {
        check_linear(shapes[i][0], shapes[i][1], shapes[i][2], 1, pool);
        check_linear(shapes[i][0], shapes[i][1], shapes[i][2], 0, pool);
    }
    for (i = 0; i < N_RANDOM; i++) /* random shapes */
        check_linear(rand_int(1, 40), rand_int(1, 700), rand_int(1, 300), i & 1, pool);
    check_matmul(1, 1, 1, pool);
    check_matmul(3, 17, 1000, pool);
    check_matmul(17, 1000, 3, pool);
    check_matmul(1000, 3, 17, pool);
    check_matmul(1, 300, 70, pool);
    check_matmul(65, 257, 129, pool);
    check_matmul(2000, 300, 10, pool); /* one column strip: the threads split rows */
    check_matmul(5000, 40, 60, pool); /* rows enough that the threads claim blocks of them */
    for (i = 0; i < 8; i++) check_matmul(rand_int(1, 60), rand_int(1, 600), rand_int(1, 200), pool);
    check_bad_args();
    printf("worst |y - y_ref| / (|b| + sum |x W|): %.3g (tolerance %g)\n", worst_seen, TOL);
    llm_threads_free(pool);
    return test_done();
}
