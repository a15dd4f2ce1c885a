/* roofs.h: this machine's own ceilings, measured in the same run as the benchmarks that
   are compared against them. Include after llm.h (with LLM_IMPLEMENTATION):

     roofs_now()              wall-clock seconds
     roofs_fma_gflops(n)      peak fp32 FMA throughput with n threads, for the ISA this file
                              was compiled for (AVX-512, AVX2+FMA, NEON or scalar)
     roofs_dot8_gops(n)       peak int8 dot-product throughput with n threads (AVX-512 VNNI
                              vpdpbusd, AVX-VNNI, NEON sdot), in Gop/s counting a multiply and
                              its add as 2 ops like an FMA; 0 where the build has no int8 dot
                              instruction (ggml's formats' kernels compute on int8 codes)
     roofs_dot8_block_gops(n, min)   the same dots in a block format kernel's loop: per
                              block of 32 and token, 8 activation words broadcast from L1,
                              a scale multiply and an FMA (min: and a min term's FMA); the
                              ceiling those kernels can reach
     roofs_read_gbs(n)        read bandwidth with n threads over a 1 GiB buffer (far larger
                              than any last-level cache), GB/s = 1e9 bytes/s
     roofs_reader_gbs(r, th)  one pass of the same over a buffer kept in r (roofs_reader_init
                              / _free), on pool th: a sample beside each measurement
     roofs_cpu_seconds(th)    CPU seconds used so far by the threads of pool th (NULL: this
                              thread); with the wall time, the share of the cores a run had

   The FMA roof keeps 16 independent accumulators in registers: enough to cover the FMA
   latency (4 cycles) on two pipes. The bandwidth roof sums the buffer with vector loads
   and several independent sums, best of 3 passes; each pass is the fastest of three reads:
   one by loads alone, one that also asks for the first line of each 4 KiB page 16 KiB
   ahead (llm.h's weight streams do: on the Zen 5 VMs a read so asked ran 1.4-1.6x the
   plain one), and one that reads a thread's share as four streams side by side (on the
   Zen 3 VMs one thread read 4 streams up to 1.2x faster than one; AVX2's one-token
   repacked GEMV reads so: bench/NOTES.md), so a kernel is held to the best read this
   machine has shown.
   Needs POSIX (clock_gettime, posix_memalign): the Makefile builds benchmarks with
   -D_POSIX_C_SOURCE=200809L. */
#ifndef LLM_ROOFS_H
#define LLM_ROOFS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double roofs_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Each thread of the pool reads its own CPU clock. The process clock
   (CLOCK_PROCESS_CPUTIME_ID) adds another thread's current time slice only when that
   thread is next descheduled or ticked, so over a 2 ms call it showed 50 % for two threads
   that were both busy; a thread's own clock is exact. */
static inline void roofs__cpu_task(void *p, int ith, int nth) {
    struct timespec ts;
    (void)nth;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    ((double *)p)[ith & 63] = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline double roofs_cpu_seconds(llm_threads *th) { /* inline: not every bench uses it */
    double t[64], sum = 0;
    int i, n = llm_threads_count(th) < 64 ? llm_threads_count(th) : 64;
    llm_threads_run(th, roofs__cpu_task, t);
    for (i = 0; i < n; i++) sum += t[i];
    return sum;
}

static const char *roofs_isa(void) {
#if defined(LLM__AVX512)
    return "AVX-512";
#elif defined(LLM__AVX2)
    return "AVX2+FMA";
#elif defined(LLM__NEON)
    return "NEON";
#else
    return "scalar";
#endif
}

#define ROOFS_FMA_ITERS 20000000L
typedef struct {
    double flops;
    float sink;
} roofs__fma_ctx;

static void roofs__fma_task(void *p, int ith, int nth) {
    roofs__fma_ctx *ctx = (roofs__fma_ctx *)p;
    long it;
    float s = 0;
    (void)nth;
#if defined(LLM__AVX512)
    __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f), r[16];
    int i;
    for (i = 0; i < 16; i++) r[i] = _mm512_set1_ps((float)i);
    for (it = 0; it < ROOFS_FMA_ITERS; it++)
        for (i = 0; i < 16; i++) r[i] = _mm512_fmadd_ps(r[i], a, b);
    for (i = 0; i < 16; i++) s += _mm512_reduce_add_ps(r[i]);
    if (ith == 0) ctx->flops = 2.0 * 16 * 16 * (double)ROOFS_FMA_ITERS;
#elif defined(LLM__AVX2)
    __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f), r[12];
    float tmp[8];
    int i, j;
    for (i = 0; i < 12; i++) r[i] = _mm256_set1_ps((float)i);
    for (it = 0; it < ROOFS_FMA_ITERS; it++)
        for (i = 0; i < 12; i++) r[i] = _mm256_fmadd_ps(r[i], a, b);
    for (i = 0; i < 12; i++) {
        _mm256_storeu_ps(tmp, r[i]);
        for (j = 0; j < 8; j++) s += tmp[j];
    }
    if (ith == 0) ctx->flops = 2.0 * 8 * 12 * (double)ROOFS_FMA_ITERS;
#elif defined(LLM__NEON)
    float32x4_t a = vdupq_n_f32(0.999999f), b = vdupq_n_f32(1e-6f), r[16];
    int i;
    for (i = 0; i < 16; i++) r[i] = vdupq_n_f32((float)i);
    for (it = 0; it < ROOFS_FMA_ITERS / 4; it++)
        for (i = 0; i < 16; i++) r[i] = vfmaq_f32(b, r[i], a);
    for (i = 0; i < 16; i++) s += vaddvq_f32(r[i]);
    if (ith == 0) ctx->flops = 2.0 * 4 * 16 * (double)(ROOFS_FMA_ITERS / 4);
#else
    float r[8];
    int i;
    for (i = 0; i < 8; i++) r[i] = (float)i;
    for (it = 0; it < ROOFS_FMA_ITERS / 8; it++)
        for (i = 0; i < 8; i++) r[i] = r[i] * 0.999999f + 1e-6f;
    for (i = 0; i < 8; i++) s += r[i];
    if (ith == 0) ctx->flops = 2.0 * 8 * (double)(ROOFS_FMA_ITERS / 8);
#endif
    if (ith == 0) ctx->sink = s;
}

/* Peak G(FL)OP/s of a register-only loop that every thread runs; best of 3. */
static double roofs__peak(void (*task)(void *, int, int), int threads) {
    llm_threads *th = NULL;
    roofs__fma_ctx ctx;
    double best = 0;
    int rep;
    if (threads > 1 && llm_threads_create(&th, threads) != LLM_OK) return 0;
    for (rep = 0; rep < 3; rep++) {
        double t0 = roofs_now(), t;
        llm_threads_run(th, task, &ctx);
        t = roofs_now() - t0;
        if (ctx.flops * threads / t > best) best = ctx.flops * threads / t;
    }
    if (ctx.sink == 12345.f) printf(" ");
    llm_threads_free(th);
    return best * 1e-9;
}
/* Peak GFLOP/s. */
static double roofs_fma_gflops(int threads) { return roofs__peak(roofs__fma_task, threads); }

/* The int8 dot roof: 16 independent int32 accumulators, each instruction 4 products per
   32-bit lane (vpdpbusd: unsigned x signed bytes; sdot: signed x signed). */
static inline void roofs__dot8_task(void *p, int ith, int nth) {
    roofs__fma_ctx *ctx = (roofs__fma_ctx *)p;
    long it;
    int sum = 0, i;
    (void)nth;
#if defined(LLM__AVX512) && defined(__AVX512VNNI__) && defined(__GNUC__)
    /* in asm, on named variables: as intrinsics gcc copied each accumulator twice per
       instruction (the destination is also a source), and an array's went through memory:
       460 Gop/s on Zen 5 against 918 so */
    __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
#define ROOFS__R(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define ROOFS__DECL(n) __m512i r##n = _mm512_set1_epi32(n);
#define ROOFS__DOT(n) __asm__("vpdpbusd %2, %1, %0" : "+v"(r##n) : "v"(a), "v"(b));
#define ROOFS__SUM(n) sum += _mm512_reduce_add_epi32(r##n);
    ROOFS__R(ROOFS__DECL) /* named, not an array: an array's elements went through memory */
    for (it = 0; it < ROOFS_FMA_ITERS; it++) {
        ROOFS__R(ROOFS__DOT)
    }
    ROOFS__R(ROOFS__SUM)
    (void)i;
    if (ith == 0) ctx->flops = 2.0 * 64 * 16 * (double)ROOFS_FMA_ITERS;
#elif (defined(LLM__AVX2) || defined(LLM__AVX512)) && defined(__AVXVNNI__) && defined(__GNUC__)
    __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-2);
    int tmp[8], j;
#define ROOFS__R(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define ROOFS__DECL(n) __m256i r##n = _mm256_set1_epi32(n);
#define ROOFS__DOT(n) __asm__("{vex} vpdpbusd %2, %1, %0" : "+x"(r##n) : "x"(a), "x"(b));
#define ROOFS__SUM(n) _mm256_storeu_si256((__m256i *)(void *)tmp, r##n); for (j = 0; j < 8; j++) sum += tmp[j];
    ROOFS__R(ROOFS__DECL)
    for (it = 0; it < ROOFS_FMA_ITERS; it++) {
        ROOFS__R(ROOFS__DOT)
    }
    ROOFS__R(ROOFS__SUM)
    (void)i;
    if (ith == 0) ctx->flops = 2.0 * 32 * 12 * (double)ROOFS_FMA_ITERS;
#elif defined(LLM__NEON) && defined(__ARM_FEATURE_DOTPROD)
    int8x16_t a = vdupq_n_s8(3), b = vdupq_n_s8(-2);
    int32x4_t r[16];
    for (i = 0; i < 16; i++) r[i] = vdupq_n_s32(i);
    for (it = 0; it < ROOFS_FMA_ITERS / 4; it++)
        for (i = 0; i < 16; i++) r[i] = vdotq_s32(r[i], a, b);
    for (i = 0; i < 16; i++) sum += vaddvq_s32(r[i]);
    if (ith == 0) ctx->flops = 2.0 * 16 * 16 * (double)(ROOFS_FMA_ITERS / 4);
#else
    (void)it, (void)i;
    if (ith == 0) ctx->flops = 0;
#endif
    if (ith == 0) ctx->sink = (float)sum;
}

/* Peak int8 dot Gop/s (2 ops a product), best of 3; 0 without an int8 dot instruction. */
static inline double roofs_dot8_gops(int threads) { return roofs__peak(roofs__dot8_task, threads); } /* inline: not every bench uses it */

/* The int8 dot as a block format's kernel can use it: a ceiling for those kernels beside
   the bare roof above. 8 tokens; per token and block of 32 values, 8 dots of activation
   words broadcast from L1 (a load each) against 8 code vectors held in registers, in 2
   chains; the int32 sums to float, times the weight scale times the token's (a multiply),
   added to the token's sums (an FMA); with_min also the min term's FMA (Q4_1, Q5_1, Q4_K,
   Q5_K). The weights' own loads and unpacking are left out: a kernel is below this. 0
   without AVX-512 VNNI. */
static inline void roofs__blk(roofs__fma_ctx *ctx, int ith, int with_min) {
#if defined(LLM__AVX512) && defined(__AVX512VNNI__) && defined(__GNUC__)
    /* named variables, as in the dot roof: in arrays gcc kept the sums in memory */
    int32_t xw[8][8];
    float xd[8][2], s = 0;
    const __m512 w = _mm512_set1_ps(1e-3f), m = _mm512_set1_ps(-1e-3f);
    long it;
    int t, k;
#define ROOFS__T(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ROOFS__BDECL(n) __m512i c##n = _mm512_set1_epi8((char)(n + 1)); __m512 y##n = _mm512_setzero_ps();
#define ROOFS__BTOK(n)                                                                                                      \
    {                                                                                                                       \
        __m512i a0 = _mm512_setzero_si512(), a1 = a0;                                                                       \
        a0 = _mm512_dpbusd_epi32(a0, c0, _mm512_set1_epi32(xw[n][0])), a1 = _mm512_dpbusd_epi32(a1, c1, _mm512_set1_epi32(xw[n][1])); \
        a0 = _mm512_dpbusd_epi32(a0, c2, _mm512_set1_epi32(xw[n][2])), a1 = _mm512_dpbusd_epi32(a1, c3, _mm512_set1_epi32(xw[n][3])); \
        a0 = _mm512_dpbusd_epi32(a0, c4, _mm512_set1_epi32(xw[n][4])), a1 = _mm512_dpbusd_epi32(a1, c5, _mm512_set1_epi32(xw[n][5])); \
        a0 = _mm512_dpbusd_epi32(a0, c6, _mm512_set1_epi32(xw[n][6])), a1 = _mm512_dpbusd_epi32(a1, c7, _mm512_set1_epi32(xw[n][7])); \
        y##n = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(a0, a1)), _mm512_mul_ps(w, _mm512_set1_ps(xd[n][0])), y##n); \
        if (with_min) y##n = _mm512_fmadd_ps(m, _mm512_set1_ps(xd[n][1]), y##n);                                          \
    }
#define ROOFS__BSUM(n) s += _mm512_reduce_add_ps(y##n);
    ROOFS__T(ROOFS__BDECL)
    for (t = 0; t < 8; t++) {
        for (k = 0; k < 8; k++) xw[t][k] = 0x01010101 * ((t + k) % 7);
        xd[t][0] = xd[t][1] = 1e-6f;
    }
    __asm__("" : : "r"(&xw[0][0]), "r"(&xd[0][0]) : "memory"); /* their values unknown to the compiler */
    for (it = 0; it < ROOFS_FMA_ITERS / 8; it++) {
        ROOFS__T(ROOFS__BTOK)
        /* the codes and (memory) the activations "change" every pass: the dots, the loads
           of the activations and their scales' multiplies stay in the loop, as in a kernel */
        __asm__("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), "+v"(c7) : : "memory");
    }
    ROOFS__T(ROOFS__BSUM)
    if (ith == 0) ctx->flops = 2.0 * 64 * 64 * (double)(ROOFS_FMA_ITERS / 8), ctx->sink = s;
#else
    (void)with_min;
    if (ith == 0) ctx->flops = 0, ctx->sink = 0;
#endif
}
static inline void roofs__blk_task(void *p, int ith, int nth) { (void)nth, roofs__blk((roofs__fma_ctx *)p, ith, 0); }
static inline void roofs__blkmin_task(void *p, int ith, int nth) { (void)nth, roofs__blk((roofs__fma_ctx *)p, ith, 1); }
/* That ceiling in Gop/s (2 ops a product), best of 3; 0 where the build has no VNNI. */
static inline double roofs_dot8_block_gops(int threads, int with_min) {
    return roofs__peak(with_min ? roofs__blkmin_task : roofs__blk_task, threads);
}

typedef struct {
    const float *buf;
    size_t n;
    int ask; /* 1: ask for each 4 KiB page's first line 16 KiB ahead; 2: read four streams */
    float sink[64];
} roofs__bw_ctx;

static void roofs__bw_task(void *p, int ith, int nth) {
    roofs__bw_ctx *ctx = (roofs__bw_ctx *)p;
    size_t chunk = ctx->n / (size_t)nth / 64 * 64, i0 = chunk * (size_t)ith, i;
    const float *x = ctx->buf + i0;
    float s = 0;
    if (ctx->ask == 2) { /* the thread's share in quarters, two lines of each in turn */
        const size_t q = chunk / 4 / 32 * 32;
        float a[4][32] = {{0}};
        int j, k;
        for (i = 0; i < q; i += 32)
            for (k = 0; k < 4; k++)
                for (j = 0; j < 32; j++) a[k][j] += x[(size_t)k * q + i + (size_t)j];
        for (k = 0; k < 4; k++)
            for (j = 0; j < 32; j++) s += a[k][j];
        ctx->sink[ith & 63] = s;
        return;
    }
#if defined(LLM__AVX512)
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (i = 0; i < chunk; i += 64) {
        if (ctx->ask && i % 1024 == 0 && i + 5120 < chunk) LLM__PREFETCH((const char *)((uintptr_t)(x + i + 4096) & ~(uintptr_t)4095));
        a0 = _mm512_add_ps(a0, _mm512_load_ps(x + i));
        a1 = _mm512_add_ps(a1, _mm512_load_ps(x + i + 16));
        a2 = _mm512_add_ps(a2, _mm512_load_ps(x + i + 32));
        a3 = _mm512_add_ps(a3, _mm512_load_ps(x + i + 48));
    }
    s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
#elif defined(LLM__AVX2)
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    float tmp[8];
    int j;
    for (i = 0; i < chunk; i += 32) {
        if (ctx->ask && i % 1024 == 0 && i + 5120 < chunk) LLM__PREFETCH((const char *)((uintptr_t)(x + i + 4096) & ~(uintptr_t)4095));
        a0 = _mm256_add_ps(a0, _mm256_load_ps(x + i));
        a1 = _mm256_add_ps(a1, _mm256_load_ps(x + i + 8));
        a2 = _mm256_add_ps(a2, _mm256_load_ps(x + i + 16));
        a3 = _mm256_add_ps(a3, _mm256_load_ps(x + i + 24));
    }
    _mm256_storeu_ps(tmp, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
    for (j = 0; j < 8; j++) s += tmp[j];
#else
    float a[8] = {0};
    int j;
    for (i = 0; i < chunk; i += 8)
        for (j = 0; j < 8; j++) a[j] += x[i + j];
    for (j = 0; j < 8; j++) s += a[j];
#endif
    ctx->sink[ith & 63] = s;
}

/* A buffer to sample the read bandwidth from, beside each measurement on a host whose
   bandwidth drifts while a benchmark runs */
typedef struct {
    float *buf;
    size_t bytes;
} roofs_reader;
static int roofs_reader_init(roofs_reader *r, size_t bytes) {
    size_t i;
    r->bytes = bytes;
    if (posix_memalign((void **)&r->buf, 64, bytes) != 0) return 0;
    for (i = 0; i < bytes / sizeof(float); i++) r->buf[i] = (float)(i & 1023) * 1e-3f;
    return 1;
}
static void roofs_reader_free(roofs_reader *r) { free(r->buf), r->buf = NULL; }
/* GB/s of one pass over the buffer on pool th (NULL: this thread): the fastest of a pass
   by loads alone, one that also asks ahead page by page and one of four streams */
static double roofs_reader_gbs(const roofs_reader *r, llm_threads *th) {
    roofs__bw_ctx ctx;
    double best = 0;
    int ask;
    ctx.buf = r->buf;
    ctx.n = r->bytes / sizeof(float);
    for (ask = 0; ask < 3; ask++) {
        double t0 = roofs_now(), t;
        ctx.ask = ask;
        llm_threads_run(th, roofs__bw_task, &ctx);
        t = roofs_now() - t0;
        if (ctx.sink[0] == 12345.f) printf(" ");
        if ((double)r->bytes / t * 1e-9 > best) best = (double)r->bytes / t * 1e-9;
    }
    return best;
}

/* Read bandwidth in GB/s (1e9 B/s) over a 1 GiB buffer split between the threads, best of 3. */
static double roofs_read_gbs(int threads) {
    llm_threads *th = NULL;
    roofs_reader r;
    double best = 0;
    int rep;
    if (!roofs_reader_init(&r, (size_t)1 << 30)) return 0;
    if (threads > 1 && llm_threads_create(&th, threads) != LLM_OK) {
        roofs_reader_free(&r);
        return 0;
    }
    for (rep = 0; rep < 3; rep++) {
        double g = roofs_reader_gbs(&r, th);
        if (g > best) best = g;
    }
    llm_threads_free(th);
    roofs_reader_free(&r);
    return best;
}
#endif
