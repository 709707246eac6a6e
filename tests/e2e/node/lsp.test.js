// End-to-end: the real `litmus lsp` binary driven by vscode-languageserver-protocol, the client
// library VS Code's extension uses. Run by ../run-node.sh (which sets LITMUS_BIN).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bin = process.env.LITMUS_BIN;
if (!bin) throw new Error('set LITMUS_BIN to the litmus binary (tests/e2e/run-node.sh does)');

const MP = `litmus MP "message passing"

shared data = 0, flag = 0;

thread P0 {
  data = 1;
  flag = 1;
}

thread P1 {
  r0 = flag;
  if (r0 == 1) {
    r1 = data;
    assert(r1 == 1); // é😀
  }
}
`;

let proc, conn;
const notes = [];
const waiters = [];

function record(method, params) {
  notes.push({ method, params });
  for (const w of [...waiters]) {
    if (w.pred({ method, params })) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve({ method, params });
    }
  }
}

// Waits for a notification (already received after index `from`, or arriving later).
function waitFor(pred, from = 0, ms = 30000) {
  const seen = notes.slice(from).find(pred);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const w = { pred, resolve };
    waiters.push(w);
    setTimeout(() => reject(new Error('timed out waiting')), ms).unref();
  });
}

const status = (uri, state, from) =>
  waitFor((n) => n.method === 'litmus/status' && n.params.uri === uri && n.params.state === state, from);

before(async () => {
  proc = spawn(bin, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  conn.onNotification((method, params) => record(method, params));
  conn.onRequest('workspace/configuration', () => [{ models: ['sc', 'tso', 'pso'], loopBound: 8 }]);
  conn.onRequest('window/workDoneProgress/create', (p) => {
    record('window/workDoneProgress/create', p);
    return null;
  });
  conn.onRequest('workspace/codeLens/refresh', () => null);
  conn.onRequest('workspace/inlayHint/refresh', () => null);
  conn.listen();
  const init = await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    capabilities: {
      window: { workDoneProgress: true },
      workspace: { configuration: true, codeLens: { refreshSupport: true } },
      textDocument: { publishDiagnostics: { relatedInformation: true } },
    },
    initializationOptions: { litmus: { timeout: 20 } },
  });
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  assert.deepEqual(init.capabilities.executeCommandProvider.commands, ['litmus.verify', 'litmus.showSchedule', 'litmus.cancel', 'litmus.verifyUnbounded', 'litmus.writeModel']);
  await conn.sendNotification('initialized', {});
});

after(async () => {
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  const code = await new Promise((r) => proc.on('exit', r));
  assert.equal(code, 0);
});

test('assertion failure: diagnostic naming the models, schedule as related information', async () => {
  const uri = 'file:///e2e/mp.litmus';
  const from = notes.length;
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'litmus', version: 1, text: MP } });
  const st = await status(uri, 'done', from);
  assert.deepEqual(st.params.verdicts, { sc: 'holds', tso: 'holds', pso: 'fails' });
  const diags = notes.filter((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri).at(-1).params;
  const err = diags.diagnostics.find((d) => d.severity === 1);
  assert.match(err.message, /^assertion fails under PSO; holds under SC and TSO/);
  const lines = MP.split('\n');
  const line = lines.findIndex((l) => l.includes('assert('));
  assert.deepEqual(err.range.start, { line, character: lines[line].indexOf('assert(') });
  assert.ok(err.relatedInformation.some((r) => r.message.includes("(P0's store data = 1 still buffered)")));
  // The server asked for a work done progress token for the exploration.
  assert.ok(notes.slice(from).some((n) => n.method === 'window/workDoneProgress/create'));
});

test('hover, lenses, showSchedule and inlay hints on examples/sb.litmus', async () => {
  const file = path.join(root, 'examples/sb.litmus');
  const text = readFileSync(file, 'utf8');
  const uri = pathToFileURL(file).href;
  const from = notes.length;
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'litmus', version: 1, text } });
  await status(uri, 'done', from);
  const lines = text.split('\n');
  const condLine = lines.findIndex((l) => l.startsWith('exists'));
  const hover = await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: condLine, character: 2 } });
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /TSO Ok: `exists` holds · Observation SB Sometimes 1 3/);
  // The short hover links to the trace view instead of a schedule table.
  assert.match(hover.contents.value, /\[Trace under TSO\]\(command:litmus\.showTrace/);
  assert.doesNotMatch(hover.contents.value, /\| # \|/);
  const lenses = await conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  const titles = lenses.map((l) => l.command.title);
  // An unobserved `exists` is herd's No: an answer, not a failure.
  assert.ok(titles.join(' | ').includes('SC No | TSO Ok | PSO Ok'), titles.join(' | '));
  const show = lenses.find((l) => l.command.command === 'litmus.showSchedule' && l.range.start.line === condLine);
  const sched = await conn.sendRequest('workspace/executeCommand', { command: show.command.command, arguments: show.command.arguments });
  assert.equal(sched.kind, 'witness');
  assert.equal(sched.model, 'tso');
  assert.ok(sched.steps.length >= 4);
  for (const s of sched.steps) assert.equal(s.location.uri, uri);
  const hints = await conn.sendRequest('textDocument/inlayHint', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } },
  });
  const r0 = lines.findIndex((l) => l.includes('r0 = y'));
  assert.ok(hints.some((h) => h.position.line === r0 && h.label === ' ⇐ y=0 (TSO, PSO)'), JSON.stringify(hints));
  const syms = await conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri } });
  assert.equal(syms[0].name, 'SB');
  // The trace view's request: PSO's witness, a row per step with buffers and memory after it.
  const trace = await conn.sendRequest('litmus/trace', { uri, model: 'pso' });
  assert.equal(trace.model, 'pso');
  assert.equal(trace.kind, 'witness');
  assert.equal(trace.rows.length, trace.rows.filter((r) => Array.isArray(r.after.buffers) && r.after.buffers.length === 2).length);
  assert.ok(trace.rows.some((r) => r.after.buffers.some((b) => b.length > 0)), 'a store waits in a buffer at some step');
  // Every step's text is the server's: a sentence (the schedule's) and its thread column's words.
  assert.deepEqual(trace.rows.map((r) => r.label), (await conn.sendRequest('workspace/executeCommand', { command: 'litmus.showSchedule', arguments: [uri, 0, 0, 'pso'] })).steps.map((s) => s.label));
  assert.ok(trace.rows.every((r) => typeof r.cell === 'string' && r.cell !== ''), JSON.stringify(trace.rows.map((r) => r.cell)));
  assert.ok(trace.rows.some((r) => r.action === 'store' && r.cell === `${r.loc} = ${r.value} → buffer`), 'a buffered store says so');
  assert.deepEqual(trace.end.state.filter(([k]) => k.includes(':')), [['P0:r0', 0], ['P1:r1', 0]]);
  assert.deepEqual(trace.graph.edges.filter((e) => e.kind === 'fr').length, 2);
});

test('incremental edits give syntax diagnostics for their version', async () => {
  const uri = 'file:///e2e/edit.litmus';
  const from = notes.length;
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'litmus', version: 1, text: MP } });
  await status(uri, 'done', from);
  const lines = MP.split('\n');
  const l = lines.findIndex((x) => x.includes('flag = 1;'));
  const c = lines[l].indexOf('1;');
  await conn.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: { line: l, character: c }, end: { line: l, character: c + 1 } }, text: '' }],
  });
  const d = await waitFor((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri && n.params.version === 2, from);
  const errs = d.params.diagnostics.filter((x) => x.severity === 1);
  assert.ok(errs.length >= 1);
  assert.equal(errs[0].range.start.line, l);
  await conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
});

test('fence quick fix on examples/dekker.litmus: applied and saved, the TSO violation is gone', async () => {
  const file = path.join(root, 'examples/dekker.litmus');
  const text = readFileSync(file, 'utf8');
  const uri = 'file:///e2e/dekker.litmus';
  let from = notes.length;
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'litmus', version: 1, text } });
  const st = await status(uri, 'done', from);
  assert.equal(st.params.verdicts.tso, 'fails');
  const diags = notes.filter((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri).at(-1).params;
  const err = diags.diagnostics.find((d) => d.severity === 1);
  const actions = await conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: err.range,
    context: { diagnostics: [err] },
  });
  const fix = actions.find((a) => a.title === 'Insert 2 fences so that TSO behaves as SC');
  assert.ok(fix, JSON.stringify(actions.map((a) => a.title)));
  assert.equal(fix.kind, 'quickfix');
  assert.equal(fix.isPreferred, true);
  const hover = await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: err.range.start });
  assert.match(hover.contents.value, /\*\*TSO\*\*: P\d's store `flag\d = 1;` \(line \d+\) is delayed past its load of `flag\d`/);
  // Apply the edits as the editor does (from the end, so earlier positions stay valid).
  const lines = text.split('\n');
  const edits = [...fix.edit.changes[uri]].sort((a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character);
  for (const e of edits) {
    const { line, character } = e.range.start;
    lines[line] = lines[line].slice(0, character) + e.newText + lines[line].slice(character);
  }
  const fixed = lines.join('\n');
  assert.equal((fixed.match(/fence;/g) || []).length, 2);
  from = notes.length;
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: fixed }] });
  await conn.sendNotification('textDocument/didSave', { textDocument: { uri } });
  const st2 = await status(uri, 'done', from);
  assert.equal(st2.params.verdicts.sc, 'holds');
  assert.equal(st2.params.verdicts.tso, 'holds');
  const d2 = notes.filter((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri && n.params.version === 2).at(-1).params;
  assert.ok(!d2.diagnostics.some((d) => d.severity === 1 && /fails under TSO/.test(d.message)), JSON.stringify(d2.diagnostics));
  await conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
});
