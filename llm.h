/* llm.h - v0.1.0 - a decoder-only transformer in one C99 header, public domain / MIT
   (the license text is at the end of this file)

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

   The llm.h repository's README.md and examples/ show the planner, the kernels, and
   running a llama2.c checkpoint; everything needed to use this file is in this file.

   CONTENTS (search for the tag to jump)
   -------------------------------------
       >>basics      status codes, dtypes, allocator and math hooks, thread pool
       >>config      llm_config, the preset table, validation
       >>estimate    parameters, FLOPs, memory, time, the planner, GPU presets
       >>kernels     the numeric kernels, in three parts (after >>simd, the one SIMD layer
                     at the top of the implementation: a fenced block per ISA):
         >>matmul    llm_linear / llm_matmul: packed, blocked GEMM and streaming GEMV (SIMD, threaded)
         >>rowops    norms, activations, residual add, softmax, argmax
         >>weights   the weight-format table (f32, f16, bf16, int8 groups, ggml's block
                     formats) and llm_linear_w
       >>rope        rotary position tables and their application
       >>attention   causal attention in three stages (scores, online softmax, P V; GQA/MQA,
                     windows, softcap), KV cache
       >>model       decoder block, model forward pass, sampling
         >>generation the sampler chain, stop strings, chat templates, end-of-generation ids
       >>files       llama2.c checkpoints and tokenizer, GGUF (the reader; the block formats'
                     meaning is >>weights'), safetensors + Hugging Face config.json, JSON: from
                     memory or a file
       >>tokenizer   Unicode tables, pre-tokenizers, SentencePiece and byte-level BPE
       >>gen         llm_gen: step-by-step generation, chat turns over a kept KV cache, sessions
       >>train       the backward pass op by op (linear, norms, GLUs, RoPE, attention, the
                     loss, the embedding), AdamW, gradient clipping, the cosine schedule

   OPTIONS (#define before including)
   ----------------------------------
       LLM_IMPLEMENTATION  compile the implementation here (exactly one file)
       LLM_STATIC          everything static: vendor a private copy per file (everywhere it is used)
       LLMDEF              decoration of every public function (default: extern, or static with LLM_STATIC)
       LLM_ASSERT(x)       internal invariants only; caller mistakes are status codes (implementation file)
       LLM_MALLOC(n) / LLM_FREE(p)   allocator used by the *_create convenience functions (and by
                           llm_tokenize for long texts); define both or neither (implementation file)
       LLM_SQRTF LLM_EXPF LLM_TANHF LLM_ERFF LLM_ROUNDF LLM_SQRT LLM_POW LLM_COS LLM_SIN LLM_LOG LLM_EXP
                           libm replacements for firmware: every libm call the implementation
                           makes goes through one of these (implementation file)
       LLM_NO_STDIO        no FILE* functions; load from memory buffers only (everywhere)
       LLM_NO_SIMD         scalar kernels only (implementation file)
       LLM_PTHREADS        real threads in llm_threads (implementation file; link with -pthread)
       LLM_MMAP            POSIX: llm_gguf_load_file and llm_hf_load_dir map the file (every
                           shard) read-only (mmap) instead of reading it into memory; the weights
                           point into the mappings, which llm_model_free unmaps (implementation file)
       LLM_THREAD_STACK    minimum stack bytes per worker thread (default 1 MiB; kernels keep their
                           tiles on the stack: the calling thread needs ~256 KiB free too)

   llm.h does NOT: run on a GPU, download anything, use global state. It trains (>>train) on
   the CPU only, fp32 and LoRA over any base format.

   HOW TO EXTEND llm.h
   -------------------
   Each kind of extension touches these places, and nothing else:
     a weight format   1. its llm_dtype value and its row in llm__wfmts (>>weights: name,
                          bits, block layout, check, row-to-fp32, and linear or prep + rows;
                          for one of ggml's formats also its GGUF type id, block dequantizer,
                          scalar dot and vector tile, which llm__linear_q, llm_gguf_dequantize
                          and the GGUF loader read; the table must have a row per value or it
                          does not compile);
                       2. its kernels beside the row (scalar first; SIMD through the vector
                          layer, or a per-ISA kernel chosen where the row names it);
                       3. tests against a double reference of the format's exact values
                          (tests/test_quant.c, tests/test_ggml_quants.c).
     an architecture   a row in llm__archs (>>files: its GGUF and HF names, FFN and bias
                       kinds, RoPE pairs, the features it turns on); its tensors as rows of
                       llm__block_tensors (GGUF and HF names, shape, llm_layer_weights field)
                       and its keys in llm__gguf_keys / llm__hf_keys when they are new. A new
                       feature is also a config field (zero = off, checked in
                       llm_config_check, refused by llm_config_runnable until it runs), its
                       step in llm__block_run driven by the config, its count in
                       llm_count_params / llm_decode_bytes; a preset row; tests: the double
                       reference (tests/ref_model.h) and families in tests/test_model.c,
                       written files in tests/test_gguf.c / test_hf.c.
     an ISA            one fenced block in the SIMD layer at the top of the implementation
                       (the llm__rv vector type and its operations, behind one #if); then,
                       only if it pays, its own GEMM micro-kernel shape (LLM__MR / LLM__NV),
                       integer dot product and small-head attention, each chosen in one
                       place; a test build in the Makefile (TEST_VARIANTS, or qemu as NEON).
     a file format     a reader in >>files that checks every count, length and offset in
                       64 bits against the buffer, as a _bytes / _init / _create trio over
                       caller memory; a loader to llm_model that refuses by name what cannot
                       run; a writer and hostile-file tests in tests/; a libFuzzer target in
                       tests/fuzz/ with seeds from the writer.

   CONVENTIONS
   -----------
   Row-major. Activations are [n_tokens][dim]. Linear weights are [out][in] as in PyTorch's
   nn.Linear and llama2.c: y = x W^T + b. Every function that can fail returns llm_status
   (LLM_OK = 0) and never aborts on anything a caller passes. Counts are uint64_t; bytes,
   FLOPs and seconds are double; printed bytes say GB (1e9) or GiB (2^30). Only these
   allocate (through LLM_MALLOC): the *_create functions, the *_load_file functions (the
   file's bytes) and llm_tokenize for a text over 128 tokens (scratch freed before it
   returns; llm_tokenize_scratch never allocates). All are re-entrant; threads are an
   explicit llm_threads * argument (NULL = the caller's thread).
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
   (8 + 16/32 = 8.5 and 4 + 16/32 = 4.5 bits): exactly ggml's Q8_0 / Q4_0, which are
   also their names; LLM_Q4_1 .. LLM_Q6_K are ggml's other block formats byte for byte (a
   GGUF tensor used in place). LLM_INT8 names three layouts, told apart by where it is
   used: to the estimators, 8 bits a value (scales not counted); in a weight (llm_weight),
   int8 groups: group_size values with one fp32 scale each, llama2.c's version-2 layout;
   in the KV cache, int8 rows: one fp32 scale per row of head_dim. */
typedef enum llm_dtype {
    LLM_F32 = 0,
    LLM_F16,
    LLM_BF16,
    LLM_INT8,
    LLM_INT4,
    LLM_Q8_32,
    LLM_Q4_32,
    LLM_Q4_1,  /* 32 values: fp16 scale and min, 4-bit values (5 bits per value) */
    LLM_Q5_0,  /* 32: fp16 scale, 5-bit values (5.5) */
    LLM_Q5_1,  /* 32: fp16 scale and min, 5-bit values (6) */
    LLM_Q2_K,  /* 256-value super-blocks with 4-bit sub-block scales and mins (2.625) */
    LLM_Q3_K,  /* 256: 3-bit values, 6-bit scales (3.4375) */
    LLM_Q4_K,  /* 256: 4-bit values, 6-bit scales and mins (4.5) */
    LLM_Q5_K,  /* 256: 5-bit values, 6-bit scales and mins (5.5) */
    LLM_Q6_K,  /* 256: 6-bit values, 8-bit scales (6.5625) */
    LLM_DTYPE_COUNT,
    LLM_Q8_0 = LLM_Q8_32, /* ggml's names for the same formats */
    LLM_Q4_0 = LLM_Q4_32
} llm_dtype;

LLMDEF double llm_dtype_bits(llm_dtype t);  /* 32, 16, 16, 8, 4, 8.5, 4.5, 5 ...; 0 if unknown */
LLMDEF double llm_dtype_bytes(llm_dtype t); /* bits / 8 */
LLMDEF const char *llm_dtype_name(llm_dtype t); /* "f32", "f16", "bf16", "int8", "int4", "q8_32", "q4_32", "q4_1" ... "q6_k" */
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
   A call made while the pool is busy (from inside one of its own tasks, or from a second
   thread) runs fn(ctx, 0, 1) on the calling thread alone: correct, just not parallel. */
typedef struct llm_threads llm_threads;
typedef void (*llm_task_fn)(void *ctx, int ith, int nth);

LLMDEF llm_status llm_threads_create(llm_threads **out, int n_threads);
LLMDEF void llm_threads_free(llm_threads *th);
LLMDEF int llm_threads_count(const llm_threads *th); /* 1 for NULL */
LLMDEF void llm_threads_run(llm_threads *th, llm_task_fn fn, void *ctx);

/* ======================================================================================
   >>config
   ====================================================================================== */

/* Each kind enum ends in a _COUNT sentinel: range checks and the per-kind tables of the
   implementation are sized by it, so a new kind cannot be forgotten in one of them. */
typedef enum llm_norm_kind { LLM_NORM_RMS = 0, LLM_NORM_LAYER, LLM_NORM_COUNT } llm_norm_kind;
typedef enum llm_ffn_kind {
    LLM_FFN_SWIGLU = 0, /* W2 (silu(W1 x) * W3 x): three matrices (Llama) */
    LLM_FFN_GELU,       /* W2 gelu(W1 x): two matrices (GPT-2) */
    LLM_FFN_GEGLU,      /* W2 (gelu(W1 x) * W3 x): three matrices (Gemma) */
    LLM_FFN_COUNT
} llm_ffn_kind;
typedef enum llm_pos_kind { LLM_POS_ROPE = 0, LLM_POS_LEARNED, LLM_POS_NONE, LLM_POS_COUNT } llm_pos_kind;
/* Which pairs of a head's dimensions RoPE rotates together. Loading weights with the
   other layout than the one they were trained with silently ruins the model:
     LLM_ROPE_INTERLEAVED: pairs (2i, 2i+1)   RoFormer, Meta's Llama code, llama2.c, GGUF
     LLM_ROPE_HALVES:      pairs (i, i + d/2) Hugging Face transformers, GPT-NeoX */
typedef enum llm_rope_layout { LLM_ROPE_INTERLEAVED = 0, LLM_ROPE_HALVES, LLM_ROPE_LAYOUT_COUNT } llm_rope_layout;
/* How the router's probabilities become the k chosen experts' weights: both take the
   softmax over all n_experts router logits and the k largest (ties: the lower expert
   index first). */
typedef enum llm_router_kind {
    LLM_ROUTER_TOPK_NORM = 0, /* the k weights renormalized to sum 1 (Mixtral, Qwen3-MoE) */
    LLM_ROUTER_TOPK,          /* the k probabilities as they are (Qwen2-MoE: norm_topk_prob false) */
    LLM_ROUTER_COUNT
} llm_router_kind;
typedef enum llm_bias_kind {
    LLM_BIAS_NONE = 0, /* Llama, Mistral */
    LLM_BIAS_QKV,      /* q, k, v projections only (Qwen2) */
    LLM_BIAS_ALL,      /* every linear layer (GPT-2; the norms' biases are norm_bias) */
    LLM_BIAS_COUNT
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
    llm_router_kind router;      /* how the chosen experts are weighted */
    int d_ff_shared;             /* each shared expert's FFN width; 0 = d_ff */
    int shared_gate;             /* 1 = the shared experts' output times sigmoid(x . w) (Qwen2-MoE) */
    int sliding_window;          /* attend to at most this many past positions; 0 = all */
    /* Beyond Llama: each of these is off at zero (Qwen3, Gemma, Gemma 2). */
    int qk_norm;         /* 1 = RMSNorm (gains [head_dim], eps norm_eps) of every query and key head
                            after the projections, before RoPE (Qwen3) */
    int sandwich_norm;   /* 1 = each sub-layer's output is normed too before its residual add:
                            x += Norm'(Attn(Norm(x))) (Gemma 2's post-attention and post-FFN norms) */
    float embed_scale;   /* the token embedding is multiplied by this; 0 = 1 (Gemma: sqrt(d_model)) */
    float attn_scale;    /* scores are attn_scale q.k; 0 = 1 / sqrt(head_dim) (Gemma 2:
                            query_pre_attn_scalar^-1/2) */
    float attn_softcap;  /* > 0: each score s becomes attn_softcap tanh(s / attn_softcap) before the
                            softmax (Gemma 2: 50); 0 = none */
    float final_softcap; /* > 0: each logit z becomes final_softcap tanh(z / final_softcap) (Gemma 2: 30) */
    int window_pattern;  /* with a sliding_window: 0 = every layer is windowed; P > 0 = layer l is
                            windowed unless l % P == P - 1, which attends to all (Gemma 2: 2, so
                            layers 0, 2, 4.. are windowed) */
} llm_config;

/* An llm_config with every optional field at its default and every size zero, to be
   filled in: RMSNorm (eps 1e-5), SwiGLU, RoPE (theta 10000, interleaved pairs), no
   biases, untied LM head, pre-norm, dense. C++ cannot use C99 designated initializers,
   so start from this and assign the fields you need. */
LLMDEF llm_config llm_config_default(void);

/* LLM_OK, or LLM_EINVAL with *reason (if reason is not NULL) naming the first problem
   found: a zero or negative size, heads that do not divide, an odd rotary dimension,
   top-k larger than the number of experts, an enum out of range, a NaN, or a model so
   large its parameter count would not fit in 64 bits. On LLM_OK *reason is "ok". */
LLMDEF llm_status llm_config_check(const llm_config *c, const char **reason);

/* Whether llm_forward can run this architecture: LLM_OK; llm_config_check's LLM_EINVAL
   for an invalid config; or LLM_EUNSUPPORTED with *reason naming the feature the forward
   pass does not have (mixture of experts whose experts are ungated GELU MLPs or carry
   biases). The estimators take every valid config; llm_state_bytes, llm_state_init and
   llm_block_forward take only runnable ones, so such a model is refused, never run as
   something else. */
LLMDEF llm_status llm_config_runnable(const llm_config *c, const char **reason);

/* head_dim, or d_model / n_heads when head_dim is 0. */
LLMDEF int llm_config_head_dim(const llm_config *c);
/* The window layer `layer` attends with: sliding_window, or 0 (every position) when there
   is none or window_pattern makes this layer a global one. */
LLMDEF int llm_config_layer_window(const llm_config *c, int layer);

/* The preset table: published architectures by lower-case name ("llama-2-7b"; the
   match ignores case). NULL for an unknown name. llm_preset_at(i) walks the table,
   NULL past its end. The table itself (in the implementation) is one readable row
   per model. */
LLMDEF const llm_config *llm_preset(const char *name);
LLMDEF const llm_config *llm_preset_at(int i);

/* ======================================================================================
   >>estimate
   ====================================================================================== */

/* Every estimator is a pure function of its arguments: no allocation, no state.
   Counts are uint64_t, bytes / FLOPs / seconds are double (exact up to 2^53, about
   9e15, which covers every byte count below 9 PB). GB = 1e9 B, GiB = 2^30 B. */

/* ---- parameters --------------------------------------------------------------------- */

/* Parameter counts by component, exact to the last parameter. All fields are 0 for a
   config that llm_config_check rejects. */
typedef struct llm_params {
    uint64_t total;         /* everything stored */
    uint64_t embedding;     /* token embedding table V d */
    uint64_t positions;     /* learned position table max_seq_len d (GPT-2), else 0 */
    uint64_t attention;     /* all layers: Q, K, V, O matrices and their biases */
    uint64_t ffn;           /* all layers: FFN matrices and biases, every expert, routers */
    uint64_t norm;          /* all layers' norms and the final norm, weights and biases */
    uint64_t lm_head;       /* V d, or 0 when tied to the embedding */
    uint64_t per_layer;     /* one decoder block: its attention + FFN + norms */
    uint64_t non_embedding; /* Kaplan et al.'s N: the blocks' weight matrices only (no
                               biases, norms, embeddings, positions or LM head) */
    uint64_t bias;          /* all bias vectors (counted inside attention / ffn / norm) */
    uint64_t active;        /* used per token: total minus the experts a token skips */
    uint64_t active_non_embedding; /* N of the experts a token uses (the N in 6N for MoE) */
} llm_params;

LLMDEF llm_params llm_count_params(const llm_config *c);

/* ---- FLOPs -------------------------------------------------------------------------- */

/* FLOPs per token (one multiply-add = 2 FLOPs) for a token that attends to `context`
   positions. N below is llm_params.active_non_embedding. */
typedef struct llm_flops {
    double matmul;     /* 2 N: every weight matrix of the blocks, once */
    double lm_head;    /* 2 V d: the logits (Kaplan's 2N leaves it out) */
    double attention;  /* 4 L T (n_heads head_dim): QK^T and AV over T = context positions;
                          halved if `causal`: a causal kernel skipping masked tiles does
                          on average half the T x T work of a T-token sequence; a sliding
                          window W caps the keys per token at W */
    double forward;    /* matmul + lm_head + attention */
    double train;      /* 3 forward: the backward pass costs twice the forward */
    double train_6n;   /* 6 N (Kaplan et al. 2020; Chinchilla's C = 6ND) */
    double train_palm; /* 6 N + 12 L (n_heads head_dim) T (PaLM, appendix B), T = context */
} llm_flops;

LLMDEF llm_flops llm_count_flops(const llm_config *c, int64_t context, int causal);
/* Training FLOPs of a run: 6 N D with N = active_non_embedding (the convention behind
   "Llama 2 7B on 2T tokens = 7.77e22 FLOP"). */
LLMDEF double llm_train_flops(const llm_config *c, double tokens);
/* Attention FLOPs over the rest in training, 12 L T (n_heads head_dim) / 6 N: T / (6 d)
   exactly when N = 12 L d^2 (GPT-2, GPT-3). */
LLMDEF double llm_attention_ratio(const llm_config *c, int64_t context);
/* Seconds for `flops` on n_gpus GPUs of peak_flops (FLOP/s) each at model FLOPs
   utilisation mfu (0..1); GPU-hours is the same work counted per GPU. MFU is the
   inverse: achieved FLOP/s over peak. All return 0 for non-positive inputs. */
LLMDEF double llm_train_seconds(double flops, double n_gpus, double peak_flops, double mfu);
LLMDEF double llm_gpu_hours(double flops, double peak_flops, double mfu);
LLMDEF double llm_mfu(double flops, double seconds, double n_gpus, double peak_flops);
/* Chinchilla (Hoffmann et al. 2022): about 20 tokens per parameter is compute-optimal;
   for a budget C = 6 N D that gives N = sqrt(C / 120), D = 20 N. */
LLMDEF double llm_chinchilla_tokens(double n_params);
LLMDEF void llm_chinchilla_optimal(double flops, double *n_params, double *tokens);
/* Pipeline bubble fraction (P - 1) / (M + P - 1): P stages, M micro-batches (GPipe). */
LLMDEF double llm_pipeline_bubble(int stages, int micro_batches);

/* ---- memory ------------------------------------------------------------------------- */

/* Every parameter stored in dtype (block scales included: q4_32 is 4.5 bits). */
LLMDEF double llm_weight_bytes(const llm_config *c, llm_dtype dtype);

/* Mixed-precision Adam per GPU: 2 B fp16/bf16 weights + 2 B gradients + 12 B fp32
   master weights, momentum and variance = 16 B per parameter (ZeRO paper, Rajbhandari
   et al. 2020). ZeRO shards over n_gpus data-parallel GPUs: stage 1 the optimizer
   states, stage 2 also the gradients, stage 3 also the weights. */
typedef struct llm_train_state {
    double weights, grads, optimizer, total; /* bytes per GPU */
} llm_train_state;
LLMDEF llm_train_state llm_train_state_bytes(double n_params, int zero_stage, double n_gpus);

/* Activations kept for the backward pass, whole model, per GPU, bytes (Korthikanti et
   al. 2022, "Reducing activation recomputation"): per layer s b d (34 + 5 a s / d) with
   s = seq_len, b = batch, a = n_heads, 16-bit activations, GPT-style block. 5 a s / d is
   the T x T attention scores, softmax and its dropout mask: flash attention never
   stores them. Full recomputation keeps only each layer's input, 2 s b d. Tensor
   parallelism over tp GPUs: s b d (10 + 24 / tp + 5 a s / (d tp)). */
enum { LLM_ACT_FLASH = 1, LLM_ACT_RECOMPUTE = 2 };
LLMDEF double llm_activation_bytes(const llm_config *c, int64_t seq_len, int64_t batch, int flags, int tp);

/* ---- GPUs --------------------------------------------------------------------------- */

/* Dense (no sparsity) peak and memory of a GPU. Marketing "80 GB" is really 80 GiB on
   NVIDIA datacentre cards; mem_bytes is the total the driver reports (nvidia-smi). For a
   plan, bf16_tflops and bandwidth_gbs may be 0 (unknown, e.g. a CPU's RAM): the times are
   then 0, not estimated. */
typedef struct llm_gpu {
    const char *name;       /* "a100-80gb" */
    const char *full_name;  /* "NVIDIA A100-SXM4-80GB" */
    double mem_marketed_gb; /* the number on the datasheet */
    double mem_bytes;       /* as the driver reports it */
    double bf16_tflops;     /* dense bf16/fp16 tensor peak, fp32 accumulate */
    double fp32_tflops;     /* non-tensor fp32 */
    double bandwidth_gbs;   /* memory bandwidth, GB/s (1e9 B/s) */
    const char *memory_type;
} llm_gpu;
LLMDEF const llm_gpu *llm_gpu_preset(const char *name); /* NULL if unknown; ignores case */
LLMDEF const llm_gpu *llm_gpu_preset_at(int i);         /* NULL past the end */

/* ---- the planner -------------------------------------------------------------------- */

/* What to run where. Start from llm_plan_default() (fp16 weights and KV, batch 1, the
   model's context, one GPU, the 2 GB overhead allowance) and set what you need. A
   zeroed llm_plan is valid too, but means fp32 weights and KV and no overhead. */
typedef struct llm_plan {
    const llm_config *model;
    const llm_gpu *gpu;
    int n_gpus;          /* inference: tensor parallel degree; training: data parallel (ZeRO);
                            0 = 1 */
    int64_t batch;       /* sequences in flight (training: micro-batch per GPU); 0 = 1 */
    int64_t seq_len;     /* tokens per sequence; 0 = model->max_seq_len */
    llm_dtype weights;   /* inference weight dtype (training is always 2+2+12 B/param) */
    llm_dtype kv;        /* KV cache dtype (LLM_F32, LLM_F16, LLM_BF16 or LLM_INT8) */
    int train;           /* 0 inference, 1 training */
    int zero_stage;      /* 0..3, training only */
    int recompute;       /* training: full activation recomputation */
    int flash;           /* training: flash attention (no T x T activations) */
    double overhead_bytes; /* CUDA context, workspace, allocator slack; default 2e9 */
    double tight;        /* "tight" above this fraction of memory; 0 = 0.9 */
    double weight_bytes; /* inference: the weights' exact bytes when known (a file's tensors,
                            llm_model_shapes.tensor_bytes), in place of the model's parameters
                            in `weights`; 0 = count them */
} llm_plan;

/* fits: total <= tight x capacity; tight: up to the capacity (no room for fragmentation,
   a longer prompt, a bigger batch); does not fit: beyond it. */
typedef enum llm_verdict { LLM_FITS = 0, LLM_TIGHT, LLM_DOES_NOT_FIT } llm_verdict;
LLMDEF const char *llm_verdict_str(llm_verdict v); /* "fits", "tight", "does not fit" */

/* One concrete change and its effect. `value` is the new setting: a dtype for the
   weight / KV advice, KV heads for GQA, tokens, sequences, GPUs, or a ZeRO stage. */
typedef enum llm_advice_kind {
    LLM_ADVICE_WEIGHTS_DTYPE = 0, LLM_ADVICE_KV_DTYPE, LLM_ADVICE_GQA, LLM_ADVICE_SEQ,
    LLM_ADVICE_BATCH, LLM_ADVICE_TENSOR_PARALLEL, LLM_ADVICE_ZERO, LLM_ADVICE_FLASH,
    LLM_ADVICE_RECOMPUTE, LLM_ADVICE_DATA_PARALLEL
} llm_advice_kind;
typedef struct llm_advice {
    llm_advice_kind kind;
    int64_t value;
    double total_bytes;  /* per-GPU total after the change */
    llm_verdict verdict; /* after the change */
    int cumulative;      /* 1: on top of the items before it (training); 0: on its own */
} llm_advice;
LLMDEF const char *llm_advice_str(llm_advice_kind k); /* e.g. "tensor parallelism over N GPUs" */

#define LLM_PLAN_MAX_LINES 8
#define LLM_PLAN_MAX_ADVICE 12
typedef struct llm_plan_line {
    const char *name; /* "weights", "KV cache", ... */
    double bytes;     /* per GPU */
} llm_plan_line;
/* Inference lines: weights, KV cache, overhead. Training lines: 16-bit weights,
   16-bit gradients, Adam state (fp32 master, m, v), activations, overhead. */
typedef struct llm_plan_result {
    llm_params params;
    int64_t seq_len;          /* resolved */
    int n_lines;
    llm_plan_line line[LLM_PLAN_MAX_LINES];
    double total_bytes;       /* per GPU: the sum of the lines */
    double capacity_bytes;    /* per GPU, as the driver reports it */
    double headroom_bytes;    /* capacity - total; negative when it does not fit */
    double used;              /* total / capacity */
    llm_verdict verdict;
    double decode_seconds;    /* per decode step, lower bound: bytes read / bandwidth */
    double prefill_seconds;   /* batch x seq_len prompt tokens, lower bound: FLOPs / peak
                                 (training: one micro-batch's forward pass) */
    double prefill_flops;
    double step_flops;        /* training: one micro-batch on one GPU, 3 forward passes
                                 (4 with recomputation) of batch x seq_len tokens */
    int n_advice;             /* filled unless the plan fits: for inference each change on
                                 its own, for training a cumulative ladder that ends when it fits */
    llm_advice advice[LLM_PLAN_MAX_ADVICE];
} llm_plan_result;

LLMDEF llm_plan llm_plan_default(void);
/* LLM_EINVAL (and *reason) for a bad config, a missing GPU, batch / seq / GPUs out of
   range (each up to 2^31 - 1), a ZeRO stage outside 0..3, or an unknown dtype. */
LLMDEF llm_status llm_plan_evaluate(const llm_plan *p, llm_plan_result *r, const char **reason);

/* ======================================================================================
   >>kernels
   ====================================================================================== */

/* A weight matrix [out][in] in one of the stored formats; linear layers take this. data
   holds the rows one after another, each a run of elements or of fixed-size blocks (a
   block format keeps its scales inside the blocks and leaves scale NULL); a format with
   separate scales (LLM_INT8) has them in scale, one fp32 per group_size values. */
typedef struct llm_weight {
    llm_dtype type;     /* LLM_F32, LLM_F16, LLM_BF16 or LLM_INT8 */
    const void *data;   /* out rows of in values, row-major [out][in] */
    const float *scale; /* LLM_INT8: one fp32 scale per group_size consecutive values */
    int group_size;     /* LLM_INT8: divides in */
} llm_weight;

/* y[n][out] = x[n][in] W[out][in]^T + b[out]; b may be NULL. n_tokens = 1 is the decode
   GEMV. y must not overlap x. Any pool size gives bit-identical results; SIMD and scalar
   builds agree within float rounding (tests: 1e-5 of sum |x W|). Needs about 155 KiB of
   stack per thread for packing buffers (no heap). LLM_EINVAL for NULL pointers, sizes
   <= 0, or element counts whose byte size overflows a ptrdiff_t. */
LLMDEF llm_status llm_linear(float *y, const float *x, const float *W, const float *b,
                             int n_tokens, int d_in, int d_out, llm_threads *th);
/* The same with W in any llm_weight format (converted or dequantized on the fly).
   LLM_INT8 quantizes x the same way (per group, on ~64 KiB of stack) and multiplies in
   int8 -> int32; group_size at most 16384. ggml's block formats (LLM_Q8_0 .. LLM_Q6_K)
   quantize x to 8-bit blocks of 32 with an fp32 scale (64 KiB of stack, and 16 KiB per
   thread for llm_linear_wx's many-token kernel; d_in at most 37,440) and take integer
   dots per block. LLM_EUNSUPPORTED for other types. */
LLMDEF llm_status llm_linear_w(float *y, const float *x, const llm_weight *W, const float *b,
                               int n_tokens, int d_in, int d_out, llm_threads *th);
/* The same with flags. LLM_LIN_PREFILL says the n tokens are one sequence's (a prefill
   chunk), so no caller compares a token's row with the same token run alone: ggml's block
   formats may then take the many-token kernel (AVX-512, AVX2, NEON with sdot; 8 tokens on),
   whose sums run in another order than one token's, so its results agree with
   llm_linear_w's within float rounding rather than bit for bit. Any thread count still
   gives the same bits. llm_linear_w is llm_linear_wx with flags 0 and no scratch: each
   token's row the same bits whatever tokens share the call (llm_forward_batch relies on
   it). scratch (optional, any alignment): with llm_linear_wx_bytes(n_tokens, d_in) bytes
   or more, that kernel quantizes all n tokens' activations into it at once and reads
   each weight once per call; without, it takes as many tokens at a time as 64 KiB of
   stack holds (1,170 blocks of 32: 9 tokens at d_in = 4096), reading the weights once
   per such panel. */
#define LLM_LIN_PREFILL 1u
LLMDEF size_t llm_linear_wx_bytes(int n_tokens, int d_in);
LLMDEF llm_status llm_linear_wx(float *y, const float *x, const llm_weight *W, const float *b,
                                int n_tokens, int d_in, int d_out, unsigned flags, void *scratch,
                                size_t scratch_bytes, llm_threads *th);
/* C[M][N] = A[M][K] B[K][N], all row-major; the same engine and guarantees as llm_linear. */
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
   float, llm_rope_bytes(head_dim, max_pos) long. theta <= 0 means 10000.
   llm_rope_init trusts mem's length; llm_rope_init_ex checks it: mem_bytes short of
   llm_rope_bytes is LLM_EINVAL (nothing written). */
LLMDEF size_t llm_rope_bytes(int head_dim, int max_pos);
LLMDEF llm_status llm_rope_init(llm_rope *r, void *mem, int head_dim, int max_pos, float theta,
                                llm_rope_layout layout);
LLMDEF llm_status llm_rope_init_ex(llm_rope *r, void *mem, size_t mem_bytes, int head_dim, int max_pos,
                                   float theta, llm_rope_layout layout);
/* From a config: head_dim (0 = d_model / n_heads), rotary_dim (0 = head_dim), rope_theta
   (0 = 10000), rope_layout, and Llama 3.1 frequency scaling when rope_scale > 0
   (rope_low_freq_factor 0 = 1, rope_high_freq_factor 0 = 4, rope_orig_ctx 0 = 8192).
   mem holds mem_bytes >= llm_rope_bytes(head_dim, max_pos) (else LLM_EINVAL). */
LLMDEF llm_status llm_rope_init_config(llm_rope *r, void *mem, size_t mem_bytes, const llm_config *c, int max_pos);
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
#ifndef LLM_ATTN_MAX_HEAD_DIM
#define LLM_ATTN_MAX_HEAD_DIM 256 /* largest head_dim attention accepts (sizes its stack tiles) */
#endif
#define LLM_ATTN_TILE 64 /* keys per tile */
/* What llm_attention_ex and llm_attention_cache_ex do beyond plain attention. Zero means
   the default everywhere (llm_attention_desc_default() returns it, for C++): fp32 K and V,
   every position, 1 / sqrt(head_dim), no softcap. */
typedef struct llm_attention_desc {
    llm_dtype dtype;                /* of k and v: LLM_F32, LLM_F16, or LLM_INT8 */
    const float *k_scale, *v_scale; /* LLM_INT8: one fp32 scale per row, [n_kv_heads][kv_stride] */
    int window;    /* > 0: each query sees only the last `window` positions, itself included
                      (Mistral's sliding window); 0: all */
    int tile;      /* keys per tile, 1..LLM_ATTN_TILE; 0 = LLM_ATTN_TILE (tests use sizes that don't divide T) */
    float scale;   /* scores are scale * q.k; 0 = 1 / sqrt(head_dim) */
    float softcap; /* > 0: each score s becomes softcap * tanh(s / softcap) before the mask and
                      the softmax (Gemma 2: 50); 0: none */
} llm_attention_desc;
LLMDEF llm_attention_desc llm_attention_desc_default(void);
/* The general form behind llm_attention (same arguments, plus desc; NULL = the defaults).
   k and v hold desc->dtype elements. out may equal q.
   Errors: LLM_EINVAL for NULL pointers, non-positive sizes, n_q > n_kv, n_kv > kv_stride,
   n_heads not a multiple of n_kv_heads, a bad desc (negative window, tile outside
   0..LLM_ATTN_TILE, a scale or softcap that is negative, infinite or NaN, a subnormal
   softcap, LLM_INT8 without scales); LLM_EUNSUPPORTED for head_dim > LLM_ATTN_MAX_HEAD_DIM or another dtype.
   Memory: nothing is allocated; each thread works in a fixed stack frame of
   llm_attention_stack_bytes() (about 140 KiB with the defaults), whatever T is, so
   threads need stacks larger than that (glibc's default is 8 MiB; musl's 128 KiB is not).
   Accuracy: the SIMD and scalar paths are not bit-identical (summation order, a
   polynomial exp); both stay within 2e-5 of a double-precision reference on unit-scale
   inputs (tests/test_attention.c). Results don't depend on the number of threads. */
LLMDEF llm_status llm_attention_ex(float *out, const float *q, const void *k, const void *v, int n_q, int n_kv,
                                   int kv_stride, int n_heads, int n_kv_heads, int head_dim,
                                   const llm_attention_desc *desc, llm_threads *th);
/* Bytes of working memory one attention thread uses (its stack frame's tiles): a constant. */
LLMDEF size_t llm_attention_stack_bytes(void);

/* The KV cache: per layer, K and V as [n_kv_heads][capacity][head_dim]. Head-major, so
   one head's consecutive keys are adjacent: token-major puts them n_kv_heads rows apart,
   where long contexts collide in a few cache sets. */
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
   head_dim 0 means d_model / n_heads. Returns 0 for invalid input: a config that
   llm_config_check rejects (n_kv_heads 0 included), non-positive sizes, an unknown
   dtype, overflow.
   llm_kv_cache_init takes mem_bytes >= llm_kv_cache_bytes(c, capacity, 1, dtype) at mem,
   aligned for float (64 bytes is best), else LLM_EINVAL; the cache itself stores LLM_F32,
   LLM_F16 or LLM_INT8 (else LLM_EUNSUPPORTED). */
LLMDEF uint64_t llm_kv_cache_bytes(const llm_config *c, int64_t seq_len, int64_t batch, llm_dtype dtype);
LLMDEF llm_status llm_kv_cache_init(llm_kv_cache *kv, void *mem, size_t mem_bytes, const llm_config *c,
                                    int capacity, llm_dtype dtype);
LLMDEF llm_status llm_kv_cache_create(llm_kv_cache *kv, const llm_config *c, int capacity, llm_dtype dtype);
LLMDEF void llm_kv_cache_free(llm_kv_cache *kv);
/* Store one layer's K and V rows, k, v: [n_tokens][n_kv_heads][head_dim], at positions
   pos..pos+n_tokens-1; len becomes max(len, pos + n_tokens). Appending is pos = len.
   LLM_EFULL past capacity and LLM_ERANGE for pos < 0 or pos > len (a hole): nothing
   written; LLM_EINVAL for NULLs, a bad layer, n_tokens <= 0. In the layout a model
   writes layer 0 at pos = len, then layers 1.. at the same pos (pos < len by then). */
LLMDEF llm_status llm_kv_cache_write(llm_kv_cache *kv, int layer, int pos, const float *k, const float *v,
                                     int n_tokens);
LLMDEF llm_status llm_kv_cache_truncate(llm_kv_cache *kv, int len); /* rewind (0 <= len <= kv->len, else LLM_ERANGE) */
LLMDEF void llm_kv_cache_reset(llm_kv_cache *kv);                   /* len = 0 */
/* Causal attention of n_q queries at positions pos..pos+n_q-1 over positions 0..pos+n_q-1
   of one layer of the cache, in whatever dtype it stores; window > 0 limits each query
   to the last `window` positions (Mistral's sliding window). q, out: [n_q][n_heads][hd];
   n_heads a multiple of the cache's n_kv_heads. LLM_ERANGE if pos < 0 or pos + n_q >
   kv->len (write the keys first). Decode is n_q = 1, pos = kv->len - 1. */
LLMDEF llm_status llm_attention_cache(float *out, const float *q, const llm_kv_cache *kv, int layer, int n_q,
                                      int pos, int n_heads, int window, llm_threads *th);
/* The same with a desc (NULL = the defaults) for the window, scale, softcap and tile; the
   cache gives the dtype and scales, so desc's must be 0 and NULL (else LLM_EINVAL). */
LLMDEF llm_status llm_attention_cache_ex(float *out, const float *q, const llm_kv_cache *kv, int layer, int n_q,
                                         int pos, int n_heads, const llm_attention_desc *desc, llm_threads *th);

/* ======================================================================================
   >>model
   ====================================================================================== */

/* Running a model (examples/08_generate.c is the commented version):

       llm_model m;  llm_tokenizer tok;  llm_state s;  llm_sampler smp;  const char *why;
       llm_llama2c_load_file(&m, "stories15M.bin", &why);            weights point into the file
       llm_tokenizer_load_file(&tok, "tokenizer.bin", m.config.vocab, &why);
       llm_state_create(&s, &m.config, 256, 64, LLM_F32);             KV cache + activations, once
       llm_sampler_create(&smp, m.config.vocab, 0.8f, 0.9f, seed);
       llm_tokenize(&tok, "Once upon a time", 1, 0, ids, cap, &n);    BOS + BPE
       llm_forward(&s, &m.weights, ids, n, 0, logits, 0, th);         prefill: logits of the last
       for (pos = n; pos < 256; pos++) {                              decode, one token at a time
           next = llm_sample(&smp, logits);
           llm_forward(&s, &m.weights, &next, 1, pos, logits, 0, th);
       }

   Every call returns llm_status; none allocates except the *_create / *_load_file ones
   and llm_tokenize above 128 tokens. */

/* One decoder block's weights. Every pointer points into memory the caller owns (a file
   read or mapped into memory, or flash); nothing is copied. The config says which biases
   exist (bias, norm_bias): those must be set and the others NULL, else LLM_EINVAL.
   Shapes ([out][in]): wq [n_heads*hd][d], wk/wv [n_kv_heads*hd][d], wo [d][n_heads*hd],
   w1 (gate) and w3 (up) [d_ff][d], w2 (down) [d][d_ff]; w3 is unused by LLM_FFN_GELU.
   Mixture of experts (n_experts > 0): w1, w3 and w2 hold every expert's matrix of those
   shapes one after another, [n_experts][d_ff][d] and [n_experts][d][d_ff] (a GGUF
   ffn_*_exps tensor as it is), in any format whose rows are whole blocks; router
   [n_experts][d]; the shared experts side by side as one FFN of width
   S = n_shared_experts * d_ff_shared: ws1, ws3 [S][d], ws2 [d][S], and ws_gate [d] with
   shared_gate. A dense config leaves these NULL. Experts stored each on its own (a
   Hugging Face file: anywhere in it, in any order): experts points at [n_experts][3]
   llm_weights, expert e's w1, w2, w3 at experts[3 e + 0, 1, 2], every expert's w1 of one
   type (and so w2's, w3's), and w1, w2, w3 are expert 0's; NULL = the stacks above. */
/* A LoRA adapter on one projection, applied by the forward pass without merging:
   y = x W^T + scale (x A^T) B^T, A [rank][in] and B [out][rank] fp32, whatever W's format
   (llm_lora_apply and llm_lora_apply_gguf in >>train fill these). */
typedef struct llm_lora_ab {
    const float *a, *b; /* both NULL: this projection has none */
    int rank;
    float scale;
} llm_lora_ab;

typedef struct llm_layer_weights {
    const float *attn_norm, *attn_norm_b; /* [d]: before attention (after it when post_norm) */
    llm_weight wq, wk, wv, wo;
    const float *bq, *bk, *bv, *bo;
    const float *ffn_norm, *ffn_norm_b;   /* [d]: before the FFN (after it when post_norm) */
    llm_weight w1, w2, w3;
    const float *b1, *b2, *b3;
    const float *q_norm, *k_norm;          /* [head_dim]: qk_norm only */
    const float *attn_post_norm, *ffn_post_norm; /* [d]: sandwich_norm only, on each sub-layer's output */
    llm_weight router;                     /* [n_experts][d]: MoE only */
    llm_weight ws1, ws2, ws3;              /* shared experts: n_shared_experts > 0 only */
    const float *ws_gate;                  /* [d]: shared_gate only */
    const llm_weight *experts;             /* NULL, or [n_experts][3]: each expert's w1, w2, w3 (above) */
    const llm_lora_ab *lora;               /* NULL, or [7] in LLM_LORA_* order: q k v o w1 w2 w3 */
} llm_layer_weights;

/* A whole model's weights, again only pointers into caller memory. */
typedef struct llm_weights {
    llm_weight tok_embed;             /* [vocab][d] */
    const float *pos_embed;           /* [max_seq_len][d], LLM_POS_LEARNED only */
    const llm_layer_weights *layers;  /* [n_layers] */
    const float *out_norm, *out_norm_b; /* final norm [d]; NULL = none */
    llm_weight lm_head;               /* [vocab][d]; tied embeddings: same as tok_embed */
} llm_weights;

/* A model = its architecture + its weights. llm_llama2c_load fills one from a buffer;
   owned is set only by the functions that allocate (llm_llama2c_load_file). */
typedef struct llm_model {
    llm_config config;
    llm_weights weights;
    int file_version; /* llama2.c: 0 legacy, 1 fp32, 2 int8; GGUF: 2 or 3 */
    void *owned;
    char why[160];    /* a loader's reason that names a tensor or key (*why may point here) */
} llm_model;
LLMDEF void llm_model_free(llm_model *m); /* frees what a *_load_file allocated */

/* One decoder block over n_tokens tokens at positions pos.., in place on x[n_tokens][d]:
     pre-norm  (Llama, GPT-2):       x += Attn(Norm(x));  x += FFN(Norm(x))
     post-norm (Vaswani et al. 2017): x = Norm(x + Attn(x)); x = Norm(x + FFN(x))
     sandwich  (Gemma 2):            x += Norm'(Attn(Norm(x)));  x += Norm'(FFN(Norm(x)))
   Inside Attn: q/k head norms (qk_norm), RoPE, the layer's window, attn_scale, attn_softcap.
   writing this layer's K and V into kv at pos..pos+n_tokens-1. rope may be NULL unless
   c->pos is LLM_POS_ROPE. scratch: llm_block_scratch_bytes(c, n_tokens) bytes, any
   alignment of 4. On an error kv->len is restored to its value on entry (rows from pos on
   may have been overwritten); it does not truncate: a caller rewinding must do that
   (llm_kv_cache_truncate), as llm_forward does. */
LLMDEF size_t llm_block_scratch_bytes(const llm_config *c, int n_tokens);
LLMDEF llm_status llm_block_forward(const llm_config *c, const llm_layer_weights *w, const llm_rope *rope,
                                   llm_kv_cache *kv, int layer, float *x, int n_tokens, int pos,
                                   void *scratch, llm_threads *th);

/* Everything a forward pass writes, sized once: RoPE table, KV cache for `capacity`
   positions, the residual stream and block scratch for up to max_tokens tokens per pass
   (longer prompts run in chunks). Then no call allocates. A config llm_config_runnable
   refuses gets LLM_EUNSUPPORTED from llm_state_init / llm_state_create (and 0 bytes). */
typedef struct llm_state {
    llm_config config;
    int capacity, max_tokens;
    llm_rope rope;
    llm_kv_cache kv;
    float *x;      /* [max_tokens][d_model] residual stream */
    void *scratch; /* llm_block_scratch_bytes(config, max_tokens) */
    void *owned;   /* set by llm_state_create */
} llm_state;

LLMDEF size_t llm_state_bytes(const llm_config *c, int capacity, int max_tokens, llm_dtype kv_dtype);
LLMDEF llm_status llm_state_init(llm_state *s, void *mem, size_t mem_bytes, const llm_config *c, int capacity,
                                 int max_tokens, llm_dtype kv_dtype);
LLMDEF llm_status llm_state_create(llm_state *s, const llm_config *c, int capacity, int max_tokens,
                                   llm_dtype kv_dtype);
LLMDEF void llm_state_free(llm_state *s);

/* The whole model on tokens[n_tokens] at positions pos..pos+n_tokens-1:
   embedding (+ learned positions) -> n_layers blocks -> final norm -> LM head.
   n_tokens = 1 is one decode step; more is a prefill. logits receives [vocab] floats for
   the last token, or [n_tokens][vocab] when all_logits. pos must be <= the cache's length;
   pos < length rewinds: the cache is first truncated to pos, so positions of the old
   sequence past the new one's end are gone (a later call at such a position is
   LLM_ERANGE). On any error the cache is truncated back to pos (nothing of this call
   counts as written); errors found before any work (bad arguments) leave it untouched. */
LLMDEF llm_status llm_forward(llm_state *s, const llm_weights *w, const int *tokens, int n_tokens, int pos,
                              float *logits, int all_logits, llm_threads *th);

/* Several conversations at once: one decode step for n_seqs sequences, each with its own
   llm_state (KV cache and position; they may be at different positions and lengths),
   that reads every weight once for all of them. Sequence i takes tokens[i] at position
   pos[i] (<= its cache's length; less rewinds it, as llm_forward does) and receives its
   logits in logits[i][vocab]. The linear layers run on the n_seqs rows at once;
   embedding, norms, RoPE and attention run per sequence against its own cache. The
   logits are the same bits as n_seqs separate llm_forward(s, w, &tokens[i], 1, pos[i],
   ...) calls with fp32, int8 and ggml block weights, and with any thread count
   (tests/test_batch.c); f16 and bf16 weights from 4 sequences on agree within float
   rounding (their 4-token tile sums in another order). Prefill with llm_forward first.
       size_t n = llm_forward_batch_bytes(&config, 3);      once: caller memory, any alignment
       llm_state *seqs[3] = {&alice, &bob, &carol};
       llm_forward_batch(seqs, 3, &m.weights, next, pos, logits, scratch, th);
   scratch: llm_forward_batch_bytes(config, n_seqs) bytes; 0 for an unrunnable config or
   n_seqs outside 1..LLM_BATCH_MAX. Every state must have the same llm_config (the name
   aside) and appear once. Errors: LLM_EINVAL for NULLs, a mismatched config, a repeated
   state, a bad token; LLM_EFULL when a cache has no room for pos[i]; LLM_ERANGE for
   pos[i] > its cache's length. All of these are found before any cache is touched; on
   an error later every cache is truncated back to its pos[i], so nothing of the step
   counts as written. */
#define LLM_BATCH_MAX 4096
LLMDEF size_t llm_forward_batch_bytes(const llm_config *c, int n_seqs);
LLMDEF llm_status llm_forward_batch(llm_state *const *seqs, int n_seqs, const llm_weights *w, const int *tokens,
                                    const int *pos, float *logits, void *scratch, llm_threads *th);

/* Bytes one decode step at position pos reads from memory: every weight it multiplies
   (each matrix once, one embedding row) plus the KV cache rows 0..pos (on a windowed
   layer only the last sliding_window of them). Mixture of experts: the router in full,
   n_experts_per_tok experts' matrices and the shared experts (a token reads only the
   experts it is routed to). Decoding is bound by this: tok/s <= read bandwidth / bytes. */
LLMDEF double llm_decode_bytes(const llm_config *c, const llm_weights *w, llm_dtype kv_dtype, int pos);

/* Sampling exactly as llama2.c's run.c does it, so a seed reproduces its stories:
   temperature 0 is argmax (the lowest id on ties); otherwise softmax(logits / temperature)
   and then top-p (nucleus) sampling when 0 < topp < 1, else plain multinomial, with
   run.c's xorshift generator (llm_xorshift_u32). The sampler's scratch (the top-p sort)
   lives in caller memory: llm_sampler_bytes(vocab). */
typedef struct llm_logit_bias {
    int id;
    float bias;
} llm_logit_bias;

typedef struct llm_sampler_params {
    int greedy;              /* 1: argmax after bias and penalties (stages 4-9 skipped) */
    float temperature;       /* > 0; 0 = 1.0 (run.c's default) */
    int top_k;               /* 0 = off; >= vocab is off too */
    float top_p;             /* in (0, 1]; 0 = 0.9 (run.c's default), 1 = off */
    float min_p;             /* in [0, 1]; 0 = off */
    float repeat_penalty;    /* > 0; 0 = 1.0 (off); llama.cpp's and HF's usual 1.1 .. 1.3 */
    float frequency_penalty; /* 0 = off; may be negative (encourages repeats) */
    float presence_penalty;  /* 0 = off; may be negative */
    int penalty_last_n;      /* the window of accepted tokens the penalties count; 0 = 64 */
    const llm_logit_bias *logit_bias; /* n_logit_bias entries, copied at init; ids in 0..vocab-1 */
    int n_logit_bias;
    uint64_t seed;           /* 0 = LLM_SAMPLER_SEED0 (as llm_sampler_init) */
} llm_sampler_params;

typedef struct llm_sampler {
    int vocab;
    float temperature, topp;
    uint64_t rng;  /* xorshift state: the seed, or LLM_SAMPLER_SEED0 for seed 0 */
    void *scratch; /* 2 * vocab (index, probability) pairs; a chain's: llm_sampler_chain_bytes */
    void *owned;
    /* the sampler chain's (>>generation), set by llm_sampler_chain_init only */
    int chain;                 /* 1: llm_sample runs the chain */
    llm_sampler_params params; /* defaults resolved; logit_bias points into scratch */
    int *recent;               /* ring of the last params.penalty_last_n accepted tokens */
    int n_recent, recent_at;
    int *counts;               /* [vocab], all zero between calls */
} llm_sampler;

LLMDEF size_t llm_sampler_bytes(int vocab);
/* mem: mem_bytes >= llm_sampler_bytes(vocab), 4-byte aligned, else LLM_EINVAL. Seed 0
   means "pick one": xorshift would stay at state 0 (every draw 0, near-greedy), so it is
   replaced by the fixed LLM_SAMPLER_SEED0, the same tokens every run; seed from the
   time or a counter for a different run each time (llm-run's -s 0 uses the time). */
#define LLM_SAMPLER_SEED0 0x9E3779B97F4A7C15ull
LLMDEF llm_status llm_sampler_init(llm_sampler *s, void *mem, size_t mem_bytes, int vocab, float temperature,
                                   float topp, uint64_t seed);
LLMDEF llm_status llm_sampler_create(llm_sampler *s, int vocab, float temperature, float topp, uint64_t seed);
LLMDEF void llm_sampler_free(llm_sampler *s);
/* The next token; logits[vocab] is overwritten (scaled, then probabilities). -1 on bad
   arguments, including a sampler that was freed or never initialized, and for a chain
   (llm_sampler_chain_init, >>generation) when every token is banned. */
LLMDEF int llm_sample(llm_sampler *s, float *logits);
LLMDEF uint32_t llm_xorshift_u32(uint64_t *state); /* run.c's random_u32 */
LLMDEF float llm_xorshift_f32(uint64_t *state);    /* run.c's random_f32: [0, 1) */

/* ---- >>generation: the sampler chain, stop strings, chat templates -------------------

   The sampler chain: one llm_sampler configured by llm_sampler_params instead of (T, top-p),
   sampled with the same llm_sample. Zero in a field means its default (sokol's desc rule);
   the defaults of temperature and top_p are run.c's, so a zeroed struct with a seed
   draws exactly what llm_sampler_create(s, vocab, 1.0f, 0.9f, seed) draws. Note: because
   zero is "default", temperature 0 is 1.0 here, not greedy: set greedy = 1 for argmax; and
   top_p 0 is 0.9: set top_p = 1 to turn it off.

   The stages, in this order (Hugging Face's order of logits processors and warpers, which
   run.c shares: temperature before the truncations):
     1. logit bias      logit[id] += bias for each (id, bias) given (-INFINITY bans id)
     2. penalties       over the last penalty_last_n tokens accepted (llama.cpp's
                        llama_sampler_penalties): each distinct token t seen c times there,
                          logit = logit > 0 ? logit / repeat_penalty : logit * repeat_penalty
                          (CTRL, Keskar et al. 2019, sec. 4.1; HF's RepetitionPenalty too)
                          logit -= c * frequency_penalty + presence_penalty
                          (OpenAI's frequency / presence penalties)
     3. greedy          if set: the first maximum, and stop here
     4. temperature     logit /= temperature
     5. top-k           the k largest logits (ties: the lower id first)
     6. softmax         over what is left (run.c's order of float operations)
     7. top-p           the shortest run of most likely tokens whose mass exceeds top_p
                        (run.c's rule: cumulative sum > top_p; the token crossing it is kept)
     8. min-p           drop tokens below min_p * (the largest probability) (Nguyen et al. 2024)
     9. draw            one xorshift coin (run.c's) over the mass left, renormalized
   Cost per token: O(V) for stages 1-4, 6, 8, 9 plus O(window) for 2; top-k is a heap of k
   over the V logits, O(V log k), and never sorts the vocabulary; top-p without top-k puts
   the tokens above run.c's cutoff (1 - top_p) / (V - 1) in a heap, O(V), and pops only the
   m it keeps, O(m log V). No allocation: the memory is sized once by llm_sampler_chain_bytes.
   NaN logits count as -INFINITY (llm_sample on a (T, top-p) sampler does not look). */
/* The struct with every default written out (for C++, which has no designated
   initializers out of order, and for printing what a zero means). */
LLMDEF llm_sampler_params llm_sampler_params_default(void);
/* Bytes for a chain over vocab; 0 for invalid params (then _init says why with EINVAL). */
LLMDEF size_t llm_sampler_chain_bytes(int vocab, const llm_sampler_params *p);
/* mem: 8-byte aligned. LLM_EINVAL for a NaN or out-of-range field, a logit-bias id outside
   the vocabulary, or p NULL. The sampler is freed with llm_sampler_free. */
LLMDEF llm_status llm_sampler_chain_init(llm_sampler *s, void *mem, size_t mem_bytes, int vocab,
                                         const llm_sampler_params *p);
LLMDEF llm_status llm_sampler_chain_create(llm_sampler *s, int vocab, const llm_sampler_params *p);
/* The chain's final distribution, without drawing (what llm_sample would draw from):
   stages 1-8 on logits (overwritten), then the candidates in the order the draw walks
   them, ids[] and probs[] (renormalized to sum 1), *n of them; cap >= vocab always
   suffices, else LLM_ERANGE. The window and the generator are unchanged. LLM_EINVAL on a
   (T, top-p) sampler; LLM_ERANGE (and *n = 0) when every token is banned. */
LLMDEF llm_status llm_sampler_probs(llm_sampler *s, float *logits, int *ids, float *probs, int cap, int *n);
/* Tokens the penalties should count but llm_sample did not draw (the prompt, forced
   tokens): llm_sample accepts each token it returns by itself. LLM_EINVAL for an id
   outside the vocabulary; a no-op on a (T, top-p) sampler, which has no window. */
LLMDEF llm_status llm_sampler_accept(llm_sampler *s, int token);
/* Empties the penalty window (a new conversation); the generator state is kept. */
LLMDEF void llm_sampler_reset(llm_sampler *s);

/* Stop strings over streamed text. Feed the bytes of each decoded piece as they come;
   the matcher passes on the bytes that cannot be the start of a stop string and holds
   back the rest, the longest tail of the text so far that is a proper prefix of some stop
   string, until a later byte rules it out. When a stop string completes, the text before
   it is released, `stopped` is set to its index and everything after it is dropped.
   Held bytes are always a prefix of a stop string, so the matcher keeps only (which,
   how many): no buffer. A piece may split anywhere (inside a UTF-8 character, inside a
   stop string); fed the output of a decoder that emits whole UTF-8 characters, and with
   stop strings of whole characters, it releases whole characters too. The stop strings
   are the caller's and must outlive the matcher; empty ones are refused. */
typedef struct llm_stop {
    const char *const *stops;
    int n_stops;
    int stopped;        /* -1 until a stop string completes, then its index */
    int held_stop;      /* the held bytes are stops[held_stop][0 .. n_held) */
    size_t n_held, max_len;
} llm_stop;
LLMDEF llm_status llm_stop_init(llm_stop *m, const char *const *stops, int n_stops);
/* Bytes piece[0..n) in; out receives what is safe to show, *out_n bytes (no NUL); out
   must hold n + llm_stop_held(m) bytes (at most n + the longest stop string - 1), else
   LLM_ERANGE and nothing changes. After a stop, every feed releases nothing. */
LLMDEF llm_status llm_stop_feed(llm_stop *m, const char *piece, size_t n, char *out, size_t cap, size_t *out_n);
LLMDEF size_t llm_stop_held(const llm_stop *m);
/* The end of the text (an end-of-generation token, the length limit): the held bytes
   are released into out (cap >= llm_stop_held(m)). */
LLMDEF llm_status llm_stop_flush(llm_stop *m, char *out, size_t cap, size_t *out_n);

/* Chat templates without a Jinja engine: each family's template is recognized by the
   substrings that identify it in the file's tokenizer.chat_template and rendered by hand
   to the text the Jinja would print, special tokens written as text (encode it with
   special-token parsing on, and without adding a BOS: the templates that want one write
   it). The families, and what tells them apart (first match wins):
     llama3      <|start_header_id|>            Llama 3, 3.1, 3.2 (headers; no date preamble)
     chatml      <|im_start|>                   Qwen 2/2.5/3, SmolLM; Qwen 3's <think> rule
                                                when the template has </think>
     gemma       <start_of_turn>                Gemma 1-3; a system turn is folded into the
                                                first user turn as Gemma 3's template does
     phi3        <|user|> and <|end|>           Phi-3, 3.5; the first Phi-3 template has no
                                                <|system|> and drops a system turn
     llama2      [INST] and <<SYS>>             Llama 2 chat
     mistral-v3  [INST] ... "[/INST]" (no space) Mistral 7B v0.3, Mistral Nemo: the system
                                                text goes before the last user turn
     mistral-v1  [INST] ... ' [/INST]'          Mistral 7B v0.1/v0.2, Mixtral: no system role
   Anything else is LLM_EUNSUPPORTED with `why` quoting the start of the template. Content
   is trimmed where the template says `trim` / `.strip()` (ASCII white space; Python's
   strip also removes Unicode spaces). What is not rendered: tools, images, the default
   system prompts some chatml templates insert when there is none, Llama 3.1's "Cutting
   Knowledge Date" system preamble. */
typedef enum llm_chat_kind {
    LLM_CHAT_NONE = 0,
    LLM_CHAT_LLAMA3,
    LLM_CHAT_CHATML,
    LLM_CHAT_GEMMA,
    LLM_CHAT_PHI3,
    LLM_CHAT_LLAMA2,
    LLM_CHAT_MISTRAL_V3,
    LLM_CHAT_MISTRAL_V1,
    LLM_CHAT_KIND_COUNT
} llm_chat_kind;

/* Variants inside a family, read from the template's text by llm_chat_template_detect */
#define LLM_CHAT_ALWAYS_GEN 1u  /* the template writes the generation prompt unasked */
#define LLM_CHAT_NO_SYSTEM 2u   /* a system turn is dropped (first Phi-3) */
#define LLM_CHAT_NO_BOS 4u      /* the template writes no bos_token where its family does */
#define LLM_CHAT_THINK 8u       /* Qwen 3's <think> handling of assistant turns */
#define LLM_CHAT_EOS_SPACE 16u  /* Mistral v0.1: a space after each assistant turn's </s> */

typedef struct llm_chat_template {
    llm_chat_kind kind;
    unsigned flags;  /* LLM_CHAT_* variants */
    char why[160];   /* detect's reason when it fails */
} llm_chat_template;

/* One turn: role "system", "user" or "assistant" (llama3 and chatml write any role name
   as given), content as UTF-8; both NUL-terminated. */
typedef struct llm_chat_msg {
    const char *role;
    const char *content;
} llm_chat_msg;

/* From a template's text (not NUL-terminated: a GGUF string is not). */
LLMDEF llm_status llm_chat_template_detect(llm_chat_template *t, const char *jinja, size_t len);
/* By family name ("llama3", "chatml", "qwen3" (chatml with THINK), "gemma", "phi3",
   "llama2", "mistral-v3", "mistral-v1"), the family's usual variant; LLM_ENOTFOUND. */
LLMDEF llm_status llm_chat_template_named(llm_chat_template *t, const char *name);
LLMDEF const char *llm_chat_kind_name(llm_chat_kind k);
/* The text of msgs[0..n) and, when add_generation_prompt, the opening of the assistant's
   turn. bos / eos: the texts of the vocabulary's BOS and EOS tokens, NULL for the
   family's usual ones (<|begin_of_text|>, <s>, <bos>; </s>, <|endoftext|>). Writes
   *out_len bytes and a NUL when they fit in cap; else LLM_ERANGE, with *out_len the bytes
   needed (out may be NULL with cap 0 to ask). LLM_EINVAL: a NULL or empty role, a NULL
   content, a role other than the three outside llama3 and chatml, and what the family's
   template raises an error on: in llama2, gemma and mistral, turns (after a first system
   turn) that do not alternate user / assistant, a later system turn included; any system
   turn in mistral-v1. llama3, chatml and phi3 render a later system turn where it is. */
LLMDEF llm_status llm_chat_render(const llm_chat_template *t, const llm_chat_msg *msgs, int n,
                                  int add_generation_prompt, const char *bos, const char *eos, char *out,
                                  size_t cap, size_t *out_len);

/* The end-of-generation set of a GGUF vocabulary: tokenizer.ggml.eos_token_id, eot_token_id
   and eom_token_id when present, and the ids of the end-of-turn tokens found by their text
   in tokenizer.ggml.tokens: <|eot_id|>, <|eom_id|>, <|im_end|>, <end_of_turn>, <|end|>,
   <|endoftext|> (llama.cpp's rule: a chat model's template ends its turn with one of these
   even where the file's eos is another). Each id once, in that order, *n of them (at most
   cap; LLM_ERANGE with *n the count when more). LLM_EFORMAT for an id outside the token
   list or a token list that is not an array of strings. */
struct llm_gguf;
LLMDEF llm_status llm_gguf_eog_ids(const struct llm_gguf *g, int *ids, int cap, int *n);

/* ======================================================================================
   >>files
   ====================================================================================== */

/* llama2.c checkpoints (Karpathy's run.c / runq.c), little-endian:
     version 0 (legacy): 7 int32 header dim, hidden_dim, n_layers, n_heads, n_kv_heads,
       vocab (negative: separate classifier), seq_len; then fp32 tensors, each for all
       layers: embedding, attention norms, wq, wk, wv, wo, FFN norms, w1, w2, w3, final
       norm, two unused RoPE tables, [classifier].
     version 1: 256-byte header (magic "ak42", version, the 7 ints, shared-classifier
       byte); norms first, then embedding, wq .. w3, [classifier]; fp32.
     version 2: as version 1 plus int32 group_size; norms fp32; every matrix per layer as
       int8 values followed by one fp32 scale per group_size values.
   The weights point INTO buf (nothing is copied), so buf must outlive the model and be
   4-byte aligned. Every size is checked against len (64-bit arithmetic) before anything
   is read: a truncated, oversized or nonsensical file is LLM_EFORMAT, and *why (if not
   NULL) names the problem. On a big-endian host llm_llama2c_load (weights used in place)
   is LLM_EUNSUPPORTED; llm_llama2c_load_file byte-swaps the floats of its own copy. */
LLMDEF llm_status llm_llama2c_read_config(llm_config *c, int *version, const void *buf, size_t len,
                                          const char **why);
/* layers: caller memory for c.n_layers entries (n_layers_cap of them available). */
LLMDEF llm_status llm_llama2c_load(llm_model *m, const void *buf, size_t len, llm_layer_weights *layers,
                                   int n_layers_cap, const char **why);

/* The llama2.c tokenizer (tokenizer.bin: int32 max_token_length, then per token: fp32
   score, int32 length, the bytes). The vocabulary size is not in the file: it is the
   model's. Ids 1 and 2 are BOS <s> and EOS </s>; byte-fallback pieces <0x00>..<0xFF>. */
typedef struct llm_tokenizer {
    int vocab, max_token_length;
    float *scores;     /* [vocab] merge priority: higher merges first */
    uint32_t *offset;  /* [vocab + 1]: piece i is bytes[offset[i] .. offset[i+1]-2], NUL-terminated */
    char *bytes;
    int32_t *sorted;   /* ids ordered by piece, for binary search */
    int byte_id[256];  /* id of <0xNN>, or -1 */
    unsigned char raw[256]; /* raw[b] = b: what a <0xNN> piece decodes to */
    void *owned;
} llm_tokenizer;

/* 0 for vocab out of 1..2^24 or len + vocab + 1 > UINT32_MAX (pieces use 32-bit offsets:
   such a file is LLM_EFORMAT in llm_tokenizer_init). */
LLMDEF size_t llm_tokenizer_bytes(int vocab, size_t len);
LLMDEF llm_status llm_tokenizer_init(llm_tokenizer *t, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                     int vocab, const char **why);
LLMDEF llm_status llm_tokenizer_create(llm_tokenizer *t, const void *buf, size_t len, int vocab, const char **why);
LLMDEF void llm_tokenizer_free(llm_tokenizer *t);
/* Encode as run.c does: [BOS] [dummy-prefix " " if text is not empty] one token per UTF-8
   code point (or its bytes as <0xNN>), then repeatedly merge the adjacent pair whose
   concatenation is the best-scoring piece (ties: the leftmost pair); [EOS]. The same
   tokens as run.c in O(n log n) rather than its O(n^2). cap >= strlen(text) + 3 always
   suffices; a smaller cap that overflows is LLM_ERANGE (the tokens before merging must
   fit). Above 128 tokens llm_tokenize takes its merge scratch from LLM_MALLOC and frees
   it before returning (LLM_ENOMEM if that fails). llm_tokenize_scratch never allocates:
   scratch of llm_tokenize_scratch_bytes(cap) bytes always suffices (less than this text's
   unmerged tokens need is LLM_EINVAL); that size is 0 for a negative count. */
LLMDEF llm_status llm_tokenize(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                               int *n_ids);
LLMDEF size_t llm_tokenize_scratch_bytes(int max_tokens);
LLMDEF llm_status llm_tokenize_scratch(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                                       int *n_ids, void *scratch, size_t scratch_bytes);
/* The text of `token` following `prev`: the leading space is dropped after BOS, and a
   <0xNN> piece is the raw byte. NULL for an id out of range. */
LLMDEF const char *llm_token_piece(const llm_tokenizer *t, int prev, int token, int *len);
/* run.c's safe_printf rule: 0 for an empty piece or a single byte that is neither
   printable ASCII nor white space (a lone UTF-8 fragment or control byte). */
LLMDEF int llm_piece_printable(const char *piece, int len);
/* All pieces of ids[0..n-1] (the first follows prev; BOS and EOS print nothing), raw
   bytes included, NUL-terminated; LLM_ERANGE if cap is too small. */
LLMDEF llm_status llm_detokenize(const llm_tokenizer *t, int prev, const int *ids, int n, char *out, size_t cap,
                                 size_t *out_len);

/* ---- GGUF, llama.cpp's model file (ggml's docs/gguf.md) -----------------------------
   Little-endian: "GGUF", uint32 version, uint64 tensor count, uint64 metadata count; the
   metadata, each (string key, uint32 value type, value); the tensor infos, each (string
   name, uint32 n_dims, uint64 ne[n_dims] innermost first, uint32 ggml type, uint64 offset
   into the data section); zero padding to general.alignment (default 32); the tensor
   data. A string is a uint64 length and that many bytes, no terminator; an array is a
   uint32 element type, a uint64 count and the elements.
   llm_gguf_init reads the header, every metadata value and every tensor info, checks
   each count, length, offset and dimension in 64-bit against the buffer, and records
   where each one is: zero-copy, no weight is read. Versions 2 and 3 are read; version 1
   and big-endian files are LLM_EUNSUPPORTED; anything malformed (truncated, a length
   past the end, a duplicate key or tensor name, n_dims outside 1..4, a dimension product
   that overflows, a tensor outside the data or off its alignment, an unknown value or
   tensor type) is LLM_EFORMAT, and *why names the field. */
typedef enum llm_gguf_type {
    LLM_GGUF_UINT8 = 0, LLM_GGUF_INT8, LLM_GGUF_UINT16, LLM_GGUF_INT16, LLM_GGUF_UINT32, LLM_GGUF_INT32,
    LLM_GGUF_FLOAT32, LLM_GGUF_BOOL, LLM_GGUF_STRING, LLM_GGUF_ARRAY, LLM_GGUF_UINT64, LLM_GGUF_INT64,
    LLM_GGUF_FLOAT64, LLM_GGUF_TYPE_COUNT
} llm_gguf_type;

/* Bytes inside the file's buffer: not NUL-terminated. */
typedef struct llm_gguf_str {
    const char *s;
    uint64_t n;
} llm_gguf_str;

typedef struct llm_gguf_kv {
    llm_gguf_str key;
    llm_gguf_type type;
    llm_gguf_type arr_type;     /* LLM_GGUF_ARRAY: the elements' type */
    uint64_t arr_n;             /* LLM_GGUF_ARRAY: how many */
    const unsigned char *value; /* the value in the buffer (an array: its first element) */
    uint64_t bytes;             /* from value to the value's end */
} llm_gguf_kv;

typedef struct llm_gguf_tensor {
    llm_gguf_str name;
    int n_dims;
    int64_t ne[4];    /* ne[0] is a row's length; a [out][in] matrix is ne = {in, out}; unused 1 */
    uint32_t type;    /* ggml's type id: llm_gguf_type_name(type) names it */
    uint64_t offset;  /* from the start of the data section */
    uint64_t bytes;   /* its data's size, from the type's block layout */
    const void *data; /* in the buffer */
} llm_gguf_tensor;

typedef struct llm_gguf {
    uint32_t version, alignment;
    int64_t n_kv, n_tensors;
    const unsigned char *buf;
    size_t len;
    uint64_t data_offset;     /* where the data section starts */
    llm_gguf_kv *kv;          /* [n_kv] */
    llm_gguf_tensor *tensors; /* [n_tensors] */
    int64_t *kv_order, *tensor_order; /* indices sorted by name, for the lookups */
    void *owned;              /* set by llm_gguf_create */
    char why[160];            /* a reason that names a key or tensor (*why may point here) */
} llm_gguf;

/* Bytes of the kv and tensor tables of the GGUF in buf (a 64-bit-checked bound from the
   header's counts); 0 if buf does not start like a GGUF file or its counts cannot fit.
   mem: at least that many bytes, 8-byte aligned. buf must outlive g. An error leaves g
   with no table (the reason may be in g->why). */
LLMDEF size_t llm_gguf_bytes(const void *buf, size_t len);
LLMDEF llm_status llm_gguf_init(llm_gguf *g, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                const char **why);
LLMDEF llm_status llm_gguf_create(llm_gguf *g, const void *buf, size_t len, const char **why); /* allocates the tables */
LLMDEF void llm_gguf_free(llm_gguf *g);
/* Lookups: the key's index (-1 if absent), the tensor by name (NULL if absent). */
LLMDEF int64_t llm_gguf_find_key(const llm_gguf *g, const char *key);
LLMDEF const llm_gguf_tensor *llm_gguf_find_tensor(const llm_gguf *g, const char *name);
/* Typed reads of a scalar value: an integer of any width (bool too) into int64 (a uint64
   above INT64_MAX is LLM_ERANGE), float32 / float64 into double, a string. LLM_ENOTFOUND
   for an absent key, LLM_EFORMAT for a value of another type. */
LLMDEF llm_status llm_gguf_get_int(const llm_gguf *g, const char *key, int64_t *out);
LLMDEF llm_status llm_gguf_get_float(const llm_gguf *g, const char *key, double *out);
LLMDEF llm_status llm_gguf_get_str(const llm_gguf *g, const char *key, llm_gguf_str *out);
/* Element i of an array of integers / of floats (LLM_ERANGE past its end), and the strings
   of an array of strings in order: *cursor = 0 for the first, each call moves it on. */
LLMDEF llm_status llm_gguf_arr_int(const llm_gguf_kv *kv, uint64_t i, int64_t *out);
LLMDEF llm_status llm_gguf_arr_float(const llm_gguf_kv *kv, uint64_t i, double *out);
LLMDEF llm_status llm_gguf_arr_str(const llm_gguf_kv *kv, uint64_t *cursor, llm_gguf_str *out);
/* ggml's name of a tensor type ("f32", "q8_0", "q4_k", "iq2_xxs"); NULL for an id this
   build does not know. And the value types' names ("uint32", "string", "array"). */
LLMDEF const char *llm_gguf_type_name(uint32_t ggml_type);
LLMDEF const char *llm_gguf_value_type_name(llm_gguf_type t);
/* n values of a tensor of ggml type `type` at src to floats: F32, F16, BF16, Q4_0, Q4_1,
   Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, each value the float nearest the
   format's exact value. n a multiple of the type's block (32 or 256), else LLM_EINVAL;
   LLM_EUNSUPPORTED for the types with no dequantizer here (IQ*, TQ*, MXFP4). */
LLMDEF llm_status llm_gguf_dequantize(uint32_t type, const void *src, float *dst, int64_t n);

/* A model from a GGUF: general.architecture "llama" (Llama 1/2/3, TinyLlama, SmolLM2,
   Mistral, llama2.c conversions), "qwen2" (q/k/v biases), "qwen3" (q/k head norms),
   "gemma" (sqrt(d) embedding scale, GeGLU, tied), "gemma2" (also softcaps, sandwich
   norms, a window on even layers) and "phi3" (fused attn_qkv and gate+up ffn_up, split
   by rows in place); mixture of experts: "llama" with expert_count (Mixtral: router
   ffn_gate_inp, stacked ffn_{gate,up,down}_exps used in place), "qwen2moe" (qwen2 with
   expert_feed_forward_length experts, not renormalized, and a sigmoid-gated shared
   expert ffn_*_shexp) and "qwen3moe" (qwen3's head norms, renormalized experts); RoPE
   pairs adjacent for llama (the converter permuted Q and K), halves for the others.
   Matrices in F32, F16, BF16 or a ggml block format (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1,
   Q2_K .. Q6_K: used in place), norms and biases F32. Another architecture, tensor type
   (IQ*, TQ*, MXFP4...), shared experts of another kind (expert_shared_count), a RoPE
   scaling (rope.scaling.*, LongRoPE's rope_factors_long) or a tensor the forward pass
   would not use (rope_freqs, a bias the architecture has not) is LLM_EUNSUPPORTED naming
   it: refused, never run approximately. llm_gguf_read_config fills only the config. The weights point into g's
   buffer, which must outlive the model and hold the tensors 4-byte aligned (a GGUF's own
   32-byte alignment does, from an aligned buffer). layers: caller memory for
   n_layers_cap entries. g is not changed but for g->why, where a reason that names a
   tensor or key is written. */
LLMDEF llm_status llm_gguf_read_config(llm_config *c, llm_gguf *g, const char **why);
LLMDEF llm_status llm_gguf_load(llm_model *m, llm_gguf *g, llm_layer_weights *layers, int n_layers_cap,
                                const char **why);

/* ---- JSON (RFC 8259), for config.json, safetensors headers and tokenizer.json ---------
   A strict reader into a caller's token array, in one pass and without allocation:
   every value becomes one llm_json_tok (an object's members are a key token followed by
   the value's tokens), in document order. No comments, trailing commas, NaN, raw control
   characters or invalid UTF-8; depth at most 64; texts below 4 GiB. A malformed text is
   LLM_EFORMAT with *why naming the problem; tokens past cap are LLM_ERANGE with
   *n_toks the count needed (call with toks = NULL, cap = 0 to count). */
typedef enum llm_json_type {
    LLM_JSON_NULL = 0, LLM_JSON_FALSE, LLM_JSON_TRUE, LLM_JSON_NUMBER, LLM_JSON_STRING, LLM_JSON_ARRAY,
    LLM_JSON_OBJECT, LLM_JSON_TYPE_COUNT
} llm_json_type;
typedef struct llm_json_tok {
    llm_json_type type;
    uint32_t start, len; /* the value's bytes in the text (a string: between its quotes, escapes kept) */
    uint32_t n;          /* array: elements; object: members (key-value pairs) */
    uint32_t next;       /* index of the first token after this value and everything inside it */
} llm_json_tok;

LLMDEF llm_status llm_json_parse(const char *text, size_t len, llm_json_tok *toks, size_t cap, size_t *n_toks,
                                 const char **why);
/* In object `obj` (a token index), the value of `key` (its token index), or -1. */
LLMDEF int64_t llm_json_find(const char *text, const llm_json_tok *toks, size_t n_toks, size_t obj, const char *key);
/* Element i of array `arr`, or -1. */
LLMDEF int64_t llm_json_at(const llm_json_tok *toks, size_t n_toks, size_t arr, uint32_t i);
/* A number token as a double (LLM_EFORMAT if not a number; within a few ulps, exact for
   up to 15 significant digits) or as an int64: written as an integer (it must fit), or
   with a fraction or exponent whose double value is a whole number below 2^53 ("32.0",
   "1e3"); else LLM_ERANGE. */
LLMDEF llm_status llm_json_num(const char *text, const llm_json_tok *t, double *out);
LLMDEF llm_status llm_json_int(const char *text, const llm_json_tok *t, int64_t *out);
/* A string token decoded (escapes, \uXXXX with surrogate pairs, to UTF-8) into out[cap],
   NUL-terminated; LLM_ERANGE if it does not fit (*out_len the bytes needed). */
LLMDEF llm_status llm_json_str(const char *text, const llm_json_tok *t, char *out, size_t cap, size_t *out_len);
/* Whether a string token equals s (after decoding). */
LLMDEF int llm_json_eq(const char *text, const llm_json_tok *t, const char *s);

/* ---- safetensors + Hugging Face config.json ------------------------------------------
   A safetensors file: uint64 little-endian header length N, N bytes of JSON
   {"name": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]}, ...,
   "__metadata__": {...}}, then the data; offsets count from the data's start. Shapes are
   outermost first (PyTorch's order: a linear weight is [out][in], as llm.h wants it).
   llm_safetensors_init checks every entry (dtype known, shape product x element size =
   end - begin, inside the data) into caller memory: the header's JSON tokens and a tensor
   table, llm_safetensors_bytes of them. Zero-copy: no weight is read. */
typedef struct llm_st_tensor {
    llm_gguf_str name;
    llm_gguf_str dtype;   /* "F32", "F16", "BF16", "I8", ... as written */
    int elem_bytes;       /* 0 for a dtype llm.h does not know */
    int n_dims;
    int64_t shape[4];     /* outermost first; unused 1 */
    uint64_t bytes;
    const void *data;
    int used;             /* set by llm_hf_load on the tensors the model reads */
} llm_st_tensor;
typedef struct llm_safetensors {
    const unsigned char *buf;
    size_t len;
    uint64_t data_offset;  /* 8 + N */
    int64_t n_tensors;
    llm_st_tensor *tensors;
    int64_t *order;        /* tensor indices sorted by name */
    llm_json_tok *toks;    /* the header's JSON */
    size_t n_toks;
    void *owned;
    char why[160];
} llm_safetensors;
LLMDEF size_t llm_safetensors_bytes(const void *buf, size_t len); /* 0 if its header is not JSON */
LLMDEF llm_status llm_safetensors_init(llm_safetensors *st, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                       const char **why); /* an error leaves no table (the reason may be in st->why) */
LLMDEF llm_status llm_safetensors_create(llm_safetensors *st, const void *buf, size_t len, const char **why);
LLMDEF void llm_safetensors_free(llm_safetensors *st);
LLMDEF const llm_st_tensor *llm_safetensors_find(const llm_safetensors *st, const char *name);

/* A Hugging Face config.json to an llm_config: model_type "llama" or "mistral" (SwiGLU,
   RMSNorm, RoPE on halves), "qwen2" (q/k/v biases), "qwen3" (q/k head norms), "gemma"
   (sqrt(d) embedding scale, tanh GeGLU, tied by default), "gemma2" (also the softcaps,
   query_pre_attn_scalar, sandwich norms, sliding_window on even layers) and "phi3"
   (fused qkv_proj and gate_up_proj); Llama 3's rope_scaling; mixtures of experts:
   "mixtral" (num_local_experts, num_experts_per_tok, renormalized), "qwen2_moe" and
   "qwen3_moe" (num_experts, num_experts_per_tok, moe_intermediate_size, norm_topk_prob;
   Qwen2-MoE's sigmoid-gated shared_expert of shared_expert_intermediate_size). Anything
   the forward pass does not run (another model_type or activation, attention or MLP
   biases, other RoPE scalings such as Phi-3's LongRoPE, partial rotary, Qwen's per-layer
   windows, dense layers among the experts' ones: decoder_sparse_step, mlp_only_layers)
   is LLM_EUNSUPPORTED naming it. */
LLMDEF llm_status llm_hf_read_config(llm_config *c, const char *json, size_t len, const char **why);
/* The model of a config.json and its model.safetensors, tensors in F32, F16 or BF16.
   llm.h keeps norm gains and biases in fp32: those stored as F16 / BF16 (most HF files)
   are converted into aux, caller memory of llm_hf_aux_floats(c) floats (F32 ones are used
   in place, but for Gemma's norm gains, which HF stores as w and the model runs as 1 + w).
   A mixture of experts' tensors, one per expert and matrix, are used in place wherever
   they are in the file (any order): aux then also holds each layer's table of them
   (llm_layer_weights.experts), all of one type (mixed types are LLM_EUNSUPPORTED naming
   the tensor). layers: n_layers_cap entries. st's buffer and aux must outlive the model. */
LLMDEF size_t llm_hf_aux_floats(const llm_config *c);
LLMDEF llm_status llm_hf_load(llm_model *m, const char *config_json, size_t config_len, llm_safetensors *st,
                              llm_layer_weights *layers, int n_layers_cap, float *aux, size_t aux_floats,
                              const char **why);
/* The same over a sharded checkpoint's files (model-00001-of-00004.safetensors, ...), each
   initialized by the caller: a tensor is read from whichever shard holds it, one that two
   shards hold is LLM_EFORMAT naming it, and every tensor of every shard must be used.
   llm_hf_load is this with n_shards 1. The shards' buffers and aux outlive the model. */
LLMDEF llm_status llm_hf_load_shards(llm_model *m, const char *config_json, size_t config_len, llm_safetensors *shards,
                                     int n_shards, llm_layer_weights *layers, int n_layers_cap, float *aux,
                                     size_t aux_floats, const char **why);

/* ---- sizing a model without reading its weights (llm-plan --gguf / --hf) --------------
   A GGUF's or a Hugging Face model's config, read by the loaders' own code (one source of
   truth), and the exact bytes of every tensor as stored (block scales included), from the
   header and tensor table alone: no weight is read. A model the forward pass does not run
   (another architecture, a RoPE scaling, a tensor type with no kernel here) still
   gives its shapes when it writes the usual keys, and not_run says what llm_gguf_load /
   llm_hf_load would refuse ("" when names, types and features pass: shapes are checked
   by the load only). An unknown architecture is read with Llama's FFN and norms, so its
   config's own parameter count is a guess where n_elements is exact. Do not copy an
   llm_model_shapes: config.name points at its arch. */
typedef struct llm_model_shapes {
    llm_config config;
    char arch[64];         /* general.architecture, or config.json's model_type */
    char not_run[160];     /* "", or why llm_gguf_load / llm_hf_load would refuse it */
    uint64_t n_tensors;
    uint64_t n_elements;   /* the parameters as stored: every tensor's elements */
    uint64_t tensor_bytes; /* every tensor's data, from its stored type */
    uint64_t header_bytes; /* the header and tensor table (GGUF: up to the data section) */
    uint64_t file_bytes;   /* the file's size (HF: the safetensors files', added) */
    uint64_t read_bytes;   /* how much was read to find the header's end (>= header_bytes) */
    int n_files;           /* HF: safetensors files added */
    int arch_row;          /* internal: the architecture's table row, -1 if unknown */
    char why[160];         /* a reason that names a tensor or key (*why may point here) */
} llm_model_shapes;
/* From a GGUF file's first len bytes (of file_size): LLM_ERANGE with *need (> len) when
   the tensor table runs past them: read that many and call again. Allocates its tables
   (LLM_MALLOC) and frees them before it returns. */
LLMDEF llm_status llm_gguf_shapes(llm_model_shapes *s, const void *head, size_t len, uint64_t file_size, uint64_t *need,
                                  const char **why);
/* A config.json, then each safetensors file's first len bytes (8-byte length + the JSON
   header; LLM_ERANGE with *need when that is longer than len), its tensors added. */
LLMDEF llm_status llm_hf_shapes(llm_model_shapes *s, const char *config_json, size_t config_len, const char **why);
LLMDEF llm_status llm_hf_shapes_add(llm_model_shapes *s, const void *head, size_t len, uint64_t file_size, uint64_t *need,
                                    const char **why);

#ifndef LLM_NO_STDIO
/* The same from files; they allocate (the model: the file's bytes and the layer table;
   a GGUF model also its tables), freed by llm_model_free / llm_tokenizer_free. */
LLMDEF llm_status llm_llama2c_load_file(llm_model *m, const char *path, const char **why);
LLMDEF llm_status llm_tokenizer_load_file(llm_tokenizer *t, const char *path, int vocab, const char **why);
LLMDEF llm_status llm_gguf_load_file(llm_model *m, const char *path, const char **why);
/* A Hugging Face directory: dir/config.json and dir/model.safetensors, or the shards
   dir/model.safetensors.index.json's weight_map names (each read, or mapped under
   LLM_MMAP, once; none copied). Every weight_map entry must be in the shard it names and
   every shard's tensor in the weight_map; a value that is not a plain file name in dir
   ("../x", "/x", "a/b") is refused: LLM_EFORMAT naming the tensor or file. */
LLMDEF llm_status llm_hf_load_dir(llm_model *m, const char *dir, const char **why);
/* llm_gguf_shapes of a file: reads 4 KiB, then as much as the tables need, each read at
   least doubling: at most max(4 KiB, 2 x the header) bytes (read_bytes), of which any
   past the header are never looked at. llm_hf_shapes_dir: config.json and the
   8 + N header bytes of model.safetensors, or of every shard that
   model.safetensors.index.json's weight_map names. */
LLMDEF llm_status llm_gguf_shapes_file(llm_model_shapes *s, const char *path, const char **why);
LLMDEF llm_status llm_hf_shapes_dir(llm_model_shapes *s, const char *dir, const char **why);
#endif

/* ======================================================================================
   >>tokenizer   text to token ids and back: the Unicode tables (generated by
                 tools/gen_unicode.py), pre-tokenizer splits, SentencePiece and byte-level
                 BPE vocabularies from GGUF and tokenizer.json, special tokens, decoding
   ====================================================================================== */

/* The pre-tokenizer split a byte-level BPE vocabulary is trained with, named by GGUF's
   tokenizer.ggml.pre (SentencePiece vocabularies use none: they split on nothing). */
typedef enum llm_pretok {
    LLM_PRETOK_NONE = 0,     /* SentencePiece: the whole text is one piece */
    LLM_PRETOK_GPT2,         /* "gpt-2" */
    LLM_PRETOK_LLAMA3,       /* "llama-bpe" (Llama 3) */
    LLM_PRETOK_QWEN2,        /* "qwen2": Llama 3's with single digits, text NFC-normalized */
    LLM_PRETOK_DEEPSEEK_LLM, /* "deepseek-llm" */
    LLM_PRETOK_SMOLLM,       /* "smollm" */
    LLM_PRETOK_COUNT
} llm_pretok;

/* GGUF's tokenizer.ggml.pre -> *out: "gpt-2", "llama-bpe", "qwen2", "deepseek-llm",
   "smollm"; NULL, "" and "default" are LLM_PRETOK_NONE, what SentencePiece vocabularies
   say (for a byte-level BPE vocabulary NONE is the caller's LLM_EUNSUPPORTED: its
   pattern is unknown). Any other name is LLM_EUNSUPPORTED (*out NONE, *why says which
   names there are; the caller, which has the name, writes it into its own message). */
LLMDEF llm_status llm_pretok_from_name(const char *name, llm_pretok *out, const char **why);

/* Unicode Normalization Form C (UAX #15) of in[0 .. n) into out (not overlapping in):
   what Qwen's tokenizer does to text before splitting it. *out_len gets the bytes written.
   Invalid UTF-8 bytes are kept as they are. cap >= llm_nfc_bound(n) always suffices (NFC
   can triple UTF-8: U+1D160 is 4 bytes, its decomposition 12); with less, LLM_ERANGE
   (*out_len then says llm_nfc_bound(n)) when the text, or the decomposed form of the code
   point being composed, does not fit. LLM_EINVAL for NULLs (in may be NULL when n is 0,
   out when cap is 0). Caller memory only, no allocation. */
LLMDEF size_t llm_nfc_bound(size_t n);
LLMDEF llm_status llm_nfc(const char *in, size_t n, char *out, size_t cap, size_t *out_len);

/* ---- vocabularies: SentencePiece and byte-level BPE ---------------------------------
   One llm_vocab holds either family, read from a GGUF (tokenizer.ggml.*), a Hugging Face
   tokenizer.json, or a llama2.c tokenizer.bin. Pieces are kept as the bytes they stand
   for: SentencePiece's U+2581 is stored as ' ', byte-level BPE's printable stand-ins
   ("Ġ" for ' ') are mapped back to their bytes, so encoding and decoding work on raw
   bytes and the tables look up raw bytes.
     SentencePiece (tokenizer.ggml.model "llama"): a space is prefixed to the text (and
       after each special token) when add_space_prefix; the text is cut into UTF-8
       characters, then the adjacent pair whose concatenation is the best-scoring piece
       is merged, repeatedly (ties: the leftmost pair), as llama.cpp's and sentencepiece's
       BPE-mode encoders do; a character with no piece becomes its <0xNN> byte pieces.
     Byte-level BPE (tokenizer.ggml.model "gpt2"): the text is split by the pre-tokenizer
       tokenizer.ggml.pre names (llm_pretok), and in each piece the adjacent pair with the
       lowest merge rank is merged, repeatedly (ties: the leftmost); Llama 3's vocabulary
       takes a whole piece that is a token as is (HF's ignore_merges). Qwen2's text is
       NFC-normalized first.
   Special tokens: user-defined pieces (GGUF type 4; HF added tokens with special false)
   written in the text are always their single ids, as llama.cpp and HF match them;
   control and unknown pieces (<|begin_of_text|>, <|im_start|>, <s>) only with
   LLM_ENCODE_SPECIAL, which chat templates use and user text must not. Where two could
   match, the leftmost, then the longest, wins. */
typedef enum llm_vocab_kind { LLM_VOCAB_SPM = 1, LLM_VOCAB_BPE = 2 } llm_vocab_kind;
/* GGUF's token types (tokenizer.ggml.token_type), the same numbers */
typedef enum llm_token_type {
    LLM_TOKEN_UNDEFINED = 0, LLM_TOKEN_NORMAL, LLM_TOKEN_UNKNOWN, LLM_TOKEN_CONTROL, LLM_TOKEN_USER_DEFINED,
    LLM_TOKEN_UNUSED, LLM_TOKEN_BYTE
} llm_token_type;

typedef struct llm_vocab_merge { uint32_t a, b, rank, id1; } llm_vocab_merge; /* id1: merged id + 1, 0 = empty */

typedef struct llm_vocab {
    llm_vocab_kind kind;
    llm_pretok pretok;          /* byte-level BPE's split (LLM_PRETOK_NONE for SentencePiece) */
    int32_t n_tokens, n_merges, n_special;
    int32_t bos, eos, eot, unk, pad; /* -1: none */
    int add_bos, add_eos;       /* what the file asks for (llm_vocab_encode adds them only when told) */
    int add_space_prefix, ignore_merges;
    uint32_t *off, *len;        /* [n_tokens]: token i is text[off[i] .. off[i] + len[i]), then a NUL */
    char *text;
    float *score;               /* [n_tokens] SentencePiece: higher merges first */
    uint8_t *type;              /* [n_tokens] llm_token_type */
    uint32_t *hash, hash_mask;  /* piece bytes -> id + 1 (normal pieces only), open addressing */
    llm_vocab_merge *merges;    /* byte-level BPE: (left id, right id) -> rank, merged id */
    uint32_t merge_mask;
    int32_t *special;           /* [n_special] control, user-defined, unknown ids by first byte, longest first */
    int32_t special_at[257];    /* special[special_at[b] .. special_at[b+1]) start with byte b */
    int32_t byte_id[256];       /* the token of a raw byte (<0xNN>, or byte-level's), or -1 */
    int32_t max_piece;          /* the longest piece, in bytes */
    int spm_words;              /* SentencePiece: no piece has a space after another byte, so the
                                   text is merged word by word (linear time, the same ids) */
    void *owned;
    char why[160];              /* a reason naming the field (*why may point here) */
} llm_vocab;

/* From a GGUF's tokenizer.ggml.* keys: model ("llama" or "gpt2"; another is
   LLM_EUNSUPPORTED naming it), tokens, scores, token_type, merges, pre (an unknown name is
   LLM_EUNSUPPORTED), bos/eos/eot/unknown/padding_token_id, add_bos_token, add_eos_token,
   add_space_prefix. Every count is checked against the token count (64-bit) and every id
   against the vocabulary: a wrong array type, a count that disagrees, a piece given twice,
   a merge naming an unknown token, an id out of range are LLM_EFORMAT naming the key.
   _bytes is 0 when g has no tokenizer.ggml.tokens array. The vocabulary copies what it
   needs: g and its buffer may go once init returns. */
LLMDEF size_t llm_vocab_gguf_bytes(const llm_gguf *g);
LLMDEF llm_status llm_vocab_init_gguf(llm_vocab *v, void *mem, size_t mem_bytes, const llm_gguf *g, const char **why);
LLMDEF llm_status llm_vocab_create_gguf(llm_vocab *v, const llm_gguf *g, const char **why);
/* From a Hugging Face tokenizer.json, already parsed by llm_json_parse into toks[n_toks]:
   model.type "BPE" either byte-level, as Llama 3 and Qwen2/3 ship it (the Split pattern
   picks the llm_pretok; GPT-2's ByteLevel alone is LLM_PRETOK_GPT2), or SentencePiece as HF
   converts Llama 2 / Mistral (byte_fallback, U+2581 from a Metaspace pre-tokenizer or a
   Prepend + Replace normalizer; merged by the merges' order, which stands for the scores).
   config (tokenizer_config.json, may be NULL) gives bos_token, eos_token, pad_token,
   unk_token, add_bos_token (absent: add BOS when there is one), add_eos_token. */
LLMDEF size_t llm_vocab_json_bytes(const char *json, const llm_json_tok *toks, size_t n_toks, const char *config,
                                   size_t config_len);
LLMDEF llm_status llm_vocab_init_json(llm_vocab *v, void *mem, size_t mem_bytes, const char *json, size_t len,
                                      const llm_json_tok *toks, size_t n_toks, const char *config,
                                      size_t config_len, const char **why);
LLMDEF llm_status llm_vocab_create_json(llm_vocab *v, const char *json, size_t len, const char *config,
                                        size_t config_len, const char **why); /* parses too */
/* From a llama2.c tokenizer.bin (see llm_tokenizer): SentencePiece with its scores, ids
   0, 1, 2 <unk>, <s>, </s>, <0xNN> byte pieces. vocab <= 0: as many pieces as the file
   holds. */
LLMDEF size_t llm_vocab_llama2c_bytes(const void *buf, size_t len, int vocab);
LLMDEF llm_status llm_vocab_init_llama2c(llm_vocab *v, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                         int vocab, const char **why);
LLMDEF llm_status llm_vocab_create_llama2c(llm_vocab *v, const void *buf, size_t len, int vocab, const char **why);
LLMDEF void llm_vocab_free(llm_vocab *v);

/* Encoding. LLM_ENCODE_BOS / _EOS add the vocabulary's BOS / EOS (when it has them; a
   caller following the file passes them as v->add_bos / v->add_eos say);
   LLM_ENCODE_SPECIAL parses control-token text (<|im_start|>) into its single id: for
   rendered chat templates, never for user text. */
enum { LLM_ENCODE_BOS = 1, LLM_ENCODE_EOS = 2, LLM_ENCODE_SPECIAL = 4 };
/* Scratch for encoding text_len bytes (the merge heap and the symbols); 0 for a text of
   2^30 bytes or more (encode it in parts). */
LLMDEF size_t llm_vocab_scratch_bytes(const llm_vocab *v, size_t text_len);
/* text[0 .. len) (any bytes; NULs too) to ids. *n_ids is the count the whole text needs:
   past cap it is LLM_ERANGE with ids[0 .. cap) filled (cap 0 counts). scratch: at least
   llm_vocab_scratch_bytes(v, len) bytes, else LLM_EINVAL; NULL scratch: taken from
   LLM_MALLOC for the call (LLM_ENOMEM). No other allocation. */
LLMDEF llm_status llm_vocab_encode(const llm_vocab *v, const char *text, size_t len, int flags, int32_t *ids,
                                   size_t cap, size_t *n_ids, void *scratch, size_t scratch_bytes);
/* The id whose piece is exactly text[0 .. len) (any type, "<|im_end|>" too), or -1. */
LLMDEF int32_t llm_vocab_find(const llm_vocab *v, const char *text, size_t len);

/* Decoding. A piece's bytes: byte-level BPE's unmapped, <0xNN> as the byte, SentencePiece's
   ' '; control tokens are "" unless LLM_DECODE_SPECIAL (then their text); an unknown
   SentencePiece token is U+2585 as llama.cpp prints it. NULL for an id out of range. */
enum { LLM_DECODE_SPECIAL = 1, LLM_DECODE_KEEP_SPACE = 2 };
LLMDEF const char *llm_vocab_piece(const llm_vocab *v, int32_t id, int flags, size_t *len);
/* ids to text, NUL-terminated (cap counts the NUL); where add_space_prefix, the space
   encoding put in front is dropped (unless LLM_DECODE_KEEP_SPACE), so a SentencePiece
   decode(encode(x)) is x. LLM_ERANGE past cap (*out_len: the bytes needed, NUL
   excluded), LLM_EINVAL for an id out of range. */
LLMDEF llm_status llm_vocab_decode(const llm_vocab *v, const int32_t *ids, size_t n, int flags, char *out, size_t cap,
                                   size_t *out_len);
/* Streaming decode, one id at a time: emits the bytes of each piece that are whole UTF-8
   characters and holds an incomplete sequence at the end (at most 3 bytes) until the next
   piece completes it; bytes that can no longer become a valid character are emitted as
   they are, so the concatenation of everything emitted (with the final flush) is exactly
   llm_vocab_decode's output. out must hold the piece + 4 bytes (LLM_ERANGE, nothing
   consumed, otherwise); not NUL-terminated. */
typedef struct llm_vocab_stream {
    const llm_vocab *v;
    int flags, started;
    unsigned char held[4];
    int n_held;
} llm_vocab_stream;
LLMDEF llm_status llm_vocab_stream_init(llm_vocab_stream *s, const llm_vocab *v, int flags);
LLMDEF llm_status llm_vocab_stream_push(llm_vocab_stream *s, int32_t id, char *out, size_t cap, size_t *out_len);
LLMDEF llm_status llm_vocab_stream_flush(llm_vocab_stream *s, char *out, size_t cap, size_t *out_len);
#ifndef LLM_NO_STDIO
/* A file by its content: a GGUF, a tokenizer.json (with tokenizer_config.json beside it
   when present), or a llama2.c tokenizer.bin (vocab as llm_vocab_init_llama2c's). */
LLMDEF llm_status llm_vocab_load_file(llm_vocab *v, const char *path, int vocab, const char **why);
#endif

/* ======================================================================================
   >>gen   step-by-step generation, chat turns, several conversations in one step, sessions
           (after >>tokenizer: it holds a vocabulary's streaming decoder; the sampler chain
           and templates are >>generation's)
   ====================================================================================== */

/* An llm_gen ties one conversation together: an llm_state (KV cache), the weights, an
   llm_vocab, a sampler chain, stop strings, the end-of-generation ids and the streaming
   decoder. No callbacks and no allocation per token:

       llm_gen g;  const char *piece;  size_t len;  llm_gen_stop why;
       llm_gen_create(&g, &m.config, &m.weights, &vocab, &params, th);
       llm_gen_prompt(&g, "Once upon a time", 16, LLM_ENCODE_BOS);   prefill
       do {
           llm_gen_next(&g, &piece, &len, &why);                      one token: its bytes
           fwrite(piece, 1, len, stdout);                             (whole UTF-8 characters)
       } while (why == LLM_GEN_NONE);

   The context: g->tokens[0 .. g->n_tokens) is the sequence so far (prompt and reply); the
   KV cache holds its first kv.len rows (the last token drawn is run only when the next one
   is wanted). A prompt appends to the context; llm_gen_chat instead renders a whole
   conversation and runs only the tokens after the prefix the context already has (earlier
   turns stay in the KV cache). Sizes: `capacity` positions in the KV cache; one more token
   (the last one drawn) fits in the context, as run.c prints steps + 1 tokens.
   Thread safety: one llm_gen per thread (or several stepped together by one thread,
   llm_gen_next_batch); several may share weights and vocabulary. */
typedef enum llm_gen_stop {
    LLM_GEN_NONE = 0,     /* not stopped: the piece may be empty (bytes held back) */
    LLM_GEN_EOG,          /* an end-of-generation token was drawn (it is not in the context) */
    LLM_GEN_STOP_STRING,  /* a stop string completed (its text and what follows are not shown) */
    LLM_GEN_MAX_TOKENS,   /* the reply reached params.max_tokens */
    LLM_GEN_CONTEXT_FULL, /* capacity positions used */
    LLM_GEN_CALLBACK,     /* llm_gen_run's callback asked to stop */
    LLM_GEN_ERROR,        /* llm_gen_next returned an error */
    LLM_GEN_STOP_COUNT
} llm_gen_stop;
LLMDEF const char *llm_gen_stop_name(llm_gen_stop s); /* "none", "eog", "stop string", ... */

#define LLM_GEN_MAX_EOG 16
typedef struct llm_gen_params {
    int capacity;            /* KV cache positions; 0 = the config's max_seq_len */
    int prefill_chunk;       /* tokens per forward pass of a prompt (llm_state's max_tokens); 0 = 64 */
    llm_dtype kv_dtype;      /* 0 = LLM_F32 */
    int max_tokens;          /* tokens one reply may draw; 0 = no limit but the capacity */
    llm_sampler_params sampler; /* the chain (zero = run.c's sampling; .greedy = 1 for argmax) */
    const char *const *stops;   /* n_stops stop strings, the caller's (they must outlive g) */
    int n_stops;
    const int *eog;          /* end-of-generation ids, copied (up to LLM_GEN_MAX_EOG); NULL with
                                n_eog 0: the vocabulary's eos and eot (none without a vocabulary) */
    int n_eog;
    const llm_chat_template *chat; /* for llm_gen_chat, copied; NULL = no chat */
    size_t chat_bytes;       /* the rendered conversation's buffer; 0 = 16 * capacity + 4096 */
} llm_gen_params;

typedef struct llm_gen {
    llm_state state;
    const llm_weights *w;
    const llm_vocab *v;      /* may be NULL: ids only, every piece empty */
    llm_threads *th;
    llm_sampler sampler;
    llm_stop stop;
    llm_vocab_stream dec;
    llm_chat_template chat;
    int has_chat, max_tokens, eog[LLM_GEN_MAX_EOG], n_eog;
    int *tokens, n_tokens;   /* [capacity + 1]: the context */
    int token;               /* the id llm_gen_next drew last (-1 before any) */
    int n_drawn;             /* tokens drawn since the last prompt */
    int n_prefilled;         /* tokens the last prompt / chat call ran through the model */
    int has_logits;          /* logits are those after tokens[kv.len - 1] */
    llm_gen_stop stopped;    /* why the reply ended; LLM_GEN_NONE while it runs */
    float *logits;           /* [vocab] */
    char *dbuf, *sbuf;       /* a decoded piece; what the stop matcher releases (the piece shown) */
    size_t dcap, scap;
    char *text;              /* the rendered conversation, chat_bytes */
    int32_t *ids;            /* [capacity + 1] its encoding */
    void *scratch;           /* the encoder's, for chat_bytes of text */
    size_t text_cap, scratch_bytes;
    void *owned;
} llm_gen;

LLMDEF llm_gen_params llm_gen_params_default(void); /* every zero resolved, for C++ and printing */
/* Bytes for an llm_gen of this config, vocabulary (may be NULL) and params; 0 when they
   are invalid (then _init says why). */
LLMDEF size_t llm_gen_bytes(const llm_config *c, const llm_vocab *v, const llm_gen_params *p);
/* c, w and v (and th) must outlive g. LLM_EINVAL for a bad params field (a capacity past
   what the config can size, a stop string that is empty, an eog id outside the vocabulary,
   a vocabulary larger than the config's), NULLs, or too little memory; mem 64-byte
   aligned is best (any alignment works). */
LLMDEF llm_status llm_gen_init(llm_gen *g, void *mem, size_t mem_bytes, const llm_config *c, const llm_weights *w,
                               const llm_vocab *v, const llm_gen_params *p, llm_threads *th);
LLMDEF llm_status llm_gen_create(llm_gen *g, const llm_config *c, const llm_weights *w, const llm_vocab *v,
                                 const llm_gen_params *p, llm_threads *th);
LLMDEF void llm_gen_free(llm_gen *g);
/* Empties the context (and the sampler's penalty window); the generator state is kept. */
LLMDEF void llm_gen_reset(llm_gen *g);
/* Appends text (encoded with flags: LLM_ENCODE_BOS / _EOS / _SPECIAL) or ids[n] to the
   context and runs every token the KV cache does not hold yet; the next llm_gen_next
   starts a new reply (stop strings, decoder, max_tokens counted afresh; the reply's text
   continues the prompt's, so a SentencePiece piece's leading space is kept). n = 0 is allowed
   after a reply (it continues it). LLM_EFULL when the context would pass `capacity`
   (nothing changes); LLM_EINVAL for an id outside the vocabulary or no vocabulary for
   text; LLM_EINVAL when the context would be empty. */
LLMDEF llm_status llm_gen_prompt(llm_gen *g, const char *text, size_t len, int flags);
LLMDEF llm_status llm_gen_prompt_ids(llm_gen *g, const int *ids, int n);
/* Chat: renders msgs[0 .. n) with params.chat and the generation prompt, encodes the text
   with LLM_ENCODE_SPECIAL (the template writes any BOS), keeps the longest prefix of the
   context it shares (with its KV cache rows) and runs only the tokens after it:
   g->n_prefilled says how many. The caller keeps the conversation, the reply included (the
   text llm_gen_next showed, as an "assistant" turn). LLM_EINVAL without a template or a
   vocabulary (and for what llm_chat_render refuses); LLM_ERANGE when the rendered text
   passes chat_bytes; LLM_EFULL when its tokens pass the capacity. */
LLMDEF llm_status llm_gen_chat(llm_gen *g, const llm_chat_msg *msgs, int n);
/* The next token of the reply. *piece (valid until the next call) gets the text that is
   now safe to show, *len bytes: whole UTF-8 characters, nothing of a stop string; *stop
   the reason the reply ended, LLM_GEN_NONE while it goes on (after a stop every call
   returns it again with no bytes, until the next prompt). The end-of-generation token
   itself is never shown or added to the context. Errors: LLM_EINVAL before any prompt
   or for NULLs, the forward pass's and sampler's statuses (then *stop is LLM_GEN_ERROR). */
LLMDEF llm_status llm_gen_next(llm_gen *g, const char **piece, size_t *len, llm_gen_stop *stop);
/* llm_gen_next until the reply ends, each piece handed to cb (a non-zero return stops it:
   LLM_GEN_CALLBACK). */
typedef int (*llm_gen_callback)(void *user, const char *piece, size_t len);
LLMDEF llm_status llm_gen_run(llm_gen *g, llm_gen_callback cb, void *user, llm_gen_stop *stop);

/* Several conversations at once: llm_gen_next for n generators in one step, whose forward
   pass is ONE llm_forward_batch over every generator that goes on, so the weights are read
   once per step for all of them (three characters talking cost about one pass, not three):

       size_t sb = llm_gen_batch_bytes(&m.config, 3);       once: caller memory, any alignment
       llm_gen *gens[3] = {&alice, &bob, &carol};            each prompted (llm_gen_prompt, one by one)
       llm_gen_piece out[3];
       llm_gen_next_batch(gens, 3, scratch, sb, out, &why); out[i]: gens[i]'s piece and stop

   Each generator draws with its own sampler, stop strings, end-of-generation ids, limits
   and KV cache (dtype and capacity may differ), and gets exactly what llm_gen_next would
   have given it alone: the same piece, stop reason, token, status, logits and state (the
   same bits with fp32, int8 and ggml block weights; with f16 / bf16 weights from 4
   generators on, logits agree within float rounding, as llm_forward_batch says, so a near
   tie may draw another token). A generator with no logits pending (no prompt run yet, or
   its last forward pass failed) or whose reply has ended is skipped and reported so in
   out[i].step; every generator may be listed every step. Prompts and chat turns prefill
   one generator at a time (llm_gen_prompt / llm_gen_chat): a prefill is many tokens of one
   sequence, which already reads each weight once for all of them.
   Refused with LLM_EINVAL and *why (nothing changed, out[] not written): NULLs, n outside
   1..LLM_BATCH_MAX, a generator not initialized or listed twice, generators of different
   weights (another llm_weights pointer) or configs (llm_forward_batch's rule), scratch
   smaller than llm_gen_batch_bytes(config, n). The step runs on gens[0]'s thread pool.
   Errors of the step itself rewind nothing: each generator is left as llm_gen_next leaves
   it, and out[i].status says how its step went. When the one forward pass fails, each of its
   generators is run again alone (llm_forward), so each gets its own outcome: one that
   fails keeps the token it drew in its context (its piece is in out[i], stop
   LLM_GEN_ERROR), its KV cache holds every token but that one and it has no logits
   pending (skipped from then on, until llm_gen_prompt_ids(g, NULL, 0) runs the token).
   Returns LLM_OK when every step went well, else the first failed generator's status. */
typedef enum llm_gen_step {
    LLM_GEN_STEPPED = 0,  /* it took its step: drew out.token and ran it unless the reply ended */
    LLM_GEN_SKIP_PROMPT,  /* no logits pending: llm_gen_next would return LLM_EINVAL */
    LLM_GEN_SKIP_STOPPED  /* the reply had ended (out.stop says why): llm_gen_next repeats it */
} llm_gen_step;
typedef struct llm_gen_piece {
    const char *piece;    /* the text now safe to show, len bytes (valid until the generator's next step) */
    size_t len;
    llm_gen_stop stop;    /* llm_gen_next's *stop (LLM_GEN_NONE for SKIP_PROMPT) */
    llm_status status;    /* llm_gen_next's return value (LLM_OK when skipped) */
    int token;            /* the id drawn in this step (g->token); -1 when none was */
    llm_gen_step step;
} llm_gen_piece;
/* Scratch of a step of n generators of this config: llm_forward_batch's, and n rows of
   logits, states, tokens and positions; 0 for a config the forward pass cannot run or n
   outside 1..LLM_BATCH_MAX. A step of fewer generators fits in it too. */
LLMDEF size_t llm_gen_batch_bytes(const llm_config *c, int n);
LLMDEF llm_status llm_gen_next_batch(llm_gen *const *gens, int n, void *scratch, size_t scratch_bytes,
                                     llm_gen_piece *out, const char **why);

/* Sessions: the conversation as bytes, to keep characters' memories across loads. A
   session holds the context's tokens, the KV cache rows 0 .. len-1 of every layer and
   KV head (in the cache's dtype), the logits pending, the sampler's generator and penalty
   window, the decoder's and stop matcher's held bytes, and a fingerprint of the config
   (every size and every number the forward pass reads), so restoring it into an llm_gen of
   another model shape, cache dtype or sampler window is refused. Layout (host byte order,
   marked; 8-byte fields aligned): "LLMSESS1", u32 byte-order mark, u32 version, u64
   fingerprint, i32 fields (dtype, layers, KV heads, head_dim, vocab, tokens, KV rows,
   flags...), u64 generator, the arrays, and an FNV-1a 64 checksum of everything before it.
   Loading never reads past n: a short, corrupt or foreign buffer is LLM_EFORMAT with *why
   saying what (g unchanged); a session of more positions than g's capacity is LLM_EFULL. */
LLMDEF size_t llm_gen_session_bytes(const llm_gen *g);
LLMDEF llm_status llm_gen_session_save(const llm_gen *g, void *out, size_t cap, size_t *n);
LLMDEF llm_status llm_gen_session_load(llm_gen *g, const void *buf, size_t n, const char **why);
#ifndef LLM_NO_STDIO
LLMDEF llm_status llm_gen_session_save_file(const llm_gen *g, const char *path);
LLMDEF llm_status llm_gen_session_load_file(llm_gen *g, const char *path, const char **why);
#endif

/* ======================================================================================
   >>train   the backward pass, op by op in the forward's order, and AdamW
   ======================================================================================
   Each backward takes the forward's inputs (recomputing what is cheap) and the gradient
   of its output, and ADDS into the gradients of its inputs and parameters: a value that
   feeds several ops (the residual stream, a norm's output read by q, k and v) gets the
   sum of their contributions, so clear gradient buffers once per step and accumulate.
   All fp32 with the same engine as the forward; every result is bit-identical for any
   thread count. */

/* C[M][N] = op(A) B, or C += op(A) B with accumulate: op(A) is A[M][K], or with a_trans
   the transpose of A stored [K][M]; B is [K][N]. The blocked GEMM of llm_matmul; the
   backward of y = x W^T is dX += dY W (a_trans 0) and dW += dY^T X (a_trans 1). */
LLMDEF llm_status llm_matmul_ex(float *C, const float *A, const float *B, int M, int K, int N, int a_trans,
                                int accumulate, llm_threads *th);

/* y[n][out] = x[n][in] W[out][in]^T + b:  dx += dy W,  dW += dy^T x,  db += sum_t dy[t].
   dx, dW, db may each be NULL (not wanted: a frozen weight, the first layer's input). */
LLMDEF llm_status llm_linear_backward(float *dx, float *dW, float *db, const float *dy, const float *x, const float *W,
                                      int n_tokens, int d_in, int d_out, llm_threads *th);

/* Row ops, one row of n values, adding into dx (and dw, db; NULL = not wanted). */
LLMDEF llm_status llm_rmsnorm_backward(float *dx, float *dw, const float *dy, const float *x, const float *w, int n,
                                       float eps);
LLMDEF llm_status llm_layernorm_backward(float *dx, float *dw, float *db, const float *dy, const float *x,
                                         const float *w, int n, float eps);
/* out = act(gate) * up (SwiGLU: silu; GeGLU: tanh GELU), and act alone (up = NULL, dup NULL). */
LLMDEF llm_status llm_swiglu_backward(float *dgate, float *dup, const float *dy, const float *gate, const float *up, int n);
LLMDEF llm_status llm_geglu_backward(float *dgate, float *dup, const float *dy, const float *gate, const float *up, int n);
LLMDEF llm_status llm_gelu_backward(float *dx, const float *dy, const float *x, int n);     /* tanh GELU */
LLMDEF llm_status llm_gelu_erf_backward(float *dx, const float *dy, const float *x, int n); /* exact GELU */

/* RoPE is a rotation, so its backward is the inverse rotation of the gradient, in place:
   the same arguments as llm_rope_apply_tokens. */
LLMDEF llm_status llm_rope_backward(const llm_rope *r, float *dx, int n_tokens, int n_heads, int pos);

/* Causal attention's backward, flash-style (Dao et al. 2022, FlashAttention, sec. 3.1 and
   app. B): no n x n matrix; per query row the softmax statistics are recomputed (max and
   sum of exp over its keys), then P is rebuilt one key at a time, giving
     dV_j += P_ij dO_i,   dS_ij = P_ij (dO_i . v_j - dO_i . O_i),
     dQ_i += scale dS_ij k_j,   dK_j += scale dS_ij q_i.
   Shapes as llm_attention with n_q = n_kv = n (training sees the whole sequence):
   q, out, dout, dq: [n][n_heads][hd]; k, v, dk, dv: [n_kv_heads][n][hd]; scale 0 means
   1/sqrt(hd). Adds into dq, dk, dv. Threads split the KV heads (each owns its dK, dV and
   its query heads' dQ), so results are identical for any thread count. */
LLMDEF llm_status llm_attention_backward(float *dq, float *dk, float *dv, const float *dout, const float *q,
                                         const float *k, const float *v, const float *out, int n, int n_heads,
                                         int n_kv_heads, int head_dim, float scale, llm_threads *th);

/* Softmax cross-entropy over the vocabulary, fused and stable: for each token t with
   target[t] >= 0, loss_t = logsumexp(z_t) - z_t[target]; dlogits[t] = scale (softmax(z_t)
   - onehot(target)), and 0 for tokens whose target is negative (ignored, e.g. padding or
   prompt). *loss (if not NULL) is the mean over the counted tokens, *counted their
   number. dlogits may equal logits (in place). scale is usually 1 / counted tokens. */
LLMDEF llm_status llm_cross_entropy(float *dlogits, double *loss, int *counted, const float *logits, const int *target,
                                    int n_tokens, int vocab, float scale);

/* Token embedding: dE[token[t]] += dx[t] (a scatter-add; repeated tokens add up). */
LLMDEF llm_status llm_embedding_backward(float *dE, const float *dx, const int *tokens, int n_tokens, int d, int vocab);

/* AdamW (Loshchilov & Hutter 2019: weight decay decoupled from the adaptive step), one
   step t >= 1 over n parameters:
     m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
     p -= lr (m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps) + weight_decay p).
   Zero fields take the defaults b1 0.9, b2 0.999, eps 1e-8; lr and weight_decay are
   used as given. */
typedef struct llm_adamw {
    float lr, beta1, beta2, eps, weight_decay;
} llm_adamw;
LLMDEF llm_status llm_adamw_step(float *p, float *m, float *v, const float *g, int64_t n, const llm_adamw *opt, int64_t t);

/* Global-norm gradient clipping: returns the L2 norm of the n gradients (in double), and
   when it exceeds max_norm > 0 scales them by max_norm / norm. A NaN or inf norm is
   returned as is and nothing is scaled (the caller should skip the step). */
LLMDEF double llm_clip_grad_norm(float *g, int64_t n, double max_norm);

/* Linear warmup for `warmup` steps to lr_max, then a cosine decay to lr_min at step
   `total` (Loshchilov & Hutter 2017, SGDR, one cycle); steps past total stay at lr_min. */
LLMDEF float llm_lr_cosine(int64_t step, int64_t warmup, int64_t total, float lr_max, float lr_min);

/* ---- a training step for a whole dense decoder ---------------------------------------- */

/* A model's fp32 training state in caller memory: the parameters (which `weights` points
   into, so llm_forward runs the model being trained), their gradients and AdamW moments,
   the activations one step saves for batch sequences of seq tokens, and the backward's
   work space. llm_train_bytes(config, batch, seq) sizes it; 0 for an invalid config or
   one the training step cannot run (llm_train_supported says which feature). Pre-norm
   and post-norm decoders: RMSNorm or LayerNorm (with or without bias), SwiGLU / GELU /
   GeGLU, RoPE, learned or no positions, any bias kind, tied or untied head, GQA / MQA,
   q/k head norms (Qwen3), an embedding scale (Gemma). */
typedef struct llm_train {
    llm_config config;
    int batch, seq;
    int64_t n_params;                /* = llm_count_params(config).total */
    float *params, *grads, *m, *v;   /* n_params each, in one layout */
    llm_weights weights;             /* views into params */
    llm_layer_weights *layers;       /* [n_layers] */
    int64_t step;                    /* AdamW steps taken */
    llm_rope rope;
    int64_t *off, *len;              /* each tensor's offset in params and length (internal) */
    float *act, *work;               /* saved activations, backward work space (internal) */
    int recompute;                   /* LLM_TRAIN_RECOMPUTE: only block inputs saved */
    int lora_rank;                   /* LoRA: 0 = full training of params */
    unsigned lora_targets;           /* LLM_LORA_* of the adapted projections */
    float lora_scale;                /* alpha / r, or alpha / sqrt(r) for RsLoRA */
} llm_train;

/* LoRA (Hu et al. 2021): a frozen base weight W [out][in] in any format llm.h loads gets
   a trainable low-rank update, y = x W^T + s (x A^T) B^T with A [r][in], B [out][r], B
   starting at zero so training starts from the base model exactly; s = alpha / r, or
   alpha / sqrt(r) with rslora (Kalajdzievski 2023: RsLoRA keeps the update's scale stable
   as r grows). Gradients flow through the base as stored (quantized bases: QLoRA-style,
   Dettmers et al. 2023), never through a dequantized copy of it. */
enum { LLM_LORA_Q = 1, LLM_LORA_K = 2, LLM_LORA_V = 4, LLM_LORA_O = 8, LLM_LORA_W1 = 16, LLM_LORA_W2 = 32,
       LLM_LORA_W3 = 64, LLM_LORA_ALL = 127 };
typedef struct llm_lora_params {
    int rank;         /* r >= 1 */
    float alpha;      /* 0 = r (s = 1 for LoRA) */
    int rslora;       /* 1: s = alpha / sqrt(r) */
    unsigned targets; /* LLM_LORA_* bits; 0 = q and v, Hu et al.'s choice */
} llm_lora_params;
LLMDEF float llm_lora_scale(const llm_lora_params *p);

LLMDEF llm_status llm_train_supported(const llm_config *c, const char **reason);
LLMDEF size_t llm_train_bytes(const llm_config *c, int batch, int seq);
/* What llm_train_bytes adds up, in bytes: 16 per parameter (fp32 weights, gradients and
   the two AdamW moments: 4 + 4 + 8, the fp32 counterpart of the estimator's 2 + 2 + 12),
   the activations saved per layer (for a GPT-style block exactly Korthikanti et al.'s
   tensors with flash attention and no dropout, in fp32: llm_activation_bytes' 34 s b d
   less its two 1-byte dropout masks, times 2), those after the last layer (final norm
   input and output, the logits), and the backward's work space. */
typedef struct llm_train_sizes {
    double params, grads, moments, activations_per_layer, activations_top, work, total;
} llm_train_sizes;
LLMDEF llm_train_sizes llm_train_sizes_of(const llm_config *c, int batch, int seq);
LLMDEF llm_status llm_train_init(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c, int batch, int seq);
/* Recomputation per block (Chen et al. 2016; Korthikanti et al.'s "full recomputation"):
   with LLM_TRAIN_RECOMPUTE the step saves only each block's input (4 B per value: twice
   llm_activation_bytes' LLM_ACT_RECOMPUTE 2 s b d) and, in the backward, runs that block's
   forward again into one block's buffers (counted in work), for about a third more
   compute. The gradients are bit-identical to the saving step's. */
enum { LLM_TRAIN_RECOMPUTE = 1 };
LLMDEF llm_train_sizes llm_train_sizes_ex(const llm_config *c, int batch, int seq, unsigned flags);
LLMDEF size_t llm_train_bytes_ex(const llm_config *c, int batch, int seq, unsigned flags);
LLMDEF llm_status llm_train_init_ex(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c, int batch, int seq,
                                    unsigned flags);
/* The same for LoRA on a frozen base: params, grads and moments hold only the adapters;
   base must outlive t (t->weights is a copy of it). llm_train_init_params then draws A
   from N(0, std^2) and zeroes B. */
LLMDEF size_t llm_train_lora_bytes(const llm_config *c, int batch, int seq, const llm_lora_params *p);
LLMDEF llm_status llm_train_init_lora(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c,
                                      const llm_weights *base, int batch, int seq, const llm_lora_params *p);
/* A (r x in) and B (out x r) of a layer's adapted projection (NULL when not adapted), and
   the merge W += s B A into an fp32 copy of that projection's weight [out][in]. */
LLMDEF llm_status llm_lora_adapter(const llm_train *t, int layer, unsigned target, const float **A, const float **B,
                                   int *in, int *out);
LLMDEF llm_status llm_lora_merge(const llm_train *t, int layer, unsigned target, float *W);
/* Adapters as a GGUF file in the layout llama.cpp reads (its --lora): general.type
   "adapter", adapter.type "lora", adapter.lora.alpha, and per adapted projection F32
   tensors blk.N.<name>.weight.lora_a (ne {in, r}) and .lora_b (ne {r, out}); arch is
   the base model's general.architecture ("llama"). llama.cpp scales by alpha / r, so the
   file's alpha is s r: RsLoRA's alpha / sqrt(r) survives the trip. _bytes: the file's
   size; save writes it into buf (at least that many bytes), *len its length; load copies
   a file's adapters into t, which must have the same rank and targets (LLM_EFORMAT
   naming the tensor or key otherwise), and takes the file's scale. */
LLMDEF size_t llm_lora_gguf_bytes(const llm_train *t, const char *arch);
LLMDEF llm_status llm_lora_save_gguf(const llm_train *t, const char *arch, void *buf, size_t cap, size_t *len);
LLMDEF llm_status llm_lora_load_gguf(llm_train *t, const llm_gguf *g, const char **why);
/* An adapter applied at inference without merging, on a base in any format: layers[l] is
   base->layers[l] with .lora pointing at ab + 7 l (the forward adds s B (A x) to each
   adapted projection, llm_lora_ab in >>model), and *out is *base with .layers = layers.
   ab [n_layers * 7] and layers [n_layers] are caller memory that must outlive out; the
   adapters are read in place (from t's parameters, or from g's buffer). Why a view and
   not a merge: a quantized base has no fp32 copy to add B A into, and the base stays
   shared by several adapters. From a LoRA training state: */
LLMDEF llm_status llm_lora_apply(const llm_train *t, const llm_weights *base, llm_lora_ab *ab, llm_layer_weights *layers,
                                 llm_weights *out);
/* From a GGUF adapter (llama.cpp's layout, as llm_lora_save_gguf writes it: F32 lora_a
   ne {in, r}, lora_b ne {r, out}; any subset of the projections) for a model of config c:
   scale = user_scale alpha / r (llama.cpp's rule; alpha absent or 0: user_scale). A tensor
   of another shape or type, or one it cannot place, is LLM_EFORMAT; a big-endian host is LLM_EUNSUPPORTED (the floats are read in place). */
LLMDEF llm_status llm_lora_apply_gguf(const llm_gguf *g, const llm_config *c, const llm_weights *base, float user_scale,
                                      llm_lora_ab *ab, llm_layer_weights *layers, llm_weights *out, const char **why);
/* The model a full training state holds, as a GGUF that llm_gguf_load and llama.cpp read:
   general.architecture "llama", its llama.* keys, F32 tensors token_embd, blk.N.attn_norm
   / attn_q / attn_k / attn_v / attn_output / ffn_norm / ffn_gate / ffn_down / ffn_up,
   output_norm and output (absent when tied). The llama layout holds a Llama-shaped model
   only: RMSNorm, SwiGLU, interleaved RoPE, no biases (another is LLM_EUNSUPPORTED, *why
   names the feature; a LoRA state too: merge its adapters first). tok, if not NULL, adds a
   SentencePiece vocabulary (tokenizer.ggml.model "llama") so llm-run can encode text.
   _bytes: the file's size (0 when it cannot be written). */
typedef struct llm_gguf_spm {
    int n_tokens;              /* 0 (pieces NULL): the 256 byte pieces <0x00>..<0xFF>, type BYTE, so
                                  encoding gives id = byte value: what a byte-level model reads */
    const char *const *pieces; /* [n_tokens] as GGUF stores them (U+2581 for a space) */
    const float *scores;       /* [n_tokens] or NULL (all 0) */
    const unsigned char *types; /* [n_tokens] llm_token_type, or NULL (NORMAL) */
    int bos, eos;              /* ids, -1 = none */
    int add_bos, add_space_prefix;
} llm_gguf_spm;
LLMDEF size_t llm_train_gguf_bytes(const llm_train *t, const llm_gguf_spm *tok);
LLMDEF llm_status llm_train_save_gguf(const llm_train *t, const llm_gguf_spm *tok, void *buf, size_t cap, size_t *len,
                                      const char **why);
/* Weights drawn from N(0, std^2) (GPT-2 uses 0.02), norm gains 1, biases 0; gradients and
   moments zeroed. Deterministic for a seed. */
LLMDEF llm_status llm_train_init_params(llm_train *t, uint64_t seed, float std);
/* One micro-batch: tokens[batch][seq] in, targets[batch][seq] the ids to predict (< 0:
   ignored), forward and backward, gradients ADDED (so several calls accumulate). The
   loss's gradient is scaled by grad_scale, or by 1 / (counted targets) when grad_scale is
   0; *loss gets the mean cross-entropy in nats over the counted targets. */
LLMDEF llm_status llm_train_step(llm_train *t, const int *tokens, const int *targets, float grad_scale, double *loss,
                                 llm_threads *th);
LLMDEF void llm_train_zero_grad(llm_train *t);
/* Clip the gradients' global norm to clip (0 = no clipping), take one AdamW step, zero the
   gradients. *grad_norm (if not NULL) gets the norm before clipping. A NaN or inf norm
   skips the step (LLM_ERANGE), leaving the parameters as they were. */
LLMDEF llm_status llm_train_update(llm_train *t, const llm_adamw *opt, double clip, double *grad_norm);
/* The same on a pool (th may be NULL): the gradient norm and AdamW split over parameter
   ranges, the same bits for any thread count. */
LLMDEF llm_status llm_train_update_ex(llm_train *t, const llm_adamw *opt, double clip, double *grad_norm, llm_threads *th);

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
#include <stdarg.h>
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
#ifndef LLM_TANHF
#define LLM_TANHF(x) tanhf(x)
#endif
#ifndef LLM_ERFF
#define LLM_ERFF(x) erff(x)
#endif
#ifndef LLM_SQRT
#define LLM_SQRT(x) sqrt(x)
#endif
#ifndef LLM_ROUNDF
#define LLM_ROUNDF(x) roundf(x)
#endif
#ifndef LLM_POW
#define LLM_POW(x, y) pow(x, y)
#endif
#ifndef LLM_LOG
#define LLM_LOG(x) log(x)
#endif
#ifndef LLM_EXP
#define LLM_EXP(x) exp(x)
#endif
#ifndef LLM_COS
#define LLM_COS(x) cos(x)
#endif
#ifndef LLM_SIN
#define LLM_SIN(x) sin(x)
#endif

/* ======================================================================================
   >>simd  the SIMD layer: one vector vocabulary, one fenced block per ISA
   ======================================================================================
   Chosen at compile time from the compiler's own macros (AVX-512F, AVX2 + FMA, AArch64
   NEON, else scalar; LLM_NO_SIMD forces scalar). Each block below defines, for its ISA:
     llm__rv            a vector of LLM__RVN floats
     load / store / set1 / add / sub / mul / div / fma (a b + c) / max / min / abs
     sqrt (correctly rounded, as IEEE sqrtf)
     round (to nearest even) / trunc / pow2i (2^n for integral n) / ge_or (x >= t ? a : b)
     hsum / hmax        horizontal sum and maximum;  llm__vsum4: four hsums at once
     load_n / store_n   the first n < LLM__RVN floats (a row's tail), the rest zero
     load_f16 / load_bf16 / store_f16   LLM__RVN half-precision values <-> one vector
     LLM__PREFETCH / LLM__PREFETCH_L2   bring a cache line into L1 / into L2 only
   Kernels are written once against these. LLM__RV is defined when a vector ISA is compiled
   in: the one guard of every vector loop, each followed by the scalar loop (libm, the
   oracle) for what is left. The scalar block defines llm__rv as a float (LLM__RVN = 1),
   so loops that have no separate oracle (GEMV, the GEMM's edges) compile everywhere.
   llm__rv_exp, llm__rv_sigmoid and llm__rv_gelu are built on the vocabulary in >>rowops.
   Adding an ISA: one block here (LLM__RV_BINARY lists the lane-wise operations it spells),
   its register tile (>>matmul: MR rows x NV vectors; the micro-kernel is generic), and,
   optionally, an in-register transpose for W's pack (>>matmul) and an int8 dot product
   (>>weights, llm__dot_q8), which otherwise fall back to generic code. ggml's block
   formats add a small integer vocabulary of their own (32 int8 codes: llm__qb, >>weights'
   fenced kernel block, one part per ISA family) and one for their many-token kernel (rows
   in int32 lanes: llm__pc), which the scalar build does without. */

#if !defined(LLM_NO_SIMD) && defined(__AVX512F__)
#define LLM__AVX512 1
#elif !defined(LLM_NO_SIMD) && defined(__AVX2__) && defined(__FMA__)
#define LLM__AVX2 1
#elif !defined(LLM_NO_SIMD) && (defined(__ARM_NEON) || defined(__ARM_NEON__)) && defined(__aarch64__)
#define LLM__NEON 1
#endif

#if defined(LLM__AVX512) || defined(LLM__AVX2)
/* gcc 12's AVX-512 intrinsics start from an uninitialised "undefined" vector, which
   -Wmaybe-uninitialized reports (in C++) wherever they are inlined; the header's own
   code never reads one, so the warning is silenced inside that header only. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
#define LLM__PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define LLM__PREFETCH_L2(p) _mm_prefetch((const char *)(p), _MM_HINT_T1)
/* Horizontal sum and maximum of 8 floats (AVX2's, and AVX-512's after folding 512 bits to
   256; the AVX-512 int8 path works in 256-bit vectors): halves, then pairs, then neighbours. */
#define LLM__HFOLD256(name, op)                                                           \
    static inline float name(__m256 v) {                                                  \
        __m128 s = _mm_##op##_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)); \
        s = _mm_##op##_ps(s, _mm_movehl_ps(s, s));                                        \
        return _mm_cvtss_f32(_mm_##op##_ss(s, _mm_movehdup_ps(s)));                       \
    }
LLM__HFOLD256(llm__hsum256, add)
LLM__HFOLD256(llm__hmax256, max)
#elif defined(LLM__NEON)
#include <arm_neon.h>
#endif
#if !defined(LLM__PREFETCH) && (defined(__GNUC__) || defined(__clang__))
#define LLM__PREFETCH(p) __builtin_prefetch(p)
#define LLM__PREFETCH_L2(p) __builtin_prefetch((p), 0, 2)
#elif !defined(LLM__PREFETCH)
#define LLM__PREFETCH(p) ((void)(p))
#define LLM__PREFETCH_L2(p) ((void)(p))
#endif

/* The lane-wise binary operations, one instruction named after each on every ISA: a
   block defines LLM__RV_OP2(op) as its spelling and expands this list with it. */
#define LLM__RV_BINARY(X) X(add) X(sub) X(mul) X(div) X(max) X(min)

#if defined(LLM__AVX512) || defined(LLM__AVX2)
/* What AVX-512 and AVX2 spell alike but for the width W (_mm512_ / _mm256_, si512 / si256)
   and the rounding instruction's name (both take the same rounding-control immediate). */
#define LLM__RV_X86(W, round_op)                                                                  \
    static inline llm__rv llm__rv_load(const float *p) { return _mm##W##_loadu_ps(p); }          \
    static inline void llm__rv_store(float *p, llm__rv v) { _mm##W##_storeu_ps(p, v); }          \
    static inline llm__rv llm__rv_set1(float f) { return _mm##W##_set1_ps(f); }                  \
    static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return _mm##W##_fmadd_ps(a, b, c); } \
    static inline llm__rv llm__rv_round(llm__rv a) {                                             \
        return _mm##W##_##round_op##_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);       \
    }                                                                                            \
    static inline llm__rv llm__rv_trunc(llm__rv a) {                                             \
        return _mm##W##_##round_op##_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);              \
    }                                                                                            \
    static inline llm__rv llm__rv_pow2i(llm__rv n) { /* the exponent field n + 127 */            \
        __m##W##i e = _mm##W##_add_epi32(_mm##W##_cvtps_epi32(n), _mm##W##_set1_epi32(127));     \
        return _mm##W##_castsi##W##_ps(_mm##W##_slli_epi32(e, 23));                              \
    }
#endif

/* ---- AVX-512F: 16 lanes, masks for tails ---------------------------------------------- */
#if defined(LLM__AVX512)
#define LLM__RV 1
#define LLM__RV_MASKED 1 /* load_n / store_n are single masked instructions */
typedef __m512 llm__rv;
#define LLM__RVN 16
LLM__RV_X86(512, roundscale)
#define LLM__RV_OP2(op) static inline llm__rv llm__rv_##op(llm__rv a, llm__rv b) { return _mm512_##op##_ps(a, b); }
LLM__RV_BINARY(LLM__RV_OP2)
static inline llm__rv llm__rv_load_n(const float *p, int n) { return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p); }
static inline void llm__rv_store_n(float *p, llm__rv v, int n) { _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v); }
static inline llm__rv llm__rv_abs(llm__rv a) { return _mm512_abs_ps(a); }
static inline llm__rv llm__rv_sqrt(llm__rv a) { return _mm512_sqrt_ps(a); }
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, t, _CMP_GE_OQ), b, a);
}
/* Horizontal sum / max: the two 256-bit halves folded, then as AVX2 does (AVX512F's own
   cast and extract; not _mm512_reduce_*, whose gcc 12 form trips -Wmaybe-uninitialized). */
static inline __m256 llm__hi256(llm__rv a) { return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)); }
static inline float llm__rv_hsum(llm__rv a) { return llm__hsum256(_mm256_add_ps(_mm512_castps512_ps256(a), llm__hi256(a))); }
static inline float llm__rv_hmax(llm__rv a) { return llm__hmax256(_mm256_max_ps(_mm512_castps512_ps256(a), llm__hi256(a))); }
/* s[i] = hsum of vector i, the shuffles shared (13 instructions instead of 32): pairs of
   lanes first (unpack), then the 4-lane blocks of the four side by side, then the blocks. */
static inline void llm__vsum4(llm__rv a, llm__rv b, llm__rv c, llm__rv d, float *s) {
    const __mmask16 all = (__mmask16)0xffff;
    __m512 ab = _mm512_add_ps(_mm512_mask_unpacklo_ps(a, all, a, b), _mm512_mask_unpackhi_ps(a, all, a, b));
    __m512 cd = _mm512_add_ps(_mm512_mask_unpacklo_ps(c, all, c, d), _mm512_mask_unpackhi_ps(c, all, c, d));
    __m512 v = _mm512_add_ps(_mm512_mask_shuffle_ps(ab, all, ab, cd, 0x44), _mm512_mask_shuffle_ps(ab, all, ab, cd, 0xee));
    v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, all, v, v, 0x4e));
    v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, all, v, v, 0xb1));
    _mm_storeu_ps(s, _mm512_castps512_ps128(v));
}
static inline llm__rv llm__rv_load_f16(const uint16_t *p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p)); }
static inline void llm__rv_store_f16(uint16_t *p, llm__rv v) {
    _mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
static inline llm__rv llm__rv_load_bf16(const uint16_t *p) { /* bf16 is an fp32's top half */
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p)), 16));
}

/* ---- AVX2 + FMA: 8 lanes (F16C for fp16 when present) -------------------------------- */
#elif defined(LLM__AVX2)
#define LLM__RV 1
typedef __m256 llm__rv;
#define LLM__RVN 8
LLM__RV_X86(256, round)
#define LLM__RV_OP2(op) static inline llm__rv llm__rv_##op(llm__rv a, llm__rv b) { return _mm256_##op##_ps(a, b); }
LLM__RV_BINARY(LLM__RV_OP2)
static inline llm__rv llm__rv_abs(llm__rv a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline llm__rv llm__rv_sqrt(llm__rv a) { return _mm256_sqrt_ps(a); }
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(x, t, _CMP_GE_OQ));
}
static inline float llm__rv_hsum(llm__rv a) { return llm__hsum256(a); }
static inline float llm__rv_hmax(llm__rv a) { return llm__hmax256(a); }
static inline void llm__vsum4(llm__rv a, llm__rv b, llm__rv c, llm__rv d, float *s) {
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d)); /* [a b c d] per 128-bit half */
    _mm_storeu_ps(s, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}
#ifdef __F16C__
static inline llm__rv llm__rv_load_f16(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p)); }
static inline void llm__rv_store_f16(uint16_t *p, llm__rv v) {
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}
#else
/* fp16 without F16C: the exponent and mantissa bits moved into place and rescaled by
   2^112, which also gets subnormals right; exponent 31 (inf, NaN) set separately. */
static inline llm__rv llm__rv_load_f16(const uint16_t *p) {
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    __m256i em = _mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7fff)), 13);
    __m256i sign = _mm256_slli_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x8000)), 16);
    __m256i naninf = _mm256_cmpgt_epi32(em, _mm256_set1_epi32(0x0f7fffff)); /* exponent 31 */
    __m256 f = _mm256_mul_ps(_mm256_castsi256_ps(em), _mm256_set1_ps(5.192296858534828e33f)); /* 2^112 */
    f = _mm256_or_ps(f, _mm256_castsi256_ps(_mm256_and_si256(naninf, _mm256_set1_epi32(0x7f800000))));
    return _mm256_or_ps(f, _mm256_castsi256_ps(sign));
}
#define LLM__RV_NO_STORE_F16 1 /* llm__rv_store_f16 is the scalar loop */
#endif
static inline llm__rv llm__rv_load_bf16(const uint16_t *p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p)), 16));
}

/* ---- AArch64 NEON: 4 lanes ----------------------------------------------------------- */
#elif defined(LLM__NEON)
#define LLM__RV 1
typedef float32x4_t llm__rv;
#define LLM__RVN 4
static inline llm__rv llm__rv_load(const float *p) { return vld1q_f32(p); }
static inline void llm__rv_store(float *p, llm__rv v) { vst1q_f32(p, v); }
static inline llm__rv llm__rv_set1(float f) { return vdupq_n_f32(f); }
#define LLM__RV_OP2(op) static inline llm__rv llm__rv_##op(llm__rv a, llm__rv b) { return v##op##q_f32(a, b); }
LLM__RV_BINARY(LLM__RV_OP2)
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return vfmaq_f32(c, a, b); }
static inline llm__rv llm__rv_abs(llm__rv a) { return vabsq_f32(a); }
static inline llm__rv llm__rv_sqrt(llm__rv a) { return vsqrtq_f32(a); }
static inline llm__rv llm__rv_round(llm__rv a) { return vrndnq_f32(a); }
static inline llm__rv llm__rv_trunc(llm__rv a) { return vrndq_f32(a); }
static inline llm__rv llm__rv_pow2i(llm__rv n) {
    return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23));
}
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) { return vbslq_f32(vcgeq_f32(x, t), a, b); }
static inline float llm__rv_hsum(llm__rv a) { return vaddvq_f32(a); }
static inline float llm__rv_hmax(llm__rv a) { return vmaxvq_f32(a); }
static inline void llm__vsum4(llm__rv a, llm__rv b, llm__rv c, llm__rv d, float *s) {
    vst1q_f32(s, vpaddq_f32(vpaddq_f32(a, b), vpaddq_f32(c, d)));
}
static inline llm__rv llm__rv_load_f16(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
static inline void llm__rv_store_f16(uint16_t *p, llm__rv v) { vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(v))); }
static inline llm__rv llm__rv_load_bf16(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }

/* ---- scalar: one lane, so vector-shaped loops compile without SIMD -------------------- */
#else
#define LLM__RV_SCALAR 1 /* one-lane "vectors": the attention kernels run on them as they are */
typedef float llm__rv;
#define LLM__RVN 1
static inline llm__rv llm__rv_load(const float *p) { return *p; }
static inline void llm__rv_store(float *p, llm__rv v) { *p = v; }
static inline llm__rv llm__rv_set1(float f) { return f; }
static inline llm__rv llm__rv_add(llm__rv a, llm__rv b) { return a + b; }
static inline llm__rv llm__rv_sub(llm__rv a, llm__rv b) { return a - b; }
static inline llm__rv llm__rv_mul(llm__rv a, llm__rv b) { return a * b; }
static inline llm__rv llm__rv_div(llm__rv a, llm__rv b) { return a / b; }
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return a * b + c; }
static inline llm__rv llm__rv_max(llm__rv a, llm__rv b) { return a > b ? a : b; } /* maxps's NaN rule */
static inline llm__rv llm__rv_ge_or(llm__rv x, llm__rv t, llm__rv a, llm__rv b) { return x >= t ? a : b; }
static inline float llm__rv_hsum(llm__rv a) { return a; }
static inline float llm__rv_hmax(llm__rv a) { return a; }
static inline llm__rv llm__rv_exp(llm__rv x) { return LLM_EXPF(x); }
static inline llm__rv llm__rv_tanh(llm__rv x) { return LLM_TANHF(x); }
static inline void llm__vsum4(llm__rv a, llm__rv b, llm__rv c, llm__rv d, float *s) { s[0] = a, s[1] = b, s[2] = c, s[3] = d; }
#endif

#undef LLM__RV_OP2

/* Tails through a zero-padded vector where the ISA has no masked load or store. */
#if defined(LLM__RV) && !defined(LLM__RV_MASKED)
static inline llm__rv llm__rv_load_n(const float *p, int n) {
    float t[LLM__RVN] = {0};
    memcpy(t, p, sizeof(float) * (size_t)n);
    return llm__rv_load(t);
}
static inline void llm__rv_store_n(float *p, llm__rv v, int n) {
    float t[LLM__RVN];
    llm__rv_store(t, v);
    memcpy(p, t, sizeof(float) * (size_t)n);
}
#endif
#ifdef LLM__RV
/* w <= LLM__RVN floats: a whole vector, or a tail */
static inline llm__rv llm__rv_load_w(const float *p, int w) { return w == LLM__RVN ? llm__rv_load(p) : llm__rv_load_n(p, w); }
static inline void llm__rv_store_w(float *p, llm__rv v, int w) {
    if (w == LLM__RVN) llm__rv_store(p, v);
    else llm__rv_store_n(p, v, w);
}
#endif
#ifdef LLM__RV_NO_STORE_F16
static inline void llm__rv_store_f16(uint16_t *p, llm__rv v) {
    float t[LLM__RVN];
    int i;
    llm__rv_store(t, v);
    for (i = 0; i < LLM__RVN; i++) p[i] = llm_f32_to_f16(t[i]);
}
#endif

#ifdef LLM_PTHREADS
#include <pthread.h>
#include <sched.h> /* sched_yield */
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

/* llm_dtype_name, _bits, _bytes and _parse read the weight-format table (>>weights). */

/* Below this many multiply-adds a kernel runs on the caller's thread: waking the pool's
   workers would cost more than the work (one rule for every threaded kernel). */
#define LLM__PAR_MIN_WORK 65536

/* p rounded up to the next 64-byte boundary: one cache line, one AVX-512 vector. */
static void *llm__align64(void *p) { return (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

/* Return expr's status unless it is LLM_OK. */
#define LLM__MTRY(expr)                                                                                \
    do {                                                                                             \
        llm_status llm__st = (expr);                                                                 \
        if (llm__st != LLM_OK) return llm__st;                                                       \
    } while (0)

/* Every *_create is its *_init in memory from LLM_MALLOC, and every *_free its undoing.
   llm__create_mem empties the object and allocates `bytes` (0: the size query refused the
   arguments); llm__created gives the memory to the object's `owned` if init succeeded, else
   frees it and empties `size` bytes of the object (0 where init left its reason inside). */
static llm_status llm__create_mem(void *obj, size_t size, size_t bytes, void **mem) {
    *mem = NULL;
    if (!obj) return LLM_EINVAL;
    memset(obj, 0, size);
    if (bytes == 0) return LLM_EINVAL;
    *mem = LLM_MALLOC(bytes);
    return *mem ? LLM_OK : LLM_ENOMEM;
}
static llm_status llm__created(void *obj, size_t size, void **owned, void *mem, llm_status st) {
    if (st == LLM_OK) {
        *owned = mem;
        return LLM_OK;
    }
    LLM_FREE(mem);
    memset(obj, 0, size);
    return st;
}
static void llm__destroy(void *obj, size_t size, void *owned) {
    if (owned) LLM_FREE(owned);
    memset(obj, 0, size);
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
   decode step jobs arrive back to back (about 97 per token for the 110M shape) and a
   worker still spinning picks the next one up without a wake-up. The spin lasts up to
   20,000 pauses (about a millisecond), longer than any gap between a decode step's jobs,
   so workers do not sleep and wake between them. Every 64 pauses the spinner yields its
   core (sched_yield returns at once when nothing else is runnable), so on a shared
   machine a spinning thread does not hold the core its partner needs. The measurements
   behind both numbers are in bench/NOTES.md. */
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
/* one step of a spin-wait: a pause, and every 64th step the core to whoever needs it */
#define LLM__SPIN_STEP(i)              \
    do {                               \
        if (((i) & 63) == 63)          \
            (void)sched_yield();       \
        else                           \
            LLM__PAUSE();              \
    } while (0)

#ifndef LLM_THREAD_STACK
#define LLM_THREAD_STACK (1024 * 1024) /* bytes of stack each worker thread gets, at least */
#endif

typedef struct llm__worker {
    llm_threads *pool;
    int ith;
} llm__worker;

struct llm_threads {
    int n, started, quit;
    int busy;        /* a job is running: nested or concurrent calls run serially */
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
        for (i = 0; i < LLM__SPINS && LLM__LOAD(&p->gen) == seen && !LLM__LOAD(&p->quit); i++) LLM__SPIN_STEP(i);
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
    pthread_attr_t attr;
    size_t bytes, stack = 0;
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
    /* The kernels keep their tiles on the stack (GEMM packing ~152 KiB, attention ~140 KiB):
       ask for at least LLM_THREAD_STACK, since some libcs (musl: 128 KiB) default lower. */
    pthread_attr_init(&attr);
    if (pthread_attr_getstacksize(&attr, &stack) != 0 || stack < (size_t)LLM_THREAD_STACK)
        pthread_attr_setstacksize(&attr, (size_t)LLM_THREAD_STACK);
    for (i = 1; i < n_threads; i++) {
        th->args[i].pool = th;
        th->args[i].ith = i;
        if (pthread_create(&th->tid[th->started], &attr, llm__worker_main, &th->args[i]) != 0) {
            pthread_attr_destroy(&attr);
            llm_threads_free(th);
            return LLM_ENOMEM;
        }
        th->started++;
    }
    pthread_attr_destroy(&attr);
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
    if (th->busy) { /* called from inside one of its own tasks, or from a second thread */
        pthread_mutex_unlock(&th->mu);
        fn(ctx, 0, 1);
        return;
    }
    th->busy = 1;
    th->fn = fn;
    th->ctx = ctx;
    th->pending = th->n - 1;
    LLM__STORE(&th->gen, th->gen + 1);
    pthread_cond_broadcast(&th->wake);
    pthread_mutex_unlock(&th->mu);
    fn(ctx, 0, th->n);
    for (i = 0; i < LLM__SPINS && LLM__LOAD(&th->pending) != 0; i++) LLM__SPIN_STEP(i);
    pthread_mutex_lock(&th->mu);
    while (th->pending != 0) pthread_cond_wait(&th->done, &th->mu);
    LLM_ASSERT(th->busy == 1 && th->pending == 0);
    th->busy = 0;
    pthread_mutex_unlock(&th->mu);
}
#endif /* LLM_PTHREADS */

/* ======================================================================================
   >>config implementation
   ====================================================================================== */

LLMDEF llm_config llm_config_default(void) {
    llm_config c;
    memset(&c, 0, sizeof c); /* sizes 0; enums 0 = RMS, SwiGLU, RoPE, interleaved, no bias */
    c.name = "custom";
    c.norm_eps = 1e-5f;
    c.rope_theta = 10000.0f;
    return c;
}

LLMDEF int llm_config_head_dim(const llm_config *c) {
    if (!c) return 0;
    if (c->head_dim) return c->head_dim;
    return c->n_heads > 0 ? c->d_model / c->n_heads : 0;
}

LLMDEF int llm_config_layer_window(const llm_config *c, int layer) {
    if (!c || c->sliding_window <= 0) return 0;
    if (c->window_pattern > 0 && layer % c->window_pattern == c->window_pattern - 1) return 0;
    return c->sliding_window;
}

/* ---- the kinds, as data -------------------------------------------------------------
   What each FFN and bias kind means, in one place: the estimator counts from these rows,
   the forward pass runs from them and llm_decode_bytes reads by them, so a new kind is a
   row here (and its kernel), not an edit in each. */
static llm_status llm__geglu(float *out, const float *gate, const float *up, int n); /* >>model */
typedef struct llm__ffn_info {
    const char *name;
    int matrices; /* d x d_ff matrices: 3 when gated (W1 gate, W3 up, W2 down), else 2 */
    llm_status (*act)(float *out, const float *x, int n);                    /* plain: act(W1 x) */
    llm_status (*glu)(float *out, const float *gate, const float *up, int n); /* gated: act(gate) * up */
} llm__ffn_info;
static const llm__ffn_info llm__ffn_kinds[LLM_FFN_COUNT] = {
    {"swiglu", 3, NULL, llm_swiglu}, /* Shazeer 2020 */
    {"gelu", 2, llm_gelu, NULL},     /* GPT-2's MLP, tanh GELU */
    {"geglu", 3, NULL, llm__geglu},  /* Gemma */
};
/* Which linear layers carry a bias vector (the norms' biases are the separate norm_bias). */
typedef struct llm__bias_info {
    const char *name;
    int qkv;  /* bq, bk, bv */
    int rest; /* bo and the FFN's b1, b2 (b3 when gated) */
} llm__bias_info;
static const llm__bias_info llm__bias_kinds[LLM_BIAS_COUNT] = {{"none", 0, 0}, {"qkv", 1, 0}, {"all", 1, 1}};

/* The published architectures, one row per model, from each model's config.json or
   paper. A row is a few named field groups, in llm_config's order:
     LLM__SHAPE(d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, vocab, max_seq_len)
     LLM__NORM(kind, norm_bias, norm_eps)   LLM__FFN(kind)
     positions: LLM__ROPE(theta, pairs), LLM__ROPE_LLAMA3(theta, factor) or LLM__LEARNED_POS.
       pairs: INTERLEAVED in Meta's / Mistral's reference code and llama2.c, HALVES for
       models published only in Hugging Face format
     LLM__HEAD(tied: LM head shares the embedding)   LLM__BIAS(NONE, QKV or ALL)
     LLM__DENSE or LLM__MOE(experts, per token)   LLM__WINDOW(sliding window; 0 = none)
     LLM__PLAIN, or LLM__GEMMA(sqrt(d_model)): Gemma's embedding scale
   Every row is pre-norm. */
#define LLM__SHAPE(d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, vocab, max_seq_len) \
    d_model, n_layers, n_heads, n_kv_heads, head_dim, d_ff, vocab, max_seq_len
#define LLM__NORM(kind, norm_bias, eps) LLM_NORM_##kind, norm_bias, eps
#define LLM__FFN(kind) LLM_FFN_##kind
/* pos, rope_theta, rope_layout, rotary_dim, then the Llama 3 scaling fields */
#define LLM__ROPE(theta, pairs) LLM_POS_ROPE, theta, LLM_ROPE_##pairs, 0, 0.0f, 0.0f, 0.0f, 0
#define LLM__LEARNED_POS LLM_POS_LEARNED, 0.0f, LLM_ROPE_INTERLEAVED, 0, 0.0f, 0.0f, 0.0f, 0
/* Llama 3.1 / 3.2's rope_scaling: the factor, low 1, high 4, original context 8192 */
#define LLM__ROPE_LLAMA3(theta, factor) LLM_POS_ROPE, theta, LLM_ROPE_INTERLEAVED, 0, factor, 1.0f, 4.0f, 8192
#define LLM__HEAD(tied) tied
#define LLM__BIAS(kind) LLM_BIAS_##kind, 0 /* post_norm 0: pre-norm */
#define LLM__DENSE 0, 0, 0, LLM_ROUTER_TOPK_NORM, 0, 0
#define LLM__MOE(experts, per_token) experts, per_token, 0, LLM_ROUTER_TOPK_NORM, 0, 0 /* renormalized */
#define LLM__WINDOW(w) w
/* qk_norm, sandwich_norm, embed_scale, attn_scale, the softcaps, window_pattern */
#define LLM__PLAIN 0, 0, 0.0f, 0.0f, 0.0f, 0.0f, 0
#define LLM__GEMMA(sqrt_d) 0, 0, sqrt_d, 0.0f, 0.0f, 0.0f, 0 /* embedding times sqrt(d_model) */
static const llm_config llm__presets[] = {
    {"gpt2",           LLM__SHAPE(768, 12, 12, 12, 64, 3072, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"gpt2-medium",    LLM__SHAPE(1024, 24, 16, 16, 64, 4096, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"gpt2-large",     LLM__SHAPE(1280, 36, 20, 20, 64, 5120, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"gpt2-xl",        LLM__SHAPE(1600, 48, 25, 25, 64, 6400, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"gpt-3-175b",     LLM__SHAPE(12288, 96, 96, 96, 128, 49152, 50257, 2048), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-2-7b",     LLM__SHAPE(4096, 32, 32, 32, 128, 11008, 32000, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-2-13b",    LLM__SHAPE(5120, 40, 40, 40, 128, 13824, 32000, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-2-70b",    LLM__SHAPE(8192, 80, 64, 8, 128, 28672, 32000, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3-8b",     LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 128256, 8192), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(500000, INTERLEAVED),  LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3-70b",    LLM__SHAPE(8192, 80, 64, 8, 128, 28672, 128256, 8192), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(500000, INTERLEAVED),  LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3.1-8b",   LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 8),     LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3.1-70b",  LLM__SHAPE(8192, 80, 64, 8, 128, 28672, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 8),     LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3.1-405b", LLM__SHAPE(16384, 126, 128, 8, 128, 53248, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 8),     LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3.2-1b",   LLM__SHAPE(2048, 16, 32, 8, 64, 8192, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 32),    LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"llama-3.2-3b",   LLM__SHAPE(3072, 28, 24, 8, 128, 8192, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 32),    LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"mistral-7b",     LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 32000, 32768), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(4096), LLM__PLAIN},
    {"mixtral-8x7b",   LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 32000, 32768), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(1000000, INTERLEAVED), LLM__HEAD(0), LLM__BIAS(NONE), LLM__MOE(8, 2), LLM__WINDOW(0), LLM__PLAIN},
    {"qwen2.5-0.5b",   LLM__SHAPE(896, 24, 14, 2, 64, 4864, 151936, 32768), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(SWIGLU), LLM__ROPE(1000000, HALVES),      LLM__HEAD(1), LLM__BIAS(QKV),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"qwen2.5-7b",     LLM__SHAPE(3584, 28, 28, 4, 128, 18944, 152064, 131072), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(SWIGLU), LLM__ROPE(1000000, HALVES),      LLM__HEAD(0), LLM__BIAS(QKV),  LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"tinyllama-1.1b", LLM__SHAPE(2048, 22, 32, 4, 64, 5632, 32000, 2048), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, HALVES),        LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"smollm2-135m",   LLM__SHAPE(576, 30, 9, 3, 64, 1536, 49152, 8192), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(100000, HALVES),       LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__PLAIN},
    {"phi-3-mini",     LLM__SHAPE(3072, 32, 32, 32, 96, 8192, 32064, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, HALVES),        LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(2047), LLM__PLAIN},
    {"gemma-2b",       LLM__SHAPE(2048, 18, 8, 1, 256, 16384, 256000, 8192), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(GEGLU),  LLM__ROPE(10000, HALVES),        LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__GEMMA(45.254834f)},
    {"gemma-7b",       LLM__SHAPE(3072, 28, 16, 16, 256, 24576, 256000, 8192), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(GEGLU),  LLM__ROPE(10000, HALVES),        LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0), LLM__GEMMA(55.425626f)},
};
#undef LLM__SHAPE
#undef LLM__NORM
#undef LLM__FFN
#undef LLM__ROPE
#undef LLM__LEARNED_POS
#undef LLM__ROPE_LLAMA3
#undef LLM__HEAD
#undef LLM__BIAS
#undef LLM__DENSE
#undef LLM__MOE
#undef LLM__WINDOW
#undef LLM__PLAIN
#undef LLM__GEMMA
#define LLM__N_PRESETS ((int)(sizeof llm__presets / sizeof llm__presets[0]))

/* ASCII case-insensitive equality, independent of the C locale. */
static int llm__name_eq(const char *a, const char *b) {
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
        if (!x) return 1;
    }
}

/* The row called `name` in a table whose rows start with their name (the model presets,
   the GPU presets), or -1. */
static int llm__table_find(const char *name, const void *rows, int n, size_t row_bytes) {
    int i;
    for (i = 0; name && i < n; i++)
        if (llm__name_eq(name, *(const char *const *)(const void *)((const char *)rows + (size_t)i * row_bytes))) return i;
    return -1;
}

LLMDEF const llm_config *llm_preset(const char *name) {
    return llm_preset_at(llm__table_find(name, llm__presets, LLM__N_PRESETS, sizeof llm__presets[0]));
}
LLMDEF const llm_config *llm_preset_at(int i) { return i >= 0 && i < LLM__N_PRESETS ? &llm__presets[i] : NULL; }

/* Validation names the first problem, so a user can fix a config field by field. */
#define LLM__REJECT(why)                \
    do {                                \
        if (reason) *reason = (why);    \
        return LLM_EINVAL;              \
    } while (0)

LLMDEF llm_status llm_config_check(const llm_config *c, const char **reason) {
    int hd;
    double n;
    if (reason) *reason = "ok";
    if (!c) LLM__REJECT("config is NULL");
    if (c->d_model <= 0) LLM__REJECT("d_model must be positive");
    if (c->n_layers <= 0) LLM__REJECT("n_layers must be positive");
    if (c->n_heads <= 0) LLM__REJECT("n_heads must be positive");
    if (c->n_kv_heads <= 0) LLM__REJECT("n_kv_heads must be positive");
    if (c->n_kv_heads > c->n_heads) LLM__REJECT("n_kv_heads must not exceed n_heads");
    if (c->n_heads % c->n_kv_heads) LLM__REJECT("n_kv_heads must divide n_heads");
    if (c->head_dim < 0) LLM__REJECT("head_dim must not be negative");
    if (c->head_dim == 0 && c->d_model % c->n_heads) LLM__REJECT("n_heads must divide d_model (or set head_dim)");
    hd = llm_config_head_dim(c);
    if (c->d_ff <= 0) LLM__REJECT("d_ff must be positive");
    if (c->vocab <= 0) LLM__REJECT("vocab must be positive");
    if (c->max_seq_len <= 0) LLM__REJECT("max_seq_len must be positive");
    if ((unsigned)c->norm >= (unsigned)LLM_NORM_COUNT) LLM__REJECT("norm kind out of range");
    if ((unsigned)c->ffn >= (unsigned)LLM_FFN_COUNT) LLM__REJECT("ffn kind out of range");
    if ((unsigned)c->pos >= (unsigned)LLM_POS_COUNT) LLM__REJECT("position kind out of range");
    if ((unsigned)c->bias >= (unsigned)LLM_BIAS_COUNT) LLM__REJECT("bias kind out of range");
    if ((unsigned)c->rope_layout >= (unsigned)LLM_ROPE_LAYOUT_COUNT) LLM__REJECT("rope layout out of range");
    if (c->norm_bias && c->norm != LLM_NORM_LAYER) LLM__REJECT("norm_bias needs LayerNorm (RMSNorm has no bias)");
    /* !(x >= 0) also catches NaN */
    if (!(c->norm_eps >= 0.0f) || c->norm_eps > 1.0f) LLM__REJECT("norm_eps must be in [0, 1]");
    if (!(c->rope_theta >= 0.0f) || c->rope_theta > 1e30f) LLM__REJECT("rope_theta must be finite and not negative");
    if (!(c->rope_scale >= 0.0f) || c->rope_scale > 1e30f) LLM__REJECT("rope_scale must be finite and not negative");
    if (!(c->rope_low_freq_factor >= 0.0f) || !(c->rope_high_freq_factor >= 0.0f) ||
        c->rope_low_freq_factor > 1e30f || c->rope_high_freq_factor > 1e30f || c->rope_orig_ctx < 0)
        LLM__REJECT("rope scaling factors must be finite and not negative");
    if (c->rotary_dim < 0 || c->rotary_dim > hd) LLM__REJECT("rotary_dim must be in 0..head_dim");
    /* RoPE rotates pairs of dimensions: an odd count leaves one without a partner */
    if (c->pos == LLM_POS_ROPE && ((c->rotary_dim ? c->rotary_dim : hd) & 1)) LLM__REJECT("RoPE needs an even head_dim (rotary_dim)");
    if (c->n_experts < 0 || c->n_experts_per_tok < 0 || c->n_shared_experts < 0)
        LLM__REJECT("expert counts must not be negative");
    if (c->n_experts == 0 && c->n_experts_per_tok) LLM__REJECT("n_experts_per_tok set without n_experts");
    if (c->n_experts > 0 && c->n_experts_per_tok == 0) LLM__REJECT("n_experts_per_tok must be positive with experts");
    if (c->n_experts_per_tok > c->n_experts) LLM__REJECT("n_experts_per_tok (top-k) exceeds n_experts");
    if (c->n_experts == 0 && c->n_shared_experts) LLM__REJECT("shared experts without routed experts");
    if ((unsigned)c->router >= (unsigned)LLM_ROUTER_COUNT) LLM__REJECT("router kind out of range");
    if (c->d_ff_shared < 0) LLM__REJECT("d_ff_shared must not be negative");
    if ((unsigned)c->shared_gate > 1u) LLM__REJECT("shared_gate is 0 or 1");
    if ((c->d_ff_shared || c->shared_gate) && !c->n_shared_experts) LLM__REJECT("d_ff_shared or shared_gate set without shared experts");
    if (c->sliding_window < 0) LLM__REJECT("sliding_window must not be negative");
    if (c->window_pattern < 0) LLM__REJECT("window_pattern must not be negative");
    if (c->window_pattern > 0 && c->sliding_window == 0) LLM__REJECT("window_pattern set without a sliding_window");
    if ((unsigned)c->qk_norm > 1u || (unsigned)c->sandwich_norm > 1u) LLM__REJECT("qk_norm and sandwich_norm are 0 or 1");
    if (c->sandwich_norm && (c->post_norm || c->norm_bias))
        LLM__REJECT("sandwich_norm is a pre-norm block's extra norms, without norm biases");
    if (!(c->embed_scale >= 0.0f) || c->embed_scale > 1e30f) LLM__REJECT("embed_scale must be finite and not negative");
    if (!(c->attn_scale >= 0.0f) || c->attn_scale > 1e30f) LLM__REJECT("attn_scale must be finite and not negative");
    /* 1 / softcap must be finite: 0 (none), or far above the subnormals */
    if ((c->attn_softcap != 0.0f && !(c->attn_softcap >= 1e-6f)) || c->attn_softcap > 1e30f ||
        (c->final_softcap != 0.0f && !(c->final_softcap >= 1e-6f)) || c->final_softcap > 1e30f)
        LLM__REJECT("attn_softcap and final_softcap must be 0 or in [1e-6, 1e30]");
    /* Every count below is computed in 64 bits; refuse configs where even that would
       wrap. Estimated in double with generous margins (factor 2 on every term). */
    n = (double)c->vocab * c->d_model * 2.0 + (double)c->max_seq_len * c->d_model +
        (double)c->n_layers * ((double)c->d_model * hd * (2.0 * c->n_heads + 2.0 * c->n_kv_heads + 4.0) +
                               3.0 * c->d_model * (double)c->d_ff * (1.0 + c->n_experts) +
                               3.0 * c->d_model * (double)(c->d_ff_shared > c->d_ff ? c->d_ff_shared : c->d_ff) * c->n_shared_experts +
                               (double)c->d_model * (c->n_experts + 8.0) + 2.0 * c->d_ff);
    if (n * 64.0 > 9.2e18) LLM__REJECT("model too large: byte counts would overflow 64 bits");
    return LLM_OK;
}

LLMDEF llm_status llm_config_runnable(const llm_config *c, const char **reason) {
    llm_status st = llm_config_check(c, reason);
    if (st != LLM_OK) return st;
    /* experts are gated FFNs without biases (every MoE model published so far) */
    if (c->n_experts > 0 && llm__ffn_kinds[c->ffn].matrices != 3) {
        if (reason) *reason = "mixture of experts with an ungated (GELU MLP) expert FFN: not run";
        return LLM_EUNSUPPORTED;
    }
    if (c->n_experts > 0 && llm__bias_kinds[c->bias].rest) {
        if (reason) *reason = "mixture of experts with FFN biases (bias = all): expert biases are not run";
        return LLM_EUNSUPPORTED;
    }
    return LLM_OK;
}

/* ======================================================================================
   >>estimate implementation
   ====================================================================================== */

/* ---- parameters ----------------------------------------------------------------------
   One decoder block, with d = d_model, q = n_heads head_dim, kv = n_kv_heads head_dim:
     attention  Wq d q + Wk d kv + Wv d kv + Wo q d   (+ q + 2 kv biases for QKV,
                                                        + d more for ALL)
     FFN        SwiGLU / GEGLU: W1, W3 (d x ff) and W2 (ff x d) = 3 d ff; GELU MLP: 2 d ff
                (+ ff + d biases for ALL); MoE: that per expert, plus a d x E router,
                plus the shared experts (d_ff_shared wide) and their gate vector d
     norms      2 per block (pre-attention, pre-FFN), d each, 2 d with LayerNorm bias;
                sandwich_norm: 2 more (post-attention, post-FFN); qk_norm: 2 head_dim (q, k)
   plus the embedding V d, learned positions ctx d, one final norm and the LM head V d
   unless tied. GPT-2 small: 12 (12 d^2 + 13 d) + V d + 1024 d + 2 d = 124,439,808. */
LLMDEF llm_params llm_count_params(const llm_config *c) {
    llm_params p;
    uint64_t d, q, kv, ff, mats, attn_w, attn_b, ffn_one, ffn_b_one, experts, ffn_w, ffn_b, router, norm_one;
    uint64_t L, active_experts, active_ffn_w, block_norms, shared_ff, shared, shared_b;
    memset(&p, 0, sizeof p);
    if (llm_config_check(c, NULL) != LLM_OK) return p;
    d = (uint64_t)c->d_model;
    q = (uint64_t)c->n_heads * (uint64_t)llm_config_head_dim(c);
    kv = (uint64_t)c->n_kv_heads * (uint64_t)llm_config_head_dim(c);
    ff = (uint64_t)c->d_ff;
    L = (uint64_t)c->n_layers;

    attn_w = d * q + 2 * d * kv + q * d;
    attn_b = (llm__bias_kinds[c->bias].qkv ? q + 2 * kv : 0) + (llm__bias_kinds[c->bias].rest ? d : 0);

    mats = (uint64_t)llm__ffn_kinds[c->ffn].matrices;
    ffn_one = mats * d * ff;
    ffn_b_one = llm__bias_kinds[c->bias].rest ? ff * (mats - 1) + d : 0;
    experts = c->n_experts ? (uint64_t)c->n_experts : 1;
    active_experts = c->n_experts ? (uint64_t)c->n_experts_per_tok : 1;
    /* the shared experts (d_ff_shared wide) and their gate vector run for every token */
    shared_ff = (uint64_t)(c->d_ff_shared ? c->d_ff_shared : c->d_ff);
    shared = (uint64_t)c->n_shared_experts * mats * d * shared_ff + (c->shared_gate ? d : 0);
    shared_b = llm__bias_kinds[c->bias].rest ? (uint64_t)c->n_shared_experts * (shared_ff * (mats - 1) + d) : 0;
    router = c->n_experts ? d * (uint64_t)c->n_experts : 0;
    ffn_w = experts * ffn_one + shared + router;
    ffn_b = experts * ffn_b_one + shared_b;
    active_ffn_w = active_experts * ffn_one + shared + router;

    norm_one = c->norm_bias ? 2 * d : d;
    block_norms = (c->sandwich_norm ? 4 : 2) * norm_one + (c->qk_norm ? 2 * (uint64_t)llm_config_head_dim(c) : 0);

    p.per_layer = attn_w + attn_b + ffn_w + ffn_b + block_norms;
    p.attention = L * (attn_w + attn_b);
    p.ffn = L * (ffn_w + ffn_b);
    p.norm = L * block_norms + norm_one; /* + the final norm */
    p.embedding = (uint64_t)c->vocab * d;
    p.positions = c->pos == LLM_POS_LEARNED ? (uint64_t)c->max_seq_len * d : 0;
    p.lm_head = c->tied_embeddings ? 0 : (uint64_t)c->vocab * d;
    p.total = p.embedding + p.positions + L * p.per_layer + norm_one + p.lm_head;
    p.bias = L * (attn_b + ffn_b) + (c->norm_bias ? d * (2 * L + 1) : 0);
    /* Kaplan et al. (2020) count N = 12 L d^2 for GPT: the blocks' matrices, nothing else.
       That reproduces both published non-embedding counts: GPT-2 small 84,934,656 and
       Llama 2 7B 6,476,005,376 (total minus embedding, LM head and the 65 RMSNorms). */
    p.non_embedding = L * (attn_w + ffn_w);
    p.active_non_embedding = L * (attn_w + active_ffn_w);
    p.active = p.total - L * (experts - active_experts) * (ffn_one + ffn_b_one);
    return p;
}

/* ---- FLOPs ---------------------------------------------------------------------------- */

LLMDEF llm_flops llm_count_flops(const llm_config *c, int64_t context, int causal) {
    llm_flops f;
    llm_params p = llm_count_params(c);
    double N, qdim, T = context > 0 ? (double)context : 0.0;
    memset(&f, 0, sizeof f);
    if (!p.total) return f;
    N = (double)p.active_non_embedding;
    qdim = (double)c->n_heads * llm_config_head_dim(c);
    f.matmul = 2.0 * N;
    f.lm_head = 2.0 * (double)c->vocab * c->d_model;
    /* per layer: scores q.k over T keys (2 T qdim) and the weighted sum of T values
       (2 T qdim); window_pattern leaves some layers global */
    {
        int l, n_win = 0;
        double full = T * (causal ? 0.5 : 1.0), win = full;
        for (l = 0; l < c->n_layers; l++) n_win += llm_config_layer_window(c, l) > 0;
        if (c->sliding_window > 0 && T > c->sliding_window) {
            /* each token sees at most W keys; causal: the first W tokens see 1..W */
            double W = c->sliding_window;
            win = causal ? W - W * (W - 1) / (2.0 * T) : W;
        }
        f.attention = 4.0 * qdim * ((c->n_layers - n_win) * full + n_win * win);
    }
    f.forward = f.matmul + f.lm_head + f.attention;
    f.train = 3.0 * f.forward;
    f.train_6n = 6.0 * N;
    f.train_palm = 6.0 * N + 12.0 * c->n_layers * qdim * T;
    return f;
}

/* Which N in 6 N D: the active non-embedding count. Llama 2 7B on 2T tokens:
   6 x 6,476,005,376 x 2e12 = 7.77e22 FLOP (with the full 6.74e9 it would be 8.09e22). */
LLMDEF double llm_train_flops(const llm_config *c, double tokens) {
    llm_params p = llm_count_params(c);
    if (!(tokens > 0)) return 0.0;
    return 6.0 * (double)p.active_non_embedding * tokens;
}

LLMDEF double llm_attention_ratio(const llm_config *c, int64_t context) {
    llm_flops f = llm_count_flops(c, context, 0);
    return f.train_6n > 0 ? (f.train_palm - f.train_6n) / f.train_6n : 0.0;
}

LLMDEF double llm_train_seconds(double flops, double n_gpus, double peak_flops, double mfu) {
    if (!(flops > 0) || !(n_gpus > 0) || !(peak_flops > 0) || !(mfu > 0)) return 0.0;
    return flops / (n_gpus * peak_flops * mfu);
}
LLMDEF double llm_gpu_hours(double flops, double peak_flops, double mfu) {
    return llm_train_seconds(flops, 1.0, peak_flops, mfu) / 3600.0;
}
LLMDEF double llm_mfu(double flops, double seconds, double n_gpus, double peak_flops) {
    if (!(flops > 0) || !(seconds > 0) || !(n_gpus > 0) || !(peak_flops > 0)) return 0.0;
    return flops / seconds / (n_gpus * peak_flops);
}
LLMDEF double llm_chinchilla_tokens(double n_params) { return n_params > 0 ? 20.0 * n_params : 0.0; }
LLMDEF void llm_chinchilla_optimal(double flops, double *n_params, double *tokens) {
    /* C = 6 N D and D = 20 N give C = 120 N^2 */
    double n = flops > 0 ? LLM_SQRT(flops / 120.0) : 0.0;
    if (n_params) *n_params = n;
    if (tokens) *tokens = 20.0 * n;
}
LLMDEF double llm_pipeline_bubble(int stages, int micro_batches) {
    if (stages < 1 || micro_batches < 1) return 0.0;
    return (double)(stages - 1) / ((double)micro_batches + stages - 1);
}

/* ---- memory --------------------------------------------------------------------------- */

LLMDEF double llm_weight_bytes(const llm_config *c, llm_dtype dtype) {
    llm_params p = llm_count_params(c);
    return (double)p.total * llm_dtype_bits(dtype) / 8.0;
}

LLMDEF llm_train_state llm_train_state_bytes(double n_params, int zero_stage, double n_gpus) {
    llm_train_state s;
    double nd = n_gpus >= 1 ? n_gpus : 1.0;
    memset(&s, 0, sizeof s);
    if (!(n_params > 0) || zero_stage < 0 || zero_stage > 3) return s;
    /* The ZeRO paper's 7.5B model on 64 GPUs: 120, 31.4, 16.6, 1.9 GB per GPU */
    s.weights = 2.0 * n_params / (zero_stage >= 3 ? nd : 1.0);
    s.grads = 2.0 * n_params / (zero_stage >= 2 ? nd : 1.0);
    s.optimizer = 12.0 * n_params / (zero_stage >= 1 ? nd : 1.0);
    s.total = s.weights + s.grads + s.optimizer;
    return s;
}

LLMDEF double llm_activation_bytes(const llm_config *c, int64_t seq_len, int64_t batch, int flags, int tp) {
    double s = (double)seq_len, b = (double)batch, d, a, t = tp > 0 ? tp : 1, per_layer;
    if (llm_config_check(c, NULL) != LLM_OK || seq_len <= 0 || batch <= 0) return 0.0;
    d = c->d_model;
    a = c->n_heads;
    if (flags & LLM_ACT_RECOMPUTE) {
        per_layer = 2.0 * s * b * d; /* only each layer's 16-bit input survives */
    } else {
        /* 10 s b d replicated (norm inputs, dropout masks), 24 s b d split by tensor
           parallelism, 5 a s^2 b / tp for the scores, softmax and dropout mask */
        per_layer = s * b * d * (10.0 + 24.0 / t);
        if (!(flags & LLM_ACT_FLASH)) per_layer += 5.0 * a * s * s * b / t;
    }
    return per_layer * c->n_layers;
}

/* ---- GPUs ----------------------------------------------------------------------------- */

/* Memory "as the driver reports it" is nvidia-smi's total in MiB;
   bf16 TFLOPS are dense, never the 2x sparsity headline; GeForce cards are quoted with
   fp32 accumulation, which is what bf16 GEMMs use. */
#define LLM__MIB 1048576.0
static const llm_gpu llm__gpus[] = {
    /* name        full name                     GB    driver (MiB)        bf16    fp32  GB/s    memory */
    {"a100-40gb", "NVIDIA A100-SXM4-40GB",       40,  40960 * LLM__MIB,  312.0,  19.5, 1555, "HBM2"},
    {"a100-80gb", "NVIDIA A100-SXM4-80GB",       80,  81920 * LLM__MIB,  312.0,  19.5, 2039, "HBM2e"},
    {"h100-sxm",  "NVIDIA H100-SXM5-80GB",       80,  81559 * LLM__MIB,  989.4,  66.9, 3350, "HBM3"},
    {"h100-pcie", "NVIDIA H100-PCIe-80GB",       80,  81559 * LLM__MIB,  756.0,  51.2, 2000, "HBM2e"},
    {"h200",      "NVIDIA H200-SXM-141GB",       141, 143771 * LLM__MIB, 989.4,  66.9, 4800, "HBM3e"},
    {"b200",      "NVIDIA B200 (HGX, 1000 W)",   180, 183359 * LLM__MIB, 2250.0, 80.0, 8000, "HBM3e"},
    {"l4",        "NVIDIA L4",                   24,  23034 * LLM__MIB,  121.0,  30.3, 300,  "GDDR6"},
    {"l40s",      "NVIDIA L40S",                 48,  46068 * LLM__MIB,  362.05, 91.6, 864,  "GDDR6"},
    {"rtx-3090",  "NVIDIA GeForce RTX 3090",     24,  24576 * LLM__MIB,  71.0,   35.6, 936,  "GDDR6X"},
    {"rtx-4090",  "NVIDIA GeForce RTX 4090",     24,  24564 * LLM__MIB,  165.2,  82.6, 1008, "GDDR6X"},
    {"rtx-5090",  "NVIDIA GeForce RTX 5090",     32,  32607 * LLM__MIB,  209.5,  104.8, 1792, "GDDR7"},
    {"mi300x",    "AMD Instinct MI300X",         192, 196608 * LLM__MIB, 1307.4, 163.4, 5300, "HBM3"},
    {"t4",        "NVIDIA T4 (fp16, no bf16)",   16,  15360 * LLM__MIB,  65.0,   8.1,  320,  "GDDR6"},
    {"v100-32gb", "NVIDIA V100-SXM2-32GB (fp16)", 32, 32768 * LLM__MIB,  125.0,  15.7, 900,  "HBM2"},
};
#define LLM__N_GPUS ((int)(sizeof llm__gpus / sizeof llm__gpus[0]))

LLMDEF const llm_gpu *llm_gpu_preset(const char *name) {
    return llm_gpu_preset_at(llm__table_find(name, llm__gpus, LLM__N_GPUS, sizeof llm__gpus[0]));
}
LLMDEF const llm_gpu *llm_gpu_preset_at(int i) { return i >= 0 && i < LLM__N_GPUS ? &llm__gpus[i] : NULL; }

/* ---- the planner ---------------------------------------------------------------------- */

LLMDEF llm_plan llm_plan_default(void) {
    llm_plan p;
    memset(&p, 0, sizeof p);
    p.n_gpus = 1;
    p.batch = 1;
    p.weights = LLM_F16;
    p.kv = LLM_F16;
    /* The theory's allowance for the CUDA context, cuBLAS workspace, the forward pass's
       scratch and allocator fragmentation: with it, Llama 2 13B at batch 8 x 4096 tokens
       is 26.0 GB weights + 26.8 GB KV + 2 GB = 54.9 GB. */
    p.overhead_bytes = 2e9;
    p.tight = 0.9;
    return p;
}

LLMDEF const char *llm_verdict_str(llm_verdict v) {
    switch (v) {
    case LLM_FITS: return "fits";
    case LLM_TIGHT: return "tight";
    case LLM_DOES_NOT_FIT: return "does not fit";
    }
    return "unknown";
}

LLMDEF const char *llm_advice_str(llm_advice_kind k) {
    switch (k) {
    case LLM_ADVICE_WEIGHTS_DTYPE: return "quantize the weights";
    case LLM_ADVICE_KV_DTYPE: return "8-bit KV cache";
    case LLM_ADVICE_GQA: return "a GQA model with fewer KV heads";
    case LLM_ADVICE_SEQ: return "a shorter context";
    case LLM_ADVICE_BATCH: return "a smaller batch";
    case LLM_ADVICE_TENSOR_PARALLEL: return "tensor parallelism";
    case LLM_ADVICE_ZERO: return "a higher ZeRO stage";
    case LLM_ADVICE_FLASH: return "flash attention";
    case LLM_ADVICE_RECOMPUTE: return "full activation recomputation";
    case LLM_ADVICE_DATA_PARALLEL: return "ZeRO-3 over more GPUs";
    }
    return "unknown";
}

#define LLM__PLAN_MAX 2147483647LL

/* KV cache bytes: K and V, 2 L n_kv_heads head_dim seq batch elements, plus one fp32
   scale per (layer, head, position) row of K and of V for LLM_INT8. This is
   llm_kv_cache_bytes (>>attention), the function that sizes the real cache, so the plan
   and llm_kv_cache_init always agree; it returns 0 past 2^64 bytes, where the same
   formula in double takes over (2^31 sequences of 2^31 tokens of a 405B model). */
static double llm__kv_bytes(const llm_config *c, int64_t seq, int64_t batch, llm_dtype t) {
    double rows = 2.0 * c->n_layers * c->n_kv_heads * (double)seq * (double)batch;
    uint64_t exact = llm_kv_cache_bytes(c, seq, batch, t);
    if (exact) return (double)exact;
    return rows * llm_config_head_dim(c) * llm_dtype_bytes(t) + (t == LLM_INT8 ? rows * 4.0 : 0.0);
}

/* Fill in the fields where zero means a default. */
static void llm__plan_resolve(llm_plan *p) {
    if (p->n_gpus == 0) p->n_gpus = 1;
    if (p->batch == 0) p->batch = 1;
    if (p->seq_len == 0 && p->model && p->model->max_seq_len > 0) p->seq_len = p->model->max_seq_len;
    if (p->tight == 0) p->tight = 0.9;
}

/* The memory lines and times of one plan, without advice. */
static llm_status llm__plan_lines(const llm_plan *plan, llm_plan_result *r, const char **reason) {
    const llm_config *c;
    double n_gpus, overhead;
    int64_t seq;
    llm_plan resolved;
    const llm_plan *p = &resolved;
    if (reason) *reason = "ok";
    memset(r, 0, sizeof *r);
    if (!plan) LLM__REJECT("plan is NULL");
    resolved = *plan;
    llm__plan_resolve(&resolved);
    if (llm_config_check(p->model, reason) != LLM_OK) return LLM_EINVAL;
    if (!p->gpu) LLM__REJECT("no GPU");
    if (!(p->gpu->mem_bytes > 0) || !(p->gpu->bf16_tflops >= 0) || !(p->gpu->bandwidth_gbs >= 0))
        LLM__REJECT("GPU memory must be positive, TFLOPS and bandwidth positive or 0 (unknown)");
    if (!(p->weight_bytes >= 0) || p->weight_bytes > 1e18) LLM__REJECT("weight_bytes must be in 0..1e18");
    if (p->n_gpus < 1) LLM__REJECT("n_gpus must be at least 1");
    if (p->batch < 1 || p->batch > LLM__PLAN_MAX) LLM__REJECT("batch must be in 1..2^31-1");
    if (p->seq_len < 1 || p->seq_len > LLM__PLAN_MAX) LLM__REJECT("seq_len must be in 1..2^31-1");
    if (p->zero_stage < 0 || p->zero_stage > 3) LLM__REJECT("ZeRO stage must be 0, 1, 2 or 3");
    if (!(llm_dtype_bits(p->weights) > 0)) LLM__REJECT("unknown weight dtype");
    if (p->kv != LLM_F32 && p->kv != LLM_F16 && p->kv != LLM_BF16 && p->kv != LLM_INT8)
        LLM__REJECT("KV cache dtype must be f32, f16, bf16 or int8");
    if (!(p->overhead_bytes >= 0) || p->overhead_bytes > 1e18) LLM__REJECT("overhead must be in 0..1e18 bytes");
    if (!(p->tight > 0) || p->tight > 1) LLM__REJECT("tight threshold must be in 0..1");
    c = p->model;
    seq = p->seq_len;
    n_gpus = (double)p->n_gpus;
    overhead = p->overhead_bytes;
    r->params = llm_count_params(c);
    r->seq_len = seq;
    r->capacity_bytes = p->gpu->mem_bytes;

    if (!p->train) {
        /* Inference. Tensor parallelism splits every matrix and the KV heads over the
           GPUs, so weights and KV divide by n_gpus (the replicated norms are noise).
           KV: 2 (K and V) L n_kv_heads head_dim seq batch bytes (llm_kv_cache_bytes). */
        double w = (p->weight_bytes > 0 ? p->weight_bytes : llm_weight_bytes(c, p->weights)) / n_gpus;
        /* with more GPUs than KV heads, each KV head is replicated (as vLLM does) */
        double kv = llm__kv_bytes(c, seq, p->batch, p->kv) / (n_gpus < c->n_kv_heads ? n_gpus : c->n_kv_heads);
        double active = r->params.total ? (double)r->params.active / (double)r->params.total : 1.0;
        llm_flops f = llm_count_flops(c, seq, 1);
        r->line[0].name = "weights";
        r->line[0].bytes = w;
        r->line[1].name = "KV cache";
        r->line[1].bytes = kv;
        r->line[2].name = "overhead";
        r->line[2].bytes = overhead;
        r->n_lines = 3;
        /* A decode step reads every weight it uses and every sequence's KV cache once:
           at best memory-bandwidth bound. With MoE only the active experts are read (at
           batch 1; larger batches touch more). */
        r->decode_seconds = p->gpu->bandwidth_gbs > 0 ? (w * active + kv) / (p->gpu->bandwidth_gbs * 1e9) : 0.0;
        /* The prompt: batch x seq tokens, causal attention, at best at peak FLOP/s. */
        r->prefill_flops = f.forward * (double)seq * (double)p->batch;
        r->prefill_seconds = p->gpu->bf16_tflops > 0 ? r->prefill_flops / (n_gpus * p->gpu->bf16_tflops * 1e12) : 0.0;
    } else {
        /* Training: mixed-precision Adam state sharded by ZeRO over n_gpus data-parallel
           GPUs, plus the activations of one micro-batch of `batch` sequences. */
        llm_train_state s = llm_train_state_bytes((double)r->params.total, p->zero_stage, n_gpus);
        int flags = (p->flash ? LLM_ACT_FLASH : 0) | (p->recompute ? LLM_ACT_RECOMPUTE : 0);
        llm_flops f = llm_count_flops(c, seq, 1);
        r->line[0].name = "weights (16-bit)";
        r->line[0].bytes = s.weights;
        r->line[1].name = "gradients (16-bit)";
        r->line[1].bytes = s.grads;
        r->line[2].name = "Adam: fp32 master, m, v";
        r->line[2].bytes = s.optimizer;
        r->line[3].name = "activations";
        r->line[3].bytes = llm_activation_bytes(c, seq, p->batch, flags, 1);
        r->line[4].name = "overhead";
        r->line[4].bytes = overhead;
        r->n_lines = 5;
        /* one optimizer step of one GPU's micro-batch; recomputation repeats the forward */
        r->step_flops = (f.train + (p->recompute ? f.forward : 0.0)) * (double)seq * (double)p->batch;
        r->prefill_flops = f.forward * (double)seq * (double)p->batch;
        r->prefill_seconds = p->gpu->bf16_tflops > 0 ? r->prefill_flops / (p->gpu->bf16_tflops * 1e12) : 0.0;
        r->decode_seconds = 0.0;
    }
    {
        int i;
        for (i = 0; i < r->n_lines; i++) r->total_bytes += r->line[i].bytes;
    }
    r->headroom_bytes = r->capacity_bytes - r->total_bytes;
    r->used = r->total_bytes / r->capacity_bytes;
    r->verdict = r->used > 1.0 ? LLM_DOES_NOT_FIT : r->used > p->tight ? LLM_TIGHT : LLM_FITS;
    return LLM_OK;
}

/* Evaluate a changed plan and, if it helps, record it as advice. */
static void llm__advise(llm_plan_result *r, const llm_plan *q, llm_advice_kind kind, int64_t value) {
    llm_plan_result t;
    if (r->n_advice >= LLM_PLAN_MAX_ADVICE) return;
    if (llm__plan_lines(q, &t, NULL) != LLM_OK || !(t.total_bytes < r->total_bytes)) return;
    r->advice[r->n_advice].kind = kind;
    r->advice[r->n_advice].value = value;
    r->advice[r->n_advice].total_bytes = t.total_bytes;
    r->advice[r->n_advice].verdict = t.verdict;
    r->n_advice++;
}

/* The largest value in [1, hi) for which setting `*field` makes the plan fit (the memory
   only grows with batch and sequence length, so bisection works); 0 if none. */
static int64_t llm__largest_fitting(llm_plan *q, int64_t *field, int64_t hi, int64_t step) {
    int64_t lo = 0, save = *field;
    llm_plan_result t;
    hi = hi / step;
    while (hi - lo > 1) { /* invariant: lo fits (or is 0), hi does not */
        int64_t mid = lo + (hi - lo) / 2;
        *field = mid * step;
        if (llm__plan_lines(q, &t, NULL) == LLM_OK && t.verdict == LLM_FITS) lo = mid;
        else hi = mid;
    }
    *field = save;
    return lo * step;
}

LLMDEF llm_status llm_plan_evaluate(const llm_plan *p, llm_plan_result *r, const char **reason) {
    llm_plan q;
    llm_config gqa;
    llm_status st;
    llm_plan_result dummy;
    llm_plan resolved;
    int64_t v;
    if (!r) r = &dummy;
    st = llm__plan_lines(p, r, reason);
    if (st != LLM_OK || r->verdict == LLM_FITS) return st;
    resolved = *p; /* the advice below reads batch, seq_len and n_gpus with defaults filled */
    llm__plan_resolve(&resolved);
    p = &resolved;

    /* It is tight or does not fit: try each concrete change on its own. */
    if (!p->train) {
        /* bits per parameter as stored (a file's exact bytes, else the dtype's) */
        double bits = p->weight_bytes > 0 && r->params.total ? 8.0 * p->weight_bytes / (double)r->params.total
                                                              : llm_dtype_bits(p->weights);
        q = *p;
        q.weight_bytes = 0; /* the advice re-counts the parameters in the new dtype */
        if (bits > 8.5) {
            q.weights = LLM_Q8_32; /* 8-bit blocks with their scales, 8.5 bits */
            llm__advise(r, &q, LLM_ADVICE_WEIGHTS_DTYPE, LLM_Q8_32);
        }
        if (bits > 4.5) {
            q.weights = LLM_Q4_32;
            llm__advise(r, &q, LLM_ADVICE_WEIGHTS_DTYPE, LLM_Q4_32);
        }
        q = *p;
        if (p->kv != LLM_INT8) {
            q.kv = LLM_INT8;
            llm__advise(r, &q, LLM_ADVICE_KV_DTYPE, LLM_INT8);
        }
        /* the same model with 8 KV heads, as Llama 2 70B shares each among 8 query heads */
        q = *p;
        gqa = *p->model;
        if (gqa.n_kv_heads > 8 && gqa.n_heads % 8 == 0) {
            gqa.n_kv_heads = 8;
            q.model = &gqa;
            llm__advise(r, &q, LLM_ADVICE_GQA, 8);
        }
        q = *p;
        v = llm__largest_fitting(&q, &q.seq_len, r->seq_len, r->seq_len >= 1024 ? 256 : 1);
        if (v > 0) {
            q.seq_len = v;
            llm__advise(r, &q, LLM_ADVICE_SEQ, v);
        }
        q = *p;
        v = llm__largest_fitting(&q, &q.batch, p->batch, 1);
        if (v > 0) {
            q.batch = v;
            llm__advise(r, &q, LLM_ADVICE_BATCH, v);
        }
        /* the fewest GPUs, a power of two, that make it fit */
        q = *p;
        for (v = 2; v <= 64 && (int64_t)p->n_gpus * v <= LLM__PLAN_MAX; v *= 2) {
            q.n_gpus = (int)((int64_t)p->n_gpus * v);
            if (llm__plan_lines(&q, &dummy, NULL) == LLM_OK && dummy.verdict == LLM_FITS) {
                llm__advise(r, &q, LLM_ADVICE_TENSOR_PARALLEL, q.n_gpus);
                break;
            }
        }
    } else {
        /* Training: a ladder, each step on top of the previous ones, in the order that
           costs least (sharding is free with enough GPUs, flash attention is faster,
           recomputation costs a third more compute, a smaller micro-batch needs more
           accumulation steps, more GPUs cost money), until it fits. */
        llm_plan_result t;
        q = *p;
        if (q.n_gpus > 1 && q.zero_stage < 3) {
            q.zero_stage = 3;
            llm__advise(r, &q, LLM_ADVICE_ZERO, 3);
        }
        if (llm__plan_lines(&q, &t, NULL) == LLM_OK && t.verdict != LLM_FITS && !q.flash && !q.recompute) {
            q.flash = 1;
            llm__advise(r, &q, LLM_ADVICE_FLASH, 1);
        }
        if (llm__plan_lines(&q, &t, NULL) == LLM_OK && t.verdict != LLM_FITS && !q.recompute) {
            q.recompute = 1;
            llm__advise(r, &q, LLM_ADVICE_RECOMPUTE, 1);
        }
        if (llm__plan_lines(&q, &t, NULL) == LLM_OK && t.verdict != LLM_FITS && q.batch > 1) {
            v = llm__largest_fitting(&q, &q.batch, q.batch, 1);
            q.batch = v > 0 ? v : 1;
            llm__advise(r, &q, LLM_ADVICE_BATCH, q.batch);
        }
        /* ZeRO-3 over more GPUs: the fewest (powers of two up to 65536) that fit */
        if (llm__plan_lines(&q, &t, NULL) == LLM_OK && t.verdict != LLM_FITS) {
            q.zero_stage = 3;
            for (v = 2; v <= 65536; v *= 2) {
                if (v <= q.n_gpus) continue;
                q.n_gpus = (int)v;
                if (llm__plan_lines(&q, &t, NULL) == LLM_OK && t.verdict == LLM_FITS) {
                    llm__advise(r, &q, LLM_ADVICE_DATA_PARALLEL, v);
                    break;
                }
            }
        }
        for (v = 0; v < r->n_advice; v++) r->advice[v].cumulative = 1;
    }
    return LLM_OK;
}
#undef LLM__REJECT

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
   - L1 (48 KiB) holds the MR x KC sliver of A (8 x 256 floats = 8 KiB) while the
     NC / NR = 3 slivers of a B panel pass it, each KC x NR (256 x 48 floats = 48 KiB)
     streamed from L2 at 3 vectors per 24 FMAs, well within L2 bandwidth.
   - L2 (1 MiB) holds the packed KC x NC panel of B (256 x 144 floats = 144 KiB), which
     every row of A reuses, and the MC x KC block of A passing through it.
   - DRAM: W is read and packed once per call (per thread when threads split the rows),
     whatever the number of tokens. That read is the one thing that can stall: while the
     kernels chew on one block of A, they prefetch the next one, and during the last
     block the next panel of B, a cache line every few k-steps.

   WHY PACK B, NOT A. The micro-kernel wants, for each k, its NR values of B side by side:
   in W they are a whole row apart (16 KiB for d = 4096). Packing copies a panel once into
   contiguous slivers [NR-strip][k][NR], padding edges with zeros so the micro-kernel never
   branches. A linear layer's W is stored [out][in], i.e. B transposed, so its pack
   transposes 16 x 16 blocks in registers: a fraction of a cycle per weight, against
   2 * M flops. A's MR values per k are broadcast one at a time, which a load does as well
   from MR rows a stride apart as from one packed line, so A is read in place: a pack of A
   would be repeated for every panel of B (N / NC times) and cost more than it saves. Only
   a last strip of fewer than MR rows is copied aside, padded with zero rows.

   LOOPS (outer to inner): columns in NC panels, k in KC blocks (pack the B panel), tokens
   in MC blocks (prefetch the next), MR-row slivers of A, NR-column slivers of B: the MR x NR
   tiles. Every C element sums its KC blocks in order, each with the same micro-kernel,
   whatever its tile or thread, so threaded results equal unthreaded ones bit for bit.
   Threads split the columns (or, when there are too few, the rows), each packing its own
   panels on its own stack: (NC + MR) * KC floats = 152 KiB with AVX-512.

   Decode (n_tokens = 1) is a different problem: each weight is used once, so the limit
   is memory bandwidth. The GEMV streams W rows through dot products (4 rows at a time,
   2 accumulators each); 2..LLM__SMALL_N tokens share one pass over the rows likewise. */

/* The register tile of each ISA, MR rows x NR = NV vectors of C. The micro-kernel gets
   a[i] into every lane by broadcasting it from memory (x86 vbroadcastss, NEON ld1r), so A
   can be read where it lies, a row stride apart. LLM__MK_ROWS(X) and LLM__MK_COLS(X, i)
   list the rows and the row's vectors, so the micro-kernel below is written once with
   every accumulator a named register variable (arrays of them end up on the stack). */
#if defined(LLM__AVX512)
#define LLM__MR 8
#define LLM__NV 3 /* 24 zmm accumulators + 3 of B + 1 broadcast, of 32 */
#elif defined(LLM__AVX2)
#define LLM__MR 6
#define LLM__NV 2 /* 12 ymm accumulators + 2 + 1, of 16 */
#elif defined(LLM__NEON)
#define LLM__MR 8
#define LLM__NV 3 /* 24 q-register accumulators + 3 of B + 1 broadcast, of 32 */
#else
#define LLM__MR 4
#define LLM__NV 8 /* the scalar kernel: one float per "vector" */
#endif
#define LLM__NR (LLM__NV * LLM__RVN)
#if LLM__MR == 8
#define LLM__MK_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#elif LLM__MR == 6
#define LLM__MK_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#endif
#if LLM__NV == 3
#define LLM__MK_COLS(X, i) X(i, 0) X(i, 1) X(i, 2)
#elif LLM__NV == 2
#define LLM__MK_COLS(X, i) X(i, 0) X(i, 1)
#endif
#ifndef LLM__KC /* (overridable only to tune) */
#define LLM__KC 256
#endif
#ifndef LLM__MC /* rows of A per block: read in place, so no buffer */
#define LLM__MC (LLM__MR * ((128 + LLM__MR - 1) / LLM__MR))
#endif
#ifndef LLM__NC /* columns of a packed B panel: 144 x KC floats = 144 KiB */
#define LLM__NC (LLM__NR * (144 / LLM__NR))
#endif
/* Kernels whose row or tile counts are constants at each call site, inlined so they unroll. */
#if defined(__GNUC__) || defined(__clang__)
#define LLM__WINLINE static inline __attribute__((always_inline))
#else
#define LLM__WINLINE static inline
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

/* ---- the micro-kernel: C[MR][NR] = acc ? C + A B : bias + A B, A B over kc steps.
   a: MR rows of A, a[i * ra + k * ka] the value of row i at step k (A in place: ra = lda,
   ka = 1; A stored transposed: ra = 1, ka = lda; a packed strip: ra = 1, ka = MR);
   b: packed [kc][NR]; bias: NR values or NULL (= zeros). Per k: NV loads of B, MR
   broadcasts of A, MR x NV independent FMAs (the register tile above). */
#ifdef LLM__MK_ROWS
#define LLM__MK_ZERO(i, j) llm__rv c##i##j = llm__rv_set1(0.0f);
#define LLM__MK_ZEROS(i) LLM__MK_COLS(LLM__MK_ZERO, i)
#define LLM__MK_FMA(i, j) c##i##j = llm__rv_fma(t, b##j, c##i##j);
#define LLM__MK_ROW(i)                \
    t = llm__rv_set1(ak[(i) * ra]);   \
    LLM__MK_COLS(LLM__MK_FMA, i)
#define LLM__MK_STORE(i, j) llm__rv_store(r + (j) * LLM__RVN, llm__rv_add(acc ? llm__rv_load(r + (j) * LLM__RVN) : s##j, c##i##j));
#define LLM__MK_STORES(i)                \
    {                                    \
        float *r = c + (i) * ldc;        \
        LLM__MK_COLS(LLM__MK_STORE, i)   \
    }
#define LLM__MK_DECL_B(i, j) llm__rv b##j, s##j = llm__rv_set1(0.0f);
#define LLM__MK_LOAD_B(i, j) b##j = llm__rv_load(b + (j) * LLM__RVN);
#define LLM__MK_BIAS(i, j) s##j = llm__rv_load(bias + (j) * LLM__RVN);
static void llm__kernel(int kc, const float *a, ptrdiff_t ra, ptrdiff_t ka, const float *b, float *c,
                        ptrdiff_t ldc, const float *bias, int acc, llm__pf pf) {
    llm__rv t;
    int k;
    LLM__MK_COLS(LLM__MK_DECL_B, 0)
    LLM__MK_ROWS(LLM__MK_ZEROS)
    for (k = 0; k < kc; k++, b += LLM__NR) {
        const float *ak = a + k * ka; /* (never past A's end, which a += ka would reach) */
        LLM__PF_STEP(pf);
        LLM__MK_COLS(LLM__MK_LOAD_B, 0)
        LLM__MK_ROWS(LLM__MK_ROW)
    }
    if (!acc && bias) {
        LLM__MK_COLS(LLM__MK_BIAS, 0)
    }
    LLM__MK_ROWS(LLM__MK_STORES)
}
#else
/* The scalar micro-kernel: the readable statement of what the vector one does. */
static void llm__kernel(int kc, const float *a, ptrdiff_t ra, ptrdiff_t ka, const float *b, float *c,
                        ptrdiff_t ldc, const float *bias, int acc, llm__pf pf) {
    float t[LLM__MR][LLM__NR];
    int i, j, k;
    memset(t, 0, sizeof t);
    for (k = 0; k < kc; k++, b += LLM__NR) { /* one rank-1 update per k */
        const float *ak = a + k * ka;
        LLM__PF_STEP(pf);
        for (i = 0; i < LLM__MR; i++)
            for (j = 0; j < LLM__NR; j++) t[i][j] += ak[i * ra] * b[j];
    }
    for (i = 0; i < LLM__MR; i++)
        for (j = 0; j < LLM__NR; j++)
            c[i * ldc + j] = (acc ? c[i * ldc + j] : bias ? bias[j] : 0.0f) + t[i][j];
}
#endif

/* ---- packing -------------------------------------------------------------------------- */

/* Rows [0, nrows) x cols [0, kc) of a row-major matrix (stride ld) -> dst[strip][k][R]: strips
   of R rows side by side, rows past nrows zero. A's pack (R = MR); W's too (R = NR) where
   the ISA has no in-register transpose below. */
LLM__WINLINE void llm__pack_rows(float *dst, const float *src, ptrdiff_t ld, int nrows, int kc, const int R) {
    int i0, i, k;
    for (i0 = 0; i0 < nrows; i0 += R, dst += (ptrdiff_t)kc * R)
        for (i = 0; i < R; i++) {
            if (i0 + i < nrows) {
                const float *row = src + (ptrdiff_t)(i0 + i) * ld;
                for (k = 0; k < kc; k++) dst[k * R + i] = row[k];
            } else {
                for (k = 0; k < kc; k++) dst[k * R + i] = 0.0f;
            }
        }
}
static void llm__pack_a(float *ap, const float *a, ptrdiff_t lda, int mc, int kc) { llm__pack_rows(ap, a, lda, mc, kc, LLM__MR); }

/* Transposing pack of a linear layer's W: rows [0, nc) x k [0, kc) of w (row stride ldw)
   -> bp[strip][k][NR] (bp[k][j] = w[j][k]), rows past nc zero. This is the one pass over
   every weight per MC tokens, so on x86 it moves whole vectors: blocks of LLM__RVN rows x
   LLM__RVN k (16 x 16 or 8 x 8) are loaded as rows and transposed in registers by
   llm__pack_wblk(d, w, ldw, r0, nc, k0, kk): rows r0.. (those < nc) x k0..k0+kk-1 of w
   -> d[k][row], d rows NR apart. */
#if defined(LLM__AVX512)
static void llm__pack_wblk(float *d, const float *w, ptrdiff_t ldw, int r0, int nc, int k0, int kk) {
    __mmask16 m = (__mmask16)((1u << kk) - 1u);
    __m512 r[16], t[16];
    int i, c;
    for (i = 0; i < 16; i++) /* row i of the block: 16 consecutive k */
        r[i] = r0 + i < nc ? _mm512_maskz_loadu_ps(m, w + (ptrdiff_t)(r0 + i) * ldw + k0) : _mm512_setzero_ps();
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
        float *dc = d + (ptrdiff_t)c * LLM__NR;
        if (c < kk) _mm512_store_ps(dc, _mm512_shuffle_f32x4(v0, w0, 0x88));
        if (c + 4 < kk) _mm512_store_ps(dc + 4 * LLM__NR, _mm512_shuffle_f32x4(v1, w1, 0x88));
        if (c + 8 < kk) _mm512_store_ps(dc + 8 * LLM__NR, _mm512_shuffle_f32x4(v0, w0, 0xdd));
        if (c + 12 < kk) _mm512_store_ps(dc + 12 * LLM__NR, _mm512_shuffle_f32x4(v1, w1, 0xdd));
    }
}
#elif defined(LLM__AVX2)
static void llm__pack_wblk(float *d, const float *w, ptrdiff_t ldw, int r0, int nc, int k0, int kk) {
    __m256 r[8], t[8];
    int i, c;
    if (kk < 8 || nc - r0 < 8) { /* edge block: element by element */
        for (i = 0; i < kk; i++)
            for (c = 0; c < 8; c++) d[(ptrdiff_t)i * LLM__NR + c] = r0 + c < nc ? w[(ptrdiff_t)(r0 + c) * ldw + k0 + i] : 0.0f;
        return;
    }
    for (i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(w + (ptrdiff_t)(r0 + i) * ldw + k0);
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
        _mm256_store_ps(d + (ptrdiff_t)c * LLM__NR, _mm256_permute2f128_ps(r[c], r[4 + c], 0x20));
        _mm256_store_ps(d + (ptrdiff_t)(c + 4) * LLM__NR, _mm256_permute2f128_ps(r[c], r[4 + c], 0x31));
    }
}
#endif
#if defined(LLM__AVX512) || defined(LLM__AVX2)
static void llm__pack_w(float *bp, const float *w, ptrdiff_t ldw, int kc, int nc) {
    int j0, g, k0;
    for (j0 = 0; j0 < nc; j0 += LLM__NR, bp += (ptrdiff_t)kc * LLM__NR)
        for (g = 0; g < LLM__NR; g += LLM__RVN)
            for (k0 = 0; k0 < kc; k0 += LLM__RVN)
                llm__pack_wblk(bp + (ptrdiff_t)k0 * LLM__NR + g, w, ldw, j0 + g, nc, k0, kc - k0 < LLM__RVN ? kc - k0 : LLM__RVN);
}
#else
static void llm__pack_w(float *bp, const float *w, ptrdiff_t ldw, int kc, int nc) { llm__pack_rows(bp, w, ldw, nc, kc, LLM__NR); }
#endif

/* Pack of a row-major [K][N] operand whose strips run along its rows: rows [0, kc) x
   columns [0, nc) -> dst[strip][k][R], columns past nc zero. Plain copies, R floats at a
   time. B of llm_matmul (R = NR), and A stored transposed (R = MR, the backward's dY^T).
   Inlined so that R is a constant and each row's copy is a few vector moves, not a call
   to memcpy per 8 or 48 floats (the backward's GEMMs pack every operand this way). */
LLM__WINLINE void llm__pack_cols(float *dst, const float *src, ptrdiff_t ld, int kc, int nc, const int R) {
    int j0, j, k;
    for (j0 = 0; j0 < nc; j0 += R, dst += (ptrdiff_t)kc * R) {
        int nr = nc - j0 < R ? nc - j0 : R;
        for (k = 0; k < kc; k++) {
            const float *s = src + (ptrdiff_t)k * ld + j0;
            float *d = dst + (ptrdiff_t)k * R;
            if (nr == R) {
                memcpy(d, s, (size_t)R * sizeof(float));
            } else {
                for (j = 0; j < nr; j++) d[j] = s[j];
                for (; j < R; j++) d[j] = 0.0f;
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
    int a_trans, accum; /* A stored [k][m] (the backward's dY^T); C += A B */
} llm__gemm;

/* Kernel call q of nq's share of what the next pack reads (`runs` runs of len floats, ld
   apart, from p; NULL: nothing): runs [r0, r1), a cache line every few of its kc k-steps. */
static llm__pf llm__pf_share(const float *p, ptrdiff_t ld, int runs, int len, int q, int nq, int kc) {
    llm__pf pf;
    int r0 = (int)((int64_t)runs * q / nq), r1 = (int)((int64_t)runs * (q + 1) / nq);
    int lines = (r1 - r0) * ((len + 15) / 16);
    pf.p = p && r1 > r0 ? p + (ptrdiff_t)r0 * ld : NULL;
    pf.ld = ld;
    pf.len = len;
    pf.rows = r1 - r0;
    pf.every = lines > 0 && kc / lines > 1 ? kc / lines : 1;
    pf.off = 0;
    pf.tick = 1;
    return pf;
}

/* C rows [m0, m1) x columns [n0, n1), using the caller's packing buffers: bp for a B panel,
   ap for one strip of A's last rows. */
static void llm__gemm_range(const llm__gemm *g, float *ap, float *bp, int m0, int m1, int n0, int n1) {
    /* A's row i, step k at a[i * ra + k * ka], read in place */
    const ptrdiff_t ra = g->a_trans ? 1 : g->lda, ka = g->a_trans ? g->lda : 1;
    int jc, pc, ic, jr, ir, i, j, nc, kc, mc, nr, mr, acc;
    /* (blocks advance by their own size, so no index ever passes INT_MAX) */
    for (jc = n0; jc < n1; jc += nc) {
        nc = n1 - jc < LLM__NC ? n1 - jc : LLM__NC;
        for (pc = 0; pc < g->k; pc += kc) {
            kc = g->k - pc < LLM__KC ? g->k - pc : LLM__KC;
            acc = pc > 0 || g->accum;
            if (g->b_trans) /* the B panel, packed once for all the rows */
                llm__pack_w(bp, g->b + (ptrdiff_t)jc * g->ldb + pc, g->ldb, kc, nc);
            else
                llm__pack_cols(bp, g->b + (ptrdiff_t)pc * g->ldb + jc, g->ldb, kc, nc, LLM__NR);
            for (ic = m0; ic < m1; ic += mc) {
                const float *next; /* what comes next: runs runs of len floats, ld apart */
                ptrdiff_t ld;
                int runs, len, q = 0, nq;
                mc = m1 - ic < LLM__MC ? m1 - ic : LLM__MC;
                nq = ((mc + LLM__MR - 1) / LLM__MR) * ((nc + LLM__NR - 1) / LLM__NR); /* kernel calls */
                if (ic + mc < m1) { /* the next rows of A */
                    int nmc = m1 - ic - mc < LLM__MC ? m1 - ic - mc : LLM__MC;
                    next = g->a + (ptrdiff_t)(ic + mc) * ra + (ptrdiff_t)pc * ka;
                    ld = g->lda, runs = g->a_trans ? kc : nmc, len = g->a_trans ? nmc : kc;
                } else { /* after the last, the next B panel: the next k, else the next columns */
                    int npc = pc + kc < g->k ? pc + kc : 0, njc = pc + kc < g->k ? jc : jc + nc;
                    int nkc = g->k - npc < LLM__KC ? g->k - npc : LLM__KC, nnc = n1 - njc < LLM__NC ? n1 - njc : LLM__NC;
                    next = njc >= n1 ? NULL
                           : g->b_trans ? g->b + (ptrdiff_t)njc * g->ldb + npc
                                        : g->b + (ptrdiff_t)npc * g->ldb + njc;
                    ld = g->ldb, runs = g->b_trans ? nnc : nkc, len = g->b_trans ? nkc : nnc;
                }
                /* each sliver of A stays in L1 while the panel's slivers of B pass it */
                for (ir = 0; ir < mc; ir += mr) {
                    const float *as = g->a + (ptrdiff_t)(ic + ir) * ra + (ptrdiff_t)pc * ka;
                    ptrdiff_t ras = ra, kas = ka;
                    mr = mc - ir < LLM__MR ? mc - ir : LLM__MR;
                    if (mr < LLM__MR) { /* the last rows, packed with zero rows below them: no read passes A's end */
                        if (g->a_trans)
                            llm__pack_cols(ap, as, g->lda, kc, mr, LLM__MR);
                        else
                            llm__pack_a(ap, as, g->lda, mr, kc);
                        as = ap, ras = 1, kas = LLM__MR;
                    }
                    for (jr = 0; jr < nc; jr += nr, q++) {
                        const float *bs = bp + (ptrdiff_t)jr * kc, *bias = g->bias ? g->bias + jc + jr : NULL;
                        float *c = g->c + (ptrdiff_t)(ic + ir) * g->ldc + jc + jr;
                        llm__pf pf = llm__pf_share(next, ld, runs, len, q, nq, kc);
                        nr = nc - jr < LLM__NR ? nc - jr : LLM__NR;
                        if (mr == LLM__MR && nr == LLM__NR) {
                            llm__kernel(kc, as, ras, kas, bs, c, g->ldc, bias, acc, pf);
                        } else { /* edge tile: compute a full tile aside, keep the valid part */
                            float t[LLM__MR * LLM__NR];
                            llm__kernel(kc, as, ras, kas, bs, t, LLM__NR, NULL, 0, pf);
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
    float abuf[LLM__MR * LLM__KC + 16], bbuf[LLM__KC * LLM__NC + 16];
    int64_t nstrips = ((int64_t)g->n + LLM__NR - 1) / LLM__NR, mstrips = ((int64_t)g->m + LLM__MR - 1) / LLM__MR;
    int64_t e0, e1;
    int m0 = 0, m1 = g->m, n0 = 0, n1 = g->n;
    if (nstrips >= nth || nstrips >= mstrips) { /* split columns in whole NR strips */
        e0 = nstrips * ith / nth * LLM__NR;
        e1 = nstrips * (ith + 1) / nth * LLM__NR;
        n0 = e0 < g->n ? (int)e0 : g->n;
        n1 = e1 < g->n ? (int)e1 : g->n;
    } else { /* few columns, many rows: split rows in whole MR strips */
        e0 = mstrips * ith / nth * LLM__MR;
        e1 = mstrips * (ith + 1) / nth * LLM__MR;
        m0 = e0 < g->m ? (int)e0 : g->m;
        m1 = e1 < g->m ? (int)e1 : g->m;
    }
    if (m0 < m1 && n0 < n1) llm__gemm_range(g, (float *)llm__align64(abuf), (float *)llm__align64(bbuf), m0, m1, n0, n1);
}

/* ---- decode: streaming dot products ------------------------------------------------------

   y[t][r] = bias[r] + W[r] . x[t]. Each W row is read from memory once for up to
   LLM__SMALL_N tokens; four rows go together so each x vector loaded feeds 4 independent
   FMA chains, enough to keep many loads in flight and hide the FMA latency. */

typedef struct llm__gemv {
    float *y;
    const float *x, *w, *bias;
    int n_tokens, k, n;
} llm__gemv;

/* One row, one token: the edges. */
static float llm__dot(const float *w, const float *x, int k) {
    llm__rv s0 = llm__rv_set1(0.0f), s1 = llm__rv_set1(0.0f);
    float s;
    int i = 0;
    for (; k - i >= 2 * LLM__RVN; i += 2 * LLM__RVN) {
        s0 = llm__rv_fma(llm__rv_load(w + i), llm__rv_load(x + i), s0);
        s1 = llm__rv_fma(llm__rv_load(w + i + LLM__RVN), llm__rv_load(x + i + LLM__RVN), s1);
    }
    for (; k - i >= LLM__RVN; i += LLM__RVN) s0 = llm__rv_fma(llm__rv_load(w + i), llm__rv_load(x + i), s0);
    s = llm__rv_hsum(llm__rv_add(s0, s1));
    for (; i < k; i++) s += w[i] * x[i];
    return s;
}

/* acc0..acc3 += rows w0..w3 times x, one vector at column off; LD loads a vector. */
#define LLM__GEMV_FMA4(acc, LD, off)                         \
    xv = LD(x + (off));                                      \
    acc##0 = llm__rv_fma(LD(w0 + (off)), xv, acc##0);        \
    acc##1 = llm__rv_fma(LD(w1 + (off)), xv, acc##1);        \
    acc##2 = llm__rv_fma(LD(w2 + (off)), xv, acc##2);        \
    acc##3 = llm__rv_fma(LD(w3 + (off)), xv, acc##3);
#define LLM__GEMV_TAIL(p) llm__rv_load_n((p), k - i)

/* Rows [r0, r1) of W against one token: 4 rows at a time, 2 accumulators per row. */
static void llm__gemv_1(float *y, const float *x, const float *w, const float *bias, int k, int r0, int r1) {
    int r = r0, i;
    for (; r1 - r >= 4; r += 4) {
        const float *w0 = w + (ptrdiff_t)r * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
        llm__rv a0 = llm__rv_set1(0.0f), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0, xv;
        float s[4];
        int p;
        /* Short rows (k <= 256) come from L2, where a small model's weights live between
           tokens: fetch the next 4 rows into L1 now. Long rows stream from memory, where
           the hardware prefetchers and the row blocks do the job. */
        if (k <= 256 && r1 - r >= 8)
            for (p = 0; p < 4 * k; p += 16) LLM__PREFETCH(w0 + 4 * k + p);
        for (i = 0; k - i >= 2 * LLM__RVN; i += 2 * LLM__RVN) {
            LLM__GEMV_FMA4(a, llm__rv_load, i)
            LLM__GEMV_FMA4(b, llm__rv_load, i + LLM__RVN)
        }
        for (; k - i >= LLM__RVN; i += LLM__RVN) {
            LLM__GEMV_FMA4(a, llm__rv_load, i)
        }
#ifdef LLM__RV_MASKED
        if (i < k) { /* the tail as one masked vector */
            LLM__GEMV_FMA4(b, LLM__GEMV_TAIL, i)
            i = k;
        }
#endif
        /* small k makes the horizontal sums a large part of a row: four at once */
        llm__vsum4(llm__rv_add(a0, b0), llm__rv_add(a1, b1), llm__rv_add(a2, b2), llm__rv_add(a3, b3), s);
        for (; i < k; i++) {
            s[0] += w0[i] * x[i];
            s[1] += w1[i] * x[i];
            s[2] += w2[i] * x[i];
            s[3] += w3[i] * x[i];
        }
        y[r] = (bias ? bias[r] : 0.0f) + s[0];
        y[r + 1] = (bias ? bias[r + 1] : 0.0f) + s[1];
        y[r + 2] = (bias ? bias[r + 2] : 0.0f) + s[2];
        y[r + 3] = (bias ? bias[r + 3] : 0.0f) + s[3];
    }
    for (; r < r1; r++) y[r] = (bias ? bias[r] : 0.0f) + llm__dot(w + (ptrdiff_t)r * k, x, k);
}

/* 2..LLM__SMALL_N tokens (a batched decode step, a short prefill) in one pass over W,
   with the arithmetic of llm__gemv_1 for every (row, token): the same two chains (even
   and odd vectors of the row), the same tails, the same four-row horizontal sums. So
   each token's outputs are the bits n separate GEMVs give, and a sequence decoded in a
   batch gets the logits it gets alone. The tile is LLM__SBR rows x 2 tokens: each W
   vector loaded feeds 2 FMAs and each x vector LLM__SBR, 4 LLM__SBR independent chains
   (AVX-512 and NEON: 16 accumulators of 32 registers; AVX2: 8 of 16). */
#if defined(LLM__AVX512) || defined(LLM__NEON) || !defined(LLM__RV)
#define LLM__SBR 4
#define LLM__SB_ROWS(X) X(0) X(1) X(2) X(3)
#else
#define LLM__SBR 2
#define LLM__SB_ROWS(X) X(0) X(1)
#endif
#define LLM__SB_DECL(r) llm__rv a##r##0 = z, a##r##1 = z, b##r##0 = z, b##r##1 = z; const float *w##r = w + (ptrdiff_t)(r) * k;
#define LLM__SB_FMA(r, acc, LD, off, u0, u1)            \
    v = LD(w##r + (off));                               \
    acc##r##0 = llm__rv_fma(v, u0, acc##r##0);          \
    acc##r##1 = llm__rv_fma(v, u1, acc##r##1);
#define LLM__SB_A(r) LLM__SB_FMA(r, a, llm__rv_load, i, xa0, xa1)
#define LLM__SB_B(r) LLM__SB_FMA(r, b, llm__rv_load, i + LLM__RVN, xb0, xb1)
#define LLM__SB_T(r) LLM__SB_FMA(r, b, LLM__GEMV_TAIL, i, xb0, xb1)
#define LLM__SB_OUT(r)                                  \
    o[(r) * 2] = llm__rv_add(a##r##0, b##r##0);         \
    o[(r) * 2 + 1] = llm__rv_add(a##r##1, b##r##1);
#define LLM__SB_PF(r)                                   \
    LLM__PREFETCH(pf + (ptrdiff_t)(r) * k + i);         \
    if (2 * LLM__RVN > 16) LLM__PREFETCH(pf + (ptrdiff_t)(r) * k + i + 16);
/* Rows w[0..LLM__SBR) (k apart) against tokens x0 and x1: o[r * 2 + t] = chain a + chain b.
   pf (or NULL): the same rows of the next group, fetched at the pace these are read. */
static void llm__gemv_sb(llm__rv *o, const float *w, int k, const float *x0, const float *x1, const float *pf) {
    const llm__rv z = llm__rv_set1(0.0f);
    llm__rv xa0, xa1, xb0, xb1, v;
    int i;
    LLM__SB_ROWS(LLM__SB_DECL)
    for (i = 0; k - i >= 2 * LLM__RVN; i += 2 * LLM__RVN) {
        if (pf) {
            LLM__SB_ROWS(LLM__SB_PF)
        }
        xa0 = llm__rv_load(x0 + i), xa1 = llm__rv_load(x1 + i);
        xb0 = llm__rv_load(x0 + i + LLM__RVN), xb1 = llm__rv_load(x1 + i + LLM__RVN);
        LLM__SB_ROWS(LLM__SB_A)
        LLM__SB_ROWS(LLM__SB_B)
    }
    for (; k - i >= LLM__RVN; i += LLM__RVN) {
        xa0 = llm__rv_load(x0 + i), xa1 = llm__rv_load(x1 + i);
        LLM__SB_ROWS(LLM__SB_A)
    }
#ifdef LLM__RV_MASKED
    if (i < k) {
        xb0 = llm__rv_load_n(x0 + i, k - i), xb1 = llm__rv_load_n(x1 + i, k - i);
        LLM__SB_ROWS(LLM__SB_T)
    }
#endif
    LLM__SB_ROWS(LLM__SB_OUT)
}

/* Rows r..r+3 against all n_tokens tokens: LLM__SBR rows at a time so they stay in L1
   while every token passes; then gemv_1's sums and tails per token. */
static void llm__gemv_small(const llm__gemv *g, int r, int r1) {
    const int k = g->k, nt = g->n_tokens;
    const float *w = g->w + (ptrdiff_t)r * k;
    llm__rv o[LLM__SMALL_N][4], t2[2 * LLM__SBR];
    float s[4];
    int rr, t, j, i, i0;
#ifdef LLM__RV_MASKED
    i0 = k;
#else
    i0 = k / LLM__RVN * LLM__RVN; /* gemv_1 leaves this tail to scalar code */
#endif
    if (k <= 256 && r1 - r >= 8) /* as gemv_1: short rows come from L2, fetch the next group's */
        for (j = 0; j < 4 * k; j += 16) LLM__PREFETCH(w + 4 * k + j);
    for (rr = 0; rr < 4; rr += LLM__SBR)
        for (t = 0; t < nt; t += 2) {
            const float *x0 = g->x + (ptrdiff_t)t * k, *x1 = t + 1 < nt ? x0 + k : x0; /* an odd last token twice */
            /* the first pass streams these rows from memory; the second (from L1) fetches
               the next group's, so that memory never waits for the FMAs */
            const float *pf = t == 2 && r1 - r >= 8 ? w + (ptrdiff_t)(4 + rr) * k : NULL;
            llm__gemv_sb(t2, w + (ptrdiff_t)rr * k, k, x0, x1, pf);
            for (j = 0; j < LLM__SBR; j++) {
                o[t][rr + j] = t2[2 * j];
                if (t + 1 < nt) o[t + 1][rr + j] = t2[2 * j + 1];
            }
        }
    for (t = 0; t < nt; t++) {
        const float *x = g->x + (ptrdiff_t)t * k;
        float *y = g->y + (ptrdiff_t)t * g->n + r;
        llm__vsum4(o[t][0], o[t][1], o[t][2], o[t][3], s);
        for (i = i0; i < k; i++)
            for (j = 0; j < 4; j++) s[j] += w[(ptrdiff_t)j * k + i] * x[i];
        for (j = 0; j < 4; j++) y[j] = (g->bias ? g->bias[r + j] : 0.0f) + s[j];
    }
}

static void llm__gemv_task(void *ctx, int ith, int nth) {
    const llm__gemv *g = (const llm__gemv *)ctx;
    /* rows in multiples of 16 so each thread's 4-row groups stay whole */
    int64_t groups = ((int64_t)g->n + 15) / 16, e0 = groups * ith / nth * 16, e1 = groups * (ith + 1) / nth * 16;
    int r0 = (int)e0, r1 = e1 < g->n ? (int)e1 : g->n, r, t;
    if (r0 >= r1) return;
    if (g->n_tokens == 1) {
        llm__gemv_1(g->y, g->x, g->w, g->bias, g->k, r0, r1);
        return;
    }
    /* a few tokens: 4 rows at a time, all tokens while those rows are in cache */
    for (r = r0; r1 - r >= 4; r += 4) llm__gemv_small(g, r, r1);
    for (; r < r1; r++)
        for (t = 0; t < g->n_tokens; t++)
            g->y[(ptrdiff_t)t * g->n + r] =
                (g->bias ? g->bias[r] : 0.0f) + llm__dot(g->w + (ptrdiff_t)r * g->k, g->x + (ptrdiff_t)t * g->k, g->k);
}

/* ---- entry points ------------------------------------------------------------------------ */

/* C[m][n] = A[m][k] B + bias, B = W[n][k] transposed (b_trans) or B[k][n] as stored. */
static void llm__gemm_run(float *c, const float *a, const float *b, const float *bias, int m, int k, int n, int b_trans,
                          llm_threads *th) {
    llm__gemm g = {c, a, b, bias, m, k, n, b_trans, k, b_trans ? k : n, n, 0, 0}; /* lda, ldb, ldc; a_trans, accum */
    llm_threads_run(th, llm__gemm_task, &g);
}

/* a * b * sizeof(float) fits in a ptrdiff_t (both positive). */
static int llm__fits(int a, int b) { return (uint64_t)a * (uint64_t)b <= (uint64_t)PTRDIFF_MAX / sizeof(float); }

LLMDEF llm_status llm_linear(float *y, const float *x, const float *W, const float *b, int n_tokens, int d_in,
                             int d_out, llm_threads *th) {
    if (!y || !x || !W || n_tokens <= 0 || d_in <= 0 || d_out <= 0) return LLM_EINVAL;
    if (!llm__fits(n_tokens, d_in) || !llm__fits(n_tokens, d_out) || !llm__fits(d_out, d_in)) return LLM_EINVAL;
    if ((double)n_tokens * d_in * d_out < LLM__PAR_MIN_WORK) th = NULL;
    if (n_tokens <= LLM__SMALL_N) {
        llm__gemv g = {y, x, W, b, n_tokens, d_in, d_out};
        llm_threads_run(th, llm__gemv_task, &g);
    } else {
        llm__gemm_run(y, x, W, b, n_tokens, d_in, d_out, 1, th);
    }
    return LLM_OK;
}

LLMDEF llm_status llm_matmul(float *C, const float *A, const float *B, int M, int K, int N, llm_threads *th) {
    if (!C || !A || !B || M <= 0 || K <= 0 || N <= 0) return LLM_EINVAL;
    if (!llm__fits(M, K) || !llm__fits(K, N) || !llm__fits(M, N)) return LLM_EINVAL;
    if ((double)M * K * N < LLM__PAR_MIN_WORK) th = NULL;
    llm__gemm_run(C, A, B, NULL, M, K, N, 0, th);
    return LLM_OK;
}

LLMDEF llm_status llm_matmul_ex(float *C, const float *A, const float *B, int M, int K, int N, int a_trans,
                                int accumulate, llm_threads *th) {
    llm__gemm g;
    if (!C || !A || !B || M <= 0 || K <= 0 || N <= 0) return LLM_EINVAL;
    if (!llm__fits(M, K) || !llm__fits(K, N) || !llm__fits(M, N)) return LLM_EINVAL;
    if ((double)M * K * N < LLM__PAR_MIN_WORK) th = NULL;
    memset(&g, 0, sizeof g);
    g.c = C, g.a = A, g.b = B, g.m = M, g.k = K, g.n = N;
    g.lda = a_trans ? M : K, g.ldb = N, g.ldc = N;
    g.a_trans = a_trans != 0, g.accum = accumulate != 0;
    llm_threads_run(th, llm__gemm_task, &g);
    return LLM_OK;
}

/* --------------------------------------------------------------------------------------
   >>rowops  norms, activations, residual add, softmax, argmax
   --------------------------------------------------------------------------------------
   One row of n floats per call. Each kernel has a plain scalar loop (libm through
   LLM_EXPF / LLM_TANHF / LLM_ERFF: the oracle the tests hold the SIMD paths to) and, when
   SIMD is compiled in, a vector loop written against >>simd's vocabulary, so
   AVX-512, AVX2 and NEON share one loop body. Rows are short (a few thousand floats, in
   L1/L2), so what matters is not reading them more often than needed: RMSNorm reads x
   twice (sum of squares, then scale), softmax three times (max, exp+sum, scale), SwiGLU
   reads gate and up once and writes once. */

#ifdef LLM__RV /* the vector exp and what is built on it (the vocabulary is >>simd) */
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
        llm__rv v;                                                            \
        for (; i_ + LLM__RVN <= (n); i_ += LLM__RVN) {                        \
            v = llm__rv_load((x) + i_);                                       \
            llm__rv_store((out) + i_, vexpr);                                 \
        }                                                                     \
        if (i_ < (n)) {                                                       \
            v = llm__rv_load_n((x) + i_, (n) - i_);                           \
            llm__rv_store_n((out) + i_, vexpr, (n) - i_);                     \
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

/* SiLU and the tanh GELU, one loop for both. */
static llm_status llm__act(float *out, const float *x, int n, int gelu) {
    int i;
    if (!out || !x || n <= 0) return LLM_EINVAL;
#ifdef LLM__RV
    if (gelu) LLM__RV_MAP(out, x, n, llm__rv_gelu(v));
    else LLM__RV_MAP(out, x, n, llm__rv_silu(v));
    (void)i;
#else
    for (i = 0; i < n; i++) {
        float v = x[i];
        out[i] = gelu ? 0.5f * v * (1.0f + LLM_TANHF(0.7978845608028654f * (v + 0.044715f * v * v * v)))
                      : v / (1.0f + LLM_EXPF(-v));
    }
#endif
    return LLM_OK;
}

/* SiLU (swish): x * sigmoid(x) = x / (1 + e^-x). */
LLMDEF llm_status llm_silu(float *out, const float *x, int n) { return llm__act(out, x, n, 0); }

/* GELU, tanh approximation (Hendrycks & Gimpel 2016; GPT-2's "gelu_new"):
   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
LLMDEF llm_status llm_gelu(float *out, const float *x, int n) { return llm__act(out, x, n, 1); }

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
    if (i < n)
        llm__rv_store_n(out + i, llm__rv_mul(llm__rv_silu(llm__rv_load_n(gate + i, n - i)), llm__rv_load_n(up + i, n - i)), n - i);
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
     LLM_INT8           int8 groups: values q in groups of group_size consecutive values,
                        one fp32 scale s per group: w = q * s, s = max|w| / 127 (llama2.c's
                        version-2 export): 1 + 4 / group_size bytes per weight.
   For LLM_INT8 the activations are quantized the same way (per group, once per call), so
   the inner loop is an integer dot product per group,
       y[r] = sum_g  sx[g] * sw[r][g] * sum_{i in g} qx[i] * qw[r][i],
   exact in int32, scaled once per group in fp32. What each format needs (sizes, checks,
   the row as fp32, its kernels) is its row in the weight-format table at the end of this
   section.

   Loop order. Rows are split across threads (llm_threads_run; contiguous ranges of whole
   row blocks, so a row's arithmetic never depends on the thread count). Each thread
   walks its rows LLM__WR at a time: the x chunk is loaded once for the LLM__WR rows, and
   LLM__WR independent accumulator chains keep the loads in flight. For several tokens
   (prefill) the tokens are taken in panels that fit in L2, and each block of rows does
   every token of the panel while its weights are still in L1, so the weights are
   streamed from memory once per panel, not once per token; inside a block, LLM__WT
   tokens at a time share each converted (fp16/bf16) or loaded (int8, gs = 64) weight
   vector. Which code computes an output depends on its row and token position only,
   never on the thread count, so threaded results are bit-identical to unthreaded ones. */

#define LLM__WR 4 /* weight rows per block */
/* Software prefetch of the next row block (LLM__PREFETCH is >>simd's). A block's rows
   are short streams (an int8 row of 4096 is one 4 KiB page), and the hardware
   prefetchers stop at page boundaries and take a while to pick up each new stream;
   asking for the same column of the next block (pf bytes ahead, 0 at the end of a
   thread's rows) keeps the memory busy. */
/* LLM_INT8 quantizes the activations of one panel into a stack buffer of this many int8
   values (plus 8 bytes per group): 64 KiB of stack in llm_linear_w. d_in and the panel
   of tokens are cut to fit; group_size may not exceed LLM__Q8_XMAX / 2. */
#define LLM__Q8_XMAX 32768
#define LLM__Q8_GMAX 4096

/* Symmetric int8 quantization of n values, the one rule for every int8 layout (weight
   groups, activation groups, KV cache rows): s = max|x| / 127, q = round(x / s) rounded
   half away from zero (C's round), clamped to +-127 (when max|x| is subnormal, s loses
   bits and x / s can pass 127.5). An all-zero x gets s = 0, q = 0. The vector path gives
   the same bits as the scalar one: the division is IEEE in both, and round-half-away is
   done exactly as t = trunc(v), then t +- 1 when |v - t| >= 0.5 (v - t is exact). It runs
   on every activation group of every int8 matmul, so it is worth the vectors.
   inf or NaN in x: with skip_nonfinite = 0 (weights, activations) s = NaN and q = 0, so a
   product with the group is NaN as it would be in fp32; with skip_nonfinite = 1 (the KV
   cache) the bad values are stored as 0 and s comes from the finite ones, so one bad value
   can't turn every later attention score against the row into NaN. Returns 1 when x held
   inf or NaN, else 0. */
LLM__WINLINE int llm__q8_quant(int8_t *q, float *s, const float *x, int n, int skip_nonfinite) {
    float amax = 0.0f, bad = 0.0f, scale;
    int i = 0;
#ifdef LLM__RV
    if (n >= LLM__RVN) {
        llm__rv m = llm__rv_set1(0.0f), nan = m, zero = m;
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv v = llm__rv_load(x + i);
            m = llm__rv_max(m, llm__rv_abs(v));
            nan = llm__rv_fma(v, zero, nan); /* x * 0 is NaN for inf and NaN: sticky */
        }
        amax = llm__rv_hmax(m);
        bad = llm__rv_hsum(nan);
    }
#endif
    for (; i < n; i++) {
        float a = fabsf(x[i]);
        bad += x[i] * 0.0f;
        if (a > amax) amax = a;
    }
    if (bad != 0.0f || !(amax <= FLT_MAX)) { /* inf or NaN somewhere */
        if (!skip_nonfinite) {
            for (i = 0; i < n; i++) q[i] = 0;
            *s = NAN;
            return 1;
        }
        for (amax = 0.0f, i = 0; i < n; i++)
            if (fabsf(x[i]) > amax && fabsf(x[i]) <= FLT_MAX) amax = fabsf(x[i]);
        *s = scale = amax / 127.0f;
        for (i = 0; i < n; i++) {
            float v = scale > 0 && fabsf(x[i]) <= FLT_MAX ? LLM_ROUNDF(x[i] / scale) : 0.0f;
            q[i] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : (int)v);
        }
        return 1;
    }
    scale = amax / 127.0f;
    *s = scale;
    if (scale == 0.0f) {
        for (i = 0; i < n; i++) q[i] = 0;
        return 0;
    }
    i = 0;
#ifdef LLM__RV
    {
        const llm__rv sv = llm__rv_set1(scale), half = llm__rv_set1(0.5f), zero = llm__rv_set1(0.0f);
        const llm__rv one = llm__rv_set1(1.0f), mone = llm__rv_set1(-1.0f);
        const llm__rv lim = llm__rv_set1(127.0f), mlim = llm__rv_set1(-127.0f);
        float t[LLM__RVN];
        int j;
        for (; i + LLM__RVN <= n; i += LLM__RVN) {
            llm__rv v = llm__rv_div(llm__rv_load(x + i), sv), tr = llm__rv_trunc(v);
            llm__rv up = llm__rv_add(tr, llm__rv_ge_or(v, zero, one, mone));
            llm__rv r = llm__rv_ge_or(llm__rv_abs(llm__rv_sub(v, tr)), half, up, tr);
            llm__rv_store(t, llm__rv_min(llm__rv_max(r, mlim), lim));
            for (j = 0; j < LLM__RVN; j++) q[i + j] = (int8_t)(int)t[j];
        }
    }
#endif
    for (; i < n; i++) {
        float v = LLM_ROUNDF(x[i] / scale);
        q[i] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : (int)v);
    }
    return 0;
}
/* A weight's or an activation's group. */
static int llm__q8_group(int8_t *q, float *s, const float *x, int gs) { return llm__q8_quant(q, s, x, gs, 0); }

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

/* ---- fp16 / bf16 rows: converted in registers (llm__rv_load_f16 / _bf16, >>simd) ---- */

/* out[r] = W[r][0..n) . x for nr (constant after inlining) rows ld apart; bf selects bf16.
   Two vectors per row per step: 2 nr independent FMA chains. */
LLM__WINLINE void llm__dot_h(float *out, const uint16_t *w, size_t ld, const float *x, int n, const int nr,
                             const int bf, size_t pf) {
    float s[LLM__WR];
    int r, k = 0;
#ifdef LLM__RV
    llm__rv acc[LLM__WR], acc2[LLM__WR];
    for (r = 0; r < nr; r++) acc[r] = acc2[r] = llm__rv_set1(0.0f);
    for (; k + 2 * LLM__RVN <= n; k += 2 * LLM__RVN) {
        llm__rv xv = llm__rv_load(x + k), xw = llm__rv_load(x + k + LLM__RVN);
        for (r = 0; r < nr; r++) {
            const uint16_t *p = w + (size_t)r * ld + k;
            LLM__PREFETCH((const char *)p + pf);
            acc[r] = llm__rv_fma(bf ? llm__rv_load_bf16(p) : llm__rv_load_f16(p), xv, acc[r]);
            acc2[r] = llm__rv_fma(bf ? llm__rv_load_bf16(p + LLM__RVN) : llm__rv_load_f16(p + LLM__RVN), xw, acc2[r]);
        }
    }
    for (r = 0; r < nr; r++) acc[r] = llm__rv_add(acc[r], acc2[r]);
    for (; k + LLM__RVN <= n; k += LLM__RVN) {
        llm__rv xv = llm__rv_load(x + k);
        for (r = 0; r < nr; r++) {
            const uint16_t *p = w + (size_t)r * ld + k;
            acc[r] = llm__rv_fma(bf ? llm__rv_load_bf16(p) : llm__rv_load_f16(p), xv, acc[r]);
        }
    }
    for (r = 0; r < nr; r++) s[r] = llm__rv_hsum(acc[r]);
#else
    (void)pf;
    for (r = 0; r < nr; r++) s[r] = 0.0f;
#endif
    for (; k < n; k++) /* the tail; every element in scalar builds */
        for (r = 0; r < nr; r++) {
            uint16_t h = w[(size_t)r * ld + k];
            s[r] += (bf ? llm_bf16_to_f32(h) : llm_f16_to_f32(h)) * x[k];
        }
    for (r = 0; r < nr; r++) out[r] = s[r];
}

/* Prefill: LLM__WR rows x 4 tokens at once, o[r * 4 + t]. Each converted weight vector
   feeds 4 FMAs (one per token) instead of 1, so the conversion is paid once per 4 tokens
   and 16 independent accumulators keep both FMA pipes busy; x rows are xld apart. */
#define LLM__WT 4
LLM__WINLINE void llm__dot_h_tok(float *o, const uint16_t *w, size_t ld, const float *x, size_t xld, int n,
                                 const int bf) {
    int r, t, k = 0;
    float s[LLM__WR * LLM__WT];
#ifdef LLM__RV
    llm__rv acc[LLM__WR * LLM__WT];
    for (r = 0; r < LLM__WR * LLM__WT; r++) acc[r] = llm__rv_set1(0.0f);
    for (; k + LLM__RVN <= n; k += LLM__RVN) {
        llm__rv xv[LLM__WT];
        for (t = 0; t < LLM__WT; t++) xv[t] = llm__rv_load(x + (size_t)t * xld + k);
        for (r = 0; r < LLM__WR; r++) {
            const uint16_t *p = w + (size_t)r * ld + k;
            llm__rv wv = bf ? llm__rv_load_bf16(p) : llm__rv_load_f16(p);
            for (t = 0; t < LLM__WT; t++) acc[r * LLM__WT + t] = llm__rv_fma(wv, xv[t], acc[r * LLM__WT + t]);
        }
    }
    for (r = 0; r < LLM__WR * LLM__WT; r++) s[r] = llm__rv_hsum(acc[r]);
#else
    for (r = 0; r < LLM__WR * LLM__WT; r++) s[r] = 0.0f;
#endif
    for (; k < n; k++)
        for (r = 0; r < LLM__WR; r++) {
            uint16_t h = w[(size_t)r * ld + k];
            float wf = bf ? llm_bf16_to_f32(h) : llm_f16_to_f32(h);
            for (t = 0; t < LLM__WT; t++) s[r * LLM__WT + t] += wf * x[(size_t)t * xld + k];
        }
    for (r = 0; r < LLM__WR * LLM__WT; r++) o[r] = s[r];
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
static inline __m512 llm__bcast2(const float *p) { /* p[0], p[1] repeated: one 8-byte broadcast */
    double d;
    memcpy(&d, p, sizeof d);
    return _mm512_castpd_ps(_mm512_set1_pd(d));
}
LLM__WINLINE void llm__dot_q8_vnni(float *out, const int8_t *w, size_t ld, size_t pf, const float *sw, size_t lds,
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
                __m512i wv;
                LLM__PREFETCH(p + pf);
                wv = pair ? _mm512_loadu_si512((const void *)p)
                                  : _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_loadu_si256((const __m256i *)(const void *)p), 0);
                __m512 ws2 = _mm512_permutexvar_ps(two, pair ? llm__bcast2(sw + (size_t)r * lds + g)
                                                              : _mm512_maskz_loadu_ps(0x1, sw + (size_t)r * lds + g));
                __m512 d = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(c, _mm512_xor_si512(wv, flip), xv)), xs2);
                acc[r] = _mm512_fmadd_ps(d, ws2, acc[r]);
            }
        }
    } else if (gs == 64) { /* one vector per group: no inner loop */
        for (g = 0; g < ng; g++) {
            __m512i xv = _mm512_loadu_si512((const void *)(xq + (size_t)g * 64));
            __m512i c = _mm512_maskz_set1_epi32(0x0001, xc[g]);
            __m512 xs = _mm512_set1_ps(sx[g]);
            for (r = 0; r < nr; r++) {
                const int8_t *p = w + (size_t)r * ld + (size_t)g * 64;
                __m512i d;
                LLM__PREFETCH(p + pf);
                d = _mm512_dpbusd_epi32(c, _mm512_xor_si512(_mm512_loadu_si512((const void *)p), flip), xv);
                acc[r] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(d), xs), _mm512_set1_ps(sw[(size_t)r * lds + g]), acc[r]);
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
                    LLM__PREFETCH(p + pf);
                    a[r] = _mm512_dpbusd_epi32(a[r], _mm512_xor_si512(_mm512_loadu_si512((const void *)p), flip), xv);
                }
            }
            for (r = 0; r < nr; r++)
                acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[r]), _mm512_set1_ps(sw[(size_t)r * lds + g] * sx[g]), acc[r]);
        }
    }
    for (r = 0; r < nr; r++) out[r] = llm__rv_hsum(acc[r]);
}
/* Prefill with gs = 64: LLM__WR rows x LLM__WT tokens, o[r * LLM__WT + t]. Each weight
   vector is loaded and flipped once for 4 tokens; per (row, token) the arithmetic is the
   one of llm__dot_q8_vnni above, so the result is the same bits. Token t's quantized x
   starts at xq + t * xld, its scales and corrections at sx + t * sld, xc + t * sld. */
#define LLM__Q8_VNNI_TOK 1
static void llm__dot_q8_vnni_tok(float *o, const int8_t *w, size_t ld, const float *sw, size_t lds,
                                 const int8_t *xq, size_t xld, const float *sx, const int32_t *xc, size_t sld, int n) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    __m512 acc[LLM__WR * LLM__WT];
    int r, t, g, ng = n / 64;
    for (r = 0; r < LLM__WR * LLM__WT; r++) acc[r] = _mm512_setzero_ps();
    for (g = 0; g < ng; g++) {
        __m512i xv[LLM__WT], c[LLM__WT];
        __m512 xs[LLM__WT];
        for (t = 0; t < LLM__WT; t++) {
            xv[t] = _mm512_loadu_si512((const void *)(xq + t * xld + (size_t)g * 64));
            c[t] = _mm512_maskz_set1_epi32(0x0001, xc[t * sld + g]);
            xs[t] = _mm512_set1_ps(sx[t * sld + g]);
        }
        for (r = 0; r < LLM__WR; r++) {
            __m512i wv = _mm512_xor_si512(_mm512_loadu_si512((const void *)(w + (size_t)r * ld + (size_t)g * 64)), flip);
            __m512 swr = _mm512_set1_ps(sw[(size_t)r * lds + g]);
            for (t = 0; t < LLM__WT; t++) {
                __m512i d = _mm512_dpbusd_epi32(c[t], wv, xv[t]);
                acc[r * LLM__WT + t] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(d), xs[t]), swr, acc[r * LLM__WT + t]);
            }
        }
    }
    for (r = 0; r < LLM__WR * LLM__WT; r++) o[r] = llm__rv_hsum(acc[r]);
}
#elif (defined(LLM__AVX512) || defined(LLM__AVX2)) && defined(__AVX2__)
/* AVX2: vpmaddubsw multiplies unsigned by signed bytes and adds adjacent pairs into
   int16; vpmaddwd with ones widens pairs of those into int32. The unsigned operand is
   |qw| (<= 128) and qx takes qw's sign (vpsignb), so a pair is at most 2 * 128 * 127 =
   32512 and never saturates. Group sizes: multiples of 32. */
#define LLM__Q8_AVX2 1
LLM__WINLINE void llm__dot_q8_avx2(float *out, const int8_t *w, size_t ld, size_t pf, const float *sw, size_t lds,
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
                const int8_t *pw = w + (size_t)r * ld + (size_t)g * gs + j;
                __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)pw), p;
                if (!(j & 32)) LLM__PREFETCH(pw + pf); /* once per 64-byte line */
                p = _mm256_maddubs_epi16(_mm256_abs_epi8(wv), _mm256_sign_epi8(xv, wv));
                a[r] = _mm256_add_epi32(a[r], _mm256_madd_epi16(p, ones));
            }
        }
        for (r = 0; r < nr; r++)
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[r]), _mm256_set1_ps(sw[(size_t)r * lds + g] * sx[g]), acc[r]);
    }
    for (r = 0; r < nr; r++) s[r] = llm__hsum256(acc[r]);
    for (r = 0; r < nr; r++) out[r] = s[r];
}
#elif defined(LLM__NEON)
/* NEON: 16 bytes at a time. With the dot-product extension (-march=...+dotprod) sdot
   adds four adjacent int8 products per int32 lane; without it, widening multiplies to
   int16 (|product| <= 16384) and pairwise widening adds to int32. Group sizes:
   multiples of 16; each group's int32 lanes are summed and scaled in fp32. */
#define LLM__Q8_NEON 1
LLM__WINLINE void llm__dot_q8_neon(float *out, const int8_t *w, size_t ld, size_t pf, const float *sw, size_t lds,
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
                if (!(j & 48)) LLM__PREFETCH(w + (size_t)r * ld + (size_t)g * gs + j + pf);
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
LLM__WINLINE void llm__dot_q8(float *out, const int8_t *w, size_t ld, size_t pf, const float *sw, size_t lds, const int8_t *xq,
                              const float *sx, const int32_t *xc, int n, int gs, const int nr) {
    (void)xc;
    (void)pf;
#if defined(LLM__Q8_VNNI)
    if (gs % 64 == 0 || gs == 32) {
        llm__dot_q8_vnni(out, w, ld, pf, sw, lds, xq, sx, xc, n, gs, nr);
        return;
    }
#elif defined(LLM__Q8_AVX2)
    if (gs % 32 == 0) {
        llm__dot_q8_avx2(out, w, ld, pf, sw, lds, xq, sx, n, gs, nr);
        return;
    }
#elif defined(LLM__Q8_NEON)
    if (gs % 16 == 0) {
        llm__dot_q8_neon(out, w, ld, pf, sw, lds, xq, sx, n, gs, nr);
        return;
    }
#endif
    llm__dot_q8_scalar(out, w, ld, sw, lds, xq, sx, n, gs, nr);
}

/* ---- the weight-format table ----------------------------------------------------------
   One row per llm_dtype with what every user of a format reads (ggml's type_traits is the
   model): llm_dtype_name / _bits (the estimators), llm_linear_w, the model's embedding
   lookup and byte count, the KV cache's element size. A stored row of `in` values is
   in / blk blocks of blk_bytes each in llm_weight.data (values, and any scales kept inside
   the block as ggml's Q8_0 / Q4_K do), plus, for scales == LLM__SCALE_GROUP, one fp32 per
   group_size values in llm_weight.scale. Adding a format: one row here, its kernels
   (check, row, and prep / dot / dot4 or linear; for a ggml block format dq, qdot and
   tile, with linear = llm__linear_q, and qp, its packing for the many-token kernel, if
   it has one), and tests.

   The three int8 layouts, by name:
     "int8" bits      the estimators' LLM_INT8: 8 bits a value, scales not counted
     int8 groups      a weight's LLM_INT8 (this table's row): one fp32 scale per group_size
                      values of a row, llama2.c's version-2 export
     int8 rows        the KV cache's LLM_INT8 (>>attention): one fp32 scale per row of
                      head_dim, its own array (llm_kv_cache.k_scale / v_scale)
   All three quantize by llm__q8_quant (s = max|x| / 127, round half away from zero).

   A linear layer runs over panels: tokens t0..t0+nt-1 and columns k0..k0+kn-1 of x. A
   format with prep gets each panel's activations converted once (LLM_INT8: quantized per
   group of group_size values: int8, an fp32 scale and -128 * sum per group; a ggml block
   format would quantize per block of 32 or 256 the same way) and every row block reuses
   them; without prep, the kernels read fp32 x. rows computes nr (1 or LLM__WR) rows
   against every token of the panel and writes y: llm__lw_block with the format's two
   kernels, dot (nr rows x one token) and optionally dot4 (LLM__WR rows x LLM__WT tokens;
   it returns 0 to leave a block to dot), which a ggml block format would provide over
   its blocks of 32 or 256 values against activations quantized per block. */
typedef struct llm__lw llm__lw;
typedef struct llm__q8x llm__q8x; /* activations quantized per block of 32 (ggml's formats, below) */
typedef struct llm__wfmt { /* NOLINT(clang-analyzer-optin.performance.Padding): columns in reading order */
    const char *name;
    double bits;   /* per value, in-block scales included (Q8_32: 8 + 16 / 32) */
    int blk;       /* values per block in data (1: element formats); 0: no stored layout yet */
    int blk_bytes; /* bytes per block in data */
    int scales;    /* LLM__SCALE_NONE, or LLM__SCALE_GROUP: separate fp32 per group_size values */
    llm_status (*check)(const llm_weight *w, int d_in);               /* layout valid for rows of d_in */
    void (*row)(float *dst, const llm_weight *w, int64_t row, int n); /* one row of n values as fp32 */
    llm_status (*linear)(float *y, const float *x, const llm_weight *w, const float *b, int n_tokens, int d_in, int d_out,
                         unsigned flags, void *scratch, size_t scratch_bytes, llm_threads *th); /* a whole layer, or NULL: panels below */
    void (*prep)(llm__lw *c);                                          /* convert the panel, or NULL */
    void (*rows)(const llm__lw *c, int r, int nr, size_t pf);          /* rows r..r+nr against the panel */
    /* ggml's formats (a GGUF tensor's type id, -1 for none) and, for its block formats, what
       llm__linear_q and llm_gguf_dequantize read: one block of blk values to fp32 (exact),
       the scalar dot of a row with activations quantized per block of 32 (the oracle), and
       the vector tile (nr rows x nt tokens, the shapes llm__lq_tiles asks for), or NULL */
    int ggml;
    void (*dq)(const unsigned char *blk, float *y);
    float (*qdot)(const unsigned char *w, const llm__q8x *x, int64_t n);
    void (*tile)(float *out, const unsigned char *w, size_t ldw, const llm__q8x *x, const float *xd, size_t ldx, int n, int nr, int nt,
                 size_t pf); /* xd: x's block scales as contiguous floats (LLM__XS_OFF), ldx apart per token */
    const struct llm__qpf *qp; /* the many-token kernel's packing of 16 rows (llm__qp_*), or NULL */
} llm__wfmt;
#define LLM__SCALE_NONE 0
#define LLM__SCALE_GROUP 1

/* What one llm_threads_run call works on: the panel (tokens t0..t0+nt-1, columns
   k0..k0+kn-1) and, after prep, its quantized activations: xq [nt][kn], xs and xc
   [nt][kn / ab] (ab values per activation group). first: this panel starts the sums, so
   it writes y and adds the bias; later panels add. */
struct llm__lw {
    const llm__wfmt *f;
    const llm_weight *W;
    float *y;
    const float *x, *b;
    int d_in, d_out, ab;
    int t0, nt, k0, kn, first;
    size_t row_bytes; /* bytes of one stored row of W */
    int8_t *xq;
    float *xs;
    int32_t *xc;
};

/* y[t][r..r+nr) (+)= rows r..r+nr of W against every token of the panel: groups of
   LLM__WT tokens through dot4 while it takes them (they share each loaded weight), the
   rest one token at a time through dot, prefetching pf bytes ahead on the first token.
   Inlined into each format's rows routine with its kernels as constants. */
LLM__WINLINE void llm__lw_block(const llm__lw *c, int r, int nr, size_t pf,
                                void (*dot)(float *, const llm__lw *, int, int, int, size_t),
                                int (*dot4)(float *, const llm__lw *, int, int)) {
    float o[LLM__WR * LLM__WT], bias[LLM__WR] = {0};
    int t = 0, i, j;
    for (i = 0; i < nr; i++) bias[i] = c->b ? c->b[r + i] : 0.0f;
    if (nr == LLM__WR && dot4)
        for (; t + LLM__WT <= c->nt && dot4(o, c, r, t); t += LLM__WT)
            for (j = 0; j < LLM__WT; j++) {
                float *yt = c->y + (size_t)(c->t0 + t + j) * (size_t)c->d_out + r;
                for (i = 0; i < LLM__WR; i++) yt[i] = (c->first ? bias[i] : yt[i]) + o[i * LLM__WT + j];
            }
    for (; t < c->nt; t++) {
        float *yt = c->y + (size_t)(c->t0 + t) * (size_t)c->d_out + r;
        dot(o, c, r, t, nr, t == 0 ? pf : 0);
        for (i = 0; i < nr; i++) yt[i] = (c->first ? bias[i] : yt[i]) + o[i];
    }
}

/* ---- the rows of each format ---- */
static llm_status llm__check_any(const llm_weight *w, int d_in) {
    (void)w, (void)d_in;
    return LLM_OK;
}
static llm_status llm__check_q8(const llm_weight *w, int d_in) {
    return !w->scale || w->group_size <= 0 || d_in % w->group_size != 0 ? LLM_EINVAL : LLM_OK;
}
static void llm__row_f32(float *dst, const llm_weight *w, int64_t row, int n) {
    memcpy(dst, (const float *)w->data + row * n, (size_t)n * sizeof(float));
}
static void llm__row_f16(float *dst, const llm_weight *w, int64_t row, int n) {
    const uint16_t *p = (const uint16_t *)w->data + row * n;
    int j;
    for (j = 0; j < n; j++) dst[j] = llm_f16_to_f32(p[j]);
}
static void llm__row_bf16(float *dst, const llm_weight *w, int64_t row, int n) {
    const uint16_t *p = (const uint16_t *)w->data + row * n;
    int j;
    for (j = 0; j < n; j++) dst[j] = llm_bf16_to_f32(p[j]);
}
static void llm__row_q8(float *dst, const llm_weight *w, int64_t row, int n) {
    llm_dequantize_int8(dst, (const int8_t *)w->data + row * n, w->scale + row * n / w->group_size, n, w->group_size);
}
static llm_status llm__linear_f32(float *y, const float *x, const llm_weight *w, const float *b, int n_tokens, int d_in,
                                  int d_out, unsigned flags, void *scratch, size_t scratch_bytes, llm_threads *th) {
    (void)flags, (void)scratch, (void)scratch_bytes; /* fp32: the same bits for any tokens beside a row anyway */
    return llm_linear(y, x, (const float *)w->data, b, n_tokens, d_in, d_out, th);
}
/* fp16 / bf16: nr rows against token t; dot4: LLM__WR rows x LLM__WT tokens. */
static void llm__dot_f16(float *out, const llm__lw *c, int r, int t, int nr, size_t pf) {
    const uint16_t *w = (const uint16_t *)c->W->data + (size_t)r * c->d_in;
    const float *x = c->x + (size_t)(c->t0 + t) * c->d_in;
    if (nr == LLM__WR) llm__dot_h(out, w, (size_t)c->d_in, x, c->d_in, LLM__WR, 0, pf);
    else llm__dot_h(out, w, (size_t)c->d_in, x, c->d_in, 1, 0, 0);
}
static void llm__dot_bf16(float *out, const llm__lw *c, int r, int t, int nr, size_t pf) {
    const uint16_t *w = (const uint16_t *)c->W->data + (size_t)r * c->d_in;
    const float *x = c->x + (size_t)(c->t0 + t) * c->d_in;
    if (nr == LLM__WR) llm__dot_h(out, w, (size_t)c->d_in, x, c->d_in, LLM__WR, 1, pf);
    else llm__dot_h(out, w, (size_t)c->d_in, x, c->d_in, 1, 1, 0);
}
static int llm__dot4_f16(float *out, const llm__lw *c, int r, int t) {
    llm__dot_h_tok(out, (const uint16_t *)c->W->data + (size_t)r * c->d_in, (size_t)c->d_in,
                   c->x + (size_t)(c->t0 + t) * c->d_in, (size_t)c->d_in, c->d_in, 0);
    return 1;
}
static int llm__dot4_bf16(float *out, const llm__lw *c, int r, int t) {
    llm__dot_h_tok(out, (const uint16_t *)c->W->data + (size_t)r * c->d_in, (size_t)c->d_in,
                   c->x + (size_t)(c->t0 + t) * c->d_in, (size_t)c->d_in, c->d_in, 1);
    return 1;
}
/* int8 groups: the panel's activations quantized once per group, every row block reuses
   them; xc = -128 * sum(q) per group is read by the VNNI kernel only. */
static void llm__prep_q8(llm__lw *c) {
    int ng = c->kn / c->ab, t, g, i;
    for (t = 0; t < c->nt; t++)
        for (g = 0; g < ng; g++) {
            int8_t *q = c->xq + (size_t)t * c->kn + (size_t)g * c->ab;
            int32_t sum = 0;
            llm__q8_group(q, c->xs + t * ng + g, c->x + (size_t)(c->t0 + t) * c->d_in + c->k0 + (size_t)g * c->ab, c->ab);
            for (i = 0; i < c->ab; i++) sum += q[i];
            c->xc[t * ng + g] = -128 * sum;
        }
}
static void llm__dot_q8w(float *out, const llm__lw *c, int r, int t, int nr, size_t pf) {
    int gs = c->ab, ng = c->kn / gs;
    size_t ld = (size_t)c->d_in, lds = (size_t)(c->d_in / gs);
    const int8_t *w = (const int8_t *)c->W->data + (size_t)r * ld + c->k0, *xq = c->xq + (size_t)t * c->kn;
    const float *sw = c->W->scale + (size_t)r * lds + c->k0 / gs;
    if (nr == LLM__WR)
        llm__dot_q8(out, w, ld, pf, sw, lds, xq, c->xs + (size_t)t * ng, c->xc + (size_t)t * ng, c->kn, gs, LLM__WR);
    else
        llm__dot_q8(out, w, ld, 0, sw, lds, xq, c->xs + (size_t)t * ng, c->xc + (size_t)t * ng, c->kn, gs, 1);
}
#ifdef LLM__Q8_VNNI_TOK
static int llm__dot4_q8w(float *out, const llm__lw *c, int r, int t) {
    int ng = c->kn / 64;
    size_t ld = (size_t)c->d_in, lds = (size_t)(c->d_in / 64);
    if (c->ab != 64) return 0;
    llm__dot_q8_vnni_tok(out, (const int8_t *)c->W->data + (size_t)r * ld + c->k0, ld, c->W->scale + (size_t)r * lds + c->k0 / 64,
                         lds, c->xq + (size_t)t * c->kn, (size_t)c->kn, c->xs + (size_t)t * ng, c->xc + (size_t)t * ng,
                         (size_t)ng, c->kn);
    return 1;
}
#else
#define llm__dot4_q8w NULL
#endif

static void llm__rows_f16(const llm__lw *c, int r, int nr, size_t pf) { llm__lw_block(c, r, nr, pf, llm__dot_f16, llm__dot4_f16); }
static void llm__rows_bf16(const llm__lw *c, int r, int nr, size_t pf) { llm__lw_block(c, r, nr, pf, llm__dot_bf16, llm__dot4_bf16); }
static void llm__rows_q8(const llm__lw *c, int r, int nr, size_t pf) { llm__lw_block(c, r, nr, pf, llm__dot_q8w, llm__dot4_q8w); }

/* ---- ggml's block formats (Q8_0 ... Q6_K): exact dequantizers and integer dot kernels --
   The GGUF reader (>>files) finds the tensors; what the bytes of a block mean and how a
   block format multiplies is here, beside the format's row of the table below. */
static uint32_t llm__le32(const unsigned char *p); /* >>files' little-endian reader */
static const llm__wfmt *llm__wfmt_of(llm_dtype t);

/* ---- ggml's block formats, dequantized ------------------------------------------------
   One block of `block` values to floats, exactly as ggml-common.h lays the bytes out (all
   little-endian; "half" is an fp16 scale). Each value is computed from integers and the
   fp16 scales in double and rounded once, so it is the float nearest the format's exact
   value (ggml's own float expressions can differ from it by an ulp). */
static float llm__h(const unsigned char *p) { return llm_f16_to_f32((uint16_t)(p[0] | (p[1] << 8))); }

/* Q4_0: half d, 16 bytes of 4-bit q (low nibbles are values 0..15, high 16..31): d (q - 8) */
static void llm__dq_q4_0(const unsigned char *b, float *y) {
    double d = llm__h(b);
    int j;
    for (j = 0; j < 16; j++) {
        y[j] = (float)(d * ((b[2 + j] & 15) - 8));
        y[j + 16] = (float)(d * ((b[2 + j] >> 4) - 8));
    }
}
/* Q4_1: half d, half m, 16 bytes of q: d q + m */
static void llm__dq_q4_1(const unsigned char *b, float *y) {
    double d = llm__h(b), m = llm__h(b + 2);
    int j;
    for (j = 0; j < 16; j++) {
        y[j] = (float)(d * (b[4 + j] & 15) + m);
        y[j + 16] = (float)(d * (b[4 + j] >> 4) + m);
    }
}
/* Q5_0: half d, 32 high bits qh (bit j is value j's fifth bit), 16 bytes of low nibbles:
   d (q - 16). Q5_1: half d, half m, qh, nibbles: d q + m. */
LLM__WINLINE void llm__dq_q5(const unsigned char *b, float *y, int with_min) {
    double d = llm__h(b), m = with_min ? llm__h(b + 2) : 0.0;
    const unsigned char *qh = b + (with_min ? 4 : 2), *qs = qh + 4;
    uint32_t h = llm__le32(qh);
    int j, off = with_min ? 0 : 16;
    for (j = 0; j < 16; j++) {
        int q0 = (qs[j] & 15) | (int)(((h >> j) & 1u) << 4), q1 = (qs[j] >> 4) | (int)(((h >> (j + 16)) & 1u) << 4);
        y[j] = (float)(d * (q0 - off) + m);
        y[j + 16] = (float)(d * (q1 - off) + m);
    }
}
static void llm__dq_q5_0(const unsigned char *b, float *y) { llm__dq_q5(b, y, 0); }
static void llm__dq_q5_1(const unsigned char *b, float *y) { llm__dq_q5(b, y, 1); }
/* Q8_0: half d, 32 int8: d q */
static void llm__dq_q8_0(const unsigned char *b, float *y) {
    double d = llm__h(b);
    int j;
    for (j = 0; j < 32; j++) y[j] = (float)(d * (signed char)b[2 + j]);
}
/* The K-quants' 256-value super-blocks hold 8 or 16 sub-blocks with their own small scales.
   Q4_K / Q5_K pack 8 6-bit scales and 8 6-bit mins in 12 bytes: sub-blocks 0-3 in the low 6
   bits of bytes 0-3 (scales) and 4-7 (mins); 4-7 in the nibbles of bytes 8-11 with their
   top two bits in the high bits of bytes 0-7. */
LLM__WINLINE void llm__k4_scale_min(int j, const unsigned char *q, int *sc, int *mn) {
    if (j < 4) {
        *sc = q[j] & 63, *mn = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 15) | ((q[j - 4] >> 6) << 4);
        *mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}
/* Q2_K: 16 bytes of (4-bit scale | 4-bit min << 4), 64 bytes of 2-bit q, half d, half dmin:
   sub-block of 16 values: d scale q - dmin min. q's 2-bit fields go 32 bytes at a time,
   shift 0, 2, 4, 6 for the four 32-value runs. */
static void llm__dq_q2_k(const unsigned char *b, float *y) {
    const unsigned char *sc = b, *q = b + 16;
    double d = llm__h(b + 80), dmin = llm__h(b + 82);
    int n, j, l, is = 0;
    for (n = 0; n < 256; n += 128, q += 32)
        for (j = 0; j < 8; j++, is++) {
            int shift = 2 * (j / 2), half = 16 * (j % 2);
            double dl = d * (sc[is] & 15), ml = dmin * (sc[is] >> 4);
            for (l = 0; l < 16; l++) *y++ = (float)(dl * ((q[l + half] >> shift) & 3) - ml);
        }
}
/* Q3_K: 32 bytes hmask (the third bit of each q, inverted: set = no -4), 64 bytes of 2-bit
   q, 12 bytes of 16 6-bit scales (low 4 bits in bytes 0-7, top 2 bits in bytes 8-11), half d:
   d (scale - 32) (q - (hmask bit ? 0 : 4)). */
static void llm__dq_q3_k(const unsigned char *b, float *y) {
    const unsigned char *hm = b, *q = b + 32, *s = b + 96;
    double d = llm__h(b + 108);
    int sc[16], i, n, j, l, is = 0;
    for (i = 0; i < 16; i++) {
        int lo = i < 8 ? s[i] & 15 : s[i - 8] >> 4, hi = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
        sc[i] = (lo | (hi << 4)) - 32;
    }
    for (n = 0; n < 256; n += 128, q += 32)
        for (j = 0; j < 8; j++, is++) {
            int shift = 2 * (j / 2), half = 16 * (j % 2);
            double dl = d * sc[is];
            int bit = n / 32 + j / 2; /* hmask bits 0-3 serve the first 128 values, 4-7 the rest */
            for (l = 0; l < 16; l++) {
                int v = ((q[l + half] >> shift) & 3) - ((hm[l + half] >> bit) & 1 ? 0 : 4);
                *y++ = (float)(dl * v);
            }
        }
}
/* Q4_K: half d, half dmin, 12 scale/min bytes, 128 bytes of nibbles; each 64 values are a
   pair of 32-value sub-blocks (low nibbles, then high): d scale q - dmin min. */
static void llm__dq_q4_k(const unsigned char *b, float *y) {
    double d = llm__h(b), dmin = llm__h(b + 2);
    const unsigned char *q = b + 16;
    int j, l, sc, mn;
    for (j = 0; j < 8; j += 2, q += 32) {
        llm__k4_scale_min(j, b + 4, &sc, &mn);
        for (l = 0; l < 32; l++) *y++ = (float)(d * sc * (q[l] & 15) - dmin * mn);
        llm__k4_scale_min(j + 1, b + 4, &sc, &mn);
        for (l = 0; l < 32; l++) *y++ = (float)(d * sc * (q[l] >> 4) - dmin * mn);
    }
}
/* Q5_K: as Q4_K plus 32 bytes qh after the scales: bit 2k / 2k+1 of qh[l] is the fifth bit
   of value l of sub-block 2k / 2k+1. */
static void llm__dq_q5_k(const unsigned char *b, float *y) {
    double d = llm__h(b), dmin = llm__h(b + 2);
    const unsigned char *qh = b + 16, *q = b + 48;
    int j, l, sc, mn;
    for (j = 0; j < 8; j += 2, q += 32) {
        llm__k4_scale_min(j, b + 4, &sc, &mn);
        for (l = 0; l < 32; l++) *y++ = (float)(d * sc * ((q[l] & 15) | (((qh[l] >> j) & 1) << 4)) - dmin * mn);
        llm__k4_scale_min(j + 1, b + 4, &sc, &mn);
        for (l = 0; l < 32; l++) *y++ = (float)(d * sc * ((q[l] >> 4) | (((qh[l] >> (j + 1)) & 1) << 4)) - dmin * mn);
    }
}
/* Q6_K: 128 bytes of low nibbles ql, 64 bytes of 2-bit highs qh, 16 int8 scales, half d:
   d scale (q - 32), 16-value sub-blocks. Per 128 values: ql[0..63] and qh[0..31] give values
   l, l + 32 (low nibbles of ql[l], ql[l + 32]), l + 64, l + 96 (high nibbles), qh's bit pairs
   0, 2, 4, 6 the top bits. */
static void llm__dq_q6_k(const unsigned char *b, float *y) {
    const unsigned char *ql = b, *qh = b + 128;
    const signed char *sc = (const signed char *)(b + 192);
    double d = llm__h(b + 208);
    int n, l;
    for (n = 0; n < 256; n += 128, y += 128, ql += 64, qh += 32, sc += 8)
        for (l = 0; l < 32; l++) {
            int is = l / 16;
            int q1 = ((ql[l] & 15) | (((qh[l] >> 0) & 3) << 4)) - 32;
            int q2 = ((ql[l + 32] & 15) | (((qh[l] >> 2) & 3) << 4)) - 32;
            int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = (float)(d * (sc[is] * q1));
            y[l + 32] = (float)(d * (sc[is + 2] * q2));
            y[l + 64] = (float)(d * (sc[is + 4] * q3));
            y[l + 96] = (float)(d * (sc[is + 6] * q4));
        }
}

/* ---- ggml's block formats, multiplied --------------------------------------------------
   A quantized matrix times activations: the activations are quantized once per call, in
   blocks of 32 like the weights (int8 values, an fp32 scale, the sums of each half, which
   the formats with a min term need, and their negation and product with the scale, which
   the vector kernels read), so each block's dot is an integer sum and two scales.
   Per 32 values the result is dw dx sum(qw qx) (+ the min's m dx sum(qx)): the only
   rounding beyond fp32 accumulation is x's own 8-bit quantization. */
struct llm__q8x {
    float d;          /* x ~= d q */
    float ds;         /* d * sum(q): a min term's factor */
    int32_t ns;       /* -sum(q): cancels a code offset in the vector dots */
    int16_t s16[2];   /* sums of q[0..15] and q[16..31] */
    int8_t q[32];
};

/* x[n] (n a multiple of 32) into n / 32 blocks, round to nearest (ties away from zero).
   A block holding inf or NaN gets d = NaN and q = 0 (as llm__q8_group does): its products
   are NaN, as in fp32, and no NaN is converted to an int (undefined behaviour). It runs
   once per token and call, so small matrices (and the L2-resident rows of a benchmark)
   see its cost: the vector path (same operations, same bits) takes a block in a few
   vector instructions. */
#if defined(LLM__AVX512)
static inline void llm__q8x_codes(int8_t *q, llm__rv t) { _mm_storeu_si128((__m128i *)(void *)q, _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(t))); }
#elif defined(LLM__AVX2)
static inline void llm__q8x_codes(int8_t *q, llm__rv t) {
    __m256i i = _mm256_cvttps_epi32(t);
    __m128i h = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64((__m128i *)(void *)q, _mm_packs_epi16(h, h));
}
#elif defined(LLM__RV)
static inline void llm__q8x_codes(int8_t *q, llm__rv t) {
    float f[LLM__RVN];
    int j;
    llm__rv_store(f, t);
    for (j = 0; j < LLM__RVN; j++) q[j] = (int8_t)(int)f[j];
}
#endif
static void llm__q8x_quantize(const float *x, llm__q8x *out, int64_t n) {
    int64_t b;
    int j;
    for (b = 0; b < n / 32; b++, x += 32) {
        float amax = 0.0f, bad = 0.0f, id;
        int s[2] = {0, 0};
        llm__q8x *o = &out[b];
#ifdef LLM__RV
        llm__rv m = llm__rv_set1(0.0f), nan = m;
        for (j = 0; j < 32; j += LLM__RVN) {
            llm__rv v = llm__rv_load(x + j);
            m = llm__rv_max(m, llm__rv_abs(v));
            nan = llm__rv_fma(v, llm__rv_set1(0.0f), nan); /* x * 0 is NaN for inf and NaN: sticky */
        }
        amax = llm__rv_hmax(m), bad = llm__rv_hsum(nan);
#else
        for (j = 0; j < 32; j++) amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax, bad += x[j] * 0.0f;
#endif
        o->s16[0] = o->s16[1] = 0;
        o->ns = 0;
        if (bad != 0.0f || !(amax <= FLT_MAX)) { /* inf or NaN */
            o->d = o->ds = NAN;
            memset(o->q, 0, sizeof o->q);
            continue;
        }
        o->d = amax / 127.0f;
        id = amax > 0 ? 127.0f / amax : 0.0f;
        j = 0;
#ifdef LLM__RV
        if (id <= FLT_MAX) { /* (for a subnormal amax id is inf: the scalar loop's NaN rule) */
            const llm__rv vid = llm__rv_set1(id), lim = llm__rv_set1(127.0f), mlim = llm__rv_set1(-127.0f);
            const llm__rv half = llm__rv_set1(0.5f), mhalf = llm__rv_set1(-0.5f), zero = llm__rv_set1(0.0f);
            for (; j < 32; j += LLM__RVN) {
                llm__rv v = llm__rv_min(llm__rv_max(llm__rv_mul(llm__rv_load(x + j), vid), mlim), lim);
                llm__rv t = llm__rv_trunc(llm__rv_add(v, llm__rv_ge_or(v, zero, half, mhalf)));
                llm__q8x_codes(o->q + j, t);
                s[j / 16] += (int)llm__rv_hsum(t); /* small integers: exact in any order */
            }
        }
#endif
        for (; j < 32; j++) {
            /* clamped as a float: for a subnormal amax, 127 / amax is inf (and 0 * inf NaN) */
            float v = x[j] * id;
            int q;
            v = v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v == v ? v : 0.0f;
            q = (int)(v + (v >= 0 ? 0.5f : -0.5f));
            o->q[j] = (int8_t)q;
            s[j / 16] += q;
        }
        o->s16[0] = (int16_t)s[0], o->s16[1] = (int16_t)s[1];
        o->ns = -(s[0] + s[1]);
        o->ds = o->d * (float)(s[0] + s[1]);
    }
}

/* sum of a[i] b[i] over n int8 pairs */
static int32_t llm__idot(const int8_t *a, const int8_t *b, int n) {
    int32_t s = 0;
    int i;
    for (i = 0; i < n; i++) s += (int32_t)a[i] * b[i];
    return s;
}

/* One row of n values against the quantized activations, per format. Each unpacks a
   block's codes to int8 (as llm__dq_* reads them) and takes integer dots. */
static float llm__qdot_q8_0(const unsigned char *w, const llm__q8x *x, int64_t n) {
    int64_t b;
    float acc = 0.0f;
    for (b = 0; b < n / 32; b++, w += 34) acc += llm__h(w) * x[b].d * (float)llm__idot((const int8_t *)(w + 2), x[b].q, 32);
    return acc;
}
static float llm__qdot_q4_0(const unsigned char *w, const llm__q8x *x, int64_t n) {
    int64_t b;
    int j;
    int8_t q[32];
    float acc = 0.0f;
    for (b = 0; b < n / 32; b++, w += 18) {
        for (j = 0; j < 16; j++) q[j] = (int8_t)((w[2 + j] & 15) - 8), q[j + 16] = (int8_t)((w[2 + j] >> 4) - 8);
        acc += llm__h(w) * x[b].d * (float)llm__idot(q, x[b].q, 32);
    }
    return acc;
}
static float llm__qdot_q4_1(const unsigned char *w, const llm__q8x *x, int64_t n) {
    int64_t b;
    int j;
    int8_t q[32];
    float acc = 0.0f;
    for (b = 0; b < n / 32; b++, w += 20) {
        for (j = 0; j < 16; j++) q[j] = (int8_t)(w[4 + j] & 15), q[j + 16] = (int8_t)(w[4 + j] >> 4);
        acc += x[b].d * (llm__h(w) * (float)llm__idot(q, x[b].q, 32) + llm__h(w + 2) * (float)(x[b].s16[0] + x[b].s16[1]));
    }
    return acc;
}
static float llm__qdot_q5(const unsigned char *w, const llm__q8x *x, int64_t n, int with_min) {
    int64_t b;
    int j, bs = with_min ? 24 : 22, off = with_min ? 0 : 16;
    int8_t q[32];
    float acc = 0.0f;
    for (b = 0; b < n / 32; b++, w += bs) {
        const unsigned char *qh = w + (with_min ? 4 : 2), *qs = qh + 4;
        uint32_t h = llm__le32(qh);
        for (j = 0; j < 16; j++) {
            q[j] = (int8_t)(((qs[j] & 15) | (int)(((h >> j) & 1u) << 4)) - off);
            q[j + 16] = (int8_t)(((qs[j] >> 4) | (int)(((h >> (j + 16)) & 1u) << 4)) - off);
        }
        acc += x[b].d * (llm__h(w) * (float)llm__idot(q, x[b].q, 32) +
                         (with_min ? llm__h(w + 2) * (float)(x[b].s16[0] + x[b].s16[1]) : 0.0f));
    }
    return acc;
}
static float llm__qdot_q5_0(const unsigned char *w, const llm__q8x *x, int64_t n) { return llm__qdot_q5(w, x, n, 0); }
static float llm__qdot_q5_1(const unsigned char *w, const llm__q8x *x, int64_t n) { return llm__qdot_q5(w, x, n, 1); }

/* The K-quants: 256-value super-blocks of 8 activation blocks. */
static float llm__qdot_q2_k(const unsigned char *w, const llm__q8x *x, int64_t n) {
    int64_t b;
    float acc = 0.0f;
    for (b = 0; b < n / 256; b++, w += 84, x += 8) {
        const unsigned char *sc = w, *qs = w + 16;
        float d = llm__h(w + 80), dmin = llm__h(w + 82);
        int k, j, l;
        int8_t q[16];
        for (k = 0; k < 16; k++) { /* sub-block k: values 16k..16k+15 */
            int n128 = k / 8, jj = k % 8, shift = 2 * (jj / 2), half = 16 * (jj % 2);
            const llm__q8x *xb = &x[k / 2];
            for (l = 0; l < 16; l++) q[l] = (int8_t)((qs[32 * n128 + half + l] >> shift) & 3);
            j = k % 2;
            acc += xb->d * (d * (float)(sc[k] & 15) * (float)llm__idot(q, xb->q + 16 * j, 16) - dmin * (float)(sc[k] >> 4) * (float)xb->s16[j]);
        }
    }
    return acc;
}
static float llm__qdot_q3_k(const unsigned char *w, const llm__q8x *x, int64_t n) {
    int64_t b;
    float acc = 0.0f;
    for (b = 0; b < n / 256; b++, w += 110, x += 8) {
        const unsigned char *hm = w, *qs = w + 32, *s = w + 96;
        float d = llm__h(w + 108);
        int k, l;
        int8_t q[16];
        for (k = 0; k < 16; k++) {
            int n128 = k / 8, jj = k % 8, shift = 2 * (jj / 2), half = 16 * (jj % 2), bit = 4 * n128 + jj / 2;
            int lo = k < 8 ? s[k] & 15 : s[k - 8] >> 4, hi = (s[8 + k % 4] >> (2 * (k / 4))) & 3;
            const llm__q8x *xb = &x[k / 2];
            for (l = 0; l < 16; l++)
                q[l] = (int8_t)(((qs[32 * n128 + half + l] >> shift) & 3) - ((hm[half + l] >> bit) & 1 ? 0 : 4));
            acc += xb->d * d * (float)(((lo | (hi << 4)) - 32) * llm__idot(q, xb->q + 16 * (k % 2), 16));
        }
    }
    return acc;
}
static float llm__qdot_q45_k(const unsigned char *w, const llm__q8x *x, int64_t n, int five) {
    int64_t b;
    float acc = 0.0f;
    for (b = 0; b < n / 256; b++, w += five ? 176 : 144, x += 8) {
        float d = llm__h(w), dmin = llm__h(w + 2);
        const unsigned char *qh = w + 16, *qs = w + (five ? 48 : 16);
        int j, l, sc, mn;
        int8_t q[32];
        for (j = 0; j < 8; j++) { /* sub-block j = activation block j */
            const unsigned char *p = qs + 32 * (j / 2);
            for (l = 0; l < 32; l++)
                q[l] = (int8_t)(((j % 2 ? p[l] >> 4 : p[l] & 15)) | (five ? ((qh[l] >> j) & 1) << 4 : 0));
            llm__k4_scale_min(j, w + 4, &sc, &mn);
            acc += x[j].d * (d * (float)(sc * llm__idot(q, x[j].q, 32)) - dmin * (float)(mn * (x[j].s16[0] + x[j].s16[1])));
        }
    }
    return acc;
}
static float llm__qdot_q4_k(const unsigned char *w, const llm__q8x *x, int64_t n) { return llm__qdot_q45_k(w, x, n, 0); }
static float llm__qdot_q5_k(const unsigned char *w, const llm__q8x *x, int64_t n) { return llm__qdot_q45_k(w, x, n, 1); }
static float llm__qdot_q6_k(const unsigned char *w, const llm__q8x *x, int64_t n) {
    int64_t b;
    float acc = 0.0f;
    for (b = 0; b < n / 256; b++, w += 210, x += 8) {
        const unsigned char *ql = w, *qh = w + 128;
        const signed char *sc = (const signed char *)(w + 192);
        float d = llm__h(w + 208);
        int k, l;
        int8_t q[16];
        for (k = 0; k < 16; k++) { /* sub-block k: values 16k..16k+15 of the 256 */
            int half = k / 8, r = k % 8, quarter = r / 2; /* which 32 of this 128 */
            int base = 16 * (r % 2);
            const unsigned char *L = ql + 64 * half + (quarter % 2 ? 32 : 0), *H = qh + 32 * half;
            for (l = 0; l < 16; l++) {
                int i = base + l, lo = quarter < 2 ? L[i] & 15 : L[i] >> 4;
                q[l] = (int8_t)((lo | (((H[i] >> (2 * quarter)) & 3) << 4)) - 32);
            }
            acc += x[k / 2].d * d * (float)(sc[k] * llm__idot(q, x[k / 2].q + 16 * (k % 2), 16));
        }
    }
    return acc;
}

/* ---- ggml's block formats: the vector dot kernels -----------------------------------
   The same integer sums as llm__qdot_* above, 32 values at a time, on a small vocabulary
   of 32 int8 codes (llm__qb) written once per ISA in the fenced block below; the kernels
   after it are written once against it. A weight block's codes are unpacked into one
   llm__qb (nibbles split, fifth and sixth bits or'ed in), its integer dot with a block of
   x gives int32 lanes (llm__qi) whose sum is exact, and those are converted and scaled in
   fp32 once per block: acc += float(lanes) * (dw dx). Q4_K / Q5_K make their sub-block
   products eight at a time (x's scales are also kept as contiguous floats) and broadcast
   each from memory into its FMA, so a sub-block's scale costs no shuffle. Offsets in the codes (Q4_0's q - 8, Q5_0's
   q - 16, Q6_K's q - 32) are cancelled exactly in int32 by starting the lanes at -off *
   sum(qx) spread over the lanes (x's ns, s16); the mins of Q4_1 / Q5_1 / Q4_K / Q5_K are m
   * (dx sum(qx)) (x's ds), added in fp32.
   Blocking: a kernel takes nr weight rows (ldw bytes apart) against nt tokens (x blocks
   ldx apart), nr x nt independent accumulators. One token (decode): 4 rows, so four
   chains hide the FMA latency and four streams keep the memory busy. Several tokens
   (prefill chunks, batched conversations): 2 rows x 4 tokens, so each block is unpacked
   once for 4 tokens and read from memory once per panel (the rows stay in L1 across the
   panel's token groups). Every (row, token) result is the same sequence of operations in
   every tile shape, so which tile computed it (and so the thread count, and the tokens
   beside it) never changes its bits. At one token the tile asks for the next tile's
   rows (prefetch) as it reads its own. Blocks are only 2-byte aligned: every load is
   unaligned. */
/* llm__linear_q's stack: x quantized (LLM__LQ_BLOCKS blocks, d_in <= 37,440) with its
   scales again as contiguous floats: d at xd[i], d sum(q) at xd[LLM__XS_OFF + i]; 64 KiB */
#define LLM__LQ_BLOCKS 1170
#define LLM__XS_OFF LLM__LQ_BLOCKS
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
#define LLM__QV 1
#define LLM__QR 4 /* rows per tile at one token */
#define LLM__QT 4 /* tokens per tile for several */

/* The tile loops have constant trip counts; they are asked to unroll completely (gcc
   otherwise keeps the larger ones as loops, and the accumulators go to the stack). */
#if defined(__GNUC__) && !defined(__clang__)
#define LLM__UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define LLM__UNROLL _Pragma("unroll")
#else
#define LLM__UNROLL
#endif

#if defined(LLM__AVX512) || defined(LLM__AVX2)
/* -- x86: 256-bit integer code (AVX2; AVX-512 builds run it too, with VNNI's vpdpbusd
   when AVX512VNNI + AVX512VL or AVX-VNNI are compiled in). vpmaddubsw multiplies unsigned
   by signed bytes and adds pairs into int16, vpmaddwd adds pairs of those into int32;
   codes are at most 63 and |qx| <= 127, so no pair saturates. The lanes: 8 int32, lane i holding bytes 4i..4i+3. */
typedef __m256i llm__qb;
typedef __m256i llm__qi;
typedef __m256 llm__qf;
#define LLM__QL 8 /* int32 lanes */
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define LLM__QDP(c, u, s) _mm256_dpbusd_epi32((c), (u), (s))
#elif defined(__AVXVNNI__)
#define LLM__QDP(c, u, s) _mm256_dpbusd_avx_epi32((c), (u), (s))
#endif
static inline llm__qb llm__qb_load(const unsigned char *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
/* 16 bytes: low nibbles (values 0-15), then high nibbles (16-31). The bytes are broadcast
   to both halves by the load itself and the halves told apart by a blend: no lane-crossing
   insert, whose one port (5) the scale broadcasts also need. */
static inline llm__qb llm__qb_nib16(const unsigned char *p) {
    __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_and_si256(_mm256_blend_epi32(v, _mm256_srli_epi16(v, 4), 0xf0), _mm256_set1_epi8(15));
}
static inline llm__qb llm__qb_lo(llm__qb v) { return _mm256_and_si256(v, _mm256_set1_epi8(15)); }
static inline llm__qb llm__qb_hi(llm__qb v) { return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(15)); }
/* (v >> k) & 3 per byte, moved to bits 4-5: a K-quant's high bits (k even, < 8) */
static inline llm__qb llm__qb_hbits(llm__qb v, int k, int mask) {
    return _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(v, _mm_cvtsi32_si128(k)), _mm256_set1_epi8((char)mask)), 4);
}
/* 32 bits (value i's fifth bit is bit i) as bytes 16 or 0: byte i takes byte i / 8 of h,
   keeps bit i % 8, and a compare widens it */
static inline llm__qb llm__qb_bits32(uint32_t h) {
    const __m256i sel = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i v = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int)h), sel), bit);
    return _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(16));
}
/* Q4_K / Q5_K's 12 scale bytes at q (layout: llm__k4_scale_min) as floats, dsc[j] = d sc_j
   and dmn[j] = -dmin mn_j: two byte shuffles put scales 0-7 then mins 0-7 in 16 bytes, the
   low six bits (0-3) or low / high nibble (4-7) masked, the top two bits (4-7) or-ed in;
   then widened and converted 8 at a time. Reads 16 bytes: the block's codes follow. */
#define LLM__QK4_SCALES 1
static inline void llm__qk4_scales(const unsigned char *q, float d, float dmin, float *dsc, float *dmn) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
    const __m128i p = _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11));
    const __m128i t = _mm_shuffle_epi8(v, _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7));
    const __m128i low = _mm_and_si128(_mm_blend_epi16(p, _mm_srli_epi16(p, 4), 0xc0),
                                      _mm_setr_epi8(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 15, 15, 15, 15));
    const __m128i b = _mm_or_si128(low, _mm_and_si128(_mm_srli_epi16(t, 2), _mm_set1_epi8(0x30)));
    _mm256_storeu_ps(dsc, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b)), _mm256_set1_ps(d)));
    _mm256_storeu_ps(dmn, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(b, 8))), _mm256_set1_ps(-dmin)));
}
static inline llm__qb llm__qb_or(llm__qb a, llm__qb b) { return _mm256_or_si256(a, b); }
static inline llm__qb llm__qb_sub(llm__qb a, int k) { return _mm256_sub_epi8(a, _mm256_set1_epi8((char)k)); }
/* codes q (0-15) with the fifth bits h (value i's is bit i) set: with AVX-512BW the 32
   bits are a byte mask, one masked or instead of llm__qb_bits32's four steps */
static inline llm__qb llm__qb_bit5(llm__qb q, uint32_t h) {
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    return _mm256_mask_add_epi8(q, (__mmask32)h, q, _mm256_set1_epi8(16));
#else
    return llm__qb_or(q, llm__qb_bits32(h));
#endif
}
static inline llm__qi llm__qi_set1(int32_t v) { return _mm256_set1_epi32(v); }
/* c + the dot of codes u (0..127) with x, in lanes */
static inline llm__qi llm__qb_dotu(llm__qb u, const int8_t *x, llm__qi c) {
#ifdef LLM__QDP
    return LLM__QDP(c, u, _mm256_loadu_si256((const __m256i *)(const void *)x));
#else
    __m256i p = _mm256_maddubs_epi16(u, _mm256_loadu_si256((const __m256i *)(const void *)x));
    return _mm256_add_epi32(c, _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
#endif
}
/* the dot of any int8 codes w with x: |w| (at most 128, unsigned) against x with w's
   sign. (Not VNNI's w + 128 with -128 sum(x) to cancel it: the lanes would then carry
   terms of 128 sum(x) that cancel only in the final sum, and their fp32 accumulation
   loses what the result keeps: measured, 3 % more error on a Q8_0 model.) */
static inline llm__qi llm__qb_dot8(llm__qb w, const int8_t *x) {
    __m256i xv = _mm256_loadu_si256((const __m256i *)(const void *)x);
#ifdef LLM__QDP
    return LLM__QDP(_mm256_setzero_si256(), _mm256_abs_epi8(w), _mm256_sign_epi8(xv, w));
#else
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(xv, w)), _mm256_set1_epi16(1));
#endif
}

static inline llm__qf llm__qf_zero(void) { return _mm256_setzero_ps(); }
static inline llm__qf llm__qf_set1(float f) { return _mm256_set1_ps(f); }
/* dw dx in every lane: the weight's scale vector times x's scale broadcast from memory
   (a load, no shuffle); the same product, so the same bits, as the scalar dw * dx */
static inline llm__qf llm__qf_mulx(llm__qf dw, const float *dx) { return _mm256_mul_ps(dw, _mm256_broadcast_ss(dx)); }
static inline llm__qf llm__qf_fma(llm__qi s, llm__qf f, llm__qf acc) { return _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), f, acc); }
static inline float llm__qf_hsum(llm__qf a) { return llm__hsum256(a); }
/* Q6_K's 16 int8 scales of a super-block, prepared once per row: d sc_i as floats, each
   four times, so that run j's [d sc_2j x4 | d sc_2j+1 x4] is one load that matches the
   dot's lanes (values 0-15 in lanes 0-3), with no shuffle per run */
typedef struct llm__q6s {
    float f[64];
} llm__q6s;
static inline void llm__q6s_make(llm__q6s *s, const unsigned char *sc, float d) {
    const __m256 vd = _mm256_set1_ps(d);
    int h, k;
    for (h = 0; h < 2; h++) {
        __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(sc + 8 * h)))), vd);
        LLM__UNROLL
        for (k = 0; k < 4; k++)
            _mm256_storeu_ps(s->f + 32 * h + 8 * k,
                             _mm256_permutevar8x32_ps(f, _mm256_setr_epi32(2 * k, 2 * k, 2 * k, 2 * k, 2 * k + 1, 2 * k + 1, 2 * k + 1, 2 * k + 1)));
    }
}
/* The codes stay unsigned (0..63): (c - 32) . x = c . x - 32 sum(x), and the -32 sum is
   where the lanes start, -8 sum per lane over each half's four lanes (one vpmaddwd of x's
   two 16-value sums by (-8, 0) and (0, -8)), made once per x block for every row. */
typedef __m256i llm__q6c;
static inline llm__qb llm__q6_code(llm__qb c) { return c; }
static inline llm__q6c llm__q6_corr(const llm__q8x *xb) {
    int32_t s2;
    memcpy(&s2, xb->s16, 4);
    return _mm256_madd_epi16(_mm256_set1_epi32(s2), _mm256_setr_epi16(-8, 0, -8, 0, -8, 0, -8, 0, 0, -8, 0, -8, 0, -8, 0, -8));
}
/* acc + ((c - 32) . x, each 16 values times its scale) d dx */
static inline llm__qf llm__q6_fma(llm__qb c, const llm__q8x *xb, llm__q6c corr, const llm__q6s *s, int j, llm__qf acc) {
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(llm__qb_dotu(c, xb->q, corr)), _mm256_mul_ps(_mm256_loadu_ps(s->f + 8 * j), _mm256_broadcast_ss(&xb->d)), acc);
}
#ifdef __F16C__
static inline float llm__qh(const unsigned char *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}
#endif

#else
/* -- AArch64 NEON: two 16-byte halves; sdot (vdotq_s32) with the dot-product extension,
   else widening multiplies to int16 (|product| <= 16256) and pairwise widening adds.
   Codes are signed-safe as they are (at most 63), so every dot is signed. Lanes: 4. */
typedef int8x16x2_t llm__qb;
typedef int32x4_t llm__qi;
typedef int32x2_t llm__qsc; /* the two sub-block scales */
typedef float32x4_t llm__qf;
#define LLM__QL 4
static inline llm__qb llm__qb_load(const unsigned char *p) {
    llm__qb r;
    r.val[0] = vld1q_s8((const int8_t *)p), r.val[1] = vld1q_s8((const int8_t *)p + 16);
    return r;
}
static inline llm__qb llm__qb_nib16(const unsigned char *p) {
    uint8x16_t v = vld1q_u8(p);
    llm__qb r;
    r.val[0] = vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(15))), r.val[1] = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
    return r;
}
static inline llm__qb llm__qb_lo(llm__qb v) {
    llm__qb r;
    r.val[0] = vandq_s8(v.val[0], vdupq_n_s8(15)), r.val[1] = vandq_s8(v.val[1], vdupq_n_s8(15));
    return r;
}
static inline llm__qb llm__qb_hi(llm__qb v) {
    llm__qb r;
    r.val[0] = vreinterpretq_s8_u8(vshrq_n_u8(vreinterpretq_u8_s8(v.val[0]), 4));
    r.val[1] = vreinterpretq_s8_u8(vshrq_n_u8(vreinterpretq_u8_s8(v.val[1]), 4));
    return r;
}
static inline llm__qb llm__qb_hbits(llm__qb v, int k, int mask) {
    const int8x16_t sh = vdupq_n_s8((int8_t)-k);
    llm__qb r;
    int i;
    for (i = 0; i < 2; i++)
        r.val[i] = vreinterpretq_s8_u8(vshlq_n_u8(vandq_u8(vshlq_u8(vreinterpretq_u8_s8(v.val[i]), sh), vdupq_n_u8((uint8_t)mask)), 4));
    return r;
}
static inline llm__qb llm__qb_bits32(uint32_t h) {
    static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t b = vld1q_u8(bit), sixteen = vdupq_n_u8(16);
    llm__qb r;
    r.val[0] = vreinterpretq_s8_u8(vandq_u8(vtstq_u8(vcombine_u8(vdup_n_u8((uint8_t)h), vdup_n_u8((uint8_t)(h >> 8))), b), sixteen));
    r.val[1] = vreinterpretq_s8_u8(vandq_u8(vtstq_u8(vcombine_u8(vdup_n_u8((uint8_t)(h >> 16)), vdup_n_u8((uint8_t)(h >> 24))), b), sixteen));
    return r;
}
static inline llm__qb llm__qb_or(llm__qb a, llm__qb b) {
    a.val[0] = vorrq_s8(a.val[0], b.val[0]), a.val[1] = vorrq_s8(a.val[1], b.val[1]);
    return a;
}
static inline llm__qb llm__qb_sub(llm__qb a, int k) {
    a.val[0] = vsubq_s8(a.val[0], vdupq_n_s8((int8_t)k)), a.val[1] = vsubq_s8(a.val[1], vdupq_n_s8((int8_t)k));
    return a;
}
static inline llm__qb llm__qb_bit5(llm__qb q, uint32_t h) { return llm__qb_or(q, llm__qb_bits32(h)); }
static inline llm__qi llm__qi_set1(int32_t v) { return vdupq_n_s32(v); }
/* c + w . x over 16 bytes */
static inline llm__qi llm__qi_dot16(llm__qi c, int8x16_t w, int8x16_t x) {
#ifdef __ARM_FEATURE_DOTPROD
    return vdotq_s32(c, w, x);
#else
    return vpadalq_s16(vpadalq_s16(c, vmull_s8(vget_low_s8(w), vget_low_s8(x))), vmull_high_s8(w, x));
#endif
}
static inline llm__qi llm__qb_dotu(llm__qb u, const int8_t *x, llm__qi c) {
    return llm__qi_dot16(llm__qi_dot16(c, u.val[0], vld1q_s8(x)), u.val[1], vld1q_s8(x + 16));
}
static inline llm__qi llm__qb_dot8(llm__qb w, const int8_t *x) {
    return llm__qb_dotu(w, x, vdupq_n_s32(0));
}
static inline llm__qsc llm__qsc_make(int sa, int sb) { return vset_lane_s32(sb, vdup_n_s32(sa), 1); }
static inline llm__qi llm__qb_dotu_sc(llm__qb u, const int8_t *x, llm__qsc sc) {
    llm__qi a = llm__qi_dot16(vdupq_n_s32(0), u.val[0], vld1q_s8(x)), b = llm__qi_dot16(vdupq_n_s32(0), u.val[1], vld1q_s8(x + 16));
    return vmlaq_lane_s32(vmulq_lane_s32(a, sc, 0), b, sc, 1);
}
static inline llm__qi llm__qb_dots_sc(llm__qb w, const int8_t *x, llm__qsc sc) { return llm__qb_dotu_sc(w, x, sc); }
static inline llm__qf llm__qf_zero(void) { return vdupq_n_f32(0.0f); }
static inline llm__qf llm__qf_set1(float f) { return vdupq_n_f32(f); }
static inline llm__qf llm__qf_mulx(llm__qf dw, const float *dx) { return vmulq_n_f32(dw, *dx); }
static inline llm__qf llm__qf_fma(llm__qi s, llm__qf f, llm__qf acc) { return vfmaq_f32(acc, vcvtq_f32_s32(s), f); }
static inline float llm__qf_hsum(llm__qf a) { return vaddvq_f32(a); }
/* Q6_K's scales of a super-block (see the x86 group): here the int8 scales as they are,
   applied in int32 by the dot (a lane holds values of both halves of a run) */
typedef struct llm__q6s {
    const signed char *sc;
    llm__qf d;
} llm__q6s;
static inline void llm__q6s_make(llm__q6s *s, const unsigned char *sc, float d) { s->sc = (const signed char *)sc, s->d = vdupq_n_f32(d); }
typedef int llm__q6c; /* (signed codes here: no correction) */
static inline llm__qb llm__q6_code(llm__qb c) { return llm__qb_sub(c, 32); }
static inline llm__q6c llm__q6_corr(const llm__q8x *xb) { return (void)xb, 0; }
static inline llm__qf llm__q6_fma(llm__qb w, const llm__q8x *xb, llm__q6c corr, const llm__q6s *s, int j, llm__qf acc) {
    (void)corr;
    return llm__qf_fma(llm__qb_dots_sc(w, xb->q, llm__qsc_make(s->sc[2 * j], s->sc[2 * j + 1])), llm__qf_mulx(s->d, &xb->d), acc);
}
static inline float llm__qh(const unsigned char *p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
}
#endif

#ifndef __F16C__
#ifndef LLM__NEON
/* fp16 to fp32 without F16C, without branches: exponent and mantissa moved into place and
   rescaled by 2^112 (exact, subnormals included), exponent 31 (inf, NaN) set apart */
static inline float llm__qh(const unsigned char *p) {
    uint32_t h = (uint32_t)p[0] | ((uint32_t)p[1] << 8), em = (h & 0x7fffu) << 13, u;
    float f;
    memcpy(&f, &em, 4);
    f *= 5.192296858534828e33f; /* 2^112 */
    memcpy(&u, &f, 4);
    u |= (em > 0x0f7fffffu ? 0x7f800000u : 0u) | ((h & 0x8000u) << 16);
    memcpy(&f, &u, 4);
    return f;
}
#endif
#endif

/* Four floats (Q4_K / Q5_K's scale products and mins, eight sub-blocks as two halves) */
#if defined(LLM__NEON)
typedef float32x4_t llm__qf4;
static inline llm__qf4 llm__qf4_zero(void) { return vdupq_n_f32(0.0f); }
static inline llm__qf4 llm__qf4_load(const float *f) { return vld1q_f32(f); }
static inline void llm__qf4_mul_store(float *o, llm__qf4 a, const float *b) { vst1q_f32(o, vmulq_f32(a, vld1q_f32(b))); }
static inline llm__qf4 llm__qf4_fma(const float *a, const float *b, llm__qf4 c) { return vfmaq_f32(c, vld1q_f32(a), vld1q_f32(b)); }
static inline float llm__qf4_hsum(llm__qf4 a) { return vaddvq_f32(a); }
#else
typedef __m128 llm__qf4;
static inline llm__qf4 llm__qf4_zero(void) { return _mm_setzero_ps(); }
static inline llm__qf4 llm__qf4_load(const float *f) { return _mm_loadu_ps(f); }
static inline void llm__qf4_mul_store(float *o, llm__qf4 a, const float *b) { _mm_storeu_ps(o, _mm_mul_ps(a, _mm_loadu_ps(b))); }
static inline llm__qf4 llm__qf4_fma(const float *a, const float *b, llm__qf4 c) { return _mm_fmadd_ps(_mm_loadu_ps(a), _mm_loadu_ps(b), c); }
static inline float llm__qf4_hsum(llm__qf4 a) {
    a = _mm_add_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_add_ss(a, _mm_movehdup_ps(a)));
}
#endif

/* A block's fp16 scale at p in every lane. With F16C it is converted straight from an
   8-byte load (p[0..7]: every format that calls this has 6 more bytes of its block after
   the scale), which needs no move from a general register. */
static inline llm__qf llm__qf_h(const unsigned char *p) {
#if defined(__F16C__) && !defined(LLM__NEON)
    return _mm256_broadcastss_ps(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(const void *)p)));
#else
    return llm__qf_set1(llm__qh(p));
#endif
}

/* The 32-value formats: block b's codes, offset, scale (and min) */
enum { LLM__QK_Q8_0, LLM__QK_Q4_0, LLM__QK_Q5_0, LLM__QK_Q4_1, LLM__QK_Q5_1 };
static inline int llm__qk32_bytes(int fmt) { /* a block's bytes */
    return fmt == LLM__QK_Q8_0 ? 34 : fmt == LLM__QK_Q4_0 ? 18 : fmt == LLM__QK_Q5_0 ? 22 : fmt == LLM__QK_Q4_1 ? 20 : 24;
}
LLM__WINLINE void llm__qk32(float *out, const unsigned char *w, size_t ldw, const llm__q8x *x, size_t ldx, int nb,
                            const int fmt, const int nr, const int nt, size_t pf) {
    const int bytes = llm__qk32_bytes(fmt);
    const int has_min = fmt == LLM__QK_Q4_1 || fmt == LLM__QK_Q5_1;
    /* the codes' offset (q - 8, q - 16), cancelled as off / LLM__QL * -sum(qx) per lane */
    const int off = fmt == LLM__QK_Q4_0 ? 8 : fmt == LLM__QK_Q5_0 ? 16 : 0;
    llm__qf acc[LLM__QR * LLM__QT];
    float mn[LLM__QR * LLM__QT];
    int b, r, t;
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) acc[r] = llm__qf_zero(), mn[r] = 0.0f;
    for (b = 0; b < nb; b++) {
        llm__qb q[LLM__QR];
        llm__qf d[LLM__QR];
        float m[LLM__QR];
        LLM__UNROLL
        for (r = 0; r < nr; r++) {
            const unsigned char *p = w + (size_t)r * ldw + (size_t)b * (size_t)bytes;
            if (pf) LLM__PREFETCH(p + pf);
            d[r] = llm__qf_h(p), m[r] = has_min ? llm__qh(p + 2) : 0.0f;
            switch (fmt) {
            case LLM__QK_Q8_0: q[r] = llm__qb_load(p + 2); break;
            case LLM__QK_Q4_0: q[r] = llm__qb_nib16(p + 2); break;
            case LLM__QK_Q5_0: q[r] = llm__qb_bit5(llm__qb_nib16(p + 6), llm__le32(p + 2)); break;
            case LLM__QK_Q4_1: q[r] = llm__qb_nib16(p + 4); break;
            default: q[r] = llm__qb_bit5(llm__qb_nib16(p + 8), llm__le32(p + 4)); break;
            }
        }
        LLM__UNROLL
        for (t = 0; t < nt; t++) {
            const llm__q8x *xb = x + (size_t)t * ldx + b;
            LLM__UNROLL
            for (r = 0; r < nr; r++) {
                llm__qi s = fmt == LLM__QK_Q8_0 ? llm__qb_dot8(q[r], xb->q)
                                                : llm__qb_dotu(q[r], xb->q, llm__qi_set1(off / LLM__QL * xb->ns));
                acc[r * nt + t] = llm__qf_fma(s, llm__qf_mulx(d[r], &xb->d), acc[r * nt + t]);
                if (has_min) mn[r * nt + t] = fmaf(m[r], xb->ds, mn[r * nt + t]); /* fmaf: one rounding in every tile */
            }
        }
    }
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) out[r] = llm__qf_hsum(acc[r]) + mn[r];
}

#if defined(LLM__AVX512) && defined(__AVX512VBMI__) && defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__GFNI__) && \
    defined(__AVX512BITALG__)
/* The 32-value formats with AVX-512 VBMI, BITALG and GFNI: two blocks per 512-bit vector. At one
   token the 256-bit kernel above is compute-bound on them (about 12 vector operations per
   block and row against 18-34 bytes); on Intel's cores 512-bit operations issue on two
   ports instead of three, so a pair of blocks has to cost well under twice one. A row's pair costs one
   64-byte load, one byte permute (vpermb) that places both blocks' code bytes, one affine
   bit transform (gf2p8affineqb: low nibbles in the lower half, high nibbles in the upper),
   one vpdpbusd, one conversion and one FMA; everything else is loads. To that end the
   lanes alternate blocks (lane L holds values 4 (L / 2) .. + 3 of block L % 2), so a
   pair's two scales and two lane starts are one 64-bit broadcast from memory: per chunk of
   16 blocks a row's 16 fp16 scales are collected from its 8 pair loads by 7 two-vector
   byte permutes (a tree), converted and multiplied by x's once, and x's lane starts (the
   code offset, -off sum(qx)) gathered once per token. Q5_0 / Q5_1's fifth bits: the two
   blocks' 32 bits permuted into every 64-bit lane (vpermb), each code byte's bit picked
   out by vpshufbitqmb into a mask for a masked add of 16. The mins of Q4_1 /
   Q5_1 are m (dx sum(qx)), 16 blocks in one FMA. Q8_0's signed codes: two 32-byte loads
   interleaved by one vpermt2d, the sign bit flipped (code + 128, unsigned), and the lanes
   started at -128 times their own four qx (one vpdpbusd per token and pair), so the 128s
   cancel exactly in every lane (unlike a start spread evenly over the lanes, see
   llm__qb_dot8). A row's last pairs are loaded masked to its bytes (the 64 bytes would
   reach past it); an odd last block is a pair whose second block is zero on x's side,
   scale and start. Every (row, token) is the same sequence in every tile shape, as above. */
#define LLM__QZ 1
static inline __m512i llm__qz_pair(const void *p) { /* 8 bytes (a pair's two 32-bit values) in every 64-bit lane */
    long long v;
    memcpy(&v, p, 8);
    return _mm512_set1_epi64(v);
}
/* a row's blocks b, b + 1 (b alone if not two) at p: 64 bytes, masked to the pair's near the row's end */
static inline __m512i llm__qz_load(const unsigned char *p, int b, int bytes, size_t row, int two) {
    if ((size_t)b * (size_t)bytes + 64 <= row || (1 + two) * bytes >= 64) return _mm512_loadu_si512(p);
    return _mm512_maskz_loadu_epi8(((__mmask64)1 << ((1 + two) * bytes)) - 1, p);
}
/* word indices (0-63 over two vectors) as byte indices, for vpermt2b (VBMI's byte
   permute, which the codes use too) */
static inline __m512i llm__qz_wb(__m512i t) {
    const __m512i v = _mm512_slli_epi16(t, 1);
    return _mm512_add_epi16(_mm512_or_si512(v, _mm512_slli_epi16(v, 8)), _mm512_set1_epi16(0x0100));
}
LLM__WINLINE __m512i llm__qz_codes(__m512i z, __m512i idx, __m512i nib, const int five, __m512i hidx, __m512i hsel) {
    __m512i c = _mm512_gf2p8affine_epi64_epi8(_mm512_permutexvar_epi8(idx, z), nib, 0);
    if (five) c = _mm512_mask_add_epi8(c, _mm512_bitshuffle_epi64_mask(_mm512_permutexvar_epi8(hidx, z), hsel), c, _mm512_set1_epi8(16));
    return c;
}
LLM__WINLINE void llm__qk32z(float *out, const unsigned char *w, size_t ldw, const llm__q8x *x, const float *xd, size_t ldx,
                             int nb, const int fmt, const int nr, const int nt, size_t pf) {
    const int bytes = llm__qk32_bytes(fmt);
    const int five = fmt == LLM__QK_Q5_0 || fmt == LLM__QK_Q5_1, has_min = fmt == LLM__QK_Q4_1 || fmt == LLM__QK_Q5_1;
    const int q8 = fmt == LLM__QK_Q8_0;
    const int co = fmt == LLM__QK_Q4_0 ? 2 : fmt == LLM__QK_Q5_0 ? 6 : fmt == LLM__QK_Q4_1 ? 4 : 8; /* codes' offset in a block */
    const int ho = has_min ? 4 : 2;                                                                    /* fifth bits' */
    const int off = fmt == LLM__QK_Q4_0 ? 8 : fmt == LLM__QK_Q5_0 ? 16 : 0; /* cancelled in the lanes' start */
    const size_t row = (size_t)nb * (size_t)bytes;
    const float *xs = xd + LLM__XS_OFF;
    static const unsigned char iota[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                           22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                                           44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    const __m512i io = _mm512_loadu_si512(iota);
    /* byte P = 8k + 4B + j of a pair's codes: value 4k + j of block B, from its code byte
       (4k + j) % 16 (P & 3, plus 4 (k % 4) = (P >> 1) & 12) */
    const __m512i lo = _mm512_add_epi8(_mm512_add_epi8(_mm512_and_si512(io, _mm512_set1_epi8(3)), _mm512_and_si512(_mm512_srli_epi16(io, 1), _mm512_set1_epi8(12))),
                                       _mm512_set1_epi8((char)co));
    const __m512i idx = _mm512_mask_add_epi8(lo, _mm512_test_epi8_mask(io, _mm512_set1_epi8(4)), lo, _mm512_set1_epi8((char)bytes));
    /* the fifth bits: 64-bit lanes of [block b's 4 bytes | b + 1's] (byte m of a lane from
       byte ho + m % 4 of block m / 4), and byte P's bit in its lane: 32 B + 4k + j */
    const __m512i h0 = _mm512_add_epi8(_mm512_and_si512(io, _mm512_set1_epi8(3)), _mm512_set1_epi8((char)ho));
    const __m512i hidx = _mm512_mask_add_epi8(h0, _mm512_test_epi8_mask(io, _mm512_set1_epi8(4)), h0, _mm512_set1_epi8((char)bytes));
    const __m512i hsel = _mm512_add_epi8(_mm512_sub_epi8(lo, _mm512_set1_epi8((char)co)),
                                         _mm512_add_epi8(_mm512_and_si512(_mm512_srli_epi16(io, 1), _mm512_set1_epi8(0x10)),
                                                         _mm512_slli_epi16(_mm512_and_si512(io, _mm512_set1_epi8(4)), 3)));
    /* the affine bit matrices: each byte's low nibble (qwords 0-3), its high nibble (4-7) */
    const __m512i nib = _mm512_set_epi64(0x1020408000000000LL, 0x1020408000000000LL, 0x1020408000000000LL, 0x1020408000000000LL,
                                         0x0102040800000000LL, 0x0102040800000000LL, 0x0102040800000000LL, 0x0102040800000000LL);
    /* x's dwords k of blocks b and b + 1 side by side: lane L = dword L / 2 of block L % 2 */
    const __m512i il = _mm512_set_epi32(15, 7, 14, 6, 13, 5, 12, 4, 11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i il2 = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0); /* the same from two vectors */
    float sc[LLM__QR * LLM__QT][16]; /* a chunk's d dx per row and token */
    int32_t st[LLM__QT][16];         /* and lane starts per token */
    /* x block i's ns (a gather's offsets) */
    const __m512i i32 = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i gx = _mm512_mullo_epi32(i32, _mm512_set1_epi32((int)sizeof(llm__q8x)));
    /* the word permutes' indices, three rounds over the chunk's 8 pairs: from two pairs
       their blocks' d (words 0 and h = bytes / 2 of a pair) and, with mins, m (words 1 and
       h + 1); then the first 4 (8) words of two of those, then 8 (16): 16 d, or 16 (d, m) */
    const int h = bytes / 2;
    const __m512i t1 = has_min ? _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (short)(33 + h),
                                                  (short)(32 + h), 33, 32, (short)(1 + h), (short)h, 1, 0)
                               : _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                  (short)(32 + h), 32, (short)h, 0);
    const __m512i t2 = has_min ? _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 39, 38, 37, 36, 35, 34, 33, 32, 7, 6, 5, 4, 3, 2, 1, 0)
                               : _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 35, 34, 33, 32, 3, 2, 1, 0);
    const __m512i t3 = has_min ? _mm512_set_epi16(47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
                               : _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 39, 38, 37, 36, 35, 34, 33, 32, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i b1 = llm__qz_wb(t1), b2 = llm__qz_wb(t2), b3 = llm__qz_wb(t3);
    __m512 acc[LLM__QR * LLM__QT], mna[LLM__QR * LLM__QT];
    int b0, b, r, t, i;
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) acc[r] = _mm512_setzero_ps(), mna[r] = _mm512_setzero_ps();
    for (b0 = 0; b0 < nb; b0 += 16) {
        const int nc = nb - b0 < 16 ? nb - b0 : 16;
        const __mmask16 km = (__mmask16)((1u << nc) - 1);
        if (off) /* x's lane starts, off / 8 * -sum(qx) per lane (ns: 8 int32 into a struct of 48 bytes) */
            LLM__UNROLL
            for (t = 0; t < nt; t++)
                _mm512_storeu_si512(st[t], _mm512_mullo_epi32(_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), km, gx, &x[(size_t)t * ldx + (size_t)b0].ns, 1),
                                                          _mm512_set1_epi32(off / 8)));
        LLM__UNROLL
        for (r = 0; r < nr; r++) { /* the chunk's scales d dx (and the mins' m dx sum(qx)) per row and token */
            const unsigned char *p = w + (size_t)r * ldw + (size_t)b0 * (size_t)bytes;
            __m512i z[8], g;
            __m512 d, m;
            LLM__UNROLL
            for (i = 0; i < 8; i++) z[i] = 2 * i < nc ? llm__qz_load(p + (size_t)(2 * i * bytes), b0 + 2 * i, bytes, row, 2 * i + 1 < nc) : _mm512_setzero_si512();
            LLM__UNROLL
            for (i = 0; i < 4; i++) z[i] = _mm512_permutex2var_epi8(z[2 * i], b1, z[2 * i + 1]);
            LLM__UNROLL
            for (i = 0; i < 2; i++) z[i] = _mm512_permutex2var_epi8(z[2 * i], b2, z[2 * i + 1]);
            g = _mm512_permutex2var_epi8(z[0], b3, z[1]);
            d = _mm512_cvtph_ps(has_min ? _mm512_cvtepi32_epi16(g) : _mm512_castsi512_si256(g));
            m = has_min ? _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(g, 16))) : d;
            LLM__UNROLL
            for (t = 0; t < nt; t++) {
                _mm512_storeu_ps(sc[r * nt + t], _mm512_mul_ps(d, _mm512_maskz_loadu_ps(km, xd + (size_t)t * ldx + b0)));
                if (has_min) mna[r * nt + t] = _mm512_fmadd_ps(m, _mm512_maskz_loadu_ps(km, xs + (size_t)t * ldx + b0), mna[r * nt + t]);
            }
        }
        for (b = b0; b < b0 + nc; b += 2) {
            const int two = b + 1 < nb, j = b - b0;
            __m512i xq[LLM__QT], x0[LLM__QT], q[LLM__QR];
            LLM__UNROLL
            for (t = 0; t < nt; t++) {
                const llm__q8x *xa = x + (size_t)t * ldx + b;
                xq[t] = _mm512_permutexvar_epi32(il, _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)xa->q)),
                                                                        two ? _mm256_loadu_si256((const __m256i *)(const void *)xa[1].q) : _mm256_setzero_si256(), 1));
                /* Q8_0's lanes start at -128 (their four qx), cancelling the codes' + 128 exactly in each lane */
                x0[t] = q8 ? _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8((char)0x80), xq[t]))
                           : off ? llm__qz_pair(st[t] + j) : _mm512_setzero_si512();
            }
            LLM__UNROLL
            for (r = 0; r < nr; r++) {
                const unsigned char *p = w + (size_t)r * ldw + (size_t)b * (size_t)bytes;
                if (pf) LLM__PREFETCH(p + pf);
                if (q8) { /* signed codes + 128 (the flipped sign bit): unsigned for vpdpbusd */
                    const __m256i qa = _mm256_loadu_si256((const __m256i *)(const void *)(p + 2));
                    const __m256i qb = two ? _mm256_loadu_si256((const __m256i *)(const void *)(p + bytes + 2)) : _mm256_setzero_si256();
                    q[r] = _mm512_xor_si512(_mm512_permutex2var_epi32(_mm512_castsi256_si512(qa), il2, _mm512_castsi256_si512(qb)), _mm512_set1_epi8((char)0x80));
                } else
                    q[r] = llm__qz_codes(llm__qz_load(p, b, bytes, row, two), idx, nib, five, hidx, hsel);
            }
            LLM__UNROLL
            for (t = 0; t < nt; t++) {
                const __m512i s0 = x0[t];
                LLM__UNROLL
                for (r = 0; r < nr; r++) {
                    const __m512 f = _mm512_castsi512_ps(llm__qz_pair(sc[r * nt + t] + j));
                    acc[r * nt + t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(s0, q[r], xq[t])), f, acc[r * nt + t]);
                }
            }
        }
    }
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) out[r] = llm__rv_hsum(acc[r]) + (has_min ? llm__rv_hsum(mna[r]) : 0.0f);
}
#endif

/* Q4_K / Q5_K's 8 6-bit scales and 8 6-bit mins from their 12 bytes (see
   llm__k4_scale_min) as floats, dsc[j] = d sc_j and dmn[j] = -dmin mn_j, four at a time as
   32-bit words: bytes 0-3 (a) hold scales 0-3 and the top bits of scales 4-7, bytes 4-7
   (b) mins 0-3 and the top bits of mins 4-7, bytes 8-11 (c) the low nibbles of scales 4-7
   (low) and mins 4-7 (high). */
#ifndef LLM__QK4_SCALES /* (x86 has its own, in its vocabulary: shuffles instead of words) */
static inline void llm__qk4_scales(const unsigned char *q, float d, float dmin, float *dsc, float *dmn) {
    uint32_t a = llm__le32(q), b = llm__le32(q + 4), c = llm__le32(q + 8), u[4];
    const uint32_t m6 = 0x3f3f3f3fu, m4 = 0x0f0f0f0fu, m2 = 0x03030303u;
    int i;
    u[0] = a & m6, u[1] = (c & m4) | (((a >> 6) & m2) << 4);
    u[2] = b & m6, u[3] = ((c >> 4) & m4) | (((b >> 6) & m2) << 4);
    LLM__UNROLL
    for (i = 0; i < 4; i++) /* byte i of a word is sub-block i (little-endian, whatever the host) */
        dsc[i] = d * (float)((u[0] >> (8 * i)) & 255), dsc[i + 4] = d * (float)((u[1] >> (8 * i)) & 255),
        dmn[i] = -dmin * (float)((u[2] >> (8 * i)) & 255), dmn[i + 4] = -dmin * (float)((u[3] >> (8 * i)) & 255);
}
#endif

/* Q4_K / Q5_K: per 256-value super-block, d and dmin, then 8 sub-blocks of 32 (one x
   block each) with 6-bit scale and min: (codes . qx) in int32 lanes, times (d sc) dx
   (d sc is exact in fp32: 11 by 6 significant bits); the min is (-dmin mn) (dx sum qx),
   both factors exact too. The scales are decoded once per row and super-block into
   floats, so a sub-block costs its codes, one dot, one scale product and one FMA. Codes: a
   32-byte run's low nibbles are sub-block 2i, its high nibbles 2i + 1; Q5_K's fifth bit
   is bit j of qh. */
LLM__WINLINE void llm__qk_q45k(float *out, const unsigned char *w, size_t ldw, const llm__q8x *x, const float *xd, size_t ldx,
                               int nsb, const int five, const int nr, const int nt, size_t pf) {
    const int bytes = five ? 176 : 144;
    const float *xs = xd + LLM__XS_OFF;
    llm__qf acc[LLM__QR * LLM__QT];
    llm__qf4 mn[LLM__QR * LLM__QT];
    int b, r, t, j;
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) acc[r] = llm__qf_zero(), mn[r] = llm__qf4_zero();
    for (b = 0; b < nsb; b++) {
        const unsigned char *p[LLM__QR];
        float dsc[LLM__QR][8], dmn[LLM__QR][8], sc[LLM__QR * LLM__QT][8];
        LLM__UNROLL
        for (r = 0; r < nr; r++) {
            p[r] = w + (size_t)r * ldw + (size_t)b * (size_t)bytes;
            if (pf) LLM__PREFETCH(p[r] + pf), LLM__PREFETCH(p[r] + pf + 64), LLM__PREFETCH(p[r] + pf + 128);
            llm__qk4_scales(p[r] + 4, llm__qh(p[r]), llm__qh(p[r] + 2), dsc[r], dmn[r]);
            LLM__UNROLL
            for (t = 0; t < nt; t++) { /* (d sc_j) dx_j, and the mins' (-dmin mn_j) (dx_j sum(qx_j)) */
                const size_t o = (size_t)t * ldx + (size_t)b * 8;
                llm__qf4_mul_store(sc[r * nt + t], llm__qf4_load(dsc[r]), xd + o);
                llm__qf4_mul_store(sc[r * nt + t] + 4, llm__qf4_load(dsc[r] + 4), xd + o + 4);
                mn[r * nt + t] = llm__qf4_fma(dmn[r] + 4, xs + o + 4, llm__qf4_fma(dmn[r], xs + o, mn[r * nt + t]));
            }
        }
        for (j = 0; j < 8; j++) { /* (a loop: unrolled, the scales would move by shuffles instead of loads) */
            llm__qb q[LLM__QR];
            LLM__UNROLL
            for (r = 0; r < nr; r++) {
                llm__qb v = llm__qb_load(p[r] + (five ? 48 : 16) + 32 * (j / 2));
                q[r] = j % 2 ? llm__qb_hi(v) : llm__qb_lo(v);
                if (five) q[r] = llm__qb_or(q[r], llm__qb_hbits(llm__qb_load(p[r] + 16), j, 1));
            }
            LLM__UNROLL
            for (t = 0; t < nt; t++) {
                const llm__q8x *xb = x + (size_t)t * ldx + (size_t)b * 8 + j;
                LLM__UNROLL
                for (r = 0; r < nr; r++)
                    acc[r * nt + t] = llm__qf_fma(llm__qb_dotu(q[r], xb->q, llm__qi_set1(0)), llm__qf_set1(sc[r * nt + t][j]), acc[r * nt + t]);
            }
        }
    }
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) out[r] = llm__qf_hsum(acc[r]) + llm__qf4_hsum(mn[r]);
}

/* Q6_K: per super-block d and 16 int8 scales of 16 values; 32-value run j (half h = j / 4,
   quarter k = j % 4) has its low nibbles in ql[64 h + 32 (k % 2) ..] (low for k < 2, high
   otherwise) and its top two bits at bit 2k of qh[32 h ..]; q = code - 32 (llm__q6_code and
   llm__q6_fma: subtracted from the codes, or from the lanes). */
LLM__WINLINE void llm__qk_q6k(float *out, const unsigned char *w, size_t ldw, const llm__q8x *x, size_t ldx, int nsb,
                              const int nr, const int nt, size_t pf) {
    llm__qf acc[LLM__QR * LLM__QT];
    int b, r, t, h, k;
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) acc[r] = llm__qf_zero();
    for (b = 0; b < nsb; b++) {
        const unsigned char *p[LLM__QR];
        llm__q6s sc[LLM__QR];
        for (r = 0; r < nr; r++) {
            p[r] = w + (size_t)r * ldw + (size_t)b * 210;
            llm__q6s_make(&sc[r], p[r] + 192, llm__qh(p[r] + 208));
            if (pf) LLM__PREFETCH(p[r] + pf), LLM__PREFETCH(p[r] + pf + 64), LLM__PREFETCH(p[r] + pf + 128), LLM__PREFETCH(p[r] + pf + 192);
        }
        for (h = 0; h < 2; h++)
            LLM__UNROLL
            for (k = 0; k < 4; k++) { /* unrolled: the shifts are constants */
                const int j = 4 * h + k;
                llm__qb q[LLM__QR];
                LLM__UNROLL
                for (r = 0; r < nr; r++) {
                    llm__qb v = llm__qb_load(p[r] + 64 * h + 32 * (k % 2)), lo = k < 2 ? llm__qb_lo(v) : llm__qb_hi(v);
                    q[r] = llm__q6_code(llm__qb_or(lo, llm__qb_hbits(llm__qb_load(p[r] + 128 + 32 * h), 2 * k, 3)));
                }
                LLM__UNROLL
                for (t = 0; t < nt; t++) {
                    const llm__q8x *xb = x + (size_t)t * ldx + (size_t)b * 8 + j;
                    const llm__q6c corr = llm__q6_corr(xb);
                    LLM__UNROLL
                    for (r = 0; r < nr; r++) acc[r * nt + t] = llm__q6_fma(q[r], xb, corr, &sc[r], j, acc[r * nt + t]);
                }
            }
    }
    LLM__UNROLL
    for (r = 0; r < nr * nt; r++) out[r] = llm__qf_hsum(acc[r]);
}

/* Each format's tile (its row's `tile`), with the shapes llm__lq_tiles asks for made
   constants so each unrolls: LLM__QR x 1 and 1 x 1 at one token, 2 x LLM__QT and
   1 x LLM__QT for several. */
#define LLM__QTILE(name, K)                                                                                          \
    static void name(float *o, const unsigned char *w, size_t ldw, const llm__q8x *x, const float *xd, size_t ldx, int n, int nr, int nt, \
                     size_t pf) {                                                                                   \
        if (nt == 1) {                                                                                               \
            if (nr == LLM__QR) K(LLM__QR, 1);                                                                        \
            else K(1, 1);                                                                                            \
        } else if (nr == 2) K(2, LLM__QT);                                                                           \
        else K(1, LLM__QT);                                                                                          \
    }
#ifdef LLM__QZ
#define LLM__K32(F, R, T) llm__qk32z(o, w, ldw, x, xd, ldx, n / 32, F, R, T, pf)
#else
#define LLM__K32(F, R, T) ((void)xd, llm__qk32(o, w, ldw, x, ldx, n / 32, F, R, T, pf))
#endif
#define LLM__K_Q8_0(R, T) LLM__K32(LLM__QK_Q8_0, R, T)
#define LLM__K_Q4_0(R, T) LLM__K32(LLM__QK_Q4_0, R, T)
#define LLM__K_Q5_0(R, T) LLM__K32(LLM__QK_Q5_0, R, T)
#define LLM__K_Q4_1(R, T) LLM__K32(LLM__QK_Q4_1, R, T)
#define LLM__K_Q5_1(R, T) LLM__K32(LLM__QK_Q5_1, R, T)
#define LLM__K_Q4_K(R, T) llm__qk_q45k(o, w, ldw, x, xd, ldx, n / 256, 0, R, T, pf)
#define LLM__K_Q5_K(R, T) llm__qk_q45k(o, w, ldw, x, xd, ldx, n / 256, 1, R, T, pf)
#define LLM__K_Q6_K(R, T) ((void)xd, llm__qk_q6k(o, w, ldw, x, ldx, n / 256, R, T, pf))
LLM__QTILE(llm__qt_q8_0, LLM__K_Q8_0)
LLM__QTILE(llm__qt_q4_0, LLM__K_Q4_0)
LLM__QTILE(llm__qt_q5_0, LLM__K_Q5_0)
LLM__QTILE(llm__qt_q4_1, LLM__K_Q4_1)
LLM__QTILE(llm__qt_q5_1, LLM__K_Q5_1)
LLM__QTILE(llm__qt_q4_k, LLM__K_Q4_K)
LLM__QTILE(llm__qt_q5_k, LLM__K_Q5_K)
LLM__QTILE(llm__qt_q6_k, LLM__K_Q6_K)
#define LLM__QTF(tile) tile
#else
#define LLM__QTF(tile) NULL /* no vector kernels: the scalar dots */
#endif /* LLM__QV */

/* ---- ggml's block formats, many tokens of one sequence: rows in lanes ------------------
   A prefill chunk multiplies every weight row by many tokens, so the rows can be
   rearranged once for all of them: LLM__PL rows' codes of a block (16 with AVX-512, 8
   with AVX2, 4 with NEON) are transposed, and decoded to bytes, into eight vectors whose
   int32 lane i holds four consecutive codes of row i; a token's four x codes, broadcast,
   meet them in one dot instruction (vpdpbusd, vpmaddubsw + vpmaddwd, sdot: 4 products for
   each row), and a block's conversion and scaling (one cvt, one mul, one FMA) serve
   LLM__PL rows instead of one. On x86 the codes are unsigned (the dot multiplies unsigned
   by signed bytes): an offset (Q4_0's q - 8, Q5_0's q - 16, Q6_K's q - 32, and the q + 128
   that makes Q8_0's codes unsigned) is cancelled exactly by starting the int32 lanes at
   off * -sum(qx); NEON's sdot takes the signed codes as they are. The mins are
   (m) (dx sum qx) per block, as in the tiles.
   Each (token, row) sums a block in int32 and adds the blocks in fp32 in block order, so
   the thread count and the other tokens never change its bits; but the order is not the
   one-token kernels', so it runs only for LLM_LIN_PREFILL.
   Blocking: a K-chunk of LLM__PKB blocks of 32 of LLM__PL rows (at most 8 KiB of codes, in
   L1) is packed, then up to LLM__QP_TOK tokens of the panel run over it LLM__PT at a time
   (each code vector loaded once for LLM__PT tokens, their int32 and fp32 accumulators in
   registers), their sums kept per token and row across the chunks. The vocabulary below
   (transposes, nibbles, extra bits, gathers, word shifts and byte / fp16 conversions for
   the scales, the dot) is written once per ISA; the packing
   and the kernel after it once. */
#if defined(LLM__AVX512) || defined(LLM__AVX2) || (defined(LLM__NEON) && defined(__ARM_FEATURE_DOTPROD))
#define LLM__QP 1
#define LLM__PKB 16    /* blocks of 32 values per K-chunk: two K-quant super-blocks */
#define LLM__PT 8      /* tokens per register tile */
#define LLM__QP_TOK 64 /* tokens per packed chunk (their sums: at most 4 KiB of stack) */
#define LLM__QP_MIN 8  /* tokens from which llm__linear_q takes this kernel */

#if defined(LLM__AVX512) && defined(__AVX512BW__) && defined(__AVX512VNNI__)
/* -- AVX-512 (BW, VNNI): 16 rows, vpdpbusd */
#define LLM__PL 16
#define LLM__PK_UNSIGNED 1 /* codes unsigned, offsets cancelled by the lanes' start */
#define LLM__PK_U8 1       /* the dot takes codes up to 255: Q8_0's q + 128 */
typedef __m512i llm__pc;   /* codes: 4 bytes per lane */
typedef __m512i llm__pa;   /* int32 lanes */
typedef __m512 llm__pw;
typedef struct llm__pkr {
    const unsigned char *p[LLM__PL]; /* each row's chunk (a zero row for padding) */
    __m512i g;                       /* row i's offset from p[0], for the gathers */
    __mmask16 live;                  /* the real rows */
} llm__pkr;
static inline void llm__pk_rows_g(llm__pkr *r, size_t ld, int nr) {
    r->g = _mm512_mullo_epi32(_mm512_set1_epi32((int)ld), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    r->live = (__mmask16)((1u << nr) - 1u);
}
/* out[j] lane i = dword j of the 16 bytes at p[i] + o: four 4 x 4 transposes of dwords,
   one per 128-bit lane (v[a] holds rows a, a + 4, a + 8, a + 12) */
static inline void llm__pk_t16(llm__pc *out, const llm__pkr *r, size_t o) {
    __m512i v[4], t[4];
    int a;
    for (a = 0; a < 4; a++) {
        __m512i z = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)(r->p[a] + o)));
        z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(const void *)(r->p[a + 4] + o)), 1);
        z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(const void *)(r->p[a + 8] + o)), 2);
        v[a] = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(const void *)(r->p[a + 12] + o)), 3);
    }
    t[0] = _mm512_unpacklo_epi32(v[0], v[1]), t[1] = _mm512_unpackhi_epi32(v[0], v[1]);
    t[2] = _mm512_unpacklo_epi32(v[2], v[3]), t[3] = _mm512_unpackhi_epi32(v[2], v[3]);
    out[0] = _mm512_unpacklo_epi64(t[0], t[2]), out[1] = _mm512_unpackhi_epi64(t[0], t[2]);
    out[2] = _mm512_unpacklo_epi64(t[1], t[3]), out[3] = _mm512_unpackhi_epi64(t[1], t[3]);
}
/* the 32-bit words at p[i] + o of the live rows (0 for the others) */
static inline llm__pc llm__pk_words(const llm__pkr *r, size_t o) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), r->live, r->g, r->p[0] + o, 1);
}
static inline llm__pc llm__pk_lo(llm__pc v) { return _mm512_and_si512(v, _mm512_set1_epi8(15)); }
static inline llm__pc llm__pk_hi(llm__pc v) { return _mm512_and_si512(_mm512_srli_epi16(v, 4), _mm512_set1_epi8(15)); }
static inline llm__pc llm__pk_or(llm__pc a, llm__pc b) { return _mm512_or_si512(a, b); }
static inline llm__pc llm__pk_u8(llm__pc v) { return _mm512_xor_si512(v, _mm512_set1_epi8((char)0x80)); } /* q + 128 */
/* q + 16 where bit 4k + m of the lane's 32 bits h is set (byte m of the lane): byte k / 2
   of h copied to the lane's four bytes, each tested against its own bit */
static inline llm__pc llm__pk_bit5(llm__pc q, llm__pc h, int k) {
    const __m512i sel = _mm512_set4_epi32(0x0c0c0c0c, 0x08080808, 0x04040404, 0x00000000);
    __m512i b = _mm512_shuffle_epi8(h, _mm512_add_epi8(sel, _mm512_set1_epi8((char)(k / 2))));
    __mmask64 m = _mm512_test_epi8_mask(b, _mm512_set1_epi32(k % 2 ? (int)0x80402010 : 0x08040201));
    return _mm512_mask_add_epi8(q, m, q, _mm512_set1_epi8(16));
}
/* q + 16 where the byte of h has bit `bit` */
static inline llm__pc llm__pk_bitb(llm__pc q, llm__pc h, int bit) {
    return _mm512_mask_add_epi8(q, _mm512_test_epi8_mask(h, _mm512_set1_epi8((char)bit)), q, _mm512_set1_epi8(16));
}
/* ((u >> s) & 3) << 4 per byte: Q6_K's top bits */
static inline llm__pc llm__pk_top2(llm__pc u, int s) {
    return _mm512_slli_epi16(_mm512_and_si512(_mm512_srli_epi16(u, (unsigned)s), _mm512_set1_epi8(3)), 4);
}
/* on the codes' 32-bit lanes (a row's four bytes): and, shifts; byte e as a float
   (sign-extended or not), the fp16 in the low or high half as a float: the K-quants'
   scales decoded for all the rows at once */
static inline llm__pc llm__pk_andw(llm__pc v, uint32_t m) { return _mm512_and_si512(v, _mm512_set1_epi32((int)m)); }
static inline llm__pc llm__pk_shrw(llm__pc v, int n) { return _mm512_srli_epi32(v, (unsigned)n); }
static inline llm__pc llm__pk_shlw(llm__pc v, int n) { return _mm512_slli_epi32(v, (unsigned)n); }
static inline llm__pw llm__pk_bytef(llm__pc v, int e, int sgn) {
    return _mm512_cvtepi32_ps(sgn ? _mm512_srai_epi32(_mm512_slli_epi32(v, (unsigned)(24 - 8 * e)), 24)
                                  : _mm512_and_si512(_mm512_srli_epi32(v, (unsigned)(8 * e)), _mm512_set1_epi32(255)));
}
static inline llm__pw llm__pk_halff(llm__pc v, int hi) { return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(hi ? _mm512_srli_epi32(v, 16) : v)); }
static inline llm__pa llm__pa_set1(int32_t v) { return _mm512_set1_epi32(v); }
static inline llm__pa llm__pa_dot(llm__pa a, llm__pc q, int32_t x4) { return _mm512_dpbusd_epi32(a, q, _mm512_set1_epi32(x4)); }
static inline llm__pw llm__pw_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void llm__pw_store(float *p, llm__pw v) { _mm512_storeu_ps(p, v); }
static inline llm__pw llm__pw_mul(llm__pw a, llm__pw b) { return _mm512_mul_ps(a, b); }
static inline llm__pw llm__pw_set1(float v) { return _mm512_set1_ps(v); }
/* y + float(a) (s dx) and y + m (dx sum qx) */
static inline llm__pw llm__pw_acc(llm__pw y, llm__pa a, llm__pw s, float dx) {
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(a), _mm512_mul_ps(s, _mm512_set1_ps(dx)), y);
}
static inline llm__pw llm__pw_min(llm__pw y, llm__pw m, float ds) { return _mm512_fmadd_ps(m, _mm512_set1_ps(ds), y); }

#elif defined(LLM__AVX2) || defined(LLM__AVX512)
/* -- AVX2 (and AVX-512 without BW / VNNI): 8 rows, vpdpbusd with AVX-VNNI or AVX512VL
   VNNI, else vpmaddubsw + vpmaddwd (codes at most 63 against |qx| <= 127: no pair
   saturates; so Q8_0, whose q + 128 would, keeps the tiles there) */
#define LLM__PL 8
#define LLM__PK_UNSIGNED 1
#if defined(LLM__QDP)
#define LLM__PK_U8 1
#endif
typedef __m256i llm__pc;
typedef __m256i llm__pa;
typedef __m256 llm__pw;
typedef struct llm__pkr {
    const unsigned char *p[LLM__PL];
    __m256i g;
    __m256i live; /* all ones in the real rows' lanes */
} llm__pkr;
static inline void llm__pk_rows_g(llm__pkr *r, size_t ld, int nr) {
    const __m256i i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    r->g = _mm256_mullo_epi32(_mm256_set1_epi32((int)ld), i);
    r->live = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), i);
}
static inline void llm__pk_t16(llm__pc *out, const llm__pkr *r, size_t o) { /* (as AVX-512's, two 128-bit lanes) */
    __m256i v[4], t[4];
    int a;
    for (a = 0; a < 4; a++)
        v[a] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(r->p[a] + o))),
                                       _mm_loadu_si128((const __m128i *)(const void *)(r->p[a + 4] + o)), 1);
    t[0] = _mm256_unpacklo_epi32(v[0], v[1]), t[1] = _mm256_unpackhi_epi32(v[0], v[1]);
    t[2] = _mm256_unpacklo_epi32(v[2], v[3]), t[3] = _mm256_unpackhi_epi32(v[2], v[3]);
    out[0] = _mm256_unpacklo_epi64(t[0], t[2]), out[1] = _mm256_unpackhi_epi64(t[0], t[2]);
    out[2] = _mm256_unpacklo_epi64(t[1], t[3]), out[3] = _mm256_unpackhi_epi64(t[1], t[3]);
}
static inline llm__pc llm__pk_words(const llm__pkr *r, size_t o) {
    return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int *)(const void *)(r->p[0] + o), r->g, r->live, 1);
}
static inline llm__pc llm__pk_lo(llm__pc v) { return _mm256_and_si256(v, _mm256_set1_epi8(15)); }
static inline llm__pc llm__pk_hi(llm__pc v) { return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(15)); }
static inline llm__pc llm__pk_or(llm__pc a, llm__pc b) { return _mm256_or_si256(a, b); }
static inline llm__pc llm__pk_u8(llm__pc v) { return _mm256_xor_si256(v, _mm256_set1_epi8((char)0x80)); }
static inline llm__pc llm__pk_bitb(llm__pc q, llm__pc h, int bit) {
    const __m256i b = _mm256_set1_epi8((char)bit);
    return _mm256_or_si256(q, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(h, b), b), _mm256_set1_epi8(16)));
}
static inline llm__pc llm__pk_bit5(llm__pc q, llm__pc h, int k) {
    const __m256i sel = _mm256_setr_epi32(0, 0x04040404, 0x08080808, 0x0c0c0c0c, 0, 0x04040404, 0x08080808, 0x0c0c0c0c);
    const __m256i bit = _mm256_set1_epi32(k % 2 ? (int)0x80402010 : 0x08040201);
    const __m256i b = _mm256_and_si256(_mm256_shuffle_epi8(h, _mm256_add_epi8(sel, _mm256_set1_epi8((char)(k / 2)))), bit);
    return _mm256_or_si256(q, _mm256_and_si256(_mm256_cmpeq_epi8(b, bit), _mm256_set1_epi8(16)));
}
static inline llm__pc llm__pk_top2(llm__pc u, int s) {
    return _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(u, _mm_cvtsi32_si128(s)), _mm256_set1_epi8(3)), 4);
}
static inline llm__pc llm__pk_andw(llm__pc v, uint32_t m) { return _mm256_and_si256(v, _mm256_set1_epi32((int)m)); }
static inline llm__pc llm__pk_shrw(llm__pc v, int n) { return _mm256_srl_epi32(v, _mm_cvtsi32_si128(n)); }
static inline llm__pc llm__pk_shlw(llm__pc v, int n) { return _mm256_sll_epi32(v, _mm_cvtsi32_si128(n)); }
static inline llm__pw llm__pk_bytef(llm__pc v, int e, int sgn) {
    return _mm256_cvtepi32_ps(sgn ? _mm256_srai_epi32(llm__pk_shlw(v, 24 - 8 * e), 24) : llm__pk_andw(llm__pk_shrw(v, 8 * e), 255));
}
static inline llm__pw llm__pk_halff(llm__pc v, int hi) {
    const __m256i h = hi ? _mm256_srli_epi32(v, 16) : _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
#ifdef __F16C__
    return _mm256_cvtph_ps(_mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(h, h), 0x08)));
#else
    uint32_t w[8];
    float f[8];
    int i;
    _mm256_storeu_si256((__m256i *)(void *)w, h);
    for (i = 0; i < 8; i++) f[i] = llm_f16_to_f32((uint16_t)w[i]);
    return _mm256_loadu_ps(f);
#endif
}
static inline llm__pa llm__pa_set1(int32_t v) { return _mm256_set1_epi32(v); }
static inline llm__pa llm__pa_dot(llm__pa a, llm__pc q, int32_t x4) {
#ifdef LLM__QDP
    return LLM__QDP(a, q, _mm256_set1_epi32(x4));
#else
    return _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_maddubs_epi16(q, _mm256_set1_epi32(x4)), _mm256_set1_epi16(1)));
#endif
}
static inline llm__pw llm__pw_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void llm__pw_store(float *p, llm__pw v) { _mm256_storeu_ps(p, v); }
static inline llm__pw llm__pw_mul(llm__pw a, llm__pw b) { return _mm256_mul_ps(a, b); }
static inline llm__pw llm__pw_set1(float v) { return _mm256_set1_ps(v); }
static inline llm__pw llm__pw_acc(llm__pw y, llm__pa a, llm__pw s, float dx) {
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(a), _mm256_mul_ps(s, _mm256_set1_ps(dx)), y);
}
static inline llm__pw llm__pw_min(llm__pw y, llm__pw m, float ds) { return _mm256_fmadd_ps(m, _mm256_set1_ps(ds), y); }

#else
/* -- NEON with the dot product extension: 4 rows, sdot on the signed codes */
#define LLM__PL 4
#define LLM__PK_UNSIGNED 0
#define LLM__PK_U8 1
typedef uint8x16_t llm__pc;
typedef int32x4_t llm__pa;
typedef float32x4_t llm__pw;
typedef struct llm__pkr {
    const unsigned char *p[LLM__PL];
} llm__pkr;
static inline void llm__pk_rows_g(llm__pkr *r, size_t ld, int nr) { (void)r, (void)ld, (void)nr; }
static inline void llm__pk_t16(llm__pc *out, const llm__pkr *r, size_t o) { /* one 4 x 4 transpose of dwords */
    uint32x4x2_t a = vtrnq_u32(vreinterpretq_u32_u8(vld1q_u8(r->p[0] + o)), vreinterpretq_u32_u8(vld1q_u8(r->p[1] + o)));
    uint32x4x2_t b = vtrnq_u32(vreinterpretq_u32_u8(vld1q_u8(r->p[2] + o)), vreinterpretq_u32_u8(vld1q_u8(r->p[3] + o)));
    out[0] = vreinterpretq_u8_u32(vcombine_u32(vget_low_u32(a.val[0]), vget_low_u32(b.val[0])));
    out[1] = vreinterpretq_u8_u32(vcombine_u32(vget_low_u32(a.val[1]), vget_low_u32(b.val[1])));
    out[2] = vreinterpretq_u8_u32(vcombine_u32(vget_high_u32(a.val[0]), vget_high_u32(b.val[0])));
    out[3] = vreinterpretq_u8_u32(vcombine_u32(vget_high_u32(a.val[1]), vget_high_u32(b.val[1])));
}
static inline llm__pc llm__pk_words(const llm__pkr *r, size_t o) {
    uint32_t w[LLM__PL];
    int i;
    for (i = 0; i < LLM__PL; i++) w[i] = llm__le32(r->p[i] + o);
    return vreinterpretq_u8_u32(vld1q_u32(w));
}
static inline llm__pc llm__pk_lo(llm__pc v) { return vandq_u8(v, vdupq_n_u8(15)); }
static inline llm__pc llm__pk_hi(llm__pc v) { return vshrq_n_u8(v, 4); }
static inline llm__pc llm__pk_or(llm__pc a, llm__pc b) { return vorrq_u8(a, b); }
static inline llm__pc llm__pk_u8(llm__pc v) { return v; } /* (signed codes: Q8_0's as they are) */
static inline llm__pc llm__pk_bitb(llm__pc q, llm__pc h, int bit) {
    return vorrq_u8(q, vandq_u8(vtstq_u8(h, vdupq_n_u8((uint8_t)bit)), vdupq_n_u8(16)));
}
static inline llm__pc llm__pk_bit5(llm__pc q, llm__pc h, int k) {
    static const uint8_t sel[16] = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12};
    const uint8x16_t b = vqtbl1q_u8(h, vaddq_u8(vld1q_u8(sel), vdupq_n_u8((uint8_t)(k / 2))));
    const uint8x16_t bit = vreinterpretq_u8_u32(vdupq_n_u32(k % 2 ? 0x80402010u : 0x08040201u));
    return vorrq_u8(q, vandq_u8(vtstq_u8(b, bit), vdupq_n_u8(16)));
}
static inline llm__pc llm__pk_top2(llm__pc u, int s) {
    return vshlq_n_u8(vandq_u8(vshlq_u8(u, vdupq_n_s8((int8_t)-s)), vdupq_n_u8(3)), 4);
}
static inline llm__pc llm__pk_andw(llm__pc v, uint32_t m) { return vreinterpretq_u8_u32(vandq_u32(vreinterpretq_u32_u8(v), vdupq_n_u32(m))); }
static inline llm__pc llm__pk_shrw(llm__pc v, int n) { return vreinterpretq_u8_u32(vshlq_u32(vreinterpretq_u32_u8(v), vdupq_n_s32(-n))); }
static inline llm__pc llm__pk_shlw(llm__pc v, int n) { return vreinterpretq_u8_u32(vshlq_u32(vreinterpretq_u32_u8(v), vdupq_n_s32(n))); }
static inline llm__pw llm__pk_bytef(llm__pc v, int e, int sgn) {
    const int32x4_t w = vreinterpretq_s32_u8(v);
    return sgn ? vcvtq_f32_s32(vshlq_s32(vshlq_s32(w, vdupq_n_s32(24 - 8 * e)), vdupq_n_s32(-24)))
               : vcvtq_f32_u32(vreinterpretq_u32_u8(llm__pk_andw(llm__pk_shrw(v, 8 * e), 255)));
}
static inline llm__pw llm__pk_halff(llm__pc v, int hi) {
    uint32_t w[4];
    float f[4];
    int i;
    vst1q_u32(w, vreinterpretq_u32_u8(llm__pk_shrw(v, hi ? 16 : 0)));
    for (i = 0; i < 4; i++) f[i] = llm_f16_to_f32((uint16_t)w[i]);
    return vld1q_f32(f);
}
static inline llm__pa llm__pa_set1(int32_t v) { return vdupq_n_s32(v); }
static inline llm__pa llm__pa_dot(llm__pa a, llm__pc q, int32_t x4) {
    return vdotq_s32(a, vreinterpretq_s8_u8(q), vreinterpretq_s8_s32(vdupq_n_s32(x4)));
}
static inline llm__pw llm__pw_load(const float *p) { return vld1q_f32(p); }
static inline void llm__pw_store(float *p, llm__pw v) { vst1q_f32(p, v); }
static inline llm__pw llm__pw_mul(llm__pw a, llm__pw b) { return vmulq_f32(a, b); }
static inline llm__pw llm__pw_set1(float v) { return vdupq_n_f32(v); }
static inline llm__pw llm__pw_acc(llm__pw y, llm__pa a, llm__pw s, float dx) { return vfmaq_f32(y, vcvtq_f32_s32(a), vmulq_n_f32(s, dx)); }
static inline llm__pw llm__pw_min(llm__pw y, llm__pw m, float ds) { return vfmaq_n_f32(y, m, ds); }
#endif

typedef struct llm__qpk { /* LLM__PL rows of a K-chunk, packed */
    llm__pc q[LLM__PKB][8];           /* q[b][k] lane i: row i's codes 4k..4k+3 of block b */
    float sc[LLM__PKB][2][LLM__PL];   /* the rows' scale per block (Q6_K: per 16 values) */
    float mn[LLM__PKB][LLM__PL];      /* the min's factor, formats with one */
} llm__qpk;
typedef struct llm__qpf {
    void (*pack)(llm__qpk *k, const llm__pkr *r, int nb); /* nb blocks of 32 from the rows' chunks */
    int off;     /* the codes' offset: Q4_0's 8 ... (Q8_0: 128, the unsigned form's) */
    int halves;  /* 2: a scale per 16 values */
    int has_min; /* mn used */
} llm__qpf;
/* dst[i] = the fp16 at p[i] + o, as a float (a block's scale or min, every row at once) */
static inline void llm__pk_halves(float *dst, const llm__pkr *r, size_t o) { llm__pw_store(dst, llm__pk_halff(llm__pk_words(r, o), 0)); }
/* the codes as the dot takes them: unsigned with the lanes cancelling off (x86), or
   signed (NEON) */
static inline llm__pc llm__pk_code(llm__pc v, int off) {
#if LLM__PK_UNSIGNED
    return off == 128 ? llm__pk_u8(v) : v;
#else
    return off == 128 || off == 0 ? v : vreinterpretq_u8_s8(vsubq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8((int8_t)off)));
#endif
}

/* The 32-value formats: nibbles (and fifth bits) or bytes, one fp16 scale (and min) */
LLM__WINLINE void llm__qp_pack32(llm__qpk *k, const llm__pkr *r, int nb, const int fmt) {
    const int bytes = llm__qk32_bytes(fmt);
    const int qs = fmt == LLM__QK_Q8_0 || fmt == LLM__QK_Q4_0 ? 2 : fmt == LLM__QK_Q4_1 ? 4 : fmt == LLM__QK_Q5_0 ? 6 : 8;
    const int off = fmt == LLM__QK_Q8_0 ? 128 : fmt == LLM__QK_Q4_0 ? 8 : fmt == LLM__QK_Q5_0 ? 16 : 0;
    int b, j;
    for (b = 0; b < nb; b++) {
        const size_t o = (size_t)b * (size_t)bytes;
        llm__pc t[8];
        llm__pk_halves(k->sc[b][0], r, o);
        if (fmt == LLM__QK_Q4_1 || fmt == LLM__QK_Q5_1) llm__pk_halves(k->mn[b], r, o + 2);
        llm__pk_t16(t, r, o + (size_t)qs);
        if (fmt == LLM__QK_Q8_0) {
            llm__pk_t16(t + 4, r, o + 18);
            for (j = 0; j < 8; j++) k->q[b][j] = llm__pk_code(t[j], 128);
            continue;
        }
        for (j = 0; j < 4; j++) k->q[b][j] = llm__pk_lo(t[j]), k->q[b][j + 4] = llm__pk_hi(t[j]);
        if (fmt == LLM__QK_Q5_0 || fmt == LLM__QK_Q5_1) {
            const llm__pc h = llm__pk_words(r, o + (fmt == LLM__QK_Q5_0 ? 2 : 4));
            for (j = 0; j < 8; j++) k->q[b][j] = llm__pk_bit5(k->q[b][j], h, j);
        }
        for (j = 0; j < 8; j++) k->q[b][j] = llm__pk_code(k->q[b][j], off);
    }
}
static void llm__qp_pack_q4_0(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack32(k, r, nb, LLM__QK_Q4_0); }
static void llm__qp_pack_q4_1(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack32(k, r, nb, LLM__QK_Q4_1); }
static void llm__qp_pack_q5_0(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack32(k, r, nb, LLM__QK_Q5_0); }
static void llm__qp_pack_q5_1(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack32(k, r, nb, LLM__QK_Q5_1); }

/* Q4_K / Q5_K (layout: llm__qk_q45k): a 32-byte run's low nibbles are sub-block 2i, its
   high ones 2i + 1; Q5_K's fifth bit of value l in sub-block j is bit j of qh[l] */
LLM__WINLINE void llm__qp_pack45k(llm__qpk *k, const llm__pkr *r, int nb, const int five) {
    const int bytes = five ? 176 : 144;
    int s, i, j;
    for (s = 0; s < nb / 8; s++) {
        const size_t o = (size_t)s * (size_t)bytes;
        llm__pc h[8];
        if (five) llm__pk_t16(h, r, o + 16), llm__pk_t16(h + 4, r, o + 32);
        for (i = 0; i < 4; i++) {
            llm__pc t[8];
            llm__pk_t16(t, r, o + (five ? 48 : 16) + 32 * (size_t)i), llm__pk_t16(t + 4, r, o + (five ? 64 : 32) + 32 * (size_t)i);
            for (j = 0; j < 8; j++) {
                llm__pc a = llm__pk_lo(t[j]), b = llm__pk_hi(t[j]);
                if (five) a = llm__pk_bitb(a, h[j], 1 << (2 * i)), b = llm__pk_bitb(b, h[j], 2 << (2 * i));
                k->q[8 * s + 2 * i][j] = a, k->q[8 * s + 2 * i + 1][j] = b;
            }
        }
        { /* every row's d, dmin and 12 scale bytes as four words (llm__qk4_scales' a, b, c), decoded in the lanes */
            llm__pc t[4], u[4];
            llm__pw d, dm;
            llm__pk_t16(t, r, o);
            d = llm__pk_halff(t[0], 0), dm = llm__pw_mul(llm__pk_halff(t[0], 1), llm__pw_set1(-1.0f)); /* -dmin */
            u[0] = llm__pk_andw(t[1], 0x3f3f3f3fu), u[2] = llm__pk_andw(t[2], 0x3f3f3f3fu);
            u[1] = llm__pk_or(llm__pk_andw(t[3], 0x0f0f0f0fu), llm__pk_shlw(llm__pk_andw(llm__pk_shrw(t[1], 6), 0x03030303u), 4));
            u[3] = llm__pk_or(llm__pk_andw(llm__pk_shrw(t[3], 4), 0x0f0f0f0fu), llm__pk_shlw(llm__pk_andw(llm__pk_shrw(t[2], 6), 0x03030303u), 4));
            for (j = 0; j < 8; j++) {
                llm__pw_store(k->sc[8 * s + j][0], llm__pw_mul(d, llm__pk_bytef(u[j / 4], j % 4, 0)));
                llm__pw_store(k->mn[8 * s + j], llm__pw_mul(dm, llm__pk_bytef(u[2 + j / 4], j % 4, 0)));
            }
        }
    }
}
static void llm__qp_pack_q4_k(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack45k(k, r, nb, 0); }
static void llm__qp_pack_q5_k(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack45k(k, r, nb, 1); }
/* Q6_K (layout: llm__qk_q6k): block j = 4 h + q takes the low (q < 2) or high nibbles of
   ql's run 2 h + q % 2 and bits 2q, 2q + 1 of qh's run h; a scale per 16 values */
static void llm__qp_pack_q6_k(llm__qpk *k, const llm__pkr *r, int nb) {
    int s, h, g, q, j;
    for (s = 0; s < nb / 8; s++) {
        const size_t o = (size_t)s * 210;
        for (h = 0; h < 2; h++)
            for (g = 0; g < 2; g++) { /* code vectors 4 g .. 4 g + 3 of blocks 4 h .. 4 h + 3: 12 registers in, 16 out */
                llm__pc l[2][4], u[4];
                llm__pk_t16(u, r, o + 128 + 32 * (size_t)h + 16 * (size_t)g);
                llm__pk_t16(l[0], r, o + 64 * (size_t)h + 16 * (size_t)g), llm__pk_t16(l[1], r, o + 64 * (size_t)h + 32 + 16 * (size_t)g);
                LLM__UNROLL
                for (j = 0; j < 4; j++) {
                    LLM__UNROLL
                    for (q = 0; q < 4; q++) {
                        const llm__pc lo = q < 2 ? llm__pk_lo(l[q % 2][j]) : llm__pk_hi(l[q % 2][j]);
                        k->q[8 * s + 4 * h + q][4 * g + j] = llm__pk_code(llm__pk_or(lo, llm__pk_top2(u[j], 2 * q)), 32);
                    }
                }
            }
        { /* every row's 16 scales d sc_j into sc[8 s + j / 2][j % 2], decoded in the lanes (d: the word ending the block) */
            llm__pc t[4];
            llm__pw d;
            llm__pk_t16(t, r, o + 192);
            d = llm__pk_halff(llm__pk_words(r, o + 206), 1);
            for (j = 0; j < 16; j++) llm__pw_store(k->sc[8 * s + j / 2][j % 2], llm__pw_mul(d, llm__pk_bytef(t[j / 4], j % 4, 1)));
        }
    }
}
#ifdef LLM__PK_U8
static void llm__qp_pack_q8_0(llm__qpk *k, const llm__pkr *r, int nb) { llm__qp_pack32(k, r, nb, LLM__QK_Q8_0); }
static const llm__qpf llm__qp_q8_0 = {llm__qp_pack_q8_0, 128, 1, 0};
#define LLM__QPF8(f) (&(f))
#else
#define LLM__QPF8(f) NULL /* (vpmaddubsw would saturate on q + 128: the tiles) */
#endif
static const llm__qpf llm__qp_q4_0 = {llm__qp_pack_q4_0, 8, 1, 0};
static const llm__qpf llm__qp_q4_1 = {llm__qp_pack_q4_1, 0, 1, 1};
static const llm__qpf llm__qp_q5_0 = {llm__qp_pack_q5_0, 16, 1, 0};
static const llm__qpf llm__qp_q5_1 = {llm__qp_pack_q5_1, 0, 1, 1};
static const llm__qpf llm__qp_q4_k = {llm__qp_pack_q4_k, 0, 1, 1};
static const llm__qpf llm__qp_q5_k = {llm__qp_pack_q5_k, 0, 1, 1};
static const llm__qpf llm__qp_q6_k = {llm__qp_pack_q6_k, 32, 2, 0};
#define LLM__QPF(f) (&(f))

/* acc[t][LLM__PL] += the packed rows' dots with nt tokens' blocks x[b ldb + t] (b < nb):
   x is laid out block by block, the tokens of a block side by side, so one pointer and
   constant offsets reach every token's codes; their scales at xd[b ldb + t], d sum(q) at
   xs[b ldb + t] and, on x86, the lanes' starting values (off * -sum(qx), per half for
   Q6_K) at xc[2 (b ldb + t) + h] */
static inline int32_t llm__qp_x4(const int8_t *q) {
    int32_t v;
    memcpy(&v, q, 4);
    return v;
}
LLM__WINLINE void llm__qp_run(float *acc, const llm__qpk *k, const llm__q8x *x, const float *xd, const float *xs, const int32_t *xc,
                              size_t ldb, int nb, const int halves, const int has_min, const int nt) {
    const int nj = halves == 2 ? 4 : 8; /* code vectors per half */
    llm__pw y[LLM__PT];
    int b, t, h, j;
    LLM__UNROLL
    for (t = 0; t < nt; t++) y[t] = llm__pw_load(acc + LLM__PL * t);
    for (b = 0; b < nb; b++, x += ldb, xd += ldb, xs += ldb, xc += 2 * ldb) {
        LLM__UNROLL
        for (h = 0; h < halves; h++) {
            const llm__pw s = llm__pw_load(k->sc[b][h]);
            llm__pa a[LLM__PT];
            LLM__UNROLL
            for (t = 0; t < nt; t++) a[t] = llm__pa_set1(LLM__PK_UNSIGNED ? xc[2 * t + h] : 0);
            LLM__UNROLL
            for (j = 0; j < nj; j++) { /* codes 4 (4 h + j) .. of the block */
                const llm__pc q = k->q[b][4 * h + j];
                LLM__UNROLL
                for (t = 0; t < nt; t++) a[t] = llm__pa_dot(a[t], q, llm__qp_x4(x[t].q + 4 * (4 * h + j)));
            }
            LLM__UNROLL
            for (t = 0; t < nt; t++) y[t] = llm__pw_acc(y[t], a[t], s, xd[t]);
        }
        if (has_min) {
            const llm__pw m = llm__pw_load(k->mn[b]);
            LLM__UNROLL
            for (t = 0; t < nt; t++) y[t] = llm__pw_min(y[t], m, xs[t]);
        }
    }
    LLM__UNROLL
    for (t = 0; t < nt; t++) llm__pw_store(acc + LLM__PL * t, y[t]);
}
/* the shapes: LLM__PT tokens, then 4, 2, 1 for the rest */
#define LLM__QP_RUNS(name, H, M)                                                                                   \
    static void name(float *acc, const llm__qpk *k, const llm__q8x *x, const float *xd, const float *xs, const int32_t *xc,   \
                     size_t ldb, int nb, int nt) {                                                                     \
        int n;                                                                                                         \
        for (; nt > 0; nt -= n, acc += LLM__PL * n, x += n, xd += n, xs += n, xc += 2 * n) {                           \
            n = nt >= LLM__PT ? LLM__PT : nt >= 4 ? 4 : nt >= 2 ? 2 : 1;                                               \
            if (n == LLM__PT) llm__qp_run(acc, k, x, xd, xs, xc, ldb, nb, H, M, LLM__PT);                              \
            else if (n == 4) llm__qp_run(acc, k, x, xd, xs, xc, ldb, nb, H, M, 4);                                      \
            else if (n == 2) llm__qp_run(acc, k, x, xd, xs, xc, ldb, nb, H, M, 2);                                      \
            else llm__qp_run(acc, k, x, xd, xs, xc, ldb, nb, H, M, 1);                                                  \
        }                                                                                                              \
    }
LLM__QP_RUNS(llm__qp_run1, 1, 0)
LLM__QP_RUNS(llm__qp_run1m, 1, 1)
LLM__QP_RUNS(llm__qp_run2, 2, 0)
#else
#define LLM__QPF(f) NULL
#define LLM__QPF8(f) NULL
#endif /* LLM__QP */

/* The weight-format table's row and check routines for ggml's block formats: a row of
   an [.][n] matrix dequantized (an embedding row), and rows whose length the blocks divide. */
static void llm__row_ggml(float *dst, const llm_weight *w, int64_t row, int n) {
    const llm__wfmt *f = llm__wfmt_of(w->type);
    const unsigned char *p = (const unsigned char *)w->data + (size_t)row * (size_t)(n / f->blk) * (size_t)f->blk_bytes;
    int i;
    for (i = 0; i < n; i += f->blk, p += f->blk_bytes) f->dq(p, dst + i);
}
static llm_status llm__check_blk(const llm_weight *w, int d_in) { return d_in % llm__wfmt_of(w->type)->blk == 0 ? LLM_OK : LLM_EINVAL; }

/* y[n][out] = x W^T + b for W in a ggml block format. x is quantized a panel of tokens at
   a time into 64 KiB of stack; each thread takes a share of W's rows (whole tiles of
   LLM__WR rows, so a row's arithmetic never depends on the thread count) and runs every
   token of the panel against them while they are in cache. */
typedef struct llm__lq {
    const unsigned char *w;
    size_t row_bytes;
    const llm__wfmt *f;
    const llm__q8x *xq;
    const float *xd; /* xq's scales again, contiguous (the 32-value tiles read four at a time) */
    const float *b;
    float *y;
    int t0, nt, d_in, d_out;
    int qp;            /* the many-token kernel (LLM_LIN_PREFILL, at least LLM__QP_MIN tokens): then */
    const int32_t *xc; /* x is stored block by block (index b nt + t), xc holds its lanes' start */
    const float *xs;   /* and xs its d sum(q) */
} llm__lq;

#ifdef LLM__QP
/* This thread's panels of LLM__PL rows, each packed a K-chunk at a time for up to
   LLM__QP_TOK tokens and run over them (llm__qp_run). */
static void llm__qp_task(const llm__lq *c, int ith, int nth) {
    static const unsigned char zero[LLM__PKB * 34] = {0}; /* a padding row's chunk (the largest: Q8_0's 16 blocks) */
    const llm__qpf *f = c->f->qp;
    const int bpb = c->f->blk / 32, nb = c->d_in / 32; /* blocks of 32 per format block */
    const size_t ld = c->row_bytes, ldb = (size_t)c->nt; /* (x is block by block here: llm__linear_q) */
    int64_t np = (c->d_out + LLM__PL - 1) / LLM__PL;
    int p0 = (int)(np * ith / nth), p1 = (int)(np * (ith + 1) / nth), pn, t0, kc, i, t;
    llm__qpk k;
    llm__pkr rows;
    float acc[LLM__QP_TOK * LLM__PL];
    for (pn = p0; pn < p1; pn++) {
        const int r0 = LLM__PL * pn, nr = c->d_out - r0 < LLM__PL ? c->d_out - r0 : LLM__PL;
        llm__pk_rows_g(&rows, ld, nr);
        for (t0 = 0; t0 < c->nt; t0 += LLM__QP_TOK) {
            const int nt = c->nt - t0 < LLM__QP_TOK ? c->nt - t0 : LLM__QP_TOK;
            memset(acc, 0, sizeof(float) * LLM__PL * (size_t)nt);
            for (kc = 0; kc < nb; kc += LLM__PKB) {
                const int n = nb - kc < LLM__PKB ? nb - kc : LLM__PKB;
                const size_t o = (size_t)(kc / bpb) * (size_t)c->f->blk_bytes, xo = (size_t)kc * ldb + (size_t)t0;
                for (i = 0; i < LLM__PL; i++) rows.p[i] = i < nr ? c->w + (size_t)(r0 + i) * ld + o : zero;
                f->pack(&k, &rows, n);
                if (f->halves == 2) llm__qp_run2(acc, &k, c->xq + xo, c->xd + xo, c->xs + xo, c->xc + 2 * xo, ldb, n, nt);
                else if (f->has_min) llm__qp_run1m(acc, &k, c->xq + xo, c->xd + xo, c->xs + xo, c->xc + 2 * xo, ldb, n, nt);
                else llm__qp_run1(acc, &k, c->xq + xo, c->xd + xo, c->xs + xo, c->xc + 2 * xo, ldb, n, nt);
            }
            for (t = 0; t < nt; t++)
                for (i = 0; i < nr; i++)
                    c->y[(size_t)(c->t0 + t0 + t) * (size_t)c->d_out + (size_t)(r0 + i)] = acc[LLM__PL * t + i] + (c->b ? c->b[r0 + i] : 0.0f);
        }
    }
}
#endif

#ifdef LLM__QV
/* Rows r..r+nr (nr = LLM__QR, or 1 at the end) against every token of the panel: pairs of
   rows against LLM__QT tokens while they last (each pair's blocks stay in L1 across the
   token groups), then the remaining tokens one at a time against all nr rows, the first
   of them asking for the next tile's rows (pf bytes ahead, 0 for none) as it goes: a row
   is a short stream the hardware prefetchers pick up late. */
static void llm__lq_tiles(const llm__lq *c, int r, int nr, size_t pf) {
    const unsigned char *w = c->w + (size_t)r * c->row_bytes;
    size_t ld = c->row_bytes, ldx = (size_t)(c->d_in / 32);
    float o[LLM__QR * LLM__QT];
    int i, j, t, r2;
    for (r2 = 0; r2 < nr; r2 += 2)
        for (t = 0; t + LLM__QT <= c->nt; t += LLM__QT) {
            const llm__q8x *x = c->xq + (size_t)t * ldx;
            int n2 = nr - r2 >= 2 ? 2 : 1;
            c->f->tile(o, w + (size_t)r2 * ld, ld, x, c->xd + (size_t)t * ldx, ldx, c->d_in, n2, LLM__QT, 0);
            for (i = 0; i < n2; i++)
                for (j = 0; j < LLM__QT; j++)
                    c->y[(size_t)(c->t0 + t + j) * (size_t)c->d_out + (size_t)(r + r2 + i)] =
                        o[i * LLM__QT + j] + (c->b ? c->b[r + r2 + i] : 0.0f);
        }
    for (t = c->nt / LLM__QT * LLM__QT; t < c->nt; t++) {
        const llm__q8x *x = c->xq + (size_t)t * ldx;
        c->f->tile(o, w, ld, x, c->xd + (size_t)t * ldx, ldx, c->d_in, nr, 1, t == c->nt / LLM__QT * LLM__QT ? pf : 0);
        for (i = 0; i < nr; i++) c->y[(size_t)(c->t0 + t) * (size_t)c->d_out + (size_t)(r + i)] = o[i] + (c->b ? c->b[r + i] : 0.0f);
    }
}
#endif

static void llm__lq_task(void *ctx, int ith, int nth) {
    const llm__lq *c = (const llm__lq *)ctx;
    int64_t nblk = (c->d_out + LLM__WR - 1) / LLM__WR;
    int r0 = (int)(nblk * ith / nth * LLM__WR), r1 = (int)(nblk * (ith + 1) / nth * LLM__WR), r, t, nb = c->d_in / 32;
    if (r1 > c->d_out) r1 = c->d_out;
#ifdef LLM__QP
    if (c->qp) {
        llm__qp_task(c, ith, nth);
        return;
    }
#endif
#ifdef LLM__QV
    if (c->f->tile) {
        int nr;
        for (r = r0; r < r1; r += nr) {
            nr = r1 - r >= LLM__QR ? LLM__QR : 1;
            llm__lq_tiles(c, r, nr, r1 - r >= 2 * LLM__QR ? LLM__QR * c->row_bytes : 0);
        }
        return;
    }
#endif
    for (r = r0; r < r1; r++) {
        const unsigned char *wr = c->w + (size_t)r * c->row_bytes;
        float bias = c->b ? c->b[r] : 0.0f;
        for (t = 0; t < c->nt; t++)
            c->y[(size_t)(c->t0 + t) * (size_t)c->d_out + (size_t)r] = c->f->qdot(wr, c->xq + (size_t)t * nb, c->d_in) + bias;
    }
}

/* Bytes of llm_linear_wx's scratch for n tokens of d_in: per block of 32 values its
   llm__q8x, d, d sum(q) and the two lane starts; and room to align. */
LLMDEF size_t llm_linear_wx_bytes(int n_tokens, int d_in) {
    uint64_t blocks;
    if (n_tokens <= 0 || d_in <= 0) return 0;
    blocks = (uint64_t)n_tokens * (uint64_t)((d_in + 31) / 32);
    if (blocks > ((uint64_t)SIZE_MAX - 64) / (sizeof(llm__q8x) + 16)) return 0;
    return (size_t)(blocks * (sizeof(llm__q8x) + 16) + 64);
}

static llm_status llm__linear_q(float *y, const float *x, const llm_weight *W, const float *b, int n_tokens, int d_in,
                                int d_out, unsigned flags, void *scratch, size_t scratch_bytes, llm_threads *th) {
    llm__q8x xq_stack[LLM__LQ_BLOCKS], *xq = xq_stack;
    float xd_stack[2 * LLM__XS_OFF], *xd = xd_stack, *xs = xd + LLM__XS_OFF; /* x's d, and its d sum(q) */
#ifdef LLM__QP
    int32_t xc_stack[2 * LLM__LQ_BLOCKS], *xc = xc_stack;
#endif
    const llm__wfmt *f = llm__wfmt_of(W->type);
    llm__lq c;
    int tp, t, i, nb = d_in / 32;
    if (!f->qdot) return LLM_EUNSUPPORTED;
    if (d_in % f->blk) return LLM_EINVAL;
    if (d_in / 32 > LLM__LQ_BLOCKS) return LLM_EUNSUPPORTED;
    c.w = (const unsigned char *)W->data;
    c.row_bytes = (size_t)(d_in / f->blk) * (size_t)f->blk_bytes;
    c.f = f, c.b = b, c.y = y, c.d_in = d_in, c.d_out = d_out;
    tp = LLM__LQ_BLOCKS / nb;
#ifdef LLM__QP
    c.qp = (flags & LLM_LIN_PREFILL) && n_tokens >= LLM__QP_MIN && f->qp;
    if (c.qp && n_tokens > tp && scratch && scratch_bytes >= llm_linear_wx_bytes(n_tokens, d_in)) {
        /* every token at once: each weight read once */
        size_t n = (size_t)n_tokens * (size_t)nb;
        xq = (llm__q8x *)llm__align64(scratch);
        xd = (float *)(void *)(xq + n), xs = xd + n;
        xc = (int32_t *)(void *)(xd + 2 * n);
        tp = n_tokens;
    }
    c.xc = xc;
#else
    c.qp = 0;
    c.xc = NULL;
    (void)flags, (void)scratch, (void)scratch_bytes;
#endif
    c.xq = xq, c.xd = xd, c.xs = xs;
    for (c.t0 = 0; c.t0 < n_tokens; c.t0 += tp) {
        c.nt = n_tokens - c.t0 < tp ? n_tokens - c.t0 : tp;
        if (!c.qp)
            for (t = 0; t < c.nt; t++) llm__q8x_quantize(x + (size_t)(c.t0 + t) * d_in, xq + (size_t)t * (size_t)nb, d_in);
        else /* block by block, the panel's tokens side by side (llm__qp_run) */
            for (t = 0; t < c.nt; t++)
                for (i = 0; i < nb; i++) llm__q8x_quantize(x + (size_t)(c.t0 + t) * d_in + 32 * (size_t)i, xq + (size_t)i * (size_t)c.nt + t, 32);
#ifdef LLM__QV /* (only the vector tiles read them) */
        for (t = 0; t < c.nt * nb; t++) xd[t] = xq[t].d, xs[t] = xq[t].ds;
#endif
#if defined(LLM__QP) && LLM__PK_UNSIGNED
        if (c.qp)
            for (t = 0; t < c.nt * nb; t++)
                xc[2 * t] = f->qp->halves == 2 ? -f->qp->off * xq[t].s16[0] : f->qp->off * xq[t].ns, xc[2 * t + 1] = -f->qp->off * xq[t].s16[1];
#endif
        llm_threads_run(th, llm__lq_task, &c);
    }
    return LLM_OK;
}

/* F32 / F16 / BF16 values one at a time, as GGUF stores them (little-endian) */
static void llm__dq_f32(const unsigned char *b, float *y) {
    uint32_t u = llm__le32(b);
    memcpy(y, &u, 4);
}
static void llm__dq_f16(const unsigned char *b, float *y) { *y = llm__h(b); }
static void llm__dq_bf16(const unsigned char *b, float *y) { *y = llm_bf16_to_f32((uint16_t)(b[0] | (b[1] << 8))); }

static const llm__wfmt llm__wfmts[] = {
    /* name   bits blk bytes scales          check           row            linear           prep          rows            ggml dq           qdot            tile   qp */
    {"f32",   32,  1,  4,    LLM__SCALE_NONE,  llm__check_any, llm__row_f32,  llm__linear_f32, NULL,         NULL,           0,  llm__dq_f32,  NULL,           NULL, NULL},
    {"f16",   16,  1,  2,    LLM__SCALE_NONE,  llm__check_any, llm__row_f16,  NULL,            NULL,         llm__rows_f16,  1,  llm__dq_f16,  NULL,           NULL, NULL},
    {"bf16",  16,  1,  2,    LLM__SCALE_NONE,  llm__check_any, llm__row_bf16, NULL,            NULL,         llm__rows_bf16, 30, llm__dq_bf16, NULL,           NULL, NULL},
    {"int8",  8,   1,  1,    LLM__SCALE_GROUP, llm__check_q8,  llm__row_q8,   NULL,            llm__prep_q8, llm__rows_q8,   -1, NULL,         NULL,           NULL, NULL},
    {"int4",  4,   0,  0,    LLM__SCALE_NONE,  NULL,           NULL,          NULL,            NULL,         NULL,           -1, NULL,         NULL,           NULL, NULL},
    /* ggml's block formats (scales inside the blocks): the whole layer in llm__linear_q */
    {"q8_32", 8.5,    32,  34,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 8,  llm__dq_q8_0, llm__qdot_q8_0, LLM__QTF(llm__qt_q8_0), LLM__QPF8(llm__qp_q8_0)},
    {"q4_32", 4.5,    32,  18,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 2,  llm__dq_q4_0, llm__qdot_q4_0, LLM__QTF(llm__qt_q4_0), LLM__QPF(llm__qp_q4_0)},
    {"q4_1",  5.0,    32,  20,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 3,  llm__dq_q4_1, llm__qdot_q4_1, LLM__QTF(llm__qt_q4_1), LLM__QPF(llm__qp_q4_1)},
    {"q5_0",  5.5,    32,  22,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 6,  llm__dq_q5_0, llm__qdot_q5_0, LLM__QTF(llm__qt_q5_0), LLM__QPF(llm__qp_q5_0)},
    {"q5_1",  6.0,    32,  24,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 7,  llm__dq_q5_1, llm__qdot_q5_1, LLM__QTF(llm__qt_q5_1), LLM__QPF(llm__qp_q5_1)},
    {"q2_k",  2.625,  256, 84,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 10, llm__dq_q2_k, llm__qdot_q2_k, NULL, NULL},
    {"q3_k",  3.4375, 256, 110, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 11, llm__dq_q3_k, llm__qdot_q3_k, NULL, NULL},
    {"q4_k",  4.5,    256, 144, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 12, llm__dq_q4_k, llm__qdot_q4_k, LLM__QTF(llm__qt_q4_k), LLM__QPF(llm__qp_q4_k)},
    {"q5_k",  5.5,    256, 176, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 13, llm__dq_q5_k, llm__qdot_q5_k, LLM__QTF(llm__qt_q5_k), LLM__QPF(llm__qp_q5_k)},
    {"q6_k",  6.5625, 256, 210, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL, 14, llm__dq_q6_k, llm__qdot_q6_k, LLM__QTF(llm__qt_q6_k), LLM__QPF(llm__qp_q6_k)},
};
/* one row per llm_dtype, in its order: a format added to the enum without its row fails here */
typedef char llm__wfmt_rows[sizeof llm__wfmts / sizeof llm__wfmts[0] == (size_t)LLM_DTYPE_COUNT ? 1 : -1];

/* The row of t, or NULL for a value outside the enum. */
static const llm__wfmt *llm__wfmt_of(llm_dtype t) { return (int)t >= 0 && (int)t < (int)LLM_DTYPE_COUNT ? &llm__wfmts[t] : NULL; }
/* The row of a ggml tensor type id, or NULL when llm.h has no format for it. */
static const llm__wfmt *llm__wfmt_ggml(uint32_t id) {
    int i;
    for (i = 0; i < (int)LLM_DTYPE_COUNT; i++)
        if (llm__wfmts[i].ggml >= 0 && (uint32_t)llm__wfmts[i].ggml == id) return &llm__wfmts[i];
    return NULL;
}

LLMDEF double llm_dtype_bits(llm_dtype t) { return llm__wfmt_of(t) ? llm__wfmt_of(t)->bits : 0.0; }
LLMDEF double llm_dtype_bytes(llm_dtype t) { return llm_dtype_bits(t) / 8.0; }
LLMDEF const char *llm_dtype_name(llm_dtype t) { return llm__wfmt_of(t) ? llm__wfmt_of(t)->name : "unknown"; }
LLMDEF llm_status llm_dtype_parse(const char *name, llm_dtype *out) {
    int i;
    if (!name || !out) return LLM_EINVAL;
    for (i = 0; i < (int)LLM_DTYPE_COUNT; i++)
        if (strcmp(name, llm__wfmts[i].name) == 0) {
            *out = (llm_dtype)i;
            return LLM_OK;
        }
    if (strcmp(name, "q8_0") == 0 || strcmp(name, "q4_0") == 0) { /* ggml's names of q8_32 / q4_32 */
        *out = name[1] == '8' ? LLM_Q8_0 : LLM_Q4_0;
        return LLM_OK;
    }
    return LLM_ENOTFOUND;
}

/* ---- llm_linear_w ------------------------------------------------------------------ */

/* Rows [r0, r1) of thread ith: whole blocks of LLM__WR rows, split as evenly as possible. */
static void llm__lw_rows(int d_out, int ith, int nth, int *r0, int *r1) {
    int64_t nb = (d_out + LLM__WR - 1) / LLM__WR;
    int64_t b0 = nb * ith / nth, b1 = nb * (ith + 1) / nth;
    *r0 = (int)(b0 * LLM__WR);
    *r1 = (int)(b1 * LLM__WR < d_out ? b1 * LLM__WR : d_out);
}

/* This thread's rows, LLM__WR at a time, through the format's rows routine. */
static void llm__lw_task(void *ctx, int ith, int nth) {
    const llm__lw *c = (const llm__lw *)ctx;
    int r0, r1, r, nr;
    llm__lw_rows(c->d_out, ith, nth, &r0, &r1);
    for (r = r0; r < r1; r += nr) {
        nr = r1 - r >= LLM__WR ? LLM__WR : 1; /* blocks, then single rows at the end */
        c->f->rows(c, r, nr, r + 2 * LLM__WR <= r1 && nr == LLM__WR ? LLM__WR * c->row_bytes : 0);
    }
}

LLMDEF llm_status llm_linear_w(float *y, const float *x, const llm_weight *W, const float *b, int n_tokens, int d_in,
                               int d_out, llm_threads *th) {
    return llm_linear_wx(y, x, W, b, n_tokens, d_in, d_out, 0, NULL, 0, th);
}

LLMDEF llm_status llm_linear_wx(float *y, const float *x, const llm_weight *W, const float *b, int n_tokens, int d_in,
                                int d_out, unsigned flags, void *scratch, size_t scratch_bytes, llm_threads *th) {
    const llm__wfmt *f = W ? llm__wfmt_of(W->type) : NULL;
    int8_t xq[LLM__Q8_XMAX];
    float xs[LLM__Q8_GMAX];
    int32_t xc[LLM__Q8_GMAX];
    int kp, tp;
    llm_status st;
    if (!y || !x || !W || !W->data || n_tokens <= 0 || d_in <= 0 || d_out <= 0) return LLM_EINVAL;
    if (!f || !f->check || (!f->linear && !f->rows)) return LLM_EUNSUPPORTED;
    if ((st = f->check(W, d_in)) != LLM_OK) return st;
    if (f->linear) return f->linear(y, x, W, b, n_tokens, d_in, d_out, flags, scratch, scratch_bytes, th);
    if ((double)n_tokens * d_in * d_out < LLM__PAR_MIN_WORK) th = NULL;
    llm__lw c = {f, W, y, x, b, d_in, d_out, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL}; /* the panel and buffers below */
    c.row_bytes = (size_t)d_in / (size_t)f->blk * (size_t)f->blk_bytes;
    if (!f->prep) {
        /* fp32 x read in place: token panels of about 512 KiB (the size of a Zen 5 L2 is
           1 MiB), so they stay in L2 while the rows stream */
        kp = d_in;
        tp = 131072 / d_in > 1 ? 131072 / d_in : 1;
    } else {
        /* x converted into the stack buffers: columns per panel all of d_in if they fit,
           else as many whole groups as fit; then as many tokens as fit */
        int ab = c.ab = f->scales == LLM__SCALE_GROUP ? W->group_size : f->blk;
        if (ab > LLM__Q8_XMAX / 2) return LLM_EUNSUPPORTED;
        kp = d_in;
        if (kp > LLM__Q8_XMAX) kp = LLM__Q8_XMAX / ab * ab;
        if (kp / ab > LLM__Q8_GMAX) kp = LLM__Q8_GMAX * ab;
        tp = LLM__Q8_XMAX / kp < LLM__Q8_GMAX / (kp / ab) ? LLM__Q8_XMAX / kp : LLM__Q8_GMAX / (kp / ab);
        c.xq = xq;
        c.xs = xs;
        c.xc = xc;
    }
    for (c.k0 = 0; c.k0 < d_in; c.k0 += kp) {
        c.kn = d_in - c.k0 < kp ? d_in - c.k0 : kp;
        c.first = c.k0 == 0;
        for (c.t0 = 0; c.t0 < n_tokens; c.t0 += tp) {
            c.nt = n_tokens - c.t0 < tp ? n_tokens - c.t0 : tp;
            if (f->prep) f->prep(&c);
            llm_threads_run(th, llm__lw_task, &c);
        }
    }
    return LLM_OK;
}

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
static llm_status llm__rope_fill(llm_rope *r, void *mem, size_t mem_bytes, int head_dim, int rotary_dim,
                                 int max_pos, double theta, llm_rope_layout layout, double scale, double low,
                                 double high, double orig_ctx) {
    int half, i, p;
    size_t need = llm_rope_bytes(head_dim, max_pos);
    if (!r || !mem) return LLM_EINVAL;
    if (need == 0 || mem_bytes < need) return LLM_EINVAL;
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

LLMDEF llm_status llm_rope_init_ex(llm_rope *r, void *mem, size_t mem_bytes, int head_dim, int max_pos,
                                   float theta, llm_rope_layout layout) {
    return llm__rope_fill(r, mem, mem_bytes, head_dim, head_dim, max_pos, theta, layout, 0, 0, 0, 0);
}

/* The unchecked form, kept for callers of 0.1.0: the caller vouches for mem's length. */
LLMDEF llm_status llm_rope_init(llm_rope *r, void *mem, int head_dim, int max_pos, float theta,
                                llm_rope_layout layout) {
    return llm_rope_init_ex(r, mem, llm_rope_bytes(head_dim, max_pos), head_dim, max_pos, theta, layout);
}

/* head_dim of a config, or 0 when it has none: RoPE needs only the head sizes to be
   valid, not the whole model (llm_config_check), so tables can be built on their own. */
static int llm__rope_head_dim(const llm_config *c) {
    if (!c || c->n_heads <= 0 || c->head_dim < 0 || (c->head_dim == 0 && c->d_model % c->n_heads)) return 0;
    return llm_config_head_dim(c);
}

LLMDEF llm_status llm_rope_init_config(llm_rope *r, void *mem, size_t mem_bytes, const llm_config *c, int max_pos) {
    int hd = llm__rope_head_dim(c);
    if (hd <= 0 || c->rotary_dim < 0) return LLM_EINVAL;
    return llm__rope_fill(r, mem, mem_bytes, hd, c->rotary_dim ? c->rotary_dim : hd, max_pos, c->rope_theta,
                          c->rope_layout, c->rope_scale,
                          c->rope_low_freq_factor > 0 ? c->rope_low_freq_factor : 1.0,
                          c->rope_high_freq_factor > 0 ? c->rope_high_freq_factor : 4.0,
                          c->rope_orig_ctx > 0 ? c->rope_orig_ctx : 8192.0);
}

LLMDEF llm_status llm_rope_create(llm_rope *r, const llm_config *c, int max_pos) {
    size_t bytes = llm_rope_bytes(llm__rope_head_dim(c), max_pos);
    void *mem;
    LLM__MTRY(llm__create_mem(r, sizeof *r, bytes, &mem));
    return llm__created(r, sizeof *r, &r->owned, mem, llm_rope_init_config(r, mem, bytes, c, max_pos));
}

LLMDEF void llm_rope_free(llm_rope *r) {
    if (r) llm__destroy(r, sizeof *r, r->owned);
}

/* Rotate n_tokens tokens of n_heads heads, token t at position pos + t; by the angle's
   negative when dir is -1 (the inverse rotation: RoPE's backward). */
static llm_status llm__rope_rotate(const llm_rope *r, float *x, int n_tokens, int n_heads, int pos, float dir) {
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
            if (r->layout == LLM_ROPE_INTERLEAVED) {
                for (i = 0; i < half; i++) {
                    float xa = xh[2 * i], xb = xh[2 * i + 1], si = dir * sn[i];
                    xh[2 * i] = xa * cs[i] - xb * si;
                    xh[2 * i + 1] = xa * si + xb * cs[i];
                }
            } else {
                for (i = 0; i < half; i++) {
                    float xa = xh[i], xb = xh[i + half], si = dir * sn[i];
                    xh[i] = xa * cs[i] - xb * si;
                    xh[i + half] = xa * si + xb * cs[i];
                }
            }
        }
    }
    return LLM_OK;
}

LLMDEF llm_status llm_rope_apply_tokens(const llm_rope *r, float *x, int n_tokens, int n_heads, int pos) {
    return llm__rope_rotate(r, x, n_tokens, n_heads, pos, 1.0f);
}

LLMDEF llm_status llm_rope_apply(const llm_rope *r, float *x, int n_heads, int pos) {
    return llm_rope_apply_tokens(r, x, 1, n_heads, pos);
}

/* ======================================================================================
   >>attention implementation
   ====================================================================================== */

/* ---- the KV cache ------------------------------------------------------------------- */

/* Layers, KV heads and head_dim of a config that llm_config_check accepts. */
static llm_status llm__kv_dims(const llm_config *c, int *L, int *hkv, int *hd) {
    if (llm_config_check(c, NULL) != LLM_OK) return LLM_EINVAL;
    *L = c->n_layers;
    *hkv = c->n_kv_heads;
    *hd = llm_config_head_dim(c);
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
    if (rows > UINT64_MAX / (uint64_t)hd) return 0;
    elems = rows * (uint64_t)hd;
    half_bits = (uint64_t)(bits * 2 + 0.5); /* 64, 32, 32, 16, 8, 17, 9: integers */
    /* ceil(elems * half_bits / 16) without forming elems * half_bits, which can wrap
       (fp32: 64 half-bits) even when the byte count fits */
    if (elems / 16 > (UINT64_MAX - 64) / half_bits) return 0;
    bytes = elems / 16 * half_bits + (elems % 16 * half_bits + 15) / 16;
    if (dtype == LLM_INT8 || dtype == LLM_INT4) { /* one fp32 scale per row */
        if (rows > UINT64_MAX / 4) return 0;
        scales = rows * 4;
        if (bytes > UINT64_MAX - scales) return 0;
    }
    return bytes + scales;
}

static size_t llm__kv_esize(llm_dtype t) { /* bytes per value (int8's row scales are separate) */
    const llm__wfmt *f = llm__wfmt_of(t);
    return f && f->blk > 0 ? (size_t)(f->blk_bytes / f->blk) : 1;
}

/* Memory: [k_scale][v_scale] (LLM_INT8 only, floats first so they stay aligned), then K, V. */
LLMDEF llm_status llm_kv_cache_init(llm_kv_cache *kv, void *mem, size_t mem_bytes, const llm_config *c,
                                    int capacity, llm_dtype dtype) {
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
    if ((uint64_t)mem_bytes < bytes) return LLM_EINVAL;                  /* a short buffer: refused, untouched */
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
    uint64_t bytes = llm_kv_cache_bytes(c, capacity, 1, dtype);
    void *raw;
    if (!kv) return LLM_EINVAL;
    memset(kv, 0, sizeof *kv);
    if (dtype != LLM_F32 && dtype != LLM_F16 && dtype != LLM_INT8) return LLM_EUNSUPPORTED;
    if (bytes > (uint64_t)((size_t)-1) - 64) return LLM_ENOMEM;
    LLM__MTRY(llm__create_mem(kv, sizeof *kv, bytes ? (size_t)bytes + 64 : 0, &raw));
    /* start on a cache line, so the rows attention streams do too */
    return llm__created(kv, sizeof *kv, &kv->owned, raw,
                        llm_kv_cache_init(kv, llm__align64(raw), (size_t)bytes, c, capacity, dtype));
}

LLMDEF void llm_kv_cache_free(llm_kv_cache *kv) {
    if (kv) llm__destroy(kv, sizeof *kv, kv->owned);
}

/* fp16 <-> fp32 rows, the cache's two conversions, through >>simd's llm__rv_load_f16 and
   llm__rv_store_f16. Storing is one instruction on AVX-512, F16C and NEON, all rounding to
   nearest even like llm_f32_to_f16: the same bits (AVX2 without F16C: the scalar loop). */
static void llm__f16_to_f32_row(float *dst, const uint16_t *src, size_t n) {
    size_t i = 0;
#ifdef LLM__RV
    for (; i < n / LLM__RVN * LLM__RVN; i += LLM__RVN) llm__rv_store(dst + i, llm__rv_load_f16(src + i));
#endif
    for (; i < n; i++) dst[i] = llm_f16_to_f32(src[i]);
}

static void llm__f32_to_f16_row(uint16_t *dst, const float *src, size_t n) {
    size_t i = 0;
#if defined(LLM__RV) && !defined(LLM__RV_NO_STORE_F16)
    for (; i + LLM__RVN <= n; i += LLM__RVN) llm__rv_store_f16(dst + i, llm__rv_load(src + i));
#endif
    for (; i < n; i++) dst[i] = llm_f32_to_f16(src[i]);
}

/* One int8 row by the one int8 rule (llm__q8_quant, >>weights), with its non-finite
   rule for the cache: a bad value is stored as 0 and the row keeps the scale of its
   finite values. */
static void llm__kv_q8_row(int8_t *q, float *scale, const float *x, int n) { llm__q8_quant(q, scale, x, n, 1); }

/* Store one row of head_dim values as row number `row` of a K or V array. */
static void llm__kv_put(void *base, float *scales, llm_dtype t, size_t row, int hd, const float *x) {
    if (t == LLM_F32)
        memcpy((float *)base + row * hd, x, (size_t)hd * sizeof(float));
    else if (t == LLM_F16)
        llm__f32_to_f16_row((uint16_t *)base + row * hd, x, (size_t)hd);
    else
        llm__kv_q8_row((int8_t *)base + row * hd, scales + row, x, hd);
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

   softmax(scale q K^T) V for every query (scale = 1/sqrt(d) unless the desc says), without
   the T x T score matrix (FlashAttention, Dao et al. 2022, done on a CPU). Keys are
   visited in tiles of LLM_ATTN_TILE, each in three stages:
     1. scores   s_j = q' . k_j, where q' = scale q: the scale is folded into each query
                 once, before any kernel runs;
     2. softmax  the online update. Optional softcap first (Gemma 2: s = c tanh(s / c)),
                 then, with each query's running max m, sum l and unnormalised output o,
                     m' = max(m, max_j s_j),   a = exp(m - m'),
                     p_j = exp(s_j - m'),      l' = a l + sum_j p_j;
     3. P V      o' = a o + sum_j p_j v_j;
   and at the end out = o / l: exactly softmax, in one pass, in O(tile + head_dim) memory.
   Causality is a loop bound: query at position p reads keys 0..p (window: p-w+1..p), so
   tiles above the diagonal are never visited and the mask is never stored.

   Work is split into units: one KV head, up to LLM__ATT_QB "lanes" (query token, query
   head) that read it. Grouping the heads of a GQA group into one unit means each K/V tile
   is fetched once for all of them (what makes GQA decode cheap). Threads take units
   round-robin; consecutive units are different heads of the same query block, so causal
   cost is shared evenly.

   Two kernels run a unit, both written once over the SIMD layer's vocabulary (llm__rv_*;
   without SIMD its one-lane version, so the scalar build runs them too):
   - rows (few lanes, e.g. decode; the readable one): lane by lane, dot products along
     head_dim, then o += p_j v_j; the heads of a GQA group at one position go together,
     sharing each K and V load (lane groups). Its stage-1 and stage-3 routines suit
     head_dim (any, small heads transposed, AVX-512's head_dim 8) and are picked once per
     call (llm__att_plan);
   - lanes (prefill): queries are transposed into vector lanes, Q^T [head_dim][lanes];
     a score tile S^T[key][lanes] is k_j[d] broadcast times Q^T[d] (no horizontal sums),
     the online softmax runs down the lanes, and O^T [head_dim][lanes] += v_j[d] * P^T[j]. */

#ifdef LLM__RV
/* tanh: (1 - e) / (1 + e) with e = exp(-2|x|) <= 1, so nothing overflows, the sign put
   back; below |x| = 1/8, where 1 - e cancels, the odd Taylor series to x^7 (the next term,
   62/2835 x^9, is < 4e-9 of x there). Belongs in the SIMD layer, beside llm__rv_sigmoid. */
static inline llm__rv llm__rv_tanh(llm__rv x) {
    const llm__rv one = llm__rv_set1(1.0f), zero = llm__rv_set1(0.0f);
    llm__rv ax = llm__rv_abs(x), x2 = llm__rv_mul(x, x), e, t, p;
    e = llm__rv_exp(llm__rv_mul(ax, llm__rv_set1(-2.0f)));
    t = llm__rv_div(llm__rv_sub(one, e), llm__rv_add(one, e));
    t = llm__rv_ge_or(x, zero, t, llm__rv_sub(zero, t));
    p = llm__rv_fma(llm__rv_fma(x2, llm__rv_set1(-17.0f / 315), llm__rv_set1(2.0f / 15)), x2, llm__rv_set1(-1.0f / 3));
    p = llm__rv_fma(p, llm__rv_mul(x2, x), x);
    return llm__rv_ge_or(ax, llm__rv_set1(0.125f), t, p);
}
#endif

#define LLM__ATT_W LLM__RVN
#define LLM__ATT_QB (2 * LLM__ATT_W) /* lanes per unit: two vectors of queries */
/* Register blocks: 32 vector registers (AVX-512, NEON) hold twice the accumulators of
   AVX2's 16 (and a scalar build's few). RB: rows of the lanes kernel's blocks; LG: lanes
   of a lane group. */
#if defined(LLM__AVX2) || defined(LLM__RV_SCALAR)
#define LLM__ATT_RB 4
#define LLM__ATT_ROWS(X) X(0) X(1) X(2) X(3)
#define LLM__ATT_LG 2
#define LLM__ATT_GL(X) X(0) X(1)
#else
#define LLM__ATT_RB 8
#define LLM__ATT_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define LLM__ATT_LG 4
#define LLM__ATT_GL(X) X(0) X(1) X(2) X(3)
#endif
typedef llm__rv llm__att_blk; /* buffers of vectors are aligned for them */
/* K/V rows of an f16 or int8 cache are converted to fp32 a tile at a time into a buffer
   of this many floats (64 keys of 128 dims; the tile shrinks for larger heads). */
#define LLM__ATT_CONV (64 * 128)

/* One thread's working memory: lives on its stack, the same size for any T. */
typedef struct llm__att_work {
    llm__att_blk kbuf[LLM__ATT_CONV / LLM__ATT_W], vbuf[LLM__ATT_CONV / LLM__ATT_W];
    union {
        struct { /* rows kernel: q'[lane][hd], o[lane][hd] */
            llm__att_blk q[LLM__ATT_QB * LLM_ATTN_MAX_HEAD_DIM / LLM__ATT_W];
            llm__att_blk o[LLM__ATT_QB * LLM_ATTN_MAX_HEAD_DIM / LLM__ATT_W];
            float s[LLM__ATT_LG * LLM_ATTN_TILE]; /* a tile of scores per lane of a group */
        } rows;
        struct { /* lanes kernel: Q'^T, O^T [hd][lanes], S^T [tile][lanes] */
            llm__att_blk qt[LLM_ATTN_MAX_HEAD_DIM * LLM__ATT_QB / LLM__ATT_W];
            llm__att_blk ot[LLM_ATTN_MAX_HEAD_DIM * LLM__ATT_QB / LLM__ATT_W];
            llm__att_blk st[LLM_ATTN_TILE * LLM__ATT_QB / LLM__ATT_W];
        } lanes;
    } u;
} llm__att_work;

LLMDEF size_t llm_attention_stack_bytes(void) { return sizeof(llm__att_work); }

/* One tile of keys j0..j0+nk-1 of a KV head as the rows kernel's stages see it. */
typedef struct llm__att_tile {
    const float *K, *V;  /* fp32 rows [nk][hd] */
    float *KT, *VT;      /* small heads: K^T, V^T [hd][ld] */
    int j0, nk, ld, hd;
    const char *kn, *vn; /* the next tile's raw rows, prefetched into L2 while this one runs */
    size_t row;          /* bytes of one raw row */
} llm__att_tile;
/* Stage 1 of the rows kernel: s[0..n) = q' . k_j for keys js..js+n-1 of tile t; stage 3:
   o = a o + sum_j p[j] v_j over the same keys. Both prefetch npf raw rows of the next
   tile from row r0 (this lane's share). */
typedef void (*llm__att_scores_fn)(float *s, const float *q, const llm__att_tile *t, int js, int n, int r0, int npf);
typedef void (*llm__att_pv_fn)(float *o, float a, float *p, const llm__att_tile *t, int js, int n, int r0, int npf);

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
    float scale;         /* folded into Q */
    float softcap;       /* 0: none */
    /* the rows kernel's stages for this head_dim (llm__att_plan) */
    llm__att_scores_fn scores;
    llm__att_pv_fn pv;
    int small;           /* stages 1 and 3 read K^T, V^T */
    int grouped;         /* lane groups may run */
} llm__att_job;

/* Keys j0..j0+nk-1 of KV head h as fp32 rows: the cache itself when it is fp32, else
   converted into buf. */
static const float *llm__att_fetch(const llm__att_job *J, const void *base, const float *scales, int h, int j0,
                                   int nk, float *buf) {
    size_t row0 = (size_t)h * (size_t)J->kv_stride + (size_t)j0, n = (size_t)nk * (size_t)J->hd;
    int j, d;
    if (J->dtype == LLM_F32) return (const float *)base + row0 * J->hd;
    if (J->dtype == LLM_F16) {
        llm__f16_to_f32_row(buf, (const uint16_t *)base + row0 * J->hd, n);
    } else {
        const int8_t *src = (const int8_t *)base + row0 * J->hd;
        for (j = 0; j < nk; j++) {
            float s = scales[row0 + j];
            for (d = 0; d < J->hd; d++) buf[(size_t)j * J->hd + d] = (float)src[(size_t)j * J->hd + d] * s;
        }
    }
    return buf;
}

/* Ask for the bytes from p to come into L2, one request per 64-byte line. The hardware
   prefetcher stops at every 4 KiB page (8 keys of head_dim 128), so decode requests the
   next tile's K rows during the scores and its V rows during P V, spread over the tile;
   every line: one in a few, the rest left to the hardware, was slower. */
static void llm__att_prefetch(const char *p, size_t bytes) {
    size_t i;
    for (i = 0; i < bytes; i += 64) LLM__PREFETCH_L2(p + i);
}

/* Lane i of this vector is i: the tail masks of stage 2. */
static const float llm__att_iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* ---- stage 1, rows kernel: scores ---- */

static float llm__att_dot(const float *a, const float *b, int n) {
    enum { W = LLM__ATT_W };
    /* four accumulators hide the FMA latency */
    llm__rv s0 = llm__rv_set1(0), s1 = s0, s2 = s0, s3 = s0;
    float s;
    int i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
        s0 = llm__rv_fma(llm__rv_load(a + i), llm__rv_load(b + i), s0);
        s1 = llm__rv_fma(llm__rv_load(a + i + W), llm__rv_load(b + i + W), s1);
        s2 = llm__rv_fma(llm__rv_load(a + i + 2 * W), llm__rv_load(b + i + 2 * W), s2);
        s3 = llm__rv_fma(llm__rv_load(a + i + 3 * W), llm__rv_load(b + i + 3 * W), s3);
    }
    for (; i + W <= n; i += W) s0 = llm__rv_fma(llm__rv_load(a + i), llm__rv_load(b + i), s0);
    s = llm__rv_hsum(llm__rv_add(llm__rv_add(s0, s1), llm__rv_add(s2, s3)));
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

/* Four keys at a time, two accumulators each, so eight FMA chains share each load of q;
   one key row prefetched per key scored. */
static void llm__att_scores(float *s, const float *q, const llm__att_tile *t, int js, int n, int r0, int npf) {
    enum { W = LLM__ATT_W };
    const int hd = t->hd;
    const float *K = t->K + (size_t)(js - t->j0) * hd;
    const char *pf = t->kn + (size_t)r0 * t->row;
    const size_t pf_row = t->row;
    int j = 0;
    if (hd % (2 * W) == 0)
        for (; j + 4 <= n; j += 4) {
            const float *k0 = K + (size_t)j * hd, *k1 = k0 + hd, *k2 = k1 + hd, *k3 = k2 + hd;
            llm__rv a0 = llm__rv_set1(0), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
            int d;
            if (j < npf) llm__att_prefetch(pf + (size_t)j * pf_row, 4 * pf_row);
            for (d = 0; d < hd; d += 2 * W) {
                llm__rv qa = llm__rv_load(q + d), qb = llm__rv_load(q + d + W);
                a0 = llm__rv_fma(qa, llm__rv_load(k0 + d), a0);
                a1 = llm__rv_fma(qa, llm__rv_load(k1 + d), a1);
                a2 = llm__rv_fma(qa, llm__rv_load(k2 + d), a2);
                a3 = llm__rv_fma(qa, llm__rv_load(k3 + d), a3);
                b0 = llm__rv_fma(qb, llm__rv_load(k0 + d + W), b0);
                b1 = llm__rv_fma(qb, llm__rv_load(k1 + d + W), b1);
                b2 = llm__rv_fma(qb, llm__rv_load(k2 + d + W), b2);
                b3 = llm__rv_fma(qb, llm__rv_load(k3 + d + W), b3);
            }
            /* the four sums at once (>>matmul's llm__vsum4: the vector types are the same) */
            llm__vsum4(llm__rv_add(a0, b0), llm__rv_add(a1, b1), llm__rv_add(a2, b2), llm__rv_add(a3, b3), s + j);
        }
    for (; j < n; j++) {
        if (j < npf) llm__att_prefetch(pf + (size_t)j * pf_row, pf_row);
        s[j] = llm__att_dot(q, K + (size_t)j * hd, hd);
    }
}

/* ---- stage 2: the online softmax ---- */

/* s = c tanh(s / c) for n scores rounded up to W (the score buffers have room). */
static void llm__att_softcap(float *s, int n, float c) {
    const llm__rv vc = llm__rv_set1(c), inv = llm__rv_set1(1.0f / c);
    int i;
    for (i = 0; i < n; i += LLM__ATT_W) llm__rv_store(s + i, llm__rv_mul(vc, llm__rv_tanh(llm__rv_mul(llm__rv_load(s + i), inv))));
}

/* s[i] = exp(s[i] - m) for i < n; returns the sum. The last n % W keys are one more
   vector whose lanes past n are set to zero (s has room for n rounded up to W: the
   score buffers hold LLM_ATTN_TILE, a multiple of W), so no key goes through libm. */
static float llm__att_exp_sub(float *s, int n, float m) {
    llm__rv nm = llm__rv_set1(-m), zero = llm__rv_set1(0), acc = zero;
    int i;
    for (i = 0; i < n; i += LLM__ATT_W) {
        llm__rv e = llm__rv_exp(llm__rv_add(llm__rv_load(s + i), nm));
        if (n - i < LLM__ATT_W) e = llm__rv_ge_or(llm__rv_load(llm__att_iota), llm__rv_set1((float)(n - i)), zero, e);
        llm__rv_store(s + i, e);
        acc = llm__rv_add(acc, e);
    }
    return llm__rv_hsum(acc);
}

/* The update for one lane of the rows kernel, whose tile of scores is s[0..n): softcap c
   (0: none), the max taken a vector at a time (a chain of scalar maxes was slow), then
   s = p = exp(s - m') in place, l rescaled and the tile's sum added, m = m'. Returns
   a = exp(m - m'), the factor o is rescaled by (0 at the first tile, where m = -inf). */
static float llm__att_online(float *s, int n, float c, float *m, float *l) {
    llm__rv vm = llm__rv_set1(*m);
    float mx, a;
    int i = 0;
    if (c > 0) llm__att_softcap(s, n, c);
    for (; i + LLM__ATT_W <= n; i += LLM__ATT_W) vm = llm__rv_max(vm, llm__rv_load(s + i));
    mx = llm__rv_hmax(vm);
    for (; i < n; i++)
        if (s[i] > mx) mx = s[i];
    a = LLM_EXPF(*m - mx);
    *l = *l * a + llm__att_exp_sub(s, n, mx);
    *m = mx;
    return a;
}

/* The same update for the lanes kernel's two vectors of lanes (h = 0, 1: lanes h W ..
   h W + W - 1): scores st[j * 2W + h W] for keys j < nk, the mask's -inf included;
   running max m[h] and sum l[h] per lane; a[h] = exp(m - m'). A lane that has seen only
   masked keys keeps max -inf: it subtracts a finite value. */
static inline void llm__att_online_lanes(float *st, int nk, llm__rv *m, llm__rv *l, llm__rv *a) {
    enum { W = LLM__ATT_W, QB = LLM__ATT_QB };
    const llm__rv lo = llm__rv_set1(-FLT_MAX), minus1 = llm__rv_set1(-1.0f);
    llm__rv mx0 = m[0], mx1 = m[1], mu0, mu1, l0, l1;
    int j;
    for (j = 0; j < nk; j++) {
        mx0 = llm__rv_max(mx0, llm__rv_load(st + j * QB));
        mx1 = llm__rv_max(mx1, llm__rv_load(st + j * QB + W));
    }
    mu0 = llm__rv_mul(llm__rv_max(mx0, lo), minus1);
    mu1 = llm__rv_mul(llm__rv_max(mx1, lo), minus1);
    a[0] = llm__rv_exp(llm__rv_add(m[0], mu0));
    a[1] = llm__rv_exp(llm__rv_add(m[1], mu1));
    l0 = llm__rv_mul(l[0], a[0]);
    l1 = llm__rv_mul(l[1], a[1]);
    for (j = 0; j < nk; j++) {
        llm__rv p0 = llm__rv_exp(llm__rv_add(llm__rv_load(st + j * QB), mu0));
        llm__rv p1 = llm__rv_exp(llm__rv_add(llm__rv_load(st + j * QB + W), mu1));
        llm__rv_store(st + j * QB, p0);
        llm__rv_store(st + j * QB + W, p1);
        l0 = llm__rv_add(l0, p0);
        l1 = llm__rv_add(l1, p1);
    }
    m[0] = mx0, m[1] = mx1, l[0] = l0, l[1] = l1;
}

/* ---- stage 3, rows kernel: P V ---- */

/* Up to 8 vectors of o (hd 128 with AVX-512) are held in registers over all the rows, so
   V streams through once; eight accumulators are eight FMA chains, enough to hide the
   FMA latency. What is left of hd goes 4 vectors at a time with separate accumulators
   for even and odd rows (again eight chains), then one vector at a time. One V row
   prefetched per row read. */
static void llm__att_pv(float *o, float a, float *p, const llm__att_tile *t, int js, int nk, int r0, int npf) {
    enum { W = LLM__ATT_W };
    const int hd = t->hd;
    const float *V = t->V + (size_t)(js - t->j0) * hd;
    const char *pf = t->vn + (size_t)r0 * t->row;
    const size_t pf_row = t->row;
    llm__rv va = llm__rv_set1(a), zero = llm__rv_set1(0);
    int d = 0, j;
    /* eight named accumulators, not an array: gcc -O2 keeps an array of eight vectors on
       the stack, a load and a store per FMA */
    for (; d + 8 * W <= hd; d += 8 * W) {
        const float *v0 = V + d;
#define LLM__ATT_E8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define LLM__ATT_E_LOAD(c) llm__rv e##c = llm__rv_mul(llm__rv_load(o + d + (c) * W), va);
#define LLM__ATT_E_FMA(c) e##c = llm__rv_fma(pj, llm__rv_load(v0 + (c) * W), e##c);
#define LLM__ATT_E_STORE(c) llm__rv_store(o + d + (c) * W, e##c);
        LLM__ATT_E8(LLM__ATT_E_LOAD)
        for (j = 0; j < nk; j++, v0 += hd) {
            llm__rv pj = llm__rv_set1(p[j]);
            if (j < npf) llm__att_prefetch(pf + (size_t)j * pf_row, pf_row);
            LLM__ATT_E8(LLM__ATT_E_FMA)
        }
        LLM__ATT_E8(LLM__ATT_E_STORE)
        npf = 0;
    }
    for (; d + 4 * W <= hd; d += 4 * W) {
        const float *v0 = V + d;
        llm__rv e0 = llm__rv_mul(llm__rv_load(o + d), va), e1 = llm__rv_mul(llm__rv_load(o + d + W), va);
        llm__rv e2 = llm__rv_mul(llm__rv_load(o + d + 2 * W), va), e3 = llm__rv_mul(llm__rv_load(o + d + 3 * W), va);
        llm__rv f0 = zero, f1 = zero, f2 = zero, f3 = zero;
        for (j = 0; j + 2 <= nk; j += 2, v0 += 2 * (size_t)hd) {
            llm__rv pe = llm__rv_set1(p[j]), po = llm__rv_set1(p[j + 1]);
            if (j < npf) llm__att_prefetch(pf + (size_t)j * pf_row, 2 * pf_row);
            e0 = llm__rv_fma(pe, llm__rv_load(v0), e0);
            e1 = llm__rv_fma(pe, llm__rv_load(v0 + W), e1);
            e2 = llm__rv_fma(pe, llm__rv_load(v0 + 2 * W), e2);
            e3 = llm__rv_fma(pe, llm__rv_load(v0 + 3 * W), e3);
            f0 = llm__rv_fma(po, llm__rv_load(v0 + hd), f0);
            f1 = llm__rv_fma(po, llm__rv_load(v0 + hd + W), f1);
            f2 = llm__rv_fma(po, llm__rv_load(v0 + hd + 2 * W), f2);
            f3 = llm__rv_fma(po, llm__rv_load(v0 + hd + 3 * W), f3);
        }
        if (j < nk) {
            llm__rv pe = llm__rv_set1(p[j]);
            e0 = llm__rv_fma(pe, llm__rv_load(v0), e0);
            e1 = llm__rv_fma(pe, llm__rv_load(v0 + W), e1);
            e2 = llm__rv_fma(pe, llm__rv_load(v0 + 2 * W), e2);
            e3 = llm__rv_fma(pe, llm__rv_load(v0 + 3 * W), e3);
        }
        llm__rv_store(o + d, llm__rv_add(e0, f0));
        llm__rv_store(o + d + W, llm__rv_add(e1, f1));
        llm__rv_store(o + d + 2 * W, llm__rv_add(e2, f2));
        llm__rv_store(o + d + 3 * W, llm__rv_add(e3, f3));
        npf = 0;
    }
    for (; d + W <= hd; d += W) {
        llm__rv e0 = llm__rv_mul(llm__rv_load(o + d), va);
        for (j = 0; j < nk; j++) e0 = llm__rv_fma(llm__rv_set1(p[j]), llm__rv_load(V + (size_t)j * hd + d), e0);
        llm__rv_store(o + d, e0);
    }
    for (; d < hd; d++) { /* what is left of a head_dim that is no multiple of W */
        float acc = o[d] * a;
        for (j = 0; j < nk; j++) acc += p[j] * V[(size_t)j * hd + d];
        o[d] = acc;
    }
}

/* ---- lane groups: the query heads of a GQA group at one position (decode) ----
   One lane at a time reads every K and V row of the tile once per lane. Here LG lanes go
   together: each K vector loaded meets the LG queries (4 keys x LG lanes of accumulators),
   each V vector loaded is multiplied into the LG outputs (4 vectors of o x LG lanes), so
   the loads per FMA halve and the per-lane overheads are paid once per group. The names
   are written out by macros, because gcc -O2 keeps an array of vectors on the stack. */
#define LLM__ATT_G_DECL(l) llm__rv c##l##0 = zero, c##l##1 = zero, c##l##2 = zero, c##l##3 = zero;
#define LLM__ATT_G_QK(l)                                                                  \
    {                                                                                     \
        llm__rv qv = llm__rv_load(q[l] + d);                                              \
        c##l##0 = llm__rv_fma(qv, x0, c##l##0), c##l##1 = llm__rv_fma(qv, x1, c##l##1);    \
        c##l##2 = llm__rv_fma(qv, x2, c##l##2), c##l##3 = llm__rv_fma(qv, x3, c##l##3);    \
    }
#define LLM__ATT_G_SUM(l) llm__vsum4(c##l##0, c##l##1, c##l##2, c##l##3, s + (l) * LLM_ATTN_TILE + j);
#define LLM__ATT_G_OLOAD(l)                                                                 \
    llm__rv c##l##0 = llm__rv_mul(llm__rv_load(o[l] + d), llm__rv_set1(a[l]));               \
    llm__rv c##l##1 = llm__rv_mul(llm__rv_load(o[l] + d + W), llm__rv_set1(a[l]));           \
    llm__rv c##l##2 = llm__rv_mul(llm__rv_load(o[l] + d + 2 * W), llm__rv_set1(a[l]));       \
    llm__rv c##l##3 = llm__rv_mul(llm__rv_load(o[l] + d + 3 * W), llm__rv_set1(a[l]));
#define LLM__ATT_G_PV(l)                                                                  \
    {                                                                                     \
        llm__rv pj = llm__rv_set1(p[(l) * LLM_ATTN_TILE + j]);                            \
        c##l##0 = llm__rv_fma(pj, x0, c##l##0), c##l##1 = llm__rv_fma(pj, x1, c##l##1);    \
        c##l##2 = llm__rv_fma(pj, x2, c##l##2), c##l##3 = llm__rv_fma(pj, x3, c##l##3);    \
    }
#define LLM__ATT_G_OSTORE(l)                                                                \
    llm__rv_store(o[l] + d, c##l##0), llm__rv_store(o[l] + d + W, c##l##1);                 \
    llm__rv_store(o[l] + d + 2 * W, c##l##2), llm__rv_store(o[l] + d + 3 * W, c##l##3);

/* Stage 1 for a lane group: s[l * LLM_ATTN_TILE + j] = q'[l] . K[j] for the LG lanes and
   nk keys, hd % W == 0. Prefetch as in llm__att_scores. */
static void llm__att_scores_g(float *s, const float *const *q, const float *K, int nk, int hd, const char *pf,
                              size_t pf_row, int npf) {
    enum { W = LLM__ATT_W };
    const llm__rv zero = llm__rv_set1(0);
    int j = 0, d, l;
    for (; j + 4 <= nk; j += 4) {
        const float *k0 = K + (size_t)j * hd, *k1 = k0 + hd, *k2 = k1 + hd, *k3 = k2 + hd;
        LLM__ATT_GL(LLM__ATT_G_DECL)
        if (j < npf) llm__att_prefetch(pf + (size_t)j * pf_row, (size_t)(npf - j < 4 ? npf - j : 4) * pf_row);
        for (d = 0; d < hd; d += W) {
            llm__rv x0 = llm__rv_load(k0 + d), x1 = llm__rv_load(k1 + d), x2 = llm__rv_load(k2 + d);
            llm__rv x3 = llm__rv_load(k3 + d);
            LLM__ATT_GL(LLM__ATT_G_QK)
        }
        LLM__ATT_GL(LLM__ATT_G_SUM)
    }
    for (l = 0; l < LLM__ATT_LG; l++) {
        int r;
        for (r = j; r < nk; r++) s[l * LLM_ATTN_TILE + r] = llm__att_dot(q[l], K + (size_t)r * hd, hd);
    }
}

/* Stage 3 for a lane group: o[l] = a[l] o[l] + sum_j p[l * LLM_ATTN_TILE + j] V[j],
   hd % (4 W) == 0: 4 vectors of head_dim per pass over the tile's V rows (from L1 after
   the first). Prefetch as in llm__att_pv, spread over the passes. */
static void llm__att_pv_g(float *const *o, const float *a, const float *p, const float *V, int nk, int hd,
                          const char *pf, size_t pf_row, int npf) {
    enum { W = LLM__ATT_W };
    int d, j, pass = 0, npass = hd / (4 * W);
    for (d = 0; d < hd; d += 4 * W, pass++) {
        const float *vr = V + d;
        int jp = pass; /* pass p prefetches rows p, p + npass, ... */
        LLM__ATT_GL(LLM__ATT_G_OLOAD)
        for (j = 0; j < nk; j++, vr += hd) {
            llm__rv x0 = llm__rv_load(vr), x1 = llm__rv_load(vr + W), x2 = llm__rv_load(vr + 2 * W);
            llm__rv x3 = llm__rv_load(vr + 3 * W);
            if (j == jp) {
                if (j < npf) llm__att_prefetch(pf + (size_t)j * pf_row, pf_row);
                jp += npass;
            }
            LLM__ATT_GL(LLM__ATT_G_PV)
        }
        LLM__ATT_GL(LLM__ATT_G_OSTORE)
    }
}

/* ---- small heads (head_dim < W; AVX-512's head_dim 8 has its own stages below) ----
   A row shorter than one vector leaves the dot products and o += p_j v_j scalar, per key.
   Instead the tile is transposed once (shared by the unit's lanes), K^T and V^T [hd][ld]
   (ld = keys rounded up to W, the pad zero), and the vectors run along keys:
   s[j..j+W) = sum_d q'[d] K^T[d][j..j+W), and o[d] = sum_j p[j] V^T[d][j]: one horizontal
   sum per dimension per tile, not per key. (With AVX2's W = 8 the transpose costs more
   than it saves at head_dim 8, which keeps the row stages there.) */
/* Row length of K^T / V^T: the keys rounded up to W, plus W more zeros, because a lane
   whose window starts at key js reads whole vectors from js and may run up to W - 1 past
   the tile's last key; those reads must land on zeros of this row, never on the next row
   or on stale stack memory (0 * NaN would poison the sum). */
static int llm__att_ld(int nk) { return (nk + LLM__ATT_W - 1) / LLM__ATT_W * LLM__ATT_W + LLM__ATT_W; }

static void llm__att_transpose(float *t, const float *x, int nk, int hd) {
    int j, d, ld = llm__att_ld(nk);
    for (d = 0; d < hd; d++) {
        for (j = 0; j < nk; j++) t[(size_t)d * ld + j] = x[(size_t)j * hd + d];
        for (; j < ld; j++) t[(size_t)d * ld + j] = 0.0f;
    }
}

/* Stage 1 from K^T; writes s up to n rounded up to W (s holds LLM_ATTN_TILE). */
static void llm__att_scores_t(float *s, const float *q, const llm__att_tile *t, int js, int n, int r0, int npf) {
    const float *KT = t->KT + (js - t->j0);
    int j, d;
    (void)r0, (void)npf; /* small heads: the whole tile is a few KiB */
    for (j = 0; j < n; j += LLM__ATT_W) {
        llm__rv acc = llm__rv_set1(0.0f);
        for (d = 0; d < t->hd; d++) acc = llm__rv_fma(llm__rv_set1(q[d]), llm__rv_load(KT + (size_t)d * t->ld + j), acc);
        llm__rv_store(s + j, acc);
    }
}

/* Stage 3 from V^T; p is zeroed from n up to a whole vector. */
static void llm__att_pv_t(float *o, float a, float *p, const llm__att_tile *t, int js, int n, int r0, int npf) {
    const float *VT = t->VT + (js - t->j0);
    int j, d;
    (void)r0, (void)npf;
    for (j = n; j < (n + LLM__ATT_W - 1) / LLM__ATT_W * LLM__ATT_W; j++) p[j] = 0.0f;
    for (d = 0; d < t->hd; d++) {
        llm__rv acc = llm__rv_set1(0.0f);
        for (j = 0; j < n; j += LLM__ATT_W) acc = llm__rv_fma(llm__rv_load(p + j), llm__rv_load(VT + (size_t)d * t->ld + j), acc);
        o[d] = o[d] * a + llm__rv_hsum(acc);
    }
}

#if defined(LLM__AVX512)
/* ---- head_dim 8 with AVX-512 (stories260K): two keys per vector, no transpose ----
   A 16-float vector holds rows j and j+1 of K (or V) as they lie in the cache. Scores of
   16 keys: eight products q'.k (q' repeated twice), then a reduction tree sums each group
   of 8 lanes: pairs of lanes (unpack), then 4-lane blocks (shuffle), then the two
   blocks of a key (128-bit shuffle), leaving the 16 sums in an order one permute undoes.
   P V: p_j and p_j+1 are spread over the two halves of a vector (one permute) and
   multiply the two rows at once; the halves are added at the end. Rows past n are
   masked loads of zero: no transposes, which dominated head_dim-8 decode. */
/* The lanes of keys j, j + 1 that exist when `left` keys remain from j. */
static __mmask16 llm__att_pair_mask(int left) {
    return (__mmask16)(left >= 2 ? 0xffffu : left == 1 ? 0x00ffu : 0u);
}
static void llm__att_scores8(float *s, const float *q, const llm__att_tile *t, int js, int n, int r0, int npf) {
    const float *K = t->K + (size_t)(js - t->j0) * 8;
    /* q' twice (a 256-bit broadcast written with AVX512F alone: the f32x8 one needs DQ) */
    const __m512 qq = _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(q))));
    /* lane of the reduced vector that holds key k (even keys of each 8 first) */
    const __m512i order = _mm512_set_epi32(15, 11, 14, 10, 13, 9, 12, 8, 7, 3, 6, 2, 5, 1, 4, 0);
    int j, i;
    (void)r0, (void)npf;
    for (j = 0; j < n; j += 16) {
        __m512 p[8], a[4], c0, c1, r;
        __mmask16 valid = (__mmask16)(n - j >= 16 ? 0xffffu : (1u << (n - j)) - 1u);
        for (i = 0; i < 8; i++) {
            __mmask16 mk = llm__att_pair_mask(n - j - 2 * i);
            p[i] = _mm512_mul_ps(qq, _mm512_maskz_loadu_ps(mk, K + (size_t)(j + 2 * i) * 8));
        }
        for (i = 0; i < 4; i++) /* per 128-bit block: [p0 d0+d2, p1 d0+d2, p0 d1+d3, p1 d1+d3] */
            a[i] = _mm512_add_ps(_mm512_unpacklo_ps(p[2 * i], p[2 * i + 1]), _mm512_unpackhi_ps(p[2 * i], p[2 * i + 1]));
        /* per block b: the 4-dim sums of p0..p3 (c0) and p4..p7 (c1) */
        c0 = _mm512_add_ps(_mm512_shuffle_ps(a[0], a[1], 0x44), _mm512_shuffle_ps(a[0], a[1], 0xee));
        c1 = _mm512_add_ps(_mm512_shuffle_ps(a[2], a[3], 0x44), _mm512_shuffle_ps(a[2], a[3], 0xee));
        /* blocks 0 + 1 are a key's two halves, 2 + 3 the next key's */
        r = _mm512_add_ps(_mm512_shuffle_f32x4(c0, c1, 0x88), _mm512_shuffle_f32x4(c0, c1, 0xdd));
        _mm512_mask_storeu_ps(s + j, valid, _mm512_permutexvar_ps(order, r));
    }
}

static void llm__att_pv8(float *o, float a, float *p, const llm__att_tile *t, int js, int n, int r0, int npf) {
    const float *V = t->V + (size_t)(js - t->j0) * 8;
    const __m512i two = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
    __m256 sum;
    int j, i;
    (void)r0, (void)npf;
    for (j = 0; j < n; j += 16) {
        __mmask16 valid = (__mmask16)(n - j >= 16 ? 0xffffu : (1u << (n - j)) - 1u);
        __m512 p16 = _mm512_maskz_loadu_ps(valid, p + j); /* zero past n */
        for (i = 0; i < 8; i += 2) {
            __mmask16 m0 = llm__att_pair_mask(n - j - 2 * i), m1 = llm__att_pair_mask(n - j - 2 * i - 2);
            __m512 pp0 = _mm512_permutexvar_ps(_mm512_add_epi32(two, _mm512_set1_epi32(2 * i)), p16);
            __m512 pp1 = _mm512_permutexvar_ps(_mm512_add_epi32(two, _mm512_set1_epi32(2 * i + 2)), p16);
            acc0 = _mm512_fmadd_ps(pp0, _mm512_maskz_loadu_ps(m0, V + (size_t)(j + 2 * i) * 8), acc0);
            acc1 = _mm512_fmadd_ps(pp1, _mm512_maskz_loadu_ps(m1, V + (size_t)(j + 2 * i + 2) * 8), acc1);
        }
    }
    acc0 = _mm512_add_ps(acc0, acc1);
    sum = _mm256_add_ps(_mm512_castps512_ps256(acc0), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc0), 1)));
    _mm256_storeu_ps(o, _mm256_fmadd_ps(_mm256_loadu_ps(o), _mm256_set1_ps(a), sum));
}
#endif

/* The rows kernel's stages for this call's head_dim, chosen once. */
static void llm__att_plan(llm__att_job *J) {
    J->scores = llm__att_scores;
    J->pv = llm__att_pv;
    J->small = 0;
    J->grouped = J->hd % (4 * LLM__ATT_W) == 0;
#if defined(LLM__AVX512)
    if (J->hd == 8) {
        J->scores = llm__att_scores8;
        J->pv = llm__att_pv8;
        return;
    }
#endif
    if (J->hd < LLM__ATT_W) {
        J->scores = llm__att_scores_t;
        J->pv = llm__att_pv_t;
        J->small = 1;
    }
}

/* ---- rows kernel: one lane (or lane group) at a time, vectors along head_dim ----
   n lanes with scaled queries qp (q'), output pointers op, positions pos. */
static void llm__att_rows(const llm__att_job *J, int kvh, int n, const float *const *qp, float *const *op,
                          const int *pos, llm__att_work *w) {
    float *o = (float *)w->u.rows.o, *s = w->u.rows.s;
    float m[LLM__ATT_QB], l[LLM__ATT_QB];
    /* several lanes (a GQA group, or a lane group's passes over V) re-read each tile: it
       must stay in L1, so heads over 64 dims take 32 keys (32 KiB of K and V at hd 128) */
    int hd = J->hd, tile = n > 1 && hd > 64 && J->tile > 32 ? 32 : J->tile, lo = pos[0], hi = pos[n - 1], i, j0, d;
    int kstart = J->window > 0 && lo - J->window + 1 > 0 ? lo - J->window + 1 : 0;
    llm__att_tile t;
    t.hd = hd;
    t.row = (size_t)hd * llm__kv_esize(J->dtype);
    t.KT = (float *)w->kbuf + LLM__ATT_CONV / 2; /* small heads: after the converted rows (<= 16 x 80 floats) */
    t.VT = (float *)w->vbuf + LLM__ATT_CONV / 2;
    for (i = 0; i < n; i++) {
        m[i] = -INFINITY; /* running max */
        l[i] = 0;         /* running sum of exp(s - m) */
        memset(o + (size_t)i * hd, 0, (size_t)hd * sizeof(float));
    }
    for (j0 = kstart; j0 <= hi; j0 += tile) {
        /* the lanes share out the next tile's rows of the cache (fp32, f16 or int8) to prefetch */
        int nk = hi + 1 - j0 < tile ? hi + 1 - j0 : tile;
        int pf_rows = j0 + nk <= hi ? (hi + 1 - j0 - nk < tile ? hi + 1 - j0 - nk : tile) : 0;
        size_t next = ((size_t)kvh * J->kv_stride + j0 + nk) * t.row;
        t.j0 = j0;
        t.nk = nk;
        t.K = llm__att_fetch(J, J->k, J->ks, kvh, j0, nk, (float *)w->kbuf);
        t.V = llm__att_fetch(J, J->v, J->vs, kvh, j0, nk, (float *)w->vbuf);
        t.kn = (const char *)J->k + next;
        t.vn = (const char *)J->v + next;
        t.ld = llm__att_ld(nk);
        if (J->small) llm__att_transpose(t.KT, t.K, nk, hd), llm__att_transpose(t.VT, t.V, nk, hd);
        for (i = 0; i < n; i++) {
            /* this lane sees keys js..je-1 of the tile: causal and window bounds */
            int js = J->window > 0 && pos[i] - J->window + 1 > j0 ? pos[i] - J->window + 1 : j0;
            int je = pos[i] + 1 < j0 + nk ? pos[i] + 1 : j0 + nk;
            int r0 = pf_rows * i / n, r1 = pf_rows * (i + 1) / n; /* this lane's prefetch share */
            float a;
            if (J->grouped && i + LLM__ATT_LG <= n && pos[i + LLM__ATT_LG - 1] == pos[i]) {
                /* LLM__ATT_LG lanes at one position: one group, the same keys */
                const float *gq[LLM__ATT_LG];
                float *go[LLM__ATT_LG], ga[LLM__ATT_LG];
                int g;
                r1 = pf_rows * (i + LLM__ATT_LG) / n;
                for (g = 0; g < LLM__ATT_LG; g++) gq[g] = qp[i + g], go[g] = o + (size_t)(i + g) * hd;
                if (js < je) {
                    llm__att_scores_g(s, gq, t.K + (size_t)(js - j0) * hd, je - js, hd, t.kn + r0 * t.row, t.row,
                                      r1 - r0);
                    for (g = 0; g < LLM__ATT_LG; g++)
                        ga[g] = llm__att_online(s + g * LLM_ATTN_TILE, je - js, J->softcap, &m[i + g], &l[i + g]);
                    llm__att_pv_g(go, ga, s, t.V + (size_t)(js - j0) * hd, je - js, hd, t.vn + r0 * t.row, t.row,
                                  r1 - r0);
                }
                i += LLM__ATT_LG - 1;
                continue;
            }
            if (js >= je) continue;
            J->scores(s, qp[i], &t, js, je - js, r0, r1 - r0);                  /* 1: s = q' K^T */
            a = llm__att_online(s, je - js, J->softcap, &m[i], &l[i]);          /* 2: p, a, l, m */
            J->pv(o + (size_t)i * hd, a, s, &t, js, je - js, r0, r1 - r0);      /* 3: o = a o + p V */
        }
    }
    for (i = 0; i < n; i++) { /* out = o / l, a vector at a time */
        d = 0;
        for (; d + LLM__ATT_W <= hd; d += LLM__ATT_W)
            llm__rv_store(op[i] + d, llm__rv_div(llm__rv_load(o + (size_t)i * hd + d), llm__rv_set1(l[i])));
        for (; d < hd; d++) op[i][d] = o[(size_t)i * hd + d] / l[i];
    }
}

/* ---- lanes kernel: 2 * W queries in vector lanes (prefill) ----
   Both products are register blocks of RB rows x 2 lane vectors, written out with macros
   so the accumulators stay in registers:
     S^T = K Q'^T: RB keys at a time; per step d, 2 vector loads of Q'^T[d] and RB
                   broadcasts of k_j[d] feed 2 * RB FMAs;
     O^T += V^T P^T: RB dims at a time; per key j, 2 loads of P^T[j] and RB broadcasts of
                   v_j[d] feed 2 * RB FMAs, the O^T block held over the whole tile. */
#define LLM__ATT_DECL(r) llm__rv c##r##a = zero, c##r##b = zero;
#define LLM__ATT_QK(r)                                           \
    {                                                            \
        llm__rv kb = llm__rv_set1(kr[(r) * hd + d]);             \
        c##r##a = llm__rv_fma(kb, qa, c##r##a);                  \
        c##r##b = llm__rv_fma(kb, qb, c##r##b);                  \
    }
#define LLM__ATT_ST(r)                                           \
    llm__rv_store(st + (j + (r)) * QB, c##r##a);                 \
    llm__rv_store(st + (j + (r)) * QB + W, c##r##b);
#define LLM__ATT_OLOAD(r)                                                  \
    llm__rv c##r##a = llm__rv_mul(llm__rv_load(ot + (d + (r)) * QB), a[0]); \
    llm__rv c##r##b = llm__rv_mul(llm__rv_load(ot + (d + (r)) * QB + W), a[1]);
#define LLM__ATT_PV(r)                                           \
    {                                                            \
        llm__rv vb = llm__rv_set1(vr[r]);                        \
        c##r##a = llm__rv_fma(vb, pa, c##r##a);                  \
        c##r##b = llm__rv_fma(vb, pb, c##r##b);                  \
    }
#define LLM__ATT_OSTORE(r)                                       \
    llm__rv_store(ot + (d + (r)) * QB, c##r##a);                 \
    llm__rv_store(ot + (d + (r)) * QB + W, c##r##b);

/* n lanes whose scaled queries are already in Q'^T (w->u.lanes.qt, unused lanes zero). */
static void llm__att_lanes(const llm__att_job *J, int kvh, int n, float *const *op, const int *pos,
                           llm__att_work *w) {
    enum { QB = LLM__ATT_QB, W = LLM__ATT_W, RB = LLM__ATT_RB };
    float *qt = (float *)w->u.lanes.qt, *ot = (float *)w->u.lanes.ot, *st = (float *)w->u.lanes.st;
    int hd = J->hd, lo = pos[0], hi = pos[n - 1], i, j, j0, d;
    int kstart = J->window > 0 && lo - J->window + 1 > 0 ? lo - J->window + 1 : 0;
    int tile = J->tile;
    const llm__rv zero = llm__rv_set1(0);
    llm__rv m[2], l[2], a[2]; /* per vector of lanes: running max, running sum, rescale */
    float lv[QB];
    m[0] = m[1] = llm__rv_set1(-INFINITY);
    l[0] = l[1] = zero;
    memset(ot, 0, (size_t)hd * QB * sizeof(float));
    for (j0 = kstart; j0 <= hi; j0 += tile) {
        int nk = hi + 1 - j0 < tile ? hi + 1 - j0 : tile;
        const float *K = llm__att_fetch(J, J->k, J->ks, kvh, j0, nk, (float *)w->kbuf);
        const float *V = llm__att_fetch(J, J->v, J->vs, kvh, j0, nk, (float *)w->vbuf);
        /* stage 1: S^T = K Q'^T */
        for (j = 0; j + RB <= nk; j += RB) {
            const float *kr = K + (size_t)j * hd;
            LLM__ATT_ROWS(LLM__ATT_DECL)
            for (d = 0; d < hd; d++) {
                llm__rv qa = llm__rv_load(qt + d * QB), qb = llm__rv_load(qt + d * QB + W);
                LLM__ATT_ROWS(LLM__ATT_QK)
            }
            LLM__ATT_ROWS(LLM__ATT_ST)
        }
        for (; j < nk; j++) { /* leftover keys, one at a time */
            const float *kr = K + (size_t)j * hd;
            LLM__ATT_DECL(0)
            for (d = 0; d < hd; d++) {
                llm__rv qa = llm__rv_load(qt + d * QB), qb = llm__rv_load(qt + d * QB + W);
                LLM__ATT_QK(0)
            }
            llm__rv_store(st + j * QB, c0a);
            llm__rv_store(st + j * QB + W, c0b);
        }
        /* stage 2: softcap, then the mask, only on tiles that cross the diagonal or the
           window's edge, then the update down the lanes */
        if (J->softcap > 0) llm__att_softcap(st, nk * QB, J->softcap);
        if (j0 + nk - 1 > lo || (J->window > 0 && j0 < hi - J->window + 1))
            for (j = 0; j < nk; j++) {
                int kp = j0 + j;
                if (kp <= lo && (J->window == 0 || kp >= hi - J->window + 1)) continue; /* all lanes see it */
                for (i = 0; i < n; i++)
                    if (kp > pos[i] || (J->window > 0 && kp < pos[i] - J->window + 1)) st[j * QB + i] = -INFINITY;
            }
        llm__att_online_lanes(st, nk, m, l, a);
        /* stage 3: O^T = a O^T + V^T P^T */
        for (d = 0; d + RB <= hd; d += RB) {
            LLM__ATT_ROWS(LLM__ATT_OLOAD)
            for (j = 0; j < nk; j++) {
                llm__rv pa = llm__rv_load(st + j * QB), pb = llm__rv_load(st + j * QB + W);
                const float *vr = V + (size_t)j * hd + d;
                LLM__ATT_ROWS(LLM__ATT_PV)
            }
            LLM__ATT_ROWS(LLM__ATT_OSTORE)
        }
        for (; d < hd; d++) { /* leftover dims */
            llm__rv c0a = llm__rv_mul(llm__rv_load(ot + d * QB), a[0]);
            llm__rv c0b = llm__rv_mul(llm__rv_load(ot + d * QB + W), a[1]);
            for (j = 0; j < nk; j++) {
                llm__rv pa = llm__rv_load(st + j * QB), pb = llm__rv_load(st + j * QB + W);
                const float *vr = V + (size_t)j * hd + d;
                LLM__ATT_PV(0)
            }
            llm__rv_store(ot + d * QB, c0a);
            llm__rv_store(ot + d * QB + W, c0b);
        }
    }
    llm__rv_store(lv, l[0]);
    llm__rv_store(lv + W, l[1]);
    for (i = 0; i < n; i++) {
        float inv = 1.0f / lv[i];
        for (d = 0; d < hd; d++) op[i][d] = ot[d * QB + i] * inv;
    }
}

/* Run unit u: find its KV head and lanes, fold the scale into their queries, run the
   kernel for the lane count. */
static void llm__att_unit(const llm__att_job *J, int u, llm__att_work *w) {
    const float *qp[LLM__ATT_QB];
    float *op[LLM__ATT_QB];
    int pos[LLM__ATT_QB];
    /* head-major, and within a head the last (costliest) query block first: threads
       working at the same time share one head's K/V in the cache, and the cheap blocks
       come last, where they even out the threads' finishing times */
    int tb = J->units_t - 1 - u % J->units_t, hb = (u / J->units_t) % J->units_h, kvh = u / J->units_t / J->units_h;
    int h0 = kvh * J->group + hb * J->nh, h1 = h0 + J->nh, t0 = tb * J->nt, t1 = t0 + J->nt, t, h, n = 0, lanes, d;
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
    /* lanes when the unit fills a vector of lanes; with one-lane vectors (no SIMD), when
       its lanes are several positions, which leaves a GQA group at one position to the
       rows kernel's lane groups */
#ifdef LLM__RV_SCALAR
    lanes = n > 1 && pos[n - 1] != pos[0];
#else
    lanes = n >= LLM__ATT_W;
#endif
    /* q' = scale q, the one place the scale is applied: Q'^T [hd][lanes] for the lanes
       kernel (lanes past n zero), q'[lane][hd] for the rows kernel */
    if (lanes) {
        float *qt = (float *)w->u.lanes.qt;
        for (d = 0; d < J->hd; d++)
            for (h = 0; h < LLM__ATT_QB; h++) qt[d * LLM__ATT_QB + h] = h < n ? qp[h][d] * J->scale : 0.0f;
        llm__att_lanes(J, kvh, n, op, pos, w);
        return;
    }
    for (h = 0; h < n; h++) {
        float *qs = (float *)w->u.rows.q + (size_t)h * J->hd;
        for (d = 0; d < J->hd; d++) qs[d] = qp[h][d] * J->scale;
        qp[h] = qs;
    }
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

LLMDEF llm_attention_desc llm_attention_desc_default(void) {
    llm_attention_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = LLM_F32;
    return d;
}

LLMDEF llm_status llm_attention_ex(float *out, const float *q, const void *k, const void *v, int n_q, int n_kv,
                                   int kv_stride, int n_heads, int n_kv_heads, int head_dim,
                                   const llm_attention_desc *desc, llm_threads *th) {
    llm_attention_desc o = desc ? *desc : llm_attention_desc_default();
    llm__att_job J;
    if (!out || !q || !k || !v) return LLM_EINVAL;
    if (n_q <= 0 || n_kv < n_q || kv_stride < n_kv || n_heads <= 0 || n_kv_heads <= 0 || head_dim <= 0)
        return LLM_EINVAL;
    if (n_heads % n_kv_heads || o.window < 0 || o.tile < 0 || o.tile > LLM_ATTN_TILE) return LLM_EINVAL;
    /* scale: finite, >= 0 (0 = default); softcap: 0 or a finite normal float, so that
       1 / softcap is finite too. NaN fails every comparison. */
    if (!(o.scale >= 0 && o.scale <= FLT_MAX)) return LLM_EINVAL;
    if (o.softcap != 0 && !(o.softcap >= FLT_MIN && o.softcap <= FLT_MAX)) return LLM_EINVAL;
    if (o.dtype != LLM_F32 && o.dtype != LLM_F16 && o.dtype != LLM_INT8) return LLM_EUNSUPPORTED;
    if (o.dtype == LLM_INT8 && (!o.k_scale || !o.v_scale)) return LLM_EINVAL;
    if (head_dim > LLM_ATTN_MAX_HEAD_DIM) return LLM_EUNSUPPORTED;
    memset(&J, 0, sizeof J);
    J.out = out;
    J.q = q;
    J.k = k;
    J.v = v;
    J.ks = o.k_scale;
    J.vs = o.v_scale;
    J.dtype = o.dtype;
    J.n_q = n_q;
    J.n_kv = n_kv;
    J.kv_stride = kv_stride;
    J.n_heads = n_heads;
    J.n_kv_heads = n_kv_heads;
    J.hd = head_dim;
    J.window = o.window;
    J.tile = o.tile ? o.tile : LLM_ATTN_TILE;
    if (o.dtype != LLM_F32 && J.tile > LLM__ATT_CONV / head_dim) J.tile = LLM__ATT_CONV / head_dim;
    J.group = n_heads / n_kv_heads;
    J.nh = J.group < LLM__ATT_QB ? J.group : LLM__ATT_QB;
    /* decode with fewer KV heads than threads (MQA): split each group's heads over more
       units, as long as a unit still fills a vector; every lane then computes exactly
       what it did in the bigger unit, so results still don't depend on the threads */
    while (n_q == 1 && J.nh % 2 == 0 && J.nh / 2 >= LLM__ATT_W && J.nh / 2 > 1 &&
           (int64_t)n_kv_heads * ((J.group + J.nh - 1) / J.nh) < llm_threads_count(th))
        J.nh /= 2;
    J.nt = LLM__ATT_QB / J.nh;
    J.units_h = (J.group + J.nh - 1) / J.nh;
    J.units_t = (n_q + J.nt - 1) / J.nt;
    if ((int64_t)J.units_h * n_kv_heads * J.units_t > INT_MAX) return LLM_EINVAL;
    J.n_units = J.units_h * n_kv_heads * J.units_t;
    J.scale = o.scale > 0 ? o.scale : 1.0f / LLM_SQRTF((float)head_dim);
    J.softcap = o.softcap;
    llm__att_plan(&J);
    llm_threads_run(th, llm__att_task, &J);
    return LLM_OK;
}

LLMDEF llm_status llm_attention(float *out, const float *q, const float *k, const float *v,
                                int n_q, int n_kv, int kv_stride, int n_heads, int n_kv_heads, int head_dim,
                                llm_threads *th) {
    return llm_attention_ex(out, q, k, v, n_q, n_kv, kv_stride, n_heads, n_kv_heads, head_dim, NULL, th);
}

LLMDEF llm_status llm_attention_cache_ex(float *out, const float *q, const llm_kv_cache *kv, int layer, int n_q,
                                         int pos, int n_heads, const llm_attention_desc *desc, llm_threads *th) {
    llm_attention_desc o = desc ? *desc : llm_attention_desc_default();
    size_t off, esize;
    if (!kv || !kv->k || !kv->v || layer < 0 || layer >= kv->n_layers || n_q <= 0 || n_heads <= 0)
        return LLM_EINVAL;
    if (o.dtype != LLM_F32 || o.k_scale || o.v_scale) return LLM_EINVAL; /* the cache says those */
    if (pos < 0 || pos > kv->len - n_q) return LLM_ERANGE;               /* keys must be written first */
    esize = llm__kv_esize(kv->dtype);
    off = (size_t)layer * (size_t)kv->n_kv_heads * (size_t)kv->capacity; /* rows before this layer */
    o.dtype = kv->dtype;
    o.k_scale = kv->k_scale ? kv->k_scale + off : NULL;
    o.v_scale = kv->v_scale ? kv->v_scale + off : NULL;
    return llm_attention_ex(out, q, (const char *)kv->k + off * kv->head_dim * esize,
                            (const char *)kv->v + off * kv->head_dim * esize, n_q, pos + n_q, kv->capacity, n_heads,
                            kv->n_kv_heads, kv->head_dim, &o, th);
}

LLMDEF llm_status llm_attention_cache(float *out, const float *q, const llm_kv_cache *kv, int layer, int n_q,
                                      int pos, int n_heads, int window, llm_threads *th) {
    llm_attention_desc o = llm_attention_desc_default();
    o.window = window;
    return llm_attention_cache_ex(out, q, kv, layer, n_q, pos, n_heads, &o, th);
}


/* ======================================================================================
   >>model implementation
   ====================================================================================== */

static float llm__model_eps(const llm_config *c) { return c->norm_eps > 0 ? c->norm_eps : 1e-5f; }

/* The shapes a forward pass needs, checked once: llm_config_runnable (llm_config_check,
   the one validation every section shares, and the features the forward pass has), then
   caps that keep the int products of a forward pass (n_heads * head_dim, n * d) inside
   int. An invalid config is LLM_EINVAL, one the forward pass cannot run LLM_EUNSUPPORTED. */
/* The shared experts' total width n_shared_experts * d_ff_shared (one FFN that wide). */
static int64_t llm__shared_ff(const llm_config *c) {
    return (int64_t)c->n_shared_experts * (c->d_ff_shared ? c->d_ff_shared : c->d_ff);
}

static llm_status llm__model_check(const llm_config *c) {
    int hd;
    llm_status st = llm_config_runnable(c, NULL);
    if (st != LLM_OK) return st;
    hd = llm_config_head_dim(c);
    if (hd <= 0) return LLM_EINVAL;
    if (c->d_model > (1 << 20) || c->d_ff > (1 << 22) || c->n_layers > 4096 || c->vocab > (1 << 24) ||
        (int64_t)c->n_heads * hd > (1 << 22) || c->n_experts > (1 << 16) || llm__shared_ff(c) > (1 << 22))
        return LLM_EINVAL;
    return LLM_OK;
}

/* Rounded up to a 64-byte boundary (one cache line, one AVX-512 vector). */
#define LLM__MALIGN(n) ((((uint64_t)(n)) + 63u) & ~(uint64_t)63u)

/* Attention below LLM__PAR_MIN_WORK multiply-adds runs on the caller's thread (the
   kernels apply the same rule to every linear layer). */
static llm_threads *llm__model_th(llm_threads *th, int64_t work) { return work >= LLM__PAR_MIN_WORK ? th : NULL; }

/* y = x W^T + b, plus a LoRA adapter's s B (A x) per token when ad has one (u = s A x in
   chunks of 64 ranks on the stack, so the block needs no scratch for it). */
/* llm_linear_wx's flags and scratch for a block's linear layers */
typedef struct llm__linx {
    unsigned flags; /* LLM_LIN_PREFILL for one sequence's tokens */
    void *scratch;  /* llm_linear_wx_bytes(n, the widest d_in) bytes, or NULL */
    size_t bytes;
} llm__linx;

static llm_status llm__model_lin(float *y, const float *x, const llm_weight *W, const float *b, int n, int d_in,
                                 int d_out, const llm_lora_ab *ad, const llm__linx *lx, llm_threads *th) {
    float u[64];
    int t, k0, k, o, kn;
    llm_status st = lx ? llm_linear_wx(y, x, W, b, n, d_in, d_out, lx->flags, lx->scratch, lx->bytes, th)
                       : llm_linear_w(y, x, W, b, n, d_in, d_out, th);
    if (st != LLM_OK || !ad || !ad->a) return st;
    if (!ad->b || ad->rank <= 0) return LLM_EINVAL;
    for (t = 0; t < n; t++)
        for (k0 = 0; k0 < ad->rank; k0 += kn) {
            const float *xt = x + (size_t)t * d_in;
            kn = ad->rank - k0 < 64 ? ad->rank - k0 : 64;
            for (k = 0; k < kn; k++) u[k] = ad->scale * llm__dot(ad->a + (size_t)(k0 + k) * d_in, xt, d_in);
            for (o = 0; o < d_out; o++) y[(size_t)t * d_out + o] += llm__dot(ad->b + (size_t)o * ad->rank + k0, u, kn);
        }
    return LLM_OK;
}
/* layer w's adapter of projection k (LLM_LORA_* order), or NULL */
#define LLM__AD(w, k) ((w)->lora ? &(w)->lora[k] : NULL)

/* out[i] = Norm(x[i]) for n rows of d: RMSNorm or LayerNorm as the config says. */
static llm_status llm__model_norm(const llm_config *c, float *out, const float *x, const float *w, const float *b,
                                 int n, int d) {
    int i;
    llm_status st = LLM_OK;
    if (!w) return LLM_EINVAL;
    for (i = 0; i < n && st == LLM_OK; i++) {
        if (c->norm == LLM_NORM_LAYER)
            st = llm_layernorm(out + (size_t)i * d, x + (size_t)i * d, w, b, d, llm__model_eps(c));
        else
            st = llm_rmsnorm(out + (size_t)i * d, x + (size_t)i * d, w, d, llm__model_eps(c));
    }
    return st;
}

/* What a sub-layer reads: h = Norm(x) in xb (pre-norm), or x itself (post-norm, which
   norms x after the residual add instead). */
static llm_status llm__model_sub_in(const llm_config *c, float *xb, const float *x, const float *w, const float *b,
                                    int n, int d, const float **in) {
    *in = c->post_norm ? x : xb;
    return c->post_norm ? LLM_OK : llm__model_norm(c, xb, x, w, b, n, d);
}

/* The config is the one source of truth for what a block has: a bias or norm bias it
   names must be there, one it does not name must be absent (a loader that found a bias
   the config lacks has the wrong config). w3 / b3 are not read by an ungated FFN. */
static llm_status llm__layer_check(const llm_config *c, const llm_layer_weights *w) {
    const llm__bias_info *bk = &llm__bias_kinds[c->bias];
    int gated = llm__ffn_kinds[c->ffn].matrices == 3, nb = c->norm_bias != 0;
    if (!w->attn_norm || !w->ffn_norm || !w->wq.data || !w->wk.data || !w->wv.data || !w->wo.data ||
        !w->w1.data || !w->w2.data || (gated && !w->w3.data))
        return LLM_EINVAL;
    if (!w->attn_norm_b != !nb || !w->ffn_norm_b != !nb) return LLM_EINVAL;
    if (!w->bq != !bk->qkv || !w->bk != !bk->qkv || !w->bv != !bk->qkv) return LLM_EINVAL;
    if (!w->bo != !bk->rest || !w->b1 != !bk->rest || !w->b2 != !bk->rest || (gated && !w->b3 != !bk->rest))
        return LLM_EINVAL;
    if (!w->q_norm != !c->qk_norm || !w->k_norm != !c->qk_norm) return LLM_EINVAL;
    if (!w->attn_post_norm != !c->sandwich_norm || !w->ffn_post_norm != !c->sandwich_norm) return LLM_EINVAL;
    /* experts: a router with them, shared matrices with shared experts, a gate with shared_gate */
    if (!w->router.data != !c->n_experts || !w->ws_gate != !c->shared_gate) return LLM_EINVAL;
    if (!w->ws1.data != !c->n_shared_experts || !w->ws2.data != !c->n_shared_experts || !w->ws3.data != !c->n_shared_experts)
        return LLM_EINVAL;
    return LLM_OK;
}

/* RMSNorm of each of the n rows of heads of hd in x, in place, with the gains w[hd]
   (qk_norm: Qwen3 normalizes every query and key head on its own). */
static llm_status llm__model_head_norm(const llm_config *c, float *x, int64_t rows, int hd, const float *w) {
    int64_t i;
    llm_status st = LLM_OK;
    for (i = 0; i < rows && st == LLM_OK; i++) st = llm_rmsnorm(x + (size_t)i * hd, x + (size_t)i * hd, w, hd, llm__model_eps(c));
    return st;
}

/* GEGLU's gate: gelu(gate) * up (the FFN kinds table's row for Gemma). */
static llm_status llm__geglu(float *out, const float *gate, const float *up, int n) {
    int j;
    llm_status st = llm_gelu(out, gate, n);
    for (j = 0; st == LLM_OK && j < n; j++) out[j] *= up[j];
    return st;
}

/* Scratch layout of one block over n tokens, in floats, each buffer 64-byte aligned:
   xb [n][d] normed input / projection output, q [n][q_dim], k and v [n][kv_dim],
   att [n][q_dim] attention output, hb and hb2 [n][d_ff] FFN hidden (MoE: [n][the wider
   of d_ff and the shared width]). MoE only (else empty): probs [n][n_experts] router
   probabilities, ew [n][k] and ei [n][k] each token's chosen weights and experts, ord [n k]
   the (token, slot) pairs grouped by expert, cnt [n_experts + 1] where each group starts,
   gx and gy [n][d] one expert's gathered inputs and outputs, acc [n][d] the mix. */
typedef struct llm__model_buf {
    float *xb, *q, *k, *v, *att, *hb, *hb2;
    float *probs, *ew, *gx, *gy, *acc;
    int32_t *ei, *ord, *cnt;
    llm__linx lx; /* the linear layers' flags, and the scratch of the last buffer */
} llm__model_buf;

#define LLM__NBUF 16
static uint64_t llm__model_block_layout(const llm_config *c, int n, void *mem, llm__model_buf *b) {
    uint64_t hd = (uint64_t)llm_config_head_dim(c), d = (uint64_t)c->d_model, qd = (uint64_t)c->n_heads * hd;
    uint64_t kvd = (uint64_t)c->n_kv_heads * hd, ff = (uint64_t)c->d_ff, nn = (uint64_t)n;
    uint64_t E = (uint64_t)c->n_experts, moe = E > 0, nk = nn * (uint64_t)c->n_experts_per_tok;
    uint64_t sizes[LLM__NBUF], off = 0;
    void *dst[LLM__NBUF];
    int i;
    if ((uint64_t)llm__shared_ff(c) > ff) ff = (uint64_t)llm__shared_ff(c);
    sizes[0] = nn * d, sizes[1] = nn * qd, sizes[2] = nn * kvd, sizes[3] = nn * kvd;
    sizes[4] = nn * qd, sizes[5] = nn * ff, sizes[6] = nn * ff;
    /* float and int32_t are both 4 bytes wide (llm.h assumes IEEE binary32) */
    sizes[7] = nn * E, sizes[8] = nk, sizes[9] = moe * nn * d, sizes[10] = moe * nn * d, sizes[11] = moe * nn * d;
    sizes[12] = nk, sizes[13] = nk, sizes[14] = moe * (E + 1);
    /* the linear layers' quantized activations (llm_linear_wx's scratch), in 4-byte units */
    sizes[15] = (llm_linear_wx_bytes(n, (int)(ff > qd ? (ff > d ? ff : d) : (qd > d ? qd : d))) + 3) / 4;
    if (b) {
        dst[0] = &b->xb, dst[1] = &b->q, dst[2] = &b->k, dst[3] = &b->v;
        dst[4] = &b->att, dst[5] = &b->hb, dst[6] = &b->hb2;
        dst[7] = &b->probs, dst[8] = &b->ew, dst[9] = &b->gx, dst[10] = &b->gy, dst[11] = &b->acc;
        dst[12] = &b->ei, dst[13] = &b->ord, dst[14] = &b->cnt, dst[15] = &b->lx.scratch;
        b->lx.bytes = (size_t)(sizes[15] * 4u);
    }
    for (i = 0; i < LLM__NBUF; i++) {
        if (mem && b && i < 12) *(float **)dst[i] = (float *)(void *)((char *)mem + off);
        if (mem && b && i >= 12 && i < 15) *(int32_t **)dst[i] = (int32_t *)(void *)((char *)mem + off);
        if (mem && b && i == 15) *(void **)dst[i] = (void *)((char *)mem + off);
        off += LLM__MALIGN(sizes[i] * 4u);
    }
    return off + 64; /* room to align the start */
}
#undef LLM__NBUF

LLMDEF size_t llm_block_scratch_bytes(const llm_config *c, int n_tokens) {
    uint64_t bytes;
    if (llm__model_check(c) != LLM_OK || n_tokens <= 0 || n_tokens > (1 << 20)) return 0;
    bytes = llm__model_block_layout(c, n_tokens, NULL, NULL);
    return bytes > (uint64_t)SIZE_MAX ? 0 : (size_t)bytes;
}

/* Row-wise y[i] += a[i], so n * d never has to fit an int. */
static llm_status llm__model_add(float *y, const float *a, int n, int d) {
    int i;
    llm_status st = LLM_OK;
    for (i = 0; i < n && st == LLM_OK; i++) st = llm_add(y + (size_t)i * d, y + (size_t)i * d, a + (size_t)i * d, d);
    return st;
}

/* ---- mixture of experts ---------------------------------------------------------------
   Each token's FFN is a weighted sum of k of the n_experts FFNs (Shazeer et al. 2017;
   Mixtral, Jiang et al. 2024): p = softmax(h Wr^T) over the experts, the k largest p_e
   (ties: the lower expert index), weights w_e = p_e / (sum of the k p's) for
   LLM_ROUTER_TOPK_NORM or p_e for LLM_ROUTER_TOPK, FFN(h) = sum_e w_e FFN_e(h); then the
   shared experts' FFN, for every token (times sigmoid(h . w_gate) with shared_gate). A
   batch is grouped by expert, so each chosen expert's matrices stream once per call (a
   prefill), not once per token; each group's matrix products are threaded as any linear
   layer's. Every token adds its experts in increasing expert order, whatever the batch. */

/* Expert e's matrix k (0 w1, 1 w2, 2 w3) [rows][cols]: the layer's table entry, or from a
   stack of them (one after another, each whole rows of whole blocks): its byte offset in
   64 bits, and its group scales for LLM_INT8. */
static llm_status llm__expert_view(llm_weight *v, const llm_layer_weights *L, int k, int e, int64_t rows, int64_t cols) {
    const llm_weight *w = k == 0 ? &L->w1 : k == 1 ? &L->w2 : &L->w3;
    const llm__wfmt *f = llm__wfmt_of(w->type);
    uint64_t per;
    if (L->experts) { /* each matrix of one type across the experts: llm_decode_bytes counts k of expert 0's */
        *v = L->experts[(size_t)e * 3 + (size_t)k];
        return v->data && v->type == w->type ? LLM_OK : LLM_EINVAL;
    }
    if (!w->data) return LLM_EINVAL;
    if (!f || f->blk <= 0) return LLM_EUNSUPPORTED;
    if (cols % f->blk) return LLM_EINVAL;
    per = (uint64_t)rows * (uint64_t)(cols / f->blk) * (uint64_t)f->blk_bytes;
    if (per * ((uint64_t)e + 1) > (uint64_t)PTRDIFF_MAX) return LLM_EINVAL;
    *v = *w;
    v->data = (const char *)w->data + (size_t)(per * (uint64_t)e);
    if (f->scales == LLM__SCALE_GROUP) {
        if (!w->scale || w->group_size <= 0 || cols % w->group_size) return LLM_EINVAL;
        v->scale = w->scale + (size_t)((uint64_t)rows * (uint64_t)cols / (uint64_t)w->group_size * (uint64_t)e);
    }
    return LLM_OK;
}

/* y[n][d] = W2 (act(W1 x) * W3 x) for one expert (or the shared ones), hidden width ff. */
static llm_status llm__moe_expert(const llm_config *c, float *y, const float *x, const llm_weight *w1, const llm_weight *w3,
                                  const llm_weight *w2, int n, int ff, const llm__model_buf *b, llm_threads *th) {
    const llm__ffn_info *ffn = &llm__ffn_kinds[c->ffn];
    int d = c->d_model, i;
    LLM__MTRY(llm__model_lin(b->hb, x, w1, NULL, n, d, ff, NULL, &b->lx, th));
    LLM__MTRY(llm__model_lin(b->hb2, x, w3, NULL, n, d, ff, NULL, &b->lx, th));
    for (i = 0; i < n; i++)
        LLM__MTRY(ffn->glu(b->hb + (size_t)i * ff, b->hb + (size_t)i * ff, b->hb2 + (size_t)i * ff, ff));
    return llm__model_lin(y, b->hb, w2, NULL, n, ff, d, NULL, &b->lx, th);
}

/* One token's router probabilities p[E] (overwritten) -> its k experts e[k] in order of
   falling p, ties to the lower index, and their weights wt[k]. A NaN never picks past E. */
static void llm__moe_route(const llm_config *c, float *p, int32_t *e, float *wt) {
    int E = c->n_experts, k = c->n_experts_per_tok, i, j;
    double sum = 0;
    for (j = 0; j < k; j++) {
        int best = -1;
        for (i = 0; i < E; i++)
            if (p[i] != -1.0f && (best < 0 || p[i] > p[best])) best = i; /* strict >: the lower index wins a tie */
        e[j] = best, wt[j] = p[best], sum += p[best];
        p[best] = -1.0f; /* taken: no probability is negative */
    }
    if (c->router == LLM_ROUTER_TOPK_NORM)
        for (j = 0; j < k; j++) wt[j] = (float)(wt[j] / sum);
}

/* b->xb[n][d] = the MoE FFN of h[n][d] (h may be b->xb itself: the mix is built in acc). */
static llm_status llm__moe_ffn(const llm_config *c, const llm_layer_weights *w, const float *h, int n,
                               const llm__model_buf *b, llm_threads *th) {
    int d = c->d_model, E = c->n_experts, k = c->n_experts_per_tok, ff = c->d_ff, t, j, e, i;
    size_t row = (size_t)d * sizeof(float);
    if ((int64_t)n * k > INT32_MAX) return LLM_EINVAL; /* ord holds t k + slot as an int32 */
    /* route: probabilities over all experts, then each token's top k */
    LLM__MTRY(llm__model_lin(b->probs, h, &w->router, NULL, n, d, E, NULL, &b->lx, th));
    for (t = 0; t < n; t++) {
        float *p = b->probs + (size_t)t * E;
        LLM__MTRY(llm_softmax(p, p, E));
        llm__moe_route(c, p, b->ei + (size_t)t * k, b->ew + (size_t)t * k);
    }
    /* group the (token, slot) pairs by expert, tokens in order within a group (a counting sort) */
    memset(b->cnt, 0, (size_t)(E + 1) * sizeof *b->cnt);
    for (i = 0; i < n * k; i++) b->cnt[b->ei[i] + 1]++;
    for (e = 0; e < E; e++) b->cnt[e + 1] += b->cnt[e];
    for (i = 0; i < n * k; i++) b->ord[b->cnt[b->ei[i]]++] = i; /* cnt[e] ends where group e ends */
    memset(b->acc, 0, (size_t)n * row);
    /* each chosen expert once, on its gathered tokens; acc[t] += w * FFN_e(h[t]) */
    for (e = 0, i = 0; e < E; e++) {
        int i0 = i, m = b->cnt[e] - i0;
        llm_weight w1, w2, w3;
        if (m == 0) continue;
        LLM__MTRY(llm__expert_view(&w1, w, 0, e, ff, d));
        LLM__MTRY(llm__expert_view(&w3, w, 2, e, ff, d));
        LLM__MTRY(llm__expert_view(&w2, w, 1, e, d, ff));
        for (j = 0; j < m; j++) memcpy(b->gx + (size_t)j * d, h + (size_t)(b->ord[i0 + j] / k) * d, row);
        LLM__MTRY(llm__moe_expert(c, b->gy, b->gx, &w1, &w3, &w2, m, ff, b, th));
        for (j = 0; j < m; j++, i++) {
            float a = b->ew[b->ord[i]], *o = b->acc + (size_t)(b->ord[i] / k) * d, *g = b->gy + (size_t)j * d;
            int x;
            for (x = 0; x < d; x++) o[x] += a * g[x];
        }
    }
    /* the shared experts, one FFN of their total width, for every token */
    if (c->n_shared_experts > 0) {
        LLM__MTRY(llm__moe_expert(c, b->gy, h, &w->ws1, &w->ws3, &w->ws2, n, (int)llm__shared_ff(c), b, th));
        for (t = 0; t < n; t++) {
            const float *ht = h + (size_t)t * d;
            float *o = b->acc + (size_t)t * d, *g = b->gy + (size_t)t * d, a = 1.0f;
            int x;
            if (c->shared_gate) { /* sigmoid(h . w_gate) */
                double z = 0;
                for (x = 0; x < d; x++) z += (double)ht[x] * w->ws_gate[x];
                a = (float)(1.0 / (1.0 + LLM_EXP(-z)));
            }
            for (x = 0; x < d; x++) o[x] += a * g[x];
        }
    }
    memcpy(b->xb, b->acc, (size_t)n * row);
    return LLM_OK;
}

/* One sequence's share of a block pass: its cache, RoPE table and positions pos..pos+n-1,
   which are n consecutive rows of x. llm_block_forward runs one segment; a batched decode
   step (llm_forward_batch) one per sequence, a row each. */
typedef struct llm__seg {
    llm_kv_cache *kv;
    const llm_rope *rope;
    int pos, n;
} llm__seg;

/* Everything a block checks before it writes anything: a full cache or a hole in any
   segment leaves every cache as it was. */
static llm_status llm__block_check(const llm_config *c, const llm_layer_weights *w, const llm__seg *sg, int n_seg,
                                   int layer, const float *x, int n, const void *scratch) {
    int hd, i, rows = 0;
    LLM__MTRY(llm__model_check(c));
    if (!w || !sg || n_seg <= 0 || !x || !scratch || n <= 0 || layer < 0) return LLM_EINVAL;
    hd = llm_config_head_dim(c);
    for (i = 0; i < n_seg; i++) {
        const llm_kv_cache *kv = sg[i].kv;
        if (!kv || sg[i].n <= 0 || sg[i].pos < 0 || layer >= kv->n_layers) return LLM_EINVAL;
        if (kv->n_kv_heads != c->n_kv_heads || kv->head_dim != hd) return LLM_EINVAL;
        if (c->pos == LLM_POS_ROPE && (!sg[i].rope || sg[i].rope->head_dim != hd)) return LLM_EINVAL;
        if ((int64_t)sg[i].pos + sg[i].n > kv->capacity) return LLM_EFULL;
        if (sg[i].pos > kv->len) return LLM_ERANGE;
        rows += sg[i].n;
    }
    if (rows != n) return LLM_EINVAL;
    return llm__layer_check(c, w);
}

/* The block over n rows of x made of n_seg segments: the linear layers, norms and FFN
   run on all n rows at once (one pass over each weight matrix); RoPE, the cache write
   and attention run per segment against its own cache. */
static llm_status llm__block_run(const llm_config *c, const llm_layer_weights *w, const llm__seg *sg, int n_seg,
                                 int layer, float *x, int n, void *scratch, llm_threads *th) {
    llm__model_buf b;
    const float *in;
    int d, hd, qd, kvd, ff, i, s, row;
    int64_t work;
    const llm__ffn_info *ffn;
    llm_attention_desc ad;
    memset(&b, 0, sizeof b); /* gcc -O3 cannot see llm__model_block_layout fills it (-Wmaybe-uninitialized) */
    LLM__MTRY(llm__block_check(c, w, sg, n_seg, layer, x, n, scratch));
    ffn = &llm__ffn_kinds[c->ffn];
    d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    llm__model_block_layout(c, n, llm__align64(scratch), &b);
    b.lx.flags = n_seg == 1 ? LLM_LIN_PREFILL : 0u; /* several sequences: each row as its token alone gets it */

    /* ---- attention sub-layer: x += Wo Attention(RoPE(Wq h), RoPE(Wk h), Wv h) ---- */
    LLM__MTRY(llm__model_sub_in(c, b.xb, x, w->attn_norm, w->attn_norm_b, n, d, &in));
    /* q: [n][n_heads][hd], k and v: [n][n_kv_heads][hd] */
    LLM__MTRY(llm__model_lin(b.q, in, &w->wq, w->bq, n, d, qd, LLM__AD(w, 0), &b.lx, th));
    LLM__MTRY(llm__model_lin(b.k, in, &w->wk, w->bk, n, d, kvd, LLM__AD(w, 1), &b.lx, th));
    LLM__MTRY(llm__model_lin(b.v, in, &w->wv, w->bv, n, d, kvd, LLM__AD(w, 2), &b.lx, th));
    /* qk_norm: each head of q and k normed on its own, before the rotation */
    if (c->qk_norm) {
        LLM__MTRY(llm__model_head_norm(c, b.q, (int64_t)n * c->n_heads, hd, w->q_norm));
        LLM__MTRY(llm__model_head_norm(c, b.k, (int64_t)n * c->n_kv_heads, hd, w->k_norm));
    }
    /* this layer's window, and the score's scale and softcap, as the config says */
    ad = llm_attention_desc_default();
    ad.window = llm_config_layer_window(c, layer);
    ad.scale = c->attn_scale;
    ad.softcap = c->attn_softcap;
    for (s = 0, row = 0; s < n_seg; row += sg[s].n, s++) {
        const llm__seg *g = &sg[s];
        float *q = b.q + (size_t)row * qd, *k = b.k + (size_t)row * kvd, *v = b.v + (size_t)row * kvd;
        /* rotate q and k by their absolute positions: q.k then depends only on the offset */
        if (c->pos == LLM_POS_ROPE) {
            LLM__MTRY(llm_rope_apply_tokens(g->rope, q, g->n, c->n_heads, g->pos));
            LLM__MTRY(llm_rope_apply_tokens(g->rope, k, g->n, c->n_kv_heads, g->pos));
        }
        /* keys and values of these positions join the cache; queries attend over 0..pos+i */
        LLM__MTRY(llm_kv_cache_write(g->kv, layer, g->pos, k, v, g->n));
        work = (int64_t)g->n * qd * (g->pos + g->n);
        LLM__MTRY(llm_attention_cache_ex(b.att + (size_t)row * qd, q, g->kv, layer, g->n, g->pos, c->n_heads, &ad,
                                         llm__model_th(th, work)));
    }
    /* project the heads back to d (sandwich: normed once more) and add to the residual stream */
    LLM__MTRY(llm__model_lin(b.xb, b.att, &w->wo, w->bo, n, qd, d, LLM__AD(w, 3), &b.lx, th));
    if (c->sandwich_norm) LLM__MTRY(llm__model_norm(c, b.xb, b.xb, w->attn_post_norm, NULL, n, d));
    LLM__MTRY(llm__model_add(x, b.xb, n, d));
    if (c->post_norm) LLM__MTRY(llm__model_norm(c, x, x, w->attn_norm, w->attn_norm_b, n, d));

    /* ---- feed-forward sub-layer: x += W2 act(W1 h) [* W3 h], or the experts' mix ---- */
    LLM__MTRY(llm__model_sub_in(c, b.xb, x, w->ffn_norm, w->ffn_norm_b, n, d, &in));
    if (c->n_experts > 0) {
        if (w->lora && (w->lora[4].a || w->lora[5].a || w->lora[6].a)) return LLM_EUNSUPPORTED; /* none on experts */
        LLM__MTRY(llm__moe_ffn(c, w, in, n, &b, th));
    } else {
        /* hb: [n][d_ff] gate (or the only hidden projection of a plain MLP) */
        LLM__MTRY(llm__model_lin(b.hb, in, &w->w1, w->b1, n, d, ff, LLM__AD(w, 4), &b.lx, th));
        if (ffn->matrices == 2) {
            for (i = 0; i < n; i++) LLM__MTRY(ffn->act(b.hb + (size_t)i * ff, b.hb + (size_t)i * ff, ff));
        } else {
            /* gated: hb = act(gate) * up, Shazeer 2020 (SwiGLU: act = SiLU; GEGLU: GELU) */
            LLM__MTRY(llm__model_lin(b.hb2, in, &w->w3, w->b3, n, d, ff, LLM__AD(w, 6), &b.lx, th));
            for (i = 0; i < n; i++)
                LLM__MTRY(ffn->glu(b.hb + (size_t)i * ff, b.hb + (size_t)i * ff, b.hb2 + (size_t)i * ff, ff));
        }
        /* down-projection back to d */
        LLM__MTRY(llm__model_lin(b.xb, b.hb, &w->w2, w->b2, n, ff, d, LLM__AD(w, 5), &b.lx, th));
    }
    /* sandwich: normed; then the second residual add */
    if (c->sandwich_norm) LLM__MTRY(llm__model_norm(c, b.xb, b.xb, w->ffn_post_norm, NULL, n, d));
    LLM__MTRY(llm__model_add(x, b.xb, n, d));
    if (c->post_norm) LLM__MTRY(llm__model_norm(c, x, x, w->ffn_norm, w->ffn_norm_b, n, d));
    return LLM_OK;
}

LLMDEF llm_status llm_block_forward(const llm_config *c, const llm_layer_weights *w, const llm_rope *rope,
                                   llm_kv_cache *kv, int layer, float *x, int n, int pos, void *scratch,
                                   llm_threads *th) {
    llm__seg g;
    int len0 = kv ? kv->len : 0;
    llm_status st;
    g.kv = kv, g.rope = rope, g.pos = pos, g.n = n;
    st = llm__block_run(c, w, &g, 1, layer, x, n, scratch, th);
    /* a failure after this layer's keys were written must not leave them counted */
    if (st != LLM_OK && kv && kv->len > len0) kv->len = len0;
    return st;
}

/* ---- state: everything the forward pass writes ------------------------------------- */

static uint64_t llm__model_state_layout(const llm_config *c, int capacity, int max_tokens, llm_dtype kv_dtype,
                                  uint64_t *rope_off, uint64_t *kv_off, uint64_t *x_off, uint64_t *scr_off) {
    uint64_t off = 0, kvb;
    *rope_off = off;
    if (c->pos == LLM_POS_ROPE) off += LLM__MALIGN(llm_rope_bytes(llm_config_head_dim(c), capacity));
    *kv_off = off;
    kvb = llm_kv_cache_bytes(c, capacity, 1, kv_dtype);
    if (kvb == 0) return 0;
    off += LLM__MALIGN(kvb);
    *x_off = off;
    off += LLM__MALIGN((uint64_t)max_tokens * (uint64_t)c->d_model * sizeof(float));
    *scr_off = off;
    off += LLM__MALIGN(llm__model_block_layout(c, max_tokens, NULL, NULL));
    return off + 64;
}

LLMDEF size_t llm_state_bytes(const llm_config *c, int capacity, int max_tokens, llm_dtype kv_dtype) {
    uint64_t a, b, d, e, bytes;
    if (llm__model_check(c) != LLM_OK || capacity <= 0 || max_tokens <= 0 || max_tokens > (1 << 20)) return 0;
    bytes = llm__model_state_layout(c, capacity, max_tokens, kv_dtype, &a, &b, &d, &e);
    return bytes > (uint64_t)SIZE_MAX ? 0 : (size_t)bytes;
}

LLMDEF llm_status llm_state_init(llm_state *s, void *mem, size_t mem_bytes, const llm_config *c, int capacity,
                                 int max_tokens, llm_dtype kv_dtype) {
    uint64_t ro, ko, xo, so;
    size_t need;
    char *base;
    llm_status st = LLM_OK;
    if (!s) return LLM_EINVAL;
    memset(s, 0, sizeof *s); /* every error below leaves it empty, never half-filled */
    if (!mem) return LLM_EINVAL;
    LLM__MTRY(llm__model_check(c)); /* LLM_EUNSUPPORTED for what the forward pass cannot run */
    need = llm_state_bytes(c, capacity, max_tokens, kv_dtype);
    if (need == 0 || mem_bytes < need) return LLM_EINVAL;
    llm__model_state_layout(c, capacity, max_tokens, kv_dtype, &ro, &ko, &xo, &so);
    base = (char *)llm__align64(mem);
    if (c->pos == LLM_POS_ROPE) st = llm_rope_init_config(&s->rope, base + ro, (size_t)(ko - ro), c, capacity);
    if (st == LLM_OK) st = llm_kv_cache_init(&s->kv, base + ko, (size_t)(xo - ko), c, capacity, kv_dtype);
    if (st != LLM_OK) {
        memset(s, 0, sizeof *s);
        return st;
    }
    s->config = *c;
    s->capacity = capacity;
    s->max_tokens = max_tokens;
    s->x = (float *)(void *)(base + xo);
    s->scratch = base + so;
    return LLM_OK;
}

LLMDEF llm_status llm_state_create(llm_state *s, const llm_config *c, int capacity, int max_tokens,
                                   llm_dtype kv_dtype) {
    size_t need = llm_state_bytes(c, capacity, max_tokens, kv_dtype);
    void *mem;
    if (!s) return LLM_EINVAL;
    memset(s, 0, sizeof *s);
    LLM__MTRY(llm__model_check(c));
    LLM__MTRY(llm__create_mem(s, sizeof *s, need, &mem));
    return llm__created(s, sizeof *s, &s->owned, mem, llm_state_init(s, mem, need, c, capacity, max_tokens, kv_dtype));
}

LLMDEF void llm_state_free(llm_state *s) {
    if (s) llm__destroy(s, sizeof *s, s->owned);
}

/* One row of a weight matrix as fp32 (the embedding lookup). */
static llm_status llm__model_row(float *out, const llm_weight *w, int row, int n) {
    const llm__wfmt *f = llm__wfmt_of(w->type);
    llm_status st;
    if (!w->data) return LLM_EINVAL;
    if (!f || !f->row) return LLM_EUNSUPPORTED;
    if ((st = f->check(w, n)) != LLM_OK) return st;
    f->row(out, w, (int64_t)row, n);
    return LLM_OK;
}

/* x[0..n) *= a (Gemma scales its embedding by sqrt(d_model)). */
static llm_status llm__model_scale(float *x, int n, float a) {
    int i;
    for (i = 0; i < n; i++) x[i] *= a;
    return LLM_OK;
}
/* z = cap tanh(z / cap) for each logit (Gemma 2's final softcap). */
static void llm__model_softcap(float *z, size_t n, float cap) {
    size_t i;
    float inv = 1.0f / cap;
    for (i = 0; i < n; i++) z[i] = cap * LLM_TANHF(z[i] * inv);
}

/* llm_forward after its checks: the chunks through embedding, blocks and LM head. */
static llm_status llm__forward_chunks(llm_state *s, const llm_weights *w, const int *tokens, int n_tokens, int pos,
                                      float *logits, int all_logits, llm_threads *th) {
    const llm_config *c = &s->config;
    int d = c->d_model, V = c->vocab, start, l, i;
    /* the block's first scratch buffer holds the final norm's output */
    float *xb = (float *)llm__align64(s->scratch);

    /* prompts longer than the state's max_tokens run in chunks; the cache carries over */
    for (start = 0; start < n_tokens; start += s->max_tokens) {
        int m = n_tokens - start < s->max_tokens ? n_tokens - start : s->max_tokens;
        int p0 = pos + start, last = start + m == n_tokens;
        /* embedding: x[t] = E[token] (+ P[position] for learned positions) */
        for (i = 0; i < m; i++) {
            float *xi = s->x + (size_t)i * d;
            LLM__MTRY(llm__model_row(xi, &w->tok_embed, tokens[start + i], d));
            if (c->embed_scale > 0) LLM__MTRY(llm__model_scale(xi, d, c->embed_scale));
            if (c->pos == LLM_POS_LEARNED) LLM__MTRY(llm_add(xi, xi, w->pos_embed + (size_t)(p0 + i) * d, d));
        }
        /* the decoder blocks, in place on the residual stream */
        for (l = 0; l < c->n_layers; l++)
            LLM__MTRY(llm_block_forward(c, &w->layers[l], &s->rope, &s->kv, l, s->x, m, p0, s->scratch, th));
        /* final norm and LM head: every row, or only the very last one */
        if (all_logits || last) {
            int r0 = all_logits ? 0 : m - 1, nr = all_logits ? m : 1;
            float *dst = all_logits ? logits + (size_t)start * V : logits;
            const float *h = s->x + (size_t)r0 * d;
            llm__model_buf b; /* (the block's scratch: its last buffer for the head's quantized rows) */
            memset(&b, 0, sizeof b);
            llm__model_block_layout(c, m, xb, &b);
            b.lx.flags = LLM_LIN_PREFILL;
            if (w->out_norm) {
                LLM__MTRY(llm__model_norm(c, xb, h, w->out_norm, w->out_norm_b, nr, d));
                h = xb;
            }
            LLM__MTRY(llm__model_lin(dst, h, &w->lm_head, NULL, nr, d, V, NULL, &b.lx, th));
            if (c->final_softcap > 0) llm__model_softcap(dst, (size_t)nr * V, c->final_softcap);
        }
    }
    return LLM_OK;
}

LLMDEF llm_status llm_forward(llm_state *s, const llm_weights *w, const int *tokens, int n_tokens, int pos,
                              float *logits, int all_logits, llm_threads *th) {
    const llm_config *c;
    int V, i;
    llm_status st;
    if (!s || !w || !tokens || !logits || n_tokens <= 0 || pos < 0 || !w->layers || !s->x) return LLM_EINVAL;
    c = &s->config;
    V = c->vocab;
    if ((int64_t)pos + n_tokens > s->capacity) return LLM_EFULL;
    if (pos > s->kv.len) return LLM_ERANGE;
    if (c->pos == LLM_POS_LEARNED && (!w->pos_embed || (int64_t)pos + n_tokens > c->max_seq_len)) return LLM_ERANGE;
    if (w->out_norm && !w->out_norm_b != !c->norm_bias) return LLM_EINVAL; /* the config says whether it has one */
    for (i = 0; i < n_tokens; i++)
        if (tokens[i] < 0 || tokens[i] >= V) return LLM_EINVAL;
    /* Rewinding drops every position from pos on, so the cache never holds keys of an old
       sequence past the new one's end; a failure partway (a missing weight in layer 5,
       after layers 0..4 wrote their keys) rewinds to pos too, so the cache stays a
       consistent prefix. */
    LLM__MTRY(llm_kv_cache_truncate(&s->kv, pos));
    st = llm__forward_chunks(s, w, tokens, n_tokens, pos, logits, all_logits, th);
    if (st != LLM_OK) llm_kv_cache_truncate(&s->kv, pos);
    return st;
}

/* ---- several sequences in one decode step ------------------------------------------- */

/* Two configs describe the same architecture (the name aside): the batched step runs
   one set of weights over every sequence, so their states must agree on each field. */
static int llm__config_same(const llm_config *a, const llm_config *b) {
#define LLM__CF(f) (a->f == b->f)
    return LLM__CF(d_model) && LLM__CF(n_layers) && LLM__CF(n_heads) && LLM__CF(n_kv_heads) && LLM__CF(head_dim) &&
           LLM__CF(d_ff) && LLM__CF(vocab) && LLM__CF(max_seq_len) && LLM__CF(norm) && LLM__CF(norm_bias) &&
           LLM__CF(norm_eps) && LLM__CF(ffn) && LLM__CF(pos) && LLM__CF(rope_theta) && LLM__CF(rope_layout) &&
           LLM__CF(rotary_dim) && LLM__CF(rope_scale) && LLM__CF(rope_low_freq_factor) &&
           LLM__CF(rope_high_freq_factor) && LLM__CF(rope_orig_ctx) && LLM__CF(tied_embeddings) && LLM__CF(bias) &&
           LLM__CF(post_norm) && LLM__CF(n_experts) && LLM__CF(n_experts_per_tok) && LLM__CF(n_shared_experts) &&
           LLM__CF(sliding_window) && LLM__CF(qk_norm) && LLM__CF(sandwich_norm) && LLM__CF(embed_scale) &&
           LLM__CF(attn_scale) && LLM__CF(attn_softcap) && LLM__CF(final_softcap) && LLM__CF(window_pattern);
#undef LLM__CF
}

/* Scratch of a batched step over B sequences, each buffer 64-byte aligned: the residual
   stream x [B][d], the block's buffers for B rows, the segments [B]. */
static uint64_t llm__batch_layout(const llm_config *c, int B, uint64_t *blk_off, uint64_t *seg_off) {
    uint64_t off = LLM__MALIGN((uint64_t)B * (uint64_t)c->d_model * sizeof(float));
    *blk_off = off;
    off += LLM__MALIGN(llm__model_block_layout(c, B, NULL, NULL));
    *seg_off = off;
    off += LLM__MALIGN((uint64_t)B * sizeof(llm__seg));
    return off + 64;
}

LLMDEF size_t llm_forward_batch_bytes(const llm_config *c, int n_seqs) {
    uint64_t bo, so, bytes;
    if (llm__model_check(c) != LLM_OK || n_seqs <= 0 || n_seqs > LLM_BATCH_MAX) return 0;
    bytes = llm__batch_layout(c, n_seqs, &bo, &so);
    return bytes > (uint64_t)SIZE_MAX ? 0 : (size_t)bytes;
}

/* Every argument of llm_forward_batch, checked before any cache is touched. */
static llm_status llm__batch_check(llm_state *const *seqs, int B, const llm_weights *w, const int *tokens,
                                   const int *pos, const float *logits, const void *scratch) {
    const llm_config *c;
    int i, j;
    if (!seqs || B <= 0 || B > LLM_BATCH_MAX || !w || !w->layers || !tokens || !pos || !logits || !scratch)
        return LLM_EINVAL;
    for (i = 0; i < B; i++) {
        const llm_state *s = seqs[i];
        if (!s || !s->x) return LLM_EINVAL;
        for (j = 0; j < i; j++)
            if (seqs[j] == s) return LLM_EINVAL; /* one cache cannot take two tokens at one position */
        if (!llm__config_same(&s->config, &seqs[0]->config)) return LLM_EINVAL;
    }
    c = &seqs[0]->config;
    LLM__MTRY(llm__model_check(c));
    if (w->out_norm && !w->out_norm_b != !c->norm_bias) return LLM_EINVAL;
    for (i = 0; i < B; i++) {
        const llm_state *s = seqs[i];
        if (tokens[i] < 0 || tokens[i] >= c->vocab || pos[i] < 0) return LLM_EINVAL;
        if ((int64_t)pos[i] + 1 > s->capacity) return LLM_EFULL;
        if (pos[i] > s->kv.len) return LLM_ERANGE;
        if (c->pos == LLM_POS_LEARNED && (!w->pos_embed || (int64_t)pos[i] + 1 > c->max_seq_len)) return LLM_ERANGE;
    }
    return LLM_OK;
}

/* llm_forward_batch after its checks and the rewinds. */
static llm_status llm__forward_batch_run(llm_state *const *seqs, int B, const llm_weights *w, const int *tokens,
                                         const int *pos, float *logits, void *scratch, llm_threads *th) {
    const llm_config *c = &seqs[0]->config;
    int d = c->d_model, i, l;
    uint64_t bo, so;
    char *base = (char *)llm__align64(scratch);
    float *x = (float *)(void *)base, *xb, *h = x;
    void *blk;
    llm__seg *sg;
    llm__batch_layout(c, B, &bo, &so);
    blk = base + bo;
    sg = (llm__seg *)(void *)(base + so);
    xb = (float *)llm__align64(blk); /* the block's first buffer holds the final norm's output */
    /* embedding: x[i] = E[token i] (+ P[pos i]); sequence i is row i and its own segment */
    for (i = 0; i < B; i++) {
        float *xi = x + (size_t)i * d;
        LLM__MTRY(llm__model_row(xi, &w->tok_embed, tokens[i], d));
        if (c->embed_scale > 0) LLM__MTRY(llm__model_scale(xi, d, c->embed_scale));
        if (c->pos == LLM_POS_LEARNED) LLM__MTRY(llm_add(xi, xi, w->pos_embed + (size_t)pos[i] * d, d));
        sg[i].kv = &seqs[i]->kv, sg[i].rope = &seqs[i]->rope, sg[i].pos = pos[i], sg[i].n = 1;
    }
    for (l = 0; l < c->n_layers; l++) LLM__MTRY(llm__block_run(c, &w->layers[l], sg, B, l, x, B, blk, th));
    /* final norm and LM head over the B rows: logits [B][vocab] */
    if (w->out_norm) {
        LLM__MTRY(llm__model_norm(c, xb, x, w->out_norm, w->out_norm_b, B, d));
        h = xb;
    }
    LLM__MTRY(llm__model_lin(logits, h, &w->lm_head, NULL, B, d, c->vocab, NULL, NULL, th));
    if (c->final_softcap > 0) llm__model_softcap(logits, (size_t)B * c->vocab, c->final_softcap);
    return LLM_OK;
}

LLMDEF llm_status llm_forward_batch(llm_state *const *seqs, int n_seqs, const llm_weights *w, const int *tokens,
                                    const int *pos, float *logits, void *scratch, llm_threads *th) {
    int i;
    llm_status st;
    LLM__MTRY(llm__batch_check(seqs, n_seqs, w, tokens, pos, logits, scratch));
    /* as llm_forward: each cache rewinds to its pos, and a failure rewinds every one */
    for (i = 0; i < n_seqs; i++) LLM__MTRY(llm_kv_cache_truncate(&seqs[i]->kv, pos[i]));
    st = llm__forward_batch_run(seqs, n_seqs, w, tokens, pos, logits, scratch, th);
    if (st != LLM_OK)
        for (i = 0; i < n_seqs; i++) llm_kv_cache_truncate(&seqs[i]->kv, pos[i]);
    return st;
}

static double llm__model_wbytes(const llm_weight *w, double n) { /* the blocks, plus separate group scales */
    const llm__wfmt *f = llm__wfmt_of(w->type);
    if (!f) return 0;
    if (f->blk <= 0) return n * f->bits / 8;
    return n / f->blk * f->blk_bytes + (f->scales == LLM__SCALE_GROUP && w->group_size > 0 ? 4 * n / w->group_size : 0);
}

LLMDEF double llm_decode_bytes(const llm_config *c, const llm_weights *w, llm_dtype kv_dtype, int pos) {
    double d, hd, qd, kvd, ff, total, kv_row, bias, k, sff;
    int l, nb;
    if (llm__model_check(c) != LLM_OK || !w || !w->layers || pos < 0) return 0;
    d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    k = c->n_experts > 0 ? c->n_experts_per_tok : 1, sff = (double)llm__shared_ff(c);
    nb = c->norm_bias ? 2 : 1;
    kv_row = kvd * (kv_dtype == LLM_INT8 ? 1.0 : llm_dtype_bytes(kv_dtype)) + (kv_dtype == LLM_INT8 ? 4.0 * c->n_kv_heads : 0);
    total = llm__model_wbytes(&w->tok_embed, d) + llm__model_wbytes(&w->lm_head, (double)c->vocab * d);
    if (w->out_norm) total += 4 * d * nb;
    if (c->pos == LLM_POS_LEARNED) total += 4 * d;
    /* the bias vectors the config names: q, k, v; the output projection and the FFN's */
    bias = (llm__bias_kinds[c->bias].qkv ? qd + 2 * kvd : 0) +
           (llm__bias_kinds[c->bias].rest ? d + ff * (llm__ffn_kinds[c->ffn].matrices - 1) + d : 0);
    for (l = 0; l < c->n_layers; l++) {
        const llm_layer_weights *L = &w->layers[l];
        int win = llm_config_layer_window(c, l);
        total += 4 * (c->sandwich_norm ? 4 : 2) * d * nb + 4 * bias + (c->qk_norm ? 4 * 2 * hd : 0);
        /* attention reads K and V of positions 0..pos, or of the last `win` of them */
        total += 2.0 * kv_row * (win > 0 && win < pos + 1 ? win : pos + 1);
        total += llm__model_wbytes(&L->wq, qd * d) + llm__model_wbytes(&L->wk, kvd * d) +
                 llm__model_wbytes(&L->wv, kvd * d) + llm__model_wbytes(&L->wo, d * qd);
        /* MoE: k of the stacked experts (each a dense FFN's bytes), the router, the shared ones */
        total += k * (llm__model_wbytes(&L->w1, ff * d) + llm__model_wbytes(&L->w2, d * ff));
        if (llm__ffn_kinds[c->ffn].matrices == 3) total += k * llm__model_wbytes(&L->w3, ff * d);
        if (c->n_experts > 0) total += llm__model_wbytes(&L->router, (double)c->n_experts * d);
        if (c->n_shared_experts > 0)
            total += llm__model_wbytes(&L->ws1, sff * d) + llm__model_wbytes(&L->ws3, sff * d) + llm__model_wbytes(&L->ws2, d * sff);
        if (c->shared_gate) total += 4 * d;
    }
    return total;
}

#if defined(LLM_MMAP) && !defined(LLM_NO_STDIO)
static void llm__file_unmap(void *owned); /* >>files: a loader's mapping, if it made one */
#endif
LLMDEF void llm_model_free(llm_model *m) {
    if (!m) return;
#if defined(LLM_MMAP) && !defined(LLM_NO_STDIO)
    if (m->owned) llm__file_unmap(m->owned);
#endif
    llm__destroy(m, sizeof *m, m->owned);
}

/* ---- sampling, as llama2.c's run.c ------------------------------------------------- */

/* xorshift* (Marsaglia 2003; Vigna's multiplier), run.c's random_u32 */
LLMDEF uint32_t llm_xorshift_u32(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1Dull) >> 32);
}
LLMDEF float llm_xorshift_f32(uint64_t *state) { return (float)(llm_xorshift_u32(state) >> 8) / 16777216.0f; }

typedef struct llm__sampler_pi {
    float prob;
    int index;
} llm__sampler_pi;

LLMDEF size_t llm_sampler_bytes(int vocab) {
    if (vocab <= 0 || (uint64_t)vocab > (uint64_t)SIZE_MAX / (2 * sizeof(llm__sampler_pi))) return 0;
    return (size_t)vocab * 2 * sizeof(llm__sampler_pi);
}

LLMDEF llm_status llm_sampler_init(llm_sampler *s, void *mem, size_t mem_bytes, int vocab, float temperature,
                                   float topp, uint64_t seed) {
    size_t need = llm_sampler_bytes(vocab);
    if (!s) return LLM_EINVAL;
    memset(s, 0, sizeof *s);
    if (!mem || need == 0 || mem_bytes < need || !(temperature >= 0) || !(topp >= 0)) return LLM_EINVAL;
    if (((uintptr_t)mem & 3u) != 0) return LLM_EINVAL;
    s->vocab = vocab;
    s->temperature = temperature;
    s->topp = topp;
    s->rng = seed ? seed : LLM_SAMPLER_SEED0;
    s->scratch = mem;
    s->owned = NULL;
    return LLM_OK;
}

LLMDEF llm_status llm_sampler_create(llm_sampler *s, int vocab, float temperature, float topp, uint64_t seed) {
    size_t need = llm_sampler_bytes(vocab);
    void *mem;
    LLM__MTRY(llm__create_mem(s, sizeof *s, need, &mem));
    return llm__created(s, sizeof *s, &s->owned, mem, llm_sampler_init(s, mem, need, vocab, temperature, topp, seed));
}

LLMDEF void llm_sampler_free(llm_sampler *s) {
    if (s) llm__destroy(s, sizeof *s, s->owned);
}

/* Merge sort by descending probability; equal probabilities keep index order (the sort
   is stable and the candidates go in by increasing index), so the result is the same on
   every libc. run.c calls qsort with a comparator that returns 0 on equal probabilities:
   its order of ties is whatever that libc's qsort does (glibc before 2.37 used a stable
   merge sort and agrees with this one; 2.37+ uses introsort, which need not). Exact
   probability ties among the top-p candidates are rare with real logits. */
static void llm__sampler_sort(llm__sampler_pi *a, llm__sampler_pi *tmp, int n) {
    int width, i;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            int lo = i, mid = i + width < n ? i + width : n, hi = i + 2 * width < n ? i + 2 * width : n;
            int p = lo, q = mid, k = lo;
            while (p < mid && q < hi) tmp[k++] = a[q].prob > a[p].prob ? a[q++] : a[p++];
            while (p < mid) tmp[k++] = a[p++];
            while (q < hi) tmp[k++] = a[q++];
        }
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
}

static int llm__chain_sample(llm_sampler *s, float *logits); /* >>generation */

LLMDEF int llm_sample(llm_sampler *s, float *logits) {
    int n, i;
    float maxv, sum, coin;
    if (!s || !logits || s->vocab <= 0 || !s->scratch) return -1;
    if (s->chain) return llm__chain_sample(s, logits);
    n = s->vocab;
    /* temperature 0: greedy, the first maximum (llm_argmax skips NaNs) */
    if (s->temperature == 0.0f) return llm_argmax(logits, n);
    /* probabilities = softmax(logits / T), in run.c's order of float operations */
    for (i = 0; i < n; i++) logits[i] /= s->temperature;
    maxv = logits[0];
    for (i = 1; i < n; i++)
        if (logits[i] > maxv) maxv = logits[i];
    sum = 0.0f;
    for (i = 0; i < n; i++) {
        logits[i] = LLM_EXPF(logits[i] - maxv);
        sum += logits[i];
    }
    for (i = 0; i < n; i++) logits[i] /= sum;
    coin = llm_xorshift_f32(&s->rng);
    if (s->topp <= 0 || s->topp >= 1) {
        /* multinomial: the first index whose running total passes the coin */
        float cdf = 0.0f;
        for (i = 0; i < n; i++) {
            cdf += logits[i];
            if (coin < cdf) return i;
        }
        return n - 1; /* rounding */
    } else {
        /* top-p (Holtzman et al. 2019): sample among the fewest most likely tokens whose
           mass exceeds topp. Tokens below (1 - topp) / (n - 1) can never be in that set,
           so they are dropped before sorting (run.c's shortcut). */
        llm__sampler_pi *pi = (llm__sampler_pi *)s->scratch, *tmp = pi + n;
        float cutoff = (1.0f - s->topp) / (float)(n - 1 > 0 ? n - 1 : 1), cum = 0.0f, r, cdf = 0.0f;
        int n0 = 0, last;
        for (i = 0; i < n; i++)
            if (logits[i] >= cutoff) {
                pi[n0].index = i;
                pi[n0].prob = logits[i];
                n0++;
            }
        if (n0 == 0) return n - 1;
        llm__sampler_sort(pi, tmp, n0);
        last = n0 - 1;
        for (i = 0; i < n0; i++) {
            cum += pi[i].prob;
            if (cum > s->topp) {
                last = i;
                break;
            }
        }
        r = coin * cum;
        for (i = 0; i <= last; i++) {
            cdf += pi[i].prob;
            if (r < cdf) return pi[i].index;
        }
        return pi[last].index;
    }
}

/* ---- >>generation implementation: the sampler chain -------------------------------- */

LLMDEF llm_sampler_params llm_sampler_params_default(void) {
    llm_sampler_params p;
    memset(&p, 0, sizeof p);
    p.temperature = 1.0f;
    p.top_p = 0.9f;
    p.repeat_penalty = 1.0f;
    p.penalty_last_n = 64;
    return p;
}

/* The one place zeros become defaults; 0 for a field out of range (NaN included). */
static int llm__sampler_resolve(llm_sampler_params *r, const llm_sampler_params *p, int vocab) {
    int i;
    if (!p || vocab <= 0) return 0;
    *r = *p;
    if (r->temperature == 0.0f) r->temperature = 1.0f;
    if (r->top_p == 0.0f) r->top_p = 0.9f;
    if (r->repeat_penalty == 0.0f) r->repeat_penalty = 1.0f;
    if (r->penalty_last_n == 0) r->penalty_last_n = 64;
    if (r->seed == 0) r->seed = LLM_SAMPLER_SEED0;
    if (!(r->temperature > 0 && r->temperature <= FLT_MAX) || r->top_k < 0 || !(r->top_p > 0 && r->top_p <= 1) ||
        !(r->min_p >= 0 && r->min_p <= 1) || !(r->repeat_penalty > 0 && r->repeat_penalty <= FLT_MAX) ||
        !(fabsf(r->frequency_penalty) <= FLT_MAX) || !(fabsf(r->presence_penalty) <= FLT_MAX) ||
        r->penalty_last_n < 0 || r->penalty_last_n > (1 << 24) || r->n_logit_bias < 0 ||
        r->n_logit_bias > (1 << 24) || (r->n_logit_bias > 0 && !r->logit_bias))
        return 0;
    for (i = 0; i < r->n_logit_bias; i++)
        if (r->logit_bias[i].id < 0 || r->logit_bias[i].id >= vocab || r->logit_bias[i].bias != r->logit_bias[i].bias)
            return 0;
    if (r->top_k >= vocab) r->top_k = 0;
    /* no penalty: no window to keep */
    if (r->repeat_penalty == 1.0f && r->frequency_penalty == 0.0f && r->presence_penalty == 0.0f) r->penalty_last_n = 0;
    return 1;
}

/* Layout: V (prob, index) candidates | the logit biases | with penalties: V counts and
   the ring of recent tokens. All 4-byte items; sizes in 64 bits. */
LLMDEF size_t llm_sampler_chain_bytes(int vocab, const llm_sampler_params *p) {
    llm_sampler_params r;
    uint64_t b;
    if (!llm__sampler_resolve(&r, p, vocab) || vocab > (1 << 28)) return 0;
    b = (uint64_t)vocab * sizeof(llm__sampler_pi) + (uint64_t)r.n_logit_bias * sizeof(llm_logit_bias);
    if (r.penalty_last_n > 0) b += ((uint64_t)vocab + (uint64_t)r.penalty_last_n) * sizeof(int);
    return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

LLMDEF llm_status llm_sampler_chain_init(llm_sampler *s, void *mem, size_t mem_bytes, int vocab,
                                         const llm_sampler_params *p) {
    size_t need = llm_sampler_chain_bytes(vocab, p);
    unsigned char *m = (unsigned char *)mem;
    llm_logit_bias *bias;
    if (!s) return LLM_EINVAL;
    memset(s, 0, sizeof *s);
    if (!mem || need == 0 || mem_bytes < need || ((uintptr_t)mem & 3u) != 0) return LLM_EINVAL;
    llm__sampler_resolve(&s->params, p, vocab);
    s->vocab = vocab;
    s->chain = 1;
    s->temperature = s->params.temperature;
    s->topp = s->params.top_p;
    s->rng = s->params.seed;
    s->scratch = m;
    m += (size_t)vocab * sizeof(llm__sampler_pi);
    bias = (llm_logit_bias *)(void *)m;
    if (s->params.n_logit_bias > 0) memcpy(bias, p->logit_bias, (size_t)s->params.n_logit_bias * sizeof *bias);
    s->params.logit_bias = s->params.n_logit_bias > 0 ? bias : NULL;
    m += (size_t)s->params.n_logit_bias * sizeof *bias;
    if (s->params.penalty_last_n > 0) {
        s->counts = (int *)(void *)m;
        memset(s->counts, 0, (size_t)vocab * sizeof(int));
        s->recent = s->counts + vocab;
    }
    return LLM_OK;
}

LLMDEF llm_status llm_sampler_chain_create(llm_sampler *s, int vocab, const llm_sampler_params *p) {
    size_t need = llm_sampler_chain_bytes(vocab, p);
    void *mem;
    llm_status st;
    if (!s) return LLM_EINVAL;
    if (need == 0) {
        memset(s, 0, sizeof *s);
        return LLM_EINVAL;
    }
    if (!(mem = LLM_MALLOC(need))) return LLM_ENOMEM;
    if ((st = llm_sampler_chain_init(s, mem, need, vocab, p)) != LLM_OK) {
        LLM_FREE(mem);
        return st;
    }
    s->owned = mem;
    return LLM_OK;
}

LLMDEF llm_status llm_sampler_accept(llm_sampler *s, int token) {
    if (!s || !s->scratch || token < 0 || token >= s->vocab) return LLM_EINVAL;
    if (!s->chain || s->params.penalty_last_n <= 0) return LLM_OK;
    s->recent[s->recent_at] = token;
    s->recent_at = (s->recent_at + 1) % s->params.penalty_last_n;
    if (s->n_recent < s->params.penalty_last_n) s->n_recent++;
    return LLM_OK;
}

LLMDEF void llm_sampler_reset(llm_sampler *s) {
    if (s) s->n_recent = s->recent_at = 0;
}

/* Heap order: a before b when a is more likely, or as likely with the lower id (a total
   order, so a heap pops exactly the stable descending sort run.c's merge sort makes). */
static int llm__pi_before(const llm__sampler_pi *a, const llm__sampler_pi *b) {
    return a->prob > b->prob || (a->prob == b->prob && a->index < b->index);
}
/* Sift h[i] down a heap of n; top = 1: the best on top (a max-heap), 0: the worst. */
static void llm__pi_sift(llm__sampler_pi *h, int n, int i, int top) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        llm__sampler_pi t;
        if (l < n && llm__pi_before(&h[l], &h[m]) == top) m = l;
        if (r < n && llm__pi_before(&h[r], &h[m]) == top) m = r;
        if (m == i) return;
        t = h[i], h[i] = h[m], h[m] = t;
        i = m;
    }
}

/* Stages 1-8: the candidates in draw order in pi[0..*kept), their unnormalized mass, and
   whether the draw scales the coin by it (run.c's plain multinomial does not). Returns 0
   when every token is banned. */
static int llm__chain_candidates(llm_sampler *s, float *logits, int *kept, float *mass, int *scale) {
    const llm_sampler_params *p = &s->params;
    llm__sampler_pi *pi = (llm__sampler_pi *)s->scratch;
    int n = s->vocab, i, j, k = 0;
    float maxv, sum, cum = 0.0f, thr;
    /* 1-2: NaN, logit bias, penalties */
    for (i = 0; i < n; i++)
        if (logits[i] != logits[i]) logits[i] = -INFINITY;
    for (i = 0; i < p->n_logit_bias; i++) logits[p->logit_bias[i].id] += p->logit_bias[i].bias;
    if (s->n_recent > 0) {
        for (j = 0; j < s->n_recent; j++) s->counts[s->recent[j]]++;
        for (j = 0; j < s->n_recent; j++) {
            int t = s->recent[j], c = s->counts[t];
            float l = logits[t];
            if (c == 0) continue; /* a repeat of t in the window: done already */
            l = l > 0 ? l / p->repeat_penalty : l * p->repeat_penalty;
            logits[t] = l - ((float)c * p->frequency_penalty + p->presence_penalty);
            s->counts[t] = 0;
        }
    }
    /* 3: greedy, the first maximum */
    if (p->greedy) {
        i = llm_argmax(logits, n);
        if (i < 0 || logits[i] == -INFINITY) return 0;
        pi[0].index = i, pi[0].prob = 1.0f;
        *kept = 1, *mass = 1.0f, *scale = 1;
        return 1;
    }
    /* 4: temperature, run.c's division */
    for (i = 0; i < n; i++) logits[i] /= p->temperature;
    *scale = 1;
    if (p->top_k > 0) {
        /* 5: top-k, a heap of the k best with the worst on top, then sorted best first */
        for (i = 0; i < n; i++) {
            llm__sampler_pi c;
            c.prob = logits[i], c.index = i;
            if (k < p->top_k) {
                pi[k++] = c;
                if (k == p->top_k)
                    for (j = k / 2 - 1; j >= 0; j--) llm__pi_sift(pi, k, j, 0);
            } else if (llm__pi_before(&c, &pi[0])) {
                pi[0] = c;
                llm__pi_sift(pi, k, 0, 0);
            }
        }
        for (j = k - 1; j > 0; j--) { /* pop the worst to the end: best ends up first */
            llm__sampler_pi t = pi[0];
            pi[0] = pi[j], pi[j] = t;
            llm__pi_sift(pi, j, 0, 0);
        }
        /* 6: softmax over the k */
        maxv = pi[0].prob;
        if (maxv == -INFINITY) return 0;
        sum = 0.0f;
        for (i = 0; i < k; i++) {
            pi[i].prob = LLM_EXPF(pi[i].prob - maxv);
            sum += pi[i].prob;
        }
        for (i = 0; i < k; i++) pi[i].prob /= sum;
        /* 7: top-p on the sorted k */
        if (p->top_p < 1.0f) {
            for (i = 0; i < k; i++) {
                cum += pi[i].prob;
                if (cum > p->top_p) break;
            }
            if (i < k) k = i + 1;
        } else {
            for (i = 0; i < k; i++) cum += pi[i].prob;
        }
    } else {
        /* 6: softmax over the vocabulary, in run.c's order */
        maxv = logits[0];
        for (i = 1; i < n; i++)
            if (logits[i] > maxv) maxv = logits[i];
        if (maxv == -INFINITY) return 0;
        sum = 0.0f;
        for (i = 0; i < n; i++) {
            logits[i] = LLM_EXPF(logits[i] - maxv);
            sum += logits[i];
        }
        for (i = 0; i < n; i++) logits[i] /= sum;
        if (p->top_p < 1.0f) {
            /* 7: top-p as run.c: only tokens above its cutoff can be in the nucleus; they go
               in a max-heap and pop, best first, until the mass passes top_p */
            float cutoff = (1.0f - p->top_p) / (float)(n - 1 > 0 ? n - 1 : 1);
            int h = 0, m = 0;
            for (i = 0; i < n; i++)
                if (logits[i] >= cutoff) pi[h].index = i, pi[h].prob = logits[i], h++;
            if (h == 0) { /* run.c's answer when rounding leaves nothing */
                pi[0].index = n - 1, pi[0].prob = 1.0f;
                *kept = 1, *mass = 1.0f;
                return 1;
            }
            for (j = h / 2 - 1; j >= 0; j--) llm__pi_sift(pi, h, j, 1);
            while (h > 0) { /* popped ones collect at the end, best last-most */
                llm__sampler_pi t = pi[0];
                pi[0] = pi[h - 1], pi[h - 1] = t;
                h--, m++;
                llm__pi_sift(pi, h, 0, 1);
                cum += t.prob;
                if (cum > p->top_p) break;
            }
            for (i = 0; i < m / 2; i++) { /* pi[h..h+m) reversed is best first; move to front */
                llm__sampler_pi t = pi[h + i];
                pi[h + i] = pi[h + m - 1 - i], pi[h + m - 1 - i] = t;
            }
            if (h > 0) memmove(pi, pi + h, (size_t)m * sizeof *pi);
            k = m;
        } else {
            /* no truncation yet: every token, in id order */
            for (i = 0; i < n; i++) pi[i].index = i, pi[i].prob = logits[i];
            k = n;
            if (p->min_p <= 0) { /* run.c's multinomial: the coin against the plain cdf */
                *kept = k, *mass = 1.0f, *scale = 0;
                return 1;
            }
        }
    }
    /* 8: min-p, relative to the most likely token left */
    if (p->min_p > 0) {
        float best = 0.0f;
        for (i = 0; i < k; i++)
            if (pi[i].prob > best) best = pi[i].prob;
        thr = p->min_p * best;
        for (i = j = 0; i < k; i++)
            if (pi[i].prob >= thr) pi[j++] = pi[i];
        k = j;
        cum = 0.0f;
        for (i = 0; i < k; i++) cum += pi[i].prob;
    }
    *kept = k, *mass = cum;
    return 1;
}

static void llm__chain_accept(llm_sampler *s, int token) { (void)llm_sampler_accept(s, token); }

static int llm__chain_sample(llm_sampler *s, float *logits) {
    const llm__sampler_pi *pi = (const llm__sampler_pi *)s->scratch;
    int kept, scale, i, token;
    float mass, r, cdf = 0.0f;
    if (!llm__chain_candidates(s, logits, &kept, &mass, &scale)) return -1;
    if (s->params.greedy) {
        token = pi[0].index;
    } else {
        /* 9: run.c's draw: the first candidate whose running mass passes the coin */
        r = llm_xorshift_f32(&s->rng);
        if (scale) r *= mass;
        token = pi[kept - 1].index; /* rounding */
        for (i = 0; i < kept; i++) {
            cdf += pi[i].prob;
            if (r < cdf) {
                token = pi[i].index;
                break;
            }
        }
    }
    llm__chain_accept(s, token);
    return token;
}

LLMDEF llm_status llm_sampler_probs(llm_sampler *s, float *logits, int *ids, float *probs, int cap, int *n) {
    const llm__sampler_pi *pi;
    int kept, scale, i;
    float mass;
    if (n) *n = 0;
    if (!s || !s->chain || !s->scratch || !logits || !ids || !probs || !n || cap < 0) return LLM_EINVAL;
    if (!llm__chain_candidates(s, logits, &kept, &mass, &scale)) return LLM_ERANGE;
    if (kept > cap) return LLM_ERANGE;
    pi = (const llm__sampler_pi *)s->scratch;
    if (!scale) { /* the plain cdf: its mass, for the caller's view */
        mass = 0.0f;
        for (i = 0; i < kept; i++) mass += pi[i].prob;
    }
    for (i = 0; i < kept; i++) ids[i] = pi[i].index, probs[i] = pi[i].prob / mass;
    *n = kept;
    return LLM_OK;
}

/* ---- >>generation implementation: stop strings -------------------------------------- */

LLMDEF llm_status llm_stop_init(llm_stop *m, const char *const *stops, int n_stops) {
    int i;
    if (!m) return LLM_EINVAL;
    memset(m, 0, sizeof *m);
    m->stopped = -1;
    if (n_stops < 0 || (n_stops > 0 && !stops)) return LLM_EINVAL;
    for (i = 0; i < n_stops; i++) {
        size_t len = stops[i] ? strlen(stops[i]) : 0;
        if (len == 0) return LLM_EINVAL;
        if (len > m->max_len) m->max_len = len;
    }
    m->stops = stops;
    m->n_stops = n_stops;
    return LLM_OK;
}

LLMDEF size_t llm_stop_held(const llm_stop *m) { return m ? m->n_held : 0; }

/* Byte j of the text the matcher looks at: the held prefix, then the new piece. */
static char llm__stop_at(const llm_stop *m, const char *piece, size_t j) {
    return (char)(j < m->n_held ? m->stops[m->held_stop][j] : piece[j - m->n_held]);
}

LLMDEF llm_status llm_stop_feed(llm_stop *m, const char *piece, size_t n, char *out, size_t cap, size_t *out_n) {
    size_t total, i, j, rel, best_start = 0, best_end = 0, partial_start = 0;
    int s, best = -1, partial = -1;
    if (out_n) *out_n = 0;
    if (!m || !out_n || (n > 0 && !piece) || (!out && cap > 0)) return LLM_EINVAL;
    if (m->stopped >= 0) return LLM_OK;
    total = m->n_held + n;
    if (cap < total) return LLM_ERANGE;
    /* First a complete stop string: the one that ends first (ties: the longer), as if
       the text had come byte by byte, so where pieces split never matters. Else the
       earliest start where one runs past the end as a prefix: hold from there. Bytes
       before either are released: every earlier start was ruled out. O((held + n) * the
       stop strings' bytes) per call. */
    for (i = 0; i < total; i++)
        for (s = 0; s < m->n_stops; s++) {
            const char *t = m->stops[s];
            for (j = 0; t[j] && i + j < total && llm__stop_at(m, piece, i + j) == t[j]; j++) {}
            if (!t[j] && (best < 0 || i + j < best_end)) best = s, best_start = i, best_end = i + j;
            if (t[j] && i + j == total && partial < 0) partial = s, partial_start = i;
        }
    if (best >= 0 || partial >= 0) {
        size_t keep = best >= 0 ? best_start : partial_start;
        for (rel = 0; rel < keep; rel++) out[rel] = llm__stop_at(m, piece, rel);
        *out_n = keep;
        if (best >= 0) {
            m->stopped = best;
            m->n_held = 0;
        } else { /* the held bytes are the text's own: stops[partial] says where they are */
            m->held_stop = partial;
            m->n_held = total - partial_start;
        }
        return LLM_OK;
    }
    for (rel = 0; rel < total; rel++) out[rel] = llm__stop_at(m, piece, rel);
    *out_n = total;
    m->n_held = 0;
    return LLM_OK;
}

LLMDEF llm_status llm_stop_flush(llm_stop *m, char *out, size_t cap, size_t *out_n) {
    if (out_n) *out_n = 0;
    if (!m || !out_n || (!out && cap > 0)) return LLM_EINVAL;
    if (cap < m->n_held) return LLM_ERANGE;
    if (m->n_held) memcpy(out, m->stops[m->held_stop], m->n_held);
    *out_n = m->n_held;
    m->n_held = 0;
    return LLM_OK;
}

/* ---- >>generation implementation: chat templates ------------------------------------ */

static const char *llm__why_name(char *buf, size_t cap, const char *a, const char *name, uint64_t n, const char *b);

static const char *const llm__chat_names[LLM_CHAT_KIND_COUNT] = {"none",   "llama3", "chatml",     "gemma",
                                                                 "phi3",   "llama2", "mistral-v3", "mistral-v1"};

LLMDEF const char *llm_chat_kind_name(llm_chat_kind k) {
    return (int)k >= 0 && k < LLM_CHAT_KIND_COUNT ? llm__chat_names[k] : "unknown";
}

static int llm__mem_has(const char *s, size_t n, const char *needle) {
    size_t k = strlen(needle), i;
    if (k == 0 || k > n) return k == 0;
    for (i = 0; i + k <= n; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) return 1;
    return 0;
}

LLMDEF llm_status llm_chat_template_detect(llm_chat_template *t, const char *jinja, size_t len) {
    unsigned f = 0;
    llm_chat_kind k = LLM_CHAT_NONE;
    if (!t) return LLM_EINVAL;
    memset(t, 0, sizeof *t);
    if (!jinja && len > 0) return LLM_EINVAL;
#define LLM__HAS(x) llm__mem_has(jinja, len, x)
    if (LLM__HAS("<|start_header_id|>")) {
        k = LLM_CHAT_LLAMA3;
        if (!LLM__HAS("bos_token") && !LLM__HAS("<|begin_of_text|>")) f |= LLM_CHAT_NO_BOS;
    } else if (LLM__HAS("<|im_start|>") && !LLM__HAS("<|im_sep|>")) { /* Phi-4's im_sep is not chatml */
        k = LLM_CHAT_CHATML;
        if (LLM__HAS("</think>")) f |= LLM_CHAT_THINK;
    } else if (LLM__HAS("<start_of_turn>")) {
        k = LLM_CHAT_GEMMA;
        if (!LLM__HAS("bos_token")) f |= LLM_CHAT_NO_BOS;
    } else if (LLM__HAS("<|user|>") && LLM__HAS("<|end|>")) {
        k = LLM_CHAT_PHI3;
        if (!LLM__HAS("<|system|>")) f |= LLM_CHAT_NO_SYSTEM;
        if (!LLM__HAS("bos_token")) f |= LLM_CHAT_NO_BOS;
    } else if (LLM__HAS("[INST]")) {
        if (LLM__HAS("<<SYS>>")) k = LLM_CHAT_LLAMA2;
        else if (LLM__HAS(" [/INST]")) k = LLM_CHAT_MISTRAL_V1;
        else k = LLM_CHAT_MISTRAL_V3;
        if (k == LLM_CHAT_MISTRAL_V1 && LLM__HAS("eos_token + ' '")) f |= LLM_CHAT_EOS_SPACE;
        if (!LLM__HAS("bos_token")) f |= LLM_CHAT_NO_BOS;
    }
    if (k != LLM_CHAT_NONE && k != LLM_CHAT_LLAMA2 && k != LLM_CHAT_MISTRAL_V1 && k != LLM_CHAT_MISTRAL_V3 &&
        !LLM__HAS("add_generation_prompt"))
        f |= LLM_CHAT_ALWAYS_GEN;
#undef LLM__HAS
    if (k == LLM_CHAT_NONE) { /* the template's start, control bytes as '?' */
        llm__why_name(t->why, sizeof t->why,
                      "unknown chat template (none of <|start_header_id|>, <|im_start|>, <start_of_turn>, "
                      "<|user|>+<|end|>, [INST]): '",
                      jinja ? jinja : "", len, "'");
        return LLM_EUNSUPPORTED;
    }
    t->kind = k;
    t->flags = f;
    return LLM_OK;
}

LLMDEF llm_status llm_chat_template_named(llm_chat_template *t, const char *name) {
    int k;
    if (!t) return LLM_EINVAL;
    memset(t, 0, sizeof *t);
    if (!name) return LLM_EINVAL;
    if (strcmp(name, "qwen3") == 0) {
        t->kind = LLM_CHAT_CHATML, t->flags = LLM_CHAT_THINK;
        return LLM_OK;
    }
    for (k = 1; k < LLM_CHAT_KIND_COUNT; k++)
        if (strcmp(name, llm__chat_names[k]) == 0) {
            t->kind = (llm_chat_kind)k;
            if (k == LLM_CHAT_MISTRAL_V1) t->flags = LLM_CHAT_EOS_SPACE; /* Mistral 7B v0.1's */
            if (k == LLM_CHAT_PHI3) t->flags = LLM_CHAT_NO_BOS;          /* Phi-3.5's */
            return LLM_OK;
        }
    llm__why_name(t->why, sizeof t->why, "unknown chat template name '", name, strlen(name),
                  "' (llama3 chatml qwen3 gemma phi3 llama2 mistral-v3 mistral-v1)");
    return LLM_ENOTFOUND;
}

/* The output: bytes past cap are counted, not written. */
typedef struct llm__out {
    char *p;
    size_t cap, n;
} llm__out;
static void llm__put(llm__out *o, const char *s, size_t n) {
    if (o->n < o->cap) memcpy(o->p + o->n, s, o->cap - o->n < n ? o->cap - o->n : n);
    o->n += n;
}
static void llm__puts(llm__out *o, const char *s) { llm__put(o, s, strlen(s)); }

/* Python's str.strip / lstrip / rstrip of ASCII white space (Jinja's trim), or of chars */
static int llm__is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static void llm__strip(const char **s, size_t *n, int left, int right, const char *chars) {
    while (left && *n > 0 && (chars ? strchr(chars, **s) != NULL : llm__is_ws(**s))) (*s)++, (*n)--;
    while (right && *n > 0 && (chars ? strchr(chars, (*s)[*n - 1]) != NULL : llm__is_ws((*s)[*n - 1]))) (*n)--;
}
static void llm__put_trim(llm__out *o, const char *s) {
    size_t n = strlen(s);
    llm__strip(&s, &n, 1, 1, NULL);
    llm__put(o, s, n);
}
/* The first / last occurrence of needle in s[0..n), or NULL */
static const char *llm__find(const char *s, size_t n, const char *needle, int last) {
    size_t k = strlen(needle), i;
    const char *hit = NULL;
    for (i = 0; i + k <= n; i++)
        if (memcmp(s + i, needle, k) == 0) {
            hit = s + i;
            if (!last) break;
        }
    return hit;
}

/* Qwen 3's assistant turn: the reasoning split off at </think>, shown only after the last
   user query (its template's ns.last_query_index) */
static void llm__put_qwen3_assistant(llm__out *o, const char *content, int after_query, int last) {
    size_t n = strlen(content), cn = n, rn = 0;
    const char *c = content, *r = "", *end;
    if ((end = llm__find(content, n, "</think>", 1)) != NULL) {
        const char *first = llm__find(content, n, "</think>", 0), *open;
        c = end + 8, cn = (size_t)(content + n - c);
        llm__strip(&c, &cn, 1, 0, "\n");
        r = content, rn = (size_t)(first - content);
        llm__strip(&r, &rn, 0, 1, "\n");
        if ((open = llm__find(r, rn, "<think>", 1)) != NULL) rn -= (size_t)(open + 7 - r), r = open + 7;
        llm__strip(&r, &rn, 1, 0, "\n");
    }
    llm__puts(o, "<|im_start|>assistant\n");
    if (after_query && (last || rn > 0)) {
        llm__puts(o, "<think>\n");
        llm__strip(&r, &rn, 1, 1, "\n");
        llm__put(o, r, rn);
        llm__puts(o, "\n</think>\n\n");
        llm__strip(&c, &cn, 1, 0, "\n");
    }
    llm__put(o, c, cn);
    llm__puts(o, "<|im_end|>\n");
}

LLMDEF llm_status llm_chat_render(const llm_chat_template *t, const llm_chat_msg *msgs, int n,
                                  int add_generation_prompt, const char *bos, const char *eos, char *out,
                                  size_t cap, size_t *out_len) {
    llm__out o;
    int i, first = 0, last_query, turn;
    const char *system = NULL;
    unsigned f;
    if (out_len) *out_len = 0;
    if (!t || !out_len || n < 0 || (n > 0 && !msgs) || (!out && cap > 0)) return LLM_EINVAL;
    if (t->kind <= LLM_CHAT_NONE || t->kind >= LLM_CHAT_KIND_COUNT) return LLM_EINVAL;
    f = t->flags;
    for (i = 0; i < n; i++) {
        const char *r = msgs[i].role;
        int known = r && (!strcmp(r, "system") || !strcmp(r, "user") || !strcmp(r, "assistant"));
        if (!r || !*r || !msgs[i].content) return LLM_EINVAL;
        /* llama3 and chatml write any role as given; the others know three */
        if (!known && t->kind != LLM_CHAT_LLAMA3 && t->kind != LLM_CHAT_CHATML) return LLM_EINVAL;
    }
    if (!bos) bos = t->kind == LLM_CHAT_LLAMA3 ? "<|begin_of_text|>" : t->kind == LLM_CHAT_GEMMA ? "<bos>" : "<s>";
    if (!eos) eos = t->kind == LLM_CHAT_PHI3 ? "<|endoftext|>" : t->kind == LLM_CHAT_GEMMA ? "<eos>" : "</s>";
    /* the families whose templates take the system turn out of the loop and then insist on
       user / assistant alternation (raise_exception otherwise) */
    if (t->kind == LLM_CHAT_LLAMA2 || t->kind == LLM_CHAT_GEMMA || t->kind == LLM_CHAT_MISTRAL_V3 ||
        t->kind == LLM_CHAT_MISTRAL_V1) {
        if (n > 0 && !strcmp(msgs[0].role, "system")) {
            if (t->kind == LLM_CHAT_MISTRAL_V1) return LLM_EINVAL; /* "Only user and assistant roles" */
            system = msgs[0].content, first = 1;
        }
        for (i = first; i < n; i++)
            if (strcmp(msgs[i].role, (i - first) % 2 == 0 ? "user" : "assistant") != 0) return LLM_EINVAL;
    }
    o.p = out, o.cap = cap, o.n = 0;
    switch (t->kind) {
    case LLM_CHAT_LLAMA3: /* hf-llama3's and Meta's Instruct template */
        for (i = 0; i < n; i++) {
            if (i == 0 && !(f & LLM_CHAT_NO_BOS)) llm__puts(&o, bos);
            llm__puts(&o, "<|start_header_id|>");
            llm__puts(&o, msgs[i].role);
            llm__puts(&o, "<|end_header_id|>\n\n");
            llm__put_trim(&o, msgs[i].content);
            llm__puts(&o, "<|eot_id|>");
        }
        if (add_generation_prompt || (f & LLM_CHAT_ALWAYS_GEN)) llm__puts(&o, "<|start_header_id|>assistant<|end_header_id|>\n\n");
        break;
    case LLM_CHAT_CHATML: /* Qwen 3's ns.last_query_index: the last user turn that is not a tool response */
        last_query = n - 1;
        for (i = n - 1; i >= 0; i--) {
            const char *c = msgs[i].content;
            size_t cl = strlen(c);
            if (!strcmp(msgs[i].role, "user") &&
                !(cl >= 33 && !strncmp(c, "<tool_response>", 15) && !strcmp(c + cl - 16, "</tool_response>"))) {
                last_query = i;
                break;
            }
        }
        for (i = 0; i < n; i++) {
            if ((f & LLM_CHAT_THINK) && !strcmp(msgs[i].role, "assistant")) {
                llm__put_qwen3_assistant(&o, msgs[i].content, i > last_query, i == n - 1);
                continue;
            }
            llm__puts(&o, "<|im_start|>");
            llm__puts(&o, msgs[i].role);
            llm__puts(&o, "\n");
            llm__puts(&o, msgs[i].content);
            llm__puts(&o, "<|im_end|>\n");
        }
        if (add_generation_prompt || (f & LLM_CHAT_ALWAYS_GEN)) llm__puts(&o, "<|im_start|>assistant\n");
        break;
    case LLM_CHAT_GEMMA: /* Gemma 3's: the system text opens the first turn, then "\n\n" */
        if (!(f & LLM_CHAT_NO_BOS)) llm__puts(&o, bos);
        for (i = first; i < n; i++) {
            llm__puts(&o, "<start_of_turn>");
            llm__puts(&o, strcmp(msgs[i].role, "assistant") ? msgs[i].role : "model");
            llm__puts(&o, "\n");
            if (i == first && system) {
                llm__puts(&o, system);
                llm__puts(&o, "\n\n");
            }
            llm__put_trim(&o, msgs[i].content);
            llm__puts(&o, "<end_of_turn>\n");
        }
        if (add_generation_prompt || (f & LLM_CHAT_ALWAYS_GEN)) llm__puts(&o, "<start_of_turn>model\n");
        break;
    case LLM_CHAT_PHI3:
        if (!(f & LLM_CHAT_NO_BOS)) llm__puts(&o, bos);
        for (i = 0; i < n; i++) {
            const char *r = msgs[i].role;
            if (!strcmp(r, "system")) {
                /* Phi-3.5: '<|system|>\n' when the content is not empty; the first Phi-3: dropped */
                if ((f & LLM_CHAT_NO_SYSTEM) || !*msgs[i].content) continue;
                llm__puts(&o, "<|system|>\n");
            } else if (!strcmp(r, "user")) {
                llm__puts(&o, "<|user|>\n");
            } else if (!(f & LLM_CHAT_ALWAYS_GEN)) {
                llm__puts(&o, "<|assistant|>\n");
            }
            llm__puts(&o, msgs[i].content);
            llm__puts(&o, "<|end|>\n");
            /* the first Phi-3 template opens the assistant's turn after every user turn */
            if ((f & LLM_CHAT_ALWAYS_GEN) && !strcmp(r, "user")) llm__puts(&o, "<|assistant|>\n");
        }
        if (!(f & LLM_CHAT_ALWAYS_GEN)) llm__puts(&o, add_generation_prompt ? "<|assistant|>\n" : eos);
        break;
    case LLM_CHAT_LLAMA2: /* bos + '[INST] ' + (<<SYS>> block +) content.strip() + ' [/INST]' */
        for (i = first, turn = 0; i < n; i++, turn++) {
            if (turn % 2 == 0) {
                const char *c = msgs[i].content;
                size_t cn = strlen(c);
                if (!(f & LLM_CHAT_NO_BOS)) llm__puts(&o, bos);
                llm__puts(&o, "[INST] ");
                /* strip() covers the whole content: the <<SYS>> block's start, the text's end */
                if (turn == 0 && system) {
                    llm__strip(&c, &cn, 0, 1, NULL);
                    llm__puts(&o, "<<SYS>>\n");
                    llm__puts(&o, system);
                    llm__puts(&o, cn ? "\n<</SYS>>\n\n" : "\n<</SYS>>"); /* all-blank text: strip reaches the block */
                } else {
                    llm__strip(&c, &cn, 1, 1, NULL);
                }
                llm__put(&o, c, cn);
                llm__puts(&o, " [/INST]");
            } else {
                llm__puts(&o, " ");
                llm__put_trim(&o, msgs[i].content);
                llm__puts(&o, " ");
                llm__puts(&o, eos);
            }
        }
        break;
    case LLM_CHAT_MISTRAL_V3: /* the system text goes before the last message if it is a user turn */
        if (!(f & LLM_CHAT_NO_BOS)) llm__puts(&o, bos);
        for (i = first; i < n; i++) {
            if (!strcmp(msgs[i].role, "user")) {
                llm__puts(&o, "[INST] ");
                if (i == n - 1 && system) {
                    llm__puts(&o, system);
                    llm__puts(&o, "\n\n");
                }
                llm__puts(&o, msgs[i].content);
                llm__puts(&o, "[/INST]");
            } else {
                llm__puts(&o, " ");
                llm__put_trim(&o, msgs[i].content);
                llm__puts(&o, eos);
            }
        }
        break;
    case LLM_CHAT_MISTRAL_V1:
        if (!(f & LLM_CHAT_NO_BOS)) llm__puts(&o, bos);
        for (i = 0; i < n; i++) {
            if (!strcmp(msgs[i].role, "user")) {
                llm__puts(&o, "[INST] ");
                llm__puts(&o, msgs[i].content);
                llm__puts(&o, " [/INST]");
            } else {
                llm__puts(&o, msgs[i].content);
                llm__puts(&o, eos);
                if (f & LLM_CHAT_EOS_SPACE) llm__puts(&o, " ");
            }
        }
        break;
    default:
        return LLM_EINVAL;
    }
    *out_len = o.n;
    if (o.n >= cap) return LLM_ERANGE;
    out[o.n] = 0;
    return LLM_OK;
}

/* ---- >>generation implementation: the end-of-generation set of a GGUF --------------- */

LLMDEF llm_status llm_gguf_eog_ids(const struct llm_gguf *g, int *ids, int cap, int *n) {
    static const char *const keys[] = {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id",
                                       "tokenizer.ggml.eom_token_id"};
    static const char *const texts[] = {"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<end_of_turn>", "<|end|>", "<|endoftext|>"};
    const llm_gguf_kv *kv;
    int64_t ki, n_tok, found[6], all[9];
    int count = 0, n_all = 0, i, j;
    uint64_t cursor = 0, t;
    if (n) *n = 0;
    if (!g || !n || cap < 0 || (cap > 0 && !ids)) return LLM_EINVAL;
    ki = llm_gguf_find_key(g, "tokenizer.ggml.tokens");
    if (ki < 0) return LLM_EFORMAT;
    kv = &g->kv[ki];
    if (kv->type != LLM_GGUF_ARRAY || kv->arr_type != LLM_GGUF_STRING || kv->arr_n > (uint64_t)INT_MAX)
        return LLM_EFORMAT;
    n_tok = (int64_t)kv->arr_n;
    for (i = 0; i < 6; i++) found[i] = -1;
    for (t = 0; t < (uint64_t)n_tok; t++) { /* one pass over the token texts */
        llm_gguf_str s;
        if (llm_gguf_arr_str(kv, &cursor, &s) != LLM_OK) return LLM_EFORMAT;
        if (s.n < 5 || s.n > 13 || s.s[0] != '<') continue;
        for (i = 0; i < 6; i++)
            if (found[i] < 0 && s.n == strlen(texts[i]) && memcmp(s.s, texts[i], s.n) == 0) found[i] = (int64_t)t;
    }
    for (i = 0; i < 3; i++) { /* the keys first, then the texts; each id once */
        int64_t v;
        llm_status st = llm_gguf_get_int(g, keys[i], &v);
        if (st == LLM_ENOTFOUND) continue;
        if (st != LLM_OK || v < 0 || v >= n_tok) return LLM_EFORMAT;
        all[n_all++] = v;
    }
    for (i = 0; i < 6; i++)
        if (found[i] >= 0) all[n_all++] = found[i];
    for (i = 0; i < n_all; i++) {
        for (j = 0; j < i && all[j] != all[i]; j++) {}
        if (j < i) continue;
        if (count < cap) ids[count] = (int)all[i];
        count++;
    }
    *n = count;
    return count > cap ? LLM_ERANGE : LLM_OK;
}

/* ---- >>gen implementation (placed after >>generation's, whose helpers it shares) ----- */

static const char *const llm__gen_stop_names[LLM_GEN_STOP_COUNT] = {
    "none", "eog", "stop string", "max tokens", "context full", "callback", "error"};
LLMDEF const char *llm_gen_stop_name(llm_gen_stop s) {
    return (int)s >= 0 && s < LLM_GEN_STOP_COUNT ? llm__gen_stop_names[s] : "unknown";
}

LLMDEF llm_gen_params llm_gen_params_default(void) {
    llm_gen_params p;
    memset(&p, 0, sizeof p);
    p.prefill_chunk = 64;
    p.kv_dtype = LLM_F32;
    p.sampler = llm_sampler_params_default();
    return p;
}

/* The resolved sizes of an llm_gen, and where each part goes in its memory. */
typedef struct llm__gen_layout {
    int cap, chunk;
    size_t dcap, scap, text, scratch;
    uint64_t o_state, o_smp, o_tok, o_logits, o_dbuf, o_sbuf, o_text, o_ids, o_scr, total;
} llm__gen_layout;

static llm_status llm__gen_plan(const llm_config *c, const llm_vocab *v, const llm_gen_params *p, llm__gen_layout *L) {
    size_t max_stop = 0, sb;
    uint64_t o = 0, st_b, smp_b;
    int i;
    memset(L, 0, sizeof *L);
    if (!c || !p || llm__model_check(c) != LLM_OK) return LLM_EINVAL;
    if (p->capacity < 0 || p->prefill_chunk < 0 || p->max_tokens < 0 || p->n_stops < 0 || p->n_eog < 0 ||
        p->n_eog > LLM_GEN_MAX_EOG || (p->n_eog > 0 && !p->eog) || (p->n_stops > 0 && !p->stops))
        return LLM_EINVAL;
    if (v && (v->n_tokens <= 0 || v->n_tokens > c->vocab)) return LLM_EINVAL;
    for (i = 0; i < p->n_eog; i++)
        if (p->eog[i] < 0 || p->eog[i] >= c->vocab) return LLM_EINVAL;
    for (i = 0; i < p->n_stops; i++) {
        size_t k = p->stops[i] ? strlen(p->stops[i]) : 0;
        if (k == 0) return LLM_EINVAL;
        if (k > max_stop) max_stop = k;
    }
    L->cap = p->capacity ? p->capacity : c->max_seq_len;
    if (L->cap <= 0 || L->cap >= (1 << 28)) return LLM_EINVAL;
    L->chunk = p->prefill_chunk ? p->prefill_chunk : 64;
    if (L->chunk > L->cap) L->chunk = L->cap;
    st_b = llm_state_bytes(c, L->cap, L->chunk, p->kv_dtype);
    smp_b = llm_sampler_chain_bytes(c->vocab, &p->sampler);
    if (st_b == 0 || smp_b == 0) return LLM_EINVAL;
    L->dcap = (size_t)(v ? v->max_piece : 0) + 16; /* a piece + the decoder's held bytes */
    L->scap = L->dcap + max_stop + 16;             /* + the stop matcher's */
    if (p->chat && v) {
        L->text = p->chat_bytes ? p->chat_bytes : 16 * (size_t)L->cap + 4096;
        if (L->text < 2 || (sb = llm_vocab_scratch_bytes(v, L->text)) == 0) return LLM_EINVAL;
        L->scratch = sb;
    }
    L->o_state = o, o += LLM__MALIGN(st_b);
    L->o_smp = o, o += LLM__MALIGN(smp_b);
    L->o_tok = o, o += LLM__MALIGN(((uint64_t)L->cap + 1) * sizeof(int));
    L->o_logits = o, o += LLM__MALIGN((uint64_t)c->vocab * sizeof(float));
    L->o_dbuf = o, o += LLM__MALIGN(L->dcap);
    L->o_sbuf = o, o += LLM__MALIGN(L->scap);
    L->o_text = o, o += LLM__MALIGN(L->text);
    L->o_ids = o, o += L->text ? LLM__MALIGN(((uint64_t)L->cap + 1) * sizeof(int32_t)) : 0;
    L->o_scr = o, o += LLM__MALIGN(L->scratch);
    L->total = o + 64;
    return L->total > (uint64_t)SIZE_MAX ? LLM_EINVAL : LLM_OK;
}

LLMDEF size_t llm_gen_bytes(const llm_config *c, const llm_vocab *v, const llm_gen_params *p) {
    llm__gen_layout L;
    return llm__gen_plan(c, v, p, &L) == LLM_OK ? (size_t)L.total : 0;
}

LLMDEF llm_status llm_gen_init(llm_gen *g, void *mem, size_t mem_bytes, const llm_config *c, const llm_weights *w,
                               const llm_vocab *v, const llm_gen_params *p, llm_threads *th) {
    llm__gen_layout L;
    char *base;
    int i;
    llm_status st;
    if (!g) return LLM_EINVAL;
    memset(g, 0, sizeof *g);
    if (!mem || !w) return LLM_EINVAL;
    LLM__MTRY(llm__gen_plan(c, v, p, &L));
    if (mem_bytes < L.total) return LLM_EINVAL;
    base = (char *)llm__align64(mem);
    st = llm_state_init(&g->state, base + L.o_state, (size_t)(L.o_smp - L.o_state), c, L.cap, L.chunk, p->kv_dtype);
    if (st == LLM_OK)
        st = llm_sampler_chain_init(&g->sampler, base + L.o_smp, (size_t)(L.o_tok - L.o_smp), c->vocab, &p->sampler);
    if (st == LLM_OK) st = llm_stop_init(&g->stop, p->stops, p->n_stops);
    if (st != LLM_OK) {
        memset(g, 0, sizeof *g);
        return st;
    }
    g->w = w, g->v = v, g->th = th;
    g->max_tokens = p->max_tokens;
    if (p->n_eog > 0) {
        for (i = 0; i < p->n_eog; i++) g->eog[i] = p->eog[i];
        g->n_eog = p->n_eog;
    } else if (v) { /* the vocabulary's own: eos, and eot when it is another */
        if (v->eos >= 0) g->eog[g->n_eog++] = v->eos;
        if (v->eot >= 0 && v->eot != v->eos) g->eog[g->n_eog++] = v->eot;
    }
    if (p->chat && v) g->chat = *p->chat, g->has_chat = 1;
    g->tokens = (int *)(void *)(base + L.o_tok);
    g->logits = (float *)(void *)(base + L.o_logits);
    g->dbuf = base + L.o_dbuf, g->dcap = L.dcap;
    g->sbuf = base + L.o_sbuf, g->scap = L.scap;
    if (L.text) {
        g->text = base + L.o_text, g->text_cap = L.text;
        g->ids = (int32_t *)(void *)(base + L.o_ids);
        g->scratch = base + L.o_scr, g->scratch_bytes = L.scratch;
    }
    g->token = -1;
    if (v) llm_vocab_stream_init(&g->dec, v, 0);
    return LLM_OK;
}

LLMDEF llm_status llm_gen_create(llm_gen *g, const llm_config *c, const llm_weights *w, const llm_vocab *v,
                                 const llm_gen_params *p, llm_threads *th) {
    size_t need = llm_gen_bytes(c, v, p);
    void *mem;
    LLM__MTRY(llm__create_mem(g, sizeof *g, need, &mem));
    return llm__created(g, sizeof *g, &g->owned, mem, llm_gen_init(g, mem, need, c, w, v, p, th));
}

LLMDEF void llm_gen_free(llm_gen *g) {
    if (g) llm__destroy(g, sizeof *g, g->owned);
}

LLMDEF void llm_gen_reset(llm_gen *g) {
    if (!g || !g->tokens) return;
    g->n_tokens = 0, g->has_logits = 0, g->n_drawn = 0, g->token = -1, g->stopped = LLM_GEN_NONE;
    llm_kv_cache_reset(&g->state.kv);
    llm_sampler_reset(&g->sampler);
}

/* A new reply: the stop matcher, the decoder and the count start again. A prompt's reply
   continues its text (a SentencePiece space in front is kept); a chat reply is a new text,
   whose first space the decoder drops as llm_vocab_decode does. */
static void llm__gen_begin(llm_gen *g, int continues) {
    g->n_drawn = 0, g->stopped = LLM_GEN_NONE;
    llm_stop_init(&g->stop, g->stop.stops, g->stop.n_stops);
    if (g->v) llm_vocab_stream_init(&g->dec, g->v, 0), g->dec.started = continues;
}

/* Runs tokens[start ..) for the logits of the last one, start = the first position past
   both `keep` (the prefix the context still shares) and the KV cache. */
static llm_status llm__gen_sync(llm_gen *g, int keep) {
    int start = keep < g->state.kv.len ? keep : g->state.kv.len;
    llm_status st;
    g->n_prefilled = 0;
    if (start == g->n_tokens && g->has_logits) return LLM_OK; /* nothing new, the logits are still there */
    if (start == g->n_tokens) start--; /* the last token again, for its logits */
    g->has_logits = 0;
    st = llm_forward(&g->state, g->w, g->tokens + start, g->n_tokens - start, start, g->logits, 0, g->th);
    if (st != LLM_OK) {
        g->n_tokens = g->state.kv.len; /* the context is what the cache holds */
        return st;
    }
    g->n_prefilled = g->n_tokens - start;
    g->has_logits = 1;
    return LLM_OK;
}

LLMDEF llm_status llm_gen_prompt_ids(llm_gen *g, const int *ids, int n) {
    int i;
    if (!g || !g->tokens || n < 0 || (n > 0 && !ids)) return LLM_EINVAL;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= g->state.config.vocab) return LLM_EINVAL;
    if (g->n_tokens + n == 0) return LLM_EINVAL;
    if ((int64_t)g->n_tokens + n > g->state.capacity) return LLM_EFULL;
    for (i = 0; i < n; i++) g->tokens[g->n_tokens + i] = ids[i];
    i = g->n_tokens;
    g->n_tokens += n;
    llm__gen_begin(g, 1);
    return llm__gen_sync(g, i);
}

LLMDEF llm_status llm_gen_prompt(llm_gen *g, const char *text, size_t len, int flags) {
    size_t n = 0, room, k;
    int32_t *ids;
    llm_status st;
    if (!g || !g->tokens || !g->v || (len > 0 && !text)) return LLM_EINVAL;
    room = g->n_tokens < g->state.capacity ? (size_t)(g->state.capacity - g->n_tokens) : 0; /* 0 after context full */
    /* the new ids go straight into the context's free slots (int and int32_t alike) */
    if (sizeof(int) != sizeof(int32_t)) return LLM_EUNSUPPORTED;
    ids = (int32_t *)(void *)(g->tokens + g->n_tokens);
    st = llm_vocab_encode(g->v, text, len, flags, ids, room, &n, NULL, 0);
    if (st == LLM_ERANGE) return LLM_EFULL;
    LLM__MTRY(st);
    if (g->n_tokens + (int)n == 0) return LLM_EINVAL;
    if ((int64_t)g->n_tokens + (int64_t)n > g->state.capacity) return LLM_EFULL;
    k = (size_t)g->n_tokens;
    g->n_tokens += (int)n;
    llm__gen_begin(g, 1);
    return llm__gen_sync(g, (int)k);
}

LLMDEF llm_status llm_gen_chat(llm_gen *g, const llm_chat_msg *msgs, int n) {
    const char *bos = NULL, *eos = NULL;
    size_t tl = 0, n_ids = 0, pl;
    int common = 0, i;
    llm_status st;
    if (!g || !g->tokens || !g->has_chat || !g->v || !msgs || n <= 0) return LLM_EINVAL;
    if (g->v->bos >= 0) bos = llm_vocab_piece(g->v, g->v->bos, LLM_DECODE_SPECIAL, &pl);
    if (g->v->eos >= 0) eos = llm_vocab_piece(g->v, g->v->eos, LLM_DECODE_SPECIAL, &pl);
    LLM__MTRY(llm_chat_render(&g->chat, msgs, n, 1, bos, eos, g->text, g->text_cap, &tl));
    st = llm_vocab_encode(g->v, g->text, tl, LLM_ENCODE_SPECIAL, g->ids, (size_t)g->state.capacity, &n_ids,
                          g->scratch, g->scratch_bytes);
    if (st == LLM_ERANGE) return LLM_EFULL;
    LLM__MTRY(st);
    if (n_ids == 0) return LLM_EINVAL;
    while (common < g->n_tokens && (size_t)common < n_ids && g->tokens[common] == g->ids[common]) common++;
    for (i = common; i < (int)n_ids; i++) g->tokens[i] = g->ids[i];
    g->n_tokens = (int)n_ids;
    llm__gen_begin(g, 0);
    return llm__gen_sync(g, common);
}

/* Bytes through the stop matcher into sbuf at *on; final: the held bytes too. */
static void llm__gen_show(llm_gen *g, const char *b, size_t n, int final, size_t *on) {
    size_t k = 0;
    if (llm_stop_feed(&g->stop, b, n, g->sbuf + *on, g->scap - *on, &k) == LLM_OK) *on += k;
    if (final && g->stop.stopped < 0 && llm_stop_flush(&g->stop, g->sbuf + *on, g->scap - *on, &k) == LLM_OK) *on += k;
}

/* The reply ends: what the decoder and the matcher still hold is shown (unless a stop
   string cut the text there). */
static void llm__gen_end(llm_gen *g, llm_gen_stop why, size_t *on) {
    size_t dn = 0;
    if (why != LLM_GEN_STOP_STRING) {
        if (g->v && llm_vocab_stream_flush(&g->dec, g->dbuf, g->dcap, &dn) != LLM_OK) dn = 0;
        llm__gen_show(g, g->dbuf, dn, 1, on);
    }
    g->stopped = why;
}

/* The first half of a step: draws the next token from the logits pending and shows its
   bytes (*on of sbuf); *run = 1 when the reply goes on, so the token must be run for the
   next logits (llm_gen_next runs it alone, llm_gen_next_batch with the others). */
static llm_status llm__gen_draw(llm_gen *g, size_t *on, int *run) {
    size_t dn = 0;
    int tok, e;
    *on = 0, *run = 0;
    tok = llm_sample(&g->sampler, g->logits);
    g->has_logits = 0; /* the sampler overwrote them */
    if (tok < 0) return LLM_ERANGE; /* every token banned */
    g->token = tok;
    g->n_drawn++;
    for (e = 0; e < g->n_eog; e++)
        if (tok == g->eog[e]) {
            llm__gen_end(g, LLM_GEN_EOG, on);
            return LLM_OK;
        }
    g->tokens[g->n_tokens++] = tok;
    if (g->v && llm_vocab_stream_push(&g->dec, tok, g->dbuf, g->dcap, &dn) != LLM_OK) dn = 0; /* padding id */
    llm__gen_show(g, g->dbuf, dn, 0, on);
    if (g->stop.stopped >= 0) llm__gen_end(g, LLM_GEN_STOP_STRING, on);
    else if (g->max_tokens > 0 && g->n_drawn >= g->max_tokens) llm__gen_end(g, LLM_GEN_MAX_TOKENS, on);
    else if (g->n_tokens > g->state.capacity) llm__gen_end(g, LLM_GEN_CONTEXT_FULL, on);
    *run = g->stopped == LLM_GEN_NONE;
    return LLM_OK;
}

LLMDEF llm_status llm_gen_next(llm_gen *g, const char **piece, size_t *len, llm_gen_stop *stop) {
    size_t on = 0;
    int run;
    llm_status st;
    if (piece) *piece = g && g->sbuf ? g->sbuf : "";
    if (len) *len = 0;
    if (stop) *stop = LLM_GEN_ERROR;
    if (!g || !g->tokens || !piece || !len || !stop) return LLM_EINVAL;
    if (g->stopped != LLM_GEN_NONE) return *stop = g->stopped, LLM_OK;
    if (!g->has_logits) return LLM_EINVAL; /* no prompt yet */
    st = llm__gen_draw(g, &on, &run);
    *len = on;
    if (st != LLM_OK) return st;
    if (!run) return *stop = g->stopped, LLM_OK;
    /* the token just drawn, for the logits of the next one */
    LLM__MTRY(llm_forward(&g->state, g->w, &g->token, 1, g->n_tokens - 1, g->logits, 0, g->th));
    g->has_logits = 1;
    *stop = LLM_GEN_NONE;
    return LLM_OK;
}

LLMDEF llm_status llm_gen_run(llm_gen *g, llm_gen_callback cb, void *user, llm_gen_stop *stop) {
    const char *piece;
    size_t len;
    llm_gen_stop why = LLM_GEN_ERROR;
    if (stop) *stop = LLM_GEN_ERROR;
    if (!g || !cb || !stop) return LLM_EINVAL;
    do {
        LLM__MTRY(llm_gen_next(g, &piece, &len, &why));
        if (cb(user, piece, len) != 0 && why == LLM_GEN_NONE) g->stopped = why = LLM_GEN_CALLBACK;
    } while (why == LLM_GEN_NONE);
    *stop = why;
    return LLM_OK;
}

/* ---- several generators in one step ---- */

/* A batched step's scratch, each part 64-byte aligned: llm_forward_batch's, then for the
   generators queued for the forward pass their indices in gens, states, tokens, positions
   and logits [n][vocab]. */
typedef struct llm__gen_blayout {
    uint64_t q, seqs, toks, pos, logits, total;
} llm__gen_blayout;

static int llm__gen_batch_layout(const llm_config *c, int n, llm__gen_blayout *L) {
    size_t fb = llm_forward_batch_bytes(c, n);
    uint64_t o = LLM__MALIGN(fb);
    if (fb == 0) return 0;
    L->q = o, o += LLM__MALIGN((uint64_t)n * sizeof(int));
    L->seqs = o, o += LLM__MALIGN((uint64_t)n * sizeof(llm_state *));
    L->toks = o, o += LLM__MALIGN((uint64_t)n * sizeof(int));
    L->pos = o, o += LLM__MALIGN((uint64_t)n * sizeof(int));
    L->logits = o, o += LLM__MALIGN((uint64_t)n * (uint64_t)c->vocab * sizeof(float));
    L->total = o + 64;
    return L->total <= (uint64_t)SIZE_MAX;
}

LLMDEF size_t llm_gen_batch_bytes(const llm_config *c, int n) {
    llm__gen_blayout L;
    if (!c || n <= 0 || n > LLM_BATCH_MAX || !llm__gen_batch_layout(c, n, &L)) return 0;
    return (size_t)L.total;
}

/* Every refusal of llm_gen_next_batch, found before any generator is touched. */
static const char *llm__gen_batch_check(llm_gen *const *gens, int n, const void *scratch, size_t bytes,
                                        const llm_gen_piece *out) {
    int i, j;
    if (!gens || !out) return "gens or out is NULL";
    if (n <= 0 || n > LLM_BATCH_MAX) return "n is outside 1..LLM_BATCH_MAX";
    for (i = 0; i < n; i++) {
        const llm_gen *g = gens[i];
        if (!g || !g->tokens) return "a generator is NULL or not initialized";
        for (j = 0; j < i; j++)
            if (gens[j] == g)
                return "a generator is listed twice (one KV cache cannot take two tokens at one position)";
        if (g->w != gens[0]->w) return "the generators run different weights (one step reads one llm_weights for all)";
        if (!llm__config_same(&g->state.config, &gens[0]->state.config))
            return "the generators' configs differ (one set of weights runs every sequence)";
    }
    if (!scratch || bytes < llm_gen_batch_bytes(&gens[0]->state.config, n))
        return "scratch is smaller than llm_gen_batch_bytes(config, n)";
    return NULL;
}

LLMDEF llm_status llm_gen_next_batch(llm_gen *const *gens, int n, void *scratch, size_t scratch_bytes,
                                     llm_gen_piece *out, const char **why) {
    const char *bad = llm__gen_batch_check(gens, n, scratch, scratch_bytes, out);
    llm__gen_blayout L;
    char *base;
    llm_state **seqs;
    float *logits;
    int *q, *toks, *pos, i, k = 0, V, run;
    llm_status st;
    if (why) *why = bad ? bad : "ok";
    if (bad) return LLM_EINVAL;
    V = gens[0]->state.config.vocab;
    if (!llm__gen_batch_layout(&gens[0]->state.config, n, &L)) {
        if (why) *why = "the batch's scratch layout overflows (config too large)";
        return LLM_EINVAL;
    }
    base = (char *)llm__align64(scratch);
    q = (int *)(void *)(base + L.q), seqs = (llm_state **)(void *)(base + L.seqs);
    toks = (int *)(void *)(base + L.toks), pos = (int *)(void *)(base + L.pos);
    logits = (float *)(void *)(base + L.logits);
    /* each generator's draw (llm_gen_next's first half); those whose reply goes on queue */
    for (i = 0; i < n; i++) {
        llm_gen *g = gens[i];
        llm_gen_piece *p = &out[i];
        size_t on = 0;
        p->piece = g->sbuf ? g->sbuf : "", p->len = 0, p->status = LLM_OK, p->token = -1;
        p->stop = g->stopped, p->step = LLM_GEN_SKIP_STOPPED;
        if (g->stopped != LLM_GEN_NONE) continue;
        p->step = LLM_GEN_SKIP_PROMPT;
        if (!g->has_logits) continue;
        p->step = LLM_GEN_STEPPED;
        st = llm__gen_draw(g, &on, &run);
        p->len = on, p->status = st;
        p->stop = st != LLM_OK ? LLM_GEN_ERROR : g->stopped; /* NONE for the queued, once they run */
        if (st == LLM_OK) p->token = g->token;
        if (st == LLM_OK && run) q[k] = i, seqs[k] = &g->state, toks[k] = g->token, pos[k++] = g->n_tokens - 1;
    }
    /* one forward pass for every queued token: the weights read once for all k */
    st = k > 0 ? llm_forward_batch(seqs, k, gens[0]->w, toks, pos, logits, base, gens[0]->th) : LLM_OK;
    for (i = 0; i < k; i++) {
        llm_gen *g = gens[q[i]];
        llm_status sti = LLM_OK;
        if (st == LLM_OK) memcpy(g->logits, logits + (size_t)i * V, sizeof(float) * (size_t)V);
        /* the batch failed and rewound every cache to pos[i]: each token alone now, so each
           generator gets the outcome llm_gen_next would have given it */
        else sti = llm_forward(&g->state, g->w, &g->token, 1, pos[i], g->logits, 0, g->th);
        if (sti == LLM_OK) g->has_logits = 1;
        else out[q[i]].status = sti, out[q[i]].stop = LLM_GEN_ERROR;
    }
    for (i = 0; i < n; i++) /* the first failure, in the order given */
        if (out[i].status != LLM_OK) return out[i].status;
    return LLM_OK;
}

/* ---- sessions ---- */

enum { LLM__SESS_HEAD = 32, LLM__SESS_NF = 24 }; /* magic, mark, version, fingerprint, rng; then 24 int32 */
static const unsigned char llm__sess_magic[8] = {'L', 'L', 'M', 'S', 'E', 'S', 'S', '1'};
enum { LLM__SESS_BOM = 0x01020304, LLM__SESS_VERSION = 1 };

static uint64_t llm__fnv64(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Every number of the config the forward pass reads, and the vocabulary's size and kind. */
static uint64_t llm__gen_fingerprint(const llm_gen *g) {
    const llm_config *c = &g->state.config;
    float f[10];
    int32_t i[24];
    uint64_t h = 0xcbf29ce484222325ull;
    i[0] = c->d_model, i[1] = c->n_layers, i[2] = c->n_heads, i[3] = c->n_kv_heads, i[4] = llm_config_head_dim(c);
    i[5] = c->d_ff, i[6] = c->vocab, i[7] = (int32_t)c->norm, i[8] = c->norm_bias, i[9] = (int32_t)c->ffn;
    i[10] = (int32_t)c->pos, i[11] = (int32_t)c->rope_layout, i[12] = c->rotary_dim, i[13] = c->rope_orig_ctx;
    i[14] = c->tied_embeddings, i[15] = (int32_t)c->bias, i[16] = c->post_norm, i[17] = c->n_experts;
    i[18] = c->sliding_window, i[19] = c->qk_norm, i[20] = c->sandwich_norm, i[21] = c->window_pattern;
    i[22] = g->v ? g->v->n_tokens : 0, i[23] = g->v ? (int32_t)g->v->kind : 0;
    f[0] = c->norm_eps, f[1] = c->rope_theta, f[2] = c->rope_scale, f[3] = c->rope_low_freq_factor;
    f[4] = c->rope_high_freq_factor, f[5] = c->embed_scale, f[6] = c->attn_scale, f[7] = c->attn_softcap;
    f[8] = c->final_softcap, f[9] = 0;
    h = llm__fnv64(h, i, sizeof i);
    return llm__fnv64(h, f, sizeof f);
}

static size_t llm__sess_elem(llm_dtype t) { return t == LLM_F32 ? 4 : t == LLM_F16 ? 2 : 1; }

/* The session's size from its counts (64-bit; 0 past SIZE_MAX). */
static uint64_t llm__sess_size(const llm_kv_cache *kv, int last_n, int n_tokens, int kv_len, int has_logits, int vocab) {
    uint64_t row = (uint64_t)kv->head_dim * llm__sess_elem(kv->dtype), n;
    if (kv->dtype == LLM_INT8) row += 4; /* its scale */
    n = LLM__SESS_HEAD + 4 * LLM__SESS_NF + 4 * (uint64_t)last_n + 4 * (uint64_t)n_tokens;
    n += has_logits ? 4 * (uint64_t)vocab : 0;
    n += 2 * (uint64_t)kv->n_layers * (uint64_t)kv->n_kv_heads * (uint64_t)kv_len * row;
    return ((n + 7) & ~(uint64_t)7) + 8;
}

LLMDEF size_t llm_gen_session_bytes(const llm_gen *g) {
    uint64_t n;
    if (!g || !g->tokens) return 0;
    n = llm__sess_size(&g->state.kv, g->sampler.params.penalty_last_n, g->n_tokens, g->state.kv.len, g->has_logits,
                       g->state.config.vocab);
    return n > (uint64_t)SIZE_MAX ? 0 : (size_t)n;
}

/* One head's rows 0..len-1 of one layer: K or V (part 0/1), data or int8 scales. */
static void *llm__sess_rows(const llm_kv_cache *kv, int part, int scales, int l, int h) {
    uint64_t at = ((uint64_t)l * (uint64_t)kv->n_kv_heads + (uint64_t)h) * (uint64_t)kv->capacity;
    if (scales) return (part ? kv->v_scale : kv->k_scale) + at;
    return (char *)(part ? kv->v : kv->k) + at * (uint64_t)kv->head_dim * llm__sess_elem(kv->dtype);
}

/* Copies the KV rows between the cache and the session bytes at p (save: to p). */
static size_t llm__sess_kv(const llm_kv_cache *kv, int len, unsigned char *p, int save) {
    size_t at = 0, dbytes = (size_t)len * (size_t)kv->head_dim * llm__sess_elem(kv->dtype), sbytes = (size_t)len * 4;
    int l, h, part, sc;
    for (l = 0; l < kv->n_layers; l++)
        for (h = 0; h < kv->n_kv_heads; h++)
            for (part = 0; part < 2; part++)
                for (sc = 0; sc <= (kv->dtype == LLM_INT8 ? 1 : 0); sc++) {
                    size_t b = sc ? sbytes : dbytes;
                    void *rows = llm__sess_rows(kv, part, sc, l, h);
                    if (save) memcpy(p + at, rows, b);
                    else memcpy(rows, p + at, b);
                    at += b;
                }
    return at;
}

LLMDEF llm_status llm_gen_session_save(const llm_gen *g, void *out, size_t cap, size_t *n) {
    unsigned char *p = (unsigned char *)out;
    size_t need = llm_gen_session_bytes(g), at;
    uint32_t u;
    uint64_t h;
    int32_t f[LLM__SESS_NF];
    const llm_sampler *s;
    if (n) *n = need;
    if (!g || !n || need == 0 || (!out && cap > 0)) return LLM_EINVAL;
    if (cap < need) return LLM_ERANGE;
    s = &g->sampler;
    memset(p, 0, need);
    memcpy(p, llm__sess_magic, 8);
    u = LLM__SESS_BOM, memcpy(p + 8, &u, 4);
    u = LLM__SESS_VERSION, memcpy(p + 12, &u, 4);
    h = llm__gen_fingerprint(g), memcpy(p + 16, &h, 8);
    memcpy(p + 24, &s->rng, 8);
    memset(f, 0, sizeof f);
    f[0] = (int32_t)g->state.kv.dtype, f[1] = g->state.kv.n_layers, f[2] = g->state.kv.n_kv_heads;
    f[3] = g->state.kv.head_dim, f[4] = g->state.config.vocab, f[5] = g->n_tokens, f[6] = g->state.kv.len;
    f[7] = g->has_logits, f[8] = (int32_t)g->stopped, f[9] = g->n_drawn, f[10] = g->token;
    f[11] = s->params.penalty_last_n, f[12] = s->n_recent, f[13] = s->recent_at;
    f[14] = g->dec.started, f[15] = g->dec.n_held;
    f[16] = (int32_t)((uint32_t)g->dec.held[0] | (uint32_t)g->dec.held[1] << 8 | (uint32_t)g->dec.held[2] << 16 |
                      (uint32_t)g->dec.held[3] << 24);
    f[17] = g->stop.stopped, f[18] = g->stop.held_stop, f[19] = (int32_t)g->stop.n_held, f[20] = g->stop.n_stops;
    memcpy(p + LLM__SESS_HEAD, f, sizeof f);
    at = LLM__SESS_HEAD + sizeof f;
    if (s->n_recent > 0) memcpy(p + at, s->recent, 4 * (size_t)s->n_recent); /* the ring's filled slots; the rest 0 */
    at += 4 * (size_t)s->params.penalty_last_n;
    memcpy(p + at, g->tokens, 4 * (size_t)g->n_tokens), at += 4 * (size_t)g->n_tokens;
    if (g->has_logits) memcpy(p + at, g->logits, 4 * (size_t)g->state.config.vocab), at += 4 * (size_t)g->state.config.vocab;
    llm__sess_kv(&g->state.kv, g->state.kv.len, p + at, 1);
    h = llm__fnv64(0xcbf29ce484222325ull, p, need - 8);
    memcpy(p + need - 8, &h, 8);
    return LLM_OK;
}

LLMDEF llm_status llm_gen_session_load(llm_gen *g, const void *buf, size_t n, const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    const llm_sampler *s;
    const llm_kv_cache *kv;
    uint32_t u;
    uint64_t h, want;
    int32_t f[LLM__SESS_NF], t;
    size_t at, i, k;
    const char *bad = NULL;
    if (why) *why = "ok";
    if (!g || !g->tokens || (!buf && n > 0)) return LLM_EINVAL;
    s = &g->sampler, kv = &g->state.kv;
#define LLM__SESS_BAD(msg)      \
    do {                        \
        if (why) *why = (msg);  \
        return LLM_EFORMAT;     \
    } while (0)
    if (n < LLM__SESS_HEAD + sizeof f + 8) LLM__SESS_BAD("session: shorter than its header");
    if (memcmp(p, llm__sess_magic, 8) != 0) LLM__SESS_BAD("session: no LLMSESS1 magic (not a session)");
    memcpy(&u, p + 8, 4);
    if (u != LLM__SESS_BOM) LLM__SESS_BAD("session: written on a host of the other byte order");
    memcpy(&u, p + 12, 4);
    if (u != LLM__SESS_VERSION) LLM__SESS_BAD("session: an unknown version");
    memcpy(&h, p + 16, 8);
    memcpy(f, p + LLM__SESS_HEAD, sizeof f);
    if (h != llm__gen_fingerprint(g) || f[1] != kv->n_layers || f[2] != kv->n_kv_heads || f[3] != kv->head_dim ||
        f[4] != g->state.config.vocab)
        LLM__SESS_BAD("session: of another model (its config fingerprint differs)");
    if (f[0] != (int32_t)kv->dtype) LLM__SESS_BAD("session: KV cache of another dtype");
    if (f[11] != s->params.penalty_last_n) LLM__SESS_BAD("session: a sampler with another penalty window");
    if (f[20] != g->stop.n_stops) LLM__SESS_BAD("session: another number of stop strings");
    if (f[5] < 0 || f[6] < 0 || f[6] > f[5] || f[5] - f[6] > 1) LLM__SESS_BAD("session: token and KV row counts disagree");
    if (f[6] > g->state.capacity || f[5] > g->state.capacity + 1) {
        if (why) *why = "session: more positions than this generator's capacity";
        return LLM_EFULL;
    }
    if ((f[7] != 0 && f[7] != 1) || (f[7] && (f[6] != f[5] || f[6] == 0)))
        LLM__SESS_BAD("session: a bad pending-logits flag");
    if (f[8] < 0 || f[8] >= LLM_GEN_STOP_COUNT || f[9] < 0 || f[10] < -1 || f[10] >= f[4])
        LLM__SESS_BAD("session: a bad reply state (stop reason, count or last token)");
    if (f[12] < 0 || f[12] > f[11] || f[13] < 0 || (f[11] > 0 ? f[13] >= f[11] : f[13] != 0))
        LLM__SESS_BAD("session: a bad penalty window");
    if ((f[14] != 0 && f[14] != 1) || f[15] < 0 || f[15] > 3) LLM__SESS_BAD("session: a bad decoder state");
    if (f[17] < -1 || f[17] >= f[20] || f[19] < 0 ||
        (f[19] > 0 && (f[18] < 0 || f[18] >= f[20] || (size_t)f[19] >= strlen(g->stop.stops[f[18]]))))
        LLM__SESS_BAD("session: a bad stop-string state");
    want = llm__sess_size(kv, f[11], f[5], f[6], f[7], f[4]);
    if ((uint64_t)n != want) LLM__SESS_BAD(n < want ? "session: truncated" : "session: longer than its counts say");
    memcpy(&h, p + n - 8, 8);
    if (h != llm__fnv64(0xcbf29ce484222325ull, p, n - 8)) LLM__SESS_BAD("session: checksum mismatch (corrupt)");
    at = LLM__SESS_HEAD + sizeof f;
    for (i = 0, k = (size_t)f[11] + (size_t)f[5]; i < k; i++) { /* the window's and the context's ids */
        memcpy(&t, p + at + 4 * i, 4);
        if (t < 0 || t >= f[4]) bad = "session: a token id outside the vocabulary";
    }
    if (bad) LLM__SESS_BAD(bad);
#undef LLM__SESS_BAD
    /* every check passed: now g changes */
    if (f[11] > 0) memcpy(g->sampler.recent, p + at, 4 * (size_t)f[11]);
    at += 4 * (size_t)f[11];
    memcpy(g->tokens, p + at, 4 * (size_t)f[5]), at += 4 * (size_t)f[5];
    if (f[7]) memcpy(g->logits, p + at, 4 * (size_t)f[4]), at += 4 * (size_t)f[4];
    g->state.kv.len = f[6];
    llm__sess_kv(&g->state.kv, f[6], (unsigned char *)(uintptr_t)(p + at), 0);
    memcpy(&g->sampler.rng, p + 24, 8);
    g->sampler.n_recent = f[12], g->sampler.recent_at = f[13];
    g->n_tokens = f[5], g->has_logits = f[7], g->stopped = (llm_gen_stop)f[8], g->n_drawn = f[9], g->token = f[10];
    g->dec.started = f[14], g->dec.n_held = f[15];
    for (i = 0; i < 4; i++) g->dec.held[i] = (unsigned char)((uint32_t)f[16] >> (8 * i));
    g->stop.stopped = f[17], g->stop.held_stop = f[19] > 0 ? f[18] : 0, g->stop.n_held = (size_t)f[19];
    g->n_prefilled = 0;
    return LLM_OK;
}

#ifndef LLM_NO_STDIO
LLMDEF llm_status llm_gen_session_save_file(const llm_gen *g, const char *path) {
    size_t need = llm_gen_session_bytes(g), n = 0;
    void *mem;
    FILE *f;
    llm_status st;
    if (!path || need == 0) return LLM_EINVAL;
    if (!(mem = LLM_MALLOC(need))) return LLM_ENOMEM;
    st = llm_gen_session_save(g, mem, need, &n);
    if (st == LLM_OK) {
        if (!(f = fopen(path, "wb"))) st = LLM_EIO;
        else {
            if (fwrite(mem, 1, n, f) != n) st = LLM_EIO;
            if (fclose(f) != 0) st = LLM_EIO;
        }
    }
    LLM_FREE(mem);
    return st;
}

LLMDEF llm_status llm_gen_session_load_file(llm_gen *g, const char *path, const char **why) {
    FILE *f;
    long sz;
    void *mem;
    llm_status st;
    if (why) *why = "ok";
    if (!g || !path) return LLM_EINVAL;
    if (!(f = fopen(path, "rb"))) return why ? *why = "session: cannot open the file", LLM_EIO : LLM_EIO;
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        if (why) *why = "session: cannot seek in the file";
        return LLM_EIO;
    }
    if (!(mem = LLM_MALLOC((size_t)sz + 1))) {
        fclose(f);
        return LLM_ENOMEM;
    }
    if (fread(mem, 1, (size_t)sz, f) != (size_t)sz) {
        if (why) *why = "session: cannot read the file";
        st = LLM_EIO;
    } else {
        st = llm_gen_session_load(g, mem, (size_t)sz, why);
    }
    fclose(f);
    LLM_FREE(mem);
    return st;
}
#endif

/* ======================================================================================
   >>files implementation
   ====================================================================================== */

/* Little-endian integers decoded byte by byte, so the header reads the same on any host. */
static uint32_t llm__le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static int32_t llm__le32s(const unsigned char *p) {
    uint32_t u = llm__le32(p);
    return u < 0x80000000u ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}
static float llm__le32f(const unsigned char *p) {
    uint32_t u = llm__le32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* The weights are used in place, as the host's floats: only a little-endian host can. */
static int llm__little_endian(void) {
    uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

#define LLM__FFAIL(why_ptr, text, code)                                                                \
    do {                                                                                             \
        if (why_ptr) *(why_ptr) = (text);                                                            \
        return (code);                                                                               \
    } while (0)

/* Where a reader that fills an object starts: no reason yet, no object refused (`missing`
   says which), the object emptied so no error leaves it half-filled. */
static llm_status llm__reader_begin(void *obj, size_t size, const char *missing, const char **why) {
    if (why) *why = "";
    if (!obj) LLM__FFAIL(why, missing, LLM_EINVAL);
    memset(obj, 0, size);
    return LLM_OK;
}

/* A model loader's last step, once everything is checked: the model holds what it read. */
static llm_status llm__model_set(llm_model *m, const llm_config *c, llm_weights *w, llm_layer_weights *layers,
                                 int version) {
    w->layers = layers;
    memset(m, 0, sizeof *m);
    m->config = *c;
    m->weights = *w;
    m->file_version = version;
    return LLM_OK;
}

#define LLM__LLAMA2C_MAGIC 0x616b3432u /* "ak42" */

/* The header: which version, the config, the v2 group size, where the tensors start. */
static llm_status llm__llama2c_header(llm_config *c, int *version, int *group_size, uint64_t *data_off,
                                      const unsigned char *p, size_t len, const char **why) {
    int32_t h[7];
    int i, shared, ver;
    uint64_t off;
    if (!p) LLM__FFAIL(why, "no buffer", LLM_EINVAL);
    if (len >= 8 && llm__le32(p) == LLM__LLAMA2C_MAGIC) {
        if (len < 256) LLM__FFAIL(why, "file shorter than the 256-byte header", LLM_EFORMAT);
        ver = llm__le32s(p + 4);
        if (ver != 1 && ver != 2) LLM__FFAIL(why, "unknown llama2.c version (only 1 and 2 exist)", LLM_EFORMAT);
        for (i = 0; i < 7; i++) h[i] = llm__le32s(p + 8 + 4 * i);
        if (p[36] > 1) LLM__FFAIL(why, "shared_classifier flag is not 0 or 1", LLM_EFORMAT);
        shared = p[36];
        *group_size = ver == 2 ? (int)llm__le32s(p + 37) : 0;
        if (h[5] <= 0) LLM__FFAIL(why, "vocab_size must be positive in version 1 and 2", LLM_EFORMAT);
        off = 256;
    } else {
        if (len < 28) LLM__FFAIL(why, "file shorter than the 28-byte legacy header", LLM_EFORMAT);
        ver = 0;
        for (i = 0; i < 7; i++) h[i] = llm__le32s(p + 4 * i);
        shared = h[5] > 0;
        if (h[5] == INT32_MIN) LLM__FFAIL(why, "vocab_size out of range", LLM_EFORMAT);
        if (h[5] < 0) h[5] = -h[5];
        *group_size = 0;
        off = 28;
    }
    if (h[0] <= 0 || h[1] <= 0 || h[2] <= 0 || h[3] <= 0 || h[4] <= 0 || h[5] <= 0 || h[6] <= 0)
        LLM__FFAIL(why, "a header dimension is zero or negative", LLM_EFORMAT);
    if (h[0] > (1 << 20) || h[1] > (1 << 22) || h[2] > 4096 || h[3] > 65536 || h[5] > (1 << 24) || h[6] > (1 << 24))
        LLM__FFAIL(why, "a header dimension is implausibly large", LLM_EFORMAT);
    if (h[0] % h[3] != 0) LLM__FFAIL(why, "n_heads does not divide dim", LLM_EFORMAT);
    if (h[4] > h[3] || h[3] % h[4] != 0) LLM__FFAIL(why, "n_kv_heads does not divide n_heads", LLM_EFORMAT);
    if ((h[0] / h[3]) % 2 != 0) LLM__FFAIL(why, "head size is odd: RoPE rotates pairs", LLM_EFORMAT);
    if (ver == 2 && (*group_size <= 0 || h[0] % *group_size != 0 || h[1] % *group_size != 0))
        LLM__FFAIL(why, "group_size must be positive and divide dim and hidden_dim", LLM_EFORMAT);
    memset(c, 0, sizeof *c);
    c->name = "llama2.c";
    c->d_model = h[0], c->d_ff = h[1], c->n_layers = h[2], c->n_heads = h[3], c->n_kv_heads = h[4];
    c->vocab = h[5], c->max_seq_len = h[6];
    c->head_dim = h[0] / h[3];
    c->norm = LLM_NORM_RMS, c->norm_eps = 1e-5f, c->ffn = LLM_FFN_SWIGLU, c->pos = LLM_POS_ROPE;
    c->rope_theta = 10000.0f, c->rope_layout = LLM_ROPE_INTERLEAVED; /* llama2.c rotates (2i, 2i+1) */
    c->tied_embeddings = shared, c->bias = LLM_BIAS_NONE;
    *version = ver;
    *data_off = off;
    return LLM_OK;
}

LLMDEF llm_status llm_llama2c_read_config(llm_config *c, int *version, const void *buf, size_t len,
                                          const char **why) {
    int v, gs;
    uint64_t off;
    llm_config tmp;
    if (why) *why = "";
    if (!c) LLM__FFAIL(why, "no config to fill", LLM_EINVAL);
    LLM__MTRY(llm__llama2c_header(&tmp, &v, &gs, &off, (const unsigned char *)buf, len, why));
    *c = tmp;
    if (version) *version = v;
    return LLM_OK;
}

/* Walks the tensors in file order. Each take() first checks that the tensor fits in what
   is left of the buffer, then hands out a pointer; nothing is dereferenced here. */
typedef struct llm__reader {
    const unsigned char *base;
    uint64_t off, len;
    int gs;        /* v2 group size */
    int bad;       /* 1 once anything did not fit */
    int misaligned;
    unsigned char *swap; /* big-endian host, own copy: byte-swap every float taken, in place */
} llm__reader;

static const float *llm__take_f32(llm__reader *r, uint64_t n) {
    const unsigned char *p;
    if (r->bad || n > (r->len - r->off) / 4) {
        r->bad = 1;
        return NULL;
    }
    p = r->base + r->off;
    if (((uintptr_t)p & 3u) != 0) r->misaligned = 1;
    if (r->swap) {
        unsigned char *q = r->swap + r->off, t;
        uint64_t i;
        for (i = 0; i < n; i++, q += 4) t = q[0], q[0] = q[3], q[3] = t, t = q[1], q[1] = q[2], q[2] = t;
    }
    r->off += n * 4;
    return (const float *)(const void *)p;
}
static void llm__skip(llm__reader *r, uint64_t bytes) {
    if (r->bad || bytes > r->len - r->off) r->bad = 1;
    else r->off += bytes;
}
/* A matrix of n values: fp32, or (v2) int8 values then fp32 scales, one per group. */
static llm_weight llm__take_w(llm__reader *r, uint64_t n, int int8) {
    llm_weight w;
    memset(&w, 0, sizeof w);
    if (!int8) {
        w.type = LLM_F32;
        w.data = llm__take_f32(r, n);
        return w;
    }
    w.type = LLM_INT8;
    w.group_size = r->gs;
    if (r->bad || n > r->len - r->off) {
        r->bad = 1;
        return w;
    }
    w.data = r->base + r->off;
    r->off += n;
    w.scale = llm__take_f32(r, n / (uint64_t)r->gs);
    return w;
}

/* Walks the file once to validate every size; then, on a big-endian host and only for a
   buffer we own (own != NULL), walks it again byte-swapping the floats in place. */
static llm_status llm__llama2c_load(llm_model *m, const void *buf, size_t len, llm_layer_weights *layers,
                                    int n_layers_cap, const char **why, unsigned char *own) {
    llm_config c;
    int ver, gs, L, l, q8;
    uint64_t off, d, hd, kvd, ff, V;
    llm__reader r;
    llm_weights w;
    const float *an, *fn;
    if (why) *why = "";
    if (!m || !layers) LLM__FFAIL(why, "no model or layer table", LLM_EINVAL);
    LLM__MTRY(llm__llama2c_header(&c, &ver, &gs, &off, (const unsigned char *)buf, len, why));
    if (c.n_layers > n_layers_cap) LLM__FFAIL(why, "layer table too small for n_layers", LLM_EINVAL);
    L = c.n_layers, d = (uint64_t)c.d_model, hd = (uint64_t)c.head_dim, ff = (uint64_t)c.d_ff, V = (uint64_t)c.vocab;
    kvd = (uint64_t)c.n_kv_heads * hd;
    q8 = ver == 2;
    r.base = (const unsigned char *)buf, r.off = off, r.len = len, r.gs = gs, r.bad = 0, r.misaligned = 0;
    r.swap = NULL;
again:
    memset(&w, 0, sizeof w);
    memset(layers, 0, (size_t)L * sizeof *layers);
    /* layer l's slice of an [L][rows][cols] tensor */
#define LLM__SLICE_F(ptr, l, n) ((ptr) ? (ptr) + (uint64_t)(l) * (n) : NULL)
    if (ver == 0) {
        const float *wq, *wk, *wv, *wo, *w1, *w2, *w3;
        w.tok_embed = llm__take_w(&r, V * d, 0);
        an = llm__take_f32(&r, (uint64_t)L * d);
        wq = llm__take_f32(&r, (uint64_t)L * d * d);
        wk = llm__take_f32(&r, (uint64_t)L * kvd * d);
        wv = llm__take_f32(&r, (uint64_t)L * kvd * d);
        wo = llm__take_f32(&r, (uint64_t)L * d * d);
        fn = llm__take_f32(&r, (uint64_t)L * d);
        w1 = llm__take_f32(&r, (uint64_t)L * ff * d);
        w2 = llm__take_f32(&r, (uint64_t)L * d * ff);
        w3 = llm__take_f32(&r, (uint64_t)L * ff * d);
        w.out_norm = llm__take_f32(&r, d);
        llm__skip(&r, 2 * (uint64_t)c.max_seq_len * (hd / 2) * 4); /* unused RoPE tables */
        for (l = 0; l < L; l++) {
            llm_layer_weights *y = &layers[l];
            y->wq.type = y->wk.type = y->wv.type = y->wo.type = LLM_F32;
            y->w1.type = y->w2.type = y->w3.type = LLM_F32;
            y->wq.data = LLM__SLICE_F(wq, l, d * d), y->wk.data = LLM__SLICE_F(wk, l, kvd * d);
            y->wv.data = LLM__SLICE_F(wv, l, kvd * d), y->wo.data = LLM__SLICE_F(wo, l, d * d);
            y->w1.data = LLM__SLICE_F(w1, l, ff * d), y->w2.data = LLM__SLICE_F(w2, l, d * ff);
            y->w3.data = LLM__SLICE_F(w3, l, ff * d);
        }
    } else {
        an = llm__take_f32(&r, (uint64_t)L * d);
        fn = llm__take_f32(&r, (uint64_t)L * d);
        w.out_norm = llm__take_f32(&r, d);
        w.tok_embed = llm__take_w(&r, V * d, q8);
        /* v1: each tensor for all layers; v2: per layer, values then scales (runq.c) */
#define LLM__TAKE_ALL(field, n)                                                                        \
    do {                                                                                             \
        if (q8) {                                                                                    \
            for (l = 0; l < L; l++) layers[l].field = llm__take_w(&r, (n), 1);                       \
        } else {                                                                                     \
            const float *all_ = llm__take_f32(&r, (uint64_t)L * (n));                                \
            for (l = 0; l < L; l++) {                                                                \
                layers[l].field.type = LLM_F32;                                                      \
                layers[l].field.data = LLM__SLICE_F(all_, l, (n));                                   \
            }                                                                                        \
        }                                                                                            \
    } while (0)
        LLM__TAKE_ALL(wq, d * d);
        LLM__TAKE_ALL(wk, kvd * d);
        LLM__TAKE_ALL(wv, kvd * d);
        LLM__TAKE_ALL(wo, d * d);
        LLM__TAKE_ALL(w1, ff * d);
        LLM__TAKE_ALL(w2, d * ff);
        LLM__TAKE_ALL(w3, ff * d);
#undef LLM__TAKE_ALL
    }
    w.lm_head = c.tied_embeddings ? w.tok_embed : llm__take_w(&r, V * d, q8);
    if (r.bad) LLM__FFAIL(why, "file ends before the tensors its header describes", LLM_EFORMAT);
    if (r.off != r.len) LLM__FFAIL(why, "file is longer than its header describes", LLM_EFORMAT);
    if (r.misaligned) LLM__FFAIL(why, "float data not 4-byte aligned: load the file into aligned memory", LLM_EINVAL);
    if (!llm__little_endian() && !r.swap) {
        if (!own) LLM__FFAIL(why, "big-endian host: the weights are little-endian (llm_llama2c_load_file converts)",
                             LLM_EUNSUPPORTED);
        r.off = off, r.swap = own; /* every size checked: now convert, same walk */
        goto again;
    }
    for (l = 0; l < L; l++) {
        layers[l].attn_norm = an + (uint64_t)l * d;
        layers[l].ffn_norm = fn + (uint64_t)l * d;
    }
#undef LLM__SLICE_F
    return llm__model_set(m, &c, &w, layers, ver);
}

LLMDEF llm_status llm_llama2c_load(llm_model *m, const void *buf, size_t len, llm_layer_weights *layers,
                                   int n_layers_cap, const char **why) {
    return llm__llama2c_load(m, buf, len, layers, n_layers_cap, why, NULL);
}

/* ---- the llama2.c tokenizer --------------------------------------------------------- */

/* Compare piece `id` with the byte string a (la bytes) followed by b (lb bytes), as
   strcmp would compare the concatenation: lets the merge loop look up a pair without
   building it in a buffer. */
static int llm__piece_cmp(const llm_tokenizer *t, int id, const char *a, int la, const char *b, int lb) {
    const unsigned char *s = (const unsigned char *)t->bytes + t->offset[id];
    int ls = (int)(t->offset[id + 1] - t->offset[id]) - 1, i;
    for (i = 0; i < ls && i < la + lb; i++) {
        unsigned char k = (unsigned char)(i < la ? a[i] : b[i - la]);
        if (s[i] != k) return s[i] < k ? -1 : 1;
    }
    return ls < la + lb ? -1 : (ls > la + lb ? 1 : 0);
}

/* The lowest id whose piece equals a ++ b, or -1 (binary search over t->sorted). */
static int llm__lookup2(const llm_tokenizer *t, const char *a, int la, const char *b, int lb) {
    int lo = 0, hi = t->vocab; /* first sorted index whose piece >= key */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (llm__piece_cmp(t, t->sorted[mid], a, la, b, lb) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo < t->vocab && llm__piece_cmp(t, t->sorted[lo], a, la, b, lb) == 0) return t->sorted[lo];
    return -1;
}

/* Sort order of two ids: by piece bytes, then by id (so duplicates find the lowest). */
static int llm__id_less(const llm_tokenizer *t, int x, int y) {
    const char *px = t->bytes + t->offset[x];
    int c = llm__piece_cmp(t, y, px, (int)(t->offset[x + 1] - t->offset[x]) - 1, "", 0);
    return c > 0 || (c == 0 && x < y);
}

/* Heapsort: in place, O(V log V), no allocation. */
static void llm__tok_sift(const llm_tokenizer *t, int32_t *a, int root, int n) {
    int child;
    for (; (child = 2 * root + 1) < n; root = child) {
        int32_t tmp;
        if (child + 1 < n && llm__id_less(t, a[child], a[child + 1])) child++;
        if (!llm__id_less(t, a[root], a[child])) return;
        tmp = a[root], a[root] = a[child], a[child] = tmp;
    }
}
static void llm__sort_ids(const llm_tokenizer *t, int32_t *a, int n) {
    int i;
    for (i = n / 2 - 1; i >= 0; i--) llm__tok_sift(t, a, i, n);
    for (i = n - 1; i > 0; i--) {
        int32_t tmp = a[0];
        a[0] = a[i], a[i] = tmp;
        llm__tok_sift(t, a, 0, i);
    }
}

static uint64_t llm__tok_layout(int vocab, size_t len, uint64_t *off_sc, uint64_t *off_of, uint64_t *off_so,
                                uint64_t *off_by) {
    uint64_t V = (uint64_t)vocab, o = 0;
    *off_sc = o, o += LLM__MALIGN(V * 4);
    *off_of = o, o += LLM__MALIGN((V + 1) * 4);
    *off_so = o, o += LLM__MALIGN(V * 4);
    *off_by = o, o += LLM__MALIGN((uint64_t)len + V + 1); /* every piece's bytes + a NUL each */
    return o + 64;
}

/* Pieces are addressed by uint32_t offsets: every piece's bytes plus a NUL each must fit. */
static int llm__tok_too_big(int vocab, size_t len) {
    return (uint64_t)len + (uint64_t)vocab + 1 > (uint64_t)UINT32_MAX;
}

LLMDEF size_t llm_tokenizer_bytes(int vocab, size_t len) {
    uint64_t a, b, c, d, n;
    if (vocab <= 0 || vocab > (1 << 24) || llm__tok_too_big(vocab, len)) return 0;
    n = llm__tok_layout(vocab, len, &a, &b, &c, &d);
    return n > (uint64_t)SIZE_MAX ? 0 : (size_t)n;
}

static llm_status llm__tokenizer_init(llm_tokenizer *t, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                      int vocab, const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t osc, oof, oso, oby, off = 4, pos = 0;
    size_t need;
    char *base;
    int i;
    if (why) *why = "";
    if (!t || !mem || !buf) LLM__FFAIL(why, "no tokenizer, memory or buffer", LLM_EINVAL);
    if (vocab > 0 && llm__tok_too_big(vocab, len))
        LLM__FFAIL(why, "tokenizer file of 4 GiB or more (pieces use 32-bit offsets)", LLM_EFORMAT);
    need = llm_tokenizer_bytes(vocab, len);
    if (need == 0 || mem_bytes < need) LLM__FFAIL(why, "vocab out of range or memory too small", LLM_EINVAL);
    if (vocab < 3) LLM__FFAIL(why, "vocabulary needs at least <unk>, <s>, </s>", LLM_EINVAL);
    if (len < 4) LLM__FFAIL(why, "tokenizer file shorter than its 4-byte header", LLM_EFORMAT);
    llm__tok_layout(vocab, len, &osc, &oof, &oso, &oby);
    base = (char *)llm__align64(mem);
    memset(t, 0, sizeof *t);
    t->vocab = vocab;
    t->max_token_length = llm__le32s(p);
    if (t->max_token_length < 0) LLM__FFAIL(why, "negative max_token_length", LLM_EFORMAT);
    t->scores = (float *)(void *)(base + osc);
    t->offset = (uint32_t *)(void *)(base + oof);
    t->sorted = (int32_t *)(void *)(base + oso);
    t->bytes = base + oby;
    /* per token: float score, int32 length, the bytes; every field checked before reading */
    for (i = 0; i < vocab; i++) {
        int32_t n;
        if (len - off < 8) LLM__FFAIL(why, "tokenizer file ends inside a token's score or length", LLM_EFORMAT);
        t->scores[i] = llm__le32f(p + off);
        n = llm__le32s(p + off + 4);
        off += 8;
        if (n < 0 || (uint64_t)n > len - off) LLM__FFAIL(why, "token length negative or past the end", LLM_EFORMAT);
        t->offset[i] = (uint32_t)pos;
        memcpy(t->bytes + pos, p + off, (size_t)n);
        t->bytes[pos + (uint64_t)n] = '\0';
        pos += (uint64_t)n + 1;
        off += (uint64_t)n;
    }
    t->offset[vocab] = (uint32_t)pos;
    if (off != len) LLM__FFAIL(why, "tokenizer file longer than vocab tokens (wrong vocab size?)", LLM_EFORMAT);
    for (i = 0; i < vocab; i++) t->sorted[i] = i;
    llm__sort_ids(t, t->sorted, vocab);
    /* byte fallback: where <0x00>..<0xFF> are, and what they decode to */
    for (i = 0; i < 256; i++) {
        static const char hex[] = "0123456789ABCDEF";
        char name[6];
        name[0] = '<', name[1] = '0', name[2] = 'x', name[3] = hex[i >> 4], name[4] = hex[i & 15], name[5] = '>';
        t->byte_id[i] = llm__lookup2(t, name, 6, "", 0);
        t->raw[i] = (unsigned char)i;
    }
    return LLM_OK;
}

LLMDEF llm_status llm_tokenizer_init(llm_tokenizer *t, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                     int vocab, const char **why) {
    llm_status st = llm__tokenizer_init(t, mem, mem_bytes, buf, len, vocab, why);
    if (st != LLM_OK && t) memset(t, 0, sizeof *t); /* an error leaves it empty, never half-filled */
    return st;
}

LLMDEF llm_status llm_tokenizer_create(llm_tokenizer *t, const void *buf, size_t len, int vocab, const char **why) {
    size_t need = llm_tokenizer_bytes(vocab, len);
    void *mem;
    llm_status st;
    if (why) *why = "";
    st = llm__create_mem(t, sizeof *t, need, &mem);
    if (st != LLM_OK) LLM__FFAIL(why, st == LLM_ENOMEM ? "out of memory" : "no tokenizer or vocab out of range", st);
    return llm__created(t, sizeof *t, &t->owned, mem, llm_tokenizer_init(t, mem, need, buf, len, vocab, why));
}

LLMDEF void llm_tokenizer_free(llm_tokenizer *t) {
    if (t) llm__destroy(t, sizeof *t, t->owned);
}

static const char *llm__piece(const llm_tokenizer *t, int id, int *len) {
    *len = (int)(t->offset[id + 1] - t->offset[id]) - 1;
    return t->bytes + t->offset[id];
}

/* The token of a raw byte: its <0xNN> piece; else id byte + 3 as run.c assumes; and
   <unk> (0) in a vocabulary too small for that, so every id stays in range. */
static int llm__byte_token(const llm_tokenizer *t, int b) {
    if (t->byte_id[b] >= 0) return t->byte_id[b];
    return b + 3 < t->vocab ? b + 3 : 0;
}

/* The tokens before any merge: [BOS] [dummy prefix] one per code point (or its bytes). */
static llm_status llm__tok_start(const llm_tokenizer *t, const char *text, int bos, int *ids, int cap, int *n_out) {
    const char *c;
    int n = 0, i;
#define LLM__PUSH(id)                                                                                   \
    do {                                                                                               \
        if (n >= cap) return LLM_ERANGE;                                                               \
        ids[n++] = (id);                                                                               \
    } while (0)
    if (bos) LLM__PUSH(1);
    /* SentencePiece's dummy prefix: the first word looks like every other word (" Once") */
    if (text[0] != '\0') {
        int sp = llm__lookup2(t, " ", 1, "", 0);
        LLM__PUSH(sp >= 0 ? sp : llm__byte_token(t, ' '));
    }
    /* one token per UTF-8 code point (a lead byte and up to 3 continuation bytes 10xxxxxx);
       a code point with no piece falls back to one <0xNN> token per byte */
    for (c = text; *c;) {
        int k = 1, id;
        while (k < 4 && ((unsigned char)c[k] & 0xC0) == 0x80) k++;
        id = llm__lookup2(t, c, k, "", 0);
        if (id >= 0) {
            LLM__PUSH(id);
        } else {
            for (i = 0; i < k; i++) LLM__PUSH(llm__byte_token(t, (unsigned char)c[i]));
        }
        c += k;
    }
#undef LLM__PUSH
    *n_out = n;
    return LLM_OK;
}

/* The merges. run.c rescans every adjacent pair for the best one and shifts the array
   after each merge: O(n^2) in the text's length (minutes for a megabyte). The same merges
   in O(n log n): the tokens form a linked list over their starting slots (a merge keeps
   the left slot and unlinks the right), and a heap holds each slot whose pair (the slot
   and the next one) is a piece scoring above run.c's floor of -1e10, best score first,
   then the leftmost slot, which is exactly run.c's choice (strictly better score wins, so
   ties go to the leftmost pair). A merge changes only two pairs: its own and its left
   neighbour's. Scratch: five int32 arrays of n, no allocation. */
typedef struct llm__bpe {
    const llm_tokenizer *t;
    int *ids;                                 /* [n] the token in each slot */
    int32_t *next, *prev, *pair, *heap, *hpos; /* [n] each; pair: merged id or -1; hpos: -1 = not in heap */
    int n_heap;
} llm__bpe;

static int llm__bpe_before(const llm__bpe *b, int x, int y) { /* heap order */
    float sx = b->t->scores[b->pair[x]], sy = b->t->scores[b->pair[y]];
    return sx > sy || (sx == sy && x < y);
}
static void llm__bpe_put(llm__bpe *b, int i, int slot) {
    b->heap[i] = slot;
    b->hpos[slot] = i;
}
static void llm__bpe_sift(llm__bpe *b, int i) { /* up, then down, to where heap[i] belongs */
    int slot = b->heap[i], c;
    while (i > 0 && llm__bpe_before(b, slot, b->heap[(i - 1) / 2])) {
        llm__bpe_put(b, i, b->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    while ((c = 2 * i + 1) < b->n_heap) {
        if (c + 1 < b->n_heap && llm__bpe_before(b, b->heap[c + 1], b->heap[c])) c++;
        if (!llm__bpe_before(b, b->heap[c], slot)) break;
        llm__bpe_put(b, i, b->heap[c]);
        i = c;
    }
    llm__bpe_put(b, i, slot);
}
static void llm__bpe_remove(llm__bpe *b, int slot) {
    int i = b->hpos[slot], last;
    if (i < 0) return;
    b->hpos[slot] = -1;
    last = b->heap[--b->n_heap];
    if (i < b->n_heap) {
        llm__bpe_put(b, i, last);
        llm__bpe_sift(b, i);
    }
}
/* The pair starting at slot changed: look it up again, and move the slot in the heap. */
static void llm__bpe_update(llm__bpe *b, int slot) {
    int id = -1, r = b->next[slot];
    if (r >= 0) {
        int la, lb;
        const char *pa = llm__piece(b->t, b->ids[slot], &la), *pb = llm__piece(b->t, b->ids[r], &lb);
        id = llm__lookup2(b->t, pa, la, pb, lb);
        if (id >= 0 && !(b->t->scores[id] > -1e10f)) id = -1; /* run.c never picks it (NaN neither) */
    }
    if (id < 0) {
        llm__bpe_remove(b, slot);
        b->pair[slot] = -1;
        return;
    }
    b->pair[slot] = id;
    if (b->hpos[slot] < 0) llm__bpe_put(b, b->n_heap++, slot);
    llm__bpe_sift(b, b->hpos[slot]);
}

/* Bytes of scratch for the merges of n tokens (five int32 per token, 64 for alignment). */
static uint64_t llm__bpe_bytes(int n) { return (uint64_t)(n > 0 ? n : 0) * 5 * sizeof(int32_t) + 64; }

/* Merges ids[0..n-1] in place; returns the new count. scratch: llm__bpe_bytes(n) bytes. */
static int llm__bpe_merge(const llm_tokenizer *t, int *ids, int n, void *scratch) {
    llm__bpe b;
    int i, w;
    int32_t *base = (int32_t *)llm__align64(scratch);
    b.t = t;
    b.ids = ids;
    b.next = base, b.prev = base + n, b.pair = base + 2 * (size_t)n;
    b.heap = base + 3 * (size_t)n, b.hpos = base + 4 * (size_t)n;
    b.n_heap = 0;
    for (i = 0; i < n; i++) {
        b.next[i] = i + 1 < n ? i + 1 : -1;
        b.prev[i] = i - 1;
        b.hpos[i] = -1;
    }
    for (i = 0; i < n; i++) llm__bpe_update(&b, i);
    while (b.n_heap > 0) { /* the best pair: slot l and the next, r */
        int l = b.heap[0], r = b.next[l];
        ids[l] = b.pair[l];
        llm__bpe_remove(&b, r);
        b.next[l] = b.next[r];
        if (b.next[r] >= 0) b.prev[b.next[r]] = l;
        llm__bpe_update(&b, l);
        if (b.prev[l] >= 0) llm__bpe_update(&b, b.prev[l]);
    }
    /* the surviving slots, in order, to the front (slot 0 always survives) */
    for (i = 0, w = 0; i >= 0; i = b.next[i]) ids[w++] = ids[i];
    return w;
}

static llm_status llm__tok_finish(int eos, int *ids, int cap, int n, int *n_ids) {
    if (eos) {
        if (n >= cap) return LLM_ERANGE;
        ids[n++] = 2;
    }
    *n_ids = n;
    return LLM_OK;
}

LLMDEF size_t llm_tokenize_scratch_bytes(int max_tokens) {
    uint64_t n = llm__bpe_bytes(max_tokens);
    return max_tokens < 0 || n > (uint64_t)SIZE_MAX ? 0 : (size_t)n;
}

/* Both entry points: scratch too small (or NULL) for this text's tokens is LLM_EINVAL,
   unless may_alloc, when the merges take theirs from LLM_MALLOC for the call. */
static llm_status llm__tokenize(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                                int *n_ids, void *scratch, size_t scratch_bytes, int may_alloc) {
    int n = 0;
    llm_status st;
    if (n_ids) *n_ids = 0;
    if (!t || !t->bytes || !text || !ids || !n_ids || cap < 0) return LLM_EINVAL;
    st = llm__tok_start(t, text, bos, ids, cap, &n);
    if (st != LLM_OK) return st;
    if (n >= 2) {
        uint64_t need = llm__bpe_bytes(n);
        void *mem = scratch;
        if (!scratch || (uint64_t)scratch_bytes < need) {
            if (!may_alloc) return LLM_EINVAL;
            mem = need <= (uint64_t)SIZE_MAX ? LLM_MALLOC((size_t)need) : NULL;
            if (!mem) return LLM_ENOMEM;
        }
        n = llm__bpe_merge(t, ids, n, mem);
        if (mem != scratch) LLM_FREE(mem);
    }
    return llm__tok_finish(eos, ids, cap, n, n_ids);
}

LLMDEF llm_status llm_tokenize_scratch(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                                       int *n_ids, void *scratch, size_t scratch_bytes) {
    return llm__tokenize(t, text, bos, eos, ids, cap, n_ids, scratch, scratch_bytes, 0);
}

/* Up to this many tokens llm_tokenize's merge scratch is on the stack (2.6 KB). */
#define LLM__TOK_STACK 128

LLMDEF llm_status llm_tokenize(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                               int *n_ids) {
    int32_t stack[(LLM__TOK_STACK * 5 * sizeof(int32_t) + 64) / sizeof(int32_t)];
    return llm__tokenize(t, text, bos, eos, ids, cap, n_ids, stack, sizeof stack, 1);
}

static int llm__hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
}

LLMDEF const char *llm_token_piece(const llm_tokenizer *t, int prev, int token, int *len) {
    const char *s;
    int n, h0, h1;
    if (len) *len = 0;
    if (!t || !t->bytes || !len || token < 0 || token >= t->vocab) return NULL;
    s = llm__piece(t, token, &n);
    /* after BOS, the dummy-prefix space is not part of the text */
    if (prev == 1 && n > 0 && s[0] == ' ') s++, n--;
    /* <0xNN>: a raw byte (run.c reads it with sscanf "<0x%02hhX>": one or two hex digits) */
    if (n >= 4 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && (h0 = llm__hexval(s[3])) >= 0) {
        h1 = n > 4 ? llm__hexval(s[4]) : -1;
        *len = 1;
        return (const char *)t->raw + (h1 >= 0 ? h0 * 16 + h1 : h0);
    }
    *len = n;
    return s;
}

LLMDEF int llm_piece_printable(const char *piece, int len) {
    unsigned char b;
    if (!piece || len <= 0 || piece[0] == '\0') return 0;
    if (len > 1) return 1;
    b = (unsigned char)piece[0];
    return (b >= 0x20 && b <= 0x7e) || (b >= 0x09 && b <= 0x0d); /* isprint || isspace, C locale */
}

LLMDEF llm_status llm_detokenize(const llm_tokenizer *t, int prev, const int *ids, int n, char *out, size_t cap,
                                 size_t *out_len) {
    size_t used = 0;
    int i, len;
    if (out_len) *out_len = 0;
    if (!t || !t->bytes || !ids || n < 0 || !out || cap == 0) return LLM_EINVAL;
    for (i = 0; i < n; i++) {
        const char *s;
        if (ids[i] != 1 && ids[i] != 2) {
            s = llm_token_piece(t, prev, ids[i], &len);
            if (!s) return LLM_EINVAL;
            if ((size_t)len >= cap - used) return LLM_ERANGE;
            memcpy(out + used, s, (size_t)len);
            used += (size_t)len;
        }
        prev = ids[i];
    }
    out[used] = '\0';
    if (out_len) *out_len = used;
    return LLM_OK;
}

/* ---- GGUF ------------------------------------------------------------------------------ */

/* ggml's tensor types by id: name, values per block and bytes per block (ggml-common.h's
   block structs: Q4_0 is an fp16 scale + 32 4-bit values = 18 bytes, Q4_K a 256-value
   super-block of 144 bytes...). Knowing every type's size lets the reader check any file;
   which of them a model can run is the loader's business. Ids 4, 5 and 31-33, 36-38 were
   removed from ggml and are unknown here. */
typedef struct llm__ggml_type {
    const char *name;
    uint32_t block, bytes;
} llm__ggml_type;
static const llm__ggml_type llm__ggml_types[40] = {
    {"f32", 1, 4},        {"f16", 1, 2},       {"q4_0", 32, 18},   {"q4_1", 32, 20},     {NULL, 0, 0},
    {NULL, 0, 0},         {"q5_0", 32, 22},    {"q5_1", 32, 24},   {"q8_0", 32, 34},     {"q8_1", 32, 36},
    {"q2_k", 256, 84},    {"q3_k", 256, 110},  {"q4_k", 256, 144}, {"q5_k", 256, 176},   {"q6_k", 256, 210},
    {"q8_k", 256, 292},   {"iq2_xxs", 256, 66}, {"iq2_xs", 256, 74}, {"iq3_xxs", 256, 98}, {"iq1_s", 256, 50},
    {"iq4_nl", 32, 18},   {"iq3_s", 256, 110}, {"iq2_s", 256, 82}, {"iq4_xs", 256, 136}, {"i8", 1, 1},
    {"i16", 1, 2},        {"i32", 1, 4},       {"i64", 1, 8},      {"f64", 1, 8},        {"iq1_m", 256, 56},
    {"bf16", 1, 2},       {NULL, 0, 0},        {NULL, 0, 0},       {NULL, 0, 0},         {"tq1_0", 256, 54},
    {"tq2_0", 256, 66},   {NULL, 0, 0},        {NULL, 0, 0},       {NULL, 0, 0},         {"mxfp4", 32, 17},
};

LLMDEF const char *llm_gguf_type_name(uint32_t t) { return t < 40 ? llm__ggml_types[t].name : NULL; }

/* The metadata value types: name and fixed size (0: a string or an array). */
static const struct {
    const char *name;
    uint32_t size;
} llm__gguf_vtypes[LLM_GGUF_TYPE_COUNT] = {
    {"uint8", 1}, {"int8", 1},   {"uint16", 2}, {"int16", 2},  {"uint32", 4}, {"int32", 4},  {"float32", 4},
    {"bool", 1},  {"string", 0}, {"array", 0},  {"uint64", 8}, {"int64", 8},  {"float64", 8},
};
LLMDEF const char *llm_gguf_value_type_name(llm_gguf_type t) {
    return (unsigned)t < (unsigned)LLM_GGUF_TYPE_COUNT ? llm__gguf_vtypes[t].name : NULL;
}

static uint64_t llm__le64(const unsigned char *p) { return (uint64_t)llm__le32(p) | ((uint64_t)llm__le32(p + 4) << 32); }

LLMDEF llm_status llm_gguf_dequantize(uint32_t type, const void *src, float *dst, int64_t n) {
    const unsigned char *b = (const unsigned char *)src;
    const llm__ggml_type *ty = type < 40 ? &llm__ggml_types[type] : NULL;
    const llm__wfmt *f = llm__wfmt_ggml(type); /* the weight-format table's row (>>weights) */
    int64_t i;
    if (!src || !dst || n < 0) return LLM_EINVAL;
    if (!ty || !ty->name) return LLM_EINVAL;
    if (n % ty->block) return LLM_EINVAL;
    if (!f || !f->dq) return LLM_EUNSUPPORTED; /* known layout, no dequantizer here (IQ*, TQ*, MXFP4, ...) */
    for (i = 0; i < n; i += f->blk, b += f->blk_bytes, dst += f->blk) f->dq(b, dst);
    return LLM_OK;
}

/* A reason that names something from the file: a + the name (cut to fit) + b, in buf. */
static const char *llm__why_name(char *buf, size_t cap, const char *a, const char *name, uint64_t n, const char *b) {
    size_t k = 0, i;
    for (i = 0; a[i] && k + 1 < cap; i++) buf[k++] = a[i];
    for (i = 0; i < n && k + 4 < cap && i < 64; i++) buf[k++] = (char)((unsigned char)name[i] >= 32 ? name[i] : '?');
    if (n > 64 && k + 4 < cap) buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
    for (i = 0; b[i] && k + 1 < cap; i++) buf[k++] = b[i];
    buf[k] = '\0';
    return buf;
}
#define LLM__GFAIL_NAME(g, a, str, b, code) LLM__FFAIL(why, llm__why_name((g)->why, sizeof (g)->why, a, (str).s, (str).n, b), code)

/* A cursor over the buffer: every read checks what is left first, so once `bad` is set
   nothing further is read and the caller reports the field that ran past the end. */
typedef struct llm__gr {
    const unsigned char *p;
    uint64_t off, len;
    int bad;
    uint64_t need; /* once bad: the bytes the read needed (saturating), so a caller holding
                      only a file's first bytes knows how many to read (llm_gguf_shapes) */
} llm__gr;
static void llm__gr_short(llm__gr *r, uint64_t n, uint64_t size) { /* off + n * size bytes needed */
    if (!r->bad) r->need = n > (UINT64_MAX - r->off) / size ? UINT64_MAX : r->off + n * size;
    r->bad = 1;
}
static int llm__gr_has(llm__gr *r, uint64_t n) {
    if (r->bad || n > r->len - r->off) llm__gr_short(r, n, 1);
    return !r->bad;
}
static uint32_t llm__gr_u32(llm__gr *r) {
    uint32_t v = 0;
    if (llm__gr_has(r, 4)) v = llm__le32(r->p + r->off), r->off += 4;
    return v;
}
static uint64_t llm__gr_u64(llm__gr *r) {
    uint64_t v = 0;
    if (llm__gr_has(r, 8)) v = llm__le64(r->p + r->off), r->off += 8;
    return v;
}
static llm_gguf_str llm__gr_str(llm__gr *r) {
    llm_gguf_str s;
    s.n = llm__gr_u64(r), s.s = NULL;
    if (llm__gr_has(r, s.n)) s.s = (const char *)r->p + r->off, r->off += s.n;
    else s.n = 0;
    return s;
}

/* Steps over one value of type t (arrays nest at most 3 deep). 0, or -1 for an unknown
   type, -2 for arrays nested deeper; running past the end sets r->bad. */
static int llm__gr_skip(llm__gr *r, uint32_t t, int depth) {
    uint64_t n, i, size;
    if (t >= (uint32_t)LLM_GGUF_TYPE_COUNT) return -1;
    if (t == LLM_GGUF_STRING) {
        llm__gr_str(r);
        return 0;
    }
    if (t != LLM_GGUF_ARRAY) {
        llm__gr_has(r, llm__gguf_vtypes[t].size);
        if (!r->bad) r->off += llm__gguf_vtypes[t].size;
        return 0;
    }
    if (depth >= 3) return -2;
    t = llm__gr_u32(r);
    n = llm__gr_u64(r);
    if (t >= (uint32_t)LLM_GGUF_TYPE_COUNT) return -1;
    size = llm__gguf_vtypes[t].size;
    if (size) {
        if (n > (r->len - r->off) / size) llm__gr_short(r, n, size); /* n * size would pass the end (or wrap) */
        if (!r->bad) r->off += n * size;
        return 0;
    }
    /* strings take at least 8 bytes and arrays 12 each: a count beyond that is past the end */
    if (n > (r->len - r->off) / 8) llm__gr_short(r, n, 8);
    for (i = 0; i < n && !r->bad; i++) {
        int e = llm__gr_skip(r, t, depth + 1);
        if (e) return e;
    }
    return 0;
}

static int llm__gstr_cmp(llm_gguf_str a, llm_gguf_str b) {
    int c = memcmp(a.s, b.s, (size_t)(a.n < b.n ? a.n : b.n));
    return c ? c : a.n < b.n ? -1 : a.n > b.n;
}
/* Names sorted through an index, for duplicate checks and binary-search lookups: the
   name of entry i is the llm_gguf_str at first + i * stride (a field of a table of
   structs). An in-place heap sort: no recursion, no scratch, O(n log n) on any input. */
#define LLM__NAME_AT(i) (*(const llm_gguf_str *)(const void *)(first + (size_t)idx[i] * stride))
static void llm__name_sift(int64_t *idx, int64_t root, int64_t end, const char *first, size_t stride) {
    int64_t child;
    while ((child = 2 * root + 1) < end) {
        int64_t t;
        if (child + 1 < end && llm__gstr_cmp(LLM__NAME_AT(child), LLM__NAME_AT(child + 1)) < 0) child++;
        if (llm__gstr_cmp(LLM__NAME_AT(root), LLM__NAME_AT(child)) >= 0) return;
        t = idx[root], idx[root] = idx[child], idx[child] = t;
        root = child;
    }
}
static void llm__name_sort(int64_t *idx, int64_t n, const void *first_name, size_t stride) {
    const char *first = (const char *)first_name;
    int64_t i, t;
    for (i = 0; i < n; i++) idx[i] = i;
    for (i = n / 2; i-- > 0;) llm__name_sift(idx, i, n, first, stride);
    for (i = n - 1; i > 0; i--) {
        t = idx[0], idx[0] = idx[i], idx[i] = t;
        llm__name_sift(idx, 0, i, first, stride);
    }
}
/* The entry named `name` (NUL-terminated) in a table sorted by llm__name_sort, or -1.
   llm__names_unique sorts the index and refuses a table where two entries share a name (a
   lookup would be ambiguous), naming it after `what` in buf. */
static int64_t llm__name_find_str(const int64_t *idx, int64_t n, const void *first_name, size_t stride, llm_gguf_str key) {
    const char *first = (const char *)first_name;
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = llm__gstr_cmp(LLM__NAME_AT(mid), key);
        if (c == 0) return idx[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}
static int64_t llm__name_find(const int64_t *idx, int64_t n, const void *first_name, size_t stride, const char *name) {
    llm_gguf_str key;
    key.s = name, key.n = strlen(name);
    return llm__name_find_str(idx, n, first_name, stride, key);
}
static llm_status llm__names_unique(int64_t *idx, int64_t n, const void *first_name, size_t stride, const char *what,
                                    char *buf, size_t cap, const char **why) {
    const char *first = (const char *)first_name;
    int64_t i;
    llm__name_sort(idx, n, first_name, stride); /* sorted, equal names are neighbours */
    for (i = 1; i < n; i++)
        if (llm__gstr_cmp(LLM__NAME_AT(i - 1), LLM__NAME_AT(i)) == 0)
            LLM__FFAIL(why, llm__why_name(buf, cap, what, LLM__NAME_AT(i).s, LLM__NAME_AT(i).n, " appears twice"), LLM_EFORMAT);
    return LLM_OK;
}
#undef LLM__NAME_AT

/* The header's counts, checked against the smallest size each entry can have (a key-value
   13 bytes, a tensor info 32), so the tables are never sized by a lie. */
#define LLM__GGUF_MAGIC 0x46554747u /* "GGUF" */
static llm_status llm__gguf_header(const unsigned char *p, uint64_t len, uint32_t *version, uint64_t *n_kv,
                                   uint64_t *n_t, const char **why) {
    uint32_t v;
    if (!p) LLM__FFAIL(why, "no buffer", LLM_EINVAL);
    if (len < 24) LLM__FFAIL(why, "file shorter than the 24-byte GGUF header", LLM_EFORMAT);
    if (llm__le32(p) != LLM__GGUF_MAGIC) LLM__FFAIL(why, "not a GGUF file (no \"GGUF\" magic)", LLM_EFORMAT);
    v = llm__le32(p + 4);
    if (v == 1) LLM__FFAIL(why, "GGUF version 1 (32-bit counts, 2023) is not read: convert it again", LLM_EUNSUPPORTED);
    if ((v & 0xffffu) == 0 && (v >> 16) != 0)
        LLM__FFAIL(why, "big-endian GGUF: only little-endian GGUF files are read", LLM_EUNSUPPORTED);
    if (v != 2 && v != 3) LLM__FFAIL(why, "unknown GGUF version (2 and 3 are read)", LLM_EFORMAT);
    *version = v;
    *n_t = llm__le64(p + 8);
    *n_kv = llm__le64(p + 16);
    if (*n_kv > (len - 24) / 13) LLM__FFAIL(why, "metadata count larger than the file can hold", LLM_EFORMAT);
    if (*n_t > (len - 24 - *n_kv * 13) / 32) LLM__FFAIL(why, "tensor count larger than the file can hold", LLM_EFORMAT);
    return LLM_OK;
}

static uint64_t llm__gguf_table_bytes(uint64_t n_kv, uint64_t n_t) {
    return n_kv * (sizeof(llm_gguf_kv) + sizeof(int64_t)) + n_t * (sizeof(llm_gguf_tensor) + sizeof(int64_t)) + 8;
}

LLMDEF size_t llm_gguf_bytes(const void *buf, size_t len) {
    uint32_t v;
    uint64_t nkv, nt, b;
    if (llm__gguf_header((const unsigned char *)buf, len, &v, &nkv, &nt, NULL) != LLM_OK) return 0;
    b = llm__gguf_table_bytes(nkv, nt);
    return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

/* buf holds the first len bytes of a file of file_len bytes (llm_gguf_init: all of it):
   the tables must lie in buf, the tensors' data only in the file (data is NULL for a
   tensor past buf). rd is the cursor, left where a read ran short. */
static llm_status llm__gguf_parse(llm_gguf *g, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                  uint64_t file_len, llm__gr *rd, const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t nkv, nt, i, k;
    uint32_t ver;
    char *m;
    rd->bad = 0, rd->need = 0;
    LLM__MTRY(llm__reader_begin(g, sizeof *g, "no llm_gguf", why));
    if (len < 24 && file_len >= 24) llm__gr_short(rd, 24, 1);
    LLM__MTRY(llm__gguf_header(p, len < 24 ? len : file_len, &ver, &nkv, &nt, why));
    if (!mem || ((uintptr_t)mem & 7u) || mem_bytes < llm__gguf_table_bytes(nkv, nt))
        LLM__FFAIL(why, "table memory missing, misaligned or smaller than llm_gguf_bytes", LLM_EINVAL);
    m = (char *)mem;
    g->kv = (llm_gguf_kv *)(void *)m, m += nkv * sizeof(llm_gguf_kv);
    g->tensors = (llm_gguf_tensor *)(void *)m, m += nt * sizeof(llm_gguf_tensor);
    g->kv_order = (int64_t *)(void *)m, m += nkv * sizeof(int64_t);
    g->tensor_order = (int64_t *)(void *)m;
    g->version = ver, g->n_kv = (int64_t)nkv, g->n_tensors = (int64_t)nt, g->buf = p, g->len = len;
    g->alignment = 32;
    rd->p = p, rd->off = 24, rd->len = len;
    /* the metadata: key, type, value */
    for (i = 0; i < nkv; i++) {
        llm_gguf_kv *kv = &g->kv[i];
        int e;
        kv->key = llm__gr_str(rd);
        kv->type = (llm_gguf_type)llm__gr_u32(rd);
        if (rd->bad) LLM__FFAIL(why, "file ends inside a metadata key or its type", LLM_EFORMAT);
        if ((unsigned)kv->type >= (unsigned)LLM_GGUF_TYPE_COUNT)
            LLM__GFAIL_NAME(g, "metadata ", kv->key, ": unknown value type", LLM_EFORMAT);
        if (kv->type == LLM_GGUF_ARRAY) {
            llm__gr q = *rd;
            kv->arr_type = (llm_gguf_type)llm__gr_u32(&q);
            kv->arr_n = llm__gr_u64(&q);
            kv->value = p + q.off;
        } else {
            kv->value = p + rd->off;
        }
        e = llm__gr_skip(rd, (uint32_t)kv->type, 0);
        kv->bytes = (uint64_t)(p + rd->off - kv->value);
        if (e == -1) LLM__GFAIL_NAME(g, "metadata ", kv->key, ": array of an unknown value type", LLM_EFORMAT);
        if (e == -2) LLM__GFAIL_NAME(g, "metadata ", kv->key, ": arrays nested more than 3 deep", LLM_EFORMAT);
        if (rd->bad) LLM__GFAIL_NAME(g, "metadata ", kv->key, ": value runs past the end of the file", LLM_EFORMAT);
        if (kv->type == LLM_GGUF_BOOL && *kv->value > 1)
            LLM__GFAIL_NAME(g, "metadata ", kv->key, ": bool is not 0 or 1", LLM_EFORMAT);
    }
    LLM__MTRY(llm__names_unique(g->kv_order, g->n_kv, &g->kv[0].key, sizeof *g->kv, "metadata key ", g->why, sizeof g->why, why));
    {
        int64_t a = llm_gguf_find_key(g, "general.alignment");
        if (a >= 0) {
            uint32_t al;
            if (g->kv[a].type != LLM_GGUF_UINT32) LLM__FFAIL(why, "general.alignment is not a uint32", LLM_EFORMAT);
            al = llm__le32(g->kv[a].value);
            if (al == 0 || (al & (al - 1)) != 0) LLM__FFAIL(why, "general.alignment is not a power of two", LLM_EFORMAT);
            g->alignment = al;
        }
    }
    /* the tensor infos: name, dims, type, offset; the sizes follow from the type */
    for (i = 0; i < nt; i++) {
        llm_gguf_tensor *t = &g->tensors[i];
        const llm__ggml_type *ty;
        uint32_t nd;
        uint64_t elems = 1;
        t->name = llm__gr_str(rd);
        nd = llm__gr_u32(rd);
        if (rd->bad) LLM__FFAIL(why, "file ends inside a tensor's name or dimension count", LLM_EFORMAT);
        if (nd < 1 || nd > 4) LLM__GFAIL_NAME(g, "tensor ", t->name, ": n_dims not in 1..4", LLM_EFORMAT);
        t->n_dims = (int)nd;
        for (k = 0; k < 4; k++) t->ne[k] = 1;
        for (k = 0; k < nd; k++) {
            uint64_t ne = llm__gr_u64(rd);
            if (rd->bad) break;
            if (ne == 0 || ne > (uint64_t)INT64_MAX) LLM__GFAIL_NAME(g, "tensor ", t->name, ": a dimension is 0 or above 2^63", LLM_EFORMAT);
            if (elems > (uint64_t)INT64_MAX / ne) LLM__GFAIL_NAME(g, "tensor ", t->name, ": its dimensions' product overflows", LLM_EFORMAT);
            elems *= ne;
            t->ne[k] = (int64_t)ne;
        }
        t->type = llm__gr_u32(rd);
        t->offset = llm__gr_u64(rd);
        if (rd->bad) LLM__GFAIL_NAME(g, "tensor ", t->name, ": file ends inside its info", LLM_EFORMAT);
        ty = t->type < 40 ? &llm__ggml_types[t->type] : NULL;
        if (!ty || !ty->name) LLM__GFAIL_NAME(g, "tensor ", t->name, ": unknown ggml type", LLM_EFORMAT);
        if ((uint64_t)t->ne[0] % ty->block)
            LLM__GFAIL_NAME(g, "tensor ", t->name, ": row length not a multiple of its type's block", LLM_EFORMAT);
        if (elems / ty->block > UINT64_MAX / ty->bytes) LLM__GFAIL_NAME(g, "tensor ", t->name, ": byte size overflows", LLM_EFORMAT);
        t->bytes = elems / ty->block * ty->bytes;
        if (t->offset % g->alignment) LLM__GFAIL_NAME(g, "tensor ", t->name, ": offset not a multiple of the alignment", LLM_EFORMAT);
    }
    /* the data section starts at the next multiple of the alignment */
    g->data_offset = rd->off + (g->alignment - rd->off % g->alignment) % g->alignment;
    if (nt > 0 && g->data_offset > file_len) LLM__FFAIL(why, "file ends before its data section", LLM_EFORMAT);
    for (i = 0; i < nt; i++) {
        llm_gguf_tensor *t = &g->tensors[i];
        uint64_t room = file_len - g->data_offset;
        if (t->offset > room || t->bytes > room - t->offset)
            LLM__GFAIL_NAME(g, "tensor ", t->name, ": data runs past the end of the file", LLM_EFORMAT);
        t->data = g->data_offset + t->offset + t->bytes <= len ? p + g->data_offset + t->offset : NULL;
    }
    return llm__names_unique(g->tensor_order, g->n_tensors, &g->tensors[0].name, sizeof *g->tensors, "tensor name ", g->why,
                             sizeof g->why, why);
}

/* An error leaves no table behind (create frees their memory next); the reason stays, as
   *why may point into g->why. */
LLMDEF llm_status llm_gguf_init(llm_gguf *g, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                const char **why) {
    llm__gr r;
    llm_status st = llm__gguf_parse(g, mem, mem_bytes, buf, len, len, &r, why);
    if (st != LLM_OK && g) g->kv = NULL, g->tensors = NULL, g->kv_order = g->tensor_order = NULL, g->n_kv = g->n_tensors = 0;
    return st;
}

/* GGUF's and safetensors' create: their init, in LLM_MALLOC memory of the size their
   *_bytes gives (0: init, without memory, says why). A failed init leaves no table and
   keeps its reason in the object, so the object is not emptied. */
typedef llm_status (*llm__file_init)(void *obj, void *mem, size_t mem_bytes, const void *buf, size_t len, const char **why);
static llm_status llm__file_create(void *obj, size_t size, void **owned, size_t need, llm__file_init init,
                                   const void *buf, size_t len, const char **why) {
    void *mem;
    if (!obj || need == 0) return init(obj, NULL, 0, buf, len, why);
    if (llm__create_mem(obj, size, need, &mem) != LLM_OK) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    return llm__created(obj, 0, owned, mem, init(obj, mem, need, buf, len, why));
}
static llm_status llm__gguf_init_any(void *g, void *mem, size_t mem_bytes, const void *buf, size_t len, const char **why) {
    return llm_gguf_init((llm_gguf *)g, mem, mem_bytes, buf, len, why);
}

LLMDEF llm_status llm_gguf_create(llm_gguf *g, const void *buf, size_t len, const char **why) {
    return llm__file_create(g, sizeof *g, g ? &g->owned : NULL, llm_gguf_bytes(buf, len), llm__gguf_init_any, buf, len, why);
}

LLMDEF void llm_gguf_free(llm_gguf *g) {
    if (g) llm__destroy(g, sizeof *g, g->owned);
}

/* The kv or tensor named `name`, through the sorted index. */
static int64_t llm__gguf_find(const llm_gguf *g, const char *name, int tensors) {
    if (!g || !name || !(tensors ? g->tensor_order : g->kv_order)) return -1;
    if (tensors) return g->n_tensors ? llm__name_find(g->tensor_order, g->n_tensors, &g->tensors[0].name, sizeof *g->tensors, name) : -1;
    return g->n_kv ? llm__name_find(g->kv_order, g->n_kv, &g->kv[0].key, sizeof *g->kv, name) : -1;
}
LLMDEF int64_t llm_gguf_find_key(const llm_gguf *g, const char *key) { return llm__gguf_find(g, key, 0); }
LLMDEF const llm_gguf_tensor *llm_gguf_find_tensor(const llm_gguf *g, const char *name) {
    int64_t i = llm__gguf_find(g, name, 1);
    return i < 0 ? NULL : &g->tensors[i];
}

/* One number of type t at p, as int64 or double. */
static llm_status llm__gguf_num(llm_gguf_type t, const unsigned char *p, int64_t *iv, double *fv) {
    uint64_t u;
    switch (t) {
    case LLM_GGUF_UINT8: case LLM_GGUF_BOOL: u = p[0]; *iv = (int64_t)u; break;
    case LLM_GGUF_INT8: *iv = p[0] < 128 ? p[0] : (int64_t)p[0] - 256; break;
    case LLM_GGUF_UINT16: *iv = (int64_t)(p[0] | (p[1] << 8)); break;
    case LLM_GGUF_INT16: u = (uint64_t)(p[0] | (p[1] << 8)); *iv = u < 32768 ? (int64_t)u : (int64_t)u - 65536; break;
    case LLM_GGUF_UINT32: *iv = (int64_t)llm__le32(p); break;
    case LLM_GGUF_INT32: *iv = (int64_t)llm__le32s(p); break;
    case LLM_GGUF_UINT64:
        u = llm__le64(p);
        if (u > (uint64_t)INT64_MAX) return LLM_ERANGE;
        *iv = (int64_t)u;
        break;
    case LLM_GGUF_INT64:
        u = llm__le64(p);
        *iv = u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
        break;
    case LLM_GGUF_FLOAT32: *fv = llm__le32f(p); return LLM_OK;
    case LLM_GGUF_FLOAT64: {
        uint64_t b = llm__le64(p);
        memcpy(fv, &b, 8);
        return LLM_OK;
    }
    default: return LLM_EFORMAT;
    }
    *fv = (double)*iv;
    return LLM_OK;
}
static int llm__gguf_is_int(llm_gguf_type t) {
    return t != LLM_GGUF_FLOAT32 && t != LLM_GGUF_FLOAT64 && t != LLM_GGUF_STRING && t != LLM_GGUF_ARRAY &&
           (unsigned)t < (unsigned)LLM_GGUF_TYPE_COUNT;
}

LLMDEF llm_status llm_gguf_get_int(const llm_gguf *g, const char *key, int64_t *out) {
    int64_t i = llm_gguf_find_key(g, key);
    double f;
    if (!out) return LLM_EINVAL;
    if (i < 0) return LLM_ENOTFOUND;
    if (!llm__gguf_is_int(g->kv[i].type)) return LLM_EFORMAT;
    return llm__gguf_num(g->kv[i].type, g->kv[i].value, out, &f);
}
LLMDEF llm_status llm_gguf_get_float(const llm_gguf *g, const char *key, double *out) {
    int64_t i = llm_gguf_find_key(g, key), iv;
    if (!out) return LLM_EINVAL;
    if (i < 0) return LLM_ENOTFOUND;
    if (g->kv[i].type != LLM_GGUF_FLOAT32 && g->kv[i].type != LLM_GGUF_FLOAT64) return LLM_EFORMAT;
    return llm__gguf_num(g->kv[i].type, g->kv[i].value, &iv, out);
}
LLMDEF llm_status llm_gguf_get_str(const llm_gguf *g, const char *key, llm_gguf_str *out) {
    int64_t i = llm_gguf_find_key(g, key);
    if (!out) return LLM_EINVAL;
    if (i < 0) return LLM_ENOTFOUND;
    if (g->kv[i].type != LLM_GGUF_STRING) return LLM_EFORMAT;
    out->n = llm__le64(g->kv[i].value); /* checked by llm_gguf_init */
    out->s = (const char *)g->kv[i].value + 8;
    return LLM_OK;
}
LLMDEF llm_status llm_gguf_arr_int(const llm_gguf_kv *kv, uint64_t i, int64_t *out) {
    double f;
    if (!kv || !out || kv->type != LLM_GGUF_ARRAY) return LLM_EINVAL;
    if (!llm__gguf_is_int(kv->arr_type)) return LLM_EFORMAT;
    if (i >= kv->arr_n) return LLM_ERANGE;
    return llm__gguf_num(kv->arr_type, kv->value + i * llm__gguf_vtypes[kv->arr_type].size, out, &f);
}
LLMDEF llm_status llm_gguf_arr_float(const llm_gguf_kv *kv, uint64_t i, double *out) {
    int64_t iv;
    if (!kv || !out || kv->type != LLM_GGUF_ARRAY) return LLM_EINVAL;
    if (kv->arr_type != LLM_GGUF_FLOAT32 && kv->arr_type != LLM_GGUF_FLOAT64) return LLM_EFORMAT;
    if (i >= kv->arr_n) return LLM_ERANGE;
    return llm__gguf_num(kv->arr_type, kv->value + i * llm__gguf_vtypes[kv->arr_type].size, &iv, out);
}
/* The cursor is the byte offset of the next string from kv->value; every read is checked
   against the array's byte size, so even a cursor that is not on a string stays inside. */
LLMDEF llm_status llm_gguf_arr_str(const llm_gguf_kv *kv, uint64_t *cursor, llm_gguf_str *out) {
    uint64_t n;
    if (!kv || !cursor || !out || kv->type != LLM_GGUF_ARRAY) return LLM_EINVAL;
    if (kv->arr_type != LLM_GGUF_STRING) return LLM_EFORMAT;
    if (*cursor >= kv->bytes || kv->bytes - *cursor < 8) return LLM_ERANGE;
    n = llm__le64(kv->value + *cursor);
    if (n > kv->bytes - *cursor - 8) return LLM_ERANGE;
    out->s = (const char *)kv->value + *cursor + 8, out->n = n;
    *cursor += 8 + n;
    return LLM_OK;
}

/* ---- architectures as data: the GGUF and Hugging Face loaders read these tables ------- */

/* A block's tensors beyond the plain Llama set (bits of llm__arch.tensors). */
#define LLM__T_QKV_FUSED 1u /* one [q + 2 kv][d] matrix: the q rows, then k's, then v's (Phi-3) */
#define LLM__T_QKV_BIAS 2u  /* q, k, v biases (Qwen2) */
#define LLM__T_QK_NORM 4u   /* per-head gains of q and k (Qwen3) */
#define LLM__T_SANDWICH 8u  /* post-attention and post-FFN norms (Gemma 2) */
#define LLM__T_UP_FUSED 16u /* one [2 ff][d] matrix: the gate rows, then the up rows (Phi-3) */
#define LLM__T_MOE 32u      /* experts: a router and stacked ffn_*_exps in place of ffn_* (set by the
                               config's n_experts; always on for the MoE-only architectures) */
#define LLM__T_SHEXP 64u    /* one shared expert, gated by a sigmoid (Qwen2-MoE's ffn_*_shexp) */
#define LLM__T_HF_MIXTRAL 128u /* Hugging Face's Mixtral names (block_sparse_moe, experts.E.w1/w2/w3) and
                                  keys (num_local_experts; always renormalized) */

/* One architecture: its names in both formats and what it means for llm_config. */
typedef struct llm__arch {
    const char *gguf, *hf;     /* general.architecture; config.json's model_type (NULL: none) */
    unsigned tensors;          /* LLM__T_*: qk_norm and sandwich_norm follow from these */
    llm_ffn_kind ffn;
    llm_bias_kind bias;
    llm_rope_layout gguf_rope; /* llama: the converter permuted Q and K to adjacent pairs */
    int embed_sqrt_d;          /* the embedding times sqrt(d_model) (Gemma) */
    int window_pattern;        /* llm_config.window_pattern (Gemma 2: 2) */
    int hf_plus_one;           /* HF stores Gemma's norm gains as w, the model multiplies by
                                  1 + w (transformers' GemmaRMSNorm); the GGUF converter has
                                  already added the 1, so GGUF gains are used as they are */
    int hf_tied;               /* tie_word_embeddings' default in transformers */
    int hf_use_sliding;        /* windows only with use_sliding_window (Qwen2 / Qwen3's keys) */
    const char *act_key, *act; /* the config.json key naming the activation, and its one value */
    int hf_head_dim;           /* head_dim's default in transformers (0: d_model / n_heads) */
    llm_router_kind router;    /* how a mixture of experts weighs its chosen experts */
} llm__arch;
static const llm__arch llm__archs[] = {
    /* gguf     hf         tensors                               ffn             bias           GGUF RoPE            sqrt_d win +1 tied slide activation, head_dim */
    {"llama",  "llama",   0,                                    LLM_FFN_SWIGLU, LLM_BIAS_NONE, LLM_ROPE_INTERLEAVED, 0, 0, 0, 0, 0, "hidden_act", "silu", 0, LLM_ROUTER_TOPK_NORM},
    {NULL,     "mistral", 0,                                    LLM_FFN_SWIGLU, LLM_BIAS_NONE, LLM_ROPE_INTERLEAVED, 0, 0, 0, 0, 0, "hidden_act", "silu", 0, LLM_ROUTER_TOPK_NORM},
    {"qwen2",  "qwen2",   LLM__T_QKV_BIAS,                      LLM_FFN_SWIGLU, LLM_BIAS_QKV,  LLM_ROPE_HALVES,      0, 0, 0, 0, 1, "hidden_act", "silu", 0, LLM_ROUTER_TOPK_NORM},
    {"qwen3",  "qwen3",   LLM__T_QK_NORM,                       LLM_FFN_SWIGLU, LLM_BIAS_NONE, LLM_ROPE_HALVES,      0, 0, 0, 0, 1, "hidden_act", "silu", 128, LLM_ROUTER_TOPK_NORM},
    {"gemma",  "gemma",   0,                                    LLM_FFN_GEGLU,  LLM_BIAS_NONE, LLM_ROPE_HALVES,      1, 0, 1, 1, 0, "hidden_activation", "gelu_pytorch_tanh", 256, LLM_ROUTER_TOPK_NORM},
    {"gemma2", "gemma2",  LLM__T_SANDWICH,                      LLM_FFN_GEGLU,  LLM_BIAS_NONE, LLM_ROPE_HALVES,      1, 2, 1, 1, 0, "hidden_activation", "gelu_pytorch_tanh", 256, LLM_ROUTER_TOPK_NORM},
    {"phi3",   "phi3",    LLM__T_QKV_FUSED | LLM__T_UP_FUSED,   LLM_FFN_SWIGLU, LLM_BIAS_NONE, LLM_ROPE_HALVES,      0, 0, 0, 0, 0, "hidden_act", "silu", 0, LLM_ROUTER_TOPK_NORM},
    /* mixture of experts only: llama.cpp's qwen2moe leaves the top-k weights as they are
       (HF norm_topk_prob false) and adds a sigmoid-gated shared expert; qwen3moe
       renormalizes (HF files say which in norm_topk_prob); Qwen3MoeConfig has no head_dim
       default (transformers: d_model / n_heads); Mixtral is GGUF's llama with experts */
    {"qwen2moe", "qwen2_moe", LLM__T_QKV_BIAS | LLM__T_MOE | LLM__T_SHEXP, LLM_FFN_SWIGLU, LLM_BIAS_QKV, LLM_ROPE_HALVES, 0, 0, 0, 0, 1, "hidden_act", "silu", 0, LLM_ROUTER_TOPK},
    {"qwen3moe", "qwen3_moe", LLM__T_QK_NORM | LLM__T_MOE,          LLM_FFN_SWIGLU, LLM_BIAS_NONE, LLM_ROPE_HALVES,      0, 0, 0, 0, 1, "hidden_act", "silu", 0, LLM_ROUTER_TOPK_NORM},
    {NULL,     "mixtral", LLM__T_MOE | LLM__T_HF_MIXTRAL,           LLM_FFN_SWIGLU, LLM_BIAS_NONE, LLM_ROPE_INTERLEAVED, 0, 0, 0, 0, 0, "hidden_act", "silu", 0, LLM_ROUTER_TOPK_NORM},
};
#define LLM__N_ARCHS ((int)(sizeof llm__archs / sizeof llm__archs[0]))

/* The row of a GGUF (hf 0) or Hugging Face (hf 1) architecture name, NULL if none. */
static const llm__arch *llm__arch_find(const char *s, uint64_t n, int hf) {
    int i;
    for (i = 0; i < LLM__N_ARCHS; i++) {
        const char *a = hf ? llm__archs[i].hf : llm__archs[i].gguf;
        if (a && strlen(a) == n && memcmp(a, s, (size_t)n) == 0) return &llm__archs[i];
    }
    return NULL;
}

/* What an architecture row sets in the config (the files' keys fill in the rest). */
static void llm__arch_config(llm_config *c, const llm__arch *a) {
    c->ffn = a->ffn;
    c->bias = a->bias;
    c->qk_norm = (a->tensors & LLM__T_QK_NORM) != 0;
    c->sandwich_norm = (a->tensors & LLM__T_SANDWICH) != 0;
    c->window_pattern = a->window_pattern;
    c->router = a->router;
}
/* The tensor bits of architecture a as configured: a llama file with experts has them. */
static unsigned llm__arch_bits(const llm__arch *a, const llm_config *c) {
    return a->tensors | (c->n_experts > 0 ? LLM__T_MOE : 0u);
}

/* A block's tensors: where each goes in llm_layer_weights, its shape [rows][cols] (rows
   1: a vector), and its name after "blk.N." (GGUF) or "model.layers.N." (Hugging Face).
   A row is there when the architecture has every bit of `need` and none of `skip`.
   Rows LLM__D_XFF and LLM__D_XD are n_experts matrices [d_ff][..] or [d][..]: in GGUF one
   stack (ne {cols, rows, n_experts}), in HF one tensor per expert, its index in place of
   the name's '*'; LLM__D_E is n_experts, LLM__D_SFF the shared experts' width. An empty
   name: the format has no such tensor. */
enum { LLM__D_1, LLM__D_D, LLM__D_HD, LLM__D_Q, LLM__D_KV, LLM__D_FF, LLM__D_QKV, LLM__D_2FF, LLM__D_E, LLM__D_SFF,
       LLM__D_XFF, LLM__D_XD };
typedef struct llm__trow {
    unsigned need, skip;
    unsigned char rows, cols; /* LLM__D_* */
    unsigned char norm;       /* 1: a norm's gains (Gemma's 1 + w in HF files); 2: a vector HF stores
                                 as a [1][cols] matrix (nn.Linear(d, 1): Qwen2-MoE's shared_expert_gate) */
    size_t off;               /* offsetof(llm_layer_weights, ...): an llm_weight, or a const float * for a vector */
    const char *gguf, *hf;
} llm__trow;
#define LLM__LW(f) offsetof(llm_layer_weights, f)
static const llm__trow llm__block_tensors[] = {
    {0, 0, LLM__D_1, LLM__D_D, 1, LLM__LW(attn_norm), "attn_norm.weight", "input_layernorm.weight"},
    {0, LLM__T_QKV_FUSED, LLM__D_Q, LLM__D_D, 0, LLM__LW(wq), "attn_q.weight", "self_attn.q_proj.weight"},
    {0, LLM__T_QKV_FUSED, LLM__D_KV, LLM__D_D, 0, LLM__LW(wk), "attn_k.weight", "self_attn.k_proj.weight"},
    {0, LLM__T_QKV_FUSED, LLM__D_KV, LLM__D_D, 0, LLM__LW(wv), "attn_v.weight", "self_attn.v_proj.weight"},
    {LLM__T_QKV_FUSED, 0, LLM__D_QKV, LLM__D_D, 0, LLM__LW(wq), "attn_qkv.weight", "self_attn.qkv_proj.weight"},
    {LLM__T_QKV_BIAS, 0, LLM__D_1, LLM__D_Q, 0, LLM__LW(bq), "attn_q.bias", "self_attn.q_proj.bias"},
    {LLM__T_QKV_BIAS, 0, LLM__D_1, LLM__D_KV, 0, LLM__LW(bk), "attn_k.bias", "self_attn.k_proj.bias"},
    {LLM__T_QKV_BIAS, 0, LLM__D_1, LLM__D_KV, 0, LLM__LW(bv), "attn_v.bias", "self_attn.v_proj.bias"},
    {LLM__T_QK_NORM, 0, LLM__D_1, LLM__D_HD, 1, LLM__LW(q_norm), "attn_q_norm.weight", "self_attn.q_norm.weight"},
    {LLM__T_QK_NORM, 0, LLM__D_1, LLM__D_HD, 1, LLM__LW(k_norm), "attn_k_norm.weight", "self_attn.k_norm.weight"},
    {0, 0, LLM__D_D, LLM__D_Q, 0, LLM__LW(wo), "attn_output.weight", "self_attn.o_proj.weight"},
    /* HF's post_attention_layernorm is Llama's pre-FFN norm, but Gemma 2's post-attention one */
    {LLM__T_SANDWICH, 0, LLM__D_1, LLM__D_D, 1, LLM__LW(attn_post_norm), "post_attention_norm.weight", "post_attention_layernorm.weight"},
    {0, LLM__T_SANDWICH, LLM__D_1, LLM__D_D, 1, LLM__LW(ffn_norm), "ffn_norm.weight", "post_attention_layernorm.weight"},
    {LLM__T_SANDWICH, 0, LLM__D_1, LLM__D_D, 1, LLM__LW(ffn_norm), "ffn_norm.weight", "pre_feedforward_layernorm.weight"},
    {0, LLM__T_UP_FUSED | LLM__T_MOE, LLM__D_FF, LLM__D_D, 0, LLM__LW(w1), "ffn_gate.weight", "mlp.gate_proj.weight"},
    {0, LLM__T_UP_FUSED | LLM__T_MOE, LLM__D_FF, LLM__D_D, 0, LLM__LW(w3), "ffn_up.weight", "mlp.up_proj.weight"},
    {LLM__T_UP_FUSED, 0, LLM__D_2FF, LLM__D_D, 0, LLM__LW(w1), "ffn_up.weight", "mlp.gate_up_proj.weight"},
    {0, LLM__T_MOE, LLM__D_D, LLM__D_FF, 0, LLM__LW(w2), "ffn_down.weight", "mlp.down_proj.weight"},
    /* experts: the router, then GGUF's stacks or HF's one tensor per expert (Qwen's names) */
    {LLM__T_MOE, LLM__T_HF_MIXTRAL, LLM__D_E, LLM__D_D, 0, LLM__LW(router), "ffn_gate_inp.weight", "mlp.gate.weight"},
    {LLM__T_MOE, LLM__T_HF_MIXTRAL, LLM__D_XFF, LLM__D_D, 0, LLM__LW(w1), "ffn_gate_exps.weight", "mlp.experts.*.gate_proj.weight"},
    {LLM__T_MOE, LLM__T_HF_MIXTRAL, LLM__D_XFF, LLM__D_D, 0, LLM__LW(w3), "ffn_up_exps.weight", "mlp.experts.*.up_proj.weight"},
    {LLM__T_MOE, LLM__T_HF_MIXTRAL, LLM__D_XD, LLM__D_FF, 0, LLM__LW(w2), "ffn_down_exps.weight", "mlp.experts.*.down_proj.weight"},
    /* Mixtral's HF names (w1 gate, w3 up, w2 down); its GGUF is the rows above */
    {LLM__T_MOE | LLM__T_HF_MIXTRAL, 0, LLM__D_E, LLM__D_D, 0, LLM__LW(router), "", "block_sparse_moe.gate.weight"},
    {LLM__T_MOE | LLM__T_HF_MIXTRAL, 0, LLM__D_XFF, LLM__D_D, 0, LLM__LW(w1), "", "block_sparse_moe.experts.*.w1.weight"},
    {LLM__T_MOE | LLM__T_HF_MIXTRAL, 0, LLM__D_XFF, LLM__D_D, 0, LLM__LW(w3), "", "block_sparse_moe.experts.*.w3.weight"},
    {LLM__T_MOE | LLM__T_HF_MIXTRAL, 0, LLM__D_XD, LLM__D_FF, 0, LLM__LW(w2), "", "block_sparse_moe.experts.*.w2.weight"},
    {LLM__T_SHEXP, 0, LLM__D_SFF, LLM__D_D, 0, LLM__LW(ws1), "ffn_gate_shexp.weight", "mlp.shared_expert.gate_proj.weight"},
    {LLM__T_SHEXP, 0, LLM__D_SFF, LLM__D_D, 0, LLM__LW(ws3), "ffn_up_shexp.weight", "mlp.shared_expert.up_proj.weight"},
    {LLM__T_SHEXP, 0, LLM__D_D, LLM__D_SFF, 0, LLM__LW(ws2), "ffn_down_shexp.weight", "mlp.shared_expert.down_proj.weight"},
    {LLM__T_SHEXP, 0, LLM__D_1, LLM__D_D, 2, LLM__LW(ws_gate), "ffn_gate_inp_shexp.weight", "mlp.shared_expert_gate.weight"},
    {LLM__T_SANDWICH, 0, LLM__D_1, LLM__D_D, 1, LLM__LW(ffn_post_norm), "post_ffw_norm.weight", "post_feedforward_layernorm.weight"},
};
#undef LLM__LW
#define LLM__N_TROWS ((int)(sizeof llm__block_tensors / sizeof llm__block_tensors[0]))
/* The model's own tensors: embedding, final norm, LM head (absent: tied to the embedding). */
static const char *const llm__top_tensors[2][3] = {{"token_embd.weight", "output_norm.weight", "output.weight"},
                                                   {"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"}};
static const char *const llm__layer_prefix[2] = {"blk.", "model.layers."};

static int llm__trow_on(unsigned bits, const llm__trow *r) { return (bits & r->need) == r->need && !(bits & r->skip); }
/* A dimension of the config by its LLM__D_ code. */
static int64_t llm__dim(const llm_config *c, int code) {
    int64_t hd = llm_config_head_dim(c), q = (int64_t)c->n_heads * hd, kv = (int64_t)c->n_kv_heads * hd;
    switch (code) {
    case LLM__D_D: return c->d_model;
    case LLM__D_HD: return hd;
    case LLM__D_Q: return q;
    case LLM__D_KV: return kv;
    case LLM__D_FF: return c->d_ff;
    case LLM__D_QKV: return q + 2 * kv;
    case LLM__D_2FF: return 2 * (int64_t)c->d_ff;
    case LLM__D_E: return c->n_experts;
    case LLM__D_SFF: return llm__shared_ff(c);
    case LLM__D_XFF: return c->d_ff;
    case LLM__D_XD: return c->d_model;
    }
    return 1;
}

/* v >= 0 in decimal into buf at k (at most 11 digits); the new end. */
static int llm__put_int(char *buf, int k, int v) {
    char digits[12];
    int n = 0;
    do digits[n++] = (char)('0' + v % 10), v /= 10;
    while (v > 0 && n < 11);
    while (n > 0) buf[k++] = digits[--n];
    return k;
}
/* prefix + l + "." + suffix into buf (96 bytes: ggml names stop at 64, HF's are longer),
   expert e in place of a '*' in suffix. */
static const char *llm__layer_name(char *buf, const char *prefix, int l, const char *suffix, int e) {
    int k = 0;
    while (*prefix && k < 40) buf[k++] = *prefix++;
    k = llm__put_int(buf, k, l);
    buf[k++] = '.';
    for (; *suffix && k < 83; suffix++)
        if (*suffix == '*') k = llm__put_int(buf, k, e);
        else buf[k++] = *suffix;
    buf[k] = '\0';
    return buf;
}

/* A decimal below `below` with no leading zeros at s[*k..n), *k moved past it; -1 if none. */
static int64_t llm__name_index(const char *s, uint64_t n, uint64_t *k, int64_t below) {
    uint64_t k0 = *k;
    int64_t v = 0;
    for (; *k < n && s[*k] >= '0' && s[*k] <= '9' && v < below; (*k)++) v = v * 10 + (s[*k] - '0');
    return *k == k0 || v >= below || (s[k0] == '0' && *k > k0 + 1) ? -1 : v;
}
/* Whether s[0..n) is pattern, a '*' in it standing for an expert index below E. */
static int llm__name_match(const char *s, uint64_t n, const char *pat, int64_t E) {
    uint64_t k = 0;
    for (; *pat; pat++)
        if (*pat == '*') {
            if (llm__name_index(s, n, &k, E) < 0) return 0;
        } else if (k >= n || s[k++] != *pat) {
            return 0;
        }
    return k == n;
}
/* Whether the forward pass of architecture a reads a tensor named s (n bytes): a top
   tensor, or prefix + a layer below n_layers (no leading zeros) + a row's suffix, an
   expert's index below n_experts for its '*' (bits: llm__arch_bits). */
static int llm__arch_uses(unsigned bits, int hf, const llm_config *c, const char *s, uint64_t n) {
    const char *pre = llm__layer_prefix[hf];
    uint64_t p = strlen(pre), k = p;
    int i;
    for (i = 0; i < 3; i++)
        if (n == strlen(llm__top_tensors[hf][i]) && memcmp(s, llm__top_tensors[hf][i], (size_t)n) == 0) return 1;
    if (n <= p + 1 || memcmp(s, pre, (size_t)p) != 0 || llm__name_index(s, n, &k, c->n_layers) < 0 || k >= n || s[k] != '.')
        return 0;
    for (i = 0; i < LLM__N_TROWS; i++) {
        const char *suf = hf ? llm__block_tensors[i].hf : llm__block_tensors[i].gguf;
        if (llm__trow_on(bits, &llm__block_tensors[i]) && *suf && llm__name_match(s + k + 1, n - k - 1, suf, c->n_experts))
            return 1;
    }
    return 0;
}

/* One tensor as either file describes it, for llm__take. */
typedef struct llm__tsrc {
    llm_gguf_str name;
    int n_dims;               /* 1 a vector, 2 a matrix, 3 anything else */
    int64_t rows, cols;       /* a vector: 1 row */
    int64_t stack;            /* GGUF: ne[2] when ne[3] is 1 (a stack of matrices), else 0 */
    uint64_t bytes;           /* GGUF: the data's size */
    int type;                 /* the llm_dtype it is used as, or -1 */
    const char *type_name;    /* the file's name of its type, for a refusal */
    const void *data;
    unsigned align;           /* the data's alignment the kernels need */
} llm__tsrc;

/* Where llm__take puts a vector that is not used in place, and whether to add 1. */
typedef struct llm__aux {
    int convert;    /* 0: vectors must be F32 (GGUF); 1: others are converted into p.. (HF) */
    float *p, *end;
    llm_weight *xt; /* HF experts: [n_layers][n_experts][3] each expert's w1, w2, w3 */
    char *why;      /* 160 bytes for a reason naming the tensor */
} llm__aux;

/* "tensor <name>" + a + its type's name + b into wb (160 bytes): a refused type's reason. */
static const char *llm__why_type(char *wb, const llm__tsrc *t, const char *a, const char *b) {
    char tail[64];
    const char *tn = t->type_name ? t->type_name : "?";
    size_t k = 0;
    while (*a && k < 30) tail[k++] = *a++;
    while (*tn && k < 44) tail[k++] = *tn++;
    while (*b && k < 63) tail[k++] = *b++;
    tail[k] = '\0';
    return llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, tail);
}

/* The one "take a tensor" step of both loaders: the shape [rows][cols] the config wants
   (rows 1: a vector), a type the forward pass runs, aligned; a matrix is used in place, a
   vector in place when it is F32, else converted to fp32 into aux (plus_one: as 1 + w).
   Anything else is refused naming the tensor. */
static llm_status llm__take(const llm__tsrc *t, int64_t rows, int64_t cols, int plus_one, llm_weight *w,
                            const float **vec, llm__aux *aux, const char **why) {
    char *wb = aux->why;
    if (!t->data) LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " is missing"), LLM_EFORMAT);
    if (t->n_dims != (vec ? 1 : 2) || t->rows != rows || t->cols != cols)
        LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " has the wrong shape for the config"), LLM_EFORMAT);
    if (t->type < 0 || (vec && t->type != LLM_F32 && t->type != LLM_F16 && t->type != LLM_BF16))
        LLM__FFAIL(why, llm__why_type(wb, t, vec ? " is not f32 / f16 / bf16: " : " is ", vec ? "" : ", not run yet"),
                   LLM_EUNSUPPORTED);
    if (((uintptr_t)t->data & (t->align - 1u)) != 0)
        LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " is not aligned: load the file into aligned memory"),
                   LLM_EINVAL);
    if (!vec) {
        memset(w, 0, sizeof *w);
        w->type = (llm_dtype)t->type;
        w->data = t->data;
    } else if (t->type == LLM_F32 && !plus_one) {
        *vec = (const float *)t->data;
    } else if (!aux->convert) {
        LLM__FFAIL(why, llm__why_type(wb, t, " is not f32: ", ""), LLM_EUNSUPPORTED);
    } else {
        const unsigned char *s = (const unsigned char *)t->data;
        int64_t i;
        if (!aux->p || aux->end - aux->p < cols)
            LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " needs fp32 room: aux smaller than llm_hf_aux_floats"),
                       LLM_EINVAL);
        for (i = 0; i < cols; i++) {
            uint16_t h = (uint16_t)(s[2 * i] | (s[2 * i + 1] << 8));
            float v = t->type == LLM_F32 ? ((const float *)t->data)[i] : t->type == LLM_F16 ? llm_f16_to_f32(h) : llm_bf16_to_f32(h);
            aux->p[i] = plus_one ? 1.0f + v : v;
        }
        *vec = aux->p;
        aux->p += cols;
    }
    return LLM_OK;
}

/* A stack of E matrices [rows][cols] (a GGUF ffn_*_exps tensor, ne {cols, rows, E}) as one
   llm_weight: the shape and expert count the config wants, a type with whole blocks per
   row, and E times one matrix's bytes (64-bit) exactly the tensor's size. */
static llm_status llm__take_stack(const llm__tsrc *t, int64_t E, int64_t rows, int64_t cols, llm_weight *w, llm__aux *aux,
                                  const char **why) {
    const llm__wfmt *f;
    uint64_t per;
    char *wb = aux->why;
    if (!t->data) LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " is missing"), LLM_EFORMAT);
    if (t->n_dims < 2 || t->stack != E || t->rows != rows || t->cols != cols)
        LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " is not [expert_count][rows][cols] of the config"),
                   LLM_EFORMAT);
    if (t->type < 0) LLM__FFAIL(why, llm__why_type(wb, t, " is ", ""), LLM_EUNSUPPORTED);
    f = llm__wfmt_of((llm_dtype)t->type);
    if (!f || f->blk <= 0 || cols % f->blk)
        LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, ": rows of partial blocks"), LLM_EFORMAT);
    per = (uint64_t)rows * (uint64_t)(cols / f->blk) * (uint64_t)f->blk_bytes;
    if (per * (uint64_t)E != t->bytes || per * (uint64_t)E > (uint64_t)PTRDIFF_MAX)
        LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, ": size is not expert_count matrices"), LLM_EFORMAT);
    if (((uintptr_t)t->data & (t->align - 1u)) != 0)
        LLM__FFAIL(why, llm__why_name(wb, 160, "tensor ", t->name.s, t->name.n, " is not aligned: load the file into aligned memory"),
                   LLM_EINVAL);
    memset(w, 0, sizeof *w);
    w->type = (llm_dtype)t->type;
    w->data = t->data;
    return LLM_OK;
}

/* Rows r0.. of a matrix taken whole (a fused tensor's part): every format stores whole rows. */
static llm_weight llm__weight_rows(const llm_weight *w, int64_t r0, int64_t cols) {
    const llm__wfmt *f = llm__wfmt_of(w->type);
    llm_weight p = *w;
    p.data = (const char *)w->data + (size_t)r0 * (size_t)(cols / f->blk) * (size_t)f->blk_bytes;
    return p;
}

/* The whole model's tensors through llm__take: find(ctx, name) describes one (data NULL
   when absent). Fused tensors are split into the matrices the forward pass reads. */
typedef llm__tsrc (*llm__find_fn)(void *ctx, const char *name);

/* Row r's matrix of every expert of layer l, each its own tensor (HF), into the layer's
   part of aux->xt, used in place wherever it is in the file; the layer's w1 / w2 / w3 is
   expert 0's. Every expert's of one type (llm_decode_bytes counts k times expert 0's). */
static llm_status llm__take_experts(const llm__trow *r, int l, const llm_config *c, llm__find_fn find, void *ctx,
                                    llm_layer_weights *y, llm__aux *aux, const char **why) {
    char name[96];
    int k = r->off == offsetof(llm_layer_weights, w1) ? 0 : r->off == offsetof(llm_layer_weights, w2) ? 1 : 2, e;
    llm_weight *tab;
    llm__tsrc t;
    if (!aux->xt) LLM__FFAIL(why, "the experts' table needs room: aux smaller than llm_hf_aux_floats", LLM_EINVAL);
    tab = aux->xt + (size_t)l * (size_t)c->n_experts * 3;
    for (e = 0; e < c->n_experts; e++) {
        t = find(ctx, llm__layer_name(name, llm__layer_prefix[1], l, r->hf, e));
        LLM__MTRY(llm__take(&t, llm__dim(c, r->rows), llm__dim(c, r->cols), 0, &tab[3 * e + k], NULL, aux, why));
        if (tab[3 * e + k].type != tab[k].type)
            LLM__FFAIL(why, llm__why_type(aux->why, &t, " is ", ": experts of mixed types are not run"), LLM_EUNSUPPORTED);
    }
    *(llm_weight *)(void *)((char *)y + r->off) = tab[k];
    y->experts = tab;
    return LLM_OK;
}
static llm_status llm__take_model(const llm__arch *a, int hf, const llm_config *c, llm__find_fn find, void *ctx,
                                  llm_weights *w, llm_layer_weights *layers, llm__aux *aux, const char **why) {
    char name[96];
    int64_t d = c->d_model, V = c->vocab, q = llm__dim(c, LLM__D_Q), kv = llm__dim(c, LLM__D_KV);
    int l, i, p1 = hf && a->hf_plus_one;
    unsigned bits = llm__arch_bits(a, c);
    llm__tsrc t;
    memset(w, 0, sizeof *w);
    memset(layers, 0, (size_t)c->n_layers * sizeof *layers);
    t = find(ctx, llm__top_tensors[hf][0]);
    LLM__MTRY(llm__take(&t, V, d, 0, &w->tok_embed, NULL, aux, why));
    t = find(ctx, llm__top_tensors[hf][1]);
    LLM__MTRY(llm__take(&t, 1, d, p1, NULL, &w->out_norm, aux, why));
    w->lm_head = w->tok_embed;
    t = find(ctx, llm__top_tensors[hf][2]);
    if (!c->tied_embeddings || t.data) LLM__MTRY(llm__take(&t, V, d, 0, &w->lm_head, NULL, aux, why));
    for (l = 0; l < c->n_layers; l++) {
        llm_layer_weights *y = &layers[l];
        for (i = 0; i < LLM__N_TROWS; i++) {
            const llm__trow *r = &llm__block_tensors[i];
            char *field = (char *)y + r->off;
            if (!llm__trow_on(bits, r) || !*(hf ? r->hf : r->gguf)) continue;
            if (hf && (r->rows == LLM__D_XFF || r->rows == LLM__D_XD)) {
                LLM__MTRY(llm__take_experts(r, l, c, find, ctx, y, aux, why));
                continue;
            }
            t = find(ctx, llm__layer_name(name, llm__layer_prefix[hf], l, hf ? r->hf : r->gguf, 0));
            if (r->rows == LLM__D_XFF || r->rows == LLM__D_XD) {
                LLM__MTRY(llm__take_stack(&t, c->n_experts, llm__dim(c, r->rows), llm__dim(c, r->cols), (llm_weight *)(void *)field,
                                          aux, why));
                continue;
            }
            if (r->rows == LLM__D_1) {
                if (hf && r->norm == 2 && t.n_dims == 2 && t.rows == 1) t.n_dims = 1; /* [1][cols] */
                LLM__MTRY(llm__take(&t, 1, llm__dim(c, r->cols), r->norm == 1 && p1, NULL, (const float **)(void *)field, aux, why));
                continue;
            }
            LLM__MTRY(llm__take(&t, llm__dim(c, r->rows), llm__dim(c, r->cols), 0, (llm_weight *)(void *)field, NULL, aux, why));
            if (r->rows == LLM__D_QKV || r->rows == LLM__D_2FF) {
                const llm_weight *f = (const llm_weight *)(void *)field;
                const llm__wfmt *fm = llm__wfmt_of(f->type);
                if (d % fm->blk)
                    LLM__FFAIL(why, llm__why_name(aux->why, 160, "tensor ", t.name.s, t.name.n, ": rows of partial blocks cannot be split"),
                               LLM_EFORMAT);
                if (r->rows == LLM__D_QKV) y->wk = llm__weight_rows(f, q, d), y->wv = llm__weight_rows(f, q + kv, d);
                else y->w3 = llm__weight_rows(f, c->d_ff, d); /* gate rows first, then up */
            }
        }
    }
    w->layers = layers;
    return LLM_OK;
}

/* A config key of either format: the llm_config field it sets and the values it may take. */
typedef struct llm__ckey {
    const char *key;
    size_t off;       /* offsetof(llm_config, ...) */
    char kind;        /* 'i': an int field, lo..hi; 'f': a float field, (lo, hi] */
    char required;
    double lo, hi;
    const char *text; /* GGUF: the range as written, for the reason; HF: the reason */
} llm__ckey;
/* v into k's field of c when it is in k's range (1), else 0 and c is unchanged */
static int llm__ckey_set(llm_config *c, const llm__ckey *k, double v) {
    if (k->kind == 'i' ? !(v >= k->lo && v <= k->hi) : !(v > k->lo && v <= k->hi)) return 0;
    if (k->kind == 'i') *(int *)(void *)((char *)c + k->off) = (int)v;
    else *(float *)(void *)((char *)c + k->off) = (float)v;
    return 1;
}

/* ---- a model from a GGUF --------------------------------------------------------------- */

/* A GGUF key, after the architecture's name and a dot; text: the range, for the reason */
#define LLM__CF(f) offsetof(llm_config, f)
static const llm__ckey llm__gguf_keys[] = {
    {"embedding_length", LLM__CF(d_model), 'i', 1, 1, 1 << 20, "1..2^20"},
    {"block_count", LLM__CF(n_layers), 'i', 1, 1, 4096, "1..4096"},
    {"attention.head_count", LLM__CF(n_heads), 'i', 1, 1, 1 << 16, "1..65536"},
    {"feed_forward_length", LLM__CF(d_ff), 'i', 1, 1, 1 << 22, "1..2^22"},
    {"context_length", LLM__CF(max_seq_len), 'i', 1, 1, INT32_MAX, "1..2^31-1"},
    {"attention.head_count_kv", LLM__CF(n_kv_heads), 'i', 0, 1, 1 << 16, "1..65536"},
    {"attention.key_length", LLM__CF(head_dim), 'i', 0, 2, 1 << 12, "2..4096"},
    {"rope.dimension_count", LLM__CF(rotary_dim), 'i', 0, 2, 1 << 12, "2..4096"},
    {"attention.sliding_window", LLM__CF(sliding_window), 'i', 0, 0, INT32_MAX, "0..2^31-1"},
    {"attention.layer_norm_rms_epsilon", LLM__CF(norm_eps), 'f', 0, 0, 1, "(0, 1]"},
    {"rope.freq_base", LLM__CF(rope_theta), 'f', 0, 0, 1e30, "(0, 1e30]"},
    {"attn_logit_softcapping", LLM__CF(attn_softcap), 'f', 0, 0, 1e30, "(0, 1e30]"},
    {"final_logit_softcapping", LLM__CF(final_softcap), 'f', 0, 0, 1e30, "(0, 1e30]"},
};

/* arch + "." + key into buf (96 bytes); NULL if it does not fit. */
static const char *llm__gguf_key(char *buf, const llm__arch *a, const char *key) {
    size_t n = strlen(a->gguf), k = strlen(key);
    if (n + k + 2 > 96) return NULL;
    memcpy(buf, a->gguf, n), buf[n] = '.', memcpy(buf + n + 1, key, k + 1);
    return buf;
}
/* "<key> " + a + b into g->why */
static const char *llm__gguf_why(llm_gguf *g, const char *key, const char *a, const char *b) {
    char tail[96];
    size_t k = 0;
    while (*a && k < 60) tail[k++] = *a++;
    while (*b && k < 95) tail[k++] = *b++;
    tail[k] = '\0';
    return llm__why_name(g->why, sizeof g->why, "", key, strlen(key), tail);
}

/* One key of the table into c: absent is fine unless required; present, it must be right
   (ignored, the model would run with a default in its place). */
static llm_status llm__gguf_read_key(llm_config *c, llm_gguf *g, const llm__arch *a, const llm__ckey *k, const char **why) {
    char name[96];
    int64_t v;
    double f;
    llm_status st;
    if (!llm__gguf_key(name, a, k->key)) LLM__FFAIL(why, "architecture name too long", LLM_EFORMAT);
    if (k->kind == 'i') {
        st = llm_gguf_get_int(g, name, &v);
        if (st == LLM_ENOTFOUND && !k->required) return LLM_OK;
        if (st != LLM_OK || !llm__ckey_set(c, k, (double)v))
            LLM__FFAIL(why, llm__gguf_why(g, name, k->required ? " is missing or out of range " : " is not an integer in ", k->text),
                       LLM_EFORMAT);
        return LLM_OK;
    }
    st = llm_gguf_get_float(g, name, &f);
    if (st == LLM_ENOTFOUND && !k->required) return LLM_OK;
    if (st != LLM_OK) LLM__FFAIL(why, llm__gguf_why(g, name, " is not a float32 or float64", ""), LLM_EFORMAT);
    if (!llm__ckey_set(c, k, f)) LLM__FFAIL(why, llm__gguf_why(g, name, " is out of range ", k->text), LLM_EFORMAT);
    return LLM_OK;
}

/* A mixture of experts' keys, after expert_count: top-k (required: llama.cpp runs none
   without it), the experts' FFN width, and the shared expert of the LLM__T_SHEXP kinds. */
static llm_status llm__gguf_moe(llm_config *c, llm_gguf *g, const llm__arch *a, const char **why) {
    char name[96];
    int64_t v;
    int shexp = (a->tensors & LLM__T_SHEXP) != 0;
    llm_status st = llm_gguf_get_int(g, llm__gguf_key(name, a, "expert_used_count"), &v);
    if (st != LLM_OK || v < 1 || v > c->n_experts)
        LLM__FFAIL(why, llm__gguf_why(g, name, " is missing or not an integer in 1..expert_count", ""), LLM_EFORMAT);
    c->n_experts_per_tok = (int)v;
    /* qwen2moe / qwen3moe: the experts are narrower than feed_forward_length (a dense FFN's) */
    st = llm_gguf_get_int(g, llm__gguf_key(name, a, "expert_feed_forward_length"), &v);
    if (st != LLM_ENOTFOUND && (st != LLM_OK || v < 1 || v > (1 << 22)))
        LLM__FFAIL(why, llm__gguf_why(g, name, " is not an integer in 1..2^22", ""), LLM_EFORMAT);
    if (st != LLM_OK) v = c->d_ff; /* Mixtral: the experts are feed_forward_length wide */
    if (shexp) {
        int64_t sff = c->d_ff; /* llama.cpp's default: feed_forward_length */
        st = llm_gguf_get_int(g, llm__gguf_key(name, a, "expert_shared_feed_forward_length"), &sff);
        if (st != LLM_ENOTFOUND && (st != LLM_OK || sff < 1 || sff > (1 << 22)))
            LLM__FFAIL(why, llm__gguf_why(g, name, " is not an integer in 1..2^22", ""), LLM_EFORMAT);
        c->n_shared_experts = 1, c->shared_gate = 1, c->d_ff_shared = (int)sff;
    }
    c->d_ff = (int)v;
    if (c->d_ff_shared == c->d_ff) c->d_ff_shared = 0;
    /* DeepSeek-style shared experts (ungated, counted), or another count than the one
       shared expert of the kinds that have it: not run */
    st = llm_gguf_get_int(g, llm__gguf_key(name, a, "expert_shared_count"), &v);
    if (st != LLM_ENOTFOUND && !(st == LLM_OK && v == (int64_t)shexp))
        LLM__FFAIL(why, llm__gguf_why(g, name, " (shared experts) is not run for this architecture", ""), LLM_EUNSUPPORTED);
    return LLM_OK;
}


/* What the forward pass does not run: refused (not_run NULL: the loaders), or, for a plan
   that needs only the shapes, the first such reason copied into not_run (160 bytes) and
   the reading goes on. */
static void llm__note(char *dst, const char *src) { /* the first note of 160 bytes sticks */
    size_t k;
    if (dst[0]) return;
    for (k = 0; src[k] && k + 1 < 160; k++) dst[k] = src[k];
    dst[k] = '\0';
}
#define LLM__NOT_RUN(text)                                                                             \
    do {                                                                                             \
        const char *llm__t = (text);                                                                 \
        if (!not_run) LLM__FFAIL(why, llm__t, LLM_EUNSUPPORTED);                                     \
        llm__note(not_run, llm__t);                                                                  \
    } while (0)

/* llm_gguf_read_config; an architecture not in llm__archs is read as `gen`, Llama's row
   under the file's name (every llama.cpp architecture writes the same shape keys). */
static llm_status llm__gguf_config(llm_config *c, llm_gguf *g, llm__arch *gen, char *not_run, const char **why) {
    static const char *const scaling[] = {"rope.scale_linear", "rope.scaling.factor", "rope.scaling.attn_factor"};
    llm_gguf_str s;
    const llm__arch *a;
    char name[96];
    int64_t v, vocab_key = 0;
    int i, hd;
    llm_status st;
    const llm_gguf_tensor *emb;
    const char *reason;
    if (why) *why = "";
    if (!c || !g || !g->kv) LLM__FFAIL(why, "no config or GGUF", LLM_EINVAL);
    *c = llm_config_default();
    c->name = "gguf";
    if (llm_gguf_get_str(g, "general.architecture", &s) != LLM_OK)
        LLM__FFAIL(why, "general.architecture is missing or not a string", LLM_EFORMAT);
    if (!(a = llm__arch_find(s.s, s.n, 0))) {
        llm__why_name(g->why, sizeof g->why, "architecture '", s.s, s.n, "' is not run yet (llama, qwen2, qwen3, gemma, gemma2, phi3, qwen2moe and qwen3moe are)");
        LLM__NOT_RUN(g->why);
        a = gen; /* the caller named it after general.architecture */
    }
    llm__arch_config(c, a);
    for (i = 0; i < (int)(sizeof llm__gguf_keys / sizeof llm__gguf_keys[0]); i++)
        LLM__MTRY(llm__gguf_read_key(c, g, a, &llm__gguf_keys[i], why));
    if (!c->n_kv_heads) c->n_kv_heads = c->n_heads;
    /* values of another width than keys' (value_length) would need their own head size */
    st = llm_gguf_get_int(g, llm__gguf_key(name, a, "attention.value_length"), &v);
    if (st != LLM_ENOTFOUND && (st != LLM_OK || v != llm_config_head_dim(c)))
        LLM__NOT_RUN(llm__gguf_why(g, name, " differs from the key length: not run", ""));
    st = llm_gguf_get_int(g, llm__gguf_key(name, a, "expert_count"), &v);
    if (st != LLM_ENOTFOUND && (st != LLM_OK || v < 0 || v > (1 << 16)))
        LLM__FFAIL(why, llm__gguf_why(g, name, " is not an integer in 0..65536", ""), LLM_EFORMAT);
    if (st == LLM_OK && v > 0) c->n_experts = (int)v;
    else if (a->tensors & LLM__T_MOE) LLM__FFAIL(why, llm__gguf_why(g, name, " is missing: a mixture of experts needs it", ""), LLM_EFORMAT);
    if (c->n_experts > 0) LLM__MTRY(llm__gguf_moe(c, g, a, why));
    st = llm_gguf_get_int(g, llm__gguf_key(name, a, "vocab_size"), &v);
    if (st != LLM_ENOTFOUND && (st != LLM_OK || v < 1 || v > (1 << 24)))
        LLM__FFAIL(why, llm__gguf_why(g, name, " is not an integer in 1..2^24", ""), LLM_EFORMAT);
    if (st == LLM_OK) vocab_key = v;
    /* RoPE scalings (linear, YaRN, LongRoPE's factors) change every angle: refused by name */
    if (llm_gguf_find_tensor(g, "rope_factors_long.weight"))
        LLM__NOT_RUN("LongRoPE (rope_factors_long.weight: Phi-3's long-context RoPE) is not run");
    st = llm_gguf_get_str(g, llm__gguf_key(name, a, "rope.scaling.type"), &s);
    if (st != LLM_ENOTFOUND && !(st == LLM_OK && s.n == 4 && memcmp(s.s, "none", 4) == 0))
        LLM__NOT_RUN(llm__gguf_why(g, name, " (RoPE scaling) is not applied yet", ""));
    for (i = 0; i < 3; i++)
        if (llm_gguf_find_key(g, llm__gguf_key(name, a, scaling[i])) >= 0)
            LLM__NOT_RUN(llm__gguf_why(g, name, " (RoPE scaling) is not applied yet", ""));
    if (!c->sliding_window) c->window_pattern = 0; /* Gemma 2 without its window */
    c->rope_layout = a->gguf_rope;
    hd = llm_config_head_dim(c);
    if (c->rotary_dim == hd) c->rotary_dim = 0;
    if (a->embed_sqrt_d) c->embed_scale = LLM_SQRTF((float)c->d_model);
    /* llama.cpp's rule for Gemma 2 (from gemma_pytorch's config): the 27B model (46 layers)
       scales queries by 1/sqrt(d_model / n_heads), the others by 1/sqrt(head_dim) */
    if (strcmp(a->gguf, "gemma2") == 0 && c->n_layers == 46) {
        int qpa = c->d_model / c->n_heads; /* an integer: gemma_pytorch's query_pre_attn_scalar */
        c->attn_scale = 1.0f / LLM_SQRTF((float)qpa);
    }
    /* the vocabulary is the embedding's row count */
    emb = llm_gguf_find_tensor(g, "token_embd.weight");
    if (!emb || emb->n_dims != 2 || emb->ne[1] > (1 << 24)) LLM__FFAIL(why, "token_embd.weight is missing or not [vocab][d]", LLM_EFORMAT);
    c->vocab = (int)emb->ne[1];
    if (vocab_key && vocab_key != c->vocab) LLM__FFAIL(why, "vocab_size differs from token_embd.weight's rows", LLM_EFORMAT);
    c->tied_embeddings = llm_gguf_find_tensor(g, "output.weight") == NULL;
    if (llm_config_check(c, &reason) != LLM_OK) LLM__FFAIL(why, reason, LLM_EFORMAT);
    return LLM_OK;
}
LLMDEF llm_status llm_gguf_read_config(llm_config *c, llm_gguf *g, const char **why) {
    return llm__gguf_config(c, g, NULL, NULL, why);
}

/* A GGUF tensor as llm__take sees it: ne = {cols, rows}; the matrix types are F32, F16,
   BF16 and the ggml block formats with a dot kernel; every tensor 4-byte aligned. */
static llm__tsrc llm__gguf_src(void *ctx, const char *name) {
    const llm_gguf_tensor *t = llm_gguf_find_tensor((const llm_gguf *)ctx, name);
    const llm__wfmt *f;
    llm__tsrc s;
    memset(&s, 0, sizeof s);
    s.name.s = name, s.name.n = strlen(name), s.type = -1, s.align = 4;
    if (!t) return s;
    s.n_dims = t->ne[2] != 1 || t->ne[3] != 1 ? 3 : t->n_dims == 1 ? 1 : 2;
    s.cols = t->ne[0], s.rows = t->ne[1];
    s.stack = t->ne[3] == 1 ? t->ne[2] : 0;
    s.bytes = t->bytes;
    s.data = t->data;
    s.type_name = llm_gguf_type_name(t->type);
    f = llm__wfmt_ggml(t->type); /* the weight-format table's row: element formats any shape, blocks 2-D or stacked (experts) */
    if (f && (f->blk == 1 || (s.n_dims >= 2 && f->qdot))) s.type = (int)(f - llm__wfmts);
    return s;
}

LLMDEF llm_status llm_gguf_load(llm_model *m, llm_gguf *g, llm_layer_weights *layers, int n_layers_cap,
                                const char **why) {
    llm_config c;
    llm_weights w;
    llm__aux aux;
    const llm__arch *a;
    llm_gguf_str s;
    int64_t i;
    llm_status st;
    const char *reason;
    if (why) *why = "";
    if (!m || !g || !layers) LLM__FFAIL(why, "no model, GGUF or layer table", LLM_EINVAL);
    LLM__MTRY(llm_gguf_read_config(&c, g, why));
    st = llm_config_runnable(&c, &reason);
    if (st != LLM_OK) LLM__FFAIL(why, reason, st);
    if (c.n_layers > n_layers_cap) LLM__FFAIL(why, "layer table too small for n_layers", LLM_EINVAL);
    if (!llm__little_endian()) LLM__FFAIL(why, "big-endian host: GGUF weights are little-endian", LLM_EUNSUPPORTED);
    llm_gguf_get_str(g, "general.architecture", &s);
    a = llm__arch_find(s.s, s.n, 0);
    aux.convert = 0, aux.p = aux.end = NULL, aux.xt = NULL, aux.why = g->why; /* GGUF vectors are F32, used in place */
    LLM__MTRY(llm__take_model(a, 0, &c, llm__gguf_src, g, &w, layers, &aux, why));
    /* every tensor of the file is used: one the forward pass would skip (rope_freqs,
       LongRoPE's factors, a bias) means the model is not what llm.h would run */
    for (i = 0; i < g->n_tensors; i++)
        if (!llm__arch_uses(llm__arch_bits(a, &c), 0, &c, g->tensors[i].name.s, g->tensors[i].name.n))
            LLM__GFAIL_NAME(g, "tensor ", g->tensors[i].name, " is not used by the forward pass (refused, not ignored)",
                            LLM_EUNSUPPORTED);
    return llm__model_set(m, &c, &w, layers, (int)g->version);
}
#undef LLM__CF

/* ---- JSON ------------------------------------------------------------------------------- */

#define LLM__JSON_DEPTH 64
typedef struct llm__jp {
    const unsigned char *s;
    size_t len, pos, n, cap;
    llm_json_tok *t;
} llm__jp;

static void llm__jp_ws(llm__jp *p) {
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}
static size_t llm__jp_emit(llm__jp *p, llm_json_type type, size_t start, size_t end) {
    if (p->n < p->cap) {
        llm_json_tok *t = &p->t[p->n];
        t->type = type, t->start = (uint32_t)start, t->len = (uint32_t)(end - start), t->n = 0;
        t->next = (uint32_t)(p->n + 1);
    }
    return p->n++;
}
/* The code point of \uXXXX at s (after the backslash-u), or -1. */
static long llm__json_u4(const unsigned char *s) {
    int a = llm__hexval((char)s[0]), b = llm__hexval((char)s[1]), c = llm__hexval((char)s[2]), d = llm__hexval((char)s[3]);
    return a < 0 || b < 0 || c < 0 || d < 0 ? -1 : (long)((a << 12) | (b << 8) | (c << 4) | d);
}
/* Length of the UTF-8 sequence at s (n bytes left), 0 if invalid: no overlong forms, no
   surrogates, nothing above U+10FFFF (RFC 3629). */
static int llm__utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80) return 0;
        if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)) return 0; /* overlong; surrogates */
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80) return 0;
        if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)) return 0;
        return 4;
    }
    return 0;
}

/* A string at p->pos (on its opening quote): checked, emitted without its quotes. */
static const char *llm__jp_string(llm__jp *p) {
    size_t start = ++p->pos;
    while (p->pos < p->len) {
        unsigned c = p->s[p->pos];
        if (c == '"') {
            llm__jp_emit(p, LLM_JSON_STRING, start, p->pos);
            p->pos++;
            return NULL;
        }
        if (c < 0x20) return "raw control character in a string";
        if (c == '\\') {
            unsigned e;
            if (p->pos + 1 >= p->len) break;
            e = p->s[p->pos + 1];
            if (e == 'u') {
                long u;
                if (p->len - p->pos < 6 || (u = llm__json_u4(p->s + p->pos + 2)) < 0) return "bad \\u escape";
                p->pos += 6;
                if (u >= 0xdc00 && u <= 0xdfff) return "lone low surrogate in a \\u escape";
                if (u >= 0xd800 && u <= 0xdbff) { /* a high surrogate needs its low half next */
                    long lo;
                    if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
                        (lo = llm__json_u4(p->s + p->pos + 2)) < 0xdc00 || lo > 0xdfff)
                        return "high surrogate without its low surrogate";
                    p->pos += 6;
                }
                continue;
            }
            if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                return "unknown escape in a string";
            p->pos += 2;
            continue;
        }
        if (c >= 0x80) {
            int k = llm__utf8_len(p->s + p->pos, p->len - p->pos);
            if (!k) return "invalid UTF-8 in a string";
            p->pos += (size_t)k;
            continue;
        }
        p->pos++;
    }
    return "text ends inside a string";
}

/* A number at p->pos, by RFC 8259's grammar: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static const char *llm__jp_number(llm__jp *p) {
    size_t start = p->pos, d;
    const unsigned char *s = p->s;
#define LLM__JDIGIT(i) ((i) < p->len && s[i] >= '0' && s[i] <= '9')
    if (p->pos < p->len && s[p->pos] == '-') p->pos++;
    if (!LLM__JDIGIT(p->pos)) return "a number needs a digit";
    if (s[p->pos] == '0') p->pos++;
    else
        while (LLM__JDIGIT(p->pos)) p->pos++;
    if (p->pos < p->len && s[p->pos] == '.') {
        d = ++p->pos;
        while (LLM__JDIGIT(p->pos)) p->pos++;
        if (p->pos == d) return "a number's fraction needs a digit";
    }
    if (p->pos < p->len && (s[p->pos] == 'e' || s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (s[p->pos] == '+' || s[p->pos] == '-')) p->pos++;
        d = p->pos;
        while (LLM__JDIGIT(p->pos)) p->pos++;
        if (p->pos == d) return "a number's exponent needs a digit";
    }
#undef LLM__JDIGIT
    llm__jp_emit(p, LLM_JSON_NUMBER, start, p->pos);
    return NULL;
}

/* One value of any kind at p->pos; containers are opened here and closed by the caller. */
static const char *llm__jp_scalar(llm__jp *p) {
    static const char *const lit[3] = {"null", "false", "true"};
    int i;
    unsigned c = p->s[p->pos];
    if (c == '"') return llm__jp_string(p);
    if (c == '-' || (c >= '0' && c <= '9')) return llm__jp_number(p);
    for (i = 0; i < 3; i++) {
        size_t k = strlen(lit[i]);
        if (p->len - p->pos >= k && memcmp(p->s + p->pos, lit[i], k) == 0) {
            llm__jp_emit(p, (llm_json_type)(LLM_JSON_NULL + i), p->pos, p->pos + k);
            p->pos += k;
            return NULL;
        }
    }
    return "unexpected character where a value should be";
}

static void llm__jp_close(llm__jp *p, size_t idx, uint32_t count) {
    if (idx < p->cap) {
        p->t[idx].len = (uint32_t)(p->pos - p->t[idx].start);
        p->t[idx].n = count;
        p->t[idx].next = (uint32_t)p->n;
    }
}

/* An object member's key and its ':', white space allowed before each. */
static const char *llm__jp_key(llm__jp *p, const char *not_a_string) {
    const char *e;
    llm__jp_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != '"') return not_a_string;
    if ((e = llm__jp_string(p)) != NULL) return e;
    llm__jp_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != ':') return "expected ':' after an object's key";
    p->pos++;
    return NULL;
}

/* Iterative, with an explicit stack of open containers: no recursion on hostile nesting. */
static const char *llm__jp_run(llm__jp *p) {
    size_t stack[LLM__JSON_DEPTH];
    uint32_t count[LLM__JSON_DEPTH];
    unsigned char is_obj[LLM__JSON_DEPTH];
    int depth = 0, obj;
    const char *e;
    for (;;) {
        /* a value */
        llm__jp_ws(p);
        if (p->pos >= p->len) return "text ends where a value should be";
        if (p->s[p->pos] == '{' || p->s[p->pos] == '[') {
            obj = p->s[p->pos] == '{';
            if (depth == LLM__JSON_DEPTH) return "nested deeper than 64";
            stack[depth] = llm__jp_emit(p, obj ? LLM_JSON_OBJECT : LLM_JSON_ARRAY, p->pos, p->pos);
            is_obj[depth] = (unsigned char)obj;
            count[depth++] = 0;
            p->pos++;
            llm__jp_ws(p);
            if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
                p->pos++;
                llm__jp_close(p, stack[--depth], 0);
            } else {
                if (obj && (e = llm__jp_key(p, "an object's key must be a string")) != NULL) return e;
                continue;
            }
        } else if ((e = llm__jp_scalar(p)) != NULL) {
            return e;
        }
        /* after a value: the containers it ends, or the next member */
        for (;;) {
            llm__jp_ws(p);
            if (depth == 0) return p->pos == p->len ? NULL : "text after the JSON value";
            obj = is_obj[depth - 1];
            count[depth - 1]++;
            if (p->pos < p->len && p->s[p->pos] == ',') {
                p->pos++;
                if (obj && (e = llm__jp_key(p, "an object's key must be a string (no trailing comma)")) != NULL) return e;
                break;
            }
            if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
                p->pos++;
                depth--;
                llm__jp_close(p, stack[depth], count[depth]);
                continue;
            }
            return obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array";
        }
    }
}

LLMDEF llm_status llm_json_parse(const char *text, size_t len, llm_json_tok *toks, size_t cap, size_t *n_toks,
                                 const char **why) {
    llm__jp p;
    const char *e;
    if (why) *why = "";
    if (n_toks) *n_toks = 0;
    if (!text || (!toks && cap)) LLM__FFAIL(why, "no text or token array", LLM_EINVAL);
    if (len >= 0xffffffffu) LLM__FFAIL(why, "JSON text of 4 GiB or more", LLM_EFORMAT);
    p.s = (const unsigned char *)text, p.len = len, p.pos = 0, p.n = 0, p.cap = cap, p.t = toks;
    e = llm__jp_run(&p);
    if (e) LLM__FFAIL(why, e, LLM_EFORMAT);
    if (n_toks) *n_toks = p.n;
    if (p.n > cap) LLM__FFAIL(why, "more tokens than the array holds (*n_toks says how many)", LLM_ERANGE);
    return LLM_OK;
}

/* Decodes string token t: decoded bytes skip .. skip + cap - 1 go to out (NULL to only
   measure); returns the decoded length. */
static size_t llm__json_unescape(const char *text, const llm_json_tok *t, char *out, size_t cap, size_t skip) {
    const unsigned char *s = (const unsigned char *)text + t->start, *end = s + t->len;
    size_t k = 0;
    while (s < end) {
        unsigned long u;
        unsigned char tmp[4];
        int n, i;
        if (*s != '\\') {
            if (out && k >= skip && k - skip < cap) out[k - skip] = (char)*s;
            k++, s++;
            continue;
        }
        switch (s[1]) {
        case 'b': u = 8; break;
        case 'f': u = 12; break;
        case 'n': u = 10; break;
        case 'r': u = 13; break;
        case 't': u = 9; break;
        case 'u':
            u = (unsigned long)llm__json_u4(s + 2);
            if (u >= 0xd800 && u <= 0xdbff) { /* llm_json_parse checked the pair */
                u = 0x10000 + ((u - 0xd800) << 10) + ((unsigned long)llm__json_u4(s + 8) - 0xdc00);
                s += 6;
            }
            s += 4;
            break;
        default: u = s[1]; break; /* " \\ / */
        }
        s += 2;
        if (u < 0x80) tmp[0] = (unsigned char)u, n = 1;
        else if (u < 0x800) tmp[0] = (unsigned char)(0xc0 | (u >> 6)), tmp[1] = (unsigned char)(0x80 | (u & 63)), n = 2;
        else if (u < 0x10000)
            tmp[0] = (unsigned char)(0xe0 | (u >> 12)), tmp[1] = (unsigned char)(0x80 | ((u >> 6) & 63)),
            tmp[2] = (unsigned char)(0x80 | (u & 63)), n = 3;
        else
            tmp[0] = (unsigned char)(0xf0 | (u >> 18)), tmp[1] = (unsigned char)(0x80 | ((u >> 12) & 63)),
            tmp[2] = (unsigned char)(0x80 | ((u >> 6) & 63)), tmp[3] = (unsigned char)(0x80 | (u & 63)), n = 4;
        for (i = 0; i < n; i++, k++)
            if (out && k >= skip && k - skip < cap) out[k - skip] = (char)tmp[i];
    }
    return k;
}

LLMDEF llm_status llm_json_str(const char *text, const llm_json_tok *t, char *out, size_t cap, size_t *out_len) {
    size_t n;
    if (!text || !t || (!out && cap)) return LLM_EINVAL;
    if (t->type != LLM_JSON_STRING) return LLM_EFORMAT;
    n = llm__json_unescape(text, t, NULL, 0, 0);
    if (out_len) *out_len = n;
    if (n + 1 > cap) return LLM_ERANGE;
    llm__json_unescape(text, t, out, cap, 0);
    out[n] = '\0';
    return LLM_OK;
}

LLMDEF int llm_json_eq(const char *text, const llm_json_tok *t, const char *s) {
    char buf[256];
    size_t n, k;
    if (!text || !t || !s || t->type != LLM_JSON_STRING) return 0;
    k = strlen(s);
    if (!memchr(text + t->start, '\\', t->len)) return t->len == k && memcmp(text + t->start, s, k) == 0;
    n = llm__json_unescape(text, t, NULL, 0, 0);
    if (n != k) return 0;
    for (k = 0; k < n; k += sizeof buf) { /* a window of the decoded text at a time */
        size_t w = n - k < sizeof buf ? n - k : sizeof buf;
        llm__json_unescape(text, t, buf, sizeof buf, k);
        if (memcmp(buf, s + k, w) != 0) return 0;
    }
    return 1;
}

LLMDEF int64_t llm_json_find(const char *text, const llm_json_tok *toks, size_t n_toks, size_t obj, const char *key) {
    size_t i, m;
    if (!text || !toks || !key || obj >= n_toks || toks[obj].type != LLM_JSON_OBJECT) return -1;
    for (i = obj + 1, m = 0; m < toks[obj].n && i + 1 < n_toks; m++, i = toks[i + 1].next)
        if (llm_json_eq(text, &toks[i], key)) return (int64_t)(i + 1);
    return -1;
}

LLMDEF int64_t llm_json_at(const llm_json_tok *toks, size_t n_toks, size_t arr, uint32_t idx) {
    size_t i;
    uint32_t k;
    if (!toks || arr >= n_toks || toks[arr].type != LLM_JSON_ARRAY || idx >= toks[arr].n) return -1;
    for (i = arr + 1, k = 0; k < idx && i < n_toks; k++) i = toks[i].next;
    return i < n_toks ? (int64_t)i : -1;
}

/* Decimal to double: the digits as an integer and a power of ten. When the digits fit in
   2^53 and |power| <= 22 the result is one correctly rounded multiply or divide of exact
   doubles (Clinger's fast path): every value a config file holds, 15 significant digits
   or fewer; beyond that it is within a few ulps (tests/test_json.c measures 2). */
LLMDEF llm_status llm_json_num(const char *text, const llm_json_tok *t, double *out) {
    const unsigned char *s, *end;
    uint64_t mant = 0;
    int neg = 0, e10 = 0, digits = 0, eneg = 0;
    long ex = 0;
    double v;
    if (!text || !t || !out) return LLM_EINVAL;
    if (t->type != LLM_JSON_NUMBER) return LLM_EFORMAT;
    s = (const unsigned char *)text + t->start, end = s + t->len;
    if (*s == '-') neg = 1, s++;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (digits < 19) mant = mant * 10 + (uint64_t)(*s - '0'), digits += mant > 0;
        else e10++;
    }
    if (s < end && *s == '.')
        for (s++; s < end && *s >= '0' && *s <= '9'; s++)
            if (digits < 19) mant = mant * 10 + (uint64_t)(*s - '0'), digits += mant > 0, e10--;
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        if (*s == '+' || *s == '-') eneg = *s++ == '-';
        for (; s < end && *s >= '0' && *s <= '9'; s++)
            if (ex < 100000) ex = ex * 10 + (*s - '0');
    }
    ex = eneg ? -ex : ex;
    ex += e10;
    /* "2.50" is 25e-1 and "1.000...0" 1: trailing zeros off while that brings the power
       toward 0 or the digits under 2^53, so more numbers take the exact path */
    while (mant != 0 && mant % 10 == 0 && (ex < 0 || mant >= ((uint64_t)1 << 53))) mant /= 10, ex++;
    if (mant != 0 && ex > 330) return LLM_ERANGE;
    if (mant == 0 || ex < -360) v = 0.0;
    else if (mant < ((uint64_t)1 << 53) && ex >= -22 && ex <= 22) {
        double p = 1.0;
        int i, a = ex < 0 ? (int)-ex : (int)ex;
        for (i = 0; i < a; i++) p *= 10.0; /* exact up to 1e22 */
        v = ex < 0 ? (double)mant / p : (double)mant * p;
    } else {
        /* one power when it is a normal double; else two factors, so 10^ex itself never
           underflows before the product */
        if (ex >= -300) v = (double)mant * LLM_POW(10.0, (double)ex);
        else {
            long half = ex / 2;
            v = (double)mant * LLM_POW(10.0, (double)half) * LLM_POW(10.0, (double)(ex - half));
        }
    }
    if (v > DBL_MAX) return LLM_ERANGE;
    *out = neg ? -v : v;
    return LLM_OK;
}

LLMDEF llm_status llm_json_int(const char *text, const llm_json_tok *t, int64_t *out) {
    const unsigned char *s, *end;
    uint64_t u = 0;
    int neg = 0;
    if (!text || !t || !out) return LLM_EINVAL;
    if (t->type != LLM_JSON_NUMBER) return LLM_EFORMAT;
    s = (const unsigned char *)text + t->start, end = s + t->len;
    if (memchr(s, '.', t->len) || memchr(s, 'e', t->len) || memchr(s, 'E', t->len)) {
        double d;
        LLM__MTRY(llm_json_num(text, t, &d));
        if (d < -9007199254740992.0 || d > 9007199254740992.0 || (double)(int64_t)d != d) return LLM_ERANGE;
        *out = (int64_t)d;
        return LLM_OK;
    }
    if (*s == '-') neg = 1, s++;
    for (; s < end; s++) {
        if (u > (UINT64_MAX - 9) / 10) return LLM_ERANGE;
        u = u * 10 + (uint64_t)(*s - '0');
    }
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg) return LLM_ERANGE;
    *out = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
    return LLM_OK;
}

/* ---- safetensors ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    int bytes;
} llm__st_dtypes[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2},
                      {"I8", 1},  {"U8", 1},  {"BOOL", 1}, {"U16", 2}, {"U32", 4}, {"U64", 8}, {"F8_E4M3", 1},
                      {"F8_E5M2", 1}};

/* Bytes of n JSON tokens, rounded up to 8 so the tensor table after them is aligned. */
#define LLM__ST_TOKS(n) (((n) * sizeof(llm_json_tok) + 7u) & ~(size_t)7u)

/* The header: its length and where its JSON is, checked against the file (file_len
   bytes) and the buffer (its first len bytes). */
static llm_status llm__st_header(const unsigned char *p, size_t len, uint64_t file_len, uint64_t *n, const char **why) {
    if (!p) LLM__FFAIL(why, "no buffer", LLM_EINVAL);
    if (len < 8) LLM__FFAIL(why, "file shorter than the 8-byte safetensors header length", LLM_EFORMAT);
    *n = llm__le64(p);
    if (*n < 2 || *n > file_len - 8) LLM__FFAIL(why, "safetensors header length past the end of the file", LLM_EFORMAT);
    if (*n > len - 8) LLM__FFAIL(why, "safetensors header longer than the bytes given", LLM_ERANGE);
    if (p[8] != '{') LLM__FFAIL(why, "safetensors header is not a JSON object", LLM_EFORMAT);
    return LLM_OK;
}

LLMDEF size_t llm_safetensors_bytes(const void *buf, size_t len) {
    uint64_t n;
    size_t nt = 0;
    if (llm__st_header((const unsigned char *)buf, len, len, &n, NULL) != LLM_OK) return 0;
    if (llm_json_parse((const char *)buf + 8, (size_t)n, NULL, 0, &nt, NULL) != LLM_ERANGE && nt == 0) return 0;
    if (nt == 0) return 0;
    /* every tensor is a member of the top object, so tokens bound the tensors */
    return LLM__ST_TOKS(nt) + nt * (sizeof(llm_st_tensor) + sizeof(int64_t));
}

/* buf: the first len bytes of a file of file_len (llm_safetensors_init: all of it); the
   tensors' data need only be in the file (data NULL for one past buf). */
static llm_status llm__st_parse(llm_safetensors *st, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                uint64_t file_len, const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    const char *text;
    uint64_t n;
    size_t nt = 0, i, m, cap;
    llm_status e;
    LLM__MTRY(llm__reader_begin(st, sizeof *st, "no llm_safetensors", why));
    LLM__MTRY(llm__st_header(p, len, file_len, &n, why));
    text = (const char *)p + 8; /* after the check: p may be NULL */
    e = llm_json_parse(text, (size_t)n, NULL, 0, &nt, why);
    if (e != LLM_ERANGE && e != LLM_OK) return e;
    if (!mem || ((uintptr_t)mem & 7u) || mem_bytes < LLM__ST_TOKS(nt) + nt * (sizeof(llm_st_tensor) + sizeof(int64_t)))
        LLM__FFAIL(why, "table memory missing, misaligned or smaller than llm_safetensors_bytes", LLM_EINVAL);
    st->toks = (llm_json_tok *)mem;
    st->tensors = (llm_st_tensor *)(void *)((char *)mem + LLM__ST_TOKS(nt));
    st->order = (int64_t *)(void *)(st->tensors + nt);
    LLM__MTRY(llm_json_parse(text, (size_t)n, st->toks, nt, &st->n_toks, why));
    st->buf = p, st->len = len, st->data_offset = 8 + n;
    cap = nt;
    if (st->toks[0].type != LLM_JSON_OBJECT) LLM__FFAIL(why, "safetensors header is not a JSON object", LLM_EFORMAT);
    for (i = 1, m = 0; m < st->toks[0].n; m++, i = st->toks[i + 1].next) {
        const llm_json_tok *key = &st->toks[i], *v = &st->toks[i + 1];
        int64_t dt, sh, off, b, e2;
        llm_st_tensor *t;
        llm_gguf_str name;
        uint64_t elems = 1, begin, end;
        size_t k;
        name.s = text + key->start, name.n = key->len;
        if (llm_json_eq(text, key, "__metadata__")) continue;
        if ((size_t)st->n_tensors >= cap) LLM__FFAIL(why, "more tensors than tokens (impossible)", LLM_EFORMAT);
        t = &st->tensors[st->n_tensors++];
        memset(t, 0, sizeof *t);
        t->name = name;
        if (memchr(name.s, '\\', name.n)) LLM__GFAIL_NAME(st, "tensor name ", name, " has an escape (not read)", LLM_EFORMAT);
        if (v->type != LLM_JSON_OBJECT) LLM__GFAIL_NAME(st, "tensor ", name, ": entry is not an object", LLM_EFORMAT);
        dt = llm_json_find(text, st->toks, st->n_toks, i + 1, "dtype");
        sh = llm_json_find(text, st->toks, st->n_toks, i + 1, "shape");
        off = llm_json_find(text, st->toks, st->n_toks, i + 1, "data_offsets");
        if (dt < 0 || st->toks[dt].type != LLM_JSON_STRING) LLM__GFAIL_NAME(st, "tensor ", name, ": no dtype string", LLM_EFORMAT);
        if (sh < 0 || st->toks[sh].type != LLM_JSON_ARRAY) LLM__GFAIL_NAME(st, "tensor ", name, ": no shape array", LLM_EFORMAT);
        if (off < 0 || st->toks[off].type != LLM_JSON_ARRAY || st->toks[off].n != 2)
            LLM__GFAIL_NAME(st, "tensor ", name, ": data_offsets is not [begin, end]", LLM_EFORMAT);
        t->dtype.s = text + st->toks[dt].start, t->dtype.n = st->toks[dt].len;
        for (k = 0; k < sizeof llm__st_dtypes / sizeof llm__st_dtypes[0]; k++)
            if (llm_json_eq(text, &st->toks[dt], llm__st_dtypes[k].name)) t->elem_bytes = llm__st_dtypes[k].bytes;
        if (!t->elem_bytes) LLM__GFAIL_NAME(st, "tensor ", name, ": unknown dtype", LLM_EFORMAT);
        if (st->toks[sh].n > 4) LLM__GFAIL_NAME(st, "tensor ", name, ": more than 4 dimensions", LLM_EUNSUPPORTED);
        t->n_dims = (int)st->toks[sh].n;
        for (k = 0; k < 4; k++) t->shape[k] = 1;
        for (k = 0; k < (size_t)t->n_dims; k++) {
            int64_t dim;
            int64_t at = llm_json_at(st->toks, st->n_toks, (size_t)sh, (uint32_t)k);
            if (at < 0 || llm_json_int(text, &st->toks[at], &dim) != LLM_OK || dim < 0)
                LLM__GFAIL_NAME(st, "tensor ", name, ": a dimension is not a non-negative integer", LLM_EFORMAT);
            if (dim && elems > UINT64_MAX / 16 / (uint64_t)dim) LLM__GFAIL_NAME(st, "tensor ", name, ": its shape's product overflows", LLM_EFORMAT);
            elems *= (uint64_t)dim;
            t->shape[k] = dim;
        }
        b = llm_json_at(st->toks, st->n_toks, (size_t)off, 0), e2 = llm_json_at(st->toks, st->n_toks, (size_t)off, 1);
        {
            int64_t bb, ee;
            if (b < 0 || e2 < 0 || llm_json_int(text, &st->toks[b], &bb) != LLM_OK || llm_json_int(text, &st->toks[e2], &ee) != LLM_OK ||
                bb < 0 || ee < bb)
                LLM__GFAIL_NAME(st, "tensor ", name, ": data_offsets are not 0 <= begin <= end", LLM_EFORMAT);
            begin = (uint64_t)bb, end = (uint64_t)ee;
        }
        t->bytes = elems * (uint64_t)t->elem_bytes;
        if (end - begin != t->bytes) LLM__GFAIL_NAME(st, "tensor ", name, ": data_offsets do not match dtype x shape", LLM_EFORMAT);
        if (end > file_len - st->data_offset) LLM__GFAIL_NAME(st, "tensor ", name, ": data runs past the end of the file", LLM_EFORMAT);
        t->data = st->data_offset + end <= len ? p + st->data_offset + begin : NULL;
    }
    return llm__names_unique(st->order, st->n_tensors, &st->tensors[0].name, sizeof *st->tensors, "tensor name ", st->why,
                             sizeof st->why, why);
}

/* As llm_gguf_init: an error leaves no table behind, and the reason in st->why. */
LLMDEF llm_status llm_safetensors_init(llm_safetensors *st, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                       const char **why) {
    llm_status e = llm__st_parse(st, mem, mem_bytes, buf, len, len, why);
    if (e != LLM_OK && st) st->toks = NULL, st->tensors = NULL, st->order = NULL, st->n_tensors = 0, st->n_toks = 0;
    return e;
}
static llm_status llm__st_init_any(void *st, void *mem, size_t mem_bytes, const void *buf, size_t len, const char **why) {
    return llm_safetensors_init((llm_safetensors *)st, mem, mem_bytes, buf, len, why);
}

LLMDEF llm_status llm_safetensors_create(llm_safetensors *st, const void *buf, size_t len, const char **why) {
    return llm__file_create(st, sizeof *st, st ? &st->owned : NULL, llm_safetensors_bytes(buf, len), llm__st_init_any, buf,
                            len, why);
}

LLMDEF void llm_safetensors_free(llm_safetensors *st) {
    if (st) llm__destroy(st, sizeof *st, st->owned);
}

LLMDEF const llm_st_tensor *llm_safetensors_find(const llm_safetensors *st, const char *name) {
    int64_t i;
    if (!st || !name || !st->tensors || !st->order || st->n_tensors <= 0) return NULL;
    i = llm__name_find(st->order, st->n_tensors, &st->tensors[0].name, sizeof *st->tensors, name);
    return i < 0 ? NULL : &st->tensors[i];
}

/* ---- a model from config.json + safetensors ---------------------------------------------- */

#define LLM__HF_TOKS 4096 /* tokens of a config.json: Llama's has ~60, multimodal ones ~2,000 */
#define LLM__XT_ALIGN 8u  /* the experts' table of llm_weight in aux: pointers' alignment */

/* config.json's keys (of the object the table is read from); text: the reason */
#define LLM__CF(f) offsetof(llm_config, f)
#define LLM__HK(key, f, kind, req, lo, hi) {key, LLM__CF(f), kind, req, lo, hi, "config.json: " key " is missing or out of range"}
static const llm__ckey llm__hf_keys[] = {
    LLM__HK("hidden_size", d_model, 'i', 1, 1, 1 << 20),
    LLM__HK("num_hidden_layers", n_layers, 'i', 1, 1, 4096),
    LLM__HK("num_attention_heads", n_heads, 'i', 1, 1, 1 << 16),
    LLM__HK("intermediate_size", d_ff, 'i', 1, 1, 1 << 22),
    LLM__HK("vocab_size", vocab, 'i', 1, 1, 1 << 24),
    LLM__HK("max_position_embeddings", max_seq_len, 'i', 1, 1, INT32_MAX),
    LLM__HK("num_key_value_heads", n_kv_heads, 'i', 0, 1, 1 << 16),
    LLM__HK("head_dim", head_dim, 'i', 0, 1, 1 << 12),
    LLM__HK("rms_norm_eps", norm_eps, 'f', 0, 0, 1),
    LLM__HK("rope_theta", rope_theta, 'f', 0, 0, 1e30),
    LLM__HK("attn_logit_softcapping", attn_softcap, 'f', 0, 0, 1e30),
    LLM__HK("final_logit_softcapping", final_softcap, 'f', 0, 0, 1e30),
};
/* rope_scaling of rope_type "llama3" (Llama 3.1 / 3.2) */
static const llm__ckey llm__hf_llama3_keys[] = {
    {"factor", LLM__CF(rope_scale), 'f', 1, 0, 1e9, "config.json: rope_scaling.factor missing or out of range"},
    {"low_freq_factor", LLM__CF(rope_low_freq_factor), 'f', 1, 0, 1e9, "config.json: rope_scaling.low_freq_factor missing or out of range"},
    {"high_freq_factor", LLM__CF(rope_high_freq_factor), 'f', 1, 0, 1e9, "config.json: rope_scaling.high_freq_factor missing or out of range"},
    {"original_max_position_embeddings", LLM__CF(rope_orig_ctx), 'i', 1, 1, 1e9,
     "config.json: rope_scaling.original_max_position_embeddings missing or out of range"},
};
/* a mixture of experts' (after num_experts): top-k; Qwen's experts' width; Qwen2-MoE's shared expert */
static const llm__ckey llm__hf_moe_keys[] = {
    LLM__HK("num_experts_per_tok", n_experts_per_tok, 'i', 1, 1, 1 << 16),
    LLM__HK("moe_intermediate_size", d_ff, 'i', 1, 1, 1 << 22),
    LLM__HK("shared_expert_intermediate_size", d_ff_shared, 'i', 1, 1, 1 << 22),
};
#undef LLM__HK
#undef LLM__CF

/* The n keys of table k from object obj into c (null counts as absent). */
static llm_status llm__hf_read_keys(llm_config *c, const char *j, const llm_json_tok *t, size_t n, size_t obj,
                                    const llm__ckey *k, int count, const char **why) {
    int i;
    for (i = 0; i < count; i++) {
        int64_t at = llm_json_find(j, t, n, obj, k[i].key), v;
        double f;
        if (at < 0 || t[at].type == LLM_JSON_NULL) {
            if (k[i].required) LLM__FFAIL(why, k[i].text, LLM_EFORMAT);
            continue;
        }
        if (k[i].kind == 'i' ? llm_json_int(j, &t[at], &v) != LLM_OK || !llm__ckey_set(c, &k[i], (double)v)
                             : llm_json_num(j, &t[at], &f) != LLM_OK || !llm__ckey_set(c, &k[i], f))
            LLM__FFAIL(why, k[i].text, LLM_EFORMAT);
    }
    return LLM_OK;
}
/* Whether member `key` of the top object is true / is present and not null. */
static int llm__hf_true(const char *j, const llm_json_tok *t, size_t n, const char *key) {
    int64_t i = llm_json_find(j, t, n, 0, key);
    return i >= 0 && t[i].type == LLM_JSON_TRUE;
}
static int64_t llm__hf_has(const char *j, const llm_json_tok *t, size_t n, size_t obj, const char *key) {
    int64_t i = llm_json_find(j, t, n, obj, key);
    return i >= 0 && t[i].type != LLM_JSON_NULL ? i : -1;
}

/* rope_scaling: null, {"rope_type": "default"} or Llama 3's; the others by name. */
static llm_status llm__hf_rope_scaling(llm_config *c, const char *j, const llm_json_tok *t, size_t n, const char **why) {
    static const char *const kinds[][2] = {
        {"longrope", "config.json: rope_scaling \"longrope\" (LongRoPE, Phi-3's long-context RoPE) is not run"},
        {"su", "config.json: rope_scaling \"su\" (LongRoPE, Phi-3's long-context RoPE) is not run"},
        {"yarn", "config.json: rope_scaling \"yarn\" (YaRN) is not run"},
        {"linear", "config.json: rope_scaling \"linear\" is not run"},
        {"dynamic", "config.json: rope_scaling \"dynamic\" (dynamic NTK) is not run"},
    };
    int64_t rs = llm__hf_has(j, t, n, 0, "rope_scaling"), ty;
    int i;
    if (rs < 0) return LLM_OK;
    if (t[rs].type != LLM_JSON_OBJECT) LLM__FFAIL(why, "config.json: rope_scaling that is not an object is not run", LLM_EUNSUPPORTED);
    ty = llm_json_find(j, t, n, (size_t)rs, "rope_type");
    if (ty < 0) ty = llm_json_find(j, t, n, (size_t)rs, "type");
    if (ty >= 0 && llm_json_eq(j, &t[ty], "default")) return LLM_OK; /* transformers' name for none */
    if (ty >= 0 && llm_json_eq(j, &t[ty], "llama3"))
        return llm__hf_read_keys(c, j, t, n, (size_t)rs, llm__hf_llama3_keys, 4, why);
    for (i = 0; ty >= 0 && i < (int)(sizeof kinds / sizeof kinds[0]); i++)
        if (llm_json_eq(j, &t[ty], kinds[i][0])) LLM__FFAIL(why, kinds[i][1], LLM_EUNSUPPORTED);
    LLM__FFAIL(why, "config.json: rope_scaling other than Llama 3's is not run yet", LLM_EUNSUPPORTED);
}

/* A mixture of experts' keys (transformers' MixtralConfig, Qwen2MoeConfig, Qwen3MoeConfig):
   the expert count (num_local_experts, or Qwen's num_experts: either name, one value),
   then llm__hf_moe_keys; Qwen's norm_topk_prob (default false) picks the weighting, Mixtral
   always renormalizes. Dense layers among the sparse ones (decoder_sparse_step,
   mlp_only_layers) are not run. */
static llm_status llm__hf_moe(llm_config *c, const llm__arch *a, const char *j, const llm_json_tok *t, size_t n, char *not_run,
                              const char **why) {
    static const char *const names[2] = {"num_local_experts", "num_experts"};
    int mixtral = (a->tensors & LLM__T_HF_MIXTRAL) != 0, i;
    int64_t k, v, e = 0;
    for (i = 0; i < 2; i++) {
        if ((k = llm__hf_has(j, t, n, 0, names[i])) < 0) continue;
        if (llm_json_int(j, &t[k], &v) != LLM_OK || v < 1 || v > (1 << 16) || (e && v != e))
            LLM__FFAIL(why, "config.json: num_local_experts / num_experts is out of range or the two differ", LLM_EFORMAT);
        e = v;
    }
    if (!e) LLM__FFAIL(why, "config.json: num_local_experts / num_experts (the expert count) is missing", LLM_EFORMAT);
    c->n_experts = (int)e;
    LLM__MTRY(llm__hf_read_keys(c, j, t, n, 0, llm__hf_moe_keys, mixtral ? 1 : a->tensors & LLM__T_SHEXP ? 3 : 2, why));
    if (c->n_experts_per_tok > c->n_experts) LLM__FFAIL(why, "config.json: num_experts_per_tok is above the expert count", LLM_EFORMAT);
    if (!mixtral) {
        k = llm__hf_has(j, t, n, 0, "norm_topk_prob");
        if (k >= 0 && t[k].type != LLM_JSON_TRUE && t[k].type != LLM_JSON_FALSE)
            LLM__FFAIL(why, "config.json: norm_topk_prob is not true or false", LLM_EFORMAT);
        c->router = k >= 0 && t[k].type == LLM_JSON_TRUE ? LLM_ROUTER_TOPK_NORM : LLM_ROUTER_TOPK;
    }
    if (a->tensors & LLM__T_SHEXP) {
        c->n_shared_experts = 1, c->shared_gate = 1;
        if (c->d_ff_shared == c->d_ff) c->d_ff_shared = 0;
        if ((k = llm__hf_has(j, t, n, 0, "qkv_bias")) >= 0 && t[k].type != LLM_JSON_TRUE)
            LLM__NOT_RUN("config.json: qkv_bias false (Qwen2-MoE without its q/k/v biases) is not run");
    }
    if ((k = llm__hf_has(j, t, n, 0, "decoder_sparse_step")) >= 0 && !(llm_json_int(j, &t[k], &v) == LLM_OK && v == 1))
        LLM__NOT_RUN("config.json: decoder_sparse_step other than 1 (dense layers between the experts' ones) is not run");
    if ((k = llm__hf_has(j, t, n, 0, "mlp_only_layers")) >= 0 && !(t[k].type == LLM_JSON_ARRAY && t[k].n == 0))
        LLM__NOT_RUN("config.json: mlp_only_layers (dense layers among the experts' ones) is not run");
    return LLM_OK;
}

/* The architecture row of config.json's model_type (gen, Llama's row, for another one
   when the shapes are all that is wanted: not_run given). */
static llm_status llm__hf_arch(const llm__arch **a, const char *j, const llm_json_tok *t, size_t n, const llm__arch *gen,
                               char *not_run, const char **why) {
    int64_t mt = llm_json_find(j, t, n, 0, "model_type");
    if (mt < 0 || t[mt].type != LLM_JSON_STRING) LLM__FFAIL(why, "config.json has no model_type", LLM_EFORMAT);
    *a = llm__arch_find(j + t[mt].start, t[mt].len, 1);
    if (!*a) {
        LLM__NOT_RUN("config.json's model_type is not run yet (llama, mistral, qwen2, qwen3, gemma, gemma2, phi3, mixtral, qwen2_moe and qwen3_moe are)");
        *a = gen;
    }
    return LLM_OK;
}

/* llm_hf_read_config, also giving the architecture's row; gen and not_run as for
   llm__gguf_config */
static llm_status llm__hf_config(llm_config *c, const llm__arch **arch, const char *json, size_t len, const llm__arch *gen,
                                 char *not_run, const char **why) {
    llm_json_tok t[LLM__HF_TOKS];
    size_t n;
    int64_t k;
    double f;
    const llm__arch *a;
    const char *reason;
    if (why) *why = "";
    if (!c || !json) LLM__FFAIL(why, "no config or JSON", LLM_EINVAL);
    *c = llm_config_default();
    c->name = "hf";
    {
        llm_status e = llm_json_parse(json, len, t, LLM__HF_TOKS, &n, why);
        if (e == LLM_ERANGE) LLM__FFAIL(why, "config.json has more than 4096 JSON tokens", LLM_EUNSUPPORTED);
        if (e != LLM_OK) return e;
    }
    if (t[0].type != LLM_JSON_OBJECT) LLM__FFAIL(why, "config.json is not a JSON object", LLM_EFORMAT);
    LLM__MTRY(llm__hf_arch(&a, json, t, n, gen, not_run, why));
    *arch = a;
    llm__arch_config(c, a);
    c->norm_eps = 1e-6f; /* transformers' default for every model_type of the table */
    c->head_dim = a->hf_head_dim;
    if (strcmp(a->hf, "gemma2") == 0) { /* Gemma2Config's defaults, for a config.json without them */
        c->attn_softcap = 50.0f, c->final_softcap = 30.0f, c->sliding_window = 4096;
        c->attn_scale = 1.0f / 16.0f; /* query_pre_attn_scalar 256 */
    }
    LLM__MTRY(llm__hf_read_keys(c, json, t, n, 0, llm__hf_keys, (int)(sizeof llm__hf_keys / sizeof llm__hf_keys[0]), why));
    if (!c->n_kv_heads) c->n_kv_heads = c->n_heads;
    if (a->tensors & LLM__T_MOE) LLM__MTRY(llm__hf_moe(c, a, json, t, n, not_run, why));
    /* a softcap given as null is none */
    if ((k = llm_json_find(json, t, n, 0, "attn_logit_softcapping")) >= 0 && t[k].type == LLM_JSON_NULL) c->attn_softcap = 0;
    if ((k = llm_json_find(json, t, n, 0, "final_logit_softcapping")) >= 0 && t[k].type == LLM_JSON_NULL) c->final_softcap = 0;
    k = llm_json_find(json, t, n, 0, "tie_word_embeddings");
    c->tied_embeddings = k >= 0 && t[k].type != LLM_JSON_NULL ? t[k].type == LLM_JSON_TRUE : a->hf_tied;
    /* one activation per architecture: SiLU, or Gemma's tanh GELU (gelu_pytorch_tanh;
       transformers also runs Gemma's legacy "hidden_act": "gelu" as tanh GELU) */
    k = llm__hf_has(json, t, n, 0, a->act_key);
    if (k >= 0 && !llm_json_eq(json, &t[k], a->act))
        LLM__NOT_RUN(a->act[0] == 's' ? "config.json: hidden_act is not silu" : "config.json: hidden_activation is not gelu_pytorch_tanh");
    if (llm__hf_true(json, t, n, "attention_bias")) LLM__NOT_RUN("config.json: attention_bias (q/k/v/o biases) is not run yet");
    if (llm__hf_true(json, t, n, "mlp_bias")) LLM__NOT_RUN("config.json: mlp_bias is not run yet");
    if ((k = llm__hf_has(json, t, n, 0, "partial_rotary_factor")) >= 0 && !(llm_json_num(json, &t[k], &f) == LLM_OK && f == 1.0))
        LLM__NOT_RUN("config.json: partial_rotary_factor is not run yet");
    /* Qwen2 / Qwen3 window only with use_sliding_window, and then per layer */
    if (a->hf_use_sliding) {
        if (llm__hf_true(json, t, n, "use_sliding_window"))
            LLM__NOT_RUN("config.json: Qwen2's per-layer sliding windows are not run yet");
    } else if ((k = llm__hf_has(json, t, n, 0, "sliding_window")) >= 0) {
        int64_t v;
        if (llm_json_int(json, &t[k], &v) != LLM_OK || v < 1 || v > INT32_MAX)
            LLM__FFAIL(why, "config.json: sliding_window out of range", LLM_EFORMAT);
        c->sliding_window = (int)v;
    }
    if (!c->sliding_window) c->window_pattern = 0; /* Gemma 2 without its window */
    /* Gemma 2 scales queries by query_pre_attn_scalar^-1/2 */
    if ((k = llm__hf_has(json, t, n, 0, "query_pre_attn_scalar")) >= 0) {
        if (llm_json_num(json, &t[k], &f) != LLM_OK || !(f >= 1e-6 && f <= 1e12))
            LLM__FFAIL(why, "config.json: query_pre_attn_scalar out of range", LLM_EFORMAT);
        c->attn_scale = (float)(1.0 / LLM_SQRT(f));
    }
    if (a->embed_sqrt_d) c->embed_scale = LLM_SQRTF((float)c->d_model);
    /* Hugging Face's rotate_half pairs dimension i with i + d/2 */
    c->rope_layout = LLM_ROPE_HALVES;
    {
        const char *r2 = "";
        llm_status e = llm__hf_rope_scaling(c, json, t, n, &r2);
        if (e == LLM_EUNSUPPORTED) LLM__NOT_RUN(r2); /* a plan sizes the model without its scaling */
        else if (e != LLM_OK) LLM__FFAIL(why, r2, e);
    }
    if (llm_config_check(c, &reason) != LLM_OK) LLM__FFAIL(why, reason, LLM_EFORMAT);
    return LLM_OK;
}
LLMDEF llm_status llm_hf_read_config(llm_config *c, const char *json, size_t len, const char **why) {
    const llm__arch *a;
    return llm__hf_config(c, &a, json, len, NULL, NULL, why);
}

/* Every norm gain, bias and gate vector, any of which may need converting to fp32; with
   experts, their table (llm__hf_xt) first. */
LLMDEF size_t llm_hf_aux_floats(const llm_config *c) {
    uint64_t d, hd, L, n;
    if (llm_config_check(c, NULL) != LLM_OK) return 0;
    d = (uint64_t)c->d_model, hd = (uint64_t)llm_config_head_dim(c), L = (uint64_t)c->n_layers;
    n = ((c->sandwich_norm ? 4 : 2) * L + 1) * d + (c->qk_norm ? 2 * L * hd : 0) + (c->shared_gate ? L * d : 0);
    if (llm__bias_kinds[c->bias].qkv) n += L * hd * ((uint64_t)c->n_heads + 2 * (uint64_t)c->n_kv_heads);
    if (c->n_experts > 0) n += (L * (uint64_t)c->n_experts * 3 * sizeof(llm_weight) + 2 * LLM__XT_ALIGN) / sizeof(float);
    return n > (uint64_t)SIZE_MAX / sizeof(float) ? 0 : (size_t)n;
}

/* The experts' table at the start of aux (aligned for llm_weight's pointers), the floats
   after it in ax; NULL table when there are no experts or no room. */
static void llm__hf_xt(const llm_config *c, float *aux, size_t aux_floats, llm__aux *ax) {
    uint64_t bytes = (uint64_t)c->n_layers * (uint64_t)c->n_experts * 3 * sizeof(llm_weight);
    uintptr_t at = ((uintptr_t)aux + (LLM__XT_ALIGN - 1)) & ~(uintptr_t)(LLM__XT_ALIGN - 1);
    ax->p = aux, ax->end = aux ? aux + aux_floats : NULL, ax->xt = NULL;
    if (c->n_experts <= 0 || !aux) return;
    if ((uint64_t)(at - (uintptr_t)aux) + bytes > (uint64_t)aux_floats * sizeof(float)) {
        ax->p = ax->end; /* no room for the vectors either: refused when one needs it */
        return;
    }
    ax->xt = (llm_weight *)(void *)at;
    ax->p = (float *)(void *)(at + (uintptr_t)bytes);
}

/* A checkpoint's shards: a tensor is looked up in each (llm_hf_load_shards refuses one
   that two of them hold, so the first found is the only one). */
typedef struct llm__shards {
    llm_safetensors *st;
    int n;
} llm__shards;
static llm_st_tensor *llm__shards_find(const llm__shards *sh, llm_gguf_str name, int skip) {
    int k;
    for (k = 0; k < sh->n; k++) {
        const llm_safetensors *st = &sh->st[k];
        int64_t i;
        if (k == skip || st->n_tensors <= 0) continue;
        i = llm__name_find_str(st->order, st->n_tensors, &st->tensors[0].name, sizeof *st->tensors, name);
        if (i >= 0) return &st->tensors[i];
    }
    return NULL;
}

/* A safetensors tensor as llm__take sees it: shapes outermost first; F32, F16, BF16;
   each aligned to its element. Marks it used. */
static llm__tsrc llm__st_src(void *ctx, const char *name) {
    llm_gguf_str key;
    llm_st_tensor *t;
    llm__tsrc s;
    key.s = name, key.n = strlen(name);
    t = llm__shards_find((const llm__shards *)ctx, key, -1);
    memset(&s, 0, sizeof s);
    s.name = key, s.type = -1, s.align = 1;
    if (!t) return s;
    t->used = 1;
    s.n_dims = t->n_dims == 1 || t->n_dims == 2 ? t->n_dims : 3;
    s.rows = t->n_dims == 1 ? 1 : t->shape[0];
    s.cols = t->n_dims == 1 ? t->shape[0] : t->shape[1];
    s.data = t->data;
    if (t->dtype.n == 3 && memcmp(t->dtype.s, "F32", 3) == 0) s.type = LLM_F32, s.align = 4, s.type_name = "F32";
    else if (t->dtype.n == 3 && memcmp(t->dtype.s, "F16", 3) == 0) s.type = LLM_F16, s.align = 2, s.type_name = "F16";
    else if (t->dtype.n == 4 && memcmp(t->dtype.s, "BF16", 4) == 0) s.type = LLM_BF16, s.align = 2, s.type_name = "BF16";
    else s.type_name = "a dtype other than F32, F16 and BF16";
    return s;
}

LLMDEF llm_status llm_hf_load_shards(llm_model *m, const char *config_json, size_t config_len, llm_safetensors *shards,
                                     int n_shards, llm_layer_weights *layers, int n_layers_cap, float *aux,
                                     size_t aux_floats, const char **why) {
    llm_config c;
    llm_weights w;
    llm__aux ax;
    llm__shards sh;
    const llm__arch *a;
    int64_t i;
    int k;
    llm_status e;
    const char *reason;
    if (why) *why = "";
    if (!m || !shards || n_shards < 1 || !layers) LLM__FFAIL(why, "no model, safetensors or layer table", LLM_EINVAL);
    for (k = 0; k < n_shards; k++)
        if (!shards[k].tensors) LLM__FFAIL(why, "a shard has no table (llm_safetensors_init failed or was not called)", LLM_EINVAL);
    LLM__MTRY(llm__hf_config(&c, &a, config_json, config_len, NULL, NULL, why));
    e = llm_config_runnable(&c, &reason);
    if (e != LLM_OK) LLM__FFAIL(why, reason, e);
    if (c.n_layers > n_layers_cap) LLM__FFAIL(why, "layer table too small for n_layers", LLM_EINVAL);
    if (!llm__little_endian()) LLM__FFAIL(why, "big-endian host: safetensors weights are little-endian", LLM_EUNSUPPORTED);
    sh.st = shards, sh.n = n_shards;
    /* a name in two shards: which one the model would read is not defined, so neither.
       Each shard's names are sorted: a lookup in the later shards costs log n. */
    for (k = 0; k + 1 < n_shards; k++)
        for (i = 0; i < shards[k].n_tensors; i++) {
            llm__shards later;
            later.st = shards + k + 1, later.n = n_shards - k - 1;
            if (llm__shards_find(&later, shards[k].tensors[i].name, -1))
                LLM__GFAIL_NAME(&shards[k], "tensor ", shards[k].tensors[i].name, " is in two shards", LLM_EFORMAT);
        }
    for (k = 0; k < n_shards; k++) /* a second load counts afresh */
        for (i = 0; i < shards[k].n_tensors; i++) shards[k].tensors[i].used = 0;
    ax.convert = 1, ax.why = shards[0].why;
    llm__hf_xt(&c, aux, aux_floats, &ax);
    LLM__MTRY(llm__take_model(a, 1, &c, llm__st_src, &sh, &w, layers, &ax, why));
    /* every tensor of every shard is read: one the forward pass would skip (a bias or a
       norm this architecture does not have) means the model is not what llm.h would run */
    for (k = 0; k < n_shards; k++)
        for (i = 0; i < shards[k].n_tensors; i++)
            if (!llm__arch_uses(llm__arch_bits(a, &c), 1, &c, shards[k].tensors[i].name.s, shards[k].tensors[i].name.n))
                LLM__GFAIL_NAME(&shards[k], "tensor ", shards[k].tensors[i].name,
                                " is not used by the forward pass (refused, not ignored)", LLM_EUNSUPPORTED);
    return llm__model_set(m, &c, &w, layers, 0);
}

LLMDEF llm_status llm_hf_load(llm_model *m, const char *config_json, size_t config_len, llm_safetensors *st,
                              llm_layer_weights *layers, int n_layers_cap, float *aux, size_t aux_floats,
                              const char **why) {
    return llm_hf_load_shards(m, config_json, config_len, st, 1, layers, n_layers_cap, aux, aux_floats, why);
}

/* ---- sizing a model without reading its weights ----------------------------------------- */

static uint64_t llm__sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* The host's byte order is the least specific reason: any other one noted replaces it
   (llm_hf_shapes notes it before llm_hf_shapes_add sees the tensors). */
static const char llm__be_note[] = "big-endian host: the weights are little-endian";
/* A tensor the loader would refuse by name or type: the first one noted in s->not_run. */
static void llm__shapes_tensor(llm_model_shapes *s, int hf, llm_gguf_str name, int type_ok, const char *type) {
    char buf[160];
    const char *r = NULL;
    if (s->not_run[0] && strcmp(s->not_run, llm__be_note) != 0) return;
    if (s->arch_row >= 0 && !llm__arch_uses(llm__arch_bits(&llm__archs[s->arch_row], &s->config), hf, &s->config, name.s, name.n))
        r = llm__why_name(buf, sizeof buf, "tensor ", name.s, name.n, " is not used by the forward pass");
    else if (!type_ok)
        r = llm__why_name(buf, sizeof buf, "tensor ", name.s, name.n, type);
    if (r) s->not_run[0] = '\0', llm__note(s->not_run, r);
}
/* What every reader of shapes checks last: the features the forward pass needs. */
static void llm__shapes_runnable(llm_model_shapes *s) {
    const char *reason;
    if (llm_config_runnable(&s->config, &reason) != LLM_OK) llm__note(s->not_run, reason);
    if (!llm__little_endian()) llm__note(s->not_run, llm__be_note);
}

LLMDEF llm_status llm_gguf_shapes(llm_model_shapes *s, const void *head, size_t len, uint64_t file_size, uint64_t *need,
                                  const char **why) {
    llm_gguf g;
    llm__gr r;
    llm__arch gen = llm__archs[0];
    llm_gguf_str an;
    uint32_t ver;
    uint64_t nkv, nt, tb;
    int64_t i;
    void *mem;
    llm_status st;
    if (need) *need = 0;
    LLM__MTRY(llm__reader_begin(s, sizeof *s, "no llm_model_shapes", why));
    if (!head || file_size < len) LLM__FFAIL(why, "no buffer, or more bytes than the file has", LLM_EINVAL);
    if (len < 24 && file_size >= 24) {
        if (need) *need = 24;
        LLM__FFAIL(why, "the 24-byte GGUF header is not all in the bytes given", LLM_ERANGE);
    }
    LLM__MTRY(llm__gguf_header((const unsigned char *)head, file_size, &ver, &nkv, &nt, why));
    tb = llm__gguf_table_bytes(nkv, nt);
    if (tb > (uint64_t)SIZE_MAX || !(mem = LLM_MALLOC((size_t)tb))) LLM__FFAIL(why, "out of memory for the GGUF tables", LLM_ENOMEM);
    st = llm__gguf_parse(&g, mem, (size_t)tb, head, len, file_size, &r, why);
    if (st != LLM_OK && r.bad && len < file_size && r.need <= file_size) {
        if (need) *need = r.need;
        st = LLM_ERANGE;
        if (why) *why = "the GGUF tables continue past the bytes given";
    }
    if (st == LLM_OK && llm_gguf_get_str(&g, "general.architecture", &an) == LLM_OK) {
        const llm__arch *a = llm__arch_find(an.s, an.n, 0);
        size_t k = an.n < sizeof s->arch ? (size_t)an.n : sizeof s->arch - 1;
        memcpy(s->arch, an.s, k);
        s->arch[k] = '\0';
        s->arch_row = a ? (int)(a - llm__archs) : -1;
    }
    gen.gguf = s->arch;
    if (st == LLM_OK) st = llm__gguf_config(&s->config, &g, &gen, s->not_run, why);
    if (st == LLM_OK) {
        s->config.name = s->arch;
        for (i = 0; i < g.n_tensors; i++) {
            const llm_gguf_tensor *t = &g.tensors[i];
            const llm__wfmt *f = llm__wfmt_ggml(t->type); /* as llm__gguf_src: the table's row */
            int type_ok = f && (f->blk == 1 || f->qdot);
            s->n_elements = llm__sat_add(s->n_elements, (uint64_t)(t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3]));
            s->tensor_bytes = llm__sat_add(s->tensor_bytes, t->bytes);
            llm__shapes_tensor(s, 0, t->name, type_ok, ": its type has no kernel here (IQ*, TQ*, MXFP4...)");
        }
        s->n_tensors = (uint64_t)g.n_tensors;
        s->header_bytes = g.data_offset;
        s->file_bytes = file_size;
        s->read_bytes = len;
        llm__shapes_runnable(s);
    }
    if (st != LLM_OK && why && *why == g.why) { /* g ends here: keep its reason */
        memcpy(s->why, g.why, sizeof s->why);
        *why = s->why;
    }
    LLM_FREE(mem);
    return st;
}

LLMDEF llm_status llm_hf_shapes(llm_model_shapes *s, const char *config_json, size_t config_len, const char **why) {
    llm__arch gen = llm__archs[0];
    const llm__arch *a;
    llm_json_tok *t;
    size_t n = 0;
    int64_t mt;
    LLM__MTRY(llm__reader_begin(s, sizeof *s, "no llm_model_shapes", why));
    gen.gguf = NULL, gen.hf = s->arch;
    LLM__MTRY(llm__hf_config(&s->config, &a, config_json, config_len, &gen, s->not_run, why));
    /* the model_type's name (llm__hf_config read it: the JSON is valid and small) */
    if (!(t = (llm_json_tok *)LLM_MALLOC(LLM__HF_TOKS * sizeof *t))) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    if (llm_json_parse(config_json, config_len, t, LLM__HF_TOKS, &n, NULL) == LLM_OK &&
        (mt = llm_json_find(config_json, t, n, 0, "model_type")) >= 0)
        llm_json_str(config_json, &t[mt], s->arch, sizeof s->arch, NULL);
    LLM_FREE(t);
    s->arch_row = a == &gen ? -1 : (int)(a - llm__archs);
    s->config.name = s->arch;
    llm__shapes_runnable(s);
    return LLM_OK;
}

LLMDEF llm_status llm_hf_shapes_add(llm_model_shapes *s, const void *head, size_t len, uint64_t file_size, uint64_t *need,
                                    const char **why) {
    const unsigned char *p = (const unsigned char *)head;
    llm_safetensors st;
    uint64_t n;
    size_t stb;
    int64_t i;
    void *mem;
    llm_status e;
    if (need) *need = 0;
    if (why) *why = "";
    if (!s || !p || file_size < len) LLM__FFAIL(why, "no shapes or buffer, or more bytes than the file has", LLM_EINVAL);
    if (len < 8 && file_size >= 8) {
        if (need) *need = 8;
        LLM__FFAIL(why, "the 8-byte safetensors header length is not in the bytes given", LLM_ERANGE);
    }
    n = len >= 8 ? llm__le64(p) : 0;
    if (len >= 8 && n <= file_size - 8 && n > len - 8) {
        if (need) *need = 8 + n;
        LLM__FFAIL(why, "the safetensors header continues past the bytes given", LLM_ERANGE);
    }
    stb = llm_safetensors_bytes(p, len >= 8 && n <= len - 8 ? (size_t)(8 + n) : len);
    mem = stb ? LLM_MALLOC(stb) : NULL;
    if (stb && !mem) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    e = llm__st_parse(&st, mem, stb, p, len, file_size, why); /* without memory: says why the header is wrong */
    for (i = 0; e == LLM_OK && i < st.n_tensors; i++) {
        const llm_st_tensor *t = &st.tensors[i];
        int type_ok = (t->dtype.n == 3 && (memcmp(t->dtype.s, "F32", 3) == 0 || memcmp(t->dtype.s, "F16", 3) == 0)) ||
                      (t->dtype.n == 4 && memcmp(t->dtype.s, "BF16", 4) == 0);
        s->n_elements = llm__sat_add(s->n_elements, t->bytes / (uint64_t)t->elem_bytes);
        s->tensor_bytes = llm__sat_add(s->tensor_bytes, t->bytes);
        llm__shapes_tensor(s, 1, t->name, type_ok, ": a dtype other than F32, F16 and BF16");
    }
    if (e == LLM_OK) {
        s->n_tensors += (uint64_t)st.n_tensors;
        s->file_bytes = llm__sat_add(s->file_bytes, file_size);
        s->read_bytes = llm__sat_add(s->read_bytes, 8 + n);
        s->header_bytes = llm__sat_add(s->header_bytes, 8 + n);
        s->n_files++;
    } else if (why && *why == st.why) {
        memcpy(s->why, st.why, sizeof s->why);
        *why = s->why;
    }
    if (mem) LLM_FREE(mem);
    return e;
}

#ifndef LLM_NO_STDIO
#ifdef LLM_MMAP
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
/* The size of an open file in 64 bits, leaving it positioned at the start; 0 on success.
   llama2.c's 7B checkpoint is 27 GB, past what a 32-bit long holds. Windows' long is 32
   bits even on x64, so it uses _fseeki64/_ftelli64 (MSVC, MinGW). Elsewhere ftell's long
   is 64 bits on every LP64 system (Linux, macOS, the BSDs: 64-bit hosts); on a host with
   a 32-bit long, ftell fails past 2 GiB (this reports it) and a file that big would not
   fit its 32-bit address space anyway. (ftello would need POSIX feature macros defined
   before the user's first #include, which a C99 header cannot rely on.) */
static int llm__file_size(FILE *f, uint64_t *size) {
#if defined(_WIN32)
    __int64 n;
    if (_fseeki64(f, 0, SEEK_END) != 0 || (n = _ftelli64(f)) < 0 || _fseeki64(f, 0, SEEK_SET) != 0) return -1;
#else
    long n;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) return -1;
#endif
    *size = (uint64_t)n;
    return 0;
}

/* Opens path for reading and reads its first byte back: fopen succeeds on a directory on
   POSIX systems, and its size would then be nonsense. */
static llm_status llm__open_read(const char *path, FILE **out, const char **why) {
    FILE *f;
    int c;
    *out = NULL;
    if (!path) LLM__FFAIL(why, "no path", LLM_EINVAL);
    f = fopen(path, "rb");
    if (!f) LLM__FFAIL(why, "cannot open the file", LLM_EIO);
    c = fgetc(f);
    if (c == EOF && ferror(f)) {
        fclose(f);
        LLM__FFAIL(why, "cannot read the file: a directory, or not readable", LLM_EIO);
    }
    if (c != EOF && fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        LLM__FFAIL(why, "cannot seek in the file", LLM_EIO);
    }
    *out = f;
    return LLM_OK;
}

/* A model file loader's start: the model emptied, then the file's first n bytes (zeros past
   its end) and its size, read first because the header sizes the memory the file goes into. */
static llm_status llm__load_head(llm_model *m, const char *path, unsigned char *head, size_t n, uint64_t *size,
                                 const char **why) {
    FILE *f;
    size_t got;
    int size_ok;
    LLM__MTRY(llm__reader_begin(m, sizeof *m, "no model", why));
    LLM__MTRY(llm__open_read(path, &f, why));
    memset(head, 0, n);
    got = fread(head, 1, n, f);
    size_ok = llm__file_size(f, size) == 0;
    fclose(f);
    (void)got; /* a short file leaves zeros, which the header checks reject */
    if (!size_ok) LLM__FFAIL(why, "cannot seek in the file (or its size does not fit this platform's file offsets)", LLM_EIO);
    if (*size > (uint64_t)SIZE_MAX) LLM__FFAIL(why, "file too large for this address space", LLM_ENOMEM);
    return LLM_OK;
}

/* A loader's block from LLM_MALLOC: under LLM_MMAP a record of the file's mapping first
   (none when the file was read: llm_model_free unmaps what it names), then `extra` bytes
   (64-byte aligned, at *base) for whatever the caller keeps with the file, then the file's
   bytes when they were read. */
typedef struct llm__filemap {
    void *addr; /* NULL: read, not mapped */
    size_t len;
    struct llm__filemap *more; /* a sharded model's mappings, one per shard (in the block) */
    size_t n_more;
} llm__filemap;
#ifdef LLM_MMAP
#define LLM__FILE_HEAD 64
#else
#define LLM__FILE_HEAD 0
#endif

/* The whole file into memory (the block above, at *mem). Read in pieces of at most 1 GiB:
   some C libraries' fread mishandles a single request of several GiB. */
static llm_status llm__read_file(const char *path, size_t extra, void **mem, char **base, unsigned char **data,
                                 size_t *len, const char **why) {
    FILE *f;
    uint64_t n, done = 0;
    *mem = NULL;
    LLM__MTRY(llm__open_read(path, &f, why));
    if (llm__file_size(f, &n) != 0) {
        fclose(f);
        LLM__FFAIL(why, "cannot seek in the file (or its size does not fit this platform's file offsets)", LLM_EIO);
    }
    if (extra > SIZE_MAX - 256 || n > (uint64_t)(SIZE_MAX - extra - 256)) {
        fclose(f);
        LLM__FFAIL(why, "file too large for this address space", LLM_ENOMEM);
    }
    *mem = LLM_MALLOC(LLM__FILE_HEAD + extra + (size_t)n + 128);
    if (!*mem) {
        fclose(f);
        LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    }
    *base = (char *)llm__align64(*mem) + LLM__FILE_HEAD;
    if (LLM__FILE_HEAD) memset(llm__align64(*mem), 0, sizeof(llm__filemap));
    *data = (unsigned char *)*base + LLM__MALIGN(extra);
    while (done < n) {
        size_t part = n - done > ((uint64_t)1 << 30) ? (size_t)1 << 30 : (size_t)(n - done);
        if (fread(*data + done, 1, part, f) != part) {
            fclose(f);
            LLM_FREE(*mem);
            *mem = NULL;
            LLM__FFAIL(why, "short read", LLM_EIO);
        }
        done += part;
    }
    fclose(f);
    *len = (size_t)n;
    return LLM_OK;
}

#ifdef LLM_MMAP
/* The file mapped read-only (private: the mapping never writes to it) instead of read: only
   the record and `extra` come from LLM_MALLOC. An empty file is read (mmap refuses a length
   of 0); the parsers refuse it with their own reason. */
static llm_status llm__map_file(const char *path, size_t extra, void **mem, char **base, unsigned char **data,
                                size_t *len, const char **why) {
    struct stat sb;
    llm__filemap *fm;
    void *p;
    int fd;
    *mem = NULL;
    if (!path) LLM__FFAIL(why, "no path", LLM_EINVAL);
    fd = open(path, O_RDONLY);
    if (fd < 0) LLM__FFAIL(why, "cannot open the file", LLM_EIO);
    if (fstat(fd, &sb) != 0) {
        close(fd);
        LLM__FFAIL(why, "cannot map the file: fstat failed", LLM_EIO);
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        LLM__FFAIL(why, "cannot map the file: not a regular file (a directory?)", LLM_EIO);
    }
    if (sb.st_size == 0) {
        close(fd);
        return llm__read_file(path, extra, mem, base, data, len, why);
    }
    if (sb.st_size < 0 || (uint64_t)sb.st_size > (uint64_t)(SIZE_MAX / 2) || extra > SIZE_MAX / 2) {
        close(fd);
        LLM__FFAIL(why, "file too large for this address space", LLM_ENOMEM);
    }
    p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd); /* the mapping stays valid without the descriptor */
    if (p == MAP_FAILED) LLM__FFAIL(why, "cannot map the file: mmap failed", LLM_EIO);
    *mem = LLM_MALLOC(LLM__FILE_HEAD + extra + 128);
    if (!*mem) {
        munmap(p, (size_t)sb.st_size);
        LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    }
    fm = (llm__filemap *)llm__align64(*mem);
    memset(fm, 0, sizeof *fm);
    fm->addr = p;
    fm->len = (size_t)sb.st_size;
    *base = (char *)fm + LLM__FILE_HEAD;
    *data = (unsigned char *)p;
    *len = (size_t)sb.st_size;
    return LLM_OK;
}

/* Undoes llm__map_file's mapping (not the block: its owner frees that). */
static void llm__file_unmap(void *owned) {
    llm__filemap *fm = (llm__filemap *)llm__align64(owned);
    size_t i;
    if (fm->addr) munmap(fm->addr, fm->len);
    fm->addr = NULL;
    for (i = 0; i < fm->n_more; i++)
        if (fm->more[i].addr) munmap(fm->more[i].addr, fm->more[i].len);
    fm->n_more = 0;
}
#define LLM__LOAD_FILE llm__map_file
#else
#define LLM__LOAD_FILE llm__read_file
#endif
/* A failed load's block: its mapping, if any, then the block. */
static void llm__file_free(void *mem) {
    if (!mem) return;
#ifdef LLM_MMAP
    llm__file_unmap(mem);
#endif
    LLM_FREE(mem);
}

LLMDEF llm_status llm_llama2c_load_file(llm_model *m, const char *path, const char **why) {
    unsigned char head[256], *data;
    void *mem;
    char *base;
    size_t len;
    llm_config c;
    int ver, gs;
    uint64_t off, n;
    LLM__MTRY(llm__load_head(m, path, head, sizeof head, &n, why)); /* it says how many layers the table needs */
    LLM__MTRY(llm__llama2c_header(&c, &ver, &gs, &off, head, (size_t)n, why));
    LLM__MTRY(llm__read_file(path, (size_t)c.n_layers * sizeof(llm_layer_weights), &mem, &base, &data, &len, why));
    return llm__created(m, 0, &m->owned, mem,
                        llm__llama2c_load(m, data, len, (llm_layer_weights *)(void *)base, c.n_layers, why, data));
}

LLMDEF llm_status llm_tokenizer_load_file(llm_tokenizer *t, const char *path, int vocab, const char **why) {
    void *mem;
    char *base;
    unsigned char *data;
    size_t len;
    llm_status st;
    LLM__MTRY(llm__reader_begin(t, sizeof *t, "no tokenizer", why));
    LLM__MTRY(llm__read_file(path, 0, &mem, &base, &data, &len, why));
    st = llm_tokenizer_create(t, data, len, vocab, why);
    LLM_FREE(mem);
    return st;
}

LLMDEF llm_status llm_gguf_load_file(llm_model *m, const char *path, const char **why) {
    unsigned char head[24], *data;
    void *mem;
    char *base;
    size_t len;
    uint32_t ver;
    uint64_t nkv, nt, n, tables, layers;
    llm_gguf g;
    llm_status st;
    /* the header's counts size the tables that go in front of the file's bytes */
    LLM__MTRY(llm__load_head(m, path, head, sizeof head, &n, why));
    LLM__MTRY(llm__gguf_header(head, (size_t)n, &ver, &nkv, &nt, why));
    /* a layer has at least one tensor, so n_tensors bounds n_layers (and 4096 is the cap) */
    layers = (nt < 4096 ? nt : 4096) * sizeof(llm_layer_weights);
    tables = llm__gguf_table_bytes(nkv, nt);
    if (tables + layers > (uint64_t)(SIZE_MAX / 2)) LLM__FFAIL(why, "GGUF tables too large for this address space", LLM_ENOMEM);
    LLM__MTRY(LLM__LOAD_FILE(path, (size_t)(LLM__MALIGN(layers) + tables), &mem, &base, &data, &len, why));
    st = llm_gguf_init(&g, base + LLM__MALIGN(layers), (size_t)tables, data, len, why);
    if (st == LLM_OK)
        st = llm_gguf_load(m, &g, (llm_layer_weights *)(void *)base, (int)(layers / sizeof(llm_layer_weights)), why);
    if (st != LLM_OK) {
        /* the reason may be in g.why, which ends with this call: keep it in the model */
        if (why && *why == g.why) {
            memcpy(m->why, g.why, sizeof m->why);
            *why = m->why;
        }
        llm__file_free(mem);
        return st;
    }
    return llm__created(m, 0, &m->owned, mem, st);
}

/* dir + "/" + file into buf (cap bytes); NULL if it does not fit. */
static const char *llm__path_join(char *buf, size_t cap, const char *dir, const char *file) {
    size_t a = strlen(dir), b = strlen(file);
    if (a + b + 2 > cap) return NULL;
    memcpy(buf, dir, a + 1);
    buf[a] = '/';
    memcpy(buf + a + 1, file, b + 1);
    return buf;
}

/* ---- sharded checkpoints: model.safetensors.index.json ---------------------------------- */

#define LLM__HF_INDEX_MAX ((size_t)1 << 28) /* bytes: Qwen3-30B-A3B's index (18,867 tensors) is ~2 MB */
#define LLM__HF_MAX_SHARDS 4096             /* Mixtral 8x22B has 59; DeepSeek-V3 163 */

/* An index's JSON tokens and weight_map (the object of tensor name -> shard file), and
   its distinct shard files in order of first mention (pointing into the text). Keys and
   values are compared as written: one with a backslash (an escape, or a Windows path)
   is refused, as llm_safetensors_init refuses escaped tensor names. */
typedef struct llm__hf_index {
    const char *text;
    llm_json_tok *toks;
    size_t n_toks, wm;
    llm_gguf_str *shards;
    int n_shards;
} llm__hf_index;

static llm_gguf_str llm__tok_str(const char *text, const llm_json_tok *t) {
    llm_gguf_str s;
    s.s = text + t->start, s.n = t->len;
    return s;
}
static void llm__hf_index_free(llm__hf_index *ix) {
    if (ix->toks) LLM_FREE(ix->toks);
    if (ix->shards) LLM_FREE(ix->shards);
    memset(ix, 0, sizeof *ix);
}
/* The shard holding value v (a name llm__hf_index_parse listed), trying `hint` first: an
   index lists a shard's tensors together. */
static int llm__hf_index_shard(const llm__hf_index *ix, llm_gguf_str v, int hint) {
    int k;
    if (hint >= 0 && hint < ix->n_shards && llm__gstr_cmp(ix->shards[hint], v) == 0) return hint;
    for (k = 0; k < ix->n_shards; k++)
        if (llm__gstr_cmp(ix->shards[k], v) == 0) return k;
    return -1;
}
static llm_status llm__hf_index_parse(llm__hf_index *ix, const char *text, size_t len, char *wb, size_t cap,
                                      const char **why) {
    size_t n = 0, i;
    uint32_t k, n_entries;
    int64_t wm;
    llm_status e;
    memset(ix, 0, sizeof *ix);
    ix->text = text;
    if (!text || len > LLM__HF_INDEX_MAX) LLM__FFAIL(why, "model.safetensors.index.json: missing or above 256 MiB", LLM_EFORMAT);
    e = llm_json_parse(text, len, NULL, 0, &n, why);
    if (e != LLM_ERANGE && e != LLM_OK) return e;
    if (n == 0) LLM__FFAIL(why, "model.safetensors.index.json is empty", LLM_EFORMAT);
    if (!(ix->toks = (llm_json_tok *)LLM_MALLOC(n * sizeof *ix->toks))) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    LLM__MTRY(llm_json_parse(text, len, ix->toks, n, &ix->n_toks, why));
    if (ix->toks[0].type != LLM_JSON_OBJECT || (wm = llm_json_find(text, ix->toks, ix->n_toks, 0, "weight_map")) < 0 ||
        ix->toks[wm].type != LLM_JSON_OBJECT || ix->toks[wm].n == 0)
        LLM__FFAIL(why, "model.safetensors.index.json has no weight_map object", LLM_EFORMAT);
    ix->wm = (size_t)wm;
    n_entries = ix->toks[wm].n;
    ix->shards = (llm_gguf_str *)LLM_MALLOC((n_entries < LLM__HF_MAX_SHARDS ? n_entries : LLM__HF_MAX_SHARDS) * sizeof *ix->shards);
    if (!ix->shards) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    for (k = 0, i = (size_t)wm + 1; k < n_entries; k++, i = ix->toks[i + 1].next) {
        llm_gguf_str key = llm__tok_str(text, &ix->toks[i]), v;
        const llm_json_tok *vt = &ix->toks[i + 1];
        if (memchr(key.s, '\\', key.n) || !key.n)
            LLM__FFAIL(why, llm__why_name(wb, cap, "model.safetensors.index.json: tensor name ", key.s, key.n, " is empty or has an escape"),
                       LLM_EFORMAT);
        if (vt->type != LLM_JSON_STRING)
            LLM__FFAIL(why, llm__why_name(wb, cap, "model.safetensors.index.json: tensor ", key.s, key.n, "'s file is not a string"),
                       LLM_EFORMAT);
        v = llm__tok_str(text, vt);
        /* a plain name in the directory: no separator, drive or escape; no ".", "..", dot file */
        if (!v.n || v.n > 255 || v.s[0] == '.' || memchr(v.s, '/', v.n) || memchr(v.s, '\\', v.n) || memchr(v.s, ':', v.n) ||
            memchr(v.s, '\0', v.n))
            LLM__FFAIL(why, llm__why_name(wb, cap, "model.safetensors.index.json: shard \"", v.s, v.n, "\" is not a file name in the directory"),
                       LLM_EFORMAT);
        if (llm__hf_index_shard(ix, v, ix->n_shards - 1) >= 0) continue;
        if (ix->n_shards >= LLM__HF_MAX_SHARDS) LLM__FFAIL(why, "model.safetensors.index.json: more than 4096 shards", LLM_EFORMAT);
        ix->shards[ix->n_shards++] = v;
    }
    return LLM_OK;
}

/* The index against the shards' own headers: each entry's tensor is in the shard it names,
   and the shards hold no tensor it leaves out. A name two shards hold, listed once, is left
   to llm_hf_load_shards, which refuses it by name. */
static llm_status llm__hf_index_check(const llm__hf_index *ix, const llm_safetensors *sts, char *wb, size_t cap,
                                      const char **why) {
    size_t i;
    uint32_t k, n_entries = ix->toks[ix->wm].n;
    uint64_t held = 0;
    int s = 0, q;
    for (k = 0, i = ix->wm + 1; k < n_entries; k++, i = ix->toks[i + 1].next) {
        llm_gguf_str key = llm__tok_str(ix->text, &ix->toks[i]);
        s = llm__hf_index_shard(ix, llm__tok_str(ix->text, &ix->toks[i + 1]), s);
        if (s < 0 || sts[s].n_tensors <= 0 ||
            llm__name_find_str(sts[s].order, sts[s].n_tensors, &sts[s].tensors[0].name, sizeof *sts[s].tensors, key) < 0)
            LLM__FFAIL(why, llm__why_name(wb, cap, "model.safetensors.index.json puts tensor ", key.s, key.n, " in a shard that does not hold it"),
                       LLM_EFORMAT);
    }
    for (q = 0; q < ix->n_shards; q++) held += (uint64_t)sts[q].n_tensors;
    if (held == n_entries) return LLM_OK;
    if (held < n_entries) LLM__FFAIL(why, "model.safetensors.index.json's weight_map names a tensor twice", LLM_EFORMAT);
    /* a tensor the weight_map does not name (a linear search: only on this error's path) */
    for (q = 0; q < ix->n_shards; q++) {
        int64_t t;
        for (t = 0; t < sts[q].n_tensors; t++) {
            int found = 0;
            for (k = 0, i = ix->wm + 1; k < n_entries && !found; k++, i = ix->toks[i + 1].next)
                found = llm__gstr_cmp(llm__tok_str(ix->text, &ix->toks[i]), sts[q].tensors[t].name) == 0;
            if (!found)
                LLM__FFAIL(why, llm__why_name(wb, cap, "tensor ", sts[q].tensors[t].name.s, sts[q].tensors[t].name.n,
                                              " is in a shard but not in model.safetensors.index.json's weight_map"),
                           LLM_EFORMAT);
        }
    }
    return LLM_OK;
}

/* "name: reason" in buf (the reason may be in memory about to be freed). */
static const char *llm__why_file(char *buf, size_t cap, const char *name, const char *reason) {
    size_t k, i;
    llm__why_name(buf, cap, "", name, strlen(name), ": ");
    for (k = strlen(buf), i = 0; reason && reason[i] && k + 1 < cap; i++) buf[k++] = reason[i];
    buf[k] = '\0';
    return buf;
}

/* A safetensors file's size and table bytes (llm_safetensors_bytes), from its first 8 + N
   bytes; reasons name the file. */
static llm_status llm__st_file_tables(const char *path, const char *name, size_t *stb, uint64_t *size, char *wb,
                                      size_t cap, const char **why) {
    unsigned char head[8], *hdr;
    uint64_t hn;
    size_t got;
    FILE *f = fopen(path, "rb");
    if (!f) LLM__FFAIL(why, llm__why_file(wb, cap, name, "cannot open it in the directory"), LLM_EIO);
    if (llm__file_size(f, size) != 0) {
        fclose(f);
        LLM__FFAIL(why, llm__why_file(wb, cap, name, "cannot seek in it"), LLM_EIO);
    }
    got = fread(head, 1, 8, f);
    hn = got == 8 ? llm__le64(head) : 0;
    if (got != 8 || *size < 8 || hn < 2 || hn > *size - 8 || hn > ((uint64_t)1 << 31)) {
        fclose(f);
        LLM__FFAIL(why, llm__why_file(wb, cap, name, "header length missing, past the end of the file or above 2 GiB"), LLM_EFORMAT);
    }
    hdr = (unsigned char *)LLM_MALLOC((size_t)hn + 8);
    if (!hdr || fread(hdr + 8, 1, (size_t)hn, f) != (size_t)hn) {
        fclose(f);
        if (hdr) LLM_FREE(hdr);
        LLM__FFAIL(why, hdr ? llm__why_file(wb, cap, name, "ends inside its header") : "out of memory", hdr ? LLM_EFORMAT : LLM_ENOMEM);
    }
    fclose(f);
    memcpy(hdr, head, 8);
    *stb = llm_safetensors_bytes(hdr, (size_t)hn + 8);
    LLM_FREE(hdr);
    if (*stb == 0) LLM__FFAIL(why, llm__why_file(wb, cap, name, "its header is not valid JSON"), LLM_EFORMAT);
    return LLM_OK;
}

/* A shard's bytes: mapped (LLM_MMAP: the mapping recorded in *fm) or read into dst, which
   has room for the size it had when its header was read. */
static llm_status llm__shard_bytes(const char *path, const char *name, uint64_t size, unsigned char *dst, llm__filemap *fm,
                                   const unsigned char **data, size_t *len, char *wb, size_t cap, const char **why) {
#ifdef LLM_MMAP
    struct stat sb;
    void *p;
    int fd = open(path, O_RDONLY);
    (void)dst;
    if (fd < 0) LLM__FFAIL(why, llm__why_file(wb, cap, name, "cannot open it in the directory"), LLM_EIO);
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 0 || (uint64_t)sb.st_size != size) {
        close(fd);
        LLM__FFAIL(why, llm__why_file(wb, cap, name, "not a regular file, or it changed while being opened"), LLM_EIO);
    }
    p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) LLM__FFAIL(why, llm__why_file(wb, cap, name, "cannot map the file: mmap failed"), LLM_EIO);
    fm->addr = p, fm->len = (size_t)size;
    *data = (const unsigned char *)p, *len = (size_t)size;
    return LLM_OK;
#else
    FILE *f;
    uint64_t now = 0, done = 0;
    (void)fm;
    if (!(f = fopen(path, "rb"))) LLM__FFAIL(why, llm__why_file(wb, cap, name, "cannot open it in the directory"), LLM_EIO);
    if (llm__file_size(f, &now) != 0 || now != size) {
        fclose(f);
        LLM__FFAIL(why, llm__why_file(wb, cap, name, "it changed while being opened"), LLM_EIO);
    }
    while (done < size) { /* pieces of at most 1 GiB, as llm__read_file */
        size_t part = size - done > ((uint64_t)1 << 30) ? (size_t)1 << 30 : (size_t)(size - done);
        if (fread(dst + done, 1, part, f) != part) {
            fclose(f);
            LLM__FFAIL(why, llm__why_file(wb, cap, name, "short read"), LLM_EIO);
        }
        done += part;
    }
    fclose(f);
    *data = dst, *len = (size_t)size;
    return LLM_OK;
#endif
}

/* One block from LLM_MALLOC holds everything: under LLM_MMAP the mapping record first,
   then the layer table, aux, the shards' llm_safetensors and their tables, the mapping
   records, config.json's text and (when read) each shard's bytes. */
LLMDEF llm_status llm_hf_load_dir(llm_model *m, const char *dir, const char **why) {
    char path[4096], *cbase, *ibase, *base = NULL, name[256];
    void *cmem = NULL, *imem = NULL, *mem = NULL;
    unsigned char *cdata, *idata;
    size_t clen, ilen, auxn, *stb = NULL;
    uint64_t off_aux, off_sts, off_maps, off_cfg, total, *fsize = NULL, *off = NULL;
    llm__hf_index ix;
    llm_gguf_str one;
    const llm_gguf_str *names;
    llm_safetensors *sts = NULL;
    llm__filemap *maps = NULL;
    llm_config c;
    llm_status e;
    FILE *f;
    int n = 0, k, indexed = 0;
    memset(&ix, 0, sizeof ix);
    LLM__MTRY(llm__reader_begin(m, sizeof *m, "no model", why));
    if (!dir || !llm__path_join(path, sizeof path, dir, "config.json")) LLM__FFAIL(why, "no directory, or its path is too long", LLM_EINVAL);
    /* config.json: small, read first, it sizes everything else */
    e = llm__read_file(path, 0, &cmem, &cbase, &cdata, &clen, why);
    if (e != LLM_OK) LLM__FFAIL(why, "cannot read config.json in the directory", e);
    e = llm_hf_read_config(&c, (const char *)cdata, clen, why);
    if (e != LLM_OK) goto fail;
    /* one file, or the shards the index names */
    if (!llm__path_join(path, sizeof path, dir, "model.safetensors.index.json")) {
        e = LLM_EINVAL;
        if (why) *why = "the directory's path is too long";
        goto fail;
    }
    llm__path_join(path, sizeof path, dir, "model.safetensors");
    if ((f = fopen(path, "rb")) != NULL) {
        fclose(f);
        one.s = "model.safetensors", one.n = 17;
        names = &one, n = 1;
    } else {
        llm__path_join(path, sizeof path, dir, "model.safetensors.index.json");
        if (!(f = fopen(path, "rb"))) {
            e = LLM_EIO;
            if (why) *why = "no model.safetensors or model.safetensors.index.json in the directory";
            goto fail;
        }
        fclose(f);
        e = llm__read_file(path, 0, &imem, &ibase, &idata, &ilen, why);
        if (e != LLM_OK) goto fail;
        e = llm__hf_index_parse(&ix, (const char *)idata, ilen, m->why, sizeof m->why, why);
        if (e != LLM_OK) goto fail;
        names = ix.shards, n = ix.n_shards, indexed = 1;
    }
    /* each shard's header sizes its tables; then one block for all */
    fsize = (uint64_t *)LLM_MALLOC((size_t)n * (2 * sizeof *fsize + sizeof *stb)); /* the 64-bit arrays first: aligned */
    if (!fsize) {
        e = LLM_ENOMEM;
        if (why) *why = "out of memory";
        goto fail;
    }
    off = fsize + n, stb = (size_t *)(void *)(off + n);
    auxn = llm_hf_aux_floats(&c);
    off_aux = LLM__MALIGN((uint64_t)c.n_layers * sizeof(llm_layer_weights));
    off_sts = off_aux + LLM__MALIGN((uint64_t)auxn * sizeof(float));
    off_maps = off_sts + LLM__MALIGN((uint64_t)n * sizeof(llm_safetensors));
    total = off_maps + LLM__MALIGN((uint64_t)n * sizeof(llm__filemap));
    for (k = 0; k < n; k++) {
        memcpy(name, names[k].s, names[k].n);
        name[names[k].n] = '\0';
        if (!llm__path_join(path, sizeof path, dir, name)) {
            e = LLM_EINVAL;
            if (why) *why = "a shard's path is too long";
            goto fail;
        }
        e = llm__st_file_tables(path, name, &stb[k], &fsize[k], m->why, sizeof m->why, why);
        if (e != LLM_OK) goto fail;
        off[k] = total;
        total += LLM__MALIGN(stb[k]);
    }
    off_cfg = total;
    total += LLM__MALIGN((uint64_t)clen + 1);
#ifndef LLM_MMAP
    for (k = 0; k < n; k++) total += LLM__MALIGN(fsize[k]); /* the shards' bytes follow, in order */
#endif
    if (total > (uint64_t)(SIZE_MAX / 2)) {
        e = LLM_ENOMEM;
        if (why) *why = "the shards are too large for this address space";
        goto fail;
    }
    if (!(mem = LLM_MALLOC(LLM__FILE_HEAD + (size_t)total + 128))) {
        e = LLM_ENOMEM;
        if (why) *why = "out of memory";
        goto fail;
    }
    base = (char *)llm__align64(mem) + LLM__FILE_HEAD;
    sts = (llm_safetensors *)(void *)(base + off_sts);
    maps = (llm__filemap *)(void *)(base + off_maps);
    memset(sts, 0, (size_t)n * sizeof *sts);
    memset(maps, 0, (size_t)n * sizeof *maps);
    if (LLM__FILE_HEAD) {
        llm__filemap *fm = (llm__filemap *)llm__align64(mem);
        memset(fm, 0, sizeof *fm);
        fm->more = maps, fm->n_more = (size_t)n;
    }
    {
        uint64_t at = off_cfg + LLM__MALIGN((uint64_t)clen + 1);
        for (k = 0; k < n; k++) {
            const unsigned char *data;
            unsigned char *dst = NULL; /* mapped: no room for the bytes in the block */
            size_t len;
#ifndef LLM_MMAP
            dst = (unsigned char *)base + at;
#endif
            memcpy(name, names[k].s, names[k].n);
            name[names[k].n] = '\0';
            llm__path_join(path, sizeof path, dir, name);
            e = llm__shard_bytes(path, name, fsize[k], dst, &maps[k], &data, &len, m->why, sizeof m->why, why);
            if (e != LLM_OK) goto fail;
            at += LLM__MALIGN(fsize[k]);
            e = llm_safetensors_init(&sts[k], base + off[k], stb[k], data, len, why);
            if (e != LLM_OK) {
                if (why) *why = llm__why_file(m->why, sizeof m->why, name, *why);
                goto fail;
            }
        }
    }
    if (indexed && (e = llm__hf_index_check(&ix, sts, m->why, sizeof m->why, why)) != LLM_OK) goto fail;
    memcpy(base + off_cfg, cdata, clen);
    base[off_cfg + clen] = '\0';
    e = llm_hf_load_shards(m, base + off_cfg, clen, sts, n, (llm_layer_weights *)(void *)base, c.n_layers,
                           (float *)(void *)(base + off_aux), auxn, why);
    if (e != LLM_OK) {
        /* the reason may be in a shard's why, which ends with this call: keep it in the model */
        for (k = 0; k < n && why; k++)
            if (*why == sts[k].why) {
                memcpy(m->why, sts[k].why, sizeof m->why);
                *why = m->why;
            }
        goto fail;
    }
    llm__hf_index_free(&ix);
    if (imem) LLM_FREE(imem);
    LLM_FREE(fsize);
    LLM_FREE(cmem);
    m->owned = mem;
    return LLM_OK;
fail:
    llm__hf_index_free(&ix);
    if (imem) LLM_FREE(imem);
    if (fsize) LLM_FREE(fsize);
    llm__file_free(mem);
    if (cmem) LLM_FREE(cmem);
    return e;
}

/* The first `want` bytes of an open file into *buf (grown from its first *have bytes). */
static llm_status llm__read_more(FILE *f, unsigned char **buf, size_t *have, uint64_t want, const char **why) {
    unsigned char *nb;
    if (want > (uint64_t)SIZE_MAX / 2) LLM__FFAIL(why, "header too large for this address space", LLM_ENOMEM);
    if (!(nb = (unsigned char *)LLM_MALLOC((size_t)want + 1))) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    if (*have) memcpy(nb, *buf, *have);
    if (*buf) LLM_FREE(*buf);
    *buf = nb;
    if (fseek(f, (long)*have, SEEK_SET) != 0 || fread(nb + *have, 1, (size_t)(want - *have), f) != (size_t)(want - *have))
        LLM__FFAIL(why, "cannot read the file's header", LLM_EIO);
    *have = (size_t)want;
    return LLM_OK;
}

/* The GGUF (hf 0) or safetensors (hf 1) file at path into s: reads its header, growing
   the read to what the reader asks for, at least doubling each time. */
static llm_status llm__shapes_file(llm_model_shapes *s, const char *path, int hf, const char **why) {
    FILE *f;
    unsigned char *buf = NULL;
    size_t have = 0;
    uint64_t size, need = 0, want;
    llm_status st;
    LLM__MTRY(llm__open_read(path, &f, why));
    if (llm__file_size(f, &size) != 0) {
        fclose(f);
        LLM__FFAIL(why, "cannot seek in the file (or its size does not fit this platform's file offsets)", LLM_EIO);
    }
    want = hf ? 8 : 4096;
    for (;;) {
        if (want > size) want = size;
        st = llm__read_more(f, &buf, &have, want, why);
        if (st == LLM_OK) st = hf ? llm_hf_shapes_add(s, buf, have, size, &need, why) : llm_gguf_shapes(s, buf, have, size, &need, why);
        if (st != LLM_ERANGE || need <= have) break;
        want = need > 2 * (uint64_t)have ? need : 2 * (uint64_t)have;
    }
    fclose(f);
    if (buf) LLM_FREE(buf);
    return st;
}

LLMDEF llm_status llm_gguf_shapes_file(llm_model_shapes *s, const char *path, const char **why) {
    return llm__shapes_file(s, path, 0, why);
}

LLMDEF llm_status llm_hf_shapes_dir(llm_model_shapes *s, const char *dir, const char **why) {
    char path[4096], *base, name[256];
    void *mem = NULL;
    unsigned char *data;
    size_t len;
    llm__hf_index ix;
    int k;
    llm_status e;
    FILE *f;
    if (why) *why = "";
    if (!s) LLM__FFAIL(why, "no llm_model_shapes", LLM_EINVAL);
    if (!dir || !llm__path_join(path, sizeof path, dir, "config.json")) LLM__FFAIL(why, "no directory, or its path is too long", LLM_EINVAL);
    e = llm__read_file(path, 0, &mem, &base, &data, &len, why);
    if (e != LLM_OK) LLM__FFAIL(why, "cannot read config.json in the directory", e);
    e = llm_hf_shapes(s, (const char *)data, len, why);
    LLM_FREE(mem);
    if (e != LLM_OK) return e;
    llm__path_join(path, sizeof path, dir, "model.safetensors");
    if ((f = fopen(path, "rb")) != NULL) {
        fclose(f);
        return llm__shapes_file(s, path, 1, why);
    }
    /* sharded: the files weight_map names, each once (in order of first mention), read by
       llm_hf_load_dir's own index reader */
    llm__path_join(path, sizeof path, dir, "model.safetensors.index.json");
    if (llm__read_file(path, 0, &mem, &base, &data, &len, why) != LLM_OK)
        LLM__FFAIL(why, "no model.safetensors or model.safetensors.index.json in the directory", LLM_EIO);
    e = llm__hf_index_parse(&ix, (const char *)data, len, s->why, sizeof s->why, why);
    for (k = 0; e == LLM_OK && k < ix.n_shards; k++) {
        memcpy(name, ix.shards[k].s, ix.shards[k].n);
        name[ix.shards[k].n] = '\0';
        if (!llm__path_join(path, sizeof path, dir, name)) {
            e = LLM_EINVAL;
            if (why) *why = "a shard's path is too long";
            break;
        }
        e = llm__shapes_file(s, path, 1, why);
    }
    llm__hf_index_free(&ix);
    LLM_FREE(mem);
    return e;
}
#endif /* LLM_NO_STDIO */

/* ======================================================================================
   >>tokenizer implementation
   ====================================================================================== */

/* ---- >>unicode: UTF-8, the Unicode category and normalization tables, pre-tokenizer splits */

/* Every code point's properties come from one generated table (the block at the end of
   this subsection, written by tools/gen_unicode.py from the Unicode Character Database):
   llm__ucd gives the general-category flags the pre-tokenizers test, llm__ucd_ccc_of the
   canonical combining class NFC needs. */
#define LLM__UC_L 1u   /* letter: Lu Ll Lt Lm Lo (regex \p{L}) */
#define LLM__UC_N 2u   /* number: Nd Nl No (\p{N}) */
#define LLM__UC_WS 4u  /* the White_Space property (PropList.txt): regex \s */
#define LLM__UC_P 8u   /* punctuation: Pc Pd Ps Pe Pi Pf Po */
#define LLM__UC_S 16u  /* symbol: Sm Sc Sk So */
#define LLM__UC_M 32u  /* mark: Mn Mc Me */
#define LLM__UC_Z 64u  /* separator: Zs Zl Zp */
#define LLM__UC_C 128u /* other: Cc Cf Cs Co Cn (unassigned too, and anything past U+10FFFF) */
/* The helpers the vocabularies below call: a build may not use every one of them. */
#if defined(__GNUC__) || defined(__clang__)
#define LLM__UNI static __attribute__((unused))
#else
#define LLM__UNI static
#endif
LLM__UNI unsigned llm__ucd(uint32_t cp);
LLM__UNI unsigned llm__ucd_ccc_of(uint32_t cp);

/* One UTF-8 sequence (RFC 3629) at s[i], i < n: returns the bytes it takes (1..4) and the
   code point. Anything else takes one byte and gives U+FFFD: a stray continuation byte,
   C0/C1 or F5..FF, an overlong form, a surrogate (U+D800..DFFF), a value past U+10FFFF,
   or a sequence cut short by n. The second byte's range depends on the first (E0: A0..BF,
   ED: 80..9F, F0: 90..BF, F4: 80..8F), which rules out the overlong, surrogate and too
   large forms; the later bytes are 80..BF. */
LLM__UNI int llm__utf8_next(const unsigned char *s, int64_t n, int64_t i, uint32_t *cp) {
    unsigned c = s[i], lo = 0x80, hi = 0xBF;
    int len, k;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) len = 2, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, v = c & 0x07;
    else goto bad;
    if (c == 0xE0) lo = 0xA0;
    else if (c == 0xED) hi = 0x9F;
    else if (c == 0xF0) lo = 0x90;
    else if (c == 0xF4) hi = 0x8F;
    if (n - i < len) goto bad;
    for (k = 1; k < len; k++) {
        unsigned b = s[i + k];
        if (b < lo || b > hi) goto bad;
        lo = 0x80, hi = 0xBF;
        v = v << 6 | (b & 0x3F);
    }
    *cp = v;
    return len;
bad:
    *cp = 0xFFFD;
    return 1;
}

/* ---- pre-tokenizer splits ------------------------------------------------------------
   A byte-level BPE vocabulary merges inside pieces only, and the pieces come from a regex
   its tokenizer.json names. These are hand-written matchers, one per pattern, with the
   semantics of the regex engines the reference tokenizers use (Oniguruma, Rust's regex):
   alternatives tried left to right at a position and the first that matches wins, every
   quantifier greedy with backtracking, \s the White_Space property. llm__pretok_next
   returns the end of the piece that starts at i; a caller walks the text with it from 0.
   An invalid UTF-8 byte is one code point that is neither letter, number nor space. */

/* The text a matcher sees: s[0 .. end), and with stop_n set (SmolLM) a number ends it as
   well, because an earlier split has cut the text at every \p{N}. */
typedef struct llm__span {
    const unsigned char *s;
    int64_t end;
    int stop_n;
} llm__span;

/* The flags of the code point at i, 0 at the end of the span; *len its bytes, *cp it. */
static unsigned llm__at(const llm__span *t, int64_t i, int *len, uint32_t *cp) {
    unsigned f;
    if (i >= t->end) return *len = 0, *cp = 0, 0u;
    *len = llm__utf8_next(t->s, t->end, i, cp);
    f = llm__ucd(*cp);
    return t->stop_n && (f & LLM__UC_N) ? 0u : f;
}

/* The end of the run of code points from i that all have one of the flags in mask. */
static int64_t llm__run(const llm__span *t, int64_t i, unsigned mask) {
    int len;
    uint32_t cp;
    while (llm__at(t, i, &len, &cp) & mask) i += len;
    return i;
}
/* ... that are none of letter, number, space: the class [^\s\p{L}\p{N}] */
static int64_t llm__run_other(const llm__span *t, int64_t i) {
    int len;
    uint32_t cp;
    unsigned f;
    while ((f = llm__at(t, i, &len, &cp)) != 0 && !(f & (LLM__UC_L | LLM__UC_N | LLM__UC_WS))) i += len;
    return i;
}

/* A whitespace run from i (s[i] is \s), and how the patterns' space alternatives end it:
   \s+(?!\S) takes the run when nothing but the end follows it, else all of it but its last
   code point (which the next piece takes: " " before a word joins the word) when that
   leaves at least one; \s+ takes a lone one. *nl: the end of the run's last \r or \n (the
   end of \s*[\r\n]+, which backtracks \s* to there), 0 when it has none. */
static int64_t llm__ws_piece(const llm__span *t, int64_t i, int64_t *nl) {
    int64_t k = i, last = i;
    int len, count = 0;
    uint32_t cp;
    *nl = 0;
    while (llm__at(t, k, &len, &cp) & LLM__UC_WS) {
        last = k;
        k += len;
        count++;
        if (cp == '\r' || cp == '\n') *nl = k;
    }
    if (llm__at(t, k, &len, &cp) == 0) return k; /* the end follows: (?!\S) holds */
    return count >= 2 ? last : k;
}

/* 's 't 're 've 'm 'll 'd at i: the end, or 0. fold: case-insensitive (Llama 3's (?i:...)),
   where Unicode case folding also matches U+017F LATIN SMALL LETTER LONG S to s. */
static int64_t llm__contraction(const llm__span *t, int64_t i, int fold) {
    int64_t k = i + 1;
    int len, j;
    uint32_t c[2];
    if (i >= t->end || t->s[i] != '\'') return 0;
    for (j = 0; j < 2; j++) {
        if (!llm__at(t, k, &len, &c[j])) c[j] = 0;
        if (fold && c[j] >= 'A' && c[j] <= 'Z') c[j] += 'a' - 'A';
        if (fold && c[j] == 0x17F) c[j] = 's';
        if (j == 0 && (c[0] == 's' || c[0] == 't' || c[0] == 'm' || c[0] == 'd')) return k + len;
        if (!c[j]) return 0;
        k += len;
    }
    if ((c[0] == 'r' && c[1] == 'e') || (c[0] == 'v' && c[1] == 'e') || (c[0] == 'l' && c[1] == 'l')) return k;
    return 0;
}

/* GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static int64_t llm__split_gpt2(const llm__span *t, int64_t i) {
    int64_t j = i, k, nl;
    int len, len1;
    uint32_t cp, cp1;
    unsigned f = llm__at(t, i, &len, &cp), f1;
    if ((k = llm__contraction(t, i, 0)) != 0) return k;
    /* " ?" then a letter, number or other run: the space joins what follows it */
    if (cp == ' ' && (f1 = llm__at(t, i + 1, &len1, &cp1)) != 0 && !(f1 & LLM__UC_WS)) j = i + 1, f = f1;
    if (f & LLM__UC_L) return llm__run(t, j, LLM__UC_L);
    if (f & LLM__UC_N) return llm__run(t, j, LLM__UC_N);
    if (!(f & LLM__UC_WS)) return llm__run_other(t, j);
    return llm__ws_piece(t, i, &nl);
}

/* Llama 3 (max_digits 3) and Qwen2 (1):
   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
   \s*[\r\n]+|\s+(?!\S)|\s+ */
static int64_t llm__split_llama3(const llm__span *t, int64_t i, int max_digits) {
    int64_t j = i, k, nl;
    int len, len1, d;
    uint32_t cp, cp1;
    unsigned f = llm__at(t, i, &len, &cp), f1 = llm__at(t, i + len, &len1, &cp1);
    if ((k = llm__contraction(t, i, 1)) != 0) return k;
    /* one code point that is not \r \n letter number, then letters: "(hello", " hello" */
    if (!(f & (LLM__UC_L | LLM__UC_N)) && cp != '\r' && cp != '\n' && (f1 & LLM__UC_L))
        return llm__run(t, i + len, LLM__UC_L);
    if (f & LLM__UC_L) return llm__run(t, i, LLM__UC_L);
    if (f & LLM__UC_N) {
        for (d = 0, k = i; d < max_digits && (llm__at(t, k, &len, &cp) & LLM__UC_N); d++) k += len;
        return k;
    }
    /* " ?" other run, then any \r and \n */
    if (cp == ' ' && f1 && !(f1 & (LLM__UC_WS | LLM__UC_L | LLM__UC_N))) j = i + 1, f = f1;
    if (!(f & LLM__UC_WS)) {
        k = llm__run_other(t, j);
        while (k < t->end && (t->s[k] == '\r' || t->s[k] == '\n')) k++;
        return k;
    }
    k = llm__ws_piece(t, i, &nl);
    return nl ? nl : k; /* \s*[\r\n]+ comes before \s+(?!\S) */
}

/* DeepSeek LLM: six regexes applied in turn, each splitting every piece of the one before
   into its matches and the gaps between them (Hugging Face's Split, "Isolated"):
     [\r\n]   \s?[Latin]+   \s?[Punct]+   \s+$   [CJK]+   \p{N}+
   (the classes are tables from tools/gen_unicode.py). The piece from i is found level by
   level: at each, the piece of the level before that holds i ends at e; this level's piece
   from i is a match at i, or the gap up to the next match before e. That needs no memory
   of earlier pieces because every match's tail is a match with the same end (no pattern
   looks behind), so starting inside one changes nothing. */
static int llm__ds_class(uint32_t cp, int level); /* with the tables, below */
/* the end of level's match at p (< e), or -1 when it does not match there */
static int64_t llm__ds_match(const unsigned char *s, int64_t p, int64_t e, int level) {
    int len;
    uint32_t cp, cp1;
    int64_t k;
    len = llm__utf8_next(s, e, p, &cp);
    k = p;
    /* \s? before the Latin and Punct runs: taken when a class member follows it */
    if ((level == 2 || level == 3) && (llm__ucd(cp) & LLM__UC_WS) && p + len < e) {
        (void)llm__utf8_next(s, e, p + len, &cp1);
        if (llm__ds_class(cp1, level)) k = p + len, cp = cp1;
    }
    if (!llm__ds_class(cp, level)) return -1;
    while (k < e) {
        len = llm__utf8_next(s, e, k, &cp);
        if (!llm__ds_class(cp, level)) break;
        k += len;
    }
    return k;
}
/* The levels 2..6 of the piece from i, within s[i .. e) (i is not \r or \n). */
static int64_t llm__ds_levels(const unsigned char *s, int64_t i, int64_t e) {
    int64_t p, m, ws_from;
    int level, len;
    uint32_t cp;
    for (level = 2; level <= 6; level++) {
        if (level == 4) { /* \s+$: the whitespace the piece ends with, if any */
            for (p = i, ws_from = -1; p < e; p += len) {
                len = llm__utf8_next(s, e, p, &cp);
                if (!(llm__ucd(cp) & LLM__UC_WS)) ws_from = -1;
                else if (ws_from < 0) ws_from = p;
            }
            if (ws_from > i) e = ws_from; /* the gap before it; from i, the match is all of it */
            continue;
        }
        if ((m = llm__ds_match(s, i, e, level)) >= 0) {
            e = m;
            continue;
        }
        for (p = i + llm__utf8_next(s, e, i, &cp); p < e && s[p] != '\r' && s[p] != '\n'; p += len) {
            len = llm__utf8_next(s, e, p, &cp);
            if (llm__ds_match(s, p, e, level) >= 0) break;
        }
        e = p;
    }
    return e;
}
/* Level 1 isolates each \r and \n; the line's end bounds the rest. Rather than scan to it
   (a line can be long, and a piece short), the levels run in a window s[i .. b) that ends
   after a code point other than \s, doubled until the piece ends inside it: a piece that
   ends before b ends there in the whole line too (a level whose piece ends before its
   bound ends there for any longer bound; and the window cannot end inside the trailing
   whitespace \s+$ looks for). So a piece costs about its own length. */
static int64_t llm__split_deepseek(const unsigned char *s, int64_t n, int64_t i) {
    int64_t w = 16, b, e;
    int len;
    uint32_t cp;
    if (s[i] == '\r' || s[i] == '\n') return i + 1;
    for (;; w *= 2) {
        for (b = i; b < n && s[b] != '\r' && s[b] != '\n' && b - i < w; b += len) len = llm__utf8_next(s, n, b, &cp);
        while (b < n && s[b] != '\r' && s[b] != '\n' && (llm__ucd(cp) & LLM__UC_WS)) {
            len = llm__utf8_next(s, n, b, &cp);
            b += len;
        }
        e = llm__ds_levels(s, i, b);
        if (e < b || b == n || s[b] == '\r' || s[b] == '\n') return e;
    }
}

LLM__UNI int64_t llm__pretok_next(llm_pretok kind, const unsigned char *s, int64_t n, int64_t i) {
    llm__span t;
    int len;
    uint32_t cp;
    if (i >= n) return n;
    t.s = s, t.end = n, t.stop_n = 0;
    switch (kind) {
    case LLM_PRETOK_GPT2: return llm__split_gpt2(&t, i);
    case LLM_PRETOK_LLAMA3: return llm__split_llama3(&t, i, 3);
    case LLM_PRETOK_QWEN2: return llm__split_llama3(&t, i, 1);
    case LLM_PRETOK_DEEPSEEK_LLM: return llm__split_deepseek(s, n, i);
    case LLM_PRETOK_SMOLLM:
        /* every digit alone (Hugging Face's Digits(individual_digits)), then GPT-2's
           pattern on the text between them */
        len = llm__utf8_next(s, n, i, &cp);
        if (llm__ucd(cp) & LLM__UC_N) return i + len;
        t.stop_n = 1;
        return llm__split_gpt2(&t, i);
    default: return n; /* LLM_PRETOK_NONE: one piece */
    }
}

LLMDEF llm_status llm_pretok_from_name(const char *name, llm_pretok *out, const char **why) {
    static const char *const names[LLM_PRETOK_COUNT] = {"default", "gpt-2", "llama-bpe", "qwen2", "deepseek-llm",
                                                         "smollm"};
    int k;
    if (why) *why = "";
    if (!out) {
        if (why) *why = "out is NULL";
        return LLM_EINVAL;
    }
    *out = LLM_PRETOK_NONE;
    if (!name || !*name) return LLM_OK;
    for (k = 0; k < LLM_PRETOK_COUNT; k++)
        if (strcmp(name, names[k]) == 0) {
            *out = (llm_pretok)k;
            return LLM_OK;
        }
    if (why) *why = "a pre-tokenizer llm.h does not have (it has gpt-2, llama-bpe, qwen2, deepseek-llm, smollm)";
    return LLM_EUNSUPPORTED;
}

/* ---- NFC (Unicode Standard Annex #15) -------------------------------------------------
   Qwen's tokenizer normalizes text to NFC before splitting it. The three steps: replace
   every code point by its full canonical decomposition (Hangul syllables by arithmetic,
   UAX #15 / Unicode chapter 3.12), sort each run of non-starters (combining class > 0)
   stably by class, then compose: a code point C joins the last starter S before it when
   nothing between them blocks it (no code point of class 0 or of C's class or higher) and
   S + C has a primary composite (a canonical pair that is not a composition exclusion).
   It runs segment by segment in the caller's out buffer: a segment is a starter and the
   non-starters after it, written decomposed, sorted and composed in place (a composite is
   never longer than its parts), then the next starter may still compose with it when the
   segment came down to one code point (L + V, LV + T in Hangul; a few Indic vowels).
   Invalid UTF-8 bytes are copied as they are and compose with nothing. */
static int llm__ucd_decomp_of(uint32_t cp, uint32_t *first, uint32_t *second); /* with the tables */
static uint32_t llm__ucd_compose(uint32_t a, uint32_t b);

#define LLM__HANGUL_S 0xAC00u
#define LLM__HANGUL_L 0x1100u
#define LLM__HANGUL_V 0x1161u
#define LLM__HANGUL_T 0x11A7u
#define LLM__HANGUL_N 588u /* V count 21 x T count 28 */

static int llm__utf8_size(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }
static void llm__utf8_put(unsigned char *o, uint32_t cp, int len) {
    static const unsigned char lead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
    int k;
    for (k = len - 1; k > 0; k--, cp >>= 6) o[k] = (unsigned char)(0x80 | (cp & 0x3F));
    o[0] = (unsigned char)(len == 1 ? cp : lead[len] | cp);
}

/* cp's full canonical decomposition into d (LLM__UCD_NFD_MAX at most); returns the count */
static int llm__nfd_cp(uint32_t cp, uint32_t *d) {
    uint32_t s = cp - LLM__HANGUL_S, a, b;
    int n;
    if (cp >= LLM__HANGUL_S && s < 19 * LLM__HANGUL_N) {
        d[0] = LLM__HANGUL_L + s / LLM__HANGUL_N;
        d[1] = LLM__HANGUL_V + s % LLM__HANGUL_N / 28;
        if (s % 28 == 0) return 2;
        d[2] = LLM__HANGUL_T + s % 28;
        return 3;
    }
    if (cp < 0xC0 || !llm__ucd_decomp_of(cp, &a, &b)) return d[0] = cp, 1;
    n = llm__nfd_cp(a, d);
    return b ? n + llm__nfd_cp(b, d + n) : n;
}

/* S + C -> the composite, or 0 */
static uint32_t llm__nfc_pair(uint32_t s, uint32_t c) {
    if (s - LLM__HANGUL_L < 19 && c - LLM__HANGUL_V < 21)
        return LLM__HANGUL_S + ((s - LLM__HANGUL_L) * 21 + (c - LLM__HANGUL_V)) * 28;
    if (s - LLM__HANGUL_S < 19 * LLM__HANGUL_N && (s - LLM__HANGUL_S) % 28 == 0 && c - LLM__HANGUL_T - 1 < 27)
        return s + (c - LLM__HANGUL_T);
    return llm__ucd_compose(s, c);
}

/* The code point starting at o[p] (valid UTF-8 this code wrote), and where it starts
   before p */
static uint32_t llm__nfc_get(const unsigned char *o, size_t p, size_t end, int *len) {
    uint32_t cp;
    *len = llm__utf8_next(o, (int64_t)end, (int64_t)p, &cp);
    return cp;
}
static size_t llm__nfc_back(const unsigned char *o, size_t p) {
    do p--;
    while ((o[p] & 0xC0) == 0x80);
    return p;
}

/* Sorts and composes the segment o[seg .. *w) in place. *prev: where the code point the
   last segment came down to starts (it may compose with this segment's starter), or -1. */
static void llm__nfc_segment(unsigned char *o, size_t seg, size_t *w, int64_t *prev) {
    size_t p, q, r, end = *w, sp = 0, wr;
    int len, lq, ls = 0, lx, have_s = 0;
    unsigned c, last = 0; /* the class of the last code point kept after S; 0: none */
    uint32_t cp, s = 0, x;
    unsigned char tmp[8];
    /* canonical order: insertion sort, each non-starter moved back past the higher classes */
    for (p = seg; p < end; p += (size_t)len) {
        c = llm__ucd_ccc_of(llm__nfc_get(o, p, end, &len));
        for (q = p; c && q > seg;) {
            size_t b = llm__nfc_back(o, q);
            unsigned cb = llm__ucd_ccc_of(llm__nfc_get(o, b, end, &lq));
            if (cb <= c) break;
            /* swap o[b .. q) and o[q .. q + len) */
            memcpy(tmp, o + q, (size_t)len);
            memmove(o + b + len, o + b, (size_t)lq);
            memcpy(o + b, tmp, (size_t)len);
            q = b;
        }
    }
    /* composition */
    r = wr = seg;
    cp = llm__nfc_get(o, seg, end, &len);
    if (llm__ucd_ccc_of(cp) == 0) {
        have_s = 1, s = cp, sp = seg, ls = len, r = wr = seg + (size_t)len;
        if (*prev >= 0) { /* a starter right after a lone starter */
            uint32_t ps = llm__nfc_get(o, (size_t)*prev, end, &lq);
            if ((x = llm__nfc_pair(ps, cp)) != 0) {
                sp = (size_t)*prev, s = x, ls = llm__utf8_size(x);
                llm__utf8_put(o + sp, x, ls);
                wr = sp + (size_t)ls;
            }
        }
    }
    for (; r < end; r += (size_t)len) {
        cp = llm__nfc_get(o, r, end, &len);
        c = llm__ucd_ccc_of(cp);
        if (have_s && (last == 0 || last < c) && (x = llm__nfc_pair(s, cp)) != 0) {
            lx = llm__utf8_size(x);
            if (lx != ls) memmove(o + sp + lx, o + sp + ls, wr - (sp + (size_t)ls));
            wr = wr + (size_t)lx - (size_t)ls;
            llm__utf8_put(o + sp, x, lx);
            s = x, ls = lx;
            continue;
        }
        if (wr != r) memmove(o + wr, o + r, (size_t)len);
        wr += (size_t)len;
        last = c;
    }
    *w = wr;
    *prev = have_s && wr == sp + (size_t)ls ? (int64_t)sp : -1;
}

LLMDEF size_t llm_nfc_bound(size_t n) { return n > SIZE_MAX / 3 ? SIZE_MAX : 3 * n; }

LLMDEF llm_status llm_nfc(const char *in, size_t n, char *out, size_t cap, size_t *out_len) {
    const unsigned char *s = (const unsigned char *)in;
    unsigned char *o = (unsigned char *)out;
    size_t i = 0, w = 0, seg = 0;
    int64_t prev = -1;
    if (out_len) *out_len = 0;
    if (!out_len || (!in && n) || (!out && cap)) return LLM_EINVAL;
    while (i < n) {
        uint32_t cp, d[8];
        size_t j = i;
        /* ASCII followed by ASCII is final as it is: nothing below U+0300 composes with
           what precedes it, so copy such runs */
        while (j < n && s[j] < 0x80 && (j + 1 == n || s[j + 1] < 0x80)) j++;
        if (j > i) {
            if (w > seg) llm__nfc_segment(o, seg, &w, &prev);
            if (cap - w < j - i) goto full;
            memcpy(o + w, s + i, j - i);
            w += j - i, i = j, seg = w, prev = -1;
            continue;
        } /* LLM__UCD_NFD_MAX (4) at most: tools/gen_unicode.py checks it is <= 8 */
        int len = llm__utf8_next(s, (int64_t)n, (int64_t)i, &cp), k, nd, ld;
        if (len == 1 && cp == 0xFFFD) { /* an invalid byte: kept, and it ends the segment */
            if (w > seg) llm__nfc_segment(o, seg, &w, &prev);
            if (w >= cap) goto full;
            o[w++] = s[i++];
            seg = w, prev = -1;
            continue;
        }
        i += (size_t)len;
        d[0] = cp;
        nd = cp < 0x80 ? 1 : llm__nfd_cp(cp, d);
        for (k = 0; k < nd; k++) {
            if (w > seg && llm__ucd_ccc_of(d[k]) == 0) { /* a starter begins the next segment */
                llm__nfc_segment(o, seg, &w, &prev);
                seg = w;
            }
            ld = llm__utf8_size(d[k]);
            if (cap - w < (size_t)ld) goto full;
            llm__utf8_put(o + w, d[k], ld);
            w += (size_t)ld;
        }
    }
    if (w > seg) llm__nfc_segment(o, seg, &w, &prev);
    *out_len = w;
    return LLM_OK;
full:
    *out_len = llm_nfc_bound(n);
    return LLM_ERANGE;
}

/* The Unicode tables, then the lookups that read them. */
/* >>unicode-tables begin: generated by tools/gen_unicode.py from the Unicode Character
   Database 15.0.0 (UnicodeData.txt, PropList.txt, CompositionExclusions.txt): do not
   edit, re-run the script. 48756 bytes of tables: 63 property rows, 499 distinct
   32-code-point blocks, 62 distinct runs of blocks; 2061 canonical decompositions, 941
   of them composing. */
#define LLM__UNICODE_VERSION "15.0.0"
#define LLM__UCD_SHIFT 5
#define LLM__UCD_TOP 10
#define LLM__UCD_N_DECOMP 2061
#define LLM__UCD_N_COMP 941
#define LLM__UCD_NFD_MAX 4 /* code points in the longest full decomposition */
#define LLM__UCD_MIN_SECOND 0x300 /* below it no code point composes with the one before */
/* property rows: general-category flags | White_Space; canonical combining class */
static const unsigned char llm__ucd_flags[63] = {
128,1,16,2,32,8,32,32,32,32,32,68,32,32,32,132,32,32,32,32,32,32,32,32,
32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,
32,32,32,32,32,32,32,32,32,32,32,32,32,32,32,
};
static const unsigned char llm__ucd_ccc[63] = {
0,0,0,0,0,0,230,220,9,1,7,0,216,232,130,0,202,228,234,107,122,222,233,6,
8,18,19,27,28,29,30,31,32,103,118,218,224,10,11,12,13,14,15,16,17,20,21,22,
23,24,25,26,33,34,35,36,84,91,129,132,214,226,240,
};
/* the flags of U+0000..U+007F, the common case, without the three lookups */
static const unsigned char llm__ucd_ascii[128] = {
128,128,128,128,128,128,128,128,128,132,132,132,132,132,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,
68,8,8,8,16,8,8,8,8,8,8,16,8,8,8,8,2,2,2,2,2,2,2,2,2,2,8,8,16,16,16,8,
8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,8,8,8,16,8,
16,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,8,16,8,16,128,
};
/* code point c: run llm__ucd_stage1[c >> TOP], block llm__ucd_stage2[run << (TOP - SHIFT) |
   (c >> SHIFT & mask)], row llm__ucd_stage3[block << SHIFT | (c & mask)] */
static const unsigned char llm__ucd_stage1[1088] = {
0,1,2,3,4,5,6,7,8,9,10,11,12,13,13,13,13,13,13,14,13,13,13,13,13,13,13,13,13,13,13,13,
13,13,13,13,13,13,13,13,13,15,16,13,13,13,13,13,13,13,13,13,13,17,18,18,18,18,18,18,18,18,19,20,
21,22,23,24,25,26,27,28,29,30,18,31,13,32,18,18,18,33,18,18,18,18,18,18,18,18,34,35,13,13,13,13,
13,36,13,37,18,18,18,18,18,18,18,38,39,18,18,40,18,18,18,41,42,43,44,45,46,47,48,49,50,51,52,18,
13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,13,
13,13,13,13,13,13,13,13,13,53,13,13,13,54,55,13,13,13,13,56,13,13,13,13,13,13,57,18,18,18,58,18,
13,13,13,13,59,13,13,13,60,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
61,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,18,
};
static const unsigned short llm__ucd_stage2[1984] = {
0,1,2,3,4,5,6,6,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,8,9,10,11,12,13,14,15,7,16,7,7,7,7,17,7,7,7,
7,18,19,7,20,21,22,23,24,7,25,26,7,7,27,28,29,30,31,7,
7,32,33,34,35,36,37,38,39,7,40,41,42,43,44,45,46,47,48,49,
50,51,52,53,54,55,56,57,58,55,59,60,61,62,63,64,65,66,67,68,
69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,84,
88,89,90,91,92,93,94,84,7,95,96,97,98,7,99,100,7,7,7,7,
7,7,7,7,7,7,101,7,102,103,104,7,105,7,106,107,108,7,7,109,
110,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,111,
112,7,7,113,114,115,116,117,7,118,119,120,121,7,7,122,123,124,7,125,
126,127,128,129,7,130,131,132,133,7,134,135,120,136,137,84,138,139,140,141,
142,143,7,144,7,145,146,147,148,149,150,151,7,7,7,7,7,7,152,153,
7,7,7,7,7,7,7,7,109,7,154,155,7,156,157,158,159,160,161,162,
163,132,164,165,166,167,168,169,170,132,132,132,132,132,132,132,132,132,132,132,
171,172,132,132,132,132,132,132,132,173,174,169,175,132,132,176,132,132,132,132,
132,132,132,132,132,132,132,132,132,132,132,132,132,132,132,177,178,132,179,180,
132,132,132,132,132,132,132,132,132,132,132,132,181,132,182,183,132,132,132,132,
132,132,132,132,132,132,132,184,185,132,132,132,7,7,7,7,7,7,7,186,
7,99,7,187,188,189,189,190,191,192,193,84,194,132,132,195,132,132,132,132,
132,132,196,197,198,199,81,7,200,110,7,100,201,18,7,7,202,7,132,203,
204,205,206,132,205,207,132,132,132,132,132,132,132,132,132,132,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,132,132,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,208,132,209,147,7,7,7,7,7,7,7,7,210,211,7,212,
213,7,7,214,215,216,7,7,217,7,218,219,220,221,7,222,223,118,224,225,
33,226,227,228,42,229,230,231,7,232,233,234,7,235,236,237,238,239,240,241,
7,7,7,242,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,243,244,245,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,7,7,7,7,
7,7,7,7,7,7,7,246,7,7,247,84,248,249,250,7,7,251,252,7,
7,7,7,7,7,7,7,7,7,147,253,7,254,7,255,256,257,258,259,260,
7,7,7,228,261,2,262,263,7,126,264,265,266,267,268,84,7,7,7,269,
270,271,169,272,273,274,275,276,84,84,84,84,228,7,277,278,7,279,280,281,
282,7,283,84,7,7,7,7,155,284,285,245,7,286,7,287,288,289,84,84,
7,7,7,7,7,7,7,7,7,188,125,290,291,292,84,84,293,294,295,296,
126,297,84,298,299,300,84,84,7,301,302,169,303,304,305,306,307,84,308,309,
7,310,311,312,313,314,84,84,7,7,315,84,7,316,7,317,7,318,84,84,
84,84,84,84,84,84,84,319,7,320,84,321,307,322,323,324,325,324,326,188,
142,327,328,329,142,330,331,332,333,334,335,336,142,337,338,339,340,341,342,84,
343,344,345,346,347,348,349,350,84,84,84,84,7,351,352,353,7,354,355,84,
84,84,84,84,7,356,357,84,7,358,359,360,7,361,362,84,363,364,365,84,
84,84,84,84,7,366,84,84,84,7,7,367,368,369,370,84,84,371,372,373,
374,375,376,7,377,378,7,122,379,84,84,84,84,84,84,84,380,381,382,383,
384,385,84,84,386,387,388,389,390,362,84,84,84,84,84,84,84,84,84,391,
392,393,394,84,84,395,396,397,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,247,84,84,84,
169,169,169,398,7,7,7,7,7,7,399,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
324,7,7,400,7,401,402,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,365,84,84,84,84,84,
84,84,84,84,84,84,84,84,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,122,126,403,7,126,284,404,7,405,406,407,401,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,7,7,
408,84,84,84,7,7,409,410,411,84,84,412,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,413,7,7,7,7,7,7,125,84,315,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,414,7,7,7,7,7,7,7,7,7,415,416,417,
7,7,7,7,7,7,7,7,7,7,7,245,84,84,84,84,84,84,84,84,
7,7,7,418,419,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,410,420,421,132,
132,132,422,84,132,132,132,132,132,132,132,196,132,423,132,424,425,426,132,174,
132,132,427,84,84,84,428,428,132,132,429,430,84,84,84,84,7,7,431,7,
432,433,434,7,435,436,437,7,7,7,7,7,7,7,7,7,7,438,439,240,
440,440,441,441,442,442,443,169,132,132,132,132,132,132,132,132,132,132,132,132,
132,132,132,132,410,444,410,445,446,447,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,126,448,84,84,84,84,84,84,449,450,7,451,452,84,84,84,
7,453,454,84,84,84,84,84,84,84,84,84,324,455,7,456,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,324,457,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,84,84,84,84,458,7,7,7,7,
7,7,459,84,7,7,460,84,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,84,84,84,461,169,462,84,84,463,464,84,84,
84,84,84,84,434,465,466,467,468,469,84,470,84,84,84,84,84,84,84,84,
132,471,132,132,195,472,473,196,474,132,132,132,132,475,84,476,477,478,479,480,
84,84,84,84,132,132,132,132,132,132,132,132,132,132,132,132,132,132,132,132,
132,132,132,132,132,132,132,132,132,132,132,132,132,132,481,482,132,132,132,483,
132,132,484,485,471,132,486,132,487,488,84,84,132,132,132,132,132,132,132,132,
132,132,195,489,490,491,492,493,132,132,132,132,494,132,174,495,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,84,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,247,7,7,7,7,7,7,
155,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,496,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,497,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,155,84,84,84,84,84,84,84,
84,84,84,84,84,84,84,84,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,38,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
7,7,7,7,7,7,7,7,7,401,84,84,84,84,84,84,84,84,84,84,
410,410,410,410,410,410,410,498,84,84,84,84,84,84,84,84,84,84,84,84,
84,84,84,84,
};
static const unsigned char llm__ucd_stage3[15968] = {
0,0,0,0,0,0,0,0,0,15,15,15,15,15,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,11,5,5,5,2,5,5,5,
5,5,5,2,5,5,5,5,3,3,3,3,3,3,3,3,3,3,5,5,2,2,2,5,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,5,5,5,2,5,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,5,2,5,2,0,0,0,0,0,0,15,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
11,5,2,2,2,2,2,5,2,2,1,5,2,0,2,2,2,2,3,3,2,1,5,5,2,3,1,5,3,3,3,5,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,1,1,1,1,1,2,2,2,2,2,2,2,1,2,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,13,7,7,7,7,13,12,7,7,7,7,7,16,16,7,7,7,7,16,
16,7,7,7,7,7,7,7,7,7,7,7,9,9,9,9,9,7,7,7,7,6,6,6,6,6,6,6,6,62,6,7,7,7,6,6,6,7,7,4,
6,6,6,7,7,7,7,6,13,7,7,6,22,18,18,22,18,18,22,6,6,6,6,6,6,6,6,6,6,6,6,6,1,1,1,1,1,2,1,1,
0,0,1,1,1,1,5,1,0,0,0,0,2,2,1,5,1,1,1,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,2,6,6,6,6,6,4,4,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,5,5,5,5,5,5,
1,1,1,1,1,1,1,1,1,5,5,0,0,2,2,2,0,7,6,6,6,6,7,6,6,6,21,7,6,6,6,6,6,6,7,7,7,7,7,7,
6,6,7,6,6,21,17,6,37,38,39,40,41,42,43,44,25,26,26,45,46,47,5,48,5,49,50,5,6,7,5,25,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,1,1,1,1,5,5,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,5,5,2,5,5,2,2,6,6,6,6,6,6,6,6,30,31,32,5,0,5,5,5,
1,1,1,1,1,1,1,1,1,1,1,27,28,29,30,31,32,52,53,6,6,7,7,6,6,6,6,6,7,6,6,7,3,3,3,3,3,3,3,3,
3,3,5,5,5,5,1,1,54,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,5,1,6,6,6,6,6,6,6,0,2,6,6,6,6,7,6,1,1,6,6,2,7,6,6,7,1,1,3,3,3,3,3,3,3,3,
3,3,1,1,1,2,2,1,5,5,5,5,5,5,5,5,5,5,5,5,5,5,0,0,1,55,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,7,6,6,7,6,6,7,7,7,6,7,7,6,7,6,6,6,7,6,7,6,7,6,
7,6,6,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,
4,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,6,6,6,6,6,6,7,6,1,1,2,5,5,5,1,0,0,7,2,2,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,6,6,6,1,6,6,6,6,6,6,6,6,6,1,6,6,6,
1,6,6,6,6,6,0,0,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,7,7,7,0,0,5,0,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,6,7,7,7,6,6,6,6,
1,1,1,1,1,1,1,1,1,1,6,6,6,6,6,7,7,7,7,7,6,6,6,6,6,6,6,6,6,6,6,6,6,6,0,7,6,6,7,6,
6,7,6,6,6,7,7,7,27,28,29,6,6,6,7,6,6,7,7,6,6,6,6,6,4,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,4,4,10,1,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,8,4,4,1,6,7,6,6,4,4,4,1,1,1,1,1,1,1,1,
1,1,4,4,5,5,3,3,3,3,3,3,3,3,3,3,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,0,1,1,1,
1,1,1,1,1,0,0,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,
1,0,1,0,0,0,1,1,1,1,0,0,10,1,4,4,4,4,4,4,4,0,0,4,4,0,0,4,4,8,1,0,0,0,0,0,0,0,0,4,
0,0,0,0,1,1,0,1,1,1,4,4,0,0,3,3,3,3,3,3,3,3,3,3,1,1,2,2,3,3,3,3,3,3,2,2,1,5,6,0,
0,4,4,4,0,1,1,1,1,1,1,0,0,0,0,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,0,1,1,1,1,1,1,1,0,1,1,0,1,1,0,1,1,0,0,10,0,4,4,4,4,4,0,0,0,0,4,4,0,0,4,4,8,0,0,
0,4,0,0,0,0,0,0,0,1,1,1,1,0,1,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,4,4,1,1,1,4,5,0,
0,0,0,0,0,0,0,0,0,4,4,4,0,1,1,1,1,1,1,1,1,1,0,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,0,1,1,1,1,1,0,0,10,1,4,4,4,4,4,4,4,4,0,4,
4,4,0,4,4,8,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,4,4,0,0,3,3,3,3,3,3,3,3,3,3,
5,2,0,0,0,0,0,0,0,1,4,4,4,4,4,4,0,4,4,4,0,1,1,1,1,1,1,1,1,0,0,1,1,0,0,1,1,1,1,1,
1,1,1,1,1,1,1,1,4,4,4,4,4,0,0,4,4,0,0,4,4,8,0,0,0,0,0,0,0,4,4,4,0,0,0,0,1,1,0,1,
1,1,4,4,0,0,3,3,3,3,3,3,3,3,3,3,2,1,3,3,3,3,3,3,0,0,0,0,0,0,0,0,0,0,4,1,0,1,1,1,
1,1,1,0,0,0,1,1,1,0,1,1,1,1,0,0,0,1,1,0,1,0,1,1,0,0,0,1,1,0,0,0,1,1,1,0,0,0,1,1,
1,1,1,1,1,1,1,1,1,1,0,0,0,0,4,4,4,4,4,0,0,0,4,4,4,0,4,4,4,8,0,0,1,0,0,0,0,0,0,4,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,0,0,0,0,0,
4,4,4,4,4,1,1,1,1,1,1,1,1,0,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,10,1,4,4,4,4,4,4,4,0,4,4,4,0,4,4,4,8,0,0,
0,0,0,0,0,56,57,0,1,1,1,0,0,1,0,0,1,1,4,4,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,0,5,
3,3,3,3,3,3,3,2,1,4,4,4,5,1,1,1,1,1,1,1,1,0,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,0,0,10,1,4,4,4,4,4,4,4,0,4,4,
4,0,4,4,4,8,0,0,0,0,0,0,0,4,4,0,0,0,0,0,0,1,1,0,1,1,4,4,0,0,3,3,3,3,3,3,3,3,3,3,
0,1,1,4,0,0,0,0,0,0,0,0,0,0,0,0,4,4,4,4,1,1,1,1,1,1,1,1,1,0,1,1,1,0,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,8,8,1,4,4,
4,4,4,4,4,0,4,4,4,0,4,4,4,8,1,2,0,0,0,0,1,1,1,4,3,3,3,3,3,3,3,1,1,1,4,4,0,0,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,1,1,1,1,1,1,0,4,4,4,0,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,
1,1,1,1,0,1,0,0,1,1,1,1,1,1,1,0,0,0,8,0,0,0,0,4,4,4,4,4,4,0,4,0,4,4,4,4,4,4,4,4,
0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,4,4,5,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,4,1,1,4,4,4,4,33,33,8,0,0,0,0,2,1,1,1,1,1,1,1,4,19,19,19,19,4,4,4,5,3,3,3,3,3,3,3,3,
3,3,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,1,1,0,1,0,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,0,1,
1,1,1,1,1,1,1,1,1,4,1,1,4,4,4,4,34,34,8,4,4,1,0,0,1,1,1,1,1,0,1,0,20,20,20,20,4,4,4,0,
3,3,3,3,3,3,3,3,3,3,0,0,1,1,1,1,1,2,2,2,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,2,5,2,2,2,
7,7,2,2,2,2,2,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,7,2,7,2,12,5,5,5,5,4,4,
1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,0,0,0,0,58,14,4,59,4,4,4,4,4,14,14,14,14,4,4,14,4,6,6,8,5,6,6,1,1,1,1,1,4,4,4,
4,4,4,4,4,4,4,4,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
4,4,4,4,4,0,2,2,2,2,2,2,2,2,7,2,2,2,2,2,2,0,2,2,5,5,5,5,5,2,2,2,2,5,5,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,10,4,8,8,4,4,4,4,1,3,3,3,3,3,3,3,3,
3,3,5,5,5,5,5,5,1,1,1,1,1,1,4,4,4,4,1,1,1,1,4,4,4,1,4,4,4,1,1,4,4,4,4,4,4,4,1,1,
1,4,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,7,1,4,3,3,3,3,3,3,3,3,
3,3,4,4,4,4,2,2,1,1,1,1,1,1,0,1,0,0,0,0,0,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,5,1,1,1,1,1,1,1,1,1,1,1,1,
1,0,1,1,1,1,0,0,1,1,1,1,1,1,1,0,1,0,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,0,1,1,1,1,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,0,0,
1,1,1,1,1,1,1,0,1,0,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,6,6,6,5,5,5,5,5,5,5,5,5,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,
2,2,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,
5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,2,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,11,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,5,5,0,0,0,1,1,1,1,1,1,1,1,1,1,1,5,5,5,3,3,3,1,1,1,1,1,1,1,
1,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,8,8,0,0,0,0,0,0,0,0,0,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,8,5,5,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,4,4,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,
1,0,4,4,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,
4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,8,4,5,5,5,1,5,5,5,2,1,6,0,0,
3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,5,5,5,5,5,5,5,5,
5,5,5,4,4,4,0,4,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,1,1,1,1,1,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,17,1,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,4,4,4,4,4,4,4,4,4,4,4,4,0,0,0,0,
4,4,4,4,4,4,4,4,4,21,6,7,0,0,0,0,2,0,0,0,5,5,3,3,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,
7,4,4,4,0,0,5,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,0,
8,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,6,6,6,6,6,6,6,6,0,0,7,5,5,5,5,5,5,5,1,
5,5,5,5,5,5,0,0,6,6,6,6,6,7,7,7,7,7,7,6,6,7,4,7,7,6,6,7,7,6,6,6,6,6,7,6,6,6,6,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4,4,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,10,4,4,4,4,4,4,4,4,4,4,4,
4,4,4,4,8,1,1,1,1,1,1,1,1,0,0,0,3,3,3,3,3,3,3,3,3,3,5,5,5,5,5,5,5,2,2,2,2,2,2,2,
2,2,2,6,7,6,6,6,6,6,6,6,2,2,2,2,2,2,2,2,2,5,5,0,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,8,8,4,4,1,1,3,3,3,3,3,3,3,3,
3,3,1,1,1,1,1,1,1,1,1,1,1,1,10,4,4,4,4,4,4,4,4,4,4,4,8,8,0,0,0,0,0,0,0,0,5,5,5,5,
1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,10,0,0,0,5,5,5,5,5,3,3,3,3,3,3,3,3,
3,3,0,0,0,1,1,1,3,3,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,5,5,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,
5,5,5,5,5,5,5,5,0,0,0,0,0,0,0,0,6,6,6,5,9,7,7,7,7,7,6,6,7,7,7,7,6,4,9,9,9,9,9,9,
9,1,1,1,1,7,1,1,1,1,1,1,6,1,1,4,6,6,1,0,0,0,0,0,6,6,7,6,6,6,6,6,6,6,7,6,6,18,60,7,
16,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,13,17,
17,7,35,6,22,7,6,7,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,0,1,0,1,0,1,0,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,2,1,2,2,2,1,1,1,0,1,1,1,1,1,1,1,2,2,2,
1,1,1,1,0,0,1,1,1,1,1,1,0,2,2,2,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,0,0,1,1,1,0,1,1,
1,1,1,1,1,2,2,0,11,11,11,11,11,11,11,11,11,11,11,0,0,0,0,0,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,
5,5,5,5,5,5,5,5,11,11,0,0,0,0,0,11,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,2,5,5,5,
5,5,5,5,5,5,5,5,5,5,2,5,5,5,5,5,5,5,5,5,5,5,5,11,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
3,1,0,0,3,3,3,3,3,3,2,2,2,5,5,1,3,3,3,3,3,3,3,3,3,3,2,2,2,5,5,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,6,6,9,9,6,6,6,6,9,9,9,6,6,4,4,4,
4,6,4,4,4,9,9,6,7,6,9,9,7,7,7,7,6,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,1,2,2,2,2,1,
2,2,1,1,1,1,1,1,1,1,1,1,2,1,2,2,2,1,1,1,1,1,2,2,2,2,2,2,1,2,1,2,1,2,1,1,1,1,2,1,
1,1,1,1,1,1,1,1,1,1,2,2,1,1,1,1,2,2,2,2,2,1,1,1,1,1,2,2,2,2,1,2,3,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
3,3,3,1,1,3,3,3,3,3,2,2,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
5,5,5,5,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,5,5,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,5,5,5,5,5,5,5,5,
5,5,5,5,5,5,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,5,5,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,5,5,5,5,5,5,5,5,5,5,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,5,5,5,5,5,
5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,5,5,5,5,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,5,5,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,2,2,2,2,2,2,2,2,2,1,1,1,1,1,2,2,2,
2,2,2,1,1,1,1,6,6,6,1,1,0,0,0,0,0,5,5,5,5,3,5,5,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,1,
5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,
6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,5,5,5,5,5,5,5,5,
5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,1,
5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,2,2,5,5,5,5,5,5,
5,5,5,5,5,5,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,11,5,5,5,2,1,1,3,5,5,5,5,5,5,5,5,5,5,2,2,5,5,5,5,
5,5,5,5,5,5,5,5,2,3,3,3,3,3,3,3,3,3,35,17,13,21,36,36,5,1,1,1,1,1,2,2,3,3,3,1,1,5,2,2,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,24,24,2,2,1,1,1,0,0,0,0,0,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,
2,2,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,
3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
3,3,3,3,3,3,3,3,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,5,5,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,3,3,3,3,3,3,3,
3,3,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,
4,4,4,5,6,6,6,6,6,6,6,6,6,6,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,6,6,1,1,1,1,1,1,3,3,3,3,3,3,3,3,3,3,6,6,5,5,5,5,5,5,0,0,0,0,0,0,0,0,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,1,2,2,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,1,1,0,1,0,1,1,1,
1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,4,1,1,1,8,1,1,1,1,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,
2,2,2,2,8,0,0,0,3,3,3,3,3,3,2,2,2,2,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,5,5,5,5,0,0,0,0,0,0,0,0,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,4,4,4,4,8,4,0,0,0,0,0,0,0,0,5,5,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,
6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,1,1,1,1,1,1,5,5,5,1,5,1,1,4,1,1,1,1,1,1,4,4,
4,4,4,7,7,7,5,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,
4,4,4,8,0,0,0,0,0,0,0,0,0,0,0,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,10,4,4,4,4,4,4,4,4,4,4,4,4,
8,5,5,5,5,5,5,5,5,5,5,5,5,5,0,1,3,3,3,3,3,3,3,3,3,3,0,0,0,0,5,5,1,1,1,1,1,4,1,1,
1,1,1,1,1,1,1,1,3,3,3,3,3,3,3,3,3,3,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,
4,4,4,4,4,4,4,0,0,0,0,0,0,0,0,0,1,1,1,4,1,1,1,1,1,1,1,1,4,4,0,0,3,3,3,3,3,3,3,3,
3,3,0,0,5,5,5,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,1,4,4,4,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,1,6,6,7,1,1,6,6,1,1,1,1,1,6,6,1,6,1,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,5,5,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,
5,5,1,1,1,4,8,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,2,2,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,5,4,8,0,0,
3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,
0,0,0,0,0,1,51,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,0,1,0,
1,1,0,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
5,5,5,5,5,5,5,5,5,5,0,0,0,0,0,0,6,6,6,6,6,6,6,7,7,7,7,7,7,7,6,6,5,5,5,5,5,5,5,5,
5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,0,5,5,5,5,5,5,5,5,5,5,5,5,
5,5,2,5,2,2,2,0,5,2,5,5,0,0,0,0,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,0,5,5,5,2,5,5,5,
5,5,5,2,5,5,5,5,3,3,3,3,3,3,3,3,3,3,5,5,2,2,2,5,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,5,2,5,2,5,5,5,5,5,5,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,1,1,1,1,1,1,0,0,1,1,1,0,0,0,
2,2,2,2,2,2,2,0,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,0,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,
5,5,5,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,2,2,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,3,3,2,2,2,0,2,2,2,2,2,2,2,2,
2,2,2,2,2,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,7,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,7,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
3,3,3,3,0,0,0,0,3,3,3,3,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,3,1,1,1,1,1,1,1,1,3,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,6,6,6,6,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,5,1,1,1,1,0,0,0,0,1,1,1,1,1,1,1,1,5,3,3,3,3,3,0,0,
0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,5,
1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,0,1,
1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,0,0,0,
1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,0,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,0,1,1,1,1,1,1,1,1,1,0,0,0,0,0,1,1,1,1,1,1,0,0,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,0,0,0,1,0,0,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,5,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,3,3,3,3,3,3,3,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,0,0,
0,0,0,3,3,3,3,3,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,3,3,3,3,3,0,0,0,5,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,5,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,3,3,1,1,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,1,4,4,4,0,4,4,0,0,0,0,0,4,7,4,6,1,1,1,1,0,1,1,1,
0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,6,9,7,0,0,0,0,8,
3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,0,5,5,5,5,5,5,5,5,5,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3,3,5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,3,3,3,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,6,7,0,0,0,0,3,3,3,3,3,5,5,5,5,5,5,5,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,5,5,5,5,5,5,5,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,0,0,0,0,0,3,3,3,3,3,3,3,3,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,
0,5,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,0,0,0,0,0,0,0,3,3,3,3,3,3,1,1,1,1,6,6,6,6,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,
3,3,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,
1,1,1,1,1,1,1,1,1,1,0,6,6,5,0,0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,7,7,7,3,3,3,3,3,3,3,1,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,7,7,6,6,6,7,6,7,7,7,7,3,3,3,3,5,5,5,
5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,6,7,6,7,5,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,3,3,3,
3,3,3,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,4,4,8,5,5,5,5,5,5,5,0,0,0,0,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,8,1,1,4,4,1,0,0,0,0,0,0,0,0,0,8,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,8,10,5,5,0,5,5,5,5,4,0,0,0,0,0,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,
3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,6,6,6,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,8,8,0,3,3,3,3,3,3,3,3,3,3,
5,5,5,5,1,4,4,1,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,10,5,5,1,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,4,8,1,1,1,1,5,5,5,5,4,10,4,4,5,4,4,3,3,3,3,3,3,3,3,
3,3,1,5,1,5,5,5,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,4,4,4,4,4,4,4,4,4,8,10,4,5,5,5,5,5,5,4,1,1,4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,0,1,0,1,1,1,1,0,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,5,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,
4,10,8,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,4,4,4,4,0,1,1,1,1,1,1,1,1,0,0,1,
1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,0,1,1,1,
1,1,0,10,10,1,4,4,4,4,4,4,4,0,0,4,4,0,0,4,4,8,0,0,1,0,0,0,0,0,0,4,0,0,0,0,0,1,1,1,
1,1,4,4,0,0,6,6,6,6,6,6,6,0,0,0,6,6,6,6,6,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,4,8,4,4,4,10,1,1,1,1,5,5,5,5,5,
3,3,3,3,3,3,3,3,3,3,5,5,0,5,6,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
4,4,8,10,1,1,5,1,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,4,4,4,4,4,4,4,0,0,4,4,4,4,4,4,4,8,10,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,
5,5,5,5,5,5,5,5,1,1,1,1,4,4,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,
4,4,4,4,4,4,4,8,4,5,5,5,1,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,
5,5,5,5,5,5,5,5,5,5,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,4,4,4,4,4,4,4,4,4,4,4,8,10,1,5,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,0,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,8,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,5,5,5,2,
1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,4,4,4,4,4,4,4,4,4,4,4,4,4,8,10,5,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
3,3,3,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,0,0,1,0,0,1,1,1,1,1,1,1,1,0,1,1,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,0,4,4,0,0,4,4,8,8,1,
4,1,4,10,5,5,5,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,4,4,4,4,4,4,4,0,0,4,4,4,4,4,4,8,1,5,1,4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,1,4,4,4,4,4,4,4,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,8,4,4,4,4,4,1,4,4,4,4,5,5,5,5,5,5,5,5,8,
0,0,0,0,0,0,0,0,1,4,4,4,4,4,4,4,4,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,4,
4,4,4,4,4,4,4,4,4,8,5,5,5,1,5,5,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,5,5,5,5,5,5,5,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,4,4,4,4,4,4,4,4,0,4,4,4,4,4,4,4,8,1,5,5,5,5,5,0,0,0,0,0,0,0,0,0,0,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,5,5,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
4,4,4,4,4,4,4,4,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,0,
1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,4,4,4,4,4,4,0,0,0,4,0,4,4,0,4,4,4,10,4,8,8,1,4,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,
3,3,0,0,0,0,0,0,1,1,1,1,1,1,0,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,4,4,4,4,4,0,4,4,0,4,4,4,4,8,1,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,5,5,0,0,0,0,0,0,0,4,4,1,4,1,1,1,1,1,1,1,1,1,1,1,1,
1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4,4,4,4,
4,4,4,0,0,0,4,4,4,8,8,5,5,5,5,5,5,5,5,5,5,5,5,5,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,5,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,5,5,5,5,5,0,0,0,
0,0,0,0,0,0,0,0,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4,1,1,1,1,1,1,4,4,4,4,4,4,4,4,4,
4,4,4,4,4,4,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,5,5,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,9,9,9,9,9,5,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,6,6,6,6,6,6,5,5,5,5,5,2,2,2,2,1,1,1,1,5,2,0,0,
0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,3,3,3,3,3,3,3,0,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,0,0,0,0,0,1,1,1,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,5,
5,5,5,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,4,1,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
0,0,0,0,0,0,0,4,4,4,4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,5,1,4,0,0,0,0,0,0,0,0,0,0,0,
23,23,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,0,
1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,1,1,1,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,0,0,0,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,0,0,2,4,9,5,
4,4,4,4,4,4,4,4,4,4,4,4,4,4,0,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,0,
0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,12,12,9,9,9,2,2,2,61,12,12,12,12,12,0,0,0,0,0,0,0,0,7,7,7,7,7,
7,7,7,2,2,6,6,6,6,6,7,7,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,6,6,6,6,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,6,6,6,2,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,0,
0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,0,0,1,0,0,1,1,0,0,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,
1,1,0,1,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,0,1,1,1,1,0,0,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,0,1,1,1,1,1,0,1,0,0,0,1,1,1,1,1,1,
1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,0,0,3,3,3,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,2,2,2,2,4,4,4,4,4,
4,4,4,4,4,4,4,4,4,4,4,4,4,2,2,2,2,2,2,2,2,4,2,2,2,2,2,2,2,2,2,2,2,2,2,2,4,2,2,5,
5,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4,4,4,4,4,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,6,6,6,6,6,6,6,0,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,6,0,0,6,6,6,6,6,
6,6,0,6,6,0,6,6,6,6,6,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,6,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,6,6,6,6,6,6,6,1,
1,1,1,1,1,1,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
1,1,1,1,1,1,1,1,1,1,1,1,1,1,6,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,
1,1,1,1,6,6,6,6,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,2,1,1,1,1,1,1,1,1,1,1,1,1,13,13,7,6,
3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,1,1,1,1,1,0,1,1,1,1,0,1,1,0,1,1,1,1,1,1,1,1,
1,1,1,1,1,1,1,0,1,1,1,1,1,0,0,3,3,3,3,3,3,3,3,3,7,7,7,7,7,7,7,0,0,0,0,0,0,0,0,0,
1,1,1,1,6,6,6,6,6,6,10,1,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,5,5,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,3,3,3,
2,3,3,3,3,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,
3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,0,
0,1,1,0,1,0,0,1,0,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,0,1,0,1,0,0,0,0,0,0,1,0,0,0,0,1,
0,1,0,1,0,1,1,1,0,1,1,0,1,0,0,1,0,1,0,1,0,1,0,1,0,1,1,0,1,0,0,1,1,1,1,0,1,1,1,1,
1,1,1,0,1,1,1,1,0,1,1,1,1,0,1,0,1,1,1,1,1,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,
1,1,1,1,0,0,0,0,0,1,1,1,0,1,1,1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,
2,2,2,2,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,
0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,0,0,0,0,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,
2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,
0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,
2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,
0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,2,2,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,
2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,2,2,
2,2,2,2,2,2,2,2,2,2,2,2,0,0,0,0,2,2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,
2,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,0,2,2,2,2,2,2,2,2,2,2,2,2,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,3,3,3,3,3,3,3,3,3,0,0,0,0,0,0,1,1,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,0,0,0,0,0,0,0,0,
0,0,0,0,0,0,0,0,
};
/* canonical decompositions: code point, first, second (0 for a singleton) */
static const uint32_t llm__ucd_decomp[6183] = {
192,65,768,193,65,769,194,65,770,195,65,771,196,65,776,197,65,778,
199,67,807,200,69,768,201,69,769,202,69,770,203,69,776,204,73,768,
205,73,769,206,73,770,207,73,776,209,78,771,210,79,768,211,79,769,
212,79,770,213,79,771,214,79,776,217,85,768,218,85,769,219,85,770,
220,85,776,221,89,769,224,97,768,225,97,769,226,97,770,227,97,771,
228,97,776,229,97,778,231,99,807,232,101,768,233,101,769,234,101,770,
235,101,776,236,105,768,237,105,769,238,105,770,239,105,776,241,110,771,
242,111,768,243,111,769,244,111,770,245,111,771,246,111,776,249,117,768,
250,117,769,251,117,770,252,117,776,253,121,769,255,121,776,256,65,772,
257,97,772,258,65,774,259,97,774,260,65,808,261,97,808,262,67,769,
263,99,769,264,67,770,265,99,770,266,67,775,267,99,775,268,67,780,
269,99,780,270,68,780,271,100,780,274,69,772,275,101,772,276,69,774,
277,101,774,278,69,775,279,101,775,280,69,808,281,101,808,282,69,780,
283,101,780,284,71,770,285,103,770,286,71,774,287,103,774,288,71,775,
289,103,775,290,71,807,291,103,807,292,72,770,293,104,770,296,73,771,
297,105,771,298,73,772,299,105,772,300,73,774,301,105,774,302,73,808,
303,105,808,304,73,775,308,74,770,309,106,770,310,75,807,311,107,807,
313,76,769,314,108,769,315,76,807,316,108,807,317,76,780,318,108,780,
323,78,769,324,110,769,325,78,807,326,110,807,327,78,780,328,110,780,
332,79,772,333,111,772,334,79,774,335,111,774,336,79,779,337,111,779,
340,82,769,341,114,769,342,82,807,343,114,807,344,82,780,345,114,780,
346,83,769,347,115,769,348,83,770,349,115,770,350,83,807,351,115,807,
352,83,780,353,115,780,354,84,807,355,116,807,356,84,780,357,116,780,
360,85,771,361,117,771,362,85,772,363,117,772,364,85,774,365,117,774,
366,85,778,367,117,778,368,85,779,369,117,779,370,85,808,371,117,808,
372,87,770,373,119,770,374,89,770,375,121,770,376,89,776,377,90,769,
378,122,769,379,90,775,380,122,775,381,90,780,382,122,780,416,79,795,
417,111,795,431,85,795,432,117,795,461,65,780,462,97,780,463,73,780,
464,105,780,465,79,780,466,111,780,467,85,780,468,117,780,469,220,772,
470,252,772,471,220,769,472,252,769,473,220,780,474,252,780,475,220,768,
476,252,768,478,196,772,479,228,772,480,550,772,481,551,772,482,198,772,
483,230,772,486,71,780,487,103,780,488,75,780,489,107,780,490,79,808,
491,111,808,492,490,772,493,491,772,494,439,780,495,658,780,496,106,780,
500,71,769,501,103,769,504,78,768,505,110,768,506,197,769,507,229,769,
508,198,769,509,230,769,510,216,769,511,248,769,512,65,783,513,97,783,
514,65,785,515,97,785,516,69,783,517,101,783,518,69,785,519,101,785,
520,73,783,521,105,783,522,73,785,523,105,785,524,79,783,525,111,783,
526,79,785,527,111,785,528,82,783,529,114,783,530,82,785,531,114,785,
532,85,783,533,117,783,534,85,785,535,117,785,536,83,806,537,115,806,
538,84,806,539,116,806,542,72,780,543,104,780,550,65,775,551,97,775,
552,69,807,553,101,807,554,214,772,555,246,772,556,213,772,557,245,772,
558,79,775,559,111,775,560,558,772,561,559,772,562,89,772,563,121,772,
832,768,0,833,769,0,835,787,0,836,776,769,884,697,0,894,59,0,
901,168,769,902,913,769,903,183,0,904,917,769,905,919,769,906,921,769,
908,927,769,910,933,769,911,937,769,912,970,769,938,921,776,939,933,776,
940,945,769,941,949,769,942,951,769,943,953,769,944,971,769,970,953,776,
971,965,776,972,959,769,973,965,769,974,969,769,979,978,769,980,978,776,
1024,1045,768,1025,1045,776,1027,1043,769,1031,1030,776,1036,1050,769,1037,1048,768,
1038,1059,774,1049,1048,774,1081,1080,774,1104,1077,768,1105,1077,776,1107,1075,769,
1111,1110,776,1116,1082,769,1117,1080,768,1118,1091,774,1142,1140,783,1143,1141,783,
1217,1046,774,1218,1078,774,1232,1040,774,1233,1072,774,1234,1040,776,1235,1072,776,
1238,1045,774,1239,1077,774,1242,1240,776,1243,1241,776,1244,1046,776,1245,1078,776,
1246,1047,776,1247,1079,776,1250,1048,772,1251,1080,772,1252,1048,776,1253,1080,776,
1254,1054,776,1255,1086,776,1258,1256,776,1259,1257,776,1260,1069,776,1261,1101,776,
1262,1059,772,1263,1091,772,1264,1059,776,1265,1091,776,1266,1059,779,1267,1091,779,
1268,1063,776,1269,1095,776,1272,1067,776,1273,1099,776,1570,1575,1619,1571,1575,1620,
1572,1608,1620,1573,1575,1621,1574,1610,1620,1728,1749,1620,1730,1729,1620,1747,1746,1620,
2345,2344,2364,2353,2352,2364,2356,2355,2364,2392,2325,2364,2393,2326,2364,2394,2327,2364,
2395,2332,2364,2396,2337,2364,2397,2338,2364,2398,2347,2364,2399,2351,2364,2507,2503,2494,
2508,2503,2519,2524,2465,2492,2525,2466,2492,2527,2479,2492,2611,2610,2620,2614,2616,2620,
2649,2582,2620,2650,2583,2620,2651,2588,2620,2654,2603,2620,2888,2887,2902,2891,2887,2878,
2892,2887,2903,2908,2849,2876,2909,2850,2876,2964,2962,3031,3018,3014,3006,3019,3015,3006,
3020,3014,3031,3144,3142,3158,3264,3263,3285,3271,3270,3285,3272,3270,3286,3274,3270,3266,
3275,3274,3285,3402,3398,3390,3403,3399,3390,3404,3398,3415,3546,3545,3530,3548,3545,3535,
3549,3548,3530,3550,3545,3551,3907,3906,4023,3917,3916,4023,3922,3921,4023,3927,3926,4023,
3932,3931,4023,3945,3904,4021,3955,3953,3954,3957,3953,3956,3958,4018,3968,3960,4019,3968,
3969,3953,3968,3987,3986,4023,3997,3996,4023,4002,4001,4023,4007,4006,4023,4012,4011,4023,
4025,3984,4021,4134,4133,4142,6918,6917,6965,6920,6919,6965,6922,6921,6965,6924,6923,6965,
6926,6925,6965,6930,6929,6965,6971,6970,6965,6973,6972,6965,6976,6974,6965,6977,6975,6965,
6979,6978,6965,7680,65,805,7681,97,805,7682,66,775,7683,98,775,7684,66,803,
7685,98,803,7686,66,817,7687,98,817,7688,199,769,7689,231,769,7690,68,775,
7691,100,775,7692,68,803,7693,100,803,7694,68,817,7695,100,817,7696,68,807,
7697,100,807,7698,68,813,7699,100,813,7700,274,768,7701,275,768,7702,274,769,
7703,275,769,7704,69,813,7705,101,813,7706,69,816,7707,101,816,7708,552,774,
7709,553,774,7710,70,775,7711,102,775,7712,71,772,7713,103,772,7714,72,775,
7715,104,775,7716,72,803,7717,104,803,7718,72,776,7719,104,776,7720,72,807,
7721,104,807,7722,72,814,7723,104,814,7724,73,816,7725,105,816,7726,207,769,
7727,239,769,7728,75,769,7729,107,769,7730,75,803,7731,107,803,7732,75,817,
7733,107,817,7734,76,803,7735,108,803,7736,7734,772,7737,7735,772,7738,76,817,
7739,108,817,7740,76,813,7741,108,813,7742,77,769,7743,109,769,7744,77,775,
7745,109,775,7746,77,803,7747,109,803,7748,78,775,7749,110,775,7750,78,803,
7751,110,803,7752,78,817,7753,110,817,7754,78,813,7755,110,813,7756,213,769,
7757,245,769,7758,213,776,7759,245,776,7760,332,768,7761,333,768,7762,332,769,
7763,333,769,7764,80,769,7765,112,769,7766,80,775,7767,112,775,7768,82,775,
7769,114,775,7770,82,803,7771,114,803,7772,7770,772,7773,7771,772,7774,82,817,
7775,114,817,7776,83,775,7777,115,775,7778,83,803,7779,115,803,7780,346,775,
7781,347,775,7782,352,775,7783,353,775,7784,7778,775,7785,7779,775,7786,84,775,
7787,116,775,7788,84,803,7789,116,803,7790,84,817,7791,116,817,7792,84,813,
7793,116,813,7794,85,804,7795,117,804,7796,85,816,7797,117,816,7798,85,813,
7799,117,813,7800,360,769,7801,361,769,7802,362,776,7803,363,776,7804,86,771,
7805,118,771,7806,86,803,7807,118,803,7808,87,768,7809,119,768,7810,87,769,
7811,119,769,7812,87,776,7813,119,776,7814,87,775,7815,119,775,7816,87,803,
7817,119,803,7818,88,775,7819,120,775,7820,88,776,7821,120,776,7822,89,775,
7823,121,775,7824,90,770,7825,122,770,7826,90,803,7827,122,803,7828,90,817,
7829,122,817,7830,104,817,7831,116,776,7832,119,778,7833,121,778,7835,383,775,
7840,65,803,7841,97,803,7842,65,777,7843,97,777,7844,194,769,7845,226,769,
7846,194,768,7847,226,768,7848,194,777,7849,226,777,7850,194,771,7851,226,771,
7852,7840,770,7853,7841,770,7854,258,769,7855,259,769,7856,258,768,7857,259,768,
7858,258,777,7859,259,777,7860,258,771,7861,259,771,7862,7840,774,7863,7841,774,
7864,69,803,7865,101,803,7866,69,777,7867,101,777,7868,69,771,7869,101,771,
7870,202,769,7871,234,769,7872,202,768,7873,234,768,7874,202,777,7875,234,777,
7876,202,771,7877,234,771,7878,7864,770,7879,7865,770,7880,73,777,7881,105,777,
7882,73,803,7883,105,803,7884,79,803,7885,111,803,7886,79,777,7887,111,777,
7888,212,769,7889,244,769,7890,212,768,7891,244,768,7892,212,777,7893,244,777,
7894,212,771,7895,244,771,7896,7884,770,7897,7885,770,7898,416,769,7899,417,769,
7900,416,768,7901,417,768,7902,416,777,7903,417,777,7904,416,771,7905,417,771,
7906,416,803,7907,417,803,7908,85,803,7909,117,803,7910,85,777,7911,117,777,
7912,431,769,7913,432,769,7914,431,768,7915,432,768,7916,431,777,7917,432,777,
7918,431,771,7919,432,771,7920,431,803,7921,432,803,7922,89,768,7923,121,768,
7924,89,803,7925,121,803,7926,89,777,7927,121,777,7928,89,771,7929,121,771,
7936,945,787,7937,945,788,7938,7936,768,7939,7937,768,7940,7936,769,7941,7937,769,
7942,7936,834,7943,7937,834,7944,913,787,7945,913,788,7946,7944,768,7947,7945,768,
7948,7944,769,7949,7945,769,7950,7944,834,7951,7945,834,7952,949,787,7953,949,788,
7954,7952,768,7955,7953,768,7956,7952,769,7957,7953,769,7960,917,787,7961,917,788,
7962,7960,768,7963,7961,768,7964,7960,769,7965,7961,769,7968,951,787,7969,951,788,
7970,7968,768,7971,7969,768,7972,7968,769,7973,7969,769,7974,7968,834,7975,7969,834,
7976,919,787,7977,919,788,7978,7976,768,7979,7977,768,7980,7976,769,7981,7977,769,
7982,7976,834,7983,7977,834,7984,953,787,7985,953,788,7986,7984,768,7987,7985,768,
7988,7984,769,7989,7985,769,7990,7984,834,7991,7985,834,7992,921,787,7993,921,788,
7994,7992,768,7995,7993,768,7996,7992,769,7997,7993,769,7998,7992,834,7999,7993,834,
8000,959,787,8001,959,788,8002,8000,768,8003,8001,768,8004,8000,769,8005,8001,769,
8008,927,787,8009,927,788,8010,8008,768,8011,8009,768,8012,8008,769,8013,8009,769,
8016,965,787,8017,965,788,8018,8016,768,8019,8017,768,8020,8016,769,8021,8017,769,
8022,8016,834,8023,8017,834,8025,933,788,8027,8025,768,8029,8025,769,8031,8025,834,
8032,969,787,8033,969,788,8034,8032,768,8035,8033,768,8036,8032,769,8037,8033,769,
8038,8032,834,8039,8033,834,8040,937,787,8041,937,788,8042,8040,768,8043,8041,768,
8044,8040,769,8045,8041,769,8046,8040,834,8047,8041,834,8048,945,768,8049,940,0,
8050,949,768,8051,941,0,8052,951,768,8053,942,0,8054,953,768,8055,943,0,
8056,959,768,8057,972,0,8058,965,768,8059,973,0,8060,969,768,8061,974,0,
8064,7936,837,8065,7937,837,8066,7938,837,8067,7939,837,8068,7940,837,8069,7941,837,
8070,7942,837,8071,7943,837,8072,7944,837,8073,7945,837,8074,7946,837,8075,7947,837,
8076,7948,837,8077,7949,837,8078,7950,837,8079,7951,837,8080,7968,837,8081,7969,837,
8082,7970,837,8083,7971,837,8084,7972,837,8085,7973,837,8086,7974,837,8087,7975,837,
8088,7976,837,8089,7977,837,8090,7978,837,8091,7979,837,8092,7980,837,8093,7981,837,
8094,7982,837,8095,7983,837,8096,8032,837,8097,8033,837,8098,8034,837,8099,8035,837,
8100,8036,837,8101,8037,837,8102,8038,837,8103,8039,837,8104,8040,837,8105,8041,837,
8106,8042,837,8107,8043,837,8108,8044,837,8109,8045,837,8110,8046,837,8111,8047,837,
8112,945,774,8113,945,772,8114,8048,837,8115,945,837,8116,940,837,8118,945,834,
8119,8118,837,8120,913,774,8121,913,772,8122,913,768,8123,902,0,8124,913,837,
8126,953,0,8129,168,834,8130,8052,837,8131,951,837,8132,942,837,8134,951,834,
8135,8134,837,8136,917,768,8137,904,0,8138,919,768,8139,905,0,8140,919,837,
8141,8127,768,8142,8127,769,8143,8127,834,8144,953,774,8145,953,772,8146,970,768,
8147,912,0,8150,953,834,8151,970,834,8152,921,774,8153,921,772,8154,921,768,
8155,906,0,8157,8190,768,8158,8190,769,8159,8190,834,8160,965,774,8161,965,772,
8162,971,768,8163,944,0,8164,961,787,8165,961,788,8166,965,834,8167,971,834,
8168,933,774,8169,933,772,8170,933,768,8171,910,0,8172,929,788,8173,168,768,
8174,901,0,8175,96,0,8178,8060,837,8179,969,837,8180,974,837,8182,969,834,
8183,8182,837,8184,927,768,8185,908,0,8186,937,768,8187,911,0,8188,937,837,
8189,180,0,8192,8194,0,8193,8195,0,8486,937,0,8490,75,0,8491,197,0,
8602,8592,824,8603,8594,824,8622,8596,824,8653,8656,824,8654,8660,824,8655,8658,824,
8708,8707,824,8713,8712,824,8716,8715,824,8740,8739,824,8742,8741,824,8769,8764,824,
8772,8771,824,8775,8773,824,8777,8776,824,8800,61,824,8802,8801,824,8813,8781,824,
8814,60,824,8815,62,824,8816,8804,824,8817,8805,824,8820,8818,824,8821,8819,824,
8824,8822,824,8825,8823,824,8832,8826,824,8833,8827,824,8836,8834,824,8837,8835,824,
8840,8838,824,8841,8839,824,8876,8866,824,8877,8872,824,8878,8873,824,8879,8875,824,
8928,8828,824,8929,8829,824,8930,8849,824,8931,8850,824,8938,8882,824,8939,8883,824,
8940,8884,824,8941,8885,824,9001,12296,0,9002,12297,0,10972,10973,824,12364,12363,12441,
12366,12365,12441,12368,12367,12441,12370,12369,12441,12372,12371,12441,12374,12373,12441,12376,12375,12441,
12378,12377,12441,12380,12379,12441,12382,12381,12441,12384,12383,12441,12386,12385,12441,12389,12388,12441,
12391,12390,12441,12393,12392,12441,12400,12399,12441,12401,12399,12442,12403,12402,12441,12404,12402,12442,
12406,12405,12441,12407,12405,12442,12409,12408,12441,12410,12408,12442,12412,12411,12441,12413,12411,12442,
12436,12358,12441,12446,12445,12441,12460,12459,12441,12462,12461,12441,12464,12463,12441,12466,12465,12441,
12468,12467,12441,12470,12469,12441,12472,12471,12441,12474,12473,12441,12476,12475,12441,12478,12477,12441,
12480,12479,12441,12482,12481,12441,12485,12484,12441,12487,12486,12441,12489,12488,12441,12496,12495,12441,
12497,12495,12442,12499,12498,12441,12500,12498,12442,12502,12501,12441,12503,12501,12442,12505,12504,12441,
12506,12504,12442,12508,12507,12441,12509,12507,12442,12532,12454,12441,12535,12527,12441,12536,12528,12441,
12537,12529,12441,12538,12530,12441,12542,12541,12441,63744,35912,0,63745,26356,0,63746,36554,0,
63747,36040,0,63748,28369,0,63749,20018,0,63750,21477,0,63751,40860,0,63752,40860,0,
63753,22865,0,63754,37329,0,63755,21895,0,63756,22856,0,63757,25078,0,63758,30313,0,
63759,32645,0,63760,34367,0,63761,34746,0,63762,35064,0,63763,37007,0,63764,27138,0,
63765,27931,0,63766,28889,0,63767,29662,0,63768,33853,0,63769,37226,0,63770,39409,0,
63771,20098,0,63772,21365,0,63773,27396,0,63774,29211,0,63775,34349,0,63776,40478,0,
63777,23888,0,63778,28651,0,63779,34253,0,63780,35172,0,63781,25289,0,63782,33240,0,
63783,34847,0,63784,24266,0,63785,26391,0,63786,28010,0,63787,29436,0,63788,37070,0,
63789,20358,0,63790,20919,0,63791,21214,0,63792,25796,0,63793,27347,0,63794,29200,0,
63795,30439,0,63796,32769,0,63797,34310,0,63798,34396,0,63799,36335,0,63800,38706,0,
63801,39791,0,63802,40442,0,63803,30860,0,63804,31103,0,63805,32160,0,63806,33737,0,
63807,37636,0,63808,40575,0,63809,35542,0,63810,22751,0,63811,24324,0,63812,31840,0,
63813,32894,0,63814,29282,0,63815,30922,0,63816,36034,0,63817,38647,0,63818,22744,0,
63819,23650,0,63820,27155,0,63821,28122,0,63822,28431,0,63823,32047,0,63824,32311,0,
63825,38475,0,63826,21202,0,63827,32907,0,63828,20956,0,63829,20940,0,63830,31260,0,
63831,32190,0,63832,33777,0,63833,38517,0,63834,35712,0,63835,25295,0,63836,27138,0,
63837,35582,0,63838,20025,0,63839,23527,0,63840,24594,0,63841,29575,0,63842,30064,0,
63843,21271,0,63844,30971,0,63845,20415,0,63846,24489,0,63847,19981,0,63848,27852,0,
63849,25976,0,63850,32034,0,63851,21443,0,63852,22622,0,63853,30465,0,63854,33865,0,
63855,35498,0,63856,27578,0,63857,36784,0,63858,27784,0,63859,25342,0,63860,33509,0,
63861,25504,0,63862,30053,0,63863,20142,0,63864,20841,0,63865,20937,0,63866,26753,0,
63867,31975,0,63868,33391,0,63869,35538,0,63870,37327,0,63871,21237,0,63872,21570,0,
63873,22899,0,63874,24300,0,63875,26053,0,63876,28670,0,63877,31018,0,63878,38317,0,
63879,39530,0,63880,40599,0,63881,40654,0,63882,21147,0,63883,26310,0,63884,27511,0,
63885,36706,0,63886,24180,0,63887,24976,0,63888,25088,0,63889,25754,0,63890,28451,0,
63891,29001,0,63892,29833,0,63893,31178,0,63894,32244,0,63895,32879,0,63896,36646,0,
63897,34030,0,63898,36899,0,63899,37706,0,63900,21015,0,63901,21155,0,63902,21693,0,
63903,28872,0,63904,35010,0,63905,35498,0,63906,24265,0,63907,24565,0,63908,25467,0,
63909,27566,0,63910,31806,0,63911,29557,0,63912,20196,0,63913,22265,0,63914,23527,0,
63915,23994,0,63916,24604,0,63917,29618,0,63918,29801,0,63919,32666,0,63920,32838,0,
63921,37428,0,63922,38646,0,63923,38728,0,63924,38936,0,63925,20363,0,63926,31150,0,
63927,37300,0,63928,38584,0,63929,24801,0,63930,20102,0,63931,20698,0,63932,23534,0,
63933,23615,0,63934,26009,0,63935,27138,0,63936,29134,0,63937,30274,0,63938,34044,0,
63939,36988,0,63940,40845,0,63941,26248,0,63942,38446,0,63943,21129,0,63944,26491,0,
63945,26611,0,63946,27969,0,63947,28316,0,63948,29705,0,63949,30041,0,63950,30827,0,
63951,32016,0,63952,39006,0,63953,20845,0,63954,25134,0,63955,38520,0,63956,20523,0,
63957,23833,0,63958,28138,0,63959,36650,0,63960,24459,0,63961,24900,0,63962,26647,0,
63963,29575,0,63964,38534,0,63965,21033,0,63966,21519,0,63967,23653,0,63968,26131,0,
63969,26446,0,63970,26792,0,63971,27877,0,63972,29702,0,63973,30178,0,63974,32633,0,
63975,35023,0,63976,35041,0,63977,37324,0,63978,38626,0,63979,21311,0,63980,28346,0,
63981,21533,0,63982,29136,0,63983,29848,0,63984,34298,0,63985,38563,0,63986,40023,0,
63987,40607,0,63988,26519,0,63989,28107,0,63990,33256,0,63991,31435,0,63992,31520,0,
63993,31890,0,63994,29376,0,63995,28825,0,63996,35672,0,63997,20160,0,63998,33590,0,
63999,21050,0,64000,20999,0,64001,24230,0,64002,25299,0,64003,31958,0,64004,23429,0,
64005,27934,0,64006,26292,0,64007,36667,0,64008,34892,0,64009,38477,0,64010,35211,0,
64011,24275,0,64012,20800,0,64013,21952,0,64016,22618,0,64018,26228,0,64021,20958,0,
64022,29482,0,64023,30410,0,64024,31036,0,64025,31070,0,64026,31077,0,64027,31119,0,
64028,38742,0,64029,31934,0,64030,32701,0,64032,34322,0,64034,35576,0,64037,36920,0,
64038,37117,0,64042,39151,0,64043,39164,0,64044,39208,0,64045,40372,0,64046,37086,0,
64047,38583,0,64048,20398,0,64049,20711,0,64050,20813,0,64051,21193,0,64052,21220,0,
64053,21329,0,64054,21917,0,64055,22022,0,64056,22120,0,64057,22592,0,64058,22696,0,
64059,23652,0,64060,23662,0,64061,24724,0,64062,24936,0,64063,24974,0,64064,25074,0,
64065,25935,0,64066,26082,0,64067,26257,0,64068,26757,0,64069,28023,0,64070,28186,0,
64071,28450,0,64072,29038,0,64073,29227,0,64074,29730,0,64075,30865,0,64076,31038,0,
64077,31049,0,64078,31048,0,64079,31056,0,64080,31062,0,64081,31069,0,64082,31117,0,
64083,31118,0,64084,31296,0,64085,31361,0,64086,31680,0,64087,32244,0,64088,32265,0,
64089,32321,0,64090,32626,0,64091,32773,0,64092,33261,0,64093,33401,0,64094,33401,0,
64095,33879,0,64096,35088,0,64097,35222,0,64098,35585,0,64099,35641,0,64100,36051,0,
64101,36104,0,64102,36790,0,64103,36920,0,64104,38627,0,64105,38911,0,64106,38971,0,
64107,24693,0,64108,148206,0,64109,33304,0,64112,20006,0,64113,20917,0,64114,20840,0,
64115,20352,0,64116,20805,0,64117,20864,0,64118,21191,0,64119,21242,0,64120,21917,0,
64121,21845,0,64122,21913,0,64123,21986,0,64124,22618,0,64125,22707,0,64126,22852,0,
64127,22868,0,64128,23138,0,64129,23336,0,64130,24274,0,64131,24281,0,64132,24425,0,
64133,24493,0,64134,24792,0,64135,24910,0,64136,24840,0,64137,24974,0,64138,24928,0,
64139,25074,0,64140,25140,0,64141,25540,0,64142,25628,0,64143,25682,0,64144,25942,0,
64145,26228,0,64146,26391,0,64147,26395,0,64148,26454,0,64149,27513,0,64150,27578,0,
64151,27969,0,64152,28379,0,64153,28363,0,64154,28450,0,64155,28702,0,64156,29038,0,
64157,30631,0,64158,29237,0,64159,29359,0,64160,29482,0,64161,29809,0,64162,29958,0,
64163,30011,0,64164,30237,0,64165,30239,0,64166,30410,0,64167,30427,0,64168,30452,0,
64169,30538,0,64170,30528,0,64171,30924,0,64172,31409,0,64173,31680,0,64174,31867,0,
64175,32091,0,64176,32244,0,64177,32574,0,64178,32773,0,64179,33618,0,64180,33775,0,
64181,34681,0,64182,35137,0,64183,35206,0,64184,35222,0,64185,35519,0,64186,35576,0,
64187,35531,0,64188,35585,0,64189,35582,0,64190,35565,0,64191,35641,0,64192,35722,0,
64193,36104,0,64194,36664,0,64195,36978,0,64196,37273,0,64197,37494,0,64198,38524,0,
64199,38627,0,64200,38742,0,64201,38875,0,64202,38911,0,64203,38923,0,64204,38971,0,
64205,39698,0,64206,40860,0,64207,141386,0,64208,141380,0,64209,144341,0,64210,15261,0,
64211,16408,0,64212,16441,0,64213,152137,0,64214,154832,0,64215,163539,0,64216,40771,0,
64217,40846,0,64285,1497,1460,64287,1522,1463,64298,1513,1473,64299,1513,1474,64300,64329,1473,
64301,64329,1474,64302,1488,1463,64303,1488,1464,64304,1488,1468,64305,1489,1468,64306,1490,1468,
64307,1491,1468,64308,1492,1468,64309,1493,1468,64310,1494,1468,64312,1496,1468,64313,1497,1468,
64314,1498,1468,64315,1499,1468,64316,1500,1468,64318,1502,1468,64320,1504,1468,64321,1505,1468,
64323,1507,1468,64324,1508,1468,64326,1510,1468,64327,1511,1468,64328,1512,1468,64329,1513,1468,
64330,1514,1468,64331,1493,1465,64332,1489,1471,64333,1499,1471,64334,1508,1471,69786,69785,69818,
69788,69787,69818,69803,69797,69818,69934,69937,69927,69935,69938,69927,70475,70471,70462,70476,70471,70487,
70843,70841,70842,70844,70841,70832,70846,70841,70845,71098,71096,71087,71099,71097,71087,71992,71989,71984,
119134,119127,119141,119135,119128,119141,119136,119135,119150,119137,119135,119151,119138,119135,119152,119139,119135,119153,
119140,119135,119154,119227,119225,119141,119228,119226,119141,119229,119227,119150,119230,119228,119150,119231,119227,119151,
119232,119228,119151,194560,20029,0,194561,20024,0,194562,20033,0,194563,131362,0,194564,20320,0,
194565,20398,0,194566,20411,0,194567,20482,0,194568,20602,0,194569,20633,0,194570,20711,0,
194571,20687,0,194572,13470,0,194573,132666,0,194574,20813,0,194575,20820,0,194576,20836,0,
194577,20855,0,194578,132380,0,194579,13497,0,194580,20839,0,194581,20877,0,194582,132427,0,
194583,20887,0,194584,20900,0,194585,20172,0,194586,20908,0,194587,20917,0,194588,168415,0,
194589,20981,0,194590,20995,0,194591,13535,0,194592,21051,0,194593,21062,0,194594,21106,0,
194595,21111,0,194596,13589,0,194597,21191,0,194598,21193,0,194599,21220,0,194600,21242,0,
194601,21253,0,194602,21254,0,194603,21271,0,194604,21321,0,194605,21329,0,194606,21338,0,
194607,21363,0,194608,21373,0,194609,21375,0,194610,21375,0,194611,21375,0,194612,133676,0,
194613,28784,0,194614,21450,0,194615,21471,0,194616,133987,0,194617,21483,0,194618,21489,0,
194619,21510,0,194620,21662,0,194621,21560,0,194622,21576,0,194623,21608,0,194624,21666,0,
194625,21750,0,194626,21776,0,194627,21843,0,194628,21859,0,194629,21892,0,194630,21892,0,
194631,21913,0,194632,21931,0,194633,21939,0,194634,21954,0,194635,22294,0,194636,22022,0,
194637,22295,0,194638,22097,0,194639,22132,0,194640,20999,0,194641,22766,0,194642,22478,0,
194643,22516,0,194644,22541,0,194645,22411,0,194646,22578,0,194647,22577,0,194648,22700,0,
194649,136420,0,194650,22770,0,194651,22775,0,194652,22790,0,194653,22810,0,194654,22818,0,
194655,22882,0,194656,136872,0,194657,136938,0,194658,23020,0,194659,23067,0,194660,23079,0,
194661,23000,0,194662,23142,0,194663,14062,0,194664,14076,0,194665,23304,0,194666,23358,0,
194667,23358,0,194668,137672,0,194669,23491,0,194670,23512,0,194671,23527,0,194672,23539,0,
194673,138008,0,194674,23551,0,194675,23558,0,194676,24403,0,194677,23586,0,194678,14209,0,
194679,23648,0,194680,23662,0,194681,23744,0,194682,23693,0,194683,138724,0,194684,23875,0,
194685,138726,0,194686,23918,0,194687,23915,0,194688,23932,0,194689,24033,0,194690,24034,0,
194691,14383,0,194692,24061,0,194693,24104,0,194694,24125,0,194695,24169,0,194696,14434,0,
194697,139651,0,194698,14460,0,194699,24240,0,194700,24243,0,194701,24246,0,194702,24266,0,
194703,172946,0,194704,24318,0,194705,140081,0,194706,140081,0,194707,33281,0,194708,24354,0,
194709,24354,0,194710,14535,0,194711,144056,0,194712,156122,0,194713,24418,0,194714,24427,0,
194715,14563,0,194716,24474,0,194717,24525,0,194718,24535,0,194719,24569,0,194720,24705,0,
194721,14650,0,194722,14620,0,194723,24724,0,194724,141012,0,194725,24775,0,194726,24904,0,
194727,24908,0,194728,24910,0,194729,24908,0,194730,24954,0,194731,24974,0,194732,25010,0,
194733,24996,0,194734,25007,0,194735,25054,0,194736,25074,0,194737,25078,0,194738,25104,0,
194739,25115,0,194740,25181,0,194741,25265,0,194742,25300,0,194743,25424,0,194744,142092,0,
194745,25405,0,194746,25340,0,194747,25448,0,194748,25475,0,194749,25572,0,194750,142321,0,
194751,25634,0,194752,25541,0,194753,25513,0,194754,14894,0,194755,25705,0,194756,25726,0,
194757,25757,0,194758,25719,0,194759,14956,0,194760,25935,0,194761,25964,0,194762,143370,0,
194763,26083,0,194764,26360,0,194765,26185,0,194766,15129,0,194767,26257,0,194768,15112,0,
194769,15076,0,194770,20882,0,194771,20885,0,194772,26368,0,194773,26268,0,194774,32941,0,
194775,17369,0,194776,26391,0,194777,26395,0,194778,26401,0,194779,26462,0,194780,26451,0,
194781,144323,0,194782,15177,0,194783,26618,0,194784,26501,0,194785,26706,0,194786,26757,0,
194787,144493,0,194788,26766,0,194789,26655,0,194790,26900,0,194791,15261,0,194792,26946,0,
194793,27043,0,194794,27114,0,194795,27304,0,194796,145059,0,194797,27355,0,194798,15384,0,
194799,27425,0,194800,145575,0,194801,27476,0,194802,15438,0,194803,27506,0,194804,27551,0,
194805,27578,0,194806,27579,0,194807,146061,0,194808,138507,0,194809,146170,0,194810,27726,0,
194811,146620,0,194812,27839,0,194813,27853,0,194814,27751,0,194815,27926,0,194816,27966,0,
194817,28023,0,194818,27969,0,194819,28009,0,194820,28024,0,194821,28037,0,194822,146718,0,
194823,27956,0,194824,28207,0,194825,28270,0,194826,15667,0,194827,28363,0,194828,28359,0,
194829,147153,0,194830,28153,0,194831,28526,0,194832,147294,0,194833,147342,0,194834,28614,0,
194835,28729,0,194836,28702,0,194837,28699,0,194838,15766,0,194839,28746,0,194840,28797,0,
194841,28791,0,194842,28845,0,194843,132389,0,194844,28997,0,194845,148067,0,194846,29084,0,
194847,148395,0,194848,29224,0,194849,29237,0,194850,29264,0,194851,149000,0,194852,29312,0,
194853,29333,0,194854,149301,0,194855,149524,0,194856,29562,0,194857,29579,0,194858,16044,0,
194859,29605,0,194860,16056,0,194861,16056,0,194862,29767,0,194863,29788,0,194864,29809,0,
194865,29829,0,194866,29898,0,194867,16155,0,194868,29988,0,194869,150582,0,194870,30014,0,
194871,150674,0,194872,30064,0,194873,139679,0,194874,30224,0,194875,151457,0,194876,151480,0,
194877,151620,0,194878,16380,0,194879,16392,0,194880,30452,0,194881,151795,0,194882,151794,0,
194883,151833,0,194884,151859,0,194885,30494,0,194886,30495,0,194887,30495,0,194888,30538,0,
194889,16441,0,194890,30603,0,194891,16454,0,194892,16534,0,194893,152605,0,194894,30798,0,
194895,30860,0,194896,30924,0,194897,16611,0,194898,153126,0,194899,31062,0,194900,153242,0,
194901,153285,0,194902,31119,0,194903,31211,0,194904,16687,0,194905,31296,0,194906,31306,0,
194907,31311,0,194908,153980,0,194909,154279,0,194910,154279,0,194911,31470,0,194912,16898,0,
194913,154539,0,194914,31686,0,194915,31689,0,194916,16935,0,194917,154752,0,194918,31954,0,
194919,17056,0,194920,31976,0,194921,31971,0,194922,32000,0,194923,155526,0,194924,32099,0,
194925,17153,0,194926,32199,0,194927,32258,0,194928,32325,0,194929,17204,0,194930,156200,0,
194931,156231,0,194932,17241,0,194933,156377,0,194934,32634,0,194935,156478,0,194936,32661,0,
194937,32762,0,194938,32773,0,194939,156890,0,194940,156963,0,194941,32864,0,194942,157096,0,
194943,32880,0,194944,144223,0,194945,17365,0,194946,32946,0,194947,33027,0,194948,17419,0,
194949,33086,0,194950,23221,0,194951,157607,0,194952,157621,0,194953,144275,0,194954,144284,0,
194955,33281,0,194956,33284,0,194957,36766,0,194958,17515,0,194959,33425,0,194960,33419,0,
194961,33437,0,194962,21171,0,194963,33457,0,194964,33459,0,194965,33469,0,194966,33510,0,
194967,158524,0,194968,33509,0,194969,33565,0,194970,33635,0,194971,33709,0,194972,33571,0,
194973,33725,0,194974,33767,0,194975,33879,0,194976,33619,0,194977,33738,0,194978,33740,0,
194979,33756,0,194980,158774,0,194981,159083,0,194982,158933,0,194983,17707,0,194984,34033,0,
194985,34035,0,194986,34070,0,194987,160714,0,194988,34148,0,194989,159532,0,194990,17757,0,
194991,17761,0,194992,159665,0,194993,159954,0,194994,17771,0,194995,34384,0,194996,34396,0,
194997,34407,0,194998,34409,0,194999,34473,0,195000,34440,0,195001,34574,0,195002,34530,0,
195003,34681,0,195004,34600,0,195005,34667,0,195006,34694,0,195007,17879,0,195008,34785,0,
195009,34817,0,195010,17913,0,195011,34912,0,195012,34915,0,195013,161383,0,195014,35031,0,
195015,35038,0,195016,17973,0,195017,35066,0,195018,13499,0,195019,161966,0,195020,162150,0,
195021,18110,0,195022,18119,0,195023,35488,0,195024,35565,0,195025,35722,0,195026,35925,0,
195027,162984,0,195028,36011,0,195029,36033,0,195030,36123,0,195031,36215,0,195032,163631,0,
195033,133124,0,195034,36299,0,195035,36284,0,195036,36336,0,195037,133342,0,195038,36564,0,
195039,36664,0,195040,165330,0,195041,165357,0,195042,37012,0,195043,37105,0,195044,37137,0,
195045,165678,0,195046,37147,0,195047,37432,0,195048,37591,0,195049,37592,0,195050,37500,0,
195051,37881,0,195052,37909,0,195053,166906,0,195054,38283,0,195055,18837,0,195056,38327,0,
195057,167287,0,195058,18918,0,195059,38595,0,195060,23986,0,195061,38691,0,195062,168261,0,
195063,168474,0,195064,19054,0,195065,19062,0,195066,38880,0,195067,168970,0,195068,19122,0,
195069,169110,0,195070,38923,0,195071,38923,0,195072,38953,0,195073,169398,0,195074,39138,0,
195075,19251,0,195076,39209,0,195077,39335,0,195078,39362,0,195079,39422,0,195080,19406,0,
195081,170800,0,195082,39698,0,195083,40000,0,195084,40189,0,195085,19662,0,195086,19693,0,
195087,40295,0,195088,172238,0,195089,19704,0,195090,172293,0,195091,172558,0,195092,172689,0,
195093,40635,0,195094,19798,0,195095,40697,0,195096,40702,0,195097,40709,0,195098,40719,0,
195099,40726,0,195100,40763,0,195101,173568,0,
};
/* the composing decompositions (indexes into llm__ucd_decomp / 3), sorted by (first, second) */
static const unsigned short llm__ucd_comp[941] = {
912,909,913,0,1,2,3,53,55,238,4,572,5,165,208,210,570,415,57,417,
419,421,59,61,63,65,6,425,67,427,431,433,429,7,8,9,598,69,71,73,
10,596,77,212,214,594,240,75,439,441,445,198,79,447,81,83,187,85,87,449,
453,236,451,455,457,11,12,13,89,91,93,97,14,610,167,216,218,612,95,459,
98,463,189,465,100,467,102,106,469,104,475,473,477,479,481,200,108,15,483,112,
485,110,489,487,16,17,18,19,114,116,246,20,616,118,169,220,222,161,614,191,
499,501,120,503,124,224,226,505,122,509,126,128,511,132,513,232,130,521,136,523,
234,134,527,525,21,22,23,138,140,142,24,640,144,146,171,228,230,163,638,529,
148,533,531,539,541,543,545,150,549,547,551,553,555,652,25,152,658,250,557,154,
656,654,155,559,157,159,561,563,26,27,28,29,54,56,239,30,573,31,166,209,
211,571,416,58,418,420,422,60,62,64,66,32,426,68,428,432,434,430,33,34,
35,599,70,72,74,36,597,78,213,215,595,241,76,440,442,446,199,80,448,82,
84,188,86,88,450,454,237,452,456,458,565,37,38,39,90,92,94,40,611,168,
217,219,613,96,460,99,197,464,190,466,101,468,103,107,470,105,476,474,478,480,
482,201,109,41,484,113,486,111,490,488,42,43,44,45,115,117,247,46,617,119,
170,221,223,162,615,192,500,502,121,504,125,225,227,506,123,510,127,129,512,133,
514,233,131,522,566,137,524,235,135,528,526,47,48,49,139,141,143,50,641,145,
147,172,229,231,164,639,530,149,534,532,540,542,544,546,151,550,548,567,552,554,
556,653,51,153,659,251,558,52,657,568,655,156,560,158,160,562,564,875,258,835,
576,574,580,578,181,202,204,185,423,602,600,606,604,461,620,618,624,622,491,244,
493,242,206,179,175,173,177,577,575,581,579,182,203,205,186,424,603,601,607,605,
462,621,619,625,623,492,245,494,243,207,180,176,174,178,586,584,590,588,587,585,
591,589,435,437,436,438,495,497,496,498,515,516,517,518,535,536,537,538,569,630,
628,634,632,636,631,629,635,633,637,644,642,648,646,650,645,643,649,647,651,195,
193,194,183,184,443,444,248,249,196,831,259,830,829,668,669,833,841,261,682,683,
843,262,696,697,845,857,263,856,855,268,712,713,883,264,726,727,874,872,265,871,
870,269,740,885,266,752,753,887,826,838,760,270,823,822,660,661,827,825,762,271,
676,677,764,272,688,689,839,837,766,273,850,849,275,704,705,853,768,277,720,721,
866,867,770,278,863,862,276,732,733,868,772,279,744,745,881,879,851,267,854,864,
274,869,880,280,281,285,302,304,284,282,306,283,300,310,312,287,314,289,316,286,
318,324,288,326,328,330,332,322,303,305,293,291,307,292,301,311,313,296,315,290,
317,295,319,325,297,327,329,331,333,323,294,298,299,308,309,320,321,334,335,337,
336,338,340,341,339,342,343,344,353,354,365,364,366,369,370,372,371,373,374,377,
375,376,378,379,381,380,382,383,385,384,403,404,405,406,407,408,409,410,411,412,
413,414,471,472,507,508,519,520,582,592,583,593,608,609,626,627,662,664,666,774,
663,665,667,775,776,777,778,779,780,781,670,672,674,782,671,673,675,783,784,785,
786,787,788,789,678,680,679,681,684,686,685,687,690,692,694,790,691,693,695,791,
792,793,794,795,796,797,698,700,702,798,699,701,703,799,800,801,802,803,804,805,
706,708,710,707,709,711,714,716,718,715,717,719,722,724,723,725,728,730,729,731,
734,736,738,735,737,739,741,742,743,746,748,750,806,747,749,751,807,808,809,810,
811,812,813,754,756,758,814,755,757,759,815,816,817,818,819,820,821,824,836,878,
828,846,847,848,840,882,859,860,861,894,895,896,897,899,898,900,901,902,903,904,
905,906,907,908,911,910,914,915,916,917,918,919,920,921,930,931,922,923,924,925,
932,933,926,927,928,929,934,935,936,937,966,941,942,943,944,945,946,947,948,949,
950,951,952,953,954,955,956,957,958,959,960,961,962,963,964,965,967,993,968,969,
970,971,972,973,974,975,976,977,978,979,980,981,982,983,984,985,986,987,988,989,
990,991,992,994,995,996,997,998,1493,1494,1495,1496,1497,1498,1499,1501,1500,1502,1503,1504,
1505,
};
/* DeepSeek LLM's split classes (tools/gen_unicode.py has them as the regex writes them):
   inclusive code point ranges */
static const uint32_t llm__ds_latin[168] = {
65,90,97,122,181,181,192,214,216,246,248,442,
444,447,452,659,661,687,880,883,886,887,891,893,
895,895,902,902,904,906,908,908,910,929,931,1013,
1015,1153,1162,1327,1329,1366,4256,4293,5024,5109,5112,5117,
7312,7354,7357,7359,7424,7467,7531,7543,7545,7578,7680,7957,
7960,7965,7968,8005,8008,8013,8016,8023,8025,8025,8027,8027,
8029,8029,8031,8061,8064,8116,8118,8124,8126,8126,8130,8132,
8134,8140,8144,8147,8150,8155,8160,8172,8178,8180,8182,8188,
8450,8450,8455,8455,8458,8467,8469,8469,8473,8477,8484,8484,
8486,8486,8488,8488,8490,8493,8495,8500,8505,8505,8508,8511,
8517,8521,8526,8526,8579,8580,11264,11387,11390,11492,11499,11502,
11506,11507,42560,42605,42624,42651,42786,42863,42865,42887,42891,42894,
43888,43967,64256,64262,64275,64279,65313,65338,65345,65370,66560,66639,
66736,66771,66776,66811,68736,68786,68800,68850,71840,71903,125184,125251,
};
static const uint32_t llm__ds_punct[12] = {
33,47,58,126,8216,8223,12288,12290,65281,65295,65306,65374,
};
static const uint32_t llm__ds_cjk[4] = {
2048,40869,44032,55295,
};
/* the same for U+0000..U+007F, a bit per class: 1 << level (2 Latin, 3 Punct, 5 CJK) */
static const unsigned char llm__ds_ascii[128] = {
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
0,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,0,0,0,0,0,0,0,0,0,0,8,8,8,8,8,8,
8,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,8,8,8,8,8,
8,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,12,8,8,8,8,0,
};
/* >>unicode-tables end */

static unsigned llm__ucd_row(uint32_t cp) {
    unsigned run, block;
    if (cp > 0x10FFFF) return 0; /* row 0: unassigned */
    run = llm__ucd_stage1[cp >> LLM__UCD_TOP];
    block = llm__ucd_stage2[run << (LLM__UCD_TOP - LLM__UCD_SHIFT) | ((cp >> LLM__UCD_SHIFT) & ((1u << (LLM__UCD_TOP - LLM__UCD_SHIFT)) - 1))];
    return llm__ucd_stage3[block << LLM__UCD_SHIFT | (cp & ((1u << LLM__UCD_SHIFT) - 1))];
}
LLM__UNI unsigned llm__ucd(uint32_t cp) { return cp < 0x80 ? llm__ucd_ascii[cp] : llm__ucd_flags[llm__ucd_row(cp)]; }
LLM__UNI unsigned llm__ucd_ccc_of(uint32_t cp) { return llm__ucd_ccc[llm__ucd_row(cp)]; }

/* cp's canonical decomposition (one or two code points; *second 0 for one): 1, or 0 */
static int llm__ucd_decomp_of(uint32_t cp, uint32_t *first, uint32_t *second) {
    int lo = 0, hi = LLM__UCD_N_DECOMP - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        uint32_t c = llm__ucd_decomp[3 * mid];
        if (cp < c) hi = mid - 1;
        else if (cp > c) lo = mid + 1;
        else return *first = llm__ucd_decomp[3 * mid + 1], *second = llm__ucd_decomp[3 * mid + 2], 1;
    }
    return 0;
}
/* the primary composite of a + b, 0 if none (Hangul is llm__nfc_pair's) */
static uint32_t llm__ucd_compose(uint32_t a, uint32_t b) {
    int lo = 0, hi = LLM__UCD_N_COMP - 1;
    if (b < LLM__UCD_MIN_SECOND) return 0;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const uint32_t *d = llm__ucd_decomp + 3 * llm__ucd_comp[mid];
        if (a < d[1] || (a == d[1] && b < d[2])) hi = mid - 1;
        else if (a > d[1] || b > d[2]) lo = mid + 1;
        else return d[0];
    }
    return 0;
}
static int llm__in_ranges(uint32_t cp, const uint32_t *r, int n) {
    int lo = 0, hi = n / 2 - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < r[2 * mid]) hi = mid - 1;
        else if (cp > r[2 * mid + 1]) lo = mid + 1;
        else return 1;
    }
    return 0;
}
/* is cp in DeepSeek LLM's class of level 2 (Latin), 3 (Punct), 5 (CJK) or 6 (\p{N}) */
static int llm__ds_class(uint32_t cp, int level) {
    if (cp < 0x80) return level == 6 ? (llm__ucd_ascii[cp] & LLM__UC_N) != 0 : (llm__ds_ascii[cp] >> level) & 1;
    switch (level) {
    case 2: return llm__in_ranges(cp, llm__ds_latin, (int)(sizeof llm__ds_latin / sizeof llm__ds_latin[0]));
    case 3: return llm__in_ranges(cp, llm__ds_punct, (int)(sizeof llm__ds_punct / sizeof llm__ds_punct[0]));
    case 5: return llm__in_ranges(cp, llm__ds_cjk, (int)(sizeof llm__ds_cjk / sizeof llm__ds_cjk[0]));
    default: return (llm__ucd(cp) & LLM__UC_N) != 0; /* 6 */
    }
}

/* ---- vocabularies: SentencePiece and byte-level BPE, special tokens, decoding ---------- */

/* The reasons, formatted without stdio (LLM_NO_STDIO builds have no snprintf): %s, %.*s,
   %ld, %lu, cut to cap. */
static void llm__fmt(char *buf, size_t cap, const char *f, ...) {
    va_list ap;
    size_t k = 0;
    va_start(ap, f);
    for (; *f && k + 1 < cap; f++) {
        char num[24];
        const char *s = NULL;
        size_t n = 0, i;
        if (*f != '%') {
            buf[k++] = *f;
            continue;
        }
        f++;
        if (f[0] == 's') s = va_arg(ap, const char *), n = strlen(s);
        else if (f[0] == '.' && f[1] == '*' && f[2] == 's') n = (size_t)va_arg(ap, int), s = va_arg(ap, const char *), f += 2;
        else if ((f[0] == 'l' && (f[1] == 'd' || f[1] == 'u')) || f[0] == 'd') {
            unsigned long u;
            int neg = 0;
            if (f[0] == 'd') {
                int x = va_arg(ap, int);
                neg = x < 0, u = neg ? 0ul - (unsigned long)x : (unsigned long)x;
            } else if (f[1] == 'd') {
                long x = va_arg(ap, long);
                neg = x < 0, u = neg ? 0ul - (unsigned long)x : (unsigned long)x;
                f++;
            } else {
                u = va_arg(ap, unsigned long);
                f++;
            }
            i = sizeof num;
            do num[--i] = (char)('0' + u % 10), u /= 10;
            while (u);
            if (neg) num[--i] = '-';
            s = num + i, n = sizeof num - i;
        } else {
            if (!*f) break;
            buf[k++] = *f; /* %% and anything else: the character */
            continue;
        }
        for (i = 0; i < n && k + 1 < cap; i++) buf[k++] = (char)((unsigned char)s[i] >= 32 ? s[i] : '?');
    }
    va_end(ap);
    if (cap) buf[k] = '\0';
}

/* The tables, in caller memory: pieces (offsets, lengths, bytes), scores, types, the piece
   hash (2x the tokens, a power of two), the merge hash (2x the merges), the special list. */
static uint64_t llm__pow2_2x(uint64_t n) {
    uint64_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
}
static uint64_t llm__vocab_layout(uint64_t n, uint64_t text, uint64_t n_merges, uint64_t o[7]) {
    uint64_t s = 0;
    o[0] = s, s += LLM__MALIGN(n * 4);                                 /* off */
    o[1] = s, s += LLM__MALIGN(n * 4);                                 /* len */
    o[2] = s, s += LLM__MALIGN(2 * text + n + 8); /* text, a NUL after each; as much again for merges */
    o[3] = s, s += LLM__MALIGN(n * 4);                                 /* score */
    o[4] = s, s += LLM__MALIGN(n);                                     /* type */
    o[5] = s, s += LLM__MALIGN(llm__pow2_2x(n) * 4);                   /* hash */
    o[6] = s, s += LLM__MALIGN(n_merges ? llm__pow2_2x(n_merges) * 16 : 0); /* merges */
    return s + LLM__MALIGN(n * 4) + 64;                                /* special, alignment */
}
#define LLM__VOCAB_MAX_TOKENS (1 << 24)  /* ids are int32, and BPE ranks exact in a float key */
static size_t llm__vocab_size(uint64_t n, uint64_t text, uint64_t n_merges) {
    uint64_t o[7], s;
    if (n == 0 || n > LLM__VOCAB_MAX_TOKENS || n_merges > LLM__VOCAB_MAX_TOKENS || text + n >= UINT32_MAX) return 0;
    s = llm__vocab_layout(n, text, n_merges, o);
    return s > (uint64_t)SIZE_MAX ? 0 : (size_t)s;
}

/* Sets up empty tables for n tokens; pieces are then added with llm__vocab_put. */
typedef struct llm__vbuild {
    llm_vocab *v;
    uint64_t text_cap, pos;
} llm__vbuild;
static void llm__vocab_setup(llm__vbuild *b, llm_vocab *v, void *mem, uint64_t n, uint64_t text, uint64_t n_merges) {
    uint64_t o[7], i;
    char *base = (char *)llm__align64(mem);
    llm__vocab_layout(n, text, n_merges, o);
    memset(v, 0, sizeof *v);
    v->n_tokens = (int32_t)n;
    v->off = (uint32_t *)(void *)(base + o[0]);
    v->len = (uint32_t *)(void *)(base + o[1]);
    v->text = base + o[2];
    v->score = (float *)(void *)(base + o[3]);
    v->type = (uint8_t *)(base + o[4]);
    v->hash = (uint32_t *)(void *)(base + o[5]);
    v->hash_mask = (uint32_t)(llm__pow2_2x(n) - 1);
    memset(v->hash, 0, (size_t)llm__pow2_2x(n) * 4);
    if (n_merges) {
        v->merges = (llm_vocab_merge *)(void *)(base + o[6]);
        v->merge_mask = (uint32_t)(llm__pow2_2x(n_merges) - 1);
        memset(v->merges, 0, (size_t)llm__pow2_2x(n_merges) * 16);
    }
    v->special = (int32_t *)(void *)(base + o[6] + LLM__MALIGN(n_merges ? llm__pow2_2x(n_merges) * 16 : 0));
    for (i = 0; i < n; i++) v->off[i] = 0, v->len[i] = 0, v->score[i] = 0.0f, v->type[i] = LLM_TOKEN_UNDEFINED;
    v->text[0] = '\0';
    v->bos = v->eos = v->eot = v->unk = v->pad = -1;
    b->v = v, b->text_cap = 2 * text + n + 8, b->pos = 1; /* offset 0: the empty piece of unset ids */
}

/* GPT-2's byte-level alphabet: bytes 33..126, 161..172, 174..255 stand for themselves;
   the other 68 (controls, space, DEL, NBSP, soft hyphen) are U+0100 + their rank. */
static int llm__bl_self(int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255); }
static int llm__bl_byte(uint32_t cp) {
    int b, k = 0;
    if (cp < 256) return llm__bl_self((int)cp) ? (int)cp : -1;
    if (cp >= 256 + 68) return -1;
    for (b = 0; b < 256; b++)
        if (!llm__bl_self(b) && k++ == (int)(cp - 256)) return b;
    return -1;
}
/* s[0 .. n) as byte-level text back to bytes, into out (n bytes suffice); -1 if a
   character is outside the alphabet (such a piece is kept as written). */
static int64_t llm__bl_decode(const unsigned char *s, uint64_t n, char *out, const signed short *tab) {
    uint64_t i = 0;
    int64_t w = 0;
    while (i < n) {
        uint32_t cp;
        int b;
        if (s[i] < 0x80) cp = s[i], i++;
        else if ((s[i] & 0xE0) == 0xC0 && i + 1 < n && (s[i + 1] & 0xC0) == 0x80)
            cp = ((uint32_t)(s[i] & 0x1F) << 6) | (s[i + 1] & 0x3F), i += 2;
        else return -1;
        b = cp < 324 ? tab[cp] : -1;
        if (b < 0) return -1;
        out[w++] = (char)b;
    }
    return w;
}
static void llm__bl_table(signed short tab[324]) {
    uint32_t cp;
    for (cp = 0; cp < 324; cp++) tab[cp] = (signed short)llm__bl_byte(cp);
}

/* Piece `id` from s[0 .. n): SentencePiece's U+2581 to ' ' (spm), byte-level unmapped
   (bl: a table, NULL for raw). */
static llm_status llm__vocab_put(llm__vbuild *b, int64_t id, const char *s, uint64_t n, int spm,
                                 const signed short *bl) {
    llm_vocab *v = b->v;
    char *d = v->text + b->pos;
    uint64_t i, w = 0;
    int64_t r;
    if (n > b->text_cap - b->pos - 1) return LLM_EFORMAT;
    r = bl ? llm__bl_decode((const unsigned char *)s, n, d, bl) : -1;
    if (r >= 0) {
        w = (uint64_t)r;
    } else if (spm) {
        for (i = 0, w = 0; i < n; i++) {
            if (i + 2 < n && (unsigned char)s[i] == 0xE2 && (unsigned char)s[i + 1] == 0x96 && (unsigned char)s[i + 2] == 0x81)
                d[w++] = ' ', i += 2;
            else d[w++] = s[i];
        }
    } else {
        memcpy(d, s, (size_t)n);
        w = n;
    }
    d[w] = '\0';
    v->off[id] = (uint32_t)b->pos, v->len[id] = (uint32_t)w;
    b->pos += w + 1;
    return LLM_OK;
}

static uint32_t llm__fnv(const unsigned char *s, size_t n) {
    uint32_t h = 2166136261u;
    while (n--) h = (h ^ *s++) * 16777619u;
    return h;
}
/* The normal piece with these bytes, or -1. */
static int32_t llm__vocab_lookup(const llm_vocab *v, const char *s, size_t n) {
    uint32_t i = llm__fnv((const unsigned char *)s, n) & v->hash_mask, h;
    while ((h = v->hash[i]) != 0) {
        int32_t id = (int32_t)(h - 1);
        if (v->len[id] == n && memcmp(v->text + v->off[id], s, n) == 0) return id;
        i = (i + 1) & v->hash_mask;
    }
    return -1;
}
static uint32_t llm__merge_hash(uint32_t a, uint32_t b) {
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    return h ^ (h >> 15);
}
static const llm_vocab_merge *llm__merge_find(const llm_vocab *v, int32_t a, int32_t b) {
    uint32_t i = llm__merge_hash((uint32_t)a, (uint32_t)b) & v->merge_mask;
    while (v->merges[i].id1 != 0) {
        if (v->merges[i].a == (uint32_t)a && v->merges[i].b == (uint32_t)b) return &v->merges[i];
        i = (i + 1) & v->merge_mask;
    }
    return NULL;
}
/* A merge of pieces a and b into id, by rank; a pair given again keeps its first rank. */
static void llm__merge_add(llm_vocab *v, int32_t a, int32_t b, uint32_t rank, int32_t id) {
    uint32_t i = llm__merge_hash((uint32_t)a, (uint32_t)b) & v->merge_mask;
    while (v->merges[i].id1 != 0) {
        if (v->merges[i].a == (uint32_t)a && v->merges[i].b == (uint32_t)b) return;
        i = (i + 1) & v->merge_mask;
    }
    v->merges[i].a = (uint32_t)a, v->merges[i].b = (uint32_t)b, v->merges[i].rank = rank;
    v->merges[i].id1 = (uint32_t)id + 1;
    v->n_merges++;
}

static int llm__vocab_is_special(int type) {
    return type == LLM_TOKEN_CONTROL || type == LLM_TOKEN_USER_DEFINED || type == LLM_TOKEN_UNKNOWN;
}
/* The hash of normal pieces (a piece given twice is LLM_EFORMAT), byte tokens, the special
   list by first byte and length, the special ids in range. */
static llm_status llm__vocab_finish(llm_vocab *v, const char **why) {
    int32_t i, n = v->n_tokens, k;
    int32_t count[257];
    for (i = 0; i < 256; i++) v->byte_id[i] = -1;
    v->max_piece = 0;
    v->spm_words = v->kind == LLM_VOCAB_SPM;
    for (i = 0; i < n; i++) {
        int t = v->type[i];
        const char *s = v->text + v->off[i];
        uint32_t b;
        if ((int32_t)v->len[i] > v->max_piece) v->max_piece = (int32_t)v->len[i];
        for (b = 1; b < v->len[i] && v->spm_words; b++) /* a merge across "x|_" would need such a piece */
            if (s[b] == ' ' && s[b - 1] != ' ') v->spm_words = 0;
        if (t == LLM_TOKEN_BYTE) {
            int h0, h1;
            if (v->len[i] != 6 || s[0] != '<' || s[1] != '0' || s[2] != 'x' || (h0 = llm__hexval(s[3])) < 0 ||
                (h1 = llm__hexval(s[4])) < 0 || s[5] != '>') {
                llm__fmt(v->why, sizeof v->why, "token %ld has type byte but is not <0xNN>", (long)i);
                LLM__FFAIL(why, v->why, LLM_EFORMAT);
            }
            if (v->byte_id[h0 * 16 + h1] < 0) v->byte_id[h0 * 16 + h1] = i;
        } else if ((t == LLM_TOKEN_NORMAL || t == LLM_TOKEN_UNDEFINED) && v->len[i] > 0) {
            uint32_t j = llm__fnv((const unsigned char *)s, v->len[i]) & v->hash_mask;
            while (v->hash[j] != 0) {
                int32_t o = (int32_t)(v->hash[j] - 1);
                if (v->len[o] == v->len[i] && memcmp(v->text + v->off[o], s, v->len[i]) == 0) {
                    llm__fmt(v->why, sizeof v->why, "tokens %ld and %ld are the same piece", (long)o, (long)i);
                    LLM__FFAIL(why, v->why, LLM_EFORMAT);
                }
                j = (j + 1) & v->hash_mask;
            }
            v->hash[j] = (uint32_t)i + 1;
        }
    }
    if (v->kind == LLM_VOCAB_BPE)
        for (i = 0; i < 256; i++) {
            char c = (char)i;
            v->byte_id[i] = llm__vocab_lookup(v, &c, 1);
        }
    /* special pieces grouped by first byte (a counting sort), longest first in each group */
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++)
        if (llm__vocab_is_special(v->type[i]) && v->len[i] > 0) count[(unsigned char)v->text[v->off[i]] + 1]++;
    for (k = 0; k < 256; k++) count[k + 1] += count[k];
    memcpy(v->special_at, count, sizeof count);
    for (i = 0; i < n; i++)
        if (llm__vocab_is_special(v->type[i]) && v->len[i] > 0) {
            int c = (unsigned char)v->text[v->off[i]];
            int32_t j = count[c]++;
            while (j > v->special_at[c] && v->len[v->special[j - 1]] < v->len[i]) { /* insertion, by length */
                v->special[j] = v->special[j - 1];
                j--;
            }
            v->special[j] = i;
        }
    v->n_special = v->special_at[256];
    return LLM_OK;
}

/* An id key: absent or -1 (llama.cpp's "none") is -1, else it must be a token. */
static llm_status llm__vocab_id_key(const llm_gguf *g, llm_vocab *v, const char *key, int32_t *out, const char **why) {
    int64_t x;
    llm_status st = llm_gguf_get_int(g, key, &x);
    if (st == LLM_ENOTFOUND) return LLM_OK;
    if (st == LLM_OK && (x == -1 || x == 0xFFFFFFFFLL)) return LLM_OK;
    if (st != LLM_OK || x < 0 || x >= v->n_tokens) {
        llm__fmt(v->why, sizeof v->why, "%s: not an id of the %ld tokens", key, (long)v->n_tokens);
        LLM__FFAIL(why, v->why, LLM_EFORMAT);
    }
    *out = (int32_t)x;
    return LLM_OK;
}
static llm_status llm__vocab_flag_key(const llm_gguf *g, llm_vocab *v, const char *key, int *out, const char **why) {
    int64_t i = llm_gguf_find_key(g, key);
    if (i < 0) return LLM_OK;
    if (g->kv[i].type != LLM_GGUF_BOOL) {
        llm__fmt(v->why, sizeof v->why, "%s: not a bool", key);
        LLM__FFAIL(why, v->why, LLM_EFORMAT);
    }
    *out = g->kv[i].value[0] != 0;
    return LLM_OK;
}

/* The GGUF's counts, checked: tokens (an array of strings), its text bytes, merges. */
static llm_status llm__vocab_gguf_counts(const llm_gguf *g, uint64_t *n, uint64_t *text, uint64_t *n_merges,
                                         const char **what) {
    int64_t t = llm_gguf_find_key(g, "tokenizer.ggml.tokens"), m = llm_gguf_find_key(g, "tokenizer.ggml.merges");
    *n = *text = *n_merges = 0;
    *what = "";
    if (t < 0) return *what = "no tokenizer.ggml.tokens", LLM_ENOTFOUND;
    if (g->kv[t].type != LLM_GGUF_ARRAY || g->kv[t].arr_type != LLM_GGUF_STRING)
        return *what = "tokenizer.ggml.tokens: not an array of strings", LLM_EFORMAT;
    if (g->kv[t].arr_n == 0 || g->kv[t].arr_n > LLM__VOCAB_MAX_TOKENS || g->kv[t].arr_n > g->kv[t].bytes / 8)
        return *what = "tokenizer.ggml.tokens: count out of 1..2^24 or past its bytes", LLM_EFORMAT;
    *n = g->kv[t].arr_n;
    *text = g->kv[t].bytes - 8 * *n; /* every piece's bytes, at most */
    if (*text >= (uint64_t)UINT32_MAX / 2) return *what = "tokenizer.ggml.tokens: 2 GiB of text or more", LLM_EFORMAT;
    if (m >= 0) {
        if (g->kv[m].type != LLM_GGUF_ARRAY || g->kv[m].arr_type != LLM_GGUF_STRING)
            return *what = "tokenizer.ggml.merges: not an array of strings", LLM_EFORMAT;
        if (g->kv[m].arr_n > LLM__VOCAB_MAX_TOKENS || g->kv[m].arr_n > g->kv[m].bytes / 8)
            return *what = "tokenizer.ggml.merges: count above 2^24 or past its bytes", LLM_EFORMAT;
        *n_merges = g->kv[m].arr_n;
    }
    return LLM_OK;
}

LLMDEF size_t llm_vocab_gguf_bytes(const llm_gguf *g) {
    uint64_t n, text, nm;
    const char *what;
    if (!g || llm__vocab_gguf_counts(g, &n, &text, &nm, &what) != LLM_OK) return 0;
    return llm__vocab_size(n, text, nm);
}

#define LLM__VTRY(x)                                                                                    \
    do {                                                                                               \
        llm_status st_ = (x);                                                                          \
        if (st_ != LLM_OK) return st_;                                                                 \
    } while (0)
#define LLM__VFAIL(code, ...)                                                                           \
    do {                                                                                               \
        llm__fmt(v->why, sizeof v->why, __VA_ARGS__);                                                  \
        if (why) *why = v->why;                                                                        \
        return (code);                                                                                 \
    } while (0)

/* A merge "left right" (byte-level text, one space between) to the ids it names. */
static llm_status llm__vocab_merge_text(llm_vocab *v, const char *s, uint64_t n, uint32_t rank,
                                        const signed short *bl, char *tmp, const char **why) {
    uint64_t k;
    int64_t la, lb;
    int32_t a, b, id;
    for (k = 0; k < n && s[k] != ' '; k++) {}
    if (k == 0 || k + 1 >= n) LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.merges[%lu]: not two pieces split by a space", (unsigned long)rank);
    la = llm__bl_decode((const unsigned char *)s, k, tmp, bl);
    lb = la < 0 ? -1 : llm__bl_decode((const unsigned char *)s + k + 1, n - k - 1, tmp + la, bl);
    if (lb < 0) LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.merges[%lu]: a character outside the byte-level alphabet", (unsigned long)rank);
    a = llm__vocab_lookup(v, tmp, (size_t)la);
    b = llm__vocab_lookup(v, tmp + la, (size_t)lb);
    id = llm__vocab_lookup(v, tmp, (size_t)(la + lb));
    if (a < 0 || b < 0 || id < 0)
        LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.merges[%lu] (\"%.*s\"): names a piece that is not a token", (unsigned long)rank,
                   (int)(n < 60 ? n : 60), s);
    llm__merge_add(v, a, b, rank, id);
    return LLM_OK;
}

static llm_status llm__vocab_init_gguf(llm_vocab *v, void *mem, size_t mem_bytes, const llm_gguf *g, const char **why) {
    uint64_t n, text, nm, cur = 0, i;
    llm__vbuild b;
    llm_gguf_str model, pre, s;
    const char *what;
    signed short bl[324];
    int64_t kt, ks, ky, km;
    llm_status st = llm__vocab_gguf_counts(g, &n, &text, &nm, &what);
    size_t need;
    if (st != LLM_OK) LLM__VFAIL(st == LLM_ENOTFOUND ? LLM_EFORMAT : st, "%s", what);
    need = llm__vocab_size(n, text, nm);
    if (!mem || need == 0 || mem_bytes < need) LLM__VFAIL(LLM_EINVAL, "memory smaller than llm_vocab_gguf_bytes");
    if (llm_gguf_get_str(g, "tokenizer.ggml.model", &model) != LLM_OK)
        LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.model: absent or not a string");
    llm__vocab_setup(&b, v, mem, n, text, nm);
    if (model.n == 5 && memcmp(model.s, "llama", 5) == 0) {
        v->kind = LLM_VOCAB_SPM, v->add_bos = 1, v->add_space_prefix = 1;
    } else if (model.n == 4 && memcmp(model.s, "gpt2", 4) == 0) {
        char name[64];
        const char *pwhy = "";
        v->kind = LLM_VOCAB_BPE;
        if (llm_gguf_get_str(g, "tokenizer.ggml.pre", &pre) != LLM_OK) pre.s = "default", pre.n = 7;
        if (pre.n >= sizeof name) LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.ggml.pre \"%.*s...\": unknown", 40, pre.s);
        memcpy(name, pre.s, (size_t)pre.n);
        name[pre.n] = '\0';
        if (llm_pretok_from_name(name, &v->pretok, &pwhy) != LLM_OK || v->pretok == LLM_PRETOK_NONE)
            LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.ggml.pre \"%s\": not a pre-tokenizer llm.h has", name);
        v->ignore_merges = v->pretok == LLM_PRETOK_LLAMA3; /* llama.cpp's and HF's Llama 3 */
    } else {
        LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.ggml.model \"%.*s\": not llama (SentencePiece) or gpt2 (BPE)",
                   (int)(model.n < 40 ? model.n : 40), model.s);
    }
    llm__bl_table(bl);
    kt = llm_gguf_find_key(g, "tokenizer.ggml.tokens");
    ks = llm_gguf_find_key(g, "tokenizer.ggml.scores");
    ky = llm_gguf_find_key(g, "tokenizer.ggml.token_type");
    km = llm_gguf_find_key(g, "tokenizer.ggml.merges");
    if (ks >= 0 && (g->kv[ks].type != LLM_GGUF_ARRAY || g->kv[ks].arr_type != LLM_GGUF_FLOAT32 || g->kv[ks].arr_n != n))
        LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.scores: not %lu float32", (unsigned long)n);
    if (ky >= 0 && (g->kv[ky].type != LLM_GGUF_ARRAY || !llm__gguf_is_int(g->kv[ky].arr_type) || g->kv[ky].arr_n != n))
        LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.token_type: not %lu integers", (unsigned long)n);
    if (v->kind == LLM_VOCAB_BPE && km < 0) LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.merges: absent (gpt2 needs them)");
    /* types first: a byte-level piece is unmapped only when it is a normal one */
    for (i = 0; i < n; i++) {
        int64_t t = LLM_TOKEN_NORMAL;
        double sc;
        if (ky >= 0 && (llm_gguf_arr_int(&g->kv[ky], i, &t) != LLM_OK || t < 0 || t > LLM_TOKEN_BYTE))
            LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.token_type[%lu]: not a type 0..6", (unsigned long)i);
        v->type[i] = (uint8_t)t;
        if (ks >= 0 && llm_gguf_arr_float(&g->kv[ks], i, &sc) == LLM_OK) v->score[i] = (float)sc;
        if (llm_gguf_arr_str(&g->kv[kt], &cur, &s) != LLM_OK)
            LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.tokens[%lu]: past the array's end", (unsigned long)i);
        if (llm__vocab_put(&b, (int64_t)i, s.s, s.n, v->kind == LLM_VOCAB_SPM,
                           v->kind == LLM_VOCAB_BPE && (t == LLM_TOKEN_NORMAL || t == LLM_TOKEN_UNDEFINED) ? bl : NULL) != LLM_OK)
            LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.tokens[%lu]: past the array's bytes", (unsigned long)i);
    }
    LLM__VTRY(llm__vocab_finish(v, why));
    if (km >= 0 && v->kind == LLM_VOCAB_BPE) {
        char *tmp = v->text + b.pos; /* the free tail of the text area: a merge is shorter than the pieces */
        cur = 0;
        for (i = 0; i < nm; i++) {
            if (llm_gguf_arr_str(&g->kv[km], &cur, &s) != LLM_OK)
                LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.merges[%lu]: past the array's end", (unsigned long)i);
            if (s.n > b.text_cap - b.pos) /* longer than all pieces together: it cannot name two */
                LLM__VFAIL(LLM_EFORMAT, "tokenizer.ggml.merges[%lu]: names a piece that is not a token", (unsigned long)i);
            LLM__VTRY(llm__vocab_merge_text(v, s.s, s.n, (uint32_t)i, bl, tmp, why));
        }
    }
    LLM__VTRY(llm__vocab_id_key(g, v, "tokenizer.ggml.bos_token_id", &v->bos, why));
    LLM__VTRY(llm__vocab_id_key(g, v, "tokenizer.ggml.eos_token_id", &v->eos, why));
    LLM__VTRY(llm__vocab_id_key(g, v, "tokenizer.ggml.eot_token_id", &v->eot, why));
    LLM__VTRY(llm__vocab_id_key(g, v, "tokenizer.ggml.unknown_token_id", &v->unk, why));
    LLM__VTRY(llm__vocab_id_key(g, v, "tokenizer.ggml.padding_token_id", &v->pad, why));
    LLM__VTRY(llm__vocab_flag_key(g, v, "tokenizer.ggml.add_bos_token", &v->add_bos, why));
    LLM__VTRY(llm__vocab_flag_key(g, v, "tokenizer.ggml.add_eos_token", &v->add_eos, why));
    LLM__VTRY(llm__vocab_flag_key(g, v, "tokenizer.ggml.add_space_prefix", &v->add_space_prefix, why));
    if (v->kind == LLM_VOCAB_SPM && v->unk < 0) {
        for (i = 0; i < n && v->type[i] != LLM_TOKEN_UNKNOWN; i++) {}
        if (i < n) v->unk = (int32_t)i;
    }
    return LLM_OK;
}

/* An error leaves the vocabulary empty but for the reason. */
static llm_status llm__vocab_done(llm_vocab *v, llm_status st) {
    if (st != LLM_OK) {
        char keep[sizeof v->why];
        memcpy(keep, v->why, sizeof keep);
        memset(v, 0, sizeof *v);
        memcpy(v->why, keep, sizeof keep);
    }
    return st;
}
LLMDEF llm_status llm_vocab_init_gguf(llm_vocab *v, void *mem, size_t mem_bytes, const llm_gguf *g, const char **why) {
    if (why) *why = "";
    if (!v || !g) LLM__FFAIL(why, "no vocabulary or GGUF", LLM_EINVAL);
    v->why[0] = '\0';
    return llm__vocab_done(v, llm__vocab_init_gguf(v, mem, mem_bytes, g, why));
}
LLMDEF llm_status llm_vocab_create_gguf(llm_vocab *v, const llm_gguf *g, const char **why) {
    size_t need;
    void *mem;
    llm_status st;
    if (why) *why = "";
    if (!v || !g) LLM__FFAIL(why, "no vocabulary or GGUF", LLM_EINVAL);
    need = llm_vocab_gguf_bytes(g);
    if (need == 0) return llm_vocab_init_gguf(v, NULL, 0, g, why); /* the reason */
    mem = LLM_MALLOC(need);
    if (!mem) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    st = llm_vocab_init_gguf(v, mem, need, g, why);
    if (st != LLM_OK) {
        LLM_FREE(mem);
        return st;
    }
    v->owned = mem;
    return LLM_OK;
}
LLMDEF void llm_vocab_free(llm_vocab *v) {
    if (!v) return;
    if (v->owned) LLM_FREE(v->owned);
    memset(v, 0, sizeof *v);
}

/* ---- encoding ----
   The merges of one piece of text (llama.cpp's llm_tokenizer_spm / _bpe sessions, and
   sentencepiece's BPE mode): symbols are the UTF-8 characters (a lead byte's length, cut
   at the end; byte-level BPE: the bytes, each one character of its alphabet), a linked list; a heap holds candidate pairs, the best first: SentencePiece
   by the merged piece's score (higher), BPE by the merge's rank (lower, as key -rank);
   equal keys: the leftmost pair. A popped pair whose symbols changed since it was pushed
   is stale and skipped (its two lengths no longer add up); a merge pushes the two new
   pairs around it. Scratch: 5 int32 per symbol, 3 heap entries per symbol (the first
   n - 1 pairs and two per merge). */
typedef struct llm__sym { int32_t start, n, prev, next, id; } llm__sym;
typedef struct llm__big { float key; int32_t left, size, id; } llm__big;
typedef struct llm__enc {
    const llm_vocab *v;
    const char *s;
    llm__sym *sym;
    llm__big *heap;
    int32_t n_heap;
    int32_t *ids;
    size_t cap, n;
    llm_status err;
} llm__enc;

static void llm__enc_out(llm__enc *e, int32_t id) {
    if (e->n < e->cap) e->ids[e->n] = id;
    e->n++;
}
static int llm__big_before(const llm__big *x, const llm__big *y) {
    return x->key > y->key || (x->key == y->key && x->left < y->left);
}
static void llm__heap_push(llm__enc *e, llm__big b) {
    int32_t i = e->n_heap++;
    while (i > 0 && llm__big_before(&b, &e->heap[(i - 1) / 2])) {
        e->heap[i] = e->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->heap[i] = b;
}
static llm__big llm__heap_pop(llm__enc *e) {
    llm__big top = e->heap[0], last = e->heap[--e->n_heap];
    int32_t i = 0, c;
    while ((c = 2 * i + 1) < e->n_heap) {
        if (c + 1 < e->n_heap && llm__big_before(&e->heap[c + 1], &e->heap[c])) c++;
        if (!llm__big_before(&e->heap[c], &last)) break;
        e->heap[i] = e->heap[c];
        i = c;
    }
    if (e->n_heap > 0) e->heap[i] = last;
    return top;
}
/* The pair (l, r) as a candidate, if its merge exists. */
static void llm__enc_pair(llm__enc *e, int32_t l, int32_t r) {
    llm__big b;
    if (l < 0 || r < 0) return;
    if (e->v->kind == LLM_VOCAB_SPM && !e->v->merges) { /* by the merged piece's score; else by merge rank */
        b.id = llm__vocab_lookup(e->v, e->s + e->sym[l].start, (size_t)e->sym[l].n + (size_t)e->sym[r].n);
        if (b.id < 0) return;
        b.key = e->v->score[b.id];
    } else {
        const llm_vocab_merge *m;
        if (e->sym[l].id < 0 || e->sym[r].id < 0) return;
        m = llm__merge_find(e->v, e->sym[l].id, e->sym[r].id);
        if (!m) return;
        b.id = (int32_t)m->id1 - 1, b.key = -(float)m->rank;
    }
    b.left = l, b.size = e->sym[l].n + e->sym[r].n;
    llm__heap_push(e, b);
}
static int llm__utf8_lead_len(unsigned char c) {
    static const unsigned char len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return len[c >> 4];
}
/* One piece s[a .. b): merged, its tokens out (a character with no token: its bytes). */
static void llm__enc_word(llm__enc *e, int32_t a, int32_t b) {
    const llm_vocab *v = e->v;
    int32_t m = 0, p, k;
    if (a >= b) return;
    if (v->ignore_merges && (k = llm__vocab_lookup(v, e->s + a, (size_t)(b - a))) >= 0) {
        llm__enc_out(e, k);
        return;
    }
    for (p = a; p < b; m++) { /* BPE: each byte is one byte-level character */
        int32_t cl = v->kind == LLM_VOCAB_BPE ? 1 : llm__utf8_lead_len((unsigned char)e->s[p]);
        if (cl > b - p) cl = b - p;
        e->sym[m].start = p, e->sym[m].n = cl, e->sym[m].prev = m - 1, e->sym[m].next = m + 1;
        e->sym[m].id = llm__vocab_lookup(v, e->s + p, (size_t)cl);
        p += cl;
    }
    e->sym[m - 1].next = -1;
    e->n_heap = 0;
    for (k = 1; k < m; k++) llm__enc_pair(e, k - 1, k);
    while (e->n_heap > 0) {
        llm__big g = llm__heap_pop(e);
        llm__sym *L = &e->sym[g.left], *R;
        if (L->n == 0 || L->next < 0) continue;
        R = &e->sym[L->next];
        if (R->n == 0 || L->n + R->n != g.size) continue; /* stale */
        L->n += R->n, R->n = 0;
        L->next = R->next;
        if (R->next >= 0) e->sym[R->next].prev = g.left;
        L->id = g.id;
        llm__enc_pair(e, L->prev, g.left);
        llm__enc_pair(e, g.left, L->next);
    }
    for (k = 0; k >= 0; k = e->sym[k].next) {
        if (e->sym[k].id >= 0) {
            llm__enc_out(e, e->sym[k].id);
            continue;
        }
        for (p = 0; p < e->sym[k].n; p++) { /* byte fallback */
            int32_t id = v->byte_id[(unsigned char)e->s[e->sym[k].start + p]];
            if (id < 0) id = v->unk;
            if (id < 0) e->err = LLM_EFORMAT; /* no byte pieces and no <unk>: the text cannot be encoded */
            else llm__enc_out(e, id);
        }
    }
}

/* Scratch: the fragment buffer (SentencePiece's prefixed copy, Qwen2's NFC text), the
   symbols and the heap, for the whole text at most. */
static uint64_t llm__enc_buf_bytes(const llm_vocab *v, uint64_t len) {
    if (v->kind == LLM_VOCAB_BPE && v->pretok == LLM_PRETOK_QWEN2) return llm_nfc_bound((size_t)len);
    return v->kind == LLM_VOCAB_SPM ? len + 1 : 0;
}
static uint64_t llm__enc_syms(const llm_vocab *v, uint64_t len) {
    uint64_t nb = llm__enc_buf_bytes(v, len);
    return (nb > len ? nb : len) + 2;
}
LLMDEF size_t llm_vocab_scratch_bytes(const llm_vocab *v, size_t text_len) {
    uint64_t s, m;
    if (!v || !v->text || text_len >= (size_t)INT32_MAX / 2) return 0; /* symbol positions are int32 */
    m = llm__enc_syms(v, text_len);
    s = LLM__MALIGN(llm__enc_buf_bytes(v, text_len)) + LLM__MALIGN(m * sizeof(llm__sym)) +
        LLM__MALIGN(3 * m * sizeof(llm__big)) + 64;
    return s > (uint64_t)SIZE_MAX ? 0 : (size_t)s;
}

/* A run of plain text between special tokens. */
static void llm__enc_fragment(llm__enc *e, const char *t, size_t n, int after_special, char *buf) {
    const llm_vocab *v = e->v;
    if (v->kind == LLM_VOCAB_SPM) {
        size_t k = 0;
        if (v->add_space_prefix && after_special) buf[k++] = ' ';
        memcpy(buf + k, t, n);
        e->s = buf;
        if (v->spm_words) { /* each word with the spaces before it: no piece spans two */
            int32_t a = 0, i;
            for (i = 1; i < (int32_t)(n + k); i++)
                if (buf[i] == ' ' && buf[i - 1] != ' ') llm__enc_word(e, a, i), a = i;
            llm__enc_word(e, a, (int32_t)(n + k));
        } else {
            llm__enc_word(e, 0, (int32_t)(n + k));
        }
        return;
    }
    if (v->pretok == LLM_PRETOK_QWEN2) {
        size_t m = 0;
        if (llm_nfc(t, n, buf, llm_nfc_bound(n), &m) != LLM_OK) {
            e->err = LLM_EINVAL;
            return;
        }
        t = buf, n = m;
    }
    e->s = t;
    {
        int64_t i = 0, j;
        while (i < (int64_t)n) {
            j = llm__pretok_next(v->pretok, (const unsigned char *)t, (int64_t)n, i);
            if (j <= i || j > (int64_t)n) j = (int64_t)n; /* a split that does not advance: the rest */
            llm__enc_word(e, (int32_t)i, (int32_t)j);
            i = j;
        }
    }
}

/* The special piece that starts at text[i] and is allowed here (user-defined always,
   control and unknown with LLM_ENCODE_SPECIAL), longest first; -1 if none. */
static int32_t llm__enc_special(const llm_vocab *v, const char *t, size_t n, size_t i, int flags, size_t *mlen) {
    int c = (unsigned char)t[i];
    int32_t k;
    for (k = v->special_at[c]; k < v->special_at[c + 1]; k++) {
        int32_t id = v->special[k];
        size_t l = v->len[id];
        if (v->type[id] != LLM_TOKEN_USER_DEFINED && !(flags & LLM_ENCODE_SPECIAL)) continue;
        if (l <= n - i && memcmp(t + i, v->text + v->off[id], l) == 0) {
            *mlen = l;
            return id;
        }
    }
    return -1;
}

LLMDEF llm_status llm_vocab_encode(const llm_vocab *v, const char *text, size_t len, int flags, int32_t *ids,
                                   size_t cap, size_t *n_ids, void *scratch, size_t scratch_bytes) {
    llm__enc e;
    size_t need, i = 0, from = 0, ml = 0;
    uint64_t m;
    char *base, *buf;
    void *mem = scratch;
    int after_special = 1;
    if (n_ids) *n_ids = 0;
    if (!v || !v->text || (!text && len) || (!ids && cap) || !n_ids) return LLM_EINVAL;
    if (len >= (size_t)INT32_MAX / 2) return LLM_ERANGE; /* symbol positions are int32 */
    need = llm_vocab_scratch_bytes(v, len);
    if (need == 0) return LLM_ERANGE;
    if (!scratch) {
        mem = LLM_MALLOC(need);
        if (!mem) return LLM_ENOMEM;
    } else if (scratch_bytes < need) {
        return LLM_EINVAL;
    }
    m = llm__enc_syms(v, len);
    base = (char *)llm__align64(mem);
    buf = base;
    memset(&e, 0, sizeof e);
    e.v = v, e.ids = ids, e.cap = cap, e.err = LLM_OK;
    e.sym = (llm__sym *)(void *)(base + LLM__MALIGN(llm__enc_buf_bytes(v, len)));
    e.heap = (llm__big *)(void *)((char *)e.sym + LLM__MALIGN(m * sizeof(llm__sym)));
    if ((flags & LLM_ENCODE_BOS) && v->bos >= 0) llm__enc_out(&e, v->bos);
    if (v->n_special > 0)
        while (i < len) {
            int32_t id = llm__enc_special(v, text, len, i, flags, &ml);
            if (id < 0) {
                i++;
                continue;
            }
            if (i > from) llm__enc_fragment(&e, text + from, i - from, after_special, buf);
            llm__enc_out(&e, id);
            after_special = 1, i += ml, from = i;
        }
    if (from < len) llm__enc_fragment(&e, text + from, len - from, after_special, buf);
    if ((flags & LLM_ENCODE_EOS) && v->eos >= 0) llm__enc_out(&e, v->eos);
    if (mem != scratch) LLM_FREE(mem);
    *n_ids = e.n;
    if (e.err != LLM_OK) return e.err;
    return e.n > cap ? LLM_ERANGE : LLM_OK;
}

LLMDEF int32_t llm_vocab_find(const llm_vocab *v, const char *text, size_t len) {
    int32_t id, i;
    if (!v || !v->text || (!text && len)) return -1;
    id = llm__vocab_lookup(v, text ? text : "", len);
    if (id >= 0) return id;
    for (i = 0; i < v->n_tokens; i++)
        if (v->len[i] == len && memcmp(v->text + v->off[i], text, len) == 0) return i;
    return -1;
}

/* ---- decoding ---- */
static const unsigned char llm__bytes256[256] = {
#define LLM__B4(i) (i), (i) + 1, (i) + 2, (i) + 3
#define LLM__B16(i) LLM__B4(i), LLM__B4((i) + 4), LLM__B4((i) + 8), LLM__B4((i) + 12)
#define LLM__B64(i) LLM__B16(i), LLM__B16((i) + 16), LLM__B16((i) + 32), LLM__B16((i) + 48)
    LLM__B64(0), LLM__B64(64), LLM__B64(128), LLM__B64(192)
#undef LLM__B64
#undef LLM__B16
#undef LLM__B4
};

LLMDEF const char *llm_vocab_piece(const llm_vocab *v, int32_t id, int flags, size_t *len) {
    const char *s;
    if (len) *len = 0;
    if (!v || !v->text || !len || id < 0 || id >= v->n_tokens) return NULL;
    s = v->text + v->off[id];
    switch (v->type[id]) {
    case LLM_TOKEN_BYTE: /* checked <0xNN> at load */
        *len = 1;
        return (const char *)llm__bytes256 + llm__hexval(s[3]) * 16 + llm__hexval(s[4]);
    case LLM_TOKEN_UNKNOWN:
        if (v->kind == LLM_VOCAB_SPM && !(flags & LLM_DECODE_SPECIAL)) return *len = 3, "\xe2\x96\x85";
        /* fall through */
    case LLM_TOKEN_CONTROL:
        if (!(flags & LLM_DECODE_SPECIAL)) return "";
        break;
    case LLM_TOKEN_UNUSED: return "";
    default: break;
    }
    *len = v->len[id];
    return s;
}

LLMDEF llm_status llm_vocab_decode(const llm_vocab *v, const int32_t *ids, size_t n, int flags, char *out, size_t cap,
                                   size_t *out_len) {
    size_t used = 0, i, l;
    int strip;
    if (out_len) *out_len = 0;
    if (!v || !v->text || (!ids && n) || (!out && cap)) return LLM_EINVAL;
    strip = v->add_space_prefix && !(flags & LLM_DECODE_KEEP_SPACE);
    for (i = 0; i < n; i++) {
        const char *s = llm_vocab_piece(v, ids[i], flags, &l);
        if (!s) return LLM_EINVAL;
        if (l > 0 && strip) {
            if (s[0] == ' ') s++, l--;
            strip = 0;
        }
        if (used + l < cap) memcpy(out + used, s, l);
        used += l;
    }
    if (out_len) *out_len = used;
    if (used >= cap) {
        if (cap) out[0] = '\0';
        return LLM_ERANGE;
    }
    out[used] = '\0';
    return LLM_OK;
}

LLMDEF llm_status llm_vocab_stream_init(llm_vocab_stream *s, const llm_vocab *v, int flags) {
    if (!s || !v || !v->text) return LLM_EINVAL;
    memset(s, 0, sizeof *s);
    s->v = v, s->flags = flags;
    return LLM_OK;
}
/* Where the incomplete UTF-8 sequence at the end of b[0 .. n) starts (n if none): the
   last lead byte among the last 3, if its sequence needs more bytes than follow it. */
static size_t llm__utf8_cut(const unsigned char *b, size_t n) {
    size_t j = n, k;
    for (k = 0; k < 3 && j > 0; k++) {
        unsigned char c = b[--j];
        if ((c & 0xC0) == 0x80) continue; /* a continuation byte: keep looking for its lead */
        if (c >= 0xC2 && c <= 0xF4 && (size_t)llm__utf8_lead_len(c) > n - j) return j;
        return n;
    }
    return n;
}
LLMDEF llm_status llm_vocab_stream_push(llm_vocab_stream *s, int32_t id, char *out, size_t cap, size_t *out_len) {
    const char *p;
    size_t l, all, cut;
    if (out_len) *out_len = 0;
    if (!s || !s->v || !out_len || !out) return LLM_EINVAL;
    p = llm_vocab_piece(s->v, id, s->flags, &l);
    if (!p) return LLM_EINVAL;
    if (l > 0 && !s->started) {
        if (s->v->add_space_prefix && !(s->flags & LLM_DECODE_KEEP_SPACE) && p[0] == ' ') p++, l--;
        s->started = 1;
    }
    if ((size_t)s->n_held + l > cap) return LLM_ERANGE;
    memcpy(out, s->held, (size_t)s->n_held);
    memcpy(out + s->n_held, p, l);
    all = (size_t)s->n_held + l;
    cut = llm__utf8_cut((const unsigned char *)out, all);
    s->n_held = (int)(all - cut);
    memcpy(s->held, out + cut, all - cut);
    *out_len = cut;
    return LLM_OK;
}
LLMDEF llm_status llm_vocab_stream_flush(llm_vocab_stream *s, char *out, size_t cap, size_t *out_len) {
    if (out_len) *out_len = 0;
    if (!s || !out_len || (!out && s->n_held)) return LLM_EINVAL;
    if ((size_t)s->n_held > cap) return LLM_ERANGE;
    memcpy(out, s->held, (size_t)s->n_held);
    *out_len = (size_t)s->n_held;
    s->n_held = 0;
    return LLM_OK;
}

/* ---- from a Hugging Face tokenizer.json ---- */
static const char llm__hf_pat_llama3[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char llm__hf_pat_qwen2[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

typedef struct llm__hf {
    const char *js;
    const llm_json_tok *t;
    size_t nt;
    int64_t model, vocab, merges, added;
    uint64_t n, text, n_merges;
} llm__hf;

/* The member value after key token k, and the next key. */
#define LLM__JNEXT(t, k) ((t)[(k) + 1].next)

/* model.vocab, model.merges and added_tokens found and counted: the token count is the
   largest id + 1; every id in 0 .. 2^24; the text bytes bound the decoded pieces. */
static llm_status llm__hf_scan(llm__hf *h, const char **what) {
    const llm_json_tok *t = h->t;
    size_t k;
    uint32_t m;
    int64_t type, max_id = -1;
    *what = "";
    h->text = 0;
    if (h->nt == 0 || t[0].type != LLM_JSON_OBJECT) return *what = "tokenizer.json: not a JSON object", LLM_EFORMAT;
    h->model = llm_json_find(h->js, t, h->nt, 0, "model");
    if (h->model < 0 || t[h->model].type != LLM_JSON_OBJECT) return *what = "tokenizer.json: no model object", LLM_EFORMAT;
    type = llm_json_find(h->js, t, h->nt, (size_t)h->model, "type");
    if (type < 0 || !llm_json_eq(h->js, &t[type], "BPE"))
        return *what = "tokenizer.json: model.type is not BPE (WordPiece, Unigram and WordLevel are not supported)",
               LLM_EUNSUPPORTED;
    h->vocab = llm_json_find(h->js, t, h->nt, (size_t)h->model, "vocab");
    h->merges = llm_json_find(h->js, t, h->nt, (size_t)h->model, "merges");
    h->added = llm_json_find(h->js, t, h->nt, 0, "added_tokens");
    if (h->vocab < 0 || t[h->vocab].type != LLM_JSON_OBJECT) return *what = "tokenizer.json: model.vocab is not an object", LLM_EFORMAT;
    if (h->merges < 0 || t[h->merges].type != LLM_JSON_ARRAY) return *what = "tokenizer.json: model.merges is not an array", LLM_EFORMAT;
    if (h->added >= 0 && t[h->added].type != LLM_JSON_ARRAY) return *what = "tokenizer.json: added_tokens is not an array", LLM_EFORMAT;
    for (k = (size_t)h->vocab + 1, m = 0; m < t[h->vocab].n; m++, k = LLM__JNEXT(t, k)) {
        int64_t id;
        if (k + 1 >= h->nt || llm_json_int(h->js, &t[k + 1], &id) != LLM_OK || id < 0 || id >= LLM__VOCAB_MAX_TOKENS)
            return *what = "tokenizer.json: a model.vocab id is not an integer in 0 .. 2^24", LLM_EFORMAT;
        if (id > max_id) max_id = id;
        h->text += t[k].len;
    }
    if (h->added >= 0)
        for (k = (size_t)h->added + 1, m = 0; m < t[h->added].n; m++, k = t[k].next) {
            int64_t id = -1, ki = llm_json_find(h->js, t, h->nt, k, "id"), kc = llm_json_find(h->js, t, h->nt, k, "content");
            if (ki < 0 || kc < 0 || t[kc].type != LLM_JSON_STRING || llm_json_int(h->js, &t[ki], &id) != LLM_OK || id < 0 ||
                id >= LLM__VOCAB_MAX_TOKENS)
                return *what = "tokenizer.json: an added_tokens entry without an id in 0 .. 2^24 and a content string", LLM_EFORMAT;
            if (id > max_id) max_id = id;
            h->text += t[kc].len;
        }
    if (max_id < 0) return *what = "tokenizer.json: model.vocab is empty", LLM_EFORMAT;
    h->n = (uint64_t)max_id + 1;
    h->n_merges = t[h->merges].n;
    if (h->n_merges > LLM__VOCAB_MAX_TOKENS) return *what = "tokenizer.json: more than 2^24 merges", LLM_EFORMAT;
    if (h->text >= (uint64_t)UINT32_MAX / 4) return *what = "tokenizer.json: 1 GiB of piece text or more", LLM_EFORMAT;
    return LLM_OK;
}

/* The config's JSON tokens go after the tables. */
static size_t llm__hf_config_toks(const char *config, size_t config_len) {
    size_t n = 0;
    llm_status st;
    if (!config || !config_len) return 0;
    st = llm_json_parse(config, config_len, NULL, 0, &n, NULL);
    return st == LLM_ERANGE || st == LLM_OK ? n : 0;
}
LLMDEF size_t llm_vocab_json_bytes(const char *json, const llm_json_tok *toks, size_t n_toks, const char *config,
                                   size_t config_len) {
    llm__hf h;
    const char *what;
    size_t s, c;
    if (!json || !toks) return 0;
    memset(&h, 0, sizeof h);
    h.js = json, h.t = toks, h.nt = n_toks;
    if (llm__hf_scan(&h, &what) != LLM_OK) return 0;
    s = llm__vocab_size(h.n, h.text, h.n_merges);
    c = llm__hf_config_toks(config, config_len);
    if (s == 0 || c > (SIZE_MAX - s - 128) / sizeof(llm_json_tok)) return 0;
    return s + c * sizeof(llm_json_tok) + 128; /* the tokens start 64-aligned after the tables */
}

/* U+2581 to ' ' in place; the new length. */
static size_t llm__spm_unescape(char *d, size_t n) {
    size_t i, w = 0;
    for (i = 0; i < n; i++) {
        if (i + 2 < n && (unsigned char)d[i] == 0xE2 && (unsigned char)d[i + 1] == 0x96 && (unsigned char)d[i + 2] == 0x81)
            d[w++] = ' ', i += 2;
        else d[w++] = d[i];
    }
    return w;
}
/* A JSON string token decoded into the text area as piece `id`: byte-level unmapped when
   bl, SentencePiece's U+2581 to ' ' when spm. */
static llm_status llm__hf_put(llm__vbuild *b, const char *js, const llm_json_tok *t, int64_t id, const signed short *bl,
                              int spm) {
    llm_vocab *v = b->v;
    char *d = v->text + b->pos;
    size_t w = 0;
    int64_t r;
    if (t->type != LLM_JSON_STRING || llm_json_str(js, t, d, (size_t)(b->text_cap - b->pos), &w) != LLM_OK)
        return LLM_EFORMAT;
    r = bl ? llm__bl_decode((const unsigned char *)d, w, d, bl) : -1; /* in place: it only shrinks */
    if (r >= 0) w = (size_t)r;
    else if (spm) w = llm__spm_unescape(d, w);
    d[w] = '\0';
    v->off[id] = (uint32_t)b->pos, v->len[id] = (uint32_t)w;
    b->pos += w + 1;
    return LLM_OK;
}

/* A merge of two strings a, b (JSON tokens, or the halves of "a b"): byte-level (bl), or
   SentencePiece's with U+2581 (bl NULL). */
static llm_status llm__hf_merge(llm_vocab *v, const char *a, size_t la, const char *bb, size_t lb, uint32_t rank,
                                char *tmp, const signed short *bl, const char **why) {
    int64_t da, db;
    int32_t x, y, id;
    if (bl) {
        da = llm__bl_decode((const unsigned char *)a, la, tmp, bl);
        db = da < 0 ? -1 : llm__bl_decode((const unsigned char *)bb, lb, tmp + da, bl);
    } else {
        memmove(tmp, a, la), da = (int64_t)llm__spm_unescape(tmp, la);
        memmove(tmp + da, bb, lb), db = (int64_t)llm__spm_unescape(tmp + da, lb);
    }
    if (db < 0) LLM__VFAIL(LLM_EFORMAT, "model.merges[%lu]: a character outside the byte-level alphabet", (unsigned long)rank);
    x = llm__vocab_lookup(v, tmp, (size_t)da);
    y = llm__vocab_lookup(v, tmp + da, (size_t)db);
    id = llm__vocab_lookup(v, tmp, (size_t)(da + db));
    if (x < 0 || y < 0 || id < 0) LLM__VFAIL(LLM_EFORMAT, "model.merges[%lu]: names a piece that is not a token", (unsigned long)rank);
    llm__merge_add(v, x, y, rank, id);
    return LLM_OK;
}

/* tokenizer_config.json's bos_token / eos_token: a string, or {"content": string}. */
static int32_t llm__hf_special_id(const llm_vocab *v, const char *cj, const llm_json_tok *ct, size_t cn, const char *key) {
    int64_t k = llm_json_find(cj, ct, cn, 0, key);
    char name[256];
    size_t l = 0;
    if (k >= 0 && ct[k].type == LLM_JSON_OBJECT) k = llm_json_find(cj, ct, cn, (size_t)k, "content");
    if (k < 0 || ct[k].type != LLM_JSON_STRING || llm_json_str(cj, &ct[k], name, sizeof name, &l) != LLM_OK) return -1;
    return llm_vocab_find(v, name, l);
}

/* Where a SentencePiece tokenizer.json puts its space: a Metaspace pre-tokenizer
   (add_prefix_space, or prepend_scheme "always" / "first"), or a normalizer that is
   Prepend U+2581 and Replace " " with U+2581 (each optional); anything else in the
   normalizer is LLM_EUNSUPPORTED. */
static llm_status llm__hf_spm_space(llm_vocab *v, const char *js, const llm_json_tok *t, size_t nt, int64_t at, int meta,
                                    const char **why) {
    size_t k;
    uint32_t m;
    v->add_space_prefix = 0;
    if (at < 0 || t[at].type == LLM_JSON_NULL) return LLM_OK;
    if (meta) {
        int64_t ap = llm_json_find(js, t, nt, (size_t)at, "add_prefix_space"), ps = llm_json_find(js, t, nt, (size_t)at, "prepend_scheme");
        v->add_space_prefix = (ap >= 0 && t[ap].type == LLM_JSON_TRUE) ||
                              (ps >= 0 && (llm_json_eq(js, &t[ps], "always") || llm_json_eq(js, &t[ps], "first")));
        return LLM_OK;
    }
    {
        int64_t ty = t[at].type == LLM_JSON_OBJECT ? llm_json_find(js, t, nt, (size_t)at, "type") : -1;
        int64_t list = llm_json_find(js, t, nt, (size_t)at, "normalizers");
        if (ty < 0 || !llm_json_eq(js, &t[ty], "Sequence") || list < 0 || t[list].type != LLM_JSON_ARRAY)
            LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.json: a SentencePiece normalizer other than Prepend / Replace");
        for (k = (size_t)list + 1, m = 0; m < t[list].n; m++, k = t[k].next) {
            int64_t nty = t[k].type == LLM_JSON_OBJECT ? llm_json_find(js, t, nt, k, "type") : -1;
            if (nty >= 0 && llm_json_eq(js, &t[nty], "Prepend")) {
                v->add_space_prefix = 1;
            } else if (!(nty >= 0 && llm_json_eq(js, &t[nty], "Replace"))) {
                LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.json: normalizers[%lu] is not Prepend or Replace", (unsigned long)m);
            }
        }
    }
    return LLM_OK;
}

static llm_status llm__vocab_init_json(llm_vocab *v, void *mem, size_t mem_bytes, const char *js, size_t len,
                                       const llm_json_tok *t, size_t nt, const char *config, size_t config_len,
                                       const char **why) {
    llm__hf h;
    llm__vbuild b;
    const char *what;
    signed short bl[324];
    size_t k, need, cn = 0;
    uint32_t m;
    int64_t pre, norm, x;
    char *tmp;
    llm_status st;
    int spm;
    (void)len;
    memset(&h, 0, sizeof h);
    h.js = js, h.t = t, h.nt = nt;
    st = llm__hf_scan(&h, &what);
    if (st != LLM_OK) LLM__VFAIL(st, "%s", what);
    need = llm_vocab_json_bytes(js, t, nt, config, config_len);
    if (!mem || need == 0 || mem_bytes < need) LLM__VFAIL(LLM_EINVAL, "memory smaller than llm_vocab_json_bytes");
    llm__vocab_setup(&b, v, mem, h.n, h.text, h.n_merges);
    v->kind = LLM_VOCAB_BPE;
    /* the split: the Split pattern of a Sequence (Llama 3, Qwen2), or ByteLevel's own (GPT-2) */
    pre = llm_json_find(js, t, nt, 0, "pre_tokenizer");
    norm = llm_json_find(js, t, nt, 0, "normalizer");
    v->pretok = LLM_PRETOK_COUNT;
    if (pre >= 0 && t[pre].type == LLM_JSON_OBJECT) {
        int64_t ty = llm_json_find(js, t, nt, (size_t)pre, "type"), list = llm_json_find(js, t, nt, (size_t)pre, "pretokenizers");
        if (ty >= 0 && llm_json_eq(js, &t[ty], "ByteLevel")) {
            v->pretok = LLM_PRETOK_GPT2;
        } else if (ty >= 0 && llm_json_eq(js, &t[ty], "Sequence") && list >= 0 && t[list].type == LLM_JSON_ARRAY) {
            for (k = (size_t)list + 1, m = 0; m < t[list].n; m++, k = t[k].next) {
                int64_t p = llm_json_find(js, t, nt, k, "pattern"), r = p >= 0 ? llm_json_find(js, t, nt, (size_t)p, "Regex") : -1;
                if (r < 0) continue;
                if (llm_json_eq(js, &t[r], llm__hf_pat_llama3)) v->pretok = LLM_PRETOK_LLAMA3;
                else if (llm_json_eq(js, &t[r], llm__hf_pat_qwen2)) v->pretok = LLM_PRETOK_QWEN2;
            }
        }
    }
    if (v->pretok == LLM_PRETOK_COUNT) {
        /* SentencePiece as HF converts it (Llama 2, TinyLlama, Mistral): BPE over characters
           with byte fallback, spaces as U+2581 by a Metaspace pre-tokenizer or by the
           normalizer's Prepend + Replace; the merges' order stands for the scores */
        int64_t ty = pre >= 0 && t[pre].type == LLM_JSON_OBJECT ? llm_json_find(js, t, nt, (size_t)pre, "type") : -1;
        int64_t bf = llm_json_find(js, t, nt, (size_t)h.model, "byte_fallback");
        int meta = ty >= 0 && llm_json_eq(js, &t[ty], "Metaspace");
        if (meta || ((pre < 0 || t[pre].type == LLM_JSON_NULL) && bf >= 0 && t[bf].type == LLM_JSON_TRUE)) {
            v->kind = LLM_VOCAB_SPM, v->pretok = LLM_PRETOK_NONE;
            LLM__VTRY(llm__hf_spm_space(v, js, t, nt, meta ? pre : norm, meta, why));
        }
    }
    if (v->pretok == LLM_PRETOK_COUNT)
        LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.json: pre_tokenizer is not one llm.h has (gpt-2's ByteLevel, Llama 3's or Qwen2's Split, Metaspace)");
    if (v->kind == LLM_VOCAB_BPE && norm >= 0 && t[norm].type != LLM_JSON_NULL) {
        int64_t ty = t[norm].type == LLM_JSON_OBJECT ? llm_json_find(js, t, nt, (size_t)norm, "type") : -1;
        if (ty < 0 || !llm_json_eq(js, &t[ty], "NFC") || v->pretok != LLM_PRETOK_QWEN2)
            LLM__VFAIL(LLM_EUNSUPPORTED, "tokenizer.json: normalizer other than Qwen2's NFC");
    }
    x = llm_json_find(js, t, nt, (size_t)h.model, "ignore_merges");
    v->ignore_merges = x >= 0 && t[x].type == LLM_JSON_TRUE;
    llm__bl_table(bl);
    spm = v->kind == LLM_VOCAB_SPM;
    for (k = (size_t)h.vocab + 1, m = 0; m < t[h.vocab].n; m++, k = LLM__JNEXT(t, k)) {
        const char *p;
        llm_json_int(js, &t[k + 1], &x); /* checked by the scan */
        if (v->off[x] != 0) LLM__VFAIL(LLM_EFORMAT, "tokenizer.json: model.vocab gives id %ld twice", (long)x);
        if (llm__hf_put(&b, js, &t[k], x, spm ? NULL : bl, spm) != LLM_OK)
            LLM__VFAIL(LLM_EFORMAT, "tokenizer.json: model.vocab key %lu", (unsigned long)m);
        p = v->text + v->off[x];
        /* byte fallback's pieces are <0xNN> in the vocabulary */
        v->type[x] = spm && v->len[x] == 6 && p[0] == '<' && p[1] == '0' && p[2] == 'x' && llm__hexval(p[3]) >= 0 &&
                             llm__hexval(p[4]) >= 0 && p[5] == '>'
                         ? LLM_TOKEN_BYTE
                         : LLM_TOKEN_NORMAL;
    }
    if (h.added >= 0)
        for (k = (size_t)h.added + 1, m = 0; m < t[h.added].n; m++, k = t[k].next) {
            int64_t ki = llm_json_find(js, t, nt, k, "id"), kc = llm_json_find(js, t, nt, k, "content");
            int64_t ks = llm_json_find(js, t, nt, k, "special");
            llm_json_int(js, &t[ki], &x);
            if (llm__hf_put(&b, js, &t[kc], x, NULL, 0) != LLM_OK) LLM__VFAIL(LLM_EFORMAT, "tokenizer.json: added_tokens[%lu].content", (unsigned long)m);
            v->type[x] = ks >= 0 && t[ks].type == LLM_JSON_TRUE ? LLM_TOKEN_CONTROL : LLM_TOKEN_USER_DEFINED;
        }
    x = llm_json_find(js, t, nt, (size_t)h.model, "unk_token");
    if (x >= 0 && t[x].type == LLM_JSON_STRING) { /* <unk>: the unknown type, and what byte fallback falls to */
        char name[64];
        size_t l = 0;
        int32_t u = llm_json_str(js, &t[x], name, sizeof name, &l) == LLM_OK ? llm_vocab_find(v, name, l) : -1;
        if (u >= 0) v->type[u] = LLM_TOKEN_UNKNOWN, v->unk = u;
    }
    LLM__VTRY(llm__vocab_finish(v, why));
    tmp = v->text + b.pos;
    for (k = (size_t)h.merges + 1, m = 0; m < t[h.merges].n; m++, k = t[k].next) {
        const llm_json_tok *e = &t[k];
        char *a = tmp, *bb;
        size_t la = 0, lb = 0, cap = (size_t)(b.text_cap - b.pos) / 2;
        /* "a b", or ["a", "b"] (newer files): decoded first, in the free half of the text area */
        if (e->type == LLM_JSON_STRING && llm_json_str(js, e, a, cap, &la) == LLM_OK) {
            char *sp = (char *)memchr(a, ' ', la);
            if (!sp || sp == a || sp + 1 == a + la) LLM__VFAIL(LLM_EFORMAT, "model.merges[%lu]: not two pieces split by a space", (unsigned long)m);
            bb = sp + 1, lb = la - (size_t)(bb - a), la = (size_t)(sp - a);
        } else if (e->type == LLM_JSON_ARRAY && e->n == 2 && llm_json_str(js, &t[k + 1], a, cap, &la) == LLM_OK &&
                   (bb = a + la + 1, llm_json_str(js, &t[t[k + 1].next], bb, cap - la - 1, &lb) == LLM_OK)) {
        } else {
            LLM__VFAIL(LLM_EFORMAT, "model.merges[%lu]: not \"a b\" or [\"a\", \"b\"] (or longer than every piece)", (unsigned long)m);
        }
        LLM__VTRY(llm__hf_merge(v, a, la, bb, lb, m, tmp + (b.text_cap - b.pos) / 2, spm ? NULL : bl, why));
    }
    if (config && config_len) {
        llm_json_tok *ct = (llm_json_tok *)llm__align64((char *)llm__align64(mem) + llm__vocab_size(h.n, h.text, h.n_merges));
        size_t cap = llm__hf_config_toks(config, config_len);
        const char *cwhy = "";
        int64_t ab, ae;
        if (llm_json_parse(config, config_len, ct, cap, &cn, &cwhy) != LLM_OK || cn == 0 || ct[0].type != LLM_JSON_OBJECT)
            LLM__VFAIL(LLM_EFORMAT, "tokenizer_config.json: %s", *cwhy ? cwhy : "not a JSON object");
        v->bos = llm__hf_special_id(v, config, ct, cn, "bos_token");
        v->eos = llm__hf_special_id(v, config, ct, cn, "eos_token");
        v->pad = llm__hf_special_id(v, config, ct, cn, "pad_token");
        v->unk = llm__hf_special_id(v, config, ct, cn, "unk_token");
        ab = llm_json_find(config, ct, cn, 0, "add_bos_token");
        ae = llm_json_find(config, ct, cn, 0, "add_eos_token");
        /* absent add_bos_token: a model with a BOS wants it (Llama 3's file says nothing) */
        v->add_bos = ab >= 0 ? ct[ab].type == LLM_JSON_TRUE : v->bos >= 0;
        v->add_eos = ae >= 0 && ct[ae].type == LLM_JSON_TRUE;
    }
    return LLM_OK;
}

LLMDEF llm_status llm_vocab_init_json(llm_vocab *v, void *mem, size_t mem_bytes, const char *json, size_t len,
                                      const llm_json_tok *toks, size_t n_toks, const char *config,
                                      size_t config_len, const char **why) {
    if (why) *why = "";
    if (!v || !json || !toks) LLM__FFAIL(why, "no vocabulary, text or tokens", LLM_EINVAL);
    v->why[0] = '\0';
    return llm__vocab_done(v, llm__vocab_init_json(v, mem, mem_bytes, json, len, toks, n_toks, config, config_len, why));
}

LLMDEF llm_status llm_vocab_create_json(llm_vocab *v, const char *json, size_t len, const char *config,
                                        size_t config_len, const char **why) {
    size_t nt = 0, need;
    llm_json_tok *toks;
    void *mem;
    llm_status st;
    if (why) *why = "";
    if (!v || !json) LLM__FFAIL(why, "no vocabulary or text", LLM_EINVAL);
    st = llm_json_parse(json, len, NULL, 0, &nt, why);
    if (st != LLM_ERANGE && st != LLM_OK) return st;
    if (nt == 0 || nt > SIZE_MAX / sizeof *toks) LLM__FFAIL(why, "tokenizer.json: empty", LLM_EFORMAT);
    toks = (llm_json_tok *)LLM_MALLOC(nt * sizeof *toks);
    if (!toks) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    st = llm_json_parse(json, len, toks, nt, &nt, why);
    need = st == LLM_OK ? llm_vocab_json_bytes(json, toks, nt, config, config_len) : 0;
    if (st == LLM_OK && need == 0) st = llm_vocab_init_json(v, NULL, 0, json, len, toks, nt, config, config_len, why);
    if (st == LLM_OK) {
        mem = LLM_MALLOC(need);
        if (!mem) st = LLM_ENOMEM;
        else if ((st = llm_vocab_init_json(v, mem, need, json, len, toks, nt, config, config_len, why)) != LLM_OK) LLM_FREE(mem);
        else v->owned = mem;
    }
    LLM_FREE(toks);
    return st;
}

/* ---- from a llama2.c tokenizer.bin ---- */
/* The pieces the file holds (vocab <= 0) or must hold; -1 if it is not a tokenizer.bin. */
static int64_t llm__l2c_count(const unsigned char *p, size_t len, int vocab, uint64_t *text) {
    uint64_t off = 4;
    int64_t i;
    *text = 0;
    if (!p || len < 4 || llm__le32s(p) < 0) return -1;
    for (i = 0; (vocab <= 0 && off < len) || i < vocab; i++) {
        int32_t n;
        if (i >= LLM__VOCAB_MAX_TOKENS || len - off < 8) return -1;
        n = llm__le32s(p + off + 4);
        off += 8;
        if (n < 0 || (uint64_t)n > len - off) return -1;
        off += (uint64_t)n, *text += (uint64_t)n;
    }
    return off == len && i > 0 ? i : -1;
}
LLMDEF size_t llm_vocab_llama2c_bytes(const void *buf, size_t len, int vocab) {
    uint64_t text;
    int64_t n = llm__l2c_count((const unsigned char *)buf, len, vocab, &text);
    return n < 0 ? 0 : llm__vocab_size((uint64_t)n, text, 0);
}
static llm_status llm__vocab_init_llama2c(llm_vocab *v, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                          int vocab, const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t text, off = 4;
    int64_t n = llm__l2c_count(p, len, vocab, &text), i;
    llm__vbuild b;
    size_t need;
    if (n < 0) LLM__VFAIL(LLM_EFORMAT, "tokenizer.bin: a length past the end, or not %s pieces", vocab > 0 ? "vocab" : "whole");
    need = llm__vocab_size((uint64_t)n, text, 0);
    if (!mem || need == 0 || mem_bytes < need) LLM__VFAIL(LLM_EINVAL, "memory smaller than llm_vocab_llama2c_bytes");
    if (n < 3) LLM__VFAIL(LLM_EFORMAT, "tokenizer.bin: fewer than <unk>, <s>, </s>");
    llm__vocab_setup(&b, v, mem, (uint64_t)n, text, 0);
    v->kind = LLM_VOCAB_SPM, v->add_bos = 1, v->add_space_prefix = 1;
    v->unk = 0, v->bos = 1, v->eos = 2;
    for (i = 0; i < n; i++) {
        uint32_t l = llm__le32(p + off + 4);
        const char *s = (const char *)p + off + 8;
        v->score[i] = llm__le32f(p + off);
        llm__vocab_put(&b, i, s, l, 1, NULL);
        off += 8 + l;
        /* llama2.c's export keeps no types: ids 0..2 are <unk> <s> </s>, <0xNN> the bytes */
        if (i == 0) v->type[i] = LLM_TOKEN_UNKNOWN;
        else if (i < 3) v->type[i] = LLM_TOKEN_CONTROL;
        else if (l == 6 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && llm__hexval(s[3]) >= 0 && llm__hexval(s[4]) >= 0 && s[5] == '>')
            v->type[i] = LLM_TOKEN_BYTE;
        else v->type[i] = LLM_TOKEN_NORMAL;
    }
    return llm__vocab_finish(v, why);
}
LLMDEF llm_status llm_vocab_init_llama2c(llm_vocab *v, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                         int vocab, const char **why) {
    if (why) *why = "";
    if (!v || !buf) LLM__FFAIL(why, "no vocabulary or buffer", LLM_EINVAL);
    v->why[0] = '\0';
    return llm__vocab_done(v, llm__vocab_init_llama2c(v, mem, mem_bytes, buf, len, vocab, why));
}
LLMDEF llm_status llm_vocab_create_llama2c(llm_vocab *v, const void *buf, size_t len, int vocab, const char **why) {
    size_t need = llm_vocab_llama2c_bytes(buf, len, vocab);
    void *mem;
    llm_status st;
    if (why) *why = "";
    if (!v || !buf) LLM__FFAIL(why, "no vocabulary or buffer", LLM_EINVAL);
    if (need == 0) return llm_vocab_init_llama2c(v, NULL, 0, buf, len, vocab, why);
    mem = LLM_MALLOC(need);
    if (!mem) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    st = llm_vocab_init_llama2c(v, mem, need, buf, len, vocab, why);
    if (st != LLM_OK) LLM_FREE(mem);
    else v->owned = mem;
    return st;
}

#ifndef LLM_NO_STDIO
/* The file's bytes, then the source its first bytes name: "GGUF", '{' (JSON), else a
   tokenizer.bin. A tokenizer.json's tokenizer_config.json is read from the same folder. */
LLMDEF llm_status llm_vocab_load_file(llm_vocab *v, const char *path, int vocab, const char **why) {
    void *mem = NULL, *cmem = NULL;
    unsigned char *data, *cdata = NULL;
    char *base;
    size_t len, clen = 0, k;
    llm_status st;
    if (why) *why = "";
    if (!v || !path) LLM__FFAIL(why, "no vocabulary or path", LLM_EINVAL);
    memset(v, 0, sizeof *v);
    st = llm__read_file(path, 0, &mem, &base, &data, &len, why);
    if (st != LLM_OK) return st;
    for (k = 0; k < len && (data[k] == ' ' || data[k] == '\n' || data[k] == '\r' || data[k] == '\t'); k++) {}
    if (len >= 4 && memcmp(data, "GGUF", 4) == 0) {
        llm_gguf g;
        st = llm_gguf_create(&g, data, len, why);
        if (st == LLM_OK) {
            st = llm_vocab_create_gguf(v, &g, why);
            llm_gguf_free(&g);
        }
    } else if (k < len && data[k] == '{') {
        char cpath[4096];
        size_t dl = strlen(path);
        while (dl > 0 && path[dl - 1] != '/') dl--;
        if (dl + sizeof "tokenizer_config.json" <= sizeof cpath) {
            const char *ignored;
            size_t q;
            for (q = 0; q < dl; q++) cpath[q] = path[q];
            memcpy(cpath + dl, "tokenizer_config.json", sizeof "tokenizer_config.json");
            if (llm__read_file(cpath, 0, &cmem, &base, &cdata, &clen, &ignored) != LLM_OK) cmem = NULL, cdata = NULL, clen = 0;
        }
        st = llm_vocab_create_json(v, (const char *)data, len, (const char *)cdata, clen, why);
    } else {
        st = llm_vocab_create_llama2c(v, data, len, vocab, why);
    }
    if (cmem) LLM_FREE(cmem);
    LLM_FREE(mem);
    return st;
}
#endif

/* ======================================================================================
   >>train implementation
   ====================================================================================== */

LLMDEF llm_status llm_linear_backward(float *dx, float *dW, float *db, const float *dy, const float *x, const float *W,
                                      int n_tokens, int d_in, int d_out, llm_threads *th) {
    llm_status st = LLM_OK;
    int t, o;
    if (!dy || n_tokens <= 0 || d_in <= 0 || d_out <= 0 || (dx && !W) || (dW && !x)) return LLM_EINVAL;
    if (dx) st = llm_matmul_ex(dx, dy, W, n_tokens, d_out, d_in, 0, 1, th); /* [n][out] x [out][in] */
    if (st == LLM_OK && dW) st = llm_matmul_ex(dW, dy, x, d_out, n_tokens, d_in, 1, 1, th); /* dy^T [out][n] x [n][in] */
    if (st == LLM_OK && db)
        for (t = 0; t < n_tokens; t++)
            for (o = 0; o < d_out; o++) db[o] += dy[(size_t)t * d_out + o];
    return st;
}

/* y = x r w with r = 1 / sqrt(mean(x^2) + eps), so dr/dx_j = -r^3 x_j / n:
     dx_j += r w_j dy_j - (r^3 / n) x_j sum_i w_i dy_i x_i,   dw_i += r x_i dy_i.
   In two halves, so that a step can split rows for dx and columns for dw: one row's dx,
   returning r, then dw's columns [i0, i1). */
static float llm__rms_bwd_dx(float *dx, const float *dy, const float *x, const float *w, int n, float eps) {
    double ss = 0.0, dot = 0.0;
    float r, c;
    int i;
    for (i = 0; i < n; i++) {
        ss += (double)x[i] * x[i];
        dot += (double)(w ? w[i] : 1.0f) * dy[i] * x[i];
    }
    r = (float)(1.0 / LLM_SQRT(ss / n + eps));
    c = (float)((double)r * r * r * dot / n);
    for (i = 0; dx && i < n; i++) dx[i] += r * (w ? w[i] : 1.0f) * dy[i] - c * x[i];
    return r;
}
static void llm__rms_bwd_dw(float *dw, const float *dy, const float *x, float r, int64_t i0, int64_t i1) {
    int64_t i;
    for (i = i0; i < i1; i++) dw[i] += r * x[i] * dy[i];
}
LLMDEF llm_status llm_rmsnorm_backward(float *dx, float *dw, const float *dy, const float *x, const float *w, int n,
                                       float eps) {
    float r;
    if (!dy || !x || n <= 0 || !(eps >= 0.0f)) return LLM_EINVAL;
    r = llm__rms_bwd_dx(dx, dy, x, w, n, eps);
    if (dw) llm__rms_bwd_dw(dw, dy, x, r, 0, n);
    return LLM_OK;
}

/* y = xh w + b with xh = (x - mean) r; with g = w dy:
     dx += r (g - mean(g) - xh mean(g xh)),   dw += xh dy,   db += dy.
   Split as RMSNorm's: one row's dx (returning r, and the mean in *mean_out), then dw and db. */
static float llm__ln_bwd_dx(float *dx, const float *dy, const float *x, const float *w, int n, float eps, double *mean_out) {
    double mean = 0.0, var = 0.0, mg = 0.0, mgx = 0.0;
    float r;
    int i;
    for (i = 0; i < n; i++) mean += x[i];
    mean /= n;
    for (i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    r = (float)(1.0 / LLM_SQRT(var / n + eps));
    for (i = 0; i < n; i++) {
        double g = (double)(w ? w[i] : 1.0f) * dy[i];
        mg += g;
        mgx += g * (x[i] - mean) * r;
    }
    mg /= n, mgx /= n;
    for (i = 0; dx && i < n; i++) {
        float xh = (float)((x[i] - mean) * r);
        dx[i] += r * (float)((w ? w[i] : 1.0f) * dy[i] - mg - xh * mgx);
    }
    *mean_out = mean;
    return r;
}
static void llm__ln_bwd_dwb(float *dw, float *db, const float *dy, const float *x, double mean, float r, int64_t i0,
                            int64_t i1) {
    int64_t i;
    for (i = i0; i < i1; i++) {
        if (dw) dw[i] += (float)((x[i] - mean) * r) * dy[i];
        if (db) db[i] += dy[i];
    }
}
LLMDEF llm_status llm_layernorm_backward(float *dx, float *dw, float *db, const float *dy, const float *x,
                                         const float *w, int n, float eps) {
    double mean;
    float r;
    if (!dy || !x || n <= 0 || !(eps >= 0.0f)) return LLM_EINVAL;
    r = llm__ln_bwd_dx(dx, dy, x, w, n, eps, &mean);
    llm__ln_bwd_dwb(dw, db, dy, x, mean, r, 0, n);
    return LLM_OK;
}

/* The activations' derivatives. silu'(g) = s (1 + g (1 - s)) with s = sigmoid(g); the
   tanh GELU's, with u = k (x + 0.044715 x^3), k = sqrt(2/pi):
   0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3 * 0.044715 x^2). */
static float llm__silu_d(float g, float *act) {
    float s = 1.0f / (1.0f + LLM_EXPF(-g));
    *act = g * s;
    return s * (1.0f + g * (1.0f - s));
}
static float llm__gelu_d(float x, float *act) {
    const float k = 0.7978845608028654f;
    float th = LLM_TANHF(k * (x + 0.044715f * x * x * x));
    *act = 0.5f * x * (1.0f + th);
    return 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * k * (1.0f + 3.0f * 0.044715f * x * x);
}

/* out = act(gate) * up (up NULL: out = act(gate)): dgate += dy up act'(gate), dup += dy act(gate). */
static llm_status llm__glu_backward(float *dgate, float *dup, const float *dy, const float *gate, const float *up, int n,
                                    float (*d)(float, float *)) {
    int i;
    if (!dy || !gate || n <= 0 || (dup && !up)) return LLM_EINVAL;
    for (i = 0; i < n; i++) {
        float a, da = d(gate[i], &a), u = up ? up[i] : 1.0f;
        if (dgate) dgate[i] += dy[i] * u * da;
        if (dup) dup[i] += dy[i] * a;
    }
    return LLM_OK;
}
LLMDEF llm_status llm_swiglu_backward(float *dgate, float *dup, const float *dy, const float *gate, const float *up, int n) {
    return llm__glu_backward(dgate, dup, dy, gate, up, n, llm__silu_d);
}
LLMDEF llm_status llm_geglu_backward(float *dgate, float *dup, const float *dy, const float *gate, const float *up, int n) {
    return llm__glu_backward(dgate, dup, dy, gate, up, n, llm__gelu_d);
}
LLMDEF llm_status llm_gelu_backward(float *dx, const float *dy, const float *x, int n) {
    if (!dx) return LLM_EINVAL;
    return llm__glu_backward(dx, NULL, dy, x, NULL, n, llm__gelu_d);
}
/* exact GELU: d/dx [x Phi(x)] = Phi(x) + x phi(x) */
LLMDEF llm_status llm_gelu_erf_backward(float *dx, const float *dy, const float *x, int n) {
    int i;
    if (!dx || !dy || !x || n <= 0) return LLM_EINVAL;
    for (i = 0; i < n; i++)
        dx[i] += dy[i] * (0.5f * (1.0f + LLM_ERFF(x[i] * 0.70710678118654752f)) +
                          x[i] * 0.3989422804014327f * LLM_EXPF(-0.5f * x[i] * x[i]));
    return LLM_OK;
}

LLMDEF llm_status llm_rope_backward(const llm_rope *r, float *dx, int n_tokens, int n_heads, int pos) {
    return llm__rope_rotate(r, dx, n_tokens, n_heads, pos, -1.0f);
}

/* ---- attention's backward ----------------------------------------------------------- */

typedef struct llm__attb {
    float *dq, *dk, *dv;
    const float *dout, *q, *k, *v, *out;
    int n, h, hkv, hd;
    float scale;
} llm__attb;

/* y += a x over n values (the backward's dV, dQ and dK rows), on the SIMD layer */
static void llm__axpy(float *y, float a, const float *x, int n) {
    llm__rv av = llm__rv_set1(a);
    int i = 0;
    for (; i + LLM__RVN <= n; i += LLM__RVN) llm__rv_store(y + i, llm__rv_fma(av, llm__rv_load(x + i), llm__rv_load(y + i)));
    for (; i < n; i++) y[i] += a * x[i];
}

/* One KV head and its query heads: pass 1 finds each query row's softmax max and sum
   (online, Milakov & Gimelshein 2018), pass 2 rebuilds P_ij key by key and adds the four
   products of the header comment. Pass 1 keeps the first LLM__ATTB_KEYS scores, so pass 2
   reads them instead of taking q . k again (the same bits: the same dot). */
enum { LLM__ATTB_KEYS = 2048 };
static void llm__attb_head(const llm__attb *a, int kh) {
    int g = a->h / a->hkv, hd = a->hd, n = a->n, h, i, j;
    const float *K = a->k + (size_t)kh * n * hd, *V = a->v + (size_t)kh * n * hd;
    float *dK = a->dk + (size_t)kh * n * hd, *dV = a->dv + (size_t)kh * n * hd, sc[LLM__ATTB_KEYS];
    for (h = kh * g; h < (kh + 1) * g; h++)
        for (i = 0; i < n; i++) {
            size_t row = ((size_t)i * a->h + h) * hd;
            const float *qi = a->q + row, *doi = a->dout + row;
            float *dqi = a->dq + row, mx = -INFINITY, sum = 0.0f, Di = llm__dot(doi, a->out + row, hd);
            for (j = 0; j <= i; j++) {
                float s = a->scale * llm__dot(qi, K + (size_t)j * hd, hd);
                if (j < LLM__ATTB_KEYS) sc[j] = s;
                if (s > mx) sum = sum * LLM_EXPF(mx - s) + 1.0f, mx = s;
                else sum += LLM_EXPF(s - mx);
            }
            for (j = 0; j <= i; j++) {
                const float *kj = K + (size_t)j * hd, *vj = V + (size_t)j * hd;
                float p = LLM_EXPF((j < LLM__ATTB_KEYS ? sc[j] : a->scale * llm__dot(qi, kj, hd)) - mx) / sum;
                float ds = p * (llm__dot(doi, vj, hd) - Di) * a->scale;
                llm__axpy(dV + (size_t)j * hd, p, doi, hd);
                llm__axpy(dqi, ds, kj, hd);
                llm__axpy(dK + (size_t)j * hd, ds, qi, hd);
            }
        }
}

static void llm__attb_task(void *ctx, int ith, int nth) {
    const llm__attb *a = (const llm__attb *)ctx;
    int kh;
    for (kh = ith; kh < a->hkv; kh += nth) llm__attb_head(a, kh);
}

LLMDEF llm_status llm_attention_backward(float *dq, float *dk, float *dv, const float *dout, const float *q,
                                         const float *k, const float *v, const float *out, int n, int n_heads,
                                         int n_kv_heads, int head_dim, float scale, llm_threads *th) {
    llm__attb a;
    if (!dq || !dk || !dv || !dout || !q || !k || !v || !out || n <= 0 || n_heads <= 0 || n_kv_heads <= 0 ||
        head_dim <= 0 || n_heads % n_kv_heads || !(scale >= 0.0f))
        return LLM_EINVAL;
    if ((uint64_t)n * n_heads * head_dim > (uint64_t)PTRDIFF_MAX / sizeof(float)) return LLM_EINVAL;
    a.dq = dq, a.dk = dk, a.dv = dv, a.dout = dout, a.q = q, a.k = k, a.v = v, a.out = out;
    a.n = n, a.h = n_heads, a.hkv = n_kv_heads, a.hd = head_dim;
    a.scale = scale > 0.0f ? scale : 1.0f / LLM_SQRTF((float)head_dim);
    llm_threads_run(th, llm__attb_task, &a);
    return LLM_OK;
}

/* ---- the loss --------------------------------------------------------------------------- */

/* One token's row: its loss (0 when target < 0, dz then zeroed), dz written when not NULL. */
static double llm__ce_row(float *dz, const float *z, int target, int vocab, float scale) {
    float mx = -INFINITY;
    double sum = 0.0, lse;
    int i;
    if (target < 0) {
        if (dz) memset(dz, 0, sizeof(float) * (size_t)vocab);
        return 0.0;
    }
    for (i = 0; i < vocab; i++)
        if (z[i] > mx) mx = z[i];
    for (i = 0; i < vocab; i++) sum += LLM_EXPF(z[i] - mx);
    lse = mx + LLM_LOG(sum); /* log sum exp z, stable: every exponent <= 0 */
    if (dz) {
        float zt = z[target]; /* read before dz overwrites it in place */
        for (i = 0; i < vocab; i++) dz[i] = scale * (float)LLM_EXP(z[i] - lse);
        dz[target] = scale * ((float)LLM_EXP(zt - lse) - 1.0f);
        return lse - zt;
    }
    return lse - z[target];
}

LLMDEF llm_status llm_cross_entropy(float *dlogits, double *loss, int *counted, const float *logits, const int *target,
                                    int n_tokens, int vocab, float scale) {
    double total = 0.0;
    int t, used = 0;
    if (!logits || !target || n_tokens <= 0 || vocab <= 0) return LLM_EINVAL;
    for (t = 0; t < n_tokens; t++)
        if (target[t] >= vocab) return LLM_EINVAL;
    for (t = 0; t < n_tokens; t++) {
        double l = llm__ce_row(dlogits ? dlogits + (size_t)t * vocab : NULL, logits + (size_t)t * vocab, target[t], vocab,
                               scale);
        if (target[t] >= 0) total += l, used++;
    }
    if (loss) *loss = used ? total / used : 0.0;
    if (counted) *counted = used;
    return LLM_OK;
}

LLMDEF llm_status llm_embedding_backward(float *dE, const float *dx, const int *tokens, int n_tokens, int d, int vocab) {
    int t, i;
    if (!dE || !dx || !tokens || n_tokens <= 0 || d <= 0 || vocab <= 0) return LLM_EINVAL;
    for (t = 0; t < n_tokens; t++)
        if (tokens[t] < 0 || tokens[t] >= vocab) return LLM_EINVAL;
    for (t = 0; t < n_tokens; t++)
        for (i = 0; i < d; i++) dE[(size_t)tokens[t] * d + i] += dx[(size_t)t * d + i];
    return LLM_OK;
}

/* ---- the optimizer ----------------------------------------------------------------------- */

/* The step's constants from opt: k = {b1, b2, eps, lr, weight_decay, c1, c2}, c1 and c2 the
   bias corrections of the two moments; LLM_EINVAL for a field out of range. */
static llm_status llm__adamw_consts(const llm_adamw *opt, int64_t t, float *k) {
    k[0] = opt->beta1 > 0.0f ? opt->beta1 : 0.9f;
    k[1] = opt->beta2 > 0.0f ? opt->beta2 : 0.999f;
    k[2] = opt->eps > 0.0f ? opt->eps : 1e-8f;
    k[3] = opt->lr, k[4] = opt->weight_decay;
    if (!(k[0] < 1.0f) || !(k[1] < 1.0f) || !(k[3] >= 0.0f) || !(k[4] >= 0.0f)) return LLM_EINVAL;
    k[5] = (float)(1.0 / (1.0 - LLM_POW(k[0], (double)t)));
    k[6] = (float)(1.0 / (1.0 - LLM_POW(k[1], (double)t)));
    return LLM_OK;
}
/* n parameters with decay wd; the gradient read as g s (s != 1: clipping) and, with gzero,
   zeroed once used: the training state's update in one pass instead of a scale, a step and
   a memset. */
static void llm__adamw_run(float *p, float *m, float *v, float *g, int64_t n, const float *k, float wd, float s, int gzero) {
    const float b1 = k[0], b2 = k[1], eps = k[2], lr = k[3], c1 = k[5], c2 = k[6];
    int64_t i = 0;
#ifdef LLM__RV
    {   /* the scalar loop's operations in its order, a vector at a time (no fma; the vector
           sqrt rounds as sqrtf does), the tail as a partial vector: every value takes the
           vector path (a compiler may fuse the scalar loop's a * b + c), so any split of
           [0, n) gives the same bits */
        const llm__rv vb1 = llm__rv_set1(b1), vb2 = llm__rv_set1(b2), va1 = llm__rv_set1(1.0f - b1);
        const llm__rv va2 = llm__rv_set1(1.0f - b2), veps = llm__rv_set1(eps), vlr = llm__rv_set1(lr);
        const llm__rv vc1 = llm__rv_set1(c1), vc2 = llm__rv_set1(c2), vwd = llm__rv_set1(wd), vs = llm__rv_set1(s);
        for (; i < n; i += LLM__RVN) {
            const int w = n - i >= LLM__RVN ? LLM__RVN : (int)(n - i);
            llm__rv gi = llm__rv_load_w(g + i, w), pi = llm__rv_load_w(p + i, w), u, mi, vi;
            if (s != 1.0f) gi = llm__rv_mul(gi, vs);
            mi = llm__rv_add(llm__rv_mul(vb1, llm__rv_load_w(m + i, w)), llm__rv_mul(va1, gi));
            vi = llm__rv_add(llm__rv_mul(vb2, llm__rv_load_w(v + i, w)), llm__rv_mul(llm__rv_mul(va2, gi), gi));
            u = llm__rv_div(llm__rv_mul(mi, vc1), llm__rv_add(llm__rv_sqrt(llm__rv_mul(vi, vc2)), veps));
            llm__rv_store_w(m + i, mi, w);
            llm__rv_store_w(v + i, vi, w);
            llm__rv_store_w(p + i, llm__rv_sub(pi, llm__rv_mul(vlr, llm__rv_add(u, llm__rv_mul(vwd, pi)))), w);
            if (gzero) llm__rv_store_w(g + i, llm__rv_set1(0.0f), w);
        }
    }
#endif
    for (; i < n; i++) {
        float gi = s != 1.0f ? g[i] * s : g[i];
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        p[i] -= lr * (m[i] * c1 / (LLM_SQRTF(v[i] * c2) + eps) + wd * p[i]);
        if (gzero) g[i] = 0.0f;
    }
}
LLMDEF llm_status llm_adamw_step(float *p, float *m, float *v, const float *g, int64_t n, const llm_adamw *opt, int64_t t) {
    float k[7];
    if (!p || !m || !v || !g || n <= 0 || !opt || t < 1 || llm__adamw_consts(opt, t, k) != LLM_OK) return LLM_EINVAL;
    llm__adamw_run(p, m, v, (float *)(uintptr_t)g, n, k, k[4], 1.0f, 0); /* g only read */
    return LLM_OK;
}

/* The gradients' sum of squares in fixed chunks, each summed in order into its own double,
   the chunks' sums added in order: the chunk size depends on n only, so a pool that sums
   chunks in parallel (llm_train_update_ex) gets the serial bits. At most LLM__SS_CHUNKS
   chunks of at least LLM__SS_MIN values. */
enum { LLM__SS_CHUNKS = 1024, LLM__SS_MIN = 16384 };
static int64_t llm__ss_chunk(int64_t n) {
    int64_t c = (n + LLM__SS_CHUNKS - 1) / LLM__SS_CHUNKS;
    return c > LLM__SS_MIN ? c : (int64_t)LLM__SS_MIN;
}
static double llm__ss_part(const float *g, int64_t n, int64_t chunk, int64_t ci) {
    int64_t i, i1 = (ci + 1) * chunk < n ? (ci + 1) * chunk : n;
    double ss = 0.0;
    for (i = ci * chunk; i < i1; i++) ss += (double)g[i] * g[i];
    return ss;
}

LLMDEF double llm_clip_grad_norm(float *g, int64_t n, double max_norm) {
    double ss = 0.0, norm;
    int64_t i, chunk;
    if (!g || n <= 0) return 0.0;
    chunk = llm__ss_chunk(n);
    for (i = 0; i * chunk < n; i++) ss += llm__ss_part(g, n, chunk, i);
    norm = LLM_SQRT(ss);
    if (max_norm > 0.0 && norm > max_norm && norm < INFINITY) {
        float s = (float)(max_norm / norm);
        for (i = 0; i < n; i++) g[i] *= s;
    }
    return norm;
}

LLMDEF float llm_lr_cosine(int64_t step, int64_t warmup, int64_t total, float lr_max, float lr_min) {
    double pr;
    if (step < 0) step = 0;
    if (step < warmup) return (float)((double)lr_max * (double)(step + 1) / (double)warmup);
    if (total <= warmup) return lr_min;
    pr = (double)(step - warmup) / (double)(total - warmup);
    if (pr > 1.0) pr = 1.0;
    return (float)(lr_min + 0.5 * (lr_max - lr_min) * (1.0 + LLM_COS(3.14159265358979323846 * pr)));
}

/* ---- a training step for a whole dense decoder ------------------------------------------- */

/* The tensors of one block, in their order in the parameter block; -1 = absent. */
enum { LLM__T_AN, LLM__T_ANB, LLM__T_WQ, LLM__T_WK, LLM__T_WV, LLM__T_WO, LLM__T_BQ, LLM__T_BK, LLM__T_BV, LLM__T_BO,
       LLM__T_FN, LLM__T_FNB, LLM__T_W1, LLM__T_W3, LLM__T_W2, LLM__T_B1, LLM__T_B3, LLM__T_B2, LLM__T_QN, LLM__T_KN,
       LLM__T_LAYER };
/* and of the model: embedding, learned positions, final norm and its bias, head */
enum { LLM__T_EMB, LLM__T_POS, LLM__T_ON, LLM__T_ONB, LLM__T_HEAD, LLM__T_GLOBAL };
/* LoRA's adapters follow the base slots: per layer and target (LLM_LORA_Q ... W3) A then B */
enum { LLM__LORA_TARGETS = 7, LLM__LORA_SLOTS = 2 * LLM__LORA_TARGETS };
static const int llm__lora_slot[LLM__LORA_TARGETS] = {LLM__T_WQ, LLM__T_WK, LLM__T_WV, LLM__T_WO,
                                                      LLM__T_W1, LLM__T_W2, LLM__T_W3};

static int64_t llm__train_nslots(const llm_config *c) {
    return LLM__T_GLOBAL + (int64_t)c->n_layers * (LLM__T_LAYER + LLM__LORA_SLOTS);
}
static int64_t llm__lora_at(const llm_config *c, int l, int target, int b) { /* target 0..6, b 0 = A, 1 = B */
    return LLM__T_GLOBAL + (int64_t)c->n_layers * LLM__T_LAYER + (int64_t)l * LLM__LORA_SLOTS + 2 * target + b;
}

LLMDEF llm_status llm_train_supported(const llm_config *c, const char **reason) {
    llm_status st = llm_config_runnable(c, reason);
    const char *why = NULL;
    if (st != LLM_OK) return st;
    if (c->sliding_window) why = "a sliding attention window: the attention backward is causal over the whole sequence";
    else if (c->sandwich_norm) why = "sandwich norms: the training step has no backward for them yet";
    else if (c->attn_softcap > 0.0f || c->final_softcap > 0.0f) why = "softcapped scores or logits: no backward for the softcap yet";
    else if (c->attn_scale > 0.0f) why = "a custom attention scale: the training step uses 1 / sqrt(head_dim)";
    else if (c->n_experts > 0) why = "mixture of experts: the training step has no backward for the router and experts";
    if (why) {
        if (reason) *reason = why;
        return LLM_EUNSUPPORTED;
    }
    return LLM_OK;
}

LLMDEF float llm_lora_scale(const llm_lora_params *p) {
    float a;
    if (!p || p->rank <= 0) return 0.0f;
    a = p->alpha > 0.0f ? p->alpha : (float)p->rank;
    return p->rslora ? a / LLM_SQRTF((float)p->rank) : a / (float)p->rank;
}

/* in and out of a block's projection slot */
static void llm__train_dims(const llm_config *c, int slot, int64_t *in, int64_t *out) {
    int64_t d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    *in = slot == LLM__T_WO ? qd : slot == LLM__T_W2 ? ff : d;
    *out = slot == LLM__T_WQ ? qd : slot == LLM__T_WK || slot == LLM__T_WV ? kvd : slot == LLM__T_WO || slot == LLM__T_W2 ? d : ff;
}

/* Offsets and lengths of every trainable tensor (off may be NULL) and their count: the
   whole model in llm_count_params's order (rank 0), or only the LoRA adapters. */
static int64_t llm__train_layout(const llm_config *c, int rank, unsigned targets, int64_t *off, int64_t *len) {
    int64_t d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    int64_t n = 0, sz[LLM__T_LAYER], in, out, full = rank == 0;
    int gated = c->ffn != LLM_FFN_GELU, qkvb = c->bias != LLM_BIAS_NONE, allb = c->bias == LLM_BIAS_ALL, l, i;
#define LLM__TAKE(slot, size) \
    (off ? (off[slot] = (size) > 0 ? n : -1, len[slot] = (size) > 0 ? (size) : 0) : 0), n += (size) > 0 ? (size) : 0
    LLM__TAKE(LLM__T_EMB, full * c->vocab * d);
    LLM__TAKE(LLM__T_POS, full * (c->pos == LLM_POS_LEARNED ? (int64_t)c->max_seq_len * d : 0));
    sz[LLM__T_AN] = d, sz[LLM__T_ANB] = c->norm_bias ? d : 0;
    sz[LLM__T_WQ] = qd * d, sz[LLM__T_WK] = sz[LLM__T_WV] = kvd * d, sz[LLM__T_WO] = d * qd;
    sz[LLM__T_BQ] = qkvb ? qd : 0, sz[LLM__T_BK] = sz[LLM__T_BV] = qkvb ? kvd : 0, sz[LLM__T_BO] = allb ? d : 0;
    sz[LLM__T_FN] = d, sz[LLM__T_FNB] = c->norm_bias ? d : 0;
    sz[LLM__T_W1] = ff * d, sz[LLM__T_W3] = gated ? ff * d : 0, sz[LLM__T_W2] = d * ff;
    sz[LLM__T_B1] = allb ? ff : 0, sz[LLM__T_B3] = allb && gated ? ff : 0, sz[LLM__T_B2] = allb ? d : 0;
    sz[LLM__T_QN] = sz[LLM__T_KN] = c->qk_norm ? hd : 0;
    for (l = 0; l < c->n_layers; l++)
        for (i = 0; i < LLM__T_LAYER; i++) LLM__TAKE(LLM__T_GLOBAL + l * LLM__T_LAYER + i, full * sz[i]);
    LLM__TAKE(LLM__T_ON, full * d);
    LLM__TAKE(LLM__T_ONB, full * (c->norm_bias ? d : 0));
    LLM__TAKE(LLM__T_HEAD, full * (c->tied_embeddings ? 0 : (int64_t)c->vocab * d));
    for (l = 0; l < c->n_layers; l++)
        for (i = 0; i < LLM__LORA_TARGETS; i++) {
            int on = !full && (targets >> i & 1) && !(llm__lora_slot[i] == LLM__T_W3 && !gated);
            llm__train_dims(c, llm__lora_slot[i], &in, &out);
            LLM__TAKE(llm__lora_at(c, l, i, 0), on * rank * in);
            LLM__TAKE(llm__lora_at(c, l, i, 1), on * out * rank);
        }
#undef LLM__TAKE
    return n;
}

/* Floats saved per token and layer, and per token after the last layer; floats of the
   backward's work space per token (and per step, LoRA's base-row blocks). */
enum { LLM__WT_ROWS = 32 }; /* rows of a frozen base dequantized at a time for dX += dY W */
static void llm__train_sizes(const llm_config *c, int rank, int64_t *per_layer, int64_t *top, int64_t *work,
                             int64_t *fixed) {
    int64_t d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    int64_t u = c->ffn != LLM_FFN_GELU ? ff : 0, wide = ff > qd ? ff : qd;
    *per_layer = d + d + qd + 2 * kvd + qd + d + d + ff + u + ff; /* x, norm, q, k, v, attn, x mid, norm, gate, up, act */
    *per_layer += c->qk_norm ? qd + kvd : 0;                   /* qk_norm: q and k before their head norms */
    *top = d + d + c->vocab;                                    /* x, final norm, logits */
    *work = d + d + d + qd + 3 * kvd + qd + 3 * ff;              /* running x, dx, dxn, dq, dk dv dkt, datt, dg du dh */
    *fixed = 0;
    if (rank > 0) { /* x A^T, dY B, a base layer's output; the dequantized row block and its dY columns */
        int64_t big = wide > d ? wide : d;
        *work += 2 * rank + (c->vocab > big ? c->vocab : big) + LLM__WT_ROWS;
        *fixed = LLM__WT_ROWS * (c->vocab > big ? c->vocab : big);
    }
}

/* Floats a step saves per token and layer: everything the backward reads, or with
   recomputation only the block's input (the rest is rebuilt in work space). */
static int64_t llm__train_saved(const llm_config *c, int64_t pl, int rec) { return rec ? c->d_model : pl; }

static llm_train_sizes llm__train_sizes_of(const llm_config *c, int batch, int seq, int rank, unsigned targets, int rec) {
    llm_train_sizes z;
    int64_t pl, top, work, fixed;
    double np, n;
    memset(&z, 0, sizeof z);
    if (llm_train_supported(c, NULL) != LLM_OK || batch <= 0 || seq <= 0 || seq > c->max_seq_len) return z;
    np = (double)llm__train_layout(c, rank, targets, NULL, NULL);
    llm__train_sizes(c, rank, &pl, &top, &work, &fixed);
    n = (double)batch * seq;
    z.params = 4.0 * np, z.grads = 4.0 * np, z.moments = 8.0 * np;
    z.activations_per_layer = 4.0 * n * (double)llm__train_saved(c, pl, rec), z.activations_top = 4.0 * n * (double)top;
    z.work = 4.0 * (n * (double)(work + pl - llm__train_saved(c, pl, rec)) + (double)fixed);
    /* plus the RoPE table, the tensor offsets and layer views, and the 64-byte alignment of each piece */
    z.total = z.params + z.grads + z.moments + z.activations_per_layer * c->n_layers + z.activations_top + z.work +
              (double)llm_rope_bytes(llm_config_head_dim(c), seq) + 16.0 * (double)llm__train_nslots(c) +
              sizeof(llm_layer_weights) * (double)c->n_layers + 64.0 * 11;
    return z;
}
LLMDEF llm_train_sizes llm_train_sizes_of(const llm_config *c, int batch, int seq) {
    return llm__train_sizes_of(c, batch, seq, 0, 0, 0);
}
LLMDEF llm_train_sizes llm_train_sizes_ex(const llm_config *c, int batch, int seq, unsigned flags) {
    return llm__train_sizes_of(c, batch, seq, 0, 0, (flags & LLM_TRAIN_RECOMPUTE) != 0);
}
static size_t llm__train_total(llm_train_sizes z) {
    return z.total > 0.0 && z.total < (double)SIZE_MAX / 2 ? (size_t)z.total : 0;
}
LLMDEF size_t llm_train_bytes(const llm_config *c, int batch, int seq) {
    return llm__train_total(llm__train_sizes_of(c, batch, seq, 0, 0, 0));
}
LLMDEF size_t llm_train_bytes_ex(const llm_config *c, int batch, int seq, unsigned flags) {
    return llm__train_total(llm_train_sizes_ex(c, batch, seq, flags));
}
static unsigned llm__lora_targets(const llm_lora_params *p) { return p->targets ? p->targets & LLM_LORA_ALL : LLM_LORA_Q | LLM_LORA_V; }
LLMDEF size_t llm_train_lora_bytes(const llm_config *c, int batch, int seq, const llm_lora_params *p) {
    if (!p || p->rank <= 0 || !(p->alpha >= 0.0f)) return 0;
    return llm__train_total(llm__train_sizes_of(c, batch, seq, p->rank, llm__lora_targets(p), 0));
}

/* A tensor of the parameter block (NULL when absent) */
static float *llm__tp(const llm_train *t, const float *base, int64_t slot) {
    return t->off[slot] < 0 ? NULL : (float *)(uintptr_t)base + t->off[slot];
}
static llm_weight llm__tw(const llm_train *t, int slot) {
    llm_weight w;
    memset(&w, 0, sizeof w);
    w.type = LLM_F32;
    w.data = llm__tp(t, t->params, slot);
    return w;
}

/* Both inits: carve mem, lay out the trainable tensors, and point weights at them (full
   training) or at the frozen base (LoRA). */
static llm_status llm__train_setup(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c, int batch, int seq,
                                   const llm_weights *base, int rank, unsigned targets, float scale, int rec) {
    size_t need = llm__train_total(llm__train_sizes_of(c, batch, seq, rank, targets, rec));
    unsigned char *p;
    int64_t np, pl, top, work, fixed, n;
    int l;
    llm_status st;
    if (!t || !c) return LLM_EINVAL;
    memset(t, 0, sizeof *t);
    if ((st = llm_train_supported(c, NULL)) != LLM_OK) return st;
    if (!need || !mem || mem_bytes < need) return LLM_EINVAL;
    t->config = *c, t->batch = batch, t->seq = seq;
    t->lora_rank = rank, t->lora_targets = targets, t->lora_scale = scale, t->recompute = rec;
    np = llm__train_layout(c, rank, targets, NULL, NULL);
    llm__train_sizes(c, rank, &pl, &top, &work, &fixed);
    n = (int64_t)batch * seq;
    p = (unsigned char *)llm__align64(mem);
#define LLM__CARVE(dst, type, count) ((dst) = (type *)(void *)p, p = (unsigned char *)llm__align64(p + sizeof(type) * (size_t)(count)))
    LLM__CARVE(t->params, float, np);
    LLM__CARVE(t->grads, float, np);
    LLM__CARVE(t->m, float, np);
    LLM__CARVE(t->v, float, np);
    LLM__CARVE(t->act, float, n * (llm__train_saved(c, pl, rec) * c->n_layers + top));
    LLM__CARVE(t->work, float, n * (work + pl - llm__train_saved(c, pl, rec)) + fixed);
    LLM__CARVE(t->off, int64_t, llm__train_nslots(c));
    LLM__CARVE(t->len, int64_t, llm__train_nslots(c));
    LLM__CARVE(t->layers, llm_layer_weights, c->n_layers);
#undef LLM__CARVE
    if ((size_t)(p - (unsigned char *)mem) + llm_rope_bytes(llm_config_head_dim(c), seq) > mem_bytes) return LLM_EINVAL;
    st = llm_rope_init_config(&t->rope, p, llm_rope_bytes(llm_config_head_dim(c), seq), c, seq);
    if (c->pos == LLM_POS_ROPE && st != LLM_OK) return st;
    t->n_params = llm__train_layout(c, rank, targets, t->off, t->len);
    memset(t->grads, 0, sizeof(float) * (size_t)np); /* gradients and moments start at zero */
    memset(t->m, 0, sizeof(float) * (size_t)np);
    memset(t->v, 0, sizeof(float) * (size_t)np);
    if (base) {
        memcpy(t->layers, base->layers, sizeof(llm_layer_weights) * (size_t)c->n_layers);
        t->weights = *base;
        t->weights.layers = t->layers;
        return LLM_OK;
    }
    for (l = 0; l < c->n_layers; l++) {
        llm_layer_weights *w = &t->layers[l];
        int b = LLM__T_GLOBAL + l * LLM__T_LAYER;
        memset(w, 0, sizeof *w);
        w->attn_norm = llm__tp(t, t->params, b + LLM__T_AN), w->attn_norm_b = llm__tp(t, t->params, b + LLM__T_ANB);
        w->wq = llm__tw(t, b + LLM__T_WQ), w->wk = llm__tw(t, b + LLM__T_WK);
        w->wv = llm__tw(t, b + LLM__T_WV), w->wo = llm__tw(t, b + LLM__T_WO);
        w->bq = llm__tp(t, t->params, b + LLM__T_BQ), w->bk = llm__tp(t, t->params, b + LLM__T_BK);
        w->bv = llm__tp(t, t->params, b + LLM__T_BV), w->bo = llm__tp(t, t->params, b + LLM__T_BO);
        w->ffn_norm = llm__tp(t, t->params, b + LLM__T_FN), w->ffn_norm_b = llm__tp(t, t->params, b + LLM__T_FNB);
        w->w1 = llm__tw(t, b + LLM__T_W1), w->w2 = llm__tw(t, b + LLM__T_W2);
        if (t->off[b + LLM__T_W3] >= 0) w->w3 = llm__tw(t, b + LLM__T_W3);
        w->b1 = llm__tp(t, t->params, b + LLM__T_B1), w->b2 = llm__tp(t, t->params, b + LLM__T_B2);
        w->b3 = llm__tp(t, t->params, b + LLM__T_B3);
        w->q_norm = llm__tp(t, t->params, b + LLM__T_QN), w->k_norm = llm__tp(t, t->params, b + LLM__T_KN);
    }
    t->weights.tok_embed = llm__tw(t, LLM__T_EMB);
    t->weights.pos_embed = llm__tp(t, t->params, LLM__T_POS);
    t->weights.layers = t->layers;
    t->weights.out_norm = llm__tp(t, t->params, LLM__T_ON), t->weights.out_norm_b = llm__tp(t, t->params, LLM__T_ONB);
    t->weights.lm_head = c->tied_embeddings ? t->weights.tok_embed : llm__tw(t, LLM__T_HEAD);
    return LLM_OK;
}

LLMDEF llm_status llm_train_init(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c, int batch, int seq) {
    return llm__train_setup(t, mem, mem_bytes, c, batch, seq, NULL, 0, 0, 0.0f, 0);
}
LLMDEF llm_status llm_train_init_ex(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c, int batch, int seq,
                                    unsigned flags) {
    return llm__train_setup(t, mem, mem_bytes, c, batch, seq, NULL, 0, 0, 0.0f, (flags & LLM_TRAIN_RECOMPUTE) != 0);
}

LLMDEF llm_status llm_train_init_lora(llm_train *t, void *mem, size_t mem_bytes, const llm_config *c,
                                      const llm_weights *base, int batch, int seq, const llm_lora_params *p) {
    if (!t) return LLM_EINVAL;
    memset(t, 0, sizeof *t);
    if (!base || !base->layers || !p || p->rank <= 0 || !(p->alpha >= 0.0f)) return LLM_EINVAL;
    return llm__train_setup(t, mem, mem_bytes, c, batch, seq, base, p->rank, llm__lora_targets(p), llm_lora_scale(p), 0);
}

LLMDEF void llm_train_zero_grad(llm_train *t) {
    if (t && t->grads) memset(t->grads, 0, sizeof(float) * (size_t)t->n_params);
}

LLMDEF llm_status llm_train_init_params(llm_train *t, uint64_t seed, float std) {
    static const char kind[LLM__T_LAYER] = {'g', 'b', 'w', 'w', 'w', 'w', 'b', 'b', 'b', 'b', 'g', 'b', 'w', 'w', 'w', 'b', 'b', 'b',
                                            'g', 'g'};
    uint64_t s = seed ? seed : 1;
    int64_t i, slot, base_end;
    if (!t || !t->params || !(std >= 0.0f)) return LLM_EINVAL;
    base_end = LLM__T_GLOBAL + (int64_t)t->config.n_layers * LLM__T_LAYER;
    for (slot = 0; slot < llm__train_nslots(&t->config); slot++) {
        float *p = llm__tp(t, t->params, slot);
        char k = (char)(slot >= base_end ? ((slot - base_end) % 2 ? 'b' : 'w') /* LoRA: A random, B zero */
                        : slot >= LLM__T_GLOBAL ? kind[(slot - LLM__T_GLOBAL) % LLM__T_LAYER]
                        : slot == LLM__T_ON ? 'g' : slot == LLM__T_ONB ? 'b' : 'w');
        for (i = 0; p && i < t->len[slot]; i++) {
            if (k == 'w') { /* Box-Muller: two uniforms, one normal */
                double u1 = (llm_xorshift_u32(&s) + 1.0) / 4294967297.0, u2 = llm_xorshift_u32(&s) / 4294967296.0;
                p[i] = (float)(std * LLM_SQRT(-2.0 * LLM_LOG(u1)) * LLM_COS(6.283185307179586 * u2));
            } else {
                p[i] = k == 'g' ? 1.0f : 0.0f; /* norm gains 1, biases 0 */
            }
        }
    }
    memset(t->m, 0, sizeof(float) * (size_t)t->n_params);
    memset(t->v, 0, sizeof(float) * (size_t)t->n_params);
    llm_train_zero_grad(t);
    t->step = 0;
    return LLM_OK;
}

LLMDEF llm_status llm_lora_adapter(const llm_train *t, int layer, unsigned target, const float **A, const float **B,
                                   int *in, int *out) {
    int i;
    int64_t di, dout;
    if (!t || !t->params || !t->lora_rank || layer < 0 || layer >= t->config.n_layers) return LLM_EINVAL;
    for (i = 0; i < LLM__LORA_TARGETS && target != 1u << i; i++) {}
    if (i == LLM__LORA_TARGETS) return LLM_EINVAL;
    llm__train_dims(&t->config, llm__lora_slot[i], &di, &dout);
    if (A) *A = llm__tp(t, t->params, llm__lora_at(&t->config, layer, i, 0));
    if (B) *B = llm__tp(t, t->params, llm__lora_at(&t->config, layer, i, 1));
    if (in) *in = (int)di;
    if (out) *out = (int)dout;
    return LLM_OK;
}

LLMDEF llm_status llm_lora_merge(const llm_train *t, int layer, unsigned target, float *W) {
    const float *A, *B;
    int in, out, r, o, i, k;
    llm_status st = llm_lora_adapter(t, layer, target, &A, &B, &in, &out);
    if (st != LLM_OK) return st;
    if (!W) return LLM_EINVAL;
    if (!A) return LLM_OK; /* not adapted: nothing to add */
    r = t->lora_rank;
    for (o = 0; o < out; o++)
        for (k = 0; k < r; k++) {
            float sb = t->lora_scale * B[(size_t)o * r + k];
            for (i = 0; i < in; i++) W[(size_t)o * in + i] += sb * A[(size_t)k * in + i];
        }
    return LLM_OK;
}

/* ---- the step's element-wise phases on the pool --------------------------------------------

   Rows (tokens, or heads of tokens) are split by index, one contiguous range per thread,
   and each row gets the same operations whatever the split, so these phases, like the
   GEMMs, give bit-identical results for any thread count. A sum across rows (a norm's gain
   and bias gradients) is split by columns instead, each column summed over the rows in
   their order. Fewer than LLM__TR_MIN values run on the caller's thread. */
enum { LLM__TR_MIN = 4096, LLM__TR_BLOCK = 256 }; /* LLM__TR_BLOCK: rows of a norm backward's two passes */
typedef struct llm__tr llm__tr;
struct llm__tr {
    void (*fn)(const llm__tr *r, int64_t i0, int64_t i1);
    int64_t first, n, width;     /* this run: items first..first+n-1; values per row */
    float *o, *o2, *o3;          /* outputs */
    const float *a, *b, *w, *wb; /* inputs, parameters */
    int kind, heads, seq, zero;  /* LLM_NORM_* or LLM_FFN_*; RoPE's heads and sequence; zero dx first */
    float eps, dir, scale;       /* a norm's eps; RoPE's direction; the loss gradient's scale */
    const llm_rope *rope;
    int64_t row0, nrows;         /* a norm backward's block of rows, and each one's r and mean */
    float r[LLM__TR_BLOCK];
    double mean[LLM__TR_BLOCK];
    const int *target;           /* cross-entropy: the targets, and each row's loss */
    double *loss;
};
static void llm__tr_task(void *ctx, int ith, int nth) {
    const llm__tr *r = (const llm__tr *)ctx;
    int64_t i0 = r->n * ith / nth, i1 = r->n * (ith + 1) / nth;
    if (i0 < i1) r->fn(r, r->first + i0, r->first + i1);
}
/* items [first, first + n) of fn, `values` of work in all */
static void llm__tr_run(llm__tr *r, void (*fn)(const llm__tr *, int64_t, int64_t), int64_t first, int64_t n,
                        int64_t values, llm_threads *th) {
    r->fn = fn, r->first = first, r->n = n;
    llm_threads_run(values >= LLM__TR_MIN ? th : NULL, llm__tr_task, r);
}

static void llm__tr_zero(const llm__tr *r, int64_t i0, int64_t i1) {
    memset(r->o + (size_t)(i0 * r->width), 0, sizeof(float) * (size_t)((i1 - i0) * r->width));
}
static void llm__tr_add(const llm__tr *r, int64_t i0, int64_t i1) {
    for (; i0 < i1; i0++) llm_add(r->o + i0 * r->width, r->o + i0 * r->width, r->a + i0 * r->width, (int)r->width);
}
/* rows of width zeroed; o += a over rows */
static void llm__train_zero(float *o, int64_t rows, int64_t width, llm_threads *th) {
    llm__tr r;
    memset(&r, 0, sizeof r);
    r.o = o, r.width = width;
    llm__tr_run(&r, llm__tr_zero, 0, rows, rows * width, th);
}
static void llm__train_add(float *o, const float *a, int64_t rows, int64_t width, llm_threads *th) {
    llm__tr r;
    memset(&r, 0, sizeof r);
    r.o = o, r.a = a, r.width = width;
    llm__tr_run(&r, llm__tr_add, 0, rows, rows * width, th);
}

/* Norm forward: o = Norm(a) per row, gain w, bias wb */
static void llm__tr_norm(const llm__tr *r, int64_t i0, int64_t i1) {
    for (; i0 < i1; i0++) {
        size_t o = (size_t)(i0 * r->width);
        if (r->kind == LLM_NORM_RMS) llm_rmsnorm(r->o + o, r->a + o, r->w, (int)r->width, r->eps);
        else llm_layernorm(r->o + o, r->a + o, r->w, r->wb, (int)r->width, r->eps);
    }
}
/* Norm backward, pass 1 over the block's rows: o += dx (zeroed first with zero) from dy a
   and x b, keeping each row's r and mean; pass 2 over columns: dw o2 and db o3 summed over
   the block's rows in order. */
static void llm__tr_norm_dx(const llm__tr *r, int64_t i0, int64_t i1) {
    llm__tr *m = (llm__tr *)(uintptr_t)r; /* each row writes only its own r and mean */
    for (; i0 < i1; i0++) {
        size_t o = (size_t)(i0 * r->width);
        float *dx = r->o ? r->o + o : NULL;
        if (dx && r->zero) memset(dx, 0, sizeof(float) * (size_t)r->width);
        if (r->kind == LLM_NORM_RMS) m->r[i0 - r->row0] = llm__rms_bwd_dx(dx, r->a + o, r->b + o, r->w, (int)r->width, r->eps);
        else m->r[i0 - r->row0] = llm__ln_bwd_dx(dx, r->a + o, r->b + o, r->w, (int)r->width, r->eps, &m->mean[i0 - r->row0]);
    }
}
static void llm__tr_norm_dw(const llm__tr *r, int64_t j0, int64_t j1) {
    int64_t i;
    for (i = 0; i < r->nrows; i++) {
        size_t o = (size_t)((r->row0 + i) * r->width);
        if (r->kind != LLM_NORM_RMS) llm__ln_bwd_dwb(r->o2, r->o3, r->a + o, r->b + o, r->mean[i], r->r[i], j0, j1);
        else if (r->o2) llm__rms_bwd_dw(r->o2, r->a + o, r->b + o, r->r[i], j0, j1);
    }
}

/* The norm of a block (or the final one) on token rows, forward and backward. */
static float llm__train_eps(const llm_config *c) { return c->norm_eps > 0.0f ? c->norm_eps : 1e-5f; }
static void llm__train_norm(const llm_config *c, float *out, const float *x, const float *w, const float *b, int64_t n,
                            llm_threads *th) {
    llm__tr r;
    memset(&r, 0, sizeof r);
    r.o = out, r.a = x, r.w = w, r.wb = b, r.width = c->d_model, r.kind = c->norm, r.eps = llm__train_eps(c);
    llm__tr_run(&r, llm__tr_norm, 0, n, n * c->d_model, th);
}
/* rows of width: dx += (with zero: =) the input's gradient, dw and db += the sums */
static void llm__train_norm_bwd_ex(int kind, float eps, float *dx, float *dw, float *db, const float *dy, const float *x,
                                   const float *w, int64_t rows, int64_t width, int zero, llm_threads *th) {
    llm__tr r;
    int64_t b0;
    memset(&r, 0, sizeof r);
    r.o = dx, r.o2 = dw, r.o3 = db, r.a = dy, r.b = x, r.w = w, r.width = width, r.kind = kind, r.eps = eps, r.zero = zero;
    for (b0 = 0; b0 < rows; b0 += LLM__TR_BLOCK) {
        r.row0 = b0, r.nrows = rows - b0 < LLM__TR_BLOCK ? rows - b0 : (int64_t)LLM__TR_BLOCK;
        llm__tr_run(&r, llm__tr_norm_dx, b0, r.nrows, r.nrows * width, th);
        if (dw || db) llm__tr_run(&r, llm__tr_norm_dw, 0, width, r.nrows * width, th);
    }
}
static void llm__train_norm_bwd(const llm_config *c, float *dx, float *dw, float *db, const float *dy, const float *x,
                                const float *w, int64_t n, llm_threads *th) {
    llm__train_norm_bwd_ex(c->norm, llm__train_eps(c), dx, dw, db, dy, x, w, n, c->d_model, 0, th);
}

/* qk_norm: RMSNorm of each head of hd (rows of heads), out of place, and its backward
   into dx (zeroed here) and dw; the model's rule (llm__model_head_norm) on training rows. */
static void llm__train_head_norm(const llm_config *c, float *out, const float *x, const float *w, int64_t rows, int hd,
                                 llm_threads *th) {
    llm__tr r;
    memset(&r, 0, sizeof r);
    r.o = out, r.a = x, r.w = w, r.width = hd, r.kind = LLM_NORM_RMS, r.eps = llm__model_eps(c);
    llm__tr_run(&r, llm__tr_norm, 0, rows, rows * hd, th);
}
static void llm__train_head_norm_bwd(const llm_config *c, float *dx, float *dw, const float *dy, const float *x,
                                     const float *w, int64_t rows, int hd, llm_threads *th) {
    llm__train_norm_bwd_ex(LLM_NORM_RMS, llm__model_eps(c), dx, dw, NULL, dy, x, w, rows, hd, 1, th);
}

/* The FFN's activation per token row, o = act(a) [* b], and its backward: o (dgate) and o2
   (dup) = the gradients from dy w, gate a and up b */
static void llm__tr_glu(const llm__tr *r, int64_t i0, int64_t i1) {
    for (; i0 < i1; i0++) {
        size_t o = (size_t)(i0 * r->width);
        if (r->kind == LLM_FFN_SWIGLU) llm_swiglu(r->o + o, r->a + o, r->b + o, (int)r->width);
        else if (r->kind == LLM_FFN_GEGLU) llm__geglu(r->o + o, r->a + o, r->b + o, (int)r->width);
        else llm_gelu(r->o + o, r->a + o, (int)r->width);
    }
}
static void llm__tr_glu_bwd(const llm__tr *r, int64_t i0, int64_t i1) {
    for (; i0 < i1; i0++) {
        size_t o = (size_t)(i0 * r->width);
        int n = (int)r->width;
        memset(r->o + o, 0, sizeof(float) * (size_t)n);
        if (r->kind != LLM_FFN_GELU) memset(r->o2 + o, 0, sizeof(float) * (size_t)n);
        if (r->kind == LLM_FFN_SWIGLU) llm_swiglu_backward(r->o + o, r->o2 + o, r->w + o, r->a + o, r->b + o, n);
        else if (r->kind == LLM_FFN_GEGLU) llm_geglu_backward(r->o + o, r->o2 + o, r->w + o, r->a + o, r->b + o, n);
        else llm_gelu_backward(r->o + o, r->w + o, r->a + o, n);
    }
}

/* RoPE on token rows [i0, i1) of sequences of seq tokens (position = row % seq), forward
   (dir 1) or backward (-1); the table holds seq positions (llm__train_setup), so the
   rotation cannot fail. */
static void llm__tr_rope(const llm__tr *r, int64_t i0, int64_t i1) {
    while (i0 < i1) {
        int64_t pos = i0 % r->seq, cnt = r->seq - pos < i1 - i0 ? r->seq - pos : i1 - i0;
        (void)llm__rope_rotate(r->rope, r->o + (size_t)(i0 * r->width), (int)cnt, r->heads, (int)pos, r->dir);
        i0 += cnt;
    }
}
static void llm__train_rope(const llm_train *t, float *x, int64_t n, int heads, float dir, llm_threads *th) {
    llm__tr r;
    memset(&r, 0, sizeof r);
    r.o = x, r.rope = &t->rope, r.seq = t->seq, r.heads = heads, r.dir = dir, r.width = (int64_t)heads * t->rope.head_dim;
    llm__tr_run(&r, llm__tr_rope, 0, n, n * r.width, th);
}

/* Cross-entropy per token row (llm__ce_row): dlogits o in place over the logits a, each
   row's loss into loss[row], summed afterwards in row order as llm_cross_entropy sums. */
static void llm__tr_ce(const llm__tr *r, int64_t i0, int64_t i1) {
    for (; i0 < i1; i0++)
        r->loss[i0] = llm__ce_row(r->o + (size_t)(i0 * r->width), r->a + (size_t)(i0 * r->width), r->target[i0],
                                  (int)r->width, r->scale);
}

/* [batch][seq][heads][hd] <-> [batch][heads][seq][hd] (the attention's head-major K and V) */
static void llm__train_heads(float *dst, const float *src, int batch, int seq, int heads, int hd, int to_heads) {
    int b, t, h;
    for (b = 0; b < batch; b++)
        for (t = 0; t < seq; t++)
            for (h = 0; h < heads; h++) {
                size_t tm = (((size_t)b * seq + t) * heads + h) * hd, hm = (((size_t)b * heads + h) * seq + t) * hd;
                memcpy(dst + (to_heads ? hm : tm), src + (to_heads ? tm : hm), sizeof(float) * (size_t)hd);
            }
}

/* The step's buffers, carved from act in the order llm__train_sizes counts them. A
   post-norm block saves the same number of rows with other meanings: xn1 and xn2 hold the
   residual sums Norm reads (x + Attn(x), xm + FFN(xm)), and the sub-layers read x and xm
   themselves. */
typedef struct llm__tbuf {
    float *x, *xn1, *q, *k, *v, *att, *xm, *xn2, *g, *u, *h; /* saved, per layer */
    float *qp, *kp;                                          /* qk_norm: q and k before their head norms */
} llm__tbuf;
static llm__tbuf llm__train_layer_bufs(const llm_train *t, int l) {
    const llm_config *c = &t->config;
    int64_t n = (int64_t)t->batch * t->seq, d = c->d_model, hd = llm_config_head_dim(c);
    int64_t qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff, pl, top, work, fixed;
    llm__tbuf b;
    llm__train_sizes(c, t->lora_rank, &pl, &top, &work, &fixed);
    b.x = t->act + (size_t)(l * llm__train_saved(c, pl, t->recompute) * n);
    /* recomputing: the rest of every layer in one set of buffers after the work space's own */
    b.xn1 = t->recompute ? t->work + (size_t)(n * work + fixed) : b.x + n * d;
    b.q = b.xn1 + n * d, b.k = b.q + n * qd;
    b.v = b.k + n * kvd, b.att = b.v + n * kvd, b.xm = b.att + n * qd, b.xn2 = b.xm + n * d, b.g = b.xn2 + n * d;
    b.u = b.g + n * ff, b.h = b.u + (c->ffn != LLM_FFN_GELU ? n * ff : 0);
    b.qp = b.h + n * ff, b.kp = b.qp + (c->qk_norm ? n * qd : 0);
    return b;
}

/* The LoRA work buffers: x A^T and dY B [n][r], a base output [n][big], the dequantized
   base rows [WT_ROWS][big] and their dY columns [n][WT_ROWS]. */
typedef struct llm__lbuf {
    float *xa, *ub, *y, *rows, *cols;
} llm__lbuf;

/* One projection of layer l (slot LLM__T_W*): y = x W^T + b, plus the adapter's
   s (x A^T) B^T when it has one. */
static llm_status llm__tlin(const llm_train *t, const llm__lbuf *lb, int l, int slot, float *y, const float *x,
                            const llm_weight *W, const float *b, int64_t n, llm_threads *th) {
    int64_t in, out, i;
    int k, r = t->lora_rank;
    llm_status st;
    llm__train_dims(&t->config, slot, &in, &out);
    if (slot < 0) in = t->config.d_model, out = t->config.vocab; /* the LM head */
    if ((st = llm_linear_w(y, x, W, b, (int)n, (int)in, (int)out, th)) != LLM_OK) return st;
    for (k = 0; r && slot >= 0 && k < LLM__LORA_TARGETS; k++)
        if (llm__lora_slot[k] == slot && t->off[llm__lora_at(&t->config, l, k, 0)] >= 0) {
            const float *A = llm__tp(t, t->params, llm__lora_at(&t->config, l, k, 0));
            const float *B = llm__tp(t, t->params, llm__lora_at(&t->config, l, k, 1));
            if ((st = llm_linear(lb->xa, x, A, NULL, (int)n, (int)in, r, th)) != LLM_OK) return st;
            for (i = 0; i < n * r; i++) lb->xa[i] *= t->lora_scale;
            if ((st = llm_linear(lb->y, lb->xa, B, NULL, (int)n, r, (int)out, th)) != LLM_OK) return st;
            for (i = 0; i < n * out; i++) y[i] += lb->y[i];
        }
    return LLM_OK;
}

/* dX += dY W for a weight in any format: fp32 directly on the GEMM; others a block of
   WT_ROWS rows at a time, dequantized into work space, so no copy of the whole base. */
static llm_status llm__linear_wt(float *dx, const float *dy, const llm_weight *W, int64_t n, int64_t in, int64_t out,
                                 const llm__lbuf *lb, llm_threads *th) {
    int64_t o0, o, t;
    llm_status st;
    if (W->type == LLM_F32) return llm_matmul_ex(dx, dy, (const float *)W->data, (int)n, (int)out, (int)in, 0, 1, th);
    for (o0 = 0; o0 < out; o0 += LLM__WT_ROWS) {
        int64_t nr = out - o0 < (int64_t)LLM__WT_ROWS ? out - o0 : (int64_t)LLM__WT_ROWS;
        for (o = 0; o < nr; o++)
            if ((st = llm__model_row(lb->rows + o * in, W, (int)(o0 + o), (int)in)) != LLM_OK) return st;
        for (t = 0; t < n; t++)
            for (o = 0; o < nr; o++) lb->cols[t * nr + o] = dy[t * out + o0 + o];
        if ((st = llm_matmul_ex(dx, lb->cols, lb->rows, (int)n, (int)nr, (int)in, 0, 1, th)) != LLM_OK) return st;
    }
    return LLM_OK;
}

/* The backward of llm__tlin: dX (if wanted) through the base and the adapter; dW and db
   when the base trains; dA and dB when it has an adapter. */
static llm_status llm__tlin_bwd(const llm_train *t, const llm__lbuf *lb, int l, int slot, float *dx, const float *dy,
                                const float *x, const llm_weight *W, int64_t n, llm_threads *th) {
    int64_t in, out, i;
    int k, r = t->lora_rank, base = slot >= 0 ? LLM__T_GLOBAL + l * LLM__T_LAYER + slot : LLM__T_HEAD;
    float *dW, *db = NULL;
    llm_status st;
    llm__train_dims(&t->config, slot, &in, &out);
    if (slot < 0) in = t->config.d_model, out = t->config.vocab;
    dW = llm__tp(t, t->grads, slot < 0 && t->config.tied_embeddings ? LLM__T_EMB : base);
    if (slot >= 0) db = llm__tp(t, t->grads, base + (slot == LLM__T_WO ? LLM__T_BO - LLM__T_WO : slot <= LLM__T_WV
                                                      ? LLM__T_BQ - LLM__T_WQ : LLM__T_B1 - LLM__T_W1));
    if (!r) return llm_linear_backward(dx, dW, db, dy, x, (const float *)W->data, (int)n, (int)in, (int)out, th);
    if (dx && (st = llm__linear_wt(dx, dy, W, n, in, out, lb, th)) != LLM_OK) return st;
    for (k = 0; slot >= 0 && k < LLM__LORA_TARGETS; k++)
        if (llm__lora_slot[k] == slot && t->off[llm__lora_at(&t->config, l, k, 0)] >= 0) {
            int64_t a = llm__lora_at(&t->config, l, k, 0);
            const float *A = llm__tp(t, t->params, a), *B = llm__tp(t, t->params, a + 1);
            float *dA = llm__tp(t, t->grads, a), *dB = llm__tp(t, t->grads, a + 1);
            /* with xa = s x A^T and ub = s dY B:  dB += dY^T xa,  dA += ub^T x,  dX += ub A */
            if ((st = llm_linear(lb->xa, x, A, NULL, (int)n, (int)in, r, th)) != LLM_OK) return st;
            for (i = 0; i < n * r; i++) lb->xa[i] *= t->lora_scale;
            if ((st = llm_matmul_ex(dB, dy, lb->xa, (int)out, (int)n, r, 1, 1, th)) != LLM_OK) return st;
            if ((st = llm_matmul_ex(lb->ub, dy, B, (int)n, (int)out, r, 0, 0, th)) != LLM_OK) return st;
            for (i = 0; i < n * r; i++) lb->ub[i] *= t->lora_scale;
            if ((st = llm_matmul_ex(dA, lb->ub, x, r, (int)n, (int)in, 1, 1, th)) != LLM_OK) return st;
            if (dx && (st = llm_matmul_ex(dx, lb->ub, A, (int)n, r, (int)in, 0, 1, th)) != LLM_OK) return st;
        }
    return LLM_OK;
}

/* Post-norm's x = Norm(y) backward: dy = Norm'(y)^T dx, through the tmp rows, back into
   dx (the gradient of the sum y that both the residual and the sub-layer feed). */
static void llm__train_renorm_bwd(const llm_config *c, float *dx, float *tmp, float *dw, float *db, const float *y,
                                  const float *w, int64_t n, llm_threads *th) {
    llm__train_norm_bwd_ex(c->norm, llm__train_eps(c), tmp, dw, db, dx, y, w, n, c->d_model, 1, th);
    memcpy(dx, tmp, sizeof(float) * (size_t)(n * c->d_model));
}

/* One block's forward on the running x [n][d] (in place), saving into s what the backward
   reads; tk, tv, ty are [n][kvd], [n][kvd] and [n][d] of scratch. With s.x == x's copy it
   is the step's forward; recomputation calls it again from the saved input. Pre-norm:
   x += Attn(Norm(x)); x += FFN(Norm(x)); post-norm: x = Norm(x + Attn(x)); x = Norm(x + FFN(x)). */
static llm_status llm__train_block_fwd(const llm_train *t, const llm__lbuf *lb, int l, const llm__tbuf *s, float *x,
                                       float *tk, float *tv, float *ty, llm_threads *th) {
    const llm_config *c = &t->config;
    const llm_layer_weights *w = &t->layers[l];
    int64_t n = (int64_t)t->batch * t->seq, d = c->d_model, hd = llm_config_head_dim(c);
    int64_t qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    int B = t->batch, T = t->seq, H = c->n_heads, Hkv = c->n_kv_heads, b, post = c->post_norm;
    const float *in1 = post ? s->x : s->xn1, *in2 = post ? s->xm : s->xn2; /* what each sub-layer reads */
    llm__tr r;
    llm_status st;
#define LLM__TRY(call) do { if ((st = (call)) != LLM_OK) return st; } while (0)
    if (!post) llm__train_norm(c, s->xn1, s->x, w->attn_norm, w->attn_norm_b, n, th);
    LLM__TRY(llm__tlin(t, lb, l, LLM__T_WQ, c->qk_norm ? s->qp : s->q, in1, &w->wq, w->bq, n, th));
    LLM__TRY(llm__tlin(t, lb, l, LLM__T_WK, c->qk_norm ? s->kp : tk, in1, &w->wk, w->bk, n, th));
    LLM__TRY(llm__tlin(t, lb, l, LLM__T_WV, tv, in1, &w->wv, w->bv, n, th));
    if (c->qk_norm) { /* each head of q and k normed on its own (Qwen3), before the rotation */
        llm__train_head_norm(c, s->q, s->qp, w->q_norm, n * H, (int)hd, th);
        llm__train_head_norm(c, tk, s->kp, w->k_norm, n * Hkv, (int)hd, th);
    }
    if (c->pos == LLM_POS_ROPE) {
        llm__train_rope(t, s->q, n, H, 1.0f, th);
        llm__train_rope(t, tk, n, Hkv, 1.0f, th);
    }
    llm__train_heads(s->k, tk, B, T, Hkv, (int)hd, 1);
    llm__train_heads(s->v, tv, B, T, Hkv, (int)hd, 1);
    for (b = 0; b < B; b++)
        LLM__TRY(llm_attention(s->att + (size_t)b * T * qd, s->q + (size_t)b * T * qd, s->k + (size_t)b * T * kvd,
                               s->v + (size_t)b * T * kvd, T, T, T, H, Hkv, (int)hd, th));
    LLM__TRY(llm__tlin(t, lb, l, LLM__T_WO, ty, s->att, &w->wo, w->bo, n, th));
    llm__train_add(x, ty, n, d, th);
    if (post) { /* post-norm: x = Norm(x + Attn(x)) */
        memcpy(s->xn1, x, sizeof(float) * (size_t)(n * d));
        llm__train_norm(c, x, s->xn1, w->attn_norm, w->attn_norm_b, n, th);
    }
    memcpy(s->xm, x, sizeof(float) * (size_t)(n * d));
    if (!post) llm__train_norm(c, s->xn2, s->xm, w->ffn_norm, w->ffn_norm_b, n, th);
    LLM__TRY(llm__tlin(t, lb, l, LLM__T_W1, s->g, in2, &w->w1, w->b1, n, th));
    if (c->ffn != LLM_FFN_GELU) LLM__TRY(llm__tlin(t, lb, l, LLM__T_W3, s->u, in2, &w->w3, w->b3, n, th));
    memset(&r, 0, sizeof r);
    r.o = s->h, r.a = s->g, r.b = s->u, r.width = ff, r.kind = c->ffn;
    llm__tr_run(&r, llm__tr_glu, 0, n, n * ff, th);
    LLM__TRY(llm__tlin(t, lb, l, LLM__T_W2, ty, s->h, &w->w2, w->b2, n, th));
    llm__train_add(x, ty, n, d, th);
    if (post) { /* x = Norm(xm + FFN(xm)) */
        memcpy(s->xn2, x, sizeof(float) * (size_t)(n * d));
        llm__train_norm(c, x, s->xn2, w->ffn_norm, w->ffn_norm_b, n, th);
    }
#undef LLM__TRY
    return LLM_OK;
}

LLMDEF llm_status llm_train_step(llm_train *t, const int *tokens, const int *targets, float grad_scale, double *loss,
                                 llm_threads *th) {
    const llm_config *c;
    int64_t n, d, hd, qd, kvd, ff, pl, top, wk, fixed, i;
    int B, T, H, Hkv, V, l, b, counted = 0, gated, post;
    double total;
    llm__tr r;
    float *x, *dx, *dxn, *dq, *dk, *dv, *dkt, *datt, *dg, *du, *dh, *xL, *xf, *logits, *G;
    llm__lbuf lb;
    llm_status st;
    if (!t || !t->params || !tokens || !targets) return LLM_EINVAL;
    c = &t->config;
    B = t->batch, T = t->seq, H = c->n_heads, Hkv = c->n_kv_heads, V = c->vocab;
    n = (int64_t)B * T;
    d = c->d_model;
    hd = llm_config_head_dim(c);
    qd = H * hd, kvd = Hkv * hd, ff = c->d_ff;
    gated = c->ffn != LLM_FFN_GELU, post = c->post_norm;
    for (i = 0; i < n; i++) {
        if (tokens[i] < 0 || tokens[i] >= V || targets[i] >= V) return LLM_EINVAL;
        counted += targets[i] >= 0;
    }
    llm__train_sizes(c, t->lora_rank, &pl, &top, &wk, &fixed);
    xL = t->act + (size_t)(c->n_layers * llm__train_saved(c, pl, t->recompute) * n), xf = xL + n * d, logits = xf + n * d;
    x = t->work, dx = x + n * d, dxn = dx + n * d, dq = dxn + n * d, dk = dq + n * qd, dv = dk + n * kvd;
    dkt = dv + n * kvd, datt = dkt + n * kvd, dg = datt + n * qd, du = dg + n * ff, dh = du + n * ff;
    lb.xa = dh + n * ff, lb.ub = lb.xa + n * t->lora_rank, lb.y = lb.ub + n * t->lora_rank;
    lb.cols = lb.y + n * (fixed / LLM__WT_ROWS), lb.rows = lb.cols + n * LLM__WT_ROWS;
    G = t->grads;
#define LLM__G(slot) llm__tp(t, G, (slot))
#define LLM__L(l, k) (LLM__T_GLOBAL + (l) * LLM__T_LAYER + (k))
#define LLM__TRY(call) do { if ((st = (call)) != LLM_OK) return st; } while (0)

    /* ---- forward, saving what the backward reads ---- */
    for (i = 0; i < n; i++) {
        LLM__TRY(llm__model_row(x + i * d, &t->weights.tok_embed, tokens[i], (int)d));
        if (c->embed_scale > 0.0f) llm__model_scale(x + i * d, (int)d, c->embed_scale);
        if (c->pos == LLM_POS_LEARNED) llm_add(x + i * d, x + i * d, t->weights.pos_embed + (size_t)(i % T) * d, (int)d);
    }
    for (l = 0; l < c->n_layers; l++) {
        llm__tbuf s = llm__train_layer_bufs(t, l);
        memcpy(s.x, x, sizeof(float) * (size_t)(n * d));
        LLM__TRY(llm__train_block_fwd(t, &lb, l, &s, x, dkt, dv, dxn, th));
    }
    memcpy(xL, x, sizeof(float) * (size_t)(n * d));
    llm__train_norm(c, xf, xL, t->weights.out_norm, t->weights.out_norm_b, n, th);
    LLM__TRY(llm__tlin(t, &lb, -1, -1, logits, xf, &t->weights.lm_head, NULL, n, th));
    /* the loss, llm_cross_entropy's rows on the pool: each row's loss goes into x and dx
       (2 n d floats, free until the backward), then the sum in row order */
    memset(&r, 0, sizeof r);
    r.o = logits, r.a = logits, r.width = V, r.target = targets, r.loss = (double *)(void *)x;
    r.scale = grad_scale != 0.0f ? grad_scale : counted ? 1.0f / (float)counted : 0.0f;
    llm__tr_run(&r, llm__tr_ce, 0, n, n * V, th);
    for (i = 0, total = 0.0; i < n; i++)
        if (targets[i] >= 0) total += r.loss[i];
    if (loss) *loss = counted ? total / counted : 0.0;

    /* ---- backward, in the reverse order ---- */
    llm__train_zero(dx, n, d, th);
    llm__train_zero(dxn, n, d, th);
    LLM__TRY(llm__tlin_bwd(t, &lb, -1, -1, dxn, logits, xf, &t->weights.lm_head, n, th));
    llm__train_norm_bwd(c, dx, LLM__G(LLM__T_ON), LLM__G(LLM__T_ONB), dxn, xL, t->weights.out_norm, n, th);
    for (l = c->n_layers - 1; l >= 0; l--) {
        const llm_layer_weights *w = &t->layers[l];
        llm__tbuf s = llm__train_layer_bufs(t, l);
        const float *in1 = post ? s.x : s.xn1, *in2 = post ? s.xm : s.xn2;
        if (t->recompute) { /* only the block's input was kept: its forward again, from it */
            memcpy(x, s.x, sizeof(float) * (size_t)(n * d));
            LLM__TRY(llm__train_block_fwd(t, &lb, l, &s, x, dkt, dv, dxn, th));
        }
        /* the FFN: x += W2 act(W1 xn2) [* W3 xn2]; post-norm: x = Norm(xm + FFN(xm)) */
        if (post) llm__train_renorm_bwd(c, dx, dxn, LLM__G(LLM__L(l, LLM__T_FN)), LLM__G(LLM__L(l, LLM__T_FNB)), s.xn2,
                                        w->ffn_norm, n, th);
        llm__train_zero(dh, n, ff, th);
        LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_W2, dh, dx, s.h, &w->w2, n, th));
        memset(&r, 0, sizeof r); /* dg and du (zeroed per row) from dh */
        r.o = dg, r.o2 = du, r.w = dh, r.a = s.g, r.b = s.u, r.width = ff, r.kind = c->ffn;
        llm__tr_run(&r, llm__tr_glu_bwd, 0, n, n * ff, th);
        llm__train_zero(dxn, n, d, th);
        LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_W1, dxn, dg, in2, &w->w1, n, th));
        if (gated) LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_W3, dxn, du, in2, &w->w3, n, th));
        if (post) llm__train_add(dx, dxn, n, d, th);
        else llm__train_norm_bwd(c, dx, LLM__G(LLM__L(l, LLM__T_FN)), LLM__G(LLM__L(l, LLM__T_FNB)), dxn, s.xm, w->ffn_norm, n, th);
        /* attention: x += Wo Attn(RoPE(Wq xn1), RoPE(Wk xn1), Wv xn1); post-norm: x = Norm(x + Attn(x)) */
        if (post) llm__train_renorm_bwd(c, dx, dxn, LLM__G(LLM__L(l, LLM__T_AN)), LLM__G(LLM__L(l, LLM__T_ANB)), s.xn1,
                                        w->attn_norm, n, th);
        llm__train_zero(datt, n, qd, th);
        LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_WO, datt, dx, s.att, &w->wo, n, th));
        llm__train_zero(dq, n, qd, th);
        llm__train_zero(dk, n, kvd, th);
        llm__train_zero(dv, n, kvd, th);
        for (b = 0; b < B; b++) {
            size_t oq = (size_t)b * T * qd, ok = (size_t)b * T * kvd;
            LLM__TRY(llm_attention_backward(dq + oq, dk + ok, dv + ok, datt + oq, s.q + oq, s.k + ok, s.v + ok, s.att + oq,
                                            T, H, Hkv, (int)hd, 0.0f, th));
        }
        llm__train_heads(dkt, dk, B, T, Hkv, (int)hd, 0);
        llm__train_heads(dk, dv, B, T, Hkv, (int)hd, 0); /* dk now holds dV token-major */
        if (c->pos == LLM_POS_ROPE) {
            llm__train_rope(t, dq, n, H, -1.0f, th);
            llm__train_rope(t, dkt, n, Hkv, -1.0f, th);
        }
        if (c->qk_norm) { /* through the head norms: dq into datt, dk into dv (both free now) */
            float *gq = LLM__G(LLM__L(l, LLM__T_QN)), *gk = LLM__G(LLM__L(l, LLM__T_KN));
            llm__train_head_norm_bwd(c, datt, gq, dq, s.qp, w->q_norm, n * H, (int)hd, th);
            llm__train_head_norm_bwd(c, dv, gk, dkt, s.kp, w->k_norm, n * Hkv, (int)hd, th);
        }
        llm__train_zero(dxn, n, d, th);
        LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_WQ, dxn, c->qk_norm ? datt : dq, in1, &w->wq, n, th));
        LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_WK, dxn, c->qk_norm ? dv : dkt, in1, &w->wk, n, th));
        LLM__TRY(llm__tlin_bwd(t, &lb, l, LLM__T_WV, dxn, dk, in1, &w->wv, n, th));
        if (post) llm__train_add(dx, dxn, n, d, th);
        else llm__train_norm_bwd(c, dx, LLM__G(LLM__L(l, LLM__T_AN)), LLM__G(LLM__L(l, LLM__T_ANB)), dxn, s.x, w->attn_norm, n, th);
    }
    if (LLM__G(LLM__T_POS))
        for (i = 0; i < n; i++) llm_add(LLM__G(LLM__T_POS) + (size_t)(i % T) * d, LLM__G(LLM__T_POS) + (size_t)(i % T) * d,
                                        dx + i * d, (int)d);
    for (i = 0; c->embed_scale > 0.0f && i < n; i++) llm__model_scale(dx + i * d, (int)d, c->embed_scale); /* x = s E[token] */
    if (LLM__G(LLM__T_EMB)) LLM__TRY(llm_embedding_backward(LLM__G(LLM__T_EMB), dx, tokens, (int)n, (int)d, V));
#undef LLM__G
#undef LLM__L
#undef LLM__TRY
    return LLM_OK;
}

/* The update on the pool: the sum of squares' chunks (llm__ss_part) split by index, then
   AdamW over parameter ranges split by index, gradients scaled by the clip and zeroed in
   the same pass; element by element, so any split gives the same bits. */
typedef struct llm__upd {
    llm_train *t;
    double *part;          /* [chunks] the sums of squares */
    int64_t chunk, chunks;
    const float *k;        /* llm__adamw_consts */
    float s;               /* the clip's scale, 1 for none */
} llm__upd;
static void llm__upd_norm(void *ctx, int ith, int nth) {
    const llm__upd *u = (const llm__upd *)ctx;
    int64_t c, c1 = u->chunks * (ith + 1) / nth;
    for (c = u->chunks * ith / nth; c < c1; c++) u->part[c] = llm__ss_part(u->t->grads, u->t->n_params, u->chunk, c);
}
static void llm__upd_adamw(void *ctx, int ith, int nth) {
    static const char decays[LLM__T_LAYER] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0};
    const llm__upd *u = (const llm__upd *)ctx;
    llm_train *t = u->t;
    int64_t slot, p0 = t->n_params * ith / nth, p1 = t->n_params * (ith + 1) / nth;
    int64_t base_end = LLM__T_GLOBAL + (int64_t)t->config.n_layers * LLM__T_LAYER;
    for (slot = 0; slot < llm__train_nslots(&t->config); slot++) {
        /* decay matrices, embeddings and adapters, not gains or biases */
        int decay = slot >= base_end ? 1 : slot >= LLM__T_GLOBAL ? decays[(slot - LLM__T_GLOBAL) % LLM__T_LAYER]
                                         : slot == LLM__T_EMB || slot == LLM__T_POS || slot == LLM__T_HEAD;
        int64_t a = t->off[slot], b = a + t->len[slot]; /* this slot's part of [p0, p1) */
        if (a < 0) continue;
        a = a > p0 ? a : p0, b = b < p1 ? b : p1;
        if (a < b) llm__adamw_run(t->params + a, t->m + a, t->v + a, t->grads + a, b - a, u->k, decay ? u->k[4] : 0.0f, u->s, 1);
    }
}

LLMDEF llm_status llm_train_update_ex(llm_train *t, const llm_adamw *opt, double clip, double *grad_norm, llm_threads *th) {
    double part[LLM__SS_CHUNKS] = {0.0}, ss = 0.0, norm; /* (filled by llm__upd_norm; zeroed for the analyzers) */
    float k[7];
    llm__upd u;
    int64_t c;
    if (!t || !t->params || !opt || llm__adamw_consts(opt, t->step + 1, k) != LLM_OK) return LLM_EINVAL;
    if ((double)t->n_params < 2.0 * LLM__SS_MIN) th = NULL; /* one chunk or two: not worth a hand-off */
    u.t = t, u.part = part, u.k = k, u.s = 1.0f;
    u.chunk = llm__ss_chunk(t->n_params), u.chunks = (t->n_params + u.chunk - 1) / u.chunk;
    llm_threads_run(th, llm__upd_norm, &u);
    for (c = 0; c < u.chunks; c++) ss += part[c]; /* in chunk order: llm_clip_grad_norm's sum */
    norm = LLM_SQRT(ss);
    if (grad_norm) *grad_norm = norm;
    if (!(norm < INFINITY)) return LLM_ERANGE;
    if (clip > 0.0 && norm > clip) u.s = (float)(clip / norm);
    t->step++;
    llm_threads_run(th, llm__upd_adamw, &u);
    return LLM_OK;
}
LLMDEF llm_status llm_train_update(llm_train *t, const llm_adamw *opt, double clip, double *grad_norm) {
    return llm_train_update_ex(t, opt, clip, grad_norm, NULL);
}


/* ---- LoRA adapters as GGUF (llama.cpp's layout) --------------------------------------------- */

/* llama.cpp's tensor name of projection k (LLM_LORA_* order); the FFN's first matrix is
   ffn_gate in a gated FFN and ffn_up in GPT-2's */
static const char *llm__lora_gguf_name(const llm_config *c, int k) {
    static const char *names[LLM__LORA_TARGETS] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_down", "ffn_up"};
    return k == 4 && c->ffn == LLM_FFN_GELU ? "ffn_up" : names[k];
}

/* The writer: every integer little-endian, byte by byte, so any host writes the same file;
   with p NULL it only counts. */
typedef struct llm__gw {
    unsigned char *p;
    size_t n;
} llm__gw;
static void llm__gw_bytes(llm__gw *w, const void *src, size_t n) {
    if (w->p) memcpy(w->p + w->n, src, n);
    w->n += n;
}
static void llm__gw_u(llm__gw *w, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; i++) {
        unsigned char b = (unsigned char)(v >> (8 * i));
        llm__gw_bytes(w, &b, 1);
    }
}
static void llm__gw_str(llm__gw *w, const char *s) {
    llm__gw_u(w, strlen(s), 8);
    llm__gw_bytes(w, s, strlen(s));
}
static void llm__gw_kv_str(llm__gw *w, const char *k, const char *v) { llm__gw_str(w, k), llm__gw_u(w, 8, 4), llm__gw_str(w, v); }
static uint32_t llm__f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* A GGUF tensor name without stdio: "blk.<l>." (l >= 0; none for -1) + name + suffix. */
static void llm__blk_tname(char *dst, int l, const char *name, const char *suffix) {
    char num[12];
    const char *p;
    int n = 0, i = 0;
    if (l >= 0) {
        do num[n++] = (char)('0' + l % 10), l /= 10; while (l);
        for (p = "blk."; *p; p++) dst[i++] = *p;
        while (n) dst[i++] = num[--n];
        dst[i++] = '.';
    }
    for (p = name; *p; p++) dst[i++] = *p;
    for (p = suffix; *p; p++) dst[i++] = *p;
    dst[i] = '\0';
}
/* "blk.<l>.<name>.weight.lora_a" / "_b" */
static void llm__lora_tname(char *dst, int l, const char *name, int b) {
    llm__blk_tname(dst, l, name, b ? ".weight.lora_b" : ".weight.lora_a");
}

/* The whole file into buf (NULL: only its size). */
/* One F32 tensor of t's slot in a GGUF being written: its info (pass 0: name, dims, type
   F32, offset; *off moves to the next 32-byte boundary) or its data (pass 1, padded to 32). */
static void llm__gw_f32_slot(llm__gw *w, const llm_train *t, int64_t slot, int pass, const char *name, int n_dims,
                             int64_t ne0, int64_t ne1, uint64_t *off) {
    int64_t i;
    if (pass == 0) {
        llm__gw_str(w, name);
        llm__gw_u(w, (uint64_t)n_dims, 4), llm__gw_u(w, (uint64_t)ne0, 8);
        if (n_dims > 1) llm__gw_u(w, (uint64_t)ne1, 8);
        llm__gw_u(w, 0, 4), llm__gw_u(w, *off, 8);
        *off = (*off + (uint64_t)t->len[slot] * 4 + 31) / 32 * 32;
    } else {
        for (i = 0; i < t->len[slot]; i++) llm__gw_u(w, llm__f32_bits(t->params[t->off[slot] + i]), 4);
        while (w->n % 32) llm__gw_u(w, 0, 1);
    }
}

static size_t llm__lora_gguf_write(const llm_train *t, const char *arch, unsigned char *buf) {
    const llm_config *c = &t->config;
    llm__gw w;
    uint64_t n_t = 0, off = 0;
    int64_t slot, in, out;
    int l, k, ab, pass;
    char name[64];
    w.p = buf, w.n = 0;
    for (l = 0; l < c->n_layers; l++)
        for (k = 0; k < LLM__LORA_TARGETS; k++) n_t += 2 * (t->off[llm__lora_at(c, l, k, 0)] >= 0);
    llm__gw_bytes(&w, "GGUF", 4);
    llm__gw_u(&w, 3, 4), llm__gw_u(&w, n_t, 8), llm__gw_u(&w, 4, 8);
    llm__gw_kv_str(&w, "general.architecture", arch);
    llm__gw_kv_str(&w, "general.type", "adapter");
    llm__gw_kv_str(&w, "adapter.type", "lora");
    llm__gw_str(&w, "adapter.lora.alpha"), llm__gw_u(&w, 6, 4);
    llm__gw_u(&w, llm__f32_bits(t->lora_scale * (float)t->lora_rank), 4);
    for (pass = 0; pass < 2; pass++) { /* the tensor infos, then (from a 32-byte boundary) their data */
        while (pass == 1 && w.n % 32) llm__gw_u(&w, 0, 1);
        for (l = 0; l < c->n_layers; l++)
            for (k = 0; k < LLM__LORA_TARGETS; k++)
                for (ab = 0; ab < 2; ab++) {
                    if (t->off[slot = llm__lora_at(c, l, k, ab)] < 0) continue;
                    llm__train_dims(c, llm__lora_slot[k], &in, &out);
                    if (pass == 0) llm__lora_tname(name, l, llm__lora_gguf_name(c, k), ab);
                    llm__gw_f32_slot(&w, t, slot, pass, name, 2, ab ? t->lora_rank : in, ab ? out : t->lora_rank, &off);
                }
    }
    return w.n;
}

LLMDEF size_t llm_lora_gguf_bytes(const llm_train *t, const char *arch) {
    if (!t || !t->params || !t->lora_rank || !arch) return 0;
    return llm__lora_gguf_write(t, arch, NULL);
}

LLMDEF llm_status llm_lora_save_gguf(const llm_train *t, const char *arch, void *buf, size_t cap, size_t *len) {
    size_t need = llm_lora_gguf_bytes(t, arch);
    if (len) *len = 0;
    if (!need || !buf || cap < need || strlen(arch) > 64) return LLM_EINVAL;
    llm__lora_gguf_write(t, arch, (unsigned char *)buf);
    if (len) *len = need;
    return LLM_OK;
}

#define LLM__LFAIL(msg, code) do { if (why) *why = (msg); return (code); } while (0)
LLMDEF llm_status llm_lora_load_gguf(llm_train *t, const llm_gguf *g, const char **why) {
    const llm_config *c;
    llm_gguf_str v;
    double alpha;
    int64_t n_adapted = 0, slot, in, out, i;
    int l, k, ab;
    char name[64];
    if (why) *why = "";
    if (!t || !t->params || !t->lora_rank || !g) LLM__LFAIL("no LoRA training state or no GGUF", LLM_EINVAL);
    c = &t->config;
    if (llm_gguf_get_str(g, "general.type", &v) != LLM_OK || v.n != 7 || memcmp(v.s, "adapter", 7) != 0)
        LLM__LFAIL("general.type is not \"adapter\"", LLM_EFORMAT);
    if (llm_gguf_get_str(g, "adapter.type", &v) != LLM_OK || v.n != 4 || memcmp(v.s, "lora", 4) != 0)
        LLM__LFAIL("adapter.type is not \"lora\"", LLM_EUNSUPPORTED);
    if (llm_gguf_get_float(g, "adapter.lora.alpha", &alpha) != LLM_OK || !(alpha > 0.0) || !(alpha < 1e30))
        LLM__LFAIL("adapter.lora.alpha missing or not a positive number", LLM_EFORMAT);
    for (l = 0; l < c->n_layers; l++) /* check every tensor before copying any */
        for (k = 0; k < LLM__LORA_TARGETS; k++)
            for (ab = 0; ab < 2; ab++) {
                const llm_gguf_tensor *gt;
                if (t->off[slot = llm__lora_at(c, l, k, ab)] < 0) continue;
                llm__train_dims(c, llm__lora_slot[k], &in, &out);
                llm__lora_tname(name, l, llm__lora_gguf_name(c, k), ab);
                gt = llm_gguf_find_tensor(g, name);
                if (!gt) LLM__LFAIL("an adapted projection's tensor is missing (blk.N.<name>.weight.lora_a/b)", LLM_EFORMAT);
                if (gt->type != 0 || gt->n_dims != 2 || gt->ne[0] != (ab ? t->lora_rank : in) ||
                    gt->ne[1] != (ab ? out : t->lora_rank) || gt->bytes != (uint64_t)t->len[slot] * 4)
                    LLM__LFAIL("a lora_a / lora_b tensor is not F32 of this state's rank and projection shape", LLM_EFORMAT);
                n_adapted++;
            }
    if (g->n_tensors != n_adapted) LLM__LFAIL("the file adapts projections this state does not (other targets)", LLM_EFORMAT);
    for (l = 0; l < c->n_layers; l++)
        for (k = 0; k < LLM__LORA_TARGETS; k++)
            for (ab = 0; ab < 2; ab++) {
                const unsigned char *src;
                if (t->off[slot = llm__lora_at(c, l, k, ab)] < 0) continue;
                llm__lora_tname(name, l, llm__lora_gguf_name(c, k), ab);
                src = (const unsigned char *)llm_gguf_find_tensor(g, name)->data;
                for (i = 0; i < t->len[slot]; i++) { /* little-endian floats, on any host */
                    uint32_t u = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 | (uint32_t)src[4 * i + 2] << 16 |
                                 (uint32_t)src[4 * i + 3] << 24;
                    memcpy(t->params + t->off[slot] + i, &u, 4);
                }
            }
    t->lora_scale = (float)(alpha / t->lora_rank);
    return LLM_OK;
}
#undef LLM__LFAIL

/* ---- adapters at inference, without merging ------------------------------------------------ */

static llm_status llm__lora_view_base(const llm_config *c, const llm_weights *base, llm_lora_ab *ab,
                                      llm_layer_weights *layers, llm_weights *out) {
    int l;
    if (!c || !base || !base->layers || !ab || !layers || !out || c->n_layers <= 0) return LLM_EINVAL;
    memset(ab, 0, sizeof *ab * (size_t)c->n_layers * LLM__LORA_TARGETS);
    for (l = 0; l < c->n_layers; l++) layers[l] = base->layers[l], layers[l].lora = ab + (size_t)l * LLM__LORA_TARGETS;
    *out = *base;
    out->layers = layers;
    return LLM_OK;
}

LLMDEF llm_status llm_lora_apply(const llm_train *t, const llm_weights *base, llm_lora_ab *ab, llm_layer_weights *layers,
                                 llm_weights *out) {
    int l, k;
    llm_status st;
    if (!t || !t->params || !t->lora_rank) return LLM_EINVAL;
    if ((st = llm__lora_view_base(&t->config, base, ab, layers, out)) != LLM_OK) return st;
    for (l = 0; l < t->config.n_layers; l++)
        for (k = 0; k < LLM__LORA_TARGETS; k++) {
            llm_lora_ab *e = ab + (size_t)l * LLM__LORA_TARGETS + k;
            e->a = llm__tp(t, t->params, llm__lora_at(&t->config, l, k, 0));
            e->b = llm__tp(t, t->params, llm__lora_at(&t->config, l, k, 1));
            e->rank = e->a ? t->lora_rank : 0, e->scale = t->lora_scale;
        }
    return LLM_OK;
}

#define LLM__AFAIL(msg, code) do { if (why) *why = (msg); return (code); } while (0)
LLMDEF llm_status llm_lora_apply_gguf(const llm_gguf *g, const llm_config *c, const llm_weights *base, float user_scale,
                                      llm_lora_ab *ab, llm_layer_weights *layers, llm_weights *out, const char **why) {
    llm_gguf_str v;
    double alpha = 0.0;
    int64_t placed = 0, in, out_d;
    int l, k;
    char name[64];
    llm_status st;
    if (why) *why = "";
    if (!g || !(user_scale == user_scale)) LLM__AFAIL("no GGUF, or a NaN scale", LLM_EINVAL);
    if ((st = llm__lora_view_base(c, base, ab, layers, out)) != LLM_OK) LLM__AFAIL("no config, base or memory", st);
    if (!llm__little_endian()) LLM__AFAIL("big-endian host: the adapter's floats are little-endian", LLM_EUNSUPPORTED);
    if (llm_gguf_get_str(g, "general.type", &v) != LLM_OK || v.n != 7 || memcmp(v.s, "adapter", 7) != 0)
        LLM__AFAIL("general.type is not \"adapter\"", LLM_EFORMAT);
    if (llm_gguf_get_str(g, "adapter.type", &v) != LLM_OK || v.n != 4 || memcmp(v.s, "lora", 4) != 0)
        LLM__AFAIL("adapter.type is not \"lora\"", LLM_EUNSUPPORTED);
    st = llm_gguf_get_float(g, "adapter.lora.alpha", &alpha);
    if ((st != LLM_OK && st != LLM_ENOTFOUND) || !(alpha >= 0.0) || !(alpha < 1e30))
        LLM__AFAIL("adapter.lora.alpha is not a number >= 0", LLM_EFORMAT);
    for (l = 0; l < c->n_layers; l++)
        for (k = 0; k < LLM__LORA_TARGETS; k++) {
            const llm_gguf_tensor *ta, *tb;
            llm_lora_ab *e = ab + (size_t)l * LLM__LORA_TARGETS + k;
            if (llm__lora_slot[k] == LLM__T_W3 && c->ffn == LLM_FFN_GELU) continue;
            llm__lora_tname(name, l, llm__lora_gguf_name(c, k), 0);
            ta = llm_gguf_find_tensor(g, name);
            llm__lora_tname(name, l, llm__lora_gguf_name(c, k), 1);
            tb = llm_gguf_find_tensor(g, name);
            if (!ta && !tb) continue;
            if (c->n_experts > 0 && k >= 4) LLM__AFAIL("an adapter on a mixture of experts' FFN is not run", LLM_EUNSUPPORTED);
            llm__train_dims(c, llm__lora_slot[k], &in, &out_d);
            if (!ta || !tb || ta->type != 0 || tb->type != 0 || ta->n_dims != 2 || tb->n_dims != 2 || ta->ne[0] != in ||
                tb->ne[1] != out_d || ta->ne[1] != tb->ne[0] || ta->ne[1] < 1 || ta->ne[1] > in ||
                (uintptr_t)ta->data % 4 || (uintptr_t)tb->data % 4)
                LLM__AFAIL("a lora_a / lora_b pair is not F32 A {in, r} and B {r, out} of the projection's shape", LLM_EFORMAT);
            e->a = (const float *)ta->data, e->b = (const float *)tb->data, e->rank = (int)ta->ne[1];
            e->scale = alpha > 0.0 ? (float)(user_scale * alpha / (double)e->rank) : user_scale;
            placed += 2;
        }
    if (placed != g->n_tensors) LLM__AFAIL("a tensor that is not a lora_a / lora_b of this model's projections", LLM_EFORMAT);
    return LLM_OK;
}
#undef LLM__AFAIL

/* ---- a trained model as a llama GGUF ---------------------------------------------------- */

static void llm__gw_key(llm__gw *w, const char *k, uint32_t type) { llm__gw_str(w, k), llm__gw_u(w, type, 4); }
static void llm__gw_kv_u32(llm__gw *w, const char *k, uint64_t v) { llm__gw_key(w, k, 4), llm__gw_u(w, v, 4); }
static void llm__gw_kv_f32(llm__gw *w, const char *k, float v) { llm__gw_key(w, k, 6), llm__gw_u(w, llm__f32_bits(v), 4); }
static void llm__gw_kv_bool(llm__gw *w, const char *k, int v) { llm__gw_key(w, k, 7), llm__gw_u(w, v != 0, 1); }
/* an array key's head: GGUF type 9, then the element type and the count */
static void llm__gw_arr(llm__gw *w, const char *k, uint32_t type, uint64_t n) {
    llm__gw_key(w, k, 9), llm__gw_u(w, type, 4), llm__gw_u(w, n, 8);
}

/* Why the llama layout cannot hold this state's model, or NULL */
static const char *llm__train_gguf_refusal(const llm_train *t) {
    const llm_config *c = &t->config;
    if (t->lora_rank) return "a LoRA state: its base lives elsewhere (merge the adapters into it, then save the base)";
    if (c->norm != LLM_NORM_RMS || c->norm_bias) return "the llama layout has RMSNorm without bias only";
    if (c->ffn != LLM_FFN_SWIGLU) return "the llama layout has a SwiGLU FFN only";
    if (c->bias != LLM_BIAS_NONE) return "the llama layout has no biases";
    if (c->pos != LLM_POS_ROPE || c->rope_layout != LLM_ROPE_INTERLEAVED)
        return "the llama layout has interleaved RoPE only (llama.cpp's converter permutes halves into pairs)";
    return NULL;
}

/* The tensor named `name` for block l (-1: a global one) and slot: "blk.<l>.<name>.weight" */
static void llm__train_tname(char *dst, int l, const char *name) { llm__blk_tname(dst, l, name, ".weight"); }

/* The whole file into buf (NULL: only its size). */
static size_t llm__train_gguf_write(const llm_train *t, const llm_gguf_spm *tok, unsigned char *buf) {
    static const struct { int slot; const char *name; } blk[] = {
        {LLM__T_AN, "attn_norm"}, {LLM__T_WQ, "attn_q"}, {LLM__T_WK, "attn_k"}, {LLM__T_WV, "attn_v"},
        {LLM__T_WO, "attn_output"}, {LLM__T_FN, "ffn_norm"}, {LLM__T_W1, "ffn_gate"}, {LLM__T_W2, "ffn_down"},
        {LLM__T_W3, "ffn_up"}};
    const llm_config *c = &t->config;
    int hd = llm_config_head_dim(c), nb = (int)(sizeof blk / sizeof blk[0]), nt = tok ? (tok->pieces ? tok->n_tokens : 256) : 0;
    int l, k, pass, i;
    uint64_t n_t = 0, n_kv = 10, off = 0;
    int64_t slot;
    llm__gw w;
    char name[48];
    w.p = buf, w.n = 0;
    n_t = 2 + (uint64_t)c->n_layers * nb + (t->off[LLM__T_HEAD] >= 0);
    n_kv += (hd * c->n_heads != c->d_model) * 2 + (c->rotary_dim > 0) + (tok ? 6 + (tok->bos >= 0) + (tok->eos >= 0) : 0);
    llm__gw_bytes(&w, "GGUF", 4);
    llm__gw_u(&w, 3, 4), llm__gw_u(&w, n_t, 8), llm__gw_u(&w, n_kv, 8);
    llm__gw_kv_str(&w, "general.architecture", "llama");
    llm__gw_kv_str(&w, "general.name", c->name && strlen(c->name) < 256 ? c->name : "llm.h");
    llm__gw_kv_u32(&w, "llama.context_length", (uint64_t)c->max_seq_len);
    llm__gw_kv_u32(&w, "llama.embedding_length", (uint64_t)c->d_model);
    llm__gw_kv_u32(&w, "llama.block_count", (uint64_t)c->n_layers);
    llm__gw_kv_u32(&w, "llama.feed_forward_length", (uint64_t)c->d_ff);
    llm__gw_kv_u32(&w, "llama.attention.head_count", (uint64_t)c->n_heads);
    llm__gw_kv_u32(&w, "llama.attention.head_count_kv", (uint64_t)c->n_kv_heads);
    llm__gw_kv_f32(&w, "llama.attention.layer_norm_rms_epsilon", c->norm_eps > 0.0f ? c->norm_eps : 1e-5f);
    llm__gw_kv_f32(&w, "llama.rope.freq_base", c->rope_theta > 0.0f ? c->rope_theta : 10000.0f);
    if (hd * c->n_heads != c->d_model) {
        llm__gw_kv_u32(&w, "llama.attention.key_length", (uint64_t)hd);
        llm__gw_kv_u32(&w, "llama.attention.value_length", (uint64_t)hd);
    }
    if (c->rotary_dim > 0) llm__gw_kv_u32(&w, "llama.rope.dimension_count", (uint64_t)c->rotary_dim);
    if (tok) { /* SentencePiece: pieces, scores, types, the special ids and what encoding adds */
        static const char hex[] = "0123456789ABCDEF";
        llm__gw_kv_str(&w, "tokenizer.ggml.model", "llama");
        llm__gw_arr(&w, "tokenizer.ggml.tokens", 8, (uint64_t)nt);
        for (i = 0; i < nt; i++) {
            char bp[7] = {'<', '0', 'x', hex[i >> 4 & 15], hex[i & 15], '>', 0};
            llm__gw_str(&w, tok->pieces ? tok->pieces[i] : bp);
        }
        llm__gw_arr(&w, "tokenizer.ggml.scores", 6, (uint64_t)nt);
        for (i = 0; i < nt; i++) llm__gw_u(&w, llm__f32_bits(tok->pieces && tok->scores ? tok->scores[i] : 0.0f), 4);
        llm__gw_arr(&w, "tokenizer.ggml.token_type", 5, (uint64_t)nt);
        for (i = 0; i < nt; i++)
            llm__gw_u(&w, !tok->pieces ? (uint64_t)LLM_TOKEN_BYTE : tok->types ? (uint64_t)tok->types[i] : (uint64_t)LLM_TOKEN_NORMAL, 4);
        if (tok->bos >= 0) llm__gw_kv_u32(&w, "tokenizer.ggml.bos_token_id", (uint64_t)tok->bos);
        if (tok->eos >= 0) llm__gw_kv_u32(&w, "tokenizer.ggml.eos_token_id", (uint64_t)tok->eos);
        llm__gw_kv_bool(&w, "tokenizer.ggml.add_bos_token", tok->add_bos);
        llm__gw_kv_bool(&w, "tokenizer.ggml.add_space_prefix", tok->add_space_prefix);
    }
    for (pass = 0; pass < 2; pass++) { /* the tensor infos, then (from a 32-byte boundary) their data */
        while (pass == 1 && w.n % 32) llm__gw_u(&w, 0, 1);
        for (k = -1; k <= c->n_layers; k++) /* token_embd, the blocks, output_norm and output */
            for (i = 0; i < (k >= 0 && k < c->n_layers ? nb : k < 0 ? 1 : 2); i++) {
                int64_t in, out;
                l = k >= 0 && k < c->n_layers ? k : -1;
                slot = k < 0 ? LLM__T_EMB : l < 0 ? (i ? LLM__T_HEAD : LLM__T_ON) : LLM__T_GLOBAL + l * LLM__T_LAYER + blk[i].slot;
                if (t->off[slot] < 0) continue;
                if (l >= 0) llm__train_dims(c, blk[i].slot, &in, &out);
                else in = c->d_model, out = slot == LLM__T_ON ? 1 : c->vocab;
                if (l >= 0 && (blk[i].slot == LLM__T_AN || blk[i].slot == LLM__T_FN)) out = 1;
                if (pass == 0)
                    llm__train_tname(name, l, l >= 0 ? blk[i].name : slot == LLM__T_EMB ? "token_embd"
                                                     : slot == LLM__T_ON ? "output_norm" : "output");
                llm__gw_f32_slot(&w, t, slot, pass, name, out > 1 ? 2 : 1, in, out, &off);
            }
    }
    return w.n;
}

/* The vocabulary a caller describes: counts in range, every piece there and short */
static int llm__gguf_spm_ok(const llm_gguf_spm *tok, int vocab) {
    int i, n = tok->pieces ? tok->n_tokens : 256;
    if (n < 1 || n > vocab || (!tok->pieces && tok->n_tokens != 0 && tok->n_tokens != 256) || tok->bos >= n || tok->eos >= n ||
        tok->bos < -1 || tok->eos < -1)
        return 0;
    for (i = 0; tok->pieces && i < n; i++)
        if (!tok->pieces[i] || strlen(tok->pieces[i]) > 65535 || (tok->types && tok->types[i] > LLM_TOKEN_BYTE)) return 0;
    return 1;
}

LLMDEF size_t llm_train_gguf_bytes(const llm_train *t, const llm_gguf_spm *tok) {
    if (!t || !t->params || llm__train_gguf_refusal(t) || (tok && !llm__gguf_spm_ok(tok, t->config.vocab))) return 0;
    return llm__train_gguf_write(t, tok, NULL);
}

LLMDEF llm_status llm_train_save_gguf(const llm_train *t, const llm_gguf_spm *tok, void *buf, size_t cap, size_t *len,
                                      const char **why) {
    const char *no;
    size_t need;
    if (len) *len = 0;
    if (why) *why = "";
    if (!t || !t->params) return LLM_EINVAL;
    if ((no = llm__train_gguf_refusal(t)) != NULL) {
        if (why) *why = no;
        return LLM_EUNSUPPORTED;
    }
    if (tok && !llm__gguf_spm_ok(tok, t->config.vocab)) {
        if (why) *why = "the vocabulary: a count past the model's, a NULL piece or a bad id or type";
        return LLM_EINVAL;
    }
    need = llm__train_gguf_write(t, tok, NULL);
    if (!buf || cap < need) {
        if (why) *why = "buf is smaller than llm_train_gguf_bytes";
        return LLM_EINVAL;
    }
    llm__train_gguf_write(t, tok, (unsigned char *)buf);
    if (len) *len = need;
    return LLM_OK;
}

#endif /* LLM_IMPLEMENTATION */

/*
   llm.h is available under either of the following licenses; choose whichever you prefer.

   ------------------------------------------------------------------------------
   ALTERNATIVE A - MIT License

   Copyright (c) 2026 the llm.h authors

   Permission is hereby granted, free of charge, to any person obtaining a copy of this
   software and associated documentation files (the "Software"), to deal in the Software
   without restriction, including without limitation the rights to use, copy, modify, merge,
   publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
   to whom the Software is furnished to do so, subject to the following conditions:

   The above copyright notice and this permission notice shall be included in all copies or
   substantial portions of the Software.

   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
   INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
   PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
   FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
   OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
   DEALINGS IN THE SOFTWARE.

   ------------------------------------------------------------------------------
   ALTERNATIVE B - Public Domain (www.unlicense.org)

   This is free and unencumbered software released into the public domain. Anyone is free to
   copy, modify, publish, use, compile, sell, or distribute this software, either in source
   code form or as a compiled binary, for any purpose, commercial or non-commercial, and by
   any means.

   In jurisdictions that recognize copyright laws, the author or authors of this software
   dedicate any and all copyright interest in the software to the public domain. We make this
   dedication for the benefit of the public at large and to the detriment of our heirs and
   successors. We intend this dedication to be an overt act of relinquishment in perpetuity
   of all present and future rights to this software under copyright law.

   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
   INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
   PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR ANY CLAIM,
   DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
   FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
   SOFTWARE.
*/
