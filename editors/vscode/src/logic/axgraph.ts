// The axiomatic view of herd's AArch64 and RISC-V tests (issue 43): the server's
// `litmus/axiomatic` reply (docs/design/lsp.md#axiomatic-tests) → the webview page: the
// verdict (herd's Ok/No, allowed/forbidden, the model), the failed check and its cycle,
// herd's block, and the execution graph — the forbidding cycle in bold for a forbidden state,
// the witness execution for an allowed one. The graph is drawn by the trace view's SVG
// (`graphSvg`, one column per thread in program order); this module turns the reply into its
// `Graph`. No `vscode` import: tested under node.

import { escapeHtml, graphControls, GRAPH_SCRIPT, graphSvg, shownByDefault, STYLE } from './trace';
import type { Graph, GraphEdge, GraphNode } from './traceReply';

export const AXIOMATIC_REQUEST = 'litmus/axiomatic';
export const SHOW_AXIOMATIC = 'litmus.showAxiomatic';

export interface AxNode {
  id: number;
  thread: number | null;
  kind: 'R' | 'W' | 'F';
  loc: string;
  value: number;
  tags: string[];
  po: number;
  name: string;
  label: string;
}

export interface AxEdge {
  from: number;
  to: number;
  /** `po`, `rf`, `co`, `fr`, `addr`, `data`, `ctrl`, `rmw`, `other`. */
  kind: string;
  cycle: boolean;
  /** A cycle step in program order: what orders it as herd names it (`dmb.sy`, `[A];po`, `po-loc`). */
  name?: string;
}

/** A place in a file: a `file:` URI and an LSP range. */
export interface AxLocation {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface AxCheck {
  name: string;
  kind: string;
  cycle: number[];
  /** Where the check is in the model's cat file (the server's copy for a built-in model). */
  location?: AxLocation;
}

/** The client command the view's link to a check runs: `[uri, range]`. */
export const OPEN_LOCATION = 'litmus.openLocation';

function parseLocation(v: unknown): AxLocation | undefined {
  if (!isObj(v) || typeof v.uri !== 'string' || !isObj(v.range)) return undefined;
  const pos = (p: unknown) => ({ line: num(isObj(p) ? p.line : 0), character: num(isObj(p) ? p.character : 0) });
  return { uri: v.uri, range: { start: pos(v.range.start), end: pos(v.range.end) } };
}

/** The command URI that opens a check's location (the webview allows this one command). */
export function locationHref(l: AxLocation): string {
  return `command:${OPEN_LOCATION}?${encodeURIComponent(JSON.stringify([l.uri, l.range]))}`;
}

/** `aarch64.cat:45`: a location's file name and 1-based line. */
export function locationText(l: AxLocation): string {
  const file = decodeURIComponent(l.uri.split('/').pop() ?? l.uri);
  return `${file}:${l.range.start.line + 1}`;
}

export interface AxExecution {
  role: 'witness' | 'forbidden';
  threads: string[];
  nodes: AxNode[];
  edges: AxEdge[];
  rf: [number, number][];
  co: number[][];
  check: AxCheck | null;
  state: [string, number][];
}

export interface AxView {
  uri: string;
  test: string;
  arch: string;
  model: string;
  condition: string;
  quantifier: string;
  herd: 'Ok' | 'No';
  verdict: 'allowed' | 'forbidden';
  positive: number;
  negative: number;
  block: string[];
  execution: AxExecution | null;
  text: string[];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);
const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);

function parseExecution(v: unknown): AxExecution | null {
  if (!isObj(v)) return null;
  const nodes = arr(v.nodes)
    .filter(isObj)
    .map((n) => ({
      id: num(n.id),
      thread: typeof n.thread === 'number' ? n.thread : null,
      kind: (['R', 'W', 'F'].includes(str(n.kind)) ? str(n.kind) : 'F') as AxNode['kind'],
      loc: str(n.loc),
      value: num(n.value),
      tags: arr(n.tags).map((t) => str(t)),
      po: num(n.po),
      name: str(n.name),
      label: str(n.label),
    }));
  const edges = arr(v.edges)
    .filter(isObj)
    .map((e) => ({ from: num(e.from), to: num(e.to), kind: str(e.kind, 'other'), cycle: e.cycle === true, ...(typeof e.name === 'string' ? { name: e.name } : {}) }));
  const c = v.check;
  return {
    role: v.role === 'forbidden' ? 'forbidden' : 'witness',
    threads: arr(v.threads).map((t) => str(t)),
    nodes,
    edges,
    rf: arr(v.rf).map((p) => [num(arr(p)[0]), num(arr(p)[1])] as [number, number]),
    co: arr(v.co).map((o) => arr(o).map((x) => num(x))),
    check: isObj(c) ? { name: str(c.name), kind: str(c.kind), cycle: arr(c.cycle).map((x) => num(x)), ...(parseLocation(c.location) ? { location: parseLocation(c.location) } : {}) } : null,
    state: arr(v.state).map((p) => [str(arr(p)[0]), num(arr(p)[1])] as [string, number]),
  };
}

/** Validates whatever the server sent: `undefined` for `null` or a reply without a test. */
export function parseAxView(raw: unknown): AxView | undefined {
  if (!isObj(raw) || typeof raw.test !== 'string') return undefined;
  return {
    uri: str(raw.uri),
    test: raw.test,
    arch: str(raw.arch),
    model: str(raw.model),
    condition: str(raw.condition),
    quantifier: str(raw.quantifier),
    herd: raw.herd === 'Ok' ? 'Ok' : 'No',
    verdict: raw.verdict === 'allowed' ? 'allowed' : 'forbidden',
    positive: num(raw.positive),
    negative: num(raw.negative),
    block: arr(raw.block).map((l) => str(l)),
    execution: parseExecution(raw.execution),
    text: arr(raw.text).map((l) => str(l)),
  };
}

const BASE: readonly string[] = ['po', 'rf', 'co', 'fr', 'rmw'];

/**
 * The execution as the trace view's graph: one node per event (initial writes on top, each
 * thread's events in program order below its name), the base relations as edges, the cycle's
 * edges marked `explains` (drawn bold and always shown). A cycle step that is a dependency or
 * no base relation is drawn as program order, which it implies; the dependencies themselves
 * are listed under the graph ([`dependencyLines`]).
 */
export function axGraph(x: AxExecution): Graph {
  const nodes: GraphNode[] = x.nodes.map((n) => ({
    id: n.id,
    name: n.name,
    kind: n.thread === null ? 'init' : n.kind,
    thread: n.thread,
    label: n.label,
    pending: false,
    step: n.thread === null ? null : n.po,
  }));
  const edges: GraphEdge[] = [];
  for (const e of x.edges) {
    if (BASE.includes(e.kind)) edges.push({ from: e.from, to: e.to, kind: e.kind as GraphEdge['kind'], explains: e.cycle });
    else if (e.cycle) edges.push({ from: e.from, to: e.to, kind: 'po', explains: true });
  }
  // A cycle step in program order past other events (a write, the barrier, the next write) is
  // drawn as the immediate po edges between them: a straight edge over the column would run
  // under the events it skips.
  const byId = new Map(x.nodes.map((n) => [n.id, n]));
  const out: GraphEdge[] = [];
  for (const e of edges) {
    const a = byId.get(e.from);
    const b = byId.get(e.to);
    const chain = e.kind === 'po' && e.explains && a && b ? poChain(x, a, b) : [];
    if (chain.length < 2) {
      out.push(e);
      continue;
    }
    for (const step of chain) {
      const have = edges.find((d) => d.kind === 'po' && d.from === step[0] && d.to === step[1]);
      if (have) have.explains = true;
      else out.push({ from: step[0], to: step[1], kind: 'po', explains: true });
    }
  }
  return { threads: x.threads, nodes, edges: out };
}

/** The immediate program-order steps from `a` to `b` (same thread, `a` first). */
function poChain(x: AxExecution, a: AxNode, b: AxNode): [number, number][] {
  const between = x.nodes.filter((n) => n.thread !== null && n.thread === a.thread && n.po >= a.po && n.po <= b.po).sort((p, q) => p.po - q.po);
  return between.slice(1).map((n, i) => [between[i].id, n.id] as [number, number]);
}

/** The cycle as text, steps named as herd names them: `e2 -dmb.sy-> e4 -rf-> e5 -[A];po-> e6 -fr-> e2` (empty without one). */
export function cycleText(x: AxExecution): string {
  const c = x.check;
  if (!c || c.cycle.length === 0) return '';
  if (c.kind !== 'acyclic' || c.cycle.length < 2) return c.cycle.map((i) => `e${i}`).join(' ');
  const steps = c.cycle.map((a, k) => {
    const b = c.cycle[(k + 1) % c.cycle.length];
    const e = x.edges.find((d) => d.cycle && d.from === a && d.to === b);
    return `e${a} -${e?.name ?? e?.kind ?? '?'}->`;
  });
  return `${steps.join(' ')} e${c.cycle[0]}`;
}

/** The dependencies and exclusive pairs, one line each: `e5 -addr-> e6`. */
export function dependencyLines(x: AxExecution): string[] {
  return x.edges.filter((e) => !BASE.includes(e.kind) || e.kind === 'rmw').filter((e) => e.kind !== 'other').map((e) => `e${e.from} -${e.kind}-> e${e.to}`);
}

/** The page's heading line: `MP+dmb.sy+ldar — AArch64 No: forbidden under aarch64.cat (litmus)`. */
export function axHeading(v: AxView): string {
  return `${v.test} — ${v.arch} ${v.herd}: the condition's state is ${v.verdict} under ${v.model}`;
}

/** The whole webview page (no script but the graph's toggles and zoom, shared with the trace view). */
export function axiomaticHtml(v: AxView, o: { cspSource: string; nonce: string }): string {
  const e = escapeHtml;
  const x = v.execution;
  let body = `<h1>${e(axHeading(v))}</h1>\n<p><code>${e(v.condition)}</code></p>\n`;
  if (x?.check) {
    const words = `<strong>${e(`${x.check.kind} ${x.check.name}`)}</strong>`;
    const loc = x.check.location;
    const name = loc ? `<a class="check-link" href="${e(locationHref(loc))}" title="Open the check in ${e(locationText(loc))}">${words}</a> (${e(locationText(loc))})` : words;
    body += `<p class="check" role="status">Forbidden by ${name}: <code>${e(cycleText(x))}</code></p>\n`;
  }
  if (x) {
    const g = axGraph(x);
    const what = x.role === 'forbidden' ? 'The candidate execution reaching the state, with the cycle the model forbids in bold' : 'A witness execution: the model allows it and it reaches the state';
    const state = x.state.map(([k, n]) => `${k}=${n}`).join('; ');
    const deps = dependencyLines(x);
    // The trace view's toolbar without its lead sentence (which speaks of SC).
    const controls = graphControls(g).replace(/^<p class="muted">[^]*?<\/p>/, '');
    body += `<h2>Execution graph</h2>\n<p class="muted">${e(what)}.</p>\n${controls}
<div id="graph-box" class="graph-box${[...shownByDefault(g)].map((k) => ` show-${k}`).join('')}">
${graphSvg(g)}
</div>
<p class="final">Final state: <code>${e(state)}</code></p>
${deps.length ? `<p>Dependencies: <code>${e(deps.join(', '))}</code></p>` : ''}\n`;
  } else {
    body += '<p class="muted">No execution to show.</p>\n';
  }
  body += `<h2>herd's block</h2>\n<pre>${e(v.block.join('\n'))}</pre>\n`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${o.cspSource} 'unsafe-inline'; script-src 'nonce-${o.nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${e(v.test)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}<script nonce="${o.nonce}">${GRAPH_SCRIPT}</script>
</body>
</html>`;
}
