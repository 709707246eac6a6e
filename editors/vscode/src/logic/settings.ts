// The `litmus.*` settings as the server reads them (`workspace/configuration` and
// `initializationOptions`). This module does not import `vscode`, so it is unit-tested with
// `node --test`. Contract: docs/editors.md and the protocol contract in docs/design/editors.md.

export type ModelName = 'sc' | 'tso' | 'pso';
export type EngineName = 'auto' | 'mcr' | 'exhaustive' | 'dpor';
/** When the check for every iteration (`--unbounded`) runs besides its command. */
export type UnboundedMode = 'off' | 'onSave';

/** What the server receives: exactly the settings it understands, all present, all valid. */
export interface ServerSettings {
  models: ModelName[];
  loopBound: number;
  timeout: number;
  engine: EngineName;
  verifyOnSave: boolean;
  verifyOnChange: boolean;
  /** `onSave`: a save checks for every number of loop iterations instead of up to the bound. */
  unbounded: UnboundedMode;
  /** Checks running at once (0 = one per core). */
  maxJobs: number;
  /** MiB a check may use (0 = a share of the machine). */
  maxMemory: number;
}

export const MODEL_ORDER: readonly ModelName[] = ['sc', 'tso', 'pso'];

export const DEFAULT_SETTINGS: Readonly<ServerSettings> = Object.freeze({
  models: ['sc', 'tso', 'pso'] as ModelName[],
  loopBound: 8,
  timeout: 10,
  engine: 'auto' as EngineName,
  verifyOnSave: true,
  verifyOnChange: false,
  unbounded: 'off' as UnboundedMode,
  maxJobs: 0,
  maxMemory: 0,
});

/** Reads one key of the `litmus` section (the VS Code `WorkspaceConfiguration.get`). */
export type ConfigGetter = (key: string) => unknown;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Maps whatever the user wrote to what the server accepts: unknown models dropped, duplicates
 * removed and put in SC, TSO, PSO order (an empty or invalid list means all three), numbers
 * made finite and non-negative (the loop bound an integer), anything else replaced by its
 * default. The server keeps its own checks; this keeps a typo in settings.json from turning
 * into an error on every request.
 */
export function toServerSettings(get: ConfigGetter): ServerSettings {
  const models = normalizeModels(get('models'));
  const loopBound = nonNegative(get('loopBound'), DEFAULT_SETTINGS.loopBound, true);
  const timeout = nonNegative(get('timeout'), DEFAULT_SETTINGS.timeout, false);
  const rawEngine = get('engine');
  const engine: EngineName =
    rawEngine === 'auto' || rawEngine === 'mcr' || rawEngine === 'exhaustive' || rawEngine === 'dpor'
      ? rawEngine
      : DEFAULT_SETTINGS.engine;
  const verifyOnSave = bool(get('verifyOnSave'), DEFAULT_SETTINGS.verifyOnSave);
  const verifyOnChange = bool(get('verifyOnChange'), DEFAULT_SETTINGS.verifyOnChange);
  const rawUnbounded = get('unbounded');
  const unbounded: UnboundedMode =
    rawUnbounded === 'off' || rawUnbounded === 'onSave' ? rawUnbounded : DEFAULT_SETTINGS.unbounded;
  const maxJobs = Math.min(nonNegative(get('maxJobs'), DEFAULT_SETTINGS.maxJobs, true), 256);
  const maxMemory = Math.min(nonNegative(get('maxMemory'), DEFAULT_SETTINGS.maxMemory, true), 1 << 20);
  return { models, loopBound, timeout, engine, verifyOnSave, verifyOnChange, unbounded, maxJobs, maxMemory };
}

/** The same mapping from a plain object such as the `litmus` section of settings.json. */
export function fromObject(section: unknown): ServerSettings {
  const obj = isRecord(section) ? section : {};
  return toServerSettings((key) => obj[key]);
}

export function normalizeModels(raw: unknown): ModelName[] {
  if (!Array.isArray(raw)) return [...DEFAULT_SETTINGS.models];
  const wanted = new Set(
    raw.filter((m): m is string => typeof m === 'string').map((m) => m.trim().toLowerCase()),
  );
  const models = MODEL_ORDER.filter((m) => wanted.has(m));
  return models.length > 0 ? models : [...DEFAULT_SETTINGS.models];
}

function nonNegative(raw: unknown, fallback: number, integer: boolean): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0) return fallback;
  return integer ? Math.floor(raw) : raw;
}

function bool(raw: unknown, fallback: boolean): boolean {
  return typeof raw === 'boolean' ? raw : fallback;
}

/**
 * The cat side's settings (docs/models.md), which the server asks per workspace folder (a
 * `resource` scope): the model of the recheck on save or of C tests, and the folders an
 * `include` is looked for in. Only strings are kept; a relative path stays relative (the
 * server resolves it against the folder).
 */
export interface CatSettings {
  modelPath: string;
  includePath: string[];
}

export function toCatSettings(get: ConfigGetter): CatSettings {
  const model = get('modelPath');
  const include = get('includePath');
  const list = Array.isArray(include) ? include : typeof include === 'string' ? [include] : [];
  return {
    modelPath: typeof model === 'string' ? model : '',
    includePath: list.filter((p): p is string => typeof p === 'string' && p !== ''),
  };
}

/**
 * Cat settings the server keeps between requests (the include path): a change to one is told
 * with `workspace/didChangeConfiguration`, after which the server asks every folder again.
 */
export const CAT_KEYS: readonly string[] = ['litmus.includePath'];

/** Settings whose change needs the server process restarted rather than told. */
export const RESTART_KEYS: readonly string[] = ['litmus.serverPath'];

/** Every key the server is told about; a change to one sends `workspace/didChangeConfiguration`. */
export const SERVER_KEYS: readonly string[] = Object.keys(DEFAULT_SETTINGS).map((k) => `litmus.${k}`);

/** True when a configuration change (VS Code's `affectsConfiguration`) needs a restart. */
export function needsRestart(affects: (key: string) => boolean): boolean {
  return RESTART_KEYS.some((k) => affects(k));
}

/** What `WorkspaceConfiguration.inspect('serverPath')` says about the setting's scopes. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * Whether the user set `litmus.serverPath` somewhere: in user settings (local or remote, which
 * VS Code merges into `globalValue`), or, in a trusted workspace, in the workspace or folder
 * settings (an untrusted workspace's own value is ignored, as VS Code ignores it). A set value
 * wins over the bundled server.
 */
export function serverPathIsExplicit(inspected: Inspected | undefined, trusted: boolean): boolean {
  if (!inspected) return false;
  // The default is empty (unset): an empty value set somewhere is no choice either.
  const set = (v: unknown) => v !== undefined && v !== '';
  return set(inspected.globalValue) || (trusted && (set(inspected.workspaceValue) || set(inspected.workspaceFolderValue)));
}

/**
 * The command that shows `litmus.serverPath` in the Settings editor: the search finds it on
 * every tab, and the setting's `window` scope makes the User tab (the one that opens) list it.
 */
export const OPEN_SERVER_PATH_SETTING: readonly [string, string] = ['workbench.action.openSettings', 'litmus.serverPath'];
