#!/bin/sh
# The tools as a user meets them (issue 15), table-driven:
#  - bad invocations of llm-run and llm-plan: each must exit non-zero, print nothing on
#    stdout, and say on stderr both what it is about (the flag or the file) and why;
#  - good llm-plan invocations: the table and --json must carry the same figures (both
#    parsed, compared to the table's printed precision); --help / -h: usage on stdout, rc 0;
#  - llm-run --ppl against a perplexity computed here from --logits-out of the same ids,
#    its table and --json the same figures.
# usage: cli_check.sh BUILD_DIR [TOOLS_DIR]   (needs TOOLS/llm-run, TOOLS/llm-plan,
#   TOOLS/llm-tokenize, TOOLS/examples/08_generate; TOOLS_DIR is BUILD_DIR unless given;
#   the scratch files, and 08_generate's random pair, are under BUILD_DIR)
B=${1:-build}
X=${2:-$B}
RUN=$X/llm-run PLAN=$X/llm-plan TOK=$X/llm-tokenize
T=$B/cli_check
pass=0 fail=0 skip=0
rm -rf "$T" && mkdir -p "$T/dir" || exit 1
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# ---- the files: a real pair from ../shared/models, else the random pair 08_generate writes
M=../shared/models/stories260K.bin Z=../shared/models/synth512.bin
if [ ! -f "$M" ] || [ ! -f "$Z" ]; then
  M=$B/08_random.bin Z=$B/08_random_tok.bin
  [ -f "$M" ] || "$X/examples/08_generate" >/dev/null 2>&1
fi
: > "$T/empty.bin"
printf 'Once upon a time there was a text file.\n' > "$T/text.txt"
printf 'GGUF\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > "$T/model.gguf"
echo "1 2 99999999" > "$T/bigid.txt"
cp "$Z" "$T/tok_plus1.bin" && printf '\000\000\000\000\001\000\000\000x' >> "$T/tok_plus1.bin"

# a Hugging Face directory: config.json and a safetensors file (8-byte length, JSON, data):
# a BF16 embedding [100][64] and an F32 norm [64], 12,800 + 256 tensor bytes; and two bad ones
mkdir -p "$T/hf" "$T/hf_trunc" "$T/hf_bad"
printf '{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": true}' > "$T/hf/config.json"
cp "$T/hf/config.json" "$T/hf_trunc/config.json"
printf '{"model_type": "llama", "num_hidden_layers": 2}' > "$T/hf_bad/config.json"
h='{"model.embed_tokens.weight":{"dtype":"BF16","shape":[100,64],"data_offsets":[0,12800]},"model.norm.weight":{"dtype":"F32","shape":[64],"data_offsets":[12800,13056]}}'
{ printf "\\$(printf %o ${#h})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$h"; head -c 13056 /dev/zero; } > "$T/hf/model.safetensors"
head -c 10000 "$T/hf/model.safetensors" > "$T/hf_trunc/model.safetensors"
cp "$T/hf_trunc/model.safetensors" "$T/hf/trunc.safetensors"

# ---- bad invocations: tool | arguments | what stderr must name | why it must give
# ($M, $Z, $T are expanded; arguments are split as the shell would)
bad_cases() {
cat <<EOF
run|$M -z $Z -t abc|-t|not a finite number
run|$M -z $Z -t -1|-t|not a finite number
run|$M -z $Z -t 1e999|-t|not a finite number
run|$M -z $Z -t nan|-t|not a finite number
run|$M -z $Z -t 1e39|-t|too large
run|$M -z $Z -t|-t|needs a value
run|$M -z $Z -p abc|-p|not a number in 0..1
run|$M -z $Z -p -0.5|-p|not a number in 0..1
run|$M -z $Z -p 2|-p|not a number in 0..1
run|$M -z $Z -p|-p|needs a value
run|$M -z $Z -s abc|-s|not a whole number
run|$M -z $Z -s -1|-s|not a whole number
run|$M -z $Z -s 99999999999999999999|-s|not a whole number
run|$M -z $Z -s|-s|needs a value
run|$M -z $Z --seed abc|--seed|not a whole number
run|$T/dir -m chat|checkpoint '$T/dir'|a directory without config.json
run|$M -z $Z -n abc|-n|not a whole number
run|$M -z $Z -n -1|-n|not a whole number
run|$M -z $Z -n 12x|-n|not a whole number
run|$M -z $Z -n 99999999999|-n|not a whole number
run|$M -z $Z -n|-n|needs a value
run|$M -z $Z --threads abc|--threads|not a whole number in 1..1024
run|$M -z $Z --threads 0|--threads|not a whole number in 1..1024
run|$M -z $Z --threads -3|--threads|not a whole number in 1..1024
run|$M -z $Z --threads 5000|--threads|not a whole number in 1..1024
run|$M -z $Z --threads=|--threads|not a whole number
run|$M -z $Z --threads|--threads|needs a value
run|$M -z $Z -i|-i|needs a value
run|$M -z|-z|needs a value
run|$M -z $Z -m|-m|needs a value
run|$M -z $Z -m chat|-m chat|needs a GGUF file
run|$T/model.gguf -m chat|-m chat: checkpoint '$T/model.gguf'|general.architecture is missing
run|$M -m chat --ids-in $T/text.txt|--ids-in|not with -m chat
run|$M -z $Z --template llama2|--template|needs -m chat
run|$M -z $Z --stop END|--stop|needs -m chat
run|$M -z $Z --top-k abc|--top-k|not a whole number
run|$M -z $Z --top-k -1|--top-k|not a whole number
run|$M -z $Z --min-p 2|--min-p|not a number in 0..1
run|$M -z $Z --repeat-penalty 0|--repeat-penalty|not a number
run|$M -z $Z --repeat-last-n 0|--repeat-last-n|not a whole number
run|$M -z $Z --frequency-penalty x|--frequency-penalty|not a number
run|$M -z $Z --presence-penalty|--presence-penalty|needs a value
run|$M -m chat --stop 1 --stop 2 --stop 3 --stop 4 --stop 5 --stop 6 --stop 7 --stop 8 --stop 9|--stop|at most 8
run|$M -z $Z -m talk|-m|unknown mode
run|$M -z $Z --parallel 0|--parallel|not a whole number in 1..64
run|$M -z $Z --parallel 65|--parallel|not a whole number in 1..64
run|$M -z $Z --parallel|--parallel|needs a value
run|$M -m chat --parallel 2|--parallel|not with -m chat
run|$M --ids-in $T/text.txt --parallel 2|--parallel|not with --ids-in
run|$M -z $Z --ppl $T/text.txt --parallel 2|--parallel|not with --ppl
run|$M -z $Z -n 1 -i Once --parallel 2|-n 1|room past the prompt
run|$M -z $Z -y hello|-y|needs -m chat
run|$M -z $Z --ids=1|--ids|takes no value
run|$M -z $Z -q 1|-q|unknown option
run|$M -z $Z --lora|--lora|needs a value
run|$M -z $Z --lora $T/missing.bin|--lora '$T/missing.bin'|cannot read it
run|$M -z $Z --lora $M|--lora '$M'|not a GGUF file
run|$M -m chat --lora $M|--lora|not with -m chat
run|$M $M -z $Z|a second checkpoint|the first
run|-z $Z -n 4|no checkpoint|usage
run|$T/dir -z $Z|checkpoint '$T/dir'|a directory without config.json
run|$T/empty.bin -z $Z|checkpoint '$T/empty.bin'|an empty file
run|$T/text.txt -z $Z|checkpoint '$T/text.txt'|a text file
run|$T/model.gguf -z $Z|checkpoint '$T/model.gguf'|general.architecture is missing
run|$Z -z $Z|checkpoint '$Z'|tokenizer
run|$T/missing.bin -z $Z|checkpoint '$T/missing.bin'|cannot open
run|$M -z $T/dir|-z '$T/dir'|a directory
run|$M -z $T/empty.bin|-z '$T/empty.bin'|an empty file
run|$M -z $T/text.txt|-z '$T/text.txt'|a text file
run|$M -z $T/model.gguf|-z '$T/model.gguf'|tokenizer.ggml.tokens
run|$M -z $M|-z '$M'|a llama2.c checkpoint
run|$M -z $T/missing.bin|-z '$T/missing.bin'|cannot open
run|$M -z $T/tok_plus1.bin|-z '$T/tok_plus1.bin'|pieces, the model
run|$M --ids-in $T/text.txt|--ids-in '$T/text.txt'|is not a whole number
run|$M --ids-in $T/dir --logits-out $T/l.f32|--ids-in '$T/dir'|a directory
run|$M --ids-in $T/empty.bin|--ids-in '$T/empty.bin'|no ids
run|$M --ids-in $T/missing.bin|--ids-in '$T/missing.bin'|cannot open
run|$M --logits-out $T/l.f32|--logits-out|needs --ids-in
run|$M --ids-in|--ids-in|needs a value
tok||no FILE|Usage
tok|$T/missing.bin|'$T/missing.bin'|cannot open
tok|$T/dir|'$T/dir'|a directory
tok|$T/empty.bin|'$T/empty.bin'|an empty file
tok|$T/model.gguf|'$T/model.gguf'|tokenizer.ggml.tokens
tok|$T/text.txt|'$T/text.txt'|tokenizer.bin
tok|$Z $Z|a second FILE|the first
tok|$Z --frobnicate|--frobnicate|unknown option
tok|$Z --vocab abc|--vocab|not a whole number
tok|$Z --vocab 7|'$Z'|not vocab pieces
tok|$Z --bos=1|--bos|takes no value
tok|$Z -f|-f|needs a value
tok|$Z -f $T/missing.txt|-f '$T/missing.txt'|cannot open
tok|$Z --decode -f $T/text.txt|--decode|is not an id
tok|$Z --decode -f $T/bigid.txt|--decode|is not an id in 0..
run|$M -z $Z --ppl $T/missing.bin|--ppl '$T/missing.bin'|cannot open
run|$M -z $Z --ppl $T/empty.bin|--ppl '$T/empty.bin'|an empty file
run|$M -z $Z --ppl $T/dir|--ppl '$T/dir'|a directory
run|$M -z $Z --ppl $M|--ppl '$M'|not a text file
run|$M -z $Z --ppl|--ppl|needs a value
run|$M -z $Z --ppl $T/text.txt -n 1|-n 1|2 ..
run|$M -z $Z --ppl $T/text.txt -n 99999|-n 99999|the model's context
run|$M -z $Z --ppl $T/text.txt --ids-in $T/text.txt|--ppl|not with --ids-in
run|$M -z $T/text.txt --ppl $T/text.txt|-z '$T/text.txt'|a text file
run|$M -z $Z --ppl $T/text.txt --json=1|--json|takes no value
run|$M -z $Z --json|--json|needs --ppl
plan|--model llama-2-7b --gpus abc|--gpus|not a whole number
plan|--model llama-2-7b --gpus -1|--gpus|not a whole number
plan|--model llama-2-7b --gpus 0|--gpus|not a whole number
plan|--model llama-2-7b --gpus 99999999999|--gpus|not a whole number
plan|--model llama-2-7b --gpus|--gpus|needs a value
plan|--model llama-2-7b --gpus 3|--gpus 3|does not divide 32
plan|--model gpt2 --gpus 1000|--gpus 1000|does not divide 12
plan|--model llama-2-7b --batch abc|--batch|not a whole number
plan|--model llama-2-7b --batch -1|--batch|not a whole number
plan|--model llama-2-7b --batch 0|--batch|not a whole number
plan|--model llama-2-7b --batch 2147483648|--batch|not a whole number
plan|--model llama-2-7b --batch|--batch|needs a value
plan|--model llama-2-7b --seq abc|--seq|not a whole number
plan|--model llama-2-7b --seq -5|--seq|not a whole number
plan|--model llama-2-7b --seq 0|--seq|not a whole number
plan|--model llama-2-7b --seq 1e9|--seq|not a whole number
plan|--model llama-2-7b --seq|--seq|needs a value
plan|--model gpt2 --seq 4096|--seq 4,096|learned positions
plan|--model llama-2-7b --train --zero 4|--zero|not a whole number in 0..3
plan|--model llama-2-7b --train --zero -1|--zero|not a whole number in 0..3
plan|--model llama-2-7b --train --zero|--zero|needs a value
plan|--model llama-2-7b --overhead abc|--overhead|not a number
plan|--model llama-2-7b --overhead -1|--overhead|not a number
plan|--model llama-2-7b --overhead nan|--overhead|not a number
plan|--model llama-2-7b --overhead 1e300|--overhead|not a number
plan|--model llama-2-7b --overhead|--overhead|needs a value
plan|--model llama-2-7b --weights fp8|--weights|unknown dtype
plan|--model llama-2-7b --weights|--weights|needs a value
plan|--model llama-2-7b --kv q4_32|--kv|f32, f16, bf16 or int8
plan|--model llama-2-7b --flash|--flash|add --train
plan|--model llama-2-7b --recompute|--recompute|add --train
plan|--model llama-2-7b --zero 1|--zero|add --train
plan|--model llama-2-7b --train --weights int4|--weights|inference option
plan|--model llama-2-7b --train --kv int8|--kv|inference option
plan|--model llama-2-7b --train=1|--train|takes no value
plan|--model llama-2-7b --json=yes|--json|takes no value
plan|--model llama2-7b|unknown model 'llama2-7b'|closest: llama-2-7b
plan|--model llama-2-7b --gpu a10|unknown GPU 'a10'|closest
plan|--model llama-2-7b --gpu|--gpu|needs a value
plan|--model|--model|needs a value
plan|--model llama-2-7b --fast|--fast|unknown option
plan|--model llama-2-7b extra|extra|unexpected argument
plan|--batch 8|no model|--model
plan|--config rope_theta=0|rope_theta|above 0
plan|--config rope_theta=abc|rope_theta|not a number
plan|--config tied|tied|expected key=value
plan|--config tied=2|--config tied|0..1
plan|--config n_heads=abc|--config n_heads|not a whole number
plan|--config n_heads=-4|--config n_heads|not a whole number
plan|--config wings=2|wings|unknown key
plan|--config ffn=relu|--config ffn|not one of swiglu gelu geglu
plan|--config d_model=768,n_layers=12,n_heads=12,d_ff=3072,vocab=50257|max_seq_len|--seq
plan|--gguf $T/model.gguf|--gguf $T/model.gguf|general.architecture is missing
plan|--gguf $T/empty.bin|--gguf $T/empty.bin|shorter than the 24-byte GGUF header
plan|--gguf $T/text.txt|--gguf $T/text.txt|not a GGUF file
plan|--gguf $T/absent.gguf|--gguf $T/absent.gguf|cannot open
plan|--gguf $T/hf/trunc.safetensors|--gguf|not a GGUF file
plan|--gguf|--gguf|needs a value
plan|--hf $T/dir|--hf $T/dir|cannot read config.json
plan|--hf $T/hf_trunc|--hf $T/hf_trunc|data runs past the end of the file
plan|--hf $T/hf_bad|--hf $T/hf_bad|hidden_size is missing
plan|--gguf $T/model.gguf --hf $T/hf|--hf|one model file only
plan|--gguf $T/model.gguf --model llama-2-7b|--gguf|drop --model
plan|--hf $T/hf --config d_model=64|--hf|drop --config
plan|--gguf $T/model.gguf --weights q4_32|--weights|each tensor in its own type
plan|--model llama-2-7b --ram 8|--ram|with its unit
plan|--model llama-2-7b --ram 8XB|--ram|with its unit
plan|--model llama-2-7b --ram 0GB|--ram|above 0
plan|--model llama-2-7b --ram 8GB --gpu l4|--ram|not both
plan|--model llama-2-7b --train --ram 8GB|--ram|inference option
plan|--model llama-2-7b --kv-dtype q4_32|--kv-dtype|f32, f16, bf16 or int8
plan|--model llama-2-7b --ctx 0|--ctx|not a whole number
EOF
}

n_bad=0
bad_cases > "$T/bad.txt"
while IFS='|' read -r tool args name why; do
  n_bad=$((n_bad + 1))
  case $tool in run) bin=$RUN ;; tok) bin=$TOK ;; *) bin=$PLAN ;; esac
  # shellcheck disable=SC2086
  $bin $args < /dev/null > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" -ne 0 ] && [ ! -s "$T/out" ] && grep -qF -- "$name" "$T/err" && grep -qF -- "$why" "$T/err"; then ok
  else bad "$tool $args: rc $rc, stdout $(wc -c < "$T/out") bytes, stderr: $(head -c 300 "$T/err") (want '$name' and '$why')"; fi
done < "$T/bad.txt"

# ---- help: usage on stdout, rc 0, nothing on stderr
for inv in "$TOK --help" "$TOK -h" "$RUN --help" "$RUN -h" "$PLAN --help" "$PLAN -h"; do
  $inv > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" -eq 0 ] && grep -qi usage "$T/out" && [ ! -s "$T/err" ]; then ok; else bad "$inv: rc $rc"; fi
done
# the --config help lists every key the parser takes (the table in llm-plan-args.h)
keys=$(sed -n 's/^ *LLM_PLAN__K("\([a-z_]*\)".*/\1/p' examples/llm-plan-args.h)
missing=""
for k in $keys; do grep -q "^  $k=" "$T/out" || missing="$missing $k"; done
if [ -n "$keys" ] && [ -z "$missing" ]; then ok; else bad "llm-plan --help lacks --config keys:$missing"; fi
# --list --json is JSON
$PLAN --list --json > "$T/out" 2>&1
if head -c 11 "$T/out" | grep -q '^{"models": ' && grep -q '"gpus": ' "$T/out"; then ok; else bad "--list --json"; fi

# ---- llm-run: the ids of run.c when ../shared has them; a threads warning past the cores
if [ -f ../shared/models/stories260K.prompt.ids ] && [ "$M" = ../shared/models/stories260K.bin ]; then
  $RUN "$M" -z "$Z" -t 0 -n 256 -i "Once upon a time" --ids > "$T/ids" 2> "$T/err"
  if cmp -s "$T/ids" ../shared/models/stories260K.prompt.ids; then ok; else bad "llm-run ids differ from run.c's"; fi
else
  skip=$((skip + 1)); echo "SKIP 1: llm-run's ids against run.c's: ../shared/models absent"
fi
# the GGUF conversion with its own vocabulary (no -z): run.c's first 129 ids (its 128 positions)
G=../shared/models/stories260K.gguf
if [ -f "$G" ] && [ -f ../shared/models/stories260K.prompt.ids ]; then
  $RUN "$G" -t 0 -n 128 -i "Once upon a time" --ids > "$T/gids" 2> "$T/err"
  if head -n 129 ../shared/models/stories260K.prompt.ids | cmp -s - "$T/gids"; then ok; else bad "llm-run $G (its own tokenizer) ids differ from run.c's: $(head -c 200 "$T/err")"; fi
else
  skip=$((skip + 1)); echo "SKIP 1: llm-run on $G with its own tokenizer: ../shared/models absent"
fi
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
$RUN "$M" -z "$Z" -n 3 --threads $((cores + 1)) > "$T/out" 2> "$T/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -q "warning: --threads $((cores + 1)) is more than the $cores cores" "$T/err"; then ok
else bad "llm-run --threads $((cores + 1)) on $cores cores: rc $rc, $(head -c 200 "$T/err")"; fi

# ---- --parallel 3 (one llm_gen_next_batch per step): stream k, seed 4 + k, is what -s 4+k
# alone prints, as ids and as text; the speed line counts all the streams' tokens
$RUN "$M" -z "$Z" -n 40 -s 5 -i "Once upon a time" --parallel 3 --ids > "$T/par" 2> "$T/perr"; rc=$?
$RUN "$M" -z "$Z" -n 40 -s 5 -i "Once upon a time" --parallel 3 > "$T/part" 2>> "$T/perr" || rc=1
same=0
for k in 1 2 3; do
  $RUN "$M" -z "$Z" -n 40 -s $((4 + k)) -i "Once upon a time" --ids > "$T/one" 2> /dev/null
  $RUN "$M" -z "$Z" -n 40 -s $((4 + k)) -i "Once upon a time" > "$T/onet" 2> /dev/null
  awk -v k=$k '/^--- stream [0-9]+ of 3 /{ f = ($3 == k); next } f' "$T/par" | cmp -s - "$T/one" &&
    awk -v k=$k '/^--- stream [0-9]+ of 3 /{ f = ($3 == k); next } f' "$T/part" | cmp -s - "$T/onet" && same=$((same + 1))
done
if [ "$rc" -eq 0 ] && [ "$same" -eq 3 ] && [ "$(grep -c '^--- stream [123] of 3 (seed [567]) ---$' "$T/par")" -eq 3 ] &&
   grep -q -- "--parallel 3: [0-9]* tokens in [0-9]* steps at .* tok/s in total" "$T/perr"; then ok
else bad "llm-run --parallel 3: rc $rc, $same of 3 streams as -s alone prints them, $(head -c 200 "$T/perr")"; fi

# ---- llm-tokenize: "Hello world" (string 12 of each ../shared/vocab .inp) gives the .out's
# ids; --decode gives the bytes back; --special makes <|im_start|> one id, and only then
V=../shared/vocab
for f in ggml-vocab-llama-spm.gguf ggml-vocab-phi-3.gguf ggml-vocab-gpt-2.gguf ggml-vocab-deepseek-llm.gguf llama3.gguf qwen2.gguf; do
  if [ ! -f "$V/$f" ]; then
    if [ "${LLM_REQUIRE_SHARED:-0}" != 0 ]; then bad "$V/$f absent (LLM_REQUIRE_SHARED)"; else skip=$((skip + 1)); echo "SKIP 1: llm-tokenize on $V/$f: absent"; fi
    continue
  fi
  want=$(sed -n 12p "$V/$f.out" | sed 's/^ *//')
  got=$(printf 'Hello world' | $TOK "$V/$f" 2> "$T/err")
  back=$(printf '%s' "$got" | $TOK "$V/$f" --decode 2>> "$T/err")
  if [ "$got" = "$want" ] && [ "$back" = "Hello world" ]; then ok; else bad "llm-tokenize $f: '$got' (want '$want'), decoded '$back' $(head -c 200 "$T/err")"; fi
done
if [ -f "$V/hf-qwen3/tokenizer.json" ]; then
  a=$(printf '<|im_start|>user' | $TOK "$V/hf-qwen3/tokenizer.json" --special) b=$(printf '<|im_start|>user' | $TOK "$V/hf-qwen3/tokenizer.json")
  d=$(printf '%s' "$a" | $TOK "$V/hf-qwen3/tokenizer.json" --decode --special)
  case "$a" in "151644 "*) a_ok=1 ;; *) a_ok=0 ;; esac
  case " $b " in *" 151644 "*) b_ok=0 ;; *) b_ok=1 ;; esac
  if [ "$a_ok" = 1 ] && [ "$b_ok" = 1 ] && [ "$d" = "<|im_start|>user" ]; then ok; else bad "llm-tokenize --special: '$a' / without: '$b' / decoded '$d'"; fi
else
  skip=$((skip + 1)); echo "SKIP 1: llm-tokenize --special on hf-qwen3/tokenizer.json: absent"
fi
# a llama2.c tokenizer.bin: --bos puts <s> (1) first, and the text decodes back
got=$(printf 'Once upon a time' | $TOK "$Z" --bos)
back=$(printf '%s' "$got" | $TOK "$Z" --decode)
case "$got" in "1 "*) [ "$back" = "Once upon a time" ] && ok || bad "llm-tokenize $Z: decoded '$back'" ;; *) bad "llm-tokenize $Z --bos: '$got'" ;; esac

# ---- good llm-plan invocations: table and JSON carry the same figures
good_cases() {
cat <<'EOF'
--model llama-2-13b --gpu a100-80gb --batch 8 --seq 4096
--model llama-2-7b
--model llama-3.1-405b --gpu h100-sxm
--model llama-2-70b --gpus 16
--model llama-2-7b --seq 100000
--model mixtral-8x7b --weights q4_32 --kv int8 --gpu rtx-4090
--model llama-2-7b --batch 2147483647 --seq 2147483647
--model llama-2-7b --train --gpus 8 --zero 3 --flash --batch 64
--model gpt2 --train --batch 16 --recompute --gpu l4
--model llama-3-70b --train --gpus 4 --zero 2
--config d_model=768,n_layers=12,n_heads=12,d_ff=3072,vocab=50257,ffn=gelu,pos=learned,bias=all,norm=layer,norm_bias=1,tied=1 --seq 1024
--model mistral-7b --gpus 2 --batch 32
EOF
}
good_cases > "$T/good.txt"
# --gguf / --hf: llama.cpp's Q4_K_M file when ../shared has it, and the directory above
QK=../shared/models/quant/q256-Q4_K_M.gguf
if [ -f "$QK" ]; then
  printf '%s\n' "--gguf $QK --ctx 4096 --ram 8GB" "--gguf $QK --gpu rtx-4090 --kv-dtype int8 --batch 64 --ctx 100000" >> "$T/good.txt"
else
  skip=$((skip + 2)); echo "SKIP 2: llm-plan --gguf on $QK: absent"
fi
printf '%s\n' "--hf $T/hf --ram 1GiB --ctx 100" "--hf $T/hf --gpu l4" >> "$T/good.txt"
n_good=0
while IFS= read -r args; do
  n_good=$((n_good + 1))
  # shellcheck disable=SC2086
  $PLAN $args > "$T/table" 2> "$T/terr"; rc1=$?
  # shellcheck disable=SC2086
  $PLAN $args --json > "$T/json" 2> "$T/jerr"; rc2=$?
  if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then bad "llm-plan $args: rc $rc1 / $rc2: $(head -c 200 "$T/terr")"; continue; fi
  why=$(awk -v terr="$T/terr" -f tests/cli_compare.awk "$T/json" "$T/table")
  if [ -z "$why" ]; then ok; else bad "llm-plan $args: table and JSON differ: $why"; fi
done < "$T/good.txt"

# the JSON carries the file's tensor bytes to the byte (12,800 + 256 above; the GGUF's are
# checked against its own tensor table in test_estimate), the read bytes the header's only
$PLAN --hf "$T/hf" --json > "$T/json" 2> "$T/err"
if grep -q "\"tensor_bytes\": 13056, \"header_bytes\": $((8 + ${#h})), \"file_bytes\": $((8 + ${#h} + 13056)), \"read_bytes\": $((8 + ${#h})), \"runnable\": true" "$T/json" &&
   grep -q '"lines": \[{"name": "weights", "bytes": 13056}' "$T/json"; then ok; else bad "llm-plan --hf --json: $(head -c 300 "$T/json")"; fi
# sharded: model.safetensors.index.json's weight_map names two files (one twice); the
# bytes are both headers' tensors
mkdir -p "$T/hf_sharded"
cp "$T/hf/config.json" "$T/hf_sharded/"
h1='{"model.embed_tokens.weight":{"dtype":"BF16","shape":[100,64],"data_offsets":[0,12800]}}'
h2='{"model.norm.weight":{"dtype":"F32","shape":[64],"data_offsets":[0,256]}}'
{ printf "\\$(printf %o ${#h1})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$h1"; head -c 12800 /dev/zero; } > "$T/hf_sharded/a.safetensors"
{ printf "\\$(printf %o ${#h2})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$h2"; head -c 256 /dev/zero; } > "$T/hf_sharded/b.safetensors"
printf '{"metadata": {}, "weight_map": {"model.embed_tokens.weight": "a.safetensors", "lm_head.weight": "a.safetensors", "model.norm.weight": "b.safetensors"}}' > "$T/hf_sharded/model.safetensors.index.json"
$PLAN --hf "$T/hf_sharded" --json > "$T/json" 2> "$T/err"
if grep -q "\"tensors\": 2, \"elements\": 6464, \"tensor_bytes\": 13056, \"header_bytes\": $((16 + ${#h1} + ${#h2})), \"file_bytes\": $((16 + ${#h1} + ${#h2} + 13056)), \"read_bytes\": $((16 + ${#h1} + ${#h2}))," "$T/json"; then ok
else bad "llm-plan --hf (sharded): $(head -c 300 "$T/json") $(head -c 200 "$T/err")"; fi
printf '{"weight_map": {"x": "../a.safetensors"}}' > "$T/hf_sharded/model.safetensors.index.json"
$PLAN --hf "$T/hf_sharded" > "$T/out" 2> "$T/err"; rc=$?
if [ "$rc" -ne 0 ] && grep -q "not a file name in the directory" "$T/err"; then ok; else bad "llm-plan --hf, a shard outside the directory: rc $rc $(head -c 200 "$T/err")"; fi
# llm-run on a sharded directory: a runnable one-layer model (BF16 matrices, F32 norms,
# each tensor's bytes a pattern of its own: small positive values) as one file and as two
# shards give the same logits, byte for byte; a tensor the index misplaces is refused
u64le() { printf "\\$(printf %o $(($1 & 255)))\\$(printf %o $(($1 >> 8 & 255)))\\0\\0\\0\\0\\0\\0"; }
run_tensors() { cat <<EOF
model.embed_tokens.weight BF16 100,64 12800
model.norm.weight F32 64 256
model.layers.0.input_layernorm.weight F32 64 256
model.layers.0.self_attn.q_proj.weight BF16 64,64 8192
model.layers.0.self_attn.k_proj.weight BF16 32,64 4096
model.layers.0.self_attn.v_proj.weight BF16 32,64 4096
model.layers.0.self_attn.o_proj.weight BF16 64,64 8192
model.layers.0.post_attention_layernorm.weight F32 64 256
model.layers.0.mlp.gate_proj.weight BF16 128,64 16384
model.layers.0.mlp.up_proj.weight BF16 128,64 16384
model.layers.0.mlp.down_proj.weight BF16 64,128 16384
EOF
}
# st_write FILE FIRST LAST: a safetensors file of run_tensors' lines FIRST..LAST
st_write() {
  h='{' off=0
  for t in $(run_tensors | awk -v a="$2" -v b="$3" 'NR >= a && NR <= b { print $1 ":" $2 ":" $3 ":" $4 }'); do
    nm=${t%%:*} rest=${t#*:}; dt=${rest%%:*} rest=${rest#*:}; sh=${rest%%:*} by=${rest#*:}
    [ "$h" = '{' ] || h="$h,"
    h="$h\"$nm\":{\"dtype\":\"$dt\",\"shape\":[$sh],\"data_offsets\":[$off,$((off + by))]}"
    off=$((off + by))
  done
  h="$h}"
  while [ $(( ${#h} % 8 )) -ne 0 ]; do h="$h "; done
  { u64le ${#h}; printf '%s' "$h"
    run_tensors | awk -v a="$2" -v b="$3" 'NR >= a && NR <= b { for (i = 0; i < $4; i++) printf "%c", 32 + (i * 7 + NR * 13) % 29 }'; } > "$1"
}
mkdir -p "$T/hf_run" "$T/hf_run2"
sed 's/"num_hidden_layers": 2/"num_hidden_layers": 1/' "$T/hf/config.json" > "$T/hf_run/config.json"
cp "$T/hf_run/config.json" "$T/hf_run2/"
st_write "$T/hf_run/model.safetensors" 1 11
st_write "$T/hf_run2/model-00001-of-00002.safetensors" 1 5
st_write "$T/hf_run2/model-00002-of-00002.safetensors" 6 11
run_tensors | awk '{ printf "%s\"%s\": \"model-0000%d-of-00002.safetensors\"", (NR > 1 ? ", " : "{\"weight_map\": {"), $1, (NR <= 5 ? 1 : 2) } END { print "}}" }' \
  > "$T/hf_run2/model.safetensors.index.json"
echo "1 2 3 4 5" > "$T/run_ids.txt"
$RUN "$T/hf_run" --ids-in "$T/run_ids.txt" --logits-out "$T/l_one.f32" > /dev/null 2> "$T/err"; rc1=$?
$RUN "$T/hf_run2" --ids-in "$T/run_ids.txt" --logits-out "$T/l_two.f32" > /dev/null 2>> "$T/err"; rc2=$?
if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$(wc -c < "$T/l_one.f32")" -eq 2000 ] && cmp -s "$T/l_one.f32" "$T/l_two.f32"; then ok
else bad "llm-run on two shards: rc $rc1 / $rc2, logits $(wc -c < "$T/l_one.f32" 2>/dev/null) bytes $(head -c 300 "$T/err")"; fi
sed 's/"model.norm.weight": "model-00001/"model.norm.weight": "model-00002/' "$T/hf_run2/model.safetensors.index.json" > "$T/idx" &&
  mv "$T/idx" "$T/hf_run2/model.safetensors.index.json"
$RUN "$T/hf_run2" --ids-in "$T/run_ids.txt" --logits-out "$T/l_two.f32" > "$T/out" 2> "$T/err"; rc=$?
if [ "$rc" -ne 0 ] && [ ! -s "$T/out" ] && grep -q "model.norm.weight in a shard that does not hold it" "$T/err"; then ok
else bad "llm-run, a tensor the index misplaces: rc $rc $(head -c 200 "$T/err")"; fi
# an architecture llm-run does not run still plans from its shapes, and says so
sed 's/"llama"/"mystery"/' "$T/hf/config.json" > "$T/hf_bad/config.json"
cp "$T/hf/model.safetensors" "$T/hf_bad/"
$PLAN --hf "$T/hf_bad" > "$T/out" 2> "$T/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -q "^llm-run: cannot run it: config.json's model_type is not run yet" "$T/out" &&
   grep -q "warning: mystery: llm-run cannot run this model" "$T/err"; then ok; else bad "llm-plan --hf (model_type mystery): rc $rc $(head -c 200 "$T/err")"; fi

# ---- --ids-in / --logits-out on llama.cpp's q256 files: every step's logits, float32,
# within 2e-6 relative RMS of the float64 truth (F32; measured 1.9e-7) and of Q4_K_M as
# stored within llama.cpp's own error (measured 1.09e-2, llama.cpp 1.45e-2)
Q=../shared/models/quant
for q in F32:2e-6 Q4_K_M:1.2e-2; do
  name=${q%%:*} tol=${q#*:}
  if [ ! -f "$Q/q256-$name.gguf" ]; then
    if [ "${LLM_REQUIRE_SHARED:-0}" != 0 ]; then bad "$Q/q256-$name.gguf absent (LLM_REQUIRE_SHARED)"; else skip=$((skip + 1)); echo "SKIP 1: $Q/q256-$name.gguf absent"; fi
    continue
  fi
  if ! $RUN "$Q/q256-$name.gguf" --ids-in "$Q/ids24.txt" --logits-out "$T/q_$name.f32" > "$T/q_ids" 2> "$T/q_err"; then
    bad "llm-run q256-$name --ids-in: $(head -c 200 "$T/q_err")"; continue
  fi
  err=$(od -An -v -f "$T/q_$name.f32" | tr -s ' ' '\n' | grep -v '^$' > "$T/q_got"; od -An -v -f "$Q/q256-$name.exact.f32" | tr -s ' ' '\n' | grep -v '^$' > "$T/q_want"
        paste "$T/q_got" "$T/q_want" | awk '{ d = $1 - $2; se += d * d; st += $2 * $2; n++ } END { if (n != 24 * 512) print "n=" n; else printf "%.3g\n", sqrt(se / st) }')
  if awk -v e="$err" -v t="$tol" 'BEGIN { exit !(e + 0 == e && e <= t) }'; then ok; else bad "llm-run q256-$name --logits-out: relative RMS error $err (tolerance $tol)"; fi
done

# ---- -m chat on a GGUF with a tokenizer (stories260K.gguf: no chat template, so it is
# named): refusals, greedy replies that repeat, --stop cutting a reply where its text starts
G=../shared/models/stories260K.gguf
if [ -f "$G" ]; then
  printf 'Hello\n' | $RUN "$G" -m chat > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" -ne 0 ] && [ ! -s "$T/out" ] && grep -q "no tokenizer.chat_template" "$T/err" && grep -q -- "--template" "$T/err"; then ok
  else bad "llm-run -m chat without a template: rc $rc, $(head -c 200 "$T/err")"; fi
  printf 'Hello\n' | $RUN "$G" -m chat --template vicuna > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" -ne 0 ] && grep -q "unknown chat template name 'vicuna'" "$T/err"; then ok; else bad "--template vicuna: rc $rc"; fi
  chat() { printf 'Hello there\n\nHow are you?\n' | $RUN "$G" -m chat -y "Be brief." --template llama2 -t 0 -n 96 "$@"; }
  chat > "$T/c1" 2> "$T/cerr"; rc1=$?
  chat > "$T/c2" 2>/dev/null; rc2=$?
  # one reply line (the first reply fills -n: the model never ends a turn), the same twice
  if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$(wc -l < "$T/c1")" -eq 1 ] && [ -s "$T/c1" ] && cmp -s "$T/c1" "$T/c2" \
     && grep -q "reached -n 96" "$T/cerr"; then ok
  else bad "llm-run -m chat greedy: rc $rc1 / $rc2, $(wc -l < "$T/c1") lines, $(head -c 200 "$T/cerr")"; fi
  # --stop: a piece of the reply's text (bytes 6..8) cuts it right before its first
  # occurrence; then the second turn runs (the blank line is skipped) and gets its reply
  stop=$(head -c 8 "$T/c1" | tail -c 3)
  chat --stop "$stop" > "$T/c3" 2> "$T/cerr"; rc=$?
  want=$(awk -v s="$stop" '{ i = index($0, s); print substr($0, 1, i - 1); exit }' "$T/c1")
  if [ "$rc" -eq 0 ] && [ "$(head -n 1 "$T/c3")" = "$want" ] && [ "$(wc -l < "$T/c3")" -ge 2 ]; then ok
  else bad "llm-run -m chat --stop '$stop': rc $rc, got '$(head -c 80 "$T/c3")', want '$want'"; fi
else
  if [ "${LLM_REQUIRE_SHARED:-0}" != 0 ]; then bad "$G absent (LLM_REQUIRE_SHARED)"; else skip=$((skip + 4)); echo "SKIP 4: llm-run -m chat: $G absent"; fi
fi

# ---- --ppl against a perplexity computed here: the text's ids as -i tokenizes them (BOS
# first; -n = their count - 1 prints the prompt and no more), cut into the same windows of
# -n 16 positions overlapping by one id, each fed from position 0 by --ids-in; from its
# --logits-out, awk sums log-sum-exp(logits) - logits[next id] in double. Table and --json
# carry the same figures.
P=$T/ppl W=16
mkdir -p "$P"
printf 'Once upon a time a cat sat by the river. The cat saw a fish, and the fish saw the cat.' > "$P/text.txt"  # under 128 ids: 08_generate's context
if $RUN "$M" -z "$Z" --ppl "$P/text.txt" -n $W --json > "$P/json" 2> "$P/err" &&
   $RUN "$M" -z "$Z" --ppl "$P/text.txt" -n $W > "$P/table" 2>> "$P/err"; then
  jn() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$P/json"; }
  n=$(jn tokens)
  $RUN "$M" -z "$Z" -t 0 -n $((n - 1)) -i "$(cat "$P/text.txt")" --ids > "$P/ids" 2>> "$P/err"
  awk -v W=$W -v d="$P" '{ id[NR - 1] = $1 } END {
      for (s = 0; s < NR - 1; s += W - 1) { k++; for (j = s; j < s + W && j < NR; j++) print id[j] > (d "/w" k) }
      print k }' "$P/ids" > "$P/n_win"
  k=1 sum=0 ok_run=1
  while [ $k -le "$(cat "$P/n_win")" ]; do
    $RUN "$M" --ids-in "$P/w$k" --logits-out "$P/w$k.f32" > /dev/null 2>> "$P/err" || ok_run=0
    # this window's sum of -log p(next id): the logits as text, one row per position
    part=$(od -An -v -f "$P/w$k.f32" | tr -s ' ' '\n' | grep -v '^$' |
           awk -v ids="$P/w$k" 'BEGIN { while ((getline x < ids) > 0) id[m++] = x }
             { v[NR - 1] = $1 } END { V = NR / m; s = 0
               for (j = 0; j < m - 1; j++) { mx = v[j * V]; for (i = 1; i < V; i++) if (v[j * V + i] > mx) mx = v[j * V + i]
                 e = 0; for (i = 0; i < V; i++) e += exp(v[j * V + i] - mx); s += log(e) + mx - v[j * V + id[j + 1]] }
               printf "%.17g\n", s }')
    sum=$(awk -v a="$sum" -v b="$part" 'BEGIN { printf "%.17g", a + b }')
    k=$((k + 1))
  done
  # measured 3.8e-8 relative on stories260K with AVX-512, 2.6e-7 with AVX2 (Zen 3), 2e-9 on
  # 08_generate's model (a prefill's logits against one step's, od's 9 digits): tolerance
  # 1e-6 of the NLL (issue 12 asks for 1e-4 at most); the perplexity is exp(NLL), so its
  # relative error is the NLL's absolute one, held to the same bound through its log
  why=$(awk -v s="$sum" -v n="$n" -v nll="$(jn nll_nats)" -v ppl="$(jn perplexity)" -v w="$(jn windows)" \
            -v pr="$(jn predicted)" -v nw="$(cat "$P/n_win")" -v ni="$(wc -l < "$P/ids")" 'BEGIN {
      ours = s / (n - 1)
      if (ni != n) print "-i gave " ni " ids, --ppl counts " n
      if (w != nw || pr != n - 1) print "windows " w " (want " nw "), predicted " pr " (want " n - 1 ")"
      if (nw < 3) print "only " nw " windows: the text does not cross them"
      if (!(ours > 0) || (ours - nll) ^ 2 > (1e-6 * nll) ^ 2) print "NLL " nll ", from --logits-out " ours
      if (!(ppl > 0) || (log(ppl) - ours) ^ 2 > (1e-6 * nll) ^ 2) print "perplexity " ppl ", from --logits-out " exp(ours) }')
  [ "$ok_run" = 1 ] || why="$why --ids-in failed: $(head -c 200 "$P/err")"
  if [ -z "$why" ]; then ok; else bad "llm-run --ppl: $why"; fi
  # the table: the JSON's figures, as printed
  t_tok=$(sed -n 's/^  tokens  *\([0-9]*\) (BOS + the text), \([0-9]*\) predicted, in \([0-9]*\) windows* of up to \([0-9]*\)$/\1 \2 \3 \4/p' "$P/table")
  t_nll=$(sed -n 's/^  NLL  *\([^ ]*\) nats per predicted token$/\1/p' "$P/table")
  t_ppl=$(sed -n 's/^  perplexity  *\([^ ]*\)$/\1/p' "$P/table")
  t_tps=$(sed -n 's/^  speed  *\([^ ]*\) tokens\/s .*/\1/p' "$P/table")
  if [ "$t_tok" = "$n $(jn predicted) $(jn windows) $(jn context)" ] && [ "$t_nll" = "$(jn nll_nats)" ] &&
     [ "$t_ppl" = "$(jn perplexity)" ] && awk -v a="$t_tps" -v b="$(jn tokens_per_second)" 'BEGIN { exit !(a > 0 && b > 0) }'; then ok
  else bad "llm-run --ppl: table ($t_tok / $t_nll / $t_ppl / $t_tps) and --json ($(cat "$P/json")) differ"; fi
else
  bad "llm-run --ppl $P/text.txt: $(head -c 300 "$P/err")"
fi

[ "$n_bad" -ge 40 ] || bad "only $n_bad bad invocations in the table"
[ "$n_good" -ge 10 ] || bad "only $n_good good invocations in the table"
echo "cli_check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
