# pbdiff — build, test, demo.
#   make          build/libpbdiff.a and build/pbdiff
#   make check    install missing packages, build, run every test, then the
#                 whole suite again under AddressSanitizer + UBSan
#   make demo     install missing packages, build, show a semantic diff
#   make CC=clang ...   builds with clang the same way

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CFLAGS_BASE = -std=c11 -Wall -Wextra -Werror -g $(OPT) $(SAN) \
              -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Ilib
PKG_CFLAGS := $(shell pkg-config --cflags libxxhash check 2>/dev/null)
# gcc's -O2 vectorises a loop only where vector code replaces all of it; the
# loops over a tensor's fixed-width values (VECT_OBJ below)
# need its cheap model.  Probed, so that a compiler without the flag builds
# as before (clang vectorises them at -O2).
VECT_FLAGS := $(shell $(CC) -Werror -fvect-cost-model=cheap -x c -c -o /dev/null /dev/null 2>/dev/null && echo -fvect-cost-model=cheap)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
LDLIBS_BASE = -lxxhash -lz -lcrypto -lpthread -lm $(SAN)

LIB_SRC  := $(sort $(wildcard lib/*.c lib/*/*.c))
LIB_HDR  := $(wildcard include/pbdiff/*.h include/pbdiff/*/*.h lib/*/*.h)
CLI_SRC  := $(sort $(wildcard cli/*.c cli/*/*.c))
CLI_HDR  := $(wildcard cli/*.h cli/*/*.h)
# Test suites: tests/unit/<module>/check_*.c (a library module each) and
# tests/cli/check_*.c (the built binary and cli/ code); helpers in tests/support/.
TEST_SRC := $(sort $(wildcard tests/unit/*/check_*.c tests/cli/check_*.c))
TEST_HDR := $(wildcard tests/support/*.h)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# Objects every test program links: the shared helpers of tests/support/
# (testutil.c, canon_harness.c and canon_checks.c, the machinery of the
# canonical hash suites in tests/unit/canon/, ...).
TEST_UTIL_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/support/*.c)))
TEST_CFLAGS := -Icli -Itests/support

.PHONY: all check demo deps test test-asan clean install uninstall shared
all: $(BUILD)/libpbdiff.a $(BUILD)/pbdiff

deps:
	@scripts/deps.sh

$(BUILD)/%.o: %.c $(LIB_HDR) $(CLI_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

# cli/ sees its own headers by folder ("report/report.h"); lib/ sees only lib/.
$(CLI_OBJ): CFLAGS_BASE += -Icli
# The loops over a tensor's millions of values: the hash pass's, the tree's
# and the ONNX view's.
VECT_OBJ := $(foreach f,canon/canon tree/tree tree/tree_values diff/diff_view,$(BUILD)/lib/$(f).o $(BUILD)/pic/lib/$(f).o)
$(VECT_OBJ): CFLAGS_BASE += $(VECT_FLAGS)
# The hash pass's per-field loop (lib/canon/canon_fast.c, canon.c,
# canon_record.c) at -O3 where the build is the default -O2: it inlines
# and unrolls more of the loop (make bench's callgrind line counts ~3% fewer
# instructions).  Other builds (the sanitizers', OPT=...) keep their OPT.
HOT_OBJ := $(foreach f,canon canon_fast canon_record,$(BUILD)/lib/canon/$(f).o $(BUILD)/pic/lib/canon/$(f).o)
$(HOT_OBJ): CFLAGS_BASE += $(if $(filter -O2,$(OPT)),-O3)
# The fast path's messages are small (16 KiB at most) and its loops short:
# vectorising them only adds set-up (callgrind: ~1% more instructions).
FAST_OBJ := $(BUILD)/lib/canon/canon_fast.o $(BUILD)/pic/lib/canon/canon_fast.o
$(FAST_OBJ): CFLAGS_BASE += -fno-tree-vectorize

$(BUILD)/libpbdiff.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/pbdiff: $(CLI_OBJ) $(BUILD)/libpbdiff.a
	$(CC) $(CFLAGS_BASE) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libpbdiff.a $(LDLIBS_BASE)

$(TEST_UTIL_OBJ): $(BUILD)/tests/%.o: tests/%.c $(LIB_HDR) $(TEST_HDR) $(CLI_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TEST_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

# ---- install: make install [PREFIX=/usr/local] [DESTDIR=...] -----------------------
# The binary, the static and shared library (soname libpbdiff.so.0), the
# public headers, pbdiff.pc for pkg-config, the man page pbdiff(1) and bash
# completion.  make uninstall removes them.
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
VERSION := $(shell sed -n 's/^\#define PBDIFF_VERSION "\(.*\)"/\1/p' include/pbdiff/pbdiff.h)
SONAME  := libpbdiff.so.0
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
SHLIB   := $(BUILD)/libpbdiff.so.$(VERSION)

$(BUILD)/pic/%.o: %.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -fPIC $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(SHLIB): $(PIC_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS_BASE)

shared: $(SHLIB)

install: all $(SHLIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(BUILD)/pbdiff $(DESTDIR)$(PREFIX)/bin/pbdiff
	install -m 644 $(BUILD)/libpbdiff.a $(DESTDIR)$(LIBDIR)/libpbdiff.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libpbdiff.so.$(VERSION)
	ln -sf libpbdiff.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libpbdiff.so
	cd include && for h in $$(find pbdiff -name '*.h'); do \
	  install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/$$h || exit 1; done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	  scripts/pbdiff.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/pbdiff.pc
	install -m 644 docs/pbdiff.1 $(DESTDIR)$(PREFIX)/share/man/man1/pbdiff.1
	install -m 644 scripts/pbdiff.bash-completion \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pbdiff

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/pbdiff $(DESTDIR)$(LIBDIR)/libpbdiff.a \
	  $(DESTDIR)$(LIBDIR)/libpbdiff.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	  $(DESTDIR)$(LIBDIR)/libpbdiff.so $(DESTDIR)$(LIBDIR)/pkgconfig/pbdiff.pc \
	  $(DESTDIR)$(PREFIX)/share/man/man1/pbdiff.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pbdiff
	rm -rf $(DESTDIR)$(PREFIX)/include/pbdiff

# Tests link the library and the CLI's modules (but not its main).
TEST_CLI_OBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
# One program per suite: tests/unit/diff/check_align.c -> build/tests/unit/diff/check_align.
$(TEST_BIN): $(BUILD)/tests/%: tests/%.c $(TEST_UTIL_OBJ) $(TEST_CLI_OBJ) $(BUILD)/libpbdiff.a $(LIB_HDR) $(TEST_HDR) $(CLI_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(TEST_CFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(TEST_UTIL_OBJ) $(TEST_CLI_OBJ) $(BUILD)/libpbdiff.a \
	  $(CHECK_LIBS) $(LDLIBS_BASE)

# Runs every test binary against this build's pbdiff.
test: all $(TEST_BIN)
	@scripts/check-layout.sh
	@failed=""; for t in $(TEST_BIN); do \
	  PBDIFF=$(CURDIR)/$(BUILD)/pbdiff PBDIFF_ROOT=$(CURDIR) CK_FORK=yes $$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "FAILED:$$failed"; exit 1; fi
	@$(MAKE) --no-print-directory fuzz-replay
	@$(MAKE) --no-print-directory oracle
	@$(MAKE) --no-print-directory property
	@$(MAKE) --no-print-directory scale
	@$(MAKE) --no-print-directory python-test
	@$(MAKE) --no-print-directory browser
	@$(MAKE) --no-print-directory sarif
	@$(MAKE) --no-print-directory bench-floor-test

# The same suite built with AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  ASAN_OPTIONS=detect_leaks=1 test

check: deps
	$(MAKE) --no-print-directory test
	$(MAKE) --no-print-directory test-asan
	@echo "make check: all tests passed (plain and ASan+UBSan)"

demo: deps
	@$(MAKE) --no-print-directory all >/dev/null
	@scripts/demo.sh $(BUILD)/pbdiff

clean:
	rm -rf build build-asan build-fuzz

include fuzz/fuzz.mk
include tests/oracle/oracle.mk
include tests/property/property.mk
include tests/scale/scale.mk
include python/python.mk
include tests/browser/browser.mk
include tests/sarif/sarif.mk

# Benchmark against cmp, cat, MessageDifferencer and protoc --decode: make bench
# (bench/run.sh says which BENCH_* variables it reads; results in bench/results.md).
.PHONY: bench
$(BUILD)/bench/md_compare: bench/md_compare.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -std=c++17 -Wall -Wextra -o $@ $< $$(pkg-config --cflags --libs protobuf)
# The floor (bench/floor.c): a schema-driven walk that hashes every leaf and
# applies no rule; it links the library for the descriptor set's loader only.
$(BUILD)/bench/floor: bench/floor.c $(BUILD)/libpbdiff.a $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libpbdiff.a $(LDLIBS_BASE)
# The floor on hand-made bytes (tests/bench/floor.sh), in make test.
bench-floor-test: $(BUILD)/bench/floor
	@tests/bench/floor.sh $(CURDIR)/$(BUILD)/bench/floor
.PHONY: bench-floor-test
bench: deps all
	@$(MAKE) --no-print-directory $(BUILD)/bench/md_compare $(BUILD)/bench/floor
	bench/run.sh $(BUILD)/pbdiff
