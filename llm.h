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
/* The same with W in any llm_weight format (converted or dequantized on the fly).
   LLM_INT8 quantizes x the same way (per group, on ~64 KiB of stack) and multiplies in
   int8 -> int32; group_size at most 16384. LLM_EUNSUPPORTED for other types. */
LLMDEF llm_status llm_linear_w(float *y, const float *x, const llm_weight *W, const float *b,
                               int n_tokens, int d_in, int d_out, llm_threads *th);
/* C[M][N] = A[M][K] B[K][N], all row-major. */
LLMDEF llm_status llm_matmul(float *C, const float *A, const float *B, int M, int K, int N, llm_threads *th);

/* Symmetric 8-bit groups: q = round(x / s), s = max|x| / 127 per group of group_size
   consecutive values (n a multiple of group_size). */
LLMDEF llm_status llm_quantize_int8(int8_t *q, float *scale, const float *x, int64_t n, int group_size);
LLMDEF llm_status llm_dequantize_int8(float *x, const int8_t *q, const float *scale, int64_t n, int group_size);

/* Row kernels: one row of n values; out may equal x (in place). The SIMD paths agree
   with the scalar (libm) ones within a few 1e-6 relative (tests/test_rowops.c states the
   tolerance per kernel). Norm gains w and the LayerNorm bias b may be NULL (1 and 0). */
LLMDEF llm_status llm_rmsnorm(float *out, const float *x, const float *w, int n, float eps);
LLMDEF llm_status llm_layernorm(float *out, const float *x, const float *w, const float *b, int n, float eps);
LLMDEF llm_status llm_silu(float *out, const float *x, int n);
LLMDEF llm_status llm_gelu(float *out, const float *x, int n);     /* tanh approximation (GPT-2) */
LLMDEF llm_status llm_gelu_erf(float *out, const float *x, int n); /* exact, with erf */
LLMDEF llm_status llm_swiglu(float *out, const float *gate, const float *up, int n); /* silu(gate) * up */
LLMDEF llm_status llm_add(float *out, const float *a, const float *b, int n);      /* residual add */
/* Max-subtracted; -inf entries get 0; an all -inf row gives the uniform 1/n; +inf
   entries share the mass equally. No NaN for finite input. */
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

LLMDEF size_t llm_rope_bytes(int head_dim, int max_pos);
LLMDEF llm_status llm_rope_init(llm_rope *r, void *mem, int head_dim, int max_pos, float theta,
                                llm_rope_layout layout);
/* From a config: partial rotary_dim and Llama 3.1 frequency scaling included. */
LLMDEF llm_status llm_rope_init_config(llm_rope *r, void *mem, const llm_config *c, int max_pos);
LLMDEF llm_status llm_rope_create(llm_rope *r, const llm_config *c, int max_pos);
LLMDEF void llm_rope_free(llm_rope *r);
/* Rotate one token's heads x[n_heads][head_dim] at position pos, in place. */
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
   2 * L * n_kv_heads * head_dim * seq_len * batch * bytes(dtype) (+ the row scales of
   LLM_INT8). llm_kv_cache_init needs llm_kv_cache_bytes(c, capacity, 1, dtype). */
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
/* gcc 12's AVX-512 intrinsics pass an uninitialised "undefined" vector, which g++ -O2
   reports (-Wmaybe-uninitialized) wherever they are inlined; silence it in that header. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
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

/* --------------------------------------------------------------------------------------
   >>rowops  norms, activations, residual add, softmax, argmax
   --------------------------------------------------------------------------------------
   One row of n floats per call. Each kernel has a plain scalar loop (libm through
   LLM_EXPF / LLM_TANHF / LLM_ERFF: the oracle the tests hold the SIMD paths to) and, when
   SIMD is compiled in, a vector loop written against the tiny vocabulary below, so
   AVX-512, AVX2 and NEON share one loop body. Rows are short (a few thousand floats, in
   L1/L2), so what matters is not reading them more often than needed: RMSNorm reads x
   twice (sum of squares, then scale), softmax three times (max, exp+sum, scale), SwiGLU
   reads gate and up once and writes once. */

#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
#define LLM__RV 1 /* a row-vector vocabulary exists */
#if defined(LLM__AVX512)
typedef __m512 llm__rv;
#define LLM__RVN 16
static inline llm__rv llm__rv_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void llm__rv_store(float *p, llm__rv v) { _mm512_storeu_ps(p, v); }
static inline llm__rv llm__rv_set1(float f) { return _mm512_set1_ps(f); }
static inline llm__rv llm__rv_add(llm__rv a, llm__rv b) { return _mm512_add_ps(a, b); }
static inline llm__rv llm__rv_sub(llm__rv a, llm__rv b) { return _mm512_sub_ps(a, b); }
static inline llm__rv llm__rv_mul(llm__rv a, llm__rv b) { return _mm512_mul_ps(a, b); }
static inline llm__rv llm__rv_div(llm__rv a, llm__rv b) { return _mm512_div_ps(a, b); }
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return _mm512_fmadd_ps(a, b, c); }
static inline llm__rv llm__rv_max(llm__rv a, llm__rv b) { return _mm512_max_ps(a, b); }
static inline llm__rv llm__rv_min(llm__rv a, llm__rv b) { return _mm512_min_ps(a, b); }
static inline llm__rv llm__rv_abs(llm__rv a) { return _mm512_abs_ps(a); }
static inline llm__rv llm__rv_round(llm__rv a) {
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static inline llm__rv llm__rv_pow2i(llm__rv n) { /* 2^n for integral n in [-126, 127] */
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) { /* x >= t ? a : b */
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, t, _CMP_GE_OQ), b, a);
}
/* Horizontal sum / max: fold 512 -> 256 -> 128 bits by lane shuffles, then within 128. */
static inline float llm__rv_hsum(llm__rv a) {
    __m128 s;
    a = _mm512_add_ps(a, _mm512_maskz_shuffle_f32x4(0xffff, a, a, _MM_SHUFFLE(1, 0, 3, 2)));
    a = _mm512_add_ps(a, _mm512_maskz_shuffle_f32x4(0xffff, a, a, _MM_SHUFFLE(2, 3, 0, 1)));
    s = _mm512_maskz_extractf32x4_ps(0xf, a, 0);
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
static inline float llm__rv_hmax(llm__rv a) {
    __m128 s;
    a = _mm512_max_ps(a, _mm512_maskz_shuffle_f32x4(0xffff, a, a, _MM_SHUFFLE(1, 0, 3, 2)));
    a = _mm512_max_ps(a, _mm512_maskz_shuffle_f32x4(0xffff, a, a, _MM_SHUFFLE(2, 3, 0, 1)));
    s = _mm512_maskz_extractf32x4_ps(0xf, a, 0);
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
#elif defined(LLM__AVX2)
typedef __m256 llm__rv;
#define LLM__RVN 8
static inline llm__rv llm__rv_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void llm__rv_store(float *p, llm__rv v) { _mm256_storeu_ps(p, v); }
static inline llm__rv llm__rv_set1(float f) { return _mm256_set1_ps(f); }
static inline llm__rv llm__rv_add(llm__rv a, llm__rv b) { return _mm256_add_ps(a, b); }
static inline llm__rv llm__rv_sub(llm__rv a, llm__rv b) { return _mm256_sub_ps(a, b); }
static inline llm__rv llm__rv_mul(llm__rv a, llm__rv b) { return _mm256_mul_ps(a, b); }
static inline llm__rv llm__rv_div(llm__rv a, llm__rv b) { return _mm256_div_ps(a, b); }
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return _mm256_fmadd_ps(a, b, c); }
static inline llm__rv llm__rv_max(llm__rv a, llm__rv b) { return _mm256_max_ps(a, b); }
static inline llm__rv llm__rv_min(llm__rv a, llm__rv b) { return _mm256_min_ps(a, b); }
static inline llm__rv llm__rv_abs(llm__rv a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline llm__rv llm__rv_round(llm__rv a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline llm__rv llm__rv_pow2i(llm__rv n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, t, _CMP_GE_OQ));
}
static inline float llm__rv_hsum(llm__rv a) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline float llm__rv_hmax(llm__rv a) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#else /* LLM__NEON */
typedef float32x4_t llm__rv;
#define LLM__RVN 4
static inline llm__rv llm__rv_load(const float *p) { return vld1q_f32(p); }
static inline void llm__rv_store(float *p, llm__rv v) { vst1q_f32(p, v); }
static inline llm__rv llm__rv_set1(float f) { return vdupq_n_f32(f); }
static inline llm__rv llm__rv_add(llm__rv a, llm__rv b) { return vaddq_f32(a, b); }
static inline llm__rv llm__rv_sub(llm__rv a, llm__rv b) { return vsubq_f32(a, b); }
static inline llm__rv llm__rv_mul(llm__rv a, llm__rv b) { return vmulq_f32(a, b); }
static inline llm__rv llm__rv_div(llm__rv a, llm__rv b) { return vdivq_f32(a, b); }
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return vfmaq_f32(c, a, b); }
static inline llm__rv llm__rv_max(llm__rv a, llm__rv b) { return vmaxq_f32(a, b); }
static inline llm__rv llm__rv_min(llm__rv a, llm__rv b) { return vminq_f32(a, b); }
static inline llm__rv llm__rv_abs(llm__rv a) { return vabsq_f32(a); }
static inline llm__rv llm__rv_round(llm__rv a) { return vrndnq_f32(a); }
static inline llm__rv llm__rv_pow2i(llm__rv n) {
    return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23));
}
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) { return vbslq_f32(vcgeq_f32(x, t), a, b); }
static inline float llm__rv_hsum(llm__rv a) { return vaddvq_f32(a); }
static inline float llm__rv_hmax(llm__rv a) { return vmaxvq_f32(a); }
#endif

/* exp(x) for a vector, without libm. Write x = n ln2 + r with n = round(x / ln2), so
   |r| <= ln2/2; then exp(x) = 2^n exp(r). 2^n is built in the exponent bits; exp(r) is its
   Taylor polynomial to degree 7 (truncation r^8/8! < 3e-9 at |r| = ln2/2, below float's
   6e-8 half-ulp), evaluated by Horner with FMAs. ln2 is split in a part exact in float
   and a small rest so r keeps its low bits (Cody-Waite). Max relative error over
   [-87, 88], measured by tests/test_rowops.c on 2M points against double exp: 7.7e-8
   (AVX-512 and AVX2), i.e. about 1.3 ulp; the tests hold it to LLM__EXP_RELERR.
   Inputs below -87.33 (where exp leaves float's normal range) give exactly 0, which is
   what softmax wants for -inf; inputs above 88 saturate at exp(88) = 1.65e38. */
#define LLM__EXP_RELERR 1.5e-7
static inline llm__rv llm__rv_exp(llm__rv x) {
    const llm__rv lo = llm__rv_set1(-87.33654475f); /* ln(2^-126) */
    llm__rv xc = llm__rv_min(llm__rv_max(x, lo), llm__rv_set1(88.0f)); /* also maps -inf to lo */
    llm__rv n = llm__rv_round(llm__rv_mul(xc, llm__rv_set1(1.44269504088896341f)));
    llm__rv r = llm__rv_fma(n, llm__rv_set1(-0.693145751953125f), xc);  /* ln2 high part, 16 bits */
    llm__rv p;
    r = llm__rv_fma(n, llm__rv_set1(-1.42860682030941723212e-6f), r);    /* ln2 - high part */
    p = llm__rv_set1(1.0f / 5040);
    p = llm__rv_fma(p, r, llm__rv_set1(1.0f / 720));
    p = llm__rv_fma(p, r, llm__rv_set1(1.0f / 120));
    p = llm__rv_fma(p, r, llm__rv_set1(1.0f / 24));
    p = llm__rv_fma(p, r, llm__rv_set1(1.0f / 6));
    p = llm__rv_fma(p, r, llm__rv_set1(0.5f));
    p = llm__rv_fma(p, r, llm__rv_set1(1.0f));
    p = llm__rv_fma(p, r, llm__rv_set1(1.0f));
    p = llm__rv_mul(p, llm__rv_pow2i(n));
    return llm__rv_ge_or(x, llm__rv_set1(-87.3f), p, llm__rv_set1(0.0f)); /* underflow -> 0 */
}

/* sigmoid(x) = 1 / (1 + e^-x), computed from e = exp(-|x|) <= 1 so nothing overflows and
   large negative x keeps its relative accuracy: x >= 0 ? 1/(1+e) : e/(1+e). */
static inline llm__rv llm__rv_sigmoid(llm__rv x) {
    const llm__rv one = llm__rv_set1(1.0f), zero = llm__rv_set1(0.0f);
    llm__rv e = llm__rv_exp(llm__rv_sub(zero, llm__rv_abs(x)));
    llm__rv s = llm__rv_div(one, llm__rv_add(one, e));
    return llm__rv_ge_or(x, zero, s, llm__rv_mul(e, s));
}

/* The elementwise activations, one vector at a time. */
static inline llm__rv llm__rv_silu(llm__rv x) { return llm__rv_mul(x, llm__rv_sigmoid(x)); }
/* GELU, tanh form: 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3) */
static inline llm__rv llm__rv_gelu(llm__rv x) {
    llm__rv x2 = llm__rv_mul(x, x);
    llm__rv u2 = llm__rv_mul(llm__rv_mul(x, llm__rv_set1(2.0f * 0.7978845608028654f)),
                             llm__rv_fma(x2, llm__rv_set1(0.044715f), llm__rv_set1(1.0f)));
    return llm__rv_mul(x, llm__rv_sigmoid(u2));
}
#endif /* SIMD vocabulary */

/* Elementwise map over a row: full vectors, then the tail (fewer than LLM__RVN values)
   through a zero-padded vector, so every element goes through the same arithmetic wherever
   it sits in the row. */
#ifdef LLM__RV
#define LLM__RV_MAP(out, x, n, vexpr)                                         \
    do {                                                                      \
        int i_ = 0;                                                           \
        for (; i_ + LLM__RVN <= (n); i_ += LLM__RVN) {                        \
            llm__rv v = llm__rv_load((x) + i_);                               \
            llm__rv_store((out) + i_, vexpr);                                 \
        }                                                                     \
        if (i_ < (n)) {                                                       \
            float t_[LLM__RVN] = {0};                                         \
            llm__rv v;                                                        \
            memcpy(t_, (x) + i_, sizeof(float) * (size_t)((n) - i_));         \
            v = llm__rv_load(t_);                                             \
            llm__rv_store(t_, vexpr);                                         \
            memcpy((out) + i_, t_, sizeof(float) * (size_t)((n) - i_));       \
        }                                                                     \
    } while (0)
#endif

/* RMSNorm (Zhang & Sennrich 2019): out = x / sqrt(mean(x^2) + eps) * w. w = NULL means
   no gain (all ones). */
LLMDEF llm_status llm_rmsnorm(float *out, const float *x, const float *w, int n, float eps) {
    float ss = 0.0f, scale;
    int i = 0;
    if (!out || !x || n <= 0 || !(eps >= 0.0f)) return LLM_EINVAL;
#ifdef LLM__RV
    {   /* four accumulators hide the add latency */
        llm__rv a0 = llm__rv_set1(0.0f), a1 = a0, a2 = a0, a3 = a0;
        for (; i + 4 * LLM__RVN <= n; i += 4 * LLM__RVN) {
            llm__rv v0 = llm__rv_load(x + i), v1 = llm__rv_load(x + i + LLM__RVN);
            llm__rv v2 = llm__rv_load(x + i + 2 * LLM__RVN), v3 = llm__rv_load(x + i + 3 * LLM__RVN);
            a0 = llm__rv_fma(v0, v0, a0);
            a1 = llm__rv_fma(v1, v1, a1);
            a2 = llm__rv_fma(v2, v2, a2);
            a3 = llm__rv_fma(v3, v3, a3);
        }
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv v0 = llm__rv_load(x + i);
            a0 = llm__rv_fma(v0, v0, a0);
        }
        ss = llm__rv_hsum(llm__rv_add(llm__rv_add(a0, a1), llm__rv_add(a2, a3)));
    }
#endif
    for (; i < n; i++) ss += x[i] * x[i];
    scale = 1.0f / LLM_SQRTF(ss / (float)n + eps);
    i = 0;
#ifdef LLM__RV
    {
        llm__rv s = llm__rv_set1(scale);
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv v = llm__rv_mul(llm__rv_load(x + i), s);
            llm__rv_store(out + i, w ? llm__rv_mul(v, llm__rv_load(w + i)) : v);
        }
    }
#endif
    for (; i < n; i++) out[i] = x[i] * scale * (w ? w[i] : 1.0f);
    return LLM_OK;
}

/* LayerNorm (Ba et al. 2016): out = (x - mean) / sqrt(var + eps) * w + b, the variance
   biased (divided by n) as in PyTorch. w = NULL means gain 1, b = NULL bias 0.
   Not E[x^2] - E[x]^2 in one pass, which cancels catastrophically when |mean| >> std:
   pass 1 sums x for a first mean m; pass 2 sums d = x - m and d^2, which corrects both
   (the "corrected two-pass" algorithm of Chan, Golub & LeVeque 1983): the true mean is
   m + sum(d)/n and var = (sum(d^2) - sum(d)^2/n) / n. Pass 3 writes. */
LLMDEF llm_status llm_layernorm(float *out, const float *x, const float *w, const float *b, int n, float eps) {
    float mean = 0.0f, sd = 0.0f, sd2 = 0.0f, var, rstd;
    int i = 0;
    if (!out || !x || n <= 0 || !(eps >= 0.0f)) return LLM_EINVAL;
#ifdef LLM__RV
    {
        llm__rv a0 = llm__rv_set1(0.0f), a1 = a0;
        for (; i + 2 * LLM__RVN <= n; i += 2 * LLM__RVN) {
            a0 = llm__rv_add(a0, llm__rv_load(x + i));
            a1 = llm__rv_add(a1, llm__rv_load(x + i + LLM__RVN));
        }
        for (; i + LLM__RVN <= n; i += LLM__RVN) a0 = llm__rv_add(a0, llm__rv_load(x + i));
        mean = llm__rv_hsum(llm__rv_add(a0, a1));
    }
#endif
    for (; i < n; i++) mean += x[i];
    mean /= (float)n;
    i = 0;
#ifdef LLM__RV
    {
        llm__rv m = llm__rv_set1(mean), s0 = llm__rv_set1(0.0f), s1 = s0, q0 = s0, q1 = s0;
        for (; i + 2 * LLM__RVN <= n; i += 2 * LLM__RVN) {
            llm__rv d0 = llm__rv_sub(llm__rv_load(x + i), m), d1 = llm__rv_sub(llm__rv_load(x + i + LLM__RVN), m);
            s0 = llm__rv_add(s0, d0);
            s1 = llm__rv_add(s1, d1);
            q0 = llm__rv_fma(d0, d0, q0);
            q1 = llm__rv_fma(d1, d1, q1);
        }
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv d0 = llm__rv_sub(llm__rv_load(x + i), m);
            s0 = llm__rv_add(s0, d0);
            q0 = llm__rv_fma(d0, d0, q0);
        }
        sd = llm__rv_hsum(llm__rv_add(s0, s1));
        sd2 = llm__rv_hsum(llm__rv_add(q0, q1));
    }
#endif
    for (; i < n; i++) {
        float d = x[i] - mean;
        sd += d;
        sd2 += d * d;
    }
    var = (sd2 - sd * sd / (float)n) / (float)n;
    mean += sd / (float)n;
    rstd = 1.0f / LLM_SQRTF((var > 0.0f ? var : 0.0f) + eps);
    i = 0;
#ifdef LLM__RV
    {
        llm__rv m = llm__rv_set1(mean), s = llm__rv_set1(rstd), one = llm__rv_set1(1.0f), zero = llm__rv_set1(0.0f);
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv v = llm__rv_mul(llm__rv_sub(llm__rv_load(x + i), m), s);
            llm__rv_store(out + i, llm__rv_fma(v, w ? llm__rv_load(w + i) : one, b ? llm__rv_load(b + i) : zero));
        }
    }
#endif
    for (; i < n; i++) out[i] = (x[i] - mean) * rstd * (w ? w[i] : 1.0f) + (b ? b[i] : 0.0f);
    return LLM_OK;
}

/* SiLU (swish): x * sigmoid(x) = x / (1 + e^-x). */
LLMDEF llm_status llm_silu(float *out, const float *x, int n) {
    int i;
    if (!out || !x || n <= 0) return LLM_EINVAL;
#ifdef LLM__RV
    LLM__RV_MAP(out, x, n, llm__rv_silu(v));
    (void)i;
#else
    for (i = 0; i < n; i++) out[i] = x[i] / (1.0f + LLM_EXPF(-x[i]));
#endif
    return LLM_OK;
}

/* GELU, tanh approximation (Hendrycks & Gimpel 2016; GPT-2's "gelu_new"):
   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
LLMDEF llm_status llm_gelu(float *out, const float *x, int n) {
    int i;
    if (!out || !x || n <= 0) return LLM_EINVAL;
#ifdef LLM__RV
    LLM__RV_MAP(out, x, n, llm__rv_gelu(v));
    (void)i;
#else
    for (i = 0; i < n; i++) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + LLM_TANHF(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    }
#endif
    return LLM_OK;
}

/* GELU, exact: 0.5 x (1 + erf(x / sqrt 2)). Scalar on every ISA: it runs once per FFN on
   d_ff values, next to a d_ff x d_model matmul, and a vector erf accurate for large
   negative x (where 1 + erf cancels) costs more code than it saves time. */
LLMDEF llm_status llm_gelu_erf(float *out, const float *x, int n) {
    int i;
    if (!out || !x || n <= 0) return LLM_EINVAL;
    for (i = 0; i < n; i++) out[i] = 0.5f * x[i] * (1.0f + LLM_ERFF(x[i] * 0.70710678118654752f));
    return LLM_OK;
}

/* SwiGLU's gating (Shazeer 2020): out = silu(gate) * up, fused so the FFN hidden vector
   is read once and written once. out may equal gate or up. */
LLMDEF llm_status llm_swiglu(float *out, const float *gate, const float *up, int n) {
    int i = 0;
    if (!out || !gate || !up || n <= 0) return LLM_EINVAL;
#ifdef LLM__RV
    for (; i + LLM__RVN <= n; i += LLM__RVN)
        llm__rv_store(out + i, llm__rv_mul(llm__rv_silu(llm__rv_load(gate + i)), llm__rv_load(up + i)));
    if (i < n) {
        float g[LLM__RVN] = {0}, u[LLM__RVN] = {0};
        memcpy(g, gate + i, sizeof(float) * (size_t)(n - i));
        memcpy(u, up + i, sizeof(float) * (size_t)(n - i));
        llm__rv_store(g, llm__rv_mul(llm__rv_silu(llm__rv_load(g)), llm__rv_load(u)));
        memcpy(out + i, g, sizeof(float) * (size_t)(n - i));
    }
#else
    for (; i < n; i++) out[i] = gate[i] / (1.0f + LLM_EXPF(-gate[i])) * up[i];
#endif
    return LLM_OK;
}

/* Residual add: out = a + b. out may equal a or b. */
LLMDEF llm_status llm_add(float *out, const float *a, const float *b, int n) {
    int i = 0;
    if (!out || !a || !b || n <= 0) return LLM_EINVAL;
#ifdef LLM__RV
    for (; i + LLM__RVN <= n; i += LLM__RVN) llm__rv_store(out + i, llm__rv_add(llm__rv_load(a + i), llm__rv_load(b + i)));
#endif
    for (; i < n; i++) out[i] = a[i] + b[i];
    return LLM_OK;
}

/* Softmax: out = exp(x - max) / sum exp(x - max). Subtracting the max keeps every
   exponent <= 0, so nothing overflows however large x is, and the sum is >= 1 (the max
   term is exp(0) = 1), so there is no division by zero: no NaN for finite input.
   -inf entries (masked positions) get exactly 0. Edge cases, decided here:
     every entry -inf: a uniform row 1/n (the limit of equal, ever smaller logits; a
       NaN row would poison whatever sums it);
     some entries +inf: they share the mass equally, everything else 0 (the limit again).
   NaN in x gives an unspecified row. */
LLMDEF llm_status llm_softmax(float *out, const float *x, int n) {
    float mx = -INFINITY, sum = 0.0f, inv;
    int i = 0;
    if (!out || !x || n <= 0) return LLM_EINVAL;
#ifdef LLM__RV
    if (n >= LLM__RVN) {
        llm__rv m = llm__rv_set1(-INFINITY);
        for (; i + LLM__RVN <= n; i += LLM__RVN) m = llm__rv_max(m, llm__rv_load(x + i));
        mx = llm__rv_hmax(m);
    }
#endif
    for (; i < n; i++)
        if (x[i] > mx) mx = x[i];
    if (mx == -INFINITY || mx == INFINITY) {
        int hits = 0;
        for (i = 0; i < n; i++) hits += x[i] == mx;
        for (i = 0; i < n; i++) out[i] = x[i] == mx ? 1.0f / (float)hits : 0.0f;
        return LLM_OK;
    }
    i = 0;
#ifdef LLM__RV
    {
        llm__rv m = llm__rv_set1(mx), s = llm__rv_set1(0.0f);
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv e = llm__rv_exp(llm__rv_sub(llm__rv_load(x + i), m));
            llm__rv_store(out + i, e);
            s = llm__rv_add(s, e);
        }
        if (i < n) { /* tail padded with -inf, whose exp is exactly 0 */
            float t[LLM__RVN];
            llm__rv e;
            int j;
            for (j = 0; j < LLM__RVN; j++) t[j] = i + j < n ? x[i + j] : -INFINITY;
            e = llm__rv_exp(llm__rv_sub(llm__rv_load(t), m));
            llm__rv_store(t, e);
            memcpy(out + i, t, sizeof(float) * (size_t)(n - i));
            s = llm__rv_add(s, e);
            i = n;
        }
        sum = llm__rv_hsum(s);
    }
#endif
    for (; i < n; i++) {
        out[i] = LLM_EXPF(x[i] - mx);
        sum += out[i];
    }
    inv = 1.0f / sum;
    i = 0;
#ifdef LLM__RV
    {
        llm__rv s = llm__rv_set1(inv);
        for (; i + LLM__RVN <= n; i += LLM__RVN) llm__rv_store(out + i, llm__rv_mul(llm__rv_load(out + i), s));
    }
#endif
    for (; i < n; i++) out[i] *= inv;
    return LLM_OK;
}

/* Greedy decoding's pick: the index of the first maximum (NaN entries are skipped; an
   all-NaN row gives 0). */
LLMDEF int llm_argmax(const float *x, int n) {
    int i, best = 0;
    if (!x || n <= 0) return -1;
    for (i = 0; i < n && x[i] != x[i]; i++) {
    }
    if (i == n) return 0;
    best = i;
    for (; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

/* --------------------------------------------------------------------------------------
   >>weights  fp16 / bf16 / int8 weight formats: quantization and llm_linear_w
   --------------------------------------------------------------------------------------
   Decoding one token reads every weight once and does two flops per weight, so its speed
   is bytes per token divided by memory bandwidth: fp16 and bf16 halve the bytes, int8
   quarters them. The formats, all row-major [out][in]:
     LLM_F16, LLM_BF16  converted to fp32 on the fly, in registers (never written back);
     LLM_INT8           int8 values q in groups of group_size consecutive values of a row,
                        one fp32 scale s per group: w = q * s, s = max|w| / 127 (llama2.c's
                        version-2 export): 1 + 4 / group_size bytes per weight.
   For LLM_INT8 the activations are quantized the same way (per group, once per call), so
   the inner loop is an integer dot product per group,
       y[r] = sum_g  sx[g] * sw[r][g] * sum_{i in g} qx[i] * qw[r][i],
   exact in int32, scaled once per group in fp32.

   Loop order. Rows are split across threads (llm_threads_run; contiguous ranges of whole
   row blocks, so a row's arithmetic never depends on the thread count). Each thread
   walks its rows LLM__WR at a time: the x chunk is loaded once for the LLM__WR rows, and
   LLM__WR independent accumulator chains keep the loads in flight. For several tokens
   (prefill) the tokens are taken in panels that fit in L2, and each block of rows does
   every token of the panel while its weights are still in L1, so the weights are
   streamed from memory once per panel, not once per token. */

#ifndef LLM_ROUNDF
#define LLM_ROUNDF(x) roundf(x)
#endif
#if defined(__GNUC__) || defined(__clang__)
#define LLM__WINLINE static inline __attribute__((always_inline))
#else
#define LLM__WINLINE static inline
#endif

#define LLM__WR 4 /* weight rows per block */
/* LLM_INT8 quantizes the activations of one panel into a stack buffer of this many int8
   values (plus 8 bytes per group): 64 KiB of stack in llm_linear_w. d_in and the panel
   of tokens are cut to fit; group_size may not exceed LLM__Q8_XMAX / 2. */
#define LLM__Q8_XMAX 32768
#define LLM__Q8_GMAX 4096

/* Symmetric int8 quantization of one group, llama2.c's way: s = max|x| / 127,
   q = round(x / s) rounded half away from zero. An all-zero group gets s = 0, q = 0.
   Returns 0, or 1 if the group holds inf or NaN (then s = NaN, q = 0, so a product with
   it is NaN, as it would be in fp32). */
static int llm__q8_group(int8_t *q, float *s, const float *x, int gs) {
    float amax = 0.0f, scale;
    int i;
    for (i = 0; i < gs; i++) {
        float a = fabsf(x[i]);
        if (!(a <= FLT_MAX)) { /* inf or NaN */
            for (i = 0; i < gs; i++) q[i] = 0;
            *s = NAN;
            return 1;
        }
        if (a > amax) amax = a;
    }
    scale = amax / 127.0f;
    *s = scale;
    for (i = 0; i < gs; i++) {
        float v = scale > 0.0f ? LLM_ROUNDF(x[i] / scale) : 0.0f;
        q[i] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : (int)v);
    }
    return 0;
}

LLMDEF llm_status llm_quantize_int8(int8_t *q, float *scale, const float *x, int64_t n, int group_size) {
    int64_t i;
    if (!q || !scale || !x || n <= 0 || group_size <= 0 || n % group_size != 0) return LLM_EINVAL;
    for (i = 0; i < n; i++) /* refuse inf / NaN before writing anything */
        if (!(fabsf(x[i]) <= FLT_MAX)) return LLM_EINVAL;
    for (i = 0; i < n; i += group_size) llm__q8_group(q + i, scale + i / group_size, x + i, group_size);
    return LLM_OK;
}

LLMDEF llm_status llm_dequantize_int8(float *x, const int8_t *q, const float *scale, int64_t n, int group_size) {
    int64_t i;
    if (!q || !scale || !x || n <= 0 || group_size <= 0 || n % group_size != 0) return LLM_EINVAL;
    for (i = 0; i < n; i++) x[i] = (float)q[i] * scale[i / group_size];
    return LLM_OK;
}

/* ---- fp16 / bf16 rows ----------------------------------------------------------------
   Loading LLM__RVN half-precision weights as one fp32 vector: AVX-512 and F16C have an
   instruction for fp16; without F16C (plain -mavx2) the bits are moved into place and
   rescaled by 2^112 (which also gets subnormals right); bf16 is the top half of an fp32,
   so a widen and a 16-bit shift. */
#ifdef LLM__RV
#if defined(LLM__AVX512)
static inline llm__rv llm__rv_load_f16(const uint16_t *p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
static inline llm__rv llm__rv_load_bf16(const uint16_t *p) {
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}
#elif defined(LLM__AVX2)
static inline llm__rv llm__rv_load_f16(const uint16_t *p) {
#ifdef __F16C__
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
#else
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    __m256i em = _mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7fff)), 13);
    __m256i sign = _mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x8000)), 16);
    __m256i naninf = _mm256_cmpgt_epi32(em, _mm256_set1_epi32(0x0f7fffff)); /* exponent 31 */
    __m256 f = _mm256_mul_ps(_mm256_castsi256_ps(em), _mm256_set1_ps(5.192296858534828e33f)); /* 2^112 */
    f = _mm256_or_ps(f, _mm256_castsi256_ps(_mm256_and_si256(naninf, _mm256_set1_epi32(0x7f800000))));
    return _mm256_or_ps(f, _mm256_castsi256_ps(sign));
#endif
}
static inline llm__rv llm__rv_load_bf16(const uint16_t *p) {
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}
#else /* LLM__NEON */
static inline llm__rv llm__rv_load_f16(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
static inline llm__rv llm__rv_load_bf16(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }
#endif
#endif

/* out[r] = W[r][0..n) . x for nr (constant after inlining) rows ld apart; bf selects bf16. */
LLM__WINLINE void llm__dot_h(float *out, const uint16_t *w, size_t ld, const float *x, int n, const int nr,
                             const int bf) {
    float s[LLM__WR];
    int r, k = 0;
#ifdef LLM__RV
    llm__rv acc[LLM__WR];
    for (r = 0; r < nr; r++) acc[r] = llm__rv_set1(0.0f);
    for (; k + LLM__RVN <= n; k += LLM__RVN) {
        llm__rv xv = llm__rv_load(x + k);
        for (r = 0; r < nr; r++) {
            const uint16_t *p = w + (size_t)r * ld + k;
            acc[r] = llm__rv_fma(bf ? llm__rv_load_bf16(p) : llm__rv_load_f16(p), xv, acc[r]);
        }
    }
    for (r = 0; r < nr; r++) s[r] = llm__rv_hsum(acc[r]);
#else
    for (r = 0; r < nr; r++) s[r] = 0.0f;
#endif
    for (; k < n; k++) /* the tail; every element in scalar builds */
        for (r = 0; r < nr; r++) {
            uint16_t h = w[(size_t)r * ld + k];
            s[r] += (bf ? llm_bf16_to_f32(h) : llm_f16_to_f32(h)) * x[k];
        }
    for (r = 0; r < nr; r++) out[r] = s[r];
}

/* Interim fp32 rows (until llm_linear is on this branch): the same loop on floats. */
LLM__WINLINE void llm__dot_f(float *out, const float *w, size_t ld, const float *x, int n, const int nr) {
    float s[LLM__WR];
    int r, k = 0;
#ifdef LLM__RV
    llm__rv acc[LLM__WR];
    for (r = 0; r < nr; r++) acc[r] = llm__rv_set1(0.0f);
    for (; k + LLM__RVN <= n; k += LLM__RVN) {
        llm__rv xv = llm__rv_load(x + k);
        for (r = 0; r < nr; r++) acc[r] = llm__rv_fma(llm__rv_load(w + (size_t)r * ld + k), xv, acc[r]);
    }
    for (r = 0; r < nr; r++) s[r] = llm__rv_hsum(acc[r]);
#else
    for (r = 0; r < nr; r++) s[r] = 0.0f;
#endif
    for (; k < n; k++)
        for (r = 0; r < nr; r++) s[r] += w[(size_t)r * ld + k] * x[k];
    for (r = 0; r < nr; r++) out[r] = s[r];
}

/* ---- int8 rows -----------------------------------------------------------------------
   out[r] = sum_g sw[r][g] sx[g] (qw[r][g] . qx[g]) over the n values of a panel (n / gs
   groups). qw rows are ld bytes apart, their scales lds floats apart. xc[g] is
   -128 * sum(qx[g]), used by the VNNI path. The scalar version is the oracle and takes
   any group size; the vector versions need the group size they are written for and
   fall back to it otherwise. */
static void llm__dot_q8_scalar(float *out, const int8_t *w, size_t ld, const float *sw, size_t lds, const int8_t *xq,
                               const float *sx, int n, int gs, int nr) {
    int r, g, i, ng = n / gs;
    for (r = 0; r < nr; r++) {
        const int8_t *wr = w + (size_t)r * ld;
        float s = 0.0f;
        for (g = 0; g < ng; g++) {
            int32_t d = 0;
            for (i = g * gs; i < (g + 1) * gs; i++) d += (int32_t)wr[i] * (int32_t)xq[i];
            s += (float)d * (sw[(size_t)r * lds + g] * sx[g]);
        }
        out[r] = s;
    }
}

#if defined(LLM__AVX512) && defined(__AVX512VNNI__)
/* AVX-512 VNNI: vpdpbusd multiplies 64 unsigned bytes by 64 signed bytes and adds each
   four adjacent products into one of 16 int32 lanes. The weights are made unsigned by
   flipping their top bit (w + 128, exact for every int8 including -128), which adds
   128 * sum(qx) per group: the accumulator starts at xc[g] = -128 * sum(qx[g]) to cancel
   it, so the result is the exact signed dot product. Group sizes: multiples of 64 (one
   group spans whole vectors) and 32 (each vector holds two groups: lanes 0-7 and 8-15,
   scaled by a vector of two scales). */
#define LLM__Q8_VNNI 1
LLM__WINLINE void llm__dot_q8_vnni(float *out, const int8_t *w, size_t ld, const float *sw, size_t lds,
                                   const int8_t *xq, const float *sx, const int32_t *xc, int n, int gs, const int nr) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    __m512 acc[LLM__WR];
    int r, g, j, ng = n / gs;
    for (r = 0; r < nr; r++) acc[r] = _mm512_setzero_ps();
    if (gs == 32) {
        /* lane -> group of its vector: 0 for lanes 0-7, 1 for lanes 8-15 */
        const __m512i two = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
        for (g = 0; g < ng; g += 2) {
            /* an odd last group fills only the low half; the high half is zero */
            int pair = g + 1 < ng;
            __mmask16 m2 = pair ? 0x3 : 0x1;
            const int8_t *xg = xq + (size_t)g * 32;
            __m512i xv = pair ? _mm512_loadu_si512((const void *)xg)
                              : _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_loadu_si256((const __m256i *)(const void *)xg), 0);
            __m512i c = _mm512_mask_set1_epi32(_mm512_maskz_set1_epi32(0x0001, xc[g]), 0x0100, pair ? xc[g + 1] : 0);
            __m512 xs2 = _mm512_permutexvar_ps(two, _mm512_maskz_loadu_ps(m2, sx + g));
            for (r = 0; r < nr; r++) {
                const int8_t *p = w + (size_t)r * ld + (size_t)g * 32;
                __m512i wv = pair ? _mm512_loadu_si512((const void *)p)
                                  : _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_loadu_si256((const __m256i *)(const void *)p), 0);
                __m512 ws2 = _mm512_permutexvar_ps(two, _mm512_maskz_loadu_ps(m2, sw + (size_t)r * lds + g));
                __m512 d = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(c, _mm512_xor_si512(wv, flip), xv)), xs2);
                acc[r] = _mm512_fmadd_ps(d, ws2, acc[r]);
            }
        }
    } else { /* gs % 64 == 0 */
        for (g = 0; g < ng; g++) {
            __m512i a[LLM__WR];
            const int8_t *xg = xq + (size_t)g * gs;
            for (r = 0; r < nr; r++) a[r] = _mm512_maskz_set1_epi32(0x0001, xc[g]);
            for (j = 0; j < gs; j += 64) {
                __m512i xv = _mm512_loadu_si512((const void *)(xg + j));
                for (r = 0; r < nr; r++) {
                    const int8_t *p = w + (size_t)r * ld + (size_t)g * gs + j;
                    a[r] = _mm512_dpbusd_epi32(a[r], _mm512_xor_si512(_mm512_loadu_si512((const void *)p), flip), xv);
                }
            }
            for (r = 0; r < nr; r++)
                acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[r]), _mm512_set1_ps(sw[(size_t)r * lds + g] * sx[g]), acc[r]);
        }
    }
    for (r = 0; r < nr; r++) out[r] = llm__rv_hsum(acc[r]);
}
#elif (defined(LLM__AVX512) || defined(LLM__AVX2)) && defined(__AVX2__)
/* AVX2: vpmaddubsw multiplies unsigned by signed bytes and adds adjacent pairs into
   int16; vpmaddwd with ones widens pairs of those into int32. The unsigned operand is
   |qw| (<= 128) and qx takes qw's sign (vpsignb), so a pair is at most 2 * 128 * 127 =
   32512 and never saturates. Group sizes: multiples of 32. */
#define LLM__Q8_AVX2 1
LLM__WINLINE void llm__dot_q8_avx2(float *out, const int8_t *w, size_t ld, const float *sw, size_t lds,
                                   const int8_t *xq, const float *sx, int n, int gs, const int nr) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[LLM__WR];
    int r, g, j, ng = n / gs;
    float s[LLM__WR];
    for (r = 0; r < nr; r++) acc[r] = _mm256_setzero_ps();
    for (g = 0; g < ng; g++) {
        __m256i a[LLM__WR];
        const int8_t *xg = xq + (size_t)g * gs;
        for (r = 0; r < nr; r++) a[r] = _mm256_setzero_si256();
        for (j = 0; j < gs; j += 32) {
            __m256i xv = _mm256_loadu_si256((const __m256i *)(const void *)(xg + j));
            for (r = 0; r < nr; r++) {
                __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)(w + (size_t)r * ld + (size_t)g * gs + j));
                __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(wv), _mm256_sign_epi8(xv, wv));
                a[r] = _mm256_add_epi32(a[r], _mm256_madd_epi16(p, ones));
            }
        }
        for (r = 0; r < nr; r++)
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[r]), _mm256_set1_ps(sw[(size_t)r * lds + g] * sx[g]), acc[r]);
    }
    for (r = 0; r < nr; r++) {
        __m128 t = _mm_add_ps(_mm256_castps256_ps128(acc[r]), _mm256_extractf128_ps(acc[r], 1));
        t = _mm_add_ps(t, _mm_movehl_ps(t, t));
        s[r] = _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
    }
    for (r = 0; r < nr; r++) out[r] = s[r];
}
#elif defined(LLM__NEON)
/* NEON: 16 bytes at a time. With the dot-product extension (-march=...+dotprod) sdot
   adds four adjacent int8 products per int32 lane; without it, widening multiplies to
   int16 (|product| <= 16384) and pairwise widening adds to int32. Group sizes:
   multiples of 16; each group's int32 lanes are summed and scaled in fp32. */
#define LLM__Q8_NEON 1
LLM__WINLINE void llm__dot_q8_neon(float *out, const int8_t *w, size_t ld, const float *sw, size_t lds,
                                   const int8_t *xq, const float *sx, int n, int gs, const int nr) {
    float s[LLM__WR];
    int r, g, j, ng = n / gs;
    for (r = 0; r < nr; r++) s[r] = 0.0f;
    for (g = 0; g < ng; g++) {
        int32x4_t a[LLM__WR];
        const int8_t *xg = xq + (size_t)g * gs;
        for (r = 0; r < nr; r++) a[r] = vdupq_n_s32(0);
        for (j = 0; j < gs; j += 16) {
            int8x16_t xv = vld1q_s8(xg + j);
            for (r = 0; r < nr; r++) {
                int8x16_t wv = vld1q_s8(w + (size_t)r * ld + (size_t)g * gs + j);
#ifdef __ARM_FEATURE_DOTPROD
                a[r] = vdotq_s32(a[r], wv, xv);
#else
                a[r] = vpadalq_s16(a[r], vmull_s8(vget_low_s8(wv), vget_low_s8(xv)));
                a[r] = vpadalq_s16(a[r], vmull_high_s8(wv, xv));
#endif
            }
        }
        for (r = 0; r < nr; r++) s[r] += (float)vaddvq_s32(a[r]) * (sw[(size_t)r * lds + g] * sx[g]);
    }
    for (r = 0; r < nr; r++) out[r] = s[r];
}
#endif

/* One block of nr rows against one quantized token, through the best kernel for gs. */
LLM__WINLINE void llm__dot_q8(float *out, const int8_t *w, size_t ld, const float *sw, size_t lds, const int8_t *xq,
                              const float *sx, const int32_t *xc, int n, int gs, const int nr) {
    (void)xc;
#if defined(LLM__Q8_VNNI)
    if (gs % 64 == 0 || gs == 32) {
        llm__dot_q8_vnni(out, w, ld, sw, lds, xq, sx, xc, n, gs, nr);
        return;
    }
#elif defined(LLM__Q8_AVX2)
    if (gs % 32 == 0) {
        llm__dot_q8_avx2(out, w, ld, sw, lds, xq, sx, n, gs, nr);
        return;
    }
#elif defined(LLM__Q8_NEON)
    if (gs % 16 == 0) {
        llm__dot_q8_neon(out, w, ld, sw, lds, xq, sx, n, gs, nr);
        return;
    }
#endif
    llm__dot_q8_scalar(out, w, ld, sw, lds, xq, sx, n, gs, nr);
}

/* ---- llm_linear_w ------------------------------------------------------------------ */

/* What one llm_threads_run call works on: tokens t0..t0+nt-1 of x, and for LLM_INT8 the
   columns k0..k0+kn-1 already quantized into xq / xs / xc (first: this panel starts the
   sums, so it writes y and adds the bias; later panels add). */
typedef struct llm__lw {
    llm_dtype type;
    float *y;
    const float *x, *b;
    const void *w;
    const float *ws;
    int d_in, d_out, gs;
    int t0, nt, k0, kn, first;
    const int8_t *xq;
    const float *xs;
    const int32_t *xc;
} llm__lw;

/* Rows [r0, r1) of thread ith: whole blocks of LLM__WR rows, split as evenly as possible. */
static void llm__lw_rows(int d_out, int ith, int nth, int *r0, int *r1) {
    int64_t nb = (d_out + LLM__WR - 1) / LLM__WR;
    int64_t b0 = nb * ith / nth, b1 = nb * (ith + 1) / nth;
    *r0 = (int)(b0 * LLM__WR);
    *r1 = (int)(b1 * LLM__WR < d_out ? b1 * LLM__WR : d_out);
}

static void llm__lw_half_task(void *ctx, int ith, int nth) {
    const llm__lw *c = (const llm__lw *)ctx;
    const uint16_t *W = (const uint16_t *)c->w;
    size_t ld = (size_t)c->d_in;
    int r0, r1, r, t, i;
    float o[LLM__WR];
    llm__lw_rows(c->d_out, ith, nth, &r0, &r1);
    for (r = r0; r < r1;) {
        int nr = r1 - r >= LLM__WR ? LLM__WR : 1; /* blocks, then single rows at the end */
        const uint16_t *wr = c->type == LLM_F32 ? NULL : W + (size_t)r * ld;
        for (t = c->t0; t < c->t0 + c->nt; t++) {
            const float *xt = c->x + (size_t)t * ld;
            float *yt = c->y + (size_t)t * (size_t)c->d_out + r;
            if (c->type == LLM_F32) {
                const float *wf = (const float *)c->w + (size_t)r * ld;
                if (nr == LLM__WR) llm__dot_f(o, wf, ld, xt, c->d_in, LLM__WR);
                else llm__dot_f(o, wf, ld, xt, c->d_in, 1);
            } else if (c->type == LLM_BF16) {
                if (nr == LLM__WR) llm__dot_h(o, wr, ld, xt, c->d_in, LLM__WR, 1);
                else llm__dot_h(o, wr, ld, xt, c->d_in, 1, 1);
            } else {
                if (nr == LLM__WR) llm__dot_h(o, wr, ld, xt, c->d_in, LLM__WR, 0);
                else llm__dot_h(o, wr, ld, xt, c->d_in, 1, 0);
            }
            for (i = 0; i < nr; i++) yt[i] = o[i] + (c->b ? c->b[r + i] : 0.0f);
        }
        r += nr;
    }
}

static void llm__lw_q8_task(void *ctx, int ith, int nth) {
    const llm__lw *c = (const llm__lw *)ctx;
    const int8_t *W = (const int8_t *)c->w;
    size_t ld = (size_t)c->d_in, lds = (size_t)(c->d_in / c->gs);
    int ng = c->kn / c->gs, r0, r1, r, t, i;
    float o[LLM__WR];
    llm__lw_rows(c->d_out, ith, nth, &r0, &r1);
    for (r = r0; r < r1;) {
        int nr = r1 - r >= LLM__WR ? LLM__WR : 1;
        const int8_t *wr = W + (size_t)r * ld + c->k0;
        const float *sr = c->ws + (size_t)r * lds + c->k0 / c->gs;
        for (t = 0; t < c->nt; t++) {
            float *yt = c->y + (size_t)(c->t0 + t) * (size_t)c->d_out + r;
            const int8_t *xq = c->xq + (size_t)t * c->kn;
            if (nr == LLM__WR)
                llm__dot_q8(o, wr, ld, sr, lds, xq, c->xs + (size_t)t * ng, c->xc + (size_t)t * ng, c->kn, c->gs, LLM__WR);
            else
                llm__dot_q8(o, wr, ld, sr, lds, xq, c->xs + (size_t)t * ng, c->xc + (size_t)t * ng, c->kn, c->gs, 1);
            for (i = 0; i < nr; i++) yt[i] = c->first ? o[i] + (c->b ? c->b[r + i] : 0.0f) : yt[i] + o[i];
        }
        r += nr;
    }
}

LLMDEF llm_status llm_linear_w(float *y, const float *x, const llm_weight *W, const float *b, int n_tokens, int d_in,
                               int d_out, llm_threads *th) {
    llm__lw c;
    if (!y || !x || !W || !W->data || n_tokens <= 0 || d_in <= 0 || d_out <= 0) return LLM_EINVAL;
    memset(&c, 0, sizeof c);
    c.type = W->type;
    c.y = y;
    c.x = x;
    c.b = b;
    c.w = W->data;
    c.d_in = d_in;
    c.d_out = d_out;
    switch (W->type) {
    case LLM_F32: /* interim: llm_linear (>>matmul) is not on main yet; then this forwards to it */
    case LLM_F16:
    case LLM_BF16: {
        /* token panels of about 64 KiB of x, which stay in L2 while the rows stream */
        int tp = 16384 / d_in > 1 ? 16384 / d_in : 1;
        for (c.t0 = 0; c.t0 < n_tokens; c.t0 += tp) {
            c.nt = n_tokens - c.t0 < tp ? n_tokens - c.t0 : tp;
            llm_threads_run(th, llm__lw_half_task, &c);
        }
        return LLM_OK;
    }
    case LLM_INT8: {
        int8_t xq[LLM__Q8_XMAX];
        float xs[LLM__Q8_GMAX];
        int32_t xc[LLM__Q8_GMAX];
        int gs = W->group_size, kp, tp, t, g, i;
        if (!W->scale || gs <= 0 || d_in % gs != 0) return LLM_EINVAL;
        if (gs > LLM__Q8_XMAX / 2) return LLM_EUNSUPPORTED;
        /* columns per panel: all of d_in if it fits, else as many whole groups as fit */
        kp = d_in;
        if (kp > LLM__Q8_XMAX) kp = LLM__Q8_XMAX / gs * gs;
        if (kp / gs > LLM__Q8_GMAX) kp = LLM__Q8_GMAX * gs;
        tp = LLM__Q8_XMAX / kp < LLM__Q8_GMAX / (kp / gs) ? LLM__Q8_XMAX / kp : LLM__Q8_GMAX / (kp / gs);
        c.ws = W->scale;
        c.gs = gs;
        c.xq = xq;
        c.xs = xs;
        c.xc = xc;
        for (c.k0 = 0; c.k0 < d_in; c.k0 += kp) {
            c.kn = d_in - c.k0 < kp ? d_in - c.k0 : kp;
            c.first = c.k0 == 0;
            for (c.t0 = 0; c.t0 < n_tokens; c.t0 += tp) {
                int ng = c.kn / gs;
                c.nt = n_tokens - c.t0 < tp ? n_tokens - c.t0 : tp;
                /* quantize this panel of x once; every row block reuses it */
                for (t = 0; t < c.nt; t++)
                    for (g = 0; g < ng; g++) {
                        int8_t *q = xq + (size_t)t * c.kn + (size_t)g * gs;
                        int32_t sum = 0;
                        llm__q8_group(q, xs + t * ng + g, x + (size_t)(c.t0 + t) * d_in + c.k0 + (size_t)g * gs, gs);
                        for (i = 0; i < gs; i++) sum += q[i];
                        xc[t * ng + g] = -128 * sum;
                    }
                llm_threads_run(th, llm__lw_q8_task, &c);
            }
        }
        return LLM_OK;
    }
    default:
        return LLM_EUNSUPPORTED;
    }
}

/* ======================================================================================
   >>rope implementation
   ====================================================================================== */

/* ======================================================================================
   >>attention implementation
   ====================================================================================== */

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
