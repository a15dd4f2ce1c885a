/* The one translation unit that compiles the implementation (see link_user.c). */
#define LLM_IMPLEMENTATION
#include "llm.h"
