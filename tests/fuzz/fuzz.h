/* Shared by the libFuzzer targets in tests/fuzz (built by `make fuzz` with clang
   -fsanitize=fuzzer,address,undefined). Each target includes this after defining
   LLM_IMPLEMENTATION and including llm.h, and defines LLVMFuzzerTestOneInput.
   fz_* reads typed values off the front of the fuzz input, returning zeros once it runs
   out, so every input is a valid sequence of choices. */
#ifndef LLM_FUZZ_H
#define LLM_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

static uint32_t fz_u32(fz *f) {
    uint32_t v = 0;
    size_t k = f->n < 4 ? f->n : 4, i;
    for (i = 0; i < k; i++) v |= (uint32_t)f->p[i] << (8 * i);
    f->p += k;
    f->n -= k;
    return v;
}
static uint8_t fz_u8(fz *f) {
    uint8_t v = f->n ? f->p[0] : 0;
    if (f->n) {
        f->p++;
        f->n--;
    }
    return v;
}
/* an int that is usually small and sometimes hostile (negative, huge, INT_MAX) */
static int fz_int(fz *f) {
    uint8_t sel = fz_u8(f);
    uint32_t v = fz_u32(f);
    switch (sel & 7) {
    case 0: return (int)(v & 0xff);
    case 1: return (int)(v & 0xffff);
    case 2: return (int)v; /* anything, negative included */
    case 3: return 1 << (v & 31 ? (v & 31) - 1 : 0);
    default: return (int)(v & 0x7f);
    }
}
static float fz_float(fz *f) {
    uint32_t v = fz_u32(f);
    float x;
    memcpy(&x, &v, 4);
    return x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
