/* fuzz_tokenizer_load: llm_tokenizer_init / llm_tokenizer_create on arbitrary bytes.
   Input: a little-endian uint16 vocabulary size (the model's; tokenizer.bin does not
   store it), then the tokenizer.bin bytes. Loading may fail with a reason, never crash;
   a loaded tokenizer must then look up every piece, encode and decode text. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    llm_tokenizer t, t2;
    const char *why = NULL;
    int vocab, i, ids[64], n = 0;
    size_t mem_bytes;
    void *mem;
    llm_status s;
    if (size < 2) return 0;
    vocab = data[0] | (data[1] << 8);
    data += 2;
    size -= 2;

    mem_bytes = llm_tokenizer_bytes(vocab, size);
    mem = malloc(mem_bytes ? mem_bytes : 1);
    if (!mem) return 0;
    s = llm_tokenizer_init(&t, mem, mem_bytes, data, size, vocab, &why);
    if (!why) abort();
    if (s == LLM_OK) {
        char out[512];
        size_t out_len = 0;
        if (t.vocab != vocab) abort();
        for (i = -1; i <= vocab; i++) {
            int len = -1;
            const char *p = llm_token_piece(&t, 1, i, &len);
            if ((i < 0 || i >= vocab) != (p == NULL)) abort();
            if (p && len < 0) abort(); /* pieces may hold NUL bytes: <0x00> is one */
            if (p) (void)llm_piece_printable(p, len);
        }
        s = llm_tokenize(&t, "Once upon a time \xe4\xbd\xa0\xff", 1, 1, ids, 64, &n);
        if (s == LLM_OK) {
            for (i = 0; i < n; i++)
                if (ids[i] < 0 || ids[i] >= vocab) abort();
            (void)llm_detokenize(&t, 0, ids, n, out, sizeof out, &out_len);
            if (out_len >= sizeof out) abort();
        }
        /* the allocating path agrees */
        if (llm_tokenizer_create(&t2, data, size, vocab, &why) != LLM_OK) abort();
        llm_tokenizer_free(&t2);
    } else if (llm_tokenizer_create(&t2, data, size, vocab, &why) == LLM_OK) {
        abort(); /* create accepted what init refused */
    }
    /* too little memory is a status, not an overflow */
    if (mem_bytes > 0 && llm_tokenizer_init(&t, mem, mem_bytes - 1, data, size, vocab, &why) == LLM_OK) abort();
    free(mem);
    return 0;
}
