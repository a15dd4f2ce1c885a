/* llm-plan-args.h: the command-line parser of build/llm-plan, kept in a header of its
   own so tests and a fuzz target can call it on any argv without running the program.
   Include after llm.h. Pure: no output, no exit, no allocation; errors are one line in
   the caller's buffer. */
#ifndef LLM_PLAN_ARGS_H
#define LLM_PLAN_ARGS_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct llm_plan_args {
    llm_plan plan;      /* plan.model points at config below after a successful parse */
    llm_config config;  /* the model: a preset's copy with any --config overrides */
    char name[96];      /* "custom (from llama-2-7b)" when --config changes a preset */
    int list, json, help;
} llm_plan_args; /* holds pointers into itself after parsing: do not copy it */

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

/* The three preset names (models, or GPUs if gpu) closest to `name` by edit distance,
   comma-separated. */
static void llm_plan_suggest(const char *name, int gpu, char *out, size_t size) {
    const char *best[3] = {NULL, NULL, NULL};
    int dist[3] = {1 << 30, 1 << 30, 1 << 30}, i, k;
    for (i = 0;; i++) {
        const char *n = gpu ? (llm_gpu_preset_at(i) ? llm_gpu_preset_at(i)->name : NULL)
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

/* A whole number in [lo, hi], all of s. */
static int llm_plan__int(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    long long v;
    if (!s || !*s) return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}
/* A finite decimal number in [lo, hi]. */
static int llm_plan__num(const char *s, double lo, double hi, double *out) {
    char *end;
    double v;
    if (!s || !*s) return 0;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || !(v >= lo && v <= hi)) return 0;
    *out = v;
    return 1;
}

/* One --config key=value onto c. Returns 0 with a message in err if bad. */
static int llm_plan__set(llm_config *c, const char *key, const char *val, char *err, size_t es) {
    static const struct { const char *key; size_t off; } ints[] = {
        {"d_model", offsetof(llm_config, d_model)},       {"n_layers", offsetof(llm_config, n_layers)},
        {"n_heads", offsetof(llm_config, n_heads)},       {"n_kv_heads", offsetof(llm_config, n_kv_heads)},
        {"head_dim", offsetof(llm_config, head_dim)},     {"d_ff", offsetof(llm_config, d_ff)},
        {"vocab", offsetof(llm_config, vocab)},           {"max_seq_len", offsetof(llm_config, max_seq_len)},
        {"norm_bias", offsetof(llm_config, norm_bias)},   {"tied", offsetof(llm_config, tied_embeddings)},
        {"n_experts", offsetof(llm_config, n_experts)},   {"top_k", offsetof(llm_config, n_experts_per_tok)},
        {"shared_experts", offsetof(llm_config, n_shared_experts)},
        {"rotary_dim", offsetof(llm_config, rotary_dim)}, {"sliding_window", offsetof(llm_config, sliding_window)},
        {"post_norm", offsetof(llm_config, post_norm)}};
    long long v;
    double x;
    size_t i;
    for (i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(key, ints[i].key) == 0) {
            if (!llm_plan__int(val, 0, 2147483647LL, &v)) {
                snprintf(err, es, "--config %s: '%.40s' is not a whole number in 0..2147483647", key, val);
                return 0;
            }
            *(int *)(void *)((char *)c + ints[i].off) = (int)v;
            return 1;
        }
#define LLM_PLAN__ENUM(k, field, type, a, va, b, vb, cc, vc)                                      \
    if (strcmp(key, k) == 0) {                                                                    \
        if (strcmp(val, a) == 0) c->field = (type)(va);                                           \
        else if (strcmp(val, b) == 0) c->field = (type)(vb);                                      \
        else if ((cc)[0] && strcmp(val, cc) == 0) c->field = (type)(vc);                          \
        else {                                                                                    \
            snprintf(err, es, "--config %s: '%.40s' is not one of %s %s %s", key, val, a, b, cc); \
            return 0;                                                                             \
        }                                                                                         \
        return 1;                                                                                 \
    }
    LLM_PLAN__ENUM("norm", norm, llm_norm_kind, "rms", LLM_NORM_RMS, "layer", LLM_NORM_LAYER, "", 0)
    LLM_PLAN__ENUM("ffn", ffn, llm_ffn_kind, "swiglu", LLM_FFN_SWIGLU, "gelu", LLM_FFN_GELU, "geglu", LLM_FFN_GEGLU)
    LLM_PLAN__ENUM("pos", pos, llm_pos_kind, "rope", LLM_POS_ROPE, "learned", LLM_POS_LEARNED, "none", LLM_POS_NONE)
    LLM_PLAN__ENUM("bias", bias, llm_bias_kind, "none", LLM_BIAS_NONE, "qkv", LLM_BIAS_QKV, "all", LLM_BIAS_ALL)
#undef LLM_PLAN__ENUM
    if (strcmp(key, "rope_theta") == 0) {
        if (!llm_plan__num(val, 0, 1e30, &x)) {
            snprintf(err, es, "--config rope_theta: '%.40s' is not a number in 0..1e30", val);
            return 0;
        }
        c->rope_theta = (float)x;
        return 1;
    }
    snprintf(err, es, "--config: unknown key '%.40s' (d_model n_layers n_heads n_kv_heads head_dim d_ff vocab "
                      "max_seq_len norm ffn pos bias tied ...)", key);
    return 0;
}

/* Parse argv into a. Returns 1 on success, 0 with a one-line message in err. */
static int llm_plan_parse_args(llm_plan_args *a, int argc, char **argv, char *err, size_t es) {
    const char *model = NULL, *config = NULL, *gpu = "a100-80gb";
    char buf[64];
    long long v;
    double x;
    int i;
    memset(a, 0, sizeof *a);
    a->plan = llm_plan_default();
    if (es) err[0] = 0;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL, *eq;
        size_t n;
        if (!arg) break;
        /* --flag=value or --flag value */
        eq = strchr(arg, '=');
        n = eq ? (size_t)(eq - arg) : strlen(arg);
        if (n >= sizeof buf) n = sizeof buf - 1;
        memcpy(buf, arg, n);
        buf[n] = 0;
#define LLM_PLAN__IS(name) (strcmp(buf, name) == 0)
#define LLM_PLAN__VALUE()                                                        \
    do {                                                                         \
        if (eq) val = eq + 1;                                                    \
        else if (i + 1 < argc && argv[i + 1]) val = argv[++i];                   \
        else {                                                                   \
            snprintf(err, es, "%s needs a value", buf);                          \
            return 0;                                                            \
        }                                                                        \
    } while (0)
#define LLM_PLAN__WHOLE(field, lo, hi)                                                                 \
    do {                                                                                               \
        LLM_PLAN__VALUE();                                                                             \
        if (!llm_plan__int(val, lo, hi, &v)) {                                                         \
            snprintf(err, es, "%s: '%.40s' is not a whole number in %lld..%lld", buf, val, (long long)(lo), \
                     (long long)(hi));                                                                 \
            return 0;                                                                                  \
        }                                                                                              \
        field = v;                                                                                     \
    } while (0)
        if (LLM_PLAN__IS("--model") || LLM_PLAN__IS("-m")) {
            LLM_PLAN__VALUE();
            model = val;
        } else if (LLM_PLAN__IS("--config")) {
            LLM_PLAN__VALUE();
            config = val;
        } else if (LLM_PLAN__IS("--gpu")) {
            LLM_PLAN__VALUE();
            gpu = val;
        } else if (LLM_PLAN__IS("--gpus")) {
            LLM_PLAN__WHOLE(a->plan.n_gpus, 1, 2147483647LL);
        } else if (LLM_PLAN__IS("--batch")) {
            LLM_PLAN__WHOLE(a->plan.batch, 1, 2147483647LL);
        } else if (LLM_PLAN__IS("--seq")) {
            LLM_PLAN__WHOLE(a->plan.seq_len, 1, 2147483647LL);
        } else if (LLM_PLAN__IS("--zero")) {
            LLM_PLAN__WHOLE(a->plan.zero_stage, 0, 3);
            a->plan.train = 1; /* ZeRO only means something in training */
        } else if (LLM_PLAN__IS("--weights") || LLM_PLAN__IS("--kv")) {
            llm_dtype t;
            LLM_PLAN__VALUE();
            if (llm_dtype_parse(val, &t) != LLM_OK) {
                snprintf(err, es, "%s: unknown dtype '%.40s' (f32 f16 bf16 int8 int4 q8_32 q4_32)", buf, val);
                return 0;
            }
            if (buf[2] == 'w') a->plan.weights = t;
            else a->plan.kv = t;
        } else if (LLM_PLAN__IS("--overhead")) {
            LLM_PLAN__VALUE();
            if (!llm_plan__num(val, 0, 1e6, &x)) {
                snprintf(err, es, "--overhead: '%.40s' is not a number of GB in 0..1e6", val);
                return 0;
            }
            a->plan.overhead_bytes = x * 1e9;
        } else if (LLM_PLAN__IS("--train") && !eq) {
            a->plan.train = 1;
        } else if (LLM_PLAN__IS("--recompute") && !eq) {
            a->plan.recompute = 1;
            a->plan.train = 1;
        } else if (LLM_PLAN__IS("--flash") && !eq) {
            a->plan.flash = 1;
            a->plan.train = 1;
        } else if (LLM_PLAN__IS("--list") && !eq) {
            a->list = 1;
        } else if (LLM_PLAN__IS("--json") && !eq) {
            a->json = 1;
        } else if ((LLM_PLAN__IS("--help") || LLM_PLAN__IS("-h")) && !eq) {
            a->help = 1;
        } else {
            snprintf(err, es, "unknown option '%.40s' (try --help)", arg);
            return 0;
        }
#undef LLM_PLAN__IS
#undef LLM_PLAN__VALUE
#undef LLM_PLAN__WHOLE
    }
    if (a->help || a->list) return 1;

    /* the model: a preset, then --config overrides (or a config from scratch) */
    if (model) {
        const llm_config *c = llm_preset(model);
        char near[160];
        if (!c) {
            llm_plan_suggest(model, 0, near, sizeof near);
            snprintf(err, es, "unknown model '%.40s'; closest: %s (--list shows all)", model, near);
            return 0;
        }
        a->config = *c;
    } else if (config) {
        a->config = llm_config_default();
    } else {
        snprintf(err, es, "no model: give --model NAME or --config key=value,... (--list shows the presets)");
        return 0;
    }
    if (config) {
        const char *s = config;
        while (*s) {
            char key[48], value[48];
            const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s), *e = strchr(s, '=');
            if (!e || e > end || e == s || (size_t)(e - s) >= sizeof key || (size_t)(end - e - 1) >= sizeof value) {
                snprintf(err, es, "--config: expected key=value at '%.40s'", s);
                return 0;
            }
            memcpy(key, s, (size_t)(e - s));
            key[e - s] = 0;
            memcpy(value, e + 1, (size_t)(end - e - 1));
            value[end - e - 1] = 0;
            if (!llm_plan__set(&a->config, key, value, err, es)) return 0;
            s = comma ? comma + 1 : end;
        }
        if (model) {
            snprintf(a->name, sizeof a->name, "custom (from %s)", a->config.name);
            a->config.name = a->name;
        } else {
            a->config.name = "custom";
        }
    }
    {
        const char *why;
        if (llm_config_check(&a->config, &why) != LLM_OK) {
            snprintf(err, es, "model %s: %s", a->config.name ? a->config.name : "?", why);
            return 0;
        }
    }
    a->plan.model = &a->config;
    a->plan.gpu = llm_gpu_preset(gpu);
    if (!a->plan.gpu) {
        char near[160];
        llm_plan_suggest(gpu, 1, near, sizeof near);
        snprintf(err, es, "unknown GPU '%.40s'; closest: %s (--list shows all)", gpu, near);
        return 0;
    }
    if (!a->plan.seq_len) a->plan.seq_len = a->config.max_seq_len;
    return 1;
}
#endif
