#!/usr/bin/env bash
# Mutation testing (`make mutants`, issue 16): plants each bug of tests/mutants.txt, one at
# a time, in a COPY of llm.h (in a temp dir; the tracked llm.h is never touched), builds
# the tests that mutant names against the copy (-I<copy> before -I., the Makefile's test
# flags) in each build variant, runs them with ../shared and without it, and prints a
# table: mutant | function | caught / NOT CAUGHT / PATTERN NOT FOUND | which tests caught it.
#
# A mutant is caught when some test program fails (a failed check or any non-zero exit),
# crashes, or hangs past MUTANT_TIMEOUT ("caught (hang)"). One that does not compile is
# "caught (build)": a bad mutant, rewrite it. Exit status 0 only when every mutant is
# caught in every setting run and every pattern is found exactly once in its function.
# The unmutated copy is built and run first (the baseline): a test that fails without
# any mutant makes the run meaningless, so that is an error (exit 2).
#
# To add a mutant: append a block to tests/mutants.txt (its header says the format), check
# the pattern with `bash tests/mutants.sh --list`, then `make mutants M=<name>`.
#
#   M=a,b                   only these mutants (make mutants M=a,b)
#   MUTANT_VARIANTS="native scalar"   build variants (also avx2f16c, avx2, avx512f); a
#                           mutant's `only` line replaces them for that mutant
#   MUTANTS_SHARED=0|1      run only without (0) or only with (1) ../shared; default both
#   MUTANT_TIMEOUT=120      seconds per test run; past it the run counts as a hang (caught)
#   MUTANT_JOBS=2           parallel builds and runs (the machine has 2 cores)
#   MUTANTS_ALL=1           build and run every listed test even after one has caught the
#                           mutant (default: the rest are skipped, in that setting)
#   MUTANTS_KEEP=1          keep the temp dir (copies, build and run logs) and say where
#   --list                  plant every mutant and report its pattern only; no builds
#
# CC, CSTD, WARN, OPT, THREADS, LDLIBS and FLAGS_<variant> come from the Makefile; the
# defaults below are the same.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SELF=$ROOT/tests/mutants.sh

: "${CC:=cc}" "${CSTD:=-std=c99}" "${WARN:=-Wall -Wextra -Werror -pedantic}" "${OPT:=-O2}"
: "${THREADS:=-DLLM_PTHREADS -pthread}" "${LDLIBS:=-lm}"
: "${FLAGS_native:=-march=native}" "${FLAGS_scalar:=-march=native -DLLM_NO_SIMD}"
: "${FLAGS_avx2f16c:=-mavx2 -mfma -mf16c}" "${FLAGS_avx2:=-mavx2 -mfma}" "${FLAGS_avx512f:=-mavx512f -mfma}"
: "${FLAGS_qz:=-march=native -DLLM_QZ=1}"
: "${MUTANT_VARIANTS:=native scalar}" "${MUTANT_TIMEOUT:=120}" "${MUTANT_JOBS:=2}"
: "${MUTANTS_LIST:=tests/mutants.txt}" "${M:=}"
export CC CSTD WARN OPT THREADS LDLIBS FLAGS_native FLAGS_scalar FLAGS_avx2f16c FLAGS_avx2 FLAGS_avx512f FLAGS_qz
export MUTANT_TIMEOUT ROOT SELF

# ---- one job: build tests/<t>.c against mutant m's copy in variant v, run it -------------
# (run by xargs in parallel; results go to $WORK/res/<m>.<v>.<t>: one "setting status" line
# per setting, status pass, fail, crash, hang or build)
# once out cmd...: runs cmd unless out exists; parallel jobs that need the same out wait for
# the one making it (a failed build leaves no out: the next one tries and fails too)
once() {
    local out=$1
    shift
    ( flock 9 && { [ -f "$out" ] || "$@"; } ) 9>"$out.lock"
}
if [ "${1:-}" = --job ]; then
    m=$2 v=$3 t=$4
    id=$m.$v.$t
    : >"$WORK/res/$id.tmp"
    bin=$WORK/bin/$id
    eval "flags=\$FLAGS_$v"
    # the settings still to run: those where no other job has caught this mutant yet
    todo=""
    for s in $SETTINGS; do
        if [ "$m" = _baseline ] || [ "${MUTANTS_ALL:-0}" = 1 ] || [ ! -f "$WORK/caught/$m.$s" ]; then
            todo="$todo $s"
        else
            echo "$s skip" >>"$WORK/res/$id.tmp"
        fi
    done
    if [ -z "$todo" ]; then
        mv "$WORK/res/$id.tmp" "$WORK/res/$id"
        exit 0
    fi
    # A test that #defines LLM_IMPLEMENTATION compiles alone against the copy; the others
    # link the copy's implementation, compiled once per mutant and variant (tests/impl.c),
    # and the test's own object, compiled once (as the Makefile builds them).
    # shellcheck disable=SC2086 # the flags are lists of words
    if grep -q '^[[:space:]]*#[[:space:]]*define[[:space:]][[:space:]]*LLM_IMPLEMENTATION' "tests/$t.c"; then
        $CC $CSTD $WARN $OPT $flags $THREADS -I"$WORK/m/$m" -I. "tests/$t.c" -o "$bin" $LDLIBS >"$WORK/log/$id.build" 2>&1
    else
        impl=$WORK/obj/$m.$v.llm_impl.o obj=$WORK/obj/$t.o
        once "$impl" $CC $CSTD $WARN $OPT $flags $THREADS -I"$WORK/m/$m" -c tests/impl.c -o "$impl" >"$WORK/log/$id.build" 2>&1 &&
            once "$obj" $CC $CSTD $WARN $OPT $FLAGS_native $THREADS -I. -c "tests/$t.c" -o "$obj" >>"$WORK/log/$id.build" 2>&1 &&
            $CC $OPT $flags $THREADS "$obj" "$impl" -o "$bin" $LDLIBS >>"$WORK/log/$id.build" 2>&1
    fi
    if [ ! -x "$bin" ]; then
        for s in $todo; do echo "$s build"; touch "$WORK/caught/$m.$s"; done >>"$WORK/res/$id.tmp"
        mv "$WORK/res/$id.tmp" "$WORK/res/$id"
        printf 'x' >&2
        exit 0
    fi
    for s in $todo; do
        # a private working directory each: tests write scratch files under build/
        rd=$WORK/run/$id.$s
        mkdir -p "$rd/build"
        if [ "$s" = shared ]; then models=$SHARED_MODELS vocab=$SHARED_VOCAB; else models=/nonexistent vocab=/nonexistent; fi
        (cd "$rd" && env -u LLM_REQUIRE_SHARED LLM_MODELS_DIR="$models" LLM_VOCAB_DIR="$vocab" \
            timeout -k 5 "$MUTANT_TIMEOUT" "$bin") >"$WORK/log/$id.$s" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then st=pass
        elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then st=hang
        elif [ $rc -gt 128 ]; then st=crash
        else st=fail; fi
        echo "$s $st" >>"$WORK/res/$id.tmp"
        [ $st = pass ] || touch "$WORK/caught/$m.$s"
    done
    mv "$WORK/res/$id.tmp" "$WORK/res/$id"
    rm -f "$bin"
    printf '.' >&2
    exit 0
fi

START=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/llm-mutants.XXXXXX") || exit 2
export WORK
if [ "${MUTANTS_KEEP:-0}" = 1 ]; then
    trap 'echo "mutants: kept $WORK"' EXIT
else
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK/m/_baseline" "$WORK/obj" "$WORK/bin" "$WORK/log" "$WORK/res" "$WORK/run" "$WORK/caught"
cp llm.h "$WORK/m/_baseline/llm.h"

# ---- plant: each mutant's copy in $WORK/m/<name>/llm.h, and a manifest -----------------
# manifest: name, function, status (ok | notfound <n> | nofunc), first and last line of the
# planted text in the copy, tests, variants, why; tab-separated
cat >"$WORK/plant.pl" <<'PERL'
use strict;
use warnings;
my ($list, $src, $work, $filter) = @ARGV;
my $text = do { local $/; open my $f, '<', $src or die "$src: $!\n"; <$f> };
# the header with comments, strings and character literals blanked (same offsets), so
# braces and parentheses inside them do not count
(my $masked = $text) =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')}
                         {(my $x = $1) =~ s/[^\n]/ /g; $x}gse;

sub closing { # offset of the bracket that closes the one at $p
    my ($p, $o, $c) = @_;
    my $depth = 0;
    for (my $i = $p; $i < length $masked; $i++) {
        my $ch = substr($masked, $i, 1);
        $depth++ if $ch eq $o;
        $depth-- if $ch eq $c;
        return $i if $depth == 0;
    }
    return undef;
}
sub bodies { # [start, end] of the body of every definition of function $name
    my ($name) = @_;
    my @r;
    while ($masked =~ /^[A-Za-z_][^;{}\n#=]*?\b\Q$name\E\s*\(/mg) {
        my $after = pos($masked);
        my $close = closing($after - 1, '(', ')');
        next unless defined $close;
        next unless substr($masked, $close + 1) =~ /^\s*\{/; # a declaration, not a definition
        my $open = $close + 1 + $+[0] - 1;
        my $end = closing($open, '{', '}');
        next unless defined $end;
        push @r, [$open, $end];
        pos($masked) = $end;
    }
    return @r;
}
sub literal_re { # words and symbols as written, any whitespace between them
    my ($s) = @_;
    $s =~ s/^\s+|\s+$//g;
    my $re = join '\s+', map { quotemeta } split /\s+/, $s;
    $re = '\b' . $re if $s =~ /^\w/;
    $re .= '\b' if $s =~ /\w$/;
    return qr/$re/;
}

my (@mutants, $cur, %seen);
open my $lf, '<', $list or die "$list: $!\n";
while (my $line = <$lf>) {
    chomp $line;
    next if $line =~ /^\s*#/;
    if ($line =~ /^\s*$/) { push @mutants, $cur if $cur; undef $cur; next }
    my ($k, $v) = $line =~ /^(\S+)\s*(.*?)\s*$/;
    die "$list:$.: unknown key '$k'\n" unless $k =~ /^(mutant|in|find|match|replace|tests|only|why)$/;
    $cur ||= { line => $. };
    $cur->{$k} = $v;
}
push @mutants, $cur if $cur;
my %want = map { $_ => 1 } grep { length } split /,/, $filter;
for my $m (@mutants) {
    my $n = $m->{mutant} // die "$list:$m->{line}: a block without 'mutant'\n";
    die "$list:$m->{line}: bad name '$n'\n" unless $n =~ /^\w+$/;
    die "$list:$m->{line}: '$n' twice\n" if $seen{$n}++;
    for my $k (qw(in tests replace)) { die "$list:$m->{line}: $n has no '$k'\n" unless defined $m->{$k} }
    die "$list:$m->{line}: $n needs exactly one of find and match\n"
        unless defined($m->{find}) != defined($m->{match});
}
for my $w (sort keys %want) { die "no mutant named '$w' in $list\n" unless $seen{$w} }

for my $m (@mutants) {
    my $n = $m->{mutant};
    next if %want && !$want{$n};
    my $re = defined $m->{match} ? qr/$m->{match}/ : literal_re($m->{find});
    my @b = bodies($m->{in});
    my ($status, $l0, $l1) = ('ok', 0, 0);
    my ($count, $hit) = (0, undef);
    for my $b (@b) {
        my $seg = substr($text, $b->[0], $b->[1] - $b->[0] + 1);
        my $c = () = $seg =~ /$re/g;
        $hit = $b if $c && !$hit;
        $count += $c;
    }
    if (!@b) {
        $status = 'nofunc';
    } elsif ($count != 1) {
        $status = "notfound $count";
    } else {
        my ($s, $e) = @$hit;
        my $seg = substr($text, $s, $e - $s + 1);
        $seg =~ /$re/ or die;
        my ($ms, $me) = ($-[0], $+[0]);
        my @g = map { defined $_ ? $_ : '' } ($1, $2, $3, $4, $5, $6, $7, $8, $9);
        my $rep = $m->{replace};
        $rep =~ s/\$(\d)/$g[$1 - 1]/g if defined $m->{match};
        substr($seg, $ms, $me - $ms) = $rep;
        my $out = substr($text, 0, $s) . $seg . substr($text, $e + 1);
        $l0 = 1 + (() = substr($text, 0, $s + $ms) =~ /\n/g);
        $l1 = $l0 + (() = $rep =~ /\n/g);
        mkdir "$work/m/$n" or die "$work/m/$n: $!\n";
        open my $o, '>', "$work/m/$n/llm.h" or die;
        print $o $out;
        close $o;
    }
    print join("\t", $n, $m->{in}, $status, $l0, $l1, $m->{tests}, $m->{only} // '-', $m->{why} // ''), "\n";
}
PERL
perl "$WORK/plant.pl" "$MUTANTS_LIST" llm.h "$WORK" "$M" >"$WORK/manifest" || exit 2

if [ "${1:-}" = --list ]; then
    awk -F'\t' '{ st = $3 == "ok" ? "ok (line " $4 ")" : $3 == "nofunc" ? "FUNCTION NOT FOUND" : \
                  "PATTERN NOT FOUND (" substr($3, 10) " matches)";
                  printf "%-28s %-22s %-22s %s\n", $1, $2, st, $8 }' "$WORK/manifest"
    ! grep -qv "	ok	" "$WORK/manifest"
    exit
fi

# ---- the settings: with ../shared (when it is there) and without ---------------------------
SHARED_MODELS="" SHARED_VOCAB=/nonexistent
[ -d ../shared/models ] && SHARED_MODELS=$(cd ../shared/models && pwd)
[ -d ../shared/vocab ] && SHARED_VOCAB=$(cd ../shared/vocab && pwd) # (test_vocab's real tokenizers)
case "${MUTANTS_SHARED:-}" in
    0) SETTINGS=noshared ;;
    1) SETTINGS=shared
       [ -n "$SHARED_MODELS" ] || { echo "mutants: MUTANTS_SHARED=1 but ../shared/models is missing"; exit 2; } ;;
    *) SETTINGS="shared noshared"
       [ -n "$SHARED_MODELS" ] || { echo "mutants: ../shared/models missing: only the no-shared runs"; SETTINGS=noshared; } ;;
esac
export SETTINGS SHARED_MODELS SHARED_VOCAB

# ---- the jobs: every (mutant, variant, test), after the baseline of each pair used --------
variants_of() { # a manifest line's variants: its `only`, else MUTANT_VARIANTS
    if [ "$1" != - ]; then echo "$1"; else echo "$MUTANT_VARIANTS"; fi
}
usable() { # variant $1 builds here
    case $1 in
    native | scalar) return 0 ;;
    qz) for f in avx512vbmi gfni avx512_bitalg avx512_vnni; do grep -qw $f /proc/cpuinfo 2>/dev/null || return 1; done ;;
    *) [ "$(uname -m)" = x86_64 ] ;;
    esac
}
: >"$WORK/jobs"
: >"$WORK/pairs"
while IFS='	' read -r name fn status l0 l1 tests only why; do
    [ "$status" = ok ] || continue
    k=0
    for t in $tests; do
        if [ ! -f "tests/$t.c" ]; then echo "mutants: $name: no tests/$t.c (skipped)"; continue; fi
        for v in $(variants_of "$only"); do
            usable "$v" || continue
            echo "$k $name $v $t" >>"$WORK/jobs"
            echo "$v $t" >>"$WORK/pairs"
            k=$((k + 1))
        done
    done
done <"$WORK/manifest"
# every mutant's first build, then every second one...: when a mutant's later builds come
# up, its first has usually decided it, and they are skipped (MUTANTS_ALL=1 runs them all)
sort -u "$WORK/pairs" | sed 's/^/_baseline /' >"$WORK/jobs.all"
sort -s -n -k1,1 "$WORK/jobs" | cut -d' ' -f2- >>"$WORK/jobs.all"
n_jobs=$(wc -l <"$WORK/jobs.all")
n_mut=$(wc -l <"$WORK/manifest")
echo "mutants: $n_mut mutants, up to $n_jobs builds ($(sort -u "$WORK/pairs" | wc -l) baseline), settings: $SETTINGS," \
     "variants: $MUTANT_VARIANTS, $MUTANT_JOBS jobs, timeout ${MUTANT_TIMEOUT}s"
xargs -r -P "$MUTANT_JOBS" -L 1 bash "$SELF" --job <"$WORK/jobs.all"
echo >&2

# ---- the baseline must pass --------------------------------------------------------------
bad_base=0
while read -r v t; do
    for s in $SETTINGS; do
        st=$(awk -v s="$s" '$1 == s { print $2 }' "$WORK/res/_baseline.$v.$t" 2>/dev/null)
        if [ "$st" != pass ]; then
            echo "BASELINE: $t ($v, $s) is '${st:-missing}' without any mutant:"
            tail -n 15 "$WORK/log/_baseline.$v.$t.$s" 2>/dev/null || tail -n 15 "$WORK/log/_baseline.$v.$t.build"
            bad_base=1
        fi
    done
done < <(sort -u "$WORK/pairs")

# ---- the table ---------------------------------------------------------------------------
# verdict and catchers of one mutant in one setting: "caught|test_a(native,scalar) ..."
verdict() {
    local name=$1 s=$2 lines=$3 f v t st any=0 build=0 hang=0 run=0 by="" where
    for f in "$WORK"/res/"$name".*; do
        [ -f "$f" ] || continue
        v=${f#"$WORK/res/$name."}; t=${v#*.}; v=${v%%.*}
        st=$(awk -v s="$s" '$1 == s { print $2 }' "$f")
        case $st in
            pass|skip|"") continue ;;
            build) build=1 ;;
            hang) hang=1 ;;
            *) run=1 ;;
        esac
        any=1
        by="$by $t:$v${st#fail}"
    done
    if [ $any = 0 ]; then
        if ls "$WORK"/res/"$name".* >/dev/null 2>&1; then echo "NOT CAUGHT|-"; else echo "NOT RUN (no variant builds here)|-"; fi
        return
    fi
    # "test_x:native test_x:scalarcrash" -> "test_x(native,scalar crash)"
    by=$(printf '%s\n' $by | sed 's/crash$/ crash/; s/hang$/ hang/; s/build$/ build/' |
         awk -F: '{ if (!($1 in s)) o[n++] = $1; s[$1] = s[$1] ($1 in s && s[$1] != "" ? "," : "") $2 }
                  END { for (i = 0; i < n; i++) printf "%s%s(%s)", i ? " " : "", o[i], s[o[i]] }')
    if [ $build = 1 ]; then
        where=elsewhere
        for l in $(seq "${lines%-*}" "${lines#*-}"); do
            grep -q "/m/$name/llm.h:$l:" "$WORK"/log/"$name".*.build 2>/dev/null && where="line $l"
        done
        echo "caught (build, $where)|$by"
    elif [ $run = 1 ]; then echo "caught|$by"
    else echo "caught (hang)|$by"; fi
}
fails=0
rows=""
while IFS='	' read -r name fn status l0 l1 tests only why; do
    vs=""; vn=""; bs="-"; bn="-"; bad=0
    if [ "$status" = ok ]; then
        for s in shared noshared; do
            case " $SETTINGS " in *" $s "*) ;; *) continue ;; esac
            r=$(verdict "$name" "$s" "$l0-$l1")
            case ${r%%|*} in caught*) ;; *) bad=1 ;; esac
            if [ $s = shared ]; then vs=${r%%|*}; bs=${r#*|}; else vn=${r%%|*}; bn=${r#*|}; fi
        done
    else
        if [ "$status" = nofunc ]; then vs="FUNCTION NOT FOUND"; else vs="PATTERN NOT FOUND (${status#notfound } matches)"; fi
        vn=$vs
        bad=1
    fi
    fails=$((fails + bad))
    [ -n "$vs" ] || vs="-"
    [ -n "$vn" ] || vn="-"
    [ "$bs" = "$bn" ] && [ "$bs" != - ] && bs="(same)"
    rows="$rows$name	$fn	$vn	$vs	$bn	$bs
"
done <"$WORK/manifest"
printf '%s' "$rows" | awk -F'\t' '
    BEGIN { h[1] = "mutant"; h[2] = "function"; h[3] = "without ../shared"; h[4] = "with ../shared"
            h[5] = "caught by (without ../shared)"; h[6] = "caught by (with ../shared)" }
    { for (i = 1; i <= 6; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
    END {
        for (i = 1; i <= 6; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
        for (r = 0; r <= NR; r++) {
            line = ""
            for (i = 1; i <= 6; i++) {
                v = r ? c[r, i] : h[i]
                line = line (i > 1 ? " | " : "") (i < 6 ? sprintf("%-" w[i] "s", v) : v)
            }
            print line
            if (!r) { line = ""; for (i = 1; i <= 6; i++) line = line (i > 1 ? "-|-" : "") sprintf("%" w[i] "s", "") ; gsub(/ /, "-", line); print line }
        }
    }'
END=$(date +%s)
n_built=$(find "$WORK/log" -name '*.build' | wc -l)
echo "mutants: $fails of $n_mut not caught (in some setting) or not found; $n_built builds" \
     "($((n_jobs - n_built)) skipped: already caught), $((END - START)) s ($(( (END - START) / 60 )) min $(( (END - START) % 60 )) s)"
[ $bad_base = 0 ] || { echo "mutants: the baseline fails: fix the tests first"; exit 2; }
[ $fails = 0 ]
