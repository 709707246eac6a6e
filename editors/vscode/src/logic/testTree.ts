// The test explorer's item tree: every `.litmus` file is a test, each assertion and the final
// condition a child of it, and each of those has one child per memory model checked. Built
// from the file's text alone (no server round trip), so the tree follows every edit at once.
// No `vscode` import: plain data, unit-tested under node.

/** The operational models (native and x86 tests), and the axiomatic models of herd's AArch64 and RISC-V tests (`aarch64.cat`, `riscv.cat`). */
export type Model = 'sc' | 'tso' | 'pso' | 'aarch64' | 'riscv' | 'ppc' | 'arm' | 'c';
export const MODELS: readonly Model[] = ['sc', 'tso', 'pso'];

/**
 * The models a file is checked under: an AArch64 or RISC-V test under its architecture's
 * model (the CLI's `--model aarch64` / `riscv`), any other under the configured ones. The first
 * word decides, as in the parser (after herd's `(* *)` comments).
 */
export function modelsFor(text: string, configured: readonly Model[]): Model[] {
  const first = /^\s*(\S+)/.exec(blankComments(text, true))?.[1];
  if (first === 'AArch64') return ['aarch64'];
  if (first === 'RISCV') return ['riscv'];
  if (first === 'PPC') return ['ppc'];
  if (first === 'ARM') return ['arm'];
  // herd's C tests: under the user's model (the kernel's, found in a kernel tree), key `c`
  if (first === 'C') return ['c'];
  return configured.filter((m) => MODELS.includes(m));
}

/** A position, 0-based line and character (VS Code's convention). */
export interface Pos {
  line: number;
  character: number;
}

export interface Range {
  start: Pos;
  end: Pos;
}

/** An assertion or the final condition found in the text. */
export interface CheckSite {
  kind: 'assert' | 'condition';
  /** `assert(r0 == 0)`, `exists (0:EAX=0 /\ 1:EAX=0)`, shortened to one line. */
  label: string;
  range: Range;
}

export interface ModelNode {
  id: string;
  label: string;
  model: Model;
  range: Range;
}

export interface CheckNode {
  id: string;
  label: string;
  kind: CheckSite['kind'];
  range: Range;
  children: ModelNode[];
}

export interface FileNode {
  id: string;
  label: string;
  children: CheckNode[];
  /** The models the file is checked under ([`modelsFor`]). */
  models: Model[];
}

/** True for herd's `X86`/`X86_64` files (the first word decides, as in the parser). */
export function isX86(text: string): boolean {
  // herd files may open with `(* *)` comments before the `X86` line
  return /^\s*X86(_64)?\b/.test(blankComments(text, true));
}

/**
 * The text with comments and string literals replaced by spaces (newlines kept), so positions
 * stay where they were: `//` to the end of the line and `/* *\/` in both dialects, and herd's
 * `(* *)` in x86 files.
 */
export function blankComments(text: string, x86: boolean): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  let i = 0;
  while (i < text.length) {
    const two = text.slice(i, i + 2);
    if (two === '//') {
      let j = text.indexOf('\n', i);
      if (j < 0) j = text.length;
      blank(i, j);
      i = j;
    } else if (two === '/*' || (x86 && two === '(*')) {
      const close = two === '/*' ? '*/' : '*)';
      let j = text.indexOf(close, i + 2);
      j = j < 0 ? text.length : j + 2;
      blank(i, j);
      i = j;
    } else if (text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      j = Math.min(j + 1, text.length);
      blank(i, j);
      i = j;
    } else {
      i++;
    }
  }
  return out.join('');
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

function posAt(starts: number[], offset: number): Pos {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

/** The offset just after the parenthesis that closes the one at `open`, or -1. */
function matchParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

function oneLine(s: string, max = 60): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/**
 * The assertions (`assert(e);`, native dialect) and the final condition (`exists`, `~exists`,
 * `forall`, herd's `final`) of a test, in text order. Comments and strings are skipped; an
 * unclosed parenthesis ends the site at the end of its line (the server reports the error).
 */
export function findChecks(text: string): CheckSite[] {
  const x86 = isX86(text);
  const clean = blankComments(text, x86);
  const starts = lineStarts(text);
  const sites: CheckSite[] = [];
  const site = (kind: CheckSite['kind'], from: number, labelFrom: number, open: number) => {
    let end = open >= 0 ? matchParen(clean, open) : -1;
    if (end < 0) {
      end = clean.indexOf('\n', from);
      if (end < 0) end = clean.length;
    }
    sites.push({
      kind,
      label: oneLine(clean.slice(labelFrom, end)),
      range: { start: posAt(starts, from), end: posAt(starts, end) },
    });
  };
  if (!x86) {
    const re = /\bassert\s*\(/g;
    for (let m = re.exec(clean); m; m = re.exec(clean)) {
      site('assert', m.index, m.index, m.index + m[0].length - 1);
    }
  }
  // The condition: the first condition keyword that starts a line (after blanks), as in both
  // grammars' layout, so a register or location named `final` inside a thread does not count.
  const cond = /(^|\n)[ \t]*(~[ \t]*exists|exists|forall|final)\b/.exec(clean);
  if (cond) {
    const from = cond.index + cond[1].length + (cond[0].length - cond[1].length - cond[2].length);
    const open = clean.indexOf('(', from + cond[2].length);
    const lineEnd = clean.indexOf('\n', from);
    // herd allows a condition without parentheses (`exists 0:EAX=0`): then up to the line end.
    const usable = open >= 0 && (lineEnd < 0 || open < lineEnd || /^\s*$/.test(clean.slice(from + cond[2].length, open)));
    site('condition', from, from, usable ? open : -1);
  }
  return sites;
}

/** `SC`, `TSO`, `PSO`; `aarch64.cat`, `riscv.cat`; `C` (herd's C tests, under the user's model). */
export function modelLabel(m: Model): string {
  if (m === 'c') return 'C';
  return m === 'aarch64' || m === 'riscv' || m === 'ppc' || m === 'arm' ? `${m}.cat` : m.toUpperCase();
}

/** The checked models in SC, TSO, PSO order (an empty or unusable list means all three). */
export function normalizeModels(models: readonly string[] | undefined): Model[] {
  const picked = MODELS.filter((m) => (models ?? []).includes(m));
  return picked.length > 0 ? picked : [...MODELS];
}

/**
 * The item tree of one file. Ids are stable under edits that do not add or remove checks:
 * `<uri>`, `<uri>#assert-N` (N counts the assertions from 1), `<uri>#condition`, and
 * `…/<model>` for the model children; ranges follow the text.
 */
export function fileTree(uri: string, label: string, text: string, configured: readonly Model[]): FileNode {
  const models = modelsFor(text, configured);
  let asserts = 0;
  const children = findChecks(text).map((s): CheckNode => {
    const id = s.kind === 'assert' ? `${uri}#assert-${++asserts}` : `${uri}#condition`;
    return {
      id,
      label: `${s.label} (line ${s.range.start.line + 1})`,
      kind: s.kind,
      range: s.range,
      children: models.map((m) => ({ id: `${id}/${m}`, label: modelLabel(m), model: m, range: s.range })),
    };
  });
  return { id: uri, label, children, models };
}

/** What a run of some items of a file has to check: the models any of them asks for. */
export function modelsToRun(file: FileNode, selectedIds: readonly string[], models: readonly Model[]): Model[] {
  const wanted = new Set<Model>();
  for (const id of selectedIds) {
    if (id === file.id) return [...models];
    for (const c of file.children) {
      if (id === c.id) return [...models];
      for (const m of c.children) if (id === m.id) wanted.add(m.model);
    }
  }
  return models.filter((m) => wanted.has(m));
}
