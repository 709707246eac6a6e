// From `litmus check --json` (JSON v1, README "JSON") to test explorer results: which item
// passed or failed under which model, and the message a failure carries (the violation and its
// schedule, one step a line with its position). No `vscode` import: unit-tested under node.

import { CheckNode, FileNode, Model, modelLabel, Pos, Range } from './testTree';

/** One step of a schedule as the CLI prints it (1-based positions). */
export interface CliStep {
  thread: string;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  action: string;
  loc: string | null;
  value: number | null;
  buffered: boolean;
  /** The step as a sentence, in the language server's words (a CLI from before it has none). */
  label?: string;
}

export interface CliViolation {
  kind: 'assert' | 'condition' | 'error' | 'deadlock' | 'result-header';
  message: string;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
  schedule: CliStep[];
}

export interface CliModelReport {
  complete: boolean;
  stopped?: string;
  condition: { kind: string; holds: boolean; positive: number; negative: number } | null;
  violations: CliViolation[];
  warnings: { message: string; line?: number; col?: number }[];
  stats?: { time_ms?: number };
}

export interface CliDiagnostic {
  severity: string;
  message: string;
  line: number;
  col: number;
  end_line: number;
  end_col: number;
}

export interface CliFile {
  path: string;
  name?: string;
  diagnostics: CliDiagnostic[];
  results: Partial<Record<Model, CliModelReport>>;
}

export interface CliDocument {
  version: number;
  files: CliFile[];
}

/** A message shown on a test item: text, and where it points (0-based). */
export interface ResultMessage {
  text: string;
  range?: Range;
}

export type Outcome = 'passed' | 'failed' | 'errored' | 'skipped';

export interface ItemResult {
  id: string;
  outcome: Outcome;
  messages: ResultMessage[];
  /** For a run's output: what a passing item answered (an `exists` reachable or not). */
  detail?: string;
  durationMs?: number;
}

/** Parses the CLI's JSON; undefined when it is not a version 1 or 2 document with a file list. */
export function parseCliJson(stdout: string): CliDocument | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (typeof doc !== 'object' || doc === null) return undefined;
  const d = doc as { version?: unknown; files?: unknown };
  // Version 2 gave every dialect one shape (AArch64/RISC-V results under `aarch64`/`riscv`);
  // a version 1 document from an older CLI reads the same for native and x86 files.
  if ((d.version !== 1 && d.version !== 2) || !Array.isArray(d.files)) return undefined;
  return doc as CliDocument;
}

function range0(o: { line: number; col: number; end_line?: number; end_col?: number }): Range {
  const start: Pos = { line: Math.max(0, o.line - 1), character: Math.max(0, o.col - 1) };
  const end: Pos =
    o.end_line !== undefined && o.end_col !== undefined
      ? { line: Math.max(0, o.end_line - 1), character: Math.max(0, o.end_col - 1) }
      : start;
  return { start, end };
}

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

function inside(p: Pos, r: Range): boolean {
  return before(r.start, p) && before(p, r.end);
}

/**
 * A step's sentence: the CLI's `label`, the language server's words for it (the same as the
 * trace view's). A CLI from before `label` gets the step's own fields on one line.
 */
export function stepLabel(s: CliStep): string {
  if (s.label !== undefined) return s.label;
  const value = s.value === null ? '' : ` = ${s.value}`;
  return `${s.thread} ${s.action} ${s.loc ?? ''}${value}${s.buffered ? ' (buffered)' : ''}`.replace(/ +/g, ' ').trim();
}

const KIND_WORDS: Record<CliViolation['kind'], string> = {
  assert: 'assertion violation',
  condition: 'condition violation',
  error: 'runtime error',
  deadlock: 'deadlock',
  'result-header': 'disagreement with the “Result:” header',
};

/**
 * A failure's message: what failed under which model, then the schedule that makes it happen,
 * one numbered step a line with `line:col` (1-based, like the CLI).
 */
export function violationText(model: Model, v: CliViolation): string {
  const out = [`${modelLabel(model)} ${KIND_WORDS[v.kind] ?? v.kind}: ${v.message}`];
  // An axiomatic model's violation has an execution, not a schedule (`litmus check FILE` prints it).
  if (v.schedule.length === 0 && (model === 'aarch64' || model === 'riscv' || model === 'ppc' || model === 'arm' || model === 'c')) return out.join('\n');
  out.push(`Schedule (${v.schedule.length} step${v.schedule.length === 1 ? '' : 's'}):`);
  v.schedule.forEach((s, i) => out.push(`  ${i + 1}. ${stepLabel(s)}  (${s.line}:${s.col})`));
  return out.join('\n');
}

function incompleteText(model: Model, r: CliModelReport): string {
  const why = r.warnings.map((w) => w.message).filter((m) => m !== '');
  return `${modelLabel(model)}: not verified, the exploration was incomplete${why.length ? ` (${why.join('; ')})` : ''}`;
}

/** The condition's answer, in the lens's words: for `exists`, herd's `Ok` / `No` (not a failure). */
export function conditionAnswer(model: Model, c: NonNullable<CliModelReport['condition']>): string {
  const states = c.positive + c.negative;
  const verdict =
    c.kind === 'exists'
      ? c.holds
        ? 'Ok: some execution reaches the state'
        : 'No: no execution reaches the state (an answer, not a failure)'
      : c.holds
        ? 'holds'
        : 'fails';
  return `${modelLabel(model)}: ${c.kind} ${verdict} (it holds in ${c.positive} of ${states} final state${states === 1 ? '' : 's'})`;
}

/**
 * The results of one file's run. `file` is its item tree (built from the text that was
 * checked), `models` the models the run asked for, `report` the CLI's entry for the file
 * (undefined when the CLI printed none: then every requested item errored with `why`); `text`,
 * the checked source, is no longer read (the CLI's steps carry their sentences, `label`) and
 * stays so that callers keep their shape.
 *
 * Rules: a file with error diagnostics errors (its checks are skipped); a model child fails
 * when one of that model's violations lies inside its assertion or condition; an `exists`
 * passes whether or not the state is reachable (it is a question, as for herd7), its answer in
 * `detail`; a model whose exploration was incomplete and found nothing there is errored as not
 * verified; violations that belong to no check (runtime errors, deadlocks) fail the file.
 */
export function fileResults(
  file: FileNode,
  models: readonly Model[],
  report: CliFile | undefined,
  _text?: string,
  why = 'litmus printed no result for this file',
): ItemResult[] {
  const out: ItemResult[] = [];
  const modelNodes = (pick: (c: CheckNode) => boolean) =>
    file.children.filter(pick).flatMap((c) => c.children.filter((m) => models.includes(m.model)));
  if (!report) {
    out.push({ id: file.id, outcome: 'errored', messages: [{ text: why }] });
    for (const m of modelNodes(() => true)) out.push({ id: m.id, outcome: 'skipped', messages: [] });
    return out;
  }
  const errors = report.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    out.push({
      id: file.id,
      outcome: 'errored',
      messages: errors.map((d) => ({ text: `${d.message} (${d.line}:${d.col})`, range: range0(d) })),
    });
    for (const m of modelNodes(() => true)) out.push({ id: m.id, outcome: 'skipped', messages: [] });
    return out;
  }
  const fileFailures: ResultMessage[] = [];
  const fileIncomplete: ResultMessage[] = [];
  for (const model of models) {
    const r = report.results[model];
    const nodes = file.children.map((c) => ({ check: c, node: c.children.find((m) => m.model === model) }));
    if (!r) {
      for (const { node } of nodes) if (node) out.push({ id: node.id, outcome: 'errored', messages: [{ text: `${modelLabel(model)}: no result` }] });
      continue;
    }
    const claimed = new Set<CliViolation>();
    for (const { check, node } of nodes) {
      if (!node) continue;
      // a C test's answer that disagrees with its `Result:` header fails its condition
      const mine = r.violations.filter(
        (v) =>
          (v.kind === 'result-header' && check.kind === 'condition') ||
          ((v.kind === 'assert' || v.kind === 'condition') && (v.kind === 'assert') === (check.kind === 'assert') && inside(range0(v).start, check.range)),
      );
      mine.forEach((v) => claimed.add(v));
      // The model's time is shared among its items, so the durations add up to the run's.
      const withNode = nodes.filter((n) => n.node).length;
      const ms = r.stats?.time_ms === undefined ? undefined : r.stats.time_ms / Math.max(1, withNode);
      if (mine.length > 0) {
        out.push({
          id: node.id,
          outcome: 'failed',
          messages: mine.map((v) => ({ text: violationText(model, v), range: range0(v) })),
          durationMs: ms,
        });
      } else if (!r.complete && r.stopped !== 'first-violation') {
        out.push({ id: node.id, outcome: 'errored', messages: [{ text: incompleteText(model, r), range: check.range }], durationMs: ms });
      } else {
        const detail = check.kind === 'condition' && r.condition ? conditionAnswer(model, r.condition) : undefined;
        out.push({ id: node.id, outcome: 'passed', messages: [], detail, durationMs: ms });
      }
    }
    for (const v of r.violations) {
      if (!claimed.has(v)) fileFailures.push({ text: violationText(model, v), range: range0(v) });
    }
    if (!r.complete && file.children.length === 0 && r.stopped !== 'first-violation') {
      fileIncomplete.push({ text: incompleteText(model, r) });
    }
  }
  addImplied(file, out);
  addFenceHints(file, out);
  if (fileFailures.length > 0) out.push({ id: file.id, outcome: 'failed', messages: fileFailures });
  else if (fileIncomplete.length > 0) out.push({ id: file.id, outcome: 'errored', messages: fileIncomplete });
  else if (file.children.length === 0) out.push({ id: file.id, outcome: 'passed', messages: [] });
  return out;
}

const STRENGTH: readonly Model[] = ['sc', 'tso', 'pso'];

/**
 * Implied verdicts, as the lenses state them: every SC execution is a TSO execution and every
 * TSO execution a PSO one. A check left unverified (incomplete) under a model fails there when
 * a stronger model found a violation of it, and passes when a weaker model passed it completely.
 */
function addImplied(file: FileNode, out: ItemResult[]): void {
  const byId = new Map(out.map((r) => [r.id, r]));
  for (const c of file.children) {
    const at = (m: Model) => byId.get(`${c.id}/${m}`);
    for (const m of STRENGTH) {
      const r = at(m);
      if (r?.outcome !== 'errored') continue;
      const i = STRENGTH.indexOf(m);
      const failedBy = STRENGTH.slice(0, i).find((s) => at(s)?.outcome === 'failed');
      const passedBy = STRENGTH.slice(i + 1).find((w) => at(w)?.outcome === 'passed');
      if (failedBy) {
        r.outcome = 'failed';
        r.messages = [
          {
            text: `${modelLabel(m)}: fails, implied by ${modelLabel(failedBy)} (every ${modelLabel(failedBy)} execution is a ${modelLabel(m)} execution); its own exploration was incomplete.\n${at(failedBy)!.messages[0]?.text ?? ''}`,
            range: at(failedBy)!.messages[0]?.range ?? r.messages[0]?.range,
          },
        ];
      } else if (passedBy && c.kind !== 'condition') {
        r.outcome = 'passed';
        r.detail = `${modelLabel(m)}: holds, implied by ${modelLabel(passedBy)} (every ${modelLabel(m)} execution is a ${modelLabel(passedBy)} execution)`;
        r.messages = [];
      }
    }
  }
}

/** The line a TSO/PSO failure gets when the same check passed under SC in the same run. */
export function fenceHint(model: Model): string {
  return `SC passes here: fences can fix this. The quick fix on the assertion inserts the fewest that make ${modelLabel(model)} behave as SC (“litmus fences --model ${model} FILE” prints them).`;
}

/**
 * A failure under TSO or PSO of a check that passed under SC in the same run is a missing
 * fence, which the server's quick fix (issue 30) repairs: its message says so. Failures SC has
 * too get no hint (no fence fixes them).
 */
function addFenceHints(file: FileNode, out: ItemResult[]): void {
  const outcome = new Map(out.map((r) => [r.id, r]));
  for (const c of file.children) {
    if (outcome.get(`${c.id}/sc`)?.outcome !== 'passed') continue;
    for (const m of ['tso', 'pso'] as const) {
      const r = outcome.get(`${c.id}/${m}`);
      if (r?.outcome === 'failed') for (const msg of r.messages) msg.text += `\n${fenceHint(m)}`;
    }
  }
}

/**
 * The CLI's entry for each file path of a catalogue run: by path as given on the command line
 * (the CLI echoes it), in order.
 */
export function reportsByPath(doc: CliDocument): Map<string, CliFile> {
  const m = new Map<string, CliFile>();
  for (const f of doc.files) if (typeof f?.path === 'string' && !m.has(f.path)) m.set(f.path, f);
  return m;
}

/** The command line of a catalogue run (`litmus check --json ... FILE...`). */
export function checkArgs(
  files: readonly string[],
  opts: { models: readonly Model[]; loopBound?: number; timeout?: number; engine?: string },
): string[] {
  const args = ['check', '--json', '--model', opts.models.join(',')];
  if (opts.loopBound !== undefined) args.push('--loop-bound', String(opts.loopBound));
  if (opts.timeout !== undefined && opts.timeout > 0) args.push('--timeout', String(opts.timeout));
  if (opts.engine) args.push('--engine', opts.engine);
  args.push('--', ...files);
  return args;
}
