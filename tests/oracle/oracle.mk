# The differential oracle (tests/oracle/), included by the Makefile and run
# by make test: pbdiff next to the C++ library's MessageDifferencer on every
# file of libonnx-testdata.  The oracle itself is the reference, so it is
# built without the sanitizers; the pbdiff it checks is this build's.
$(BUILD)/oracle/oracle: tests/oracle/oracle.cc tests/support/wire_writer.hh
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 -Wall -Wextra -Werror -Itests/support -o $@ $< $(shell pkg-config --cflags --libs protobuf)

oracle: all $(BUILD)/oracle/oracle
	@tests/oracle/run.sh $(CURDIR)/$(BUILD)/pbdiff $(CURDIR)/$(BUILD)/oracle/oracle $(CURDIR)/$(BUILD)/oracle/work
.PHONY: oracle
