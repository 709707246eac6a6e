// The server's `litmus/modelChanges` notification (docs/models.md): after a cat model is saved,
// the workspace's tests whose verdict changed between the model as opened and as saved. This
// module does not import `vscode`, so it is unit-tested with `node --test`.

/** A request that answers a test's axiomatic view under one of the two models. */
export interface ViewRequest {
  method: string;
  params: { uri: string; model: string; which: 'before' | 'after' };
}

export interface ModelChange {
  uri: string;
  file: string;
  test: string;
  before: string;
  after: string;
  /** The model the test was rechecked under (its workspace folder's). */
  model?: string;
  /** How to open the test's witness or forbidding execution under each model. */
  views?: { before: ViewRequest; after: ViewRequest };
}

/** The server's request for a changed test's view under one model. */
export const AXIOMATIC_UNDER_REQUEST = 'litmus/axiomaticUnder';
/** The client command that opens it: `[request params]`. */
export const SHOW_UNDER = 'litmus.showAxiomaticUnder';

function parseView(v: unknown, which: 'before' | 'after'): ViewRequest | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const p = o.params as Record<string, unknown> | undefined;
  if (str(o.method) !== AXIOMATIC_UNDER_REQUEST || typeof p !== 'object' || p === null) return undefined;
  const [uri, model] = [str(p.uri), str(p.model)];
  if (!uri || !model || p.which !== which) return undefined;
  return { method: AXIOMATIC_UNDER_REQUEST, params: { uri, model, which } };
}

/** The code actions of a changed test: open it under the old model and under the new one. */
export function changeActions(c: ModelChange): { title: string; params: ViewRequest['params'] }[] {
  if (!c.views) return [];
  return [
    { title: `Open ${c.test} under the old model (${c.before})`, params: c.views.before.params },
    { title: `Open ${c.test} under the new model (${c.after})`, params: c.views.after.params },
  ];
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
    const v = o.views as Record<string, unknown> | undefined;
    const [vb, va] = [parseView(v?.before, 'before'), parseView(v?.after, 'after')];
    const model = str(o.model);
    changed.push({ uri, file, test, before, after, ...(model ? { model } : {}), ...(vb && va ? { views: { before: vb, after: va } } : {}) });
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
