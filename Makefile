# MemSandbox - one non-recursive Makefile.
#
#   make                 native library build/libmemsandbox.a and CLI build/msb
#   make run             the interactive sandbox (the npm CLI over the wasm)
#   make test            every test suite, ending in "N passed, M failed"
#   make tools           every package the tests use, installed up front
#   make wasm            build/wasm/memsandbox.wasm   (clang-19 + wasi-libc)
#   make wasm-emscripten build/emcc/memsandbox.wasm   (Debian's emcc)
#   make npm             the npm package staged in build/npm
#   make demo            the browser playground, built and served locally
#   make demo-build      the playground as a static site in build/demo
#   make asan            unit tests under AddressSanitizer + UBSan
#   make format-check    clang-format --dry-run over the C sources
#   make fuzz            libFuzzer targets tests/fuzz/*.c, FUZZ_TIME s each
#                        (fuzz-short: 20 s; fuzz-merge: into tests/fuzz/corpus)
#   make bench           benchmarks
#   make clean
#
# Sources are found by wildcard (*.c in SRC_DIRS), so adding a file never
# touches this Makefile. Every output goes under build/: one object tree per
# build (native, asan, wasm, emcc), each with dependency files. zlib is built
# from source into every build; its source comes from ZLIB_SRC=dir or is
# fetched from Debian's source package by wasm/fetch-zlib.sh. Whatever a
# target needs and is missing, toolchain or test tool, is installed by
# wasm/tools.sh (Debian's packages with apt-get, the npm packages tests/js
# and bench pin with npm ci), quietly doing nothing when all is present;
# TOOLS_DRY_RUN=1 in the environment makes it print what it would install
# instead. WERROR=1 (set by CI) adds -Werror.

SHELL := bash
MAKEFLAGS += --no-builtin-rules
.SHELLFLAGS := -o pipefail -c
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

B := build
CC := cc
, := ,
empty :=
space := $(empty) $(empty)
WERROR ?= 0
WARN := -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wmissing-prototypes \
        -Wstrict-prototypes
ifeq ($(WERROR),1)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined

# ---- zlib -----------------------------------------------------------------

ZLIB_FILES := adler32 crc32 deflate inflate inftrees inffast trees zutil
ifeq ($(origin ZLIB_SRC),undefined)
ZLIB_SRC := $(B)/zlib-src
ZLIB_STAMP := $(ZLIB_SRC)/.fetched
$(ZLIB_STAMP): | tools-base
	sh wasm/fetch-zlib.sh $(ZLIB_SRC)
	@touch $@
else
ZLIB_STAMP := $(ZLIB_SRC)/zlib.h
endif
# zlib is third-party code: our warning set is not its contract.
# HAVE_UNISTD_H in both: zlib.h must declare z_off_t (crc32_combine's
# argument) the way zlib was compiled, as off_t.
ZLIB_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -DHAVE_UNISTD_H -I$(ZLIB_SRC) -w
# Per-build additions. On wasm32 zlib's crc32.c picks 4-byte braids, but
# wasm has 64-bit integers: with 8-byte ones crc32 of 8 MB takes 3.3 ms
# instead of 4.2 ms under node 20 (clang-19 -O2; emcc 4.7 instead of 5.6),
# which a snapshot restore pays over the whole tar. A slicing-by-8 CRC of
# our own took 5.6 ms.
ZLIB_CFLAGS_wasm := -DZ_TESTW=8
ZLIB_CFLAGS_emcc := -DZ_TESTW=8

CFLAGS_BASE := -std=c11 -D_DEFAULT_SOURCE -DHAVE_UNISTD_H -funsigned-char \
               -Iinclude -I$(ZLIB_SRC) $(WARN)

# ---- sources --------------------------------------------------------------

SRC_DIRS := src src/cmd src/builtin
LIB_SRC := $(filter-out src/cli.c,$(wildcard $(SRC_DIRS:%=%/*.c)))
UNIT_SRC := $(wildcard tests/unit/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/*.c)
lib_obj = $(LIB_SRC:%.c=$(B)/$(1)/%.o) $(ZLIB_FILES:%=$(B)/$(1)/zlib/%.o)

# ---- toolchains -----------------------------------------------------------

WASM_CC := clang-19 --target=wasm32-wasi
# Both builds optimise the linked module with Debian's binaryen (version 108
# on Debian 12), never with whatever wasm-opt is first on PATH, so the module
# is the same on every machine (measured in wasm/README.md). The clang build
# runs it by its path (see its link rule). Debian's emcc runs binaryen's
# tools by name, so it gets a fixed PATH; NODE_PATH finds its JS optimiser.
WASM_OPT_BIN := /usr/bin/wasm-opt
EMCC := NODE_PATH=/usr/share/nodejs PATH=/usr/bin:/bin emcc

# CHECK:PACKAGE pairs for wasm/tools.sh.
TOOLS_BASE := cc:gcc node:nodejs bzip2:bzip2 gawk:gawk
TOOLS_WASM := clang-19:clang-19 wasm-ld-19:lld-19 \
  /usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a:libclang-rt-19-dev-wasm32 \
  /usr/include/wasm32-wasi/stdlib.h:wasi-libc $(WASM_OPT_BIN):binaryen
TOOLS_EMCC := emcc:emscripten
TOOLS_DEV := clang-format-19:clang-format-19 dpkg-source:dpkg-dev \
  /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-19-dev
TOOLS_NPM := npm:npm
# Debian's Chromium for the browser smoke tests, and the real xxd, file,
# bc and envsubst that differential cases compare the sandbox with.
TOOLS_TEST := chromium:chromium xxd:xxd file:file bc:bc envsubst:gettext-base

# The optimisation level of both wasm builds, compiler and wasm-opt alike.
# -O2 over -Oz (measured, see wasm/README.md): a shell loop runs about a
# third faster for 16% more gzipped bytes (218 KB vs 188 KB), well inside
# every edge runtime's size limit.
WASM_OPT ?= -O2
WASM_STACK := 1048576
WASM_INITIAL_MEMORY := $(shell echo $$(( \
  $$(sed -n 's/^\#define MSB_WASM_INITIAL_PAGES //p' wasm/abi.h) * 65536)))
WASM_EXPORTS := $(filter-out _initialize,$(shell grep -v '^\#' wasm/exports.list))

FORCE:
# Dependency files are only ever produced by the compiler.
$(B)/%.d: ;
.PHONY: FORCE all test unit run demo clean wasm wasm-emscripten npm asan format-check \
        fuzz fuzz-short fuzz-merge bench check-imports tools tools-base tools-wasm \
        tools-emcc tools-dev tools-npm tools-node tools-test tools-bench \
        tools-demo js-test demo-build

# build/msb needs src/cli.c (another module); until it exists, `make`
# builds the library alone rather than failing.
MSB_BIN := $(if $(wildcard src/cli.c),$(B)/msb)
all: $(B)/libmemsandbox.a $(MSB_BIN)

tools-base:
	@sh wasm/tools.sh $(TOOLS_BASE)
tools-wasm: tools-base
	@sh wasm/tools.sh $(TOOLS_WASM)
tools-emcc: tools-base
	@sh wasm/tools.sh $(TOOLS_EMCC)
tools-dev: tools-base
	@sh wasm/tools.sh $(TOOLS_DEV)
tools-npm: tools-base
	@sh wasm/tools.sh $(TOOLS_NPM)
# The package needs Node.js 20 or later (the Web platform's global crypto);
# Debian 12's own nodejs is 18, which fails every JavaScript test, so say so.
tools-node: tools-base
	@node -e 'process.exit(process.versions.node.split(".")[0] >= 20 ? 0 : 1)' \
	  || { echo "Node.js 20 or later is needed; this is $$(node --version)" >&2; \
	       exit 1; }
# tests/js and bench pin dev-only npm packages (package.json, exact
# versions, and package-lock.json); the package itself has none.
tools-test: tools-npm
	@sh wasm/tools.sh $(TOOLS_TEST)
	@sh wasm/tools.sh --npm tests/js
tools-bench: tools-npm
	@sh wasm/tools.sh --npm bench
# The playground's bundler and the libraries it bundles (demo/package.json).
tools-demo: tools-npm
	@sh wasm/tools.sh --npm demo
tools: tools-wasm tools-emcc tools-dev tools-test tools-demo

# ---- object rules, one set per build --------------------------------------

# $(1) build name, $(2) compiler, $(3) flags, $(4) toolchain target
# A build's .flags file changes only when its compiler or flags do, so a
# changed WASM_OPT or WERROR rebuilds that build's objects.
define build_rules
$(B)/$(1)/.flags: FORCE
	@mkdir -p $$(@D)
	@echo '$(2) $(3) $$(CFLAGS_BASE) $$(ZLIB_CFLAGS_$(1))' | cmp -s - $$@ || \
	  echo '$(2) $(3) $$(CFLAGS_BASE) $$(ZLIB_CFLAGS_$(1))' > $$@
$(B)/$(1)/%.o: %.c $(B)/$(1)/.flags | $(ZLIB_STAMP) $(4)
	@mkdir -p $$(dir $$@)
	$(2) $$(CFLAGS_BASE) $(3) -MMD -MP -c $$< -o $$@
$(B)/$(1)/zlib/%.o: $(B)/$(1)/.flags | $(ZLIB_STAMP) $(4)
	@mkdir -p $$(dir $$@)
	$(2) $$(ZLIB_CFLAGS) $$(ZLIB_CFLAGS_$(1)) $(3) -MMD -MP -c \
	  $$(ZLIB_SRC)/$$*.c -o $$@
-include $$(wildcard $(B)/$(1)/*/*.d $(B)/$(1)/*/*/*.d)
endef

$(eval $(call build_rules,native,$(CC),$(CFLAGS),tools-base))
$(eval $(call build_rules,asan,$(CC),$(ASAN_FLAGS),tools-base))
$(eval $(call build_rules,wasm,$(WASM_CC),$(WASM_OPT),tools-wasm))
$(eval $(call build_rules,emcc,$(EMCC),$(WASM_OPT),tools-emcc))
$(eval $(call build_rules,fuzz,clang-19,-O1 -g -fsanitize=fuzzer-no-link$(,)address$(,)undefined,tools-wasm tools-dev))

# ---- native ---------------------------------------------------------------

$(B)/libmemsandbox.a: $(call lib_obj,native)
	@rm -f $@
	ar rcs $@ $^

$(B)/msb: $(B)/native/src/cli.o $(B)/libmemsandbox.a
	$(CC) $(CFLAGS) -o $@ $^ -lm

$(B)/unit: $(UNIT_SRC:%.c=$(B)/native/%.o) $(B)/libmemsandbox.a
	$(CC) $(CFLAGS) -o $@ $^ -lm

unit: $(B)/unit
	$(B)/unit

# ---- sanitizers -----------------------------------------------------------

$(B)/asan/libmemsandbox.a: $(call lib_obj,asan)
	@rm -f $@
	ar rcs $@ $^

$(B)/asan/unit: $(UNIT_SRC:%.c=$(B)/asan/%.o) $(B)/asan/libmemsandbox.a
	$(CC) $(ASAN_FLAGS) -o $@ $^ -lm

$(B)/asan/msb: $(B)/asan/src/cli.o $(B)/asan/libmemsandbox.a
	$(CC) $(ASAN_FLAGS) -o $@ $^ -lm

asan: $(B)/asan/unit $(if $(wildcard src/cli.c),$(B)/asan/msb)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 $(B)/asan/unit

# ---- WebAssembly ----------------------------------------------------------

# Memory is imported: the JS host gives each sandbox its own
# WebAssembly.Memory and chooses its maximum. wasi-libc keeps long double
# printf/strtold in a separate library; without it they trap.
WASM_LDFLAGS := -mexec-model=reactor -Wl,--import-memory \
  -Wl,-z,stack-size=$(WASM_STACK) -Wl,--stack-first \
  -Wl,--initial-memory=$(WASM_INITIAL_MEMORY) \
  -Wl,--strip-all $(WASM_EXPORTS:%=-Wl,--export=%)

# Suspendable runs (src/coro.c): Asyncify instruments the functions that
# can be on a run's stack when it yields, found through direct calls only:
# a run never yields inside a builtin or a command, the code reached
# through function pointers (interp_pace), so indirect calls need no
# instrumentation, and no import suspends. It runs before the optimiser,
# which then cleans up what it added. Measured in docs/ARCHITECTURE.md.
ASYNCIFY := --asyncify --pass-arg=asyncify-ignore-indirect \
  --pass-arg=asyncify-ignore-imports

# The link has no -O: given one, clang-19 runs the first wasm-opt on PATH,
# if any, so the module would depend on PATH (its --no-wasm-opt skips the
# link itself). wasm-opt reads the features clang used from the
# target_features section that the link keeps.
$(B)/wasm/memsandbox.wasm: $(call lib_obj,wasm) $(B)/wasm/wasm/abi.o \
                           wasm/exports.list wasm/cold.mjs | tools-wasm
	@echo "wasm-ld $(@:.wasm=.raw.wasm)"
	@$(WASM_CC) $(WASM_LDFLAGS) -Wl,--keep-section=target_features \
	  -o $(@:.wasm=.raw.wasm) $(filter %.o,$^) -lc-printscan-long-double
	node wasm/cold.mjs $(@:.wasm=.raw.wasm) $(@:.wasm=.cold.wasm)
	$(WASM_OPT_BIN) $(ASYNCIFY) $(WASM_OPT) $(@:.wasm=.cold.wasm) -o $@

EMCC_LDFLAGS := -sSTANDALONE_WASM --no-entry -sIMPORTED_MEMORY \
  -sALLOW_MEMORY_GROWTH -sTOTAL_STACK=$(WASM_STACK) -Wl,--stack-first \
  -sINITIAL_MEMORY=$(WASM_INITIAL_MEMORY) -sMAXIMUM_MEMORY=4GB -sFILESYSTEM=0 \
  -sEXPORTED_FUNCTIONS=$(subst $(space),$(,),$(WASM_EXPORTS:%=_%)) \
  --js-library wasm/emcc-asyncify.js

# The link runs binaryen at -O1: at -O2 it would inline across the module
# before Asyncify, and coro_yield inlined into the interpreter makes the
# pass treat the call that starts an unwind as an ordinary one (the run
# traps at its first pause). The -O2 after Asyncify inlines safely.
$(B)/emcc/memsandbox.wasm: $(call lib_obj,emcc) $(B)/emcc/wasm/abi.o \
                           wasm/exports.list wasm/emcc-asyncify.js
	@echo "emcc-ld $@"
	@$(EMCC) -O1 $(EMCC_LDFLAGS) -o $(B)/emcc/memsandbox.js \
	  $(filter %.o,$^)
	@rm -f $(B)/emcc/memsandbox.js
	$(WASM_OPT_BIN) $(ASYNCIFY) $(WASM_OPT) $@ -o $@

$(B)/wasm/constants.json: include/memsandbox.h wasm/abi.h src/limits.def \
                          src/errors.def \
                          wasm/gen-constants.mjs wasm/def-rows.mjs | tools-base
	@mkdir -p $(dir $@)
	node wasm/gen-constants.mjs include/memsandbox.h wasm/abi.h $@ \
	  $(B)/wasm/constants.js

wasm: $(B)/wasm/memsandbox.wasm $(B)/wasm/constants.json
wasm-emscripten: $(B)/emcc/memsandbox.wasm $(B)/wasm/constants.json

check-imports: $(B)/wasm/memsandbox.wasm $(B)/emcc/memsandbox.wasm \
               $(B)/wasm/constants.json
	node wasm/check-wasm.mjs $(B)/wasm/memsandbox.wasm $(B)/emcc/memsandbox.wasm

# ---- npm package ----------------------------------------------------------

JS_SRC := $(shell find js -type f 2>/dev/null)

# The package is assembled in build/npm: sources from js/, plus the wasm
# module and the generated constants, so js/ holds no generated file.
$(B)/npm/.stamp: $(JS_SRC) $(B)/wasm/memsandbox.wasm $(B)/wasm/constants.json \
                 LICENSE README.md | tools-node
	@rm -rf $(B)/npm && mkdir -p $(B)/npm
	cp -R js/. $(B)/npm/
	cp $(B)/wasm/memsandbox.wasm $(B)/wasm/constants.js LICENSE README.md $(B)/npm/
	@touch $@

npm: $(B)/npm/.stamp

# ---- tests ----------------------------------------------------------------

JS_TESTS := $(wildcard tests/js/*.test.mjs)
SMOKE_TESTS := $(wildcard tests/js/smoke/*.test.mjs)

js-test: $(B)/npm/.stamp $(B)/emcc/memsandbox.wasm
	@st=0; node --test --test-reporter=spec $(JS_TESTS) || st=1; \
	 MSB_WASM=$(B)/emcc/memsandbox.wasm node --test --test-reporter=spec \
	   $(JS_TESTS) || st=1; exit $$st

# Each suite is one target; `make test` runs them in turn, keeps going after
# a failure, logs each to build/logs and sums the closing counts.
TEST_SUITES := format unit asan check-imports cases cases-wasm js smoke demo fuzz
.PHONY: $(TEST_SUITES:%=suite-%)
suite-unit: unit
suite-asan: asan
suite-format: | tools-dev
	@if clang-format-19 --dry-run -Werror $(FORMAT_SRC); \
	 then echo "format: 1 passed, 0 failed"; \
	 else echo "format: 0 passed, 1 failed"; exit 1; fi
suite-check-imports: check-imports
suite-cases: all | tools-test
	@st=0; node tests/cases.mjs || st=1; \
	 if [ -d tests/diff ]; then node tests/cases.mjs --diff || st=1; fi; exit $$st
# The same case files through both wasm builds and the JS package.
suite-cases-wasm: $(B)/npm/.stamp $(B)/emcc/memsandbox.wasm
	@st=0; node tests/js/cases-wasm.mjs || st=1; \
	 MSB_WASM=$(B)/emcc/memsandbox.wasm node tests/js/cases-wasm.mjs || st=1; \
	 exit $$st
suite-js: js-test
suite-fuzz:
	@if [ -n "$(FUZZ_SRC)" ]; then $(MAKE) --no-print-directory fuzz-short; \
	 else echo "fuzz: 0 passed, 0 failed"; fi
suite-smoke: $(B)/npm/.stamp | tools-test
	@if [ -n "$(SMOKE_TESTS)" ]; then \
	   node --test --test-reporter=spec $(SMOKE_TESTS); \
	 else echo "smoke: 0 passed, 0 failed"; fi

# The playground in headless Chromium (and its line editor and types).
suite-demo: $(B)/demo/.stamp | tools-test
	@node --test --test-reporter=spec $(wildcard tests/js/demo/*.test.mjs)

test:
	@mkdir -p $(B)/logs; rm -f $(B)/logs/*.log; status=0; results=""; \
	for s in $(TEST_SUITES); do \
	  echo "==== $$s"; \
	  if $(MAKE) --no-print-directory suite-$$s 2>&1 | tee $(B)/logs/$$s.log; \
	  then results="$$results $$s:0"; \
	  else results="$$results $$s:1"; status=1; fi; \
	done; \
	node tests/js/summary.mjs $(B)/logs $$results || status=1; \
	exit $$status

# ---- formatting, fuzzing, benchmarks, REPL --------------------------------

FORMAT_SRC = $(wildcard $(SRC_DIRS:%=%/*.c) $(SRC_DIRS:%=%/*.h) include/*.h \
               tests/unit/*.c tests/unit/*.h wasm/*.c wasm/*.h)
format-check: | tools-dev
	clang-format-19 --dry-run -Werror $(FORMAT_SRC)

$(B)/fuzz/%: tests/fuzz/%.c $(call lib_obj,fuzz) | tools-wasm tools-dev
	@mkdir -p $(dir $@)
	clang-19 $(CFLAGS_BASE) -O1 -g -fsanitize=fuzzer,address,undefined \
	  -o $@ $^ -lm

FUZZ_BINS := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
# The archive target starts from tests/archives/make.py's corpus (valid and
# hostile archives) when python3 is there.
FUZZ_SEED = mkdir -p $(B)/corpus/fuzz_archive; \
  if command -v python3 >/dev/null; then \
    python3 tests/archives/make.py $(B)/corpus/fuzz_archive; fi
# Keep the fuzz build's objects: make would delete them as intermediates.
.SECONDARY: $(call lib_obj,fuzz)
# Each target's corpus grows in build/corpus/NAME; tests/fuzz/corpus/NAME is
# the committed, minimised corpus of the long campaigns, replayed (read
# only) by every run. `make fuzz-merge` minimises the grown corpus into it.
FUZZ_TIME ?= 300
FUZZ_DIRS = $(B)/corpus/$${f\#\#*/} $$(d=tests/fuzz/corpus/$${f\#\#*/}; \
  [ -d $$d ] && echo $$d)
fuzz: $(FUZZ_BINS)
	@$(FUZZ_SEED); for f in $(FUZZ_BINS); do mkdir -p $(B)/corpus/$${f##*/}; \
	  $$f -max_total_time=$(FUZZ_TIME) $(FUZZ_DIRS) || exit 1; done

fuzz-merge: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do d=tests/fuzz/corpus/$${f##*/}; mkdir -p $$d; \
	  $$f -merge=1 $$d $(B)/corpus/$${f##*/} 2>/dev/null || exit 1; done

fuzz-short: $(FUZZ_BINS)
	@$(FUZZ_SEED); n=0; for f in $(FUZZ_BINS); do mkdir -p $(B)/corpus/$${f##*/}; \
	  $$f -max_total_time=20 -print_final_stats=0 $(FUZZ_DIRS) \
	    2>$(B)/corpus/$${f##*/}.log || { tail -30 $(B)/corpus/$${f##*/}.log; \
	    echo "fuzz: $$n passed, 1 failed"; exit 1; }; n=$$((n+1)); done; \
	  echo "fuzz: $$n passed, 0 failed"

# just-bash, for comparison only, comes from npm (tools-bench) at the exact
# version pinned in bench/package.json, a dev-only manifest.
$(B)/bench-seed: bench/seed.c $(B)/libmemsandbox.a
	$(CC) $(CFLAGS_BASE) -O2 -o $@ $^ -lm
# bench/run.mjs (side by side with just-bash and GNU tools) when present,
# else the C seeding benchmark.
bench: all $(if $(wildcard bench/run.mjs),$(B)/npm/.stamp $(B)/bench-seed \
             $(if $(wildcard bench/package.json),tools-bench))
	@if [ -f bench/run.mjs ]; then \
	   node --expose-gc bench/run.mjs $(BENCH_ARGS) && node bench/state.mjs; \
	 elif [ -f bench/seed.c ]; then \
	   $(CC) $(CFLAGS_BASE) -O2 -o $(B)/bench-seed bench/seed.c \
	     $(B)/libmemsandbox.a && $(B)/bench-seed; \
	 else echo "bench: no benchmark present"; fi

run: $(B)/npm/.stamp
	@node $(B)/npm/bin/memsandbox.js

DEMO_SRC := $(wildcard demo/src/* demo/index.html demo/build.mjs demo/package-lock.json)
$(B)/demo/.stamp: $(B)/npm/.stamp $(DEMO_SRC) | tools-demo
	node demo/build.mjs $(B)/demo $(B)/npm
	@touch $@
demo-build: $(B)/demo/.stamp
demo: $(B)/demo/.stamp
	node demo/serve.mjs $(B)/demo

clean:
	rm -rf $(B)
