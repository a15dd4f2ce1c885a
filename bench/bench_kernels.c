/* bench_kernels.c: llm_linear (fp32) throughput beside this machine's roofs, for 1 and 2
   threads, and OpenBLAS on the same shapes when it is installed.

   Shapes are n_tokens x d_out x d_in: y[n][d_out] = x[n][d_in] W[d_out][d_in]^T.
   Compute-bound rows (squares, prefill) are GFLOP/s (2 n d_out d_in flops per call) and
   % of the peak FMA roof; decode rows (n = 1) are GB/s of weight bytes (4 d_out d_in)
   and % of the read-bandwidth roof. Every figure is the best of several timed calls.

   OpenBLAS: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE in the environment pin OpenBLAS to an
   older kernel. So the peer is measured in child processes (this program re-executed
   with --peer) with both variables set as peer_envs says, keeping the fastest, and in
   this process with the environment as it is. The AVX2 build
   (bench_kernels_avx2, -mavx2 -mfma -mno-avx512f) is compared with OpenBLAS's Haswell
   kernel instead: its child runs with OPENBLAS_CORETYPE=Haswell. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "roofs.h"
#ifdef BENCH_OPENBLAS
#include <cblas.h>
#endif

typedef struct {
    const char *label; /* "matmul" rows time llm_matmul C[n][dout] = A[n][din] B[din][dout] */
    int n, dout, din;
} shape;

static const shape shapes[] = {
    {"square", 64, 64, 64},          {"square", 128, 128, 128},      {"square", 256, 256, 256},
    {"square", 512, 512, 512},       {"square", 1024, 1024, 1024},   {"square", 2048, 2048, 2048},
    {"prefill", 128, 4096, 4096},    {"prefill", 128, 11008, 4096},  {"prefill", 128, 4096, 11008},
    {"decode", 1, 4096, 4096},       {"decode", 1, 11008, 4096},     {"matmul", 1024, 1024, 1024},
    {"matmul", 128, 4096, 4096},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static float *make(size_t n) {
    float *p = NULL;
    size_t i;
    if (posix_memalign((void **)&p, 64, n * sizeof(float) + 64) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (i = 0; i < n; i++) p[i] = (float)((i * 2654435761u) >> 20 & 1023) / 1024.0f - 0.5f;
    return p;
}

enum { OURS, BLAS };

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best seconds per call of one implementation on one shape (wall clock), and in *cpu
   the best on the calling thread's CPU clock, which does not count the time another
   process had the core: with one thread, the speed of the code itself on a busy machine. */
static double time_shape(const shape *s, int impl, llm_threads *th, double *cpu) {
    /* Weights of 16 MiB or more (the LLM shapes) come in enough copies to fill 1 GiB, used
       in turn, so that every call reads its weights from DRAM as a real layer does, not
       from a large last-level cache that still holds them from the previous call. */
    size_t wn = (size_t)s->dout * s->din, copies = wn * 4 >= ((size_t)16 << 20) ? (((size_t)1 << 30) / 4 + wn - 1) / wn : 1;
    float *x = make((size_t)s->n * s->din), *w0 = make(wn * copies), *y = make((size_t)s->n * s->dout), *w;
    double best = 1e30, best_cpu = 1e30, spent = 0;
    int reps = 0;
    /* at least 5 calls and about 0.5 s, after one warm-up call: the best call is the one
       least disturbed by whatever else runs on the machine */
    for (reps = -1; reps < 5 || (spent < 0.5 && reps < 2000); reps++) {
        double t0, c0, t, c;
        w = w0 + wn * (size_t)((reps + 1) % (int)copies);
        t0 = roofs_now();
        c0 = thread_cpu();
        if (impl == OURS && s->label[0] == 'm') {
            if (llm_matmul(y, x, w, s->n, s->din, s->dout, th) != LLM_OK) exit(1);
        } else if (impl == OURS) {
            if (llm_linear(y, x, w, NULL, s->n, s->din, s->dout, th) != LLM_OK) exit(1);
        }
#ifdef BENCH_OPENBLAS
        else if (s->label[0] == 'm')
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s->n, s->dout, s->din, 1.0f, x, s->din, w, s->dout,
                        0.0f, y, s->dout);
        else if (s->n == 1)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, s->dout, s->din, 1.0f, w, s->din, x, 1, 0.0f, y, 1);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s->n, s->dout, s->din, 1.0f, x, s->din, w, s->din,
                        0.0f, y, s->dout);
#endif
        t = roofs_now() - t0;
        c = thread_cpu() - c0;
        if (reps >= 0) {
            spent += t;
            if (t < best) best = t;
            if (c < best_cpu) best_cpu = c;
        }
    }
    free(x);
    free(w0);
    free(y);
    if (cpu) *cpu = best_cpu;
    return best;
}

/* the figure a row reports: GB/s of weights for decode, GFLOP/s otherwise */
static double figure(const shape *s, double sec) {
    if (s->n == 1) return 4.0 * s->dout * s->din / sec * 1e-9;
    return 2.0 * s->n * s->dout * s->din / sec * 1e-9;
}

/* The roofs, best of a few measurements: a roof that comes out low (another process got
   the core for a moment) would flatter every percentage measured against it. */
static double best_fma(int t) {
    double best = 0, v;
    int i;
    for (i = 0; i < 4; i++)
        if ((v = roofs_fma_gflops(t)) > best) best = v;
    return best;
}
static double best_read(int t) {
    double best = 0, v;
    int i;
    for (i = 0; i < 2; i++)
        if ((v = roofs_read_gbs(t)) > best) best = v;
    return best;
}

/* the load average, so a reader can tell a quiet run from a busy one */
static void print_load(const char *when) {
    FILE *f = fopen("/proc/loadavg", "r");
    char line[128];
    if (f && fgets(line, sizeof line, f)) printf("load average %s: %s", when, line);
    if (f) fclose(f);
}

#ifdef BENCH_OPENBLAS
/* OpenBLAS's own choice can be its generic kernel: on a CPU model it does not know (this
   machine's family 6 model 207 reads as "Prescott") it falls back to SSE3. So with
   AVX-512 the peer is OpenBLAS's choice and its two AVX-512 kernels, each in a child,
   and "best" keeps the fastest per shape. */
#ifdef __AVX512F__
static const char *const peer_envs[] = {"env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE",
                                        "env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX",
                                        "env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=Cooperlake"};
#define PEER_SAYS "the fastest per shape of OpenBLAS's own choice, SkylakeX and Cooperlake (OPENBLAS_L2_SIZE unset)"
#else
static const char *const peer_envs[] = {"env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=Haswell"};
#define PEER_SAYS "OPENBLAS_CORETYPE=Haswell, OPENBLAS_L2_SIZE unset (the AVX2 kernel)"
#endif
/* --peer: print "peer <threads> <shape> <figure>" lines and the core name, then exit */
static int run_peer(void) {
    int t, i;
    printf("core %s\n", openblas_get_corename());
    for (t = 1; t <= 2; t++) {
        openblas_set_num_threads(t);
        for (i = 0; i < NSHAPES; i++) {
            double c, w = time_shape(&shapes[i], BLAS, NULL, &c);
            printf("peer %d %d %.6g %.6g\n", t, i, figure(&shapes[i], w), figure(&shapes[i], c));
        }
    }
    return 0;
}
#endif

int main(int argc, char **argv) {
    double peer[3][NSHAPES], peer_cpu[3][NSHAPES], fma[3], bw[3];
    memset(peer, 0, sizeof peer);
    memset(peer_cpu, 0, sizeof peer_cpu);
    char peer_core[128] = "?";
    int t, i, have_peer = 0;
#ifdef BENCH_OPENBLAS
    if (argc > 1 && strcmp(argv[1], "--peer") == 0) return run_peer();
    {   /* OpenBLAS's best kernels, each in a child with the pinning variables set as said */
        char cmd[4096], line[256];
        FILE *f;
        size_t e;
        peer_core[0] = 0;
        for (e = 0; e < sizeof peer_envs / sizeof peer_envs[0]; e++) {
            snprintf(cmd, sizeof cmd, "%s '%s' --peer", peer_envs[e], argv[0]);
            f = popen(cmd, "r");
            while (f && fgets(line, sizeof line, f)) {
                int pt, pi;
                double v, vc;
                char core[32];
                if (sscanf(line, "peer %d %d %lf %lf", &pt, &pi, &v, &vc) == 4 && pt >= 1 && pt <= 2 && pi >= 0 &&
                    pi < NSHAPES) {
                    if (v > peer[pt][pi]) peer[pt][pi] = v, peer_cpu[pt][pi] = vc;
                    have_peer = 1;
                } else if (strncmp(line, "core ", 5) == 0 && sscanf(line + 5, "%31s", core) == 1 &&
                           strlen(peer_core) + strlen(core) + 2 < sizeof peer_core) {
                    if (peer_core[0]) strcat(peer_core, "/");
                    strcat(peer_core, core);
                }
            }
            if (f) pclose(f);
        }
    }
#else
    (void)argc;
    (void)argv;
    (void)peer_core;
    (void)have_peer;
#endif
    printf("bench_kernels: llm_linear / llm_matmul fp32, %s build; shapes n_tokens x d_out x d_in\n", roofs_isa());
    printf("each figure: the best of >= 5 calls (>= 0.5 s); roofs: the best of several measurements before\n"
           "and after the rows they go with (other work on the machine only lowers figures). With 1 thread,\n"
           "\"cpu\" columns time the same calls on the thread's CPU clock (blind to time-sharing the core).\n");
    print_load("at start");
#ifdef BENCH_OPENBLAS
    printf("OpenBLAS \"best\": %s, cores %s\n", PEER_SAYS, have_peer ? peer_core : "(child failed)");
    printf("OpenBLAS \"env\":  the environment as it is (OPENBLAS_CORETYPE=%s), core %s\n",
           getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "unset", openblas_get_corename());
#else
    printf("OpenBLAS: not built in (no cblas.h)\n");
#endif
    for (t = 1; t <= 2; t++) {
        llm_threads *th = NULL;
        double ours[NSHAPES], ours_cpu[NSHAPES], env[NSHAPES], f, b, c;
        if (t > 1 && llm_threads_create(&th, t) != LLM_OK) return 1;
        fma[t] = best_fma(t);
        bw[t] = best_read(t);
#ifdef BENCH_OPENBLAS
        openblas_set_num_threads(t);
#endif
        for (i = 0; i < NSHAPES; i++) {
            ours[i] = figure(&shapes[i], time_shape(&shapes[i], OURS, th, &c));
            ours_cpu[i] = figure(&shapes[i], c);
            env[i] = 0;
#ifdef BENCH_OPENBLAS
            env[i] = figure(&shapes[i], time_shape(&shapes[i], BLAS, NULL, NULL));
#endif
        }
        (void)env;
        f = best_fma(t);
        b = best_read(t);
        if (f > fma[t]) fma[t] = f;
        if (b > bw[t]) bw[t] = b;
        printf("\n%d thread%s  roofs: peak FMA %.1f GFLOP/s (%s), read %.1f GB/s (1 GiB buffer)\n", t,
               t > 1 ? "s" : "", fma[t], roofs_isa(), bw[t]);
        printf("%-8s %-16s %9s %7s", "", "shape", "llm.h", "% roof");
#ifdef BENCH_OPENBLAS
        printf(" %10s %6s %10s %6s", "BLAS best", "ratio", "BLAS env", "ratio");
        if (t == 1) printf(" | %9s %9s %6s", "cpu llm.h", "cpu BLAS", "ratio");
#else
        if (t == 1) printf(" | %9s", "cpu llm.h");
#endif
        printf("\n");
        for (i = 0; i < NSHAPES; i++) {
            const shape *s = &shapes[i];
            char dims[32];
            snprintf(dims, sizeof dims, "%dx%dx%d", s->n, s->dout, s->din);
            printf("%-8s %-16s %9.1f %6.1f%%", s->label, dims, ours[i], 100.0 * ours[i] / (s->n == 1 ? bw[t] : fma[t]));
#ifdef BENCH_OPENBLAS
            if (have_peer) printf(" %10.1f %6.2f", peer[t][i], ours[i] / peer[t][i]);
            else printf(" %10s %6s", "-", "-");
            printf(" %10.1f %6.2f", env[i], ours[i] / env[i]);
            if (t == 1 && have_peer) printf(" | %9.1f %9.1f %6.2f", ours_cpu[i], peer_cpu[t][i], ours_cpu[i] / peer_cpu[t][i]);
#else
            if (t == 1) printf(" | %9.1f", ours_cpu[i]);
#endif
            printf("  %s\n", s->n == 1 ? "GB/s of weights" : "GFLOP/s");
        }
        llm_threads_free(th);
    }
    /* a few tokens: one call must not lose to one GEMV call per token */
    printf("\nsmall batches, 1 thread, d = 4096 x 4096: one call vs n GEMV calls (ms per call)\n");
    for (i = 2; i <= 16; i += i < 8 ? 1 : 4) {
        shape s = {"few", 0, 4096, 4096}, s1 = {"few", 1, 4096, 4096};
        double a, b;
        s.n = i;
        a = time_shape(&s, OURS, NULL, NULL);
        b = i * time_shape(&s1, OURS, NULL, NULL);
        printf("  n=%-2d one call %.2f ms, %d x GEMV %.2f ms, speed-up %.2fx\n", i, 1e3 * a, i, 1e3 * b, b / a);
    }
    print_load("at end");
    return 0;
}
