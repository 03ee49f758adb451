# SARIF logs validated against the SARIF 2.1.0 JSON schema (tests/sarif/),
# included by the Makefile and run by make test: the schema comes with the
# npm package @microsoft/jest-sarif, which run.sh installs under build/npm;
# skipped, with a message, only where npm is missing.
sarif: all
	@tests/sarif/run.sh $(CURDIR)/$(BUILD)/pbdiff $(CURDIR)/$(BUILD)/sarif $(CURDIR)/build/npm
.PHONY: sarif
