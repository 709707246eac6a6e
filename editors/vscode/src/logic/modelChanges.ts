// The server's `litmus/modelChanges` notification (docs/models.md): after a cat model is saved,
// the workspace's tests whose verdict changed between the model as opened and as saved. This
// module does not import `vscode`, so it is unit-tested with `node --test`.

export interface ModelChange {
  uri: string;
  file: string;
  test: string;
  before: string;
  after: string;
}

export interface ModelChanges {
  model: string;
  checked: number;
  changed: ModelChange[];
  error?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The notification's parameters, or undefined when they are not its shape. */
export function parseModelChanges(raw: unknown): ModelChanges | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const model = str(r.model) ?? str(r.saved);
  if (model === undefined) return undefined;
  if (typeof r.error === 'string') return { model, checked: 0, changed: [], error: r.error };
  if (typeof r.checked !== 'number' || !Array.isArray(r.changed)) return undefined;
  const changed: ModelChange[] = [];
  for (const c of r.changed) {
    if (typeof c !== 'object' || c === null) return undefined;
    const o = c as Record<string, unknown>;
    const [uri, file, test, before, after] = [str(o.uri), str(o.file), str(o.test), str(o.before), str(o.after)];
    if (!uri || !file || !test || !before || !after) return undefined;
    changed.push({ uri, file, test, before, after });
  }
  return { model, checked: r.checked, changed };
}

/** The Problems-panel message of one changed test. */
export function changeMessage(c: ModelChange, modelName: string): string {
  return `${c.test}: ${c.before} -> ${c.after} under the edited ${modelName} (was ${c.before} as opened)`;
}

/** The one-line summary shown after a recheck. */
export function changeSummary(m: ModelChanges, modelName: string): string {
  if (m.error) return `Litmus: ${modelName} cannot be checked: ${m.error}`;
  const n = m.changed.length;
  return n === 0
    ? `Litmus: ${modelName}: no verdict changed (${m.checked} test${m.checked === 1 ? '' : 's'})`
    : `Litmus: ${modelName}: ${n} of ${m.checked} test${m.checked === 1 ? '' : 's'} changed verdict (Problems panel)`;
}
