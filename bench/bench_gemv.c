/* bench_gemv.c: decode GEMV (one token, y = W x) with fp32, fp16, bf16 and int8 weights,
   for 1 and 2 threads, beside this machine's read-bandwidth roof measured in the same run.

   Decoding streams every weight once per token, so the figure that matters is GB/s of
   weight bytes (GB = 1e9 B; int8 counts its fp32 group scales too) and its % of the
   read roof (bench/roofs.h: a 1 GiB buffer summed with vector loads). A real model's
   layers never share a cache, so each timed pass cycles through copies of the matrix
   totalling >= 1 GiB: a 16 MB int8 matrix called in a loop would sit in L3 and report
   more than memory can deliver. Each figure is the best of 3 passes over the copies.
   Speedup = fp32 time / this format's time on the same shape and thread count. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "roofs.h"

typedef struct {
    int dout, din;
} shape;
static const shape shapes[] = {{4096, 4096}, {11008, 4096}};

typedef struct {
    const char *name;
    llm_dtype type;
    int gs;
} format;
static const format formats[] = {
    {"fp32", LLM_F32, 0}, {"fp16", LLM_F16, 0}, {"bf16", LLM_BF16, 0}, {"int8 g64", LLM_INT8, 64}, {"int8 g32", LLM_INT8, 32},
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

static void *xalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n + 64) != 0) {
        fprintf(stderr, "bench_gemv: out of memory\n");
        exit(1);
    }
    return p;
}

/* One format on one shape: the matrix converted once, replicated to >= 1 GiB, then timed
   with each pool; t[i] = seconds per call with pools[i], best of 3 passes over the copies. */
#define BENCH_SPAN ((size_t)1 << 30) /* bytes of weight copies cycled through */
static void time_format(const shape *s, const format *f, const float *wsrc, const float *x, float *y,
                        llm_threads **pools, int npools, unsigned char *data, double *t, double *bytes_per_call) {
    size_t n = (size_t)s->dout * s->din, wbytes, sbytes = 0, i;
    int copies, c, pass, p;
    float *scales = NULL;
    llm_weight W;
    wbytes = f->type == LLM_F32 ? 4 * n : f->type == LLM_INT8 ? n : 2 * n;
    if (f->type == LLM_INT8) sbytes = n / (size_t)f->gs * sizeof(float);
    copies = (int)(BENCH_SPAN / (wbytes + sbytes)) + 1; /* data holds BENCH_SPAN + one fp32 matrix */
    if (f->type == LLM_F32) {
        memcpy(data, wsrc, wbytes);
    } else if (f->type == LLM_F16 || f->type == LLM_BF16) {
        uint16_t *h = (uint16_t *)(void *)data;
        for (i = 0; i < n; i++) h[i] = f->type == LLM_F16 ? llm_f32_to_f16(wsrc[i]) : llm_f32_to_bf16(wsrc[i]);
    } else {
        scales = (float *)(void *)(data + wbytes * (size_t)copies);
        if (llm_quantize_int8((int8_t *)data, scales, wsrc, (int64_t)n, f->gs) != LLM_OK) exit(1);
    }
    for (c = 1; c < copies; c++) {
        memcpy(data + wbytes * (size_t)c, data, wbytes);
        if (scales) memcpy((unsigned char *)scales + sbytes * (size_t)c, scales, sbytes);
    }
    W.type = f->type;
    W.group_size = f->gs;
    for (p = 0; p < npools; p++) {
        t[p] = 1e30;
        for (pass = -1; pass < 3; pass++) { /* pass -1 warms up */
            double t0 = roofs_now(), tp;
            for (c = 0; c < copies; c++) {
                W.data = data + wbytes * (size_t)c;
                W.scale = scales ? (const float *)(const void *)((unsigned char *)scales + sbytes * (size_t)c) : NULL;
                if (llm_linear_w(y, x, &W, NULL, 1, s->din, s->dout, pools[p]) != LLM_OK) {
                    fprintf(stderr, "bench_gemv: llm_linear_w failed\n");
                    exit(1);
                }
            }
            tp = (roofs_now() - t0) / copies;
            if (pass >= 0 && tp < t[p]) t[p] = tp;
        }
    }
    *bytes_per_call = (double)(wbytes + sbytes);
}

int main(void) {
    int nt, si, fi, npools = 1;
    double roof[3], t[NFORMATS][2], bytes[NFORMATS];
    llm_threads *pools[2] = {NULL, NULL};
    /* one buffer for all the copies, reused by every format, so pages fault in once */
    unsigned char *data = (unsigned char *)xalloc(BENCH_SPAN + (size_t)11008 * 4096 * 4);
    if (llm_threads_create(&pools[1], 2) == LLM_OK) npools = 2;
    printf("bench_gemv: decode GEMV y[d_out] = W[d_out][d_in] x, weights cycled over >= 1 GiB of copies\n");
    printf("ISA %s; read roof (1 GiB buffer): ", roofs_isa());
    for (nt = 1; nt <= npools; nt++) {
        roof[nt] = roofs_read_gbs(nt);
        printf("%s%d thread%s %.1f GB/s", nt > 1 ? ", " : "", nt, nt > 1 ? "s" : "", roof[nt]);
    }
    printf("\n(FMA roof, for reference: %.0f GFLOP/s on 1 thread; a GEMV does 2 flops per weight)\n",
           roofs_fma_gflops(1));
    printf("\n%-14s %-9s %3s %10s %9s %8s %9s\n", "shape", "weights", "thr", "time (us)", "GB/s", "% roof",
           "vs fp32");
    for (si = 0; si < 2; si++) {
        const shape *s = &shapes[si];
        size_t n = (size_t)s->dout * s->din, i;
        float *wsrc = (float *)xalloc(n * sizeof(float)), *x = (float *)xalloc((size_t)s->din * sizeof(float));
        float *y = (float *)xalloc((size_t)s->dout * sizeof(float));
        unsigned long long r = 0x9E3779B97F4A7C15ull;
        char label[32];
        for (i = 0; i < n; i++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            wsrc[i] = (float)((r >> 40) & 0xffff) / 65536.0f - 0.5f;
        }
        for (i = 0; i < (size_t)s->din; i++) x[i] = (float)(i % 97) / 97.0f - 0.5f;
        for (fi = 0; fi < NFORMATS; fi++) time_format(s, &formats[fi], wsrc, x, y, pools, npools, data, t[fi], &bytes[fi]);
        snprintf(label, sizeof label, "1x%dx%d", s->dout, s->din);
        for (nt = 1; nt <= npools; nt++)
            for (fi = 0; fi < NFORMATS; fi++) {
                double gbs = bytes[fi] / t[fi][nt - 1] / 1e9;
                printf("%-14s %-9s %3d %10.1f %9.1f %7.0f%% %8.2fx\n", label, formats[fi].name, nt, t[fi][nt - 1] * 1e6,
                       gbs, 100.0 * gbs / roof[nt], t[0][nt - 1] / t[fi][nt - 1]);
            }
        free(wsrc), free(x), free(y);
    }
    llm_threads_free(pools[1]);
    free(data);
    printf("\ntarget: int8 GEMV >= 1.8x faster than fp32 on the same matrix (int8 bytes include the scales)\n");
    return 0;
}
