#!/bin/sh
# bench/floor on hand-made bytes of sem2.M (testdata/proto/sem2.proto): the
# walk is schema-driven (a message field is recursed into, a bytes field that
# looks like a message is not), order-insensitive, applies no semantic rule
# (packed against unpacked differs, as its head comment says), and stops with
# exit 2 and the offset on malformed bytes.
#   tests/bench/floor.sh FLOOR            (make bench-floor-test)
set -eu
FLOOR=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
protoc --include_imports -I"$root/testdata/proto" -o "$t/sem2.desc" "$root/testdata/proto/sem2.proto"
fail=0
# put FILE OCTAL-ESCAPES: hand-made bytes (the escapes are the format, on purpose)
# shellcheck disable=SC2059
put() { printf "$2" >"$t/$1"; }
# expect EXIT WHAT LEFT RIGHT [TYPE]: runs floor, checks its exit status.
expect() {
  set +e
  "$FLOOR" "$t/sem2.desc" "${5:-sem2.M}" "$t/$3" "$t/$4" 2>"$t/err"
  rc=$?
  set -e
  if [ "$rc" != "$1" ]; then
    echo "floor: $2: exit $rc, expected $1 ($(cat "$t/err"))"
    fail=1
  fi
}
# i=1, inner{a=2, r=3}, s="x"
put base '\010\001\062\004\010\002\020\003\162\001x'
put reorder '\162\001x\062\004\020\003\010\002\010\001'
put deep '\010\001\062\004\010\002\020\004\162\001x'
put nonmin '\010\201\000\062\004\010\002\020\003\162\001x'
expect 0 "fields in another order, also inside a sub-message" base reorder
expect 1 "one leaf changed inside a sub-message" base deep
expect 0 "a non-minimal varint is its value" base nonmin
expect 0 "a byte copy" base base
# by (bytes, 13) holding what would parse as Inner: a leaf, never recursed into
put bytes1 '\152\004\010\002\020\003'
put bytes2 '\152\004\020\003\010\002'
expect 1 "a bytes field is a leaf whatever it holds" bytes1 bytes2
# r (repeated int32, 9) unpacked [1, 2] against packed [1, 2]: no packed rule
put unpacked '\110\001\110\002'
put packed '\112\002\001\002'
expect 1 "packed against unpacked (no rule applied)" unpacked packed
# group G (7) {ga (8) = 5}, next to i
put group1 '\073\100\005\074\010\001'
put group2 '\010\001\073\100\005\074'
put group3 '\073\100\006\074\010\001'
expect 0 "a group walked as a message" group1 group2
expect 1 "a group's leaf changed" group1 group3
put open_group '\073\100\005'
expect 2 "a group without its end" group1 open_group
put truncated '\010\001\062\005\010\002'
expect 2 "a length past the end" base truncated
grep -q "offset 2: truncated length-delimited field" "$t/err" ||
  { echo "floor: the error names no offset: $(cat "$t/err")"; fail=1; }
put badwire '\017'
expect 2 "wire type 7" base badwire
expect 2 "an unknown type" base base sem2.NoSuchType
expect 2 "a missing file" base no-such-file
put empty ''
expect 0 "two empty messages" empty empty
[ $fail = 0 ] && echo "floor: schema-driven walk, order-insensitive, no rules, errors with offsets"
exit $fail
