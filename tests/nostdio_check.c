/* Built by `make matrix` with -DLLM_NO_STDIO: the implementation must compile without
   <stdio.h>, and this file, which does a firmware-style run using only buffer-based APIs
   and caller memory (a checkpoint and a tokenizer built in memory, the state and
   sampler in a static arena, one forward pass, tokenize and detokenize), must link
   without any stdio function: the matrix checks the object's undefined symbols with nm.
   Exit status 0 = every check passed (there is no printf to report with). */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "ckpt_writer.h"
#include <string.h>

#ifdef EOF
#error "LLM_NO_STDIO: llm.h included <stdio.h>"
#endif

static float arena_f[1 << 16]; /* 256 KiB of caller memory, float-aligned */

int main(void) {
    static const ckw_dims d = {1, 16, 32, 2, 4, 2, 300, 16, 1, 0};
    unsigned char *arena = (unsigned char *)arena_f, *ckpt, *tokf;
    size_t n_ckpt = ckw_checkpoint(NULL, 0, &d), n_tok = ckw_tokenizer(NULL, 0, 300), used = 0, need, out_len = 0;
    llm_layer_weights layers[2];
    llm_model m;
    llm_tokenizer tok;
    llm_state st;
    llm_sampler sm;
    float logits[300];
    int ids[64], n_ids = 0, failed = 0, next;
    char text[128];
    const char *why;
#define TAKE(bytes) (used + (((bytes) + 63) & ~(size_t)63) <= sizeof arena_f ? (used += (((bytes) + 63) & ~(size_t)63), arena + used - (((bytes) + 63) & ~(size_t)63)) : NULL)
    ckpt = TAKE(n_ckpt);
    tokf = TAKE(n_tok);
    if (!ckpt || !tokf) return 2;
    ckw_checkpoint(ckpt, n_ckpt, &d);
    ckw_tokenizer(tokf, n_tok, 300);
    failed += strcmp(llm_version(), "0.1.0") != 0;
    if (llm_llama2c_load(&m, ckpt, n_ckpt, layers, 2, &why) != LLM_OK) return 3;
    need = llm_tokenizer_bytes(300, n_tok);
    if (llm_tokenizer_init(&tok, TAKE(need), need, tokf, n_tok, 300, &why) != LLM_OK) return 4;
    need = llm_state_bytes(&m.config, 16, 4, LLM_F32);
    if (llm_state_init(&st, TAKE(need), need, &m.config, 16, 4, LLM_F32) != LLM_OK) return 5;
    if (llm_sampler_init(&sm, TAKE(llm_sampler_bytes(300)), 300, 0.0f, 0.9f, 1) != LLM_OK) return 6;
    failed += llm_tokenize(&tok, "the cat", 1, 0, ids, 64, &n_ids) != LLM_OK;
    failed += llm_forward(&st, &m.weights, ids, n_ids, 0, logits, 0, NULL) != LLM_OK;
    next = llm_sample(&sm, logits);
    failed += next < 0 || next >= 300;
    failed += llm_detokenize(&tok, 0, ids, n_ids, text, sizeof text, &out_len) != LLM_OK;
    failed += out_len != 7 || memcmp(text, "the cat", 7) != 0;
    return failed != 0;
}
