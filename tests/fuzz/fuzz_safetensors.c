/* fuzz_safetensors: a Hugging Face model from arbitrary bytes. The input is a uint16
   length L (little-endian), L bytes of config.json, then a safetensors file (the seeds
   are valid pairs written by tests/st_writer.h). llm_hf_read_config, llm_safetensors_init
   (into exactly llm_safetensors_bytes of memory), llm_safetensors_find on every tensor
   and llm_hf_load into a bounded layer table and aux may refuse, with a reason, but
   never crash: an accepted file's tensors lie inside it, each found by its name; a
   loaded model's matrices lie inside the file and its vectors inside the file or aux,
   and small models run two tokens through the forward pass. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

#define MAX_LAYERS 16
#define MAX_AUX (1u << 20)

static const float *aux_lo, *aux_hi;
/* a vector inside aux (converted to fp32 there) or in place in the file */
static void vec_ok(const float *v, uint64_t n) {
    if (v && v >= aux_lo && v <= aux_hi) {
        if (n > (uint64_t)(aux_hi - v)) abort();
    } else {
        fz_in_buf(v, n * 4);
    }
}
static void mat_ok(const llm_weight *w, uint64_t n) {
    if (w->type != LLM_F32 && w->type != LLM_F16 && w->type != LLM_BF16) abort();
    fz_in_buf(w->data, n * (w->type == LLM_F32 ? 4 : 2));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t cl, len, need, auxn = 0;
    unsigned char *buf;
    char *cfg;
    void *mem;
    llm_safetensors st;
    llm_config c;
    llm_model m;
    llm_layer_weights layers[MAX_LAYERS];
    float *aux = NULL;
    const char *why = NULL;
    llm_status s;
    int64_t i;
    if (size < 2) return 0;
    cl = (size_t)(data[0] | data[1] << 8);
    if (cl > size - 2) cl = size - 2;
    len = size - 2 - cl;
    cfg = (char *)malloc(cl ? cl : 1);
    buf = fz_copy(data + 2 + cl, len);
    if (!cfg || !buf) goto out_early;
    memcpy(cfg, data + 2, cl);

    s = llm_hf_read_config(&c, cfg, cl, &why);
    if (!why) abort();
    if (s == LLM_OK) {
        if (llm_config_check(&c, NULL) != LLM_OK || c.rope_layout != LLM_ROPE_HALVES) abort();
        auxn = llm_hf_aux_floats(&c);
    }

    need = llm_safetensors_bytes(buf, len);
    mem = malloc(need ? need : 8);
    if (!mem) goto out_early;
    why = NULL;
    s = llm_safetensors_init(&st, mem, need, buf, len, &why);
    if (!why || (s != LLM_OK && !*why)) abort();
    if (s == LLM_OK) {
        if (st.data_offset > len) abort();
        for (i = 0; i < st.n_tensors; i++) {
            const llm_st_tensor *t = &st.tensors[i];
            char name[256];
            uint64_t elems = 1;
            int k;
            if (t->n_dims < 0 || t->n_dims > 4 || t->elem_bytes <= 0) abort();
            for (k = 0; k < t->n_dims; k++) elems *= (uint64_t)t->shape[k];
            if (elems * (uint64_t)t->elem_bytes != t->bytes) abort();
            if ((const unsigned char *)t->data < buf + st.data_offset) abort();
            fz_in_buf(t->data, t->bytes);
            fz_in_buf(t->name.s, t->name.n);
            if (t->name.n < sizeof name && !memchr(t->name.s, 0, t->name.n)) {
                memcpy(name, t->name.s, t->name.n);
                name[t->name.n] = 0;
                if (llm_safetensors_find(&st, name) != t) abort(); /* names are unique */
            }
        }
        if (llm_safetensors_find(&st, "") && st.n_tensors == 0) abort();

        if (auxn <= MAX_AUX) {
            aux = (float *)malloc((auxn ? auxn : 1) * sizeof(float));
            aux_lo = aux, aux_hi = aux ? aux + auxn : NULL;
        }
        why = NULL;
        s = aux ? llm_hf_load(&m, cfg, cl, &st, layers, MAX_LAYERS, aux, auxn, &why) : LLM_ENOMEM;
        if (aux && (!why || (s != LLM_OK && !*why))) abort();
        if (s == LLM_OK) {
            fz_check_model(&m, MAX_LAYERS, mat_ok, vec_ok);
            /* every tensor of the file was read: none left over */
            for (i = 0; i < st.n_tensors; i++)
                if (!st.tensors[i].used) abort();
            fz_run_small(&m);
        }
        free(aux);
    }
    free(mem);
    /* the same bytes one byte off alignment: refused or read, never a misaligned read */
    if (len >= 8 && len < (1u << 16)) {
        unsigned char *odd = (unsigned char *)malloc(len + 1);
        if (odd) {
            memcpy(odd + 1, buf, len);
            if (llm_safetensors_create(&st, odd + 1, len, &why) == LLM_OK) {
                if (s == LLM_OK && auxn <= MAX_AUX && (aux = (float *)malloc((auxn ? auxn : 1) * sizeof(float))) != NULL) {
                    llm_hf_load(&m, cfg, cl, &st, layers, MAX_LAYERS, aux, auxn, &why);
                    free(aux);
                }
                llm_safetensors_free(&st);
            }
            free(odd);
        }
    }
out_early:
    free(cfg);
    free(buf);
    return 0;
}
