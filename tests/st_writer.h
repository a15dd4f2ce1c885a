/* Writes Hugging Face model files into memory for the tests and the fuzz seeds: a
   safetensors file (uint64 little-endian header length N, N bytes of JSON padded with
   spaces so the data starts 8-byte aligned, then the tensors back to back) from fp32
   arrays stored as F32, F16, BF16 or I8, and a config.json text from an llm_config.
   stw_model holds a whole llama / mistral / qwen2 model's tensors under HF's names, as
   fp32 arrays in HF's layout (q/k rows in rotate-half order); stw_moe_name and
   stw_moe_config give a mixture of experts' names and keys. Include after llm.h. */
#ifndef LLM_ST_WRITER_H
#define LLM_ST_WRITER_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ckpt_writer.h" /* its byte sink, ckw_buf: a first pass with cap 0 sizes the output */
#if defined(__GNUC__) || defined(__clang__)
#define STW_FN static __attribute__((unused))
#else
#define STW_FN static
#endif

STW_FN void stw_bytes(ckw_buf *b, const void *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) ckw_byte(b, ((const unsigned char *)s)[i]);
}
STW_FN void stw_str(ckw_buf *b, const char *s) { stw_bytes(b, s, strlen(s)); }
STW_FN void stw_u64(ckw_buf *b, uint64_t v) {
    ckw_u32(b, (uint32_t)v);
    ckw_u32(b, (uint32_t)(v >> 32));
}

/* bytes per element of a dtype this writer can fill; 0 for others */
STW_FN int stw_elem_bytes(const char *dtype) {
    if (!strcmp(dtype, "F32")) return 4;
    if (!strcmp(dtype, "F16") || !strcmp(dtype, "BF16")) return 2;
    if (!strcmp(dtype, "I8")) return 1;
    return 0;
}
/* one value as dtype, little-endian (I8: rounded and clamped) */
STW_FN void stw_value(ckw_buf *b, const char *dtype, float x) {
    uint32_t u;
    uint16_t h;
    if (!strcmp(dtype, "F32")) {
        memcpy(&u, &x, 4);
        ckw_u32(b, u);
    } else if (!strcmp(dtype, "F16") || !strcmp(dtype, "BF16")) {
        h = dtype[0] == 'F' ? llm_f32_to_f16(x) : llm_f32_to_bf16(x);
        ckw_byte(b, h & 0xff), ckw_byte(b, h >> 8);
    } else {
        int v = x > 127.0f ? 127 : x < -128.0f ? -128 : (int)(x < 0 ? x - 0.5f : x + 0.5f);
        ckw_byte(b, (unsigned)v & 0xff);
    }
}

typedef struct stw_tensor {
    const char *name, *dtype; /* dtype as written; the data as stw_elem_bytes says */
    int n_dims;
    int64_t shape[5];
    const float *data;        /* product(shape) values (NULL: zeros) */
} stw_tensor;

STW_FN uint64_t stw_count(const stw_tensor *t) {
    uint64_t n = 1;
    int i;
    for (i = 0; i < t->n_dims; i++) n *= (uint64_t)t->shape[i];
    return n;
}

/* The header's JSON: metadata (a JSON object's text, or NULL) first, as the Python
   writer puts it, then each tensor with its offsets. */
STW_FN void stw_header_json(ckw_buf *b, const stw_tensor *t, int n, const char *metadata) {
    char num[64];
    uint64_t off = 0;
    int i, k;
    stw_str(b, "{");
    if (metadata) stw_str(b, "\"__metadata__\":"), stw_str(b, metadata);
    for (i = 0; i < n; i++) {
        uint64_t bytes = stw_count(&t[i]) * (uint64_t)stw_elem_bytes(t[i].dtype);
        if (i || metadata) stw_str(b, ",");
        stw_str(b, "\""), stw_str(b, t[i].name), stw_str(b, "\":{\"dtype\":\""), stw_str(b, t[i].dtype);
        stw_str(b, "\",\"shape\":[");
        for (k = 0; k < t[i].n_dims; k++) {
            sprintf(num, "%s%lld", k ? "," : "", (long long)t[i].shape[k]);
            stw_str(b, num);
        }
        sprintf(num, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + bytes));
        stw_str(b, num);
        off += bytes;
    }
    stw_str(b, "}");
}

/* A safetensors file of n tensors into p[cap] (p NULL / cap 0 to size it); the bytes
   it takes. pad extra spaces after the JSON (then up to the next multiple of 8, as the
   format allows). Keep each tensor's byte offset a multiple of its element size (even
   counts of 2-byte tensors before F32 ones): the reader wants aligned data. */
STW_FN size_t stw_safetensors(unsigned char *p, size_t cap, const stw_tensor *t, int n, const char *metadata, size_t pad) {
    ckw_buf b, h;
    size_t hn;
    uint64_t i;
    int k;
    h.p = NULL, h.len = 0, h.cap = 0;
    stw_header_json(&h, t, n, metadata);
    hn = h.len + pad;
    hn += (8 - (8 + hn) % 8) % 8;
    b.p = p, b.len = 0, b.cap = p ? cap : 0;
    stw_u64(&b, hn);
    stw_header_json(&b, t, n, metadata);
    while (b.len < 8 + hn) ckw_byte(&b, ' ');
    for (k = 0; k < n; k++) {
        uint64_t c = stw_count(&t[k]);
        if (!stw_elem_bytes(t[k].dtype)) continue;
        for (i = 0; i < c; i++) stw_value(&b, t[k].dtype, t[k].data ? t[k].data[i] : 0.0f);
    }
    return b.len;
}

/* A file with a header text of one's own (hostile tests): uint64 header_len (as given,
   which may lie), the header's bytes, then data_len bytes of data. */
STW_FN size_t stw_raw(unsigned char *p, size_t cap, uint64_t header_len, const char *header, const void *data,
                      size_t data_len) {
    ckw_buf b;
    b.p = p, b.len = 0, b.cap = p ? cap : 0;
    stw_u64(&b, header_len);
    stw_str(&b, header);
    if (data) stw_bytes(&b, data, data_len);
    else
        while (data_len--) ckw_byte(&b, 0);
    return b.len;
}

/* ---- a sharded checkpoint: model-0000k-of-0000n.safetensors + the index ----------------- */

/* shard k's file name (of n), as transformers names them */
STW_FN const char *stw_shard_name(char *buf, size_t cap, int k, int n) {
    snprintf(buf, cap, "model-%05d-of-%05d.safetensors", k + 1, n);
    return buf;
}
/* which of n shards tensor i (of count) goes in: contiguous runs, as transformers' size-
   capped split gives (a MoE's experts of one layer can straddle two shards) */
STW_FN int stw_shard_of(int i, int count, int n) { return (int)((int64_t)i * n / count); }
/* shard k of n of the tensors t[count] into p[cap] (p NULL to size it) */
STW_FN size_t stw_shard(unsigned char *p, size_t cap, const stw_tensor *t, int count, int k, int n) {
    stw_tensor *sub = (stw_tensor *)malloc((size_t)(count ? count : 1) * sizeof *sub);
    int i, m = 0;
    size_t len;
    if (!sub) return 0;
    for (i = 0; i < count; i++)
        if (stw_shard_of(i, count, n) == k) sub[m++] = t[i];
    len = stw_safetensors(p, cap, sub, m, "{\"format\":\"pt\"}", 0);
    free(sub);
    return len;
}
/* model.safetensors.index.json for that split into out[cap]; snprintf's count of bytes */
STW_FN int stw_index_json(char *out, size_t cap, const stw_tensor *t, int count, int n) {
    uint64_t total = 0;
    int i, k;
    char file[64];
    for (i = 0; i < count; i++) total += stw_count(&t[i]) * (uint64_t)stw_elem_bytes(t[i].dtype);
    k = snprintf(out, cap, "{\"metadata\": {\"total_size\": %llu}, \"weight_map\": {", (unsigned long long)total);
    for (i = 0; i < count; i++)
        k += snprintf(out + (k < (int)cap ? k : (int)cap), k < (int)cap ? cap - (size_t)k : 0, "%s\"%s\": \"%s\"", i ? ", " : "",
                      t[i].name, stw_shard_name(file, sizeof file, stw_shard_of(i, count, n), n));
    k += snprintf(out + (k < (int)cap ? k : (int)cap), k < (int)cap ? cap - (size_t)k : 0, "}}");
    return k;
}

/* ---- a whole model under Hugging Face's names ----------------------------------------- */

#define STW_MAX_TENSORS 512
typedef struct stw_model {
    llm_config c; /* the architecture, in HF's sense (rope_layout HALVES) */
    int n;
    char names[STW_MAX_TENSORS][64];
    int n_dims[STW_MAX_TENSORS];
    int64_t shape[STW_MAX_TENSORS][2];
    float *data[STW_MAX_TENSORS];
} stw_model;

/* the array of tensor `name`, NULL if the model has none */
STW_FN float *stw_get(const stw_model *m, const char *name) {
    int i;
    for (i = 0; i < m->n; i++)
        if (!strcmp(m->names[i], name)) return m->data[i];
    return NULL;
}
STW_FN float *stw_getl(const stw_model *m, int l, const char *suffix) {
    char name[64];
    snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix);
    return stw_get(m, name);
}

static float stw__rand(unsigned *seed) { /* uniform in [-0.5, 0.5) */
    *seed = *seed * 1103515245u + 12345u;
    return (float)((*seed >> 8) & 0xffff) / 65536.0f - 0.5f;
}
/* adds a tensor: rows 0 is a vector of cols; filled with scale x uniform(-0.5, 0.5),
   plus 1 for norm gains. Returns its array. */
STW_FN float *stw_add(stw_model *m, const char *name, int64_t rows, int64_t cols, float scale, int gain, unsigned *seed) {
    int64_t i, n = (rows ? rows : 1) * cols;
    float *x;
    if (m->n >= STW_MAX_TENSORS) return NULL;
    x = (float *)malloc((size_t)n * sizeof(float));
    if (!x) return NULL;
    for (i = 0; i < n; i++) x[i] = (gain ? 1.0f : 0.0f) + scale * stw__rand(seed);
    snprintf(m->names[m->n], sizeof m->names[0], "%s", name);
    m->n_dims[m->n] = rows ? 2 : 1;
    m->shape[m->n][0] = rows ? rows : cols;
    m->shape[m->n][1] = rows ? cols : 1;
    m->data[m->n++] = x;
    return x;
}

/* Every tensor llm_hf_load reads for config c, in random values (deterministic in seed):
   embed, final norm, lm_head unless tied, and per layer the norms, q/k/v/o (and q/k/v
   biases for LLM_BIAS_QKV), gate/down/up. 0 on success. */
STW_FN int stw_model_random(stw_model *m, const llm_config *c, unsigned seed) {
    int64_t d = c->d_model, hd = llm_config_head_dim(c), qd = (int64_t)c->n_heads * hd, kvd = (int64_t)c->n_kv_heads * hd;
    int64_t ff = c->d_ff, V = c->vocab;
    float s = 1.0f; /* weights of ~1/sqrt(d) keep activations O(1) */
    int l;
    char name[64];
    memset(m, 0, sizeof *m);
    m->c = *c;
    while (s * s * (float)d > 4.0f) s *= 0.5f;
#define STW_ADD(nm, r, cols, sc, g) \
    if (!stw_add(m, nm, r, cols, sc, g, &seed)) return 1
    STW_ADD("model.embed_tokens.weight", V, d, 2.0f, 0);
    STW_ADD("model.norm.weight", 0, d, 0.2f, 1);
    if (!c->tied_embeddings) STW_ADD("lm_head.weight", V, d, s, 0);
    for (l = 0; l < c->n_layers; l++) {
#define STW_L(suffix, r, cols, sc, g)                                       \
    snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix);           \
    STW_ADD(name, r, cols, sc, g)
        STW_L("input_layernorm.weight", 0, d, 0.2f, 1);
        STW_L("self_attn.q_proj.weight", qd, d, 2 * s, 0);
        STW_L("self_attn.k_proj.weight", kvd, d, 2 * s, 0);
        STW_L("self_attn.v_proj.weight", kvd, d, 2 * s, 0);
        STW_L("self_attn.o_proj.weight", d, qd, s, 0);
        if (c->bias == LLM_BIAS_QKV) {
            STW_L("self_attn.q_proj.bias", 0, qd, 0.5f, 0);
            STW_L("self_attn.k_proj.bias", 0, kvd, 0.5f, 0);
            STW_L("self_attn.v_proj.bias", 0, kvd, 0.5f, 0);
        }
        STW_L("post_attention_layernorm.weight", 0, d, 0.2f, 1);
        STW_L("mlp.gate_proj.weight", ff, d, 2 * s, 0);
        STW_L("mlp.down_proj.weight", d, ff, s, 0);
        STW_L("mlp.up_proj.weight", ff, d, 2 * s, 0);
#undef STW_L
    }
#undef STW_ADD
    return 0;
}

STW_FN void stw_model_free(stw_model *m) {
    int i;
    for (i = 0; i < m->n; i++) free(m->data[i]);
    m->n = 0;
}

/* The model's tensors for stw_safetensors, each stored as dtype (norms and biases as
   vec_dtype: HF files often keep them in the matrices' type, sometimes in F32). */
STW_FN int stw_model_tensors(const stw_model *m, const char *dtype, const char *vec_dtype, stw_tensor *t) {
    int i;
    for (i = 0; i < m->n; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].name = m->names[i];
        t[i].dtype = m->n_dims[i] == 1 ? vec_dtype : dtype;
        t[i].n_dims = m->n_dims[i];
        t[i].shape[0] = m->shape[i][0], t[i].shape[1] = m->shape[i][1];
        t[i].data = m->data[i];
    }
    return m->n;
}

/* config.json for c as model_type (llama, mistral, qwen2, ...), with `extra` (members
   of one's own, e.g. "\"hidden_act\": \"gelu\"", or NULL) appended. The bytes written
   (snprintf's count: the text was cut if >= cap). */
STW_FN int stw_config_json(char *out, size_t cap, const llm_config *c, const char *model_type, const char *extra) {
    char rs[256] = "null", hd[32] = "", sw[32] = "";
    if (c->rope_scale > 0)
        snprintf(rs, sizeof rs,
                 "{\"factor\": %.9g, \"low_freq_factor\": %.9g, \"high_freq_factor\": %.9g, "
                 "\"original_max_position_embeddings\": %d, \"rope_type\": \"llama3\"}",
                 c->rope_scale, c->rope_low_freq_factor, c->rope_high_freq_factor, c->rope_orig_ctx);
    if (c->head_dim) snprintf(hd, sizeof hd, "  \"head_dim\": %d,\n", c->head_dim);
    if (c->sliding_window) snprintf(sw, sizeof sw, "  \"sliding_window\": %d,\n", c->sliding_window);
    return snprintf(out, cap,
                    "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"%s\",\n"
                    "  \"hidden_size\": %d,\n  \"intermediate_size\": %d,\n  \"num_hidden_layers\": %d,\n"
                    "  \"num_attention_heads\": %d,\n  \"num_key_value_heads\": %d,\n%s"
                    "  \"vocab_size\": %d,\n  \"max_position_embeddings\": %d,\n  \"rms_norm_eps\": %.9g,\n"
                    "  \"rope_theta\": %.9g,\n  \"rope_scaling\": %s,\n%s  \"tie_word_embeddings\": %s,\n"
                    "  \"hidden_act\": \"silu\",\n  \"attention_bias\": false,\n  \"torch_dtype\": \"float32\",\n"
                    "  \"transformers_version\": \"4.45.0\"%s%s\n}\n",
                    model_type, c->d_model, c->d_ff, c->n_layers, c->n_heads, c->n_kv_heads, hd, c->vocab, c->max_seq_len,
                    c->norm_eps > 0 ? c->norm_eps : 1e-5f, c->rope_theta > 0 ? c->rope_theta : 10000.0f, rs, sw,
                    c->tied_embeddings ? "true" : "false", extra ? ",\n  " : "", extra ? extra : "");
}

/* ---- a mixture of experts under Hugging Face's names ----------------------------------
   transformers' modeling_mixtral.py, modeling_qwen2_moe.py and modeling_qwen3_moe.py: each
   expert's matrices are tensors of their own. */

/* Layer l's tensor `part` for model_type mt into buf: "router"; expert e's "gate", "up",
   "down" (Mixtral: w1, w3, w2); Qwen2-MoE's "shared_gate", "shared_up", "shared_down"
   and "shared_expert_gate" (nn.Linear(d, 1): a [1][d] matrix). */
STW_FN const char *stw_moe_name(char *buf, size_t cap, const char *mt, int l, const char *part, int e) {
    int mixtral = !strcmp(mt, "mixtral");
    const char *w = !strcmp(part, "gate") ? "w1" : !strcmp(part, "up") ? "w3" : "w2";
    if (!strcmp(part, "router"))
        snprintf(buf, cap, "model.layers.%d.%s.gate.weight", l, mixtral ? "block_sparse_moe" : "mlp");
    else if (!strcmp(part, "shared_expert_gate"))
        snprintf(buf, cap, "model.layers.%d.mlp.shared_expert_gate.weight", l);
    else if (!strncmp(part, "shared_", 7))
        snprintf(buf, cap, "model.layers.%d.mlp.shared_expert.%s_proj.weight", l, part + 7);
    else if (mixtral)
        snprintf(buf, cap, "model.layers.%d.block_sparse_moe.experts.%d.%s.weight", l, e, w);
    else
        snprintf(buf, cap, "model.layers.%d.mlp.experts.%d.%s_proj.weight", l, e, part);
    return buf;
}
/* config.json's members of c's experts for model_type mt (stw_config_json's extra; its
   intermediate_size is the experts' width for Mixtral, a dense layer's for Qwen). */
STW_FN int stw_moe_config(char *out, size_t cap, const llm_config *c, const char *mt) {
    char sh[64] = "";
    if (!strcmp(mt, "mixtral"))
        return snprintf(out, cap, "\"num_local_experts\": %d, \"num_experts_per_tok\": %d, \"router_jitter_noise\": 0.0, "
                        "\"output_router_logits\": false, \"sliding_window\": null", c->n_experts, c->n_experts_per_tok);
    if (c->n_shared_experts)
        snprintf(sh, sizeof sh, ", \"shared_expert_intermediate_size\": %d",
                 c->n_shared_experts * (c->d_ff_shared ? c->d_ff_shared : c->d_ff));
    return snprintf(out, cap,
                    "\"num_experts\": %d, \"num_experts_per_tok\": %d, \"moe_intermediate_size\": %d, \"norm_topk_prob\": %s, "
                    "\"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"use_sliding_window\": false, \"max_window_layers\": %d, "
                    "\"router_aux_loss_coef\": 0.001%s",
                    c->n_experts, c->n_experts_per_tok, c->d_ff, c->router == LLM_ROUTER_TOPK_NORM ? "true" : "false", c->n_layers, sh);
}

/* q/k rows between HF's rotate-half order and the interleaved (GGUF, llama2.c) order,
   per head of hd rows: interleaved row 2i+j is HF row j*hd/2+i (i < hd/2, j in {0,1}).
   to_interleaved 1: dst interleaved from src HF; 0: the inverse. cols 1 for a bias. */
STW_FN void stw_permute_qk(float *dst, const float *src, int n_heads, int hd, int64_t cols, int to_interleaved) {
    int h, i, j;
    for (h = 0; h < n_heads; h++)
        for (i = 0; i < hd / 2; i++)
            for (j = 0; j < 2; j++) {
                int64_t inter = (int64_t)h * hd + 2 * i + j, hf = (int64_t)h * hd + j * (hd / 2) + i;
                memcpy(dst + (to_interleaved ? inter : hf) * cols, src + (to_interleaved ? hf : inter) * cols,
                       (size_t)cols * sizeof(float));
            }
}
#endif
