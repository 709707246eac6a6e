#!/usr/bin/env bash
# Every check of the VS Code extension: type check, unit tests of the extension's own logic
# (node --test), TextMate grammar tests for both dialects, the esbuild bundle and the offline
# .vsix package. Run `npm ci` first. Exits non-zero when anything fails; the last line is
# `vscode: N passed, N failed, N skipped`.
set -u
cd "$(dirname "$0")/.."
BIN=node_modules/.bin
if [ ! -x "$BIN/tsc" ]; then
  echo "editors/vscode: node_modules missing, run 'npm ci' in editors/vscode first" >&2
  echo "vscode: 0 passed, 1 failed"
  exit 1
fi
passed=0
failed=0
skipped=0
ok() { passed=$((passed + $1)); }
ko() { failed=$((failed + $1)); }
step() { echo; echo "== $*"; }
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

step "type check (tsc --noEmit)"
if "$BIN/tsc" --noEmit -p .; then ok 1; else ko 1; fi

step "unit tests (node --test)"
rm -rf out
if "$BIN/tsc" -p . --outDir out; then
  node --test --test-reporter=spec out/test/unit/ 2>&1 | tee "$log/unit.txt"
  # the spec reporter closes with "ℹ pass N" / "ℹ fail N"
  p=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log/unit.txt" | tail -1)
  f=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log/unit.txt" | tail -1)
  sk=$(sed -n 's/^ℹ skipped \([0-9]*\)$/\1/p' "$log/unit.txt" | tail -1)
  if [ -z "$p" ] || [ -z "$f" ] || [ "$p" -eq 0 ]; then ko 1; else ok "$p"; ko "$f"; skipped=$((skipped + ${sk:-0})); fi
else
  ko 1
fi

step "TextMate grammar tests (vscode-tmgrammar-test)"
"$BIN/vscode-tmgrammar-test" 'test/grammar/*.tmtest' 2>&1 | tee "$log/grammar.txt"
gp=$(grep -c 'run successfuly' "$log/grammar.txt")
gf=$(grep -c ' failed$' "$log/grammar.txt")
if [ "$gp" -eq 0 ]; then ko 1; else ok "$gp"; ko "$gf"; fi

step "the grammar runner rejects a wrong expectation"
# Guards against a vacuous grammar suite: a deliberately wrong scope must fail.
printf '// SYNTAX TEST "source.litmus" "must fail"\nlitmus T\n// <------ comment.line.double-slash.litmus\n' > "$log/wrong.tmtest"
if "$BIN/vscode-tmgrammar-test" "$log/wrong.tmtest" > /dev/null 2>&1; then
  echo "FAIL: a wrong grammar expectation passed"; ko 1
else
  echo "ok"; ok 1
fi

step "bundle (esbuild) and package (vsce package --no-dependencies)"
rm -f dist/litmus.vsix
if npm run -s package > "$log/package.txt" 2>&1 && [ -f dist/litmus.vsix ]; then
  missing=0
  # the archive's file names, one a line (python3's zipfile where unzip is not installed)
  if command -v unzip > /dev/null; then
    unzip -Z1 dist/litmus.vsix > "$log/vsix.txt"
  else
    python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' dist/litmus.vsix > "$log/vsix.txt"
  fi
  # and every file package.json's contributions name (language configurations, grammars,
  # snippets): cat-language-configuration.json was once left out by .vscodeignore
  contributed="$(node -e '
    const c = require("./package.json").contributes;
    const files = [...(c.languages ?? []).map((l) => l.configuration), ...(c.grammars ?? []).map((g) => g.path), ...(c.snippets ?? []).map((s) => s.path)];
    console.log(files.filter(Boolean).map((f) => "extension/" + f.replace(/^\.\//, "")).join(" "))')"
  for f in extension/package.json extension/dist/extension.js $contributed; do
    if ! grep -qx "$f" "$log/vsix.txt"; then echo "FAIL: $f missing from the .vsix"; missing=1; fi
  done
  if grep -q 'node_modules/\|/src/\|\.map$' "$log/vsix.txt"; then
    echo "FAIL: sources, maps or node_modules leaked into the .vsix"; missing=1
  fi
  if [ "$missing" -eq 0 ]; then echo "ok: dist/litmus.vsix ($(stat -c %s dist/litmus.vsix) bytes)"; ok 1; else ko 1; fi
else
  cat "$log/package.txt"; ko 1
fi

echo
echo "vscode: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
