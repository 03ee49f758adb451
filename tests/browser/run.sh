#!/bin/sh
# pbdiff tests — the HTML report (docs/html.md) opened from disk in Debian's
# chromium, headless, driven by playwright-core (report.mjs): n/p move the
# focus, the page works with JavaScript off, dark mode has its own colours,
# nothing is requested from anywhere, injected markup stays text, a
# million differences render within the bound, every path of real pairs
# (libonnx-testdata models, descriptor sets, -r) is on the page.
# Usage: tests/browser/run.sh PBDIFF WORKDIR NPM_PREFIX
set -eu
P=$1 W=$2 NPM=$3
R=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "browser: skipped: npm and node are needed to install and run playwright-core"
  exit 0
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "browser: /usr/bin/chromium is missing: install Debian's chromium (scripts/deps.sh)" >&2
  exit 1
fi
PW_VERSION=1.65.1
if [ ! -f "$NPM/node_modules/playwright-core/package.json" ] ||
   ! grep -q "\"version\": \"$PW_VERSION\"" "$NPM/node_modules/playwright-core/package.json"; then
  mkdir -p "$NPM"
  echo "browser: installing playwright-core $PW_VERSION under $NPM"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$NPM" --no-audit --no-fund --silent \
    "playwright-core@$PW_VERSION" >/dev/null
fi
rm -rf "$W"
mkdir -p "$W"
cd "$W"

# The inputs and their reports.
PROTO=$R/testdata/proto
protoc --include_imports -I "$PROTO" -I /usr/include -o sem3.desc "$PROTO/sem3.proto"
enc() { protoc --encode=sem3.M -I "$PROTO" -I /usr/include "$PROTO/sem3.proto"; }
S3="-s sem3.desc -t sem3.M"
echo 'i32: 1 str: "hi" rm { a: 1 s: "x" } rm { a: 2 } ms { key: "k" value: 1 } ms { key: "z" value: 9 } oi: 0 inner { a: 1 s: "same" r: 5 child { a: 3 } }' | enc > kinds_a.pb
echo 'i32: 2 str: "hi" rm { a: 1 s: "y" } ms { key: "k" value: 2 } ms { key: "z" value: 9 } inner { a: 1 s: "same" r: 5 child { a: 4 } } u32: 3' | enc > kinds_b.pb
"$P" $S3 --format html kinds_a.pb kinds_b.pb > kinds.html || [ $? = 1 ]
printf '%s' 'str: "</code></div><script>window.pwned=1;alert(1)</script>" ms { key: "\"><img src=x onerror=alert(2)>" value: 1 }' | enc > inj_a.pb
printf '%s' 'str: "<svg onload=alert(3)>" ms { key: "\"><img src=x onerror=alert(2)>" value: 2 }' | enc > inj_b.pb
"$P" $S3 --format html -L '<script>alert(5)</script>' -L "'><img src=x onerror=alert(6)>" inj_a.pb inj_b.pb > inject.html || [ $? = 1 ]
# a million differences: map entries k0..k999999 whose values all differ
for side in 0 1; do
  /usr/bin/python3 - "$side" > "big_$side.pb" <<'PY'
import sys
def v(x):
    o = b""
    while True:
        b = x & 127
        x >>= 7
        if x:
            o += bytes([b | 128])
        else:
            return o + bytes([b])
plus = int(sys.argv[1])
out = []
for i in range(1000000):
    k = b"k%d" % i
    e = b"\x0a" + v(len(k)) + k + b"\x10" + v(i + plus)
    out.append(b"\x82\x01" + v(len(e)) + e)
sys.stdout.buffer.write(b"".join(out))
PY
done
"$P" $S3 --format html big_0.pb big_1.pb > big.html || [ $? = 1 ]
# real pairs: two ONNX models, and two descriptor sets of protobuf's own
# .proto files, one with edits; each with its list of paths to find
ONNX=/usr/share/libonnx-testdata/data/node
OP="--proto /usr/include/onnx/onnx.proto -I /usr/include -t onnx.ModelProto"
"$P" $OP --format html "$ONNX/test_conv_with_strides_padding/model.onnx" "$ONNX/test_conv_with_strides_no_padding/model.onnx" > onnx.html || [ $? = 1 ]
"$P" $OP --format paths "$ONNX/test_conv_with_strides_padding/model.onnx" "$ONNX/test_conv_with_strides_no_padding/model.onnx" > onnx.paths || [ $? = 1 ]
GP=/usr/include/google/protobuf
protoc -I /usr/include -o desc_a.pb "$GP/descriptor.proto" "$GP/any.proto" "$GP/timestamp.proto"
mkdir -p edited/google/protobuf
sed -e 's/optional string name = 1;/optional string name = 1;\n  optional string renamed = 99;/' \
    -e 's/repeated string dependency = 3;/repeated string dependencies = 3;/' \
    "$GP/descriptor.proto" > edited/google/protobuf/descriptor.proto
cp "$GP/any.proto" edited/google/protobuf/
protoc -I edited -I /usr/include -o desc_b.pb edited/google/protobuf/descriptor.proto edited/google/protobuf/any.proto "$GP/duration.proto"
DP="--proto $GP/descriptor.proto -I /usr/include -t google.protobuf.FileDescriptorSet"
"$P" $DP --format html desc_a.pb desc_b.pb > desc.html || [ $? = 1 ]
"$P" $DP --format paths desc_a.pb desc_b.pb > desc.paths || [ $? = 1 ]
# -r over two directories of ONNX tensors
mkdir -p dir1 dir2
for t in test_abs test_relu test_neg; do
  cp "$ONNX/$t/test_data_set_0/input_0.pb" "dir1/$t.pb"
  cp "$ONNX/$t/test_data_set_0/output_0.pb" "dir2/$t.pb"
done
cp "$ONNX/test_abs/test_data_set_0/input_0.pb" dir1/only_left.pb
TP="--proto /usr/include/onnx/onnx.proto -I /usr/include -t onnx.TensorProto"
"$P" $TP -r --format html dir1 dir2 > dirs.html || [ $? = 1 ]
"$P" $TP -r --format paths dir1 dir2 > dirs.paths || [ $? = 1 ]

node "$R/tests/browser/report.mjs" "$W" "$R" "$NPM"
