/* The tests' whole assertion helper. Each test file includes this after llm.h, calls
   CHECK* as often as it likes, and ends main with `return test_done();`, which prints
   "<file>: N passed, N failed" (tests/run.sh adds those lines up). */
#ifndef LLM_TEST_H
#define LLM_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TEST_UNUSED __attribute__((unused))
#else
#define TEST_UNUSED
#endif

static int test__passed, test__failed;

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
#define CHECK_OK(expr) CHECK_MSG((expr) == LLM_OK, "status: %s", llm_status_str(expr))

TEST_UNUSED static int test__check(int ok, const char *what, const char *file, int line) {
    if (ok) {
        test__passed++;
    } else {
        test__failed++;
        fprintf(stderr, "FAIL %s:%d: %s\n", file, line, what);
    }
    return ok;
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
    printf("%s: %d passed, %d failed\n", base ? base + 1 : file, test__passed, test__failed);
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
TEST_UNUSED static void test_buf_mark(test_buf *b) {
    if (b->n_marks < 64) b->marks[b->n_marks++] = b->n;
}
#endif
