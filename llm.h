/* llm.h - v0.1.0 - a decoder-only transformer in one C99 header, public domain / MIT

   In exactly ONE C or C++ file, before including it:

       #define LLM_IMPLEMENTATION
       #include "llm.h"

   Every other file includes "llm.h" without the define.

   QUICK START
   -----------
       #define LLM_IMPLEMENTATION
       #include "llm.h"
       #include <stdio.h>

       int main(void) {
           const llm_config *c = llm_preset("llama-2-7b");
           llm_params p = llm_count_params(c);
           printf("%s: %llu parameters\n", c->name, (unsigned long long)p.total);
           return 0;    // prints 6738415616, the published count
       }

   See README.md for the planner, the kernels, and running a llama2.c checkpoint.

   CONTENTS (search for the tag to jump)
   -------------------------------------
       >>basics      status codes, dtypes, allocator and math hooks, thread pool
       >>config      llm_config, the preset table, validation
       >>estimate    parameters, FLOPs, memory, time, the planner, GPU presets
       >>kernels     linear / matmul / GEMV (SIMD, threaded), norms, activations, softmax
       >>rope        rotary position tables and their application
       >>attention   causal attention (tiled, online softmax, GQA/MQA), KV cache
       >>model       decoder block, model forward pass, sampling
       >>files       llama2.c checkpoints and tokenizers, from memory or a file

   OPTIONS (#define before including)
   ----------------------------------
       LLM_IMPLEMENTATION  compile the implementation here (exactly one file)
       LLM_STATIC          everything static: vendor a private copy per file (everywhere it is used)
       LLMDEF              decoration of every public function (default: extern, or static with LLM_STATIC)
       LLM_ASSERT(x)       internal invariants only; caller mistakes are status codes (implementation file)
       LLM_MALLOC(n) / LLM_FREE(p)   allocator used by the *_create convenience functions; define both or
                           neither (implementation file)
       LLM_SQRTF LLM_EXPF LLM_LOGF LLM_TANHF LLM_ERFF LLM_POW LLM_COS LLM_SIN
                           libm replacements for firmware (implementation file)
       LLM_NO_STDIO        no FILE* functions; load from memory buffers only (everywhere)
       LLM_NO_SIMD         scalar kernels only (implementation file)
       LLM_PTHREADS        real threads in llm_threads (implementation file; link with -pthread)

   llm.h does NOT: run on a GPU, train (yet), download anything, use global state.

   CONVENTIONS
   -----------
   Row-major. Activations are [n_tokens][dim]. Linear weights are [out][in] as in PyTorch's
   nn.Linear and llama2.c: y = x W^T + b. Every function that can fail returns llm_status
   (LLM_OK = 0) and never aborts on anything a caller passes. Counts are uint64_t; bytes,
   FLOPs and seconds are double; printed bytes say GB (1e9) or GiB (2^30). No function
   allocates unless its name ends in _create; all are re-entrant; threads are an explicit
   llm_threads * argument (NULL = the caller's thread).
*/
#ifndef LLM_H
#define LLM_H

#define LLM_VERSION_MAJOR 0
#define LLM_VERSION_MINOR 1
#define LLM_VERSION_PATCH 0

#include <stddef.h>
#include <stdint.h>

#ifndef LLMDEF
#if defined(LLM_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define LLMDEF static __attribute__((unused)) /* a vendored copy may use only a few */
#elif defined(LLM_STATIC)
#define LLMDEF static
#else
#define LLMDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================
   >>basics
   ====================================================================================== */

/* Every status code, in one list so the enum and llm_status_str never drift. */
#define LLM__STATUS_LIST(X)                                                  \
    X(LLM_OK, "ok")                                                          \
    X(LLM_EINVAL, "invalid argument")                                        \
    X(LLM_ENOMEM, "out of memory")                                           \
    X(LLM_EFORMAT, "malformed or unsupported file")                          \
    X(LLM_EFULL, "KV cache full")                                            \
    X(LLM_ERANGE, "position or size out of range")                           \
    X(LLM_EIO, "file could not be read")                                     \
    X(LLM_ENOTFOUND, "no such name")                                         \
    X(LLM_EUNSUPPORTED, "not supported by this build or configuration")

typedef enum llm_status {
#define LLM__STATUS_ENUM(name, text) name,
    LLM__STATUS_LIST(LLM__STATUS_ENUM)
#undef LLM__STATUS_ENUM
    LLM_STATUS_COUNT
} llm_status;

LLMDEF const char *llm_status_str(llm_status s);
LLMDEF const char *llm_version(void); /* "0.1.0" */

/* Element types. Bits per element include block-scale overhead, which is what memory
   estimates need: Q8_32 / Q4_32 are blocks of 32 values with one fp16 scale each
   (8 + 16/32 = 8.5 and 4 + 16/32 = 4.5 bits, as in ggml's Q8_0 / Q4_0).
   LLM_INT8 in a weight (llm_weight) means int8 values in groups of group_size with one
   fp32 scale per group, llama2.c's version-2 layout. */
typedef enum llm_dtype {
    LLM_F32 = 0,
    LLM_F16,
    LLM_BF16,
    LLM_INT8,
    LLM_INT4,
    LLM_Q8_32,
    LLM_Q4_32,
    LLM_DTYPE_COUNT
} llm_dtype;

LLMDEF double llm_dtype_bits(llm_dtype t);  /* 32, 16, 16, 8, 4, 8.5, 4.5; 0 if unknown */
LLMDEF double llm_dtype_bytes(llm_dtype t); /* bits / 8 */
LLMDEF const char *llm_dtype_name(llm_dtype t); /* "f32", "f16", "bf16", "int8", "int4", "q8_32", "q4_32" */
LLMDEF llm_status llm_dtype_parse(const char *name, llm_dtype *out); /* inverse of llm_dtype_name */

/* fp16 / bf16 <-> fp32, round to nearest even. */
LLMDEF uint16_t llm_f32_to_f16(float f);
LLMDEF float llm_f16_to_f32(uint16_t h);
LLMDEF uint16_t llm_f32_to_bf16(float f);
LLMDEF float llm_bf16_to_f32(uint16_t h);

/* A thread pool. Created once and reused: llm_threads_run wakes the workers, runs
   fn(ctx, ith, nth) for ith = 0..nth-1 (the caller's thread is ith 0) and returns when
   all are done. Without LLM_PTHREADS a pool of n > 1 threads is LLM_EUNSUPPORTED.
   A NULL pool is valid everywhere and means "run on the caller's thread" (nth = 1).
   One pool must not be used by two callers at once. */
typedef struct llm_threads llm_threads;
typedef void (*llm_task_fn)(void *ctx, int ith, int nth);

LLMDEF llm_status llm_threads_create(llm_threads **out, int n_threads);
LLMDEF void llm_threads_free(llm_threads *th);
LLMDEF int llm_threads_count(const llm_threads *th); /* 1 for NULL */
LLMDEF void llm_threads_run(llm_threads *th, llm_task_fn fn, void *ctx);

/* ======================================================================================
   >>config
   ====================================================================================== */

typedef enum llm_norm_kind { LLM_NORM_RMS = 0, LLM_NORM_LAYER } llm_norm_kind;
typedef enum llm_ffn_kind {
    LLM_FFN_SWIGLU = 0, /* W2 (silu(W1 x) * W3 x): three matrices (Llama) */
    LLM_FFN_GELU,       /* W2 gelu(W1 x): two matrices (GPT-2) */
    LLM_FFN_GEGLU       /* W2 (gelu(W1 x) * W3 x): three matrices (Gemma) */
} llm_ffn_kind;
typedef enum llm_pos_kind { LLM_POS_ROPE = 0, LLM_POS_LEARNED, LLM_POS_NONE } llm_pos_kind;
/* Which pairs of a head's dimensions RoPE rotates together. Loading weights with the
   other layout than the one they were trained with silently ruins the model:
     LLM_ROPE_INTERLEAVED: pairs (2i, 2i+1)   RoFormer, Meta's Llama code, llama2.c, GGUF
     LLM_ROPE_HALVES:      pairs (i, i + d/2) Hugging Face transformers, GPT-NeoX */
typedef enum llm_rope_layout { LLM_ROPE_INTERLEAVED = 0, LLM_ROPE_HALVES } llm_rope_layout;
typedef enum llm_bias_kind {
    LLM_BIAS_NONE = 0, /* Llama, Mistral */
    LLM_BIAS_QKV,      /* q, k, v projections only (Qwen2) */
    LLM_BIAS_ALL       /* every linear layer and the norms (GPT-2) */
} llm_bias_kind;

/* The architecture of a decoder-only transformer: everything the estimators, the
   planner and the forward pass need. Zero in an optional field means its default. */
typedef struct llm_config {
    const char *name;
    int d_model;     /* residual stream width d */
    int n_layers;    /* L */
    int n_heads;     /* query heads */
    int n_kv_heads;  /* key/value heads: = n_heads MHA, 1 MQA, in between GQA */
    int head_dim;    /* 0 = d_model / n_heads */
    int d_ff;        /* FFN hidden width */
    int vocab;       /* V */
    int max_seq_len; /* context length the model was trained for */
    llm_norm_kind norm;
    int norm_bias;   /* LayerNorm with a bias (GPT-2) */
    float norm_eps;  /* 0 = 1e-5 */
    llm_ffn_kind ffn;
    llm_pos_kind pos;
    float rope_theta;            /* base; 0 = 10000 */
    llm_rope_layout rope_layout;
    int rotary_dim;              /* dims rotated per head; 0 = head_dim */
    float rope_scale;            /* Llama 3.1 frequency scaling factor; 0 = none */
    float rope_low_freq_factor;  /* Llama 3.1: 1 */
    float rope_high_freq_factor; /* Llama 3.1: 4 */
    int rope_orig_ctx;           /* Llama 3.1: 8192 */
    int tied_embeddings;         /* LM head shares the token embedding matrix */
    llm_bias_kind bias;
    int post_norm;               /* 1 = norm after the residual add (original Transformer) */
    int n_experts;               /* mixture of experts: routed experts per layer (0 = dense) */
    int n_experts_per_tok;       /* top-k */
    int n_shared_experts;        /* always-on experts (DeepSeek-MoE style) */
    int sliding_window;          /* attend to at most this many past positions; 0 = all */
} llm_config;

/* ======================================================================================
   >>estimate
   ====================================================================================== */

/* ======================================================================================
   >>kernels
   ====================================================================================== */

/* A weight matrix [out][in] in one of the stored formats; linear layers take this. */
typedef struct llm_weight {
    llm_dtype type;     /* LLM_F32, LLM_F16, LLM_BF16 or LLM_INT8 */
    const void *data;   /* out * in elements, row-major [out][in] */
    const float *scale; /* LLM_INT8: one fp32 scale per group_size consecutive values */
    int group_size;     /* LLM_INT8: divides in */
} llm_weight;

/* y[n][out] = x[n][in] W[out][in]^T + b[out]; b may be NULL. n_tokens = 1 is the decode
   GEMV. y must not overlap x. */
LLMDEF llm_status llm_linear(float *y, const float *x, const float *W, const float *b,
                             int n_tokens, int d_in, int d_out, llm_threads *th);
/* The same with W in any llm_weight format (converted or dequantized on the fly). */
LLMDEF llm_status llm_linear_w(float *y, const float *x, const llm_weight *W, const float *b,
                               int n_tokens, int d_in, int d_out, llm_threads *th);
/* C[M][N] = A[M][K] B[K][N], all row-major. */
LLMDEF llm_status llm_matmul(float *C, const float *A, const float *B, int M, int K, int N, llm_threads *th);

/* Symmetric 8-bit groups: q = round(x / s), s = max|x| / 127 per group of group_size
   consecutive values (n a multiple of group_size). */
LLMDEF llm_status llm_quantize_int8(int8_t *q, float *scale, const float *x, int64_t n, int group_size);
LLMDEF llm_status llm_dequantize_int8(float *x, const int8_t *q, const float *scale, int64_t n, int group_size);

/* Row kernels: one row of n values; out may equal x (in place). */
LLMDEF llm_status llm_rmsnorm(float *out, const float *x, const float *w, int n, float eps);
LLMDEF llm_status llm_layernorm(float *out, const float *x, const float *w, const float *b, int n, float eps);
LLMDEF llm_status llm_silu(float *out, const float *x, int n);
LLMDEF llm_status llm_gelu(float *out, const float *x, int n);     /* tanh approximation (GPT-2) */
LLMDEF llm_status llm_gelu_erf(float *out, const float *x, int n); /* exact, with erf */
LLMDEF llm_status llm_swiglu(float *out, const float *gate, const float *up, int n); /* silu(gate) * up */
LLMDEF llm_status llm_add(float *out, const float *a, const float *b, int n);      /* residual add */
LLMDEF llm_status llm_softmax(float *out, const float *x, int n);
LLMDEF int llm_argmax(const float *x, int n); /* index of the first maximum; -1 for bad arguments */

/* ======================================================================================
   >>rope
   ====================================================================================== */

/* cos/sin of every (position, pair) angle, so applying RoPE is multiplies only. */
typedef struct llm_rope {
    int head_dim, rotary_dim, max_pos;
    llm_rope_layout layout;
    float *cos, *sin; /* [max_pos][rotary_dim / 2] */
    void *owned;      /* set by llm_rope_create */
} llm_rope;

/* RoPE (Su et al. 2021, RoFormer): pair i of a head, (x_a, x_b), is rotated by the angle
   pos * theta_i with theta_i = base^(-2i / rotary_dim), i = 0 .. rotary_dim/2 - 1:
       x_a' = x_a cos - x_b sin,   x_b' = x_a sin + x_b cos
   so q_m . k_n depends on m - n only. Which dimensions form a pair is the layout:
       LLM_ROPE_INTERLEAVED  (a, b) = (2i, 2i + 1)             RoFormer, Meta, llama2.c, GGUF
       LLM_ROPE_HALVES       (a, b) = (i, i + rotary_dim / 2)  Hugging Face, GPT-NeoX
   Dimensions rotary_dim .. head_dim - 1 pass through unchanged (partial rotary).
   Angles are computed in double, so positions of 100k+ keep full float accuracy.

   llm_rope_bytes: bytes of the tables for max_pos positions (enough for any rotary_dim
   <= head_dim); 0 for head_dim odd or <= 0, max_pos <= 0, or overflow. mem: aligned for
   float. theta <= 0 means 10000. */
LLMDEF size_t llm_rope_bytes(int head_dim, int max_pos);
LLMDEF llm_status llm_rope_init(llm_rope *r, void *mem, int head_dim, int max_pos, float theta,
                                llm_rope_layout layout);
/* From a config: head_dim (0 = d_model / n_heads), rotary_dim (0 = head_dim), rope_theta
   (0 = 10000), rope_layout, and Llama 3.1 frequency scaling when rope_scale > 0
   (rope_low_freq_factor 0 = 1, rope_high_freq_factor 0 = 4, rope_orig_ctx 0 = 8192).
   mem holds llm_rope_bytes(head_dim, max_pos). */
LLMDEF llm_status llm_rope_init_config(llm_rope *r, void *mem, const llm_config *c, int max_pos);
LLMDEF llm_status llm_rope_create(llm_rope *r, const llm_config *c, int max_pos);
LLMDEF void llm_rope_free(llm_rope *r);
/* Rotate one token's heads x[n_heads][head_dim] at position pos, in place. Positions
   outside 0..max_pos-1 are LLM_ERANGE (nothing is changed). */
LLMDEF llm_status llm_rope_apply(const llm_rope *r, float *x, int n_heads, int pos);
/* n_tokens tokens x[n_tokens][n_heads][head_dim] at positions pos, pos+1, ... */
LLMDEF llm_status llm_rope_apply_tokens(const llm_rope *r, float *x, int n_tokens, int n_heads, int pos);

/* ======================================================================================
   >>attention
   ====================================================================================== */

/* Causal attention. q, out: [n_q][n_heads][head_dim]; k, v: [n_kv_heads][kv_stride][head_dim]
   (each KV head's keys contiguous: one layer of the KV cache, kv_stride = its capacity).
   The queries are the last n_q of the n_kv positions. Query head h reads KV head
   h / (n_heads / n_kv_heads): MHA, GQA and MQA in one. Never builds the T x T matrix. */
LLMDEF llm_status llm_attention(float *out, const float *q, const float *k, const float *v,
                                int n_q, int n_kv, int kv_stride, int n_heads, int n_kv_heads, int head_dim,
                                llm_threads *th);
/* The general form behind both. k, v hold dtype elements (LLM_F32, LLM_F16, or LLM_INT8
   with one fp32 scale per row in k_scale / v_scale [n_kv_heads][kv_stride]; NULL for the
   others). window > 0 lets each query see only the last `window` positions, itself
   included (Mistral's sliding window); 0 = all. tile = keys per tile, 1..LLM_ATTN_TILE,
   0 = LLM_ATTN_TILE (the tests use sizes that don't divide T). out may equal q.
   Errors: LLM_EINVAL for NULL pointers, non-positive sizes, n_q > n_kv, n_kv > kv_stride,
   n_heads not a multiple of n_kv_heads, a bad window or tile; LLM_EUNSUPPORTED for
   head_dim > LLM_ATTN_MAX_HEAD_DIM or another dtype.
   Memory: nothing is allocated; each thread works in a fixed stack frame of
   llm_attention_stack_bytes() (about 140 KiB with the defaults), whatever T is. */
#ifndef LLM_ATTN_MAX_HEAD_DIM
#define LLM_ATTN_MAX_HEAD_DIM 256 /* largest head_dim attention accepts (sizes its stack tiles) */
#endif
#define LLM_ATTN_TILE 64 /* keys per tile */
LLMDEF llm_status llm_attention_ex(float *out, const float *q, const void *k, const void *v,
                                   const float *k_scale, const float *v_scale, llm_dtype dtype,
                                   int n_q, int n_kv, int kv_stride, int n_heads, int n_kv_heads,
                                   int head_dim, int window, int tile, llm_threads *th);
/* Bytes of working memory one attention thread uses (its stack frame's tiles): a constant. */
LLMDEF size_t llm_attention_stack_bytes(void);

/* The KV cache: per layer, K and V as [n_kv_heads][capacity][head_dim] (head-major; see
   DESIGN.md: token-major ran 3-4x slower at T >= 2048). */
typedef struct llm_kv_cache {
    int n_layers, n_kv_heads, head_dim, capacity;
    llm_dtype dtype;          /* LLM_F32, LLM_F16, or LLM_INT8 (one fp32 scale per row) */
    int len;                  /* positions 0..len-1 hold valid keys and values */
    void *k, *v;              /* [n_layers][n_kv_heads][capacity][head_dim] of dtype */
    float *k_scale, *v_scale; /* LLM_INT8: [n_layers][n_kv_heads][capacity] */
    void *owned;              /* set by llm_kv_cache_create */
} llm_kv_cache;

/* Bytes of K and V for seq_len positions and batch sequences: the estimator's
   2 * L * n_kv_heads * head_dim * seq_len * batch * bytes(dtype), exactly, plus for the
   integer formats (LLM_INT8, LLM_INT4) one fp32 scale per row: 2 * L * n_kv_heads *
   seq_len * batch * 4. In f16: Llama 2 7B 524,288 B per token, Llama 3 8B 131,072 B.
   head_dim 0 means d_model / n_heads; n_kv_heads 0 means n_heads. Returns 0 for invalid
   input (NULL, non-positive sizes, heads not dividing, unknown dtype, overflow).
   llm_kv_cache_init needs llm_kv_cache_bytes(c, capacity, 1, dtype) bytes at mem, aligned
   for float; the cache itself stores LLM_F32, LLM_F16 or LLM_INT8 (else LLM_EUNSUPPORTED). */
LLMDEF uint64_t llm_kv_cache_bytes(const llm_config *c, int64_t seq_len, int64_t batch, llm_dtype dtype);
LLMDEF llm_status llm_kv_cache_init(llm_kv_cache *kv, void *mem, const llm_config *c, int capacity, llm_dtype dtype);
LLMDEF llm_status llm_kv_cache_create(llm_kv_cache *kv, const llm_config *c, int capacity, llm_dtype dtype);
LLMDEF void llm_kv_cache_free(llm_kv_cache *kv);
/* Store one layer's K and V rows, k, v: [n_tokens][n_kv_heads][head_dim], at positions
   pos..pos+n_tokens-1; len becomes max(len, pos + n_tokens). Appending is pos = len.
   LLM_EFULL past capacity and LLM_ERANGE for pos > len (a hole): nothing written. */
LLMDEF llm_status llm_kv_cache_write(llm_kv_cache *kv, int layer, int pos, const float *k, const float *v,
                                     int n_tokens);
LLMDEF llm_status llm_kv_cache_truncate(llm_kv_cache *kv, int len); /* rewind, e.g. for a new prompt */
LLMDEF void llm_kv_cache_reset(llm_kv_cache *kv);                   /* len = 0 */
/* Causal attention of n_q queries at positions pos..pos+n_q-1 over positions 0..pos+n_q-1
   of one layer of the cache, in whatever dtype it stores; window > 0 limits each query
   to the last `window` positions (Mistral's sliding window). */
LLMDEF llm_status llm_attention_cache(float *out, const float *q, const llm_kv_cache *kv, int layer, int n_q,
                                      int pos, int n_heads, int window, llm_threads *th);

/* ======================================================================================
   >>model
   ====================================================================================== */

/* ======================================================================================
   >>files
   ====================================================================================== */

#ifdef __cplusplus
}
#endif
#endif /* LLM_H */

/* ######################################################################################
   IMPLEMENTATION
   ###################################################################################### */
#if defined(LLM_IMPLEMENTATION) && !defined(LLM__IMPLEMENTED)
#define LLM__IMPLEMENTED

#include <math.h>
#include <string.h>
#include <float.h>
#include <limits.h>
#ifndef LLM_NO_STDIO
#include <stdio.h>
#endif

#ifndef LLM_ASSERT
#include <assert.h>
#define LLM_ASSERT(x) assert(x)
#endif

#if defined(LLM_MALLOC) != defined(LLM_FREE)
#error "llm.h: define both LLM_MALLOC and LLM_FREE, or neither"
#endif
#ifndef LLM_MALLOC
#include <stdlib.h>
#define LLM_MALLOC(n) malloc(n)
#define LLM_FREE(p) free(p)
#endif

#ifndef LLM_SQRTF
#define LLM_SQRTF(x) sqrtf(x)
#endif
#ifndef LLM_EXPF
#define LLM_EXPF(x) expf(x)
#endif
#ifndef LLM_LOGF
#define LLM_LOGF(x) logf(x)
#endif
#ifndef LLM_TANHF
#define LLM_TANHF(x) tanhf(x)
#endif
#ifndef LLM_ERFF
#define LLM_ERFF(x) erff(x)
#endif
#ifndef LLM_POW
#define LLM_POW(x, y) pow(x, y)
#endif
#ifndef LLM_COS
#define LLM_COS(x) cos(x)
#endif
#ifndef LLM_SIN
#define LLM_SIN(x) sin(x)
#endif

/* SIMD is chosen at compile time from the compiler's own macros. */
#if !defined(LLM_NO_SIMD) && defined(__AVX512F__)
#define LLM__AVX512 1
#include <immintrin.h>
#elif !defined(LLM_NO_SIMD) && defined(__AVX2__) && defined(__FMA__)
#define LLM__AVX2 1
#include <immintrin.h>
#elif !defined(LLM_NO_SIMD) && (defined(__ARM_NEON) || defined(__ARM_NEON__)) && defined(__aarch64__)
#define LLM__NEON 1
#include <arm_neon.h>
#endif

#ifdef LLM_PTHREADS
#include <pthread.h>
#endif

/* ======================================================================================
   >>basics implementation
   ====================================================================================== */

LLMDEF const char *llm_status_str(llm_status s) {
    static const char *const names[] = {
#define LLM__STATUS_STR(name, text) #name ": " text,
        LLM__STATUS_LIST(LLM__STATUS_STR)
#undef LLM__STATUS_STR
    };
    if ((int)s < 0 || (int)s >= (int)LLM_STATUS_COUNT) return "unknown llm_status";
    return names[s];
}

LLMDEF const char *llm_version(void) { return "0.1.0"; }

static const struct {
    const char *name;
    double bits;
} llm__dtypes[LLM_DTYPE_COUNT] = {
    {"f32", 32}, {"f16", 16}, {"bf16", 16}, {"int8", 8}, {"int4", 4}, {"q8_32", 8.5}, {"q4_32", 4.5},
};

LLMDEF double llm_dtype_bits(llm_dtype t) {
    return ((int)t >= 0 && (int)t < (int)LLM_DTYPE_COUNT) ? llm__dtypes[t].bits : 0.0;
}
LLMDEF double llm_dtype_bytes(llm_dtype t) { return llm_dtype_bits(t) / 8.0; }
LLMDEF const char *llm_dtype_name(llm_dtype t) {
    return ((int)t >= 0 && (int)t < (int)LLM_DTYPE_COUNT) ? llm__dtypes[t].name : "unknown";
}
LLMDEF llm_status llm_dtype_parse(const char *name, llm_dtype *out) {
    int i;
    if (!name || !out) return LLM_EINVAL;
    for (i = 0; i < (int)LLM_DTYPE_COUNT; i++)
        if (strcmp(name, llm__dtypes[i].name) == 0) {
            *out = (llm_dtype)i;
            return LLM_OK;
        }
    return LLM_ENOTFOUND;
}

/* IEEE half: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Done with integer
   arithmetic so the result never depends on the FPU's rounding mode. */
LLMDEF uint16_t llm_f32_to_f16(float f) {
    uint32_t x, sign, mant;
    int32_t exp;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (int32_t)((x >> 23) & 0xff);
    mant = x & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0)); /* inf / nan */
    exp = exp - 127 + 15;
    if (exp >= 31) return (uint16_t)(sign | 0x7c00u); /* overflow -> inf */
    if (exp <= 0) {                                    /* subnormal half or zero */
        uint32_t shift, half, rem, r;
        if (exp < -10) return (uint16_t)sign;
        mant |= 0x800000u;
        shift = (uint32_t)(14 - exp);
        r = mant >> shift;
        rem = mant & ((1u << shift) - 1);
        half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    {
        uint32_t r = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) r++; /* may carry into inf: correct */
        return (uint16_t)(sign | r);
    }
}

LLMDEF float llm_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu, x;
    float f;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                exp--;
            }
            x = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    memcpy(&f, &x, 4);
    return f;
}

/* bf16 is the top half of an fp32: round the dropped 16 bits to nearest even. */
LLMDEF uint16_t llm_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}
LLMDEF float llm_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- thread pool -------------------------------------------------------------------- */
#ifndef LLM_PTHREADS
struct llm_threads {
    int n;
};
LLMDEF llm_status llm_threads_create(llm_threads **out, int n_threads) {
    llm_threads *th;
    if (!out) return LLM_EINVAL;
    *out = NULL;
    if (n_threads < 1) return LLM_EINVAL;
    if (n_threads > 1) return LLM_EUNSUPPORTED; /* build with LLM_PTHREADS for more */
    th = (llm_threads *)LLM_MALLOC(sizeof *th);
    if (!th) return LLM_ENOMEM;
    th->n = 1;
    *out = th;
    return LLM_OK;
}
LLMDEF void llm_threads_free(llm_threads *th) {
    if (th) LLM_FREE(th);
}
LLMDEF int llm_threads_count(const llm_threads *th) { return th ? th->n : 1; }
LLMDEF void llm_threads_run(llm_threads *th, llm_task_fn fn, void *ctx) {
    (void)th;
    if (fn) fn(ctx, 0, 1);
}
#else /* LLM_PTHREADS */
/* Workers sleep on a condition variable between jobs; a job is announced by bumping
   `gen`. Both sides first spin briefly on the counters (gcc/clang atomics), because in a
   decode step jobs arrive every few microseconds and a futex wake costs about as much. */
#if defined(__GNUC__) || defined(__clang__)
#define LLM__LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define LLM__STORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define LLM__SPINS 20000
#else
#define LLM__LOAD(p) (*(p))
#define LLM__STORE(p, v) (*(p) = (v))
#define LLM__SPINS 0
#endif
#if defined(__x86_64__) || defined(__i386__)
#define LLM__PAUSE() __asm__ __volatile__("pause")
#else
#define LLM__PAUSE() ((void)0)
#endif

typedef struct llm__worker {
    llm_threads *pool;
    int ith;
} llm__worker;

struct llm_threads {
    int n, started, quit;
    unsigned gen;    /* job counter: a change means "new job" */
    int pending;     /* workers still running the current job */
    llm_task_fn fn;
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    pthread_t *tid;  /* n - 1 workers; the caller is ith 0 */
    llm__worker *args;
};

static void *llm__worker_main(void *arg) {
    llm__worker *w = (llm__worker *)arg;
    llm_threads *p = w->pool;
    unsigned seen = 0;
    for (;;) {
        llm_task_fn fn;
        void *ctx;
        int i;
        for (i = 0; i < LLM__SPINS && LLM__LOAD(&p->gen) == seen && !LLM__LOAD(&p->quit); i++) LLM__PAUSE();
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->gen;
        fn = p->fn;
        ctx = p->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, w->ith, p->n);
        pthread_mutex_lock(&p->mu);
        LLM__STORE(&p->pending, p->pending - 1);
        if (p->pending == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

LLMDEF void llm_threads_free(llm_threads *th) {
    int i;
    if (!th) return;
    pthread_mutex_lock(&th->mu);
    LLM__STORE(&th->quit, 1);
    pthread_cond_broadcast(&th->wake);
    pthread_mutex_unlock(&th->mu);
    for (i = 0; i < th->started; i++) pthread_join(th->tid[i], NULL);
    pthread_cond_destroy(&th->wake);
    pthread_cond_destroy(&th->done);
    pthread_mutex_destroy(&th->mu);
    LLM_FREE(th);
}

LLMDEF llm_status llm_threads_create(llm_threads **out, int n_threads) {
    llm_threads *th;
    size_t bytes;
    int i;
    if (!out) return LLM_EINVAL;
    *out = NULL;
    if (n_threads < 1 || n_threads > 1024) return LLM_EINVAL;
    /* one allocation: the pool, then the thread ids, then the worker arguments */
    bytes = sizeof *th + (size_t)n_threads * (sizeof(pthread_t) + sizeof(llm__worker));
    th = (llm_threads *)LLM_MALLOC(bytes);
    if (!th) return LLM_ENOMEM;
    memset(th, 0, sizeof *th);
    th->n = n_threads;
    th->tid = (pthread_t *)(void *)(th + 1);
    th->args = (llm__worker *)(void *)(th->tid + n_threads);
    pthread_mutex_init(&th->mu, NULL);
    pthread_cond_init(&th->wake, NULL);
    pthread_cond_init(&th->done, NULL);
    for (i = 1; i < n_threads; i++) {
        th->args[i].pool = th;
        th->args[i].ith = i;
        if (pthread_create(&th->tid[th->started], NULL, llm__worker_main, &th->args[i]) != 0) {
            llm_threads_free(th);
            return LLM_ENOMEM;
        }
        th->started++;
    }
    *out = th;
    return LLM_OK;
}

LLMDEF int llm_threads_count(const llm_threads *th) { return th ? th->n : 1; }

LLMDEF void llm_threads_run(llm_threads *th, llm_task_fn fn, void *ctx) {
    int i;
    if (!fn) return;
    if (!th || th->n == 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_mutex_lock(&th->mu);
    th->fn = fn;
    th->ctx = ctx;
    th->pending = th->n - 1;
    LLM__STORE(&th->gen, th->gen + 1);
    pthread_cond_broadcast(&th->wake);
    pthread_mutex_unlock(&th->mu);
    fn(ctx, 0, th->n);
    for (i = 0; i < LLM__SPINS && LLM__LOAD(&th->pending) != 0; i++) LLM__PAUSE();
    pthread_mutex_lock(&th->mu);
    while (th->pending != 0) pthread_cond_wait(&th->done, &th->mu);
    pthread_mutex_unlock(&th->mu);
}
#endif /* LLM_PTHREADS */

/* ======================================================================================
   >>config implementation
   ====================================================================================== */

/* ======================================================================================
   >>estimate implementation
   ====================================================================================== */

/* ======================================================================================
   >>kernels implementation
   ====================================================================================== */

/* ======================================================================================
   >>rope implementation
   ====================================================================================== */

LLMDEF size_t llm_rope_bytes(int head_dim, int max_pos) {
    if (head_dim <= 0 || (head_dim & 1) || max_pos <= 0) return 0;
    /* cos and sin: 2 * max_pos * head_dim/2 floats */
    if ((size_t)max_pos > ((size_t)-1) / ((size_t)head_dim * sizeof(float))) return 0;
    return (size_t)max_pos * (size_t)head_dim * sizeof(float);
}

/* Fill the tables. scale > 0 applies Llama 3.1's frequency scaling (Meta's
   apply_scaling): wavelengths shorter than orig_ctx / high are kept, longer than
   orig_ctx / low are divided by scale, and the band between is interpolated smoothly. */
static llm_status llm__rope_fill(llm_rope *r, void *mem, int head_dim, int rotary_dim, int max_pos,
                                 double theta, llm_rope_layout layout, double scale, double low,
                                 double high, double orig_ctx) {
    int half, i, p;
    if (!r || !mem) return LLM_EINVAL;
    if (llm_rope_bytes(head_dim, max_pos) == 0) return LLM_EINVAL;
    if (rotary_dim <= 0 || (rotary_dim & 1) || rotary_dim > head_dim) return LLM_EINVAL;
    if (layout != LLM_ROPE_INTERLEAVED && layout != LLM_ROPE_HALVES) return LLM_EINVAL;
    if (((uintptr_t)mem) % sizeof(float)) return LLM_EINVAL;
    if (!(theta > 0)) theta = 10000.0;
    if (scale > 0 && !(high > low && low > 0 && orig_ctx > 0)) return LLM_EINVAL;
    half = rotary_dim / 2;
    r->head_dim = head_dim;
    r->rotary_dim = rotary_dim;
    r->max_pos = max_pos;
    r->layout = layout;
    r->cos = (float *)mem;
    r->sin = r->cos + (size_t)max_pos * (size_t)half;
    r->owned = NULL;
    for (i = 0; i < half; i++) {
        /* theta_i = base^(-2i/d): pair 0 turns by 1 radian per token, the last pair slowest */
        double freq = LLM_POW(theta, -2.0 * i / rotary_dim);
        if (scale > 0) {
            double wavelen = 2.0 * 3.14159265358979323846 / freq;
            if (wavelen > orig_ctx / low) {
                freq /= scale;
            } else if (wavelen >= orig_ctx / high) {
                double smooth = (orig_ctx / wavelen - low) / (high - low);
                freq = (1.0 - smooth) * freq / scale + smooth * freq;
            }
        }
        for (p = 0; p < max_pos; p++) {
            double a = (double)p * freq; /* in double: p * freq reaches 1e5 radians and more */
            r->cos[(size_t)p * half + i] = (float)LLM_COS(a);
            r->sin[(size_t)p * half + i] = (float)LLM_SIN(a);
        }
    }
    return LLM_OK;
}

LLMDEF llm_status llm_rope_init(llm_rope *r, void *mem, int head_dim, int max_pos, float theta,
                                llm_rope_layout layout) {
    return llm__rope_fill(r, mem, head_dim, head_dim, max_pos, theta, layout, 0, 0, 0, 0);
}

/* head_dim of a config: explicit, or d_model / n_heads (which must divide). 0 if invalid. */
static int llm__att_head_dim(const llm_config *c) {
    if (!c || c->n_heads <= 0) return 0;
    if (c->head_dim > 0) return c->head_dim;
    if (c->head_dim < 0 || c->d_model <= 0 || c->d_model % c->n_heads) return 0;
    return c->d_model / c->n_heads;
}

LLMDEF llm_status llm_rope_init_config(llm_rope *r, void *mem, const llm_config *c, int max_pos) {
    int hd = llm__att_head_dim(c);
    if (!c || hd <= 0 || c->rotary_dim < 0) return LLM_EINVAL;
    return llm__rope_fill(r, mem, hd, c->rotary_dim ? c->rotary_dim : hd, max_pos, c->rope_theta,
                          c->rope_layout, c->rope_scale,
                          c->rope_low_freq_factor > 0 ? c->rope_low_freq_factor : 1.0,
                          c->rope_high_freq_factor > 0 ? c->rope_high_freq_factor : 4.0,
                          c->rope_orig_ctx > 0 ? c->rope_orig_ctx : 8192.0);
}

LLMDEF llm_status llm_rope_create(llm_rope *r, const llm_config *c, int max_pos) {
    size_t bytes;
    void *mem;
    llm_status st;
    if (!r) return LLM_EINVAL;
    memset(r, 0, sizeof *r);
    bytes = llm_rope_bytes(llm__att_head_dim(c), max_pos);
    if (!bytes) return LLM_EINVAL;
    mem = LLM_MALLOC(bytes);
    if (!mem) return LLM_ENOMEM;
    st = llm_rope_init_config(r, mem, c, max_pos);
    if (st != LLM_OK) {
        LLM_FREE(mem);
        memset(r, 0, sizeof *r);
        return st;
    }
    r->owned = mem;
    return LLM_OK;
}

LLMDEF void llm_rope_free(llm_rope *r) {
    if (!r) return;
    if (r->owned) LLM_FREE(r->owned);
    memset(r, 0, sizeof *r);
}

/* Rotate n_tokens tokens of n_heads heads, token t at position pos + t. */
LLMDEF llm_status llm_rope_apply_tokens(const llm_rope *r, float *x, int n_tokens, int n_heads, int pos) {
    int t, h, i, half, hd;
    if (!r || !x || !r->cos || n_tokens <= 0 || n_heads <= 0) return LLM_EINVAL;
    if (pos < 0 || pos > r->max_pos - n_tokens) return LLM_ERANGE; /* past the table */
    half = r->rotary_dim / 2;
    hd = r->head_dim;
    for (t = 0; t < n_tokens; t++) {
        const float *cs = r->cos + (size_t)(pos + t) * half, *sn = r->sin + (size_t)(pos + t) * half;
        for (h = 0; h < n_heads; h++) {
            float *xh = x + ((size_t)t * n_heads + h) * hd;
            /* the pair (a, b) of frequency i is (2i, 2i+1) or (i, i + half) */
            float *a = xh, *b = xh + (r->layout == LLM_ROPE_INTERLEAVED ? 1 : half);
            int step = r->layout == LLM_ROPE_INTERLEAVED ? 2 : 1;
            for (i = 0; i < half; i++) {
                float xa = a[i * step], xb = b[i * step];
                a[i * step] = xa * cs[i] - xb * sn[i];
                b[i * step] = xa * sn[i] + xb * cs[i];
            }
        }
    }
    return LLM_OK;
}

LLMDEF llm_status llm_rope_apply(const llm_rope *r, float *x, int n_heads, int pos) {
    return llm_rope_apply_tokens(r, x, 1, n_heads, pos);
}

/* ======================================================================================
   >>attention implementation
   ====================================================================================== */

/* gcc 12 as C++ warns inside its own AVX-512 headers (_mm512_undefined_ps "may be used
   uninitialized", GCC bug 105593); the warning is false, so it is silenced here only. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* ---- the KV cache ------------------------------------------------------------------- */

/* Layers, KV heads and head_dim of a config, minimally validated. */
static llm_status llm__kv_dims(const llm_config *c, int *L, int *hkv, int *hd) {
    int nkv;
    if (!c || c->n_layers <= 0 || c->n_heads <= 0 || c->n_kv_heads < 0) return LLM_EINVAL;
    nkv = c->n_kv_heads ? c->n_kv_heads : c->n_heads;
    if (c->n_heads % nkv) return LLM_EINVAL;
    *hd = llm__att_head_dim(c);
    if (*hd <= 0) return LLM_EINVAL;
    *L = c->n_layers;
    *hkv = nkv;
    return LLM_OK;
}

LLMDEF uint64_t llm_kv_cache_bytes(const llm_config *c, int64_t seq_len, int64_t batch, llm_dtype dtype) {
    int L, hkv, hd;
    uint64_t rows, elems, half_bits, bytes, scales = 0;
    double bits = llm_dtype_bits(dtype);
    if (llm__kv_dims(c, &L, &hkv, &hd) != LLM_OK || seq_len <= 0 || batch <= 0 || bits <= 0) return 0;
    /* rows of head_dim values: K and V, per layer, per KV head, per position, per sequence */
    rows = 2u * (uint64_t)L * (uint64_t)hkv; /* < 2^63 */
    if ((uint64_t)seq_len > UINT64_MAX / rows) return 0;
    rows *= (uint64_t)seq_len;
    if ((uint64_t)batch > UINT64_MAX / rows) return 0;
    rows *= (uint64_t)batch;
    if (rows > UINT64_MAX / 17 / (uint64_t)hd) return 0;
    elems = rows * (uint64_t)hd;
    half_bits = (uint64_t)(bits * 2 + 0.5); /* 64, 32, 32, 16, 8, 17, 9: integers */
    bytes = (elems * half_bits + 15) / 16;
    if (dtype == LLM_INT8 || dtype == LLM_INT4) { /* one fp32 scale per row */
        if (rows > UINT64_MAX / 4) return 0;
        scales = rows * 4;
        if (bytes > UINT64_MAX - scales) return 0;
    }
    return bytes + scales;
}

static size_t llm__kv_esize(llm_dtype t) { return t == LLM_F32 ? 4 : t == LLM_F16 ? 2 : 1; }

/* Memory: [k_scale][v_scale] (LLM_INT8 only, floats first so they stay aligned), then K, V. */
LLMDEF llm_status llm_kv_cache_init(llm_kv_cache *kv, void *mem, const llm_config *c, int capacity, llm_dtype dtype) {
    int L, hkv, hd;
    uint64_t bytes;
    size_t rows;
    char *p = (char *)mem;
    if (!kv) return LLM_EINVAL;
    memset(kv, 0, sizeof *kv);
    if (!mem || capacity <= 0 || llm__kv_dims(c, &L, &hkv, &hd) != LLM_OK) return LLM_EINVAL;
    if (dtype != LLM_F32 && dtype != LLM_F16 && dtype != LLM_INT8) return LLM_EUNSUPPORTED;
    if (((uintptr_t)mem) % sizeof(float)) return LLM_EINVAL;
    bytes = llm_kv_cache_bytes(c, capacity, 1, dtype);
    if (bytes == 0 || bytes > (uint64_t)((size_t)-1)) return LLM_ENOMEM; /* too big for this address space */
    rows = (size_t)L * (size_t)hkv * (size_t)capacity; /* per K (or V) */
    kv->n_layers = L;
    kv->n_kv_heads = hkv;
    kv->head_dim = hd;
    kv->capacity = capacity;
    kv->dtype = dtype;
    kv->len = 0;
    if (dtype == LLM_INT8) {
        kv->k_scale = (float *)(void *)p;
        kv->v_scale = kv->k_scale + rows;
        p += 2 * rows * sizeof(float);
    }
    kv->k = p;
    kv->v = p + rows * (size_t)hd * llm__kv_esize(dtype);
    return LLM_OK;
}

LLMDEF llm_status llm_kv_cache_create(llm_kv_cache *kv, const llm_config *c, int capacity, llm_dtype dtype) {
    uint64_t bytes;
    char *raw;
    llm_status st;
    if (!kv) return LLM_EINVAL;
    memset(kv, 0, sizeof *kv);
    if (dtype != LLM_F32 && dtype != LLM_F16 && dtype != LLM_INT8) return LLM_EUNSUPPORTED;
    bytes = llm_kv_cache_bytes(c, capacity, 1, dtype);
    if (bytes == 0) return LLM_EINVAL;
    if (bytes > (uint64_t)((size_t)-1) - 64) return LLM_ENOMEM;
    raw = (char *)LLM_MALLOC((size_t)bytes + 64);
    if (!raw) return LLM_ENOMEM;
    /* start on a cache line, so the rows attention streams do too */
    st = llm_kv_cache_init(kv, raw + (64 - ((uintptr_t)raw & 63)) % 64, c, capacity, dtype);
    if (st != LLM_OK) {
        LLM_FREE(raw);
        memset(kv, 0, sizeof *kv);
        return st;
    }
    kv->owned = raw;
    return LLM_OK;
}

LLMDEF void llm_kv_cache_free(llm_kv_cache *kv) {
    if (!kv) return;
    if (kv->owned) LLM_FREE(kv->owned);
    memset(kv, 0, sizeof *kv);
}

/* Store one row of head_dim values as row number `row` of a K or V array. LLM_INT8:
   symmetric, scale = max|x| / 127, values rounded to nearest (error <= scale / 2). */
static void llm__kv_put(void *base, float *scales, llm_dtype t, size_t row, int hd, const float *x) {
    int d;
    if (t == LLM_F32) {
        memcpy((float *)base + row * hd, x, (size_t)hd * sizeof(float));
    } else if (t == LLM_F16) {
        uint16_t *dst = (uint16_t *)base + row * hd;
        for (d = 0; d < hd; d++) dst[d] = llm_f32_to_f16(x[d]);
    } else {
        int8_t *dst = (int8_t *)base + row * hd;
        float amax = 0, inv;
        for (d = 0; d < hd; d++)
            if (fabsf(x[d]) > amax) amax = fabsf(x[d]);
        scales[row] = amax / 127.0f;
        inv = amax > 0 ? 127.0f / amax : 0.0f;
        for (d = 0; d < hd; d++) {
            float v = x[d] * inv;
            if (v != v) v = 0; /* NaN (or inf * 0): never cast NaN to an integer */
            v = v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v;
            dst[d] = (int8_t)(v >= 0 ? (int)(v + 0.5f) : -(int)(-v + 0.5f));
        }
    }
}

LLMDEF llm_status llm_kv_cache_write(llm_kv_cache *kv, int layer, int pos, const float *k, const float *v,
                                     int n_tokens) {
    int t, h, hkv;
    if (!kv || !kv->k || !kv->v || !k || !v || layer < 0 || layer >= kv->n_layers || n_tokens <= 0)
        return LLM_EINVAL;
    if (pos < 0 || pos > kv->len) return LLM_ERANGE;              /* would leave a hole */
    if (n_tokens > kv->capacity - pos) return LLM_EFULL;          /* checked before writing anything */
    hkv = kv->n_kv_heads;
    for (t = 0; t < n_tokens; t++)
        for (h = 0; h < hkv; h++) {
            /* [n_tokens][n_kv_heads][hd] in, [layer][kv head][position][hd] out */
            size_t row = ((size_t)layer * hkv + h) * (size_t)kv->capacity + (size_t)(pos + t);
            size_t src = ((size_t)t * hkv + h) * (size_t)kv->head_dim;
            llm__kv_put(kv->k, kv->k_scale, kv->dtype, row, kv->head_dim, k + src);
            llm__kv_put(kv->v, kv->v_scale, kv->dtype, row, kv->head_dim, v + src);
        }
    if (pos + n_tokens > kv->len) kv->len = pos + n_tokens;
    return LLM_OK;
}

LLMDEF llm_status llm_kv_cache_truncate(llm_kv_cache *kv, int len) {
    if (!kv) return LLM_EINVAL;
    if (len < 0 || len > kv->len) return LLM_ERANGE;
    kv->len = len;
    return LLM_OK;
}

LLMDEF void llm_kv_cache_reset(llm_kv_cache *kv) {
    if (kv) kv->len = 0;
}

/* ---- causal attention ----------------------------------------------------------------

   softmax(q K^T / sqrt(d)) V for every query, without the T x T score matrix
   (FlashAttention, Dao et al. 2022, done on a CPU). Keys are visited in tiles of
   LLM_ATTN_TILE; each query keeps a running maximum m, a running sum l and an unnormalised
   output o. For a new tile with scores s_j:
       m' = max(m, max_j s_j),   a = exp(m - m'),
       l' = a l + sum_j exp(s_j - m'),   o' = a o + sum_j exp(s_j - m') v_j
   and at the end out = o / l: exactly softmax, in one pass, in O(tile + head_dim) memory.
   Causality is a loop bound: query at position p reads keys 0..p (window: p-w+1..p), so
   tiles above the diagonal are never visited and the mask is never stored.

   Work is split into units: one KV head, up to LLM__ATT_QB "lanes" (query token, query
   head) that read it. Grouping the heads of a GQA group into one unit means each K/V tile
   is fetched once for all of them (what makes GQA decode cheap). Threads take units
   round-robin; consecutive units are different heads of the same query block, so causal
   cost is shared evenly.

   Two kernels run a unit:
   - rows (the scalar oracle, and SIMD when a unit has few lanes, e.g. decode): for each
     lane, dot products along head_dim, then o += p_j v_j;
   - lanes (SIMD prefill): queries are transposed into vector lanes, Q^T [head_dim][lanes];
     a score tile S^T[key][lanes] is k_j[d] broadcast times Q^T[d] (no horizontal sums),
     the online softmax runs down the lanes, and O^T [head_dim][lanes] += v_j[d] * P^T[j]. */

#if defined(LLM__AVX512)
typedef __m512 llm__att_v;
#define LLM__ATT_W 16
#define llm__att_load(p) _mm512_loadu_ps(p)
#define llm__att_store(p, x) _mm512_storeu_ps(p, x)
#define llm__att_set1(x) _mm512_set1_ps(x)
#define llm__att_fma(a, b, c) _mm512_fmadd_ps(a, b, c) /* a * b + c */
#define llm__att_mul(a, b) _mm512_mul_ps(a, b)
#define llm__att_add(a, b) _mm512_add_ps(a, b)
#define llm__att_max(a, b) _mm512_max_ps(a, b)
#define llm__att_hsum(x) _mm512_reduce_add_ps(x)
#define llm__att_hmax(x) _mm512_reduce_max_ps(x)
/* exp(x) to ~2 ulp: 2^n e^r, n = round(x / ln 2), |r| <= ln2 / 2, Cephes' polynomial;
   below -87.3 (e.g. -inf from a mask) the result is 0 */
static inline __m512 llm__att_exp(__m512 x) {
    __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
    __m512 n, r, p;
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_maskz_mov_ps(keep, _mm512_scalef_ps(p, n));
}
#elif defined(LLM__AVX2)
typedef __m256 llm__att_v;
#define LLM__ATT_W 8
#define llm__att_load(p) _mm256_loadu_ps(p)
#define llm__att_store(p, x) _mm256_storeu_ps(p, x)
#define llm__att_set1(x) _mm256_set1_ps(x)
#define llm__att_fma(a, b, c) _mm256_fmadd_ps(a, b, c)
#define llm__att_mul(a, b) _mm256_mul_ps(a, b)
#define llm__att_add(a, b) _mm256_add_ps(a, b)
#define llm__att_max(a, b) _mm256_max_ps(a, b)
static inline float llm__att_hsum(__m256 x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline __m256 llm__att_exp(__m256 x) {
    __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GE_OQ);
    __m256 n, r, p;
    __m256i e;
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    /* 2^n by building the exponent bits: n is in [-126, 127] after the clamp */
    e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(e)), keep);
}
#elif defined(LLM__NEON)
typedef float32x4_t llm__att_v;
#define LLM__ATT_W 4
#define llm__att_load(p) vld1q_f32(p)
#define llm__att_store(p, x) vst1q_f32(p, x)
#define llm__att_set1(x) vdupq_n_f32(x)
#define llm__att_fma(a, b, c) vfmaq_f32(c, a, b)
#define llm__att_mul(a, b) vmulq_f32(a, b)
#define llm__att_add(a, b) vaddq_f32(a, b)
#define llm__att_max(a, b) vmaxq_f32(a, b)
#define llm__att_hsum(x) vaddvq_f32(x)
static inline float32x4_t llm__att_exp(float32x4_t x) {
    uint32x4_t keep = vcgeq_f32(x, vdupq_n_f32(-87.3f));
    float32x4_t n, r, p;
    int32x4_t e;
    x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.3f)), vdupq_n_f32(88.3f));
    n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504f)));
    r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    p = vdupq_n_f32(1.9875691500e-4f);
    p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
    p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
    p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), vmulq_f32(p, r), r);
    e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    p = vmulq_f32(p, vreinterpretq_f32_s32(e));
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(p), keep));
}
#endif

#ifdef LLM__ATT_W
#define LLM__ATT_QB (2 * LLM__ATT_W) /* lanes per unit: two vectors of queries */
typedef llm__att_v llm__att_blk;      /* buffers of vectors are aligned for them */
#else
#define LLM__ATT_QB 8
#define LLM__ATT_W 1
typedef float llm__att_blk;
#endif
/* K/V rows of an f16 or int8 cache are converted to fp32 a tile at a time into a buffer
   of this many floats (64 keys of 128 dims; the tile shrinks for larger heads). */
#define LLM__ATT_CONV (64 * 128)

/* One thread's working memory: lives on its stack, the same size for any T. */
typedef struct llm__att_work {
    llm__att_blk kbuf[LLM__ATT_CONV / LLM__ATT_W], vbuf[LLM__ATT_CONV / LLM__ATT_W];
    union {
        struct { /* rows kernel: o[lane][hd] */
            llm__att_blk o[LLM__ATT_QB * LLM_ATTN_MAX_HEAD_DIM / LLM__ATT_W];
            float s[LLM_ATTN_TILE];
        } rows;
        struct { /* lanes kernel: Q^T, O^T [hd][lanes], S^T [tile][lanes] */
            llm__att_blk qt[LLM_ATTN_MAX_HEAD_DIM * LLM__ATT_QB / LLM__ATT_W];
            llm__att_blk ot[LLM_ATTN_MAX_HEAD_DIM * LLM__ATT_QB / LLM__ATT_W];
            llm__att_blk st[LLM_ATTN_TILE * LLM__ATT_QB / LLM__ATT_W];
        } lanes;
    } u;
} llm__att_work;

LLMDEF size_t llm_attention_stack_bytes(void) { return sizeof(llm__att_work); }

typedef struct llm__att_job {
    float *out;
    const float *q, *ks, *vs;
    const void *k, *v;
    llm_dtype dtype;
    int n_q, n_kv, kv_stride, n_heads, n_kv_heads, hd, window, tile;
    int group;           /* query heads per KV head */
    int nh, nt;          /* heads and query tokens per unit (nh * nt <= LLM__ATT_QB) */
    int units_h, units_t, n_units;
    int next_unit;       /* the next unit a thread takes */
    float scale;         /* 1 / sqrt(head_dim) */
} llm__att_job;

/* Keys j0..j0+nk-1 of KV head h as fp32 rows: the cache itself when it is fp32, else
   converted into buf. */
static const float *llm__att_fetch(const llm__att_job *J, const void *base, const float *scales, int h, int j0,
                                   int nk, float *buf) {
    size_t row0 = (size_t)h * (size_t)J->kv_stride + (size_t)j0, n = (size_t)nk * (size_t)J->hd, i;
    int j, d;
    if (J->dtype == LLM_F32) return (const float *)base + row0 * J->hd;
    if (J->dtype == LLM_F16) {
        const uint16_t *src = (const uint16_t *)base + row0 * J->hd;
        i = 0;
#if defined(__F16C__) && (defined(LLM__AVX2) || defined(LLM__AVX512))
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(buf + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
#endif
        for (; i < n; i++) buf[i] = llm_f16_to_f32(src[i]);
    } else {
        const int8_t *src = (const int8_t *)base + row0 * J->hd;
        for (j = 0; j < nk; j++) {
            float s = scales[row0 + j];
            for (d = 0; d < J->hd; d++) buf[(size_t)j * J->hd + d] = (float)src[(size_t)j * J->hd + d] * s;
        }
    }
    return buf;
}

/* ---- rows kernel: one query at a time, vectors along head_dim ---- */

static float llm__att_dot(const float *a, const float *b, int n) {
    int i = 0;
    float s = 0;
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
    /* four accumulators hide the FMA latency */
    llm__att_v s0 = llm__att_set1(0), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 4 * LLM__ATT_W <= n; i += 4 * LLM__ATT_W) {
        s0 = llm__att_fma(llm__att_load(a + i), llm__att_load(b + i), s0);
        s1 = llm__att_fma(llm__att_load(a + i + LLM__ATT_W), llm__att_load(b + i + LLM__ATT_W), s1);
        s2 = llm__att_fma(llm__att_load(a + i + 2 * LLM__ATT_W), llm__att_load(b + i + 2 * LLM__ATT_W), s2);
        s3 = llm__att_fma(llm__att_load(a + i + 3 * LLM__ATT_W), llm__att_load(b + i + 3 * LLM__ATT_W), s3);
    }
    for (; i + LLM__ATT_W <= n; i += LLM__ATT_W) s0 = llm__att_fma(llm__att_load(a + i), llm__att_load(b + i), s0);
    s = llm__att_hsum(llm__att_add(llm__att_add(s0, s1), llm__att_add(s2, s3)));
#endif
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

/* s[j] = scale * q . K[j] for nk rows of K; returns max(mx, max_j s[j]). SIMD: four keys
   at a time, two accumulators each, so eight FMA chains share each load of q. */
static float llm__att_scores(float *s, const float *q, const float *K, int nk, int hd, float scale, float mx) {
    int j = 0;
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
    enum { W = LLM__ATT_W };
    if (hd % (2 * W) == 0)
        for (; j + 4 <= nk; j += 4) {
            const float *k0 = K + (size_t)j * hd, *k1 = k0 + hd, *k2 = k1 + hd, *k3 = k2 + hd;
            llm__att_v a0 = llm__att_set1(0), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
            int d, r;
            for (d = 0; d < hd; d += 2 * W) {
                llm__att_v qa = llm__att_load(q + d), qb = llm__att_load(q + d + W);
                a0 = llm__att_fma(qa, llm__att_load(k0 + d), a0);
                a1 = llm__att_fma(qa, llm__att_load(k1 + d), a1);
                a2 = llm__att_fma(qa, llm__att_load(k2 + d), a2);
                a3 = llm__att_fma(qa, llm__att_load(k3 + d), a3);
                b0 = llm__att_fma(qb, llm__att_load(k0 + d + W), b0);
                b1 = llm__att_fma(qb, llm__att_load(k1 + d + W), b1);
                b2 = llm__att_fma(qb, llm__att_load(k2 + d + W), b2);
                b3 = llm__att_fma(qb, llm__att_load(k3 + d + W), b3);
            }
            s[j] = llm__att_hsum(llm__att_add(a0, b0)) * scale;
            s[j + 1] = llm__att_hsum(llm__att_add(a1, b1)) * scale;
            s[j + 2] = llm__att_hsum(llm__att_add(a2, b2)) * scale;
            s[j + 3] = llm__att_hsum(llm__att_add(a3, b3)) * scale;
            for (r = 0; r < 4; r++)
                if (s[j + r] > mx) mx = s[j + r];
        }
#endif
    for (; j < nk; j++) {
        s[j] = llm__att_dot(q, K + (size_t)j * hd, hd) * scale;
        if (s[j] > mx) mx = s[j];
    }
    return mx;
}

/* s[i] = exp(s[i] - m); returns the sum */
static float llm__att_exp_sub(float *s, int n, float m) {
    int i = 0;
    float sum = 0;
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
    llm__att_v vm = llm__att_set1(m), acc = llm__att_set1(0);
    for (; i + LLM__ATT_W <= n; i += LLM__ATT_W) {
        llm__att_v e = llm__att_exp(llm__att_add(llm__att_load(s + i), llm__att_mul(vm, llm__att_set1(-1.0f))));
        llm__att_store(s + i, e);
        acc = llm__att_add(acc, e);
    }
    sum = llm__att_hsum(acc);
#endif
    for (; i < n; i++) {
        s[i] = LLM_EXPF(s[i] - m);
        sum += s[i];
    }
    return sum;
}

/* o[hd] = a * o + sum_j p[j] V[j][:]. SIMD: a chunk of 4 vectors of o is held in
   registers over the rows, with separate accumulators for even and odd rows so that eight
   FMA chains run at once (one chain would wait on the FMA latency every row). */
static void llm__att_pv(float *o, float a, const float *p, const float *V, int nk, int hd) {
    int d = 0, j;
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
    enum { W = LLM__ATT_W };
    llm__att_v va = llm__att_set1(a), zero = llm__att_set1(0);
    for (; d + 4 * W <= hd; d += 4 * W) {
        const float *v0 = V + d;
        llm__att_v e0 = llm__att_mul(llm__att_load(o + d), va), e1 = llm__att_mul(llm__att_load(o + d + W), va);
        llm__att_v e2 = llm__att_mul(llm__att_load(o + d + 2 * W), va), e3 = llm__att_mul(llm__att_load(o + d + 3 * W), va);
        llm__att_v f0 = zero, f1 = zero, f2 = zero, f3 = zero;
        for (j = 0; j + 2 <= nk; j += 2, v0 += 2 * (size_t)hd) {
            llm__att_v pe = llm__att_set1(p[j]), pf = llm__att_set1(p[j + 1]);
            e0 = llm__att_fma(pe, llm__att_load(v0), e0);
            e1 = llm__att_fma(pe, llm__att_load(v0 + W), e1);
            e2 = llm__att_fma(pe, llm__att_load(v0 + 2 * W), e2);
            e3 = llm__att_fma(pe, llm__att_load(v0 + 3 * W), e3);
            f0 = llm__att_fma(pf, llm__att_load(v0 + hd), f0);
            f1 = llm__att_fma(pf, llm__att_load(v0 + hd + W), f1);
            f2 = llm__att_fma(pf, llm__att_load(v0 + hd + 2 * W), f2);
            f3 = llm__att_fma(pf, llm__att_load(v0 + hd + 3 * W), f3);
        }
        if (j < nk) {
            llm__att_v pe = llm__att_set1(p[j]);
            e0 = llm__att_fma(pe, llm__att_load(v0), e0);
            e1 = llm__att_fma(pe, llm__att_load(v0 + W), e1);
            e2 = llm__att_fma(pe, llm__att_load(v0 + 2 * W), e2);
            e3 = llm__att_fma(pe, llm__att_load(v0 + 3 * W), e3);
        }
        llm__att_store(o + d, llm__att_add(e0, f0));
        llm__att_store(o + d + W, llm__att_add(e1, f1));
        llm__att_store(o + d + 2 * W, llm__att_add(e2, f2));
        llm__att_store(o + d + 3 * W, llm__att_add(e3, f3));
    }
    for (; d + W <= hd; d += W) {
        llm__att_v e0 = llm__att_mul(llm__att_load(o + d), va);
        for (j = 0; j < nk; j++) e0 = llm__att_fma(llm__att_set1(p[j]), llm__att_load(V + (size_t)j * hd + d), e0);
        llm__att_store(o + d, e0);
    }
#endif
    for (; d < hd; d++) {
        float acc = o[d] * a;
        for (j = 0; j < nk; j++) acc += p[j] * V[(size_t)j * hd + d];
        o[d] = acc;
    }
}

/* The readable version: n lanes with query pointers qp, output pointers op, positions pos. */
static void llm__att_rows(const llm__att_job *J, int kvh, int n, const float *const *qp, float *const *op,
                          const int *pos, llm__att_work *w) {
    float *o = (float *)w->u.rows.o, *s = w->u.rows.s;
    float m[LLM__ATT_QB], l[LLM__ATT_QB];
    int hd = J->hd, tile = J->tile, lo = pos[0], hi = pos[n - 1], i, j0, d;
    int kstart = J->window > 0 && lo - J->window + 1 > 0 ? lo - J->window + 1 : 0;
    for (i = 0; i < n; i++) {
        m[i] = -INFINITY; /* running max */
        l[i] = 0;         /* running sum of exp(s - m) */
        memset(o + (size_t)i * hd, 0, (size_t)hd * sizeof(float));
    }
    for (j0 = kstart; j0 <= hi; j0 += tile) {
        int nk = hi + 1 - j0 < tile ? hi + 1 - j0 : tile;
        const float *K = llm__att_fetch(J, J->k, J->ks, kvh, j0, nk, (float *)w->kbuf);
        const float *V = llm__att_fetch(J, J->v, J->vs, kvh, j0, nk, (float *)w->vbuf);
        for (i = 0; i < n; i++) {
            /* this lane sees keys js..je-1 of the tile: causal and window bounds */
            int js = J->window > 0 && pos[i] - J->window + 1 > j0 ? pos[i] - J->window + 1 : j0;
            int je = pos[i] + 1 < j0 + nk ? pos[i] + 1 : j0 + nk;
            float mx = m[i], a;
            if (js >= je) continue;
            mx = llm__att_scores(s, qp[i], K + (size_t)(js - j0) * hd, je - js, hd, J->scale, mx);
            a = LLM_EXPF(m[i] - mx); /* rescales what was summed under the old max; 0 at first */
            l[i] = l[i] * a + llm__att_exp_sub(s, je - js, mx);
            llm__att_pv(o + (size_t)i * hd, a, s, V + (size_t)(js - j0) * hd, je - js, hd);
            m[i] = mx;
        }
    }
    for (i = 0; i < n; i++)
        for (d = 0; d < hd; d++) op[i][d] = o[(size_t)i * hd + d] / l[i];
}

#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
/* ---- lanes kernel: 2 * W queries in vector lanes (SIMD prefill) ----
   Both products are register blocks of RB rows x 2 lane vectors, written out with macros
   so the accumulators stay in registers:
     S^T = K Q^T:  RB keys at a time; per step d, 2 vector loads of Q^T[d] and RB
                   broadcasts of k_j[d] feed 2 * RB FMAs;
     O^T += V^T P^T: RB dims at a time; per key j, 2 loads of P^T[j] and RB broadcasts of
                   v_j[d] feed 2 * RB FMAs, the O^T block held over the whole tile.
   RB = 8 (16 accumulators) with 32 vector registers (AVX-512, NEON), 4 with AVX2's 16. */
#if defined(LLM__AVX2)
#define LLM__ATT_RB 4
#define LLM__ATT_ROWS(X) X(0) X(1) X(2) X(3)
#else
#define LLM__ATT_RB 8
#define LLM__ATT_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#endif
#define LLM__ATT_DECL(r) llm__att_v c##r##a = zero, c##r##b = zero;
#define LLM__ATT_QK(r)                                           \
    {                                                            \
        llm__att_v kb = llm__att_set1(kr[(r) * hd + d]);         \
        c##r##a = llm__att_fma(kb, qa, c##r##a);                 \
        c##r##b = llm__att_fma(kb, qb, c##r##b);                 \
    }
#define LLM__ATT_ST(r)                                           \
    llm__att_store(st + (j + (r)) * QB, c##r##a);                \
    llm__att_store(st + (j + (r)) * QB + W, c##r##b);
#define LLM__ATT_OLOAD(r)                                                  \
    llm__att_v c##r##a = llm__att_mul(llm__att_load(ot + (d + (r)) * QB), a0); \
    llm__att_v c##r##b = llm__att_mul(llm__att_load(ot + (d + (r)) * QB + W), a1);
#define LLM__ATT_PV(r)                                           \
    {                                                            \
        llm__att_v vb = llm__att_set1(vr[r]);                    \
        c##r##a = llm__att_fma(vb, pa, c##r##a);                 \
        c##r##b = llm__att_fma(vb, pb, c##r##b);                 \
    }
#define LLM__ATT_OSTORE(r)                                       \
    llm__att_store(ot + (d + (r)) * QB, c##r##a);                \
    llm__att_store(ot + (d + (r)) * QB + W, c##r##b);

static void llm__att_lanes(const llm__att_job *J, int kvh, int n, const float *const *qp, float *const *op,
                           const int *pos, llm__att_work *w) {
    enum { QB = LLM__ATT_QB, W = LLM__ATT_W, RB = LLM__ATT_RB };
    float *qt = (float *)w->u.lanes.qt, *ot = (float *)w->u.lanes.ot, *st = (float *)w->u.lanes.st;
    int hd = J->hd, lo = pos[0], hi = pos[n - 1], i, j, j0, d;
    int kstart = J->window > 0 && lo - J->window + 1 > 0 ? lo - J->window + 1 : 0;
    int tile = J->tile;
    const llm__att_v zero = llm__att_set1(0), minus1 = llm__att_set1(-1.0f);
    llm__att_v m0 = llm__att_set1(-INFINITY), m1 = m0, l0 = zero, l1 = zero;
    float lv[QB];
    /* Q^T with the 1/sqrt(d) folded in; unused lanes are zero and never stored */
    for (d = 0; d < hd; d++)
        for (i = 0; i < QB; i++) qt[d * QB + i] = i < n ? qp[i][d] * J->scale : 0.0f;
    memset(ot, 0, (size_t)hd * QB * sizeof(float));
    for (j0 = kstart; j0 <= hi; j0 += tile) {
        int nk = hi + 1 - j0 < tile ? hi + 1 - j0 : tile;
        const float *K = llm__att_fetch(J, J->k, J->ks, kvh, j0, nk, (float *)w->kbuf);
        const float *V = llm__att_fetch(J, J->v, J->vs, kvh, j0, nk, (float *)w->vbuf);
        llm__att_v a0, a1, mx0 = m0, mx1 = m1, mu0, mu1;
        /* S^T = K Q^T */
        for (j = 0; j + RB <= nk; j += RB) {
            const float *kr = K + (size_t)j * hd;
            LLM__ATT_ROWS(LLM__ATT_DECL)
            for (d = 0; d < hd; d++) {
                llm__att_v qa = llm__att_load(qt + d * QB), qb = llm__att_load(qt + d * QB + W);
                LLM__ATT_ROWS(LLM__ATT_QK)
            }
            LLM__ATT_ROWS(LLM__ATT_ST)
        }
        for (; j < nk; j++) { /* leftover keys, one at a time */
            const float *kr = K + (size_t)j * hd;
            LLM__ATT_DECL(0)
            for (d = 0; d < hd; d++) {
                llm__att_v qa = llm__att_load(qt + d * QB), qb = llm__att_load(qt + d * QB + W);
                LLM__ATT_QK(0)
            }
            llm__att_store(st + j * QB, c0a);
            llm__att_store(st + j * QB + W, c0b);
        }
        /* the mask, only on tiles that cross the diagonal or the window's edge */
        if (j0 + nk - 1 > lo || (J->window > 0 && j0 < hi - J->window + 1))
            for (j = 0; j < nk; j++)
                for (i = 0; i < n; i++)
                    if (j0 + j > pos[i] || (J->window > 0 && j0 + j < pos[i] - J->window + 1))
                        st[j * QB + i] = -INFINITY;
        /* online softmax down the lanes: new max, rescale factor, p = exp(s - max) */
        for (j = 0; j < nk; j++) {
            mx0 = llm__att_max(mx0, llm__att_load(st + j * QB));
            mx1 = llm__att_max(mx1, llm__att_load(st + j * QB + W));
        }
        /* a lane that has seen only masked keys keeps max -inf: subtract a finite value */
        mu0 = llm__att_mul(llm__att_max(mx0, llm__att_set1(-FLT_MAX)), minus1);
        mu1 = llm__att_mul(llm__att_max(mx1, llm__att_set1(-FLT_MAX)), minus1);
        a0 = llm__att_exp(llm__att_add(m0, mu0));
        a1 = llm__att_exp(llm__att_add(m1, mu1));
        l0 = llm__att_mul(l0, a0);
        l1 = llm__att_mul(l1, a1);
        for (j = 0; j < nk; j++) {
            llm__att_v p0 = llm__att_exp(llm__att_add(llm__att_load(st + j * QB), mu0));
            llm__att_v p1 = llm__att_exp(llm__att_add(llm__att_load(st + j * QB + W), mu1));
            llm__att_store(st + j * QB, p0);
            llm__att_store(st + j * QB + W, p1);
            l0 = llm__att_add(l0, p0);
            l1 = llm__att_add(l1, p1);
        }
        m0 = mx0;
        m1 = mx1;
        /* O^T = a O^T + V^T P^T */
        for (d = 0; d + RB <= hd; d += RB) {
            LLM__ATT_ROWS(LLM__ATT_OLOAD)
            for (j = 0; j < nk; j++) {
                llm__att_v pa = llm__att_load(st + j * QB), pb = llm__att_load(st + j * QB + W);
                const float *vr = V + (size_t)j * hd + d;
                LLM__ATT_ROWS(LLM__ATT_PV)
            }
            LLM__ATT_ROWS(LLM__ATT_OSTORE)
        }
        for (; d < hd; d++) { /* leftover dims */
            llm__att_v c0a = llm__att_mul(llm__att_load(ot + d * QB), a0);
            llm__att_v c0b = llm__att_mul(llm__att_load(ot + d * QB + W), a1);
            for (j = 0; j < nk; j++) {
                llm__att_v pa = llm__att_load(st + j * QB), pb = llm__att_load(st + j * QB + W);
                const float *vr = V + (size_t)j * hd + d;
                LLM__ATT_PV(0)
            }
            llm__att_store(ot + d * QB, c0a);
            llm__att_store(ot + d * QB + W, c0b);
        }
    }
    llm__att_store(lv, l0);
    llm__att_store(lv + W, l1);
    for (i = 0; i < n; i++) {
        float inv = 1.0f / lv[i];
        for (d = 0; d < hd; d++) op[i][d] = ot[d * QB + i] * inv;
    }
}
#endif

/* Run unit u: find its KV head and lanes, then the kernel that suits the lane count. */
static void llm__att_unit(const llm__att_job *J, int u, llm__att_work *w) {
    const float *qp[LLM__ATT_QB];
    float *op[LLM__ATT_QB];
    int pos[LLM__ATT_QB];
    /* head-major, and within a head the last (costliest) query block first: threads
       working at the same time share one head's K/V in the cache, and the cheap blocks
       come last, where they even out the threads' finishing times */
    int tb = J->units_t - 1 - u % J->units_t, hb = (u / J->units_t) % J->units_h, kvh = u / J->units_t / J->units_h;
    int h0 = kvh * J->group + hb * J->nh, h1 = h0 + J->nh, t0 = tb * J->nt, t1 = t0 + J->nt, t, h, n = 0;
    if (h1 > (kvh + 1) * J->group) h1 = (kvh + 1) * J->group;
    if (t1 > J->n_q) t1 = J->n_q;
    /* lanes in order of position, so pos[0] and pos[n-1] bound the keys to visit */
    for (t = t0; t < t1; t++)
        for (h = h0; h < h1; h++) {
            size_t off = ((size_t)t * J->n_heads + h) * J->hd;
            qp[n] = J->q + off;
            op[n] = J->out + off;
            pos[n] = J->n_kv - J->n_q + t;
            n++;
        }
    if (n == 0) return;
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
    if (n >= LLM__ATT_W) {
        llm__att_lanes(J, kvh, n, qp, op, pos, w);
        return;
    }
#endif
    llm__att_rows(J, kvh, n, qp, op, pos, w);
}

/* Each thread takes the next unit from a shared counter (gcc/clang atomics), so a thread
   that is slowed down, e.g. by another process, simply takes fewer units; otherwise
   round-robin. Either way each unit's result doesn't depend on the thread. */
static void llm__att_task(void *ctx, int ith, int nth) {
    llm__att_job *J = (llm__att_job *)ctx;
    llm__att_work w; /* this thread's tiles */
    int u;
#if defined(LLM_PTHREADS) && (defined(__GNUC__) || defined(__clang__))
    (void)ith, (void)nth;
    while ((u = __atomic_fetch_add(&J->next_unit, 1, __ATOMIC_RELAXED)) < J->n_units) llm__att_unit(J, u, &w);
#else
    for (u = ith; u < J->n_units; u += nth) llm__att_unit(J, u, &w);
#endif
}

LLMDEF llm_status llm_attention_ex(float *out, const float *q, const void *k, const void *v,
                                   const float *k_scale, const float *v_scale, llm_dtype dtype,
                                   int n_q, int n_kv, int kv_stride, int n_heads, int n_kv_heads,
                                   int head_dim, int window, int tile, llm_threads *th) {
    llm__att_job J;
    if (!out || !q || !k || !v) return LLM_EINVAL;
    if (n_q <= 0 || n_kv < n_q || kv_stride < n_kv || n_heads <= 0 || n_kv_heads <= 0 || head_dim <= 0)
        return LLM_EINVAL;
    if (n_heads % n_kv_heads || window < 0 || tile < 0 || tile > LLM_ATTN_TILE) return LLM_EINVAL;
    if (dtype != LLM_F32 && dtype != LLM_F16 && dtype != LLM_INT8) return LLM_EUNSUPPORTED;
    if (dtype == LLM_INT8 && (!k_scale || !v_scale)) return LLM_EINVAL;
    if (head_dim > LLM_ATTN_MAX_HEAD_DIM) return LLM_EUNSUPPORTED;
    memset(&J, 0, sizeof J);
    J.out = out;
    J.q = q;
    J.k = k;
    J.v = v;
    J.ks = k_scale;
    J.vs = v_scale;
    J.dtype = dtype;
    J.n_q = n_q;
    J.n_kv = n_kv;
    J.kv_stride = kv_stride;
    J.n_heads = n_heads;
    J.n_kv_heads = n_kv_heads;
    J.hd = head_dim;
    J.window = window;
    J.tile = tile ? tile : LLM_ATTN_TILE;
    if (dtype != LLM_F32 && J.tile > LLM__ATT_CONV / head_dim) J.tile = LLM__ATT_CONV / head_dim;
    J.group = n_heads / n_kv_heads;
    J.nh = J.group < LLM__ATT_QB ? J.group : LLM__ATT_QB;
    J.nt = LLM__ATT_QB / J.nh;
    J.units_h = (J.group + J.nh - 1) / J.nh;
    J.units_t = (n_q + J.nt - 1) / J.nt;
    if ((int64_t)J.units_h * n_kv_heads * J.units_t > INT_MAX) return LLM_EINVAL;
    J.n_units = J.units_h * n_kv_heads * J.units_t;
    J.scale = 1.0f / LLM_SQRTF((float)head_dim);
    llm_threads_run(th, llm__att_task, &J);
    return LLM_OK;
}

LLMDEF llm_status llm_attention(float *out, const float *q, const float *k, const float *v,
                                int n_q, int n_kv, int kv_stride, int n_heads, int n_kv_heads, int head_dim,
                                llm_threads *th) {
    return llm_attention_ex(out, q, k, v, NULL, NULL, LLM_F32, n_q, n_kv, kv_stride, n_heads, n_kv_heads,
                            head_dim, 0, 0, th);
}

LLMDEF llm_status llm_attention_cache(float *out, const float *q, const llm_kv_cache *kv, int layer, int n_q,
                                      int pos, int n_heads, int window, llm_threads *th) {
    size_t off, esize;
    if (!kv || !kv->k || !kv->v || layer < 0 || layer >= kv->n_layers || n_q <= 0 || n_heads <= 0)
        return LLM_EINVAL;
    if (pos < 0 || pos > kv->len - n_q) return LLM_ERANGE; /* keys must be written first */
    esize = llm__kv_esize(kv->dtype);
    off = (size_t)layer * (size_t)kv->n_kv_heads * (size_t)kv->capacity; /* rows before this layer */
    return llm_attention_ex(out, q, (const char *)kv->k + off * kv->head_dim * esize,
                            (const char *)kv->v + off * kv->head_dim * esize,
                            kv->k_scale ? kv->k_scale + off : NULL, kv->v_scale ? kv->v_scale + off : NULL,
                            kv->dtype, n_q, pos + n_q, kv->capacity, n_heads, kv->n_kv_heads, kv->head_dim,
                            window, 0, th);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__cplusplus)
#pragma GCC diagnostic pop
#endif

/* ======================================================================================
   >>model implementation
   ====================================================================================== */

/* ======================================================================================
   >>files implementation
   ====================================================================================== */

#endif /* LLM_IMPLEMENTATION */

/*
   LICENSE: this software is available under two licenses; choose whichever you prefer.
   A) MIT: see the LICENSE file. B) Public domain (Unlicense): see the LICENSE file.
*/
