/* fuzz_config: llm_config_check, every estimator and the planner on arbitrary configs
   and plans. A preset (or the default config) is the starting point, then the input
   rewrites fields with small, negative, gigantic or NaN values. Whatever the verdict of
   llm_config_check, no estimator may crash, divide by zero or overflow (built with
   -fsanitize=...,unsigned-integer-overflow, so a uint64_t wrap-around is a finding
   too); when the config is valid, the counts must be consistent. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

static void mutate(llm_config *c, fz *f) {
    int n = fz_u8(f) & 15, i;
    for (i = 0; i < n && f->n; i++) {
        int v = fz_int(f);
        switch (fz_u8(f) % 28) {
        case 0: c->d_model = v; break;
        case 1: c->n_layers = v; break;
        case 2: c->n_heads = v; break;
        case 3: c->n_kv_heads = v; break;
        case 4: c->head_dim = v; break;
        case 5: c->d_ff = v; break;
        case 6: c->vocab = v; break;
        case 7: c->max_seq_len = v; break;
        case 8: c->norm = (llm_norm_kind)v; break;
        case 9: c->norm_bias = v; break;
        case 10: c->norm_eps = fz_float(f); break;
        case 11: c->ffn = (llm_ffn_kind)v; break;
        case 12: c->pos = (llm_pos_kind)v; break;
        case 13: c->rope_theta = fz_float(f); break;
        case 14: c->rope_layout = (llm_rope_layout)v; break;
        case 15: c->rotary_dim = v; break;
        case 16: c->rope_scale = fz_float(f); break;
        case 17: c->rope_low_freq_factor = fz_float(f); break;
        case 18: c->rope_high_freq_factor = fz_float(f); break;
        case 19: c->rope_orig_ctx = v; break;
        case 20: c->tied_embeddings = v; break;
        case 21: c->bias = (llm_bias_kind)v; break;
        case 22: c->post_norm = v; break;
        case 23: c->n_experts = v; break;
        case 24: c->n_experts_per_tok = v; break;
        case 25: c->n_shared_experts = v; break;
        case 26: c->sliding_window = v; break;
        default: c->name = (v & 1) ? NULL : "fuzz"; break;
        }
    }
}

static int64_t fz_i64(fz *f) {
    uint32_t lo = fz_u32(f), hi = fz_u32(f);
    switch (fz_u8(f) & 3) {
    case 0: return (int64_t)(lo & 0xffff);
    case 1: return (int64_t)lo;
    case 2: return (int64_t)(((uint64_t)hi << 32) | lo); /* anything, negative included */
    default: return (int64_t)1 << (lo & 62);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    llm_config c;
    const llm_config *p;
    const char *reason = NULL;
    llm_status s;
    llm_params par;
    llm_flops fl;
    fz f;
    int i, sel;
    f.p = data;
    f.n = size;
    sel = fz_u8(&f);
    p = llm_preset_at(sel % 32);
    c = p ? *p : llm_config_default();
    mutate(&c, &f);

    s = llm_config_check(&c, &reason);
    if (!reason) abort(); /* a reason is always given */
    if (s != LLM_OK && s != LLM_EINVAL) abort();
    (void)llm_config_head_dim(&c);

    par = llm_count_params(&c);
    if (s == LLM_OK) {
        /* the parts add up and never exceed the whole */
        if (par.non_embedding > par.total || par.active > par.total || par.embedding > par.total ||
            par.active_non_embedding > par.non_embedding || par.per_layer > par.total)
            abort();
    }
    {
        int64_t ctx = fz_i64(&f);
        fl = llm_count_flops(&c, ctx, fz_u8(&f) & 1);
        (void)fl;
        (void)llm_attention_ratio(&c, ctx);
    }
    (void)llm_train_flops(&c, (double)fz_i64(&f));
    for (i = -1; i <= (int)LLM_DTYPE_COUNT; i++) (void)llm_weight_bytes(&c, (llm_dtype)i);
    (void)llm_activation_bytes(&c, fz_i64(&f), fz_i64(&f), fz_int(&f), fz_int(&f));
    (void)llm_kv_cache_bytes(&c, fz_i64(&f), fz_i64(&f), (llm_dtype)(fz_u8(&f) % (LLM_DTYPE_COUNT + 1)));
    (void)llm_train_state_bytes((double)par.total, fz_int(&f), (double)fz_int(&f));
    (void)llm_pipeline_bubble(fz_int(&f), fz_int(&f));

    {   /* the planner: any GPU, any plan */
        llm_plan pl = llm_plan_default();
        llm_plan_result r;
        pl.model = (fz_u8(&f) & 7) ? &c : NULL;
        pl.gpu = llm_gpu_preset_at(fz_u8(&f) % 16);
        pl.n_gpus = fz_int(&f);
        pl.batch = fz_i64(&f);
        pl.seq_len = fz_i64(&f);
        pl.weights = (llm_dtype)(fz_u8(&f) % (LLM_DTYPE_COUNT + 1));
        pl.kv = (llm_dtype)(fz_u8(&f) % (LLM_DTYPE_COUNT + 1));
        pl.train = fz_u8(&f) & 1;
        pl.zero_stage = fz_int(&f);
        pl.recompute = fz_u8(&f) & 1;
        pl.flash = fz_u8(&f) & 1;
        if (fz_u8(&f) & 1) pl.overhead_bytes = (double)fz_float(&f);
        if (fz_u8(&f) & 1) pl.tight = (double)fz_float(&f);
        reason = NULL;
        s = llm_plan_evaluate(&pl, &r, &reason);
        if (s != LLM_OK && !reason) abort();
        if (s == LLM_OK && (r.n_lines < 0 || r.n_lines > LLM_PLAN_MAX_LINES || r.n_advice < 0 ||
                            r.n_advice > LLM_PLAN_MAX_ADVICE))
            abort();
    }
    return 0;
}
