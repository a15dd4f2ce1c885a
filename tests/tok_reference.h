/* The reference encoder for the llama2.c tokenizer: run.c's encode() merge loop as llm.h
   had it before the heap-based merge, kept verbatim as the oracle (O(n^2): rescan every
   adjacent pair for the best-scoring merge, ties to the leftmost, shift the array,
   repeat). test_tokenizer.c and the fuzz_tokenizer_encode target compare llm_tokenize
   with it, ids and status. Include after llm.h with LLM_IMPLEMENTATION: the tokens before
   merging come from llm.h's own llm__tok_start (unchanged, and checked against run.c's
   ids by test_model), since only the merge order is under test. */
#ifndef LLM_TOK_REFERENCE_H
#define LLM_TOK_REFERENCE_H

static llm_status ref_tokenize(const llm_tokenizer *t, const char *text, int bos, int eos, int *ids, int cap,
                               int *n_ids) {
    int n = 0, i;
    llm_status st;
    if (n_ids) *n_ids = 0;
    if (!t || !t->bytes || !text || !ids || !n_ids || cap < 0) return LLM_EINVAL;
    st = llm__tok_start(t, text, bos, ids, cap, &n);
    if (st != LLM_OK) return st;
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
    if (eos) {
        if (n >= cap) return LLM_ERANGE;
        ids[n++] = 2;
    }
    *n_ids = n;
    return LLM_OK;
}
#endif
