// The reply of `litmus.showSchedule` and what the client makes of it: the locations of a peek
// list, the text copied to the clipboard, the inline step labels. No `vscode` import.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Location {
  uri: string;
  range: Range;
}

export interface ScheduleStep {
  label: string;
  location: Location;
}

export type ScheduleKind = 'assert' | 'condition' | 'error' | 'deadlock' | 'witness';

/** Reply of `workspace/executeCommand` `litmus.showSchedule` (see the protocol contract). */
export interface Schedule {
  title: string;
  model: string;
  kind: ScheduleKind;
  steps: ScheduleStep[];
}

export const SHOW_SCHEDULE = 'litmus.showSchedule';
export const VERIFY = 'litmus.verify';
/** The server's command that checks the document for every number of loop iterations. */
export const VERIFY_UNBOUNDED = 'litmus.verifyUnbounded';

const KINDS: readonly ScheduleKind[] = ['assert', 'condition', 'error', 'deadlock', 'witness'];

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function isNat(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function parsePosition(v: unknown): Position | undefined {
  if (!isObj(v) || !isNat(v.line) || !isNat(v.character)) return undefined;
  return { line: v.line, character: v.character };
}

function parseRange(v: unknown): Range | undefined {
  if (!isObj(v)) return undefined;
  const start = parsePosition(v.start);
  const end = parsePosition(v.end);
  if (!start || !end) return undefined;
  return { start, end };
}

/**
 * Validates a `litmus.showSchedule` reply. `null` (nothing to show) and anything malformed give
 * `undefined`; a step without a usable location is dropped rather than failing the whole reply.
 */
export function parseSchedule(raw: unknown): Schedule | undefined {
  if (!isObj(raw) || !Array.isArray(raw.steps)) return undefined;
  const steps: ScheduleStep[] = [];
  for (const s of raw.steps) {
    if (!isObj(s) || !isObj(s.location) || typeof s.location.uri !== 'string') continue;
    const range = parseRange(s.location.range);
    if (!range) continue;
    steps.push({ label: typeof s.label === 'string' ? s.label : '', location: { uri: s.location.uri, range } });
  }
  const kind = KINDS.includes(raw.kind as ScheduleKind) ? (raw.kind as ScheduleKind) : 'error';
  return {
    title: typeof raw.title === 'string' ? raw.title : '',
    model: typeof raw.model === 'string' ? raw.model : '',
    kind,
    steps,
  };
}

/** The peek list: one location per step, in schedule order. */
export function scheduleLocations(s: Schedule): Location[] {
  return s.steps.map((st) => st.location);
}

/** Where the peek widget is anchored: the last step (the violation), else the given fallback. */
export function anchorPosition(s: Schedule, uri: string, fallback: Position): Position {
  for (let i = s.steps.length - 1; i >= 0; i--) {
    if (s.steps[i].location.uri === uri) return s.steps[i].location.range.start;
  }
  return fallback;
}

const KIND_WORDS: Record<ScheduleKind, string> = {
  assert: 'assertion violation',
  condition: 'condition violation',
  error: 'runtime error',
  deadlock: 'deadlock',
  witness: 'witness',
};

/** One line saying what the schedule is, e.g. `TSO assertion violation: assert(...) fails`. */
export function scheduleHeading(s: Schedule): string {
  const model = s.model ? `${s.model.toUpperCase()} ` : '';
  const head = `${model}${KIND_WORDS[s.kind]}`;
  return s.title ? `${head}: ${s.title}` : head;
}

/**
 * The heading with the step count said once: `… (9 steps)`. The server's title may already
 * end with the count (`SB: condition violation under TSO (9 steps)`); then it is not repeated.
 */
export function scheduleSummary(s: Schedule): string {
  const head = scheduleHeading(s);
  if (/\(\d+ steps?\)\s*$/.test(head)) return head;
  return `${head} (${s.steps.length} ${s.steps.length === 1 ? 'step' : 'steps'})`;
}

/** The last path segment of a uri, decoded (`file:///a/b%20c.litmus` → `b c.litmus`). */
export function uriBaseName(uri: string): string {
  const path = uri.replace(/[?#].*$/, '');
  const base = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(base);
  } catch {
    return base;
  }
}

/**
 * The schedule as plain text for the clipboard, one step a line, each with its 1-based
 * `file:line:col`:
 *
 *     TSO assertion violation: ...
 *       1. P0: store x = 1 (buffered)    sb.litmus:6:3
 */
export function formatScheduleText(s: Schedule, name: (uri: string) => string = uriBaseName): string {
  const labels = s.steps.map((st, i) => `${i + 1}. ${st.label}`);
  const width = Math.max(0, ...labels.map((l) => l.length));
  const lines = s.steps.map((st, i) => {
    const p = st.location.range.start;
    return `  ${labels[i].padEnd(width)}  ${name(st.location.uri)}:${p.line + 1}:${p.character + 1}`;
  });
  return [scheduleHeading(s), ...lines].join('\n') + '\n';
}

export interface LineAnnotation {
  line: number;
  /** Step numbers and labels of every step on that line, in schedule order. */
  text: string;
}

/** The inline annotations for one document: steps on the same line are joined with `; `. */
export function lineAnnotations(s: Schedule, uri: string): LineAnnotation[] {
  const byLine = new Map<number, string[]>();
  s.steps.forEach((st, i) => {
    if (st.location.uri !== uri) return;
    const line = st.location.range.start.line;
    const parts = byLine.get(line) ?? [];
    parts.push(`${i + 1}. ${st.label}`);
    byLine.set(line, parts);
  });
  return [...byLine.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([line, parts]) => ({ line, text: parts.join('; ') }));
}

/**
 * Completes the arguments of `litmus.showSchedule` / `litmus.verify` (and
 * `litmus.verifyUnbounded`) when the command comes from
 * the palette or a key binding (no arguments) rather than from a code lens: the active
 * document's uri, and for `showSchedule` the cursor position. Uri objects become strings.
 */
export function completeCommandArgs(
  command: string,
  args: unknown[],
  active: { uri: string; position: Position } | undefined,
): unknown[] | undefined {
  const first = args[0];
  const uri =
    typeof first === 'string' ? first : isObj(first) && first !== null ? String(first) : undefined;
  if (uri !== undefined && uri !== '[object Object]') return [uri, ...args.slice(1)];
  if (!active) return undefined;
  if (command === SHOW_SCHEDULE) return [active.uri, active.position.line, active.position.character];
  return [active.uri];
}

export interface StepItem {
  /** `N. label`, in schedule order. */
  label: string;
  /** `file:line:col`, 1-based. */
  description: string;
  location: Location;
}

/**
 * The steps as an ordered pick list, one item per step. VS Code's peek list (`peekLocations`)
 * sorts its locations by position and merges equal ones ("Locations (7)" for 9 steps), so the
 * order of a schedule is lost there; `litmus.showSchedule` and Step Through use this list.
 */
export function stepItems(s: Schedule, name: (uri: string) => string = uriBaseName): StepItem[] {
  return s.steps.map((st, i) => {
    const p = st.location.range.start;
    return {
      label: `${i + 1}. ${st.label}`,
      description: `${name(st.location.uri)}:${p.line + 1}:${p.character + 1}`,
      location: st.location,
    };
  });
}
