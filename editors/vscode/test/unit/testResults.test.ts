// From `litmus check --json` to test explorer results. The mapping rules on small documents,
// then the real CLI (when a binary is available: LITMUS_BIN, else target/release or
// target/debug) run once over every example, as "Verify all files" runs it, with the results
// the examples' header comments promise.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  checkArgs,
  CliFile,
  CliModelReport,
  conditionAnswer,
  fenceHint,
  fileResults,
  ItemResult,
  parseCliJson,
  reportsByPath,
  stepLabel,
  violationText,
} from '../../src/logic/testResults';
import { fileTree, MODELS } from '../../src/logic/testTree';

const root = path.resolve(__dirname, '../../..');
const repo = path.resolve(root, '../..');

const TEXT = [
  'litmus T',
  'shared x;',
  'thread P0 { x = 1; r0 = x; assert(r0 == 1); }',
  'thread P1 { r1 = x; assert(r1 == 0); }',
  'exists (x == 1)',
  '',
].join('\n');

const ok = (extra: Partial<CliModelReport> = {}): CliModelReport => ({
  complete: true,
  condition: { kind: 'exists', holds: true, positive: 2, negative: 0 },
  violations: [],
  warnings: [],
  stats: { time_ms: 1.5 },
  ...extra,
});

const failing = {
  kind: 'assert' as const,
  message: 'assertion failed: r1 == 0',
  line: 4,
  col: 21,
  end_line: 4,
  end_col: 36,
  schedule: [
    { thread: 'P0', line: 3, col: 13, end_line: 3, end_col: 19, action: 'store', loc: 'x', value: 1, buffered: true, label: 'P0 stores x = 1 into its store buffer' },
    { thread: 'P0', line: 3, col: 13, end_line: 3, end_col: 19, action: 'flush', loc: 'x', value: 1, buffered: false, label: "P0's buffered store x = 1 reaches memory" },
    { thread: 'P1', line: 4, col: 13, end_line: 4, end_col: 20, action: 'load', loc: 'x', value: 1, buffered: false, label: 'P1 reads x = 1 from memory' },
    { thread: 'P1', line: 4, col: 21, end_line: 4, end_col: 36, action: 'assert', loc: null, value: null, buffered: false, label: 'P1 checks `assert(r1 == 0)`' },
  ],
};

const byId = (rs: ItemResult[]) => Object.fromEntries(rs.map((r) => [r.id.replace(/^u/, ''), r.outcome]));

test('a violation fails the model child of its assertion; the others pass', () => {
  const tree = fileTree('u', 'T', TEXT, ['sc', 'tso']);
  const file: CliFile = { path: 'T', diagnostics: [], results: { sc: ok(), tso: ok({ violations: [failing] }) } };
  const rs = fileResults(tree, ['sc', 'tso'], file, TEXT);
  // the same failure under SC too: no fence can fix it, so no hint
  const both = fileResults(tree, ['sc', 'tso'], { ...file, results: { sc: ok({ violations: [failing] }), tso: ok({ violations: [failing] }) } }, TEXT);
  assert.ok(both.filter((r) => r.outcome === 'failed').every((r) => !r.messages[0].text.includes('fences can fix')));
  // TSO alone (SC not run): no hint either, nothing says SC passes
  assert.ok(!fileResults(tree, ['tso'], file, TEXT).some((r) => r.messages.some((m) => m.text.includes('fences can fix'))));
  assert.deepEqual(byId(rs), {
    '#assert-1/sc': 'passed',
    '#assert-2/sc': 'passed',
    '#condition/sc': 'passed',
    '#assert-1/tso': 'passed',
    '#assert-2/tso': 'failed',
    '#condition/tso': 'passed',
  });
  const fail = rs.find((r) => r.outcome === 'failed')!;
  assert.deepEqual(fail.messages[0].range, { start: { line: 3, character: 20 }, end: { line: 3, character: 35 } });
  assert.equal(
    fail.messages[0].text,
    [
      'TSO assertion violation: assertion failed: r1 == 0',
      'Schedule (4 steps):',
      '  1. P0 stores x = 1 into its store buffer  (3:13)',
      "  2. P0's buffered store x = 1 reaches memory  (3:13)",
      '  3. P1 reads x = 1 from memory  (4:13)',
      '  4. P1 checks `assert(r1 == 0)`  (4:21)',
      fenceHint('tso'),
    ].join('\n'),
  );
  // 1.5 ms for the model, shared by its three items (two assertions and the condition)
  assert.equal(fail.durationMs, 0.5);
  const tsoTime = rs.filter((r) => r.id.endsWith('/tso')).reduce((a, r) => a + (r.durationMs ?? 0), 0);
  assert.equal(tsoTime, 1.5, 'the durations add up to the model time');
  // (the last line: SC passed, so the failure under TSO is a missing fence, and the message
  // points to the quick fix)
  // the condition's answer goes to the output, an exists is a question, not a test that fails
  assert.equal(rs.find((r) => r.id === 'u#condition/sc')!.detail, 'SC: exists Ok: some execution reaches the state (it holds in 2 of 2 final states)');
});

test('an incomplete model is failed when a stronger model fails the check, passed when a weaker one passes it', () => {
  const tree = fileTree('u', 'T', TEXT, ['sc', 'tso', 'pso']);
  const incomplete = ok({ complete: false, condition: null });
  const file: CliFile = { path: 'T', diagnostics: [], results: { sc: ok({ violations: [failing] }), tso: incomplete, pso: ok() } };
  const rs = fileResults(tree, ['sc', 'tso', 'pso'], file, TEXT);
  const at = (id: string) => rs.find((r) => r.id === `u${id}`)!;
  assert.equal(at('#assert-2/tso').outcome, 'failed');
  assert.match(at('#assert-2/tso').messages[0].text, /^TSO: fails, implied by SC \(every SC execution is a TSO execution\)/);
  // assert-1 holds under PSO (complete), so under TSO too
  assert.equal(at('#assert-1/tso').outcome, 'passed');
  assert.match(at('#assert-1/tso').detail!, /implied by PSO/);
  // the condition is not implied (an exists is answered per model)
  assert.equal(at('#condition/tso').outcome, 'errored');
});

test('only the models asked for are reported', () => {
  const tree = fileTree('u', 'T', TEXT, [...MODELS]);
  const rs = fileResults(tree, ['tso'], { path: 'T', diagnostics: [], results: { tso: ok() } }, TEXT);
  assert.deepEqual(Object.keys(byId(rs)), ['#assert-1/tso', '#assert-2/tso', '#condition/tso']);
});

test('a forall that fails fails the condition; a runtime error fails the file', () => {
  const text = TEXT.replace('exists', 'forall');
  const tree = fileTree('u', 'T', text, ['sc']);
  const cond = { ...failing, kind: 'condition' as const, message: 'forall (x == 1) does not hold', line: 5, col: 1, end_line: 5, end_col: 16, schedule: [] };
  const div = { ...failing, kind: 'error' as const, message: 'division by zero', schedule: [] };
  const rs = fileResults(tree, ['sc'], { path: 'T', diagnostics: [], results: { sc: ok({ violations: [cond, div] }) } }, text);
  // the runtime error lies inside assertion 2's range, but only assert violations belong to an assertion
  assert.deepEqual(byId(rs), { '#assert-1/sc': 'passed', '#assert-2/sc': 'passed', '#condition/sc': 'failed', '': 'failed' });
  assert.match(rs.find((r) => r.id === 'u')!.messages[0].text, /^SC runtime error: division by zero/);
});

test('incomplete without a violation is errored as not verified; --first is not incomplete', () => {
  const tree = fileTree('u', 'T', TEXT, ['tso']);
  const partial = ok({ complete: false, warnings: [{ message: 'timeout after 10 s' }] });
  const rs = fileResults(tree, ['tso'], { path: 'T', diagnostics: [], results: { tso: partial } }, TEXT);
  assert.ok(rs.every((r) => r.outcome === 'errored'));
  assert.equal(rs[0].messages[0].text, 'TSO: not verified, the exploration was incomplete (timeout after 10 s)');
  const first = ok({ complete: false, stopped: 'first-violation', violations: [failing] });
  assert.deepEqual(byId(fileResults(tree, ['tso'], { path: 'T', diagnostics: [], results: { tso: first } }, TEXT)), {
    '#assert-1/tso': 'passed',
    '#assert-2/tso': 'failed',
    '#condition/tso': 'passed',
  });
});

test('a file with an error errors, its checks are skipped; no report at all errors with the reason', () => {
  const tree = fileTree('u', 'T', TEXT, ['sc']);
  const diag = { severity: 'error', message: 'expected `;`', line: 2, col: 9, end_line: 2, end_col: 10 };
  const rs = fileResults(tree, ['sc'], { path: 'T', diagnostics: [diag], results: {} }, TEXT);
  assert.deepEqual(byId(rs), { '': 'errored', '#assert-1/sc': 'skipped', '#assert-2/sc': 'skipped', '#condition/sc': 'skipped' });
  assert.deepEqual(rs[0].messages, [{ text: 'expected `;` (2:9)', range: { start: { line: 1, character: 8 }, end: { line: 1, character: 9 } } }]);
  const none = fileResults(tree, ['sc'], undefined, TEXT, 'cannot run /x/litmus: ENOENT');
  assert.deepEqual(none[0], { id: 'u', outcome: 'errored', messages: [{ text: 'cannot run /x/litmus: ENOENT' }] });
});

test('parsing: only a version 1 document with files', () => {
  assert.equal(parseCliJson('not json'), undefined);
  assert.equal(parseCliJson('{"version": 3, "files": []}'), undefined);
  assert.deepEqual(parseCliJson('{"version": 2, "files": []}'), { version: 2, files: [] });
  assert.equal(parseCliJson('{"version": 1}'), undefined);
  assert.deepEqual(parseCliJson('{"version": 1, "files": []}'), { version: 1, files: [] });
  assert.deepEqual(checkArgs(['/w/a.litmus', '-x.litmus'], { models: ['sc', 'pso'], loopBound: 4, timeout: 0, engine: 'mcr' }), [
    'check', '--json', '--model', 'sc,pso', '--loop-bound', '4', '--engine', 'mcr', '--', '/w/a.litmus', '-x.litmus',
  ]);
  // the CLI's sentence, as it is; a CLI from before `label` gets the step's own fields
  const { label: _, ...unlabelled } = failing.schedule[0];
  const rmw = { ...unlabelled, action: 'rmw', value: 0, buffered: false };
  const said = 'P0 atomically updates x (`r0 = fetch_add(x, 1);`), old value 0';
  assert.equal(stepLabel({ ...rmw, label: said }), said);
  assert.equal(stepLabel(rmw), 'P0 rmw x = 0');
  assert.equal(stepLabel(unlabelled), 'P0 store x = 1 (buffered)');
  assert.equal(stepLabel({ ...unlabelled, action: 'assert', loc: null, value: null, buffered: false }), 'P0 assert');
  const labelled = { ...failing, schedule: failing.schedule.map((st, i) => ({ ...st, label: `step ${i + 1} in words` })) };
  assert.match(violationText('tso', labelled), /\n {2}1\. step 1 in words {2}\(3:13\)\n {2}2\. step 2 in words/);
  assert.match(violationText('pso', { ...failing, kind: 'deadlock', schedule: [] }), /^PSO deadlock: .*\nSchedule \(0 steps\):$/);
});

function litmusBinary(): string | undefined {
  const candidates = [process.env.LITMUS_BIN, path.resolve(repo, 'target/release/litmus'), path.resolve(repo, 'target/debug/litmus')];
  return candidates.find((p): p is string => !!p && fs.existsSync(p));
}
const bin = litmusBinary();

test('the real CLI over every example, one run: each result as the example promises', { skip: bin ? false : 'no litmus binary (set LITMUS_BIN or cargo build -p litmus)' }, () => {
  const dir = path.join(repo, 'examples');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.litmus')).sort().map((f) => path.join(dir, f));
  const r = spawnSync(bin!, checkArgs(files, { models: [...MODELS], loopBound: 8, timeout: 120 }), { encoding: 'utf8', maxBuffer: 64 << 20 });
  const doc = parseCliJson(r.stdout);
  assert.ok(doc, `JSON from the CLI (exit ${r.status}): ${r.stderr}`);
  const reports = reportsByPath(doc!);
  const outcome: Record<string, Record<string, string>> = {};
  const hints: Record<string, boolean> = {};
  const dekkerSteps: string[] = [];
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    const name = path.basename(f);
    const tree = fileTree(`file://${f}`, name, text, [...MODELS]);
    assert.ok(reports.get(f), `a report for ${f}`);
    const rs = fileResults(tree, MODELS, reports.get(f), text);
    outcome[name] = Object.fromEntries(rs.map((x) => [x.id.slice(`file://${f}`.length) || 'file', x.outcome]));
    hints[name] = rs.some((x) => x.id.endsWith('/tso') && x.messages.some((m) => m.text.endsWith(fenceHint('tso'))));
    for (const x of rs.filter((y) => y.outcome === 'failed')) {
      for (const m of x.messages) assert.match(m.text, /\nSchedule \(\d+ steps?\):\n  1\. /, `${name}: a failure carries its schedule`);
    }
    // every step line is the CLI's sentence (the language server's words), none rebuilt here
    const shown = rs.flatMap((x) => x.messages.map((m) => m.text)).join('\n');
    for (const [model, r] of Object.entries(reports.get(f)!.results)) {
      for (const v of r?.violations ?? []) {
        for (const st of v.schedule) {
          assert.ok(st.label, `${name} ${model}: a step without a label`);
          assert.ok(shown.includes(`. ${st.label}  (${st.line}:${st.col})`), `${name} ${model}: ${st.label} not shown`);
        }
      }
    }
    if (name === 'dekker.litmus') dekkerSteps.push(shown);
  }
  // Dekker: both assertions hold under SC and fail under TSO and PSO (each run finds at least one)
  const d = outcome['dekker.litmus'];
  assert.equal(d['#assert-1/sc'], 'passed');
  assert.equal(d['#assert-2/sc'], 'passed');
  for (const m of ['tso', 'pso']) assert.ok(d[`#assert-1/${m}`] === 'failed' || d[`#assert-2/${m}`] === 'failed', `Dekker fails under ${m}`);
  assert.ok(Object.values(outcome['dekker-fenced.litmus']).every((o) => o === 'passed'), 'fenced Dekker holds everywhere');
  // the server's words, which the explorer's own renderer lacked: a load names the store it missed
  assert.ok(dekkerSteps.some((t) => /reads \w+ = 0 from memory \(P\d's store \w+ = 1 still buffered\)/.test(t)), dekkerSteps.join('\n'));
  // Dekker's TSO failure points to the fence quick fix; the racy counter's (SC fails too) does not
  assert.ok(hints['dekker.litmus'], "Dekker's TSO failure names the quick fix");
  assert.ok(!hints['racy-counter.litmus'], 'no fence hint where SC fails too');
  // an exists is an answer: SB passes in every model
  assert.ok(Object.values(outcome['sb.litmus']).every((o) => o === 'passed'));
  assert.ok(Object.values(outcome['sb-x86.litmus']).every((o) => o === 'passed'));
  // the racy counter's forall fails in every model
  for (const m of MODELS) assert.equal(outcome['racy-counter.litmus'][`#condition/${m}`], 'failed');
  // lock order: a deadlock, which belongs to no check, fails the file
  assert.equal(outcome['lock-order.litmus'].file, 'failed');
});

test('an AArch64 result (JSON version 2) answers its condition item: Ok/No passes, a ~exists reached fails', () => {
  const arm = 'AArch64 SB\n{ 0:X1=x; }\n P0 ;\n LDR W0,[X1] ;\n~exists (0:X0=1)\n';
  const tree = fileTree('u', 'SB', arm, ['sc', 'tso', 'pso']);
  const doc = parseCliJson(
    JSON.stringify({
      version: 2,
      files: [
        {
          path: 'sb.litmus',
          name: 'SB',
          diagnostics: [],
          results: {
            aarch64: {
              complete: true,
              model: 'aarch64.cat (litmus)',
              states: [],
              condition: { kind: '~exists', holds: false, positive: 1, negative: 3 },
              violations: [{ kind: 'condition', message: '~exists condition does not hold under aarch64.cat (litmus)', line: 5, col: 1, end_line: 5, end_col: 17, schedule: [] }],
              witness: [],
              warnings: [],
              stats: { engine: 'axiomatic', candidates: 4, time_ms: 1 },
            },
          },
        },
      ],
    }),
  )!;
  const rs = fileResults(tree, tree.models, doc.files[0]);
  const cond = rs.find((r) => r.id === 'u#condition/aarch64')!;
  assert.equal(cond.outcome, 'failed');
  assert.ok(cond.messages[0].text.startsWith('aarch64.cat condition violation: ~exists'), cond.messages[0].text);
  assert.ok(!cond.messages[0].text.includes('Schedule'), cond.messages[0].text);
});

test("the condition's answer counts final states in the singular and the plural", () => {
  const c = (positive: number, negative: number) => ({ kind: 'exists', holds: positive > 0, positive, negative });
  assert.equal(conditionAnswer('sc', c(1, 0)), 'SC: exists Ok: some execution reaches the state (it holds in 1 of 1 final state)');
  assert.equal(conditionAnswer('sc', c(0, 1)), 'SC: exists No: no execution reaches the state (an answer, not a failure) (it holds in 0 of 1 final state)');
  assert.equal(conditionAnswer('tso', c(1, 2)), 'TSO: exists Ok: some execution reaches the state (it holds in 1 of 3 final states)');
  assert.doesNotMatch(conditionAnswer('sc', c(1, 0)), /satisfy it|`/);
});
