/* 02_flops.c: a FLOP and GPU-hour budget for training */
/* Training a dense transformer costs about 6 N FLOPs per token: 2 N in the forward pass
   (one multiply-add per weight) and 4 N in the backward pass. Over D tokens, C = 6 N D.
   Divide by the GPU's peak and by the fraction of it you really get (MFU, model FLOPs
   utilisation) to get GPU-hours. Which N? Kaplan et al.'s non-embedding count: that is
   what reproduces the figures quoted for Llama 2.

   build: cc -std=c99 -I. examples/02_flops.c -o 02_flops -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>

int main(void) {
    const llm_config *l7 = llm_preset("llama-2-7b");
    const llm_gpu *a100 = llm_gpu_preset("a100-80gb"), *h100 = llm_gpu_preset("h100-sxm");
    llm_params p = llm_count_params(l7);
    double C = llm_train_flops(l7, 2e12), mfu[3] = {0.30, 0.376, 0.40}, quoted[3] = {230627, 184011, 172970};
    double n_opt, d_opt, days;
    llm_flops f;
    int i;

    /* 1. The compute of a run: Llama 2 7B on 2 trillion tokens */
    printf("Llama 2 7B on 2T tokens: C = 6 N D with N = %llu (non-embedding)\n",
           (unsigned long long)p.active_non_embedding);
    printf("  C = %.3g FLOP                        (literature: 7.77e22)\n", C);
    printf("  with the full %llu it would be %.3g\n\n", (unsigned long long)p.total, 6.0 * (double)p.total * 2e12);

    /* 2. GPU-hours on A100s: peak 312 TFLOPS dense bf16 (624 is with 2:4 sparsity, which
       training does not use). Meta reported 184,320 GPU-hours for this model. */
    printf("GPU-hours on %s at %.0f TFLOPS:\n", a100->name, a100->bf16_tflops);
    for (i = 0; i < 3; i++)
        printf("  MFU %4.1f %%: %9.0f GPU-hours          (literature: %.0f)\n", 100 * mfu[i],
               llm_gpu_hours(C, a100->bf16_tflops * 1e12, mfu[i]), quoted[i]);
    printf("  Meta reported 184,320: an MFU of %.1f %%\n\n", 100 * llm_mfu(C, 184320 * 3600.0, 1, 312e12));

    /* 3. Wall-clock: a 70B model on 15T tokens, 1,024 H100s at 50 % MFU. The quoted
       figure uses the round N = 70e9; Llama 3 70B's exact counts move it a few days. */
    days = llm_train_seconds(6.0 * 70e9 * 15e12, 1024, h100->bf16_tflops * 1e12, 0.5) / 86400;
    printf("70B on 15T tokens, 1024 x %s (%.1f TFLOPS), MFU 50 %%:\n", h100->name, h100->bf16_tflops);
    printf("  N = 70e9 (nominal):             %6.1f days   (literature: about 144)\n", days);
    printf("  N = llama-3-70b non-embedding:  %6.1f days\n",
           llm_train_seconds(llm_train_flops(llm_preset("llama-3-70b"), 15e12), 1024, h100->bf16_tflops * 1e12, 0.5) /
               86400);
    printf("\n");

    /* 4. 6N ignores attention's own work: QK^T and AV cost 12 L d T per token in training
       (PaLM's correction), which grows with the context T. Relative to 6 N = 72 L d^2
       that is T / (6 d): negligible at short contexts, dominant at long ones. */
    printf("attention / the rest in training, T / (6 d):\n");
    printf("  d =  768, T =   1024 (gpt2):   %.2f    (literature: 0.22)\n", llm_attention_ratio(llm_preset("gpt2"), 1024));
    {
        llm_config g = *llm_preset("gpt2"); /* a GPT-style block at d = 4096 has N = 12 L d^2 */
        long T[3] = {4096, 32768, 131072};
        double lit[3] = {0.17, 1.33, 5.33};
        g.d_model = 4096; g.n_heads = 32; g.n_kv_heads = 32; g.head_dim = 128; g.d_ff = 16384;
        for (i = 0; i < 3; i++)
            printf("  d = 4096, T = %6ld:          %.2f    (literature: %.2f)\n", T[i], llm_attention_ratio(&g, T[i]),
                   lit[i]);
    }
    f = llm_count_flops(l7, 4096, 1);
    printf("  llama-2-7b per token at T = 4096, causal: %.3g forward = %.3g matmul + %.3g LM head + %.3g attention\n\n",
           f.forward, f.matmul, f.lm_head, f.attention);

    /* 5. Chinchilla: for a fixed budget, about 20 tokens per parameter is optimal. */
    llm_chinchilla_optimal(C, &n_opt, &d_opt);
    printf("Chinchilla: the compute of Llama 2 7B (%.3g FLOP) is best spent on N = %.2gB, D = %.2gT\n", C, n_opt / 1e9,
           d_opt / 1e12);
    printf("  Llama 2 7B saw %.0f tokens per parameter instead of 20: smaller and longer-trained, cheaper to serve\n",
           2e12 / (double)p.total);

    /* 6. Pipeline parallelism (GPipe): P stages fill and drain around M micro-batches, so
       each stage idles (P - 1) / (M + P - 1) of the step. More micro-batches shrink it. */
    printf("\npipeline bubble, P = 4 stages: M = 4 micro-batches %.4f idle (literature: 3/7 = %.4f),"
           " M = 16 %.4f (3/19 = %.4f)\n", llm_pipeline_bubble(4, 4), 3.0 / 7.0, llm_pipeline_bubble(4, 16), 3.0 / 19.0);
    return 0;
}
