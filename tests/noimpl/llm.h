/* llm.h without its implementation, for a program whose file #defines LLM_IMPLEMENTATION
   (the tools, the README's example) when make test links it with an implementation object
   built with the same flags instead: the Makefile puts -Itests/noimpl ahead of -I., so the
   program's #include "llm.h" finds this file, which drops the request and includes the
   real header. */
#undef LLM_IMPLEMENTATION
#include "../../llm.h"
