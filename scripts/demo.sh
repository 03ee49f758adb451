#!/bin/sh
# make demo: a semantic diff on bundled data, then on two real ONNX models.
set -u
PBDIFF=${1:-build/pbdiff}
D=testdata/demo
run() { printf '\n$ %s\n' "$*"; "$@"; printf '(exit status %s)\n' "$?"; }

echo "== Same meaning, different bytes =="
run cmp "$D/left.pb" "$D/same.pb"
run "$PBDIFF" --proto "$D/demo.proto" -t demo.Config "$D/left.pb" "$D/same.pb"

echo
echo "== Three real changes, hidden among encoding changes =="
run "$PBDIFF" --proto "$D/demo.proto" -t demo.Config "$D/left.pb" "$D/right.pb"
run "$PBDIFF" --format json --proto "$D/demo.proto" -t demo.Config "$D/left.pb" "$D/right.pb"

ONNX=/usr/share/libonnx-testdata/data/node
if [ -f "$ONNX/test_abs/model.onnx" ]; then
  echo
  echo "== Two real ONNX models (libonnx-testdata), with the ONNX schema =="
  run "$PBDIFF" --proto /usr/include/onnx/onnx.proto -t onnx.ModelProto \
    "$ONNX/test_abs/model.onnx" "$ONNX/test_neg/model.onnx"
  echo
  echo "== The same without a schema: fields by number =="
  run "$PBDIFF" "$ONNX/test_abs/model.onnx" "$ONNX/test_neg/model.onnx"
fi
exit 0
