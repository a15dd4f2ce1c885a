/* fuzz_tokenizer_encode: llm_tokenize on arbitrary bytes with a fixed tokenizer (a
   380-piece one written by tests/ckpt_writer.h: every byte has a <0xNN> fallback, plus
   printable characters and merges). Checks: ids in range, at most strlen + 3 of them,
   a too-small cap is LLM_ERANGE, and decode(encode(text)) gives back exactly the text
   (after BOS the dummy-prefix space is dropped); and for texts up to 512 bytes, the same
   ids as run.c's O(n^2) encoder (tests/tok_reference.h), through both entry points. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include "ckpt_writer.h"
#include "tok_reference.h"
#include <stdlib.h>

#define VOCAB 380
static llm_tokenizer *tok(void) {
    static llm_tokenizer t;
    static int ready;
    if (!ready) {
        size_t n = ckw_tokenizer(NULL, 0, VOCAB);
        unsigned char *p = (unsigned char *)malloc(n);
        const char *why;
        if (!p) abort();
        ckw_tokenizer(p, n, VOCAB);
        if (llm_tokenizer_create(&t, p, n, VOCAB, &why) != LLM_OK) abort();
        free(p);
        ready = 1;
    }
    return &t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const llm_tokenizer *t = tok();
    char *text = (char *)malloc(size + 1), *out;
    int *ids, n = -1, cap, bos, eos, i;
    size_t len, out_len = 0;
    llm_status s;
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    len = strlen(text); /* the API takes a C string: stop at the first NUL */
    bos = size & 1;
    eos = (size >> 1) & 1;
    cap = (int)len + 3;
    ids = (int *)malloc((size_t)cap * sizeof(int));
    out = (char *)malloc(len + 8);
    if (!ids || !out) abort();
    s = llm_tokenize(t, text, bos, eos, ids, cap, &n);
    if (s != LLM_OK) abort(); /* cap = strlen + 3 always suffices */
    if (n < 0 || n > cap) abort();
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= t->vocab) abort();
    if (bos && (n < 1 || ids[0] != 1)) abort();
    if (eos && ids[n - 1] != 2) abort();
    /* round trip: BOS, then the text (its dummy-prefix space dropped after BOS) */
    if (bos) {
        s = llm_detokenize(t, 0, ids, n, out, len + 8, &out_len);
        if (s != LLM_OK || out_len != len || memcmp(out, text, len) != 0) abort();
    }
    /* differential: the reference encoder and llm_tokenize_scratch give the same ids */
    if (len <= 512) {
        int *want = (int *)malloc((size_t)cap * sizeof(int)), m = -1, m2 = -1;
        size_t sb = llm_tokenize_scratch_bytes(cap);
        void *scratch = malloc(sb);
        if (!want || !scratch) abort();
        if (ref_tokenize(t, text, bos, eos, want, cap, &m) != LLM_OK || m != n) abort();
        for (i = 0; i < n; i++)
            if (want[i] != ids[i]) abort();
        if (llm_tokenize_scratch(t, text, bos, eos, want, cap, &m2, scratch, sb) != LLM_OK || m2 != n) abort();
        for (i = 0; i < n; i++)
            if (want[i] != ids[i]) abort();
        free(scratch);
        free(want);
    }
    /* one id too few of room: LLM_ERANGE, and nothing written past the cap */
    if (n > 0) {
        int m = -1;
        if (llm_tokenize(t, text, bos, eos, ids, n - 1, &m) != LLM_ERANGE) abort();
    }
    free(ids);
    free(out);
    free(text);
    return 0;
}
