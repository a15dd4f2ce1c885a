/* llm-run.c: run a llama2.c checkpoint from the command line, as llama2.c's run.c does

   Build: make build/llm-run      (or: cc -O2 -march=native -DLLM_PTHREADS -pthread -I. examples/llm-run.c -lm)
   Usage: build/llm-run model.bin [options]; `build/llm-run --help` lists them: run.c's
   -t -p -s -n -i -z -m -y with run.c's meanings, plus --ids (the token ids, one per line,
   instead of the text) and --threads N. Same model, tokenizer, seed and flags give
   run.c's tokens. Where run.c quietly turns a bad value into a default (atoi, atof,
   clamping), llm-run refuses it and names the flag. Speed goes to stderr. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "llm-args.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *usage =
    "Usage:   llm-run <checkpoint> [options]\n"
    "Example: llm-run stories15M.bin -z tokenizer.bin -n 256 -i \"Once upon a time\"\n"
    "Options (run.c's, with run.c's meanings):\n"
    "  -t <float>  temperature, a finite number >= 0, default 1.0 (0 = greedy)\n"
    "  -p <float>  p value in top-p (nucleus) sampling, in [0,1], default 0.9\n"
    "  -s <int>    random seed, 0..9223372036854775807, default 0 = the time\n"
    "  -n <int>    number of steps (positions, prompt included), 0..2147483647, default 256;\n"
    "              0 or more than the model's context = the model's context\n"
    "  -i <string> input prompt\n"
    "  -z <string> tokenizer (llama2.c's tokenizer.bin format), default tokenizer.bin\n"
    "  -m <string> mode: generate (default); chat is not supported yet (issue 13)\n"
    "  -y <string> system prompt of -m chat (so, not yet)\n"
    "and:\n"
    "  --ids          print the token ids, one per line, instead of the text\n"
    "  --ids-in FILE  feed these token ids (decimal, white-space separated), one per step\n"
    "                 from position 0, no BOS added, no tokenizer needed; prints the\n"
    "                 greedy next id of each step, one per line\n"
    "  --logits-out FILE  with --ids-in: the logits of every step, float32 [n][vocab],\n"
    "                 little-endian\n"
    "  --ppl FILE     the perplexity of the text in FILE under the model (its tokenizer, -z;\n"
    "                 BOS first), in windows of -n positions (default, and at most, the\n"
    "                 model's context): the mean negative log-likelihood of each token after\n"
    "                 BOS in nats, exp of it, the token count and tokens/s\n"
    "  --json         with --ppl: the same figures as JSON\n"
    "  --threads <N>  worker threads, 1..1024, default 1 (a warning past the cores online)\n"
    "  -h, --help     this text\n"
    "Where run.c silently turns a bad value into something else, llm-run refuses it, naming\n"
    "the flag: a value that is not all a number (-t abc, -n 12x: run.c reads 0), -t below 0\n"
    "(run.c: 0), -p outside [0,1] (run.c: 0.9), -n below 0 (run.c: 0), -s below 0, an unknown\n"
    "flag or mode, -y without -m chat (run.c ignores it), a flag without its value.\n"
    "The checkpoint is a llama2.c .bin, a GGUF file (llama architecture; F32, F16, BF16 or\n"
    "ggml's Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K..Q6_K) or a Hugging Face directory (config.json\n"
    "and model.safetensors: llama, mistral, qwen2), told apart by their contents. The\n"
    "tokenizer is llama2.c's format for now (a GGUF's own tokenizer is issue 13).\n"
    "Files are checked first: a directory without config.json, an empty file, a text file,\n"
    "a tokenizer given as the checkpoint (or the reverse), or a tokenizer whose piece count\n"
    "differs from the model's vocabulary are each named as such.\n";

static double now_s(void) {
#if defined(CLOCK_MONOTONIC) && !defined(_WIN32)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* "llm-run: <what>: <why>"; the status's own text only when there is no reason. */
static int fail(const char *what, llm_status st, const char *why) {
    fprintf(stderr, "llm-run: %s: %s\n", what, why && *why ? why : llm_status_str(st));
    return 1;
}

/* The checkpoint: what the file is when it is not one. */
static int load_model(llm_model *m, const char *path) {
    char what[600];
    const char *why = "";
    llm_file_probe p = llm_args_probe_file(path);
    llm_status st;
    snprintf(what, sizeof what, "checkpoint '%.500s'", path);
    if (p.kind == LLM_FILE_GGUF) {
        if ((st = llm_gguf_load_file(m, path, &why)) == LLM_OK) return 0;
        return fail(what, st, why);
    }
    if (p.kind == LLM_FILE_DIRECTORY) {
        char cfg[700];
        FILE *f;
        snprintf(cfg, sizeof cfg, "%.600s/config.json", path);
        if (!(f = fopen(cfg, "rb"))) return fail(what, LLM_EIO, "a directory without config.json (not a Hugging Face model)");
        fclose(f);
        if ((st = llm_hf_load_dir(m, path, &why)) == LLM_OK) return 0;
        return fail(what, st, why);
    }
    if (p.kind == LLM_FILE_UNREADABLE || p.kind == LLM_FILE_EMPTY) return fail(what, LLM_EIO, p.what);
    if ((st = llm_llama2c_load_file(m, path, &why)) == LLM_OK) return 0;
    if (p.kind == LLM_FILE_TOKENIZER) {
        char why2[320];
        snprintf(why2, sizeof why2, "%s, not a checkpoint (a tokenizer goes after -z)", p.what);
        return fail(what, st, why2);
    }
    if (p.kind == LLM_FILE_TEXT) return fail(what, st, "a text file, not a llama2.c checkpoint");
    return fail(what, st, why);
}

/* The tokenizer: its piece count must be the model's vocabulary. */
static int load_tokenizer(llm_tokenizer *t, const char *path, int vocab, int is_default) {
    char what[600], why2[320], b1[32], b2[32];
    const char *why = "";
    llm_file_probe p = llm_args_probe_file(path);
    llm_status st;
    llm_model other;
    snprintf(what, sizeof what, "-z '%.500s'%s", path, is_default ? " (the default tokenizer)" : "");
    if (p.kind == LLM_FILE_GGUF)
        return fail(what, LLM_EUNSUPPORTED, "a GGUF file: its tokenizer is not read yet (issue 13); give -z a llama2.c tokenizer.bin");
    if (p.kind == LLM_FILE_UNREADABLE || p.kind == LLM_FILE_DIRECTORY || p.kind == LLM_FILE_EMPTY)
        return fail(what, LLM_EIO, p.what);
    if (p.kind == LLM_FILE_TOKENIZER && p.pieces != vocab) {
        snprintf(why2, sizeof why2, "the tokenizer has %s pieces, the model %s (the tokenizer of another model?)",
                 llm_args_commas((unsigned long long)p.pieces, b1), llm_args_commas((unsigned long long)vocab, b2));
        return fail(what, LLM_EFORMAT, why2);
    }
    if ((st = llm_tokenizer_load_file(t, path, vocab, &why)) == LLM_OK) return 0;
    if (p.kind != LLM_FILE_TOKENIZER && llm_llama2c_load_file(&other, path, NULL) == LLM_OK) {
        snprintf(why2, sizeof why2, "a llama2.c checkpoint (dim %d, %d layers, vocab %s), not a tokenizer",
                 other.config.d_model, other.config.n_layers, llm_args_commas((unsigned long long)other.config.vocab, b1));
        llm_model_free(&other);
        return fail(what, LLM_EFORMAT, why2);
    }
    if (p.kind == LLM_FILE_TEXT) return fail(what, st, "a text file, not a llama2.c tokenizer");
    return fail(what, st, why);
}

/* --ids-in: the ids of a file, one per step from position 0; the logits of each step to
   --logits-out (float32, little-endian), the greedy next id of each to stdout. */
static int run_ids(llm_model *m, const char *path, const char *out_path, int n_threads) {
    char what[600], tok[64];
    int n = 0, cap = 0, *ids = NULL, i, V = m->config.vocab, c, k;
    FILE *f, *out = NULL;
    llm_state s;
    llm_threads *th = NULL;
    llm_status st;
    float *logits;
    uint32_t one = 1;
    snprintf(what, sizeof what, "--ids-in '%.500s'", path);
    if (!(f = fopen(path, "rb"))) return fail(what, LLM_EIO, "cannot open it");
    for (;;) { /* decimal ids separated by white space; anything else is refused */
        long long v;
        char err[160];
        k = 0;
        while ((c = fgetc(f)) != EOF && isspace(c)) {}
        if (c == EOF) break;
        do tok[k++] = (char)c;
        while (k < 63 && (c = fgetc(f)) != EOF && !isspace(c));
        tok[k] = '\0';
        if (!llm_args_parse_int("an id", tok, 0, V - 1, &v, err, sizeof err)) {
            char why[240];
            fclose(f);
            snprintf(why, sizeof why, "id %d: %s (the model's vocabulary is %d)", n + 1, err, V);
            return fail(what, LLM_EFORMAT, why);
        }
        if (n == cap) {
            int *p = (int *)realloc(ids, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *ids);
            if (!p) return fail(what, LLM_ENOMEM, NULL);
            ids = p;
        }
        ids[n++] = (int)v;
    }
    if (ferror(f)) {
        fclose(f);
        return fail(what, LLM_EIO, "a directory, or not readable");
    }
    fclose(f);
    if (n == 0) return fail(what, LLM_EFORMAT, "no ids in the file");
    if (out_path && memcmp(&one, "\1", 1) != 0) return fail("--logits-out", LLM_EUNSUPPORTED, "writes little-endian floats: a big-endian host would need a swap");
    if (out_path && !(out = fopen(out_path, "wb"))) return fail("--logits-out", LLM_EIO, "cannot create the file");
    logits = (float *)malloc((size_t)V * sizeof *logits);
    if (!logits) return fail("memory", LLM_ENOMEM, NULL);
    if ((st = llm_state_create(&s, &m->config, n, 1, LLM_F32)) != LLM_OK) return fail("state", st, NULL);
    if (n_threads > 1 && (st = llm_threads_create(&th, n_threads)) != LLM_OK) return fail("--threads", st, NULL);
    for (i = 0; i < n; i++) {
        if ((st = llm_forward(&s, &m->weights, &ids[i], 1, i, logits, 0, th)) != LLM_OK) return fail("forward", st, NULL);
        if (out && fwrite(logits, sizeof(float), (size_t)V, out) != (size_t)V) return fail("--logits-out", LLM_EIO, "short write");
        printf("%d\n", llm_argmax(logits, V));
    }
    if (out && fclose(out) != 0) return fail("--logits-out", LLM_EIO, "cannot finish writing the file");
    llm_state_free(&s);
    llm_threads_free(th);
    llm_model_free(m);
    free(logits), free(ids);
    return 0;
}

/* --ppl: the text's ids (BOS, then the text) cut into windows of C positions (the model's
   context, or -n) that overlap by one id; each window runs from position 0 with an empty
   cache, and each of its ids after the first is predicted from those before it. So every
   id after BOS is scored exactly once, from at most C - 1 ids of context. NLL = mean of
   -log softmax(logits)[id] in nats (summed in double); perplexity = exp(NLL). */
enum { PPL_CHUNK = 64 }; /* positions per forward call: logits of [64][vocab] at a time */
static int run_ppl(llm_model *m, const llm_tokenizer *tok, const char *path, int C, int json, int n_threads) {
    char what[600];
    int V = m->config.vocab, n = 0, *ids, n_win = 0, n_pred = 0, start, i;
    long sz;
    char *text;
    FILE *f;
    llm_state s;
    llm_threads *th = NULL;
    llm_status st;
    float *logits;
    double nll = 0, t0, secs, ppl;
    llm_file_probe probe = llm_args_probe_file(path);
    snprintf(what, sizeof what, "--ppl '%.500s'", path);
    if (probe.kind == LLM_FILE_UNREADABLE || probe.kind == LLM_FILE_DIRECTORY) return fail(what, LLM_EIO, probe.what);
    if (probe.kind == LLM_FILE_EMPTY) return fail(what, LLM_EINVAL, "an empty file (0 bytes): no text to score");
    if (!(f = fopen(path, "rb"))) return fail(what, LLM_EIO, "cannot open it");
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return fail(what, LLM_EIO, "cannot seek in it");
    }
    if (sz > (1L << 30)) {
        fclose(f);
        return fail(what, LLM_ERANGE, "more than 1 GiB of text");
    }
    text = (char *)malloc((size_t)sz + 1);
    if (!text) return fail(what, LLM_ENOMEM, NULL);
    if (fread(text, 1, (size_t)sz, f) != (size_t)sz) {
        fclose(f);
        return fail(what, LLM_EIO, "cannot read it");
    }
    fclose(f);
    text[sz] = '\0';
    if (memchr(text, 0, (size_t)sz)) return fail(what, LLM_EFORMAT, "a NUL byte in it: not a text file");
    ids = (int *)malloc(((size_t)sz + 3) * sizeof *ids);
    logits = (float *)malloc((size_t)PPL_CHUNK * (size_t)V * sizeof *logits);
    if (!ids || !logits) return fail(what, LLM_ENOMEM, NULL);
    if ((st = llm_tokenize(tok, text, 1, 0, ids, (int)sz + 3, &n)) != LLM_OK) return fail(what, st, NULL);
    free(text);
    if (n < 2) return fail(what, LLM_EINVAL, "no tokens after BOS: no text to score");
    if ((st = llm_state_create(&s, &m->config, C, PPL_CHUNK, LLM_F32)) != LLM_OK) return fail("state", st, NULL);
    if (n_threads > 1 && (st = llm_threads_create(&th, n_threads)) != LLM_OK) return fail("--threads", st, NULL);
    t0 = now_s();
    for (start = 0; start < n - 1; start += C - 1, n_win++) {
        int len = n - start < C ? n - start : C, p, k;
        for (p = 0; p < len - 1; p += PPL_CHUNK) { /* positions p.. of the window; the last one predicts nothing */
            int nt = len - 1 - p < PPL_CHUNK ? len - 1 - p : PPL_CHUNK;
            if ((st = llm_forward(&s, &m->weights, ids + start + p, nt, p, logits, 1, th)) != LLM_OK)
                return fail("forward", st, NULL);
            for (k = 0; k < nt; k++) {
                const float *l = logits + (size_t)k * V;
                float mx = l[0];
                double sum = 0;
                for (i = 1; i < V; i++) mx = l[i] > mx ? l[i] : mx;
                for (i = 0; i < V; i++) sum += exp((double)l[i] - mx);
                nll += log(sum) + mx - l[ids[start + p + k + 1]];
            }
            n_pred += nt;
        }
    }
    secs = now_s() - t0;
    nll /= n_pred;
    ppl = exp(nll);
    if (json)
        printf("{\"tokens\": %d, \"predicted\": %d, \"windows\": %d, \"context\": %d, \"nll_nats\": %.9g, "
               "\"perplexity\": %.9g, \"seconds\": %.6g, \"tokens_per_second\": %.6g}\n",
               n, n_pred, n_win, C, nll, ppl, secs, secs > 0 ? n_pred / secs : 0.0);
    else
        printf("perplexity of %s under the model\n"
               "  tokens       %d (BOS + the text), %d predicted, in %d window%s of up to %d\n"
               "  NLL          %.9g nats per predicted token\n"
               "  perplexity   %.9g\n"
               "  speed        %.6g tokens/s (%.6g s, %d thread%s)\n",
               what + 6, n, n_pred, n_win, n_win > 1 ? "s" : "", C, nll, ppl, secs > 0 ? n_pred / secs : 0.0, secs,
               n_threads, n_threads > 1 ? "s" : "");
    llm_state_free(&s);
    llm_threads_free(th);
    free(ids), free(logits);
    return 0;
}

int main(int argc, char **argv) {
    const char *ckpt = NULL, *tok_path = "tokenizer.bin", *prompt = "", *mode = "generate", *system = NULL;
    float temperature = 1.0f, topp = 0.9f;
    unsigned long long seed = 0;
    int steps = 256, steps_given = 0, print_ids = 0, n_threads = 1, i, n_prompt = 0, n_pre = 0, pos, token, next, *ids, cores;
    int tok_given = 0;
    const char *ids_in = NULL, *logits_out = NULL, *ppl_path = NULL;
    int json = 0;
    llm_model model;
    llm_tokenizer tok;
    llm_state state;
    llm_sampler sampler;
    llm_threads *th = NULL;
    llm_status st;
    llm_args a;
    char err[256];
    float *logits;
    double t0, t_first, t_end;

    /* run.c's command line: the checkpoint, then "-x value" pairs; every value checked */
    if (argc < 2) {
        fputs(usage, stderr);
        return 1;
    }
    llm_args_init(&a, argc, argv, err, sizeof err);
    while (llm_args_next(&a)) {
        long long v;
        double x;
        int ok = 1;
        if (llm_args_positional(&a)) {
            if (ckpt) ok = llm_args_fail(&a, "a second checkpoint '%.40s' (the first: '%.40s')", llm_args_arg(&a), ckpt);
            else ckpt = llm_args_arg(&a);
        } else if (llm_args_is_help(&a)) {
            if (!llm_args_switch(&a)) ok = 0;
            else {
                fputs(usage, stdout);
                return 0;
            }
        } else if (llm_args_is(&a, "--ids")) {
            ok = llm_args_switch(&a);
            print_ids = 1;
        } else if (llm_args_is(&a, "--ids-in")) {
            ok = (ids_in = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "--logits-out")) {
            ok = (logits_out = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "--ppl")) {
            ok = (ppl_path = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "--json")) {
            ok = llm_args_switch(&a);
            json = 1;
        } else if (llm_args_is(&a, "--threads")) {
            if ((ok = llm_args_int(&a, 1, 1024, &v))) n_threads = (int)v;
        } else if (llm_args_is(&a, "-t")) {
            if ((ok = llm_args_num(&a, 0, HUGE_VAL, &x))) temperature = (float)x;
            if (ok && !isfinite(temperature)) ok = llm_args_fail(&a, "-t: %g is too large for a float", x);
        } else if (llm_args_is(&a, "-p")) {
            if ((ok = llm_args_num(&a, 0, 1, &x))) topp = (float)x;
        } else if (llm_args_is(&a, "-s")) {
            if ((ok = llm_args_int(&a, 0, 9223372036854775807LL, &v))) seed = (unsigned long long)v;
        } else if (llm_args_is(&a, "-n")) {
            if ((ok = llm_args_int(&a, 0, 2147483647LL, &v))) steps = (int)v, steps_given = 1;
        } else if (llm_args_is(&a, "-i")) {
            ok = (prompt = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "-z")) {
            ok = (tok_path = llm_args_value(&a)) != NULL;
            tok_given = 1;
        } else if (llm_args_is(&a, "-m")) {
            ok = (mode = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "-y")) {
            ok = (system = llm_args_value(&a)) != NULL;
        } else {
            ok = llm_args_unknown(&a);
        }
        if (!ok) {
            fprintf(stderr, "llm-run: %s\n", err);
            return 1;
        }
    }
    if (!ckpt) {
        fprintf(stderr, "llm-run: no checkpoint given (usage: llm-run <checkpoint> [options]; --help)\n");
        return 1;
    }
    if (strcmp(mode, "chat") == 0) {
        fprintf(stderr, "llm-run: -m chat: not supported yet (issue 13 adds chat); -m generate runs the model\n");
        return 1;
    }
    if (strcmp(mode, "generate") != 0) {
        fprintf(stderr, "llm-run: -m: unknown mode '%.40s' (generate; chat comes with issue 13)\n", mode);
        return 1;
    }
    if (system) {
        fprintf(stderr, "llm-run: -y: a system prompt needs -m chat, which is not supported yet (issue 13)\n");
        return 1;
    }
    cores = llm_args_cores();
    if (cores > 0 && n_threads > cores)
        fprintf(stderr,
                "llm-run: warning: --threads %d is more than the %d cores online: threads sharing a core wait for "
                "each other (expect it slower than --threads %d)\n",
                n_threads, cores, cores);
    /* run.c's parameter fix: seed 0 is the time */
    if (seed == 0) seed = (unsigned long long)time(NULL);

    if (logits_out && !ids_in) {
        fprintf(stderr, "llm-run: --logits-out: needs --ids-in (the ids whose logits to write)\n");
        return 1;
    }
    if (json && !ppl_path) {
        fprintf(stderr, "llm-run: --json: needs --ppl (the figures it prints)\n");
        return 1;
    }
    if (ppl_path && ids_in) {
        fprintf(stderr, "llm-run: --ppl: not with --ids-in (one run scores a text, the other feeds ids)\n");
        return 1;
    }
    /* the model (weights point into the file's bytes), its tokenizer, threads */
    if (load_model(&model, ckpt)) return 1;
    if (ids_in) return run_ids(&model, ids_in, logits_out, n_threads);
    if (ppl_path) { /* windows of -n positions, 2 .. the context (0: the context) */
        int rc, win = steps_given && steps ? steps : model.config.max_seq_len;
        if (win < 2 || win > model.config.max_seq_len) {
            fprintf(stderr, "llm-run: -n %d: --ppl's windows need 2 .. %d positions (the model's context)\n", win,
                    model.config.max_seq_len);
            return 1;
        }
        if (load_tokenizer(&tok, tok_path, model.config.vocab, !tok_given)) return 1;
        rc = run_ppl(&model, &tok, ppl_path, win, json, n_threads);
        llm_tokenizer_free(&tok);
        llm_model_free(&model);
        return rc;
    }
    if (steps > model.config.max_seq_len)
        fprintf(stderr, "llm-run: -n %d is past the model's context of %d positions: running %d\n", steps,
                model.config.max_seq_len, model.config.max_seq_len);
    if (steps == 0 || steps > model.config.max_seq_len) steps = model.config.max_seq_len;
    if (load_tokenizer(&tok, tok_path, model.config.vocab, !tok_given)) return 1;
    if (n_threads > 1 && (st = llm_threads_create(&th, n_threads)) != LLM_OK)
        return fail("--threads", st,
                    st == LLM_EUNSUPPORTED ? "this build has no threads (compile with -DLLM_PTHREADS -pthread)" : NULL);

    /* the prompt: BOS, then its tokens */
    ids = (int *)malloc((strlen(prompt) + 3) * sizeof *ids);
    logits = (float *)malloc((size_t)model.config.vocab * sizeof *logits);
    if (!ids || !logits) return fail("memory", LLM_ENOMEM, NULL);
    if ((st = llm_tokenize(&tok, prompt, 1, 0, ids, (int)strlen(prompt) + 3, &n_prompt)) != LLM_OK)
        return fail("-i", st, NULL);

    /* all the memory the loop needs, allocated once: KV cache for `steps` positions,
       activations for a prefill of the whole prompt (in chunks of at most 256) */
    st = llm_state_create(&state, &model.config, steps, n_prompt < 256 ? n_prompt : 256, LLM_F32);
    if (st != LLM_OK) return fail("state", st, NULL);
    if ((st = llm_sampler_create(&sampler, model.config.vocab, temperature, topp, seed)) != LLM_OK)
        return fail("sampler", st, NULL);

    t0 = now_s();
    /* positions 0..n_prompt-2 are prompt tokens, forced (run.c prints them as it goes) */
    token = ids[0];
    if (print_ids) printf("%d\n", token);
    pos = 0;
    if (n_prompt > 1 && steps > 0) {
        n_pre = n_prompt - 1 < steps ? n_prompt - 1 : steps;
        /* one prefill over BOS + the prompt but its last token; its logits are unused
           unless the prompt fills all steps */
        if ((st = llm_forward(&state, &model.weights, ids, n_pre, 0, logits, 0, th)) != LLM_OK)
            return fail("forward", st, NULL);
        for (i = 1; i <= n_pre; i++) {
            int len;
            const char *piece = llm_token_piece(&tok, ids[i - 1], ids[i], &len);
            if (print_ids) printf("%d\n", ids[i]);
            else if (llm_piece_printable(piece, len)) fwrite(piece, 1, (size_t)len, stdout);
        }
        fflush(stdout);
        pos = n_pre;
        token = ids[n_pre];
    }
    t_first = now_s(); /* the end of the prefill (t0 itself when there was none) */
    /* the generation loop: forward one token, sample the next, print it */
    for (; pos < steps; pos++) {
        const char *piece;
        int len;
        if ((st = llm_forward(&state, &model.weights, &token, 1, pos, logits, 0, th)) != LLM_OK)
            return fail("forward", st, NULL);
        next = llm_sample(&sampler, logits);
        if (next == 1) { /* BOS ends a story in llama2.c's models */
            pos++;
            break;
        }
        piece = llm_token_piece(&tok, token, next, &len);
        if (print_ids) printf("%d\n", next);
        else if (llm_piece_printable(piece, len)) fwrite(piece, 1, (size_t)len, stdout);
        fflush(stdout);
        token = next;
    }
    if (!print_ids) printf("\n");
    fflush(stdout); /* the text before the speed lines on stderr */
    t_end = now_s();

    /* run.c's speed line, in its format but not its timing: run.c runs one position per
       step and counts the pos - 1 positions after its first step. Here positions
       0..n_pre-1 go in one prefill call, so the line counts all pos positions (prefill +
       decode) over the time from the start of the prefill to the end, and says so. */
    if (pos > 0 && t_end > t0)
        fprintf(stderr, "achieved tok/s: %f (all %d positions, prefill included)\n", pos / (t_end - t0), pos);
    /* ours: the prefill of n_pre positions (BOS + the prompt but its last token; the last
       one is the first decode step) and the decode steps after it, timed separately */
    if (t_end > t_first) {
        int n_dec = pos - n_pre;
        double bytes = llm_decode_bytes(&model.config, &model.weights, LLM_F32, pos / 2);
        double dec_s = t_end - t_first;
        if (n_dec > 0)
            fprintf(stderr,
                    "llm-run: prefill %d positions in %.3f ms (cold caches); decode %d tokens at %.1f tok/s; %.3f MB "
                    "read per token (weights + KV cache, MB = 1e6 B) = %.2f GB/s; %d thread%s\n",
                    n_pre, 1e3 * (t_first - t0), n_dec, n_dec / dec_s, bytes / 1e6, bytes * n_dec / dec_s / 1e9,
                    n_threads, n_threads > 1 ? "s" : "");
    }
    llm_sampler_free(&sampler);
    llm_state_free(&state);
    llm_tokenizer_free(&tok);
    llm_model_free(&model);
    llm_threads_free(th);
    free(ids);
    free(logits);
    return 0;
}
