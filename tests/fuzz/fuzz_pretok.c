/* fuzz_pretok: every pre-tokenizer kind over arbitrary bytes (invalid UTF-8 included):
   each piece is non-empty and starts where the one before ended, and the pieces cover the
   input exactly. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int kind;
    for (kind = 0; kind < LLM_PRETOK_COUNT; kind++) {
        int64_t i = 0, e, n = (int64_t)size;
        while (i < n) {
            e = llm__pretok_next((llm_pretok)kind, data, n, i);
            if (e <= i || e > n) abort();
            i = e;
        }
    }
    return 0;
}
