# The Dask driver's test (tests/scale/), included by the Makefile and run by
# make test: scripts/pbdiff-dask.py on a LocalCluster of two worker
# processes against one pbdiff process, on corpora of 3000 records.  The
# pbdiff both run is this build's (under ASan in make test-asan); Dask's
# own processes are the system Python's.

scale: all
	@tests/scale/run.sh $(CURDIR)/$(BUILD)/pbdiff $(CURDIR)/$(BUILD)/scale/work
.PHONY: scale
