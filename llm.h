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
