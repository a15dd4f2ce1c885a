/* bench_quants.c: ggml's block formats (Q4_K, Q8_0, Q4_0, Q6_K, Q5_0, Q5_K, Q4_1, Q5_1)
   through llm_linear_w, beside this machine's roofs measured in the same run.

   GEMV (one token, decode): weight bytes / time against the read roof (bench/roofs.h), 1
   and 2 threads. The matrix (4096 x 4096) is replicated to 256 MiB of copies, cycled
   through, so the weights come from memory (this VM's last-level cache is 105 MiB), best
   of 3 passes. "L2 GB/s" is one thread on ~512 KiB of rows called repeatedly: the
   kernel's own ceiling; when it is well above the read roof the GEMV is memory-bound.
   Small batches (4 and 16 tokens: prefill chunks, batched conversations): the same
   copies, effective GB/s of weights (bytes / time, as if streamed once per call) and
   GFLOP/s (2 flops per weight per token) against the FMA roof.
   The block bytes are random with moderate fp16 scales: the kernels' speed does not
   depend on the values. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "roofs.h"

typedef struct {
    const char *name;
    llm_dtype type;
    int block, bytes, d_off, m_off; /* fp16 scale (and min) offsets in a block; -1: none */
} qformat;
static const qformat formats[] = {
    {"q4_k", LLM_Q4_K, 256, 144, 0, 2}, {"q8_0", LLM_Q8_0, 32, 34, 0, -1},  {"q4_0", LLM_Q4_0, 32, 18, 0, -1},
    {"q6_k", LLM_Q6_K, 256, 210, 208, -1}, {"q5_0", LLM_Q5_0, 32, 22, 0, -1}, {"q5_k", LLM_Q5_K, 256, 176, 0, 2},
    {"q4_1", LLM_Q4_1, 32, 20, 0, 2},   {"q5_1", LLM_Q5_1, 32, 24, 0, 2},
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

/* seconds per call of n_tokens against every copy, best of 3 passes (after a warm-up) */
static double time_calls(llm_weight *W, unsigned char *data, size_t wbytes, int copies, const float *x, float *y, int n_tokens,
                         llm_threads *th) {
    double best = 1e30;
    int pass, c;
    for (pass = -1; pass < 3; pass++) {
        double t0 = roofs_now(), t;
        for (c = 0; c < copies; c++) {
            W->data = data + wbytes * (size_t)c;
            if (llm_linear_w(y, x, W, NULL, n_tokens, DIN, DOUT, th) != LLM_OK) {
                fprintf(stderr, "bench_quants: llm_linear_w failed\n");
                exit(1);
            }
        }
        t = (roofs_now() - t0) / copies;
        if (pass >= 0 && t < best) best = t;
    }
    return best;
}

int main(void) {
    unsigned char *data = (unsigned char *)xalloc(SPAN + (size_t)DOUT * DIN);
    float *x = (float *)xalloc(sizeof(float) * MAXT * DIN), *y = (float *)xalloc(sizeof(float) * MAXT * DOUT);
    llm_threads *pools[3] = {NULL, NULL, NULL};
    double rroof[3], froof[3];
    unsigned long long r = 0x9E3779B97F4A7C15ull;
    int nth, fi, npools = 1, toks[3] = {1, 4, 16}, k;
    size_t i;
    if (llm_threads_create(&pools[2], 2) == LLM_OK) npools = 2;
    for (i = 0; i < (size_t)MAXT * DIN; i++) x[i] = (float)(i % 97) / 97.0f - 0.5f;
    printf("bench_quants: y[n][%d] = x[n][%d] W^T, W in ggml block formats, weights cycled over %d MiB of copies\n", DOUT,
           DIN, (int)(SPAN >> 20));
    printf("ISA %s; roofs:", roofs_isa());
    for (nth = 1; nth <= npools; nth++) {
        rroof[nth] = roofs_read_gbs(nth);
        froof[nth] = roofs_fma_gflops(nth);
        printf("%s %d thread%s read %.1f GB/s, FMA %.0f GFLOP/s", nth > 1 ? ";" : "", nth, nth > 1 ? "s" : "", rroof[nth],
               froof[nth]);
    }
    printf("\n\n%-6s %3s %6s %10s %9s %8s %9s %8s %9s\n", "type", "thr", "tokens", "time (us)", "GB/s", "% read", "GFLOP/s",
           "% FMA", "L2 GB/s");
    for (fi = 0; fi < NFORMATS; fi++) {
        const qformat *f = &formats[fi];
        size_t wbytes = (size_t)DOUT * (DIN / f->block) * (size_t)f->bytes;
        int copies = (int)(SPAN / wbytes), c;
        double l2 = 0;
        llm_weight W;
        for (i = 0; i < wbytes; i++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            data[i] = (unsigned char)(r >> 56);
        }
        for (i = 0; i < wbytes; i += (size_t)f->bytes) {
            uint16_t h = llm_f32_to_f16(0.002f + 0.004f * (float)(i % 7) / 7.0f);
            data[i + (size_t)f->d_off] = (unsigned char)h, data[i + (size_t)f->d_off + 1] = (unsigned char)(h >> 8);
            if (f->m_off >= 0) data[i + (size_t)f->m_off] = (unsigned char)h, data[i + (size_t)f->m_off + 1] = (unsigned char)(h >> 8);
        }
        for (c = 1; c < copies; c++) memcpy(data + wbytes * (size_t)c, data, wbytes);
        memset(&W, 0, sizeof W);
        W.type = f->type;
        { /* in-L2 ceiling: ~512 KiB of rows of copy 0, one thread, called repeatedly */
            int rows = (int)((size_t)512 * 1024 / (wbytes / DOUT)) / 4 * 4, rep;
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
        for (nth = 1; nth <= npools; nth++)
            for (k = 0; k < 3; k++) {
                double t = time_calls(&W, data, wbytes, copies, x, y, toks[k], pools[nth]);
                double gbs = (double)wbytes / t / 1e9, gf = 2.0 * toks[k] * DOUT * DIN / t / 1e9;
                printf("%-6s %3d %6d %10.1f %9.1f %7.0f%% %9.1f %7.1f%%", f->name, nth, toks[k], t * 1e6, gbs,
                       100.0 * gbs / rroof[nth], gf, 100.0 * gf / froof[nth]);
                if (nth == 1 && k == 0) printf(" %9.1f", l2);
                printf("\n");
            }
    }
    llm_threads_free(pools[2]);
    free(data), free(x), free(y);
    printf("\ntarget: GEMV >= 80%% of the read roof on 2 threads for q4_k, q8_0, q4_0\n");
    return 0;
}
