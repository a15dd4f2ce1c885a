#!/bin/sh
# The README's embedding example must be the program in tests/readme_example.c, and that
# program must print what the README says it prints.
# usage: readme_check.sh BINARY
bin=$1
want='llama-2-13b: 13015864320 parameters, 54.9 GB on a100-80gb: fits'
ok=1
sed -n '/^```c$/,/^```$/p' README.md | sed '1d;$d' > build/readme_code.txt
sed -n '/README-BEGIN/,/README-END/p' tests/readme_example.c | sed '1d;$d' > build/readme_test.txt
if ! cmp -s build/readme_code.txt build/readme_test.txt; then echo "FAIL: README code differs from tests/readme_example.c"; ok=0; fi
got=$("$bin")
if [ "$got" != "$want" ]; then echo "FAIL: printed '$got'"; ok=0; fi
if ! grep -qF "$want" README.md; then echo "FAIL: README does not show the output"; ok=0; fi
# the "How to extend it" section names internals: each must still exist in llm.h and in
# the header's own HOW TO EXTEND block, or the section has rotted
names=$(sed -n '/^## How to extend it$/,/^## /p' README.md | grep -o 'llm__[a-z0-9_]*' | sort -u)
if [ -z "$names" ]; then echo "FAIL: README has no How to extend it section naming internals"; ok=0; fi
howto=$(sed -n '/HOW TO EXTEND llm.h/,/CONVENTIONS/p' llm.h)
for n in $names; do
    if ! grep -q "[^a-z0-9_]$n[^a-z0-9_]" llm.h || ! printf '%s\n' "$howto" | grep -q "$n"; then
        echo "FAIL: README's How to extend names $n, which llm.h (or its HOW TO EXTEND block) lacks"; ok=0
    fi
done
if [ $ok = 1 ]; then echo "readme_check: 4 passed, 0 failed"; else echo "readme_check: 0 passed, 1 failed"; exit 1; fi
