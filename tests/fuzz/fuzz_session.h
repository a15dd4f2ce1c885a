/* The tiny generator fuzz_session loads sessions into, and the seeds (valid sessions of
   it) that tests/fuzz/seeds.c writes: d 8, 1 layer, 2 heads, 1 KV head, vocab 7, fp32
   weights from a fixed generator, a capacity of 12, a penalty window of 4, no vocabulary
   (ids only). A session only loads into a generator of the same fingerprint, so both
   build it here. Include after llm.h (with its implementation). */
#ifndef LLM_FUZZ_SESSION_H
#define LLM_FUZZ_SESSION_H
#include <string.h>

typedef struct fzs {
    llm_config c;
    llm_layer_weights lw;
    llm_weights w;
    llm_gen g;
    float pool[1024];
} fzs;

/* 0 on success */
static int fzs_make(fzs *z) {
    uint32_t r = 12345u;
    size_t i, at = 0;
    llm_gen_params p = llm_gen_params_default();
    float *f = z->pool;
    memset(z, 0, sizeof *z);
    for (i = 0; i < sizeof z->pool / sizeof z->pool[0]; i++) { /* an LCG's values in [-0.5, 0.5) */
        r = r * 1664525u + 1013904223u;
        f[i] = (float)(r >> 8) / 16777216.0f - 0.5f;
    }
    z->c = llm_config_default();
    z->c.d_model = 8, z->c.n_layers = 1, z->c.n_heads = 2, z->c.n_kv_heads = 1, z->c.d_ff = 12, z->c.vocab = 7;
    z->c.max_seq_len = 12;
#define FZS_TAKE(n) (at += (n), f + at - (n))
    z->lw.attn_norm = FZS_TAKE(8), z->lw.ffn_norm = FZS_TAKE(8);
    z->lw.wq.data = FZS_TAKE(64), z->lw.wk.data = FZS_TAKE(32), z->lw.wv.data = FZS_TAKE(32), z->lw.wo.data = FZS_TAKE(64);
    z->lw.w1.data = FZS_TAKE(96), z->lw.w2.data = FZS_TAKE(96), z->lw.w3.data = FZS_TAKE(96);
    z->w.tok_embed.data = FZS_TAKE(56), z->w.lm_head.data = FZS_TAKE(56), z->w.out_norm = FZS_TAKE(8);
#undef FZS_TAKE
    z->w.layers = &z->lw;
    p.capacity = 12, p.prefill_chunk = 4, p.max_tokens = 5;
    p.sampler.repeat_penalty = 1.1f, p.sampler.penalty_last_n = 4, p.sampler.seed = 5;
    return llm_gen_create(&z->g, &z->c, &z->w, NULL, &p, NULL) != LLM_OK;
}

/* A session of the generator after `draws` tokens drawn from the prompt {1, 2, 3}, in
   out[cap]; its size, 0 on failure. draws 5 ends the reply (max tokens). */
static size_t fzs_session(fzs *z, int draws, void *out, size_t cap) {
    static const int prompt[3] = {1, 2, 3};
    const char *piece;
    size_t len, n = 0;
    llm_gen_stop why;
    int i;
    llm_gen_reset(&z->g);
    if (llm_gen_prompt_ids(&z->g, prompt, 3) != LLM_OK) return 0;
    for (i = 0; i < draws; i++)
        if (llm_gen_next(&z->g, &piece, &len, &why) != LLM_OK) return 0;
    return llm_gen_session_save(&z->g, out, cap, &n) == LLM_OK ? n : 0;
}
#endif
