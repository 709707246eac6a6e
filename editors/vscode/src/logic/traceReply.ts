// The reply of the server's `litmus/trace` request (issue 31): its types and the validation
// that turns whatever arrived into them. The server writes every step's text (`label`, the
// sentence; `cell`, the step in its thread's column): the view shows these strings and renders
// no step itself. No `vscode` import: tested under node.

import { Range } from './schedule';

export const TRACE_REQUEST = 'litmus/trace';
export const SHOW_TRACE = 'litmus.showTrace';

export interface Pending {
  loc: string;
  value: number;
  range?: Range;
}

export interface Snapshot {
  memory: [string, number][];
  /** Per thread, the stores still waiting, oldest first (PSO: by location). */
  buffers: Pending[][];
  registers: [string, number][][];
}

export interface TraceRow {
  thread: number;
  action: string;
  loc: string | null;
  value: number | null;
  buffered: boolean;
  /** The step as a sentence, the server's (`P1 reads x = 0 from memory (…)`). */
  label: string;
  /** The step in its thread's column, the server's (`read x = 0`, `x = 1 → buffer`, `lock m`). */
  cell: string;
  text: string;
  range?: Range;
  after: Snapshot;
}

export interface Choice {
  model: string;
  index: number;
  kind: string;
  title: string;
}

export interface GraphNode {
  id: number;
  name: string;
  kind: string;
  thread: number | null;
  label: string;
  pending: boolean;
  step: number | null;
}

export interface GraphEdge {
  from: number;
  to: number;
  kind: 'po' | 'rf' | 'co' | 'fr' | 'rmw';
  /** On a cycle of the graph: part of what explains a violation SC does not have. */
  explains?: boolean;
}

/** A deadlock's wait: `thread` waits for `mutex`, held by `holder` since its lock event `lock`. */
export interface GraphWait {
  thread: number;
  mutex: string | null;
  holder: number | null;
  lock: number | null;
}

export interface Graph {
  threads: string[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  waits?: GraphWait[];
}

export interface TraceEnd {
  end: 'final' | 'violation' | 'blocked' | 'running';
  state?: [string, number][];
  kind?: string;
  message?: string;
  reason?: string;
}

/** Reply of `litmus/trace` (see `lsp/src/server/trace.rs`). */
export interface TraceReply {
  uri: string;
  test: string;
  model: string;
  index: number;
  kind: string;
  title: string;
  message: string;
  choices: Choice[];
  threads: string[];
  locations: string[];
  initial: Snapshot;
  rows: TraceRow[];
  end: TraceEnd;
  graph: Graph;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown, d = ''): string {
  return typeof v === 'string' ? v : d;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function pairs(v: unknown): [string, number][] {
  return arr(v).flatMap((p) => (Array.isArray(p) && typeof p[0] === 'string' && num(p[1]) !== null ? [[p[0], p[1] as number] as [string, number]] : []));
}

function range(v: unknown): Range | undefined {
  if (!isObj(v) || !isObj(v.start) || !isObj(v.end)) return undefined;
  const n = [v.start.line, v.start.character, v.end.line, v.end.character].map(num);
  if (n.some((x) => x === null || x < 0)) return undefined;
  return { start: { line: n[0]!, character: n[1]! }, end: { line: n[2]!, character: n[3]! } };
}

function snapshot(v: unknown): Snapshot {
  const o = isObj(v) ? v : {};
  return {
    memory: pairs(o.memory),
    buffers: arr(o.buffers).map((b) =>
      arr(b).flatMap((p) => (isObj(p) && typeof p.loc === 'string' && num(p.value) !== null ? [{ loc: p.loc, value: p.value as number, range: range(p.range) }] : [])),
    ),
    registers: arr(o.registers).map(pairs),
  };
}

const EDGE_KINDS = ['po', 'rf', 'co', 'fr', 'rmw'] as const;

/** Validates a `litmus/trace` reply; `null` (nothing to show) and malformed replies give `undefined`. */
export function parseTrace(raw: unknown): TraceReply | undefined {
  if (!isObj(raw) || !Array.isArray(raw.rows) || !Array.isArray(raw.threads)) return undefined;
  const threads = raw.threads.map((t) => str(t));
  const rows: TraceRow[] = [];
  for (const r of raw.rows) {
    if (!isObj(r)) continue;
    const thread = num(r.thread);
    if (thread === null || thread < 0 || thread >= threads.length) continue;
    rows.push({
      thread,
      action: str(r.action),
      loc: typeof r.loc === 'string' ? r.loc : null,
      value: num(r.value),
      buffered: r.buffered === true,
      label: str(r.label),
      // A server before `cell` sent only the sentence.
      cell: str(r.cell, str(r.label)),
      text: str(r.text),
      range: range(r.range),
      after: snapshot(r.after),
    });
  }
  const g = isObj(raw.graph) ? raw.graph : {};
  const nodes: GraphNode[] = arr(g.nodes).flatMap((n, i) =>
    isObj(n)
      ? [
          {
            id: i,
            name: str(n.name),
            kind: str(n.kind),
            thread: num(n.thread),
            label: str(n.label),
            pending: n.pending === true,
            step: num(n.step),
          },
        ]
      : [],
  );
  const edges: GraphEdge[] = arr(g.edges).flatMap((e) => {
    if (!isObj(e)) return [];
    const from = num(e.from);
    const to = num(e.to);
    const kind = EDGE_KINDS.find((k) => k === e.kind);
    if (from === null || to === null || !kind || from >= nodes.length || to >= nodes.length) return [];
    return [e.explains === true ? { from, to, kind, explains: true } : { from, to, kind }];
  });
  const threadCount = arr(g.threads).length;
  const waits: GraphWait[] = arr(g.waits).flatMap((w) => {
    if (!isObj(w)) return [];
    const thread = num(w.thread);
    if (thread === null || thread >= threadCount) return [];
    const holder = num(w.holder);
    const lock = num(w.lock);
    return [
      {
        thread,
        mutex: typeof w.mutex === 'string' ? w.mutex : null,
        holder: holder !== null && holder < threadCount ? holder : null,
        lock: lock !== null && lock < nodes.length ? lock : null,
      },
    ];
  });
  const end = isObj(raw.end) ? raw.end : {};
  const endKind = (['final', 'violation', 'blocked', 'running'] as const).find((k) => k === end.end) ?? 'running';
  return {
    uri: str(raw.uri),
    test: str(raw.test),
    model: str(raw.model),
    index: num(raw.index) ?? 0,
    kind: str(raw.kind),
    title: str(raw.title),
    message: str(raw.message),
    choices: arr(raw.choices).flatMap((c) =>
      isObj(c) && typeof c.model === 'string' && num(c.index) !== null
        ? [{ model: c.model, index: c.index as number, kind: str(c.kind), title: str(c.title) }]
        : [],
    ),
    threads,
    locations: arr(raw.locations).map((l) => str(l)),
    initial: snapshot(raw.initial),
    rows,
    end: {
      end: endKind,
      state: end.state === undefined ? undefined : pairs(end.state),
      kind: typeof end.kind === 'string' ? end.kind : undefined,
      message: typeof end.message === 'string' ? end.message : undefined,
      reason: typeof end.reason === 'string' ? end.reason : undefined,
    },
    graph: { threads: arr(g.threads).map((t) => str(t)), nodes, edges, ...(waits.length ? { waits } : {}) },
  };
}
