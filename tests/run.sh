#!/bin/sh
# Runs each test program given, adds up their "N passed, N failed[, N skipped]" lines, and
# ends with the total. A program that crashes or exits non-zero without reporting counts
# as one failure. Every "SKIP n: why" line a program prints is shown under its result, so
# a skip is never silent. Exit status: 0 only if nothing failed.
# The programs under an emulator (paths with /neon/) run alongside the others, in a second
# lane: they are slow under qemu and share no scratch files with the native ones. The
# results are printed in the order given.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
for t in "$@"; do
  i=$((i + 1))
  printf '%s\n' "$t" > "$tmp/$i.name"
done
n=$i
lane() { # lane 1: native programs, lane 2: emulated ones
  k=1
  while [ "$k" -le "$n" ]; do
    t=$(cat "$tmp/$k.name")
    case "$t" in */neon/*) mine=2 ;; *) mine=1 ;; esac
    if [ "$mine" = "$1" ]; then
      "$t" > "$tmp/$k.out" 2>&1
      echo $? > "$tmp/$k.rc"
    fi
    k=$((k + 1))
  done
}
lane 2 &
lane 1
wait

passed=0; failed=0; skipped=0
k=1
while [ "$k" -le "$n" ]; do
  t=$(cat "$tmp/$k.name"); out=$(cat "$tmp/$k.out"); rc=$(cat "$tmp/$k.rc")
  k=$((k + 1))
  line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -n "$line" ]; then
    p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    s=$(printf '%s' "$line" | sed -n -E 's/.*, ([0-9]+) skipped.*/\1/p')
    [ -n "$s" ] || s=0
  else
    p=0; f=0; s=0
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
    printf '%s\n' "$out" | tail -n 40
    echo "FAILED: $t (exit $rc)"
  else
    printf '%-28s %s\n' "$t" "$(printf '%s' "$line" | sed 's/^[^:]*: //')"
    printf '%s\n' "$out" | grep -E '^SKIP [0-9]+: ' | sed 's/^/    /'
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
