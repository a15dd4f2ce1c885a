/* Built by `make matrix` with -DLLM_NO_STDIO: the implementation must compile without
   <stdio.h>, and this file (which uses only buffer-based APIs) must link without any
   stdio function; the matrix checks the object's undefined symbols with nm. Exit status
   0 = every check passed (there is no printf to report with). */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <string.h>

#ifdef EOF
#error "LLM_NO_STDIO: llm.h included <stdio.h>"
#endif

int main(void) {
    int failed = 0;
    llm_dtype t;
    failed += strcmp(llm_version(), "0.1.0") != 0;
    failed += llm_dtype_parse("f16", &t) != LLM_OK || t != LLM_F16;
    failed += llm_f16_to_f32(llm_f32_to_f16(0.5f)) != 0.5f;
    return failed != 0;
}
