/* The implementation the tests share: compiled once per build variant (the Makefile's
   build/test/<variant>/llm_impl.o) and linked with every tests/test_*.c that does not
   #define LLM_IMPLEMENTATION itself. A test that needs its own copy (its own LLM_MALLOC,
   or the llm__ internals, which are static) keeps the define and compiles alone. */
#define LLM_IMPLEMENTATION
#include "llm.h"
