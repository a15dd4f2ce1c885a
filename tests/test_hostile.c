/* Hardening (issue 6): hostile inputs and bad arguments must come back as a status, never
   a crash, a hang or a leak. Three parts:
   1. a failing allocator: every *_create is run with allocation k failing, for every k,
      and must return LLM_ENOMEM with nothing left allocated;
   2. bad arguments (NULL, zero/negative, overflowing sizes) to every public function;
   3. hostile files: checkpoints truncated at every section boundary, negative and gigantic
      header fields, tokenizers that lie about their lengths. */
#include <stdlib.h>
#include <stddef.h>

/* The allocator hook: counts live blocks and fails the allocation numbered fail_at. */
static long test_alloc_live, test_alloc_count, test_alloc_fail_at = -1;
static void *test_failing_malloc(size_t n) {
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

static void test_alloc(void) {
    int n = 1;
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

int main(void) {
    test_alloc();
    test_bad_args_basics();
    return test_done();
}
