/* fuzz_lora: arbitrary bytes as a GGUF LoRA adapter for a tiny model (d 8, 2 layers, rank
   2, every projection adapted): llm_gguf_create, then llm_lora_load_gguf. Either may
   refuse, with a reason; a load that succeeds has filled every adapter from tensors the
   reader vouched for and set a positive finite scale, and a state refused keeps its
   adapters unchanged (nothing is copied before every tensor has been checked). */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static void *fmem, *lmem, *snap;
    static llm_train full, lt;
    static int ready;
    llm_gguf g;
    const char *why = NULL;
    llm_status st;
    if (!ready) {
        llm_config c = llm_config_default();
        llm_lora_params lp;
        c.d_model = 8, c.n_layers = 2, c.n_heads = 2, c.n_kv_heads = 1, c.d_ff = 12, c.vocab = 7, c.max_seq_len = 4;
        memset(&lp, 0, sizeof lp);
        lp.rank = 2, lp.alpha = 4, lp.targets = LLM_LORA_ALL;
        fmem = malloc(llm_train_bytes(&c, 1, 4));
        lmem = malloc(llm_train_lora_bytes(&c, 1, 4, &lp));
        if (!fmem || !lmem || llm_train_init(&full, fmem, llm_train_bytes(&c, 1, 4), &c, 1, 4) != LLM_OK ||
            llm_train_init_params(&full, 1, 0.5f) != LLM_OK ||
            llm_train_init_lora(&lt, lmem, llm_train_lora_bytes(&c, 1, 4, &lp), &c, &full.weights, 1, 4, &lp) != LLM_OK ||
            llm_train_init_params(&lt, 2, 0.5f) != LLM_OK)
            abort();
        snap = malloc(sizeof(float) * (size_t)lt.n_params);
        if (!snap) abort();
        ready = 1;
    }
    memcpy(snap, lt.params, sizeof(float) * (size_t)lt.n_params);
    st = llm_gguf_create(&g, data, size, &why);
    if (st != LLM_OK) {
        if (!why || !*why) abort();
        llm_gguf_free(&g);
        return 0;
    }
    st = llm_lora_load_gguf(&lt, &g, &why);
    if (st == LLM_OK) {
        if (!(lt.lora_scale > 0.0f) || !(lt.lora_scale < INFINITY)) abort();
    } else {
        if (!why || !*why) abort();
        if (memcmp(snap, lt.params, sizeof(float) * (size_t)lt.n_params) != 0) abort(); /* refused: untouched */
    }
    llm_gguf_free(&g);
    return 0;
}
