/* llm-run.c: run a llama2.c checkpoint from the command line, as llama2.c's run.c does

   Build: make build/llm-run      (or: cc -O2 -march=native -DLLM_PTHREADS -pthread -I. examples/llm-run.c -lm)
   Usage: build/llm-run model.bin [options]; `build/llm-run --help` lists them: run.c's
   -t -p -s -n -i -z -m -y with run.c's meanings, plus --ids (the token ids, one per line,
   instead of the text), --threads N, the sampler chain's flags and chat mode's. Same model, tokenizer, seed and flags give
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
    "  -s <int>    random seed, 0..9223372036854775807, default 0 = the time (also --seed)\n"
    "  -n <int>    number of steps (positions, prompt included), 0..2147483647, default 256;\n"
    "              0 or more than the model's context = the model's context\n"
    "  -i <string> input prompt\n"
    "  -z <string> tokenizer: llama2.c's tokenizer.bin, a GGUF or a tokenizer.json; default: a\n"
    "              GGUF's own, a Hugging Face directory's tokenizer.json, else tokenizer.bin\n"
    "  -m <string> mode: generate (default) or chat: user turns are lines of stdin, each\n"
    "              reply streamed to stdout on a line of its own (a GGUF checkpoint: its\n"
    "              tokenizer, chat template and end-of-turn tokens; a Hugging Face\n"
    "              directory: tokenizer.json and tokenizer_config.json's chat_template)\n"
    "  -y <string> system prompt of -m chat\n"
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
    "  --parallel <N> -m generate as N streams, 1..64, seeds s, s+1, ..., s+N-1, generated\n"
    "                 together (each step reads the weights once for all of them); printed\n"
    "                 when all have ended, each after a '--- stream k of N (seed S) ---'\n"
    "                 line as -s S alone prints it (--ids too); -n counts each stream's\n"
    "                 positions and must leave room past the prompt\n"
    "  --lora FILE    apply a LoRA adapter (llama.cpp's GGUF adapter layout, F32; llm.h's\n"
    "                 llm_lora_save_gguf writes one) at inference, without merging it\n";
/* (two strings: C99 compilers need only take 4095 characters in one) */
static const char *usage_more =
    "Sampling beyond run.c's (any of these switches to llm.h's sampler chain; with -t -p -s\n"
    "alone it draws run.c's tokens):\n"
    "  --top-k <N>    keep the N most likely tokens, 0 = off (default)\n"
    "  --min-p <p>    drop tokens below p times the most likely one, in [0,1], 0 = off\n"
    "  --repeat-penalty <x>  divide (logit > 0) or multiply a repeated token's logit by x,\n"
    "                 0.001..1000, default 1 = off (llama.cpp's rule)\n"
    "  --repeat-last-n <N>   the window of generated tokens the penalties count, default 64\n"
    "  --frequency-penalty <x> / --presence-penalty <x>  minus x per repeat / once, -1000..1000\n"
    "Chat mode:\n"
    "  --template <name>  the chat template instead of the file's: llama3 chatml qwen3 gemma\n"
    "                 phi3 llama2 mistral-v3 mistral-v1\n"
    "  --stop <string>    also end a reply at this text (up to 8; not shown)\n"
    "  -h, --help     this text\n"
    "Where run.c silently turns a bad value into something else, llm-run refuses it, naming\n"
    "the flag: a value that is not all a number (-t abc, -n 12x: run.c reads 0), -t below 0\n"
    "(run.c: 0), -p outside [0,1] (run.c: 0.9), -n below 0 (run.c: 0), -s below 0, an unknown\n"
    "flag or mode, -y without -m chat (run.c ignores it), a flag without its value.\n"
    "The checkpoint is a llama2.c .bin, a GGUF file (llama architecture; F32, F16, BF16 or\n"
    "ggml's Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K..Q6_K) or a Hugging Face directory (config.json\n"
    "and model.safetensors: llama, mistral, qwen2), told apart by their contents. A llama2.c\n"
    "tokenizer.bin encodes as run.c does (its exact ids); a GGUF's or tokenizer.json's\n"
    "vocabulary (SentencePiece or byte-level BPE) adds BOS when the file asks for it, and\n"
    "generation stops at its EOS / EOT.\n"
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

/* The projections rearranged for this build's fastest kernel (llm_model_repack: ggml's
   block formats, fp32, fp16 and bf16, where llm_weight_repack_worth says so), in place (the file was
   read into memory; mapped read-only under LLM_MMAP, so copied there), the temporary
   freed after. Same values; a token gets the same bits in a prefill, a batch or alone. */
static int repack(llm_model *m, const char *what) {
#ifdef LLM_MMAP
    const int in_place = 0;
#else
    const int in_place = 1;
#endif
    size_t n = llm_model_repack_bytes(m, in_place);
    void *mem = n ? malloc(n) : NULL;
    llm_status st;
    if (!n) return 0;
    if (!mem) return fail(what, LLM_ENOMEM, "no memory to repack the weights");
    if ((st = llm_model_repack(m, mem, n, in_place)) != LLM_OK) return free(mem), fail(what, st, "repacking the weights");
    if (in_place) free(mem);
    return 0; /* (out of place, mem lives as long as the model: the program's life) */
}

/* The checkpoint: what the file is when it is not one. */
static int load_model(llm_model *m, const char *path) {
    char what[600];
    const char *why = "";
    llm_file_probe p = llm_args_probe_file(path);
    llm_status st;
    snprintf(what, sizeof what, "checkpoint '%.500s'", path);
    if (p.kind == LLM_FILE_GGUF) {
        if ((st = llm_gguf_load_file(m, path, &why)) == LLM_OK) return repack(m, what);
        return fail(what, st, why);
    }
    if (p.kind == LLM_FILE_DIRECTORY) {
        char cfg[700];
        FILE *f;
        snprintf(cfg, sizeof cfg, "%.600s/config.json", path);
        if (!(f = fopen(cfg, "rb"))) return fail(what, LLM_EIO, "a directory without config.json (not a Hugging Face model)");
        fclose(f);
        if ((st = llm_hf_load_dir(m, path, &why)) == LLM_OK) return repack(m, what);
        return fail(what, st, why);
    }
    if (p.kind == LLM_FILE_UNREADABLE || p.kind == LLM_FILE_EMPTY) return fail(what, LLM_EIO, p.what);
    if ((st = llm_llama2c_load_file(m, path, &why)) == LLM_OK) return repack(m, what);
    if (p.kind == LLM_FILE_TOKENIZER) {
        char why2[320];
        snprintf(why2, sizeof why2, "%s, not a checkpoint (a tokenizer goes after -z)", p.what);
        return fail(what, st, why2);
    }
    if (p.kind == LLM_FILE_TEXT) return fail(what, st, "a text file, not a llama2.c checkpoint");
    return fail(what, st, why);
}

/* --lora: the adapter file's lora_a / lora_b applied to the model's projections in the
   forward pass (llm_lora_apply_gguf: a view, the base stays as it is); the file's bytes
   and the view's arrays live as long as the program. */
static int apply_lora(llm_model *m, const char *path) {
    char what[600];
    const char *why = "";
    FILE *f;
    long sz;
    unsigned char *raw, *buf;
    static llm_gguf g;
    llm_lora_ab *ab;
    llm_layer_weights *layers;
    llm_status st;
    snprintf(what, sizeof what, "--lora '%.500s'", path);
    if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        return fail(what, LLM_EIO, "cannot read it");
    }
    if (!(raw = (unsigned char *)malloc((size_t)sz + 64))) return fclose(f), fail(what, LLM_ENOMEM, NULL);
    buf = raw + (64 - (uintptr_t)raw % 64) % 64; /* the floats are read in place */
    if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) return fclose(f), fail(what, LLM_EIO, "short read");
    fclose(f);
    if ((st = llm_gguf_create(&g, buf, (size_t)sz, &why)) != LLM_OK) return fail(what, st, why);
    ab = (llm_lora_ab *)malloc((size_t)m->config.n_layers * 7 * sizeof *ab);
    layers = (llm_layer_weights *)malloc((size_t)m->config.n_layers * sizeof *layers);
    if (!ab || !layers) return fail(what, LLM_ENOMEM, NULL);
    if ((st = llm_lora_apply_gguf(&g, &m->config, &m->weights, 1.0f, ab, layers, &m->weights, &why)) != LLM_OK)
        return fail(what, st, why);
    return 0;
}

/* The tokenizer: llama2.c's (run.c's exact encoding), or a vocabulary from a GGUF or a
   tokenizer.json. A tokenizer.bin's piece count must be the model's vocabulary; a
   vocabulary may be smaller (embedding rows past it are padding, as in Qwen's). */
typedef struct run_tok {
    int is_vocab;
    llm_tokenizer t;
    llm_vocab v;
    llm_vocab_stream s;
} run_tok;

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int load_vocab(run_tok *t, const char *path, const char *what, int vocab) {
    const char *why = "";
    llm_status st = llm_vocab_load_file(&t->v, path, 0, &why);
    char why2[320], b1[32], b2[32];
    if (st != LLM_OK) return fail(what, st, why);
    if (t->v.n_tokens > vocab) {
        snprintf(why2, sizeof why2, "the vocabulary has %s tokens, the model %s (the tokenizer of another model?)",
                 llm_args_commas((unsigned long long)t->v.n_tokens, b1), llm_args_commas((unsigned long long)vocab, b2));
        llm_vocab_free(&t->v);
        return fail(what, LLM_EFORMAT, why2);
    }
    t->is_vocab = 1;
    llm_vocab_stream_init(&t->s, &t->v, 0);
    return 0;
}

static int load_tokenizer(run_tok *rt, const char *path, const char *ckpt, int vocab, int is_default) {
    char what[600], why2[320], b1[32], b2[32];
    const char *why = "";
    llm_file_probe p;
    llm_status st;
    llm_model other;
    llm_tokenizer *t = &rt->t;
    memset(rt, 0, sizeof *rt);
    if (is_default) { /* the checkpoint's own: a GGUF's keys, a Hugging Face directory's tokenizer.json */
        llm_file_probe c = llm_args_probe_file(ckpt);
        char hf[700];
        FILE *f;
        snprintf(what, sizeof what, "the tokenizer of '%.500s'", ckpt);
        if (c.kind == LLM_FILE_GGUF) return load_vocab(rt, ckpt, what, vocab);
        snprintf(hf, sizeof hf, "%.600s/tokenizer.json", ckpt);
        if (c.kind == LLM_FILE_DIRECTORY && (f = fopen(hf, "rb")) != NULL) {
            fclose(f);
            return load_vocab(rt, hf, what, vocab);
        }
    }
    p = llm_args_probe_file(path);
    snprintf(what, sizeof what, "-z '%.500s'%s", path, is_default ? " (the default tokenizer)" : "");
    if (p.kind == LLM_FILE_GGUF || (p.kind == LLM_FILE_TEXT && ends_with(path, ".json"))) return load_vocab(rt, path, what, vocab);
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

/* The prompt's ids: run.c's (BOS, dummy prefix, merges), or the vocabulary's with BOS
   when it asks for one. */
static llm_status tok_prompt(run_tok *t, const char *prompt, int *ids, int cap, int *n) {
    if (!t->is_vocab) return llm_tokenize(&t->t, prompt, 1, 0, ids, cap, n);
    {
        size_t m = 0, i;
        int32_t *tmp = (int32_t *)malloc((size_t)cap * sizeof *tmp);
        llm_status st = tmp ? llm_vocab_encode(&t->v, prompt, strlen(prompt), t->v.add_bos ? LLM_ENCODE_BOS : 0, tmp,
                                               (size_t)cap, &m, NULL, 0)
                            : LLM_ENOMEM;
        for (i = 0; st == LLM_OK && i < m; i++) ids[i] = tmp[i];
        *n = (int)m;
        free(tmp);
        return st;
    }
}

/* Print `token` (following prev): run.c's rule for llama2.c's pieces; the streaming
   decoder's whole characters for a vocabulary. */
static void tok_print(run_tok *t, int prev, int token) {
    if (!t->is_vocab) {
        int len;
        const char *piece = llm_token_piece(&t->t, prev, token, &len);
        if (llm_piece_printable(piece, len)) fwrite(piece, 1, (size_t)len, stdout);
    } else {
        char out[8192];
        size_t len = 0;
        if (llm_vocab_stream_push(&t->s, token, out, sizeof out, &len) == LLM_OK) fwrite(out, 1, len, stdout);
    }
}

/* A story ends at BOS in llama2.c's models; a vocabulary's text at its EOS or EOT. */
static int tok_stops(const run_tok *t, int token) {
    if (!t->is_vocab) return token == 1;
    return token == t->v.eos || token == t->v.eot;
}

static void tok_free(run_tok *t) {
    if (t->is_vocab) {
        llm_vocab_free(&t->v);
    } else {
        llm_tokenizer_free(&t->t);
    }
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

/* ---- --parallel N: several streams of one prompt, generated together ----------------
   One llm_gen per stream (its own KV cache, sampler and seed: s, s+1, ...), and every step
   ONE llm_gen_next_batch for all of them: the weights are read once per step for every
   stream still going, which is how an app runs several conversations at once. A stream
   ends as -m generate's run does (BOS in llama2.c's models, a vocabulary's EOS / EOT, or
   -n positions); when all have ended each is printed as -m generate prints its run, after
   a "--- stream k of N (seed S) ---" line, so stream k is what -s S alone prints. */
static void print_tokens(run_tok *t, const int *ids, int n, int print_ids) {
    int i;
    if (print_ids) {
        for (i = 0; i < n; i++) printf("%d\n", ids[i]);
        return;
    }
    if (t->is_vocab) {
        char out[8];
        size_t len = 0;
        llm_vocab_stream_init(&t->s, &t->v, 0);
        tok_print(t, -1, ids[0]);
        for (i = 1; i < n; i++) tok_print(t, ids[i - 1], ids[i]);
        if (llm_vocab_stream_flush(&t->s, out, sizeof out, &len) == LLM_OK) fwrite(out, 1, len, stdout);
    } else {
        for (i = 1; i < n; i++) tok_print(t, ids[i - 1], ids[i]);
    }
    printf("\n");
}

static int run_parallel(llm_model *m, run_tok *tok, const int *ids, int n_prompt, int steps, int n,
                        const llm_sampler_params *sp, int print_ids, int n_threads, llm_threads *th) {
    llm_gen *gens = (llm_gen *)calloc((size_t)n, sizeof *gens);
    llm_gen **list = (llm_gen **)malloc((size_t)n * sizeof *list);
    llm_gen_piece *out = (llm_gen_piece *)malloc((size_t)n * sizeof *out);
    size_t sb = llm_gen_batch_bytes(&m->config, n);
    void *scratch = sb ? malloc(sb) : NULL;
    llm_gen_params gp = llm_gen_params_default();
    int bos_ends = 1, i, live = n, n_steps = 0, n_tok = 0;
    const char *why = NULL;
    double t0, secs;
    llm_status st;
    if (!gens || !list || !out || !scratch) return fail("--parallel", LLM_ENOMEM, NULL);
    gp.capacity = steps, gp.prefill_chunk = n_prompt < 256 ? n_prompt : 256; /* -m generate's sizes */
    if (!tok->is_vocab) gp.eog = &bos_ends, gp.n_eog = 1; /* BOS ends a llama2.c story */
    for (i = 0; i < n; i++) {
        gp.sampler = *sp, gp.sampler.seed = sp->seed + (uint64_t)i;
        st = llm_gen_create(&gens[i], &m->config, &m->weights, tok->is_vocab ? &tok->v : NULL, &gp, th);
        if (st != LLM_OK) return fail("--parallel: a generator", st, NULL);
        /* the prompt as -m generate runs it: all but its last token in one prefill, then the
           last one as the first decode step (the same logits, to the bit) */
        if (n_prompt > 1 && (st = llm_gen_prompt_ids(&gens[i], ids, n_prompt - 1)) != LLM_OK)
            return fail("--parallel: the prompt", st, NULL);
        if ((st = llm_gen_prompt_ids(&gens[i], ids + n_prompt - 1, 1)) != LLM_OK)
            return fail("--parallel: the prompt", st, NULL);
        list[i] = &gens[i];
    }
    t0 = now_s();
    while (live > 0) {
        if ((st = llm_gen_next_batch(list, n, scratch, sb, out, &why)) != LLM_OK)
            return fail("--parallel: generating", st, strcmp(why, "ok") != 0 ? why : NULL);
        n_steps++;
        for (live = 0, i = 0; i < n; i++) {
            if (out[i].step == LLM_GEN_STEPPED && out[i].stop != LLM_GEN_EOG) n_tok++;
            if (out[i].step == LLM_GEN_STEPPED && out[i].stop == LLM_GEN_NONE) live++;
        }
    }
    secs = now_s() - t0;
    for (i = 0; i < n; i++) {
        printf("--- stream %d of %d (seed %llu) ---\n", i + 1, n, (unsigned long long)(sp->seed + (uint64_t)i));
        print_tokens(tok, gens[i].tokens, gens[i].n_tokens, print_ids);
        llm_gen_free(&gens[i]);
    }
    fflush(stdout);
    if (secs > 0)
        fprintf(stderr, "llm-run: --parallel %d: %d tokens in %d steps at %.1f tok/s in total (%.1f per stream), %d "
                "thread%s\n", n, n_tok, n_steps, n_tok / secs, n_tok / secs / n, n_threads, n_threads > 1 ? "s" : "");
    free(gens), free(list), free(out), free(scratch);
    return 0;
}

/* ---- -m chat: turns from stdin, the model's own tokenizer and template ---------------
   An llm_gen (llm.h's >>gen) does the work: each turn the whole conversation is rendered
   again (templates are text, and some move the system prompt), encoded with special-token
   parsing, and only the tokens after the part the KV cache already holds are run. A reply
   ends at an end-of-generation token of the vocabulary (eos, eot, <|im_end|> ...), at a
   --stop string, or when -n positions are used; the text streams as it is decoded (whole
   UTF-8 characters, stop strings held back until they cannot be one). The model is a GGUF
   (its tokenizer.ggml.* and tokenizer.chat_template) or a Hugging Face directory (its
   tokenizer.json, and tokenizer_config.json's chat_template). */
#define CHAT_MAX_STOPS 8
typedef struct chat_opts {
    const char *system, *template_name, *tok_path;
    const char *stops[CHAT_MAX_STOPS];
    int n_stops, steps, n_threads, print_ids;
    llm_sampler_params sp;
} chat_opts;

typedef struct chat_msgs {
    llm_chat_msg *m;
    int n, cap;
} chat_msgs;

static int chat_push(chat_msgs *c, const char *role, const char *text, size_t len) {
    char *copy = (char *)malloc(len + 1);
    if (!copy) return 0;
    memcpy(copy, text, len);
    copy[len] = 0;
    if (c->n == c->cap) {
        llm_chat_msg *p = (llm_chat_msg *)realloc(c->m, (size_t)(c->cap = c->cap ? 2 * c->cap : 16) * sizeof *p);
        if (!p) return free(copy), 0;
        c->m = p;
    }
    c->m[c->n].role = role;
    c->m[c->n++].content = copy;
    return 1;
}

/* A line of stdin without its newline, in *buf (grown); 0 at the end of the input. */
static int read_line(char **buf, size_t *cap, size_t *len) {
    int c;
    *len = 0;
    while ((c = getchar()) != EOF && c != '\n') {
        if (*len + 2 > *cap) {
            char *p = (char *)realloc(*buf, *cap = *cap ? 2 * *cap : 256);
            if (!p) return 0;
            *buf = p;
        }
        (*buf)[(*len)++] = (char)c;
    }
    if (c == EOF && *len == 0) return 0;
    if (*len > 0 && (*buf)[*len - 1] == '\r') (*len)--;
    return 1;
}

/* A whole file in malloc'd memory (NUL-terminated), *n bytes; NULL when unreadable. */
static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    long sz;
    char *p = NULL;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = (char *)malloc((size_t)sz + 1)) != NULL) {
        if (fread(p, 1, (size_t)sz, f) != (size_t)sz) free(p), p = NULL;
        else p[sz] = 0, *n = (size_t)sz;
    }
    fclose(f);
    return p;
}

/* The chat template of a Hugging Face directory: tokenizer_config.json's chat_template
   string (LLM_ENOTFOUND when it has none), recognized by llm_chat_template_detect. */
static llm_status hf_template(const char *dir, llm_chat_template *t, const char **why) {
    char path[700], *js, *tmpl;
    size_t n = 0, nt = 0, tl = 0;
    llm_json_tok *toks;
    int64_t k;
    llm_status st;
    snprintf(path, sizeof path, "%.600s/tokenizer_config.json", dir);
    if (!(js = read_all(path, &n))) return *why = "the directory has no tokenizer_config.json (its chat_template): name one with --template", LLM_ENOTFOUND;
    if ((st = llm_json_parse(js, n, NULL, 0, &nt, why)) != LLM_ERANGE && st != LLM_OK) return free(js), st;
    toks = (llm_json_tok *)malloc((nt ? nt : 1) * sizeof *toks);
    if (!toks || (st = llm_json_parse(js, n, toks, nt, &nt, why)) != LLM_OK) return free(js), free(toks), st ? st : LLM_ENOMEM;
    k = toks[0].type == LLM_JSON_OBJECT ? llm_json_find(js, toks, nt, 0, "chat_template") : -1;
    st = LLM_ENOTFOUND;
    *why = "tokenizer_config.json has no chat_template string: name one with --template (llama3 chatml qwen3 gemma phi3 "
           "llama2 mistral-v3 mistral-v1)";
    if (k >= 0 && toks[k].type == LLM_JSON_STRING && (tmpl = (char *)malloc(toks[k].len + 1)) != NULL) {
        if ((st = llm_json_str(js, &toks[k], tmpl, toks[k].len + 1, &tl)) == LLM_OK) {
            st = llm_chat_template_detect(t, tmpl, tl);
            *why = t->why;
        }
        free(tmpl);
    }
    free(js), free(toks);
    return st;
}

static int run_chat(const char *ckpt, const chat_opts *o) {
    char what[600], *line = NULL, *reply = NULL;
    const char *why = "";
    size_t len = 0, line_cap = 0, line_len, reply_cap = 0;
    unsigned char *raw = NULL, *buf;
    int eog[LLM_GEN_MAX_EOG], n_eog = 0, i, steps, V, interactive, is_gguf;
    FILE *f;
    long sz;
    llm_file_probe p = llm_args_probe_file(ckpt);
    llm_gguf g;
    llm_model m;
    llm_layer_weights *layers = NULL;
    llm_vocab v;
    llm_chat_template t;
    llm_gguf_str ts;
    llm_gen gen;
    llm_gen_params gp = llm_gen_params_default();
    llm_threads *th = NULL;
    llm_status st;
    chat_msgs conv = {NULL, 0, 0};
    snprintf(what, sizeof what, "-m chat: checkpoint '%.500s'", ckpt);
    is_gguf = p.kind == LLM_FILE_GGUF;
    if (!is_gguf && p.kind != LLM_FILE_DIRECTORY) {
        if (p.kind == LLM_FILE_UNREADABLE || p.kind == LLM_FILE_EMPTY) return fail(what, LLM_EIO, p.what);
        return fail(what, LLM_EUNSUPPORTED,
                    "chat needs a GGUF file or a Hugging Face directory: its tokenizer and chat template come from "
                    "it (a llama2.c checkpoint has neither special tokens nor a template)");
    }
    memset(&g, 0, sizeof g);
    if (is_gguf) { /* the whole file in one 64-byte-aligned buffer: the GGUF's tables, weights in place */
        if (!(f = fopen(ckpt, "rb")) || fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
            return fail(what, LLM_EIO, "cannot read it");
        if (!(raw = (unsigned char *)malloc((size_t)sz + 64))) return fail(what, LLM_ENOMEM, NULL);
        buf = raw + (64 - (uintptr_t)raw % 64) % 64;
        len = fread(buf, 1, (size_t)sz, f);
        fclose(f);
        if (len != (size_t)sz) return fail(what, LLM_EIO, "short read");
        if ((st = llm_gguf_create(&g, buf, len, &why)) != LLM_OK) return fail(what, st, why);
        if ((st = llm_gguf_read_config(&m.config, &g, &why)) != LLM_OK) return fail(what, st, why);
        if (!(layers = (llm_layer_weights *)malloc((size_t)m.config.n_layers * sizeof *layers))) return fail(what, LLM_ENOMEM, NULL);
        if ((st = llm_gguf_load(&m, &g, layers, m.config.n_layers, &why)) != LLM_OK) return fail(what, st, why);
        if (repack(&m, what)) return 1;
    } else if (load_model(&m, ckpt)) {
        return 1;
    }
    V = m.config.vocab;
    /* the tokenizer: -z's, the GGUF's own, or the directory's tokenizer.json */
    if (o->tok_path) {
        snprintf(what, sizeof what, "-z '%.500s'", o->tok_path);
        st = llm_vocab_load_file(&v, o->tok_path, 0, &why);
    } else if (is_gguf) {
        st = llm_vocab_create_gguf(&v, &g, &why);
    } else {
        char tj[700];
        snprintf(tj, sizeof tj, "%.600s/tokenizer.json", ckpt);
        snprintf(what, sizeof what, "-m chat: the tokenizer of '%.500s'", ckpt);
        if (!(f = fopen(tj, "rb"))) return fail(what, LLM_EIO, "the directory has no tokenizer.json (or give one with -z)");
        fclose(f);
        st = llm_vocab_load_file(&v, tj, 0, &why);
    }
    if (st != LLM_OK) return fail(what, st, why);
    if (v.n_tokens > V) { /* fewer is padding (Qwen's embedding rows past its vocabulary) */
        char why2[200];
        snprintf(why2, sizeof why2, "the tokenizer has %d tokens, the model's vocabulary %d", (int)v.n_tokens, V);
        return fail(what, LLM_EFORMAT, why2);
    }
    /* the template: named, or recognized in the file's tokenizer.chat_template */
    if (o->template_name) {
        if ((st = llm_chat_template_named(&t, o->template_name)) != LLM_OK) return fail("--template", st, t.why);
    } else if (!is_gguf) {
        if ((st = hf_template(ckpt, &t, &why)) != LLM_OK) return fail("-m chat: tokenizer_config.json", st, why);
    } else if (llm_gguf_get_str(&g, "tokenizer.chat_template", &ts) != LLM_OK) {
        return fail(what, LLM_EUNSUPPORTED,
                    "the file has no tokenizer.chat_template: name one with --template (llama3 chatml qwen3 gemma "
                    "phi3 llama2 mistral-v3 mistral-v1)");
    } else if ((st = llm_chat_template_detect(&t, ts.s, (size_t)ts.n)) != LLM_OK) {
        return fail("tokenizer.chat_template", st, t.why);
    }
    /* the end-of-generation ids: a GGUF's (eos, eot, eom, end-of-turn texts), else the
       vocabulary's eos / eot and the end-of-turn texts it has */
    if (is_gguf && !o->tok_path) {
        if ((st = llm_gguf_eog_ids(&g, eog, LLM_GEN_MAX_EOG, &n_eog)) != LLM_OK && st != LLM_ERANGE)
            return fail(what, st, "tokenizer.ggml.tokens");
        if (n_eog > LLM_GEN_MAX_EOG) n_eog = LLM_GEN_MAX_EOG;
    } else {
        static const char *const texts[] = {"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<end_of_turn>", "<|end|>", "<|endoftext|>"};
        if (v.eos >= 0) eog[n_eog++] = v.eos;
        if (v.eot >= 0 && v.eot != v.eos) eog[n_eog++] = v.eot;
        for (i = 0; i < 6; i++) {
            int32_t id = llm_vocab_find(&v, texts[i], strlen(texts[i]));
            if (id >= 0 && id != v.eos && id != v.eot) eog[n_eog++] = id;
        }
    }
    if (n_eog == 0) fprintf(stderr, "llm-run: warning: the vocabulary names no end-of-generation token: replies end at -n\n");
    if (o->system && (t.flags & LLM_CHAT_NO_SYSTEM))
        fprintf(stderr, "llm-run: warning: this model's chat template has no system role: -y is dropped\n");
    if (o->steps > m.config.max_seq_len)
        fprintf(stderr, "llm-run: -n %d is past the model's context of %d positions: running %d\n", o->steps,
                m.config.max_seq_len, m.config.max_seq_len);
    steps = o->steps == 0 || o->steps > m.config.max_seq_len ? m.config.max_seq_len : o->steps;
    if (o->n_threads > 1 && (st = llm_threads_create(&th, o->n_threads)) != LLM_OK) return fail("--threads", st, NULL);
    gp.capacity = steps, gp.prefill_chunk = 256, gp.sampler = o->sp;
    gp.stops = o->stops, gp.n_stops = o->n_stops, gp.eog = eog, gp.n_eog = n_eog, gp.chat = &t;
    if ((st = llm_gen_create(&gen, &m.config, &m.weights, &v, &gp, th)) != LLM_OK) return fail("-m chat: generator", st, NULL);
    if (o->system && !chat_push(&conv, "system", o->system, strlen(o->system))) return fail("memory", LLM_ENOMEM, NULL);
#if defined(__unix__) || defined(__APPLE__)
    interactive = isatty(0);
#else
    interactive = 0;
#endif
    for (;;) {
        size_t reply_n = 0;
        const char *piece;
        llm_gen_stop why_stop = LLM_GEN_NONE;
        if (interactive) fputs("User: ", stderr);
        if (!read_line(&line, &line_cap, &line_len)) break;
        if (line_len == 0) continue;
        if (!chat_push(&conv, "user", line, line_len)) return fail("memory", LLM_ENOMEM, NULL);
        st = llm_gen_chat(&gen, conv.m, conv.n);
        if (st == LLM_EFULL || st == LLM_ERANGE) {
            fprintf(stderr, "llm-run: -m chat: the conversation no longer fits -n %d positions\n", steps);
            break;
        }
        if (st != LLM_OK)
            return fail("-m chat: rendering the conversation", st,
                        t.kind == LLM_CHAT_MISTRAL_V1 && o->system ? "Mistral v0.1's template has no system role: drop -y"
                                                                    : "the template refuses these turns");
        while (why_stop == LLM_GEN_NONE) { /* the reply, streamed */
            if ((st = llm_gen_next(&gen, &piece, &len, &why_stop)) != LLM_OK) return fail("-m chat: generating", st, NULL);
            if (o->print_ids && why_stop != LLM_GEN_EOG) printf("%d\n", gen.token);
            if (!o->print_ids) fwrite(piece, 1, len, stdout);
            fflush(stdout);
            if (reply_n + len + 1 > reply_cap) {
                char *q = (char *)realloc(reply, reply_cap = 2 * (reply_n + len + 1));
                if (!q) return fail("memory", LLM_ENOMEM, NULL);
                reply = q;
            }
            memcpy(reply + reply_n, piece, len);
            reply_n += len;
        }
        if (!o->print_ids) printf("\n");
        fflush(stdout);
        if (!chat_push(&conv, "assistant", reply ? reply : "", reply_n)) return fail("memory", LLM_ENOMEM, NULL);
        if (why_stop == LLM_GEN_CONTEXT_FULL) {
            fprintf(stderr, "llm-run: -m chat: the reply reached -n %d positions\n", steps);
            break;
        }
    }
    for (i = 0; i < conv.n; i++) free((void *)conv.m[i].content);
    free(conv.m), free(line), free(reply), free(layers);
    llm_gen_free(&gen);
    llm_vocab_free(&v);
    if (is_gguf) llm_gguf_free(&g);
    else llm_model_free(&m);
    llm_threads_free(th);
    free(raw);
    return 0;
}

/* --ppl: the text's ids (BOS, then the text) cut into windows of C positions (the model's
   context, or -n) that overlap by one id; each window runs from position 0 with an empty
   cache, and each of its ids after the first is predicted from those before it. So every
   id after BOS is scored exactly once, from at most C - 1 ids of context. NLL = mean of
   -log softmax(logits)[id] in nats (summed in double); perplexity = exp(NLL). */
enum { PPL_CHUNK = 64 }; /* positions per forward call: logits of [64][vocab] at a time */
static int run_ppl(llm_model *m, run_tok *tok, const char *path, int C, int json, int n_threads) {
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
    if ((st = tok_prompt(tok, text, ids, (int)sz + 3, &n)) != LLM_OK) return fail(what, st, NULL);
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
    int tok_given = 0, chain = 0, parallel = 0;
    const char *ids_in = NULL, *logits_out = NULL, *ppl_path = NULL, *lora_path = NULL;
    int json = 0;
    chat_opts co;
    llm_model model;
    run_tok tok;
    llm_state state;
    llm_sampler sampler;
    llm_threads *th = NULL;
    llm_status st;
    llm_args a;
    char err[256];
    float *logits;
    double t0, t_first, t_end;

    memset(&co, 0, sizeof co);
    /* run.c's command line: the checkpoint, then "-x value" pairs; every value checked */
    if (argc < 2) {
        fputs(usage, stderr), fputs(usage_more, stderr);
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
                fputs(usage, stdout), fputs(usage_more, stdout);
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
        } else if (llm_args_is(&a, "--parallel")) {
            if ((ok = llm_args_int(&a, 1, 64, &v))) parallel = (int)v;
        } else if (llm_args_is(&a, "-t")) {
            if ((ok = llm_args_num(&a, 0, HUGE_VAL, &x))) temperature = (float)x;
            if (ok && !isfinite(temperature)) ok = llm_args_fail(&a, "-t: %g is too large for a float", x);
        } else if (llm_args_is(&a, "-p")) {
            if ((ok = llm_args_num(&a, 0, 1, &x))) topp = (float)x;
        } else if (llm_args_is(&a, "-s") || llm_args_is(&a, "--seed")) {
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
        } else if (llm_args_is(&a, "--lora")) {
            ok = (lora_path = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "--template")) {
            ok = (co.template_name = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "--stop")) {
            const char *v = llm_args_value(&a);
            if ((ok = v != NULL)) {
                if (!*v || strlen(v) > 256) ok = llm_args_fail(&a, "--stop: a stop string of 1..256 bytes");
                else if (co.n_stops == CHAT_MAX_STOPS) ok = llm_args_fail(&a, "--stop: at most %d of them", CHAT_MAX_STOPS);
                else co.stops[co.n_stops++] = v;
            }
        } else if (llm_args_is(&a, "--top-k")) {
            if ((ok = llm_args_int(&a, 0, 2147483647LL, &v))) co.sp.top_k = (int)v, chain = 1;
        } else if (llm_args_is(&a, "--min-p")) {
            if ((ok = llm_args_num(&a, 0, 1, &x))) co.sp.min_p = (float)x, chain = 1;
        } else if (llm_args_is(&a, "--repeat-penalty")) {
            if ((ok = llm_args_num(&a, 1e-3, 1e3, &x))) co.sp.repeat_penalty = (float)x, chain = 1;
        } else if (llm_args_is(&a, "--repeat-last-n")) {
            if ((ok = llm_args_int(&a, 1, 1 << 24, &v))) co.sp.penalty_last_n = (int)v, chain = 1;
        } else if (llm_args_is(&a, "--frequency-penalty")) {
            if ((ok = llm_args_num(&a, -1e3, 1e3, &x))) co.sp.frequency_penalty = (float)x, chain = 1;
        } else if (llm_args_is(&a, "--presence-penalty")) {
            if ((ok = llm_args_num(&a, -1e3, 1e3, &x))) co.sp.presence_penalty = (float)x, chain = 1;
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
    if (strcmp(mode, "generate") != 0 && strcmp(mode, "chat") != 0) {
        fprintf(stderr, "llm-run: -m: unknown mode '%.40s' (generate or chat)\n", mode);
        return 1;
    }
    if (system && strcmp(mode, "chat") != 0) {
        fprintf(stderr, "llm-run: -y: a system prompt needs -m chat\n");
        return 1;
    }
    if ((co.template_name || co.n_stops) && strcmp(mode, "chat") != 0) {
        fprintf(stderr, "llm-run: %s: needs -m chat\n", co.template_name ? "--template" : "--stop");
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

    /* the sampler chain's parameters; -t 0 is greedy and -p 0 or 1 no top-p, as in run.c
       (the chain's own zeros mean its defaults) */
    co.sp.greedy = temperature == 0.0f;
    co.sp.temperature = temperature > 0 ? temperature : 1.0f;
    co.sp.top_p = topp > 0 && topp < 1 ? topp : 1.0f;
    co.sp.seed = seed;
    if (parallel && (strcmp(mode, "chat") == 0 || ids_in || ppl_path)) {
        fprintf(stderr, "llm-run: --parallel: not with %s (it runs -m generate's prompt N times)\n",
                ids_in ? "--ids-in" : ppl_path ? "--ppl" : "-m chat");
        return 1;
    }
    if (strcmp(mode, "chat") == 0) {
        if (lora_path) {
            fprintf(stderr, "llm-run: --lora: not with -m chat yet\n");
            return 1;
        }
        if (ids_in || logits_out) {
            fprintf(stderr, "llm-run: %s: not with -m chat\n", ids_in ? "--ids-in" : "--logits-out");
            return 1;
        }
        co.system = system, co.tok_path = tok_given ? tok_path : NULL, co.steps = steps;
        co.n_threads = n_threads, co.print_ids = print_ids;
        return run_chat(ckpt, &co);
    }
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
    if (lora_path && apply_lora(&model, lora_path)) return 1;
    if (ids_in) return run_ids(&model, ids_in, logits_out, n_threads);
    if (ppl_path) { /* windows of -n positions, 2 .. the context (0: the context) */
        int rc, win = steps_given && steps ? steps : model.config.max_seq_len;
        if (win < 2 || win > model.config.max_seq_len) {
            fprintf(stderr, "llm-run: -n %d: --ppl's windows need 2 .. %d positions (the model's context)\n", win,
                    model.config.max_seq_len);
            return 1;
        }
        if (load_tokenizer(&tok, tok_path, ckpt, model.config.vocab, !tok_given)) return 1;
        rc = run_ppl(&model, &tok, ppl_path, win, json, n_threads);
        tok_free(&tok);
        llm_model_free(&model);
        return rc;
    }
    if (steps > model.config.max_seq_len)
        fprintf(stderr, "llm-run: -n %d is past the model's context of %d positions: running %d\n", steps,
                model.config.max_seq_len, model.config.max_seq_len);
    if (steps == 0 || steps > model.config.max_seq_len) steps = model.config.max_seq_len;
    if (load_tokenizer(&tok, tok_path, ckpt, model.config.vocab, !tok_given)) return 1;
    if (n_threads > 1 && (st = llm_threads_create(&th, n_threads)) != LLM_OK)
        return fail("--threads", st,
                    st == LLM_EUNSUPPORTED ? "this build has no threads (compile with -DLLM_PTHREADS -pthread)" : NULL);

    /* the prompt: BOS, then its tokens */
    ids = (int *)malloc((strlen(prompt) + 3) * sizeof *ids);
    logits = (float *)malloc((size_t)model.config.vocab * sizeof *logits);
    if (!ids || !logits) return fail("memory", LLM_ENOMEM, NULL);
    if ((st = tok_prompt(&tok, prompt, ids, (int)strlen(prompt) + 3, &n_prompt)) != LLM_OK) return fail("-i", st, NULL);
    if (n_prompt == 0) return fail("-i", LLM_EINVAL, "an empty prompt, and the vocabulary has no BOS to start from");
    if (parallel) {
        int rc;
        if (n_prompt > steps) {
            fprintf(stderr, "llm-run: -n %d: --parallel needs room past the prompt's %d tokens\n", steps, n_prompt);
            return 1;
        }
        rc = run_parallel(&model, &tok, ids, n_prompt, steps, parallel, &co.sp, print_ids, n_threads, th);
        tok_free(&tok);
        llm_model_free(&model);
        llm_threads_free(th);
        free(ids), free(logits);
        return rc;
    }

    /* all the memory the loop needs, allocated once: KV cache for `steps` positions,
       activations for a prefill of the whole prompt (in chunks of at most 256) */
    st = llm_state_create(&state, &model.config, steps, n_prompt < 256 ? n_prompt : 256, LLM_F32);
    if (st != LLM_OK) return fail("state", st, NULL);
    /* run.c's sampler, or the chain when a flag of its own is given (the chain with only
       -t -p -s draws the same tokens) */
    st = chain ? llm_sampler_chain_create(&sampler, model.config.vocab, &co.sp)
               : llm_sampler_create(&sampler, model.config.vocab, temperature, topp, seed);
    if (st != LLM_OK) return fail("sampler", st, NULL);

    t0 = now_s();
    /* positions 0..n_prompt-2 are prompt tokens, forced (run.c prints them as it goes) */
    token = ids[0];
    if (print_ids) printf("%d\n", token);
    else if (tok.is_vocab) tok_print(&tok, -1, token); /* a vocabulary's BOS prints nothing; a first word does */
    pos = 0;
    if (n_prompt > 1 && steps > 0) {
        n_pre = n_prompt - 1 < steps ? n_prompt - 1 : steps;
        /* one prefill over BOS + the prompt but its last token; its logits are unused
           unless the prompt fills all steps */
        if ((st = llm_forward(&state, &model.weights, ids, n_pre, 0, logits, 0, th)) != LLM_OK)
            return fail("forward", st, NULL);
        for (i = 1; i <= n_pre; i++) {
            if (print_ids) printf("%d\n", ids[i]);
            else tok_print(&tok, ids[i - 1], ids[i]);
        }
        fflush(stdout);
        pos = n_pre;
        token = ids[n_pre];
    }
    t_first = now_s(); /* the end of the prefill (t0 itself when there was none) */
    /* the generation loop: forward one token, sample the next, print it */
    for (; pos < steps; pos++) {
        if ((st = llm_forward(&state, &model.weights, &token, 1, pos, logits, 0, th)) != LLM_OK)
            return fail("forward", st, NULL);
        next = llm_sample(&sampler, logits);
        if (tok_stops(&tok, next)) { /* BOS ends a story in llama2.c's models; EOS a vocabulary's text */
            pos++;
            break;
        }
        if (print_ids) printf("%d\n", next);
        else tok_print(&tok, token, next);
        fflush(stdout);
        token = next;
    }
    if (tok.is_vocab && !print_ids) {
        char out[8];
        size_t len = 0;
        if (llm_vocab_stream_flush(&tok.s, out, sizeof out, &len) == LLM_OK) fwrite(out, 1, len, stdout);
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
    tok_free(&tok);
    llm_model_free(&model);
    llm_threads_free(th);
    free(ids);
    free(logits);
    return 0;
}
