/* Built three times with LLM_STATIC: with -DPART_A and -DPART_B, each holding a private
   copy of the implementation, and plain, a third copy plus main(). If LLM_STATIC left any
   symbol extern, the link fails with duplicate definitions. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
#include <string.h>

const char *version_a(void);
const char *version_b(void);
#if defined(PART_A)
const char *version_a(void) { return llm_version(); }
#elif defined(PART_B)
const char *version_b(void) { return llm_status_str(LLM_EFULL); }
#else
int main(void) {
    int ok = strcmp(version_a(), llm_version()) == 0 && strcmp(version_b(), llm_status_str(LLM_EFULL)) == 0;
    printf("link_static: %d passed, %d failed\n", ok, !ok);
    return !ok;
}
#endif
