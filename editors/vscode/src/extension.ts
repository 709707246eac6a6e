// The VS Code side of litmus: starts `litmus lsp` for `.litmus` files and adds what the
// protocol leaves to the client: the status bar item fed by `litmus/status`, the ordered step
// list for `litmus.showSchedule`, copying a schedule, inline step labels, and a clear message when
// the binary is missing. Everything that can be tested without VS Code lives in `./logic`.

import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  InlayHintRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  completeCommandArgs,
  formatScheduleText,
  lineAnnotations,
  parseSchedule,
  Schedule,
  scheduleSummary,
  SHOW_SCHEDULE,
  stepItems,
  VERIFY,
  VERIFY_UNBOUNDED,
} from './logic/schedule';
import { bundledServerPath, chooseServer } from './logic/serverPath';
import {
  needsRestart,
  OPEN_SERVER_PATH_SETTING,
  SERVER_KEYS,
  CAT_KEYS,
  CatSettings,
  toCatSettings,
  serverPathIsExplicit,
  ServerSettings,
  toServerSettings,
} from './logic/settings';
import { formatStatus, parseStatus, STATUS_NOTIFICATION, StatusStore } from './logic/status';
import { registerTestExplorer, TestExplorer } from './testing';
import { parseResults, RESULTS_NOTIFICATION } from './logic/results';
import { ResultsView } from './resultsView';
import { AxiomaticView } from './axiomaticView';
import { CAT_LANGUAGE_ID, CatSupport, MODEL_CHANGES_NOTIFICATION, WRITE_BUILTIN_MODEL } from './catSupport';
import { SHOW_UNDER } from './logic/modelChanges';
import { normUri, toRange } from './editorUtil';
import { OPEN_LOCATION, SHOW_AXIOMATIC } from './logic/axgraph';
import { SHOW_TRACE } from './logic/trace';
import { traceArgs, TraceView } from './traceView';

const LANGUAGE_ID = 'litmus';
let cats: CatSupport;
const COPY_SCHEDULE = 'litmus.copySchedule';
const CLEAR_SCHEDULE = 'litmus.clearSchedule';
const RESTART_SERVER = 'litmus.restartServer';
const STEP_THROUGH = 'litmus.stepThroughSchedule';
/** The server's command: stops a document's check, keeping what it found (marked incomplete). */
const CANCEL = 'litmus.cancel';
/** How long a check runs before its notification (with a Cancel button) appears. */
const NOTIFY_AFTER_MS = 1500;

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let stepDecoration: vscode.TextEditorDecorationType;
const statuses = new StatusStore();
/** Commands registered while no server runs, so that the palette explains instead of failing. */
let fallbackCommands: vscode.Disposable[] = [];
/** The schedule shown last, for the inline labels; dropped when its document changes. */
let shownSchedule: Schedule | undefined;
/** Why the server is not running, when it is not. */
let startError: string | undefined;
/** The `litmus` binary resolved at the last start (the test explorer runs its CLI). */
let serverBinary: string | undefined;
/** The trace view and the axiomatic view (one panel each, reused). */
let traces: TraceView;
let axiomatic: AxiomaticView;
/** The results view and the Testing items, both fed by `litmus/results`. */
let results: ResultsView;
let explorer: TestExplorer;

function settingsFor(scope?: vscode.ConfigurationScope): ServerSettings {
  const cfg = vscode.workspace.getConfiguration('litmus', scope);
  return toServerSettings((key) => cfg.get(key));
}

/**
 * The server's settings and `litmus.modelPath` and `litmus.includePath`, which only the cat
 * side reads (docs/models.md), for the workspace folder `scope`.
 */
function withCatSettings(scope?: vscode.Uri): ServerSettings & CatSettings {
  const cfg = vscode.workspace.getConfiguration('litmus', scope);
  return { ...settingsFor(scope), ...toCatSettings((key) => cfg.get(key)) };
}

function activeLitmusEditor(): vscode.TextEditor | undefined {
  const ed = vscode.window.activeTextEditor;
  return ed && ed.document.languageId === LANGUAGE_ID ? ed : undefined;
}

function activeTarget(): { uri: string; position: { line: number; character: number } } | undefined {
  const ed = activeLitmusEditor();
  if (!ed) return undefined;
  const p = ed.selection.active;
  return { uri: ed.document.uri.toString(), position: { line: p.line, character: p.character } };
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Litmus', { log: true });
  statusItem = vscode.window.createStatusBarItem('litmus.status', vscode.StatusBarAlignment.Left, 10);
  statusItem.name = 'Litmus verdicts';
  stepDecoration = vscode.window.createTextEditorDecorationType({
    after: {
      margin: '0 0 0 2em',
      color: new vscode.ThemeColor('editorCodeLens.foreground'),
      fontStyle: 'italic',
    },
    isWholeLine: true,
  });
  traces = new TraceView({ client: () => client, showStartError, activeTarget });
  axiomatic = new AxiomaticView(() => client);
  cats = new CatSupport();
  results = new ResultsView();
  context.subscriptions.push(
    results,
    cats,
    vscode.commands.registerCommand(WRITE_BUILTIN_MODEL, () => cats.writeBuiltinModel()),
    vscode.languages.registerCodeActionsProvider({ language: LANGUAGE_ID }, cats, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
    vscode.commands.registerCommand(SHOW_UNDER, (params?: unknown) => axiomatic.showUnder(params)),
    traces,
    axiomatic,
    vscode.commands.registerCommand(SHOW_TRACE, (...args: unknown[]) => traces.show(traceArgs(args))),
    vscode.commands.registerCommand(SHOW_AXIOMATIC, (arg?: unknown) => axiomatic.show(arg)),
    vscode.commands.registerCommand(OPEN_LOCATION, (uri?: unknown, range?: unknown) => AxiomaticView.openLocation(uri, range)),
    output,
    statusItem,
    stepDecoration,
    vscode.commands.registerCommand(COPY_SCHEDULE, copySchedule),
    vscode.commands.registerCommand(STEP_THROUGH, stepThroughSchedule),
    vscode.commands.registerCommand(CLEAR_SCHEDULE, () => showAnnotations(undefined)),
    vscode.commands.registerCommand(RESTART_SERVER, async () => {
      await stopClient();
      await startClient(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => renderStatus()),
    vscode.window.onDidChangeVisibleTextEditors(() => showAnnotations(shownSchedule)),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) traces.edited(e.document.uri.toString());
      if (
        e.contentChanges.length > 0 &&
        shownSchedule &&
        shownSchedule.steps.some((s) => s.location.uri === e.document.uri.toString())
      ) {
        showAnnotations(undefined);
      }
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      statuses.delete(d.uri.toString());
      notifyRunning(d.uri.toString(), false);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // `litmus.serverPath` set or changed in any scope (user, remote, workspace, folder)
      if (needsRestart((k) => e.affectsConfiguration(k))) {
        await stopClient();
        await startClient(context);
      } else if (client && e.affectsConfiguration('litmus.inlineValues')) {
        // Ask again for the hints of the visible documents (shown or hidden by the middleware).
        const f = client.getFeature(InlayHintRequest.method);
        for (const ed of vscode.window.visibleTextEditors) f.getProvider(ed.document)?.onDidChangeInlayHints.fire();
      } else if (client && [...SERVER_KEYS, ...CAT_KEYS].some((k) => e.affectsConfiguration(k))) {
        await client.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { litmus: settingsFor() },
        });
      }
    }),
    { dispose: () => void stopClient() },
  );
  explorer = registerTestExplorer(context, {
    binary: () => (serverBinary ? { path: serverBinary } : { error: startError ?? 'the litmus binary was not found' }),
    log: (line) => output.appendLine(line),
  });
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  disposeFallbacks();
  startError = undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // A platform .vsix carries the server (server/litmus); litmus.serverPath, when set, wins.
  const inspected = vscode.workspace.getConfiguration('litmus').inspect<string>('serverPath');
  // (an untrusted workspace's own value does not count: VS Code ignores it, see package.json)
  const explicit = serverPathIsExplicit(inspected, vscode.workspace.isTrusted);
  const resolved = chooseServer({ value: vscode.workspace.getConfiguration('litmus').get<string>('serverPath'), explicit }, bundledServerPath(context.extensionPath, process.platform), {
    pathVar: process.env.PATH ?? '',
    pathExt: process.env.PATHEXT,
    platform: process.platform,
    home: os.homedir(),
    workspaceFolder: folder,
    isExecutable,
  });
  serverBinary = resolved.ok ? resolved.path : undefined;
  if (!resolved.ok) {
    reportStartFailure(resolved.message);
    return;
  }
  output.appendLine(`Starting ${resolved.path} lsp${resolved.bundled ? ' (bundled with the extension)' : ''}`);
  const serverOptions: ServerOptions = {
    command: resolved.path,
    args: ['lsp'],
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder } : undefined,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: LANGUAGE_ID }, { language: CAT_LANGUAGE_ID }],
    initializationOptions: settingsFor(),
    outputChannel: output,
    markdown: {
      isTrusted: {
        enabledCommands: [VERIFY, VERIFY_UNBOUNDED, SHOW_SCHEDULE, SHOW_TRACE, COPY_SCHEDULE, 'editor.action.peekLocations', 'editor.action.showReferences'],
      },
      supportThemeIcons: true,
    },
    middleware: {
      workspace: {
        // Answer `workspace/configuration` for the `litmus` section with normalized settings
        // (and without the extension-only `serverPath`).
        configuration: async (params, token, next) => {
          const raw = await next(params, token);
          if (!Array.isArray(raw)) return raw;
          return params.items.map((item, i) =>
            item.section === 'litmus'
              ? withCatSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
              : raw[i],
          );
        },
      },
      // The server's verdict lenses carry their tooltip (the meaning of the symbol, implied
      // verdicts, the legend) in `data.tooltip`: LSP 3.17's Command has no tooltip field.
      // The values read in the counterexamples, unless `litmus.inlineValues` is off.
      provideInlayHints: async (document, range, token, next) =>
        vscode.workspace.getConfiguration('litmus', document).get<boolean>('inlineValues', true) ? next(document, range, token) : [],
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const l of lenses ?? []) {
          const data = (l as { data?: unknown }).data;
          const tip = typeof data === 'object' && data !== null ? (data as { tooltip?: unknown }).tooltip : undefined;
          if (l.command && typeof tip === 'string') l.command.tooltip = tip;
        }
        return lenses;
      },
      // The language client registers the server's `executeCommandProvider` commands
      // (`litmus.verify`, `litmus.verifyUnbounded`, `litmus.showSchedule`); this fills in their arguments when they come
      // from the palette and shows the schedule the server returns.
      executeCommand: async (command, args, next) => {
        const full = completeCommandArgs(command, args, activeTarget());
        if (!full) {
          void vscode.window.showInformationMessage('Litmus: open a .litmus file first.');
          return null;
        }
        // A per-model verdict lens (`TSO ✗`) carries the model: it opens that model's trace.
        if (command === SHOW_SCHEDULE && typeof full[3] === 'string') {
          await traces.show({ uri: String(full[0]), model: full[3], position: { line: Number(full[1]), character: Number(full[2]) } });
          return null;
        }
        const result = await next(command, full);
        if (command === SHOW_SCHEDULE) await presentSchedule(result, String(full[0]));
        return result;
      },
    },
  };
  const c = new LanguageClient('litmus', 'Litmus', serverOptions, clientOptions);
  context.subscriptions.push(
    c.onNotification(MODEL_CHANGES_NOTIFICATION, (raw: unknown) => cats.modelChanged(raw)),
    // a finished check: the results view's history and the document's Testing items (gutter)
    c.onNotification(RESULTS_NOTIFICATION, (raw: unknown) => {
      const r = parseResults(raw);
      if (!r) return;
      results.record(r);
      explorer.showServerResults(r);
    }),
    c.onNotification(STATUS_NOTIFICATION, (raw: unknown) => {
      const s = parseStatus(raw);
      if (s && statuses.update(normUri(s.uri), s)) {
        renderStatus();
        notifyRunning(s.uri, s.state === 'running' || s.state === 'queued');
        if (s.state === 'done') {
          traces.verified(s.uri);
          axiomatic.verified(s.uri);
        }
      }
    }),
  );
  client = c;
  try {
    await c.start();
    renderStatus();
  } catch (err) {
    client = undefined;
    const msg = err instanceof Error ? err.message : String(err);
    reportStartFailure(
      `Litmus: the language server ${resolved.path} failed to start (${msg}). ` +
        'Check that it is a build of litmus with the “lsp” subcommand (setting litmus.serverPath).',
    );
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  // A stopped server sends no more statuses: close the notifications of its checks.
  for (const uri of [...running.keys()]) notifyRunning(uri, false);
  if (c) {
    try {
      await c.stop();
    } catch (err) {
      output.appendLine(`Stopping the server: ${String(err)}`);
    }
  }
}

function reportStartFailure(message: string): void {
  startError = message;
  output.appendLine(message);
  const explain = () => {
    void showStartError();
    return null;
  };
  disposeFallbacks();
  fallbackCommands = [
    vscode.commands.registerCommand(VERIFY, explain),
    vscode.commands.registerCommand(SHOW_SCHEDULE, explain),
  ];
  renderStatus();
  void showStartError();
}

async function showStartError(): Promise<void> {
  if (!startError) return;
  const choice = await vscode.window.showErrorMessage(startError, 'Open Settings', 'Show Output');
  if (choice === 'Open Settings') {
    await vscode.commands.executeCommand(...OPEN_SERVER_PATH_SETTING);
  } else if (choice === 'Show Output') {
    output.show(true);
  }
}

function disposeFallbacks(): void {
  for (const d of fallbackCommands) d.dispose();
  fallbackCommands = [];
}

function renderStatus(): void {
  const ed = activeLitmusEditor();
  if (!ed) {
    statusItem.hide();
    return;
  }
  if (startError) {
    statusItem.text = '$(error) litmus: no server';
    statusItem.tooltip = startError;
    statusItem.command = RESTART_SERVER;
    statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    statusItem.show();
    return;
  }
  const s = statuses.get(ed.document.uri.toString());
  if (!s) {
    statusItem.text = '$(beaker) litmus';
    statusItem.tooltip = 'Not verified yet: save the file or run "Litmus: Verify Now".';
    statusItem.command = VERIFY;
    statusItem.backgroundColor = undefined;
    statusItem.show();
    return;
  }
  const view = formatStatus(s);
  statusItem.text = view.text;
  statusItem.tooltip =
    view.tooltip +
    (s.state === 'running' || s.state === 'queued' || s.problem !== undefined
      ? ''
      : view.opens === 'axiomatic'
        ? '\nClick to open the execution graph.'
        : view.severity === 'error'
          ? '\nClick to open the trace view.'
          : '\nClick to verify again.');
  statusItem.command =
    s.state === 'running' || s.state === 'queued'
      ? { title: 'Cancel', command: CANCEL, arguments: [s.uri] }
      : s.problem !== undefined
        ? 'workbench.actions.view.problems'
        : view.opens === 'axiomatic'
          ? { title: 'Show the execution graph', command: SHOW_AXIOMATIC, arguments: [s.uri] }
          : view.severity === 'error'
            ? SHOW_TRACE
            : VERIFY;
  statusItem.backgroundColor =
    view.severity === 'error'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : view.severity === 'warning'
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
  statusItem.show();
}

/** The notifications of running checks, per document: each resolves its progress when done. */
const running = new Map<string, { timer?: ReturnType<typeof setTimeout>; done?: () => void }>();

/**
 * Shows a check that runs longer than NOTIFY_AFTER_MS as a notification with a Cancel button
 * (the server's own progress is in the status bar only): Cancel sends `litmus.cancel`, which
 * stops the check and keeps what it found, marked incomplete.
 */
function notifyRunning(uri: string, isRunning: boolean): void {
  const key = normUri(uri);
  const cur = running.get(key);
  if (!isRunning) {
    if (cur?.timer) clearTimeout(cur.timer);
    cur?.done?.();
    running.delete(key);
    return;
  }
  if (cur) return;
  const entry: { timer?: ReturnType<typeof setTimeout>; done?: () => void } = {};
  running.set(key, entry);
  entry.timer = setTimeout(() => {
    entry.timer = undefined;
    const name = vscode.Uri.parse(uri).path.split('/').pop() ?? uri;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Litmus: verifying ${name}`, cancellable: true },
      (_progress, token) =>
        new Promise<void>((resolve) => {
          entry.done = resolve;
          token.onCancellationRequested(() => {
            void vscode.commands.executeCommand(CANCEL, uri);
            resolve();
          });
        }),
    );
  }, NOTIFY_AFTER_MS);
}

/** Parses a server reply, with every uri in VS Code's spelling. */
function normalizedSchedule(raw: unknown): Schedule | undefined {
  const s = parseSchedule(raw);
  if (!s) return undefined;
  for (const st of s.steps) st.location.uri = normUri(st.location.uri);
  return s;
}

async function presentSchedule(raw: unknown, requestedUri: string): Promise<void> {
  const s = normalizedSchedule(raw);
  if (!s || s.steps.length === 0) {
    void vscode.window.showInformationMessage('Litmus: no violation or witness to show here.');
    return;
  }
  output.appendLine(formatScheduleText(s));
  showAnnotations(s);
  // The steps in schedule order, one entry each (VS Code's peek list would sort and merge them).
  pickSteps(s, normUri(requestedUri));
  vscode.window.setStatusBarMessage(`Litmus: ${scheduleSummary(s)}`, 8000);
}

function showAnnotations(s: Schedule | undefined): void {
  shownSchedule = s;
  for (const ed of vscode.window.visibleTextEditors) {
    if (!s) {
      ed.setDecorations(stepDecoration, []);
      continue;
    }
    const opts = lineAnnotations(s, ed.document.uri.toString())
      .filter((a) => a.line < ed.document.lineCount)
      .map((a) => ({
        range: ed.document.lineAt(a.line).range,
        renderOptions: { after: { contentText: `  ${a.text}` } },
      }));
    ed.setDecorations(stepDecoration, opts);
  }
}

/** Asks the server for the schedule at the cursor of the active litmus editor. */
async function scheduleAtCursor(): Promise<{ schedule: Schedule; uri: string } | undefined> {
  const target = activeTarget();
  if (!target) {
    void vscode.window.showInformationMessage('Litmus: open a .litmus file first.');
    return undefined;
  }
  if (!client) {
    await showStartError();
    return undefined;
  }
  const raw = await client.sendRequest(ExecuteCommandRequest.type, {
    command: SHOW_SCHEDULE,
    arguments: [target.uri, target.position.line, target.position.character],
  });
  const s = normalizedSchedule(raw);
  if (!s || s.steps.length === 0) {
    void vscode.window.showInformationMessage('Litmus: no violation or witness at the cursor.');
    return undefined;
  }
  return { schedule: s, uri: target.uri };
}

function displayName(uri: string, base: string): string {
  const u = vscode.Uri.parse(uri);
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(base));
  return folder ? vscode.workspace.asRelativePath(u, false) : u.path.slice(u.path.lastIndexOf('/') + 1);
}

async function copySchedule(): Promise<void> {
  const got = await scheduleAtCursor();
  if (!got) return;
  const { schedule: s, uri } = got;
  await vscode.env.clipboard.writeText(formatScheduleText(s, (u) => displayName(u, uri)));
  void vscode.window.showInformationMessage(`Litmus: copied the schedule of ${scheduleSummary(s)}.`);
}

/** The steps in schedule order in a pick list; moving through it reveals each step's source. */
async function stepThroughSchedule(): Promise<void> {
  const got = await scheduleAtCursor();
  if (!got) return;
  const { schedule: s, uri } = got;
  showAnnotations(s);
  pickSteps(s, uri);
}

/** The ordered step list of `s` (a quick pick): moving through it reveals each step's source. */
function pickSteps(s: Schedule, uri: string): void {
  const items = stepItems(s, (u) => displayName(u, uri));
  const pick = vscode.window.createQuickPick<(typeof items)[number]>();
  pick.title = `Litmus: ${scheduleSummary(s)}`;
  pick.placeholder = 'Steps in schedule order: move to reveal, Enter to go there';
  pick.items = items;
  pick.matchOnDescription = true;
  const reveal = async (item: (typeof items)[number] | undefined, preserveFocus: boolean) => {
    if (!item) return;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(item.location.uri));
    const range = toRange(item.location.range);
    await vscode.window.showTextDocument(doc, { selection: range, preserveFocus, preview: true });
  };
  pick.onDidChangeActive((active) => void reveal(active[0], true));
  pick.onDidAccept(() => {
    void reveal(pick.activeItems[0], false);
    pick.hide();
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
}
