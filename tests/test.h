/* The tests' whole assertion helper. Each test file includes this after llm.h, calls
   CHECK* as often as it likes, and ends main with `return test_done();`, which prints
   "<file>: N passed, N failed, N skipped" (tests/run.sh adds those lines up).
   A check that cannot run here is never silent: TEST_SKIP(n, why...) prints
   "SKIP n: why" and counts n skipped checks; TEST_SKIP_SHARED does the same for checks
   that need ../shared data, and fails instead when LLM_REQUIRE_SHARED=1 (.ci/run sets it). */
#ifndef LLM_TEST_H
#define LLM_TEST_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TEST_UNUSED __attribute__((unused))
#else
#define TEST_UNUSED
#endif

static int test__passed, test__failed, test__skipped;

#define CHECK(cond) test__check(!!(cond), #cond, __FILE__, __LINE__)
#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        if (!test__check(!!(cond), #cond, __FILE__, __LINE__)) {                     \
            fprintf(stderr, "    ");                                                 \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
        }                                                                            \
    } while (0)
/* |a - b| <= tol, printing both numbers when it fails */
#define CHECK_NEAR(a, b, tol) test__near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)
/* a == b for 64-bit integers, printing both */
#define CHECK_EQ_U64(a, b) test__eq_u64((unsigned long long)(a), (unsigned long long)(b), #a, #b, __FILE__, __LINE__)
/* expr == LLM_OK, evaluated once, printing the status it returned */
#define CHECK_OK(expr) test__ok((expr), #expr, __FILE__, __LINE__)
#define TEST_SKIP(n, ...) test__skip(0, (n), __VA_ARGS__)
#define TEST_SKIP_SHARED(n, ...) test__skip(1, (n), __VA_ARGS__)

TEST_UNUSED static int test__check(int ok, const char *what, const char *file, int line) {
    if (ok) {
        test__passed++;
    } else {
        test__failed++;
        fprintf(stderr, "FAIL %s:%d: %s\n", file, line, what);
    }
    return ok;
}
TEST_UNUSED static int test__ok(llm_status st, const char *what, const char *file, int line) {
    int ok = test__check(st == LLM_OK, what, file, line);
    if (!ok) fprintf(stderr, "    status: %s\n", llm_status_str(st));
    return ok;
}
TEST_UNUSED static void test__skip(int shared, int n, const char *fmt, ...) {
    const char *req = getenv("LLM_REQUIRE_SHARED");
    int fail = shared && req && *req && strcmp(req, "0") != 0;
    va_list ap;
    if (fail) printf("FAIL (LLM_REQUIRE_SHARED=%s, so this skip fails) SKIP %d: ", req, n);
    else printf("SKIP %d: ", n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (fail) test__failed++;
    else test__skipped += n;
}
TEST_UNUSED static int test__near(double a, double b, double tol, const char *sa, const char *sb, const char *file, int line) {
    int ok = fabs(a - b) <= tol; /* false for NaN */
    test__check(ok, sa, file, line);
    if (!ok) fprintf(stderr, "    %s = %.9g, %s = %.9g, |diff| = %.3g > %.3g\n", sa, a, sb, b, fabs(a - b), tol);
    return ok;
}
TEST_UNUSED static int test__eq_u64(unsigned long long a, unsigned long long b, const char *sa, const char *sb,
                        const char *file, int line) {
    int ok = a == b;
    test__check(ok, sa, file, line);
    if (!ok) fprintf(stderr, "    %s = %llu, %s = %llu\n", sa, a, sb, b);
    return ok;
}
#define test_done() test__done(__FILE__)
static int test__done(const char *file) {
    const char *base = strrchr(file, '/');
    printf("%s: %d passed, %d failed, %d skipped\n", base ? base + 1 : file, test__passed, test__failed, test__skipped);
    return test__failed != 0;
}

/* A small deterministic generator so every run tests the same numbers. */
static unsigned long long test__rng = 0x9E3779B97F4A7C15ull;
TEST_UNUSED static float test_randf(void) { /* uniform in [-1, 1) */
    test__rng ^= test__rng >> 12;
    test__rng ^= test__rng << 25;
    test__rng ^= test__rng >> 27;
    return (float)((double)((test__rng * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0 - 1.0);
}
TEST_UNUSED static void test_fill(float *x, size_t n, float scale) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = scale * test_randf();
}
/* Where the shared test models live (../shared/models unless LLM_MODELS_DIR says). */
TEST_UNUSED static const char *test_models_dir(void) {
    const char *d = getenv("LLM_MODELS_DIR");
    return d ? d : "../shared/models";
}

/* A growable byte buffer for tests that write files in memory (checkpoints, tokenizers),
   little-endian whatever the host. marks[] records offsets (where each section starts);
   items is a count the writer keeps (the tokenizer test: pieces written = vocab). */
typedef struct test_buf {
    unsigned char *p;
    size_t n, cap;
    size_t marks[64];
    int n_marks, items;
} test_buf;
TEST_UNUSED static void test_buf_put(test_buf *b, const void *src, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = (unsigned char *)realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
TEST_UNUSED static void test_buf_i32(test_buf *b, long v) { /* the low 32 bits, two's complement */
    unsigned long u = (unsigned long)v;
    unsigned char c[4];
    c[0] = (unsigned char)u, c[1] = (unsigned char)(u >> 8), c[2] = (unsigned char)(u >> 16), c[3] = (unsigned char)(u >> 24);
    test_buf_put(b, c, 4);
}
TEST_UNUSED static void test_buf_f32(test_buf *b, const float *x, size_t n) {
    size_t i;
    unsigned int u;
    for (i = 0; i < n; i++) {
        memcpy(&u, &x[i], 4);
        test_buf_i32(b, (long)u);
    }
}
/* A pool of n threads for the checks that compare thread counts. Without LLM_PTHREADS
   there are none: those n_checks checks are skipped, saying so (NULL). In a pthreads
   build a pool that cannot be made is a failure, never a quiet single-threaded pass. */
TEST_UNUSED static llm_threads *test_pool(int n, int n_checks, const char *what) {
    llm_threads *th = NULL;
#ifdef LLM_PTHREADS
    llm_status st = llm_threads_create(&th, n);
    if (!test__check(st == LLM_OK, "llm_threads_create", __FILE__, __LINE__)) {
        fprintf(stderr, "    %s: %d threads: %s\n", what, n, llm_status_str(st));
        return NULL;
    }
    (void)n_checks;
#else
    TEST_SKIP(n_checks, "%s: built without LLM_PTHREADS, no %d-thread pool", what, n);
#endif
    return th;
}
TEST_UNUSED static void test_buf_mark(test_buf *b) {
    if (b->n_marks < 64) b->marks[b->n_marks++] = b->n;
}
#endif
