/* bench_decode.c: decode and prefill speed of the whole model beside the machine's read
   bandwidth. Decoding one token streams every weight once, so its roof is
   read bandwidth / bytes per token.

   Models: stories260K (../shared/models, when present) and a random model of llama2.c's
   110M shape (dim 768, hidden 2048, 12 layers, 12 heads, vocab 32000, seq 1024, shared
   classifier) built here in memory, fp32, int8 (groups of 64, llama2.c version-2
   layout) and fp32 repacked (LLM_F32X16, as llm-run runs fp32 with AVX-512), 1 and 2
   threads. Peers measured on this machine (issue 5): run.c 71 tok/s fp32
   110M (104 with 2 threads), runq.c 122 int8 (224), stories260K 23,000; llama.cpp prefill
   of 128 tokens 760 tok/s. Then B = 1, 2, 4, 8 conversations decoded together
   (llm_forward_batch): tokens/s in total and per conversation, and the share of the read
   roof (the weights once per step plus each conversation's KV rows). Then B = 1, 2, 4
   generators (llm_gen, greedy) stepped together by llm_gen_next_batch: the
   generation step an app calls, the same forward pass plus sampling and stop checks. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "roofs.h"

#define BENCH_SEED 0x243F6A8885A308D3ull

/* On a shared machine, CPU time of the pool's threads (roofs_cpu_seconds) / (wall time x
   threads) says how much of the cores the run really had. */
static double g_share; /* CPU share of the last best run */

static void fill(float *x, size_t n, float scale, uint64_t *s) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = scale * ((float)(llm_xorshift_u32(s) >> 8) / 8388608.0f - 1.0f);
}

/* A random 110M-shape model: fp32 arrays, optionally quantized to int8 groups. */
typedef struct big_model {
    llm_config c;
    llm_layer_weights layers[12];
    llm_weights w;
    void *mem[256];
    int n_mem;
} big_model;

static void *keep(big_model *m, size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "bench_decode: out of memory\n");
        exit(1);
    }
    m->mem[m->n_mem++] = p;
    return p;
}
/* kind: 0 fp32, 1 int8, 2 fp32 repacked */
static llm_weight mat(big_model *m, int rows, int cols, int kind, uint64_t *s) {
    llm_weight w;
    size_t n = (size_t)rows * cols;
    const int int8 = kind == 1;
    float *f = kind ? (float *)malloc(n * sizeof(float)) : (float *)keep(m, n * sizeof(float));
    memset(&w, 0, sizeof w);
    if (!f) exit(1);
    fill(f, n, 1.0f / (float)sqrt((double)cols), s);
    if (!int8) {
        w.type = LLM_F32;
        w.data = f;
        if (kind == 2) {
            llm_weight r;
            if (llm_weight_repack(&r, keep(m, n * sizeof(float)), n * sizeof(float), &w, cols, rows) != LLM_OK) exit(1);
            free(f);
            return r;
        }
        return w;
    }
    /* llama2.c version 2: int8 values, one fp32 scale per 64 */
    w.type = LLM_INT8;
    w.group_size = 64;
    w.data = keep(m, n);
    w.scale = (float *)keep(m, n / 64 * sizeof(float));
    if (llm_quantize_int8((int8_t *)w.data, (float *)w.scale, f, (int64_t)n, 64) != LLM_OK) exit(1);
    free(f);
    return w;
}

static void big_make(big_model *m, int kind) {
    uint64_t s = BENCH_SEED;
    int l, d = 768, ff = 2048;
    float *norms;
    memset(m, 0, sizeof *m);
    m->c.name = "llama2.c 110M shape";
    m->c.d_model = d, m->c.d_ff = ff, m->c.n_layers = 12, m->c.n_heads = 12, m->c.n_kv_heads = 12;
    m->c.vocab = 32000, m->c.max_seq_len = 1024, m->c.tied_embeddings = 1, m->c.rope_theta = 10000.0f;
    norms = (float *)keep(m, (size_t)(2 * 12 + 1) * d * sizeof(float));
    for (l = 0; l < (2 * 12 + 1) * d; l++) norms[l] = 1.0f;
    m->w.tok_embed = mat(m, 32000, d, kind, &s);
    m->w.lm_head = m->w.tok_embed;
    m->w.out_norm = norms + 24 * d;
    m->w.layers = m->layers;
    for (l = 0; l < 12; l++) {
        llm_layer_weights *y = &m->layers[l];
        y->attn_norm = norms + (2 * l) * d, y->ffn_norm = norms + (2 * l + 1) * d;
        y->wq = mat(m, d, d, kind, &s), y->wk = mat(m, d, d, kind, &s), y->wv = mat(m, d, d, kind, &s);
        y->wo = mat(m, d, d, kind, &s);
        y->w1 = mat(m, ff, d, kind, &s), y->w2 = mat(m, d, ff, kind, &s), y->w3 = mat(m, ff, d, kind, &s);
    }
}
static void big_free(big_model *m) {
    while (m->n_mem > 0) free(m->mem[--m->n_mem]);
}

/* Decode n tokens at positions p0..p0+n-1 (after a prefill of p0 tokens): tok/s. Token i
   runs with weights ws[i % nw]: copies of one model, so that a model smaller than the
   last-level cache is still read from memory (this VM reports a 260 MiB L3, which holds
   the 121 MB int8 110M model: 2 threads then "read" 104-108 % of the DRAM roof). */
static double decode_rate(const llm_config *c, const llm_weights *const *ws, int nw, int p0, int n, llm_threads *th,
                          int reps) {
    const llm_weights *w = ws[0];
    llm_state s;
    float *logits = (float *)malloc((size_t)c->vocab * sizeof(float));
    int *toks = (int *)malloc((size_t)(p0 + n) * sizeof(int)), i, r;
    double best = 0;
    for (i = 0; i < p0 + n; i++) toks[i] = (i * 7919 + 1) % c->vocab;
    if (llm_state_create(&s, c, p0 + n, p0 > 0 ? p0 : 1, LLM_F32) != LLM_OK) exit(1);
    for (r = 0; r < reps; r++) {
        double t0, c0;
        if (p0 > 0) llm_forward(&s, w, toks, p0, 0, logits, 0, th);
        c0 = roofs_cpu_seconds(th), t0 = roofs_now();
        for (i = 0; i < n; i++)
            if (llm_forward(&s, ws[i % nw], &toks[p0 + i], 1, p0 + i, logits, 0, th) != LLM_OK) exit(1);
        t0 = roofs_now() - t0, c0 = roofs_cpu_seconds(th) - c0;
        if (n / t0 > best) best = n / t0, g_share = c0 / (t0 * llm_threads_count(th));
    }
    llm_state_free(&s);
    free(logits), free(toks);
    return best;
}

static double prefill_rate(const llm_config *c, const llm_weights *w, int n, llm_threads *th, int reps) {
    llm_state s;
    float *logits = (float *)malloc((size_t)c->vocab * sizeof(float));
    int *toks = (int *)malloc((size_t)n * sizeof(int)), i, r;
    double best = 0;
    for (i = 0; i < n; i++) toks[i] = (i * 7919 + 1) % c->vocab;
    if (llm_state_create(&s, c, n, n, LLM_F32) != LLM_OK) exit(1);
    for (r = 0; r < reps; r++) {
        double c0 = roofs_cpu_seconds(th), t0 = roofs_now();
        if (llm_forward(&s, w, toks, n, 0, logits, 0, th) != LLM_OK) exit(1);
        t0 = roofs_now() - t0, c0 = roofs_cpu_seconds(th) - c0;
        if (n / t0 > best) best = n / t0, g_share = c0 / (t0 * llm_threads_count(th));
    }
    llm_state_free(&s);
    free(logits), free(toks);
    return best;
}

/* The peers of issue 5 were measured on this machine when its read roof was about 40 GB/s
   (the issue's own figure) and its FMA roof about 226 GFLOP/s (our bench_kernels that
   week). A shared cloud machine does not keep those roofs from day to day, so each target
   is restated against the roofs measured in this run:
   - bandwidth-bound rows (110M decode) as a share of the read roof: fp32 >= 85%; int8 >=
     244 tok/s x bytes/token / 40 GB/s (2x runq.c's 122, which also beats llama.cpp's
     Q8_0 at 217; both stream 8.5 bits per weight as we do);
   - cache-resident rows (stories260K decode, prefill) scaled by the FMA roof: stories260K
     >= 1.5 x 23,000 tok/s (run.c), prefill of 128 >= 760 tok/s (llama.cpp), x FMA / 226;
   - 2 threads: >= 1.3x (fp32) / 1.7x (int8) one thread, or, where the 2-thread read roof
     leaves no such room, the 1-thread share of the 2-thread roof. */
#define PEER_READ_GBS 40.0
#define PEER_FMA_GFLOPS 226.0

/* B conversations decoded together with llm_forward_batch, sequence i at position
   p0 + 4 i (different lengths, as conversations are), n steps: steps/s. Bytes of one
   step: the weights once plus every sequence's own KV rows. */
static double batch_rate(const llm_config *c, const llm_weights *const *ws, int nw, int B, int p0, int n,
                         llm_threads *th, int reps, double *bytes_step) {
    enum { MAXB = 8 };
    llm_state s[MAXB];
    llm_state *seqs[MAXB];
    int pos[MAXB], toks[MAXB], i, j, r, *prompt = (int *)malloc((size_t)(p0 + 4 * MAXB) * sizeof(int));
    float *logits = (float *)malloc((size_t)B * c->vocab * sizeof(float));
    size_t sb = llm_forward_batch_bytes(c, B);
    void *scratch = malloc(sb);
    double best = 0, row = llm_decode_bytes(c, ws[0], LLM_F32, 1) - llm_decode_bytes(c, ws[0], LLM_F32, 0);
    double weights = llm_decode_bytes(c, ws[0], LLM_F32, 0) - row;
    if (!prompt || !logits || !scratch || sb == 0) exit(1);
    for (i = 0; i < p0 + 4 * MAXB; i++) prompt[i] = (i * 7919 + 1) % c->vocab;
    *bytes_step = weights;
    for (i = 0; i < B; i++) {
        if (llm_state_create(&s[i], c, p0 + 4 * i + n, p0 + 4 * i, LLM_F32) != LLM_OK) exit(1);
        seqs[i] = &s[i];
        *bytes_step += row * (p0 + 4 * i + 1 + n / 2); /* K and V rows read, at the middle step */
    }
    for (r = 0; r < reps; r++) {
        double t0, c0;
        for (i = 0; i < B; i++) {
            if (llm_forward(&s[i], ws[0], prompt, p0 + 4 * i, 0, logits, 0, th) != LLM_OK) exit(1);
            pos[i] = p0 + 4 * i;
            toks[i] = prompt[i];
        }
        c0 = roofs_cpu_seconds(th), t0 = roofs_now();
        for (j = 0; j < n; j++) {
            if (llm_forward_batch(seqs, B, ws[j % nw], toks, pos, logits, scratch, th) != LLM_OK) exit(1);
            for (i = 0; i < B; i++) pos[i]++, toks[i] = (toks[i] + 1) % c->vocab;
        }
        t0 = roofs_now() - t0, c0 = roofs_cpu_seconds(th) - c0;
        if (n / t0 > best) best = n / t0, g_share = c0 / (t0 * llm_threads_count(th));
    }
    for (i = 0; i < B; i++) llm_state_free(&s[i]);
    free(prompt), free(logits), free(scratch);
    return best;
}

/* B generators stepped together by llm_gen_next_batch, generator i after a prompt of
   p0 + 4 i tokens, n steps: steps/s. Each step points every generator at the next copy of
   the weights (one llm_weights for all of them in a step, as the call requires), so the
   weights come from memory as in the rows above. */
static double gen_batch_rate(const llm_config *c, const llm_weights *const *ws, int nw, int B, int p0, int n,
                             llm_threads *th, int reps) {
    enum { MAXB = 8 };
    llm_gen g[MAXB], *gens[MAXB];
    llm_gen_piece out[MAXB];
    llm_gen_params gp = llm_gen_params_default();
    int *prompt = (int *)malloc((size_t)(p0 + 4 * MAXB) * sizeof(int)), i, j, r;
    size_t sb = llm_gen_batch_bytes(c, B);
    void *scratch = malloc(sb);
    double best = 0;
    if (!prompt || !scratch || sb == 0 || B > MAXB) exit(1);
    for (i = 0; i < p0 + 4 * MAXB; i++) prompt[i] = (i * 7919 + 1) % c->vocab;
    /* greedy: random weights give a near-flat distribution, where run.c's top-p would sort
       some 30,000 candidates per token, which a trained model's peaked one never costs */
    gp.sampler.greedy = 1;
    for (i = 0; i < B; i++) {
        gp.capacity = p0 + 4 * i + n + 1, gp.sampler.seed = BENCH_SEED + (uint64_t)i; /* no vocabulary: no EOG */
        if (llm_gen_create(&g[i], c, ws[0], NULL, &gp, th) != LLM_OK) exit(1);
        gens[i] = &g[i];
    }
    for (r = 0; r < reps; r++) {
        double t0, c0;
        for (i = 0; i < B; i++) {
            g[i].w = ws[0];
            llm_gen_reset(&g[i]);
            if (llm_gen_prompt_ids(&g[i], prompt, p0 + 4 * i) != LLM_OK) exit(1);
        }
        c0 = roofs_cpu_seconds(th), t0 = roofs_now();
        for (j = 0; j < n; j++) {
            for (i = 0; i < B; i++) g[i].w = ws[j % nw];
            if (llm_gen_next_batch(gens, B, scratch, sb, out, NULL) != LLM_OK) exit(1);
            for (i = 0; i < B; i++)
                if (out[i].step != LLM_GEN_STEPPED || out[i].stop != LLM_GEN_NONE) {
                    fprintf(stderr, "bench_decode: generator %d stopped at step %d (%s)\n", i, j, llm_gen_stop_name(out[i].stop));
                    exit(1);
                }
        }
        t0 = roofs_now() - t0, c0 = roofs_cpu_seconds(th) - c0;
        if (n / t0 > best) best = n / t0, g_share = c0 / (t0 * llm_threads_count(th));
    }
    for (i = 0; i < B; i++) llm_gen_free(&g[i]);
    free(prompt), free(scratch);
    return best;
}

static const char *verdict(double value, double target) { return value >= target ? "met" : "MISSED"; }

int main(void) {
    llm_threads *th2 = NULL;
    double bw[3], fma1, base[2] = {0, 0};
    int nt, q;
    char path[512];
    const char *dir = getenv("LLM_MODELS_DIR") ? getenv("LLM_MODELS_DIR") : "../shared/models";
    llm_model small;
    const char *why;

    bw[1] = roofs_read_gbs(1);
    bw[2] = roofs_read_gbs(2);
    fma1 = roofs_fma_gflops(1);
    if (llm_threads_create(&th2, 2) != LLM_OK) th2 = NULL;
    printf("bench_decode (%s): read bandwidth %.1f GB/s (1 thread), %.1f GB/s (2 threads); FMA %.1f GFLOP/s "
           "(1 thread); GB = 1e9 B\n",
           roofs_isa(), bw[1], bw[2], fma1);

    /* stories260K: small enough to stay in cache, so per-token overhead is what counts */
    sprintf(path, "%s/stories260K.bin", dir);
    if (llm_llama2c_load_file(&small, path, &why) == LLM_OK) {
        double target = 1.5 * 23000.0 * fma1 / PEER_FMA_GFLOPS, r1 = 0;
        for (nt = 1; nt <= 2; nt++) {
            const llm_weights *sw = &small.weights; /* 1 MB: in cache, as it is in use */
            double r = decode_rate(&small.config, &sw, 1, 0, 256, nt == 2 ? th2 : NULL, 20);
            if (nt == 1) r1 = r;
            printf("  stories260K fp32 decode, %d thread%s: %8.0f tok/s, CPU share %3.0f%% (256 tokens from "
                   "position 0)",
                   nt, nt > 1 ? "s" : " ", r, 100 * g_share);
            if (nt == 1) printf("; target >= %.0f (1.5x run.c x FMA/226): %s\n", target, verdict(r, target));
            else printf("; %.2fx 1 thread (too small to split: the worker idles, hence its CPU share)\n", r / r1);
        }
        llm_model_free(&small);
    } else {
        printf("  stories260K: %s absent, skipped\n", path);
    }

    /* the 110M shape: fp32, int8, fp32 repacked where this build repacks it */
    for (q = 0; q < 3; q++) {
        static const char *const kinds[3] = {"fp32", "int8", "fp32x16"};
        static big_model copies[8];
        const llm_weights *ws[8];
        big_model *mp = &copies[0];
        double bytes, r, pf, pf1 = 0, share_target, speedup_target = q == 1 ? 1.7 : 1.3;
        int nw, k;
        if (q == 2 && !llm_weight_repack_worth(LLM_F32, 768, 768)) {
            printf("  110M fp32x16: this build does not repack fp32 (no AVX-512), skipped\n");
            continue;
        }
        big_make(mp, q);
        bytes = llm_decode_bytes(&mp->c, &mp->w, LLM_F32, 64);
        /* copies until the weights cycled over are >= 600 MB */
        nw = (int)(600e6 / bytes) + 1;
        if (nw > 8) nw = 8;
        for (k = 0; k < nw; k++) {
            if (k > 0) big_make(&copies[k], q);
            ws[k] = &copies[k].w;
        }
        printf("  (110M %s: %d copies of the weights, %.0f MB, cycled token by token)\n", kinds[q], nw,
               nw * bytes / 1e6);
        share_target = q == 1 ? 244.0 * bytes / (PEER_READ_GBS * 1e9) : 0.85;
        for (nt = 1; nt <= 2; nt++) {
            double share;
            r = decode_rate(&mp->c, ws, nw, 32, 64, nt == 2 ? th2 : NULL, 2);
            if (nt == 1) base[q] = r;
            share = r * bytes / 1e9 / bw[nt];
            printf("  110M %s decode, %d thread%s: %6.1f tok/s, CPU share %3.0f%%, %.1f MB/token -> %5.1f GB/s = "
                   "%3.0f%% of read bandwidth",
                   kinds[q], nt, nt > 1 ? "s" : " ", r, 100 * g_share, bytes / 1e6, r * bytes / 1e9,
                   100 * share);
            if (nt == 1) {
                printf("; target >= %.0f%%: %s\n", 100 * share_target, verdict(share, share_target));
            } else {
                /* the speedup the roofs allow: at most bw[2] / bw[1] for a bandwidth-bound loop */
                double room = bw[2] / bw[1];
                printf(", %.2fx 1 thread; target >= %.1fx (the roofs allow %.2fx), or >= %.0f%% of the 2-thread "
                       "roof: %s\n",
                       r / base[q], speedup_target, room, 100 * share_target,
                       r / base[q] >= speedup_target || share >= share_target ? "met" : "MISSED");
            }
        }
        for (nt = 1; nt <= 2; nt++) {
            double target = 760.0 * fma1 / PEER_FMA_GFLOPS;
            pf = prefill_rate(&mp->c, &mp->w, 128, nt == 2 ? th2 : NULL, 2);
            if (nt == 1) pf1 = pf;
            printf("  110M %s prefill of 128 tokens, %d thread%s: %6.1f tok/s, CPU share %3.0f%%", kinds[q], nt,
                   nt > 1 ? "s" : " ", pf, 100 * g_share);
            if (nt == 1) printf("; target >= %.0f (llama.cpp 760 x FMA/226): %s\n", target, verdict(pf, target));
            else printf(", %.2fx 1 thread\n", pf / pf1);
        }
        /* several conversations at once: one step reads the weights once for all B; ideally
           B x the tokens/s of one (until compute, not memory, bounds it) */
        for (nt = 1; nt <= 2; nt++) {
            static const int bs[4] = {1, 2, 4, 8};
            double r1 = 0, bst;
            int bi;
            for (bi = 0; bi < 4; bi++) {
                int B = bs[bi];
                r = batch_rate(&mp->c, ws, nw, B, 32, 32, nt == 2 ? th2 : NULL, 2, &bst);
                if (B == 1) r1 = r;
                printf("  110M %s batched decode, B = %d, %d thread%s: %6.1f tok/s total, %6.1f per conversation "
                       "(%.2fx B = 1), CPU share %3.0f%%, %.1f MB/step -> %3.0f%% of read bandwidth\n",
                       kinds[q], B, nt, nt > 1 ? "s" : " ", B * r, r, B * r / r1, 100 * g_share, bst / 1e6,
                       100 * r * bst / 1e9 / bw[nt]);
            }
        }
        /* the same through the generation step an app calls (llm_gen_next_batch) */
        for (nt = 1; nt <= 2; nt++) {
            static const int bs[3] = {1, 2, 4};
            double r1 = 0;
            int bi;
            for (bi = 0; bi < 3; bi++) {
                int B = bs[bi];
                r = gen_batch_rate(&mp->c, ws, nw, B, 32, 32, nt == 2 ? th2 : NULL, 2);
                if (B == 1) r1 = r;
                printf("  110M %s batched generation (llm_gen_next_batch), B = %d, %d thread%s: %6.1f tok/s total, "
                       "%6.1f per conversation (%.2fx B = 1), CPU share %3.0f%%\n",
                       kinds[q], B, nt, nt > 1 ? "s" : " ", B * r, r, B * r / r1, 100 * g_share);
            }
        }
        for (k = 0; k < nw; k++) big_free(&copies[k]);
    }
    printf("  CPU share < 90%% (where the work is split): other processes had the cores; the figures are then lower "
           "bounds.\n");
    llm_threads_free(th2);
    return 0;
}
