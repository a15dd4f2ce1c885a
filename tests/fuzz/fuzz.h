/* Shared by the libFuzzer targets in tests/fuzz (built by `make fuzz` with clang
   -fsanitize=fuzzer,address,undefined). Each target includes this after defining
   LLM_IMPLEMENTATION and including llm.h, and defines LLVMFuzzerTestOneInput.
   fz_* reads typed values off the front of the fuzz input, returning zeros once it runs
   out, so every input is a valid sequence of choices. The model loaders' targets share
   the rest: the input's own aligned copy and its bounds, and what a model a loader
   accepted must be (every weight inside what it was given, a config that passes
   llm_config_check, small ones run through the forward pass). */
#ifndef LLM_FUZZ_H
#define LLM_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) || defined(__clang__)
#define FZ_UNUSED __attribute__((unused))
#else
#define FZ_UNUSED
#endif
#define FZ_FN static FZ_UNUSED

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

static uint32_t fz_u32(fz *f) {
    uint32_t v = 0;
    size_t k = f->n < 4 ? f->n : 4, i;
    for (i = 0; i < k; i++) v |= (uint32_t)f->p[i] << (8 * i);
    f->p += k;
    f->n -= k;
    return v;
}
static uint8_t fz_u8(fz *f) {
    uint8_t v = f->n ? f->p[0] : 0;
    if (f->n) {
        f->p++;
        f->n--;
    }
    return v;
}
/* an int that is usually small and sometimes hostile (negative, huge, INT_MAX) */
static int fz_int(fz *f) {
    uint8_t sel = fz_u8(f);
    uint32_t v = fz_u32(f);
    switch (sel & 7) {
    case 0: return (int)(v & 0xff);
    case 1: return (int)(v & 0xffff);
    case 2: return (int)v; /* anything, negative included */
    case 3: return 1 << (v & 31 ? (v & 31) - 1 : 0);
    default: return (int)(v & 0x7f);
    }
}
static float fz_float(fz *f) {
    uint32_t v = fz_u32(f);
    float x;
    memcpy(&x, &v, 4);
    return x;
}

/* ---- the model loaders' targets ---------------------------------------------------- */

static const unsigned char *fz_lo FZ_UNUSED, *fz_hi FZ_UNUSED; /* the copy of the input the loader reads */

/* size bytes of data in their own malloc'd buffer (aligned, as the loaders require), its
   bounds in fz_lo / fz_hi; NULL without memory */
FZ_FN unsigned char *fz_copy(const void *data, size_t size) {
    unsigned char *buf = (unsigned char *)malloc(size ? size : 1);
    if (!buf) return NULL;
    if (size) memcpy(buf, data, size);
    fz_lo = buf, fz_hi = buf + size;
    return buf;
}
/* aborts unless p[0 .. bytes) lies inside the copy (a NULL p too) */
FZ_FN void fz_in_buf(const void *p, uint64_t bytes) {
    const unsigned char *q = (const unsigned char *)p;
    if (!p || q < fz_lo || q > fz_hi || bytes > (uint64_t)(fz_hi - q)) abort();
}

/* A loaded model: its config passes llm_config_check within max_layers; mat(w, n) for each
   matrix of n values, vec(v, n) for each norm gain and, with LLM_BIAS_QKV, each bias
   (none without). Every one is there (never NULL). */
typedef void (*fz_mat_fn)(const llm_weight *w, uint64_t n);
typedef void (*fz_vec_fn)(const float *v, uint64_t n);
FZ_FN void fz_check_model(const llm_model *m, int max_layers, fz_mat_fn mat, fz_vec_fn vec) {
    const llm_config *k = &m->config;
    uint64_t d = (uint64_t)k->d_model, hd = (uint64_t)llm_config_head_dim(k), ff = (uint64_t)k->d_ff;
    uint64_t V = (uint64_t)k->vocab, qd = (uint64_t)k->n_heads * hd, kvd = (uint64_t)k->n_kv_heads * hd;
    int l;
#define FZ_MAT(w, n) (((w).data ? (void)0 : abort()), mat(&(w), n))
#define FZ_VEC(v, n) (((v) ? (void)0 : abort()), vec(v, n))
    if (llm_config_check(k, NULL) != LLM_OK || k->n_layers > max_layers) abort();
    FZ_MAT(m->weights.tok_embed, V * d);
    FZ_MAT(m->weights.lm_head, V * d);
    FZ_VEC(m->weights.out_norm, d);
    for (l = 0; l < k->n_layers; l++) {
        const llm_layer_weights *y = &m->weights.layers[l];
        FZ_VEC(y->attn_norm, d);
        FZ_VEC(y->ffn_norm, d);
        FZ_MAT(y->wq, qd * d);
        FZ_MAT(y->wk, kvd * d);
        FZ_MAT(y->wv, kvd * d);
        FZ_MAT(y->wo, d * qd);
        FZ_MAT(y->w1, ff * d);
        FZ_MAT(y->w2, d * ff);
        FZ_MAT(y->w3, ff * d);
        if (k->bias == LLM_BIAS_QKV) FZ_VEC(y->bq, qd), FZ_VEC(y->bk, kvd), FZ_VEC(y->bv, kvd);
        else if (y->bq || y->bk || y->bv) abort();
    }
#undef FZ_MAT
#undef FZ_VEC
}
/* A small loaded model (under 2^20 weights) through the whole forward pass, a cache of 4:
   two tokens from position 0, one at 2, and two at 3, which runs past the cache: a
   status, never a write out of bounds. (Learned positions stop at max_seq_len: those
   models run only with 4 of them.) */
FZ_FN void fz_run_small(const llm_model *m) {
    const llm_config *k = &m->config;
    uint64_t d = (uint64_t)k->d_model, qd = (uint64_t)k->n_heads * (uint64_t)llm_config_head_dim(k);
    llm_state st;
    float *logits;
    int toks[2];
    if (d * (qd + (uint64_t)k->d_ff) * (uint64_t)k->n_layers + (uint64_t)k->vocab * d >= (1u << 20)) return;
    if (k->pos == LLM_POS_LEARNED && k->max_seq_len < 4) return;
    logits = (float *)malloc((size_t)k->vocab * sizeof(float));
    toks[0] = 1 % k->vocab;
    toks[1] = k->vocab - 1;
    if (logits && llm_state_create(&st, k, 4, 2, LLM_F32) == LLM_OK) {
        if (llm_forward(&st, &m->weights, toks, 2, 0, logits, 0, NULL) != LLM_OK) abort();
        if (llm_forward(&st, &m->weights, toks, 1, 2, logits, 0, NULL) != LLM_OK) abort();
        if (llm_forward(&st, &m->weights, toks, 2, 3, logits, 0, NULL) == LLM_OK) abort();
        llm_state_free(&st);
    }
    free(logits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
