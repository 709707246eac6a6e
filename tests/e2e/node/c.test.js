// End-to-end: herd's C tests in the real `litmus lsp`, driven as VS Code's extension drives it
// (vscode-languageserver-protocol). A stand-in kernel tree is built in a temporary folder:
// linux/tools/memory-model/ with the kernel's model files and litmus-tests/ with a test whose
// `Result:` header agrees and one edited to disagree, copied at test time from the shared data
// (../shared/conformance/linux/, GPL files never committed). Opened with no setting, each test
// gets its verdict against its header (status under `c`, diagnostic, lens); saving the fixed
// header checks it again. Without the shared data the tests are skipped (SKIPPED).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const shared = path.resolve(root, '../shared/conformance/linux');
const bin = process.env.LITMUS_BIN;
if (!bin) throw new Error('set LITMUS_BIN to the litmus binary (tests/e2e/run-node.sh does)');
const NAME = 'MP+pooncerelease+poacquireonce.litmus';
const present = existsSync(path.join(shared, 'model/linux-kernel.cfg')) && existsSync(path.join(shared, 'tests/catalogue', NAME));
if (!present) console.log('SKIPPED: ../shared/conformance/linux (model and catalogue) not found');

let proc, conn, dir;
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
function waitFor(pred, from = 0, ms = 30000) {
  const seen = notes.slice(from).find(pred);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    waiters.push({ pred, resolve });
    setTimeout(() => reject(new Error('timed out waiting')), ms).unref();
  });
}
const done = (uri, from) =>
  waitFor((n) => n.method === 'litmus/status' && n.params.uri === uri && n.params.state === 'done' && n.params.verdicts.c, from);
const lastDiagnostics = (uri) =>
  notes.filter((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri).at(-1).params.diagnostics;

let agrees, disagrees, text, edited;
before(async () => {
  if (!present) return;
  dir = mkdtempSync(path.join(tmpdir(), 'litmus-c-e2e-'));
  const mm = path.join(dir, 'linux/tools/memory-model');
  mkdirSync(path.join(mm, 'litmus-tests'), { recursive: true });
  for (const f of readdirSync(path.join(shared, 'model'))) copyFileSync(path.join(shared, 'model', f), path.join(mm, f));
  text = readFileSync(path.join(shared, 'tests/catalogue', NAME), 'utf8');
  edited = text.replace('Result: Never', 'Result: Sometimes');
  assert.notEqual(edited, text);
  agrees = path.join(mm, 'litmus-tests', NAME);
  disagrees = path.join(mm, 'litmus-tests/MP-disagrees.litmus');
  writeFileSync(agrees, text);
  writeFileSync(disagrees, edited);
  proc = spawn(bin, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  conn.onNotification((method, params) => record(method, params));
  // no `litmus.modelPath`: the model is found in the kernel tree
  conn.onRequest('workspace/configuration', () => [{}]);
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('workspace/codeLens/refresh', () => null);
  conn.onRequest('workspace/inlayHint/refresh', () => null);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    capabilities: { workspace: { configuration: true, codeLens: { refreshSupport: true } } },
  });
  await conn.sendNotification('initialized', {});
});

after(async () => {
  if (!present) return;
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  const code = await new Promise((r) => proc.on('exit', r));
  assert.equal(code, 0);
  rmSync(dir, { recursive: true, force: true });
});

test('a C test in a kernel tree agrees with its Result: header, with no setting', { skip: !present }, async () => {
  const uri = pathToFileURL(agrees).href;
  const from = notes.length;
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'litmus', version: 1, text } });
  const st = await done(uri, from);
  assert.deepEqual(st.params.verdicts, { c: 'holds' });
  assert.match(st.params.tooltip, /^Never 0 3 under .*linux\/tools\/memory-model\/linux-kernel\.cfg: agrees with its header “Result: Never”/);
  const d = lastDiagnostics(uri);
  assert.equal(d.length, 1);
  assert.equal(d[0].severity, 3);
  assert.match(d[0].message, /agrees with its header “Result: Never”: Never 0 3/);
  const lenses = await conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  assert.match(lenses[0].command.title, /^C Never 0 3 ✓ agrees with its “Result:” header · /);
  const line = text.split('\n').findIndex((l) => l.startsWith('exists'));
  const hover = await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: 2 } });
  assert.match(hover.contents.value, /Observation MP\+pooncerelease\+poacquireonce Never 0 3/);
});

test('a C test that disagrees: a warning on its Result: line; the fixed header saved agrees', { skip: !present }, async () => {
  const uri = pathToFileURL(disagrees).href;
  let from = notes.length;
  await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'litmus', version: 1, text: edited } });
  const st = await done(uri, from);
  assert.deepEqual(st.params.verdicts, { c: 'fails' });
  const d = lastDiagnostics(uri);
  assert.equal(d.length, 1);
  assert.equal(d[0].severity, 2);
  assert.equal(d[0].range.start.line, edited.split('\n').findIndex((l) => l.includes('Result: Sometimes')));
  assert.match(d[0].message, /DISAGREES with its header “Result: Sometimes”: Never 0 3/);
  const lenses = await conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  assert.match(lenses[0].command.title, /✗ DISAGREES/);
  from = notes.length;
  await conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text }] });
  await conn.sendNotification('textDocument/didSave', { textDocument: { uri } });
  const again = await done(uri, from);
  assert.deepEqual(again.params.verdicts, { c: 'holds' });
});
