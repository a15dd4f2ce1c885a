/* >>attention: tiled causal attention against a naive double-precision reference that
   builds the masked T x T matrix, its properties (causality, GQA = repeated MHA, decode
   through the cache = prefill, tiles that don't divide T, sliding window), scores whose
   max grows across the tiles (the online softmax's rescaling, in every kernel and cache
   dtype), and the KV cache (sizes, stored bits against the fp16 / int8 rules, f16 / int8
   error, EFULL / ERANGE leave it untouched, truncate, reset). */
#include <float.h>
#include "llm.h"
#include "test.h"
#include "internals.h" /* llm__f32_to_f16_row, llm__f16_to_f32_row */

/* Tolerances (outputs are averages of values in [-1, 1]), about 10x the worst error
   measured over the native, scalar, avx2, avx2f16c, avx512f and NEON (qemu) builds:
   fp32 vs the double reference         2e-6 absolute (measured 1.73e-7, scalar)
   the growing-max cases (scores 0..12)  6e-6          (measured 6.46e-7, scalar)
   decode vs prefill through the cache  2e-6          (measured 2.09e-7, avx2; 0 scalar)
   GQA vs MHA with repeated K/V heads   1e-6          (measured 1.04e-7, native)
   int8 / fp16 vs the reference on the dequantized K/V: TOL_F32 (measured 1.97e-7)
   The cache formats' own error against fp32 K/V (their rounding, not the kernel's):
   fp16 cache vs fp32 K/V               1e-3  (fp16 keeps 11 significant bits; measured 3.0e-4)
   int8 cache (per-row scale) vs fp32   1e-2  (each value within max|row| / 254; measured 5.4e-3) */
#define TOL_F32 2e-6
#define TOL_GROW 6e-6
#define TOL_DEC 2e-6
#define TOL_GQA 1e-6
#define TOL_F16 1e-3
#define TOL_I8 1e-2

/* the worst errors seen, printed at the end (what the tolerances above are set from) */
static double worst_ref, worst_growing, worst_dec_pre, worst_deq, worst_gqa;

/* The textbook version: for every head, the n_q x n_kv score matrix with the causal mask
   added (0 where visible, -inf above the diagonal or outside the window), softmax of each
   row, times V. q, out: [n_q][H][hd]; k, v: [Hkv][stride][hd]. (A masked score is set to
   -inf without its dot product, and P V runs along rows of V: the same numbers, faster.) */
static void ref_attention(double *out, const float *q, const float *k, const float *v, int n_q, int n_kv,
                          int stride, int H, int Hkv, int hd, int window) {
    double *S = (double *)malloc(sizeof(double) * (size_t)n_kv), *o = (double *)malloc(sizeof(double) * (size_t)hd);
    int h, t, j, d;
    for (h = 0; h < H; h++) {
        int kh = h / (H / Hkv);
        const float *K = k + (size_t)kh * stride * hd, *V = v + (size_t)kh * stride * hd;
        for (t = 0; t < n_q; t++) {
            const float *qt = q + ((size_t)t * H + h) * hd;
            int p = n_kv - n_q + t;
            double mx = -INFINITY, sum = 0;
            for (j = 0; j < n_kv; j++) {
                double s = 0;
                if (j > p || (window > 0 && j <= p - window)) { /* the mask */
                    S[j] = -INFINITY;
                    continue;
                }
                for (d = 0; d < hd; d++) s += (double)qt[d] * K[(size_t)j * hd + d];
                S[j] = s / sqrt((double)hd);
                if (S[j] > mx) mx = S[j];
            }
            for (j = 0; j < n_kv; j++) sum += (S[j] = exp(S[j] - mx));
            for (d = 0; d < hd; d++) o[d] = 0;
            for (j = 0; j < n_kv; j++)
                if (S[j] != 0)
                    for (d = 0; d < hd; d++) o[d] += S[j] * V[(size_t)j * hd + d];
            for (d = 0; d < hd; d++) out[((size_t)t * H + h) * hd + d] = o[d] / sum;
        }
    }
    free(S), free(o);
}

static double max_diff(const float *a, const double *b, size_t n) {
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double e = fabs((double)a[i] - b[i]);
        if (!(e <= m)) m = e; /* NaN wins */
    }
    return m;
}
static double max_diff_f(const float *a, const float *b, size_t n) {
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double e = fabs((double)a[i] - b[i]);
        if (!(e <= m)) m = e;
    }
    return m;
}

/* one comparison against the reference (the worst error goes to worst_ref) */
static void check_case(int n_q, int n_kv, int H, int Hkv, int hd, int window, int tile, llm_threads *th) {
    int stride = n_kv + 3; /* the cache's capacity is usually more than what is filled */
    size_t nq = (size_t)n_q * H * hd, nkv = (size_t)Hkv * stride * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nkv * 4), *v = (float *)malloc(nkv * 4);
    float *out = (float *)malloc(nq * 4);
    double *ref = (double *)malloc(nq * 8), err;
    test_fill(q, nq, 1.0f);
    test_fill(k, nkv, 1.0f);
    test_fill(v, nkv, 1.0f);
    llm_attention_desc desc = llm_attention_desc_default();
    desc.window = window, desc.tile = tile;
    CHECK_OK(llm_attention_ex(out, q, k, v, n_q, n_kv, stride, H, Hkv, hd, &desc, th));
    ref_attention(ref, q, k, v, n_q, n_kv, stride, H, Hkv, hd, window);
    err = max_diff(out, ref, nq);
    if (!(err <= worst_ref)) worst_ref = err;
    CHECK_MSG(err <= TOL_F32, "n_q %d n_kv %d heads %d/%d hd %d window %d tile %d: max error %.3g", n_q, n_kv, H, Hkv,
              hd, window, tile, err);
    free(q), free(k), free(v), free(out), free(ref);
}

static llm_config small_config(int L, int H, int Hkv, int hd) {
    llm_config c;
    memset(&c, 0, sizeof c);
    c.name = "test";
    c.n_layers = L;
    c.n_heads = H;
    c.n_kv_heads = Hkv;
    c.d_model = H * hd;
    c.d_ff = 4 * c.d_model, c.vocab = 32, c.max_seq_len = 16; /* so llm_config_check accepts it */
    if (hd & 1) c.pos = LLM_POS_NONE;                          /* RoPE needs even head_dim */
    return c;
}

/* [n][Hkv][hd] (what llm_kv_cache_write takes) -> [Hkv][stride][hd] (what attention reads) */
static void to_head_major(float *dst, const float *src, int n, int Hkv, int hd, int stride) {
    int t, h;
    for (t = 0; t < n; t++)
        for (h = 0; h < Hkv; h++)
            memcpy(dst + ((size_t)h * stride + t) * hd, src + ((size_t)t * Hkv + h) * hd, (size_t)hd * 4);
}

static void test_reference(llm_threads *th2) {
    static const int Ts[] = {1, 5, 33, 130};
    static const int heads[][2] = {{4, 4}, {8, 2}, {4, 1}}; /* MHA, GQA, MQA */
    static const int hds[] = {16, 64, 128};
    int a, b, c;
    for (a = 0; a < 4; a++)
        for (b = 0; b < 3; b++)
            for (c = 0; c < 3; c++) check_case(Ts[a], Ts[a], heads[b][0], heads[b][1], hds[c], 0, 0, NULL);
    /* T = 1000, kept cheap: few heads */
    check_case(1000, 1000, 2, 2, 16, 0, 0, th2);
    check_case(1000, 1000, 4, 2, 64, 0, 0, th2);
    check_case(1000, 1000, 2, 1, 128, 0, 0, th2);
    /* queries that are the last n_q of more positions (a prompt continued), odd head_dim */
    check_case(7, 130, 8, 2, 64, 0, 0, NULL);
    check_case(40, 77, 4, 4, 24, 0, 0, NULL);
    check_case(19, 19, 6, 3, 12, 0, 0, NULL);
    check_case(3, 70, 32, 1, 16, 0, 0, NULL);  /* MQA: a unit full of heads */
    check_case(5, 50, 40, 1, 16, 0, 0, NULL);  /* more heads per KV head than a unit holds */
    check_case(37, 37, 40, 2, 8, 0, 0, th2);
    /* small heads (head_dim <= 16 runs keys along the vectors): decode, GQA, windows,
       odd tiles, 2..16 dims */
    check_case(1, 300, 8, 4, 8, 0, 0, th2); /* stories260K's shape */
    check_case(1, 77, 8, 4, 8, 0, 0, NULL);
    /* head_dim 8 with AVX-512 puts two keys in a vector: odd key counts, windows and
       tiles that leave one key of a pair, a single key */
    check_case(1, 1, 2, 1, 8, 0, 0, NULL);
    check_case(2, 99, 4, 2, 8, 7, 13, NULL);
    check_case(3, 45, 6, 2, 8, 0, 5, NULL);
    check_case(1, 17, 2, 2, 8, 0, 0, NULL);
    check_case(1, 130, 4, 2, 2, 0, 7, NULL);
    check_case(2, 99, 8, 8, 6, 0, 0, NULL);
    check_case(3, 200, 4, 1, 16, 33, 0, NULL);
    check_case(1, 65, 2, 1, 12, 5, 13, NULL);
    check_case(5, 150, 2, 2, 10, 0, 1, th2);
    check_case(9, 9, 2, 1, LLM_ATTN_MAX_HEAD_DIM, 0, 0, NULL);
    check_case(1, 300, 32, 1, 64, 0, 0, th2); /* MQA decode split over threads */
    check_case(1, 300, 64, 2, 64, 0, 0, th2);
    /* a GQA group's heads at one position go through the rows kernel together (lane
       groups: 4 heads share each K and V load with AVX-512 and NEON, 2 with AVX2): key
       counts that leave 1..3 keys of a block of 4, several passes over V (head_dim 192),
       groups of 6 (a group and two lanes alone), 2 and 3 positions, windows, odd tiles */
    check_case(1, 77, 8, 2, 64, 0, 0, NULL);
    check_case(1, 130, 8, 2, 128, 0, 0, NULL);
    check_case(1, 301, 16, 4, 128, 0, 0, th2);
    check_case(1, 99, 12, 2, 64, 0, 0, NULL);
    check_case(1, 150, 8, 1, 128, 0, 0, NULL);
    check_case(1, 66, 8, 2, 192, 0, 0, NULL);
    check_case(2, 90, 8, 2, 64, 0, 0, NULL);
    check_case(3, 70, 8, 2, 128, 17, 0, NULL);
    check_case(1, 200, 8, 2, 64, 50, 13, NULL);
    check_case(1, 40, 8, 2, 32, 0, 3, NULL);
    /* tile sizes that don't divide T */
    check_case(130, 130, 4, 2, 64, 0, 1, NULL);
    check_case(130, 130, 4, 2, 64, 0, 7, NULL);
    check_case(130, 130, 4, 2, 64, 0, 13, NULL);
    check_case(33, 33, 4, 4, 128, 0, 31, NULL);
    /* sliding window */
    check_case(130, 130, 4, 2, 64, 1, 0, NULL);
    check_case(130, 130, 4, 2, 64, 5, 0, NULL);
    check_case(130, 130, 8, 8, 16, 64, 13, NULL);
    check_case(20, 200, 4, 1, 32, 50, 0, th2);
    check_case(300, 300, 2, 2, 16, 100, 0, th2);
    printf("attention vs double reference: max error %.3g (tolerance %.0e)\n", worst_ref, TOL_F32);
}

/* Changing token c or later never changes the outputs of tokens before c. */
static void test_causality(void) {
    int T = 100, H = 4, Hkv = 2, hd = 32, c = 57, t;
    size_t nq = (size_t)T * H * hd, nkv = (size_t)Hkv * T * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nkv * 4), *v = (float *)malloc(nkv * 4);
    float *o1 = (float *)malloc(nq * 4), *o2 = (float *)malloc(nq * 4);
    test_fill(q, nq, 1.0f);
    test_fill(k, nkv, 1.0f);
    test_fill(v, nkv, 1.0f);
    CHECK_OK(llm_attention(o1, q, k, v, T, T, T, H, Hkv, hd, NULL));
    for (t = c; t < T; t++) {
        int h;
        for (h = 0; h < Hkv; h++) {
            k[((size_t)h * T + t) * hd] += 5.0f;
            v[((size_t)h * T + t) * hd + 1] -= 3.0f;
        }
        q[(size_t)t * H * hd] = 9.0f;
    }
    CHECK_OK(llm_attention(o2, q, k, v, T, T, T, H, Hkv, hd, NULL));
    CHECK(memcmp(o1, o2, (size_t)c * H * hd * 4) == 0);                  /* earlier: identical */
    CHECK(memcmp(o1 + (size_t)c * H * hd, o2 + (size_t)c * H * hd, 4 * (nq - (size_t)c * H * hd)) != 0);
    free(q), free(k), free(v), free(o1), free(o2);
}

/* GQA equals MHA whose K/V heads are the GQA heads repeated group times. */
static void test_gqa_is_repeated_mha(void) {
    int T = 70, H = 8, Hkv = 2, hd = 64, g = H / Hkv, h;
    size_t nq = (size_t)T * H * hd;
    double e;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc((size_t)Hkv * T * hd * 4);
    float *v = (float *)malloc((size_t)Hkv * T * hd * 4), *kr = (float *)malloc(nq * 4), *vr = (float *)malloc(nq * 4);
    float *o1 = (float *)malloc(nq * 4), *o2 = (float *)malloc(nq * 4);
    test_fill(q, nq, 1.0f);
    test_fill(k, (size_t)Hkv * T * hd, 1.0f);
    test_fill(v, (size_t)Hkv * T * hd, 1.0f);
    for (h = 0; h < H; h++) {
        memcpy(kr + (size_t)h * T * hd, k + (size_t)(h / g) * T * hd, (size_t)T * hd * 4);
        memcpy(vr + (size_t)h * T * hd, v + (size_t)(h / g) * T * hd, (size_t)T * hd * 4);
    }
    CHECK_OK(llm_attention(o1, q, k, v, T, T, T, H, Hkv, hd, NULL));
    CHECK_OK(llm_attention(o2, q, kr, vr, T, T, T, H, H, hd, NULL));
    e = max_diff_f(o1, o2, nq);
    if (e > worst_gqa) worst_gqa = e;
    CHECK_NEAR(e, 0, TOL_GQA);
    /* and decode (one query) */
    CHECK_OK(llm_attention(o1, q, k, v, 1, T, T, H, Hkv, hd, NULL));
    CHECK_OK(llm_attention(o2, q, kr, vr, 1, T, T, H, H, hd, NULL));
    e = max_diff_f(o1, o2, (size_t)H * hd);
    if (e > worst_gqa) worst_gqa = e;
    CHECK_NEAR(e, 0, TOL_GQA);
    free(q), free(k), free(v), free(kr), free(vr), free(o1), free(o2);
}

/* Decoding token by token through the cache gives what one prefill gives, in each dtype,
   with and without a window; and the cache's error against fp32 K/V is within bounds. */
static void test_decode_equals_prefill(llm_dtype dt, int window, int hd, llm_threads *th) {
    int T = 90, L = 2, H = 16, Hkv = 4, t, layer = 1; /* groups of 4: the lane-group kernel */
    llm_config c = small_config(L, H, Hkv, hd);
    llm_kv_cache kv;
    size_t nq = (size_t)T * H * hd, nk = (size_t)T * Hkv * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nk * 4), *v = (float *)malloc(nk * 4);
    float *pre = (float *)malloc(nq * 4), *dec = (float *)malloc(nq * 4);
    float *khm = (float *)malloc(nk * 4), *vhm = (float *)malloc(nk * 4);
    double *ref = (double *)malloc(nq * 8), err;
    test_fill(q, nq, 1.0f);
    test_fill(k, nk, 1.0f);
    test_fill(v, nk, 1.0f);
    CHECK_OK(llm_kv_cache_create(&kv, &c, T + 10, dt));
    /* prefill: all T tokens at once */
    CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, T)); /* layer 0 too, as a model would */
    CHECK_OK(llm_kv_cache_write(&kv, layer, 0, k, v, T));
    CHECK_OK(llm_attention_cache(pre, q, &kv, layer, T, 0, H, window, th));
    /* decode: one token at a time, after a reset */
    llm_kv_cache_reset(&kv);
    for (t = 0; t < T; t++) {
        CHECK_OK(llm_kv_cache_write(&kv, layer, t, k + (size_t)t * Hkv * hd, v + (size_t)t * Hkv * hd, 1));
        CHECK_OK(llm_attention_cache(dec + (size_t)t * H * hd, q + (size_t)t * H * hd, &kv, layer, 1, t, H, window, th));
    }
    CHECK(kv.len == T);
    err = max_diff_f(pre, dec, nq);
    if (err > worst_dec_pre) worst_dec_pre = err;
    CHECK_MSG(err <= TOL_DEC, "dtype %s window %d: decode vs prefill %.3g", llm_dtype_name(dt), window, err);
    /* against fp32 K/V: the cache format's error */
    to_head_major(khm, k, T, Hkv, hd, T);
    to_head_major(vhm, v, T, Hkv, hd, T);
    ref_attention(ref, q, khm, vhm, T, T, T, H, Hkv, hd, window);
    err = max_diff(pre, ref, nq);
    CHECK_MSG(err <= (dt == LLM_F32 ? TOL_F32 : dt == LLM_F16 ? TOL_F16 : TOL_I8), "dtype %s: error %.3g vs fp32",
              llm_dtype_name(dt), err);
    printf("KV cache %-4s hd %3d window %3d: max error vs fp32 K/V %.3g (tolerance %.0e)\n", llm_dtype_name(dt), hd,
           window, err,
           dt == LLM_F32 ? TOL_F32 : dt == LLM_F16 ? TOL_F16 : TOL_I8);
    /* against the dequantized values: the kernel itself is as exact as fp32 */
    if (dt != LLM_F32) {
        int h;
        for (h = 0; h < Hkv; h++)
            for (t = 0; t < T; t++) {
                size_t row = ((size_t)layer * Hkv + h) * kv.capacity + t, d;
                for (d = 0; d < (size_t)hd; d++) {
                    size_t i = ((size_t)h * T + t) * hd + d;
                    if (dt == LLM_F16) {
                        khm[i] = llm_f16_to_f32(((const uint16_t *)kv.k)[row * hd + d]);
                        vhm[i] = llm_f16_to_f32(((const uint16_t *)kv.v)[row * hd + d]);
                    } else {
                        khm[i] = ((const int8_t *)kv.k)[row * hd + d] * kv.k_scale[row];
                        vhm[i] = ((const int8_t *)kv.v)[row * hd + d] * kv.v_scale[row];
                    }
                }
            }
        ref_attention(ref, q, khm, vhm, T, T, T, H, Hkv, hd, window);
        err = max_diff(pre, ref, nq);
        if (err > worst_deq) worst_deq = err;
        CHECK_MSG(err <= TOL_F32, "dtype %s: error %.3g vs dequantized", llm_dtype_name(dt), err);
    }
    llm_kv_cache_free(&kv);
    CHECK(kv.k == NULL && kv.owned == NULL);
    free(q), free(k), free(v), free(pre), free(dec), free(khm), free(vhm), free(ref);
}

/* Dequantizes layer 0's K or V of a cache into [Hkv][T][hd] floats, in the test: fp16
   by llm_f16_to_f32, int8 as q * scale. */
static void cache_values(float *dst, const llm_kv_cache *kv, int k_not_v, int T) {
    int h, t, d, hd = kv->head_dim;
    for (h = 0; h < kv->n_kv_heads; h++)
        for (t = 0; t < T; t++) {
            size_t row = (size_t)h * kv->capacity + t;
            for (d = 0; d < hd; d++) {
                float *o = dst + ((size_t)h * T + t) * hd + d;
                const void *base = k_not_v ? kv->k : kv->v;
                if (kv->dtype == LLM_F32) *o = ((const float *)base)[row * hd + d];
                else if (kv->dtype == LLM_F16) *o = llm_f16_to_f32(((const uint16_t *)base)[row * hd + d]);
                else *o = (float)((double)((const int8_t *)base)[row * hd + d] * (k_not_v ? kv->k_scale : kv->v_scale)[row]);
            }
        }
}

/* How many of a stored int8 row's n values (and its scale) differ from the rule applied
   here to x: scale = max|x| / 127 and x / scale in fp32, rounded half away from zero. */
static int q8_rule_errors(const int8_t *q, float scale, const float *x, int n) {
    float amax = 0, s;
    int d, bad;
    for (d = 0; d < n; d++) amax = fabsf(x[d]) > amax ? fabsf(x[d]) : amax;
    s = amax / 127.0f;
    bad = scale != s;
    for (d = 0; d < n; d++) {
        float v = s > 0 ? x[d] / s : 0.0f;
        double r = v < 0 ? -floor(-(double)v + 0.5) : floor((double)v + 0.5);
        bad += q[d] != (int)r;
    }
    return bad;
}

/* How many stored values of layer 0 differ from the format's rule applied here to the
   fp32 input src ([T][Hkv][hd]): fp16 = llm_f32_to_f16's bits (round to nearest even);
   int8: scale = max|x| / 127 in fp32, q = x / scale rounded half away from zero. */
static int cache_store_errors(const llm_kv_cache *kv, int k_not_v, const float *src, int T) {
    int h, t, d, hd = kv->head_dim, Hkv = kv->n_kv_heads, bad = 0;
    for (h = 0; h < Hkv; h++)
        for (t = 0; t < T; t++) {
            size_t row = (size_t)h * kv->capacity + t;
            const float *x = src + ((size_t)t * Hkv + h) * hd;
            const void *base = k_not_v ? kv->k : kv->v;
            if (kv->dtype == LLM_F16)
                for (d = 0; d < hd; d++) bad += ((const uint16_t *)base)[row * hd + d] != llm_f32_to_f16(x[d]);
            else if (kv->dtype == LLM_INT8)
                bad += q8_rule_errors((const int8_t *)base + row * hd, (k_not_v ? kv->k_scale : kv->v_scale)[row], x, hd);
        }
    return bad;
}

/* Scores whose maximum grows along the sequence, so each new tile of the online softmax
   raises the running max and must rescale the running sum and output by exp(m - m'):
   the queries lie near a direction u and key j along u with a weight growing with j, so
   the score of key j is about 12 j / T (e^12 from the first key to the last), plus
   noise. T = 200 crosses three tile edges of LLM_ATTN_TILE (64). Prefill (T queries), a
   continued prompt (37 queries from T/2) and decode (one query at every position), each
   against the double reference on the K/V the cache holds; threaded prefill = the same
   bits; and the cache's stored values equal the format's rule bit for bit. */
static void test_growing_max(llm_dtype dt, int H, int Hkv, int hd, int window, llm_threads *th) {
    enum { T = 200 };
    llm_config c = small_config(1, H, Hkv, hd);
    llm_kv_cache kv;
    size_t nq = (size_t)T * H * hd, nk = (size_t)T * Hkv * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nk * 4), *v = (float *)malloc(nk * 4);
    float *pre = (float *)malloc(nq * 4), *out = (float *)malloc(nq * 4);
    float *kd = (float *)malloc(nk * 4), *vd = (float *)malloc(nk * 4), u[LLM_ATTN_MAX_HEAD_DIM];
    double *ref = (double *)malloc(nq * 8), err, e;
    int t, h, d, p0 = T / 2 + 3, n37 = 37, bad;
    for (d = 0; d < hd; d++) u[d] = (d % 3 ? 1.0f : -1.0f) / sqrtf((float)hd); /* |u| = 1 */
    for (t = 0; t < T; t++) {
        for (h = 0; h < H; h++)
            for (d = 0; d < hd; d++) q[((size_t)t * H + h) * hd + d] = 4.0f * u[d] + 0.3f * test_randf();
        for (h = 0; h < Hkv; h++)
            for (d = 0; d < hd; d++) {
                /* q.k / sqrt(hd) ~ 4 g / sqrt(hd) = 12 t / T */
                float g = 3.0f * (float)t / T * sqrtf((float)hd);
                k[((size_t)t * Hkv + h) * hd + d] = g * u[d] + 0.3f * test_randf();
                v[((size_t)t * Hkv + h) * hd + d] = test_randf();
            }
    }
    CHECK_OK(llm_kv_cache_create(&kv, &c, T + 5, dt));
    CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, T));
    bad = cache_store_errors(&kv, 1, k, T) + cache_store_errors(&kv, 0, v, T);
    CHECK_MSG(bad == 0, "%s cache: %d stored values differ from the format's rounding", llm_dtype_name(dt), bad);
    cache_values(kd, &kv, 1, T);
    cache_values(vd, &kv, 0, T);
    ref_attention(ref, q, kd, vd, T, T, T, H, Hkv, hd, window);
    /* prefill */
    CHECK_OK(llm_attention_cache(pre, q, &kv, 0, T, 0, H, window, NULL));
    err = max_diff(pre, ref, nq);
    /* a continued prompt: queries p0..p0+36 */
    CHECK_OK(llm_attention_cache(out, q + (size_t)p0 * H * hd, &kv, 0, n37, p0, H, window, NULL));
    e = max_diff(out, ref + (size_t)p0 * H * hd, (size_t)n37 * H * hd);
    err = e > err ? e : err;
    /* decode: one query at each position */
    for (t = 0; t < T; t++)
        CHECK_OK(llm_attention_cache(out + (size_t)t * H * hd, q + (size_t)t * H * hd, &kv, 0, 1, t, H, window, NULL));
    e = max_diff(out, ref, nq);
    err = e > err ? e : err;
    CHECK_MSG(err <= TOL_GROW, "growing max, %s cache, heads %d/%d hd %d window %d: max error %.3g", llm_dtype_name(dt),
              H, Hkv, hd, window, err);
    if (err > worst_growing) worst_growing = err;
    if (th) { /* two threads: the same bits */
        CHECK_OK(llm_attention_cache(out, q, &kv, 0, T, 0, H, window, th));
        CHECK_MSG(memcmp(out, pre, nq * 4) == 0, "growing max, %s cache: 2 threads differ from 1", llm_dtype_name(dt));
    }
    llm_kv_cache_free(&kv);
    free(q), free(k), free(v), free(pre), free(out), free(kd), free(vd), free(ref);
}

/* Sizes: the estimator's formula exactly; invalid configs give 0. */
static void test_cache_bytes(void) {
    llm_config c = small_config(32, 32, 32, 128); /* Llama 2 7B's attention */
    llm_config bad;
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_F16), 524288u);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 4096, 1, LLM_F16), 2147483648u); /* 2 GiB at 4k context */
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_F32), 1048576u);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_INT8), 262144u + 2u * 32 * 32 * 4);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1000, 3, LLM_F16), 524288ull * 3000);
    c.n_kv_heads = 8; /* Llama 3 8B */
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_F16), 131072u);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 8192, 1, LLM_F16), 131072ull * 8192);
    c.n_kv_heads = 0; /* llm_config_check rejects it, so the cache has no size */
    CHECK(llm_config_check(&c, NULL) != LLM_OK);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_F16), 0);
    c.n_kv_heads = 32;
    c.head_dim = 64; /* explicit head_dim wins over d_model / n_heads */
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_F16), 262144u);
    c.head_dim = 0;
    CHECK_EQ_U64(llm_kv_cache_bytes(NULL, 1, 1, LLM_F16), 0);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 0, 1, LLM_F16), 0);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 0, LLM_F16), 0);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, -5, 1, LLM_F16), 0);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, (llm_dtype)99), 0);
    CHECK_EQ_U64(llm_kv_cache_bytes(&c, INT64_MAX, INT64_MAX, LLM_F32), 0); /* overflow */
    {   /* near the top of uint64_t: exact where it fits, 0 where it doesn't */
        llm_config one = small_config(1, 1, 1, 1);
        CHECK_EQ_U64(llm_kv_cache_bytes(&one, (int64_t)1 << 58, 1, LLM_F32), (uint64_t)1 << 61);
        CHECK_EQ_U64(llm_kv_cache_bytes(&one, (int64_t)1 << 60, 1, LLM_F32), (uint64_t)1 << 63);
        CHECK_EQ_U64(llm_kv_cache_bytes(&one, (int64_t)1 << 61, 1, LLM_F32), 0);
        CHECK_EQ_U64(llm_kv_cache_bytes(&one, (int64_t)1 << 60, 1, LLM_F16), (uint64_t)1 << 62);
        CHECK_EQ_U64(llm_kv_cache_bytes(&one, (int64_t)1 << 60, 1, LLM_Q4_32), ((uint64_t)9 << 57));
    }
    bad = c;
    bad.n_kv_heads = 5; /* 32 % 5 != 0 */
    CHECK_EQ_U64(llm_kv_cache_bytes(&bad, 1, 1, LLM_F16), 0);
    bad = c;
    bad.d_model = 4001; /* 4001 % 32 != 0 and no head_dim */
    CHECK_EQ_U64(llm_kv_cache_bytes(&bad, 1, 1, LLM_F16), 0);
    bad = c;
    bad.n_layers = 0;
    CHECK_EQ_U64(llm_kv_cache_bytes(&bad, 1, 1, LLM_F16), 0);
    bad = c;
    bad.n_heads = -1;
    CHECK_EQ_U64(llm_kv_cache_bytes(&bad, 1, 1, LLM_F16), 0);
}

/* The cache's row conversions. fp16: the vector rows give exactly llm_f32_to_f16's and
   llm_f16_to_f32's bits (NaN only as NaN). int8: the weights' rule (llm_quantize_int8
   with group = head_dim) bit for bit on finite rows; a subnormal max|x| stays in
   -127..127 (x / scale can exceed 127.5 there, which used to be the risk); a non-finite
   value is stored as 0 and leaves the row's scale finite. */
static void test_cache_rows(void) {
    enum { HD = 40, N = 4096 }; /* 40: full vectors and a tail on every ISA */
    static float x[N], y[N];
    static uint16_t h[N], h2[N];
    uint64_t st = 12345;
    int i, bad = 0, r;
    for (i = 0; i < N; i++) { /* random bit patterns: every exponent, subnormals, inf, NaN */
        uint32_t u = llm_xorshift_u32(&st);
        memcpy(&x[i], &u, 4);
    }
    x[0] = 65520.0f, x[1] = 1.0f + 1.0f / 2048, x[2] = 5.9604645e-8f, x[3] = -0.0f; /* edges */
    llm__f32_to_f16_row(h, x, N);
    for (i = 0; i < N; i++) {
        uint16_t want = llm_f32_to_f16(x[i]);
        int nan = x[i] != x[i];
        if (nan ? (h[i] & 0x7c00) != 0x7c00 || !(h[i] & 0x3ff) : h[i] != want) bad++;
    }
    CHECK_MSG(bad == 0, "%d of %d fp16 stores differ from llm_f32_to_f16", bad, N);
    for (r = 0; r < 16; r++) { /* all 65536 halves */
        for (i = 0; i < N; i++) h2[i] = (uint16_t)(r * N + i);
        llm__f16_to_f32_row(y, h2, N);
        for (i = 0; i < N; i++) {
            float want = llm_f16_to_f32(h2[i]);
            if (want != want ? y[i] == y[i] : memcmp(&want, &y[i], 4) != 0) bad++;
        }
    }
    CHECK_MSG(bad == 0, "%d fp16 loads differ from llm_f16_to_f32", bad);

    {   /* int8 through the cache: one layer, one KV head, head_dim 40 */
        llm_config c = small_config(1, 1, 1, HD);
        llm_kv_cache kv;
        int8_t q[HD], *kq;
        float s, row[HD];
        int t;
        CHECK_OK(llm_kv_cache_create(&kv, &c, 64, LLM_INT8));
        kq = (int8_t *)kv.k;
        for (t = 0; t < 32; t++) { /* finite rows of varied scale: the weights' bits */
            test_fill(row, HD, (float)ldexp(1.0, t - 16));
            CHECK_OK(llm_kv_cache_write(&kv, 0, t, row, row, 1));
            CHECK(q8_rule_errors(kq + t * HD, kv.k_scale[t], row, HD) == 0); /* the format's rule, here */
            CHECK_OK(llm_quantize_int8(q, &s, row, HD, HD));
            CHECK(memcmp(q, kq + t * HD, HD) == 0 && s == kv.k_scale[t]); /* = the weights' quantizer */
        }
        /* max|x| = 178 * 2^-149 (subnormal): scale rounds to 2^-149, x / scale = 178 */
        for (i = 0; i < HD; i++) row[i] = ldexpf((float)(i % 2 ? -(i * 178 / HD) : i * 178 / HD), -149);
        row[5] = ldexpf(178.0f, -149), row[6] = -row[5];
        CHECK_OK(llm_kv_cache_write(&kv, 0, 32, row, row, 1));
        CHECK(kv.k_scale[32] > 0);
        for (i = 0, bad = 0; i < HD; i++) {
            int v = kq[32 * HD + i];
            if (v < -127 || (row[i] > 0 && v <= 0) || (row[i] < 0 && v >= 0)) bad++;
        }
        CHECK_MSG(bad == 0, "%d subnormal values out of range or sign-flipped", bad);
        CHECK(kq[32 * HD + 5] == 127 && kq[32 * HD + 6] == -127);
        /* inf and NaN: stored as 0, the other values keep their finite scale */
        test_fill(row, HD, 1.0f);
        row[3] = (float)INFINITY, row[7] = (float)NAN;
        CHECK_OK(llm_kv_cache_write(&kv, 0, 33, row, row, 1));
        CHECK(kq[33 * HD + 3] == 0 && kq[33 * HD + 7] == 0);
        CHECK(kv.k_scale[33] > 0 && kv.k_scale[33] <= 1.0f / 127 + 1e-7f);
        llm_kv_cache_free(&kv);
    }
}

/* Appending past capacity and writing past len (a hole) fail and change nothing;
   truncate and reset rewind. */
static void test_cache_errors(void) {
    llm_config c = small_config(2, 4, 2, 8);
    static const llm_dtype dts[] = {LLM_F32, LLM_F16, LLM_INT8};
    int i;
    for (i = 0; i < 3; i++) {
        llm_kv_cache kv;
        size_t bytes = (size_t)llm_kv_cache_bytes(&c, 8, 1, dts[i]);
        float *mem = (float *)malloc(bytes), *snap = (float *)malloc(bytes);
        float k[9 * 2 * 8], v[9 * 2 * 8], out[4 * 8], q[4 * 8];
        test_fill(k, 9 * 2 * 8, 1.0f);
        test_fill(v, 9 * 2 * 8, 1.0f);
        test_fill(q, 4 * 8, 1.0f);
        memset(mem, 0, bytes);
        CHECK_OK(llm_kv_cache_init(&kv, mem, bytes, &c, 8, dts[i]));
        CHECK(kv.capacity == 8 && kv.len == 0 && kv.n_kv_heads == 2 && kv.head_dim == 8 && kv.n_layers == 2);
        CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, 6));
        CHECK(kv.len == 6);
        memcpy(snap, mem, bytes);
        CHECK(llm_kv_cache_write(&kv, 0, 6, k, v, 3) == LLM_EFULL); /* 9 > 8 */
        CHECK(llm_kv_cache_write(&kv, 1, 0, k, v, 9) == LLM_EFULL);
        CHECK(llm_kv_cache_write(&kv, 0, 7, k, v, 1) == LLM_ERANGE); /* hole at 6 */
        CHECK(llm_kv_cache_write(&kv, 0, -1, k, v, 1) == LLM_ERANGE);
        CHECK(llm_kv_cache_write(&kv, 2, 0, k, v, 1) == LLM_EINVAL); /* no layer 2 */
        CHECK(llm_kv_cache_write(&kv, 0, 0, NULL, v, 1) == LLM_EINVAL);
        CHECK(llm_kv_cache_write(&kv, 0, 0, k, v, 0) == LLM_EINVAL);
        CHECK(llm_kv_cache_write(NULL, 0, 0, k, v, 1) == LLM_EINVAL);
        CHECK(memcmp(snap, mem, bytes) == 0 && kv.len == 6); /* nothing written */
        /* attention may only read written positions */
        CHECK(llm_attention_cache(out, q, &kv, 0, 1, 6, 4, 0, NULL) == LLM_ERANGE);
        CHECK(llm_attention_cache(out, q, &kv, 0, 2, 5, 4, 0, NULL) == LLM_ERANGE);
        CHECK_OK(llm_attention_cache(out, q, &kv, 0, 1, 5, 4, 0, NULL));
        CHECK(llm_attention_cache(out, q, &kv, 2, 1, 0, 4, 0, NULL) == LLM_EINVAL);
        CHECK(llm_attention_cache(out, q, &kv, 0, 1, 0, 3, 0, NULL) == LLM_EINVAL); /* 3 % 2 */
        CHECK(llm_attention_cache(out, q, &kv, 0, 1, 0, 4, -1, NULL) == LLM_EINVAL);
        CHECK(llm_attention_cache(out, q, NULL, 0, 1, 0, 4, 0, NULL) == LLM_EINVAL);
        /* filling exactly to capacity is fine; one more is full */
        CHECK_OK(llm_kv_cache_write(&kv, 0, 6, k, v, 2));
        CHECK(kv.len == 8);
        CHECK(llm_kv_cache_write(&kv, 0, 8, k, v, 1) == LLM_EFULL);
        /* rewriting an earlier position (another layer) keeps len */
        CHECK_OK(llm_kv_cache_write(&kv, 1, 0, k, v, 3));
        CHECK(kv.len == 8);
        /* truncate rewinds; beyond len is out of range */
        CHECK_OK(llm_kv_cache_truncate(&kv, 4));
        CHECK(kv.len == 4);
        CHECK(llm_kv_cache_truncate(&kv, 5) == LLM_ERANGE);
        CHECK(llm_kv_cache_truncate(&kv, -1) == LLM_ERANGE);
        CHECK(llm_kv_cache_truncate(NULL, 0) == LLM_EINVAL);
        CHECK(llm_kv_cache_write(&kv, 0, 5, k, v, 1) == LLM_ERANGE);
        CHECK_OK(llm_kv_cache_write(&kv, 0, 4, k, v, 1));
        CHECK(kv.len == 5);
        llm_kv_cache_reset(&kv);
        CHECK(kv.len == 0);
        llm_kv_cache_reset(NULL);
        CHECK(llm_kv_cache_write(&kv, 0, 1, k, v, 1) == LLM_ERANGE);
        CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, 1));
        free(mem), free(snap);
    }
    /* bad init arguments */
    {
        llm_kv_cache kv;
        float mem[64];
        llm_config bad = c;
        CHECK(llm_kv_cache_init(&kv, mem, sizeof mem, &c, 1, LLM_BF16) == LLM_EUNSUPPORTED);
        CHECK(llm_kv_cache_init(&kv, mem, sizeof mem, &c, 0, LLM_F32) == LLM_EINVAL);
        CHECK(llm_kv_cache_init(&kv, NULL, sizeof mem, &c, 1, LLM_F32) == LLM_EINVAL);
        CHECK(llm_kv_cache_init(&kv, mem, sizeof mem, NULL, 1, LLM_F32) == LLM_EINVAL);
        CHECK(llm_kv_cache_init(NULL, mem, sizeof mem, &c, 1, LLM_F32) == LLM_EINVAL);
        CHECK(llm_kv_cache_init(&kv, (char *)mem + 1, sizeof mem, &c, 1, LLM_F32) == LLM_EINVAL); /* misaligned */
        bad.n_kv_heads = 3;
        CHECK(llm_kv_cache_init(&kv, mem, sizeof mem, &bad, 1, LLM_F32) == LLM_EINVAL);
        bad = c;
        bad.vocab = 0; /* what llm_config_check rejects, the cache rejects */
        CHECK(llm_kv_cache_init(&kv, mem, sizeof mem, &bad, 1, LLM_F32) == LLM_EINVAL);
        /* a buffer one byte short (256 B needed here) is refused before anything is set */
        CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_F32), sizeof mem);
        CHECK(llm_kv_cache_init(&kv, mem, sizeof mem - 1, &c, 1, LLM_F32) == LLM_EINVAL && kv.k == NULL);
        CHECK(llm_kv_cache_init(&kv, mem, 0, &c, 1, LLM_F32) == LLM_EINVAL);
        CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1, 1, LLM_INT8), 2 * 2 * 2 * (8 + 4));
        CHECK(llm_kv_cache_init(&kv, mem, 2 * 2 * 2 * (8 + 4) - 1, &c, 1, LLM_INT8) == LLM_EINVAL);
        CHECK_OK(llm_kv_cache_init(&kv, mem, 2 * 2 * 2 * (8 + 4), &c, 1, LLM_INT8));
        CHECK_OK(llm_kv_cache_init(&kv, mem, sizeof mem, &c, 1, LLM_F32));
        CHECK(llm_kv_cache_create(&kv, &bad, 1, LLM_F32) == LLM_EINVAL && kv.owned == NULL);
        CHECK(llm_kv_cache_create(&kv, &c, -1, LLM_F32) == LLM_EINVAL);
        CHECK(llm_kv_cache_create(&kv, &c, 4, LLM_Q4_32) == LLM_EUNSUPPORTED);
        CHECK(llm_kv_cache_create(NULL, &c, 4, LLM_F32) == LLM_EINVAL);
        llm_kv_cache_free(NULL);
    }
}

static void test_bad_args(void) {
    float q[64], k[64], v[64], out[64];
    llm_attention_desc desc = llm_attention_desc_default();
    test_fill(q, 64, 1), test_fill(k, 64, 1), test_fill(v, 64, 1);
    CHECK_OK(llm_attention(out, q, k, v, 2, 4, 4, 2, 1, 8, NULL));
    CHECK(llm_attention(NULL, q, k, v, 2, 4, 4, 2, 1, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, NULL, k, v, 2, 4, 4, 2, 1, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, NULL, v, 2, 4, 4, 2, 1, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, NULL, 2, 4, 4, 2, 1, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 0, 4, 4, 2, 1, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 5, 4, 4, 2, 1, 8, NULL) == LLM_EINVAL);  /* n_q > n_kv */
    CHECK(llm_attention(out, q, k, v, 2, 4, 3, 2, 1, 8, NULL) == LLM_EINVAL);  /* stride < n_kv */
    CHECK(llm_attention(out, q, k, v, 2, 4, 4, 3, 2, 8, NULL) == LLM_EINVAL);  /* 3 % 2 */
    CHECK(llm_attention(out, q, k, v, 2, 4, 4, 2, 0, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 2, 4, 4, 0, 1, 8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 2, 4, 4, 2, 1, 0, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 2, 4, 4, 2, 1, -8, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 1, 1, 1, 1, 1, LLM_ATTN_MAX_HEAD_DIM + 1, NULL) == LLM_EUNSUPPORTED);
    desc.window = -1;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &desc, NULL) == LLM_EINVAL);
    desc = llm_attention_desc_default(), desc.tile = -1;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &desc, NULL) == LLM_EINVAL);
    desc.tile = LLM_ATTN_TILE + 1;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &desc, NULL) == LLM_EINVAL);
    desc = llm_attention_desc_default(), desc.dtype = LLM_BF16;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &desc, NULL) == LLM_EUNSUPPORTED);
    desc.dtype = LLM_INT8;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &desc, NULL) == LLM_EINVAL); /* no scales */
    /* out may equal q */
    {
        int T = 40, H = 4, hd = 16;
        float *qq = (float *)malloc((size_t)T * H * hd * 4), *kk = (float *)malloc((size_t)T * H * hd * 4);
        float *vv = (float *)malloc((size_t)T * H * hd * 4), *o = (float *)malloc((size_t)T * H * hd * 4);
        test_fill(qq, (size_t)T * H * hd, 1), test_fill(kk, (size_t)T * H * hd, 1), test_fill(vv, (size_t)T * H * hd, 1);
        CHECK_OK(llm_attention(o, qq, kk, vv, T, T, T, H, H, hd, NULL));
        CHECK_OK(llm_attention(qq, qq, kk, vv, T, T, T, H, H, hd, NULL));
        CHECK(memcmp(o, qq, (size_t)T * H * hd * 4) == 0);
        free(qq), free(kk), free(vv), free(o);
    }
    CHECK(llm_attention_stack_bytes() > 0 && llm_attention_stack_bytes() < 512 * 1024);
}

/* Two threads give the same bits as one. */
static void test_threads(llm_threads *th2) {
    int T = 200, H = 8, Hkv = 2, hd = 64;
    size_t nq = (size_t)T * H * hd, nkv = (size_t)Hkv * T * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nkv * 4), *v = (float *)malloc(nkv * 4);
    float *o1 = (float *)malloc(nq * 4), *o2 = (float *)malloc(nq * 4);
    test_fill(q, nq, 1.0f), test_fill(k, nkv, 1.0f), test_fill(v, nkv, 1.0f);
    CHECK_OK(llm_attention(o1, q, k, v, T, T, T, H, Hkv, hd, NULL));
    CHECK_OK(llm_attention(o2, q, k, v, T, T, T, H, Hkv, hd, th2));
    CHECK(memcmp(o1, o2, nq * 4) == 0);
    /* MQA decode, where two threads split one KV head's query heads */
    CHECK_OK(llm_attention(o1, q, k, v, 1, T / 2, T, H * 4, 1, hd, NULL));
    CHECK_OK(llm_attention(o2, q, k, v, 1, T / 2, T, H * 4, 1, hd, th2));
    CHECK(memcmp(o1, o2, (size_t)H * 4 * hd * 4) == 0);
    free(q), free(k), free(v), free(o1), free(o2);
}

/* heads / KV heads / head_dim of the growing-max cases: a GQA group of 4 at hd 64 (lane
   groups in decode), MHA at hd 8 (AVX-512's two-keys-per-vector kernels), hd 12 (short
   of one AVX-512 vector: the transposed small-head path), MQA with 32 heads (decode in
   the lanes kernel) */
static const int growing[][3] = {{8, 2, 64}, {2, 2, 8}, {2, 1, 12}, {32, 1, 16}};
#define N_GROWING ((int)(sizeof growing / sizeof growing[0]))

/* ---- llm_attention_desc: scale, softcap (Gemma 2), the defaults, bad values ----------
   Every kernel path meets a softcap: decode lane by lane (head_dim 64, and 40, which
   leaves dims past the vectors), lane groups (GQA decode), small heads (2, 3, 4 dims:
   below a vector with AVX-512, AVX2 or NEON), AVX-512's head_dim 8, the lanes kernel
   (prefill), windows and odd tiles; each against a double reference. */

/* The textbook form with a desc: s = scale q.k, then cap tanh(s / cap), then the mask
   and softmax. q, out: [n_q][H][hd]; k, v: [Hkv][stride][hd]. */
static void ref_attention_desc(double *out, const float *q, const float *k, const float *v, int n_q, int n_kv,
                               int stride, int H, int Hkv, int hd, int window, double scale, double cap) {
    double *S = (double *)malloc(sizeof(double) * (size_t)n_kv);
    int h, t, j, d;
    for (h = 0; h < H; h++) {
        const float *K = k + (size_t)(h / (H / Hkv)) * stride * hd, *V = v + (size_t)(h / (H / Hkv)) * stride * hd;
        for (t = 0; t < n_q; t++) {
            int p = n_kv - n_q + t;
            double mx = -INFINITY, sum = 0;
            for (j = 0; j < n_kv; j++) {
                double s = 0;
                for (d = 0; d < hd; d++) s += (double)q[((size_t)t * H + h) * hd + d] * K[(size_t)j * hd + d];
                s *= scale;
                if (cap > 0) s = cap * tanh(s / cap);
                S[j] = (j > p || (window > 0 && j <= p - window)) ? -INFINITY : s;
                if (S[j] > mx) mx = S[j];
            }
            for (j = 0; j < n_kv; j++) sum += (S[j] = exp(S[j] - mx));
            for (d = 0; d < hd; d++) {
                double o = 0;
                for (j = 0; j < n_kv; j++) o += S[j] * V[(size_t)j * hd + d];
                out[((size_t)t * H + h) * hd + d] = o / sum;
            }
        }
    }
    free(S);
}

/* Measured max errors against the double reference (x86-64 AVX-512, AVX2 and scalar
   builds, NEON under qemu), with q of amplitude 4 so that scores reach past the cap:
   softcap 2.5e-7 .. 3.8e-7, a scale alone (larger scores) 6.4e-7 .. 6.6e-7. */
#define TOL_DESC 5e-6

/* One case: the error against the reference; also checks that the softcap changed the
   result (a cap that did nothing would pass the reference check only by luck). */
static double desc_case(int n_q, int n_kv, int H, int Hkv, int hd, int window, int tile, float scale, float cap,
                        llm_threads *th) {
    int stride = n_kv + 2;
    size_t nq = (size_t)n_q * H * hd, nkv = (size_t)Hkv * stride * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nkv * 4), *v = (float *)malloc(nkv * 4);
    float *out = (float *)malloc(nq * 4), *plain = (float *)malloc(nq * 4);
    double *ref = (double *)malloc(nq * 8), err;
    llm_attention_desc desc = llm_attention_desc_default();
    test_fill(q, nq, 4.0f);
    test_fill(k, nkv, 1.0f);
    test_fill(v, nkv, 1.0f);
    desc.window = window, desc.tile = tile, desc.scale = scale, desc.softcap = cap;
    CHECK_OK(llm_attention_ex(out, q, k, v, n_q, n_kv, stride, H, Hkv, hd, &desc, th));
    ref_attention_desc(ref, q, k, v, n_q, n_kv, stride, H, Hkv, hd, window,
                       scale > 0 ? (double)scale : 1.0 / sqrt((double)hd), cap);
    err = max_diff(out, ref, nq);
    CHECK_MSG(err <= TOL_DESC, "n_q %d n_kv %d heads %d/%d hd %d window %d tile %d scale %g softcap %g: error %.3g",
              n_q, n_kv, H, Hkv, hd, window, tile, scale, cap, err);
    if (cap > 0 && cap < 1e3f) {
        desc.softcap = 0;
        CHECK_OK(llm_attention_ex(plain, q, k, v, n_q, n_kv, stride, H, Hkv, hd, &desc, th));
        CHECK_MSG(max_diff_f(out, plain, nq) > 1e-5, "softcap %g hd %d changed nothing (max diff %.3g)", cap, hd, max_diff_f(out, plain, nq));
    }
    free(q), free(k), free(v), free(out), free(plain), free(ref);
    return err;
}

static void test_desc_softcap_scale(llm_threads *th2) {
    /* n_q, n_kv, H, Hkv, hd, window, tile */
    static const int cases[][7] = {
        {1, 150, 2, 2, 64, 0, 0},   {1, 70, 3, 3, 40, 0, 0},    /* decode, lane by lane */
        {1, 130, 8, 2, 64, 0, 0},   {2, 90, 8, 2, 128, 0, 0},   /* lane groups */
        {1, 200, 8, 2, 64, 50, 13}, {3, 70, 8, 2, 128, 17, 0},
        {1, 100, 4, 2, 3, 0, 0},    {1, 77, 2, 1, 2, 0, 7},     /* small heads */
        {3, 60, 4, 4, 4, 9, 0},     {1, 99, 4, 2, 8, 0, 0},     /* and head_dim 8 */
        {2, 45, 4, 2, 8, 7, 13},    {1, 300, 8, 4, 8, 0, 0},
        {37, 37, 4, 2, 16, 0, 0},   {64, 64, 2, 2, 64, 0, 0},   /* prefill: lanes */
        {40, 77, 4, 4, 24, 0, 0},   {130, 130, 4, 2, 64, 5, 13},
        {19, 19, 6, 3, 12, 0, 1},   {33, 33, 4, 1, 128, 0, 31},
        {1, 300, 32, 1, 64, 0, 0},  {9, 9, 2, 1, LLM_ATTN_MAX_HEAD_DIM, 0, 0}};
    int i;
    double worst_cap = 0, worst_scale = 0, e;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        const int *c = cases[i];
        llm_threads *th = i % 3 == 0 ? th2 : NULL;
        e = desc_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], 0, 1.0f, th); /* softcap 1: most scores saturate */
        if (e > worst_cap) worst_cap = e;
        e = desc_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], 0.05f, 0.15f, th); /* a scale and a softcap */
        if (e > worst_cap) worst_cap = e;
        e = desc_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], 0.1f, 0, th); /* a scale alone */
        if (e > worst_scale) worst_scale = e;
    }
    /* a cap far above every score is no cap; a tiny one leaves +-cap, nearly uniform */
    e = desc_case(1, 150, 8, 2, 64, 0, 0, 0, 1e30f, NULL);
    if (e > worst_cap) worst_cap = e;
    e = desc_case(50, 50, 4, 2, 8, 0, 0, 0, 1e30f, NULL);
    if (e > worst_cap) worst_cap = e;
    e = desc_case(50, 50, 4, 2, 64, 0, 0, 0, 1e-3f, NULL);
    if (e > worst_cap) worst_cap = e;
    printf("attention desc vs double reference: softcap max error %.3g, scale %.3g (tolerance %.0e)\n", worst_cap,
           worst_scale, TOL_DESC);
}

/* Zero, NULL and llm_attention_desc_default() are plain attention, bit for bit; an explicit
   1/sqrt(head_dim) is the default; scale 2c on q is scale c on 2q (exact: powers of two). */
static void test_desc_defaults(llm_threads *th2) {
    static const int shapes[][5] = {{1, 90, 8, 2, 64}, {1, 60, 4, 4, 8}, {40, 40, 4, 2, 16}, {3, 50, 2, 1, 3}};
    llm_attention_desc z, d = llm_attention_desc_default();
    int i;
    memset(&z, 0, sizeof z);
    CHECK(d.dtype == LLM_F32 && !d.k_scale && !d.v_scale && d.window == 0 && d.tile == 0 && d.scale == 0 &&
          d.softcap == 0);
    for (i = 0; i < 4; i++) {
        int n_q = shapes[i][0], T = shapes[i][1], H = shapes[i][2], Hkv = shapes[i][3], hd = shapes[i][4];
        size_t nq = (size_t)n_q * H * hd, nkv = (size_t)Hkv * T * hd, j;
        float *q = (float *)malloc(nq * 4), *q2 = (float *)malloc(nq * 4), *k = (float *)malloc(nkv * 4);
        float *v = (float *)malloc(nkv * 4), *o1 = (float *)malloc(nq * 4), *o2 = (float *)malloc(nq * 4);
        test_fill(q, nq, 1.0f), test_fill(k, nkv, 1.0f), test_fill(v, nkv, 1.0f);
        for (j = 0; j < nq; j++) q2[j] = 2 * q[j];
        CHECK_OK(llm_attention(o1, q, k, v, n_q, T, T, H, Hkv, hd, th2));
        CHECK_OK(llm_attention_ex(o2, q, k, v, n_q, T, T, H, Hkv, hd, NULL, th2));
        CHECK(memcmp(o1, o2, nq * 4) == 0);
        memset(o2, 0, nq * 4);
        CHECK_OK(llm_attention_ex(o2, q, k, v, n_q, T, T, H, Hkv, hd, &z, NULL));
        CHECK(memcmp(o1, o2, nq * 4) == 0);
        memset(o2, 0, nq * 4);
        CHECK_OK(llm_attention_ex(o2, q, k, v, n_q, T, T, H, Hkv, hd, &d, th2));
        CHECK(memcmp(o1, o2, nq * 4) == 0);
        z.scale = 1.0f / sqrtf((float)hd);
        CHECK_OK(llm_attention_ex(o2, q, k, v, n_q, T, T, H, Hkv, hd, &z, NULL));
        CHECK_MSG(memcmp(o1, o2, nq * 4) == 0, "explicit 1/sqrt(%d) differs from the default", hd);
        z.scale = 2.0f / sqrtf((float)hd);
        CHECK_OK(llm_attention_ex(o2, q, k, v, n_q, T, T, H, Hkv, hd, &z, NULL));
        z.scale = 1.0f / sqrtf((float)hd);
        CHECK_OK(llm_attention_ex(o1, q2, k, v, n_q, T, T, H, Hkv, hd, &z, NULL));
        CHECK_MSG(memcmp(o1, o2, nq * 4) == 0, "scale 2c on q differs from scale c on 2q (hd %d)", hd);
        /* with a softcap, the result doesn't depend on the threads either */
        z.softcap = 0.7f;
        CHECK_OK(llm_attention_ex(o1, q, k, v, n_q, T, T, H, Hkv, hd, &z, NULL));
        CHECK_OK(llm_attention_ex(o2, q, k, v, n_q, T, T, H, Hkv, hd, &z, th2));
        CHECK(memcmp(o1, o2, nq * 4) == 0);
        z.scale = 0, z.softcap = 0;
        free(q), free(q2), free(k), free(v), free(o1), free(o2);
    }
}

/* Through the cache: llm_attention_cache_ex with NULL is llm_attention_cache, its window
   is the desc's, and decoding with a softcap equals one prefill, in each dtype. */
static void test_desc_cache(llm_dtype dt, llm_threads *th) {
    int T = 70, H = 8, Hkv = 2, hd = 64, t;
    llm_config c = small_config(1, H, Hkv, hd);
    llm_kv_cache kv;
    llm_attention_desc d = llm_attention_desc_default();
    size_t nq = (size_t)T * H * hd, nk = (size_t)T * Hkv * hd;
    float *q = (float *)malloc(nq * 4), *k = (float *)malloc(nk * 4), *v = (float *)malloc(nk * 4);
    float *pre = (float *)malloc(nq * 4), *dec = (float *)malloc(nq * 4), *khm = (float *)malloc(nk * 4);
    float *vhm = (float *)malloc(nk * 4);
    double *ref = (double *)malloc(nq * 8), err;
    test_fill(q, nq, 4.0f), test_fill(k, nk, 1.0f), test_fill(v, nk, 1.0f);
    CHECK_OK(llm_kv_cache_create(&kv, &c, T, dt));
    CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, T));
    CHECK_OK(llm_attention_cache(pre, q, &kv, 0, T, 0, H, 13, th));
    d.window = 13;
    CHECK_OK(llm_attention_cache_ex(dec, q, &kv, 0, T, 0, H, &d, th));
    CHECK(memcmp(pre, dec, nq * 4) == 0);
    CHECK_OK(llm_attention_cache(pre, q, &kv, 0, T, 0, H, 0, th));
    CHECK_OK(llm_attention_cache_ex(dec, q, &kv, 0, T, 0, H, NULL, th));
    CHECK(memcmp(pre, dec, nq * 4) == 0);
    d.window = 0, d.softcap = 1.5f;
    CHECK_OK(llm_attention_cache_ex(pre, q, &kv, 0, T, 0, H, &d, th));
    for (t = 0; t < T; t++)
        CHECK_OK(llm_attention_cache_ex(dec + (size_t)t * H * hd, q + (size_t)t * H * hd, &kv, 0, 1, t, H, &d, th));
    err = max_diff_f(pre, dec, nq);
    CHECK_MSG(err <= 1e-5, "softcap, %s cache: decode vs prefill %.3g", llm_dtype_name(dt), err);
    if (dt == LLM_F32) {
        to_head_major(khm, k, T, Hkv, hd, T);
        to_head_major(vhm, v, T, Hkv, hd, T);
        ref_attention_desc(ref, q, khm, vhm, T, T, T, H, Hkv, hd, 0, 1.0 / sqrt((double)hd), 1.5);
        CHECK_MSG(max_diff(pre, ref, nq) <= TOL_DESC, "softcap through the cache: %.3g", max_diff(pre, ref, nq));
    }
    llm_kv_cache_free(&kv);
    free(q), free(k), free(v), free(pre), free(dec), free(khm), free(vhm), free(ref);
}

/* Bad desc values are LLM_EINVAL (another dtype: LLM_EUNSUPPORTED), and out is untouched. */
static void test_desc_errors(void) {
    float q[64], k[64], v[64], out[64], keep[64], scl[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const float nan = (float)NAN, inf = (float)INFINITY;
    llm_attention_desc d;
    llm_config c = small_config(1, 2, 1, 8);
    llm_kv_cache kv;
    int i;
    struct {
        float scale, softcap;
        int window, tile;
        llm_status want;
    } bad[] = {{nan, 0, 0, 0, LLM_EINVAL},    {inf, 0, 0, 0, LLM_EINVAL},  {-0.5f, 0, 0, 0, LLM_EINVAL},
               {0, nan, 0, 0, LLM_EINVAL},    {0, inf, 0, 0, LLM_EINVAL},  {0, -1, 0, 0, LLM_EINVAL},
               {0, 1e-40f, 0, 0, LLM_EINVAL}, {0, 0, -1, 0, LLM_EINVAL},   {0, 0, 0, -1, LLM_EINVAL},
               {0, 0, 0, LLM_ATTN_TILE + 1, LLM_EINVAL}};
    test_fill(q, 64, 1), test_fill(k, 64, 1), test_fill(v, 64, 1), test_fill(keep, 64, 1);
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        d = llm_attention_desc_default();
        d.scale = bad[i].scale, d.softcap = bad[i].softcap, d.window = bad[i].window, d.tile = bad[i].tile;
        memcpy(out, keep, sizeof out);
        CHECK_MSG(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &d, NULL) == bad[i].want,
                  "desc %d: scale %g softcap %g window %d tile %d accepted", i, d.scale, d.softcap, d.window, d.tile);
        CHECK(memcmp(out, keep, sizeof out) == 0);
    }
    d = llm_attention_desc_default(), d.softcap = FLT_MIN, d.scale = FLT_MAX; /* extreme but valid */
    CHECK_OK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &d, NULL));
    d = llm_attention_desc_default(), d.dtype = LLM_BF16;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &d, NULL) == LLM_EUNSUPPORTED);
    d.dtype = LLM_INT8, d.k_scale = scl;
    CHECK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &d, NULL) == LLM_EINVAL); /* no v_scale */
    d.v_scale = scl;
    CHECK_OK(llm_attention_ex(out, q, k, v, 2, 4, 4, 2, 1, 8, &d, NULL));
    /* the cache's desc form: the cache gives dtype and scales */
    CHECK_OK(llm_kv_cache_create(&kv, &c, 4, LLM_F16));
    CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, 4));
    CHECK_OK(llm_attention_cache_ex(out, q, &kv, 0, 1, 3, 2, NULL, NULL));
    d = llm_attention_desc_default(), d.dtype = LLM_F16;
    CHECK(llm_attention_cache_ex(out, q, &kv, 0, 1, 3, 2, &d, NULL) == LLM_EINVAL);
    d = llm_attention_desc_default(), d.k_scale = scl;
    CHECK(llm_attention_cache_ex(out, q, &kv, 0, 1, 3, 2, &d, NULL) == LLM_EINVAL);
    d = llm_attention_desc_default(), d.softcap = nan;
    CHECK(llm_attention_cache_ex(out, q, &kv, 0, 1, 3, 2, &d, NULL) == LLM_EINVAL);
    d = llm_attention_desc_default(), d.window = -2;
    CHECK(llm_attention_cache_ex(out, q, &kv, 0, 1, 3, 2, &d, NULL) == LLM_EINVAL);
    CHECK(llm_attention_cache_ex(out, q, &kv, 0, 2, 3, 2, NULL, NULL) == LLM_ERANGE);
    CHECK(llm_attention_cache_ex(out, q, NULL, 0, 1, 3, 2, NULL, NULL) == LLM_EINVAL);
    llm_kv_cache_free(&kv);
}

static void test_desc(llm_threads *th2) {
    test_desc_softcap_scale(th2);
    test_desc_defaults(th2);
    test_desc_cache(LLM_F32, th2);
    test_desc_cache(LLM_F16, NULL);
    test_desc_cache(LLM_INT8, th2);
    test_desc_errors();
}

int main(void) {
    static const llm_dtype dts[] = {LLM_F32, LLM_F16, LLM_INT8};
    /* the 1-vs-2-thread comparisons: 2 per growing-max case, 6 in test_threads */
    llm_threads *th2 = test_pool(2, 2 * (3 * N_GROWING + 1) + 6, "attention: 2 threads against 1");
    int i, j;
    test_reference(th2);
    test_causality();
    test_gqa_is_repeated_mha();
    for (i = 0; i < N_GROWING; i++)
        for (j = 0; j < 3; j++) test_growing_max(dts[j], growing[i][0], growing[i][1], growing[i][2], 0, th2);
    test_growing_max(LLM_F32, 8, 2, 64, 70, th2); /* the window's edge moves through the tiles */
    test_decode_equals_prefill(LLM_F32, 0, 64, NULL);
    test_decode_equals_prefill(LLM_F32, 17, 64, th2);
    test_decode_equals_prefill(LLM_F16, 0, 64, th2);
    test_decode_equals_prefill(LLM_F16, 0, 256, NULL); /* f16/int8 tiles shrink for big heads */
    test_decode_equals_prefill(LLM_INT8, 0, 64, NULL);
    test_decode_equals_prefill(LLM_INT8, 30, 64, th2);
    test_decode_equals_prefill(LLM_INT8, 0, 200, th2);
    test_decode_equals_prefill(LLM_F16, 0, 8, NULL);
    test_decode_equals_prefill(LLM_INT8, 9, 8, th2);
    test_cache_bytes();
    test_cache_errors();
    test_cache_rows();
    test_bad_args();
    if (th2) test_threads(th2);
    printf("worst errors: growing max %.3g, decode vs prefill %.3g, vs dequantized K/V %.3g, GQA vs MHA %.3g\n",
           worst_growing, worst_dec_pre, worst_deq, worst_gqa);
    test_desc(th2);
    llm_threads_free(th2);
    return test_done();
}
