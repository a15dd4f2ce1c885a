/* The embedding example from README.md, verbatim between the markers: make test builds
   and runs it, and checks what it prints, so the README can't drift from the header. */
/* README-BEGIN */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include <stdio.h>
int main(void) {
    const llm_config *c = llm_preset("llama-2-13b");
    llm_params p = llm_count_params(c);     /* exact, component by component */
    llm_plan plan = llm_plan_default();     /* fp16 weights and KV, 1 GPU, 2 GB overhead */
    llm_plan_result r;
    plan.model = c; plan.gpu = llm_gpu_preset("a100-80gb"); plan.batch = 8; plan.seq_len = 4096;
    if (llm_plan_evaluate(&plan, &r, NULL) != LLM_OK) return 1;
    printf("%s: %llu parameters, %.1f GB on %s: %s\n", c->name, (unsigned long long)p.total,
           r.total_bytes / 1e9, plan.gpu->name, llm_verdict_str(r.verdict));
    return 0;
}
/* README-END */
