#!/bin/sh
# Property tests: random messages of every field kind (tests/property/property.cc,
# fixed seeds), each in two random equivalent encodings and once with one value
# changed.  For every case pbdiff must say the two encodings are equal, give
# them the same fingerprints (pbh1 and pbs1), the same `cat` and the same
# `cat --format binary` (which libprotobuf parses to the message), and report
# exactly one difference, at exactly the changed value's path, for the third;
# options that name nothing the messages hold leave those edits as they are;
# two distinct elements of an ordered field swapped differ under every option
# family (docs/semantics.md, "When a change of place is a difference"); and a
# patch (--format patch) between two cases must apply and undo (-R), and
# three-way merges (pbdiff merge) of them must give what they must.
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
  # 3b. the canonical bytes (cat --format binary), for every fifth case: the
  # same for both encodings, equal in meaning to A, the same when written
  # again, and parsed by libprotobuf to A's message
  while IFS="$(printf '\t')" read -r name path; do
    case ${name%.bin} in *[05]) ;; *) continue ;; esac
    (cd "$d" && "$P" cat --format binary "A/$name" > canon.A && "$P" cat --format binary "B/$name" > canon.B &&
      cp canon.A canon.A.bin && "$P" cat --format binary canon.A.bin > canon.AA)
    cmp -s "$d/canon.A" "$d/canon.B" || { echo "property: $type: canonical bytes differ for $name"; fail=1; }
    cmp -s "$d/canon.A" "$d/canon.AA" || { echo "property: $type: canonical bytes not stable for $name"; fail=1; }
    (cd "$d" && "$P" -q "A/$name" canon.A.bin) || { echo "property: $type: canonical bytes of $name mean something else"; fail=1; }
    "$G" --same "$W/prop.desc" "$type" "$d/A/$name" "$d/canon.A" "$d/canon.B" || fail=1
  done < "$d.expected"
  # 3c. patches, for every fifth case: from A to C (one change) and from A to
  # the previous fifth case's A (many): applied to A they give C (or that
  # A), and undone with -R they give A back
  prev=
  while IFS="$(printf '\t')" read -r name path; do
    case ${name%.bin} in *[05]) ;; *) continue ;; esac
    for other in "C/$name" ${prev:+"A/$prev"}; do
      if ! (cd "$d" && { "$P" --format patch "A/$name" "$other" > change.pbpatch || [ $? -eq 1 ]; } &&
            cp "A/$name" patched.bin && "$P" apply change.pbpatch patched.bin &&
            "$P" -q patched.bin "$other" && "$P" apply -R change.pbpatch patched.bin &&
            "$P" -q patched.bin "A/$name"); then
        echo "property: $type: the patch from A/$name to $other does not round-trip"; fail=1
      fi
    done
    prev=$name
  done < "$d.expected"
  # 3d. merges, for every fifth case with the previous fifth case's A as B:
  # merge(A, A, B), merge(A, B, A) and merge(A, B, B) are B; and for e1, e2
  # two hunks of the patch A -> B at different top-level fields (the oneofs
  # c1..c3 and o_i, o_s, o_n count as one field), merge(A, A+e1, A+e2) is
  # A+e1+e2, by hash and by libprotobuf (property --same)
  prev=
  while IFS="$(printf '\t')" read -r name path; do
    case ${name%.bin} in *[05]) ;; *) continue ;; esac
    [ -n "$prev" ] || { prev=$name; continue; }
    a="A/$name" b="A/$prev"
    for trio in "$a $a $b" "$a $b $a" "$a $b $b"; do
      set -- $trio
      (cd "$d" && cp "$2" ours.bin && "$P" merge "$1" ours.bin "$3" 2> merge.err && "$P" -q ours.bin "$b") ||
        { echo "property: $type: merge($trio) is not $b: $(head -c 300 "$d/merge.err")"; fail=1; }
    done
    (cd "$d" && { "$P" --format patch "$a" "$b" > ab.pbpatch || [ $? -eq 1 ]; } &&
      /usr/bin/python3 - ab.pbpatch <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
head, hunks = lines[:2], []
for l in lines[2:]:
    if l.startswith("@@ "): hunks.append([l])
    elif l and hunks: hunks[-1].append(l)
def top(h):
    t = re.match(r"(\[[^\]]*\]|[A-Za-z0-9_]+)", h[0].split(" ", 2)[2]).group(0)
    return "(oneof)" if re.fullmatch(r"c[123]|o_[isn]", t) else t
# e2: the last hunk that is its field's first, so that it holds on A alone
firsts = [j for j in range(1, len(hunks)) if all(top(hunks[k]) != top(hunks[j]) for k in range(j))]
if hunks and firsts:
    i, j = 0, firsts[-1]
    for name, hs in (("e1", [hunks[i]]), ("e2", [hunks[j]]), ("e12", [hunks[i], hunks[j]])):
        open(name + ".pbpatch", "w").write("\n".join(head + [l for h in hs for l in h]) + "\n")
else:
    open("e1.pbpatch", "w").write("")
PY
    ) || { echo "property: $type: no patch from $a to $b"; fail=1; }
    if [ -s "$d/e1.pbpatch" ]; then
      (cd "$d" && for e in e1 e2 e12; do cp "$a" $e.bin && "$P" apply $e.pbpatch $e.bin || exit 1; done &&
        cp e1.bin ours.bin && "$P" merge "$a" ours.bin e2.bin 2> merge.err && "$P" -q ours.bin e12.bin) &&
        "$G" --same "$W/prop.desc" "$type" "$d/e12.bin" "$d/ours.bin" ||
        { echo "property: $type: merge($a, A+e1, A+e2) is not A+e1+e2: $(head -c 300 "$d/merge.err")"; fail=1; }
    fi
    prev=$name
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
  echo "property: $type: $cases cases: equal encodings, same fingerprints, cat and canonical bytes, one edit at the changed path, patches that apply and undo, merges; $swaps swaps found under every option, $noisy with ignored changes in them"
done
exit $fail
