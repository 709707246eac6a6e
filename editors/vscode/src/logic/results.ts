// The `litmus/results` notification (one per finished check of a document: the server's
// `results.rs`), the history of a session's runs per document, and the results view's rows and
// table made from them. The Testing items of a checked document take their results from the
// same notification (`serverItemResults`), so the gutter always shows the last finished run.
// No `vscode` import: unit-tested under node.

import { CliFile, fileResults, ItemResult } from './testResults';
import { FileNode, Model } from './testTree';

export const RESULTS_NOTIFICATION = 'litmus/results';

/** One model's line of a finished check (server: `results.rs`). */
export interface ModelRow {
  /** `sc`, `tso`, `pso`, `aarch64`, ... */
  model: string;
  /** `SC`, `aarch64.cat (litmus)`. */
  label: string;
  /** The whole test's verdict: `holds`, `fails`, `incomplete`. */
  verdict: string;
  /** The lens's mark: ✓ ✗ ? ⚠ –. */
  mark: string;
  /** The lens's words: `TSO ✗ (implied by SC)`, `aarch64.cat (litmus) ✓ No`. */
  title: string;
  implied_by?: string | null;
  /** herd's answer to an `exists` condition: `Ok`, `No`, or `?` (not decided). */
  exists?: string;
  engine?: string | null;
  executions?: number;
  states?: number | null;
  time_ms?: number;
  /** `complete`, `bounded` (complete up to the loop bound) or `stopped`. */
  completeness?: string;
  /** Why a check stopped, or what bounded it. */
  why?: string;
  /** The condition was not decided: the check stopped before a state settled it. */
  undecided?: boolean;
}

export interface ResultsParams {
  uri: string;
  version: number;
  /** `done`, or `cancelled` (the check was stopped; what it found is kept). */
  state: string;
  models: ModelRow[];
  /** The document's entry of `litmus check --json` for the results shown. */
  file: CliFile | null;
}

const str = (x: unknown): x is string => typeof x === 'string';
const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Validates a notification's params; anything malformed is `undefined` (and ignored). */
export function parseResults(raw: unknown): ResultsParams | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (!str(r.uri) || !num(r.version) || !str(r.state) || !Array.isArray(r.models)) return undefined;
  const models: ModelRow[] = [];
  for (const x of r.models) {
    if (typeof x !== 'object' || x === null) continue;
    const m = x as Record<string, unknown>;
    if (!str(m.model) || !str(m.verdict)) continue;
    const row: ModelRow = {
      model: m.model,
      label: str(m.label) ? m.label : m.model.toUpperCase(),
      verdict: m.verdict,
      mark: str(m.mark) ? m.mark : '?',
      title: str(m.title) ? m.title : `${str(m.label) ? m.label : m.model} ${str(m.mark) ? m.mark : '?'}`,
    };
    if (str(m.implied_by)) row.implied_by = m.implied_by;
    if (str(m.exists)) row.exists = m.exists;
    if (str(m.engine)) row.engine = m.engine;
    if (num(m.executions)) row.executions = m.executions;
    if (num(m.states)) row.states = m.states;
    if (num(m.time_ms)) row.time_ms = m.time_ms;
    if (str(m.completeness)) row.completeness = m.completeness;
    if (str(m.why)) row.why = m.why;
    if (m.undecided === true) row.undecided = true;
    models.push(row);
  }
  const f = r.file as { results?: unknown; diagnostics?: unknown } | null | undefined;
  const file = f && typeof f === 'object' && typeof f.results === 'object' && f.results !== null && Array.isArray(f.diagnostics) ? (r.file as CliFile) : null;
  return { uri: r.uri, version: r.version, state: r.state, models, file };
}

/** A finished check as the history keeps it. */
export interface Run {
  /** When the notification arrived (ms since the epoch). */
  at: number;
  version: number;
  state: string;
  models: ModelRow[];
}

function sameRun(r: Run, p: ResultsParams): boolean {
  return r.version === p.version && r.state === p.state && JSON.stringify(r.models) === JSON.stringify(p.models);
}

/** How many runs a document keeps (the newest first; older ones are dropped). */
export const HISTORY_CAP = 20;

/**
 * The runs of this session per document, newest first, at most `cap` each. A notification
 * for an older version than the newest kept one arrives late (a check of version 3 finishing
 * after version 4's) and is not recorded; one that repeats the newest run (same version, state
 * and rows: an answer from the server's cache) replaces it.
 */
export class ResultsHistory {
  private readonly byUri = new Map<string, Run[]>();

  constructor(private readonly cap = HISTORY_CAP) {}

  /** Records a run under `key` (a normalized uri); false when it was stale and dropped. */
  record(key: string, p: ResultsParams, at: number): boolean {
    const runs = this.byUri.get(key) ?? [];
    if (runs.length > 0 && p.version < runs[0].version) return false;
    // the same answer again (a save answered from the cache after an edit was): one run, its time the latest
    if (runs.length > 0 && sameRun(runs[0], p)) runs.shift();
    runs.unshift({ at, version: p.version, state: p.state, models: p.models });
    if (runs.length > this.cap) runs.length = this.cap;
    this.byUri.set(key, runs);
    return true;
  }

  /** The runs of a document, newest first. */
  runs(key: string): readonly Run[] {
    return this.byUri.get(key) ?? [];
  }

  delete(key: string): void {
    this.byUri.delete(key);
  }
}

/** `1,234` */
function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `0.4 ms`, `12 ms`, `1.25 s`. */
export function duration(ms: number): string {
  if (ms < 10) return `${(Math.round(ms * 10) / 10).toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** `complete`, `complete up to the loop bound`, `stopped: cancelled before the end`. */
export function completenessText(r: ModelRow): string {
  if (r.completeness === 'complete') return 'complete';
  if (r.completeness === 'bounded') return 'complete up to the loop bound';
  if (r.completeness === 'stopped') return `stopped${r.why ? `: ${r.why}` : ''}`;
  return '–';
}

/** The columns of the results table, in order. */
export const COLUMNS = ['model', 'verdict', 'engine', 'executions', 'states', 'time', 'completeness'] as const;

/** One model's cells, in `COLUMNS` order (`–` where the server gave no number). */
export function rowCells(r: ModelRow): string[] {
  const verdict = `${r.mark}${r.exists && r.exists !== r.mark ? ` ${r.exists}` : ''}${r.implied_by ? ` (implied by ${r.implied_by.toUpperCase()})` : ''}${r.undecided ? ' (condition not decided)' : ''}`;
  return [
    r.label,
    verdict,
    r.engine ?? '–',
    r.executions === undefined ? '–' : count(r.executions),
    r.states === undefined || r.states === null ? '–' : count(r.states),
    r.time_ms === undefined ? '–' : duration(r.time_ms),
    completenessText(r),
  ];
}

/** `02:41:07`, local time. */
export function clock(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** A run in one line: `SC ✓ · TSO ✗ · PSO ✗`, with `(cancelled)` after a stopped check. */
export function runSummary(run: Run): string {
  const s = run.models.map((m) => `${m.label} ${m.mark}${m.exists && m.exists !== m.mark ? ` ${m.exists}` : ''}`).join(' · ');
  return `${s || 'no model checked'}${run.state === 'cancelled' ? ' (cancelled)' : ''}`;
}

/** A run's heading: `02:41:07 · version 4 · SC ✓ · TSO ✗ · PSO ✗`. */
export function runHeading(run: Run): string {
  return `${clock(run.at)} · version ${run.version} · ${runSummary(run)}`;
}

/** A model's row in the tree view: the lens's words, then the numbers. */
export function rowDescription(r: ModelRow): string {
  const [, , engine, executions, states, time, complete] = rowCells(r);
  const parts: string[] = [];
  if (engine !== '–') parts.push(engine);
  if (executions !== '–') parts.push(`${executions} executions`);
  if (states !== '–') parts.push(`${states} states`);
  if (time !== '–') parts.push(time);
  parts.push(complete);
  return parts.join(' · ');
}

/** A model's row's tooltip: every column named, one a line. */
export function rowTooltip(r: ModelRow): string {
  const cells = rowCells(r);
  const lines = [r.title, ...COLUMNS.slice(1).map((c, i) => `${c}: ${cells[i + 1]}`)];
  if (r.exists) lines.push(`exists: ${r.exists === 'Ok' ? 'Ok, some execution reaches the state' : r.exists === 'No' ? 'No, no execution reaches the state' : 'not decided'}`);
  return lines.join('\n');
}

/** The runs as a text table (newest first): each run's heading, then one row per model. */
export function resultsTable(runs: readonly Run[]): string[] {
  const out: string[] = [];
  runs.forEach((run, i) => {
    if (i === 1) out.push('', 'Previous runs');
    out.push(`${i === 0 ? 'Last run' : '-'} ${runHeading(run)}`);
    const rows = [COLUMNS.map(String), ...run.models.map(rowCells)];
    const widths = COLUMNS.map((_, c) => Math.max(...rows.map((r) => [...r[c]].length)));
    for (const r of rows) out.push(`  ${r.map((cell, c) => cell + ' '.repeat(widths[c] - [...cell].length)).join('  ').trimEnd()}`);
  });
  return out;
}

/**
 * The Testing results of a document's items from a finished check: the same rules as a
 * catalogue run (`fileResults`), over the models the server checked, and the condition items
 * of a stopped check that did not decide the condition saying so. `undefined` when the
 * notification has no file entry.
 */
export function serverItemResults(tree: FileNode, p: ResultsParams): ItemResult[] | undefined {
  if (!p.file) return undefined;
  const broken = p.file.diagnostics.some((d) => d.severity === 'error');
  const models = broken ? tree.models : tree.models.filter((m) => p.file!.results[m as Model] !== undefined);
  const out = fileResults(tree, models, p.file);
  for (const r of out) {
    const model = r.id.slice(r.id.lastIndexOf('/') + 1) as Model;
    const check = tree.children.find((c) => r.id === `${c.id}/${model}`);
    if (!check || check.kind !== 'condition' || r.outcome !== 'errored') continue;
    const rep = p.file.results[model];
    const cond = rep?.condition as { decided?: boolean } | null | undefined;
    if (cond && cond.decided === false) {
      const why = rep!.warnings.map((w) => w.message).filter((m) => m !== '');
      r.messages = [{ text: `${model.toUpperCase()}: the condition is not decided: the check stopped before a state settled it${why.length ? ` (${why.join('; ')})` : ''}`, range: check.range }];
    }
  }
  return out;
}

/** What a model item of the Testing view says beside its name: herd's answer, or why it stopped. */
export function itemDescription(r: ModelRow | undefined, kind: 'assert' | 'condition'): string | undefined {
  if (!r) return undefined;
  if (kind === 'condition' && r.exists) return r.exists === '?' ? 'not decided' : r.exists;
  if (r.completeness === 'stopped') return r.undecided && kind === 'condition' ? 'not decided' : 'stopped';
  return undefined;
}
