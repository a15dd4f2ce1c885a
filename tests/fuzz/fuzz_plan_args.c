/* fuzz_plan_args: build/llm-plan's argument parser (examples/llm-plan-args.h) on any
   argv. The input is split at NUL bytes into up to 32 arguments. The parser must accept
   or refuse with a one-line, NUL-terminated message in the caller's buffer; an accepted
   plan must then evaluate without crashing, as llm-plan would run it. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include "examples/llm-plan-args.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static llm_plan_args a; /* large; the fuzzer runs one input at a time */
    char *copy = (char *)malloc(size + 1), *argv[MAX_ARGS + 1], err[128];
    int argc = 1;
    size_t i, start = 0;
    if (!copy) return 0;
    memcpy(copy, data, size);
    copy[size] = 0;
    argv[0] = (char *)"llm-plan";
    for (i = 0; i <= size && argc < MAX_ARGS; i++)
        if (copy[i] == 0) {
            argv[argc++] = copy + start;
            start = i + 1;
        }
    argv[argc] = NULL;
    /* --gguf / --hf open the path that follows (/dev/stdin would block the fuzzer); the
       readers behind them have their own targets (fuzz_gguf, fuzz_safetensors) */
    for (i = 1; i < (size_t)argc; i++)
        if (strcmp(argv[i], "--gguf") == 0 || strcmp(argv[i], "--hf") == 0) {
            free(copy);
            return 0;
        }
    memset(err, 'x', sizeof err);
    if (llm_plan_parse_args(&a, argc, argv, err, sizeof err)) {
        llm_plan_result r;
        const char *why = NULL;
        if (!a.list && !a.help && a.plan.model) {
            llm_status s = llm_plan_evaluate(&a.plan, &r, &why);
            if (s != LLM_OK && !why) abort();
        }
    } else if (!memchr(err, 0, sizeof err) || err[0] == 0) {
        abort(); /* a refusal always explains itself, within the buffer */
    }
    /* a tiny error buffer is truncated, never overrun */
    (void)llm_plan_parse_args(&a, argc, argv, err, 1);
    free(copy);
    return 0;
}
