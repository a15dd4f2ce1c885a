/* Writes llama2.c checkpoints and tokenizers into memory, byte by byte in little-endian
   order whatever the host's byte order, for the hostile-file tests and the fuzz seeds.
   Formats: ../shared/models/README.md (legacy = version 0, version 1 fp32, version 2
   int8 groups). Weights are small deterministic values; the point is the layout. */
#ifndef LLM_CKPT_WRITER_H
#define LLM_CKPT_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__GNUC__) || defined(__clang__)
#define CKW_FN static __attribute__((unused))
#else
#define CKW_FN static
#endif

typedef struct ckw_dims {
    int version;     /* 0 legacy, 1 fp32 "ak42", 2 int8 "ak42" */
    int dim, hidden, n_layers, n_heads, n_kv_heads, vocab, seq_len;
    int shared;      /* shared classifier (legacy: vocab written positive) */
    int group_size;  /* version 2 */
} ckw_dims;

typedef struct ckw_buf {
    unsigned char *p;
    size_t len, cap; /* len keeps counting past cap, so a first pass with cap 0 sizes it */
} ckw_buf;

CKW_FN void ckw_byte(ckw_buf *b, unsigned v) {
    if (b->len < b->cap) b->p[b->len] = (unsigned char)v;
    b->len++;
}
CKW_FN void ckw_u32(ckw_buf *b, uint32_t v) {
    ckw_byte(b, v & 0xff);
    ckw_byte(b, (v >> 8) & 0xff);
    ckw_byte(b, (v >> 16) & 0xff);
    ckw_byte(b, (v >> 24) & 0xff);
}
CKW_FN void ckw_i32(ckw_buf *b, int32_t v) { ckw_u32(b, (uint32_t)v); }
CKW_FN void ckw_f32(ckw_buf *b, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    ckw_u32(b, u);
}
/* n floats of a deterministic pattern in [-0.5, 0.5) (norm weights near 1 when norm) */
CKW_FN void ckw_floats(ckw_buf *b, size_t n, int norm, unsigned *seed) {
    size_t i;
    for (i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        ckw_f32(b, (norm ? 1.0f : 0.0f) + (float)((*seed >> 8) & 0xffff) / 65536.0f - 0.5f);
    }
}
/* version 2: n int8 values then n / gs fp32 scales */
CKW_FN void ckw_q8(ckw_buf *b, size_t n, int gs, unsigned *seed) {
    size_t i;
    for (i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        ckw_byte(b, (*seed >> 16) & 0xff);
    }
    for (i = 0; i < n / (size_t)gs; i++) ckw_f32(b, 1.0f / 256.0f);
}

/* Writes the checkpoint into p[0..cap) and returns its full size (call with cap 0 first
   to size the buffer). Nothing is validated: hostile dims are the point. Sizes use the
   dims as given, clamped at 0. */
CKW_FN size_t ckw_checkpoint(unsigned char *p, size_t cap, const ckw_dims *d) {
    ckw_buf b;
    unsigned seed = 12345;
    size_t D = d->dim > 0 ? (size_t)d->dim : 0, H = d->hidden > 0 ? (size_t)d->hidden : 0;
    size_t L = d->n_layers > 0 ? (size_t)d->n_layers : 0;
    size_t V = d->vocab > 0 ? (size_t)d->vocab : (size_t)(-(int64_t)d->vocab);
    size_t nh = d->n_heads > 0 ? (size_t)d->n_heads : 1, nkv = d->n_kv_heads > 0 ? (size_t)d->n_kv_heads : 0;
    size_t hd = D / nh, KV = hd * nkv, S = d->seq_len > 0 ? (size_t)d->seq_len : 0;
    int gs = d->group_size > 0 ? d->group_size : 1;
    size_t l;
    b.p = p;
    b.len = 0;
    b.cap = cap;
    if (d->version == 0) {
        ckw_i32(&b, d->dim);
        ckw_i32(&b, d->hidden);
        ckw_i32(&b, d->n_layers);
        ckw_i32(&b, d->n_heads);
        ckw_i32(&b, d->n_kv_heads);
        ckw_i32(&b, d->shared ? d->vocab : -d->vocab);
        ckw_i32(&b, d->seq_len);
        ckw_floats(&b, V * D, 0, &seed);
        ckw_floats(&b, L * D, 1, &seed);
        ckw_floats(&b, L * D * D + 2 * L * KV * D + L * D * D, 0, &seed);
        ckw_floats(&b, L * D, 1, &seed);
        ckw_floats(&b, 3 * L * H * D, 0, &seed);
        ckw_floats(&b, D, 1, &seed);
        ckw_floats(&b, S * hd, 0, &seed); /* the two unused RoPE tables, S * hd / 2 each */
        if (!d->shared) ckw_floats(&b, V * D, 0, &seed);
        return b.len;
    }
    ckw_u32(&b, 0x616b3432u);
    ckw_i32(&b, d->version);
    ckw_i32(&b, d->dim);
    ckw_i32(&b, d->hidden);
    ckw_i32(&b, d->n_layers);
    ckw_i32(&b, d->n_heads);
    ckw_i32(&b, d->n_kv_heads);
    ckw_i32(&b, d->vocab);
    ckw_i32(&b, d->seq_len);
    ckw_byte(&b, d->shared ? 1 : 0);
    if (d->version == 2) ckw_i32(&b, d->group_size);
    while (b.len < 256) ckw_byte(&b, 0);
    ckw_floats(&b, 2 * L * D + D, 1, &seed); /* norms first, always fp32 */
    if (d->version != 2) {
        ckw_floats(&b, V * D, 0, &seed);
        ckw_floats(&b, L * D * D + 2 * L * KV * D + L * D * D + 3 * L * H * D, 0, &seed);
        if (!d->shared) ckw_floats(&b, V * D, 0, &seed);
        return b.len;
    }
    /* version 2: each matrix (per layer, as llama2.c's export.py writes them) as int8
       values then its scales */
    ckw_q8(&b, V * D, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, D * D, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, KV * D, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, KV * D, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, D * D, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, H * D, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, D * H, gs, &seed);
    for (l = 0; l < L; l++) ckw_q8(&b, H * D, gs, &seed);
    if (!d->shared) ckw_q8(&b, V * D, gs, &seed);
    return b.len;
}

/* A llama2.c tokenizer of `vocab` pieces: <unk>, <s>, </s>, the 256 byte pieces <0xNN>,
   then single printable characters and a few merges, with increasing scores so merges
   have a best pair. Returns the full size (cap 0 to size it). vocab >= 259 gives every
   byte a fallback. */
CKW_FN size_t ckw_tokenizer(unsigned char *p, size_t cap, int vocab) {
    static const char *const merges[] = {" t", "he", " the", "in", " a", "an", "er", " s", "ing", "re",
                                          "on", " w", "nd", " and", "ed", " o", "is", "at", "en", "ll"};
    ckw_buf b;
    int i, n = 0;
    char piece[16];
    b.p = p;
    b.len = 0;
    b.cap = cap;
    ckw_i32(&b, 8);
    for (i = 0; i < vocab; i++) {
        const char *s;
        size_t len, k;
        if (i == 0) s = "<unk>";
        else if (i == 1) s = "\n<s>\n";
        else if (i == 2) s = "\n</s>\n";
        else if (i < 259) {
            static const char hex[] = "0123456789ABCDEF";
            piece[0] = '<'; piece[1] = '0'; piece[2] = 'x';
            piece[3] = hex[((i - 3) >> 4) & 15]; piece[4] = hex[(i - 3) & 15];
            piece[5] = '>'; piece[6] = 0;
            s = piece;
        } else if (i < 259 + 95) {
            piece[0] = (char)(' ' + (i - 259));
            piece[1] = 0;
            s = piece;
        } else {
            s = merges[n++ % (int)(sizeof merges / sizeof merges[0])];
        }
        len = strlen(s);
        ckw_f32(&b, i < 259 ? 0.0f : (float)-(i - 259) * 0.01f + (i >= 259 + 95 ? 10.0f : 0.0f));
        ckw_i32(&b, (int32_t)len);
        for (k = 0; k < len; k++) ckw_byte(&b, (unsigned char)s[k]);
    }
    return b.len;
}
#endif
