// The `litmus/status` notification and the status bar text made from it. No `vscode` import.

import { MODEL_ORDER } from './settings';

/** A model a status can name: the operational ones, and AArch64's and RISC-V's axiomatic models. */
export type ModelName = 'sc' | 'tso' | 'pso' | 'aarch64' | 'riscv' | 'ppc' | 'arm' | 'c';
/** The order verdicts are shown in. */
export const STATUS_MODELS: readonly ModelName[] = [...MODEL_ORDER, 'aarch64', 'riscv', 'ppc', 'arm', 'c'];

/** `SC`, `TSO`, `PSO`; `aarch64.cat`, `riscv.cat`. */
function label(m: ModelName): string {
  // herd's C tests: `C ✓` (the answer agrees with the test's `Result:` header)
  if (m === 'c') return 'C';
  return m === 'aarch64' || m === 'riscv' || m === 'ppc' || m === 'arm' ? `${m}.cat` : m.toUpperCase();
}

export type Verdict = 'holds' | 'fails' | 'incomplete' | 'running';
export type RunState = 'running' | 'queued' | 'done' | 'cancelled';

/** Server → client notification `litmus/status` (see the protocol contract). */
export interface StatusParams {
  uri: string;
  version: number;
  state: RunState;
  verdicts: Partial<Record<ModelName, Verdict>>;
  /** Models whose verdict is implied by another's (`{tso: 'sc'}`: every SC execution is a TSO one). */
  implied?: Partial<Record<ModelName, ModelName>>;
  /** The `exists` answers (herd's Ok / No), when the test has an `exists` condition. */
  exists?: Partial<Record<ModelName, 'ok' | 'no' | 'unknown'>>;
  /** The server's tooltip: one line per model, the `exists` answers, the legend. */
  tooltip?: string;
  /** Why nothing can be verified (a syntax error: `line 3: …`). */
  problem?: string;
  /** A model's check stopped at a limit: the memory budget or the timeout (the tooltip says which). */
  limit?: 'memory' | 'time';
}

export const STATUS_NOTIFICATION = 'litmus/status';

const VERDICTS: readonly Verdict[] = ['holds', 'fails', 'incomplete', 'running'];
const STATES: readonly RunState[] = ['running', 'queued', 'done', 'cancelled'];

/** Validates a notification's params; anything malformed is `undefined` (and ignored). */
export function parseStatus(raw: unknown): StatusParams | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.uri !== 'string' || typeof r.version !== 'number') return undefined;
  if (!STATES.includes(r.state as RunState)) return undefined;
  const verdicts: Partial<Record<ModelName, Verdict>> = {};
  if (typeof r.verdicts === 'object' && r.verdicts !== null) {
    const v = r.verdicts as Record<string, unknown>;
    for (const m of STATUS_MODELS) {
      if (VERDICTS.includes(v[m] as Verdict)) verdicts[m] = v[m] as Verdict;
    }
  }
  const out: StatusParams = { uri: r.uri, version: r.version, state: r.state as RunState, verdicts };
  const byModel = <T extends string>(x: unknown, ok: (v: unknown) => boolean): Partial<Record<ModelName, T>> | undefined => {
    if (typeof x !== 'object' || x === null) return undefined;
    const o: Partial<Record<ModelName, T>> = {};
    for (const m of STATUS_MODELS) if (ok((x as Record<string, unknown>)[m])) o[m] = (x as Record<string, T>)[m];
    return o;
  };
  const implied = byModel<ModelName>(r.implied, (v) => STATUS_MODELS.includes(v as ModelName));
  if (implied && Object.keys(implied).length > 0) out.implied = implied;
  const exists = byModel<'ok' | 'no' | 'unknown'>(r.exists, (v) => v === 'ok' || v === 'no' || v === 'unknown');
  if (exists) out.exists = exists;
  if (typeof r.tooltip === 'string' && r.tooltip !== '') out.tooltip = r.tooltip;
  if (typeof r.problem === 'string' && r.problem !== '') out.problem = r.problem;
  if (r.limit === 'memory' || r.limit === 'time') out.limit = r.limit;
  return out;
}

const SYMBOL: Record<Verdict, string> = {
  holds: '✓',
  fails: '✗',
  incomplete: '?',
  running: '…',
};

// Used only when the server sends no tooltip (an older server); the server's wording is the
// same as its lenses' (`verdict.rs`).
const WORDS: Record<Verdict, string> = {
  holds: 'nothing fails (no assertion, forall/~exists condition, runtime error or deadlock); an “exists” is a question, answered Ok / No on its lens',
  fails: 'fails: an execution violates an assertion or a condition, or ends in an error or deadlock',
  incomplete: 'incomplete: the exploration stopped early (a limit, or cancelled) with nothing found',
  running: 'checking…',
};

export interface StatusView {
  /** Status bar text; may hold `$(codicon)` references. */
  text: string;
  /** Plain-text tooltip, one model a line. */
  tooltip: string;
  /** `error` when some model fails, `warning` when one is incomplete, else `none`. */
  severity: 'error' | 'warning' | 'none';
  /** What a click on a finished check opens: the trace view, or an AArch64, RISC-V, POWER or ARMv7 test's execution graph (it has no trace). */
  opens: 'trace' | 'axiomatic';
}

/** Whether the verdicts are an axiomatic model's (a herd AArch64, RISC-V, POWER or ARMv7 test). */
export function isAxiomatic(verdicts: StatusParams['verdicts']): boolean {
  return (['aarch64', 'riscv', 'ppc', 'arm'] as const).some((m) => verdicts[m] !== undefined);
}

/**
 * `SC ✓ · TSO ✗ · PSO ✗`, the same words as the server's code lens; an AArch64 or RISC-V test
 * `aarch64.cat ✓ Ok` (herd's answer to its `exists` after the mark).
 */
export function verdictSummary(verdicts: Partial<Record<ModelName, Verdict>>, exists?: StatusParams['exists']): string {
  return STATUS_MODELS.filter((m) => verdicts[m] !== undefined)
    .map((m) => {
      const answer = (m === 'aarch64' || m === 'riscv' || m === 'ppc' || m === 'arm') && exists?.[m] !== undefined && exists[m] !== 'unknown' ? ` ${exists[m] === 'ok' ? 'Ok' : 'No'}` : '';
      return `${label(m)} ${SYMBOL[verdicts[m] as Verdict]}${answer}`;
    })
    .join(' · ');
}

export function formatStatus(s: StatusParams): StatusView {
  if (s.problem !== undefined) {
    return {
      text: '$(error) litmus: cannot verify',
      tooltip: `Not verified: ${s.problem}\nFix it (see the Problems panel) and save to verify.`,
      severity: 'error',
      opens: 'trace',
    };
  }
  const summary = verdictSummary(s.verdicts, s.exists);
  const icon =
    s.state === 'running' ? '$(sync~spin)' : s.state === 'queued' ? '$(clock)' : s.state === 'cancelled' ? '$(circle-slash)' : '$(beaker)';
  let text = `${icon} ${summary || 'litmus'}`;
  if (s.state === 'cancelled') text += ' (cancelled)';
  if (s.state === 'queued') text += ' (queued)';
  if (s.limit !== undefined && s.state === 'done') text += s.limit === 'memory' ? ' (memory limit)' : ' (time limit)';
  const lines =
    s.tooltip !== undefined
      ? [s.tooltip]
      : STATUS_MODELS.filter((m) => s.verdicts[m] !== undefined).map((m) => {
          const by = s.implied?.[m];
          return `${label(m)}: ${WORDS[s.verdicts[m] as Verdict]}${by ? ` (implied by ${label(by)})` : ''}`;
        });
  if (s.state === 'running') lines.push('Verification is running: click to cancel (what was found is kept).');
  if (s.state === 'queued') lines.push('Waiting for a free place (the litmus.maxJobs setting).');
  if (s.state === 'cancelled') lines.push('Verification was cancelled: what was found is kept, the rest is incomplete.');
  const values = Object.values(s.verdicts);
  const severity = values.includes('fails') ? 'error' : values.includes('incomplete') ? 'warning' : 'none';
  return { text, tooltip: lines.join('\n') || 'litmus', severity, opens: isAxiomatic(s.verdicts) ? 'axiomatic' : 'trace' };
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
