// The `litmus/modelChanges` notification read and shown (src/logic/modelChanges.ts).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { changeActions, changeMessage, changeSummary, parseModelChanges } from '../../src/logic/modelChanges';

const raw = {
  model: 'file:///w/models/aarch64.cat',
  saved: 'file:///w/models/aarch64.cat',
  checked: 2,
  changed: [{ uri: 'file:///w/t/MP.litmus', file: '/w/t/MP.litmus', test: 'MP', before: 'No', after: 'Ok' }],
};

test('reads the changed tests', () => {
  const m = parseModelChanges(raw);
  assert.ok(m);
  assert.equal(m.checked, 2);
  assert.deepEqual(m.changed.map((c) => [c.test, c.before, c.after]), [['MP', 'No', 'Ok']]);
  assert.equal(changeMessage(m.changed[0], 'aarch64.cat'), 'MP: No -> Ok under the edited aarch64.cat (was No as opened)');
  assert.equal(changeSummary(m, 'aarch64.cat'), 'Litmus: aarch64.cat: 1 of 2 tests changed verdict (Problems panel)');
});

test('one test is one test: singular and plural', () => {
  assert.equal(changeSummary({ ...parseModelChanges(raw)!, checked: 1 }, 'a.cat'), 'Litmus: a.cat: 1 of 1 test changed verdict (Problems panel)');
  assert.equal(changeSummary(parseModelChanges({ ...raw, checked: 1, changed: [] })!, 'a.cat'), 'Litmus: a.cat: no verdict changed (1 test)');
});

test('an empty list and an error', () => {
  assert.equal(changeSummary(parseModelChanges({ ...raw, changed: [] })!, 'a.cat'), 'Litmus: a.cat: no verdict changed (2 tests)');
  const e = parseModelChanges({ saved: 'file:///a.cat', error: 'a.cat:1:2: expected `)`' });
  assert.ok(e?.error);
  assert.match(changeSummary(e, 'a.cat'), /cannot be checked: a.cat:1:2/);
});

test('refuses other shapes', () => {
  assert.equal(parseModelChanges(null), undefined);
  assert.equal(parseModelChanges({ model: 'x', checked: 1, changed: [{ test: 'MP' }] }), undefined);
  assert.equal(parseModelChanges({ checked: 1, changed: [] }), undefined);
});

test('each changed test opens under the old and the new model', () => {
  const under = (which: string) => ({ method: 'litmus/axiomaticUnder', params: { uri: 'file:///w/t/MP.litmus', model: 'file:///w/models/aarch64.cat', which } });
  const entry = { ...raw.changed[0], model: 'file:///w/models/aarch64.cat', views: { before: under('before'), after: under('after') } };
  const m = parseModelChanges({ ...raw, changed: [entry] })!;
  const c = m.changed[0];
  assert.equal(c.model, 'file:///w/models/aarch64.cat');
  const acts = changeActions(c);
  assert.deepEqual(
    acts.map((a) => [a.title, a.params.which]),
    [
      ['Open MP under the old model (No)', 'before'],
      ['Open MP under the new model (Ok)', 'after'],
    ],
  );
  assert.deepEqual(acts[1].params, under('after').params);
  // without views (an older server), or with views of another shape: no actions, the entry kept
  assert.deepEqual(changeActions(parseModelChanges(raw)!.changed[0]), []);
  const odd = parseModelChanges({ ...raw, changed: [{ ...entry, views: { before: under('after'), after: under('after') } }] })!;
  assert.equal(odd.changed[0].views, undefined);
  assert.deepEqual(changeActions(odd.changed[0]), []);
});
