/* The checks both vocabulary fuzz targets run on a vocabulary that loaded: encode the
   text to ids in range (the count the same whatever the cap), decode them, and stream the
   same bytes as the whole decode. Include after llm.h and fuzz.h. */
#ifndef LLM_FUZZ_VOCAB_H
#define LLM_FUZZ_VOCAB_H
#include <stdlib.h>
static void exercise(const llm_vocab *v, const char *text, size_t tn, int flags) {
    size_t n = 0, n2 = 0, dl = 0, i, got = 0, l;
    int32_t *ids = (int32_t *)malloc((tn + 4) * 4 * sizeof *ids);
    char *dec, chunk[4096];
    llm_vocab_stream s;
    llm_status st;
    if (!ids) return;
    st = llm_vocab_encode(v, text, tn, flags, ids, (tn + 4) * 4, &n, NULL, 0);
    if (st == LLM_OK) {
        if (n > (tn + 4) * 4) abort();
        for (i = 0; i < n; i++)
            if (ids[i] < 0 || ids[i] >= v->n_tokens) abort();
        if (n > 0 && (llm_vocab_encode(v, text, tn, flags, ids + n, n / 2, &n2, NULL, 0) != LLM_ERANGE || n2 != n)) abort();
        dec = (char *)malloc(n * (size_t)(v->max_piece + 4) + 1);
        if (dec && llm_vocab_decode(v, ids, n, LLM_DECODE_SPECIAL, dec, n * (size_t)(v->max_piece + 4) + 1, &dl) == LLM_OK) {
            llm_vocab_stream_init(&s, v, LLM_DECODE_SPECIAL);
            for (i = 0; i < n; i++) {
                if ((size_t)v->max_piece + 4 > sizeof chunk) break;
                if (llm_vocab_stream_push(&s, ids[i], chunk, sizeof chunk, &l) != LLM_OK) abort();
                if (got + l > dl || memcmp(chunk, dec + got, l) != 0) abort();
                got += l;
            }
            if (i == n) {
                if (llm_vocab_stream_flush(&s, chunk, sizeof chunk, &l) != LLM_OK || got + l != dl ||
                    memcmp(chunk, dec + got, l) != 0)
                    abort();
            }
        }
        free(dec);
    } else if (st != LLM_EFORMAT && st != LLM_EINVAL && st != LLM_ENOMEM) {
        abort();
    }
    free(ids);
}

#endif
