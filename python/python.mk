# The Python module (python/, docs/python.md), included by the Makefile:
#   make python          build it into $(BUILD)/python/lib (importable with
#                        PYTHONPATH, its pytest plugin found there too)
#   make python-test     its pytest suite, run by make test (also under ASan)
#   make install-python  install it for Debian's /usr/bin/python3
# The extension links the library and the CLI's modules (the reporters, the
# rules, cat's printer) from position-independent archives of this build
# ($(BUILD)/python/*.a).
PY          := /usr/bin/python3
PY_OUT      := $(CURDIR)/$(BUILD)/python
# Objects of their own (-fPIC, and this pass's sanitizer flags), apart from
# $(BUILD)/pic/, whose objects make install's shared library is made of
# without them.
PY_OBJ_DIR  := $(BUILD)/python/obj
PY_LIB_OBJ  := $(LIB_SRC:%.c=$(PY_OBJ_DIR)/%.o)
PY_CLI_OBJ  := $(patsubst %.c,$(PY_OBJ_DIR)/%.o,$(filter-out cli/main.c,$(CLI_SRC)))
PIC_LIB_A   := $(BUILD)/python/libpbdiff-pic.a
PIC_CLI_A   := $(BUILD)/python/libpbdiff-cli-pic.a
PY_SRC      := $(wildcard python/setup.py python/src/*.c python/src/*.h python/pbdiff/*.py)

$(PY_OBJ_DIR)/%.o: %.c $(LIB_HDR) $(CLI_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -fPIC $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@
$(PY_CLI_OBJ): CFLAGS_BASE += -Icli
$(PIC_LIB_A): $(PY_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(PIC_CLI_A): $(PY_CLI_OBJ)
	@rm -f $@
	ar rcs $@ $^

python-libs: $(PIC_LIB_A) $(PIC_CLI_A)

# A stamp.  --force: setup.py does not see that the archives it links
# changed, and would keep an extension built from the old ones.
$(PY_OUT)/.built: $(PIC_LIB_A) $(PIC_CLI_A) $(PY_SRC) $(LIB_HDR) $(CLI_HDR)
	@mkdir -p $(PY_OUT)
	cd python && PBDIFF_BUILD=$(CURDIR)/$(BUILD) PBDIFF_SAN="$(SAN) $(PY_SAN_LINK)" CC="$(CC)" \
	  $(PY) setup.py -q build --force --build-base $(PY_OUT)/tmp --build-lib $(PY_OUT)/lib \
	  egg_info --egg-base $(PY_OUT)/lib >/dev/null
	rm -rf python/build
	@touch $@

python: $(PY_OUT)/.built

# Under ASan the interpreter is not instrumented: the sanitizers' runtimes
# are preloaded (the extension links them as shared libraries: gcc's
# libasan and libubsan, or clang's one runtime with -shared-libasan), and
# leaks are not checked, since the interpreter keeps much of its memory to
# the end by design (its own allocations would drown the extension's).
# The suite's agreement tests run this build's pbdiff, which does check them.
IS_CLANG    := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo yes)
PY_SAN_LINK := $(if $(and $(SAN),$(IS_CLANG)),-shared-libasan)
PY_SAN_LIBS  = $(if $(IS_CLANG),$$($(CC) -print-file-name=libclang_rt.asan-x86_64.so),$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so))
PY_PRELOAD   = $(if $(SAN),LD_PRELOAD="$(PY_SAN_LIBS)" ASAN_OPTIONS=detect_leaks=0)

python-test: python all
	cd $(PY_OUT) && $(PY_PRELOAD) PYTHONPATH=$(PY_OUT)/lib PBDIFF=$(CURDIR)/$(BUILD)/pbdiff \
	  PBDIFF_ROOT=$(CURDIR) $(PY) -P -m pytest -q -p no:cacheprovider $(CURDIR)/python/tests

# pip without build isolation (nothing is fetched: Debian's setuptools
# builds it) into /usr/local, which Debian's pip calls breaking system
# packages though dpkg's files are not touched; PIP_ARGS adds pip options
# (--target DIR, --user, ...).
install-python: deps
	$(MAKE) --no-print-directory python-libs
	cd python && PBDIFF_BUILD=$(CURDIR)/$(BUILD) $(PY) -m pip install --no-build-isolation \
	  --no-deps --break-system-packages $(PIP_ARGS) .

# make bench measures the module too (bench/python_bench.py).
bench: python

.PHONY: python python-libs python-test install-python
