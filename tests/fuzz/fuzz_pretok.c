/* fuzz_pretok: every pre-tokenizer kind over arbitrary bytes (invalid UTF-8 included):
   each piece is non-empty and starts where the one before ended, and the pieces cover the
   input exactly. llm_nfc over the same bytes: with cap = llm_nfc_bound(n) it succeeds,
   NFC is idempotent (NFC(NFC(x)) = NFC(x)); with a smaller cap (taken from the input) it
   succeeds or says LLM_ERANGE, and never writes past cap (ASan sees the exact size). */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int kind;
    size_t bound = llm_nfc_bound(size), len = 0, len2 = 0, cap;
    char *a, *b, *c;
    llm_status st;
    for (kind = 0; kind < LLM_PRETOK_COUNT; kind++) {
        int64_t i = 0, e, n = (int64_t)size;
        while (i < n) {
            e = llm__pretok_next((llm_pretok)kind, data, n, i);
            if (e <= i || e > n) abort();
            i = e;
        }
    }
    a = (char *)malloc(bound + 1), b = (char *)malloc(bound + 1);
    if (!a || !b) abort();
    if (llm_nfc((const char *)data, size, a, bound, &len) != LLM_OK || len > bound) abort();
    if (llm_nfc(a, len, b, llm_nfc_bound(len), &len2) != LLM_OK || len2 != len || memcmp(a, b, len) != 0) abort();
    cap = size ? data[0] % (bound + 1) : 0;
    c = (char *)malloc(cap ? cap : 1);
    if (!c) abort();
    st = llm_nfc((const char *)data, size, c, cap, &len2);
    if (st == LLM_OK ? len2 != len || memcmp(c, a, len) != 0 : st != LLM_ERANGE) abort();
    free(a), free(b), free(c);
    return 0;
}
