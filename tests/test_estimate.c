/* >>estimate: every worked figure of issue 2, reproduced by the estimators, plus the
   planner's lines, verdicts and advice, and 64-bit safety on the largest presets.
   Units: GB = 1e9 B, GiB = 2^30 B. */
#include "llm.h"
#include "test.h"
#include "examples/llm-plan-args.h" /* build/llm-plan's parser */
#include "gguf_writer.h"
#include "st_writer.h"

#define GB 1e9
#define GIB 1073741824.0

/* ---- llm-plan --gguf / --hf: a model file's shapes and exact bytes, from its header -- */

/* Nothing the loaders would refuse: not_run is empty, or on a big-endian host exactly its
   one reason (GGUF and safetensors weights are used in place, little-endian). */
static int runs_here(const llm_model_shapes *s) {
    const uint32_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1 ? s->not_run[0] == 0 : strcmp(s->not_run, "big-endian host: the weights are little-endian") == 0;
}

/* Sizes one GGUF the way llm_gguf_shapes_file does, from its first bytes, growing the
   read to what the reader asks for; returns the status, *read the bytes it needed. */
static llm_status shapes_from_prefix(llm_model_shapes *s, const unsigned char *file, size_t n, size_t *read, const char **why) {
    size_t have = 16;
    uint64_t need = 0;
    llm_status st;
    for (;;) {
        if (have > n) have = n;
        st = llm_gguf_shapes(s, file, have, n, &need, why);
        if (st != LLM_ERANGE || need <= have) break;
        have = (size_t)need;
    }
    *read = have;
    return st;
}

static void test_file_shapes(void) {
    /* a Llama-shaped F16 model written by tests/gguf_writer.h; its bytes counted here from
       the shapes: F16 matrices 2 B per element, F32 norms 4 B */
    enum { D = 64, FF = 160, L = 3, H = 4, KVH = 2, V = 96, CTX = 256 };
    const uint64_t hd = D / H, qd = hd * H, kvd = hd * KVH;
    const uint64_t mats = (uint64_t)V * D * 2 /* embedding and output */ + (uint64_t)L * (qd * D * 2 + 2 * kvd * D + 3 * (uint64_t)FF * D);
    const uint64_t norms = (uint64_t)D * (2 * L + 1);
    const uint64_t want_bytes = mats * 2 + norms * 4, want_elems = mats + norms;
    static float zeros[V * FF * L * 4];
    gw w;
    gw_llama m;
    gw_names names;
    llm_model_shapes s;
    const char *why;
    size_t read;
    int arch;
    for (arch = 0; arch < 2; arch++) {
        memset(&m, 0, sizeof m);
        m.arch = arch ? "mystery" : NULL; /* an architecture llm.h does not run still plans */
        m.d = D, m.ff = FF, m.n_layers = L, m.n_heads = H, m.n_kv_heads = KVH, m.vocab = V, m.ctx = CTX;
        m.eps = 1e-5f, m.theta = 10000;
        m.type = GW_F16;
        m.emb = m.attn_norm = m.ffn_norm = m.wq = m.wk = m.wv = m.wo = m.w1 = m.w2 = m.w3 = m.out_norm = m.out = zeros;
        gw_init(&w);
        gw_llama_model(&w, &m, &names);
        gw_finish(&w);
        CHECK_OK(shapes_from_prefix(&s, w.p, w.n, &read, &why));
        CHECK_EQ_U64(s.tensor_bytes, want_bytes);
        CHECK_EQ_U64(s.n_elements, want_elems);
        CHECK_EQ_U64(s.n_tensors, 3 + 9 * L);
        CHECK_EQ_U64(s.file_bytes, w.n);
        CHECK_MSG(read < w.n - want_bytes + 64, "read %zu of %zu bytes: more than the header", read, w.n);
        CHECK(s.config.n_layers == L && s.config.d_model == D && s.config.n_kv_heads == KVH && s.config.max_seq_len == CTX);
        CHECK(strcmp(s.arch, arch ? "mystery" : "llama") == 0 && strcmp(s.config.name, s.arch) == 0);
        CHECK_MSG(arch ? strstr(s.not_run, "'mystery' is not run") != NULL : runs_here(&s), "not_run '%s'", s.not_run);
        /* the config's own count is the file's elements for an architecture it knows */
        CHECK_EQ_U64(llm_count_params(&s.config).total, want_elems);
        /* the planner's weights line is the file's bytes, its KV line the config's cache */
        {
            llm_plan p = llm_plan_default();
            llm_plan_result r;
            p.model = &s.config;
            p.gpu = llm_gpu_preset("l4");
            p.weight_bytes = (double)s.tensor_bytes;
            p.seq_len = 100;
            CHECK_OK(llm_plan_evaluate(&p, &r, &why));
            CHECK_NEAR(r.line[0].bytes, (double)want_bytes, 0);
            CHECK_NEAR(r.line[1].bytes, 2.0 * L * kvd * 100 * 2, 0);
        }
        /* a file cut short keeps the reader's error: its last tensor's data is missing */
        CHECK(llm_gguf_shapes(&s, w.p, w.n - 1, w.n - 1, NULL, &why) == LLM_EFORMAT);
        CHECK_MSG(strstr(why, "data runs past the end") != NULL, "%s", why);
        gw_free(&w);
    }
    /* hostile headers: the reader's errors, never a read past the bytes given */
    {
        unsigned char h[64];
        uint64_t need = 0;
        memset(h, 0, sizeof h);
        memcpy(h, "GGUF\003\000\000\000", 8);
        h[16] = 200; /* 200 metadata entries in a 64-byte file */
        CHECK(llm_gguf_shapes(&s, h, sizeof h, sizeof h, &need, &why) == LLM_EFORMAT);
        CHECK_MSG(strstr(why, "metadata count") != NULL, "%s", why);
        h[16] = 1, h[24] = 0xff, h[31] = 0x7f; /* a key length of ~2^63 */
        CHECK(llm_gguf_shapes(&s, h, 40, 1000, &need, &why) == LLM_EFORMAT && need == 0);
        CHECK(llm_gguf_shapes(&s, h, 8, 1000, &need, &why) == LLM_ERANGE && need == 24);
        CHECK(llm_gguf_shapes(&s, "GGML", 4, 4, &need, &why) == LLM_EFORMAT);
    }
    /* llama.cpp's own files: the bytes are the sum, over the file's tensor table, of each
       tensor's elements x its type's block size (gguf_writer.h's table, not the reader's) */
    {
        static const char *const q[] = {"F32", "Q8_0", "Q6_K", "Q5_0", "Q4_0", "Q4_K_M"};
        int i;
        for (i = 0; i < 6; i++) {
            char path[128];
            FILE *f;
            unsigned char *buf;
            long n;
            llm_gguf g;
            int64_t k;
            uint64_t sum = 0, elems = 0;
            snprintf(path, sizeof path, "../shared/models/quant/q256-%s.gguf", q[i]);
            if (!(f = fopen(path, "rb"))) {
                TEST_SKIP_SHARED(6, "%s absent: llm_gguf_shapes_file against llama.cpp's files", path);
                continue;
            }
            fseek(f, 0, SEEK_END);
            n = ftell(f);
            fseek(f, 0, SEEK_SET);
            buf = (unsigned char *)malloc((size_t)n);
            CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
            fclose(f);
            CHECK_OK(llm_gguf_create(&g, buf, (size_t)n, &why));
            for (k = 0; k < g.n_tensors; k++) {
                uint64_t be, bb, e = 1;
                int d;
                for (d = 0; d < 4; d++) e *= (uint64_t)g.tensors[k].ne[d];
                gw_type_block(g.tensors[k].type, &be, &bb);
                sum += e / be * bb;
                elems += e;
            }
            CHECK_OK(llm_gguf_shapes_file(&s, path, &why));
            CHECK_EQ_U64(s.tensor_bytes, sum);
            CHECK_EQ_U64(s.n_elements, elems);
            CHECK_EQ_U64(s.file_bytes, (uint64_t)n);
            CHECK_EQ_U64(s.header_bytes, g.data_offset);
            /* 4 KiB first, then at least doubling: never past twice the header */
            CHECK_MSG(s.read_bytes <= 4096 || s.read_bytes <= 2 * g.data_offset, "%s: read %llu bytes, the weights start at %llu", path,
                      (unsigned long long)s.read_bytes, (unsigned long long)g.data_offset);
            CHECK_MSG(runs_here(&s), "%s: %s", path, s.not_run);
            llm_gguf_free(&g);
            free(buf);
        }
    }
}

/* config.json + safetensors headers (tests/st_writer.h), in two shards read from their
   first 8 bytes on, as llm_hf_shapes_dir does; the bytes counted here from the shapes */
static void test_hf_shapes(void) {
    llm_config c = llm_config_default();
    stw_model m;
    stw_tensor t[STW_MAX_TENSORS];
    llm_model_shapes s;
    const char *why;
    char cfg[2048];
    uint64_t want_bytes = 0, want_elems = 0;
    int n, i, k, variant;
    c.d_model = 64, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 128, c.vocab = 96, c.max_seq_len = 256;
    c.rope_layout = LLM_ROPE_HALVES;
    CHECK(stw_model_random(&m, &c, 5u) == 0);
    n = stw_model_tensors(&m, "BF16", "F32", t);
    for (i = 0; i < n; i++) {
        uint64_t e = (uint64_t)m.shape[i][0] * (uint64_t)(m.n_dims[i] == 1 ? 1 : m.shape[i][1]);
        want_elems += e;
        want_bytes += e * (m.n_dims[i] == 1 ? 4 : 2);
    }
    for (variant = 0; variant < 4; variant++) {
        /* 0: llama; 1: a model_type llm.h does not run; 2: MLP biases; 3: an I8 tensor */
        stw_config_json(cfg, sizeof cfg, &c, variant == 1 ? "mystery" : "llama", variant == 2 ? "\"mlp_bias\": true" : NULL);
        CHECK_OK(llm_hf_shapes(&s, cfg, strlen(cfg), &why));
        if (variant == 3) t[n - 1].dtype = "I8";
        for (k = 0; k < 2; k++) {
            int lo = k ? n / 2 : 0, hi = k ? n : n / 2;
            size_t len = stw_safetensors(NULL, 0, t + lo, hi - lo, NULL, 8), have = 8;
            unsigned char *p = (unsigned char *)malloc(len);
            uint64_t need = 0;
            llm_status st;
            stw_safetensors(p, len, t + lo, hi - lo, NULL, 8);
            while ((st = llm_hf_shapes_add(&s, p, have, len, &need, &why)) == LLM_ERANGE && need > have && need <= len) have = (size_t)need;
            CHECK_OK(st);
            CHECK_MSG(have < len - 100, "read %zu of %zu bytes", have, len); /* the header only */
            free(p);
        }
        if (variant == 3) t[n - 1].dtype = "F32";
        CHECK_EQ_U64(s.n_tensors, n);
        CHECK(s.n_files == 2 && s.config.n_layers == 2 && s.config.n_kv_heads == 2);
        if (variant == 3) {
            /* the last tensor in 1 B per element instead of 2 (a matrix) or 4 (a vector) */
            uint64_t e = (uint64_t)m.shape[n - 1][0] * (uint64_t)(m.n_dims[n - 1] == 1 ? 1 : m.shape[n - 1][1]);
            CHECK_EQ_U64(s.tensor_bytes, want_bytes - e * (m.n_dims[n - 1] == 1 ? 3 : 1));
            CHECK_MSG(strstr(s.not_run, "a dtype other than F32, F16 and BF16") != NULL, "%s", s.not_run);
            continue;
        }
        CHECK_EQ_U64(s.tensor_bytes, want_bytes);
        CHECK_EQ_U64(s.n_elements, want_elems);
        if (variant == 0) {
            CHECK_MSG(runs_here(&s) && strcmp(s.arch, "llama") == 0, "'%s' %s", s.not_run, s.arch);
            CHECK_EQ_U64(llm_count_params(&s.config).total, want_elems);
        }
        if (variant == 1) CHECK_MSG(strstr(s.not_run, "model_type is not run") && strcmp(s.arch, "mystery") == 0, "%s", s.not_run);
        if (variant == 2) CHECK_MSG(strstr(s.not_run, "mlp_bias") != NULL, "%s", s.not_run);
    }
    /* a header length past the file is the reader's error, not a request for more */
    {
        unsigned char h[16] = {200, 0, 0, 0, 0, 0, 0, 0, '{'};
        uint64_t need = 1;
        CHECK(llm_hf_shapes_add(&s, h, sizeof h, sizeof h, &need, &why) == LLM_EFORMAT && need == 0);
        CHECK(llm_hf_shapes_add(&s, h, sizeof h, 1000, &need, &why) == LLM_ERANGE && need == 208);
    }
    stw_model_free(&m);
}

static llm_plan plan13b(int64_t batch) {
    llm_plan p = llm_plan_default();
    p.model = llm_preset("llama-2-13b");
    p.gpu = llm_gpu_preset("a100-80gb");
    p.batch = batch;
    p.seq_len = 4096;
    return p;
}

int main(void) {
    const llm_config *l7 = llm_preset("llama-2-7b"), *l13 = llm_preset("llama-2-13b"), *gpt2 = llm_preset("gpt2");
    const llm_gpu *a100 = llm_gpu_preset("a100-80gb");
    llm_plan p;
    llm_plan_result r;
    const char *why;
    double f;
    int i;

    /* ---- FLOPs ------------------------------------------------------------------------ */
    /* Llama 2 7B on 2T tokens: 6 N D = 7.77e22 with N = 6,476,005,376, the non-embedding
       count (the full 6.74e9 would give 8.09e22: not the quoted figure). */
    f = llm_train_flops(l7, 2e12);
    CHECK_NEAR(f, 6.0 * 6476005376.0 * 2e12, 1e9);
    CHECK_NEAR(f / 1e22, 7.77, 0.005);
    /* GPU-hours on A100s at 312 TFLOPS dense bf16 and MFU 30 / 37.6 / 40 %; rounded to the
       hour they are the quoted 230,627 / 184,011 / 172,970 (Meta reported 184,320). */
    CHECK_NEAR(floor(llm_gpu_hours(f, 312e12, 0.30) + 0.5), 230627, 0);
    CHECK_NEAR(floor(llm_gpu_hours(f, 312e12, 0.376) + 0.5), 184011, 0);
    CHECK_NEAR(floor(llm_gpu_hours(f, 312e12, 0.40) + 0.5), 172970, 0);
    CHECK_NEAR(llm_gpu_hours(f, a100->bf16_tflops * 1e12, 0.40), llm_gpu_hours(f, 312e12, 0.40), 1e-6);
    /* 70B on 15T tokens, 1,024 H100s at 989 TFLOPS, 50 % MFU: about 144 days. The figure
       uses the nominal N = 70e9. With the exact counts: Llama 3 70B's non-embedding
       68.45e9 gives 140.8 days and its 70.55e9 total 145.1 days. */
    CHECK_NEAR(llm_train_seconds(6.0 * 70e9 * 15e12, 1024, 989e12, 0.5) / 86400.0, 144.0, 0.05);
    CHECK_NEAR(llm_train_seconds(llm_train_flops(llm_preset("llama-3-70b"), 15e12), 1024, 989e12, 0.5) / 86400.0, 140.8,
               0.05);
    CHECK_NEAR(llm_train_seconds(6.0 * 70553706496.0 * 15e12, 1024, 989e12, 0.5) / 86400.0, 145.1, 0.05);
    /* MFU is the inverse of the time */
    CHECK_NEAR(llm_mfu(f, llm_train_seconds(f, 2048, 312e12, 0.376), 2048, 312e12), 0.376, 1e-12);
    CHECK(llm_train_seconds(f, 0, 312e12, 0.4) == 0 && llm_gpu_hours(f, 312e12, -1) == 0 && llm_mfu(f, 0, 1, 1) == 0);
    /* attention over the rest of training, T / (6 d): 0.22 for GPT-2 small at T = 1024 */
    CHECK_NEAR(llm_attention_ratio(gpt2, 1024), 1024.0 / (6 * 768), 1e-12);
    CHECK_NEAR(llm_attention_ratio(gpt2, 1024), 0.22, 0.005);
    {
        /* d = 4096 in a GPT-style block (N = 12 L d^2): 0.17 / 1.33 / 5.33 at T = 4K / 32K / 128K */
        llm_config g = *gpt2;
        g.d_model = 4096; g.head_dim = 128; g.n_heads = 32; g.n_kv_heads = 32; g.d_ff = 4 * 4096; g.n_layers = 32;
        CHECK_NEAR(llm_attention_ratio(&g, 4096), 0.17, 0.005);
        CHECK_NEAR(llm_attention_ratio(&g, 32768), 1.33, 0.005);
        CHECK_NEAR(llm_attention_ratio(&g, 131072), 5.33, 0.005);
        CHECK_NEAR(llm_attention_ratio(&g, 131072), 131072.0 / (6 * 4096), 1e-12);
        /* Llama 2 7B's SwiGLU FFN makes N = 12.06 L d^2: 0.166 instead of 0.167 */
        CHECK_NEAR(llm_attention_ratio(l7, 4096), 4096.0 / (6 * 4096) * 12.0 / 12.0625, 1e-12);
    }
    {
        /* per-token FLOPs: 2N, 2Vd, 4 L T d (half with causal tile skipping), 6N, PaLM */
        llm_flops a = llm_count_flops(l7, 4096, 0), c = llm_count_flops(l7, 4096, 1);
        CHECK_NEAR(a.matmul, 2.0 * 6476005376.0, 0);
        CHECK_NEAR(a.lm_head, 2.0 * 32000 * 4096, 0);
        CHECK_NEAR(a.attention, 4.0 * 32 * 4096 * 4096, 0);
        CHECK_NEAR(c.attention, a.attention / 2, 0);
        CHECK_NEAR(a.forward, a.matmul + a.lm_head + a.attention, 0);
        CHECK_NEAR(a.train, 3 * a.forward, 0);
        CHECK_NEAR(a.train_6n, 6.0 * 6476005376.0, 0);
        CHECK_NEAR(a.train_palm, a.train_6n + 12.0 * 32 * 4096 * 4096, 0);
        /* MoE: 6N counts only the 2 experts a Mixtral token uses */
        CHECK_NEAR(llm_count_flops(llm_preset("mixtral-8x7b"), 0, 1).train_6n,
                   6.0 * (double)llm_count_params(llm_preset("mixtral-8x7b")).active_non_embedding, 0);
        CHECK(llm_count_flops(NULL, 10, 0).forward == 0);
        /* Mistral's 4096-token sliding window caps the keys per token */
        {
            const llm_config *m = llm_preset("mistral-7b");
            double W = 4096, T = 32768;
            CHECK_NEAR(llm_count_flops(m, 32768, 0).attention, 4.0 * 32 * 4096 * W, 0);
            CHECK_NEAR(llm_count_flops(m, 32768, 1).attention, 4.0 * 32 * 4096 * (T * W - W * (W - 1) / 2) / T, 1e-3);
            CHECK_NEAR(llm_count_flops(m, 4096, 1).attention, 4.0 * 32 * 4096 * 2048, 0);
        }
        /* Gemma 2's pattern: a window on every other layer, the others see everything */
        {
            llm_config g = *llm_preset("mistral-7b");
            double W = 4096, T = 32768;
            g.window_pattern = 2; /* 16 windowed layers, 16 global */
            CHECK_NEAR(llm_count_flops(&g, 32768, 0).attention, 4.0 * 4096 * (16 * W + 16 * T), 0);
            CHECK_NEAR(llm_count_flops(&g, 32768, 1).attention, 4.0 * 4096 * (16 * (T * W - W * (W - 1) / 2) / T + 16 * T / 2), 1e-3);
        }
        /* patterns that do not divide the layers: every third of 32 global (10), or every
           33rd (none of 32); the windowed layers counted by llm_config_layer_window */
        {
            llm_config g = *llm_preset("mistral-7b");
            int pat, l;
            for (pat = 0; pat <= 33; pat += 3) {
                double W = 4096, T = 32768, n_win = 0;
                g.window_pattern = pat;
                for (l = 0; l < g.n_layers; l++) n_win += llm_config_layer_window(&g, l) > 0;
                CHECK_NEAR(llm_count_flops(&g, 32768, 0).attention, 4.0 * 4096 * (n_win * W + (32 - n_win) * T), 0);
            }
            /* 2^28 layers (a valid config: 5.9e16 parameters) are one product, not a loop
               over the layers (fuzz_config's timeout: 11 s under its sanitizers) */
            g.n_layers = 1 << 28, g.window_pattern = 7;
            {
                const double L = 268435456.0, n_win = L - 38347922.0; /* floor(2^28 / 7) global */
                CHECK(fabs(llm_count_flops(&g, 32768, 0).attention / (4.0 * 4096 * (n_win * 4096 + (L - n_win) * 32768)) - 1) < 1e-12);
            }
        }
    }
    /* Chinchilla: 20 tokens per parameter; C = 6ND = 120 N^2 */
    {
        double n, d;
        CHECK_NEAR(llm_chinchilla_tokens(70e9), 1.4e12, 1);
        llm_chinchilla_optimal(6.0 * 70e9 * 1.4e12, &n, &d);
        CHECK_NEAR(n / 70e9, 1.0, 1e-12);
        CHECK_NEAR(d / 1.4e12, 1.0, 1e-12);
    }
    /* pipeline bubble (P - 1) / (M + P - 1) */
    CHECK_NEAR(llm_pipeline_bubble(4, 1), 0.75, 1e-15);
    CHECK_NEAR(llm_pipeline_bubble(8, 32), 7.0 / 39.0, 1e-15);
    CHECK_NEAR(llm_pipeline_bubble(1, 8), 0.0, 0);
    CHECK(llm_pipeline_bubble(0, 8) == 0);
    /* the seeds' worked figure: P = 4 stages idle 3/7 of the time with M = 4 micro-batches,
       3/19 with M = 16 (exact fractions: the tolerance is a double's rounding) */
    CHECK_NEAR(llm_pipeline_bubble(4, 4), 3.0 / 7.0, 1e-15);
    CHECK_NEAR(llm_pipeline_bubble(4, 16), 3.0 / 19.0, 1e-15);

    /* ---- memory ----------------------------------------------------------------------- */
    CHECK_NEAR(llm_weight_bytes(l7, LLM_F16), 2.0 * 6738415616.0, 0);
    CHECK_NEAR(llm_weight_bytes(l7, LLM_Q4_32), 4.5 / 8 * 6738415616.0, 0);
    CHECK_NEAR(llm_weight_bytes(l7, LLM_F32), 4.0 * 6738415616.0, 0);
    /* KV cache, 2 L H_kv head_dim bytes per token: Llama 2 7B 524,288 B, 2 GiB at 4096;
       Llama 3 8B (GQA, 8 KV heads) 131,072 B, 1 GiB at 8192 */
    CHECK_NEAR(llm_kv_cache_bytes(l7, 1, 1, LLM_F16), 524288, 0);
    CHECK_NEAR(llm_kv_cache_bytes(l7, 4096, 1, LLM_F16), 2 * GIB, 0);
    CHECK_NEAR(llm_kv_cache_bytes(llm_preset("llama-3-8b"), 1, 1, LLM_F16), 131072, 0);
    CHECK_NEAR(llm_kv_cache_bytes(llm_preset("llama-3-8b"), 8192, 1, LLM_F16), 1 * GIB, 0);
    /* the planner's KV line is the real cache's size, for every preset and dtype */
    for (i = 0; llm_preset_at(i); i++) {
        const llm_config *c = llm_preset_at(i);
        double per_token = 2.0 * c->n_layers * c->n_kv_heads * llm_config_head_dim(c);
        CHECK_NEAR((double)llm_kv_cache_bytes(c, 1000, 3, LLM_F16), per_token * 2 * 3000, 0);
        CHECK_NEAR((double)llm_kv_cache_bytes(c, 1000, 3, LLM_INT8), per_token * 3000 + per_token / llm_config_head_dim(c) * 4 * 3000, 0);
        p = llm_plan_default();
        p.model = c;
        p.gpu = a100;
        p.batch = 3;
        p.seq_len = 1000;
        p.kv = LLM_INT8;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK_NEAR(r.line[1].bytes, (double)llm_kv_cache_bytes(c, 1000, 3, LLM_INT8), 0);
    }
    /* int8 KV: one byte per element plus an fp32 scale per (layer, head, position) row */
    CHECK_NEAR(llm_kv_cache_bytes(l7, 1, 1, LLM_INT8), 524288 / 2 + 2 * 32 * 32 * 4, 0);
    /* training state, the ZeRO paper's 7.5B model on N_d = 64 GPUs: 120 / 31.4 / 16.6 / 1.9 GB */
    CHECK_NEAR(llm_train_state_bytes(7.5e9, 0, 64).total / GB, 120.0, 1e-9);
    CHECK_NEAR(llm_train_state_bytes(7.5e9, 1, 64).total / GB, 31.4, 0.05);
    CHECK_NEAR(llm_train_state_bytes(7.5e9, 2, 64).total / GB, 16.6, 0.05);
    CHECK_NEAR(llm_train_state_bytes(7.5e9, 3, 64).total / GB, 1.9, 0.05);
    CHECK_NEAR(llm_train_state_bytes(7.5e9, 1, 64).total, 4 * 7.5e9 + 12 * 7.5e9 / 64, 0);
    CHECK(llm_train_state_bytes(7.5e9, 4, 64).total == 0 && llm_train_state_bytes(-1, 0, 1).total == 0);
    /* activations, Korthikanti et al., Llama 2 7B, one 4096-token sequence: about 97 GiB,
       of which exactly 80 GiB are the T x T matrices (5 a s^2 b L bytes), and about 17 GiB
       with flash attention (34 s b d L). */
    {
        double full = llm_activation_bytes(l7, 4096, 1, 0, 1), fl = llm_activation_bytes(l7, 4096, 1, LLM_ACT_FLASH, 1);
        CHECK_NEAR(full / GIB, 97.0, 0.05);
        CHECK_NEAR((full - fl) / GIB, 80.0, 0);
        CHECK_NEAR(fl / GIB, 17.0, 0.05);
        CHECK_NEAR(llm_activation_bytes(l7, 4096, 1, LLM_ACT_RECOMPUTE, 1), 2.0 * 4096 * 4096 * 32, 0);
        /* tensor parallel over 8: 10 + 24/8 + 5as/(8d) */
        CHECK_NEAR(llm_activation_bytes(l7, 4096, 1, 0, 8), 4096.0 * 4096 * 32 * (10 + 3 + 5.0 * 32 / 8), 0);
        CHECK_NEAR(llm_activation_bytes(l7, 4096, 2, 0, 1), 2 * full, 0);
        CHECK(llm_activation_bytes(l7, 0, 1, 0, 1) == 0);
    }

    /* ---- GPUs ------------------------------------------------------------------------- */
    {
        static const char *const names[] = {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200",
                                            "l4", "l40s", "rtx-3090", "rtx-4090", "mi300x"};
        const llm_gpu *g;
        for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) CHECK_MSG(llm_gpu_preset(names[i]), "%s", names[i]);
        for (i = 0; (g = llm_gpu_preset_at(i)) != NULL; i++) {
            CHECK(llm_gpu_preset(g->name) == g);
            CHECK(g->mem_bytes > 1e10 && g->bf16_tflops > 10 && g->bandwidth_gbs > 100);
            /* the driver total is within 6.5 % (ECC on GDDR cards) of the marketing number read as GiB */
            CHECK_MSG(fabs(g->mem_bytes / (g->mem_marketed_gb * GIB) - 1.0) < 0.065, "%s", g->name);
        }
        CHECK(llm_gpu_preset("A100-80GB") == a100 && llm_gpu_preset("a100") == NULL && llm_gpu_preset(NULL) == NULL);
        CHECK_NEAR(a100->mem_bytes, 80 * GIB, 0);   /* "80 GB" is 80 GiB = 85.9 GB */
        CHECK_NEAR(a100->bf16_tflops, 312, 0);
        CHECK_NEAR(llm_gpu_preset("h100-sxm")->bf16_tflops, 989.4, 0);
    }

    /* ---- the planner: Llama 2 13B on one A100 80GB, 4096 tokens per sequence ---------
       The theory: 26 GB of fp16 weights (13e9 x 2) + the KV cache at 800 KiB per token
       (2 x 40 layers x 5120 x 2 B = 819,200 B) + a 2 GB allowance for the CUDA context
       and activations. It writes 800 KiB x 32,768 tokens as 25.6 "GB": 25,600 MiB divided
       by 1000, a GB/GiB mix. Batch 8: 26 + 25.6 + 2 = 53.6; batch 16: 26 + 51.2 + 2 = 79.2,
       "too tight" on 80 GB. Exactly (GB = 1e9 B): 26.03 + 26.84 + 2 = 54.9 GB at batch 8,
       26.03 + 53.69 + 2 = 81.7 GB at batch 16. The card's 80 "GB" are 80 GiB = 85.9 GB, so
       batch 16 is 95 % full: tight, as the theory says, though for a different reason
       than its 79.2 of 80. */
    {
        p = plan13b(8);
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK(r.n_lines == 3);
        /* the theory's 53.6 from the planner's own lines in the theory's units: weights
           in whole GB (26.03 -> 26), the KV cache in MiB / 1000 (25.6), the 2 GB */
        CHECK_NEAR(floor(r.line[0].bytes / GB), 26, 0);
        CHECK_NEAR(r.line[1].bytes / 1048576 / 1000, 25.6, 1e-9);
        CHECK_NEAR(floor(r.line[0].bytes / GB) + r.line[1].bytes / 1048576 / 1000 + r.line[2].bytes / GB, 53.6, 1e-9);
        CHECK_NEAR(r.line[0].bytes, 2.0 * 13015864320.0, 0);
        CHECK_NEAR(r.line[1].bytes, 819200.0 * 4096 * 8, 0);
        CHECK_NEAR(r.line[2].bytes, 2e9, 0);
        CHECK_NEAR(r.total_bytes, 54875274240.0, 0);
        CHECK_NEAR(floor(r.total_bytes / 1e8 + 0.5) / 10, 54.9, 1e-9);
        CHECK_NEAR(r.capacity_bytes, 80 * GIB, 0);
        CHECK_NEAR(r.headroom_bytes, 80 * GIB - 54875274240.0, 0);
        CHECK(r.verdict == LLM_FITS && r.n_advice == 0);
        CHECK(strcmp(llm_verdict_str(r.verdict), "fits") == 0);
        /* decode: weights + 8 KV caches read once per step at 2,039 GB/s: >= 26 ms */
        CHECK_NEAR(r.decode_seconds, (2.0 * 13015864320.0 + 819200.0 * 4096 * 8) / 2039e9, 1e-12);
        CHECK_NEAR(r.prefill_seconds, llm_count_flops(l13, 4096, 1).forward * 4096 * 8 / 312e12, 1e-9);
        p = plan13b(16);
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        /* and the theory's 79.2 at batch 16 (26 + 51.2 + 2) */
        CHECK_NEAR(floor(r.line[0].bytes / GB) + r.line[1].bytes / 1048576 / 1000 + r.line[2].bytes / GB, 79.2, 1e-9);
        CHECK_NEAR(r.total_bytes / GB, 81.7, 0.05);
        CHECK_NEAR(r.used, 0.951, 0.001);
        CHECK(r.verdict == LLM_TIGHT);
        CHECK(r.n_advice > 0);
        /* advice when tight: every item lowers the total, and batch 15 / int8 KV are among them */
        {
            int saw_batch = 0, saw_kv = 0;
            for (i = 0; i < r.n_advice; i++) {
                CHECK(r.advice[i].total_bytes < r.total_bytes);
                if (r.advice[i].kind == LLM_ADVICE_BATCH) saw_batch = (int)r.advice[i].value;
                if (r.advice[i].kind == LLM_ADVICE_KV_DTYPE) saw_kv = r.advice[i].verdict == LLM_FITS;
            }
            /* 0.9 x 80 GiB - 26.03 - 2 GB leaves room for 14 sequences of 3.36 GB */
            CHECK(saw_batch == 14);
            CHECK(saw_kv);
        }
        /* the 2 GB allowance is a plan field: without it batch 16 is 93 % */
        p.overhead_bytes = 0;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK_NEAR(r.total_bytes, 2.0 * 13015864320.0 + 819200.0 * 4096 * 16, 0);
    }
    /* Llama 2 70B on one A100: does not fit; 4-bit weights, GQA or 4 GPUs do */
    {
        int tp = 0, q4 = -1;
        p = llm_plan_default();
        p.model = llm_preset("llama-2-70b");
        p.gpu = a100;
        p.seq_len = 4096;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK(r.verdict == LLM_DOES_NOT_FIT && r.headroom_bytes < 0);
        for (i = 0; i < r.n_advice; i++) {
            if (r.advice[i].kind == LLM_ADVICE_TENSOR_PARALLEL) tp = (int)r.advice[i].value;
            if (r.advice[i].kind == LLM_ADVICE_WEIGHTS_DTYPE && r.advice[i].value == LLM_Q4_32) q4 = (int)r.advice[i].verdict;
        }
        CHECK(tp == 2); /* 138 GB / 2 + 1.3 GB / 2 + 2 GB = 71.7 GB: fits 80 GiB at 78 % */
        CHECK(q4 == LLM_FITS);
        /* multi-GPU inference divides weights and KV */
        p.n_gpus = 2;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK_NEAR(r.line[0].bytes, 68976648192.0, 0);
        CHECK_NEAR(r.line[1].bytes, 2.0 * 80 * 8 * 128 * 2 * 4096 / 2, 0);
        CHECK(r.verdict == LLM_FITS);
        /* 16 GPUs but only 8 KV heads: each GPU keeps a whole KV head (replicated) */
        p.n_gpus = 16;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK_NEAR(r.line[0].bytes, 137953296384.0 / 16, 0);
        CHECK_NEAR(r.line[1].bytes, 2.0 * 80 * 8 * 128 * 2 * 4096 / 8, 0);
    }
    /* training Llama 2 7B on 8 A100s: too big without ZeRO; ZeRO-3 + flash fit */
    {
        int saw_zero3 = 0;
        p = llm_plan_default();
        p.model = l7;
        p.gpu = a100;
        p.train = 1;
        p.n_gpus = 8;
        p.seq_len = 4096;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK(r.n_lines == 5 && r.verdict == LLM_DOES_NOT_FIT);
        CHECK_NEAR(r.line[0].bytes + r.line[1].bytes + r.line[2].bytes, 16.0 * 6738415616.0, 1);
        CHECK_NEAR(r.line[3].bytes, llm_activation_bytes(l7, 4096, 1, 0, 1), 0);
        for (i = 0; i < r.n_advice; i++)
            if (r.advice[i].kind == LLM_ADVICE_ZERO && r.advice[i].value == 3) saw_zero3 = 1;
        CHECK(saw_zero3);
        p.zero_stage = 3;
        p.flash = 1;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK_NEAR(r.total_bytes, 16.0 * 6738415616.0 / 8 + llm_activation_bytes(l7, 4096, 1, LLM_ACT_FLASH, 1) + 2e9, 1);
        CHECK(r.verdict == LLM_FITS);
    }
    /* bad plans are status codes with a reason */
    {
        struct { int what; const char *want; } bad[] = {{0, "GPU"}, {1, "batch"}, {2, "ZeRO"}, {3, "KV"}, {4, "n_gpus"},
                                                          {5, "seq_len"}, {6, "d_model"}, {7, "weight dtype"}};
        for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
            llm_config broken = *l7;
            p = plan13b(1);
            switch (bad[i].what) {
            case 0: p.gpu = NULL; break;
            case 1: p.batch = -1; break;
            case 2: p.zero_stage = 4; break;
            case 3: p.kv = LLM_INT4; break;
            case 4: p.n_gpus = -2; break;
            case 5: p.seq_len = -5; break;
            case 6: broken.d_model = 0; p.model = &broken; break;
            default: p.weights = (llm_dtype)99; break;
            }
            why = NULL;
            CHECK(llm_plan_evaluate(&p, &r, &why) == LLM_EINVAL);
            CHECK_MSG(why && strstr(why, bad[i].want), "case %d: %s", i, why ? why : "(null)");
        }
        CHECK(llm_plan_evaluate(NULL, &r, &why) == LLM_EINVAL);
        /* a zeroed plan is valid: batch 1, one GPU, the model's context, fp32, no overhead */
        memset(&p, 0, sizeof p);
        p.model = l7;
        p.gpu = a100;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK(r.seq_len == 4096 && r.n_lines == 3);
        CHECK_NEAR(r.total_bytes, 4.0 * 6738415616.0 + 2 * 524288.0 * 4096, 0); /* f32 KV: twice f16 */
        p = plan13b(8);
        CHECK_OK(llm_plan_evaluate(&p, NULL, NULL)); /* result and reason are optional */
    }

    /* ---- 64-bit safety: the largest preset, huge clusters, 1M-token contexts ----------- */
    {
        const llm_config *big = llm_preset("llama-3.1-405b");
        llm_params q = llm_count_params(big);
        double kv = llm_kv_cache_bytes(big, 1 << 20, 4096, LLM_F32);
        /* 405B x 16 B: 6.5 TB of training state, split over 16,384 GPUs */
        CHECK_NEAR(llm_train_state_bytes((double)q.total, 0, 16384).total, 16.0 * 405853388800.0, 0);
        CHECK_NEAR(llm_train_state_bytes((double)q.total, 3, 16384).total, 16.0 * 405853388800.0 / 16384, 1e-3);
        /* a 1M-token context, 4096 sequences, fp32: 2 x 126 x 8 x 128 x 4 B x 2^32 = 4.4e15 B */
        CHECK_NEAR(kv, 2.0 * 126 * 8 * 128 * 4 * 4294967296.0, 0);
        CHECK(kv > 4.4e15 && kv < 4.5e15);
        CHECK_NEAR(llm_train_flops(big, 15.6e12) / 1e25, 6.0 * 401646551040.0 * 15.6e12 / 1e25, 1e-12);
        /* the planner at the limits: finite, and it says no */
        p = llm_plan_default();
        p.model = big;
        p.gpu = llm_gpu_preset("b200");
        p.seq_len = 1 << 20;
        p.batch = 2147483647LL;
        p.n_gpus = 2147483647;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK(r.total_bytes > 0 && r.total_bytes < 1e30 && r.decode_seconds > 0);
        p.train = 1;
        p.zero_stage = 3;
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK(r.verdict == LLM_DOES_NOT_FIT && r.total_bytes < 1e30);
        /* past 2^64 bytes of KV cache (2^31 sequences of 2^31 tokens) the planner still
           counts, in double, where llm_kv_cache_bytes has to give up */
        p.train = 0;
        p.n_gpus = 1;
        p.seq_len = 2147483647LL;
        CHECK(llm_kv_cache_bytes(big, p.seq_len, p.batch, LLM_F16) == 0);
        CHECK_OK(llm_plan_evaluate(&p, &r, &why));
        CHECK_NEAR(r.line[1].bytes / (2.0 * 126 * 8 * 128 * 2 * 2147483647.0 * 2147483647.0), 1.0, 1e-12);
    }

    /* ---- llm-plan's argument parser ------------------------------------------------- */
    {
        static llm_plan_args a; /* large: keep it off the stack */
        char err[256];
        char *ok[] = {"llm-plan", "--model", "llama-2-13b", "--gpu=a100-80gb", "--batch", "16", "--seq", "4096"};
        char *train[] = {"llm-plan", "--model", "llama-2-7b", "--gpus", "8", "--zero=3", "--flash", "--train"};
        char *cfg[] = {"llm-plan", "--config", "d_model=2048,n_layers=22,n_heads=32,n_kv_heads=4,d_ff=5632,vocab=32000,max_seq_len=2048"};
        char *over[] = {"llm-plan", "--model", "llama-2-7b", "--config", "n_kv_heads=8,ffn=gelu,bias=all,norm=layer,norm_bias=1"};
        struct { char *argv[4]; const char *want; } bad[] = {
            {{"llm-plan", "--model", "llama2-7b", NULL}, "closest: llama-2-7b"},
            {{"llm-plan", "--model", "llama-2-7b", "--gpu=a100"}, "closest: a100-40gb, a100-80gb"},
            {{"llm-plan", "--model", "llama-2-7b", "--batch=-3"}, "--batch: '-3' is not a whole number"},
            {{"llm-plan", "--model", "llama-2-7b", "--seq=4k"}, "--seq: '4k'"},
            {{"llm-plan", "--model", "llama-2-7b", "--gpus=99999999999999999999"}, "--gpus"},
            {{"llm-plan", "--model", "llama-2-7b", "--seq"}, "--seq needs a value"},
            {{"llm-plan", "--model", "llama-2-7b", "--kv=fp8"}, "unknown dtype 'fp8'"},
            {{"llm-plan", "--model", "llama-2-7b", "--zero=4"}, "--zero"},
            {{"llm-plan", "--config", "d_model=64,n_layers", NULL}, "expected key=value"},
            {{"llm-plan", "--config", "d_model=64,wings=2", NULL}, "unknown key 'wings'"},
            {{"llm-plan", "--config", "ffn=relu", NULL}, "not one of swiglu gelu geglu"},
            {{"llm-plan", "--config", "d_model=64", NULL}, "n_layers must be positive"},
            {{"llm-plan", "--batch", "8", NULL}, "no model"},
            {{"llm-plan", "--fast", NULL, NULL}, "unknown option '--fast'"},
        };
        CHECK(llm_plan_parse_args(&a, 8, ok, err, sizeof err));
        CHECK(a.plan.model == &a.config && strcmp(a.config.name, "llama-2-13b") == 0 && a.plan.batch == 16);
        CHECK(a.plan.gpu == a100 && a.plan.seq_len == 4096 && !a.plan.train && a.plan.weights == LLM_F16);
        CHECK_OK(llm_plan_evaluate(&a.plan, &r, &why));
        CHECK(r.verdict == LLM_TIGHT);
        CHECK(llm_plan_parse_args(&a, 8, train, err, sizeof err));
        CHECK(a.plan.train && a.plan.zero_stage == 3 && a.plan.flash && a.plan.n_gpus == 8);
        CHECK(llm_plan_parse_args(&a, 3, cfg, err, sizeof err));
        CHECK_EQ_U64(llm_count_params(a.plan.model).total, 1100048384ull); /* TinyLlama, described by hand */
        CHECK(llm_plan_parse_args(&a, 5, over, err, sizeof err));
        CHECK(a.config.n_kv_heads == 8 && a.config.ffn == LLM_FFN_GELU && strstr(a.config.name, "from llama-2-7b"));
        for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
            int argc = 0;
            while (argc < 4 && bad[i].argv[argc]) argc++;
            err[0] = 0;
            CHECK_MSG(!llm_plan_parse_args(&a, argc, bad[i].argv, err, sizeof err) && strstr(err, bad[i].want),
                      "case %d: got \"%s\", want \"%s\"", i, err, bad[i].want);
            CHECK(strchr(err, '\n') == NULL); /* one line */
        }
        /* A small deterministic fuzz: random argv from a pool of options, values and
           garbage. The parser must either succeed with a plan llm_plan_evaluate accepts,
           or fail with a one-line message; ASan/UBSan (make sanitize) watch for the rest. */
        {
            static char longarg[300];
            char *pool[] = {"--model", "llama-2-7b", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "--batch", "--seq",
                            "--weights", "--kv", "int8", "q4_32", "--train", "--zero", "--recompute", "--flash", "--json",
                            "--config", "d_model=64,n_layers=2,n_heads=4,n_kv_heads=2,d_ff=128,vocab=100,max_seq_len=64",
                            "n_kv_heads=0", "ffn=geglu,", ",", "=", "", "0", "1", "-1", "3", "4096", "2147483647",
                            "2147483648", "99999999999999999999", "1e400", "nan", "--overhead", "--list", "--batch=",
                            "--seq=8", "--config=", "a=b,,c=d", "--model=gpt2", longarg, "--help", "-m"};
            int npool = (int)(sizeof pool / sizeof pool[0]), iter, ok_count = 0;
            memset(longarg, 'x', sizeof longarg - 1);
            for (iter = 0; iter < 4000; iter++) {
                char *argv[9];
                int argc = 1 + (int)((test_randf() + 1) * 4), k, ok;
                argv[0] = "llm-plan";
                for (k = 1; k < argc; k++) argv[k] = pool[(int)((test_randf() + 1) * 0.5 * npool) % npool];
                if (iter % 2) argv[1] = "--model"; /* reach the deeper paths more often */
                if (iter % 4 == 1 && argc > 2) argv[2] = "llama-2-13b";
                err[0] = 0;
                ok = llm_plan_parse_args(&a, argc, argv, err, sizeof err);
                if (!ok) {
                    CHECK(err[0] != 0 && strchr(err, '\n') == NULL);
                } else if (!a.list && !a.help) {
                    ok_count++;
                    CHECK_MSG(llm_plan_evaluate(&a.plan, &r, &why) == LLM_OK, "iteration %d: %s", iter, why);
                    CHECK(r.total_bytes > 0 && r.total_bytes < 1e30);
                }
            }
            CHECK(ok_count > 50); /* the fuzz reached the planner */
        }
    }
    test_file_shapes();
    test_hf_shapes();
    return test_done();
}
