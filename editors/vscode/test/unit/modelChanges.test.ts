// The `litmus/modelChanges` notification read and shown (src/logic/modelChanges.ts).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { changeMessage, changeSummary, parseModelChanges } from '../../src/logic/modelChanges';

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
