/* What the file-format tests (test_gguf, test_hf, test_ggml_quants, test_json) share.
   GGUF and safetensors are little-endian by definition, whatever the host: values are
   decoded here byte by byte (never by casting the file's bytes to float *), so the same
   comparison holds on a big-endian host. There llm_gguf_load and llm_hf_load refuse by
   design (they use the weights in place); fc_be_refused is that refusal, checked: the
   status and a reason that says so. Include after llm.h and test.h. */
#ifndef LLM_FILECHECK_H
#define LLM_FILECHECK_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST_UNUSED static int fc_host_le(void) {
    const uint32_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}
TEST_UNUSED static uint16_t fc_le16(const void *p) {
    const unsigned char *b = (const unsigned char *)p;
    return (uint16_t)(b[0] | b[1] << 8);
}
TEST_UNUSED static uint32_t fc_le32(const void *p) {
    const unsigned char *b = (const unsigned char *)p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
TEST_UNUSED static float fc_le_f32(const void *p) {
    uint32_t u = fc_le32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* n little-endian float32 at src into host floats at dst (dst may be src: in place) */
TEST_UNUSED static void fc_le_floats(float *dst, const void *src, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) dst[i] = fc_le_f32((const unsigned char *)src + 4 * i);
}
/* do the n little-endian float32 at p hold exactly x's bits (memcmp in any byte order)? */
TEST_UNUSED static int fc_le_floats_are(const void *p, const float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        if (fc_le32((const unsigned char *)p + 4 * i) != u) return 0;
    }
    return 1;
}

/* max |x[i]|, and max |a[i] - b[i]| (a NaN on either side is the largest difference) */
TEST_UNUSED static double fc_max_abs(const float *x, size_t n) {
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}
TEST_UNUSED static double fc_max_diff(const float *a, const float *b, size_t n) {
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++) m = !(fabs((double)a[i] - b[i]) <= m) ? fabs((double)a[i] - b[i]) : m;
    return m;
}

/* case-insensitive: does why mention name? */
TEST_UNUSED static int fc_mentions(const char *why, const char *name) {
    size_t n = strlen(name), i, k;
    if (!why) return 0;
    for (i = 0; why[i]; i++) {
        for (k = 0; k < n && why[i + k]; k++) {
            char a = why[i + k], b = name[k];
            if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
            if (a != b) break;
        }
        if (k == n) return 1;
    }
    return 0;
}
/* a loader's refusal of a big-endian host: LLM_EUNSUPPORTED and a reason that says so */
TEST_UNUSED static int fc_be_refused(llm_status st, const char *why) {
    return st == LLM_EUNSUPPORTED && fc_mentions(why, "big-endian");
}
/* A load whose verdict needs the weights: on a little-endian host `want`, on a big-endian
   one the refusal. *why is read here, after the load (fc_load_is(load(.., &why), &why, ..)
   is safe in any order of evaluation). */
TEST_UNUSED static int fc_load_is(llm_status st, const char *const *why, llm_status want) {
    return fc_host_le() ? st == want : fc_be_refused(st, *why);
}

/* The whole file in a 64-byte-aligned heap buffer, a NUL after its *n bytes (a text file
   reads as a string); *mem is what to free. NULL (and *mem NULL) if it cannot be read. */
TEST_UNUSED static unsigned char *fc_read_all(const char *path, size_t *n, void **mem) {
    FILE *f = fopen(path, "rb");
    long sz;
    unsigned char *p;
    *mem = NULL;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    *mem = malloc((size_t)sz + 65);
    if (!*mem) abort();
    p = (unsigned char *)*mem + (64 - (uintptr_t)*mem % 64) % 64;
    if (fread(p, 1, (size_t)sz, f) != (size_t)sz) {
        fclose(f);
        free(*mem);
        *mem = NULL;
        return NULL;
    }
    fclose(f);
    p[sz] = 0;
    *n = (size_t)sz;
    return p;
}

/* The first index where ids[0 .. n_ids) and want[0 .. n_want) differ (one list ending
   early counts), -1 where they are equal. */
TEST_UNUSED static int fc_first_mismatch(const int *ids, int n_ids, const int *want, int n_want) {
    int i;
    for (i = 0; i < n_ids || i < n_want; i++)
        if (i >= n_ids || i >= n_want || ids[i] != want[i]) return i;
    return -1;
}

/* A parser run on an exact-size copy of p[0 .. n): its status, *why its reason (a copy
   that outlives the parse). */
typedef llm_status (*fc_parse_fn)(const unsigned char *p, size_t n, const char **why);
/* Every proper prefix of the file p[0 .. n) is refused with want and a reason: one check,
   naming the first prefix that was not. */
TEST_UNUSED static void fc_check_prefixes(const unsigned char *p, size_t n, fc_parse_fn parse, llm_status want,
                                          const char *what) {
    size_t cut, bad = 0, first = 0;
    llm_status first_st = LLM_OK;
    for (cut = 0; cut < n; cut++) {
        const char *why = NULL;
        llm_status st = parse(p, cut, &why);
        if (!(st == want && why && *why) && !bad++) first = cut, first_st = st;
    }
    CHECK_MSG(bad == 0, "%s: %lu of %lu prefixes not refused with %s and a reason, first at %lu bytes: %s", what,
              (unsigned long)bad, (unsigned long)n, llm_status_str(want), (unsigned long)first, llm_status_str(first_st));
}
#endif
