/* llm_gen (>>gen): generation step by step, its stop reasons, chat turns over a kept KV
   cache, and sessions. The model is a GGUF written by tests/gguf_writer.h with random
   weights and a SentencePiece vocabulary of its own (byte pieces, a few merges, chatml's
   control tokens), loaded through llm_gguf_load and llm_vocab_init_gguf as an app would.
   The reference for every token is the loop an app writes by hand: llm_forward + a
   sampler chain of the same params, token by token. */
#include "llm.h"
#include "test.h"
#include "gguf_writer.h"
#include "filecheck.h"
#include "ref_model.h"
#include "internals.h"

enum { D = 16, FF = 32, NL = 2, NH = 4, NKV = 2, CTX = 96 };

typedef struct tm {
    unsigned char *buf;
    llm_gguf g;
    llm_model m;
    llm_layer_weights layers[NL];
    llm_vocab v;
    int V;
    float *w[12]; /* the weights in host floats: a big-endian host runs these (below) */
} tm;

/* A big-endian host refuses the GGUF's weights (they are used in place), so there the
   model is the same floats in host order, with the file's own config (metadata is read
   byte by byte on any host): llm_gen's tests run on every host. */
static int host_model(tm *t, const unsigned char *file, size_t n) {
    llm_model_shapes s;
    const char *why = NULL;
    int l;
    if (!CHECK_OK(llm_gguf_shapes(&s, file, n, n, NULL, &why))) return 0;
    memset(&t->m, 0, sizeof t->m);
    t->m.config = s.config;
    t->m.weights.tok_embed.type = t->m.weights.lm_head.type = LLM_F32;
    t->m.weights.tok_embed.data = t->w[0], t->m.weights.lm_head.data = t->w[11];
    t->m.weights.out_norm = t->w[10];
    for (l = 0; l < NL; l++) {
        llm_layer_weights *L = &t->layers[l];
        llm_weight *m[7];
        const size_t off[7] = {(size_t)D * D, (size_t)D * D / 2, (size_t)D * D / 2, (size_t)D * D, (size_t)FF * D, (size_t)FF * D, (size_t)FF * D};
        int k;
        memset(L, 0, sizeof *L);
        m[0] = &L->wq, m[1] = &L->wk, m[2] = &L->wv, m[3] = &L->wo, m[4] = &L->w1, m[5] = &L->w2, m[6] = &L->w3;
        for (k = 0; k < 7; k++) m[k]->type = LLM_F32, m[k]->data = t->w[3 + k] + (size_t)l * off[k];
        L->attn_norm = t->w[1] + (size_t)l * D, L->ffn_norm = t->w[2] + (size_t)l * D;
    }
    t->m.weights.layers = t->layers;
    return 1;
}

/* <unk> <s> </s> <|im_start|> <|im_end|> (control), <0x00>..<0xFF>, then merges over "ab". */
static int make_model(tm *t) {
    static char names[256][8];
    static const char *extra[] = {"\xe2\x96\x81", "a", "b", "ab", "\xe2\x96\x81" "a", "\xe2\x96\x81" "ab", "ba",
                                  "user", "assistant", "hello", "\xe2\x96\x81" "the", "\xc3\xa9"};
    static const char *toks[300];
    static float scores[300];
    static int32_t types[300];
    int n = 0, i, k;
    size_t nf;
    float **w = t->w;
    size_t sz[12];
    gw wr;
    gw_llama desc;
    gw_names gn;
    const char *why = NULL;
    memset(t, 0, sizeof *t);
    w = t->w;
    toks[n] = "<unk>", types[n++] = 2;
    toks[n] = "<s>", types[n++] = 3;
    toks[n] = "</s>", types[n++] = 3;
    toks[n] = "<|im_start|>", types[n++] = 3;
    toks[n] = "<|im_end|>", types[n++] = 3;
    for (i = 0; i < 256; i++) snprintf(names[i], sizeof names[i], "<0x%02X>", i), toks[n] = names[i], types[n++] = 6;
    for (i = 0; i < n; i++) scores[i] = 0;
    for (i = 0; i < (int)(sizeof extra / sizeof extra[0]); i++) toks[n] = extra[i], scores[n] = -1.0f - 0.1f * (float)i, types[n++] = 1;
    t->V = n;
    gw_init(&wr);
    memset(&desc, 0, sizeof desc);
    desc.d = D, desc.ff = FF, desc.n_layers = NL, desc.n_heads = NH, desc.n_kv_heads = NKV, desc.vocab = n, desc.ctx = CTX;
    desc.eps = 1e-5f, desc.theta = 10000.0f, desc.type = GW_F32;
    sz[0] = (size_t)n * D, sz[1] = sz[2] = (size_t)NL * D, sz[3] = (size_t)NL * D * D;
    sz[4] = sz[5] = (size_t)NL * D * D / 2, sz[6] = (size_t)NL * D * D, sz[7] = sz[8] = sz[9] = (size_t)NL * FF * D;
    sz[10] = D, sz[11] = (size_t)n * D;
    for (k = 0; k < 12; k++) {
        w[k] = (float *)malloc(sz[k] * sizeof(float));
        if (!w[k]) return 0;
        test_fill(w[k], sz[k], k == 0 || k == 11 ? 1.0f : 0.5f);
        if (k == 1 || k == 2 || k == 10)
            for (nf = 0; nf < sz[k]; nf++) w[k][nf] = 1.0f + 0.1f * w[k][nf]; /* norm gains near 1 */
    }
    desc.emb = w[0], desc.attn_norm = w[1], desc.ffn_norm = w[2], desc.wq = w[3], desc.wk = w[4], desc.wv = w[5];
    desc.wo = w[6], desc.w1 = w[7], desc.w2 = w[8], desc.w3 = w[9], desc.out_norm = w[10], desc.out = w[11];
    gw_llama_model(&wr, &desc, &gn);
    gw_kv_str(&wr, "tokenizer.ggml.model", "llama");
    gw_kv_arr_str(&wr, "tokenizer.ggml.tokens", toks, (uint64_t)n);
    gw_kv_arr_f32(&wr, "tokenizer.ggml.scores", scores, (uint64_t)n);
    gw_kv_arr_i32(&wr, "tokenizer.ggml.token_type", types, (uint64_t)n);
    gw_kv_u32(&wr, "tokenizer.ggml.bos_token_id", 1);
    gw_kv_u32(&wr, "tokenizer.ggml.eos_token_id", 2);
    gw_finish(&wr);
    t->buf = (unsigned char *)malloc(wr.n + 64);
    if (!t->buf) return 0;
    memcpy(t->buf, wr.p, wr.n);
    if (!CHECK_OK(llm_gguf_create(&t->g, t->buf, wr.n, &why)) ||
        !CHECK(fc_load_is(llm_gguf_load(&t->m, &t->g, t->layers, NL, &why), &why, LLM_OK)) ||
        (!fc_host_le() && !host_model(t, t->buf, wr.n)) || !CHECK_OK(llm_vocab_create_gguf(&t->v, &t->g, &why))) {
        fprintf(stderr, "    why: %s\n", why ? why : "?");
        gw_free(&wr);
        return 0;
    }
    gw_free(&wr);
    return 1;
}

static void free_model(tm *t) {
    int k;
    for (k = 0; k < 12; k++) free(t->w[k]);
    llm_vocab_free(&t->v);
    llm_gguf_free(&t->g);
    free(t->buf);
}

static llm_sampler_params sampling(uint64_t seed) {
    llm_sampler_params sp;
    memset(&sp, 0, sizeof sp);
    sp.temperature = 0.9f, sp.top_p = 0.95f, sp.repeat_penalty = 1.1f, sp.seed = seed;
    return sp;
}

/* Every token of a reply equals the hand-written loop's; the text shown is the decode of
   those ids (a continuation keeps the first space); no allocation per token is
   structural (llm_gen_next has no allocator call), so it is not counted here. */
static void test_reproduces(tm *t) {
    const char *prompt = "ab ba the";
    int32_t pids[64];
    int ids[64], ref[40], i, n_ref = 0, steps = 30, ok = 1;
    size_t np = 0, len, shown_n = 0, dn = 0;
    char shown[2048], dec[2048];
    const char *piece;
    llm_state s;
    llm_sampler smp;
    llm_sampler_params sp = sampling(7);
    llm_gen g;
    llm_gen_params gp = llm_gen_params_default();
    llm_gen_stop why = LLM_GEN_NONE;
    float *logits = (float *)malloc((size_t)t->V * sizeof(float));
    CHECK_OK(llm_vocab_encode(&t->v, prompt, strlen(prompt), LLM_ENCODE_BOS, pids, 64, &np, NULL, 0));
    for (i = 0; i < (int)np; i++) ids[i] = pids[i];
    /* the reference: prefill, then sample / forward one token at a time */
    CHECK_OK(llm_state_create(&s, &t->m.config, CTX, 8, LLM_F32));
    CHECK_OK(llm_sampler_chain_create(&smp, t->V, &sp));
    CHECK_OK(llm_forward(&s, &t->m.weights, ids, (int)np, 0, logits, 0, NULL));
    for (i = 0; i < steps; i++) {
        ref[n_ref++] = llm_sample(&smp, logits);
        CHECK_OK(llm_forward(&s, &t->m.weights, &ref[n_ref - 1], 1, (int)np + i, logits, 0, NULL));
    }
    /* the same through llm_gen (no eog: every reference token is drawn) */
    gp.sampler = sp, gp.capacity = CTX, gp.prefill_chunk = 8, gp.max_tokens = steps;
    gp.eog = &t->V, gp.n_eog = 0;
    CHECK_OK(llm_gen_create(&g, &t->m.config, &t->m.weights, NULL, &gp, NULL));
    CHECK(g.n_eog == 0);
    llm_gen_free(&g);
    CHECK_OK(llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    g.n_eog = 0; /* the vocabulary's </s> would end it early; the reference draws it */
    CHECK_OK(llm_gen_prompt(&g, prompt, strlen(prompt), LLM_ENCODE_BOS));
    CHECK(g.n_prefilled == (int)np);
    for (i = 0; i < steps && why == LLM_GEN_NONE; i++) {
        if (!CHECK_OK(llm_gen_next(&g, &piece, &len, &why))) break;
        if (g.token != ref[i]) ok = 0;
        memcpy(shown + shown_n, piece, len), shown_n += len;
    }
    CHECK_MSG(ok && i == steps, "llm_gen's tokens = the llm_forward + llm_sample loop's, %d of %d", i, steps);
    CHECK(why == LLM_GEN_MAX_TOKENS);
    CHECK(g.n_tokens == (int)np + steps && g.state.kv.len == (int)np + steps - 1); /* the last one not run yet */
    CHECK(memcmp(g.tokens + np, ref, sizeof(int) * (size_t)steps) == 0);
    {
        int32_t r32[40];
        for (i = 0; i < steps; i++) r32[i] = ref[i];
        CHECK_OK(llm_vocab_decode(&t->v, r32, (size_t)steps, LLM_DECODE_KEEP_SPACE, dec, sizeof dec, &dn));
        CHECK_MSG(dn == shown_n && memcmp(dec, shown, dn) == 0, "the pieces shown = llm_vocab_decode of the ids (%zu, %zu bytes)",
                  shown_n, dn);
    }
    /* after a stop, llm_gen_next repeats the reason and shows nothing */
    CHECK_OK(llm_gen_next(&g, &piece, &len, &why));
    CHECK(why == LLM_GEN_MAX_TOKENS && len == 0);
    llm_gen_free(&g);
    llm_sampler_free(&smp);
    llm_state_free(&s);
    free(logits);
}

/* One greedy reply of up to n tokens after the prompt "ab": tokens and shown text. */
typedef struct reply {
    int tok[64], n;
    char text[4096];
    size_t n_text;
    llm_gen_stop why;
    llm_status st;
} reply;
static void run_reply(tm *t, llm_gen_params *gp, int use_eog_of_vocab, reply *r) {
    llm_gen g;
    const char *piece;
    size_t len;
    memset(r, 0, sizeof *r);
    gp->sampler.greedy = 1;
    r->st = llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, gp, NULL);
    if (r->st != LLM_OK) return;
    if (!use_eog_of_vocab && gp->n_eog == 0) g.n_eog = 0;
    r->st = llm_gen_prompt(&g, "ab", 2, LLM_ENCODE_BOS);
    r->why = LLM_GEN_NONE;
    while (r->st == LLM_OK && r->why == LLM_GEN_NONE && r->n < 64) {
        r->st = llm_gen_next(&g, &piece, &len, &r->why);
        if (r->why != LLM_GEN_EOG || g.token >= 0) r->tok[r->n++] = g.token;
        memcpy(r->text + r->n_text, piece, len), r->n_text += len;
    }
    llm_gen_free(&g);
}

static int stop_after(void *user, const char *piece, size_t len) {
    int *k = (int *)user;
    (void)piece, (void)len;
    return ++*k >= 3;
}

static void test_stop_reasons(tm *t) {
    reply base, r;
    llm_gen_params gp = llm_gen_params_default();
    int eog, first = -1, i, k = 0;
    char stop[4];
    const char *stops[1];
    size_t at;
    llm_gen g;
    llm_gen_stop why;
    const char *piece;
    size_t len;
    /* max tokens */
    gp.capacity = CTX, gp.max_tokens = 20;
    run_reply(t, &gp, 0, &base);
    CHECK_OK(base.st);
    CHECK(base.why == LLM_GEN_MAX_TOKENS && base.n == 20);
    /* eog: the 6th token drawn becomes an end-of-generation id; the reply ends at its first
       draw, without it */
    eog = base.tok[5];
    for (i = 0; i < base.n && first < 0; i++)
        if (base.tok[i] == eog) first = i;
    gp.eog = &eog, gp.n_eog = 1;
    run_reply(t, &gp, 1, &r);
    CHECK(r.why == LLM_GEN_EOG && r.n == first + 1 && memcmp(r.tok, base.tok, sizeof(int) * (size_t)first) == 0);
    gp.eog = NULL, gp.n_eog = 0;
    /* stop string: 2 bytes of the reference text from its middle (no NUL); the text shown
       is the reference's up to where the string first occurs */
    for (at = base.n_text / 2; at + 2 < base.n_text && (!base.text[at] || !base.text[at + 1]); at++) {}
    if (at + 2 < base.n_text) {
        char *hit;
        stop[0] = base.text[at], stop[1] = base.text[at + 1], stop[2] = 0;
        stops[0] = stop;
        gp.stops = stops, gp.n_stops = 1;
        run_reply(t, &gp, 0, &r);
        base.text[base.n_text] = 0;
        hit = strstr(base.text, stop);
        CHECK(r.why == LLM_GEN_STOP_STRING && hit);
        if (hit) CHECK_MSG(r.n_text == (size_t)(hit - base.text) && memcmp(r.text, base.text, r.n_text) == 0,
                           "shown %zu bytes, the text before the stop string %d", r.n_text, (int)(hit - base.text));
        gp.stops = NULL, gp.n_stops = 0;
    } else {
        CHECK_MSG(0, "the reference text has no two non-NUL bytes to stop at (%zu bytes)", base.n_text);
    }
    /* context full: capacity 8, prompt BOS + "ab" (2 tokens): positions 2..7 run, and the
       token drawn from position 7's logits is the last (run.c's steps + 1) */
    gp.capacity = 8, gp.max_tokens = 0;
    run_reply(t, &gp, 0, &r);
    CHECK(r.why == LLM_GEN_CONTEXT_FULL && r.n == 7 && memcmp(r.tok, base.tok, 7 * sizeof(int)) == 0);
    /* after a full context nothing more fits: every prompt is LLM_EFULL, never an overflow */
    CHECK_OK(llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    g.n_eog = 0;
    CHECK_OK(llm_gen_prompt(&g, "ab", 2, LLM_ENCODE_BOS));
    do CHECK_OK(llm_gen_next(&g, &piece, &len, &why));
    while (why == LLM_GEN_NONE);
    CHECK(why == LLM_GEN_CONTEXT_FULL && g.n_tokens == 9 && g.state.kv.len == 8);
    CHECK(llm_gen_prompt(&g, "", 0, 0) == LLM_EFULL && llm_gen_prompt(&g, "ab", 2, 0) == LLM_EFULL);
    CHECK(llm_gen_prompt_ids(&g, &eog, 0) == LLM_EFULL && g.n_tokens == 9);
    llm_gen_free(&g);
    /* a prompt past the capacity is LLM_EFULL, nothing run */
    CHECK_OK(llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    CHECK(llm_gen_prompt(&g, "abababab ab ab ab ab", 20, LLM_ENCODE_BOS) == LLM_EFULL && g.n_tokens == 0);
    CHECK(llm_gen_next(&g, &piece, &len, &why) == LLM_EINVAL && why == LLM_GEN_ERROR); /* no prompt */
    CHECK(llm_gen_prompt_ids(&g, &t->V, 1) == LLM_EINVAL);                               /* id out of range */
    CHECK(llm_gen_prompt_ids(&g, NULL, 0) == LLM_EINVAL);                                /* empty context */
    /* the callback wrapper: stops when asked */
    gp.capacity = CTX;
    llm_gen_free(&g);
    CHECK_OK(llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    g.n_eog = 0;
    CHECK_OK(llm_gen_prompt(&g, "ab", 2, LLM_ENCODE_BOS));
    CHECK_OK(llm_gen_run(&g, stop_after, &k, &why));
    CHECK(why == LLM_GEN_CALLBACK && k == 3 && g.n_drawn == 3);
    llm_gen_free(&g);
    /* bad params */
    gp.n_eog = 1, gp.eog = &t->V;
    CHECK(llm_gen_bytes(&t->m.config, &t->v, &gp) == 0);
    CHECK(llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, &gp, NULL) == LLM_EINVAL);
    gp.n_eog = 0, gp.eog = NULL, gp.capacity = -1;
    CHECK(llm_gen_bytes(&t->m.config, &t->v, &gp) == 0);
    CHECK(strcmp(llm_gen_stop_name(LLM_GEN_STOP_STRING), "stop string") == 0);
}

/* A session saved mid-reply and loaded into a fresh llm_gen continues exactly as the
   uninterrupted one: the same tokens and bytes shown (memcmp). Then hostile buffers. */
static void test_sessions(tm *t) {
    llm_gen a, b;
    llm_gen_params gp = llm_gen_params_default();
    const char *stops[1] = {"zz"}, *piece, *why = NULL;
    int i, ta[40], tb[40], na = 0, nb = 0;
    char xa[4096], xb[4096];
    size_t la = 0, lb = 0, len, n = 0, need, cut;
    unsigned char *buf;
    llm_gen_stop wa = LLM_GEN_NONE, wb = LLM_GEN_NONE;
    llm_dtype dts[3] = {LLM_F32, LLM_F16, LLM_INT8};
    int d;
    for (d = 0; d < 3; d++) {
        gp.sampler = sampling(11), gp.capacity = CTX, gp.max_tokens = 30, gp.stops = stops, gp.n_stops = 1;
        gp.kv_dtype = dts[d];
        CHECK_OK(llm_gen_create(&a, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
        CHECK_OK(llm_gen_create(&b, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
        a.n_eog = b.n_eog = 0;
        CHECK_OK(llm_gen_prompt(&a, "the ab", 6, LLM_ENCODE_BOS));
        for (i = 0; i < 10; i++) CHECK_OK(llm_gen_next(&a, &piece, &len, &wa));
        need = llm_gen_session_bytes(&a);
        buf = (unsigned char *)malloc(need);
        CHECK(llm_gen_session_save(&a, buf, need - 1, &n) == LLM_ERANGE && n == need);
        CHECK_OK(llm_gen_session_save(&a, buf, need, &n));
        if (!CHECK_OK(llm_gen_session_load(&b, buf, n, &why))) fprintf(stderr, "    why: %s\n", why);
        na = nb = 0, la = lb = 0, wa = wb = LLM_GEN_NONE;
        while (wa == LLM_GEN_NONE && na < 40) {
            CHECK_OK(llm_gen_next(&a, &piece, &len, &wa));
            ta[na++] = a.token, memcpy(xa + la, piece, len), la += len;
        }
        while (wb == LLM_GEN_NONE && nb < 40) {
            CHECK_OK(llm_gen_next(&b, &piece, &len, &wb));
            tb[nb++] = b.token, memcpy(xb + lb, piece, len), lb += len;
        }
        CHECK_MSG(na == nb && wa == wb && memcmp(ta, tb, sizeof(int) * (size_t)na) == 0 && la == lb &&
                      memcmp(xa, xb, la) == 0,
                  "%s cache: restored session continues as the original (%d vs %d tokens)", llm_dtype_name(dts[d]), na, nb);
        CHECK(a.n_tokens == b.n_tokens && a.state.kv.len == b.state.kv.len);
        /* hostile: every truncation, and a flipped byte in each region, is LLM_EFORMAT with a
           reason, and b is unchanged by a refused load */
        if (d == 0) {
            int bad = 0, unchanged = 1, nt = b.n_tokens;
            for (cut = 0; cut < n; cut += cut < 256 ? 1 : 97) {
                llm_status st = llm_gen_session_load(&b, buf, cut, &why);
                if (st != LLM_EFORMAT || !why || strncmp(why, "session: ", 9) != 0) bad++;
                if (b.n_tokens != nt) unchanged = 0;
            }
            CHECK_MSG(bad == 0, "%d truncations not refused with a reason", bad);
            CHECK(unchanged);
            for (cut = 0; cut < n; cut += n / 23 + 1) {
                llm_status st;
                buf[cut] ^= 0x40;
                st = llm_gen_session_load(&b, buf, n, &why);
                if (st != LLM_EFORMAT && st != LLM_EFULL) bad++;
                buf[cut] ^= 0x40;
            }
            CHECK_MSG(bad == 0, "%d corrupted sessions accepted", bad);
            CHECK_OK(llm_gen_session_load(&b, buf, n, &why)); /* the intact one still loads */
            CHECK(llm_gen_session_load(&b, buf, n + 1, &why) == LLM_EFORMAT);
        }
        /* another dtype's cache, or another model shape: refused */
        {
            llm_gen c2;
            llm_gen_params g2 = gp;
            g2.kv_dtype = dts[(d + 1) % 3];
            CHECK_OK(llm_gen_create(&c2, &t->m.config, &t->m.weights, &t->v, &g2, NULL));
            CHECK(llm_gen_session_load(&c2, buf, n, &why) == LLM_EFORMAT && strstr(why, "dtype"));
            llm_gen_free(&c2);
        }
        if (d == 0) {
            llm_gen c2;
            llm_config other = t->m.config;
            other.rope_theta = 500000.0f;
            CHECK_OK(llm_gen_create(&c2, &other, &t->m.weights, &t->v, &gp, NULL));
            CHECK(llm_gen_session_load(&c2, buf, n, &why) == LLM_EFORMAT && strstr(why, "fingerprint"));
            llm_gen_free(&c2);
            gp.capacity = 8; /* fewer positions than the session holds */
            CHECK_OK(llm_gen_create(&c2, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
            CHECK(llm_gen_session_load(&c2, buf, n, &why) == LLM_EFULL);
            llm_gen_free(&c2);
        }
#ifndef LLM_NO_STDIO
        if (d == 0) {
            const char *path = "build/test_gen_session.bin";
            llm_gen c2;
            gp.capacity = CTX;
            CHECK_OK(llm_gen_session_save_file(&a, path));
            CHECK_OK(llm_gen_create(&c2, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
            CHECK_OK(llm_gen_session_load_file(&c2, path, &why));
            CHECK(c2.n_tokens == a.n_tokens && memcmp(c2.tokens, a.tokens, sizeof(int) * (size_t)a.n_tokens) == 0);
            CHECK(llm_gen_session_load_file(&c2, "build/no/such/session", &why) == LLM_EIO);
            llm_gen_free(&c2);
            remove(path);
        }
#endif
        free(buf);
        llm_gen_free(&a);
        llm_gen_free(&b);
    }
}

/* Chat: the second turn runs only the tokens after the first turn's context (the reply
   and the new turn), and gives the same next tokens as a fresh generator that prefills
   the whole conversation. */
static void test_chat_reuse(tm *t) {
    llm_chat_template tp;
    llm_gen g, f;
    llm_gen_params gp = llm_gen_params_default();
    llm_chat_msg msgs[4];
    const char *piece;
    size_t len, rl = 0;
    char reply[2048];
    llm_gen_stop why = LLM_GEN_NONE;
    int n1, n2, end_id = 4, i, same = 1;
    CHECK_OK(llm_chat_template_named(&tp, "chatml"));
    gp.chat = &tp, gp.capacity = CTX, gp.max_tokens = 6, gp.eog = &end_id, gp.n_eog = 1;
    gp.sampler.greedy = 1;
    CHECK_OK(llm_gen_create(&g, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    msgs[0].role = "system", msgs[0].content = "ab";
    msgs[1].role = "user", msgs[1].content = "hello ab";
    CHECK_OK(llm_gen_chat(&g, msgs, 2));
    n1 = g.n_tokens;
    CHECK(g.n_prefilled == n1 && n1 > 10);
    CHECK(g.tokens[0] == 3); /* <|im_start|> parsed as its id */
    while (why == LLM_GEN_NONE) {
        if (!CHECK_OK(llm_gen_next(&g, &piece, &len, &why))) break;
        memcpy(reply + rl, piece, len), rl += len;
    }
    reply[rl] = 0;
    msgs[2].role = "assistant", msgs[2].content = reply;
    msgs[3].role = "user", msgs[3].content = "ba";
    CHECK_OK(llm_gen_chat(&g, msgs, 4));
    n2 = g.n_tokens;
    CHECK_MSG(g.n_prefilled <= n2 - n1 && g.n_prefilled > 0, /* never turn 1's tokens again */
              "turn 2 prefilled %d tokens of %d (turn 1's context: %d)", g.n_prefilled, n2, n1);
    /* a fresh generator over the whole conversation draws the same reply */
    CHECK_OK(llm_gen_create(&f, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    CHECK_OK(llm_gen_chat(&f, msgs, 4));
    CHECK(f.n_prefilled == n2 && f.n_tokens == n2 && memcmp(f.tokens, g.tokens, sizeof(int) * (size_t)n2) == 0);
    for (i = 0; i < 6; i++) {
        llm_gen_stop w1, w2;
        CHECK_OK(llm_gen_next(&g, &piece, &len, &w1));
        CHECK_OK(llm_gen_next(&f, &piece, &len, &w2));
        if (g.token != f.token || w1 != w2) same = 0;
        if (w1 != LLM_GEN_NONE) break;
    }
    CHECK_MSG(same, "the reply over a kept cache = the reply after a full prefill");
    /* chat without a template is refused */
    gp.chat = NULL;
    llm_gen_free(&f);
    CHECK_OK(llm_gen_create(&f, &t->m.config, &t->m.weights, &t->v, &gp, NULL));
    CHECK(llm_gen_chat(&f, msgs, 2) == LLM_EINVAL);
    llm_gen_free(&f);
    llm_gen_free(&g);
}

/* ---- llm_gen_next_batch: n generators stepped together = each stepped alone ---------- */

/* Generator i of the batched tests: each its own sampler and seed, prompt, stop strings,
   limit, capacity and KV cache dtype (the vocabulary's </s> ends any of them). */
static const char *batch_params(int i, llm_gen_params *gp) {
    static const char *const stops[2] = {"d", " a"}; /* frequent in this model's text */
    *gp = llm_gen_params_default();
    gp->capacity = CTX, gp->prefill_chunk = 8, gp->max_tokens = 24;
    switch (i % 5) {
    case 0: gp->sampler = sampling(21); return "ab ba the";
    case 1: gp->sampler.greedy = 1, gp->max_tokens = 4; return "ab"; /* stops early */
    case 2:
        gp->sampler = sampling(22), gp->sampler.top_k = 5, gp->stops = stops, gp->n_stops = 2, gp->kv_dtype = LLM_F16;
        return "hello ab";
    case 3: gp->sampler = sampling(23), gp->capacity = 12, gp->kv_dtype = LLM_INT8; return "the ab"; /* fills its context */
    default:
        gp->sampler = sampling(24), gp->sampler.min_p = 0.05f, gp->sampler.temperature = 1.3f;
        gp->sampler.frequency_penalty = 0.5f, gp->sampler.top_p = 1.0f;
        return "ba";
    }
}

/* One step: gens[] (B's generators at slot[i] of it, with others around them) through
   llm_gen_next_batch, and a[i] through llm_gen_next. Every out[] field, the pieces'
   bytes, the logits pending and the context must be those of the generator alone (one
   with no logits pending, which llm_gen_next refuses, is skipped); the call's status is
   the first failure's in gens[] order. Returns the mismatches; *live counts the replies
   still going, seen[] the stop reasons. */
static int batch_step_vs_alone(llm_gen *a, llm_gen *const *gens, int m, const int *slot, int n, void *scratch,
                               size_t sb, int *live, int *seen) {
    llm_gen_piece out[8];
    const char *why = NULL;
    llm_status st = llm_gen_next_batch(gens, m, scratch, sb, out, &why), want_st = LLM_OK;
    int i, bad = 0, first = m, V = a[0].state.config.vocab;
    *live = 0;
    for (i = 0; i < n; i++) {
        const char *piece;
        size_t len;
        llm_gen_stop why_a;
        llm_gen_step want = a[i].stopped != LLM_GEN_NONE ? LLM_GEN_SKIP_STOPPED
                            : !a[i].has_logits           ? LLM_GEN_SKIP_PROMPT
                                                         : LLM_GEN_STEPPED;
        int drawn = a[i].n_drawn, ok;
        llm_status sa = llm_gen_next(&a[i], &piece, &len, &why_a);
        const llm_gen_piece *p = &out[slot[i]];
        const llm_gen *b = gens[slot[i]];
        if (want == LLM_GEN_SKIP_PROMPT) /* alone: refused (no prompt); batched: passed over */
            ok = sa == LLM_EINVAL && p->status == LLM_OK && p->stop == LLM_GEN_NONE && p->len == 0;
        else
            ok = p->status == sa && p->stop == why_a && p->len == len && memcmp(p->piece, piece, len) == 0;
        ok = ok && p->step == want && p->token == (a[i].n_drawn != drawn ? a[i].token : -1) && b->token == a[i].token &&
             b->has_logits == a[i].has_logits && b->n_tokens == a[i].n_tokens && b->stopped == a[i].stopped &&
             b->state.kv.len == a[i].state.kv.len &&
             memcmp(b->tokens, a[i].tokens, sizeof(int) * (size_t)a[i].n_tokens) == 0 &&
             (!a[i].has_logits || memcmp(b->logits, a[i].logits, sizeof(float) * (size_t)V) == 0);
        if (!ok && bad++ == 0)
            fprintf(stderr, "    generator %d of %d: batched status %d stop %d len %zu token %d step %d, alone %d %d %zu %d\n",
                    i, n, (int)p->status, (int)p->stop, p->len, p->token, (int)p->step, (int)sa, (int)why_a, len,
                    a[i].token);
        if (why_a == LLM_GEN_NONE) ++*live;
        if (seen && why_a >= 0 && why_a < LLM_GEN_STOP_COUNT) seen[why_a] = 1;
        if (want == LLM_GEN_STEPPED && sa != LLM_OK && slot[i] < first) first = slot[i], want_st = sa;
    }
    if (st != want_st) bad++;
    for (i = 0; i < m; i++) /* the others: never prompted, skipped without a change */
        if (gens[i]->n_tokens == 0 && (out[i].step != LLM_GEN_SKIP_PROMPT || out[i].status != LLM_OK || out[i].len != 0 ||
                                       out[i].token != -1 || out[i].stop != LLM_GEN_NONE || gens[i]->has_logits))
            bad++;
    return bad;
}

/* Two sessions' bytes equal: the whole state (context, KV rows, logits pending, sampler,
   held bytes) the same. */
static int same_session(const llm_gen *x, const llm_gen *y) {
    size_t nx = llm_gen_session_bytes(x), ny = llm_gen_session_bytes(y), kx = 0, ky = 0;
    unsigned char *bx = (unsigned char *)malloc(nx ? nx : 1), *by = (unsigned char *)malloc(ny ? ny : 1);
    int same = nx == ny && bx && by && llm_gen_session_save(x, bx, nx, &kx) == LLM_OK &&
               llm_gen_session_save(y, by, ny, &ky) == LLM_OK && kx == ky && memcmp(bx, by, kx) == 0;
    free(bx), free(by);
    return same;
}

/* n = 1..5 generators (with one never prompted riding along from n = 2 on, first in the
   list at n = 3), batched on a 2-thread pool, against n twins stepped alone; no step
   allocates (the implementation's allocator counts its calls). */
static void test_batch_matches_alone(tm *t) {
    llm_gen a[5], b[5], u;
    llm_gen *gens[6];
    int n, i, step, slot[5], bad = 0, sess_bad = 0, seen[LLM_GEN_STOP_COUNT] = {0}, live = 1, steps = 0;
    long allocs = 0;
    llm_threads *th = test_pool(2, 1, "llm_gen_next_batch on a 2-thread pool (one thread instead)");
    for (n = 1; n <= 5; n++) {
        int m = n + (n >= 2), at = 0;
        size_t sb = llm_gen_batch_bytes(&t->m.config, m);
        char *raw = (char *)malloc(sb + 1), *scratch = raw + 1; /* any alignment */
        llm_gen_params gp;
        CHECK(sb > 0 && raw);
        CHECK_OK(llm_gen_create(&u, &t->m.config, &t->m.weights, &t->v, (batch_params(0, &gp), &gp), NULL));
        if (n == 3) gens[at++] = &u;
        for (i = 0; i < n; i++) {
            const char *prompt = batch_params(i, &gp);
            CHECK_OK(llm_gen_create(&a[i], &t->m.config, &t->m.weights, &t->v, &gp, NULL));
            CHECK_OK(llm_gen_create(&b[i], &t->m.config, &t->m.weights, &t->v, &gp, th));
            CHECK_OK(llm_gen_prompt(&a[i], prompt, strlen(prompt), LLM_ENCODE_BOS));
            CHECK_OK(llm_gen_prompt(&b[i], prompt, strlen(prompt), LLM_ENCODE_BOS));
            slot[i] = at, gens[at++] = &b[i];
        }
        if (n >= 2 && n != 3) gens[at++] = &u;
        allocs -= test_alloc_count;
        for (step = 0, live = 1; step < 40 && live; step++, steps++)
            bad += batch_step_vs_alone(a, gens, m, slot, n, scratch, sb, &live, seen);
        allocs += test_alloc_count;
        CHECK_MSG(!live, "n = %d: every reply ends within 40 steps (max_tokens 24)", n);
        for (i = 0; i < n; i++) {
            if (!same_session(&a[i], &b[i])) sess_bad++;
            llm_gen_free(&a[i]), llm_gen_free(&b[i]);
        }
        llm_gen_free(&u);
        free(raw);
    }
    CHECK_MSG(bad == 0, "%d mismatches of the batched step against llm_gen_next alone, over %d steps", bad, steps);
    CHECK_MSG(sess_bad == 0, "%d generators' sessions differ between batched and alone", sess_bad);
    CHECK_MSG(allocs == 0, "%ld allocations in %d steps (batched and alone): none is the contract", allocs, steps);
    /* the runs covered the stops: max tokens (early and late), a full context, a stop string */
    CHECK(seen[LLM_GEN_MAX_TOKENS] && seen[LLM_GEN_CONTEXT_FULL] && seen[LLM_GEN_STOP_STRING]);
    llm_threads_free(th);
}

/* A refused call changes nothing: not the generators, not out[]. */
static void expect_refused(llm_gen *const *gens, int n, void *scratch, size_t sb, llm_gen_piece *out, const llm_gen *a,
                           const char *reason) {
    const char *why = NULL;
    unsigned char before[sizeof(llm_gen_piece) * 2];
    int nt = a->n_tokens, hl = a->has_logits, tok = a->token;
    uint64_t rng = a->sampler.rng;
    llm_status st;
    if (out) memset(out, 0x5a, sizeof before), memcpy(before, out, sizeof before);
    st = llm_gen_next_batch(gens, n, scratch, sb, out, &why);
    CHECK_MSG(st == LLM_EINVAL && why && strstr(why, reason), "refused with '%s': %s, why '%s'", reason,
              llm_status_str(st), why ? why : "(none)");
    CHECK(a->n_tokens == nt && a->has_logits == hl && a->token == tok && a->sampler.rng == rng);
    if (out) CHECK(memcmp(before, out, sizeof before) == 0);
}

static void test_batch_refusals(tm *t) {
    llm_gen a, b, other_cfg, other_w, none;
    llm_gen *gens[2];
    llm_gen_piece out[2];
    llm_gen_params gp;
    llm_config oc = t->m.config;
    llm_weights w2 = t->m.weights; /* the same arrays through another llm_weights */
    const llm_config *c = &t->m.config;
    size_t sb = llm_gen_batch_bytes(c, 2);
    void *scratch = malloc(sb);
    const char *prompt = batch_params(0, &gp);
    oc.rope_theta = 500000.0f;
    memset(&none, 0, sizeof none);
    CHECK(llm_gen_batch_bytes(c, 0) == 0 && llm_gen_batch_bytes(c, LLM_BATCH_MAX + 1) == 0 && llm_gen_batch_bytes(NULL, 1) == 0);
    CHECK(llm_gen_batch_bytes(c, LLM_BATCH_MAX) > llm_gen_batch_bytes(c, 2) && sb > llm_gen_batch_bytes(c, 1));
    CHECK_OK(llm_gen_create(&a, c, &t->m.weights, &t->v, &gp, NULL));
    CHECK_OK(llm_gen_create(&b, c, &t->m.weights, &t->v, &gp, NULL));
    CHECK_OK(llm_gen_create(&other_cfg, &oc, &t->m.weights, &t->v, &gp, NULL));
    CHECK_OK(llm_gen_create(&other_w, c, &w2, &t->v, &gp, NULL));
    CHECK_OK(llm_gen_prompt(&a, prompt, strlen(prompt), LLM_ENCODE_BOS));
    CHECK_OK(llm_gen_prompt(&b, prompt, strlen(prompt), LLM_ENCODE_BOS));
    CHECK_OK(llm_gen_prompt(&other_cfg, prompt, strlen(prompt), LLM_ENCODE_BOS));
    CHECK_OK(llm_gen_prompt(&other_w, prompt, strlen(prompt), LLM_ENCODE_BOS));
    gens[0] = &a, gens[1] = &b;
    expect_refused(gens, 0, scratch, sb, out, &a, "outside 1..LLM_BATCH_MAX");
    expect_refused(gens, LLM_BATCH_MAX + 1, scratch, sb, out, &a, "outside 1..LLM_BATCH_MAX");
    expect_refused(NULL, 2, scratch, sb, out, &a, "NULL");
    expect_refused(gens, 2, scratch, sb, NULL, &a, "NULL");
    expect_refused(gens, 2, scratch, sb - 1, out, &a, "scratch is smaller");
    expect_refused(gens, 2, NULL, sb, out, &a, "scratch is smaller");
    gens[1] = &a;
    expect_refused(gens, 2, scratch, sb, out, &a, "listed twice");
    gens[1] = NULL;
    expect_refused(gens, 2, scratch, sb, out, &a, "not initialized");
    gens[1] = &none;
    expect_refused(gens, 2, scratch, sb, out, &a, "not initialized");
    gens[1] = &other_cfg;
    expect_refused(gens, 2, scratch, sb, out, &a, "configs differ");
    gens[1] = &other_w;
    expect_refused(gens, 2, scratch, sb, out, &a, "different weights");
    /* one scratch of n serves fewer too */
    gens[1] = &b;
    CHECK_OK(llm_gen_next_batch(gens, 1, scratch, sb, out, NULL));
    CHECK(out[0].step == LLM_GEN_STEPPED && out[0].token == a.token && a.n_drawn == 1 && b.n_drawn == 0);
    llm_gen_free(&a), llm_gen_free(&b), llm_gen_free(&other_cfg), llm_gen_free(&other_w);
    free(scratch);
}

/* A forward pass that fails (a layer's weight taken away after the prompts) fails each
   generator as llm_gen_next does alone: the same status, piece, context and KV rows, no
   logits pending; the next step skips them; with the weight back, llm_gen_prompt_ids(g,
   NULL, 0) runs the drawn token and both go on alike. */
static void test_batch_forward_error(tm *t) {
    llm_layer_weights la[NL], lb[NL];
    llm_weights wa = t->m.weights, wb = t->m.weights;
    llm_gen a[3], b[3];
    llm_gen *gens[3];
    llm_gen_piece out[3];
    int i, slot[3] = {0, 1, 2}, live = 1, bad = 0, step, failed = 0;
    size_t sb = llm_gen_batch_bytes(&t->m.config, 3);
    void *scratch = malloc(sb);
    memcpy(la, t->layers, sizeof la), memcpy(lb, t->layers, sizeof lb);
    wa.layers = la, wb.layers = lb;
    for (i = 0; i < 3; i++) {
        llm_gen_params gp;
        const char *prompt = batch_params(i == 1 ? 4 : i, &gp); /* no early stop among them */
        CHECK_OK(llm_gen_create(&a[i], &t->m.config, &wa, &t->v, &gp, NULL));
        CHECK_OK(llm_gen_create(&b[i], &t->m.config, &wb, &t->v, &gp, NULL));
        CHECK_OK(llm_gen_prompt(&a[i], prompt, strlen(prompt), LLM_ENCODE_BOS));
        CHECK_OK(llm_gen_prompt(&b[i], prompt, strlen(prompt), LLM_ENCODE_BOS));
        gens[i] = &b[i];
    }
    la[1].w2.data = lb[1].w2.data = NULL; /* after layer 0 and layer 1's attention wrote K and V */
    bad += batch_step_vs_alone(a, gens, 3, slot, 3, scratch, sb, &live, NULL);
    for (i = 0; i < 3; i++)
        if (a[i].stopped == LLM_GEN_NONE) { /* drew, then failed */
            failed++;
            CHECK(!b[i].has_logits && b[i].state.kv.len == b[i].n_tokens - 1);
        }
    CHECK_MSG(failed > 0, "the broken weight failed %d of 3 generators", failed);
    /* the failed ones wait for a prompt */
    CHECK_OK(llm_gen_next_batch(gens, 3, scratch, sb, out, NULL));
    for (i = 0; i < 3; i++)
        if (b[i].stopped == LLM_GEN_NONE) CHECK(out[i].step == LLM_GEN_SKIP_PROMPT && out[i].len == 0);
    la[1].w2.data = lb[1].w2.data = t->layers[1].w2.data;
    for (i = 0; i < 3; i++)
        if (a[i].stopped == LLM_GEN_NONE) {
            CHECK_OK(llm_gen_prompt_ids(&a[i], NULL, 0));
            CHECK_OK(llm_gen_prompt_ids(&b[i], NULL, 0));
        }
    for (step = 0; step < 40 && live; step++) bad += batch_step_vs_alone(a, gens, 3, slot, 3, scratch, sb, &live, NULL);
    CHECK_MSG(bad == 0, "%d mismatches of the batched step against llm_gen_next alone around a failed forward pass", bad);
    for (i = 0; i < 3; i++) {
        CHECK(same_session(&a[i], &b[i]));
        llm_gen_free(&a[i]), llm_gen_free(&b[i]);
    }
    free(scratch);
}

/* One generator's forward pass refused where the other's goes on: learned positions end
   at max_seq_len 10 and generator 0's capacity (16) runs past them, while generator 1 is a
   position behind. Alone, llm_gen_next fails only generator 0 (LLM_ERANGE); batched, the
   same: the one llm_forward_batch is refused, each token runs again alone, and generator 1
   goes on to its full context. */
static void test_batch_one_fails(void) {
    llm_config c = llm_config_default();
    rnd_model m;
    llm_gen a[2], b[2];
    llm_gen *gens[2];
    llm_gen_params gp = llm_gen_params_default();
    static const int p0[3] = {1, 2, 3}, p1[2] = {4, 5};
    int i, slot[2] = {0, 1}, live = 1, step, bad = 0;
    size_t sb;
    void *scratch;
    c.name = "learned", c.d_model = 16, c.n_layers = 2, c.n_heads = 2, c.n_kv_heads = 2, c.d_ff = 32, c.vocab = 40;
    c.max_seq_len = 10, c.pos = LLM_POS_LEARNED;
    rnd_model_make(&m, &c);
    sb = llm_gen_batch_bytes(&c, 2), scratch = malloc(sb);
    for (i = 0; i < 2; i++) {
        gp.capacity = i == 0 ? 16 : 10, gp.sampler = sampling(31 + (uint64_t)i), gp.sampler.greedy = i == 0;
        CHECK_OK(llm_gen_create(&a[i], &c, &m.w, NULL, &gp, NULL));
        CHECK_OK(llm_gen_create(&b[i], &c, &m.w, NULL, &gp, NULL));
        CHECK_OK(llm_gen_prompt_ids(&a[i], i == 0 ? p0 : p1, i == 0 ? 3 : 2));
        CHECK_OK(llm_gen_prompt_ids(&b[i], i == 0 ? p0 : p1, i == 0 ? 3 : 2));
        gens[i] = &b[i];
    }
    for (step = 0; step < 20 && live; step++) bad += batch_step_vs_alone(a, gens, 2, slot, 2, scratch, sb, &live, NULL);
    CHECK_MSG(bad == 0, "%d mismatches of the batched step against llm_gen_next alone, one generator failing", bad);
    CHECK(b[0].stopped == LLM_GEN_NONE && !b[0].has_logits && b[0].n_tokens == 11 && b[0].state.kv.len == 10);
    CHECK(b[1].stopped == LLM_GEN_CONTEXT_FULL && b[1].n_tokens == 11);
    for (i = 0; i < 2; i++) llm_gen_free(&a[i]), llm_gen_free(&b[i]);
    rnd_model_free(&m);
    free(scratch);
}

int main(void) {
    tm t;
    if (make_model(&t)) {
        test_reproduces(&t);
        test_stop_reasons(&t);
        test_sessions(&t);
        test_chat_reuse(&t);
        test_batch_matches_alone(&t);
        test_batch_refusals(&t);
        test_batch_forward_error(&t);
    }
    test_batch_one_fails();
    free_model(&t);
    return test_done();
}
