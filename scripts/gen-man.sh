#!/bin/sh
# Writes the man page pbdiff(1) to standard output from the built binary's
# --help texts (the option table, cli/options.c), so that the page and
# --help say the same.  docs/pbdiff.1 is this script's output, kept in the
# repository; tests/cli/check_install.c checks that it is up to date:
#   scripts/gen-man.sh build/pbdiff > docs/pbdiff.1
set -eu
P=${1:-build/pbdiff}
version=$("$P" --version | sed -n 's/^pbdiff \([^ ]*\).*/\1/p')
# troff: backslashes written as \e (a leading dot or quote is made safe below)
esc() { sed -e 's/\\/\\e/g'; }
# an --help text as man sections: option rows as .TP paragraphs
body() {
  "$P" $1 --help | sed 1d | esc | awk '
    function safe(s) { return (s ~ /^[.\047]/) ? "\\&" s : s }
    /^ +pbdiff / { next }  # the usage lines: the SYNOPSIS has them
    /^  *-/ && match($0, /^ +(-[^ ].*[^ ])  +/) {
      head = substr($0, 1, RLENGTH); sub(/^ +/, "", head); sub(/ +$/, "", head)
      rest = substr($0, RLENGTH + 1)
      print ".TP"; print "\\fB" head "\\fR"; print safe(rest); next }
    /^  *-/ { h = $0; sub(/^ +/, "", h); print ".TP"; print "\\fB" h "\\fR"; next }
    /^[A-Z][^:]*:$/ || /^[A-Z].*\):$/ { print ".SS " $0; next }
    /^$/ { print ".PP"; next }
    { sub(/^ +/, ""); print safe($0) }'
}
cat <<HEAD
.\\" pbdiff(1), made by scripts/gen-man.sh from pbdiff --help; do not edit.
.TH PBDIFF 1 "" "pbdiff $version" "User Commands"
.SH NAME
pbdiff \\- semantic diff and equality check for protobuf payloads
.SH SYNOPSIS
.B pbdiff
[\\fIOPTIONS\\fR] \\fILEFT RIGHT\\fR
.br
.B pbdiff \\-r
[\\fIOPTIONS\\fR] \\fIDIR1 DIR2\\fR
.br
.B pbdiff cat
[\\fIOPTIONS\\fR] \\fIFILE\\fR
.br
.B pbdiff hash
[\\fIOPTIONS\\fR] \\fIFILE\\fR...
.br
.B pbdiff noise
[\\fIOPTIONS\\fR] \\fIRUN1 RUN2\\fR
.br
.B pbdiff apply
[\\fIOPTIONS\\fR] \\fIPATCH FILE\\fR
.br
.B pbdiff merge
[\\fIOPTIONS\\fR] \\fIBASE OURS THEIRS\\fR
.SH DESCRIPTION
HEAD
body ""
echo ".SH CAT"
body cat
echo ".SH HASH"
body hash
echo ".SH NOISE"
body noise
echo ".SH APPLY"
body apply
echo ".SH MERGE"
body merge
cat <<TAIL
.SH FILES
.TP
.B .pbdiff
per-path schemas and options, found from the current directory upwards
(git-config syntax; see the README).
.SH SEE ALSO
.BR git (1),
.BR protoc (1);
the documents under docs/ in pbdiff's source: semantics.md, json-format.md,
git.md, ci.md, hash.md, explain.md, library.md, scale.md, patch.md.
TAIL
