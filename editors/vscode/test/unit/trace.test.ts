import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { escapeHtml, graphSvg, layoutGraph, parseTrace, traceHtml, traceView } from '../../src/logic/trace';

const U = 'file:///w/sb.litmus';
const r = (line: number, character = 2) => ({ start: { line, character }, end: { line, character: character + 5 } });
const snap = (x: number, y: number, b0: [string, number][] = [], b1: [string, number][] = []) => ({
  memory: [
    ['x', x],
    ['y', y],
  ],
  buffers: [b0.map(([loc, value]) => ({ loc, value, range: r(4) })), b1.map(([loc, value]) => ({ loc, value, range: r(8) }))],
  registers: [[['r0', 0]], [['r1', 0]]],
});
/** A row as the server sends it: the step's text written by the server (`cell`, `label`). */
const row = (thread: number, action: string, loc: string, value: number, buffered: boolean, line: number, after: unknown, label = '') => ({
  thread,
  action,
  loc,
  value,
  buffered,
  label: label || `${action} ${loc}`,
  cell: { store: `${loc} = ${value} → ${buffered ? 'buffer' : 'memory'}`, load: `read ${loc} = ${value}`, flush: `flush ${loc} = ${value}` }[action] ?? action,
  text: action === 'store' ? `${loc} = ${value};` : `r = ${loc};`,
  range: r(line),
  after,
});

/** SB's witness under TSO as the server sends it (lsp/src/server/trace.rs). */
const reply = {
  uri: U,
  test: 'SB',
  model: 'tso',
  index: 0,
  kind: 'witness',
  title: 'TSO witness: exists (...)',
  message: '',
  choices: [
    { model: 'tso', index: 0, kind: 'witness', title: 'TSO witness' },
    { model: 'pso', index: 0, kind: 'witness', title: 'PSO witness' },
  ],
  threads: ['P0', 'P1'],
  locations: ['x', 'y'],
  initial: snap(0, 0),
  rows: [
    row(0, 'store', 'x', 1, true, 4, snap(0, 0, [['x', 1]])),
    row(1, 'store', 'y', 1, true, 8, snap(0, 0, [['x', 1]], [['y', 1]])),
    row(0, 'load', 'y', 0, false, 5, snap(0, 0, [['x', 1]], [['y', 1]]), "P0 reads y = 0 from memory (P1's store y = 1 still buffered)"),
    row(1, 'load', 'x', 0, false, 9, snap(0, 0, [['x', 1]], [['y', 1]])),
    row(0, 'flush', 'x', 1, false, 4, snap(1, 0, [], [['y', 1]])),
    row(1, 'flush', 'y', 1, false, 8, snap(1, 1)),
  ],
  end: { end: 'final', state: [['P0:r0', 0], ['P1:r1', 0], ['x', 1], ['y', 1]] },
  graph: {
    threads: ['P0', 'P1'],
    nodes: [
      { id: 0, name: '', kind: 'init', thread: null, label: 'Wx=0', pending: false, step: null },
      { id: 1, name: '', kind: 'init', thread: null, label: 'Wy=0', pending: false, step: null },
      { id: 2, name: 'a', kind: 'write', thread: 0, label: 'Wx=1', pending: false, step: 0 },
      { id: 3, name: 'c', kind: 'write', thread: 1, label: 'Wy=1', pending: false, step: 1 },
      { id: 4, name: 'b', kind: 'read', thread: 0, label: 'Ry=0', pending: false, step: 2 },
      { id: 5, name: 'd', kind: 'read', thread: 1, label: 'Rx=0', pending: false, step: 3 },
    ],
    edges: [
      { from: 2, to: 4, kind: 'po' },
      { from: 3, to: 5, kind: 'po' },
      { from: 1, to: 4, kind: 'rf' },
      { from: 0, to: 5, kind: 'rf' },
      { from: 0, to: 2, kind: 'co' },
      { from: 1, to: 3, kind: 'co' },
      { from: 4, to: 3, kind: 'fr' },
      { from: 5, to: 2, kind: 'fr' },
    ],
  },
};

test('parseTrace keeps a well-formed reply and rejects null and junk', () => {
  const t = parseTrace(reply)!;
  assert.equal(t.rows.length, 6);
  assert.deepEqual(t.rows[1].after.buffers[1], [{ loc: 'y', value: 1, range: r(8) }]);
  assert.equal(t.graph.edges.length, 8);
  assert.equal(t.end.end, 'final');
  assert.equal(parseTrace(null), undefined);
  assert.equal(parseTrace({ rows: 3 }), undefined);
  // A row naming a thread that does not exist and an edge to a missing node are dropped.
  const bad = parseTrace({ ...reply, rows: [...reply.rows, { ...reply.rows[0], thread: 7 }], graph: { ...reply.graph, edges: [{ from: 0, to: 99, kind: 'rf' }, { from: 0, to: 1, kind: 'hb' }] } })!;
  assert.equal(bad.rows.length, 6);
  assert.equal(bad.graph.edges.length, 0);
});

test('the view model: one column per thread, buffers and memory after every step, the final state', () => {
  const v = traceView(parseTrace(reply)!);
  assert.equal(v.heading, 'SB: witness under TSO (6 steps)');
  assert.deepEqual(v.models.map((m) => [m.label, m.selected]), [['TSO', true], ['PSO', false]]);
  assert.deepEqual(v.violations.map((c) => c.title), ['TSO witness']);
  assert.equal(v.rows.length, 7, 'the initial state and one row per step');
  assert.deepEqual(v.rows[1].cells, ['x = 1 → buffer', '']);
  assert.deepEqual(v.rows[3].cells, ['read y = 0', '']);
  assert.deepEqual(v.rows[3].buffers, [['x=1'], ['y=1']], 'both stores wait while P0 reads y');
  assert.deepEqual(v.rows[5].memory.map((m) => [m.loc, m.value, m.changed]), [['x', 1, true], ['y', 0, false]]);
  assert.equal(v.rows[5].line, 4, 'a flush highlights its store');
  assert.equal(v.buffered, true);
  assert.match(v.ending, /final state where the condition holds/);
  assert.deepEqual(v.finalState[0], ['P0:r0', 0]);
  assert.equal(traceView(parseTrace({ ...reply, model: 'sc' })!).buffered, false);
  const stuck = traceView(parseTrace({ ...reply, kind: 'assert', end: { end: 'violation', kind: 'assert', message: 'assert(r0 == 1) fails' } })!);
  assert.equal(stuck.ending, 'Ends at the assertion failure: assert(r0 == 1) fails');
});

test("each thread's column shows the server's text for the step, whatever the step (lock, unlock, rmw)", () => {
  const rows = [
    { ...reply.rows[0], action: 'lock', loc: 'm', value: null, cell: 'lock m', label: 'P0 locks m' },
    { ...reply.rows[0], action: 'rmw', loc: 'y', value: 0, cell: 'r0 = fetch_add(y, 2); (old 0)', label: 'P0 atomically updates y' },
    { ...reply.rows[0], action: 'unlock', loc: 'm', value: null, cell: 'unlock m', label: 'P0 unlocks m' },
    // Words no client would write for a load: shown as they are.
    { ...reply.rows[1], action: 'load', cell: 'the server says so', label: 'P1 does what the server says' },
  ];
  const v = traceView(parseTrace({ ...reply, rows })!);
  assert.deepEqual(
    v.rows.slice(1).map((r) => [r.cells, r.label]),
    [
      [['lock m', ''], 'P0 locks m'],
      [['r0 = fetch_add(y, 2); (old 0)', ''], 'P0 atomically updates y'],
      [['unlock m', ''], 'P0 unlocks m'],
      [['', 'the server says so'], 'P1 does what the server says'],
    ],
  );
  // A server from before `cell` sent only the sentence: the column shows it.
  const old = rows.map(({ cell: _cell, ...r }) => r);
  assert.deepEqual(traceView(parseTrace({ ...reply, rows: old })!).rows[1].cells, ['P0 locks m', '']);
});

test('the HTML: table rows, theme colours, a nonce-only script, selectors, no network', () => {
  const t = parseTrace(reply)!;
  const html = traceHtml(traceView(t), t.graph, { cspSource: 'vscode-resource:', nonce: 'N0nce', current: 3 });
  assert.equal((html.match(/<tr class="step/g) ?? []).length, 7);
  assert.match(html, /<tr class="step current" role="row" aria-selected="true" tabindex="0" data-label="3\. P0 reads y = 0 from memory \(P1&#39;s store y = 1 still buffered\)" data-line="5">/);
  assert.match(html, /<th scope="col">P0 <span class="muted">\(buffer\)<\/span><\/th>/);
  // Row 3 (P0 reads y): P0's column has the step and, under it, both buffers' contents.
  assert.match(html, /data-line="5"><th scope="row">3<\/th><td>read y = 0<div class="buf" aria-label="P0 buffer">buffer: x=1<\/div><\/td><td><div class="buf" aria-label="P1 buffer">buffer: y=1<\/div><\/td><td><span>x=0<\/span> <span>y=0<\/span><\/td><\/tr>/);
  const sc = traceHtml(traceView(parseTrace({ ...reply, model: 'sc' })!), t.graph, { cspSource: 'c', nonce: 'n' });
  assert.doesNotMatch(sc, /class="buf"|\(buffer\)/);
  assert.match(html, /script-src 'nonce-N0nce'/);
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.match(html, /<script nonce="N0nce">/);
  assert.match(html, /var\(--vscode-list-activeSelectionBackground\)/);
  assert.match(html, /<select id="model" aria-label="Memory model"><option value="tso" selected>TSO<\/option><option value="pso">PSO<\/option><\/select>/);
  assert.match(html, /aria-live="polite"/);
  assert.match(html, /<code>P0:r0=0; P1:r1=0; x=1; y=1<\/code>/);
  // Colours only through the theme's variables (no fixed colour in the page), no remote URL.
  assert.doesNotMatch(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, ''), /https?:/);
  assert.doesNotMatch(html, /#[0-9a-fA-F]{3,6}\b|rgb\(/);
  // Text from the file is escaped.
  const evil = { ...reply, test: '<img src=x onerror=alert(1)>' };
  const h2 = traceHtml(traceView(parseTrace(evil)!), t.graph, { cspSource: 'c', nonce: 'n' });
  assert.doesNotMatch(h2, /<img/);
  assert.equal(escapeHtml(`a<"&'>`), 'a&lt;&quot;&amp;&#39;&gt;');
});

test('the graph SVG: herd layout, one group per event and edge, kinds coloured by class', () => {
  const t = parseTrace(reply)!;
  const placed = layoutGraph(t.graph);
  const pos = (label: string) => placed.find((p) => p.node.label === label)!;
  // The initial writes on top, each thread a column in program order.
  assert.ok(pos('Wx=0').y < pos('Wx=1').y);
  assert.equal(pos('Wx=0').y, pos('Wy=0').y);
  assert.equal(pos('Wx=1').x, pos('Ry=0').x);
  assert.ok(pos('Wx=1').y < pos('Ry=0').y, 'po goes down');
  assert.ok(pos('Wy=1').x > pos('Wx=1').x, 'P1 right of P0');
  const svg = graphSvg(t.graph);
  assert.equal((svg.match(/<g class="node/g) ?? []).length, 6);
  for (const k of ['po', 'rf', 'co', 'fr']) assert.equal((svg.match(new RegExp(`data-kind="${k}"`, 'g')) ?? []).length, 2, k);
  assert.match(svg, /<g class="node" data-id="4" data-step="2"><title>b: Ry=0<\/title>/);
  assert.match(svg, /marker-end="url\(#arrow-fr\)"/);
  assert.match(svg, /<text class="thread" x="20" y="\d+">P0<\/text>/);
  // A write still buffered is drawn dashed and says so.
  const pending = { ...t.graph, nodes: t.graph.nodes.map((n) => (n.id === 2 ? { ...n, pending: true } : n)) };
  assert.match(graphSvg(pending), /<g class="node pending" data-id="2" data-step="0"><title>a: Wx=1 \(still buffered\)<\/title>/);
});

test('no two edge labels of the graph cover each other', () => {
  const t = parseTrace(reply)!;
  // every edge of SB's execution, and each once more in the other direction (crossing lanes)
  const edges = [...t.graph.edges, ...t.graph.edges.map((e) => ({ ...e, from: e.to, to: e.from }))];
  const svg = graphSvg({ ...t.graph, edges });
  const boxes = [...svg.matchAll(/<text class="l-(\w+)" x="([\d.-]+)" y="([\d.-]+)">/g)].map((m) => ({
    x: Number(m[2]),
    y: Number(m[3]),
    w: 7.5 * m[1].length,
  }));
  assert.equal(boxes.length, edges.length);
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      const covers = a.x < b.x + b.w && b.x < a.x + a.w && Math.abs(a.y - b.y) < 12;
      assert.ok(!covers, `labels ${i} and ${j} overlap: ${JSON.stringify([a, b])}`);
    }
});

test('the graph shows the cycle that explains a relaxed violation first, the rest behind toggles', () => {
  const cyc = new Set(['2>4', '4>3', '3>5', '5>2']);
  const g = parseTrace({
    ...reply,
    graph: { ...reply.graph, edges: reply.graph.edges.map((e) => ({ ...e, explains: cyc.has(`${e.from}>${e.to}`) })) },
  })!.graph;
  assert.equal(g.edges.filter((e) => e.explains).length, 4);
  const svg = graphSvg(g);
  assert.equal((svg.match(/class="edge e-[a-z]+ explains"/g) ?? []).length, 4);
  assert.match(svg, /<title>fr \(from-read\): b: Ry=0 → c: Wy=1<\/title>/);
  // Without a cycle (SC has the violation too) reads-from is shown by default; with one it is not.
  const html = traceHtml(traceView(parseTrace(reply)!), g, { cspSource: 'c', nonce: 'n' });
  assert.match(html, /<div id="graph-box" class="graph-box show-po show-rmw">/);
  assert.match(html, /<input type="checkbox" data-show="fr"> fr \(2\)/);
  assert.match(html, /Bold: the 4 edges of a cycle/);
  assert.match(html, /id="zoom-in"/);
  const plain = traceHtml(traceView(parseTrace(reply)!), parseTrace(reply)!.graph, { cspSource: 'c', nonce: 'n' });
  assert.match(plain, /class="graph-box show-po show-rmw show-rf"/);
  assert.match(plain, /No cycle: SC allows this execution too/);
});

test("a deadlock's graph draws each thread's wait for the lock its holder took", () => {
  const t = parseTrace({
    ...reply,
    graph: {
      threads: ['P0', 'P1'],
      nodes: [
        { id: 0, name: 'a', kind: 'lock', thread: 0, label: 'lock a', pending: false, step: 0 },
        { id: 1, name: 'b', kind: 'lock', thread: 1, label: 'lock b', pending: false, step: 1 },
      ],
      edges: [],
      waits: [
        { thread: 0, waits: 'mutex', mutex: 'b', holder: 1, lock: 1 },
        { thread: 1, waits: 'mutex', mutex: 'a', holder: 0, lock: 0 },
        { thread: 9, mutex: 'z', holder: 0, lock: 0 },
      ],
    },
  })!;
  assert.equal(t.graph.waits?.length, 2, 'a wait of an unknown thread is dropped');
  const svg = graphSvg(t.graph);
  assert.equal((svg.match(/<g class="wait" data-thread="\d">/g) ?? []).length, 2);
  assert.match(svg, /P0 waits for b \(held by P1\)/);
  assert.match(svg, /P1 waits for a \(held by P0\)/);
  assert.match(svg, /marker-end="url\(#arrow-wait\)"/);
  // each label on a row of its own (side by side, the longer one ran into the other)
  const ys = [...svg.matchAll(/<text class="l-wait" x="[\d.]+" y="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.equal(ys.length, 2);
  assert.notEqual(ys[0], ys[1], 'the wait labels share a row');
  assert.ok(Math.max(...ys) < Number(/height="([\d.]+)"/.exec(svg)![1]), 'the last label is inside the picture');
});

test('an out-of-date trace is marked as a whole: a sticky banner with a re-run action, the rest dimmed, stepping stopped', () => {
  const t = parseTrace(reply)!;
  const html = traceHtml(traceView(t), t.graph, { cspSource: 'c', nonce: 'n', render: '7' });
  // the banner comes first, outside the content it dims, and stays at the top when scrolled
  const banner = html.indexOf('<div id="stale" class="stale" role="alert" hidden>');
  const content = html.indexOf('<div id="content">');
  assert.ok(banner > 0 && banner < content, 'the banner precedes the content');
  assert.match(html, /<button id="rerun"[^>]*>Re-run check<\/button>/);
  assert.ok(html.indexOf('id="graph-box"') > content && html.indexOf('id="steps"') > content, 'the table and the graph are in the content');
  assert.match(html, /\.stale \{ position: sticky; top: 0;/);
  assert.match(html, /body\.stale #content \{ opacity: 0\.45; \}/);
  assert.match(html, /data-render="7"/);
  // the page's script: stale stops every way of stepping and disables the buttons and selectors
  assert.match(html, /function show\(i, focus\) \{\n  if \(stale\) return;/);
  assert.match(html, /if \(stale \|\| e\.target instanceof HTMLSelectElement\) return;/);
  assert.match(html, /for \(const id of \['prev', 'next', 'model', 'violation'\]\) \{ const b = document\.getElementById\(id\); if \(b\) b\.disabled = true; \}/);
  assert.match(html, /vscode\.postMessage\(\{ type: 'rerun' \}\)/);
  // kept in the webview's state for this rendering only
  assert.match(html, /if \(saved && saved\.render === render\)/);
});

test("the relations' colours are the theme's text colours, not the translucent chart colours", () => {
  const t = parseTrace(reply)!;
  const html = traceHtml(traceView(t), t.graph, { cspSource: 'c', nonce: 'n' });
  assert.doesNotMatch(html, /--vscode-charts-/);
  for (const k of ['rf', 'co', 'fr', 'rmw']) {
    assert.match(html, new RegExp(`--litmus-${k}: var\\(--vscode-[a-zA-Z-]+, var\\(--vscode-[a-zA-Z-]+\\)\\);`), k);
    assert.match(html, new RegExp(`svg \\.e-${k} \\{ stroke: var\\(--litmus-${k}\\); \\}`), k);
  }
  assert.match(html, /\.buf \{ color: var\(--litmus-fr\); \}/);
});
