# shellcheck shell=bash
# Sourced by bench/run.sh (bash): instruction counts under callgrind, and the
# tables of ratios that issue 20's targets are stated in, all from the figures
# of the same run (run.sh's RES, CMD, NAME, D, size and WARNINGS).

declare -A IR=()

# callgrind TOOL LEFT RIGHT: IR[TOOL] = the instructions (callgrind's Ir, every
# thread) TOOL's command executes on the pair, run once: unlike time, the count
# does not move with the machine's load, so it compares between commits.
callgrind() {
  local tool=$1 out=$D/callgrind.$1.out rc
  rm -f "$out"
  set +e
  # shellcheck disable=SC2016 # CG_OUT, L and R expand in the sh that runs it
  CG_OUT=$out L=$D/$2 R=$D/$3 sh -c \
    "exec valgrind --tool=callgrind --callgrind-out-file=\"\$CG_OUT\" ${CMD[$tool]#exec }" \
    2>"$D/callgrind.log"
  rc=$?
  set -e
  if [ "$rc" -gt 1 ]; then
    IR[$tool]=
    WARNINGS+=("WARNING: ${NAME[$tool]} on $2 vs $3 under callgrind failed (exit $rc, $D/callgrind.log)")
    echo "bench: ${WARNINGS[-1]}" >&2
    return
  fi
  # "summary: N" (or "totals: N"), the first event being Ir
  IR[$tool]=$(sed -n 's/^\(summary\|totals\): *\([0-9][0-9]*\).*/\2/p' "$out" | head -n 1)
  rm -f "$out"
  echo "bench: $2 vs $3 under callgrind: ${NAME[$tool]}: ${IR[$tool]} instructions" >&2
}

# field KEY TOOL N: the Nth figure of RES[KEY:TOOL] (1 ns, 2 KiB), or "" when
# there is none (not run, skipped, failed).
field() {
  local r=${RES[$1:$2]:-}
  case $r in "" | skip | error*) echo "" ;; *) echo "$r" | cut -d' ' -f"$3" ;; esac
}

# div A B: A / B, or "" when either is missing or B is 0.
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b + 0 != 0) printf "%.6g", a / b }'; }

# peak KIB BYTES: a peak RSS in KiB as a ratio to BYTES, or "".
peak() { awk -v k="$1" -v n="$2" 'BEGIN { if (k != "" && n + 0 > 0) printf "%.6g", k * 1024 / n }'; }

# mbps BYTES NS: MB/s, or "".
mbps() { awk -v n="$1" -v t="$2" 'BEGIN { if (t != "" && t + 0 > 0) printf "%.6g", n / 1e6 / (t / 1e9) }'; }

inputs() { echo $(($(size "$1") + $(size "$2"))); }

# target_row WHAT VALUE FORMAT OP BOUND [DETAIL]: one row of the targets'
# table; OP is ≤ or ≥.
target_row() {
  awk -v what="$1" -v v="$2" -v fmt="$3" -v op="$4" -v b="$5" -v detail="${6:-}" 'BEGIN {
    if (v == "") { printf "| %s | no figure | %s %s | – |\n", what, op, b; exit }
    met = op == "≤" ? v + 0 <= b + 0 : v + 0 >= b + 0
    printf "| %s | " fmt "%s | %s %s | %s |\n", what, v, detail == "" ? "" : " (" detail ")", op, b,
      met ? "yes" : "**no**" }'
}

# throughput KEY: pbdiff -q's MB/s on the pair of KEY.
throughput() {
  local p l r
  for p in "${PAIRS[@]}"; do
    [ "${p%% *}" = "$1" ] || continue
    read -r _ _ l r _ <<<"$p"
    mbps "$(inputs "$l" "$r")" "$(field "$1" pq 1)"
  done
}

# Time and peak RSS of the one-change pairs as ratios to their equal pair's.
one_change_table() {
  echo "One change against equal: \`pbdiff -q\` on each one-change pair, next to the same"
  echo "model's equal re-encoding (the inputs are the same size within 1%), and the same"
  echo "time ratio for \`pbdiff\` with its report:"
  echo
  echo "| pair | time | ÷ equal pair's time | peak RSS | ÷ inputs | ÷ equal pair's peak | report: ÷ equal pair's time |"
  echo "|---|---|---|---|---|---|---|"
  local m
  for m in f t tf; do
    awk -v ch="${RES[$m.ch:pq]:-}" -v eq="${RES[$m.eq:pq]:-}" -v n="$(inputs "$m.onnx" "$m.change.onnx")" \
      -v rep="$(div "$(field "$m.ch" pr 1)" "$(field "$m.eq" pr 1)")" -v name="$m.onnx vs $m.change.onnx" 'BEGIN {
        if (split(ch, c, " ") < 3 || split(eq, e, " ") < 3 || c[1] == "error" || e[1] == "error") {
          printf "| %s | no figure | | | | | |\n", name; exit }
        printf "| %s | %.3f s | %.2fx | %.0f MiB | %.2fx | %.2fx | %s |\n", name, c[1] / 1e9, c[1] / e[1],
          c[2] / 1024, c[2] * 1024 / n, c[2] / e[2], rep == "" ? "–" : sprintf("%.2fx", rep) }'
  done
}

# Instructions on the 5 MB field-heavy pair: pbdiff -q, the floor, MessageDifferencer.
callgrind_table() {
  local n tool
  n=$(inputs f10.onnx f10.reenc.onnx)
  echo "Instructions (\`valgrind --tool=callgrind\`, one run each, Ir of every thread, the"
  echo "descriptor set's load included) on f10.onnx vs f10.reenc.onnx, $(awk -v n="$n" 'BEGIN { printf "%.1f", n / 1e6 }') MB of input:"
  echo
  echo "| program | instructions | per input byte | ÷ pbdiff -q's |"
  echo "|---|---|---|---|"
  for tool in pq fl md; do
    awk -v ir="${IR[$tool]:-}" -v q="${IR[pq]:-}" -v n="$n" -v name="${NAME[$tool]}" 'BEGIN {
      if (ir == "") { printf "| %s | no figure | | |\n", name; exit }
      printf "| %s | %.0f | %.1f | %s |\n", name, ir, ir / n, q == "" ? "–" : sprintf("%.2fx", ir / q) }'
  done
}

# Issue 20's targets, each as its ratio in this run.
targets_table() {
  local m key e_bound e_verdict
  echo "Targets (issue 20), each a ratio of two figures of this run:"
  echo
  echo "| what | measured | target | met |"
  echo "|---|---|---|---|"
  target_row "field-heavy equal: MessageDifferencer's time ÷ pbdiff -q's" \
    "$(div "$(field f.eq md 1)" "$(field f.eq pq 1)")" "%.1fx" "≥" 30x
  target_row "field-heavy equal: pbdiff -q's time ÷ the floor's" \
    "$(div "$(field f.eq pq 1)" "$(field f.eq fl 1)")" "%.2fx" "≤" 2x
  target_row "field-heavy equal (f10.onnx vs f10.reenc.onnx, callgrind): pbdiff -q's instructions per input byte" \
    "$(div "${IR[pq]:-}" "$(inputs f10.onnx f10.reenc.onnx)")" "%.1f" "≤" 35
  for m in f t tf; do
    target_row "$m.onnx vs $m.change.onnx: time ÷ the equal pair's" \
      "$(div "$(field "$m.ch" pq 1)" "$(field "$m.eq" pq 1)")" "%.2fx" "≤" 1.2x
    target_row "$m.onnx vs $m.change.onnx: peak RSS ÷ the inputs" \
      "$(peak "$(field "$m.ch" pq 2)" "$(inputs "$m.onnx" "$m.change.onnx")")" "%.2fx" "≤" 1.5x
  done
  e_bound=$(awk -v n="$(inputs e.left.bin e.right.bin)" 'BEGIN { printf "%.0f", 1.5 * n + 64 * 1048576 }')
  e_verdict="exit 1"
  [ -n "${BAD[e.ch:er]:-}" ] && e_verdict="**wrong exit status**"
  target_row "$E_N empty sub-messages, one changed: peak RSS ÷ (1.5x inputs + 64 MiB)" \
    "$(peak "$(field e.ch er 2)" "$e_bound")" "%.2fx" "≤" 1x "$e_verdict"
  for key in tf t; do
    local q c what
    q=$(throughput "$key.eq")
    c=$(mbps "$(inputs "$key.onnx" "$key.copy.onnx")" "$(field "$key.cp" cmp 1)")
    what="tensor-heavy, weights in raw_data (t.onnx vs t.reenc.onnx)"
    [ "$key" = tf ] && what="tensor-heavy, float_data packed vs unpacked (tf.onnx vs tf.reenc.onnx)"
    target_row "$what: pbdiff -q's throughput ÷ cmp's on two copies" "$(div "$q" "$c")" "%.2fx" "≥" \
      "$([ "$key" = tf ] && echo 0.7x || echo 1x)" \
      "$(awk -v q="$q" -v c="$c" 'BEGIN { if (q != "" && c != "") printf "%.0f against %.0f MB/s", q, c }')"
  done
  for m in f t tf; do
    target_row "identical bytes ($m.onnx vs $m.copy.onnx): pbdiff -q's time ÷ cmp's" \
      "$(div "$(field "$m.cp" pq 1)" "$(field "$m.cp" cmp 1)")" "%.2fx" "≤" 2x
  done
  target_row "corpora ($CORPUS_N + $CORPUS_N records, --record-key): records per second, pbdiff -q" \
    "$(awk -v t="$(field c.ch cq 1)" -v n="$CORPUS_N" 'BEGIN { if (t != "") printf "%.0f", 2 * n / (t / 1e9) }')" \
    "%.0f" "≥" 2000000
  local tool
  for tool in cq cr; do
    target_row "corpora: peak RSS ÷ the inputs, ${NAME[$tool]}" \
      "$(peak "$(field c.ch "$tool" 2)" "$(inputs c.left.bin c.right.bin)")" "%.2fx" "≤" 1.5x
  done
  target_row "2x the input (f200 against f, equal re-encodings): time ratio" \
    "$(div "$(field f200.eq pq 1)" "$(field f.eq pq 1)")" "%.2fx" "≤" 2.1x
  target_row "2x the input (f200 against f, equal re-encodings): memory ratio" \
    "$(div "$(field f200.eq pq 2)" "$(field f.eq pq 2)")" "%.2fx" "≤" 2.1x
}
