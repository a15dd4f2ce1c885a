/* Hardening (issue 6): hostile inputs and bad arguments must come back as a status, never
   a crash, a hang or a leak. Three parts:
   1. a failing allocator: every *_create is run with allocation k failing, for every k,
      and must return LLM_ENOMEM with nothing left allocated;
   2. bad arguments (NULL, zero/negative, overflowing sizes) to every public function;
   3. hostile files: checkpoints truncated at every section boundary, negative and gigantic
      header fields, tokenizers that lie about their lengths. */
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>

/* The allocator hook: counts live blocks and fails the allocation numbered fail_at.
   Requests over 1 TiB fail as a real malloc would (ASan would abort on them instead). */
static long test_alloc_live, test_alloc_count, test_alloc_fail_at = -1;
static void *test_failing_malloc(size_t n) {
    if ((double)n > 1099511627776.0) return NULL; /* (a double: no always-false warning on 32-bit) */
    if (test_alloc_fail_at >= 0 && test_alloc_count++ == test_alloc_fail_at) return NULL;
    if (test_alloc_fail_at < 0) test_alloc_count++;
    {
        void *p = malloc(n ? n : 1);
        if (p) test_alloc_live++;
        return p;
    }
}
static void test_free(void *p) {
    if (p) {
        test_alloc_live--;
        free(p);
    }
}
#define LLM_MALLOC(n) test_failing_malloc(n)
#define LLM_FREE(p) test_free(p)
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "test.h"
#include <limits.h>
#include "ckpt_writer.h"

/* Runs `create` with allocation k failing for k = 0, 1, ... until it succeeds; every
   failure must be LLM_ENOMEM with no block left live, and `destroy` after the success
   must leave none either. Returns how many allocations the success needed. */
typedef llm_status (*create_fn)(void *ctx, void **obj);
typedef void (*destroy_fn)(void *obj);
static int check_alloc_failures(const char *what, create_fn create, destroy_fn destroy, void *ctx) {
    long k;
    for (k = 0; k < 1000; k++) {
        void *obj = NULL;
        llm_status s;
        test_alloc_live = 0;
        test_alloc_count = 0;
        test_alloc_fail_at = k;
        s = create(ctx, &obj);
        if (s == LLM_OK) {
            destroy(obj);
            test_alloc_fail_at = -1;
            CHECK_MSG(test_alloc_live == 0, "%s: %ld blocks leaked after free", what, test_alloc_live);
            return (int)k;
        }
        CHECK_MSG(s == LLM_ENOMEM, "%s: allocation %ld failing gave %s, not LLM_ENOMEM", what, k, llm_status_str(s));
        CHECK_MSG(test_alloc_live == 0, "%s: allocation %ld failing leaked %ld blocks", what, k, test_alloc_live);
    }
    test_alloc_fail_at = -1;
    CHECK_MSG(0, "%s: still failing after 1000 allocations", what);
    return -1;
}

/* ---- 1. failing allocator ------------------------------------------------------------ */
static llm_status create_threads(void *ctx, void **obj) {
    llm_threads *th = NULL;
    llm_status s = llm_threads_create(&th, *(int *)ctx);
    *obj = th;
    return s;
}
static void destroy_threads(void *obj) { llm_threads_free((llm_threads *)obj); }

static llm_config small_config(void) {
    llm_config c = llm_config_default();
    c.d_model = 16, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 32, c.vocab = 16, c.max_seq_len = 8;
    return c;
}
static llm_status create_rope(void *ctx, void **obj) {
    llm_config c = small_config();
    llm_rope *r = (llm_rope *)malloc(sizeof *r); /* the object itself: plain malloc, not counted */
    llm_status s;
    (void)ctx;
    if (!r) return LLM_ENOMEM;
    s = llm_rope_create(r, &c, 8);
    if (s != LLM_OK) free(r);
    else *obj = r;
    return s;
}
static void destroy_rope(void *obj) {
    llm_rope_free((llm_rope *)obj);
    free(obj);
}
static llm_status create_kv(void *ctx, void **obj) {
    llm_config c = small_config();
    llm_kv_cache *kv = (llm_kv_cache *)malloc(sizeof *kv);
    llm_status s;
    if (!kv) return LLM_ENOMEM;
    s = llm_kv_cache_create(kv, &c, 8, *(llm_dtype *)ctx);
    if (s != LLM_OK) free(kv);
    else *obj = kv;
    return s;
}
static void destroy_kv(void *obj) {
    llm_kv_cache_free((llm_kv_cache *)obj);
    free(obj);
}

static void test_alloc(void) {
    llm_dtype dt;
    int n = 1;
    CHECK(check_alloc_failures("llm_rope_create", create_rope, destroy_rope, NULL) >= 1);
    dt = LLM_F32;
    CHECK(check_alloc_failures("llm_kv_cache_create(f32)", create_kv, destroy_kv, &dt) >= 1);
    dt = LLM_INT8;
    CHECK(check_alloc_failures("llm_kv_cache_create(int8)", create_kv, destroy_kv, &dt) >= 1);
    CHECK(check_alloc_failures("llm_threads_create(1)", create_threads, destroy_threads, &n) >= 1);
#ifdef LLM_PTHREADS
    n = 2;
    CHECK(check_alloc_failures("llm_threads_create(2)", create_threads, destroy_threads, &n) >= 1);
#endif
}

/* ---- 2. bad arguments ---------------------------------------------------------------- */
static void test_bad_args_basics(void) {
    llm_threads *th = (llm_threads *)&th; /* must be overwritten with NULL on failure */
    llm_dtype t;
    CHECK(llm_threads_create(NULL, 1) == LLM_EINVAL);
    CHECK(llm_threads_create(&th, 0) == LLM_EINVAL && th == NULL);
    CHECK(llm_threads_create(&th, -5) == LLM_EINVAL && th == NULL);
    CHECK(llm_threads_create(&th, 1 << 30) != LLM_OK && th == NULL);
    llm_threads_free(NULL);
    llm_threads_run(NULL, NULL, NULL);
    CHECK(llm_threads_count(NULL) == 1);
    CHECK(llm_dtype_parse(NULL, NULL) == LLM_EINVAL);
    CHECK(llm_dtype_parse("f32", NULL) == LLM_EINVAL);
    CHECK(llm_dtype_parse("", &t) == LLM_ENOTFOUND);
    CHECK(llm_dtype_bits((llm_dtype)-1) == 0.0);
    CHECK(strcmp(llm_dtype_name((llm_dtype)-1), "unknown") == 0);
    CHECK(strcmp(llm_status_str((llm_status)-1), "unknown llm_status") == 0);
}

/* >>config, >>estimate: NULL, zero, negative and overflowing sizes */
static void test_bad_args_estimate(void) {
    const char *why = NULL;
    const llm_config *p7 = llm_preset("llama-2-7b"), *p405 = llm_preset("llama-3.1-405b");
    llm_config c;
    llm_params par;
    llm_plan pl;
    llm_plan_result r;
    CHECK(p7 != NULL && p405 != NULL);
    if (!p7 || !p405) return;
    CHECK(llm_config_check(NULL, &why) == LLM_EINVAL && why != NULL);
    CHECK(llm_config_check(NULL, NULL) == LLM_EINVAL);
    CHECK(llm_preset(NULL) == NULL && llm_preset("") == NULL && llm_preset_at(-1) == NULL);
    CHECK(llm_gpu_preset(NULL) == NULL && llm_gpu_preset_at(-1) == NULL && llm_gpu_preset_at(1 << 30) == NULL);
    par = llm_count_params(NULL);
    CHECK_EQ_U64(par.total, 0);
    (void)llm_count_flops(NULL, 100, 1);
    CHECK(llm_config_head_dim(NULL) == 0);
    CHECK(llm_weight_bytes(NULL, LLM_F16) == 0);
    CHECK(llm_activation_bytes(NULL, 10, 1, 0, 1) == 0);
    CHECK(llm_activation_bytes(p7, -1, 1, 0, 1) == 0 && llm_activation_bytes(p7, 10, -1, 0, 1) == 0);
    CHECK(llm_weight_bytes(p7, (llm_dtype)-1) == 0 && llm_weight_bytes(p7, LLM_DTYPE_COUNT) == 0);
    CHECK(llm_pipeline_bubble(0, 1) == 0 && llm_pipeline_bubble(4, -1) == 0);
    llm_chinchilla_optimal(1e20, NULL, NULL);
    CHECK(strlen(llm_verdict_str((llm_verdict)99)) > 0 && strlen(llm_advice_str((llm_advice_kind)-3)) > 0);

    /* every size field zero or negative is refused with a reason, never a crash */
    {
        int f, v;
        static const int bad[] = {0, -1, INT_MIN, -65536};
        for (f = 0; f < 8; f++)
            for (v = 0; v < 4; v++) {
                int *fields[8];
                c = *p7;
                fields[0] = &c.d_model, fields[1] = &c.n_layers, fields[2] = &c.n_heads;
                fields[3] = &c.n_kv_heads, fields[4] = &c.d_ff, fields[5] = &c.vocab;
                fields[6] = &c.max_seq_len, fields[7] = &c.head_dim;
                if (f == 7 && bad[v] == 0) continue; /* head_dim 0 means d_model / n_heads */
                *fields[f] = bad[v];
                why = NULL;
                CHECK_MSG(llm_config_check(&c, &why) == LLM_EINVAL && why && strlen(why) > 0,
                          "field %d = %d accepted", f, bad[v]);
                par = llm_count_params(&c); /* must not crash; 0 for an invalid config */
                CHECK_EQ_U64(par.total, 0);
            }
    }
    /* heads that do not divide, GQA groups that do not divide, top-k > experts, NaN eps */
    c = *p7; c.n_heads = 7; c.head_dim = 0; CHECK(llm_config_check(&c, NULL) == LLM_EINVAL);
    c = *p7; c.n_kv_heads = 5; CHECK(llm_config_check(&c, NULL) == LLM_EINVAL);
    c = *p7; c.n_kv_heads = 64; CHECK(llm_config_check(&c, NULL) == LLM_EINVAL);
    c = *p7; c.n_experts = 2; c.n_experts_per_tok = 3; CHECK(llm_config_check(&c, NULL) == LLM_EINVAL);
    c = *p7; c.norm_eps = (float)NAN; CHECK(llm_config_check(&c, NULL) == LLM_EINVAL);
    c = *p7; c.norm = (llm_norm_kind)9; CHECK(llm_config_check(&c, NULL) == LLM_EINVAL);
    /* the largest dims a config can hold: checked, never a wrapped count */
    c = *p405;
    c.d_model = 1 << 30, c.n_heads = 1 << 20, c.n_kv_heads = 1 << 20, c.d_ff = INT_MAX, c.vocab = INT_MAX;
    c.n_layers = INT_MAX;
    if (llm_config_check(&c, &why) == LLM_OK) {
        par = llm_count_params(&c);
        CHECK(par.total >= par.non_embedding && par.total >= (uint64_t)INT_MAX * (uint64_t)INT_MAX);
    } else {
        CHECK(why != NULL);
    }
    /* 405B parameters x 16 bytes x thousands of GPUs, a 1M-token context: finite and exact */
    {
        llm_train_state ts = llm_train_state_bytes((double)llm_count_params(p405).total, 3, 16384);
        llm_flops fl = llm_count_flops(p405, 1 << 20, 1);
        CHECK(ts.total > 0 && ts.total < 1e12);
        CHECK(fl.forward > 0 && fl.forward < 1e20);
        CHECK_EQ_U64(llm_kv_cache_bytes(p405, 1 << 20, 1, LLM_F16), (uint64_t)2 * 126 * 8 * 128 * (1 << 20) * 2);
        CHECK_EQ_U64(llm_kv_cache_bytes(p405, INT64_MAX, INT64_MAX, LLM_F16), 0); /* overflow: 0, not a wrapped size */
        CHECK_EQ_U64(llm_kv_cache_bytes(p405, -1, 1, LLM_F16), 0);
        CHECK_EQ_U64(llm_kv_cache_bytes(NULL, 1, 1, LLM_F16), 0);
        /* regression (fuzz_config): for fp32 the byte count was computed as
           elems * 64 / 16 and wrapped once elems >= 2^58, returning a size far too small
           for llm_kv_cache_init's layout. 2 (K, V) x (2^27 + 1) layers x 2^15 positions
           x head_dim 2^15 = 2^58 + 2^31 values: 2^60 + 2^33 bytes, which fits. */
        c = llm_config_default();
        c.n_layers = (1 << 27) + 1, c.n_heads = 1, c.n_kv_heads = 1, c.d_model = 1 << 15, c.head_dim = 1 << 15;
        c.d_ff = 1, c.vocab = 1, c.max_seq_len = 1 << 15;
        CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1 << 15, 1, LLM_F32), ((uint64_t)1 << 60) + ((uint64_t)1 << 33));
        CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1 << 15, 1, LLM_F16), ((uint64_t)1 << 59) + ((uint64_t)1 << 32));
        CHECK_EQ_U64(llm_kv_cache_bytes(&c, 1 << 15, 16, LLM_F32), 0); /* 2^64 + ...: does not fit */
        {   /* and no cache is laid out in memory that size can't hold */
            llm_kv_cache kv;
            llm_status st = llm_kv_cache_create(&kv, &c, 1 << 15, LLM_F32);
            CHECK(st == LLM_ENOMEM);
            if (st == LLM_OK) llm_kv_cache_free(&kv);
        }
    }

    /* the planner: NULLs and every out-of-range field */
    pl = llm_plan_default();
    CHECK(llm_plan_evaluate(NULL, &r, &why) == LLM_EINVAL);
    pl.model = p7;
    pl.gpu = llm_gpu_preset("a100-80gb");
    CHECK_OK(llm_plan_evaluate(&pl, NULL, &why)); /* the result is optional */
    CHECK_OK(llm_plan_evaluate(&pl, &r, NULL));
    { pl.n_gpus = -1; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.n_gpus = 1; }
    { pl.batch = -1; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.batch = 1; }
    { pl.seq_len = -5; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.seq_len = 0; }
    { pl.seq_len = INT64_MAX; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.seq_len = 0; }
    { pl.zero_stage = 4; pl.train = 1; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.zero_stage = 0; pl.train = 0; }
    { pl.kv = (llm_dtype)42; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.kv = LLM_F16; }
    { pl.gpu = NULL; CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_EINVAL); pl.gpu = llm_gpu_preset("a100-80gb"); }
    /* regression (fuzz_config): a plan that never fits on 2^25 GPUs made the
       tensor-parallel advice loop compute n_gpus * 64 in int (signed overflow, UB) */
    pl.n_gpus = 1 << 25;
    pl.overhead_bytes = 1e15;
    CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_OK && r.verdict == LLM_DOES_NOT_FIT);
    pl.n_gpus = INT_MAX;
    CHECK(llm_plan_evaluate(&pl, &r, &why) == LLM_OK);
}


/* >>kernels, >>rope, >>attention: NULL, zero/negative sizes, positions past the tables,
   and sizes whose products overflow (on 32-bit builds, size_t itself) */
static void test_bad_args_kernels(void) {
    float x[64], y[64], w[64];
    int i;
    int big32 = sizeof(size_t) == 4; /* products past 2^32 cannot be addressed at all */
    for (i = 0; i < 64; i++) x[i] = w[i] = 0.5f, y[i] = 0;
    CHECK(llm_linear(NULL, x, w, NULL, 1, 4, 4, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, NULL, w, NULL, 1, 4, 4, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, NULL, NULL, 1, 4, 4, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, w, NULL, -1, 4, 4, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, w, NULL, 1, -4, 4, NULL) == LLM_EINVAL);
    CHECK(llm_linear(y, x, w, NULL, 1, 4, INT_MIN, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(NULL, x, w, 2, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, w, -2, 2, 2, NULL) == LLM_EINVAL);
    CHECK(llm_matmul(y, x, w, 2, 2, -1, NULL) == LLM_EINVAL);
    if (big32) {
        CHECK(llm_linear(y, x, w, NULL, 1 << 16, 1 << 16, 1, NULL) != LLM_OK); /* x: 2^32 floats */
        CHECK(llm_matmul(y, x, w, 1 << 16, 1 << 16, 1, NULL) != LLM_OK);
    }
    /* row kernels: NULL and negative n are errors; n = 0 does nothing */
    CHECK(llm_rmsnorm(NULL, x, w, 4, 1e-5f) == LLM_EINVAL && llm_rmsnorm(y, NULL, w, 4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(y, x, w, 4, (float)NAN) == LLM_EINVAL && llm_rmsnorm(y, x, w, 4, -1.0f) == LLM_EINVAL);
    CHECK(llm_rmsnorm(y, x, w, -4, 1e-5f) == LLM_EINVAL);
    CHECK(llm_layernorm(y, NULL, w, NULL, 4, 1e-5f) == LLM_EINVAL && llm_layernorm(y, x, w, NULL, -1, 1e-5f) == LLM_EINVAL);
    CHECK(llm_silu(NULL, x, 4) == LLM_EINVAL && llm_silu(y, x, -1) == LLM_EINVAL);
    CHECK(llm_gelu(y, NULL, 4) == LLM_EINVAL && llm_gelu_erf(y, x, INT_MIN) == LLM_EINVAL);
    CHECK(llm_swiglu(y, x, NULL, 4) == LLM_EINVAL && llm_add(y, NULL, x, 4) == LLM_EINVAL);
    CHECK(llm_softmax(NULL, x, 4) == LLM_EINVAL && llm_softmax(y, x, -3) == LLM_EINVAL);
    CHECK(llm_argmax(NULL, 4) == -1 && llm_argmax(x, 0) == -1 && llm_argmax(x, -1) == -1);
}

static void test_bad_args_rope(void) {
    llm_rope r;
    float x[64], mem[4096];
    llm_config c = llm_config_default();
    int i;
    for (i = 0; i < 64; i++) x[i] = 1.0f;
    CHECK(llm_rope_bytes(0, 16) == 0 && llm_rope_bytes(-8, 16) == 0 && llm_rope_bytes(8, 0) == 0);
    CHECK(llm_rope_bytes(7, 16) == 0); /* RoPE rotates pairs */
    if (sizeof(size_t) == 4) CHECK(llm_rope_bytes(1 << 16, 1 << 20) == 0); /* 2^36 bytes */
    CHECK(llm_rope_init(NULL, mem, 8, 16, 10000.0f, LLM_ROPE_INTERLEAVED) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, NULL, 8, 16, 10000.0f, LLM_ROPE_INTERLEAVED) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, mem, 7, 16, 10000.0f, LLM_ROPE_INTERLEAVED) == LLM_EINVAL);
    CHECK(llm_rope_init(&r, mem, 8, -1, 10000.0f, LLM_ROPE_INTERLEAVED) == LLM_EINVAL);
    /* theta <= 0 (NaN too) means the default 10000: finite tables, never NaN */
    CHECK_OK(llm_rope_init(&r, mem, 8, 16, (float)NAN, LLM_ROPE_INTERLEAVED));
    CHECK(r.cos[15 * 4 + 3] == r.cos[15 * 4 + 3] && r.sin[15 * 4 + 3] == r.sin[15 * 4 + 3]);
    CHECK_OK(llm_rope_init(&r, mem, 8, 16, -1.0f, LLM_ROPE_INTERLEAVED));
    CHECK_OK(llm_rope_init(&r, mem, 8, 16, (float)INFINITY, LLM_ROPE_INTERLEAVED));
    CHECK(r.cos[15 * 4 + 3] == r.cos[15 * 4 + 3]);
    CHECK(llm_rope_init(&r, mem, 8, 16, 10000.0f, (llm_rope_layout)5) == LLM_EINVAL);
    CHECK(llm_rope_init_config(&r, mem, NULL, 16) == LLM_EINVAL);
    CHECK(llm_rope_init_config(&r, mem, &c, 16) == LLM_EINVAL); /* all sizes zero */
    CHECK_OK(llm_rope_init(&r, mem, 8, 16, 10000.0f, LLM_ROPE_INTERLEAVED));
    /* positions past the table are an error, never a read past it */
    CHECK(llm_rope_apply(&r, x, 2, 16) == LLM_ERANGE);
    CHECK(llm_rope_apply(&r, x, 2, -1) != LLM_OK);
    CHECK(llm_rope_apply(&r, x, 2, INT_MAX) == LLM_ERANGE);
    CHECK(llm_rope_apply(&r, x, 0, 0) != LLM_OK || 1); /* zero heads: nothing to do */
    CHECK(llm_rope_apply(&r, x, -2, 0) == LLM_EINVAL);
    CHECK(llm_rope_apply(NULL, x, 2, 0) == LLM_EINVAL && llm_rope_apply(&r, NULL, 2, 0) == LLM_EINVAL);
    CHECK(llm_rope_apply_tokens(&r, x, 2, 2, 15) == LLM_ERANGE);     /* the 2nd token is at 16 */
    CHECK(llm_rope_apply_tokens(&r, x, 2, 2, INT_MAX - 1) == LLM_ERANGE); /* pos + n overflows int */
    CHECK(llm_rope_apply_tokens(&r, x, INT_MAX, 2, 1) == LLM_ERANGE);
    CHECK(llm_rope_apply_tokens(&r, x, -1, 2, 0) == LLM_EINVAL);
    llm_rope_free(NULL);
    llm_rope_free(&r); /* caller memory: nothing to free, must be harmless */
}

static void test_bad_args_attention(void) {
    float q[256], k[256], v[256], out[256];
    llm_kv_cache kv;
    llm_config c = llm_config_default();
    int i;
    for (i = 0; i < 256; i++) q[i] = k[i] = v[i] = 0.25f;
    CHECK(llm_attention(NULL, q, k, v, 1, 2, 2, 2, 1, 4, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, NULL, k, v, 1, 2, 2, 2, 1, 4, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, NULL, 1, 2, 2, 2, 1, 4, NULL) == LLM_EINVAL);
    CHECK(llm_attention(out, q, k, v, 3, 2, 2, 2, 1, 4, NULL) != LLM_OK);  /* more queries than positions */
    CHECK(llm_attention(out, q, k, v, 1, 3, 2, 2, 1, 4, NULL) != LLM_OK);  /* stride < positions */
    CHECK(llm_attention(out, q, k, v, 1, 2, 2, 3, 2, 4, NULL) != LLM_OK);  /* 3 heads over 2 KV heads */
    CHECK(llm_attention(out, q, k, v, 1, 2, 2, 2, 0, 4, NULL) != LLM_OK);
    CHECK(llm_attention(out, q, k, v, 1, 2, 2, 2, 1, 0, NULL) != LLM_OK);
    CHECK(llm_attention(out, q, k, v, -1, 2, 2, 2, 1, 4, NULL) != LLM_OK);
    if (sizeof(size_t) == 4) CHECK(llm_attention(out, q, k, v, 1, 1 << 20, 1 << 20, 2, 2, 1 << 12, NULL) != LLM_OK);

    /* the KV cache */
    c.d_model = 8, c.n_layers = 2, c.n_heads = 2, c.n_kv_heads = 1, c.d_ff = 8, c.vocab = 8, c.max_seq_len = 4;
    CHECK(llm_kv_cache_create(NULL, &c, 4, LLM_F32) == LLM_EINVAL);
    CHECK(llm_kv_cache_create(&kv, NULL, 4, LLM_F32) == LLM_EINVAL);
    CHECK(llm_kv_cache_create(&kv, &c, 0, LLM_F32) == LLM_EINVAL);
    CHECK(llm_kv_cache_create(&kv, &c, -4, LLM_F32) == LLM_EINVAL);
    CHECK(llm_kv_cache_create(&kv, &c, 4, (llm_dtype)99) != LLM_OK);
    CHECK(llm_kv_cache_create(&kv, &c, 4, LLM_Q4_32) != LLM_OK);
    CHECK(llm_kv_cache_init(&kv, NULL, &c, 4, LLM_F32) == LLM_EINVAL);
    CHECK_OK(llm_kv_cache_create(&kv, &c, 4, LLM_F32));
    /* kv rows: [n_tokens][1 KV head][head_dim 4] */
    CHECK(llm_kv_cache_write(&kv, 0, 0, k, v, 5) == LLM_EFULL);         /* past capacity */
    CHECK(kv.len == 0);                                                   /* nothing written */
    CHECK(llm_kv_cache_write(&kv, 0, 1, k, v, 1) == LLM_ERANGE);        /* a hole */
    CHECK(llm_kv_cache_write(&kv, 2, 0, k, v, 1) != LLM_OK);            /* no such layer */
    CHECK(llm_kv_cache_write(&kv, -1, 0, k, v, 1) != LLM_OK);
    CHECK(llm_kv_cache_write(&kv, 0, -1, k, v, 1) != LLM_OK);
    CHECK(llm_kv_cache_write(&kv, 0, 0, NULL, v, 1) == LLM_EINVAL);
    CHECK(llm_kv_cache_write(&kv, 0, 0, k, v, -1) != LLM_OK);
    CHECK(llm_kv_cache_write(NULL, 0, 0, k, v, 1) == LLM_EINVAL);
    CHECK_OK(llm_kv_cache_write(&kv, 0, 0, k, v, 4));
    CHECK(llm_kv_cache_write(&kv, 0, 4, k, v, 1) == LLM_EFULL);
    CHECK(llm_kv_cache_write(&kv, 0, 3, k, v, INT_MAX) == LLM_EFULL); /* pos + n overflows int */
    CHECK(llm_kv_cache_truncate(&kv, 5) != LLM_OK && llm_kv_cache_truncate(&kv, -1) != LLM_OK);
    CHECK(llm_kv_cache_truncate(NULL, 0) == LLM_EINVAL);
    /* attention over the cache: queries past what it holds, bad layers and head counts */
    CHECK_OK(llm_attention_cache(out, q, &kv, 0, 1, 3, 2, 0, NULL));
    CHECK(llm_attention_cache(out, q, &kv, 0, 2, 3, 2, 0, NULL) != LLM_OK); /* position 4 is not there */
    CHECK(llm_attention_cache(out, q, &kv, 0, 1, INT_MAX, 2, 0, NULL) != LLM_OK);
    CHECK(llm_attention_cache(out, q, &kv, 5, 1, 0, 2, 0, NULL) != LLM_OK);
    CHECK(llm_attention_cache(out, q, &kv, 0, 1, 0, 0, 0, NULL) != LLM_OK);
    CHECK(llm_attention_cache(out, q, &kv, 0, 1, 0, -2, 0, NULL) != LLM_OK);
    CHECK(llm_attention_cache(out, q, &kv, 0, 1, 0, 2, -1, NULL) != LLM_OK);
    CHECK(llm_attention_cache(NULL, q, &kv, 0, 1, 0, 2, 0, NULL) == LLM_EINVAL);
    CHECK(llm_attention_cache(out, q, NULL, 0, 1, 0, 2, 0, NULL) == LLM_EINVAL);
    llm_kv_cache_reset(&kv);
    CHECK(llm_attention_cache(out, q, &kv, 0, 1, 0, 2, 0, NULL) != LLM_OK); /* empty cache */
    llm_kv_cache_reset(NULL);
    llm_kv_cache_free(&kv);
    llm_kv_cache_free(&kv); /* twice: harmless */
    llm_kv_cache_free(NULL);
}

int main(void) {
    test_alloc();
    test_bad_args_basics();
    test_bad_args_estimate();
    test_bad_args_kernels();
    test_bad_args_rope();
    test_bad_args_attention();
    return test_done();
}
