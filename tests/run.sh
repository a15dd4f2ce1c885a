#!/bin/sh
# Runs each test program given, adds up their "N passed, N failed[, N skipped]" lines, and
# ends with the total. A program that crashes or exits non-zero without reporting counts
# as one failure. Every "SKIP n: why" line a program prints is shown under its result, so
# a skip is never silent. Exit status: 0 only if nothing failed.
# Programs run in parallel: RUN_JOBS lanes (default: the CPUs online) take the native ones
# in the order given, and one more lane the programs under an emulator (paths with /neon/:
# slow under qemu, so they never hold up a native lane). Two programs of the same name
# (build/test/native/test_x and build/test/scalar/test_x) never run at once: a test's
# scratch files under build/ have fixed names. The results are printed in the order given.
# make test gives it records (<program>.ran, a script that prints a run's output and exits
# with its status: make ran the programs as jobs); each result is named by its program.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
for t in "$@"; do
  i=$((i + 1))
  eval "name_$i=\$t"
done
n=$i
jobs=${RUN_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case "$jobs" in ''|*[!0-9]*|0) jobs=1 ;; esac
lane() { # $1: native or emu. Takes, in order, each program of its kind that no other lane
  # has taken and whose name is not running (mkdir is the atomic test-and-set), runs it;
  # passes over the list until none of its kind is left.
  while :; do
    k=1; left=0
    while [ "$k" -le "$n" ]; do
      eval "t=\$name_$k"
      case "$t" in */neon/*) kind=emu ;; *) kind=native ;; esac
      if [ "$kind" = "$1" ] && [ ! -d "$tmp/$k.claim" ]; then
        base=$(basename "$t" .sh)
        if mkdir "$tmp/$base.running" 2>/dev/null; then
          if mkdir "$tmp/$k.claim" 2>/dev/null; then
            "$t" > "$tmp/$k.out" 2>&1
            echo $? > "$tmp/$k.rc"
          fi
          rmdir "$tmp/$base.running"
        else
          left=1
        fi
      fi
      k=$((k + 1))
    done
    [ "$left" = 1 ] || break
    sleep 1
  done
}
lane emu &
j=1
while [ "$j" -lt "$jobs" ]; do
  lane native &
  j=$((j + 1))
done
lane native
wait

passed=0; failed=0; skipped=0
k=1
while [ "$k" -le "$n" ]; do
  eval "t=\$name_$k"; out=$(cat "$tmp/$k.out"); rc=$(cat "$tmp/$k.rc")
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
    echo "FAILED: ${t%.ran} (exit $rc)"
  else
    printf '%-28s %s\n' "${t%.ran}" "$(printf '%s' "$line" | sed 's/^[^:]*: //')"
    printf '%s\n' "$out" | grep -E '^SKIP [0-9]+: ' | sed 's/^/    /'
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
