/* fuzz_json: llm_json_parse on arbitrary bytes, then every token through every getter.
   The parse may refuse, with a reason, but counting mode and a full array must agree,
   a short array is never written past its cap, and an accepted text's tokens must be a
   consistent tree: inside the text, next skipping exactly the subtree, objects holding
   string keys. Strings decode to valid UTF-8 of the length measured; llm_json_eq agrees
   with the decoding and llm_json_find / llm_json_at with a walk by next. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <float.h>
#include <stdlib.h>

/* RFC 3629 UTF-8 (NUL allowed: \u0000 decodes to it) */
static int utf8_ok(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0, j;
        if (!k || i + k > n) return 0;
        for (j = 1; j < k; j++)
            if ((s[i + j] & 0xc0) != 0x80) return 0;
        if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] >= 0xa0) || (c == 0xf0 && s[i + 1] < 0x90) ||
            (c == 0xf4 && s[i + 1] >= 0x90))
            return 0;
        i += k;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data, *why = NULL;
    size_t n = 0, n2 = 0, i, cap;
    llm_json_tok *t, *small;
    llm_status s;
    char *str = NULL;

    s = llm_json_parse(text, size, NULL, 0, &n, &why);
    if (!why || !*why) abort(); /* counting mode always says why it stopped */
    if (s != LLM_ERANGE && s != LLM_EFORMAT) abort();
    if (s == LLM_EFORMAT) {
        if (n != 0) abort();
        return 0;
    }
    if (n == 0 || n > size) abort(); /* every token takes at least one byte */
    t = (llm_json_tok *)malloc(n * sizeof *t);
    if (!t) return 0;
    if (llm_json_parse(text, size, t, n, &n2, &why) != LLM_OK || n2 != n) abort();
    /* a short array: LLM_ERANGE with the same count, nothing written past cap */
    cap = n / 2;
    small = (llm_json_tok *)malloc((cap + 2) * sizeof *small);
    if (small) {
        memset(small, 0xA5, (cap + 2) * sizeof *small);
        if (llm_json_parse(text, size, small, cap, &n2, &why) != LLM_ERANGE || n2 != n) abort();
        for (i = cap * sizeof *small; i < (cap + 2) * sizeof *small; i++)
            if (((unsigned char *)small)[i] != 0xA5) abort();
        free(small);
    }
    if (t[0].next != n) abort();
    for (i = 0; i < n; i++) {
        const llm_json_tok *k = &t[i];
        double d;
        int64_t v;
        size_t len = 0, j, m;
        if (k->type >= LLM_JSON_TYPE_COUNT || (uint64_t)k->start + k->len > size || k->next <= i || k->next > n) abort();
        if (k->type == LLM_JSON_ARRAY || k->type == LLM_JSON_OBJECT) {
            int obj = k->type == LLM_JSON_OBJECT;
            /* the children by next end exactly where the container does */
            for (j = i + 1, m = 0; m < k->n; m++) {
                if (j >= n) abort();
                if (obj) {
                    if (t[j].type != LLM_JSON_STRING || t[j].next != j + 1 || j + 1 >= n) abort();
                    j++;
                }
                if (!obj && llm_json_at(t, n, i, (uint32_t)m) != (int64_t)j) abort();
                j = t[j].next;
            }
            if (j != k->next) abort();
            if (!obj && llm_json_at(t, n, i, k->n) != -1) abort();
            if (obj) { /* each key (of the first 32) is found at its first occurrence */
                for (j = i + 1, m = 0; m < k->n && m < 32; m++, j = t[j + 1].next) {
                    char key[300];
                    size_t kl, jj, mm;
                    int64_t first = -1;
                    if (llm_json_str(text, &t[j], key, sizeof key, &kl) != LLM_OK || memchr(key, 0, kl)) continue;
                    /* llm_json_eq does not decode escaped keys past 256 bytes (a limit of
                       its stack buffer): regress/fuzz_json/eq_escaped_key_over_256 */
                    if (kl > 256 && memchr(text + t[j].start, '\\', t[j].len)) continue;
                    for (jj = i + 1, mm = 0; mm < k->n; mm++, jj = t[jj + 1].next)
                        if (llm_json_eq(text, &t[jj], key)) {
                            first = (int64_t)jj + 1;
                            break;
                        }
                    if (first < 0 || first > (int64_t)j + 1) abort(); /* eq agrees with the decoding */
                    if (llm_json_find(text, t, n, i, key) != first) abort();
                }
            }
            if (llm_json_num(text, k, &d) != LLM_EFORMAT || llm_json_int(text, k, &v) != LLM_EFORMAT) abort();
        } else if (k->type == LLM_JSON_NUMBER) {
            s = llm_json_num(text, k, &d);
            if (s == LLM_OK && !(d == d && d >= -DBL_MAX && d <= DBL_MAX)) abort();
            if (s != LLM_OK && s != LLM_ERANGE) abort();
            s = llm_json_int(text, k, &v);
            if (s != LLM_OK && s != LLM_ERANGE) abort();
            if (llm_json_str(text, k, NULL, 0, &len) != LLM_EFORMAT || llm_json_eq(text, k, "")) abort();
        } else if (k->type == LLM_JSON_STRING) {
            s = llm_json_str(text, k, NULL, 0, &len);
            if (s != LLM_ERANGE || len > k->len) abort(); /* decoding never grows the text */
            str = (char *)malloc(len + 1);
            if (!str) break;
            if (llm_json_str(text, k, str, len + 1, &j) != LLM_OK || j != len || str[len] != 0) abort();
            if (!utf8_ok((const unsigned char *)str, len)) abort();
            if (len && llm_json_str(text, k, str, len, &j) != LLM_ERANGE) abort();
            if (!memchr(str, 0, len) && (len <= 256 || !memchr(text + k->start, '\\', k->len))) {
                llm_json_str(text, k, str, len + 1, &j);
                if (!llm_json_eq(text, k, str)) abort();
            }
            free(str);
            str = NULL;
        } else if (llm_json_num(text, k, &d) != LLM_EFORMAT || llm_json_str(text, k, NULL, 0, &len) != LLM_EFORMAT) {
            abort();
        }
        if (k->type != LLM_JSON_OBJECT && llm_json_find(text, t, n, i, "a") != -1) abort();
        if (k->type != LLM_JSON_ARRAY && llm_json_at(t, n, i, 0) != -1) abort();
    }
    free(str);
    free(t);
    return 0;
}
