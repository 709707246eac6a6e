// The test explorer: every `.litmus` file of the workspace as a test, its assertions and final
// condition as children, one grandchild per model (the tree is `logic/testTree.ts`). A run
// calls the CLI once for all the files it covers (`litmus check --json FILE...`, the catalogue
// run, parallel inside the CLI) and maps the JSON to results (`logic/testResults.ts`): the
// Testing view, the gutter icons, and a failure's message with the schedule. Unsaved editors
// are checked as they are, through standard input. The tree follows edits, saves, creations
// and deletions.

import * as cp from 'child_process';
import * as vscode from 'vscode';
import { checkArgs, CliDocument, fileResults, ItemResult, parseCliJson, reportsByPath } from './logic/testResults';
import { FileNode, fileTree, Model, modelsToRun, normalizeModels, Range } from './logic/testTree';
import { itemDescription, ResultsParams, serverItemResults } from './logic/results';

export const VERIFY_ALL = 'litmus.verifyAllFiles';
const GLOB = '**/*.litmus';
const EXCLUDE = '**/{node_modules,target,.git}/**';

export interface TestExplorerDeps {
  /** The resolved `litmus` binary, or undefined with the reason. */
  binary: () => { path?: string; error?: string };
  log: (line: string) => void;
}

function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

interface CliRun {
  doc?: CliDocument;
  error?: string;
}

/** Runs `litmus check --json` and parses what it prints; cancelling kills the process. */
function runCli(bin: string, args: string[], cwd: string | undefined, stdin: string | undefined, token: vscode.CancellationToken): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = cp.spawn(bin, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sub = token.onCancellationRequested(() => child.kill('SIGINT'));
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      sub.dispose();
      resolve({ error: `cannot run ${bin}: ${e.message}` });
    });
    child.on('close', (code) => {
      sub.dispose();
      const doc = parseCliJson(Buffer.concat(out).toString('utf8'));
      if (doc) resolve({ doc });
      else resolve({ error: `${bin} ${args.slice(0, 2).join(' ')} exited with ${code}: ${Buffer.concat(err).toString('utf8').trim().slice(0, 2000)}` });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin ?? '');
  });
}

/** What the extension asks of the test explorer. */
export interface TestExplorer {
  /**
   * Gives a document's Testing items the results of a check the server finished (a test run
   * of its own, as Dafny's extension does), so the gutter shows the last finished run. Ignored
   * unless the items were built from the text that was checked (same version).
   */
  showServerResults(p: ResultsParams): void;
}

export function registerTestExplorer(context: vscode.ExtensionContext, deps: TestExplorerDeps): TestExplorer {
  const ctrl = vscode.tests.createTestController('litmus', 'Litmus');
  /** Item tree per file uri, built from the text the file has now (editor or disk). */
  const trees = new Map<string, FileNode>();
  /** The text each tree was built from, so a run of an unsaved editor checks that text. */
  const texts = new Map<string, string>();

  const config = () => vscode.workspace.getConfiguration('litmus');
  const models = () => normalizeModels(config().get<string[]>('models'));

  function openDoc(uri: vscode.Uri): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  }

  function upsert(uri: vscode.Uri, text: string): void {
    const key = uri.toString();
    if (texts.get(key) === text && trees.has(key)) return;
    const tree = fileTree(key, vscode.workspace.asRelativePath(uri, false), text, models());
    trees.set(key, tree);
    texts.set(key, text);
    let item = ctrl.items.get(tree.id);
    if (!item) {
      item = ctrl.createTestItem(tree.id, tree.label, uri);
      ctrl.items.add(item);
    } else {
      ctrl.invalidateTestResults(item);
    }
    item.range = new vscode.Range(0, 0, 0, 0);
    item.children.replace(
      tree.children.map((c) => {
        const ci = ctrl.createTestItem(c.id, c.label, uri);
        ci.range = toRange(c.range);
        ci.children.replace(
          c.children.map((m) => {
            const mi = ctrl.createTestItem(m.id, m.label, uri);
            mi.range = toRange(m.range);
            return mi;
          }),
        );
        return ci;
      }),
    );
  }

  async function readAndUpsert(uri: vscode.Uri): Promise<void> {
    const doc = openDoc(uri);
    if (doc) return upsert(uri, doc.getText());
    try {
      upsert(uri, Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8'));
    } catch {
      remove(uri);
    }
  }

  function remove(uri: vscode.Uri): void {
    ctrl.items.delete(uri.toString());
    trees.delete(uri.toString());
    texts.delete(uri.toString());
  }

  /** Removes the file `u`, or every file under the folder `u`. */
  function removeUnder(u: vscode.Uri): void {
    const under = u.toString().replace(/\/?$/, '/');
    const gone: vscode.Uri[] = [u];
    ctrl.items.forEach((item) => {
      if (item.id.startsWith(under) && item.uri) gone.push(item.uri);
    });
    gone.forEach(remove);
  }

  async function discover(): Promise<void> {
    const found = await vscode.workspace.findFiles(GLOB, EXCLUDE);
    const keep = new Set(found.map((u) => u.toString()));
    ctrl.items.forEach((item) => {
      if (!keep.has(item.id)) remove(item.uri ?? vscode.Uri.parse(item.id));
    });
    texts.clear(); // rebuild every tree (the models may have changed)
    await Promise.all(found.map(readAndUpsert));
  }

  ctrl.refreshHandler = () => discover();

  const watcher = vscode.workspace.createFileSystemWatcher(GLOB);
  const isLitmus = (d: vscode.TextDocument) => d.languageId === 'litmus' || d.uri.path.endsWith('.litmus');
  // the same folders as EXCLUDE, for the watcher's and the editors' events
  const skipped = (u: vscode.Uri) => /(^|\/)(node_modules|target|\.git)\//.test(vscode.workspace.asRelativePath(u, false));
  const inWorkspace = (u: vscode.Uri) => u.scheme === 'file' && !skipped(u) && vscode.workspace.getWorkspaceFolder(u) !== undefined;
  context.subscriptions.push(
    ctrl,
    watcher,
    watcher.onDidCreate((u) => {
      if (inWorkspace(u)) void readAndUpsert(u);
    }),
    watcher.onDidChange((u) => {
      const d = openDoc(u);
      if (inWorkspace(u) && (!d || !d.isDirty)) void readAndUpsert(u);
    }),
    watcher.onDidDelete(removeUnder),
    // deletions and renames made in VS Code, folders included (a folder is one event)
    vscode.workspace.onDidDeleteFiles((e) => e.files.forEach(removeUnder)),
    vscode.workspace.onDidRenameFiles((e) => {
      e.files.forEach((f) => removeUnder(f.oldUri));
      void discover();
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (isLitmus(e.document) && inWorkspace(e.document.uri) && e.contentChanges.length > 0) upsert(e.document.uri, e.document.getText());
    }),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (isLitmus(d) && inWorkspace(d.uri)) upsert(d.uri, d.getText());
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      // The editor's unsaved text is gone: back to the file on disk (if it still exists).
      if (isLitmus(d) && inWorkspace(d.uri) && trees.has(d.uri.toString())) void readAndUpsert(d.uri);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('litmus.models')) void discover();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void discover()),
  );

  /** Puts `results` of the file `uri` into `run`. */
  function report(run: vscode.TestRun, uri: string, results: ItemResult[]): void {
    const fileItem = ctrl.items.get(uri);
    if (!fileItem) return;
    const byId = new Map<string, vscode.TestItem>([[fileItem.id, fileItem]]);
    fileItem.children.forEach((c) => {
      byId.set(c.id, c);
      c.children.forEach((m) => byId.set(m.id, m));
    });
    for (const r of results) {
      const item = byId.get(r.id);
      if (!item) continue;
      const messages = r.messages.map((m) => {
        const tm = new vscode.TestMessage(m.text);
        if (m.range && item.uri) tm.location = new vscode.Location(item.uri, toRange(m.range));
        return tm;
      });
      if (r.outcome === 'passed') run.passed(item, r.durationMs);
      else if (r.outcome === 'failed') run.failed(item, messages, r.durationMs);
      else if (r.outcome === 'errored') run.errored(item, messages, r.durationMs);
      else run.skipped(item);
      if (r.detail) run.appendOutput(`${item.uri ? vscode.workspace.asRelativePath(item.uri, false) : ''}: ${r.detail}\r\n`, undefined, item);
    }
  }

  function showServerResults(p: ResultsParams): void {
    const uri = vscode.Uri.parse(p.uri).toString();
    const doc = openDoc(vscode.Uri.parse(uri));
    // a file opened before discovery reached it (a new file): its items now
    if (doc && !trees.has(uri) && isLitmus(doc) && inWorkspace(doc.uri)) upsert(doc.uri, doc.getText());
    const tree = trees.get(uri);
    const fileItem = ctrl.items.get(uri);
    // the items must be those of the checked text: a later edit rebuilt them (its own check follows)
    if (!tree || !fileItem || !doc || doc.version !== p.version || texts.get(uri) !== doc.getText()) return;
    const results = serverItemResults(tree, p);
    if (!results) return;
    // herd's answer (Ok / No) or why a check stopped, beside each model's name
    fileItem.children.forEach((c) => {
      const kind = tree.children.find((n) => n.id === c.id)?.kind ?? 'assert';
      c.children.forEach((m) => {
        const model = m.id.slice(m.id.lastIndexOf('/') + 1);
        m.description = itemDescription(
          p.models.find((r) => r.model === model),
          kind,
        );
      });
    });
    // (preserveFocus: a save must not move the focus to the Test Results view)
    const run = ctrl.createTestRun(new vscode.TestRunRequest([fileItem], undefined, undefined, false, true), `${fileItem.label}: checked by the language server (${p.state})`, true);
    if (fileItem.children.size === 0) run.started(fileItem);
    fileItem.children.forEach((c) => {
      if (c.children.size === 0) run.started(c);
      c.children.forEach((m) => run.started(m));
    });
    report(run, uri, results);
    run.end();
  }

  /** Runs the requested items (all files when `include` is empty) and reports the results. */
  async function runTests(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<{ files: number; failed: number }> {
    const run = ctrl.createTestRun(request);
    const summary = { files: 0, failed: 0 };
    try {
      const excluded = new Set((request.exclude ?? []).map((i) => i.id));
      const roots: vscode.TestItem[] = [];
      if (request.include && request.include.length > 0) roots.push(...request.include);
      else ctrl.items.forEach((i) => roots.push(i));
      // Selected item ids per file uri.
      const perFile = new Map<string, string[]>();
      for (const item of roots) {
        if (excluded.has(item.id)) continue;
        const uri = item.uri?.toString();
        if (!uri || !trees.has(uri)) continue;
        perFile.set(uri, [...(perFile.get(uri) ?? []), item.id]);
      }
      // Files grouped by the models to check, saved files in one catalogue run per group,
      // unsaved editors one by one through standard input.
      const groups = new Map<string, { models: Model[]; files: string[] }>();
      const dirty: { uri: string; models: Model[] }[] = [];
      for (const [uri, ids] of perFile) {
        const tree = trees.get(uri)!;
        // An AArch64 or RISC-V file: its architecture's model (the tree knows which).
        const ms = modelsToRun(tree, ids, tree.models);
        if (ms.length === 0) continue;
        const item = ctrl.items.get(uri);
        if (item) {
          // Only the items that get a result of their own are started (the model items, or a
          // file without checks): a parent started but never finished was counted in the total
          // and dropped from it later (the counter went from 0/73 to 29/44). Parents show the
          // state their children compute; a file-level failure is reported on the file item.
          if (item.children.size === 0) run.started(item);
          item.children.forEach((c) => {
            if (c.children.size === 0) run.started(c);
            c.children.forEach((m) => run.started(m));
          });
        }
        const doc = openDoc(vscode.Uri.parse(uri));
        if (doc && doc.isDirty) dirty.push({ uri, models: ms });
        else {
          const key = ms.join(',');
          const g = groups.get(key) ?? { models: ms, files: [] };
          g.files.push(uri);
          groups.set(key, g);
        }
      }
      const bin = deps.binary();
      const cfg = config();
      const opts = (ms: Model[]) => ({
        models: ms,
        loopBound: cfg.get<number>('loopBound'),
        timeout: cfg.get<number>('timeout'),
        engine: cfg.get<string>('engine'),
      });
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const apply = (uri: string, results: ItemResult[]) => {
        summary.files++;
        if (results.some((r) => r.outcome === 'failed')) summary.failed++;
        report(run, uri, results);
      };
      if (!bin.path) {
        for (const [uri] of perFile) {
          const tree = trees.get(uri)!;
          apply(uri, fileResults(tree, tree.models, undefined, undefined, bin.error ?? 'no litmus binary'));
        }
        return summary;
      }
      for (const g of groups.values()) {
        if (token.isCancellationRequested) break;
        const paths = g.files.map((u) => vscode.Uri.parse(u).fsPath);
        const args = checkArgs(paths, opts(g.models));
        deps.log(`Testing: ${bin.path} ${args.slice(0, -paths.length).join(' ')} (${paths.length} files)`);
        const res = await runCli(bin.path, args, cwd, undefined, token);
        const reports = res.doc ? reportsByPath(res.doc) : new Map();
        g.files.forEach((uri, i) => {
          apply(uri, fileResults(trees.get(uri)!, g.models, reports.get(paths[i]), texts.get(uri), res.error ?? (token.isCancellationRequested ? 'cancelled' : undefined)));
        });
      }
      for (const d of dirty) {
        if (token.isCancellationRequested) break;
        const text = texts.get(d.uri) ?? '';
        const res = await runCli(bin.path, checkArgs(['-'], opts(d.models)), cwd, text, token);
        apply(d.uri, fileResults(trees.get(d.uri)!, d.models, res.doc?.files[0], text, res.error ?? (token.isCancellationRequested ? 'cancelled' : undefined)));
      }
    } finally {
      run.end();
    }
    return summary;
  }

  ctrl.createRunProfile('Verify', vscode.TestRunProfileKind.Run, (req, token) => void runTests(req, token), true);

  context.subscriptions.push(
    vscode.commands.registerCommand(VERIFY_ALL, async () => {
      await discover();
      await vscode.commands.executeCommand('workbench.view.testing.focus');
      const s = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Litmus: verifying all files', cancellable: true },
        (_p, token) => runTests(new vscode.TestRunRequest(), token),
      );
      void vscode.window.showInformationMessage(
        `Litmus: verified ${s.files} file${s.files === 1 ? '' : 's'}, ${s.failed} with a failure.`,
      );
    }),
  );

  void discover();
  return { showServerResults };
}
