/* >>generation: the sampler chain (llm_sampler_params).

   - A zeroed struct (with a seed) draws what run.c's sampler (llm_sampler_create with T 1,
     top-p 0.9) draws, token for token; greedy, T 0.5 / top-p 0.95 and plain multinomial
     through the chain equal the (T, top-p) sampler the same way.
   - Each stage's probabilities, hand-computed here from its formula in double
     (llm_sampler_probs returns the final distribution): temperature 0.5 and 2, top-k with
     ties, top-p on both sides of a boundary, min-p, each penalty (repetition,
     frequency, presence, over a window), logit bias; then their composition against a
     double-precision reference chain written here (full sort, no heaps) on random logits.
   - Seeded draws repeat, and follow the distribution.
   - Bad parameters are LLM_EINVAL; all tokens banned is -1 / LLM_ERANGE. */
#include "llm.h"
#include "test.h"

#define V 512

/* p[i] = exp(z[i] - max) / sum, in double */
static void ref_softmax(const double *z, int n, double *p) {
    double mx = -HUGE_VAL, s = 0;
    int i;
    for (i = 0; i < n; i++)
        if (z[i] > mx) mx = z[i];
    for (i = 0; i < n; i++) s += (p[i] = z[i] == -HUGE_VAL ? 0 : exp(z[i] - mx));
    for (i = 0; i < n; i++) p[i] /= s;
}

/* the chain's distribution on logits[0..n) (copied) against want ids / probs */
static void expect_probs(const llm_sampler_params *prm, const float *logits, int n, const int *want_ids,
                         const double *want_p, int n_want, double tol, const char *what) {
    llm_sampler s;
    float lg[16], probs[16];
    int ids[16], got = -1, i, ok;
    CHECK_OK(llm_sampler_chain_create(&s, n, prm));
    memcpy(lg, logits, (size_t)n * sizeof *lg);
    CHECK_OK(llm_sampler_probs(&s, lg, ids, probs, 16, &got));
    ok = got == n_want;
    for (i = 0; ok && i < n_want; i++) ok = ids[i] == want_ids[i] && fabs(probs[i] - want_p[i]) <= tol;
    CHECK_MSG(ok, "%s: %d candidates (want %d); first %d %.7f (want %d %.7f)", what, got, n_want, got > 0 ? ids[0] : -1,
              got > 0 ? probs[0] : 0, want_ids[0], want_p[0]);
    llm_sampler_free(&s);
}

static void test_stages(void) {
    /* float softmax of 4 logits against double: measured error <= 2.3e-8 (T 0.5, 1, 2 on
       the logits of these tests); tolerance 3e-7 */
    const double tol = 3e-7;
    const float l4[4] = {1, 2, 3, 4};
    const int id4[4] = {0, 1, 2, 3}, desc4[4] = {3, 2, 1, 0};
    double z[4], p[4], q[4];
    llm_sampler_params prm;
    int i;
    /* temperature 0.5 and 2 (top-p off: the candidates in id order) */
    memset(&prm, 0, sizeof prm);
    prm.top_p = 1;
    prm.temperature = 0.5f;
    for (i = 0; i < 4; i++) z[i] = l4[i] / 0.5;
    ref_softmax(z, 4, p);
    expect_probs(&prm, l4, 4, id4, p, 4, tol, "T = 0.5");
    prm.temperature = 2;
    for (i = 0; i < 4; i++) z[i] = l4[i] / 2.0;
    ref_softmax(z, 4, p);
    expect_probs(&prm, l4, 4, id4, p, 4, tol, "T = 2");
    /* top-p at T = 2 (p = .1015 .1674 .2760 .4551): 0.6 keeps the two best (mass .7311 >
       .6), best first */
    prm.top_p = 0.6f;
    q[0] = p[3] / (p[3] + p[2]), q[1] = p[2] / (p[3] + p[2]);
    expect_probs(&prm, l4, 4, desc4, q, 2, tol, "T = 2, top-p 0.6");
    /* top-k 2 at T = 1: e^4 / (e^4 + e^3) and e^3 / (e^4 + e^3) */
    memset(&prm, 0, sizeof prm);
    prm.top_p = 1, prm.top_k = 2;
    q[0] = 1 / (1 + exp(-1.0)), q[1] = 1 - q[0];
    expect_probs(&prm, l4, 4, desc4, q, 2, tol, "top-k 2");
    /* top-k ties: three logits of 5; k = 2 keeps the lower ids, 0 and 2, half each */
    {
        const float lt[5] = {5, 1, 5, 5, 0};
        const int idt[2] = {0, 2};
        const double pt[2] = {0.5, 0.5};
        expect_probs(&prm, lt, 5, idt, pt, 2, tol, "top-k ties");
        prm.top_k = 3;
        {
            const int idt3[3] = {0, 2, 3};
            const double pt3[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
            expect_probs(&prm, lt, 5, idt3, pt3, 3, tol, "top-k 3 ties");
        }
    }
    /* top-p boundaries on probabilities .5 .25 .125 .125 (logits their logs): the rule is
       "keep until the mass exceeds top_p", the crossing token kept */
    {
        const float lp[4] = {(float)log(0.125), (float)log(0.5), (float)log(0.125), (float)log(0.25)};
        const int idp[4] = {1, 3, 0, 2}; /* best first; the two .125 by id */
        const double one[1] = {1}, two[2] = {2.0 / 3, 1.0 / 3}, three[3] = {4.0 / 7, 2.0 / 7, 1.0 / 7};
        const double all[4] = {0.5, 0.25, 0.125, 0.125};
        memset(&prm, 0, sizeof prm);
        prm.top_p = 0.499f; /* .5 > .499: the first alone */
        expect_probs(&prm, lp, 4, idp, one, 1, tol, "top-p 0.499");
        prm.top_p = 0.501f; /* .5 is not > .501: the second joins */
        expect_probs(&prm, lp, 4, idp, two, 2, tol, "top-p 0.501");
        prm.top_p = 0.749f;
        expect_probs(&prm, lp, 4, idp, two, 2, tol, "top-p 0.749");
        prm.top_p = 0.751f;
        expect_probs(&prm, lp, 4, idp, three, 3, tol, "top-p 0.751");
        prm.top_p = 0.99f; /* .875 + .125 = 1 > .99: all four */
        expect_probs(&prm, lp, 4, idp, all, 4, tol, "top-p 0.99");
        /* top-p's run.c cutoff (1 - p) / (V - 1) = .0033 drops nothing here; with top-k 3
           the nucleus is found in the k */
        prm.top_p = 0.99f, prm.top_k = 3;
        expect_probs(&prm, lp, 4, idp, three, 3, tol, "top-k 3, top-p 0.99");
        /* min-p relative to the best, .5: 0.26 -> .13 keeps .5 .25; 0.24 -> .12 keeps all.
           Without top-p the order is by id */
        {
            const int id_id2[2] = {1, 3}, id_all[4] = {0, 1, 2, 3};
            const double by_id[4] = {0.125, 0.5, 0.125, 0.25};
            memset(&prm, 0, sizeof prm);
            prm.top_p = 1, prm.min_p = 0.26f;
            expect_probs(&prm, lp, 4, id_id2, two, 2, tol, "min-p 0.26");
            prm.min_p = 0.24f;
            expect_probs(&prm, lp, 4, id_all, by_id, 4, tol, "min-p 0.24");
            /* after top-p 0.751 (three left), min-p 0.3 (.15) keeps two */
            prm.top_p = 0.751f, prm.min_p = 0.3f;
            expect_probs(&prm, lp, 4, idp, two, 2, tol, "top-p then min-p");
        }
    }
}

/* Penalties and logit bias, hand-computed. */
static void test_penalties(void) {
    const double tol = 3e-7; /* as above */
    const float l[4] = {2, -1, 0.5f, 3};
    const int hist[6] = {1, 0, 1, 3, 3, 3}, id4[4] = {0, 1, 2, 3};
    llm_sampler_params prm;
    llm_sampler s;
    float lg[4], probs[4];
    int ids[4], n, i;
    double z[4], p[4];
    memset(&prm, 0, sizeof prm);
    prm.top_p = 1, prm.repeat_penalty = 2, prm.frequency_penalty = 0.5f, prm.presence_penalty = 0.25f;
    prm.penalty_last_n = 4;
    CHECK_OK(llm_sampler_chain_create(&s, 4, &prm));
    for (i = 0; i < 6; i++) CHECK_OK(llm_sampler_accept(&s, hist[i]));
    /* the window of 4 holds 1, 3, 3, 3 (the older 1 and 0 fell out): token 1 seen once,
       logit -1 <= 0 so times 2, minus 0.5 * 1 + 0.25 = -2.75; token 3 three times,
       3 / 2 - 0.5 * 3 - 0.25 = -0.25; tokens 0 and 2 untouched */
    z[0] = 2, z[1] = -2.75, z[2] = 0.5, z[3] = -0.25;
    ref_softmax(z, 4, p);
    memcpy(lg, l, sizeof lg);
    CHECK_OK(llm_sampler_probs(&s, lg, ids, probs, 4, &n));
    CHECK(n == 4);
    for (i = 0; i < 4 && n == 4; i++) CHECK_NEAR(probs[i], p[i], tol);
    /* each penalty alone, window 8: all six tokens count (1 twice, 0 once, 3 three times) */
    {
        struct { float rep, freq, pres; double z0, z1, z3; } c[3] = {
            {2, 0, 0, 2 / 2.0, -1 * 2.0, 3 / 2.0},
            {0, 0.5f, 0, 2 - 0.5, -1 - 1.0, 3 - 1.5},
            {0, 0, 0.25f, 2 - 0.25, -1 - 0.25, 3 - 0.25},
        };
        int k;
        for (k = 0; k < 3; k++) {
            llm_sampler s2;
            memset(&prm, 0, sizeof prm);
            prm.top_p = 1, prm.repeat_penalty = c[k].rep, prm.frequency_penalty = c[k].freq;
            prm.presence_penalty = c[k].pres, prm.penalty_last_n = 8;
            CHECK_OK(llm_sampler_chain_create(&s2, 4, &prm));
            for (i = 0; i < 6; i++) llm_sampler_accept(&s2, hist[i]);
            z[0] = c[k].z0, z[1] = c[k].z1, z[2] = 0.5, z[3] = c[k].z3;
            ref_softmax(z, 4, p);
            memcpy(lg, l, sizeof lg);
            CHECK_OK(llm_sampler_probs(&s2, lg, ids, probs, 4, &n));
            CHECK_MSG(n == 4 && fabs(probs[0] - p[0]) <= tol && fabs(probs[1] - p[1]) <= tol &&
                          fabs(probs[3] - p[3]) <= tol,
                      "penalty %d: %g %g %g %g", k, probs[0], probs[1], probs[2], probs[3]);
            /* reset empties the window: the plain softmax again */
            llm_sampler_reset(&s2);
            for (i = 0; i < 4; i++) z[i] = l[i];
            ref_softmax(z, 4, p);
            memcpy(lg, l, sizeof lg);
            CHECK_OK(llm_sampler_probs(&s2, lg, ids, probs, 4, &n));
            CHECK(n == 4 && fabs(probs[3] - p[3]) <= tol);
            llm_sampler_free(&s2);
        }
    }
    llm_sampler_free(&s);
    /* llm_sample accepts what it draws: greedy with repetition 2 on logits 1, 0.9 takes 0,
       then 0 is at 0.5 and 1 wins */
    {
        const float g[2] = {1.0f, 0.9f};
        memset(&prm, 0, sizeof prm);
        prm.greedy = 1, prm.repeat_penalty = 2;
        CHECK_OK(llm_sampler_chain_create(&s, 2, &prm));
        memcpy(lg, g, sizeof g);
        CHECK(llm_sample(&s, lg) == 0);
        memcpy(lg, g, sizeof g);
        CHECK(llm_sample(&s, lg) == 1);
        llm_sampler_free(&s);
    }
    /* logit bias: +2 on id 1, -inf bans id 3: softmax of 2, 1, 0.5 */
    {
        llm_logit_bias b[2];
        const int idb[3] = {0, 1, 2};
        const float lb[4] = {2, -1, 0.5f, 3};
        b[0].id = 1, b[0].bias = 2, b[1].id = 3, b[1].bias = -INFINITY;
        memset(&prm, 0, sizeof prm);
        prm.top_p = 1, prm.logit_bias = b, prm.n_logit_bias = 2;
        z[0] = 2, z[1] = 1, z[2] = 0.5, z[3] = -HUGE_VAL;
        ref_softmax(z, 4, p);
        /* the banned token has probability 0 and stays a candidate of the plain draw */
        {
            const double pb[4] = {p[0], p[1], p[2], 0};
            expect_probs(&prm, lb, 4, id4, pb, 4, tol, "logit bias");
        }
        prm.top_p = 0.99f; /* a truncation drops it */
        {
            const int idb2[3] = {0, 1, 2};
            (void)idb;
            expect_probs(&prm, lb, 4, idb2, p, 3, tol, "logit bias, top-p");
        }
        /* the bias is copied at init: the caller's array may change */
        CHECK_OK(llm_sampler_chain_create(&s, 4, &prm));
        b[1].bias = 0;
        memcpy(lg, lb, sizeof lg);
        CHECK_OK(llm_sampler_probs(&s, lg, ids, probs, 4, &n));
        CHECK(n == 3);
        llm_sampler_free(&s);
        /* everything banned: -1 from llm_sample, ERANGE from probs */
        {
            llm_logit_bias all[2] = {{0, -INFINITY}, {1, -INFINITY}};
            float two[2] = {1, 2};
            memset(&prm, 0, sizeof prm);
            prm.logit_bias = all, prm.n_logit_bias = 2;
            CHECK_OK(llm_sampler_chain_create(&s, 2, &prm));
            CHECK(llm_sample(&s, two) == -1);
            two[0] = 1, two[1] = 2;
            CHECK(llm_sampler_probs(&s, two, ids, probs, 4, &n) == LLM_ERANGE && n == 0);
            llm_sampler_free(&s);
            prm.greedy = 1;
            CHECK_OK(llm_sampler_chain_create(&s, 2, &prm));
            two[0] = 1, two[1] = 2;
            CHECK(llm_sample(&s, two) == -1);
            llm_sampler_free(&s);
        }
    }
}

/* ---- the composition against a reference chain in double ---------------------------- */

typedef struct { double p; int id; } ref_c;
static int ref_cmp(const void *a, const void *b) {
    const ref_c *x = (const ref_c *)a, *y = (const ref_c *)b;
    if (x->p != y->p) return x->p > y->p ? -1 : 1;
    return x->id - y->id;
}
/* The stages as llm.h documents them, in double with a full sort. Returns the count, or
   -1 when a cut falls within 1e-5 of its threshold (float and double may disagree). */
static int ref_chain(const llm_sampler_params *prm, const float *logits, const int *recent, int n_recent, int *ids,
                     double *probs) {
    static double z[V], pr[V];
    static int cnt[V];
    static ref_c c[V];
    int i, n = 0, k;
    double cum = 0, best;
    for (i = 0; i < V; i++) z[i] = logits[i], cnt[i] = 0;
    for (i = 0; i < prm->n_logit_bias; i++) z[prm->logit_bias[i].id] += prm->logit_bias[i].bias;
    for (i = 0; i < n_recent; i++) cnt[recent[i]]++;
    for (i = 0; i < V; i++)
        if (cnt[i]) {
            z[i] = z[i] > 0 ? z[i] / prm->repeat_penalty : z[i] * prm->repeat_penalty;
            z[i] -= cnt[i] * (double)prm->frequency_penalty + prm->presence_penalty;
        }
    for (i = 0; i < V; i++) z[i] /= prm->temperature;
    for (i = 0; i < V; i++) c[i].p = z[i], c[i].id = i;
    qsort(c, V, sizeof c[0], ref_cmp);
    k = prm->top_k > 0 ? prm->top_k : V;
    if (k < V && fabs(c[k - 1].p - c[k].p) < 1e-5) return -1;
    for (i = 0; i < k; i++) pr[i] = c[i].p;
    ref_softmax(pr, k, pr);
    for (i = 0; i < k; i++) c[i].p = pr[i];
    n = k;
    if (prm->top_p < 1) {
        for (i = 0; i < k; i++) {
            cum += c[i].p;
            if (fabs(cum - prm->top_p) < 1e-5) return -1;
            if (cum > prm->top_p) break;
        }
        n = i < k ? i + 1 : k;
    }
    best = c[0].p;
    if (prm->min_p > 0) {
        for (i = 0; i < n; i++) {
            if (fabs(c[i].p - prm->min_p * best) < 1e-5 * best) return -1;
            if (c[i].p < prm->min_p * best) break;
        }
        n = i;
    }
    for (cum = 0, i = 0; i < n; i++) cum += c[i].p;
    for (i = 0; i < n; i++) ids[i] = c[i].id, probs[i] = c[i].p / cum;
    return n;
}

static void test_composition(void) {
    static float logits[V], lg[V], probs[V];
    static int ids[V], rids[V], recent[32];
    static double rp[V];
    llm_logit_bias bias[3];
    llm_sampler_params prm;
    llm_sampler s;
    int trial, n, rn, i, bad = 0, ran = 0, near_cut = 0, sorted;
    double maxerr = 0;
    for (trial = 0; trial < 300; trial++) {
        memset(&prm, 0, sizeof prm);
        test_fill(logits, V, 6.0f);
        prm.temperature = trial % 3 == 0 ? 0.5f : trial % 3 == 1 ? 1.0f : 2.0f;
        prm.top_k = trial % 4 == 0 ? 0 : trial % 4 == 1 ? 40 : trial % 4 == 2 ? 5 : 300;
        prm.top_p = trial % 5 == 0 ? 1.0f : 0.3f + 0.15f * (float)(trial % 5);
        prm.min_p = trial % 7 < 3 ? 0.0f : 0.02f * (float)(trial % 7);
        prm.repeat_penalty = trial % 2 ? 1.3f : 1.0f;
        prm.frequency_penalty = trial % 3 ? 0.2f : 0.0f;
        prm.presence_penalty = trial % 4 ? 0.1f : 0.0f;
        prm.penalty_last_n = 32;
        bias[0].id = trial % V, bias[0].bias = 3;
        bias[1].id = (trial * 7) % V, bias[1].bias = -INFINITY;
        bias[2].id = (trial * 13) % V, bias[2].bias = -1.5f;
        prm.logit_bias = bias, prm.n_logit_bias = trial % 2 ? 3 : 0;
        prm.seed = (uint64_t)trial + 1;
        CHECK_OK(llm_sampler_chain_create(&s, V, &prm));
        for (i = 0; i < 32; i++) {
            recent[i] = (int)((test_randf() + 1) * 0.5f * V) % V;
            llm_sampler_accept(&s, recent[i]);
        }
        memcpy(lg, logits, sizeof lg);
        CHECK_OK(llm_sampler_probs(&s, lg, ids, probs, V, &n));
        {
            llm_sampler_params r = prm;
            if (r.repeat_penalty == 1.0f && r.frequency_penalty == 0 && r.presence_penalty == 0) rn = 0;
            else rn = 32;
            rn = ref_chain(&r, logits, recent, rn, rids, rp);
        }
        llm_sampler_free(&s);
        if (rn < 0) {
            near_cut++;
            continue;
        }
        ran++;
        /* without top-k and top-p, candidates come in id order: compare as sets sorted */
        sorted = prm.top_k > 0 || prm.top_p < 1;
        if (!sorted) { /* put the reference in id order */
            int j;
            for (i = 1; i < rn; i++)
                for (j = i; j > 0 && rids[j - 1] > rids[j]; j--) {
                    int t = rids[j];
                    double tp = rp[j];
                    rids[j] = rids[j - 1], rp[j] = rp[j - 1], rids[j - 1] = t, rp[j - 1] = tp;
                }
        }
        if (n != rn) {
            bad++;
            continue;
        }
        for (i = 0; i < n; i++) {
            double e = fabs(probs[i] - rp[i]);
            if (ids[i] != rids[i]) bad++, i = n;
            else if (e > maxerr) maxerr = e;
        }
    }
    /* measured max |p - p_ref| 6.5e-7 (float softmax over up to 512 terms); tolerance 5e-6 */
    CHECK_MSG(bad == 0 && ran > 200 && maxerr <= 5e-6, "%d of %d compositions differ, max error %.3g", bad, ran, maxerr);
    printf("  composition: %d random chains as the double reference (%d skipped: a cut within 1e-5), max |dp| %.2g\n",
           ran, near_cut, maxerr);
}

/* ---- run.c's sampler through the chain, seeded draws ------------------------------- */

static void draws_equal(const llm_sampler_params *prm, float t, float topp, const char *what) {
    static float logits[V], a[V], b[V];
    llm_sampler chain, runc;
    int i, same = 0, first_diff = -1;
    CHECK_OK(llm_sampler_chain_create(&chain, V, prm));
    CHECK_OK(llm_sampler_create(&runc, V, t, topp, prm->seed));
    for (i = 0; i < 300; i++) {
        int x, y, j;
        test_fill(logits, V, i % 3 == 0 ? 2.0f : 6.0f);
        if (i % 10 == 0)
            for (j = 0; j < V; j += 2) logits[j] = logits[j + 1]; /* ties everywhere */
        memcpy(a, logits, sizeof a), memcpy(b, logits, sizeof b);
        x = llm_sample(&chain, a), y = llm_sample(&runc, b);
        if (x == y) same++;
        else if (first_diff < 0) first_diff = i;
    }
    CHECK_MSG(same == 300, "%s: %d of 300 draws equal (first difference at %d)", what, same, first_diff);
    llm_sampler_free(&chain);
    llm_sampler_free(&runc);
}

static void test_runc(void) {
    llm_sampler_params prm, d = llm_sampler_params_default();
    memset(&prm, 0, sizeof prm);
    prm.seed = 42;
    draws_equal(&prm, 1.0f, 0.9f, "zeroed params = run.c's defaults");
    /* the written-out defaults are the zeros' meaning ((float)0.9f: see test_gguf's FLT_EVAL_METHOD note) */
    CHECK(d.temperature == 1.0f && d.top_p == (float)0.9f && d.top_k == 0 && d.min_p == 0 && d.repeat_penalty == 1.0f &&
          d.penalty_last_n == 64 && !d.greedy && d.seed == 0);
    d.seed = 42;
    draws_equal(&d, 1.0f, 0.9f, "llm_sampler_params_default");
    prm.temperature = 0.5f, prm.top_p = 0.95f, prm.seed = 7;
    draws_equal(&prm, 0.5f, 0.95f, "T 0.5, top-p 0.95");
    prm.temperature = 2.0f, prm.top_p = 1.0f;
    draws_equal(&prm, 2.0f, 1.0f, "T 2, multinomial");
    memset(&prm, 0, sizeof prm);
    prm.greedy = 1, prm.seed = 3;
    draws_equal(&prm, 0.0f, 0.9f, "greedy");
    /* seed 0 is LLM_SAMPLER_SEED0, as for llm_sampler_init */
    prm.greedy = 0, prm.seed = 0;
    {
        llm_sampler a;
        CHECK_OK(llm_sampler_chain_create(&a, V, &prm));
        CHECK(a.rng == LLM_SAMPLER_SEED0);
        llm_sampler_free(&a);
    }
}

static void test_seeded(void) {
    static float logits[V], a[V];
    llm_sampler_params prm;
    llm_sampler s1, s2, s3;
    int i, same12 = 0, same13 = 0, hits = 0;
    const float l4[4] = {1, 2, 3, 4};
    memset(&prm, 0, sizeof prm);
    prm.top_k = 50, prm.min_p = 0.05f, prm.repeat_penalty = 1.2f, prm.seed = 1234;
    CHECK_OK(llm_sampler_chain_create(&s1, V, &prm));
    CHECK_OK(llm_sampler_chain_create(&s2, V, &prm));
    prm.seed = 1235;
    CHECK_OK(llm_sampler_chain_create(&s3, V, &prm));
    test_fill(logits, V, 3.0f);
    for (i = 0; i < 200; i++) {
        int x, y, z;
        memcpy(a, logits, sizeof a), x = llm_sample(&s1, a);
        memcpy(a, logits, sizeof a), y = llm_sample(&s2, a);
        memcpy(a, logits, sizeof a), z = llm_sample(&s3, a);
        same12 += x == y, same13 += x == z;
    }
    CHECK(same12 == 200);
    CHECK_MSG(same13 < 150, "another seed repeats %d of 200 draws", same13);
    llm_sampler_free(&s1), llm_sampler_free(&s2), llm_sampler_free(&s3);
    /* the draws follow the distribution: top-k 2 at T 1 gives id 3 with p = 1 / (1 + e^-1)
       = .7311; 20000 draws, sd .0031: tolerance .012 (4 sd) */
    memset(&prm, 0, sizeof prm);
    prm.top_k = 2, prm.seed = 99;
    CHECK_OK(llm_sampler_chain_create(&s1, 4, &prm));
    for (i = 0; i < 20000; i++) {
        float b[4];
        memcpy(b, l4, sizeof b);
        hits += llm_sample(&s1, b) == 3;
    }
    CHECK_NEAR(hits / 20000.0, 1 / (1 + exp(-1.0)), 0.012);
    llm_sampler_free(&s1);
}

static void test_args(void) {
    static unsigned char mem[1 << 16];
    llm_sampler_params prm;
    llm_sampler s;
    llm_logit_bias b = {4, 1.0f};
    float lg[4] = {0, 0, 0, 0}, pr[4];
    int ids[4], n;
    size_t need;
    memset(&prm, 0, sizeof prm);
    need = llm_sampler_chain_bytes(4, &prm);
    CHECK(need > 0 && need < sizeof mem);
    CHECK(llm_sampler_chain_init(&s, mem, need - 1, 4, &prm) == LLM_EINVAL);
    CHECK(llm_sampler_chain_init(&s, mem + 1, need, 4, &prm) == LLM_EINVAL);
    CHECK_OK(llm_sampler_chain_init(&s, mem, need, 4, &prm));
    CHECK(llm_sample(&s, lg) >= 0);
    CHECK(llm_sampler_accept(&s, 4) == LLM_EINVAL && llm_sampler_accept(&s, -1) == LLM_EINVAL);
    CHECK_OK(llm_sampler_accept(&s, 3));
    CHECK(llm_sampler_probs(&s, lg, ids, pr, 3, &n) == LLM_ERANGE); /* 4 candidates, room for 3 */
    CHECK(llm_sampler_chain_init(&s, mem, need, 4, NULL) == LLM_EINVAL);
    CHECK(llm_sampler_chain_init(&s, mem, need, 0, &prm) == LLM_EINVAL);
    /* out-of-range fields, NaN, a bias id outside the vocabulary */
    {
        int k;
        for (k = 0; k < 12; k++) {
            llm_sampler_params q;
            memset(&q, 0, sizeof q);
            switch (k) {
            case 0: q.temperature = -1; break;
            case 1: q.temperature = (float)nan(""); break;
            case 2: q.top_p = 1.5f; break;
            case 3: q.top_p = -0.1f; break;
            case 4: q.min_p = 2; break;
            case 5: q.top_k = -1; break;
            case 6: q.repeat_penalty = -1; break;
            case 7: q.penalty_last_n = -5; break;
            case 8: q.logit_bias = &b, q.n_logit_bias = 1; break; /* id 4 of vocab 4 */
            case 9: q.n_logit_bias = 1; break;                    /* NULL array */
            case 10: q.frequency_penalty = (float)nan(""); break;
            default: q.temperature = INFINITY; break;
            }
            CHECK_MSG(llm_sampler_chain_bytes(4, &q) == 0 && llm_sampler_chain_create(&s, 4, &q) == LLM_EINVAL,
                      "bad params case %d accepted", k);
        }
    }
    /* the (T, top-p) sampler has no chain: probs refuse, accept is a no-op */
    CHECK_OK(llm_sampler_create(&s, 4, 1.0f, 0.9f, 1));
    CHECK(llm_sampler_probs(&s, lg, ids, pr, 4, &n) == LLM_EINVAL);
    CHECK_OK(llm_sampler_accept(&s, 2));
    llm_sampler_free(&s);
    /* NaN logits count as -inf in the chain */
    memset(&prm, 0, sizeof prm);
    prm.greedy = 1;
    CHECK_OK(llm_sampler_chain_create(&s, 4, &prm));
    lg[0] = (float)nan(""), lg[1] = 1, lg[2] = 3, lg[3] = 2;
    CHECK(llm_sample(&s, lg) == 2);
    llm_sampler_free(&s);
    CHECK(s.scratch == NULL && llm_sample(&s, lg) == -1);
}

int main(void) {
    test_stages();
    test_penalties();
    test_composition();
    test_runc();
    test_seeded();
    test_args();
    return test_done();
}
