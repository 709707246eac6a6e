// The trace view (issue 31): the reply of the server's `litmus/trace` request (`traceReply.ts`)
// → a view model → the webview's HTML and the execution graph's SVG. Plain functions, no
// `vscode` import, so that everything the webview shows is tested under node. The webview's own
// script only moves the highlighted step (it toggles classes the HTML already carries) and
// posts messages back. Step text is the server's, shown as it arrives.

import { layoutGraph as graphLayout, layoutNodes, type Placed } from './graphLayout';
import type { Graph, GraphEdge, Snapshot, TraceReply } from './traceReply';

export { TRACE_REQUEST, SHOW_TRACE, parseTrace } from './traceReply';
export type { Choice, Graph, GraphEdge, GraphNode, GraphWait, Pending, Snapshot, TraceEnd, TraceReply, TraceRow } from './traceReply';

// ---- view model ----------------------------------------------------------------------------

export interface MemoryCell {
  loc: string;
  value: number;
  /** Changed by this step. */
  changed: boolean;
}

export interface RowView {
  /** 1-based step number; 0 for the initial state. */
  n: number;
  /** The step's text in its thread's column (the server's `cell`), empty elsewhere. */
  cells: string[];
  /** The sentence for screen readers and the status line. */
  label: string;
  /** Per thread: its buffer after the step, oldest first, `x=1`. */
  buffers: string[][];
  memory: MemoryCell[];
  /** Source line of the step (0-based), for highlighting. */
  line?: number;
}

export interface ModelOption {
  model: string;
  label: string;
  selected: boolean;
}

export interface ViolationOption {
  index: number;
  title: string;
  selected: boolean;
}

export interface TraceView {
  heading: string;
  models: ModelOption[];
  violations: ViolationOption[];
  threads: string[];
  /** Whether the model has store buffers (TSO, PSO): their columns are shown. */
  buffered: boolean;
  rows: RowView[];
  /** How the execution ends, one line. */
  ending: string;
  /** The final state (registers, then memory), when it ends in one. */
  finalState: [string, number][];
}

const KIND_WORDS: Record<string, string> = {
  assert: 'assertion failure',
  condition: 'condition violation',
  error: 'runtime error',
  deadlock: 'deadlock',
  witness: 'witness',
};

function memoryCells(s: Snapshot, prev: Snapshot | undefined): MemoryCell[] {
  return s.memory.map(([loc, value], i) => ({ loc, value, changed: prev !== undefined && prev.memory[i]?.[1] !== value }));
}

function bufferText(s: Snapshot, threads: number): string[][] {
  return Array.from({ length: threads }, (_, t) => (s.buffers[t] ?? []).map((p) => `${p.loc}=${p.value}`));
}

/** The view model of one trace. */
export function traceView(t: TraceReply): TraceView {
  const nt = t.threads.length;
  const models = [...new Set(t.choices.map((c) => c.model))].map((m) => ({ model: m, label: m.toUpperCase(), selected: m === t.model }));
  const violations = t.choices
    .filter((c) => c.model === t.model)
    .map((c) => ({ index: c.index, title: c.title || KIND_WORDS[c.kind] || c.kind, selected: c.index === t.index }));
  const rows: RowView[] = [
    {
      n: 0,
      cells: t.threads.map(() => ''),
      label: 'initial state',
      buffers: bufferText(t.initial, nt),
      memory: memoryCells(t.initial, undefined),
    },
  ];
  let prev = t.initial;
  t.rows.forEach((r, i) => {
    rows.push({
      n: i + 1,
      cells: t.threads.map((_, th) => (th === r.thread ? r.cell : '')),
      label: r.label,
      buffers: bufferText(r.after, nt),
      memory: memoryCells(r.after, prev),
      line: r.range?.start.line,
    });
    prev = r.after;
  });
  let ending: string;
  switch (t.end.end) {
    case 'final':
      ending = t.kind === 'witness' ? 'Ends in a final state where the condition holds:' : 'Ends in a final state that falsifies the condition:';
      break;
    case 'violation':
      ending = `Ends at the ${KIND_WORDS[t.end.kind ?? ''] ?? 'violation'}: ${t.end.message ?? ''}`.trim();
      break;
    case 'blocked':
      ending = `Ends blocked (${t.end.reason ?? 'blocked'}).`;
      break;
    default:
      ending = 'The schedule stops while the execution could go on.';
  }
  return {
    heading: `${t.test}: ${KIND_WORDS[t.kind] ?? t.kind} under ${t.model.toUpperCase()} (${t.rows.length} steps)`,
    models,
    violations,
    threads: t.threads,
    buffered: t.model !== 'sc',
    rows,
    ending,
    finalState: t.end.state ?? [],
  };
}

// ---- HTML -----------------------------------------------------------------------------------

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

// The relations' colours are the theme's text colours (the debugger's token colours, git's
// modified-file colour), not `charts.*`, which the default Light and Dark Modern themes make 33%
// opaque: each stays at 3:1 or more against the editor background in the default light, dark
// and high-contrast themes (WCAG's bar for graphics; the browser test measures it).
export const STYLE = `
:root {
  --litmus-rf: var(--vscode-debugTokenExpression-error, var(--vscode-errorForeground));
  --litmus-co: var(--vscode-debugTokenExpression-boolean, var(--vscode-textLink-foreground));
  --litmus-fr: var(--vscode-gitDecoration-modifiedResourceForeground, var(--vscode-editorWarning-foreground));
  --litmus-rmw: var(--vscode-debugTokenExpression-name, var(--vscode-foreground));
}
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 12px; }
h1 { font-size: 1.15em; font-weight: 600; }
.bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
select, button { font: inherit; color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border, transparent); padding: 2px 6px; }
button { color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: 1px solid var(--vscode-button-border, transparent); }
button:hover { background: var(--vscode-button-hoverBackground); }
:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
table { width: 100%; }
th, td { border: 1px solid var(--vscode-panel-border, var(--vscode-contrastBorder, transparent)); padding: 2px 8px; text-align: left; vertical-align: top; }
th { white-space: nowrap; }
td:last-child span { white-space: nowrap; }
th { background: var(--vscode-editorWidget-background); }
tr.step { cursor: pointer; }
tr.step.current { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); outline: 1px solid var(--vscode-contrastActiveBorder, transparent); }
.buf { color: var(--litmus-fr); }
.changed { font-weight: bold; text-decoration: underline; }
.muted { color: var(--vscode-descriptionForeground); }
.final { margin: 8px 0; }
svg text { fill: var(--vscode-foreground); font-family: var(--vscode-editor-font-family); font-size: 12px; }
svg .node rect { fill: var(--vscode-editorWidget-background); stroke: var(--vscode-editorWidget-border, var(--vscode-foreground)); }
svg .node.current rect { stroke: var(--vscode-focusBorder); stroke-width: 3; }
svg .node.pending rect { stroke-dasharray: 4 2; }
svg .thread { font-weight: bold; }
svg .e-po { stroke: var(--vscode-foreground); } svg .e-po text { fill: var(--vscode-foreground); }
svg .e-rf { stroke: var(--litmus-rf); } svg .l-rf { fill: var(--litmus-rf); }
svg .e-co { stroke: var(--litmus-co); } svg .l-co { fill: var(--litmus-co); }
svg .e-fr { stroke: var(--litmus-fr); } svg .l-fr { fill: var(--litmus-fr); }
svg .e-rmw { stroke: var(--litmus-rmw); } svg .l-rmw { fill: var(--litmus-rmw); }
svg path { fill: none; stroke-width: 1.5; }
svg .e-wait { stroke: var(--vscode-errorForeground); stroke-dasharray: 6 3; } svg .l-wait { fill: var(--vscode-errorForeground); }
svg .edge.explains path { stroke-width: 2.5; }
.stale { position: sticky; top: 0; z-index: 10; margin: 0 -12px 8px; padding: 6px 12px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; color: var(--vscode-inputValidation-warningForeground, var(--vscode-foreground)); border: 1px solid var(--vscode-inputValidation-warningBorder, var(--vscode-contrastBorder, transparent));
  background: linear-gradient(var(--vscode-inputValidation-warningBackground, transparent), var(--vscode-inputValidation-warningBackground, transparent)), var(--vscode-editor-background); }
.stale[hidden] { display: none; }
body.stale #content { opacity: 0.45; }
body.stale tr.step { cursor: default; }
body.stale svg .node.current rect { stroke: var(--vscode-editorWidget-border, var(--vscode-foreground)); stroke-width: 1; }
svg .edge:not(.explains) text { display: none; }
.graph-bar { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
.graph-box { overflow: auto; max-height: 70vh; border: 1px solid var(--vscode-panel-border, transparent); cursor: grab; }
.graph-box.dragging { cursor: grabbing; }
.graph-box:not(.show-po) .edge.e-po:not(.explains), .graph-box:not(.show-rf) .edge.e-rf:not(.explains),
.graph-box:not(.show-co) .edge.e-co:not(.explains), .graph-box:not(.show-fr) .edge.e-fr:not(.explains),
.graph-box:not(.show-rmw) .edge.e-rmw:not(.explains) { display: none; }
.graph-box.show-labels .edge text { display: inline; }
`;

/** The webview's own script: moves the current step (buttons, keys, clicks) and tells the extension. */
/** The graph's relation toggles and zoom buttons (the trace view's and the axiomatic view's). */
export const GRAPH_SCRIPT = `
const box = document.getElementById('graph-box');
const svg = box && box.querySelector('svg');
document.querySelectorAll('input[data-show]').forEach((c) => {
  const apply = () => box.classList.toggle('show-' + c.dataset.show, c.checked);
  c.addEventListener('change', apply);
  apply();
});
let zoom = 1;
const baseW = svg ? Number(svg.getAttribute('width')) : 0;
const baseH = svg ? Number(svg.getAttribute('height')) : 0;
function setZoom(z) {
  zoom = Math.max(0.25, Math.min(4, z));
  if (svg) { svg.setAttribute('width', String(baseW * zoom)); svg.setAttribute('height', String(baseH * zoom)); }
  const zl = document.getElementById('zoom-level');
  if (zl) zl.textContent = Math.round(zoom * 100) + '%';
}
for (const [id, f] of [['zoom-in', () => zoom * 1.25], ['zoom-out', () => zoom / 1.25], ['zoom-fit', () => (box.clientWidth - 4) / baseW], ['zoom-reset', () => 1]]) {
  const b = document.getElementById(id);
  if (b) b.addEventListener('click', () => setZoom(f()));
}
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
const rows = [...document.querySelectorAll('tr.step')];
const status = document.getElementById('status');
let cur = Number(document.body.dataset.current || 0);
// Out of date (the file changed since the trace was made): the banner stays in view, the rest
// is dimmed and stepping stops, so the old counterexample cannot pass for the file's. Kept in
// the webview's state, so a panel hidden and shown again stays marked.
let stale = false;
const render = document.body.dataset.render;
function markStale(text) {
  stale = true;
  document.body.classList.add('stale');
  document.getElementById('stale-text').textContent = text;
  document.getElementById('stale').hidden = false;
  for (const id of ['prev', 'next', 'model', 'violation']) { const b = document.getElementById(id); if (b) b.disabled = true; }
  document.getElementById('steps').setAttribute('aria-disabled', 'true');
  status.textContent = '';
  vscode.setState({ render, cur, stale: text });
}
function show(i, focus) {
  if (stale) return;
  cur = Math.max(0, Math.min(rows.length - 1, i));
  rows.forEach((r, k) => { r.classList.toggle('current', k === cur); r.setAttribute('aria-selected', String(k === cur)); r.tabIndex = k === cur ? 0 : -1; });
  document.querySelectorAll('svg .node').forEach((n) => n.classList.toggle('current', n.dataset.step === String(cur - 1)));
  status.textContent = rows[cur].dataset.label;
  if (focus) rows[cur].focus();
  rows[cur].scrollIntoView({ block: 'nearest' });
  vscode.postMessage({ type: 'step', step: cur });
  vscode.setState({ render, cur });
}
document.getElementById('prev').addEventListener('click', () => show(cur - 1, false));
document.getElementById('next').addEventListener('click', () => show(cur + 1, false));
rows.forEach((r, k) => r.addEventListener('click', () => show(k, true)));
document.getElementById('steps').addEventListener('keydown', (e) => {
  const to = { ArrowDown: cur + 1, ArrowUp: cur - 1, j: cur + 1, k: cur - 1, Home: 0, End: rows.length - 1 }[e.key];
  if (to !== undefined) { e.preventDefault(); show(to, true); }
});
document.addEventListener('keydown', (e) => {
  if (stale || e.target instanceof HTMLSelectElement) return;
  if (e.key === 'n') show(cur + 1, true); else if (e.key === 'p') show(cur - 1, true);
});
for (const id of ['model', 'violation']) {
  const s = document.getElementById(id);
  if (s) s.addEventListener('change', () => vscode.postMessage({ type: 'select', model: document.getElementById('model').value, index: id === 'model' ? 0 : Number(document.getElementById('violation').value) }));
}
window.addEventListener('message', (e) => {
  const m = e.data || {};
  if (m.type === 'stale') markStale(m.text);
});
document.getElementById('rerun').addEventListener('click', () => vscode.postMessage({ type: 'rerun' }));
${GRAPH_SCRIPT}if (box) {
  box.addEventListener('wheel', (e) => { if (e.ctrlKey || e.metaKey) { e.preventDefault(); setZoom(zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1)); } }, { passive: false });
  let drag;
  box.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY, l: box.scrollLeft, t: box.scrollTop }; box.classList.add('dragging'); });
  window.addEventListener('mousemove', (e) => { if (drag) { box.scrollLeft = drag.l - (e.clientX - drag.x); box.scrollTop = drag.t - (e.clientY - drag.y); } });
  window.addEventListener('mouseup', () => { drag = undefined; box.classList.remove('dragging'); });
}
const saved = vscode.getState();
if (saved && saved.render === render) {
  show(typeof saved.cur === 'number' ? saved.cur : cur, false);
  if (saved.stale) markStale(saved.stale);
} else show(cur, false);
`;

export interface HtmlOptions {
  /** The webview's `cspSource`. */
  cspSource: string;
  /** A fresh nonce for the script. */
  nonce: string;
  /** The step shown first (0 = the initial state). */
  current?: number;
  /** Tells one rendering from the next (the webview's saved state belongs to one). */
  render?: string;
}

/** The whole webview page: selectors, stepping buttons, the table, the final state, the graph. */
export function traceHtml(v: TraceView, g: Graph, o: HtmlOptions): string {
  const e = escapeHtml;
  const current = Math.max(0, Math.min(v.rows.length - 1, o.current ?? 0));
  const modelSelect = `<label>Model <select id="model" aria-label="Memory model">${v.models
    .map((m) => `<option value="${e(m.model)}"${m.selected ? ' selected' : ''}>${e(m.label)}</option>`)
    .join('')}</select></label>`;
  const violationSelect = `<label>Counterexample <select id="violation" aria-label="Counterexample">${v.violations
    .map((c) => `<option value="${c.index}"${c.selected ? ' selected' : ''}>${e(c.title)}</option>`)
    .join('')}</select></label>`;
  const head = [
    '<th scope="col">#</th>',
    ...v.threads.map((t) => `<th scope="col">${e(t)}${v.buffered ? ' <span class="muted">(buffer)</span>' : ''}</th>`),
    '<th scope="col">memory</th>',
  ].join('');
  const body = v.rows
    .map((r, i) => {
      // Each thread's column: its step, and under it what waits in its buffer after the step.
      const cells = r.cells
        .map((c, t) => {
          const b = v.buffered ? r.buffers[t] ?? [] : [];
          const buf = b.length ? `<div class="buf" aria-label="${e(v.threads[t])} buffer">buffer: ${e(b.join(', '))}</div>` : '';
          return `<td>${e(c)}${buf}</td>`;
        })
        .join('');
      const mem = r.memory.map((m) => `<span${m.changed ? ' class="changed"' : ''}>${e(m.loc)}=${m.value}</span>`).join(' ');
      const line = r.line === undefined ? '' : ` data-line="${r.line}"`;
      return `<tr class="step${i === current ? ' current' : ''}" role="row" aria-selected="${i === current}" tabindex="${i === current ? 0 : -1}" data-label="${e(
        r.n === 0 ? 'initial state' : `${r.n}. ${r.label}`,
      )}"${line}><th scope="row">${r.n === 0 ? 'init' : r.n}</th>${cells}<td>${mem}</td></tr>`;
    })
    .join('\n');
  const final = v.finalState.length ? `<p class="final"><code>${e(v.finalState.map(([k, x]) => `${k}=${x}`).join('; '))}</code></p>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${o.cspSource} 'unsafe-inline'; script-src 'nonce-${o.nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${e(v.heading)}</title>
<style>${STYLE}</style>
</head>
<body data-current="${current}" data-render="${e(o.render ?? o.nonce)}">
<div id="stale" class="stale" role="alert" hidden><span id="stale-text"></span><button id="rerun" title="Check the file again now (Litmus: Verify Now)">Re-run check</button></div>
<div id="content">
<h1>${e(v.heading)}</h1>
<div class="bar">${modelSelect}${violationSelect}
<button id="prev" title="Previous step (p, ↑)">◀ Previous</button><button id="next" title="Next step (n, ↓)">Next ▶</button></div>
<p id="status" role="status" aria-live="polite" class="muted"></p>
<table id="steps" role="grid" aria-label="Steps, one column per thread, with store buffers and memory after each step">
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
<h2>Final state</h2>
<p>${e(v.ending)}</p>
${final}
<h2>Execution graph</h2>
${graphControls(g)}
<div id="graph-box" class="graph-box${[...shownByDefault(g)].map((k) => ` show-${k}`).join('')}">
${graphSvg(g)}
</div>
</div>
<script nonce="${o.nonce}">${SCRIPT}</script>
</body>
</html>`;
}

// ---- SVG ------------------------------------------------------------------------------------

export type { Placed } from './graphLayout';

const EDGE_WORDS: Record<GraphEdge['kind'], string> = {
  po: 'program order',
  rf: 'reads-from',
  co: 'coherence',
  fr: 'from-read',
  rmw: 'atomic update',
};

/**
 * The edges drawn before any toggle: those on a cycle (what makes the execution impossible
 * under SC), and when there is none (a violation SC has too) the reads-from edges; program
 * order and atomic updates always (they are the threads' structure).
 */
export function shownByDefault(g: Graph): Set<GraphEdge['kind']> {
  const s = new Set<GraphEdge['kind']>(['po', 'rmw']);
  if (!g.edges.some((e) => e.explains)) s.add('rf');
  return s;
}

/** The graph's toolbar: a toggle per relation (with how many edges it has), zoom buttons. */
export function graphControls(g: Graph): string {
  const on = shownByDefault(g);
  const cyc = g.edges.filter((e) => e.explains).length;
  const lead = cyc
    ? `<p class="muted">Bold: the ${cyc} edges of a cycle of program order, reads-from, coherence and from-read — no SC execution has one, which is why this happens only under a relaxed model. Other edges behind the toggles.</p>`
    : g.waits?.length
      ? '<p class="muted">Dashed: who waits for whom. A cycle of waits is the deadlock.</p>'
      : '<p class="muted">No cycle: SC allows this execution too. Reads-from and program order are shown; the other relations behind the toggles.</p>';
  const toggles = (['po', 'rf', 'co', 'fr', 'rmw'] as const)
    .map((k) => {
      const n = g.edges.filter((e) => e.kind === k).length;
      return `<label title="${EDGE_WORDS[k]}"><input type="checkbox" data-show="${k}"${on.has(k) ? ' checked' : ''}${n ? '' : ' disabled'}> ${k} (${n})</label>`;
    })
    .join('');
  return `${lead}<div class="graph-bar" role="toolbar" aria-label="Graph">${toggles}<label><input type="checkbox" data-show="labels"> all labels</label>
<button id="zoom-out" title="Zoom out (Ctrl+wheel)">−</button><span id="zoom-level">100%</span><button id="zoom-in" title="Zoom in (Ctrl+wheel)">+</button><button id="zoom-fit" title="Fit the width">Fit</button><button id="zoom-reset" title="Actual size">1:1</button><span class="muted">drag to pan</span></div>`;
}

/**
 * Where each event goes: the initial writes in a row at the top, then one column per thread
 * with its events in program order below, as herd draws executions (`graphLayout.ts`).
 */
export function layoutGraph(g: Graph): Placed[] {
  return layoutNodes(g).placed;
}

/** The execution graph as an inline SVG (no network, theme colours through CSS classes). */
export function graphSvg(g: Graph): string {
  const e = escapeHtml;
  const l = graphLayout(g);
  const headers = l.headers.map((h) => `<text class="thread" x="${h.x}" y="${h.y}">${e(h.text)}</text>`).join('');
  const markers = ['po', 'rf', 'co', 'fr', 'rmw', 'wait']
    .map((k) => `<marker id="arrow-${k}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="e-${k} l-${k}" d="M0,0 L10,5 L0,10 z"/></marker>`)
    .join('');
  const at = new Map(l.nodes.map((p) => [p.node.id, p]));
  const edges = l.edges
    .map(({ edge: ed, d, lx, ly }) => {
      const from = at.get(ed.from)!.text;
      const to = at.get(ed.to)!.text;
      return `<g class="edge e-${ed.kind}${ed.explains ? ' explains' : ''}" data-kind="${ed.kind}" data-from="${ed.from}" data-to="${ed.to}"><title>${e(`${ed.kind} (${EDGE_WORDS[ed.kind]}): ${from} → ${to}`)}</title><path class="e-${ed.kind}" d="${d}" marker-end="url(#arrow-${ed.kind})"/><text class="l-${ed.kind}" x="${lx.toFixed(1)}" y="${ly.toFixed(1)}">${ed.kind}</text></g>`;
    })
    .join('\n');
  const waits = l.waits
    .map((w) => {
      const text = `<text class="l-wait" x="${w.lx}" y="${w.ly}">${e(w.text)}</text>`;
      if (!w.d) return `<g class="wait">${text}</g>`;
      return `<g class="wait" data-thread="${w.thread}"><title>${e(w.text)}</title><path class="e-wait" d="${w.d}" marker-end="url(#arrow-wait)"/>${text}</g>`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Execution graph: ${g.nodes.length} events, ${g.edges.length} edges" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}">
<defs>${markers}</defs>
${headers}
${edges}
${waits}
${nodes(l.nodes)}
</svg>`;
}

function nodes(placed: Placed[]): string {
  const e = escapeHtml;
  return placed
    .map((p) => {
      const n = p.node;
      const cls = `node${n.pending ? ' pending' : ''}`;
      const step = n.step === null ? '' : ` data-step="${n.step}"`;
      return `<g class="${cls}" data-id="${n.id}"${step}><title>${e(n.pending ? `${p.text} (still buffered)` : p.text)}</title><rect x="${p.x}" y="${p.y}" width="${p.w}" height="${p.h}" rx="4"/><text x="${p.tx}" y="${p.ty}">${e(p.text)}</text></g>`;
    })
    .join('\n');
}
