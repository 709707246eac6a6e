#!/usr/bin/env bash
# End-to-end tests of `litmus lsp` with a Node client (vscode-languageserver-protocol).
# Uses $LITMUS_BIN if set, else builds the binary with cargo (honouring CARGO_TARGET_DIR).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [[ -z "${LITMUS_BIN:-}" ]]; then
  (cd "$root" && cargo build -q -p litmus --bin litmus)
  LITMUS_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/litmus"
fi
LITMUS_BIN="$(realpath "$LITMUS_BIN")"
export LITMUS_BIN
cd "$here/node"
if [[ ! -d node_modules/vscode-languageserver-protocol ]]; then
  npm ci --no-audit --no-fund --silent
fi
exec node --test
