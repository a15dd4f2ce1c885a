/* fuzz_hf_index: a sharded checkpoint's model.safetensors.index.json from arbitrary bytes.
   The input is a uint16 length L (little-endian), L bytes of the index, then one
   safetensors file that stands for every shard it names (the seeds are an index and a
   shard written by tests/st_writer.h). The index reader llm_hf_load_dir uses may refuse,
   with a reason, but never crash: an accepted index lists each shard once, as a plain
   file name in the directory (no separator, drive or leading dot) inside the text; the
   check against the shards' headers then accepts only when every weight_map entry's
   tensor is in the shard it names. */
#define LLM_IMPLEMENTATION
#include "llm.h"
#include "fuzz.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t il, len, need, i;
    char *text, wb[160];
    unsigned char *buf;
    void *mem = NULL;
    llm__hf_index ix;
    llm_safetensors *sts = NULL;
    const char *why = NULL;
    llm_status s;
    int k, q;
    if (size < 2) return 0;
    il = (size_t)(data[0] | data[1] << 8);
    if (il > size - 2) il = size - 2;
    len = size - 2 - il;
    text = (char *)fz_copy(data + 2, il);
    buf = fz_copy(data + 2 + il, len);
    if (!text || !buf) goto out;
    s = llm__hf_index_parse(&ix, text, il, wb, sizeof wb, &why);
    if (!why || (s != LLM_OK && !*why)) abort();
    if (s == LLM_OK) {
        if (ix.n_shards < 1 || ix.n_shards > LLM__HF_MAX_SHARDS || ix.toks[ix.wm].type != LLM_JSON_OBJECT) abort();
        for (k = 0; k < ix.n_shards; k++) {
            const llm_gguf_str *n = &ix.shards[k];
            if (n->s < text || n->n == 0 || n->n > 255 || (size_t)(n->s - text) + n->n > il) abort();
            if (n->s[0] == '.' || memchr(n->s, '/', n->n) || memchr(n->s, '\\', n->n) || memchr(n->s, ':', n->n)) abort();
            for (q = 0; q < k; q++)
                if (llm__gstr_cmp(ix.shards[q], *n) == 0) abort(); /* each once */
        }
        /* every shard is the same file here: the check must refuse or find every entry */
        need = llm_safetensors_bytes(buf, len);
        sts = (llm_safetensors *)calloc((size_t)ix.n_shards, sizeof *sts);
        mem = malloc(need ? need : 8);
        if (sts && mem && llm_safetensors_init(&sts[0], mem, need, buf, len, &why) == LLM_OK) {
            uint32_t e;
            for (k = 1; k < ix.n_shards; k++) sts[k] = sts[0];
            why = NULL;
            s = llm__hf_index_check(&ix, sts, wb, sizeof wb, &why);
            if (s != LLM_OK && (!why || !*why)) abort();
            for (e = 0, i = ix.wm + 1; s == LLM_OK && e < ix.toks[ix.wm].n; e++, i = ix.toks[i + 1].next) {
                llm_gguf_str key = llm__tok_str(text, &ix.toks[i]);
                if (llm__name_find_str(sts[0].order, sts[0].n_tensors, &sts[0].tensors[0].name, sizeof *sts[0].tensors, key) < 0)
                    abort();
            }
        }
    }
    llm__hf_index_free(&ix);
out:
    free(sts);
    free(mem);
    free(text);
    free(buf);
    return 0;
}
