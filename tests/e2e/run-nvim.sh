#!/usr/bin/env bash
# End-to-end tests of `litmus lsp` with headless Neovim (0.7+: `apt-get install -y neovim`).
# Uses $LITMUS_BIN if set, else builds the binary with cargo (honouring CARGO_TARGET_DIR).
# Prints `N passed, N failed` and exits non-zero on failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if ! command -v nvim >/dev/null; then
  echo "nvim not found (apt-get install -y neovim)"
  echo "0 passed, 1 failed"
  exit 1
fi
if [[ -z "${LITMUS_BIN:-}" ]]; then
  (cd "$root" && cargo build -q -p litmus --bin litmus)
  LITMUS_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/litmus"
fi
LITMUS_BIN="$(realpath "$LITMUS_BIN")"
export LITMUS_BIN LITMUS_ROOT="$root"
out="$(mktemp)"
status=0
timeout 300 nvim --headless -u NONE -c "luafile $here/nvim/test.lua" >"$out" 2>&1 || status=$?
# Headless nvim prints with carriage returns; normalise to lines.
tr '\r' '\n' <"$out" | sed '/^$/d'
echo
rm -f "$out"
exit "$status"
