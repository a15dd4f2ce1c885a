/* llm-plan.c: will this model fit on that GPU? Memory line by line, a verdict, advice.

   build/llm-plan --model llama-2-13b --gpu a100-80gb --batch 8 --seq 4096
   build/llm-plan --model llama-2-7b --train --gpus 8 --zero 3 --flash
   build/llm-plan --config d_model=2048,n_layers=24,n_heads=16,n_kv_heads=4,d_ff=5632,vocab=32000,max_seq_len=4096
   build/llm-plan --gguf model.gguf --ctx 8192 --ram 8GB      build/llm-plan --hf DIR --gpu rtx-4090
   build/llm-plan --list          build/llm-plan ... --json          build/llm-plan --help

   Units: GB = 1e9 bytes, GiB = 2^30 bytes. The argument parser lives in
   llm-plan-args.h so tests and fuzzers can call it. --json carries every figure the
   table prints (and the table every figure of the JSON, the GPU's own facts aside). */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "llm-plan-args.h"

#define GIB 1073741824.0

static const char *usage =
    "usage: llm-plan (--model NAME | --config k=v,...) [--gpu NAME] [--gpus N] [--batch N] [--seq N]\n"
    "                [--weights DTYPE] [--kv DTYPE] [--overhead GB] [--json]\n"
    "       llm-plan (--gguf FILE | --hf DIR) [--ctx N] [--kv-dtype DTYPE] [--gpu NAME | --ram SIZE] [...]\n"
    "       llm-plan (--model NAME | --config k=v,...) --train [--zero 0-3] [--recompute] [--flash] [...]\n"
    "       llm-plan --list [--json]\n"
    "  --model NAME   a preset (--list shows them); --config overrides its fields\n"
    "  --config k=v,...  the model's fields, over a preset or from scratch (keys below)\n"
    "  --gguf FILE    the model of a GGUF file: its header and tensor table only are read (4 KiB,\n"
    "                 then doubling until the table parses), the weights counted to the byte in\n"
    "                 their stored types. A model llm-run cannot run still plans, with a warning\n"
    "  --hf DIR       a Hugging Face directory: config.json and the safetensors headers (8-byte\n"
    "                 length + JSON) of model.safetensors or of every shard of its index\n"
    "  --ram SIZE     plan for a CPU's RAM instead of a GPU: 8GB = 8e9 bytes, 8GiB = 8 x 2^30 (also\n"
    "                 MB MiB TB TiB); overhead: llm-run's state beyond the KV cache; no times\n"
    "  --gpu NAME     a GPU preset (default a100-80gb)\n"
    "  --gpus N       inference: tensor parallel over N GPUs, N dividing the heads (KV heads\n"
    "                 are split, or replicated when N is a multiple of them); training: data\n"
    "                 parallel, with --zero sharding\n"
    "  --batch N      sequences (training: micro-batch per GPU), default 1\n"
    "  --seq N, --ctx N  tokens each (the KV cache's context), default the model's context (past\n"
    "                 it: a warning; an error for learned positions)\n"
    "  --weights T    inference weights: f32 f16 bf16 int8 int4 q8_32 q4_32 (default f16)\n"
    "  --kv T, --kv-dtype T  inference KV cache: f32 f16 bf16 int8 (default f16; llm-run keeps f32)\n"
    "  --overhead GB  CUDA context, workspace and fragmentation, 0..1e6 (default 2)\n"
    "  --train        a training plan: mixed-precision Adam, 16 B per parameter\n"
    "  --zero S       training: ZeRO stage 0-3; --recompute, --flash: training only\n"
    "  --json         the same figures as JSON; --list: the presets\n"
    "Each flag is checked: a value must be all a number in its range; inference flags are\n"
    "refused with --train, training flags without it.\n";

/* "--config keys" from the parser's own table */
static void print_keys(void) {
    int i;
    printf("--config keys (from scratch: n_kv_heads defaults to n_heads, max_seq_len to --seq):\n");
    for (i = 0; i < LLM_PLAN_N_KEYS; i++) {
        const llm_plan_key *k = &llm_plan_keys[i];
        char form[64];
        if (k->type == LLM_PLAN_KEY_KIND) {
            size_t j, o = (size_t)snprintf(form, sizeof form, "%s=", k->key);
            for (j = 0; k->values[j] && o + 1 < sizeof form; j++) form[o++] = k->values[j] == ' ' ? '|' : k->values[j];
            form[o] = 0;
        } else if (k->type == LLM_PLAN_KEY_SWITCH) {
            snprintf(form, sizeof form, "%s=0|1", k->key);
        } else if (k->type == LLM_PLAN_KEY_NUM) {
            snprintf(form, sizeof form, "%s=X", k->key);
        } else {
            snprintf(form, sizeof form, "%s=N%s", k->key, k->lo == 0 ? " (>= 0)" : "");
        }
        printf("  %-28s %s\n", form, k->help);
    }
}

/* A figure in at most 10 characters: fixed below 1e7, else scientific. */
static const char *num(double v, int decimals, char *buf) {
    if (v > -1e7 && v < 1e7) sprintf(buf, "%.*f", decimals, v);
    else sprintf(buf, "%.3e", v);
    return buf;
}
/* A duration: "12.34 ms", "5.67 s", "3.456e+09 s" */
static const char *seconds(double s, char *buf) {
    if (s < 1) sprintf(buf, "%.2f ms", 1e3 * s);
    else if (s < 1e7) sprintf(buf, "%.2f s", s);
    else sprintf(buf, "%.3e s", s);
    return buf;
}
/* A rate: whole numbers from 1 up, three significant digits below */
static const char *rate(double r, char *buf) {
    if (r >= 1 && r < 1e9) sprintf(buf, "%.0f", r);
    else sprintf(buf, "%.3g", r);
    return buf;
}

/* One advice item in words: "weights in q4_32 (4.5 bits)", "batch of 14", ... */
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
static const char *advice_kind(llm_advice_kind k) {
    switch (k) {
    case LLM_ADVICE_WEIGHTS_DTYPE: return "weights_dtype";
    case LLM_ADVICE_KV_DTYPE: return "kv_dtype";
    case LLM_ADVICE_GQA: return "kv_heads";
    case LLM_ADVICE_SEQ: return "seq_len";
    case LLM_ADVICE_BATCH: return "batch";
    case LLM_ADVICE_TENSOR_PARALLEL: return "tensor_parallel";
    case LLM_ADVICE_ZERO: return "zero_stage";
    case LLM_ADVICE_FLASH: return "flash";
    case LLM_ADVICE_RECOMPUTE: return "recompute";
    case LLM_ADVICE_DATA_PARALLEL: return "zero3_gpus";
    }
    return "unknown";
}

/* The planner proposes powers of two; tensor parallelism also needs a GPU count the
   heads divide. Replace its proposal by the fewest such GPUs (a multiple of the ones
   given, up to 64 times) that fit, or drop it. */
static void fix_tp_advice(const llm_plan *p, llm_plan_result *r) {
    int i, k, o = 0;
    llm_advice tp;
    int have = 0;
    for (i = 0; i < r->n_advice; i++) {
        if (r->advice[i].kind == LLM_ADVICE_TENSOR_PARALLEL) {
            tp = r->advice[i];
            have = 1;
        } else r->advice[o++] = r->advice[i];
    }
    r->n_advice = o;
    if (!have || llm_plan_tp_ok(p->model, (int)tp.value)) {
        if (have) r->advice[r->n_advice++] = tp;
        return;
    }
    for (k = 2; k <= 64 && (long long)p->n_gpus * k <= 2147483647LL; k++) {
        llm_plan q = *p;
        llm_plan_result t;
        q.n_gpus = p->n_gpus * k;
        if (!llm_plan_tp_ok(p->model, q.n_gpus)) continue;
        if (llm_plan_evaluate(&q, &t, NULL) == LLM_OK && t.verdict == LLM_FITS) {
            tp.value = q.n_gpus;
            tp.total_bytes = t.total_bytes;
            tp.verdict = t.verdict;
            r->advice[r->n_advice++] = tp;
            return;
        }
    }
}

/* A JSON string: the names here are plain, but quotes and backslashes are escaped anyway */
static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') putchar('\\');
        if ((unsigned char)*s >= 0x20) putchar(*s);
    }
    putchar('"');
}

static const char *ffn_name(llm_ffn_kind k) { return k == LLM_FFN_GELU ? "gelu" : k == LLM_FFN_GEGLU ? "geglu" : "swiglu"; }

static void list_presets(int json) {
    const llm_config *c;
    const llm_gpu *g;
    char b[32];
    int i;
    if (json) {
        printf("{\"models\": [");
        for (i = 0; (c = llm_preset_at(i)) != NULL; i++) {
            printf("%s\n  {\"name\": ", i ? "," : "");
            json_str(c->name);
            printf(", \"params\": %llu, \"d_model\": %d, \"n_layers\": %d, \"n_heads\": %d, \"n_kv_heads\": %d, "
                   "\"max_seq_len\": %d, \"ffn\": \"%s\", \"n_experts\": %d}",
                   (unsigned long long)llm_count_params(c).total, c->d_model, c->n_layers, c->n_heads, c->n_kv_heads,
                   c->max_seq_len, ffn_name(c->ffn), c->n_experts);
        }
        printf("],\n \"gpus\": [");
        for (i = 0; (g = llm_gpu_preset_at(i)) != NULL; i++) {
            printf("%s\n  {\"name\": ", i ? "," : "");
            json_str(g->name);
            printf(", \"full_name\": ");
            json_str(g->full_name);
            printf(", \"mem_marketed_gb\": %.6g, \"mem_bytes\": %.0f, \"bf16_tflops\": %.6g, \"bandwidth_gbs\": %.6g}",
                   g->mem_marketed_gb, g->mem_bytes, g->bf16_tflops, g->bandwidth_gbs);
        }
        printf("]}\n");
        return;
    }
    printf("%-16s %17s %6s %4s %8s %7s %8s\n", "model", "parameters", "d", "L", "heads", "ctx", "ffn");
    for (i = 0; (c = llm_preset_at(i)) != NULL; i++)
        printf("%-16s %17s %6d %4d %4d/%-3d %7d %8s%s\n", c->name, llm_args_commas(llm_count_params(c).total, b),
               c->d_model, c->n_layers, c->n_heads, c->n_kv_heads, c->max_seq_len, ffn_name(c->ffn),
               c->n_experts ? " (MoE)" : "");
    printf("\n%-10s %-30s %9s %10s %10s %9s\n", "gpu", "", "marketed", "driver", "bf16 dense", "bandwidth");
    for (i = 0; (g = llm_gpu_preset_at(i)) != NULL; i++)
        printf("%-10s %-30s %6.0f GB %6.1f GiB %5.0f TFLOPS %5.0f GB/s\n", g->name, g->full_name, g->mem_marketed_gb,
               g->mem_bytes / GIB, g->bf16_tflops, g->bandwidth_gbs);
}

/* The figures both outputs print, computed once */
typedef struct figures {
    double tokens_per_second; /* inference: batch / decode step */
    double step_seconds;      /* training: one micro-batch's step at peak */
} figures;

static void print_json(const llm_plan_args *a, const llm_plan_result *r, const figures *f) {
    const llm_plan *p = &a->plan;
    char t[96];
    int i;
    printf("{\"model\": ");
    json_str(p->model->name);
    if (a->file) {
        const llm_model_shapes *s = &a->shapes;
        printf(", \"file\": {\"kind\": \"%s\", \"path\": ", a->file_hf ? "hf" : "gguf");
        json_str(a->file);
        printf(", \"arch\": ");
        json_str(s->arch);
        printf(", \"tensors\": %llu, \"elements\": %llu, \"tensor_bytes\": %llu, \"header_bytes\": %llu, \"file_bytes\": %llu, "
               "\"read_bytes\": %llu, \"runnable\": %s, \"not_run\": ",
               (unsigned long long)s->n_tensors, (unsigned long long)s->n_elements, (unsigned long long)s->tensor_bytes,
               (unsigned long long)s->header_bytes, (unsigned long long)s->file_bytes, (unsigned long long)s->read_bytes, s->not_run[0] ? "false" : "true");
        json_str(s->not_run);
        printf("}");
    }
    printf(", \"gpu\": \"%s\", \"n_gpus\": %d, \"batch\": %lld, \"seq_len\": %lld,\n", p->gpu->name, p->n_gpus,
           (long long)p->batch, (long long)r->seq_len);
    printf(" \"gpu_mem_marketed_gb\": %.6g, \"gpu_bf16_tflops\": %.6g, \"gpu_bandwidth_gbs\": %.6g,\n",
           p->gpu->mem_marketed_gb, p->gpu->bf16_tflops, p->gpu->bandwidth_gbs);
    printf(" \"mode\": \"%s\", \"weights\": \"%s\", \"kv\": \"%s\", \"zero_stage\": %d, \"flash\": %d, \"recompute\": %d,\n",
           p->train ? "train" : "inference", a->file ? "as stored" : llm_dtype_name(p->weights), llm_dtype_name(p->kv), p->zero_stage, p->flash,
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
    printf("],\n \"total_bytes\": %.0f, \"capacity_bytes\": %.0f, \"headroom_bytes\": %.0f, \"used\": %.6g, "
           "\"tight_above\": %.6g, \"verdict\": \"%s\",\n",
           r->total_bytes, r->capacity_bytes, r->headroom_bytes, r->used, p->tight, llm_verdict_str(r->verdict));
    if (!p->train && !(p->gpu->bandwidth_gbs > 0)) /* --ram: no bandwidth or TFLOPS, no times */
        printf(" \"prefill_flops\": %.6g,\n", r->prefill_flops);
    else if (!p->train)
        printf(" \"decode_seconds\": %.6g, \"decode_tokens_per_second\": %.6g, \"prefill_seconds\": %.6g, "
               "\"prefill_flops\": %.6g,\n",
               r->decode_seconds, f->tokens_per_second, r->prefill_seconds, r->prefill_flops);
    else
        printf(" \"step_seconds\": %.6g, \"step_flops\": %.6g, \"prefill_seconds\": %.6g, \"prefill_flops\": %.6g,\n",
               f->step_seconds, r->step_flops, r->prefill_seconds, r->prefill_flops);
    printf(" \"warnings\": [");
    for (i = 0; i < a->n_warn; i++) {
        printf("%s", i ? ", " : "");
        json_str(a->warn[i]);
    }
    printf("],\n \"advice_cumulative\": %s, \"advice\": [", r->n_advice && r->advice[0].cumulative ? "true" : "false");
    for (i = 0; i < r->n_advice; i++) {
        const llm_advice *v = &r->advice[i];
        advice_text(v, t, sizeof t);
        printf("%s\n  {\"change\": \"%s\", \"kind\": \"%s\", \"value\": ", i ? "," : "", t, advice_kind(v->kind));
        if (v->kind == LLM_ADVICE_WEIGHTS_DTYPE || v->kind == LLM_ADVICE_KV_DTYPE)
            printf("\"%s\"", llm_dtype_name((llm_dtype)v->value));
        else if (v->kind == LLM_ADVICE_FLASH || v->kind == LLM_ADVICE_RECOMPUTE)
            printf("true");
        else
            printf("%lld", (long long)v->value);
        printf(", \"total_bytes\": %.0f, \"used\": %.6g, \"verdict\": \"%s\"}", v->total_bytes,
               v->total_bytes / r->capacity_bytes, llm_verdict_str(v->verdict));
    }
    printf("]}\n");
}

/* The memory lines as a bar, one character per 1/60 of the larger of the capacity and
   the total. Past the capacity a '|' is inserted where the capacity ends (it takes no
   share of the bar), so the characters after it are the part that does not fit. */
static void print_bar(const llm_plan_result *r) {
    static const char fill[] = "#=.+*%";
    char bar[64], g1[32], g2[32];
    int width = 60, i, j, at = 0, cap, over = r->total_bytes > r->capacity_bytes;
    double full = over ? r->total_bytes : r->capacity_bytes, scale = full / width, acc = 0;
    memset(bar, ' ', sizeof bar);
    for (i = 0; i < r->n_lines; i++) {
        int end;
        acc += r->line[i].bytes;
        end = (int)(acc / scale + 0.5);
        for (j = at; j < end && j < width; j++) bar[j] = fill[i];
        if (end > at) at = end;
    }
    bar[width] = 0;
    cap = (int)(r->capacity_bytes / scale + 0.5);
    if (cap > width) cap = width;
    if (over) printf("\n  [%.*s|%s]\n", cap, bar, bar + cap);
    else printf("\n  [%s]\n", bar);
    printf("   %d characters = %s GiB, %s; one = %s GiB\n   ", width, num(full / GIB, 1, g1),
           over ? "the total" : "the capacity", num(scale / GIB, 2, g2));
    for (i = 0; i < r->n_lines; i++) printf("%c %s  ", fill[i], r->line[i].name);
    if (over) printf("| capacity, %s GiB: what follows does not fit", num(r->capacity_bytes / GIB, 1, g1));
    else printf("(blank: headroom)");
    printf("\n");
}

int main(int argc, char **argv) {
    static llm_plan_args a; /* large: keep it off the stack */
    llm_plan_result r;
    figures f;
    char err[320], b[32], c1[32], c2[32], c3[32], t[96];
    const char *why;
    int i;
    if (!llm_plan_parse_args(&a, argc, argv, err, sizeof err)) {
        fprintf(stderr, "llm-plan: %s\n", err);
        return 2;
    }
    if (a.help) {
        fputs(usage, stdout);
        print_keys();
        return 0;
    }
    if (a.list) {
        list_presets(a.json);
        return 0;
    }
    if (llm_plan_evaluate(&a.plan, &r, &why) != LLM_OK) {
        fprintf(stderr, "llm-plan: %s\n", why);
        return 2;
    }
    if (!a.plan.train) fix_tp_advice(&a.plan, &r);
    for (i = 0; i < a.n_warn; i++) fprintf(stderr, "llm-plan: warning: %s\n", a.warn[i]);
    f.tokens_per_second = a.plan.train || !(r.decode_seconds > 0) ? 0 : (double)a.plan.batch / r.decode_seconds;
    f.step_seconds = a.plan.train ? r.step_flops / (a.plan.gpu->bf16_tflops * 1e12) : 0;
    if (a.json) {
        print_json(&a, &r, &f);
        return 0;
    }
    if (a.plan.gpu == &a.ram)
        printf("%s on %d x %s (%s: %.3g GB = %.3g GiB)\n", a.config.name, a.plan.n_gpus, a.plan.gpu->name,
               a.plan.gpu->full_name, a.plan.gpu->mem_bytes / 1e9, a.plan.gpu->mem_bytes / GIB);
    else
        printf("%s on %d x %s (%s: %.0f GB marketed, %.1f GiB as the driver reports)\n", a.config.name, a.plan.n_gpus,
               a.plan.gpu->name, a.plan.gpu->full_name, a.plan.gpu->mem_marketed_gb, a.plan.gpu->mem_bytes / GIB);
    if (!a.plan.train)
        printf("inference: batch %lld x %lld tokens, weights %s, %s KV cache%s\n", (long long)a.plan.batch,
               (long long)r.seq_len, a.file ? "as stored" : llm_dtype_name(a.plan.weights), llm_dtype_name(a.plan.kv),
               a.plan.n_gpus > 1 ? ", tensor parallel" : "");
    else
        printf("training: micro-batch %lld x %lld tokens per GPU, mixed-precision Adam, ZeRO stage %d, %d GPU%s%s%s\n",
               (long long)a.plan.batch, (long long)r.seq_len, a.plan.zero_stage, a.plan.n_gpus, a.plan.n_gpus > 1 ? "s" : "",
               a.plan.flash ? ", flash attention" : "", a.plan.recompute ? ", full recomputation" : "");
    printf("parameters: %s (%.2f B)", llm_args_commas(r.params.total, b), r.params.total / 1e9);
    if (r.params.active != r.params.total) printf(", %s active per token", llm_args_commas(r.params.active, b));
    if (a.file) {
        const llm_model_shapes *s = &a.shapes;
        printf("\nfile: %s %s (%s): %s tensors,", a.file_hf ? "hf" : "gguf", a.file, s->arch, llm_args_commas(s->n_tensors, b));
        printf(" %s elements,", llm_args_commas(s->n_elements, b));
        printf(" %s tensor bytes as stored (%.2f bits per element)\n", llm_args_commas(s->tensor_bytes, b),
               s->n_elements ? 8.0 * (double)s->tensor_bytes / (double)s->n_elements : 0.0);
        printf("      header and tensor table %s bytes", llm_args_commas(s->header_bytes, b));
        printf(" (read %s", llm_args_commas(s->read_bytes, b));
        printf(" of the file's %s to find their end; no weight is used)\n", llm_args_commas(s->file_bytes, b));
        printf("llm-run: %s%s", s->not_run[0] ? "cannot run it: " : "runs it", s->not_run);
        if (s->n_elements != r.params.total) printf(" (the config's own count differs from the file's elements)");
    }
    printf("\n\n  %-26s %10s %10s %7s\n", a.plan.gpu == &a.ram ? "memory" : "memory per GPU", "GB", "GiB", "share");
    for (i = 0; i < r.n_lines; i++)
        printf("  %-26s %10s %10s %6.1f%%\n", r.line[i].name, num(r.line[i].bytes / 1e9, 2, c1),
               num(r.line[i].bytes / GIB, 2, c2), 100.0 * r.line[i].bytes / r.total_bytes);
    printf("  %-26s %10s %10s\n", "", "------", "------");
    printf("  %-26s %10s %10s %s%% of capacity\n", "total", num(r.total_bytes / 1e9, 2, c1), num(r.total_bytes / GIB, 2, c2),
           num(100 * r.used, 1, c3));
    printf("  %-26s %10s %10s\n", "capacity (driver)", num(r.capacity_bytes / 1e9, 2, c1), num(r.capacity_bytes / GIB, 2, c2));
    printf("  %-26s %10s %10s\n", "headroom", num(r.headroom_bytes / 1e9, 2, c1), num(r.headroom_bytes / GIB, 2, c2));
    print_bar(&r);
    printf("\nverdict: %s (%s%% of memory; tight above %.0f%%)\n", llm_verdict_str(r.verdict), num(100 * r.used, 0, c1),
           100 * a.plan.tight);
    if (!a.plan.train && !(a.plan.gpu->bandwidth_gbs > 0)) {
        printf("\ntimes: not estimated (--ram gives the memory, not its bandwidth or FLOP/s); %.3g FLOP of prefill\n",
               r.prefill_flops);
    } else if (!a.plan.train) {
        printf("\nlower bounds (a real run is slower):\n");
        printf("  decode step  %12s  every weight and KV byte read once at %.0f GB/s: <= %s tokens/s across the batch\n",
               seconds(r.decode_seconds, c1), a.plan.gpu->bandwidth_gbs, rate(f.tokens_per_second, c2));
        printf("  prefill      %12s  %.3g FLOP (batch x seq tokens, causal) at %.0f TFLOPS dense bf16 x %d\n",
               seconds(r.prefill_seconds, c1), r.prefill_flops, a.plan.gpu->bf16_tflops, a.plan.n_gpus);
    } else {
        printf("\nlower bounds at %.0f TFLOPS dense bf16 per GPU (a real run is slower):\n", a.plan.gpu->bf16_tflops);
        printf("  one step     %12s  %.3g FLOP per GPU (forward + backward%s)\n", seconds(f.step_seconds, c1),
               r.step_flops, a.plan.recompute ? " + the recomputed forward" : "");
        printf("  its forward  %12s  %.3g FLOP\n", seconds(r.prefill_seconds, c1), r.prefill_flops);
    }
    if (r.n_advice) {
        printf("\n%s, %s:\n", r.verdict == LLM_TIGHT ? "to get headroom" : "to make it fit",
               r.advice[0].cumulative ? "each step on top of the ones before (cumulative)"
                                      : "one change at a time (not cumulative)");
        for (i = 0; i < r.n_advice; i++) {
            advice_text(&r.advice[i], t, sizeof t);
            printf("  - %-38s -> %10s GB (%s%%) %s\n", t, num(r.advice[i].total_bytes / 1e9, 2, c1),
                   num(100 * r.advice[i].total_bytes / r.capacity_bytes, 0, c2), llm_verdict_str(r.advice[i].verdict));
        }
    }
    return 0;
}
