/* >>files, GGUF: files the test writes itself (tests/gguf_writer.h) parse back exactly,
   every value type through the typed getters, both versions, any alignment; every
   hostile or truncated variant is refused with a status and a reason, never a crash or a
   read outside the buffer (each file is parsed from an exactly sized copy, so ASan sees
   any overrun in `make sanitize`); a llama model written in F32, F16 and BF16 gives the
   logits of the same weights put into llm_weights directly; and the real files in
   ../shared/models: llama.cpp's stories260K.gguf reproduces run.c's tokens and the
   llama2.c file's logits, q256-F32 is at least as close to the float64 truth as llama.cpp
   itself, and the quantized q256 files load. qwen2, qwen3, gemma, gemma2 and phi3 files
   (their names, keys, biases, norms, fused tensors) give the double reference's logits
   (tests/ref_model.h), and each is refused, naming what, when a tensor or key is wrong. */
#include "llm.h"
#include "test.h"
#include "gguf_writer.h"
#include "ref_model.h"
#include "filecheck.h"
#include <stdint.h>

/* ---- opening a file ------------------------------------------------------------------- */

/* A file parsed from its own malloc'd copy of exactly n bytes, both ways: llm_gguf_create,
   and llm_gguf_bytes + llm_gguf_init into caller memory, which must agree. */
typedef struct opened {
    unsigned char *buf;
    size_t n;
    llm_gguf g;
    llm_status st;
    const char *why;
} opened;

static void open_bytes(opened *o, const void *p, size_t n) {
    llm_gguf g2;
    const char *why2 = NULL;
    size_t nb;
    void *mem;
    llm_status st2;
    memset(o, 0, sizeof *o);
    o->buf = (unsigned char *)malloc(n ? n : 1);
    o->n = n;
    if (n) memcpy(o->buf, p, n);
    o->st = llm_gguf_create(&o->g, o->buf, n, &o->why);
    nb = llm_gguf_bytes(o->buf, n);
    mem = malloc(nb ? nb : 8);
    st2 = llm_gguf_init(&g2, mem, nb, o->buf, n, &why2);
    /* zero tables' bytes may be refused as too little memory only where create refused */
    CHECK_MSG(st2 == o->st || (nb == 0 && o->st != LLM_OK && st2 != LLM_OK),
              "llm_gguf_create gave %s, llm_gguf_bytes %lu + llm_gguf_init %s (%s / %s)", llm_status_str(o->st),
              (unsigned long)nb, llm_status_str(st2), o->why ? o->why : "(null)", why2 ? why2 : "(null)");
    /* a refused file leaves no table behind, either way (their memory is freed next) */
    if (st2 != LLM_OK)
        CHECK(!g2.kv && !g2.tensors && !g2.kv_order && !g2.tensor_order && g2.n_kv == 0 && g2.n_tensors == 0);
    if (o->st != LLM_OK) CHECK(!o->g.kv && !o->g.tensors && !o->g.owned && o->g.n_kv == 0 && o->g.n_tensors == 0);
    free(mem);
}
static void open_gw(opened *o, gw *w) {
    gw_finish(w);
    open_bytes(o, w->p, w->n);
}
static void close_opened(opened *o) {
    if (o->st == LLM_OK) llm_gguf_free(&o->g);
    free(o->buf);
    memset(o, 0, sizeof *o);
}

/* The file must be refused with `want` and a reason. */
static void expect_refused(const void *p, size_t n, llm_status want, const char *what) {
    opened o;
    open_bytes(&o, p, n);
    CHECK_MSG(o.st == want && o.why && *o.why, "%s: %s (want %s), why \"%s\"", what, llm_status_str(o.st),
              llm_status_str(want), o.why ? o.why : "(null)");
    close_opened(&o);
}
static void expect_refused_gw(gw *w, llm_status want, const char *what) {
    gw_finish(w);
    expect_refused(w->p, w->n, want, what);
    gw_free(w);
}

static int str_is(llm_gguf_str s, const char *c) { return s.n == strlen(c) && memcmp(s.s, c, s.n) == 0; }

/* ---- every value type, read back --------------------------------------------------- */

static const int32_t arr_i32[5] = {7, -1, 0, 2147483647, -2147483647 - 1};
static const float arr_f32[4] = {0.1f, -2.5f, 1e-30f, 3.0e38f};
static const char *const arr_str[4] = {"<unk>", "", "\xe2\x96\x81the", "a longer piece"};

/* The metadata of every type, then two tensors (an F32 vector, an F16 matrix). */
static void write_all_types(gw *w, uint32_t version) {
    static const float vec[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    uint64_t ne[2] = {8, 1};
    gw_init(w);
    w->version = version;
    gw_kv_u8(w, "t.u8", 200);
    gw_kv_i8(w, "t.i8", -100);
    gw_kv_u16(w, "t.u16", 60000);
    gw_kv_i16(w, "t.i16", -30000);
    gw_kv_u32(w, "t.u32", 4000000000u);
    gw_kv_i32(w, "t.i32", -2000000000);
    gw_kv_f32(w, "t.f32", 0.1f);
    gw_kv_bool(w, "t.true", 1);
    gw_kv_bool(w, "t.false", 0);
    gw_kv_str(w, "t.str", "hello, gguf");
    gw_kv_str(w, "t.empty", "");
    gw_kv_u64(w, "t.u64", 12345678901234ull);
    gw_kv_u64(w, "t.u64.big", 0x8000000000000005ull); /* above INT64_MAX */
    gw_kv_i64(w, "t.i64", -9223372036854775807ll - 1);
    gw_kv_f64(w, "t.f64", 0.1);
    gw_kv_arr_i32(w, "t.arr.i32", arr_i32, 5);
    gw_kv_arr_f32(w, "t.arr.f32", arr_f32, 4);
    gw_kv_arr_str(w, "t.arr.str", arr_str, 4);
    gw_key_arr(w, "t.arr.u8", GW_T_UINT8, 3), gw_m_u8(w, 0), gw_m_u8(w, 255), gw_m_u8(w, 17);
    gw_key_arr(w, "t.arr.i16", GW_T_INT16, 2), gw_m_u16(w, 0x8000), gw_m_u16(w, 5);
    gw_key_arr(w, "t.arr.u64", GW_T_UINT64, 2), gw_m_u64(w, 42), gw_m_u64(w, 0xffffffffffffffffull);
    gw_key_arr(w, "t.arr.i64", GW_T_INT64, 1), gw_m_u64(w, (uint64_t)-5);
    gw_key_arr(w, "t.arr.bool", GW_T_BOOL, 2), gw_m_u8(w, 1), gw_m_u8(w, 0);
    gw_key_arr(w, "t.arr.f64", GW_T_FLOAT64, 2), gw_m_f64(w, -0.1), gw_m_f64(w, 1e300);
    gw_key_arr(w, "t.arr.none", GW_T_INT32, 0);
    gw_kv_str(w, "t.\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "utf-8 key");
    gw_tensor_f(w, "vec", 1, ne, GW_F32, vec);
    ne[0] = 4, ne[1] = 3;
    gw_tensor_f(w, "mat", 2, ne, GW_F16, vec);
}
enum { ALL_TYPES_KV = 26 };

static void test_all_types(uint32_t version) {
    gw w;
    opened o;
    const llm_gguf *g;
    int64_t iv;
    double fv;
    llm_gguf_str sv;
    uint64_t cur, i;
    const llm_gguf_kv *kv;
    write_all_types(&w, version);
    open_gw(&o, &w);
    g = &o.g;
    CHECK_MSG(o.st == LLM_OK, "v%u: %s: %s", (unsigned)version, llm_status_str(o.st), o.why ? o.why : "");
    if (o.st != LLM_OK) {
        close_opened(&o), gw_free(&w);
        return;
    }
    CHECK(g->version == version && g->alignment == 32);
    CHECK(g->n_kv == ALL_TYPES_KV && g->n_tensors == 2);
    CHECK(g->buf == o.buf && g->len == o.n);
    CHECK_EQ_U64(g->data_offset, w.data_at);
    /* the entries in file order, keys and types as written */
    CHECK(str_is(g->kv[0].key, "t.u8") && g->kv[0].type == LLM_GGUF_UINT8);
    CHECK(str_is(g->kv[6].key, "t.f32") && g->kv[6].type == LLM_GGUF_FLOAT32);
    CHECK(str_is(g->kv[9].key, "t.str") && g->kv[9].type == LLM_GGUF_STRING);
    CHECK(str_is(g->kv[14].key, "t.f64") && g->kv[14].type == LLM_GGUF_FLOAT64);
    CHECK(g->kv[15].type == LLM_GGUF_ARRAY && g->kv[15].arr_type == LLM_GGUF_INT32 && g->kv[15].arr_n == 5);
    CHECK(llm_gguf_find_key(g, "t.u8") == 0 && llm_gguf_find_key(g, "t.arr.none") == ALL_TYPES_KV - 2);
    CHECK(llm_gguf_find_key(g, "t.\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87") == ALL_TYPES_KV - 1);
    CHECK(llm_gguf_find_key(g, "t.u") == -1 && llm_gguf_find_key(g, "t.u88") == -1 && llm_gguf_find_key(g, "") == -1);
    /* integers of every width, exactly */
    CHECK(llm_gguf_get_int(g, "t.u8", &iv) == LLM_OK && iv == 200);
    CHECK(llm_gguf_get_int(g, "t.i8", &iv) == LLM_OK && iv == -100);
    CHECK(llm_gguf_get_int(g, "t.u16", &iv) == LLM_OK && iv == 60000);
    CHECK(llm_gguf_get_int(g, "t.i16", &iv) == LLM_OK && iv == -30000);
    CHECK(llm_gguf_get_int(g, "t.u32", &iv) == LLM_OK && iv == 4000000000ll);
    CHECK(llm_gguf_get_int(g, "t.i32", &iv) == LLM_OK && iv == -2000000000);
    CHECK(llm_gguf_get_int(g, "t.true", &iv) == LLM_OK && iv == 1);
    CHECK(llm_gguf_get_int(g, "t.false", &iv) == LLM_OK && iv == 0);
    CHECK(llm_gguf_get_int(g, "t.u64", &iv) == LLM_OK && iv == 12345678901234ll);
    CHECK(llm_gguf_get_int(g, "t.i64", &iv) == LLM_OK && iv == -9223372036854775807ll - 1);
    CHECK(llm_gguf_get_int(g, "t.u64.big", &iv) == LLM_ERANGE);
    /* the wrong type, a missing key */
    CHECK(llm_gguf_get_int(g, "t.f32", &iv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_int(g, "t.str", &iv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_int(g, "t.arr.i32", &iv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_int(g, "t.nope", &iv) == LLM_ENOTFOUND);
    /* floats: float32 widened exactly, float64 as is ((float)0.1f: where FLT_EVAL_METHOD is 1,
       as gcc -std=c99 on s390x, the bare constant is the double 0.1; the cast rounds it) */
    CHECK(llm_gguf_get_float(g, "t.f32", &fv) == LLM_OK && fv == (double)(float)0.1f);
    CHECK(llm_gguf_get_float(g, "t.f64", &fv) == LLM_OK && fv == 0.1);
    CHECK(llm_gguf_get_float(g, "t.i32", &fv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_float(g, "t.str", &fv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_float(g, "t.nope", &fv) == LLM_ENOTFOUND);
    /* strings point into the buffer, not terminated */
    CHECK(llm_gguf_get_str(g, "t.str", &sv) == LLM_OK && str_is(sv, "hello, gguf"));
    CHECK(llm_gguf_get_str(g, "t.str", &sv) == LLM_OK && (const unsigned char *)sv.s > o.buf &&
          (const unsigned char *)sv.s + sv.n <= o.buf + o.n);
    CHECK(llm_gguf_get_str(g, "t.empty", &sv) == LLM_OK && sv.n == 0);
    CHECK(llm_gguf_get_str(g, "t.u32", &sv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_str(g, "t.arr.str", &sv) == LLM_EFORMAT);
    CHECK(llm_gguf_get_str(g, "t.nope", &sv) == LLM_ENOTFOUND);
    /* arrays of integers */
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.i32")];
    for (i = 0; i < 5; i++) CHECK(llm_gguf_arr_int(kv, i, &iv) == LLM_OK && iv == arr_i32[i]);
    CHECK(llm_gguf_arr_int(kv, 5, &iv) == LLM_ERANGE);
    CHECK(llm_gguf_arr_int(kv, (uint64_t)-1, &iv) == LLM_ERANGE);
    CHECK(llm_gguf_arr_float(kv, 0, &fv) == LLM_EFORMAT);
    cur = 0;
    CHECK(llm_gguf_arr_str(kv, &cur, &sv) == LLM_EFORMAT);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.u8")];
    CHECK(kv->arr_type == LLM_GGUF_UINT8 && kv->arr_n == 3);
    CHECK(llm_gguf_arr_int(kv, 1, &iv) == LLM_OK && iv == 255);
    CHECK(llm_gguf_arr_int(kv, 2, &iv) == LLM_OK && iv == 17);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.i16")];
    CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_OK && iv == -32768);
    CHECK(llm_gguf_arr_int(kv, 1, &iv) == LLM_OK && iv == 5);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.u64")];
    CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_OK && iv == 42);
    CHECK(llm_gguf_arr_int(kv, 1, &iv) == LLM_ERANGE);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.i64")];
    CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_OK && iv == -5);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.bool")];
    CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_OK && iv == 1);
    CHECK(llm_gguf_arr_int(kv, 1, &iv) == LLM_OK && iv == 0);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.none")];
    CHECK(kv->arr_n == 0 && llm_gguf_arr_int(kv, 0, &iv) == LLM_ERANGE);
    /* arrays of floats */
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.f32")];
    for (i = 0; i < 4; i++) CHECK(llm_gguf_arr_float(kv, i, &fv) == LLM_OK && fv == (double)arr_f32[i]);
    CHECK(llm_gguf_arr_float(kv, 4, &fv) == LLM_ERANGE);
    CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_EFORMAT);
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.f64")];
    CHECK(llm_gguf_arr_float(kv, 0, &fv) == LLM_OK && fv == -0.1);
    CHECK(llm_gguf_arr_float(kv, 1, &fv) == LLM_OK && fv == 1e300);
    /* arrays of strings, walked with the cursor */
    kv = &g->kv[llm_gguf_find_key(g, "t.arr.str")];
    CHECK(kv->arr_type == LLM_GGUF_STRING && kv->arr_n == 4);
    cur = 0;
    for (i = 0; i < 4; i++) CHECK_MSG(llm_gguf_arr_str(kv, &cur, &sv) == LLM_OK && str_is(sv, arr_str[i]), "piece %d", (int)i);
    CHECK(llm_gguf_arr_str(kv, &cur, &sv) != LLM_OK); /* past the end */
    cur = (uint64_t)-1;
    CHECK(llm_gguf_arr_str(kv, &cur, &sv) != LLM_OK); /* a cursor no call returned */
    cur = kv->bytes - 1;
    CHECK(llm_gguf_arr_str(kv, &cur, &sv) != LLM_OK);
    CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_EFORMAT && llm_gguf_arr_float(kv, 0, &fv) == LLM_EFORMAT);
    /* a scalar is not an array */
    kv = &g->kv[llm_gguf_find_key(g, "t.i32")];
    cur = 0;
    CHECK(llm_gguf_arr_int(kv, 0, &iv) != LLM_OK && llm_gguf_arr_float(kv, 0, &fv) != LLM_OK);
    CHECK(llm_gguf_arr_str(kv, &cur, &sv) != LLM_OK);
    /* the tensors: shape, type, offset, size and bytes in place */
    {
        const llm_gguf_tensor *v = llm_gguf_find_tensor(g, "vec"), *m = llm_gguf_find_tensor(g, "mat");
        CHECK(v == &g->tensors[0] && m == &g->tensors[1]);
        CHECK(llm_gguf_find_tensor(g, "ve") == NULL && llm_gguf_find_tensor(g, "matt") == NULL);
        if (v && m) {
            CHECK(str_is(v->name, "vec") && v->n_dims == 1 && v->ne[0] == 8 && v->ne[1] == 1 && v->ne[3] == 1);
            CHECK(v->type == GW_F32 && v->offset == 0 && v->bytes == 32);
            CHECK(v->data == o.buf + w.data_at && memcmp(v->data, w.p + w.data_at, 32) == 0);
            CHECK(m->n_dims == 2 && m->ne[0] == 4 && m->ne[1] == 3 && m->ne[2] == 1 && m->type == GW_F16);
            CHECK(m->offset == 32 && m->bytes == 24 && m->data == o.buf + w.data_at + 32);
            CHECK(llm_f16_to_f32(fc_le16((const unsigned char *)m->data + 6)) == 4.0f);
        }
    }
    /* the tables of one file are independent of another's */
    close_opened(&o);
    gw_free(&w);
}

/* The type names, and the value type enum against the spec's numbering. */
static void test_names(void) {
    static const char *const vt[] = {"uint8", "int8",  "uint16", "int16",  "uint32", "int32", "float32",
                                     "bool",  "string", "array", "uint64", "int64",  "float64"};
    int i, ok = 1;
    for (i = 0; i < 13; i++) {
        const char *s = llm_gguf_value_type_name((llm_gguf_type)i);
        if (!s || strcmp(s, vt[i]) != 0) ok = 0, fprintf(stderr, "    value type %d: %s\n", i, s ? s : "(null)");
    }
    CHECK(ok);
    CHECK((int)LLM_GGUF_STRING == GW_T_STRING && (int)LLM_GGUF_ARRAY == GW_T_ARRAY && (int)LLM_GGUF_FLOAT64 == GW_T_FLOAT64);
    CHECK(LLM_GGUF_TYPE_COUNT == 13);
    CHECK(llm_gguf_type_name(GW_F32) && strcmp(llm_gguf_type_name(GW_F32), "f32") == 0);
    CHECK(llm_gguf_type_name(GW_F16) && strcmp(llm_gguf_type_name(GW_F16), "f16") == 0);
    CHECK(llm_gguf_type_name(GW_BF16) && strcmp(llm_gguf_type_name(GW_BF16), "bf16") == 0);
    CHECK(llm_gguf_type_name(GW_Q8_0) && strcmp(llm_gguf_type_name(GW_Q8_0), "q8_0") == 0);
    CHECK(llm_gguf_type_name(GW_Q4_0) && strcmp(llm_gguf_type_name(GW_Q4_0), "q4_0") == 0);
    CHECK(llm_gguf_type_name(GW_Q4_K) && strcmp(llm_gguf_type_name(GW_Q4_K), "q4_k") == 0);
    CHECK(llm_gguf_type_name(GW_Q6_K) && strcmp(llm_gguf_type_name(GW_Q6_K), "q6_k") == 0);
    CHECK(llm_gguf_type_name(GW_IQ2_XXS) && strcmp(llm_gguf_type_name(GW_IQ2_XXS), "iq2_xxs") == 0);
    CHECK(llm_gguf_type_name(200) == NULL && llm_gguf_type_name(0xffffffffu) == NULL);
}

/* The lookups over many names in a scrambled order (the reader sorts them): each found,
   none of the names in between; a duplicate far from its twin is still seen. */
static void test_lookups(void) {
    enum { NK = 300, NT = 120 };
    static char keys[NK][24], tnames[NT][24];
    static const float x[8] = {1};
    uint64_t ne[1] = {8};
    gw w;
    opened o;
    int i, found = 0, absent = 0, right = 0;
    gw_init(&w);
    for (i = 0; i < NK; i++) {
        sprintf(keys[i], "k.%d", (i * 7919) % NK * 2); /* even numbers, scrambled */
        gw_kv_i32(&w, keys[i], (i * 7919) % NK);
    }
    for (i = 0; i < NT; i++) {
        sprintf(tnames[i], "t%d.w", (i * 37) % NT * 2);
        gw_tensor_f(&w, tnames[i], 1, ne, GW_F32, x);
    }
    open_gw(&o, &w);
    CHECK_MSG(o.st == LLM_OK, "%d keys, %d tensors: %s", NK, NT, o.why ? o.why : "");
    if (o.st == LLM_OK) {
        for (i = 0; i < NK; i++) {
            char name[24];
            int64_t k = llm_gguf_find_key(&o.g, keys[i]), v = -1;
            found += k == i;
            right += llm_gguf_get_int(&o.g, keys[i], &v) == LLM_OK && v == (i * 7919) % NK;
            sprintf(name, "k.%d", 2 * i + 1);
            absent += llm_gguf_find_key(&o.g, name) == -1;
        }
        for (i = 0; i < NT; i++) {
            char name[24];
            found += llm_gguf_find_tensor(&o.g, tnames[i]) == &o.g.tensors[i];
            sprintf(name, "t%d.w", 2 * i + 1);
            absent += llm_gguf_find_tensor(&o.g, name) == NULL;
        }
        CHECK_MSG(found == NK + NT && absent == NK + NT && right == NK, "found %d, absent %d, values %d of %d", found,
                  absent, right, NK + NT);
    }
    close_opened(&o);
    /* the same with one key and one tensor name repeated, first and last */
    gw_kv_i32(&w, keys[0], 1);
    expect_refused_gw(&w, LLM_EFORMAT, "300 keys, the first repeated last");
    gw_init(&w);
    for (i = 0; i < NT; i++) gw_tensor_f(&w, i == NT - 1 ? tnames[0] : tnames[i], 1, ne, GW_F32, x);
    expect_refused_gw(&w, LLM_EFORMAT, "120 tensors, the first name repeated last");
}

/* Alignment: the default 32, general.alignment 64 (odd tensor sizes so the padding
   shows), 1 and 256; zero tensors; zero metadata; both. */
static void test_layouts(void) {
    static const uint32_t aligns[] = {32, 64, 1, 256};
    static const float x[40] = {1, 2, 3};
    int a, i;
    for (a = 0; a < 4; a++) {
        gw w;
        opened o;
        uint64_t ne[2] = {3, 1};
        int ok = 1;
        gw_init(&w);
        gw_kv_str(&w, "general.architecture", "none");
        if (a) gw_alignment(&w, aligns[a]);
        for (i = 0; i < 4; i++) {
            static const char *const names[] = {"a", "b", "c", "d"};
            ne[0] = (uint64_t)(3 + 9 * i);
            gw_tensor_f(&w, names[i], 1, ne, GW_F32, x);
        }
        open_gw(&o, &w);
        CHECK_MSG(o.st == LLM_OK, "alignment %u: %s: %s", (unsigned)aligns[a], llm_status_str(o.st), o.why ? o.why : "");
        if (o.st == LLM_OK) {
            CHECK(o.g.alignment == aligns[a] && o.g.data_offset == w.data_at && o.g.data_offset % aligns[a] == 0);
            for (i = 0; i < 4; i++) {
                const llm_gguf_tensor *t = &o.g.tensors[i];
                if (t->offset != w.t[i].offset || t->offset % aligns[a] || t->bytes != w.t[i].bytes ||
                    t->data != o.buf + w.data_at + w.t[i].offset || !fc_le_floats_are(t->data, x, (size_t)t->bytes / 4))
                    ok = 0;
            }
            CHECK_MSG(ok, "alignment %u: a tensor's offset or data", (unsigned)aligns[a]);
        }
        close_opened(&o);
        gw_free(&w);
    }
    for (i = 0; i < 4; i++) {
        gw w;
        opened o;
        uint64_t ne[1] = {8};
        gw_init(&w);
        w.version = i & 1 ? 2 : 3;
        if (i & 2) gw_kv_u32(&w, "only.key", 7);
        if (i == 1) gw_tensor_f(&w, "only.tensor", 1, ne, GW_F32, x);
        open_gw(&o, &w);
        CHECK_MSG(o.st == LLM_OK, "%s metadata, %s tensors: %s", i & 2 ? "some" : "no", i == 1 ? "some" : "no", o.why ? o.why : "");
        if (o.st == LLM_OK) CHECK(o.g.n_kv == (i & 2 ? 1 : 0) && o.g.n_tensors == (i == 1 ? 1 : 0) && o.g.version == w.version);
        close_opened(&o);
        gw_free(&w);
    }
}

/* ---- hostile files ------------------------------------------------------------------- */

/* The base file every hostile variant starts from: a few entries, two F32 tensors whose
   sizes are multiples of 32 (so the file ends where the last tensor does). */
static const float base_x[32] = {1, 2, 3, 4};
static void write_base(gw *w) {
    static const char *const toks[3] = {"<unk>", "<s>", "</s>"};
    uint64_t ne[2] = {8, 1};
    gw_init(w);
    gw_kv_str(w, "general.architecture", "llama");
    gw_kv_u32(w, "llama.block_count", 1);
    gw_kv_arr_str(w, "tokenizer.ggml.tokens", toks, 3);
    gw_tensor_f(w, "a.weight", 1, ne, GW_F32, base_x);
    ne[0] = 8, ne[1] = 2;
    gw_tensor_f(w, "b.weight", 2, ne, GW_F32, base_x);
    w->no_end_pad = 1;
}

/* open_bytes as an fc_parse_fn: the status, and the reason copied out before the close */
static llm_status parse_gguf(const unsigned char *p, size_t n, const char **why) {
    static char reason[200];
    opened o;
    llm_status st;
    open_bytes(&o, p, n);
    st = o.st;
    snprintf(reason, sizeof reason, "%s", o.why ? o.why : "");
    *why = o.why ? reason : NULL;
    close_opened(&o);
    return st;
}

static void test_hostile(void) {
    gw w;
    opened o;
    uint64_t ne[1] = {8};
    int k;
    char what[96];

    /* the base and the every-type file parse; each prefix of them does not */
    write_base(&w);
    open_gw(&o, &w);
    CHECK_MSG(o.st == LLM_OK, "base: %s", o.why ? o.why : "");
    close_opened(&o);
    fc_check_prefixes(w.p, w.n, parse_gguf, LLM_EFORMAT, "base file");
    gw_free(&w);
    write_all_types(&w, 3);
    w.no_end_pad = 1; /* the file ends with the F16 tensor's last byte */
    gw_finish(&w);
    fc_check_prefixes(w.p, w.n, parse_gguf, LLM_EFORMAT, "every-type file");
    gw_free(&w);

    /* magic, version, byte order */
    write_base(&w);
    gw_finish(&w);
    {
        unsigned char *p = (unsigned char *)malloc(w.n);
        memcpy(p, w.p, w.n);
        p[3] = 'G';
        expect_refused(p, w.n, LLM_EFORMAT, "magic GGUG");
        CHECK(llm_gguf_bytes(p, w.n) == 0);
        free(p);
    }
    gw_free(&w);
    write_base(&w), w.version = 1;
    expect_refused_gw(&w, LLM_EUNSUPPORTED, "version 1");
    write_base(&w), w.big_endian = 1;
    expect_refused_gw(&w, LLM_EUNSUPPORTED, "a big-endian version 3 file");
    write_base(&w), w.big_endian = 1, w.version = 2;
    expect_refused_gw(&w, LLM_EUNSUPPORTED, "a big-endian version 2 file");
    {
        static const uint32_t vers[] = {0, 4, 0xffff, 0xffffffffu};
        for (k = 0; k < 4; k++) {
            write_base(&w), w.version = vers[k];
            gw_finish(&w);
            open_bytes(&o, w.p, w.n);
            CHECK_MSG(o.st != LLM_OK && o.why && *o.why, "version %lu: %s", (unsigned long)vers[k], llm_status_str(o.st));
            close_opened(&o);
            gw_free(&w);
        }
    }

    /* counts: huge, and one more than there is */
    {
        static const uint64_t huge[] = {0x8000000000000000ull, 0xffffffffffffffffull, 0x100000000ull, 1ull << 40};
        for (k = 0; k < 8; k++) { /* n_kv, then n_tensors, of each */
            const char *count = k & 1 ? "n_tensors" : "n_kv";
            write_base(&w);
            if (k & 1) w.n_tensors_lie = 1, w.n_tensors_value = huge[k / 2];
            else w.n_kv_lie = 1, w.n_kv_value = huge[k / 2];
            gw_finish(&w);
            CHECK_MSG(llm_gguf_bytes(w.p, w.n) == 0, "%s %llu: llm_gguf_bytes %lu", count, (unsigned long long)huge[k / 2],
                      (unsigned long)llm_gguf_bytes(w.p, w.n));
            sprintf(what, "%s = %llu", count, (unsigned long long)huge[k / 2]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
        write_base(&w), w.n_kv_lie = 1, w.n_kv_value = 4;
        expect_refused_gw(&w, LLM_EFORMAT, "n_kv one more than written");
        write_base(&w), w.n_tensors_lie = 1, w.n_tensors_value = 3;
        expect_refused_gw(&w, LLM_EFORMAT, "n_tensors one more than written");
        /* fewer than written: the rest reads as tensor infos, garbage */
        write_base(&w), w.n_kv_lie = 1, w.n_kv_value = 2;
        expect_refused_gw(&w, LLM_EFORMAT, "n_kv one less than written");
    }

    /* string lengths past the end, huge, or wrapping a 64-bit sum */
    {
        static const uint64_t lens[] = {1000, 0xffffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffff0ull};
        for (k = 0; k < 4; k++) {
            gw_init(&w);
            gw_key(&w, "k", GW_T_STRING), gw_m_str_lie(&w, "short", lens[k]);
            sprintf(what, "a string value of length %llu", (unsigned long long)lens[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
            gw_init(&w);
            gw_m_str_lie(&w, "key", lens[k]), gw_m_u32(&w, GW_T_UINT32), gw_m_u32(&w, 1), w.n_kv = 1;
            sprintf(what, "a key of length %llu", (unsigned long long)lens[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
            gw_init(&w);
            gw_key_arr(&w, "k", GW_T_STRING, 2), gw_m_str(&w, "one"), gw_m_str_lie(&w, "two", lens[k]);
            sprintf(what, "an array's string of length %llu", (unsigned long long)lens[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
        /* a tensor name's length: patched in place */
        write_base(&w);
        gw_finish(&w);
        for (k = 0; k < 4; k++) {
            unsigned char *p = (unsigned char *)malloc(w.n);
            int b;
            memcpy(p, w.p, w.n);
            for (b = 0; b < 8; b++) p[w.info_at[1] + (size_t)b] = (unsigned char)(lens[k] >> (8 * b));
            sprintf(what, "a tensor name of length %llu", (unsigned long long)lens[k]);
            expect_refused(p, w.n, LLM_EFORMAT, what);
            free(p);
        }
        gw_free(&w);
    }

    /* arrays: counts past the end, counts whose byte size wraps, unknown and nested types */
    {
        static const uint64_t counts[] = {4, 1000, 0x4000000000000000ull, 0x4000000000000001ull, 0xffffffffffffffffull};
        for (k = 0; k < 5; k++) {
            /* (no padding after the metadata: zeros would read as more elements) */
            gw_init(&w), w.no_data_pad = 1;
            gw_key_arr(&w, "k", GW_T_INT32, counts[k]), gw_m_u32(&w, 1), gw_m_u32(&w, 2), gw_m_u32(&w, 3);
            sprintf(what, "an int32 array of count %llu with 3 written", (unsigned long long)counts[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
            gw_init(&w), w.no_data_pad = 1;
            gw_key_arr(&w, "k", GW_T_STRING, counts[k]), gw_m_str(&w, "a"), gw_m_str(&w, "b"), gw_m_str(&w, "c");
            sprintf(what, "a string array of count %llu with 3 written", (unsigned long long)counts[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
        gw_init(&w);
        gw_key_arr(&w, "k", GW_T_UINT64, 0x2000000000000001ull), gw_m_u64(&w, 1);
        expect_refused_gw(&w, LLM_EFORMAT, "a uint64 array whose byte size wraps to 8");
        /* nested arrays: the spec allows them (ggml's own reader does not); this reader
           steps over them up to 3 deep (no getter reads them) and refuses deeper ones */
        gw_init(&w);
        gw_key_arr(&w, "outer", GW_T_ARRAY, 2);
        gw_m_u32(&w, GW_T_INT32), gw_m_u64(&w, 1), gw_m_u32(&w, 5);
        gw_m_u32(&w, GW_T_STRING), gw_m_u64(&w, 2), gw_m_str(&w, "x"), gw_m_str(&w, "yz");
        gw_kv_u32(&w, "after", 77);
        open_gw(&o, &w);
        CHECK_MSG(o.st == LLM_OK, "an array of two arrays: %s: %s", llm_status_str(o.st), o.why ? o.why : "");
        if (o.st == LLM_OK) {
            int64_t iv = 0;
            uint64_t cur = 0;
            llm_gguf_str sv;
            const llm_gguf_kv *kv = &o.g.kv[0];
            CHECK(kv->arr_type == LLM_GGUF_ARRAY && kv->arr_n == 2 && kv->bytes == 16 + 31); /* (4 + 8 + 4) + (4 + 8 + 9 + 10) */
            CHECK(llm_gguf_arr_int(kv, 0, &iv) == LLM_EFORMAT && llm_gguf_arr_str(kv, &cur, &sv) == LLM_EFORMAT);
            CHECK(llm_gguf_get_int(&o.g, "after", &iv) == LLM_OK && iv == 77);
        }
        close_opened(&o);
        gw_free(&w);
        gw_init(&w);
        gw_key_arr(&w, "outer", GW_T_ARRAY, 1);
        for (k = 0; k < 3; k++) gw_m_u32(&w, GW_T_ARRAY), gw_m_u64(&w, 1);
        gw_m_u32(&w, GW_T_INT32), gw_m_u64(&w, 1), gw_m_u32(&w, 5);
        expect_refused_gw(&w, LLM_EFORMAT, "arrays nested 5 deep");
        gw_init(&w), w.no_data_pad = 1;
        gw_key_arr(&w, "outer", GW_T_ARRAY, 3), gw_m_u32(&w, GW_T_INT32), gw_m_u64(&w, 0);
        expect_refused_gw(&w, LLM_EFORMAT, "an array of 3 arrays with 1 written");
        {
            static const uint32_t types[] = {13, 100, 0x80000000u, 0xffffffffu};
            for (k = 0; k < 4; k++) {
                gw_init(&w);
                gw_key(&w, "k", types[k]), gw_m_u32(&w, 0), gw_m_u32(&w, 0);
                sprintf(what, "value type %lu", (unsigned long)types[k]);
                expect_refused_gw(&w, LLM_EFORMAT, what);
                gw_init(&w);
                gw_key_arr(&w, "k", types[k], 1), gw_m_u32(&w, 0), gw_m_u32(&w, 0);
                sprintf(what, "array element type %lu", (unsigned long)types[k]);
                expect_refused_gw(&w, LLM_EFORMAT, what);
            }
        }
        /* duplicate keys (also the same key of another type) */
        write_base(&w), gw_kv_u32(&w, "llama.block_count", 1);
        expect_refused_gw(&w, LLM_EFORMAT, "a duplicate key");
        write_base(&w), gw_kv_str(&w, "general.architecture", "qwen2");
        expect_refused_gw(&w, LLM_EFORMAT, "a duplicate key of the same type, another value");
    }

    /* general.alignment: zero, not a power of two, the wrong type */
    {
        static const uint32_t bad_align[] = {0, 3, 48, 33, 0xffffffffu};
        for (k = 0; k < 5; k++) {
            write_base(&w), gw_kv_u32(&w, "general.alignment", bad_align[k]);
            sprintf(what, "general.alignment %lu", (unsigned long)bad_align[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
        /* a power of two, but the data section would start past the end */
        write_base(&w), gw_kv_u32(&w, "general.alignment", 0x80000000u);
        expect_refused_gw(&w, LLM_EFORMAT, "general.alignment 2^31");
        write_base(&w), gw_kv_f32(&w, "general.alignment", 32.0f);
        expect_refused_gw(&w, LLM_EFORMAT, "general.alignment as a float32");
        write_base(&w), gw_kv_str(&w, "general.alignment", "32");
        expect_refused_gw(&w, LLM_EFORMAT, "general.alignment as a string");
    }

    /* tensor infos: n_dims, dimensions, type, offsets, names */
    {
        static const uint32_t nd[] = {0, 5, 0xffffffffu};
        for (k = 0; k < 3; k++) {
            write_base(&w), w.t[1].n_dims = nd[k];
            sprintf(what, "n_dims %lu", (unsigned long)nd[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
    }
    {
        /* dimensions: zero, negative as int64, products that overflow 64 bits (elements or bytes) */
        static const uint64_t dims[][4] = {
            {0, 2, 1, 1}, {8, 0, 1, 1}, {8, 2, 1, 0}, {0xffffffffffffffffull, 1, 1, 1}, {8, 0x8000000000000000ull, 1, 1},
            {0x100000000ull, 0x100000000ull, 1, 1}, {1 << 20, 1 << 20, 1 << 20, 1 << 20},
            {0x80000000ull, 0x80000000ull, 1, 1}, /* 2^62 elements: 2^64 bytes */
            {0x4000000000000000ull, 1, 1, 1}, {1ull << 40, 1ull << 30, 1, 1},
        };
        for (k = 0; k < (int)(sizeof dims / sizeof dims[0]); k++) {
            int d;
            write_base(&w);
            w.t[1].n_dims = 4;
            for (d = 0; d < 4; d++) w.t[1].ne[d] = dims[k][d];
            w.t[1].bytes_lie = 1, w.t[1].bytes_value = 64; /* the data stays what it was */
            sprintf(what, "dimensions {%llu, %llu, %llu, %llu}", (unsigned long long)dims[k][0],
                    (unsigned long long)dims[k][1], (unsigned long long)dims[k][2], (unsigned long long)dims[k][3]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
    }
    {
        /* a row that is not a whole number of blocks; unknown type ids */
        write_base(&w), w.t[1].type = GW_Q8_0, w.t[1].ne[0] = 33, w.t[1].ne[1] = 1;
        w.t[1].bytes_lie = 1, w.t[1].bytes_value = 64;
        expect_refused_gw(&w, LLM_EFORMAT, "a q8_0 row of 33");
        write_base(&w), w.t[1].type = GW_Q4_K, w.t[1].ne[0] = 32, w.t[1].ne[1] = 1;
        w.t[1].bytes_lie = 1, w.t[1].bytes_value = 144;
        expect_refused_gw(&w, LLM_EFORMAT, "a q4_k row of 32");
        {
            /* ids ggml removed (Q4_2 4, Q4_3 5, the Q4_0_4_4 family 31-33) and ones it never had */
            static const uint32_t types[] = {4, 5, 31, 40, 200, 0x80000000u, 0xffffffffu};
            for (k = 0; k < 7; k++) {
                write_base(&w), w.t[0].type = types[k];
                w.t[0].bytes_lie = 1, w.t[0].bytes_value = 32;
                sprintf(what, "tensor type %lu", (unsigned long)types[k]);
                expect_refused_gw(&w, LLM_EFORMAT, what);
            }
        }
    }
    {
        /* offsets: misaligned, outside the data, wrapping when the size is added */
        static const uint64_t offs[] = {1, 4, 16, 64, 96, 0x8000000000000000ull, 0xffffffffffffffe0ull,
                                        0xffffffffffffffffull};
        for (k = 0; k < 8; k++) {
            write_base(&w), w.t[1].offset_lie = 1, w.t[1].offset_value = offs[k];
            sprintf(what, "offset %llu of a 64-byte tensor in 96 bytes of data", (unsigned long long)offs[k]);
            expect_refused_gw(&w, LLM_EFORMAT, what);
        }
        /* data past the end: the last tensor is short of its bytes */
        write_base(&w), w.t[1].bytes_lie = 1, w.t[1].bytes_value = 60;
        expect_refused_gw(&w, LLM_EFORMAT, "the last tensor 4 bytes short");
        /* overlapping tensors (both at offset 0) are not malformed: either is readable in
           place; accepted with both pointing at the same bytes, or refused with a reason */
        write_base(&w), w.t[1].offset_lie = 1, w.t[1].offset_value = 0;
        open_gw(&o, &w);
        CHECK_MSG(o.st == LLM_OK ? o.g.tensors[0].data == o.g.tensors[1].data : o.st == LLM_EFORMAT && o.why && *o.why,
                  "overlapping tensors: %s", llm_status_str(o.st));
        printf("overlapping tensors: %s %s\n", o.st == LLM_OK ? "accepted" : "refused:",
               o.st == LLM_OK || !o.why ? "" : o.why);
        close_opened(&o);
        gw_free(&w);
        /* the same name twice */
        write_base(&w), w.t[1].name = "a.weight";
        expect_refused_gw(&w, LLM_EFORMAT, "a duplicate tensor name");
    }
    {
        /* general.alignment 64 read before the infos: offsets of 32 are now misaligned */
        gw_init(&w);
        gw_alignment(&w, 64);
        w.alignment = 32; /* the layout ignores it */
        gw_tensor_f(&w, "a.weight", 1, ne, GW_F32, base_x);
        gw_tensor_f(&w, "b.weight", 1, ne, GW_F32, base_x);
        expect_refused_gw(&w, LLM_EFORMAT, "offset 32 under general.alignment 64");
    }
}

/* ---- a llama model, written and loaded ---------------------------------------------- */

enum { D = 32, FF = 256, L = 2, NH = 4, NKV = 2, HD = D / NH, V = 48, CTX = 16, NTOK = 6 };
static const int toks[NTOK] = {1, 7, 30, 2, 45, 11};
static const float EPS = 1e-6f, THETA = 5000.0f; /* not the defaults: the keys must be read */

typedef struct ref {
    float *emb, *an, *fn, *wq, *wk, *wv, *wo, *w1, *w2, *w3, *fin, *out;
} ref;
static float *rnd(size_t n, float s, float bias) {
    float *p = (float *)malloc(n * sizeof *p);
    size_t i;
    test_fill(p, n, s);
    for (i = 0; i < n; i++) p[i] += bias;
    return p;
}
static void ref_make(ref *r) {
    r->emb = rnd((size_t)V * D, 1, 0), r->an = rnd((size_t)L * D, 0.2f, 1), r->fn = rnd((size_t)L * D, 0.2f, 1);
    r->fin = rnd(D, 0.2f, 1);
    r->wq = rnd((size_t)L * D * D, 0.3f, 0), r->wk = rnd((size_t)L * NKV * HD * D, 0.3f, 0);
    r->wv = rnd((size_t)L * NKV * HD * D, 0.3f, 0), r->wo = rnd((size_t)L * D * D, 0.3f, 0);
    r->w1 = rnd((size_t)L * FF * D, 0.2f, 0), r->w2 = rnd((size_t)L * D * FF, 0.1f, 0), r->w3 = rnd((size_t)L * FF * D, 0.2f, 0);
    r->out = rnd((size_t)V * D, 0.3f, 0);
}
static void ref_free(ref *r) {
    free(r->emb), free(r->an), free(r->fn), free(r->fin), free(r->wq), free(r->wk), free(r->wv), free(r->wo);
    free(r->w1), free(r->w2), free(r->w3), free(r->out);
}
static gw_llama ref_desc(const ref *r, uint32_t type, int tied) {
    gw_llama m;
    memset(&m, 0, sizeof m);
    m.d = D, m.ff = FF, m.n_layers = L, m.n_heads = NH, m.n_kv_heads = NKV, m.vocab = V, m.ctx = CTX;
    m.eps = EPS, m.theta = THETA, m.rope_dim = HD, m.type = type;
    m.emb = r->emb, m.attn_norm = r->an, m.ffn_norm = r->fn, m.out_norm = r->fin;
    m.wq = r->wq, m.wk = r->wk, m.wv = r->wv, m.wo = r->wo, m.w1 = r->w1, m.w2 = r->w2, m.w3 = r->w3;
    m.out = tied ? NULL : r->out;
    return m;
}

/* A matrix as llm_weight of the given type: F32 in place, F16 / BF16 rounded copies
   (kept in keep[] until the caller frees them). */
static llm_weight as_weight(const float *x, size_t n, uint32_t type, void **keep, int *n_keep) {
    llm_weight w;
    memset(&w, 0, sizeof w);
    if (type == GW_F32) {
        w.type = LLM_F32, w.data = x;
    } else {
        uint16_t *h = (uint16_t *)malloc(n * 2);
        size_t i;
        for (i = 0; i < n; i++) h[i] = type == GW_F16 ? llm_f32_to_f16(x[i]) : llm_f32_to_bf16(x[i]);
        w.type = type == GW_F16 ? LLM_F16 : LLM_BF16, w.data = h;
        keep[(*n_keep)++] = h;
    }
    return w;
}

/* The logits of toks from the arrays put into llm_weights directly. */
static void logits_direct(const ref *r, uint32_t type, int tied, float *out) {
    llm_layer_weights layers[L];
    llm_weights w;
    llm_config c = llm_config_default();
    llm_state s;
    void *keep[64];
    int n_keep = 0, l, i;
    size_t kvd = (size_t)NKV * HD;
    memset(&w, 0, sizeof w);
    memset(layers, 0, sizeof layers);
    c.d_model = D, c.d_ff = FF, c.n_layers = L, c.n_heads = NH, c.n_kv_heads = NKV, c.vocab = V, c.max_seq_len = CTX;
    c.norm_eps = EPS, c.rope_theta = THETA, c.tied_embeddings = tied;
    for (l = 0; l < L; l++) {
        llm_layer_weights *y = &layers[l];
        size_t k = (size_t)l;
        y->attn_norm = r->an + k * D, y->ffn_norm = r->fn + k * D;
        y->wq = as_weight(r->wq + k * D * D, (size_t)D * D, type, keep, &n_keep);
        y->wk = as_weight(r->wk + k * kvd * D, kvd * D, type, keep, &n_keep);
        y->wv = as_weight(r->wv + k * kvd * D, kvd * D, type, keep, &n_keep);
        y->wo = as_weight(r->wo + k * D * D, (size_t)D * D, type, keep, &n_keep);
        y->w1 = as_weight(r->w1 + k * FF * D, (size_t)FF * D, type, keep, &n_keep);
        y->w2 = as_weight(r->w2 + k * D * FF, (size_t)D * FF, type, keep, &n_keep);
        y->w3 = as_weight(r->w3 + k * FF * D, (size_t)FF * D, type, keep, &n_keep);
    }
    w.tok_embed = as_weight(r->emb, (size_t)V * D, type, keep, &n_keep);
    w.lm_head = tied ? w.tok_embed : as_weight(r->out, (size_t)V * D, type, keep, &n_keep);
    w.layers = layers;
    w.out_norm = r->fin;
    CHECK_OK(llm_state_create(&s, &c, CTX, NTOK, LLM_F32));
    CHECK_OK(llm_forward(&s, &w, toks, NTOK, 0, out, 1, NULL));
    llm_state_free(&s);
    for (i = 0; i < n_keep; i++) free(keep[i]);
}

/* llm_gguf_create + llm_gguf_load of the finished file (in its own exact copy); the
   status of the first that fails, *why its reason (which may live in g->why: the caller
   frees g, when it was created, after reading it). */
static llm_status load_gw(gw *w, llm_model *m, llm_layer_weights *layers, int cap, unsigned char **buf, llm_gguf *g,
                          const char **why) {
    llm_status st;
    gw_finish(w);
    *buf = (unsigned char *)malloc(w->n);
    memcpy(*buf, w->p, w->n);
    *why = NULL;
    st = llm_gguf_create(g, *buf, w->n, why);
    if (st != LLM_OK) return st;
    return llm_gguf_load(m, g, layers, cap, why);
}
/* Writes the reference model, lets edit() change the file, and expects llm_gguf_load's
   status `want` with a reason that names `name` (if not NULL). at_config: the verdict
   comes from the metadata alone; else it needs the tensors, which a big-endian host never
   reaches (it refuses first, saying so). */
typedef void (*edit_fn)(gw *w, void *ctx);
/* The model of desc written, edit(w, ctx) applied (if given), and loaded by load_gw;
   ref_unload frees what it made. */
typedef struct ref_loaded {
    gw w;
    gw_names names;
    llm_layer_weights layers[L + 2];
    llm_model m;
    llm_gguf g;
    unsigned char *buf;
    const char *why;
    llm_status st;
} ref_loaded;
static void ref_load(ref_loaded *o, const gw_llama *desc, edit_fn edit, void *ctx) {
    gw_init(&o->w);
    gw_llama_model(&o->w, desc, &o->names);
    if (edit) edit(&o->w, ctx);
    o->st = load_gw(&o->w, &o->m, o->layers, L + 2, &o->buf, &o->g, &o->why);
}
static void ref_unload(ref_loaded *o) {
    llm_gguf_free(&o->g);
    free(o->buf);
    gw_free(&o->w);
}
/* one more metadata entry, of any scalar type */
typedef struct kv_edit {
    const char *key;
    uint32_t type;
    uint64_t u; /* integers and bools */
    double f;   /* floats */
    const char *s;
} kv_edit;
static void edit_kv(gw *w, void *ctx) {
    const kv_edit *e = (const kv_edit *)ctx;
    gw_key(w, e->key, e->type);
    if (e->type == GW_T_STRING) gw_m_str(w, e->s);
    else if (e->type == GW_T_FLOAT32) gw_m_f32(w, (float)e->f);
    else if (e->type == GW_T_FLOAT64) gw_m_f64(w, e->f);
    else if (e->type == GW_T_UINT8 || e->type == GW_T_INT8 || e->type == GW_T_BOOL) gw_m_u8(w, (unsigned)e->u);
    else if (e->type == GW_T_UINT16 || e->type == GW_T_INT16) gw_m_u16(w, (unsigned)e->u);
    else if (e->type == GW_T_UINT64 || e->type == GW_T_INT64) gw_m_u64(w, e->u);
    else gw_m_u32(w, (uint32_t)e->u);
}
static void expect_load(const ref *r, int tied, edit_fn edit, void *ctx, int at_config, llm_status want,
                        const char *name, const char *what) {
    gw_llama desc = ref_desc(r, GW_F32, tied);
    ref_loaded o;
    const char *why;
    if (edit == edit_kv) desc.eps = 0, desc.theta = 0, desc.rope_dim = 0; /* the edit writes its own */
    ref_load(&o, &desc, edit, ctx);
    why = o.why;
    if (!at_config && !fc_host_le())
        CHECK_MSG(fc_be_refused(o.st, why), "%s: %s (want the big-endian host refused), why \"%s\"", what,
                  llm_status_str(o.st), why ? why : "(null)");
    else
        CHECK_MSG(o.st == want && why && (*why || want == LLM_OK) && (!name || fc_mentions(why, name)),
                  "%s: %s (want %s naming %s), why \"%s\"", what, llm_status_str(o.st), llm_status_str(want),
                  name ? name : "-", why ? why : "(null)");
    ref_unload(&o);
}

static void test_model(uint32_t type, int tied) {
    ref r;
    gw w;
    gw_names names;
    gw_llama desc;
    llm_layer_weights layers[L];
    llm_model m;
    llm_gguf g;
    llm_state s;
    llm_config c;
    unsigned char *buf;
    const char *why;
    float direct[NTOK * V], got[NTOK * V];
    llm_status st;
    const char *tn = type == GW_F32 ? "F32" : type == GW_F16 ? "F16" : "BF16";
    ref_make(&r);
    desc = ref_desc(&r, type, tied);
    logits_direct(&r, type, tied, direct);
    gw_init(&w);
    gw_llama_model(&w, &desc, &names);
    st = load_gw(&w, &m, layers, L, &buf, &g, &why);
    CHECK_MSG(fc_load_is(st, &why, LLM_OK), "%s %s: %s: %s", tn, tied ? "tied" : "untied", llm_status_str(st), why ? why : "");
    if (st == LLM_OK) {
        const llm_config *k = &m.config;
        CHECK(k->d_model == D && k->d_ff == FF && k->n_layers == L && k->n_heads == NH && k->n_kv_heads == NKV);
        CHECK(k->vocab == V && k->max_seq_len == CTX && llm_config_head_dim(k) == HD);
        CHECK(k->norm_eps == EPS && k->rope_theta == THETA && k->rope_layout == LLM_ROPE_INTERLEAVED);
        CHECK(k->tied_embeddings == tied && k->norm == LLM_NORM_RMS && k->ffn == LLM_FFN_SWIGLU && k->n_experts == 0);
        CHECK(m.file_version == 3 && m.weights.layers == layers);
        CHECK(m.weights.tok_embed.type == (type == GW_F32 ? LLM_F32 : type == GW_F16 ? LLM_F16 : LLM_BF16));
        CHECK(tied ? m.weights.lm_head.data == m.weights.tok_embed.data : m.weights.lm_head.data != m.weights.tok_embed.data);
        /* zero-copy: the weights are the file's bytes */
        CHECK(m.weights.tok_embed.data == llm_gguf_find_tensor(&g, "token_embd.weight")->data);
        CHECK(layers[1].w2.data == llm_gguf_find_tensor(&g, "blk.1.ffn_down.weight")->data);
        CHECK(llm_gguf_read_config(&c, &g, &why) == LLM_OK && c.d_model == D && c.n_layers == L && c.vocab == V);
        CHECK_OK(llm_state_create(&s, &m.config, CTX, NTOK, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.weights, toks, NTOK, 0, got, 1, NULL));
        llm_state_free(&s);
        /* the same weights and the same arithmetic: bit-identical */
        CHECK_MSG(memcmp(got, direct, sizeof got) == 0, "%s %s: logits differ from the same weights given directly (%g vs %g)",
                  tn, tied ? "tied" : "untied", got[0], direct[0]);
        /* too few layer slots */
        CHECK(llm_gguf_load(&m, &g, layers, L - 1, &why) != LLM_OK);
    }
    llm_gguf_free(&g);
    free(buf);
    /* the file from a buffer 4 bytes off its 32-byte alignment loads and runs the same; 2 or
       1 bytes off, an F32 tensor would be misaligned: refused, never read misaligned */
    {
        unsigned char *raw = (unsigned char *)malloc(w.n + 8);
        int shift, ok4 = 0;
        for (shift = 1; shift <= 4; shift++) {
            memcpy(raw + shift, w.p, w.n);
            st = llm_gguf_create(&g, raw + shift, w.n, &why);
            if (st == LLM_OK) st = llm_gguf_load(&m, &g, layers, L, &why);
            if (shift == 4 && st == LLM_OK && llm_state_create(&s, &m.config, CTX, NTOK, LLM_F32) == LLM_OK) {
                ok4 = llm_forward(&s, &m.weights, toks, NTOK, 0, got, 1, NULL) == LLM_OK &&
                      memcmp(got, direct, sizeof got) == 0;
                llm_state_free(&s);
            }
            if (shift < 4 && type == GW_F32) CHECK_MSG(st != LLM_OK && why && *why, "%s: buffer %d bytes off: %s", tn, shift, llm_status_str(st));
            if (shift == 4 && !fc_host_le()) ok4 = fc_be_refused(st, why);
            llm_gguf_free(&g);
        }
        CHECK_MSG(ok4, "%s %s: from a buffer 4 bytes off alignment%s", tn, tied ? "tied" : "untied",
                  fc_host_le() ? "" : " (big-endian host: refused, saying so)");
        free(raw);
    }
    /* and from a file */
    {
        FILE *f = fopen("build/test_gguf_model.gguf", "wb");
        int ok = f && fwrite(w.p, 1, w.n, f) == w.n;
        if (f) ok &= fclose(f) == 0;
        st = ok ? llm_gguf_load_file(&m, "build/test_gguf_model.gguf", &why) : LLM_EIO;
        CHECK_MSG(fc_load_is(st, &why, LLM_OK), "%s: llm_gguf_load_file: %s: %s", tn, llm_status_str(st), why ? why : "");
        if (st == LLM_OK) {
            ok = llm_state_create(&s, &m.config, CTX, NTOK, LLM_F32) == LLM_OK;
            ok = ok && llm_forward(&s, &m.weights, toks, NTOK, 0, got, 1, NULL) == LLM_OK;
            if (ok) llm_state_free(&s);
            CHECK(ok && memcmp(got, direct, sizeof got) == 0 && m.owned != NULL);
            llm_model_free(&m);
        }
        /* the same file cut short: refused by the header's or a tensor's check */
        f = fopen("build/test_gguf_model.gguf", "wb");
        ok = f && fwrite(w.p, 1, w.n - 100, f) == w.n - 100;
        if (f) ok &= fclose(f) == 0;
        st = ok ? llm_gguf_load_file(&m, "build/test_gguf_model.gguf", &why) : LLM_EIO;
        CHECK_MSG(st == LLM_EFORMAT && why && *why, "%s: a truncated file: %s", tn, llm_status_str(st));
        remove("build/test_gguf_model.gguf");
        CHECK(llm_gguf_load_file(&m, "build", &why) == LLM_EIO); /* a directory */
    }
    gw_free(&w);
    ref_free(&r);
}

/* the edits of the refusal tests */
static void edit_skip(gw *w, void *ctx) { w->t[gw_find(w, (const char *)ctx)].skip = 1; }
static void edit_experts(gw *w, void *ctx) {
    (void)ctx;
    gw_kv_u32(w, "llama.expert_count", 8);
    gw_kv_u32(w, "llama.expert_used_count", 2);
}
static void edit_type(gw *w, void *ctx) {
    gw_tensor *t = &w->t[gw_find(w, "blk.1.ffn_down.weight")]; /* ne {256, 32}: whole blocks of 256 */
    t->type = *(const uint32_t *)ctx;
    t->data = NULL, t->data_n = 0;
}
static void edit_norm_f16(gw *w, void *ctx) {
    static const float ones[D] = {1, 1, 1, 1};
    gw_tensor_floats(w, gw_find(w, (const char *)ctx), ones, D, GW_F16);
}
static void edit_extra(gw *w, void *ctx) {
    static const float x[D * D] = {1};
    uint64_t ne[2] = {D, 1};
    if (strstr((const char *)ctx, "attn_q.weight")) ne[1] = D;
    gw_tensor_f(w, (const char *)ctx, strstr((const char *)ctx, "attn_q.weight") ? 2 : 1, ne, GW_F32, x);
}
static void edit_shape(gw *w, void *ctx) {
    int which = *(const int *)ctx;
    gw_tensor *t;
    if (which == 0) t = &w->t[gw_find(w, "blk.0.attn_q.weight")], t->ne[1] = D / 2;
    else if (which == 1) t = &w->t[gw_find(w, "blk.1.ffn_down.weight")], t->ne[0] = D, t->ne[1] = FF; /* transposed */
    else if (which == 2) t = &w->t[gw_find(w, "output.weight")], t->ne[1] = V + 1;
    else if (which == 3) t = &w->t[gw_find(w, "blk.0.ffn_norm.weight")], t->ne[0] = D + 8;
    else t = &w->t[gw_find(w, "blk.1.attn_k.weight")], t->ne[1] = D; /* as if MHA */
    t->data = NULL, t->data_n = 0;
}

static void test_refusals(void) {
    ref r;
    gw_llama desc;
    int i;
    ref_make(&r);
    {   /* other architectures: refused by name */
        static const char *const archs[] = {"mamba", "gpt2", "starcoder2", "falcon"};
        for (i = 0; i < 4; i++) {
            ref_loaded o;
            llm_config c;
            desc = ref_desc(&r, GW_F32, 0);
            desc.arch = archs[i];
            ref_load(&o, &desc, NULL, NULL);
            CHECK_MSG(o.st == LLM_EUNSUPPORTED && fc_mentions(o.why, archs[i]), "architecture %s: %s, why \"%s\"", archs[i],
                      llm_status_str(o.st), o.why ? o.why : "(null)");
            CHECK(o.g.kv && llm_gguf_read_config(&c, &o.g, &o.why) == LLM_EUNSUPPORTED);
            ref_unload(&o);
        }
    }
    {   /* tensor types the forward pass does not have: refused by name */
        static const uint32_t types[] = {GW_IQ2_XXS, GW_IQ4_NL, GW_TQ2_0, GW_MXFP4, GW_Q8_K, GW_F64};
        static const char *const names[] = {"iq2_xxs", "iq4_nl", "tq2_0", "mxfp4", "q8_k", "f64"};
        for (i = 0; i < 6; i++) {
            char what[64];
            sprintf(what, "a %s tensor", names[i]);
            expect_load(&r, 0, edit_type, (void *)&types[i], 0, LLM_EUNSUPPORTED, names[i], what);
        }
    }
    {   /* ggml's block formats: used in place, as the llm_dtype of the same layout */
        static const uint32_t types[] = {GW_Q8_0, GW_Q4_0, GW_Q4_1, GW_Q5_0, GW_Q5_1,
                                         GW_Q2_K, GW_Q3_K, GW_Q4_K, GW_Q5_K, GW_Q6_K};
        static const llm_dtype dt[] = {LLM_Q8_0, LLM_Q4_0, LLM_Q4_1, LLM_Q5_0, LLM_Q5_1,
                                       LLM_Q2_K, LLM_Q3_K, LLM_Q4_K, LLM_Q5_K, LLM_Q6_K};
        int bad = 0;
        for (i = 0; i < 10; i++) {
            ref_loaded o;
            desc = ref_desc(&r, GW_F32, 0);
            ref_load(&o, &desc, edit_type, (void *)&types[i]);
            if (!fc_host_le() ? !fc_be_refused(o.st, o.why)
                              : o.st != LLM_OK || o.layers[1].w2.type != dt[i] ||
                                    o.layers[1].w2.data != llm_gguf_find_tensor(&o.g, "blk.1.ffn_down.weight")->data ||
                                    o.layers[0].w2.type != LLM_F32) {
                bad++;
                fprintf(stderr, "    a %s ffn_down: %s: %s\n", llm_gguf_type_name(types[i]), llm_status_str(o.st),
                        o.why ? o.why : "");
            }
            ref_unload(&o);
        }
        CHECK_MSG(bad == 0, "%d of 10 block formats not loaded as their llm_dtype%s", bad,
                  fc_host_le() ? "" : " (big-endian host: refused, saying so)");
    }
    /* experts in the metadata but dense tensors: the router is missing (test_moe runs real ones) */
    expect_load(&r, 1, edit_experts, NULL, 0, LLM_EFORMAT, "blk.0.ffn_gate_inp.weight", "llama.expert_count 8, no expert tensors");
    {   /* optional keys that are there but wrong: refused, not replaced by their defaults */
        static const kv_edit bad[] = {
            {"llama.rope.freq_base", GW_T_UINT32, 5000, 0, NULL},
            {"llama.rope.freq_base", GW_T_STRING, 0, 0, "5000"},
            {"llama.rope.freq_base", GW_T_FLOAT32, 0, -1.0, NULL},
            {"llama.attention.layer_norm_rms_epsilon", GW_T_UINT32, 0, 0, NULL},
            {"llama.attention.layer_norm_rms_epsilon", GW_T_FLOAT64, 0, 0.0, NULL},
            {"llama.rope.dimension_count", GW_T_UINT32, 0, 0, NULL},
            {"llama.rope.dimension_count", GW_T_UINT32, 9999, 0, NULL},
            {"llama.rope.dimension_count", GW_T_FLOAT32, 0, 8.0, NULL},
            {"llama.attention.key_length", GW_T_UINT32, 1, 0, NULL},
            {"llama.attention.head_count_kv", GW_T_UINT32, 0, 0, NULL},
            {"llama.expert_count", GW_T_UINT32, 100000, 0, NULL},
            {"llama.expert_count", GW_T_FLOAT32, 0, 8.0, NULL},
        };
        for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
            char what[96];
            sprintf(what, "%s as a %s", bad[i].key, llm_gguf_value_type_name((llm_gguf_type)bad[i].type));
            expect_load(&r, 1, edit_kv, (void *)&bad[i], 1, LLM_EFORMAT, bad[i].key + 6, what);
        }
    }
    {   /* the same keys, right: read */
        static const kv_edit good[] = {
            {"llama.rope.freq_base", GW_T_FLOAT64, 0, 5000.0, NULL},
            {"llama.rope.dimension_count", GW_T_UINT32, HD, 0, NULL},
            {"llama.expert_count", GW_T_UINT32, 0, 0, NULL},
        };
        for (i = 0; i < 3; i++) {
            char what[96];
            sprintf(what, "%s as a %s", good[i].key, llm_gguf_value_type_name((llm_gguf_type)good[i].type));
            expect_load(&r, 1, edit_kv, (void *)&good[i], 0, LLM_OK, NULL, what);
        }
    }
    expect_load(&r, 1, edit_norm_f16, (void *)"blk.1.ffn_norm.weight", 0, LLM_EUNSUPPORTED, "blk.1.ffn_norm.weight",
                "an F16 norm");
    {   /* tensors the forward pass would not use */
        static const char *const extra[] = {"rope_freqs.weight", "blk.0.attn_q.bias", "blk.2.attn_q.weight",
                                            "mystery.weight"};
        for (i = 0; i < 4; i++) {
            char what[64];
            sprintf(what, "an extra tensor %s", extra[i]);
            expect_load(&r, 1, edit_extra, (void *)extra[i], 0, LLM_EUNSUPPORTED, extra[i], what);
        }
    }
    {   /* missing tensors */
        static const char *const gone[] = {"blk.1.ffn_up.weight", "output_norm.weight", "blk.0.attn_norm.weight",
                                           "token_embd.weight"};
        for (i = 0; i < 4; i++) {
            char what[64];
            sprintf(what, "no %s", gone[i]);
            /* (the config's vocab is token_embd.weight's: without it, refused with the metadata) */
            expect_load(&r, 0, edit_skip, (void *)gone[i], i == 3, LLM_EFORMAT, gone[i], what);
        }
    }
    {   /* wrong shapes */
        static const int which[] = {0, 1, 2, 3, 4};
        static const char *const names[] = {"blk.0.attn_q.weight", "blk.1.ffn_down.weight", "output.weight",
                                            "blk.0.ffn_norm.weight", "blk.1.attn_k.weight"};
        for (i = 0; i < 5; i++) {
            char what[64];
            sprintf(what, "%s of the wrong shape", names[i]);
            expect_load(&r, 0, edit_shape, (void *)&which[i], 0, LLM_EFORMAT, names[i], what);
        }
    }
    ref_free(&r);
}

/* ---- the shared models: stories260K.gguf and the q256 model -------------------------- */

static int exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

enum { STORIES_CHECKS = 14 };
static void test_stories(void) {
    char path[512], bpath[512], tpath[512], ipath[512];
    llm_model mf, mb, m2;
    llm_config c;
    llm_gguf g;
    llm_layer_weights layers[8];
    llm_tokenizer tok;
    llm_state s[3];
    llm_sampler greedy;
    const char *why = NULL;
    int want[300], n_want = 0, ids[300], n_ids, n_prompt = 0, pos, token, i, mismatch = -1, differ = -1;
    unsigned char *buf;
    void *mem;
    size_t n = 0;
    float *lg[3];
    FILE *f;
    sprintf(path, "%s/stories260K.gguf", test_models_dir());
    sprintf(bpath, "%s/stories260K.bin", test_models_dir());
    sprintf(tpath, "%s/synth512.bin", test_models_dir());
    sprintf(ipath, "%s/stories260K.prompt.ids", test_models_dir());
    memset(&mf, 0, sizeof mf), memset(&mb, 0, sizeof mb), memset(&m2, 0, sizeof m2), memset(&g, 0, sizeof g);
    buf = fc_read_all(path, &n, &mem);
    if (!buf || !exists(bpath) || !exists(tpath) || !(f = fopen(ipath, "r"))) {
        TEST_SKIP_SHARED(STORIES_CHECKS, "stories260K.gguf: %s, stories260K.bin, synth512.bin or the prompt ids absent", path);
        free(mem);
        return;
    }
    while (n_want < 300 && fscanf(f, "%d", &want[n_want]) == 1) n_want++;
    fclose(f);
    /* 1: the file as llama.cpp converted it, from a path and from a buffer (a big-endian
       host parses it, and refuses to load its weights) */
    {
        llm_status st = llm_gguf_load_file(&mf, path, &why);
        CHECK_MSG(fc_load_is(st, &why, LLM_OK), "stories260K.gguf: llm_gguf_load_file: %s: %s", llm_status_str(st), why);
        CHECK_OK(llm_gguf_create(&g, buf, n, &why));
        st = llm_gguf_load(&m2, &g, layers, 8, &why);
        CHECK_MSG(fc_load_is(st, &why, LLM_OK), "stories260K.gguf: llm_gguf_load: %s: %s", llm_status_str(st), why);
    }
    CHECK_OK(llm_llama2c_load_file(&mb, bpath, &why));
    CHECK(llm_gguf_read_config(&c, &g, &why) == LLM_OK && c.d_model == 64 && c.n_layers == 5 && c.n_heads == 8 &&
          c.n_kv_heads == 4 && c.d_ff == 172 && c.vocab == 512 && c.max_seq_len == 128 && g.version == 3);
    CHECK(!fc_host_le() || (mf.config.d_model == 64 && mf.config.n_layers == 5 && mf.config.n_heads == 8 &&
                            mf.config.n_kv_heads == 4 && mf.config.d_ff == 172 && mf.config.vocab == 512 &&
                            mf.config.max_seq_len == 128 && mf.file_version == 3));
    /* 2: its tokenizer metadata */
    {
        int64_t k = llm_gguf_find_key(&g, "tokenizer.ggml.tokens");
        llm_gguf_str sv;
        uint64_t cur = 0;
        int ok = k >= 0 && g.kv[k].type == LLM_GGUF_ARRAY && g.kv[k].arr_type == LLM_GGUF_STRING && g.kv[k].arr_n == 512;
        CHECK(ok);
        if (ok) {
            int first3 = llm_gguf_arr_str(&g.kv[k], &cur, &sv) == LLM_OK && str_is(sv, "<unk>");
            first3 = first3 && llm_gguf_arr_str(&g.kv[k], &cur, &sv) == LLM_OK && str_is(sv, "<s>");
            first3 = first3 && llm_gguf_arr_str(&g.kv[k], &cur, &sv) == LLM_OK && str_is(sv, "</s>");
            for (i = 3; i < 512 && llm_gguf_arr_str(&g.kv[k], &cur, &sv) == LLM_OK; i++) continue;
            CHECK(first3 && i == 512 && llm_gguf_arr_str(&g.kv[k], &cur, &sv) != LLM_OK);
        } else {
            CHECK(0);
        }
    }
    if (!fc_host_le()) { /* no weights loaded to run */
        llm_model_free(&mb);
        llm_gguf_free(&g);
        free(mem);
        return;
    }
    /* 3: run.c's greedy tokens, every one, and the llama2.c file's logits, bit for bit */
    CHECK_OK(llm_tokenizer_load_file(&tok, tpath, 512, &why));
    CHECK_OK(llm_tokenize(&tok, "Once upon a time", 1, 0, ids, 300, &n_prompt));
    CHECK_OK(llm_sampler_create(&greedy, 512, 0.0f, 0.9f, 1));
    for (i = 0; i < 3; i++) {
        llm_model *mm = i == 0 ? &mf : i == 1 ? &m2 : &mb;
        if (llm_state_create(&s[i], &mm->config, 256, 1, LLM_F32) != LLM_OK) memset(&s[i], 0, sizeof s[i]);
        lg[i] = (float *)malloc(512 * sizeof(float));
    }
    CHECK(s[0].owned && s[1].owned && s[2].owned);
    token = ids[0];
    n_ids = 1;
    for (pos = 0; pos < 256 && s[0].owned && s[1].owned && s[2].owned; pos++) {
        int next;
        if (llm_forward(&s[0], &mf.weights, &token, 1, pos, lg[0], 0, NULL) != LLM_OK ||
            llm_forward(&s[1], &m2.weights, &token, 1, pos, lg[1], 0, NULL) != LLM_OK ||
            llm_forward(&s[2], &mb.weights, &token, 1, pos, lg[2], 0, NULL) != LLM_OK) {
            differ = pos;
            break;
        }
        if (differ < 0 && (memcmp(lg[0], lg[2], 512 * sizeof(float)) || memcmp(lg[1], lg[2], 512 * sizeof(float))))
            differ = pos;
        next = pos < n_prompt - 1 ? ids[pos + 1] : llm_sample(&greedy, lg[0]);
        if (next == 1) break;
        ids[n_ids++] = next;
        token = next;
    }
    mismatch = fc_first_mismatch(ids, n_ids, want, n_want);
    CHECK(n_prompt == 12 && n_want == 257);
    CHECK_MSG(n_ids == n_want && mismatch < 0, "stories260K.gguf: %d ids, first mismatch at %d", n_ids, mismatch);
    CHECK_MSG(differ < 0, "stories260K.gguf: logits differ from stories260K.bin's from position %d", differ);
    for (i = 0; i < 3; i++) {
        if (s[i].owned) llm_state_free(&s[i]);
        free(lg[i]);
    }
    llm_sampler_free(&greedy);
    llm_tokenizer_free(&tok);
    llm_model_free(&mf);
    llm_model_free(&mb);
    llm_gguf_free(&g);
    free(mem);
}

/* relative RMS error: sqrt(mean((a - t)^2)) / sqrt(mean(t^2)) */
static double rel_rms(const float *a, const float *t, size_t n) {
    double e = 0, s = 0;
    size_t i;
    for (i = 0; i < n; i++) e += ((double)a[i] - t[i]) * ((double)a[i] - t[i]), s += (double)t[i] * t[i];
    return s > 0 ? sqrt(e / s) : 1;
}

/* The logits of ids[0..24) fed one per step from position 0 through the model in path,
   into got[24][512] (NULL: load only); *wq_type: the first layer's wq as loaded. LLM_OK or
   the first failing call's status. */
static llm_status q256_logits(const char *path, const int *ids, float *got, llm_dtype *wq_type, const char **why) {
    llm_model m;
    llm_state s;
    llm_status st;
    int i;
    st = llm_gguf_load_file(&m, path, why);
    if (st != LLM_OK) return st;
    if (m.config.vocab != 512 || m.config.d_model != 256 || m.config.n_layers != 2 || m.config.d_ff != 512 ||
        m.config.n_heads != 4 || m.config.n_kv_heads != 4 || m.config.max_seq_len != 128 || m.config.tied_embeddings) {
        *why = "not the q256 model's config";
        llm_model_free(&m);
        return LLM_EFORMAT;
    }
    *wq_type = m.weights.layers[0].wq.type;
    st = llm_state_create(&s, &m.config, 24, 1, LLM_F32);
    for (i = 0; i < 24 && st == LLM_OK; i++) st = llm_forward(&s, &m.weights, &ids[i], 1, i, got + (size_t)i * 512, 0, NULL);
    if (s.owned) llm_state_free(&s);
    llm_model_free(&m);
    return st;
}

/* ../shared/models/quant: the F32 file against its float64 truth, at most llama.cpp's own
   relative RMS error; each quantized file loads (its matrices as the file's block type)
   and runs. (How close the quantized ones come to their truth: tests/test_ggml_quants.c.) */
enum { Q256_FILES = 6, Q256_CHECKS = 3 + Q256_FILES };
static void test_q256(void) {
    static const char *const name[Q256_FILES] = {"F32", "Q8_0", "Q4_0", "Q5_0", "Q6_K", "Q4_K_M"};
    static const llm_dtype wq_want[Q256_FILES] = {LLM_F32, LLM_Q8_0, LLM_Q4_0, LLM_Q5_0, LLM_Q6_K, LLM_Q4_K};
    char path[512];
    int ids[64], n_ids = 0, i, have_ids, files_ok = 1;
    float *got, *exact, *cpp;
    void *mem_exact, *mem_cpp;
    size_t nn = (size_t)24 * 512, ne = 0, nl = 0;
    FILE *f;
    sprintf(path, "%s/quant/ids24.txt", test_models_dir());
    f = fopen(path, "r");
    have_ids = f != NULL;
    while (f && n_ids < 64 && fscanf(f, "%d", &ids[n_ids]) == 1) n_ids++;
    if (f) fclose(f);
    for (i = 0; i < Q256_FILES; i++) {
        sprintf(path, "%s/quant/q256-%s.gguf", test_models_dir(), name[i]);
        files_ok &= exists(path);
    }
    sprintf(path, "%s/quant/q256-F32.exact.f32", test_models_dir());
    exact = (float *)fc_read_all(path, &ne, &mem_exact);
    sprintf(path, "%s/quant/q256-F32.llamacpp.f32", test_models_dir());
    cpp = (float *)fc_read_all(path, &nl, &mem_cpp);
    if (!have_ids || !files_ok || !exact || !cpp) {
        TEST_SKIP_SHARED(Q256_CHECKS, "the q256 models: %s/quant, q256-F32's truth files or ids24.txt absent", test_models_dir());
        free(mem_exact), free(mem_cpp);
        return;
    }
    CHECK(n_ids == 24 && ne == nn * 4 && nl == nn * 4);
    fc_le_floats(exact, exact, ne / 4), fc_le_floats(cpp, cpp, nl / 4); /* float32 little-endian files */
    got = (float *)calloc(nn, sizeof(float));
    for (i = 0; i < Q256_FILES; i++) {
        const char *why = "";
        llm_dtype wq = LLM_DTYPE_COUNT;
        llm_status st;
        sprintf(path, "%s/quant/q256-%s.gguf", test_models_dir(), name[i]);
        st = n_ids == 24 ? q256_logits(path, ids, got, &wq, &why) : LLM_EINVAL;
        CHECK_MSG(fc_host_le() ? st == LLM_OK && wq == wq_want[i] : fc_be_refused(st, why), "q256-%s: %s: %s (wq %s)", name[i],
                  llm_status_str(st), why ? why : "", llm_dtype_name(wq) ? llm_dtype_name(wq) : "?");
        if (i == 0) {
            double e_us = 1, e_cpp = 0;
            if (ne == nn * 4 && nl == nn * 4) e_cpp = rel_rms(cpp, exact, nn);
            if (st == LLM_OK && ne == nn * 4 && nl == nn * 4) e_us = rel_rms(got, exact, nn);
            if (fc_host_le()) printf("q256-F32: relative RMS error vs the float64 truth: llm.h %.3g, llama.cpp %.3g\n", e_us, e_cpp);
            else printf("q256-F32: relative RMS error vs the float64 truth: llama.cpp %.3g (big-endian host: not loaded)\n", e_cpp);
            /* measured: llm.h 1.95e-7 (fp32 weights, sums and KV cache; 5.0e-7 scalar),
               llama.cpp 5.6e-4 (8-bit activations, f16 KV cache) */
            if (fc_host_le()) CHECK_MSG(e_us <= e_cpp, "q256-F32: llm.h %.3g vs llama.cpp %.3g", e_us, e_cpp);
            CHECK(fabs(e_cpp - 5.6e-4) < 0.05e-4); /* the README's figure: the truth files are what they say */
        }
    }
    free(got), free(mem_exact), free(mem_cpp);
}

/* NULLs and nonsense arguments: a status, never a crash. */
static void test_bad_args(void) {
    gw w;
    llm_gguf g;
    llm_model m;
    llm_layer_weights layers[2];
    uint64_t mem[32];
    const char *why = NULL;
    int64_t iv;
    memset(&g, 0, sizeof g);
    write_base(&w);
    gw_finish(&w);
    CHECK(llm_gguf_bytes(NULL, 100) == 0 && llm_gguf_bytes(w.p, 3) == 0);
    CHECK(llm_gguf_init(NULL, mem, sizeof mem, w.p, w.n, &why) == LLM_EINVAL);
    CHECK(llm_gguf_init(&g, NULL, sizeof mem, w.p, w.n, &why) != LLM_OK);
    CHECK(llm_gguf_init(&g, mem, 8, w.p, w.n, &why) != LLM_OK); /* too little memory for the tables */
    CHECK(llm_gguf_init(&g, mem, sizeof mem, NULL, w.n, &why) != LLM_OK);
    CHECK(llm_gguf_create(NULL, w.p, w.n, &why) == LLM_EINVAL);
    CHECK(llm_gguf_create(&g, w.p, w.n, NULL) == LLM_OK); /* why may be NULL */
    CHECK(llm_gguf_find_key(NULL, "x") == -1 && llm_gguf_find_key(&g, NULL) == -1);
    CHECK(llm_gguf_find_tensor(NULL, "a.weight") == NULL && llm_gguf_find_tensor(&g, NULL) == NULL);
    CHECK(llm_gguf_get_int(NULL, "llama.block_count", &iv) != LLM_OK);
    CHECK(llm_gguf_get_int(&g, "llama.block_count", NULL) == LLM_EINVAL);
    CHECK(llm_gguf_arr_int(NULL, 0, &iv) == LLM_EINVAL);
    CHECK(llm_gguf_load(NULL, &g, layers, 2, &why) == LLM_EINVAL && llm_gguf_load(&m, NULL, layers, 2, &why) == LLM_EINVAL);
    CHECK(llm_gguf_load(&m, &g, NULL, 2, &why) != LLM_OK);
    CHECK(llm_gguf_load_file(&m, "/nonexistent/x.gguf", &why) == LLM_EIO);
    llm_gguf_free(&g);
    llm_gguf_free(NULL);
    gw_free(&w);
}

/* ---- the other architectures: a tiny model of each under its own GGUF names ----------- */

/* What each file means, from llama.cpp's converter (convert_hf_to_gguf.py) and loader
   (llama-model.cpp), written out here: the config the loader must read, and the names. */
typedef struct arch_case {
    const char *arch;
    llm_config c;
} arch_case;
enum { AT = 24 }; /* tokens per run: past each window below */
static llm_config arch_config(const char *arch) {
    llm_config c = llm_config_default();
    c.d_model = 32, c.n_layers = 2, c.n_heads = 4, c.n_kv_heads = 2, c.d_ff = 64, c.vocab = 40, c.max_seq_len = 64;
    c.norm_eps = 1e-6f, c.rope_theta = 20000.0f, c.rope_layout = LLM_ROPE_HALVES; /* NEOX pairs */
    if (!strcmp(arch, "qwen2")) c.bias = LLM_BIAS_QKV, c.tied_embeddings = 1;
    if (!strcmp(arch, "qwen3")) c.qk_norm = 1, c.head_dim = 16; /* key_length 16 != 32 / 4 */
    if (!strncmp(arch, "gemma", 5)) {
        c.ffn = LLM_FFN_GEGLU, c.tied_embeddings = 1, c.n_kv_heads = 1, c.head_dim = 16;
        c.embed_scale = sqrtf(32.0f);
    }
    if (!strcmp(arch, "gemma2")) {
        c.sandwich_norm = 1, c.attn_softcap = 1.5f, c.final_softcap = 8.0f, c.sliding_window = 5, c.window_pattern = 2;
        c.n_kv_heads = 2;
    }
    if (!strcmp(arch, "phi3")) c.n_kv_heads = 4, c.sliding_window = 7;
    return c;
}

/* rows [a; b; c] of cols each (a fused tensor) in a malloc'd array */
static float *cat3(const float *a, int64_t ra, const float *b, int64_t rb, const float *c, int64_t rc, int64_t cols) {
    float *p = (float *)malloc(sizeof(float) * (size_t)((ra + rb + rc) * cols));
    memcpy(p, a, sizeof(float) * (size_t)(ra * cols));
    memcpy(p + ra * cols, b, sizeof(float) * (size_t)(rb * cols));
    if (rc) memcpy(p + (ra + rb) * cols, c, sizeof(float) * (size_t)(rc * cols));
    return p;
}

/* The GGUF of m under arch's names (F32), keys as llama.cpp writes them. fused[] keeps
   the concatenated arrays until the caller frees them. */
static void arch_write(gw *w, gw_names *nm, const char *arch, const rnd_model *m, float **fused) {
    const llm_config *c = &m->c;
    char key[96];
    uint64_t d = (uint64_t)c->d_model, hd = (uint64_t)hdim(c), q = hd * (uint64_t)c->n_heads, kv = hd * (uint64_t)c->n_kv_heads;
    uint64_t ff = (uint64_t)c->d_ff, ne[2];
    int l, k = 0, nf = 0;
#define AK(suffix) (snprintf(key, sizeof key, "%s.%s", arch, suffix), key)
#define AN(...) (snprintf(nm->s[k], sizeof nm->s[k], __VA_ARGS__), nm->s[k++])
#define AV(n0, x) (ne[0] = (n0), gw_tensor_f(w, name, 1, ne, GW_F32, x))
#define AM(n0, n1, x) (ne[0] = (n0), ne[1] = (n1), gw_tensor_f(w, name, 2, ne, GW_F32, x))
    gw_init(w);
    gw_kv_str(w, "general.architecture", arch);
    gw_kv_u32(w, AK("context_length"), (uint32_t)c->max_seq_len);
    gw_kv_u32(w, AK("embedding_length"), (uint32_t)d);
    gw_kv_u32(w, AK("feed_forward_length"), (uint32_t)ff);
    gw_kv_u32(w, AK("block_count"), (uint32_t)c->n_layers);
    gw_kv_u32(w, AK("attention.head_count"), (uint32_t)c->n_heads);
    gw_kv_u32(w, AK("attention.head_count_kv"), (uint32_t)c->n_kv_heads);
    gw_kv_f32(w, AK("attention.layer_norm_rms_epsilon"), c->norm_eps);
    gw_kv_f32(w, AK("rope.freq_base"), c->rope_theta);
    gw_kv_u32(w, AK("rope.dimension_count"), (uint32_t)hd);
    if (c->head_dim) gw_kv_u32(w, AK("attention.key_length"), (uint32_t)hd), gw_kv_u32(w, AK("attention.value_length"), (uint32_t)hd);
    if (c->sliding_window) gw_kv_u32(w, AK("attention.sliding_window"), (uint32_t)c->sliding_window);
    if (c->attn_softcap > 0) gw_kv_f32(w, AK("attn_logit_softcapping"), c->attn_softcap);
    if (c->final_softcap > 0) gw_kv_f32(w, AK("final_logit_softcapping"), c->final_softcap);
    if (!strcmp(arch, "phi3")) gw_kv_u32(w, AK("rope.scaling.original_context_length"), (uint32_t)c->max_seq_len);
    {
        const char *name;
        ne[1] = (uint64_t)c->vocab;
        name = AN("token_embd.weight"), AM(d, (uint64_t)c->vocab, m->emb);
        name = AN("output_norm.weight"), AV(d, m->onorm);
        if (!c->tied_embeddings) name = AN("output.weight"), AM(d, (uint64_t)c->vocab, m->head);
        for (l = 0; l < c->n_layers; l++) {
            const rnd_layer *L0 = &m->l[l];
            name = AN("blk.%d.attn_norm.weight", l), AV(d, L0->an);
            if (!strcmp(arch, "phi3")) { /* q, k, v rows in one matrix; gate, then up */
                fused[nf] = cat3(L0->wq, (int64_t)q, L0->wk, (int64_t)kv, L0->wv, (int64_t)kv, (int64_t)d);
                name = AN("blk.%d.attn_qkv.weight", l), AM(d, q + 2 * kv, fused[nf++]);
                fused[nf] = cat3(L0->w1, (int64_t)ff, L0->w3, (int64_t)ff, NULL, 0, (int64_t)d);
                name = AN("blk.%d.ffn_up.weight", l), AM(d, 2 * ff, fused[nf++]);
            } else {
                name = AN("blk.%d.attn_q.weight", l), AM(d, q, L0->wq);
                name = AN("blk.%d.attn_k.weight", l), AM(d, kv, L0->wk);
                name = AN("blk.%d.attn_v.weight", l), AM(d, kv, L0->wv);
                name = AN("blk.%d.ffn_gate.weight", l), AM(d, ff, L0->w1);
                name = AN("blk.%d.ffn_up.weight", l), AM(d, ff, L0->w3);
            }
            if (c->bias == LLM_BIAS_QKV) {
                name = AN("blk.%d.attn_q.bias", l), AV(q, L0->bq);
                name = AN("blk.%d.attn_k.bias", l), AV(kv, L0->bk);
                name = AN("blk.%d.attn_v.bias", l), AV(kv, L0->bv);
            }
            if (c->qk_norm) {
                name = AN("blk.%d.attn_q_norm.weight", l), AV(hd, L0->qn);
                name = AN("blk.%d.attn_k_norm.weight", l), AV(hd, L0->kn);
            }
            name = AN("blk.%d.attn_output.weight", l), AM(q, d, L0->wo);
            /* Gemma: the converter stored 1 + w; these gains are what the model multiplies by */
            name = AN("blk.%d.ffn_norm.weight", l), AV(d, L0->fn);
            name = AN("blk.%d.ffn_down.weight", l), AM(ff, d, L0->w2);
            if (c->sandwich_norm) {
                name = AN("blk.%d.post_attention_norm.weight", l), AV(d, L0->pan);
                name = AN("blk.%d.post_ffw_norm.weight", l), AV(d, L0->pfn);
            }
        }
    }
#undef AK
#undef AN
#undef AV
#undef AM
}

/* worst |a - r| / (1 + |r|) */
static double arch_err(const float *a, const double *r, size_t n) {
    double e = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = fabs(a[i] - r[i]) / (1 + fabs(r[i]));
        if (!(x <= e)) e = x;
    }
    return e;
}

/* loads the finished file; the status, the model in m / layers */
static llm_status arch_load(gw *w, llm_model *m, llm_layer_weights *layers, unsigned char **buf, llm_gguf *g, const char **why) {
    return load_gw(w, m, layers, 4, buf, g, why);
}

static void test_arch(const char *arch, double tol) {
    rnd_model m;
    llm_config c = arch_config(arch);
    gw w;
    gw_names nm;
    float *fused[8] = {0}, *got, *direct;
    double *ref, e;
    llm_layer_weights layers[4];
    llm_model lm;
    llm_gguf g;
    llm_state s;
    unsigned char *buf;
    const char *why;
    int toks[AT], t, i;
    size_t n = (size_t)AT * (size_t)c.vocab;
    llm_status st;
    rnd_model_make(&m, &c);
    for (t = 0; t < AT; t++) toks[t] = (t * 7 + 3) % c.vocab;
    got = (float *)malloc(n * sizeof *got), direct = (float *)malloc(n * sizeof *direct);
    ref = (double *)malloc(n * sizeof *ref);
    arch_write(&w, &nm, arch, &m, fused);
    st = arch_load(&w, &lm, layers, &buf, &g, &why);
    CHECK_MSG(fc_load_is(st, &why, LLM_OK), "%s: llm_gguf_load: %s: %s", arch, llm_status_str(st), why ? why : "");
    if (st == LLM_OK) {
        const llm_config *k = &lm.config;
        CHECK_MSG(k->d_model == c.d_model && k->n_layers == c.n_layers && k->n_heads == c.n_heads && k->n_kv_heads == c.n_kv_heads &&
                      llm_config_head_dim(k) == hdim(&c) && k->d_ff == c.d_ff && k->vocab == c.vocab && k->norm_eps == c.norm_eps &&
                      k->rope_theta == c.rope_theta && k->rope_layout == c.rope_layout && k->ffn == c.ffn && k->bias == c.bias &&
                      k->qk_norm == c.qk_norm && k->sandwich_norm == c.sandwich_norm && k->embed_scale == c.embed_scale &&
                      k->attn_scale == c.attn_scale && k->attn_softcap == c.attn_softcap && k->final_softcap == c.final_softcap &&
                      k->sliding_window == c.sliding_window && k->window_pattern == c.window_pattern &&
                      k->tied_embeddings == c.tied_embeddings && k->rotary_dim == 0,
                  "%s: the config read differs from the file's", arch);
        CHECK_OK(llm_state_create(&s, &lm.config, AT, AT, LLM_F32));
        CHECK_OK(llm_forward(&s, &lm.weights, toks, AT, 0, got, 1, NULL));
        llm_state_free(&s);
        /* the same arrays given directly: the same arithmetic, the same bits */
        CHECK_OK(llm_state_create(&s, &c, AT, AT, LLM_F32));
        CHECK_OK(llm_forward(&s, &m.w, toks, AT, 0, direct, 1, NULL));
        llm_state_free(&s);
        CHECK_MSG(memcmp(got, direct, n * sizeof *got) == 0, "%s: the loaded model's logits differ from its arrays given directly", arch);
        ref_forward(&m, toks, AT, ref);
        e = arch_err(got, ref, n);
        if (getenv("LLM_TEST_VERBOSE")) printf("  gguf %-8s vs the double reference: %.2g (tol %.2g)\n", arch, e, tol);
        CHECK_MSG(e <= tol, "%s: logits vs the double reference: %.3g > %.3g", arch, e, tol);
    }
    llm_gguf_free(&g);
    free(buf);
    gw_free(&w);
    for (i = 0; i < 8; i++) free(fused[i]);
    free(got), free(direct), free(ref);
    rnd_model_free(&m);
}

/* Each architecture's file with one thing changed: refused with the status and the name. */
typedef void (*arch_edit)(gw *w, const char *arch);
static void ae_skip_qk(gw *w, const char *a) { (void)a, w->t[gw_find(w, "blk.1.attn_k_norm.weight")].skip = 1; }
static void ae_skip_post(gw *w, const char *a) { (void)a, w->t[gw_find(w, "blk.0.post_ffw_norm.weight")].skip = 1; }
static void ae_skip_bias(gw *w, const char *a) { (void)a, w->t[gw_find(w, "blk.1.attn_v.bias")].skip = 1; }
static void ae_qkv_shape(gw *w, const char *a) { /* rows q + kv: as if the v rows were gone */
    gw_tensor *t = &w->t[gw_find(w, "blk.0.attn_qkv.weight")];
    (void)a, t->ne[1] = 64, t->data = NULL, t->data_n = 0;
}
static void ae_up_shape(gw *w, const char *a) { /* ff rows: the gate alone */
    gw_tensor *t = &w->t[gw_find(w, "blk.1.ffn_up.weight")];
    (void)a, t->ne[1] = 64, t->data = NULL, t->data_n = 0;
}
static void ae_longrope(gw *w, const char *a) {
    static const float f[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    uint64_t ne[1] = {4};
    (void)a;
    gw_tensor_add(w, "rope_factors_long.weight", 1, ne, GW_F32, f, sizeof f);
    gw_tensor_add(w, "rope_factors_short.weight", 1, ne, GW_F32, f, sizeof f);
}
static void ae_attn_factor(gw *w, const char *a) { (void)a, gw_kv_f32(w, "phi3.rope.scaling.attn_factor", 1.19f); }
static void ae_yarn(gw *w, const char *a) {
    char k[64];
    snprintf(k, sizeof k, "%s.rope.scaling.type", a);
    gw_kv_str(w, k, "yarn");
}
static void ae_value_len(gw *w, const char *a) { (void)a, gw_kv_u32(w, "phi3.attention.value_length", 4); }
static void ae_extra_qk(gw *w, const char *a) { /* a q/k norm in a family that has none */
    static const float f[16] = {1};
    uint64_t ne[1] = {8};
    (void)a;
    gw_tensor_add(w, "blk.0.attn_q_norm.weight", 1, ne, GW_F32, f, sizeof f);
}
static void ae_softcap_int(gw *w, const char *a) { (void)a, gw_kv_u32(w, "qwen2.final_logit_softcapping", 30); }
static void expect_arch(const char *arch, arch_edit edit, llm_status want, const char *name, const char *what) {
    rnd_model m;
    llm_config c = arch_config(arch);
    gw w;
    gw_names nm;
    float *fused[8] = {0};
    llm_layer_weights layers[4];
    llm_model lm;
    llm_gguf g;
    unsigned char *buf;
    const char *why;
    llm_status st;
    int i;
    rnd_model_make(&m, &c);
    arch_write(&w, &nm, arch, &m, fused);
    edit(&w, arch);
    st = arch_load(&w, &lm, layers, &buf, &g, &why);
    /* (a big-endian host refuses any weights first, saying so) */
    CHECK_MSG((st == want && why && *why && (!name || fc_mentions(why, name))) || (!fc_host_le() && fc_be_refused(st, why)),
              "%s %s: %s (want %s naming %s): %s", arch, what,
              llm_status_str(st), llm_status_str(want), name ? name : "-", why ? why : "(null)");
    llm_gguf_free(&g);
    free(buf);
    gw_free(&w);
    for (i = 0; i < 8; i++) free(fused[i]);
    rnd_model_free(&m);
}
/* Q8_0 (ggml-common.h's block_q8_0: an f16 scale d, then 32 int8 q; x = d q) of n values */
static unsigned char *q8_0_encode(const float *x, size_t n) {
    unsigned char *p = (unsigned char *)malloc(n / 32 * 34);
    size_t b, i;
    for (b = 0; b < n / 32; b++) {
        float amax = 0, d, id;
        uint16_t h;
        for (i = 0; i < 32; i++) amax = fabsf(x[b * 32 + i]) > amax ? fabsf(x[b * 32 + i]) : amax;
        d = amax / 127.0f, id = d > 0 ? 1.0f / d : 0.0f;
        h = llm_f32_to_f16(d);
        p[b * 34] = (unsigned char)(h & 0xff), p[b * 34 + 1] = (unsigned char)(h >> 8);
        for (i = 0; i < 32; i++) p[b * 34 + 2 + i] = (unsigned char)(signed char)lrintf(x[b * 32 + i] * id);
    }
    return p;
}
/* Phi-3's fused tensors in a block format: the loader's split by rows (34 bytes per row
   of 32) must give the matrices the test cuts out of the same bytes itself. */
static void test_phi3_q8(void) {
    rnd_model m;
    llm_config c = arch_config("phi3");
    gw w;
    gw_names nm;
    float *fused[8] = {0}, *got, *direct;
    unsigned char *q[4] = {0}, *buf;
    llm_layer_weights layers[4], dl[2];
    llm_weights dw;
    llm_model lm;
    llm_gguf g;
    llm_state s;
    const char *why;
    int toks[AT], t, l, i;
    size_t n = (size_t)AT * (size_t)c.vocab, row = 34; /* d = 32: one block per row */
    llm_status st;
    rnd_model_make(&m, &c);
    for (t = 0; t < AT; t++) toks[t] = (t * 5 + 1) % c.vocab;
    arch_write(&w, &nm, "phi3", &m, fused);
    dw = m.w;
    memcpy(dl, m.lw, sizeof dl);
    for (l = 0; l < 2; l++) {
        char name[48];
        int k;
        for (k = 0; k < 2; k++) {
            int64_t rows = k == 0 ? 96 : 128; /* q + 2 kv = 32 + 64; 2 ff */
            gw_tensor *tt;
            snprintf(name, sizeof name, k == 0 ? "blk.%d.attn_qkv.weight" : "blk.%d.ffn_up.weight", l);
            tt = &w.t[gw_find(&w, name)];
            q[2 * l + k] = q8_0_encode(fused[2 * l + k], (size_t)rows * 32);
            tt->type = GW_Q8_0, tt->data = q[2 * l + k], tt->data_n = (size_t)rows * row;
        }
        dl[l].wq.type = dl[l].wk.type = dl[l].wv.type = dl[l].w1.type = dl[l].w3.type = LLM_Q8_0;
        dl[l].wq.data = q[2 * l], dl[l].wk.data = q[2 * l] + 32 * row, dl[l].wv.data = q[2 * l] + 64 * row;
        dl[l].w1.data = q[2 * l + 1], dl[l].w3.data = q[2 * l + 1] + 64 * row;
    }
    dw.layers = dl;
    got = (float *)malloc(n * sizeof *got), direct = (float *)malloc(n * sizeof *direct);
    st = arch_load(&w, &lm, layers, &buf, &g, &why);
    CHECK_MSG(fc_load_is(st, &why, LLM_OK), "phi3 Q8_0: %s: %s", llm_status_str(st), why ? why : "");
    if (st == LLM_OK) {
        CHECK(layers[1].wv.type == LLM_Q8_0 && layers[1].w3.type == LLM_Q8_0);
        CHECK_OK(llm_state_create(&s, &lm.config, AT, AT, LLM_F32));
        CHECK_OK(llm_forward(&s, &lm.weights, toks, AT, 0, got, 1, NULL));
        llm_state_free(&s);
        CHECK_OK(llm_state_create(&s, &c, AT, AT, LLM_F32));
        CHECK_OK(llm_forward(&s, &dw, toks, AT, 0, direct, 1, NULL));
        llm_state_free(&s);
        CHECK_MSG(memcmp(got, direct, n * sizeof *got) == 0, "phi3 Q8_0: the loader's split differs from the rows cut here");
    }
    llm_gguf_free(&g);
    free(buf);
    gw_free(&w);
    for (i = 0; i < 8; i++) free(fused[i]);
    for (i = 0; i < 4; i++) free(q[i]);
    free(got), free(direct);
    rnd_model_free(&m);
}

static void test_archs(void) {
    /* tolerances: 10x the worst relative logit error over the native (AVX-512), scalar and AVX2 builds */
    test_arch("qwen2", 4e-5);    /* measured 3.9e-6 */
    test_arch("qwen3", 2e-5);    /* measured 2.0e-6 */
    test_arch("gemma", 1.4e-5);  /* measured 1.4e-6 */
    test_arch("gemma2", 1.9e-5); /* measured 1.9e-6 */
    test_arch("phi3", 1.3e-5);   /* measured 1.3e-6 */
    test_phi3_q8();
    expect_arch("qwen3", ae_skip_qk, LLM_EFORMAT, "blk.1.attn_k_norm.weight", "without a k norm");
    expect_arch("gemma2", ae_skip_post, LLM_EFORMAT, "blk.0.post_ffw_norm.weight", "without a post-FFN norm");
    expect_arch("qwen2", ae_skip_bias, LLM_EFORMAT, "blk.1.attn_v.bias", "without a v bias");
    expect_arch("phi3", ae_qkv_shape, LLM_EFORMAT, "blk.0.attn_qkv.weight", "attn_qkv of q + kv rows");
    expect_arch("phi3", ae_up_shape, LLM_EFORMAT, "blk.1.ffn_up.weight", "ffn_up of ff rows (not gate + up)");
    expect_arch("phi3", ae_longrope, LLM_EUNSUPPORTED, "LongRoPE", "with rope_factors_long / _short");
    expect_arch("phi3", ae_attn_factor, LLM_EUNSUPPORTED, "phi3.rope.scaling.attn_factor", "with rope.scaling.attn_factor");
    expect_arch("qwen2", ae_yarn, LLM_EUNSUPPORTED, "qwen2.rope.scaling.type", "with rope.scaling.type yarn");
    expect_arch("gemma", ae_extra_qk, LLM_EUNSUPPORTED, "blk.0.attn_q_norm.weight", "with a q norm gemma has not");
    expect_arch("qwen2", ae_softcap_int, LLM_EFORMAT, "qwen2.final_logit_softcapping", "with an integer softcap");
    expect_arch("phi3", ae_value_len, LLM_EUNSUPPORTED, "phi3.attention.value_length", "with value_length 4 != key length 8");
}

int main(void) {
    test_names();
    test_all_types(3);
    test_all_types(2);
    test_layouts();
    test_lookups();
    test_hostile();
    test_model(GW_F32, 1);
    test_model(GW_F32, 0);
    test_model(GW_F16, 1);
    test_model(GW_F16, 0);
    test_model(GW_BF16, 1);
    test_model(GW_BF16, 0);
    test_refusals();
    test_archs();
    test_bad_args();
    test_stories();
    test_q256();
    return test_done();
}
