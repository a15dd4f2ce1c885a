/* Writes GGUF files (versions 2 and 3) into memory for the GGUF tests and the fuzz seeds,
   byte by byte in little-endian order whatever the host (big-endian on request). Layout
   (ggml's docs/gguf.md): "GGUF", uint32 version, uint64 tensor count, uint64 metadata
   count; the metadata (string key, uint32 value type, value); the tensor infos (string
   name, uint32 n_dims, uint64 ne[n_dims] innermost first, uint32 ggml type, uint64
   offset into the data section); zero padding to the alignment; the data, each tensor at
   an aligned offset. A string is a uint64 length and its bytes; an array a uint32 element
   type, a uint64 count and the elements.
   Nothing is validated, and each field can be written wrong on purpose: the counts
   (n_kv_lie, n_tensors_lie), any metadata byte (gw_key + the raw gw_m_* writers), a
   tensor's n_dims, ne, type, offset (offset_lie) or data size (bytes_lie), the version,
   the byte order. Include after llm.h: F16 / BF16 data is rounded with llm_f32_to_f16 /
   llm_f32_to_bf16, the same rounding a test uses for the weights it compares with.

       gw w;  gw_init(&w);
       gw_kv_str(&w, "general.architecture", "llama");
       gw_tensor_add(&w, "output_norm.weight", 1, ne, GW_F32, bytes, n_bytes);
       gw_finish(&w);        the file is w.p[0 .. w.n)
       gw_free(&w); */
#ifndef LLM_GGUF_WRITER_H
#define LLM_GGUF_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) || defined(__clang__)
#define GW_FN static __attribute__((unused))
#else
#define GW_FN static
#endif

/* ggml tensor type ids (ggml.h's enum ggml_type) */
enum {
    GW_F32 = 0, GW_F16 = 1, GW_Q4_0 = 2, GW_Q4_1 = 3, GW_Q5_0 = 6, GW_Q5_1 = 7, GW_Q8_0 = 8, GW_Q8_1 = 9,
    GW_Q2_K = 10, GW_Q3_K = 11, GW_Q4_K = 12, GW_Q5_K = 13, GW_Q6_K = 14, GW_Q8_K = 15, GW_IQ2_XXS = 16,
    GW_IQ2_XS = 17, GW_IQ3_XXS = 18, GW_IQ1_S = 19, GW_IQ4_NL = 20, GW_IQ3_S = 21, GW_IQ2_S = 22,
    GW_IQ4_XS = 23, GW_I8 = 24, GW_I16 = 25, GW_I32 = 26, GW_I64 = 27, GW_F64 = 28, GW_IQ1_M = 29, GW_BF16 = 30,
    GW_TQ1_0 = 34, GW_TQ2_0 = 35, GW_MXFP4 = 39
};
/* GGUF metadata value types (the spec's numbering) */
enum {
    GW_T_UINT8 = 0, GW_T_INT8, GW_T_UINT16, GW_T_INT16, GW_T_UINT32, GW_T_INT32, GW_T_FLOAT32, GW_T_BOOL,
    GW_T_STRING, GW_T_ARRAY, GW_T_UINT64, GW_T_INT64, GW_T_FLOAT64
};

/* A tensor type's block: elements and bytes (ggml-common.h's block structs); 0 if unknown. */
GW_FN void gw_type_block(uint32_t type, uint64_t *elems, uint64_t *bytes) {
    static const struct { uint32_t type, elems, bytes; } t[] = {
        {GW_F32, 1, 4},       {GW_F16, 1, 2},        {GW_Q4_0, 32, 18},     {GW_Q4_1, 32, 20},    {GW_Q5_0, 32, 22},
        {GW_Q5_1, 32, 24},    {GW_Q8_0, 32, 34},     {GW_Q8_1, 32, 36},     {GW_Q2_K, 256, 84},   {GW_Q3_K, 256, 110},
        {GW_Q4_K, 256, 144},  {GW_Q5_K, 256, 176},   {GW_Q6_K, 256, 210},   {GW_Q8_K, 256, 292},  {GW_IQ2_XXS, 256, 66},
        {GW_IQ2_XS, 256, 74}, {GW_IQ3_XXS, 256, 98}, {GW_IQ1_S, 256, 50},   {GW_IQ4_NL, 32, 18},  {GW_IQ3_S, 256, 110},
        {GW_IQ2_S, 256, 82},  {GW_IQ4_XS, 256, 136}, {GW_I8, 1, 1},         {GW_I16, 1, 2},       {GW_I32, 1, 4},
        {GW_I64, 1, 8},       {GW_F64, 1, 8},        {GW_IQ1_M, 256, 56},   {GW_BF16, 1, 2},      {GW_TQ1_0, 256, 54},
        {GW_TQ2_0, 256, 66},  {GW_MXFP4, 32, 17},
    };
    size_t i;
    *elems = *bytes = 0;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].type == type) *elems = t[i].elems, *bytes = t[i].bytes;
}
/* Bytes of a tensor of this type and shape; 0 for an unknown type, a row that is not a
   whole number of blocks, a zero dimension or a size past 2^62. */
GW_FN uint64_t gw_tensor_size(uint32_t type, uint32_t n_dims, const uint64_t *ne) {
    uint64_t be, bb, rows = 1, i;
    gw_type_block(type, &be, &bb);
    if (!be || n_dims == 0 || ne[0] == 0 || ne[0] % be) return 0;
    for (i = 1; i < n_dims && i < 8; i++) {
        if (ne[i] == 0 || rows > ((uint64_t)1 << 62) / ne[i]) return 0;
        rows *= ne[i];
    }
    if (ne[0] / be > ((uint64_t)1 << 62) / bb / rows) return 0;
    return rows * (ne[0] / be) * bb;
}

#define GW_MAX_TENSORS 128

typedef struct gw_tensor {
    const char *name;
    uint32_t n_dims;      /* written as is; ne[0 .. min(n_dims, 8)) follow */
    uint64_t ne[8];       /* innermost first: a [out][in] matrix is {in, out} */
    uint32_t type;
    const void *data;     /* data_n bytes copied first, zeros after (NULL: all zeros): the file's
                             bytes as they are, so floats go through gw_tensor_floats */
    size_t data_n;
    uint64_t offset;      /* where gw_finish put the data, from the data section's start */
    uint64_t bytes;       /* how much it wrote: gw_tensor_size unless bytes_lie */
    int offset_lie;       /* write offset_value in the info instead of the true offset */
    uint64_t offset_value;
    int bytes_lie;        /* write bytes_value bytes of data (the info is unchanged) */
    uint64_t bytes_value;
    int skip;             /* leave it out: no info, no data */
    void *owned;          /* data the writer converted (freed by gw_free) */
} gw_tensor;

typedef struct gw_bytes {
    unsigned char *p;
    size_t n, cap;
} gw_bytes;

typedef struct gw {
    uint32_t version;        /* 3 */
    uint32_t alignment;      /* the layout's: 32 unless gw_alignment says otherwise */
    int big_endian;          /* every number most significant byte first */
    int no_end_pad;          /* no padding after the last tensor's data (ggml writes it) */
    int no_data_pad;         /* no padding before the data section: with no tensors the
                                file then ends where the metadata does */
    int n_kv_lie, n_tensors_lie;       /* write these counts instead of the true ones */
    uint64_t n_kv_value, n_tensors_value;
    uint64_t n_kv;           /* metadata entries written (gw_key counts them) */
    gw_bytes meta;           /* the metadata section as written so far */
    size_t kv_at[256];       /* where each entry starts in meta */
    gw_tensor t[GW_MAX_TENSORS];
    int n_t;
    /* gw_finish's output: the file, and where its parts start in it */
    unsigned char *p;
    size_t n;
    size_t meta_at, infos_at, data_at, info_at[GW_MAX_TENSORS];
} gw;

GW_FN void gw__put(gw_bytes *b, const void *src, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (unsigned char *)realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    if (n) memcpy(b->p + b->n, src, n);
    b->n += n;
}
/* an n-byte unsigned number in the file's byte order */
GW_FN void gw__num(gw_bytes *b, int big_endian, uint64_t v, int n) {
    unsigned char c[8];
    int i;
    for (i = 0; i < n; i++) c[big_endian ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
    gw__put(b, c, (size_t)n);
}
GW_FN void gw__str(gw_bytes *b, int big_endian, const char *s, size_t n) {
    gw__num(b, big_endian, n, 8);
    gw__put(b, s, n);
}

GW_FN void gw_init(gw *w) {
    memset(w, 0, sizeof *w);
    w->version = 3;
    w->alignment = 32;
}
GW_FN void gw_free(gw *w) {
    int i;
    for (i = 0; i < w->n_t; i++) free(w->t[i].owned);
    free(w->meta.p);
    free(w->p);
    memset(w, 0, sizeof *w);
}

/* ---- metadata: raw pieces (for values written wrong on purpose) ---------------------- */
GW_FN void gw_m_u8(gw *w, unsigned v) { gw__num(&w->meta, w->big_endian, v & 0xff, 1); }
GW_FN void gw_m_u16(gw *w, unsigned v) { gw__num(&w->meta, w->big_endian, v & 0xffff, 2); }
GW_FN void gw_m_u32(gw *w, uint32_t v) { gw__num(&w->meta, w->big_endian, v, 4); }
GW_FN void gw_m_u64(gw *w, uint64_t v) { gw__num(&w->meta, w->big_endian, v, 8); }
GW_FN void gw_m_f32(gw *w, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    gw_m_u32(w, u);
}
GW_FN void gw_m_f64(gw *w, double f) {
    uint64_t u;
    memcpy(&u, &f, 8);
    gw_m_u64(w, u);
}
GW_FN void gw_m_str(gw *w, const char *s) { gw__str(&w->meta, w->big_endian, s, strlen(s)); }
/* a string whose length field says len (the bytes written are s's own) */
GW_FN void gw_m_str_lie(gw *w, const char *s, uint64_t len) {
    gw_m_u64(w, len);
    gw__put(&w->meta, s, strlen(s));
}
/* starts an entry: its key and value type; the value follows (gw_m_*) */
GW_FN void gw_key(gw *w, const char *key, uint32_t type) {
    if (w->n_kv < sizeof w->kv_at / sizeof w->kv_at[0]) w->kv_at[w->n_kv] = w->meta.n;
    w->n_kv++;
    gw_m_str(w, key);
    gw_m_u32(w, type);
}
/* starts an array entry: the element type and count; the elements follow */
GW_FN void gw_key_arr(gw *w, const char *key, uint32_t elem_type, uint64_t count) {
    gw_key(w, key, GW_T_ARRAY);
    gw_m_u32(w, elem_type);
    gw_m_u64(w, count);
}

/* ---- metadata: whole entries ---------------------------------------------------------- */
GW_FN void gw_kv_u8(gw *w, const char *k, uint8_t v) { gw_key(w, k, GW_T_UINT8), gw_m_u8(w, v); }
GW_FN void gw_kv_i8(gw *w, const char *k, int8_t v) { gw_key(w, k, GW_T_INT8), gw_m_u8(w, (unsigned)(uint8_t)v); }
GW_FN void gw_kv_u16(gw *w, const char *k, uint16_t v) { gw_key(w, k, GW_T_UINT16), gw_m_u16(w, v); }
GW_FN void gw_kv_i16(gw *w, const char *k, int16_t v) { gw_key(w, k, GW_T_INT16), gw_m_u16(w, (unsigned)(uint16_t)v); }
GW_FN void gw_kv_u32(gw *w, const char *k, uint32_t v) { gw_key(w, k, GW_T_UINT32), gw_m_u32(w, v); }
GW_FN void gw_kv_i32(gw *w, const char *k, int32_t v) { gw_key(w, k, GW_T_INT32), gw_m_u32(w, (uint32_t)v); }
GW_FN void gw_kv_u64(gw *w, const char *k, uint64_t v) { gw_key(w, k, GW_T_UINT64), gw_m_u64(w, v); }
GW_FN void gw_kv_i64(gw *w, const char *k, int64_t v) { gw_key(w, k, GW_T_INT64), gw_m_u64(w, (uint64_t)v); }
GW_FN void gw_kv_f32(gw *w, const char *k, float v) { gw_key(w, k, GW_T_FLOAT32), gw_m_f32(w, v); }
GW_FN void gw_kv_f64(gw *w, const char *k, double v) { gw_key(w, k, GW_T_FLOAT64), gw_m_f64(w, v); }
GW_FN void gw_kv_bool(gw *w, const char *k, int v) { gw_key(w, k, GW_T_BOOL), gw_m_u8(w, v ? 1u : 0u); }
GW_FN void gw_kv_str(gw *w, const char *k, const char *v) { gw_key(w, k, GW_T_STRING), gw_m_str(w, v); }
GW_FN void gw_kv_arr_i32(gw *w, const char *k, const int32_t *v, uint64_t n) {
    uint64_t i;
    gw_key_arr(w, k, GW_T_INT32, n);
    for (i = 0; i < n; i++) gw_m_u32(w, (uint32_t)v[i]);
}
GW_FN void gw_kv_arr_f32(gw *w, const char *k, const float *v, uint64_t n) {
    uint64_t i;
    gw_key_arr(w, k, GW_T_FLOAT32, n);
    for (i = 0; i < n; i++) gw_m_f32(w, v[i]);
}
GW_FN void gw_kv_arr_str(gw *w, const char *k, const char *const *v, uint64_t n) {
    uint64_t i;
    gw_key_arr(w, k, GW_T_STRING, n);
    for (i = 0; i < n; i++) gw_m_str(w, v[i]);
}
/* general.alignment, and the layout that follows it */
GW_FN void gw_alignment(gw *w, uint32_t a) {
    gw_kv_u32(w, "general.alignment", a);
    w->alignment = a;
}

/* ---- tensors ------------------------------------------------------------------------- */
/* Adds a tensor (name and data are the caller's until gw_finish). Returns its index. */
GW_FN int gw_tensor_add(gw *w, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type, const void *data,
                        size_t data_n) {
    gw_tensor *t;
    uint32_t i;
    if (w->n_t >= GW_MAX_TENSORS) abort();
    t = &w->t[w->n_t];
    memset(t, 0, sizeof *t);
    t->name = name, t->n_dims = n_dims, t->type = type, t->data = data, t->data_n = data_n;
    for (i = 0; i < 8; i++) t->ne[i] = i < n_dims ? ne[i] : 1;
    return w->n_t++;
}
GW_FN int gw_find(const gw *w, const char *name) {
    int i;
    for (i = 0; i < w->n_t; i++)
        if (strcmp(w->t[i].name, name) == 0) return i;
    return -1;
}
/* n floats as type (F32 little-endian, F16 or BF16 rounded to nearest even), owned by
   tensor i, which now points at them. */
GW_FN void gw_tensor_floats(gw *w, int i, const float *x, size_t n, uint32_t type) {
    gw_tensor *t = &w->t[i];
    size_t k, es = type == GW_F32 ? 4 : 2;
    unsigned char *p = (unsigned char *)malloc(n ? n * es : 1);
    if (!p) abort();
    for (k = 0; k < n; k++) {
        uint32_t u;
        if (type == GW_F32) memcpy(&u, &x[k], 4);
        else u = type == GW_F16 ? llm_f32_to_f16(x[k]) : llm_f32_to_bf16(x[k]);
        p[es * k] = (unsigned char)u, p[es * k + 1] = (unsigned char)(u >> 8);
        if (es == 4) p[es * k + 2] = (unsigned char)(u >> 16), p[es * k + 3] = (unsigned char)(u >> 24);
    }
    free(t->owned);
    t->owned = p, t->data = p, t->data_n = n * es, t->type = type;
}
/* A tensor of floats: an F32, F16 or BF16 copy of x, ne[0] * ne[1] * .. of them. */
GW_FN int gw_tensor_f(gw *w, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type, const float *x) {
    uint64_t n = 1;
    uint32_t d;
    int i = gw_tensor_add(w, name, n_dims, ne, type, NULL, 0);
    for (d = 0; d < n_dims; d++) n *= ne[d];
    gw_tensor_floats(w, i, x, (size_t)n, type);
    return i;
}

GW_FN uint64_t gw__align(uint64_t x, uint64_t a) { return a ? (x + a - 1) / a * a : x; }

/* Lays the file out into w->p[0 .. w->n): header, metadata, tensor infos, padding, data. */
GW_FN void gw_finish(gw *w) {
    gw_bytes b;
    uint64_t off = 0, n_t = 0;
    int i, last = -1;
    static const unsigned char zeros[64] = {0};
    memset(&b, 0, sizeof b);
    for (i = 0; i < w->n_t; i++) {
        gw_tensor *t = &w->t[i];
        if (t->skip) continue;
        t->bytes = t->bytes_lie ? t->bytes_value : gw_tensor_size(t->type, t->n_dims, t->ne);
        t->offset = gw__align(off, w->alignment);
        off = t->offset + t->bytes;
        n_t++;
        last = i;
    }
    gw__put(&b, "GGUF", 4);
    gw__num(&b, w->big_endian, w->version, 4);
    gw__num(&b, w->big_endian, w->n_tensors_lie ? w->n_tensors_value : n_t, 8);
    gw__num(&b, w->big_endian, w->n_kv_lie ? w->n_kv_value : w->n_kv, 8);
    w->meta_at = b.n;
    gw__put(&b, w->meta.p, w->meta.n);
    w->infos_at = b.n;
    for (i = 0; i < w->n_t; i++) {
        const gw_tensor *t = &w->t[i];
        uint32_t d;
        w->info_at[i] = b.n;
        if (t->skip) continue;
        gw__str(&b, w->big_endian, t->name, strlen(t->name));
        gw__num(&b, w->big_endian, t->n_dims, 4);
        for (d = 0; d < t->n_dims && d < 8; d++) gw__num(&b, w->big_endian, t->ne[d], 8);
        gw__num(&b, w->big_endian, t->type, 4);
        gw__num(&b, w->big_endian, t->offset_lie ? t->offset_value : t->offset, 8);
    }
    while (!w->no_data_pad && b.n % w->alignment) gw__put(&b, zeros, 1);
    w->data_at = b.n;
    for (i = 0; i < w->n_t; i++) {
        const gw_tensor *t = &w->t[i];
        uint64_t k = t->data_n < t->bytes ? t->data_n : t->bytes;
        if (t->skip) continue;
        while (b.n < w->data_at + t->offset) gw__put(&b, zeros, 1);
        gw__put(&b, t->data, (size_t)k);
        for (; k < t->bytes; k += 64) gw__put(&b, zeros, (size_t)(t->bytes - k < 64 ? t->bytes - k : 64));
        if (i == last && !w->no_end_pad)
            while ((b.n - w->data_at) % w->alignment) gw__put(&b, zeros, 1);
    }
    free(w->p);
    w->p = b.p, w->n = b.n;
}

/* ---- a whole llama-architecture model ------------------------------------------------- */
/* The arrays hold every layer in a row, as llama2.c's files do: wq [L][n_heads*hd][d],
   wk and wv [L][n_kv_heads*hd][d], wo [L][d][n_heads*hd], w1 (gate) and w3 (up)
   [L][ff][d], w2 (down) [L][d][ff], norms [L][d]; emb [vocab][d]; out NULL for a tied
   output (no output.weight). The matrices (token_embd and output too) are stored as
   type, the norms as F32. */
typedef struct gw_llama {
    const char *arch;      /* general.architecture and the keys' prefix; NULL = "llama" */
    int d, ff, n_layers, n_heads, n_kv_heads, vocab, ctx;
    float eps, theta;      /* 0: llama.attention.layer_norm_rms_epsilon / llama.rope.freq_base not written */
    int rope_dim;          /* 0: llama.rope.dimension_count not written */
    uint32_t type;         /* GW_F32, GW_F16 or GW_BF16 */
    const float *emb, *attn_norm, *ffn_norm, *wq, *wk, *wv, *wo, *w1, *w2, *w3, *out_norm, *out;
} gw_llama;

/* Writes the metadata and adds the tensors (token_embd, output_norm, [output], then each
   block's), names copied into names[]; the caller may add or change entries, then
   gw_finish. */
typedef struct gw_names {
    char s[GW_MAX_TENSORS][48];
} gw_names;
GW_FN void gw_llama_model(gw *w, const gw_llama *m, gw_names *names) {
    const char *arch = m->arch ? m->arch : "llama";
    char key[96];
    uint64_t d = (uint64_t)m->d, ff = (uint64_t)m->ff, hd = d / (uint64_t)m->n_heads;
    uint64_t qd = hd * (uint64_t)m->n_heads, kvd = hd * (uint64_t)m->n_kv_heads, V = (uint64_t)m->vocab, ne[2];
    int l, k = 0;
    uint32_t ty = m->type;
#define GW__KEY(suffix) (snprintf(key, sizeof key, "%s.%s", arch, suffix), key)
#define GW__NAME(...) (snprintf(names->s[k], sizeof names->s[k], __VA_ARGS__), names->s[k++])
    gw_kv_str(w, "general.architecture", arch);
    gw_kv_str(w, "general.name", "gguf_writer test model");
    gw_kv_u32(w, GW__KEY("context_length"), (uint32_t)m->ctx);
    gw_kv_u32(w, GW__KEY("embedding_length"), (uint32_t)m->d);
    gw_kv_u32(w, GW__KEY("feed_forward_length"), (uint32_t)m->ff);
    gw_kv_u32(w, GW__KEY("block_count"), (uint32_t)m->n_layers);
    gw_kv_u32(w, GW__KEY("attention.head_count"), (uint32_t)m->n_heads);
    gw_kv_u32(w, GW__KEY("attention.head_count_kv"), (uint32_t)m->n_kv_heads);
    if (m->eps != 0) gw_kv_f32(w, GW__KEY("attention.layer_norm_rms_epsilon"), m->eps);
    if (m->theta != 0) gw_kv_f32(w, GW__KEY("rope.freq_base"), m->theta);
    if (m->rope_dim) gw_kv_u32(w, GW__KEY("rope.dimension_count"), (uint32_t)m->rope_dim);
    ne[0] = d, ne[1] = V;
    gw_tensor_f(w, GW__NAME("token_embd.weight"), 2, ne, ty, m->emb);
    gw_tensor_f(w, GW__NAME("output_norm.weight"), 1, ne, GW_F32, m->out_norm);
    if (m->out) gw_tensor_f(w, GW__NAME("output.weight"), 2, ne, ty, m->out);
    for (l = 0; l < m->n_layers; l++) {
        size_t L = (size_t)l;
        ne[0] = d;
        gw_tensor_f(w, GW__NAME("blk.%d.attn_norm.weight", l), 1, ne, GW_F32, m->attn_norm + L * d);
        ne[1] = qd;
        gw_tensor_f(w, GW__NAME("blk.%d.attn_q.weight", l), 2, ne, ty, m->wq + L * qd * d);
        ne[1] = kvd;
        gw_tensor_f(w, GW__NAME("blk.%d.attn_k.weight", l), 2, ne, ty, m->wk + L * kvd * d);
        gw_tensor_f(w, GW__NAME("blk.%d.attn_v.weight", l), 2, ne, ty, m->wv + L * kvd * d);
        ne[0] = qd, ne[1] = d;
        gw_tensor_f(w, GW__NAME("blk.%d.attn_output.weight", l), 2, ne, ty, m->wo + L * d * qd);
        ne[0] = d;
        gw_tensor_f(w, GW__NAME("blk.%d.ffn_norm.weight", l), 1, ne, GW_F32, m->ffn_norm + L * d);
        ne[1] = ff;
        gw_tensor_f(w, GW__NAME("blk.%d.ffn_gate.weight", l), 2, ne, ty, m->w1 + L * ff * d);
        gw_tensor_f(w, GW__NAME("blk.%d.ffn_up.weight", l), 2, ne, ty, m->w3 + L * ff * d);
        ne[0] = ff, ne[1] = d;
        gw_tensor_f(w, GW__NAME("blk.%d.ffn_down.weight", l), 2, ne, ty, m->w2 + L * d * ff);
    }
#undef GW__KEY
#undef GW__NAME
}
#endif
