/* bench_tokenize.c: tokenization throughput of llm_vocab_encode on one core, for Llama 3's
   byte-level BPE (../shared/vocab/llama3.gguf, the llama-bpe pre-tokenizer) and Llama's
   SentencePiece (../shared/vocab/ggml-vocab-llama-spm.gguf). The text: llm.h followed by
   README.md (English prose, C code, some UTF-8), repeated up to 1 MB (1,000,000 bytes, cut
   at a character boundary). MB/s = 1e6 bytes per second, best of a few runs; and time
   linearity: the 1 MB text must take within 12x the mean time of its ten 100 KB tenths,
   each encoded alone (a quadratic merge loop would take ~100x). Target (issue 13): >= 5 MB/s for Llama 3's BPE.
   Run from the repository's root (make bench does); without ../shared it says so and
   skips. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <time.h>

static double now_s(void) { /* roofs.h's clock without its roofs: this benchmark has none */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { TEXT_BYTES = 1000000, SMALL_BYTES = 100000 };

static char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    long sz;
    char *p = NULL;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = (char *)malloc((size_t)sz)))
        if (fread(p, 1, (size_t)sz, f) != (size_t)sz) free(p), p = NULL;
    if (p) *n = (size_t)sz;
    fclose(f);
    return p;
}

/* The first n bytes of the text, moved back to a UTF-8 character boundary. */
static size_t cut_utf8(const char *t, size_t n) {
    while (n > 0 && ((unsigned char)t[n] & 0xC0) == 0x80) n--;
    return n;
}

/* Seconds of the best of reps encodings of text[0..n); *n_ids the ids. */
static double time_encode(const llm_vocab *v, const char *text, size_t n, int reps, int32_t *ids, size_t cap,
                          void *scratch, size_t scratch_bytes, size_t *n_ids) {
    double best = 1e30;
    int r;
    for (r = 0; r < reps; r++) {
        double t0 = now_s(), dt;
        llm_status st = llm_vocab_encode(v, text, n, 0, ids, cap, n_ids, scratch, scratch_bytes);
        dt = now_s() - t0;
        if (st != LLM_OK) {
            fprintf(stderr, "bench_tokenize: encode failed: %s\n", llm_status_str(st));
            exit(1);
        }
        if (dt < best) best = dt;
    }
    return best;
}

int main(void) {
    static const struct { const char *name, *path; double target; } vocabs[] = {
        {"llama3 (BPE, llama-bpe)", "../shared/vocab/llama3.gguf", 5.0},
        {"llama-spm (SentencePiece)", "../shared/vocab/ggml-vocab-llama-spm.gguf", 0.0},
    };
    size_t nh = 0, nr = 0, n = 0, big, small;
    char *h = read_file("llm.h", &nh), *rd = read_file("README.md", &nr), *text;
    int k;
    printf("==== bench_tokenize: llm_vocab_encode, one core (MB = 1e6 bytes) ====\n");
    if (!h || !rd) {
        printf("SKIP: llm.h and README.md not found: run from the repository's root\n");
        return 0;
    }
    text = (char *)malloc(TEXT_BYTES + nh + nr);
    if (!text) return 1;
    while (n < TEXT_BYTES) { /* llm.h + README.md, again and again */
        memcpy(text + n, h, nh), n += nh;
        memcpy(text + n, rd, nr), n += nr;
    }
    big = cut_utf8(text, TEXT_BYTES), small = cut_utf8(text, SMALL_BYTES);
    printf("text: llm.h (%zu B) + README.md (%zu B) repeated, cut to %zu B; linearity against the mean of its ten\n"
           "%zu B tenths, each encoded alone\n", nh, nr, big, small);
    for (k = 0; k < 2; k++) {
        llm_vocab v;
        const char *why = "";
        size_t sb, cap = big + 2, n_big = 0, n_small = 0;
        void *scratch;
        int32_t *ids;
        double t_big, t_small, mbs, ratio;
        int j;
        FILE *f = fopen(vocabs[k].path, "rb");
        if (!f) {
            printf("SKIP %s: %s absent (../shared/vocab)\n", vocabs[k].name, vocabs[k].path);
            continue;
        }
        fclose(f);
        if (llm_vocab_load_file(&v, vocabs[k].path, 0, &why) != LLM_OK) {
            printf("FAIL %s: %s\n", vocabs[k].name, why);
            return 1;
        }
        sb = llm_vocab_scratch_bytes(&v, big);
        scratch = malloc(sb);
        ids = (int32_t *)malloc(cap * sizeof *ids);
        if (!scratch || !ids) return 1;
        time_encode(&v, text, small, 1, ids, cap, scratch, sb, &n_small); /* warm the tables */
        /* the mean 100 KB: each tenth of the text timed alone (its parts differ: prose,
           code, the Unicode tables' numbers), so the ratio compares like with like */
        for (t_small = 0, j = 0; j < 10; j++) {
            size_t a = cut_utf8(text, (size_t)j * small), b = cut_utf8(text, (size_t)(j + 1) * small);
            t_small += time_encode(&v, text + a, b - a, 2, ids, cap, scratch, sb, &n_small) / 10;
        }
        t_big = time_encode(&v, text, big, 3, ids, cap, scratch, sb, &n_big);
        mbs = (double)big / 1e6 / t_big;
        ratio = t_big / t_small;
        printf("%-27s %7.2f MB/s  %8zu ids (%.2f B/id)  1 MB in %.3f s, 100 KB in %.4f s (mean): x%.1f for x%.1f the bytes"
               " (linear: <= 12)%s",
               vocabs[k].name, mbs, n_big, (double)big / (double)n_big, t_big, t_small, ratio,
               (double)big / (double)small, ratio <= 12.0 ? "" : "  NOT LINEAR");
        if (vocabs[k].target > 0) printf("  target >= %.0f MB/s: %s", vocabs[k].target, mbs >= vocabs[k].target ? "met" : "NOT met");
        printf("\n");
        free(scratch), free(ids);
        llm_vocab_free(&v);
    }
    free(text), free(h), free(rd);
    return 0;
}
