/* fuzz_vocab_gguf: the GGUF vocabulary loader and encode / decode on arbitrary bytes.
   Input: uint8 encode flags, uint16 text length (little-endian), the text, then the GGUF.
   Loading may fail with a reason, never crash; a loaded vocabulary must encode the text
   to ids in range (the count the same whatever the cap), decode them, and stream the
   same bytes as the whole decode. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include "fuzz_vocab.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    llm_gguf g;
    llm_vocab v;
    const char *why = NULL;
    size_t tn;
    int flags;
    llm_status st;
    char *text;
    if (size < 3) return 0;
    flags = data[0] & 7;
    tn = (size_t)(data[1] | (data[2] << 8));
    data += 3, size -= 3;
    if (tn > size) tn = size;
    text = (char *)malloc(tn + 1);
    if (!text) return 0;
    memcpy(text, data, tn);
    data += tn, size -= tn;
    if (llm_gguf_create(&g, data, size, &why) == LLM_OK) {
        size_t need = llm_vocab_gguf_bytes(&g);
        void *mem = need ? malloc(need) : NULL;
        st = llm_vocab_init_gguf(&v, mem, need, &g, &why);
        if (!why || (st != LLM_OK && !*why)) abort(); /* a refusal always says why */
        if (st == LLM_OK) exercise(&v, text, tn, flags);
        free(mem);
        llm_gguf_free(&g);
    }
    free(text);
    return 0;
}
