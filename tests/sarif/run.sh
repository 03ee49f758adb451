#!/bin/sh
# pbdiff tests — SARIF logs (--format sarif, docs/ci.md) validated against the
# SARIF 2.1.0 JSON schema: the one the npm package @microsoft/jest-sarif
# ships, installed under NPM_PREFIX, read by its ajv (validate.cjs).  Logs of
# a pair with every kind of difference, an equal pair, --max-diffs and -r.
# Skipped, with a message, only where npm is missing.
# Usage: tests/sarif/run.sh PBDIFF WORKDIR NPM_PREFIX
set -eu
P=$1 W=$2 NPM=$3
R=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "sarif: skipped: npm and node are needed to install the SARIF schema's package"
  exit 0
fi
PKG=@microsoft/jest-sarif@1.0.0-beta.0
if [ ! -f "$NPM/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json" ]; then
  mkdir -p "$NPM"
  echo "sarif: installing $PKG under $NPM (for the SARIF 2.1.0 schema)"
  npm install --prefix "$NPM" --no-audit --no-fund --silent "$PKG" >/dev/null
fi
rm -rf "$W"
mkdir -p "$W/a" "$W/b"
cd "$W"
PROTO=$R/testdata/proto
protoc --include_imports -I "$PROTO" -I /usr/include -o sem3.desc "$PROTO/sem3.proto"
enc() { protoc --encode=sem3.M -I "$PROTO" -I /usr/include "$PROTO/sem3.proto"; }
S3="-s sem3.desc -t sem3.M"
printf '%s\n' 'i32: 1 str: "a\"b" rm { a: 1 } rm { a: 2 } ms { key: "k" value: 1 } oi: 0 ri: [1, 2]' | enc > l.pb
printf '%s\n' 'i32: 2 str: "a\nb" rm { a: 2 } rm { a: 1 } ms { key: "z" value: 1 } ri: [1, 2, 3]' | enc > r.pb
st=0
"$P" $S3 --format sarif l.pb r.pb > pair.sarif || st=$?
[ $st = 1 ] || { echo "sarif: the pair exited $st" >&2; exit 1; }
"$P" $S3 --format sarif l.pb l.pb > equal.sarif
"$P" $S3 --format sarif --max-diffs 2 l.pb r.pb > cut.sarif || [ $? = 1 ]
cp l.pb a/x.pb && cp r.pb b/x.pb && cp l.pb a/only.pb && cp r.pb 'b/sp ace.pb' && cp l.pb a/same.pb && cp l.pb b/same.pb
"$P" -r $S3 --format sarif a b > dirs.sarif || [ $? = 1 ]
node "$R/tests/sarif/validate.cjs" "$NPM/node_modules" pair.sarif equal.sarif cut.sarif dirs.sarif
