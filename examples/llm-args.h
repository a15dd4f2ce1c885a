/* llm-args.h: the command-line habits every tool in examples/ shares (llm-run, llm-plan
   and the ones to come), so a new flag inherits them:
     - a value is all of its argument: strtoll / strtod with an end pointer, errno and a
       range, never atoi ("-n abc" is an error, not 0);
     - every error names the flag (or the file) and what was wrong with it;
     - --help and -h print the usage on stdout and exit 0; an unknown flag, a missing
       value and a value given to a switch are errors;
     - long flags take "--flag value" or "--flag=value", short ones "-x value" (run.c's);
     - a file argument is looked at before a loader reads it, so the message says what
       was found: a directory, an empty file, a GGUF file, a text file, a tokenizer.
   Pure parsing: no output, no exit, no allocation; a refusal is one line in the caller's
   buffer. Include after llm.h. */
#ifndef LLM_ARGS_H
#define LLM_ARGS_H
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h> /* sysconf: the cores online */
#endif

/* each tool uses only some of these */
#if defined(__GNUC__) || defined(__clang__)
#define LLM_ARGS_FN static __attribute__((unused))
#else
#define LLM_ARGS_FN static
#endif

typedef struct llm_args {
    int argc, i;          /* argv[i] is the argument being read */
    char **argv;
    char flag[64];        /* its name: "--seq" of "--seq=8" (cut at 63 characters) */
    const char *attached; /* "8" of "--seq=8"; NULL without '=' */
    char *err;            /* the caller's buffer for the one-line refusal */
    size_t err_size;
} llm_args;

/* Write the refusal; always returns 0 so a parser can `return llm_args_fail(...)`. */
LLM_ARGS_FN int llm_args_fail(llm_args *a, const char *fmt, ...) {
    va_list ap;
    if (!a->err || !a->err_size) return 0;
    va_start(ap, fmt);
    vsnprintf(a->err, a->err_size, fmt, ap);
    va_end(ap);
    return 0;
}

LLM_ARGS_FN void llm_args_init(llm_args *a, int argc, char **argv, char *err, size_t err_size) {
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->i = 0; /* argv[0] is the program */
    a->err = err;
    a->err_size = err_size;
    if (err && err_size) err[0] = 0;
}

/* Step to the next argument; 0 at the end. Sets flag and attached for "-..." arguments
   (a lone "-" is a positional, as is anything not starting with '-'). */
LLM_ARGS_FN int llm_args_next(llm_args *a) {
    const char *arg, *eq;
    size_t n;
    if (++a->i >= a->argc || !a->argv[a->i]) return 0;
    arg = a->argv[a->i];
    a->attached = NULL;
    a->flag[0] = 0;
    if (arg[0] != '-' || arg[1] == 0) return 1;
    /* only long flags split at '=': a short flag's value is the next argument, as in run.c */
    eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
    n = eq ? (size_t)(eq - arg) : strlen(arg);
    if (n >= sizeof a->flag) n = sizeof a->flag - 1;
    memcpy(a->flag, arg, n);
    a->flag[n] = 0;
    if (eq) a->attached = eq + 1;
    return 1;
}

LLM_ARGS_FN const char *llm_args_arg(const llm_args *a) { return a->argv[a->i]; }
LLM_ARGS_FN int llm_args_positional(const llm_args *a) { return a->flag[0] == 0; }
LLM_ARGS_FN int llm_args_is(const llm_args *a, const char *name) { return strcmp(a->flag, name) == 0; }
LLM_ARGS_FN int llm_args_is_help(const llm_args *a) { return llm_args_is(a, "--help") || llm_args_is(a, "-h"); }

/* A flag that takes no value: refuses "--flag=x". */
LLM_ARGS_FN int llm_args_switch(llm_args *a) {
    if (a->attached) return llm_args_fail(a, "%s takes no value (got '%.40s')", a->flag, a->attached);
    return 1;
}

/* The flag's value ("--flag=v", or the next argument), or NULL with "needs a value". */
LLM_ARGS_FN const char *llm_args_value(llm_args *a) {
    if (a->attached) return a->attached;
    if (a->i + 1 < a->argc && a->argv[a->i + 1]) return a->argv[++a->i];
    llm_args_fail(a, "%s needs a value", a->flag);
    return NULL;
}

LLM_ARGS_FN int llm_args_unknown(llm_args *a) {
    if (llm_args_positional(a)) return llm_args_fail(a, "unexpected argument '%.40s' (try --help)", llm_args_arg(a));
    return llm_args_fail(a, "unknown option '%.40s' (try --help)", llm_args_arg(a));
}

/* A whole number in [lo, hi], all of s (no sign-only, no trailing text, no overflow).
   `what` names the value in the message ("-n", "--config n_heads"). */
LLM_ARGS_FN int llm_args_parse_int(const char *what, const char *s, long long lo, long long hi, long long *out, char *err,
                              size_t es) {
    char *end;
    long long v = 0;
    int ok = s && *s && *s != ' ' && *s != '\t' && *s != '\n'; /* strto* would skip them */
    if (ok) {
        errno = 0;
        v = strtoll(s, &end, 10);
        ok = !errno && !*end && v >= lo && v <= hi;
    }
    if (!ok) {
        if (err && es) snprintf(err, es, "%s: '%.40s' is not a whole number in %lld..%lld", what, s ? s : "", lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

/* A finite decimal number in [lo, hi] (hi = HUGE_VAL: no upper bound). */
LLM_ARGS_FN int llm_args_parse_num(const char *what, const char *s, double lo, double hi, double *out, char *err,
                              size_t es) {
    char *end;
    double v = 0;
    int ok = s && *s && *s != ' ' && *s != '\t' && *s != '\n'; /* strto* would skip them */
    if (ok) {
        errno = 0;
        v = strtod(s, &end);
        /* ERANGE: too large for a double, or so small it lost its precision */
        ok = !errno && !*end && isfinite(v) && v >= lo && v <= hi;
    }
    if (!ok) {
        if (!err || !es) return 0;
        if (hi == HUGE_VAL) snprintf(err, es, "%s: '%.40s' is not a finite number >= %g", what, s ? s : "", lo);
        else snprintf(err, es, "%s: '%.40s' is not a number in %g..%g", what, s ? s : "", lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

/* The flag's value as a whole number / a number in range; 0 with the message if not. */
LLM_ARGS_FN int llm_args_int(llm_args *a, long long lo, long long hi, long long *out) {
    const char *v = llm_args_value(a);
    return v && llm_args_parse_int(a->flag, v, lo, hi, out, a->err, a->err_size);
}
LLM_ARGS_FN int llm_args_num(llm_args *a, double lo, double hi, double *out) {
    const char *v = llm_args_value(a);
    return v && llm_args_parse_num(a->flag, v, lo, hi, out, a->err, a->err_size);
}

/* Cores online, 0 when this platform cannot tell. */
LLM_ARGS_FN int llm_args_cores(void) {
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 1000000 ? (int)n : 0;
#else
    return 0;
#endif
}

/* 1024 -> "1,024" into buf (at least 32 bytes). */
LLM_ARGS_FN const char *llm_args_commas(unsigned long long v, char *buf) {
    char tmp[32];
    int n = sprintf(tmp, "%llu", v), i, o = 0;
    for (i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
    return buf;
}

/* ---- file arguments ----------------------------------------------------------------- */

typedef enum llm_file_kind {
    LLM_FILE_UNREADABLE = 0, /* cannot be opened: `what` has the system's reason */
    LLM_FILE_DIRECTORY,
    LLM_FILE_EMPTY,
    LLM_FILE_GGUF,           /* starts with the magic "GGUF" */
    LLM_FILE_TOKENIZER,      /* a whole llama2.c tokenizer.bin; `pieces` counted */
    LLM_FILE_TEXT,           /* its first bytes are printable text */
    LLM_FILE_OTHER           /* none of these: up to the format's loader */
} llm_file_kind;

typedef struct llm_file_probe {
    llm_file_kind kind;
    long pieces;     /* LLM_FILE_TOKENIZER: its number of pieces */
    char what[160];  /* "a directory", "an empty file", ... for a message */
} llm_file_probe;

LLM_ARGS_FN uint32_t llm_args__u32le(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Does f (at offset 0) hold a llama2.c tokenizer and nothing else: int32
   max_token_length, then (float score, int32 length 1..max_token_length, the bytes)
   records up to the exact end of the file? Returns the pieces, or -1. */
LLM_ARGS_FN long llm_args__tokenizer_pieces(FILE *f) {
    unsigned char b[8];
    char skip[256];
    long pieces = 0;
    uint32_t max_len;
    if (fread(b, 1, 4, f) != 4) return -1;
    max_len = llm_args__u32le(b);
    if (max_len < 1 || max_len > 4096) return -1;
    for (;;) {
        uint32_t len;
        size_t got = fread(b, 1, 8, f);
        if (got == 0 && feof(f)) return pieces > 0 ? pieces : -1;
        if (got != 8) return -1;
        len = llm_args__u32le(b + 4);
        if (len < 1 || len > max_len) return -1;
        while (len > 0) {
            size_t part = len < sizeof skip ? len : sizeof skip;
            if (fread(skip, 1, part, f) != part) return -1;
            len -= (uint32_t)part;
        }
        if (++pieces > (1L << 24)) return -1;
    }
}

/* Look at the file `path` names: what kind it is, in words for a message. */
LLM_ARGS_FN llm_file_probe llm_args_probe_file(const char *path) {
    llm_file_probe p;
    unsigned char head[64];
    size_t got, i;
    int text = 1;
    FILE *f;
    memset(&p, 0, sizeof p);
    errno = 0;
    f = fopen(path, "rb");
    if (!f) {
        p.kind = LLM_FILE_UNREADABLE;
        snprintf(p.what, sizeof p.what, "cannot open it: %s", errno ? strerror(errno) : "fopen failed");
        return p;
    }
    errno = 0;
    got = fread(head, 1, sizeof head, f);
    if (got == 0) {
        /* POSIX's fopen opens a directory for reading; the read is what fails */
#ifdef EISDIR
        int dir = ferror(f) && errno == EISDIR;
#else
        int dir = ferror(f);
#endif
        p.kind = dir ? LLM_FILE_DIRECTORY : ferror(f) ? LLM_FILE_UNREADABLE : LLM_FILE_EMPTY;
        if (p.kind == LLM_FILE_UNREADABLE) snprintf(p.what, sizeof p.what, "cannot read it: %s", strerror(errno));
        else snprintf(p.what, sizeof p.what, "%s", dir ? "a directory, not a file" : "an empty file (0 bytes)");
        fclose(f);
        return p;
    }
    if (got >= 4 && memcmp(head, "GGUF", 4) == 0) {
        p.kind = LLM_FILE_GGUF;
        snprintf(p.what, sizeof p.what, "a GGUF file");
        fclose(f);
        return p;
    }
    rewind(f);
    p.pieces = llm_args__tokenizer_pieces(f);
    fclose(f);
    if (p.pieces > 0) {
        p.kind = LLM_FILE_TOKENIZER;
        snprintf(p.what, sizeof p.what, "a llama2.c tokenizer with %ld pieces", p.pieces);
        return p;
    }
    /* text: printable ASCII, white space or UTF-8 bytes, and no NUL */
    for (i = 0; i < got; i++)
        if (head[i] < 0x20 && head[i] != '\n' && head[i] != '\r' && head[i] != '\t') text = 0;
    p.kind = text ? LLM_FILE_TEXT : LLM_FILE_OTHER;
    snprintf(p.what, sizeof p.what, "%s", text ? "a text file" : "a file of unknown format");
    return p;
}

#endif
