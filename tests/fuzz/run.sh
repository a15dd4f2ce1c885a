#!/bin/sh
# Runs each libFuzzer target named on the command line (built in build/fuzz) for
# FUZZ_SECONDS seconds over its seed corpus, then prints executions per target.
# Any crash, leak, UB report or timeout fails the run; the input that did it is left in
# build/fuzz/crash-<target>-*. Exit status 0 only if every target ran clean.
# FUZZ_REPLAY=1: no fuzzing, just run every seed and tests/fuzz/regress input once
# (deterministic; what CI runs).
S=${FUZZ_SECONDS:-60}
MODE="-max_total_time=$S"
[ "${FUZZ_REPLAY:-0}" = 1 ] && { MODE="-runs=0"; S=0; }
B=build/fuzz
mkdir -p "$B/corpus"
"$B/seeds" "$B/corpus" || { echo "fuzz: seed generation failed"; exit 1; }
bad=0
table=""
for t in "$@"; do
    mkdir -p "$B/corpus/$t"
    dirs="$B/corpus/$t"
    [ -d "tests/fuzz/regress/$t" ] && dirs="$dirs tests/fuzz/regress/$t"
    log="$B/$t.log"
    echo "fuzz: $t for ${S}s ($log)"
    # -timeout: one input taking > 10 s is a hang; -rss_limit_mb: a runaway allocation
    # (an unchecked size from a hostile header) is a finding, not an OOM of the machine.
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$B/$t" $MODE -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix="$B/crash-$t-" $FUZZ_ARGS $dirs >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    if [ "$rc" -eq 0 ]; then st=PASS; else st=FAIL; bad=1; grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5; fi
    table="$table$(printf '%-26s %-5s %12s execs  cov %s  (%ss)' "$t" "$st" "${execs:-?}" "${cov:-?}" "$S")
"
done
echo
echo "==== fuzz (FUZZ_SECONDS=$S) ===="
printf '%s' "$table"
exit $bad
