// The test explorer's item tree, built from a file's text: which assertions and conditions it
// finds (skipping comments and strings, both dialects), the ids that survive edits, and what a
// run of some items has to check.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { blankComments, fileTree, findChecks, isX86, modelsToRun, normalizeModels } from '../../src/logic/testTree';

const repo = path.resolve(__dirname, '../../../../..');
const example = (name: string) => fs.readFileSync(path.join(repo, 'examples', name), 'utf8');

const SB = `litmus SB "store buffering"
// assert(commented) is not a check
shared x, y;
thread P0 { x = 1; r0 = y; assert(r0 == 0 || x == 1); }
thread P1 {
  y = 1;
  /* assert(nor this) */
  r1 = x;
}
exists (P0:r0 == 0 && P1:r1 == 0)
`;

test('finds each assertion and the condition, with their ranges', () => {
  const sites = findChecks(SB);
  assert.deepEqual(
    sites.map((s) => [s.kind, s.label, s.range.start.line, s.range.start.character, s.range.end.line, s.range.end.character]),
    [
      ['assert', 'assert(r0 == 0 || x == 1)', 3, 27, 3, 52],
      ['condition', 'exists (P0:r0 == 0 && P1:r1 == 0)', 9, 0, 9, 33],
    ],
  );
});

test('comments and strings are blanked in place, newlines kept', () => {
  const t = 'a // assert(x)\n"assert(y)" /* z\n */ b (* c *)';
  const native = blankComments(t, false);
  assert.equal(native.length, t.length);
  assert.equal(native.split('\n').length, 3);
  assert.ok(!native.includes('assert'));
  assert.ok(native.includes('(* c *)'), 'herd comments only in x86 files');
  assert.ok(!blankComments(t, true).includes('c *'));
});

test('herd x86 files: the condition only, in both spellings', () => {
  const x86 = example('sb-x86.litmus');
  assert.ok(isX86(x86));
  const sites = findChecks(x86);
  assert.deepEqual(sites.map((s) => s.kind), ['condition']);
  assert.match(sites[0].label, /^exists \(0:EAX=0 \/\\ 1:EAX=0\)$/);
  const x64 = findChecks(example('sb-x86_64.litmus'));
  assert.deepEqual(x64.map((s) => s.kind), ['condition']);
  assert.ok(!isX86(SB));
  // herd allows a condition without parentheses: the site ends at the line end
  const bare = findChecks('X86 T\n{ x=0; }\n P0 ;\n MOV EAX,[x] ;\nexists 0:EAX=1\n');
  assert.equal(bare[0].label, 'exists 0:EAX=1');
});

test('every example has its checks found: Dekker has two assertions and no condition', () => {
  const d = findChecks(example('dekker.litmus'));
  assert.deepEqual(d.map((s) => [s.kind, s.label]), [
    ['assert', 'assert(r0 == 0)'],
    ['assert', 'assert(r1 == 0)'],
  ]);
  for (const name of fs.readdirSync(path.join(repo, 'examples'))) {
    if (name.endsWith('.litmus')) assert.ok(findChecks(example(name)).length > 0 || name.includes('lock-order'), `${name} has checks`);
  }
});

test('~exists, forall and an unclosed assertion', () => {
  assert.equal(findChecks('litmus T\nshared x;\nthread P0 { x = 1; }\n~exists (x == 2)\n')[0].label, '~exists (x == 2)');
  assert.equal(findChecks('litmus T\nshared x;\nthread P0 { x = 1; }\n  forall (x == 1)')[0].label, 'forall (x == 1)');
  const open = findChecks('litmus T\nthread P0 { assert(r0 == \n}\n');
  assert.equal(open.length, 1);
  assert.equal(open[0].range.end.line, 1, 'an unclosed parenthesis ends the site at its line end');
});

test('the tree: a child per check, a grandchild per model, ids that survive edits', () => {
  const models = normalizeModels(['tso', 'sc']);
  assert.deepEqual(models, ['sc', 'tso']);
  const uri = 'file:///ws/sb.litmus';
  const t = fileTree(uri, 'sb.litmus', SB, models);
  assert.equal(t.id, uri);
  assert.deepEqual(
    t.children.map((c) => [c.id, c.label, c.children.map((m) => [m.id, m.label])]),
    [
      [`${uri}#assert-1`, 'assert(r0 == 0 || x == 1) (line 4)', [[`${uri}#assert-1/sc`, 'SC'], [`${uri}#assert-1/tso`, 'TSO']]],
      [`${uri}#condition`, 'exists (P0:r0 == 0 && P1:r1 == 0) (line 10)', [[`${uri}#condition/sc`, 'SC'], [`${uri}#condition/tso`, 'TSO']]],
    ],
  );
  // two lines inserted above: same ids, ranges moved
  const moved = fileTree(uri, 'sb.litmus', '\n\n' + SB, models);
  assert.deepEqual(moved.children.map((c) => c.id), t.children.map((c) => c.id));
  assert.equal(moved.children[0].range.start.line, t.children[0].range.start.line + 2);
  assert.equal(moved.children[0].children[1].range.start.line, t.children[0].range.start.line + 2);
  assert.deepEqual(normalizeModels([]), ['sc', 'tso', 'pso']);
  assert.deepEqual(normalizeModels(['arm']), ['sc', 'tso', 'pso']);
});

test('a run checks the models its selected items ask for', () => {
  const all = normalizeModels(undefined);
  const t = fileTree('u', 'u', SB, all);
  assert.deepEqual(modelsToRun(t, ['u'], all), all);
  assert.deepEqual(modelsToRun(t, ['u#condition'], all), all);
  assert.deepEqual(modelsToRun(t, ['u#condition/pso', 'u#assert-1/sc'], all), ['sc', 'pso']);
  assert.deepEqual(modelsToRun(t, ['elsewhere'], all), []);
});

test('an AArch64 or RISC-V file is checked under its architecture\'s model, whatever the configured ones', () => {
  const arm = 'AArch64 MP\n{ 0:X1=x; }\n P0 ;\n LDR W0,[X1] ;\nexists (0:X0=1)\n';
  const t = fileTree('u', 'MP', arm, ['sc', 'tso', 'pso']);
  assert.deepEqual(t.models, ['aarch64']);
  assert.deepEqual(
    t.children.map((c) => c.children.map((m) => m.label)),
    [['aarch64.cat']],
  );
  const rv = fileTree('v', 'MP', '(* c *)\nRISCV MP\n{ }\n P0 ;\n lw x5,0(x6) ;\nexists (0:x5=1)\n', ['sc']);
  assert.deepEqual(rv.models, ['riscv']);
  assert.deepEqual(modelsToRun(rv, [rv.id], rv.models), ['riscv']);
  assert.deepEqual(fileTree('w', 'SB', example('sb.litmus'), ['tso']).models, ['tso']);
});
