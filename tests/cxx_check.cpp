// The header with its implementation compiled as C++ (-std=c++11 -Wall -Wextra -Werror
// -pedantic), and a few calls through it, so C++ users can vendor llm.h as is.
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <cstdio>
#include <cstring>

int main() {
    int passed = 0, failed = 0;
    llm_dtype t;
    if (std::strcmp(llm_version(), "0.1.0") == 0) passed++; else failed++;
    if (llm_dtype_parse("bf16", &t) == LLM_OK && t == LLM_BF16) passed++; else failed++;
    if (llm_f16_to_f32(llm_f32_to_f16(1.5f)) == 1.5f) passed++; else failed++;
    std::printf("cxx_check: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
