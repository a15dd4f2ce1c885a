/* llm-tokenize: text to token ids, and back, with a model's own tokenizer.

     build/llm-tokenize FILE [--bos] [--special] [-f TEXT]   < text     ids on one line
     build/llm-tokenize FILE --decode [--special] [-f IDS]   < ids      the text

   FILE is a GGUF (its tokenizer.ggml.* keys), a Hugging Face tokenizer.json (with the
   tokenizer_config.json beside it for BOS / EOS), or a llama2.c tokenizer.bin. The text is
   exactly the bytes given (no escape processing, a trailing newline is part of it). No BOS
   unless --bos; --special turns control-token text (<|im_start|>) into its single id, and
   in --decode prints control tokens' text instead of nothing.
   Build: make build/llm-tokenize */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "llm-args.h"

static const char usage[] =
    "Usage: llm-tokenize FILE [options]   (text on stdin, ids printed on one line)\n"
    "  FILE          a GGUF, a tokenizer.json or a llama2.c tokenizer.bin\n"
    "  -f PATH       read the text (or with --decode the ids) from PATH instead of stdin\n"
    "  --bos         put the vocabulary's BOS first (and EOS last when the file asks for it)\n"
    "  --special     parse control-token text such as <|im_start|> into its id; with\n"
    "                --decode, print control tokens' text\n"
    "  --decode      read ids (decimal, white space between) and print their text\n"
    "  --vocab N     a tokenizer.bin's piece count (default: every piece in the file)\n"
    "  -h, --help    this text\n";

static int fail(const char *what, const char *why) {
    fprintf(stderr, "llm-tokenize: %s: %s\n", what, why);
    return 1;
}

/* All of f, NUL-terminated. */
static char *slurp(FILE *f, size_t *n) {
    size_t cap = 1 << 16, len = 0, got;
    char *p = (char *)malloc(cap), *q;
    while (p && (got = fread(p + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            q = cap > SIZE_MAX / 2 ? NULL : (char *)realloc(p, cap * 2);
            if (!q) free(p);
            p = q, cap *= 2;
        }
    }
    if (p) p[len] = '\0';
    *n = len;
    return p;
}

int main(int argc, char **argv) {
    const char *path = NULL, *in_path = NULL, *why = "";
    int bos = 0, special = 0, decode = 0, vocab = 0;
    llm_args a;
    llm_vocab v;
    llm_status st;
    char err[256], what[600];
    char *in;
    size_t n_in, i;
    FILE *f = stdin;
    llm_args_init(&a, argc, argv, err, sizeof err);
    while (llm_args_next(&a)) {
        long long x;
        int ok = 1;
        if (llm_args_positional(&a)) {
            if (path) ok = llm_args_fail(&a, "a second FILE '%.40s' (the first: '%.40s')", llm_args_arg(&a), path);
            else path = llm_args_arg(&a);
        } else if (llm_args_is_help(&a)) {
            if ((ok = llm_args_switch(&a))) {
                fputs(usage, stdout);
                return 0;
            }
        } else if (llm_args_is(&a, "--bos")) {
            ok = llm_args_switch(&a), bos = 1;
        } else if (llm_args_is(&a, "--special")) {
            ok = llm_args_switch(&a), special = 1;
        } else if (llm_args_is(&a, "--decode")) {
            ok = llm_args_switch(&a), decode = 1;
        } else if (llm_args_is(&a, "-f")) {
            ok = (in_path = llm_args_value(&a)) != NULL;
        } else if (llm_args_is(&a, "--vocab")) {
            if ((ok = llm_args_int(&a, 1, 1 << 24, &x))) vocab = (int)x;
        } else {
            ok = llm_args_unknown(&a);
        }
        if (!ok) return fail("arguments", err);
    }
    if (!path) {
        fputs(usage, stderr);
        return fail("arguments", "no FILE (a GGUF, tokenizer.json or tokenizer.bin)");
    }
    snprintf(what, sizeof what, "'%.500s'", path);
    {
        llm_file_probe p = llm_args_probe_file(path);
        if (p.kind == LLM_FILE_UNREADABLE || p.kind == LLM_FILE_DIRECTORY || p.kind == LLM_FILE_EMPTY) return fail(what, p.what);
    }
    if ((st = llm_vocab_load_file(&v, path, vocab, &why)) != LLM_OK) return fail(what, *why ? why : llm_status_str(st));
    if (in_path && !(f = fopen(in_path, "rb"))) {
        snprintf(what, sizeof what, "-f '%.500s'", in_path);
        llm_vocab_free(&v);
        return fail(what, "cannot open it");
    }
    in = slurp(f, &n_in);
    if (f != stdin) fclose(f);
    if (!in) {
        llm_vocab_free(&v);
        return fail("input", "out of memory");
    }
    if (decode) { /* ids in, one streaming decoder: the text comes out as the ids are read */
        llm_vocab_stream s;
        char *p = in, *end, out[4096];
        size_t len;
        llm_vocab_stream_init(&s, &v, special ? LLM_DECODE_SPECIAL : 0);
        for (;;) {
            long long id;
            while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
            if (!*p) break;
            errno = 0;
            id = strtoll(p, &end, 10);
            if (end == p || errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') || id < 0 ||
                id >= v.n_tokens) {
                char why2[160];
                snprintf(why2, sizeof why2, "'%.20s' is not an id in 0..%ld", p, (long)v.n_tokens - 1);
                free(in), llm_vocab_free(&v);
                return fail("--decode", why2);
            }
            p = end;
            if (llm_vocab_stream_push(&s, (int32_t)id, out, sizeof out, &len) != LLM_OK) {
                free(in), llm_vocab_free(&v);
                return fail("--decode", "a piece longer than 4 KB");
            }
            fwrite(out, 1, len, stdout);
        }
        llm_vocab_stream_flush(&s, out, sizeof out, &len);
        fwrite(out, 1, len, stdout);
    } else {
        size_t n = 0, cap = n_in + 4;
        int32_t *ids = (int32_t *)malloc(cap * sizeof *ids);
        int flags = (bos ? LLM_ENCODE_BOS : 0) | (bos && v.add_eos ? LLM_ENCODE_EOS : 0) | (special ? LLM_ENCODE_SPECIAL : 0);
        st = ids ? llm_vocab_encode(&v, in, n_in, flags, ids, cap, &n, NULL, 0) : LLM_ENOMEM;
        if (st != LLM_OK) {
            free(ids), free(in), llm_vocab_free(&v);
            return fail("encode", llm_status_str(st));
        }
        for (i = 0; i < n; i++) printf(i ? " %ld" : "%ld", (long)ids[i]);
        printf("\n");
        free(ids);
    }
    free(in);
    llm_vocab_free(&v);
    return 0;
}
