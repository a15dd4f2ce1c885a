/* The reference encoder for the llama2.c tokenizer: run.c's encode() as llm.h had it
   before the heap-based merge, kept verbatim as the oracle (O(n^2): rescan every adjacent
   pair for the best-scoring merge, ties to the leftmost, shift the array, repeat).
   test_tokenizer.c and the fuzz_tokenizer_encode target compare llm_tokenize with it,
   ids and status. Include after llm.h with LLM_IMPLEMENTATION (it uses the private piece
   lookups, which are the same in both encoders: only the merge order is under test). */
#ifndef LLM_TOK_REFERENCE_H
#define LLM_TOK_REFERENCE_H

static llm_status ref_tokenize(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                               int *n_ids) {
    const char *c;
    int n = 0, i;
    if (n_ids) *n_ids = 0;
    if (!t || !t->bytes || !text || !ids || !n_ids || cap < 0) return LLM_EINVAL;
#define REF_PUSH(id)                                                                                    \
    do {                                                                                               \
        if (n >= cap) return LLM_ERANGE;                                                               \
        ids[n++] = (id);                                                                               \
    } while (0)
    if (bos) REF_PUSH(1);
    if (text[0] != '\0') {
        int sp = llm__lookup2(t, " ", 1, "", 0);
        REF_PUSH(sp >= 0 ? sp : llm__byte_token(t, ' '));
    }
    for (c = text; *c;) {
        int k = 1, id;
        while (k < 4 && ((unsigned char)c[k] & 0xC0) == 0x80) k++;
        id = llm__lookup2(t, c, k, "", 0);
        if (id >= 0) {
            REF_PUSH(id);
        } else {
            for (i = 0; i < k; i++) REF_PUSH(llm__byte_token(t, (unsigned char)c[i]));
        }
        c += k;
    }
    for (;;) {
        float best = -1e10f;
        int best_id = -1, best_i = -1;
        for (i = 0; i + 1 < n; i++) {
            int la, lb, id;
            const char *a = llm__piece(t, ids[i], &la), *b = llm__piece(t, ids[i + 1], &lb);
            id = llm__lookup2(t, a, la, b, lb);
            if (id >= 0 && t->scores[id] > best) {
                best = t->scores[id];
                best_id = id;
                best_i = i;
            }
        }
        if (best_i < 0) break;
        ids[best_i] = best_id;
        memmove(ids + best_i + 1, ids + best_i + 2, (size_t)(n - best_i - 2) * sizeof *ids);
        n--;
    }
    if (eos) REF_PUSH(2);
#undef REF_PUSH
    *n_ids = n;
    return LLM_OK;
}
#endif
