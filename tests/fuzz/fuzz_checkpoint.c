/* fuzz_checkpoint: llm_llama2c_read_config and llm_llama2c_load on arbitrary bytes (all
   three llama2.c formats: the seeds are valid files of each). A load may fail, with a
   reason, but never crash; when it succeeds, the config must pass llm_config_check and
   every tensor pointer must lie inside the buffer with its whole extent. Small models
   that load are also run for two tokens, so a header the loader accepts can't crash
   the forward pass either. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

#define MAX_LAYERS 64

static const unsigned char *fz_lo, *fz_hi;
static void in_buf(const void *p, uint64_t bytes) {
    const unsigned char *q = (const unsigned char *)p;
    if (!p) abort(); /* a loaded model has every tensor */
    if (q < fz_lo || q > fz_hi || bytes > (uint64_t)(fz_hi - q)) abort();
}
static void weight_in_buf(const llm_weight *w, uint64_t n) {
    if (w->type == LLM_F32) {
        in_buf(w->data, n * 4);
    } else if (w->type == LLM_INT8) {
        if (w->group_size <= 0 || n % (uint64_t)w->group_size) abort();
        in_buf(w->data, n);
        in_buf(w->scale, n / (uint64_t)w->group_size * 4);
    } else {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *buf = malloc(size ? size : 1); /* aligned, as the loader requires */
    llm_layer_weights layers[MAX_LAYERS];
    llm_model m;
    llm_config c;
    const char *why = NULL;
    int version = -1, l;
    llm_status s;
    if (!buf) return 0;
    memcpy(buf, data, size);
    fz_lo = (const unsigned char *)buf;
    fz_hi = fz_lo + size;

    s = llm_llama2c_read_config(&c, &version, buf, size, &why);
    if (!why) abort();
    if (s == LLM_OK && (llm_config_check(&c, NULL) != LLM_OK || version < 0 || version > 2)) abort();

    why = NULL;
    s = llm_llama2c_load(&m, buf, size, layers, MAX_LAYERS, &why);
    if (!why) abort();
    if (s == LLM_OK) {
        const llm_config *k = &m.config;
        uint64_t d = (uint64_t)k->d_model, hd = (uint64_t)llm_config_head_dim(k), ff = (uint64_t)k->d_ff;
        uint64_t V = (uint64_t)k->vocab, qd = (uint64_t)k->n_heads * hd, kvd = (uint64_t)k->n_kv_heads * hd;
        if (llm_config_check(k, NULL) != LLM_OK || k->n_layers > MAX_LAYERS) abort();
        weight_in_buf(&m.weights.tok_embed, V * d);
        weight_in_buf(&m.weights.lm_head, V * d);
        in_buf(m.weights.out_norm, d * 4);
        for (l = 0; l < k->n_layers; l++) {
            const llm_layer_weights *y = &m.weights.layers[l];
            in_buf(y->attn_norm, d * 4);
            in_buf(y->ffn_norm, d * 4);
            weight_in_buf(&y->wq, qd * d);
            weight_in_buf(&y->wk, kvd * d);
            weight_in_buf(&y->wv, kvd * d);
            weight_in_buf(&y->wo, d * qd);
            weight_in_buf(&y->w1, ff * d);
            weight_in_buf(&y->w2, d * ff);
            weight_in_buf(&y->w3, ff * d);
        }
#ifndef FUZZ_NO_FORWARD /* (loader-only builds while the kernels are absent) */
        /* run small models: two tokens through the whole forward pass */
        if (d * (d + ff) * (uint64_t)k->n_layers + V * d < (1u << 20) && k->max_seq_len >= 2) {
            llm_state st;
            float *logits = (float *)malloc((size_t)V * sizeof(float));
            int toks[2];
            toks[0] = 1 % k->vocab;
            toks[1] = (k->vocab - 1);
            if (logits && llm_state_create(&st, k, 4, 2, LLM_F32) == LLM_OK) {
                if (llm_forward(&st, &m.weights, toks, 2, 0, logits, 0, NULL) != LLM_OK) abort();
                if (llm_forward(&st, &m.weights, toks, 1, 2, logits, 0, NULL) != LLM_OK) abort();
                /* position 4 is past the cache: a status, not a write out of bounds */
                if (llm_forward(&st, &m.weights, toks, 2, 3, logits, 0, NULL) == LLM_OK) abort();
                llm_state_free(&st);
            }
            free(logits);
        }
#endif
        llm_model_free(&m); /* owns nothing here; must be harmless */
    }
    /* the same bytes one byte off alignment: refused (or loaded), never a misaligned read */
    if (size >= 28 && size < (1u << 16)) {
        unsigned char *odd = (unsigned char *)malloc(size + 1);
        if (odd) {
            memcpy(odd + 1, data, size);
            s = llm_llama2c_load(&m, odd + 1, size, layers, MAX_LAYERS, &why);
            free(odd);
        }
    }
    free(buf);
    return 0;
}
