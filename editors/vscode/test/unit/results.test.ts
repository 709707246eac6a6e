// `litmus/results`: the notification's validation, the history per document (newest first,
// capped, late notifications dropped), the results table, and the Testing results a finished
// check gives a document's items (the gutter after a fixing save).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  completenessText,
  duration,
  itemDescription,
  ModelRow,
  parseResults,
  resultsTable,
  ResultsHistory,
  ResultsParams,
  rowCells,
  rowDescription,
  runSummary,
  serverItemResults,
} from '../../src/logic/results';
import { CliFile, CliModelReport } from '../../src/logic/testResults';
import { fileTree } from '../../src/logic/testTree';

const TEXT = ['litmus T', 'shared x;', 'thread P0 { x = 1; r0 = x; assert(r0 == 1); }', 'thread P1 { r1 = x; assert(r1 == 0); }', 'forall (x == 1)', ''].join('\n');

const row = (model: string, mark: string, extra: Partial<ModelRow> = {}): ModelRow => ({
  model,
  label: model.toUpperCase(),
  verdict: mark === '✗' ? 'fails' : mark === '✓' ? 'holds' : 'incomplete',
  mark,
  title: `${model.toUpperCase()} ${mark}`,
  engine: 'dpor',
  executions: 1234,
  states: 3,
  time_ms: 2.25,
  completeness: 'complete',
  ...extra,
});

const rep = (extra: Partial<CliModelReport> = {}): CliModelReport => ({
  complete: true,
  condition: { kind: 'forall', holds: true, positive: 2, negative: 0 },
  violations: [],
  warnings: [],
  stats: { time_ms: 1.5 },
  ...extra,
});

const failure = {
  kind: 'assert' as const,
  message: 'assertion failed: r1 == 0',
  line: 4,
  col: 21,
  end_line: 4,
  end_col: 36,
  schedule: [{ thread: 'P1', line: 4, col: 13, end_line: 4, end_col: 20, action: 'load', loc: 'x', value: 1, buffered: false, label: 'P1 reads x = 1 from memory' }],
};

const params = (version: number, file: CliFile | null, models: ModelRow[] = [row('sc', '✓')], state = 'done'): ResultsParams => ({
  uri: 'file:///w/t.litmus',
  version,
  state,
  models,
  file,
});

test('parses the notification and drops what is malformed', () => {
  const p = parseResults({
    uri: 'file:///w/t.litmus',
    version: 3,
    state: 'done',
    models: [
      { model: 'tso', label: 'TSO', verdict: 'fails', mark: '✗', title: 'TSO ✗', engine: 'mcr', executions: 7, states: 2, time_ms: 0.5, completeness: 'complete' },
      { verdict: 'holds' },
      'junk',
    ],
    file: { path: 'x', diagnostics: [], results: {} },
  });
  assert.ok(p);
  assert.equal(p.models.length, 1);
  assert.deepEqual(rowCells(p.models[0]), ['TSO', '✗', 'mcr', '7', '2', '0.5 ms', 'complete']);
  assert.ok(p.file);
  assert.equal(parseResults({ uri: 'u', version: 'x', state: 'done', models: [] }), undefined);
  assert.equal(parseResults(null), undefined);
  assert.equal(parseResults({ uri: 'u', version: 1, state: 'done', models: [], file: { results: {} } })?.file, null);
});

test('the history keeps runs per document, newest first, capped, and drops a late older version', () => {
  const h = new ResultsHistory(3);
  for (let v = 1; v <= 5; v++) assert.ok(h.record('a', params(v, null, [row('sc', v % 2 ? '✗' : '✓')]), v * 1000));
  assert.deepEqual(
    h.runs('a').map((r) => r.version),
    [5, 4, 3],
  );
  assert.equal(h.record('a', params(2, null), 9000), false, 'a check of version 2 ending after version 5');
  assert.equal(h.runs('a').length, 3);
  assert.ok(h.record('a', params(5, null, [], 'cancelled'), 9500), 'the same version checked again');
  assert.equal(h.runs('a')[0].state, 'cancelled');
  assert.equal(h.runs('a').length, 3);
  // the same answer again (from the server's cache): one run, with the latest time
  assert.ok(h.record('a', params(5, null, [], 'cancelled'), 9900));
  assert.deepEqual(
    h.runs('a').map((r) => [r.version, r.at]),
    [
      [5, 9900],
      [5, 5000],
      [4, 4000],
    ],
  );
  assert.deepEqual(h.runs('b'), []);
  h.delete('a');
  assert.deepEqual(h.runs('a'), []);
});

test('every column of a row: verdict, engine, executions, states, time, completeness and why', () => {
  const stopped = row('pso', '✗', { completeness: 'stopped', why: 'exploration stopped early (timeout 1s)', undecided: true, implied_by: 'sc' });
  assert.deepEqual(rowCells(stopped), ['PSO', '✗ (implied by SC) (condition not decided)', 'dpor', '1,234', '3', '2.3 ms', 'stopped: exploration stopped early (timeout 1s)']);
  assert.equal(completenessText(row('sc', '✓', { completeness: 'bounded' })), 'complete up to the loop bound');
  assert.equal(rowDescription(row('sc', '✓')), 'dpor · 1,234 executions · 3 states · 2.3 ms · complete');
  // an axiomatic model: herd's answer beside the mark, no time
  const ax = row('aarch64', '✓', { label: 'aarch64.cat (litmus)', exists: 'No', engine: 'axiomatic', time_ms: undefined, states: 2, executions: 3 });
  assert.deepEqual(rowCells(ax), ['aarch64.cat (litmus)', '✓ No', 'axiomatic', '3', '2', '–', 'complete']);
  assert.equal(duration(1500), '1.50 s');
  assert.equal(duration(42.4), '42 ms');
});

test('the table: the last run, then the previous ones, columns aligned', () => {
  const h = new ResultsHistory();
  h.record('a', params(1, null, [row('sc', '✓'), row('tso', '✗')]), new Date(2026, 0, 1, 2, 41, 7).getTime());
  h.record('a', params(2, null, [row('sc', '✓'), row('tso', '✓', { executions: 9 })]), new Date(2026, 0, 1, 2, 42, 0).getTime());
  const lines = resultsTable(h.runs('a'));
  assert.equal(lines[0], 'Last run 02:42:00 · version 2 · SC ✓ · TSO ✓');
  assert.match(lines[1], /^ {2}model +verdict +engine +executions +states +time +completeness$/);
  assert.match(lines[3], /^ {2}TSO +✓ +dpor +9 +3 +2\.3 ms +complete$/);
  assert.ok(lines.includes('Previous runs'));
  assert.ok(lines.includes('- 02:41:07 · version 1 · SC ✓ · TSO ✗'));
  // every row of one run has its cells at the same columns
  const header = lines[1];
  assert.equal(lines[2].indexOf('✓'), header.indexOf('verdict'));
  assert.equal(runSummary({ at: 0, version: 1, state: 'cancelled', models: [row('sc', '?')] }), 'SC ? (cancelled)');
});

test('a fixing save: the Testing items get the new run, the failed assertion passes', () => {
  const tree = fileTree('u', 't.litmus', TEXT, ['sc', 'tso']);
  const failed = serverItemResults(tree, params(1, { path: 'u', diagnostics: [], results: { sc: rep(), tso: rep({ violations: [failure] }) } }));
  const byId = (rs: typeof failed) => Object.fromEntries((rs ?? []).map((r) => [r.id.replace(/^u/, ''), r.outcome]));
  const before = byId(failed);
  const assertId = Object.keys(before).find((k) => k.endsWith('/tso') && before[k] === 'failed');
  assert.ok(assertId, JSON.stringify(before));
  const fixed = byId(serverItemResults(tree, params(2, { path: 'u', diagnostics: [], results: { sc: rep(), tso: rep() } })));
  assert.equal(fixed[assertId], 'passed');
  assert.ok(Object.values(fixed).every((o) => o === 'passed'), JSON.stringify(fixed));
  assert.equal(serverItemResults(tree, params(3, null)), undefined);
});

test('a stopped check: found violations fail, the undecided condition says so, models not checked get nothing', () => {
  const tree = fileTree('u', 't.litmus', TEXT, ['sc', 'tso', 'pso']);
  const stopped = rep({
    complete: false,
    condition: { kind: 'forall', holds: true, positive: 1, negative: 0, decided: false } as CliModelReport['condition'],
    violations: [failure],
    warnings: [{ message: 'exploration stopped early (timeout 1s)' }],
  });
  // the server checked SC and TSO only (litmus.models): PSO's items are left as they were
  const rs = serverItemResults(tree, params(1, { path: 'u', diagnostics: [], results: { sc: rep(), tso: stopped } })) ?? [];
  const cond = tree.children.find((c) => c.kind === 'condition')!;
  const tsoCond = rs.find((r) => r.id === `${cond.id}/tso`)!;
  assert.equal(tsoCond.outcome, 'errored');
  assert.match(tsoCond.messages[0].text, /^TSO: the condition is not decided: the check stopped before a state settled it \(exploration stopped early \(timeout 1s\)\)/);
  assert.ok(rs.some((r) => r.id.endsWith('/tso') && r.outcome === 'failed'));
  assert.ok(!rs.some((r) => r.id.endsWith('/pso')));
  assert.equal(itemDescription(row('tso', '✗', { completeness: 'stopped', undecided: true }), 'condition'), 'not decided');
  assert.equal(itemDescription(row('tso', '✗', { completeness: 'stopped' }), 'assert'), 'stopped');
  assert.equal(itemDescription(row('sc', '✓'), 'assert'), undefined);
});

test("an axiomatic model's Ok and No: the condition passes, its answer beside the item", () => {
  const text = ['AArch64 MP', '{ 0:X1=x; }', ' P0 ;', ' MOV W0,#1 ;', 'exists (x=1)', ''].join('\n');
  const tree = fileTree('u', 'mp.litmus', text, ['sc']);
  assert.deepEqual(tree.models, ['aarch64']);
  const ax = { complete: true, condition: { kind: 'exists', holds: false, positive: 0, negative: 1 }, violations: [], warnings: [], stats: {} };
  const rs = serverItemResults(tree, params(1, { path: '', diagnostics: [], results: { aarch64: ax as CliModelReport } })) ?? [];
  assert.ok(rs.length > 0 && rs.every((r) => r.outcome === 'passed'), JSON.stringify(rs));
  assert.match(rs.find((r) => r.detail)?.detail ?? '', /^aarch64\.cat: exists No/);
  assert.equal(itemDescription(row('aarch64', '✓', { exists: 'No' }), 'condition'), 'No');
  assert.equal(itemDescription(row('aarch64', '✓', { exists: 'Ok' }), 'condition'), 'Ok');
});

test('a file that does not parse: the file errors, its items are skipped', () => {
  const tree = fileTree('u', 't.litmus', TEXT, ['sc']);
  const rs = serverItemResults(tree, params(1, { path: 'u', diagnostics: [{ severity: 'error', message: 'expected `;`', line: 3, col: 5, end_line: 3, end_col: 6 }], results: {} })) ?? [];
  assert.equal(rs.find((r) => r.id === 'u')?.outcome, 'errored');
  assert.ok(rs.filter((r) => r.id !== 'u').every((r) => r.outcome === 'skipped'));
});
