import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { axGraph, axHeading, axiomaticHtml, cycleText, dependencyLines, locationHref, locationText, parseAxView } from '../../src/logic/axgraph';
import { layoutGraph } from '../../src/logic/trace';

const n = (id: number, thread: number | null, kind: string, loc: string, value: number, po: number, tags: string[] = []) => ({
  id,
  thread,
  kind,
  loc,
  value,
  tags: thread === null ? ['IW'] : tags,
  po,
  name: `e${id}`,
  label: kind === 'F' ? `F[${tags.join(',')}]` : `${kind}${tags.length && thread !== null ? `[${tags.join(',')}]` : ''} ${loc}=${value}`,
});

/**
 * MP+dmb.sy+ldar's forbidden candidate, the shape lsp/src/json/axview.rs sends: P0 writes x,
 * barrier, writes y; P1 reads y=1 (acquire) then x=0; the cycle e2 -po-> e4 -rf-> e5 -po-> e6
 * -fr-> e2 (e2 -po-> e4 is not an immediate po edge: the barrier is between).
 */
const forbidden = {
  uri: 'file:///w/mp.litmus',
  test: 'MP+dmb.sy+ldar',
  arch: 'AArch64',
  model: 'aarch64.cat (litmus)',
  condition: 'exists (1:X0=1 /\\ 1:X2=0)',
  quantifier: 'exists',
  herd: 'No',
  verdict: 'forbidden',
  positive: 0,
  negative: 3,
  block: ['Test MP+dmb.sy+ldar Allowed', 'No', 'Observation MP+dmb.sy+ldar Never 0 3'],
  execution: {
    role: 'forbidden',
    threads: ['P0', 'P1'],
    nodes: [n(0, null, 'W', 'x', 0, 0), n(1, null, 'W', 'y', 0, 0), n(2, 0, 'W', 'x', 1, 1), n(3, 0, 'F', '', 0, 2, ['DMB.SY']), n(4, 0, 'W', 'y', 1, 3), n(5, 1, 'R', 'y', 1, 0, ['A']), n(6, 1, 'R', 'x', 0, 1)],
    edges: [
      { from: 2, to: 3, kind: 'po', cycle: false },
      { from: 3, to: 4, kind: 'po', cycle: false },
      { from: 5, to: 6, kind: 'po', cycle: true, name: '[A];po' },
      { from: 4, to: 5, kind: 'rf', cycle: true },
      { from: 0, to: 6, kind: 'rf', cycle: false },
      { from: 0, to: 2, kind: 'co', cycle: false },
      { from: 1, to: 4, kind: 'co', cycle: false },
      { from: 6, to: 2, kind: 'fr', cycle: true },
      { from: 2, to: 4, kind: 'po', cycle: true, name: 'dmb.sy' },
    ],
    rf: [
      [4, 5],
      [0, 6],
    ],
    co: [
      [0, 2],
      [1, 4],
    ],
    check: { name: 'external', kind: 'acyclic', cycle: [2, 4, 5, 6] },
    state: [
      ['1:X0', 1],
      ['1:X2', 0],
    ],
  },
  text: ["No: the condition's state is forbidden under aarch64.cat (litmus)"],
};

test('parseAxView keeps the reply and rejects null', () => {
  assert.equal(parseAxView(null), undefined);
  assert.equal(parseAxView({}), undefined);
  const v = parseAxView(forbidden)!;
  assert.equal(v.herd, 'No');
  assert.equal(v.execution?.check?.name, 'external');
  assert.deepEqual(v.execution?.rf, [
    [4, 5],
    [0, 6],
  ]);
  assert.equal(axHeading(v), "MP+dmb.sy+ldar — AArch64 No: the condition's state is forbidden under aarch64.cat (litmus)");
});

test('the cycle as text follows the check, closing on its first event', () => {
  const x = parseAxView(forbidden)!.execution!;
  // program-order steps named as herd names what orders them (the server's `name`)
  assert.equal(cycleText(x), 'e2 -dmb.sy-> e4 -rf-> e5 -[A];po-> e6 -fr-> e2');
  // a server from before `name`: the kind
  const old = { ...x, edges: x.edges.map(({ name: _n, ...e }) => e) };
  assert.equal(cycleText(old), 'e2 -po-> e4 -rf-> e5 -po-> e6 -fr-> e2');
});

test("the cycle's layout: each thread a column in program order, initial writes on top, the cycle's edges bold", () => {
  const g = axGraph(parseAxView(forbidden)!.execution!);
  const placed = layoutGraph(g);
  const at = new Map(placed.map((p) => [p.node.id, p]));
  // initial writes share the top row, above every thread's events
  assert.equal(at.get(0)!.y, at.get(1)!.y);
  for (const id of [2, 3, 4, 5, 6]) assert.ok(at.get(id)!.y > at.get(0)!.y, `e${id} below the initial writes`);
  // P0's events in one column, going down in program order; P1 in the next column
  assert.ok(at.get(2)!.x === at.get(3)!.x && at.get(3)!.x === at.get(4)!.x);
  assert.ok(at.get(2)!.y < at.get(3)!.y && at.get(3)!.y < at.get(4)!.y);
  assert.ok(at.get(5)!.x > at.get(2)!.x && at.get(5)!.x === at.get(6)!.x && at.get(5)!.y < at.get(6)!.y);
  // the cycle: its steps are marked, e2 -po-> e4 as the immediate po edges through the barrier
  // (a straight e2→e4 would run under e3), and they close: each edge's target is the next's source
  const cyc = g.edges.filter((e) => e.explains);
  assert.deepEqual(
    cyc.map((e) => `${e.from}-${e.kind}->${e.to}`).sort(),
    ['2-po->3', '3-po->4', '4-rf->5', '5-po->6', '6-fr->2'],
  );
  assert.ok(!g.edges.some((e) => e.from === 2 && e.to === 4), 'no edge under e3');
  for (const e of cyc) assert.ok(cyc.some((f) => f.from === e.to), `the cycle continues after e${e.to}`);
  // the other edges are there, not bold
  assert.ok(g.edges.some((e) => e.kind === 'co' && !e.explains));
});

test('the page: verdict, the check and cycle, the graph with the cycle drawn bold, the block', () => {
  const html = axiomaticHtml(parseAxView(forbidden)!, { cspSource: 'vscode-resource:', nonce: 'N0nce' });
  assert.match(html, /Forbidden by <strong>acyclic external<\/strong>: <code>e2 -dmb\.sy-&gt; e4 -rf-&gt; e5 -\[A\];po-&gt; e6 -fr-&gt; e2<\/code>/);
  assert.match(html, /class="edge e-fr explains" data-kind="fr" data-from="6" data-to="2"/);
  assert.match(html, /class="edge e-rf explains" data-kind="rf" data-from="4" data-to="5"/);
  assert.match(html, /class="edge e-po explains" data-kind="po" data-from="3" data-to="4"/);
  assert.match(html, /class="edge e-co" data-kind="co" data-from="0" data-to="2"/);
  assert.match(html, /Observation MP\+dmb.sy\+ldar Never 0 3/);
  assert.match(html, /<script nonce="N0nce">/);
  assert.doesNotMatch(html, /no SC execution has one/);
});

test("the check's name links to its place in the model's file", () => {
  const f = structuredClone(forbidden) as Record<string, any>;
  const range = { start: { line: 44, character: 0 }, end: { line: 44, character: 40 } };
  f.execution.check.location = { uri: 'file:///tmp/litmus-cat-library-0.1.0/aarch64.cat', range };
  const v = parseAxView(f)!;
  const loc = v.execution!.check!.location!;
  assert.deepEqual(loc.range, range);
  assert.equal(locationText(loc), 'aarch64.cat:45');
  const href = locationHref(loc);
  assert.ok(href.startsWith('command:litmus.openLocation?'));
  assert.deepEqual(JSON.parse(decodeURIComponent(href.split('?')[1])), [loc.uri, range]);
  const html = axiomaticHtml(v, { cspSource: 'c', nonce: 'n' });
  assert.match(html, /Forbidden by <a class="check-link" href="command:litmus\.openLocation\?[^"]+" title="Open the check in aarch64\.cat:45"><strong>acyclic external<\/strong><\/a> \(aarch64\.cat:45\)/);
  // a malformed location is dropped, the check kept
  f.execution.check.location = { uri: 3 };
  assert.equal(parseAxView(f)!.execution!.check!.location, undefined);
});

test('a witness: no cycle, reads-from shown, dependencies listed', () => {
  const w = structuredClone(forbidden) as Record<string, any>;
  w.herd = 'Ok';
  w.verdict = 'allowed';
  w.execution.role = 'witness';
  w.execution.check = null;
  w.execution.edges = w.execution.edges.filter((e: { cycle: boolean; from: number; to: number }) => !(e.from === 2 && e.to === 4)).map((e: object) => ({ ...e, cycle: false }));
  w.execution.edges.push({ from: 5, to: 6, kind: 'addr', cycle: false });
  const v = parseAxView(w)!;
  const x = v.execution!;
  assert.equal(cycleText(x), '');
  assert.deepEqual(dependencyLines(x), ['e5 -addr-> e6']);
  assert.ok(axGraph(x).edges.every((e) => !e.explains));
  const html = axiomaticHtml(v, { cspSource: 'c', nonce: 'n' });
  assert.match(html, /A witness execution/);
  assert.match(html, /graph-box[^"]* show-rf/);
  assert.match(html, /Dependencies: <code>e5 -addr-&gt; e6<\/code>/);
  assert.doesNotMatch(html, /Forbidden by/);
});
