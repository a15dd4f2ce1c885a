/* 09_train.c: train a small decoder from scratch on a text file, watch the loss fall */
/* Usage: build/examples/09_train [text-file [steps [model.gguf]]]
   Build: cc -O2 -I. -DLLM_PTHREADS -pthread examples/09_train.c -lm
   Defaults: llm.h itself (so it runs anywhere the header is), 500 steps, the model saved
   to build/09_model.gguf (with its 256 byte pieces as a SentencePiece vocabulary, so
   `build/llm-run build/09_model.gguf -i "static "` continues a prompt). The model reads
   bytes (vocabulary 256: no tokenizer to learn), so what it learns in under a minute is
   the header's spelling: identifiers, indentation, comment openers. It prints the loss as
   an ASCII curve, the speed beside the 6 N FLOPs per token of the literature and this
   machine's FMA roof, and a sample it writes at the end. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "bench/roofs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2 sequences of 256 bytes a step: llm-run then has a 256-position context to write in */
enum { BATCH = 2, SEQ = 256, THREADS = 2 };

static unsigned char *read_file(const char *path, long *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (unsigned char *)malloc((size_t)*len);
        if (buf && fread(buf, 1, (size_t)*len, f) != (size_t)*len) free(buf), buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "llm.h";
    const char *out_path = argc > 3 ? argv[3] : "build/09_model.gguf";
    int steps = argc > 2 ? atoi(argv[2]) : 500, step, i, b;
    long len = 0;
    unsigned char *text = read_file(path, &len);
    llm_config c = llm_config_default();
    llm_train t;
    llm_adamw opt;
    llm_threads *th = NULL;
    void *mem;
    int tok[BATCH * SEQ], tgt[BATCH * SEQ];
    double loss = 0, t0, secs, n_params, flops_tok, roof;
    uint64_t rng = 1234;
    if (!text || len < SEQ + 2 || steps < 1) {
        fprintf(stderr, "09_train: cannot read %s (or it is shorter than %d bytes), or steps < 1\n", path, SEQ + 2);
        return 1;
    }
    /* a Llama-style model: RMSNorm, SwiGLU, RoPE, grouped-query attention, untied head */
    c.name = "bytes-llama", c.d_model = 64, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 176;
    c.vocab = 256, c.max_seq_len = SEQ;
    mem = malloc(llm_train_bytes(&c, BATCH, SEQ));
    if (!mem || llm_train_init(&t, mem, llm_train_bytes(&c, BATCH, SEQ), &c, BATCH, SEQ) != LLM_OK ||
        llm_train_init_params(&t, 1, 0.05f) != LLM_OK) {
        fprintf(stderr, "09_train: cannot set up the training state\n");
        return 1;
    }
#ifdef LLM_PTHREADS
    if (llm_threads_create(&th, THREADS) != LLM_OK) th = NULL;
#endif
    n_params = (double)t.n_params;
    /* Kaplan et al. 2020: training costs ~6 N FLOPs per token (2 N forward, 4 N backward),
       plus attention's 6 * 2 * n_layers * seq * d per token for QK^T and PV */
    flops_tok = 6.0 * n_params + 12.0 * c.n_layers * SEQ * c.d_model;
    printf("model: %s, %.0f parameters (llm_count_params), %d layers, d %d, vocabulary 256 bytes\n", c.name, n_params,
           c.n_layers, c.d_model);
    printf("text: %s, %ld bytes; batch %d x %d tokens a step; memory %.1f MB (llm_train_bytes)\n", path, len, BATCH,
           SEQ, (double)llm_train_bytes(&c, BATCH, SEQ) / 1e6);
    printf("loss (nats per byte; a uniform guess is ln 256 = %.2f)\n", log(256.0));
    memset(&opt, 0, sizeof opt);
    opt.weight_decay = 0.01f;
    t0 = roofs_now();
    for (step = 0; step < steps; step++) {
        double gn;
        for (b = 0; b < BATCH; b++) { /* a random window of the text; the target is the next byte */
            long at = (long)(llm_xorshift_u32(&rng) % (uint32_t)(len - SEQ - 1));
            for (i = 0; i < SEQ; i++) tok[b * SEQ + i] = text[at + i], tgt[b * SEQ + i] = text[at + i + 1];
        }
        opt.lr = llm_lr_cosine(step, steps / 10 + 1, steps, 3e-3f, 3e-4f);
        if (llm_train_step(&t, tok, tgt, 0.0f, &loss, th) != LLM_OK || llm_train_update_ex(&t, &opt, 1.0, &gn, th) != LLM_OK) {
            fprintf(stderr, "09_train: step %d failed\n", step);
            return 1;
        }
        if (step % (steps / 15 + 1) == 0 || step == steps - 1) {
            int bar = (int)(loss / log(256.0) * 60.0 + 0.5);
            printf("  step %4d  %5.3f  ", step, loss);
            for (i = 0; i < bar && i < 70; i++) putchar('#');
            putchar('\n');
        }
    }
    secs = roofs_now() - t0;
    roof = roofs_fma_gflops(THREADS);
    (void)roofs_read_gbs; /* (the header's other roof; not needed here) */
    printf("speed: %.0f tokens/s, %.2f GFLOP/s at %.2f MFLOP per token = %.1f %% of this machine's %s FMA roof (%.1f GFLOP/s, %d threads)\n",
           (double)steps * BATCH * SEQ / secs, (double)steps * BATCH * SEQ * flops_tok / secs / 1e9, flops_tok / 1e6,
           100.0 * steps * BATCH * SEQ * flops_tok / secs / 1e9 / roof, roofs_isa(), roof, THREADS);
    /* what it learned: 300 bytes sampled with llm_forward on the trained weights; the model
       saw windows of SEQ bytes, so when the context is full it restarts from the last half */
    {
        llm_state s;
        llm_sampler smp;
        float logits[256];
        static int hist[400];
        const char *prompt = "static ";
        int n = (int)strlen(prompt), pos, next, at = 0;
        if (llm_state_create(&s, &c, SEQ, SEQ, LLM_F32) != LLM_OK || llm_sampler_create(&smp, 256, 0.7f, 0.9f, 7) != LLM_OK)
            return 1;
        for (i = 0; i < n; i++) hist[i] = (unsigned char)prompt[i];
        printf("sample (temperature 0.7, top-p 0.9):\n----\n%s", prompt);
        if (llm_forward(&s, &t.weights, hist, n, 0, logits, 0, th) != LLM_OK) return 1;
        for (pos = n; pos < 300; pos++) {
            hist[pos] = next = llm_sample(&smp, logits);
            putchar(next >= 32 || next == '\n' || next == '\t' ? next : '?');
            if (pos - at + 1 >= SEQ) { /* context full: prefill the last SEQ / 2 bytes again */
                at = pos + 1 - SEQ / 2;
                if (llm_forward(&s, &t.weights, hist + at, SEQ / 2, 0, logits, 0, th) != LLM_OK) return 1;
            } else if (llm_forward(&s, &t.weights, &next, 1, pos - at, logits, 0, th) != LLM_OK) {
                return 1;
            }
        }
        printf("\n----\n");
        llm_sampler_free(&smp);
        llm_state_free(&s);
    }
    /* the model and its vocabulary as a llama GGUF: 256 byte pieces <0x00>..<0xFF>, no BOS
       (the model never saw one), no space prefix, so llm-run's encoding is id = byte */
    {
        llm_gguf_spm tok;
        const char *why = "";
        size_t n, len = 0;
        unsigned char *buf;
        FILE *f;
        memset(&tok, 0, sizeof tok);
        tok.bos = tok.eos = -1;
        n = llm_train_gguf_bytes(&t, &tok);
        buf = (unsigned char *)malloc(n ? n : 1);
        if (!buf || llm_train_save_gguf(&t, &tok, buf, n, &len, &why) != LLM_OK) {
            fprintf(stderr, "09_train: cannot write the GGUF: %s\n", why);
            return 1;
        }
        if ((f = fopen(out_path, "wb")) != NULL && fwrite(buf, 1, len, f) == len && fclose(f) == 0)
            printf("saved: %s, %.2f MB (llm_train_save_gguf: llama layout, F32); run it with\n"
                   "  build/llm-run %s -t 0 -n 200 -i \"static \"\n", out_path, len / 1e6, out_path);
        else
            fprintf(stderr, "09_train: cannot write %s (the model is not saved)\n", out_path);
        free(buf);
    }
    if (th) llm_threads_free(th);
    free(mem), free(text);
    return 0;
}
