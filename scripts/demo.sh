#!/bin/sh
# make demo: a semantic diff on bundled data, then on two real ONNX models.
set -u
PBDIFF=${1:-build/pbdiff}
D=testdata/demo
run() { printf '\n$ %s\n' "$*"; "$@"; printf '(exit status %s)\n' "$?"; }

echo "== Same meaning, different bytes =="
run cmp "$D/left.pb" "$D/same.pb"
run "$PBDIFF" --proto "$D/demo.proto" -t demo.Config "$D/left.pb" "$D/same.pb"
run "$PBDIFF" --explain --proto "$D/demo.proto" -t demo.Config "$D/left.pb" "$D/same.pb"

run "$PBDIFF" hash --proto "$D/demo.proto" -t demo.Config "$D/left.pb" "$D/same.pb" "$D/right.pb"

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
  M="$ONNX/test_softmax_axis_0_expanded/model.onnx"
  if [ -f "$M" ] && command -v protoc >/dev/null; then
    echo
    echo "== A real model with one node inserted, one removed and one attribute changed =="
    T=$(mktemp -d)
    protoc --decode=onnx.ModelProto -I/usr/include onnx/onnx.proto < "$M" |
      awk 'BEGIN{n=0} /^  node \{/{n++; if(n==2) print "  node {\n    input: \"x\"\n    output: \"extra_relu\"\n    op_type: \"Relu\"\n  }"} {print}' |
      awk '/^  node \{/{buf=$0; getline; while ($0 !~ /^  \}/) {buf=buf"\n"$0; getline} buf=buf"\n"$0; if (buf ~ /op_type: "Exp"/) next; if (buf ~ /ReduceSum/) sub(/i: 1/, "i: 0", buf); print buf; next} {print}' |
      protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto > "$T/edited.onnx"
    run "$PBDIFF" --proto /usr/include/onnx/onnx.proto -t onnx.ModelProto "$M" "$T/edited.onnx"
    run "$PBDIFF" --key onnx.GraphProto.node=output --proto /usr/include/onnx/onnx.proto \
      -t onnx.ModelProto "$M" "$T/edited.onnx"
    rm -rf "$T"
  fi
fi
exit 0
