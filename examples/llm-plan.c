/* llm-plan.c: will this model fit on that GPU? Memory line by line, a verdict, advice.

   build/llm-plan --model llama-2-13b --gpu a100-80gb --batch 8 --seq 4096
   build/llm-plan --model llama-2-7b --train --gpus 8 --zero 3 --flash
   build/llm-plan --config d_model=2048,n_layers=24,n_heads=16,n_kv_heads=4,d_ff=5632,vocab=32000,max_seq_len=4096
   build/llm-plan --list          build/llm-plan ... --json

   Units: GB = 1e9 bytes, GiB = 2^30 bytes. The argument parser lives in
   llm-plan-args.h so tests and fuzzers can call it. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "llm-plan-args.h"

#define GIB 1073741824.0

static const char *usage =
    "usage: llm-plan (--model NAME | --config k=v,...) [--gpu NAME] [--gpus N] [--batch N] [--seq N]\n"
    "                [--weights DTYPE] [--kv DTYPE] [--overhead GB]\n"
    "                [--train [--zero 0-3] [--recompute] [--flash]] [--json] | --list\n"
    "  --model      a preset (--list); --config overrides its fields or describes a model from scratch:\n"
    "               d_model n_layers n_heads n_kv_heads head_dim d_ff vocab max_seq_len norm=rms|layer\n"
    "               ffn=swiglu|gelu|geglu pos=rope|learned|none bias=none|qkv|all tied n_experts top_k\n"
    "  --gpu        a GPU preset (default a100-80gb); --gpus N: tensor parallel (inference) or\n"
    "               data parallel with ZeRO (training)\n"
    "  --batch      sequences (default 1); --seq tokens each (default: the model's context)\n"
    "  --weights/--kv  f32 f16 bf16 int8 int4 q8_32 q4_32 (default f16; KV: f32 f16 bf16 int8)\n"
    "  --overhead   GB for the CUDA context, workspace and fragmentation (default 2)\n";

/* 13015864320 -> "13,015,864,320" */
static const char *commas(uint64_t v, char *buf) {
    char tmp[32];
    int n = sprintf(tmp, "%llu", (unsigned long long)v), i, o = 0;
    for (i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
    return buf;
}

/* One advice item in words: "weights in q4_32", "batch 14", ... */
static void advice_text(const llm_advice *a, char *buf, size_t n) {
    switch (a->kind) {
    case LLM_ADVICE_WEIGHTS_DTYPE:
        snprintf(buf, n, "weights in %s (%.1f bits)", llm_dtype_name((llm_dtype)a->value), llm_dtype_bits((llm_dtype)a->value));
        break;
    case LLM_ADVICE_KV_DTYPE: snprintf(buf, n, "KV cache in %s", llm_dtype_name((llm_dtype)a->value)); break;
    case LLM_ADVICE_GQA: snprintf(buf, n, "a GQA model with %lld KV heads", (long long)a->value); break;
    case LLM_ADVICE_SEQ: snprintf(buf, n, "context of %lld tokens", (long long)a->value); break;
    case LLM_ADVICE_BATCH: snprintf(buf, n, "batch of %lld", (long long)a->value); break;
    case LLM_ADVICE_TENSOR_PARALLEL: snprintf(buf, n, "tensor parallelism over %lld GPUs", (long long)a->value); break;
    case LLM_ADVICE_ZERO: snprintf(buf, n, "ZeRO stage %lld", (long long)a->value); break;
    case LLM_ADVICE_FLASH: snprintf(buf, n, "flash attention"); break;
    case LLM_ADVICE_RECOMPUTE: snprintf(buf, n, "full activation recomputation"); break;
    case LLM_ADVICE_DATA_PARALLEL: snprintf(buf, n, "ZeRO-3 over %lld GPUs", (long long)a->value); break;
    default: snprintf(buf, n, "%s", llm_advice_str(a->kind)); break;
    }
}

static void list_presets(void) {
    const llm_config *c;
    const llm_gpu *g;
    char b[32];
    int i;
    printf("%-16s %17s %6s %4s %8s %7s %8s\n", "model", "parameters", "d", "L", "heads", "ctx", "ffn");
    for (i = 0; (c = llm_preset_at(i)) != NULL; i++)
        printf("%-16s %17s %6d %4d %4d/%-3d %7d %8s%s\n", c->name, commas(llm_count_params(c).total, b), c->d_model,
               c->n_layers, c->n_heads, c->n_kv_heads, c->max_seq_len,
               c->ffn == LLM_FFN_GELU ? "gelu" : c->ffn == LLM_FFN_GEGLU ? "geglu" : "swiglu",
               c->n_experts ? " (MoE)" : "");
    printf("\n%-10s %-30s %9s %10s %10s %9s\n", "gpu", "", "marketed", "driver", "bf16 dense", "bandwidth");
    for (i = 0; (g = llm_gpu_preset_at(i)) != NULL; i++)
        printf("%-10s %-30s %6.0f GB %6.1f GiB %5.0f TFLOPS %5.0f GB/s\n", g->name, g->full_name, g->mem_marketed_gb,
               g->mem_bytes / GIB, g->bf16_tflops, g->bandwidth_gbs);
}

static void print_json(const llm_plan *p, const llm_plan_result *r) {
    char t[96];
    int i;
    printf("{\"model\": \"%s\", \"gpu\": \"%s\", \"n_gpus\": %d, \"batch\": %lld, \"seq_len\": %lld,\n", p->model->name,
           p->gpu->name, p->n_gpus, (long long)p->batch, (long long)r->seq_len);
    printf(" \"mode\": \"%s\", \"weights\": \"%s\", \"kv\": \"%s\", \"zero_stage\": %d, \"flash\": %d, \"recompute\": %d,\n",
           p->train ? "train" : "inference", llm_dtype_name(p->weights), llm_dtype_name(p->kv), p->zero_stage, p->flash,
           p->recompute);
    printf(" \"params\": {\"total\": %llu, \"non_embedding\": %llu, \"active\": %llu, \"embedding\": %llu, "
           "\"attention\": %llu, \"ffn\": %llu, \"norm\": %llu, \"lm_head\": %llu},\n",
           (unsigned long long)r->params.total, (unsigned long long)r->params.non_embedding,
           (unsigned long long)r->params.active, (unsigned long long)r->params.embedding,
           (unsigned long long)r->params.attention, (unsigned long long)r->params.ffn,
           (unsigned long long)r->params.norm, (unsigned long long)r->params.lm_head);
    printf(" \"lines\": [");
    for (i = 0; i < r->n_lines; i++)
        printf("%s{\"name\": \"%s\", \"bytes\": %.0f}", i ? ", " : "", r->line[i].name, r->line[i].bytes);
    printf("],\n \"total_bytes\": %.0f, \"capacity_bytes\": %.0f, \"headroom_bytes\": %.0f, \"used\": %.4f, "
           "\"verdict\": \"%s\",\n",
           r->total_bytes, r->capacity_bytes, r->headroom_bytes, r->used, llm_verdict_str(r->verdict));
    printf(" \"decode_seconds\": %.6g, \"prefill_seconds\": %.6g, \"prefill_flops\": %.6g, \"step_flops\": %.6g,\n",
           r->decode_seconds, r->prefill_seconds, r->prefill_flops, r->step_flops);
    printf(" \"advice\": [");
    for (i = 0; i < r->n_advice; i++) {
        advice_text(&r->advice[i], t, sizeof t);
        printf("%s\n  {\"change\": \"%s\", \"value\": %lld, \"total_bytes\": %.0f, \"verdict\": \"%s\"}", i ? "," : "", t,
               (long long)r->advice[i].value, r->advice[i].total_bytes, llm_verdict_str(r->advice[i].verdict));
    }
    printf("]}\n");
}

/* A bar of the memory lines against the card: one character per 1/60 of the larger of
   capacity and total; '|' marks the capacity when the total runs past it. */
static void print_bar(const llm_plan_result *r) {
    static const char fill[] = "#=.+*%";
    char bar[80];
    int width = 60, i, j, at = 0, cap;
    double scale = (r->total_bytes > r->capacity_bytes ? r->total_bytes : r->capacity_bytes) / width, acc = 0;
    memset(bar, ' ', sizeof bar);
    for (i = 0; i < r->n_lines; i++) {
        int end;
        acc += r->line[i].bytes;
        end = (int)(acc / scale + 0.5);
        for (j = at; j < end && j < width; j++) bar[j] = fill[i];
        if (end > at) at = end;
    }
    cap = (int)(r->capacity_bytes / scale + 0.5);
    bar[width] = 0;
    if (cap < width) bar[cap] = '|';
    printf("\n  [%s] %.1f GiB\n   ", bar, r->capacity_bytes / GIB);
    for (i = 0; i < r->n_lines; i++) printf("%c %s  ", fill[i], r->line[i].name);
    printf("\n");
}

int main(int argc, char **argv) {
    llm_plan_args a;
    llm_plan_result r;
    char err[256], b[32], t[96];
    const char *why;
    int i;
    if (!llm_plan_parse_args(&a, argc, argv, err, sizeof err)) {
        fprintf(stderr, "llm-plan: %s\n", err);
        return 2;
    }
    if (a.help) {
        fputs(usage, stdout);
        return 0;
    }
    if (a.list) {
        list_presets();
        return 0;
    }
    if (llm_plan_evaluate(&a.plan, &r, &why) != LLM_OK) {
        fprintf(stderr, "llm-plan: %s\n", why);
        return 2;
    }
    if (a.json) {
        print_json(&a.plan, &r);
        return 0;
    }
    printf("%s on %d x %s (%s: %.0f GB marketed, %.1f GiB as the driver reports)\n", a.config.name, a.plan.n_gpus,
           a.plan.gpu->name, a.plan.gpu->full_name, a.plan.gpu->mem_marketed_gb, a.plan.gpu->mem_bytes / GIB);
    if (!a.plan.train)
        printf("inference: batch %lld x %lld tokens, %s weights, %s KV cache%s\n", (long long)a.plan.batch,
               (long long)r.seq_len, llm_dtype_name(a.plan.weights), llm_dtype_name(a.plan.kv),
               a.plan.n_gpus > 1 ? ", tensor parallel" : "");
    else
        printf("training: micro-batch %lld x %lld tokens per GPU, mixed-precision Adam, ZeRO stage %d, %d GPU%s%s%s\n",
               (long long)a.plan.batch, (long long)r.seq_len, a.plan.zero_stage, a.plan.n_gpus, a.plan.n_gpus > 1 ? "s" : "",
               a.plan.flash ? ", flash attention" : "", a.plan.recompute ? ", full recomputation" : "");
    printf("parameters: %s (%.2f B)", commas(r.params.total, b), r.params.total / 1e9);
    if (r.params.active != r.params.total) printf(", %s active per token", commas(r.params.active, b));
    printf("\n\n  %-26s %10s %10s %7s\n", "memory per GPU", "GB", "GiB", "share");
    for (i = 0; i < r.n_lines; i++)
        printf("  %-26s %10.2f %10.2f %6.1f%%\n", r.line[i].name, r.line[i].bytes / 1e9, r.line[i].bytes / GIB,
               100.0 * r.line[i].bytes / r.total_bytes);
    printf("  %-26s %10s %10s\n", "", "------", "------");
    printf("  %-26s %10.2f %10.2f %6.1f%% of capacity\n", "total", r.total_bytes / 1e9, r.total_bytes / GIB, 100 * r.used);
    printf("  %-26s %10.2f %10.2f\n", "capacity (driver)", r.capacity_bytes / 1e9, r.capacity_bytes / GIB);
    printf("  %-26s %10.2f %10.2f\n", "headroom", r.headroom_bytes / 1e9, r.headroom_bytes / GIB);
    print_bar(&r);
    printf("\nverdict: %s (%.0f%% of memory; tight above %.0f%%)\n", llm_verdict_str(r.verdict), 100 * r.used,
           100 * a.plan.tight);
    if (!a.plan.train) {
        printf("\nlower bounds (a real run is slower):\n");
        printf("  decode step  %9.2f ms  every weight and KV byte read once at %.0f GB/s: <= %.0f tokens/s "
               "across the batch\n",
               r.decode_seconds * 1e3, a.plan.gpu->bandwidth_gbs, (double)a.plan.batch / r.decode_seconds);
        printf("  prefill      %9.2f %s  %.3g FLOP (batch x seq tokens, causal) at %.0f TFLOPS dense bf16 x %d\n",
               r.prefill_seconds < 1 ? 1e3 * r.prefill_seconds : r.prefill_seconds, r.prefill_seconds < 1 ? "ms" : "s ",
               r.prefill_flops, a.plan.gpu->bf16_tflops, a.plan.n_gpus);
    } else {
        printf("\none step: %.3g FLOP per GPU, >= %.2f s at %.0f TFLOPS dense bf16\n", r.step_flops,
               r.step_flops / (a.plan.gpu->bf16_tflops * 1e12), a.plan.gpu->bf16_tflops);
    }
    if (r.n_advice) {
        printf("\n%s, %s:\n", r.verdict == LLM_TIGHT ? "to get headroom" : "to make it fit",
               r.advice[0].cumulative ? "each step on top of the ones before" : "one change at a time");
        for (i = 0; i < r.n_advice; i++) {
            advice_text(&r.advice[i], t, sizeof t);
            printf("  - %-38s -> %7.2f GB (%3.0f%%) %s\n", t, r.advice[i].total_bytes / 1e9,
                   100 * r.advice[i].total_bytes / r.capacity_bytes, llm_verdict_str(r.advice[i].verdict));
        }
    }
    return 0;
}
