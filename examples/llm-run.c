/* llm-run.c: run a llama2.c checkpoint from the command line, as llama2.c's run.c does

   Build: make build/llm-run      (or: cc -O2 -march=native -DLLM_PTHREADS -pthread -I. examples/llm-run.c -lm)
   Usage: build/llm-run model.bin [options], with run.c's options:
     -t <float>  temperature in [0, inf), default 1.0 (0 = greedy)
     -p <float>  top-p in [0, 1], default 0.9
     -s <int>    random seed, default: the time
     -n <int>    positions to run (prompt included), default 256, 0 = the model's max
     -i <string> prompt
     -z <string> tokenizer, default tokenizer.bin
   plus --ids (print the token ids, one per line, instead of the text) and --threads N.
   Same model, tokenizer, seed and flags give run.c's tokens. Speed goes to stderr. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
#if defined(CLOCK_MONOTONIC) && !defined(_WIN32)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static int usage(void) {
    fprintf(stderr,
            "Usage:   llm-run <checkpoint> [options]\n"
            "Example: llm-run stories15M.bin -z tokenizer.bin -n 256 -i \"Once upon a time\"\n"
            "Options:\n"
            "  -t <float>  temperature in [0,inf], default 1.0\n"
            "  -p <float>  p value in top-p (nucleus) sampling in [0,1], default 0.9\n"
            "  -s <int>    random seed, default time(NULL)\n"
            "  -n <int>    number of steps to run for, default 256. 0 = max_seq_len\n"
            "  -i <string> input prompt\n"
            "  -z <string> optional path to custom tokenizer\n"
            "  -m <string> mode: generate (chat is not supported)\n"
            "  --ids       print token ids, one per line, instead of text\n"
            "  --threads N worker threads (default 1)\n");
    return 1;
}

static int fail(const char *what, llm_status st, const char *why) {
    fprintf(stderr, "llm-run: %s: %s%s%s\n", what, llm_status_str(st), why && *why ? ": " : "", why ? why : "");
    return 1;
}

int main(int argc, char **argv) {
    const char *ckpt, *tok_path = "tokenizer.bin", *prompt = "", *mode = "generate", *why = "";
    float temperature = 1.0f, topp = 0.9f;
    unsigned long long seed = 0;
    int steps = 256, print_ids = 0, n_threads = 1, i, n_prompt = 0, pos, token, next, *ids;
    llm_model model;
    llm_tokenizer tok;
    llm_state state;
    llm_sampler sampler;
    llm_threads *th = NULL;
    llm_status st;
    float *logits;
    double t0, t_first = 0, t_end;

    /* run.c's command line: the checkpoint, then "-x value" pairs */
    if (argc < 2) return usage();
    ckpt = argv[1];
    for (i = 2; i < argc; i += 2) {
        if (strcmp(argv[i], "--ids") == 0) {
            print_ids = 1;
            i--;
            continue;
        }
        if (i + 1 >= argc || argv[i][0] != '-') return usage();
        if (strcmp(argv[i], "--threads") == 0) n_threads = atoi(argv[i + 1]);
        else if (strlen(argv[i]) != 2) return usage();
        else if (argv[i][1] == 't') temperature = (float)atof(argv[i + 1]);
        else if (argv[i][1] == 'p') topp = (float)atof(argv[i + 1]);
        else if (argv[i][1] == 's') seed = (unsigned long long)atoi(argv[i + 1]);
        else if (argv[i][1] == 'n') steps = atoi(argv[i + 1]);
        else if (argv[i][1] == 'i') prompt = argv[i + 1];
        else if (argv[i][1] == 'z') tok_path = argv[i + 1];
        else if (argv[i][1] == 'm') mode = argv[i + 1];
        else if (argv[i][1] == 'y') continue; /* chat's system prompt: ignored */
        else return usage();
    }
    if (strcmp(mode, "generate") != 0) {
        fprintf(stderr, "llm-run: only -m generate is supported\n");
        return 1;
    }
    /* run.c's parameter fixes */
    if (seed == 0) seed = (unsigned long long)time(NULL);
    if (temperature < 0) temperature = 0;
    if (topp < 0 || topp > 1) topp = 0.9f;
    if (steps < 0) steps = 0;
    if (n_threads < 1) n_threads = 1;

    /* the model (weights point into the file's bytes), its tokenizer, threads */
    if ((st = llm_llama2c_load_file(&model, ckpt, &why)) != LLM_OK) return fail(ckpt, st, why);
    if (steps == 0 || steps > model.config.max_seq_len) steps = model.config.max_seq_len;
    if ((st = llm_tokenizer_load_file(&tok, tok_path, model.config.vocab, &why)) != LLM_OK)
        return fail(tok_path, st, why);
    if (n_threads > 1 && (st = llm_threads_create(&th, n_threads)) != LLM_OK) return fail("threads", st, NULL);

    /* the prompt: BOS, then its tokens */
    ids = (int *)malloc((strlen(prompt) + 3) * sizeof *ids);
    logits = (float *)malloc((size_t)model.config.vocab * sizeof *logits);
    if (!ids || !logits) return fail("memory", LLM_ENOMEM, NULL);
    if ((st = llm_tokenize(&tok, prompt, 1, 0, ids, (int)strlen(prompt) + 3, &n_prompt)) != LLM_OK)
        return fail("prompt", st, NULL);

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
        int n_pre = n_prompt - 1 < steps ? n_prompt - 1 : steps;
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
        t_first = now_s();
    }
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
        if (t_first == 0) t_first = now_s();
    }
    if (!print_ids) printf("\n");
    fflush(stdout); /* the text before the speed lines on stderr */
    t_end = now_s();

    /* run.c's speed line (timed from the first token produced), then ours */
    if (pos > 1 && t_end > t_first && t_first > 0) {
        int n_dec = pos - (n_prompt - 1 < steps ? n_prompt - 1 : steps);
        double bytes = llm_decode_bytes(&model.config, &model.weights, LLM_F32, pos / 2);
        double dec_s = t_end - t_first;
        fprintf(stderr, "achieved tok/s: %f\n", (pos - 1) / (t_end - t0));
        if (n_dec > 0)
            fprintf(stderr,
                    "llm-run: prompt %d tokens in %.3f ms (cold caches); decode %d tokens at %.1f tok/s; %.3f MB read per "
                    "token (weights + KV cache, MB = 1e6 B) = %.2f GB/s; %d thread%s\n",
                    n_prompt, 1e3 * (t_first - t0), n_dec, n_dec / dec_s, bytes / 1e6, bytes * n_dec / dec_s / 1e9,
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
