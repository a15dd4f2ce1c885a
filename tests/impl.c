/* The implementation the tests share: compiled once per build variant (the Makefile's
   build/test/<variant>/llm_impl.o) and linked with every tests/test_*.c that does not
   #define LLM_IMPLEMENTATION itself. It is built with the test allocator and gives the
   llm.h internals some tests call external linkage, under llm_test__ names: both are
   declared, and said, in tests/internals.h. */
#include <stdlib.h>

long test_alloc_live, test_alloc_count, test_alloc_fail_at = -1;
static void *llm_test__malloc(size_t n) {
    if ((double)n > 1099511627776.0) return NULL; /* (a double: no always-false warning on 32-bit) */
    if (test_alloc_fail_at >= 0 && test_alloc_count++ == test_alloc_fail_at) return NULL;
    if (test_alloc_fail_at < 0) test_alloc_count++;
    {
        void *p = malloc(n ? n : 1);
        if (p) test_alloc_live++;
        return p;
    }
}
static void llm_test__free(void *p) {
    if (p) {
        test_alloc_live--;
        free(p);
    }
}
#define LLM_MALLOC(n) llm_test__malloc(n)
#define LLM_FREE(p) llm_test__free(p)
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "internals.h"

void llm_test__f16_to_f32_row(float *dst, const uint16_t *src, size_t n) { llm__f16_to_f32_row(dst, src, n); }
void llm_test__f32_to_f16_row(uint16_t *dst, const float *src, size_t n) { llm__f32_to_f16_row(dst, src, n); }

#ifdef LLM__RV
void llm_test__vector_exp(float *dst, const float *src) {
    int i;
    for (i = 0; i < LLM_TEST_EXP_LANES; i += LLM__RVN) llm__rv_store(dst + i, llm__rv_exp(llm__rv_load(src + i)));
}
const int llm_test__vector_lanes = LLM__RVN;
const double llm_test__exp_relerr = LLM__EXP_RELERR;
#else
void llm_test__vector_exp(float *dst, const float *src) { (void)dst, (void)src; }
const int llm_test__vector_lanes = 0;
const double llm_test__exp_relerr = 0;
#endif

#ifdef __F16C__
const int llm_test__f16c = 1;
#else
const int llm_test__f16c = 0;
#endif

#ifdef LLM__QV
const int llm_test__qkernels = 1;
#else
const int llm_test__qkernels = 0;
#endif
#ifdef LLM__QZ
const int llm_test__qz = 1;
#else
const int llm_test__qz = 0;
#endif
#if !defined(LLM_NO_SIMD) && defined(__AVX512F__) && defined(__AVX512VBMI__) && defined(__AVX512VNNI__) && \
    defined(__AVX512BW__) && defined(__GFNI__) && defined(__AVX512BITALG__)
#if defined(LLM_QZ)
const int llm_test__qz_want = LLM_QZ;
#elif defined(__znver3__) || defined(__znver4__)
const int llm_test__qz_want = 0;
#else
const int llm_test__qz_want = 1;
#endif
#else
const int llm_test__qz_want = 0;
#endif
#ifdef LLM__QP
const int llm_test__qp_rows = LLM__PL;
#else
const int llm_test__qp_rows = 0;
#endif
#ifdef LLM__X16V
const int llm_test__x16v = 1;
const int llm_test__x16v_q8 = LLM__X16_Q8;
int llm_test__x16_wanted(llm_dtype t) { return llm__x16_wanted(t); }
#else
const int llm_test__x16v = 0;
const int llm_test__x16v_q8 = 0;
int llm_test__x16_wanted(llm_dtype t) { return (void)t, 0; }
#endif
llm_status llm_test__model_row(float *out, const llm_weight *w, int row, int rows, int n) { return llm__model_row(out, w, row, rows, n); }

const char *llm_test__piece(const llm_tokenizer *t, int id, int *len) { return llm__piece(t, id, len); }
llm_status llm_test__tok_start(const llm_tokenizer *t, const char *text, int bos, int *ids, int cap, int *n_out) {
    return llm__tok_start(t, text, bos, ids, cap, n_out);
}
int llm_test__lookup2(const llm_tokenizer *t, const char *a, int la, const char *b, int lb) {
    return llm__lookup2(t, a, la, b, lb);
}

int llm_test__utf8_next(const unsigned char *s, int64_t n, int64_t i, uint32_t *cp) { return llm__utf8_next(s, n, i, cp); }
unsigned llm_test__ucd(uint32_t cp) { return llm__ucd(cp); }
unsigned llm_test__ucd_ccc_of(uint32_t cp) { return llm__ucd_ccc_of(cp); }
const unsigned llm_test__uc[8] = {LLM__UC_L, LLM__UC_N, LLM__UC_WS, LLM__UC_P, LLM__UC_S, LLM__UC_M, LLM__UC_Z, LLM__UC_C};
int64_t llm_test__pretok_next(llm_pretok kind, const unsigned char *s, int64_t n, int64_t i) {
    return llm__pretok_next(kind, s, n, i);
}

int32_t llm_test__vocab_lookup(const llm_vocab *v, const char *s, size_t n) { return llm__vocab_lookup(v, s, n); }

void llm_test__train_dims(const llm_config *c, int slot, int64_t *in, int64_t *out) { llm__train_dims(c, slot, in, out); }
const int *const llm_test__lora_slot = llm__lora_slot;
const int llm_test__train_slots[3] = {LLM__T_GLOBAL, LLM__T_LAYER, LLM__LORA_SLOTS};
