// The execution graph's geometry (issue 57) on graphs the server sent for the shapes users met:
// Peterson's and Dekker's counterexamples (a `co` label covered an `fr` one), the lock-order
// deadlock (its wait labels were clipped, its events named `La`), RISC-V's SB with a fence (the
// node `F[Fence.rw.rw]` overflowed its box under an `rf` label), AArch64's and POWER's MP. Every
// event's box holds its text, no label covers another label, an event or a thread's name, and
// everything lies inside the picture. Widths are the layout's estimate of the 12px monospace
// font; the browser test measures the real ones.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { axGraph, parseAxView } from '../../src/logic/axgraph';
import { Box, contains, GraphLayout, layoutGraph, overlaps, textBox } from '../../src/logic/graphLayout';
import { graphSvg } from '../../src/logic/trace';
import type { Graph } from '../../src/logic/traceReply';

const root = path.resolve(__dirname, '../../..');
const raw = JSON.parse(fs.readFileSync(path.join(root, 'test/unit/graphs.json'), 'utf8'));

function graphs(): [string, Graph][] {
  const out: [string, Graph][] = [];
  for (const k of ['peterson_tso', 'peterson_pso', 'dekker_tso', 'lock_order']) out.push([k, raw[k] as Graph]);
  for (const k of ['sb_riscv', 'mp_aarch64', 'mp_ppc']) out.push([k, axGraph(parseAxView({ test: k, execution: raw[k] })!.execution!)]);
  return out;
}

/** What is wrong with a layout's geometry, one line each (empty when nothing is). */
export function layoutProblems(l: GraphLayout): string[] {
  const out: string[] = [];
  const labels: [string, Box][] = [
    ...l.edges.map((e) => [`${e.edge.kind} ${e.edge.from}->${e.edge.to}`, e.box] as [string, Box]),
    ...l.waits.map((w) => [`wait "${w.text}"`, w.box] as [string, Box]),
    ...l.headers.map((h) => [`thread ${h.text}`, h.box] as [string, Box]),
  ];
  for (let i = 0; i < labels.length; i++)
    for (let j = i + 1; j < labels.length; j++) if (overlaps(labels[i][1], labels[j][1])) out.push(`${labels[i][0]} covers ${labels[j][0]}`);
  for (const [what, b] of labels) {
    for (const n of l.nodes) if (overlaps(b, n)) out.push(`${what} covers the event ${n.text}`);
    if (b.x < 0 || b.y < 0 || b.x + b.w > l.width || b.y + b.h > l.height) out.push(`${what} outside the picture`);
  }
  for (const n of l.nodes) {
    if (!contains(n, textBox(n.text, n.tx, n.ty))) out.push(`the event ${n.text} overflows its box`);
    if (n.x + n.w > l.width || n.y + n.h > l.height) out.push(`the event ${n.text} outside the picture`);
  }
  return out;
}

test('every graph: events hold their text, no label covers a label, an event or a name', () => {
  for (const [name, g] of graphs()) {
    const l = layoutGraph(g);
    assert.equal(l.edges.length, g.edges.length, `${name}: every edge has its label`);
    assert.deepEqual(layoutProblems(l), [], name);
  }
});

test('the check finds an overflowing event, covered labels and a clipped wait', () => {
  const l = layoutGraph(raw.lock_order as Graph);
  const n = l.nodes[0];
  const bad: GraphLayout = {
    ...l,
    nodes: [{ ...n, w: 20 }, ...l.nodes.slice(1)],
    waits: l.waits.map((w, k) => (k === 1 ? { ...w, box: l.waits[0].box } : w)),
    width: 100,
  };
  const p = layoutProblems(bad);
  assert.ok(p.some((x) => /overflows its box/.test(x)), p.join('\n'));
  assert.ok(p.some((x) => /^wait .* covers wait/.test(x)), p.join('\n'));
  assert.ok(p.some((x) => /outside the picture/.test(x)), p.join('\n'));
});

test("RISC-V's fence node is as wide as its name", () => {
  const l = layoutGraph(graphs().find(([k]) => k === 'sb_riscv')![1]);
  const fence = l.nodes.find((n) => n.text.includes('F[Fence.rw.rw]'))!;
  assert.ok(fence.w >= textBox(fence.text, 0, 0).w + 16, `${fence.w}`);
  // the column beside it starts right of it, with room for the edges between them
  const other = l.nodes.find((n) => n.node.thread === 1)!;
  assert.ok(other.x > fence.x + fence.w + 20);
});

test("the deadlock's graph names events as the table does and its waits fit the picture", () => {
  const g = raw.lock_order as Graph;
  const svg = graphSvg(g);
  assert.match(svg, />a: lock a<\/text>/);
  assert.match(svg, />b: lock b<\/text>/);
  assert.doesNotMatch(svg, />a: La</);
  const l = layoutGraph(g);
  assert.deepEqual(
    l.waits.map((w) => w.text),
    ['P0 waits for b (held by P1)', 'P1 waits for a (held by P0)'],
  );
  for (const w of l.waits) assert.ok(w.box.x + w.box.w <= l.width, `${w.text} ends at ${w.box.x + w.box.w}, the picture at ${l.width}`);
  assert.match(svg, new RegExp(`width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}"`));
});
