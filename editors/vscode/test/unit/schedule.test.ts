import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  anchorPosition,
  completeCommandArgs,
  formatScheduleText,
  lineAnnotations,
  parseSchedule,
  scheduleHeading,
  scheduleLocations,
  scheduleSummary,
  stepItems,
  uriBaseName,
} from '../../src/logic/schedule';

const U = 'file:///work/sb%20test.litmus';
const range = (line: number, character: number, len = 5) => ({
  start: { line, character },
  end: { line, character: character + len },
});

const reply = {
  title: 'assert(r0 == 1) fails',
  model: 'tso',
  kind: 'assert',
  steps: [
    { label: 'P0: store x = 1 (buffered)', location: { uri: U, range: range(5, 2) } },
    { label: 'P1: store y = 1 (buffered)', location: { uri: U, range: range(10, 2) } },
    { label: 'P0: load y = 0', location: { uri: U, range: range(6, 2, 7) } },
    { label: 'P0: flush x = 1', location: { uri: U, range: range(5, 2) } },
    { label: 'P0: assert fails', location: { uri: U, range: range(7, 2, 15) } },
  ],
};

test('a contract reply parses to the same schedule', () => {
  const s = parseSchedule(reply);
  assert.ok(s);
  assert.equal(s.kind, 'assert');
  assert.equal(s.model, 'tso');
  assert.equal(s.steps.length, 5);
  assert.deepEqual(s.steps[2], reply.steps[2]);
});

test('locations follow the schedule order, one per step', () => {
  const s = parseSchedule(reply)!;
  assert.deepEqual(
    scheduleLocations(s).map((l) => [l.uri, l.range.start.line, l.range.start.character, l.range.end.character]),
    [
      [U, 5, 2, 7],
      [U, 10, 2, 7],
      [U, 6, 2, 9],
      [U, 5, 2, 7],
      [U, 7, 2, 17],
    ],
  );
});

test('null and malformed replies give nothing; bad steps are dropped', () => {
  assert.equal(parseSchedule(null), undefined);
  assert.equal(parseSchedule({ title: 'x' }), undefined);
  const s = parseSchedule({
    title: 3,
    kind: 'bogus',
    steps: [
      { label: 'ok', location: { uri: U, range: range(1, 0) } },
      { label: 'no uri', location: { range: range(1, 0) } },
      { label: 'negative', location: { uri: U, range: range(-1, 0) } },
      { label: 'fraction', location: { uri: U, range: { start: { line: 1.5, character: 0 }, end: { line: 2, character: 0 } } } },
      'garbage',
      { location: { uri: U, range: range(2, 1) } },
    ],
  });
  assert.ok(s);
  assert.equal(s.title, '');
  assert.equal(s.kind, 'error');
  assert.deepEqual(
    s.steps.map((st) => [st.label, st.location.range.start.line]),
    [
      ['ok', 1],
      ['', 2],
    ],
  );
});

test('the peek widget is anchored at the last step in the document', () => {
  const s = parseSchedule(reply)!;
  assert.deepEqual(anchorPosition(s, U, { line: 0, character: 0 }), { line: 7, character: 2 });
  assert.deepEqual(anchorPosition(s, 'file:///other.litmus', { line: 3, character: 1 }), { line: 3, character: 1 });
});

test('the heading names model, kind and title', () => {
  assert.equal(scheduleHeading(parseSchedule(reply)!), 'TSO assertion violation: assert(r0 == 1) fails');
  assert.equal(scheduleHeading(parseSchedule({ ...reply, title: '', kind: 'witness', model: 'sc' })!), 'SC witness');
  assert.equal(scheduleHeading(parseSchedule({ ...reply, title: '', kind: 'deadlock', model: '' })!), 'deadlock');
});

test('the clipboard text has one numbered step a line with 1-based positions', () => {
  const text = formatScheduleText(parseSchedule(reply)!);
  assert.equal(
    text,
    [
      'TSO assertion violation: assert(r0 == 1) fails',
      '  1. P0: store x = 1 (buffered)  sb test.litmus:6:3',
      '  2. P1: store y = 1 (buffered)  sb test.litmus:11:3',
      '  3. P0: load y = 0              sb test.litmus:7:3',
      '  4. P0: flush x = 1             sb test.litmus:6:3',
      '  5. P0: assert fails            sb test.litmus:8:3',
      '',
    ].join('\n'),
  );
  assert.match(formatScheduleText(parseSchedule(reply)!, () => 'x.litmus'), /x\.litmus:8:3\n$/);
});

test('steps on one line are annotated together, lines in order', () => {
  const s = parseSchedule(reply)!;
  assert.deepEqual(lineAnnotations(s, U), [
    { line: 5, text: '1. P0: store x = 1 (buffered); 4. P0: flush x = 1' },
    { line: 6, text: '3. P0: load y = 0' },
    { line: 7, text: '5. P0: assert fails' },
    { line: 10, text: '2. P1: store y = 1 (buffered)' },
  ]);
  assert.deepEqual(lineAnnotations(s, 'file:///elsewhere.litmus'), []);
});

test('uriBaseName decodes the last segment', () => {
  assert.equal(uriBaseName(U), 'sb test.litmus');
  assert.equal(uriBaseName('file:///a/b.litmus?x#y'), 'b.litmus');
  assert.equal(uriBaseName('untitled:Untitled-1'), 'untitled:Untitled-1');
  assert.equal(uriBaseName('file:///a/%E0%A4%A.litmus'), '%E0%A4%A.litmus');
});

test('palette invocations get the active document and cursor', () => {
  const active = { uri: U, position: { line: 4, character: 9 } };
  assert.deepEqual(completeCommandArgs('litmus.showSchedule', [], active), [U, 4, 9]);
  assert.deepEqual(completeCommandArgs('litmus.verify', [], active), [U]);
  // the check for every iteration, from the palette: the active document
  assert.deepEqual(completeCommandArgs('litmus.verifyUnbounded', [], active), [U]);
  assert.equal(completeCommandArgs('litmus.verify', [], undefined), undefined);
});

test('code lens arguments pass through; uri objects become strings', () => {
  const active = { uri: 'file:///other.litmus', position: { line: 0, character: 0 } };
  assert.deepEqual(completeCommandArgs('litmus.showSchedule', [U, 7, 2], active), [U, 7, 2]);
  const uriObject = { toString: () => U };
  assert.deepEqual(completeCommandArgs('litmus.verify', [uriObject], active), [U]);
  assert.deepEqual(completeCommandArgs('litmus.verify', [{}], active), ['file:///other.litmus']);
});

test('step items keep schedule order and number every step', () => {
  const items = stepItems(parseSchedule(reply)!);
  assert.deepEqual(
    items.map((i) => [i.label, i.description]),
    [
      ['1. P0: store x = 1 (buffered)', 'sb test.litmus:6:3'],
      ['2. P1: store y = 1 (buffered)', 'sb test.litmus:11:3'],
      ['3. P0: load y = 0', 'sb test.litmus:7:3'],
      ['4. P0: flush x = 1', 'sb test.litmus:6:3'],
      ['5. P0: assert fails', 'sb test.litmus:8:3'],
    ],
  );
  assert.deepEqual(items[3].location.range, range(5, 2));
});

test('the step count is said once, whether or not the server title already says it', () => {
  const s = parseSchedule(reply)!;
  assert.equal(scheduleSummary(s), 'TSO assertion violation: assert(r0 == 1) fails (5 steps)');
  // the server's title for litmus.showSchedule ends with the count: not repeated
  const titled = parseSchedule({ ...reply, kind: 'condition', title: 'SB: condition violation under TSO (5 steps)' })!;
  const once = scheduleSummary(titled);
  assert.equal(once, 'TSO condition violation: SB: condition violation under TSO (5 steps)');
  assert.equal(once.match(/steps\)/g)?.length, 1);
  assert.equal(scheduleSummary({ ...s, steps: s.steps.slice(0, 1) }), 'TSO assertion violation: assert(r0 == 1) fails (1 step)');
});

test('the step list has one item per step, in schedule order, even where steps share a location', () => {
  // nine steps over seven places: VS Code's peek list showed "Locations (7)", sorted by line
  const at = [5, 10, 6, 11, 5, 10, 6, 12, 13];
  const s = parseSchedule({
    ...reply,
    steps: at.map((line, i) => ({ label: `step ${i}`, location: { uri: U, range: range(line, 2) } })),
  })!;
  const items = stepItems(s);
  assert.equal(items.length, 9);
  assert.deepEqual(
    items.map((i) => i.label),
    at.map((_, i) => `${i + 1}. step ${i}`),
  );
  assert.deepEqual(
    items.map((i) => i.location.range.start.line),
    at,
  );
});
