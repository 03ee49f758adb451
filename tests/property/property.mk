# Property tests (tests/property/), included by the Makefile and run by make
# test: 2 x 1000 random messages with fixed seeds, built and encoded by a
# C++ program on libprotobuf (the reference that checks every encoding), then
# held to pbdiff's rules by tests/property/run.sh.  The generator is built
# without the sanitizers; the pbdiff it checks is this build's.

PROPERTY_CASES ?= 1000
$(BUILD)/property/property: tests/property/property.cc tests/support/wire_writer.hh
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 -Wall -Wextra -Werror -Itests/support -o $@ $< $(shell pkg-config --cflags --libs protobuf)

property: all $(BUILD)/property/property testdata/proto/prop.proto
	@tests/property/run.sh $(CURDIR)/$(BUILD)/pbdiff $(CURDIR)/$(BUILD)/property/property \
	  $(CURDIR)/$(BUILD)/property/work $(PROPERTY_CASES)
.PHONY: property
