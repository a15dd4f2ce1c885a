/* fuzz_vocab_json: the tokenizer.json loader and encode / decode on arbitrary bytes.
   Input: uint8 encode flags, uint16 text length (little-endian), the text, uint16 config
   length, the tokenizer_config.json, then the tokenizer.json. Loading may fail with a
   reason, never crash; a loaded vocabulary is exercised as fuzz_vocab_gguf does. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include "fuzz_vocab.h"
#include <stdlib.h>


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    llm_vocab v;
    const char *why = NULL;
    size_t tn, cn, nt = 0;
    int flags;
    char *text, *cfg, *js;
    llm_json_tok *toks;
    llm_status st;
    if (size < 5) return 0;
    flags = data[0] & 7;
    tn = (size_t)(data[1] | (data[2] << 8));
    data += 3, size -= 3;
    if (tn > size) tn = size;
    text = (char *)malloc(tn + 1), memcpy(text, data, tn);
    data += tn, size -= tn;
    cn = size >= 2 ? (size_t)(data[0] | (data[1] << 8)) : 0;
    data += size >= 2 ? 2 : size, size -= size >= 2 ? 2 : size;
    if (cn > size) cn = size;
    cfg = (char *)malloc(cn + 1), memcpy(cfg, data, cn);
    data += cn, size -= cn;
    js = (char *)malloc(size + 1), memcpy(js, data, size); /* exactly sized: ASan sees overreads */
    st = llm_json_parse(js, size, NULL, 0, &nt, &why);
    if ((st == LLM_OK || st == LLM_ERANGE) && nt > 0 && nt < (1u << 20)) {
        toks = (llm_json_tok *)malloc(nt * sizeof *toks);
        if (toks && llm_json_parse(js, size, toks, nt, &nt, &why) == LLM_OK) {
            size_t need = llm_vocab_json_bytes(js, toks, nt, cn ? cfg : NULL, cn);
            void *mem = need ? malloc(need) : NULL;
            st = llm_vocab_init_json(&v, mem, need, js, size, toks, nt, cn ? cfg : NULL, cn, &why);
            if (!why || (st != LLM_OK && !*why)) abort();
            if (st == LLM_OK) exercise(&v, text, tn, flags);
            free(mem);
        }
        free(toks);
    }
    free(text), free(cfg), free(js);
    return 0;
}
