/* fuzz_basics: the >>basics parsers and conversions on arbitrary bytes: llm_dtype_parse
   on any string (its type's name parses back to the type), fp16/bf16 round trips on any bit pattern, llm_status_str on any value. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = (char *)malloc(size + 1);
    llm_dtype t;
    fz f;
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    if (llm_dtype_parse(s, &t) == LLM_OK) { /* a name, or one of ggml's aliases ("q8_0"): its type's name parses back to it */
        llm_dtype u;
        if (llm_dtype_parse(llm_dtype_name(t), &u) != LLM_OK || u != t) abort();
    }
    free(s);
    f.p = data;
    f.n = size;
    while (f.n >= 4) {
        uint32_t u = fz_u32(&f);
        float x;
        uint16_t h = (uint16_t)u;
        memcpy(&x, &u, 4);
        /* every finite half survives half -> float -> half exactly */
        if ((h & 0x7c00u) != 0x7c00u && llm_f32_to_f16(llm_f16_to_f32(h)) != h) abort();
        (void)llm_f32_to_bf16(x);
        (void)llm_f32_to_f16(x);
        (void)llm_status_str((llm_status)(int)u);
        (void)llm_dtype_bits((llm_dtype)(int)u);
    }
    return 0;
}
