#!/usr/bin/env bash
# Shows that the server in editors/vscode/dist/litmus-linux-x64.vsix (or the .vsix given) runs
# with only what the .vsix carries:
#
# 1. the archive holds server/litmus (executable bit set, which VS Code keeps when it unpacks)
#    and the Z3 library beside it;
# 2. `ldd` resolves libz3 to the bundled copy;
# 3. with the system's libz3 hidden (a private mount namespace binds /dev/null over it, and over
#    ~/.cargo and ~/.rustup too), an empty LD_LIBRARY_PATH and PATH=/usr/bin:/bin, the server
#    answers `initialize` over stdio and `litmus check --json` checks examples/dekker.litmus
#    (TSO violation found). A copy of the same binary without its run path must fail to start
#    there, so the hiding is shown to work.
#
# Where no mount namespace can be made (an unprivileged container), step 3 runs without hiding
# the system copy and instead asks the dynamic linker which file it loaded (LD_DEBUG=libs): it
# must be the bundled one. Prints `ok`/`FAIL` lines and `N passed, N failed` last.
#
#   editors/vscode/scripts/test-linux-x64-package.sh [VSIX]
set -u
here="$(cd "$(dirname "$0")" && pwd)"
vscode="$(dirname "$here")"
repo="$(cd "$vscode/../.." && pwd)"
vsix="${1:-$vscode/dist/litmus-linux-x64.vsix}"
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
ko() { echo "FAIL $*"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

if [ ! -f "$vsix" ]; then ko "$vsix exists (run scripts/package-linux-x64.sh)"; finish; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 1. unpack as VS Code does: files with the modes recorded in the archive
if python3 - "$vsix" "$tmp/x" << 'PY'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
for need in ("extension/server/litmus", "extension/package.json", "extension/dist/extension.js"):
    if need not in names:
        sys.exit(f"{need} missing from the archive")
if not any(n.startswith("extension/server/libz3") for n in names):
    sys.exit("no libz3 in extension/server/")
manifest = z.read("extension.vsixmanifest").decode()
if 'TargetPlatform="linux-x64"' not in manifest:
    sys.exit("the manifest does not say TargetPlatform linux-x64")
for info in z.infolist():
    z.extract(info, sys.argv[2])
    mode = (info.external_attr >> 16) & 0o777
    if mode:
        os.chmod(os.path.join(sys.argv[2], info.filename), mode)
if not os.access(os.path.join(sys.argv[2], "extension/server/litmus"), os.X_OK):
    sys.exit("extension/server/litmus is not executable in the archive")
PY
then ok "the .vsix targets linux-x64 and carries an executable server/litmus and libz3"; else ko "archive contents"; finish; fi
server="$tmp/x/extension/server"
bin="$server/litmus"

# 2. the dynamic linker resolves libz3 to the bundled copy
z3line=$(ldd "$bin" | grep libz3 || true)
if [ -n "$z3line" ] && echo "$z3line" | grep -q "=> $server/libz3"; then
  ok "ldd resolves libz3 to the bundled copy ($z3line)"
else
  ko "ldd resolves libz3 to the bundled copy, got: ${z3line:-nothing}"
fi
if ldd "$bin" | grep -q 'not found'; then ko "every library found: $(ldd "$bin" | grep 'not found')"; fi

# A copy without the run path: must NOT start once the system copy is hidden.
cp "$bin" "$tmp/norpath-litmus"
patchelf --remove-rpath "$tmp/norpath-litmus" 2> /dev/null || ko "patchelf --remove-rpath (control copy)"

# 3. the checks, run in a clean environment (the script below gets $1 = server dir, $2 = repo)
cat > "$tmp/inside.sh" << 'SH'
set -u
server=$1; repo=$2; tmp=$3; hidden=$4
fails=0
say() { echo "$*"; }
if [ "$hidden" = 1 ]; then
  if "$tmp/norpath-litmus" --version > /dev/null 2>&1; then
    say "FAIL control: a copy without \$ORIGIN starts, so the system libz3 is not hidden"; fails=$((fails + 1))
  else
    say "ok   control: without the bundled library the binary cannot start (system libz3 hidden)"
  fi
else
  loaded=$(LD_DEBUG=libs "$server/litmus" --version 2>&1 | sed -n 's/.*calling init: \(.*libz3[^ ]*\).*/\1/p' | head -1)
  case "$loaded" in
    "$server"/*) say "ok   the dynamic linker loads the bundled $loaded" ;;
    *) say "FAIL the dynamic linker loads ${loaded:-no libz3}, not the bundled copy"; fails=$((fails + 1)) ;;
  esac
fi
out=$("$server/litmus" check --json --model sc,tso "$repo/examples/dekker.litmus" 2> "$tmp/check.err"); rc=$?
if [ $rc -eq 1 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["files"][0]["results"]
assert d["sc"]["violations"] == [] and d["sc"]["complete"], "SC holds"
assert [v["kind"] for v in d["tso"]["violations"]][:1] == ["assert"], "TSO fails"
assert d["tso"]["violations"][0]["schedule"], "with a schedule"
'; then
  say "ok   litmus check --json examples/dekker.litmus: SC holds, TSO assertion violation with its schedule"
else
  say "FAIL litmus check (exit $rc): $(head -c 400 "$tmp/check.err")"; fails=$((fails + 1))
fi
if python3 - "$server/litmus" << 'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()
def recv():
    n = 0
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("the server closed stdout")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    return json.loads(p.stdout.read(n))
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
while True:
    m = recv()
    if m.get("id") == 1:
        break
caps = m["result"]["capabilities"]
assert caps.get("textDocumentSync") is not None and caps.get("codeLensProvider") is not None, caps
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
while recv().get("id") != 2:
    pass
send({"jsonrpc": "2.0", "method": "exit"})
sys.exit(p.wait(timeout=10))
PY
then say "ok   litmus lsp answers initialize (capabilities with sync and code lenses) and shuts down"
else say "FAIL litmus lsp initialize"; fails=$((fails + 1)); fi
exit $fails
SH

# Where the system copies are: every libz3 the linker cache or the usual directories know.
mapfile -t syslibs < <( { ldconfig -p 2> /dev/null | awk '/libz3/ { print $NF }'; ls /usr/lib/x86_64-linux-gnu/libz3.so* /usr/lib/libz3.so* /usr/local/lib/libz3.so* 2> /dev/null; } | sort -u)
hide=""
for f in "${syslibs[@]}"; do hide+="mount --bind /dev/null '$f' && "; done
for d in "${HOME:-/root}/.cargo" "${HOME:-/root}/.rustup"; do
  [ -d "$d" ] && hide+="mount -t tmpfs none '$d' && "
done
clean_env=(env -i PATH=/usr/bin:/bin HOME="$tmp" LD_LIBRARY_PATH=)
script="${hide}exec ${clean_env[*]} bash '$tmp/inside.sh' '$server' '$repo' '$tmp'"
ns=""
if [ ${#syslibs[@]} -eq 0 ]; then
  ns="none needed"
elif unshare --mount --propagation private true 2> /dev/null; then
  ns="unshare --mount --propagation private"
elif unshare --user --map-root-user --mount --propagation private true 2> /dev/null; then
  ns="unshare --user --map-root-user --mount --propagation private"
fi
if [ "$ns" = "none needed" ]; then
  echo "(no system libz3 on this machine)"
  out=$("${clean_env[@]}" bash "$tmp/inside.sh" "$server" "$repo" "$tmp" 0)
elif [ -n "$ns" ]; then
  echo "(system libz3 hidden in a mount namespace: ${syslibs[*]})"
  out=$($ns bash -c "${script} 1")
else
  echo "(no mount namespace available: the system libz3 stays, the loaded copy is checked instead)"
  out=$("${clean_env[@]}" bash "$tmp/inside.sh" "$server" "$repo" "$tmp" 0)
fi
echo "$out"
passed=$((passed + $(printf '%s\n' "$out" | grep -c '^ok ')))
failed=$((failed + $(printf '%s\n' "$out" | grep -c '^FAIL')))
[ -n "$out" ] || ko "the checks inside the clean environment ran"
finish
