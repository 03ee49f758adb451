#!/bin/sh
# The Dask driver (scripts/pbdiff-dask.py) against pbdiff itself: two corpora
# written by an independent encoder (tests/support/write_corpus.py), compared
# on a LocalCluster of two worker processes, must give the statistics that
# one `pbdiff -r --stat` process gives: the same JSON text byte for byte
# (and, parsed, the same object), the same --text, the same exit status.
#
#   tests/scale/run.sh PBDIFF WORKDIR [PYTHON_MODULE_DIR]
#
# Corpora: 3000 records; LEFT in 3 shards with r-100 written three times;
# RIGHT re-encoded (style b), shuffled, in 5 shards (one gzip-compressed),
# every 50th price changed, 3 records dropped, r-9 and r-100 written twice.
# Cases: that pair; the same with --ignore price (fingerprints differ,
# meanings do not: the batches must count them equal); LEFT against an
# equal re-encoding (exit 0, no paths, nothing to compare); two gRPC corpora
# with every other message compressed; with PYTHON_MODULE_DIR (the built
# pbdiff module, make python), the first pair again with the workers hashing
# by the module instead of the binary.  The driver's --verbose line must
# name two worker processes, neither of them the driver.
set -eu
P=$1 W=$2 PYMOD=${3:-}
PY=/usr/bin/python3   # Debian's python3-distributed is for the system Python
R=$(pwd)
"$PY" -c 'import distributed' 2>/dev/null ||
  { echo "scale: $PY cannot import distributed (apt-get install python3-distributed)" >&2; exit 1; }
rm -rf "$W"
mkdir -p "$W"
protoc --include_imports -o"$W/corpus.desc" -Itestdata/proto testdata/proto/corpus.proto
start=$(date +%s)
cd "$W"
w() { "$PY" "$R/tests/support/write_corpus.py" --count 3000 "$@"; }
w --shards 3 --duplicate 100 --duplicate 100 left
w --shards 5 --style b --shuffle 7 --change 50 --drop 5,77,1200 --duplicate 9 --duplicate 100 right
gzip -n right/part-00002.bin
w --shards 5 --style b --shuffle 11 --duplicate 100 --duplicate 100 same
C="-s corpus.desc -t corpus.Record --framing delimited --record-key id"

fail=0
# one case: the driver's output and status next to pbdiff's
check() { # NAME EXPECTED-STATUS OPTIONS... LEFT RIGHT
  name=$1 want=$2
  shift 2
  st=0
  "$PY" "$R/scripts/pbdiff-dask.py" --pbdiff "$P" --workers 2 --verbose --batch-keys 20 \
    "$@" > "$name.dask" 2> "$name.err" || st=$?
  pst=0
  "$P" -r --stat --format json "$@" > "$name.pbdiff" 2> /dev/null || pst=$?
  if [ "$st" != "$want" ] || [ "$pst" != "$want" ]; then
    echo "scale: $name: exit $st (driver), $pst (pbdiff), not $want"; sed 's/^/  /' "$name.err"; fail=1
  fi
  cmp -s "$name.dask" "$name.pbdiff" ||
    { echo "scale: $name: the driver's JSON is not pbdiff's:"; diff "$name.pbdiff" "$name.dask" | head -6; fail=1; }
  "$PY" - "$name" <<'PY' || fail=1
import json, re, sys
name = sys.argv[1]
a, b = (json.load(open(f"{name}.{s}")) for s in ("dask", "pbdiff"))
if a != b:
    sys.exit(f"scale: {name}: the parsed objects differ")
err = open(f"{name}.err").read()
m = re.search(r"(\d+) worker processes: (.*); this driver is pid (\d+)", err)
workers = set(re.findall(r"\(pid (\d+)\)", m.group(2))) if m else set()
ran = re.search(r"tasks per worker pid: (.*)", err)
ran = set(re.findall(r"(\d+): \d+", ran.group(1))) if ran else set()
if not m or m.group(1) != "2" or len(workers) != 2 or m.group(3) in workers:
    sys.exit(f"scale: {name}: not two worker processes of their own:\n{err}")
if not ran or not ran <= workers:
    sys.exit(f"scale: {name}: tasks ran outside the workers ({ran} not in {workers})")
PY
}

check differ 1 $C --examples 5 left right
# the text form, as pbdiff --stat writes it
st=0
"$PY" "$R/scripts/pbdiff-dask.py" --pbdiff "$P" --text $C left right > text.dask 2> /dev/null || st=$?
"$P" -r --stat $C left right > text.pbdiff 2> /dev/null || true
cmp -s text.dask text.pbdiff && [ $st = 1 ] ||
  { echo "scale: --text (exit $st) is not pbdiff --stat's:"; diff text.pbdiff text.dask | head -6; fail=1; }
check ignore 1 $C --ignore price left right
check equal 0 $C left same
# gRPC shards with compressed messages: hash gives each record's place in
# the file (the compressed body and its inflated size), which the driver
# cuts out and inflates (issue 21: it cut at offsets of the inflated bytes)
w --shards 3 --framing grpc --compress left-grpc
w --shards 4 --framing grpc --compress --style b --shuffle 5 --change 40 --drop 17 right-grpc
check grpc 1 -s corpus.desc -t corpus.Record --framing grpc --record-key id left-grpc right-grpc
grep -q '"paths": \[\]}' equal.dask || { echo "scale: equal: paths not empty"; fail=1; }
grep -q '"differ": 60,' differ.dask && grep -q '"duplicate_keys_left": 1, "duplicate_keys_right": 2' differ.dask ||
  { echo "scale: differ: not the corpus written (60 pairs with a changed price, duplicate keys 1 and 2)"; cat differ.dask; fail=1; }

# a worker killed while it compares (a wrapper around pbdiff kills its own
# worker process, once): the same statistics and status, and on standard
# error one line per task lost with it, no tracebacks (issue 22)
cat > killer.sh <<KILLER
#!/bin/sh
case " \$* " in *" --stat "*) mkdir "$W/killed" 2>/dev/null && { kill -9 \$PPID; sleep 5; } ;; esac
exec "$P" "\$@"
KILLER
chmod +x killer.sh
st=0
TMPDIR="$W" "$PY" "$R/scripts/pbdiff-dask.py" --pbdiff "$W/killer.sh" --workers 2 --batch-keys 20 \
  $C left right > killed.dask 2> killed.err || st=$?
"$P" -r --stat --format json $C left right > killed.pbdiff 2> /dev/null || true
lost=$(grep -c '^pbdiff-dask: worker .* lost while comparing keys .*; the task is run again$' killed.err || true)
others=$(grep -vc -e '^pbdiff-dask: worker .* lost while ' -e '^pbdiff-dask: warning: ' killed.err || true)
if [ ! -d killed ] || [ $st != 1 ] || ! cmp -s killed.dask killed.pbdiff || [ "$lost" -lt 1 ] ||
   [ "$others" != 0 ]; then
  echo "scale: killed worker: exit $st, $lost lines of lost tasks, $others other lines:"
  sed 's/^/  /' killed.err | head -20; diff killed.pbdiff killed.dask | head -4; fail=1
fi

if [ -n "$PYMOD" ]; then # the map step in process, by the Python module
  ( export PYTHONPATH="$PYMOD" PBDIFF_DASK_MODULE=require
    check module 1 $C --examples 5 left right
    grep -q "hashing: by the pbdiff module" module.err ||
      { echo "scale: module: the driver did not hash by the module"; fail=1; }
    cmp -s module.dask differ.dask || { echo "scale: module: not the binary's statistics"; fail=1; }
    exit $fail ) || fail=1
fi
secs=$(( $(date +%s) - start ))
[ $fail -eq 0 ] && echo "scale: the Dask driver on 2 worker processes gives pbdiff's statistics ($([ -n "$PYMOD" ] && echo "5 cases, one hashed by the Python module" || echo "4 cases"), a killed worker, 3000 records, ${secs} s)"
exit $fail
