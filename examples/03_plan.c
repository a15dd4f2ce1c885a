/* 03_plan.c: will Llama 2 13B serve 8 or 16 sequences of 4096 tokens on one A100 80GB? And what training keeps */
/* Inference memory is three lines: the weights (2 bytes per parameter in fp16), the KV
   cache (for every layer, a key and a value vector per KV head per token: 2 L H_kv
   head_dim bytes x tokens), and an allowance for the CUDA context and scratch. The
   theory works this example with rounded numbers and a mix of GB (1e9 B) and GiB
   (2^30 B); llm_plan_evaluate does it exactly. Both are printed, with what the
   difference means for the verdict.
   Training keeps more: 16 bytes of weights, gradients and Adam state per parameter,
   which ZeRO shards over the data-parallel GPUs, and the activations of the forward
   pass, most of them the T x T attention matrices that flash attention never stores.

   build: cc -std=c99 -I. examples/03_plan.c -o 03_plan -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>

#define GB 1e9           /* what disk makers and this example's "GB" mean */
#define GIB 1073741824.0 /* 2^30: what GPU makers mean by "80 GB" */

static void show(int64_t batch, double theory) {
    llm_plan p = llm_plan_default(); /* fp16 weights and KV, one GPU, 2 GB overhead */
    llm_plan_result r;
    const char *why;
    int i;
    p.model = llm_preset("llama-2-13b");
    p.gpu = llm_gpu_preset("a100-80gb");
    p.batch = batch;
    p.seq_len = 4096;
    if (llm_plan_evaluate(&p, &r, &why) != LLM_OK) {
        printf("error: %s\n", why);
        return;
    }
    printf("\nbatch %lld x 4096 tokens = %lld tokens in the KV cache\n", (long long)batch, (long long)batch * 4096);
    for (i = 0; i < r.n_lines; i++)
        printf("  %-10s %8.2f GB  %8.2f GiB\n", r.line[i].name, r.line[i].bytes / GB, r.line[i].bytes / GIB);
    printf("  %-10s %8.2f GB  %8.2f GiB\n", "total", r.total_bytes / GB, r.total_bytes / GIB);
    printf("  exactly %.1f GB; the theory says %.1f \"GB\"\n", r.total_bytes / GB, theory);
    printf("  of the card's %.2f GB (= %.0f GiB): %.1f %% used -> %s\n", r.capacity_bytes / GB,
           r.capacity_bytes / GIB, 100 * r.used, llm_verdict_str(r.verdict));
    printf("  decode: >= %.1f ms per step (%.0f GB/s), so <= %.0f tokens/s in total\n", 1e3 * r.decode_seconds,
           p.gpu->bandwidth_gbs, (double)batch / r.decode_seconds);
    for (i = 0; i < r.n_advice; i++) /* only when it is tight or does not fit */
        if (r.advice[i].kind == LLM_ADVICE_BATCH) /* r.advice[i].value is the new batch */
            printf("  advice: batch %lld (the largest under 90 %%) -> %.1f GB, %s\n", (long long)r.advice[i].value,
                   r.advice[i].total_bytes / GB, llm_verdict_str(r.advice[i].verdict));
        else if (r.advice[i].kind == LLM_ADVICE_KV_DTYPE)
            printf("  advice: %s (int8 + an fp32 scale per row) -> %.1f GB, %s\n", llm_advice_str(r.advice[i].kind),
                   r.advice[i].total_bytes / GB, llm_verdict_str(r.advice[i].verdict));
}

/* Training memory, the literature's two worked examples. */
static void training(void) {
    /* ZeRO (Rajbhandari et al. 2020), Psi = 7.5 B parameters on N_d = 64 GPUs, mixed-
       precision Adam: 2 + 2 + 12 = 16 B per parameter. Stage 1 shards the 12 B of Adam
       state, stage 2 the gradients too, stage 3 the weights too. */
    static const double paper[4] = {120, 31.4, 16.6, 1.9};
    const char *what[4] = {"plain data parallel", "stage 1: + optimizer states", "stage 2: + gradients",
                           "stage 3: + weights"};
    const llm_config *l7 = llm_preset("llama-2-7b");
    double full, flash, attn;
    int z;
    printf("\ntraining memory per GPU, the ZeRO paper's Psi = 7.5 B on N_d = 64 GPUs (16 B per parameter):\n");
    for (z = 0; z < 4; z++)
        printf("  %-30s %6.1f GB   (paper: %5.1f GB)\n", what[z], llm_train_state_bytes(7.5e9, z, 64).total / GB, paper[z]);

    /* Activations (Korthikanti et al. 2022): per layer s b d (34 + 5 a s / d) bytes with
       16-bit activations; 5 a s^2 b is the scores, softmax and dropout mask of attention. */
    full = llm_activation_bytes(l7, 4096, 1, 0, 1);
    flash = llm_activation_bytes(l7, 4096, 1, LLM_ACT_FLASH, 1);
    attn = full - flash;
    printf("\nactivations of Llama 2 7B for one 4,096-token sequence (Korthikanti et al.):\n");
    printf("  all kept                       %6.1f GiB  (literature: about 97 GiB)\n", full / GIB);
    printf("  of which the T x T attention   %6.1f GiB  (literature: 80 GiB)\n", attn / GIB);
    printf("  with flash attention           %6.1f GiB  (literature: about 17 GiB)\n", flash / GIB);
    printf("  with full recomputation        %6.1f GiB  (only each layer's input, 2 s b d)\n",
           llm_activation_bytes(l7, 4096, 1, LLM_ACT_RECOMPUTE, 1) / GIB);
}

int main(void) {
    const llm_config *c = llm_preset("llama-2-13b");
    double kv_token = (double)(2 * c->n_layers * c->n_kv_heads * llm_config_head_dim(c) * 2);
    double theory8, theory16;

    /* The KV cache per token: K and V (2) x 40 layers x 40 heads x 128 dims x 2 bytes. */
    printf("Llama 2 13B: %llu parameters; KV cache %.0f B = %.0f KiB per token\n",
           (unsigned long long)llm_count_params(c).total, kv_token, kv_token / 1024);

    /* The theory's arithmetic: 13e9 x 2 B = 26 GB of weights; 800 KiB x 32,768 tokens =
       25,600 MiB, written as 25.6 "GB" (MiB divided by 1000: a GB/GiB mix); plus 2 GB. */
    theory8 = 13e9 * 2 / GB + kv_token / 1048576 * 4096 * 8 / 1000 + 2;
    theory16 = 13e9 * 2 / GB + kv_token / 1048576 * 4096 * 16 / 1000 + 2;
    printf("theory: 26 + 25.6 + 2 = %.1f GB at batch 8; 26 + 51.2 + 2 = %.1f GB at batch 16\n", theory8, theory16);

    show(8, theory8);
    show(16, theory16);

    /* What it means. Exactly, batch 8 needs 54.9 GB, not 53.6: the weights are 13.02e9
       parameters, not 13e9, and 800 KiB x 32,768 is 26.8 GB, not 25.6. Batch 8 fits
       either way. At batch 16 the theory compares 79.2 "GB" with "80 GB" and calls it too
       tight; exactly it is 81.7 GB, which is MORE than 80 GB, yet it fits: the card's
       "80 GB" is 80 GiB = 85.9 GB. Still 95 % full, with no room for fragmentation or a
       longer prompt, so the verdict stays "tight": llm.h calls anything above 90 % tight. */
    printf("\nunits: GB = 1e9 B, GiB = 2^30 B. An \"80 GB\" A100 holds 80 GiB = 85.9 GB.\n");
    printf("batch 8 fits either way; batch 16 is tight either way, though by the exact count it\n");
    printf("needs more than 80 GB: it is the GiB in the card's \"80 GB\" that lets it in at all.\n");
    training();
    return 0;
}
