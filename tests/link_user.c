/* Includes llm.h without the implementation and links against link_impl.c: a misspelled
   LLM_IMPLEMENTATION there (it happened in stb's own tests) fails this link. */
#include <stdio.h>
#include <string.h>
#include "llm.h"

int main(void) {
    int ok = strcmp(llm_version(), "0.1.0") == 0 && strcmp(llm_status_str(LLM_OK), "LLM_OK: ok") == 0;
    printf("link_user: %d passed, %d failed\n", ok, !ok);
    return !ok;
}
