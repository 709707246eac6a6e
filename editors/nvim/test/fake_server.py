#!/usr/bin/env python3
"""A scripted stand-in for `litmus lsp`, speaking the litmus protocol contract over stdio.

It lets the Neovim client be tested on its own: it answers initialize with the contract's
capabilities, asks for the `litmus` configuration section, and on didOpen publishes one
diagnostic per thing it was told (initializationOptions, the configuration answer), sends
`litmus/status` (a stale one too), serves two code lenses and answers `litmus.showSchedule`.
"""
import json
import sys

inp = sys.stdin.buffer
out = sys.stdout.buffer
next_id = 1000
init_options = None
config_answer = None
open_uri = None
version = 0


def send(msg):
    msg["jsonrpc"] = "2.0"
    body = json.dumps(msg).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    out.flush()


def read():
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.lower() == b"content-length":
            length = int(v)
    return json.loads(inp.read(length))


def rng(line, c0, c1):
    return {"start": {"line": line, "character": c0}, "end": {"line": line, "character": c1}}


def publish():
    diags = [
        {"range": rng(0, 0, 6), "severity": 1, "source": "litmus", "message": "init " + json.dumps(init_options, sort_keys=True)},
    ]
    if config_answer is not None:
        diags.append({"range": rng(0, 0, 6), "severity": 2, "source": "litmus", "message": "config " + json.dumps(config_answer, sort_keys=True)})
    send({"method": "textDocument/publishDiagnostics", "params": {"uri": open_uri, "version": version, "diagnostics": diags}})


def status(ver, state, verdicts):
    send({"method": "litmus/status", "params": {"uri": open_uri, "version": ver, "state": state, "verdicts": verdicts}})


while True:
    msg = read()
    if msg is None:
        break
    method = msg.get("method")
    if method == "initialize":
        init_options = msg["params"].get("initializationOptions")
        send({"id": msg["id"], "result": {
            "capabilities": {
                "textDocumentSync": 1,
                "codeLensProvider": {"resolveProvider": False},
                "hoverProvider": True,
                "executeCommandProvider": {"commands": ["litmus.verify", "litmus.verifyUnbounded", "litmus.showSchedule"]},
            },
            "serverInfo": {"name": "fake-litmus"},
        }})
    elif method == "initialized":
        send({"id": next_id, "method": "workspace/configuration", "params": {"items": [{"section": "litmus"}]}})
    elif method is None and msg.get("id") == next_id:
        config_answer = msg.get("result")
        if open_uri:
            publish()
    elif method == "textDocument/didOpen":
        open_uri = msg["params"]["textDocument"]["uri"]
        version = msg["params"]["textDocument"]["version"]
        status(version, "running", {"sc": "running", "tso": "running"})
        status(version, "done", {"sc": "holds", "tso": "fails", "pso": "fails"})
        status(version - 1, "done", {"sc": "fails"})  # stale: must be ignored
        publish()
    elif method == "textDocument/hover":
        send({"id": msg["id"], "result": {"contents": {"kind": "markdown",
              "value": "**TSO ✗** assertion violation\n\n[Show schedule](command:litmus.showSchedule)"}}})
    elif method == "textDocument/codeLens":
        uri = msg["params"]["textDocument"]["uri"]
        send({"id": msg["id"], "result": [
            {"range": rng(2, 0, 6), "command": {"title": "SC ✓ · TSO ✗ · PSO ✗", "command": ""}},
            {"range": rng(2, 0, 6), "command": {"title": "Show schedule", "command": "litmus.showSchedule", "arguments": [uri, 2, 0]}},
        ]})
    elif method == "workspace/executeCommand":
        cmd = msg["params"]["command"]
        args = msg["params"].get("arguments") or []
        if cmd == "litmus.showSchedule":
            uri = args[0]
            line = args[1] if len(args) > 1 else 0
            send({"id": msg["id"], "result": {
                "title": "asked at line %d" % line,
                "model": "tso",
                "kind": "assert",
                "steps": [
                    {"label": "P0: store x = 1 (buffered)", "location": {"uri": uri, "range": rng(1, 2, 8)}},
                    {"label": "P0: load y = 0", "location": {"uri": uri, "range": rng(2, 2, 9)}},
                    {"label": "P0: assert fails", "location": {"uri": uri, "range": rng(3, 4, 10)}},
                ],
            }})
        elif cmd == "litmus.verifyUnbounded":
            version += 1
            status(version, "done", {"sc": "holds", "tso": "holds", "pso": "holds"})
            send({"id": msg["id"], "result": None})
        elif cmd == "litmus.verify":
            version += 1
            status(version, "done", {"sc": "holds", "tso": "holds", "pso": "incomplete"})
            send({"id": msg["id"], "result": None})
        else:
            send({"id": msg["id"], "error": {"code": -32602, "message": "unknown command " + cmd}})
    elif method == "shutdown":
        send({"id": msg["id"], "result": None})
    elif method == "exit":
        break
    elif "id" in msg and method is not None:
        send({"id": msg["id"], "result": None})
