// Cat models in the editor (docs/models.md): the "Write Out a Built-in Model" command (the
// server's `litmus.writeModel`) and the `litmus/modelChanges` list, shown in the Problems panel
// on the tests whose verdict the saved model changed.
import * as vscode from 'vscode';
import { changeActions, changeMessage, changeSummary, ModelChange, parseModelChanges, SHOW_UNDER } from './logic/modelChanges';

export const CAT_LANGUAGE_ID = 'cat';
export const WRITE_BUILTIN_MODEL = 'litmus.writeBuiltinModel';
export const MODEL_CHANGES_NOTIFICATION = 'litmus/modelChanges';
const BUILTIN_MODELS = ['aarch64', 'riscv', 'ppc', 'arm', 'rc11', 'sc', 'x86tso'];

export class CatSupport implements vscode.Disposable, vscode.CodeActionProvider {
  private readonly changes = vscode.languages.createDiagnosticCollection('litmus-model-changes');
  /** The changed tests by their problem (`uri` and message: the diagnostics a code action is
   * given are copies, not the objects set here). */
  private readonly entries = new Map<string, ModelChange>();

  dispose(): void {
    this.changes.dispose();
  }

  /** On a changed test's problem: open it under the old model, and under the new one. */
  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      const c = d.source === 'litmus model' ? this.entries.get(`${doc.uri.toString()}\n${d.message}`) : undefined;
      for (const a of c ? changeActions(c) : []) {
        const action = new vscode.CodeAction(a.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [d];
        action.command = { title: a.title, command: SHOW_UNDER, arguments: [a.params] };
        out.push(action);
      }
    }
    return out;
  }

  /** Asks for a model and a folder and has the server write them (`litmus.writeModel`). */
  async writeBuiltinModel(): Promise<void> {
    const name = await vscode.window.showQuickPick(BUILTIN_MODELS, { placeHolder: 'The built-in model to write out' });
    if (!name) return;
    const folders = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
      openLabel: 'Write here',
    });
    const dir = folders?.[0];
    if (!dir) return;
    try {
      const files = (await vscode.commands.executeCommand('litmus.writeModel', name, dir.toString())) as unknown;
      const first = Array.isArray(files) && typeof files[0] === 'string' ? files[0] : undefined;
      if (first) await vscode.window.showTextDocument(vscode.Uri.file(first));
    } catch (err) {
      void vscode.window.showErrorMessage(`Litmus: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** `litmus/modelChanges`: one Information problem per test whose verdict changed. */
  modelChanged(raw: unknown): void {
    const m = parseModelChanges(raw);
    if (!m) return;
    const name = m.model.split('/').pop() ?? m.model;
    this.changes.clear();
    this.entries.clear();
    const byUri = new Map<string, vscode.Diagnostic[]>();
    for (const c of m.changed) {
      const d = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), changeMessage(c, name), vscode.DiagnosticSeverity.Information);
      d.source = 'litmus model';
      this.entries.set(`${vscode.Uri.parse(c.uri).toString()}\n${d.message}`, c);
      byUri.set(c.uri, [...(byUri.get(c.uri) ?? []), d]);
    }
    for (const [uri, ds] of byUri) this.changes.set(vscode.Uri.parse(uri), ds);
    void vscode.window.setStatusBarMessage(changeSummary(m, name), 10000);
    if (m.error) void vscode.window.showWarningMessage(changeSummary(m, name));
  }
}
