/* What a test linked with the shared implementation object (tests/impl.c) may reach besides
   llm.h's public API: the allocator that object is built with, and the few llm.h internals
   (static llm__ functions and constants) some tests call. Those are invisible outside
   tests/impl.c, which wraps each one under an llm_test__ name with external linkage (the
   declarations below; impl.c includes this file too, so the compiler checks them against
   its wrappers). In a file without the implementation, macros then send each llm__ name to
   its wrapper, so a test calls the internals as llm.h spells them; a file that has the
   implementation itself (matrix.sh's LLM_STATIC leg puts tests/impl.c in front of the
   test) sees the internals directly. Include it after llm.h. */
#ifndef LLM_TEST_INTERNALS_H
#define LLM_TEST_INTERNALS_H
#include <stddef.h>
#include <stdint.h>

/* LLM_MALLOC and LLM_FREE of the shared implementation: every call is counted
   (test_alloc_count) and so is every live block (test_alloc_live); the call numbered
   test_alloc_fail_at (-1 = none) fails, and so does a request over 1 TiB, as a real
   malloc's would (ASan aborts on one instead). test_hostile fails each allocation of a
   *_create in turn; test_model checks that the token loop allocates nothing. Plain
   counters: no test allocates from two threads at once. */
extern long test_alloc_live, test_alloc_count, test_alloc_fail_at;

/* >>attention: the KV cache's fp16 row conversions */
void llm_test__f16_to_f32_row(float *dst, const uint16_t *src, size_t n);
void llm_test__f32_to_f16_row(uint16_t *dst, const float *src, size_t n);
/* >>simd: the vector exp (llm__rv_exp) on LLM_TEST_EXP_LANES floats, a multiple of every
   ISA's vector width; llm_test__vector_lanes is the build's width, 0 in a scalar build
   (there is no vector exp there, and the call does nothing); llm_test__exp_relerr is
   LLM__EXP_RELERR, its error bound */
#define LLM_TEST_EXP_LANES 16
void llm_test__vector_exp(float *dst, const float *src);
extern const int llm_test__vector_lanes;
extern const int llm_test__f16c; /* the build converts fp16 with F16C (x86) */
extern const double llm_test__exp_relerr;
/* >>weights: the block formats' kernels in this build: llm_test__qkernels is 0 for the
   scalar dots, 1 for the vector tiles; llm_test__qp_rows the rows per vector of the
   many-token kernel (LLM_LIN_PREFILL's rows in lanes), 0 without one; llm_test__qz 1 when
   the 32-value formats take two blocks per 512-bit vector (LLM_QZ), llm_test__qz_want when
   this build's flags ask for that */
extern const int llm_test__qkernels, llm_test__qp_rows, llm_test__qz, llm_test__qz_want;
/* llm_test__x16v: 1 when the repacked layouts (LLM_Q4_0X16 ...) have their vector
   kernel in this build; llm_test__model_row: row `row` of a rows x n weight in any format as fp32
   (llm__model_row, the embedding lookup's) */
extern const int llm_test__x16v;
/* llm_test__x16v_q8: 1 when Q8_0's many-token kernel has the LLM_Q8_0X16 tile's sums (an
   unsigned dot: VNNI); AVX2 has no many-token kernel for Q8_0 */
extern const int llm_test__x16v_q8;
/* llm_test__x16_wanted: whether llm_weight_repack_worth takes base type t's layout in this build */
int llm_test__x16_wanted(llm_dtype t);
llm_status llm_test__model_row(float *out, const llm_weight *w, int row, int rows, int n);
/* >>tokenizer: a SentencePiece piece, the start of an encoding (before merges), a pair's id */
const char *llm_test__piece(const llm_tokenizer *t, int id, int *len);
llm_status llm_test__tok_start(const llm_tokenizer *t, const char *text, int bos, int *ids, int cap, int *n_out);
int llm_test__lookup2(const llm_tokenizer *t, const char *a, int la, const char *b, int lb);
/* >>unicode: UTF-8 decoding, the code point tables and their category flags (LLM__UC_L,
   N, WS, P, S, M, Z, C in that order), the pre-tokenizer splits */
int llm_test__utf8_next(const unsigned char *s, int64_t n, int64_t i, uint32_t *cp);
unsigned llm_test__ucd(uint32_t cp);
unsigned llm_test__ucd_ccc_of(uint32_t cp);
extern const unsigned llm_test__uc[8];
int64_t llm_test__pretok_next(llm_pretok kind, const unsigned char *s, int64_t n, int64_t i);
/* >>vocab: a piece's id by the hash table */
int32_t llm_test__vocab_lookup(const llm_vocab *v, const char *s, size_t n);
/* >>train: a projection slot's shape, each LoRA target's slot, and LLM__T_GLOBAL,
   LLM__T_LAYER, LLM__LORA_SLOTS (the parameter block's slot counts) in that order */
void llm_test__train_dims(const llm_config *c, int slot, int64_t *in, int64_t *out);
extern const int *const llm_test__lora_slot;
extern const int llm_test__train_slots[3];

#ifndef LLM__IMPLEMENTED
#define llm__f16_to_f32_row llm_test__f16_to_f32_row
#define llm__f32_to_f16_row llm_test__f32_to_f16_row
#define llm__piece llm_test__piece
#define llm__tok_start llm_test__tok_start
#define llm__lookup2 llm_test__lookup2
#define llm__utf8_next llm_test__utf8_next
#define llm__ucd llm_test__ucd
#define llm__ucd_ccc_of llm_test__ucd_ccc_of
#define LLM__UC_L (llm_test__uc[0])
#define LLM__UC_N (llm_test__uc[1])
#define LLM__UC_WS (llm_test__uc[2])
#define LLM__UC_P (llm_test__uc[3])
#define LLM__UC_S (llm_test__uc[4])
#define LLM__UC_M (llm_test__uc[5])
#define LLM__UC_Z (llm_test__uc[6])
#define LLM__UC_C (llm_test__uc[7])
#define llm__pretok_next llm_test__pretok_next
#define llm__vocab_lookup llm_test__vocab_lookup
#define llm__train_dims llm_test__train_dims
#define llm__model_row llm_test__model_row
#define llm__lora_slot llm_test__lora_slot
#define LLM__T_GLOBAL (llm_test__train_slots[0])
#define LLM__T_LAYER (llm_test__train_slots[1])
#define LLM__LORA_SLOTS (llm_test__train_slots[2])
#endif
#endif
