// Where the execution graph's pieces go (issue 57): each event's box sized to its text, a column
// per thread as wide as its widest event, and every edge label and a deadlock's wait labels put
// where they cover no other label, no event and no thread name. Geometry only, no SVG: the trace
// view's `graphSvg` draws what this returns, and the unit tests check its boxes. Text widths are
// estimated from the character count of the 12px monospace font the page uses.

import type { Graph, GraphEdge, GraphNode } from './traceReply';

/** A rectangle: left, top, width, height. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Advance of one character of the graph's 12px monospace font, rounded up (most are 7.2px). */
export const CHAR_W = 7.5;
/** A line of 12px text: the box from 12px above its baseline to 4px below (a little more than the font's). */
export const TEXT_H = 16;
const ASCENT = 12;
/** Room between an event's text and its box's sides. */
const PAD = 8;
export const NODE_H = 26;
const NODE_MIN_W = 110;
/** Room right of a column's widest event, for the edges that bend out of it. */
const COL_GAP = 60;
const ROW = 56;
const TOP = 40;
const LEFT = 20;
/** The height of a row of the deadlock's wait labels under the graph. */
const WAIT_ROW = 18;

export function textWidth(s: string): number {
  return [...s].length * CHAR_W;
}

/** The box of a line of text drawn with its baseline at (x, y). */
export function textBox(s: string, x: number, y: number): Box {
  return { x, y: y - ASCENT, w: textWidth(s), h: TEXT_H };
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

export function contains(outer: Box, inner: Box): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

/** An event as drawn: its box, and its text (`a: Wx=1`) with the text's baseline. */
export interface Placed {
  node: GraphNode;
  x: number;
  y: number;
  w: number;
  h: number;
  text: string;
  tx: number;
  ty: number;
}

export interface PlacedEdge {
  edge: GraphEdge;
  /** The SVG path. */
  d: string;
  /** The label's baseline. */
  lx: number;
  ly: number;
  box: Box;
}

export interface PlacedWait {
  thread: number;
  text: string;
  /** The path from the waiting thread to the lock its holder took, when that lock is drawn. */
  d?: string;
  lx: number;
  ly: number;
  box: Box;
}

export interface GraphLayout {
  nodes: Placed[];
  headers: { text: string; x: number; y: number; box: Box }[];
  edges: PlacedEdge[];
  waits: PlacedWait[];
  width: number;
  height: number;
}

/** The text an event shows: its name and herd's label (`a: Wx=1`). */
export function nodeText(n: GraphNode): string {
  return n.name ? `${n.name}: ${n.label}` : n.label;
}

function placeNode(node: GraphNode, x: number, y: number): Placed {
  const text = nodeText(node);
  const w = Math.max(NODE_MIN_W, Math.ceil(textWidth(text) + 2 * PAD));
  return { node, x, y, w, h: NODE_H, text, tx: x + PAD, ty: y + 17 };
}

/** What a wait says: `P0 waits for lock b (held by P1)`. */
export function waitText(g: Graph, w: NonNullable<Graph['waits']>[number]): string {
  const what = w.mutex === null ? 'waits at await' : `waits for ${w.mutex}${w.holder !== null ? ` (held by ${g.threads[w.holder] ?? `P${w.holder}`})` : ''}`;
  return `${g.threads[w.thread] ?? `P${w.thread}`} ${what}`;
}

/**
 * Where each event goes: the initial writes in a row at the top, then one column per thread
 * with its events in program order below, as herd draws executions; each column as wide as its
 * widest event.
 */
export function layoutNodes(g: Graph): { placed: Placed[]; columns: number[]; firstRow: number } {
  const inits = g.nodes.filter((n) => n.thread === null);
  const placed: Placed[] = [];
  let ix = LEFT;
  for (const node of inits) {
    const p = placeNode(node, ix, TOP);
    placed.push(p);
    ix += p.w + 20;
  }
  const firstRow = inits.length ? TOP + ROW : TOP;
  const byPo = g.nodes.filter((n) => n.thread !== null).sort((a, b) => a.thread! - b.thread! || (a.step ?? 0) - (b.step ?? 0) || a.id - b.id);
  const nThreads = Math.max(g.threads.length, ...byPo.map((n) => n.thread! + 1));
  const widest = Array.from({ length: nThreads }, () => NODE_MIN_W);
  for (const n of byPo) widest[n.thread!] = Math.max(widest[n.thread!], placeNode(n, 0, 0).w);
  const columns: number[] = [];
  let cx = LEFT;
  for (let t = 0; t < nThreads; t++) {
    columns.push(cx);
    cx += Math.max(170, widest[t] + COL_GAP);
  }
  const perThread = new Map<number, number>();
  for (const node of byPo) {
    const k = perThread.get(node.thread!) ?? 0;
    perThread.set(node.thread!, k + 1);
    placed.push(placeNode(node, columns[node.thread!], firstRow + 20 + k * ROW));
  }
  return { placed: placed.sort((a, b) => a.node.id - b.node.id), columns, firstRow };
}

/** A point of the quadratic Bézier curve from s through control c to t, at parameter u. */
function bezier(s: [number, number], c: [number, number], t: [number, number], u: number): [number, number] {
  const v = 1 - u;
  return [v * v * s[0] + 2 * v * u * c[0] + u * u * t[0], v * v * s[1] + 2 * v * u * c[1] + u * u * t[1]];
}

/** Parameters along an edge tried for its label, middle first. */
const ALONG = [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85];

/** The whole graph's geometry. */
export function layoutGraph(g: Graph): GraphLayout {
  const { placed, columns, firstRow } = layoutNodes(g);
  const at = new Map(placed.map((p) => [p.node.id, p]));
  const headers = g.threads.map((t, i) => ({ text: t, x: columns[i] ?? LEFT, y: firstRow, box: textBox(t, columns[i] ?? LEFT, firstRow) }));
  const bottom = Math.max(TOP, ...placed.map((p) => p.y + p.h));
  // What a label must not cover: every event, every thread name, the labels placed before it.
  const taken: Box[] = [...placed.map((p) => ({ x: p.x, y: p.y, w: p.w, h: p.h })), ...headers.map((h) => h.box)];
  const free = (b: Box) => b.x >= 0 && b.y >= 0 && !taken.some((t) => overlaps(t, b));

  // A deadlock's waits: one label a row under the graph, from below each waiting thread's last
  // event to the lock its holder took.
  const waits: PlacedWait[] = (g.waits ?? []).map((w, k) => {
    const mine = placed.filter((p) => p.node.thread === w.thread);
    const col = columns[w.thread] ?? LEFT;
    const last = mine.length ? mine.reduce((a, b) => (a.y > b.y ? a : b)) : undefined;
    const sx = last ? last.x + Math.min(last.w, NODE_MIN_W) / 2 : col + NODE_MIN_W / 2;
    const sy = last ? last.y + last.h : firstRow + 10;
    const text = waitText(g, w);
    const lx = col;
    const ly = bottom + 40 + WAIT_ROW * k;
    const box = textBox(text, lx, ly);
    taken.push(box);
    const target = w.lock !== null ? at.get(w.lock) : undefined;
    if (!target) return { thread: w.thread, text, lx, ly, box };
    const tx = target.x + (target.x > sx ? 0 : target.w);
    const ty = target.y + target.h / 2;
    const cy = bottom + 24;
    return { thread: w.thread, text, d: `M${sx},${sy} C${sx},${cy} ${tx},${cy} ${tx},${ty}`, lx, ly, box };
  });

  // Labels of parallel edges between the same columns start at different places on the curve.
  const seen = new Map<string, number>();
  const edges: PlacedEdge[] = [];
  g.edges.forEach((ed, i) => {
    const a = at.get(ed.from);
    const b = at.get(ed.to);
    if (!a || !b) return;
    const label = ed.kind;
    const lw = textWidth(label);
    let d: string;
    let point: (u: number) => [number, number];
    if (ed.kind === 'po' || ed.kind === 'rmw') {
      // straight down the column, whatever the events' widths (each is at least NODE_MIN_W)
      const s: [number, number] = [a.x + NODE_MIN_W / 2, a.y + a.h];
      const t: [number, number] = [b.x + NODE_MIN_W / 2, b.y];
      d = `M${s[0]},${s[1]} L${t[0]},${t[1]}`;
      point = (u) => [s[0] + (t[0] - s[0]) * u, s[1] + (t[1] - s[1]) * u];
    } else {
      // Cross edges bend sideways, each kind by its own amount, so they do not overlap.
      const bend = 30 + 12 * (['rf', 'co', 'fr'].indexOf(ed.kind) + (i % 2));
      const same = a.x === b.x;
      const sx = same ? a.x + a.w : a.x < b.x ? a.x + a.w : a.x;
      const tx = same ? b.x + b.w : a.x < b.x ? b.x : b.x + b.w;
      const s: [number, number] = [sx, a.y + a.h / 2];
      const t: [number, number] = [tx, b.y + b.h / 2];
      const c: [number, number] = [(s[0] + t[0]) / 2 + (same ? bend : 0), (s[1] + t[1]) / 2 - (same ? 0 : bend / 2)];
      d = `M${s[0]},${s[1]} Q${c[0]},${c[1]} ${t[0]},${t[1]}`;
      point = (u) => bezier(s, c, t, u);
    }
    const lane = `${a.x}:${b.x}`;
    const nth = seen.get(lane) ?? 0;
    seen.set(lane, nth + 1);
    const order = [...ALONG.slice(nth % 3), ...ALONG.slice(0, nth % 3)];
    // Beside the curve (right, then left, then above or below it), at the first place that
    // covers nothing; else the first free place straight below the middle.
    let spot: [number, number] | undefined;
    for (const u of order) {
      const [px, py] = point(u);
      for (const [x, y] of [
        [px + 3, py - 2],
        [px - lw - 3, py - 2],
        [px - lw / 2, py - 6],
        [px - lw / 2, py + TEXT_H],
      ] as [number, number][]) {
        if (free(textBox(label, x, y))) {
          spot = [x, y];
          break;
        }
      }
      if (spot) break;
    }
    if (!spot) {
      const [px, py] = point(0.5);
      let y = py - 2;
      while (!free(textBox(label, px + 3, y))) y += 4;
      spot = [px + 3, y];
    }
    const box = textBox(label, spot[0], spot[1]);
    taken.push(box);
    edges.push({ edge: ed, d, lx: spot[0], ly: spot[1], box });
  });

  const boxes = [...taken, ...placed.map((p) => textBox(p.text, p.tx, p.ty))];
  const width = Math.ceil(Math.max(LEFT + g.threads.length * 170, ...boxes.map((b) => b.x + b.w + 20)));
  const height = Math.ceil(Math.max(bottom + 30, ...boxes.map((b) => b.y + b.h + 12)));
  return { nodes: placed, headers, edges, waits, width, height };
}
