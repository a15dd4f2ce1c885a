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

/* F32 or llama2.c's INT8 groups with their scales, inside the buffer */
static void weight_in_buf(const llm_weight *w, uint64_t n) {
    if (w->type == LLM_F32) {
        fz_in_buf(w->data, n * 4);
    } else if (w->type == LLM_INT8) {
        if (w->group_size <= 0 || n % (uint64_t)w->group_size) abort();
        fz_in_buf(w->data, n);
        fz_in_buf(w->scale, n / (uint64_t)w->group_size * 4);
    } else {
        abort();
    }
}
static void vec_in_buf(const float *v, uint64_t n) { fz_in_buf(v, n * 4); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    void *buf = fz_copy(data, size);
    llm_layer_weights layers[MAX_LAYERS];
    llm_model m;
    llm_config c;
    const char *why = NULL;
    int version = -1;
    llm_status s;
    if (!buf) return 0;

    s = llm_llama2c_read_config(&c, &version, buf, size, &why);
    if (!why) abort();
    if (s == LLM_OK && (llm_config_check(&c, NULL) != LLM_OK || version < 0 || version > 2)) abort();

    why = NULL;
    s = llm_llama2c_load(&m, buf, size, layers, MAX_LAYERS, &why);
    if (!why) abort();
    if (s == LLM_OK) {
        fz_check_model(&m, MAX_LAYERS, weight_in_buf, vec_in_buf);
        fz_run_small(&m);
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
