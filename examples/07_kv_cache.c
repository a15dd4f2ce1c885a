/* 07_kv_cache.c: what the KV cache costs in memory, and the work it saves */
/* To generate token t a decoder needs the keys and values of tokens 0..t-1 in every
   layer. Keeping them (the KV cache) costs 2 * layers * kv_heads * head_dim numbers per
   token; recomputing them instead makes generation O(T^2) in projections and O(T^3) in
   attention. This program prints the cache size of a few well-known models (from llm.h's
   presets) and measures both ways of generating with llm.h's attention.
   Build: cc -O2 -I. examples/07_kv_cache.c -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GiB (1024.0 * 1024.0 * 1024.0)

int main(void) {
    static const char *names[] = {"gpt2", "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b",
                                  "llama-3-70b", "mistral-7b", "tinyllama-1.1b"};
    static const int lens[] = {128, 1024, 4096};
    enum { H = 32, HD = 128, TGEN = 256 };
    int i, t;
    float *q, *k, *v, *out;
    double t0, no_cache, cache;

    printf("KV cache per token = 2 (K and V) x layers x kv_heads x head_dim x bytes per value\n\n");
    printf("%-16s %6s %8s %8s %14s %8s %14s %14s\n", "model", "layers", "kv heads", "head_dim", "f16 B/token",
           "context", "f16 / sequence", "int8 / sequence");
    for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        const llm_config *c = llm_preset(names[i]);
        if (!c) continue;
        printf("%-16s %6d %8d %8d %14llu %8d %10.2f GiB %10.2f GiB\n", names[i], c->n_layers,
               c->n_kv_heads ? c->n_kv_heads : c->n_heads, c->head_dim ? c->head_dim : c->d_model / c->n_heads,
               (unsigned long long)llm_kv_cache_bytes(c, 1, 1, LLM_F16), c->max_seq_len,
               (double)llm_kv_cache_bytes(c, c->max_seq_len, 1, LLM_F16) / GiB,
               (double)llm_kv_cache_bytes(c, c->max_seq_len, 1, LLM_INT8) / GiB);
    }
    printf("\n(int8 = one byte per value plus one fp32 scale per row of head_dim values.)\n"
           "Grouped-query attention is the other lever: Llama 3 8B and Mistral 7B keep 8 KV heads\n"
           "for 32 query heads, a quarter of Llama 2 7B's cache at the same width.\n\n");

    printf("Generating T tokens, per layer: tokens whose K and V are computed, (query, key) pairs scored\n\n");
    printf("%6s %16s %16s %18s %18s\n", "T", "K/V, no cache", "K/V, cache", "pairs, no cache", "pairs, cache");
    for (i = 0; i < 3; i++) {
        double n = lens[i];
        /* no cache: step t re-projects t tokens and re-runs causal attention over them */
        printf("%6d %16.0f %16.0f %18.0f %18.0f\n", lens[i], n * (n + 1) / 2, n, n * (n + 1) * (n + 2) / 6,
               n * (n + 1) / 2);
    }

    /* Measured: one layer of Llama 2 7B's attention (32 heads of 128), T = 256 steps. */
    q = (float *)malloc(sizeof(float) * TGEN * H * HD);
    k = (float *)malloc(sizeof(float) * TGEN * H * HD);
    v = (float *)malloc(sizeof(float) * TGEN * H * HD);
    out = (float *)malloc(sizeof(float) * TGEN * H * HD);
    if (!q || !k || !v || !out) return 1;
    for (i = 0; i < TGEN * H * HD; i++) {
        q[i] = (float)((i * 7) % 101) / 101.0f - 0.5f;
        k[i] = (float)((i * 13) % 103) / 103.0f - 0.5f;
        v[i] = (float)((i * 17) % 107) / 107.0f - 0.5f;
    }
    /* K/V are head-major with capacity TGEN: the layout of one layer of llm_kv_cache */
    t0 = (double)clock() / CLOCKS_PER_SEC;
    for (t = 1; t <= TGEN; t++) /* no cache: all t queries again at every step */
        if (llm_attention(out, q, k, v, t, t, TGEN, H, H, HD, NULL) != LLM_OK) return 1;
    no_cache = (double)clock() / CLOCKS_PER_SEC - t0;
    t0 = (double)clock() / CLOCKS_PER_SEC;
    for (t = 1; t <= TGEN; t++) /* cache: only the newest query, over the stored keys */
        if (llm_attention(out, q + (size_t)(t - 1) * H * HD, k, v, 1, t, TGEN, H, H, HD, NULL) != LLM_OK) return 1;
    cache = (double)clock() / CLOCKS_PER_SEC - t0;
    printf("\nMeasured, attention only, one Llama-2-7B layer (32 heads x 128), T = %d, one thread:\n"
           "  without cache %.3f s, with cache %.4f s: %.0fx faster (and the K/V projections\n"
           "  a model would also redo without the cache are not even counted here).\n",
           TGEN, no_cache, cache, no_cache / (cache > 0 ? cache : 1e-9));
    free(q), free(k), free(v), free(out);
    return 0;
}
