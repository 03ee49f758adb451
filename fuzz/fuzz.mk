# Fuzzing, included by the Makefile.
#
#   make fuzz [FUZZ_SECONDS=60]   every libFuzzer harness (clang), FUZZ_SECONDS each,
#                                 from its committed seeds into build-fuzz/corpus-NAME
#   make fuzz-replay              every harness built without libFuzzer (fuzz/replay.c)
#                                 over its seeds and fuzz/regressions/NAME: part of
#                                 make test, so of both passes of make check
#
# fuzz/fuzz_NAME.c is a harness; fuzz_seeds_NAME lists its seed directories.
FUZZ_HARNESSES := compare canon jsonpb cat schema config git
fuzz_seeds_compare := fuzz/seeds
fuzz_seeds_canon   := fuzz/seeds
fuzz_seeds_jsonpb  := fuzz/seeds-json
fuzz_seeds_cat     := fuzz/seeds
fuzz_seeds_schema  := fuzz/seeds-schema
fuzz_seeds_config  := fuzz/seeds-config
fuzz_seeds_git     := fuzz/seeds-git
# Harnesses that call into cli/ (match rules, the config parser, the git driver) link it,
# but not its main.
FUZZ_CLI_SRC := $(filter-out cli/main.c,$(CLI_SRC))
FUZZ_WITH_CLI := compare config git
fuzz_cli = $(if $(filter $(1),$(FUZZ_WITH_CLI)),$(FUZZ_CLI_SRC))
FUZZ_SECONDS ?= 60
FUZZ_LIBS = -lxxhash -lz -lcrypto -lpthread -lm

# The schemas the harnesses read ($PBDIFF_FUZZ_DESC): the test protos and ONNX's.
build-fuzz/fuzz.desc $(BUILD)/fuzz/fuzz.desc: testdata/proto/sem3.proto testdata/proto/sem2.proto
	@mkdir -p $(dir $@)
	protoc --include_imports -Itestdata/proto -I/usr/include -o$@ sem3.proto sem2.proto onnx/onnx.proto

build-fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_pool.h $(LIB_SRC) $(LIB_HDR) $(CLI_SRC) $(CLI_HDR)
	@mkdir -p build-fuzz
	clang -std=c11 -g -O1 -Iinclude -Ilib -Icli -Ifuzz -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< \
	  $(call fuzz_cli,$*) $(LIB_SRC) $(FUZZ_LIBS)

# The seeds of harness $(1), and the inputs of its past findings.
fuzz_inputs = $(fuzz_seeds_$(1)) $(wildcard fuzz/regressions/$(1))

# Paths are absolute: a harness may change directory (fuzz_git does).
# fuzz_flags_NAME: a harness's own libFuzzer flags.
fuzz_flags_git := -close_fd_mask=2
fuzz: $(FUZZ_HARNESSES:%=build-fuzz/fuzz_%) build-fuzz/fuzz.desc
	@$(foreach h,$(FUZZ_HARNESSES),mkdir -p build-fuzz/corpus-$(h) && \
	  PBDIFF_FUZZ_DESC=$(CURDIR)/build-fuzz/fuzz.desc build-fuzz/fuzz_$(h) \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 $(fuzz_flags_$(h)) \
	  $(CURDIR)/build-fuzz/corpus-$(h) $(addprefix $(CURDIR)/,$(call fuzz_inputs,$(h))) &&) true

# Replay: the same harnesses with this build's compiler, flags and sanitizers.
FUZZ_REPLAY := $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/replay_%)
$(BUILD)/fuzz/replay_%: fuzz/fuzz_%.c fuzz/replay.c fuzz/fuzz_pool.h $(BUILD)/libpbdiff.a $(TEST_CLI_OBJ) $(LIB_HDR) $(CLI_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -Icli -Ifuzz $(CFLAGS) -o $@ $< fuzz/replay.c \
	  $(if $(filter $*,$(FUZZ_WITH_CLI)),$(TEST_CLI_OBJ)) $(BUILD)/libpbdiff.a $(LDLIBS_BASE)

fuzz-replay: $(FUZZ_REPLAY) $(BUILD)/fuzz/fuzz.desc
	@$(foreach h,$(FUZZ_HARNESSES),PBDIFF_FUZZ_DESC=$(BUILD)/fuzz/fuzz.desc \
	  $(BUILD)/fuzz/replay_$(h) $(call fuzz_inputs,$(h)) &&) true
.PHONY: fuzz fuzz-replay
