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
       >>files       llama2.c checkpoints and tokenizer, GGUF (and ggml's block formats),
                     safetensors + Hugging Face config.json, JSON: from memory or a file
       >>tokenizer   Unicode tables, pre-tokenizers, SentencePiece and byte-level BPE

   OPTIONS (#define before including)
   ----------------------------------
       LLM_IMPLEMENTATION  compile the implementation here (exactly one file)
       LLM_STATIC          everything static: vendor a private copy per file (everywhere it is used)
       LLMDEF              decoration of every public function (default: extern, or static with LLM_STATIC)
       LLM_ASSERT(x)       internal invariants only; caller mistakes are status codes (implementation file)
       LLM_MALLOC(n) / LLM_FREE(p)   allocator used by the *_create convenience functions (and by
                           llm_tokenize for long texts); define both or neither (implementation file)
       LLM_SQRTF LLM_EXPF LLM_TANHF LLM_ERFF LLM_ROUNDF LLM_SQRT LLM_POW LLM_COS LLM_SIN
                           libm replacements for firmware: every libm call the implementation
                           makes goes through one of these (implementation file)
       LLM_NO_STDIO        no FILE* functions; load from memory buffers only (everywhere)
       LLM_NO_SIMD         scalar kernels only (implementation file)
       LLM_PTHREADS        real threads in llm_threads (implementation file; link with -pthread)
       LLM_MMAP            POSIX: llm_gguf_load_file and llm_hf_load_dir map the file read-only
                           (mmap) instead of reading it into memory; the weights point into the
                           mapping, which llm_model_free unmaps (implementation file)
       LLM_THREAD_STACK    minimum stack bytes per worker thread (default 1 MiB; kernels keep their
                           tiles on the stack: the calling thread needs ~256 KiB free too)

   llm.h does NOT: run on a GPU, train (yet), download anything, use global state.

   HOW TO EXTEND llm.h
   -------------------
   Each kind of extension touches these places, and nothing else:
     a weight format   1. its llm_dtype value and its row in llm__wfmts (>>weights: name,
                          bits, block layout, check, row-to-fp32, and linear or prep + rows;
                          the table must have a row per value or it does not compile);
                       2. its kernels beside the row (scalar first; SIMD through the vector
                          layer, or a per-ISA kernel chosen where the row names it);
                       3. tests against a double reference of the format's exact values
                          (tests/test_quant.c, tests/test_ggml_quants.c).
     an architecture   config fields (llm_config) with their defaults and checks
                       (llm_config_check; llm_config_runnable refuses what the forward pass
                       cannot run); a row in the kind tables (llm__ffn_kinds, llm__bias_kinds)
                       when it is a new kind; its step in llm__block_forward, driven by the
                       config, never by which pointers are NULL; the estimator's counts
                       (llm_count_params) when it has new parameters; the loaders' mapping
                       (llm_gguf_read_config and its tensor names, llm_hf_read_config); a
                       preset row; tests: the whole-forward double reference in
                       tests/test_model.c and a written file in tests/test_gguf.c / test_hf.c.
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
    int sliding_window;          /* attend to at most this many past positions; 0 = all */
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
   pass does not have yet (mixture-of-experts routing). The estimators take every valid
   config; llm_state_bytes, llm_state_init and llm_block_forward take only runnable ones,
   so an MoE model is refused, never run as if it were dense. */
LLMDEF llm_status llm_config_runnable(const llm_config *c, const char **reason);

/* head_dim, or d_model / n_heads when head_dim is 0. */
LLMDEF int llm_config_head_dim(const llm_config *c);

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
   NVIDIA datacentre cards; mem_bytes is the total the driver reports (nvidia-smi). */
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
   builds agree within float rounding (tests: 1e-5 of sum |x W|). Needs about 180 KiB of
   stack per thread for packing buffers (no heap). LLM_EINVAL for NULL pointers, sizes
   <= 0, or element counts whose byte size overflows a ptrdiff_t. */
LLMDEF llm_status llm_linear(float *y, const float *x, const float *W, const float *b,
                             int n_tokens, int d_in, int d_out, llm_threads *th);
/* The same with W in any llm_weight format (converted or dequantized on the fly).
   LLM_INT8 quantizes x the same way (per group, on ~64 KiB of stack) and multiplies in
   int8 -> int32; group_size at most 16384. ggml's block formats (LLM_Q8_0 .. LLM_Q6_K)
   quantize x to 8-bit blocks of 32 with an fp32 scale (64 KiB of stack; d_in at most
   52,416) and take integer dots per block. LLM_EUNSUPPORTED for other types. */
LLMDEF llm_status llm_linear_w(float *y, const float *x, const llm_weight *W, const float *b,
                               int n_tokens, int d_in, int d_out, llm_threads *th);
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
   w1 (gate) and w3 (up) [d_ff][d], w2 (down) [d][d_ff]; w3 is unused by LLM_FFN_GELU. */
typedef struct llm_layer_weights {
    const float *attn_norm, *attn_norm_b; /* [d]: before attention (after it when post_norm) */
    llm_weight wq, wk, wv, wo;
    const float *bq, *bk, *bv, *bo;
    const float *ffn_norm, *ffn_norm_b;   /* [d]: before the FFN (after it when post_norm) */
    llm_weight w1, w2, w3;
    const float *b1, *b2, *b3;
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

/* Bytes one decode step at position pos reads from memory: every weight it multiplies
   (each matrix once, one embedding row) plus the KV cache rows 0..pos. Decoding is bound
   by this: tok/s <= read bandwidth / bytes. */
LLMDEF double llm_decode_bytes(const llm_config *c, const llm_weights *w, llm_dtype kv_dtype, int pos);

/* Sampling exactly as llama2.c's run.c does it, so a seed reproduces its stories:
   temperature 0 is argmax (the lowest id on ties); otherwise softmax(logits / temperature)
   and then top-p (nucleus) sampling when 0 < topp < 1, else plain multinomial, with
   run.c's xorshift generator (llm_xorshift_u32). The sampler's scratch (the top-p sort)
   lives in caller memory: llm_sampler_bytes(vocab). */
typedef struct llm_sampler {
    int vocab;
    float temperature, topp;
    uint64_t rng;  /* xorshift state: the seed, or LLM_SAMPLER_SEED0 for seed 0 */
    void *scratch; /* 2 * vocab (index, probability) pairs */
    void *owned;
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
   arguments, including a sampler that was freed or never initialized. */
LLMDEF int llm_sample(llm_sampler *s, float *logits);
LLMDEF uint32_t llm_xorshift_u32(uint64_t *state); /* run.c's random_u32 */
LLMDEF float llm_xorshift_f32(uint64_t *state);    /* run.c's random_f32: [0, 1) */

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
   mem: at least that many bytes, 8-byte aligned. buf must outlive g. */
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

/* A model from a GGUF: general.architecture "llama" (Llama 1/2, TinyLlama, llama2.c
   conversions), matrices in F32, F16, BF16 or a ggml block format (Q8_0, Q4_0, Q4_1,
   Q5_0, Q5_1, Q2_K .. Q6_K: used in place), norms F32. Another architecture, tensor type
   (IQ*, TQ*, MXFP4...), a MoE file or a tensor the forward pass would not use
   (rope_freqs, biases) is LLM_EUNSUPPORTED naming it: refused, never run approximately. llm_gguf_read_config fills
   only the config. The weights point into g's buffer, which must outlive the model and
   hold the F32 tensors 4-byte aligned (a GGUF's own 32-byte alignment does, from an
   aligned buffer). layers: caller memory for n_layers_cap entries. g is not changed but
   for g->why, where a reason that names a tensor or key is written. */
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
                                       const char **why);
LLMDEF llm_status llm_safetensors_create(llm_safetensors *st, const void *buf, size_t len, const char **why);
LLMDEF void llm_safetensors_free(llm_safetensors *st);
LLMDEF const llm_st_tensor *llm_safetensors_find(const llm_safetensors *st, const char *name);

/* A Hugging Face config.json to an llm_config: model_type "llama" or "mistral" (SwiGLU,
   RMSNorm, RoPE on halves) and "qwen2" (q/k/v biases); Llama 3's rope_scaling. Anything
   the forward pass does not run (another model_type or hidden_act, attention or MLP
   biases, other RoPE scalings, Qwen2's per-layer windows) is LLM_EUNSUPPORTED naming it. */
LLMDEF llm_status llm_hf_read_config(llm_config *c, const char *json, size_t len, const char **why);
/* The model of a config.json and its model.safetensors, tensors in F32, F16 or BF16.
   llm.h keeps norm gains and biases in fp32: those stored as F16 / BF16 (most HF files)
   are converted into aux, caller memory of llm_hf_aux_floats(c) floats (F32 ones are used
   in place). layers: n_layers_cap entries. st's buffer and aux must outlive the model. */
LLMDEF size_t llm_hf_aux_floats(const llm_config *c);
LLMDEF llm_status llm_hf_load(llm_model *m, const char *config_json, size_t config_len, llm_safetensors *st,
                              llm_layer_weights *layers, int n_layers_cap, float *aux, size_t aux_floats,
                              const char **why);

#ifndef LLM_NO_STDIO
/* The same from files; they allocate (the model: the file's bytes and the layer table;
   a GGUF model also its tables), freed by llm_model_free / llm_tokenizer_free. */
LLMDEF llm_status llm_llama2c_load_file(llm_model *m, const char *path, const char **why);
LLMDEF llm_status llm_tokenizer_load_file(llm_tokenizer *t, const char *path, int vocab, const char **why);
LLMDEF llm_status llm_gguf_load_file(llm_model *m, const char *path, const char **why);
/* A Hugging Face directory: dir/config.json and dir/model.safetensors (one file; sharded
   checkpoints are LLM_EUNSUPPORTED for now). */
LLMDEF llm_status llm_hf_load_dir(llm_model *m, const char *dir, const char **why);
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
   (>>weights, llm__dot_q8), which otherwise fall back to generic code. */

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

/* ---- AVX-512F: 16 lanes, masks for tails ---------------------------------------------- */
#if defined(LLM__AVX512)
#define LLM__RV 1
#define LLM__RV_MASKED 1 /* load_n / store_n are single masked instructions */
typedef __m512 llm__rv;
#define LLM__RVN 16
static inline llm__rv llm__rv_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void llm__rv_store(float *p, llm__rv v) { _mm512_storeu_ps(p, v); }
static inline llm__rv llm__rv_load_n(const float *p, int n) { return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p); }
static inline void llm__rv_store_n(float *p, llm__rv v, int n) { _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v); }
static inline llm__rv llm__rv_set1(float f) { return _mm512_set1_ps(f); }
#define LLM__RV_OP2(op) static inline llm__rv llm__rv_##op(llm__rv a, llm__rv b) { return _mm512_##op##_ps(a, b); }
LLM__RV_BINARY(LLM__RV_OP2)
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return _mm512_fmadd_ps(a, b, c); }
static inline llm__rv llm__rv_abs(llm__rv a) { return _mm512_abs_ps(a); }
static inline llm__rv llm__rv_round(llm__rv a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline llm__rv llm__rv_trunc(llm__rv a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
static inline llm__rv llm__rv_pow2i(llm__rv n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
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
static inline llm__rv llm__rv_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void llm__rv_store(float *p, llm__rv v) { _mm256_storeu_ps(p, v); }
static inline llm__rv llm__rv_set1(float f) { return _mm256_set1_ps(f); }
#define LLM__RV_OP2(op) static inline llm__rv llm__rv_##op(llm__rv a, llm__rv b) { return _mm256_##op##_ps(a, b); }
LLM__RV_BINARY(LLM__RV_OP2)
static inline llm__rv llm__rv_fma(llm__rv a, llm__rv b, llm__rv c) { return _mm256_fmadd_ps(a, b, c); }
static inline llm__rv llm__rv_abs(llm__rv a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline llm__rv llm__rv_round(llm__rv a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline llm__rv llm__rv_trunc(llm__rv a) { return _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
static inline llm__rv llm__rv_pow2i(llm__rv n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
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
    /* The kernels keep their tiles on the stack (GEMM packing ~176 KiB, attention ~140 KiB):
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
#define LLM__DENSE 0, 0, 0
#define LLM__MOE(experts, per_token) experts, per_token, 0
#define LLM__WINDOW(w) w
static const llm_config llm__presets[] = {
    {"gpt2",           LLM__SHAPE(768, 12, 12, 12, 64, 3072, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0)},
    {"gpt2-medium",    LLM__SHAPE(1024, 24, 16, 16, 64, 4096, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0)},
    {"gpt2-large",     LLM__SHAPE(1280, 36, 20, 20, 64, 5120, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0)},
    {"gpt2-xl",        LLM__SHAPE(1600, 48, 25, 25, 64, 6400, 50257, 1024), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0)},
    {"gpt-3-175b",     LLM__SHAPE(12288, 96, 96, 96, 128, 49152, 50257, 2048), LLM__NORM(LAYER, 1, 1e-5f), LLM__FFN(GELU),   LLM__LEARNED_POS,                LLM__HEAD(1), LLM__BIAS(ALL),  LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-2-7b",     LLM__SHAPE(4096, 32, 32, 32, 128, 11008, 32000, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-2-13b",    LLM__SHAPE(5120, 40, 40, 40, 128, 13824, 32000, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-2-70b",    LLM__SHAPE(8192, 80, 64, 8, 128, 28672, 32000, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3-8b",     LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 128256, 8192), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(500000, INTERLEAVED),  LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3-70b",    LLM__SHAPE(8192, 80, 64, 8, 128, 28672, 128256, 8192), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(500000, INTERLEAVED),  LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3.1-8b",   LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 8),     LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3.1-70b",  LLM__SHAPE(8192, 80, 64, 8, 128, 28672, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 8),     LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3.1-405b", LLM__SHAPE(16384, 126, 128, 8, 128, 53248, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 8),     LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3.2-1b",   LLM__SHAPE(2048, 16, 32, 8, 64, 8192, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 32),    LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"llama-3.2-3b",   LLM__SHAPE(3072, 28, 24, 8, 128, 8192, 128256, 131072), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE_LLAMA3(500000, 32),    LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"mistral-7b",     LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 32000, 32768), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, INTERLEAVED),   LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(4096)},
    {"mixtral-8x7b",   LLM__SHAPE(4096, 32, 32, 8, 128, 14336, 32000, 32768), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(1000000, INTERLEAVED), LLM__HEAD(0), LLM__BIAS(NONE), LLM__MOE(8, 2), LLM__WINDOW(0)},
    {"qwen2.5-0.5b",   LLM__SHAPE(896, 24, 14, 2, 64, 4864, 151936, 32768), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(SWIGLU), LLM__ROPE(1000000, HALVES),      LLM__HEAD(1), LLM__BIAS(QKV),  LLM__DENSE,     LLM__WINDOW(0)},
    {"qwen2.5-7b",     LLM__SHAPE(3584, 28, 28, 4, 128, 18944, 152064, 131072), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(SWIGLU), LLM__ROPE(1000000, HALVES),      LLM__HEAD(0), LLM__BIAS(QKV),  LLM__DENSE,     LLM__WINDOW(0)},
    {"tinyllama-1.1b", LLM__SHAPE(2048, 22, 32, 4, 64, 5632, 32000, 2048), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, HALVES),        LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"smollm2-135m",   LLM__SHAPE(576, 30, 9, 3, 64, 1536, 49152, 8192), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(100000, HALVES),       LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"phi-3-mini",     LLM__SHAPE(3072, 32, 32, 32, 96, 8192, 32064, 4096), LLM__NORM(RMS, 0, 1e-5f),   LLM__FFN(SWIGLU), LLM__ROPE(10000, HALVES),        LLM__HEAD(0), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(2047)},
    {"gemma-2b",       LLM__SHAPE(2048, 18, 8, 1, 256, 16384, 256000, 8192), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(GEGLU),  LLM__ROPE(10000, HALVES),        LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
    {"gemma-7b",       LLM__SHAPE(3072, 28, 16, 16, 256, 24576, 256000, 8192), LLM__NORM(RMS, 0, 1e-6f),   LLM__FFN(GEGLU),  LLM__ROPE(10000, HALVES),        LLM__HEAD(1), LLM__BIAS(NONE), LLM__DENSE,     LLM__WINDOW(0)},
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

LLMDEF const llm_config *llm_preset(const char *name) {
    int i;
    if (!name) return NULL;
    for (i = 0; i < LLM__N_PRESETS; i++)
        if (llm__name_eq(name, llm__presets[i].name)) return &llm__presets[i];
    return NULL;
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
    if (c->sliding_window < 0) LLM__REJECT("sliding_window must not be negative");
    /* Every count below is computed in 64 bits; refuse configs where even that would
       wrap. Estimated in double with generous margins (factor 2 on every term). */
    n = (double)c->vocab * c->d_model * 2.0 + (double)c->max_seq_len * c->d_model +
        (double)c->n_layers * ((double)c->d_model * hd * (2.0 * c->n_heads + 2.0 * c->n_kv_heads + 4.0) +
                               3.0 * c->d_model * (double)c->d_ff * (1.0 + c->n_experts + c->n_shared_experts) +
                               (double)c->d_model * (c->n_experts + 8.0) + 2.0 * c->d_ff);
    if (n * 64.0 > 9.2e18) LLM__REJECT("model too large: byte counts would overflow 64 bits");
    return LLM_OK;
}

LLMDEF llm_status llm_config_runnable(const llm_config *c, const char **reason) {
    llm_status st = llm_config_check(c, reason);
    if (st != LLM_OK) return st;
    if (c->n_experts > 0) {
        if (reason) *reason = "mixture of experts (n_experts > 0): the forward pass has no expert routing yet";
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
                (+ ff + d biases for ALL); MoE: that per expert, plus a d x E router
     norms      2 per block (pre-attention, pre-FFN), d each, 2 d with LayerNorm bias
   plus the embedding V d, learned positions ctx d, one final norm and the LM head V d
   unless tied. GPT-2 small: 12 (12 d^2 + 13 d) + V d + 1024 d + 2 d = 124,439,808. */
LLMDEF llm_params llm_count_params(const llm_config *c) {
    llm_params p;
    uint64_t d, q, kv, ff, mats, attn_w, attn_b, ffn_one, ffn_b_one, experts, ffn_w, ffn_b, router, norm_one;
    uint64_t L, active_experts, active_ffn_w;
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
    experts = c->n_experts ? (uint64_t)c->n_experts + (uint64_t)c->n_shared_experts : 1;
    active_experts = c->n_experts ? (uint64_t)c->n_experts_per_tok + (uint64_t)c->n_shared_experts : 1;
    router = c->n_experts ? d * (uint64_t)c->n_experts : 0;
    ffn_w = experts * ffn_one + router;
    ffn_b = experts * ffn_b_one;
    active_ffn_w = active_experts * ffn_one + router;

    norm_one = c->norm_bias ? 2 * d : d;

    p.per_layer = attn_w + attn_b + ffn_w + ffn_b + 2 * norm_one;
    p.attention = L * (attn_w + attn_b);
    p.ffn = L * (ffn_w + ffn_b);
    p.norm = L * 2 * norm_one + norm_one; /* + the final norm */
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
       (2 T qdim) */
    if (c->sliding_window > 0 && T > c->sliding_window) {
        /* each token sees at most W keys; causal: the first W tokens see 1..W */
        double W = c->sliding_window;
        f.attention = 4.0 * c->n_layers * qdim * (causal ? W - W * (W - 1) / (2.0 * T) : W);
    } else {
        f.attention = 4.0 * c->n_layers * T * qdim * (causal ? 0.5 : 1.0);
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
    int i;
    if (!name) return NULL;
    for (i = 0; i < LLM__N_GPUS; i++)
        if (llm__name_eq(name, llm__gpus[i].name)) return &llm__gpus[i];
    return NULL;
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
    if (!(p->gpu->mem_bytes > 0) || !(p->gpu->bf16_tflops > 0) || !(p->gpu->bandwidth_gbs > 0))
        LLM__REJECT("GPU memory, TFLOPS and bandwidth must be positive");
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
        double w = llm_weight_bytes(c, p->weights) / n_gpus;
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
        r->decode_seconds = (w * active + kv) / (p->gpu->bandwidth_gbs * 1e9);
        /* The prompt: batch x seq tokens, causal attention, at best at peak FLOP/s. */
        r->prefill_flops = f.forward * (double)seq * (double)p->batch;
        r->prefill_seconds = r->prefill_flops / (n_gpus * p->gpu->bf16_tflops * 1e12);
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
        r->prefill_seconds = r->prefill_flops / (p->gpu->bf16_tflops * 1e12);
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
        q = *p;
        if (llm_dtype_bits(p->weights) > 8.5) {
            q.weights = LLM_Q8_32; /* 8-bit blocks with their scales, 8.5 bits */
            llm__advise(r, &q, LLM_ADVICE_WEIGHTS_DTYPE, LLM_Q8_32);
        }
        if (llm_dtype_bits(p->weights) > 4.5) {
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

/* The register tile of each ISA, MR rows x NR = NV vectors of C, and how the micro-kernel
   gets a[i] into every lane: x86 broadcasts it from memory; NEON loads the MR values of
   A as two vectors and multiplies by a lane (fmla by element), 2 loads instead of 8.
   LLM__MK_ROWS(X) and LLM__MK_COLS(X, i) list the rows and the row's vectors, so the
   micro-kernel below is written once with every accumulator a named register variable
   (arrays of them end up on the stack). */
#if defined(LLM__AVX512)
#define LLM__MR 8
#define LLM__NV 3 /* 24 zmm accumulators + 3 of B + 1 broadcast, of 32 */
#elif defined(LLM__AVX2)
#define LLM__MR 6
#define LLM__NV 2 /* 12 ymm accumulators + 2 + 1, of 16 */
#elif defined(LLM__NEON)
#define LLM__MR 8
#define LLM__NV 3 /* 24 q-register accumulators + 3 of B + 2 of A, of 32 */
#define LLM__MK_LOAD_A(a) llm__rv a0 = vld1q_f32(a), a1 = vld1q_f32((a) + 4);
#define LLM__MK_A(a, i) vdupq_laneq_f32((i) < 4 ? a0 : a1, (i) & 3)
#else
#define LLM__MR 4
#define LLM__NV 8 /* the scalar kernel: one float per "vector" */
#endif
#ifndef LLM__MK_A
#define LLM__MK_LOAD_A(a)
#define LLM__MK_A(a, i) llm__rv_set1((a)[i])
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
#ifndef LLM__MC
#define LLM__MC (LLM__MR * ((128 + LLM__MR - 1) / LLM__MR)) /* >= 128 tokens: a prefill chunk packs W once */
#endif
#ifndef LLM__NC
#define LLM__NC (LLM__NR * (48 / LLM__NR))
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

/* ---- the micro-kernel: C[MR][NR] = acc ? C + A B : bias + A B, A B over kc packed steps.
   a: packed [kc][MR], b: packed [kc][NR]; bias: NR values or NULL (= zeros). Per k: NV
   loads of B, MR broadcasts of A, MR x NV independent FMAs (the register tile above). */
#ifdef LLM__MK_ROWS
#define LLM__MK_ZERO(i, j) llm__rv c##i##j = llm__rv_set1(0.0f);
#define LLM__MK_ZEROS(i) LLM__MK_COLS(LLM__MK_ZERO, i)
#define LLM__MK_FMA(i, j) c##i##j = llm__rv_fma(t, b##j, c##i##j);
#define LLM__MK_ROW(i)            \
    t = LLM__MK_A(a, i);          \
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
static void llm__kernel(int kc, const float *a, const float *b, float *c, ptrdiff_t ldc, const float *bias,
                        int acc, llm__pf pf) {
    llm__rv t;
    int k;
    LLM__MK_COLS(LLM__MK_DECL_B, 0)
    LLM__MK_ROWS(LLM__MK_ZEROS)
    for (k = 0; k < kc; k++, a += LLM__MR, b += LLM__NR) {
        LLM__MK_LOAD_A(a)
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

/* C rows [m0, m1) x columns [n0, n1), using the caller's packing buffers. */
static void llm__gemm_range(const llm__gemm *g, float *ap, float *bp, int m0, int m1, int n0, int n1) {
    int pc, ic, jc, ir, jr, i, j, kc, mc, nc, mr, nr, acc;
    /* (blocks advance by their own size, so no index ever passes INT_MAX) */
    for (pc = 0; pc < g->k; pc += kc) {
        acc = pc > 0;
        kc = g->k - pc < LLM__KC ? g->k - pc : LLM__KC;
        for (ic = m0; ic < m1; ic += mc) {
            mc = m1 - ic < LLM__MC ? m1 - ic : LLM__MC;
            llm__pack_a(ap, g->a + (ptrdiff_t)ic * g->lda + pc, g->lda, mc, kc);
            for (jc = n0; jc < n1; jc += nc) {
                nc = n1 - jc < LLM__NC ? n1 - jc : LLM__NC;
                const float *bsrc = g->b_trans ? g->b + (ptrdiff_t)jc * g->ldb + pc : g->b + (ptrdiff_t)pc * g->ldb + jc;
                if (g->b_trans)
                    llm__pack_w(bp, bsrc, g->ldb, kc, nc);
                else
                    llm__pack_b(bp, bsrc, g->ldb, kc, nc);
                /* the next block: next columns, else the next rows or k */
                int npc = pc, njc, nkc, nnc, q = 0;
                int nq = ((mc + LLM__MR - 1) / LLM__MR) * ((nc + LLM__NR - 1) / LLM__NR); /* kernel calls */
                const float *nb;
                if (jc + nc < n1) {
                    njc = jc + nc;
                } else { /* the last column block: back to n0, and after the last row block, next k */
                    njc = n0;
                    if (ic + mc >= m1) npc = pc + kc;
                }
                nkc = g->k - npc < LLM__KC ? g->k - npc : LLM__KC;
                nnc = n1 - njc < LLM__NC ? n1 - njc : LLM__NC;
                nb = npc >= g->k ? NULL
                     : g->b_trans ? g->b + (ptrdiff_t)njc * g->ldb + npc
                                  : g->b + (ptrdiff_t)npc * g->ldb + njc;
                for (ir = 0; ir < mc; ir += mr) {
                    mr = mc - ir < LLM__MR ? mc - ir : LLM__MR;
                    const float *as = ap + (ptrdiff_t)ir * kc;
                    for (jr = 0; jr < nc; jr += nr, q++) {
                        nr = nc - jr < LLM__NR ? nc - jr : LLM__NR;
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

/* Rows r..r+3 of W against tokens t0..t0+nt-1 (nt <= 4) in one pass over the rows:
   4 x 4 accumulators, so each W vector loaded feeds 4 FMAs and each x vector 4 more.
   A group of fewer than 4 tokens repeats its first token and stores only the real ones. */
static void llm__gemv_4x4(const llm__gemv *g, int r, int t0, int nt) {
    const int k = g->k;
    const float *w0 = g->w + (ptrdiff_t)r * k, *w1 = w0 + k, *w2 = w1 + k, *w3 = w2 + k;
    const float *x0 = g->x + (ptrdiff_t)t0 * k, *x1 = nt > 1 ? x0 + k : x0;
    const float *x2 = nt > 2 ? x0 + 2 * (ptrdiff_t)k : x0, *x3 = nt > 3 ? x0 + 3 * (ptrdiff_t)k : x0;
    llm__rv a00 = llm__rv_set1(0.0f), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
    llm__rv a20 = a00, a21 = a00, a22 = a00, a23 = a00, a30 = a00, a31 = a00, a32 = a00, a33 = a00;
    float s[4][4];
    int i, rr, tt;
    for (i = 0; k - i >= LLM__RVN; i += LLM__RVN) {
        llm__rv xa = llm__rv_load(x0 + i), xb = llm__rv_load(x1 + i), xc = llm__rv_load(x2 + i), xd = llm__rv_load(x3 + i), v;
#define LLM__ROW4(r)                 \
    v = llm__rv_load(w##r + i);        \
    a##r##0 = llm__rv_fma(v, xa, a##r##0); \
    a##r##1 = llm__rv_fma(v, xb, a##r##1); \
    a##r##2 = llm__rv_fma(v, xc, a##r##2); \
    a##r##3 = llm__rv_fma(v, xd, a##r##3);
        LLM__ROW4(0) LLM__ROW4(1) LLM__ROW4(2) LLM__ROW4(3)
#undef LLM__ROW4
    }
    llm__vsum4(a00, a01, a02, a03, s[0]);
    llm__vsum4(a10, a11, a12, a13, s[1]);
    llm__vsum4(a20, a21, a22, a23, s[2]);
    llm__vsum4(a30, a31, a32, a33, s[3]);
    for (; i < k; i++) { /* the k % LLM__RVN tail */
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
    int64_t groups = ((int64_t)g->n + 15) / 16, e0 = groups * ith / nth * 16, e1 = groups * (ith + 1) / nth * 16;
    int r0 = (int)e0, r1 = e1 < g->n ? (int)e1 : g->n, r, t;
    if (r0 >= r1) return;
    if (g->n_tokens == 1) {
        llm__gemv_1(g->y, g->x, g->w, g->bias, g->k, r0, r1);
        return;
    }
    /* a few tokens: 4 rows at a time, all tokens while those rows are in cache */
    for (r = r0; r1 - r >= 4; r += 4)
        for (t = 0; t < g->n_tokens; t += 4) llm__gemv_4x4(g, r, t, g->n_tokens - t < 4 ? g->n_tokens - t : 4);
    for (; r < r1; r++)
        for (t = 0; t < g->n_tokens; t++)
            g->y[(ptrdiff_t)t * g->n + r] =
                (g->bias ? g->bias[r] : 0.0f) + llm__dot(g->w + (ptrdiff_t)r * g->k, g->x + (ptrdiff_t)t * g->k, g->k);
}

/* ---- entry points ------------------------------------------------------------------------ */

/* C[m][n] = A[m][k] B + bias, B = W[n][k] transposed (b_trans) or B[k][n] as stored. */
static void llm__gemm_run(float *c, const float *a, const float *b, const float *bias, int m, int k, int n, int b_trans,
                          llm_threads *th) {
    llm__gemm g = {c, a, b, bias, m, k, n, b_trans, k, b_trans ? k : n, n}; /* lda, ldb, ldc last */
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

/* ggml's block formats: their whole-layer kernel and row lookup live in >>files with the
   GGUF reader (llm__linear_q and llm__row_ggml). */
static llm_status llm__linear_q(float *y, const float *x, const llm_weight *W, const float *b, int n_tokens, int d_in,
                                int d_out, llm_threads *th);
static void llm__row_ggml(float *dst, const llm_weight *w, int64_t row, int n);
static llm_status llm__check_blk(const llm_weight *w, int d_in);

/* ---- the weight-format table ----------------------------------------------------------
   One row per llm_dtype with what every user of a format reads (ggml's type_traits is the
   model): llm_dtype_name / _bits (the estimators), llm_linear_w, the model's embedding
   lookup and byte count, the KV cache's element size. A stored row of `in` values is
   in / blk blocks of blk_bytes each in llm_weight.data (values, and any scales kept inside
   the block as ggml's Q8_0 / Q4_K do), plus, for scales == LLM__SCALE_GROUP, one fp32 per
   group_size values in llm_weight.scale. Adding a format: one row here, its kernels
   (check, row, and prep / dot / dot4 or linear), and tests.

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
typedef struct llm__wfmt {
    const char *name;
    double bits;   /* per value, in-block scales included (Q8_32: 8 + 16 / 32) */
    int blk;       /* values per block in data (1: element formats); 0: no stored layout yet */
    int blk_bytes; /* bytes per block in data */
    int scales;    /* LLM__SCALE_NONE, or LLM__SCALE_GROUP: separate fp32 per group_size values */
    llm_status (*check)(const llm_weight *w, int d_in);               /* layout valid for rows of d_in */
    void (*row)(float *dst, const llm_weight *w, int64_t row, int n); /* one row of n values as fp32 */
    llm_status (*linear)(float *y, const float *x, const llm_weight *w, const float *b, int n_tokens, int d_in,
                         int d_out, llm_threads *th); /* a whole linear layer, or NULL: panels below */
    void (*prep)(llm__lw *c);                                          /* convert the panel, or NULL */
    void (*rows)(const llm__lw *c, int r, int nr, size_t pf);          /* rows r..r+nr against the panel */
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
    float o[LLM__WR * LLM__WT], bias[LLM__WR];
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
                                  int d_out, llm_threads *th) {
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

static const llm__wfmt llm__wfmts[] = {
    /* name     bits blk bytes scales            check           row            linear           prep          rows */
    {"f32",     32,  1,  4,    LLM__SCALE_NONE,  llm__check_any, llm__row_f32,  llm__linear_f32, NULL,         NULL},
    {"f16",     16,  1,  2,    LLM__SCALE_NONE,  llm__check_any, llm__row_f16,  NULL,            NULL,         llm__rows_f16},
    {"bf16",    16,  1,  2,    LLM__SCALE_NONE,  llm__check_any, llm__row_bf16, NULL,            NULL,         llm__rows_bf16},
    {"int8",    8,   1,  1,    LLM__SCALE_GROUP, llm__check_q8,  llm__row_q8,   NULL,            llm__prep_q8, llm__rows_q8},
    {"int4",    4,   0,  0,    LLM__SCALE_NONE,  NULL,           NULL,          NULL,            NULL,         NULL},
    /* ggml's block formats (scales inside the blocks): the whole layer in llm__linear_q */
    {"q8_32",   8.5,    32,  34,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q4_32",   4.5,    32,  18,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q4_1",    5.0,    32,  20,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q5_0",    5.5,    32,  22,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q5_1",    6.0,    32,  24,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q2_k",    2.625,  256, 84,  LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q3_k",    3.4375, 256, 110, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q4_k",    4.5,    256, 144, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q5_k",    5.5,    256, 176, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
    {"q6_k",    6.5625, 256, 210, LLM__SCALE_NONE, llm__check_blk, llm__row_ggml, llm__linear_q, NULL, NULL},
};
/* one row per llm_dtype, in its order: a format added to the enum without its row fails here */
typedef char llm__wfmt_rows[sizeof llm__wfmts / sizeof llm__wfmts[0] == (size_t)LLM_DTYPE_COUNT ? 1 : -1];

/* The row of t, or NULL for a value outside the enum. */
static const llm__wfmt *llm__wfmt_of(llm_dtype t) { return (int)t >= 0 && (int)t < (int)LLM_DTYPE_COUNT ? &llm__wfmts[t] : NULL; }

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
    const llm__wfmt *f = W ? llm__wfmt_of(W->type) : NULL;
    int8_t xq[LLM__Q8_XMAX];
    float xs[LLM__Q8_GMAX];
    int32_t xc[LLM__Q8_GMAX];
    int kp, tp;
    llm_status st;
    if (!y || !x || !W || !W->data || n_tokens <= 0 || d_in <= 0 || d_out <= 0) return LLM_EINVAL;
    if (!f || !f->check || (!f->linear && !f->rows)) return LLM_EUNSUPPORTED;
    if ((st = f->check(W, d_in)) != LLM_OK) return st;
    if (f->linear) return f->linear(y, x, W, b, n_tokens, d_in, d_out, th);
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
    size_t bytes;
    void *mem;
    llm_status st;
    if (!r) return LLM_EINVAL;
    memset(r, 0, sizeof *r);
    bytes = llm_rope_bytes(llm__rope_head_dim(c), max_pos);
    if (!bytes) return LLM_EINVAL;
    mem = LLM_MALLOC(bytes);
    if (!mem) return LLM_ENOMEM;
    st = llm_rope_init_config(r, mem, bytes, c, max_pos);
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
            if (r->layout == LLM_ROPE_INTERLEAVED) {
                for (i = 0; i < half; i++) {
                    float xa = xh[2 * i], xb = xh[2 * i + 1];
                    xh[2 * i] = xa * cs[i] - xb * sn[i];
                    xh[2 * i + 1] = xa * sn[i] + xb * cs[i];
                }
            } else {
                for (i = 0; i < half; i++) {
                    float xa = xh[i], xb = xh[i + half];
                    xh[i] = xa * cs[i] - xb * sn[i];
                    xh[i + half] = xa * sn[i] + xb * cs[i];
                }
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
    st = llm_kv_cache_init(kv, llm__align64(raw), (size_t)bytes, c, capacity, dtype);
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

/* fp16 <-> fp32 rows, the cache's two conversions. Loading is >>weights' llm__rv_load_f16
   (the one place an ISA's fp16 load is spelled); storing has an instruction on AVX-512,
   F16C and NEON, all rounding to nearest even like llm_f32_to_f16: the same bits. */
static void llm__f16_to_f32_row(float *dst, const uint16_t *src, size_t n) {
    size_t i = 0;
#ifdef LLM__RV
    for (; i < n / LLM__RVN * LLM__RVN; i += LLM__RVN) llm__rv_store(dst + i, llm__rv_load_f16(src + i));
#endif
    for (; i < n; i++) dst[i] = llm_f16_to_f32(src[i]);
}

static void llm__f32_to_f16_row(uint16_t *dst, const float *src, size_t n) {
    size_t i = 0;
#if defined(LLM__AVX512)
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#elif defined(LLM__AVX2) && defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#elif defined(LLM__NEON)
    for (; i + 4 <= n; i += 4) vst1_u16(dst + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(src + i))));
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
    for (j = n; j % LLM__ATT_W; j++) p[j] = 0.0f;
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
static llm_status llm__model_check(const llm_config *c) {
    int hd;
    llm_status st = llm_config_runnable(c, NULL);
    if (st != LLM_OK) return st;
    hd = llm_config_head_dim(c);
    if (hd <= 0) return LLM_EINVAL;
    if (c->d_model > (1 << 20) || c->d_ff > (1 << 22) || c->n_layers > 4096 || c->vocab > (1 << 24) ||
        (int64_t)c->n_heads * hd > (1 << 22))
        return LLM_EINVAL;
    return LLM_OK;
}

/* Rounded up to a 64-byte boundary (one cache line, one AVX-512 vector). */
#define LLM__MALIGN(n) ((((uint64_t)(n)) + 63u) & ~(uint64_t)63u)

/* Attention below LLM__PAR_MIN_WORK multiply-adds runs on the caller's thread (the
   kernels apply the same rule to every linear layer). */
static llm_threads *llm__model_th(llm_threads *th, int64_t work) { return work >= LLM__PAR_MIN_WORK ? th : NULL; }

static llm_status llm__model_lin(float *y, const float *x, const llm_weight *W, const float *b, int n, int d_in,
                           int d_out, llm_threads *th) {
    return llm_linear_w(y, x, W, b, n, d_in, d_out, th);
}

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
    return LLM_OK;
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
   att [n][q_dim] attention output, hb and hb2 [n][d_ff] FFN hidden. */
typedef struct llm__model_buf {
    float *xb, *q, *k, *v, *att, *hb, *hb2;
} llm__model_buf;

static uint64_t llm__model_block_layout(const llm_config *c, int n, void *mem, llm__model_buf *b) {
    uint64_t hd = (uint64_t)llm_config_head_dim(c), d = (uint64_t)c->d_model, qd = (uint64_t)c->n_heads * hd;
    uint64_t kvd = (uint64_t)c->n_kv_heads * hd, ff = (uint64_t)c->d_ff, nn = (uint64_t)n;
    uint64_t sizes[7], off = 0;
    float **dst[7];
    int i;
    sizes[0] = nn * d, sizes[1] = nn * qd, sizes[2] = nn * kvd, sizes[3] = nn * kvd;
    sizes[4] = nn * qd, sizes[5] = nn * ff, sizes[6] = nn * ff;
    if (b) {
        dst[0] = &b->xb, dst[1] = &b->q, dst[2] = &b->k, dst[3] = &b->v;
        dst[4] = &b->att, dst[5] = &b->hb, dst[6] = &b->hb2;
    }
    for (i = 0; i < 7; i++) {
        if (mem && b) *dst[i] = (float *)(void *)((char *)mem + off);
        off += LLM__MALIGN(sizes[i] * sizeof(float));
    }
    return off + 64; /* room to align the start */
}

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

#define LLM__MTRY(expr)                                                                                \
    do {                                                                                             \
        llm_status llm__st = (expr);                                                                 \
        if (llm__st != LLM_OK) return llm__st;                                                       \
    } while (0)

static llm_status llm__block_forward(const llm_config *c, const llm_layer_weights *w, const llm_rope *rope,
                                    llm_kv_cache *kv, int layer, float *x, int n, int pos, void *scratch,
                                    llm_threads *th) {
    llm__model_buf b;
    const float *in;
    int d, hd, qd, kvd, ff, i;
    int64_t work;
    const llm__ffn_info *ffn;
    memset(&b, 0, sizeof b); /* gcc -O3 cannot see llm__model_block_layout fills it (-Wmaybe-uninitialized) */
    LLM__MTRY(llm__model_check(c));
    if (!w || !kv || !x || !scratch || n <= 0 || pos < 0 || layer < 0 || layer >= kv->n_layers) return LLM_EINVAL;
    ffn = &llm__ffn_kinds[c->ffn];
    d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    if (kv->n_kv_heads != c->n_kv_heads || kv->head_dim != hd) return LLM_EINVAL;
    if (c->pos == LLM_POS_ROPE && (!rope || rope->head_dim != hd)) return LLM_EINVAL;
    if ((int64_t)pos + n > kv->capacity) return LLM_EFULL;
    if (pos > kv->len) return LLM_ERANGE;
    LLM__MTRY(llm__layer_check(c, w));
    llm__model_block_layout(c, n, llm__align64(scratch), &b);

    /* ---- attention sub-layer: x += Wo Attention(RoPE(Wq h), RoPE(Wk h), Wv h) ---- */
    /* h = Norm(x) before the sub-layer (pre-norm), or x itself (post-norm) */
    if (c->post_norm) {
        in = x;
    } else {
        LLM__MTRY(llm__model_norm(c, b.xb, x, w->attn_norm, w->attn_norm_b, n, d));
        in = b.xb;
    }
    /* q: [n][n_heads][hd], k and v: [n][n_kv_heads][hd] */
    LLM__MTRY(llm__model_lin(b.q, in, &w->wq, w->bq, n, d, qd, th));
    LLM__MTRY(llm__model_lin(b.k, in, &w->wk, w->bk, n, d, kvd, th));
    LLM__MTRY(llm__model_lin(b.v, in, &w->wv, w->bv, n, d, kvd, th));
    /* rotate q and k by their absolute positions: q.k then depends only on the offset */
    if (c->pos == LLM_POS_ROPE) {
        LLM__MTRY(llm_rope_apply_tokens(rope, b.q, n, c->n_heads, pos));
        LLM__MTRY(llm_rope_apply_tokens(rope, b.k, n, c->n_kv_heads, pos));
    }
    /* keys and values of these positions join the cache; queries attend over 0..pos+i */
    LLM__MTRY(llm_kv_cache_write(kv, layer, pos, b.k, b.v, n));
    work = (int64_t)n * qd * (pos + n);
    LLM__MTRY(llm_attention_cache(b.att, b.q, kv, layer, n, pos, c->n_heads, c->sliding_window,
                                 llm__model_th(th, work)));
    /* project the heads back to d and add to the residual stream */
    LLM__MTRY(llm__model_lin(b.xb, b.att, &w->wo, w->bo, n, qd, d, th));
    LLM__MTRY(llm__model_add(x, b.xb, n, d));
    if (c->post_norm) LLM__MTRY(llm__model_norm(c, x, x, w->attn_norm, w->attn_norm_b, n, d));

    /* ---- feed-forward sub-layer: x += W2 act(W1 h) [* W3 h] ---- */
    if (c->post_norm) {
        in = x;
    } else {
        LLM__MTRY(llm__model_norm(c, b.xb, x, w->ffn_norm, w->ffn_norm_b, n, d));
        in = b.xb;
    }
    /* hb: [n][d_ff] gate (or the only hidden projection of a plain MLP) */
    LLM__MTRY(llm__model_lin(b.hb, in, &w->w1, w->b1, n, d, ff, th));
    if (ffn->matrices == 2) {
        for (i = 0; i < n; i++) LLM__MTRY(ffn->act(b.hb + (size_t)i * ff, b.hb + (size_t)i * ff, ff));
    } else {
        /* gated: hb = act(gate) * up, Shazeer 2020 (SwiGLU: act = SiLU; GEGLU: GELU) */
        LLM__MTRY(llm__model_lin(b.hb2, in, &w->w3, w->b3, n, d, ff, th));
        for (i = 0; i < n; i++)
            LLM__MTRY(ffn->glu(b.hb + (size_t)i * ff, b.hb + (size_t)i * ff, b.hb2 + (size_t)i * ff, ff));
    }
    /* down-projection back to d and the second residual add */
    LLM__MTRY(llm__model_lin(b.xb, b.hb, &w->w2, w->b2, n, ff, d, th));
    LLM__MTRY(llm__model_add(x, b.xb, n, d));
    if (c->post_norm) LLM__MTRY(llm__model_norm(c, x, x, w->ffn_norm, w->ffn_norm_b, n, d));
    return LLM_OK;
}

LLMDEF llm_status llm_block_forward(const llm_config *c, const llm_layer_weights *w, const llm_rope *rope,
                                   llm_kv_cache *kv, int layer, float *x, int n, int pos, void *scratch,
                                   llm_threads *th) {
    int len0 = kv ? kv->len : 0;
    llm_status st = llm__block_forward(c, w, rope, kv, layer, x, n, pos, scratch, th);
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
    size_t need;
    void *mem;
    llm_status st;
    if (!s) return LLM_EINVAL;
    memset(s, 0, sizeof *s);
    LLM__MTRY(llm__model_check(c));
    need = llm_state_bytes(c, capacity, max_tokens, kv_dtype);
    if (need == 0) return LLM_EINVAL;
    mem = LLM_MALLOC(need);
    if (!mem) return LLM_ENOMEM;
    st = llm_state_init(s, mem, need, c, capacity, max_tokens, kv_dtype);
    if (st != LLM_OK) {
        LLM_FREE(mem);
        memset(s, 0, sizeof *s);
        return st;
    }
    s->owned = mem;
    return LLM_OK;
}

LLMDEF void llm_state_free(llm_state *s) {
    if (!s) return;
    if (s->owned) LLM_FREE(s->owned);
    memset(s, 0, sizeof *s);
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
            if (w->out_norm) {
                LLM__MTRY(llm__model_norm(c, xb, h, w->out_norm, w->out_norm_b, nr, d));
                h = xb;
            }
            LLM__MTRY(llm__model_lin(dst, h, &w->lm_head, NULL, nr, d, V, th));
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

static double llm__model_wbytes(const llm_weight *w, double n) { /* the blocks, plus separate group scales */
    const llm__wfmt *f = llm__wfmt_of(w->type);
    if (!f) return 0;
    if (f->blk <= 0) return n * f->bits / 8;
    return n / f->blk * f->blk_bytes + (f->scales == LLM__SCALE_GROUP && w->group_size > 0 ? 4 * n / w->group_size : 0);
}

LLMDEF double llm_decode_bytes(const llm_config *c, const llm_weights *w, llm_dtype kv_dtype, int pos) {
    double d, hd, qd, kvd, ff, total, kv_row, bias;
    int l, nb;
    if (llm__model_check(c) != LLM_OK || !w || !w->layers || pos < 0) return 0;
    d = c->d_model, hd = llm_config_head_dim(c), qd = c->n_heads * hd, kvd = c->n_kv_heads * hd, ff = c->d_ff;
    nb = c->norm_bias ? 2 : 1;
    total = llm__model_wbytes(&w->tok_embed, d) + llm__model_wbytes(&w->lm_head, (double)c->vocab * d);
    if (w->out_norm) total += 4 * d * nb;
    if (c->pos == LLM_POS_LEARNED) total += 4 * d;
    /* the bias vectors the config names: q, k, v; the output projection and the FFN's */
    bias = (llm__bias_kinds[c->bias].qkv ? qd + 2 * kvd : 0) +
           (llm__bias_kinds[c->bias].rest ? d + ff * (llm__ffn_kinds[c->ffn].matrices - 1) + d : 0);
    for (l = 0; l < c->n_layers; l++) {
        const llm_layer_weights *L = &w->layers[l];
        total += 4 * 2 * d * nb + 4 * bias;
        total += llm__model_wbytes(&L->wq, qd * d) + llm__model_wbytes(&L->wk, kvd * d) +
                 llm__model_wbytes(&L->wv, kvd * d) + llm__model_wbytes(&L->wo, d * qd);
        total += llm__model_wbytes(&L->w1, ff * d) + llm__model_wbytes(&L->w2, d * ff);
        if (llm__ffn_kinds[c->ffn].matrices == 3) total += llm__model_wbytes(&L->w3, ff * d);
    }
    /* attention reads K and V of positions 0..pos in every layer */
    kv_row = kvd * (kv_dtype == LLM_INT8 ? 1.0 : llm_dtype_bytes(kv_dtype)) + (kv_dtype == LLM_INT8 ? 4.0 * c->n_kv_heads : 0);
    total += 2.0 * c->n_layers * kv_row * (pos + 1);
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
    if (m->owned) LLM_FREE(m->owned);
    memset(m, 0, sizeof *m);
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
    llm_status st;
    if (!s || need == 0) return LLM_EINVAL;
    mem = LLM_MALLOC(need);
    if (!mem) return LLM_ENOMEM;
    st = llm_sampler_init(s, mem, need, vocab, temperature, topp, seed);
    if (st != LLM_OK) {
        LLM_FREE(mem);
        return st;
    }
    s->owned = mem;
    return LLM_OK;
}

LLMDEF void llm_sampler_free(llm_sampler *s) {
    if (!s) return;
    if (s->owned) LLM_FREE(s->owned);
    memset(s, 0, sizeof *s);
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

LLMDEF int llm_sample(llm_sampler *s, float *logits) {
    int n, i;
    float maxv, sum, coin;
    if (!s || !logits || s->vocab <= 0 || !s->scratch) return -1;
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
    w.layers = layers;
    memset(m, 0, sizeof *m);
    m->config = c;
    m->weights = w;
    m->file_version = ver;
    return LLM_OK;
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
    if (!t || need == 0) LLM__FFAIL(why, "no tokenizer or vocab out of range", LLM_EINVAL);
    mem = LLM_MALLOC(need);
    if (!mem) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    st = llm_tokenizer_init(t, mem, need, buf, len, vocab, why);
    if (st != LLM_OK) {
        LLM_FREE(mem);
        memset(t, 0, sizeof *t);
        return st;
    }
    t->owned = mem;
    return LLM_OK;
}

LLMDEF void llm_tokenizer_free(llm_tokenizer *t) {
    if (!t) return;
    if (t->owned) LLM_FREE(t->owned);
    memset(t, 0, sizeof *t);
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
#define LLM__GGML_F32 0u
#define LLM__GGML_F16 1u
#define LLM__GGML_BF16 30u

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
static void llm__dq_q5(const unsigned char *b, float *y, int with_min) {
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
static void llm__k4_scale_min(int j, const unsigned char *q, int *sc, int *mn) {
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

LLMDEF llm_status llm_gguf_dequantize(uint32_t type, const void *src, float *dst, int64_t n) {
    const unsigned char *b = (const unsigned char *)src;
    const llm__ggml_type *ty = type < 40 ? &llm__ggml_types[type] : NULL;
    int64_t i;
    if (!src || !dst || n < 0) return LLM_EINVAL;
    if (!ty || !ty->name) return LLM_EINVAL;
    if (n % ty->block) return LLM_EINVAL;
    for (i = 0; i < n; i += ty->block, b += ty->bytes, dst += ty->block) {
        switch (type) {
        case LLM__GGML_F32: *dst = llm__le32f(b); break;
        case LLM__GGML_F16: *dst = llm__h(b); break;
        case LLM__GGML_BF16: *dst = llm_bf16_to_f32((uint16_t)(b[0] | (b[1] << 8))); break;
        case 2: llm__dq_q4_0(b, dst); break;
        case 3: llm__dq_q4_1(b, dst); break;
        case 6: llm__dq_q5(b, dst, 0); break;
        case 7: llm__dq_q5(b, dst, 1); break;
        case 8: llm__dq_q8_0(b, dst); break;
        case 10: llm__dq_q2_k(b, dst); break;
        case 11: llm__dq_q3_k(b, dst); break;
        case 12: llm__dq_q4_k(b, dst); break;
        case 13: llm__dq_q5_k(b, dst); break;
        case 14: llm__dq_q6_k(b, dst); break;
        default: return LLM_EUNSUPPORTED; /* known layout, no dequantizer here (IQ*, TQ*, MXFP4, ...) */
        }
    }
    return LLM_OK;
}

/* ---- ggml's block formats, multiplied --------------------------------------------------
   A quantized matrix times activations: the activations are quantized once per call, in
   blocks of 32 like the weights (int8 values, an fp32 scale, the sums of each half, which
   the formats with a min term need), so each block's dot is an integer sum and two scales.
   Per 32 values the result is dw dx sum(qw qx) (+ the min's m dx sum(qx)): the only
   rounding beyond fp32 accumulation is x's own 8-bit quantization. */
typedef struct llm__q8x {
    float d;          /* x ~= d q */
    int16_t s16[2];   /* sums of q[0..15] and q[16..31] */
    int8_t q[32];
} llm__q8x;

/* x[n] (n a multiple of 32) into n / 32 blocks, round to nearest (ties away from zero).
   A block holding inf or NaN gets d = NaN and q = 0 (as llm__q8_group does): its products
   are NaN, as in fp32, and no NaN is converted to an int (undefined behaviour). */
static void llm__q8x_quantize(const float *x, llm__q8x *out, int64_t n) {
    int64_t b;
    int j;
    for (b = 0; b < n / 32; b++, x += 32) {
        float amax = 0.0f, bad = 0.0f, id;
        llm__q8x *o = &out[b];
        for (j = 0; j < 32; j++) amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax, bad += x[j] * 0.0f;
        o->s16[0] = o->s16[1] = 0;
        if (bad != 0.0f || !(amax <= FLT_MAX)) { /* x * 0 is NaN for inf and NaN */
            o->d = NAN;
            memset(o->q, 0, sizeof o->q);
            continue;
        }
        o->d = amax / 127.0f;
        id = amax > 0 ? 127.0f / amax : 0.0f;
        for (j = 0; j < 32; j++) {
            /* clamped as a float: for a subnormal amax, 127 / amax is inf (and 0 * inf NaN) */
            float v = x[j] * id;
            int q;
            v = v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v == v ? v : 0.0f;
            q = (int)(v + (v >= 0 ? 0.5f : -0.5f));
            o->q[j] = (int8_t)q;
            o->s16[j / 16] = (int16_t)(o->s16[j / 16] + o->q[j]);
        }
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
            acc += xb->d * (d * (sc[k] & 15) * (float)llm__idot(q, xb->q + 16 * j, 16) - dmin * (sc[k] >> 4) * (float)xb->s16[j]);
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

/* The ggml type id of a block-format llm_dtype (0 for the others). */
static uint32_t llm__ggml_of(llm_dtype t) {
    switch (t) {
    case LLM_Q8_0: return 8;
    case LLM_Q4_0: return 2;
    case LLM_Q4_1: return 3;
    case LLM_Q5_0: return 6;
    case LLM_Q5_1: return 7;
    case LLM_Q2_K: return 10;
    case LLM_Q3_K: return 11;
    case LLM_Q4_K: return 12;
    case LLM_Q5_K: return 13;
    case LLM_Q6_K: return 14;
    default: return 0;
    }
}

/* The weight-format table's row and check routines for ggml's block formats: a row of
   an [.][n] matrix dequantized (an embedding row), and rows whose length the blocks divide. */
static void llm__row_ggml(float *dst, const llm_weight *w, int64_t row, int n) {
    uint32_t gt = llm__ggml_of(w->type);
    const llm__ggml_type *ty = &llm__ggml_types[gt];
    llm_gguf_dequantize(gt, (const unsigned char *)w->data + (size_t)row * (size_t)(n / (int)ty->block) * ty->bytes, dst, n);
}
static llm_status llm__check_blk(const llm_weight *w, int d_in) {
    uint32_t gt = llm__ggml_of(w->type);
    return gt && d_in % (int)llm__ggml_types[gt].block == 0 ? LLM_OK : LLM_EINVAL;
}

/* The dot kernel of each ggml type llm.h multiplies (NULL: not yet). */
typedef float (*llm__qdot_fn)(const unsigned char *w, const llm__q8x *x, int64_t n);
static llm__qdot_fn llm__qdot_of(uint32_t type) {
    switch (type) {
    case 2: return llm__qdot_q4_0;
    case 3: return llm__qdot_q4_1;
    case 6: return llm__qdot_q5_0;
    case 7: return llm__qdot_q5_1;
    case 8: return llm__qdot_q8_0;
    case 10: return llm__qdot_q2_k;
    case 11: return llm__qdot_q3_k;
    case 12: return llm__qdot_q4_k;
    case 13: return llm__qdot_q5_k;
    case 14: return llm__qdot_q6_k;
    default: return NULL;
    }
}

/* y[n][out] = x W^T + b for W in a ggml block format. x is quantized a panel of tokens at
   a time into 64 KiB of stack; each thread takes a share of W's rows and runs every token
   of the panel against a row while it is in cache. */
typedef struct llm__lq {
    const unsigned char *w;
    size_t row_bytes;
    llm__qdot_fn dot;
    const llm__q8x *xq;
    const float *b;
    float *y;
    int t0, nt, d_in, d_out;
} llm__lq;

static void llm__lq_task(void *ctx, int ith, int nth) {
    const llm__lq *c = (const llm__lq *)ctx;
    int64_t r0 = (int64_t)c->d_out * ith / nth, r1 = (int64_t)c->d_out * (ith + 1) / nth, r;
    int t, nb = c->d_in / 32;
    for (r = r0; r < r1; r++) {
        const unsigned char *wr = c->w + (size_t)r * c->row_bytes;
        float bias = c->b ? c->b[r] : 0.0f;
        for (t = 0; t < c->nt; t++)
            c->y[(size_t)(c->t0 + t) * (size_t)c->d_out + (size_t)r] = c->dot(wr, c->xq + (size_t)t * nb, c->d_in) + bias;
    }
}

#define LLM__LQ_BLOCKS 1638 /* 64 KiB of quantized activations */
static llm_status llm__linear_q(float *y, const float *x, const llm_weight *W, const float *b, int n_tokens, int d_in,
                                int d_out, llm_threads *th) {
    llm__q8x xq[LLM__LQ_BLOCKS];
    uint32_t gt = llm__ggml_of(W->type);
    const llm__ggml_type *ty = gt ? &llm__ggml_types[gt] : NULL;
    llm__lq c;
    int tp, t;
    if (!ty || !(c.dot = llm__qdot_of(gt))) return LLM_EUNSUPPORTED;
    if (d_in % (int)ty->block) return LLM_EINVAL;
    if (d_in / 32 > LLM__LQ_BLOCKS) return LLM_EUNSUPPORTED;
    c.w = (const unsigned char *)W->data;
    c.row_bytes = (size_t)(d_in / (int)ty->block) * ty->bytes;
    c.xq = xq, c.b = b, c.y = y, c.d_in = d_in, c.d_out = d_out;
    tp = LLM__LQ_BLOCKS / (d_in / 32);
    for (c.t0 = 0; c.t0 < n_tokens; c.t0 += tp) {
        c.nt = n_tokens - c.t0 < tp ? n_tokens - c.t0 : tp;
        for (t = 0; t < c.nt; t++) llm__q8x_quantize(x + (size_t)(c.t0 + t) * d_in, xq + (size_t)t * (d_in / 32), d_in);
        llm_threads_run(th, llm__lq_task, &c);
    }
    return LLM_OK;
}

/* A reason that names something from the file: a + the name (cut to fit) + b, in buf. */
static const char *llm__why_name(char *buf, size_t cap, const char *a, const char *name, uint64_t n, const char *b) {
    size_t k = 0, i;
    for (i = 0; a[i] && k + 1 < cap; i++) buf[k++] = a[i];
    for (i = 0; i < n && k + 4 < cap && i < 64; i++) buf[k++] = (unsigned char)name[i] >= 32 ? name[i] : '?';
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
} llm__gr;
static int llm__gr_has(llm__gr *r, uint64_t n) {
    if (r->bad || n > r->len - r->off) r->bad = 1;
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
        if (n > (r->len - r->off) / size) r->bad = 1; /* n * size would pass the end (or wrap) */
        if (!r->bad) r->off += n * size;
        return 0;
    }
    /* strings take at least 8 bytes and arrays 12 each: a count beyond that is past the end */
    if (n > (r->len - r->off) / 8) r->bad = 1;
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
   llm__name_dup sorts the index and returns an entry whose name another one has (-1: none). */
static int64_t llm__name_find(const int64_t *idx, int64_t n, const void *first_name, size_t stride, const char *name) {
    const char *first = (const char *)first_name;
    llm_gguf_str key;
    int64_t lo = 0, hi = n;
    key.s = name, key.n = strlen(name);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = llm__gstr_cmp(LLM__NAME_AT(mid), key);
        if (c == 0) return idx[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}
static int64_t llm__name_dup(int64_t *idx, int64_t n, const void *first_name, size_t stride) {
    const char *first = (const char *)first_name;
    int64_t i;
    llm__name_sort(idx, n, first_name, stride); /* sorted, equal names are neighbours */
    for (i = 1; i < n; i++)
        if (llm__gstr_cmp(LLM__NAME_AT(i - 1), LLM__NAME_AT(i)) == 0) return idx[i];
    return -1;
}
#undef LLM__NAME_AT

/* The header's counts, checked against the smallest size each entry can have (a key-value
   13 bytes, a tensor info 32), so the tables are never sized by a lie. */
#define LLM__GGUF_MAGIC 0x46554747u /* "GGUF" */
static llm_status llm__gguf_header(const unsigned char *p, size_t len, uint32_t *version, uint64_t *n_kv,
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

LLMDEF llm_status llm_gguf_init(llm_gguf *g, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t nkv, nt, i, k;
    uint32_t ver;
    llm__gr r;
    char *m;
    if (why) *why = "";
    if (!g) LLM__FFAIL(why, "no llm_gguf", LLM_EINVAL);
    memset(g, 0, sizeof *g);
    LLM__MTRY(llm__gguf_header(p, len, &ver, &nkv, &nt, why));
    if (!mem || ((uintptr_t)mem & 7u) || mem_bytes < llm__gguf_table_bytes(nkv, nt))
        LLM__FFAIL(why, "table memory missing, misaligned or smaller than llm_gguf_bytes", LLM_EINVAL);
    m = (char *)mem;
    g->kv = (llm_gguf_kv *)(void *)m, m += nkv * sizeof(llm_gguf_kv);
    g->tensors = (llm_gguf_tensor *)(void *)m, m += nt * sizeof(llm_gguf_tensor);
    g->kv_order = (int64_t *)(void *)m, m += nkv * sizeof(int64_t);
    g->tensor_order = (int64_t *)(void *)m;
    g->version = ver, g->n_kv = (int64_t)nkv, g->n_tensors = (int64_t)nt, g->buf = p, g->len = len;
    g->alignment = 32;
    r.p = p, r.off = 24, r.len = len, r.bad = 0;
    /* the metadata: key, type, value */
    for (i = 0; i < nkv; i++) {
        llm_gguf_kv *kv = &g->kv[i];
        int e;
        kv->key = llm__gr_str(&r);
        kv->type = (llm_gguf_type)llm__gr_u32(&r);
        if (r.bad) LLM__FFAIL(why, "file ends inside a metadata key or its type", LLM_EFORMAT);
        if ((unsigned)kv->type >= (unsigned)LLM_GGUF_TYPE_COUNT)
            LLM__GFAIL_NAME(g, "metadata ", kv->key, ": unknown value type", LLM_EFORMAT);
        if (kv->type == LLM_GGUF_ARRAY) {
            llm__gr q = r;
            kv->arr_type = (llm_gguf_type)llm__gr_u32(&q);
            kv->arr_n = llm__gr_u64(&q);
            kv->value = p + q.off;
        } else {
            kv->value = p + r.off;
        }
        e = llm__gr_skip(&r, (uint32_t)kv->type, 0);
        kv->bytes = (uint64_t)(p + r.off - kv->value);
        if (e == -1) LLM__GFAIL_NAME(g, "metadata ", kv->key, ": array of an unknown value type", LLM_EFORMAT);
        if (e == -2) LLM__GFAIL_NAME(g, "metadata ", kv->key, ": arrays nested more than 3 deep", LLM_EFORMAT);
        if (r.bad) LLM__GFAIL_NAME(g, "metadata ", kv->key, ": value runs past the end of the file", LLM_EFORMAT);
        if (kv->type == LLM_GGUF_BOOL && *kv->value > 1)
            LLM__GFAIL_NAME(g, "metadata ", kv->key, ": bool is not 0 or 1", LLM_EFORMAT);
    }
    if (nkv > 0) {
        int64_t dup;
        if ((dup = llm__name_dup(g->kv_order, g->n_kv, &g->kv[0].key, sizeof *g->kv)) >= 0)
            LLM__GFAIL_NAME(g, "metadata key ", g->kv[dup].key, " appears twice", LLM_EFORMAT);
    }
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
        t->name = llm__gr_str(&r);
        nd = llm__gr_u32(&r);
        if (r.bad) LLM__FFAIL(why, "file ends inside a tensor's name or dimension count", LLM_EFORMAT);
        if (nd < 1 || nd > 4) LLM__GFAIL_NAME(g, "tensor ", t->name, ": n_dims not in 1..4", LLM_EFORMAT);
        t->n_dims = (int)nd;
        for (k = 0; k < 4; k++) t->ne[k] = 1;
        for (k = 0; k < nd; k++) {
            uint64_t ne = llm__gr_u64(&r);
            if (r.bad) break;
            if (ne == 0 || ne > (uint64_t)INT64_MAX) LLM__GFAIL_NAME(g, "tensor ", t->name, ": a dimension is 0 or above 2^63", LLM_EFORMAT);
            if (elems > (uint64_t)INT64_MAX / ne) LLM__GFAIL_NAME(g, "tensor ", t->name, ": its dimensions' product overflows", LLM_EFORMAT);
            elems *= ne;
            t->ne[k] = (int64_t)ne;
        }
        t->type = llm__gr_u32(&r);
        t->offset = llm__gr_u64(&r);
        if (r.bad) LLM__GFAIL_NAME(g, "tensor ", t->name, ": file ends inside its info", LLM_EFORMAT);
        ty = t->type < 40 ? &llm__ggml_types[t->type] : NULL;
        if (!ty || !ty->name) LLM__GFAIL_NAME(g, "tensor ", t->name, ": unknown ggml type", LLM_EFORMAT);
        if ((uint64_t)t->ne[0] % ty->block)
            LLM__GFAIL_NAME(g, "tensor ", t->name, ": row length not a multiple of its type's block", LLM_EFORMAT);
        if (elems / ty->block > UINT64_MAX / ty->bytes) LLM__GFAIL_NAME(g, "tensor ", t->name, ": byte size overflows", LLM_EFORMAT);
        t->bytes = elems / ty->block * ty->bytes;
        if (t->offset % g->alignment) LLM__GFAIL_NAME(g, "tensor ", t->name, ": offset not a multiple of the alignment", LLM_EFORMAT);
    }
    /* the data section starts at the next multiple of the alignment */
    g->data_offset = r.off + (g->alignment - r.off % g->alignment) % g->alignment;
    if (nt > 0 && g->data_offset > len) LLM__FFAIL(why, "file ends before its data section", LLM_EFORMAT);
    for (i = 0; i < nt; i++) {
        llm_gguf_tensor *t = &g->tensors[i];
        uint64_t room = len - g->data_offset;
        if (t->offset > room || t->bytes > room - t->offset)
            LLM__GFAIL_NAME(g, "tensor ", t->name, ": data runs past the end of the file", LLM_EFORMAT);
        t->data = p + g->data_offset + t->offset;
    }
    if (nt > 0) {
        int64_t dup;
        if ((dup = llm__name_dup(g->tensor_order, g->n_tensors, &g->tensors[0].name, sizeof *g->tensors)) >= 0)
            LLM__GFAIL_NAME(g, "tensor name ", g->tensors[dup].name, " appears twice", LLM_EFORMAT);
    }
    return LLM_OK;
}

LLMDEF llm_status llm_gguf_create(llm_gguf *g, const void *buf, size_t len, const char **why) {
    size_t need;
    void *mem;
    llm_status st;
    if (why) *why = "";
    if (!g) LLM__FFAIL(why, "no llm_gguf", LLM_EINVAL);
    memset(g, 0, sizeof *g);
    need = llm_gguf_bytes(buf, len);
    if (need == 0) return llm_gguf_init(g, NULL, 0, buf, len, why); /* for its reason */
    mem = LLM_MALLOC(need);
    if (!mem) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    st = llm_gguf_init(g, mem, need, buf, len, why);
    if (st != LLM_OK) {
        /* the reason may live in g->why: keep g's text, drop its tables */
        LLM_FREE(mem);
        g->kv = NULL, g->tensors = NULL, g->kv_order = g->tensor_order = NULL, g->n_kv = g->n_tensors = 0;
        return st;
    }
    g->owned = mem;
    return LLM_OK;
}

LLMDEF void llm_gguf_free(llm_gguf *g) {
    if (!g) return;
    if (g->owned) LLM_FREE(g->owned);
    memset(g, 0, sizeof *g);
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

/* ---- a model from a GGUF --------------------------------------------------------------- */

/* "blk." + l + "." + suffix, into buf (64 bytes: ggml's own limit on names). */
static const char *llm__gguf_blk(char *buf, int l, const char *suffix) {
    char digits[12];
    int n = 0, k = 0;
    do digits[n++] = (char)('0' + l % 10), l /= 10;
    while (l > 0 && n < 11);
    memcpy(buf, "blk.", 4), k = 4;
    while (n > 0) buf[k++] = digits[--n];
    buf[k++] = '.';
    while (*suffix && k < 63) buf[k++] = *suffix++;
    buf[k] = '\0';
    return buf;
}

/* "llama." + key: the architecture's own keys are prefixed with its name. */
static llm_status llm__gguf_arch_int(const llm_gguf *g, const char *arch, const char *key, int64_t lo, int64_t hi,
                                     int64_t *out, int required) {
    char name[96];
    size_t a = strlen(arch), k = strlen(key);
    llm_status st;
    if (a + k + 2 > sizeof name) return LLM_EINVAL;
    memcpy(name, arch, a), name[a] = '.', memcpy(name + a + 1, key, k + 1);
    st = llm_gguf_get_int(g, name, out);
    if (st == LLM_ENOTFOUND && !required) return LLM_ENOTFOUND;
    if (st != LLM_OK || *out < lo || *out > hi) return LLM_EFORMAT;
    return LLM_OK;
}

LLMDEF llm_status llm_gguf_read_config(llm_config *c, llm_gguf *g, const char **why) {
    static const char arch[] = "llama";
    llm_gguf_str a;
    int64_t v, vocab_key = 0;
    double f;
    int k;
    llm_status st;
    const llm_gguf_tensor *emb;
    if (why) *why = "";
    if (!c || !g || !g->kv) LLM__FFAIL(why, "no config or GGUF", LLM_EINVAL);
    *c = llm_config_default();
    c->name = "gguf";
    if (llm_gguf_get_str(g, "general.architecture", &a) != LLM_OK)
        LLM__FFAIL(why, "general.architecture is missing or not a string", LLM_EFORMAT);
    if (a.n != 5 || memcmp(a.s, arch, 5) != 0)
        LLM__GFAIL_NAME(g, "architecture '", a, "' is not run yet (llama is)", LLM_EUNSUPPORTED);
#define LLM__GKEY(key, lo, hi, field, what)                                                         \
    do {                                                                                          \
        if (llm__gguf_arch_int(g, arch, key, lo, hi, &v, 1) != LLM_OK)                           \
            LLM__FFAIL(why, "llama." key " is missing or out of range (" what ")", LLM_EFORMAT);   \
        c->field = (int)v;                                                                        \
    } while (0)
    LLM__GKEY("embedding_length", 1, 1 << 20, d_model, "1..2^20");
    LLM__GKEY("block_count", 1, 4096, n_layers, "1..4096");
    LLM__GKEY("attention.head_count", 1, 1 << 16, n_heads, "1..65536");
    LLM__GKEY("feed_forward_length", 1, 1 << 22, d_ff, "1..2^22");
    LLM__GKEY("context_length", 1, INT32_MAX, max_seq_len, "1..2^31-1");
#undef LLM__GKEY
    /* an optional key that is present must be right: ignored, it would run the model with
       a default in its place (k: whether it is there) */
#define LLM__GOPT(key, lo, hi, what)                                                                \
    do {                                                                                          \
        st = llm__gguf_arch_int(g, arch, key, lo, hi, &v, 0);                                     \
        if (st != LLM_OK && st != LLM_ENOTFOUND)                                                  \
            LLM__FFAIL(why, "llama." key " is not an integer in " what, LLM_EFORMAT);             \
        k = st == LLM_OK;                                                                         \
    } while (0)
    c->n_kv_heads = c->n_heads;
    LLM__GOPT("attention.head_count_kv", 1, 1 << 16, "1..65536");
    if (k) c->n_kv_heads = (int)v;
    LLM__GOPT("attention.key_length", 2, 1 << 12, "2..4096");
    if (k) c->head_dim = (int)v;
    LLM__GOPT("rope.dimension_count", 2, 1 << 12, "2..4096");
    if (k) c->rotary_dim = (int)v;
    LLM__GOPT("expert_count", 0, 1 << 16, "0..65536");
    if (k && v > 0) {
        c->n_experts = (int)v;
        c->n_experts_per_tok = 1;
        LLM__GOPT("expert_used_count", 1, c->n_experts, "1..expert_count");
        if (k) c->n_experts_per_tok = (int)v;
    }
    LLM__GOPT("attention.sliding_window", 0, INT32_MAX, "0..2^31-1");
    if (k) c->sliding_window = (int)v;
    LLM__GOPT("vocab_size", 1, 1 << 24, "1..2^24");
    vocab_key = k ? v : 0;
#undef LLM__GOPT
    if ((st = llm_gguf_get_float(g, "llama.attention.layer_norm_rms_epsilon", &f)) == LLM_OK) {
        if (!(f > 0 && f <= 1)) LLM__FFAIL(why, "llama.attention.layer_norm_rms_epsilon not in (0, 1]", LLM_EFORMAT);
        c->norm_eps = (float)f;
    } else if (st != LLM_ENOTFOUND) {
        LLM__FFAIL(why, "llama.attention.layer_norm_rms_epsilon is not a float32 or float64", LLM_EFORMAT);
    }
    if ((st = llm_gguf_get_float(g, "llama.rope.freq_base", &f)) == LLM_OK) {
        if (!(f > 0 && f < 1e30)) LLM__FFAIL(why, "llama.rope.freq_base not positive and finite", LLM_EFORMAT);
        c->rope_theta = (float)f;
    } else if (st != LLM_ENOTFOUND) {
        LLM__FFAIL(why, "llama.rope.freq_base is not a float32 or float64", LLM_EFORMAT);
    }
    if (llm_gguf_find_key(g, "llama.rope.scaling.type") >= 0 || llm_gguf_find_key(g, "llama.rope.scale_linear") >= 0)
        LLM__FFAIL(why, "RoPE scaling (llama.rope.scaling.*) is not applied yet", LLM_EUNSUPPORTED);
    /* llama.cpp's converter permutes Q and K so that RoPE rotates adjacent pairs */
    c->rope_layout = LLM_ROPE_INTERLEAVED;
    if (c->rotary_dim == (c->head_dim ? c->head_dim : (c->d_model % c->n_heads ? 0 : c->d_model / c->n_heads)))
        c->rotary_dim = 0;
    /* the vocabulary is the embedding's row count */
    emb = llm_gguf_find_tensor(g, "token_embd.weight");
    if (!emb || emb->n_dims != 2 || emb->ne[1] > (1 << 24)) LLM__FFAIL(why, "token_embd.weight is missing or not [vocab][d]", LLM_EFORMAT);
    c->vocab = (int)emb->ne[1];
    if (vocab_key && vocab_key != c->vocab) LLM__FFAIL(why, "llama.vocab_size differs from token_embd.weight's rows", LLM_EFORMAT);
    c->tied_embeddings = llm_gguf_find_tensor(g, "output.weight") == NULL;
    {
        const char *reason;
        llm_status st = llm_config_check(c, &reason);
        if (st != LLM_OK) LLM__FFAIL(why, reason, LLM_EFORMAT);
    }
    return LLM_OK;
}

/* One tensor the model needs, found, shaped [rows][cols] (ne = {cols, rows}) and typed. */
static llm_status llm__gguf_take(llm_gguf *g, const char *name, int64_t cols, int64_t rows, int matrix, llm_weight *w,
                                 const float **vec, int64_t *n_used, const char **why) {
    const llm_gguf_tensor *t = llm_gguf_find_tensor(g, name);
    llm_gguf_str n;
    n.s = name, n.n = strlen(name);
    if (!t) LLM__GFAIL_NAME(g, "tensor ", n, " is missing", LLM_EFORMAT);
    (*n_used)++; /* names are unique (llm_gguf_init), so each take is another tensor */
    if (t->ne[0] != cols || t->ne[1] != rows || t->ne[2] != 1 || t->ne[3] != 1)
        LLM__GFAIL_NAME(g, "tensor ", n, " has the wrong shape for the config", LLM_EFORMAT);
    if (((uintptr_t)t->data & 3u) != 0)
        LLM__GFAIL_NAME(g, "tensor ", n, " is not 4-byte aligned: load the file into aligned memory", LLM_EINVAL);
    if (matrix) {
        int k;
        memset(w, 0, sizeof *w);
        w->type = LLM_DTYPE_COUNT;
        if (t->type == LLM__GGML_F32 || t->type == LLM__GGML_F16 || t->type == LLM__GGML_BF16)
            w->type = t->type == LLM__GGML_F32 ? LLM_F32 : t->type == LLM__GGML_F16 ? LLM_F16 : LLM_BF16;
        for (k = 0; k < (int)LLM_DTYPE_COUNT && w->type == LLM_DTYPE_COUNT; k++)
            if (llm__ggml_of((llm_dtype)k) == t->type && llm__qdot_of(t->type)) w->type = (llm_dtype)k;
        w->data = t->data;
        if (w->type != LLM_DTYPE_COUNT) return LLM_OK;
    }
    if (!matrix && t->type == LLM__GGML_F32) {
        *vec = (const float *)t->data;
        return LLM_OK;
    }
    {
        char tail[48];
        const char *tn = llm_gguf_type_name(t->type);
        size_t k = 0;
        const char *a = matrix ? " is " : " is not f32: ";
        while (*a) tail[k++] = *a++;
        while (*tn && k < 30) tail[k++] = *tn++;
        a = matrix ? ", not run yet" : "";
        while (*a && k < 47) tail[k++] = *a++;
        tail[k] = '\0';
        LLM__GFAIL_NAME(g, "tensor ", n, tail, LLM_EUNSUPPORTED);
    }
}

/* Whether the llama forward pass reads a tensor of this name (blk.N. + a block suffix). */
static int llm__gguf_llama_name(llm_gguf_str s, int n_layers, int tied) {
    static const char *const top[3] = {"token_embd.weight", "output_norm.weight", "output.weight"};
    static const char *const blk[9] = {"attn_norm.weight", "attn_q.weight", "attn_k.weight", "attn_v.weight",
                                       "attn_output.weight", "ffn_norm.weight", "ffn_gate.weight",
                                       "ffn_down.weight", "ffn_up.weight"};
    uint64_t k = 4;
    int i, l = 0;
    for (i = 0; i < 3 - tied; i++)
        if (s.n == strlen(top[i]) && memcmp(s.s, top[i], s.n) == 0) return 1;
    if (s.n < 6 || memcmp(s.s, "blk.", 4) != 0 || s.s[4] < '0' || s.s[4] > '9') return 0;
    while (k < s.n && s.s[k] >= '0' && s.s[k] <= '9' && l < n_layers) l = l * 10 + (s.s[k++] - '0');
    if (l >= n_layers || k >= s.n || s.s[k] != '.' || (s.s[4] == '0' && k > 5)) return 0;
    for (i = 0; i < 9; i++)
        if (s.n - k - 1 == strlen(blk[i]) && memcmp(s.s + k + 1, blk[i], s.n - k - 1) == 0) return 1;
    return 0;
}

LLMDEF llm_status llm_gguf_load(llm_model *m, llm_gguf *g, llm_layer_weights *layers, int n_layers_cap,
                                const char **why) {
    llm_config c;
    llm_weights w;
    int64_t d, hd, qd, kvd, ff, V, i, n_used = 0;
    int l;
    char name[64];
    llm_status st;
    const char *reason;
    if (why) *why = "";
    if (!m || !g || !layers) LLM__FFAIL(why, "no model, GGUF or layer table", LLM_EINVAL);
    LLM__MTRY(llm_gguf_read_config(&c, g, why));
    st = llm_config_runnable(&c, &reason);
    if (st != LLM_OK) LLM__FFAIL(why, reason, st);
    if (c.n_layers > n_layers_cap) LLM__FFAIL(why, "layer table too small for n_layers", LLM_EINVAL);
    if (!llm__little_endian()) LLM__FFAIL(why, "big-endian host: GGUF weights are little-endian", LLM_EUNSUPPORTED);
    d = c.d_model, hd = llm_config_head_dim(&c), qd = (int64_t)c.n_heads * hd, kvd = (int64_t)c.n_kv_heads * hd;
    ff = c.d_ff, V = c.vocab;
    memset(&w, 0, sizeof w);
    memset(layers, 0, (size_t)c.n_layers * sizeof *layers);
#define LLM__TAKE(nm, cols, rows, mat, wp, vp)                                                          \
    do {                                                                                              \
        st = llm__gguf_take(g, nm, cols, rows, mat, wp, vp, &n_used, why);                            \
        if (st != LLM_OK) return st;                                                                  \
    } while (0)
    LLM__TAKE("token_embd.weight", d, V, 1, &w.tok_embed, NULL);
    LLM__TAKE("output_norm.weight", d, 1, 0, NULL, &w.out_norm);
    if (c.tied_embeddings) w.lm_head = w.tok_embed;
    else LLM__TAKE("output.weight", d, V, 1, &w.lm_head, NULL);
    for (l = 0; l < c.n_layers; l++) {
        llm_layer_weights *y = &layers[l];
        LLM__TAKE(llm__gguf_blk(name, l, "attn_norm.weight"), d, 1, 0, NULL, &y->attn_norm);
        LLM__TAKE(llm__gguf_blk(name, l, "attn_q.weight"), d, qd, 1, &y->wq, NULL);
        LLM__TAKE(llm__gguf_blk(name, l, "attn_k.weight"), d, kvd, 1, &y->wk, NULL);
        LLM__TAKE(llm__gguf_blk(name, l, "attn_v.weight"), d, kvd, 1, &y->wv, NULL);
        LLM__TAKE(llm__gguf_blk(name, l, "attn_output.weight"), qd, d, 1, &y->wo, NULL);
        LLM__TAKE(llm__gguf_blk(name, l, "ffn_norm.weight"), d, 1, 0, NULL, &y->ffn_norm);
        LLM__TAKE(llm__gguf_blk(name, l, "ffn_gate.weight"), d, ff, 1, &y->w1, NULL);
        LLM__TAKE(llm__gguf_blk(name, l, "ffn_down.weight"), ff, d, 1, &y->w2, NULL);
        LLM__TAKE(llm__gguf_blk(name, l, "ffn_up.weight"), d, ff, 1, &y->w3, NULL);
    }
#undef LLM__TAKE
    /* every tensor of the file is used: one the forward pass would skip (rope_freqs, a
       bias) means the model is not what llm.h would run */
    if (n_used != g->n_tensors)
        for (i = 0; i < g->n_tensors; i++)
            if (!llm__gguf_llama_name(g->tensors[i].name, c.n_layers, c.tied_embeddings))
                LLM__GFAIL_NAME(g, "tensor ", g->tensors[i].name, " is not used by the llama forward pass (refused, not ignored)",
                                LLM_EUNSUPPORTED);
    w.layers = layers;
    memset(m, 0, sizeof *m);
    m->config = c;
    m->weights = w;
    m->file_version = (int)g->version;
    return LLM_OK;
}


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
                if (obj) {
                    if (p->pos >= p->len || p->s[p->pos] != '"') return "an object's key must be a string";
                    if ((e = llm__jp_string(p)) != NULL) return e;
                    llm__jp_ws(p);
                    if (p->pos >= p->len || p->s[p->pos] != ':') return "expected ':' after an object's key";
                    p->pos++;
                }
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
                if (obj) {
                    llm__jp_ws(p);
                    if (p->pos >= p->len || p->s[p->pos] != '"') return "an object's key must be a string (no trailing comma)";
                    if ((e = llm__jp_string(p)) != NULL) return e;
                    llm__jp_ws(p);
                    if (p->pos >= p->len || p->s[p->pos] != ':') return "expected ':' after an object's key";
                    p->pos++;
                }
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
    if (mant == 0) v = 0.0;
    else if (ex > 330) return LLM_ERANGE;
    else if (ex < -360) v = 0.0;
    else if (mant < ((uint64_t)1 << 53) && ex >= -22 && ex <= 22) {
        double p = 1.0;
        int i, a = ex < 0 ? (int)-ex : (int)ex;
        for (i = 0; i < a; i++) p *= 10.0; /* exact up to 1e22 */
        v = ex < 0 ? (double)mant / p : (double)mant * p;
    } else {
        /* one power when it is a normal double; else two factors, so 10^ex itself never
           underflows before the product */
        if (ex >= -300) v = (double)mant * LLM_POW(10.0, (double)ex);
        else v = (double)mant * LLM_POW(10.0, (double)(ex / 2)) * LLM_POW(10.0, (double)(ex - ex / 2));
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

/* The header: its length and where its JSON is, checked against the buffer. */
static llm_status llm__st_header(const unsigned char *p, size_t len, uint64_t *n, const char **why) {
    if (!p) LLM__FFAIL(why, "no buffer", LLM_EINVAL);
    if (len < 8) LLM__FFAIL(why, "file shorter than the 8-byte safetensors header length", LLM_EFORMAT);
    *n = llm__le64(p);
    if (*n < 2 || *n > len - 8) LLM__FFAIL(why, "safetensors header length past the end of the file", LLM_EFORMAT);
    if (p[8] != '{') LLM__FFAIL(why, "safetensors header is not a JSON object", LLM_EFORMAT);
    return LLM_OK;
}

LLMDEF size_t llm_safetensors_bytes(const void *buf, size_t len) {
    uint64_t n;
    size_t nt = 0;
    if (llm__st_header((const unsigned char *)buf, len, &n, NULL) != LLM_OK) return 0;
    if (llm_json_parse((const char *)buf + 8, (size_t)n, NULL, 0, &nt, NULL) != LLM_ERANGE && nt == 0) return 0;
    if (nt == 0) return 0;
    /* every tensor is a member of the top object, so tokens bound the tensors */
    return LLM__ST_TOKS(nt) + nt * (sizeof(llm_st_tensor) + sizeof(int64_t));
}

LLMDEF llm_status llm_safetensors_init(llm_safetensors *st, void *mem, size_t mem_bytes, const void *buf, size_t len,
                                       const char **why) {
    const unsigned char *p = (const unsigned char *)buf;
    const char *text;
    uint64_t n;
    size_t nt = 0, i, m, cap;
    llm_status e;
    if (why) *why = "";
    if (!st) LLM__FFAIL(why, "no llm_safetensors", LLM_EINVAL);
    memset(st, 0, sizeof *st);
    LLM__MTRY(llm__st_header(p, len, &n, why));
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
        if (end > len - st->data_offset) LLM__GFAIL_NAME(st, "tensor ", name, ": data runs past the end of the file", LLM_EFORMAT);
        t->data = p + st->data_offset + begin;
    }
    /* sorted names: duplicates would make a lookup ambiguous */
    if (st->n_tensors > 0) {
        int64_t dup;
        if ((dup = llm__name_dup(st->order, st->n_tensors, &st->tensors[0].name, sizeof *st->tensors)) >= 0)
            LLM__GFAIL_NAME(st, "tensor name ", st->tensors[dup].name, " appears twice", LLM_EFORMAT);
    }
    return LLM_OK;
}

LLMDEF llm_status llm_safetensors_create(llm_safetensors *st, const void *buf, size_t len, const char **why) {
    size_t need;
    void *mem;
    llm_status e;
    if (why) *why = "";
    if (!st) LLM__FFAIL(why, "no llm_safetensors", LLM_EINVAL);
    memset(st, 0, sizeof *st);
    need = llm_safetensors_bytes(buf, len);
    if (need == 0) return llm_safetensors_init(st, NULL, 0, buf, len, why);
    mem = LLM_MALLOC(need);
    if (!mem) LLM__FFAIL(why, "out of memory", LLM_ENOMEM);
    e = llm_safetensors_init(st, mem, need, buf, len, why);
    if (e != LLM_OK) {
        LLM_FREE(mem);
        st->toks = NULL, st->tensors = NULL, st->order = NULL, st->n_tensors = 0, st->n_toks = 0;
        return e;
    }
    st->owned = mem;
    return LLM_OK;
}

LLMDEF void llm_safetensors_free(llm_safetensors *st) {
    if (!st) return;
    if (st->owned) LLM_FREE(st->owned);
    memset(st, 0, sizeof *st);
}

LLMDEF const llm_st_tensor *llm_safetensors_find(const llm_safetensors *st, const char *name) {
    int64_t i;
    if (!st || !name || !st->tensors || !st->order || st->n_tensors <= 0) return NULL;
    i = llm__name_find(st->order, st->n_tensors, &st->tensors[0].name, sizeof *st->tensors, name);
    return i < 0 ? NULL : &st->tensors[i];
}

/* ---- a model from config.json + safetensors ---------------------------------------------- */

/* "model.layers." + l + "." + suffix into buf (96 bytes). */
static const char *llm__hf_name(char *buf, int l, const char *suffix) {
    char digits[12];
    int n = 0, k = 13;
    memcpy(buf, "model.layers.", 13);
    do digits[n++] = (char)('0' + l % 10), l /= 10;
    while (l > 0 && n < 11);
    while (n > 0) buf[k++] = digits[--n];
    buf[k++] = '.';
    while (*suffix && k < 95) buf[k++] = *suffix++;
    buf[k] = '\0';
    return buf;
}

#define LLM__HF_TOKS 4096 /* tokens of a config.json: Llama's has ~60, multimodal ones ~2,000 */

/* The config's number `key` into *out (absent: LLM_ENOTFOUND; null counts as absent). */
static llm_status llm__hf_num(const char *j, const llm_json_tok *t, size_t n, const char *key, double *out) {
    int64_t i = llm_json_find(j, t, n, 0, key);
    if (i < 0 || t[i].type == LLM_JSON_NULL) return LLM_ENOTFOUND;
    return llm_json_num(j, &t[i], out);
}
static llm_status llm__hf_int(const char *j, const llm_json_tok *t, size_t n, const char *key, int64_t lo, int64_t hi,
                              int *out) {
    int64_t i = llm_json_find(j, t, n, 0, key), v;
    if (i < 0 || t[i].type == LLM_JSON_NULL) return LLM_ENOTFOUND;
    if (llm_json_int(j, &t[i], &v) != LLM_OK || v < lo || v > hi) return LLM_EFORMAT;
    *out = (int)v;
    return LLM_OK;
}
static int llm__hf_true(const char *j, const llm_json_tok *t, size_t n, const char *key) {
    int64_t i = llm_json_find(j, t, n, 0, key);
    return i >= 0 && t[i].type == LLM_JSON_TRUE;
}

LLMDEF llm_status llm_hf_read_config(llm_config *c, const char *json, size_t len, const char **why) {
    llm_json_tok t[LLM__HF_TOKS];
    size_t n;
    int64_t mt, act, rs;
    double f;
    int qwen2;
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
    mt = llm_json_find(json, t, n, 0, "model_type");
    if (mt < 0 || t[mt].type != LLM_JSON_STRING) LLM__FFAIL(why, "config.json has no model_type", LLM_EFORMAT);
    qwen2 = llm_json_eq(json, &t[mt], "qwen2");
    if (!qwen2 && !llm_json_eq(json, &t[mt], "llama") && !llm_json_eq(json, &t[mt], "mistral")) {
        LLM__FFAIL(why, "config.json's model_type is not run yet (llama, mistral and qwen2 are)", LLM_EUNSUPPORTED);
    }
#define LLM__HFREQ(key, lo, hi, field)                                                              \
    if (llm__hf_int(json, t, n, key, lo, hi, &c->field) != LLM_OK)                                \
        LLM__FFAIL(why, "config.json: " key " is missing or out of range", LLM_EFORMAT);
    LLM__HFREQ("hidden_size", 1, 1 << 20, d_model)
    LLM__HFREQ("num_hidden_layers", 1, 4096, n_layers)
    LLM__HFREQ("num_attention_heads", 1, 1 << 16, n_heads)
    LLM__HFREQ("intermediate_size", 1, 1 << 22, d_ff)
    LLM__HFREQ("vocab_size", 1, 1 << 24, vocab)
    LLM__HFREQ("max_position_embeddings", 1, INT32_MAX, max_seq_len)
#undef LLM__HFREQ
    c->n_kv_heads = c->n_heads;
    if (llm__hf_int(json, t, n, "num_key_value_heads", 1, 1 << 16, &c->n_kv_heads) == LLM_EFORMAT)
        LLM__FFAIL(why, "config.json: num_key_value_heads out of range", LLM_EFORMAT);
    if (llm__hf_int(json, t, n, "head_dim", 1, 1 << 12, &c->head_dim) == LLM_EFORMAT)
        LLM__FFAIL(why, "config.json: head_dim out of range", LLM_EFORMAT);
    c->norm_eps = 1e-6f; /* transformers' default for llama, mistral and qwen2 */
    if (llm__hf_num(json, t, n, "rms_norm_eps", &f) == LLM_OK) c->norm_eps = (float)f;
    if (llm__hf_num(json, t, n, "rope_theta", &f) == LLM_OK) c->rope_theta = (float)f;
    c->tied_embeddings = llm__hf_true(json, t, n, "tie_word_embeddings");
    act = llm_json_find(json, t, n, 0, "hidden_act");
    if (act >= 0 && !llm_json_eq(json, &t[act], "silu")) LLM__FFAIL(why, "config.json: hidden_act is not silu", LLM_EUNSUPPORTED);
    if (llm__hf_true(json, t, n, "attention_bias")) LLM__FFAIL(why, "config.json: attention_bias (q/k/v/o biases) is not run yet", LLM_EUNSUPPORTED);
    if (llm__hf_true(json, t, n, "mlp_bias")) LLM__FFAIL(why, "config.json: mlp_bias is not run yet", LLM_EUNSUPPORTED);
    if (qwen2) {
        c->bias = LLM_BIAS_QKV;
        if (llm__hf_true(json, t, n, "use_sliding_window"))
            LLM__FFAIL(why, "config.json: Qwen2's per-layer sliding windows are not run yet", LLM_EUNSUPPORTED);
    } else if (llm__hf_int(json, t, n, "sliding_window", 1, INT32_MAX, &c->sliding_window) == LLM_EFORMAT) {
        LLM__FFAIL(why, "config.json: sliding_window out of range", LLM_EFORMAT);
    }
    /* Hugging Face's rotate_half pairs dimension i with i + d/2 */
    c->rope_layout = LLM_ROPE_HALVES;
    rs = llm_json_find(json, t, n, 0, "rope_scaling");
    if (rs >= 0 && t[rs].type != LLM_JSON_NULL) {
        int64_t ty0 = t[rs].type == LLM_JSON_OBJECT ? llm_json_find(json, t, n, (size_t)rs, "rope_type") : -1;
        if (ty0 >= 0 && llm_json_eq(json, &t[ty0], "default")) rs = -1; /* transformers' name for none */
    }
    if (rs >= 0 && t[rs].type != LLM_JSON_NULL) {
        int64_t ty = t[rs].type == LLM_JSON_OBJECT ? llm_json_find(json, t, n, (size_t)rs, "rope_type") : -1;
        int64_t k;
        double v;
        if (ty < 0) ty = t[rs].type == LLM_JSON_OBJECT ? llm_json_find(json, t, n, (size_t)rs, "type") : -1;
        if (ty < 0 || !llm_json_eq(json, &t[ty], "llama3"))
            LLM__FFAIL(why, "config.json: rope_scaling other than Llama 3's is not run yet", LLM_EUNSUPPORTED);
#define LLM__HFRS(key, field, conv)                                                                   \
    k = llm_json_find(json, t, n, (size_t)rs, key);                                                 \
    if (k < 0 || llm_json_num(json, &t[k], &v) != LLM_OK || !(v > 0 && v < 1e9))                    \
        LLM__FFAIL(why, "config.json: rope_scaling." key " missing or out of range", LLM_EFORMAT);  \
    c->field = conv v;
        LLM__HFRS("factor", rope_scale, (float))
        LLM__HFRS("low_freq_factor", rope_low_freq_factor, (float))
        LLM__HFRS("high_freq_factor", rope_high_freq_factor, (float))
        LLM__HFRS("original_max_position_embeddings", rope_orig_ctx, (int))
#undef LLM__HFRS
    }
    {
        const char *reason;
        if (llm_config_check(c, &reason) != LLM_OK) LLM__FFAIL(why, reason, LLM_EFORMAT);
    }
    return LLM_OK;
}

LLMDEF size_t llm_hf_aux_floats(const llm_config *c) {
    uint64_t d, hd, n;
    if (llm_config_check(c, NULL) != LLM_OK) return 0;
    d = (uint64_t)c->d_model, hd = (uint64_t)llm_config_head_dim(c);
    n = (2 * (uint64_t)c->n_layers + 1) * d;
    if (llm__bias_kinds[c->bias].qkv) n += (uint64_t)c->n_layers * hd * ((uint64_t)c->n_heads + 2 * (uint64_t)c->n_kv_heads);
    return n > (uint64_t)SIZE_MAX / sizeof(float) ? 0 : (size_t)n;
}

/* One tensor by name, shaped [rows][cols]: a matrix as an llm_weight in place, or a vector
   (rows 1) as fp32, in place when F32, else converted into *aux. */
static llm_status llm__hf_take(llm_safetensors *st, const char *name, int64_t rows, int64_t cols, llm_weight *w,
                               const float **vec, float **aux, float *aux_end, int64_t *n_used, const char **why) {
    llm_st_tensor *t = (llm_st_tensor *)(uintptr_t)llm_safetensors_find(st, name); /* st is the caller's, not const */
    llm_gguf_str nm;
    int f32, f16, bf16;
    nm.s = name, nm.n = strlen(name);
    if (!t) LLM__GFAIL_NAME(st, "tensor ", nm, " is missing", LLM_EFORMAT);
    if (!t->used) (*n_used)++;
    t->used = 1;
    if (!(vec ? t->n_dims == 1 && t->shape[0] == cols : t->n_dims == 2 && t->shape[0] == rows && t->shape[1] == cols))
        LLM__GFAIL_NAME(st, "tensor ", nm, " has the wrong shape for the config", LLM_EFORMAT);
    f32 = t->dtype.n == 3 && memcmp(t->dtype.s, "F32", 3) == 0;
    f16 = t->dtype.n == 3 && memcmp(t->dtype.s, "F16", 3) == 0;
    bf16 = t->dtype.n == 4 && memcmp(t->dtype.s, "BF16", 4) == 0;
    if (!f32 && !f16 && !bf16) LLM__GFAIL_NAME(st, "tensor ", nm, ": only F32, F16 and BF16 are run", LLM_EUNSUPPORTED);
    if (((uintptr_t)t->data & (f32 ? 3u : 1u)) != 0)
        LLM__GFAIL_NAME(st, "tensor ", nm, " is not aligned: load the file into aligned memory", LLM_EINVAL);
    if (!vec) {
        memset(w, 0, sizeof *w);
        w->type = f32 ? LLM_F32 : f16 ? LLM_F16 : LLM_BF16;
        w->data = t->data;
    } else if (f32) {
        *vec = (const float *)t->data;
    } else {
        const unsigned char *s = (const unsigned char *)t->data;
        int64_t i;
        if (!*aux || aux_end - *aux < cols) LLM__FFAIL(why, "aux smaller than llm_hf_aux_floats", LLM_EINVAL);
        for (i = 0; i < cols; i++) {
            uint16_t h = (uint16_t)(s[2 * i] | (s[2 * i + 1] << 8));
            (*aux)[i] = f16 ? llm_f16_to_f32(h) : llm_bf16_to_f32(h);
        }
        *vec = *aux;
        *aux += cols;
    }
    return LLM_OK;
}

LLMDEF llm_status llm_hf_load(llm_model *m, const char *config_json, size_t config_len, llm_safetensors *st,
                              llm_layer_weights *layers, int n_layers_cap, float *aux, size_t aux_floats,
                              const char **why) {
    llm_config c;
    llm_weights w;
    int64_t d, hd, qd, kvd, ff, V, n_used = 0;
    int l;
    float *ap = aux, *aend = aux ? aux + aux_floats : NULL;
    char name[96];
    llm_status e;
    const char *reason;
    if (why) *why = "";
    if (!m || !st || !layers || !st->tensors) LLM__FFAIL(why, "no model, safetensors or layer table", LLM_EINVAL);
    LLM__MTRY(llm_hf_read_config(&c, config_json, config_len, why));
    e = llm_config_runnable(&c, &reason);
    if (e != LLM_OK) LLM__FFAIL(why, reason, e);
    if (c.n_layers > n_layers_cap) LLM__FFAIL(why, "layer table too small for n_layers", LLM_EINVAL);
    if (!llm__little_endian()) LLM__FFAIL(why, "big-endian host: safetensors weights are little-endian", LLM_EUNSUPPORTED);
    {
        int64_t i;
        for (i = 0; i < st->n_tensors; i++) st->tensors[i].used = 0; /* a second load counts afresh */
    }
    d = c.d_model, hd = llm_config_head_dim(&c), qd = (int64_t)c.n_heads * hd, kvd = (int64_t)c.n_kv_heads * hd;
    ff = c.d_ff, V = c.vocab;
    memset(&w, 0, sizeof w);
    memset(layers, 0, (size_t)c.n_layers * sizeof *layers);
#define LLM__HT(nm, rows, cols, wp, vp)                                                                 \
    do {                                                                                              \
        e = llm__hf_take(st, nm, rows, cols, wp, vp, &ap, aend, &n_used, why);                        \
        if (e != LLM_OK) return e;                                                                    \
    } while (0)
#define LLM__HNAME(suffix) llm__hf_name(name, l, suffix)
    LLM__HT("model.embed_tokens.weight", V, d, &w.tok_embed, NULL);
    LLM__HT("model.norm.weight", 1, d, NULL, &w.out_norm);
    if (c.tied_embeddings) {
        w.lm_head = w.tok_embed;
        if (llm_safetensors_find(st, "lm_head.weight")) LLM__HT("lm_head.weight", V, d, &w.lm_head, NULL);
    } else {
        LLM__HT("lm_head.weight", V, d, &w.lm_head, NULL);
    }
    for (l = 0; l < c.n_layers; l++) {
        llm_layer_weights *y = &layers[l];
        LLM__HT(LLM__HNAME("input_layernorm.weight"), 1, d, NULL, &y->attn_norm);
        LLM__HT(LLM__HNAME("self_attn.q_proj.weight"), qd, d, &y->wq, NULL);
        LLM__HT(LLM__HNAME("self_attn.k_proj.weight"), kvd, d, &y->wk, NULL);
        LLM__HT(LLM__HNAME("self_attn.v_proj.weight"), kvd, d, &y->wv, NULL);
        LLM__HT(LLM__HNAME("self_attn.o_proj.weight"), d, qd, &y->wo, NULL);
        if (c.bias == LLM_BIAS_QKV) {
            LLM__HT(LLM__HNAME("self_attn.q_proj.bias"), 1, qd, NULL, &y->bq);
            LLM__HT(LLM__HNAME("self_attn.k_proj.bias"), 1, kvd, NULL, &y->bk);
            LLM__HT(LLM__HNAME("self_attn.v_proj.bias"), 1, kvd, NULL, &y->bv);
        }
        LLM__HT(LLM__HNAME("post_attention_layernorm.weight"), 1, d, NULL, &y->ffn_norm);
        LLM__HT(LLM__HNAME("mlp.gate_proj.weight"), ff, d, &y->w1, NULL);
        LLM__HT(LLM__HNAME("mlp.down_proj.weight"), d, ff, &y->w2, NULL);
        LLM__HT(LLM__HNAME("mlp.up_proj.weight"), ff, d, &y->w3, NULL);
    }
#undef LLM__HT
#undef LLM__HNAME
    /* every tensor of the file is read: one the forward pass would skip (q/k norms, a
       bias it does not know) means the model is not what llm.h would run */
    if (n_used != st->n_tensors) {
        int64_t i;
        for (i = 0; i < st->n_tensors; i++)
            if (!st->tensors[i].used)
                LLM__GFAIL_NAME(st, "tensor ", st->tensors[i].name, " is not used by the forward pass (refused, not ignored)",
                                LLM_EUNSUPPORTED);
    }
    w.layers = layers;
    memset(m, 0, sizeof *m);
    m->config = c;
    m->weights = w;
    m->file_version = 0;
    return LLM_OK;
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

/* A loader's block from LLM_MALLOC: under LLM_MMAP a record of the file's mapping first
   (none when the file was read: llm_model_free unmaps what it names), then `extra` bytes
   (64-byte aligned, at *base) for whatever the caller keeps with the file, then the file's
   bytes when they were read. */
typedef struct llm__filemap {
    void *addr; /* NULL: read, not mapped */
    size_t len;
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
    if (fm->addr) munmap(fm->addr, fm->len);
    fm->addr = NULL;
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
    size_t len, got;
    llm_config c;
    int ver, gs;
    uint64_t off;
    llm_status st;
    FILE *f;
    uint64_t n;
    int size_ok;
    if (why) *why = "";
    if (!m) LLM__FFAIL(why, "no model", LLM_EINVAL);
    memset(m, 0, sizeof *m);
    /* the header first: it says how many layers the table needs */
    LLM__MTRY(llm__open_read(path, &f, why));
    memset(head, 0, sizeof head);
    got = fread(head, 1, sizeof head, f);
    size_ok = llm__file_size(f, &n) == 0;
    fclose(f);
    if (!size_ok) LLM__FFAIL(why, "cannot seek in the file (or its size does not fit this platform's file offsets)", LLM_EIO);
    if (n > (uint64_t)SIZE_MAX) LLM__FFAIL(why, "file too large for this address space", LLM_ENOMEM);
    (void)got; /* a short file leaves zeros, which the length checks reject */
    LLM__MTRY(llm__llama2c_header(&c, &ver, &gs, &off, head, (size_t)n, why));
    LLM__MTRY(llm__read_file(path, (size_t)c.n_layers * sizeof(llm_layer_weights), &mem, &base, &data, &len, why));
    st = llm__llama2c_load(m, data, len, (llm_layer_weights *)(void *)base, c.n_layers, why, data);
    if (st != LLM_OK) {
        LLM_FREE(mem);
        return st;
    }
    m->owned = mem;
    return LLM_OK;
}

LLMDEF llm_status llm_tokenizer_load_file(llm_tokenizer *t, const char *path, int vocab, const char **why) {
    void *mem;
    char *base;
    unsigned char *data;
    size_t len;
    llm_status st;
    if (why) *why = "";
    if (!t) LLM__FFAIL(why, "no tokenizer", LLM_EINVAL);
    memset(t, 0, sizeof *t);
    LLM__MTRY(llm__read_file(path, 0, &mem, &base, &data, &len, why));
    st = llm_tokenizer_create(t, data, len, vocab, why);
    LLM_FREE(mem);
    return st;
}

LLMDEF llm_status llm_gguf_load_file(llm_model *m, const char *path, const char **why) {
    unsigned char head[24], *data;
    void *mem;
    char *base;
    size_t len, got;
    uint32_t ver;
    uint64_t nkv, nt, n, tables, layers;
    llm_gguf g;
    llm_status st;
    FILE *f;
    int size_ok;
    if (why) *why = "";
    if (!m) LLM__FFAIL(why, "no model", LLM_EINVAL);
    memset(m, 0, sizeof *m);
    /* the header first: its counts size the tables that go in front of the file's bytes */
    LLM__MTRY(llm__open_read(path, &f, why));
    memset(head, 0, sizeof head);
    got = fread(head, 1, sizeof head, f);
    size_ok = llm__file_size(f, &n) == 0;
    fclose(f);
    if (!size_ok) LLM__FFAIL(why, "cannot seek in the file (or its size does not fit this platform's file offsets)", LLM_EIO);
    if (n > (uint64_t)SIZE_MAX) LLM__FFAIL(why, "file too large for this address space", LLM_ENOMEM);
    (void)got;
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
    m->owned = mem;
    return LLM_OK;
}

/* dir + "/" + file into buf (cap bytes); NULL if it does not fit. */
static const char *llm__path_join(char *buf, size_t cap, const char *dir, const char *file) {
    size_t a = strlen(dir), b = strlen(file);
    if (a + b + 2 > cap) return NULL;
    memcpy(buf, dir, a);
    buf[a] = '/';
    memcpy(buf + a + 1, file, b + 1);
    return buf;
}

LLMDEF llm_status llm_hf_load_dir(llm_model *m, const char *dir, const char **why) {
    char path[4096], *cfg = NULL, *base, *cbase;
    void *cmem = NULL, *mem = NULL;
    unsigned char *cdata, head[8], *hdr = NULL, *data;
    size_t clen, len, stb, auxn, got;
    uint64_t hn, extra, off_aux, off_st, off_cfg;
    llm_config c;
    llm_safetensors st;
    llm_status e;
    FILE *f;
    if (why) *why = "";
    if (!m) LLM__FFAIL(why, "no model", LLM_EINVAL);
    memset(m, 0, sizeof *m);
    if (!dir || !llm__path_join(path, sizeof path, dir, "config.json")) LLM__FFAIL(why, "no directory, or its path is too long", LLM_EINVAL);
    /* config.json: small, read first, it sizes everything else */
    e = llm__read_file(path, 0, &cmem, &cbase, &cdata, &clen, why);
    if (e != LLM_OK) LLM__FFAIL(why, "cannot read config.json in the directory", e);
    e = llm_hf_read_config(&c, (const char *)cdata, clen, why);
    if (e != LLM_OK) goto fail;
    llm__path_join(path, sizeof path, dir, "model.safetensors");
    if (!(f = fopen(path, "rb"))) {
        llm__path_join(path, sizeof path, dir, "model.safetensors.index.json");
        if ((f = fopen(path, "rb")) != NULL) {
            fclose(f);
            e = LLM_EUNSUPPORTED;
            if (why) *why = "sharded safetensors (model.safetensors.index.json) are not read yet";
        } else {
            e = LLM_EIO;
            if (why) *why = "no model.safetensors in the directory";
        }
        goto fail;
    }
    /* the safetensors header sizes its tables */
    got = fread(head, 1, 8, f);
    hn = got == 8 ? llm__le64(head) : 0;
    {
        uint64_t fsize = 0;
        if (llm__file_size(f, &fsize) != 0 || fsize < 8 || hn > fsize - 8) hn = 0; /* a length past the end: refused below */
        if (fseek(f, 8, SEEK_SET) != 0) hn = 0;
    }
    if (got != 8 || hn < 2 || hn > ((uint64_t)1 << 31)) {
        fclose(f);
        e = LLM_EFORMAT;
        if (why) *why = "model.safetensors: header length missing, past the end of the file or above 2 GiB";
        goto fail;
    }
    hdr = (unsigned char *)LLM_MALLOC((size_t)hn + 8);
    if (!hdr || fread(hdr + 8, 1, (size_t)hn, f) != (size_t)hn) {
        fclose(f);
        e = hdr ? LLM_EFORMAT : LLM_ENOMEM;
        if (why) *why = hdr ? "model.safetensors ends inside its header" : "out of memory";
        goto fail;
    }
    fclose(f);
    memcpy(hdr, head, 8);
    stb = llm_safetensors_bytes(hdr, (size_t)hn + 8);
    LLM_FREE(hdr);
    hdr = NULL;
    if (stb == 0) {
        e = LLM_EFORMAT;
        if (why) *why = "model.safetensors: its header is not valid JSON";
        goto fail;
    }
    auxn = llm_hf_aux_floats(&c);
    off_aux = LLM__MALIGN((uint64_t)c.n_layers * sizeof(llm_layer_weights));
    off_st = off_aux + LLM__MALIGN((uint64_t)auxn * sizeof(float));
    off_cfg = off_st + LLM__MALIGN(stb);
    extra = off_cfg + clen + 1;
    e = LLM__LOAD_FILE(path, (size_t)extra, &mem, &base, &data, &len, why);
    if (e != LLM_OK) goto fail;
    {
        cfg = base + off_cfg;
        memcpy(cfg, cdata, clen);
        cfg[clen] = '\0';
        e = llm_safetensors_init(&st, base + off_st, stb, data, len, why);
        if (e == LLM_OK)
            e = llm_hf_load(m, cfg, clen, &st, (llm_layer_weights *)(void *)base, c.n_layers, (float *)(void *)(base + off_aux),
                            auxn, why);
        if (e != LLM_OK && why && *why == st.why) {
            memcpy(m->why, st.why, sizeof m->why);
            *why = m->why;
        }
    }
    if (e != LLM_OK) goto fail;
    LLM_FREE(cmem);
    m->owned = mem;
    return LLM_OK;
fail:
    if (hdr) LLM_FREE(hdr);
    llm__file_free(mem);
    if (cmem) LLM_FREE(cmem);
    return e;
}
#endif /* LLM_NO_STDIO */

/* ======================================================================================
   >>tokenizer implementation
   ====================================================================================== */

/* ---- >>unicode: UTF-8, the Unicode category and normalization tables, pre-tokenizer splits */

/* ---- vocabularies: SentencePiece and byte-level BPE, special tokens, decoding ---------- */

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
