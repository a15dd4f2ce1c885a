/* fuzz_session: arbitrary bytes as a saved llm_gen session (llm_gen_session_load) for the
   tiny generator of fuzz_session.h. A load may refuse, with LLM_EFORMAT or LLM_EFULL and a
   "session: ..." reason, and then the generator is unchanged (its context and KV length
   compared); a load that succeeds leaves a consistent generator: counts inside its
   capacity, and a few llm_gen_next steps run without a fault. Each input starts from the
   same loaded seed state. Inputs of even size get their last 8 bytes replaced by the
   checksum of the rest, so mutations reach the checks behind it. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include "fuzz_session.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static fzs z;
    static unsigned char base[4096];
    static size_t n_base;
    static int ready;
    int before[13], n_before, kv_before, i;
    const char *why = NULL, *piece;
    size_t len;
    llm_gen_stop stop;
    llm_status st;
    unsigned char *buf;
    if (!ready) {
        if (fzs_make(&z) || (n_base = fzs_session(&z, 2, base, sizeof base)) == 0) abort();
        ready = 1;
    }
    if (llm_gen_session_load(&z.g, base, n_base, &why) != LLM_OK) abort(); /* the same start every time */
    n_before = z.g.n_tokens, kv_before = z.g.state.kv.len;
    memcpy(before, z.g.tokens, sizeof(int) * (size_t)n_before);
    buf = fz_copy(data, size); /* its own allocation: ASan sees a read past the end */
    if (!buf) return 0;
    if (size >= 16 && (size & 1) == 0) { /* half the inputs get a valid checksum, so the field checks behind it run */
        uint64_t h = llm__fnv64(0xcbf29ce484222325ull, buf, size - 8);
        memcpy(buf + size - 8, &h, 8);
    }
    st = llm_gen_session_load(&z.g, buf, size, &why);
    if (st == LLM_OK) {
        if (z.g.n_tokens < 0 || z.g.n_tokens > z.g.state.capacity + 1 || z.g.state.kv.len > z.g.state.capacity ||
            z.g.state.kv.len > z.g.n_tokens)
            abort();
        for (i = 0; i < 3; i++)
            if (llm_gen_next(&z.g, &piece, &len, &stop) != LLM_OK || stop != LLM_GEN_NONE) break;
    } else {
        if ((st != LLM_EFORMAT && st != LLM_EFULL) || !why || strncmp(why, "session: ", 9) != 0) abort();
        if (z.g.n_tokens != n_before || z.g.state.kv.len != kv_before ||
            memcmp(before, z.g.tokens, sizeof(int) * (size_t)n_before) != 0)
            abort();
    }
    free(buf);
    return 0;
}
