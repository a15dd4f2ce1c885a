/* >>config: the preset table, validation, and exact parameter counts against the
   published figures (issue 2). */
#include "llm.h"
#include "test.h"

/* llm_config_check must reject `c` with a reason containing `want`. */
static void expect_reject(const llm_config *c, const char *want) {
    const char *why = NULL;
    llm_status s = llm_config_check(c, &why);
    CHECK_MSG(s == LLM_EINVAL && why && strstr(why, want), "expected a rejection naming \"%s\", got %s / %s", want,
              llm_status_str(s), why ? why : "(null)");
    /* an invalid config counts as zero parameters, never as garbage */
    CHECK_EQ_U64(llm_count_params(c).total, 0);
}

static uint64_t total(const char *name) {
    const llm_config *c = llm_preset(name);
    CHECK_MSG(c != NULL, "no preset %s", name);
    return c ? llm_count_params(c).total : 0;
}

/* Architectures as data: which configs the forward pass runs, the _COUNT range checks,
   and the config as the one source of truth for biases. */
static void test_runnable(void) {
    const llm_config *mix = llm_preset("mixtral-8x7b");
    llm_config c = llm_config_default(), moe;
    const char *why = NULL;
    llm_state s;
    llm_kv_cache kv;
    llm_rope rope;
    llm_layer_weights w;
    float mem[64], *buf, x[16];
    int i, n_ok = 0, n_presets = 0;
    /* every preset runs, the MoE one too (issue 12: expert routing) */
    for (i = 0; llm_preset_at(i); i++, n_presets++) n_ok += llm_config_runnable(llm_preset_at(i), &why) == LLM_OK;
    CHECK(n_ok == n_presets);
    CHECK(llm_config_runnable(NULL, &why) == LLM_EINVAL);
    CHECK(mix && llm_config_runnable(mix, &why) == LLM_OK);
    CHECK(llm_state_bytes(mix, 16, 1, LLM_F16) > 0 && llm_block_scratch_bytes(mix, 1) > llm_block_scratch_bytes(llm_preset("mistral-7b"), 1));
    /* what the forward pass still does not run is refused by name, never run as something
       else: MoE with ungated (GELU MLP) experts */
    c.d_model = 16, c.n_layers = 1, c.n_heads = 2, c.n_kv_heads = 2, c.d_ff = 16, c.vocab = 8, c.max_seq_len = 8;
    moe = c;
    moe.n_experts = 4, moe.n_experts_per_tok = 2, moe.ffn = LLM_FFN_GELU;
    CHECK_OK(llm_config_check(&moe, &why));
    CHECK(llm_config_runnable(&moe, &why) == LLM_EUNSUPPORTED && strstr(why, "expert"));
    CHECK(llm_state_init(&s, mem, sizeof mem, &moe, 16, 1, LLM_F16) == LLM_EUNSUPPORTED);
    CHECK(llm_state_create(&s, &moe, 16, 1, LLM_F16) == LLM_EUNSUPPORTED && s.x == NULL);
    CHECK(llm_state_bytes(&moe, 16, 1, LLM_F16) == 0 && llm_block_scratch_bytes(&moe, 1) == 0);
    /* a tiny cache, so the block itself can be asked: it refuses too */
    CHECK_OK(llm_kv_cache_create(&kv, &c, 4, LLM_F32));
    buf = (float *)malloc(llm_rope_bytes(8, 4) + llm_block_scratch_bytes(&c, 1));
    CHECK_OK(llm_rope_init(&rope, buf, 8, 4, 10000, LLM_ROPE_INTERLEAVED));
    memset(&w, 0, sizeof w);
    memset(x, 0, sizeof x);
    CHECK(llm_block_forward(&moe, &w, &rope, &kv, 0, x, 1, 0, buf, NULL) == LLM_EUNSUPPORTED);
    /* a runnable MoE config whose layer lacks its router: LLM_EINVAL, as any missing weight */
    moe.ffn = LLM_FFN_SWIGLU;
    CHECK(llm_block_forward(&moe, &w, &rope, &kv, 0, x, 1, 0, buf, NULL) == LLM_EINVAL);
    /* every enum's range ends at its _COUNT */
    {
        llm_config e = c;
        CHECK_OK(llm_config_check(&e, &why));
        e.norm = LLM_NORM_COUNT, CHECK(llm_config_check(&e, &why) == LLM_EINVAL), e = c;
        e.ffn = LLM_FFN_COUNT, CHECK(llm_config_check(&e, &why) == LLM_EINVAL), e = c;
        e.pos = LLM_POS_COUNT, CHECK(llm_config_check(&e, &why) == LLM_EINVAL), e = c;
        e.bias = LLM_BIAS_COUNT, CHECK(llm_config_check(&e, &why) == LLM_EINVAL), e = c;
        e.rope_layout = LLM_ROPE_LAYOUT_COUNT, CHECK(llm_config_check(&e, &why) == LLM_EINVAL), e = c;
        e.ffn = (llm_ffn_kind)(LLM_FFN_COUNT - 1), e.bias = (llm_bias_kind)(LLM_BIAS_COUNT - 1);
        CHECK_OK(llm_config_check(&e, &why));
    }
    /* the config decides which biases exist: a block whose weights disagree is refused
       before anything runs (kv.len stays 0) */
    {
        float wt[16 * 16], g[16], bvec[16], *scr = buf + llm_rope_bytes(8, 4) / sizeof(float);
        llm_config q = c;
        llm_weight m;
        memset(&m, 0, sizeof m);
        m.type = LLM_F32, m.data = wt;
        for (i = 0; i < 16 * 16; i++) wt[i] = 0.01f * (float)(i % 7);
        for (i = 0; i < 16; i++) g[i] = 1, bvec[i] = 0.5f;
        w.attn_norm = w.ffn_norm = g;
        w.wq = w.wk = w.wv = w.wo = w.w1 = w.w2 = w.w3 = m;
        CHECK_OK(llm_block_forward(&c, &w, &rope, &kv, 0, x, 1, 0, scr, NULL));
        CHECK(kv.len == 1);
        llm_kv_cache_reset(&kv);
        w.bq = bvec; /* a bias the config (LLM_BIAS_NONE) does not have */
        CHECK(llm_block_forward(&c, &w, &rope, &kv, 0, x, 1, 0, scr, NULL) == LLM_EINVAL && kv.len == 0);
        q.bias = LLM_BIAS_QKV; /* now bk and bv are missing */
        CHECK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 0, scr, NULL) == LLM_EINVAL && kv.len == 0);
        w.bk = w.bv = bvec;
        CHECK_OK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 0, scr, NULL));
        q.norm = LLM_NORM_LAYER, q.norm_bias = 1; /* LayerNorm biases named but absent */
        CHECK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 1, scr, NULL) == LLM_EINVAL);
        w.attn_norm_b = w.ffn_norm_b = bvec;
        CHECK_OK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 1, scr, NULL));
        q.bias = LLM_BIAS_ALL; /* bo, b1, b2, b3 */
        CHECK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 2, scr, NULL) == LLM_EINVAL);
        w.bo = w.b1 = w.b2 = w.b3 = bvec;
        CHECK_OK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 2, scr, NULL));
        q.ffn = LLM_FFN_GELU; /* an ungated FFN never reads w3 / b3 */
        w.w3.data = NULL, w.b3 = NULL;
        CHECK_OK(llm_block_forward(&q, &w, &rope, &kv, 0, x, 1, 3, scr, NULL));
    }
    /* llm_decode_bytes counts what the estimator counts: every parameter once (fp32),
       but one row of the embedding (and of learned positions), plus the KV rows */
    {
        llm_config g = c;
        llm_layer_weights lw[2];
        llm_weights ws;
        llm_params pc;
        int tied, k;
        memset(lw, 0, sizeof lw);
        memset(&ws, 0, sizeof ws);
        for (k = 0; k < 2; k++) lw[k].wq.type = LLM_F32; /* all fp32: the zeroed weights */
        ws.layers = lw;
        ws.out_norm = x;
        g.n_layers = 2;
        for (tied = 0; tied < 2; tied++) {
            double kvb = 2.0 * g.n_layers * g.n_kv_heads * 8 * 4 * (5 + 1), want;
            g.tied_embeddings = tied;
            g.norm = LLM_NORM_LAYER, g.norm_bias = 1, g.ffn = LLM_FFN_GELU, g.bias = LLM_BIAS_ALL, g.pos = LLM_POS_LEARNED;
            pc = llm_count_params(&g);
            want = 4.0 * ((double)pc.total - (tied ? 0 : (double)pc.embedding) - (double)pc.positions + 2 * g.d_model);
            CHECK_NEAR(llm_decode_bytes(&g, &ws, LLM_F32, 5), want + kvb, 0);
            g.norm = LLM_NORM_RMS, g.norm_bias = 0, g.ffn = LLM_FFN_SWIGLU, g.bias = LLM_BIAS_QKV, g.pos = LLM_POS_ROPE;
            pc = llm_count_params(&g);
            want = 4.0 * ((double)pc.total - (tied ? 0 : (double)pc.embedding) + g.d_model);
            CHECK_NEAR(llm_decode_bytes(&g, &ws, LLM_F32, 5), want + kvb, 0);
            /* q/k head norms (2 head_dim 8 per layer) and sandwich norms (2 d 16 more), 2 layers */
            g.qk_norm = 1, g.sandwich_norm = 1;
            CHECK_EQ_U64(llm_count_params(&g).total, pc.total + 2u * 2u * (8u + 16u));
            CHECK_EQ_U64(llm_count_params(&g).norm, pc.norm + 2u * 2u * (8u + 16u));
            pc = llm_count_params(&g);
            want = 4.0 * ((double)pc.total - (tied ? 0 : (double)pc.embedding) + g.d_model);
            CHECK_NEAR(llm_decode_bytes(&g, &ws, LLM_F32, 5), want + kvb, 0);
            /* a window of 4 on layer 0 (layer 1 global): 4 KV rows there, not 6 */
            g.sliding_window = 4, g.window_pattern = 2;
            CHECK_NEAR(llm_decode_bytes(&g, &ws, LLM_F32, 5), want + kvb - 2.0 * g.n_kv_heads * 8 * 4 * 2, 0);
            g.window_pattern = 0; /* both layers windowed */
            CHECK_NEAR(llm_decode_bytes(&g, &ws, LLM_F32, 5), want + kvb - 2 * 2.0 * g.n_kv_heads * 8 * 4 * 2, 0);
            CHECK_NEAR(llm_decode_bytes(&g, &ws, LLM_F32, 2), want + 2.0 * g.n_layers * g.n_kv_heads * 8 * 4 * 3, 0);
            g.qk_norm = 0, g.sandwich_norm = 0, g.sliding_window = 0;
        }
    }
    llm_kv_cache_free(&kv);
    free(buf);
}

int main(void) {
    const char *why;
    const llm_config *c;
    llm_config b;
    llm_params p;
    int i, n;
    /* the names DESIGN.md pins, all present and valid */
    static const char *const pinned[] = {"gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "llama-2-7b",
                                         "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b",
                                         "llama-3.1-405b", "mistral-7b", "mixtral-8x7b", "gpt-3-175b",
                                         "qwen2.5-7b", "tinyllama-1.1b"};
    for (i = 0; i < (int)(sizeof pinned / sizeof pinned[0]); i++) {
        c = llm_preset(pinned[i]);
        CHECK_MSG(c && strcmp(c->name, pinned[i]) == 0, "preset %s", pinned[i]);
    }
    for (n = 0; (c = llm_preset_at(n)) != NULL; n++) {
        CHECK_MSG(llm_config_check(c, &why) == LLM_OK, "%s: %s", c->name, why);
        CHECK(llm_preset(c->name) == c);
    }
    CHECK(n >= 20);
    CHECK(llm_preset_at(-1) == NULL);
    CHECK(llm_preset("LLaMA-2-7B") == llm_preset("llama-2-7b")); /* case is ignored */
    CHECK(llm_preset("llama-2-7") == NULL);
    CHECK(llm_preset("") == NULL);
    CHECK(llm_preset(NULL) == NULL);

    /* ---- exact parameter counts: the published figures -------------------------- */
    CHECK_EQ_U64(total("gpt2"), 124439808ull);
    CHECK_EQ_U64(total("gpt2-medium"), 354823168ull);
    CHECK_EQ_U64(total("gpt2-large"), 774030080ull);
    CHECK_EQ_U64(total("gpt2-xl"), 1557611200ull);
    CHECK_EQ_U64(total("llama-2-7b"), 6738415616ull);
    CHECK_EQ_U64(total("llama-2-13b"), 13015864320ull);
    CHECK_EQ_U64(total("llama-2-70b"), 68976648192ull);
    CHECK_EQ_U64(llm_count_params(llm_preset("gpt2")).non_embedding, 84934656ull);        /* Kaplan: 12 L d^2 */
    CHECK_EQ_U64(llm_count_params(llm_preset("llama-2-7b")).non_embedding, 6476005376ull);
    /* The rest follow from the same formula; these equal the totals of the released
       checkpoints (safetensors headers, as shown on each Hugging Face model page). */
    CHECK_EQ_U64(total("llama-3-8b"), 8030261248ull);
    CHECK_EQ_U64(total("llama-3-70b"), 70553706496ull);
    CHECK_EQ_U64(total("llama-3.1-405b"), 405853388800ull);
    CHECK_EQ_U64(total("llama-3.2-1b"), 1235814400ull);
    CHECK_EQ_U64(total("llama-3.2-3b"), 3212749824ull);
    CHECK_EQ_U64(total("mistral-7b"), 7241732096ull);
    CHECK_EQ_U64(total("mixtral-8x7b"), 46702792704ull);
    CHECK_EQ_U64(total("qwen2.5-0.5b"), 494032768ull);
    CHECK_EQ_U64(total("qwen2.5-7b"), 7615616512ull);
    CHECK_EQ_U64(total("tinyllama-1.1b"), 1100048384ull);
    CHECK_EQ_U64(total("smollm2-135m"), 134515008ull);
    CHECK_EQ_U64(total("phi-3-mini"), 3821079552ull);
    CHECK_EQ_U64(total("gemma-2b"), 2506172416ull);
    CHECK_EQ_U64(total("gemma-7b"), 8537680896ull);
    /* GPT-3's paper rounds to 175.0B; the formula gives 174.6B */
    CHECK_EQ_U64(total("gpt-3-175b"), 174604259328ull);

    /* ---- the breakdown adds up, component by component --------------------------- */
    for (i = 0; (c = llm_preset_at(i)) != NULL; i++) {
        p = llm_count_params(c);
        CHECK_MSG(p.total == p.embedding + p.positions + p.attention + p.ffn + p.norm + p.lm_head, "%s", c->name);
        CHECK_MSG(p.attention + p.ffn + p.norm == p.per_layer * (uint64_t)c->n_layers + p.norm / (2 * (uint64_t)c->n_layers + 1),
                  "%s", c->name);
        CHECK_MSG(p.non_embedding <= p.attention + p.ffn, "%s", c->name);
        CHECK_MSG(p.active <= p.total && p.active_non_embedding <= p.non_embedding, "%s", c->name);
    }
    /* Llama 2 7B, one block: 4 d^2 attention + 3 d ff SwiGLU + 2 d RMSNorm */
    p = llm_count_params(llm_preset("llama-2-7b"));
    CHECK_EQ_U64(p.per_layer, 4ull * 4096 * 4096 + 3ull * 4096 * 11008 + 2 * 4096);
    CHECK_EQ_U64(p.embedding, 131072000ull);
    CHECK_EQ_U64(p.lm_head, 131072000ull);
    CHECK_EQ_U64(p.norm, 65ull * 4096);
    CHECK_EQ_U64(p.positions, 0);
    CHECK_EQ_U64(p.bias, 0);
    /* GPT-2 small: the token embedding is 31 % of it; 67 % of each block is the FFN */
    p = llm_count_params(llm_preset("gpt2"));
    CHECK_EQ_U64(p.positions, 1024ull * 768);
    CHECK_EQ_U64(p.lm_head, 0); /* tied */
    CHECK_NEAR((double)p.embedding / p.total, 0.31, 0.005);
    CHECK_NEAR((double)(p.ffn / 12) / p.per_layer, 0.67, 0.005);
    CHECK_EQ_U64(p.bias, 12ull * (3 * 768 + 768 + 3072 + 768) + (2 * 12 + 1) * 768ull);
    /* Qwen2.5-7B: biases on q, k and v only (GQA: 3584 + 2 x 512 per layer) */
    CHECK_EQ_U64(llm_count_params(llm_preset("qwen2.5-7b")).bias, 28ull * (3584 + 2 * 512));
    /* Mixtral 8x7B: 46.7B stored, 12.9B used per token (2 of 8 experts) */
    p = llm_count_params(llm_preset("mixtral-8x7b"));
    CHECK_EQ_U64(p.active, 12879925248ull);
    CHECK_EQ_U64(p.active_non_embedding, 32ull * (41943040ull + 2 * 176160768ull + 4096 * 8));

    /* ---- the default and validation ------------------------------------------------ */
    b = llm_config_default();
    CHECK(b.norm == LLM_NORM_RMS && b.ffn == LLM_FFN_SWIGLU && b.pos == LLM_POS_ROPE && b.rope_theta == 10000.0f);
    expect_reject(&b, "d_model"); /* sizes are left for the caller */
    b.d_model = 64; b.n_layers = 5; b.n_heads = 8; b.n_kv_heads = 4; b.d_ff = 172; b.vocab = 512; b.max_seq_len = 512;
    CHECK_OK(llm_config_check(&b, &why)); /* llama2.c's stories260K */
    CHECK(strcmp(why, "ok") == 0);
    CHECK(llm_config_head_dim(&b) == 8);
    CHECK(llm_config_check(&b, NULL) == LLM_OK);
    CHECK(llm_config_check(NULL, &why) == LLM_EINVAL);
#define REJECT(field, value, want)   \
    do {                             \
        llm_config x = b;            \
        x.field = value;             \
        expect_reject(&x, want);     \
    } while (0)
    REJECT(d_model, 0, "d_model");
    REJECT(d_model, -64, "d_model");
    REJECT(n_layers, 0, "n_layers");
    REJECT(n_heads, -1, "n_heads");
    REJECT(n_kv_heads, 0, "n_kv_heads");
    REJECT(n_kv_heads, 3, "divide n_heads");
    REJECT(n_kv_heads, 16, "exceed");
    REJECT(n_heads, 6, "divide"); /* 6 does not divide 64 (and 4 KV heads do not divide 6) */
    REJECT(head_dim, -8, "head_dim");
    REJECT(head_dim, 7, "even");   /* RoPE rotates pairs */
    REJECT(rotary_dim, 9, "rotary_dim");
    REJECT(rotary_dim, 6 + 1, "even");
    REJECT(d_ff, 0, "d_ff");
    REJECT(vocab, 0, "vocab");
    REJECT(max_seq_len, -1, "max_seq_len");
    REJECT(norm_eps, -1.0f, "norm_eps");
    REJECT(rope_theta, -1.0f, "rope_theta");
    REJECT(rope_theta, (float)NAN, "rope_theta");
    REJECT(norm_eps, (float)NAN, "norm_eps");
    REJECT(norm, (llm_norm_kind)7, "norm kind");
    REJECT(ffn, (llm_ffn_kind)-1, "ffn kind");
    REJECT(pos, (llm_pos_kind)9, "position kind");
    REJECT(bias, (llm_bias_kind)3, "bias kind");
    REJECT(rope_layout, (llm_rope_layout)2, "layout");
    REJECT(norm_bias, 1, "LayerNorm");
    REJECT(n_experts_per_tok, 2, "without n_experts");
    REJECT(n_shared_experts, 1, "shared");
    REJECT(n_experts, -2, "negative");
    REJECT(n_experts, 8, "must be positive");
    REJECT(sliding_window, -1, "sliding_window");
    REJECT(window_pattern, -2, "window_pattern");
    REJECT(window_pattern, 2, "without a sliding_window");
    REJECT(qk_norm, 2, "qk_norm");
    REJECT(sandwich_norm, -1, "sandwich_norm");
    REJECT(embed_scale, -1.0f, "embed_scale");
    REJECT(embed_scale, (float)INFINITY, "embed_scale");
    REJECT(attn_scale, (float)NAN, "attn_scale");
    REJECT(attn_softcap, -50.0f, "softcap");
    REJECT(attn_softcap, 1e-30f, "softcap"); /* 1 / softcap would overflow */
    REJECT(final_softcap, (float)NAN, "softcap");
    {
        llm_config x = b;
        x.sandwich_norm = 1, x.post_norm = 1;
        expect_reject(&x, "sandwich_norm");
        x = b, x.sliding_window = 4, x.window_pattern = 3; /* layers 2 and 5 global */
        CHECK_OK(llm_config_check(&x, &why));
        CHECK(llm_config_layer_window(&x, 0) == 4 && llm_config_layer_window(&x, 1) == 4 && llm_config_layer_window(&x, 2) == 0 &&
              llm_config_layer_window(&x, 4) == 4 && llm_config_layer_window(&x, 5) == 0);
        x.window_pattern = 0;
        CHECK(llm_config_layer_window(&x, 2) == 4 && llm_config_layer_window(&b, 0) == 0 && llm_config_layer_window(NULL, 0) == 0);
    }
    {
        llm_config x = b;
        x.n_experts = 2;
        x.n_experts_per_tok = 3; /* top-3 of 2 experts */
        expect_reject(&x, "exceeds n_experts");
        x.n_experts_per_tok = 2;
        CHECK_OK(llm_config_check(&x, &why));
        x.head_dim = 7; /* odd head_dim is fine without RoPE */
        x.pos = LLM_POS_NONE;
        CHECK_OK(llm_config_check(&x, &why));
        x.pos = LLM_POS_ROPE;
        x.rotary_dim = 4; /* partial rotary: only rotary_dim must be even */
        CHECK_OK(llm_config_check(&x, &why));
    }
    {
        /* so large that the counts would wrap 64 bits: rejected, not wrapped */
        llm_config x = b;
        x.d_model = 1 << 30; x.n_heads = 1 << 20; x.n_kv_heads = 1 << 20; x.d_ff = 1 << 30; x.n_layers = 1 << 30;
        expect_reject(&x, "overflow");
        /* the largest that passes still counts exactly: check one against a wide sum */
        x.n_layers = 1 << 12; x.d_ff = 1 << 20; x.d_model = 1 << 20; x.n_heads = 1 << 10; x.n_kv_heads = 1 << 10;
        x.vocab = 1 << 20; x.max_seq_len = 1 << 20;
        CHECK_OK(llm_config_check(&x, &why));
        p = llm_count_params(&x); /* 2^12 layers x (4 + 3) 2^40 + ... = 7 2^52: 2.9e16 parameters */
        CHECK_EQ_U64(p.total, (1ull << 12) * ((7ull << 40) + (2ull << 20)) + (2ull << 40) + (1ull << 20));
        x.n_layers = 1 << 16; /* 4.6e17 parameters: 16 B each would pass 2^63 */
        expect_reject(&x, "overflow");
    }
    test_runnable();
    return test_done();
}
