/* fuzz_gguf: the GGUF reader on arbitrary bytes (the seeds are files tests/gguf_writer.h
   writes: every value type, other alignments, llama models in F32, F16 and BF16, a tensor
   of each block type). llm_gguf_bytes + llm_gguf_init may refuse, with a reason, but never
   crash; a file they accept must agree with llm_gguf_create, answer every getter and array
   walk over every key, keep every string and tensor inside the buffer, and dequantize its
   small tensors whatever their bytes. llm_gguf_load then fills a bounded layer table; a
   model it accepts has every weight inside the buffer, and small ones are run for two
   tokens. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

#define MAX_LAYERS 16

/* inside the buffer, or NULL and empty (a zero-length string or tensor) */
static void in_buf(const void *p, uint64_t bytes) {
    if (p || bytes) fz_in_buf(p, bytes);
}
static void str_in_buf(llm_gguf_str s) { in_buf(s.s, s.n); }
static void weight_in_buf(const llm_weight *w, uint64_t n) {
    double bits = llm_dtype_bits(w->type);
    /* F32, F16, BF16 or one of ggml's block formats, whose bits per value include the
       scales exactly (Q8_0: 34 bytes per 32); never llama2.c's INT8 groups from a GGUF */
    if (w->type == LLM_INT8 || w->type == LLM_INT4 || bits <= 0) abort();
    fz_in_buf(w->data, (uint64_t)((double)n * bits / 8.0));
}
static void vec_in_buf(const float *v, uint64_t n) { fz_in_buf(v, n * 4); }

/* Every getter on every key, every array element (the first 300, and one past the end). */
static void walk(const llm_gguf *g) {
    char key[256];
    int64_t i, iv;
    double fv;
    llm_gguf_str sv;
    for (i = 0; i < g->n_kv; i++) {
        const llm_gguf_kv *kv = &g->kv[i];
        uint64_t k, n, cur = 0;
        size_t kn = kv->key.n < sizeof key - 1 ? (size_t)kv->key.n : sizeof key - 1;
        str_in_buf(kv->key);
        if ((int)kv->type < 0 || kv->type >= LLM_GGUF_TYPE_COUNT || !llm_gguf_value_type_name(kv->type)) abort();
        memcpy(key, kv->key.s, kn);
        key[kn] = 0;
        /* a key with a NUL inside may find an earlier one; never another file's */
        if (llm_gguf_find_key(g, key) >= g->n_kv) abort();
        (void)llm_gguf_get_int(g, key, &iv);
        (void)llm_gguf_get_float(g, key, &fv);
        if (llm_gguf_get_str(g, key, &sv) == LLM_OK) str_in_buf(sv);
        if (kv->type != LLM_GGUF_ARRAY) {
            if (llm_gguf_arr_int(kv, 0, &iv) == LLM_OK || llm_gguf_arr_str(kv, &cur, &sv) == LLM_OK) abort();
            continue;
        }
        if ((int)kv->arr_type < 0 || kv->arr_type >= LLM_GGUF_TYPE_COUNT) abort();
        n = kv->arr_n < 300 ? kv->arr_n : 300;
        /* arrays of arrays (up to 3 deep) are read past, and no getter hands out their elements */
        if (kv->arr_type == LLM_GGUF_ARRAY && n > 0 &&
            (llm_gguf_arr_int(kv, 0, &iv) == LLM_OK || llm_gguf_arr_float(kv, 0, &fv) == LLM_OK || llm_gguf_arr_str(kv, &cur, &sv) == LLM_OK))
            abort();
        for (k = 0; k < n; k++) {
            (void)llm_gguf_arr_int(kv, k, &iv);
            (void)llm_gguf_arr_float(kv, k, &fv);
            if (llm_gguf_arr_str(kv, &cur, &sv) == LLM_OK) str_in_buf(sv);
        }
        if (llm_gguf_arr_int(kv, kv->arr_n, &iv) == LLM_OK || llm_gguf_arr_float(kv, kv->arr_n, &fv) == LLM_OK) abort();
        if (kv->arr_n <= 300 && llm_gguf_arr_str(kv, &cur, &sv) == LLM_OK) abort(); /* past the last string */
    }
    for (i = 0; i < g->n_tensors; i++) {
        const llm_gguf_tensor *t = &g->tensors[i];
        char name[256];
        size_t nn = t->name.n < sizeof name - 1 ? (size_t)t->name.n : sizeof name - 1;
        str_in_buf(t->name);
        if (t->n_dims < 1 || t->n_dims > 4 || !llm_gguf_type_name(t->type)) abort();
        if ((uint64_t)((const unsigned char *)t->data - g->buf) != g->data_offset + t->offset) abort();
        in_buf(t->data, t->bytes);
        if (g->alignment == 0 || t->offset % g->alignment) abort();
        memcpy(name, t->name.s, nn);
        name[nn] = 0;
        if (nn == t->name.n && !memchr(name, 0, nn) && !llm_gguf_find_tensor(g, name)) abort();
        /* the dequantizers on the tensor's own bytes (small ones): any bit pattern is a
           value or a status, never a read past its data */
        {
            int64_t n = t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
            if (n > 0 && n <= 4096) {
                float *y = (float *)malloc((size_t)n * sizeof(float));
                if (y) (void)llm_gguf_dequantize(t->type, t->data, y, n);
                free(y);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *buf = fz_copy(data, size), *mem;
    llm_gguf g, g2;
    llm_layer_weights layers[MAX_LAYERS];
    llm_model m;
    llm_config c;
    const char *why = NULL;
    size_t nb;
    llm_status s, s2;
    if (!buf) return 0;

    nb = llm_gguf_bytes(buf, size);
    if (nb > ((size_t)1 << 28)) abort(); /* a bound from the header must not exceed what the file can hold */
    mem = malloc(nb ? nb : 8);
    if (!mem) {
        free(buf);
        return 0;
    }
    s = llm_gguf_init(&g, mem, nb, buf, size, &why);
    if (!why) abort();
    s2 = llm_gguf_create(&g2, buf, size, &why);
    if (!why) abort();
    if (s == LLM_OK) {
        if (s2 != LLM_OK || g2.n_kv != g.n_kv || g2.n_tensors != g.n_tensors) abort();
        llm_gguf_free(&g2);
        if (g.buf != fz_lo || g.len != size || (g.n_tensors > 0 && g.data_offset > size)) abort();
        walk(&g);
        why = NULL;
        s = llm_gguf_read_config(&c, &g, &why);
        if (!why) abort();
        if (s == LLM_OK && llm_config_check(&c, NULL) != LLM_OK) abort();
        why = NULL;
        s = llm_gguf_load(&m, &g, layers, MAX_LAYERS, &why);
        if (!why) abort();
        if (s == LLM_OK) {
            if (m.weights.layers != layers) abort();
            fz_check_model(&m, MAX_LAYERS, weight_in_buf, vec_in_buf);
            fz_run_small(&m);
            llm_model_free(&m); /* owns nothing here; must be harmless */
        }
        llm_gguf_free(&g);
    } else if (s2 == LLM_OK) {
        /* init refused what create accepted: only for want of memory (zero tables) */
        if (nb != 0) abort();
        llm_gguf_free(&g2);
    }
    free(mem);
    free(buf);
    return 0;
}
