/* LLM_MMAP, in make test's mmap build only (build/test/mmap: the implementation compiled
   with -DLLM_MMAP; the file tests run there too): llm_gguf_load_file and llm_hf_load_dir map
   the file instead of reading it. Checked here: the weights point into a mapping of that
   file (Linux's /proc/self/maps says which), llm_model_free unmaps it, the logits equal
   bit for bit those of the same bytes read into memory, and a path that cannot be mapped
   is a status with a reason. */
#define _POSIX_C_SOURCE 200809L /* mkdir, getpid */
#include "llm.h"
#include "test.h"
#include "gguf_writer.h"
#include "st_writer.h"
#include <sys/stat.h>
#include <unistd.h>

enum { D = 16, FF = 40, L = 2, NH = 4, NKV = 2, HD = D / NH, V = 48, CTX = 16, NTOK = 5 };
static const int toks[NTOK] = {1, 7, 30, 2, 45};

/* 1 if p lies in a mapping of a file whose path ends in `name`, 0 if not, -1 when this
   system has no /proc/self/maps */
static int mapped_from(const void *p, const char *name) {
    char line[1024];
    unsigned long lo, hi, a = (unsigned long)(uintptr_t)p;
    size_t n = strlen(name);
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    while (!found && fgets(line, sizeof line, f)) {
        size_t k = strcspn(line, "\n");
        line[k] = '\0';
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi && k >= n && !strcmp(line + k - n, name)) found = 1;
    }
    fclose(f);
    return found;
}

static int put_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    if (n && fwrite(p, 1, n, f) != n) n = 0;
    return fclose(f) != 0 || !n;
}
static unsigned char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long m = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (m = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = (unsigned char *)malloc((size_t)m)))
        if (fread(p, 1, (size_t)m, f) != (size_t)m) free(p), p = NULL;
    *n = p ? (size_t)m : 0;
    fclose(f);
    return p;
}

static int logits(const llm_model *m, float *out) { /* all NTOK rows */
    llm_state s;
    int ok = llm_state_create(&s, &m->config, CTX, NTOK, LLM_F32) == LLM_OK;
    ok = ok && llm_forward(&s, &m->weights, toks, NTOK, 0, out, 1, NULL) == LLM_OK;
    if (ok) llm_state_free(&s);
    return ok;
}

/* the where-mapped checks: the weights in the file's mapping while loaded, gone after */
static void check_mapped(llm_model *m, const char *name, const char *what) {
    const void *p = m->weights.tok_embed.data;
    int r = mapped_from(p, name);
    if (r < 0) {
        TEST_SKIP(2, "%s: no /proc/self/maps here: where the weights are is not checked", what);
        llm_model_free(m);
        return;
    }
    CHECK_MSG(r == 1, "%s: the token embedding is not in a mapping of %s", what, name);
    llm_model_free(m);
    CHECK_MSG(mapped_from(p, name) == 0, "%s: %s still mapped after llm_model_free", what, name);
}

static void test_gguf(void) {
    static float emb[V * D], an[L * D], fn[L * D], fin[D], wq[L * D * D], wk[L * NKV * HD * D], wv[L * NKV * HD * D];
    static float wo[L * D * D], w1[L * FF * D], w2[L * D * FF], w3[L * FF * D], a[NTOK * V], b[NTOK * V];
    const char *path = "build/test_mmap.gguf", *why;
    llm_layer_weights layers[L];
    llm_model mf, mb;
    llm_gguf g;
    gw_llama desc;
    gw_names names;
    gw w;
    unsigned char *buf;
    size_t n = 0;
    test_fill(emb, V * D, 1), test_fill(an, L * D, 0.2f), test_fill(fn, L * D, 0.2f), test_fill(fin, D, 0.2f);
    test_fill(wq, L * D * D, 0.3f), test_fill(wk, L * NKV * HD * D, 0.3f), test_fill(wv, L * NKV * HD * D, 0.3f);
    test_fill(wo, L * D * D, 0.3f), test_fill(w1, L * FF * D, 0.2f), test_fill(w2, L * D * FF, 0.1f);
    test_fill(w3, L * FF * D, 0.2f);
    memset(&desc, 0, sizeof desc);
    desc.d = D, desc.ff = FF, desc.n_layers = L, desc.n_heads = NH, desc.n_kv_heads = NKV, desc.vocab = V, desc.ctx = CTX;
    desc.type = GW_F16; /* weights used in place from the file, norms fp32 */
    desc.emb = emb, desc.attn_norm = an, desc.ffn_norm = fn, desc.out_norm = fin;
    desc.wq = wq, desc.wk = wk, desc.wv = wv, desc.wo = wo, desc.w1 = w1, desc.w2 = w2, desc.w3 = w3;
    gw_init(&w);
    gw_llama_model(&w, &desc, &names);
    gw_finish(&w);
    mkdir("build", 0777);
    CHECK(put_file(path, w.p, w.n) == 0);
    gw_free(&w);
    /* mapped, against the file's bytes read here and loaded from the buffer */
    CHECK_OK(llm_gguf_load_file(&mf, path, &why));
    buf = read_all(path, &n);
    CHECK(buf != NULL);
    CHECK_OK(llm_gguf_create(&g, buf, n, &why));
    CHECK_OK(llm_gguf_load(&mb, &g, layers, L, &why));
    CHECK(logits(&mf, a) && logits(&mb, b));
    CHECK_MSG(memcmp(a, b, sizeof a) == 0, "gguf: the mapped file's logits differ from the read bytes'");
    check_mapped(&mf, "/build/test_mmap.gguf", "gguf");
    llm_gguf_free(&g);
    free(buf);
    /* refused, with the reason: no such file, a directory, an empty file (the parser's) */
    CHECK_MSG(llm_gguf_load_file(&mf, "build/no/such.gguf", &why) == LLM_EIO && strstr(why, "open"), "%s", why);
    CHECK_MSG(llm_gguf_load_file(&mf, "build", &why) == LLM_EIO && strstr(why, "directory"), "%s", why);
    {
        FILE *f = fopen(path, "wb"); /* empty */
        CHECK(f && fclose(f) == 0);
    }
    CHECK_MSG(llm_gguf_load_file(&mf, path, &why) == LLM_EFORMAT && *why, "empty: %s", why);
    remove(path);
}

static void test_hf(void) {
    llm_config c = llm_config_default();
    stw_model sm;
    stw_tensor t[STW_MAX_TENSORS];
    char dir[256], path[320], cfg[4096];
    const char *why;
    unsigned char *file;
    size_t len;
    int n;
    llm_model m;
    c.d_model = 32, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 48, c.vocab = 64, c.max_seq_len = 64;
    c.norm_eps = 1e-5f, c.rope_theta = 10000.0f, c.rope_layout = LLM_ROPE_HALVES;
    snprintf(dir, sizeof dir, "build/test_mmap.%ld", (long)getpid());
    mkdir("build", 0777);
    if (mkdir(dir, 0777) != 0) {
        CHECK_MSG(0, "cannot make %s", dir);
        return;
    }
    stw_model_random(&sm, &c, 7u);
    n = stw_model_tensors(&sm, "F32", "F32", t);
    len = stw_safetensors(NULL, 0, t, n, NULL, 0);
    file = (unsigned char *)malloc(len);
    stw_safetensors(file, len, t, n, NULL, 0);
    stw_config_json(cfg, sizeof cfg, &c, "llama", NULL);
    snprintf(path, sizeof path, "%s/config.json", dir);
    CHECK(put_file(path, cfg, strlen(cfg)) == 0);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    CHECK(put_file(path, file, len) == 0);
    /* test_hf (in this build too) compares these logits with the in-memory loader's */
    CHECK_OK(llm_hf_load_dir(&m, dir, &why));
    check_mapped(&m, "/model.safetensors", "safetensors");
    remove(path);
    snprintf(path, sizeof path, "%s/config.json", dir);
    remove(path);
    rmdir(dir);
    free(file);
    stw_model_free(&sm);
}

int main(void) {
    test_gguf();
    test_hf();
    return test_done();
}
