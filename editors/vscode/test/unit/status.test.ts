import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { formatStatus, parseStatus, StatusParams, StatusStore, verdictSummary } from '../../src/logic/status';

const done = (verdicts: StatusParams['verdicts'], version = 1): StatusParams => ({
  uri: 'file:///t/sb.litmus',
  version,
  state: 'done',
  verdicts,
});

test('the summary uses the code lens wording, in SC, TSO, PSO order', () => {
  assert.equal(verdictSummary({ pso: 'fails', sc: 'holds', tso: 'fails' }), 'SC ✓ · TSO ✗ · PSO ✗');
  assert.equal(verdictSummary({ tso: 'incomplete', sc: 'running' }), 'SC … · TSO ?');
  assert.equal(verdictSummary({}), '');
});

test('a finished check with a failing model is an error', () => {
  const v = formatStatus(done({ sc: 'holds', tso: 'fails', pso: 'fails' }));
  assert.equal(v.text, '$(beaker) SC ✓ · TSO ✗ · PSO ✗');
  assert.equal(v.severity, 'error');
  assert.match(v.tooltip, /^SC: nothing fails .*\nTSO: fails: .*\nPSO: fails: /);
});

test('an incomplete model without failures is a warning', () => {
  const v = formatStatus(done({ sc: 'holds', tso: 'incomplete' }));
  assert.equal(v.severity, 'warning');
  assert.match(v.tooltip, /TSO: incomplete: /);
});

test('all holding is neither error nor warning', () => {
  assert.equal(formatStatus(done({ sc: 'holds', tso: 'holds', pso: 'holds' })).severity, 'none');
});

test('running and cancelled states are shown', () => {
  const running = formatStatus({ ...done({ sc: 'holds', tso: 'running' }), state: 'running' });
  assert.equal(running.text, '$(sync~spin) SC ✓ · TSO …');
  assert.match(running.tooltip, /running/);
  const cancelled = formatStatus({ ...done({}), state: 'cancelled' });
  assert.equal(cancelled.text, '$(circle-slash) litmus (cancelled)');
  assert.match(cancelled.tooltip, /cancelled/);
});

test('parseStatus accepts the contract shape and drops unknown verdicts', () => {
  const s = parseStatus({
    uri: 'file:///a.litmus',
    version: 4,
    state: 'done',
    verdicts: { sc: 'holds', tso: 'maybe', armv9: 'fails', pso: 'fails' },
  });
  assert.deepEqual(s, { uri: 'file:///a.litmus', version: 4, state: 'done', verdicts: { sc: 'holds', pso: 'fails' } });
});

test('parseStatus rejects malformed notifications', () => {
  assert.equal(parseStatus(null), undefined);
  assert.equal(parseStatus({ uri: 'file:///a', version: '1', state: 'done', verdicts: {} }), undefined);
  assert.equal(parseStatus({ uri: 'file:///a', version: 1, state: 'finished', verdicts: {} }), undefined);
  assert.deepEqual(parseStatus({ uri: 'file:///a', version: 1, state: 'running' })?.verdicts, {});
});

test('the store keeps the newest version and drops stale ones', () => {
  const store = new StatusStore();
  assert.equal(store.update('k', done({ sc: 'running' }, 2)), true);
  assert.equal(store.update('k', done({ sc: 'fails' }, 1)), false, 'older version is stale');
  assert.deepEqual(store.get('k')?.verdicts, { sc: 'running' });
  assert.equal(store.update('k', done({ sc: 'holds' }, 2)), true, 'same version replaces (running → done)');
  assert.deepEqual(store.get('k')?.verdicts, { sc: 'holds' });
  assert.equal(store.get('other'), undefined);
  store.delete('k');
  assert.equal(store.get('k'), undefined);
  assert.equal(store.update('k', done({}, 1)), true, 'after close any version is accepted');
});

test('the server tooltip, implied verdicts and exists answers are kept; an unparsable file says why', () => {
  const s = parseStatus({
    uri: 'file:///a.litmus',
    version: 2,
    state: 'done',
    verdicts: { sc: 'holds', tso: 'holds' },
    implied: { tso: 'pso', armv9: 'sc' },
    exists: { sc: 'no', tso: 'ok', pso: 'maybe' },
    tooltip: 'SC: holds\nTSO: holds',
  });
  assert.deepEqual(s?.implied, { tso: 'pso' });
  assert.deepEqual(s?.exists, { sc: 'no', tso: 'ok' });
  const v = formatStatus(s!);
  assert.equal(v.tooltip, 'SC: holds\nTSO: holds', 'the server says what the verdicts mean');
  const older = formatStatus(done({ sc: 'fails', tso: 'fails' }));
  assert.doesNotMatch(older.tooltip, /implied/);
  const implied = formatStatus({ ...done({ sc: 'fails', tso: 'fails' }), implied: { tso: 'sc' } });
  assert.match(implied.tooltip, /TSO: fails: .*\(implied by SC\)/);
  const bad = formatStatus(parseStatus({ uri: 'file:///a', version: 3, state: 'done', verdicts: {}, problem: 'line 3: expected `;`' })!);
  assert.equal(bad.text, '$(error) litmus: cannot verify');
  assert.match(bad.tooltip, /line 3: expected `;`/);
  assert.equal(bad.severity, 'error');
});

test('a queued check says so', () => {
  const q = formatStatus({ ...done({}), state: 'queued' });
  assert.equal(q.text, '$(clock) litmus (queued)');
  assert.match(q.tooltip, /maxJobs/);
});

test('a check stopped at a limit says which in the status bar, and keeps its failure', () => {
  const raw = { uri: 'file:///a', version: 1, state: 'done', verdicts: { sc: 'fails' }, limit: 'memory' };
  const mem = formatStatus(parseStatus(raw)!);
  assert.equal(mem.text, '$(beaker) SC ✗ (memory limit)');
  assert.equal(mem.severity, 'error');
  const time = formatStatus(parseStatus({ ...raw, verdicts: { sc: 'incomplete' }, limit: 'time' })!);
  assert.equal(time.text, '$(beaker) SC ? (time limit)');
  assert.equal(time.severity, 'warning');
  // Anything else is not a limit.
  assert.equal(parseStatus({ ...raw, limit: 'disk' })!.limit, undefined);
});

test('an AArch64 or RISC-V test shows its own model: its mark and herd\'s Ok/No, never SC/TSO/PSO', () => {
  const raw = {
    uri: 'file:///t/mp.litmus',
    version: 1,
    state: 'done',
    verdicts: { aarch64: 'holds' },
    exists: { aarch64: 'no' },
    tooltip: "No: the condition's state is forbidden under aarch64.cat (litmus)",
  };
  const s = parseStatus(raw)!;
  assert.deepEqual(s.verdicts, { aarch64: 'holds' });
  const v = formatStatus(s);
  assert.equal(v.text, '$(beaker) aarch64.cat ✓ No');
  assert.equal(v.severity, 'none');
  assert.ok(v.tooltip.includes('aarch64.cat'), v.tooltip);
  const f = formatStatus(parseStatus({ ...raw, verdicts: { riscv: 'fails' }, exists: undefined })!);
  assert.equal(f.text, '$(beaker) riscv.cat ✗');
  assert.equal(f.severity, 'error');
});

test("an AArch64, RISC-V, POWER or ARMv7 test's status opens its execution graph, which it has, not the trace view", () => {
  for (const m of ['aarch64', 'riscv', 'ppc', 'arm'] as const) {
    assert.equal(formatStatus(done({ [m]: 'fails' })).opens, 'axiomatic', m);
    assert.equal(formatStatus(done({ [m]: 'holds' })).opens, 'axiomatic', m);
  }
  assert.equal(formatStatus(done({ sc: 'holds', tso: 'fails' })).opens, 'trace');
});
