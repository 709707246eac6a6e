// herd's C tests in the Testing view and the status bar: a C file is checked under its own
// model (key `c`, labelled `C`), its condition fails when the answer disagrees with the test's
// `Result:` header (the CLI's `result-header` violation) and passes when it agrees.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CliFile, CliModelReport, fileResults } from '../../src/logic/testResults';
import { verdictSummary } from '../../src/logic/status';
import { fileTree, modelLabel, modelsFor } from '../../src/logic/testTree';

const MP = [
  'C MP+pooncerelease+poacquireonce',
  '',
  '(*',
  ' * Result: Sometimes',
  ' *)',
  '',
  '{}',
  '',
  'P0(int *x, int *y)',
  '{',
  '\tWRITE_ONCE(*x, 1);',
  '\tsmp_store_release(y, 1);',
  '}',
  '',
  'exists (1:r0=1 /\\ 1:r1=0)',
  '',
].join('\n');

function report(violations: CliModelReport['violations']): CliFile {
  const c: CliModelReport = {
    complete: true,
    condition: { kind: 'exists', holds: false, positive: 0, negative: 3 },
    violations,
    warnings: [],
  };
  return { path: 'mp.litmus', name: 'MP', diagnostics: [], results: { c } } as unknown as CliFile;
}

test('a C test is checked under its own model, labelled C, whatever the configured ones', () => {
  assert.deepEqual(modelsFor(MP, ['sc', 'tso']), ['c']);
  assert.equal(modelLabel('c'), 'C');
  const t = fileTree('u', 'MP', MP, ['sc', 'tso', 'pso']);
  assert.deepEqual(t.models, ['c']);
  assert.deepEqual(
    t.children.map((c) => c.children.map((m) => m.label)),
    [['C']],
  );
  assert.equal(verdictSummary({ c: 'holds' }), 'C ✓');
  assert.equal(verdictSummary({ c: 'fails' }, { c: 'no' }), 'C ✗');
});

test("a C test's condition fails when the answer disagrees with its Result: header, passes when it agrees", () => {
  const t = fileTree('u', 'MP', MP, ['sc']);
  const cond = t.children[0].children[0].id;
  const bad = fileResults(t, t.models, report([
    {
      kind: 'result-header',
      message: 'the answer DISAGREES with its header `Result: Sometimes`: Never 0 3 under linux-kernel.cfg',
      line: 4,
      col: 1,
      end_line: 4,
      end_col: 20,
      schedule: [],
    },
  ]));
  const r = bad.find((x) => x.id === cond)!;
  assert.equal(r.outcome, 'failed');
  assert.match(r.messages[0].text, /^C disagreement with the “Result:” header: the answer DISAGREES/);
  assert.ok(!r.messages[0].text.includes('Schedule'), r.messages[0].text);
  const good = fileResults(t, t.models, report([]));
  assert.equal(good.find((x) => x.id === cond)!.outcome, 'passed');
});
