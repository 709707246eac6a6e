// The results view (the Litmus panel's *Results*): for the active `.litmus` document, each
// model's verdict and numbers from the last finished check, then the session's previous runs,
// newest first. Fed by `litmus/results` (`logic/results.ts` keeps the history and makes the
// rows); a tree view, so it follows the theme and the keyboard like VS Code's own views.

import * as vscode from 'vscode';
import { ModelRow, ResultsHistory, ResultsParams, Run, runHeading, rowDescription, rowTooltip, runSummary, clock } from './logic/results';
import { normUri } from './editorUtil';

export const RESULTS_VIEW = 'litmus.results';
export const SHOW_RESULTS = 'litmus.showResults';

type Node = { kind: 'model'; row: ModelRow; run: Run } | { kind: 'previous'; runs: Run[] } | { kind: 'run'; run: Run };

function icon(r: ModelRow): vscode.ThemeIcon {
  if (r.verdict === 'fails') return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
  if (r.verdict === 'holds') return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
  if (r.verdict === 'running') return new vscode.ThemeIcon('loading~spin');
  return new vscode.ThemeIcon('question', new vscode.ThemeColor('testing.iconErrored'));
}

export class ResultsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly history = new ResultsHistory();
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly subs: vscode.Disposable[] = [];
  /** The document shown: the active `.litmus` editor's, kept while another kind of editor is active. */
  private shown: vscode.Uri | undefined;

  constructor() {
    this.view = vscode.window.createTreeView(RESULTS_VIEW, { treeDataProvider: this, showCollapseAll: true });
    this.subs.push(
      this.view,
      this.changed,
      vscode.window.onDidChangeActiveTextEditor(() => this.follow()),
      vscode.workspace.onDidCloseTextDocument((d) => this.history.delete(normUri(d.uri.toString()))),
      vscode.commands.registerCommand(SHOW_RESULTS, () => vscode.commands.executeCommand(`${RESULTS_VIEW}.focus`)),
    );
    this.follow();
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }

  /** A finished check (`litmus/results`). */
  record(p: ResultsParams): void {
    if (!this.history.record(normUri(p.uri), p, Date.now())) return;
    if (!this.shown) this.follow();
    this.refresh();
  }

  private follow(): void {
    const ed = vscode.window.activeTextEditor;
    if (ed && ed.document.languageId === 'litmus') {
      this.shown = ed.document.uri;
      this.refresh();
    }
  }

  private runs(): readonly Run[] {
    return this.shown ? this.history.runs(normUri(this.shown.toString())) : [];
  }

  private refresh(): void {
    const runs = this.runs();
    const name = this.shown ? this.shown.path.slice(this.shown.path.lastIndexOf('/') + 1) : undefined;
    this.view.description = name ? `${name}${runs[0] ? ` · ${clock(runs[0].at)}` : ''}` : undefined;
    this.view.message = !this.shown
      ? 'Open a .litmus file: its results show here after each check.'
      : runs.length === 0
        ? `${name}: no finished check yet in this session (save the file or run Litmus: Verify Now).`
        : runs[0].state === 'cancelled'
          ? `${name}: the last check was cancelled: what it found is kept, the rest is incomplete.`
          : undefined;
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      const [last, ...older] = this.runs();
      if (!last) return [];
      const rows: Node[] = last.models.map((row) => ({ kind: 'model', row, run: last }));
      if (older.length > 0) rows.push({ kind: 'previous', runs: older });
      return rows;
    }
    if (node.kind === 'previous') return node.runs.map((run) => ({ kind: 'run', run }));
    if (node.kind === 'run') return node.run.models.map((row) => ({ kind: 'model', row, run: node.run }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'previous') {
      const item = new vscode.TreeItem(`Previous runs (${node.runs.length})`, vscode.TreeItemCollapsibleState.Collapsed);
      item.iconPath = new vscode.ThemeIcon('history');
      item.tooltip = 'The earlier checks of this document in this session, newest first.';
      return item;
    }
    if (node.kind === 'run') {
      const item = new vscode.TreeItem(`${clock(node.run.at)} · version ${node.run.version}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.description = runSummary(node.run);
      item.tooltip = runHeading(node.run);
      item.iconPath = new vscode.ThemeIcon('debug-stackframe-dot');
      return item;
    }
    const item = new vscode.TreeItem(node.row.title, vscode.TreeItemCollapsibleState.None);
    item.description = rowDescription(node.row);
    item.tooltip = rowTooltip(node.row);
    item.iconPath = icon(node.row);
    return item;
  }
}
