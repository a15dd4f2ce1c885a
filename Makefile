# llm.h build. Everything goes into build/; nothing to install.
#   make demo      build and run the examples tour (numbered examples, in order)
#   make test      every test as C99 (-Wall -Wextra -Werror -pedantic) in every build whose
#                  code paths differ: native SIMD, scalar (-DLLM_NO_SIMD) and, on x86-64,
#                  AVX2+FMA with F16C (what AVX2 CPUs run), AVX2+FMA without it, AVX512F
#                  alone and native with -DLLM_QZ=1 (when this CPU runs them); the file
#                  tests with -DLLM_MMAP; the NEON
#                  build under qemu-aarch64 (SKIP when qemu-user or gcc-aarch64-linux-gnu
#                  is missing); the header compiled as C++11, and the link checks; ends with
#                  "N passed, N failed, N skipped"
#   make sanitize  the tests under ASan + UBSan (gcc, and clang when its runtime works; the
#                  ggml kernel tests with -DLLM_QZ=1 too where make test has a qz variant)
#   make matrix / valgrind / fuzz: see the hardening block below
#   make mutants   plant each bug of tests/mutants.txt in a copy of llm.h, run its tests with
#                  and without ../shared, table of caught / NOT CAUGHT (M=name,name to pick)
#   make bench     throughput beside this machine's own roofs
#   make neon      the kernel, attention and model tests built for aarch64 (NEON), run under qemu-aarch64
#   make clean
CC ?= cc
CXX ?= c++
OPT ?= -O2
ARCH ?= -march=native
WARN = -Wall -Wextra -Werror -pedantic
CSTD = -std=c99
THREADS = -DLLM_PTHREADS -pthread
LDLIBS = -lm
B = build

UNAME_M := $(shell uname -m)
# test_mmap runs in the LLM_MMAP build only (TEST_MMAP below)
TESTS    := $(filter-out test_mmap,$(patsubst tests/%.c,%,$(wildcard tests/test_*.c)))
EXAMPLES := $(patsubst examples/%.c,%,$(sort $(wildcard examples/[0-9]*.c)))
TOOLS    := $(patsubst examples/%.c,%,$(wildcard examples/llm-*.c))
BENCHES  := $(patsubst bench/%.c,%,$(wildcard bench/bench_*.c))
DEPS = llm.h tests/test.h tests/internals.h tests/ckpt_writer.h tests/gguf_writer.h tests/st_writer.h tests/filecheck.h tests/tok_reference.h tests/ref_model.h $(wildcard examples/*.h)

TEST_VARIANTS = native scalar
ifeq ($(UNAME_M),x86_64)
# avx2f16c is the path real AVX2 CPUs take under -march=native; avx2 alone keeps the
# F16C-less fp16 conversions run
TEST_VARIANTS += avx2f16c avx2
# AVX-512 Foundation alone (no DQ, BW, VNNI: Skylake's and Knights Landing's common base),
# when this CPU can run it: the header must not reach past AVX512F in its AVX-512 paths
ifneq ($(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo yes),)
TEST_VARIANTS += avx512f
endif
# the two-blocks-per-512-bit-vector kernels (LLM_QZ=1), when this CPU has their ISA: native
# builds tuned for AMD Zen 4 leave them out (llm.h says why), so they get a build of their own
ifeq ($(shell grep -qw avx512vbmi /proc/cpuinfo && grep -qw gfni /proc/cpuinfo && grep -qw avx512_bitalg /proc/cpuinfo && grep -qw avx512_vnni /proc/cpuinfo && echo yes),yes)
TEST_VARIANTS += qz
endif
# AVX-512 with VNNI but without GFNI, VBMI or BITALG (Cascade Lake's set), when this CPU
# runs it: the forms of the ggml kernels that native builds on newer CPUs replace
ifeq ($(shell grep -qw avx512_vnni /proc/cpuinfo 2>/dev/null && grep -qw avx512bw /proc/cpuinfo && echo yes),yes)
VNNI_TESTS := $(filter test_quant test_ggml_quants test_batch,$(TESTS))
endif
endif
FLAGS_native  = $(ARCH)
FLAGS_scalar  = $(ARCH) -DLLM_NO_SIMD
FLAGS_avx2    = -mavx2 -mfma
FLAGS_avx2f16c = -mavx2 -mfma -mf16c
FLAGS_avx512f = -mavx512f -mfma
FLAGS_qz      = $(ARCH) -DLLM_QZ=1

# Every test in native and scalar. The ISA builds (a link each, below) run the tests whose
# code paths differ by ISA: not the text and hostile-input ones (tokenizers, Unicode, chat).
ISA_SKIP := test_tokenizer test_hostile test_vocab test_unicode test_chat
TEST_BINS = $(foreach v,native scalar,$(addprefix $(B)/test/$(v)/,$(TESTS))) \
            $(foreach v,$(filter-out native scalar,$(TEST_VARIANTS)),$(addprefix $(B)/test/$(v)/,$(filter-out $(ISA_SKIP),$(TESTS)))) \
            $(addprefix $(B)/test/vnni/,$(VNNI_TESTS))
# LLM_MMAP (POSIX): the tests that load files, with the files mapped instead of read, and
# test_mmap, which checks the mapping itself
MMAP_TESTS := $(filter test_files test_gguf test_hf test_hostile,$(TESTS)) test_mmap
TEST_MMAP = $(addprefix $(B)/test/mmap/,$(MMAP_TESTS))
LINK_BINS = $(B)/test/link/link_check $(B)/test/link/o0_check $(B)/test/link/static_check $(B)/test/link/cxx_check \
            $(B)/test/link/readme_check $(B)/test/link/cli_check

# The NEON build of the kernel, attention and model tests, run under qemu-user (x86-64
# hosts; on AArch64 the native build is NEON already). Without the tools it is a SKIP.
# qemu is make test's slowest part (a third of its CPU, one program after another on one
# core): a make of its own builds and runs these, started first (test-neon, below).
NEON_TESTS := $(filter test_rowops test_quant test_kernels test_attention test_model test_ggml_quants,$(TESTS))
NEON_BINS = $(addprefix $(B)/neon/,$(NEON_TESTS)) $(B)/neon/dotprod/test_quant $(B)/neon/dotprod/test_ggml_quants
ifeq ($(UNAME_M),x86_64)
ifeq ($(shell command -v qemu-aarch64 >/dev/null 2>&1 && command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && echo yes),yes)
TEST_NEON = $(addsuffix .ran,$(NEON_BINS))
else
TEST_NEON = $(B)/test/link/neon_skip
endif
endif
$(B)/test/link/neon_skip: | $(B)/test/link
	printf '#!/bin/sh\necho "SKIP %s: the NEON build (%s test programs) under qemu: qemu-aarch64 or aarch64-linux-gnu-gcc missing (apt-get install qemu-user gcc-aarch64-linux-gnu)"\necho "neon: 0 passed, 0 failed, %s skipped"\n' \
	  $(words $(NEON_BINS)) $(words $(NEON_BINS)) $(words $(NEON_BINS)) > $@
	chmod +x $@

.PHONY: all demo test sanitize bench clean
.SECONDARY:

all: $(addprefix $(B)/,$(TOOLS)) $(addprefix $(B)/examples/,$(EXAMPLES))

# ---- tools and examples -------------------------------------------------------------
$(B)/llm-%: examples/llm-%.c llm.h $(wildcard examples/*.h) | $(B)
	$(CC) $(CSTD) $(WARN) $(OPT) $(ARCH) $(THREADS) -I. $< -o $@ $(LDLIBS)
$(B)/examples/%: examples/%.c llm.h | $(B)/examples
	$(CC) $(CSTD) $(WARN) $(OPT) $(ARCH) $(THREADS) -I. $< -o $@ $(LDLIBS)

demo: all
	@for e in $(EXAMPLES); do \
	  echo; echo "==== $$e: $$(sed -n '1s@^/\* *[^:]*: *@@; 1s@ *\*/ *$$@@p' examples/$$e.c)"; \
	  ./$(B)/examples/$$e || exit 1; \
	done
	@$(MAKE) --no-print-directory demo-run

# ---- >>model: build/llm-run in `make demo` (owned by the model section) --------------
# stories260K + synth512 from ../shared/models when present, else the random checkpoint
# 08_generate writes; shows the token ids, whether all 257 are run.c's (when ../shared has
# them), then the text, speed and bytes per token.
DEMO_MODEL = ../shared/models/stories260K.bin
DEMO_TOK = ../shared/models/synth512.bin
DEMO_IDS = ../shared/models/stories260K.prompt.ids
demo-run: $(B)/llm-run $(B)/examples/08_generate $(B)/examples/09_train
	@echo; echo "==== llm-run: a llama2.c checkpoint with run.c's command line (build/llm-run)"
	@if [ -f $(DEMO_MODEL) ] && [ -f $(DEMO_TOK) ]; then m=$(DEMO_MODEL); t=$(DEMO_TOK); \
	  note="synth512 is not the vocabulary stories260K was trained with: gibberish text, but run.c's token ids"; \
	else m=$(B)/08_random.bin; t=$(B)/08_random_tok.bin; \
	  [ -f $$m ] || ./$(B)/examples/08_generate >/dev/null; \
	  note="../shared/models absent: random weights written by 08_generate, meaningless text"; fi; \
	echo "\$$ build/llm-run $$m -z $$t -t 0 -n 24 -i 'Once upon a time' --ids"; \
	./$(B)/llm-run $$m -z $$t -t 0 -n 24 -i "Once upon a time" --ids 2>/dev/null | tr '\n' ' '; echo; \
	if [ -f $(DEMO_IDS) ] && [ $$m = $(DEMO_MODEL) ]; then \
	  if ./$(B)/llm-run $$m -z $$t -t 0 -n 256 -i "Once upon a time" --ids 2>/dev/null | cmp -s - $(DEMO_IDS); \
	  then same=yes; else same=no; fi; \
	  echo "ids identical to run.c's (all 257 of $(DEMO_IDS), -n 256): $$same"; \
	else echo "ids identical to run.c's: comparison skipped (it needs $(DEMO_MODEL), $(DEMO_TOK) and $(DEMO_IDS))"; fi; \
	echo "\$$ build/llm-run $$m -z $$t -t 0 -n 256 -i 'Once upon a time'"; \
	./$(B)/llm-run $$m -z $$t -t 0 -n 256 -i "Once upon a time" 2>&1; \
	echo "($$note. For real stories: llama2.c's stories15M.bin and tokenizer.bin run as is:"; \
	echo " build/llm-run stories15M.bin -z tokenizer.bin -i 'Once upon a time')"
	@echo; echo "==== llm-run on the model 09_train learned (build/09_model.gguf: llama layout, 256 byte pieces)"
	@[ -f $(B)/09_model.gguf ] || ./$(B)/examples/09_train >/dev/null
	@echo "\$$ build/llm-run $(B)/09_model.gguf -t 0 -n 200 -i 'static '"
	@./$(B)/llm-run $(B)/09_model.gguf -t 0 -n 200 -i "static "
.PHONY: demo-run

# ---- tests --------------------------------------------------------------------------
# The header's implementation is compiled once per build (tests/impl.c -> <dir>/llm_impl.o,
# with the test allocator and the internals some tests call: tests/internals.h), not once
# per test. Each test is compiled once per compiler into <objects>/<test>.o (it calls the
# public API and those wrappers only, so the builds' ISA flags do not change it) and linked
# with each build's llm_impl.o. A test that #defines LLM_IMPLEMENTATION itself would compile
# alone in each build (a whole -O2 compile of the header each): which is which is read from
# the test files.
SELF_IMPL := $(patsubst tests/%.c,%,$(shell grep -l '^[[:space:]]*\#[[:space:]]*define[[:space:]][[:space:]]*LLM_IMPLEMENTATION' tests/test_*.c))
# $(call TEST_SET,dir,compile command,objects dir,tests[,suffix]): the rules for <dir>/<test><suffix>
define TEST_SET
$(1)/llm_impl.o: tests/impl.c tests/internals.h llm.h
	@mkdir -p $$(@D)
	$(2) -I. -c $$< -o $$@
$(addsuffix $(5),$(addprefix $(1)/,$(filter $(SELF_IMPL),$(4)))): $(1)/%$(5): tests/%.c $(DEPS)
	@mkdir -p $$(@D)
	$(2) -I. $$< -o $$@ $$(LDLIBS)
$(addsuffix $(5),$(addprefix $(1)/,$(filter-out $(SELF_IMPL),$(4)))): $(1)/%$(5): $(1)/llm_impl.o $(3)/%.o
	$(2) $$^ -o $$@ $$(LDLIBS)
endef
# $(call TEST_OBJS,objects dir,compile command)
define TEST_OBJS
$(1)/%.o: tests/%.c $(DEPS)
	@mkdir -p $$(@D)
	$(2) -I. -c $$< -o $$@
endef
$(eval $(call TEST_OBJS,$(B)/test/obj,$(CC) $(CSTD) $(WARN) $$(OPT) $(ARCH) $(THREADS)))
# Tests whose compile at -O2 costs more than all their runs (the runs are in llm_impl.o,
# -O2 as shipped; measured: test_gguf 2.9 s of CPU to compile at -O2, 1.6 at -O1, 0.1 a
# run): their own code at -O1
TEST_O1 := test_gguf test_hf test_estimate test_gen test_files test_hostile test_config test_json test_chat test_mmap
$(patsubst %,$(B)/test/obj/%.o,$(filter $(TEST_O1),$(TESTS) test_mmap)): OPT = -O1
$(foreach v,$(TEST_VARIANTS),$(eval $(call TEST_SET,$(B)/test/$(v),$(CC) $(CSTD) $(WARN) $(OPT) $(FLAGS_$(v)) $(THREADS),$(B)/test/obj,$(TESTS))))
$(eval $(call TEST_SET,$(B)/test/vnni,$(CC) $(CSTD) $(WARN) $(OPT) -march=cascadelake $(THREADS),$(B)/test/obj,$(VNNI_TESTS)))
$(eval $(call TEST_SET,$(B)/test/mmap,$(CC) $(CSTD) $(WARN) $(OPT) $(ARCH) -DLLM_MMAP $(THREADS),$(B)/test/obj,$(MMAP_TESTS)))

# A misspelled LLM_IMPLEMENTATION compiles and links to nothing: link a user file
# against an implementation file. LLM_STATIC: two private copies in one program.
# The header must also compile as C++11 with the implementation. (The compiles make their
# directory themselves: a prerequisite still to be made, even a directory, puts a compile
# in make test's next round, after every other compile.)
$(B)/test/link/link_impl.o: tests/link_impl.c llm.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -c $< -o $@
$(B)/test/link/link_check: tests/link_user.c $(B)/test/link/link_impl.o llm.h | $(B)/test/link
	$(CC) $(CSTD) $(WARN) $(OPT) -I. tests/link_user.c $(B)/test/link/link_impl.o -o $@ $(LDLIBS)
# The same user file against an implementation built unoptimized for this CPU, in C11:
# gcc -O0 warns about loop annotations (LLM__UNROLL) it cannot keep, which -O2 never shows.
$(B)/test/link/o0_impl.o: tests/link_impl.c llm.h
	@mkdir -p $(@D)
	$(CC) -std=c11 $(WARN) -O0 $(ARCH) -I. -c $< -o $@
$(B)/test/link/o0_check: tests/link_user.c $(B)/test/link/o0_impl.o llm.h | $(B)/test/link
	$(CC) -std=c11 $(WARN) -O0 $(ARCH) -I. tests/link_user.c $(B)/test/link/o0_impl.o -o $@ $(LDLIBS)
$(B)/test/link/static_check: tests/link_static.c llm.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -DLLM_STATIC -DPART_A -c tests/link_static.c -o $(B)/test/link/static_a.o
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -DLLM_STATIC -DPART_B -c tests/link_static.c -o $(B)/test/link/static_b.o
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -DLLM_STATIC tests/link_static.c \
	  $(B)/test/link/static_a.o $(B)/test/link/static_b.o -o $@ $(LDLIBS)
$(B)/test/link/cxx_check: tests/cxx_check.cpp llm.h
	@mkdir -p $(@D)
	$(CXX) -std=c++11 $(WARN) $(OPT) $(ARCH) $(THREADS) -I. $< -o $@ $(LDLIBS)

# The programs below (the README's example, the tools) each #define LLM_IMPLEMENTATION:
# built as is, each would compile the whole header at -O2 again (~15 s of CPU apiece, a
# fifth of make test's). Here they are built with tests/noimpl/llm.h ahead on the include
# path (the header, LLM_IMPLEMENTATION dropped) and linked with an implementation object
# built with their own flags: link_check's (-O2, no -march, no threads) for the example,
# the native tests' (-O2 -march=native -pthread, as `make all` builds the tools) for
# the tools.
NOIMPL = -Itests/noimpl
# The README's embedding example is a test too (tests/readme_check.sh says how).
$(B)/test/link/readme_example: tests/readme_example.c $(B)/test/link/link_impl.o llm.h tests/noimpl/llm.h | $(B)/test/link
	$(CC) $(CSTD) $(WARN) $(OPT) $(NOIMPL) -I. $< $(B)/test/link/link_impl.o -o $@ $(LDLIBS)
$(B)/test/link/readme_check: tests/readme_check.sh $(B)/test/link/readme_example README.md
	printf '#!/bin/sh\nexec sh tests/readme_check.sh $(B)/test/link/readme_example\n' > $@
	chmod +x $@

# The tools as a user meets them: bad invocations refused with the flag or file named,
# table and --json equal (tests/cli_check.sh says how).
CLI = $(B)/test/cli
$(CLI)/llm-%: examples/llm-%.c $(B)/test/native/llm_impl.o llm.h tests/noimpl/llm.h $(wildcard examples/*.h)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $(ARCH) $(THREADS) $(NOIMPL) -I. $< $(B)/test/native/llm_impl.o -o $@ $(LDLIBS)
$(CLI)/examples/%: examples/%.c $(B)/test/native/llm_impl.o llm.h tests/noimpl/llm.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $(ARCH) $(THREADS) $(NOIMPL) -I. $< $(B)/test/native/llm_impl.o -o $@ $(LDLIBS)
$(B)/test/link/cli_check: tests/cli_check.sh tests/cli_compare.awk $(CLI)/llm-run $(CLI)/llm-plan $(CLI)/llm-tokenize $(CLI)/examples/08_generate | $(B)/test/link
	printf '#!/bin/sh\nexec sh tests/cli_check.sh $(B) $(CLI)\n' > $@
	chmod +x $@

# make test runs each program as a make job as soon as it is linked (<program>.ran: its
# output and exit status, made again by every make; see the rule at the NEON block's end),
# so the runs fill the cores alongside the compiles, and run.sh replays the records.
# Programs of one name run one after the other (a test's scratch files under build/ have
# fixed names): each record after the one before it in TEST_RUNS. A plain make starts the
# jobs of every compile before those of any link (it walks the whole graph once per round):
# the NEON lane, whose qemu runs are the longest chain, is a make of its own (test-neon),
# started first, so its runs begin once its own objects are built.
TEST_RUNS = $(addsuffix .ran,$(TEST_BINS) $(TEST_MMAP) $(LINK_BINS))
chain = $(if $(word 2,$(1)),$(eval $(word 2,$(1)): | $(word 1,$(1)))$(call chain,$(wordlist 2,$(words $(1)),$(1))))
$(foreach t,$(TESTS) test_mmap,$(call chain,$(filter %/$(t).ran,$(TEST_RUNS))))
test-neon:
	@$(if $(TEST_NEON),$(MAKE) --no-print-directory $(TEST_NEON),:)
.PHONY: test-neon
# (the link checks' records first: their compiles are the longest left after the NEON lane's)
test: test-neon $(addsuffix .ran,$(LINK_BINS)) $(TEST_RUNS)
	@sh tests/run.sh $(TEST_RUNS) $(TEST_NEON)

# ---- mutation testing (issue 16): tests/mutants.sh says how; slow (minutes), not in CI --
mutants:
	@CC="$(CC)" CSTD="$(CSTD)" WARN="$(WARN)" OPT="$(OPT)" THREADS="$(THREADS)" LDLIBS="$(LDLIBS)" \
	  FLAGS_native="$(FLAGS_native)" FLAGS_scalar="$(FLAGS_scalar)" FLAGS_avx2f16c="$(FLAGS_avx2f16c)" \
	  FLAGS_avx2="$(FLAGS_avx2)" FLAGS_avx512f="$(FLAGS_avx512f)" FLAGS_qz="$(FLAGS_qz)" M="$(M)" bash tests/mutants.sh
.PHONY: mutants

# ---- sanitizers ---------------------------------------------------------------------
SAN = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
$(eval $(call TEST_OBJS,$(B)/san/obj,$(CC) $(CSTD) $(WARN) $(SAN) $(ARCH) $(THREADS)))
$(eval $(call TEST_SET,$(B)/san,$(CC) $(CSTD) $(WARN) $(SAN) $(ARCH) $(THREADS),$(B)/san/obj,$(TESTS)))
$(eval $(call TEST_SET,$(B)/san-scalar,$(CC) $(CSTD) $(WARN) $(SAN) -DLLM_NO_SIMD $(THREADS),$(B)/san/obj,$(TESTS)))
# clang too when its sanitizer runtime links (issue 6); SAN_CLANG= to skip it.
SAN_CLANG ?= $(shell echo 'int main(void){return 0;}' | clang -x c -fsanitize=address,undefined - -o /dev/null 2>/dev/null && echo clang)
SAN_BINS = $(addprefix $(B)/san/,$(TESTS)) $(addprefix $(B)/san-scalar/,$(TESTS)) \
           $(if $(SAN_CLANG),$(addprefix $(B)/san-clang/,$(TESTS)))
# clang's leg at -O0: at -O1 its sanitizers took over 45 minutes to compile the
# implementation for an AVX2 -march=native build, in llm__fx16_tiles' unrolled loops
# (bench/NOTES.md); gcc's legs keep -O1
SAN_CLANG_FLAGS = $(subst -O1,-O0,$(SAN))
$(eval $(call TEST_OBJS,$(B)/san-clang/obj,clang $(CSTD) $(WARN) $(SAN_CLANG_FLAGS) $(ARCH) $(THREADS)))
$(eval $(call TEST_SET,$(B)/san-clang,clang $(CSTD) $(WARN) $(SAN_CLANG_FLAGS) $(ARCH) $(THREADS),$(B)/san-clang/obj,$(TESTS)))
# and the ggml kernels' 512-bit tiles (LLM_QZ=1), where only make test's qz variant builds
# them (on AMD Zen 4 native builds leave them out): their masked tail loads under ASan
SAN_QZ_TESTS := $(if $(filter qz,$(TEST_VARIANTS)),$(filter test_ggml_quants test_batch test_model,$(TESTS)))
$(eval $(call TEST_SET,$(B)/san-qz,$(CC) $(CSTD) $(WARN) $(SAN) $(FLAGS_qz) $(THREADS),$(B)/san/obj,$(SAN_QZ_TESTS)))
SAN_BINS += $(addprefix $(B)/san-qz/,$(SAN_QZ_TESTS))
sanitize: $(SAN_BINS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  sh tests/run.sh $(SAN_BINS)

# ---- benchmarks ---------------------------------------------------------------------
BENCH_OPT = -O3
# bench_kernels compares with OpenBLAS when its header is installed; only that benchmark
# links it (llm.h never depends on it). BENCH_LIBS_<name> are per-benchmark extras.
# (OpenBLAS's own cblas.h: netlib's reference BLAS installs a cblas.h without openblas_*)
CBLAS_H := $(firstword $(shell grep -l openblas_set_num_threads $(wildcard /usr/include/cblas.h /usr/include/*/cblas.h \
             /usr/include/*/openblas*/cblas.h /usr/local/include/cblas.h) 2>/dev/null))
ifneq ($(CBLAS_H),)
BENCH_LIBS_bench_kernels = -DBENCH_OPENBLAS -lopenblas
endif
$(B)/bench/%: bench/%.c llm.h bench/roofs.h | $(B)/bench
	$(CC) $(CSTD) $(WARN) $(BENCH_OPT) $(ARCH) $(THREADS) -D_POSIX_C_SOURCE=200809L -I. -Ibench $< -o $@ $(LDLIBS) $(BENCH_LIBS_$*)
# the AVX2+FMA path of the same benchmark (x86-64), against OpenBLAS's Haswell kernel
BENCH_EXTRA =
ifeq ($(UNAME_M),x86_64)
BENCH_EXTRA = bench_kernels_avx2
$(B)/bench/bench_kernels_avx2: bench/bench_kernels.c llm.h bench/roofs.h | $(B)/bench
	$(CC) $(CSTD) $(WARN) $(BENCH_OPT) -mavx2 -mfma -mno-avx512f $(THREADS) -D_POSIX_C_SOURCE=200809L -I. -Ibench $< \
	  -o $@ $(LDLIBS) $(BENCH_LIBS_bench_kernels)
endif
bench: $(addprefix $(B)/bench/,$(BENCHES) $(BENCH_EXTRA))
	@for b in $(BENCHES) $(BENCH_EXTRA); do ./$(B)/bench/$$b || exit 1; done

# ---- hardening (issue 6): portability matrix, valgrind, fuzzing ---------------------
#   make matrix    gcc/clang C99/C11, C++11/17, tcc, NO_SIMD/NO_STDIO/STATIC/PTHREADS,
#                  -m32, AArch64 NEON and big-endian s390x under qemu; a PASS/FAIL/SKIP table
#                  (MATRIX_INSTALL=1 lets it apt-get missing tools; see tests/matrix.sh)
#   make analyze   cppcheck + clang-tidy (bugprone, cert, clang-analyzer) over the implementation
#   make valgrind  the scalar tests under valgrind memcheck (valgrind has no AVX-512)
#   make fuzz      each libFuzzer target in tests/fuzz for FUZZ_SECONDS (default 60)
#   make fuzz-replay  every seed and regression input once, no fuzzing (deterministic)
.PHONY: matrix valgrind fuzz fuzz-build fuzz-replay analyze
matrix:
	@bash tests/matrix.sh
analyze:
	@sh tests/analyze.sh

VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
$(eval $(call TEST_OBJS,$(B)/vg/obj,$(CC) $(CSTD) $(WARN) -O1 -g $(THREADS)))
$(eval $(call TEST_SET,$(B)/vg,$(CC) $(CSTD) $(WARN) -O1 -g -DLLM_NO_SIMD $(THREADS),$(B)/vg/obj,$(TESTS)))
$(B)/vg/%.sh: $(B)/vg/%
	@printf '#!/bin/sh\nexec $(VALGRIND) %s "$$@"\n' $< > $@ && chmod +x $@
valgrind: $(addsuffix .sh,$(addprefix $(B)/vg/,$(TESTS)))
	@sh tests/run.sh $(addsuffix .sh,$(addprefix $(B)/vg/,$(TESTS)))

FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. -Itests
FUZZERS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
# the estimators must not wrap a uint64_t either: unsigned overflow is a finding there
FUZZ_EXTRA_fuzz_config = -fsanitize=unsigned-integer-overflow
$(B)/fuzz/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_EXTRA_$*) $< -o $@ $(LDLIBS)
$(B)/fuzz/seeds: tests/fuzz/seeds.c $(wildcard tests/fuzz/*.h) $(DEPS)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -O1 -g -I. -Itests $< -o $@ $(LDLIBS)
fuzz-build: $(addprefix $(B)/fuzz/,$(FUZZERS)) $(B)/fuzz/seeds
fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZERS)
fuzz-replay: fuzz-build
	@FUZZ_REPLAY=1 sh tests/fuzz/run.sh $(FUZZERS)

# ---- neon: the kernel tests cross-compiled for aarch64, run under qemu-user ----------
# (block owned by the kernels/quant helpers) Needs gcc-aarch64-linux-gnu and qemu-user;
# falls back to clang --target when only the cross binutils and libc are installed.
NEON_CC ?= $(shell command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && echo aarch64-linux-gnu-gcc || \
             echo clang --target=aarch64-linux-gnu -fuse-ld=/usr/bin/aarch64-linux-gnu-ld)
NEON_RUN ?= qemu-aarch64
$(eval $(call TEST_OBJS,$(B)/neon/obj,$(NEON_CC) $(CSTD) $(WARN) -O2 $(THREADS)))
$(eval $(call TEST_SET,$(B)/neon,$(NEON_CC) $(CSTD) $(WARN) -static -O2 $(THREADS),$(B)/neon/obj,$(NEON_TESTS),.elf))
# test_quant and test_ggml_quants once more with the dot-product extension (sdot), which qemu's -cpu max has
$(eval $(call TEST_SET,$(B)/neon/dotprod,$(NEON_CC) $(CSTD) $(WARN) -static -O2 -march=armv8.2-a+dotprod $(THREADS),$(B)/neon/obj,test_quant test_ggml_quants,.elf))
# tests/run.sh runs programs, so each binary gets a two-line wrapper that calls qemu
$(B)/neon/%: $(B)/neon/%.elf
	@printf '#!/bin/sh\nexec %s %s "$$@"\n' "$(NEON_RUN)" "$<" > $@ && chmod +x $@
$(B)/neon/dotprod/%: $(B)/neon/dotprod/%.elf
	@printf '#!/bin/sh\nexec %s -cpu max %s "$$@"\n' "$(NEON_RUN)" "$<" > $@ && chmod +x $@
neon: $(NEON_BINS)
	@sh tests/run.sh $(NEON_BINS)
.PHONY: neon
# make test's record of one run (above): a script that prints the output and exits with the
# status. The NEON programs only read files: they may run beside the x86-64 ones of their
# name.
$(TEST_RUNS) $(addsuffix .ran,$(NEON_BINS)): %.ran: % FORCE
	@./$< > $@.out 2>&1; printf '#!/bin/sh\ncat %s\nexit %s\n' "$@.out" "$$?" > $@ && chmod +x $@
# The NEON records are made one after another: qemu is one lane, a second one would take
# the core the x86-64 build needs (and the two test_quant never run at once, as in run.sh).
$(call chain,$(addsuffix .ran,$(NEON_BINS)))
FORCE:
.PHONY: FORCE

# ---- directories --------------------------------------------------------------------
$(B) $(B)/examples $(B)/bench $(B)/test/link:
	@mkdir -p $@

clean:
	rm -rf $(B)
