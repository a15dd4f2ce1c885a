/* 05_causal_mask.c: the causal mask as a matrix, and why llm.h never builds it */
/* A decoder only looks at the past: token t may attend to tokens 0..t. Textbooks write
   this as a T x T matrix added to the scores before the softmax: 0 where a key is
   visible, -inf where it is in the future, so exp(-inf) = 0 removes it. This program
   prints that matrix for T = 5, checks that llm.h's attention (which never builds it)
   gives the same outputs as the textbook version, and counts the work the loop bounds
   skip. Build: cc -O2 -I. examples/05_causal_mask.c -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>

#define T 5
#define HD 4

static const char *binary_bytes(double b, char *buf) { /* KiB = 2^10 B, ..., GiB = 2^30 B */
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, u++;
    sprintf(buf, "%.0f %s", b, unit[u]);
    return buf;
}

int main(void) {
    float q[T * HD], k[T * HD], v[T * HD], out[T * HD];
    double s[T][T], worst = 0;
    int i, j, d;
    char buf[32];
    static const int sizes[] = {5, 64, 1024, 8192, 131072};

    printf("Additive causal mask for T = %d (row = query position, column = key position):\n\n", T);
    for (i = 0; i < T; i++) {
        printf("   ");
        for (j = 0; j < T; j++) printf(" %5s", j <= i ? "0" : "-inf");
        printf("\n");
    }
    printf("\nThe same as visibility (1 = query i may read key j):\n\n");
    for (i = 0; i < T; i++) {
        printf("   ");
        for (j = 0; j < T; j++) printf(" %d", j <= i);
        printf("\n");
    }

    /* a small example: the textbook computation with the matrix, then llm.h */
    for (i = 0; i < T * HD; i++) {
        q[i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
        k[i] = (float)((i * 5) % 13) / 13.0f - 0.5f;
        v[i] = (float)((i * 3) % 7) / 7.0f - 0.5f;
    }
    for (i = 0; i < T; i++) {
        double mx = -INFINITY, sum = 0;
        for (j = 0; j < T; j++) { /* scores + mask */
            double dot = 0;
            for (d = 0; d < HD; d++) dot += (double)q[i * HD + d] * k[j * HD + d];
            s[i][j] = dot / sqrt((double)HD) + (j <= i ? 0.0 : -INFINITY);
            if (s[i][j] > mx) mx = s[i][j];
        }
        for (j = 0; j < T; j++) sum += (s[i][j] = exp(s[i][j] - mx)); /* softmax row */
        for (j = 0; j < T; j++) s[i][j] /= sum;
    }
    printf("\nAttention weights (softmax of masked scores): the upper triangle is exactly 0\n\n");
    for (i = 0; i < T; i++) {
        printf("   ");
        for (j = 0; j < T; j++) printf(" %5.3f", s[i][j]);
        printf("\n");
    }
    /* llm.h: one head, K and V for positions 0..T-1, queries at the same positions */
    if (llm_attention(out, q, k, v, T, T, T, 1, 1, HD, NULL) != LLM_OK) return 1;
    for (i = 0; i < T; i++)
        for (d = 0; d < HD; d++) {
            double ref = 0;
            for (j = 0; j < T; j++) ref += s[i][j] * v[j * HD + d];
            if (fabs(ref - out[i * HD + d]) > worst) worst = fabs(ref - out[i * HD + d]);
        }
    printf("\nllm_attention gives the same outputs (max difference %.1e) without the matrix:\n", worst);
    printf("query i simply stops its loop over keys at i. Keys are read in tiles of %d with a\n",
           LLM_ATTN_TILE);
    printf("running max and sum (online softmax), so tiles above the diagonal are never touched\n");
    printf("and each thread needs %zu bytes of tiles, whatever T is.\n\n", llm_attention_stack_bytes());

    printf("Work per head: (query, key) pairs computed\n\n");
    printf("%9s %18s %18s %8s %18s\n", "T", "full T x T", "causal T(T+1)/2", "skipped", "T x T fp32 matrix");
    for (i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); i++) {
        double t = sizes[i], full = t * t, causal = t * (t + 1) / 2;
        printf("%9d %18.0f %18.0f %7.1f%% %18s\n", sizes[i], full, causal, 100.0 * (1 - causal / full),
               binary_bytes(4.0 * full, buf));
    }
    printf("\nAs T grows the skipped share tends to 50%%: the mask halves the work only if the\n");
    printf("loop never visits the future, which is what llm.h's loop bounds do.\n");
    return 0;
}
