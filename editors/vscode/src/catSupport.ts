// Cat models in the editor (docs/models.md): the "Write Out a Built-in Model" command (the
// server's `litmus.writeModel`) and the `litmus/modelChanges` list, shown in the Problems panel
// on the tests whose verdict the saved model changed.
import * as vscode from 'vscode';
import { changeMessage, changeSummary, parseModelChanges } from './logic/modelChanges';

export const CAT_LANGUAGE_ID = 'cat';
export const WRITE_BUILTIN_MODEL = 'litmus.writeBuiltinModel';
export const MODEL_CHANGES_NOTIFICATION = 'litmus/modelChanges';
const BUILTIN_MODELS = ['aarch64', 'riscv', 'ppc', 'arm', 'rc11', 'sc', 'x86tso'];

export class CatSupport implements vscode.Disposable {
  private readonly changes = vscode.languages.createDiagnosticCollection('litmus-model-changes');

  dispose(): void {
    this.changes.dispose();
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
    const byUri = new Map<string, vscode.Diagnostic[]>();
    for (const c of m.changed) {
      const d = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), changeMessage(c, name), vscode.DiagnosticSeverity.Information);
      d.source = 'litmus model';
      byUri.set(c.uri, [...(byUri.get(c.uri) ?? []), d]);
    }
    for (const [uri, ds] of byUri) this.changes.set(vscode.Uri.parse(uri), ds);
    void vscode.window.setStatusBarMessage(changeSummary(m, name), 10000);
    if (m.error) void vscode.window.showWarningMessage(changeSummary(m, name));
  }
}
