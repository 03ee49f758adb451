# The HTML report in a real browser (tests/browser/), included by the
# Makefile and run by make test: Debian's chromium (scripts/deps.sh) driven
# by the npm package playwright-core, which run.sh installs under
# $(BUILD)/npm; skipped, with a message, only where npm is missing.
browser: all
	@tests/browser/run.sh $(CURDIR)/$(BUILD)/pbdiff $(CURDIR)/$(BUILD)/browser $(CURDIR)/build/npm
.PHONY: browser
