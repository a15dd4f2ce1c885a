/* 06_rope.c: RoPE: rotations make scores depend on distance, and the clock hands */
/* Rotary position embedding (RoPE) turns each pair of a head's dimensions by an angle
   proportional to the position. A dot product of two rotated vectors depends only on
   the difference of their angles, so the score of query m and key n depends on m - n.
   Adding a position vector instead (the original Transformer's sinusoids) does not have
   that property. Build: cc -O2 -I. examples/06_rope.c -lm */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>

#define D 8
#define PI 3.14159265358979323846

static double dot(const float *a, const float *b) {
    double s = 0;
    int i;
    for (i = 0; i < D; i++) s += (double)a[i] * b[i];
    return s;
}

/* the sinusoidal absolute position vector of "Attention is all you need" */
static void add_sinusoid(float *x, int pos) {
    int i;
    for (i = 0; i < D / 2; i++) {
        double f = pow(10000.0, -2.0 * i / D);
        x[2 * i] += (float)sin(pos * f);
        x[2 * i + 1] += (float)cos(pos * f);
    }
}

/* period in tokens of each pair of a rope table: 2 pi / (angle per token) */
static void clock_hands(const char *what, const llm_config *c) {
    llm_rope r;
    int half, last;
    double fast, slow;
    if (llm_rope_create(&r, c, 2) != LLM_OK) return;
    half = r.rotary_dim / 2, last = half - 1;
    /* position 1's angle of pair i is its frequency */
    fast = 2 * PI / atan2(r.sin[half + 0], r.cos[half + 0]);
    slow = 2 * PI / atan2(r.sin[half + last], r.cos[half + last]);
    printf("  %-40s fastest pair: %8.2f tokens   slowest pair: %12.0f tokens\n", what, fast, slow);
    llm_rope_free(&r);
}

int main(void) {
    static const int pairs[][2] = {{5, 2}, {105, 102}, {1005, 1002}, {5, 3}, {2, 5}};
    static float mem[2000 * D];
    llm_rope rope;
    llm_config c;
    float q[D], k[D];
    int i;
    for (i = 0; i < D; i++) {
        q[i] = (float)sin(1.0 + i);
        k[i] = (float)cos(2.0 * i);
    }
    if (llm_rope_init_ex(&rope, mem, sizeof mem, D, 2000, 10000.0f, LLM_ROPE_INTERLEAVED) != LLM_OK) return 1;
    printf("Score q_m . k_n for one query and one key vector, d = %d, base 10,000:\n\n", D);
    printf("  %6s %6s %6s %14s %14s\n", "m", "n", "m - n", "rotate (RoPE)", "add (sinusoid)");
    for (i = 0; i < 5; i++) {
        int m = pairs[i][0], n = pairs[i][1];
        float qr[D], kr[D], qa[D], ka[D];
        memcpy(qr, q, sizeof q), memcpy(kr, k, sizeof k), memcpy(qa, q, sizeof q), memcpy(ka, k, sizeof k);
        llm_rope_apply(&rope, qr, 1, m);
        llm_rope_apply(&rope, kr, 1, n);
        add_sinusoid(qa, m);
        add_sinusoid(ka, n);
        printf("  %6d %6d %6d %14.6f %14.6f\n", m, n, m - n, dot(qr, kr), dot(qa, ka));
    }
    printf("\nRotating: the first three rows (distance 3) agree; distance 2 differs, and so does\n"
           "distance -3 (the key 3 tokens in the future). Adding: every row differs, because\n"
           "the score mixes in absolute positions. Rotations also keep lengths: |q| = %.6f,\n",
           sqrt(dot(q, q)));
    {
        float qr[D];
        memcpy(qr, q, sizeof q);
        llm_rope_apply(&rope, qr, 1, 1999);
        printf("|q rotated to position 1999| = %.6f.\n", sqrt(dot(qr, qr)));
    }

    printf("\nThe clock hands: pair i turns by base^(-2i/d) radians per token, so the first pair\n"
           "is a seconds hand (2 pi = 6.28 tokens per turn) and the last an hour hand.\n"
           "Periods from llm.h's tables, head_dim 128:\n\n");
    memset(&c, 0, sizeof c);
    c.n_heads = 1;
    c.d_model = 128;
    c.rope_theta = 10000.0f;
    clock_hands("base 10,000 (Llama 2)", &c);
    c.rope_theta = 500000.0f;
    clock_hands("base 500,000 (Llama 3)", &c);
    c.rope_scale = 8; /* Llama 3.1: low frequencies slowed 8x beyond the 8k training context */
    c.rope_low_freq_factor = 1;
    c.rope_high_freq_factor = 4;
    c.rope_orig_ctx = 8192;
    clock_hands("base 500,000, Llama 3.1 scaling x8", &c);
    printf("\nA larger base slows the hour hand, so positions far apart still get distinct angles:\n"
           "one reason Llama 3 raised it for longer contexts.\n");
    return 0;
}
