#!/usr/bin/env bash
# Benchmark: pbdiff against the tools a user would pick instead, on synthetic ONNX
# models whose pairs are equal in meaning but different in bytes.
#
#   bench/run.sh [PBDIFF]          (make bench: builds everything, then runs this)
#
# Environment:
#   BENCH_DIR        inputs and scratch files        (/tmp/pbdiff-bench)
#   BENCH_RUNS       runs per figure, median taken   (5)
#   BENCH_SLOW_SECS  a figure whose first run takes longer than this...       (10)
#   BENCH_SLOW_RUNS  ...gets only this many runs                              (3)
#   BENCH_SKIP_SECS  a tool whose first run on a model takes longer than this
#                    is stopped and reported as skipped on that model         (60)
#   BENCH_SCALE      multiplies every input size (1); BENCH_SEED (20240601)
#   MD_COMPARE       the MessageDifferencer program (next to PBDIFF, in bench/)
#   FLOOR            the floor, bench/floor.c            (next to PBDIFF, in bench/)
# Prints a Markdown table and writes it to bench/results.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PBDIFF_SRC=${1:-build/pbdiff}
D=${BENCH_DIR:-/tmp/pbdiff-bench}
RUNS=${BENCH_RUNS:-5}
SLOW_SECS=${BENCH_SLOW_SECS:-10}
SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
SKIP_SECS=${BENCH_SKIP_SECS:-60}
SCALE=${BENCH_SCALE:-1}
SEED=${BENCH_SEED:-20240601}
TYPE=onnx.ModelProto
mkdir -p "$D"
TF=$D/time.out
trap 'rm -f "$D/a.txt" "$D/b.txt" "$TF"' EXIT

for tool in /usr/bin/python3 protoc /usr/bin/time cmp diff timeout g++ pkg-config valgrind; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make deps installs it)" >&2; exit 2; }
done

# The lead may be rebuilding pbdiff: wait for it, then run a private copy so that
# every figure comes from the same binary.
for _ in $(seq 60); do
  [ -x "$PBDIFF_SRC" ] && break
  echo "bench: waiting for $PBDIFF_SRC" >&2
  sleep 5
done
export PBDIFF=$D/pbdiff.bin
cp "$PBDIFF_SRC" "$PBDIFF"
VERSION=$("$PBDIFF" --version 2>&1 | head -n 1 || true)

# md_compare too is copied: a `make clean` elsewhere must not remove it mid-run.
MDC_SRC=${MD_COMPARE:-$(dirname "$PBDIFF_SRC")/bench/md_compare}
export MDC=$D/md_compare.bin
if [ -x "$MDC_SRC" ]; then
  cp "$MDC_SRC" "$MDC"
else
  # shellcheck disable=SC2046
  g++ -O2 -std=c++17 -o "$MDC" "$here/md_compare.cc" $(pkg-config --cflags --libs protobuf)
fi

# The floor (bench/floor.c), copied for the same reason; built here if missing.
FLOOR_SRC=${FLOOR:-$(dirname "$PBDIFF_SRC")/bench/floor}
export FLOOR=$D/floor.bin
if [ -x "$FLOOR_SRC" ]; then
  cp "$FLOOR_SRC" "$FLOOR"
else
  cc -std=c11 -O2 -D_DEFAULT_SOURCE -I"$here/../include" -o "$FLOOR" "$here/floor.c" \
    "$(dirname "$PBDIFF_SRC")/libpbdiff.a" -lxxhash -lz -lcrypto -lpthread -lm
fi

# A descriptor set compiled once, so that no figure includes protoc's time.
export DESC=$D/onnx.desc
protoc --include_imports -I/usr/include -o "$DESC" onnx/onnx.proto

/usr/bin/python3 "$here/gen_onnx.py" --selftest --md-compare "$MDC" "$DESC" >/dev/null ||
  { echo "bench: gen_onnx.py --selftest failed: the re-encodings would not be equal" >&2; exit 1; }
/usr/bin/python3 "$here/gen_onnx.py" --dir "$D" --seed "$SEED" --scale "$SCALE" >&2
sync # no write-back of fresh inputs under the first figures
cat "$D"/*.onnx >/dev/null # into the page cache: every figure reads from memory

export D TYPE
# Each tool is a shell command over $L and $R; exit 0 equal, 1 different, 2 trouble.
# shellcheck disable=SC2016 # expanded by the sh that runs each command
declare -A CMD=(
  [pq]='exec "$PBDIFF" -q -s "$DESC" -t "$TYPE" "$L" "$R"'
  [pr]='exec "$PBDIFF" -s "$DESC" -t "$TYPE" "$L" "$R" >/dev/null'
  [md]='exec "$MDC" "$DESC" "$TYPE" "$L" "$R"'
  [pt]='{ protoc --decode="$TYPE" -I/usr/include onnx/onnx.proto <"$L" >"$D/a.txt" &&
         protoc --decode="$TYPE" -I/usr/include onnx/onnx.proto <"$R" >"$D/b.txt"; } || exit 2
        exec diff "$D/a.txt" "$D/b.txt" >/dev/null'
  [cat]='exec cat "$L" "$R" >/dev/null'
  [cmp]='exec cmp "$L" "$R" >/dev/null'
  [fl]='exec "$FLOOR" "$DESC" "$TYPE" "$L" "$R"'
)
declare -A NAME=([pq]="pbdiff -q" [pr]="pbdiff (report)" [md]="MessageDifferencer"
  [pt]="protoc --decode ×2 + diff" [cat]="cat" [cmp]="cmp" [fl]="floor")
TOOLS="pq pr md pt cat cmp fl"

declare -A RES=() SKIPPED=() BAD=()
WARNINGS=()

# run_once CMD L R LIMIT: sets NS (wall-clock nanoseconds), KB (peak RSS), RC.
run_once() {
  local t0 t1
  t0=$(date +%s%N)
  set +e
  L=$2 R=$3 /usr/bin/time -o "$TF" -f '%M' timeout "$4" sh -c "$1"
  RC=$?
  set -e
  t1=$(date +%s%N)
  NS=$((t1 - t0))
  KB=$(tail -n 1 "$TF")
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

# measure KEY MODEL TOOL LEFT RIGHT EXPECTED_EXIT: RES[KEY:TOOL]="ns kb runs".
# EXPECTED_EXIT "-": 0 and 1 both fine (the floor on a re-encoding).
measure() {
  local key=$1 model=$2 tool=$3 l=$4 r=$5 expect=$6 runs=$RUNS i ns=() kb=()
  if [ -n "${SKIPPED[$model:$tool]:-}" ]; then RES[$key:$tool]=skip; return; fi
  for ((i = 0; i < runs; i++)); do
    # Only a first run may be cut short: later ones are known to finish.
    run_once "${CMD[$tool]}" "$D/$l" "$D/$r" "$([ "$i" = 0 ] && echo "$SKIP_SECS" || echo 0)"
    if [ "$i" = 0 ] && [ "$RC" = 124 ]; then
      SKIPPED[$model:$tool]=1
      RES[$key:$tool]=skip
      echo "bench: $l vs $r: ${NAME[$tool]} skipped (over $SKIP_SECS s)" >&2
      return
    fi
    if [ "$RC" -gt 1 ]; then # trouble: its time would mean nothing
      RES[$key:$tool]="error $RC"
      WARNINGS+=("WARNING: ${NAME[$tool]} on $l vs $r failed (exit $RC)")
      echo "bench: ${WARNINGS[-1]}" >&2
      return
    fi
    if [ "$expect" != - ] && [ "$RC" != "$expect" ] && [ -z "${BAD[$key:$tool]:-}" ]; then
      BAD[$key:$tool]=1
      WARNINGS+=("WARNING: ${NAME[$tool]} on $l vs $r exited $RC, expected $expect")
      echo "bench: ${WARNINGS[-1]}" >&2
    fi
    ns+=("$NS")
    kb+=("$KB")
    if [ "$i" = 0 ] && [ "$NS" -gt $((SLOW_SECS * 1000000000)) ] && [ "$runs" -gt "$SLOW_RUNS" ]; then
      runs=$SLOW_RUNS
    fi
  done
  rm -f "$D/a.txt" "$D/b.txt" # protoc's texts: up to 1.2 GB of dirty pages
  RES[$key:$tool]="$(printf '%s\n' "${ns[@]}" | median) $(printf '%s\n' "${kb[@]}" | median) $runs"
  echo "bench: $l vs $r: ${NAME[$tool]}: $(awk -v n="${RES[$key:$tool]%% *}" 'BEGIN { printf "%.3f", n / 1e9 }') s" >&2
}

size() { stat -c %s "$D/$1"; }

# Pairs: key model left right expected-exit label
PAIRS=(
  "f.eq f f.onnx f.reenc.onnx 0 field-heavy, equal re-encoding"
  "f.ch f f.onnx f.change.onnx 1 field-heavy, one change"
  "f.cp f f.onnx f.copy.onnx 0 field-heavy, byte copy"
  "t.eq t t.onnx t.reenc.onnx 0 tensor-heavy, equal re-encoding"
  "t.ch t t.onnx t.change.onnx 1 tensor-heavy, one change"
  "t.cp t t.onnx t.copy.onnx 0 tensor-heavy, byte copy"
  "tf.eq tf tf.onnx tf.reenc.onnx 0 tensor-heavy float_data, packed vs unpacked"
  "tf.ch tf tf.onnx tf.change.onnx 1 tensor-heavy float_data, one change"
  "tf.cp tf tf.onnx tf.copy.onnx 0 tensor-heavy float_data, byte copy"
)
for p in "${PAIRS[@]}"; do
  read -r key model l r expect _ <<<"$p"
  if [ "$key" = t.eq ]; then # the scaling line next to its 50 MB figure
    measure f10.eq f10 pq f10.onnx f10.reenc.onnx 0
    measure f200.eq f200 pq f200.onnx f200.reenc.onnx 0
  fi
  for tool in $TOOLS; do
    # cmp answers "same bytes?": only the byte copy asks that; on a re-encoding
    # it stops at the first byte.  cat tells nothing, so its exit is always 0.
    case $tool in
      cmp) [ "${key#*.}" = cp ] && measure "$key" "$model" cmp "$l" "$r" 0 ;;
      cat) measure "$key" "$model" cat "$l" "$r" 0 ;;
      # the floor applies no rule: on a re-encoding its verdict means nothing
      fl) measure "$key" "$model" fl "$l" "$r" "$([ "${key#*.}" = eq ] && echo - || echo "$expect")" ;;
      # 2 x 25 M unpacked floats as text: the t pairs already time protoc's decode
      pt) [ "$model" = tf ] || measure "$key" "$model" pt "$l" "$r" "$expect" ;;
      *) measure "$key" "$model" "$tool" "$l" "$r" "$expect" ;;
    esac
  done
done

# ------------------------------------------------------------------ corpora
# Two streams of records (testdata/proto/corpus.proto) written by an encoder of
# the tests' own: RIGHT re-encoded (fields reversed, non-minimal varints, the
# header in two parts), shuffled, one record in 1000 changed; compared with
# --record-key, which pairs records by id whatever their order.
CORPUS_N=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1000000 * s }')
export CDESC=$D/corpus.desc
protoc --include_imports -I"$here/../testdata/proto" -o "$CDESC" "$here/../testdata/proto/corpus.proto"
if [ ! -s "$D/c.left.bin" ] || [ "$(cat "$D/c.count" 2>/dev/null)" != "$CORPUS_N" ]; then
  /usr/bin/python3 "$here/../tests/support/write_corpus.py" --count "$CORPUS_N" "$D/c.left.bin"
  /usr/bin/python3 "$here/../tests/support/write_corpus.py" --count "$CORPUS_N" --style b \
    --shuffle "$SEED" --change 1000:7 "$D/c.right.bin"
  echo "$CORPUS_N" >"$D/c.count"
fi
# RIGHT again with header.timestamp and trace_id drawn at random in every
# record (a serialiser that stamps each run), compared under --ignore of both
if [ ! -s "$D/c.noise.bin" ] || [ "$(cat "$D/c.noise.count" 2>/dev/null)" != "$CORPUS_N" ]; then
  /usr/bin/python3 "$here/../tests/support/write_corpus.py" --count "$CORPUS_N" --style b \
    --shuffle "$SEED" --change 1000:7 --noise "$SEED" "$D/c.noise.bin"
  echo "$CORPUS_N" >"$D/c.noise.count"
fi
cat "$D"/c.*.bin >/dev/null
# shellcheck disable=SC2016
CMD[cq]='exec "$PBDIFF" -q -s "$CDESC" -t corpus.Record --framing delimited --record-key id "$L" "$R"'
# shellcheck disable=SC2016
CMD[cs]='exec "$PBDIFF" --stat -s "$CDESC" -t corpus.Record --framing delimited --record-key id "$L" "$R" >/dev/null'
# shellcheck disable=SC2016
CMD[cr]='exec "$PBDIFF" -s "$CDESC" -t corpus.Record --framing delimited --record-key id "$L" "$R" >/dev/null'
NAME[cq]="pbdiff -q --record-key"
NAME[cs]="pbdiff --record-key --stat"
NAME[cr]="pbdiff --record-key (report)"
CORPUS_TOOLS="cq cs cr cat"
for tool in $CORPUS_TOOLS; do
  measure c.ch c "$tool" c.left.bin c.right.bin "$([ "$tool" = cat ] && echo 0 || echo 1)"
done
# shellcheck disable=SC2016
CMD[ci]='exec "$PBDIFF" --stat --ignore header.timestamp --ignore trace_id -s "$CDESC" -t corpus.Record --framing delimited --record-key id "$L" "$R" >/dev/null'
NAME[ci]="pbdiff --record-key --stat --ignore"
measure c.ci c ci c.left.bin c.noise.bin 1

# ------------------------------------------------------------------ patch, merge
# pbdiff apply of the one-change patch (f.onnx to f.change.onnx) to f.onnx, and
# pbdiff merge of two one-change edits of f.onnx at different nodes
# (f.change.onnx, and f.change2.onnx written by gen_onnx.py), next to
# pbdiff -q on the one-change pair.
"$PBDIFF" --format patch -s "$DESC" -t "$TYPE" "$D/f.onnx" "$D/f.change.onnx" >"$D/f.pbpatch" ||
  [ $? -eq 1 ] || WARNINGS+=("WARNING: pbdiff --format patch on f.onnx vs f.change.onnx failed")
export PATCH_FILE=$D/f.pbpatch OURS_FILE=$D/f.change.onnx OUT_FILE=$D/f.out.onnx
# shellcheck disable=SC2016
CMD[ap]='exec "$PBDIFF" apply -s "$DESC" -t "$TYPE" -o "$OUT_FILE" "$PATCH_FILE" "$L"'
# shellcheck disable=SC2016
CMD[mg]='exec "$PBDIFF" merge -s "$DESC" -t "$TYPE" -o "$OUT_FILE" "$L" "$OURS_FILE" "$R"'
NAME[ap]="pbdiff apply"
NAME[mg]="pbdiff merge"
measure f.ap f ap f.onnx f.onnx 0
measure f.mg f mg f.onnx f.change2.onnx 0
"$PBDIFF" -q -s "$DESC" -t "$TYPE" "$OUT_FILE" "$D/f.onnx" &&
  WARNINGS+=("WARNING: the merge of two edits equals f.onnx")

# ------------------------------------------------------------------ HTML report
# --format html of the field-heavy one-change pair, and of two streams of
# 100 000 small messages that all differ (100 000 differences): time and size.
H_N=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 100000 * s }')
if [ "$(cat "$D/h.count" 2>/dev/null)" != "$H_N" ]; then
  /usr/bin/python3 -c "import sys; n = int(sys.argv[2]); open(sys.argv[1] + '/h.left.bin', 'wb').write(b'\x02\x08\x01' * n); open(sys.argv[1] + '/h.right.bin', 'wb').write(b'\x02\x08\x02' * n)" "$D" "$H_N"
  echo "$H_N" >"$D/h.count"
fi
export HTML_OUT=$D/report.html
# shellcheck disable=SC2016
CMD[hf]='exec "$PBDIFF" --format html -s "$DESC" -t "$TYPE" "$L" "$R" >"$HTML_OUT"'
# shellcheck disable=SC2016
CMD[hs]='exec "$PBDIFF" --format html --delimited "$L" "$R" >"$HTML_OUT"'
NAME[hf]="pbdiff --format html"
NAME[hs]="pbdiff --format html --delimited"
measure f.html f hf f.onnx f.change.onnx 1
HTML_F_SIZE=$(stat -c %s "$HTML_OUT")
measure h.html h hs h.left.bin h.right.bin 1
HTML_H_SIZE=$(stat -c %s "$HTML_OUT")

# ------------------------------------------------------------------ shapes
# Inputs whose cost per byte depends on their shape: 25 M empty sub-messages
# (schemaless, 50 MB a side) against the same with the last one changed, and
# a stream of 20 M empty messages (--delimited) against the same with the last
# one changed.  Each must answer (exit 1) within 1.5x the inputs + 64 MiB.
E_N=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 25165824 * s }')
S_N=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 20000000 * s }')
if [ "$(cat "$D/shapes.count" 2>/dev/null)" != "$E_N $S_N" ]; then
  /usr/bin/python3 - "$D" "$E_N" "$S_N" <<'PY'
import sys
d, e, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
open(f"{d}/e.left.bin", "wb").write(b"\x0a\x00" * e)
open(f"{d}/e.right.bin", "wb").write(b"\x0a\x00" * (e - 1) + b"\x0a\x02\x08\x01")
open(f"{d}/s.left.bin", "wb").write(b"\x00" * s)
open(f"{d}/s.right.bin", "wb").write(b"\x00" * (s - 1) + b"\x02\x08\x01")
PY
  echo "$E_N $S_N" >"$D/shapes.count"
fi
cat "$D"/e.*.bin "$D"/s.*.bin >/dev/null
# shellcheck disable=SC2016
CMD[er]='exec "$PBDIFF" "$L" "$R" >/dev/null'
# shellcheck disable=SC2016
CMD[sr]='exec "$PBDIFF" --delimited "$L" "$R" >/dev/null'
NAME[er]="pbdiff (report)"
NAME[sr]="pbdiff --delimited (report)"
measure e.ch e er e.left.bin e.right.bin 1
measure s.ch s sr s.left.bin s.right.bin 1

# ------------------------------------------------------------------ alike elements
# One graph of 300 000 nodes alike (the same op_type, input and output) whose
# names all differ between the sides: no node is equal to one of the other
# side, so every one is left over by the alignment and paired by similarity,
# among about 64 candidates each.
A_N=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 300000 * s }')
if [ "$(cat "$D/a.count" 2>/dev/null)" != "$A_N" ]; then
  /usr/bin/python3 - "$D" "$A_N" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
def varint(v):
    out = bytearray()
    while v > 0x7F:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))
def ld(tag, b): return bytes([tag]) + varint(len(b)) + b
for side, prefix in (("left", b"n"), ("right", b"m")):
    nodes = b"".join(ld(0x0A, ld(0x0A, b"x") + ld(0x12, b"y") + ld(0x1A, prefix + b"%d" % i) +
                           ld(0x22, b"Relu")) for i in range(n))
    open(f"{d}/a.{side}.bin", "wb").write(ld(0x3A, nodes))
PY
  echo "$A_N" >"$D/a.count"
fi
# shellcheck disable=SC2016
CMD[ar]='exec "$PBDIFF" -s "$DESC" -t "$TYPE" "$L" "$R" >/dev/null'
NAME[ar]="pbdiff (report)"
measure a.ch a ar a.left.bin a.right.bin 1

# ------------------------------------------------------------------ Python
# The pbdiff module (python/, make python) in process: serialized models mapped
# and compared, next to the CLI's figures above; and 100 000
# compares of two equal small messages next to `a == b` and MessageToDict.
PY_N=100000
PYLIB_SRC=$(dirname "$PBDIFF_SRC")/python/lib
declare -A PY=()
if [ -d "$PYLIB_SRC/pbdiff" ]; then
  rm -rf "$D/pylib"
  cp -r "$PYLIB_SRC" "$D/pylib" # a private copy, as the binary's
  while read -r key ns; do PY[$key]=$ns; done < <(PYTHONPATH=$D/pylib /usr/bin/python3 \
    "$here/python_bench.py" --dir "$D" --desc "$DESC" --type "$TYPE" --runs "$RUNS" --small "$PY_N" \
    --pbdiff "$PBDIFF" \
    f.eq:f.onnx:f.reenc.onnx:0 f.ch:f.onnx:f.change.onnx:1 t.eq:t.onnx:t.reenc.onnx:0 \
    t.ch:t.onnx:t.change.onnx:1 ||
    WARNINGS+=("WARNING: bench/python_bench.py failed"))
else
  WARNINGS+=("WARNING: no Python module at $PYLIB_SRC (make python): no Python lines")
fi

# ------------------------------------------------------------------ callgrind
# Instructions, not time, on the 5 MB field-heavy pair: pbdiff -q, the floor
# and MessageDifferencer, once each (bench/ratios.sh).
# shellcheck source=bench/ratios.sh
. "$here/ratios.sh"
for tool in pq fl md; do callgrind "$tool" f10.onnx f10.reenc.onnx; done

# ------------------------------------------------------------------ the report

# cell KEY TOOL: "5.81 s (23x), 812 MiB", relative to pbdiff -q on the same pair;
# the floor's cell the other way round: "0.05 s (pbdiff -q 4.2x), 11 MiB".
cell() {
  local r=${RES[$1:$2]:-} base=${RES[$1:pq]%% *}
  case $r in
    "") printf '–' ;;
    skip) printf 'skipped (>%s s)' "$SKIP_SECS" ;;
    error*) printf '**error (exit %s)**' "${r#error }" ;;
    *)
      awk -v r="$r" -v base="$base" -v self="$( [ "$2" = pq ] || [ "$2" = cq ] && echo 1)" -v bad="${BAD[$1:$2]:-}" \
        -v floor="$([ "$2" = fl ] && echo 1)" 'BEGIN {
        split(r, v, " "); s = v[1] / 1e9; x = base + 0 > 0 ? v[1] / base : 0
        printf (s < 0.1 ? "%.3f s" : "%.2f s"), s
        if (floor && x > 0) printf " (pbdiff -q %.1fx)", 1 / x
        else if (!self && base + 0 > 0) printf (x < 0.1 ? " (%.2fx)" : x < 10 ? " (%.1fx)" : " (%.0fx)"), x
        printf ", %.0f MiB", v[2] / 1024
        if (v[3] != '"$RUNS"') printf " [%d runs]", v[3]
        if (bad) printf " **WRONG VERDICT**"
      }' ;;
  esac
}

table() {
  echo "# pbdiff benchmark"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cores, $VERSION;" \
    "median of $RUNS runs (fewer where marked), seed $SEED$([ "$SCALE" = 1 ] || echo ", scale $SCALE")."
  echo
  echo "Each cell: median wall-clock time (its ratio to \`pbdiff -q\` on the same pair), median peak RSS;"
  echo "the floor's cell gives \`pbdiff -q\`'s time as a ratio to the floor's (bench/floor.c)."
  echo
  local head="| pair | inputs (MB) |" rule="|---|---|" row key model l r expect label
  for tool in $TOOLS; do head="$head ${NAME[$tool]} |"; rule="$rule---|"; done
  echo "$head pbdiff -q MB/s | pbdiff -q peak / inputs |"
  echo "$rule---|---|"
  for p in "${PAIRS[@]}"; do
    read -r key model l r expect label <<<"$p"
    row="| $label ($l vs $r) | $(awk -v a="$(size "$l")" -v b="$(size "$r")" 'BEGIN { printf "%.1f + %.1f", a / 1e6, b / 1e6 }') |"
    for tool in $TOOLS; do row="$row $(cell "$key" "$tool") |"; done
    echo "$row $(awk -v r="${RES[$key:pq]}" -v n=$(($(size "$l") + $(size "$r"))) 'BEGIN {
      if (split(r, v, " ") < 3 || v[1] == "error") { printf "– | –"; exit }
      printf "%.0f | %.1fx", n / 1e6 / (v[1] / 1e9), v[2] * 1024 / n }') |"
  done
  echo
  echo "Scaling, \`pbdiff -q\` on field-heavy equal re-encodings (ratios to f.onnx vs f.reenc.onnx):"
  echo
  echo "| pair | inputs (MB) | time | time ratio | peak RSS | memory ratio | MB/s |"
  echo "|---|---|---|---|---|---|---|"
  for key in f10.eq f.eq f200.eq; do
    local m=${key%.eq}
    awk -v r="${RES[$key:pq]}" -v f="${RES[f.eq:pq]}" -v a="$(size "$m.onnx")" -v b="$(size "$m.reenc.onnx")" \
      -v name="$m.onnx vs $m.reenc.onnx" 'BEGIN {
        if (split(r, v, " ") < 3 || split(f, w, " ") < 3 || v[1] == "error" || w[1] == "error") {
          printf "| %s | %.1f + %.1f | no figure (%s) | | | | |\n", name, a / 1e6, b / 1e6, r; exit }
        s = v[1] / 1e9
        printf "| %s | %.1f + %.1f | %.3f s | %.2fx | %.0f MiB | %.2fx | %.0f |\n",
          name, a / 1e6, b / 1e6, s, v[1] / w[1], v[2] / 1024, v[2] / w[2], (a + b) / 1e6 / s }'
  done
  echo
  echo "Corpora: two streams of $CORPUS_N records each (c.left.bin vs c.right.bin, re-encoded,"
  echo "shuffled, one record in 1000 changed), records paired by \`--record-key id\` (ratios to"
  echo "\`pbdiff -q --record-key\`):"
  echo
  local chead="| pair | inputs (MB) |" crule="|---|---|"
  for tool in $CORPUS_TOOLS; do chead="$chead ${NAME[$tool]} |"; crule="$crule---|"; done
  echo "$chead records/s | peak / inputs |"
  echo "$crule---|---|"
  row="| $CORPUS_N + $CORPUS_N records | $(awk -v a="$(size c.left.bin)" -v b="$(size c.right.bin)" 'BEGIN { printf "%.1f + %.1f", a / 1e6, b / 1e6 }') |"
  RES[c.ch:pq]=${RES[c.ch:cq]}
  for tool in $CORPUS_TOOLS; do row="$row $(cell c.ch "$tool") |"; done
  echo "$row $(awk -v r="${RES[c.ch:cq]}" -v n="$CORPUS_N" -v b=$(($(size c.left.bin) + $(size c.right.bin))) 'BEGIN {
    if (split(r, v, " ") < 3 || v[1] == "error") { printf "– | –"; exit }
    printf "%.0f | %.1fx", 2 * n / (v[1] / 1e9), v[2] * 1024 / b }') |"
  echo
  echo "With noise: RIGHT's header.timestamp and trace_id random in every record (c.noise.bin),"
  echo "both ignored, every record paired by \`--record-key id\` (ratio to \`pbdiff -q --record-key\` above):"
  echo
  RES[c.ci:pq]=${RES[c.ch:cq]}
  echo "| pair | inputs (MB) | ${NAME[ci]} | records/s | peak / inputs |"
  echo "|---|---|---|---|---|"
  echo "| $CORPUS_N + $CORPUS_N records | $(awk -v a="$(size c.left.bin)" -v b="$(size c.noise.bin)" 'BEGIN { printf "%.1f + %.1f", a / 1e6, b / 1e6 }') | $(cell c.ci ci) | $(awk -v r="${RES[c.ci:ci]}" -v n="$CORPUS_N" -v b=$(($(size c.left.bin) + $(size c.noise.bin))) 'BEGIN {
    if (split(r, v, " ") < 3 || v[1] == "error") { printf "– | –"; exit }
    printf "%.0f | %.1fx", 2 * n / (v[1] / 1e9), v[2] * 1024 / b }') |"
  echo
  echo "Patch and merge on the field-heavy model (ratios to \`pbdiff -q f.onnx f.change.onnx\`):"
  echo
  echo "| step | time | peak RSS | ratio to pbdiff -q |"
  echo "|---|---|---|---|"
  for s in "f.ap ap apply of the one-change patch (f.pbpatch) to f.onnx" \
           "f.mg mg merge of f.change.onnx and f.change2.onnx, base f.onnx"; do
    read -r key tool what <<<"$s"
    awk -v r="${RES[$key:$tool]:-}" -v q="${RES[f.ch:pq]:-}" -v name="$what" 'BEGIN {
      if (split(r, v, " ") < 3 || v[1] == "error" || split(q, w, " ") < 3) {
        printf "| %s | no figure (%s) | | |\n", name, r; exit }
      printf "| %s | %.3f s | %.0f MiB | %.1fx |\n", name, v[1] / 1e9, v[2] / 1024, v[1] / w[1] }'
  done
  echo
  echo "HTML report (\`--format html\`, docs/html.md; at most 2000 differences shown by default):"
  echo
  echo "| pair | differences | time | peak RSS | page size |"
  echo "|---|---|---|---|---|"
  for s in "f.html hf $HTML_F_SIZE 1 f.onnx vs f.change.onnx" "h.html hs $HTML_H_SIZE $H_N two streams of $H_N messages, all changed"; do
    read -r key tool bytes ndiff what <<<"$s"
    awk -v r="${RES[$key:$tool]:-}" -v size="$bytes" -v n="$ndiff" -v name="$what" 'BEGIN {
      if (split(r, v, " ") < 3 || v[1] == "error") { printf "| %s | %s | no figure (%s) | | |\n", name, n, r; exit }
      printf "| %s | %s | %.3f s | %.0f MiB | %.0f KiB |\n", name, n, v[1] / 1e9, v[2] / 1024, size / 1024 }'
  done
  echo
  echo "Shapes: inputs whose cost per byte depends on their shape, each against the same with"
  echo "its last message changed; the bound is 1.5x the inputs + 64 MiB:"
  echo
  echo "| pair | inputs (MB) | time | peak RSS | bound | peak / bound |"
  echo "|---|---|---|---|---|---|"
  for s in "e.ch er e $E_N empty sub-messages" "s.ch sr s $S_N empty messages, --delimited"; do
    read -r key tool m n what <<<"$s"
    awk -v r="${RES[$key:$tool]:-}" -v a="$(size "$m.left.bin")" -v b="$(size "$m.right.bin")" \
      -v name="$n $what" 'BEGIN {
        bound = 1.5 * (a + b) + 64 * 1048576
        if (split(r, v, " ") < 3 || v[1] == "error") {
          printf "| %s | %.1f + %.1f | no figure (%s) | | %.0f MiB | |\n", name, a / 1e6, b / 1e6, r, bound / 1048576; exit }
        printf "| %s | %.1f + %.1f | %.3f s | %.0f MiB | %.0f MiB | %.2f |\n", name, a / 1e6, b / 1e6,
          v[1] / 1e9, v[2] / 1024, bound / 1048576, v[2] * 1024 / bound }'
  done
  echo
  echo "Alike elements: one graph of $A_N nodes, alike but for their names, which all differ"
  echo "between the sides (every node a leftover, paired by similarity):"
  echo
  echo "| pair | inputs (MB) | pbdiff (report) | peak RSS | peak / inputs |"
  echo "|---|---|---|---|---|"
  awk -v r="${RES[a.ch:ar]:-}" -v a="$(size a.left.bin)" -v b="$(size a.right.bin)" -v name="$A_N nodes renamed" 'BEGIN {
    if (split(r, v, " ") < 3 || v[1] == "error") { printf "| %s | %.1f + %.1f | no figure (%s) | | |\n", name, a / 1e6, b / 1e6, r; exit }
    printf "| %s | %.1f + %.1f | %.3f s | %.0f MiB | %.1fx |\n", name, a / 1e6, b / 1e6, v[1] / 1e9, v[2] / 1024, v[2] * 1024 / (a + b) }'
  echo
  targets_table
  echo
  one_change_table
  echo
  callgrind_table
  echo
  echo "Python: the pbdiff module (\`make python\`, docs/python.md) in process: both files mapped"
  echo "(\`mmap\`, as pbdiff maps them) and \`pbdiff.compare(a, b, schema=DESC, type=TYPE)\`, next to"
  echo "\`pbdiff -s DESC -t TYPE LEFT RIGHT\` (the report to /dev/null) run in turn with it by"
  echo "bench/python_bench.py, so that both meet the same load (medians of $RUNS runs each):"
  echo
  echo "| pair | pbdiff.compare | pbdiff (report) | ratio |"
  echo "|---|---|---|---|"
  for key in f.eq f.ch t.eq t.ch; do
    local label
    for p in "${PAIRS[@]}"; do [ "${p%% *}" = "$key" ] && label=$(echo "$p" | cut -d' ' -f6-); done
    awk -v py="${PY[$key.py]:-}" -v cli="${PY[$key.cli]:-}" -v name="$label ($key)" 'BEGIN {
      if (py == "" || cli == "") { printf "| %s | no figure | | |\n", name; exit }
      printf "| %s | %.3f s | %.3f s | %.2fx |\n", name, py / 1e9, cli / 1e9, py / cli }'
  done
  echo
  echo "$PY_N compares of two equal small messages (an \`onnx.NodeProto\` with five attributes):"
  echo
  echo "| way | total | per compare |"
  echo "|---|---|---|"
  for key in small.pbdiff small.eq small.dict; do
    awk -v ns="${PY[$key]:-}" -v n="$PY_N" -v key="$key" 'BEGIN {
      name = key == "small.pbdiff" ? "`pbdiff.compare(a, b)`" : key == "small.eq" ? "`a == b`" : "`MessageToDict(a) == MessageToDict(b)`"
      if (ns == "") { printf "| %s | no figure | |\n", name; exit }
      printf "| %s | %.2f s | %.1f µs |\n", name, ns / 1e9, ns / n / 1e3 }'
  done
  echo
  echo "Notes: inputs from \`bench/gen_onnx.py\`: a re-encoding writes every message's fields in"
  echo "reverse order, flips packed and unpacked repeated scalars and splits some submessages in"
  echo "two parts, so it is equal in meaning and different in bytes.  \`cmp\` is timed on the byte"
  echo "copies only (on a re-encoding it stops at the first byte); \`cat\` reads both inputs once."
  echo "The floor (bench/floor.c) walks both inputs by the schema, reads every tag and hashes every"
  echo "leaf with XXH3, and applies no rule: its verdict on a re-encoding is not checked.  The tf"
  echo "models hold their weights in \`float_data\` (packed in tf.onnx, unpacked in tf.reenc.onnx);"
  echo "protoc is not timed on them (tens of millions of floats as text), only on the t models."
  echo "The schema is a descriptor set compiled once (\`-s\`), so protoc's start-up is not counted"
  echo "except in the protoc column, which decodes both inputs to text and diffs the texts."
  echo "[n runs]: the first run took over $SLOW_SECS s, so the median is of fewer runs."
  echo
  if [ ${#WARNINGS[@]} = 0 ]; then
    echo "Verdicts: every tool's exit status was the expected one (0 equal, 1 one change)."
  else
    printf '%s\n' "${WARNINGS[@]}"
  fi
}

table | tee "$here/results.md"
for w in "${WARNINGS[@]}"; do echo "bench: $w" >&2; done
