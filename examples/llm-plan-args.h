/* llm-plan-args.h: the command-line parser of build/llm-plan, kept in a header of its
   own so tests and a fuzz target can call it on any argv without running the program.
   Include after llm.h. No output, no exit; it reads nothing but the headers of --gguf's
   file or --hf's directory (llm_gguf_shapes_file / llm_hf_shapes_dir: their tensor
   tables, never a weight); errors are one line in the caller's buffer, warnings (a plan
   that runs but deserves a word) lines in llm_plan_args.warn. Numbers and flags follow
   examples/llm-args.h. */
#ifndef LLM_PLAN_ARGS_H
#define LLM_PLAN_ARGS_H
#include "llm-args.h"
#include <stddef.h>

#define LLM_PLAN_MAX_WARN 4
typedef struct llm_plan_args {
    llm_plan plan;      /* plan.model points at config below after a successful parse */
    llm_config config;  /* the model: a preset's copy with any --config overrides */
    char name[96];      /* "custom (from llama-2-7b)" when --config changes a preset */
    int list, json, help;
    const char *file;   /* --gguf FILE or --hf DIR */
    int file_hf;        /* 1: --hf */
    llm_model_shapes shapes; /* the file's config and exact tensor bytes, when file is set */
    llm_gpu ram;        /* --ram: the CPU's memory as the plan's "GPU" (no TFLOPS or bandwidth) */
    int n_warn;
    char warn[LLM_PLAN_MAX_WARN][240]; /* e.g. "--seq 100000 is past llama-2-7b's context ..." */
} llm_plan_args; /* holds pointers into itself after parsing: do not copy it */

/* The --config keys: the parser reads this table and --help prints it, so the two
   cannot drift. Sizes are whole numbers, switches 0 or 1, kinds one of `values`
   (space-separated, in the enum's order). */
typedef enum { LLM_PLAN_KEY_INT, LLM_PLAN_KEY_SWITCH, LLM_PLAN_KEY_NUM, LLM_PLAN_KEY_KIND } llm_plan_key_type;
typedef struct llm_plan_key {
    const char *key;
    llm_plan_key_type type;
    size_t off;         /* the llm_config field */
    long long lo;       /* smallest whole number (INT); NUM: > 0 */
    const char *values; /* KIND: the names, enum order */
    const char *help;
} llm_plan_key;

#define LLM_PLAN__K(key, type, field, lo, values, help) {key, type, offsetof(llm_config, field), lo, values, help}
static const llm_plan_key llm_plan_keys[] = {
    LLM_PLAN__K("d_model", LLM_PLAN_KEY_INT, d_model, 1, NULL, "residual stream width"),
    LLM_PLAN__K("n_layers", LLM_PLAN_KEY_INT, n_layers, 1, NULL, "decoder blocks"),
    LLM_PLAN__K("n_heads", LLM_PLAN_KEY_INT, n_heads, 1, NULL, "query heads"),
    LLM_PLAN__K("n_kv_heads", LLM_PLAN_KEY_INT, n_kv_heads, 1, NULL, "key/value heads (from scratch: n_heads, i.e. MHA)"),
    LLM_PLAN__K("head_dim", LLM_PLAN_KEY_INT, head_dim, 0, NULL, "width of a head (0: d_model / n_heads)"),
    LLM_PLAN__K("d_ff", LLM_PLAN_KEY_INT, d_ff, 1, NULL, "FFN hidden width"),
    LLM_PLAN__K("vocab", LLM_PLAN_KEY_INT, vocab, 1, NULL, "vocabulary size"),
    LLM_PLAN__K("max_seq_len", LLM_PLAN_KEY_INT, max_seq_len, 1, NULL, "trained context (from scratch: --seq)"),
    LLM_PLAN__K("norm", LLM_PLAN_KEY_KIND, norm, 0, "rms layer", "RMSNorm or LayerNorm"),
    LLM_PLAN__K("norm_bias", LLM_PLAN_KEY_SWITCH, norm_bias, 0, NULL, "LayerNorm with a bias (GPT-2)"),
    LLM_PLAN__K("ffn", LLM_PLAN_KEY_KIND, ffn, 0, "swiglu gelu geglu", "FFN kind (swiglu, geglu: 3 matrices)"),
    LLM_PLAN__K("pos", LLM_PLAN_KEY_KIND, pos, 0, "rope learned none", "positions (learned: a table of max_seq_len)"),
    LLM_PLAN__K("rope_theta", LLM_PLAN_KEY_NUM, rope_theta, 0, NULL, "RoPE base, > 0 (default 10000)"),
    LLM_PLAN__K("rotary_dim", LLM_PLAN_KEY_INT, rotary_dim, 0, NULL, "dims RoPE rotates per head (0: head_dim)"),
    LLM_PLAN__K("bias", LLM_PLAN_KEY_KIND, bias, 0, "none qkv all", "biases: none, q/k/v only, every linear layer"),
    LLM_PLAN__K("tied", LLM_PLAN_KEY_SWITCH, tied_embeddings, 0, NULL, "LM head shares the token embedding"),
    LLM_PLAN__K("post_norm", LLM_PLAN_KEY_SWITCH, post_norm, 0, NULL, "norm after the residual add"),
    LLM_PLAN__K("n_experts", LLM_PLAN_KEY_INT, n_experts, 0, NULL, "routed experts per layer (0: dense)"),
    LLM_PLAN__K("top_k", LLM_PLAN_KEY_INT, n_experts_per_tok, 0, NULL, "experts per token"),
    LLM_PLAN__K("shared_experts", LLM_PLAN_KEY_INT, n_shared_experts, 0, NULL, "always-on experts"),
    LLM_PLAN__K("sliding_window", LLM_PLAN_KEY_INT, sliding_window, 0, NULL, "attention window (0: all positions)"),
};
#undef LLM_PLAN__K
#define LLM_PLAN_N_KEYS ((int)(sizeof llm_plan_keys / sizeof llm_plan_keys[0]))

/* Levenshtein distance of two short names (longer ones are cut at 63 characters). */
static int llm_plan__distance(const char *a, const char *b) {
    int row[64], i, j, la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63) la = 63;
    if (lb > 63) lb = 63;
    for (j = 0; j <= lb; j++) row[j] = j;
    for (i = 1; i <= la; i++) {
        int diag = row[0], up;
        row[0] = i;
        for (j = 1; j <= lb; j++) {
            int best = diag + (a[i - 1] != b[j - 1]);
            up = row[j];
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* The three names closest to `name` by edit distance, comma-separated: of the model
   presets (kind 0), the GPU presets (1) or the --config keys (2). */
static void llm_plan_suggest(const char *name, int kind, char *out, size_t size) {
    const char *best[3] = {NULL, NULL, NULL};
    int dist[3] = {1 << 30, 1 << 30, 1 << 30}, i, k;
    for (i = 0;; i++) {
        const char *n = kind == 1 ? (llm_gpu_preset_at(i) ? llm_gpu_preset_at(i)->name : NULL)
                        : kind == 2 ? (i < LLM_PLAN_N_KEYS ? llm_plan_keys[i].key : NULL)
                                    : (llm_preset_at(i) ? llm_preset_at(i)->name : NULL);
        int d;
        if (!n) break;
        /* a name that contains what was typed ("a100") is the best guess */
        d = *name && strstr(n, name) ? 0 : llm_plan__distance(name, n);
        for (k = 0; k < 3; k++)
            if (d < dist[k]) { /* insert at k, shifting the rest down */
                int m;
                for (m = 2; m > k; m--) {
                    dist[m] = dist[m - 1];
                    best[m] = best[m - 1];
                }
                dist[k] = d;
                best[k] = n;
                break;
            }
    }
    snprintf(out, size, "%s%s%s%s%s", best[0] ? best[0] : "", best[1] ? ", " : "", best[1] ? best[1] : "",
             best[2] ? ", " : "", best[2] ? best[2] : "");
}

/* One --config key=value onto c; *set gets the key's table index. 0 with a message. */
static int llm_plan__set(llm_config *c, const char *key, const char *val, int *set, char *err, size_t es) {
    char what[80], near[160];
    int i;
    for (i = 0; i < LLM_PLAN_N_KEYS; i++) {
        const llm_plan_key *k = &llm_plan_keys[i];
        void *field = (char *)c + k->off;
        long long v;
        double x;
        if (strcmp(key, k->key) != 0) continue;
        *set = i;
        snprintf(what, sizeof what, "--config %s", k->key);
        switch (k->type) {
        case LLM_PLAN_KEY_INT:
        case LLM_PLAN_KEY_SWITCH:
            if (!llm_args_parse_int(what, val, k->type == LLM_PLAN_KEY_SWITCH ? 0 : k->lo,
                                    k->type == LLM_PLAN_KEY_SWITCH ? 1 : 2147483647LL, &v, err, es))
                return 0;
            *(int *)field = (int)v;
            return 1;
        case LLM_PLAN_KEY_NUM:
            if (!llm_args_parse_num(what, val, 0, 1e30, &x, err, es)) return 0;
            if (!(x > 0)) {
                snprintf(err, es, "%s: must be above 0 (10000 is the usual base)", what);
                return 0;
            }
            *(float *)field = (float)x;
            return 1;
        case LLM_PLAN_KEY_KIND: {
            /* the position of val among the space-separated names is the enum value */
            const char *s = k->values;
            int n = 0, len = (int)strlen(val);
            while (*s) {
                const char *e = strchr(s, ' ');
                int l = e ? (int)(e - s) : (int)strlen(s);
                if (l == len && strncmp(s, val, (size_t)l) == 0) break;
                s += l + (e ? 1 : 0);
                n++;
            }
            if (!*s) {
                snprintf(err, es, "%s: '%.40s' is not one of %s", what, val, k->values);
                return 0;
            }
            if (k->off == offsetof(llm_config, norm)) c->norm = (llm_norm_kind)n;
            else if (k->off == offsetof(llm_config, ffn)) c->ffn = (llm_ffn_kind)n;
            else if (k->off == offsetof(llm_config, pos)) c->pos = (llm_pos_kind)n;
            else c->bias = (llm_bias_kind)n;
            return 1;
        }
        }
    }
    llm_plan_suggest(key, 2, near, sizeof near);
    snprintf(err, es, "--config: unknown key '%.40s'; closest: %.100s (--help lists every key)", key, near);
    return 0;
}

static void llm_plan__warn(llm_plan_args *a, const char *fmt, ...) {
    va_list ap;
    if (a->n_warn >= LLM_PLAN_MAX_WARN) return;
    va_start(ap, fmt);
    vsnprintf(a->warn[a->n_warn++], sizeof a->warn[0], fmt, ap);
    va_end(ap);
}

/* The divisors of n up to 64, "1, 2, 4, 8" (at most 8 of them). */
static void llm_plan__divisors(int n, char *out, size_t size) {
    int d, shown = 0;
    size_t o = 0;
    out[0] = 0;
    for (d = 1; d <= n && d <= 64 && shown < 8 && o + 8 < size; d++)
        if (n % d == 0) o += (size_t)snprintf(out + o, size - o, "%s%d", shown++ ? ", " : "", d);
}

/* Can tensor parallelism run c over g GPUs? The query heads must split evenly, and the
   KV heads split evenly too or be replicated evenly (g a multiple of them). */
static int llm_plan_tp_ok(const llm_config *c, int g) {
    return g >= 1 && c->n_heads % g == 0 && (c->n_kv_heads % g == 0 || g % c->n_kv_heads == 0);
}

/* "8GB" (1e9 B), "16GiB" (2^30 B), also MB / MiB and TB / TiB: a size with its unit, so
   GB and GiB are never confused. 0 with a message if not. */
static int llm_plan_parse_size(const char *what, const char *s, double *out, char *err, size_t es) {
    static const struct { const char *unit; double scale; } units[] = {
        {"GiB", 1073741824.0}, {"GB", 1e9}, {"MiB", 1048576.0}, {"MB", 1e6}, {"TiB", 1099511627776.0}, {"TB", 1e12}};
    char num[48];
    size_t n = s ? strlen(s) : 0, i, u;
    double v;
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        u = strlen(units[i].unit);
        if (n > u && n - u < sizeof num && strcmp(s + n - u, units[i].unit) == 0) {
            memcpy(num, s, n - u);
            num[n - u] = 0;
            if (!llm_args_parse_num(what, num, 0, 1e18 / units[i].scale, &v, err, es)) return 0;
            if (!(v > 0)) break;
            *out = v * units[i].scale;
            return 1;
        }
    }
    snprintf(err, es, "%s: '%.40s' is not a size above 0 with its unit (8GB = 8e9 bytes, 8GiB = 8 x 2^30; MB, MiB, TB, TiB)",
             what, s ? s : "");
    return 0;
}

/* The model of --gguf / --hf: its headers read into a->shapes, its config into a->config.
   A model llm-run cannot run still plans (the shapes are all a plan needs), with a warning. */
static int llm_plan__file(llm_plan_args *a, llm_args *p) {
    const char *why = "";
    llm_status st;
#ifndef LLM_NO_STDIO
    st = a->file_hf ? llm_hf_shapes_dir(&a->shapes, a->file, &why) : llm_gguf_shapes_file(&a->shapes, a->file, &why);
#else
    st = LLM_EUNSUPPORTED, why = "built with LLM_NO_STDIO";
#endif
    if (st != LLM_OK)
        return llm_args_fail(p, "%s %.200s: %s (%s)", a->file_hf ? "--hf" : "--gguf", a->file, why, llm_status_str(st));
    a->config = a->shapes.config;
    a->config.name = a->shapes.arch;
    a->plan.weight_bytes = (double)a->shapes.tensor_bytes;
    if (a->shapes.not_run[0])
        llm_plan__warn(a, "%.60s: llm-run cannot run this model (%.150s); the plan needs only its shapes", a->shapes.arch,
                       a->shapes.not_run);
    return 1;
}

/* Parse argv into a. Returns 1 on success, 0 with a one-line message in err. */
static int llm_plan_parse_args(llm_plan_args *a, int argc, char **argv, char *err, size_t es) {
    const char *model = NULL, *config = NULL, *gpu = "a100-80gb";
    const char *train_only = NULL, *infer_only = NULL; /* the first such flag given */
    const char *gpu_flag = NULL, *seq_flag = "--seq";
    int seq_given = 0, no_context = 0, set[LLM_PLAN_N_KEYS], i, overhead_given = 0, weights_given = 0;
    double ram = 0;
    llm_args p;
    memset(a, 0, sizeof *a);
    memset(set, 0, sizeof set);
    a->plan = llm_plan_default();
    llm_args_init(&p, argc, argv, err, es);
    while (llm_args_next(&p)) {
        long long v;
        double x;
        int ok = 1;
        if (llm_args_positional(&p)) {
            ok = llm_args_unknown(&p);
        } else if (llm_args_is(&p, "--model") || llm_args_is(&p, "-m")) {
            ok = (model = llm_args_value(&p)) != NULL;
        } else if (llm_args_is(&p, "--config")) {
            ok = (config = llm_args_value(&p)) != NULL;
        } else if (llm_args_is(&p, "--gguf") || llm_args_is(&p, "--hf")) {
            if (a->file) ok = llm_args_fail(&p, "%s: one model file only (%s given already)", p.flag, a->file);
            else if ((a->file = llm_args_value(&p)) != NULL) a->file_hf = llm_args_is(&p, "--hf");
            else ok = 0;
        } else if (llm_args_is(&p, "--gpu")) {
            ok = (gpu = llm_args_value(&p)) != NULL;
            gpu_flag = "--gpu";
        } else if (llm_args_is(&p, "--ram")) {
            const char *v = llm_args_value(&p);
            ok = v && llm_plan_parse_size("--ram", v, &ram, err, es);
            if (!infer_only) infer_only = "--ram";
        } else if (llm_args_is(&p, "--ctx")) {
            if ((ok = llm_args_int(&p, 1, 2147483647LL, &v))) a->plan.seq_len = v;
            seq_given = 1;
            seq_flag = "--ctx";
        } else if (llm_args_is(&p, "--gpus")) {
            if ((ok = llm_args_int(&p, 1, 2147483647LL, &v))) a->plan.n_gpus = (int)v;
        } else if (llm_args_is(&p, "--batch")) {
            if ((ok = llm_args_int(&p, 1, 2147483647LL, &v))) a->plan.batch = v;
        } else if (llm_args_is(&p, "--seq")) {
            if ((ok = llm_args_int(&p, 1, 2147483647LL, &v))) a->plan.seq_len = v;
            seq_given = 1;
        } else if (llm_args_is(&p, "--zero")) {
            if ((ok = llm_args_int(&p, 0, 3, &v))) a->plan.zero_stage = (int)v;
            if (!train_only) train_only = "--zero";
        } else if (llm_args_is(&p, "--weights") || llm_args_is(&p, "--kv") || llm_args_is(&p, "--kv-dtype")) {
            const char *val = llm_args_value(&p);
            llm_dtype t;
            int kv = !llm_args_is(&p, "--weights");
            if (!val) ok = 0;
            else if (llm_dtype_parse(val, &t) != LLM_OK)
                ok = llm_args_fail(&p, "%s: unknown dtype '%.40s' (%s)", p.flag, val,
                                   kv ? "f32 f16 bf16 int8" : "f32 f16 bf16 int8 int4 q8_32 q4_32");
            else if (kv && t != LLM_F32 && t != LLM_F16 && t != LLM_BF16 && t != LLM_INT8)
                ok = llm_args_fail(&p, "%s: the KV cache is f32, f16, bf16 or int8, not %s", p.flag, val);
            else if (kv) a->plan.kv = t;
            else a->plan.weights = t;
            if (!infer_only) infer_only = kv ? (llm_args_is(&p, "--kv") ? "--kv" : "--kv-dtype") : "--weights";
            if (!kv) weights_given = 1;
        } else if (llm_args_is(&p, "--overhead")) {
            if ((ok = llm_args_num(&p, 0, 1e6, &x))) a->plan.overhead_bytes = x * 1e9;
            overhead_given = 1;
        } else if (llm_args_is(&p, "--train")) {
            ok = llm_args_switch(&p);
            a->plan.train = 1;
        } else if (llm_args_is(&p, "--recompute")) {
            ok = llm_args_switch(&p);
            a->plan.recompute = 1;
            if (!train_only) train_only = "--recompute";
        } else if (llm_args_is(&p, "--flash")) {
            ok = llm_args_switch(&p);
            a->plan.flash = 1;
            if (!train_only) train_only = "--flash";
        } else if (llm_args_is(&p, "--list")) {
            ok = llm_args_switch(&p);
            a->list = 1;
        } else if (llm_args_is(&p, "--json")) {
            ok = llm_args_switch(&p);
            a->json = 1;
        } else if (llm_args_is_help(&p)) {
            ok = llm_args_switch(&p);
            a->help = 1;
        } else {
            ok = llm_args_unknown(&p);
        }
        if (!ok) return 0;
    }
    if (a->help || a->list) return 1;

    /* flags of the other mode are refused, never a silent switch of mode */
    if (!a->plan.train && train_only)
        return llm_args_fail(&p, "%s is a training option: add --train for a training plan (an inference plan keeps "
                                 "no activations and no optimizer state)", train_only);
    if (a->plan.train && infer_only)
        return llm_args_fail(&p, "%s is an inference option: training keeps 16-bit weights and gradients and fp32 "
                                 "Adam state (16 B per parameter); drop %s or --train", infer_only, infer_only);

    if (a->file && (model || config))
        return llm_args_fail(&p, "%s: the model comes from the file; drop %s", a->file_hf ? "--hf" : "--gguf",
                             model ? "--model" : "--config");
    if (a->file && weights_given)
        return llm_args_fail(&p, "--weights: the weights of %s are counted as stored, each tensor in its own type; drop "
                                 "--weights", a->file);
    if (ram > 0 && gpu_flag) return llm_args_fail(&p, "--ram: a plan for CPU RAM or for a GPU (--gpu), not both");

    /* the model: a file, a preset, then --config overrides (or a config from scratch) */
    if (a->file) {
        if (!llm_plan__file(a, &p)) return 0;
    } else if (model) {
        const llm_config *c = llm_preset(model);
        char near[160];
        if (!c) {
            llm_plan_suggest(model, 0, near, sizeof near);
            return llm_args_fail(&p, "unknown model '%.40s'; closest: %s (--list shows all)", model, near);
        }
        a->config = *c;
    } else if (config) {
        a->config = llm_config_default();
    } else {
        return llm_args_fail(&p, "no model: give --model NAME or --config key=value,... (--list shows the presets)");
    }
    if (config) {
        const char *s = config;
        while (*s) {
            char key[48], value[48];
            const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s), *e = strchr(s, '=');
            int k = -1;
            if (!e || e > end || e == s || (size_t)(e - s) >= sizeof key || (size_t)(end - e - 1) >= sizeof value) {
                int j, n = (int)(end - s);
                for (j = 0; j < LLM_PLAN_N_KEYS; j++) /* a known key without its value */
                    if ((int)strlen(llm_plan_keys[j].key) == n && strncmp(s, llm_plan_keys[j].key, (size_t)n) == 0)
                        return llm_args_fail(&p, "--config: expected key=value at '%.40s' (%s=%s)", s,
                                             llm_plan_keys[j].key, llm_plan_keys[j].type == LLM_PLAN_KEY_SWITCH ? "1" : "...");
                return llm_args_fail(&p, "--config: expected key=value at '%.40s'", s);
            }
            memcpy(key, s, (size_t)(e - s));
            key[e - s] = 0;
            memcpy(value, e + 1, (size_t)(end - e - 1));
            value[end - e - 1] = 0;
            if (!llm_plan__set(&a->config, key, value, &k, err, es)) return 0;
            set[k] = 1;
            s = comma ? comma + 1 : end;
        }
        if (model) {
            snprintf(a->name, sizeof a->name, "custom (from %s)", a->config.name);
            a->config.name = a->name;
        } else {
            /* from scratch: multi-head attention unless told, the context the plan asks for */
            a->config.name = "custom";
            for (i = 0; i < LLM_PLAN_N_KEYS; i++) {
                if (set[i]) continue;
                if (llm_plan_keys[i].off == offsetof(llm_config, n_kv_heads)) a->config.n_kv_heads = a->config.n_heads;
                if (llm_plan_keys[i].off == offsetof(llm_config, max_seq_len)) {
                    no_context = !seq_given; /* said after the model's other checks */
                    a->config.max_seq_len = seq_given ? (int)a->plan.seq_len : 1;
                }
            }
        }
    }
    {
        const char *why;
        if (llm_config_check(&a->config, &why) != LLM_OK)
            return llm_args_fail(&p, "model %s: %s", a->config.name ? a->config.name : "?", why);
        if (no_context) return llm_args_fail(&p, "--config: a model from scratch needs max_seq_len=N, or --seq N");
    }
    a->plan.model = &a->config;
    a->plan.gpu = llm_gpu_preset(gpu);
    if (ram > 0) {
        /* CPU RAM: its size only; no TFLOPS or bandwidth are assumed, so no times */
        a->ram.name = "ram";
        a->ram.full_name = "CPU RAM (--ram)";
        a->ram.mem_marketed_gb = ram / 1e9;
        a->ram.mem_bytes = ram;
        a->ram.memory_type = "RAM";
        a->plan.gpu = &a->ram;
    }
    if (!a->plan.gpu) {
        char near[160];
        llm_plan_suggest(gpu, 1, near, sizeof near);
        return llm_args_fail(&p, "unknown GPU '%.40s'; closest: %s (--list shows all)", gpu, near);
    }
    if (!a->plan.seq_len) a->plan.seq_len = a->config.max_seq_len;
    if (ram > 0 && !overhead_given) {
        /* no CUDA context on a CPU: the overhead is what llm-run allocates beyond the KV
           cache for one sequence (RoPE table, residual stream, scratch of 256-token
           chunks), when llm.h runs the model; else none */
        size_t sb = llm_state_bytes(&a->config, (int)a->plan.seq_len, 256, a->plan.kv);
        uint64_t kvb = llm_kv_cache_bytes(&a->config, a->plan.seq_len, 1, a->plan.kv);
        a->plan.overhead_bytes = sb > kvb ? (double)(sb - kvb) : 0.0;
    }

    /* past the trained context: learned positions have no row for it, RoPE was not trained on it */
    if (a->plan.seq_len > a->config.max_seq_len) {
        char b1[32], b2[32];
        llm_args_commas((unsigned long long)a->plan.seq_len, b1);
        llm_args_commas((unsigned long long)a->config.max_seq_len, b2);
        if (a->config.pos == LLM_POS_LEARNED)
            return llm_args_fail(&p, "%s %s: %s has learned positions for %s tokens; no position embedding "
                                     "exists past them", seq_flag, b1, a->config.name, b2);
        llm_plan__warn(a, "%s %s is past %s's context of %s tokens: the memory is counted, but the model was "
                          "not trained that long (it needs RoPE scaling or a long-context version)", seq_flag, b1,
                       a->config.name, b2);
    }

    /* tensor parallelism splits the heads evenly: the GPU count must divide them */
    if (!a->plan.train && a->plan.n_gpus > 1) {
        int g = a->plan.n_gpus, h = a->config.n_heads, kv = a->config.n_kv_heads;
        char d[80];
        if (!llm_plan_tp_ok(&a->config, g) && h % g != 0) {
            llm_plan__divisors(h, d, sizeof d);
            return llm_args_fail(&p, "--gpus %d: tensor parallelism splits the %d attention heads evenly over the "
                                     "GPUs, and %d does not divide %d (try %s)", g, h, g, h, d);
        }
        if (!llm_plan_tp_ok(&a->config, g))
            return llm_args_fail(&p, "--gpus %d: the %d KV heads can be neither split evenly over %d GPUs nor "
                                     "replicated evenly on them (a GPU count that divides %d or that %d divides)",
                                 g, kv, g, kv, kv);
        if (kv % g != 0)
            llm_plan__warn(a, "--gpus %d: %d KV heads over %d GPUs: each KV head is replicated on %d GPUs, so the "
                              "KV cache per GPU is one head's", g, kv, g, g / kv);
    }
    return 1;
}
#endif
