/* 04_matmul.c: prefill is compute-bound, decode is memory-bound (measured) */
/* A linear layer y = x W^T with n tokens, W [d_out][d_in] in fp32, does 2 n d_in d_out
   FLOP (a multiply and an add per weight per token) but reads W, 4 d_in d_out bytes, only
   once however large n is. Its arithmetic intensity is therefore n / 2 FLOP per byte.
   A core can stream B bytes/s from memory and do P FLOP/s; while n / 2 < P / B (the
   "machine balance") the layer waits for memory, above it for the arithmetic. Prefill
   pushes the whole prompt through at once (large n); decode makes one token (n = 1).
   This example times llm_linear itself on one core of this machine, n = 1..128, and draws
   the roofline through its own two extremes: the bandwidth it reaches at n = 1 and its
   best GFLOP/s. Those are llm_linear's speeds, not the machine's roofs (make bench
   measures those, with a 1 GiB read and an FMA loop: bench/roofs.h), so n = 1 is 100 %
   of its line by construction; the other rows show how the kernel moves between them.

   Timing uses clock() (C99, CPU time of this process): right for one thread (a core
   stalled on memory still counts as busy), and not inflated by time other programs hold
   the core, though they can share its memory bandwidth. Each figure is the best of 3
   runs of at least 50 ms each.

   build: cc -std=c99 -O2 -march=native -I. examples/04_matmul.c -o 04_matmul -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define D 4096   /* d_in = d_out = 4096: W is 64 MiB in fp32, twice a Zen 5 core's 32 MiB L3 */
#define NMAX 128
#define GROUP 32 /* int8 group: 32 int8 values share one fp32 scale */
#define COPIES 4 /* int8 W (18 MiB) could stay in L3: rotate 4 copies so it streams too */

typedef struct {
    float *y, *x, *W;     /* fp32 layer */
    llm_weight q[COPIES]; /* the same W quantized to int8, COPIES times */
} bench;

/* one call: fp32 when q == 0, else the int8 copy `call` rotates to */
static void run(bench *b, int n, int q, long call) {
    if (q) llm_linear_w(b->y, b->x, &b->q[call % COPIES], NULL, n, D, D, NULL);
    else llm_linear(b->y, b->x, b->W, NULL, n, D, D, NULL);
}

/* seconds per call: repeat until 50 ms of CPU time pass, best of 3 such runs */
static double per_call(bench *b, int n, int q) {
    double best = 1e30, sec;
    int rep;
    run(b, n, q, 0); /* warm-up: page in the buffers */
    for (rep = 0; rep < 3; rep++) {
        clock_t t0 = clock(), t;
        long calls = 0;
        do run(b, n, q, calls++);
        while ((t = clock()) - t0 < CLOCKS_PER_SEC / 20);
        sec = (double)(t - t0) / CLOCKS_PER_SEC / (double)calls;
        if (sec < best) best = sec;
    }
    return best;
}

int main(void) {
    static const int ns[] = {1, 2, 4, 8, 16, 32, 64, 128};
    const double wbytes = 4.0 * D * D, qbytes = (1.0 + 4.0 / GROUP) * D * D; /* bytes of W streamed per call */
    double t[8], gbs1, peak = 0, tq;
    bench b;
    int8_t *qd[COPIES];
    float *qs[COPIES];
    llm_params p = llm_count_params(llm_preset("llama-2-7b"));
    size_t i;
    int k;

    b.W = (float *)malloc(sizeof(float) * D * D);
    b.x = (float *)malloc(sizeof(float) * NMAX * D);
    b.y = (float *)malloc(sizeof(float) * NMAX * D);
    if (!b.W || !b.x || !b.y) return 1;
    for (i = 0; i < (size_t)D * D; i++) b.W[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f; /* any values do */
    for (i = 0; i < (size_t)NMAX * D; i++) b.x[i] = (float)(i % 17) / 17.0f - 0.5f;
    for (k = 0; k < COPIES; k++) { /* llm_quantize_int8: q = round(w / s), s = max|w| / 127 per group */
        qd[k] = (int8_t *)malloc((size_t)D * D);
        qs[k] = (float *)malloc(sizeof(float) * D * D / GROUP);
        if (!qd[k] || !qs[k]) return 1;
        if (k == 0 && llm_quantize_int8(qd[0], qs[0], b.W, (int64_t)D * D, GROUP) != LLM_OK) return 1;
        if (k > 0) memcpy(qd[k], qd[0], (size_t)D * D), memcpy(qs[k], qs[0], sizeof(float) * D * D / GROUP);
        b.q[k].type = LLM_INT8; b.q[k].data = qd[k]; b.q[k].scale = qs[k]; b.q[k].group_size = GROUP;
    }

    /* 1. fp32 weights, n = 1 .. 128 tokens through one 4096 x 4096 layer, one core */
    for (k = 0; k < 8; k++) {
        t[k] = per_call(&b, ns[k], 0);
        if (2.0 * ns[k] * D * D / t[k] / 1e9 > peak) peak = 2.0 * ns[k] * D * D / t[k] / 1e9;
    }
    /* llm_linear's own extremes: its bandwidth at n = 1 (arithmetic nearly free there) and
       its best n. The roofline through them is min(best, FLOP/byte x that bandwidth); a row
       short of it is the kernel changing regime, not the machine's limit. */
    gbs1 = wbytes / t[0] / 1e9;
    printf("y = x W^T, W %d x %d fp32 (%.1f MiB), one core, n tokens per call (GB = 1e9 B)\n", D, D, wbytes / 1048576);
    printf("  %4s %9s %8s %8s %10s %17s\n", "n", "FLOP/byte", "ms/call", "GFLOP/s", "GB/s of W", "own line GFLOP/s");
    for (k = 0; k < 8; k++) {
        double flop = 2.0 * ns[k] * D * D, roof = flop / wbytes * gbs1 < peak ? flop / wbytes * gbs1 : peak;
        printf("  %4d %9.1f %8.3f %8.1f %10.1f %9.1f (%3.0f %%)\n", ns[k], flop / wbytes, 1e3 * t[k], flop / t[k] / 1e9,
               wbytes / t[k] / 1e9, roof, 100 * flop / t[k] / 1e9 / roof);
    }
    printf("  llm_linear's own extremes (not the machine's roofs: make bench measures those):\n");
    printf("  %.1f GB/s of W at n = 1, %.1f GFLOP/s at its best n\n", gbs1, peak);
    printf("  their balance, %.1f FLOP/byte: below n = %.0f tokens this layer waits for memory\n\n", peak / gbs1,
           2 * peak / gbs1);

    /* 2. decode (n = 1) with int8 weights: the same layer reads ~3.6x fewer bytes */
    tq = per_call(&b, 1, 1);
    printf("int8 weights, group %d: %.3f bytes per weight (%.1f MiB) instead of 4\n", GROUP, qbytes / (D * D),
           qbytes / 1048576);
    printf("  n = 1: %.3f ms/call, %.1f GB/s of W, %.2fx faster than fp32 (bytes ratio %.2fx)\n\n", 1e3 * tq,
           qbytes / tq / 1e9, t[0] / tq, wbytes / qbytes);

    /* 3. A whole model: every decode step reads every weight once, so
       tokens/s <= bandwidth / bytes of weights, whatever the FLOP/s. */
    printf("llama-2-7b (%llu parameters), decode bound at llm_linear's n = 1 speed, %.1f GB/s on one core:\n",
           (unsigned long long)p.total, gbs1);
    printf("  fp32 (4 B):      %6.2f tok/s  (%.1f GB)\n", gbs1 * 1e9 / (4.0 * (double)p.total), 4e-9 * (double)p.total);
    printf("  f16  (2 B):      %6.2f tok/s  (%.1f GB)\n", gbs1 * 1e9 / (2.0 * (double)p.total), 2e-9 * (double)p.total);
    printf("  int8 (1.125 B):  %6.2f tok/s  (%.1f GB)\n", gbs1 * 1e9 / (1.125 * (double)p.total),
           1.125e-9 * (double)p.total);
    printf("  batching B sequences shares each weight read across B tokens: from B = %.0f on, compute-bound\n",
           2 * peak / gbs1);

    for (k = 0; k < COPIES; k++) free(qd[k]), free(qs[k]);
    free(b.W), free(b.x), free(b.y);
    return 0;
}
