# llm.h build. Everything goes into build/; nothing to install.
#   make demo      build and run the examples tour (numbered examples, in order)
#   make test      every test as C99 (-Wall -Wextra -Werror -pedantic) in three builds:
#                  native SIMD, AVX2+FMA (on x86-64) and scalar (-DLLM_NO_SIMD), the header
#                  compiled as C++11, and the link checks; ends with "N passed, N failed"
#   make sanitize  the tests under ASan + UBSan
#   make bench     throughput beside this machine's own roofs
#   make neon      the kernel tests built for aarch64 (NEON) and run under qemu-aarch64
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
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
EXAMPLES := $(patsubst examples/%.c,%,$(sort $(wildcard examples/[0-9]*.c)))
TOOLS    := $(patsubst examples/%.c,%,$(wildcard examples/llm-*.c))
BENCHES  := $(patsubst bench/%.c,%,$(wildcard bench/bench_*.c))
DEPS = llm.h tests/test.h $(wildcard examples/*.h)

TEST_VARIANTS = native scalar
ifeq ($(UNAME_M),x86_64)
TEST_VARIANTS += avx2
endif
FLAGS_native = $(ARCH)
FLAGS_scalar = $(ARCH) -DLLM_NO_SIMD
FLAGS_avx2   = -mavx2 -mfma

TEST_BINS = $(foreach v,$(TEST_VARIANTS),$(addprefix $(B)/test/$(v)/,$(TESTS)))
LINK_BINS = $(B)/test/link/link_check $(B)/test/link/static_check $(B)/test/link/cxx_check

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

# ---- tests --------------------------------------------------------------------------
define TEST_RULE
$(B)/test/$(1)/%: tests/%.c $(DEPS) | $(B)/test/$(1)
	$$(CC) $$(CSTD) $$(WARN) $$(OPT) $$(FLAGS_$(1)) $$(THREADS) -I. $$< -o $$@ $$(LDLIBS)
endef
$(foreach v,$(TEST_VARIANTS),$(eval $(call TEST_RULE,$(v))))

# A misspelled LLM_IMPLEMENTATION compiles and links to nothing: link a user file
# against an implementation file. LLM_STATIC: two private copies in one program.
# The header must also compile as C++11 with the implementation.
$(B)/test/link/link_check: tests/link_user.c tests/link_impl.c llm.h | $(B)/test/link
	$(CC) $(CSTD) $(WARN) $(OPT) -I. tests/link_user.c tests/link_impl.c -o $@ $(LDLIBS)
$(B)/test/link/static_check: tests/link_static.c llm.h | $(B)/test/link
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -DLLM_STATIC -DPART_A -c tests/link_static.c -o $(B)/test/link/static_a.o
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -DLLM_STATIC -DPART_B -c tests/link_static.c -o $(B)/test/link/static_b.o
	$(CC) $(CSTD) $(WARN) $(OPT) -I. -DLLM_STATIC tests/link_static.c \
	  $(B)/test/link/static_a.o $(B)/test/link/static_b.o -o $@ $(LDLIBS)
$(B)/test/link/cxx_check: tests/cxx_check.cpp llm.h | $(B)/test/link
	$(CXX) -std=c++11 $(WARN) $(OPT) $(ARCH) $(THREADS) -I. $< -o $@ $(LDLIBS)

test: $(TEST_BINS) $(LINK_BINS)
	@sh tests/run.sh $(TEST_BINS) $(LINK_BINS)

# ---- sanitizers ---------------------------------------------------------------------
SAN = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
$(B)/san/%: tests/%.c $(DEPS) | $(B)/san
	$(CC) $(CSTD) $(WARN) $(SAN) $(ARCH) $(THREADS) -I. $< -o $@ $(LDLIBS)
$(B)/san-scalar/%: tests/%.c $(DEPS) | $(B)/san-scalar
	$(CC) $(CSTD) $(WARN) $(SAN) -DLLM_NO_SIMD $(THREADS) -I. $< -o $@ $(LDLIBS)
sanitize: $(addprefix $(B)/san/,$(TESTS)) $(addprefix $(B)/san-scalar/,$(TESTS))
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  sh tests/run.sh $(addprefix $(B)/san/,$(TESTS)) $(addprefix $(B)/san-scalar/,$(TESTS))

# ---- benchmarks ---------------------------------------------------------------------
BENCH_OPT = -O3
$(B)/bench/%: bench/%.c llm.h | $(B)/bench
	$(CC) $(CSTD) $(WARN) $(BENCH_OPT) $(ARCH) $(THREADS) -D_POSIX_C_SOURCE=200809L -I. -Ibench $< -o $@ $(LDLIBS)
bench: $(addprefix $(B)/bench/,$(BENCHES))
	@for b in $(BENCHES); do ./$(B)/bench/$$b || exit 1; done

# ---- neon: the kernel tests cross-compiled for aarch64, run under qemu-user ----------
# (block owned by the kernels/quant helpers) Needs gcc-aarch64-linux-gnu and qemu-user;
# falls back to clang --target when only the cross binutils and libc are installed.
NEON_TESTS := $(filter tests/test_rowops.c tests/test_quant.c tests/test_kernels.c,$(wildcard tests/test_*.c))
NEON_CC ?= $(shell command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && echo aarch64-linux-gnu-gcc || \
             echo clang --target=aarch64-linux-gnu -fuse-ld=/usr/bin/aarch64-linux-gnu-ld)
NEON_RUN ?= qemu-aarch64
NEON_BINS = $(patsubst tests/%.c,$(B)/neon/%,$(NEON_TESTS))
# tests/run.sh runs programs, so each binary gets a two-line wrapper that calls qemu
$(B)/neon/%: tests/%.c $(DEPS) | $(B)/neon
	$(NEON_CC) $(CSTD) $(WARN) -static -O2 $(THREADS) -I. $< -o $@.elf $(LDLIBS)
	@printf '#!/bin/sh\nexec %s %s "$$@"\n' "$(NEON_RUN)" "$@.elf" > $@ && chmod +x $@
# test_quant once more with the dot-product extension (sdot), which qemu's -cpu max has
$(B)/neon/dotprod_%: tests/%.c $(DEPS) | $(B)/neon
	$(NEON_CC) $(CSTD) $(WARN) -static -O2 -march=armv8.2-a+dotprod $(THREADS) -I. $< -o $@.elf $(LDLIBS)
	@printf '#!/bin/sh\nexec %s -cpu max %s "$$@"\n' "$(NEON_RUN)" "$@.elf" > $@ && chmod +x $@
neon: $(NEON_BINS) $(B)/neon/dotprod_test_quant
	@sh tests/run.sh $(NEON_BINS) $(B)/neon/dotprod_test_quant
.PHONY: neon

# ---- directories --------------------------------------------------------------------
$(B) $(B)/examples $(B)/bench $(B)/neon $(B)/san $(B)/san-scalar $(B)/test/link $(addprefix $(B)/test/,$(TEST_VARIANTS)):
	@mkdir -p $@

clean:
	rm -rf $(B)
