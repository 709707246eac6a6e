// The `litmus/status` notification and the status bar text made from it. No `vscode` import.

import { MODEL_ORDER, ModelName } from './settings';

export type Verdict = 'holds' | 'fails' | 'incomplete' | 'running';
export type RunState = 'running' | 'done' | 'cancelled';

/** Server → client notification `litmus/status` (see the protocol contract). */
export interface StatusParams {
  uri: string;
  version: number;
  state: RunState;
  verdicts: Partial<Record<ModelName, Verdict>>;
}

export const STATUS_NOTIFICATION = 'litmus/status';

const VERDICTS: readonly Verdict[] = ['holds', 'fails', 'incomplete', 'running'];
const STATES: readonly RunState[] = ['running', 'done', 'cancelled'];

/** Validates a notification's params; anything malformed is `undefined` (and ignored). */
export function parseStatus(raw: unknown): StatusParams | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.uri !== 'string' || typeof r.version !== 'number') return undefined;
  if (!STATES.includes(r.state as RunState)) return undefined;
  const verdicts: Partial<Record<ModelName, Verdict>> = {};
  if (typeof r.verdicts === 'object' && r.verdicts !== null) {
    const v = r.verdicts as Record<string, unknown>;
    for (const m of MODEL_ORDER) {
      if (VERDICTS.includes(v[m] as Verdict)) verdicts[m] = v[m] as Verdict;
    }
  }
  return { uri: r.uri, version: r.version, state: r.state as RunState, verdicts };
}

const SYMBOL: Record<Verdict, string> = {
  holds: '✓',
  fails: '✗',
  incomplete: '?',
  running: '…',
};

const WORDS: Record<Verdict, string> = {
  holds: 'every assertion and condition holds',
  fails: 'violation found',
  incomplete: 'exploration incomplete (timeout or loop bound), no violation found',
  running: 'checking…',
};

export interface StatusView {
  /** Status bar text; may hold `$(codicon)` references. */
  text: string;
  /** Plain-text tooltip, one model a line. */
  tooltip: string;
  /** `error` when some model fails, `warning` when one is incomplete, else `none`. */
  severity: 'error' | 'warning' | 'none';
}

/** `SC ✓ · TSO ✗ · PSO ✗`, the same words as the server's code lens. */
export function verdictSummary(verdicts: Partial<Record<ModelName, Verdict>>): string {
  return MODEL_ORDER.filter((m) => verdicts[m] !== undefined)
    .map((m) => `${m.toUpperCase()} ${SYMBOL[verdicts[m] as Verdict]}`)
    .join(' · ');
}

export function formatStatus(s: StatusParams): StatusView {
  const summary = verdictSummary(s.verdicts);
  const icon = s.state === 'running' ? '$(sync~spin)' : s.state === 'cancelled' ? '$(circle-slash)' : '$(beaker)';
  let text = `${icon} ${summary || 'litmus'}`;
  if (s.state === 'cancelled') text += ' (cancelled)';
  const lines = MODEL_ORDER.filter((m) => s.verdicts[m] !== undefined).map(
    (m) => `${m.toUpperCase()}: ${WORDS[s.verdicts[m] as Verdict]}`,
  );
  if (s.state === 'running') lines.push('Verification is running.');
  if (s.state === 'cancelled') lines.push('Verification was cancelled (the file changed).');
  const values = Object.values(s.verdicts);
  const severity = values.includes('fails') ? 'error' : values.includes('incomplete') ? 'warning' : 'none';
  return { text, tooltip: lines.join('\n') || 'litmus', severity };
}

/**
 * The latest status per document. Notifications can arrive out of order with respect to edits
 * (an analysis of version 3 finishing after version 4 started), so an older version never
 * replaces a newer one.
 */
export class StatusStore {
  private readonly byUri = new Map<string, StatusParams>();

  /** Records `s` under `key` (a normalized uri); false when it was stale and dropped. */
  update(key: string, s: StatusParams): boolean {
    const old = this.byUri.get(key);
    if (old !== undefined && s.version < old.version) return false;
    this.byUri.set(key, s);
    return true;
  }

  get(key: string): StatusParams | undefined {
    return this.byUri.get(key);
  }

  delete(key: string): void {
    this.byUri.delete(key);
  }
}
