/* >>rope: scores depend only on m - n, the tables against double-precision formulas in
   both layouts and both bases, accuracy at position 100,000, partial rotary dimension,
   Llama 3.1 frequency scaling, out-of-range positions and bad arguments. */
#include "llm.h"
#include "test.h"

static double dot8(const float *a, const float *b) {
    double s = 0;
    int i;
    for (i = 0; i < 8; i++) s += (double)a[i] * b[i];
    return s;
}

/* q rotated to position m, k to position n, their dot product */
static double score(const llm_rope *r, const float *q, const float *k, int m, int n) {
    float qm[8], kn[8];
    memcpy(qm, q, sizeof qm);
    memcpy(kn, k, sizeof kn);
    CHECK_OK(llm_rope_apply(r, qm, 1, m));
    CHECK_OK(llm_rope_apply(r, kn, 1, n));
    return dot8(qm, kn);
}

static void test_relative(llm_rope_layout layout) {
    static float mem[2000 * 8];
    llm_rope r;
    float q[8], k[8], x[8];
    double s52, s;
    int p;
    test_fill(q, 8, 1.0f);
    test_fill(k, 8, 1.0f);
    CHECK_OK(llm_rope_init(&r, mem, 8, 2000, 10000.0f, layout));
    s52 = score(&r, q, k, 5, 2);
    s = score(&r, q, k, 105, 102);
    CHECK_NEAR(s, s52, 1e-5);
    s = score(&r, q, k, 1005, 1002);
    CHECK_NEAR(s, s52, 1e-5);
    /* a different distance, or the same distance the other way, is a different score */
    CHECK(fabs(score(&r, q, k, 5, 3) - s52) > 1e-3);
    CHECK(fabs(score(&r, q, k, 2, 5) - s52) > 1e-3);
    printf("rope %s d=8: score(5,2) %.6f  (105,102) %.6f  (1005,1002) %.6f  (5,3) %.6f  (2,5) %.6f\n",
           layout == LLM_ROPE_INTERLEAVED ? "interleaved" : "halves     ", s52, score(&r, q, k, 105, 102),
           score(&r, q, k, 1005, 1002), score(&r, q, k, 5, 3), score(&r, q, k, 2, 5));
    /* rotations preserve norms; position 0 is the identity */
    for (p = 0; p < 2000; p += 111) {
        memcpy(x, q, sizeof x);
        CHECK_OK(llm_rope_apply(&r, x, 1, p));
        CHECK_NEAR(sqrt(dot8(x, x)), sqrt(dot8(q, q)), 1e-6);
    }
    memcpy(x, q, sizeof x);
    CHECK_OK(llm_rope_apply(&r, x, 1, 0));
    CHECK(memcmp(x, q, sizeof x) == 0);
}

/* Tables and the rotation against the formulas, computed here in double. */
static void test_tables(llm_rope_layout layout, double base, int head_dim, int rotary_dim) {
    enum { P = 300 };
    static float mem[P * 256];
    llm_rope r;
    llm_config c;
    float x[3 * 256], x0[3 * 256];
    int half = rotary_dim / 2, i, p, h;
    double worst = 0;
    memset(&c, 0, sizeof c);
    c.n_heads = 3;
    c.d_model = 3 * head_dim;
    c.rope_theta = (float)base;
    c.rope_layout = layout;
    c.rotary_dim = rotary_dim == head_dim ? 0 : rotary_dim;
    CHECK_OK(llm_rope_init_config(&r, mem, sizeof mem, &c, P));
    CHECK(r.head_dim == head_dim && r.rotary_dim == rotary_dim && r.max_pos == P && r.layout == layout);
    for (p = 0; p < P; p += 7)
        for (i = 0; i < half; i++) {
            double a = p * pow(base, -2.0 * i / rotary_dim);
            double e = fabs(r.cos[p * half + i] - cos(a)) + fabs(r.sin[p * half + i] - sin(a));
            if (e > worst) worst = e;
        }
    CHECK_MSG(worst < 2e-7, "table error %.3g", worst);
    /* the rotation acts on the documented pairs and nowhere else */
    test_fill(x0, (size_t)3 * head_dim, 1.0f);
    memcpy(x, x0, sizeof x);
    CHECK_OK(llm_rope_apply(&r, x, 3, 123));
    worst = 0;
    for (h = 0; h < 3; h++) {
        const float *a0 = x0 + h * head_dim;
        const float *a1 = x + h * head_dim;
        for (i = 0; i < half; i++) {
            int ia = layout == LLM_ROPE_INTERLEAVED ? 2 * i : i;
            int ib = layout == LLM_ROPE_INTERLEAVED ? 2 * i + 1 : i + half;
            double ang = 123 * pow(base, -2.0 * i / rotary_dim);
            double ea = a0[ia] * cos(ang) - a0[ib] * sin(ang), eb = a0[ia] * sin(ang) + a0[ib] * cos(ang);
            if (fabs(a1[ia] - ea) > worst) worst = fabs(a1[ia] - ea);
            if (fabs(a1[ib] - eb) > worst) worst = fabs(a1[ib] - eb);
        }
        for (i = rotary_dim; i < head_dim; i++) CHECK(a1[i] == a0[i]); /* not rotated */
    }
    CHECK_MSG(worst < 1e-6, "rotation error %.3g", worst); /* measured 1.05e-7 (native and scalar) */
}

/* Angles in double: position 100,000 is as accurate as position 1. */
static void test_far(void) {
    static const double bases[] = {10000.0, 500000.0};
    int b, i;
    for (b = 0; b < 2; b++) {
        llm_rope r;
        llm_config c;
        double worst = 0;
        memset(&c, 0, sizeof c);
        c.n_heads = 1;
        c.d_model = 8;
        c.rope_theta = (float)bases[b];
        CHECK_OK(llm_rope_create(&r, &c, 100001));
        CHECK(r.owned != NULL);
        for (i = 0; i < 4; i++) {
            double a = 100000.0 * pow(bases[b], -2.0 * i / 8);
            double e = fabs(r.cos[100000 * 4 + i] - cos(a)) + fabs(r.sin[100000 * 4 + i] - sin(a));
            if (e > worst) worst = e;
        }
        CHECK_MSG(worst < 2e-7, "position 100000, base %g: error %.3g", bases[b], worst);
        llm_rope_free(&r);
        CHECK(r.cos == NULL && r.owned == NULL);
    }
}

/* Llama 3.1: wavelengths below orig/high kept, above orig/low divided by the factor,
   smooth in between (Meta's apply_scaling). */
static void test_llama31(void) {
    llm_rope r;
    llm_config c;
    int i, kept = 0, divided = 0, smooth = 0;
    double worst = 0;
    memset(&c, 0, sizeof c);
    c.n_heads = 32;
    c.d_model = 4096;
    c.rope_theta = 500000.0f;
    c.rope_scale = 8;
    c.rope_low_freq_factor = 1;
    c.rope_high_freq_factor = 4;
    c.rope_orig_ctx = 8192;
    CHECK_OK(llm_rope_create(&r, &c, 2));
    for (i = 0; i < 64; i++) {
        double f = pow(500000.0, -2.0 * i / 128), wl = 2 * 3.14159265358979323846 / f, g;
        if (wl < 8192.0 / 4) {
            g = f, kept++;
        } else if (wl > 8192.0 / 1) {
            g = f / 8, divided++;
        } else {
            double s = (8192.0 / wl - 1) / (4 - 1);
            g = (1 - s) * f / 8 + s * f, smooth++;
        }
        /* position 1's angle is the frequency itself */
        if (fabs(atan2(r.sin[64 + i], r.cos[64 + i]) - g) > worst) worst = fabs(atan2(r.sin[64 + i], r.cos[64 + i]) - g);
    }
    CHECK(kept > 0 && divided > 0 && smooth > 0);
    CHECK_MSG(worst < 1e-7, "llama 3.1 frequency error %.3g", worst); /* measured 2.97e-8 */
    llm_rope_free(&r);
    /* the defaults (0 = 1, 4, 8192) give the same */
    {
        llm_rope r2;
        c.rope_low_freq_factor = 0, c.rope_high_freq_factor = 0, c.rope_orig_ctx = 0;
        CHECK_OK(llm_rope_create(&r, &c, 2));
        c.rope_scale = 0;
        CHECK_OK(llm_rope_create(&r2, &c, 2));
        CHECK(r.sin[64 + 63] != r2.sin[64 + 63]); /* unscaled differs at low frequency */
        CHECK(r.sin[64 + 0] == r2.sin[64 + 0]);   /* and agrees at high frequency */
        llm_rope_free(&r);
        llm_rope_free(&r2);
    }
}

static void test_errors(void) {
    static float mem[16 * 8];
    llm_rope r;
    llm_config c;
    float x[2 * 8 * 3], y[2 * 8 * 3];
    int t;
    CHECK(llm_rope_bytes(8, 16) == 16 * 8 * sizeof(float));
    CHECK(llm_rope_bytes(7, 16) == 0);
    CHECK(llm_rope_bytes(0, 16) == 0);
    CHECK(llm_rope_bytes(8, 0) == 0);
    CHECK(llm_rope_bytes(-8, 16) == 0);
    CHECK(llm_rope_init(NULL, mem, 8, 16, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, NULL, 8, 16, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, mem, 7, 16, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, mem, 8, 0, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, mem, 8, 16, 10000, (llm_rope_layout)7) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, (char *)mem + 2, 8, 16, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    /* the checked forms refuse a buffer one byte short, before writing anything */
    memset(mem, 0, sizeof mem);
    CHECK(llm_rope_init_ex(&r, mem, sizeof mem - 1, 8, 16, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    CHECK(llm_rope_init_ex(&r, mem, 0, 8, 16, 10000, LLM_ROPE_HALVES) == LLM_EINVAL);
    CHECK(mem[16 * 8 - 1] == 0.0f && mem[4] == 0.0f);
    CHECK_OK(llm_rope_init_ex(&r, mem, sizeof mem, 8, 16, 10000, LLM_ROPE_HALVES));
    CHECK(mem[0] == 1.0f && r.cos == mem); /* cos(0) at position 0 */
    memset(&c, 0, sizeof c);
    c.n_heads = 2;
    c.d_model = 16;
    CHECK(llm_rope_init_config(&r, mem, sizeof mem - 4, &c, 16) == LLM_EINVAL);
    CHECK_OK(llm_rope_init_config(&r, mem, sizeof mem, &c, 16));
    memset(&c, 0, sizeof c);
    c.n_heads = 2;
    c.d_model = 16;
    c.rotary_dim = 10; /* > head_dim 8 */
    CHECK(llm_rope_init_config(&r, mem, sizeof mem, &c, 16) == LLM_EINVAL);
    c.rotary_dim = 3; /* odd */
    CHECK(llm_rope_init_config(&r, mem, sizeof mem, &c, 16) == LLM_EINVAL);
    c.rotary_dim = 0;
    c.d_model = 15; /* heads don't divide */
    CHECK(llm_rope_init_config(&r, mem, sizeof mem, &c, 16) == LLM_EINVAL);
    CHECK(llm_rope_init_config(&r, mem, sizeof mem, NULL, 16) == LLM_EINVAL);
    CHECK(llm_rope_create(&r, NULL, 16) == LLM_EINVAL && r.owned == NULL);
    c.d_model = 16;
    c.rope_scale = 8;
    c.rope_low_freq_factor = 4;
    c.rope_high_freq_factor = 1; /* high must exceed low */
    CHECK(llm_rope_init_config(&r, mem, sizeof mem, &c, 16) == LLM_EINVAL);
    llm_rope_free(NULL);

    /* positions past the table are refused and change nothing; theta 0 = 10000 */
    CHECK_OK(llm_rope_init(&r, mem, 8, 16, 0, LLM_ROPE_INTERLEAVED));
    test_fill(x, 2 * 8 * 3, 1.0f);
    memcpy(y, x, sizeof x);
    CHECK(llm_rope_apply(&r, x, 2, 16) == LLM_ERANGE);
    CHECK(llm_rope_apply(&r, x, 2, -1) == LLM_ERANGE);
    CHECK(llm_rope_apply_tokens(&r, x, 3, 2, 14) == LLM_ERANGE); /* 14, 15, 16 */
    CHECK(memcmp(x, y, sizeof x) == 0);
    CHECK(llm_rope_apply(&r, NULL, 2, 0) == LLM_EINVAL);
    CHECK(llm_rope_apply(NULL, x, 2, 0) == LLM_EINVAL);
    CHECK(llm_rope_apply(&r, x, 0, 0) == LLM_EINVAL);
    CHECK(llm_rope_apply_tokens(&r, x, 0, 2, 0) == LLM_EINVAL);
    CHECK_NEAR(r.cos[1 * 4 + 1], cos(pow(10000.0, -2.0 / 8)), 1e-7);
    /* apply_tokens at pos = apply per token at pos + t */
    CHECK_OK(llm_rope_apply_tokens(&r, x, 3, 2, 13));
    for (t = 0; t < 3; t++) CHECK_OK(llm_rope_apply(&r, y + t * 16, 2, 13 + t));
    CHECK(memcmp(x, y, sizeof x) == 0);
}

/* The Llama chapter's worked table (its q and k: NumPy's default_rng(0).normal(size=8),
   twice): the rotated scores it prints, to their 6 decimals, under pairs (2i, 2i+1) and
   base 10,000 (the halves layout gives -3.72 for the first: not the text's convention). */
static void test_chapter_table(void) {
    static const float q[8] = {0.1257302210933933f, -0.1321048632913019f, 0.6404226504432821f, 0.10490011715303971f,
                               -0.535669373161111f, 0.36159505490948474f, 1.3040000451301372f, 0.9470809631292422f};
    static const float k[8] = {-0.7037352358069926f, -1.2654214710460525f, -0.6232744625373522f, 0.0413259793472436f,
                               -2.3250307746388343f, -0.21879166393254573f, -1.2459109472530652f, -0.7322673547034516f};
    static const int mn[5][2] = {{5, 2}, {105, 102}, {1005, 1002}, {5, 3}, {2, 5}};
    static const double text[5] = {-1.586475, -1.586475, -1.586475, -1.763129, -1.628434};
    static float mem[1006 * 8];
    llm_rope r;
    double worst = 0;
    int i;
    CHECK_OK(llm_rope_init_ex(&r, mem, sizeof mem, 8, 1006, 10000.0f, LLM_ROPE_INTERLEAVED));
    CHECK_NEAR(dot8(q, k), -1.467987, 1e-6);
    for (i = 0; i < 5; i++) {
        double s = score(&r, q, k, mn[i][0], mn[i][1]);
        CHECK_NEAR(s, text[i], 1e-6); /* the text rounds to 1e-6: measured |diff| <= 3.9e-7, mostly its rounding */
        if (fabs(s - text[i]) > worst) worst = fabs(s - text[i]);
    }
    printf("test_rope: the Llama chapter's rotated scores, worst |llm.h - text| %.2g (text printed to 1e-6)\n", worst);
}

int main(void) {
    test_relative(LLM_ROPE_INTERLEAVED);
    test_relative(LLM_ROPE_HALVES);
    test_tables(LLM_ROPE_INTERLEAVED, 10000.0, 64, 64);
    test_tables(LLM_ROPE_HALVES, 10000.0, 64, 64);
    test_tables(LLM_ROPE_INTERLEAVED, 500000.0, 128, 128);
    test_tables(LLM_ROPE_HALVES, 500000.0, 128, 128);
    test_tables(LLM_ROPE_INTERLEAVED, 10000.0, 64, 32); /* partial rotary */
    test_tables(LLM_ROPE_HALVES, 10000.0, 80, 20);
    test_far();
    test_llama31();
    test_errors();
    test_chapter_table();
    return test_done();
}
