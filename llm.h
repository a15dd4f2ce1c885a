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

/* ---- >>matmul ------------------------------------------------------------------------

   llm_linear and llm_matmul share one engine that computes C[M][N] (+)= A[M][K] B[K][N]:
   for a linear layer A = x [n_tokens][d_in], B[k][n] = W[n][k] (W stored [out][in]) and
   C = y; for llm_matmul B is an ordinary row-major [K][N] matrix.

   WHY BLOCK. A multiply-add needs one element of A and one of B. Read straight from
   memory that is 2 loads per 2 flops, while a Zen 5 core does 2 vector FMAs (64 flops
   with AVX-512) per cycle and loads only 2 vectors. So every value must be reused many
   times from the fastest place that holds it (sizes below are for AVX-512):

   - REGISTERS hold an MR x NR = 8 x 48 tile of C: 24 zmm accumulators. For each k the
     micro-kernel loads NR/16 = 3 vectors of B and broadcasts MR = 8 values of A, then
     does 8 x 3 = 24 FMAs: 11 loads feed 24 FMAs, so the FMA units never wait on loads,
     and 24 independent sums hide the 4-cycle FMA latency.
   - L1 (48 KiB) holds the MR x KC sliver of A (8 x 256 floats = 8 KiB) during a kernel
     call, and what fits of the KC x NR sliver of B (256 x 48 floats = 48 KiB) that all
     MC / MR = 16 slivers of A reuse in turn; the rest streams from L2 at 3 vectors per
     24 FMAs, well within L2 bandwidth.
   - L2 (1 MiB) holds the packed MC x KC block of A (128 x 256 floats = 128 KiB: every
     token of a prefill chunk) and the KC x NC block of B (NC = 48: one sliver).
   - DRAM: W is read once per MC = 128 tokens, so a prefill of <= 128 tokens reads each
     weight exactly once. That read is the one thing that can stall: while the kernels
     chew on one block of B, they prefetch the next one, a cache line every few k-steps.

   WHY PACK. The micro-kernel wants, for each k, its MR values of A and its NR values of B
   side by side, in the order it uses them. In x and W they are a whole row apart (16 KiB
   for d = 4096, and such power-of-two strides also fall into the same cache sets).
   Packing copies a block once into contiguous slivers, A as [MR-strip][k][MR] and B as
   [NR-strip][k][NR], padding edges with zeros so the micro-kernel never branches. A
   linear layer's W is stored [out][in], i.e. B transposed, so its pack transposes 16 x 16
   blocks in registers: a fraction of a cycle per weight, against 2 * 128 flops.

   LOOPS (outer to inner): k in KC blocks, tokens in MC blocks (pack A), columns in NC
   blocks (pack B, prefetch the next), then MR x NR tiles. Every C element is summed in
   the same order whatever its tile or thread, so threaded results equal unthreaded ones
   bit for bit. Threads split the columns (or, when there are too few, the rows), each
   packing its own blocks on its own stack: (MC + NC) * KC floats = 176 KiB with AVX-512.

   Decode (n_tokens = 1) is a different problem: each weight is used once, so the limit
   is memory bandwidth. The GEMV streams W rows through dot products (4 rows at a time,
   2 accumulators each); 2..LLM__SMALL_N tokens share one pass over the rows likewise. */

/* g++ 12's AVX-512 intrinsics start many results from an "undefined" register, which
   -Wuninitialized reports inside them in C++; the code here never reads such a value. */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* The SIMD vocabulary the dot products are written in: LLM__VF lanes of float. */
#if defined(LLM__AVX512)
#define LLM__VF 16
typedef __m512 llm__vf;
#define llm__vload(p) _mm512_loadu_ps(p)
#define llm__vzero() _mm512_setzero_ps()
#define llm__vfma(a, b, c) _mm512_fmadd_ps(a, b, c)
#define llm__vadd(a, b) _mm512_add_ps(a, b)
/* Horizontal sum. Not _mm512_reduce_add_ps nor the unmasked shuffles: in g++ 12 they
   start from an "undefined" register and -Wmaybe-uninitialized fires inside them. */
static float llm__vsum(__m512 v) {
    const __mmask16 all = (__mmask16)0xffff;
    v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, all, v, v, 0x4e)); /* + other 256-bit half */
    v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, all, v, v, 0xb1)); /* + other 128-bit quarter */
    v = _mm512_add_ps(v, _mm512_mask_permute_ps(v, all, v, 0x4e));
    v = _mm512_add_ps(v, _mm512_mask_permute_ps(v, all, v, 0xb1));
    return _mm512_cvtss_f32(v);
}
#elif defined(LLM__AVX2)
#define LLM__VF 8
typedef __m256 llm__vf;
#define llm__vload(p) _mm256_loadu_ps(p)
#define llm__vzero() _mm256_setzero_ps()
#define llm__vfma(a, b, c) _mm256_fmadd_ps(a, b, c)
#define llm__vadd(a, b) _mm256_add_ps(a, b)
static float llm__vsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
#elif defined(LLM__NEON)
#define LLM__VF 4
typedef float32x4_t llm__vf;
#define llm__vload(p) vld1q_f32(p)
#define llm__vzero() vdupq_n_f32(0.0f)
#define llm__vfma(a, b, c) vfmaq_f32(c, a, b)
#define llm__vadd(a, b) vaddq_f32(a, b)
#define llm__vsum(v) vaddvq_f32(v)
#else
#define LLM__VF 1
typedef float llm__vf;
#define llm__vload(p) (*(p))
#define llm__vzero() 0.0f
#define llm__vfma(a, b, c) ((a) * (b) + (c))
#define llm__vadd(a, b) ((a) + (b))
#define llm__vsum(v) (v)
#endif

/* Register tile MR x NR of the micro-kernel, and the cache blocks (see above). */
#if defined(LLM__AVX512)
#define LLM__MR 8
#define LLM__NR 48
#elif defined(LLM__AVX2)
#define LLM__MR 6
#define LLM__NR 16
#elif defined(LLM__NEON)
#define LLM__MR 8
#define LLM__NR 12
#else
#define LLM__MR 4
#define LLM__NR 8
#endif
#ifndef LLM__KC /* (overridable only to tune) */
#define LLM__KC 256
#endif
#ifndef LLM__MC
#define LLM__MC (LLM__MR * ((128 + LLM__MR - 1) / LLM__MR)) /* >= 128 tokens: a prefill chunk packs W once */
#endif
#ifndef LLM__NC
#define LLM__NC (LLM__NR * (48 / LLM__NR))
#endif
#if defined(LLM__AVX512) || defined(LLM__AVX2)
#define LLM__PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#elif defined(__GNUC__) || defined(__clang__)
#define LLM__PREFETCH(p) __builtin_prefetch(p)
#else
#define LLM__PREFETCH(p) ((void)(p))
#endif
#ifndef LLM__GEMV_PF
#define LLM__GEMV_PF 512
#endif
#ifndef LLM__SMALL_N /* n_tokens up to this take the streaming dot-product path */
#define LLM__SMALL_N 16
#endif

/* While the micro-kernels work on one packed block, they fetch the next block of B from
   memory, one cache line every `every` k-steps, so that packing it finds it in cache:
   `rows` runs of `len` floats, `ld` apart, from p (NULL: nothing to fetch). */
typedef struct llm__pf {
    const float *p;
    ptrdiff_t ld;
    int len, rows, every, off, tick;
} llm__pf;
#define LLM__PF_STEP(f)                            \
    if ((f).p && --(f).tick <= 0) {                \
        (f).tick = (f).every;                      \
        LLM__PREFETCH((f).p + (f).off);            \
        if (((f).off += 16) >= (f).len) {          \
            (f).off = 0;                           \
            (f).p += (f).ld;                       \
            if (--(f).rows == 0) (f).p = NULL;     \
        }                                          \
    }

/* ---- micro-kernels: C[MR][NR] = acc ? C + A B : bias + A B, A B over kc packed steps.
   a: packed [kc][MR], b: packed [kc][NR]; bias: NR values or NULL (= zeros). */
#if defined(LLM__AVX512)
static void llm__kernel(int kc, const float *a, const float *b, float *c, ptrdiff_t ldc, const float *bias,
                        int acc, llm__pf pf) {
    __m512 c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
    __m512 c40, c41, c42, c50, c51, c52, c60, c61, c62, c70, c71, c72;
    __m512 b0, b1, b2, s0, s1, s2, t;
    int k;
    c00 = c01 = c02 = c10 = c11 = c12 = c20 = c21 = c22 = c30 = c31 = c32 = _mm512_setzero_ps();
    c40 = c41 = c42 = c50 = c51 = c52 = c60 = c61 = c62 = c70 = c71 = c72 = _mm512_setzero_ps();
    for (k = 0; k < kc; k++, a += 8, b += 48) {
        LLM__PF_STEP(pf);
        b0 = _mm512_load_ps(b);
        b1 = _mm512_load_ps(b + 16);
        b2 = _mm512_load_ps(b + 32);
#define LLM__ROW(i)                                  \
    t = _mm512_set1_ps(a[i]);                        \
    c##i##0 = _mm512_fmadd_ps(t, b0, c##i##0);       \
    c##i##1 = _mm512_fmadd_ps(t, b1, c##i##1);       \
    c##i##2 = _mm512_fmadd_ps(t, b2, c##i##2);
        LLM__ROW(0) LLM__ROW(1) LLM__ROW(2) LLM__ROW(3) LLM__ROW(4) LLM__ROW(5) LLM__ROW(6) LLM__ROW(7)
#undef LLM__ROW
    }
    s0 = s1 = s2 = _mm512_setzero_ps();
    if (!acc && bias) {
        s0 = _mm512_loadu_ps(bias);
        s1 = _mm512_loadu_ps(bias + 16);
        s2 = _mm512_loadu_ps(bias + 32);
    }
#define LLM__CSTORE(i)                                                                    \
    {                                                                                    \
        float *r = c + (i) * ldc;                                                        \
        _mm512_storeu_ps(r, _mm512_add_ps(acc ? _mm512_loadu_ps(r) : s0, c##i##0));      \
        _mm512_storeu_ps(r + 16, _mm512_add_ps(acc ? _mm512_loadu_ps(r + 16) : s1, c##i##1)); \
        _mm512_storeu_ps(r + 32, _mm512_add_ps(acc ? _mm512_loadu_ps(r + 32) : s2, c##i##2)); \
    }
    LLM__CSTORE(0) LLM__CSTORE(1) LLM__CSTORE(2) LLM__CSTORE(3) LLM__CSTORE(4) LLM__CSTORE(5) LLM__CSTORE(6) LLM__CSTORE(7)
#undef LLM__CSTORE
}
#elif defined(LLM__AVX2)
static void llm__kernel(int kc, const float *a, const float *b, float *c, ptrdiff_t ldc, const float *bias,
                        int acc, llm__pf pf) {
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, b0, b1, t, s0, s1;
    int k;
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
    for (k = 0; k < kc; k++, a += 6, b += 16) {
        LLM__PF_STEP(pf);
        b0 = _mm256_load_ps(b);
        b1 = _mm256_load_ps(b + 8);
#define LLM__ROW(i)                            \
    t = _mm256_broadcast_ss(a + i);            \
    c##i##0 = _mm256_fmadd_ps(t, b0, c##i##0); \
    c##i##1 = _mm256_fmadd_ps(t, b1, c##i##1);
        LLM__ROW(0) LLM__ROW(1) LLM__ROW(2) LLM__ROW(3) LLM__ROW(4) LLM__ROW(5)
#undef LLM__ROW
    }
    s0 = s1 = _mm256_setzero_ps();
    if (!acc && bias) {
        s0 = _mm256_loadu_ps(bias);
        s1 = _mm256_loadu_ps(bias + 8);
    }
#define LLM__CSTORE(i)                                                                   \
    {                                                                                   \
        float *r = c + (i) * ldc;                                                       \
        _mm256_storeu_ps(r, _mm256_add_ps(acc ? _mm256_loadu_ps(r) : s0, c##i##0));     \
        _mm256_storeu_ps(r + 8, _mm256_add_ps(acc ? _mm256_loadu_ps(r + 8) : s1, c##i##1)); \
    }
    LLM__CSTORE(0) LLM__CSTORE(1) LLM__CSTORE(2) LLM__CSTORE(3) LLM__CSTORE(4) LLM__CSTORE(5)
#undef LLM__CSTORE
}
#elif defined(LLM__NEON)
static void llm__kernel(int kc, const float *a, const float *b, float *c, ptrdiff_t ldc, const float *bias,
                        int acc, llm__pf pf) {
    float32x4_t c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
    float32x4_t c40, c41, c42, c50, c51, c52, c60, c61, c62, c70, c71, c72;
    float32x4_t b0, b1, b2, a0, a1, s0, s1, s2;
    int k;
    c00 = c01 = c02 = c10 = c11 = c12 = c20 = c21 = c22 = c30 = c31 = c32 = vdupq_n_f32(0.0f);
    c40 = c41 = c42 = c50 = c51 = c52 = c60 = c61 = c62 = c70 = c71 = c72 = vdupq_n_f32(0.0f);
    for (k = 0; k < kc; k++, a += 8, b += 12) {
        LLM__PF_STEP(pf);
        b0 = vld1q_f32(b);
        b1 = vld1q_f32(b + 4);
        b2 = vld1q_f32(b + 8);
        a0 = vld1q_f32(a);
        a1 = vld1q_f32(a + 4);
#define LLM__ROW(i, av, l)                           \
    c##i##0 = vfmaq_laneq_f32(c##i##0, b0, av, l);   \
    c##i##1 = vfmaq_laneq_f32(c##i##1, b1, av, l);   \
    c##i##2 = vfmaq_laneq_f32(c##i##2, b2, av, l);
        LLM__ROW(0, a0, 0) LLM__ROW(1, a0, 1) LLM__ROW(2, a0, 2) LLM__ROW(3, a0, 3)
        LLM__ROW(4, a1, 0) LLM__ROW(5, a1, 1) LLM__ROW(6, a1, 2) LLM__ROW(7, a1, 3)
#undef LLM__ROW
    }
    s0 = s1 = s2 = vdupq_n_f32(0.0f);
    if (!acc && bias) {
        s0 = vld1q_f32(bias);
        s1 = vld1q_f32(bias + 4);
        s2 = vld1q_f32(bias + 8);
    }
#define LLM__CSTORE(i)                                                        \
    {                                                                        \
        float *r = c + (i) * ldc;                                            \
        vst1q_f32(r, vaddq_f32(acc ? vld1q_f32(r) : s0, c##i##0));           \
        vst1q_f32(r + 4, vaddq_f32(acc ? vld1q_f32(r + 4) : s1, c##i##1));   \
        vst1q_f32(r + 8, vaddq_f32(acc ? vld1q_f32(r + 8) : s2, c##i##2));   \
    }
    LLM__CSTORE(0) LLM__CSTORE(1) LLM__CSTORE(2) LLM__CSTORE(3) LLM__CSTORE(4) LLM__CSTORE(5) LLM__CSTORE(6) LLM__CSTORE(7)
#undef LLM__CSTORE
}
#else
/* The scalar micro-kernel: the readable statement of what every SIMD kernel above does. */
static void llm__kernel(int kc, const float *a, const float *b, float *c, ptrdiff_t ldc, const float *bias,
                        int acc, llm__pf pf) {
    float t[LLM__MR][LLM__NR];
    int i, j, k;
    memset(t, 0, sizeof t);
    for (k = 0; k < kc; k++, a += LLM__MR, b += LLM__NR) { /* one rank-1 update per k */
        LLM__PF_STEP(pf);
        for (i = 0; i < LLM__MR; i++)
            for (j = 0; j < LLM__NR; j++) t[i][j] += a[i] * b[j];
    }
    for (i = 0; i < LLM__MR; i++)
        for (j = 0; j < LLM__NR; j++)
            c[i * ldc + j] = (acc ? c[i * ldc + j] : bias ? bias[j] : 0.0f) + t[i][j];
}
#endif

/* ---- packing -------------------------------------------------------------------------- */

/* A (row-major, lda) rows [0, mc) x cols [0, kc) -> ap[strip][k][MR], rows past mc zero. */
static void llm__pack_a(float *ap, const float *a, ptrdiff_t lda, int mc, int kc) {
    int i0, i, k;
    for (i0 = 0; i0 < mc; i0 += LLM__MR, ap += (ptrdiff_t)kc * LLM__MR) {
        int mr = mc - i0 < LLM__MR ? mc - i0 : LLM__MR;
        for (i = 0; i < LLM__MR; i++) {
            const float *src = a + (ptrdiff_t)(i0 + i) * lda;
            if (i < mr)
                for (k = 0; k < kc; k++) ap[k * LLM__MR + i] = src[k];
            else
                for (k = 0; k < kc; k++) ap[k * LLM__MR + i] = 0.0f;
        }
    }
}

/* Transposing pack of a linear layer's W: rows [0, nc) x k [0, kc) of w (row stride ldw)
   -> bp[strip][k][NR] (bp[k][j] = w[j][k]), rows past nc zero. This is the one pass over
   every weight per MC tokens, so it moves whole vectors: 16 x 16 (AVX-512) or 8 x 8
   (AVX2) blocks are loaded as rows and transposed in registers. */
#if defined(LLM__AVX512)
static void llm__pack_w(float *bp, const float *w, ptrdiff_t ldw, int kc, int nc) {
    int j0, g, k0, i, c;
    for (j0 = 0; j0 < nc; j0 += LLM__NR, bp += (ptrdiff_t)kc * LLM__NR)
        for (g = 0; g < LLM__NR; g += 16)
            for (k0 = 0; k0 < kc; k0 += 16) {
                int kk = kc - k0 < 16 ? kc - k0 : 16;
                __mmask16 m = (__mmask16)((1u << kk) - 1u);
                __m512 r[16], t[16];
                for (i = 0; i < 16; i++) { /* row i of the block: 16 consecutive k */
                    const float *src = w + (ptrdiff_t)(j0 + g + i) * ldw + k0;
                    r[i] = j0 + g + i < nc ? _mm512_maskz_loadu_ps(m, src) : _mm512_setzero_ps();
                }
                /* pairs of rows interleaved, then quads: t[4q + c] holds k = c, c+4, c+8, c+12
                   (one per 128-bit lane) of rows 4q..4q+3 */
                for (i = 0; i < 16; i += 2) {
                    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
                    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
                }
                for (i = 0; i < 16; i += 4) {
                    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
                    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
                    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
                    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
                }
                /* gather 128-bit lane L of the four quads: k = c + 4L for all 16 rows */
                for (c = 0; c < 4; c++) {
                    __m512 v0 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88), w0 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
                    __m512 v1 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xdd), w1 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xdd);
                    float *d = bp + (ptrdiff_t)(k0 + c) * LLM__NR + g;
                    if (c < kk) _mm512_store_ps(d, _mm512_shuffle_f32x4(v0, w0, 0x88));
                    if (c + 4 < kk) _mm512_store_ps(d + 4 * LLM__NR, _mm512_shuffle_f32x4(v1, w1, 0x88));
                    if (c + 8 < kk) _mm512_store_ps(d + 8 * LLM__NR, _mm512_shuffle_f32x4(v0, w0, 0xdd));
                    if (c + 12 < kk) _mm512_store_ps(d + 12 * LLM__NR, _mm512_shuffle_f32x4(v1, w1, 0xdd));
                }
            }
}
#elif defined(LLM__AVX2)
static void llm__pack_w(float *bp, const float *w, ptrdiff_t ldw, int kc, int nc) {
    int j0, g, k0, i, c;
    for (j0 = 0; j0 < nc; j0 += LLM__NR, bp += (ptrdiff_t)kc * LLM__NR)
        for (g = 0; g < LLM__NR; g += 8)
            for (k0 = 0; k0 < kc; k0 += 8) {
                int kk = kc - k0 < 8 ? kc - k0 : 8, rows = nc - j0 - g < 8 ? nc - j0 - g : 8;
                __m256 r[8], t[8];
                if (kk < 8 || rows < 8) { /* edge block: element by element */
                    for (i = 0; i < kk; i++)
                        for (c = 0; c < 8; c++)
                            bp[(ptrdiff_t)(k0 + i) * LLM__NR + g + c] = c < rows ? w[(ptrdiff_t)(j0 + g + c) * ldw + k0 + i] : 0.0f;
                    continue;
                }
                for (i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(w + (ptrdiff_t)(j0 + g + i) * ldw + k0);
                for (i = 0; i < 8; i += 2) {
                    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
                    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
                }
                for (i = 0; i < 8; i += 4) { /* r[i + c]: k = c and c + 4 of rows i..i+3 */
                    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
                    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
                    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
                    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
                }
                for (c = 0; c < 4; c++) {
                    _mm256_store_ps(bp + (ptrdiff_t)(k0 + c) * LLM__NR + g, _mm256_permute2f128_ps(r[c], r[4 + c], 0x20));
                    _mm256_store_ps(bp + (ptrdiff_t)(k0 + c + 4) * LLM__NR + g, _mm256_permute2f128_ps(r[c], r[4 + c], 0x31));
                }
            }
}
#else
static void llm__pack_w(float *bp, const float *w, ptrdiff_t ldw, int kc, int nc) {
    int j0, j, k;
    for (j0 = 0; j0 < nc; j0 += LLM__NR, bp += (ptrdiff_t)kc * LLM__NR) {
        int nr = nc - j0 < LLM__NR ? nc - j0 : LLM__NR;
        for (j = 0; j < LLM__NR; j++) {
            const float *src = w + (ptrdiff_t)(j0 + j) * ldw;
            for (k = 0; k < kc; k++) bp[k * LLM__NR + j] = j < nr ? src[k] : 0.0f;
        }
    }
}
#endif

/* Pack of an ordinary row-major B[K][N] (llm_matmul): rows [0, kc) x columns [0, nc)
   -> bp[strip][k][NR], columns past nc zero. Plain copies, NR floats at a time. */
static void llm__pack_b(float *bp, const float *b, ptrdiff_t ldb, int kc, int nc) {
    int j0, j, k;
    for (j0 = 0; j0 < nc; j0 += LLM__NR, bp += (ptrdiff_t)kc * LLM__NR) {
        int nr = nc - j0 < LLM__NR ? nc - j0 : LLM__NR;
        for (k = 0; k < kc; k++) {
            const float *src = b + (ptrdiff_t)k * ldb + j0;
            float *dst = bp + (ptrdiff_t)k * LLM__NR;
            if (nr == LLM__NR) {
                memcpy(dst, src, LLM__NR * sizeof(float));
            } else {
                for (j = 0; j < nr; j++) dst[j] = src[j];
                for (; j < LLM__NR; j++) dst[j] = 0.0f;
            }
        }
    }
}

/* ---- the blocked GEMM ------------------------------------------------------------------ */

typedef struct llm__gemm {
    float *c;
    const float *a, *b, *bias;
    int m, k, n, b_trans;
    ptrdiff_t lda, ldb, ldc;
} llm__gemm;

static float *llm__align64(float *p) { return (float *)(void *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

/* C rows [m0, m1) x columns [n0, n1), using the caller's packing buffers. */
static void llm__gemm_range(const llm__gemm *g, float *ap, float *bp, int m0, int m1, int n0, int n1) {
    int pc, ic, jc, ir, jr, i, j;
    for (pc = 0; pc < g->k; pc += LLM__KC) {
        int kc = g->k - pc < LLM__KC ? g->k - pc : LLM__KC, acc = pc > 0;
        for (ic = m0; ic < m1; ic += LLM__MC) {
            int mc = m1 - ic < LLM__MC ? m1 - ic : LLM__MC;
            llm__pack_a(ap, g->a + (ptrdiff_t)ic * g->lda + pc, g->lda, mc, kc);
            for (jc = n0; jc < n1; jc += LLM__NC) {
                int nc = n1 - jc < LLM__NC ? n1 - jc : LLM__NC;
                const float *bsrc = g->b_trans ? g->b + (ptrdiff_t)jc * g->ldb + pc : g->b + (ptrdiff_t)pc * g->ldb + jc;
                if (g->b_trans)
                    llm__pack_w(bp, bsrc, g->ldb, kc, nc);
                else
                    llm__pack_b(bp, bsrc, g->ldb, kc, nc);
                /* the next block: next columns, else the next rows or k */
                int npc = pc, njc = jc + LLM__NC, nkc, nnc, q = 0;
                int nq = ((mc + LLM__MR - 1) / LLM__MR) * ((nc + LLM__NR - 1) / LLM__NR); /* kernel calls */
                const float *nb;
                if (njc >= n1) {
                    njc = n0;
                    if (ic + LLM__MC >= m1) npc = pc + LLM__KC;
                }
                nkc = g->k - npc < LLM__KC ? g->k - npc : LLM__KC;
                nnc = n1 - njc < LLM__NC ? n1 - njc : LLM__NC;
                nb = npc >= g->k ? NULL
                     : g->b_trans ? g->b + (ptrdiff_t)njc * g->ldb + npc
                                  : g->b + (ptrdiff_t)npc * g->ldb + njc;
                for (ir = 0; ir < mc; ir += LLM__MR) {
                    int mr = mc - ir < LLM__MR ? mc - ir : LLM__MR;
                    const float *as = ap + (ptrdiff_t)ir * kc;
                    for (jr = 0; jr < nc; jr += LLM__NR, q++) {
                        int nr = nc - jr < LLM__NR ? nc - jr : LLM__NR;
                        llm__pf pf; /* this call's share of the next block: runs [r0, r1) */
                        int runs = g->b_trans ? nnc : nkc, len = g->b_trans ? nkc : nnc;
                        int r0 = (int)((int64_t)runs * q / nq), r1 = (int)((int64_t)runs * (q + 1) / nq);
                        int lines = (r1 - r0) * ((len + 15) / 16);
                        pf.p = nb && r1 > r0 ? nb + (ptrdiff_t)r0 * g->ldb : NULL;
                        pf.ld = g->ldb;
                        pf.len = len;
                        pf.rows = r1 - r0;
                        pf.every = lines > 0 && kc / lines > 1 ? kc / lines : 1;
                        pf.off = 0;
                        pf.tick = 1;
                        float *c = g->c + (ptrdiff_t)(ic + ir) * g->ldc + jc + jr;
                        const float *bias = g->bias ? g->bias + jc + jr : NULL;
                        if (mr == LLM__MR && nr == LLM__NR) {
                            llm__kernel(kc, as, bp + (ptrdiff_t)jr * kc, c, g->ldc, bias, acc, pf);
                        } else { /* edge tile: compute a full tile aside, keep the valid part */
                            float t[LLM__MR * LLM__NR];
                            llm__kernel(kc, as, bp + (ptrdiff_t)jr * kc, t, LLM__NR, NULL, 0, pf);
                            for (i = 0; i < mr; i++)
                                for (j = 0; j < nr; j++) {
                                    float *ci = c + (ptrdiff_t)i * g->ldc + j;
                                    *ci = (acc ? *ci : bias ? bias[j] : 0.0f) + t[i * LLM__NR + j];
                                }
                        }
                    }
                }
            }
        }
    }
}

static void llm__gemm_task(void *ctx, int ith, int nth) {
    const llm__gemm *g = (const llm__gemm *)ctx;
    float abuf[LLM__MC * LLM__KC + 16], bbuf[LLM__KC * LLM__NC + 16];
    int nstrips = (g->n + LLM__NR - 1) / LLM__NR, mstrips = (g->m + LLM__MR - 1) / LLM__MR;
    int m0 = 0, m1 = g->m, n0 = 0, n1 = g->n;
    if (nstrips >= nth || nstrips >= mstrips) { /* split columns in whole NR strips */
        n0 = (int)((int64_t)nstrips * ith / nth) * LLM__NR;
        n1 = (int)((int64_t)nstrips * (ith + 1) / nth) * LLM__NR;
        if (n1 > g->n) n1 = g->n;
    } else { /* few columns, many rows: split rows in whole MR strips */
        m0 = (int)((int64_t)mstrips * ith / nth) * LLM__MR;
        m1 = (int)((int64_t)mstrips * (ith + 1) / nth) * LLM__MR;
        if (m1 > g->m) m1 = g->m;
    }
    if (m0 < m1 && n0 < n1) llm__gemm_range(g, llm__align64(abuf), llm__align64(bbuf), m0, m1, n0, n1);
}

/* ---- decode: streaming dot products ------------------------------------------------------

   y[t][r] = bias[r] + W[r] . x[t]. Each W row is read from memory once for up to 4
   tokens; four rows go together so each x vector loaded feeds 4 independent FMA chains
   (16 with 4 tokens), enough to keep many loads in flight and hide the FMA latency. */

typedef struct llm__gemv {
    float *y;
    const float *x, *w, *bias;
    int n_tokens, k, n;
} llm__gemv;

/* One row, one token: the edges. */
static float llm__dot(const float *w, const float *x, int k) {
    llm__vf s0 = llm__vzero(), s1 = llm__vzero();
    float s;
    int i = 0;
    for (; i + 2 * LLM__VF <= k; i += 2 * LLM__VF) {
        s0 = llm__vfma(llm__vload(w + i), llm__vload(x + i), s0);
        s1 = llm__vfma(llm__vload(w + i + LLM__VF), llm__vload(x + i + LLM__VF), s1);
    }
    for (; i + LLM__VF <= k; i += LLM__VF) s0 = llm__vfma(llm__vload(w + i), llm__vload(x + i), s0);
    s = llm__vsum(llm__vadd(s0, s1));
    for (; i < k; i++) s += w[i] * x[i];
    return s;
}

/* Rows [r0, r1) of W against one token: 4 rows at a time, 2 accumulators per row. */
static void llm__gemv_1(float *y, const float *x, const float *w, const float *bias, int k, int r0, int r1) {
    int r = r0, i;
    for (; r + 4 <= r1; r += 4) {
        const float *w0 = w + (ptrdiff_t)r * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
        llm__vf a0 = llm__vzero(), a1 = llm__vzero(), a2 = llm__vzero(), a3 = llm__vzero();
        llm__vf b0 = llm__vzero(), b1 = llm__vzero(), b2 = llm__vzero(), b3 = llm__vzero();
        float s0, s1, s2, s3;
        for (i = 0; i + 2 * LLM__VF <= k; i += 2 * LLM__VF) {
            llm__vf xv = llm__vload(x + i), xw = llm__vload(x + i + LLM__VF);
            if ((i & 15) == 0) {
                LLM__PREFETCH(w0 + i + LLM__GEMV_PF);
                LLM__PREFETCH(w1 + i + LLM__GEMV_PF);
                LLM__PREFETCH(w2 + i + LLM__GEMV_PF);
                LLM__PREFETCH(w3 + i + LLM__GEMV_PF);
            }
            a0 = llm__vfma(llm__vload(w0 + i), xv, a0);
            a1 = llm__vfma(llm__vload(w1 + i), xv, a1);
            a2 = llm__vfma(llm__vload(w2 + i), xv, a2);
            a3 = llm__vfma(llm__vload(w3 + i), xv, a3);
            b0 = llm__vfma(llm__vload(w0 + i + LLM__VF), xw, b0);
            b1 = llm__vfma(llm__vload(w1 + i + LLM__VF), xw, b1);
            b2 = llm__vfma(llm__vload(w2 + i + LLM__VF), xw, b2);
            b3 = llm__vfma(llm__vload(w3 + i + LLM__VF), xw, b3);
        }
        for (; i + LLM__VF <= k; i += LLM__VF) {
            llm__vf xv = llm__vload(x + i);
            a0 = llm__vfma(llm__vload(w0 + i), xv, a0);
            a1 = llm__vfma(llm__vload(w1 + i), xv, a1);
            a2 = llm__vfma(llm__vload(w2 + i), xv, a2);
            a3 = llm__vfma(llm__vload(w3 + i), xv, a3);
        }
        s0 = llm__vsum(llm__vadd(a0, b0));
        s1 = llm__vsum(llm__vadd(a1, b1));
        s2 = llm__vsum(llm__vadd(a2, b2));
        s3 = llm__vsum(llm__vadd(a3, b3));
        for (; i < k; i++) {
            s0 += w0[i] * x[i];
            s1 += w1[i] * x[i];
            s2 += w2[i] * x[i];
            s3 += w3[i] * x[i];
        }
        y[r] = (bias ? bias[r] : 0.0f) + s0;
        y[r + 1] = (bias ? bias[r + 1] : 0.0f) + s1;
        y[r + 2] = (bias ? bias[r + 2] : 0.0f) + s2;
        y[r + 3] = (bias ? bias[r + 3] : 0.0f) + s3;
    }
    for (; r < r1; r++) y[r] = (bias ? bias[r] : 0.0f) + llm__dot(w + (ptrdiff_t)r * k, x, k);
}

/* Rows r..r+3 of W against tokens t0..t0+nt-1 (nt <= 4) in one pass over the rows:
   4 x 4 accumulators, so each W vector loaded feeds 4 FMAs and each x vector 4 more.
   A group of fewer than 4 tokens repeats its first token and stores only the real ones. */
static void llm__gemv_4x4(const llm__gemv *g, int r, int t0, int nt) {
    const int k = g->k;
    const float *w0 = g->w + (ptrdiff_t)r * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    const float *x0 = g->x + (ptrdiff_t)t0 * k, *x1 = nt > 1 ? x0 + k : x0;
    const float *x2 = nt > 2 ? x0 + 2 * (ptrdiff_t)k : x0, *x3 = nt > 3 ? x0 + 3 * (ptrdiff_t)k : x0;
    llm__vf a00 = llm__vzero(), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
    llm__vf a20 = a00, a21 = a00, a22 = a00, a23 = a00, a30 = a00, a31 = a00, a32 = a00, a33 = a00;
    float s[4][4];
    int i, rr, tt;
    for (i = 0; i + LLM__VF <= k; i += LLM__VF) {
        llm__vf xa = llm__vload(x0 + i), xb = llm__vload(x1 + i), xc = llm__vload(x2 + i), xd = llm__vload(x3 + i), v;
#define LLM__ROW4(r)                 \
    v = llm__vload(w##r + i);        \
    a##r##0 = llm__vfma(v, xa, a##r##0); \
    a##r##1 = llm__vfma(v, xb, a##r##1); \
    a##r##2 = llm__vfma(v, xc, a##r##2); \
    a##r##3 = llm__vfma(v, xd, a##r##3);
        LLM__ROW4(0) LLM__ROW4(1) LLM__ROW4(2) LLM__ROW4(3)
#undef LLM__ROW4
    }
    s[0][0] = llm__vsum(a00), s[0][1] = llm__vsum(a01), s[0][2] = llm__vsum(a02), s[0][3] = llm__vsum(a03);
    s[1][0] = llm__vsum(a10), s[1][1] = llm__vsum(a11), s[1][2] = llm__vsum(a12), s[1][3] = llm__vsum(a13);
    s[2][0] = llm__vsum(a20), s[2][1] = llm__vsum(a21), s[2][2] = llm__vsum(a22), s[2][3] = llm__vsum(a23);
    s[3][0] = llm__vsum(a30), s[3][1] = llm__vsum(a31), s[3][2] = llm__vsum(a32), s[3][3] = llm__vsum(a33);
    for (; i < k; i++) { /* the k % LLM__VF tail */
        const float xs[4] = {x0[i], x1[i], x2[i], x3[i]}, ws[4] = {w0[i], w1[i], w2[i], w3[i]};
        for (rr = 0; rr < 4; rr++)
            for (tt = 0; tt < 4; tt++) s[rr][tt] += ws[rr] * xs[tt];
    }
    for (tt = 0; tt < nt; tt++)
        for (rr = 0; rr < 4; rr++)
            g->y[(ptrdiff_t)(t0 + tt) * g->n + r + rr] = (g->bias ? g->bias[r + rr] : 0.0f) + s[rr][tt];
}

static void llm__gemv_task(void *ctx, int ith, int nth) {
    const llm__gemv *g = (const llm__gemv *)ctx;
    /* rows in multiples of 16 so each thread's 4-row groups stay whole */
    int groups = (g->n + 15) / 16, r0, r1, r, t;
    r0 = (int)((int64_t)groups * ith / nth) * 16;
    r1 = (int)((int64_t)groups * (ith + 1) / nth) * 16;
    if (r1 > g->n) r1 = g->n;
    if (r0 >= r1) return;
    if (g->n_tokens == 1) {
        llm__gemv_1(g->y, g->x, g->w, g->bias, g->k, r0, r1);
        return;
    }
    /* a few tokens: 4 rows at a time, all tokens while those rows are in cache */
    for (r = r0; r + 4 <= r1; r += 4)
        for (t = 0; t < g->n_tokens; t += 4) llm__gemv_4x4(g, r, t, g->n_tokens - t < 4 ? g->n_tokens - t : 4);
    for (; r < r1; r++)
        for (t = 0; t < g->n_tokens; t++)
            g->y[(ptrdiff_t)t * g->n + r] =
                (g->bias ? g->bias[r] : 0.0f) + llm__dot(g->w + (ptrdiff_t)r * g->k, g->x + (ptrdiff_t)t * g->k, g->k);
}

#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* ---- entry points ------------------------------------------------------------------------ */

/* a * b * sizeof(float) fits in a ptrdiff_t (both positive). */
static int llm__fits(int a, int b) { return (uint64_t)a * (uint64_t)b <= (uint64_t)PTRDIFF_MAX / sizeof(float); }

/* Below this many multiply-adds (a few microseconds on one core) waking the pool's
   workers costs more than it saves: such calls run on the caller's thread. */
#define LLM__PAR_MIN_MACS 1000000.0

LLMDEF llm_status llm_linear(float *y, const float *x, const float *W, const float *b, int n_tokens, int d_in,
                             int d_out, llm_threads *th) {
    if (!y || !x || !W || n_tokens <= 0 || d_in <= 0 || d_out <= 0) return LLM_EINVAL;
    if (!llm__fits(n_tokens, d_in) || !llm__fits(n_tokens, d_out) || !llm__fits(d_out, d_in)) return LLM_EINVAL;
    if ((double)n_tokens * d_in * d_out < LLM__PAR_MIN_MACS) th = NULL;
    if (n_tokens <= LLM__SMALL_N) {
        llm__gemv g;
        g.y = y;
        g.x = x;
        g.w = W;
        g.bias = b;
        g.n_tokens = n_tokens;
        g.k = d_in;
        g.n = d_out;
        llm_threads_run(th, llm__gemv_task, &g);
    } else {
        llm__gemm g;
        g.c = y;
        g.a = x;
        g.b = W;
        g.bias = b;
        g.m = n_tokens;
        g.k = d_in;
        g.n = d_out;
        g.b_trans = 1;
        g.lda = d_in;
        g.ldb = d_in;
        g.ldc = d_out;
        llm_threads_run(th, llm__gemm_task, &g);
    }
    return LLM_OK;
}

LLMDEF llm_status llm_matmul(float *C, const float *A, const float *B, int M, int K, int N, llm_threads *th) {
    llm__gemm g;
    if (!C || !A || !B || M <= 0 || K <= 0 || N <= 0) return LLM_EINVAL;
    if (!llm__fits(M, K) || !llm__fits(K, N) || !llm__fits(M, N)) return LLM_EINVAL;
    if ((double)M * K * N < LLM__PAR_MIN_MACS) th = NULL;
    g.c = C;
    g.a = A;
    g.b = B;
    g.bias = NULL;
    g.m = M;
    g.k = K;
    g.n = N;
    g.b_trans = 0;
    g.lda = K;
    g.ldb = N;
    g.ldc = N;
    llm_threads_run(th, llm__gemm_task, &g);
    return LLM_OK;
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
