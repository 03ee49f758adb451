#!/bin/sh
# Installs the Debian packages pbdiff needs, when they are missing.
# Usage: scripts/deps.sh            (quiet when everything is there)
set -eu
PKGS="build-essential clang pkg-config libxxhash-dev zlib1g-dev libssl-dev check protobuf-compiler libprotobuf-dev libonnx-dev libonnx-testdata git time python3 python3-distributed python3-dev python3-setuptools python3-protobuf python3-pytest python3-onnx chromium valgrind"

missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

echo "pbdiff: installing missing Debian packages:$missing" >&2
if [ "$(id -u)" = 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
else
  echo "pbdiff: cannot install packages without root rights; please run:" >&2
  echo "    sudo apt-get update && sudo apt-get install -y$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y --no-install-recommends $missing >/dev/null; then
  $SUDO apt-get update >/dev/null
  $SUDO apt-get install -y --no-install-recommends $missing >/dev/null
fi
