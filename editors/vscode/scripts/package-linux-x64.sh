#!/usr/bin/env bash
# The platform-specific extension for Linux x64, with the language server inside, so a user
# installs one file and nothing else: editors/vscode/dist/litmus-linux-x64.vsix (`vsce package
# --target linux-x64`). It carries the `litmus` binary (release build, debug info stripped) and
# the Z3 library it loads (`libz3.so.4`) beside it in `server/`; the binary's run path is set to
# `$ORIGIN` (patchelf, in scripts/bundle-z3, which the CLI archive of scripts/release shares), so
# the dynamic linker finds that copy before any system one. What stays with the system is what
# VS Code itself needs on Linux: glibc, libstdc++, libgcc_s. scripts/install runs this.
#
#   editors/vscode/scripts/package-linux-x64.sh [LITMUS_BIN]
#
# Without an argument it builds the binary (`cargo build --release --locked -p litmus`).
# Needs patchelf (apt-get install -y patchelf) and `npm ci` in editors/vscode.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
vscode="$(dirname "$here")"
repo="$(cd "$vscode/../.." && pwd)"
bin="${1:-}"
rm -f "$vscode/dist/litmus-linux-x64.vsix" # never leave an older package behind on failure
if [ -z "$bin" ]; then
  (cd "$repo" && cargo build --release --locked -p litmus)
  bin="$repo/target/release/litmus"
fi
if ! command -v patchelf > /dev/null; then
  echo "package-linux-x64: patchelf is missing (apt-get install -y patchelf)" >&2
  exit 1
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "package-linux-x64: this machine is $(uname -m), the package is for x86_64" >&2
  exit 1
fi

stage="$vscode/server"
rm -rf "$stage"
trap 'rm -rf "$stage"' EXIT # the universal package must not pick the server up
# the binary, stripped, with every libz3 it loads beside it and its run path set to $ORIGIN
"$repo/scripts/bundle-z3" "$bin" "$stage/litmus" "$stage" '$ORIGIN'

cd "$vscode"
npm run -s build
mkdir -p dist
node_modules/.bin/vsce package --no-dependencies --allow-missing-repository --target linux-x64 -o dist/litmus-linux-x64.vsix
