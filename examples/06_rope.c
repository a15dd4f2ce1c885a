/* 06_rope.c: RoPE: rotations make scores depend on distance, and the clock hands */
/* Rotary position embedding (RoPE) turns each pair of a head's dimensions by an angle
   proportional to the position. A dot product of two rotated vectors depends only on
   the difference of their angles, so the score of query m and key n depends on m - n.
   Adding a position vector instead (the original Transformer's sinusoids) does not have
   that property. The table is the Llama chapter's, with its own vectors, beside its
   printed figures. Build: cc -O2 -I. examples/06_rope.c -lm */
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

/* the sinusoidal absolute position vector of "Attention is all you need" (sin at 2i, cos
   at 2i + 1, frequency 10000^(-2i/d)) added to x; in double, as the text computes it */
static double add_score(const float *q, const float *k, int m, int n) {
    double s = 0;
    int i;
    for (i = 0; i < D / 2; i++) {
        double f = pow(10000.0, -2.0 * i / D);
        s += (q[2 * i] + sin(m * f)) * (k[2 * i] + sin(n * f));
        s += (q[2 * i + 1] + cos(m * f)) * (k[2 * i + 1] + cos(n * f));
    }
    return s;
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

/* The Llama chapter's worked table: its q and k are NumPy's default_rng(0).normal(size=8),
   twice; its figures, as the text prints them (rotate: pairs (2i, 2i+1), base 10,000;
   add: the sinusoids above added to q and k). */
static const double chapter_q[D] = {0.1257302210933933, -0.1321048632913019, 0.6404226504432821, 0.10490011715303971,
                                    -0.535669373161111, 0.36159505490948474, 1.3040000451301372, 0.9470809631292422};
static const double chapter_k[D] = {-0.7037352358069926, -1.2654214710460525, -0.6232744625373522, 0.0413259793472436,
                                    -2.3250307746388343, -0.21879166393254573, -1.2459109472530652, -0.7322673547034516};
static const double chapter_rot[5] = {-1.586475, -1.586475, -1.586475, -1.763129, -1.628434};
static const double chapter_add[3] = {1.176863, -0.574756, 1.312702}; /* (5,2), (105,102), (1005,1002) only */
#define CHAPTER_QK (-1.467987)
#define CHAPTER_NORM_Q 1.862653

/* printed to 6 decimals, does it read as the text's figure? */
static int is_same6(double mine, double text) {
    char a[32], b[32];
    snprintf(a, sizeof a, "%.6f", mine), snprintf(b, sizeof b, "%.6f", text);
    return strcmp(a, b) == 0;
}
static const char *same6(double mine, double text) { return is_same6(mine, text) ? "yes" : "NO"; }

int main(void) {
    static const int pairs[][2] = {{5, 2}, {105, 102}, {1005, 1002}, {5, 3}, {2, 5}};
    static float mem[2000 * D];
    llm_rope rope, halves;
    static float mem2[2000 * D];
    llm_config c;
    float q[D], k[D];
    int i, n_same = 0, n_fig = 0;
    for (i = 0; i < D; i++) q[i] = (float)chapter_q[i], k[i] = (float)chapter_k[i];
    if (llm_rope_init_ex(&rope, mem, sizeof mem, D, 2000, 10000.0f, LLM_ROPE_INTERLEAVED) != LLM_OK) return 1;
    if (llm_rope_init_ex(&halves, mem2, sizeof mem2, D, 2000, 10000.0f, LLM_ROPE_HALVES) != LLM_OK) return 1;
    printf("The Llama chapter's table: score q_m . k_n of its q and k (d = %d, base 10,000), rotated by\n"
           "llm.h's rope (pairs (2i, 2i+1), LLM_ROPE_INTERLEAVED) or with sinusoids added, beside the text:\n\n", D);
    printf("  q . k unrotated: %.6f   text %.6f   same to 6 digits: %s\n\n", dot(q, k), CHAPTER_QK,
           same6(dot(q, k), CHAPTER_QK));
    n_fig++, n_same += is_same6(dot(q, k), CHAPTER_QK);
    printf("  %6s %6s %6s  %12s %10s %5s  %12s %10s %5s  %12s\n", "m", "n", "m - n", "rotate", "text", "same", "add",
           "text", "same", "halves");
    for (i = 0; i < 5; i++) {
        int m = pairs[i][0], n = pairs[i][1];
        float qr[D], kr[D], qh[D], kh[D];
        double rot, add;
        memcpy(qr, q, sizeof q), memcpy(kr, k, sizeof k), memcpy(qh, q, sizeof q), memcpy(kh, k, sizeof k);
        llm_rope_apply(&rope, qr, 1, m);
        llm_rope_apply(&rope, kr, 1, n);
        llm_rope_apply(&halves, qh, 1, m);
        llm_rope_apply(&halves, kh, 1, n);
        rot = dot(qr, kr), add = add_score(q, k, m, n);
        n_fig++, n_same += is_same6(rot, chapter_rot[i]);
        printf("  %6d %6d %6d  %12.6f %10.6f %5s  %12.6f", m, n, m - n, rot, chapter_rot[i], same6(rot, chapter_rot[i]), add);
        if (i < 3) {
            n_fig++, n_same += is_same6(add, chapter_add[i]);
            printf(" %10.6f %5s", chapter_add[i], same6(add, chapter_add[i]));
        } else {
            printf(" %10s %5s", "-", "");
        }
        printf("  %12.6f\n", dot(qh, kh));
    }
    n_fig++, n_same += is_same6(sqrt(dot(q, q)), CHAPTER_NORM_Q);
    printf("\n  |q| = %.6f (text %.6f, same: %s)", sqrt(dot(q, q)), CHAPTER_NORM_Q, same6(sqrt(dot(q, q)), CHAPTER_NORM_Q));
    {
        float qr[D];
        memcpy(qr, q, sizeof q);
        llm_rope_apply(&rope, qr, 1, 1999);
        printf("; |q rotated to position 1999| = %.6f\n", sqrt(dot(qr, qr)));
    }
    printf("\n%d of the text's %d figures printed to the same 6 decimals (llm.h's float vectors and\n"
           "tables, the dot products and the sinusoids in double). The text's convention is the\n"
           "interleaved pairs: the last column pairs (i, i + d/2) instead (Hugging Face's layout) and\n"
           "gives other numbers, still equal at equal distances. Rotating: the first three rows\n"
           "(distance 3) agree; distance 2 differs, and so does distance -3 (the key 3 tokens in the\n"
           "future). Adding: every row differs, because the score mixes in absolute positions.\n"
           "Rotations also keep lengths.\n", n_same, n_fig);

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
