/* >>generation: chat templates, stop strings and the end-of-generation set.

   Templates: each family renders a fixed conversation (a system turn, then user /
   assistant / user) to the exact text its Hugging Face Jinja template prints. The expected
   strings below were worked out by hand from the templates (the files in
   ../shared/vocab for llama3, Qwen 3 and the first Phi-3; Meta's Llama-2-chat, Mistral
   7B v0.1 and v0.3, Google's Gemma 3 and Microsoft's Phi-3.5 tokenizer_config.json
   templates as their model repositories publish them), then checked byte for byte
   against Jinja2 3.1.6 rendering those templates with the settings transformers'
   apply_chat_template uses (trim_blocks, lstrip_blocks): all agreed. The turns carry
   white space at their ends so each template's trim / strip shows.
   Stop strings: every way of cutting a text into two and three pieces, and byte by byte,
   against a brute-force reference of what may be shown.
   The end-of-generation set: ids read from the real llama3 / Qwen vocabularies (the
   expected ids were read from the files with a separate Python GGUF reader) and from
   GGUF files written here. */
#include "llm.h"
#include "test.h"
#include "gguf_writer.h"

static const llm_chat_msg CONV[] = {
    {"system", "You are a helpful assistant."},
    {"user", "Hello! "},
    {"assistant", " Hi there.\n"},
    {"user", "Tell me a joke."},
};

/* render t on msgs and compare with want, byte for byte */
static void expect_render(const llm_chat_template *t, const llm_chat_msg *m, int n, int gen, const char *want,
                          const char *what) {
    char out[1024];
    size_t len = 0;
    llm_status st = llm_chat_render(t, m, n, gen, NULL, NULL, out, sizeof out, &len);
    CHECK_MSG(st == LLM_OK && len == strlen(want) && memcmp(out, want, len) == 0 && out[len] == 0,
              "%s (gen %d): status %s, got [%.*s] want [%s]", what, gen, llm_status_str(st), (int)len, out, want);
}

static void named(llm_chat_template *t, const char *name) {
    CHECK_OK(llm_chat_template_named(t, name));
}

static void test_templates(void) {
    llm_chat_template t;
    /* llama3 as Meta's Instruct template has it (the generation prompt when asked) */
    named(&t, "llama3");
    expect_render(&t, CONV, 4, 1,
                  "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.<|eot_id|>"
                  "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
                  "<|start_header_id|>assistant<|end_header_id|>\n\nHi there.<|eot_id|>"
                  "<|start_header_id|>user<|end_header_id|>\n\nTell me a joke.<|eot_id|>"
                  "<|start_header_id|>assistant<|end_header_id|>\n\n",
                  "llama3");
    expect_render(&t, CONV, 4, 0,
                  "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.<|eot_id|>"
                  "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
                  "<|start_header_id|>assistant<|end_header_id|>\n\nHi there.<|eot_id|>"
                  "<|start_header_id|>user<|end_header_id|>\n\nTell me a joke.<|eot_id|>",
                  "llama3");
    /* chatml: content as given, no trim */
    named(&t, "chatml");
    expect_render(&t, CONV, 4, 1,
                  "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello! <|im_end|>\n"
                  "<|im_start|>assistant\n Hi there.\n<|im_end|>\n<|im_start|>user\nTell me a joke.<|im_end|>\n"
                  "<|im_start|>assistant\n",
                  "chatml");
    /* Qwen 3: the same here (the assistant turn is before the last user query) */
    named(&t, "qwen3");
    expect_render(&t, CONV, 4, 0,
                  "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello! <|im_end|>\n"
                  "<|im_start|>assistant\n Hi there.\n<|im_end|>\n<|im_start|>user\nTell me a joke.<|im_end|>\n",
                  "qwen3");
    {
        /* Qwen 3's <think> rule: reasoning dropped before the last query, kept (or an empty
           block written) after it */
        const llm_chat_msg a[] = {{"user", "Hi"}, {"assistant", "<think>\nreason\n</think>\n\nHello."}, {"user", "More?"}};
        const llm_chat_msg b[] = {{"user", "Hi"}, {"assistant", "Hello."}};
        expect_render(&t, a, 3, 1,
                      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello.<|im_end|>\n"
                      "<|im_start|>user\nMore?<|im_end|>\n<|im_start|>assistant\n",
                      "qwen3 think before the query");
        expect_render(&t, a, 2, 0,
                      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nreason\n</think>\n\nHello.<|im_end|>\n",
                      "qwen3 think after the query");
        expect_render(&t, b, 2, 0,
                      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello.<|im_end|>\n",
                      "qwen3 empty think");
    }
    /* gemma (Gemma 3): the system text opens the first user turn; assistant is "model" */
    named(&t, "gemma");
    expect_render(&t, CONV, 4, 1,
                  "<bos><start_of_turn>user\nYou are a helpful assistant.\n\nHello!<end_of_turn>\n"
                  "<start_of_turn>model\nHi there.<end_of_turn>\n<start_of_turn>user\nTell me a joke.<end_of_turn>\n"
                  "<start_of_turn>model\n",
                  "gemma");
    /* phi3 (Phi-3.5): eos_token closes the text when no generation prompt is asked */
    named(&t, "phi3");
    expect_render(&t, CONV, 4, 1,
                  "<|system|>\nYou are a helpful assistant.<|end|>\n<|user|>\nHello! <|end|>\n<|assistant|>\n Hi there.\n"
                  "<|end|>\n<|user|>\nTell me a joke.<|end|>\n<|assistant|>\n",
                  "phi3");
    expect_render(&t, CONV, 4, 0,
                  "<|system|>\nYou are a helpful assistant.<|end|>\n<|user|>\nHello! <|end|>\n<|assistant|>\n Hi there.\n"
                  "<|end|>\n<|user|>\nTell me a joke.<|end|>\n<|endoftext|>",
                  "phi3");
    /* llama2: <<SYS>> inside the first [INST]; strip() of the whole content */
    named(&t, "llama2");
    expect_render(&t, CONV, 4, 1,
                  "<s>[INST] <<SYS>>\nYou are a helpful assistant.\n<</SYS>>\n\nHello! [/INST] Hi there. </s>"
                  "<s>[INST] Tell me a joke. [/INST]",
                  "llama2");
    /* mistral-v3: the system text moves to the last user turn; no space before [/INST] */
    named(&t, "mistral-v3");
    expect_render(&t, CONV, 4, 1,
                  "<s>[INST] Hello! [/INST] Hi there.</s>[INST] You are a helpful assistant.\n\nTell me a joke.[/INST]",
                  "mistral-v3");
    /* mistral-v1 (v0.1): no system role; content untrimmed; a space after </s> */
    named(&t, "mistral-v1");
    expect_render(&t, CONV + 1, 3, 1, "<s>[INST] Hello!  [/INST] Hi there.\n</s> [INST] Tell me a joke. [/INST]",
                  "mistral-v1");
    CHECK(llm_chat_render(&t, CONV, 4, 1, NULL, NULL, NULL, 0, &(size_t){0}) == LLM_EINVAL);
    /* the vocabulary's own BOS / EOS texts replace the defaults */
    {
        char out[256];
        size_t len;
        named(&t, "llama2");
        CHECK_OK(llm_chat_render(&t, CONV + 1, 2, 1, "<B>", "<E>", out, sizeof out, &len));
        CHECK(strcmp(out, "<B>[INST] Hello! [/INST] Hi there. <E>") == 0);
    }
}

/* The first Phi-3 template, as ../shared's phi-3 vocabulary carries it: no system role
   (dropped), BOS, and the assistant's turn opened after every user turn */
static void test_phi3_first(const llm_chat_template *t) {
    CHECK(t->kind == LLM_CHAT_PHI3 && (t->flags & LLM_CHAT_NO_SYSTEM) && (t->flags & LLM_CHAT_ALWAYS_GEN));
    expect_render(t, CONV, 4, 0,
                  "<s><|user|>\nHello! <|end|>\n<|assistant|>\n Hi there.\n<|end|>\n<|user|>\nTell me a joke.<|end|>\n"
                  "<|assistant|>\n",
                  "first phi3");
}

static void test_render_args(void) {
    llm_chat_template t;
    char out[512];
    size_t len = 0, need;
    named(&t, "chatml");
    /* the size query, and a buffer one byte short (the NUL) */
    CHECK(llm_chat_render(&t, CONV, 4, 1, NULL, NULL, NULL, 0, &need) == LLM_ERANGE);
    CHECK(llm_chat_render(&t, CONV, 4, 1, NULL, NULL, out, need, &len) == LLM_ERANGE && len == need);
    CHECK_OK(llm_chat_render(&t, CONV, 4, 1, NULL, NULL, out, need + 1, &len));
    CHECK(len == need && out[len] == 0 && strlen(out) == need);
    {
        const llm_chat_msg bad_role[] = {{NULL, "x"}}, no_content[] = {{"user", NULL}}, tool[] = {{"tool", "x"}};
        const llm_chat_msg two_users[] = {{"user", "a"}, {"user", "b"}}, late_sys[] = {{"user", "a"}, {"system", "b"}};
        CHECK(llm_chat_render(&t, bad_role, 1, 1, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        CHECK(llm_chat_render(&t, no_content, 1, 1, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        CHECK_OK(llm_chat_render(&t, tool, 1, 0, NULL, NULL, out, sizeof out, &len)); /* chatml: any role */
        CHECK(strcmp(out, "<|im_start|>tool\nx<|im_end|>\n") == 0);
        CHECK_OK(llm_chat_render(&t, two_users, 2, 0, NULL, NULL, out, sizeof out, &len));
        named(&t, "llama2");
        CHECK(llm_chat_render(&t, two_users, 2, 0, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        CHECK(llm_chat_render(&t, late_sys, 2, 0, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        CHECK(llm_chat_render(&t, tool, 1, 0, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        named(&t, "gemma");
        CHECK(llm_chat_render(&t, two_users, 2, 0, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        CHECK(llm_chat_render(&t, CONV, -1, 0, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        CHECK(llm_chat_render(NULL, CONV, 1, 0, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
        /* no turns: just the opening */
        CHECK_OK(llm_chat_render(&t, NULL, 0, 1, NULL, NULL, out, sizeof out, &len));
        CHECK(strcmp(out, "<bos><start_of_turn>model\n") == 0);
        /* llama2 with blank user text: strip() reaches back into the <<SYS>> block */
        {
            const llm_chat_msg blank[] = {{"system", "S"}, {"user", "  \n"}};
            named(&t, "llama2");
            CHECK_OK(llm_chat_render(&t, blank, 2, 1, NULL, NULL, out, sizeof out, &len));
            CHECK(strcmp(out, "<s>[INST] <<SYS>>\nS\n<</SYS>> [/INST]") == 0);
        }
    }
    memset(&t, 0, sizeof t);
    CHECK(llm_chat_render(&t, CONV, 4, 1, NULL, NULL, out, sizeof out, &len) == LLM_EINVAL);
    CHECK(llm_chat_template_named(&t, "vicuna") == LLM_ENOTFOUND && strstr(t.why, "vicuna"));
}

/* Detection from template texts: the signature pieces of each family, then an unknown. */
static void expect_detect(const char *jinja, llm_chat_kind kind, unsigned flags) {
    llm_chat_template t;
    llm_status st = llm_chat_template_detect(&t, jinja, strlen(jinja));
    CHECK_MSG(st == LLM_OK && t.kind == kind && t.flags == flags, "detect [%.60s]: %s, kind %s flags %u (want %s %u)",
              jinja, llm_status_str(st), llm_chat_kind_name(t.kind), t.flags, llm_chat_kind_name(kind), flags);
}

static void test_detect(void) {
    llm_chat_template t;
    const char *other = "{% for m in messages %}### {{ m['role'] }}:\n{{ m['content'] }}\n{% endfor %}";
    expect_detect("{{ bos_token }}...'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'... "
                  "{% if add_generation_prompt %}",
                  LLM_CHAT_LLAMA3, 0);
    expect_detect("{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
                  "{% if add_generation_prompt %}",
                  LLM_CHAT_CHATML, 0);
    expect_detect("{{ bos_token }}{{ '<start_of_turn>' + role + '\n' }}{% if add_generation_prompt %}", LLM_CHAT_GEMMA, 0);
    expect_detect("{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{{'<|user|>\n'}}{% if add_generation_prompt %}",
                  LLM_CHAT_PHI3, LLM_CHAT_NO_BOS);
    expect_detect("{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}'<<SYS>>\\n'", LLM_CHAT_LLAMA2, 0);
    expect_detect("{{- bos_token }}{{- \"[INST] \" + message[\"content\"] + \"[/INST]\" }}", LLM_CHAT_MISTRAL_V3, 0);
    expect_detect("{{ bos_token }}{{ '[INST] ' + message['content'] + ' [/INST]' }}{{ message['content'] + eos_token + ' ' }}",
                  LLM_CHAT_MISTRAL_V1, LLM_CHAT_EOS_SPACE);
    expect_detect("{{ bos_token }}{{ '[INST] ' + message['content'] + ' [/INST]' }}{{ message['content'] + eos_token}}",
                  LLM_CHAT_MISTRAL_V1, 0);
    /* Phi-4 writes <|im_start|> with <|im_sep|>: not chatml, so not recognized */
    CHECK(llm_chat_template_detect(&t, "<|im_start|>user<|im_sep|>", 26) == LLM_EUNSUPPORTED);
    CHECK(llm_chat_template_detect(&t, other, strlen(other)) == LLM_EUNSUPPORTED);
    CHECK_MSG(strstr(t.why, "unknown chat template") && strstr(t.why, "### {{ m['role'] }}:?") && strlen(t.why) < sizeof t.why,
              "why: %s", t.why);
    CHECK(llm_chat_template_detect(&t, "", 0) == LLM_EUNSUPPORTED);
    CHECK(llm_chat_template_detect(&t, NULL, 3) == LLM_EINVAL);
    /* the length is honoured: the signature just past it does not count */
    CHECK(llm_chat_template_detect(&t, "xx<|im_start|>", 5) == LLM_EUNSUPPORTED);
}

/* Random templates made of signature fragments and bytes, random turns, every buffer
   size from 0: detect and render never write past cap (guard bytes), the length a short
   buffer reports is the length a large one gets, and the text then is the same. */
static void test_hostile(void) {
    static const char *frag[] = {"<|start_header_id|>", "<|im_start|>", "<|im_sep|>", "<start_of_turn>", "<|user|>",
                                 "<|end|>", "<|system|>", "[INST]", "<<SYS>>", " [/INST]", "bos_token", "</think>",
                                 "add_generation_prompt", "eos_token + ' '", "\x01\xff", "{%", "%}"};
    static const char *roles[] = {"system", "user", "assistant", "tool", "", "User"};
    static const char *texts[] = {"", " ", "hi", "  padded \n", "<think>\nx\n</think>\n\ny", "</think>", "\xe2\x82\xac"};
    char jinja[256], big[4096], small[80];
    llm_chat_msg m[6];
    int it, bad = 0, rendered = 0;
    for (it = 0; it < 3000; it++) {
        llm_chat_template t;
        size_t n = 0, len_big = 0, len_small = 0, cap;
        int k, nm, gen;
        llm_status st, st2;
        while (n < 200) { /* fragments and random bytes */
            float r = test_randf();
            const char *f = frag[(int)((r + 1) * 8.5f) % 17];
            size_t fl = strlen(f);
            if (r > 0.6f) jinja[n++] = (char)(int)(test_randf() * 127);
            else if (n + fl < sizeof jinja) memcpy(jinja + n, f, fl), n += fl;
            if (test_randf() > 0.7f) break;
        }
        if (llm_chat_template_detect(&t, jinja, n) != LLM_OK) {
            bad += strlen(t.why) >= sizeof t.why;
            continue;
        }
        nm = (int)((test_randf() + 1) * 3);
        for (k = 0; k < nm; k++) {
            m[k].role = roles[(int)((test_randf() + 1) * 3) % 6];
            m[k].content = texts[(int)((test_randf() + 1) * 3.5f) % 7];
        }
        gen = test_randf() > 0;
        st = llm_chat_render(&t, m, nm, gen, NULL, NULL, big, sizeof big, &len_big);
        if (st != LLM_OK) {
            bad += st != LLM_EINVAL;
            continue;
        }
        rendered++;
        bad += len_big != strlen(big);
        cap = (size_t)((test_randf() + 1) * 0.5f * (float)(len_big + 2));
        if (cap > sizeof small - 8) cap = sizeof small - 8;
        memset(small, 0x5a, sizeof small);
        st2 = llm_chat_render(&t, m, nm, gen, NULL, NULL, small, cap, &len_small);
        for (k = (int)cap; k < (int)sizeof small; k++) bad += small[k] != 0x5a;
        bad += len_small != len_big || (st2 == LLM_OK) != (len_big < cap) || memcmp(small, big, cap < len_big ? cap : len_big) != 0;
    }
    CHECK_MSG(bad == 0 && rendered > 100, "%d problems in 3000 random templates (%d rendered)", bad, rendered);
}

/* ---- real vocabularies: templates and end-of-generation ids ------------------------- */

static unsigned char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long sz;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = (unsigned char *)malloc((size_t)sz + 1);
    *n = p ? fread(p, 1, (size_t)sz, f) : 0;
    fclose(f);
    return p;
}

/* A vocabulary file's template family and EOG ids. want_ids: read from the file by a
   separate Python GGUF reader (token texts at those ids written beside them). */
static void test_shared_vocab(const char *file, llm_chat_kind kind, unsigned flags, const int *want, int n_want) {
    char path[256];
    size_t n = 0;
    unsigned char *buf;
    llm_gguf g;
    llm_gguf_str s;
    llm_chat_template t;
    int ids[16], got = -1, i;
    snprintf(path, sizeof path, "../shared/vocab/%s", file);
    if (!(buf = read_all(path, &n))) {
        TEST_SKIP_SHARED(4, "%s absent", path);
        return;
    }
    CHECK_OK(llm_gguf_create(&g, buf, n, NULL));
    CHECK_OK(llm_gguf_get_str(&g, "tokenizer.chat_template", &s));
    CHECK_OK(llm_chat_template_detect(&t, s.s, (size_t)s.n));
    CHECK_MSG(t.kind == kind && t.flags == flags, "%s: %s flags %u", file, llm_chat_kind_name(t.kind), t.flags);
    if (kind == LLM_CHAT_PHI3) test_phi3_first(&t);
    CHECK_OK(llm_gguf_eog_ids(&g, ids, 16, &got));
    CHECK_MSG(got == n_want && memcmp(ids, want, (size_t)n_want * sizeof *ids) == 0, "%s: %d ids, first %d", file, got,
              got > 0 ? ids[0] : -1);
    for (i = 0; i < got && i < 16; i++) printf("  %s eog[%d] = %d\n", file, i, ids[i]);
    llm_gguf_free(&g);
    free(buf);
}

static void test_eog_written(void) {
    /* a vocabulary with eos, eot and eom ids and end-of-turn texts, one of them twice */
    const char *toks[] = {"<unk>", "<s>", "</s>", "<|im_end|>", "a", "<|eom_id|>", "<end_of_turn>", "<|end|>", "<|end|>x"};
    gw w;
    llm_gguf g;
    int ids[8], n = -1;
    gw_init(&w);
    gw_kv_str(&w, "general.architecture", "llama");
    gw_kv_arr_str(&w, "tokenizer.ggml.tokens", toks, 9);
    gw_kv_u32(&w, "tokenizer.ggml.eos_token_id", 2);
    gw_kv_u32(&w, "tokenizer.ggml.eot_token_id", 3);
    gw_kv_i32(&w, "tokenizer.ggml.eom_token_id", 5);
    gw_finish(&w);
    CHECK_OK(llm_gguf_create(&g, w.p, w.n, NULL));
    /* eos 2, eot 3, eom 5, then by text: <|eom_id|> 5 and <|im_end|> 3 again (once each),
       <end_of_turn> 6, <|end|> 7 (not "<|end|>x") */
    CHECK_OK(llm_gguf_eog_ids(&g, ids, 8, &n));
    CHECK(n == 5 && ids[0] == 2 && ids[1] == 3 && ids[2] == 5 && ids[3] == 6 && ids[4] == 7);
    /* too small: the count, and the first cap ids */
    CHECK(llm_gguf_eog_ids(&g, ids, 2, &n) == LLM_ERANGE && n == 5 && ids[0] == 2 && ids[1] == 3);
    CHECK(llm_gguf_eog_ids(&g, NULL, 0, &n) == LLM_ERANGE && n == 5);
    CHECK(llm_gguf_eog_ids(NULL, ids, 8, &n) == LLM_EINVAL);
    llm_gguf_free(&g);
    gw_free(&w);
    /* an eos id past the token list; tokens that are not strings; no tokens */
    {
        int32_t nums[3] = {1, 2, 3};
        int k;
        for (k = 0; k < 3; k++) {
            gw_init(&w);
            gw_kv_str(&w, "general.architecture", "llama");
            if (k == 0) gw_kv_arr_str(&w, "tokenizer.ggml.tokens", toks, 3), gw_kv_u32(&w, "tokenizer.ggml.eos_token_id", 3);
            if (k == 1) gw_kv_arr_i32(&w, "tokenizer.ggml.tokens", nums, 3);
            gw_finish(&w);
            CHECK_OK(llm_gguf_create(&g, w.p, w.n, NULL));
            CHECK_MSG(llm_gguf_eog_ids(&g, ids, 8, &n) == LLM_EFORMAT && n == 0, "hostile vocabulary %d", k);
            llm_gguf_free(&g);
            gw_free(&w);
        }
    }
}

/* ---- stop strings ------------------------------------------------------------------- */

/* What may be shown of text[0..n) with these stops: everything before the stop string
   that completes first (the smallest end; on a tie the earliest start), else all but the
   longest tail that is a proper prefix of a stop string. Brute force. */
static size_t ref_shown(const char *text, size_t n, const char *const *stops, int ns, int *stopped) {
    size_t i, best_end = (size_t)-1, start = 0;
    int s;
    *stopped = -1;
    for (i = 0; i < n; i++)
        for (s = 0; s < ns; s++) {
            size_t k = strlen(stops[s]);
            if (i + k <= n && memcmp(text + i, stops[s], k) == 0 && (i + k < best_end || (i + k == best_end && i < start))) {
                best_end = i + k, start = i, *stopped = s;
            }
        }
    if (*stopped >= 0) return start;
    for (i = 0; i < n; i++)
        for (s = 0; s < ns; s++) {
            size_t k = strlen(stops[s]);
            if (n - i < k && memcmp(text + i, stops[s], n - i) == 0) return i;
        }
    return n;
}

/* Feed text cut at the given points; check the shown bytes after every piece. */
static int feed_cuts(llm_stop *m, const char *text, size_t n, const size_t *cuts, int n_cuts, const char *const *stops,
                     int ns) {
    char shown[256], out[256];
    size_t got = 0, at = 0, k;
    int c, ok = 1, st_ref;
    CHECK_OK(llm_stop_init(m, stops, ns));
    for (c = 0; c <= n_cuts && ok; c++) {
        size_t end = c < n_cuts ? cuts[c] : n, ref, on;
        if (llm_stop_feed(m, text + at, end - at, out, sizeof out, &on) != LLM_OK) return 0;
        memcpy(shown + got, out, on);
        got += on;
        ref = ref_shown(text, end, stops, ns, &st_ref);
        /* before a stop: exactly the reference's bytes, held = the rest; at the stop: the
           text before the stop string that completed (the matcher sees it complete in
           this piece, so the reference over the text so far agrees) */
        ok = got == ref && memcmp(shown, text, got) == 0 && m->stopped == st_ref;
        if (m->stopped < 0) ok = ok && llm_stop_held(m) == end - ref;
        at = end;
        if (m->stopped >= 0) break;
    }
    if (ok && m->stopped < 0) {
        CHECK_OK(llm_stop_flush(m, out, sizeof out, &k));
        ok = got + k == n && memcmp(out, text + got, k) == 0 && llm_stop_held(m) == 0;
    }
    return ok;
}

static void test_stop(void) {
    /* overlapping stops, a stop that is a prefix of another, UTF-8 in the stop and the text */
    const char *stops[] = {"</s>", "User:", "Us", "\xc3\xa9t\xc3\xa9", "xyz1", "y"};
    const char *texts[] = {"Hello <there> Use: Us", "It was an \xc3\xa9t\xc3\xa9 today", "abc</s", "<</s>>",
                           "no stop here at all", "UseUser:", "<<<", "\xc3\xa9t\xc3\xa8", "axyz1b"};
    llm_stop m;
    int ti, bad = 0, cases = 0;
    for (ti = 0; ti < 9; ti++) {
        const char *text = texts[ti];
        size_t n = strlen(text), a, b, cuts[64];
        int k;
        /* one cut, two cuts anywhere; byte by byte */
        for (a = 0; a <= n; a++) {
            cases++, bad += !feed_cuts(&m, text, n, &a, 1, stops, 6);
            for (b = a; b <= n; b++) {
                cuts[0] = a, cuts[1] = b;
                cases++, bad += !feed_cuts(&m, text, n, cuts, 2, stops, 6);
            }
        }
        for (k = 0; k < (int)n; k++) cuts[k] = (size_t)k + 1;
        cases++, bad += !feed_cuts(&m, text, n, cuts, (int)n, stops, 6);
    }
    CHECK_MSG(bad == 0, "%d of %d cut patterns differ from the reference", bad, cases);
    printf("  stop strings: %d ways of cutting 9 texts, all as the reference\n", cases);
    /* the first stop to complete wins, even over a longer one that started earlier */
    {
        const char *two[] = {"abcd", "c"};
        char out[16];
        size_t on;
        CHECK_OK(llm_stop_init(&m, two, 2));
        CHECK_OK(llm_stop_feed(&m, "ab", 2, out, sizeof out, &on));
        CHECK(on == 0 && llm_stop_held(&m) == 2);
        CHECK_OK(llm_stop_feed(&m, "cd", 2, out, sizeof out, &on));
        CHECK(m.stopped == 1 && on == 2 && memcmp(out, "ab", 2) == 0);
        /* after the stop nothing more */
        CHECK_OK(llm_stop_feed(&m, "xyz", 3, out, sizeof out, &on));
        CHECK(on == 0);
        /* out too small for held + piece: ERANGE, nothing changes */
        CHECK_OK(llm_stop_init(&m, two, 2));
        CHECK_OK(llm_stop_feed(&m, "ab", 2, out, sizeof out, &on));
        CHECK(llm_stop_feed(&m, "xy", 2, out, 3, &on) == LLM_ERANGE && llm_stop_held(&m) == 2);
        CHECK_OK(llm_stop_feed(&m, "xy", 2, out, 4, &on));
        CHECK(on == 4 && memcmp(out, "abxy", 4) == 0);
    }
    {
        const char *empty[] = {"ok", ""}, *null_s[] = {NULL};
        char out[8];
        size_t on;
        CHECK(llm_stop_init(&m, empty, 2) == LLM_EINVAL);
        CHECK(llm_stop_init(&m, null_s, 1) == LLM_EINVAL);
        CHECK(llm_stop_init(&m, NULL, 1) == LLM_EINVAL);
        /* no stop strings: everything passes */
        CHECK_OK(llm_stop_init(&m, NULL, 0));
        CHECK_OK(llm_stop_feed(&m, "abc", 3, out, sizeof out, &on));
        CHECK(on == 3 && memcmp(out, "abc", 3) == 0);
        CHECK(llm_stop_feed(&m, NULL, 2, out, sizeof out, &on) == LLM_EINVAL);
        CHECK(llm_stop_feed(NULL, "a", 1, out, sizeof out, &on) == LLM_EINVAL);
    }
}

/* The rendered conversation encoded with special-token parsing (branch tok's llm_vocab)
   gives the hand-checked ids: the text split by hand with the vocabulary's pre-tokenizer
   pattern (../shared/vocab/README.md), each special token and each piece looked up in
   tokenizer.json's vocabulary and added_tokens by a short Python script (every piece here
   is a whole token: Llama 3 takes such a piece as is, ignore_merges; for Qwen each is a
   common word its merges reach). */
static void test_rendered_ids(const char *file, const char *tname, const int *want, int n_want) {
    char path[256], text[1024];
    size_t n = 0, len, n_ids = 0;
    unsigned char *buf;
    llm_gguf g;
    llm_vocab v;
    llm_chat_template t;
    int32_t ids[128];
    int i, same;
    snprintf(path, sizeof path, "../shared/vocab/%s", file);
    if (!(buf = read_all(path, &n))) {
        TEST_SKIP_SHARED(3, "%s absent", path);
        return;
    }
    CHECK_OK(llm_gguf_create(&g, buf, n, NULL));
    CHECK_OK(llm_vocab_create_gguf(&v, &g, NULL));
    named(&t, tname);
    CHECK_OK(llm_chat_render(&t, CONV, 4, 1, NULL, NULL, text, sizeof text, &len));
    CHECK_OK(llm_vocab_encode(&v, text, len, LLM_ENCODE_SPECIAL, ids, 128, &n_ids, NULL, 0));
    for (i = 0, same = n_ids == (size_t)n_want; same && i < n_want; i++) same = ids[i] == want[i];
    CHECK_MSG(same, "%s: %d ids (want %d)", file, (int)n_ids, n_want);
    for (i = 0; !same && i < (int)n_ids && i < n_want; i++)
        if (ids[i] != want[i]) {
            fprintf(stderr, "    first difference at %d: %d, want %d\n", i, (int)ids[i], want[i]);
            break;
        }
    llm_vocab_free(&v);
    llm_gguf_free(&g);
    free(buf);
}

int main(void) {
    /* <|begin_of_text|> <|start_header_id|> system <|end_header_id|> \n\n You _are _a
       _helpful _assistant . <|eot_id|> ... user ... Hello ! ... assistant ... Hi _there . ...
       Tell _me _a _joke . ... assistant <|end_header_id|> \n\n */
    static const int llama3_ids[41] = {128000, 128006, 9125, 128007, 271, 2675, 527, 264, 11190, 18328, 13,
                                       128009, 128006, 882, 128007, 271, 9906, 0, 128009, 128006, 78191, 128007,
                                       271, 13347, 1070, 13, 128009, 128006, 882, 128007, 271, 41551, 757,
                                       264, 22380, 13, 128009, 128006, 78191, 128007, 271};
    /* <|im_start|> system \n You _are _a _helpful _assistant . <|im_end|> \n <|im_start|> user
       \n Hello ! _ <|im_end|> \n ... assistant \n _Hi _there .\n <|im_end|> ... (".\n" is one
       piece: the pattern's ` ?[^\s\p{L}\p{N}]+[\r\n]*` takes the newlines after punctuation;
       I had split it in two at first, and the encoder was right) */
    static const int qwen_ids[40] = {151644, 8948, 198, 2610, 525, 264, 10950, 17847, 13, 151645, 198,
                                     151644, 872, 198, 9707, 0, 220, 151645, 198, 151644, 77091, 198,
                                     21018, 1052, 624, 151645, 198, 151644, 872, 198, 40451, 752,
                                     264, 21646, 13, 151645, 198, 151644, 77091, 198};
    static const int llama3_eog[] = {128001, 128009};  /* <|end_of_text|> (eos), <|eot_id|> */
    static const int qwen2_eog[] = {151645, 151643};   /* <|im_end|> (eos), <|endoftext|> */
    static const int phi3_eog[] = {32000, 32007};      /* <|endoftext|> (eos), <|end|> */
    test_templates();
    test_render_args();
    test_detect();
    test_hostile();
    test_stop();
    test_eog_written();
    test_shared_vocab("llama3.gguf", LLM_CHAT_LLAMA3, LLM_CHAT_ALWAYS_GEN, llama3_eog, 2);
    test_shared_vocab("qwen2.gguf", LLM_CHAT_CHATML, LLM_CHAT_THINK, qwen2_eog, 2);
    test_shared_vocab("ggml-vocab-phi-3.gguf", LLM_CHAT_PHI3, LLM_CHAT_NO_SYSTEM | LLM_CHAT_ALWAYS_GEN, phi3_eog, 2);
    test_rendered_ids("llama3.gguf", "llama3", llama3_ids, 41);
    test_rendered_ids("qwen2.gguf", "qwen3", qwen_ids, 40);
    return test_done();
}
