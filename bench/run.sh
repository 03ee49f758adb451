#!/bin/sh
# Benchmark: pbdiff on synthetic ONNX models against cmp, with time and peak memory.
#   bench/run.sh [PBDIFF]        (writes its inputs under ${BENCH_DIR:-/tmp/pbdiff-bench})
set -eu
PBDIFF=${1:-build/pbdiff}
D=${BENCH_DIR:-/tmp/pbdiff-bench}
mkdir -p "$D"
here=$(dirname "$0")
[ -f "$D/f1.onnx" ] || python3 "$here/gen_onnx.py" fields "$D/f1.onnx" 50
[ -f "$D/f2.onnx" ] || python3 "$here/gen_onnx.py" fields "$D/f2.onnx" 50 --change
[ -f "$D/t1.onnx" ] || python3 "$here/gen_onnx.py" tensors "$D/t1.onnx" 200
[ -f "$D/t2.onnx" ] || python3 "$here/gen_onnx.py" tensors "$D/t2.onnx" 200 --change
S="--proto /usr/include/onnx/onnx.proto -t onnx.ModelProto"
measure() {
  label=$1; shift
  /usr/bin/time -f "$label: %e s, %M KB peak" "$@" >/dev/null 2>"$D/err" || true
  tail -n 1 "$D/err"
}
cat "$D"/*.onnx >/dev/null # warm the page cache
for pair in "f1 f2" "t1 t2"; do
  set -- $pair
  ls -l "$D/$1.onnx" | awk '{printf "%s: %.1f MB\n", $9, $5/1e6}'
  measure "cmp        " cmp "$D/$1.onnx" "$D/$2.onnx"
  measure "pbdiff     " "$PBDIFF" $S "$D/$1.onnx" "$D/$2.onnx"
  measure "pbdiff same" "$PBDIFF" $S "$D/$1.onnx" "$D/$1.onnx"
  measure "pbdiff -q  " "$PBDIFF" -q $S "$D/$1.onnx" "$D/$2.onnx"
done
