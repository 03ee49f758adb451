#!/bin/sh
# Property tests: random messages of every field kind (tests/property/property.cc,
# fixed seeds), each in two random equivalent encodings and once with one value
# changed.  For every case pbdiff must say the two encodings are equal, give
# them the same fingerprints (pbh1 and pbs1) and the same `cat`, and report
# exactly one difference, at exactly the changed value's path, for the third;
# options that name nothing the messages hold leave those edits as they are;
# and two distinct elements of an ordered field swapped differ under every
# option family (docs/semantics.md, "When a change of place is a difference").
#
#   tests/property/run.sh PBDIFF PROPERTY WORKDIR [COUNT]
set -eu
P=$1 G=$2 W=$3 N=${4:-1000}
rm -rf "$W"
mkdir -p "$W"
protoc --include_imports -Itestdata/proto -I/usr/include -o"$W/prop.desc" prop.proto sem3.proto
fail=0
for spec in prop.Node:1 sem3.M:2; do
  type=${spec%:*} seed=${spec#*:}
  d="$W/$type"
  "$G" "$W/prop.desc" "$type" "$seed" "$N" "$d" > "$d.expected"
  printf '[file "*.bin"]\n\tschema = ../prop.desc\n\ttype = %s\n' "$type" > "$d/.pbdiff"
  cases=$(wc -l < "$d.expected")
  # 1. the two encodings are equal
  (cd "$d" && "$P" -r --summary A B > equal.out) || { echo "property: $type: encodings not all equal:"; grep -v '^equal ' "$d/equal.out" | head; fail=1; }
  # 2. the same fingerprints, both kinds
  for h in "" --sha256; do
    (cd "$d" && "$P" hash $h A/*.bin | sed 's|  A/|  |' > hash.A && "$P" hash $h B/*.bin | sed 's|  B/|  |' > hash.B)
    cmp -s "$d/hash.A" "$d/hash.B" || { echo "property: $type: hash $h differs:"; diff "$d/hash.A" "$d/hash.B" | head -4; fail=1; }
  done
  # 3. the same canonical text, for every fifth case
  while IFS="$(printf '\t')" read -r name path; do
    case ${name%.bin} in *[05]) ;; *) continue ;; esac
    (cd "$d" && "$P" cat "A/$name" > cat.A && "$P" cat "B/$name" > cat.B)
    cmp -s "$d/cat.A" "$d/cat.B" || { echo "property: $type: cat differs for $name"; fail=1; }
  done < "$d.expected"
  # 4. one change: one edit, at its path
  (cd "$d" && "$P" -r --format paths A C > paths.out) || [ $? -eq 1 ]
  /usr/bin/python3 - "$d.expected" "$d/paths.out" "$type" <<'PY' || fail=1
import sys
want = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[1]))
got = {}
for l in open(sys.argv[2]):
    name, _, edit = l.rstrip("\n").partition("\t")
    got.setdefault(name, []).append(edit.split(" ", 1)[1])
bad = [f"{n}: want one edit at {p}, got {got.get(n, [])}" for n, p in want.items() if got.get(n) != [p]]
for b in bad[:20]:
    print(f"property: {sys.argv[3]}: " + b)
sys.exit(1 if bad else 0)
PY
  # 5. options only remove what they name: options that name nothing these
  # messages hold (tolerances no two distinct values fall within, unknown
  # fields where there are none, the root's i32 that no change touches) give
  # the same edits as none, for the one change and for the swap
  for opts in "--float-fraction 1e-12" "--float-margin 1e-300" "--ignore-unknown" "--ignore i32"; do
    (cd "$d" && "$P" -r --format paths $opts A C > paths.opt) || [ $? -eq 1 ]
    # what --ignore i32 names goes: a change of the root's i32
    awk -F'\t' -v o="$opts" 'o != "--ignore i32" || $2 != "changed i32"' "$d/paths.out" > "$d/paths.want"
    cmp -s "$d/paths.want" "$d/paths.opt" || { echo "property: $type: $opts changed the edits of one change:"; diff "$d/paths.want" "$d/paths.opt" | head -6; fail=1; }
  done
  # 6. order survives every option: two distinct elements of an ordered field
  # swapped always differ, under each option family, and the edits name the field
  swaps=$(wc -l < "$d/swaps")
  rm -rf "$d/AS" && mkdir "$d/AS"
  cut -f1 "$d/swaps" | while read -r name; do cp "$d/A/$name" "$d/AS/"; done
  (cd "$d" && "$P" -r --format paths AS D > swap.out) || [ $? -eq 1 ]
  for opts in "" "--float-fraction 1e-12" "--float-margin 1e-300" "--ignore-unknown" "--ignore i32" "--partial"; do
    (cd "$d" && "$P" -r --format paths $opts AS D > swap.opt) || [ $? -eq 1 ]
    if [ -n "$opts" ] && [ "$opts" != "--partial" ] && ! cmp -s "$d/swap.out" "$d/swap.opt"; then
      echo "property: $type: $opts changed the edits of a swap:"; diff "$d/swap.out" "$d/swap.opt" | head -6; fail=1
    fi
    /usr/bin/python3 - "$d/swaps" "$d/swap.opt" "$type" "$opts" <<'PY' || fail=1
import sys
want = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[1]))
got = {}
for l in open(sys.argv[2]):
    name, _, edit = l.rstrip("\n").partition("\t")
    got.setdefault(name, []).append(edit.split(" ", 1)[1])
bad = [f"{n}: a swap in {f} gave {got.get(n, [])}" for n, f in want.items()
       if not any(p == f or p.startswith(f + "[") or p.startswith(f + ".") for p in got.get(n, []))]
for b in bad[:20]:
    print(f"property: {sys.argv[3]} {sys.argv[4]}: " + b)
sys.exit(1 if bad else 0)
PY
  done
  # 7. ... and with a change inside the swapped elements that --ignore names:
  # still a difference, in the field (a move, or where lists of one length
  # read better in place, changes at their places)
  noisy=$(wc -l < "$d/noisy")
  rm -rf "$d/AN" && mkdir "$d/AN"
  while IFS="$(printf '\t')" read -r name field leaf; do
    cp "$d/A/$name" "$d/AN/$name"
    (cd "$d" && "$P" --format paths --ignore "$leaf" "AN/$name" "N/$name" > noisy.out) && {
      echo "property: $type: $name: a swap in $field read as equal under --ignore $leaf"; fail=1; }
    grep -qF " $field[" "$d/noisy.out" || {
      echo "property: $type: $name: a swap in $field under --ignore $leaf gave:"; head -3 "$d/noisy.out"; fail=1; }
  done < "$d/noisy"
  echo "property: $type: $cases cases: equal encodings, same fingerprints and cat, one edit at the changed path; $swaps swaps found under every option, $noisy with ignored changes in them"
done
exit $fail
