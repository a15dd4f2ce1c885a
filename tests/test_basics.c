/* >>basics: status names, dtype sizes, fp16/bf16 conversion, the thread pool. */
#include "llm.h"
#include "test.h"

typedef struct {
    llm_threads *th;
    int outer[8], inner[8][2]; /* inner[outer ith][nested ith] */
} nested_ctx;
typedef struct {
    int *hits;
} inner_ctx;
static void inner_task(void *ctx, int ith, int nth) {
    inner_ctx *c = (inner_ctx *)ctx;
    (void)nth;
    c->hits[ith < 2 ? ith : 1]++;
}
/* A task that uses its own pool again (as a kernel called from a task would) must not
   deadlock: the nested call runs serially on that thread (ith 0 of 1). */
static void outer_task(void *ctx, int ith, int nth) {
    nested_ctx *c = (nested_ctx *)ctx;
    inner_ctx in;
    (void)nth;
    c->outer[ith]++;
    in.hits = c->inner[ith];
    llm_threads_run(c->th, inner_task, &in);
}

static void count_task(void *ctx, int ith, int nth) {
    int *hits = (int *)ctx;
    hits[ith] += 1 + 0 * nth;
}

int main(void) {
    int i;
    llm_dtype t;
    /* every status has its own name; out-of-range values don't crash */
    for (i = 0; i < (int)LLM_STATUS_COUNT; i++) CHECK(strchr(llm_status_str((llm_status)i), ':') != NULL);
    CHECK(strcmp(llm_status_str(LLM_EFULL), "LLM_EFULL: KV cache full") == 0);
    CHECK(strcmp(llm_status_str((llm_status)999), "unknown llm_status") == 0);

    /* bytes per element, including the block-scale overhead (issue 2) */
    CHECK_NEAR(llm_dtype_bytes(LLM_F32), 4, 0);
    CHECK_NEAR(llm_dtype_bytes(LLM_F16), 2, 0);
    CHECK_NEAR(llm_dtype_bytes(LLM_BF16), 2, 0);
    CHECK_NEAR(llm_dtype_bytes(LLM_INT8), 1, 0);
    CHECK_NEAR(llm_dtype_bytes(LLM_INT4), 0.5, 0);
    CHECK_NEAR(llm_dtype_bits(LLM_Q8_32), 8.5, 0);
    CHECK_NEAR(llm_dtype_bits(LLM_Q4_32), 4.5, 0);
    CHECK_NEAR(llm_dtype_bits((llm_dtype)77), 0, 0);
    for (i = 0; i < (int)LLM_DTYPE_COUNT; i++)
        CHECK(llm_dtype_parse(llm_dtype_name((llm_dtype)i), &t) == LLM_OK && t == (llm_dtype)i);
    CHECK(llm_dtype_parse("fp33", &t) == LLM_ENOTFOUND);
    CHECK(llm_dtype_parse(NULL, &t) == LLM_EINVAL);

    /* fp16: exact values, round to nearest even, subnormals, overflow, inf/nan */
    CHECK(llm_f32_to_f16(1.0f) == 0x3c00);
    CHECK(llm_f32_to_f16(-2.0f) == 0xc000);
    CHECK(llm_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(llm_f32_to_f16(65520.0f) == 0x7c00);           /* rounds up to inf */
    CHECK(llm_f32_to_f16(1.0f + 1.0f / 2048) == 0x3c00); /* tie -> even */
    CHECK(llm_f32_to_f16(1.0f + 3.0f / 2048) == 0x3c02); /* tie -> even (up) */
    CHECK(llm_f32_to_f16(5.9604645e-8f) == 0x0001);      /* smallest subnormal */
    CHECK(llm_f32_to_f16(1e-9f) == 0x0000);
    /* the cast drops x87 excess precision: C99 evaluates float constants as long double when FLT_EVAL_METHOD is 2 (-m32) */
    CHECK(llm_f16_to_f32(0x0001) == (float)5.9604645e-8f);
    CHECK(llm_f16_to_f32(0x7c00) == INFINITY);
    CHECK(llm_f16_to_f32(llm_f32_to_f16(NAN)) != llm_f16_to_f32(llm_f32_to_f16(NAN)));
    {   /* every finite half survives a round trip through float */
        unsigned h;
        int bad = 0;
        for (h = 0; h < 0x10000u; h++) {
            if ((h & 0x7c00u) == 0x7c00u) continue;
            if (llm_f32_to_f16(llm_f16_to_f32((uint16_t)h)) != h) bad++;
        }
        CHECK(bad == 0);
    }
    /* bf16 */
    CHECK(llm_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(llm_bf16_to_f32(llm_f32_to_bf16(3.140625f)) == 3.140625f);
    CHECK(llm_f32_to_bf16(1.0f + 1.0f / 256) == 0x3f80); /* tie -> even */
    CHECK(llm_f32_to_bf16(1.0f + 3.0f / 256) == 0x3f82);
    CHECK(llm_bf16_to_f32(llm_f32_to_bf16(NAN)) != llm_bf16_to_f32(llm_f32_to_bf16(NAN)));

    /* the thread pool: every ith runs exactly once per call, the pool is reused */
    {
        llm_threads *th = NULL;
        int hits[8] = {0}, n, round;
        CHECK(llm_threads_create(NULL, 2) == LLM_EINVAL);
        CHECK(llm_threads_create(&th, 0) == LLM_EINVAL && th == NULL);
#ifdef LLM_PTHREADS
        n = 2;
#else
        n = 1;
        CHECK(llm_threads_create(&th, 2) == LLM_EUNSUPPORTED && th == NULL);
#endif
        CHECK_OK(llm_threads_create(&th, n));
        CHECK(llm_threads_count(th) == n);
        CHECK(llm_threads_count(NULL) == 1);
        for (round = 0; round < 1000; round++) llm_threads_run(th, count_task, hits);
        for (i = 0; i < n; i++) CHECK(hits[i] == 1000);
        CHECK(hits[n] == 0);
        llm_threads_run(NULL, count_task, hits);
        CHECK(hits[0] == 1001);
        {
            nested_ctx c;
            memset(&c, 0, sizeof c);
            c.th = th;
            for (round = 0; round < 100; round++) llm_threads_run(th, outer_task, &c);
            for (i = 0; i < n; i++) {
                CHECK(c.outer[i] == 100);
                CHECK(c.inner[i][0] == 100); /* every nested call ran as ith 0 of 1 */
                CHECK(c.inner[i][1] == 0);
            }
            llm_threads_run(th, count_task, hits); /* the pool still works afterwards */
            CHECK(hits[0] == 1002);
        }
        llm_threads_free(th);
        llm_threads_free(NULL);
    }
    return test_done();
}
