/* 01_params.c: counting parameters exactly, component by component */
/* Where do a transformer's parameters live? llm_count_params adds them up from the
   architecture alone: an embedding table (V x d), per block the attention projections
   (Q, K, V, O) and the FFN (two matrices for GPT-2's MLP, three for Llama's SwiGLU),
   small norm vectors, and an LM head unless it is tied to the embedding.
   The published counts are printed beside llm.h's; they must agree to the last parameter.

   build: cc -std=c99 -I. examples/01_params.c -o 01_params -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>

/* 6738415616 -> "6,738,415,616", so the counts read like the papers print them */
static const char *commas(uint64_t v) {
    static char buf[4][32]; /* a few at once in one printf */
    static int k;
    char tmp[32], *out = buf[k++ & 3];
    int n = sprintf(tmp, "%llu", (unsigned long long)v), i, o = 0;
    for (i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = tmp[i];
    }
    out[o] = 0;
    return out;
}

/* one row: a component, its count, its share of the whole */
static void row(const char *what, uint64_t n, uint64_t total) {
    printf("  %-30s %15s  %5.1f %%\n", what, commas(n), 100.0 * (double)n / (double)total);
}

static void breakdown(const char *name, uint64_t published) {
    const llm_config *c = llm_preset(name);
    llm_params p = llm_count_params(c);
    uint64_t L = (uint64_t)c->n_layers;
    printf("\n%s: d = %d, %d layers, %d heads (%d KV), FFN %d, vocab %d\n", c->name, c->d_model, c->n_layers,
           c->n_heads, c->n_kv_heads, c->d_ff, c->vocab);
    row("token embedding (V d)", p.embedding, p.total);
    if (p.positions) row("learned positions (ctx d)", p.positions, p.total);
    row("attention, all layers", p.attention, p.total);
    row("FFN, all layers", p.ffn, p.total);
    row("norms (2 per layer + final)", p.norm, p.total);
    if (p.lm_head) row("LM head (V d, untied)", p.lm_head, p.total);
    else printf("  %-30s %15s\n", "LM head", "tied: shared");
    printf("  %-30s %15s   (%s attention + %s FFN + %s norm)\n", "one block", commas(p.per_layer),
           commas(p.attention / L), commas(p.ffn / L), commas(p.per_layer - p.attention / L - p.ffn / L));
    printf("  %-30s %15s   published %s: %s\n", "total", commas(p.total), commas(published),
           p.total == published ? "exact" : "MISMATCH");
}

int main(void) {
    llm_params g;
    const llm_config *gpt2 = llm_preset("gpt2");

    /* Llama 2: no biases, RMSNorm (d weights each), SwiGLU (3 d ff per block), untied.
       One 7B block is 4 d^2 = 67M in attention and 3 d ff = 135M in the FFN. */
    breakdown("llama-2-7b", 6738415616ull);
    breakdown("llama-2-13b", 13015864320ull);

    /* GPT-2 small: biases everywhere, LayerNorm with bias, a 4d GELU MLP, tied head,
       learned positions. A small model spends a lot on its vocabulary. */
    breakdown("gpt2", 124439808ull);
    g = llm_count_params(gpt2);
    printf("\nGPT-2 small, as the literature puts it:\n");
    printf("  token embedding share           %5.1f %%   (literature: 31 %%)\n", 100.0 * g.embedding / g.total);
    printf("  FFN share of one block          %5.1f %%   (literature: 67 %%: 8 d^2 of 12 d^2)\n",
           100.0 * (g.ffn / 12) / g.per_layer);

    /* Weight tying (Press & Wolf 2017): the LM head reuses the embedding matrix, so an
       untied GPT-2 small would hold a second V x d matrix. Counted both ways. */
    {
        llm_config untied = *gpt2;
        llm_params u;
        untied.tied_embeddings = 0;
        u = llm_count_params(&untied);
        printf("\nweight tying, GPT-2 small counted with and without it:\n");
        printf("  untied %s, tied %s: the tie saves %s (literature: 38.6 M)\n", commas(u.total), commas(g.total),
               commas(u.total - g.total));
        printf("  = %.1f %% of the tied model's parameters (literature: 31 %%), %.1f %% of the untied model's\n",
               100.0 * (double)(u.total - g.total) / (double)g.total, 100.0 * (double)(u.total - g.total) / (double)u.total);
    }

    /* Kaplan et al.'s N leaves out embeddings, biases and norms: N = 12 L d^2 for GPT.
       It is the N in "training costs 6 N FLOPs per token" (see 02_flops). */
    printf("\nnon-embedding N (the blocks' matrices only):\n");
    printf("  gpt2        %15s   (literature: 84,934,656 = 12 L d^2)\n", commas(g.non_embedding));
    printf("  llama-2-7b  %15s   (literature: 6,476,005,376)\n", commas(llm_count_params(llm_preset("llama-2-7b")).non_embedding));

    /* Mixture of experts: every expert is stored, only the routed ones run. */
    g = llm_count_params(llm_preset("mixtral-8x7b"));
    printf("\nmixtral-8x7b: %s stored, %s active per token (2 of 8 experts)\n", commas(g.total), commas(g.active));
    return 0;
}
