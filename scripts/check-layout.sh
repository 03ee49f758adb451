#!/bin/sh
# The layout's rules, checked on every `make test` (docs/architecture.md):
#  - the stages of lib/ include one another one way only, in this order
#    (a folder includes only folders before it);
#  - nothing in lib/ or include/ includes cli/, and the public headers
#    (include/pbdiff/) include no internal header of lib/;
#  - no source file is over 850 lines.
set -eu
cd "$(dirname "$0")/.."
order="core wire schema canon tree format write diff explain inputs corpus patch ."
rank() { i=0; for s in $order; do [ "$s" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
fail=0
for f in $(find lib include -name '*.[ch]' | sort); do
  rel=${f#include/pbdiff/}; rel=${rel#lib/}
  from=$(dirname "$rel")
  for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
    case $inc in
      pbdiff/*) to=$(dirname "${inc#pbdiff/}") ;;
      */*) to=$(dirname "$inc")
           case $f in include/*) echo "$f: a public header includes the internal $inc"; fail=1 ;; esac ;;
      *) echo "$f: includes $inc, which is not under a stage (cli's headers are not for lib)"; fail=1; continue ;;
    esac
    [ "$to" = "$from" ] && continue
    if [ "$(rank "$to")" -ge "$(rank "$from")" ]; then
      echo "$f: $from includes $to, against the order $order"
      fail=1
    fi
  done
done
for f in $(find lib include cli tests fuzz bench -name '*.[ch]' -o -name '*.cc' | sort); do
  n=$(wc -l < "$f")
  if [ "$n" -gt 850 ]; then echo "$f: $n lines (split it: at most about 800)"; fail=1; fi
done
[ $fail -eq 0 ] && echo "layout: includes run one way; public headers stand alone; files within size"
exit $fail
