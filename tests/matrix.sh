#!/usr/bin/env bash
# The portability matrix (`make matrix`): the same tests built by every compiler, language
# standard, option set and CPU we can reach from this machine, then a table with one line
# per leg: PASS, FAIL, or SKIP with the reason (a missing tool is a SKIP, never a FAIL).
#
#   MATRIX_INSTALL=1      install missing tools with apt-get (root only) instead of skipping
#   MATRIX_LEGS="a b"     run only the legs whose names contain one of these words
#   MATRIX_EMU_TESTS=...  tests run under qemu (default: all of tests/test_*.c)
#   MATRIX_TIMEOUT=600    seconds per test program before it counts as failed
#   MATRIX_JOBS=N         parallel compiles within a leg (default: the number of CPUs)
#
# Logs: build/matrix/<leg>.log. Exit status: 0 unless a leg FAILed.
set -u
cd "$(dirname "$0")/.."
OUT=build/matrix
mkdir -p "$OUT"
TIMEOUT=${MATRIX_TIMEOUT:-600}
JOBS=${MATRIX_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
WARN="-Wall -Wextra -Werror -pedantic"
# test_mmap checks the LLM_MMAP build of make test only
TESTS=$(ls tests/test_*.c 2>/dev/null | sed 's@tests/@@; s@\.c$@@' | grep -v -x test_mmap)
EMU_TESTS=${MATRIX_EMU_TESTS:-$TESTS}
NATIVE_ARCH=""
[ "$(uname -m)" = x86_64 ] && NATIVE_ARCH="-march=native"
RESULTS=()
FAILED=0

have() { command -v "$1" >/dev/null 2>&1; }

# Install packages when allowed; return 0 if the install succeeded. After one failed
# attempt (no network, no apt) it stops trying, so a missing tool costs one timeout.
APT_BROKEN=0
try_install() {
    [ "${MATRIX_INSTALL:-0}" = 1 ] && [ "$APT_BROKEN" = 0 ] || return 1
    [ "$(id -u)" = 0 ] && have apt-get || return 1
    echo "matrix: apt-get install $*"
    export DEBIAN_FRONTEND=noninteractive
    timeout 300 apt-get install -y -qq --no-install-recommends "$@" >>"$OUT/apt.log" 2>&1 && return 0
    if timeout 120 apt-get update -qq >>"$OUT/apt.log" 2>&1 &&
        timeout 300 apt-get install -y -qq --no-install-recommends "$@" >>"$OUT/apt.log" 2>&1; then
        return 0
    fi
    echo "matrix: apt-get failed (see $OUT/apt.log); no more installs this run"
    APT_BROKEN=1
    return 1
}

wanted() { # is this leg selected by MATRIX_LEGS?
    [ -z "${MATRIX_LEGS:-}" ] && return 0
    local w
    for w in $MATRIX_LEGS; do case "$1" in *"$w"*) return 0 ;; esac; done
    return 1
}

record() { # leg status reason
    RESULTS+=("$(printf '%-26s %-5s %s' "$1" "$2" "$3")")
    [ "$2" = FAIL ] && FAILED=1
    printf 'matrix: %-26s %s %s\n' "$1" "$2" "$3"
}

# Can this compiler command build and run a trivial C program (through the runner)?
probe() { # name "cc flags" "runner" [lang]
    local d="$OUT/$1" lang=${4:-c}
    mkdir -p "$d"
    printf 'int main(void) { return 0; }\n' >"$d/probe.$lang"
    $2 "$d/probe.$lang" -o "$d/probe" >"$d/probe.log" 2>&1 || return 1
    $3 "$d/probe" >>"$d/probe.log" 2>&1
}

# A test that #defines LLM_IMPLEMENTATION itself compiles alone; the others link one object
# of tests/impl.c (the implementation, the test allocator, the internals' wrappers) per leg,
# as in the Makefile. With LLM_STATIC a file's copy is private to it, so there each test is
# one translation unit with tests/impl.c in front (-include; a test's _POSIX_C_SOURCE, which
# must come before any system header, is given on the command line).
self_impl() { grep -q '^[[:space:]]*#[[:space:]]*define[[:space:]][[:space:]]*LLM_IMPLEMENTATION' "tests/$1.c"; }

# Build every test (or the list in $4) with one compiler command, run them through
# tests/run.sh (via a wrapper when a runner such as qemu is needed), and record the leg.
# leg name, "cc and flags" (without -o), runner ("" = native), tests
leg_tests() {
    local name=$1 cc=$2 runner=$3 tests=${4:-$TESTS} d="$OUT/$1" t bins="" log="$OUT/$1.log" static=0
    wanted "$name" || return 0
    rm -rf "$d"
    mkdir -p "$d"
    : >"$log"
    case " $cc " in *" -DLLM_STATIC "*) static=1 ;; esac
    # compile in parallel (MATRIX_JOBS, default the number of CPUs), one log per test: first
    # the implementation object and the tests that bring their own, then the tests linked to it
    echo "+ $cc -I. [-c tests/impl.c | tests/<test>.c [$d/llm_impl.o] | -include tests/impl.c tests/<test>.c] -o ... -lm  for: $(echo $tests)" >>"$log"
    : >"$d/phase1"
    : >"$d/phase2"
    [ $static = 1 ] || echo "$cc -I. -c tests/impl.c -o $d/llm_impl.o >$d/llm_impl.build.log 2>&1" >>"$d/phase1"
    for t in $tests; do
        if self_impl "$t"; then
            echo "$cc -I. tests/$t.c -o $d/$t -lm >$d/$t.build.log 2>&1" >>"$d/phase1"
        elif [ $static = 1 ]; then
            posix=$(sed -n 's/^#define _POSIX_C_SOURCE \([0-9]*L\).*/-D_POSIX_C_SOURCE=\1/p' "tests/$t.c")
            echo "$cc $posix -I. -include tests/impl.c tests/$t.c -o $d/$t -lm >$d/$t.build.log 2>&1" >>"$d/phase1"
        else
            echo "$cc -I. tests/$t.c $d/llm_impl.o -o $d/$t -lm >$d/$t.build.log 2>&1" >>"$d/phase2"
        fi
    done
    xargs -d '\n' -P "$JOBS" -I{} sh -c '{}' <"$d/phase1"
    if [ $static = 0 ]; then
        cat "$d/llm_impl.build.log" >>"$log"
        if [ ! -f "$d/llm_impl.o" ]; then
            record "$name" FAIL "compile error in tests/impl.c (see $log)"
            return 0
        fi
    fi
    xargs -d '\n' -P "$JOBS" -I{} sh -c '{}' <"$d/phase2"
    for t in $tests; do
        cat "$d/$t.build.log" >>"$log"
        if [ ! -x "$d/$t" ]; then
            record "$name" FAIL "compile error in $t (see $log)"
            return 0
        fi
    done
    for t in $tests; do
        if [ -n "$runner" ]; then
            printf '#!/bin/sh\nexec timeout %s %s %s "$@"\n' "$TIMEOUT" "$runner" "$d/$t" >"$d/$t.sh"
        else
            printf '#!/bin/sh\nexec timeout %s %s "$@"\n' "$TIMEOUT" "$d/$t" >"$d/$t.sh"
        fi
        chmod +x "$d/$t.sh"
        bins="$bins $d/$t.sh"
    done
    local summary
    if sh tests/run.sh $bins >>"$log" 2>&1; then
        summary=$(tail -n 1 "$log")
        record "$name" PASS "$summary${5:-}"
    else
        summary=$(tail -n 1 "$log")
        record "$name" FAIL "$summary (see $log)"
    fi
}

# The header with its implementation as C++ (tests/cxx_check.cpp), built and run.
leg_cxx() { # name "c++ and flags"
    local name=$1 cxx=$2 d="$OUT/$1" log="$OUT/$1.log"
    wanted "$name" || return 0
    mkdir -p "$d"
    echo "+ $cxx -I. tests/cxx_check.cpp -o $d/cxx_check -lm" >"$log"
    if ! $cxx -I. tests/cxx_check.cpp -o "$d/cxx_check" -lm >>"$log" 2>&1; then
        record "$name" FAIL "compile error (see $log)"
    elif "$d/cxx_check" >>"$log" 2>&1; then
        record "$name" PASS "$(tail -n 1 "$log")"
    else
        record "$name" FAIL "$(tail -n 1 "$log") (see $log)"
    fi
}

# LLM_NO_STDIO: a TU using only buffer-based APIs must compile without <stdio.h> and its
# object must not reference any stdio function.
leg_nostdio() { # name "cc and flags"
    local name=$1 cc=$2 d="$OUT/$1" log="$OUT/$1.log" syms
    wanted "$name" || return 0
    mkdir -p "$d"
    echo "+ $cc -DLLM_NO_STDIO -I. -c tests/nostdio_check.c" >"$log"
    if ! $cc -DLLM_NO_STDIO -I. -c tests/nostdio_check.c -o "$d/nostdio_check.o" >>"$log" 2>&1; then
        record "$name" FAIL "compile error (see $log)"
        return 0
    fi
    syms=$(nm -u "$d/nostdio_check.o" | awk '{print $NF}' |
        grep -E '^_?(f?open|fdopen|freopen|f?close|f?read|f?write|f?seeko?|f?tello?|rewind|f?printf|v?s?n?printf|f?puts|f?putc|putchar|f?getc|fgets|getchar|perror|fflush|setvbuf|stdout|stderr|stdin|tmpfile)(64)?$' |
        tr '\n' ' ')
    if [ -n "$syms" ]; then
        record "$name" FAIL "stdio symbols referenced: $syms"
        return 0
    fi
    if $cc -DLLM_NO_STDIO -I. tests/nostdio_check.c -o "$d/nostdio_check" -lm >>"$log" 2>&1 &&
        "$d/nostdio_check" >>"$log" 2>&1; then
        record "$name" PASS "no stdio symbols; buffer APIs ran"
    else
        record "$name" FAIL "build or run failed (see $log)"
    fi
}

# LLM_STATIC: two private copies of the implementation and a third in one program.
leg_static() { # name cc
    local name=$1 cc=$2 d="$OUT/$1" log="$OUT/$1.log"
    wanted "$name" || return 0
    mkdir -p "$d"
    : >"$log"
    if $cc -DLLM_STATIC -DPART_A -I. -c tests/link_static.c -o "$d/a.o" >>"$log" 2>&1 &&
        $cc -DLLM_STATIC -DPART_B -I. -c tests/link_static.c -o "$d/b.o" >>"$log" 2>&1 &&
        $cc -DLLM_STATIC -I. tests/link_static.c "$d/a.o" "$d/b.o" -o "$d/static_check" -lm >>"$log" 2>&1 &&
        "$d/static_check" >>"$log" 2>&1; then
        record "$name" PASS "three static copies link and run"
    else
        record "$name" FAIL "see $log"
    fi
}

echo "matrix: tests: $(echo $TESTS)"

# ---- native compilers: C99 and C11, with and without SIMD and threads ----------------
for cc in gcc clang; do
    if ! have $cc; then
        try_install $cc || true
    fi
    if ! have $cc; then
        for l in c99 c11 c99-nosimd c11-pthreads static nostdio; do
            wanted "$cc-$l" && record "$cc-$l" SKIP "$cc not installed"
        done
        continue
    fi
    leg_tests "$cc-c99" "$cc -std=c99 $WARN -O2 $NATIVE_ARCH" ""
    leg_tests "$cc-c99-nosimd" "$cc -std=c99 $WARN -O2 -DLLM_NO_SIMD" ""
    leg_tests "$cc-c11-pthreads" "$cc -std=c11 $WARN -O2 $NATIVE_ARCH -DLLM_PTHREADS -pthread" ""
    leg_tests "$cc-c99-O3-static" "$cc -std=c99 $WARN -O3 $NATIVE_ARCH -DLLM_STATIC -DLLM_PTHREADS -pthread" ""
    leg_static "$cc-link-static" "$cc -std=c99 $WARN -O2"
    leg_nostdio "$cc-nostdio" "$cc -std=c99 $WARN -O2"
done

# ---- the header compiled as C++ -------------------------------------------------------
for cxx in g++ clang++; do
    for std in c++11 c++17; do
        if ! have $cxx; then
            wanted "$cxx-$std" && record "$cxx-$std" SKIP "$cxx not installed"
            continue
        fi
        leg_cxx "$cxx-$std" "$cxx -std=$std $WARN -O2 $NATIVE_ARCH -DLLM_PTHREADS -pthread"
    done
    have $cxx && leg_cxx "$cxx-c++11-nosimd" "$cxx -std=c++11 $WARN -O2 -DLLM_NO_SIMD"
done

# ---- tcc: a minimal C99 compiler without intrinsics ----------------------------------
if ! have tcc; then try_install tcc || true; fi
if have tcc; then
    leg_tests "tcc-nosimd" "tcc -std=c99 -Wall -Werror -DLLM_NO_SIMD" ""
    leg_tests "tcc-nosimd-pthreads" "tcc -std=c99 -Wall -Werror -DLLM_NO_SIMD -DLLM_PTHREADS -pthread" ""
else
    wanted tcc && record "tcc-nosimd" SKIP "tcc not installed (apt-get install tcc)"
fi

# ---- 32-bit x86 (x87 floating point unless the compiler picks SSE) ------------------
if wanted m32; then
    runner=none
    M32="gcc -m32"
    # Debian's gcc-multilib package provides the /usr/include/asm symlink; installing a
    # cross gcc removes that package (they conflict) and -m32 then misses <asm/errno.h>.
    # The x86-64 asm headers serve i386 too: point a private include dir at them.
    if ! echo '#include <errno.h>' | gcc -m32 -E -x c - >/dev/null 2>&1 && [ -d /usr/include/x86_64-linux-gnu/asm ]; then
        mkdir -p "$OUT/m32-include"
        ln -sfn /usr/include/x86_64-linux-gnu/asm "$OUT/m32-include/asm"
        M32="gcc -m32 -isystem $OUT/m32-include"
    fi
    m32_probe() { # the kernel may lack 32-bit support: then run under qemu-i386
        if probe m32 "$M32" ""; then runner=""; elif have qemu-i386 && probe m32 "$M32" qemu-i386; then runner=qemu-i386; fi
    }
    m32_probe
    if [ "$runner" = none ] && try_install gcc-multilib; then m32_probe; fi
    if [ "$runner" != none ]; then
        # qemu-i386 emulates x87 in software: the two compute-heavy suites (attention,
        # GEMM shapes) take over 10 minutes there, so emulated runs skip them (the
        # scalar code they test is the same code the other 32-bit tests run)
        m32_tests=$TESTS
        m32_note=""
        if [ -n "$runner" ]; then
            m32_tests=${MATRIX_M32_TESTS:-$(printf '%s\n' $TESTS | grep -v -e '^test_attention$' -e '^test_kernels$')}
            m32_note=", run under $runner; test_attention and test_kernels skipped"
        fi
        leg_tests "gcc-m32" "$M32 -std=c99 $WARN -O2 -DLLM_PTHREADS -pthread" "$runner" "$m32_tests" \
            " (x87 math$m32_note)"
        leg_tests "gcc-m32-sse-nosimd" "$M32 -msse2 -mfpmath=sse -std=c99 $WARN -O2 -DLLM_NO_SIMD" "$runner" "$m32_tests" \
            " (SSE math$m32_note)"
    else
        record "gcc-m32" SKIP "gcc -m32 cannot build or run (needs gcc-multilib; qemu-i386 if the kernel has no 32-bit support)"
    fi
fi

# ---- cross targets under qemu-user: AArch64 (NEON) and big-endian s390x -----------------
# Prefer the target's gcc; else clang --target with the Debian cross libc (the cross gcc
# packages conflict with gcc-multilib on Debian 12, the cross libc packages do not).
cross_leg() { # name triple qemu "packages for clang" "extra flags" note [tests [tests for clang]]
    local name=$1 triple=$2 qemu=$3 pkgs=$4 extra=$5 note=$6 tests=${7:-$EMU_TESTS} cc ran=0
    local ctests=${8:-$tests}
    wanted "$name" || return 0
    have "$qemu" || try_install qemu-user || true
    if ! have "$qemu"; then
        record "$name" SKIP "$qemu not installed (apt-get install qemu-user)"
        return 0
    fi
    # each compiler that can build for the target is its own leg: gcc 12's aarch64
    # vectorizer has crashed (ICE) on this code where clang did not
    if have "$triple-gcc" && probe "$name-gcc" "$triple-gcc -static" "$qemu"; then
        leg_tests "$name-gcc" "$triple-gcc -static -std=c99 $WARN -O2 $extra -DLLM_PTHREADS -pthread" "$qemu" \
            "$tests" " ($triple-gcc under $qemu$note)"
        ran=1
    fi
    cc="clang --target=$triple"
    if have clang && { probe "$name-clang" "$cc -static" "$qemu" ||
        { try_install $pkgs && probe "$name-clang" "$cc -static" "$qemu"; }; }; then
        leg_tests "$name-clang" "$cc -static -std=c99 $WARN -O2 $extra -DLLM_PTHREADS -pthread" "$qemu" \
            "$ctests" " ($cc under $qemu$note)"
        ran=1
    fi
    [ "$ran" = 1 ] || record "$name" SKIP "no $triple compiler (needs $triple-gcc, or clang + $pkgs)"
}
cross_leg aarch64-neon aarch64-linux-gnu qemu-aarch64 \
    "libc6-dev-arm64-cross libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu" "" ""
# Big-endian: every test. The file writers and the file tests are byte-order-free; where
# llm_gguf_load / llm_hf_load refuse a big-endian host by design, the tests check that
# refusal instead of the run.
# Under qemu-s390x older than 8.0 (Debian 12 has 7.2) MDEB / MDEBR, the multiply of two
# floats into a double, compute wrong products (1.5f x 2.0f gives 0.25): qemu's bug, fixed
# in its 8.0. clang emits them for (double)a * b, gcc does not, so where the probe below
# sees the bug test_train (whose double sums are made that way) runs in the gcc leg only.
mdeb_ok() {
    local d="$OUT/mdeb-probe"
    mkdir -p "$d"
    printf '%s\n' '#include <stdio.h>' 'int main(void) { float a = 1.5f, b = 2.0f; double r;' \
        '__asm__ volatile("ler %%f2, %1\n\tler %%f4, %2\n\tmdebr %%f2, %%f4\n\tldr %0, %%f2" : "=f"(r) : "f"(a), "f"(b) : "f2", "f4");' \
        'return r == 3.0 ? 0 : 1; }' >"$d/p.c"
    clang --target=s390x-linux-gnu -static -O0 "$d/p.c" -o "$d/p" >/dev/null 2>&1 && qemu-s390x "$d/p"
}
BE_CLANG_TESTS=$EMU_TESTS
if wanted s390x-bigendian && have clang && have qemu-s390x && ! mdeb_ok; then
    BE_CLANG_TESTS=$(printf '%s\n' $EMU_TESTS | grep -v -x test_train)
fi
cross_leg s390x-bigendian s390x-linux-gnu qemu-s390x \
    "libc6-dev-s390x-cross libgcc-12-dev-s390x-cross binutils-s390x-linux-gnu" "" ", big-endian" "$EMU_TESTS" "$BE_CLANG_TESTS"

# ---- the table ------------------------------------------------------------------------
echo
echo "==== llm.h portability matrix ===="
printf '%s\n' "${RESULTS[@]}"
n_pass=$(printf '%s\n' "${RESULTS[@]}" | awk '$2 == "PASS"' | wc -l)
n_fail=$(printf '%s\n' "${RESULTS[@]}" | awk '$2 == "FAIL"' | wc -l)
n_skip=$(printf '%s\n' "${RESULTS[@]}" | awk '$2 == "SKIP"' | wc -l)
echo "matrix: $n_pass legs passed, $n_fail failed, $n_skip skipped"
exit $FAILED
