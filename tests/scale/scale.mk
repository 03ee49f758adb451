# The Dask driver's test (tests/scale/), included by the Makefile and run by
# make test: scripts/pbdiff-dask.py on a LocalCluster of two worker
# processes against one pbdiff process, on corpora of 3000 records.  The
# pbdiff both run is this build's (under ASan in make test-asan); Dask's
# own processes are the system Python's.

# In the plain pass the workers also hash by the Python module (python/): the
# ASan build of the module would need the sanitizers preloaded into Dask's
# worker processes; the module has its own ASan pass (make python-test).
scale: all $(if $(SAN),,python)
	@tests/scale/run.sh $(CURDIR)/$(BUILD)/pbdiff $(CURDIR)/$(BUILD)/scale/work $(if $(SAN),,$(CURDIR)/$(BUILD)/python/lib)
.PHONY: scale
