/* bench_quants.c: ggml's block formats (Q4_K, Q8_0, Q4_0, Q6_K, Q5_0, Q5_K, Q4_1, Q5_1), as
   stored and repacked (llm_weight_repack: the rows named ...x16, where the build has their
   kernel), and fp32, fp16 and bf16 first (as stored and repacked), through llm_linear_w / llm_linear_wx,
   beside this machine's roofs measured in the same run.

   GEMV (one token, decode): weight bytes / time against the read roof (bench/roofs.h), 1
   and 2 threads. The matrix (4096 x 4096) is replicated to 256 MiB of copies, cycled
   through, so the weights come from memory (more than twice any last-level cache seen on
   these VMs: 32-105 MiB), best of 3 passes, the token counts taking turns pass by pass.
   "L2 GB/s" is one thread on ~512 KiB of rows called repeatedly: the kernel's own
   ceiling; when it is well above the read roof the GEMV is memory-bound.
   Small batches (4 and 16 tokens as batched conversations run them, each row the bits of
   its token alone; and 16 as a prefill chunk, llm_linear_wx with LLM_LIN_PREFILL, the
   many-token kernel): the same copies, effective GB/s of weights (bytes / time, as if
   streamed once per call) and GFLOP/s (2 flops per weight per token) against the FMA
   roof and, for ggml's formats (int8 codes times int8 activations), the int8 dot roof;
   "% roof" is the time the slower of read and that format's compute roof allows; and what
   16 tokens cost against one. fp32, fp16 and bf16 run as stored and repacked (f32x16,
   LLM_F32X16; f16x16, bf16x16). For ggml's formats, 8 and 16 tokens also against the int8
   dot's ceiling in a block kernel's loop (roofs_dot8_block_gops: the activations' loads
   and the per-block scale arithmetic beside the dots, with or without a min term), which
   the bare dot roof leaves out.
   The block bytes are random with moderate fp16 scales: the kernels' speed does not
   depend on the values.

   Then the whole model of llama2.c's 110M shape (dim 768, hidden 2048, 12 layers, vocab
   32000, tied output) built in memory in F32, F16, Q8_0, Q4_0, the Q4_K_M mix (llama.cpp's
   choice: Q6_K for attn_v and ffn_down on the layers it gives more bits, Q6_K output,
   Q4_K elsewhere), Q6_K and Q5_0, and each of those also repacked
   in place as llm-run runs them (the ...x16 kinds): decode tok/s (1 and 2 threads) with the bytes streamed
   per token and their share of the read roof (sampled between the decode's repetitions and
   paired with each: this host's bandwidth drifts within seconds), and prefill of 128 tokens (against F32's). Copies of the
   weights (up to 600 MB) are cycled token by token so decode reads memory, not the LLC.
   Last, opening that Q4_K_M model as a GGUF from a buffer (written in memory with the
   tests' writer): llm_gguf_create + llm_gguf_load in microseconds, the bytes they may
   touch (the header and tensor table; the weights' pages are PROT_NONE meanwhile, so a
   read of one would stop the bench), and a check that every weight points into the
   buffer (nothing copied).
   `bench_quants kernels [NAME]` (the formats whose name starts so), `bench_quants 110m
   [TYPE]` or `bench_quants open` runs one part only. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "roofs.h"
#include "tests/gguf_writer.h"
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    const char *name;
    llm_dtype type;
    int block, bytes, d_off, m_off; /* fp16 scale (and min) offsets in a block; -1: none */
    int repack;                     /* 1: the same blocks through llm_weight_repack (q8_0x16 ...) */
} qformat;
static const qformat formats[] = { /* fp32 as stored and repacked; each ggml format as stored, then repacked */
    {"f32", LLM_F32, 1, 4, -1, -1, 0},       {"f32x16", LLM_F32, 1, 4, -1, -1, 1},
    {"f16", LLM_F16, 1, 2, -1, -1, 0},       {"f16x16", LLM_F16, 1, 2, -1, -1, 1},
    {"bf16", LLM_BF16, 1, 2, -1, -1, 0},     {"bf16x16", LLM_BF16, 1, 2, -1, -1, 1},
    {"q4_k", LLM_Q4_K, 256, 144, 0, 2, 0},   {"q4_kx16", LLM_Q4_K, 256, 144, 0, 2, 1},
    {"q8_0", LLM_Q8_0, 32, 34, 0, -1, 0},    {"q8_0x16", LLM_Q8_0, 32, 34, 0, -1, 1},
    {"q4_0", LLM_Q4_0, 32, 18, 0, -1, 0},    {"q4_0x16", LLM_Q4_0, 32, 18, 0, -1, 1},
    {"q6_k", LLM_Q6_K, 256, 210, 208, -1, 0}, {"q6_kx16", LLM_Q6_K, 256, 210, 208, -1, 1},
    {"q5_0", LLM_Q5_0, 32, 22, 0, -1, 0},    {"q5_0x16", LLM_Q5_0, 32, 22, 0, -1, 1},
    {"q5_k", LLM_Q5_K, 256, 176, 0, 2, 0},   {"q5_kx16", LLM_Q5_K, 256, 176, 0, 2, 1},
    {"q4_1", LLM_Q4_1, 32, 20, 0, 2, 0},     {"q4_1x16", LLM_Q4_1, 32, 20, 0, 2, 1},
    {"q5_1", LLM_Q5_1, 32, 24, 0, 2, 0},     {"q5_1x16", LLM_Q5_1, 32, 24, 0, 2, 1},
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))
#define DOUT 4096
#define DIN 4096
#define SPAN ((size_t)256 << 20) /* bytes of weight copies cycled through (> 2x the LLC) */
#define MAXT 16

static void *xalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n + 64) != 0) {
        fprintf(stderr, "bench_quants: out of memory\n");
        exit(1);
    }
    return p;
}

/* seconds per call of n_tokens against every copy, one pass */
static double time_pass(llm_weight *W, unsigned char *data, size_t wbytes, int copies, const float *x, float *y, int n_tokens,
                        unsigned flags, llm_threads *th) {
    static unsigned char *scratch; /* llm_linear_wx's, as a model's state holds it */
    const size_t scratch_bytes = llm_linear_wx_bytes(MAXT, DIN);
    double t0;
    int c;
    if (!scratch) scratch = (unsigned char *)xalloc(scratch_bytes);
    t0 = roofs_now();
    for (c = 0; c < copies; c++) {
        W->data = data + wbytes * (size_t)c;
        if (llm_linear_wx(y, x, W, NULL, n_tokens, DIN, DOUT, flags, scratch, scratch_bytes, th) != LLM_OK) {
            fprintf(stderr, "bench_quants: llm_linear_w failed\n");
            exit(1);
        }
    }
    return (roofs_now() - t0) / copies;
}

/* ---- the 110M shape, whole model ---- */
#define M_D 768
#define M_FF 2048
#define M_L 12
#define M_V 32000
typedef struct {
    llm_weights w;
    llm_layer_weights layers[M_L];
    float *norms;
    void *mem[M_L * 7 + 3]; /* norms, token_embd, output, 7 per layer */
    int n_mem;
} qmodel;

static const qformat *fmt_of(llm_dtype t) { /* ggml's block formats only (the element formats' rows have no scales) */
    int i;
    for (i = 0; i < NFORMATS; i++)
        if (formats[i].type == t && formats[i].block > 1) return &formats[i];
    return NULL;
}
/* rows x cols in type t: random blocks with moderate scales (random floats for F32 and F16) */
static llm_weight qmat(qmodel *m, int rows, int cols, llm_dtype t, unsigned long long *r) {
    llm_weight w;
    const qformat *f = fmt_of(t);
    const size_t es = t == LLM_F16 ? 2 : 4; /* bytes per value of the element formats */
    size_t bytes = f ? (size_t)rows * (size_t)(cols / f->block) * (size_t)f->bytes : (size_t)rows * cols * es, i;
    unsigned char *p = (unsigned char *)xalloc(bytes);
    memset(&w, 0, sizeof w);
    m->mem[m->n_mem++] = p;
    for (i = 0; i < bytes; i++) *r = *r * 6364136223846793005ull + 1442695040888963407ull, p[i] = (unsigned char)(*r >> 56);
    if (!f && t == LLM_F16) {
        for (i = 0; i < (size_t)rows * cols; i++)
            ((uint16_t *)(void *)p)[i] = llm_f32_to_f16((float)(p[2 * i] % 200) / 100.0f / 28.0f - 0.035f);
    } else if (!f) {
        for (i = 0; i < (size_t)rows * cols; i++) ((float *)(void *)p)[i] = (float)(p[4 * i] % 200) / 100.0f / 28.0f - 0.035f;
    } else {
        for (i = 0; i < bytes; i += (size_t)f->bytes) {
            uint16_t h = llm_f32_to_f16(0.002f + 0.004f * (float)(i % 7) / 7.0f);
            p[i + (size_t)f->d_off] = (unsigned char)h, p[i + (size_t)f->d_off + 1] = (unsigned char)(h >> 8);
            if (f->m_off >= 0) p[i + (size_t)f->m_off] = (unsigned char)h, p[i + (size_t)f->m_off + 1] = (unsigned char)(h >> 8);
        }
    }
    w.type = t, w.data = p;
    return w;
}
/* mix < 0: every matrix in t; mix = 1: Q4_K_M (llama.cpp's use_more_bits layers: the first
   and last eighth and every third between get Q6_K attn_v and ffn_down; output Q6_K) */
static void qmodel_make(qmodel *m, llm_dtype t, int mix) {
    unsigned long long r = 0x9E3779B97F4A7C15ull;
    int l, i;
    memset(m, 0, sizeof *m);
    m->norms = (float *)xalloc(sizeof(float) * (2 * M_L + 1) * M_D);
    m->mem[m->n_mem++] = m->norms;
    for (i = 0; i < (2 * M_L + 1) * M_D; i++) m->norms[i] = 1.0f;
    m->w.tok_embed = qmat(m, M_V, M_D, t, &r);
    m->w.lm_head = mix > 0 ? qmat(m, M_V, M_D, LLM_Q6_K, &r) : m->w.tok_embed;
    m->w.out_norm = m->norms + 2 * M_L * M_D;
    m->w.layers = m->layers;
    for (l = 0; l < M_L; l++) {
        llm_layer_weights *y = &m->layers[l];
        int more = mix > 0 && (l < M_L / 8 || l >= 7 * M_L / 8 || (l - M_L / 8) % 3 == 2);
        y->attn_norm = m->norms + 2 * l * M_D, y->ffn_norm = m->norms + (2 * l + 1) * M_D;
        y->wq = qmat(m, M_D, M_D, t, &r), y->wk = qmat(m, M_D, M_D, t, &r);
        y->wv = qmat(m, M_D, M_D, more ? LLM_Q6_K : t, &r), y->wo = qmat(m, M_D, M_D, t, &r);
        y->w1 = qmat(m, M_FF, M_D, t, &r), y->w3 = qmat(m, M_FF, M_D, t, &r);
        y->w2 = qmat(m, M_D, M_FF, more ? LLM_Q6_K : t, &r);
    }
}
static void qmodel_free(qmodel *m) {
    while (m->n_mem > 0) free(m->mem[--m->n_mem]);
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* decode n tokens after a prefill of p0, token i against copy i % nw, reps times, each
   between two samples of the read roof (rd on th): the best tok/s; in *share the median
   over the reps of bytes x tok/s against the larger of the rep's two samples, in *roof the
   median sample (a share paired in time: this host's bandwidth drifts within seconds) */
#define M_REPS 7
static double m_decode(const llm_config *c, qmodel *ms, int nw, int p0, int n, llm_threads *th, const roofs_reader *rd,
                       double bytes, double *share, double *roof) {
    llm_state s;
    float *logits = (float *)xalloc(sizeof(float) * M_V);
    int toks[256], i, k;
    double best = 0, r[M_REPS + 1], sh[M_REPS];
    for (i = 0; i < p0 + n; i++) toks[i] = (i * 7919 + 1) % M_V;
    if (llm_state_create(&s, c, p0 + n, p0 > 0 ? p0 : 1, LLM_F32) != LLM_OK) exit(1);
    for (k = 0; k < M_REPS; k++) {
        double t0;
        if (p0 > 0) llm_forward(&s, &ms[0].w, toks, p0, 0, logits, 0, th);
        if (k == 0) r[0] = roofs_reader_gbs(rd, th);
        t0 = roofs_now();
        for (i = 0; i < n; i++)
            if (llm_forward(&s, &ms[i % nw].w, &toks[p0 + i], 1, p0 + i, logits, 0, th) != LLM_OK) exit(1);
        t0 = roofs_now() - t0;
        r[k + 1] = roofs_reader_gbs(rd, th);
        if (n / t0 > best) best = n / t0;
        sh[k] = n / t0 * bytes / 1e9 / (r[k] > r[k + 1] ? r[k] : r[k + 1]);
    }
    qsort(sh, M_REPS, sizeof sh[0], cmp_double);
    qsort(r, M_REPS + 1, sizeof r[0], cmp_double);
    *share = sh[M_REPS / 2], *roof = r[M_REPS / 2];
    llm_state_free(&s);
    free(logits);
    return best;
}
static double m_prefill(const llm_config *c, qmodel *m, int n, llm_threads *th, int reps) {
    llm_state s;
    float *logits = (float *)xalloc(sizeof(float) * M_V);
    int toks[128], i, k;
    double best = 0;
    for (i = 0; i < n; i++) toks[i] = (i * 7919 + 1) % M_V;
    if (llm_state_create(&s, c, n, n, LLM_F32) != LLM_OK) exit(1);
    for (k = 0; k < reps; k++) {
        double t0 = roofs_now();
        if (llm_forward(&s, &m->w, toks, n, 0, logits, 0, th) != LLM_OK) exit(1);
        t0 = roofs_now() - t0;
        if (n / t0 > best) best = n / t0;
    }
    llm_state_free(&s);
    free(logits);
    return best;
}

static void bench_110m(llm_threads **pools, int npools, const char *only) {
    static const struct {
        const char *name;
        llm_dtype t;
        int mix, repack; /* repack: llm_model_repack in place, as llm-run does */
    } kinds[] = {{"F32", LLM_F32, -1, 0},      {"F16", LLM_F16, -1, 0},      {"Q8_0", LLM_Q8_0, -1, 0},
                 {"Q4_0", LLM_Q4_0, -1, 0},     {"Q4_K_M", LLM_Q4_K, 1, 0},   {"Q6_K", LLM_Q6_K, -1, 0},
                 {"Q5_0", LLM_Q5_0, -1, 0},     {"Q8_0x16", LLM_Q8_0, -1, 1}, {"Q4_0x16", LLM_Q4_0, -1, 1},
                 {"Q4KMx16", LLM_Q4_K, 1, 1},   {"Q6_Kx16", LLM_Q6_K, -1, 1}, {"Q5_0x16", LLM_Q5_0, -1, 1},
                 {"F32x16", LLM_F32, -1, 1},    {"F16x16", LLM_F16, -1, 1}};
    enum { nk = (int)(sizeof kinds / sizeof kinds[0]) };
    double pre1[nk] = {0}, share1[nk] = {0}, two[nk] = {0}, rroof2[nk] = {0}; /* per kind, 1 thread: prefill of 128, decode's share of read; 2T / 1T of decode and of the read roof */
    int runs[nk] = {0}; /* the kind llm-run runs for its type in this build: repacked where llm_model_repack has a layout, else as stored */
    static qmodel ms[8];
    roofs_reader rd;
    llm_config c;
    int k, nth;
    memset(&c, 0, sizeof c);
    c.name = "llama2.c 110M shape";
    c.d_model = M_D, c.d_ff = M_FF, c.n_layers = M_L, c.n_heads = 12, c.n_kv_heads = 12;
    c.vocab = M_V, c.max_seq_len = 1024, c.tied_embeddings = 1, c.rope_theta = 10000.0f;
    if (!roofs_reader_init(&rd, (size_t)512 << 20)) exit(1);
    printf("\n110M shape (dim %d, hidden %d, %d layers, vocab %d): decode 32 tokens after 32, prefill 128\n", M_D, M_FF, M_L,
           M_V);
    printf("%-7s %9s %6s %11s %10s %8s %10s %8s %9s %10s %10s\n", "type", "MB/token", "copies", "read GB/s", "dec 1T", "% read", "dec 2T",
           "% read", "2T / 1T", "pre128 1T", "pre128 2T");
    for (k = 0; k < nk; k++) {
        double bytes, d[3] = {0, 0, 0}, p[3] = {0, 0, 0}, rr[3] = {0, 0, 0}, sh[3] = {0, 0, 0};
        int nw, i;
        if (only && strcmp(only, kinds[k].name) != 0) continue;
        qmodel_make(&ms[0], kinds[k].t, kinds[k].mix);
        c.tied_embeddings = kinds[k].mix > 0 ? 0 : 1;
        bytes = llm_decode_bytes(&c, &ms[0].w, LLM_F32, 48);
        nw = (int)(600e6 / bytes) + 1;
        if (nw > 8) nw = 8;
        for (i = 1; i < nw; i++) qmodel_make(&ms[i], kinds[k].t, kinds[k].mix);
        {
            llm_model mm;
            size_t need;
            memset(&mm, 0, sizeof mm);
            mm.config = c;
            mm.weights = ms[0].w;
            need = llm_model_repack_bytes(&mm, 1);
            runs[k] = kinds[k].repack ? need > 0 : need == 0;
            if (kinds[k].repack && !need) {
                printf("%-7s (no vector kernel for it in this build: not measured)\n", kinds[k].name);
                for (i = 0; i < nw; i++) qmodel_free(&ms[i]);
                continue;
            }
            for (i = 0; kinds[k].repack && i < nw; i++) {
                void *tmp = xalloc(need);
                mm.weights = ms[i].w;
                if (llm_model_repack(&mm, tmp, need, 1) != LLM_OK) exit(1);
                ms[i].w = mm.weights; /* the head and embedding changed type with their bytes */
                free(tmp);
            }
        }
        for (nth = 1; nth <= npools; nth++) {
            d[nth] = m_decode(&c, ms, nw, 32, 32, pools[nth], &rd, bytes, &sh[nth], &rr[nth]);
            p[nth] = m_prefill(&c, &ms[0], 128, pools[nth], 2);
        }
        share1[k] = sh[1], two[k] = d[1] > 0 ? d[2] / d[1] : 0.0, rroof2[k] = rr[1] > 0 ? rr[2] / rr[1] : 0.0;
        printf("%-7s %9.1f %6d %5.1f/%-5.1f %10.1f %7.0f%% %10.1f %7.0f%% %8.2fx %10.1f %10.1f\n", kinds[k].name, bytes / 1e6, nw,
               rr[1], rr[2], d[1], 100.0 * sh[1], d[2], 100.0 * sh[2], two[k], p[1], p[2]);
        for (i = 0; i < nw; i++) qmodel_free(&ms[i]);
        pre1[k] = p[1];
    }
    printf("tok/s: best of %d x 32 tokens; read GB/s: the median of the roof's samples taken between them, 1 / 2\n"
           "threads; %% read: the median over the %d of bytes per token x tok/s against the larger of its two samples\n",
           M_REPS, M_REPS);
    printf("decode on 1 thread >= 85 %% of read (F32, F16 >= 90 %%), as llm-run runs each file (repacked where this build can):");
    for (k = 0; k < nk; k++)
        if (share1[k] > 0 && runs[k])
            printf(" %s %s", kinds[k].name, share1[k] >= (kinds[k].t == LLM_F32 || kinds[k].t == LLM_F16 ? 0.90 : 0.85) ? "met" : "MISSED");
    printf("\n");
    if (npools > 1) {
        /* "where the roofs allow": a run whose two-thread read roof is under 1.6x its
           one-thread roof cannot judge a memory-bound decode against 1.6x */
        printf("two threads >= 1.6x one where the read roof allows it:");
        for (k = 0; k < nk; k++)
            if (two[k] > 0 && runs[k])
                printf(" %s %s (read roof %.2fx)", kinds[k].name,
                       two[k] >= 1.6 ? "met" : rroof2[k] < 1.6 ? "not judged" : "MISSED", rroof2[k]);
        printf("\n");
    }
    if (pre1[0] > 0) { /* issue 12: integer dots make 4-bit prefill at least as fast as fp32's */
        printf("prefill of 128 on 1 thread against F32's (target >= 1 for the 4-bit types):");
        for (k = 1; k < nk; k++)
            if (pre1[k] > 0)
                printf(" %s %.2fx%s", kinds[k].name, pre1[k] / pre1[0],
                       kinds[k].t == LLM_Q4_0 || kinds[k].t == LLM_Q4_K ? (pre1[k] >= pre1[0] ? " met" : " MISSED") : "");
        printf("\n");
    }
    roofs_reader_free(&rd);
}

/* ---- opening the 110M Q4_K_M file from a buffer ---- */
static void open_touched(int sig) {
    static const char msg[] = "bench_quants: opening the GGUF read a weight byte (a PROT_NONE page)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(1);
    _exit(1);
}
/* does w's data lie in the buffer's data section? */
static int in_data(const void *p, const unsigned char *buf, const llm_gguf *g) {
    const unsigned char *q = (const unsigned char *)p;
    return q >= buf + g->data_offset && q < buf + g->len;
}
static uint32_t ggml_type(llm_dtype t) { return t == LLM_Q4_K ? GW_Q4_K : t == LLM_Q6_K ? GW_Q6_K : GW_F32; }
static void bench_open(void) {
    static qmodel m;
    static gw w;
    static gw_names nm;
    static llm_layer_weights layers[M_L];
    static const char *const lt[7] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
    unsigned char *buf;
    void *mem = NULL;
    size_t n, page = (size_t)sysconf(_SC_PAGESIZE), lo, hi;
    uint64_t ne[2];
    int l, k, t = 0, rep, bad = 0;
    double best = 1e30, sum = 0;
    llm_gguf g;
    llm_model lm;
    const char *why = "";
    qmodel_make(&m, LLM_Q4_K, 1);
    gw_init(&w);
    gw_kv_str(&w, "general.architecture", "llama");
    gw_kv_u32(&w, "llama.context_length", 1024);
    gw_kv_u32(&w, "llama.embedding_length", M_D);
    gw_kv_u32(&w, "llama.feed_forward_length", M_FF);
    gw_kv_u32(&w, "llama.block_count", M_L);
    gw_kv_u32(&w, "llama.attention.head_count", 12);
    gw_kv_u32(&w, "llama.attention.head_count_kv", 12);
    gw_kv_f32(&w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
#define OPEN_T(name, nd, ne0, ne1, wt)                                                                          \
    (ne[0] = (ne0), ne[1] = (ne1), snprintf(nm.s[t], sizeof nm.s[t], "%s", name),                              \
     gw_tensor_add(&w, nm.s[t++], nd, ne, ggml_type((wt)->type), (wt)->data,                                  \
                   (size_t)gw_tensor_size(ggml_type((wt)->type), nd, ne)))
    {
        llm_weight nw;
        memset(&nw, 0, sizeof nw);
        nw.type = LLM_F32;
        OPEN_T("token_embd.weight", 2, M_D, M_V, &m.w.tok_embed);
        nw.data = m.w.out_norm, OPEN_T("output_norm.weight", 1, M_D, 1, &nw);
        OPEN_T("output.weight", 2, M_D, M_V, &m.w.lm_head);
        for (l = 0; l < M_L; l++) {
            const llm_layer_weights *y = &m.layers[l];
            const llm_weight *mats[7];
            char name[48];
            mats[0] = &y->wq, mats[1] = &y->wk, mats[2] = &y->wv, mats[3] = &y->wo, mats[4] = &y->w1, mats[5] = &y->w3, mats[6] = &y->w2;
            snprintf(name, sizeof name, "blk.%d.attn_norm.weight", l);
            nw.data = y->attn_norm, OPEN_T(name, 1, M_D, 1, &nw);
            snprintf(name, sizeof name, "blk.%d.ffn_norm.weight", l);
            nw.data = y->ffn_norm, OPEN_T(name, 1, M_D, 1, &nw);
            for (k = 0; k < 7; k++) {
                snprintf(name, sizeof name, "blk.%d.%s.weight", l, lt[k]);
                OPEN_T(name, 2, k == 6 ? M_FF : M_D, k >= 4 && k < 6 ? M_FF : M_D, mats[k]);
            }
        }
    }
#undef OPEN_T
    gw_finish(&w);
    n = w.n;
    if (posix_memalign(&mem, page, n) != 0) exit(1);
    buf = (unsigned char *)mem; /* page-aligned, for mprotect */
    memcpy(buf, w.p, n);
    gw_free(&w);
    qmodel_free(&m);
    for (rep = 0; rep < 20; rep++) {
        double t0 = roofs_now(), dt;
        if (llm_gguf_create(&g, buf, n, &why) != LLM_OK || llm_gguf_load(&lm, &g, layers, M_L, &why) != LLM_OK) {
            fprintf(stderr, "bench_quants: the 110M GGUF does not open: %s\n", why);
            exit(1);
        }
        dt = roofs_now() - t0;
        if (rep < 19) llm_gguf_free(&g);
        best = dt < best ? dt : best, sum += dt;
    }
    /* once more with the weights' pages unreadable: only the header and table are touched */
    lo = ((size_t)g.data_offset + page - 1) / page * page, hi = n / page * page;
    signal(SIGSEGV, open_touched);
    if (hi > lo && mprotect(buf + lo, hi - lo, PROT_NONE) == 0) {
        llm_gguf gp;
        llm_model mp;
        llm_layer_weights lp[M_L];
        if (llm_gguf_create(&gp, buf, n, &why) != LLM_OK || llm_gguf_load(&mp, &gp, lp, M_L, &why) != LLM_OK) exit(1);
        llm_gguf_free(&gp);
        mprotect(buf + lo, hi - lo, PROT_READ | PROT_WRITE);
    } else {
        printf("(mprotect unavailable: the untouched-weights check did not run)\n");
    }
    signal(SIGSEGV, SIG_DFL);
    /* nothing copied: every weight points into the buffer's data section */
    bad += !in_data(lm.weights.tok_embed.data, buf, &g) + !in_data(lm.weights.lm_head.data, buf, &g) + !in_data(lm.weights.out_norm, buf, &g);
    for (l = 0; l < M_L; l++) {
        const llm_layer_weights *y = &lm.weights.layers[l];
        bad += !in_data(y->wq.data, buf, &g) + !in_data(y->wk.data, buf, &g) + !in_data(y->wv.data, buf, &g) + !in_data(y->wo.data, buf, &g);
        bad += !in_data(y->w1.data, buf, &g) + !in_data(y->w2.data, buf, &g) + !in_data(y->w3.data, buf, &g);
        bad += !in_data(y->attn_norm, buf, &g) + !in_data(y->ffn_norm, buf, &g);
    }
    printf("\nopen the 110M Q4_K_M GGUF from a buffer (llm_gguf_create + llm_gguf_load, %lld tensors): best %.1f us, mean %.1f us "
           "of 20\n  bytes touched: %llu of %zu (header and tensor table; the weights' %zu pages PROT_NONE meanwhile); "
           "weights copied: %s (%d pointers checked)\n",
           (long long)g.n_tensors, best * 1e6, sum / 20 * 1e6, (unsigned long long)g.data_offset, n, (hi - lo) / page,
           bad ? "SOME: a weight points outside the buffer" : "none, every weight points into the buffer", 3 + 9 * M_L);
    llm_gguf_free(&g);
    free(mem);
    if (bad) exit(1);
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && !strcmp(only, "open")) { /* no roofs needed */
        bench_open();
        return 0;
    }
    int part_k = !only || !strcmp(only, "kernels"), part_m = !only || !strcmp(only, "110m");
    unsigned char *data = (unsigned char *)xalloc(SPAN + (size_t)DOUT * DIN);
    float *x = (float *)xalloc(sizeof(float) * MAXT * DIN), *y = (float *)xalloc(sizeof(float) * MAXT * DOUT);
    llm_threads *pools[3] = {NULL, NULL, NULL};
    double rroof[3], froof[3], droof[3], broof[2];
    unsigned long long r = 0x9E3779B97F4A7C15ull;
    /* 1, 2, 3, 4, 8 and 16 tokens as batched conversations run them (each row the bits of
       its token alone), then 16 as a prefill chunk (LLM_LIN_PREFILL: the many-token kernel) */
    enum { NK = 7, K8 = 4, K16 = 5, KPRE = 6 };
    int nth, fi, npools = 1, toks[NK] = {1, 2, 3, 4, 8, 16, 16}, k;
    static const char *const tlabel[NK] = {"1", "2", "3", "4", "8", "16", "16 pre"};
    size_t i;
    if (llm_threads_create(&pools[2], 2) == LLM_OK) npools = 2;
    for (i = 0; i < (size_t)MAXT * DIN; i++) x[i] = (float)(i % 97) / 97.0f - 0.5f;
    printf("bench_quants: y[n][%d] = x[n][%d] W^T, W in ggml block formats, weights cycled over %d MiB of copies\n", DOUT,
           DIN, (int)(SPAN >> 20));
    printf("ISA %s; roofs:", roofs_isa());
    for (nth = 1; nth <= npools; nth++) {
        rroof[nth] = roofs_read_gbs(nth);
        froof[nth] = roofs_fma_gflops(nth);
        droof[nth] = roofs_dot8_gops(nth);
        printf("%s %d thread%s read %.1f GB/s, FMA %.0f GFLOP/s, int8 dot %.0f Gop/s", nth > 1 ? ";" : "", nth,
               nth > 1 ? "s" : "", rroof[nth], froof[nth], droof[nth]);
    }
    broof[0] = roofs_dot8_block_gops(1, 0), broof[1] = roofs_dot8_block_gops(1, 1);
    if (broof[0] > 0)
        printf("\nthe int8 dot in a block kernel's loop (per 32 values and token: 8 activation words broadcast from L1, a scale\n"
               "multiply and an FMA; a min term's FMA too), 1 thread: %.0f Gop/s (%.0f %% of the int8 dot roof), with a min term %.0f (%.0f %%)",
               broof[0], 100.0 * broof[0] / droof[1], broof[1], 100.0 * broof[1] / droof[1]);
    if (part_k)
        printf("\n\n%-7s %3s %6s %10s %9s %8s %9s %8s %8s %7s %9s\n", "type", "thr", "tokens", "time (us)", "GB/s", "% read",
               "GFLOP/s", "% FMA", "% dot8", "% roof", "L2 GB/s");
    for (fi = 0; fi < (part_k ? NFORMATS : 0); fi++) {
        const qformat *f = &formats[fi];
        if (argc > 2 && strncmp(f->name, argv[2], strlen(argv[2])) != 0) continue; /* kernels NAME: those formats only */
        size_t wbytes = (size_t)DOUT * (DIN / f->block) * (size_t)f->bytes;
        int copies = (int)(SPAN / wbytes), c;
        double l2 = 0, t1[NK] = {0};
        llm_weight W;
        for (i = 0; i < wbytes; i++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            data[i] = (unsigned char)(r >> 56);
        }
        if (f->type == LLM_F32) /* moderate floats (random bytes would be NaNs and subnormals) */
            for (i = 0; i < wbytes / 4; i++) ((float *)(void *)data)[i] = (float)((i * 2654435761u) % 2001) * 1e-3f - 1.0f;
        if (f->type == LLM_F16 || f->type == LLM_BF16)
            for (i = 0; i < wbytes / 2; i++) {
                const float v = (float)((i * 2654435761u) % 2001) * 1e-3f - 1.0f;
                ((uint16_t *)(void *)data)[i] = f->type == LLM_F16 ? llm_f32_to_f16(v) : llm_f32_to_bf16(v);
            }
        for (i = 0; f->d_off >= 0 && i < wbytes; i += (size_t)f->bytes) {
            uint16_t h = llm_f32_to_f16(0.002f + 0.004f * (float)(i % 7) / 7.0f);
            data[i + (size_t)f->d_off] = (unsigned char)h, data[i + (size_t)f->d_off + 1] = (unsigned char)(h >> 8);
            if (f->m_off >= 0) data[i + (size_t)f->m_off] = (unsigned char)h, data[i + (size_t)f->m_off + 1] = (unsigned char)(h >> 8);
        }
        memset(&W, 0, sizeof W);
        W.type = f->type;
        if (f->repack) { /* copy 0 rearranged (through the copies' room), then copied */
            llm_weight R;
            W.data = data;
            if (!llm_weight_repack_worth(f->type, DIN, DOUT)) {
                printf("%-7s (no vector kernel for it in this build: not measured)\n", f->name);
                continue;
            }
            if (llm_weight_repack(&R, data + wbytes, wbytes, &W, DIN, DOUT) != LLM_OK) exit(1);
            memcpy(data, data + wbytes, wbytes);
            W.type = R.type;
        }
        for (c = 1; c < copies; c++) memcpy(data + wbytes * (size_t)c, data, wbytes);
        { /* in-L2 ceiling: ~512 KiB of rows of copy 0, one thread, called repeatedly */
            int rows = (int)((size_t)512 * 1024 / (wbytes / DOUT)) / 16 * 16, rep; /* (x16: groups of 16) */
            double best = 1e30;
            W.data = data;
            for (rep = 0; rep < 40; rep++) {
                double t0 = roofs_now(), t;
                for (c = 0; c < 20; c++) llm_linear_w(y, x, &W, NULL, 1, DIN, rows, NULL);
                t = (roofs_now() - t0) / 20;
                if (t < best) best = t;
            }
            l2 = (double)(wbytes / DOUT) * rows / best / 1e9;
        }
        for (nth = 1; nth <= npools; nth++) {
            double tk[NK];
            int pass;
            /* the token counts in turn, pass by pass (a warm-up, then the best of 3): the
               ratios between them (16 tokens' cost over one's) come from the same minutes */
            for (k = 0; k < NK; k++) tk[k] = 1e30;
            for (pass = -1; pass < 3; pass++)
                for (k = 0; k < NK; k++) {
                    double t = time_pass(&W, data, wbytes, copies, x, y, toks[k], k == KPRE ? LLM_LIN_PREFILL : 0u, pools[nth]);
                    if (pass >= 0 && t < tk[k]) tk[k] = t;
                }
            for (k = 0; k < NK; k++) {
                double t = tk[k];
                if (nth == 1) t1[k] = t;
                double flops = 2.0 * toks[k] * DOUT * DIN, gbs = (double)wbytes / t / 1e9, gf = flops / t / 1e9;
                /* % roof: the time the slower of the two roofs allows, against the time taken; the
                   compute roof is the int8 dot's for ggml's formats (their kernels multiply int8
                   codes by int8 activations) where the build has one, else the FMA's */
                const int dot8 = f->block > 1 && droof[nth] > 0;
                double tread = (double)wbytes / (rroof[nth] * 1e9), tcomp = flops / ((dot8 ? droof[nth] : froof[nth]) * 1e9);
                double troof = tread > tcomp ? tread : tcomp;
                printf("%-7s %3d %6s %10.1f %9.1f %7.0f%% %9.1f %7.1f%% ", f->name, nth, tlabel[k], t * 1e6, gbs,
                       100.0 * gbs / rroof[nth], gf, 100.0 * gf / froof[nth]);
                if (dot8) printf("%7.1f%% ", 100.0 * gf / droof[nth]);
                else printf("%8s ", "-");
                printf("%6.0f%%", 100.0 * troof / t);
                if (nth == 1 && k == 0) printf(" %9.1f", l2);
                printf("\n");
            }
        }
        printf("%-7s 2 tokens cost %.2fx one token, 3 %.2fx; 16 tokens %.1fx batched, %.1fx as a prefill chunk (target <= 3x): %s\n",
               f->name, t1[1] / t1[0], t1[2] / t1[0], t1[K16] / t1[0], t1[KPRE] / t1[0], t1[KPRE] / t1[0] <= 3.0 ? "met" : "MISSED");
        if (f->block > 1 && broof[0] > 0) { /* the ggml formats: 8 and 16 tokens against the ceiling of their loop */
            const double b = f->m_off >= 0 ? broof[1] : broof[0], g8 = 2.0 * 8 * DOUT * DIN / t1[K8] / 1e9, g16 = 2.0 * 16 * DOUT * DIN / t1[K16] / 1e9;
            printf("%-7s 8 / 16 tokens on 1 thread: %.0f / %.0f %% of the block loop's ceiling%s\n", f->name, 100.0 * g8 / b,
                   100.0 * g16 / b, f->m_off >= 0 ? " (with a min term)" : f->type == LLM_Q6_K ? " (a scale per 16 values: two multiplies a block, so a lower ceiling)" : "");
        }
    }
    if (part_k) printf("\ntargets: GEMV >= 85%% of the read roof on 1 thread (L2 GB/s >= 1.5x it), 16 tokens <= 3x one (issue 12);\n"
                       "2 to 16 tokens >= 80%% of the roof, the time the slower of read and compute allows (issue 13; compute:\n"
                       "the int8 dot roof for ggml's formats where this build has one, else the FMA roof)\n"
                       "(2-16: batched conversations, each row its token's one-token bits; 16 pre: a prefill chunk, LLM_LIN_PREFILL)\n");
    if (part_m) bench_110m(pools, npools, argc > 2 ? argv[2] : NULL);
    if (!only) bench_open();
    llm_threads_free(pools[2]);
    free(data), free(x), free(y);
    return 0;
}
